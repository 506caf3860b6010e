//! Format compatibility: a store written by format version 1 (committed under
//! `tests/data/store-v1`, made by `examples/write_format_fixture.rs` as format 1 was) is
//! upgraded in place by its first open for writing, and answers the same facts; a read-only
//! open of it is refused with the way to upgrade. If this fails after a change, the on-disk
//! format changed: bump the format version, upgrade the older one on open, and say so in
//! `docs/storage-format.md`.

use std::path::{Path, PathBuf};

use semgraph_storage::{ContentKind, Direction, EdgeKind, NodeFlags, NodeKind, Store, StoreError};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create copy");
    for entry in std::fs::read_dir(from).expect("fixture store exists") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy file");
    }
}

fn fixture_copy(version: &str) -> tempfile::TempDir {
    let fixture = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(version);
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&fixture, dir.path());
    dir
}

#[test]
fn a_committed_v1_store_is_upgraded_and_answers() {
    let dir = fixture_copy("store-v1");
    let refused = Store::open_read_only(dir.path()).expect_err("read-only, a v1 store is not upgraded");
    assert!(
        matches!(
            refused,
            StoreError::UpgradeNeeded {
                found: 1,
                expected: 2
            }
        ),
        "{refused:?}"
    );
    let store = Store::open(dir.path()).expect("a v1 store opens, upgraded");
    answers_the_fixture_facts(&store);
}

#[test]
fn a_committed_v2_store_opens_read_only_and_answers() {
    let dir = fixture_copy("store-v2");
    let store = Store::open_read_only(dir.path()).expect("a v2 store opens");
    answers_the_fixture_facts(&store);
}

/// What `examples/write_format_fixture.rs` wrote, read back.
fn answers_the_fixture_facts(store: &Store) {
    let snap = store.snapshot();
    let names: Vec<(String, String)> = snap.products().into_iter().map(|p| (p.name, p.area)).collect();
    assert_eq!(
        names,
        vec![
            ("orders".into(), "commerce".into()),
            ("payments".into(), "finance".into())
        ]
    );
    let method = snap
        .find_by_fqn("com.acme.orders.OrderService.placeOrder")
        .expect("lookup");
    assert_eq!(method.len(), 1);
    // Its names moved under the run that wrote them: every name index still finds it.
    assert_eq!(snap.find_by_name("placeOrder").expect("lookup"), method);
    assert_eq!(
        snap.find_by_prefix("com.acme.orders.orderservice.place", 5)
            .expect("lookup"),
        method
    );
    let node = snap.node(method[0]).expect("read").expect("live");
    assert_eq!(node.kind, NodeKind::Method);
    // Flag sets came later than format 1: they are read back from the node records.
    assert!(snap.nodes_with_flag(NodeFlags::PUBLIC).contains(method[0].0));
    assert_eq!(snap.nodes_with_flag(NodeFlags::PUBLIC).len(), 1);
    assert!(snap.nodes_with_flag(NodeFlags::TEST).is_empty());
    assert_eq!(node.attr("signature"), Some("placeOrder(OrderRequest)"));
    assert_eq!(node.span.map(|s| s.start_line), Some(10));
    assert_eq!(
        snap.content(method[0], ContentKind::Source)
            .expect("content")
            .as_deref(),
        Some("public Order placeOrder(OrderRequest r) { ... }")
    );

    // The HTTP call reaches the payments endpoint through the resolved link.
    let adj = snap.adjacency();
    let call: Vec<_> = adj
        .neighbors(method[0], Direction::Out, EdgeKind::Calls)
        .collect();
    assert_eq!(call.len(), 1);
    let attrs = snap
        .edge_attrs(&[(method[0], EdgeKind::Calls, call[0])])
        .expect("attrs");
    assert_eq!(attrs[0].as_ref().map(|a| a.lines.clone()), Some(vec![14]));
    let endpoint: Vec<_> = adj
        .neighbors(call[0], Direction::Out, EdgeKind::Invokes)
        .collect();
    assert_eq!(endpoint.len(), 1);
    let endpoint = snap.node(endpoint[0]).expect("read").expect("live");
    assert_eq!(endpoint.attr("route"), Some("/api/payments"));
    assert_eq!(
        snap.named_set("orders", "term:order").expect("set").len(),
        1,
        "named sets survive"
    );
    let orders = snap.product("orders").expect("orders");
    let runs = snap.runs(orders.id).expect("runs");
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].warnings.len(), 1);
}

#[test]
fn an_upgraded_v1_store_reopens_read_only_and_reindexes() {
    let dir = fixture_copy("store-v1");
    drop(Store::open(dir.path()).expect("upgrades"));
    {
        let store = Store::open_read_only(dir.path()).expect("format 2 now");
        let snap = store.snapshot();
        assert_eq!(snap.find_by_name("placeOrder").expect("lookup").len(), 1);
    }
    // A re-index of a product replaces its names (the upgraded ones are purged by its run).
    let store = Store::open(dir.path()).expect("reopen");
    let mut w = store.begin("orders", "commerce").expect("begin");
    w.add_node(
        semgraph_storage::NewNode::new(NodeKind::Method, "placeOrder")
            .fqn("com.acme.orders.OrderService.placeOrder"),
    )
    .expect("node");
    w.commit().expect("commit");
    let snap = store.snapshot();
    assert_eq!(snap.find_by_name("placeOrder").expect("lookup").len(), 1);
    assert_eq!(
        snap.find_by_fqn("com.acme.orders.OrderService.placeOrder")
            .expect("lookup")
            .len(),
        1
    );
}
