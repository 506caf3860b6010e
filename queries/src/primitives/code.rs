//! Code questions: find, methods, types, callers and callees, hierarchy, source, endpoints,
//! entry points, outbound HTTP calls, topics, and call paths.

use std::collections::{HashMap, VecDeque};

use roaring::RoaringBitmap;
use semgraph_storage::{ContentKind, Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind};
use serde::Serialize;

use super::{method_display, NodeRef};
use crate::error::QueryError;
use crate::graph::{blast_radius_with_parents, shape, Ctx, Via};
use crate::params::Args;
use crate::render::{document, tick, Md};
use crate::Document;

const CODE: &[NodeKind] = &[NodeKind::Method, NodeKind::Type];

// ---------------------------------------------------------------- search

#[derive(Serialize)]
struct SearchResult {
    query: String,
    hits: Vec<Hit>,
    truncated: bool,
}

#[derive(Serialize)]
struct Hit {
    #[serde(flatten)]
    node: NodeRef,
    matched: &'static str,
}

pub(crate) fn search(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let q = args.text("q");
    let kind = args.get("kind").and_then(NodeKind::parse);
    let scope = args.get("scope");
    let limit = args.int("limit") as usize;
    if let Some(s) = scope {
        ctx.of_kind(NodeKind::Product, Some(s))?;
    }
    let lower = q.to_lowercase();
    let mut ranked: HashMap<u32, (u8, Node)> = HashMap::new();
    let consider = |ranked: &mut HashMap<u32, (u8, Node)>, rank: u8, n: Node| {
        if kind.is_some_and(|k| k != n.kind) {
            return;
        }
        if scope.is_some_and(|s| ctx.product_name(n.product) != s) {
            return;
        }
        let rank = rank
            + if n.flags.contains(NodeFlags::EXTERNAL) {
                10
            } else {
                0
            };
        let e = ranked.entry(n.id.0).or_insert((rank, n.clone()));
        e.0 = e.0.min(rank);
    };
    for n in ctx.load(ctx.snap.find_by_fqn(q)?.into_iter().map(|n| n.0))? {
        consider(&mut ranked, 0, n);
    }
    for n in ctx.load(ctx.snap.find_by_name(q)?.into_iter().map(|n| n.0))? {
        consider(&mut ranked, 1, n);
    }
    for n in ctx.load(ctx.snap.find_by_prefix(q, 2000)?.into_iter().map(|n| n.0))? {
        let rank = if n.name.to_lowercase().starts_with(&lower) {
            2
        } else {
            3
        };
        consider(&mut ranked, rank, n);
    }
    // Substring matches when a kind narrows the search enough to scan it.
    if ranked.len() < limit {
        if let Some(k) = kind {
            let pool = ctx.of_kind(k, scope)?;
            if pool.len() <= 50_000 {
                for n in ctx.load(pool.iter())? {
                    if n.display_name().to_lowercase().contains(&lower) {
                        consider(&mut ranked, 4, n);
                    }
                }
            }
        }
    }
    let mut hits: Vec<(u8, Node)> = ranked.into_values().collect();
    // Within a rank, the things people look for first: types, methods, endpoints, tables.
    let weight = |k: NodeKind| match k {
        NodeKind::Type | NodeKind::Product | NodeKind::Service => 0,
        NodeKind::Method | NodeKind::Endpoint | NodeKind::Table | NodeKind::View => 1,
        NodeKind::Field | NodeKind::Column | NodeKind::File => 3,
        _ => 2,
    };
    hits.sort_by(|a, b| {
        (a.0, weight(a.1.kind), a.1.display_name()).cmp(&(b.0, weight(b.1.kind), b.1.display_name()))
    });
    let truncated = hits.len() > limit;
    let hits: Vec<Hit> = hits
        .into_iter()
        .take(limit)
        .map(|(r, n)| Hit {
            node: NodeRef::of(ctx, &n),
            matched: match r % 10 {
                0 => "exact fqn",
                1 => "exact name",
                2 => "name prefix",
                3 => "fqn prefix",
                _ => "contains",
            },
        })
        .collect();
    let title = format!("Search: {q}");
    let mut md = Md::new(&title);
    if hits.is_empty() {
        let any: Vec<NodeKind> = kind.map(|k| vec![k]).unwrap_or_else(|| CODE.to_vec());
        let near = ctx.nearest_names(q, &any)?;
        md.para(&format!(
            "Nothing indexed matches `{q}`{}.{}",
            kind.map(|k| format!(" of kind `{}`", k.as_str()))
                .unwrap_or_default(),
            if near.is_empty() {
                String::new()
            } else {
                format!(
                    " Nearest names: {}.",
                    near.iter().map(|n| tick(n)).collect::<Vec<_>>().join(", ")
                )
            }
        ));
    } else {
        let rows: Vec<Vec<String>> = hits
            .iter()
            .map(|h| {
                vec![
                    h.node.kind.clone(),
                    tick(h.node.display()),
                    h.node.product.clone(),
                    h.node.location(),
                    h.matched.to_string(),
                ]
            })
            .collect();
        md.table(&["kind", "name", "product", "where", "match"], &rows, "");
        if truncated {
            md.para(&format!(
                "Showing the first {limit}; narrow with `kind` or `scope`, or raise `limit`."
            ));
        }
    }
    document(
        &title,
        md.finish(),
        &SearchResult {
            query: q.to_string(),
            hits,
            truncated,
        },
    )
}

// ---------------------------------------------------------------- method and type details

#[derive(Serialize)]
struct MethodDetails {
    method: NodeRef,
    signature: String,
    returns: Option<String>,
    annotations: Option<String>,
    declared_in: Option<String>,
    callers: usize,
    callees: usize,
    serves: Vec<String>,
    overrides: Vec<String>,
    overridden_by: Vec<String>,
    reads: Vec<String>,
    writes: Vec<String>,
    produces: Vec<String>,
    consumes: Vec<String>,
    config: Vec<String>,
    http_calls: Vec<String>,
}

fn names(nodes: &[Node]) -> Vec<String> {
    nodes.iter().map(|n| n.display_name().to_string()).collect()
}

pub(crate) fn method(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let found = ctx.resolve_or_404(fqn, &[NodeKind::Method], "method")?;
    let mut all = Vec::new();
    let title = format!("Method {fqn}");
    let mut md = Md::new(&title);
    if found.len() > 1 {
        md.para(&format!(
            "{} methods match `{fqn}`; each is shown. Pass the fqn with its parameter types, e.g. `{}`, to pick one.",
            found.len(),
            method_display(&found[0])
        ));
    }
    for m in &found {
        let id = m.id;
        let out = |k| ctx.neighbor_nodes(id, Direction::Out, k);
        let callees_all = ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Calls)?;
        let d = MethodDetails {
            method: NodeRef::of(ctx, m),
            signature: m.attr("signature").unwrap_or(&m.name).to_string(),
            returns: m.attr("returns").map(str::to_string),
            annotations: m.attr("annotations").map(str::to_string),
            declared_in: ctx
                .neighbor_nodes(id, Direction::In, EdgeKind::Contains)?
                .first()
                .map(|t| t.display_name().to_string()),
            callers: ctx.adj().degree(id, Direction::In, EdgeKind::Calls),
            callees: callees_all.iter().filter(|n| n.kind == NodeKind::Method).count(),
            serves: names(&ctx.neighbor_nodes(id, Direction::In, EdgeKind::Serves)?),
            overrides: names(&[out(EdgeKind::Overrides)?, out(EdgeKind::Implements)?].concat()),
            overridden_by: names(
                &[
                    ctx.neighbor_nodes(id, Direction::In, EdgeKind::Overrides)?,
                    ctx.neighbor_nodes(id, Direction::In, EdgeKind::Implements)?,
                ]
                .concat(),
            ),
            reads: names(&out(EdgeKind::Reads)?),
            writes: names(&out(EdgeKind::Writes)?),
            produces: names(&out(EdgeKind::Produces)?),
            consumes: names(&out(EdgeKind::Consumes)?),
            config: names(&out(EdgeKind::UsesConfig)?),
            http_calls: callees_all
                .iter()
                .filter(|n| n.kind == NodeKind::HttpCall)
                .map(|n| n.display_name().to_string())
                .collect(),
        };
        if found.len() > 1 {
            md.h2(&method_display(m));
        }
        let mut rows = vec![
            vec!["fqn".into(), tick(&method_display(m))],
            vec!["product".into(), d.method.product.clone()],
            vec!["declared in".into(), d.declared_in.clone().unwrap_or_default()],
            vec!["where".into(), d.method.location()],
            vec!["signature".into(), tick(&d.signature)],
            vec!["returns".into(), d.returns.clone().unwrap_or_default()],
            vec!["annotations".into(), d.annotations.clone().unwrap_or_default()],
            vec!["callers".into(), d.callers.to_string()],
            vec!["callees".into(), d.callees.to_string()],
        ];
        for (label, list) in [
            ("serves", &d.serves),
            ("overrides / implements", &d.overrides),
            ("overridden by", &d.overridden_by),
            ("reads tables", &d.reads),
            ("writes tables", &d.writes),
            ("produces to", &d.produces),
            ("consumes from", &d.consumes),
            ("config keys", &d.config),
            ("HTTP calls", &d.http_calls),
        ] {
            if !list.is_empty() {
                rows.push(vec![label.into(), list.join(", ")]);
            }
        }
        let mut flags = Vec::new();
        for (f, name) in [
            (NodeFlags::PUBLIC, "public"),
            (NodeFlags::STATIC, "static"),
            (NodeFlags::ABSTRACT, "abstract"),
            (NodeFlags::TEST, "test code"),
            (NodeFlags::EXTERNAL, "library (outside the indexed sources)"),
        ] {
            if m.flags.contains(f) {
                flags.push(name);
            }
        }
        if !flags.is_empty() {
            rows.push(vec!["flags".into(), flags.join(", ")]);
        }
        md.table(&["fact", "value"], &rows, "");
        all.push(d);
    }
    document(&title, md.finish(), &all)
}

#[derive(Serialize)]
struct TypeDetails {
    r#type: NodeRef,
    kind: Option<String>,
    annotations: Option<String>,
    supertypes: Vec<String>,
    subtypes: Vec<String>,
    fields: Vec<(String, String)>,
    methods: Vec<String>,
    maps_to: Vec<String>,
}

pub(crate) fn type_details(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let found = ctx.resolve_or_404(fqn, &[NodeKind::Type], "type")?;
    let title = format!("Type {fqn}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        let id = t.id;
        let contained = ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Contains)?;
        let d = TypeDetails {
            r#type: NodeRef::of(ctx, t),
            kind: t.attr("kind").map(str::to_string),
            annotations: t.attr("annotations").map(str::to_string),
            supertypes: names(
                &[
                    ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Extends)?,
                    ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Implements)?,
                ]
                .concat(),
            ),
            subtypes: names(
                &[
                    ctx.neighbor_nodes(id, Direction::In, EdgeKind::Extends)?,
                    ctx.neighbor_nodes(id, Direction::In, EdgeKind::Implements)?,
                ]
                .concat(),
            ),
            fields: contained
                .iter()
                .filter(|n| n.kind == NodeKind::Field)
                .map(|n| (n.name.clone(), n.attr("type").unwrap_or("").to_string()))
                .collect(),
            methods: contained
                .iter()
                .filter(|n| n.kind == NodeKind::Method)
                .map(|n| n.attr("signature").unwrap_or(&n.name).to_string())
                .collect(),
            maps_to: names(&ctx.neighbor_nodes(id, Direction::Out, EdgeKind::MapsTo)?),
        };
        md.h2(&format!(
            "{} ({})",
            t.display_name(),
            d.kind.as_deref().unwrap_or("type")
        ));
        let mut rows = vec![
            vec!["product".into(), d.r#type.product.clone()],
            vec!["where".into(), d.r#type.location()],
            vec!["annotations".into(), d.annotations.clone().unwrap_or_default()],
            vec!["supertypes".into(), d.supertypes.join(", ")],
            vec!["subtypes".into(), d.subtypes.join(", ")],
        ];
        if !d.maps_to.is_empty() {
            rows.push(vec!["maps to table".into(), d.maps_to.join(", ")]);
        }
        md.table(&["fact", "value"], &rows, "");
        if !d.fields.is_empty() {
            let rows: Vec<Vec<String>> = d.fields.iter().map(|(n, t)| vec![tick(n), t.clone()]).collect();
            md.h3("Fields").table(&["field", "type"], &rows, "");
        }
        if !d.methods.is_empty() {
            md.h3("Methods").bullets(d.methods.iter().map(|m| tick(m)));
        }
        all.push(d);
    }
    document(&title, md.finish(), &all)
}

// ---------------------------------------------------------------- callers and callees

#[derive(Serialize)]
struct CallRow {
    depth: usize,
    method: NodeRef,
    /// The method of the previous depth it calls (callers) or is called by (callees).
    next_to: String,
    via: &'static str,
    lines: Vec<u32>,
    /// For a call that may reach one of several overloads: how many; the call is not
    /// certain to reach this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    ambiguous: Option<u32>,
}

#[derive(Serialize)]
struct CallsResult {
    targets: Vec<NodeRef>,
    direction: &'static str,
    depth: u32,
    rows: Vec<CallRow>,
}

fn via_name(v: Via) -> &'static str {
    match v {
        Via::Call => "call",
        Via::Dispatch => "interface dispatch",
        Via::Http => "HTTP",
    }
}

/// The `via` of a Calls edge to one of several overloads a call may reach, followed by the
/// number of candidates (the indexer writes it; see `docs/storage-format.md`).
const AMBIGUOUS_VIA: &str = "ambiguous:";

/// Overrides of overrides followed this far when a virtual call's targets are listed.
const MAX_DISPATCH_HOPS: usize = 16;

/// What the stored facts of one call say: where it is made and, for a direct call the
/// indexer could not tell apart from other overloads, how many candidates it may reach.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct CallSites {
    /// Call-site lines, sorted, each once.
    pub(crate) lines: Vec<u32>,
    /// For a direct call (`Via::Call`) written `ambiguous:N`: N.
    pub(crate) ambiguous: Option<u32>,
}

/// The [`CallSites`] of many (caller, callee, how) at once, in one batched read of the edge
/// facts, in the order asked: a row per call costs no read of its own. The lines of a call
/// through interface dispatch are those of the caller's calls to `callee` and to the
/// methods it overrides or implements.
pub(crate) fn call_sites_many(
    ctx: &Ctx<'_>,
    calls: &[(u32, u32, Via)],
) -> Result<Vec<CallSites>, QueryError> {
    let mut edges: Vec<(NodeId, EdgeKind, NodeId)> = Vec::with_capacity(calls.len());
    // The call each edge read belongs to, and whether it is the call's own edge.
    let mut owner: Vec<(usize, bool)> = Vec::with_capacity(calls.len());
    for (i, &(caller, callee, via)) in calls.iter().enumerate() {
        edges.push((NodeId(caller), EdgeKind::Calls, NodeId(callee)));
        owner.push((i, via == Via::Call));
        if via == Via::Dispatch {
            for k in [EdgeKind::Overrides, EdgeKind::Implements] {
                for c in ctx.neighbors(NodeId(callee), Direction::Out, k) {
                    edges.push((NodeId(caller), EdgeKind::Calls, NodeId(c)));
                    owner.push((i, false));
                }
            }
        }
    }
    let mut sites: Vec<CallSites> = vec![CallSites::default(); calls.len()];
    for (attrs, &(i, direct)) in ctx.snap.edge_attrs(&edges)?.into_iter().zip(&owner) {
        if let Some(a) = attrs {
            if direct {
                sites[i].ambiguous = a
                    .via
                    .as_deref()
                    .and_then(|v| v.strip_prefix(AMBIGUOUS_VIA)?.parse().ok());
            }
            sites[i].lines.extend(a.lines);
        }
    }
    for s in &mut sites {
        s.lines.sort_unstable();
        s.lines.dedup();
    }
    Ok(sites)
}

pub(crate) fn callers(ctx: &Ctx<'_>, args: &Args, dir: Direction) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let depth = args.int("depth");
    let scope = args.get("scope");
    let targets = ctx.resolve_or_404(fqn, &[NodeKind::Method], "method")?;
    let seeds: RoaringBitmap = targets.iter().map(|n| n.id.0).collect();
    let (layers, parents) = match dir {
        Direction::In => blast_radius_with_parents(ctx.adj(), &seeds, depth),
        Direction::Out => callees_with_parents(ctx, &seeds, depth),
    };
    let mut rows = Vec::new();
    let mut calls = Vec::new();
    for (d, layer) in layers.iter().enumerate() {
        let nodes = ctx.load(layer.iter())?;
        let below: HashMap<u32, Node> = ctx
            .load(nodes.iter().filter_map(|n| parents.get(&n.id.0).map(|p| p.0)))?
            .into_iter()
            .map(|n| (n.id.0, n))
            .collect();
        for n in nodes {
            if scope.is_some_and(|s| ctx.product_name(n.product) != s) {
                continue;
            }
            let Some(&(next, via)) = parents.get(&n.id.0) else {
                continue;
            };
            let (caller, callee) = match dir {
                Direction::In => (n.id.0, next),
                Direction::Out => (next, n.id.0),
            };
            calls.push((caller, callee, via));
            rows.push(CallRow {
                depth: d + 1,
                method: NodeRef::of(ctx, &n),
                next_to: below.get(&next).map(method_display).unwrap_or_default(),
                via: via_name(via),
                lines: Vec::new(),
                ambiguous: None,
            });
        }
    }
    for (row, sites) in rows.iter_mut().zip(call_sites_many(ctx, &calls)?) {
        row.lines = sites.lines;
        row.ambiguous = sites.ambiguous;
    }
    rows.sort_by(|a, b| {
        (a.depth, &a.method.product, a.method.display()).cmp(&(
            b.depth,
            &b.method.product,
            b.method.display(),
        ))
    });
    let (word, title) = match dir {
        Direction::In => ("callers", format!("Callers of {fqn}")),
        Direction::Out => ("callees", format!("Callees of {fqn}")),
    };
    let mut md = Md::new(&title);
    let shown: Vec<String> = targets.iter().map(|t| tick(&method_display(t))).collect();
    md.para(&format!(
        "{} {}: {} (depth {depth}{}).",
        targets.len(),
        if targets.len() == 1 {
            "method"
        } else {
            "methods (all overloads or matches)"
        },
        shown.join(", "),
        scope.map(|s| format!(", scope {s}")).unwrap_or_default()
    ));
    if rows.is_empty() {
        md.para(&format!(
            "No {word} found. {}",
            match dir {
                Direction::In => "Nothing indexed calls it, directly, through an interface it implements, or over HTTP; it may be called by reflection, a framework, or code outside the indexed repositories.",
                Direction::Out => "It calls no indexed method.",
            }
        ));
    }
    for d in 1..=depth as usize {
        let at: Vec<&CallRow> = rows.iter().filter(|r| r.depth == d).collect();
        if at.is_empty() {
            continue;
        }
        if depth > 1 {
            md.h2(&format!("Depth {d}"));
        }
        let table: Vec<Vec<String>> = at
            .iter()
            .map(|r| {
                let site = match (&r.method.file, dir) {
                    (Some(f), Direction::In) if !r.lines.is_empty() => format!(
                        "{f}:{}",
                        r.lines.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
                    ),
                    _ => r.method.location(),
                };
                let mut name = method_display_ref(&r.method);
                if r.method.test {
                    name.push_str(" (test)");
                }
                let via = match r.ambiguous {
                    Some(n) => format!("{} (one of {n} possible targets)", r.via),
                    None => r.via.to_string(),
                };
                vec![r.method.product.clone(), tick(&name), tick(&r.next_to), via, site]
            })
            .collect();
        let next_label = match dir {
            Direction::In => "calls",
            Direction::Out => "called from",
        };
        md.table(&["product", "method", next_label, "via", "where"], &table, "");
    }
    document(
        &title,
        md.finish(),
        &CallsResult {
            targets: targets.iter().map(|t| NodeRef::of(ctx, t)).collect(),
            direction: word,
            depth,
            rows,
        },
    )
}

fn method_display_ref(r: &NodeRef) -> String {
    r.display().to_string()
}

/// Callees by depth: Java calls, and HTTP calls through to the remote handler.
fn callees_with_parents(
    ctx: &Ctx<'_>,
    seeds: &RoaringBitmap,
    depth: u32,
) -> (Vec<RoaringBitmap>, crate::graph::Parents) {
    let adj = ctx.adj();
    let mut seen = seeds.clone();
    let mut parents = crate::graph::Parents::default();
    let mut frontier: Vec<u32> = seeds.iter().collect();
    let mut layers = Vec::new();
    for _ in 0..depth {
        let mut next = RoaringBitmap::new();
        for &m in &frontier {
            for c in adj.neighbors(NodeId(m), Direction::Out, EdgeKind::Calls) {
                if seen.insert(c.0) {
                    next.insert(c.0);
                    parents.insert(c.0, (m, Via::Call));
                }
                // A virtual call may run any override or implementation of its target
                // (transitively: an override of an override), default methods included.
                let mut stack = vec![(c, 0usize)];
                while let Some((up, hops)) = stack.pop() {
                    if hops >= MAX_DISPATCH_HOPS {
                        continue;
                    }
                    for k in [EdgeKind::Overrides, EdgeKind::Implements] {
                        for o in adj.neighbors(up, Direction::In, k) {
                            if seen.insert(o.0) {
                                next.insert(o.0);
                                parents.insert(o.0, (m, Via::Dispatch));
                                stack.push((o, hops + 1));
                            }
                        }
                    }
                }
                for ep in adj.neighbors(c, Direction::Out, EdgeKind::Invokes) {
                    for h in adj.neighbors(ep, Direction::Out, EdgeKind::Serves) {
                        if seen.insert(h.0) {
                            next.insert(h.0);
                            parents.insert(h.0, (m, Via::Http));
                        }
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next.iter().collect();
        layers.push(next);
    }
    (layers, parents)
}

// ---------------------------------------------------------------- hierarchy

#[derive(Serialize)]
struct HierarchyResult {
    r#type: NodeRef,
    supertypes: Vec<(usize, String)>,
    subtypes: Vec<(usize, String)>,
}

fn walk_types(ctx: &Ctx<'_>, start: NodeId, dir: Direction) -> Result<Vec<(usize, String)>, QueryError> {
    let mut out = Vec::new();
    let mut seen = RoaringBitmap::new();
    let mut queue = VecDeque::from([(start, 0usize)]);
    seen.insert(start.0);
    while let Some((id, d)) = queue.pop_front() {
        for k in [EdgeKind::Extends, EdgeKind::Implements] {
            for n in ctx.neighbor_nodes(id, dir, k)? {
                if seen.insert(n.id.0) && d < 16 {
                    out.push((d + 1, n.display_name().to_string()));
                    queue.push_back((n.id, d + 1));
                }
            }
        }
    }
    Ok(out)
}

pub(crate) fn hierarchy(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let found = ctx.resolve_or_404(fqn, &[NodeKind::Type], "type")?;
    let title = format!("Hierarchy of {fqn}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        let r = HierarchyResult {
            r#type: NodeRef::of(ctx, t),
            supertypes: walk_types(ctx, t.id, Direction::Out)?,
            subtypes: walk_types(ctx, t.id, Direction::In)?,
        };
        md.h2(&format!("{} ({})", t.display_name(), r.r#type.product));
        let indent = |(d, n): &(usize, String)| format!("{}{}", "  ".repeat(d.saturating_sub(1)), tick(n));
        md.h3("Supertypes");
        if r.supertypes.is_empty() {
            md.para("None indexed (only `Object` or library types outside the sources).");
        } else {
            md.para(
                &r.supertypes
                    .iter()
                    .map(|x| format!("- {}", indent(x)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        md.h3("Subtypes");
        if r.subtypes.is_empty() {
            md.para("None indexed.");
        } else {
            md.para(
                &r.subtypes
                    .iter()
                    .map(|x| format!("- {}", indent(x)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        all.push(r);
    }
    document(&title, md.finish(), &all)
}

pub(crate) fn implementations(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let found = ctx.resolve_or_404(fqn, CODE, "type or method")?;
    let title = format!("Implementations of {fqn}");
    let mut md = Md::new(&title);
    let mut all: Vec<NodeRef> = Vec::new();
    for t in &found {
        let subs: Vec<Node> = if t.kind == NodeKind::Type {
            let mut seen = RoaringBitmap::new();
            let mut queue = vec![t.id];
            let mut out = Vec::new();
            while let Some(id) = queue.pop() {
                for k in [EdgeKind::Extends, EdgeKind::Implements] {
                    for n in ctx.neighbor_nodes(id, Direction::In, k)? {
                        if seen.insert(n.id.0) {
                            queue.push(n.id);
                            out.push(n);
                        }
                    }
                }
            }
            out
        } else {
            [
                ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::Implements)?,
                ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::Overrides)?,
            ]
            .concat()
        };
        let rows: Vec<Vec<String>> = subs
            .iter()
            .map(|n| {
                let r = NodeRef::of(ctx, n);
                vec![
                    tick(&method_display(n)),
                    n.attr("kind").unwrap_or("").to_string(),
                    r.product.clone(),
                    r.location(),
                ]
            })
            .collect();
        if found.len() > 1 {
            md.h2(&method_display(t));
        }
        md.table(
            &["implementation", "kind", "product", "where"],
            &rows,
            &format!(
                "No implementation or override of `{}` is indexed.",
                method_display(t)
            ),
        );
        all.extend(subs.iter().map(|n| NodeRef::of(ctx, n)));
    }
    document(&title, md.finish(), &all)
}

// ---------------------------------------------------------------- source and files

#[derive(Serialize)]
struct SourceResult {
    node: NodeRef,
    source: String,
}

pub(crate) fn source(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let fqn = args.text("fqn");
    let found = ctx.resolve_or_404(fqn, CODE, "method or type")?;
    let title = format!("Source of {fqn}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for n in &found {
        ctx.check_content(n, "source", &["code/method", "code/type", "code/callers"])?;
        let r = NodeRef::of(ctx, n);
        let Some(text) = ctx.snap.content(n.id, ContentKind::Source)? else {
            md.para(&format!(
                "`{}`: no source stored (a library type, or an implicit member).",
                method_display(n)
            ));
            continue;
        };
        md.code("java", &format!("{} — {}", r.location(), r.product), &text);
        all.push(SourceResult {
            node: r,
            source: text,
        });
    }
    document(&title, md.finish(), &all)
}

pub(crate) fn file(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let product = args.text("product");
    let path = args.text("path");
    let files = ctx.of_kind(NodeKind::File, Some(product))?;
    let found: Vec<Node> = ctx
        .load(ctx.snap.find_by_name(path)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| files.contains(n.id.0))
        .collect();
    let Some(f) = found.first() else {
        let all = ctx.load(files.iter())?;
        let names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
        return Err(QueryError::not_found(
            "file",
            path,
            &crate::error::nearest(path, names.into_iter(), 5),
        ));
    };
    let title = format!("File {product}/{path}");
    let mut md = Md::new(&title);
    let mut declared = Vec::new();
    let mut queue = vec![f.id];
    while let Some(id) = queue.pop() {
        for n in ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Contains)? {
            if n.kind == NodeKind::Type {
                queue.push(n.id);
            }
            declared.push(n);
        }
    }
    declared.sort_by_key(|n| n.span.map(|s| s.start_line).unwrap_or(0));
    let rows: Vec<Vec<String>> = declared
        .iter()
        .map(|n| {
            vec![
                n.kind.as_str().to_string(),
                tick(&method_display(n)),
                n.span
                    .map(|s| format!("{}–{}", s.start_line, s.end_line))
                    .unwrap_or_default(),
            ]
        })
        .collect();
    md.table(
        &["kind", "name", "lines"],
        &rows,
        &format!(
            "`{path}` declares nothing semgraph indexes ({}).",
            f.attr("language").unwrap_or("unknown language")
        ),
    );
    let refs: Vec<NodeRef> = declared.iter().map(|n| NodeRef::of(ctx, n)).collect();
    document(&title, md.finish(), &refs)
}

// ---------------------------------------------------------------- endpoints and entry points

#[derive(Serialize)]
struct EndpointRow {
    node: NodeRef,
    service: String,
    verb: String,
    path: String,
    handler: String,
    kind: String,
}

fn endpoint_row(ctx: &Ctx<'_>, n: &Node) -> EndpointRow {
    EndpointRow {
        node: NodeRef::of(ctx, n),
        service: ctx.service_of(n),
        verb: n.attr("verb").unwrap_or("").to_string(),
        path: n.attr("path").unwrap_or("").to_string(),
        handler: n.attr("handler").unwrap_or("").to_string(),
        kind: n.attr("kind").unwrap_or("").to_string(),
    }
}

/// True when `path` matches `pattern`: `*` is one segment, otherwise a substring.
fn path_matches(path: &str, pattern: &str) -> bool {
    if pattern.contains('*') {
        let p: Vec<&str> = pattern.trim_matches('/').split('/').collect();
        let s: Vec<&str> = path.trim_matches('/').split('/').collect();
        p.len() == s.len()
            && p.iter()
                .zip(&s)
                .all(|(a, b)| *a == "*" || a == b || (a.starts_with('{') && b.starts_with('{')))
    } else {
        path.contains(pattern) || shape(path).contains(&shape(pattern))
    }
}

pub(crate) fn endpoints(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let verb = args.get("verb");
    let pattern = args.get("path");
    let limit = args.int("limit") as usize;
    let ids = ctx.of_kind(NodeKind::Endpoint, args.get("scope"))?;
    let mut rows: Vec<EndpointRow> = ctx
        .load(ids.iter())?
        .iter()
        .filter(|n| verb.is_none_or(|v| n.attr("verb") == Some(v)))
        .filter(|n| pattern.is_none_or(|p| n.attr("path").is_some_and(|x| path_matches(x, p))))
        .map(|n| endpoint_row(ctx, n))
        .collect();
    rows.sort_by(|a, b| (&a.service, &a.path, &a.verb).cmp(&(&b.service, &b.path, &b.verb)));
    let total = rows.len();
    rows.truncate(limit);
    let title = "Endpoints".to_string();
    let mut md = Md::new(&title);
    if ids.is_empty() {
        md.para("No endpoints are indexed in this scope (no HTTP or servlet code was found, or the code domain is not indexed).");
    }
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.service.clone(),
                r.verb.clone(),
                tick(&r.path),
                tick(&r.handler),
                r.kind.clone(),
            ]
        })
        .collect();
    md.table(
        &["service", "verb", "path", "handler", "kind"],
        &table,
        "No endpoint matches these filters.",
    );
    if total > rows.len() {
        md.para(&format!(
            "{} of {total} shown; narrow with `verb`, `path` or `scope`, or raise `limit`.",
            rows.len()
        ));
    }
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
struct EndpointDetails {
    endpoint: EndpointRow,
    handlers: Vec<String>,
    /// Methods that run before the handler on every request (`@ModelAttribute`).
    runs_before: Vec<String>,
    http_callers: Vec<(String, String, String)>,
}

pub(crate) fn endpoint(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let written = format!("{} {}", args.text("verb"), args.text("path"));
    let found = ctx.resolve_endpoint(&written, args.get("scope"))?;
    if found.is_empty() {
        return Err(QueryError::not_found(
            "endpoint",
            &written,
            &ctx.nearest_endpoints(&written)?,
        ));
    }
    let title = format!("Endpoint {written}");
    let mut md = Md::new(&title);
    if found.len() > 1 {
        md.para(&format!(
            "{} services serve `{written}`; each is shown. Pass `scope` to pick a product.",
            found.len()
        ));
    }
    let mut all = Vec::new();
    for e in &found {
        let (handlers, before) = served_by(ctx, e)?;
        let mut http_callers = Vec::new();
        for call in ctx.neighbor_nodes(e.id, Direction::In, EdgeKind::Invokes)? {
            for caller in ctx.neighbor_nodes(call.id, Direction::In, EdgeKind::Calls)? {
                http_callers.push((
                    ctx.product_name(caller.product),
                    method_display(&caller),
                    call.attr("url").unwrap_or(&call.name).to_string(),
                ));
            }
        }
        let row = endpoint_row(ctx, e);
        md.h2(&format!("{} — {}", e.name, row.service));
        md.table(
            &["fact", "value"],
            &[
                vec!["product".into(), row.node.product.clone()],
                vec!["service".into(), row.service.clone()],
                vec!["kind".into(), row.kind.clone()],
                vec![
                    "handler".into(),
                    handlers.iter().map(|h| tick(h)).collect::<Vec<_>>().join(", "),
                ],
                vec![
                    "runs before it".into(),
                    if before.is_empty() {
                        "—".into()
                    } else {
                        before.iter().map(|h| tick(h)).collect::<Vec<_>>().join(", ")
                    },
                ],
                vec!["where".into(), row.node.location()],
            ],
            "",
        );
        let rows: Vec<Vec<String>> = http_callers
            .iter()
            .map(|(p, m, u)| vec![p.clone(), tick(m), tick(u)])
            .collect();
        md.h3("Called over HTTP by");
        md.table(
            &["product", "caller", "url"],
            &rows,
            "No indexed HTTP client calls this endpoint (callers outside the indexed products are unknown).",
        );
        all.push(EndpointDetails {
            endpoint: row,
            handlers,
            runs_before: before,
            http_callers,
        });
    }
    document(&title, md.finish(), &all)
}

pub(crate) fn entry_points(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let kind = args.get("kind");
    let ids = ctx.of_kind(NodeKind::EntryPoint, args.get("scope"))?;
    let mut rows: Vec<(String, String, String, String, NodeRef)> = ctx
        .load(ids.iter())?
        .iter()
        .filter(|n| kind.is_none_or(|k| n.attr("kind") == Some(k)))
        .map(|n| {
            (
                ctx.service_of(n),
                n.attr("kind").unwrap_or("").to_string(),
                n.attr("trigger").unwrap_or("").to_string(),
                n.attr("handler").unwrap_or("").to_string(),
                NodeRef::of(ctx, n),
            )
        })
        .collect();
    rows.sort_by(|a, b| (&a.0, &a.1, &a.2).cmp(&(&b.0, &b.1, &b.2)));
    let title = "Entry points".to_string();
    let mut md = Md::new(&title);
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r.0.clone(), r.1.clone(), tick(&r.2), tick(&r.3), r.4.location()])
        .collect();
    md.table(
        &["service", "kind", "trigger", "handler", "where"],
        &table,
        "No non-HTTP entry point matches.",
    );
    document(
        &title,
        md.finish(),
        &rows.iter().map(|r| &r.4).collect::<Vec<_>>(),
    )
}

// ---------------------------------------------------------------- HTTP calls and topics

#[derive(Serialize)]
pub(crate) struct HttpCallRow {
    caller: String,
    caller_product: String,
    client: String,
    pub(crate) verb: String,
    pub(crate) url: String,
    pub(crate) target_service: String,
    /// `service VERB /route` of each endpoint the call resolves to.
    pub(crate) resolves_to: Vec<String>,
    /// The target is outside the company (a host name with a dot, an IP, localhost).
    pub(crate) external: bool,
    location: String,
}

pub(crate) fn http_call_rows(ctx: &Ctx<'_>, calls: &[Node]) -> Result<Vec<HttpCallRow>, QueryError> {
    let mut rows = Vec::new();
    for c in calls {
        let callers = ctx.neighbor_nodes(c.id, Direction::In, EdgeKind::Calls)?;
        let targets = ctx.neighbor_nodes(c.id, Direction::Out, EdgeKind::Invokes)?;
        rows.push(HttpCallRow {
            caller: callers
                .first()
                .map(method_display)
                .unwrap_or_else(|| c.attr("caller").unwrap_or("").to_string()),
            caller_product: ctx.product_name(c.product),
            client: c.attr("client").unwrap_or("").to_string(),
            verb: c.attr("verb").unwrap_or("").to_string(),
            url: c.attr("url").unwrap_or(&c.name).to_string(),
            target_service: c.attr("target-service").unwrap_or("").to_string(),
            resolves_to: targets
                .iter()
                .map(|t| -> Result<String, QueryError> {
                    let handlers = handlers_of(ctx, t)?;
                    Ok(if handlers.is_empty() {
                        format!("{} {}", ctx.service_of(t), t.name)
                    } else {
                        format!("{} {} → {}", ctx.service_of(t), t.name, handlers.join(", "))
                    })
                })
                .collect::<Result<_, _>>()?,
            external: c.attr("external") == Some("yes"),
            location: NodeRef::of(ctx, c).location(),
        });
    }
    rows.sort_by(|a, b| (&a.caller_product, &a.caller, &a.url).cmp(&(&b.caller_product, &b.caller, &b.url)));
    Ok(rows)
}

/// The handlers that serve endpoint `e` (not the methods that run before them).
pub(crate) fn handlers_of(ctx: &Ctx<'_>, e: &Node) -> Result<Vec<String>, QueryError> {
    Ok(served_by(ctx, e)?.0)
}

/// The methods serving endpoint `e`: its handlers, and the methods that run before them
/// (`@ModelAttribute`, the Serves edges marked `model-attribute`).
pub(crate) fn served_by(ctx: &Ctx<'_>, e: &Node) -> Result<(Vec<String>, Vec<String>), QueryError> {
    let serving = ctx.neighbor_nodes(e.id, Direction::Out, EdgeKind::Serves)?;
    let edges: Vec<(NodeId, EdgeKind, NodeId)> =
        serving.iter().map(|n| (e.id, EdgeKind::Serves, n.id)).collect();
    let attrs = ctx.snap.edge_attrs(&edges)?;
    let mut handlers = Vec::new();
    let mut before = Vec::new();
    for (n, a) in serving.iter().zip(attrs) {
        let name = n.display_name().to_string();
        if a.and_then(|a| a.via).as_deref() == Some("model-attribute") {
            before.push(name);
        } else {
            handlers.push(name);
        }
    }
    handlers.sort();
    before.sort();
    Ok((handlers, before))
}

pub(crate) fn http_calls_table(md: &mut Md, rows: &[HttpCallRow], empty: &str) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.caller_product.clone(),
                tick(&r.caller),
                r.client.clone(),
                r.verb.clone(),
                tick(&r.url),
                r.target_service.clone(),
                if r.resolves_to.is_empty() {
                    if r.external {
                        "external".into()
                    } else {
                        "not resolved (no indexed endpoint matches)".into()
                    }
                } else {
                    r.resolves_to.join(", ")
                },
            ]
        })
        .collect();
    md.table(
        &[
            "product",
            "caller",
            "client",
            "verb",
            "url",
            "target service",
            "resolves to",
        ],
        &table,
        empty,
    );
}

pub(crate) fn http_calls(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let target = args.get("target");
    let limit = args.int("limit") as usize;
    let ids = ctx.of_kind(NodeKind::HttpCall, args.get("scope"))?;
    let calls: Vec<Node> = ctx
        .load(ids.iter())?
        .into_iter()
        .filter(|n| {
            target.is_none_or(|t| {
                n.attr("target-service")
                    .is_some_and(|s| s.eq_ignore_ascii_case(t))
            })
        })
        .collect();
    let mut rows = http_call_rows(ctx, &calls)?;
    let total = rows.len();
    rows.truncate(limit);
    let title = "Outbound HTTP calls".to_string();
    let mut md = Md::new(&title);
    http_calls_table(&mut md, &rows, "No outbound HTTP call matches.");
    if total > rows.len() {
        md.para(&format!(
            "{} of {total} shown; raise `limit` or filter by `target`.",
            rows.len()
        ));
    }
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
struct TopicRow {
    topic: String,
    broker: String,
    products: Vec<String>,
    producers: Vec<String>,
    consumers: Vec<String>,
}

fn topic_rows(ctx: &Ctx<'_>, topics: Vec<Node>) -> Result<Vec<TopicRow>, QueryError> {
    // The same topic is declared by every product that uses it: merge by broker + name.
    let mut merged: std::collections::BTreeMap<(String, String), TopicRow> = Default::default();
    for t in topics {
        let broker = t.attr("broker").unwrap_or("").to_string();
        let row = merged
            .entry((t.name.clone(), broker.clone()))
            .or_insert_with(|| TopicRow {
                topic: t.name.clone(),
                broker,
                products: Vec::new(),
                producers: Vec::new(),
                consumers: Vec::new(),
            });
        row.products.push(ctx.product_name(t.product));
        row.producers.extend(
            ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::Produces)?
                .iter()
                .map(method_display),
        );
        row.consumers.extend(
            ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::Consumes)?
                .iter()
                .map(method_display),
        );
    }
    let mut rows: Vec<TopicRow> = merged.into_values().collect();
    for r in &mut rows {
        for v in [&mut r.products, &mut r.producers, &mut r.consumers] {
            v.sort();
            v.dedup();
        }
    }
    Ok(rows)
}

fn topics_table(md: &mut Md, rows: &[TopicRow]) {
    let list = |v: &[String]| {
        if v.is_empty() {
            "-".into()
        } else {
            v.iter().map(|x| tick(x)).collect::<Vec<_>>().join(", ")
        }
    };
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                tick(&r.topic),
                r.broker.clone(),
                list(&r.producers),
                list(&r.consumers),
            ]
        })
        .collect();
    md.table(
        &["topic", "broker", "producers", "consumers"],
        &table,
        "No message topics or queues are indexed here.",
    );
}

pub(crate) fn topics(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let ids = ctx.of_kind(NodeKind::Topic, args.get("scope"))?;
    let rows = topic_rows(ctx, ctx.load(ids.iter())?)?;
    let title = "Topics and queues".to_string();
    let mut md = Md::new(&title);
    topics_table(&mut md, &rows);
    document(&title, md.finish(), &rows)
}

pub(crate) fn topic(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("name");
    let found = ctx.resolve(name, &[NodeKind::Topic])?;
    if found.is_empty() {
        let all = ctx.load(ctx.snap.nodes_of_kind(NodeKind::Topic).iter())?;
        let names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
        return Err(QueryError::not_found(
            "topic or queue",
            name,
            &crate::error::nearest(name, names.into_iter(), 5),
        ));
    }
    let rows = topic_rows(ctx, found)?;
    let title = format!("Topic {name}");
    let mut md = Md::new(&title);
    topics_table(&mut md, &rows);
    document(&title, md.finish(), &rows)
}

// ---------------------------------------------------------------- paths

#[derive(Serialize)]
struct PathStep {
    node: NodeRef,
    how: &'static str,
}

pub(crate) fn path(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let from = ctx.resolve_or_404(args.text("from"), &[NodeKind::Method], "method")?;
    let to = ctx.resolve_or_404(args.text("to"), &[NodeKind::Method], "method")?;
    let max = args.int("depth") as usize;
    let goal: RoaringBitmap = to.iter().map(|n| n.id.0).collect();
    let adj = ctx.adj();
    // Breadth-first over calls, interface dispatch down to implementations, and HTTP.
    let mut prev: HashMap<u32, (u32, &'static str)> = HashMap::new();
    let mut seen: RoaringBitmap = from.iter().map(|n| n.id.0).collect();
    let mut frontier: Vec<u32> = seen.iter().collect();
    let mut hit = from.iter().map(|n| n.id.0).find(|id| goal.contains(*id));
    let mut depth = 0;
    while hit.is_none() && !frontier.is_empty() && depth < max {
        depth += 1;
        let mut next = Vec::new();
        for &m in &frontier {
            let mut step = |n: u32, how: &'static str, next: &mut Vec<u32>| {
                if seen.insert(n) {
                    prev.insert(n, (m, how));
                    next.push(n);
                }
            };
            for c in adj.neighbors(NodeId(m), Direction::Out, EdgeKind::Calls) {
                step(c.0, "calls", &mut next);
                for k in [EdgeKind::Implements, EdgeKind::Overrides] {
                    for imp in adj.neighbors(c, Direction::In, k) {
                        step(imp.0, "dispatches to", &mut next);
                    }
                }
                for ep in adj.neighbors(c, Direction::Out, EdgeKind::Invokes) {
                    for h in adj.neighbors(ep, Direction::Out, EdgeKind::Serves) {
                        step(h.0, "calls over HTTP", &mut next);
                    }
                }
            }
        }
        hit = next.iter().copied().find(|n| goal.contains(*n));
        frontier = next;
    }
    let title = format!("Path from {} to {}", args.text("from"), args.text("to"));
    let mut md = Md::new(&title);
    let mut steps = Vec::new();
    match hit {
        None => {
            md.para(&format!(
                "No call path of at most {max} hops leads from `{}` to `{}` through indexed calls, interface dispatch or HTTP calls.",
                args.text("from"),
                args.text("to")
            ));
        }
        Some(end) => {
            let mut chain = vec![(end, "")];
            let mut at = end;
            while let Some(&(p, how)) = prev.get(&at) {
                if let Some(last) = chain.last_mut() {
                    last.1 = how;
                }
                chain.push((p, ""));
                at = p;
            }
            chain.reverse();
            let nodes: HashMap<u32, Node> = ctx
                .load(chain.iter().map(|c| c.0))?
                .into_iter()
                .map(|n| (n.id.0, n))
                .collect();
            // `how` was recorded on the node reached; show it on the hop into it.
            let mut rows = Vec::new();
            for (i, (id, _)) in chain.iter().enumerate() {
                let how = if i == 0 {
                    "start"
                } else {
                    prev.get(id).map(|p| p.1).unwrap_or("")
                };
                if let Some(n) = nodes.get(id) {
                    let r = NodeRef::of(ctx, n);
                    rows.push(vec![
                        i.to_string(),
                        how.to_string(),
                        tick(&method_display(n)),
                        r.product.clone(),
                        r.location(),
                    ]);
                    steps.push(PathStep { node: r, how });
                }
            }
            md.table(&["hop", "how", "method", "product", "where"], &rows, "");
        }
    }
    document(&title, md.finish(), &steps)
}
