//! Model-based property test of the store.
//!
//! Random sequences of product index runs (committed or aborted), re-indexes and reopens are
//! applied both to the real store on disk and to a plain `BTreeMap` model; after every step
//! the served graph must equal the model: the products and their areas, every node found by
//! its fqn exactly once, adjacency in both directions (links across products included,
//! resolved by a naive reference, and a link that repeats a product's own edge), and the
//! per-kind sets. Stores are opened with staging budgets from a few hundred bytes (every
//! run spread over many staged files per column family) to the default, serving questions
//! or only writing (checked then through a reader opened beside the writer).

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use semgraph_storage::{
    ContentKind, Direction, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeId, NodeKind, Store,
    StoreOptions,
};

const PRODUCTS: &[&str] = &["alpha", "beta", "gamma"];
const AREAS: &[&str] = &["north", "south"];
const KINDS: &[NodeKind] = &[
    NodeKind::Method,
    NodeKind::Type,
    NodeKind::Endpoint,
    NodeKind::Table,
];
/// `Invokes` is also the kind of every link edge: a product's own `Invokes` edge and a link
/// between the same two nodes are one edge, which stays when the link goes.
const EDGE_KINDS: &[EdgeKind] = &[
    EdgeKind::Calls,
    EdgeKind::Contains,
    EdgeKind::Reads,
    EdgeKind::Invokes,
];

fn options(staging_bytes: usize) -> StoreOptions {
    StoreOptions {
        staging_bytes,
        ..StoreOptions::default()
    }
}

#[derive(Clone, Debug)]
enum Op {
    Index {
        product: usize,
        area: usize,
        nodes: Vec<usize>,
        edges: Vec<(usize, usize, usize)>,
        anchors: Vec<(usize, usize)>,
        refs: Vec<(usize, usize, bool)>,
        commit: bool,
    },
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    let index = (
        0..PRODUCTS.len(),
        0..AREAS.len(),
        prop::collection::vec(0..KINDS.len(), 0..24),
        prop::collection::vec((0..24usize, 0..24usize, 0..EDGE_KINDS.len()), 0..60),
        prop::collection::vec((0..24usize, 0..4usize), 0..4),
        prop::collection::vec((0..24usize, 0..4usize, any::<bool>()), 0..4),
        prop::bool::weighted(0.8),
    )
        .prop_map(|(product, area, nodes, edges, anchors, refs, commit)| {
            let n = nodes.len().max(1);
            Op::Index {
                product,
                area,
                edges: edges.into_iter().map(|(a, b, k)| (a % n, b % n, k)).collect(),
                anchors: anchors.into_iter().map(|(a, k)| (a % n, k)).collect(),
                refs: refs.into_iter().map(|(a, k, all)| (a % n, k, all)).collect(),
                nodes,
                commit,
            }
        });
    prop_oneof![6 => index, 1 => Just(Op::Reopen)]
}

#[derive(Clone, Debug, Default)]
struct ProductModel {
    area: String,
    run: u32,
    nodes: Vec<NodeKind>,
    edges: BTreeSet<(usize, usize, EdgeKind)>,
    anchors: Vec<(usize, String)>,
    refs: Vec<(usize, String, LinkPolicy)>,
}

type Key = (String, usize);

fn fqn(product: &str, run: u32, i: usize) -> String {
    format!("{product}.r{run}.n{i}")
}

/// The naive reference for link resolution.
fn expected_links(model: &BTreeMap<String, ProductModel>) -> BTreeSet<(Key, EdgeKind, Key)> {
    let mut anchors: Vec<(Key, &str)> = Vec::new();
    for (p, m) in model {
        for (i, key) in &m.anchors {
            anchors.push(((p.clone(), *i), key.as_str()));
        }
    }
    let mut out = BTreeSet::new();
    for (p, m) in model {
        for (i, key, policy) in &m.refs {
            let from = (p.clone(), *i);
            let mut targets: Vec<Key> = anchors
                .iter()
                .filter(|(n, k)| k == key && *n != from)
                .map(|(n, _)| n.clone())
                .collect();
            targets.sort();
            targets.dedup();
            if targets.is_empty() || (*policy == LinkPolicy::Unique && targets.len() > 1) {
                continue;
            }
            for t in targets {
                out.insert((from.clone(), EdgeKind::Invokes, t));
            }
        }
    }
    out
}

fn check(store: &Store, model: &BTreeMap<String, ProductModel>) -> Result<(), TestCaseError> {
    let snap = store.snapshot();
    let products: Vec<(String, String, u64)> = snap
        .products()
        .into_iter()
        .map(|p| (p.name, p.area, p.node_count))
        .collect();
    let expected: Vec<(String, String, u64)> = model
        .iter()
        .map(|(p, m)| (p.clone(), m.area.clone(), m.nodes.len() as u64))
        .collect();
    prop_assert_eq!(products, expected);

    let mut id_of: BTreeMap<Key, NodeId> = BTreeMap::new();
    let mut key_of: BTreeMap<NodeId, Key> = BTreeMap::new();
    for (p, m) in model {
        for i in 0..m.nodes.len() {
            let ids = snap.find_by_fqn(&fqn(p, m.run, i)).expect("name lookup");
            prop_assert_eq!(ids.len(), 1, "{} found {:?}", fqn(p, m.run, i), ids);
            id_of.insert((p.clone(), i), ids[0]);
            key_of.insert(ids[0], (p.clone(), i));
        }
        if m.run > 0 {
            let stale = snap.find_by_fqn(&fqn(p, m.run - 1, 0)).expect("name lookup");
            prop_assert!(stale.is_empty(), "a replaced run's name is still found");
        }
    }
    prop_assert_eq!(snap.live().len() as usize, id_of.len());

    // A prefix search and a simple name, each across every served run.
    for (p, m) in model {
        let found: BTreeSet<NodeId> = snap
            .find_by_prefix(&format!("{p}.r{}.", m.run), usize::MAX)
            .expect("prefix search")
            .into_iter()
            .collect();
        let expected: BTreeSet<NodeId> = (0..m.nodes.len()).map(|i| id_of[&(p.clone(), i)]).collect();
        prop_assert_eq!(found, expected, "prefix search of {}", p);
    }
    let with_a_first_node = model.values().filter(|m| !m.nodes.is_empty()).count();
    prop_assert_eq!(
        snap.find_by_name("n0").expect("simple name").len(),
        with_a_first_node
    );

    // Every node record reads back as written.
    let ids: Vec<NodeId> = id_of.values().copied().collect();
    for (node, id) in snap.nodes(&ids).expect("batched read").into_iter().zip(&ids) {
        let node = node.expect("live node has a record");
        let (p, i) = &key_of[id];
        prop_assert_eq!(node.kind, model[p].nodes[*i]);
        let want = fqn(p, model[p].run, *i);
        prop_assert_eq!(node.fqn.as_deref(), Some(want.as_str()));
    }

    let mut expected_edges: BTreeSet<(Key, EdgeKind, Key)> = expected_links(model);
    for (p, m) in model {
        for &(a, b, k) in &m.edges {
            expected_edges.insert(((p.clone(), a), k, (p.clone(), b)));
        }
    }
    let adj = snap.adjacency();
    let mut actual_out = BTreeSet::new();
    let mut actual_in = BTreeSet::new();
    for (key, &id) in &id_of {
        for (kind, to) in adj.edges(id, Direction::Out) {
            actual_out.insert((key.clone(), kind, key_of[&to].clone()));
        }
        for (kind, from) in adj.edges(id, Direction::In) {
            actual_in.insert((key_of[&from].clone(), kind, key.clone()));
        }
    }
    prop_assert_eq!(&actual_out, &expected_edges);
    prop_assert_eq!(&actual_in, &expected_edges, "in-adjacency is the transpose");
    // A node's unlinked references, found by binary search, are those a scan finds.
    for &id in id_of.values() {
        let scanned: Vec<_> = snap.unlinked().iter().filter(|r| r.from == id.0).collect();
        let searched: Vec<_> = snap.unlinked_of(id).iter().collect();
        prop_assert_eq!(searched, scanned);
    }

    for &kind in KINDS {
        let got: BTreeSet<Key> = snap
            .nodes_of_kind(kind)
            .iter()
            .map(|id| key_of[&NodeId(id)].clone())
            .collect();
        let want: BTreeSet<Key> = model
            .iter()
            .flat_map(|(p, m)| {
                m.nodes
                    .iter()
                    .enumerate()
                    .filter(move |(_, k)| **k == kind)
                    .map(move |(i, _)| (p.clone(), i))
            })
            .collect();
        prop_assert_eq!(got, want);
    }
    Ok(())
}

fn apply(store: &Store, model: &mut BTreeMap<String, ProductModel>, op: &Op) {
    match op {
        Op::Reopen => unreachable!("reopen is applied by the test itself"),
        Op::Index {
            product,
            area,
            nodes,
            edges,
            anchors,
            refs,
            commit,
        } => {
            let name = PRODUCTS[*product];
            let run = model.get(name).map(|m| m.run + 1).unwrap_or(0);
            let mut w = store.begin(name, AREAS[*area]).expect("begin");
            let ids: Vec<NodeId> = nodes
                .iter()
                .enumerate()
                .map(|(i, &k)| {
                    w.add_node(NewNode::new(KINDS[k], format!("n{i}")).fqn(fqn(name, run, i)))
                        .expect("add node")
                })
                .collect();
            let mut m = ProductModel {
                area: AREAS[*area].to_string(),
                run,
                nodes: nodes.iter().map(|&k| KINDS[k]).collect(),
                ..ProductModel::default()
            };
            if !ids.is_empty() {
                for &(a, b, k) in edges {
                    w.add_edge(ids[a], EDGE_KINDS[k], ids[b]).expect("add edge");
                    m.edges.insert((a, b, EDGE_KINDS[k]));
                }
                for &(a, k) in anchors {
                    let key = format!("key{k}");
                    w.add_anchor(ids[a], &key).expect("anchor");
                    m.anchors.push((a, key));
                }
                for &(a, k, all) in refs {
                    let key = format!("key{k}");
                    let policy = if all { LinkPolicy::All } else { LinkPolicy::Unique };
                    w.add_link(ids[a], EdgeKind::Invokes, &key, policy).expect("link");
                    m.refs.push((a, key, policy));
                }
            }
            if *commit {
                w.commit().expect("commit");
                model.insert(name.to_string(), m);
            } else {
                drop(w);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn store_serves_exactly_the_committed_model(
        ops in prop::collection::vec(op(), 1..7),
        staging in prop_oneof![Just(256usize), Just(4_096), Just(StoreOptions::default().staging_bytes)],
        serves_queries in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        // A store that serves no questions (an indexing process) keeps no adjacency: what
        // it wrote is then checked from a reader opened beside it.
        let options = StoreOptions { serves_queries, ..options(staging) };
        let mut store = Store::open_with_options(dir.path(), &options).expect("open");
        let mut model: BTreeMap<String, ProductModel> = BTreeMap::new();
        for op in &ops {
            if let Op::Reopen = op {
                drop(std::mem::replace(&mut store, Store::open_read_only(dir.path()).expect("ro")));
                store = Store::open_with_options(dir.path(), &options).expect("reopen");
            } else {
                apply(&store, &mut model, op);
            }
            if serves_queries {
                check(&store, &model)?;
            } else {
                check(&Store::open_read_only(dir.path()).expect("reader"), &model)?;
            }
        }
    }
}

#[test]
fn a_second_writer_is_refused_while_one_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let w = store.begin("alpha", "north").expect("first writer");
    let err = store.begin("beta", "north").expect_err("second writer");
    assert!(err.to_string().contains("already in progress"), "{err}");
    drop(w);
    store
        .begin("beta", "north")
        .expect("writer free again after abort");
}

#[test]
fn an_edge_to_another_runs_node_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let mut w = store.begin("alpha", "north").expect("begin");
    let a = w.add_node(NewNode::new(NodeKind::Method, "a")).expect("node");
    w.commit().expect("commit");
    let mut w = store.begin("beta", "north").expect("begin");
    let b = w.add_node(NewNode::new(NodeKind::Method, "b")).expect("node");
    let err = w.add_edge(b, EdgeKind::Calls, a).expect_err("foreign node");
    assert!(err.to_string().contains("outside this index run"), "{err}");
}

#[test]
fn a_snapshot_keeps_its_generation_across_a_reindex() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open");
    let mut w = store.begin("alpha", "north").expect("begin");
    let old = w
        .add_node(NewNode::new(NodeKind::Method, "old").fqn("a.old"))
        .expect("node");
    w.commit().expect("commit");
    let before = store.snapshot();
    let mut w = store.begin("alpha", "north").expect("begin");
    w.add_node(NewNode::new(NodeKind::Method, "new").fqn("a.new"))
        .expect("node");
    w.commit().expect("commit");
    // A third run would reuse freed ids only once `before` is dropped.
    let mut w = store.begin("alpha", "north").expect("begin");
    w.add_node(NewNode::new(NodeKind::Method, "newer").fqn("a.newer"))
        .expect("node");
    w.commit().expect("commit");
    let node = before
        .node(old)
        .expect("read")
        .expect("still there for the old snapshot");
    assert_eq!(node.fqn.as_deref(), Some("a.old"));
    assert_eq!(before.find_by_fqn("a.old").expect("lookup"), vec![old]);
    let now = store.snapshot();
    assert!(now.find_by_fqn("a.old").expect("lookup").is_empty());
    assert_eq!(now.find_by_fqn("a.newer").expect("lookup").len(), 1);
}

#[test]
fn flag_sets_follow_the_served_generation_and_survive_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let test_fqns = |store: &Store| -> BTreeSet<String> {
        let snap = store.snapshot();
        let ids: Vec<NodeId> = snap.nodes_with_flag(NodeFlags::TEST).iter().map(NodeId).collect();
        snap.nodes(&ids)
            .expect("read")
            .into_iter()
            .flatten()
            .filter_map(|n| n.fqn)
            .collect()
    };
    {
        let store = Store::open(dir.path()).expect("open");
        for (product, area) in [("alpha", "north"), ("beta", "south")] {
            let mut w = store.begin(product, area).expect("begin");
            w.add_node(NewNode::new(NodeKind::Method, "prod").fqn(format!("{product}.prod")))
                .expect("node");
            w.add_node(
                NewNode::new(NodeKind::Method, "check")
                    .fqn(format!("{product}.check"))
                    .flags(NodeFlags::TEST | NodeFlags::PUBLIC),
            )
            .expect("node");
            w.commit().expect("commit");
        }
        assert_eq!(
            test_fqns(&store),
            BTreeSet::from(["alpha.check".to_string(), "beta.check".to_string()])
        );
        // Re-indexing alpha without its test drops it from the set; beta's stays.
        let mut w = store.begin("alpha", "north").expect("begin");
        w.add_node(NewNode::new(NodeKind::Method, "prod").fqn("alpha.prod"))
            .expect("node");
        w.commit().expect("commit");
        assert_eq!(test_fqns(&store), BTreeSet::from(["beta.check".to_string()]));
        assert_eq!(store.snapshot().nodes_with_flag(NodeFlags::PUBLIC).len(), 1);
    }
    let store = Store::open(dir.path()).expect("reopen");
    assert_eq!(test_fqns(&store), BTreeSet::from(["beta.check".to_string()]));
    assert!(store
        .snapshot()
        .nodes_with_flag(NodeFlags::TEST | NodeFlags::PUBLIC)
        .is_empty());
}

/// One product written through a staging budget of 2 KiB (dozens of staged files per
/// column family: adjacency lists and named sets as merge operands over earlier files,
/// content and edge facts written twice) reads back exactly as through the default budget.
#[test]
fn a_run_spread_over_many_staged_files_reads_back_whole() {
    fn write(store: &Store) {
        let mut w = store.begin("alpha", "north").expect("begin");
        let ids: Vec<NodeId> = (0..300)
            .map(|i| {
                w.add_node(NewNode::new(NodeKind::Method, format!("m{i}")).fqn(format!("alpha.T.m{i}")))
                    .expect("node")
            })
            .collect();
        for (i, &id) in ids.iter().enumerate() {
            w.add_edge(id, EdgeKind::Calls, ids[(i * 7 + 1) % ids.len()])
                .expect("edge");
            w.add_edge_with(
                id,
                EdgeKind::Calls,
                ids[(i * 13 + 5) % ids.len()],
                &EdgeAttrs {
                    lines: vec![i as u32],
                    via: None,
                },
            )
            .expect("edge with facts");
            w.set_content(id, ContentKind::Source, &format!("first {i}"))
                .expect("content");
            w.add_to_set(if i % 2 == 0 { "even" } else { "odd" }, id)
                .expect("set");
        }
        // Written again late: the later write wins, the later members join.
        for (i, &id) in ids.iter().enumerate().step_by(3) {
            w.set_content(id, ContentKind::Source, &format!("second {i}"))
                .expect("content");
            w.add_to_set("thirds", id).expect("set");
            w.add_edge(id, EdgeKind::Calls, ids[(i + 2) % ids.len()])
                .expect("edge");
        }
        w.add_anchor(ids[0], "entry").expect("anchor");
        w.commit().expect("commit");
    }
    type Read = (
        Vec<(String, Vec<String>, Vec<String>)>,
        Vec<Option<String>>,
        Vec<Vec<u64>>,
    );
    fn read(store: &Store) -> Read {
        let snap = store.snapshot();
        let ids: Vec<NodeId> = snap.product_nodes("alpha").iter().map(NodeId).collect();
        let nodes = snap.nodes(&ids).expect("nodes");
        let name = |id: NodeId| {
            nodes[ids.iter().position(|&i| i == id).expect("own")]
                .as_ref()
                .expect("record")
                .name
                .clone()
        };
        let mut lists = Vec::new();
        let mut content = Vec::new();
        for &id in &ids {
            let mut out: Vec<String> = snap
                .adjacency()
                .edges(id, Direction::Out)
                .map(|(_, n)| name(n))
                .collect();
            let mut inc: Vec<String> = snap
                .adjacency()
                .edges(id, Direction::In)
                .map(|(_, n)| name(n))
                .collect();
            out.sort();
            inc.sort();
            lists.push((name(id), out, inc));
            content.push(snap.content(id, ContentKind::Source).expect("content"));
            assert_eq!(
                snap.find_by_fqn(&format!("alpha.T.{}", name(id))).expect("fqn"),
                vec![id]
            );
        }
        let sets = ["even", "odd", "thirds"]
            .iter()
            .map(|s| {
                let members = snap.named_set("alpha", s).expect("set");
                vec![members.len()]
            })
            .collect();
        (lists, content, sets)
    }
    let small = tempfile::tempdir().expect("tempdir");
    let store = Store::open_with_options(small.path(), &options(2_048)).expect("open");
    write(&store);
    let spread = read(&store);
    let big = tempfile::tempdir().expect("tempdir");
    let reference = Store::open(big.path()).expect("open");
    write(&reference);
    assert_eq!(spread, read(&reference));
    assert_eq!(spread.2, vec![vec![150], vec![150], vec![100]]);
    assert!(spread
        .1
        .iter()
        .step_by(3)
        .all(|c| c.as_deref().is_some_and(|c| c.starts_with("second"))));
    // And again after a reopen, from disk only.
    drop(store);
    let store = Store::open_with_options(small.path(), &options(2_048)).expect("reopen");
    assert_eq!(spread, read(&store));
}

/// A process that only writes reads no link declaration at open; the commit after a
/// reopen reads those of the other products, and links to and from the product it
/// replaces are resolved as before — from either side of the link.
#[test]
fn a_writer_reopened_links_the_product_it_replaces_to_the_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let writer = StoreOptions {
        serves_queries: false,
        ..StoreOptions::default()
    };
    let anchors = Op::Index {
        product: 0,
        area: 0,
        nodes: vec![0, 0, 1],
        edges: vec![(0, 1, 0)],
        anchors: vec![(0, 1), (2, 2)],
        refs: vec![],
        commit: true,
    };
    let refs = |product: usize| Op::Index {
        product,
        area: 1,
        nodes: vec![0, 0],
        edges: vec![],
        anchors: vec![(1, 3 + product)],
        refs: vec![(0, 1, false), (1, 2, true)],
        commit: true,
    };
    let back = Op::Index {
        product: 0,
        area: 0,
        nodes: vec![0, 1],
        edges: vec![],
        anchors: vec![(0, 1), (1, 2)],
        // beta's anchor
        refs: vec![(0, 4, false)],
        commit: true,
    };
    let mut model: BTreeMap<String, ProductModel> = BTreeMap::new();
    for (i, op) in [anchors, refs(1), refs(2), refs(1), back].iter().enumerate() {
        // Every run in a process of its own, as `semgraph index` runs them.
        let store = Store::open_with_options(dir.path(), &writer).expect("open");
        apply(&store, &mut model, op);
        drop(store);
        check(&Store::open_read_only(dir.path()).expect("reader"), &model)
            .unwrap_or_else(|e| panic!("after run {i}: {e}"));
    }
    assert!(
        expected_links(&model).len() >= 5,
        "the runs link alpha, beta and gamma both ways: {:?}",
        expected_links(&model)
    );
}
