//! Views, triggers, routines and drops, read with the token scan.
//!
//! Their headers are simple but vary by dialect (`DEFINER = …`, `EXECUTE FUNCTION`, H2's
//! `CALL "class"`), and their bodies are PL/pgSQL or MySQL compound statements that sqlparser
//! does not parse; so the header is read token by token and the body is handed to
//! [`scan::touches`]. A view's query could be parsed, but reading it the same way keeps one
//! definition of "a table this SQL reads".

use super::scan::{self, qname_at, skip_parens, Kind, Tok};
use super::{
    AlterOp, ObjectKind, Routine, RoutineKind, SchemaStatement, SqlDialect, Statement, Trigger, TriggerEvent,
    TriggerTiming, View,
};

/// The index of the first unquoted word among `kws` at or after `from`.
fn find_word(toks: &[Tok<'_>], from: usize, kws: &[&str]) -> Option<usize> {
    (from..toks.len()).find(|&i| kws.iter().any(|k| toks[i].is(k)))
}

/// Skips `IF [NOT] EXISTS` at `i`.
fn skip_if_exists(toks: &[Tok<'_>], mut i: usize) -> usize {
    if toks.get(i).is_some_and(|t| t.is("if")) {
        i += 1;
        if toks.get(i).is_some_and(|t| t.is("not")) {
            i += 1;
        }
        if toks.get(i).is_some_and(|t| t.is("exists")) {
            i += 1;
        }
    }
    i
}

/// The text from byte `from` to the end, trimmed.
fn rest(text: &str, from: usize) -> String {
    text.get(from..).unwrap_or_default().trim().to_owned()
}

/// `CREATE VIEW name [(cols)] [WITH (…)] AS query`.
pub(super) fn view(statement: &Statement, dialect: SqlDialect) -> Result<SchemaStatement, String> {
    let text = statement.text.as_str();
    let mysql = dialect == SqlDialect::MySql;
    let toks = scan::tokenize(text, mysql);
    let at = find_word(&toks, 0, &["view"]).ok_or("CREATE VIEW without VIEW")?;
    let i = skip_if_exists(&toks, at + 1);
    let (name, mut i) = qname_at(&toks, i).ok_or("CREATE VIEW without a view name")?;
    if toks.get(i).is_some_and(|t| t.is_punct(b'(')) {
        i = skip_parens(&toks, i);
    }
    if toks.get(i).is_some_and(|t| t.is("with")) && toks.get(i + 1).is_some_and(|t| t.is_punct(b'(')) {
        i = skip_parens(&toks, i + 1);
    }
    let as_tok = toks
        .get(i)
        .filter(|t| t.is("as"))
        .ok_or("CREATE VIEW without AS")?;
    let body = rest(text, as_tok.end);
    let mut reads: Vec<String> = Vec::new();
    for (table, _) in scan::touches(&body, mysql) {
        if !reads.iter().any(|r| r.eq_ignore_ascii_case(&table)) {
            reads.push(table);
        }
    }
    Ok(SchemaStatement::CreateView(View {
        name: name.name().to_owned(),
        reads,
        body,
        line: statement.line,
    }))
}

/// `CREATE TRIGGER name timing events ON table … (EXECUTE FUNCTION f() | CALL "c" | body)`.
pub(super) fn trigger(statement: &Statement, dialect: SqlDialect) -> Result<SchemaStatement, String> {
    let text = statement.text.as_str();
    let mysql = dialect == SqlDialect::MySql;
    let toks = scan::tokenize(text, mysql);
    let at = find_word(&toks, 0, &["trigger"]).ok_or("CREATE TRIGGER without TRIGGER")?;
    let i = skip_if_exists(&toks, at + 1);
    let (name, mut i) = qname_at(&toks, i).ok_or("CREATE TRIGGER without a trigger name")?;
    let timing = match toks.get(i) {
        Some(t) if t.is("before") => TriggerTiming::Before,
        Some(t) if t.is("after") => TriggerTiming::After,
        Some(t) if t.is("instead") && toks.get(i + 1).is_some_and(|t| t.is("of")) => {
            i += 1;
            TriggerTiming::InsteadOf
        }
        _ => {
            return Err(format!(
                "trigger `{}`: expected BEFORE, AFTER or INSTEAD OF",
                name.name()
            ))
        }
    };
    i += 1;
    let mut events = Vec::new();
    while let Some(t) = toks.get(i) {
        let event = if t.is("insert") {
            TriggerEvent::Insert
        } else if t.is("update") {
            TriggerEvent::Update
        } else if t.is("delete") {
            TriggerEvent::Delete
        } else if t.is("truncate") {
            TriggerEvent::Truncate
        } else if t.is("or") || t.is_punct(b',') {
            i += 1;
            continue;
        } else if t.is("of") {
            // `UPDATE OF col, col`: the column list runs to ON.
            i = find_word(&toks, i, &["on"]).unwrap_or(toks.len());
            continue;
        } else {
            break;
        };
        events.push(event);
        i += 1;
    }
    if events.is_empty() {
        return Err(format!(
            "trigger `{}`: no INSERT, UPDATE or DELETE event",
            name.name()
        ));
    }
    if !toks.get(i).is_some_and(|t| t.is("on")) {
        return Err(format!("trigger `{}`: expected ON table", name.name()));
    }
    let (table, mut i) = qname_at(&toks, i + 1).ok_or("CREATE TRIGGER without a table")?;
    let mut body_start = toks.get(i).map_or(text.len(), |t| t.start);
    if let Some(each) = find_word(&toks, i, &["each"]) {
        i = each + 2;
        if toks.get(i).is_some_and(|t| t.is("when")) && toks.get(i + 1).is_some_and(|t| t.is_punct(b'(')) {
            i = skip_parens(&toks, i + 1);
        }
        if toks.get(i).is_some_and(|t| t.is("follows") || t.is("precedes")) {
            i = qname_at(&toks, i + 1).map_or(i + 1, |(_, j)| j);
        }
        body_start = toks.get(i).map_or(text.len(), |t| t.start);
    }
    let mut function = None;
    if let Some(exec) = find_word(&toks, i, &["execute", "call"]) {
        let target = if toks[exec].is("execute") {
            exec + 2
        } else {
            exec + 1
        };
        function = match toks.get(target) {
            Some(t) if t.kind == Kind::Str => Some(t.text.to_owned()),
            _ => qname_at(&toks, target).map(|(n, _)| n.name().to_owned()),
        };
    }
    let body = rest(text, body_start);
    let touches = scan::touches(&body, mysql);
    Ok(SchemaStatement::CreateTrigger(Trigger {
        name: name.name().to_owned(),
        table: table.name().to_owned(),
        timing,
        events,
        function,
        touches,
        body,
        line: statement.line,
    }))
}

/// `CREATE [OR REPLACE] FUNCTION|PROCEDURE name (params) … body`.
pub(super) fn routine(statement: &Statement, dialect: SqlDialect) -> Result<SchemaStatement, String> {
    let text = statement.text.as_str();
    let mysql = dialect == SqlDialect::MySql;
    let toks = scan::tokenize(text, mysql);
    let at = find_word(&toks, 0, &["function", "procedure"]).ok_or("CREATE without FUNCTION")?;
    let kind = if toks[at].is("function") {
        RoutineKind::Function
    } else {
        RoutineKind::Procedure
    };
    let i = skip_if_exists(&toks, at + 1);
    let (name, mut i) = qname_at(&toks, i).ok_or("CREATE FUNCTION without a name")?;
    if toks.get(i).is_some_and(|t| t.is_punct(b'(')) {
        i = skip_parens(&toks, i);
    }
    let language = find_word(&toks, i, &["language"])
        .and_then(|l| toks.get(l + 1))
        .map(|t| t.text.to_ascii_lowercase());
    let dollar = toks[i..].iter().find(|t| t.kind == Kind::Dollar);
    let quoted = find_word(&toks, i, &["as"])
        .and_then(|a| toks.get(a + 1))
        .filter(|t| t.kind == Kind::Str);
    let body = if let Some(d) = dollar {
        d.text.trim().to_owned()
    } else if let Some(q) = quoted {
        q.text.replace("''", "'").trim().to_owned()
    } else if let Some(b) = find_word(&toks, i, &["begin"]) {
        rest(text, toks[b].start)
    } else {
        // A single-statement MySQL body or `RETURN expr`: everything after the parameters.
        rest(text, toks.get(i).map_or(text.len(), |t| t.start))
    };
    let is_sql = language
        .as_deref()
        .is_none_or(|l| matches!(l, "sql" | "plpgsql" | "plsql"));
    let touches = if is_sql {
        scan::touches(&body, mysql)
    } else {
        Vec::new()
    };
    Ok(SchemaStatement::CreateRoutine(Routine {
        name: name.name().to_owned(),
        kind,
        touches,
        body,
        line: statement.line,
    }))
}

/// `DROP [TEMPORARY] TABLE|VIEW|INDEX|TRIGGER|FUNCTION|PROCEDURE [IF EXISTS] names`.
pub(super) fn drop(statement: &Statement) -> Result<Vec<SchemaStatement>, String> {
    let toks = scan::tokenize(&statement.text, false);
    let Some(at) = find_word(
        &toks,
        1,
        &["table", "view", "index", "trigger", "function", "procedure"],
    ) else {
        // DROP SEQUENCE, DROP SCHEMA, …: nothing this module tracks.
        return Ok(Vec::new());
    };
    let kind = match toks[at].text.to_ascii_lowercase().as_str() {
        "table" => ObjectKind::Table,
        "view" => ObjectKind::View,
        "index" => ObjectKind::Index,
        "trigger" => ObjectKind::Trigger,
        _ => ObjectKind::Routine,
    };
    let mut i = at + 1;
    if toks.get(i).is_some_and(|t| t.is("concurrently")) {
        i += 1;
    }
    i = skip_if_exists(&toks, i);
    let mut names = Vec::new();
    while let Some((name, j)) = qname_at(&toks, i) {
        names.push(name.name().to_owned());
        i = j;
        if toks.get(i).is_some_and(|t| t.is_punct(b'(')) {
            i = skip_parens(&toks, i);
        }
        if !toks.get(i).is_some_and(|t| t.is_punct(b',')) {
            break;
        }
        i += 1;
    }
    if names.is_empty() {
        return Err("DROP without a name".to_owned());
    }
    // PostgreSQL names the table of a trigger (`DROP TRIGGER t ON orders`): trigger names
    // are unique per table there.
    let on = if kind == ObjectKind::Trigger && toks.get(i).is_some_and(|t| t.is("on")) {
        qname_at(&toks, i + 1).map(|(table, _)| table.name().to_owned())
    } else {
        None
    };
    Ok(vec![SchemaStatement::Drop { kind, names, on }])
}

/// MySQL `RENAME TABLE a TO b [, c TO d]`.
pub(super) fn rename_table(statement: &Statement) -> Result<Vec<SchemaStatement>, String> {
    let toks = scan::tokenize(&statement.text, true);
    let mut out = Vec::new();
    let mut i = 2;
    while let Some((from, j)) = qname_at(&toks, i) {
        if !toks.get(j).is_some_and(|t| t.is("to")) {
            break;
        }
        let Some((to, k)) = qname_at(&toks, j + 1) else {
            break;
        };
        out.push(SchemaStatement::AlterTable {
            table: from.name().to_owned(),
            ops: vec![AlterOp::RenameTable(to.name().to_owned())],
        });
        i = k;
        if !toks.get(i).is_some_and(|t| t.is_punct(b',')) {
            break;
        }
        i += 1;
    }
    if out.is_empty() {
        return Err("RENAME TABLE without `a TO b`".to_owned());
    }
    Ok(out)
}
