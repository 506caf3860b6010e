//! Upgrading the store format: a store of format 1 is upgraded in place by the first open
//! for writing (and refused by a read-only one, which says how to upgrade it); a store of
//! any other version is refused on open — read-write and read-only — with the message
//! `docs/operations.md` quotes, and nothing of it is changed, so the binary that wrote it
//! still serves it.

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
    set_format_version(dir.path(), 3);
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
                    found: 3,
                    expected: 2
                }
            ),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "the store has format version 3, this semgraph reads version 2; re-index into a new store"
        );
    }
    // Refusing changed nothing: back at its own version, the store serves what it held.
    set_format_version(dir.path(), 2);
    let store = Store::open_read_only(dir.path()).expect("reopen");
    let snap = store.snapshot();
    assert_eq!(snap.product("orders").map(|p| p.node_count), Some(1));
    assert_eq!(snap.find_by_name("Order").expect("lookup").len(), 1);
}

/// The `names` keys of the store at `dir`, as RocksDB holds them.
fn raw_names(dir: &std::path::Path) -> Vec<Vec<u8>> {
    let opts = rocksdb::Options::default();
    let cfs = rocksdb::DB::list_cf(&opts, dir).expect("list column families");
    let db = rocksdb::DB::open_cf(&opts, dir, &cfs).expect("open raw");
    let names = db.cf_handle("names").expect("names column family");
    db.iterator_cf(names, rocksdb::IteratorMode::Start)
        .map(|item| item.expect("read").0.to_vec())
        .collect()
}

/// Rewrites the `names` keys of the store at `dir` as format 1 wrote them (tag, name,
/// `0x00`, id: no run in front), adds one for an id no product serves, and sets version 1.
fn downgrade_to_format_1(dir: &std::path::Path) {
    let opts = rocksdb::Options::default();
    let cfs = rocksdb::DB::list_cf(&opts, dir).expect("list column families");
    let db = rocksdb::DB::open_cf(&opts, dir, &cfs).expect("open raw");
    let names = db.cf_handle("names").expect("names column family");
    let keys: Vec<Vec<u8>> = db
        .iterator_cf(names, rocksdb::IteratorMode::Start)
        .map(|item| item.expect("read").0.to_vec())
        .collect();
    assert!(!keys.is_empty());
    for key in keys {
        db.delete_cf(names, &key).expect("delete");
        db.put_cf(names, &key[8..], []).expect("put");
    }
    let mut stale = b"NOrder\0".to_vec();
    stale.extend_from_slice(&999u32.to_be_bytes());
    db.put_cf(names, stale, []).expect("put");
    let meta = db.cf_handle("meta").expect("meta column family");
    db.put_cf(meta, b"format_version", 1u32.to_be_bytes())
        .expect("write version");
}

fn index_orders(store: &Store) {
    let mut w = store.begin("orders", "commerce").expect("begin");
    w.add_node(NewNode::new(NodeKind::Type, "Order").fqn("com.acme.Order"))
        .expect("node");
    w.add_node(NewNode::new(NodeKind::Method, "place").fqn("com.acme.Order.place"))
        .expect("node");
    w.commit().expect("commit");
}

#[test]
fn a_store_of_format_1_is_upgraded_by_the_first_open_for_writing() {
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let store = Store::open(dir.path()).expect("open");
        index_orders(&store);
        let mut w = store.begin("billing", "finance").expect("begin");
        w.add_node(NewNode::new(NodeKind::Type, "Invoice").fqn("com.acme.Invoice"))
            .expect("node");
        w.commit().expect("commit");
    }
    downgrade_to_format_1(dir.path());

    // Read-only, it cannot upgrade: it says how, and changes nothing.
    let err = Store::open_read_only(dir.path()).expect_err("format 1 is not read as it is");
    assert!(
        matches!(
            err,
            StoreError::UpgradeNeeded {
                found: 1,
                expected: 2
            }
        ),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "the store has format version 1, this semgraph reads version 2; open it once for writing (`semgraph index` or `semgraph serve`) and it is upgraded in place"
    );
    assert!(raw_names(dir.path())
        .iter()
        .all(|k| k[0] == b'N' || k[0] == b'L' || k[0] == b'F'));

    {
        let store = Store::open(dir.path()).expect("upgrades");
        let snap = store.snapshot();
        assert_eq!(snap.find_by_name("Order").expect("lookup").len(), 1);
        assert_eq!(snap.find_by_fqn("com.acme.Invoice").expect("lookup").len(), 1);
        let found = snap.find_by_prefix("com.acme.", 10).expect("lookup");
        assert_eq!(found.len(), 3, "{found:?}");
        drop(snap);
        // With no reader of it left, a re-index purges the old run's names by their range.
        index_orders(&store);
        assert_eq!(store.snapshot().find_by_name("Order").expect("lookup").len(), 1);
    }
    // Every key is a served run's now: four per node (name, fqn, both lowercased); the old
    // run's are purged and the stale key of an id nobody served is gone.
    let keys = raw_names(dir.path());
    assert!(keys.iter().all(|k| k[0] == 0), "only run-keyed names remain");
    assert_eq!(keys.len(), 12);
    let store = Store::open_read_only(dir.path()).expect("format 2 now");
    let snap = store.snapshot();
    assert_eq!(snap.find_by_prefix("order", 10).expect("lookup").len(), 1);
    assert_eq!(snap.find_by_prefix("inv", 10).expect("lookup").len(), 1);
}
