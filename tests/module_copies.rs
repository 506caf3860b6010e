//! One entity copied into two modules of a product, each copy mapping the same table:
//! `recipes/table-analysis` lists both copies, told apart by their files, rather than one
//! name twice (or, as before copies were kept apart, once).

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, Caller, Request};
use semgraph_storage::Store;
use semgraph_testkit::write_file as write;

fn pom(artifact: &str) -> String {
    format!(
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
         <groupId>com.x</groupId><artifactId>{artifact}</artifactId><version>1</version></project>\n"
    )
}

#[test]
fn table_analysis_tells_copies_of_one_entity_apart_by_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("shop");
    write(
        &repo,
        "pom.xml",
        "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><modelVersion>4.0.0</modelVersion>\
         <groupId>com.x</groupId><artifactId>shop</artifactId><version>1</version><packaging>pom</packaging>\
         <modules><module>a</module><module>b</module></modules></project>\n",
    );
    for module in ["a", "b"] {
        write(&repo, &format!("{module}/pom.xml"), &pom(module));
        write(
            &repo,
            &format!("{module}/src/main/java/com/x/Ledger.java"),
            "package com.x;\nimport jakarta.persistence.Entity;\nimport jakarta.persistence.Table;\n@Entity\n@Table(name = \"ledger\")\npublic class Ledger {\n  private Long id;\n}\n",
        );
    }
    write(
        &repo,
        "a/src/main/resources/schema.sql",
        "CREATE TABLE ledger (id BIGINT PRIMARY KEY);\n",
    );
    let company = Company::from_paths(&[repo], Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    let request = Request::new("recipes", "table-analysis", [("table", "ledger")]);
    let doc = match execute(&store.snapshot(), &Caller::full_access(), &request) {
        Ok(doc) => doc,
        Err(e) => panic!("table-analysis failed: {}", e.body()),
    };
    for module in ["a", "b"] {
        let told = format!("`com.x.Ledger ({module}/src/main/java/com/x/Ledger.java)`");
        assert!(doc.markdown.contains(&told), "{told} in\n{}", doc.markdown);
    }
}
