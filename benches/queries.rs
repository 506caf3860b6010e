//! Query benchmark: primitives and recipes on a synthetic company at scale, rendering
//! included (what an agent waits for, minus HTTP).
//!
//! Builds the scale generator's company (default 1M methods, 10M calls, 10 products) and
//! prints median and p99 latency of `code/callers` (depth 1), `recipes/impact` (depth 3)
//! from random methods, each through `semgraph_queries::execute` (resolve, traverse, load,
//! render markdown and JSON); then `recipes/status-snapshot` on a company of 50 products.
//!
//! ```text
//! cargo bench --bench queries
//! cargo bench --bench queries -- --methods 100000 --calls 1000000 --samples 200
//! ```

mod support;

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use semgraph::scale::{load_company, CompanySpec};
use semgraph_queries::{execute, Caller, Request};
use semgraph_storage::{NodeId, NodeKind, Snapshot, Store};
use support::{ms, percentile};

fn time(
    snap: &Snapshot,
    samples: usize,
    mut request: impl FnMut(usize) -> Request,
) -> (Vec<Duration>, usize) {
    let caller = Caller::full_access();
    let mut times = Vec::with_capacity(samples);
    let mut chars = 0;
    for i in 0..samples {
        let r = request(i);
        let started = Instant::now();
        let doc = execute(snap, &caller, &r).expect("query answers");
        times.push(started.elapsed());
        chars += doc.markdown.len();
    }
    times.sort();
    (times, chars / samples.max(1))
}

fn report(name: &str, times: &[Duration], chars: usize) {
    println!(
        "{name}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} samples, {chars} chars per document)",
        ms(percentile(times, 0.5)),
        ms(percentile(times, 0.99)),
        ms(percentile(times, 1.0)),
        times.len()
    );
}

fn main() {
    let methods: u64 = support::arg("--methods", 1_000_000);
    let calls: u64 = support::arg("--calls", 10_000_000);
    let products: u32 = support::arg("--products", 10);
    let samples: usize = support::arg("--samples", 300);

    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let started = Instant::now();
    load_company(&store, &CompanySpec::new(products, methods, calls)).expect("load");
    let snap = store.snapshot();
    println!(
        "company: {} nodes, {} edges, {products} products, loaded in {:.1} s",
        snap.live().len(),
        snap.adjacency().edge_count(),
        started.elapsed().as_secs_f64()
    );
    let ids: Vec<u32> = snap.nodes_of_kind(NodeKind::Method).iter().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let picks: Vec<NodeId> = (0..samples)
        .map(|_| NodeId(ids[rng.random_range(0..ids.len())]))
        .collect();
    let fqns: Vec<String> = snap
        .nodes(&picks)
        .expect("read")
        .into_iter()
        .flatten()
        .filter_map(|n| n.fqn)
        .collect();
    let n = fqns.len();

    let (t, c) = time(&snap, n, |i| {
        Request::new("code", "callers", [("fqn", fqns[i].as_str())])
    });
    report("callers (depth 1, markdown + JSON)", &t, c);
    let (t, c) = time(&snap, n, |i| {
        Request::new(
            "recipes",
            "impact",
            [("target", fqns[i].as_str()), ("depth", "3")],
        )
    });
    report("impact (depth 3, markdown + JSON)", &t, c);
    drop(snap);
    drop(store);

    let dir50 = tempfile::tempdir().expect("tempdir");
    let store50 = Store::open(dir50.path()).expect("store");
    let mut spec = CompanySpec::new(50, 200_000, 1_000_000);
    spec.endpoints_per_product = 50;
    load_company(&store50, &spec).expect("load 50 products");
    let snap50 = store50.snapshot();
    let (t, c) = time(&snap50, 50, |_| {
        Request::new("recipes", "status-snapshot", Vec::<(String, String)>::new())
    });
    report("status-snapshot (50 products)", &t, c);
    println!("peak RSS: {:.0} MB", support::peak_rss_mb());
}
