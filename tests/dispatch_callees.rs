//! `code/callees` lists what a virtual call may run: the method called, and every
//! override or implementation of it (`interface dispatch`), through intermediate overrides
//! and default methods — and a call on a receiver narrowed by a cast or a pattern lands on
//! the narrowed type's method, not the declared one.

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

/// `(method, via)` of each callee row.
fn rows(doc: &Document) -> Vec<(String, String)> {
    let doc_json = doc.json_value();
    let mut out: Vec<(String, String)> = doc_json["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            let m = r["method"]["fqn"].as_str().unwrap_or_default().to_string();
            (m, r["via"].as_str().unwrap_or_default().to_string())
        })
        .collect();
    out.sort();
    out
}

#[test]
fn callees_list_overrides_and_implementations_a_virtual_call_may_reach() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("shapes");
    let src = "src/main/java/com/x/";
    write(&repo, &format!("{src}Shape.java"), "package com.x;\npublic interface Shape {\n  double area();\n  default String label() { return \"shape\"; }\n}\n");
    write(&repo, &format!("{src}Circle.java"), "package com.x;\npublic class Circle implements Shape {\n  public double area() { return 3; }\n  public double radius() { return 1; }\n}\n");
    write(&repo, &format!("{src}Square.java"), "package com.x;\npublic class Square implements Shape {\n  public double area() { return 4; }\n  @Override public String label() { return \"square\"; }\n}\n");
    write(&repo, &format!("{src}Tile.java"), "package com.x;\npublic class Tile extends Square {\n  @Override public double area() { return 5; }\n}\n");
    write(
        &repo,
        &format!("{src}Report.java"),
        "package com.x;\npublic class Report {\n  double total(Shape s) {\n    return s.area();\n  }\n  String name(Shape s) {\n    return s.label();\n  }\n  double narrowed(Shape s) {\n    double r = ((Circle) s).radius();\n    if (s instanceof Circle c) {\n      r += c.radius();\n    }\n    return r;\n  }\n}\n",
    );
    let company = Company::from_paths(&[repo], Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }

    let total = ask(&store, "code", "callees", &[("fqn", "com.x.Report.total(Shape)")]);
    assert_eq!(
        rows(&total),
        vec![
            ("com.x.Circle.area".to_string(), "interface dispatch".to_string()),
            ("com.x.Shape.area".to_string(), "call".to_string()),
            ("com.x.Square.area".to_string(), "interface dispatch".to_string()),
            ("com.x.Tile.area".to_string(), "interface dispatch".to_string()),
        ],
        "{}",
        total.markdown
    );
    // The dispatched rows give the call site they come from.
    assert!(total.markdown.contains("Tile.area"), "{}", total.markdown);

    // A default method: the call runs it, or the override of a class that has one.
    let name = ask(&store, "code", "callees", &[("fqn", "com.x.Report.name(Shape)")]);
    assert_eq!(
        rows(&name),
        vec![
            ("com.x.Shape.label".to_string(), "call".to_string()),
            ("com.x.Square.label".to_string(), "interface dispatch".to_string()),
        ],
        "{}",
        name.markdown
    );

    // Narrowed by a cast and by a pattern: the narrowed type's method.
    let narrowed = ask(
        &store,
        "code",
        "callees",
        &[("fqn", "com.x.Report.narrowed(Shape)")],
    );
    assert_eq!(
        rows(&narrowed),
        vec![("com.x.Circle.radius".to_string(), "call".to_string())],
        "{}",
        narrowed.markdown
    );
}
