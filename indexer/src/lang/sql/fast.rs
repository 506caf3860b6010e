//! A hand-written reader for the plain DDL most schema files are made of.
//!
//! sqlparser is most of the cost of indexing a big schema, yet nearly every statement of a
//! real one is plain: `CREATE TABLE` with columns and key constraints, `CREATE [UNIQUE]
//! INDEX`, `ALTER TABLE … ADD CONSTRAINT`. This module reads exactly that subset from the
//! token scan and produces the facts `ddl` would produce from sqlparser's tree — same type
//! and default renderings, same lines. It answers `None` as soon as it meets anything it
//! does not fully understand (a `CHECK`, a cast, a partition, a keyword used as a name, an
//! escaped quote), and the statement then goes to sqlparser; so it can only be faster, never
//! different. `tests::fast_path_*` prove the equality on generated and fixture DDL.

use super::scan::{self, Kind, Tok};
use super::{
    AlterOp, Column, ForeignKey, Index, IndexMethod, SchemaStatement, SqlDialect, Statement, Table, UniqueKey,
};

/// Words that are never read as a bare name here: sqlparser gives them a meaning in some
/// position (a constraint, an option, a special expression), so a name spelled like one
/// goes to sqlparser.
const RISKY: &[&str] = &[
    "action",
    "all",
    "alter",
    "and",
    "array",
    "as",
    "asc",
    "async",
    "auto_increment",
    "between",
    "binary",
    "by",
    "cascade",
    "case",
    "cast",
    "character",
    "charset",
    "check",
    "cluster",
    "collate",
    "column",
    "comment",
    "concurrently",
    "constraint",
    "create",
    "current_date",
    "current_time",
    "current_timestamp",
    "current_user",
    "date",
    "default",
    "deferrable",
    "delete",
    "desc",
    "distinct",
    "drop",
    "else",
    "end",
    "engine",
    "exclude",
    "exists",
    "extract",
    "false",
    "fetch",
    "for",
    "foreign",
    "from",
    "full",
    "fulltext",
    "generated",
    "group",
    "having",
    "identity",
    "if",
    "in",
    "include",
    "index",
    "initially",
    "inner",
    "interval",
    "into",
    "invisible",
    "is",
    "join",
    "key",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "map",
    "match",
    "materialized",
    "natural",
    "no",
    "not",
    "null",
    "nulls",
    "offset",
    "on",
    "only",
    "options",
    "or",
    "order",
    "outer",
    "over",
    "partition",
    "period",
    "position",
    "primary",
    "projection",
    "references",
    "restrict",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "set",
    "signed",
    "spatial",
    "srid",
    "struct",
    "substring",
    "table",
    "then",
    "time",
    "timestamp",
    "to",
    "trim",
    "true",
    "union",
    "unique",
    "unsigned",
    "update",
    "user",
    "using",
    "values",
    "when",
    "where",
    "window",
    "with",
    "without",
    "zerofill",
];

/// Functions without arguments that may be a column default.
const DEFAULT_CALLS: &[&str] = &[
    "now",
    "gen_random_uuid",
    "uuid_generate_v4",
    "uuid",
    "random",
    "sysdate",
    "getdate",
    "utc_timestamp",
];

/// Bare time keywords that may be a column default (rendered as written, like sqlparser).
const DEFAULT_TIMES: &[&str] = &[
    "current_timestamp",
    "current_date",
    "current_time",
    "localtimestamp",
    "localtime",
];

/// `CREATE TABLE` in the plain subset; `None` sends it to sqlparser.
pub(super) fn create_table(statement: &Statement, dialect: SqlDialect) -> Option<Vec<SchemaStatement>> {
    let toks = tokens(statement, dialect)?;
    let mut r = Reader::new(statement, &toks, dialect);
    r.word("create")?;
    r.word("table")?;
    r.if_not_exists();
    let (schema, name) = r.qname()?;
    r.punct(b'(')?;
    let mut table = Table {
        name: name.to_owned(),
        schema: schema.map(str::to_owned),
        columns: Vec::new(),
        primary_key: Vec::new(),
        primary_key_name: None,
        unique_keys: Vec::new(),
        foreign_keys: Vec::new(),
        partition_of: None,
        partition_by: None,
        inherits: Vec::new(),
        line: statement.line,
        ddl: statement.text.clone(),
    };
    // Like sqlparser, columns first and table constraints after them, whatever the order
    // they were written in.
    let mut constraints = Vec::new();
    loop {
        if r.starts_constraint() {
            constraints.push(r.constraint(name)?);
        } else {
            let facts = r.column()?;
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
        if r.punct(b')').is_some() {
            break;
        }
        r.punct(b',')?;
    }
    r.table_options()?;
    r.end()?;
    let mut indexes = Vec::new();
    for c in constraints {
        match c {
            Constraint::PrimaryKey(name, cols) => {
                table.primary_key = cols;
                table.primary_key_name = name;
            }
            Constraint::Unique(key, ix) => {
                table.unique_keys.push(key);
                indexes.extend(ix);
            }
            Constraint::ForeignKey(fk) => table.foreign_keys.push(fk),
            Constraint::Index(ix) => indexes.push(ix),
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
    let mut out = Vec::with_capacity(1 + indexes.len());
    out.push(SchemaStatement::CreateTable(table));
    out.extend(indexes.into_iter().map(SchemaStatement::CreateIndex));
    Some(out)
}

/// `CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] name ON table [USING m] (cols)`.
pub(super) fn create_index(statement: &Statement, dialect: SqlDialect) -> Option<Vec<SchemaStatement>> {
    let toks = tokens(statement, dialect)?;
    let mut r = Reader::new(statement, &toks, dialect);
    r.word("create")?;
    let unique = r.eat("unique");
    r.word("index")?;
    r.eat("concurrently");
    r.if_not_exists();
    let (_, name) = r.qname()?;
    r.word("on")?;
    let (_, table) = r.qname()?;
    let method = if r.eat("using") {
        r.index_method()?
    } else {
        IndexMethod::BTree
    };
    let (columns, _) = r.index_columns()?;
    r.end()?;
    Some(vec![SchemaStatement::CreateIndex(Index {
        name: Some(name.to_owned()),
        table: table.to_owned(),
        columns,
        unique,
        method,
        line: statement.line,
    })])
}

/// `ALTER TABLE [IF EXISTS] [ONLY] name ADD constraint|column, …`.
pub(super) fn alter_table(statement: &Statement, dialect: SqlDialect) -> Option<Vec<SchemaStatement>> {
    let toks = tokens(statement, dialect)?;
    let mut r = Reader::new(statement, &toks, dialect);
    r.word("alter")?;
    r.word("table")?;
    if r.eat("if") {
        r.word("exists")?;
    }
    r.eat("only");
    let (_, table) = r.qname()?;
    let mut ops = Vec::new();
    loop {
        r.word("add")?;
        if r.starts_constraint() {
            match r.constraint(table)? {
                Constraint::PrimaryKey(name, columns) => ops.push(AlterOp::AddPrimaryKey { name, columns }),
                Constraint::Unique(key, ix) => {
                    ops.push(AlterOp::AddUnique(key));
                    ops.extend(ix.map(AlterOp::AddIndex));
                }
                Constraint::ForeignKey(fk) => ops.push(AlterOp::AddForeignKey(fk)),
                Constraint::Index(ix) => ops.push(AlterOp::AddIndex(ix)),
            }
        } else {
            r.eat("column");
            let facts = r.column()?;
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
        if r.punct(b',').is_none() {
            break;
        }
    }
    r.end()?;
    Some(vec![SchemaStatement::AlterTable {
        table: table.to_owned(),
        ops,
    }])
}

/// The statement's tokens, or `None` when its lexical form is beyond this module: block
/// comments (nesting differs by dialect), a `--` not followed by a space, `$` words.
fn tokens(statement: &Statement, dialect: SqlDialect) -> Option<Vec<Tok<'_>>> {
    let text = statement.text.as_str();
    if text.contains("/*") || text.contains('\\') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text.get(from..).and_then(|t| t.find("--")) {
        let at = from + i + 2;
        if !bytes
            .get(at)
            .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            return None;
        }
        from = at;
    }
    Some(scan::tokenize(text, dialect == SqlDialect::MySql))
}

/// What a column definition says, beyond the column itself.
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

/// What a table constraint says.
enum Constraint {
    PrimaryKey(Option<String>, Vec<String>),
    Unique(UniqueKey, Option<Index>),
    ForeignKey(ForeignKey),
    Index(Index),
}

/// A cursor over a statement's tokens that knows the statement's lines.
struct Reader<'t, 'a> {
    statement: &'a Statement,
    toks: &'t [Tok<'a>],
    i: usize,
    dialect: SqlDialect,
    /// A byte offset whose line is known, to count newlines forward from.
    line_at: usize,
    line: u32,
}

impl<'t, 'a> Reader<'t, 'a> {
    fn new(statement: &'a Statement, toks: &'t [Tok<'a>], dialect: SqlDialect) -> Self {
        Reader {
            statement,
            toks,
            i: 0,
            dialect,
            line_at: 0,
            line: statement.line,
        }
    }

    fn peek(&self) -> Option<Tok<'a>> {
        self.toks.get(self.i).copied()
    }

    fn peek_is(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is(kw))
    }

    /// Consumes the word `kw` if it is next.
    fn eat(&mut self, kw: &str) -> bool {
        let yes = self.peek_is(kw);
        if yes {
            self.i += 1;
        }
        yes
    }

    /// Consumes the word `kw`, which must be next.
    fn word(&mut self, kw: &str) -> Option<()> {
        self.eat(kw).then_some(())
    }

    /// Consumes the punctuation `c`, which must be next.
    fn punct(&mut self, c: u8) -> Option<()> {
        let yes = self.peek().is_some_and(|t| t.is_punct(c));
        if yes {
            self.i += 1;
        }
        yes.then_some(())
    }

    fn peek_punct(&self, c: u8) -> bool {
        self.peek().is_some_and(|t| t.is_punct(c))
    }

    /// The end of the statement.
    fn end(&self) -> Option<()> {
        (self.i == self.toks.len()).then_some(())
    }

    fn if_not_exists(&mut self) {
        if self.peek_is("if")
            && self.toks.get(self.i + 1).is_some_and(|t| t.is("not"))
            && self.toks.get(self.i + 2).is_some_and(|t| t.is("exists"))
        {
            self.i += 3;
        }
    }

    /// The 1-based file line of token `i`.
    fn line_of(&mut self, i: usize) -> u32 {
        let at = self.toks.get(i).map_or(0, |t| t.start);
        let bytes = self.statement.text.as_bytes();
        if at < self.line_at {
            self.line_at = 0;
            self.line = self.statement.line;
        }
        let newlines = bytes
            .get(self.line_at..at)
            .unwrap_or_default()
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.line_at = at;
        self.line
    }

    /// A plain name: an unquoted ASCII identifier that is no keyword sqlparser treats
    /// specially, or a quoted one without escaped quotes, in a quote style the dialect reads.
    fn ident(&mut self) -> Option<&'a str> {
        let t = self.peek()?;
        let ok = match t.kind {
            Kind::Word => {
                let b = t.text.as_bytes();
                !b.is_empty()
                    && (b[0].is_ascii_alphabetic() || b[0] == b'_')
                    && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
                    && !RISKY.iter().any(|k| k.eq_ignore_ascii_case(t.text))
            }
            Kind::Quoted => {
                let quote = self
                    .statement
                    .text
                    .as_bytes()
                    .get(t.start)
                    .copied()
                    .unwrap_or(b'"');
                let allowed = match self.dialect {
                    SqlDialect::Postgres => quote == b'"',
                    SqlDialect::MySql => quote == b'`',
                    SqlDialect::H2 | SqlDialect::Generic => true,
                };
                allowed
                    && !t.text.is_empty()
                    && t.end == t.start + t.text.len() + 2
                    && !t.text.as_bytes().contains(&quote)
                    && !t.text.contains('\n')
            }
            _ => false,
        };
        if !ok {
            return None;
        }
        self.i += 1;
        Some(t.text)
    }

    /// A possibly qualified name (one to three parts): (schema, own name).
    fn qname(&mut self) -> Option<(Option<&'a str>, &'a str)> {
        let mut parts = [""; 3];
        parts[0] = self.ident()?;
        let mut n = 1;
        while self.peek_punct(b'.') {
            if n == 3 {
                return None;
            }
            self.i += 1;
            parts[n] = self.ident()?;
            n += 1;
        }
        let schema = (n >= 2).then(|| parts[n - 2]);
        Some((schema, parts[n - 1]))
    }

    /// `(a, b)`: plain names, at least one; the index of the first.
    fn ident_list(&mut self) -> Option<(Vec<String>, usize)> {
        self.punct(b'(')?;
        let first = self.i;
        let mut out = Vec::new();
        loop {
            out.push(self.ident()?.to_owned());
            if self.punct(b')').is_some() {
                return Some((out, first));
            }
            self.punct(b',')?;
        }
    }

    /// `(a [ASC|DESC], …)` of a key or index: plain names, at least one.
    fn index_columns(&mut self) -> Option<(Vec<String>, usize)> {
        self.punct(b'(')?;
        let first = self.i;
        let mut out = Vec::new();
        loop {
            out.push(self.ident()?.to_owned());
            if !self.eat("asc") {
                self.eat("desc");
            }
            if self.punct(b')').is_some() {
                return Some((out, first));
            }
            self.punct(b',')?;
        }
    }

    /// An unsigned integer literal.
    fn number(&mut self) -> Option<u64> {
        let t = self.peek()?;
        if t.kind != Kind::Number || !t.text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n = t.text.parse().ok()?;
        self.i += 1;
        Some(n)
    }

    /// `(n)` when present, rendered.
    fn opt_length(&mut self) -> Option<String> {
        if !self.peek_punct(b'(') {
            return Some(String::new());
        }
        self.i += 1;
        let n = self.number()?;
        self.punct(b')')?;
        Some(format!("({n})"))
    }

    /// `(p)` or `(p, s)` when present, rendered as sqlparser does: `(12,2)`.
    fn opt_precision_scale(&mut self) -> Option<String> {
        if !self.peek_punct(b'(') {
            return Some(String::new());
        }
        self.i += 1;
        let p = self.number()?;
        let out = if self.punct(b',').is_some() {
            let s = self.number()?;
            format!("({p},{s})")
        } else {
            format!("({p})")
        };
        self.punct(b')')?;
        Some(out)
    }

    /// A data type among the common ones, rendered as sqlparser's `DataType` displays it.
    fn data_type(&mut self) -> Option<String> {
        let t = self.peek()?;
        if t.kind != Kind::Word {
            return None;
        }
        self.i += 1;
        let upper = t.text.to_ascii_uppercase();
        let mut out = match upper.as_str() {
            // Not keywords to sqlparser: custom types, rendered as written.
            "SERIAL" | "BIGSERIAL" | "SMALLSERIAL" => t.text.to_owned(),
            "BOOLEAN" | "BOOL" | "UUID" | "DATE" | "JSON" | "JSONB" | "BYTEA" | "REAL" | "TEXT"
            | "TINYTEXT" | "MEDIUMTEXT" | "LONGTEXT" | "TINYBLOB" | "MEDIUMBLOB" | "LONGBLOB" | "FLOAT" => {
                upper
            }
            "TINYINT" | "SMALLINT" | "MEDIUMINT" | "INT" | "INTEGER" | "BIGINT" => {
                let mut s = upper;
                s.push_str(&self.opt_length()?);
                if self.eat("unsigned") {
                    s.push_str(" UNSIGNED");
                }
                s
            }
            "VARCHAR" | "CHAR" | "DATETIME" | "BLOB" | "TIMESTAMPTZ" => upper + &self.opt_length()?,
            "CHARACTER" => {
                if self.eat("varying") {
                    "CHARACTER VARYING".to_owned() + &self.opt_length()?
                } else {
                    upper + &self.opt_length()?
                }
            }
            "NUMERIC" | "DECIMAL" => upper + &self.opt_precision_scale()?,
            "TIMESTAMP" | "TIME" => {
                let mut s = upper + &self.opt_length()?;
                if self.eat("with") {
                    self.word("time")?;
                    self.word("zone")?;
                    s.push_str(" WITH TIME ZONE");
                } else if self.eat("without") {
                    self.word("time")?;
                    self.word("zone")?;
                    s.push_str(" WITHOUT TIME ZONE");
                }
                s
            }
            "DOUBLE" => {
                self.word("precision")?;
                "DOUBLE PRECISION".to_owned()
            }
            _ => return None,
        };
        // `TEXT(…)`, `SERIAL(…)`, `FLOAT(…)` and friends mean other things to sqlparser.
        if self.peek_punct(b'(') || self.peek_punct(b'.') || self.peek_punct(b'[') {
            return None;
        }
        out.shrink_to_fit();
        Some(out)
    }

    /// A default that is a literal, a time keyword or an argument-less call, rendered as
    /// sqlparser renders the expression.
    fn default_expr(&mut self) -> Option<String> {
        let t = self.peek()?;
        let out = match t.kind {
            Kind::Number => {
                let ok = t.text.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                    && t.text.bytes().filter(|&b| b == b'.').count() <= 1
                    && t.text.as_bytes()[0].is_ascii_digit()
                    && !t.text.ends_with('.');
                if !ok {
                    return None;
                }
                self.i += 1;
                t.text.to_owned()
            }
            Kind::Punct(b'-') => {
                self.i += 1;
                let n = self.peek()?;
                if n.kind != Kind::Number || !n.text.bytes().all(|b| b.is_ascii_digit()) || n.start != t.end {
                    return None;
                }
                self.i += 1;
                format!("-{}", n.text)
            }
            Kind::Str => {
                let raw = self.statement.text.get(t.start..t.end)?;
                let closed = raw.len() >= 2 && raw.ends_with('\'') && t.text.len() + 2 == raw.len();
                if !closed || t.text.contains('\'') || t.text.contains('\n') {
                    return None;
                }
                self.i += 1;
                raw.to_owned()
            }
            Kind::Word if t.is("null") => {
                self.i += 1;
                "NULL".to_owned()
            }
            Kind::Word if t.is("true") || t.is("false") => {
                self.i += 1;
                t.text.to_ascii_lowercase()
            }
            Kind::Word if DEFAULT_TIMES.iter().any(|k| t.is(k)) => {
                self.i += 1;
                if self.punct(b'(').is_some() {
                    let n = self.number()?;
                    self.punct(b')')?;
                    format!("{}({n})", t.text)
                } else {
                    t.text.to_owned()
                }
            }
            Kind::Word if DEFAULT_CALLS.iter().any(|k| t.is(k)) => {
                self.i += 1;
                self.punct(b'(')?;
                self.punct(b')')?;
                format!("{}()", t.text)
            }
            _ => return None,
        };
        // The expression must end here: an operator or cast would continue it.
        let next_ok = match self.peek() {
            None => true,
            Some(n) => {
                n.is_punct(b',')
                    || n.is_punct(b')')
                    || ["not", "null", "primary", "unique", "references", "constraint"]
                        .iter()
                        .any(|k| n.is(k))
            }
        };
        next_ok.then_some(out)
    }

    /// `ON DELETE action` / `ON UPDATE action`, each at most once.
    fn reference_clauses(&mut self) -> Option<()> {
        let (mut delete, mut update) = (false, false);
        while self.peek_is("on") {
            let which = self.toks.get(self.i + 1)?;
            if which.is("delete") && !delete {
                delete = true;
            } else if which.is("update") && !update {
                update = true;
            } else {
                return None;
            }
            self.i += 2;
            if self.eat("restrict") || self.eat("cascade") {
                continue;
            }
            if self.eat("set") {
                if !self.eat("null") {
                    self.word("default")?;
                }
                continue;
            }
            self.word("no")?;
            self.word("action")?;
        }
        Some(())
    }

    /// `REFERENCES table [(cols)] [ON …]` after the keyword: (schema, table, columns).
    fn references(&mut self) -> Option<(Option<String>, String, Vec<String>)> {
        let (schema, table) = self.qname()?;
        let cols = if self.peek_punct(b'(') {
            self.ident_list()?.0
        } else {
            Vec::new()
        };
        self.reference_clauses()?;
        Some((schema.map(str::to_owned), table.to_owned(), cols))
    }

    /// A column definition: name, type, options.
    fn column(&mut self) -> Option<ColumnFacts> {
        let name_at = self.i;
        let name = self.ident()?;
        let line = self.line_of(name_at);
        let data_type = self.data_type()?;
        let serial = matches!(
            data_type.to_ascii_uppercase().as_str(),
            "SERIAL" | "BIGSERIAL" | "SMALLSERIAL"
        );
        let mut facts = ColumnFacts {
            column: Column {
                name: name.to_owned(),
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
        loop {
            let constraint_name = if self.eat("constraint") {
                Some(self.ident()?)
            } else {
                None
            };
            if self.eat("not") {
                self.word("null")?;
                facts.column.nullable = false;
            } else if self.eat("null") {
                facts.column.nullable = true;
            } else if self.eat("default") {
                facts.column.default = Some(self.default_expr()?);
            } else if self.eat("primary") {
                self.word("key")?;
                facts.primary_key = true;
                facts.primary_key_name = constraint_name.map(str::to_owned);
            } else if self.eat("unique") {
                facts.unique = true;
                facts.unique_name = constraint_name.map(str::to_owned);
            } else if self.eat("references") {
                let (ref_schema, ref_table, ref_columns) = self.references()?;
                facts.foreign_keys.push(ForeignKey {
                    name: constraint_name.map(str::to_owned),
                    columns: vec![facts.column.name.clone()],
                    ref_table,
                    ref_schema,
                    ref_columns,
                    line,
                });
            } else if self.dialect != SqlDialect::Postgres && self.eat("auto_increment") {
                facts.column.identity = true;
            } else if constraint_name.is_none()
                && (self.peek_punct(b',') || self.peek_punct(b')') || self.peek().is_none())
            {
                break;
            } else {
                return None;
            }
        }
        if facts.primary_key {
            facts.column.nullable = false;
        }
        Some(facts)
    }

    /// Whether a table constraint starts here (rather than a column).
    fn starts_constraint(&self) -> bool {
        let Some(t) = self.peek() else {
            return false;
        };
        t.is("constraint")
            || t.is("primary")
            || t.is("unique")
            || t.is("foreign")
            || (self.dialect == SqlDialect::MySql && (t.is("key") || t.is("index")))
    }

    /// A table constraint; its line is that of its first name, as sqlparser's span says.
    fn constraint(&mut self, table: &str) -> Option<Constraint> {
        let first = if self.peek_is("constraint") {
            self.i + 1
        } else {
            usize::MAX
        };
        let name = if self.eat("constraint") {
            Some(self.ident()?)
        } else {
            None
        };
        let constraint = if self.eat("primary") {
            self.word("key")?;
            let (cols, _) = self.index_columns()?;
            Constraint::PrimaryKey(name.map(str::to_owned), cols)
        } else if self.eat("unique") {
            let mut index_name = None;
            let mut index_at = usize::MAX;
            if self.dialect == SqlDialect::MySql && (self.eat("key") || self.eat("index")) {
                index_at = self.i;
                index_name = Some(self.ident()?);
            }
            let (cols, cols_at) = self.index_columns()?;
            let line = self.line_of(first.min(index_at).min(cols_at));
            let key_name = index_name.or(name);
            let ix = key_name.map(|n| Index {
                name: Some(n.to_owned()),
                table: table.to_owned(),
                columns: cols.clone(),
                unique: true,
                method: IndexMethod::BTree,
                line,
            });
            let key = UniqueKey {
                name: key_name.map(str::to_owned),
                columns: cols,
            };
            Constraint::Unique(key, ix)
        } else if self.eat("foreign") {
            self.word("key")?;
            if !self.peek_punct(b'(') {
                return None;
            }
            let (columns, cols_at) = self.ident_list()?;
            self.word("references")?;
            let (ref_schema, ref_table, ref_columns) = self.references()?;
            let line = self.line_of(first.min(cols_at));
            Constraint::ForeignKey(ForeignKey {
                name: name.map(str::to_owned),
                columns,
                ref_table,
                ref_schema,
                ref_columns,
                line,
            })
        } else if name.is_none()
            && self.dialect == SqlDialect::MySql
            && (self.eat("key") || self.eat("index"))
        {
            let name_at = self.i;
            let ix_name = self.ident()?;
            let (cols, _) = self.index_columns()?;
            let line = self.line_of(name_at);
            Constraint::Index(Index {
                name: Some(ix_name.to_owned()),
                table: table.to_owned(),
                columns: cols,
                unique: false,
                method: IndexMethod::BTree,
                line,
            })
        } else {
            return None;
        };
        // Constraint characteristics (`DEFERRABLE`), `NOT VALID` and the like go to sqlparser.
        match self.peek() {
            None => Some(constraint),
            Some(t) if t.is_punct(b',') || t.is_punct(b')') => Some(constraint),
            Some(_) => None,
        }
    }

    /// `USING method` of `CREATE INDEX`, after the keyword.
    fn index_method(&mut self) -> Option<IndexMethod> {
        let t = self.peek()?;
        let method = if t.is("btree") {
            IndexMethod::BTree
        } else if t.is("hash") {
            IndexMethod::Hash
        } else if t.is("gin") {
            IndexMethod::Gin
        } else if t.is("gist") {
            IndexMethod::Gist
        } else if t.is("spgist") {
            IndexMethod::SpGist
        } else if t.is("brin") {
            IndexMethod::Brin
        } else {
            return None;
        };
        self.i += 1;
        Some(method)
    }

    /// MySQL table options after the column list (`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`);
    /// other dialects have none here.
    fn table_options(&mut self) -> Option<()> {
        while self.peek().is_some() {
            if self.dialect != SqlDialect::MySql {
                return None;
            }
            self.eat("default");
            let key = self.peek()?;
            let known = ["engine", "charset", "collate", "auto_increment", "comment"]
                .iter()
                .any(|k| key.is(k));
            if !known {
                return None;
            }
            self.i += 1;
            self.punct(b'=')?;
            let value = self.peek()?;
            let ok = match value.kind {
                Kind::Word => value.text.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'),
                Kind::Number => value.text.bytes().all(|b| b.is_ascii_digit()),
                Kind::Str => !value.text.contains('\''),
                _ => false,
            };
            if !ok {
                return None;
            }
            self.i += 1;
        }
        Some(())
    }
}
