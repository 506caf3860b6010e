//! Fresh answers beside a running server, over real processes: `semgraph index` and
//! `semgraph watch` on a store that `semgraph serve` holds hand their runs to the server
//! (which records where it listens in the store, and removes the record when it stops),
//! and answers say which commit they describe and how far the repository has moved on.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use process::{Http, Served, BIN, HANG};
use serde_json::Value;

const SERVER_FILE: &str = "semgraph-server.json";

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.email=t@example.com",
            "-c",
            "user.name=t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("git");
    assert!(ok.success(), "git {args:?}");
}

/// The fixture's notifications product copied into a git repository under `root`.
fn repository(root: &Path) -> PathBuf {
    let repo = root.join("notifications");
    copy_tree(&process::acme().join("notifications"), &repo);
    git(&repo, &["init", "-q"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "-q", "-m", "first"]);
    repo
}

fn index(store: &Path, repo: &Path) -> std::process::Output {
    Command::new(BIN)
        .arg("index")
        .arg("--store")
        .arg(store)
        .arg(repo)
        .env("RUST_LOG", "warn")
        .output()
        .expect("semgraph index")
}

const PROBE: &str = "src/main/java/com/acme/notifications/web/SubscriptionRequest.java";

/// Appends a class with method `name` to a source of the repository.
fn add_method(repo: &Path, name: &str) {
    let file = repo.join(PROBE);
    let mut text = std::fs::read_to_string(&file).expect("read");
    text.push_str(&format!("\nclass Probe_{name} {{\n    void {name}() {{}}\n}}\n"));
    std::fs::write(&file, text).expect("write");
}

/// True when the server finds a method named `name`.
fn served(http: &Http, base: &str, name: &str) -> bool {
    let (status, body) = http.get(
        &format!("{base}/api/v1/code/search"),
        &[("q", name), ("kind", "method")],
    );
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    v["result"]["hits"].as_array().is_some_and(|h| !h.is_empty())
}

fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < HANG, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn index_beside_a_running_server_is_its_job_and_the_record_goes_with_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = repository(dir.path());
    let store = dir.path().join("store");
    let local = index(&store, &repo);
    assert!(
        local.status.success(),
        "{}",
        String::from_utf8_lossy(&local.stderr)
    );
    let local_summary = String::from_utf8_lossy(&local.stdout).to_string();

    let served_log = dir.path().join("serve.log");
    let server = Served::start(&store, None, &served_log);
    let http = Http::new();
    let record: Value =
        serde_json::from_str(&std::fs::read_to_string(store.join(SERVER_FILE)).expect("the server's record"))
            .expect("JSON");
    assert_eq!(record["pid"].as_u64(), Some(u64::from(server.pid())));
    assert_eq!(record["url"].as_str(), Some(server.base.as_str()));

    // The repository moves on: answers say so, from the commit the index recorded.
    add_method(&repo, "handedOverProbe");
    git(&repo, &["commit", "-q", "-am", "second"]);
    let (status, body) = http.post(&format!("{}/api/v1/recipes/status-snapshot", server.base), "{}");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("1 commit behind HEAD"), "{body}");
    assert!(!served(&http, &server.base, "handedOverProbe"));

    // `semgraph index` on the held store: the server runs it, the CLI prints the summary.
    let handed = index(&store, &repo);
    assert!(
        handed.status.success(),
        "{}",
        String::from_utf8_lossy(&handed.stderr)
    );
    let summary = String::from_utf8_lossy(&handed.stdout);
    let header = |s: &str| s.lines().next().unwrap_or("").to_string();
    assert_eq!(header(&summary), header(&local_summary), "the same summary");
    assert!(summary.contains("| notifications |"), "{summary}");
    assert!(
        served(&http, &server.base, "handedOverProbe"),
        "the new generation is served"
    );
    let (_, jobs) = http.get(&format!("{}/api/v1/admin/jobs", server.base), &[]);
    assert!(jobs.contains("\"done\""), "{jobs}");

    // Without a config the server cannot index by itself, and says what does.
    let (status, body) = http.post(&format!("{}/api/v1/admin/index", server.base), "{}");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("semgraph index"), "{body}");
    // Relative paths mean nothing to the server.
    let (status, body) = http.post(
        &format!("{}/api/v1/admin/index", server.base),
        r#"{"products": [{"name": "x", "repos": ["relative/path"]}]}"#,
    );
    assert_eq!(status, 422, "{body}");

    // A killed server leaves its record behind; the next run sees it is dead and indexes
    // locally.
    server.kill();
    assert!(store.join(SERVER_FILE).exists());
    add_method(&repo, "afterTheServer");
    let alone = index(&store, &repo);
    assert!(
        alone.status.success(),
        "{}",
        String::from_utf8_lossy(&alone.stderr)
    );

    // A server that stops normally removes its record.
    let server = Served::start(&store, None, &served_log);
    assert!(served(&http, &server.base, "afterTheServer"));
    let term = Command::new("kill")
        .arg("-TERM")
        .arg(server.pid().to_string())
        .status()
        .expect("kill -TERM");
    assert!(term.success());
    wait_for("the record to go", || !store.join(SERVER_FILE).exists());
    drop(server);
}

#[test]
fn watch_reindexes_the_edited_product_while_the_server_answers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = repository(dir.path());
    let store = dir.path().join("store");
    let first = index(&store, &repo);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let server = Served::start(&store, None, &dir.path().join("serve.log"));
    let http = Http::new();

    let mut watch = Command::new(BIN)
        .arg("watch")
        .arg("--store")
        .arg(&store)
        .args(["--debounce-ms", "200"])
        .arg(&repo)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("semgraph watch");
    let stdout = watch.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines: Vec<String> = Vec::new();
    let read = |lines: &mut Vec<String>| {
        while let Ok(l) = rx.try_recv() {
            lines.push(l);
        }
    };
    // The index matches the repository (a clean commit): nothing to do at the start.
    wait_for("the watch to start", || {
        read(&mut lines);
        lines
            .iter()
            .any(|l| l.contains("matches its repositories") || l.contains("indexed"))
    });
    let runs = |lines: &[String]| lines.iter().filter(|l| l.starts_with("watch: indexed")).count();
    let before = runs(&lines);

    add_method(&repo, "watchedProbe");
    wait_for("the new fact to be served", || {
        served(&http, &server.base, "watchedProbe")
    });
    // The watch says so once it has followed the server's job to its end.
    wait_for("the watch to report the run", || {
        read(&mut lines);
        runs(&lines) > before
    });
    let after = runs(&lines);
    // Index runs read the files; reading is not a change, so the watch comes to rest.
    std::thread::sleep(Duration::from_secs(2));
    read(&mut lines);
    assert_eq!(runs(&lines), after, "no run without an edit: {lines:?}");
    let _ = watch.kill();
    let _ = watch.wait();
    drop(server);
}
