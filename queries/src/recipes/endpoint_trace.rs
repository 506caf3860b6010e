//! `endpoint-trace`: forward from an endpoint — the methods its handler reaches (with
//! interface dispatch to implementations), the tables they read and write, the outbound
//! HTTP calls and the endpoints they resolve to, the topics produced, the config keys read.

use std::collections::BTreeSet;

use roaring::RoaringBitmap;
use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind};
use serde::Serialize;

use super::{header, more, ROWS};
use crate::error::QueryError;
use crate::graph::Ctx;
use crate::params::Args;
use crate::primitives::code::{http_call_rows, http_calls_table, HttpCallRow};
use crate::primitives::{method_display, NodeRef};
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "endpoint-trace/1";
/// Most methods a trace collects.
const BUDGET: u64 = 20_000;

#[derive(Serialize)]
struct Touch {
    table: String,
    product: String,
    mode: &'static str,
    by: Vec<String>,
}

#[derive(Serialize)]
struct EndpointTrace {
    recipe_version: &'static str,
    endpoint: String,
    depth: u32,
    endpoints: Vec<NodeRef>,
    methods_by_depth: Vec<Vec<NodeRef>>,
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
    trace.step(
        "handlers and the methods they reach",
        || -> Result<_, QueryError> {
            let mut frontier = RoaringBitmap::new();
            for e in &endpoints {
                frontier.extend(ctx.neighbors(e.id, Direction::Out, EdgeKind::Serves));
            }
            seen |= &frontier;
            layers.push(frontier.clone());
            for _ in 1..depth {
                let mut next = RoaringBitmap::new();
                for m in &frontier {
                    for c in adj.neighbors(NodeId(m), Direction::Out, EdgeKind::Calls) {
                        next.insert(c.0);
                        // Interface dispatch: a call to an abstract method reaches its implementations.
                        for k in [EdgeKind::Implements, EdgeKind::Overrides] {
                            next.extend(adj.neighbors(c, Direction::In, k).map(|n| n.0));
                        }
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
            Ok(((), format!("{} nodes over {} level(s)", seen.len(), layers.len())))
        },
    )?;
    if seen.len() > BUDGET {
        trace.warn(format!("the trace stopped at {BUDGET} methods; lower `depth`"));
    }
    let nodes = ctx.load(seen.iter())?;
    let by_id: std::collections::HashMap<u32, &semgraph_storage::Node> =
        nodes.iter().map(|n| (n.id.0, n)).collect();
    let methods_by_depth: Vec<Vec<NodeRef>> = layers
        .iter()
        .map(|l| {
            let mut v: Vec<NodeRef> = l
                .iter()
                .filter_map(|id| by_id.get(&id))
                .filter(|n| {
                    n.kind == NodeKind::Method && !n.flags.contains(semgraph_storage::NodeFlags::EXTERNAL)
                })
                .map(|n| NodeRef::of(ctx, n))
                .collect();
            v.sort_by(|a, b| a.display().cmp(b.display()));
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
        methods_by_depth,
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
        "{} reaches {methods} method(s) within {} level(s), touches {} table(s), makes {} outbound HTTP call(s), produces to {} topic(s) and reads {} config key(s).",
        tick(&written),
        result.methods_by_depth.len(),
        result.tables.len(),
        result.http_calls.len(),
        result.topics.len(),
        result.config_keys.len()
    ));
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
            .map(|m| vec![tick(m.display()), m.product.clone(), m.location()])
            .collect();
        md.table(&["method", "product", "where"], &rows, "");
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
