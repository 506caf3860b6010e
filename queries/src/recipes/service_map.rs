//! `service-map`: the products and how they depend on each other — HTTP calls resolved to
//! another product's endpoints, topics one produces and another consumes, and tables one
//! product's code or schema uses that another owns — with a mermaid diagram.

use std::collections::{BTreeMap, BTreeSet};

use semgraph_storage::{Direction, EdgeKind, NodeFlags, NodeKind};
use serde::Serialize;

use super::header;
use crate::error::QueryError;
use crate::graph::Ctx;
use crate::mermaid::{Flowchart, Line, Shape};
use crate::params::Args;
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "service-map/1";
/// Most nodes the diagram draws.
const DIAGRAM_NODES: usize = 60;

#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Dependency {
    from: String,
    to: String,
    kind: &'static str,
    detail: String,
}

#[derive(Serialize)]
struct ServiceMap {
    recipe_version: &'static str,
    products: Vec<(String, String)>,
    dependencies: Vec<Dependency>,
    external_hosts: Vec<(String, String)>,
    trace: Trace,
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let scope = args.get("scope");
    if let Some(s) = scope {
        ctx.of_kind(NodeKind::Product, Some(s))?;
    }
    let mut trace = Trace::default();
    let mut deps: BTreeSet<Dependency> = BTreeSet::new();
    let mut external: BTreeSet<(String, String)> = BTreeSet::new();
    trace.step("HTTP calls between products", || -> Result<_, QueryError> {
        let mut n = 0;
        // Production calls only: a test calling a service (its own, through MockMvc, or
        // another) makes no dependency between products.
        let calls = ctx.snap.nodes_of_kind(NodeKind::HttpCall) - ctx.snap.nodes_with_flag(NodeFlags::TEST);
        for call in ctx.load(calls.iter())? {
            let from = ctx.product_name(call.product);
            let targets = ctx.neighbor_nodes(call.id, Direction::Out, EdgeKind::Invokes)?;
            if targets.is_empty() {
                if let Some(host) = call.attr("target-service") {
                    external.insert((from.clone(), host.to_string()));
                }
            }
            for e in targets {
                n += 1;
                deps.insert(Dependency {
                    from: from.clone(),
                    to: ctx.product_name(e.product),
                    kind: "http",
                    detail: format!("{} {}", ctx.service_of(&e), e.name),
                });
            }
        }
        Ok(((), format!("{n} resolved call(s)")))
    })?;
    trace.step("topics produced and consumed", || -> Result<_, QueryError> {
        let mut n = 0;
        for topic in ctx.load(ctx.snap.nodes_of_kind(NodeKind::Topic).iter())? {
            let producers = ctx.neighbor_nodes(topic.id, Direction::In, EdgeKind::Produces)?;
            let consumers = ctx.neighbor_nodes(topic.id, Direction::In, EdgeKind::Consumes)?;
            for p in &producers {
                for c in &consumers {
                    n += 1;
                    deps.insert(Dependency {
                        from: ctx.product_name(p.product),
                        to: ctx.product_name(c.product),
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
                for user in ctx.neighbor_nodes(table.id, Direction::In, kind)? {
                    let from = ctx.product_name(user.product);
                    if from != owner {
                        n += 1;
                        deps.insert(Dependency {
                            from,
                            to: owner.clone(),
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
    let keep = |d: &Dependency| scope.is_none_or(|s| d.from == s || d.to == s);
    let dependencies: Vec<Dependency> = deps.into_iter().filter(|d| keep(d) && d.from != d.to).collect();
    let external_hosts: Vec<(String, String)> = external
        .into_iter()
        .filter(|(p, _)| scope.is_none_or(|s| s == p))
        .collect();
    let result = ServiceMap {
        recipe_version: VERSION,
        products,
        dependencies,
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
    let mut chart = Flowchart::new(DIAGRAM_NODES);
    for (p, a) in &result.products {
        chart.node(p, p, Shape::Box, Some((a, &format!("area: {a}"))), "product");
    }
    let mut edges: BTreeMap<(String, String, &str), usize> = BTreeMap::new();
    for d in &result.dependencies {
        *edges.entry((d.from.clone(), d.to.clone(), d.kind)).or_default() += 1;
    }
    for ((from, to, kind), n) in &edges {
        let line = if *kind == "messaging" {
            Line::Dotted
        } else {
            Line::Solid
        };
        chart.edge(from, to, &format!("{kind} ×{n}"), line);
    }
    for (p, host) in &result.external_hosts {
        let key = format!("external:{host}");
        chart.node(&key, host, Shape::Stadium, None, "external service");
        chart.edge(p, &key, "http", Line::Solid);
    }
    chart.write(&mut md);
    md.h2("Dependencies");
    let rows: Vec<Vec<String>> = result
        .dependencies
        .iter()
        .map(|d| vec![d.from.clone(), d.to.clone(), d.kind.to_string(), tick(&d.detail)])
        .collect();
    md.table(
        &["from", "to", "kind", "detail"],
        &rows,
        "No dependency between products is indexed.",
    );
    md.h2("External services");
    let rows: Vec<Vec<String>> = result
        .external_hosts
        .iter()
        .map(|(p, h)| vec![p.clone(), tick(h)])
        .collect();
    md.table(
        &["product", "calls host"],
        &rows,
        "No call leaves the company (or none could be resolved to a host).",
    );
    document(&title, md.finish(), &result)
}
