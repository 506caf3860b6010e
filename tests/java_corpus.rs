//! The synthetic Java company of `semgraph_testkit::java_corpus`, indexed product by product into a
//! real store and held to what the generator planted: every endpoint is served by its
//! handler, every cross-product HTTP call invokes the endpoint it names, producers and
//! consumers of a topic meet on it, every table exists with its entity, readers and
//! writers, and the calls between the product's own methods resolve. The generator itself
//! must be deterministic and write Java that parses.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use semgraph_indexer::{index_product, Company, NoProgress, ProductReport, ProductSource};
use semgraph_storage::{Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind, Snapshot, Store};
use semgraph_testkit::java_corpus::{write_java_company, CallStyle, JavaCorpusReport, JavaCorpusSpec};

/// Three products of about 5,000 lines each: every kind of fact is planted several times,
/// and a debug build indexes it in seconds.
fn small_spec() -> JavaCorpusSpec {
    JavaCorpusSpec {
        products: 3,
        lines: 15_000,
        seed: 7,
        record_calls: true,
    }
}

#[path = "support/scratch.rs"]
mod scratch;

struct Indexed {
    _dir: std::path::PathBuf,
    store: Store,
    corpus: JavaCorpusReport,
    runs: Vec<ProductReport>,
}

/// The small company, written and indexed once per test binary.
fn indexed() -> &'static Indexed {
    static INDEXED: OnceLock<Indexed> = OnceLock::new();
    INDEXED.get_or_init(|| {
        let dir = scratch::process_dir("java-corpus");
        let corpus = write_java_company(&dir.join("company"), &small_spec()).expect("write the corpus");
        let store = Store::open(dir.join("store")).expect("open store");
        let products: Vec<ProductSource> = corpus
            .products
            .iter()
            .map(|p| ProductSource {
                name: p.name.clone(),
                area: "synth".into(),
                repos: vec![p.dir.clone()],
                wiki: Vec::new(),
                jira: Vec::new(),
            })
            .collect();
        let company = Company {
            store: dir.join("store"),
            products: products.clone(),
            config_file: None,
            server: None,
            dependencies: semgraph_indexer::Dependencies::sources_only(),
        };
        let runs = products
            .iter()
            .map(|p| index_product(&store, &company, p, &NoProgress).expect("index"))
            .collect();
        Indexed {
            _dir: dir,
            store,
            corpus,
            runs,
        }
    })
}

/// The served graph, with every node of the corpus loaded and methods found by key.
struct Graph {
    snap: Snapshot,
    nodes: HashMap<NodeId, Node>,
    product_names: HashMap<u32, String>,
    /// Method key (`type fqn` + `.` + signature) → node, per product.
    methods: HashMap<(String, String), NodeId>,
}

impl Graph {
    fn load(store: &Store) -> Graph {
        let snap = store.snapshot();
        let product_names: HashMap<u32, String> =
            snap.products().into_iter().map(|p| (p.id.0, p.name)).collect();
        let ids: Vec<NodeId> = snap.live().iter().map(NodeId).collect();
        let mut nodes = HashMap::new();
        for chunk in ids.chunks(4096) {
            for node in snap.nodes(chunk).expect("read nodes").into_iter().flatten() {
                nodes.insert(node.id, node);
            }
        }
        let mut methods = HashMap::new();
        for node in nodes.values().filter(|n| n.kind == NodeKind::Method) {
            let (Some(fqn), Some(sig)) = (&node.fqn, node.attr("signature")) else {
                continue;
            };
            let Some((ty, _)) = fqn.rsplit_once('.') else {
                continue;
            };
            let product = product_names.get(&node.product.0).cloned().unwrap_or_default();
            methods.insert((product, format!("{ty}.{sig}")), node.id);
        }
        Graph {
            snap,
            nodes,
            product_names,
            methods,
        }
    }

    fn product(&self, node: &Node) -> &str {
        self.product_names.get(&node.product.0).map_or("", String::as_str)
    }

    fn method(&self, product: &str, key: &str) -> Option<NodeId> {
        self.methods.get(&(product.to_string(), key.to_string())).copied()
    }

    fn out(&self, from: NodeId, kind: EdgeKind) -> impl Iterator<Item = &Node> + '_ {
        self.snap
            .adjacency()
            .neighbors(from, Direction::Out, kind)
            .filter_map(move |id| self.nodes.get(&id))
    }

    fn has_edge(&self, from: NodeId, kind: EdgeKind, to: NodeId) -> bool {
        self.snap
            .adjacency()
            .neighbors(from, Direction::Out, kind)
            .any(|n| n == to)
    }

    fn of_kind<'a>(&'a self, product: &'a str, kind: NodeKind) -> impl Iterator<Item = &'a Node> + 'a {
        self.nodes
            .values()
            .filter(move |n| n.kind == kind && self.product(n) == product)
    }

    fn key_of(&self, id: NodeId) -> String {
        let Some(node) = self.nodes.get(&id) else {
            return format!("{id}");
        };
        match (&node.fqn, node.attr("signature")) {
            (Some(fqn), Some(sig)) => match fqn.rsplit_once('.') {
                Some((ty, _)) => format!("{ty}.{sig}"),
                None => fqn.clone(),
            },
            _ => node.display_name().to_string(),
        }
    }
}

/// Fails with the first problems and how many there are.
fn assert_none(what: &str, problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} {what}:\n{}",
        problems.len(),
        problems.iter().take(25).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn every_planted_endpoint_is_served_by_its_handler() {
    let ix = indexed();
    let g = Graph::load(&ix.store);
    let mut problems = Vec::new();
    let mut planted = 0;
    for p in &ix.corpus.products {
        let endpoints: HashMap<(String, String), &Node> = g
            .of_kind(&p.name, NodeKind::Endpoint)
            .filter_map(|n| Some(((n.attr("verb")?.to_string(), n.attr("path")?.to_string()), n)))
            .collect();
        for e in &p.endpoints {
            planted += 1;
            let Some(node) = endpoints.get(&(e.verb.clone(), e.path.clone())) else {
                problems.push(format!("{}: no endpoint {} {}", p.name, e.verb, e.path));
                continue;
            };
            if node.attr("service") != Some(p.service.as_str()) {
                problems.push(format!(
                    "{}: {} {} is not served by {}",
                    p.name, e.verb, e.path, p.service
                ));
            }
            let handlers: Vec<String> = g.out(node.id, EdgeKind::Serves).map(|h| g.key_of(h.id)).collect();
            if handlers != [e.handler.clone()] {
                problems.push(format!(
                    "{}: {} {} served by {handlers:?}, planted {}",
                    p.name, e.verb, e.path, e.handler
                ));
            }
        }
        if endpoints.len() != p.endpoints.len() {
            problems.push(format!(
                "{}: {} endpoints indexed, {} planted",
                p.name,
                endpoints.len(),
                p.endpoints.len()
            ));
        }
        // Scheduled jobs are entry points served by their method.
        for job in &p.scheduled {
            let served = g.method(&p.name, job).is_some_and(|m| {
                g.snap
                    .adjacency()
                    .neighbors(m, Direction::In, EdgeKind::Serves)
                    .filter_map(|id| g.nodes.get(&id))
                    .any(|n| n.kind == NodeKind::EntryPoint && n.attr("kind") == Some("scheduled"))
            });
            if !served {
                problems.push(format!("{}: scheduled job {job} is no entry point", p.name));
            }
        }
    }
    assert!(planted > 30, "the corpus plants endpoints ({planted})");
    assert_none("endpoint problems", &problems);
}

#[test]
fn every_cross_product_http_call_invokes_the_planted_endpoint() {
    let ix = indexed();
    let g = Graph::load(&ix.store);
    let mut problems = Vec::new();
    let mut planted = 0;
    for p in &ix.corpus.products {
        for call in &p.http_calls {
            planted += 1;
            let Some(caller) = g.method(&p.name, &call.caller) else {
                problems.push(format!("{}: no method {}", p.name, call.caller));
                continue;
            };
            let http: Vec<&Node> = g
                .out(caller, EdgeKind::Calls)
                .filter(|n| n.kind == NodeKind::HttpCall && n.attr("verb") == Some(call.verb.as_str()))
                .collect();
            if http.is_empty() {
                problems.push(format!(
                    "{}: {} makes no {} call (planted {} {} of {})",
                    p.name, call.caller, call.verb, call.client, call.path, call.target_service
                ));
                continue;
            }
            let linked = http.iter().any(|h| {
                h.attr("target-service") == Some(call.target_service.as_str())
                    && h.attr("client") == Some(call.client)
                    && g.out(h.id, EdgeKind::Invokes).any(|e| {
                        g.product(e) == call.target_product
                            && e.attr("verb") == Some(call.verb.as_str())
                            && e.attr("path") == Some(call.path.as_str())
                    })
            });
            if !linked {
                let found: Vec<String> = http
                    .iter()
                    .map(|h| {
                        let invokes: Vec<String> =
                            g.out(h.id, EdgeKind::Invokes).map(|e| e.name.clone()).collect();
                        format!("{} → {:?}", h.attr("url").unwrap_or("?"), invokes)
                    })
                    .collect();
                problems.push(format!(
                    "{}: {} does not invoke {} {} of {} (found {found:?})",
                    p.name, call.caller, call.verb, call.path, call.target_product
                ));
            }
        }
        // The planted calls are production code's; the controller tests' MockMvc requests
        // are calls too, each to an endpoint of the test's own service.
        let (tests, production): (Vec<&Node>, Vec<&Node>) = g
            .of_kind(&p.name, NodeKind::HttpCall)
            .partition(|n| n.flags.contains(NodeFlags::TEST));
        if production.len() != p.http_calls.len() {
            problems.push(format!(
                "{}: {} HTTP calls indexed in production code, {} planted",
                p.name,
                production.len(),
                p.http_calls.len()
            ));
        }
        for t in tests {
            let own = g
                .out(t.id, EdgeKind::Invokes)
                .any(|e| g.product(e) == p.name && e.attr("verb") == t.attr("verb"));
            if t.attr("client") != Some("mock-mvc") || !own {
                problems.push(format!(
                    "{}: test call {} ({:?}) invokes no endpoint of its own service",
                    p.name,
                    t.name,
                    t.attr("client")
                ));
            }
        }
    }
    assert!(planted >= 6, "the corpus plants cross-product calls ({planted})");
    let styles: HashSet<(&str, &str)> = ix
        .corpus
        .products
        .iter()
        .flat_map(|p| &p.http_calls)
        .map(|c| (c.client, c.base_url))
        .collect();
    assert_eq!(
        styles.len(),
        3,
        "every way of writing a client is planted: {styles:?}"
    );
    assert_none("HTTP call problems", &problems);
}

#[test]
fn topics_link_producers_to_consumers_across_products() {
    let ix = indexed();
    let g = Graph::load(&ix.store);
    let mut problems = Vec::new();
    let topics_of = |method: NodeId, kind: EdgeKind| -> HashSet<NodeId> {
        g.out(method, kind)
            .filter(|n| n.kind == NodeKind::Topic)
            .map(|n| n.id)
            .collect()
    };
    let mut producers: HashMap<&str, Vec<(&str, NodeId)>> = HashMap::new();
    for p in &ix.corpus.products {
        for use_ in &p.produces {
            match g.method(&p.name, &use_.method) {
                Some(m) => {
                    let named: Vec<NodeId> = topics_of(m, EdgeKind::Produces)
                        .into_iter()
                        .filter(|t| g.nodes.get(t).is_some_and(|n| n.name == use_.topic))
                        .collect();
                    if named.is_empty() {
                        problems.push(format!(
                            "{}: {} produces no topic {}",
                            p.name, use_.method, use_.topic
                        ));
                    }
                    producers.entry(&use_.topic).or_default().push((&p.name, m));
                }
                None => problems.push(format!("{}: no method {}", p.name, use_.method)),
            }
        }
    }
    let mut pairs = 0;
    for p in &ix.corpus.products {
        for use_ in &p.consumes {
            let Some(consumer) = g.method(&p.name, &use_.method) else {
                problems.push(format!("{}: no method {}", p.name, use_.method));
                continue;
            };
            let consumed = topics_of(consumer, EdgeKind::Consumes);
            let Some(sources) = producers.get(use_.topic.as_str()) else {
                problems.push(format!("{}: nobody produces {}", p.name, use_.topic));
                continue;
            };
            for (source, producer) in sources {
                pairs += 1;
                if *source == p.name {
                    problems.push(format!("{}: consumes its own topic {}", p.name, use_.topic));
                }
                if topics_of(*producer, EdgeKind::Produces).is_disjoint(&consumed) {
                    problems.push(format!(
                        "{}: {} and the producer in {source} do not meet on {}",
                        p.name, use_.method, use_.topic
                    ));
                }
            }
        }
    }
    assert!(
        pairs >= 3,
        "the corpus plants producer/consumer pairs across products ({pairs})"
    );
    let produced: HashSet<&str> = ix
        .corpus
        .products
        .iter()
        .flat_map(|p| &p.produces)
        .map(|u| u.written)
        .collect();
    let consumed: HashSet<&str> = ix
        .corpus
        .products
        .iter()
        .flat_map(|p| &p.consumes)
        .map(|u| u.written)
        .collect();
    assert_eq!(
        produced.len(),
        3,
        "constant, literal and @Value topics are produced: {produced:?}"
    );
    assert_eq!(
        consumed.len(),
        2,
        "literal and placeholder topics are consumed: {consumed:?}"
    );
    assert_none("topic problems", &problems);
}

#[test]
fn tables_exist_with_their_entities_readers_and_writers() {
    let ix = indexed();
    let g = Graph::load(&ix.store);
    let mut problems = Vec::new();
    let mut checked = 0;
    for p in &ix.corpus.products {
        let tables: HashMap<&str, NodeId> = g
            .of_kind(&p.name, NodeKind::Table)
            .map(|n| (n.name.as_str(), n.id))
            .collect();
        let types: HashMap<&str, NodeId> = g
            .of_kind(&p.name, NodeKind::Type)
            .filter_map(|n| Some((n.fqn.as_deref()?, n.id)))
            .collect();
        for t in &p.tables {
            let Some(&table) = tables.get(t.name.as_str()) else {
                problems.push(format!("{}: no table {}", p.name, t.name));
                continue;
            };
            if let Some(entity) = &t.entity {
                match types.get(entity.as_str()) {
                    Some(&e) if g.has_edge(e, EdgeKind::MapsTo, table) => {}
                    _ => problems.push(format!("{}: {entity} does not map to {}", p.name, t.name)),
                }
            }
            for (kind, methods) in [(EdgeKind::Reads, &t.readers), (EdgeKind::Writes, &t.writers)] {
                for m in methods {
                    checked += 1;
                    match g.method(&p.name, m) {
                        Some(id) if g.has_edge(id, kind, table) => {}
                        Some(_) => {
                            problems.push(format!("{}: no {kind} edge from {m} to {}", p.name, t.name))
                        }
                        None => problems.push(format!("{}: no method {m}", p.name)),
                    }
                }
            }
        }
    }
    assert!(checked > 50, "the corpus plants table accesses ({checked})");
    assert_none("table problems", &problems);
}

/// The resolver is held to the calls the generator recorded between the product's own
/// methods (calls into the JDK and libraries are not in-source and not counted). At least
/// 90% of them must be Calls edges: the corpus writes the calls a resolver working from
/// declarations alone can follow — typed fields, locals, parameters, lambdas over typed
/// collections, method references, overloads told apart by argument types, record
/// accessors — plus a few it cannot (a call on the mock Mockito's generic `verify(…)`
/// returns, whose type is only known to a compiler that reads Mockito's signatures), which
/// stay well under a tenth of the calls. Below 90%, something the resolver should follow
/// is lost; the per-style table printed here says which.
#[test]
fn in_source_calls_resolve() {
    let ix = indexed();
    let g = Graph::load(&ix.store);
    let mut by_style: BTreeMap<CallStyle, (u64, u64)> = BTreeMap::new();
    let mut missing_nodes = Vec::new();
    let mut misses: BTreeMap<CallStyle, Vec<String>> = BTreeMap::new();
    let mut seen = HashSet::new();
    for p in &ix.corpus.products {
        assert!(!p.call_list.is_empty(), "calls are recorded");
        for call in &p.call_list {
            if !seen.insert((&p.name, &call.caller, &call.callee)) {
                continue;
            }
            let (Some(from), Some(to)) = (g.method(&p.name, &call.caller), g.method(&p.name, &call.callee))
            else {
                missing_nodes.push(format!("{}: {} → {}", p.name, call.caller, call.callee));
                continue;
            };
            let entry = by_style.entry(call.style).or_default();
            entry.0 += 1;
            if g.has_edge(from, EdgeKind::Calls, to) {
                entry.1 += 1;
            } else {
                misses
                    .entry(call.style)
                    .or_default()
                    .push(format!("{} → {}", call.caller, call.callee));
            }
        }
    }
    assert_none("planted calls whose methods are not indexed", &missing_nodes);
    let (planted, found) = by_style.values().fold((0, 0), |(a, b), (p, f)| (a + p, b + f));
    let (resolved, unresolved, external) = ix.runs.iter().fold((0, 0, 0), |acc, r| {
        let stat = |k: &str| r.stats.get(k).copied().unwrap_or(0);
        (
            acc.0 + stat("calls.resolved"),
            acc.1 + stat("calls.unresolved"),
            acc.2 + stat("calls.external"),
        )
    });
    println!("planted in-source calls (caller, callee pairs): {found} / {planted} resolved");
    for (style, (p, f)) in &by_style {
        println!(
            "  {:<12} {f:>6} / {p:<6} {:.3}",
            style.as_str(),
            *f as f64 / (*p).max(1) as f64
        );
    }
    println!(
        "indexer: {resolved} call sites resolved in source, {external} external, {unresolved} unresolved \
         ({:.3} of the non-external sites)",
        resolved as f64 / (resolved + unresolved).max(1) as f64
    );
    for (style, list) in &misses {
        println!("missed {} ({}), first: {}", style.as_str(), list.len(), list[0]);
    }
    let ratio = found as f64 / planted.max(1) as f64;
    assert!(planted > 1000, "the corpus plants calls ({planted})");
    assert!(
        ratio >= 0.9,
        "only {found} of {planted} planted calls resolved ({ratio:.3})"
    );
}

fn files_under(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
                out.insert(rel, std::fs::read(&path).expect("read file"));
            }
        }
    }
    out
}

#[test]
fn the_sources_parse_and_every_template_is_filled() {
    let ix = indexed();
    let syntax: Vec<String> = ix
        .runs
        .iter()
        .flat_map(|r| &r.warnings)
        .filter(|w| w.message.contains("syntax error"))
        .map(|w| format!("{}:{:?}: {}", w.file, w.line, w.message))
        .collect();
    assert_none("files with syntax errors", &syntax);
    let mut unfilled = Vec::new();
    for p in &ix.corpus.products {
        for (rel, bytes) in files_under(&p.dir) {
            if String::from_utf8_lossy(&bytes).contains('«') {
                unfilled.push(format!("{}/{}", p.name, rel.display()));
            }
        }
        let java = ix
            .runs
            .iter()
            .find(|r| r.product == p.name)
            .map(|r| r.files.get("java").copied());
        assert!(
            java.flatten().unwrap_or(0) > 20,
            "{} has Java files indexed",
            p.name
        );
    }
    assert_none("files with unfilled template names", &unfilled);
    let c = &ix.corpus;
    assert!(c.java_lines >= 15_000, "{} lines of Java written", c.java_lines);
    assert!(
        c.java_lines < 18_000,
        "{} lines of Java, far above the 15,000 asked",
        c.java_lines
    );
    for p in &c.products {
        println!(
            "{}: {} files, {} lines ({} Java), {} features, {} endpoints, {} HTTP calls, {} produced / {} consumed topics, {} tables, {} jobs, {} calls",
            p.name,
            p.files,
            p.lines,
            p.java_lines,
            p.features,
            p.endpoints.len(),
            p.http_calls.len(),
            p.produces.len(),
            p.consumes.len(),
            p.tables.len(),
            p.scheduled.len(),
            p.calls
        );
    }
}

#[test]
fn the_same_spec_writes_the_same_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let spec = JavaCorpusSpec {
        lines: 6_000,
        ..small_spec()
    };
    let a = write_java_company(&dir.path().join("a"), &spec).expect("write a");
    let b = write_java_company(&dir.path().join("b"), &spec).expect("write b");
    let other = write_java_company(
        &dir.path().join("c"),
        &JavaCorpusSpec {
            seed: spec.seed + 1,
            ..spec.clone()
        },
    )
    .expect("write c");
    let files_a = files_under(&dir.path().join("a"));
    assert!(
        files_a.len() as u64 == a.files && a.files > 50,
        "{} files",
        a.files
    );
    assert!(
        files_a == files_under(&dir.path().join("b")),
        "two runs of one spec wrote different trees"
    );
    let without_dirs = |r: &JavaCorpusReport| {
        let mut r = r.clone();
        r.products.iter_mut().for_each(|p| p.dir = PathBuf::new());
        r
    };
    assert_eq!(
        without_dirs(&a),
        without_dirs(&b),
        "two runs of one spec planted different facts"
    );
    assert!(
        files_a != files_under(&dir.path().join("c")),
        "another seed wrote the same tree"
    );
    assert_ne!(without_dirs(&a), without_dirs(&other));
}
