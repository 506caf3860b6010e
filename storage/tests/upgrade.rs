//! Upgrading the store format: a store written by another format version is refused on
//! open — read-write and read-only — with the message `docs/operations.md` quotes, and
//! nothing of it is changed, so the binary that wrote it still serves it.

use semgraph_storage::{NewNode, NodeKind, Store, StoreError};

/// Rewrites `meta/format_version` of the store at `dir` with RocksDB directly.
fn set_format_version(dir: &std::path::Path, version: u32) {
    let opts = rocksdb::Options::default();
    let cfs = rocksdb::DB::list_cf(&opts, dir).expect("list column families");
    let db = rocksdb::DB::open_cf(&opts, dir, &cfs).expect("open raw");
    let meta = db.cf_handle("meta").expect("meta column family");
    db.put_cf(meta, b"format_version", version.to_be_bytes())
        .expect("write version");
}

#[test]
fn a_store_of_another_format_version_is_refused_and_left_as_it_was() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = Store::open(dir.path()).expect("open");
        let mut w = store.begin("orders", "commerce").expect("begin");
        w.add_node(NewNode::new(NodeKind::Type, "Order")).expect("node");
        w.commit().expect("commit");
    }
    set_format_version(dir.path(), 2);
    for read_only in [false, true] {
        let opened = if read_only {
            Store::open_read_only(dir.path())
        } else {
            Store::open(dir.path())
        };
        let err = opened.expect_err("another format version is refused");
        assert!(
            matches!(
                err,
                StoreError::FormatVersion {
                    found: 2,
                    expected: 1
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the store has format version 2, this semgraph reads version 1; re-index into a new store"
        );
    }
    // Refusing changed nothing: back at its own version, the store serves what it held.
    set_format_version(dir.path(), 1);
    let store = Store::open_read_only(dir.path()).expect("reopen");
    let snap = store.snapshot();
    assert_eq!(snap.product("orders").map(|p| p.node_count), Some(1));
    assert_eq!(snap.find_by_name("Order").expect("lookup").len(), 1);
}
