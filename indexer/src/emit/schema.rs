//! SQL schemas into the graph: tables with their columns, keys and indexes, views,
//! triggers and routines, and the edges between them.
//!
//! The schema arrives replayed (a repository's scripts applied in Flyway order, so a later
//! `ALTER TABLE` changes the table the graph shows). A reference to a table this product
//! does not define (a foreign key into another product's schema) is a link reference by
//! the normalised table name, resolved against every product's tables at commit.

use std::collections::{BTreeMap, HashMap};

use semgraph_storage::{
    keys, ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter,
};

use super::Run;
use crate::error::IndexError;
use crate::lang::sql::{Access, IndexMethod, RoutineKind, Schema, TriggerEvent, TriggerTiming};

/// Writes a repository's replayed `schema`; `placed` gives the file each object was
/// created in (by normalised name), `file_nodes` the File node of each file. Returns the
/// table nodes by normalised name.
pub(crate) fn write_schema(
    run: &mut Run,
    w: &mut ProductWriter,
    schema: &Schema,
    placed: &HashMap<String, String>,
    file_nodes: &BTreeMap<String, NodeId>,
) -> Result<BTreeMap<String, NodeId>, IndexError> {
    let mut tables: BTreeMap<String, NodeId> = BTreeMap::new();
    let file_of = |name: &str| placed.get(&keys::table_name(name)).cloned();
    let contain = |w: &mut ProductWriter, name: &str, node: NodeId| -> Result<(), IndexError> {
        if let Some(file) = file_of(name).and_then(|f| file_nodes.get(&f).copied()) {
            w.add_edge(file, EdgeKind::Contains, node)?;
        }
        Ok(())
    };

    let mut table_ids = Vec::new();
    for table in schema.tables() {
        let key = keys::table_name(&table.name);
        let file = placed.get(&key).map(String::as_str);
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
        if let Some(p) = &table.partition_of {
            node = node.attr("partition-of", p);
        }
        if let Some(p) = &table.partition_by {
            node = node.attr("partition-by", p);
        }
        if !table.inherits.is_empty() {
            node = node.attr("inherits", table.inherits.join(", "));
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &table.ddl)?;
        w.add_anchor(id, &keys::table(&table.name))?;
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
            if let Some(file) = file {
                c = c.at(file, column.line, column.line);
            }
            let col = run.add(w, c)?;
            w.add_edge(id, EdgeKind::Contains, col)?;
        }
        tables.insert(key, id);
        table_ids.push(id);
    }

    // Foreign keys, partitions and inheritance, once every table has its node.
    for (table, &from) in schema.tables().into_iter().zip(&table_ids) {
        for fk in &table.foreign_keys {
            let via = format!(
                "foreign-key {}({}) -> {}({})",
                fk.name.as_deref().unwrap_or(""),
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

    for index in schema.indexes() {
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
        if let Some(file) = file_of(&index.table) {
            node = node.at(file, index.line, index.line);
        }
        let id = run.add(w, node)?;
        match tables.get(&table_key) {
            Some(&t) => w.add_edge(t, EdgeKind::Contains, id)?,
            None => run.warn(
                file_of(&index.table).as_deref().unwrap_or(""),
                Some(index.line),
                format!("index {name} is on table {} that no script creates", index.table),
            ),
        }
    }

    for view in schema.views() {
        let key = keys::table_name(&view.name);
        let mut node = NewNode::new(NodeKind::View, &view.name).fqn(&key);
        if let Some(file) = file_of(&view.name) {
            node = node.at(file, view.line, view.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &view.body)?;
        w.add_anchor(id, &keys::table(&view.name))?;
        contain(w, &view.name, id)?;
        for read in &view.reads {
            reference(w, &tables, id, read, EdgeKind::Reads, None, view.line)?;
        }
    }

    for trigger in schema.triggers() {
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
        let mut node = NewNode::new(NodeKind::Trigger, &trigger.name)
            .fqn(keys::table_name(&trigger.name))
            .attr("table", &trigger.table)
            .attr("timing", timing)
            .attr("events", events.join(", "));
        if let Some(f) = &trigger.function {
            node = node.attr("function", f);
        }
        if let Some(file) = file_of(&trigger.name) {
            node = node.at(file, trigger.line, trigger.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &trigger.body)?;
        contain(w, &trigger.name, id)?;
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

    for routine in schema.routines() {
        let kind = match routine.kind {
            RoutineKind::Function => "function",
            RoutineKind::Procedure => "procedure",
        };
        let mut node = NewNode::new(NodeKind::Routine, &routine.name)
            .fqn(keys::table_name(&routine.name))
            .attr("kind", kind);
        if let Some(file) = file_of(&routine.name) {
            node = node.at(file, routine.line, routine.line);
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Sql, &routine.body)?;
        contain(w, &routine.name, id)?;
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
