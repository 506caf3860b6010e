//! Database questions: tables, columns, keys, indexes, triggers, views, routines, the code
//! that reads and writes a table, and DDL (content).

use semgraph_storage::{ContentKind, Direction, EdgeKind, Node, NodeId, NodeKind};
use serde::Serialize;

use super::{method_display, NodeRef};
use crate::error::{nearest, QueryError};
use crate::graph::Ctx;
use crate::params::Args;
use crate::render::{document, tick, Md};
use crate::Document;

pub(crate) const TABLE_KINDS: &[NodeKind] = &[NodeKind::Table, NodeKind::View];

/// The normalised table name: schema and quotes dropped, lowercase (as the indexer keys it).
pub(crate) fn table_key(name: &str) -> String {
    semgraph_storage::keys::table_name(name)
}

/// The tables (and views) called `name`, or a 404 with the nearest table names.
pub(crate) fn resolve_tables(ctx: &Ctx<'_>, name: &str) -> Result<Vec<Node>, QueryError> {
    let key = table_key(name);
    let mut found: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(&key)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| TABLE_KINDS.contains(&n.kind))
        .collect();
    found.sort_by_key(|n| (n.kind != NodeKind::Table, n.product));
    if found.is_empty() {
        let mut all = ctx.load(ctx.snap.nodes_of_kind(NodeKind::Table).iter())?;
        all.extend(ctx.load(ctx.snap.nodes_of_kind(NodeKind::View).iter())?);
        let names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
        return Err(QueryError::not_found(
            "table or view",
            name,
            &nearest(&key, names.into_iter(), 5),
        ));
    }
    Ok(found)
}

#[derive(Serialize)]
struct TableRow {
    table: NodeRef,
    kind: &'static str,
    columns: usize,
    primary_key: Option<String>,
}

pub(crate) fn tables(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let q = args.get("q").map(str::to_lowercase);
    let scope = args.get("scope");
    let limit = args.int("limit") as usize;
    let mut ids = ctx.of_kind(NodeKind::Table, scope)?;
    ids |= ctx.of_kind(NodeKind::View, scope)?;
    let mut rows: Vec<TableRow> = ctx
        .load(ids.iter())?
        .into_iter()
        .filter(|n| q.as_deref().is_none_or(|q| n.name.to_lowercase().contains(q)))
        .map(|n| TableRow {
            kind: if n.kind == NodeKind::Table {
                "table"
            } else {
                "view"
            },
            columns: ctx.neighbors(n.id, Direction::Out, EdgeKind::Contains).len(),
            primary_key: n.attr("primary-key").map(str::to_string),
            table: NodeRef::of(ctx, &n),
        })
        .collect();
    rows.sort_by(|a, b| (&a.table.product, &a.table.name).cmp(&(&b.table.product, &b.table.name)));
    let total = rows.len();
    rows.truncate(limit);
    let title = "Tables".to_string();
    let mut md = Md::new(&title);
    if ids.is_empty() {
        md.para("No SQL schema is indexed in this scope: the db domain is not indexed here.");
    } else {
        let table: Vec<Vec<String>> = rows
            .iter()
            .map(|r| {
                vec![
                    r.table.product.clone(),
                    tick(&r.table.name),
                    r.kind.to_string(),
                    r.primary_key.clone().unwrap_or_default(),
                    r.table.location(),
                ]
            })
            .collect();
        md.table(
            &["product", "name", "kind", "primary key", "where"],
            &table,
            "No table matches `q`.",
        );
        if total > rows.len() {
            md.para(&format!(
                "{} of {total} shown; narrow with `q` or raise `limit`.",
                rows.len()
            ));
        }
    }
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
pub(crate) struct ColumnRow {
    pub(crate) name: String,
    pub(crate) data_type: String,
    pub(crate) nullable: bool,
    pub(crate) default: Option<String>,
    pub(crate) primary_key: bool,
}

pub(crate) fn column_rows(ctx: &Ctx<'_>, table: NodeId) -> Result<Vec<ColumnRow>, QueryError> {
    let mut cols: Vec<Node> = ctx
        .load(ctx.neighbors(table, Direction::Out, EdgeKind::Contains))?
        .into_iter()
        .filter(|n| n.kind == NodeKind::Column)
        .collect();
    cols.sort_by_key(|c| {
        c.attr("position")
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    });
    Ok(cols
        .iter()
        .map(|c| ColumnRow {
            name: c.name.clone(),
            data_type: c.attr("type").unwrap_or("").to_string(),
            nullable: c.attr("nullable") != Some("no"),
            default: c.attr("default").map(str::to_string),
            primary_key: c.attr("primary-key") == Some("yes"),
        })
        .collect())
}

pub(crate) fn columns_table(md: &mut Md, cols: &[ColumnRow]) {
    let rows: Vec<Vec<String>> = cols
        .iter()
        .map(|c| {
            vec![
                tick(&c.name),
                c.data_type.clone(),
                if c.nullable { "yes".into() } else { "no".into() },
                c.default.clone().unwrap_or_default(),
                if c.primary_key { "PK".into() } else { String::new() },
            ]
        })
        .collect();
    md.table(
        &["column", "type", "nullable", "default", "key"],
        &rows,
        "No columns are indexed (a view, or DDL the parser skipped).",
    );
}

pub(crate) fn columns(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("table");
    let found = resolve_tables(ctx, name)?;
    let title = format!("Columns of {name}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        if found.len() > 1 {
            md.h2(&format!("{} ({})", t.name, ctx.product_name(t.product)));
        }
        let cols = column_rows(ctx, t.id)?;
        columns_table(&mut md, &cols);
        all.push(cols);
    }
    document(&title, md.finish(), &all)
}

#[derive(Serialize)]
pub(crate) struct ObjectRow {
    pub(crate) node: NodeRef,
    pub(crate) facts: Vec<(String, String)>,
}

/// Indexes, triggers, views or routines related to a table.
pub(crate) fn related(ctx: &Ctx<'_>, table: &Node, kind: NodeKind) -> Result<Vec<Node>, QueryError> {
    let id = table.id;
    let mut nodes: Vec<Node> = match kind {
        NodeKind::Index => ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Contains)?,
        NodeKind::Trigger => [
            ctx.neighbor_nodes(id, Direction::In, EdgeKind::References)?,
            ctx.neighbor_nodes(id, Direction::In, EdgeKind::Writes)?,
            ctx.neighbor_nodes(id, Direction::In, EdgeKind::Reads)?,
        ]
        .concat(),
        _ => [
            ctx.neighbor_nodes(id, Direction::In, EdgeKind::Reads)?,
            ctx.neighbor_nodes(id, Direction::In, EdgeKind::Writes)?,
        ]
        .concat(),
    };
    nodes.retain(|n| n.kind == kind);
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    nodes.dedup_by_key(|n| n.id);
    Ok(nodes)
}

pub(crate) fn object_rows(ctx: &Ctx<'_>, table: &Node, nodes: &[Node]) -> Vec<ObjectRow> {
    nodes
        .iter()
        .map(|n| {
            let mut facts: Vec<(String, String)> = n
                .attrs
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "position"))
                .cloned()
                .collect();
            if matches!(n.kind, NodeKind::Trigger)
                && n.attr("table")
                    .is_some_and(|t| table_key(t) != table_key(&table.name))
            {
                facts.push(("touches".into(), table.name.clone()));
            }
            ObjectRow {
                node: NodeRef::of(ctx, n),
                facts,
            }
        })
        .collect()
}

pub(crate) fn objects_table(md: &mut Md, kind: NodeKind, rows: &[ObjectRow]) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                tick(&r.node.name),
                r.facts
                    .iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect::<Vec<_>>()
                    .join("; "),
                r.node.location(),
            ]
        })
        .collect();
    md.table(
        &[kind.as_str(), "facts", "where"],
        &table,
        &format!("No {} is indexed for this table.", kind.as_str()),
    );
}

pub(crate) fn objects(ctx: &Ctx<'_>, args: &Args, kind: NodeKind) -> Result<Document, QueryError> {
    let name = args.text("table");
    let found = resolve_tables(ctx, name)?;
    let title = format!("{} of {name}", plural(kind));
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        if found.len() > 1 {
            md.h2(&format!("{} ({})", t.name, ctx.product_name(t.product)));
        }
        let rows = object_rows(ctx, t, &related(ctx, t, kind)?);
        objects_table(&mut md, kind, &rows);
        all.extend(rows);
    }
    document(&title, md.finish(), &all)
}

fn plural(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Index => "Indexes",
        NodeKind::Trigger => "Triggers",
        NodeKind::View => "Views",
        _ => "Routines",
    }
}

#[derive(Serialize)]
pub(crate) struct UsageRow {
    pub(crate) method: NodeRef,
    pub(crate) mode: &'static str,
    pub(crate) via: Option<String>,
    pub(crate) lines: Vec<u32>,
}

/// Methods (and SQL objects) reading or writing `table`.
pub(crate) fn usage_rows(
    ctx: &Ctx<'_>,
    table: &Node,
    mode: Option<&str>,
) -> Result<Vec<UsageRow>, QueryError> {
    let mut rows = Vec::new();
    for (kind, word) in [(EdgeKind::Reads, "read"), (EdgeKind::Writes, "write")] {
        if mode.is_some_and(|m| m != word) {
            continue;
        }
        let users: Vec<Node> = ctx
            .neighbor_nodes(table.id, Direction::In, kind)?
            .into_iter()
            .filter(|n| n.kind == NodeKind::Method)
            .collect();
        let edges: Vec<(NodeId, EdgeKind, NodeId)> = users.iter().map(|u| (u.id, kind, table.id)).collect();
        let attrs = ctx.snap.edge_attrs(&edges)?;
        for (u, a) in users.iter().zip(attrs) {
            rows.push(UsageRow {
                method: NodeRef::of(ctx, u),
                mode: word,
                via: a.as_ref().and_then(|a| a.via.clone()),
                lines: a.map(|a| a.lines).unwrap_or_default(),
            });
        }
    }
    rows.sort_by(|a, b| {
        (&a.method.product, a.method.display(), a.mode).cmp(&(&b.method.product, b.method.display(), b.mode))
    });
    Ok(rows)
}

pub(crate) fn usages_table(md: &mut Md, rows: &[UsageRow], empty: &str) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut name = r.method.display().to_string();
            if r.method.test {
                name.push_str(" (test)");
            }
            vec![
                r.method.product.clone(),
                tick(&name),
                r.mode.to_string(),
                r.via.clone().unwrap_or_default(),
                r.method.location(),
            ]
        })
        .collect();
    md.table(&["product", "method", "mode", "via", "where"], &table, empty);
}

pub(crate) fn usages(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("table");
    let found = resolve_tables(ctx, name)?;
    let title = format!("Code using {name}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        if found.len() > 1 {
            md.h2(&format!("{} ({})", t.name, ctx.product_name(t.product)));
        }
        let rows = usage_rows(ctx, t, args.get("mode"))?;
        usages_table(
            &mut md,
            &rows,
            "No indexed code reads or writes this table (code outside the indexed repositories, or SQL the indexer could not attribute, is not seen).",
        );
        all.extend(rows);
    }
    document(&title, md.finish(), &all)
}

#[derive(Serialize)]
struct DdlResult {
    object: NodeRef,
    sql: String,
}

pub(crate) fn ddl(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("name");
    let key = table_key(name);
    let kinds = [
        NodeKind::Table,
        NodeKind::View,
        NodeKind::Trigger,
        NodeKind::Routine,
    ];
    let found: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(&key)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| kinds.contains(&n.kind))
        .collect();
    if found.is_empty() {
        let mut names = Vec::new();
        for k in kinds {
            names.extend(
                ctx.load(ctx.snap.nodes_of_kind(k).iter())?
                    .into_iter()
                    .map(|n| n.name),
            );
        }
        return Err(QueryError::not_found(
            "table, view, trigger or routine",
            name,
            &nearest(&key, names.iter().map(String::as_str), 5),
        ));
    }
    let title = format!("DDL of {name}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for n in &found {
        ctx.check_content(n, "DDL", &["db/table", "db/columns", "db/indexes", "db/usages"])?;
        let sql = ctx.snap.content(n.id, ContentKind::Sql)?.unwrap_or_default();
        let r = NodeRef::of(ctx, n);
        md.code(
            "sql",
            &format!("{} — {} ({})", r.location(), r.product, n.kind.as_str()),
            &sql,
        );
        all.push(DdlResult { object: r, sql });
    }
    document(&title, md.finish(), &all)
}

#[derive(Serialize)]
struct TableDetails {
    table: NodeRef,
    columns: Vec<ColumnRow>,
    foreign_keys_out: Vec<String>,
    foreign_keys_in: Vec<String>,
    indexes: Vec<ObjectRow>,
    triggers: Vec<ObjectRow>,
    views: Vec<ObjectRow>,
    usages: Vec<UsageRow>,
    entities: Vec<String>,
}

pub(crate) fn table(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let name = args.text("name");
    let found = resolve_tables(ctx, name)?;
    let title = format!("Table {name}");
    let mut md = Md::new(&title);
    let mut all = Vec::new();
    for t in &found {
        let fk = |dir| -> Result<Vec<String>, QueryError> {
            Ok(ctx
                .neighbor_nodes(t.id, dir, EdgeKind::References)?
                .into_iter()
                .filter(|n| TABLE_KINDS.contains(&n.kind))
                .map(|n| format!("{} ({})", n.name, ctx.product_name(n.product)))
                .collect())
        };
        let d = TableDetails {
            table: NodeRef::of(ctx, t),
            columns: column_rows(ctx, t.id)?,
            foreign_keys_out: fk(Direction::Out)?,
            foreign_keys_in: fk(Direction::In)?,
            indexes: object_rows(ctx, t, &related(ctx, t, NodeKind::Index)?),
            triggers: object_rows(ctx, t, &related(ctx, t, NodeKind::Trigger)?),
            views: object_rows(ctx, t, &related(ctx, t, NodeKind::View)?),
            usages: usage_rows(ctx, t, None)?,
            entities: ctx
                .neighbor_nodes(t.id, Direction::In, EdgeKind::MapsTo)?
                .iter()
                .map(method_display)
                .collect(),
        };
        md.h2(&format!(
            "{} ({}, {})",
            t.name,
            d.table.product,
            d.table.location()
        ));
        columns_table(&mut md, &d.columns);
        md.para(&format!(
            "Foreign keys to: {}. Referenced by: {}. Entities: {}.",
            list(&d.foreign_keys_out),
            list(&d.foreign_keys_in),
            list(&d.entities)
        ));
        md.h3("Indexes");
        objects_table(&mut md, NodeKind::Index, &d.indexes);
        md.h3("Triggers");
        objects_table(&mut md, NodeKind::Trigger, &d.triggers);
        md.h3("Views");
        objects_table(&mut md, NodeKind::View, &d.views);
        md.h3("Code that reads or writes it");
        usages_table(&mut md, &d.usages, "No indexed code reads or writes this table.");
        all.push(d);
    }
    document(&title, md.finish(), &all)
}

pub(crate) fn list(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.iter().map(|i| tick(i)).collect::<Vec<_>>().join(", ")
    }
}
