//! `service-map`: the services of the company and how they depend on each other — HTTP
//! calls resolved to another service's endpoints, topics one produces and another
//! consumes, and tables one product's code or schema uses that another owns — with a
//! mermaid diagram.
//!
//! A dependency is drawn between services, not only between products: a repository of
//! microservices (one product, a service per deployable module) depends on itself through
//! its services' calls, and a map of products alone would show none of it. A call to a
//! service of the company that reaches no endpoint of it is said apart from the calls
//! that leave the company: it names no outside host, and it reached nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use semgraph_storage::{Direction, EdgeKind, NodeFlags, NodeId, NodeKind};
use serde::Serialize;

use super::header;
use crate::error::QueryError;
use crate::graph::Ctx;
use crate::mermaid::{Flowchart, Line, Shape};
use crate::params::Args;
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "service-map/2";
/// Most nodes the diagram draws.
const DIAGRAM_NODES: usize = 60;
/// Most rows of calls to a service of the company that reached no endpoint of it.
const UNREACHED_ROWS: usize = 50;
/// How many Contains edges up from a method its service's file may be (method → nested
/// types → file).
const CONTAINS_HOPS: usize = 8;

/// One end of a dependency: a product and the service in it (`None` for what belongs to
/// the product as a whole, such as a table of its schema).
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct End {
    product: String,
    service: Option<String>,
}

#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Dependency {
    from: End,
    to: End,
    kind: &'static str,
    detail: String,
}

/// A call to a service of the company that no endpoint of it answers.
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Unreached {
    from: End,
    service: String,
    call: String,
}

/// A host outside the company that a service calls.
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct External {
    from: End,
    host: String,
}

#[derive(Serialize)]
struct ServiceMap {
    recipe_version: &'static str,
    products: Vec<(String, String)>,
    dependencies: Vec<Dependency>,
    /// Calls to services of the company that reached no endpoint of theirs.
    unreached: Vec<Unreached>,
    /// Services and the hosts outside the company they call.
    external_hosts: Vec<External>,
    trace: Trace,
}

/// Which service each node a Service contains (its files, endpoints) belongs to, read
/// once from the in-memory Contains edges; code is placed by walking up from it.
struct Deployments {
    by_node: HashMap<u32, String>,
}

impl Deployments {
    fn read(ctx: &Ctx<'_>) -> Result<Deployments, QueryError> {
        let mut by_node = HashMap::new();
        for service in ctx.load(ctx.snap.nodes_of_kind(NodeKind::Service).iter())? {
            for child in ctx
                .adj()
                .neighbors(service.id, Direction::Out, EdgeKind::Contains)
            {
                by_node.insert(child.0, service.name.clone());
            }
        }
        Ok(Deployments { by_node })
    }

    /// The service `node` is deployed in: the first Service found up its Contains edges
    /// (method → type → file → service; a service contains its endpoints directly);
    /// `None` for what lies outside every service. Ids only: nothing is read from the store.
    fn service(&self, ctx: &Ctx<'_>, node: NodeId) -> Option<String> {
        let mut frontier = vec![node];
        for _ in 0..CONTAINS_HOPS {
            if let Some(s) = frontier.iter().find_map(|id| self.by_node.get(&id.0)) {
                return Some(s.clone());
            }
            let next: Vec<NodeId> = frontier
                .iter()
                .flat_map(|id| ctx.adj().neighbors(*id, Direction::In, EdgeKind::Contains))
                .collect();
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        None
    }

    /// `node`'s product and service, from the in-memory product sets and adjacency.
    fn end(&self, ctx: &Ctx<'_>, node: u32) -> End {
        End {
            product: ctx
                .snap
                .product_of(NodeId(node))
                .map(|p| p.name)
                .unwrap_or_default(),
            service: self.service(ctx, NodeId(node)),
        }
    }
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let scope = args.get("scope");
    if let Some(s) = scope {
        ctx.of_kind(NodeKind::Product, Some(s))?;
    }
    let mut trace = Trace::default();
    let deployments = Deployments::read(ctx)?;
    let mut deps: BTreeSet<Dependency> = BTreeSet::new();
    let mut unreached: BTreeSet<Unreached> = BTreeSet::new();
    let mut external: BTreeSet<External> = BTreeSet::new();
    trace.step("HTTP calls between services", || -> Result<_, QueryError> {
        let services: BTreeSet<String> = deployments.by_node.values().map(|s| s.to_lowercase()).collect();
        let mut n = 0;
        // Production calls only: a test calling a service (its own, through MockMvc, or
        // another) makes no dependency between services.
        let calls = ctx.snap.nodes_of_kind(NodeKind::HttpCall) - ctx.snap.nodes_with_flag(NodeFlags::TEST);
        let calls = ctx.load(calls.iter())?;
        // What each call invokes, read in one batch for all of them.
        let invoked: Vec<Vec<u32>> = calls
            .iter()
            .map(|c| ctx.neighbors(c.id, Direction::Out, EdgeKind::Invokes))
            .collect();
        let endpoints = ctx.load_map(invoked.iter().flatten().copied())?;
        for (call, targets) in calls.iter().zip(&invoked) {
            // The call is made by its caller (a method, or a gateway route's config key).
            let caller = ctx.neighbors(call.id, Direction::In, EdgeKind::Calls);
            let from = deployments.end(ctx, caller.first().copied().unwrap_or(call.id.0));
            if targets.is_empty() {
                if let Some(host) = call.attr("target-service") {
                    if services.contains(&host.to_lowercase()) {
                        unreached.insert(Unreached {
                            from,
                            service: host.to_string(),
                            call: call.name.clone(),
                        });
                    } else {
                        external.insert(External {
                            from,
                            host: host.to_string(),
                        });
                    }
                }
                continue;
            }
            for e in targets.iter().filter_map(|t| endpoints.get(t)) {
                n += 1;
                deps.insert(Dependency {
                    from: from.clone(),
                    to: deployments.end(ctx, e.id.0),
                    kind: "http",
                    detail: e.name.clone(),
                });
            }
        }
        Ok(((), format!("{n} resolved call(s)")))
    })?;
    trace.step("topics produced and consumed", || -> Result<_, QueryError> {
        let mut n = 0;
        for topic in ctx.load(ctx.snap.nodes_of_kind(NodeKind::Topic).iter())? {
            let ends = |kind| -> Vec<End> {
                let nodes = ctx.neighbors(topic.id, Direction::In, kind);
                nodes.into_iter().map(|n| deployments.end(ctx, n)).collect()
            };
            let producers = ends(EdgeKind::Produces);
            let consumers = ends(EdgeKind::Consumes);
            for p in &producers {
                for c in &consumers {
                    n += 1;
                    deps.insert(Dependency {
                        from: p.clone(),
                        to: c.clone(),
                        kind: "messaging",
                        detail: format!("{} ({})", topic.name, topic.attr("broker").unwrap_or("")),
                    });
                }
            }
        }
        Ok(((), format!("{n} producer→consumer pair(s)")))
    })?;
    trace.step("tables used across products", || -> Result<_, QueryError> {
        let mut n = 0;
        for table in ctx.load(ctx.snap.nodes_of_kind(NodeKind::Table).iter())? {
            let owner = ctx.product_name(table.product);
            for (kind, word) in [
                (EdgeKind::Reads, "reads"),
                (EdgeKind::Writes, "writes"),
                (EdgeKind::References, "foreign key"),
            ] {
                for user in ctx.neighbors(table.id, Direction::In, kind) {
                    let from = deployments.end(ctx, user);
                    if from.product != owner {
                        n += 1;
                        deps.insert(Dependency {
                            from,
                            to: End {
                                product: owner.clone(),
                                service: None,
                            },
                            kind: "shared-table",
                            detail: format!("{word} {}", table.name),
                        });
                    }
                }
            }
        }
        Ok(((), format!("{n} cross-product use(s)")))
    })?;
    let products: Vec<(String, String)> = ctx
        .products()
        .filter(|p| scope.is_none_or(|s| s == p.name))
        .map(|p| (p.name.clone(), p.area.clone()))
        .collect();
    let keep = |from: &End, to: &End| scope.is_none_or(|s| from.product == s || to.product == s);
    let dependencies: Vec<Dependency> = deps
        .into_iter()
        .filter(|d| keep(&d.from, &d.to) && d.from != d.to)
        .collect();
    let unreached: Vec<Unreached> = unreached
        .into_iter()
        .filter(|u| scope.is_none_or(|s| s == u.from.product))
        .collect();
    let external_hosts: Vec<External> = external
        .into_iter()
        .filter(|e| scope.is_none_or(|s| s == e.from.product))
        .collect();
    let result = ServiceMap {
        recipe_version: VERSION,
        products,
        dependencies,
        unreached,
        external_hosts,
        trace,
    };
    let title = "Service map".to_string();
    let mut md = header(&title, VERSION, &result.trace);
    if result.products.is_empty() {
        md.para("Nothing is indexed yet.");
        return document(&title, md.finish(), &result);
    }
    md.h2("Diagram");
    diagram(&result).write(&mut md);
    md.h2("Dependencies");
    let rows: Vec<Vec<String>> = result
        .dependencies
        .iter()
        .map(|d| {
            vec![
                d.from.product.clone(),
                service_cell(&d.from),
                d.to.product.clone(),
                service_cell(&d.to),
                d.kind.to_string(),
                tick(&d.detail),
            ]
        })
        .collect();
    md.table(
        &["from", "from service", "to", "to service", "kind", "detail"],
        &rows,
        "No dependency between services is indexed.",
    );
    md.h2("Calls to services of the company that reach no endpoint");
    let rows: Vec<Vec<String>> = result
        .unreached
        .iter()
        .take(UNREACHED_ROWS)
        .map(|u| {
            vec![
                u.from.product.clone(),
                service_cell(&u.from),
                tick(&u.service),
                tick(&u.call),
            ]
        })
        .collect();
    md.table(
        &["from", "from service", "calls service", "call"],
        &rows,
        "Every call to a service of the company reaches one of its endpoints.",
    );
    if result.unreached.len() > UNREACHED_ROWS {
        md.para(&format!(
            "… and {} more (first {UNREACHED_ROWS} shown).",
            result.unreached.len() - UNREACHED_ROWS
        ));
    }
    if !result.unreached.is_empty() {
        md.para(
            "The service is indexed but none of its endpoints answers the call's verb and route: \
             the route may be served under a prefix no indexed config gives it, by code semgraph \
             does not read, or not at all. These calls are no dependency above.",
        );
    }
    md.h2("External services");
    let rows: Vec<Vec<String>> = result
        .external_hosts
        .iter()
        .map(|e| vec![e.from.product.clone(), service_cell(&e.from), tick(&e.host)])
        .collect();
    md.table(
        &["product", "service", "calls host"],
        &rows,
        "No call leaves the company (or none could be resolved to a host).",
    );
    document(&title, md.finish(), &result)
}

/// A service as a table cell: `—` for what belongs to its product as a whole.
fn service_cell(end: &End) -> String {
    end.service.as_deref().map(tick).unwrap_or_else(|| "—".into())
}

/// The diagram's key and label of one end: its service, or its product.
fn node_of(end: &End) -> (String, String) {
    match &end.service {
        Some(s) => (format!("service:{}/{s}", end.product), s.clone()),
        None => (format!("product:{}", end.product), end.product.clone()),
    }
}

/// Services grouped by product (a product with none in a dependency is drawn as itself),
/// an edge per dependency kind between two services, and the hosts outside the company.
fn diagram(r: &ServiceMap) -> Flowchart {
    let mut chart = Flowchart::new(DIAGRAM_NODES);
    let areas: HashMap<&str, &str> = r.products.iter().map(|(p, a)| (p.as_str(), a.as_str())).collect();
    let group = |product: &str| format!("{product} · area: {}", areas.get(product).copied().unwrap_or(""));
    let ends = r
        .dependencies
        .iter()
        .flat_map(|d| [&d.from, &d.to])
        .chain(r.unreached.iter().map(|u| &u.from))
        .chain(r.external_hosts.iter().map(|e| &e.from));
    let mut drawn: BTreeSet<&str> = BTreeSet::new();
    for end in ends {
        let (key, label) = node_of(end);
        let kind = if end.service.is_some() {
            "service"
        } else {
            "product"
        };
        chart.node(
            &key,
            &label,
            Shape::Box,
            Some((&end.product, &group(&end.product))),
            kind,
        );
        drawn.insert(&end.product);
    }
    for (p, _) in r.products.iter().filter(|(p, _)| !drawn.contains(p.as_str())) {
        let end = End {
            product: p.clone(),
            service: None,
        };
        let (key, label) = node_of(&end);
        chart.node(&key, &label, Shape::Box, Some((p, &group(p))), "product");
    }
    let mut edges: BTreeMap<(String, String, &str), usize> = BTreeMap::new();
    for d in &r.dependencies {
        *edges
            .entry((node_of(&d.from).0, node_of(&d.to).0, d.kind))
            .or_default() += 1;
    }
    for ((from, to, kind), n) in &edges {
        let line = if *kind == "messaging" {
            Line::Dotted
        } else {
            Line::Solid
        };
        chart.edge(from, to, &format!("{kind} ×{n}"), line);
    }
    for e in &r.external_hosts {
        let key = format!("external:{}", e.host);
        chart.node(&key, &e.host, Shape::Stadium, None, "external service");
        chart.edge(&node_of(&e.from).0, &key, "http", Line::Solid);
    }
    chart
}
