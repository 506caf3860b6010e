//! One small multi-file Java company per feature, indexed into a real store, its graph facts
//! rendered as text and compared with a reviewed snapshot — and a corpus of look-alikes where
//! any wrong edge fails the test.
//!
//! Each case writes its files under `<product>/…` in a temporary folder; each product folder
//! is one repository (`semgraph index PATH…` semantics). The rendered facts list types,
//! hierarchy, calls with their lines, endpoints, HTTP calls and where they land, topics, and
//! the run's unresolved-call count — everything a wrong resolution would change.

use std::collections::BTreeSet;
use std::path::PathBuf;

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_storage::{Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind, Snapshot, Store};

fn index(files: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut products = BTreeSet::new();
    for (path, text) in files {
        let full = dir.path().join("src").join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(&full, text).expect("write");
        products.insert(path.split('/').next().expect("product folder").to_string());
    }
    let paths: Vec<PathBuf> = products.iter().map(|p| dir.path().join("src").join(p)).collect();
    let company = Company::from_paths(&paths, Some(dir.path().join("store"))).expect("company");
    let store = Store::open(dir.path().join("store")).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    (dir, store)
}

fn load(snap: &Snapshot, ids: impl IntoIterator<Item = u32>) -> Vec<Node> {
    let ids: Vec<NodeId> = ids.into_iter().map(NodeId).collect();
    snap.nodes(&ids).expect("read").into_iter().flatten().collect()
}

fn method_name(n: &Node) -> String {
    let fqn = n.display_name().to_string();
    match n.attr("signature") {
        Some(sig) => format!("{fqn}{}", &sig[sig.find('(').unwrap_or(sig.len())..]),
        None => fqn,
    }
}

/// The graph facts of every product, one per line, sorted within sections.
fn facts(store: &Store) -> String {
    let snap = store.snapshot();
    let adj = snap.adjacency();
    let mut out = Vec::new();
    for product in snap.products() {
        let mut lines = Vec::new();
        for t in load(
            &snap,
            snap.product_nodes_of_kind(&product.name, NodeKind::Type).iter(),
        ) {
            if t.flags.contains(NodeFlags::EXTERNAL) {
                continue;
            }
            let mut line = format!("type {} ({})", t.display_name(), t.attr("kind").unwrap_or("?"));
            for (kind, word) in [
                (EdgeKind::Extends, "extends"),
                (EdgeKind::Implements, "implements"),
            ] {
                let sup: Vec<String> = load(&snap, adj.neighbors(t.id, Direction::Out, kind).map(|n| n.0))
                    .iter()
                    .map(|n| n.display_name().to_string())
                    .collect();
                if !sup.is_empty() {
                    line.push_str(&format!(" {word} {}", sup.join(", ")));
                }
            }
            lines.push(line);
        }
        for m in load(
            &snap,
            snap.product_nodes_of_kind(&product.name, NodeKind::Method).iter(),
        ) {
            if m.flags.contains(NodeFlags::EXTERNAL) {
                continue;
            }
            for kind in [EdgeKind::Overrides, EdgeKind::Implements] {
                for p in load(&snap, adj.neighbors(m.id, Direction::Out, kind).map(|n| n.0)) {
                    lines.push(format!(
                        "{} {} {}",
                        method_name(&m),
                        kind.as_str(),
                        method_name(&p)
                    ));
                }
            }
            let callees = load(
                &snap,
                adj.neighbors(m.id, Direction::Out, EdgeKind::Calls).map(|n| n.0),
            );
            let edges: Vec<(NodeId, EdgeKind, NodeId)> =
                callees.iter().map(|c| (m.id, EdgeKind::Calls, c.id)).collect();
            let attrs = snap.edge_attrs(&edges).expect("attrs");
            for (c, a) in callees.iter().zip(attrs) {
                let lines_at = a
                    .map(|a| a.lines.iter().map(u32::to_string).collect::<Vec<_>>().join(","))
                    .unwrap_or_default();
                let target = match c.kind {
                    NodeKind::HttpCall => {
                        let to: Vec<String> = load(
                            &snap,
                            adj.neighbors(c.id, Direction::Out, EdgeKind::Invokes)
                                .map(|n| n.0),
                        )
                        .iter()
                        .map(|e| format!("{} {}", e.attr("service").unwrap_or("?"), e.name))
                        .collect();
                        format!(
                            "http {} {} → {}",
                            c.attr("verb").unwrap_or("?"),
                            c.attr("url").unwrap_or("?"),
                            if to.is_empty() {
                                "(no endpoint)".to_string()
                            } else {
                                to.join(", ")
                            }
                        )
                    }
                    _ if c.flags.contains(NodeFlags::EXTERNAL) => format!("{} [library]", method_name(c)),
                    _ => method_name(c),
                };
                lines.push(format!("call {} → {target} @{lines_at}", method_name(&m)));
            }
            for (kind, word) in [(EdgeKind::Produces, "produces"), (EdgeKind::Consumes, "consumes")] {
                let topics: BTreeSet<String> =
                    load(&snap, adj.neighbors(m.id, Direction::Out, kind).map(|n| n.0))
                        .iter()
                        .map(|t| format!("{} {}", t.attr("broker").unwrap_or("?"), t.name))
                        .collect();
                for t in topics {
                    lines.push(format!("{word} {} → {t}", method_name(&m)));
                }
            }
        }
        for e in load(
            &snap,
            snap.product_nodes_of_kind(&product.name, NodeKind::Endpoint)
                .iter(),
        ) {
            let handler: Vec<String> = load(
                &snap,
                adj.neighbors(e.id, Direction::Out, EdgeKind::Serves).map(|n| n.0),
            )
            .iter()
            .map(method_name)
            .collect();
            lines.push(format!(
                "endpoint {} {} ({}) → {}",
                e.attr("service").unwrap_or("?"),
                e.name,
                e.attr("kind").unwrap_or("?"),
                handler.join(", ")
            ));
        }
        lines.sort();
        let runs = snap.runs(product.id).expect("runs");
        let unresolved = runs
            .last()
            .and_then(|r| {
                r.stats
                    .iter()
                    .find(|(k, _)| k == "calls.unresolved")
                    .map(|(_, v)| *v)
            })
            .unwrap_or(0);
        out.push(format!(
            "## {}\n{}\nunresolved calls: {unresolved}",
            product.name,
            lines.join("\n")
        ));
    }
    out.join("\n\n")
}

fn check(name: &str, files: &[(&str, &str)]) {
    let (_dir, store) = index(files);
    let text = facts(&store);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, text));
}

#[test]
fn imports_wildcards_and_static_imports() {
    check(
        "imports",
        &[
            ("app/src/main/java/com/x/util/Strings.java", "package com.x.util;\npublic final class Strings {\n  public static String trim(String s) { return s.trim(); }\n  public static String upper(String s) { return s.toUpperCase(); }\n}\n"),
            ("app/src/main/java/com/x/util/Clock.java", "package com.x.util;\npublic class Clock {\n  public long now() { return 0L; }\n}\n"),
            ("app/src/main/java/com/x/svc/Service.java", "package com.x.svc;\n\nimport com.x.util.*;\nimport static com.x.util.Strings.upper;\n\npublic class Service {\n  private final Clock clock = new Clock();\n  public String run(String in) {\n    long t = clock.now();\n    return upper(Strings.trim(in)) + t;\n  }\n}\n"),
        ],
    );
}

#[test]
fn locals_parameters_fields_this_super_and_chains() {
    check(
        "receivers",
        &[
            ("app/src/main/java/com/x/Repo.java", "package com.x;\npublic class Repo {\n  public Item find(long id) { return new Item(); }\n}\n"),
            ("app/src/main/java/com/x/Item.java", "package com.x;\npublic class Item {\n  public Price price() { return new Price(); }\n}\n"),
            ("app/src/main/java/com/x/Price.java", "package com.x;\npublic class Price {\n  public long cents() { return 1; }\n}\n"),
            ("app/src/main/java/com/x/Base.java", "package com.x;\npublic class Base {\n  protected long total(long id) { return id; }\n}\n"),
            ("app/src/main/java/com/x/Checkout.java", "package com.x;\npublic class Checkout extends Base {\n  private final Repo repo;\n  public Checkout(Repo repo) { this.repo = repo; }\n  @Override\n  protected long total(long id) {\n    long base = super.total(id);\n    return base + repo.find(id).price().cents();\n  }\n  public long twice(Repo other, long id) {\n    Item local = other.find(id);\n    return this.total(id) + local.price().cents();\n  }\n}\n"),
        ],
    );
}

#[test]
fn lambdas_method_references_and_overloads() {
    check(
        "lambdas-overloads",
        &[
            ("app/src/main/java/com/x/Pricing.java", "package com.x;\nimport java.math.BigDecimal;\npublic class Pricing {\n  public BigDecimal price(String sku) { return BigDecimal.ONE; }\n  public BigDecimal price(String sku, int qty) { return BigDecimal.TEN; }\n  public BigDecimal price(String sku, BigDecimal discount) { return discount; }\n}\n"),
            ("app/src/main/java/com/x/Cart.java", "package com.x;\nimport java.math.BigDecimal;\nimport java.util.List;\npublic class Cart {\n  private final Pricing pricing = new Pricing();\n  public List<BigDecimal> prices(List<String> skus) {\n    return skus.stream().map(s -> pricing.price(s, 2)).toList();\n  }\n  public List<BigDecimal> unit(List<String> skus) {\n    return skus.stream().map(pricing::price).toList();\n  }\n  public BigDecimal discounted(String sku) {\n    return pricing.price(sku, BigDecimal.ONE);\n  }\n}\n"),
        ],
    );
}

#[test]
fn interfaces_nested_and_anonymous_types() {
    check(
        "hierarchy",
        &[
            ("app/src/main/java/com/x/Channel.java", "package com.x;\npublic interface Channel {\n  void send(String text);\n}\n"),
            ("app/src/main/java/com/x/Email.java", "package com.x;\npublic class Email implements Channel {\n  @Override public void send(String text) { log(text); }\n  private void log(String t) {}\n  public static class Builder {\n    public Email build() { return new Email(); }\n  }\n}\n"),
            ("app/src/main/java/com/x/Notifier.java", "package com.x;\npublic class Notifier {\n  private final Channel channel = new Email.Builder().build();\n  public void notify(String t) {\n    channel.send(t);\n    Runnable r = new Runnable() {\n      @Override public void run() { channel.send(t); }\n    };\n    r.run();\n  }\n}\n"),
        ],
    );
}

#[test]
fn spring_endpoints_http_clients_and_topics_across_products() {
    check(
        "boundaries",
        &[
            ("shop/src/main/resources/application.yml", "spring:\n  application:\n    name: shop-service\nstock:\n  url: http://stock-service\n"),
            ("shop/src/main/java/com/shop/StockClient.java", "package com.shop;\nimport org.springframework.beans.factory.annotation.Value;\nimport org.springframework.web.client.RestTemplate;\nimport org.springframework.stereotype.Component;\n@Component\npublic class StockClient {\n  private final RestTemplate rest;\n  private final String base;\n  public StockClient(RestTemplate rest, @Value(\"${stock.url}\") String base) { this.rest = rest; this.base = base; }\n  public Integer level(String sku) {\n    return rest.getForObject(base + \"/api/stock/\" + sku, Integer.class);\n  }\n}\n"),
            ("shop/src/main/java/com/shop/Events.java", "package com.shop;\nimport org.springframework.kafka.core.KafkaTemplate;\npublic class Events {\n  public static final String TOPIC = \"sold\";\n  private final KafkaTemplate<String, String> kafka;\n  public Events(KafkaTemplate<String, String> kafka) { this.kafka = kafka; }\n  public void sold(String sku) { kafka.send(TOPIC, sku); }\n}\n"),
            ("stock/src/main/resources/application.yml", "spring:\n  application:\n    name: stock-service\n"),
            ("stock/src/main/java/com/stock/StockController.java", "package com.stock;\nimport org.springframework.web.bind.annotation.*;\n@RestController\n@RequestMapping(\"/api/stock\")\npublic class StockController {\n  @GetMapping(\"/{sku}\")\n  public Integer level(@PathVariable String sku) { return 1; }\n  @PostMapping({\"/{sku}/adjust\", \"/{sku}/fix\"})\n  public void adjust(@PathVariable String sku) {}\n}\n"),
            ("stock/src/main/java/com/stock/SoldListener.java", "package com.stock;\nimport org.springframework.kafka.annotation.KafkaListener;\npublic class SoldListener {\n  @KafkaListener(topics = \"sold\")\n  public void onSold(String sku) {}\n}\n"),
        ],
    );
}

/// Look-alikes: every edge below that a name-based resolver would guess is wrong. The test
/// names the edges that must exist and checks that no other call edge leaves these methods.
#[test]
fn look_alikes_never_produce_wrong_edges() {
    let (_dir, store) = index(&[
        // Two products with the same class name, package and method names.
        ("billing/src/main/java/com/acme/Money.java", "package com.acme;\npublic class Money {\n  public Money plus(Money o) { return this; }\n}\n"),
        ("billing/src/main/java/com/acme/Invoice.java", "package com.acme;\npublic class Invoice {\n  private Money total = new Money();\n  public void add(Money m) { total = total.plus(m); }\n  public void cancel() { }\n}\n"),
        ("billing/src/main/resources/application.yml", "spring:\n  application:\n    name: billing-service\n"),
        ("billing/src/main/java/com/acme/HealthController.java", "package com.acme;\nimport org.springframework.web.bind.annotation.*;\n@RestController\npublic class HealthController {\n  @GetMapping(\"/api/health\")\n  public String health() { return \"ok\"; }\n}\n"),
        ("ledger/src/main/java/com/acme/Money.java", "package com.acme;\npublic class Money {\n  public Money plus(Money o) { return this; }\n}\n"),
        ("ledger/src/main/resources/application.yml", "spring:\n  application:\n    name: ledger-service\n"),
        ("ledger/src/main/java/com/acme/HealthController.java", "package com.acme;\nimport org.springframework.web.bind.annotation.*;\n@RestController\npublic class HealthController {\n  @GetMapping(\"/api/health\")\n  public String health() { return \"ok\"; }\n}\n"),
        // Same method name on unrelated types; a client of ledger's health only.
        ("ledger/src/main/java/com/acme/Order.java", "package com.acme;\npublic class Order {\n  public void cancel() { }\n}\n"),
        ("ledger/src/main/java/com/acme/Ops.java", "package com.acme;\nimport org.springframework.web.client.RestTemplate;\npublic class Ops {\n  private final RestTemplate rest = new RestTemplate();\n  private final Money money = new Money();\n  public void run(Order order) {\n    order.cancel();\n    money.plus(money);\n    rest.getForObject(\"http://billing-service/api/health\", String.class);\n    unknown.cancel();\n  }\n}\n"),
    ]);
    let text = facts(&store);
    let ops: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("call com.acme.Ops.run"))
        .collect();
    let want = [
        "call com.acme.Ops.run(Order) → com.acme.Money.plus(Money) @8",
        "call com.acme.Ops.run(Order) → com.acme.Order.cancel() @7",
        "call com.acme.Ops.run(Order) → http GET http://billing-service/api/health → billing-service GET /api/health @",
    ];
    let calls_wo_library: Vec<&str> = ops.iter().copied().filter(|l| !l.contains("[library]")).collect();
    assert_eq!(
        calls_wo_library.len(),
        want.len(),
        "exactly the expected edges leave Ops.run:\n{}",
        ops.join("\n")
    );
    for w in want {
        assert!(
            ops.iter().any(|l| l.starts_with(w)),
            "missing `{w}` in:\n{}",
            ops.join("\n")
        );
    }
    // Each product's Money is its own: billing's Invoice calls billing's Money only.
    let snap = store.snapshot();
    let billing_money = snap.product_nodes("billing");
    let invoice_add: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("call com.acme.Invoice.add"))
        .collect();
    assert_eq!(invoice_add.len(), 1, "{invoice_add:?}");
    let plus = snap.find_by_fqn("com.acme.Money.plus").expect("lookup");
    assert_eq!(plus.len(), 2, "two Money.plus, never merged");
    let billing_plus: Vec<NodeId> = plus
        .iter()
        .copied()
        .filter(|id| billing_money.contains(id.0))
        .collect();
    assert_eq!(billing_plus.len(), 1);
    let callers: Vec<u32> = snap
        .adjacency()
        .neighbors(billing_plus[0], Direction::In, EdgeKind::Calls)
        .map(|n| n.0)
        .collect();
    assert!(
        callers.iter().all(|c| billing_money.contains(*c)),
        "ledger code never calls billing's Money.plus"
    );
    // The unresolvable `unknown.cancel()` is counted, not guessed.
    let ledger = text.split("## ledger").nth(1).unwrap_or("");
    assert!(!ledger.contains("unresolved calls: 0"), "{ledger}");
}
