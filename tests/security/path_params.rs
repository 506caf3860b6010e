//! No parameter reaches the filesystem. Every string parameter of every catalog endpoint
//! (and the admin `product`, and the MCP `endpoint`) is sent traversal-looking values —
//! relative climbs from the store and from the working directory, absolute paths, URL- and
//! double-encoded forms, backslashes, `file://`, a NUL — that point at a file planted
//! outside the store and at `/etc/passwd`; raw request lines climb out of the path itself.
//! No answer carries either file's text, and none is a server error.
//!
//! The handlers read nothing but the store (audited: `routes.rs`, `admin.rs`, `mcp/`); this
//! test keeps it so.

use std::path::Path;

use crate::support::{send, TestServer};
use semgraph_queries::{catalog, HttpMethod, ParamType};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const MARKER: &str = "TRAVERSAL-MARKER-7c0e55d1b9";

/// Values that would name `secret` (and `/etc/passwd`) if a handler opened files.
fn hostile_values(secret: &Path, store: &Path) -> Vec<String> {
    let abs = secret.display().to_string();
    let climbs = |from: &Path| {
        let depth = from.components().count();
        format!("{}{}", "../".repeat(depth), abs.trim_start_matches('/'))
    };
    let from_store = climbs(store);
    let from_cwd = climbs(&std::env::current_dir().unwrap_or_default());
    let encode = |s: &str| s.replace('/', "%2F").replace('.', "%2E");
    vec![
        abs.clone(),
        from_store.clone(),
        from_cwd.clone(),
        encode(&from_store),
        encode(&abs),
        from_store.replace("../", "%252e%252e%252f"),
        from_store.replace('/', "\\"),
        format!("..\\..\\..\\..{}", abs.replace('/', "\\")),
        format!("file://{abs}"),
        format!("{abs}\0.java"),
        format!("orders/../../../../../../../..{abs}"),
        "/etc/passwd".into(),
        "../../../../../../../../etc/passwd".into(),
        "..%2F..%2F..%2F..%2F..%2F..%2Fetc%2Fpasswd".into(),
        "%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd".into(),
        "....//....//....//etc/passwd".into(),
        "/proc/self/environ".into(),
    ]
}

fn assert_clean(what: &str, status: u16, body: &str) {
    assert!(status < 500, "{what}: never a server error: {status} {body}");
    assert!(
        !body.contains(MARKER),
        "{what}: the planted file's text is answered: {body}"
    );
    assert!(
        !body.contains("root:x:0:0"),
        "{what}: /etc/passwd is answered: {body}"
    );
    assert!(
        !body.contains("SEMGRAPH_PROBE_ENV"),
        "{what}: the environment is answered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_parameter_reaches_the_filesystem() {
    let s = TestServer::start(None).await;
    // A file outside the store, and an environment variable, that no answer may show.
    let outside = tempfile::tempdir().expect("tempdir");
    let secret = outside.path().join("secret.java");
    std::fs::write(&secret, format!("class Secret {{ String s = \"{MARKER}\"; }}\n")).expect("plant");
    std::env::set_var("SEMGRAPH_PROBE_ENV", "1");
    let values = hostile_values(&secret, &s.store_dir());
    let client = reqwest::Client::new();
    let mut probes = 0usize;
    for spec in catalog() {
        for param in spec.params {
            if param.ty != ParamType::String {
                continue;
            }
            for value in &values {
                // The other required parameters get a harmless value.
                let mut params: Vec<(String, String)> = spec
                    .params
                    .iter()
                    .filter(|p| p.required && p.name != param.name)
                    .map(|p| (p.name.to_string(), "orders".to_string()))
                    .collect();
                params.push((param.name.to_string(), value.clone()));
                let what = format!("GET {} {}={value:?}", spec.path(), param.name);
                let a = send(client.get(s.url(&spec.path())).query(&params)).await;
                assert_clean(&what, a.status, &a.body);
                probes += 1;
                if spec.method == HttpMethod::Post {
                    let body: Map<String, Value> =
                        params.iter().map(|(k, v)| (k.clone(), json!(v))).collect();
                    let a = send(
                        client
                            .post(s.url(&spec.path()))
                            .header("accept", "application/json")
                            .body(Value::Object(body).to_string()),
                    )
                    .await;
                    assert_clean(&format!("POST {what}"), a.status, &a.body);
                    probes += 1;
                }
            }
        }
    }
    // The admin job's product names a product of the config, never a folder.
    for value in &values {
        let a = send(
            client
                .post(s.url("/api/v1/admin/index"))
                .body(json!({ "product": value }).to_string()),
        )
        .await;
        assert_eq!(a.status, 404, "{value:?}: {}", a.body);
        assert_clean(&format!("admin product={value:?}"), a.status, &a.body);
        probes += 1;
    }
    // The path itself: raw request lines, so no client tidies them first.
    let addr = s.base.trim_start_matches("http://").to_string();
    for target in [
        "/api/v1/code/../../../../../../etc/passwd".to_string(),
        "/api/v1/%2e%2e/%2e%2e/%2e%2e/etc/passwd".to_string(),
        "/api/v1/code/..%2f..%2f..%2f..%2fetc%2fpasswd".to_string(),
        format!("/api/v1/code/file/..%2f..%2f..{}", secret.display()),
        format!("/..{}", secret.display()),
        "/mcp/../../etc/passwd".to_string(),
        "//etc/passwd".to_string(),
    ] {
        let mut stream = tokio::net::TcpStream::connect(&addr).await.expect("connect");
        let head = format!("GET {target} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n");
        stream.write_all(head.as_bytes()).await.expect("write");
        let mut out = Vec::new();
        tokio::time::timeout(std::time::Duration::from_secs(60), stream.read_to_end(&mut out))
            .await
            .expect("answered")
            .expect("read");
        let response = String::from_utf8_lossy(&out).into_owned();
        let status = response
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse::<u16>().ok())
            .unwrap_or(0);
        assert!((400..500).contains(&status), "GET {target}: refused: {response}");
        assert_clean(&format!("GET {target}"), status, &response);
        probes += 1;
    }
    // MCP: an endpoint name is one of the enum, never a path.
    let client = crate::mcp::connect_http(&s.url("/mcp"), None, &[], crate::mcp::Lifecycle::Session)
        .await
        .expect("session");
    for value in &values {
        for tool in ["code", "db", "config", "wiki", "execute"] {
            let a = crate::mcp::call(&client, tool, json!({"endpoint": value, "params": {}})).await;
            assert!(
                a.is_error && a.text.starts_with("# 422"),
                "{tool} {value:?}: {}",
                a.text
            );
            assert_clean(&format!("mcp {tool} endpoint={value:?}"), 422, &a.text);
            probes += 1;
        }
    }
    let _ = client.cancel().await;
    eprintln!(
        "traversal probes: {probes}, values per parameter: {}",
        values.len()
    );
}
