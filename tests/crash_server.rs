//! Crash safety of the real binary over a store on disk.
//!
//! `storage/tests/crash.rs` kills a process that writes through the storage API; these
//! tests kill `semgraph serve` itself — while its admin index jobs run (at seeded random
//! points spread over the whole job, commits included) and while it answers concurrent
//! queries — and make index runs meet a full disk and a directory they may not write.
//! After each fault the store must open, serve every product as exactly one committed
//! generation (compared with fingerprints of the "before" and "after" versions of the
//! fixture company, never a mix), and index again.

#[path = "support/process.rs"]
mod process;

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use process::{fingerprint, index, two_versions, whole_generations, Http, Served, BIN, HANG};
use serde_json::Value;

/// Kills of a server during index jobs.
const JOB_KILLS: u64 = 20;
/// Kills of a server under concurrent queries.
const QUERY_KILLS: u64 = 5;

/// A small deterministic generator (xorshift), so a failing run can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

/// An answer's structured result without its timings (recipes say how long each step
/// took, in the markdown and in the trace).
fn comparable(body: &str) -> String {
    let v: Value = serde_json::from_str(body).expect("JSON answer");
    process::stable(&v["result"]).to_string()
}

/// The products the index-job test indexes: the two the versions change and one they
/// do not (three, not four, to keep each job short).
const JOB_PRODUCTS: [&str; 3] = ["orders", "payments", "notifications"];

/// A config beside `config` naming only [`JOB_PRODUCTS`], as the fixture's config does.
fn fewer_products(config: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(config).expect("read config");
    let kept: Vec<&str> = text
        .split("[[product]]")
        .enumerate()
        .filter(|(i, block)| {
            *i == 0
                || JOB_PRODUCTS
                    .iter()
                    .any(|p| block.contains(&format!("name = \"{p}\"")))
        })
        .map(|(_, block)| block)
        .collect();
    let path = config.with_file_name("three-products.toml");
    std::fs::write(&path, kept.join("[[product]]")).expect("write config");
    path
}

/// The state of the newest index job: "running", "done" or "failed".
fn job_state(http: &Http, base: &str) -> String {
    let (status, body) = http.get(&format!("{base}/api/v1/admin/jobs"), &[]);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    v["result"]["jobs"][0]["state"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

/// Starts an index job of every product and returns when the server has accepted it.
fn start_job(http: &Http, base: &str) {
    let (status, body) = http.post(&format!("{base}/api/v1/admin/index"), "");
    assert_eq!(status, 202, "{body}");
}

/// Waits for the newest job to finish and returns its state.
fn finish_job(http: &Http, base: &str) -> String {
    let started = Instant::now();
    loop {
        let state = job_state(http, base);
        if state != "running" {
            return state;
        }
        assert!(started.elapsed() < HANG, "the index job never finished");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn log_of(served: &Served) -> String {
    std::fs::read_to_string(&served.log).unwrap_or_default()
}

/// The newest job's per-product results: when (ms after the job started) each product's
/// commit ended, from the seconds each product took.
fn commit_ends(http: &Http, base: &str) -> Vec<u64> {
    let (status, body) = http.get(&format!("{base}/api/v1/admin/jobs"), &[]);
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    let mut at = 0.0;
    v["result"]["jobs"][0]["results"]
        .as_array()
        .map(|results| {
            results
                .iter()
                .map(|r| {
                    at += r["seconds"].as_f64().unwrap_or(0.0) * 1e3;
                    at as u64
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn sigkill_during_index_jobs_leaves_every_product_one_whole_generation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, after) = two_versions(dir.path());
    let (before, after) = (fewer_products(&before), fewer_products(&after));
    let http = Http::new();
    let store = dir.path().join("store");
    index(&before, &store);
    let fingerprint = |http: &Http, base: &str| process::fingerprint_of(http, base, &JOB_PRODUCTS);

    // The two generations every product must be one of: "before" as first indexed, and
    // "after" once one job has read the changed sources whole. That job is timed: the
    // kills are spread over its duration, and half of them aimed at its commits.
    let served = Served::start(&store, Some(&after), &dir.path().join("measure.log"));
    let fp_before = fingerprint(&http, &served.base);
    let started = Instant::now();
    start_job(&http, &served.base);
    assert_eq!(finish_job(&http, &served.base), "done");
    let job_ms = started.elapsed().as_millis() as u64;
    let commits = commit_ends(&http, &served.base);
    assert_eq!(commits.len(), JOB_PRODUCTS.len(), "one commit per product");
    let fp_after = fingerprint(&http, &served.base);
    served.kill();
    for p in ["orders", "notifications"] {
        assert_ne!(
            fp_before[p], fp_after[p],
            "the two versions of {p} answer differently"
        );
    }

    let mut rng = Rng(0x5eed_c0ff_ee15_dead);
    let mut survived = 0;
    let mut interrupted = 0;
    let mut finished_before_kill = 0;
    let mut seen = std::collections::BTreeMap::<String, u64>::new();
    for kill in 0..JOB_KILLS {
        // Alternate the sources the server indexes, so every job changes what is served.
        let (config, version) = if (kill / 2) % 2 == 0 {
            (&before, &fp_before)
        } else {
            (&after, &fp_after)
        };
        let log = dir.path().join(format!("serve-{kill}.log"));
        let served = Served::start(&store, Some(config), &log);
        if log_of(&served).contains("died before its commit") {
            interrupted += 1;
        }
        let states = whole_generations(
            &fingerprint(&http, &served.base),
            &fp_before,
            &fp_after,
            &format!("restart after kill {kill}"),
        );
        *seen.entry(states.join(",")).or_default() += 1;
        start_job(&http, &served.base);
        if kill % 10 == 9 {
            // Now and then the job runs to its end: a re-index after crashes succeeds, and
            // then serves exactly the sources it read.
            assert_eq!(finish_job(&http, &served.base), "done", "{}", log_of(&served));
            assert_eq!(
                &fingerprint(&http, &served.base),
                version,
                "kill {kill}: the re-index is served whole"
            );
        }
        // Even kills anywhere in the job (and a little after it), odd ones in the last
        // 250 ms before a product's commit ended in the timed job.
        let delay = if kill % 2 == 0 {
            rng.below(job_ms * 5 / 4)
        } else {
            let end = commits[rng.below(commits.len() as u64) as usize];
            end.saturating_sub(rng.below(250))
        };
        std::thread::sleep(Duration::from_millis(delay));
        if job_state(&http, &served.base) == "done" {
            finished_before_kill += 1;
        }
        served.kill();
        survived += 1;
    }

    // The last crash is survived too, and a full re-index succeeds.
    let served = Served::start(&store, Some(&after), &dir.path().join("final.log"));
    whole_generations(
        &fingerprint(&http, &served.base),
        &fp_before,
        &fp_after,
        "final restart",
    );
    start_job(&http, &served.base);
    assert_eq!(finish_job(&http, &served.base), "done", "{}", log_of(&served));
    assert_eq!(fingerprint(&http, &served.base), fp_after);
    eprintln!(
        "crashes survived: {survived} (index jobs of ~{job_ms} ms, commits ending at {commits:?} ms; \
         {interrupted} restarts purged an interrupted run, {finished_before_kill} jobs had finished \
         before their kill); served (notifications,orders,payments) after a kill: {seen:?}"
    );
}

#[test]
fn sigkill_under_concurrent_queries_then_restart_serves_the_same_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, _) = two_versions(dir.path());
    let store = dir.path().join("store");
    index(&before, &store);
    let http = Http::new();
    let questions: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "/api/v1/code/callers",
            vec![
                ("fqn", "com.acme.orders.service.OrderService.placeOrder"),
                ("depth", "3"),
            ],
        ),
        ("/api/v1/code/endpoints", vec![("limit", "500")]),
        ("/api/v1/code/search", vec![("q", "Order")]),
        ("/api/v1/db/table", vec![("name", "orders")]),
        (
            "/api/v1/recipes/impact",
            vec![("target", "com.acme.payments.service.PaymentService.charge")],
        ),
        ("/api/v1/recipes/service-map", vec![]),
        ("/api/v1/products", vec![]),
    ];
    let ask_all = |base: &str| -> Vec<String> {
        questions
            .iter()
            .map(|(path, query)| {
                let (status, body) = http.get(&format!("{base}{path}"), query);
                assert_eq!(status, 200, "{path}: {body}");
                comparable(&body)
            })
            .collect()
    };
    let served = Served::start(&store, None, &dir.path().join("first.log"));
    let reference = ask_all(&served.base);
    served.kill();

    let mut rng = Rng(0xfeed_f00d_1234_5678);
    let mut survived = 0;
    let answered = Arc::new(AtomicU64::new(0));
    for kill in 0..QUERY_KILLS {
        let served = Served::start(&store, None, &dir.path().join(format!("serve-{kill}.log")));
        assert_eq!(
            ask_all(&served.base),
            reference,
            "restart {kill} answers as before"
        );
        // Eight clients ask every question in turn until the server dies under them.
        let dead = Arc::new(AtomicBool::new(false));
        let clients: Vec<_> = (0..8)
            .map(|c| {
                let client = http.client();
                let base = served.base.clone();
                let questions: Vec<(String, Vec<(String, String)>)> = questions
                    .iter()
                    .map(|(p, q)| {
                        (
                            p.to_string(),
                            q.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
                        )
                    })
                    .collect();
                let reference = reference.clone();
                let dead = dead.clone();
                let answered = answered.clone();
                http.runtime().spawn(async move {
                    let mut i = c;
                    while !dead.load(Ordering::SeqCst) {
                        let (path, query) = &questions[i % questions.len()];
                        let request = client
                            .get(format!("{base}{path}"))
                            .query(query)
                            .header("accept", "application/json");
                        let (status, body) = process::send(request).await;
                        if status == 0 {
                            // The server is gone: only after the kill.
                            assert!(
                                dead.load(Ordering::SeqCst),
                                "{path} failed before the kill: {body}"
                            );
                            break;
                        }
                        assert_eq!(status, 200, "{path}: {body}");
                        assert_eq!(
                            comparable(&body),
                            reference[i % questions.len()],
                            "{path} answered differently"
                        );
                        answered.fetch_add(1, Ordering::Relaxed);
                        i += 1;
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_millis(200 + rng.below(800)));
        dead.store(true, Ordering::SeqCst);
        served.kill();
        for client in clients {
            http.runtime().block_on(client).expect("client task");
        }
        survived += 1;
    }
    let served = Served::start(&store, None, &dir.path().join("last.log"));
    assert_eq!(
        ask_all(&served.base),
        reference,
        "the last restart answers as before"
    );
    eprintln!(
        "crashes survived: {survived} (under 8 concurrent clients; {} answers checked before the kills)",
        answered.load(Ordering::Relaxed)
    );
}

/// The uid this test runs as (root ignores directory permissions unless told not to).
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|e| e == "0"))
        })
        .unwrap_or(false)
}

/// `semgraph ARGS…` run so that directory permissions apply: as root, without the
/// capabilities that override them (util-linux `setpriv`); otherwise as is.
fn unprivileged(args: &[&std::ffi::OsStr]) -> std::process::Output {
    let mut cmd = if is_root() {
        let mut c = Command::new("setpriv");
        c.args(["--bounding-set=-dac_override,-dac_read_search,-fowner", "--"])
            .arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    cmd.args(args)
        .env("RUST_LOG", "warn")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run semgraph")
}

#[test]
fn a_full_disk_fails_the_index_run_clearly_and_the_last_generation_stays_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, after) = two_versions(dir.path());
    // A class with 600 KB of comments that do not compress: the run's table files will be
    // far larger than the limit below.
    let bulk = dir
        .path()
        .join("after/orders/orders-service/src/main/java/com/acme/orders/bulk");
    std::fs::create_dir_all(&bulk).expect("mkdir");
    let mut rng = Rng(0x0ddb_a115_5eed);
    let mut java = String::from("package com.acme.orders.bulk;\n\npublic class Bulk {\n");
    for i in 0..300 {
        java.push_str("    // ");
        for _ in 0..128 {
            java.push_str(&format!("{:016x}", rng.next()));
        }
        java.push_str(&format!("\n    public int m{i}(int x) {{ return x + {i}; }}\n"));
    }
    java.push_str("}\n");
    std::fs::write(bulk.join("Bulk.java"), java).expect("write");
    let store = dir.path().join("store");
    index(&before, &store);
    let http = Http::new();
    let fp_before = {
        let served = Served::start(&store, None, &dir.path().join("before.log"));
        fingerprint(&http, &served.base)
    };

    // No file of the index process may grow past 256 KiB (RLIMIT_FSIZE, with SIGXFSZ
    // ignored so a write fails with EFBIG as on a full disk). The store's own files (the
    // 66 KB options file, the manifest) fit; the run's table files do not.
    let out = Command::new("sh")
        .args([
            "-c",
            r#"trap '' XFSZ; exec prlimit --fsize=262144 -- "$@""#,
            "sh",
            BIN,
            "index",
            "--config",
        ])
        .arg(&after)
        .arg("--store")
        .arg(&store)
        .env("RUST_LOG", "error")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run semgraph index under a file-size limit");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the run cannot succeed: {stderr}");
    assert!(
        stderr.contains("the store cannot grow: the disk is full or a file-size limit was reached"),
        "a clear message: {stderr}"
    );
    assert!(
        stderr.contains(&store.display().to_string()),
        "it names the store's file: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    // The previous generation is served whole; with space, the re-index succeeds.
    let served = Served::start(&store, None, &dir.path().join("after-full.log"));
    assert_eq!(
        fingerprint(&http, &served.base),
        fp_before,
        "the last committed generation, whole"
    );
    served.kill();
    index(&after, &store);
    let bulk = Command::new(BIN)
        .args(["query", "code/type", "fqn=com.acme.orders.bulk.Bulk", "--store"])
        .arg(&store)
        .output()
        .expect("query");
    assert!(
        bulk.status.success(),
        "the re-index with space holds the bulk class: {}",
        String::from_utf8_lossy(&bulk.stdout)
    );
    eprintln!(
        "disk full: the index process exited with {:?}; first line: {}",
        out.status.code(),
        stderr.lines().find(|l| l.contains("Error")).unwrap_or("")
    );
}

#[test]
fn a_store_that_cannot_be_written_is_a_clear_error_naming_it_and_stays_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, after) = two_versions(dir.path());
    let store = dir.path().join("store");
    index(&before, &store);
    let http = Http::new();
    let fp_before = {
        let served = Served::start(&store, None, &dir.path().join("before.log"));
        fingerprint(&http, &served.base)
    };
    let path = store.display().to_string();
    let os = |s: &str| std::ffi::OsString::from(s);

    // A read-only directory: neither `serve` nor `index` may open it for writing.
    set_mode(&store, 0o555);
    let serve = unprivileged(&[
        &os("serve"),
        &os("--store"),
        store.as_os_str(),
        &os("--bind"),
        &os("127.0.0.1:0"),
    ]);
    let indexed = unprivileged(&[
        &os("index"),
        &os("--config"),
        after.as_os_str(),
        &os("--store"),
        store.as_os_str(),
    ]);
    set_mode(&store, 0o755);
    for (what, out) in [("serve", &serve), ("index", &indexed)] {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{what} on a read-only store fails: {stderr}"
        );
        assert!(
            stderr.contains(&format!("cannot write the store at {path}"))
                && stderr.contains("Permission denied"),
            "{what}: a clear error naming the store: {stderr}"
        );
        assert!(
            !stderr.contains("held by another process"),
            "{what}: not a lock: {stderr}"
        );
    }

    // A store path through a regular file.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").expect("write");
    let through = file.join("store");
    let out = Command::new(BIN)
        .arg("index")
        .arg("--config")
        .arg(&after)
        .arg("--store")
        .arg(&through)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("cannot write the store at {}", through.display())),
        "a clear error naming the path: {stderr}"
    );

    // A store another process holds without saying where it listens (a server hands
    // index runs beside it to itself: `tests/handoff.rs`; here its record is gone): the
    // index names the store and the holder.
    let served = Served::start(&store, None, &dir.path().join("holder.log"));
    std::fs::remove_file(store.join(semgraph::handoff::SERVER_FILE)).expect("the server's record");
    let out = Command::new(BIN)
        .arg("index")
        .arg("--config")
        .arg(&after)
        .arg("--store")
        .arg(&store)
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!("the store at {path} is held by another process")),
        "{stderr}"
    );
    // Nothing of that was corruption: the store serves what it served.
    assert_eq!(fingerprint(&http, &served.base), fp_before);
    served.kill();
    let served = Served::start(&store, None, &dir.path().join("after.log"));
    assert_eq!(fingerprint(&http, &served.base), fp_before);
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}
