//! A synthetic company graph, deterministic from a seed, for benchmarks at scale.
//!
//! Real code graphs are not uniform: a few utility methods are called from everywhere
//! (hubs), most calls stay near their caller (same class, same package), and products talk
//! to each other through a thin layer of HTTP calls and topics. The generator reproduces
//! those shapes so benchmarks meet the frontiers that explode on hubs, and a uniform mode
//! reproduces the textbook random graph for comparison with published figures.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use semgraph_storage::{
    CommitSummary, EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeId, NodeKind, Result, Store,
};

/// How call targets are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallShape {
    /// Mostly local calls plus power-law hubs (the shape of real code).
    PowerLaw,
    /// Uniformly random targets within the product.
    Uniform,
}

/// The size and shape of a synthetic company.
#[derive(Clone, Debug)]
pub struct CompanySpec {
    /// Number of products.
    pub products: u32,
    /// Methods across all products.
    pub methods: u64,
    /// Call edges across all products.
    pub calls: u64,
    /// Endpoints per product.
    pub endpoints_per_product: u32,
    /// Tables per product.
    pub tables_per_product: u32,
    /// Outbound HTTP calls per product (each asks for an endpoint of another product).
    pub http_calls_per_product: u32,
    /// Topics produced per product.
    pub topics_per_product: u32,
    /// Call target distribution.
    pub shape: CallShape,
    /// The seed: the same spec and seed give the same graph.
    pub seed: u64,
}

impl CompanySpec {
    /// A company of `methods` methods and `calls` calls in `products` products.
    pub fn new(products: u32, methods: u64, calls: u64) -> Self {
        CompanySpec {
            products,
            methods,
            calls,
            endpoints_per_product: 200,
            tables_per_product: 100,
            http_calls_per_product: 100,
            topics_per_product: 10,
            shape: CallShape::PowerLaw,
            seed: 42,
        }
    }
}

/// What was loaded.
#[derive(Clone, Debug, Default)]
pub struct LoadReport {
    /// Nodes written.
    pub nodes: u64,
    /// Edges written (within products).
    pub edges: u64,
    /// Cross-product links after the last commit.
    pub links: u64,
    /// Per product commit summaries.
    pub commits: Vec<CommitSummary>,
    /// Seconds spent inside `commit` (flush, catalog write, adjacency rebuild).
    pub commit_secs: f64,
}

/// The name of product `p`.
pub fn product_name(p: u32) -> String {
    format!("product{p:03}")
}

/// The area of product `p` (four areas, round robin).
pub fn area_name(p: u32) -> String {
    format!("area{}", p % 4)
}

/// Writes the company into `store`, one product generation after another.
pub fn load_company(store: &Store, spec: &CompanySpec) -> Result<LoadReport> {
    let mut report = LoadReport::default();
    let products = u64::from(spec.products.max(1));
    for p in 0..spec.products.max(1) {
        let methods = (spec.methods / products).max(1);
        let calls = spec.calls / products;
        let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ (u64::from(p) << 32));
        let name = product_name(p);
        let mut w = store.begin(&name, &area_name(p))?;
        let product = w.add_node(NewNode::new(NodeKind::Product, &name))?;
        let service = w.add_node(NewNode::new(NodeKind::Service, format!("{name}-service")))?;
        w.add_edge(product, EdgeKind::Contains, service)?;
        let mut nodes = 2u64;
        let mut edges = 1u64;

        // Types of ten methods each, in packages of twenty types.
        let mut method_ids: Vec<NodeId> = Vec::with_capacity(methods as usize);
        let mut current_type = service;
        for m in 0..methods {
            if m % 10 == 0 {
                let t = m / 10;
                current_type = w.add_node(
                    NewNode::new(NodeKind::Type, format!("Type{t}"))
                        .fqn(format!("com.{name}.pkg{}.Type{t}", t / 20))
                        .at(
                            format!("src/main/java/com/{name}/pkg{}/Type{t}.java", t / 20),
                            1,
                            200,
                        ),
                )?;
                w.add_edge(service, EdgeKind::Contains, current_type)?;
                nodes += 1;
                edges += 1;
            }
            let t = m / 10;
            let id = w.add_node(
                NewNode::new(NodeKind::Method, format!("method{m}"))
                    .fqn(format!("com.{name}.pkg{}.Type{t}.method{m}", t / 20))
                    .at(
                        format!("src/main/java/com/{name}/pkg{}/Type{t}.java", t / 20),
                        (m % 10) as u32 * 20 + 1,
                        (m % 10) as u32 * 20 + 18,
                    )
                    .flags(NodeFlags::PUBLIC),
            )?;
            w.add_edge(current_type, EdgeKind::Contains, id)?;
            method_ids.push(id);
            nodes += 1;
            edges += 1;
        }

        let n = method_ids.len() as u64;
        for _ in 0..calls {
            let from = rng.random_range(0..n);
            let to = match spec.shape {
                CallShape::Uniform => rng.random_range(0..n),
                CallShape::PowerLaw => {
                    let r: f64 = rng.random();
                    if r < 0.6 {
                        // Near the caller: same type or package.
                        let spread = if r < 0.3 { 10 } else { 200 };
                        let lo = from.saturating_sub(spread);
                        let hi = (from + spread).min(n - 1);
                        rng.random_range(lo..=hi)
                    } else {
                        // Power law over the product: low indexes are the hubs.
                        let u: f64 = rng.random();
                        ((n as f64) * u.powf(3.0)) as u64 % n
                    }
                }
            };
            if from != to {
                w.add_edge(
                    method_ids[from as usize],
                    EdgeKind::Calls,
                    method_ids[to as usize],
                )?;
                edges += 1;
            }
        }

        for e in 0..spec.endpoints_per_product {
            let route = format!("/api/{name}/resource{e}");
            let ep = w.add_node(
                NewNode::new(NodeKind::Endpoint, format!("GET {route}"))
                    .fqn(format!("GET {route}"))
                    .attr("verb", "GET")
                    .attr("path", &route)
                    .attr("service", format!("{name}-service"))
                    .attr("kind", "spring-mvc"),
            )?;
            let handler = method_ids[rng.random_range(0..n) as usize];
            w.add_edge(ep, EdgeKind::Serves, handler)?;
            w.add_anchor(ep, format!("http:{name}-service:GET:{route}"))?;
            nodes += 1;
            edges += 1;
        }
        for t in 0..spec.tables_per_product {
            let table = w.add_node(
                NewNode::new(NodeKind::Table, format!("{name}_table{t}")).fqn(format!("{name}_table{t}")),
            )?;
            for _ in 0..5 {
                let m = method_ids[rng.random_range(0..n) as usize];
                let kind = if rng.random_bool(0.7) {
                    EdgeKind::Reads
                } else {
                    EdgeKind::Writes
                };
                w.add_edge(m, kind, table)?;
                edges += 1;
            }
            nodes += 1;
        }
        if spec.products > 1 {
            for _ in 0..spec.http_calls_per_product {
                let mut target = rng.random_range(0..spec.products);
                if target == p {
                    target = (target + 1) % spec.products;
                }
                let target_name = product_name(target);
                let e = rng.random_range(0..spec.endpoints_per_product.max(1));
                let call = w.add_node(
                    NewNode::new(NodeKind::HttpCall, format!("GET /api/{target_name}/resource{e}"))
                        .attr("verb", "GET"),
                )?;
                let caller = method_ids[rng.random_range(0..n) as usize];
                w.add_edge(caller, EdgeKind::Calls, call)?;
                w.add_link(
                    call,
                    EdgeKind::Invokes,
                    &format!("http:{target_name}-service:GET:/api/{target_name}/resource{e}"),
                    LinkPolicy::Unique,
                )?;
                nodes += 1;
                edges += 1;
            }
        }
        for t in 0..spec.topics_per_product {
            let topic = w.add_node(
                NewNode::new(NodeKind::Topic, format!("{name}.events{t}")).attr("broker", "kafka"),
            )?;
            w.add_anchor(topic, format!("topic:kafka:{name}.events{t}"))?;
            let producer = method_ids[rng.random_range(0..n) as usize];
            w.add_edge(producer, EdgeKind::Produces, topic)?;
            // A consumer elsewhere asks for a topic of another product.
            let other = rng.random_range(0..spec.products.max(1));
            let consumer = method_ids[rng.random_range(0..n) as usize];
            w.add_link(
                consumer,
                EdgeKind::Consumes,
                &format!("topic:kafka:{}.events{t}", product_name(other)),
                LinkPolicy::All,
            )?;
            nodes += 1;
            edges += 1;
        }
        let commit_started = std::time::Instant::now();
        let summary = w.commit()?;
        report.commit_secs += commit_started.elapsed().as_secs_f64();
        report.nodes += nodes;
        report.edges += edges;
        report.links = summary.links;
        report.commits.push(summary);
    }
    Ok(report)
}
