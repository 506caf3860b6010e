//! The server's limits over a real socket, each configured tiny in the `[server]` table:
//! a body over `max_body_bytes` is a 413 that names the limit (declared or chunked, REST or
//! MCP); a request not answered within `request_timeout_secs` — here a client that never
//! finishes its body — is a 503 that says what narrows the question; recipes beyond
//! `max_concurrent_recipes` with no room to wait are 429 with `Retry-After`, and with room
//! they wait and are answered; a parameter value over 4,096 characters is a 422; a bad
//! limit stops `semgraph serve` with the key named.

use std::time::Duration;

use crate::support::{send, TestServer};
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A hang guard, never a timing assertion.
const PATIENCE: Duration = Duration::from_secs(60);

/// Writes `head` (and `body`) on a fresh connection, then reads the whole response (the
/// server closes the connection: `Connection: close`).
async fn raw(base: &str, head: &str, body: &[u8]) -> String {
    let addr = base.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(body).await.expect("body");
    let mut out = Vec::new();
    tokio::time::timeout(PATIENCE, stream.read_to_end(&mut out))
        .await
        .expect("the server answers")
        .expect("read");
    String::from_utf8_lossy(&out).into_owned()
}

fn status_of(response: &str) -> u16 {
    response
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

const RESERVE: &str = "com.acme.inventory.service.ReservationService.reserve";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_a_413_that_names_the_limit() {
    let s = TestServer::start(Some("[server]\nmax_body_bytes = 256\n")).await;
    let client = reqwest::Client::new();
    let impact = s.url("/api/v1/recipes/impact");

    // Within the limit: answered.
    let small = send(
        client
            .post(&impact)
            .body(json!({ "target": RESERVE }).to_string()),
    )
    .await;
    assert_eq!(small.status, 200, "{}", small.body);

    // Declared too large: refused before it is read, with the limit named.
    let padding = "x".repeat(2_000);
    let big = json!({ "target": RESERVE, "note": padding }).to_string();
    let refused = send(client.post(&impact).body(big.clone())).await;
    assert_eq!(refused.status, 413, "{}", refused.body);
    assert!(refused.body.starts_with("# 413"), "{}", refused.body);
    assert!(
        refused.body.contains("256 bytes") && refused.body.contains("max_body_bytes"),
        "{}",
        refused.body
    );
    let as_json = send(
        client
            .post(&impact)
            .header("accept", "application/json")
            .body(big.clone()),
    )
    .await;
    assert_eq!(as_json.status, 413);
    let v: Value = serde_json::from_str(&as_json.body).expect("json error");
    assert_eq!(v["error"]["code"], "payload_too_large", "{v}");

    // Chunked, with no length declared: refused once the limit is crossed.
    let mut chunked = String::new();
    for piece in big.as_bytes().chunks(100) {
        chunked.push_str(&format!(
            "{:x}\r\n{}\r\n",
            piece.len(),
            String::from_utf8_lossy(piece)
        ));
    }
    chunked.push_str("0\r\n\r\n");
    let head = "POST /api/v1/recipes/impact HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: \
                application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    let response = raw(&s.base, head, chunked.as_bytes()).await;
    assert_eq!(status_of(&response), 413, "{response}");
    assert!(response.contains("longer"), "{response}");

    // MCP reads its bodies within the same limit.
    let rpc = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": padding, "version": "0"}}})
    .to_string();
    let mcp = send(
        client
            .post(s.url("/mcp"))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(rpc),
    )
    .await;
    assert_eq!(mcp.status, 413, "{}", mcp.body);
    assert!(mcp.body.contains("max_body_bytes"), "{}", mcp.body);

    // And the server goes on answering.
    let after = send(
        client
            .get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", RESERVE)]),
    )
    .await;
    assert_eq!(after.status, 200, "{}", after.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_not_answered_in_time_is_a_503_that_says_what_narrows_it() {
    let s = TestServer::start(Some("[server]\nrequest_timeout_secs = 0.5\n")).await;
    // A client that announces a body and never sends it: without the timeout the server
    // would wait on it for ever.
    let head = "POST /api/v1/recipes/impact HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: \
                application/json\r\ncontent-length: 64\r\n\r\n";
    let addr = s.base.trim_start_matches("http://").to_string();
    let mut stream = TcpStream::connect(&addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("head");
    stream.write_all(b"{\"target\": ").await.expect("part of a body");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // Read until the body of the answer is in (hyper closes after it, or keeps the
    // connection; either way the answer ends with its body).
    let read = tokio::time::timeout(PATIENCE, async {
        loop {
            let n = stream.read(&mut buf).await.expect("read");
            got.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&got);
            if n == 0 || text.contains("asking the same one again") {
                break;
            }
        }
    })
    .await;
    let response = String::from_utf8_lossy(&got).into_owned();
    assert!(read.is_ok(), "the server answers a stalled request: {response}");
    assert_eq!(status_of(&response), 503, "{response}");
    assert!(
        response.contains("# 503: the request took too long"),
        "{response}"
    );
    assert!(response.contains("within 0.5 s"), "{response}");
    assert!(response.contains("request_timeout_secs"), "{response}");
    assert!(response.contains("a smaller `depth`"), "{response}");
    assert!(response.contains("a more specific `target`"), "{response}");

    // The same on /mcp while its body is awaited.
    let head = "POST /mcp HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n\
                accept: application/json, text/event-stream\r\ncontent-length: 200\r\n\r\n";
    let mut stream = TcpStream::connect(&addr).await.expect("connect");
    stream.write_all(head.as_bytes()).await.expect("head");
    let mut got = Vec::new();
    let read = tokio::time::timeout(PATIENCE, async {
        loop {
            let n = stream.read(&mut buf).await.expect("read");
            got.extend_from_slice(&buf[..n]);
            if n == 0 || String::from_utf8_lossy(&got).contains("asking the same one again") {
                break;
            }
        }
    })
    .await;
    let response = String::from_utf8_lossy(&got).into_owned();
    assert!(read.is_ok(), "/mcp answers a stalled request: {response}");
    assert_eq!(status_of(&response), 503, "{response}");

    // Questions asked whole are answered as ever.
    let client = reqwest::Client::new();
    let ok = send(
        client
            .get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", RESERVE)]),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
}

/// Recipe requests no two alike (so none is answered from a cache), round `r`.
fn burst(r: usize, n: usize) -> Vec<Value> {
    let targets = [
        RESERVE,
        "com.acme.orders.service.OrderService.placeOrder",
        "OrderService",
        "GET /api/orders/{id}",
    ];
    (0..n)
        .map(|i| {
            let k = r * n + i;
            json!({"target": targets[k % targets.len()], "depth": 1 + (k / targets.len()) % 8,
                   "include_tests": (k / 32) % 2 == 1})
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipes_beyond_the_cap_are_429_with_retry_after_and_primitives_still_answer() {
    let s = TestServer::start_with(
        Some("[server]\nmax_concurrent_recipes = 1\nrecipe_queue = 0\nrecipe_queue_wait_secs = 3\n"),
        0,
    )
    .await;
    let client = reqwest::Client::new();
    let impact = s.url("/api/v1/recipes/impact");
    let mut busy = None;
    let mut answered = 0;
    // Eight at once against one slot and no queue: one is computed, the others that
    // arrive meanwhile are refused. Rounds repeat only in case no two ever overlapped.
    for round in 0..50 {
        let sent: Vec<_> = burst(round, 8)
            .into_iter()
            .map(|body| {
                let request = client.post(&impact).body(body.to_string());
                tokio::spawn(async move {
                    let response = request.send().await.expect("request");
                    let status = response.status().as_u16();
                    let retry = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_string);
                    (status, retry, response.text().await.expect("body"))
                })
            })
            .collect();
        for task in sent {
            let (status, retry, body) = task.await.expect("task");
            match status {
                200 => answered += 1,
                429 => busy = Some((retry, body)),
                other => panic!("a recipe is answered or refused, never {other}: {body}"),
            }
        }
        if busy.is_some() {
            break;
        }
    }
    let (retry, body) = busy.expect("a recipe beyond the cap is refused");
    assert!(answered >= 1, "the recipe holding the slot is answered");
    assert_eq!(retry.as_deref(), Some("3"), "Retry-After is the queue wait");
    assert!(body.starts_with("# 429: busy"), "{body}");
    assert!(body.contains("`max_concurrent_recipes` = 1"), "{body}");
    assert!(body.contains("Retry this recipe after 3 s"), "{body}");
    assert!(body.contains("Primitives"), "{body}");
    let primitive = send(
        client
            .get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", RESERVE)]),
    )
    .await;
    assert_eq!(primitive.status, 200, "{}", primitive.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recipes_wait_their_turn_in_a_bounded_queue() {
    let s = TestServer::start_with(
        Some("[server]\nmax_concurrent_recipes = 1\nrecipe_queue = 16\nrecipe_queue_wait_secs = 120\n"),
        0,
    )
    .await;
    let client = reqwest::Client::new();
    let impact = s.url("/api/v1/recipes/impact");
    let sent: Vec<_> = burst(0, 8)
        .into_iter()
        .map(|body| {
            let request = client.post(&impact).body(body.to_string());
            tokio::spawn(async move { send(request).await })
        })
        .collect();
    for task in sent {
        let answer = task.await.expect("task");
        assert_eq!(
            answer.status, 200,
            "a recipe with room to wait is answered: {}",
            answer.body
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_parameter_value_over_4096_characters_is_a_422() {
    // Regression: a 100,000-character name kept a core busy for seconds (it is compared
    // with every name of the graph when nothing matches it).
    let s = TestServer::start(None).await;
    let client = reqwest::Client::new();
    let long = "OrderServiceX".repeat(2_000);
    let search = send(
        client
            .get(s.url("/api/v1/code/search"))
            .query(&[("q", long.as_str())]),
    )
    .await;
    assert_eq!(search.status, 422, "{}", search.body);
    assert!(
        search.body.contains("`q` is 26000 characters") && search.body.contains("at most 4096"),
        "{}",
        search.body
    );
    let impact = send(
        client
            .post(s.url("/api/v1/recipes/impact"))
            .body(json!({ "target": long }).to_string()),
    )
    .await;
    assert_eq!(impact.status, 422, "{}", impact.body);
    assert!(impact.body.contains("`target`"), "{}", impact.body);
    // At the limit, the question is asked.
    let at_limit = "x".repeat(4_096);
    let asked = send(
        client
            .get(s.url("/api/v1/code/search"))
            .query(&[("q", at_limit.as_str())]),
    )
    .await;
    assert_ne!(asked.status, 422, "{}", asked.body);
}

#[test]
fn a_bad_limit_stops_serve_with_the_key_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = dir.path().join("store");
    std::fs::create_dir_all(&store).expect("store dir");
    let config = dir.path().join("semgraph.toml");
    std::fs::write(
        &config,
        "[store]\npath = \"store\"\n\n[server]\nmax_concurrent_recipes = 0\n",
    )
    .expect("config");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_semgraph"))
        .args(["serve", "--config"])
        .arg(&config)
        .args(["--bind", "127.0.0.1:0"])
        .output()
        .expect("run semgraph serve");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "serve refuses the config: {stderr}");
    assert!(stderr.contains("max_concurrent_recipes"), "{stderr}");
}
