//! Query benchmark: primitives and recipes on a synthetic company at scale, rendering
//! included (what an agent waits for, minus HTTP), cold and warm; and the graph kernels
//! the peer comparison (`benches/peers/`) runs on the same graph.
//!
//! Builds the scale generator's company (default 50 products, 2M methods, 20M calls,
//! hubs, endpoints, HTTP and Kafka boundaries, 5,000 tables; see `testkit/src/scale.rs`) and prints
//! median, p99 and max latency of `code/callers` (depth 1), `recipes/impact` (depth 3 and 6),
//! `recipes/table-analysis`, `recipes/endpoint-trace` and `recipes/status-snapshot`, each
//! through `semgraph_queries::execute` (resolve, traverse, load, render markdown and JSON).
//!
//! *Cold* is the first pass over the sampled targets on a freshly opened store (RocksDB's
//! block cache empty; the operating system's page cache is not dropped), *warm* the second
//! pass over the same targets.
//!
//! Kernels (`--kernels`, on by default): for the same random methods, the in-memory
//! reverse reachability over call edges at depth 1 (callers), 3 and 6, and the endpoints
//! whose handler is reached within 3 hops — exactly what the peers are asked.
//!
//! ```text
//! cargo bench --bench queries
//! cargo bench --bench queries -- --products 10 --methods 200000 --calls 2000000 --samples 100
//! cargo bench --bench queries -- --store /tmp/g2m --export /tmp/g2m-peers --json /tmp/q.json
//! ```
//!
//! `--store DIR` keeps the generated store and reuses it on the next run with the same
//! spec; `--export DIR` writes the call and serves edges, the sampled seeds and the kernel
//! answers as CSV/JSON for `benches/peers/peers.py`; `--json FILE` writes every figure;
//! `--only TEXT` runs only the queries whose name contains TEXT (`--kernels false` skips
//! the kernels).

mod support;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use roaring::RoaringBitmap;
use semgraph_queries::{execute, Caller, Request};
use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Snapshot, Store};
use semgraph_testkit::scale::{load_company, CompanySpec};
use support::{ms, percentile};

/// A graph kernel the peers are asked too: its key in the export, its name, and the
/// question (a seed method to an answer).
type Kernel<'a> = (&'static str, &'static str, Box<dyn Fn(u32) -> u64 + 'a>);

/// One measured query: latencies sorted ascending.
struct Figure {
    name: String,
    times: Vec<Duration>,
    chars: usize,
}

impl Figure {
    fn line(&self) -> String {
        format!(
            "{}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms ({} samples, {} chars per document)",
            self.name,
            ms(percentile(&self.times, 0.5)),
            ms(percentile(&self.times, 0.99)),
            ms(percentile(&self.times, 1.0)),
            self.times.len(),
            self.chars
        )
    }

    fn json(&self) -> String {
        format!(
            "{{\"name\":{:?},\"median_ms\":{:.4},\"p99_ms\":{:.4},\"max_ms\":{:.4},\"samples\":{},\"chars\":{}}}",
            self.name,
            ms(percentile(&self.times, 0.5)),
            ms(percentile(&self.times, 0.99)),
            ms(percentile(&self.times, 1.0)),
            self.times.len(),
            self.chars
        )
    }
}

fn time_requests(name: &str, snap: &Snapshot, requests: &[Request]) -> Figure {
    let caller = Caller::full_access();
    let mut times = Vec::with_capacity(requests.len());
    let mut chars = 0;
    for r in requests {
        let started = Instant::now();
        let doc = execute(snap, &caller, r).expect("query answers");
        times.push(started.elapsed());
        chars += doc.markdown.len();
    }
    times.sort();
    Figure {
        name: name.to_string(),
        chars: chars / requests.len().max(1),
        times,
    }
}

fn time_kernel(name: &str, seeds: &[u32], mut f: impl FnMut(u32) -> u64) -> (Figure, Vec<u64>) {
    let mut times = Vec::with_capacity(seeds.len());
    let mut answers = Vec::with_capacity(seeds.len());
    for &s in seeds {
        let started = Instant::now();
        let n = f(s);
        times.push(started.elapsed());
        answers.push(n);
    }
    times.sort();
    (
        Figure {
            name: name.to_string(),
            times,
            chars: 0,
        },
        answers,
    )
}

/// Distinct callers reached within `depth` hops over call edges, the seed excluded.
fn reverse_reach(snap: &Snapshot, seed: u32, depth: u32) -> RoaringBitmap {
    let seeds: RoaringBitmap = [seed].into_iter().collect();
    let mut all = RoaringBitmap::new();
    for layer in snap
        .adjacency()
        .reach(&seeds, Direction::In, &[EdgeKind::Calls], depth)
    {
        all |= layer;
    }
    all.remove(seed);
    all
}

/// Endpoints whose handler is the seed or one of its callers within `depth` hops.
fn endpoints_reached(snap: &Snapshot, seed: u32, depth: u32) -> u64 {
    let adj = snap.adjacency();
    let seeds: RoaringBitmap = [seed].into_iter().collect();
    let mut endpoints: Vec<u32> = adj
        .neighbors(NodeId(seed), Direction::In, EdgeKind::Serves)
        .map(|n| n.0)
        .collect();
    for layer in adj.reach(&seeds, Direction::In, &[EdgeKind::Calls], depth) {
        for m in &layer {
            endpoints.extend(
                adj.neighbors(NodeId(m), Direction::In, EdgeKind::Serves)
                    .map(|n| n.0),
            );
        }
    }
    endpoints.sort_unstable();
    endpoints.dedup();
    endpoints.len() as u64
}

fn spec_line(spec: &CompanySpec) -> String {
    format!(
        "products={} methods={} calls={} seed={} shape={:?}",
        spec.products, spec.methods, spec.calls, spec.seed, spec.shape
    )
}

/// Opens the store at `dir`, generating the company first unless `dir` already holds it.
fn open_company(dir: &Path, spec: &CompanySpec) -> (Store, f64, bool) {
    let marker = dir.join("semgraph-bench-spec.txt");
    let wanted = spec_line(spec);
    if std::fs::read_to_string(&marker).is_ok_and(|s| s == wanted) {
        return (Store::open(dir.join("store")).expect("store"), 0.0, false);
    }
    let _ = std::fs::remove_dir_all(dir.join("store"));
    std::fs::create_dir_all(dir).expect("store dir");
    let store = Store::open(dir.join("store")).expect("store");
    let started = Instant::now();
    load_company(&store, spec).expect("load");
    store.compact().expect("compact");
    let secs = started.elapsed().as_secs_f64();
    std::fs::write(&marker, wanted).expect("marker");
    (store, secs, true)
}

fn export(
    dir: &Path,
    snap: &Snapshot,
    seeds: &[u32],
    answers: &BTreeMap<&str, Vec<u64>>,
    kernel_figures: &[(&str, String)],
) {
    std::fs::create_dir_all(dir).expect("export dir");
    let mut calls = std::io::BufWriter::new(std::fs::File::create(dir.join("calls.csv")).expect("calls.csv"));
    let mut serves =
        std::io::BufWriter::new(std::fs::File::create(dir.join("serves.csv")).expect("serves.csv"));
    let mut nodes = std::io::BufWriter::new(std::fs::File::create(dir.join("nodes.csv")).expect("nodes.csv"));
    let adj = snap.adjacency();
    let (mut edge_count, mut node_count) = (0u64, 0u64);
    for id in snap.live() {
        let mut touched = false;
        for (kind, dst) in adj.edges(NodeId(id), Direction::Out) {
            match kind {
                EdgeKind::Calls => {
                    writeln!(calls, "{id},{}", dst.0).expect("write");
                    edge_count += 1;
                    touched = true;
                }
                EdgeKind::Serves => {
                    writeln!(serves, "{id},{}", dst.0).expect("write");
                    touched = true;
                }
                _ => {}
            }
        }
        let is_endpoint = snap.nodes_of_kind(NodeKind::Endpoint).contains(id);
        let called = adj.degree(NodeId(id), Direction::In, EdgeKind::Calls) > 0;
        let handler = adj.degree(NodeId(id), Direction::In, EdgeKind::Serves) > 0;
        if touched || called || handler || is_endpoint {
            writeln!(nodes, "{id},{}", u8::from(is_endpoint)).expect("write");
            node_count += 1;
        }
    }
    calls.flush().expect("flush");
    serves.flush().expect("flush");
    nodes.flush().expect("flush");
    let mut json = String::from("{");
    let _ = write!(
        json,
        "\"seeds\":{seeds:?},\"nodes\":{node_count},\"call_edges\":{edge_count}"
    );
    for (k, v) in answers {
        let _ = write!(json, ",{k:?}:{v:?}");
    }
    let figures: Vec<String> = kernel_figures
        .iter()
        .map(|(key, fig)| format!("{{\"key\":{key:?},{}", &fig[1..]))
        .collect();
    let _ = write!(json, ",\"figures\":[{}]", figures.join(","));
    json.push('}');
    std::fs::write(dir.join("semgraph.json"), json).expect("semgraph.json");
    println!(
        "exported {node_count} nodes, {edge_count} call edges and the serves edges to {}",
        dir.display()
    );
}

fn main() {
    let mut spec = CompanySpec::new(
        support::arg("--products", 50),
        support::arg("--methods", 2_000_000),
        support::arg("--calls", 20_000_000),
    );
    spec.seed = support::arg("--seed", 42);
    let samples: usize = support::arg("--samples", 200);
    let store_dir: String = support::arg("--store", String::new());
    let export_dir: String = support::arg("--export", String::new());
    let json_out: String = support::arg("--json", String::new());
    let kernels: bool = support::arg("--kernels", true);
    let only: String = support::arg("--only", String::new());

    let temp = tempfile::tempdir().expect("tempdir");
    let dir = if store_dir.is_empty() {
        temp.path().to_path_buf()
    } else {
        PathBuf::from(&store_dir)
    };
    let (store, load_secs, generated) = open_company(&dir, &spec);
    let disk = store.disk_bytes().unwrap_or(0);
    drop(store);
    // Reopen: the cold pass starts from an empty block cache.
    let opened = Instant::now();
    let store = Store::open(dir.join("store")).expect("reopen");
    let open_secs = opened.elapsed().as_secs_f64();
    let snap = store.snapshot();
    let edges = snap.adjacency().edge_count();
    println!("# semgraph query benchmark");
    println!(
        "company: {} nodes, {edges} edges, {} products ({}); {}; opened in {open_secs:.1} s; {:.1} MB on disk ({:.2} B/edge)",
        snap.live().len(),
        spec.products,
        spec_line(&spec),
        if generated {
            format!("generated and loaded in {load_secs:.1} s")
        } else {
            "reused".to_string()
        },
        disk as f64 / 1e6,
        disk as f64 / edges.max(1) as f64
    );

    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let methods: Vec<u32> = snap.nodes_of_kind(NodeKind::Method).iter().collect();
    let picks: Vec<NodeId> = (0..samples)
        .map(|_| NodeId(methods[rng.random_range(0..methods.len())]))
        .collect();
    let picked = snap.nodes(&picks).expect("read");
    let fqns: Vec<String> = picked.iter().flatten().filter_map(|n| n.fqn.clone()).collect();
    let pick_from = |kind: NodeKind, rng: &mut ChaCha8Rng, n: usize| -> Vec<String> {
        let ids: Vec<u32> = snap.nodes_of_kind(kind).iter().collect();
        let chosen: Vec<NodeId> = (0..n)
            .map(|_| NodeId(ids[rng.random_range(0..ids.len())]))
            .collect();
        snap.nodes(&chosen)
            .expect("read")
            .into_iter()
            .flatten()
            .map(|n| n.name)
            .collect()
    };
    let tables = pick_from(NodeKind::Table, &mut rng, samples.min(100));
    let endpoints = pick_from(NodeKind::Endpoint, &mut rng, samples.min(100));

    let callers: Vec<Request> = fqns
        .iter()
        .map(|f| Request::new("code", "callers", [("fqn", f.as_str())]))
        .collect();
    let impact = |depth: &str| -> Vec<Request> {
        fqns.iter()
            .map(|f| Request::new("recipes", "impact", [("target", f.as_str()), ("depth", depth)]))
            .collect()
    };
    let impact3 = impact("3");
    let impact6: Vec<Request> = impact("6").into_iter().take(samples.min(50)).collect();
    let table_analysis: Vec<Request> = tables
        .iter()
        .map(|t| Request::new("recipes", "table-analysis", [("table", t.as_str())]))
        .collect();
    let endpoint_trace: Vec<Request> = endpoints
        .iter()
        .map(|e| Request::new("recipes", "endpoint-trace", [("endpoint", e.as_str())]))
        .collect();
    let status: Vec<Request> = (0..20)
        .map(|_| Request::new("recipes", "status-snapshot", Vec::<(String, String)>::new()))
        .collect();
    let suites: [(&str, &[Request]); 6] = [
        ("callers (depth 1)", &callers),
        ("impact (depth 3)", &impact3),
        ("impact (depth 6)", &impact6),
        ("table-analysis", &table_analysis),
        ("endpoint-trace (depth 4)", &endpoint_trace),
        ("status-snapshot", &status),
    ];
    let mut figures = Vec::new();
    for pass in ["cold", "warm"] {
        for (name, requests) in suites {
            if !name.contains(only.as_str()) {
                continue;
            }
            let f = time_requests(&format!("{name}, {pass}"), &snap, requests);
            println!("{}", f.line());
            figures.push(f);
        }
    }

    let mut answers: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut kernel_figures: Vec<(&str, String)> = Vec::new();
    if kernels {
        let seeds: Vec<u32> = picks.iter().map(|n| n.0).collect();
        let kernel_runs: [Kernel<'_>; 4] = [
            (
                "callers",
                "kernel: callers (depth 1)",
                Box::new(|s| {
                    snap.adjacency()
                        .neighbors(NodeId(s), Direction::In, EdgeKind::Calls)
                        .filter(|c| c.0 != s)
                        .count() as u64
                }),
            ),
            (
                "reach3",
                "kernel: reverse reachability, depth 3",
                Box::new(|s| reverse_reach(&snap, s, 3).len()),
            ),
            (
                "reach6",
                "kernel: reverse reachability, depth 6",
                Box::new(|s| reverse_reach(&snap, s, 6).len()),
            ),
            (
                "endpoints3",
                "kernel: endpoints reached, depth 3",
                Box::new(|s| endpoints_reached(&snap, s, 3)),
            ),
        ];
        for (key, name, f) in kernel_runs {
            let (fig, got) = time_kernel(name, &seeds, f);
            let mean = got.iter().sum::<u64>() as f64 / got.len().max(1) as f64;
            println!("{} — {mean:.0} reached on average", fig.line());
            kernel_figures.push((key, fig.json()));
            figures.push(fig);
            answers.insert(key, got);
        }
        if !export_dir.is_empty() {
            export(Path::new(&export_dir), &snap, &seeds, &answers, &kernel_figures);
            // Targets for the HTTP load test: many distinct methods, so the server's
            // document cache cannot answer most requests.
            let many: Vec<NodeId> = (0..20_000)
                .map(|_| NodeId(methods[rng.random_range(0..methods.len())]))
                .collect();
            let lines: Vec<String> = snap
                .nodes(&many)
                .expect("read")
                .into_iter()
                .flatten()
                .filter_map(|n| n.fqn)
                .collect();
            std::fs::write(Path::new(&export_dir).join("fqns.txt"), lines.join("\n")).expect("fqns.txt");
        }
    }
    let rss = support::peak_rss_mb();
    println!("peak RSS: {rss:.0} MB");
    if !json_out.is_empty() {
        let mut json = format!(
            "{{\"spec\":{:?},\"nodes\":{},\"edges\":{edges},\"disk_bytes\":{disk},\"load_secs\":{load_secs:.2},\"open_secs\":{open_secs:.2},\"peak_rss_mb\":{rss:.0},\"figures\":[",
            spec_line(&spec),
            snap.live().len()
        );
        json.push_str(&figures.iter().map(Figure::json).collect::<Vec<_>>().join(","));
        json.push_str("]}");
        std::fs::write(&json_out, json).expect("write json");
    }
}
