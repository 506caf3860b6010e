//! `status-snapshot`: what is indexed, per product, so an agent knows what it can ask and a
//! platform engineer sees what went wrong: area, repositories, last run, counts per kind,
//! which domains hold data, call resolution, unlinked references and warnings.

use std::collections::BTreeMap;
use std::time::{Duration, UNIX_EPOCH};

use rayon::prelude::*;
use semgraph_storage::{NodeKind, ProductInfo, RunStatus};
use serde::Serialize;

use super::header;
use crate::error::QueryError;
use crate::graph::Ctx;
use crate::params::Args;
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "status-snapshot/1";
/// Warnings listed per product; the rest are counted.
const WARNINGS_SHOWN: usize = 5;

#[derive(Serialize)]
struct ProductStatus {
    product: String,
    area: String,
    repos: Vec<String>,
    services: Vec<String>,
    last_run: Option<String>,
    last_run_status: Option<String>,
    runs: usize,
    nodes: u64,
    counts: BTreeMap<String, u64>,
    domains: BTreeMap<&'static str, bool>,
    calls_resolved: u64,
    calls_unresolved: u64,
    unlinked: usize,
    warnings: usize,
    first_warnings: Vec<String>,
    timings: Vec<(String, u64)>,
}

#[derive(Serialize)]
struct Status {
    recipe_version: &'static str,
    generation: u64,
    products: Vec<ProductStatus>,
    trace: Trace,
}

/// `YYYY-MM-DD HH:MM:SSZ` of milliseconds since the epoch.
pub(crate) fn utc(ms: u64) -> String {
    let secs = (UNIX_EPOCH + Duration::from_millis(ms))
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

fn product_status(ctx: &Ctx<'_>, p: &ProductInfo) -> Result<ProductStatus, QueryError> {
    let runs = ctx.snap.runs(p.id)?;
    let last = runs
        .iter()
        .rev()
        .find(|r| r.status == RunStatus::Committed && r.id == p.run)
        .or(runs.last());
    let mut counts = BTreeMap::new();
    for kind in [
        NodeKind::Service,
        NodeKind::File,
        NodeKind::Type,
        NodeKind::Method,
        NodeKind::Endpoint,
        NodeKind::EntryPoint,
        NodeKind::HttpCall,
        NodeKind::Topic,
        NodeKind::Table,
        NodeKind::View,
        NodeKind::ConfigKey,
        NodeKind::WikiPage,
        NodeKind::JiraIssue,
    ] {
        counts.insert(
            kind.as_str().to_string(),
            ctx.snap.product_nodes_of_kind(&p.name, kind).len(),
        );
    }
    let c = |k: &str| counts.get(k).copied().unwrap_or(0);
    let domains = BTreeMap::from([
        ("code", c("type") > 0),
        ("db", c("table") + c("view") > 0),
        ("config", c("config-key") > 0),
        ("wiki", c("wiki-page") > 0),
        ("jira", c("jira-issue") > 0),
    ]);
    let stat = |name: &str| {
        last.and_then(|r| r.stats.iter().find(|(k, _)| k == name).map(|(_, v)| *v))
            .unwrap_or(0)
    };
    let members = ctx.snap.product_nodes(&p.name);
    let unlinked = ctx
        .snap
        .unlinked()
        .iter()
        .filter(|u| members.contains(u.from))
        .count();
    let repos = ctx
        .load(ctx.snap.product_nodes_of_kind(&p.name, NodeKind::Repo).iter())?
        .into_iter()
        .map(|r| r.name)
        .collect();
    let services = ctx
        .load(ctx.snap.product_nodes_of_kind(&p.name, NodeKind::Service).iter())?
        .into_iter()
        .map(|r| r.name)
        .collect();
    let warnings = last.map(|r| r.warnings.as_slice()).unwrap_or_default();
    Ok(ProductStatus {
        product: p.name.clone(),
        area: p.area.clone(),
        repos,
        services,
        last_run: last.map(|r| utc(r.finished_at_ms)),
        last_run_status: last.map(|r| match r.status {
            RunStatus::Committed => "committed".to_string(),
            RunStatus::Interrupted => "interrupted".to_string(),
        }),
        runs: runs.len(),
        nodes: p.node_count,
        counts,
        domains,
        calls_resolved: stat("calls.resolved"),
        calls_unresolved: stat("calls.unresolved"),
        unlinked,
        warnings: warnings.len(),
        first_warnings: warnings
            .iter()
            .take(WARNINGS_SHOWN)
            .map(|w| match w.line {
                Some(l) => format!("{}:{l}: {}", w.file, w.message),
                None => format!("{}: {}", w.file, w.message),
            })
            .collect(),
        timings: last.map(|r| r.timings.clone()).unwrap_or_default(),
    })
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let scope = args.get("scope");
    if let Some(s) = scope {
        ctx.of_kind(NodeKind::Product, Some(s))?;
    }
    let mut trace = Trace::default();
    let products: Vec<&ProductInfo> = ctx
        .products()
        .filter(|p| scope.is_none_or(|s| s == p.name))
        .collect();
    let mut rows = trace.step("products, in parallel", || -> Result<_, QueryError> {
        let rows: Vec<ProductStatus> = products
            .par_iter()
            .map(|p| product_status(ctx, p))
            .collect::<Result<_, _>>()?;
        let n = rows.len();
        Ok((rows, format!("{n} product(s) indexed")))
    })?;
    rows.sort_by(|a, b| a.product.cmp(&b.product));
    let names: Vec<String> = rows.iter().map(|r| r.product.clone()).collect();
    crate::freshness::note(ctx, &mut trace, &names, None)?;
    for r in &rows {
        if r.last_run_status.as_deref() == Some("interrupted") {
            trace.warn(format!(
                "{}: the last index run was interrupted; the previous generation is served",
                r.product
            ));
        }
    }
    let result = Status {
        recipe_version: VERSION,
        generation: ctx.snap.generation(),
        products: rows,
        trace,
    };
    let title = "Status snapshot".to_string();
    let mut md = header(&title, VERSION, &result.trace);
    if result.products.is_empty() {
        md.para("Nothing is indexed yet. Run `semgraph index` (or `POST /api/v1/admin/index`) first.");
        return document(&title, md.finish(), &result);
    }
    md.h2("Products");
    let yes = |b: bool| if b { "yes" } else { "not indexed" };
    let table: Vec<Vec<String>> = result
        .products
        .iter()
        .map(|p| {
            let total = p.calls_resolved + p.calls_unresolved;
            vec![
                tick(&p.product),
                p.area.clone(),
                p.services.join(", "),
                p.last_run.clone().unwrap_or_else(|| "never".into()),
                p.nodes.to_string(),
                yes(p.domains["code"]).into(),
                yes(p.domains["db"]).into(),
                yes(p.domains["config"]).into(),
                yes(p.domains["wiki"]).into(),
                yes(p.domains["jira"]).into(),
                if total == 0 {
                    "-".into()
                } else {
                    format!("{:.0}%", 100.0 * p.calls_resolved as f64 / total as f64)
                },
                p.warnings.to_string(),
            ]
        })
        .collect();
    md.table(
        &[
            "product",
            "area",
            "services",
            "last run (UTC)",
            "nodes",
            "code",
            "db",
            "config",
            "wiki",
            "jira",
            "calls resolved",
            "warnings",
        ],
        &table,
        "",
    );
    md.h2("Counts per kind");
    let kinds: Vec<String> = result
        .products
        .first()
        .map(|p| p.counts.keys().cloned().collect())
        .unwrap_or_default();
    let mut headers: Vec<&str> = vec!["product"];
    headers.extend(kinds.iter().map(String::as_str));
    let table: Vec<Vec<String>> = result
        .products
        .iter()
        .map(|p| {
            let mut row = vec![p.product.clone()];
            row.extend(
                kinds
                    .iter()
                    .map(|k| p.counts.get(k).copied().unwrap_or(0).to_string()),
            );
            row
        })
        .collect();
    md.table(&headers, &table, "");
    md.h2("Warnings");
    let mut any = false;
    for p in &result.products {
        if p.warnings == 0 && p.unlinked == 0 {
            continue;
        }
        any = true;
        md.h3(&p.product);
        if p.unlinked > 0 {
            md.para(&format!(
                "{} cross-product reference(s) found no target (or several): they are not edges.",
                p.unlinked
            ));
        }
        md.bullets(p.first_warnings.iter().map(|w| tick(w)));
        if p.warnings > p.first_warnings.len() {
            md.para(&format!(
                "… and {} more warnings (see `semgraph index` output).",
                p.warnings - p.first_warnings.len()
            ));
        }
    }
    if !any {
        md.para("None.");
    }
    document(&title, md.finish(), &result)
}

#[cfg(test)]
mod tests {
    #[test]
    fn epoch_milliseconds_print_as_utc() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00Z");
        assert_eq!(super::utc(1_780_000_000_000), "2026-05-28 20:26:40Z");
    }
}
