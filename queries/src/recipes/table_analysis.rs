//! `table-analysis`: one table across the SQL graph and the code graph in one call —
//! columns, keys, foreign keys in and out, indexes, triggers, views, routines, and the code
//! that reads or writes it, with the endpoints that reach that code.
//!
//! Many services keep no DDL beside their code (the schema is made at run time by
//! `ddl-auto`, or lives in another repository): their entities and SQL name tables that no
//! indexed schema defines, so no Table node answers and the references stay unlinked. A
//! table asked for by such a name is answered from those references — the entities mapped
//! to it, the code that reads or writes it, the endpoints reaching that code — and says
//! that its columns and keys are unknown.

use std::collections::HashMap;

use semgraph_storage::{Direction, EdgeKind, NodeKind};
use serde::Serialize;

use super::{header, more, ROWS};
use crate::error::QueryError;
use crate::graph::{blast_radius_until, reached_entry_points, Ctx};
use crate::params::Args;
use crate::primitives::db::{
    column_rows, columns_table, history_section, keys_table, object_rows, objects_table, related,
    resolve_tables, table_history, table_keys, usage_rows, usages_table, ColumnRow, History, Keys, ObjectRow,
    UsageRow,
};
use crate::primitives::NodeRef;
use crate::render::{document, tick};
use crate::trace::Trace;
use crate::Document;

const VERSION: &str = "table-analysis/2";
/// How far up the callers of the table's readers and writers the endpoint search goes.
const REACH_DEPTH: u32 = 6;
/// Most methods that search collects.
const REACH_BUDGET: u64 = 5_000;

#[derive(Serialize)]
struct Analysis {
    table: NodeRef,
    kind: &'static str,
    columns: Vec<ColumnRow>,
    primary_key: Option<String>,
    keys: Keys,
    history: History,
    indexes: Vec<ObjectRow>,
    triggers: Vec<ObjectRow>,
    views: Vec<ObjectRow>,
    routines: Vec<ObjectRow>,
    entities: Vec<String>,
    usages: Vec<UsageRow>,
    endpoints: Vec<String>,
}

/// A table no indexed schema defines, as the code names it.
#[derive(Serialize)]
struct NamedInCode {
    entities: Vec<String>,
    usages: Vec<UsageRow>,
    endpoints: Vec<String>,
}

#[derive(Serialize)]
struct TableAnalysis {
    recipe_version: &'static str,
    table: String,
    analyses: Vec<Analysis>,
    /// When no table or view matches: what the code says of a table by that name.
    named_in_code: Option<NamedInCode>,
    trace: Trace,
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("table").to_string();
    let mut trace = Trace::default();
    let found = trace.step("resolve table", || -> Result<_, QueryError> {
        match resolve_tables(ctx, &name) {
            Ok(f) => {
                let products: Vec<String> = f.iter().map(|t| ctx.product_name(t.product)).collect();
                let msg = format!("{} match(es) in {}", f.len(), products.join(", "));
                Ok((f, msg))
            }
            Err(e) => {
                let near: Vec<&str> = e
                    .body()
                    .lines()
                    .filter_map(|l| l.strip_prefix("- `"))
                    .map(|l| l.trim_end_matches('`'))
                    .collect();
                let msg = format!(
                    "0 tables: no table or view matches `{name}`; nearest names: {}",
                    if near.is_empty() {
                        "none".into()
                    } else {
                        near.join(", ")
                    }
                );
                Ok((Vec::new(), msg))
            }
        }
    })?;
    let mut analyses = Vec::new();
    for t in &found {
        let columns = trace.step(
            &format!("columns and keys of {}", t.name),
            || -> Result<_, QueryError> {
                let c = column_rows(ctx, t)?;
                let n = c.len();
                Ok((c, format!("{n} columns")))
            },
        )?;
        let keys = trace.step("keys and foreign keys out and in", || -> Result<_, QueryError> {
            let k = table_keys(ctx, t)?;
            let msg = format!(
                "primary key {}, {} unique, {} foreign keys out, {} in",
                if k.primary_key.is_some() { "yes" } else { "none" },
                k.unique.len(),
                k.foreign_keys_out.len(),
                k.foreign_keys_in.len()
            );
            Ok((k, msg))
        })?;
        let history = table_history(t);
        let objects = trace.step(
            "indexes, triggers, views, routines",
            || -> Result<_, QueryError> {
                let mut v = Vec::new();
                for k in [
                    NodeKind::Index,
                    NodeKind::Trigger,
                    NodeKind::View,
                    NodeKind::Routine,
                ] {
                    v.push(object_rows(ctx, t, &related(ctx, t, k)?));
                }
                let msg = format!(
                    "{} indexes, {} triggers, {} views, {} routines",
                    v[0].len(),
                    v[1].len(),
                    v[2].len(),
                    v[3].len()
                );
                Ok((v, msg))
            },
        )?;
        let usages = trace.step("code that reads or writes it", || -> Result<_, QueryError> {
            let u = usage_rows(ctx, t, None)?;
            let reads = u.iter().filter(|r| r.mode == "read").count();
            let msg = format!("{reads} reads, {} writes", u.len() - reads);
            Ok((u, msg))
        })?;
        let endpoints = trace.step("endpoints and entry points that reach it", || {
            reaching_endpoints(ctx, &usages)
        })?;
        let mapped = ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::MapsTo)?;
        // Copies of one entity in several modules are told apart by their files.
        let entities: Vec<String> = mapped
            .iter()
            .map(|e| {
                let name = e.display_name();
                let copies = mapped.iter().filter(|o| o.display_name() == name).count();
                match (&e.file, copies) {
                    (Some(file), 2..) => format!("{name} ({file})"),
                    _ => name.to_string(),
                }
            })
            .collect();
        let mut objects = objects.into_iter();
        analyses.push(Analysis {
            table: NodeRef::of(ctx, t),
            kind: if t.kind == NodeKind::View { "view" } else { "table" },
            columns,
            primary_key: t.attr("primary-key").map(str::to_string),
            keys,
            history,
            indexes: objects.next().unwrap_or_default(),
            triggers: objects.next().unwrap_or_default(),
            views: objects.next().unwrap_or_default(),
            routines: objects.next().unwrap_or_default(),
            entities,
            usages,
            endpoints,
        });
    }
    let named_in_code = if found.is_empty() {
        named_in_code(ctx, &name, &mut trace)?
    } else {
        None
    };
    let result = TableAnalysis {
        recipe_version: VERSION,
        table: name.clone(),
        analyses,
        named_in_code,
        trace,
    };
    let title = format!("Table analysis: {name}");
    let mut md = header(&title, VERSION, &result.trace);
    match &result.named_in_code {
        Some(c) => render_named_in_code(&mut md, &name, c),
        None if result.analyses.is_empty() => {
            md.para(&format!("Nothing to analyse: no indexed table or view is called `{name}` (nearest names in the steps above)."));
        }
        None => {}
    }
    for a in &result.analyses {
        md.h2(&format!(
            "{} `{}` ({}, {})",
            a.kind,
            a.table.name,
            a.table.product,
            a.table.location()
        ));
        let writers = a.usages.iter().filter(|u| u.mode == "write").count();
        let primary_key = match &a.keys.primary_key {
            Some(pk) => match &pk.name {
                Some(n) => format!("{} ({})", tick(n), pk.columns.join(", ")),
                None => tick(&pk.columns.join(", ")),
            },
            None => "none".into(),
        };
        let fks = |list: &[crate::primitives::db::ForeignKeyRow], incoming: bool| -> String {
            if list.is_empty() {
                return "none".into();
            }
            list.iter()
                .map(|fk| {
                    tick(&if incoming {
                        fk.describe_from()
                    } else {
                        fk.describe()
                    })
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        md.para(&format!(
            "{} columns; primary key {primary_key}; foreign keys {}; referenced by {}; mapped by {}; {} reader(s) and {writers} writer(s) in code.",
            a.columns.len(),
            fks(&a.keys.foreign_keys_out, false),
            fks(&a.keys.foreign_keys_in, true),
            crate::primitives::db::list(&a.entities),
            a.usages.len() - writers,
        ));
        md.h3("Columns");
        columns_table(&mut md, &a.columns);
        md.h3("Keys");
        keys_table(&mut md, &a.keys);
        md.h3("Definitions and changes");
        history_section(&mut md, &a.history);
        md.h3("Indexes");
        objects_table(&mut md, NodeKind::Index, &a.indexes);
        md.h3("Triggers");
        objects_table(&mut md, NodeKind::Trigger, &a.triggers);
        md.h3("Views");
        objects_table(&mut md, NodeKind::View, &a.views);
        md.h3("Routines");
        objects_table(&mut md, NodeKind::Routine, &a.routines);
        render_users(
            &mut md,
            &a.usages,
            &a.endpoints,
            "No indexed code reads or writes it (SQL built at run time, or code outside the indexed repositories, is not seen).",
            "ask `db/usages`",
        );
    }
    document(&title, md.finish(), &result)
}

/// The endpoints and entry points within [`REACH_DEPTH`] levels of callers of `usages`'
/// methods, as `service name` lines, with the step's summary.
fn reaching_endpoints(ctx: &Ctx<'_>, usages: &[UsageRow]) -> Result<(Vec<String>, String), QueryError> {
    let users: roaring::RoaringBitmap = usages.iter().map(|u| u.method.id).collect();
    let (layers, _, cut) = blast_radius_until(
        ctx.adj(),
        &users,
        REACH_DEPTH,
        |_, reached| reached <= REACH_BUDGET,
        |_, _| false,
    );
    let mut all = users.clone();
    for l in &layers {
        all |= l;
    }
    let mut eps = ctx.load(reached_entry_points(ctx.adj(), &all).iter())?;
    eps.sort_by(|a, b| (ctx.service_of(a), &a.name).cmp(&(ctx.service_of(b), &b.name)));
    let names: Vec<String> = eps
        .iter()
        .map(|e| format!("{} {}", ctx.service_of(e), e.name))
        .collect();
    let n = names.len();
    let summary = if cut {
        format!(
            "{n} within {} levels of callers of its readers and writers, where the search stopped at its budget of {REACH_BUDGET} methods: endpoints reached only further up may be missing",
            layers.len()
        )
    } else {
        format!("{n} within {REACH_DEPTH} levels of callers of its readers and writers")
    };
    Ok((names, summary))
}

/// What the code says of table `name` when no indexed schema defines it: the references
/// to it that found no table (entities mapped to it, code reading or writing it), or
/// `None` when nothing names it either.
fn named_in_code(ctx: &Ctx<'_>, name: &str, trace: &mut Trace) -> Result<Option<NamedInCode>, QueryError> {
    let key = semgraph_storage::keys::table(name);
    let refs: Vec<(u32, EdgeKind)> = ctx
        .snap
        .unlinked()
        .iter()
        .filter(|r| r.candidates == 0 && r.key == key)
        .filter(|r| matches!(r.kind, EdgeKind::Reads | EdgeKind::Writes | EdgeKind::MapsTo))
        .map(|r| (r.from, r.kind))
        .collect();
    if refs.is_empty() {
        return Ok(None);
    }
    let (entities, usages) = trace.step("code that names it, though no schema defines it", || -> Result<_, QueryError> {
        let nodes: HashMap<u32, semgraph_storage::Node> = ctx.load_map(refs.iter().map(|(id, _)| *id))?;
        let mut entities: Vec<String> = Vec::new();
        let mut usages: Vec<UsageRow> = Vec::new();
        for (id, kind) in &refs {
            let Some(n) = nodes.get(id) else {
                continue;
            };
            match kind {
                EdgeKind::MapsTo => entities.push(n.display_name().to_string()),
                EdgeKind::Reads | EdgeKind::Writes if n.kind == NodeKind::Method => usages.push(UsageRow {
                    method: NodeRef::of(ctx, n),
                    mode: if *kind == EdgeKind::Reads { "read" } else { "write" },
                    via: None,
                    lines: Vec::new(),
                }),
                _ => {}
            }
        }
        entities.sort();
        entities.dedup();
        usages.sort_by(|a, b| {
            (&a.method.product, a.method.display(), a.mode).cmp(&(&b.method.product, b.method.display(), b.mode))
        });
        let reads = usages.iter().filter(|u| u.mode == "read").count();
        let msg = format!(
            "{} entities, {reads} reads, {} writes name `{name}`, which no indexed DDL, migration or changelog defines",
            entities.len(),
            usages.len() - reads
        );
        Ok(((entities, usages), msg))
    })?;
    let endpoints = trace.step("endpoints and entry points that reach it", || {
        reaching_endpoints(ctx, &usages)
    })?;
    Ok(Some(NamedInCode {
        entities,
        usages,
        endpoints,
    }))
}

fn render_named_in_code(md: &mut crate::render::Md, name: &str, c: &NamedInCode) {
    md.h2(&format!(
        "table `{name}`: named by code, defined by no indexed schema"
    ));
    let writers = c.usages.iter().filter(|u| u.mode == "write").count();
    md.para(&format!(
        "No DDL, migration or changelog of the indexed repositories creates `{name}`, but code names it: mapped by {}; {} reader(s) and {writers} writer(s) in code. \
         Its columns, keys, indexes and triggers are unknown: the schema may be made at run time (`ddl-auto`) or kept outside the indexed repositories.",
        crate::primitives::db::list(&c.entities),
        c.usages.len() - writers,
    ));
    render_users(
        md,
        &c.usages,
        &c.endpoints,
        "No indexed code reads or writes it; only entities are mapped to it.",
        "the JSON answer lists them all",
    );
}

/// The code that reads or writes a table (the first [`ROWS`]; `more` says where the rest
/// are) and the endpoints and entry points reaching it.
fn render_users(
    md: &mut crate::render::Md,
    usages: &[UsageRow],
    endpoints: &[String],
    none: &str,
    more_hint: &str,
) {
    md.h3("Code that reads or writes it");
    let rows = &usages[..usages.len().min(ROWS)];
    usages_table(md, rows, none);
    more(md, usages.len(), rows.len(), more_hint);
    md.h3("Endpoints and entry points that reach it");
    if endpoints.is_empty() {
        md.para(
            "None found: no endpoint, job or listener reaches the code above within six levels of callers.",
        );
    } else {
        md.bullets(endpoints.iter().map(|e| tick(e)));
    }
}
