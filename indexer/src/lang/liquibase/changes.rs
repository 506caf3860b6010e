//! Liquibase changes as schema facts: `createTable`, `addColumn`, the key and constraint
//! changes, `createIndex`, drops and renames, `createView`, `modifyDataType`, defaults —
//! each the [`SchemaStatement`] the same SQL would give — and what only the replay can
//! apply: `sql` and `createProcedure` text (read by the SQL front-end then), `sqlFile`
//! (another file), `loadData` (the table only: a note in its history).
//!
//! Values are read after `${…}` expansion ([`Expander`]): the changelog properties known
//! at this point of the changelog tree (a property given once per `dbms` has no single
//! value, so it stays as written), Spring Boot's `spring.liquibase.parameters.*` from the
//! module's config before them, as Liquibase gives passed parameters precedence.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};

use super::formatted::dialect_of_dbms;
use super::{Element, Property};
use crate::lang::config::resolve_placeholders;
use crate::lang::sql::{
    AlterOp, Column, ForeignKey, Index, IndexMethod, ObjectKind, SchemaStatement, SqlDialect, SqlWarning,
    Table, UniqueKey,
};

/// Expands `${…}` in changelog values.
pub(crate) struct Expander<'a> {
    /// Every definition of each property, in the order the changelog tree gave them.
    properties: HashMap<String, Vec<Property>>,
    /// The module's config (`spring.liquibase.parameters.<name>`).
    config: &'a dyn Fn(&str) -> Option<String>,
    /// Placeholders left as written: no value, or one per `dbms`/`context`.
    pub(crate) unresolved: RefCell<BTreeSet<String>>,
}

impl<'a> Expander<'a> {
    /// An expander over the module's config `config`, with no changelog properties yet.
    pub(crate) fn new(config: &'a dyn Fn(&str) -> Option<String>) -> Expander<'a> {
        Expander {
            properties: HashMap::new(),
            config,
            unresolved: RefCell::new(BTreeSet::new()),
        }
    }

    /// Adds a changelog's properties (Liquibase keeps the first value a name is given;
    /// values filtered by `dbms` or `context` are kept side by side).
    pub(crate) fn add(&mut self, properties: &[Property]) {
        for p in properties {
            let list = self.properties.entry(p.name.clone()).or_default();
            let filtered = p.dbms.is_some() || p.context.is_some();
            if filtered || !list.iter().any(|q| q.dbms.is_none() && q.context.is_none()) {
                list.push(p.clone());
            }
        }
    }

    /// The value of property `name`, when the sources fix one.
    fn value(&self, name: &str) -> Option<String> {
        if let Some(v) = (self.config)(&format!("spring.liquibase.parameters.{name}")) {
            return Some(v);
        }
        let list = self.properties.get(name)?;
        if let Some(p) = list.iter().find(|p| p.dbms.is_none() && p.context.is_none()) {
            return Some(p.value.clone());
        }
        let first = list.first()?;
        list.iter()
            .all(|p| p.value == first.value)
            .then(|| first.value.clone())
    }

    /// `value` with its placeholders expanded where the sources fix them.
    pub(crate) fn expand(&self, value: &str) -> String {
        if !value.contains("${") {
            return value.to_owned();
        }
        let resolved = resolve_placeholders(value, |k| self.value(k));
        if !resolved.unresolved.is_empty() {
            self.unresolved.borrow_mut().extend(resolved.unresolved);
        }
        resolved.text
    }
}

/// What applying a change takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A schema fact, at a line of the changelog (boxed: it is much larger than the rest).
    Statement(Box<SchemaStatement>, u32),
    /// SQL text to read with the SQL front-end; `offset` lines of the file come before it.
    Sql {
        /// The statements.
        text: String,
        /// The dialect `dbms` names, if it names one.
        dialect: Option<SqlDialect>,
        /// Lines before the text.
        offset: u32,
    },
    /// `sqlFile`: a script read with the SQL front-end.
    SqlFile {
        /// The path as written.
        path: String,
        /// `relativeToChangelogFile`.
        relative: bool,
        /// The dialect `dbms` names, if it names one.
        dialect: Option<SqlDialect>,
        /// The line of the change.
        line: u32,
    },
    /// Something a change does to a table that is no schema fact (`loadData`).
    Note {
        /// The table.
        table: String,
        /// What it does.
        what: String,
        /// The line of the change.
        line: u32,
    },
}

impl Step {
    /// The step that applies `statement`, read at `line`.
    fn statement(statement: SchemaStatement, line: u32) -> Step {
        Step::Statement(Box::new(statement), line)
    }
}

/// The steps of a changeset's changes, and what could not be read.
#[derive(Debug, Default)]
pub(crate) struct Read {
    pub(crate) steps: Vec<Step>,
    pub(crate) warnings: Vec<SqlWarning>,
    /// Change types this reader does not apply, with how often each was seen.
    pub(crate) unsupported: Vec<String>,
}

/// Changes that make or alter nothing the graph holds.
const NO_SCHEMA_FACTS: &[&str] = &[
    "createSequence",
    "dropSequence",
    "alterSequence",
    "renameSequence",
    "insert",
    "update",
    "delete",
    "empty",
    "output",
    "stop",
    "executeCommand",
    "customChange",
    "addAutoIncrement",
    "addLookupTable",
    "setTableRemarks",
    "setColumnRemarks",
    "createSynonym",
    "dropSynonym",
    "dropAllForeignKeyConstraints",
    "dropProcedure",
    "dropFunction",
    "dropTrigger",
    "enableTrigger",
    "disableTrigger",
    "mergeColumns",
];

/// Reads the changes of one changeset (`dbms` is the changeset's filter, for the dialect
/// of its SQL); `source` is the changeset's text (the DDL content of tables it creates).
pub(crate) fn read(changes: &[Element], dbms: Option<&str>, x: &Expander<'_>, source: &str) -> Read {
    let mut out = Read::default();
    for el in changes {
        change(el, dbms, x, source, &mut out);
    }
    out
}

fn list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// An expanded attribute.
fn get(el: &Element, x: &Expander<'_>, name: &str) -> Option<String> {
    el.attr(name).map(|v| x.expand(v))
}

fn change(el: &Element, dbms: Option<&str>, x: &Expander<'_>, source: &str, out: &mut Read) {
    let line = el.line;
    let dbms = el.attr("dbms").or(dbms);
    let table = get(el, x, "tableName");
    let missing = |out: &mut Read, what: &str| {
        out.warnings.push(SqlWarning {
            line,
            message: format!("{} without `{what}`, skipped", el.name),
        });
    };
    let alter = |out: &mut Read, table: &str, ops: Vec<AlterOp>| {
        out.steps.push(Step::statement(
            SchemaStatement::AlterTable {
                table: table.to_owned(),
                ops,
            },
            line,
        ));
    };
    match el.name.as_str() {
        "createTable" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            let (table, indexes) = create_table(el, x, &name, source);
            out.steps
                .push(Step::statement(SchemaStatement::CreateTable(table), line));
            for ix in indexes {
                out.steps
                    .push(Step::statement(SchemaStatement::CreateIndex(ix), line));
            }
        }
        "addColumn" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            let mut ops = Vec::new();
            for col in el.children_named("column") {
                let facts = column(col, x);
                let col_name = facts.column.name.clone();
                ops.push(AlterOp::AddColumn(facts.column));
                if facts.primary_key {
                    ops.push(AlterOp::AddPrimaryKey {
                        name: facts.primary_key_name,
                        columns: vec![col_name.clone()],
                    });
                }
                if facts.unique {
                    ops.push(AlterOp::AddUnique(UniqueKey {
                        name: facts.unique_name.clone(),
                        columns: vec![col_name.clone()],
                    }));
                    if let Some(ix) = unique_index(&name, facts.unique_name, &[col_name], col.line) {
                        ops.push(AlterOp::AddIndex(ix));
                    }
                }
                ops.extend(facts.foreign_key.map(AlterOp::AddForeignKey));
            }
            alter(out, &name, ops);
        }
        "addPrimaryKey" => {
            let (Some(name), Some(cols)) = (table, get(el, x, "columnNames")) else {
                return missing(out, "tableName` or `columnNames");
            };
            alter(
                out,
                &name,
                vec![AlterOp::AddPrimaryKey {
                    name: get(el, x, "constraintName"),
                    columns: list(&cols),
                }],
            );
        }
        "dropPrimaryKey" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            alter(
                out,
                &name,
                vec![AlterOp::AddPrimaryKey {
                    name: None,
                    columns: Vec::new(),
                }],
            );
        }
        "addForeignKeyConstraint" => {
            let (Some(base), Some(cols), Some(target)) = (
                get(el, x, "baseTableName"),
                get(el, x, "baseColumnNames"),
                get(el, x, "referencedTableName"),
            ) else {
                return missing(out, "baseTableName`, `baseColumnNames` or `referencedTableName");
            };
            let fk = ForeignKey {
                name: get(el, x, "constraintName"),
                columns: list(&cols),
                ref_table: target,
                ref_schema: get(el, x, "referencedTableSchemaName"),
                ref_columns: get(el, x, "referencedColumnNames")
                    .map(|c| list(&c))
                    .unwrap_or_default(),
                line,
            };
            alter(out, &base, vec![AlterOp::AddForeignKey(fk)]);
        }
        "dropForeignKeyConstraint" => {
            let (Some(base), Some(name)) = (get(el, x, "baseTableName"), get(el, x, "constraintName")) else {
                return missing(out, "baseTableName` or `constraintName");
            };
            alter(out, &base, vec![AlterOp::DropConstraint(name)]);
        }
        "addUniqueConstraint" => {
            let (Some(name), Some(cols)) = (table, get(el, x, "columnNames")) else {
                return missing(out, "tableName` or `columnNames");
            };
            let columns = list(&cols);
            let key_name = get(el, x, "constraintName");
            let mut ops = vec![AlterOp::AddUnique(UniqueKey {
                name: key_name.clone(),
                columns: columns.clone(),
            })];
            ops.extend(unique_index(&name, key_name, &columns, line).map(AlterOp::AddIndex));
            alter(out, &name, ops);
        }
        "dropUniqueConstraint" => {
            let (Some(name), Some(key)) = (table, get(el, x, "constraintName")) else {
                return missing(out, "tableName` or `constraintName");
            };
            alter(out, &name, vec![AlterOp::DropConstraint(key)]);
        }
        "addNotNullConstraint" | "dropNotNullConstraint" => {
            let (Some(name), Some(col)) = (table, get(el, x, "columnName")) else {
                return missing(out, "tableName` or `columnName");
            };
            let nullable = el.name == "dropNotNullConstraint";
            alter(out, &name, vec![AlterOp::SetNullable(col, nullable)]);
        }
        "addDefaultValue" | "dropDefaultValue" => {
            let (Some(name), Some(col)) = (table, get(el, x, "columnName")) else {
                return missing(out, "tableName` or `columnName");
            };
            let value = if el.name == "addDefaultValue" {
                default_value(el, x)
            } else {
                None
            };
            alter(out, &name, vec![AlterOp::SetDefault(col, value)]);
        }
        "modifyDataType" => {
            let (Some(name), Some(col), Some(ty)) =
                (table, get(el, x, "columnName"), get(el, x, "newDataType"))
            else {
                return missing(out, "tableName`, `columnName` or `newDataType");
            };
            alter(out, &name, vec![AlterOp::SetType(col, ty)]);
        }
        "createIndex" => {
            let (Some(name), Some(index)) = (table, get(el, x, "indexName")) else {
                return missing(out, "tableName` or `indexName");
            };
            let columns: Vec<String> = el
                .children_named("column")
                .filter_map(|c| get(c, x, "name"))
                .collect();
            out.steps.push(Step::statement(
                SchemaStatement::CreateIndex(Index {
                    name: Some(index),
                    table: name,
                    columns,
                    unique: el.flag("unique"),
                    method: IndexMethod::BTree,
                    line,
                }),
                line,
            ));
        }
        "dropIndex" => {
            let Some(index) = get(el, x, "indexName") else {
                return missing(out, "indexName");
            };
            drop_object(out, ObjectKind::Index, index, line);
        }
        "dropTable" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            drop_object(out, ObjectKind::Table, name, line);
        }
        "dropView" => {
            let Some(name) = get(el, x, "viewName") else {
                return missing(out, "viewName");
            };
            drop_object(out, ObjectKind::View, name, line);
        }
        "dropColumn" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            let mut ops: Vec<AlterOp> = get(el, x, "columnName")
                .into_iter()
                .map(AlterOp::DropColumn)
                .collect();
            ops.extend(
                el.children_named("column")
                    .filter_map(|c| get(c, x, "name"))
                    .map(AlterOp::DropColumn),
            );
            alter(out, &name, ops);
        }
        "renameColumn" => {
            let (Some(name), Some(from), Some(to)) =
                (table, get(el, x, "oldColumnName"), get(el, x, "newColumnName"))
            else {
                return missing(out, "tableName`, `oldColumnName` or `newColumnName");
            };
            alter(out, &name, vec![AlterOp::RenameColumn { from, to }]);
        }
        "renameTable" => {
            let (Some(from), Some(to)) = (get(el, x, "oldTableName"), get(el, x, "newTableName")) else {
                return missing(out, "oldTableName` or `newTableName");
            };
            alter(out, &from, vec![AlterOp::RenameTable(to)]);
        }
        "createView" => {
            let Some(name) = get(el, x, "viewName") else {
                return missing(out, "viewName");
            };
            let query = x.expand(el.attr("selectQuery").unwrap_or(&el.text));
            // `fullDefinition` views carry their whole `CREATE VIEW` statement.
            let text = if el.flag("fullDefinition") {
                query
            } else {
                format!("CREATE VIEW {name} AS {}", query.trim())
            };
            out.steps.push(Step::Sql {
                text,
                dialect: dialect_of_dbms(dbms),
                offset: line.saturating_sub(1),
            });
        }
        "sql" | "createProcedure" => {
            let text = el
                .attr(if el.name == "sql" { "sql" } else { "procedureText" })
                .unwrap_or(&el.text);
            out.steps.push(Step::Sql {
                text: x.expand(text),
                dialect: dialect_of_dbms(dbms),
                offset: line.saturating_sub(1),
            });
        }
        "sqlFile" => {
            let Some(path) = get(el, x, "path") else {
                return missing(out, "path");
            };
            out.steps.push(Step::SqlFile {
                path,
                relative: el.flag("relativeToChangelogFile"),
                dialect: dialect_of_dbms(dbms),
                line,
            });
        }
        "loadData" | "loadUpdateData" => {
            let Some(name) = table else {
                return missing(out, "tableName");
            };
            let file = get(el, x, "file").unwrap_or_default();
            out.steps.push(Step::Note {
                table: name,
                what: format!("{} {file}", el.name).trim_end().to_owned(),
                line,
            });
        }
        other if NO_SCHEMA_FACTS.contains(&other) => {}
        other => out.unsupported.push(other.to_owned()),
    }
}

fn drop_object(out: &mut Read, kind: ObjectKind, name: String, line: u32) {
    out.steps.push(Step::statement(
        SchemaStatement::Drop {
            kind,
            names: vec![name],
            on: None,
        },
        line,
    ));
}

/// A named unique constraint is also an index of that name (as the SQL front-end has it).
fn unique_index(table: &str, name: Option<String>, columns: &[String], line: u32) -> Option<Index> {
    name.map(|n| Index {
        name: Some(n),
        table: table.to_owned(),
        columns: columns.to_vec(),
        unique: true,
        method: IndexMethod::BTree,
        line,
    })
}

/// What a `<column>` says.
struct ColumnFacts {
    column: Column,
    primary_key: bool,
    primary_key_name: Option<String>,
    unique: bool,
    unique_name: Option<String>,
    foreign_key: Option<ForeignKey>,
}

/// The default a column or `addDefaultValue` gives, written as SQL would.
fn default_value(el: &Element, x: &Expander<'_>) -> Option<String> {
    if let Some(v) = get(el, x, "defaultValue") {
        return Some(format!("'{}'", v.replace('\'', "''")));
    }
    if let Some(v) = get(el, x, "defaultValueDate") {
        return Some(format!("'{v}'"));
    }
    [
        "defaultValueNumeric",
        "defaultValueBoolean",
        "defaultValueComputed",
        "defaultValueSequenceNext",
    ]
    .iter()
    .find_map(|k| get(el, x, k))
}

fn column(el: &Element, x: &Expander<'_>) -> ColumnFacts {
    let name = get(el, x, "name").unwrap_or_default();
    let c = el.child("constraints");
    let cflag = |k: &str| c.is_some_and(|c| c.flag(k));
    let cget = |k: &str| c.and_then(|c| get(c, x, k));
    let primary_key = cflag("primaryKey");
    let nullable = !primary_key && !cget("nullable").is_some_and(|v| v.trim().eq_ignore_ascii_case("false"));
    // `references="customers(id)"` or `referencedTableName` + `referencedColumnNames`.
    let foreign_key = match (cget("references"), cget("referencedTableName")) {
        (_, Some(target)) => Some((
            target,
            cget("referencedColumnNames")
                .map(|c| list(&c))
                .unwrap_or_default(),
        )),
        (Some(r), None) => Some(match r.split_once('(') {
            Some((t, cols)) => (t.trim().to_owned(), list(cols.trim_end_matches(')'))),
            None => (r.trim().to_owned(), Vec::new()),
        }),
        _ => None,
    }
    .map(|(target, ref_columns)| {
        let (schema, table) = match target.rsplit_once('.') {
            Some((s, t)) => (Some(s.to_owned()), t.to_owned()),
            None => (None, target),
        };
        ForeignKey {
            name: cget("foreignKeyName"),
            columns: vec![name.clone()],
            ref_table: table,
            ref_schema: schema,
            ref_columns,
            line: el.line,
        }
    });
    ColumnFacts {
        column: Column {
            name,
            data_type: get(el, x, "type").unwrap_or_default(),
            nullable,
            default: default_value(el, x),
            identity: el.flag("autoIncrement"),
            line: el.line,
        },
        primary_key,
        primary_key_name: cget("primaryKeyName"),
        unique: cflag("unique"),
        unique_name: cget("uniqueConstraintName"),
        foreign_key,
    }
}

/// A `createTable` and the indexes its named unique constraints make.
fn create_table(el: &Element, x: &Expander<'_>, name: &str, source: &str) -> (Table, Vec<Index>) {
    let mut table = Table {
        name: name.to_owned(),
        schema: get(el, x, "schemaName"),
        columns: Vec::new(),
        primary_key: Vec::new(),
        primary_key_name: None,
        unique_keys: Vec::new(),
        foreign_keys: Vec::new(),
        partition_of: None,
        partition_by: None,
        inherits: Vec::new(),
        line: el.line,
        ddl: source.to_owned(),
    };
    let mut indexes = Vec::new();
    for col in el.children_named("column") {
        let facts = column(col, x);
        let col_name = facts.column.name.clone();
        if facts.primary_key {
            table.primary_key.push(col_name.clone());
            if facts.primary_key_name.is_some() {
                table.primary_key_name = facts.primary_key_name;
            }
        }
        if facts.unique {
            table.unique_keys.push(UniqueKey {
                name: facts.unique_name.clone(),
                columns: vec![col_name.clone()],
            });
            indexes.extend(unique_index(name, facts.unique_name, &[col_name], col.line));
        }
        table.foreign_keys.extend(facts.foreign_key);
        table.columns.push(facts.column);
    }
    (table, indexes)
}
