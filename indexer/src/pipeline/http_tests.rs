//! Outbound HTTP clients, spec-declared endpoints and Kafka Streams: on the fixture company
//! against `EXPECTED.md`, on small Java sources for the URL rules, and on a look-alike
//! company where two services expose the same path.

use std::path::Path;

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Store};

use super::http_clients::{client_calls, destination, Destination, FoundCall};
use super::spec_endpoints::{openapi_operations, plural, web_xml_servlets};
use super::streams::{topology_calls, Flow};
use super::tests::{index_acme, methods_named, neighbour_names};
use super::values::Values;
use super::*;
use crate::java::{parse_java_file, JavaFile, SymbolTable};
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

/// Parses `sources` (path, text) as one product and returns the facts and symbol table.
fn product(sources: &[(&str, &str)]) -> (Vec<JavaFile>, SymbolTable) {
    let facts: Vec<JavaFile> = sources.iter().map(|(p, t)| parse_java_file(p, t)).collect();
    let table = SymbolTable::build(facts.iter());
    (facts, table)
}

/// The client calls of method `method` of the first file, with config values from `config`.
fn calls_of(
    sources: &[(&str, &str)],
    method: &str,
    config: &[(&str, &str)],
) -> (Vec<FoundCall>, Vec<String>) {
    let (facts, table) = product(sources);
    let resolve = |_: &str, v: &str| -> String {
        let mut out = v.to_string();
        for (k, val) in config {
            out = out.replace(&format!("${{{k}}}"), val);
        }
        // `${key:default}` of an unset key takes its default.
        while let Some(start) = out.find("${") {
            let Some(end) = out[start..].find('}') else { break };
            let inner = &out[start + 2..start + end];
            let Some((_, default)) = inner.split_once(':') else {
                break;
            };
            out = format!("{}{}{}", &out[..start], default, &out[start + end + 1..]);
        }
        out
    };
    let values = Values {
        types: facts
            .iter()
            .flat_map(|f| &f.types)
            .map(|t| (t.fqn.as_str(), t))
            .collect(),
        table: &table,
        resolve: &resolve,
    };
    let file = &facts[0];
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    for t in &file.types {
        for m in t.methods.iter().filter(|m| m.name == method) {
            let (f, u) = client_calls(&values, file, t, m);
            found.extend(f);
            warnings.extend(u.into_iter().map(|u| format!("{}: {}", u.line, u.message)));
        }
    }
    (found, warnings)
}

fn urls(found: &[FoundCall]) -> Vec<(String, String)> {
    found.iter().map(|c| (c.verb.clone(), c.url.clone())).collect()
}

const URLS: &str = r#"
package com.x.shared;
public final class Urls {
    public static final String ORDERS = "http://orders-service";
    public static final String ITEMS = ORDERS + "/api/items";
}
"#;

#[test]
fn rest_template_urls_from_constants_of_other_classes_and_static_imports() {
    let client = r#"
package com.x.client;
import static com.x.shared.Urls.ORDERS;
import com.x.shared.Urls;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.RestTemplate;
class Client {
    private final RestTemplate rest;
    Client(RestTemplate rest) { this.rest = rest; }
    void calls(String id, Item item) {
        rest.getForObject(Urls.ITEMS + "/{id}", Item.class, id);
        rest.delete(ORDERS + "/api/orders/" + id);
        rest.exchange(Urls.ITEMS, HttpMethod.PUT, null, Void.class);
        rest.postForEntity(String.format("%s/api/items/%s/lines", ORDERS, item.getSku()), item, Void.class);
    }
}
"#;
    let (found, warnings) = calls_of(&[("Client.java", client), ("Urls.java", URLS)], "calls", &[]);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        urls(&found),
        vec![
            ("GET".into(), "http://orders-service/api/items/{id}".into()),
            ("DELETE".into(), "http://orders-service/api/orders/{id}".into()),
            ("PUT".into(), "http://orders-service/api/items".into()),
            (
                "POST".into(),
                "http://orders-service/api/items/{sku}/lines".into()
            ),
        ]
    );
    assert!(found.iter().all(|c| c.client == "rest-template"));
}

#[test]
fn config_bound_base_urls_take_the_configured_value_or_the_default() {
    let client = r#"
package com.x;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
class Client {
    @Value("${billing.url}")
    private String billingUrl;
    private final WebClient web;
    private final RestTemplate rest;
    Client(WebClient.Builder b, RestTemplate rest, @Value("${stock.url:http://stock-service}") String stock) {
        this.web = b.baseUrl(stock).build();
        this.rest = rest;
    }
    void calls(long id) {
        web.get().uri("/api/stock/{id}", id).retrieve();
        rest.getForObject(billingUrl + "/api/invoices/" + id, Object.class);
        String local = billingUrl + "/api/credit";
        rest.postForObject(local, null, Object.class);
    }
}
"#;
    let (found, warnings) = calls_of(
        &[("Client.java", client)],
        "calls",
        &[("billing.url", "lb://billing")],
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        urls(&found),
        vec![
            ("GET".into(), "http://stock-service/api/stock/{id}".into()),
            ("GET".into(), "lb://billing/api/invoices/{id}".into()),
            ("POST".into(), "lb://billing/api/credit".into()),
        ]
    );
}

#[test]
fn fluent_clients_take_their_verb_uri_and_inline_base_url() {
    let client = r#"
package com.x;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
class Client {
    private final RestClient rest = RestClient.create("http://catalog");
    void calls(String sku) {
        rest.method(HttpMethod.PATCH).uri("/api/products/{sku}", sku).retrieve();
        WebClient.create("http://pricing").post().uri(b -> b.path("/api/prices/{sku}").build(sku)).retrieve();
        rest.get().uri("/api/products").retrieve();
    }
}
"#;
    let (found, warnings) = calls_of(&[("Client.java", client)], "calls", &[]);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(
        urls(&found),
        vec![
            ("PATCH".into(), "http://catalog/api/products/{sku}".into()),
            ("POST".into(), "http://pricing/api/prices/{sku}".into()),
            ("GET".into(), "http://catalog/api/products".into()),
        ]
    );
}

#[test]
fn a_url_the_source_does_not_fix_is_a_warning_and_no_call() {
    let client = r#"
package com.x;
import org.springframework.web.client.RestTemplate;
class Client {
    private final RestTemplate rest;
    Client(RestTemplate rest) { this.rest = rest; }
    void calls(boolean b, Registry registry) {
        rest.getForObject(b ? "http://a/x" : "http://b/x", Object.class);
        rest.getForObject(registry.urlOf("orders").toString() + "/x", Object.class);
        rest.getForObject("${missing.key}/x", Object.class);
        String url = "http://a/x";
        url = url + "/y";
        rest.getForObject(url, Object.class);
    }
}
"#;
    let (found, warnings) = calls_of(&[("Client.java", client)], "calls", &[]);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].starts_with("8:"), "{warnings:?}");
    // A placeholder literal and a reassigned local are not hosts the source fixes: they
    // are found with a template, and `destination` refuses them.
    for c in &found {
        assert_eq!(destination(&c.url), Destination::Unknown, "{}", c.url);
    }
}

#[test]
fn destinations_are_hosts_with_their_path() {
    assert_eq!(
        destination("lb://orders-service/api/orders/{id}?x=1"),
        Destination::Host {
            host: "orders-service".into(),
            path: "/api/orders/{id}?x=1".into()
        }
    );
    assert_eq!(
        destination("http://user@inventory.default.svc.cluster.local:8080/api"),
        Destination::Host {
            host: "inventory".into(),
            path: "/api".into()
        }
    );
    assert_eq!(destination("/api/x"), Destination::Relative("/api/x".into()));
    assert_eq!(destination("{base}/api/x"), Destination::Unknown);
    assert_eq!(destination("http://{host}/api/x"), Destination::Unknown);
}

#[test]
fn stream_topologies_name_their_topics_from_constants_and_config() {
    let topology = r#"
package com.x;
import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
class Topology {
    static final String IN = "orders";
    @Value("${topics.out}")
    private String out;
    KStream<String, String> build(StreamsBuilder builder, java.util.regex.Pattern p) {
        KStream<String, String> s = builder.stream(List.of(IN, "returns"));
        s.mapValues(v -> v).to(out);
        builder.stream(p);
        s.to("audit-log");
        return s;
    }
}
"#;
    let (facts, table) = product(&[("Topology.java", topology)]);
    let resolve = |_: &str, v: &str| v.replace("${topics.out}", "order-totals");
    let values = Values {
        types: facts
            .iter()
            .flat_map(|f| &f.types)
            .map(|t| (t.fqn.as_str(), t))
            .collect(),
        table: &table,
        resolve: &resolve,
    };
    let t = &facts[0].types[0];
    let m = t.methods.iter().find(|m| m.name == "build").expect("build");
    let mut got: Vec<String> = topology_calls(&values, &facts[0], t, m)
        .into_iter()
        .map(|c| match c {
            Ok((_, Flow::Consumes, names)) => format!("in {}", names.join(",")),
            Ok((_, Flow::Produces, names)) => format!("out {}", names.join(",")),
            Ok((_, Flow::Both, names)) => format!("through {}", names.join(",")),
            Err(line) => format!("unknown at {line}"),
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            "in orders,returns",
            "out audit-log",
            "out order-totals",
            "unknown at 14"
        ]
    );
}

#[test]
fn openapi_documents_of_both_versions_list_their_operations() {
    let v3 = "openapi: 3.0.1\npaths:\n  /a/{id}:\n    get:\n      operationId: getA\n    parameters: []\n";
    let ops = openapi_operations(v3).expect("loadable");
    assert_eq!(ops.len(), 1);
    assert_eq!(
        (ops[0].id.as_str(), ops[0].verb.as_str(), ops[0].path.as_str()),
        ("getA", "GET", "/a/{id}")
    );
    let v2 =
        r#"{"swagger": "2.0", "basePath": "/v2", "paths": {"/pets": {"post": {"operationId": "addPet"}}}}"#;
    let ops = openapi_operations(v2).expect("loadable");
    assert_eq!(
        (ops[0].id.as_str(), ops[0].verb.as_str(), ops[0].path.as_str()),
        ("addPet", "POST", "/pets")
    );
    assert!(openapi_operations("spring:\n  application:\n    name: x\n").is_ok_and(|o| o.is_empty()));
}

#[test]
fn data_rest_paths_are_english_plurals() {
    assert_eq!(plural("Warehouse"), "Warehouses");
    assert_eq!(plural("StockItem"), "StockItems");
    assert_eq!(plural("Category"), "Categories");
    assert_eq!(plural("Address"), "Addresses");
    assert_eq!(plural("Person"), "People");
    assert_eq!(plural("Day"), "Days");
}

#[test]
fn web_xml_maps_servlet_classes_to_their_patterns() {
    let xml = r#"<web-app>
      <!-- <servlet><servlet-name>old</servlet-name><servlet-class>a.Old</servlet-class></servlet> -->
      <servlet><servlet-name>s</servlet-name><servlet-class> a.b.S </servlet-class></servlet>
      <servlet-mapping><servlet-name>s</servlet-name><url-pattern>/x</url-pattern><url-pattern>/y/*</url-pattern></servlet-mapping>
      <servlet-mapping><servlet-name>old</servlet-name><url-pattern>/old</url-pattern></servlet-mapping>
    </web-app>"#;
    assert_eq!(
        web_xml_servlets(xml),
        vec![("a.b.S".to_string(), vec!["/x".to_string(), "/y/*".to_string()])]
    );
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn health_service(root: &Path, name: &str) {
    write(
        root,
        "src/main/resources/application.yml",
        &format!("spring:\n  application:\n    name: {name}\n"),
    );
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
    write(
        &caller,
        "src/main/resources/application.yml",
        "spring:\n  application:\n    name: caller-service\n",
    );
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
        let m = methods_named(&snap, method);
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
        snap.nodes(&ids)
            .expect("read")
            .into_iter()
            .flatten()
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
