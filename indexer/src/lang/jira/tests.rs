//! Tests of the Jira front-end and the term tokenizer: the golden export under
//! `fixtures/jira/`, the ACME export checked against the "Jira" table of
//! `fixtures/acme/EXPECTED.md`, and malformed input.
//!
//! Golden files: `fixtures/jira/<file>.expected` holds the rendered parse of
//! `fixtures/jira/<file>`; `SEMGRAPH_BLESS=1` rewrites them.

use std::fmt::Write as _;

use super::*;
use crate::testing::{expected_rows, read};

fn render(export: &JiraExport) -> String {
    let mut out = String::new();
    for i in &export.issues {
        let _ = writeln!(
            out,
            "{} | {} | {} | {} | resolution {:?}",
            i.key, i.issue_type, i.priority, i.status, i.resolution
        );
        let _ = writeln!(out, "  components {:?} labels {:?}", i.components, i.labels);
        let _ = writeln!(
            out,
            "  created {:?} resolved {:?} updated {:?}",
            i.created, i.resolved, i.updated
        );
        let _ = writeln!(out, "  assignee {:?} reporter {:?}", i.assignee, i.reporter);
        let _ = writeln!(out, "  summary: {}", i.summary);
        for line in i.description.lines() {
            let _ = writeln!(out, "  | {line}");
        }
        for m in &i.mentions {
            let _ = writeln!(out, "  mention {m:?}");
        }
    }
    for w in &export.warnings {
        let _ = writeln!(out, "warning {:?}: {}", w.issue, w.message);
    }
    out
}

fn check_golden(file: &str) {
    let input = format!("fixtures/jira/{file}");
    let actual = render(&parse_jira_export(&input, &read(&input)));
    crate::testing::assert_golden(&input, &actual);
}

#[test]
fn search_response_golden_with_adf_and_malformed_issues() {
    check_golden("search-v3.json");
}

#[test]
fn bare_array_and_single_issue_are_accepted() {
    let array = parse_jira_export("a.json", r#"[{"key": "A-1"}, {"key": "A-2", "fields": null}]"#);
    let keys: Vec<&str> = array.issues.iter().map(|i| i.key.as_str()).collect();
    assert_eq!(keys, ["A-1", "A-2"]);
    let single = parse_jira_export("a.json", r#"{"key": "A-3", "fields": {}}"#);
    assert_eq!(single.issues.len(), 1);
    assert!(single.warnings.is_empty());
}

#[test]
fn unreadable_files_are_warnings() {
    let deep = "[".repeat(100_000);
    for input in [
        "",
        "not json",
        "42",
        r#"{"issues": 1}"#,
        r#"{"total": 0}"#,
        deep.as_str(),
    ] {
        let export = parse_jira_export("a.json", input);
        assert!(export.issues.is_empty(), "{input}");
        assert_eq!(export.warnings.len(), 1, "{input}");
    }
}

#[test]
fn terms_split_identifiers_and_drop_stop_words() {
    let cases = [
        ("The OrderService is slow", "orderservice order service slow"),
        (
            "order_status_history table",
            "order_status_history order status history table",
        ),
        ("HTTPClient v2 X", "httpclient http client v2"),
        ("ORD-101 DELETE /api/orders/{id}", "ord 101 delete api orders id"),
        ("placeOrder() and a b", "placeorder place order"),
        ("Ünïcode Straße", "ünïcode straße"),
        ("", ""),
    ];
    for (input, expected) in cases {
        assert_eq!(terms(input).join(" "), expected, "{input}");
    }
}

#[test]
fn acme_issues_match_expected_rows() {
    let export = parse_jira_export("acme-issues.json", &read("fixtures/acme/jira/acme-issues.json"));
    assert!(export.warnings.is_empty(), "{:?}", export.warnings);
    let rows = expected_rows("Jira");
    assert_eq!(rows.len(), 23);
    assert_eq!(export.issues.len(), rows.len());
    for row in rows {
        let [key, issue_type, priority, status, _mentions] = row.as_slice() else {
            panic!("bad row {row:?}");
        };
        let Some(issue) = export.issues.iter().find(|i| &i.key == key) else {
            panic!("{key} not parsed");
        };
        assert_eq!(
            [&issue.issue_type, &issue.priority, &issue.status],
            [issue_type, priority, status],
            "{key}"
        );
        assert!(
            !issue.summary.is_empty() && !issue.description.is_empty(),
            "{key}"
        );
        assert!(issue.created.is_some() && issue.updated.is_some(), "{key}");
    }
    let ord101 = export.issues.iter().find(|i| i.key == "ORD-101");
    let ord101 = ord101.map(|i| (&i.components, &i.labels, &i.assignee, &i.resolution));
    assert_eq!(
        ord101,
        Some((
            &vec!["orders".to_owned()],
            &vec!["backend".to_owned(), "payments-integration".to_owned()],
            &Some("Ben Okafor".to_owned()),
            &Some("Fixed".to_owned()),
        ))
    );
}

/// Does one of `issue`'s candidates (or, for products, its components) cover an EXPECTED.md
/// mention written `kind:value`? Resolution proper is the pipeline's; this only checks that
/// the front-end offers a name that can resolve to the row.
fn covered(issue: &JiraIssue, row: &str) -> bool {
    let Some((kind, value)) = row.split_once(':') else {
        return false;
    };
    let simple = value.rsplit('.').next().unwrap_or(value);
    issue.mentions.iter().any(|m| match m {
        MentionCandidate::Endpoint { verb, path } => kind == "endpoint" && format!("{verb} {path}") == value,
        MentionCandidate::QualifiedName(name) => {
            matches!(kind, "type" | "method") && value.ends_with(&format!(".{name}")) || name == value
        }
        MentionCandidate::Identifier(name) => match kind {
            "type" => name == simple,
            "table" | "routine" => name == value,
            _ => false,
        },
        MentionCandidate::Prefixed { kind: k, value: v } => k == kind && v == value,
    }) || (kind == "product" && issue.components.iter().any(|c| c == value))
}

#[test]
fn acme_issue_mentions_cover_expected_rows() {
    let export = parse_jira_export("acme-issues.json", &read("fixtures/acme/jira/acme-issues.json"));
    let mut missing = Vec::new();
    for row in expected_rows("Jira") {
        let (Some(key), Some(mentions)) = (row.first(), row.get(4)) else {
            panic!("bad row {row:?}");
        };
        let Some(issue) = export.issues.iter().find(|i| &i.key == key) else {
            panic!("{key} not parsed");
        };
        for mention in mentions.split(", ") {
            if !covered(issue, mention) {
                missing.push(format!("{key} {mention}"));
            }
        }
    }
    assert!(missing.is_empty(), "not covered: {missing:#?}");
}
