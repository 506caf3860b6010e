//! Backups with the real binary: `semgraph backup` of a stopped store, and
//! `POST /api/v1/admin/backup` of a store a server is serving and indexing. Every copy must
//! open, serve exactly the generation it was reported to hold — one committed generation
//! of every product, never a mix — and answer as the store did.

#[path = "support/process.rs"]
mod process;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use process::{fingerprint, index, two_versions, whole_generations, Http, Served, BIN, HANG};
use serde_json::Value;

fn backup_cli(store: &Path, to: &Path) -> std::process::Output {
    Command::new(BIN)
        .args(["backup", "--store"])
        .arg(store)
        .arg("--to")
        .arg(to)
        .env("RUST_LOG", "warn")
        .env("RUST_BACKTRACE", "0")
        .output()
        .expect("run semgraph backup")
}

/// The generation a served store reports on `/healthz`.
fn health_generation(http: &Http, base: &str) -> u64 {
    let (status, body) = http.get(&format!("{base}/healthz"), &[]);
    assert_eq!(status, 200, "{body}");
    body.trim()
        .strip_prefix("ok generation ")
        .and_then(|g| g.parse().ok())
        .unwrap_or_else(|| panic!("healthz: {body}"))
}

/// The answers a served store gives that must survive a backup byte for byte (the same
/// generation has the same ids): products, and one JSON result per domain.
fn exact_answers(http: &Http, base: &str) -> Vec<String> {
    [
        ("/api/v1/products", vec![]),
        (
            "/api/v1/code/callers",
            vec![
                ("fqn", "com.acme.orders.service.OrderService.placeOrder"),
                ("depth", "3"),
            ],
        ),
        ("/api/v1/db/table", vec![("name", "orders")]),
        ("/api/v1/config/keys", vec![("q", "url")]),
        ("/api/v1/wiki/search", vec![("q", "retry")]),
    ]
    .iter()
    .map(|(path, query)| {
        let (status, body) = http.get(&format!("{base}{path}"), query);
        assert_eq!(status, 200, "{path}: {body}");
        body
    })
    .collect()
}

/// Inode numbers of a directory's table files.
fn table_inodes(dir: &Path) -> Vec<u64> {
    let mut out: Vec<u64> = std::fs::read_dir(dir)
        .expect("read dir")
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "sst"))
        .map(|e| e.metadata().expect("metadata").ino())
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn a_backup_of_a_stopped_store_is_hard_linked_and_answers_identically() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, _) = two_versions(dir.path());
    let store = dir.path().join("store");
    index(&before, &store);
    let http = Http::new();
    let (fp, answers, generation) = {
        let served = Served::start(&store, None, &dir.path().join("store.log"));
        (
            fingerprint(&http, &served.base),
            exact_answers(&http, &served.base),
            health_generation(&http, &served.base),
        )
    };

    // Every product of the fixture company's config is in the backup.
    let products = std::fs::read_to_string(&before)
        .expect("read config")
        .lines()
        .filter(|l| l.trim() == "[[product]]")
        .count();
    let to = dir.path().join("backups/first");
    let out = backup_cli(&store, &to);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(
        stdout.contains(&format!(
            "backup written to {}: generation {generation}, {products} products",
            to.display()
        )),
        "{stdout}"
    );
    // The copy's table files are the store's, hard-linked.
    let (ours, theirs) = (table_inodes(&store), table_inodes(&to));
    assert!(
        !theirs.is_empty() && theirs.iter().all(|i| ours.contains(i)),
        "hard links: {theirs:?} in {ours:?}"
    );

    // Restore = serve the copy: it answers byte for byte what the store answered.
    let served = Served::start(&to, None, &dir.path().join("copy.log"));
    assert_eq!(health_generation(&http, &served.base), generation);
    assert_eq!(exact_answers(&http, &served.base), answers);
    assert_eq!(fingerprint(&http, &served.base), fp);

    // A copy is never written over, a missing store is not created, and a held store is
    // sent to the server's own backup route.
    let again = backup_cli(&store, &to);
    assert!(!again.status.success());
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("already exists"),
        "{again:?}"
    );
    let missing = backup_cli(&dir.path().join("nowhere"), &dir.path().join("never"));
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("no store at"),
        "{missing:?}"
    );
    assert!(!dir.path().join("nowhere").exists() && !dir.path().join("never").exists());
    let held = backup_cli(&to, &dir.path().join("second"));
    let stderr = String::from_utf8_lossy(&held.stderr);
    assert!(!held.status.success());
    assert!(
        stderr.contains("held by a running process") && stderr.contains("POST /api/v1/admin/backup"),
        "{stderr}"
    );
}

/// `POST /api/v1/admin/backup`: the copy's path and generation.
fn server_backup(http: &Http, base: &str) -> (PathBuf, u64) {
    let (status, body) = http.post(&format!("{base}/api/v1/admin/backup"), "");
    assert_eq!(status, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("JSON");
    let path = v["result"]["path"].as_str().expect("path");
    let generation = v["result"]["generation"].as_u64().expect("generation");
    (PathBuf::from(path), generation)
}

#[test]
fn backups_taken_while_the_server_serves_and_indexes_each_hold_one_whole_generation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (before, after) = two_versions(dir.path());
    let store = dir.path().join("store");
    index(&before, &store);
    let http = Http::new();
    let served = Served::start(&store, Some(&after), &dir.path().join("serve.log"));
    let fp_before = fingerprint(&http, &served.base);

    // Parameters are refused: the destination is the server's choice, never the caller's.
    let (status, body) = http.post(
        &format!("{}/api/v1/admin/backup", served.base),
        r#"{"to": "/tmp/elsewhere"}"#,
    );
    assert_eq!(status, 422, "{body}");

    // Back up again and again while a job re-indexes every product from the "after"
    // sources, and once more when it is done.
    let (status, body) = http.post(&format!("{}/api/v1/admin/index", served.base), "");
    assert_eq!(status, 202, "{body}");
    let started = Instant::now();
    let mut during = Vec::new();
    loop {
        let (status, body) = http.get(&format!("{}/api/v1/admin/jobs", served.base), &[]);
        assert_eq!(status, 200, "{body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        if v["result"]["jobs"][0]["state"] != "running" {
            assert_eq!(v["result"]["jobs"][0]["state"], "done", "{v}");
            break;
        }
        assert!(started.elapsed() < HANG, "the index job never finished");
        during.push(server_backup(&http, &served.base));
        std::thread::sleep(Duration::from_millis(150));
    }
    let fp_after = fingerprint(&http, &served.base);
    let last = server_backup(&http, &served.base);
    let root = semgraph::backup_cmd::backup_root(&store);
    served.kill();
    assert!(!during.is_empty(), "at least one backup was taken during the job");

    let mut seen = std::collections::BTreeMap::<String, u32>::new();
    let mut purged = 0;
    for (i, (path, generation)) in during.iter().chain([&last]).enumerate() {
        assert!(
            path.starts_with(&root),
            "{} is under {}",
            path.display(),
            root.display()
        );
        let log = dir.path().join(format!("copy-{i}.log"));
        let served = Served::start(path, None, &log);
        // A copy taken inside a product's run carries the run's partial data, purged here.
        if std::fs::read_to_string(&log)
            .unwrap_or_default()
            .contains("died before its commit")
        {
            purged += 1;
        }
        assert_eq!(
            health_generation(&http, &served.base),
            *generation,
            "{}",
            path.display()
        );
        let fp = fingerprint(&http, &served.base);
        let states = whole_generations(&fp, &fp_before, &fp_after, &format!("backup {}", path.display()));
        *seen.entry(states.join(",")).or_default() += 1;
        if path == &last.0 {
            assert_eq!(fp, fp_after, "the backup after the job holds its result");
        }
    }
    eprintln!(
        "backups checked: {} ({} during the job, {purged} carried a run in progress); served \
         (inventory,notifications,orders,payments): {seen:?}",
        during.len() + 1,
        during.len()
    );
}
