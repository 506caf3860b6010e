//! A bounded soak: the real `semgraph serve` over the indexed fixture company, many
//! concurrent clients on loopback mixing primitives, recipes, markdown and JSON, page
//! fetches (`page=K`) and MCP tool calls, with an admin index job of every product started
//! half-way. Bounded by request count, not time.
//!
//! It asserts what must hold under load: no answer is a server error, the index job
//! commits while answering goes on, an answer read before the job reads the same after it
//! (nothing lost), and the server's peak resident set (`VmHWM`) stays under a generous
//! bound. It prints what it measured: requests served, p50/p99 latency, peak RSS.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::areas::Names;
use crate::support::{served, without_times};
use parking_lot::Mutex;
use serde_json::{json, Value};

/// Concurrent clients.
const CLIENTS: usize = 24;
/// Requests in all (an MCP tool call or a page fetch counts as one).
const REQUESTS: usize = 5_000;
/// The peak resident set the server must stay under. Generous: the point is a bound, not
/// a figure (measured ~0.12 GB; see the printed figure).
const MAX_RSS: u64 = 1 << 30;

const RESERVE: &str = "com.acme.inventory.service.ReservationService.reserve";

/// One request of the mix.
enum Ask {
    Get(String, Vec<(String, String)>, bool),
    Post(String, Value, bool),
    Paged(String, Vec<(String, String)>),
    Mcp(&'static str, Value),
}

fn ask(i: usize, names: &Names) -> Ask {
    let q = |k: &str, v: String| (k.to_string(), v);
    let words = ["order", "payment", "stock", "refund", "email", "retry"];
    let json = i.is_multiple_of(3);
    match i % 20 {
        0 => Ask::Get(
            "/api/v1/code/search".into(),
            vec![q("q", words[i % 6].into())],
            json,
        ),
        1 => Ask::Get(
            "/api/v1/code/callers".into(),
            vec![
                q("fqn", names.pick("method", i)),
                q("depth", (1 + i % 3).to_string()),
            ],
            json,
        ),
        2 => Ask::Get(
            "/api/v1/code/method".into(),
            vec![q("fqn", names.pick("method", i))],
            json,
        ),
        3 => Ask::Get(
            "/api/v1/code/source".into(),
            vec![q("fqn", names.pick("method", i))],
            json,
        ),
        4 => Ask::Get(
            "/api/v1/db/table".into(),
            vec![q("name", names.pick("table", i))],
            json,
        ),
        5 => Ask::Get(
            "/api/v1/config/keys".into(),
            vec![q("q", words[i % 6].into())],
            json,
        ),
        6 => Ask::Get(
            "/api/v1/wiki/search".into(),
            vec![q("q", words[i % 6].into())],
            json,
        ),
        7 => Ask::Get(
            "/api/v1/jira/search".into(),
            vec![q("q", words[i % 6].into())],
            json,
        ),
        8 | 9 => Ask::Post(
            "/api/v1/recipes/impact".into(),
            json!({"target": names.pick(if i.is_multiple_of(2) { "method" } else { "type" }, i / 20),
                   "depth": 1 + (i / 20) % 5}),
            json,
        ),
        10 => Ask::Post(
            "/api/v1/recipes/table-analysis".into(),
            json!({"table": names.pick("table", i / 20)}),
            json,
        ),
        11 => Ask::Post("/api/v1/recipes/status-snapshot".into(), json!({}), json),
        12 => Ask::Post("/api/v1/recipes/service-map".into(), json!({}), json),
        13 => Ask::Post(
            "/api/v1/recipes/endpoint-trace".into(),
            json!({"endpoint": names.pick("endpoint", i / 20)}),
            json,
        ),
        14 => Ask::Post(
            "/api/v1/recipes/jira-history".into(),
            json!({"service": names.pick("product", i / 20)}),
            json,
        ),
        15 | 16 => Ask::Paged(
            "/api/v1/code/search".into(),
            vec![
                q("q", "com.acme".into()),
                q("limit", "500".into()),
                q("page_size", "1000".into()),
            ],
        ),
        17 => Ask::Mcp(
            "code",
            json!({"endpoint": "callers", "params": {"fqn": names.pick("method", i)}}),
        ),
        18 => Ask::Mcp(
            "execute",
            json!({"endpoint": "impact", "params": {"target": names.pick("method", i / 20), "depth": 2}}),
        ),
        _ => Ask::Get(
            if i.is_multiple_of(2) {
                "/api/v1/discover".into()
            } else {
                "/healthz".into()
            },
            Vec::new(),
            false,
        ),
    }
}

#[derive(Default)]
struct Tally {
    latencies: Vec<Duration>,
    /// When each answer was in, for the answers given while the index job ran.
    done_at: Vec<Instant>,
    statuses: std::collections::BTreeMap<u16, usize>,
    server_errors: Vec<String>,
}

impl Tally {
    fn record(&mut self, what: &str, status: u16, took: Duration, body: &str) {
        self.latencies.push(took);
        self.done_at.push(Instant::now());
        *self.statuses.entry(status).or_default() += 1;
        if status >= 500 && self.server_errors.len() < 5 {
            self.server_errors.push(format!("{what}: {status} {body:.300}"));
        }
    }
}

async fn get(
    client: &reqwest::Client,
    url: &str,
    params: &[(String, String)],
    json: bool,
) -> (u16, String, usize) {
    let mut r = client.get(url).query(params);
    if json {
        r = r.header("accept", "application/json");
    }
    match r.send().await {
        Ok(resp) => {
            let status = resp.status().as_u16();
            let pages = resp
                .headers()
                .get("x-semgraph-pages")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse().ok())
                .unwrap_or(1);
            (status, resp.text().await.unwrap_or_default(), pages)
        }
        Err(e) => (599, e.to_string(), 0),
    }
}

#[test]
fn a_bounded_soak_serves_every_request_without_a_server_error() {
    let company = served::indexed_company("");
    let store = semgraph_storage::Store::open_read_only(company.dir.path().join("store")).expect("store");
    let names = Names::read(&store.snapshot());
    drop(store);
    let served = served::Served::start(&company.config, &[("RUST_LOG", "warn")]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let base = served.base.clone();
    let names = Arc::new(names);
    let tally = Arc::new(Mutex::new(Tally::default()));
    let next = Arc::new(AtomicUsize::new(0));
    let job = Arc::new(Mutex::new(None::<(u16, String, Instant)>));
    let started = Instant::now();
    let (before, after, job_seconds) = rt.block_on(async {
        let client = reqwest::Client::new();
        let watched = |c: &reqwest::Client| {
            c.get(format!("{base}/api/v1/code/callers"))
                .query(&[("fqn", RESERVE), ("depth", "3")])
        };
        let before = watched(&client)
            .send()
            .await
            .expect("before")
            .text()
            .await
            .expect("body");
        let generation = |c: reqwest::Client| super::served_generation(c, base.to_string());
        let first_generation = generation(client.clone()).await;
        let mut workers = Vec::new();
        for _ in 0..CLIENTS {
            let (client, base, names, tally, next, job) = (
                client.clone(),
                base.clone(),
                names.clone(),
                tally.clone(),
                next.clone(),
                job.clone(),
            );
            workers.push(tokio::spawn(async move {
                let mcp = crate::mcp::connect_http(
                    &format!("{base}/mcp"),
                    None,
                    &[],
                    crate::mcp::Lifecycle::Session,
                )
                .await
                .expect("mcp session");
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= REQUESTS {
                        break;
                    }
                    if i == REQUESTS / 2 {
                        let t = Instant::now();
                        let r = client
                            .post(format!("{base}/api/v1/admin/index"))
                            .send()
                            .await
                            .expect("admin index");
                        let status = r.status().as_u16();
                        let body = r.text().await.unwrap_or_default();
                        tally.lock().record("admin/index", status, t.elapsed(), &body);
                        *job.lock() = Some((status, body, t));
                        continue;
                    }
                    let t = Instant::now();
                    match ask(i, &names) {
                        Ask::Get(path, params, json) => {
                            let (status, body, _) =
                                get(&client, &format!("{base}{path}"), &params, json).await;
                            tally.lock().record(&path, status, t.elapsed(), &body);
                        }
                        Ask::Post(path, body, json) => {
                            let mut r = client.post(format!("{base}{path}")).body(body.to_string());
                            if json {
                                r = r.header("accept", "application/json");
                            }
                            let (status, text) = match r.send().await {
                                Ok(resp) => (resp.status().as_u16(), resp.text().await.unwrap_or_default()),
                                Err(e) => (599, e.to_string()),
                            };
                            tally.lock().record(&path, status, t.elapsed(), &text);
                        }
                        Ask::Paged(path, params) => {
                            let url = format!("{base}{path}");
                            let (status, body, pages) = get(&client, &url, &params, false).await;
                            tally.lock().record(&path, status, t.elapsed(), &body);
                            // Fetch every page, as the footer says to.
                            for k in 2..=pages.min(6) {
                                let mut p = params.clone();
                                p.push(("page".into(), k.to_string()));
                                let t = Instant::now();
                                let (status, body, _) = get(&client, &url, &p, i.is_multiple_of(2)).await;
                                tally
                                    .lock()
                                    .record(&format!("{path} page {k}"), status, t.elapsed(), &body);
                            }
                        }
                        Ask::Mcp(tool, args) => {
                            let request = rmcp::model::CallToolRequestParams::new(tool.to_string())
                                .with_arguments(crate::mcp::args(args));
                            let answer = mcp.call_tool(request).await;
                            let (status, text) = match answer {
                                Ok(r) => {
                                    let text = r
                                        .content
                                        .first()
                                        .and_then(|c| c.as_text())
                                        .map(|t| t.text.clone())
                                        .unwrap_or_default();
                                    let status = if text.starts_with("# 5") { 500 } else { 200 };
                                    (status, text)
                                }
                                Err(e) => (599, e.to_string()),
                            };
                            tally
                                .lock()
                                .record(&format!("mcp {tool}"), status, t.elapsed(), &text);
                        }
                    }
                }
                let _ = mcp.cancel().await;
            }));
        }
        for w in workers {
            w.await.expect("client task");
        }
        // The index job commits while answers go on; wait for it (a hang guard, not a
        // timing assertion).
        let deadline = Instant::now() + Duration::from_secs(600);
        let jobs_url = format!("{base}/api/v1/admin/jobs");
        let job_seconds = loop {
            let v: Value = client
                .get(&jobs_url)
                .header("accept", "application/json")
                .send()
                .await
                .expect("jobs")
                .json()
                .await
                .expect("jobs json");
            let state = v["result"]["jobs"][0]["state"].as_str().unwrap_or("").to_string();
            if state == "done" {
                break v["result"]["jobs"][0]["seconds"].as_f64().unwrap_or(0.0);
            }
            assert!(state == "running", "the index job ends well: {v}");
            assert!(Instant::now() < deadline, "the index job finishes");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        let last_generation = generation(client.clone()).await;
        assert_ne!(
            first_generation, last_generation,
            "the job committed new generations"
        );
        let after = watched(&client)
            .send()
            .await
            .expect("after")
            .text()
            .await
            .expect("body");
        (before, after, job_seconds)
    });
    let elapsed = started.elapsed();
    let peak = served.peak_rss();
    let (_, stderr) = served.stop();
    let tally = tally.lock();
    let job = job.lock().clone();
    let (job_status, job_body, job_started) = job.expect("the index job was started");
    let job_ended = job_started + Duration::from_secs_f64(job_seconds);
    let during_job = tally
        .done_at
        .iter()
        .filter(|t| **t > job_started && **t < job_ended)
        .count();
    assert_eq!(job_status, 202, "{job_body}");
    assert!(
        tally.server_errors.is_empty(),
        "no server errors under load: {:?}\n{stderr:.3000}",
        tally.server_errors
    );
    assert_eq!(
        without_times(&before),
        without_times(&after),
        "an answer reads the same after the re-index: nothing lost"
    );
    let served_count = tally.latencies.len();
    let ok = tally.statuses.get(&200).copied().unwrap_or(0);
    assert!(served_count >= REQUESTS, "every request was made: {served_count}");
    assert!(
        ok * 10 >= served_count * 9,
        "nearly all answer 200: {:?}",
        tally.statuses
    );
    let mut sorted = tally.latencies.clone();
    sorted.sort();
    let at = |q: f64| sorted[((sorted.len() as f64 - 1.0) * q).round() as usize];
    eprintln!(
        "soak: {served_count} requests by {CLIENTS} clients in {:.1}s ({:.0}/s), statuses {:?}, \
         p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms, server peak RSS {:.0} MB; the index job took \
         {job_seconds:.1}s and {during_job} answers were given meanwhile",
        elapsed.as_secs_f64(),
        served_count as f64 / elapsed.as_secs_f64(),
        tally.statuses,
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        sorted.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        peak as f64 / 1e6
    );
    assert!(peak > 0, "VmHWM was read");
    assert!(peak < MAX_RSS, "peak RSS {peak} stays under {MAX_RSS}");
}
