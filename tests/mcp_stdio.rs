//! MCP over stdio: the built `semgraph` binary launched as `semgraph mcp --stdio --store
//! DIR` by rmcp's child-process transport, the way a local agent launches it. The same
//! six tools and the same answers as over HTTP, for the local user.

#[path = "support/mcp.rs"]
mod mcp;
mod support;

use mcp::{call, tool_names, SIX_TOOLS};
use rmcp::model::ClientConfig;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::ServiceExt;
use serde_json::json;

const PLACE_ORDER: &str = "com.acme.orders.service.OrderService.placeOrder";
const CHARGE: &str = "com.acme.payments.service.PaymentService.charge";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_client_launches_the_binary_and_gets_the_same_tools() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    let (store, company) = tokio::task::spawn_blocking(move || support::indexed_fixture(&path))
        .await
        .expect("index");
    drop(store);
    let command = tokio::process::Command::new(env!("CARGO_BIN_EXE_semgraph")).configure(|c| {
        c.args(["mcp", "--stdio", "--store"])
            .arg(&company.store)
            .env("RUST_LOG", "warn");
    });
    let transport = TokioChildProcess::new(command).expect("spawn semgraph mcp --stdio");
    let client = ClientConfig::default()
        .serve(transport)
        .await
        .expect("initialize over stdio");
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(instructions.contains("`discover` first"), "{instructions}");
    assert_eq!(tool_names(&client).await, SIX_TOOLS);

    let callers = call(
        &client,
        "code",
        json!({"endpoint": "callers", "params": {"fqn": PLACE_ORDER}}),
    )
    .await;
    assert!(!callers.is_error, "{}", callers.text);
    assert!(
        callers.text.contains("OrderController.placeOrder"),
        "{}",
        callers.text
    );
    assert!(
        callers.text.trim_end().ends_with("Page 1 of 1"),
        "{}",
        callers.text
    );

    // The local user has full access: content of every area answers.
    let source = call(
        &client,
        "code",
        json!({"endpoint": "source", "params": {"fqn": CHARGE}}),
    )
    .await;
    assert!(!source.is_error, "{}", source.text);
    assert!(source.text.contains("```"), "{}", source.text);

    let wrong = call(
        &client,
        "code",
        json!({"endpoint": "callers", "params": {"name": PLACE_ORDER}}),
    )
    .await;
    assert!(wrong.is_error, "{}", wrong.text);
    assert!(wrong.text.contains("Did you mean `fqn`?"), "{}", wrong.text);

    client.cancel().await.expect("close stdin; the server exits");
}
