//! Golden documents of every recipe on the fixture company, and the recipe facts of
//! `fixtures/acme/EXPECTED.md` checked on the answers.
//!
//! Elapsed times and run dates are normalised before snapshotting; everything else in a
//! document is deterministic for one fixture. `cargo insta review` (or `INSTA_UPDATE=always`)
//! accepts a deliberate change of shape — which also bumps the recipe's `recipe_version`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, Caller, Document, Request};
use semgraph_storage::Store;

fn acme() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme")
}

/// The fixture company, indexed once for the whole test binary.
fn store() -> &'static Store {
    static STORE: OnceLock<(tempfile::TempDir, Store)> = OnceLock::new();
    &STORE
        .get_or_init(|| {
            let dir = tempfile::tempdir().expect("tempdir");
            let store = Store::open(dir.path()).expect("store");
            let company = Company::load(&acme().join("semgraph.toml")).expect("config");
            for product in &company.products {
                index_product(&store, &company, product, &NoProgress).expect("indexes");
            }
            (dir, store)
        })
        .1
}

fn ask_as(caller: &Caller, domain: &str, endpoint: &str, params: &[(&str, &str)]) -> Document {
    let request = Request::new(domain, endpoint, params.iter().copied());
    match execute(&store().snapshot(), caller, &request) {
        Ok(doc) => doc,
        Err(e) => panic!("{domain}/{endpoint} {params:?} failed: {}", e.body()),
    }
}

fn ask(domain: &str, endpoint: &str, params: &[(&str, &str)]) -> Document {
    ask_as(&Caller::full_access(), domain, endpoint, params)
}

fn golden(name: &str, doc: &Document) {
    let mut settings = insta::Settings::clone_current();
    settings.add_filter(r"\(\d+\.\d{3}s\)", "(T s)");
    settings.add_filter(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}Z", "DATE");
    settings.set_snapshot_path("golden");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, doc.markdown));
}

/// Rows of the markdown table under `## section` of EXPECTED.md, cells trimmed.
fn expected_rows(section: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(acme().join("EXPECTED.md")).expect("EXPECTED.md");
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            inside = h.trim() == section;
            continue;
        }
        if inside && line.starts_with('|') && !line.starts_with("|---") {
            rows.push(
                line.trim_matches('|')
                    .split('|')
                    .map(|c| c.trim().to_string())
                    .collect(),
            );
        }
    }
    rows.remove(0); // header
    rows
}

#[test]
fn impact_golden_documents() {
    golden(
        "impact-reservation-service-reserve",
        &ask(
            "recipes",
            "impact",
            &[("target", "com.acme.inventory.service.ReservationService.reserve")],
        ),
    );
    golden(
        "impact-endpoint-post-orders",
        &ask(
            "recipes",
            "impact",
            &[("target", "POST /api/orders"), ("depth", "2")],
        ),
    );
    golden(
        "impact-unknown-target",
        &ask("recipes", "impact", &[("target", "OrderServise.placeOrdr")]),
    );
}

#[test]
fn other_recipe_golden_documents() {
    golden(
        "table-analysis-orders",
        &ask("recipes", "table-analysis", &[("table", "orders")]),
    );
    golden("status-snapshot", &ask("recipes", "status-snapshot", &[]));
    golden(
        "jira-history-notifications",
        &ask("recipes", "jira-history", &[("service", "notifications")]),
    );
    golden(
        "endpoint-trace-post-orders",
        &ask("recipes", "endpoint-trace", &[("endpoint", "POST /api/orders")]),
    );
    golden("service-map", &ask("recipes", "service-map", &[]));
}

#[test]
fn schema_golden_documents() {
    // A Liquibase table: its changesets, named keys and the code that uses it.
    golden("db-table-products", &ask("db", "table", &[("name", "products")]));
    // One table name in two products: both answered, each with its own keys.
    golden(
        "db-table-subscriptions",
        &ask("db", "table", &[("name", "subscriptions")]),
    );
    golden("db-columns-prices", &ask("db", "columns", &[("table", "prices")]));
    // Two changesets, one per database, define one table: both listed, and how they differ.
    golden(
        "table-analysis-search-terms",
        &ask("recipes", "table-analysis", &[("table", "search_terms")]),
    );
    // A trigger is found by its own name and by `table.trigger`.
    let by_name = ask("db", "ddl", &[("name", "trg_orders_audit")]);
    let by_table = ask("db", "ddl", &[("name", "orders.trg_orders_audit")]);
    assert_eq!(by_name.json, by_table.json);
    golden("db-ddl-trigger", &by_name);
}

#[test]
fn every_recipe_opens_with_title_version_and_steps() {
    for (endpoint, params) in [
        (
            "impact",
            vec![("target", "com.acme.orders.service.OrderMapper.toDto")],
        ),
        ("table-analysis", vec![("table", "payments")]),
        ("status-snapshot", vec![]),
        ("jira-history", vec![("service", "payments")]),
        ("endpoint-trace", vec![("endpoint", "GET /api/orders/{id}")]),
        ("service-map", vec![]),
    ] {
        let doc = ask("recipes", endpoint, &params);
        let lines: Vec<&str> = doc.markdown.lines().collect();
        assert!(lines[0].starts_with("# "), "{endpoint}: title first");
        // A recipe's version counts the changes of its document's shape.
        let version = if endpoint == "table-analysis" { 2 } else { 1 };
        assert_eq!(
            lines[2],
            format!("recipe_version: {endpoint}/{version}"),
            "{endpoint}: version second"
        );
        assert_eq!(lines[4], "## Steps executed", "{endpoint}: steps third");
        assert!(
            lines[6].starts_with("- ") && lines[6].contains(" → ") && lines[6].ends_with("s)"),
            "{endpoint}: {}",
            lines[6]
        );
        assert_eq!(doc.json["recipe_version"], format!("{endpoint}/{version}"));
    }
}

#[test]
fn impact_reaches_exactly_the_endpoints_expected_md_lists() {
    let mut expected: std::collections::BTreeMap<String, BTreeSet<String>> = Default::default();
    for row in expected_rows("Impact") {
        expected.entry(row[0].clone()).or_default().insert(row[1].clone());
    }
    assert!(expected.len() >= 8, "the Impact section was read");
    let mut problems = Vec::new();
    for (changed, want) in &expected {
        let doc = ask("recipes", "impact", &[("target", changed), ("depth", "8")]);
        let got: BTreeSet<String> = doc.json["endpoints"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|e| {
                format!(
                    "{} {}",
                    e["service"].as_str().unwrap_or(""),
                    e["name"].as_str().unwrap_or("")
                )
            })
            .collect();
        if &got != want {
            problems.push(format!(
                "{changed}:\n  missing {:?}\n  extra   {:?}",
                want.difference(&got).collect::<Vec<_>>(),
                got.difference(want).collect::<Vec<_>>()
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn table_analysis_lists_the_triggers_and_views_expected_md_lists() {
    for row in expected_rows("Triggers") {
        let doc = ask("recipes", "table-analysis", &[("table", &row[0])]);
        let triggers: Vec<String> = doc.json["analyses"][0]["triggers"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .filter_map(|t| t["node"]["name"].as_str().map(str::to_string))
            .collect();
        assert!(
            triggers.contains(&row[1]),
            "{} on {}: {triggers:?}",
            row[1],
            row[0]
        );
    }
    for row in expected_rows("Views") {
        for table in row[1].split(", ") {
            let doc = ask("recipes", "table-analysis", &[("table", table)]);
            let views: Vec<String> = doc.json["analyses"][0]["views"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .filter_map(|t| t["node"]["name"].as_str().map(str::to_string))
                .collect();
            assert!(
                views.contains(&row[0]),
                "view {} reads {table}: {views:?}",
                row[0]
            );
        }
    }
}

#[test]
fn a_caller_of_another_area_gets_structure_and_a_trace_that_says_content_was_withheld() {
    // ReservationService is in inventory (commerce); a finance caller sees the structure.
    let finance = Caller::of_area("finance");
    let doc = ask_as(
        &finance,
        "recipes",
        "impact",
        &[("target", "com.acme.inventory.service.ReservationService.reserve")],
    );
    assert!(
        doc.markdown.contains("WARN: content withheld"),
        "{}",
        doc.markdown
    );
    assert!(!doc.markdown.contains("```java"), "no source outside the area");
    let own = ask_as(
        &Caller::of_area("commerce"),
        "recipes",
        "impact",
        &[("target", "com.acme.inventory.service.ReservationService.reserve")],
    );
    assert!(own.markdown.contains("```java"), "source inside the area");
    let err = execute(
        &store().snapshot(),
        &finance,
        &Request::new(
            "code",
            "source",
            [("fqn", "com.acme.inventory.service.ReservationService.reserve")],
        ),
    )
    .expect_err("403");
    assert_eq!(err.kind(), semgraph_queries::ErrorKind::Forbidden);
    assert!(err.body().contains("permission boundary"));
}

#[test]
fn a_wrong_parameter_names_the_right_one() {
    let err = execute(
        &store().snapshot(),
        &Caller::full_access(),
        &Request::new("code", "callers", [("name", "placeOrder")]),
    )
    .expect_err("422");
    assert_eq!(err.kind(), semgraph_queries::ErrorKind::InvalidRequest);
    assert!(
        err.body().contains("`name`")
            && err.body().contains("Did you mean `fqn`?")
            && err.body().contains("discover"),
        "{}",
        err.body()
    );
}

#[test]
fn callers_cross_products_and_never_confuse_look_alikes() {
    // OrderService.cancel calls the Feign PaymentsClient.cancel, never PaymentService.cancel.
    let doc = ask(
        "code",
        "callers",
        &[
            ("fqn", "com.acme.payments.service.PaymentService.cancel"),
            ("depth", "2"),
        ],
    );
    let callers: Vec<String> = doc.json["rows"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r["depth"],
                r["via"].as_str().unwrap_or(""),
                r["method"]["fqn"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert!(
        callers.contains(&"1 call com.acme.payments.web.PaymentController.cancel".to_string()),
        "{callers:?}"
    );
    assert!(
        callers.contains(&"2 HTTP com.acme.orders.client.PaymentsClient.cancel".to_string()),
        "{callers:?}"
    );
    assert!(
        !callers.iter().any(|c| c.ends_with("OrderService.cancel")),
        "{callers:?}"
    );
}

#[test]
fn primitive_golden_documents() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        ("code", "search", &[("q", "OrderService")]),
        (
            "code",
            "method",
            &[("fqn", "com.acme.notifications.service.NotificationService.send")],
        ),
        (
            "code",
            "callers",
            &[
                ("fqn", "com.acme.orders.service.OrderMapper.toDto"),
                ("depth", "2"),
            ],
        ),
        (
            "code",
            "callees",
            &[("fqn", "com.acme.orders.service.OrderService.placeOrder")],
        ),
        (
            "code",
            "implementations",
            &[("fqn", "com.acme.payments.gateway.PaymentGateway")],
        ),
        ("code", "endpoints", &[("scope", "inventory")]),
        ("code", "http-calls", &[]),
        ("code", "topics", &[]),
        (
            "code",
            "path",
            &[
                ("from", "com.acme.orders.web.OrderController.placeOrder"),
                ("to", "com.acme.inventory.service.ReservationService.reserve"),
            ],
        ),
        ("db", "table", &[("name", "payments")]),
        ("config", "key", &[("key", "payments.topics.completed")]),
        ("wiki", "search", &[("q", "order events")]),
        ("jira", "search", &[("type", "Incident")]),
        ("meta", "products", &[]),
    ];
    for (domain, endpoint, params) in cases {
        golden(&format!("{domain}-{endpoint}"), &ask(domain, endpoint, params));
    }
}
