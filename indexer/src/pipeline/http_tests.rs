//! Outbound HTTP clients, spec-declared endpoints and Kafka Streams, end to end: on the
//! fixture company against `EXPECTED.md`, and on a look-alike company where two services
//! expose the same path. The rules themselves are tested beside their recognisers.

use std::path::Path;

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Store};

use super::tests::{index_acme, methods_named, neighbour_names};
use super::*;
use crate::testing::expected_rows;

/// `Feign` and `feign`, `RestTemplate` and `rest-template` are the same client.
fn client_name(s: &str) -> String {
    s.to_lowercase().replace('-', "")
}

#[test]
fn the_fixture_company_http_calls_are_found_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let rows = expected_rows("HTTP calls");
    assert!(rows.len() >= 11, "{} rows", rows.len());
    let mut wrong = Vec::new();
    for row in &rows {
        let callers = methods_named(&snap, &row[0]);
        assert_eq!(callers.len(), 1, "{}", row[0]);
        let calls: Vec<NodeId> = snap
            .adjacency()
            .neighbors(callers[0], Direction::Out, EdgeKind::Calls)
            .filter(|id| snap.nodes_of_kind(NodeKind::HttpCall).contains(id.0))
            .collect();
        if calls.len() != 1 {
            wrong.push(format!("{}: {} HTTP calls", row[0], calls.len()));
            continue;
        }
        let call = snap.node(calls[0]).expect("read").expect("live");
        let got = (
            call.attr("client").map(client_name),
            call.attr("verb").map(str::to_string),
            call.attr("target-service").map(str::to_string),
        );
        let want = (
            Some(client_name(&row[1])),
            Some(row[2].clone()),
            Some(row[4].clone()),
        );
        if got != want {
            wrong.push(format!("{}: {got:?}, want {want:?}", row[0]));
        }
        // Feign records its route; the other clients their whole URL template.
        let url = call.attr("url").unwrap_or_default().to_string();
        if row[1] != "Feign" && url != row[3] {
            wrong.push(format!("{}: url {url}, want {}", row[0], row[3]));
        }
        let invoked: Vec<NodeId> = snap
            .adjacency()
            .neighbors(call.id, Direction::Out, EdgeKind::Invokes)
            .collect();
        if row[5] == "external" {
            if !invoked.is_empty() {
                wrong.push(format!("{}: an external call resolves to {invoked:?}", row[0]));
            }
            continue;
        }
        if invoked.len() != 1 {
            wrong.push(format!("{}: resolves to {} endpoints", row[0], invoked.len()));
            continue;
        }
        let endpoint = snap.node(invoked[0]).expect("read").expect("live");
        if endpoint.name != row[5] || endpoint.attr("service") != Some(row[4].as_str()) {
            wrong.push(format!(
                "{}: resolves to {:?} {}, want {} {}",
                row[0],
                endpoint.attr("service"),
                endpoint.name,
                row[4],
                row[5]
            ));
        }
    }
    assert!(wrong.is_empty(), "HTTP calls wrong:\n{}", wrong.join("\n"));
}

#[test]
fn the_fixture_company_stream_topology_consumes_and_produces_its_topics() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let topology = methods_named(
        &snap,
        "com.acme.orders.scheduler.streams.OrderStatsTopology.orderStatsStream",
    );
    assert_eq!(topology.len(), 1);
    let consumed = neighbour_names(&snap, topology[0], Direction::Out, EdgeKind::Consumes);
    let produced = neighbour_names(&snap, topology[0], Direction::Out, EdgeKind::Produces);
    assert!(consumed.iter().all(|t| t == "order-events"), "{consumed:?}");
    assert!(consumed.contains(&"order-events".to_string()));
    assert_eq!(produced, vec!["order-stats".to_string()]);
    // Every Topics row's streams producer and consumer is in place (the row lists are
    // checked whole by the topic tests in `tests.rs`).
    for row in expected_rows("Topics") {
        for m in row[2]
            .split(", ")
            .chain(row[3].split(", "))
            .filter(|m| m.contains(".streams."))
        {
            assert_eq!(methods_named(&snap, m).len(), 1, "{m}");
        }
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

/// Makes `root` a service called `name` (`spring.application.name`).
fn named_service(root: &Path, name: &str) {
    write(
        root,
        "src/main/resources/application.yml",
        &format!("spring:\n  application:\n    name: {name}\n"),
    );
}

fn health_service(root: &Path, name: &str) {
    named_service(root, name);
    write(
        root,
        &format!("src/main/java/com/{}/Health.java", name.replace('-', "")),
        &format!(
            "package com.{p};\nimport org.springframework.web.bind.annotation.*;\n\
             @RestController\npublic class Health {{\n    @GetMapping(\"/api/health/details\")\n    \
             public String details() {{ return \"ok\"; }}\n}}\n",
            p = name.replace('-', "")
        ),
    );
}

#[test]
fn a_call_to_one_service_never_links_to_the_same_path_on_another() {
    let dir = tempfile::tempdir().expect("tempdir");
    let alpha = dir.path().join("alpha");
    let beta = dir.path().join("beta");
    let caller = dir.path().join("caller");
    health_service(&alpha, "alpha-service");
    health_service(&beta, "beta-service");
    named_service(&caller, "caller-service");
    write(
        &caller,
        "src/main/java/com/caller/Checks.java",
        r#"package com.caller;
import org.springframework.web.client.RestTemplate;
public class Checks {
    private static final String BETA = "http://beta-service";
    private final RestTemplate rest;
    public Checks(RestTemplate rest) { this.rest = rest; }
    public String beta() { return rest.getForObject(BETA + "/api/health/details", String.class); }
    public String nobody() { return rest.getForObject("http://gamma-service/api/health/details", String.class); }
}
"#,
    );
    let store_dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(store_dir.path()).expect("store");
    let company = Company::from_paths(&[alpha, beta, caller], None).expect("company");
    for p in &company.products {
        index_product(&store, &company, p, &NoProgress).expect("indexes");
    }
    let snap = store.snapshot();
    let invoked = |method: &str| -> Vec<(Option<String>, String)> {
        invoked_by_the_call_of(&snap, method)
            .into_iter()
            .map(|n| (n.attr("service").map(str::to_string), n.name))
            .collect()
    };
    assert_eq!(
        invoked("com.caller.Checks.beta"),
        vec![(Some("beta-service".into()), "GET /api/health/details".into())]
    );
    assert!(
        invoked("com.caller.Checks.nobody").is_empty(),
        "an unknown service is a boundary, never the same path elsewhere"
    );
}

#[test]
fn the_fixture_company_has_no_unresolved_client_calls_or_topologies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let company = Company::load(&super::tests::acme().join("semgraph.toml")).expect("config");
    let mut warnings = Vec::new();
    for product in &company.products {
        let report = index_product(&store, &company, product, &NoProgress).expect("indexes");
        warnings.extend(
            report
                .warnings
                .into_iter()
                .filter(|w| {
                    w.message.contains("HTTP call")
                        || w.message.contains("Kafka Streams")
                        || w.message.contains("web.xml")
                })
                .map(|w| format!("{}:{:?}: {}", w.file, w.line, w.message)),
        );
    }
    assert!(warnings.is_empty(), "{warnings:#?}");
}

/// What the one HTTP call of `method` invokes.
fn invoked_by_the_call_of(snap: &semgraph_storage::Snapshot, method: &str) -> Vec<semgraph_storage::Node> {
    let m = methods_named(snap, method);
    assert_eq!(m.len(), 1, "{method}");
    let calls: Vec<NodeId> = snap
        .adjacency()
        .neighbors(m[0], Direction::Out, EdgeKind::Calls)
        .filter(|id| snap.nodes_of_kind(NodeKind::HttpCall).contains(id.0))
        .collect();
    assert_eq!(calls.len(), 1, "{method} makes one HTTP call");
    let ids: Vec<NodeId> = snap
        .adjacency()
        .neighbors(calls[0], Direction::Out, EdgeKind::Invokes)
        .collect();
    snap.nodes(&ids).expect("read").into_iter().flatten().collect()
}

/// The endpoints the one HTTP call of `method` invokes, as `VERB route` names.
fn invoked_endpoints(snap: &semgraph_storage::Snapshot, method: &str) -> Vec<String> {
    let mut names: Vec<String> = invoked_by_the_call_of(snap, method)
        .into_iter()
        .map(|n| n.name)
        .collect();
    names.sort();
    names
}

#[test]
fn a_test_calling_a_concrete_route_of_its_own_service_reaches_the_endpoint_it_fills() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("owners");
    named_service(&root, "owners-service");
    write(
        &root,
        "src/main/java/com/owners/OwnerResource.java",
        r#"package com.owners;
import org.springframework.web.bind.annotation.*;
@RestController
@RequestMapping("/owners")
public class OwnerResource {
    @GetMapping("/{ownerId}") public String find(@PathVariable int ownerId) { return ""; }
    @GetMapping("/new") public String form() { return ""; }
    @GetMapping("/{ownerId}/pets/{petId}") public String pet(@PathVariable int ownerId, @PathVariable int petId) { return ""; }
    @PutMapping("/{ownerId}") public void update(@PathVariable int ownerId) { }
    @GetMapping("/*/visits") public String visits() { return ""; }
    @GetMapping("/{ownerId}/visits") public String ownerVisits(@PathVariable int ownerId) { return ""; }
    @GetMapping("/files/**") public String file() { return ""; }
    @RequestMapping("/export") public String export() { return ""; }
}
"#,
    );
    write(
        &root,
        "src/test/java/com/owners/OwnerResourceTest.java",
        r#"package com.owners;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.request.MockMvcRequestBuilders;
class OwnerResourceTest {
    MockMvc mvc;
    void finds() throws Exception { mvc.perform(get("/owners/2")); }
    void opensTheForm() throws Exception { mvc.perform(get("/owners/new")); }
    void petByTemplate() throws Exception { mvc.perform(get("/owners/{id}/pets/{pet}", 1, 2)); }
    void petByValues() throws Exception { mvc.perform(get("/owners/1/pets/9").accept("json")); }
    void updates() throws Exception { mvc.perform(MockMvcRequestBuilders.put("/owners/2")); }
    void deletesNothing() throws Exception { mvc.perform(delete("/owners/2")); }
    void visitsOfTwo() throws Exception { mvc.perform(get("/owners/2/visits")); }
    void aFile() throws Exception { mvc.perform(get("/owners/files/photos/2.png")); }
    void exports() throws Exception { mvc.perform(get("/owners/export")); }
}
"#,
    );
    let store_dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(store_dir.path()).expect("store");
    let company = Company::from_paths(&[root], None).expect("company");
    let report = index_product(&store, &company, &company.products[0], &NoProgress).expect("indexes");
    let snap = store.snapshot();
    let t = |m: &str| invoked_endpoints(&snap, &format!("com.owners.OwnerResourceTest.{m}"));
    assert_eq!(t("finds"), vec!["GET /owners/{ownerId}"]);
    // A literal segment is a better fit than a variable: the form, not an owner.
    assert_eq!(t("opensTheForm"), vec!["GET /owners/new"]);
    assert_eq!(t("petByTemplate"), vec!["GET /owners/{ownerId}/pets/{petId}"]);
    assert_eq!(t("petByValues"), vec!["GET /owners/{ownerId}/pets/{petId}"]);
    assert_eq!(t("updates"), vec!["PUT /owners/{ownerId}"]);
    assert!(t("deletesNothing").is_empty(), "no endpoint answers DELETE");
    // `/*/visits` and `/{ownerId}/visits` fill alike: two endpoints, so neither is chosen.
    assert!(t("visitsOfTwo").is_empty(), "a tie links nothing");
    assert_eq!(t("aFile"), vec!["GET /owners/files/**"]);
    // An endpoint of every verb, served as written, beats an owner's variable: the call's
    // own key reaches it.
    assert_eq!(t("exports"), vec!["ANY /owners/export"]);
    assert_eq!(report.stats.get("http-calls.by-route-template"), Some(&4));
    assert_eq!(
        report.stats.get("http-calls.by-route-template.ambiguous"),
        Some(&1)
    );
}

#[test]
fn a_call_from_another_service_reaches_an_endpoint_of_every_verb_unless_one_names_its_verb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let reports = dir.path().join("reports");
    let caller = dir.path().join("caller");
    named_service(&reports, "reports-service");
    write(
        &reports,
        "src/main/java/com/reports/ReportResource.java",
        r#"package com.reports;
import org.springframework.web.bind.annotation.*;
@RestController
@RequestMapping("/reports")
public class ReportResource {
    @RequestMapping("/{id}") public String report(@PathVariable long id) { return ""; }
    @RequestMapping("/latest") public String latest() { return ""; }
    @GetMapping("/latest") public String latestRead() { return ""; }
    @RequestMapping("/twice") public String once() { return ""; }
    @RequestMapping(path = "/twice") public String again() { return ""; }
}
"#,
    );
    named_service(&caller, "caller-service");
    write(
        &caller,
        "src/main/java/com/caller/Reports.java",
        r#"package com.caller;
import org.springframework.web.client.RestTemplate;
public class Reports {
    private final RestTemplate rest;
    public Reports(RestTemplate rest) { this.rest = rest; }
    public String one(long id) { return rest.getForObject("http://reports-service/reports/{id}", String.class, id); }
    public void post(long id) { rest.postForObject("http://reports-service/reports/{id}", "x", String.class, id); }
    public String latest() { return rest.getForObject("http://reports-service/reports/latest", String.class); }
    public void latestPut() { rest.put("http://reports-service/reports/latest", "x"); }
    public String twice() { return rest.getForObject("http://reports-service/reports/twice", String.class); }
}
"#,
    );
    write(
        &caller,
        "src/main/java/com/caller/ReportClient.java",
        r#"package com.caller;
import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.*;
@FeignClient("reports-service")
public interface ReportClient {
    @RequestMapping("/reports/{id}") String report(@PathVariable long id);
}
"#,
    );
    let store_dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(store_dir.path()).expect("store");
    let company = Company::from_paths(&[reports, caller], None).expect("company");
    for p in &company.products {
        index_product(&store, &company, p, &NoProgress).expect("indexes");
    }
    let snap = store.snapshot();
    let t = |m: &str| invoked_endpoints(&snap, &format!("com.caller.{m}"));
    assert_eq!(t("Reports.one"), vec!["ANY /reports/{id}"]);
    assert_eq!(t("Reports.post"), vec!["ANY /reports/{id}"]);
    // A mapping that names the verb takes that verb; the others stay with every verb's.
    assert_eq!(t("Reports.latest"), vec!["GET /reports/latest"]);
    assert_eq!(t("Reports.latestPut"), vec!["ANY /reports/latest"]);
    assert!(
        t("Reports.twice").is_empty(),
        "two endpoints of every verb: ambiguous"
    );
    // Feign sends a mapping with no method as a GET.
    let feign = invoked_by_the_call_of(&snap, "com.caller.ReportClient.report");
    assert_eq!(feign.len(), 1);
    assert_eq!(feign[0].name, "ANY /reports/{id}");
}
