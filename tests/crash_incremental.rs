//! Crash safety of an incremental re-index: a real `semgraph index` process, re-indexing a
//! store that holds a previous run of every product (so it reuses the cached facts of the
//! unchanged files and parses only the changed ones), is SIGKILLed at points spread over
//! its whole run. After each kill the store must serve every product as exactly one
//! committed generation — the previous one or the new one, never a mix (fingerprints of
//! the fixture company's "before" and "after" versions) — and a re-index run to its end,
//! over a facts cache the killed runs wrote into, must serve exactly what a full index of
//! "after" into a fresh store serves.

#[path = "support/process.rs"]
mod process;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use process::{fingerprint, index, two_versions, whole_generations, Http, Served, BIN, PRODUCTS};

/// Kills during incremental runs.
const KILLS: u32 = 6;

/// `semgraph index --config CONFIG --store STORE` as a child, output discarded.
fn spawn_index(config: &std::path::Path, store: &std::path::Path, full: bool) -> std::process::Child {
    let mut cmd = Command::new(BIN);
    cmd.arg("index")
        .arg("--config")
        .arg(config)
        .arg("--store")
        .arg(store);
    if full {
        cmd.arg("--full");
    }
    cmd.env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn semgraph index")
}

#[test]
fn sigkill_during_an_incremental_index_leaves_the_previous_generation_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, after) = two_versions(dir.path());
    let http = Http::new();
    let log = dir.path().join("serve.log");

    // The two generations every product may serve, each from a full index of a fresh store.
    let fingerprint_of = |config: &std::path::Path, name: &str| {
        let store = dir.path().join(name);
        index(config, &store);
        let served = Served::start(&store, None, &log);
        let f = fingerprint(&http, &served.base);
        served.kill();
        f
    };
    let before_print = fingerprint_of(&before, "before-store");
    let after_print = fingerprint_of(&after, "after-store");
    assert_ne!(before_print, after_print, "the two versions must differ");

    // How long one incremental run of "after" over a store of "before" takes.
    let timing_store = dir.path().join("timing-store");
    index(&before, &timing_store);
    let started = Instant::now();
    let mut child = spawn_index(&after, &timing_store, false);
    let mut summary = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().expect("stdout"), &mut summary).expect("summary");
    assert!(
        child.wait().expect("wait").success(),
        "an incremental run succeeds"
    );
    let run = started.elapsed();
    assert!(
        summary.contains("unchanged (their facts reused"),
        "the run says what it reused: {summary}"
    );
    assert!(
        PRODUCTS
            .iter()
            .any(|p| summary.contains(&format!("{p}: 0 code files parsed"))),
        "an unchanged product parses nothing: {summary}"
    );

    let store = dir.path().join("store");
    index(&before, &store);
    let mut saw_before = false;
    for k in 0..KILLS {
        // Spread over the whole run: from process start to past its last commit.
        let delay = run.mul_f64(0.1 + f64::from(k) * 0.9 / f64::from(KILLS - 1));
        let mut child = spawn_index(&after, &store, false);
        std::thread::sleep(delay);
        let _ = child.kill();
        child.wait().expect("reap");
        let served = Served::start(&store, None, &log);
        let print = fingerprint(&http, &served.base);
        served.kill();
        let states = whole_generations(
            &print,
            &before_print,
            &after_print,
            &format!("kill {k} at {delay:?}"),
        );
        saw_before |= states.contains(&"before");
    }
    assert!(
        saw_before,
        "at least one kill landed before a changed product's commit"
    );

    // The run done to its end, reusing whatever the killed runs cached, is "after" exactly.
    let mut child = spawn_index(&after, &store, false);
    let deadline = Instant::now() + Duration::from_secs(600);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "the re-index hangs");
        std::thread::sleep(Duration::from_millis(50));
    }
    let served = Served::start(&store, None, &log);
    let print = fingerprint(&http, &served.base);
    served.kill();
    assert_eq!(
        print, after_print,
        "a completed incremental run serves the new version whole"
    );
}
