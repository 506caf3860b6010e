//! `semgraph status` over a real store on disk: the binary opens it read-only and prints
//! every product with its area, size and last run.

use std::process::Command;

use semgraph_storage::{EdgeKind, NewNode, NodeKind, Store, Warning};

#[test]
fn status_lists_products_with_area_size_and_last_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store_dir = dir.path().join("store");
    {
        let store = Store::open(&store_dir).expect("open");
        let mut w = store.begin("orders", "commerce").expect("begin");
        let a = w.add_node(NewNode::new(NodeKind::Method, "a")).expect("node");
        let b = w.add_node(NewNode::new(NodeKind::Method, "b")).expect("node");
        w.add_edge(a, EdgeKind::Calls, b).expect("edge");
        w.warn(Warning {
            file: "Broken.java".into(),
            line: None,
            message: "syntax error".into(),
        });
        w.commit().expect("commit");
        let mut w = store.begin("payments", "finance").expect("begin");
        w.add_node(NewNode::new(NodeKind::Type, "T")).expect("node");
        w.commit().expect("commit");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_semgraph"))
        .args(["status", "--store"])
        .arg(&store_dir)
        .output()
        .expect("run semgraph");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "status failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("2 products · 3 nodes · 1 edges"), "{text}");
    assert!(
        text.contains("| orders | commerce | 2 | 1 | committed | 1 |"),
        "{text}"
    );
    assert!(
        text.contains("| payments | finance | 1 | 2 | committed | 0 |"),
        "{text}"
    );
}

#[test]
fn status_of_a_missing_store_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_semgraph"))
        .args(["status", "--store"])
        .arg(dir.path().join("nowhere"))
        .output()
        .expect("run semgraph");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no store at"), "{err}");
}
