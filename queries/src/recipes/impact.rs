//! `impact`: what breaks if this changes.
//!
//! Resolve the seed (a method; a type stands for all its methods; an endpoint for its
//! handler), walk callers up to `depth` with interface dispatch and HTTP calls across
//! services, then collect in one pass each: the endpoints and entry points that reach the
//! change, the callers in other products, the topics produced on the way and who consumes
//! them, the tables written, the tests that reach it (apart from production callers), and
//! the recent incidents that mention the affected products. Source snippets (the changed
//! method and each direct caller's call site) are added for products in the caller's area.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use roaring::RoaringBitmap;
use semgraph_storage::{ContentKind, Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind};
use serde::Serialize;

use super::{header, more, ROWS};
use crate::error::QueryError;
use crate::graph::{blast_radius_until, edges_of_kind, reached_entry_points, Ctx, Via};
use crate::mermaid::{Flowchart, Line, Shape};
use crate::params::Args;
use crate::primitives::code::call_sites_many;
use crate::primitives::docs::{issue_row, issues_table, IssueRow};
use crate::primitives::{method_display, NodeRef};
use crate::render::{document, tick, Md};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "impact/2";
/// Most nodes the diagram draws.
const DIAGRAM_NODES: usize = 30;
/// Most methods a blast radius collects before it stops going deeper.
const BUDGET: u64 = 50_000;
/// Entry points are searched up to this depth whatever the listing depth: "which endpoints
/// does this break" must not stop at three hops. Past the listing depth the search goes on
/// only while the reached set stays under [`ENTRY_BUDGET`].
const ENTRY_DEPTH: u32 = 8;
const ENTRY_BUDGET: u64 = 5_000;
/// Most tests read to choose the five shown by name.
const CANDIDATES: usize = 2_000;
const VERBS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

#[derive(Serialize, Clone)]
pub(crate) struct CallerRow {
    pub(crate) depth: usize,
    pub(crate) method: NodeRef,
    pub(crate) calls: String,
    pub(crate) via: &'static str,
    pub(crate) site: String,
    /// For a call that may reach one of several overloads: how many (the caller may not
    /// reach the change at all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ambiguous: Option<u32>,
    /// The call-site lines `site` names (the source snippet of a direct caller is cut
    /// around the first).
    #[serde(skip)]
    pub(crate) lines: Vec<u32>,
}

#[derive(Serialize)]
pub(crate) struct EntryRow {
    pub(crate) depth: usize,
    pub(crate) product: String,
    pub(crate) service: String,
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) handler: String,
}

#[derive(Serialize)]
pub(crate) struct CrossRow {
    pub(crate) caller_product: String,
    pub(crate) caller_service: String,
    pub(crate) caller: String,
    pub(crate) endpoint: String,
    pub(crate) endpoint_product: String,
}

#[derive(Serialize)]
pub(crate) struct TopicRow {
    pub(crate) topic: String,
    pub(crate) broker: String,
    pub(crate) produced_by: Vec<String>,
    pub(crate) consumers: Vec<String>,
    /// The products of the consumers, each once.
    pub(crate) consumer_products: Vec<String>,
}

#[derive(Serialize)]
pub(crate) struct TableRow {
    pub(crate) table: String,
    /// The product whose schema defines the table; empty when none does.
    pub(crate) product: String,
    pub(crate) written_by: Vec<String>,
}

#[derive(Serialize)]
struct Snippet {
    title: String,
    location: String,
    code: String,
}

/// What [`consolidate`] finds: the parts of an impact answer that do not depend on how the
/// changed methods were named.
pub(crate) struct Consolidated {
    /// The nodes read so far, by id (seeds, callers shown, HTTP callers).
    pub(crate) by_id: HashMap<u32, Node>,
    /// Production callers by depth, at most [`ROWS`] per depth, with call sites.
    pub(crate) callers: Vec<CallerRow>,
    /// Production callers within `depth`, listed or not.
    pub(crate) callers_total: usize,
    pub(crate) endpoints: Vec<EntryRow>,
    pub(crate) entry_points: Vec<EntryRow>,
    pub(crate) other_products: Vec<CrossRow>,
    pub(crate) topics: Vec<TopicRow>,
    pub(crate) tables_written: Vec<TableRow>,
    /// Test methods that reach the change, sorted by name.
    pub(crate) tests: Vec<NodeRef>,
    pub(crate) test_count: usize,
    pub(crate) affected_methods: usize,
    pub(crate) affected_products: Vec<String>,
    pub(crate) incidents: Vec<IssueRow>,
}

#[derive(Serialize)]
struct Impact {
    recipe_version: &'static str,
    target: String,
    depth: u32,
    targets: Vec<NodeRef>,
    /// The service of each target, in the same order.
    target_services: Vec<String>,
    affected_methods: usize,
    affected_products: Vec<String>,
    callers: Vec<CallerRow>,
    callers_not_shown: usize,
    endpoints: Vec<EntryRow>,
    entry_points: Vec<EntryRow>,
    other_products: Vec<CrossRow>,
    topics: Vec<TopicRow>,
    tables_written: Vec<TableRow>,
    tests: Vec<NodeRef>,
    test_count: usize,
    incidents: Vec<IssueRow>,
    sources: Vec<Snippet>,
    trace: Trace,
}

/// The methods a written target designates, and how it was read.
fn resolve_seed(ctx: &Ctx<'_>, target: &str) -> Result<(Vec<Node>, String), QueryError> {
    let first = target.split_whitespace().next().unwrap_or("").to_uppercase();
    if VERBS.contains(&first.as_str()) && target.contains('/') {
        let endpoints = ctx.resolve_endpoint(target, None)?;
        let mut handlers = Vec::new();
        for e in &endpoints {
            for h in ctx.neighbor_nodes(e.id, Direction::Out, EdgeKind::Serves)? {
                if h.kind == NodeKind::Method {
                    handlers.push(h);
                } else {
                    handlers.extend(
                        ctx.neighbor_nodes(h.id, Direction::Out, EdgeKind::Contains)?
                            .into_iter()
                            .filter(|m| m.kind == NodeKind::Method),
                    );
                }
            }
        }
        let how = format!(
            "{} endpoint(s) `{target}` → {} handler method(s)",
            endpoints.len(),
            handlers.len()
        );
        return Ok((handlers, how));
    }
    let found = ctx.resolve(target, &[NodeKind::Method, NodeKind::Type])?;
    let mut methods = Vec::new();
    let mut types = 0;
    for n in &found {
        if n.kind == NodeKind::Type {
            types += 1;
            methods.extend(
                ctx.neighbor_nodes(n.id, Direction::Out, EdgeKind::Contains)?
                    .into_iter()
                    .filter(|m| m.kind == NodeKind::Method),
            );
        } else {
            methods.push(n.clone());
        }
    }
    let how = if types > 0 {
        format!("{types} type(s) → {} method(s)", methods.len())
    } else if methods.len() > 1 {
        format!(
            "{} methods match `{target}` (ambiguous or overloaded: all are analysed; pass `package.Type.method(ParamType, …)` to narrow)",
            methods.len()
        )
    } else {
        format!("{} method(s)", methods.len())
    };
    Ok((methods, how))
}

/// The service a method or type is deployed in: the Service node whose folder holds its
/// file (up the Contains edges: method → type → file → service), else what
/// [`Ctx::service_of`] says (the product, for code outside any module).
fn code_service(ctx: &Ctx<'_>, node: &Node) -> Result<String, QueryError> {
    let mut frontier = vec![node.clone()];
    for _ in 0..6 {
        let mut next = Vec::new();
        for n in &frontier {
            for parent in ctx.neighbor_nodes(n.id, Direction::In, EdgeKind::Contains)? {
                if parent.kind == NodeKind::Service {
                    return Ok(parent.name);
                }
                if matches!(parent.kind, NodeKind::Type | NodeKind::File | NodeKind::Package) {
                    next.push(parent);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    Ok(ctx.service_of(node))
}

fn via_word(v: Via) -> &'static str {
    match v {
        Via::Call => "call",
        Via::Dispatch => "interface dispatch",
        Via::Http => "HTTP",
    }
}

/// `lines` of `text` (which starts at `first_line`) around `at`, numbered.
fn excerpt(text: &str, first_line: u32, at: u32, around: u32) -> String {
    let lo = at.saturating_sub(around).max(first_line);
    let hi = at + around;
    text.lines()
        .enumerate()
        .map(|(i, l)| (first_line + i as u32, l))
        .filter(|(n, _)| *n >= lo && *n <= hi)
        .map(|(n, l)| format!("{n:>5}{} {l}", if n == at { ">" } else { " " }))
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let target = args.text("target").to_string();
    let depth = args.int("depth");
    let include_tests = args.flag("include_tests");
    let mut trace = Trace::default();

    let seeds_nodes = trace.step("resolve target", || -> Result<_, QueryError> {
        let (nodes, how) = resolve_seed(ctx, &target)?;
        if nodes.is_empty() {
            let near = ctx.nearest_names(&target, &[NodeKind::Method, NodeKind::Type])?;
            let mut near = near;
            if target.contains('/') {
                near.extend(ctx.nearest_endpoints(&target)?);
            }
            let msg = format!(
                "0 targets: no method, type or endpoint matches `{target}`; nearest names: {}",
                if near.is_empty() {
                    "none".into()
                } else {
                    near.iter().map(|n| tick(n)).collect::<Vec<_>>().join(", ")
                }
            );
            return Ok((nodes, msg));
        }
        Ok((nodes, how))
    })?;
    let title = format!("Impact of {target}");
    let Consolidated {
        by_id,
        mut callers,
        callers_total,
        endpoints,
        entry_points,
        other_products,
        topics,
        tables_written,
        tests: test_refs,
        test_count,
        affected_methods,
        affected_products,
        incidents,
        ..
    } = consolidate(ctx, &seeds_nodes, depth, include_tests, &mut trace)?;
    crate::freshness::note(ctx, &mut trace, &affected_products, None)?;

    // Source: the changed methods and the direct callers' call sites, in the caller's area.
    let mut withheld: BTreeSet<String> = BTreeSet::new();
    let sources = trace.step("source snippets", || -> Result<_, QueryError> {
        let mut out = Vec::new();
        for s in seeds_nodes.iter().take(5) {
            if !ctx.may_read(s) {
                withheld.insert(ctx.product_name(s.product));
                continue;
            }
            if let Some(text) = ctx.snap.content(s.id, ContentKind::Source)? {
                out.push(Snippet {
                    title: format!("changed: {}", method_display(s)),
                    location: NodeRef::of(ctx, s).location(),
                    code: text,
                });
            }
        }
        for c in callers
            .iter()
            .filter(|c| c.depth == 1 && c.via != "HTTP")
            .take(10)
        {
            let Some(n) = by_id.get(&c.method.id) else {
                continue;
            };
            if !ctx.may_read(n) {
                withheld.insert(ctx.product_name(n.product));
                continue;
            }
            let Some(text) = ctx.snap.content(n.id, ContentKind::Source)? else {
                continue;
            };
            let first = n.span.map(|s| s.start_line).unwrap_or(1);
            let code = match c.lines.first() {
                Some(&at) => excerpt(&text, first, at, 2),
                None => excerpt(&text, first, first, 3),
            };
            out.push(Snippet {
                title: format!("call site in {}", method_display(n)),
                location: c.site.clone(),
                code,
            });
        }
        let msg = if withheld.is_empty() {
            format!("{} snippet(s)", out.len())
        } else {
            format!(
                "{} snippet(s); content withheld for {} product(s) outside your area",
                out.len(),
                withheld.len()
            )
        };
        Ok((out, msg))
    })?;
    if !withheld.is_empty() {
        trace.warn(format!(
            "content withheld for {} product(s) outside your area ({}): their source is left out, their structure is shown",
            withheld.len(),
            withheld.iter().cloned().collect::<Vec<_>>().join(", ")
        ));
    }

    callers.truncate(ROWS * depth as usize);
    let result = Impact {
        recipe_version: VERSION,
        target: target.clone(),
        depth,
        targets: seeds_nodes.iter().map(|n| NodeRef::of(ctx, n)).collect(),
        target_services: seeds_nodes
            .iter()
            .map(|n| code_service(ctx, n))
            .collect::<Result<_, _>>()?,
        affected_methods,
        affected_products,
        callers_not_shown: callers_total - callers.len(),
        callers,
        endpoints,
        entry_points,
        other_products,
        topics,
        tables_written,
        tests: if include_tests {
            test_refs
        } else {
            test_refs.into_iter().take(5).collect()
        },
        test_count,
        incidents,
        sources,
        trace,
    };
    let md = render(&result, include_tests);
    document(&title, md, &result)
}

/// The consolidated impact of changing `seeds_nodes` (methods), as both `impact` and
/// `change-impact` report it: the blast radius up to `depth` (entry points searched
/// deeper), the callers by depth with call sites, the endpoints and entry points reached,
/// the callers in other services, the topics produced and their consumers, the tables
/// written, the tests that reach the change (every one with `include_tests`, else the
/// first [`CANDIDATES`] read) and the incidents that mention the affected products. Each
/// part is a step of `trace`.
pub(crate) fn consolidate(
    ctx: &Ctx<'_>,
    seeds_nodes: &[Node],
    depth: u32,
    include_tests: bool,
    trace: &mut Trace,
) -> Result<Consolidated, QueryError> {
    let seeds: RoaringBitmap = seeds_nodes.iter().map(|n| n.id.0).collect();

    let (layers, parents) = trace.step(
        "blast radius (calls, interface dispatch, HTTP)",
        || -> Result<_, QueryError> {
            // Past `depth` the walk only looks for entry points: of the callers found there,
            // only those over HTTP are shown (callers in other services), so only theirs
            // keep a parent.
            let (layers, parents, cut) = blast_radius_until(
                ctx.adj(),
                &seeds,
                ENTRY_DEPTH.max(depth),
                |level, reached| reached <= BUDGET && (level < depth || reached <= ENTRY_BUDGET),
                |level, via| level < depth || via == Via::Http,
            );
            let total: u64 = layers.iter().take(depth as usize).map(|l| l.len()).sum();
            let per: Vec<String> = layers
                .iter()
                .take(depth as usize)
                .enumerate()
                .map(|(d, l)| format!("depth {}: {}", d + 1, l.len()))
                .collect();
            let deeper: u64 = layers.iter().skip(depth as usize).map(|l| l.len()).sum();
            let beyond = if layers.len() > depth as usize {
                let cut = if cut && total <= BUDGET {
                    format!(
                        ", where it stopped at its budget of {ENTRY_BUDGET} methods: entry points reached only further up may be missing"
                    )
                } else {
                    String::new()
                };
                format!(
                    "; the entry-point search went on to depth {} ({deeper} more methods){cut}",
                    layers.len()
                )
            } else {
                String::new()
            };
            Ok((
                (layers, parents),
                format!(
                    "{total} methods within depth {depth} ({}){beyond}",
                    if per.is_empty() {
                        "no callers".into()
                    } else {
                        per.join(", ")
                    }
                ),
            ))
        },
    )?;
    let total_reached: u64 = layers.iter().map(|l| l.len()).sum();
    if total_reached > BUDGET {
        trace.warn(format!(
            "the blast radius holds {total_reached} methods, over the budget of {BUDGET}: tables and lists are cut; lower `depth`"
        ));
    }

    // Tests and products are told apart with the in-memory flag and product sets; only
    // the methods a row of the document shows are read from the store.
    // The depth at which a reached method was first found (None for the seeds).
    let depth_of = |id: u32| layers.iter().position(|l| l.contains(id)).map(|d| d + 1);
    let test_flagged = ctx.snap.nodes_with_flag(NodeFlags::TEST);
    let mut searched = RoaringBitmap::new();
    for l in &layers {
        searched |= l;
    }
    let mut within_depth = RoaringBitmap::new();
    for l in layers.iter().take(depth as usize) {
        within_depth |= l;
    }
    let production_all = &searched - test_flagged;
    let production = &within_depth - test_flagged;
    let tests = &within_depth & test_flagged;
    let mut by_id: HashMap<u32, Node> = seeds_nodes.iter().map(|n| (n.id.0, n.clone())).collect();

    // Callers by depth (production only), each with its call site.
    let callers: Vec<CallerRow> =
        trace.step("callers by depth with call sites", || -> Result<_, QueryError> {
            // Per depth, the rows shown come from the products in name order, each product's
            // callers in index order (a file's methods together), then sorted by name: only
            // the rows shown are read from the store.
            let mut shown: Vec<u32> = Vec::new();
            for layer in layers.iter().take(depth as usize) {
                let layer = layer - test_flagged;
                let mut room = ROWS;
                for (_, nodes) in ctx.snap.products_touching(&layer) {
                    let part = &layer & nodes;
                    let before = shown.len();
                    shown.extend(part.iter().take(room));
                    room -= shown.len() - before;
                    if room == 0 {
                        break;
                    }
                }
            }
            let parents_shown: Vec<u32> = shown
                .iter()
                .filter_map(|id| parents.get(id).map(|&(below, _)| below))
                .collect();
            by_id.extend(ctx.load_map(shown.iter().copied().chain(parents_shown))?);
            let mut rows: Vec<(CallerRow, u32, Via)> = shown
                .iter()
                .filter_map(|id| by_id.get(id))
                .map(|n| {
                    let (below, via) = parents.get(&n.id.0).copied().unwrap_or((n.id.0, Via::Call));
                    let r = NodeRef::of(ctx, n);
                    let row = CallerRow {
                        depth: depth_of(n.id.0).unwrap_or(0),
                        calls: by_id.get(&below).map(method_display).unwrap_or_default(),
                        site: r.location(),
                        method: r,
                        via: via_word(via),
                        ambiguous: None,
                        lines: Vec::new(),
                    };
                    (row, below, via)
                })
                .collect();
            rows.sort_by(|(a, ..), (b, ..)| {
                (a.depth, &a.method.product, a.method.display()).cmp(&(
                    b.depth,
                    &b.method.product,
                    b.method.display(),
                ))
            });
            let mut per_depth: HashMap<usize, usize> = HashMap::new();
            rows.retain(|(r, ..)| {
                let n = per_depth.entry(r.depth).or_default();
                *n += 1;
                *n <= ROWS
            });
            let calls: Vec<(u32, u32, Via)> = rows
                .iter()
                .map(|(row, below, via)| (row.method.id, *below, *via))
                .collect();
            let rows: Vec<CallerRow> = rows
                .into_iter()
                .zip(call_sites_many(ctx, &calls)?)
                .map(|((mut row, ..), sites)| {
                    row.ambiguous = sites.ambiguous;
                    if let (Some(f), Some(_)) = (&row.method.file, sites.lines.first()) {
                        row.site = format!(
                            "{f}:{}",
                            sites
                                .lines
                                .iter()
                                .map(u32::to_string)
                                .collect::<Vec<_>>()
                                .join(",")
                        );
                    }
                    row.lines = sites.lines;
                    row
                })
                .collect();
            let direct_layer = layers.first().map(|l| l - test_flagged).unwrap_or_default();
            let direct = direct_layer.len();
            // Direct callers whose call may reach another overload instead: counted apart,
            // from one batched read of their calls' facts.
            let direct_calls: Vec<(u32, u32, Via)> = direct_layer
                .iter()
                .filter_map(|id| match parents.get(&id) {
                    Some(&(below, Via::Call)) => Some((id, below, Via::Call)),
                    _ => None,
                })
                .collect();
            let possible = call_sites_many(ctx, &direct_calls)?
                .iter()
                .filter(|s| s.ambiguous.is_some())
                .count();
            let apart = if possible > 0 {
                format!(" ({possible} of them only possibly: one of several possible targets)")
            } else {
                String::new()
            };
            Ok((
                rows,
                format!(
                    "{direct} direct production callers{apart}, {} in all",
                    production.len()
                ),
            ))
        })?;
    let callers_total = production.len() as usize;

    // Endpoints and entry points whose handler is the change or reaches it.
    // Entry points over every level searched; topics and tables within `depth`.
    let reach_all = &seeds | &production_all;
    let reach = &seeds | &production;
    let (endpoints, entry_points) = trace.step("entry points reached", || -> Result<_, QueryError> {
        let ids = reached_entry_points(ctx.adj(), &reach_all);
        let mut eps = Vec::new();
        let mut others = Vec::new();
        for e in ctx.load(ids.iter())? {
            let handler_depth = ctx
                .neighbors(e.id, Direction::Out, EdgeKind::Serves)
                .into_iter()
                .filter_map(|h| if seeds.contains(h) { Some(0) } else { depth_of(h) })
                .min()
                .unwrap_or(0);
            let row = EntryRow {
                depth: handler_depth,
                product: ctx.product_name(e.product),
                service: ctx.service_of(&e),
                kind: e.attr("kind").unwrap_or("").to_string(),
                name: if e.kind == NodeKind::Endpoint {
                    e.name.clone()
                } else {
                    e.attr("trigger").unwrap_or(&e.name).to_string()
                },
                handler: e.attr("handler").unwrap_or("").to_string(),
            };
            if e.kind == NodeKind::Endpoint {
                eps.push(row);
            } else {
                others.push(row);
            }
        }
        for v in [&mut eps, &mut others] {
            v.sort_by(|a, b| (a.depth, &a.service, &a.name).cmp(&(b.depth, &b.service, &b.name)));
        }
        let msg = format!(
            "{} endpoints, {} other entry points (scheduled jobs, listeners, main)",
            eps.len(),
            others.len()
        );
        Ok(((eps, others), msg))
    })?;

    // Callers in other products, reached over HTTP.
    let other_products = trace.step("callers in other services (HTTP)", || -> Result<_, QueryError> {
        let mut over_http: Vec<(u32, u32)> = parents
            .iter()
            .filter(|(id, (_, via))| *via == Via::Http && production_all.contains(**id))
            .map(|(&id, &(below, _))| (id, below))
            .collect();
        over_http.sort_unstable();
        by_id.extend(ctx.load_map(over_http.iter().flat_map(|&(c, b)| [c, b]))?);
        let mut rows = Vec::new();
        for (caller, below) in over_http {
            let Some(n) = by_id.get(&caller) else { continue };
            {
                let Some(b) = by_id.get(&below) else { continue };
                let served: Vec<Node> = ctx
                    .neighbor_nodes(b.id, Direction::In, EdgeKind::Serves)?
                    .into_iter()
                    .filter(|e| e.kind == NodeKind::Endpoint)
                    .collect();
                for e in served {
                    rows.push(CrossRow {
                        caller_product: ctx.product_name(n.product),
                        caller_service: code_service(ctx, n)?,
                        caller: method_display(n),
                        endpoint: format!("{} {}", ctx.service_of(&e), e.name),
                        endpoint_product: ctx.product_name(e.product),
                    });
                }
            }
        }
        rows.sort_by(|a, b| (&a.caller_product, &a.caller).cmp(&(&b.caller_product, &b.caller)));
        let products: BTreeSet<&str> = rows.iter().map(|r| r.caller_product.as_str()).collect();
        let msg = format!("{} HTTP caller(s) in {} product(s)", rows.len(), products.len());
        Ok((rows, msg))
    })?;

    // Topics produced on the way, and their consumers.
    let topics = trace.step(
        "topics produced and their consumers",
        || -> Result<_, QueryError> {
            // Edges from the adjacency, then one batched read for the nodes they reach.
            let produced = edges_of_kind(ctx.adj(), &reach, Direction::Out, EdgeKind::Produces);
            let topic_ids: BTreeSet<u32> = produced.iter().map(|&(_, t)| t).collect();
            let consumed: Vec<(u32, u32)> = topic_ids
                .iter()
                .flat_map(|&t| {
                    ctx.neighbors(NodeId(t), Direction::In, EdgeKind::Consumes)
                        .into_iter()
                        .map(move |c| (t, c))
                })
                .collect();
            let loaded = ctx.load_map(
                topic_ids
                    .iter()
                    .copied()
                    .chain(consumed.iter().map(|&(_, c)| c))
                    .chain(produced.iter().map(|&(m, _)| m)),
            )?;
            let mut merged: BTreeMap<(String, String), TopicRow> = BTreeMap::new();
            for &(m, t) in &produced {
                let Some(t) = loaded.get(&t) else { continue };
                let broker = t.attr("broker").unwrap_or("").to_string();
                let row = merged
                    .entry((t.name.clone(), broker.clone()))
                    .or_insert_with(|| TopicRow {
                        topic: t.name.clone(),
                        broker,
                        produced_by: Vec::new(),
                        consumers: Vec::new(),
                        consumer_products: Vec::new(),
                    });
                if let Some(p) = loaded.get(&m) {
                    row.produced_by.push(method_display(p));
                }
                for c in consumed
                    .iter()
                    .filter(|&&(topic, _)| topic == t.id.0)
                    .filter_map(|(_, c)| loaded.get(c))
                {
                    let product = ctx.product_name(c.product);
                    row.consumers.push(format!("{} ({product})", method_display(c)));
                    row.consumer_products.push(product);
                }
            }
            let mut rows: Vec<TopicRow> = merged.into_values().collect();
            for r in &mut rows {
                r.produced_by.sort();
                r.produced_by.dedup();
                r.consumers.sort();
                r.consumers.dedup();
                r.consumer_products.sort();
                r.consumer_products.dedup();
            }
            let consumers: usize = rows.iter().map(|r| r.consumers.len()).sum();
            let msg = format!("{} topic(s), {consumers} consumer(s)", rows.len());
            Ok((rows, msg))
        },
    )?;

    // Tables written by the change or its callers.
    let tables_written = trace.step("tables written", || -> Result<_, QueryError> {
        let written = edges_of_kind(ctx.adj(), &reach, Direction::Out, EdgeKind::Writes);
        let loaded = ctx.load_map(written.iter().flat_map(|&(m, t)| [m, t]))?;
        let mut merged: BTreeMap<u32, TableRow> = BTreeMap::new();
        for (m, t) in written {
            let Some(t) = loaded.get(&t) else { continue };
            let row = merged.entry(t.id.0).or_insert_with(|| TableRow {
                table: t.name.clone(),
                product: ctx.product_name(t.product),
                written_by: Vec::new(),
            });
            if let Some(p) = loaded.get(&m) {
                row.written_by.push(method_display(p));
            }
        }
        let mut rows: Vec<TableRow> = merged.into_values().collect();
        // Tables no indexed schema defines (made at run time by `ddl-auto`, or kept in
        // another repository): the writes that found no table, by the name code gives.
        let mut undefined: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
        for m in reach.iter() {
            for r in ctx.snap.unlinked_of(NodeId(m)) {
                if r.kind == EdgeKind::Writes && r.candidates == 0 {
                    if let Some(table) = semgraph_storage::keys::table_of_key(&r.key) {
                        undefined.entry(table).or_default().push(m);
                    }
                }
            }
        }
        let named = rows.len();
        if !undefined.is_empty() {
            let writers = ctx.load_map(undefined.values().flatten().copied())?;
            for (table, by) in undefined {
                rows.push(TableRow {
                    table: table.to_string(),
                    product: String::new(),
                    written_by: by
                        .iter()
                        .filter_map(|m| writers.get(m))
                        .map(method_display)
                        .collect(),
                });
            }
        }
        let msg = if rows.len() > named {
            format!(
                "{} table(s), {} of them defined by no indexed schema",
                rows.len(),
                rows.len() - named
            )
        } else {
            format!("{} table(s)", rows.len())
        };
        Ok((rows, msg))
    })?;

    // Tests, apart.
    let test_count = tests.len() as usize;
    let test_cap = if include_tests {
        BUDGET as usize
    } else {
        CANDIDATES
    };
    let mut test_refs: Vec<NodeRef> = ctx
        .load(tests.iter().take(test_cap))?
        .iter()
        .map(|n| NodeRef::of(ctx, n))
        .collect();
    test_refs.sort_by(|a, b| a.display().cmp(b.display()));
    trace.step("tests reaching the change", || -> Result<_, QueryError> {
        Ok(((), format!("{test_count} test method(s)")))
    })?;

    // Incidents that mention the affected products or the changed code.
    let mut affected_products: Vec<String> = ctx
        .snap
        .products_touching(&reach)
        .into_iter()
        .map(|(p, _)| p.name)
        .collect();
    affected_products.sort();
    let incidents = trace.step(
        "recent incidents and bugs mentioning the affected products",
        || -> Result<_, QueryError> {
            let mut ids = RoaringBitmap::new();
            for p in &affected_products {
                for prod in ctx.snap.product_nodes_of_kind(p, NodeKind::Product).iter() {
                    ids.extend(ctx.neighbors(NodeId(prod), Direction::In, EdgeKind::Mentions));
                }
            }
            for s in &seeds {
                ids.extend(ctx.neighbors(NodeId(s), Direction::In, EdgeKind::Mentions));
            }
            let mut rows: Vec<IssueRow> = Vec::new();
            for n in ctx.load(ids.iter())? {
                if n.kind == NodeKind::JiraIssue && matches!(n.attr("type"), Some("Incident" | "Bug")) {
                    rows.push(issue_row(ctx, &n)?);
                }
            }
            rows.sort_by(|a, b| b.created.cmp(&a.created).then(a.key.cmp(&b.key)));
            let total = rows.len();
            rows.truncate(10);
            Ok((rows, format!("{total} incident(s) or bug(s)")))
        },
    )?;

    Ok(Consolidated {
        by_id,
        callers,
        callers_total,
        endpoints,
        entry_points,
        other_products,
        topics,
        tables_written,
        tests: test_refs,
        test_count,
        affected_methods: production.len() as usize,
        affected_products,
        incidents,
    })
}

fn render(r: &Impact, include_tests: bool) -> String {
    let mut md = header(&format!("Impact of {}", r.target), VERSION, &r.trace);
    md.h2("Summary");
    if r.targets.is_empty() {
        md.para(&format!(
            "Nothing to analyse: `{}` names no indexed method, type or endpoint (see the steps above for the nearest names). \
             Search with `code/search` and pass an fqn.",
            r.target
        ));
        return md.finish();
    }
    let eps: Vec<String> = r
        .endpoints
        .iter()
        .take(8)
        .map(|e| format!("{} {}", e.service, e.name))
        .collect();
    md.para(&format!(
        "Changing {} can affect **{} production method(s) in {} product(s)** ({}) within {} level(s) of callers: \
         **{} endpoint(s)**{}, {} other entry point(s), {} table(s) written, {} topic(s) produced, {} caller(s) in other services over HTTP. \
         {} test method(s) reach it.",
        r.targets.iter().take(3).map(|t| tick(t.display())).collect::<Vec<_>>().join(", ")
            + if r.targets.len() > 3 { " …" } else { "" },
        r.affected_methods,
        r.affected_products.len(),
        r.affected_products.join(", "),
        r.depth,
        r.endpoints.len(),
        if eps.is_empty() { String::new() } else { format!(" ({}{})", eps.join(", "), if r.endpoints.len() > 8 { ", …" } else { "" }) },
        r.entry_points.len(),
        r.tables_written.len(),
        r.topics.len(),
        r.other_products.len(),
        r.test_count,
    ));
    let deepest = r.callers.iter().map(|c| c.depth).max().unwrap_or(0);
    if deepest as u32 == r.depth && r.depth < 8 {
        md.para(&format!(
            "Callers continue past depth {}: raise `depth` (max 8) to see further.",
            r.depth
        ));
    }

    md.h2("Diagram");
    diagram(r).write(&mut md);

    md.h2("Targets");
    let rows: Vec<Vec<String>> = r
        .targets
        .iter()
        .map(|t| vec![tick(t.display()), t.product.clone(), t.location()])
        .collect();
    md.table(&["method", "product", "where"], &rows, "");

    md.h2("Endpoints and entry points reached");
    let mut rows: Vec<Vec<String>> = Vec::new();
    for e in r.endpoints.iter().chain(&r.entry_points).take(ROWS) {
        rows.push(vec![
            e.product.clone(),
            e.service.clone(),
            e.kind.clone(),
            tick(&e.name),
            tick(&e.handler),
            e.depth.to_string(),
        ]);
    }
    md.table(
        &["product", "service", "kind", "endpoint / trigger", "handler", "depth"],
        &rows,
        "No endpoint or entry point reaches the change within this depth (it may be reached deeper, from code outside the indexed repositories, or through reflection).",
    );
    more(
        &mut md,
        r.endpoints.len() + r.entry_points.len(),
        rows.len(),
        "see the JSON answer or lower the scope",
    );

    md.h2("Callers by depth");
    if r.callers.is_empty() {
        md.para("No production method calls the change (directly, through an interface, or over HTTP).");
    }
    let max_depth = r.callers.iter().map(|c| c.depth).max().unwrap_or(0);
    for d in 1..=max_depth {
        let at: Vec<&CallerRow> = r.callers.iter().filter(|c| c.depth == d).collect();
        md.h3(&format!("Depth {d}"));
        let rows: Vec<Vec<String>> = at
            .iter()
            .take(ROWS)
            .map(|c| {
                let via = match c.ambiguous {
                    Some(n) => format!("{} (one of {n} possible targets)", c.via),
                    None => c.via.to_string(),
                };
                vec![
                    c.method.product.clone(),
                    tick(c.method.display()),
                    tick(&c.calls),
                    via,
                    c.site.clone(),
                ]
            })
            .collect();
        md.table(&["product", "caller", "calls", "via", "call site"], &rows, "");
        more(
            &mut md,
            at.len(),
            rows.len(),
            "lower `depth` or ask `code/callers`",
        );
    }
    if r.callers_not_shown > 0 {
        md.para(&format!("{} more callers are not listed.", r.callers_not_shown));
    }

    render_reach(
        &mut md,
        &Reach {
            endpoints: &r.endpoints,
            entry_points: &r.entry_points,
            other_products: &r.other_products,
            topics: &r.topics,
            tables_written: &r.tables_written,
        },
    );

    md.h2("Tests reaching the change");
    if r.test_count == 0 {
        md.para("No indexed test reaches the change: it is untested within this depth.");
    } else {
        md.para(&format!(
            "{} test method(s) reach the change{}.",
            r.test_count,
            if include_tests || r.test_count <= r.tests.len() {
                ""
            } else {
                "; pass `include_tests=true` to list them all"
            }
        ));
        md.bullets(
            r.tests
                .iter()
                .map(|t| format!("{} ({})", tick(t.display()), t.location())),
        );
    }

    md.h2("Recent incidents and bugs");
    issues_table(
        &mut md,
        &r.incidents,
        "No Jira incident or bug mentions the affected products.",
    );

    md.h2("Source");
    if r.sources.is_empty() {
        md.para("No source to show (outside your area, or not stored).");
    }
    for s in &r.sources {
        md.h3(&s.title);
        md.code("java", &s.location, &s.code);
    }
    md.finish()
}

/// `Type.method` of `package.Type.method(…)`: enough to tell nodes apart in a picture.
fn short(display: &str) -> String {
    let name = display.split('(').next().unwrap_or(display);
    let parts: Vec<&str> = name.rsplitn(3, '.').collect();
    match parts.as_slice() {
        [m, t, _] => format!("{t}.{m}"),
        _ => name.to_string(),
    }
}

/// The service subgraph of a node: (key, label naming the product when it differs).
fn group_of(service: &str, product: &str) -> (String, String) {
    let label = if service == product || product.is_empty() {
        service.to_string()
    } else {
        format!("{service} ({product})")
    };
    (service.to_string(), label)
}

/// What the change reaches across services: the endpoints and entry points that lead to it
/// (each in its service), the services calling those endpoints over HTTP, the topics
/// produced on the way and the products consuming them, the tables written.
fn diagram(r: &Impact) -> Flowchart {
    let services: std::collections::BTreeSet<(&str, &str)> = r
        .targets
        .iter()
        .zip(&r.target_services)
        .map(|(t, s)| (s.as_str(), t.product.as_str()))
        .collect();
    let label = match r.targets.as_slice() {
        [one] => format!("changed: {}", short(one.display())),
        many => format!("changed: {} ({} methods)", r.target, many.len()),
    };
    let group = match services.iter().next() {
        Some((s, p)) if services.len() == 1 => Some(group_of(s, p)),
        _ => None,
    };
    reach_diagram(
        &label,
        group.as_ref().map(|(k, l)| (k.as_str(), l.as_str())),
        Reach {
            endpoints: &r.endpoints,
            entry_points: &r.entry_points,
            other_products: &r.other_products,
            topics: &r.topics,
            tables_written: &r.tables_written,
        },
    )
}

/// The sections `impact` and `change-impact` share after their callers: the services
/// calling in over HTTP, the topics produced on the way with their consumers, the tables
/// written.
pub(crate) fn render_reach(md: &mut Md, r: &Reach<'_>) {
    md.h2("Other services calling in over HTTP");
    let rows: Vec<Vec<String>> = r
        .other_products
        .iter()
        .take(ROWS)
        .map(|c| vec![c.caller_product.clone(), tick(&c.caller), tick(&c.endpoint)])
        .collect();
    md.table(
        &["product", "caller", "calls endpoint"],
        &rows,
        "No indexed HTTP client reaches the change. Callers outside the indexed products cannot be seen.",
    );

    md.h2("Messaging");
    let rows: Vec<Vec<String>> = r
        .topics
        .iter()
        .map(|t| {
            vec![
                tick(&t.topic),
                t.broker.clone(),
                t.produced_by
                    .iter()
                    .map(|p| tick(p))
                    .collect::<Vec<_>>()
                    .join(", "),
                if t.consumers.is_empty() {
                    "none indexed".into()
                } else {
                    t.consumers.join(", ")
                },
            ]
        })
        .collect();
    md.table(
        &["topic", "broker", "produced by", "consumers (downstream)"],
        &rows,
        "The change and its callers produce to no indexed topic or queue.",
    );

    md.h2("Tables written");
    let rows: Vec<Vec<String>> = r
        .tables_written
        .iter()
        .map(|t| {
            vec![
                tick(&t.table),
                if t.product.is_empty() {
                    "no indexed schema".to_string()
                } else {
                    t.product.clone()
                },
                t.written_by
                    .iter()
                    .map(|w| tick(w))
                    .collect::<Vec<_>>()
                    .join(", "),
            ]
        })
        .collect();
    md.table(
        &["table", "product", "written by"],
        &rows,
        "No table is written by the change or its callers.",
    );
}

/// The parts of a consolidated impact a diagram draws.
pub(crate) struct Reach<'a> {
    pub(crate) endpoints: &'a [EntryRow],
    pub(crate) entry_points: &'a [EntryRow],
    pub(crate) other_products: &'a [CrossRow],
    pub(crate) topics: &'a [TopicRow],
    pub(crate) tables_written: &'a [TableRow],
}

/// The path across services from a change (drawn as `label`, in the service subgraph
/// `group` when it has one): shared by `impact` and `change-impact`.
pub(crate) fn reach_diagram(label: &str, group: Option<(&str, &str)>, r: Reach<'_>) -> Flowchart {
    let mut chart = Flowchart::new(DIAGRAM_NODES);
    let change = "change";
    chart.node(change, label, Shape::Hexagon, group, "change");
    for e in r.endpoints.iter().chain(r.entry_points) {
        let key = format!("endpoint:{} {}", e.service, e.name);
        let (g, l) = group_of(&e.service, &e.product);
        chart.node(&key, &e.name, Shape::Box, Some((&g, &l)), "endpoint");
        let how = if e.depth == 0 {
            "handled by".to_string()
        } else {
            format!("{} hop(s)", e.depth)
        };
        chart.edge(&key, change, &how, Line::Solid);
    }
    for c in r.other_products {
        let key = format!("caller:{}", c.caller);
        let (g, l) = group_of(&c.caller_service, &c.caller_product);
        chart.node(&key, &short(&c.caller), Shape::Box, Some((&g, &l)), "caller");
        let (service, route) = c.endpoint.split_once(' ').unwrap_or((c.endpoint.as_str(), ""));
        let target = format!("endpoint:{}", c.endpoint);
        let (tg, tl) = group_of(service, &c.endpoint_product);
        chart.node(&target, route, Shape::Box, Some((&tg, &tl)), "endpoint");
        chart.edge(&key, &target, "HTTP", Line::Solid);
    }
    for t in r.topics {
        let key = format!("topic:{}", t.topic);
        let label = if t.broker.is_empty() {
            t.topic.clone()
        } else {
            format!("{} ({})", t.topic, t.broker)
        };
        chart.node(&key, &label, Shape::Subroutine, None, "topic");
        chart.edge(change, &key, "produced on the way", Line::Dotted);
        for p in &t.consumer_products {
            let consumer = format!("product:{p}");
            chart.node(&consumer, p, Shape::Box, None, "consumer");
            chart.edge(&key, &consumer, "consumed by", Line::Dotted);
        }
    }
    for t in r.tables_written {
        let key = format!("table:{}.{}", t.product, t.table);
        chart.node(&key, &t.table, Shape::Cylinder, None, "table");
        chart.edge(change, &key, "written on the way", Line::Solid);
    }
    chart
}
