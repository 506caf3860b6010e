//! `endpoint-trace`: forward from an endpoint — the methods its handler reaches (with
//! interface dispatch to implementations), the tables they read and write, the outbound
//! HTTP calls and the endpoints they resolve to, the topics produced, the config keys read.
//!
//! The trace crosses service boundaries the way a request does: an outbound HTTP call
//! that resolves to an endpoint of another service continues into that endpoint's
//! handler, and a topic produced on the way continues into the listeners that consume
//! it — one level of the shared depth budget each. Every crossing is said (from which
//! method, through which call or topic, into which service and handler), and every method
//! reached says how it was reached. Methods that run before the handler (`@ModelAttribute`)
//! are traced with it.

use std::collections::BTreeSet;

use roaring::RoaringBitmap;
use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind};
use serde::Serialize;

use super::{header, more, ROWS};
use crate::error::QueryError;
use crate::graph::Ctx;
use crate::mermaid::{Flowchart, Line, Shape};
use crate::params::Args;
use crate::primitives::code::{http_call_rows, http_calls_table, HttpCallRow};
use crate::primitives::{method_display, NodeRef};
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "endpoint-trace/3";
/// Most nodes the diagram draws.
const DIAGRAM_NODES: usize = 30;
/// Most methods a trace collects.
const BUDGET: u64 = 20_000;

#[derive(Serialize)]
struct Touch {
    table: String,
    product: String,
    mode: &'static str,
    by: Vec<String>,
}

/// A service boundary the trace crossed.
#[derive(Serialize, Clone)]
struct Crossing {
    /// `http` or `topic`.
    kind: &'static str,
    /// The method on this side.
    from: String,
    /// The call (`GET inventory-service /api/stock/{sku}`) or topic (`order-events (kafka)`).
    via: String,
    /// The service and product on the other side.
    to_service: String,
    to_product: String,
    /// The handler or listener reached there.
    handler: String,
    /// The trace level at which the other side was reached.
    depth: usize,
}

/// A method reached, with how it was reached.
#[derive(Serialize)]
struct Reached {
    #[serde(flatten)]
    node: NodeRef,
    /// The crossing through which the trace entered its service, when it is not the
    /// endpoint's own (an index into `crossings`).
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<usize>,
}

#[derive(Serialize)]
struct EndpointTrace {
    recipe_version: &'static str,
    endpoint: String,
    depth: u32,
    endpoints: Vec<NodeRef>,
    /// The service of each endpoint traced, in the same order.
    services: Vec<String>,
    methods_by_depth: Vec<Vec<Reached>>,
    crossings: Vec<Crossing>,
    tables: Vec<Touch>,
    http_calls: Vec<HttpCallRow>,
    topics: Vec<(String, String, Vec<String>)>,
    config_keys: Vec<String>,
    trace: Trace,
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let written = args.text("endpoint").to_string();
    let depth = args.int("depth");
    let mut trace = Trace::default();
    let endpoints = trace.step("resolve endpoint", || -> Result<_, QueryError> {
        let found = ctx.resolve_endpoint(&written, args.get("scope"))?;
        let msg = if found.is_empty() {
            let near = ctx.nearest_endpoints(&written)?;
            format!(
                "0 endpoints: none is `{written}`; nearest names: {}",
                if near.is_empty() {
                    "none".into()
                } else {
                    near.join(", ")
                }
            )
        } else {
            let services: Vec<String> = found.iter().map(|e| ctx.service_of(e)).collect();
            format!("{} endpoint(s) on {}", found.len(), services.join(", "))
        };
        Ok((found, msg))
    })?;
    let adj = ctx.adj();
    let mut seen = RoaringBitmap::new();
    let mut layers: Vec<RoaringBitmap> = Vec::new();
    // How a node was reached across a boundary: (node, the crossing's edge). The crossings
    // themselves are named once the nodes on both sides are loaded.
    let mut entered: std::collections::HashMap<u32, (u32, Boundary)> = std::collections::HashMap::new();
    // For a node reached inside another service: the node the trace entered it by.
    let mut origin: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let http_calls = ctx.snap.nodes_of_kind(NodeKind::HttpCall);
    trace.step(
        "handlers and the methods they reach, across services",
        || -> Result<_, QueryError> {
            let mut frontier = RoaringBitmap::new();
            for e in &endpoints {
                frontier.extend(ctx.neighbors(e.id, Direction::Out, EdgeKind::Serves));
            }
            seen |= &frontier;
            layers.push(frontier.clone());
            for level in 1..depth {
                let mut next = RoaringBitmap::new();
                // (reached node, the node it was reached from, the boundary crossed)
                let mut crossed: Vec<(u32, u32, Boundary)> = Vec::new();
                for m in &frontier {
                    if http_calls.contains(m) {
                        continue;
                    }
                    let from_origin = origin.get(&m).copied();
                    let mut callees: Vec<u32> = Vec::new();
                    for c in adj.neighbors(NodeId(m), Direction::Out, EdgeKind::Calls) {
                        callees.push(c.0);
                        // Interface dispatch: a call to an abstract method reaches its implementations.
                        for k in [EdgeKind::Implements, EdgeKind::Overrides] {
                            callees.extend(adj.neighbors(c, Direction::In, k).map(|n| n.0));
                        }
                    }
                    for c in callees {
                        if http_calls.contains(c) {
                            // An outbound call continues, at the same level, in the handler
                            // of the endpoint it resolves to.
                            for ep in adj.neighbors(NodeId(c), Direction::Out, EdgeKind::Invokes) {
                                for h in adj.neighbors(ep, Direction::Out, EdgeKind::Serves) {
                                    crossed.push((
                                        h.0,
                                        c,
                                        Boundary::Http {
                                            endpoint: ep.0,
                                            level,
                                        },
                                    ));
                                }
                            }
                        }
                        if !seen.contains(c) && next.insert(c) {
                            if let Some(o) = from_origin {
                                origin.entry(c).or_insert(o);
                            }
                        }
                    }
                    // A topic produced continues in the methods that consume it.
                    for t in adj.neighbors(NodeId(m), Direction::Out, EdgeKind::Produces) {
                        for consumer in adj.neighbors(t, Direction::In, EdgeKind::Consumes) {
                            crossed.push((consumer.0, m, Boundary::Topic { topic: t.0, level }));
                        }
                    }
                }
                for (to, from, b) in crossed {
                    if !seen.contains(to) && !entered.contains_key(&to) {
                        next.insert(to);
                        entered.insert(to, (from, b));
                        origin.insert(to, to);
                    }
                }
                next -= &seen;
                if next.is_empty() || seen.len() > BUDGET {
                    break;
                }
                seen |= &next;
                layers.push(next.clone());
                frontier = next;
            }
            Ok((
                (),
                format!(
                    "{} nodes over {} level(s), {} crossing(s) into other services or listeners",
                    seen.len(),
                    layers.len(),
                    entered.len()
                ),
            ))
        },
    )?;
    if seen.len() > BUDGET {
        trace.warn(format!("the trace stopped at {BUDGET} methods; lower `depth`"));
    }
    let nodes = ctx.load(seen.iter())?;
    let by_id: std::collections::HashMap<u32, &semgraph_storage::Node> =
        nodes.iter().map(|n| (n.id.0, n)).collect();
    let crossings_of = crossings(ctx, &entered, &by_id)?;
    let (crossings, crossing_of): (Vec<Crossing>, std::collections::HashMap<u32, usize>) = crossings_of;
    // A method reached inside another service says the crossing it came through.
    let via_of: std::collections::HashMap<u32, usize> = origin
        .iter()
        .filter_map(|(id, o)| crossing_of.get(o).map(|c| (*id, *c)))
        .collect();
    let methods_by_depth: Vec<Vec<Reached>> = layers
        .iter()
        .map(|l| {
            let mut v: Vec<Reached> = l
                .iter()
                .filter_map(|id| by_id.get(&id))
                .filter(|n| {
                    n.kind == NodeKind::Method && !n.flags.contains(semgraph_storage::NodeFlags::EXTERNAL)
                })
                .map(|n| Reached {
                    node: NodeRef::of(ctx, n),
                    via: via_of.get(&n.id.0).copied(),
                })
                .collect();
            v.sort_by(|a, b| a.node.display().cmp(b.node.display()));
            v
        })
        .collect();
    let tables = trace.step("tables read and written", || -> Result<_, QueryError> {
        let mut touches: std::collections::BTreeMap<(u32, &'static str), Touch> = Default::default();
        for n in nodes.iter().filter(|n| n.kind == NodeKind::Method) {
            for (kind, mode) in [(EdgeKind::Reads, "read"), (EdgeKind::Writes, "write")] {
                for t in ctx.neighbor_nodes(n.id, Direction::Out, kind)? {
                    touches
                        .entry((t.id.0, mode))
                        .or_insert_with(|| Touch {
                            table: t.name.clone(),
                            product: ctx.product_name(t.product),
                            mode,
                            by: Vec::new(),
                        })
                        .by
                        .push(method_display(n));
                }
            }
        }
        let v: Vec<Touch> = touches.into_values().collect();
        let n = v.len();
        Ok((v, format!("{n} table touch(es)")))
    })?;
    let calls = trace.step("outbound HTTP calls", || -> Result<_, QueryError> {
        let calls: Vec<_> = nodes
            .iter()
            .filter(|n| n.kind == NodeKind::HttpCall)
            .cloned()
            .collect();
        let rows = http_call_rows(ctx, &calls)?;
        let n = rows.len();
        Ok((rows, format!("{n} call(s)")))
    })?;
    let topics = trace.step("topics produced", || -> Result<_, QueryError> {
        let mut out: std::collections::BTreeMap<(String, String), BTreeSet<String>> = Default::default();
        for n in nodes.iter().filter(|n| n.kind == NodeKind::Method) {
            for t in ctx.neighbor_nodes(n.id, Direction::Out, EdgeKind::Produces)? {
                out.entry((t.name.clone(), t.attr("broker").unwrap_or("").to_string()))
                    .or_default()
                    .insert(method_display(n));
            }
        }
        let v: Vec<(String, String, Vec<String>)> = out
            .into_iter()
            .map(|((t, b), m)| (t, b, m.into_iter().collect()))
            .collect();
        let n = v.len();
        Ok((v, format!("{n} topic(s)")))
    })?;
    let config_keys = trace.step("config keys read", || -> Result<_, QueryError> {
        let mut keys = BTreeSet::new();
        for n in nodes.iter().filter(|n| n.kind == NodeKind::Method) {
            let mut holders = vec![n.id];
            holders.extend(
                ctx.neighbors(n.id, Direction::In, EdgeKind::Contains)
                    .into_iter()
                    .map(NodeId),
            );
            for h in holders {
                for k in ctx.neighbor_nodes(h, Direction::Out, EdgeKind::UsesConfig)? {
                    keys.insert(k.name);
                }
            }
        }
        let n = keys.len();
        Ok((keys.into_iter().collect::<Vec<_>>(), format!("{n} key(s)")))
    })?;
    let result = EndpointTrace {
        recipe_version: VERSION,
        endpoint: written.clone(),
        depth,
        endpoints: endpoints.iter().map(|e| NodeRef::of(ctx, e)).collect(),
        services: endpoints.iter().map(|e| ctx.service_of(e)).collect(),
        methods_by_depth,
        crossings,
        tables,
        http_calls: calls,
        topics,
        config_keys,
        trace,
    };
    let title = format!("Endpoint trace: {written}");
    let mut md = header(&title, VERSION, &result.trace);
    if result.endpoints.is_empty() {
        md.para(&format!(
            "Nothing to trace: no indexed endpoint is `{written}` (nearest names in the steps above)."
        ));
        return document(&title, md.finish(), &result);
    }
    md.h2("Summary");
    let methods: usize = result.methods_by_depth.iter().map(Vec::len).sum();
    md.para(&format!(
        "{} reaches {methods} method(s) within {} level(s), crosses {} service boundar{} (HTTP calls into other services' handlers, topics into their listeners), touches {} table(s), makes {} outbound HTTP call(s), produces to {} topic(s) and reads {} config key(s).",
        tick(&written),
        result.methods_by_depth.len(),
        result.crossings.len(),
        if result.crossings.len() == 1 { "y" } else { "ies" },
        result.tables.len(),
        result.http_calls.len(),
        result.topics.len(),
        result.config_keys.len()
    ));
    md.h2("Diagram");
    diagram(&result).write(&mut md);
    md.h2("Across services");
    let rows: Vec<Vec<String>> = result
        .crossings
        .iter()
        .map(|c| {
            vec![
                c.depth.to_string(),
                tick(&c.from),
                format!("{} {}", c.kind, tick(&c.via)),
                format!("{} ({})", c.to_service, c.to_product),
                tick(&c.handler),
            ]
        })
        .collect();
    md.table(
        &["level", "from", "through", "into", "handler"],
        &rows,
        "The trace stays inside the endpoint's own service: no HTTP call on the way resolves to an indexed endpoint, and no topic produced on the way has an indexed listener.",
    );
    md.h2("Methods reached");
    for (d, layer) in result.methods_by_depth.iter().enumerate() {
        if layer.is_empty() {
            continue;
        }
        md.h3(if d == 0 {
            "Handler".to_string()
        } else {
            format!("Depth {d}")
        }
        .as_str());
        let rows: Vec<Vec<String>> = layer
            .iter()
            .take(ROWS)
            .map(|m| {
                let via = match m.via.and_then(|i| result.crossings.get(i)) {
                    Some(c) => format!("{} {} → {}", c.kind, tick(&c.via), c.to_service),
                    None => "—".to_string(),
                };
                vec![
                    tick(m.node.display()),
                    m.node.product.clone(),
                    via,
                    m.node.location(),
                ]
            })
            .collect();
        md.table(&["method", "product", "reached through", "where"], &rows, "");
        more(&mut md, layer.len(), rows.len(), "lower `depth`");
    }
    md.h2("Tables");
    let rows: Vec<Vec<String>> = result
        .tables
        .iter()
        .map(|t| {
            vec![
                tick(&t.table),
                t.product.clone(),
                t.mode.to_string(),
                t.by.iter().map(|b| tick(b)).collect::<Vec<_>>().join(", "),
            ]
        })
        .collect();
    md.table(
        &["table", "product", "mode", "by"],
        &rows,
        "No indexed table is read or written on the way.",
    );
    md.h2("Outbound HTTP");
    http_calls_table(&mut md, &result.http_calls, "No outbound HTTP call on the way.");
    md.h2("Topics produced");
    let rows: Vec<Vec<String>> = result
        .topics
        .iter()
        .map(|(t, b, m)| {
            vec![
                tick(t),
                b.clone(),
                m.iter().map(|x| tick(x)).collect::<Vec<_>>().join(", "),
            ]
        })
        .collect();
    md.table(
        &["topic", "broker", "by"],
        &rows,
        "No topic or queue is produced to on the way.",
    );
    md.h2("Config keys");
    if result.config_keys.is_empty() {
        md.para("No config key is read through `@Value` or `@ConfigurationProperties` on the way.");
    } else {
        md.bullets(result.config_keys.iter().map(|k| tick(k)));
    }
    document(&title, md.finish(), &result)
}

/// A boundary the walk crossed to reach a node: the edge it crossed and the level.
#[derive(Clone, Copy)]
enum Boundary {
    /// Through an HTTP call, into the handler of the endpoint it resolves to.
    Http { endpoint: u32, level: u32 },
    /// Through a topic, into a method that consumes it.
    Topic { topic: u32, level: u32 },
}

/// The crossings of the walk, named, and the crossing each entered node came through.
#[allow(clippy::type_complexity)]
fn crossings(
    ctx: &Ctx<'_>,
    entered: &std::collections::HashMap<u32, (u32, Boundary)>,
    reached: &std::collections::HashMap<u32, &semgraph_storage::Node>,
) -> Result<(Vec<Crossing>, std::collections::HashMap<u32, usize>), QueryError> {
    let mut ids: Vec<u32> = entered
        .values()
        .map(|(_, b)| match b {
            Boundary::Http { endpoint, .. } => *endpoint,
            Boundary::Topic { topic, .. } => *topic,
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let far: std::collections::HashMap<u32, semgraph_storage::Node> =
        ctx.load(ids)?.into_iter().map(|n| (n.id.0, n)).collect();
    let mut list: Vec<(u32, Crossing)> = Vec::new();
    for (to, (from, b)) in entered {
        let (Some(to_node), Some(from_node)) = (reached.get(to), reached.get(from)) else {
            continue;
        };
        let (kind, via, level, from_name, to_service) = match b {
            Boundary::Http { endpoint, level } => {
                let Some(ep) = far.get(endpoint) else { continue };
                // The HTTP call node: name the method that makes it.
                let caller = ctx
                    .neighbor_nodes(from_node.id, Direction::In, EdgeKind::Calls)?
                    .first()
                    .map(method_display)
                    .unwrap_or_else(|| from_node.attr("caller").unwrap_or("").to_string());
                (
                    "http",
                    format!("{} {}", ctx.service_of(ep), ep.name),
                    *level,
                    caller,
                    ctx.service_of(ep),
                )
            }
            Boundary::Topic { topic, level } => {
                let Some(t) = far.get(topic) else { continue };
                // The listener's service is its entry point's.
                let listener = ctx
                    .neighbor_nodes(to_node.id, Direction::In, EdgeKind::Serves)?
                    .into_iter()
                    .find(|e| e.kind == NodeKind::EntryPoint);
                let service = listener.map_or_else(|| ctx.service_of(to_node), |e| ctx.service_of(&e));
                (
                    "topic",
                    format!("{} ({})", t.name, t.attr("broker").unwrap_or("")),
                    *level,
                    method_display(from_node),
                    service,
                )
            }
        };
        list.push((
            *to,
            Crossing {
                kind,
                from: from_name,
                via,
                to_service,
                to_product: ctx.product_name(to_node.product),
                handler: method_display(to_node),
                depth: level as usize,
            },
        ));
    }
    list.sort_by(|a, b| {
        (a.1.depth, &a.1.from, &a.1.via, &a.1.handler).cmp(&(b.1.depth, &b.1.from, &b.1.via, &b.1.handler))
    });
    let mut crossings: Vec<Crossing> = Vec::new();
    let mut of: std::collections::HashMap<u32, usize> = std::collections::HashMap::new();
    for (to, c) in list {
        let i = crossings
            .iter()
            .position(|x| x.kind == c.kind && x.via == c.via && x.handler == c.handler)
            .unwrap_or_else(|| {
                crossings.push(c);
                crossings.len() - 1
            });
        of.insert(to, i);
    }
    Ok((crossings, of))
}

/// The subgraph of a service: its name, and its product when that is another word.
fn service_group<'a>(service: &'a str, product: &str) -> (&'a str, String) {
    let label = if service == product || product.is_empty() {
        service.to_string()
    } else {
        format!("{service} ({product})")
    };
    (service, label)
}

/// The path across services: the endpoint traced, the endpoints its outbound calls reach
/// (each in its service), hosts outside the company, the topics produced and the tables
/// read and written on the way.
fn diagram(r: &EndpointTrace) -> Flowchart {
    let mut chart = Flowchart::new(DIAGRAM_NODES);
    let origins: Vec<String> = r
        .endpoints
        .iter()
        .zip(&r.services)
        .map(|(e, service)| {
            let key = format!("endpoint:{service} {}", e.name);
            let (g, label) = service_group(service, &e.product);
            chart.node(&key, &e.name, Shape::Hexagon, Some((g, &label)), "endpoint");
            key
        })
        .collect();
    // Several endpoints match what was written: edges leave from one node standing for them.
    let origin = match origins.as_slice() {
        [one] => one.clone(),
        _ => {
            let key = format!("trace:{}", r.endpoint);
            chart.node(&key, &r.endpoint, Shape::Box, None, "endpoint");
            for o in &origins {
                chart.edge(&key, o, "", Line::Solid);
            }
            key
        }
    };
    for call in &r.http_calls {
        if call.resolves_to.is_empty() {
            let host = if call.target_service.is_empty() {
                call.url.as_str()
            } else {
                call.target_service.as_str()
            };
            let key = format!("service:{host}");
            let label = if call.external {
                format!("{host} (external)")
            } else {
                format!("{host} (not resolved)")
            };
            chart.node(&key, &label, Shape::Stadium, None, "service");
            chart.edge(&origin, &key, &format!("HTTP {}", call.verb), Line::Solid);
        }
        for target in &call.resolves_to {
            let (service, route) = target.split_once(' ').unwrap_or((target.as_str(), ""));
            let key = format!("endpoint:{target}");
            chart.node(&key, route, Shape::Box, Some((service, service)), "endpoint");
            chart.edge(&origin, &key, &format!("HTTP {}", call.verb), Line::Solid);
        }
    }
    for (topic, broker, _) in &r.topics {
        let key = format!("topic:{topic}");
        let label = if broker.is_empty() {
            topic.clone()
        } else {
            format!("{topic} ({broker})")
        };
        chart.node(&key, &label, Shape::Subroutine, None, "topic");
        chart.edge(&origin, &key, "produces", Line::Dotted);
    }
    // Listeners in other services the walk went on into.
    for c in r.crossings.iter().filter(|c| c.kind == "topic") {
        let topic = format!("topic:{}", c.via.split(" (").next().unwrap_or(&c.via));
        let key = format!("listener:{}", c.handler);
        let (g, label) = service_group(&c.to_service, &c.to_product);
        let name = c.handler.split('(').next().unwrap_or(&c.handler);
        let short: Vec<&str> = name.rsplitn(3, '.').collect();
        let shown = match short.as_slice() {
            [m, t, _] => format!("{t}.{m}"),
            _ => name.to_string(),
        };
        chart.node(&key, &shown, Shape::Box, Some((g, &label)), "listener");
        chart.edge(&topic, &key, "consumed by", Line::Dotted);
    }
    let mut modes: std::collections::BTreeMap<(&str, &str), Vec<&str>> = Default::default();
    for t in &r.tables {
        modes.entry((&t.product, &t.table)).or_default().push(t.mode);
    }
    for ((product, table), modes) in modes {
        let key = format!("table:{product}.{table}");
        chart.node(&key, table, Shape::Cylinder, None, "table");
        let words: Vec<&str> = modes
            .iter()
            .map(|m| if *m == "read" { "reads" } else { "writes" })
            .collect();
        chart.edge(&origin, &key, &words.join(", "), Line::Solid);
    }
    chart
}
