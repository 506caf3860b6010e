//! Storage benchmark: bulk load, batched node reads, neighbour lookups, reverse BFS.
//!
//! Builds a synthetic company (see `semgraph_testkit::scale`) into a fresh store and prints:
//! bulk load rate (edges/s), node batch-read rate, neighbour-lookup rate, depth-3 and
//! depth-5 reverse BFS latency from random seeds (median, p99, nodes reached), peak RSS,
//! in-memory adjacency bytes per edge, and bytes on disk per node and per edge — for a
//! power-law call graph with hubs and for a uniform random one.
//!
//! Run (release; the default is 1M methods and 10M calls in 10 products):
//!
//! ```text
//! cargo bench --bench storage
//! cargo bench --bench storage -- --methods 100000 --calls 1000000 --shape uniform
//! ```

mod support;

use support::{ms, percentile};

use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use roaring::RoaringBitmap;
use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Store};
use semgraph_testkit::scale::{load_company, CallShape, CompanySpec};

struct Args {
    methods: u64,
    calls: u64,
    products: u32,
    shapes: Vec<CallShape>,
    samples: usize,
}

fn parse_args() -> Args {
    let shapes = match support::arg("--shape", String::new()).as_str() {
        "uniform" => vec![CallShape::Uniform],
        "powerlaw" => vec![CallShape::PowerLaw],
        _ => vec![CallShape::PowerLaw, CallShape::Uniform],
    };
    Args {
        methods: support::arg("--methods", 1_000_000),
        calls: support::arg("--calls", 10_000_000),
        products: support::arg("--products", 10),
        shapes,
        samples: support::arg("--samples", 300),
    }
}

fn bench_shape(args: &Args, shape: CallShape) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("open store");
    let mut spec = CompanySpec::new(args.products, args.methods, args.calls);
    spec.shape = shape;
    let started = Instant::now();
    let report = load_company(&store, &spec).expect("load");
    let load = started.elapsed();
    let snap = store.snapshot();
    let adj = snap.adjacency();
    println!("\n## {shape:?} call graph");
    println!(
        "graph: {} nodes, {} edges ({} links across products) in {} products",
        snap.live().len(),
        adj.edge_count(),
        report.links,
        args.products
    );
    println!(
        "bulk load: {:.2} s ({:.2} s in commits), {:.2} M edges/s, {:.2} M nodes/s (generate, write, commit, adjacency build)",
        load.as_secs_f64(),
        report.commit_secs,
        report.edges as f64 / load.as_secs_f64() / 1e6,
        report.nodes as f64 / load.as_secs_f64() / 1e6
    );
    println!(
        "in-memory adjacency: {:.1} MB, {:.2} bytes per edge (both directions, offsets included)",
        adj.heap_bytes() as f64 / 1e6,
        adj.heap_bytes() as f64 / adj.edge_count().max(1) as f64
    );

    let methods: Vec<u32> = snap.nodes_of_kind(NodeKind::Method).iter().collect();
    let mut rng = ChaCha8Rng::seed_from_u64(7);

    // Batched node reads.
    let batches = 200;
    let started = Instant::now();
    let mut read = 0usize;
    for _ in 0..batches {
        let ids: Vec<NodeId> = (0..1000)
            .map(|_| NodeId(methods[rng.random_range(0..methods.len())]))
            .collect();
        read += snap.nodes(&ids).expect("read").iter().flatten().count();
    }
    let t = started.elapsed();
    println!(
        "node batch reads: {:.0} k nodes/s ({} batches of 1000)",
        read as f64 / t.as_secs_f64() / 1e3,
        batches
    );

    // Neighbour lookups.
    let lookups = 2_000_000;
    let started = Instant::now();
    let mut total = 0usize;
    for _ in 0..lookups {
        let id = NodeId(methods[rng.random_range(0..methods.len())]);
        total += adj.neighbors(id, Direction::In, EdgeKind::Calls).len();
    }
    let t = started.elapsed();
    println!(
        "neighbour lookups: {:.1} M lookups/s (avg {:.1} callers)",
        lookups as f64 / t.as_secs_f64() / 1e6,
        total as f64 / lookups as f64
    );

    for depth in [3u32, 5] {
        let mut times = Vec::with_capacity(args.samples);
        let mut reached = Vec::with_capacity(args.samples);
        for _ in 0..args.samples {
            let seed = methods[rng.random_range(0..methods.len())];
            let seeds: RoaringBitmap = [seed].into_iter().collect();
            let started = Instant::now();
            let layers = adj.reach(&seeds, Direction::In, &[EdgeKind::Calls], depth);
            times.push(started.elapsed());
            reached.push(layers.iter().map(|l| l.len()).sum::<u64>());
        }
        times.sort();
        reached.sort();
        println!(
            "reverse BFS depth {depth}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms; reached median {}, p99 {}",
            ms(percentile(&times, 0.5)),
            ms(percentile(&times, 0.99)),
            ms(*times.last().unwrap_or(&Duration::ZERO)),
            reached[reached.len() / 2],
            reached[((reached.len() as f64 - 1.0) * 0.99) as usize]
        );
    }

    drop(snap);
    store.compact().expect("compact");
    let disk = store.disk_bytes().expect("disk size");
    println!(
        "on disk after compaction: {:.1} MB, {:.1} bytes per node, {:.2} bytes per edge (everything / edges)",
        disk as f64 / 1e6,
        disk as f64 / report.nodes.max(1) as f64,
        disk as f64 / report.edges.max(1) as f64
    );
    println!("peak RSS so far: {:.0} MB", support::peak_rss_mb());
}

fn main() {
    let args = parse_args();
    println!(
        "# semgraph storage benchmark: {} methods, {} calls, {} products",
        args.methods, args.calls, args.products
    );
    for &shape in &args.shapes.clone() {
        bench_shape(&args, shape);
    }
}
