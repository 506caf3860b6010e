//! Fuzz target bodies for the front-ends, kept inside the crate so they reach its private
//! parsers.
//!
//! The front-ends read whatever a repository holds, so their promise — never fail, never
//! panic, never hang, keep what parsed — is checked with arbitrary bytes. Each function here
//! is one fuzz target's body: `fuzz/` calls it from cargo-fuzz (libFuzzer, nightly), and the
//! stable test `tests/fuzz_smoke.rs` calls the same function over the committed corpus, the
//! crashers found so far and a few seconds of seeded mutations, so CI checks the bodies
//! without a nightly toolchain. A body panics only when an invariant breaks; it asserts
//! properties of the output, not just the absence of a crash.
//!
//! Not an API: hidden from the docs and free to change with the front-ends.

use crate::facts::Expr;
use crate::frameworks::values::{Lookup, Scope};
use crate::lang::config::{self, ConfigKind, MAX_ENTRIES_PER_FILE};
use crate::lang::sql::{self, SqlDialect, Statement};
use crate::resolve::SymbolTable;

/// A fuzz target's body.
pub type Body = fn(&[u8]);

/// The fuzz targets of this crate, by name, for the stable smoke test.
pub const TARGETS: &[(&str, Body)] = &[("java", java), ("sql", sql), ("config", config)];

/// Bytes as a source file: invalid UTF-8 replaced, as `walk::read_source` does.
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

fn line_count(text: &str) -> usize {
    text.lines().count().max(1) + 1
}

/// A scope that knows no names: evaluation must still end and never panic.
struct Empty;

impl Scope for Empty {
    fn lookup(&self, _e: &Expr, _depth: usize) -> Lookup {
        Lookup::Unknown
    }
}

/// The Java front-end on one file: parse, build the symbol table of the file alone, resolve
/// its calls, evaluate every argument and initializer, and read the SQL of its string
/// literals as the pipeline does.
pub fn java(data: &[u8]) {
    let source = text(data);
    let file = crate::lang::java::parse_java_file("Fuzz.java", &source);
    let lines = line_count(&source);
    assert!(file.diagnostics.len() <= 50, "diagnostics are capped");
    for t in &file.types {
        assert!(
            t.line_start >= 1 && t.line_start <= t.line_end && t.line_end <= lines,
            "type {} spans {}..{} in a file of {lines} lines",
            t.fqn,
            t.line_start,
            t.line_end
        );
        assert!(!t.fqn.is_empty(), "a type without a name");
        for m in &t.methods {
            assert!(
                m.line_start <= m.line_end && m.line_end <= lines,
                "method {} lines",
                m.name
            );
            for call in &m.calls {
                assert!(
                    call.line >= 1 && call.line <= lines,
                    "call {} at line {}",
                    call.name,
                    call.line
                );
                assert!(call.byte <= source.len(), "call byte offset past the end");
                assert!(
                    call.arg_texts.iter().all(|a| a.len() <= 4096),
                    "argument texts are capped"
                );
                for v in &call.arg_values {
                    let _ = crate::frameworks::values::eval(v, &Empty, 0);
                }
            }
            for (_, _, e) in &m.local_inits {
                let _ = crate::frameworks::values::eval(e, &Empty, 0);
            }
            for (_, s) in &m.strings {
                let _ = sql::sql_touches(s);
                let _ = sql::jpql_touches(s);
            }
        }
        for (_, e) in &t.field_inits {
            let _ = crate::frameworks::values::eval(e, &Empty, 0);
        }
    }
    let table = SymbolTable::build([&file]);
    let calls = crate::resolve::resolve_calls(&file, &table);
    let sites: usize = file
        .types
        .iter()
        .flat_map(|t| &t.methods)
        .map(|m| m.calls.len())
        .sum();
    assert!(
        calls.len() <= sites,
        "{} resolved calls from {sites} call sites",
        calls.len()
    );
}

/// The SQL front-end on one file: the first byte picks the dialect. Statements come out in
/// file order with lines inside the file; where the hand-written fast path answers, it must
/// answer exactly what sqlparser answers; the whole file then parses and replays into a
/// schema without panicking.
pub fn sql(data: &[u8]) {
    let (dialect, rest) = match data.split_first() {
        Some((b, rest)) => (
            [
                SqlDialect::Postgres,
                SqlDialect::MySql,
                SqlDialect::H2,
                SqlDialect::Generic,
            ][usize::from(*b % 4)],
            rest,
        ),
        None => (SqlDialect::Generic, data),
    };
    let source = text(rest);
    let lines = u32::try_from(line_count(&source)).unwrap_or(u32::MAX);
    let statements = sql::split_statements(&source, dialect);
    let mut last = 0;
    for s in &statements {
        assert!(
            s.line >= last && s.line >= 1 && s.line <= lines,
            "statement line {} after {last}",
            s.line
        );
        assert!(!s.text.trim().is_empty(), "an empty statement at line {}", s.line);
        last = s.line;
        differential(s, dialect);
    }
    let file = sql::parse_schema_file("fuzz.sql", &source, dialect);
    for w in &file.warnings {
        assert!(w.line >= 1 && w.line <= lines, "warning line {}", w.line);
    }
    let mut schema = sql::Schema::default();
    schema.apply(&file);
    let _ = schema.tables();
    let _ = schema.triggers();
}

fn differential(statement: &Statement, dialect: SqlDialect) {
    if let Some((fast, slow)) = sql::both_paths(statement, dialect) {
        assert_eq!(
            Ok(fast),
            slow,
            "the fast path and sqlparser disagree ({dialect:?}):\n{}",
            statement.text
        );
    }
}

/// The config front-end on one file: the first byte picks the syntax (properties, YAML,
/// `.env`). Entries stay under the per-file cap with lines inside the file, and every value
/// resolves against the file's own keys (placeholders, cycles and all) to a bounded text.
pub fn config(data: &[u8]) {
    let (name, rest) = match data.split_first() {
        Some((b, rest)) => (
            ["application.properties", "application.yml", ".env"][usize::from(*b % 3)],
            rest,
        ),
        None => ("application.properties", data),
    };
    let source = text(rest);
    let lines = u32::try_from(line_count(&source)).unwrap_or(u32::MAX);
    let file = config::parse_config_file(name, &source);
    let kind = match name {
        "application.yml" => ConfigKind::Yaml,
        ".env" => ConfigKind::Env,
        _ => ConfigKind::Properties,
    };
    assert_eq!(file.kind, kind);
    assert!(
        file.entries.len() <= MAX_ENTRIES_PER_FILE,
        "{} entries",
        file.entries.len()
    );
    for e in &file.entries {
        assert!(e.line <= lines, "entry {} at line {} of {lines}", e.key, e.line);
    }
    for w in &file.warnings {
        assert!(w.line <= lines, "warning at line {} of {lines}", w.line);
    }
    let lookup = |key: &str| {
        file.entries
            .iter()
            .rev()
            .find(|e| e.key == key)
            .map(|e| e.value.clone())
    };
    for e in file.entries.iter().take(256) {
        let resolved = config::resolve_placeholders(&e.value, lookup);
        assert!(
            resolved.text.len() <= config::MAX_RESOLVED_BYTES + e.value.len(),
            "{} resolved to {} bytes",
            e.key,
            resolved.text.len()
        );
    }
    let _ = config::application_name(std::slice::from_ref(&file));
}
