//! Property tests: on random graphs in a real store, the traversal kernels and the callers
//! and impact answers equal a naive reference written here from the definitions.
//!
//! The reference reads a plain edge list: a caller of `m` is a method that calls `m`, or
//! calls a method `m` overrides or implements (interface dispatch), or calls over HTTP an
//! endpoint `m` serves. Each method counts once, at its shortest distance.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use roaring::RoaringBitmap;
use semgraph_queries::{blast_radius, execute, reached_entry_points, Caller, Request};
use semgraph_storage::{EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, Store};

#[derive(Clone, Debug)]
struct Graph {
    methods: usize,
    endpoints: usize,
    tables: usize,
    calls: Vec<(usize, usize)>,
    overrides: Vec<(usize, usize, bool)>,
    serves: Vec<(usize, usize)>,
    http: Vec<(usize, usize)>,
    writes: Vec<(usize, usize)>,
    seed: usize,
    depth: u32,
}

fn graph() -> impl Strategy<Value = Graph> {
    (4usize..24, 1usize..5, 1usize..4).prop_flat_map(|(m, e, t)| {
        (
            proptest::collection::vec((0..m, 0..m), 0..m * 3),
            proptest::collection::vec((0..m, 0..m, any::<bool>()), 0..m / 2 + 1),
            proptest::collection::vec((0..e, 0..m), 0..e + 1),
            proptest::collection::vec((0..m, 0..e), 0..4),
            proptest::collection::vec((0..m, 0..t), 0..m),
            0..m,
            1u32..5,
        )
            .prop_map(
                move |(calls, overrides, serves, http, writes, seed, depth)| Graph {
                    methods: m,
                    endpoints: e,
                    tables: t,
                    calls,
                    overrides,
                    serves,
                    http,
                    writes,
                    seed,
                    depth,
                },
            )
    })
}

/// Methods `0..m/2` are in product `a`, the rest in `b`; endpoints and tables are in `a`;
/// each HTTP call sits in its caller's product and reaches its endpoint through a link.
struct Built {
    _dir: tempfile::TempDir,
    store: Store,
    method_ids: Vec<u32>,
    endpoint_ids: Vec<u32>,
}

fn product_of(g: &Graph, m: usize) -> usize {
    usize::from(m >= g.methods / 2)
}

/// Endpoints live in product `a` and serve handlers of `a` only.
fn serves(g: &Graph) -> Vec<(usize, usize)> {
    g.serves
        .iter()
        .copied()
        .filter(|&(_, m)| product_of(g, m) == 0)
        .collect()
}

fn build(g: &Graph) -> Built {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let mut method_ids = vec![0u32; g.methods];
    let mut endpoint_ids = vec![0u32; g.endpoints];
    for (p, name) in ["a", "b"].iter().enumerate() {
        let mut w = store.begin(name, &format!("area-{name}")).expect("begin");
        let mut local: BTreeMap<usize, NodeId> = BTreeMap::new();
        for m in (0..g.methods).filter(|&m| product_of(g, m) == p) {
            let id = w
                .add_node(
                    NewNode::new(NodeKind::Method, format!("m{m}"))
                        .fqn(format!("{name}.T.m{m}"))
                        .attr("signature", format!("m{m}()")),
                )
                .expect("node");
            local.insert(m, id);
        }
        let mut eps = BTreeMap::new();
        let mut tables = BTreeMap::new();
        if p == 0 {
            for e in 0..g.endpoints {
                let id = w
                    .add_node(
                        NewNode::new(NodeKind::Endpoint, format!("GET /e{e}"))
                            .attr("verb", "GET")
                            .attr("path", format!("/e{e}")),
                    )
                    .expect("endpoint");
                w.add_anchor(id, format!("ep:{e}")).expect("anchor");
                eps.insert(e, id);
            }
            for t in 0..g.tables {
                let id = w
                    .add_node(NewNode::new(NodeKind::Table, format!("t{t}")).fqn(format!("t{t}")))
                    .expect("table");
                tables.insert(t, id);
            }
        }
        let mut seen = BTreeSet::new();
        for &(a, b) in &g.calls {
            if let (Some(&x), Some(&y)) = (local.get(&a), local.get(&b)) {
                if seen.insert((a, b)) {
                    w.add_edge(x, EdgeKind::Calls, y).expect("edge");
                }
            } else if let Some(&x) = local.get(&a) {
                // A call across products is a link to the target's anchor.
                if seen.insert((a, b)) {
                    w.add_link(x, EdgeKind::Calls, &format!("m:{b}"), LinkPolicy::Unique)
                        .expect("link");
                }
            }
        }
        for (&m, &id) in &local {
            w.add_anchor(id, format!("m:{m}")).expect("anchor");
        }
        for &(a, b, implements) in &g.overrides {
            if let (Some(&x), Some(&y)) = (local.get(&a), local.get(&b)) {
                if a != b {
                    let kind = if implements {
                        EdgeKind::Implements
                    } else {
                        EdgeKind::Overrides
                    };
                    w.add_edge(x, kind, y).expect("edge");
                }
            }
        }
        for &(e, m) in &g.serves {
            if let Some(&id) = local.get(&m) {
                // Handlers may live in either product: the endpoint serves through a link.
                if let Some(&ep) = eps.get(&e) {
                    w.add_edge(ep, EdgeKind::Serves, id).expect("serves");
                }
            }
        }
        for (i, &(m, e)) in g.http.iter().enumerate() {
            if let Some(&caller) = local.get(&m) {
                let call = w
                    .add_node(NewNode::new(NodeKind::HttpCall, format!("GET /e{e} #{i}")).attr("verb", "GET"))
                    .expect("call");
                w.add_edge(caller, EdgeKind::Calls, call).expect("edge");
                w.add_link(call, EdgeKind::Invokes, &format!("ep:{e}"), LinkPolicy::Unique)
                    .expect("link");
            }
        }
        for &(m, t) in &g.writes {
            if let (Some(&x), Some(&y)) = (local.get(&m), tables.get(&t)) {
                w.add_edge(x, EdgeKind::Writes, y).expect("edge");
            }
        }
        // Writes from product b to a's tables go through links.
        for &(m, t) in &g.writes {
            if p == 1 {
                if let Some(&x) = local.get(&m) {
                    w.add_link(x, EdgeKind::Writes, &format!("t:{t}"), LinkPolicy::Unique)
                        .expect("link");
                }
            }
        }
        for (&t, &id) in &tables {
            w.add_anchor(id, format!("t:{t}")).expect("anchor");
        }
        w.commit().expect("commit");
        for (m, id) in local {
            method_ids[m] = id.0;
        }
        for (e, id) in eps {
            endpoint_ids[e] = id.0;
        }
    }
    Built {
        _dir: dir,
        store,
        method_ids,
        endpoint_ids,
    }
}

/// The reference: layers of callers from the definitions, over indices.
fn reference_layers(g: &Graph, seed: usize, depth: u32) -> Vec<BTreeSet<usize>> {
    let calls: BTreeSet<(usize, usize)> = g.calls.iter().copied().collect();
    let parents: BTreeSet<(usize, usize)> = g
        .overrides
        .iter()
        .filter(|(a, b, _)| a != b && product_of(g, *a) == product_of(g, *b))
        .map(|(a, b, _)| (*a, *b))
        .collect();
    let callers_of = |m: usize| -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        for &(c, t) in &calls {
            if t == m || parents.contains(&(m, t)) {
                out.insert(c);
            }
        }
        for &(e, h) in &serves(g) {
            if h == m {
                for &(c, target) in &g.http {
                    if target == e {
                        out.insert(c);
                    }
                }
            }
        }
        out
    };
    let mut seen = BTreeSet::from([seed]);
    let mut frontier = BTreeSet::from([seed]);
    let mut layers = Vec::new();
    for _ in 0..depth {
        let mut next = BTreeSet::new();
        for &m in &frontier {
            for c in callers_of(m) {
                if seen.insert(c) {
                    next.insert(c);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        layers.push(next.clone());
        frontier = next;
    }
    layers
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20))]

    #[test]
    fn callers_blast_radius_entry_points_and_tables_match_the_reference(g in graph()) {
        let built = build(&g);
        let snap = built.store.snapshot();
        let want = reference_layers(&g, g.seed, g.depth);
        let seeds: RoaringBitmap = [built.method_ids[g.seed]].into_iter().collect();
        let got = blast_radius(snap.adjacency(), &seeds, g.depth);
        let index: BTreeMap<u32, usize> = built.method_ids.iter().enumerate().map(|(i, &id)| (id, i)).collect();
        let got_idx: Vec<BTreeSet<usize>> = got.iter().map(|l| l.iter().filter_map(|id| index.get(&id).copied()).collect()).collect();
        prop_assert_eq!(&got_idx, &want, "blast radius per depth");

        // Entry points: endpoints served by the seed or any method of the radius.
        let mut all = seeds.clone();
        for l in &got { all |= l; }
        let reach: BTreeSet<usize> = want.iter().flatten().copied().chain([g.seed]).collect();
        let want_eps: BTreeSet<u32> = serves(&g).iter().filter(|(_, m)| reach.contains(m)).map(|(e, _)| built.endpoint_ids[*e]).collect();
        let got_eps: BTreeSet<u32> = reached_entry_points(snap.adjacency(), &all).iter().collect();
        prop_assert_eq!(&got_eps, &want_eps, "entry points reached");

        // The same through the public answers: callers by depth, impact's endpoints and tables.
        let fqn = format!("{}.T.m{}", if product_of(&g, g.seed) == 0 { "a" } else { "b" }, g.seed);
        let caller = Caller::full_access();
        let doc = execute(&snap, &caller, &Request::new("code", "callers", [("fqn", fqn.as_str()), ("depth", &g.depth.to_string())])).expect("callers");
        let mut by_depth: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); want.len()];
        for row in doc.json_value()["rows"].as_array().cloned().unwrap_or_default() {
            let d = row["depth"].as_u64().unwrap_or(0) as usize;
            let name = row["method"]["name"].as_str().unwrap_or("");
            let m: usize = name.trim_start_matches('m').parse().unwrap_or(usize::MAX);
            prop_assert!(d >= 1 && d <= want.len(), "depth {} out of range", d);
            by_depth[d - 1].insert(m);
        }
        prop_assert_eq!(&by_depth, &want, "callers document per depth");

        let doc = execute(&snap, &caller, &Request::new("recipes", "impact", [("target", fqn.as_str()), ("depth", &g.depth.to_string())])).expect("impact");
        let got_names: BTreeSet<String> = doc.json_value()["endpoints"].as_array().cloned().unwrap_or_default().iter().filter_map(|e| e["name"].as_str().map(str::to_string)).collect();
        // Impact searches entry points to depth 8 whatever the listing depth.
        let reach_deep: BTreeSet<usize> = reference_layers(&g, g.seed, 8).into_iter().flatten().chain([g.seed]).collect();
        let want_names: BTreeSet<String> = serves(&g).iter().filter(|(_, m)| reach_deep.contains(m)).map(|(e, _)| format!("GET /e{e}")).collect();
        prop_assert_eq!(&got_names, &want_names, "impact endpoints");
        let got_tables: BTreeSet<String> = doc.json_value()["tables_written"].as_array().cloned().unwrap_or_default().iter().filter_map(|t| t["table"].as_str().map(str::to_string)).collect();
        let want_tables: BTreeSet<String> = g.writes.iter().filter(|(m, _)| reach.contains(m)).map(|(_, t)| format!("t{t}")).collect();
        prop_assert_eq!(&got_tables, &want_tables, "impact tables written");
    }
}

/// A caller in another service reached over HTTP one level past the depth asked is still
/// listed by impact (its entry-point search goes on past `depth`, and keeps what such a
/// caller reaches), while the callers within the depth keep what they call.
#[test]
fn impact_lists_an_http_caller_found_past_the_depth_asked() {
    // m1 calls the seed m0 and is the handler of GET /e0; m3 (product b) calls GET /e0.
    let g = Graph {
        methods: 4,
        endpoints: 1,
        tables: 1,
        calls: vec![(1, 0)],
        overrides: Vec::new(),
        serves: vec![(0, 1)],
        http: vec![(3, 0)],
        writes: Vec::new(),
        seed: 0,
        depth: 1,
    };
    let built = build(&g);
    let snap = built.store.snapshot();
    let caller = Caller::full_access();
    let doc = execute(
        &snap,
        &caller,
        &Request::new("recipes", "impact", [("target", "a.T.m0"), ("depth", "1")]),
    )
    .expect("impact");
    let json = doc.json_value();
    let callers: Vec<(String, String)> = json["callers"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            (
                r["method"]["name"].as_str().unwrap_or("").to_string(),
                r["calls"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(callers.len(), 1, "{json}");
    assert_eq!(callers[0].0, "m1", "{json}");
    assert!(
        callers[0].1.contains("m0"),
        "m1's row says it calls the seed: {json}"
    );
    let over_http: Vec<String> = json["other_products"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            format!(
                "{} -> {}",
                r["caller"].as_str().unwrap_or(""),
                r["endpoint"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(over_http.len(), 1, "{json}");
    assert!(
        over_http[0].contains("m3") && over_http[0].contains("GET /e0"),
        "{over_http:?}"
    );
}
