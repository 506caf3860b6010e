//! `CREATE TABLE`, `CREATE INDEX` and `ALTER TABLE`, read with sqlparser.
//!
//! These statements carry the facts that need a real grammar — column types, defaults,
//! inline and table-level constraints — and sqlparser parses them well in every dialect we
//! meet. A statement is tried with the file's dialect first and then with the others, since
//! H2 scripts borrow MySQL's `AUTO_INCREMENT` and PostgreSQL's identity syntax.

use sqlparser::ast::{
    self, AlterColumnOperation, AlterTableOperation, ColumnDef, ColumnOption, Expr, Ident, IndexColumn,
    IndexType, ObjectName, ObjectNamePart, RenameTableNameKind, Spanned, TableConstraint,
};
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;

use super::scan;
use super::{
    AlterOp, Column, ForeignKey, Index, IndexMethod, SchemaStatement, SqlDialect, Statement, Table, UniqueKey,
};

/// Blanks out header words sqlparser does not know — H2's `CACHED`/`MEMORY` tables, MySQL's
/// `CREATE FULLTEXT|SPATIAL INDEX`, PostgreSQL's `ON ONLY` — with spaces, so every line and
/// column sqlparser reports stays where it was. Returns the text and the index method the
/// removed words meant.
fn normalise(statement: &Statement) -> (Option<String>, Option<IndexMethod>) {
    let text = statement.text.as_str();
    let head_end = text.find('(').unwrap_or(text.len());
    let toks = scan::tokenize(text.get(..head_end).unwrap_or_default(), false);
    let mut blank = Vec::new();
    let mut method = None;
    for (i, t) in toks.iter().enumerate() {
        let next_is = |kw: &str| toks.get(i + 1).is_some_and(|n| n.is(kw));
        let prev_is = |kw: &str| i.checked_sub(1).is_some_and(|p| toks[p].is(kw));
        if (t.is("cached") || t.is("memory")) && next_is("table") {
            blank.push((t.start, t.end));
        } else if (t.is("fulltext") || t.is("spatial")) && next_is("index") {
            method = Some(if t.is("fulltext") {
                IndexMethod::FullText
            } else {
                IndexMethod::Spatial
            });
            blank.push((t.start, t.end));
        } else if t.is("only") && prev_is("on") {
            blank.push((t.start, t.end));
        }
    }
    if blank.is_empty() {
        return (None, method);
    }
    let mut bytes = text.as_bytes().to_vec();
    for (start, end) in blank {
        for b in bytes.get_mut(start..end).into_iter().flatten() {
            *b = b' ';
        }
    }
    // Only ASCII words were replaced by ASCII spaces, so the text is still UTF-8.
    (String::from_utf8(bytes).ok(), method)
}

/// Parses one statement, trying the file's dialect first; the error is the first dialect's.
fn parse(statement: &Statement, dialect: SqlDialect) -> Result<ast::Statement, String> {
    let (normalised, _) = normalise(statement);
    let text = normalised.as_deref().unwrap_or(&statement.text);
    let order: &[&dyn Dialect] = match dialect {
        SqlDialect::Postgres => &[&PostgreSqlDialect {}, &GenericDialect {}],
        SqlDialect::MySql => &[&MySqlDialect {}, &GenericDialect {}],
        SqlDialect::H2 => &[&GenericDialect {}, &MySqlDialect {}, &PostgreSqlDialect {}],
        SqlDialect::Generic => &[&GenericDialect {}, &PostgreSqlDialect {}, &MySqlDialect {}],
    };
    let mut first_error = None;
    for d in order {
        match Parser::parse_sql(*d, text) {
            Ok(mut parsed) if parsed.len() == 1 => return Ok(parsed.remove(0)),
            Ok(parsed) => {
                first_error.get_or_insert_with(|| format!("expected one statement, found {}", parsed.len()));
            }
            Err(e) => {
                first_error.get_or_insert_with(|| e.to_string());
            }
        }
    }
    Err(first_error.unwrap_or_default())
}

/// The file line of something sqlparser located on `span_line` of the statement's text.
fn line_of(statement: &Statement, span_line: u64) -> u32 {
    if span_line == 0 {
        return statement.line;
    }
    let offset = u32::try_from(span_line - 1).unwrap_or(u32::MAX);
    statement.line.saturating_add(offset)
}

/// (schema, name) of a possibly qualified name, quotes stripped.
fn split_name(name: &ObjectName) -> (Option<String>, String) {
    let parts: Vec<&str> = name
        .0
        .iter()
        .map(|p| match p {
            ObjectNamePart::Identifier(ident) => ident.value.as_str(),
            ObjectNamePart::Function(_) => "",
        })
        .collect();
    let n = parts.len();
    let own = parts.last().copied().unwrap_or_default().to_owned();
    let schema = (n >= 2).then(|| parts[n - 2].to_owned());
    (schema, own)
}

fn idents(list: &[Ident]) -> Vec<String> {
    list.iter().map(|i| i.value.clone()).collect()
}

/// Index columns without sort order; expressions rendered.
fn index_columns(list: &[IndexColumn]) -> Vec<String> {
    list.iter()
        .map(|c| match &c.column.expr {
            Expr::Identifier(ident) => ident.value.clone(),
            other => strip_prefix_length(other.to_string()),
        })
        .collect()
}

/// MySQL's prefix index `title(20)` indexes the column `title`.
fn strip_prefix_length(rendered: String) -> String {
    if let Some((column, rest)) = rendered.split_once('(') {
        let is_length = rest
            .strip_suffix(')')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        let is_name = !column.is_empty() && column.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        if is_length && is_name {
            return column.to_owned();
        }
    }
    rendered
}

fn method(index_type: Option<&IndexType>) -> IndexMethod {
    match index_type {
        None | Some(IndexType::BTree) => IndexMethod::BTree,
        Some(IndexType::Hash) => IndexMethod::Hash,
        Some(IndexType::GIN) => IndexMethod::Gin,
        Some(IndexType::GiST) => IndexMethod::Gist,
        Some(IndexType::SPGiST) => IndexMethod::SpGist,
        Some(IndexType::BRIN) => IndexMethod::Brin,
        Some(other) => IndexMethod::Other(other.to_string().to_ascii_lowercase()),
    }
}

fn foreign_key(
    statement: &Statement,
    fk: &ast::ForeignKeyConstraint,
    name: Option<&Ident>,
    columns: Vec<String>,
    line: u32,
) -> ForeignKey {
    let (ref_schema, ref_table) = split_name(&fk.foreign_table);
    let line = if line == 0 {
        line_of(statement, fk.foreign_table.span().start.line)
    } else {
        line
    };
    ForeignKey {
        name: name.or(fk.name.as_ref()).map(|n| n.value.clone()),
        columns,
        ref_table,
        ref_schema,
        ref_columns: idents(&fk.referred_columns),
        line,
    }
}

/// What one column definition says, beyond the column itself.
struct ColumnFacts {
    column: Column,
    primary_key: bool,
    /// `CONSTRAINT name PRIMARY KEY` on the column.
    primary_key_name: Option<String>,
    unique: bool,
    /// `CONSTRAINT name UNIQUE` on the column.
    unique_name: Option<String>,
    foreign_keys: Vec<ForeignKey>,
}

fn column(statement: &Statement, def: &ColumnDef) -> ColumnFacts {
    let line = line_of(statement, def.name.span.start.line);
    let data_type = def.data_type.to_string();
    let serial = matches!(
        data_type.to_ascii_uppercase().as_str(),
        "SERIAL" | "BIGSERIAL" | "SMALLSERIAL" | "SERIAL2" | "SERIAL4" | "SERIAL8"
    );
    let mut facts = ColumnFacts {
        column: Column {
            name: def.name.value.clone(),
            data_type,
            nullable: !serial,
            default: None,
            identity: serial,
            line,
        },
        primary_key: false,
        primary_key_name: None,
        unique: false,
        unique_name: None,
        foreign_keys: Vec::new(),
    };
    for option in &def.options {
        apply_column_option(statement, &mut facts, option.name.as_ref(), &option.option);
    }
    if facts.primary_key {
        facts.column.nullable = false;
    }
    facts
}

fn apply_column_option(
    statement: &Statement,
    facts: &mut ColumnFacts,
    name: Option<&Ident>,
    option: &ColumnOption,
) {
    match option {
        ColumnOption::Null => facts.column.nullable = true,
        ColumnOption::NotNull => facts.column.nullable = false,
        ColumnOption::Default(expr) => facts.column.default = Some(expr.to_string()),
        ColumnOption::PrimaryKey(_) => {
            facts.primary_key = true;
            facts.primary_key_name = name.map(|n| n.value.clone());
        }
        ColumnOption::Unique(_) => {
            facts.unique = true;
            facts.unique_name = name.map(|n| n.value.clone());
        }
        ColumnOption::ForeignKey(fk) => {
            let columns = vec![facts.column.name.clone()];
            let line = facts.column.line;
            facts
                .foreign_keys
                .push(foreign_key(statement, fk, name, columns, line));
        }
        ColumnOption::Identity(_) => facts.column.identity = true,
        ColumnOption::Generated {
            generation_expr: None,
            ..
        } => facts.column.identity = true,
        ColumnOption::DialectSpecific(tokens) => {
            let generated = tokens.iter().any(|t| {
                let t = t.to_string();
                ["AUTO_INCREMENT", "AUTOINCREMENT", "IDENTITY"]
                    .iter()
                    .any(|k| t.eq_ignore_ascii_case(k))
            });
            if generated {
                facts.column.identity = true;
            }
        }
        _ => {}
    }
}

/// What a table-level constraint contributes.
enum ConstraintFact {
    PrimaryKey(Option<String>, Vec<String>),
    Unique(UniqueKey, Option<Index>),
    ForeignKey(ForeignKey),
    Index(Index),
}

fn constraint(statement: &Statement, table: &str, c: &TableConstraint) -> Option<ConstraintFact> {
    let line = line_of(statement, c.span().start.line);
    let index = |name: Option<&Ident>, columns: Vec<String>, unique, method| Index {
        name: name.map(|n| n.value.clone()),
        table: table.to_owned(),
        columns,
        unique,
        method,
        line,
    };
    Some(match c {
        TableConstraint::PrimaryKey(pk) => ConstraintFact::PrimaryKey(
            pk.index_name
                .as_ref()
                .or(pk.name.as_ref())
                .map(|n| n.value.clone()),
            index_columns(&pk.columns),
        ),
        TableConstraint::Unique(u) => {
            let columns = index_columns(&u.columns);
            // A named unique key is also an index by that name (MySQL `UNIQUE KEY ux (…)`,
            // PostgreSQL `CONSTRAINT ux UNIQUE (…)` both create one).
            let name = u.index_name.as_ref().or(u.name.as_ref());
            let ix = name.map(|n| index(Some(n), columns.clone(), true, method(u.index_type.as_ref())));
            let key = UniqueKey {
                name: name.map(|n| n.value.clone()),
                columns,
            };
            ConstraintFact::Unique(key, ix)
        }
        TableConstraint::ForeignKey(fk) => {
            ConstraintFact::ForeignKey(foreign_key(statement, fk, None, idents(&fk.columns), line))
        }
        TableConstraint::Index(ix) => ConstraintFact::Index(index(
            ix.name.as_ref(),
            index_columns(&ix.columns),
            false,
            method(ix.index_type.as_ref()),
        )),
        TableConstraint::FulltextOrSpatial(f) => ConstraintFact::Index(index(
            f.opt_index_name.as_ref(),
            index_columns(&f.columns),
            false,
            if f.fulltext {
                IndexMethod::FullText
            } else {
                IndexMethod::Spatial
            },
        )),
        _ => return None,
    })
}

/// `CREATE TABLE`: the table, then one `CreateIndex` per index declared inside it.
pub(super) fn create_table(
    statement: &Statement,
    dialect: SqlDialect,
) -> Result<Vec<SchemaStatement>, String> {
    let ast::Statement::CreateTable(ct) = parse(statement, dialect)? else {
        return Err("not a CREATE TABLE".to_owned());
    };
    let (schema, name) = split_name(&ct.name);
    let mut table = Table {
        name: name.clone(),
        schema,
        columns: Vec::new(),
        primary_key: Vec::new(),
        primary_key_name: None,
        unique_keys: Vec::new(),
        foreign_keys: Vec::new(),
        partition_of: ct.partition_of.as_ref().map(|p| split_name(p).1),
        partition_by: ct.partition_by.as_ref().map(|p| p.to_string()),
        inherits: ct.inherits.iter().flatten().map(|p| split_name(p).1).collect(),
        line: statement.line,
        ddl: statement.text.clone(),
    };
    let mut indexes = Vec::new();
    for def in &ct.columns {
        let facts = column(statement, def);
        if facts.primary_key {
            table.primary_key.push(facts.column.name.clone());
            if facts.primary_key_name.is_some() {
                table.primary_key_name.clone_from(&facts.primary_key_name);
            }
        }
        if facts.unique {
            table.unique_keys.push(UniqueKey {
                name: facts.unique_name.clone(),
                columns: vec![facts.column.name.clone()],
            });
        }
        table.foreign_keys.extend(facts.foreign_keys);
        table.columns.push(facts.column);
    }
    for c in &ct.constraints {
        match constraint(statement, &name, c) {
            Some(ConstraintFact::PrimaryKey(name, cols)) => {
                table.primary_key = cols;
                table.primary_key_name = name;
            }
            Some(ConstraintFact::Unique(key, ix)) => {
                table.unique_keys.push(key);
                indexes.extend(ix);
            }
            Some(ConstraintFact::ForeignKey(fk)) => table.foreign_keys.push(fk),
            Some(ConstraintFact::Index(ix)) => indexes.push(ix),
            None => {}
        }
    }
    for col in &mut table.columns {
        if table
            .primary_key
            .iter()
            .any(|k| k.eq_ignore_ascii_case(&col.name))
        {
            col.nullable = false;
        }
    }
    let mut out = vec![SchemaStatement::CreateTable(table)];
    out.extend(indexes.into_iter().map(SchemaStatement::CreateIndex));
    Ok(out)
}

/// `CREATE [UNIQUE] INDEX name ON table [USING method] (columns)`.
pub(super) fn create_index(
    statement: &Statement,
    dialect: SqlDialect,
) -> Result<Vec<SchemaStatement>, String> {
    let ast::Statement::CreateIndex(ci) = parse(statement, dialect)? else {
        return Err("not a CREATE INDEX".to_owned());
    };
    Ok(vec![SchemaStatement::CreateIndex(Index {
        name: ci.name.as_ref().map(|n| split_name(n).1),
        table: split_name(&ci.table_name).1,
        columns: index_columns(&ci.columns),
        unique: ci.unique,
        method: normalise(statement)
            .1
            .unwrap_or_else(|| method(ci.using.as_ref())),
        line: statement.line,
    })])
}

/// `ALTER TABLE name op, op, …`; operations that change no tracked fact are dropped.
pub(super) fn alter_table(
    statement: &Statement,
    dialect: SqlDialect,
) -> Result<Vec<SchemaStatement>, String> {
    let ast::Statement::AlterTable(at) = parse(statement, dialect)? else {
        return Err("not an ALTER TABLE".to_owned());
    };
    let table = split_name(&at.name).1;
    let mut ops = Vec::new();
    for op in &at.operations {
        match op {
            AlterTableOperation::AddConstraint { constraint: c, .. } => {
                match constraint(statement, &table, c) {
                    Some(ConstraintFact::PrimaryKey(name, columns)) => {
                        ops.push(AlterOp::AddPrimaryKey { name, columns });
                    }
                    Some(ConstraintFact::Unique(key, ix)) => {
                        ops.push(AlterOp::AddUnique(key));
                        ops.extend(ix.map(AlterOp::AddIndex));
                    }
                    Some(ConstraintFact::ForeignKey(fk)) => ops.push(AlterOp::AddForeignKey(fk)),
                    Some(ConstraintFact::Index(ix)) => ops.push(AlterOp::AddIndex(ix)),
                    None => {}
                }
            }
            AlterTableOperation::AddColumn { column_def, .. } => {
                let facts = column(statement, column_def);
                let name = facts.column.name.clone();
                ops.push(AlterOp::AddColumn(facts.column));
                if facts.primary_key {
                    ops.push(AlterOp::AddPrimaryKey {
                        name: facts.primary_key_name.clone(),
                        columns: vec![name.clone()],
                    });
                }
                if facts.unique {
                    ops.push(AlterOp::AddUnique(UniqueKey {
                        name: facts.unique_name.clone(),
                        columns: vec![name],
                    }));
                }
                ops.extend(facts.foreign_keys.into_iter().map(AlterOp::AddForeignKey));
            }
            AlterTableOperation::DropColumn { column_names, .. } => {
                ops.extend(column_names.iter().map(|c| AlterOp::DropColumn(c.value.clone())));
            }
            AlterTableOperation::RenameColumn {
                old_column_name,
                new_column_name,
            } => {
                ops.push(AlterOp::RenameColumn {
                    from: old_column_name.value.clone(),
                    to: new_column_name.value.clone(),
                });
            }
            AlterTableOperation::RenameTable { table_name } => {
                let (RenameTableNameKind::As(n) | RenameTableNameKind::To(n)) = table_name;
                ops.push(AlterOp::RenameTable(split_name(n).1));
            }
            AlterTableOperation::DropConstraint { name, .. }
            | AlterTableOperation::DropForeignKey { name, .. }
            | AlterTableOperation::DropIndex { name } => {
                ops.push(AlterOp::DropConstraint(name.value.clone()));
            }
            AlterTableOperation::DropPrimaryKey { .. } => ops.push(AlterOp::AddPrimaryKey {
                name: None,
                columns: Vec::new(),
            }),
            AlterTableOperation::AlterColumn { column_name, op } => {
                let col = column_name.value.clone();
                match op {
                    AlterColumnOperation::SetNotNull => ops.push(AlterOp::SetNullable(col, false)),
                    AlterColumnOperation::DropNotNull => ops.push(AlterOp::SetNullable(col, true)),
                    AlterColumnOperation::SetDefault { value } => {
                        ops.push(AlterOp::SetDefault(col, Some(value.to_string())));
                    }
                    AlterColumnOperation::DropDefault => ops.push(AlterOp::SetDefault(col, None)),
                    AlterColumnOperation::SetDataType { data_type, .. } => {
                        ops.push(AlterOp::SetType(col, data_type.to_string()));
                    }
                    _ => {}
                }
            }
            AlterTableOperation::ModifyColumn {
                col_name,
                data_type,
                options,
                ..
            } => {
                ops.push(replace_column(statement, col_name, col_name, data_type, options));
            }
            AlterTableOperation::ChangeColumn {
                old_name,
                new_name,
                data_type,
                options,
                ..
            } => {
                ops.push(replace_column(statement, old_name, new_name, data_type, options));
            }
            _ => {}
        }
    }
    // `ADD FULLTEXT INDEX` reaches sqlparser with FULLTEXT blanked out (see `normalise`).
    if let Some(m) = normalise(statement).1 {
        for op in &mut ops {
            if let AlterOp::AddIndex(ix) = op {
                ix.method = m.clone();
            }
        }
    }
    Ok(vec![SchemaStatement::AlterTable { table, ops }])
}

/// MySQL `MODIFY`/`CHANGE COLUMN`: a whole new column definition.
fn replace_column(
    statement: &Statement,
    old: &Ident,
    new: &Ident,
    data_type: &ast::DataType,
    options: &[ColumnOption],
) -> AlterOp {
    let def = ColumnDef {
        name: new.clone(),
        data_type: data_type.clone(),
        options: Vec::new(),
    };
    let mut facts = column(statement, &def);
    for option in options {
        apply_column_option(statement, &mut facts, None, option);
    }
    AlterOp::ReplaceColumn {
        old: old.value.clone(),
        column: facts.column,
    }
}
