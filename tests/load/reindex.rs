//! What serving through a re-index guarantees, over a real socket: the real `semgraph serve`
//! over the indexed fixture company, a fixed set of questions about every product
//! (primitives and recipes, markdown and JSON) asked before an admin re-index of one product
//! ([`REINDEXED`]), asked again and again by concurrent clients while it runs, and once more
//! after it has committed. None is a server error, and no source changed, so:
//! - an answer that does not involve the re-indexed product reads exactly the same as
//!   before (elapsed times aside), at any moment;
//! - an answer that involves it has the same lines as before; rows that tie on every shown
//!   column are listed in node-id order, and a re-index gives the product new ids, so only
//!   the order of such rows may differ.
//!
//! And the recipe slots: a burst of distinct recipes, twice as many as the cores, sent at
//! once to a server with no recipe queue, is computed at once with the default number of
//! slots — none is refused for want of one.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::areas::Names;
use crate::support::{served, without_times};
use parking_lot::Mutex;
use serde_json::Value;

/// The product re-indexed in the middle.
const REINDEXED: &str = "payments";

/// An answer as read before the re-index.
struct Reading {
    status: u16,
    /// The body without elapsed times.
    text: String,
    /// Whether the answer names the re-indexed product.
    involves: bool,
}

impl Reading {
    fn of(status: u16, body: &str) -> Reading {
        Reading {
            status,
            text: comparable(body),
            involves: body.contains(REINDEXED),
        }
    }

    /// How an answer read later differs from this one, if it does in a way it must not.
    fn differs(&self, status: u16, body: &str) -> Option<String> {
        let now = comparable(body);
        let same = status == self.status
            && if self.involves {
                sorted_lines(&self.text) == sorted_lines(&now)
            } else {
                self.text == now
            };
        (!same).then(|| {
            format!(
                "{} → {status}\n{}",
                self.status,
                first_difference(&self.text, &now)
            )
        })
    }
}

/// The markdown's lines (of a JSON answer: of its `markdown` field), sorted, with the ids
/// a Mermaid diagram gives its nodes and subgraphs (`n3`, `g1`) left out: they number the
/// nodes in the order the rows come, and rows that tie on every shown column come in node
/// order, which a re-index renumbers.
fn sorted_lines(text: &str) -> Vec<String> {
    let markdown = serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["markdown"].as_str().map(str::to_string))
        .unwrap_or_else(|| text.to_string());
    let mut lines: Vec<String> = markdown.lines().map(without_diagram_ids).collect();
    lines.sort();
    lines
}

/// A question: its path and query parameters, and whether it asks for JSON.
type Question = (String, Vec<(String, String)>, bool);

/// `line` with every word `n<digits>`/`g<digits>` (a diagram's ids) written `n#`/`g#`.
fn without_diagram_ids(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let starts_word = i == 0 || !chars[i - 1].is_alphanumeric();
        if (c == 'n' || c == 'g') && starts_word && chars.get(i + 1).is_some_and(char::is_ascii_digit) {
            let mut j = i + 1;
            while chars.get(j).is_some_and(char::is_ascii_digit) {
                j += 1;
            }
            if !chars.get(j).is_some_and(|c| c.is_alphanumeric()) {
                out.push(c);
                out.push('#');
                i = j;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// Questions about every product: callers and impact of methods spread over the whole
/// company, the tables' analyses, and an endpoint trace.
fn questions(names: &Names) -> Vec<Question> {
    let p = |k: &str, v: String| (k.to_string(), v);
    let mut out = Vec::new();
    for i in 0..40 {
        let method = names.pick("method", i * 7);
        out.push((
            "/api/v1/code/callers".to_string(),
            vec![p("fqn", method.clone()), p("depth", "2".into())],
            i % 2 == 0,
        ));
        out.push((
            "/api/v1/recipes/impact".to_string(),
            vec![p("target", method), p("depth", "3".into())],
            i % 3 == 0,
        ));
    }
    for i in 0..10 {
        out.push((
            "/api/v1/recipes/table-analysis".to_string(),
            vec![p("table", names.pick("table", i * 3))],
            false,
        ));
        out.push((
            "/api/v1/recipes/endpoint-trace".to_string(),
            vec![p("endpoint", names.pick("endpoint", i * 5))],
            i % 2 == 1,
        ));
    }
    out
}

async fn ask(client: &reqwest::Client, base: &str, q: &Question) -> (u16, String) {
    let mut r = client.get(format!("{base}{}", q.0)).query(&q.1);
    if q.2 {
        r = r.header("accept", "application/json");
    }
    match r.send().await {
        Ok(resp) => (resp.status().as_u16(), resp.text().await.unwrap_or_default()),
        Err(e) => (599, e.to_string()),
    }
}

/// Elapsed times are the only part of an answer that may differ between two reads of the
/// same graph: in markdown (`without_times`) and in JSON (`seconds`/`elapsed_ms` fields).
fn comparable(body: &str) -> String {
    match serde_json::from_str::<Value>(body) {
        Ok(v) => without_times(&strip_times(v).to_string()),
        Err(_) => without_times(body),
    }
}

/// Where `a` and `b` first differ: some characters around that place in each.
fn first_difference(a: &str, b: &str) -> String {
    let at = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let around = |s: &str| {
        s.chars()
            .skip(at.saturating_sub(150))
            .take(400)
            .collect::<String>()
    };
    format!("at character {at}\nbefore: {}\nnow:    {}", around(a), around(b))
}

fn strip_times(v: Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.into_iter()
                .filter(|(k, _)| !k.contains("elapsed") && k != "seconds")
                .map(|(k, v)| (k, strip_times(v)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.into_iter().map(strip_times).collect()),
        other => other,
    }
}

async fn job_state(client: &reqwest::Client, base: &str) -> (String, Value) {
    let v: Value = client
        .get(format!("{base}/api/v1/admin/jobs"))
        .header("accept", "application/json")
        .send()
        .await
        .expect("jobs")
        .json()
        .await
        .expect("jobs json");
    let state = v["result"]["jobs"][0]["state"].as_str().unwrap_or("").to_string();
    (state, v)
}

#[test]
fn every_answer_reads_the_same_before_during_and_after_a_reindex() {
    let company = served::indexed_company("");
    let store = semgraph_storage::Store::open_read_only(company.dir.path().join("store")).expect("store");
    let names = Names::read(&store.snapshot());
    drop(store);
    let served = served::Served::start(&company.config, &[("RUST_LOG", "warn")]);
    let base = served.base.clone();
    let questions = Arc::new(questions(&names));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (differences, errors, during, rounds) = rt.block_on(async {
        let client = reqwest::Client::new();
        let mut before = Vec::new();
        for q in questions.iter() {
            let (status, body) = ask(&client, &base, q).await;
            assert!(
                status == 200 || status == 404,
                "{q:?} answers: {status} {body:.500}"
            );
            before.push(Reading::of(status, &body));
        }
        let exact = before.iter().filter(|r| !r.involves).count();
        assert!(
            exact >= 10 && exact < before.len(),
            "questions both about and away from {REINDEXED}: {exact} of {} away",
            before.len()
        );
        let before = Arc::new(before);
        let generation = |c: reqwest::Client| super::served_generation(c, base.to_string());
        let first_generation = generation(client.clone()).await;
        let r = client
            .post(format!("{base}/api/v1/admin/index"))
            .body(serde_json::json!({ "product": REINDEXED }).to_string())
            .send()
            .await
            .expect("admin index");
        assert_eq!(r.status().as_u16(), 202, "{}", r.text().await.unwrap_or_default());

        // Clients asking the same questions all the time the job runs.
        let running = Arc::new(AtomicBool::new(true));
        let differences = Arc::new(Mutex::new(Vec::<String>::new()));
        let errors = Arc::new(Mutex::new(Vec::<String>::new()));
        let during = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut clients = Vec::new();
        for c in 0..6 {
            let (client, base, questions, before, running, differences, errors, during) = (
                client.clone(),
                base.clone(),
                questions.clone(),
                before.clone(),
                running.clone(),
                differences.clone(),
                errors.clone(),
                during.clone(),
            );
            clients.push(tokio::spawn(async move {
                let mut i = c * 11;
                while running.load(Ordering::SeqCst) {
                    let q = &questions[i % questions.len()];
                    let (status, body) = ask(&client, &base, q).await;
                    during.fetch_add(1, Ordering::SeqCst);
                    if status >= 500 {
                        errors.lock().push(format!("{q:?}: {status} {body:.300}"));
                    } else if let Some(d) = before[i % questions.len()].differs(status, &body) {
                        differences.lock().push(format!("{q:?} during the re-index: {d}"));
                    }
                    i += 1;
                }
            }));
        }
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let (state, v) = job_state(&client, &base).await;
            if state == "done" {
                break;
            }
            assert!(state == "running", "the index job ends well: {v}");
            assert!(Instant::now() < deadline, "the index job finishes");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        running.store(false, Ordering::SeqCst);
        for c in clients {
            c.await.expect("client task");
        }
        assert_ne!(
            first_generation,
            generation(client.clone()).await,
            "the job committed new generations"
        );
        // After the commit: every question once more, on the new generation (so none is
        // answered from a document cached before it).
        let mut rounds = 0;
        for (q, want) in questions.iter().zip(before.iter()) {
            let (status, body) = ask(&client, &base, q).await;
            rounds += 1;
            if status >= 500 {
                errors.lock().push(format!("{q:?}: {status} {body:.300}"));
            } else if let Some(d) = want.differs(status, &body) {
                differences.lock().push(format!("{q:?} after the re-index: {d}"));
            }
        }
        let differences = differences.lock().clone();
        let errors = errors.lock().clone();
        (differences, errors, during.load(Ordering::SeqCst), rounds)
    });
    let (_, stderr) = served.stop();
    assert!(errors.is_empty(), "no server error: {errors:#?}\n{stderr:.3000}");
    assert!(
        differences.is_empty(),
        "{} answers changed although no source did; the first: {}",
        differences.len(),
        differences.first().map(String::as_str).unwrap_or("")
    );
    assert!(during > 0, "answers were asked while the job ran");
    eprintln!(
        "re-index: {} questions, {during} answers while the job ran, {rounds} after, all the same",
        questions.len()
    );
}

#[test]
fn a_burst_of_twice_the_cores_in_recipes_is_computed_at_once_with_the_default_slots() {
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    // No queue: a recipe that finds no free slot is refused at once.
    let company = served::indexed_company("[server]\nrecipe_queue = 0\n");
    let store = semgraph_storage::Store::open_read_only(company.dir.path().join("store")).expect("store");
    let names = Names::read(&store.snapshot());
    drop(store);
    let served = served::Served::start(&company.config, &[("RUST_LOG", "warn")]);
    let base = served.base.clone();
    let burst = (2 * cores).max(4);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let statuses = rt.block_on(async {
        let client = reqwest::Client::new();
        // Connections opened first, so the burst arrives together.
        let warm: Vec<_> = (0..burst)
            .map(|_| {
                let (c, b) = (client.clone(), base.clone());
                tokio::spawn(async move { c.get(format!("{b}/healthz")).send().await.map(|r| r.status()) })
            })
            .collect();
        for w in warm {
            let _ = w.await;
        }
        let barrier = Arc::new(tokio::sync::Barrier::new(burst));
        let asks: Vec<_> = (0..burst)
            .map(|i| {
                let (client, base, barrier) = (client.clone(), base.clone(), barrier.clone());
                // Distinct questions, so none waits for another's computation, and the
                // heaviest recipes the fixture has, so they overlap.
                let q: Question = (
                    "/api/v1/recipes/impact".into(),
                    vec![
                        ("target".into(), names.pick("method", i * 13)),
                        ("depth".into(), "8".into()),
                    ],
                    i % 2 == 0,
                );
                tokio::spawn(async move {
                    barrier.wait().await;
                    ask(&client, &base, &q).await
                })
            })
            .collect();
        let mut statuses = Vec::new();
        for a in asks {
            statuses.push(a.await.expect("ask"));
        }
        statuses
    });
    drop(served);
    let refused: Vec<_> = statuses.iter().filter(|(s, _)| *s == 429).collect();
    assert!(
        refused.is_empty(),
        "{} of {burst} recipes refused for want of a slot: {:.600}",
        refused.len(),
        refused[0].1
    );
    assert!(
        statuses.iter().all(|(s, _)| *s == 200 || *s == 404),
        "every recipe answered: {:?}",
        statuses.iter().map(|(s, _)| s).collect::<Vec<_>>()
    );
}
