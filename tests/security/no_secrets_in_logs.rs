//! Tokens are never logged: the real `semgraph serve` runs with `RUST_LOG=trace` (every
//! crate's most talkative level) and with tokens given both in the config and through
//! `token_env`; requests with valid, unknown and gateway tokens, over REST and over MCP
//! with rmcp's client, are answered — and nothing the process writes, stdout or stderr,
//! holds any token string, nor the parameter values sent with them.
//!
//! Regression: rmcp writes every JSON-RPC message whole at `debug`/`trace`, tool
//! arguments included; the server caps rmcp's log at `info` (`server::log_filter`).

use crate::mcp::{call, connect_http, Lifecycle};
use crate::support::{send, served};
use serde_json::json;

const PLAIN: &str = "plain-secret-5f1c9a77d2e4";
const FROM_ENV: &str = "env-secret-91ab04c3f7d8";
const GATEWAY: &str = "gateway-secret-8e33b0c4aa61";
const ADMIN: &str = "admin-secret-2b7d6e0f19c5";
const UNKNOWN: &str = "unknown-secret-0d9e7f1b2c3a";
const IN_A_PARAMETER: &str = "parameter-value-c41d7a92e0b3";
const RESERVE: &str = "com.acme.inventory.service.ReservationService.reserve";

/// The text without terminal colour codes (`ESC [ … m`), which the log may carry between
/// a field's name and its value.
fn without_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn no_token_reaches_the_log_at_trace_level() {
    let server_toml = format!(
        "[server]\n\
         [[server.token]]\ntoken = \"{PLAIN}\"\narea = \"commerce\"\n\
         [[server.token]]\ntoken_env = \"SEMGRAPH_TEST_FINANCE_TOKEN\"\narea = \"finance\"\n\
         [[server.token]]\ntoken = \"{ADMIN}\"\narea = \"*\"\n\
         [[server.gateway]]\ntoken = \"{GATEWAY}\"\n"
    );
    let company = served::indexed_company(&server_toml);
    let served = served::Served::start(
        &company.config,
        &[("RUST_LOG", "trace"), ("SEMGRAPH_TEST_FINANCE_TOKEN", FROM_ENV)],
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut statuses = Vec::new();
    rt.block_on(async {
        let client = reqwest::Client::new();
        let callers = served.url("/api/v1/code/callers");
        let source = served.url("/api/v1/code/source");
        let get = |url: &str, auth: Option<String>| {
            let mut r = client.get(url).query(&[("fqn", RESERVE)]);
            if let Some(a) = auth {
                r = r.header("authorization", a);
            }
            r
        };
        for (url, auth, header) in [
            (&callers, Some(format!("Bearer {PLAIN}")), None),
            (&source, Some(format!("Bearer {FROM_ENV}")), None),
            (&source, Some(format!("Bearer {PLAIN}")), Some("finance")),
            (&callers, Some(format!("Bearer {UNKNOWN}")), None),
            (&callers, Some(format!("bearer   {UNKNOWN}  ")), None),
            (&callers, Some(format!("Basic {PLAIN}")), None),
            (&callers, Some(UNKNOWN.to_string()), None),
            (&source, Some(format!("Bearer {GATEWAY}")), Some("commerce")),
            (&source, Some(format!("Bearer {GATEWAY}")), Some("*")),
            (&source, Some(format!("Bearer {GATEWAY}")), None),
            (&callers, None, None),
        ] {
            let mut r = get(url, auth);
            if let Some(h) = header {
                r = r.header("x-semgraph-area", h);
            }
            statuses.push(send(r).await.status);
        }
        // A token where a parameter goes, and a parameter value the log must not show.
        let stray = send(client.get(&callers).bearer_auth(PLAIN).query(&[
            ("fqn", RESERVE),
            ("token", UNKNOWN),
            ("q", IN_A_PARAMETER),
        ]))
        .await;
        statuses.push(stray.status);
        let recipe = send(
            client
                .post(served.url("/api/v1/recipes/impact"))
                .bearer_auth(FROM_ENV)
                .body(json!({"target": IN_A_PARAMETER}).to_string()),
        )
        .await;
        statuses.push(recipe.status);
        let admin = send(client.get(served.url("/api/v1/admin/jobs")).bearer_auth(ADMIN)).await;
        statuses.push(admin.status);
        let not_admin = send(client.get(served.url("/api/v1/admin/jobs")).bearer_auth(PLAIN)).await;
        statuses.push(not_admin.status);

        // MCP: sessions with a plain token, with the gateway (and its stamped area), and
        // attempts with an unknown token or none.
        let url = served.url("/mcp");
        let plain = connect_http(&url, Some(PLAIN), &[], Lifecycle::Session)
            .await
            .expect("session");
        let answer = call(
            &plain,
            "code",
            json!({"endpoint": "callers", "params": {"fqn": RESERVE}, "caller_area": "finance"}),
        )
        .await;
        assert!(!answer.is_error, "{}", answer.text);
        let searched = call(
            &plain,
            "code",
            json!({"endpoint": "search", "params": {"q": IN_A_PARAMETER}}),
        )
        .await;
        assert!(!searched.is_error, "{}", searched.text);
        let gateway = connect_http(&url, Some(GATEWAY), &[], Lifecycle::Stateless)
            .await
            .expect("gateway");
        let stamped = call(
            &gateway,
            "code",
            json!({"endpoint": "source", "params": {"fqn": RESERVE, "caller_area": "commerce"}}),
        )
        .await;
        assert!(!stamped.is_error, "{}", stamped.text);
        assert!(
            connect_http(&url, Some(UNKNOWN), &[], Lifecycle::Session)
                .await
                .is_err(),
            "an unknown token opens no session"
        );
        assert!(connect_http(&url, None, &[], Lifecycle::Stateless).await.is_err());
        let _ = plain.cancel().await;
        let _ = gateway.cancel().await;
    });
    drop(rt);
    assert_eq!(
        statuses,
        [200, 403, 200, 401, 401, 401, 401, 200, 401, 401, 401, 422, 200, 200, 403],
        "each request was answered as its credentials say"
    );
    let (stdout, stderr) = served.stop();
    let stderr = without_ansi(&stderr);
    let log = format!("{stdout}\n{stderr}");
    // The log is on and tells of every request, so its silence about tokens means
    // something.
    let logged = stderr.matches(" request method=").count();
    assert!(
        logged >= statuses.len(),
        "every request is logged ({logged}): {stderr:.2000}"
    );
    for line in ["status=401", "status=403", "status=422", "mcp tool call"] {
        assert!(stderr.contains(line), "the log tells of {line}: {stderr:.2000}");
    }
    eprintln!(
        "server wrote {} bytes of log at trace level",
        stdout.len() + stderr.len()
    );
    for secret in [PLAIN, FROM_ENV, GATEWAY, ADMIN, UNKNOWN, IN_A_PARAMETER] {
        if let Some(at) = log.find(secret) {
            let from = log[..at].rfind('\n').map_or(0, |n| n + 1);
            let to = log[at..].find('\n').map_or(log.len(), |n| at + n);
            panic!("`{secret}` is in the log: {}", &log[from..to]);
        }
    }
    // Nor is it hidden in a prefix: no 12-character piece of a token appears.
    for secret in [PLAIN, FROM_ENV, GATEWAY, ADMIN, UNKNOWN] {
        let tail = &secret[secret.len() - 12..];
        assert!(!log.contains(tail), "part of a token is in the log: {tail}");
    }
}
