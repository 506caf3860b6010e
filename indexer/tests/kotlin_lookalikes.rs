//! A cross-language look-alike corpus: Kotlin and Java classes of the same simple name in
//! two products, a Kotlin property beside a Java method of the same name, the same route
//! served in Kotlin and in Java by two services — indexed into a real store, and the
//! whole set of call edges between the products' own methods compared with the set the
//! sources make. Any false edge fails.

use std::collections::BTreeSet;
use std::path::PathBuf;

use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_storage::{Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind, Store};

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

/// `product: caller → callee` for every call edge between methods of the products (library
/// targets left out), and `product: caller → http → service VERB /path` for HTTP calls.
fn edges(store: &Store) -> BTreeSet<String> {
    let snap = store.snapshot();
    let adj = snap.adjacency();
    let load =
        |ids: Vec<NodeId>| -> Vec<Node> { snap.nodes(&ids).expect("read").into_iter().flatten().collect() };
    let mut out = BTreeSet::new();
    for product in snap.products() {
        let methods = load(
            snap.product_nodes_of_kind(&product.name, NodeKind::Method)
                .iter()
                .map(NodeId)
                .collect(),
        );
        for m in methods.iter().filter(|m| !m.flags.contains(NodeFlags::EXTERNAL)) {
            let callees = load(adj.neighbors(m.id, Direction::Out, EdgeKind::Calls).collect());
            for c in callees {
                if c.flags.contains(NodeFlags::EXTERNAL) {
                    continue;
                }
                let target = if c.kind == NodeKind::HttpCall {
                    let to: Vec<String> =
                        load(adj.neighbors(c.id, Direction::Out, EdgeKind::Invokes).collect())
                            .iter()
                            .map(|e| format!("{} {}", e.attr("service").unwrap_or("?"), e.name))
                            .collect();
                    format!("http → {}", to.join(", "))
                } else {
                    let sig = c.attr("signature").unwrap_or("");
                    format!(
                        "{}{}",
                        c.display_name(),
                        &sig[sig.find('(').unwrap_or(sig.len())..]
                    )
                };
                out.insert(format!("{}: {} → {target}", product.name, m.display_name()));
            }
        }
    }
    out
}

#[test]
fn kotlin_and_java_look_alikes_never_meet() {
    let (_dir, store) = index(&[
        // billing: Kotlin. Its Money has a property `amount` (the getter `getAmount()`).
        (
            "billing/src/main/resources/application.yml",
            "spring:\n  application:\n    name: billing-service\n",
        ),
        (
            "billing/src/main/kotlin/com/acme/Money.kt",
            "package com.acme\n\nclass Money(val amount: Long) {\n    fun plus(o: Money): Money = Money(amount + o.amount)\n}\n",
        ),
        (
            "billing/src/main/kotlin/com/acme/Invoice.kt",
            "package com.acme\n\nclass Invoice {\n    private var total = Money(0)\n\n    fun add(m: Money) {\n        total = total.plus(m)\n    }\n\n    fun cents(): Long = total.amount\n}\n",
        ),
        (
            "billing/src/main/kotlin/com/acme/HealthController.kt",
            "package com.acme\n\nimport org.springframework.web.bind.annotation.*\n\n@RestController\nclass HealthController {\n    @GetMapping(\"/api/health\")\n    fun health(): String = \"ok\"\n}\n",
        ),
        // ledger: Java and Kotlin. Its Java Money has a method `amount()` and no getter; its
        // Kotlin Wallet has a property `amount`.
        (
            "ledger/src/main/resources/application.yml",
            "spring:\n  application:\n    name: ledger-service\n",
        ),
        (
            "ledger/src/main/java/com/acme/Money.java",
            "package com.acme;\n\npublic class Money {\n    private long amount;\n    public long amount() { return amount; }\n    public Money plus(Money o) { return this; }\n}\n",
        ),
        (
            "ledger/src/main/java/com/acme/HealthController.java",
            "package com.acme;\nimport org.springframework.web.bind.annotation.*;\n@RestController\npublic class HealthController {\n  @GetMapping(\"/api/health\")\n  public String health() { return \"ok\"; }\n}\n",
        ),
        (
            "ledger/src/main/kotlin/com/acme/Wallet.kt",
            "package com.acme\n\nclass Wallet(val amount: Long, val money: Money) {\n    fun cancel() {}\n}\n",
        ),
        (
            "ledger/src/main/java/com/acme/Report.java",
            "package com.acme;\n\npublic class Report {\n    public long total(Wallet wallet, Money money) {\n        wallet.cancel();\n        return wallet.getAmount() + money.amount();\n    }\n}\n",
        ),
        (
            "ledger/src/main/kotlin/com/acme/Ops.kt",
            "package com.acme\n\nimport org.springframework.web.reactive.function.client.WebClient\n\nclass Ops(private val web: WebClient) {\n    fun run(wallet: Wallet, money: Money) {\n        money.plus(money)\n        money.amount()\n        money.amount\n        wallet.amount\n        wallet.money.amount()\n        web.get().uri(\"http://billing-service/api/health\").retrieve()\n        unknown.cancel()\n    }\n}\n",
        ),
    ]);
    let got = edges(&store);
    let want: BTreeSet<String> = [
        "billing: com.acme.Invoice.<init> → com.acme.Money.<init>(long)",
        "billing: com.acme.Invoice.add → com.acme.Money.plus(Money)",
        "billing: com.acme.Invoice.cents → com.acme.Money.getAmount()",
        "billing: com.acme.Money.plus → com.acme.Money.<init>(long)",
        "billing: com.acme.Money.plus → com.acme.Money.getAmount()",
        "ledger: com.acme.Ops.run → com.acme.Money.amount()",
        "ledger: com.acme.Ops.run → com.acme.Money.plus(Money)",
        "ledger: com.acme.Ops.run → com.acme.Wallet.getAmount()",
        "ledger: com.acme.Ops.run → com.acme.Wallet.getMoney()",
        "ledger: com.acme.Ops.run → http → billing-service GET /api/health",
        "ledger: com.acme.Report.total → com.acme.Money.amount()",
        "ledger: com.acme.Report.total → com.acme.Wallet.cancel()",
        "ledger: com.acme.Report.total → com.acme.Wallet.getAmount()",
    ]
    .into_iter()
    .map(str::to_string)
    .collect();
    let extra: Vec<&String> = got.difference(&want).collect();
    let missing: Vec<&String> = want.difference(&got).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "false edges: {extra:#?}\nmissing edges: {missing:#?}"
    );
}
