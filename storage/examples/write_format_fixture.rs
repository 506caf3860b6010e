//! Writes the small store that `tests/format.rs` opens: run it only when the format
//! version changes, and commit the result under `storage/tests/data/store-v<N>/`.
//!
//! ```text
//! cargo run -p semgraph-storage --example write_format_fixture -- storage/tests/data/store-v2
//! ```

use semgraph_storage::{
    ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeKind, Store, Warning,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: write_format_fixture DIR")?;
    if std::path::Path::new(&dir).exists() {
        return Err(format!("{dir} exists; remove it first").into());
    }
    let store = Store::open(&dir)?;

    let mut w = store.begin("orders", "commerce")?;
    let service = w.add_node(NewNode::new(NodeKind::Service, "orders-service"))?;
    let method = w.add_node(
        NewNode::new(NodeKind::Method, "placeOrder")
            .fqn("com.acme.orders.OrderService.placeOrder")
            .at("src/main/java/com/acme/orders/OrderService.java", 10, 20)
            .flags(NodeFlags::PUBLIC)
            .attr("signature", "placeOrder(OrderRequest)"),
    )?;
    let call = w.add_node(NewNode::new(NodeKind::HttpCall, "POST /api/payments").attr("verb", "POST"))?;
    w.add_edge(service, EdgeKind::Contains, method)?;
    w.add_edge_with(
        method,
        EdgeKind::Calls,
        call,
        &EdgeAttrs {
            lines: vec![14],
            via: Some("feign".into()),
        },
    )?;
    w.add_link(
        call,
        EdgeKind::Invokes,
        "http:payments-service:POST:/api/payments",
        LinkPolicy::Unique,
    )?;
    w.set_content(
        method,
        ContentKind::Source,
        "public Order placeOrder(OrderRequest r) { ... }",
    )?;
    w.add_to_set("term:order", method)?;
    w.warn(Warning {
        file: "src/main/java/Broken.java".into(),
        line: Some(3),
        message: "syntax error".into(),
    });
    w.commit()?;

    let mut w = store.begin("payments", "finance")?;
    let endpoint = w.add_node(
        NewNode::new(NodeKind::Endpoint, "POST /api/payments")
            .attr("verb", "POST")
            .attr("route", "/api/payments"),
    )?;
    let handler = w.add_node(
        NewNode::new(NodeKind::Method, "charge").fqn("com.acme.payments.PaymentController.charge"),
    )?;
    w.add_edge(endpoint, EdgeKind::Serves, handler)?;
    w.add_anchor(endpoint, "http:payments-service:POST:/api/payments")?;
    w.commit()?;
    drop(store);
    // The LOG files are RocksDB's diagnostics, not part of the format.
    for entry in std::fs::read_dir(&dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        if name.starts_with("LOG") {
            std::fs::remove_file(&path)?;
        }
    }
    println!("wrote {dir}");
    Ok(())
}
