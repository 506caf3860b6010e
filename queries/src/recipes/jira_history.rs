//! `jira-history`: the tickets that mention a product or one of its services, aggregated by
//! type, priority and status, with a month-by-month timeline and the latest tickets.

use std::collections::BTreeMap;

use roaring::RoaringBitmap;
use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind};
use serde::Serialize;

use super::{header, more, ROWS};
use crate::error::{nearest, QueryError};
use crate::graph::Ctx;
use crate::params::Args;
use crate::primitives::docs::{issue_row, issues_table, IssueRow};
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "jira-history/1";

#[derive(Serialize)]
struct History {
    recipe_version: &'static str,
    service: String,
    products: Vec<String>,
    since: Option<String>,
    until: Option<String>,
    total: usize,
    by_type: BTreeMap<String, usize>,
    by_priority: BTreeMap<String, usize>,
    by_status: BTreeMap<String, usize>,
    by_month: BTreeMap<String, usize>,
    issues: Vec<IssueRow>,
    trace: Trace,
}

fn valid_day(d: &str) -> bool {
    let b = d.as_bytes();
    d.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && d.chars()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let service = args.text("service").to_string();
    let since = args.get("since").map(str::to_string);
    let until = args.get("until").map(str::to_string);
    for (name, v) in [("since", &since), ("until", &until)] {
        if let Some(v) = v {
            if !valid_day(v) {
                let spec = crate::catalog::endpoint_spec("recipes", "jira-history");
                if let Some(spec) = spec {
                    return Err(QueryError::parameter(
                        spec,
                        name,
                        &format!("`{name}` must be a day written YYYY-MM-DD, not `{v}`"),
                    ));
                }
            }
        }
    }
    let mut trace = Trace::default();
    let products = trace.step("resolve product or service", || -> Result<_, QueryError> {
        let mut products: Vec<String> = Vec::new();
        if ctx.snap.product(&service).is_some() {
            products.push(service.clone());
        }
        for n in ctx.resolve(&service, &[NodeKind::Service])? {
            products.push(ctx.product_name(n.product));
        }
        products.sort();
        products.dedup();
        let msg = if products.is_empty() {
            let mut names: Vec<String> = ctx.products().map(|p| p.name.clone()).collect();
            names.extend(
                ctx.load(ctx.snap.nodes_of_kind(NodeKind::Service).iter())?
                    .into_iter()
                    .map(|s| s.name),
            );
            let near = nearest(&service, names.iter().map(String::as_str), 5);
            format!(
                "0 products: no product or service is called `{service}`; nearest names: {}",
                if near.is_empty() {
                    "none".into()
                } else {
                    near.join(", ")
                }
            )
        } else {
            format!("product(s) {}", products.join(", "))
        };
        Ok((products, msg))
    })?;
    let issues = trace.step("tickets mentioning them", || -> Result<_, QueryError> {
        let mut ids = RoaringBitmap::new();
        for p in &products {
            for prod in ctx.snap.product_nodes_of_kind(p, NodeKind::Product).iter() {
                ids.extend(ctx.neighbors(NodeId(prod), Direction::In, EdgeKind::Mentions));
            }
            ids |= ctx.snap.product_nodes_of_kind(p, NodeKind::JiraIssue);
        }
        let mut rows = Vec::new();
        for n in ctx.load(ids.iter())? {
            if n.kind != NodeKind::JiraIssue {
                continue;
            }
            let row = issue_row(ctx, &n)?;
            if since.as_deref().is_some_and(|s| row.created.as_str() < s)
                || until.as_deref().is_some_and(|u| row.created.as_str() > u)
            {
                continue;
            }
            rows.push(row);
        }
        rows.sort_by(|a, b| b.created.cmp(&a.created).then(a.key.cmp(&b.key)));
        let n = rows.len();
        Ok((rows, format!("{n} ticket(s)")))
    })?;
    if ctx.snap.nodes_of_kind(NodeKind::JiraIssue).is_empty() {
        trace.warn(
            "no Jira export is indexed: the jira domain is not indexed, so an empty history means nothing",
        );
    }
    let withheld = issues.iter().filter(|i| i.summary.is_none()).count();
    if withheld > 0 {
        trace.warn(format!(
            "content withheld for {withheld} ticket(s) outside your area: summaries left out"
        ));
    }
    let mut by_type = BTreeMap::new();
    let mut by_priority = BTreeMap::new();
    let mut by_status = BTreeMap::new();
    let mut by_month = BTreeMap::new();
    for i in &issues {
        *by_type.entry(i.issue_type.clone()).or_insert(0) += 1;
        *by_priority.entry(i.priority.clone()).or_insert(0) += 1;
        *by_status.entry(i.status.clone()).or_insert(0) += 1;
        let month: String = i.created.chars().take(7).collect();
        *by_month
            .entry(if month.is_empty() { "unknown".into() } else { month })
            .or_insert(0) += 1;
    }
    let total = issues.len();
    let result = History {
        recipe_version: VERSION,
        service: service.clone(),
        products,
        since,
        until,
        total,
        by_type,
        by_priority,
        by_status,
        by_month,
        issues,
        trace,
    };
    let title = format!("Jira history: {service}");
    let mut md = header(&title, VERSION, &result.trace);
    md.h2("Summary");
    if result.total == 0 {
        md.para(&format!(
            "No ticket mentions `{service}`{}.",
            if result.products.is_empty() {
                " (no such product or service)"
            } else {
                ""
            }
        ));
    } else {
        let agg = |m: &BTreeMap<String, usize>| {
            m.iter()
                .map(|(k, v)| format!("{k} {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        md.para(&format!(
            "{} ticket(s) mention {} — by type: {}; by priority: {}; by status: {}.",
            result.total,
            result
                .products
                .iter()
                .map(|p| tick(p))
                .collect::<Vec<_>>()
                .join(", "),
            agg(&result.by_type),
            agg(&result.by_priority),
            agg(&result.by_status)
        ));
        md.h2("Timeline");
        let rows: Vec<Vec<String>> = result
            .by_month
            .iter()
            .rev()
            .map(|(m, n)| vec![m.clone(), n.to_string(), "#".repeat((*n).min(40))])
            .collect();
        md.table(&["month", "tickets", ""], &rows, "");
        md.h2("Tickets, newest first");
        let shown = &result.issues[..result.issues.len().min(ROWS)];
        issues_table(&mut md, shown, "");
        more(
            &mut md,
            result.issues.len(),
            shown.len(),
            "narrow with `since` and `until`",
        );
    }
    document(&title, md.finish(), &result)
}
