//! Tests of the wiki front-end: golden pages under `fixtures/wiki/` and the ACME wiki
//! checked against the "Wiki mentions" table of `fixtures/acme/EXPECTED.md`.
//!
//! Golden files: `fixtures/wiki/<page>.expected` holds the rendered parse of
//! `fixtures/wiki/<page>`; `SEMGRAPH_BLESS=1` rewrites them.

use std::fmt::Write as _;

use super::*;
use crate::testing::{expected_rows, read};

fn render_mention(m: &MentionCandidate) -> String {
    match m {
        MentionCandidate::Endpoint { verb, path } => format!("endpoint {verb} {path}"),
        MentionCandidate::QualifiedName(name) => format!("qualified {name}"),
        MentionCandidate::Identifier(name) => format!("identifier {name}"),
        MentionCandidate::Prefixed { kind, value } => format!("prefixed {kind}:{value}"),
    }
}

fn render(page: &WikiPage) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "title: {}", page.title);
    for (key, value) in &page.front_matter {
        let _ = writeln!(out, "front matter: {key} = {value}");
    }
    let _ = writeln!(out, "tags: {}", page.tags.join(", "));
    for h in &page.headings {
        let _ = writeln!(out, "heading {} (line {}): {}", h.level, h.line, h.text);
    }
    for link in &page.links {
        let _ = writeln!(out, "link: {link}");
    }
    for code in &page.code_spans {
        let _ = writeln!(out, "code: {code}");
    }
    for m in &page.mentions {
        let _ = writeln!(out, "mention: {}", render_mention(m));
    }
    for w in &page.warnings {
        let _ = writeln!(out, "warning {}: {}", w.line, w.message);
    }
    let _ = writeln!(out, "text:\n{}", page.text);
    out
}

/// Parses `fixtures/wiki/<page>` (path relative to that folder) against its `.expected`.
fn check_golden(page: &str) {
    let input = format!("fixtures/wiki/{page}");
    let actual = render(&parse_wiki_page(page, &read(&input)));
    crate::testing::assert_golden(&input, &actual);
}

#[test]
fn full_page_golden() {
    check_golden("guides/payments-howto.md");
}

#[test]
fn page_without_front_matter_or_heading_is_titled_by_its_file() {
    check_golden("plain-notes.md");
}

#[test]
fn broken_front_matter_is_a_warning_and_the_heading_titles_the_page() {
    check_golden("bad-front-matter.md");
}

#[test]
fn links_resolve_against_the_page_folder() {
    let cases = [
        (
            "orders",
            "../inventory/reservations.md",
            Some("inventory/reservations.md"),
        ),
        ("orders", "overview.md#flow", Some("orders/overview.md")),
        ("orders", "./a/../b.md", Some("orders/b.md")),
        ("", "../../up.md", Some("up.md")),
        ("orders", "/root.md", Some("root.md")),
        ("orders", "https://x.example/a?b", Some("https://x.example/a?b")),
        (
            "orders",
            "mailto:ops@acme.example",
            Some("mailto:ops@acme.example"),
        ),
        ("orders", "#anchor", None),
    ];
    for (folder, dest, expected) in cases {
        assert_eq!(resolve_link(folder, dest).as_deref(), expected, "{dest}");
    }
}

#[test]
fn degenerate_pages_do_not_panic() {
    let deep_quotes = ">".repeat(10_000) + " deep";
    let deep_lists: String = (0..2_000).map(|i| format!("{}- x\n", "  ".repeat(i))).collect();
    let inputs = [
        "",
        "---",
        "---\n",
        "---\n---\n",
        "\u{feff}---\ntitle: bom\n---\n",
        "# ",
        "[](",
        "`unclosed",
        "```\nunclosed fence",
        "\0\u{1}garbage\u{7f}",
        "GET",
        "GET /",
        "table:",
        deep_quotes.as_str(),
        deep_lists.as_str(),
    ];
    for input in inputs {
        let page = parse_wiki_page("a/b.md", input);
        assert!(!page.title.is_empty());
    }
}

/// A row of EXPECTED.md's mention tables: `kind:value`.
fn covered(row: &str, tags: &[String], text_terms: &[String], found: &[MentionCandidate]) -> bool {
    let Some((kind, value)) = row.split_once(':') else {
        return false;
    };
    let simple = value.rsplit('.').next().unwrap_or(value);
    found.iter().any(|m| match m {
        MentionCandidate::Prefixed { kind: k, value: v } => k == kind && v == value,
        MentionCandidate::Endpoint { verb, path } => kind == "endpoint" && format!("{verb} {path}") == value,
        MentionCandidate::QualifiedName(name) => match kind {
            "type" => name == value || name.ends_with(&format!(".{simple}")),
            // `OrderService.placeOrder` names `com.acme.orders.service.OrderService.placeOrder`.
            "method" => value.ends_with(name.as_str()) && name.contains('.'),
            "table" => name.ends_with(&format!(".{value}")),
            _ => false,
        },
        MentionCandidate::Identifier(name) => match kind {
            "type" => name == simple,
            "table" | "routine" => name == value,
            _ => false,
        },
    }) || (kind == "product" && (tags.iter().any(|t| t == value) || text_terms.iter().any(|t| t == value)))
}

#[test]
fn acme_wiki_mentions_cover_expected_rows() {
    let rows = expected_rows("Wiki mentions");
    assert!(rows.len() > 70, "EXPECTED.md wiki rows: {}", rows.len());
    let mut missing = Vec::new();
    for row in &rows {
        let [page_path, mention] = row.as_slice() else {
            panic!("bad row {row:?}");
        };
        let page = parse_wiki_page(page_path, &read(&format!("fixtures/acme/wiki/{page_path}")));
        assert!(page.warnings.is_empty(), "{page_path}: {:?}", page.warnings);
        let text_terms: Vec<String> = page
            .text
            .split(|c: char| !c.is_alphanumeric())
            .map(str::to_lowercase)
            .collect();
        if !covered(mention, &page.tags, &text_terms, &page.mentions) {
            missing.push(format!("{page_path} {mention}"));
        }
    }
    assert!(missing.is_empty(), "not covered: {missing:#?}");
}

#[test]
fn acme_wiki_titles_and_links() {
    let page = parse_wiki_page(
        "orders/overview.md",
        &read("fixtures/acme/wiki/orders/overview.md"),
    );
    assert_eq!(page.title, "Orders service overview");
    assert_eq!(page.tags, ["orders", "architecture"]);
    assert_eq!(
        page.links,
        [
            "orders/runbook-stale-orders.md",
            "inventory/reservations.md",
            "orders/data-model.md"
        ]
    );
    let adr = parse_wiki_page(
        "payments/adr-003-orders-replica-foreign-key.md",
        &read("fixtures/acme/wiki/payments/adr-003-orders-replica-foreign-key.md"),
    );
    assert_eq!(
        adr.title,
        "ADR-003: Foreign key from payments to the orders replica"
    );
    assert!(adr
        .front_matter
        .contains(&("deciders".to_owned(), "payments, checkout, dba".to_owned())));
}
