//! The warnings of an index run, summarised for the person who started it.
//!
//! A run over real repositories warns by the hundred (an unresolved call per file, a
//! statement sqlparser cannot read, …), and a list of them all buries the line a person
//! came for. So `semgraph index` and `semgraph up` print, per product, one row per
//! *reason* — the warning's message with its particulars (names, paths, numbers, the
//! detail after `, first:` or `;`) taken out — with how many, in how many files, and the
//! files with the most; the full list goes to a file the summary names
//! ([`WARNINGS_FILE`] in the store) and, with `--verbose`, to the screen. The reason is
//! derived here from what an index run reports (file, line, message): the indexer's
//! messages stay sentences for a person, and nothing in them is a code to parse.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::run_summary::{RunSummary, SummaryWarning as Warning};

/// The file, inside the store directory, that holds every warning of the last index run.
pub const WARNINGS_FILE: &str = "last-index-warnings.txt";

/// Most files named in a row of the summary.
const TOP_FILES: usize = 3;

/// The warnings of one reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReasonGroup {
    /// The message with its particulars taken out, e.g. `call(s) not resolved`.
    pub reason: String,
    /// How many: the sum of the counts the messages start with ("12 call(s) …"), else one
    /// per warning.
    pub count: u64,
    /// Files with a warning of this reason, the most first: (file, count).
    pub files: Vec<(String, u64)>,
}

/// Words after which a message names a thing: the name is a particular, not the reason.
const NAMING_WORDS: &[&str] = &[
    "topic",
    "queue",
    "key",
    "table",
    "index",
    "class",
    "column",
    "view",
    "trigger",
    "routine",
    "entity",
    "type",
    "property",
    "placeholder",
    "bean",
    "servlet",
];

const VERBS: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// Whether a word of a message is a particular (a name, a path, a number, a quote).
fn is_particular(word: &str) -> bool {
    // Plural suffixes are words, not syntax: `call(s)`, `access(es)`.
    let bare = word.replace("(s)", "").replace("(es)", "");
    let bare = bare.trim_end_matches([',', '.', ';', ':', '?', '!']);
    if bare.is_empty() {
        return false;
    }
    VERBS.contains(&bare)
        || bare.chars().any(|c| {
            c.is_ascii_digit()
                || matches!(
                    c,
                    '.' | '/'
                        | '\\'
                        | '{'
                        | '}'
                        | '('
                        | ')'
                        | '<'
                        | '>'
                        | '['
                        | ']'
                        | '_'
                        | '$'
                        | '@'
                        | '#'
                        | '='
                        | ':'
                        | '`'
                        | '\''
                        | '"'
                )
        })
}

/// The reason of a warning and how many things it counts: `12 call(s) not resolved, first:
/// …` is (`call(s) not resolved`, 12); `skipped: 52.3 MB is over …` is (`skipped: … MB is
/// over …`, 1).
pub fn reason_of(w: &Warning) -> (String, u64) {
    let mut message = w.message.trim();
    if let Some(rest) = message.strip_prefix(&format!("{}: ", w.file)) {
        message = rest;
    }
    let mut count = 1;
    if let Some((first, rest)) = message.split_once(' ') {
        if let Ok(n) = first.parse::<u64>() {
            count = n;
            message = rest;
        }
    }
    for cut in [", first: ", "; "] {
        if let Some(at) = message.find(cut) {
            message = &message[..at];
        }
    }
    // "a: b: detail" keeps "a: b": the detail after the second colon is particular.
    let kept: Vec<&str> = message.splitn(3, ": ").take(2).collect();
    let mut words: Vec<String> = Vec::new();
    let mut after_naming = false;
    for segment in kept.join(": ").split(' ') {
        let word = if after_naming || is_particular(segment) {
            let tail = if segment.ends_with(':') { ":" } else { "" };
            format!("…{tail}")
        } else {
            segment.to_string()
        };
        after_naming = NAMING_WORDS.contains(&segment.to_lowercase().as_str());
        // One ellipsis for a run of particulars.
        if word.starts_with('…') && words.last().is_some_and(|w| w == "…") {
            words.pop();
        }
        words.push(word);
    }
    let reason = words.join(" ").trim().to_string();
    let reason = if reason.is_empty() {
        "(no message)".to_string()
    } else {
        reason
    };
    (reason, count)
}

/// The warnings grouped by reason, the largest group first.
pub fn group(warnings: &[Warning]) -> Vec<ReasonGroup> {
    let mut by_reason: BTreeMap<String, (u64, BTreeMap<String, u64>)> = BTreeMap::new();
    for w in warnings {
        let (reason, count) = reason_of(w);
        let entry = by_reason.entry(reason).or_default();
        entry.0 += count;
        *entry.1.entry(w.file.clone()).or_default() += count;
    }
    let mut groups: Vec<ReasonGroup> = by_reason
        .into_iter()
        .map(|(reason, (count, files))| {
            let mut files: Vec<(String, u64)> = files.into_iter().collect();
            files.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            ReasonGroup { reason, count, files }
        })
        .collect();
    groups.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    groups
}

/// Where the full list of a store's last index run is written.
pub fn warnings_file(store: &Path) -> PathBuf {
    store.join(WARNINGS_FILE)
}

/// One warning as the full list writes it: `file:line: message`.
fn line_of(w: &Warning) -> String {
    match w.line {
        Some(line) => format!("{}:{line}: {}", w.file, w.message),
        None => format!("{}: {}", w.file, w.message),
    }
}

/// Every warning of `reports`, per product.
pub fn render_full(reports: &[RunSummary]) -> String {
    let mut out = String::new();
    for r in reports {
        let _ = writeln!(out, "# {} ({} warning(s))", r.product, r.warnings.len());
        for w in &r.warnings {
            let _ = writeln!(out, "{}", line_of(w));
        }
        out.push('\n');
    }
    out
}

/// Writes [`render_full`] to [`warnings_file`] of `store`, replacing the last run's.
pub fn write_full(store: &Path, reports: &[RunSummary]) -> std::io::Result<PathBuf> {
    let path = warnings_file(store);
    std::fs::write(&path, render_full(reports))?;
    Ok(path)
}

/// The summary of every product's warnings: one table per product with warnings, one row
/// per reason. `full_list` names where every warning is.
pub fn render_summary(reports: &[RunSummary], full_list: Option<&Path>) -> String {
    let mut out = String::new();
    let total: usize = reports.iter().map(|r| r.warnings.len()).sum();
    if total == 0 {
        let _ = writeln!(out, "No warnings.");
        return out;
    }
    let _ = write!(out, "{total} warning(s), by reason");
    match full_list {
        Some(p) => {
            let _ = writeln!(out, " (every one: {}, or run with --verbose):", p.display());
        }
        None => {
            let _ = writeln!(out, " (run with --verbose for every one):");
        }
    }
    for r in reports.iter().filter(|r| !r.warnings.is_empty()) {
        let groups = group(&r.warnings);
        let files: std::collections::BTreeSet<&str> = r.warnings.iter().map(|w| w.file.as_str()).collect();
        let _ = writeln!(
            out,
            "\n{}: {} warning(s) in {} file(s)\n",
            r.product,
            r.warnings.len(),
            files.len()
        );
        let _ = writeln!(out, "| reason | count | files | most in |");
        let _ = writeln!(out, "|---|---|---|---|");
        for g in &groups {
            let top: Vec<String> = g
                .files
                .iter()
                .take(TOP_FILES)
                .map(|(f, n)| format!("{f} ({n})"))
                .collect();
            let more = if g.files.len() > TOP_FILES { ", …" } else { "" };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {}{more} |",
                g.reason.replace('|', "\\|"),
                g.count,
                g.files.len(),
                top.join(", ").replace('|', "\\|")
            );
        }
    }
    out
}

/// Every warning, per product, as `--verbose` prints them.
pub fn render_verbose(reports: &[RunSummary]) -> String {
    let mut out = String::new();
    for r in reports.iter().filter(|r| !r.warnings.is_empty()) {
        let _ = writeln!(out, "\nWarnings for {} ({}):", r.product, r.warnings.len());
        for w in &r.warnings {
            let _ = writeln!(out, "- {}", line_of(w));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(file: &str, message: &str) -> Warning {
        Warning {
            file: file.into(),
            line: Some(3),
            message: message.into(),
        }
    }

    #[test]
    fn particulars_leave_the_reason_and_counts_add_up() {
        let cases = [
            (
                "A.java",
                "12 call(s) not resolved, first: no method `foo` on `Bar`",
                "call(s) not resolved",
                12,
            ),
            (
                "big.java",
                "skipped: 52.3 MB is over the 10 MB limit for a source file (generated?)",
                "skipped: … MB is over the … MB limit for a source file …",
                1,
            ),
            (
                "a.yml",
                "config key orders.tax.url is read without a default but set in no config file of its module",
                "config key … is read without a default but set in no config file of its module",
                1,
            ),
            (
                "L.java",
                "topic order-events could not be resolved from the configuration",
                "topic … could not be resolved from the configuration",
                1,
            ),
            (
                "C.java",
                "HTTP call GET http://x/{id}: the URL names no host the source fixes",
                "HTTP call …: the URL names no host the source fixes",
                1,
            ),
            (
                "jira/x.json",
                "jira/x.json: not valid JSON: expected value at line 1 column 1",
                "not valid JSON: expected value at line … column …",
                1,
            ),
            (
                "s.sql",
                "3 syntax error(s), first: Expected ), found: x; the rest of the file is indexed",
                "syntax error(s)",
                3,
            ),
        ];
        for (file, message, reason, count) in cases {
            assert_eq!(
                reason_of(&w(file, message)),
                (reason.to_string(), count),
                "{message}"
            );
        }
    }

    #[test]
    fn groups_are_by_reason_largest_first_with_their_files() {
        let warnings = vec![
            w("A.java", "2 call(s) not resolved, first: x"),
            w("B.java", "5 call(s) not resolved, first: y"),
            w("B.java", "1 call(s) not resolved, first: z"),
            w("s.sql", "index idx_a is on table t that no script creates"),
        ];
        let groups = group(&warnings);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].reason, "call(s) not resolved");
        assert_eq!(groups[0].count, 8);
        assert_eq!(
            groups[0].files,
            vec![("B.java".to_string(), 6), ("A.java".to_string(), 2)]
        );
        assert_eq!(groups[1].reason, "index … is on table … that no script creates");
        assert_eq!(groups[1].count, 1);
    }
}
