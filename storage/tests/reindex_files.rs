//! Re-indexing leaves nothing to compact: every run's table files of the families keyed by
//! node id are ingested at the bottom level, beside the other runs' files and never over
//! them, and the files of a run that was replaced are dropped whole when it is purged.
//!
//! Before, a run given the ids of a purged one was ingested over that run's range deletions:
//! its files went to level 0, and every re-index rewrote the product in a compaction.

use semgraph_storage::{ContentKind, EdgeAttrs, EdgeKind, NewNode, NodeId, NodeKind, Store};

/// The families a run writes under its node ids.
const ID_KEYED: &[&str] = &["nodes", "adj_out", "adj_in", "edge_attrs", "content", "links"];

/// One run of `product`: `n` methods in a chain of calls, each with a body, an edge fact on
/// every call, and an anchor and a link on the first and last.
fn index(store: &Store, product: &str, n: usize, round: usize) -> Vec<NodeId> {
    let mut w = store.begin(product, "north").expect("begin");
    let ids: Vec<NodeId> = (0..n)
        .map(|i| {
            let id = w
                .add_node(
                    NewNode::new(NodeKind::Method, format!("m{i}")).fqn(format!("{product}.r{round}.m{i}")),
                )
                .expect("node");
            w.set_content(
                id,
                ContentKind::Source,
                &format!("void m{i}() {{ /* round {round} */ }}"),
            )
            .expect("content");
            id
        })
        .collect();
    for pair in ids.windows(2) {
        w.add_edge_with(
            pair[0],
            EdgeKind::Calls,
            pair[1],
            &EdgeAttrs {
                lines: vec![1],
                via: None,
            },
        )
        .expect("edge");
    }
    w.add_anchor(ids[0], format!("{product}.entry")).expect("anchor");
    w.commit().expect("commit");
    ids
}

#[test]
fn re_indexed_runs_are_ingested_at_the_bottom_and_replaced_runs_dropped_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let mut most_files = [0u64; 6];
    for round in 0..8 {
        // `alpha` grows by a node a run, so it takes every free id and then fresh ones past
        // `beta`'s; `beta` stays the same size and takes back its own purged range.
        let alpha = index(&store, "alpha", 3_000 + round, round);
        let beta = index(&store, "beta", 2_000, round);
        for (cf, levels) in store.table_files().expect("table files") {
            let Some(at) = ID_KEYED.iter().position(|c| *c == cf) else {
                continue;
            };
            assert_eq!(
                levels[..6].iter().sum::<u64>(),
                0,
                "round {round}: `{cf}` has files above the bottom level: {levels:?}"
            );
            most_files[at] = most_files[at].max(levels[6]);
        }
        // Both products are whole and read back.
        let snap = store.snapshot();
        for (product, ids) in [("alpha", &alpha), ("beta", &beta)] {
            assert_eq!(
                snap.product_nodes(product).len(),
                ids.len() as u64,
                "round {round}: {product}"
            );
            let last = ids[ids.len() - 1];
            let node = snap.node(last).expect("read").expect("node");
            assert_eq!(
                node.fqn.as_deref(),
                Some(format!("{product}.r{round}.m{}", ids.len() - 1).as_str())
            );
            let body = snap.content(last, ContentKind::Source).expect("content");
            assert!(
                body.is_some_and(|b| b.contains(&format!("round {round}"))),
                "round {round}"
            );
        }
    }
    // What is on disk is what is served plus the runs awaiting purge, not every run ever
    // written: a few files per family and product, whatever the number of re-indexes.
    for (cf, files) in ID_KEYED.iter().zip(most_files) {
        assert!(files <= 12, "`{cf}` kept {files} files at the bottom level");
    }
}

/// A run whose names and link declarations outgrow the staging budget several times still
/// ingests them as files at the bottom level. Names are keyed by run first, so every run of
/// them written out spans the run's whole range; a link declaration may come long after its
/// node, and so may an edge (a call, found in the second pass) between any two nodes.
/// Written as they spilled, such files would overlap and land in level 0, to be compacted.
#[test]
fn names_links_and_edges_spilled_past_the_staging_budget_are_ingested_at_the_bottom() {
    use semgraph_storage::{Direction, LinkPolicy};
    let dir = tempfile::tempdir().expect("tempdir");
    let options = semgraph_storage::StoreOptions {
        staging_bytes: 64 << 10,
        ..semgraph_storage::StoreOptions::default()
    };
    let n = 6_000;
    // An order unlike the ids': every spilled run spans the run's whole key range.
    let shuffled = |i: usize| (i * 7_919) % n;
    for round in 0..3 {
        let store = Store::open_with_options(dir.path(), &options).expect("open");
        let mut w = store.begin("gamma", "north").expect("begin");
        let mut written = Vec::with_capacity(n);
        for i in 0..n {
            let name = format!("m{:04}", shuffled(i));
            let fqn = format!("gamma.r{round}.{name}");
            let id = w
                .add_node(NewNode::new(NodeKind::Method, name).fqn(fqn.clone()))
                .expect("node");
            written.push((fqn, id));
        }
        // Anchors declared after every node, out of id order; one declared twice.
        for i in 0..n {
            let (_, id) = &written[shuffled(i)];
            w.add_anchor(*id, format!("gamma.anchor.{}", shuffled(i)))
                .expect("anchor");
        }
        w.add_anchor(written[0].1, "gamma.anchor.0")
            .expect("anchor again");
        // Three calls from every node, after every node, out of id order; a few twice.
        let callee = |i: usize, k: usize| (i * 13 + k * 1_009 + round) % n;
        let mut calls: std::collections::BTreeSet<(NodeId, NodeId)> = Default::default();
        for i in 0..n {
            let from = written[shuffled(i)].1;
            for k in 0..3 {
                let to = written[callee(shuffled(i), k)].1;
                w.add_edge(from, EdgeKind::Calls, to).expect("edge");
                calls.insert((from, to));
            }
            if i % 100 == 0 {
                w.add_edge(from, EdgeKind::Calls, written[callee(shuffled(i), 0)].1)
                    .expect("edge again");
            }
        }
        w.commit().expect("commit");
        // Another product calls every 50th anchor.
        let mut w = store.begin("delta", "north").expect("begin");
        let mut callers = Vec::new();
        for i in (0..n).step_by(50) {
            let from = w
                .add_node(NewNode::new(NodeKind::Method, format!("c{i}")))
                .expect("node");
            w.add_link(
                from,
                EdgeKind::Invokes,
                &format!("gamma.anchor.{i}"),
                LinkPolicy::Unique,
            )
            .expect("link");
            callers.push((from, written[i].1));
        }
        w.commit().expect("commit");

        // Where each file went, as RocksDB's log says at the ingestion (a compaction may
        // have moved files since, so the levels alone would not tell).
        let log = std::fs::read_to_string(dir.path().join("LOG")).expect("RocksDB's LOG");
        for cf in ["names", "links", "adj_out", "adj_in"] {
            let levels: Vec<&str> = log
                .lines()
                .filter(|l| l.contains(&format!("-{cf}.sst was ingested in L")))
                .filter_map(|l| l.rsplit("was ingested in ").next())
                .map(|l| l.split_whitespace().next().unwrap_or(""))
                .collect();
            assert!(!levels.is_empty(), "round {round}: no {cf} file ingested");
            assert!(
                levels.iter().all(|l| *l == "L6"),
                "round {round}: {cf} ingested at {levels:?}"
            );
        }
        let snap = store.snapshot();
        for (fqn, id) in written.iter().step_by(97) {
            assert_eq!(snap.find_by_fqn(fqn).expect("find"), vec![*id], "{fqn}");
        }
        assert_eq!(
            snap.find_by_prefix(&format!("gamma.r{round}."), usize::MAX)
                .expect("prefix")
                .len(),
            n,
            "round {round}: every fqn found by prefix"
        );
        assert_eq!(snap.find_by_name("m0042").expect("by name").len(), 1);
        // Every reference found its anchor, declared late and spilled.
        let adj = snap.adjacency();
        for (from, to) in callers {
            let targets: Vec<NodeId> = adj
                .edges(from, Direction::Out)
                .filter(|(kind, _)| *kind == EdgeKind::Invokes)
                .map(|(_, t)| t)
                .collect();
            assert_eq!(targets, vec![to], "round {round}: the link from {from:?}");
        }
        // Every call is in both directions' lists, once, whichever spilled run held it.
        let listed = |direction: Direction| -> std::collections::BTreeSet<(NodeId, NodeId)> {
            written
                .iter()
                .flat_map(|(_, id)| {
                    adj.edges(*id, direction)
                        .filter(|(kind, _)| *kind == EdgeKind::Calls)
                        .map(move |(_, other)| match direction {
                            Direction::Out => (*id, other),
                            Direction::In => (other, *id),
                        })
                })
                .collect()
        };
        assert_eq!(listed(Direction::Out), calls, "round {round}: calls out");
        assert_eq!(listed(Direction::In), calls, "round {round}: calls in");
        let out_lists: usize = written
            .iter()
            .map(|(_, id)| {
                adj.edges(*id, Direction::Out)
                    .filter(|(k, _)| *k == EdgeKind::Calls)
                    .count()
            })
            .sum();
        assert_eq!(out_lists, calls.len(), "round {round}: no call listed twice");
    }
}

#[test]
fn a_commit_leaves_the_memtables_empty() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let held = |store: &Store| -> Vec<(&'static str, u64)> {
        store
            .memtable_bytes()
            .expect("memtable bytes")
            .into_iter()
            .filter(|(_, b)| *b > 0)
            .collect()
    };
    let empty = held(&store);
    for round in 0..6 {
        // Each commit writes its catalog, run record and link edges through the memtables,
        // and from the second on the purge of the run before it.
        index(&store, "alpha", 2_000, round);
        index(&store, "beta", 1_000, round);
        assert_eq!(
            held(&store),
            empty,
            "round {round}: what the memtables hold after a commit"
        );
    }
}

#[test]
fn a_product_keeps_the_records_of_its_newest_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let runs = semgraph_storage::KEPT_RUNS + 5;
    for round in 0..runs {
        index(&store, "alpha", 50, round);
        if round < 3 {
            index(&store, "beta", 50, round);
        }
    }
    // An interrupted run of alpha's counts as one of its runs too.
    drop(store.begin("alpha", "north").expect("begin"));
    index(&store, "alpha", 50, runs);
    let snap = store.snapshot();
    let alpha = snap.product("alpha").expect("alpha");
    let kept = snap.runs(alpha.id).expect("runs");
    assert_eq!(kept.len(), semgraph_storage::KEPT_RUNS, "alpha's run records");
    assert_eq!(
        kept.last().map(|r| r.id),
        Some(alpha.run),
        "the served run is the newest kept"
    );
    assert!(kept.windows(2).all(|w| w[0].id < w[1].id), "oldest first");
    assert!(
        kept.iter()
            .any(|r| r.status == semgraph_storage::RunStatus::Interrupted),
        "the interrupted run is among the newest"
    );
    // Another product's runs are its own: beta's three stay.
    let beta = snap.product("beta").expect("beta");
    assert_eq!(snap.runs(beta.id).expect("runs").len(), 3);
}
