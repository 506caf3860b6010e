//! What one source text declares, with lines: the front-ends' view of a file that is not
//! (yet) in the graph.
//!
//! A change review asks about code the index has never seen: the new side of a diff. This
//! module runs the same front-ends an index run does over one text and lists its
//! declarations — Java and Kotlin types, methods (with the signature the graph spells,
//! and the routes a handler declares), fields; SQL tables, columns, indexes, views, triggers and
//! routines a script creates, alters or drops; MyBatis mapper statements; config keys —
//! each with its first and last line. It never fails: an unreadable text declares nothing
//! it cannot read. Nothing is written anywhere.
//!
//! The routes of handlers are what the endpoint recognisers find in the file read alone
//! (Spring MVC/WebFlux mappings with class-level prefixes, JAX-RS `@Path` with a verb,
//! `@WebServlet` servlets' `doGet`/`doPost`…); routes that only a whole product can tell
//! (config placeholders, OpenAPI-generated interfaces, Spring Data REST, `web.xml`) are not.

use std::collections::HashMap;

use crate::facts;
use crate::frameworks::{self, mybatis, Owner};
use crate::lang::sql::{AlterOp, ObjectKind, SchemaStatement};
use crate::lang::{config, java, kotlin, sql};
use crate::resolve::MethodKey;
use semgraph_storage::keys;

/// One declaration of a text, as the graph would name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The node kind it would be: `type`, `method`, `field`, `table`, `column`, `index`,
    /// `trigger`, `view`, `routine`, `config-key`; a MyBatis statement is a `method` (the
    /// mapper interface method it binds).
    pub kind: &'static str,
    /// Its fully-qualified name as the graph spells it (`package.Type.method`, the
    /// normalised table name, `table.column`, the flattened config key).
    pub fqn: String,
    /// Its short name.
    pub name: String,
    /// A method's `name(ParamType, …)` with simple type names (the graph's `signature`).
    pub signature: Option<String>,
    /// First and last line, 1-based and inclusive.
    pub lines: (u32, u32),
    /// What the text does to it: `declares`, `alters` (SQL `ALTER`, a column's change) or
    /// `drops`.
    pub action: &'static str,
    /// The routes a handler method declares, `VERB /path` (`ANY` for a mapping without a
    /// method).
    pub routes: Vec<String>,
}

/// The declarations of `text`, read as the file `path` (its extension picks the
/// front-end). An unknown kind of file declares nothing.
pub fn outline(path: &str, text: &str) -> Vec<Declaration> {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if lower.ends_with(".java") {
        code_outline(java::parse_java_file(path, text))
    } else if lower.ends_with(".kt") {
        code_outline(kotlin::parse_kotlin_file(path, text))
    } else if lower.ends_with(".sql") {
        sql_outline(path, text)
    } else if lower.ends_with(".xml") && text.contains("<mapper") {
        mapper_outline(text)
    } else if lower.ends_with(".properties")
        || lower.ends_with(".env")
        || name == ".env"
        || ((lower.ends_with(".yml") || lower.ends_with(".yaml"))
            && (name.starts_with("application") || name.starts_with("bootstrap")))
    {
        config_outline(path, text)
    } else {
        Vec::new()
    }
}

fn decl(kind: &'static str, fqn: String, name: &str, lines: (u32, u32)) -> Declaration {
    Declaration {
        kind,
        fqn,
        name: name.to_string(),
        signature: None,
        lines,
        action: "declares",
        routes: Vec::new(),
    }
}

/// The types, fields and methods of a code file (Java or Kotlin: the JVM's view, as the
/// graph names them), with the routes of handlers.
fn code_outline(file: facts::CodeFile) -> Vec<Declaration> {
    let mut routes: HashMap<MethodKey, Vec<String>> = HashMap::new();
    for e in frameworks::endpoints_of_file(&file) {
        if let Owner::Method(k) = e.handler {
            routes
                .entry(k)
                .or_default()
                .push(format!("{} {}", e.verb, e.path));
        }
    }
    let mut out = Vec::new();
    for t in &file.types {
        out.push(decl(
            "type",
            t.fqn.clone(),
            &t.name,
            (t.line_start as u32, t.line_end as u32),
        ));
        for f in &t.fields {
            out.push(decl(
                "field",
                facts::member_fqn(&t.fqn, &f.name),
                &f.name,
                (f.line as u32, f.line as u32),
            ));
        }
        for m in t.methods.iter().filter(|m| !m.implicit) {
            let mut d = decl(
                "method",
                facts::member_fqn(&t.fqn, &m.name),
                &m.name,
                (m.line_start as u32, m.line_end as u32),
            );
            d.signature = Some(m.signature());
            let mut r = routes.remove(&MethodKey::of(t, m)).unwrap_or_default();
            r.sort();
            r.dedup();
            d.routes = r;
            out.push(d);
        }
    }
    out
}

/// The lines a statement of `text` starting at line `first` spans.
fn span_of(first: u32, text: &str) -> (u32, u32) {
    (first, first + text.matches('\n').count() as u32)
}

fn starts_with_word(text: &str, words: &[&str]) -> bool {
    let head: String = text
        .trim_start()
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_uppercase();
    words.iter().any(|w| head.starts_with(w))
}

fn sql_outline(path: &str, text: &str) -> Vec<Declaration> {
    let dialect = sql::detect_dialect(path, text);
    let statements = sql::split_statements(text, dialect);
    let spans: Vec<(u32, u32)> = statements.iter().map(|s| span_of(s.line, &s.text)).collect();
    let statement_at = |line: u32| -> (u32, u32) {
        spans
            .iter()
            .copied()
            .find(|(a, b)| *a <= line && line <= *b)
            .unwrap_or((line, line))
    };
    let mut out = Vec::new();
    // Creations carry their lines: read them from the whole file, as an index run does.
    for fact in sql::parse_schema_file(path, text, dialect).statements {
        match fact {
            SchemaStatement::CreateTable(t) => {
                let key = keys::table_name(&t.name);
                let span = statement_at(t.line);
                for c in &t.columns {
                    out.push(decl(
                        "column",
                        format!("{key}.{}", c.name.to_lowercase()),
                        &c.name,
                        (c.line, c.line),
                    ));
                }
                out.push(decl("table", key, &t.name, span));
            }
            SchemaStatement::CreateIndex(i) => {
                if let Some(name) = &i.name {
                    out.push(decl(
                        "index",
                        format!("{}.{}", keys::table_name(&i.table), name.to_lowercase()),
                        name,
                        statement_at(i.line),
                    ));
                }
            }
            SchemaStatement::CreateView(v) => {
                out.push(decl(
                    "view",
                    keys::table_name(&v.name),
                    &v.name,
                    statement_at(v.line),
                ));
            }
            SchemaStatement::CreateTrigger(t) => {
                // Named as the graph names it: trigger names are unique per table.
                out.push(decl(
                    "trigger",
                    format!("{}.{}", keys::table_name(&t.table), keys::table_name(&t.name)),
                    &t.name,
                    statement_at(t.line),
                ));
            }
            SchemaStatement::CreateRoutine(r) => {
                out.push(decl(
                    "routine",
                    keys::table_name(&r.name),
                    &r.name,
                    statement_at(r.line),
                ));
            }
            SchemaStatement::AlterTable { .. } | SchemaStatement::Drop { .. } => {}
        }
    }
    // Alterations and drops carry none: each such statement is read alone (they hold no
    // compound bodies, so no delimiter is needed to read them whole).
    for (s, &span) in statements.iter().zip(&spans) {
        if !starts_with_word(&s.text, &["ALTER", "DROP", "RENAME"]) {
            continue;
        }
        for fact in sql::parse_schema_file(path, &s.text, dialect).statements {
            match fact {
                SchemaStatement::AlterTable { table, ops } => {
                    let key = keys::table_name(&table);
                    for op in &ops {
                        let columns: Vec<&str> = match op {
                            AlterOp::AddColumn(c) => vec![c.name.as_str()],
                            AlterOp::DropColumn(c)
                            | AlterOp::SetNullable(c, _)
                            | AlterOp::SetDefault(c, _)
                            | AlterOp::SetType(c, _) => vec![c.as_str()],
                            AlterOp::RenameColumn { from, to } => vec![from.as_str(), to.as_str()],
                            AlterOp::ReplaceColumn { old, column } => {
                                vec![old.as_str(), column.name.as_str()]
                            }
                            AlterOp::AddIndex(i) => {
                                if let Some(name) = &i.name {
                                    out.push(decl(
                                        "index",
                                        format!("{key}.{}", name.to_lowercase()),
                                        name,
                                        span,
                                    ));
                                }
                                Vec::new()
                            }
                            _ => Vec::new(),
                        };
                        for c in columns {
                            let mut d = decl("column", format!("{key}.{}", c.to_lowercase()), c, span);
                            d.action = match op {
                                AlterOp::AddColumn(_) => "declares",
                                AlterOp::DropColumn(_) => "drops",
                                _ => "alters",
                            };
                            out.push(d);
                        }
                    }
                    let mut d = decl("table", key, &table, span);
                    d.action = "alters";
                    out.push(d);
                }
                SchemaStatement::Drop { kind, names, on } => {
                    let trigger_on = match (kind, on) {
                        (ObjectKind::Trigger, Some(table)) => Some(keys::table_name(&table)),
                        _ => None,
                    };
                    let kind = match kind {
                        ObjectKind::Table => "table",
                        ObjectKind::View => "view",
                        ObjectKind::Index => "index",
                        ObjectKind::Trigger => "trigger",
                        ObjectKind::Routine => "routine",
                    };
                    for n in names {
                        let fqn = match &trigger_on {
                            Some(table) => format!("{table}.{}", keys::table_name(&n)),
                            None => keys::table_name(&n),
                        };
                        let mut d = decl(kind, fqn, &n, span);
                        d.action = "drops";
                        out.push(d);
                    }
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| (a.lines, a.kind, &a.fqn).cmp(&(b.lines, b.kind, &b.fqn)));
    out
}

fn mapper_outline(text: &str) -> Vec<Declaration> {
    let Some(mapper) = mybatis::parse_mapper(text) else {
        return Vec::new();
    };
    let last = text.lines().count() as u32;
    let starts: Vec<u32> = mapper.statements.iter().map(|s| s.line).collect();
    mapper
        .statements
        .iter()
        .enumerate()
        .map(|(i, s)| {
            // A statement runs to the line before the next one (or the end of the file).
            let end = starts
                .get(i + 1)
                .map(|n| n.saturating_sub(1).max(s.line))
                .unwrap_or(last.max(s.line));
            let mut d = decl(
                "method",
                format!("{}.{}", mapper.namespace, s.id),
                &s.id,
                (s.line, end),
            );
            d.action = "declares";
            d
        })
        .collect()
}

fn config_outline(path: &str, text: &str) -> Vec<Declaration> {
    let file = config::parse_config_file(path, text);
    file.entries
        .iter()
        .map(|e| decl("config-key", e.key.clone(), &e.key, (e.line, e.line)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_controller_method_declares_its_signature_and_route() {
        let text = "package a.b;\n\n@RestController\n@RequestMapping(\"/api/orders\")\npublic class C {\n    @GetMapping(\"/{id}/history\")\n    public String history(@PathVariable Long id, java.util.List<String> x) {\n        return \"\";\n    }\n}\n";
        let d = outline("src/main/java/a/b/C.java", text);
        let m = d.iter().find(|d| d.kind == "method").expect("a method");
        assert_eq!(m.fqn, "a.b.C.history");
        assert_eq!(m.signature.as_deref(), Some("history(Long, List)"));
        assert_eq!(m.routes, vec!["GET /api/orders/{id}/history".to_string()]);
        assert_eq!(m.lines, (6, 9));
        let t = d.iter().find(|d| d.kind == "type").expect("a type");
        assert_eq!((t.fqn.as_str(), t.lines), ("a.b.C", (3, 10)));
    }

    #[test]
    fn a_kotlin_controller_function_declares_its_route_and_lines() {
        let text = "package a.b\n\n@RestController\n@RequestMapping(\"/api/shipments\")\nclass ShipmentController {\n    @GetMapping(\"/{id}\")\n    fun get(@PathVariable id: String): String {\n        return id\n    }\n}\n";
        let d = outline("src/main/kotlin/a/b/ShipmentController.kt", text);
        let m = d
            .iter()
            .find(|d| d.kind == "method" && d.name == "get")
            .expect("a method");
        assert_eq!(m.fqn, "a.b.ShipmentController.get");
        assert_eq!(m.signature.as_deref(), Some("get(String)"));
        assert_eq!(m.routes, vec!["GET /api/shipments/{id}".to_string()]);
        assert_eq!(m.lines, (6, 9));
        let t = d.iter().find(|d| d.kind == "type").expect("a type");
        assert_eq!(t.fqn, "a.b.ShipmentController");
    }

    #[test]
    fn a_migration_names_the_tables_and_columns_it_alters() {
        let text = "-- widen\nALTER TABLE orders\n    ALTER COLUMN customer_email TYPE VARCHAR(320);\n\nCREATE INDEX ix_orders_email ON orders (customer_email);\nDROP TABLE legacy_orders;\n";
        let d = outline("db/migration/V4__widen.sql", text);
        let got: Vec<(&str, &str, &str, (u32, u32))> = d
            .iter()
            .map(|d| (d.kind, d.fqn.as_str(), d.action, d.lines))
            .collect();
        assert!(got.contains(&("table", "orders", "alters", (2, 3))), "{got:?}");
        assert!(
            got.contains(&("column", "orders.customer_email", "alters", (2, 3))),
            "{got:?}"
        );
        assert!(
            got.contains(&("index", "orders.ix_orders_email", "declares", (5, 5))),
            "{got:?}"
        );
        assert!(
            got.contains(&("table", "legacy_orders", "drops", (6, 6))),
            "{got:?}"
        );
    }

    #[test]
    fn config_keys_and_mapper_statements_have_lines() {
        let d = outline(
            "src/main/resources/application.yml",
            "orders:\n  pending:\n    max-per-customer: 5\n",
        );
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].fqn.as_str(), d[0].lines),
            ("orders.pending.max-per-customer", (3, 3))
        );
        let xml = "<mapper namespace=\"a.M\">\n  <select id=\"one\">\n    select 1\n  </select>\n  <update id=\"two\">\n    update t set x = 1\n  </update>\n</mapper>\n";
        let d = outline("src/main/resources/M.xml", xml);
        let got: Vec<(&str, (u32, u32))> = d.iter().map(|d| (d.fqn.as_str(), d.lines)).collect();
        assert_eq!(got, vec![("a.M.one", (2, 4)), ("a.M.two", (5, 8))]);
        assert!(outline("README.md", "# x").is_empty());
    }
}
