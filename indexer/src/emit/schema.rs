//! SQL schemas into the graph: tables with their columns, keys and indexes, views,
//! triggers and routines, and the edges between them.
//!
//! The schema arrives replayed (a repository's scripts applied in Flyway order and its
//! Liquibase changesets in changelog order, so a later `ALTER TABLE` changes the table the
//! graph shows). A table is one node however many files define it: its definitions, where
//! they differ, which file or changeset created it and which later ones changed it are
//! attributes of that node ([`attrs`]). A reference to a table this product
//! does not define (a foreign key into another product's schema) is a link reference by
//! the normalised table name, resolved against every product's tables at commit.

use std::collections::BTreeMap;

use semgraph_storage::{
    keys, ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter,
};

use super::Run;
use crate::error::IndexError;
use crate::lang::sql::{
    Access, IndexMethod, Place, RoutineKind, Schema, TableHistory, TriggerEvent, TriggerTiming,
};

/// How a table node spells its keys and history in attributes (one entry per line; the
/// queries read them back with the same layout):
/// - `primary-key-name`: the primary key's constraint name;
/// - `unique-keys`: `name<TAB>col, col` (name empty when unnamed);
/// - `foreign-keys`: `name<TAB>col, col<TAB>target table<TAB>target col, col` (target
///   columns are the target's primary key when the DDL names none and the product defines
///   the target);
/// - `created-by`: where the current definition was made (`file:line`, then `changeset id
///   by author` and `[dbms: …]`/`[context: …]`/`[labels: …]` for a Liquibase changeset);
/// - `definitions`: every definition, the same way, in replay order (only when there are
///   several), and `definition-differences`: how each earlier one differs from the current;
/// - `changed-by`: `where<TAB>what` for each later change by another file or changeset, and
///   `changes-not-listed`: how many more there were.
pub(crate) mod attrs {
    pub(crate) const PRIMARY_KEY_NAME: &str = "primary-key-name";
    pub(crate) const UNIQUE_KEYS: &str = "unique-keys";
    pub(crate) const FOREIGN_KEYS: &str = "foreign-keys";
    pub(crate) const CREATED_BY: &str = "created-by";
    pub(crate) const DEFINITIONS: &str = "definitions";
    pub(crate) const DIFFERENCES: &str = "definition-differences";
    pub(crate) const CHANGED_BY: &str = "changed-by";
    pub(crate) const CHANGES_NOT_LISTED: &str = "changes-not-listed";
}

/// Writes a repository's replayed `schema`; `file_nodes` gives the File node of each file.
/// Returns the table nodes by normalised name.
pub(crate) fn write_schema(
    run: &mut Run,
    w: &mut ProductWriter,
    schema: &Schema,
    file_nodes: &BTreeMap<String, NodeId>,
) -> Result<BTreeMap<String, NodeId>, IndexError> {
    let mut tables: BTreeMap<String, NodeId> = BTreeMap::new();
    let contain = |w: &mut ProductWriter, place: Option<&Place>, node: NodeId| -> Result<(), IndexError> {
        if let Some(file) = file_of(place).and_then(|f| file_nodes.get(f).copied()) {
            w.add_edge(file, EdgeKind::Contains, node)?;
        }
        Ok(())
    };

    let placed_tables = schema.tables_placed();
    let mut table_ids = Vec::new();
    for &(table, place) in &placed_tables {
        let key = keys::table_name(&table.name);
        let file = file_of(place);
        let mut node = NewNode::new(NodeKind::Table, &table.name).fqn(&key);
        if let Some(file) = file {
            node = node.at(file, table.line, table.line);
        }
        if let Some(s) = &table.schema {
            node = node.attr("schema", s);
        }
        if !table.primary_key.is_empty() {
            node = node.attr("primary-key", table.primary_key.join(", "));
        }
        if let Some(name) = &table.primary_key_name {
            node = node.attr(attrs::PRIMARY_KEY_NAME, name);
        }
        if !table.unique_keys.is_empty() {
            let lines: Vec<String> = table
                .unique_keys
                .iter()
                .map(|k| format!("{}\t{}", k.name.as_deref().unwrap_or(""), k.columns.join(", ")))
                .collect();
            node = node.attr(attrs::UNIQUE_KEYS, lines.join("\n"));
        }
        if !table.foreign_keys.is_empty() {
            let lines: Vec<String> = table
                .foreign_keys
                .iter()
                .map(|fk| {
                    let target_columns = if fk.ref_columns.is_empty() {
                        schema
                            .table(&fk.ref_table)
                            .map(|t| t.primary_key.clone())
                            .unwrap_or_default()
                    } else {
                        fk.ref_columns.clone()
                    };
                    format!(
                        "{}\t{}\t{}\t{}",
                        fk.name.as_deref().unwrap_or(""),
                        fk.columns.join(", "),
                        fk.ref_table,
                        target_columns.join(", ")
                    )
                })
                .collect();
            node = node.attr(attrs::FOREIGN_KEYS, lines.join("\n"));
        }
        if let Some(p) = &table.partition_of {
            node = node.attr("partition-of", p);
        }
        if let Some(p) = &table.partition_by {
            node = node.attr("partition-by", p);
        }
        if !table.inherits.is_empty() {
            node = node.attr("inherits", table.inherits.join(", "));
        }
        if let Some(place) = place {
            node = node.attr(attrs::CREATED_BY, place.label());
        }
        if let Some(history) = schema.history(&table.name) {
            node = history_attrs(node, history);
            if history.definitions.len() > 1 {
                run.stat("sql.tables.defined-several-times", 1);
            }
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &table.ddl)?;
        w.add_anchor(id, keys::table(&table.name))?;
        if let Some(&file_node) = file.and_then(|f| file_nodes.get(f)) {
            w.add_edge(file_node, EdgeKind::Contains, id)?;
        }
        for (i, column) in table.columns.iter().enumerate() {
            let mut c = NewNode::new(NodeKind::Column, &column.name)
                .fqn(format!("{key}.{}", column.name.to_lowercase()))
                .attr("type", &column.data_type)
                .attr("nullable", if column.nullable { "yes" } else { "no" })
                .attr("position", (i + 1).to_string());
            if let Some(d) = &column.default {
                c = c.attr("default", d);
            }
            if column.identity {
                c = c.attr("identity", "yes");
            }
            if table
                .primary_key
                .iter()
                .any(|k| k.eq_ignore_ascii_case(&column.name))
            {
                c = c.attr("primary-key", "yes");
            }
            // A column a later file added is placed in that file.
            let column_place = schema.column_place(&table.name, &column.name).or(place);
            if let Some(file) = file_of(column_place) {
                c = c.at(file, column.line, column.line);
            }
            let col = run.add(w, c)?;
            w.add_edge(id, EdgeKind::Contains, col)?;
        }
        tables.insert(key, id);
        table_ids.push(id);
    }

    // Foreign keys, partitions and inheritance, once every table has its node.
    for (&(table, _), &from) in placed_tables.iter().zip(&table_ids) {
        for fk in &table.foreign_keys {
            let via = format!(
                "foreign-key {} ({}) -> {} ({})",
                fk.name.as_deref().unwrap_or("-"),
                fk.columns.join(", "),
                fk.ref_table,
                fk.ref_columns.join(", ")
            );
            reference(
                w,
                &tables,
                from,
                &fk.ref_table,
                EdgeKind::References,
                Some(via),
                fk.line,
            )?;
        }
        for parent in table.partition_of.iter().chain(&table.inherits) {
            reference(w, &tables, from, parent, EdgeKind::Extends, None, table.line)?;
        }
    }

    for (index, place) in schema.indexes_placed() {
        let table_key = keys::table_name(&index.table);
        let name = index
            .name
            .clone()
            .unwrap_or_else(|| format!("{table_key}_{}_idx", index.columns.join("_")));
        let method = match &index.method {
            IndexMethod::BTree => "btree".to_string(),
            IndexMethod::Hash => "hash".into(),
            IndexMethod::Gin => "gin".into(),
            IndexMethod::Gist => "gist".into(),
            IndexMethod::SpGist => "spgist".into(),
            IndexMethod::Brin => "brin".into(),
            IndexMethod::FullText => "fulltext".into(),
            IndexMethod::Spatial => "spatial".into(),
            IndexMethod::Other(m) => m.to_lowercase(),
        };
        let mut node = NewNode::new(NodeKind::Index, &name)
            .fqn(format!("{table_key}.{}", name.to_lowercase()))
            .attr("table", &index.table)
            .attr("columns", index.columns.join(", "))
            .attr("unique", if index.unique { "yes" } else { "no" })
            .attr("method", method);
        if let Some(file) = file_of(place) {
            node = node.at(file, index.line, index.line);
        }
        let id = run.add(w, node)?;
        match tables.get(&table_key) {
            Some(&t) => w.add_edge(t, EdgeKind::Contains, id)?,
            None => run.warn(
                file_of(place).unwrap_or(""),
                Some(index.line),
                format!("index {name} is on table {} that no script creates", index.table),
            ),
        }
    }

    for (view, place) in schema.views_placed() {
        let key = keys::table_name(&view.name);
        let mut node = NewNode::new(NodeKind::View, &view.name).fqn(&key);
        if let Some(file) = file_of(place) {
            node = node.at(file, view.line, view.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &view.body)?;
        w.add_anchor(id, keys::table(&view.name))?;
        contain(w, place, id)?;
        for read in &view.reads {
            reference(w, &tables, id, read, EdgeKind::Reads, None, view.line)?;
        }
    }

    for (trigger, place) in schema.triggers_placed() {
        let timing = match trigger.timing {
            TriggerTiming::Before => "BEFORE",
            TriggerTiming::After => "AFTER",
            TriggerTiming::InsteadOf => "INSTEAD OF",
        };
        let events: Vec<&str> = trigger
            .events
            .iter()
            .map(|e| match e {
                TriggerEvent::Insert => "INSERT",
                TriggerEvent::Update => "UPDATE",
                TriggerEvent::Delete => "DELETE",
                TriggerEvent::Truncate => "TRUNCATE",
            })
            .collect();
        // Trigger names are unique per table (PostgreSQL), so the table is part of the name.
        let mut node = NewNode::new(NodeKind::Trigger, &trigger.name)
            .fqn(format!(
                "{}.{}",
                keys::table_name(&trigger.table),
                keys::table_name(&trigger.name)
            ))
            .attr("table", &trigger.table)
            .attr("timing", timing)
            .attr("events", events.join(", "));
        if let Some(f) = &trigger.function {
            node = node.attr("function", f);
        }
        if let Some(file) = file_of(place) {
            node = node.at(file, trigger.line, trigger.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &trigger.body)?;
        contain(w, place, id)?;
        reference(
            w,
            &tables,
            id,
            &trigger.table,
            EdgeKind::References,
            None,
            trigger.line,
        )?;
        for (table, access) in &trigger.touches {
            let kind = if *access == Access::Write {
                EdgeKind::Writes
            } else {
                EdgeKind::Reads
            };
            reference(w, &tables, id, table, kind, None, trigger.line)?;
        }
    }

    for (routine, place) in schema.routines_placed() {
        let kind = match routine.kind {
            RoutineKind::Function => "function",
            RoutineKind::Procedure => "procedure",
        };
        let mut node = NewNode::new(NodeKind::Routine, &routine.name)
            .fqn(keys::table_name(&routine.name))
            .attr("kind", kind);
        if let Some(file) = file_of(place) {
            node = node.at(file, routine.line, routine.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &routine.body)?;
        contain(w, place, id)?;
        for (table, access) in &routine.touches {
            let kind = if *access == Access::Write {
                EdgeKind::Writes
            } else {
                EdgeKind::Reads
            };
            reference(w, &tables, id, table, kind, None, routine.line)?;
        }
    }
    run.stat("sql.tables", tables.len() as u64);
    Ok(tables)
}

/// The file a schema object was made in.
fn file_of(place: Option<&Place>) -> Option<&str> {
    place.map(|p| p.origin.file.as_str())
}

/// The history attributes of a table node.
fn history_attrs(mut node: NewNode, history: &TableHistory) -> NewNode {
    if history.definitions.len() > 1 {
        let labels: Vec<String> = history.definitions.iter().map(|d| d.place.label()).collect();
        node = node.attr(attrs::DEFINITIONS, labels.join("\n"));
        let differences = history.differences();
        if !differences.is_empty() {
            node = node.attr(attrs::DIFFERENCES, differences.join("\n"));
        }
    }
    if !history.changes.is_empty() {
        let lines: Vec<String> = history
            .changes
            .iter()
            .map(|c| format!("{}\t{}", c.place.label(), c.what))
            .collect();
        node = node.attr(attrs::CHANGED_BY, lines.join("\n"));
    }
    if history.more_changes > 0 {
        node = node.attr(attrs::CHANGES_NOT_LISTED, history.more_changes.to_string());
    }
    node
}

/// An edge from `from` to the table called `table`: direct when this product defines it,
/// else a unique link reference resolved across products.
fn reference(
    w: &mut ProductWriter,
    tables: &BTreeMap<String, NodeId>,
    from: NodeId,
    table: &str,
    kind: EdgeKind,
    via: Option<String>,
    line: u32,
) -> Result<(), IndexError> {
    match tables.get(&keys::table_name(table)) {
        Some(&to) if to != from => {
            let attrs = EdgeAttrs {
                lines: vec![line],
                via,
            };
            w.add_edge_with(from, kind, to, &attrs)?;
        }
        Some(_) => {}
        None => w.add_link(from, kind, &keys::table(table), LinkPolicy::Unique)?,
    }
    Ok(())
}
