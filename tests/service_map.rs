//! The service map of a repository of microservices — one product, a service per
//! deployable module — draws the calls between its services, says apart a call to one of
//! its services that reaches no endpoint, and lists only hosts outside the company as
//! external.

use std::path::Path;

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, Caller, Request};
use semgraph_storage::Store;
use semgraph_testkit::write_file as write;

/// A deployable Maven module `dir` named `service`, with `java` as its one class.
fn module(repo: &Path, dir: &str, service: &str, class: &str, java: &str) {
    write(
        repo,
        &format!("{dir}/pom.xml"),
        &format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>clinic</groupId>\
             <artifactId>{dir}</artifactId></project>\n"
        ),
    );
    write(
        repo,
        &format!("{dir}/src/main/resources/application.yml"),
        &format!("spring:\n  application:\n    name: {service}\n"),
    );
    write(
        repo,
        &format!("{dir}/src/main/java/clinic/{dir}/{class}.java"),
        java,
    );
}

#[test]
fn a_repository_of_microservices_maps_its_services_calls_and_what_they_miss() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("clinic");
    write(
        &repo,
        "pom.xml",
        "<project><modelVersion>4.0.0</modelVersion><groupId>clinic</groupId>\
         <artifactId>clinic</artifactId><packaging>pom</packaging></project>\n",
    );
    module(
        &repo,
        "customers",
        "customers-service",
        "OwnerResource",
        r#"package clinic.customers;
import org.springframework.web.bind.annotation.*;
@RestController
@RequestMapping("/owners")
public class OwnerResource {
    @GetMapping("/{ownerId}") public String find(@PathVariable int ownerId) { return ""; }
}
"#,
    );
    module(
        &repo,
        "visits",
        "visits-service",
        "VisitResource",
        r#"package clinic.visits;
import org.springframework.web.bind.annotation.*;
@RestController
public class VisitResource {
    @GetMapping("/owners/*/pets/{petId}/visits") public String visits(@PathVariable int petId) { return ""; }
}
"#,
    );
    module(
        &repo,
        "gateway",
        "api-gateway",
        "Clients",
        r#"package clinic.gateway;
import org.springframework.web.client.RestTemplate;
public class Clients {
    private final RestTemplate rest;
    public Clients(RestTemplate rest) { this.rest = rest; }
    public String owner(int id) { return rest.getForObject("http://customers-service/owners/{id}", String.class, id); }
    public String visits() { return rest.getForObject("http://visits-service/pets/visits", String.class); }
    public String geo() { return rest.getForObject("https://maps.example.com/geo", String.class); }
}
"#,
    );
    let company = Company::from_paths(&[repo], Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    let request = Request::new("recipes", "service-map", std::iter::empty::<(&str, &str)>());
    let doc = match execute(&store.snapshot(), &Caller::full_access(), &request) {
        Ok(doc) => doc,
        Err(e) => panic!("service-map failed: {}", e.body()),
    };
    let json = doc.json_value();
    let end = |v: &serde_json::Value| {
        (
            v["product"].as_str().unwrap_or_default().to_string(),
            v["service"].as_str().unwrap_or_default().to_string(),
        )
    };
    let deps: Vec<_> = json["dependencies"]
        .as_array()
        .expect("dependencies")
        .iter()
        .map(|d| {
            (
                end(&d["from"]),
                end(&d["to"]),
                d["kind"].clone(),
                d["detail"].clone(),
            )
        })
        .collect();
    let gateway = ("clinic".to_string(), "api-gateway".to_string());
    assert_eq!(
        deps,
        vec![(
            gateway.clone(),
            ("clinic".to_string(), "customers-service".to_string()),
            serde_json::json!("http"),
            serde_json::json!("GET /owners/{ownerId}"),
        )],
        "{}",
        doc.markdown
    );
    let unreached: Vec<_> = json["unreached"]
        .as_array()
        .expect("unreached")
        .iter()
        .map(|u| (end(&u["from"]), u["service"].clone(), u["call"].clone()))
        .collect();
    assert_eq!(
        unreached,
        vec![(
            gateway.clone(),
            serde_json::json!("visits-service"),
            serde_json::json!("GET /pets/visits")
        )],
        "{}",
        doc.markdown
    );
    let external: Vec<_> = json["external_hosts"]
        .as_array()
        .expect("external hosts")
        .iter()
        .map(|e| (end(&e["from"]), e["host"].clone()))
        .collect();
    assert_eq!(
        external,
        vec![(gateway, serde_json::json!("maps.example.com"))],
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown
            .contains("| clinic | `api-gateway` | clinic | `customers-service` | http |"),
        "{}",
        doc.markdown
    );
    assert!(
        doc.markdown.contains("none of its endpoints answers"),
        "{}",
        doc.markdown
    );
}
