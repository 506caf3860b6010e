//! SQL and JPQL written in application code: which tables one statement reads and writes.
//!
//! Code hands SQL to `JdbcTemplate`, `JdbcClient`, `@Query`, MyBatis and `EntityManager`
//! as strings with bind markers (`?`, `:name`, `?1`, `#{x}`), so the text is first made
//! plain SQL, then parsed with sqlparser (generic, PostgreSQL, then MySQL rules) and its
//! syntax tree walked: the target of `INSERT`/`UPDATE`/`DELETE`/`MERGE` is written,
//! everything in `FROM`, `JOIN`, `USING`, subqueries and CTE bodies is read, CTE names are
//! not tables. Text sqlparser refuses falls back to the tolerant token scan of the schema
//! front-end and says so, so the caller can count it.
//!
//! JPQL/HQL names entities and association paths, never tables: [`jpql_touches`] returns
//! them as paths (`Order`, `Order.lines`) for the caller to map through its entities.

use std::collections::{HashMap, HashSet};

use sqlparser::ast::{
    FromTable, ObjectName, Query, Select, SetExpr, Statement, TableFactor, TableObject, TableWithJoins,
    UpdateTableFromKind,
};
use sqlparser::dialect::{Dialect, GenericDialect, MySqlDialect, PostgreSqlDialect};
use sqlparser::parser::Parser;

use super::scan::{self, Kind, Tok};
use super::Access;

/// The tables one SQL text touches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SqlTouches {
    /// Each table (as written, possibly schema-qualified) with how it is used, each
    /// (table, access) once, in order of first mention.
    pub(crate) tables: Vec<(String, Access)>,
    /// Whether sqlparser read the text (else the token scan did, or it is no SQL at all).
    pub(crate) parsed: bool,
    /// Whether the text starts like a SQL statement at all.
    pub(crate) looks_like_sql: bool,
}

/// Words a SQL statement handed to a driver starts with.
const STATEMENT_STARTS: &[&str] = &[
    "select", "insert", "update", "delete", "with", "merge", "replace", "upsert", "truncate", "call",
    "values",
];

/// Words of statements that touch no table's rows (DDL, session and transaction control).
const NO_ROWS_STARTS: &[&str] = &[
    "create",
    "drop",
    "alter",
    "comment",
    "set",
    "reset",
    "show",
    "explain",
    "describe",
    "use",
    "lock",
    "grant",
    "revoke",
    "begin",
    "start",
    "commit",
    "rollback",
    "savepoint",
    "release",
    "analyze",
    "vacuum",
];

/// The first word of a statement, after leading comments and parentheses.
fn first_word(sql: &str) -> String {
    let mut rest = sql;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '(');
        if let Some(r) = rest.strip_prefix("--") {
            rest = r.split_once('\n').map_or("", |(_, after)| after);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.split_once("*/").map_or("", |(_, after)| after);
        } else {
            break;
        }
    }
    rest.split(|c: char| !c.is_ascii_alphabetic())
        .next()
        .unwrap_or("")
        .to_ascii_lowercase()
}

/// The tables `text` reads and writes.
pub(crate) fn sql_touches(text: &str) -> SqlTouches {
    let prepared = plain_sql(text);
    let first = first_word(&prepared);
    if NO_ROWS_STARTS.contains(&first.as_str()) {
        return SqlTouches {
            tables: Vec::new(),
            parsed: true,
            looks_like_sql: true,
        };
    }
    if !STATEMENT_STARTS.contains(&first.as_str()) {
        return SqlTouches::default();
    }
    let dialects: [&dyn Dialect; 3] = [&GenericDialect {}, &PostgreSqlDialect {}, &MySqlDialect {}];
    for dialect in dialects {
        if let Ok(statements) = Parser::parse_sql(dialect, &prepared) {
            if statements.is_empty() {
                continue;
            }
            let mut walk = Walk::default();
            for s in &statements {
                walk.statement(s);
            }
            return SqlTouches {
                tables: walk.out,
                parsed: true,
                looks_like_sql: true,
            };
        }
    }
    SqlTouches {
        tables: scan::touches(&prepared, prepared.contains('`')),
        parsed: false,
        looks_like_sql: true,
    }
}

/// `text` with every bind marker made `?`: `:name`, `?1`, MyBatis `#{…}` and `${…}`.
/// String literals, quoted names and PostgreSQL `::` casts are left alone.
fn plain_sql(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' | b'`' => {
                let end = b[i + 1..]
                    .iter()
                    .position(|&x| x == c)
                    .map_or(b.len(), |p| i + 2 + p);
                out.push_str(&text[i..end]);
                i = end;
            }
            b'#' | b'$' if b.get(i + 1) == Some(&b'{') => {
                let end = b[i..]
                    .iter()
                    .position(|&x| x == b'}')
                    .map_or(b.len(), |p| i + p + 1);
                out.push('?');
                i = end;
            }
            b':' if b.get(i + 1) == Some(&b':') => {
                out.push_str("::");
                i += 2;
            }
            b':' if b
                .get(i + 1)
                .is_some_and(|x| x.is_ascii_alphabetic() || *x == b'_')
                && !b[..i].last().is_some_and(|x| x.is_ascii_alphanumeric()) =>
            {
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                    i += 1;
                }
                out.push('?');
            }
            b'?' => {
                i += 1;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                out.push('?');
            }
            _ => {
                let ch = text[i..].chars().next().unwrap_or(' ');
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
    out
}

/// The walk over one parsed statement.
#[derive(Default)]
struct Walk {
    out: Vec<(String, Access)>,
    seen: HashSet<(String, Access)>,
    ctes: HashSet<String>,
}

fn bare(name: &str) -> String {
    let unquoted: String = name
        .chars()
        .filter(|c| !matches!(c, '"' | '`' | '[' | ']'))
        .collect();
    unquoted.rsplit('.').next().unwrap_or("").to_ascii_lowercase()
}

impl Walk {
    fn record_text(&mut self, name: String, access: Access) {
        let b = bare(&name);
        if b.is_empty() || b == "dual" || self.ctes.contains(&b) {
            return;
        }
        if self.seen.insert((name.to_ascii_lowercase(), access)) {
            self.out.push((name, access));
        }
    }

    fn record(&mut self, name: &ObjectName, access: Access) {
        self.record_text(name.to_string(), access);
    }

    /// Subqueries inside an expression, found by scanning its rendering: every table
    /// there is read.
    fn expr_text(&mut self, text: &str) {
        if !text.to_ascii_lowercase().contains("select") {
            return;
        }
        for (t, _) in scan::touches(text, false) {
            self.record_text(t, Access::Read);
        }
    }

    fn statement(&mut self, s: &Statement) {
        match s {
            Statement::Query(q) => self.query(q),
            Statement::Insert(insert) => {
                if let TableObject::TableName(n) = &insert.table {
                    self.record(n, Access::Write);
                }
                if let Some(source) = &insert.source {
                    self.query(source);
                }
            }
            Statement::Update(update) => {
                self.joined(&update.table, Access::Write);
                if let Some(UpdateTableFromKind::BeforeSet(from) | UpdateTableFromKind::AfterSet(from)) =
                    &update.from
                {
                    for t in from {
                        self.joined(t, Access::Read);
                    }
                }
                for a in &update.assignments {
                    self.expr_text(&a.value.to_string());
                }
                if let Some(e) = &update.selection {
                    self.expr_text(&e.to_string());
                }
            }
            Statement::Delete(delete) => {
                let from = match &delete.from {
                    FromTable::WithFromKeyword(v) | FromTable::WithoutKeyword(v) => v,
                };
                if delete.tables.is_empty() {
                    for t in from {
                        self.joined(t, Access::Write);
                    }
                } else {
                    // MySQL's `DELETE t1 FROM t1 JOIN t2 …`: the named tables lose rows.
                    let aliases: HashMap<String, String> = from
                        .iter()
                        .flat_map(|t| std::iter::once(&t.relation).chain(t.joins.iter().map(|j| &j.relation)))
                        .filter_map(|f| match f {
                            TableFactor::Table {
                                name, alias: Some(a), ..
                            } => Some((a.name.value.to_ascii_lowercase(), name.to_string())),
                            _ => None,
                        })
                        .collect();
                    for n in &delete.tables {
                        let written = n.to_string();
                        let target = aliases
                            .get(&written.to_ascii_lowercase())
                            .cloned()
                            .unwrap_or(written);
                        self.record_text(target, Access::Write);
                    }
                    for t in from {
                        self.joined(t, Access::Read);
                    }
                }
                for t in delete.using.iter().flatten() {
                    self.joined(t, Access::Read);
                }
                if let Some(e) = &delete.selection {
                    self.expr_text(&e.to_string());
                }
            }
            Statement::Merge(merge) => {
                self.factor(&merge.table, Access::Write);
                self.factor(&merge.source, Access::Read);
            }
            other => {
                for (t, access) in scan::touches(&other.to_string(), false) {
                    self.record_text(t, access);
                }
            }
        }
    }

    fn query(&mut self, q: &Query) {
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                self.ctes.insert(cte.alias.name.value.to_ascii_lowercase());
            }
            for cte in &with.cte_tables {
                self.query(&cte.query);
            }
        }
        self.set_expr(&q.body);
    }

    fn set_expr(&mut self, s: &SetExpr) {
        match s {
            SetExpr::Select(select) => self.select(select),
            SetExpr::Query(q) => self.query(q),
            SetExpr::SetOperation { left, right, .. } => {
                self.set_expr(left);
                self.set_expr(right);
            }
            SetExpr::Insert(st) | SetExpr::Update(st) | SetExpr::Delete(st) => self.statement(st),
            other => self.expr_text(&other.to_string()),
        }
    }

    fn select(&mut self, s: &Select) {
        for t in &s.from {
            self.joined(t, Access::Read);
        }
        for item in &s.projection {
            self.expr_text(&item.to_string());
        }
        for e in s.selection.iter().chain(&s.having) {
            self.expr_text(&e.to_string());
        }
    }

    fn joined(&mut self, t: &TableWithJoins, access: Access) {
        self.factor(&t.relation, access);
        for j in &t.joins {
            self.factor(&j.relation, Access::Read);
        }
    }

    fn factor(&mut self, f: &TableFactor, access: Access) {
        match f {
            TableFactor::Table { name, args: None, .. } => self.record(name, access),
            TableFactor::Derived { subquery, .. } => self.query(subquery),
            TableFactor::NestedJoin { table_with_joins, .. } => self.joined(table_with_joins, access),
            _ => {}
        }
    }
}

/// Spring Boot's default physical table name for an entity class (Hibernate with
/// `CamelCaseToUnderscoresNamingStrategy`): an underscore before each upper-case letter
/// that sits between two lower-case ones, dots made underscores, all lower case
/// (`OrderStatusHistory` → `order_status_history`, `HTTPRequest` → `httprequest`).
pub(crate) fn spring_table_name(class_name: &str) -> String {
    let chars: Vec<char> = class_name.replace('.', "_").chars().collect();
    let mut out = String::with_capacity(chars.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if i > 0
            && i + 1 < chars.len()
            && chars[i - 1].is_lowercase()
            && c.is_uppercase()
            && chars[i + 1].is_lowercase()
        {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// What a JPQL/HQL statement names: an entity (`["Order"]`, or a qualified class name as
/// one element) or an association path from one (`["Order", "lines"]`), with its access.
pub(crate) type JpqlPath = (Vec<String>, Access);

/// JPQL words after which a name is no alias.
const JPQL_CLAUSES: &[&str] = &[
    "where",
    "join",
    "left",
    "right",
    "inner",
    "outer",
    "cross",
    "full",
    "on",
    "with",
    "order",
    "group",
    "having",
    "set",
    "fetch",
    "union",
    "intersect",
    "except",
    "select",
    "from",
    "limit",
    "offset",
];

/// The entities and association paths a JPQL/HQL text reads and writes: `FROM` ranges,
/// `IN (o.lines) l`, `JOIN [FETCH] o.lines l`, entity joins, and the target of `UPDATE`,
/// `DELETE FROM` and HQL `INSERT INTO`. Implicit joins in paths elsewhere are not counted.
pub(crate) fn jpql_touches(text: &str) -> Vec<JpqlPath> {
    let toks = scan::tokenize(text, false);
    let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
    let mut out: Vec<JpqlPath> = Vec::new();
    let mut openers: Vec<Option<String>> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let t = toks[i];
        let prev = i.checked_sub(1).map(|p| toks[p]);
        match t.kind {
            Kind::Punct(b'(') => {
                openers.push(
                    prev.filter(|p| p.kind == Kind::Word)
                        .map(|p| p.text.to_ascii_lowercase()),
                );
                i += 1;
            }
            Kind::Punct(b')') => {
                openers.pop();
                i += 1;
            }
            Kind::Word if t.is("update") && !prev.is_some_and(|p| p.is("for")) => {
                i = range(&toks, i + 1, Access::Write, &mut aliases, &mut out);
            }
            Kind::Word if t.is("delete") || t.is("insert") => {
                let mut j = i + 1;
                if toks.get(j).is_some_and(|t| t.is("from") || t.is("into")) {
                    j += 1;
                }
                i = range(&toks, j, Access::Write, &mut aliases, &mut out);
            }
            Kind::Word if t.is("from") => {
                let in_function = openers.last().cloned().flatten().is_some_and(|w| {
                    ["extract", "substring", "trim", "overlay", "position"].contains(&w.as_str())
                });
                if in_function {
                    i += 1;
                    continue;
                }
                let mut j = i + 1;
                loop {
                    let start = j;
                    if toks.get(j).is_some_and(|t| t.is("in"))
                        && toks.get(j + 1).is_some_and(|t| t.is_punct(b'('))
                    {
                        // `FROM Order o, IN (o.lines) l`: a collection member declaration.
                        j = join_path(&toks, j + 2, &mut aliases, &mut out, true);
                    } else {
                        j = range(&toks, j, Access::Read, &mut aliases, &mut out);
                    }
                    if j == start || !toks.get(j).is_some_and(|t| t.is_punct(b',')) {
                        break;
                    }
                    j += 1;
                }
                i = j.max(i + 1);
            }
            Kind::Word if t.is("join") => {
                let mut j = i + 1;
                if toks.get(j).is_some_and(|t| t.is("fetch")) {
                    j += 1;
                }
                i = join_path(&toks, j, &mut aliases, &mut out, false).max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// A dotted name at `toks[i]`: its parts and the index after it.
fn dotted_at(toks: &[Tok<'_>], mut i: usize) -> (Vec<String>, usize) {
    let mut parts = Vec::new();
    while let Some(t) = toks
        .get(i)
        .filter(|t| matches!(t.kind, Kind::Word | Kind::Quoted))
    {
        parts.push(t.text.to_string());
        i += 1;
        if toks.get(i).is_some_and(|t| t.is_punct(b'.'))
            && toks.get(i + 1).is_some_and(|t| t.kind == Kind::Word)
        {
            i += 1;
        } else {
            break;
        }
    }
    (parts, i)
}

/// The alias at `toks[i]` (after an optional `AS`), and the index after it.
fn alias_at(toks: &[Tok<'_>], mut i: usize) -> (Option<String>, usize) {
    if toks.get(i).is_some_and(|t| t.is("as")) {
        i += 1;
    }
    match toks.get(i) {
        Some(t) if t.kind == Kind::Word && !JPQL_CLAUSES.iter().any(|k| t.is(k)) => {
            (Some(t.text.to_ascii_lowercase()), i + 1)
        }
        _ => (None, i),
    }
}

/// `Entity [AS] alias` at `toks[i]`.
fn range(
    toks: &[Tok<'_>],
    i: usize,
    access: Access,
    aliases: &mut HashMap<String, Vec<String>>,
    out: &mut Vec<JpqlPath>,
) -> usize {
    let (parts, j) = dotted_at(toks, i);
    if parts.is_empty() {
        return i;
    }
    let path = vec![parts.join(".")];
    out.push((path.clone(), access));
    let (alias, j) = alias_at(toks, j);
    if let Some(a) = alias {
        aliases.insert(a, path);
    }
    j
}

/// `alias.association [AS] alias` (or an entity name, for HQL entity joins) at `toks[i]`;
/// `closing` when the path sits in `IN (…)`.
fn join_path(
    toks: &[Tok<'_>],
    i: usize,
    aliases: &mut HashMap<String, Vec<String>>,
    out: &mut Vec<JpqlPath>,
    closing: bool,
) -> usize {
    let (parts, mut j) = dotted_at(toks, i);
    if parts.is_empty() {
        return i;
    }
    let path = match aliases.get(&parts[0].to_ascii_lowercase()) {
        Some(root) if parts.len() > 1 => {
            let mut p = root.clone();
            p.extend(parts[1..].iter().cloned());
            p
        }
        Some(_) => return j,
        None => vec![parts.join(".")],
    };
    out.push((path.clone(), Access::Read));
    if closing && toks.get(j).is_some_and(|t| t.is_punct(b')')) {
        j += 1;
    }
    let (alias, j) = alias_at(toks, j);
    if let Some(a) = alias {
        aliases.insert(a, path);
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touches(sql: &str) -> (Vec<(String, Access)>, bool) {
        let t = sql_touches(sql);
        (t.tables, t.parsed)
    }

    fn reads(tables: &[&str]) -> Vec<(String, Access)> {
        tables.iter().map(|t| (t.to_string(), Access::Read)).collect()
    }

    #[test]
    fn selects_read_every_joined_and_nested_table() {
        let (t, parsed) = touches(
            "SELECT o.id FROM orders o JOIN order_lines l ON l.order_id = o.id \
             LEFT JOIN (SELECT sku FROM stock_items) s ON s.sku = l.sku \
             WHERE o.customer_id IN (SELECT id FROM customers WHERE vip) AND EXISTS (SELECT 1 FROM refunds r)",
        );
        assert!(parsed);
        let mut names: Vec<String> = t.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        assert_eq!(
            names,
            ["customers", "order_lines", "orders", "refunds", "stock_items"]
        );
        assert!(t.iter().all(|(_, a)| *a == Access::Read));
    }

    #[test]
    fn writes_are_the_targets_of_insert_update_delete_and_merge() {
        assert_eq!(
            touches("INSERT INTO archive (id) SELECT id FROM orders WHERE status = :status").0,
            vec![
                ("archive".to_string(), Access::Write),
                ("orders".to_string(), Access::Read)
            ]
        );
        assert_eq!(
            touches("UPDATE orders SET total = s.total FROM order_sums s WHERE s.id = orders.id").0,
            vec![
                ("orders".to_string(), Access::Write),
                ("order_sums".to_string(), Access::Read)
            ]
        );
        assert_eq!(
            touches("DELETE FROM sessions WHERE user_id IN (SELECT id FROM users WHERE banned)").0,
            vec![
                ("sessions".to_string(), Access::Write),
                ("users".to_string(), Access::Read)
            ]
        );
        let (merge, _) = touches(
            "MERGE INTO stock t USING incoming s ON t.sku = s.sku WHEN MATCHED THEN UPDATE SET qty = s.qty",
        );
        assert!(merge.contains(&("stock".to_string(), Access::Write)));
        assert!(merge.contains(&("incoming".to_string(), Access::Read)));
    }

    #[test]
    fn cte_names_are_not_tables() {
        let (t, parsed) = touches(
            "WITH recent AS (SELECT * FROM orders WHERE created_at > ?) \
             SELECT r.id FROM recent r JOIN customers c ON c.id = r.customer_id",
        );
        assert!(parsed);
        assert_eq!(t, reads(&["orders", "customers"]));
    }

    #[test]
    fn qualified_and_quoted_names_are_kept_as_written() {
        let (t, _) = touches("SELECT * FROM orders_db.orders o JOIN \"Order Lines\" l ON l.order_id = o.id");
        assert_eq!(t[0].0, "orders_db.orders");
        assert_eq!(semgraph_storage::keys::table_name(&t[0].0), "orders");
        assert_eq!(semgraph_storage::keys::table_name(&t[1].0), "order lines");
        let (t, _) = touches("SELECT * FROM `inventory`.`stock_items`");
        assert_eq!(semgraph_storage::keys::table_name(&t[0].0), "stock_items");
    }

    #[test]
    fn bind_markers_of_every_client_parse() {
        for sql in [
            "SELECT * FROM t WHERE a = ? AND b = ?",
            "SELECT * FROM t WHERE a = :a AND b = :b",
            "SELECT * FROM t WHERE a = ?1",
            "SELECT * FROM t WHERE a = #{a} AND b = ${b}",
            "SELECT a::text FROM t WHERE b = ':not-a-param'",
        ] {
            let (tables, parsed) = touches(sql);
            assert!(parsed, "{sql}");
            assert_eq!(tables, reads(&["t"]), "{sql}");
        }
    }

    #[test]
    fn text_sqlparser_refuses_falls_back_to_the_token_scan() {
        let (t, parsed) = touches("SELECT * FROM orders WHERE status = ANY_WEIRD_SYNTAX(( ORDER BY");
        assert!(!parsed);
        assert_eq!(t, reads(&["orders"]));
        let none = sql_touches("orders-service");
        assert!(!none.looks_like_sql && none.tables.is_empty());
        let ddl = sql_touches("/* setup */ CREATE TABLE t (id INT)");
        assert!(ddl.looks_like_sql && ddl.tables.is_empty(), "DDL touches no rows");
        assert_eq!(sql_touches("-- by id\nSELECT * FROM t").tables, reads(&["t"]));
    }

    #[test]
    fn spring_boot_names_tables_in_snake_case() {
        assert_eq!(spring_table_name("OrderStatusHistory"), "order_status_history");
        assert_eq!(spring_table_name("Order"), "order");
        assert_eq!(spring_table_name("HTTPRequest"), "httprequest");
        assert_eq!(spring_table_name("ABTestResult"), "abtest_result");
        assert_eq!(spring_table_name("OrderV2"), "orderv2");
    }

    #[test]
    fn jpql_names_entities_and_paths() {
        assert_eq!(
            jpql_touches("select o from Order o join fetch o.lines l left join l.product p where o.id in (select x.id from Audit x)"),
            vec![
                (vec!["Order".to_string()], Access::Read),
                (vec!["Order".to_string(), "lines".to_string()], Access::Read),
                (vec!["Order".to_string(), "lines".to_string(), "product".to_string()], Access::Read),
                (vec!["Audit".to_string()], Access::Read),
            ]
        );
        assert_eq!(
            jpql_touches("DELETE FROM com.acme.Order o WHERE o.status = :s"),
            vec![(vec!["com.acme.Order".to_string()], Access::Write)]
        );
        assert_eq!(
            jpql_touches("select trim(leading 'x' from o.code) from Order o"),
            vec![(vec!["Order".to_string()], Access::Read)]
        );
    }
}
