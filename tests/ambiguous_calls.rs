//! A call that may reach one of several overloads (its argument's type is not known) is
//! indexed as an edge to each candidate marked ambiguous, and every answer says so:
//! `code/callers` and `code/callees` render "one of N possible targets" and carry the count in
//! JSON, `impact` counts such callers apart — while a call told apart stays plain.

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, Caller, Document, Request};
use semgraph_storage::Store;
use semgraph_testkit::write_file as write;

fn ask(store: &Store, domain: &str, endpoint: &str, params: &[(&str, &str)]) -> Document {
    let request = Request::new(domain, endpoint, params.iter().copied());
    match execute(&store.snapshot(), &Caller::full_access(), &request) {
        Ok(doc) => doc,
        Err(e) => panic!("{domain}/{endpoint} {params:?} failed: {}", e.body()),
    }
}

/// Asserts that `doc`'s markdown contains `text`, showing the document when it does not.
fn says(doc: &Document, text: &str) {
    assert!(doc.markdown.contains(text), "{}", doc.markdown);
}

#[test]
fn a_call_between_overloads_is_marked_and_said_one_of_n() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("shop");
    write(
        &repo,
        "src/main/java/com/x/Pricing.java",
        "package com.x;\npublic class Pricing {\n  public int price(String sku, int qty) { return 0; }\n  public int price(Line line, int qty) { return 1; }\n}\n",
    );
    write(
        &repo,
        "src/main/java/com/x/Line.java",
        "package com.x;\npublic class Line {}\n",
    );
    // `Mystery` is declared nowhere the product can see (generated code, say): which
    // `price` runs is unknown.
    write(
        &repo,
        "src/main/java/com/x/Cart.java",
        "package com.x;\npublic class Cart {\n  private final Pricing pricing = new Pricing();\n  public int total(Mystery m) {\n    return pricing.price(m, 2);\n  }\n  public int known(String sku) {\n    return pricing.price(sku, 1);\n  }\n}\n",
    );
    let company = Company::from_paths(&[repo], Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }

    let callers = ask(
        &store,
        "code",
        "callers",
        &[("fqn", "com.x.Pricing.price(Line, int)")],
    );
    says(&callers, "call (one of 2 possible targets)");
    says(&callers, "Cart.total");
    let callers_json = callers.json_value();
    let rows = callers_json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 1, "{}", callers.json);
    assert_eq!(rows[0]["ambiguous"], 2, "{}", callers.json);

    // The call told apart by its argument is certain: no mark.
    let certain = ask(
        &store,
        "code",
        "callers",
        &[("fqn", "com.x.Pricing.price(String, int)")],
    );
    let certain_json = certain.json_value();
    let rows = certain_json["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 2, "{}", certain.json);
    let known = rows
        .iter()
        .find(|r| r["method"].to_string().contains("known"))
        .expect("Cart.known calls price(String, int)");
    assert!(known.get("ambiguous").is_none(), "{}", certain.json);
    let total = rows
        .iter()
        .find(|r| r["method"].to_string().contains("total"))
        .expect("Cart.total may call price(String, int)");
    assert_eq!(total["ambiguous"], 2, "{}", certain.json);

    let callees = ask(&store, "code", "callees", &[("fqn", "com.x.Cart.total(Mystery)")]);
    assert_eq!(
        callees.markdown.matches("one of 2 possible targets").count(),
        2,
        "{}",
        callees.markdown
    );

    let impact = ask(
        &store,
        "recipes",
        "impact",
        &[("target", "com.x.Pricing.price(Line, int)")],
    );
    says(&impact, "one of 2 possible targets");
    says(&impact, "1 direct production callers (1 of them only possibly");

    // One certain direct caller and one possible one: only the possible one is counted apart.
    let impact = ask(
        &store,
        "recipes",
        "impact",
        &[("target", "com.x.Pricing.price(String, int)")],
    );
    says(&impact, "2 direct production callers (1 of them only possibly");
    let impact_json = impact.json_value();
    let marked: Vec<&serde_json::Value> = impact_json["callers"]
        .as_array()
        .expect("callers")
        .iter()
        .filter(|r| r.get("ambiguous").is_some())
        .collect();
    assert_eq!(marked.len(), 1, "{}", impact.json);
    assert!(
        marked[0]["method"].to_string().contains("total"),
        "{}",
        impact.json
    );
}
