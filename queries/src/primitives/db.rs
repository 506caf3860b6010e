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
    /// The keys the column is part of: `PK`, `FK fk_name → table.column`, `UQ name`.
    pub(crate) keys: Vec<String>,
}

pub(crate) fn column_rows(ctx: &Ctx<'_>, table: &Node) -> Result<Vec<ColumnRow>, QueryError> {
    let mut cols: Vec<Node> = ctx
        .load(ctx.neighbors(table.id, Direction::Out, EdgeKind::Contains))?
        .into_iter()
        .filter(|n| n.kind == NodeKind::Column)
        .collect();
    cols.sort_by_key(|c| {
        c.attr("position")
            .and_then(|p| p.parse::<u32>().ok())
            .unwrap_or(0)
    });
    let foreign = foreign_keys_of(table);
    let unique = unique_keys_of(table);
    Ok(cols
        .iter()
        .map(|c| {
            let primary_key = c.attr("primary-key") == Some("yes");
            let has = |list: &[String]| list.iter().any(|k| k.eq_ignore_ascii_case(&c.name));
            let mut keys = Vec::new();
            if primary_key {
                keys.push("PK".to_string());
            }
            for fk in foreign.iter().filter(|fk| has(&fk.columns)) {
                keys.push(match &fk.name {
                    Some(n) => format!("FK {n} → {}", fk.describe_target()),
                    None => format!("FK → {}", fk.describe_target()),
                });
            }
            for uq in unique.iter().filter(|k| has(&k.columns)) {
                keys.push(match &uq.name {
                    Some(n) => format!("UQ {n}"),
                    None => "UQ".to_string(),
                });
            }
            ColumnRow {
                name: c.name.clone(),
                data_type: c.attr("type").unwrap_or("").to_string(),
                nullable: c.attr("nullable") != Some("no"),
                default: c.attr("default").map(str::to_string),
                primary_key,
                keys,
            }
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
                c.keys.join(", "),
            ]
        })
        .collect();
    md.table(
        &["column", "type", "nullable", "default", "key"],
        &rows,
        "No columns are indexed (a view, or DDL the parser skipped).",
    );
}

/// A primary or unique key of a table.
#[derive(Serialize, Clone)]
pub(crate) struct KeyRow {
    pub(crate) name: Option<String>,
    pub(crate) columns: Vec<String>,
}

/// A foreign key: `table (columns) → target (target_columns)`.
#[derive(Serialize, Clone)]
pub(crate) struct ForeignKeyRow {
    pub(crate) name: Option<String>,
    /// The referencing table.
    pub(crate) table: String,
    pub(crate) columns: Vec<String>,
    /// The referenced table.
    pub(crate) target: String,
    /// The referenced columns (empty when the DDL names none and the target is not indexed).
    pub(crate) target_columns: Vec<String>,
    /// The product of the table on the other side, when it is another product's.
    pub(crate) other_product: Option<String>,
}

impl ForeignKeyRow {
    /// `customers.id`, `customers (id, region)`, or `customers`.
    fn describe_target(&self) -> String {
        match self.target_columns.as_slice() {
            [] => self.target.clone(),
            [one] => format!("{}.{one}", self.target),
            many => format!("{} ({})", self.target, many.join(", ")),
        }
    }

    /// `fk_orders_customer (customer_id → customers.id)`.
    pub(crate) fn describe(&self) -> String {
        self.describe_columns(self.columns.join(", "))
    }

    /// As [`ForeignKeyRow::describe`], the columns qualified by their table:
    /// `fk_payments_order (payments.order_id → orders.id) in payments`.
    pub(crate) fn describe_from(&self) -> String {
        let columns = if self.columns.is_empty() {
            self.table.clone()
        } else {
            self.columns
                .iter()
                .map(|c| format!("{}.{c}", self.table))
                .collect::<Vec<_>>()
                .join(", ")
        };
        self.describe_columns(columns)
    }

    fn describe_columns(&self, columns: String) -> String {
        let name = self.name.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
        let other = self
            .other_product
            .as_deref()
            .map(|p| format!(" in {p}"))
            .unwrap_or_default();
        format!("{name}({columns} → {}){other}", self.describe_target())
    }
}

/// Every key of a table, named where the DDL names it.
#[derive(Serialize)]
pub(crate) struct Keys {
    pub(crate) primary_key: Option<KeyRow>,
    pub(crate) unique: Vec<KeyRow>,
    pub(crate) foreign_keys_out: Vec<ForeignKeyRow>,
    pub(crate) foreign_keys_in: Vec<ForeignKeyRow>,
}

fn split_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The foreign keys a table node records (`foreign-keys`: one per line, tab-separated
/// name, columns, target table, target columns).
fn foreign_keys_of(table: &Node) -> Vec<ForeignKeyRow> {
    table
        .attr("foreign-keys")
        .unwrap_or("")
        .lines()
        .filter_map(|line| {
            let mut parts = line.split('\t');
            let name = parts.next()?;
            let columns = split_list(parts.next()?);
            let target = parts.next()?.to_string();
            let target_columns = split_list(parts.next().unwrap_or(""));
            Some(ForeignKeyRow {
                name: Some(name.to_string()).filter(|n| !n.is_empty()),
                table: table.name.clone(),
                columns,
                target,
                target_columns,
                other_product: None,
            })
        })
        .collect()
}

/// The unique keys a table node records (`unique-keys`: name TAB columns per line).
fn unique_keys_of(table: &Node) -> Vec<KeyRow> {
    table
        .attr("unique-keys")
        .unwrap_or("")
        .lines()
        .filter_map(|line| {
            let (name, cols) = line.split_once('\t')?;
            Some(KeyRow {
                name: Some(name.to_string()).filter(|n| !n.is_empty()),
                columns: split_list(cols),
            })
        })
        .collect()
}

/// The keys of `table`: its own, and the foreign keys of the tables that reference it.
pub(crate) fn table_keys(ctx: &Ctx<'_>, table: &Node) -> Result<Keys, QueryError> {
    let primary_key = table.attr("primary-key").map(|cols| KeyRow {
        name: table.attr("primary-key-name").map(str::to_string),
        columns: split_list(cols),
    });
    let targets: Vec<Node> = ctx
        .neighbor_nodes(table.id, Direction::Out, EdgeKind::References)?
        .into_iter()
        .filter(|n| TABLE_KINDS.contains(&n.kind))
        .collect();
    let mut out = foreign_keys_of(table);
    for fk in &mut out {
        fk.other_product = targets
            .iter()
            .find(|n| table_key(&n.name) == table_key(&fk.target))
            .filter(|n| n.product != table.product)
            .map(|n| ctx.product_name(n.product));
    }
    let mut referencing: Vec<Node> = ctx
        .neighbor_nodes(table.id, Direction::In, EdgeKind::References)?
        .into_iter()
        .filter(|n| n.kind == NodeKind::Table)
        .collect();
    referencing.sort_by(|a, b| (&a.name, a.product).cmp(&(&b.name, b.product)));
    referencing.dedup_by_key(|n| n.id);
    let mut inn = Vec::new();
    for r in &referencing {
        let other = (r.product != table.product).then(|| ctx.product_name(r.product));
        let mut found = false;
        for mut fk in foreign_keys_of(r) {
            if table_key(&fk.target) == table_key(&table.name) {
                fk.other_product.clone_from(&other);
                inn.push(fk);
                found = true;
            }
        }
        if !found {
            // A reference recorded without its key (another kind of DDL): the table only.
            inn.push(ForeignKeyRow {
                name: None,
                table: r.name.clone(),
                columns: Vec::new(),
                target: table.name.clone(),
                target_columns: Vec::new(),
                other_product: other,
            });
        }
    }
    Ok(Keys {
        primary_key,
        unique: unique_keys_of(table),
        foreign_keys_out: out,
        foreign_keys_in: inn,
    })
}

/// The keys of a table as one markdown table.
pub(crate) fn keys_table(md: &mut Md, keys: &Keys) {
    let name = |n: &Option<String>| n.as_deref().map(tick).unwrap_or_else(|| "(unnamed)".into());
    let mut rows = Vec::new();
    if let Some(pk) = &keys.primary_key {
        rows.push(vec![
            "primary key".into(),
            name(&pk.name),
            pk.columns.join(", "),
            String::new(),
        ]);
    }
    for k in &keys.unique {
        rows.push(vec![
            "unique".into(),
            name(&k.name),
            k.columns.join(", "),
            String::new(),
        ]);
    }
    for fk in &keys.foreign_keys_out {
        let mut target = fk.describe_target();
        if let Some(p) = &fk.other_product {
            target.push_str(&format!(" ({p})"));
        }
        rows.push(vec![
            "foreign key".into(),
            name(&fk.name),
            fk.columns.join(", "),
            target,
        ]);
    }
    for fk in &keys.foreign_keys_in {
        let mut from = if fk.columns.is_empty() {
            fk.table.clone()
        } else {
            fk.columns
                .iter()
                .map(|c| format!("{}.{c}", fk.table))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some(p) = &fk.other_product {
            from.push_str(&format!(" ({p})"));
        }
        rows.push(vec![
            "referenced by".into(),
            name(&fk.name),
            from,
            fk.describe_target(),
        ]);
    }
    md.table(
        &["key", "name", "columns", "references"],
        &rows,
        "No keys are indexed for this table.",
    );
}

/// Where a table was defined and what changed it since, from its node's attributes.
#[derive(Serialize, Default)]
pub(crate) struct History {
    /// Where its current definition was made (`file:line`, with the Liquibase changeset).
    pub(crate) created_by: Option<String>,
    /// Every definition, when there are several (one script per dialect, or re-created).
    pub(crate) definitions: Vec<String>,
    /// How each earlier definition differs from the current one.
    pub(crate) differences: Vec<String>,
    /// Later changes by other files or changesets.
    pub(crate) changes: Vec<ChangeRow>,
    /// Changes beyond those listed.
    pub(crate) changes_not_listed: u64,
}

/// A change to a table: where, and what.
#[derive(Serialize)]
pub(crate) struct ChangeRow {
    pub(crate) at: String,
    pub(crate) change: String,
}

pub(crate) fn table_history(table: &Node) -> History {
    let lines = |key: &str| -> Vec<String> {
        table
            .attr(key)
            .unwrap_or("")
            .lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    History {
        created_by: table.attr("created-by").map(str::to_string),
        definitions: lines("definitions"),
        differences: lines("definition-differences"),
        changes: lines("changed-by")
            .into_iter()
            .map(|l| match l.split_once('\t') {
                Some((at, change)) => ChangeRow {
                    at: at.to_string(),
                    change: change.to_string(),
                },
                None => ChangeRow {
                    at: String::new(),
                    change: l,
                },
            })
            .collect(),
        changes_not_listed: table
            .attr("changes-not-listed")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    }
}

/// The history of a table: its definitions, where they differ, and its later changes.
pub(crate) fn history_section(md: &mut Md, h: &History) {
    if let Some(c) = &h.created_by {
        md.para(&format!("Created by {}.", tick(c)));
    }
    if h.definitions.len() > 1 {
        md.para(&format!(
            "Defined {} times (the graph shows the state after the last, with later changes):",
            h.definitions.len()
        ));
        md.bullets(h.definitions.iter().map(|d| tick(d)));
        if !h.differences.is_empty() {
            md.para("Where they differ:");
            md.bullets(h.differences.iter().cloned());
        }
    }
    if h.changes.is_empty() {
        md.para("No later file or changeset changed it.");
    } else {
        let rows: Vec<Vec<String>> = h
            .changes
            .iter()
            .map(|c| vec![tick(&c.at), c.change.clone()])
            .collect();
        md.table(&["changed by", "change"], &rows, "");
        if h.changes_not_listed > 0 {
            md.para(&format!("{} more changes are not listed.", h.changes_not_listed));
        }
    }
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
        let cols = column_rows(ctx, t)?;
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

/// The triggers `name` may mean: by its `table.trigger` fqn, or by its own name.
fn trigger_candidates(ctx: &Ctx<'_>, name: &str) -> Result<Vec<u32>, QueryError> {
    let unquoted: String = name
        .chars()
        .filter(|c| !matches!(c, '"' | '`' | '[' | ']'))
        .collect::<String>()
        .trim()
        .to_lowercase();
    let parts: Vec<&str> = unquoted.split('.').collect();
    let mut ids: Vec<u32> = Vec::new();
    if parts.len() >= 2 {
        let fqn = parts[parts.len() - 2..].join(".");
        ids.extend(ctx.snap.find_by_fqn(&fqn)?.into_iter().map(|n| n.0));
    }
    let own = parts.last().copied().unwrap_or_default();
    for candidate in [name.trim(), own] {
        ids.extend(ctx.snap.find_by_name(candidate)?.into_iter().map(|n| n.0));
    }
    let triggers = ctx.snap.nodes_of_kind(NodeKind::Trigger);
    ids.retain(|id| triggers.contains(*id));
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
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
    let mut ids: Vec<u32> = ctx.snap.find_by_fqn(&key)?.into_iter().map(|n| n.0).collect();
    // A trigger is named per table: `table.trigger` names one, a bare name every trigger
    // of that name.
    for trigger in trigger_candidates(ctx, name)? {
        if !ids.contains(&trigger) {
            ids.push(trigger);
        }
    }
    let mut found: Vec<Node> = ctx
        .load(ids)?
        .into_iter()
        .filter(|n| kinds.contains(&n.kind))
        .collect();
    found.sort_by(|a, b| (a.kind.as_str(), &a.fqn, a.product).cmp(&(b.kind.as_str(), &b.fqn, b.product)));
    found.dedup_by_key(|n| n.id);
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
    keys: Keys,
    history: History,
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
        let d = TableDetails {
            table: NodeRef::of(ctx, t),
            columns: column_rows(ctx, t)?,
            keys: table_keys(ctx, t)?,
            history: table_history(t),
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
        md.para(&format!("Entities: {}.", list(&d.entities)));
        md.h3("Keys");
        keys_table(&mut md, &d.keys);
        md.h3("Definitions and changes");
        history_section(&mut md, &d.history);
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
