//! MCP over Streamable HTTP with a real client: rmcp's own, against a real server on a
//! loopback port over the indexed fixture company. Six tools and the playbook; answers are
//! the REST API's pages, byte for byte; the API's 422 and 403 reach the model as tool
//! errors; `caller_area` counts only from a gateway; sessions end when the server stops.

#[path = "support/mcp.rs"]
mod mcp;
mod support;

use std::time::Duration;

use mcp::{call, connect_http, tool_names, Lifecycle, SIX_TOOLS};
use serde_json::json;
use support::{send, without_times, TestServer};

const PLACE_ORDER: &str = "com.acme.orders.service.OrderService.placeOrder";
const RESERVE: &str = "com.acme.inventory.service.ReservationService.reserve";

fn rest() -> reqwest::Client {
    reqwest::Client::new()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_lists_six_tools_and_answers_the_api_pages() {
    let s = TestServer::start(None).await;
    let client = connect_http(&s.url("/mcp"), None, &[], Lifecycle::Session)
        .await
        .expect("initialize");
    let info = client.peer_info().expect("server info");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(instructions.contains("`discover` first"), "{instructions}");
    assert!(instructions.contains("FETCH EVERY PAGE"), "{instructions}");
    assert!(instructions.contains("permission boundary"), "{instructions}");

    let tools = client.list_all_tools().await.expect("tools/list");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, SIX_TOOLS);
    let listed = serde_json::to_string(&json!({ "tools": tools })).expect("json");
    let size = listed.chars().count();
    eprintln!("tools/list: {size} chars");
    assert!(size <= 4_000, "the tool list stays short: {size} chars");
    for tool in &tools {
        let description = tool.description.as_deref().unwrap_or("");
        if tool.name == "discover" {
            assert!(description.contains("FIRST"), "{}: {description}", tool.name);
        } else {
            assert!(
                description.contains("`discover` first"),
                "{}: {description}",
                tool.name
            );
            assert!(
                description.contains("FETCH EVERY PAGE"),
                "{}: {description}",
                tool.name
            );
        }
    }
    // Endpoint enums come from the OpenAPI document: every catalog route has its tool.
    let endpoints = |tool: &str| -> Vec<String> {
        let t = tools.iter().find(|t| t.name == tool).expect("tool");
        serde_json::from_value(t.input_schema["properties"]["endpoint"]["enum"].clone()).expect("enum")
    };
    for spec in semgraph_queries::catalog() {
        let (tool, name) = match spec.domain {
            "recipes" => ("execute", spec.name.to_string()),
            "jira" => ("wiki", format!("jira/{}", spec.name)),
            "meta" => continue,
            d => (d, spec.name.to_string()),
        };
        assert!(endpoints(tool).contains(&name), "{tool} lists {name}");
    }

    let discover = call(&client, "discover", json!({})).await;
    assert!(!discover.is_error, "{}", discover.text);
    // The playbook the short tool descriptions leave out is in discover (and the instructions).
    for rule in [
        "verbatim",
        "FETCH EVERY PAGE",
        "`scope`",
        "never fabricate",
        "permission boundary",
    ] {
        assert!(discover.text.contains(rule), "discover says {rule}");
        assert!(instructions.contains(rule), "the instructions say {rule}");
    }
    assert!(
        discover.text.contains("/api/v1/code/callers"),
        "{}",
        discover.text
    );
    let rest_discover = send(rest().get(s.url("/api/v1/discover"))).await;
    assert_eq!(discover.text, rest_discover.body, "discover is the API's page");
    let code_only = call(&client, "discover", json!({"domain": "code"})).await;
    assert!(
        !code_only.is_error && !code_only.text.contains("/api/v1/db/"),
        "{}",
        code_only.text
    );

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
    let rest_callers = send(
        rest()
            .get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER)]),
    )
    .await;
    assert_eq!(callers.text, rest_callers.body, "the tool answers the API's page");

    let impact = call(
        &client,
        "execute",
        json!({"endpoint": "impact", "params": {"target": RESERVE}}),
    )
    .await;
    assert!(!impact.is_error, "{}", impact.text);
    eprintln!("impact {RESERVE}: {} chars", impact.text.chars().count());
    assert!(impact.text.contains("recipe_version: impact/"), "{}", impact.text);
    assert!(impact.text.contains("## Steps executed"), "{}", impact.text);
    assert!(
        impact.text.trim_end().ends_with("Page 1 of 1"),
        "one call, one page: {}",
        impact.text
    );
    let rest_impact = send(
        rest()
            .post(s.url("/api/v1/recipes/impact"))
            .body(json!({ "target": RESERVE }).to_string()),
    )
    .await;
    assert_eq!(without_times(&impact.text), without_times(&rest_impact.body));

    // A diff is too long for a query string: the proxy sends it in a POST body.
    let diff = std::fs::read_to_string(
        support::fixture()
            .with_file_name("changes")
            .join("orders-open-orders.diff"),
    )
    .expect("the diff");
    let change = call(
        &client,
        "execute",
        json!({"endpoint": "change-impact", "params": {"diff": diff, "depth": "2"}}),
    )
    .await;
    assert!(!change.is_error, "{}", change.text);
    assert!(
        change.text.contains("recipe_version: change-impact/1"),
        "{}",
        change.text
    );
    assert!(
        change
            .text
            .contains("GET /api/orders/customers/{customerId}/open"),
        "{}",
        change.text
    );

    let jira = call(
        &client,
        "wiki",
        json!({"endpoint": "jira/search", "params": {"q": "order"}}),
    )
    .await;
    assert!(!jira.is_error, "{}", jira.text);

    // The API's 422 reaches the model whole.
    let wrong = call(
        &client,
        "code",
        json!({"endpoint": "callers", "params": {"name": PLACE_ORDER}}),
    )
    .await;
    assert!(wrong.is_error, "{}", wrong.text);
    assert!(wrong.text.contains("Did you mean `fqn`?"), "{}", wrong.text);
    let rest_wrong = send(
        rest()
            .get(s.url("/api/v1/code/callers"))
            .query(&[("name", PLACE_ORDER)]),
    )
    .await;
    assert_eq!(wrong.text, rest_wrong.body);
    let nested = call(
        &client,
        "code",
        json!({"endpoint": "callers", "params": {"fqn": [PLACE_ORDER]}}),
    )
    .await;
    assert!(
        nested.is_error && nested.text.starts_with("# 422"),
        "{}",
        nested.text
    );
    let endpoint = call(
        &client,
        "code",
        json!({"endpoint": "caller", "params": {"fqn": PLACE_ORDER}}),
    )
    .await;
    assert!(endpoint.is_error, "{}", endpoint.text);
    assert!(
        endpoint.text.contains("Did you mean `callers`?"),
        "{}",
        endpoint.text
    );
    let missing = call(
        &client,
        "db",
        json!({"endpoint": "table", "params": {"name": "no_such_table_anywhere"}}),
    )
    .await;
    assert!(
        missing.is_error && missing.text.starts_with("# 404"),
        "{}",
        missing.text
    );

    // Pages pass through untouched, footer included, and `page` fetches the next.
    let search = |page: u32| json!({"endpoint": "search", "params": {"q": "com.acme", "limit": 500, "page_size": 1000}, "page": page});
    let first = call(&client, "code", search(1)).await;
    assert!(!first.is_error, "{}", first.text);
    assert!(first.text.contains("FETCH EVERY PAGE"), "{}", first.text);
    let second = call(&client, "code", search(2)).await;
    let rest_second = send(rest().get(s.url("/api/v1/code/search")).query(&[
        ("q", "com.acme"),
        ("limit", "500"),
        ("page_size", "1000"),
        ("page", "2"),
    ]))
    .await;
    assert_eq!(second.text, rest_second.body);
    assert!(second.text.contains("Page 2 of "), "{}", second.text);

    client.cancel().await.expect("close the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stateless_protocol_lists_the_same_tools_and_answers() {
    let s = TestServer::start(None).await;
    let client = connect_http(&s.url("/mcp"), None, &[], Lifecycle::Stateless)
        .await
        .expect("discover");
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(instructions.contains("FETCH EVERY PAGE"), "{instructions}");
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
    client.cancel().await.expect("close");
}

const TOKENS: &str = r#"
[server]
[[server.token]]
token = "finance-token-1"
area = "finance"
[[server.token]]
token = "commerce-token-1"
area = "commerce"
[[server.gateway]]
token = "gateway-token-1"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_outside_the_area_is_a_permission_boundary_and_caller_area_counts_only_from_a_gateway() {
    let s = TestServer::start(Some(TOKENS)).await;
    let url = s.url("/mcp");
    let refused = connect_http(&url, None, &[], Lifecycle::Session).await;
    assert!(refused.is_err(), "no token, no session");
    let unknown = connect_http(&url, Some("not-a-token-at-all"), &[], Lifecycle::Session).await;
    assert!(unknown.is_err(), "an unknown token, no session");

    let source = json!({"endpoint": "source", "params": {"fqn": RESERVE}});
    let finance = connect_http(&url, Some("finance-token-1"), &[], Lifecycle::Session)
        .await
        .expect("finance session");
    let denied = call(&finance, "code", source.clone()).await;
    assert!(denied.is_error, "{}", denied.text);
    assert!(denied.text.contains("permission boundary"), "{}", denied.text);
    // Structure still answers.
    let structure = call(
        &finance,
        "code",
        json!({"endpoint": "callers", "params": {"fqn": RESERVE}}),
    )
    .await;
    assert!(!structure.is_error, "{}", structure.text);
    // A spoofed caller_area from a plain token changes nothing, wherever it is put.
    for spoof in [
        json!({"endpoint": "source", "params": {"fqn": RESERVE}, "caller_area": "commerce"}),
        json!({"endpoint": "source", "params": {"fqn": RESERVE, "caller_area": "commerce"}}),
    ] {
        let still = call(&finance, "code", spoof).await;
        assert!(still.is_error, "{}", still.text);
        assert!(still.text.contains("permission boundary"), "{}", still.text);
    }
    // Nor does an area header on a plain token's MCP request.
    let with_header = connect_http(
        &url,
        Some("finance-token-1"),
        &[("x-semgraph-area", "commerce")],
        Lifecycle::Session,
    )
    .await
    .expect("session");
    let still = call(&with_header, "code", source.clone()).await;
    assert!(
        still.is_error && still.text.contains("permission boundary"),
        "{}",
        still.text
    );

    let commerce = connect_http(&url, Some("commerce-token-1"), &[], Lifecycle::Session)
        .await
        .expect("commerce session");
    let mine = call(&commerce, "code", source.clone()).await;
    assert!(!mine.is_error, "{}", mine.text);
    assert!(mine.text.contains("```"), "source comes fenced: {}", mine.text);

    // A gateway's caller_area is the area, top level or inside params.
    let gateway = connect_http(&url, Some("gateway-token-1"), &[], Lifecycle::Session)
        .await
        .expect("gateway session");
    let stamped = call(
        &gateway,
        "code",
        json!({"endpoint": "source", "params": {"fqn": RESERVE}, "caller_area": "commerce"}),
    )
    .await;
    assert!(!stamped.is_error, "{}", stamped.text);
    assert_eq!(stamped.text, mine.text);
    let inside = call(
        &gateway,
        "code",
        json!({"endpoint": "source", "params": {"fqn": RESERVE, "caller_area": "commerce"}}),
    )
    .await;
    assert!(!inside.is_error, "{}", inside.text);
    let other = call(
        &gateway,
        "code",
        json!({"endpoint": "source", "params": {"fqn": RESERVE}, "caller_area": "finance"}),
    )
    .await;
    assert!(
        other.is_error && other.text.contains("permission boundary"),
        "{}",
        other.text
    );
    // `scope` is a search filter, never an area.
    let scoped = call(
        &gateway,
        "code",
        json!({"endpoint": "search", "params": {"q": "ReservationService", "scope": "inventory"},
               "caller_area": "finance"}),
    )
    .await;
    assert!(!scoped.is_error, "{}", scoped.text);
    let scoped_source = call(
        &gateway,
        "code",
        json!({"endpoint": "source", "params": {"fqn": RESERVE, "scope": "commerce"}, "caller_area": "finance"}),
    )
    .await;
    assert!(scoped_source.is_error, "{}", scoped_source.text);
    // Without an area a gateway's call is refused by the API, and says why.
    let bare = call(&gateway, "code", source.clone()).await;
    assert!(bare.is_error && bare.text.contains("401"), "{}", bare.text);

    // Recipes never fail for the boundary: content is left out and the trace says so.
    let impact = call(
        &finance,
        "execute",
        json!({"endpoint": "impact", "params": {"target": RESERVE}}),
    )
    .await;
    assert!(!impact.is_error, "{}", impact.text);

    for c in [finance, with_header, commerce, gateway] {
        c.cancel().await.expect("close");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_loopback_host_headers_reach_a_server_without_tokens() {
    let s = TestServer::start(None).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "probe", "version": "0"}}
    })
    .to_string();
    let post = |host: &str| {
        rest()
            .post(s.url("/mcp"))
            .header("host", host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(initialize.clone())
    };
    let rebound = send(post("attacker.example")).await;
    assert_eq!(rebound.status, 403, "{}", rebound.body);
    let local = send(post("127.0.0.1")).await;
    assert_eq!(local.status, 200, "{}", local.body);
    assert!(local.body.contains("semgraph"), "{}", local.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_stops_while_an_mcp_session_is_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().to_path_buf();
    let (store, _company) = tokio::task::spawn_blocking(move || support::indexed_fixture(&path))
        .await
        .expect("index");
    let state = semgraph::server::AppState::new(store, semgraph::server::ServerOptions::default());
    let listener = semgraph::server::bind("127.0.0.1:0", state.auth())
        .await
        .expect("bind");
    let url = format!("http://{}/mcp", listener.local_addr().expect("addr"));
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(semgraph::server::serve(listener, state, async move {
        let _ = stopped.await;
    }));
    let client = connect_http(&url, None, &[], Lifecycle::Session)
        .await
        .expect("session");
    assert_eq!(tool_names(&client).await, SIX_TOOLS);
    stop.send(()).expect("stop");
    let ended = tokio::time::timeout(Duration::from_secs(30), serving).await;
    assert!(
        matches!(ended, Ok(Ok(Ok(())))),
        "the server stops with a session open: {ended:?}"
    );
    drop(client);
}
