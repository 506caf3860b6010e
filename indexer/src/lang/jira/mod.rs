//! Jira front-end: the JSON of Jira's search API → issues, plus the search-term tokenizer.
//!
//! Tickets tell the graph which code has been in trouble and why, so we keep what queries
//! group and filter by (key, type, priority, status, components, labels, dates) and the
//! description as plain text. Exports come from many Jira versions and hand-made scripts, so
//! every field is optional and read leniently: a field of an unexpected shape is dropped,
//! an issue that cannot be read at all is a warning, and the other issues still count.
//! Descriptions are either Jira wiki markup (API v2, kept as written) or Atlassian Document
//! Format JSON (API v3), flattened here to text.
//!
//! [`terms`] lives here because Jira is its heaviest user; wiki search uses the same one so
//! a query matches pages and tickets alike.

mod terms;

#[cfg(test)]
mod tests;

use serde::Deserialize;
use serde_json::Value;

use crate::lang::wiki::{mention_candidates, MentionCandidate};

/// All issues of one export file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct JiraExport {
    pub(crate) issues: Vec<JiraIssue>,
    pub(crate) warnings: Vec<JiraWarning>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct JiraIssue {
    pub(crate) key: String,
    pub(crate) issue_type: String,
    pub(crate) priority: String,
    pub(crate) status: String,
    pub(crate) resolution: Option<String>,
    pub(crate) components: Vec<String>,
    pub(crate) labels: Vec<String>,
    /// Timestamps as Jira writes them (`2026-01-12T09:15:00.000+0000`).
    pub(crate) created: Option<String>,
    pub(crate) resolved: Option<String>,
    pub(crate) updated: Option<String>,
    pub(crate) summary: String,
    /// Plain text: wiki markup as written, ADF flattened.
    pub(crate) description: String,
    pub(crate) assignee: Option<String>,
    pub(crate) reporter: Option<String>,
    /// Candidates from the summary and description, for the pipeline to resolve.
    pub(crate) mentions: Vec<MentionCandidate>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct JiraWarning {
    /// Index of the issue in the export, `None` for the file as a whole.
    pub(crate) issue: Option<usize>,
    pub(crate) message: String,
}

/// Lower-case search terms of `text` for the term index (wiki and Jira alike): words of at
/// least two characters, identifiers whole and split at camelCase humps and underscores,
/// stop words left out; in text order, with repeats.
pub(crate) fn terms(text: &str) -> Vec<String> {
    terms::split(text)
}

/// Nesting of ADF nodes beyond which content is dropped; serde_json already refuses input
/// nested deeper than 128, this only keeps the flattening honest about its own stack.
const MAX_ADF_DEPTH: usize = 128;

/// Parses a search-API response (`{"issues": [...]}`), a bare array of issues, or a single
/// issue. Never fails: problems are reported in `warnings`.
pub(crate) fn parse_jira_export(path: &str, text: &str) -> JiraExport {
    let mut export = JiraExport::default();
    let root: Value = match serde_json::from_str(text) {
        Ok(root) => root,
        Err(e) => {
            export.warnings.push(JiraWarning {
                issue: None,
                message: format!("{path}: not valid JSON: {e}"),
            });
            return export;
        }
    };
    let raw_issues = match root {
        Value::Array(items) => items,
        Value::Object(mut object) => match object.remove("issues") {
            Some(Value::Array(items)) => items,
            Some(_) => {
                export.warnings.push(JiraWarning {
                    issue: None,
                    message: format!("{path}: `issues` is not an array"),
                });
                return export;
            }
            None if object.contains_key("key") => vec![Value::Object(object)],
            None => {
                export.warnings.push(JiraWarning {
                    issue: None,
                    message: format!("{path}: no `issues` array"),
                });
                return export;
            }
        },
        _ => {
            export.warnings.push(JiraWarning {
                issue: None,
                message: format!("{path}: expected an object or an array of issues"),
            });
            return export;
        }
    };
    export.issues.reserve(raw_issues.len());
    for (index, raw) in raw_issues.into_iter().enumerate() {
        match read_issue(raw) {
            Ok(issue) => export.issues.push(issue),
            Err(message) => export.warnings.push(JiraWarning {
                issue: Some(index),
                message,
            }),
        }
    }
    export
}

/// The wire shape, as lenient as serde allows: every field optional, and the fields whose
/// shape varies between Jira versions kept as raw JSON and read by hand.
#[derive(Deserialize)]
struct RawIssue {
    key: Option<String>,
    /// `null` in some exports of issues without visible fields.
    #[serde(default)]
    fields: Option<RawFields>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RawFields {
    summary: Value,
    description: Value,
    issuetype: Value,
    priority: Value,
    status: Value,
    resolution: Value,
    components: Value,
    labels: Value,
    created: Value,
    resolutiondate: Value,
    updated: Value,
    assignee: Value,
    reporter: Value,
}

fn read_issue(raw: Value) -> Result<JiraIssue, String> {
    let raw: RawIssue = serde_json::from_value(raw).map_err(|e| format!("unreadable issue: {e}"))?;
    let key = raw
        .key
        .filter(|key| !key.trim().is_empty())
        .ok_or_else(|| "issue without a key".to_owned())?;
    let f = raw.fields.unwrap_or_default();
    let summary = text_of(&f.summary).unwrap_or_default();
    let description = match &f.description {
        Value::String(text) => text.clone(),
        adf @ Value::Object(_) => {
            let mut out = String::new();
            flatten_adf(adf, 0, &mut out);
            out.trim().to_owned()
        }
        _ => String::new(),
    };
    let mentions = jira_mentions(&summary, &description);
    Ok(JiraIssue {
        key,
        issue_type: name_of(&f.issuetype).unwrap_or_default(),
        priority: name_of(&f.priority).unwrap_or_default(),
        status: name_of(&f.status).unwrap_or_default(),
        resolution: name_of(&f.resolution),
        components: list_of(&f.components),
        labels: list_of(&f.labels),
        created: text_of(&f.created),
        resolved: text_of(&f.resolutiondate),
        updated: text_of(&f.updated),
        summary,
        description,
        assignee: person_of(&f.assignee),
        reporter: person_of(&f.reporter),
        mentions,
    })
}

fn text_of(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// `{"name": "High"}` as Jira writes it, or a bare string as simplified exports do.
fn name_of(value: &Value) -> Option<String> {
    match value {
        Value::Object(object) => ["name", "value"]
            .iter()
            .find_map(|field| object.get(*field).and_then(text_of)),
        other => text_of(other),
    }
}

fn person_of(value: &Value) -> Option<String> {
    match value {
        Value::Object(object) => ["displayName", "name", "emailAddress"]
            .iter()
            .find_map(|field| object.get(*field).and_then(text_of)),
        other => text_of(other),
    }
}

fn list_of(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items.iter().filter_map(name_of).collect(),
        _ => Vec::new(),
    }
}

/// Appends the text of an ADF node: text nodes as written, block nodes on their own lines.
fn flatten_adf(node: &Value, depth: usize, out: &mut String) {
    if depth > MAX_ADF_DEPTH {
        return;
    }
    let Value::Object(object) = node else {
        return;
    };
    let kind = object.get("type").and_then(Value::as_str).unwrap_or("");
    let attr = |name: &str| {
        object
            .get("attrs")
            .and_then(|attrs| attrs.get(name))
            .and_then(Value::as_str)
    };
    match kind {
        "text" => {
            if let Some(text) = object.get("text").and_then(Value::as_str) {
                out.push_str(text);
            }
        }
        "hardBreak" => out.push('\n'),
        "mention" => out.push_str(attr("text").unwrap_or("")),
        "emoji" => out.push_str(attr("text").or_else(|| attr("shortName")).unwrap_or("")),
        "inlineCard" | "blockCard" => out.push_str(attr("url").unwrap_or("")),
        _ => {}
    }
    if let Some(Value::Array(children)) = object.get("content") {
        for child in children {
            flatten_adf(child, depth + 1, out);
        }
    }
    let is_block = matches!(
        kind,
        "paragraph"
            | "heading"
            | "codeBlock"
            | "blockquote"
            | "listItem"
            | "tableRow"
            | "rule"
            | "panel"
            | "mediaGroup"
    );
    if kind == "tableCell" || kind == "tableHeader" {
        out.push(' ');
    } else if is_block && !out.ends_with('\n') {
        out.push('\n');
    }
}

/// Mentions of a ticket: `{{monospace}}` and `` `code` `` spans are code, the rest prose.
fn jira_mentions(summary: &str, description: &str) -> Vec<MentionCandidate> {
    let mut spans = Vec::new();
    let mut prose = String::with_capacity(summary.len() + description.len() + 1);
    prose.push_str(summary);
    prose.push('\n');
    let mut rest = description;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start + 2..].find("}}") else {
            break;
        };
        prose.push_str(&rest[..start]);
        prose.push(' ');
        spans.push(rest[start + 2..start + 2 + len].to_owned());
        rest = &rest[start + 2 + len + 2..];
    }
    prose.push_str(rest);
    mention_candidates(&spans, &prose)
}

/// The products an issue is about, its home product first: the products its components
/// and labels name (in the issue's order), else the products its text names.
///
/// `products` are the company's products in config order, each with its service names.
pub(crate) fn issue_products(issue: &JiraIssue, products: &[(String, Vec<String>)]) -> Vec<String> {
    let mut about: Vec<String> = Vec::new();
    for tag in issue.components.iter().chain(&issue.labels) {
        for (name, services) in products {
            let named =
                name.eq_ignore_ascii_case(tag) || services.iter().any(|s| s.eq_ignore_ascii_case(tag));
            if named && !about.contains(name) {
                about.push(name.clone());
            }
        }
    }
    if !about.is_empty() {
        return about;
    }
    let text = format!("{} {}", issue.summary, issue.description).to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '-').collect();
    for word in words {
        if let Some((name, _)) = products.iter().find(|(name, _)| name.to_lowercase() == word) {
            if !about.contains(name) {
                about.push(name.clone());
            }
        }
    }
    about
}
