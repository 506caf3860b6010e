//! Golden documents of every recipe on the fixture company, and the recipe facts of
//! `fixtures/acme/EXPECTED.md` checked on the answers.
//!
//! Elapsed times and run dates are normalised before snapshotting; everything else in a
//! document is deterministic for one fixture. `cargo insta review` (or `INSTA_UPDATE=always`)
//! accepts a deliberate change of shape — which also bumps the recipe's `recipe_version`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use semgraph::workspace::LocalWorkspace;
use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_queries::{execute, execute_with, Caller, Document, Request};
use semgraph_storage::Store;

#[path = "support/scratch.rs"]
mod scratch;

fn acme() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme")
}

/// The fixture company, indexed once for the whole test binary.
fn store() -> &'static Store {
    static STORE: OnceLock<(PathBuf, Store)> = OnceLock::new();
    &STORE
        .get_or_init(|| {
            let dir = scratch::process_dir("recipes");
            let store = Store::open(&dir).expect("store");
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
    // The fixture lives in semgraph's own repository: the commit it was indexed at is
    // whatever semgraph's HEAD is, and its tree may be dirty while someone works.
    settings.add_filter(r"(?m)^- WARN: [^\n]*indexed at [^\n]*\n", "");
    settings.add_filter(r"indexed at [0-9a-f]{7}[^(\n]*\(", "indexed at COMMIT (");
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
fn kotlin_product_golden_documents() {
    // The logistics product is Kotlin (with one Java class): the same recipes answer.
    golden(
        "impact-kotlin-shipment-service-get",
        &ask(
            "recipes",
            "impact",
            &[("target", "com.acme.shipping.service.ShipmentService.get")],
        ),
    );
    golden(
        "table-analysis-shipments",
        &ask("recipes", "table-analysis", &[("table", "shipments")]),
    );
    golden(
        "endpoint-trace-post-shipments-dispatch",
        &ask(
            "recipes",
            "endpoint-trace",
            &[("endpoint", "POST /api/shipments/{id}/dispatch")],
        ),
    );
    golden(
        "code-callers-kotlin-companion",
        &ask(
            "code",
            "callers",
            &[
                ("fqn", "com.acme.shipping.web.ShipmentDto.Companion.from"),
                ("depth", "2"),
            ],
        ),
    );
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
    let diff = std::fs::read_to_string(acme().join("changes/orders-open-orders.diff")).expect("the diff");
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
        ("change-impact", vec![("diff", diff.as_str())]),
    ] {
        let doc = ask("recipes", endpoint, &params);
        let lines: Vec<&str> = doc.markdown.lines().collect();
        assert!(lines[0].starts_with("# "), "{endpoint}: title first");
        let version = lines[2]
            .strip_prefix(&format!("recipe_version: {endpoint}/"))
            .unwrap_or_else(|| panic!("{endpoint}: version second, got {}", lines[2]));
        assert!(
            version.parse::<u32>().is_ok_and(|v| v >= 1),
            "{endpoint}: the version is a number: {version}"
        );
        assert_eq!(lines[4], "## Steps executed", "{endpoint}: steps third");
        assert!(
            lines[6].starts_with("- ") && lines[6].contains(" → ") && lines[6].ends_with("s)"),
            "{endpoint}: {}",
            lines[6]
        );
        assert_eq!(
            doc.json_value()["recipe_version"],
            format!("{endpoint}/{version}")
        );
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
        let got: BTreeSet<String> = doc.json_value()["endpoints"]
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

/// The crossings of endpoint traces by (endpoint, depth): (from, through, into handler).
type Crossings = std::collections::BTreeMap<(String, String), BTreeSet<(String, String, String)>>;

/// A method as a trace shows it, without its parameter list.
fn without_params(m: &str) -> &str {
    m.split('(').next().unwrap_or(m)
}

#[test]
fn endpoint_traces_cross_exactly_the_boundaries_expected_md_lists() {
    let mut expected: Crossings = Default::default();
    for row in expected_rows("Endpoint traces") {
        expected
            .entry((row[0].clone(), row[1].clone()))
            .or_default()
            .insert((row[2].clone(), row[3].clone(), row[4].clone()));
    }
    assert!(!expected.is_empty(), "the Endpoint traces section was read");
    for ((endpoint, depth), want) in &expected {
        let doc = ask(
            "recipes",
            "endpoint-trace",
            &[("endpoint", endpoint), ("depth", depth)],
        );
        let got: BTreeSet<(String, String, String)> = doc.json_value()["crossings"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| {
                (
                    without_params(c["from"].as_str().unwrap_or("")).to_string(),
                    format!(
                        "{} {}",
                        c["kind"].as_str().unwrap_or(""),
                        c["via"].as_str().unwrap_or("")
                    ),
                    without_params(c["handler"].as_str().unwrap_or("")).to_string(),
                )
            })
            .collect();
        assert_eq!(&got, want, "{endpoint} at depth {depth}");
        // Every method reached across a boundary says which crossing it came through.
        let crossed: usize = doc.json_value()["methods_by_depth"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|l| l.as_array().cloned().unwrap_or_default())
            .filter(|m| m.get("via").is_some())
            .count();
        assert!(
            crossed >= want.len(),
            "{endpoint}: {crossed} methods marked as reached across a boundary"
        );
    }
}

#[test]
fn table_analysis_lists_the_triggers_and_views_expected_md_lists() {
    for row in expected_rows("Triggers") {
        let doc = ask("recipes", "table-analysis", &[("table", &row[0])]);
        let triggers: Vec<String> = doc.json_value()["analyses"][0]["triggers"]
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
            let views: Vec<String> = doc.json_value()["analyses"][0]["views"]
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
    let callers: Vec<String> = doc.json_value()["rows"]
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

/// The pull request of `fixtures/acme/changes/` (see EXPECTED.md, `Change impact`), asked
/// with this machine's workspace (the new side of each file is the fixture with the diff
/// applied).
fn change_impact() -> Document {
    let diff = std::fs::read_to_string(acme().join("changes/orders-open-orders.diff")).expect("the diff");
    let request = Request::new("recipes", "change-impact", [("diff", diff.as_str())]);
    match execute_with(
        &store().snapshot(),
        &Caller::full_access(),
        &request,
        &LocalWorkspace::new(),
    ) {
        Ok(doc) => doc,
        Err(e) => panic!("change-impact failed: {}", e.body()),
    }
}

#[test]
fn change_impact_golden_document() {
    golden("change-impact-orders-open-orders", &change_impact());
}

/// The tables under `## section` of EXPECTED.md, each a list of rows (header dropped).
fn expected_tables(section: &str) -> Vec<Vec<Vec<String>>> {
    let text = std::fs::read_to_string(acme().join("EXPECTED.md")).expect("EXPECTED.md");
    let mut tables: Vec<Vec<Vec<String>>> = Vec::new();
    let mut inside = false;
    let mut in_table = false;
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            inside = h.trim() == section;
            continue;
        }
        if !inside {
            continue;
        }
        if line.starts_with('|') {
            if !in_table {
                tables.push(Vec::new());
                in_table = true;
                continue; // header
            }
            if line.starts_with("|---") {
                continue;
            }
            if let Some(t) = tables.last_mut() {
                t.push(
                    line.trim_matches('|')
                        .split('|')
                        .map(|c| c.trim().to_string())
                        .collect(),
                );
            }
        } else {
            in_table = false;
        }
    }
    tables
}

#[test]
fn change_impact_gives_the_facts_expected_md_lists() {
    let tables = expected_tables("Change impact");
    assert_eq!(tables.len(), 2, "two tables in the Change impact section");
    let doc = change_impact();
    let j = &doc.json_value();
    assert_eq!(j["recipe_version"], "change-impact/1");
    assert_eq!(j["complete"], true, "every file is mapped: {}", doc.markdown);
    // Exactly the declarations listed, each with its change.
    let strip = |name: &str| name.split('(').next().unwrap_or(name).to_string();
    let mut got: BTreeSet<(String, String, String)> = BTreeSet::new();
    for part in ["code", "schema", "config"] {
        for t in j[part].as_array().cloned().unwrap_or_default() {
            got.insert((
                t["change"].as_str().unwrap_or("").to_string(),
                t["kind"].as_str().unwrap_or("").to_string(),
                strip(t["name"].as_str().unwrap_or("")),
            ));
        }
    }
    let want: BTreeSet<(String, String, String)> = tables[0]
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect();
    assert_eq!(got, want, "declarations touched");
    // The new route, said as not in the graph yet.
    let routes: Vec<(String, bool)> = j["endpoints_touched"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            (
                e["endpoint"].as_str().unwrap_or("").to_string(),
                e["indexed"].as_bool().unwrap_or(true),
            )
        })
        .collect();
    assert!(
        routes.contains(&("GET /api/orders/customers/{customerId}/open".to_string(), false)),
        "{routes:?}"
    );
    // What the consolidated impact reaches.
    let rows = |key: &str| j[key].as_array().cloned().unwrap_or_default();
    let endpoints: BTreeSet<String> = rows("endpoints")
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["service"].as_str().unwrap_or(""),
                e["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    let entry_points: BTreeSet<String> = rows("entry_points")
        .iter()
        .map(|e| {
            format!(
                "{} {} {}",
                e["service"].as_str().unwrap_or(""),
                e["kind"].as_str().unwrap_or(""),
                e["name"].as_str().unwrap_or("")
            )
        })
        .collect();
    let http_callers: BTreeSet<String> = rows("other_products")
        .iter()
        .map(|c| strip(c["caller"].as_str().unwrap_or("")))
        .collect();
    let tables_written: BTreeSet<String> = rows("tables_written")
        .iter()
        .map(|t| t["table"].as_str().unwrap_or("").to_string())
        .collect();
    let tests: BTreeSet<String> = rows("tests")
        .iter()
        .flat_map(|c| {
            let class = c["class"].as_str().unwrap_or("").to_string();
            c["methods"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |m| format!("{class}.{}", m.as_str().unwrap_or("")))
        })
        .collect();
    let mut problems = Vec::new();
    for row in &tables[1] {
        let (what, name) = (row[0].as_str(), &row[1]);
        let found = match what {
            "endpoint" => endpoints.contains(name),
            "entry point" => entry_points.contains(name),
            "http caller" => http_callers.contains(name),
            "table written" => tables_written.contains(name),
            "test" => tests.contains(name),
            "none" => !endpoints.contains(name),
            other => panic!("unknown row kind {other}"),
        };
        if !found {
            problems.push(format!("{what} {name}"));
        }
    }
    assert!(
        problems.is_empty(),
        "not as EXPECTED.md says: {problems:?}\nendpoints {endpoints:?}\nentry points {entry_points:?}\ntests {tests:?}"
    );
}

/// A flowchart as the recipes write it, read back by a parser of the subset they emit:
/// `flowchart LR`, `subgraph ID["label"]` … `end`, nodes `ID<open>"label"<close>`, edges
/// `A -->|"label"| B`, `A -.->|"label"| B`, `A --> B`. It fails on anything else, and on
/// what Mermaid itself refuses: an unquoted label, a raw `"` inside one, an id that is not
/// a plain word or is a keyword (`end`), an edge to an undeclared node, an unclosed
/// subgraph, an id declared twice.
#[derive(Debug, Default)]
struct Diagram {
    /// Node id → label.
    nodes: std::collections::BTreeMap<String, String>,
    /// Subgraph labels.
    groups: Vec<String>,
    /// (from, to, label).
    edges: Vec<(String, String, String)>,
}

impl Diagram {
    /// Every label of a node or a subgraph.
    fn labels(&self) -> BTreeSet<String> {
        self.nodes.values().chain(&self.groups).cloned().collect()
    }
}

fn mermaid_id(id: &str) -> Result<String, String> {
    const KEYWORDS: &[&str] = &[
        "end",
        "graph",
        "flowchart",
        "subgraph",
        "style",
        "class",
        "classDef",
        "click",
        "linkStyle",
        "direction",
    ];
    let plain = id.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !plain || KEYWORDS.contains(&id) {
        return Err(format!("bad id `{id}`"));
    }
    Ok(id.to_string())
}

/// `"label"` → label, refusing a raw quote inside it.
fn quoted(text: &str) -> Result<String, String> {
    let inner = text
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .ok_or_else(|| format!("unquoted label `{text}`"))?;
    if inner.contains('"') {
        return Err(format!("a raw quote in `{text}`"));
    }
    Ok(inner
        .replace("#quot;", "\"")
        .replace("#lt;", "<")
        .replace("#gt;", ">")
        .replace("#35;", "#"))
}

fn parse_mermaid(text: &str) -> Result<Diagram, String> {
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some("flowchart LR") {
        return Err("the first line is not `flowchart LR`".into());
    }
    let mut d = Diagram::default();
    let mut open = 0;
    let mut ids = BTreeSet::new();
    for line in lines.map(str::trim).filter(|l| !l.is_empty()) {
        if line == "end" {
            if open == 0 {
                return Err("`end` without a subgraph".into());
            }
            open -= 1;
            continue;
        }
        if let Some(rest) = line.strip_prefix("subgraph ") {
            let (id, label) = rest.split_once('[').ok_or("a subgraph without a label")?;
            let id = mermaid_id(id)?;
            if !ids.insert(id) {
                return Err(format!("id declared twice: {line}"));
            }
            d.groups.push(quoted(
                label.strip_suffix(']').ok_or("an unclosed subgraph label")?,
            )?);
            open += 1;
            continue;
        }
        let arrow = [" -.->", " -->"]
            .iter()
            .find_map(|a| line.find(a).map(|at| (at, a.len())));
        if let Some((at, len)) = arrow {
            let from = mermaid_id(&line[..at])?;
            let rest = line[at + len..].trim_start();
            let (label, to) = match rest.strip_prefix('|') {
                Some(r) => {
                    let (label, to) = r.split_once("| ").ok_or("an unclosed edge label")?;
                    (quoted(label)?, to)
                }
                None => (String::new(), rest),
            };
            d.edges.push((from, mermaid_id(to.trim())?, label));
            continue;
        }
        let pairs = [
            ("{{", "}}"),
            ("([", "])"),
            ("[(", ")]"),
            ("[[", "]]"),
            ("[", "]"),
            ("(", ")"),
        ];
        let (open_at, (o, c)) = pairs
            .iter()
            .filter_map(|p| line.find(p.0).map(|at| (at, *p)))
            .min_by_key(|(at, p)| (*at, std::cmp::Reverse(p.0.len())))
            .ok_or_else(|| format!("not a node, edge or subgraph: {line}"))?;
        let id = mermaid_id(&line[..open_at])?;
        let label = line[open_at + o.len()..]
            .strip_suffix(c)
            .ok_or_else(|| format!("a node not closed by `{c}`: {line}"))?;
        if !ids.insert(id.clone()) {
            return Err(format!("id declared twice: {line}"));
        }
        d.nodes.insert(id, quoted(label)?);
    }
    if open != 0 {
        return Err("an unclosed subgraph".into());
    }
    for (a, b, _) in &d.edges {
        for end in [a, b] {
            if !d.nodes.contains_key(end) {
                return Err(format!("an edge to the undeclared node {end}"));
            }
        }
    }
    Ok(d)
}

/// The diagram of a document: its one `mermaid` block, parsed.
fn diagram_of(doc: &Document) -> Diagram {
    let md = &doc.markdown;
    let start = md.find("```mermaid\n").expect("a mermaid block") + "```mermaid\n".len();
    let end = start + md[start..].find("\n```").expect("a closed block");
    parse_mermaid(&md[start..end]).unwrap_or_else(|e| panic!("{e}:\n{}", &md[start..end]))
}

/// The cells of column `column` of the first table under `## section`, backticks dropped.
fn column(doc: &Document, section: &str, column: &str) -> Vec<String> {
    let mut lines = doc
        .markdown
        .lines()
        .skip_while(|l| l.trim() != format!("## {section}"))
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.starts_with('|'));
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let cells = |l: &str| -> Vec<String> {
        l.trim()
            .trim_matches('|')
            .split(" | ")
            .map(|c| c.trim().replace('`', ""))
            .collect()
    };
    let at = cells(header)
        .iter()
        .position(|h| h == column)
        .unwrap_or_else(|| panic!("no column {column} under {section}"));
    lines
        .filter(|l| !l.starts_with("|---"))
        .map(|l| cells(l)[at].clone())
        .collect()
}

/// Whether the diagram names `what`: a label that is it, or is it followed by ` (…)`.
fn names(d: &Diagram, what: &str) -> bool {
    d.labels()
        .iter()
        .any(|l| l == what || l.starts_with(&format!("{what} (")) || l == &format!("changed: {what}"))
}

/// `service VERB /path` → (service, `VERB /path`).
fn split_endpoint(text: &str) -> (String, String) {
    let (s, r) = text.split_once(' ').unwrap_or((text, ""));
    (s.to_string(), r.to_string())
}

#[test]
fn the_diagrams_name_every_service_and_boundary_of_their_tables() {
    // endpoint-trace: the services and endpoints called, the tables, the topics.
    let trace = ask("recipes", "endpoint-trace", &[("endpoint", "POST /api/orders")]);
    let d = diagram_of(&trace);
    let mut checked = 0;
    for t in column(&trace, "Tables", "table") {
        assert!(names(&d, &t), "table {t} in {:?}", d.labels());
        checked += 1;
    }
    for s in column(&trace, "Outbound HTTP", "target service") {
        assert!(names(&d, &s), "service {s} in {:?}", d.labels());
        checked += 1;
    }
    for r in column(&trace, "Outbound HTTP", "resolves to") {
        for target in r.split(", ") {
            let (service, route) = split_endpoint(target);
            assert!(
                names(&d, &service) && names(&d, &route),
                "{target} in {:?}",
                d.labels()
            );
            checked += 1;
        }
    }
    for t in column(&trace, "Topics produced", "topic") {
        assert!(names(&d, &t), "topic {t} in {:?}", d.labels());
        checked += 1;
    }
    assert!(
        names(&d, "orders-service") && names(&d, "POST /api/orders"),
        "{:?}",
        d.labels()
    );
    assert!(
        checked >= 6,
        "the fixture's trace crosses services: {checked} names checked"
    );
    for id in d.nodes.keys().filter(|id| d.labels().len() > 1 && *id != "n0") {
        assert!(
            d.edges.iter().any(|(_, to, _)| to == id),
            "every boundary hangs off the path: {id} in {d:?}"
        );
    }

    // impact: endpoints reached, callers over HTTP, tables written, topics and consumers.
    for target in [
        "com.acme.inventory.service.ReservationService.reserve",
        "com.acme.orders.events.OrderEventPublisher.publish",
        "POST /api/orders",
    ] {
        let doc = ask("recipes", "impact", &[("target", target)]);
        let d = diagram_of(&doc);
        let section = "Endpoints and entry points reached";
        for (service, name) in
            column(&doc, section, "service")
                .into_iter()
                .zip(column(&doc, section, "endpoint / trigger"))
        {
            assert!(
                names(&d, &service) && names(&d, &name),
                "{target}: {service} {name} in {:?}",
                d.labels()
            );
        }
        for e in column(&doc, "Other services calling in over HTTP", "calls endpoint") {
            let (service, route) = split_endpoint(&e);
            assert!(
                names(&d, &service) && names(&d, &route),
                "{target}: {e} in {:?}",
                d.labels()
            );
        }
        for p in column(&doc, "Other services calling in over HTTP", "product") {
            assert!(
                d.groups.iter().any(|g| g.contains(&p)),
                "{target}: caller product {p} in {:?}",
                d.groups
            );
        }
        for t in column(&doc, "Tables written", "table") {
            assert!(names(&d, &t), "{target}: table {t} in {:?}", d.labels());
        }
        for t in column(&doc, "Messaging", "topic") {
            assert!(names(&d, &t), "{target}: topic {t} in {:?}", d.labels());
        }
        for consumers in column(&doc, "Messaging", "consumers (downstream)") {
            for c in consumers.split(", ").filter(|c| *c != "none indexed") {
                let product = c
                    .rsplit_once(" (")
                    .map(|(_, p)| p.trim_end_matches(')'))
                    .unwrap_or(c);
                assert!(
                    names(&d, product),
                    "{target}: consumer {product} in {:?}",
                    d.labels()
                );
            }
        }
    }
    let publish = ask(
        "recipes",
        "impact",
        &[("target", "com.acme.orders.events.OrderEventPublisher.publish")],
    );
    assert!(
        !column(&publish, "Messaging", "topic").is_empty(),
        "the fixture's publisher produces a topic, so the check above saw one"
    );
}

#[test]
fn the_service_map_has_exactly_the_dependencies_within_a_product_expected_md_lists() {
    let doc = ask("recipes", "service-map", &[]);
    let json = doc.json_value();
    let deps = json["dependencies"].as_array().expect("dependencies");
    let within: BTreeSet<Vec<String>> = deps
        .iter()
        .filter(|d| d["from"]["product"] == d["to"]["product"])
        .map(|d| {
            vec![
                d["from"]["product"].as_str().unwrap_or_default().to_string(),
                d["from"]["service"].as_str().unwrap_or_default().to_string(),
                d["to"]["service"].as_str().unwrap_or_default().to_string(),
                d["kind"].as_str().unwrap_or_default().to_string(),
                d["detail"].as_str().unwrap_or_default().to_string(),
            ]
        })
        .collect();
    let expected: BTreeSet<Vec<String>> = expected_rows("Service map").into_iter().collect();
    assert_eq!(within, expected, "{}", doc.markdown);
    assert!(
        json["unreached"].as_array().is_some_and(Vec::is_empty),
        "{}",
        doc.markdown
    );
    // Every HTTP dependency names the service on each side.
    for d in deps.iter().filter(|d| d["kind"] == "http") {
        assert!(
            d["from"]["service"].is_string() && d["to"]["service"].is_string(),
            "{d}"
        );
    }
}
