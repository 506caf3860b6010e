//! Formatted-SQL changelogs: a `.sql` file whose first line is `--liquibase formatted sql`,
//! cut into changesets at each `--changeset author:id [attribute:value …]` line. Each
//! changeset's text is read by the SQL front-end when it is applied (its placeholders
//! expanded first; its dialect from the changeset's `dbms`, else from the file), with the
//! changelog's line numbers. `--rollback` lines are SQL
//! comments to the front-end, so a rollback is never applied; `--property`, `--include`
//! and `--includeAll` lines are read as the XML elements of the same names.

use super::{Body, ChangeSet, ChangeSetHeader, Changelog, Entry, Format, Property};
use crate::lang::sql::{self, SqlDialect, SqlWarning};

/// Whether `text` starts (after blank lines) with `--liquibase formatted sql`.
pub(crate) fn is_formatted_sql(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .is_some_and(|first| {
            let Some(rest) = first.strip_prefix("--") else {
                return false;
            };
            let words: Vec<String> = rest.split_whitespace().map(str::to_ascii_lowercase).collect();
            words.len() >= 3 && words[0] == "liquibase" && words[1] == "formatted" && words[2] == "sql"
        })
}

/// The `key:value` attributes of a header line after its keyword; values may be quoted.
fn attributes(rest: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for word in split_words(rest) {
        if let Some((k, v)) = word.split_once(':') {
            out.push((k.to_owned(), unquote(v)));
        }
    }
    out
}

/// Words split at whitespace outside double quotes.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                current.push(c);
            }
            c if c.is_whitespace() && !quoted => {
                if !current.is_empty() {
                    words.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn unquote(v: &str) -> String {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
        .to_owned()
}

/// `author:id` (either may be quoted); the id is after the last colon outside quotes.
fn author_and_id(word: &str) -> Option<(String, String)> {
    let mut quoted = false;
    let mut split = None;
    for (i, c) in word.char_indices() {
        match c {
            '"' => quoted = !quoted,
            ':' if !quoted => split = Some(i),
            _ => {}
        }
    }
    let i = split?;
    let (author, id) = (unquote(&word[..i]), unquote(&word[i + 1..]));
    (!author.is_empty() && !id.is_empty()).then_some((author, id))
}

/// The SQL dialect a `dbms` filter names, when it names exactly one family.
pub(crate) fn dialect_of_dbms(dbms: Option<&str>) -> Option<SqlDialect> {
    let dbms = dbms?.to_ascii_lowercase();
    let mut found = None;
    for name in dbms
        .split(',')
        .map(str::trim)
        .filter(|d| !d.is_empty() && !d.starts_with('!'))
    {
        let dialect = match name {
            "postgresql" | "postgres" => SqlDialect::Postgres,
            "mysql" | "mariadb" => SqlDialect::MySql,
            "h2" | "hsqldb" => SqlDialect::H2,
            _ => SqlDialect::Generic,
        };
        if found.is_some_and(|f| f != dialect) {
            return None;
        }
        found = Some(dialect);
    }
    found
}

struct Pending {
    header: ChangeSetHeader,
    /// 0-based index of the first body line.
    from: usize,
}

/// Reads a formatted-SQL changelog.
pub(super) fn parse(path: &str, text: &str) -> Changelog {
    let mut log = Changelog {
        format: Format::FormattedSql,
        properties: Vec::new(),
        entries: Vec::new(),
        warnings: Vec::new(),
    };
    let file_dialect = sql::detect_dialect(path, text);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut pending: Option<Pending> = None;
    let finish = |log: &mut Changelog, p: Pending, to: usize| {
        let body: String = lines.get(p.from..to).unwrap_or_default().concat();
        let dialect = dialect_of_dbms(p.header.dbms.as_deref()).unwrap_or(file_dialect);
        let header_line = p.header.line as usize;
        let source = lines
            .get(header_line.saturating_sub(1)..to)
            .unwrap_or_default()
            .concat();
        log.entries.push(Entry::ChangeSet(ChangeSet {
            header: p.header,
            body: Body::Sql {
                text: body,
                dialect,
                offset: u32::try_from(p.from).unwrap_or(u32::MAX),
            },
            source,
        }));
    };
    for (i, raw) in lines.iter().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = raw.trim();
        let Some(comment) = line.strip_prefix("--") else {
            continue;
        };
        let comment = comment.trim_start();
        let (keyword, rest) = comment.split_once(char::is_whitespace).unwrap_or((comment, ""));
        match keyword.to_ascii_lowercase().as_str() {
            "changeset" => {
                if let Some(p) = pending.take() {
                    finish(&mut log, p, i);
                }
                let words = split_words(rest);
                let Some((author, id)) = words.first().and_then(|w| author_and_id(w)) else {
                    log.warnings.push(SqlWarning {
                        line: line_no,
                        message: "--changeset without `author:id`, its statements skipped".to_owned(),
                    });
                    continue;
                };
                let attrs = attributes(&words[1..].join(" "));
                let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
                pending = Some(Pending {
                    header: ChangeSetHeader {
                        id,
                        author,
                        dbms: get("dbms"),
                        context: get("context").or_else(|| get("contextFilter")),
                        labels: get("labels"),
                        line: line_no,
                    },
                    from: i + 1,
                });
            }
            "property" => {
                let attrs = attributes(rest);
                let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
                if let (Some(name), Some(value)) = (get("name"), get("value")) {
                    log.properties.push(Property {
                        name,
                        value,
                        dbms: get("dbms"),
                        context: get("context"),
                    });
                }
            }
            "include" | "includeall" => {
                let attrs = attributes(rest);
                let get = |k: &str| attrs.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
                let relative = get("relativeToChangelogFile").is_some_and(|v| v.eq_ignore_ascii_case("true"));
                if keyword.eq_ignore_ascii_case("include") {
                    if let Some(file) = get("file") {
                        log.entries.push(Entry::Include {
                            file,
                            relative,
                            line: line_no,
                        });
                    }
                } else if let Some(path) = get("path") {
                    log.entries.push(Entry::IncludeAll {
                        path,
                        relative,
                        line: line_no,
                    });
                }
            }
            _ => {}
        }
    }
    if let Some(p) = pending.take() {
        finish(&mut log, p, lines.len());
    }
    log
}

/// A plain `.sql` file a changelog includes: Liquibase runs it whole as one changeset
/// (`raw`, by `includeAll`).
pub(crate) fn raw_changeset(path: &str, text: &str) -> ChangeSet {
    ChangeSet {
        header: ChangeSetHeader {
            id: "raw".to_owned(),
            author: "includeAll".to_owned(),
            dbms: None,
            context: None,
            labels: None,
            line: 1,
        },
        body: Body::Sql {
            text: text.to_owned(),
            dialect: sql::detect_dialect(path, text),
            offset: 0,
        },
        source: text.to_owned(),
    }
}
