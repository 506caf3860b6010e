//! The pipeline on the fixture company, checked against the facts of `EXPECTED.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Snapshot, Store};

use super::*;

fn acme() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme")
}

/// The rows of the markdown table under `## {section}` of EXPECTED.md.
fn expected_rows(section: &str) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(acme().join("EXPECTED.md")).expect("EXPECTED.md");
    let mut rows = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if let Some(title) = line.strip_prefix("## ") {
            inside = title.trim() == section;
            continue;
        }
        if inside && line.starts_with('|') && !line.starts_with("|---") {
            let cells: Vec<String> = line
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect();
            rows.push(cells);
        }
    }
    assert!(rows.len() > 1, "section {section} has rows");
    rows.remove(0);
    rows
}

fn index_acme() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let company = Company::load(&acme().join("semgraph.toml")).expect("config");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    (dir, store)
}

fn names_of_kind(snap: &Snapshot, product: &str, kind: NodeKind) -> Vec<String> {
    let ids: Vec<NodeId> = snap
        .product_nodes_of_kind(product, kind)
        .iter()
        .map(NodeId)
        .collect();
    let mut names: Vec<String> = snap
        .nodes(&ids)
        .expect("read")
        .into_iter()
        .flatten()
        .map(|n| n.name)
        .collect();
    names.sort();
    names
}

#[test]
fn pom_values_skip_the_parent_block() {
    let pom = "<project><parent><artifactId>acme-parent</artifactId></parent>\
               <artifactId>orders-service</artifactId><packaging>jar</packaging></project>";
    assert_eq!(pom_value(pom, "artifactId").as_deref(), Some("orders-service"));
    assert_eq!(pom_value(pom, "packaging").as_deref(), Some("jar"));
    assert_eq!(pom_value(pom, "modules"), None);
}

#[test]
fn the_fixture_company_is_indexed_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();

    // Products, areas and services (named by spring.application.name).
    for row in expected_rows("Products") {
        let product = snap.product(&row[0]).expect("product indexed");
        assert_eq!(product.area, row[1], "area of {}", row[0]);
        let mut want: Vec<String> = row[2].split(", ").map(str::to_string).collect();
        want.sort();
        assert_eq!(
            names_of_kind(&snap, &row[0], NodeKind::Service),
            want,
            "services of {}",
            row[0]
        );
    }

    // A scheduler source file hangs under the scheduler service.
    let file = snap
        .find_by_name(
            "orders-scheduler/src/main/java/com/acme/orders/scheduler/OrdersSchedulerApplication.java",
        )
        .expect("lookup");
    assert_eq!(file.len(), 1);
    let parent: Vec<NodeId> = snap
        .adjacency()
        .neighbors(file[0], Direction::In, EdgeKind::Contains)
        .collect();
    assert_eq!(
        snap.node(parent[0]).expect("read").expect("live").name,
        "orders-scheduler"
    );

    // Config keys the code reads exist as keys, unless the code carries a default.
    let mut sources = String::new();
    for entry in ignore::Walk::new(acme()).flatten() {
        if entry.path().extension().is_some_and(|e| e == "java") {
            sources.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    for row in expected_rows("Config usage") {
        let key = &row[0];
        let found = snap.find_by_fqn(key).expect("lookup");
        let has_default = sources.contains(&format!("${{{key}:"));
        assert!(
            !found.is_empty() || has_default,
            "config key {key} is neither indexed nor defaulted in code"
        );
    }

    // Every Jira issue is indexed once, in a product, with its type, priority and status.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for row in expected_rows("Jira") {
        let ids = snap.find_by_fqn(&row[0]).expect("lookup");
        seen.insert(row[0].clone(), ids.len());
        let Some(&id) = ids.first() else {
            continue;
        };
        let node = snap.node(id).expect("read").expect("live");
        assert_eq!(
            (node.attr("type"), node.attr("priority"), node.attr("status")),
            (
                Some(row[1].as_str()),
                Some(row[2].as_str()),
                Some(row[3].as_str())
            ),
            "{}",
            row[0]
        );
        // Tickets tagged with a product mention it.
        for m in row[4].split(", ").filter_map(|m| m.strip_prefix("product:")) {
            let product = snap.find_by_fqn(m).expect("lookup");
            let mentioned: Vec<NodeId> = snap
                .adjacency()
                .neighbors(id, Direction::Out, EdgeKind::Mentions)
                .collect();
            assert!(
                product.iter().any(|p| mentioned.contains(p)),
                "{} mentions product {m}",
                row[0]
            );
        }
    }
    let wrong: Vec<_> = seen.iter().filter(|(_, &n)| n != 1).collect();
    assert!(wrong.is_empty(), "issues not indexed exactly once: {wrong:?}");

    // Wiki pages are indexed with their text searchable by term.
    let pages: u64 = snap.nodes_of_kind(NodeKind::WikiPage).len();
    assert!(pages >= 6, "{pages} wiki pages");
    let term = snap.named_set_all("term:runbook").expect("terms");
    assert!(!term.is_empty(), "the runbook is found by its term");
    // A page that names a product mentions it, across products.
    let mentions_orders = snap
        .adjacency()
        .neighbors(
            snap.find_by_fqn("orders").expect("lookup")[0],
            Direction::In,
            EdgeKind::Mentions,
        )
        .filter(|id| snap.nodes_of_kind(NodeKind::WikiPage).contains(id.0))
        .count();
    assert!(mentions_orders > 0, "some wiki page mentions the orders product");
}
