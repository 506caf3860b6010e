//! Files that change between the walk and the read: removed, swapped for a named pipe or a
//! symbolic link, grown past the size limit.
//!
//! A repository being indexed is often a working copy someone is using: a build deletes and
//! rewrites files while the indexer runs. The walk lists files first and the front-ends read
//! them later, so every check the walk made must be made again when the file is opened, or a
//! pipe blocks the run forever, a link reads outside the repository, and a file that grew
//! is read whole. The test removes and swaps files from `Progress::planned`, which the run
//! calls after the walk and before reading a single file; as root this is also the one way
//! to make a listed file unreadable (`chmod 000` does not stop root).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use semgraph_indexer::{index_product, Company, ProductSource, Progress};
use semgraph_storage::Store;

/// Generous: the product is six small files; only a blocked read takes longer.
const HANG_GUARD: Duration = Duration::from_secs(120);

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Changes the repository once the walk has listed it.
struct ChangeAfterWalk {
    java: PathBuf,
    outside: PathBuf,
}

impl Progress for ChangeAfterWalk {
    fn planned(&self, _files: u64, _bytes: u64) {
        let java = &self.java;
        std::fs::remove_file(java.join("Gone.java")).expect("remove Gone.java");
        std::fs::remove_file(java.join("Piped.java")).expect("remove Piped.java");
        let status = Command::new("mkfifo")
            .arg(java.join("Piped.java"))
            .status()
            .expect("run mkfifo");
        assert!(status.success(), "mkfifo");
        std::fs::remove_file(java.join("Linked.java")).expect("remove Linked.java");
        std::os::unix::fs::symlink(&self.outside, java.join("Linked.java")).expect("symlink");
        let grown = format!(
            "package shop;\npublic class Grown {{\n{}}}\n",
            "  // padding\n".repeat(800_000)
        );
        std::fs::write(java.join("Grown.java"), grown).expect("grow Grown.java");
    }

    fn file_done(&self, _bytes: u64) {}
}

#[test]
fn files_removed_or_swapped_after_the_walk_are_warnings_and_never_block_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("shop");
    let java = repo.join("src/main/java/shop");
    for name in ["Gone", "Piped", "Linked", "Grown", "Kept"] {
        write(
            &java.join(format!("{name}.java")),
            &format!("package shop;\npublic class {name} {{}}\n"),
        );
    }
    let outside = dir.path().join("outside/Secret.java");
    write(&outside, "package outside;\npublic class OutsideSecret {}\n");

    let company = Company {
        store: dir.path().join("store"),
        products: vec![ProductSource {
            name: "shop".into(),
            area: "retail".into(),
            repos: vec![repo.clone()],
            wiki: Vec::new(),
            jira: Vec::new(),
        }],
        config_file: None,
        server: None,
        dependencies: semgraph_indexer::Dependencies::sources_only(),
    };
    let store = Store::open(&company.store).expect("open store");
    let progress = ChangeAfterWalk {
        java: java.clone(),
        outside,
    };
    // The run happens on a thread so that a read blocked on the pipe fails the test by the
    // guard instead of hanging it. (A blocked thread is left behind; the test has failed.)
    let (tx, rx) = mpsc::channel();
    let store_in = store.clone();
    let company_in = company.clone();
    std::thread::spawn(move || {
        let report = index_product(&store_in, &company_in, &company_in.products[0], &progress);
        // Its handle on the store goes before the report does: the test's own handle is then
        // the last, closed on the test's thread. Left to the end of this thread, it could be
        // the last one, closing RocksDB while the test process exits (an abort at exit:
        // "pthread lock: Invalid argument").
        drop(store_in);
        let _ = tx.send(report.map_err(|e| e.to_string()));
    });
    let report = rx
        .recv_timeout(HANG_GUARD)
        .expect("index_product blocked: a file swapped for a named pipe was opened")
        .expect("index run");

    let warnings: Vec<String> = report
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.file, w.message))
        .collect();
    let expect = [
        ("src/main/java/shop/Gone.java", "cannot read"),
        ("src/main/java/shop/Piped.java", "named pipe"),
        ("src/main/java/shop/Linked.java", "symbolic link"),
        ("src/main/java/shop/Grown.java", "over the 8 MB limit"),
    ];
    for (file, reason) in expect {
        assert!(
            warnings.iter().any(|w| w.starts_with(file) && w.contains(reason)),
            "no warning for {file} ({reason}); warnings: {warnings:#?}"
        );
    }
    let snap = store.snapshot();
    assert_eq!(
        snap.find_by_fqn("shop.Kept").expect("find").len(),
        1,
        "the untouched file is indexed"
    );
    for gone in [
        "shop.Gone",
        "shop.Piped",
        "shop.Linked",
        "shop.Grown",
        "outside.OutsideSecret",
    ] {
        assert!(
            snap.find_by_fqn(gone).expect("find").is_empty(),
            "{gone} was indexed"
        );
    }
}
