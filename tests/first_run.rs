//! A newcomer's first run, on the real binary: `semgraph up` in a copy of the checkout at
//! another path indexes that copy (never the tree the binary was built from), prints the
//! warnings by reason with the full list in a file, and ends with the URL, an example
//! question and MCP configurations that parse; `--log-format json` writes one JSON object a
//! line; `--version` names the store format, which is the storage crate's own.

#[path = "support/process.rs"]
mod process;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use process::{Http, BIN, HANG};
use semgraph_storage::{NodeKind, Store, StoreError};
use serde_json::Value;

/// Copies `from` to `to`, leaving out stores (`.semgraph`) a checkout may hold.
fn copy_checkout(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        if entry.file_name() == ".semgraph" {
            continue;
        }
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_checkout(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// A class only the copy has: finding it proves the copy was indexed.
const PROBE: &str = "com.acme.orders.FirstRunProbe";

/// A checkout of semgraph at another path: the fixture company and a class only it has.
fn checkout_copy(root: &Path) -> PathBuf {
    let repo = root.join("elsewhere").join("semgraph");
    copy_checkout(&process::acme(), &repo.join("fixtures/acme"));
    let probe =
        repo.join("fixtures/acme/orders/orders-service/src/main/java/com/acme/orders/FirstRunProbe.java");
    std::fs::write(
        probe,
        "package com.acme.orders;\n\npublic class FirstRunProbe {\n    public int answer() { return 42; }\n}\n",
    )
    .expect("write probe");
    repo
}

/// `semgraph up` started in `cwd`: its stdout up to the banner's first line, and the base URL.
struct Up {
    child: std::process::Child,
    before_banner: String,
    banner: String,
    base: String,
}

impl Drop for Up {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_up(cwd: &Path, log: &Path) -> Up {
    let mut child = Command::new(BIN)
        .args(["--log-format", "json", "up", "--bind", "127.0.0.1:0"])
        .current_dir(cwd)
        .env("RUST_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(std::fs::File::create(log).expect("log file")))
        .spawn()
        .expect("spawn semgraph up");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut before = String::new();
        let mut banner = String::new();
        let mut base = None;
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if base.is_none() {
                if let Some(at) = line.find(" on http://") {
                    base = Some(line[at + 4..].trim().to_string());
                }
            }
            match base {
                None => before.push_str(&format!("{line}\n")),
                Some(_) => banner.push_str(&format!("{line}\n")),
            }
            if line.starts_with("Ctrl-C stops the server") {
                let _ = tx.send((before.clone(), banner.clone(), base.clone()));
            }
        }
        let _ = tx.send((before, banner, base));
    });
    let (before_banner, banner, base) = rx.recv_timeout(HANG).unwrap_or_default();
    let Some(base) = base else {
        let _ = child.kill();
        let _ = child.wait();
        panic!(
            "semgraph up printed no banner; stdout:\n{before_banner}\nlog:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
    };
    Up {
        child,
        before_banner,
        banner,
        base,
    }
}

#[test]
fn up_indexes_the_checkout_it_runs_in_and_ends_with_how_to_reach_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = checkout_copy(dir.path());
    let log = dir.path().join("up.log");
    // From a folder inside the checkout, as a person in `src/` would run it.
    let cwd = repo.join("fixtures");
    let up = start_up(&cwd, &log);
    let http = Http::new();

    // It indexed the copy: the class only the copy has answers.
    let (status, body) = http.get(&format!("{}/api/v1/code/type", up.base), &[("fqn", PROBE)]);
    assert_eq!(status, 200, "{body}");

    // The store is the copy's, and every repository indexed lies in the copy.
    let store_dir = repo.join("fixtures/acme/.semgraph");
    assert!(
        up.banner.contains(
            &std::fs::canonicalize(&store_dir)
                .expect("store")
                .display()
                .to_string()
        ),
        "{}",
        up.banner
    );

    // Warnings: a summary by reason, the full list in the file it names.
    let warnings_file = store_dir.join("last-index-warnings.txt");
    let full = std::fs::read_to_string(&warnings_file).expect("the full list of warnings");
    let listed: Vec<&str> = full
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with("# "))
        .collect();
    assert!(!listed.is_empty(), "the fixture company has warnings: {full}");
    assert!(
        up.before_banner.contains(&warnings_file.display().to_string()),
        "the summary names the full list:\n{}",
        up.before_banner
    );
    assert!(
        up.before_banner.contains("| reason | count | files | most in |"),
        "{}",
        up.before_banner
    );
    for line in &listed {
        assert!(
            !up.before_banner.contains(line),
            "one warning line is the list's, not the summary's: {line}"
        );
    }

    // The banner comes last: URL, curl, then the MCP configurations, each JSON line parsing.
    let at = |needle: &str| {
        up.banner
            .find(needle)
            .unwrap_or_else(|| panic!("the banner says {needle}:\n{}", up.banner))
    };
    assert!(at("/api/v1/discover") < at("curl -s -X POST"));
    assert!(at("curl -s -X POST") < at("claude mcp add --transport http semgraph"));
    assert!(at("claude mcp add semgraph -- ") < at("Ctrl-C stops the server"));
    let url = format!("{}/mcp", up.base);
    let configs: Vec<Value> = up
        .banner
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(configs.len(), 4, "{}", up.banner);
    assert_eq!(configs[0]["servers"]["semgraph"]["type"], "http");
    assert_eq!(configs[0]["servers"]["semgraph"]["url"], url.as_str());
    assert_eq!(configs[1]["mcpServers"]["semgraph"]["url"], url.as_str());
    assert_eq!(configs[2]["servers"]["semgraph"]["type"], "stdio");
    let stdio = &configs[3]["mcpServers"]["semgraph"];
    let command = PathBuf::from(stdio["command"].as_str().expect("command"));
    assert_eq!(
        std::fs::canonicalize(command).expect("the command exists"),
        std::fs::canonicalize(BIN).expect("bin")
    );
    let args: Vec<&str> = stdio["args"]
        .as_array()
        .expect("args")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(&args[..3], ["mcp", "--stdio", "--store"]);
    assert_eq!(
        PathBuf::from(args[3]),
        std::fs::canonicalize(&store_dir).expect("store")
    );

    // `--log-format json`: one object a line, the request log among them.
    drop(up);
    let mut text = String::new();
    std::fs::File::open(&log)
        .and_then(|mut f| f.read_to_string(&mut text))
        .expect("log");
    let lines: Vec<Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("a log line is JSON: {l}: {e}")))
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l["message"] == "request" && l["path"] == "/api/v1/code/type" && l["status"] == 200),
        "{text}"
    );

    let store = Store::open_read_only(&store_dir).expect("the copy's store");
    let snapshot = store.snapshot();
    let repos = snapshot.nodes_of_kind(NodeKind::Repo);
    assert!(!repos.is_empty());
    let root = std::fs::canonicalize(&repo).expect("repo");
    let ids: Vec<semgraph_storage::NodeId> = repos.iter().map(semgraph_storage::NodeId).collect();
    for node in snapshot.nodes(&ids).expect("repos").into_iter().flatten() {
        let path = PathBuf::from(node.attr("path").expect("a repo has its path"));
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        assert!(
            path.starts_with(&root),
            "{} is not in the copy {}",
            path.display(),
            root.display()
        );
    }
}

#[test]
fn up_outside_a_checkout_says_what_to_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(BIN)
        .args(["up", "--bind", "127.0.0.1:0"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run semgraph up");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("fixtures/acme/semgraph.toml"), "{err}");
    assert!(err.contains("pass a semgraph.toml"), "{err}");
}

/// Rewrites `meta/format_version` of the store at `dir` with RocksDB directly.
fn set_format_version(dir: &Path, version: u32) {
    let opts = rocksdb::Options::default();
    let cfs = rocksdb::DB::list_cf(&opts, dir).expect("list column families");
    let db = rocksdb::DB::open_cf(&opts, dir, &cfs).expect("open raw");
    let meta = db.cf_handle("meta").expect("meta column family");
    db.put_cf(meta, b"format_version", version.to_be_bytes())
        .expect("write version");
}

#[test]
fn version_names_the_store_format_this_build_reads() {
    let out = Command::new(BIN)
        .arg("--version")
        .output()
        .expect("run semgraph --version");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim(),
        format!(
            "semgraph {} (store format version {})",
            env!("CARGO_PKG_VERSION"),
            semgraph::STORE_FORMAT_VERSION
        )
    );
    // The number is the storage crate's: a store of another version is refused with it.
    let dir = tempfile::tempdir().expect("tempdir");
    drop(Store::open(dir.path()).expect("open"));
    set_format_version(dir.path(), u32::MAX);
    match Store::open(dir.path()) {
        Err(StoreError::FormatVersion { expected, .. }) => {
            assert_eq!(expected, semgraph::STORE_FORMAT_VERSION)
        }
        other => panic!("another format version is refused: {other:?}"),
    }
}
