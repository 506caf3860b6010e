//! Shared by the MCP tests: an rmcp client over Streamable HTTP or a child process's
//! stdio, and one-line tool calls that hand back the text and whether it is an error.

#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;

use rmcp::model::{CallToolRequestParams, ClientConfig, JsonObject, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ServiceExt};
use serde_json::Value;

/// A connected client.
pub type Client = RunningService<RoleClient, ClientConfig>;

/// How a client speaks to the server.
#[derive(Clone, Copy, Debug)]
pub enum Lifecycle {
    /// `initialize` and a session (protocol 2025-11-25).
    Session,
    /// `server/discover` and self-contained stateless requests (protocol 2026-07-28).
    Stateless,
}

/// Connects to `url` (`…/mcp`) with an optional bearer token and extra headers.
pub async fn connect_http(
    url: &str,
    token: Option<&str>,
    headers: &[(&'static str, &str)],
    lifecycle: Lifecycle,
) -> Result<Client, String> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.to_string());
    if let Some(t) = token {
        config = config.auth_header(t.to_string());
    }
    let mut custom = HashMap::new();
    for (name, value) in headers {
        custom.insert(
            axum::http::HeaderName::from_static(name),
            axum::http::HeaderValue::from_str(value).expect("header value"),
        );
    }
    config = config.custom_headers(custom);
    let transport = StreamableHttpClientTransport::from_config(config);
    let client = ClientConfig::default();
    let started = match lifecycle {
        Lifecycle::Session => client.serve(transport).await,
        Lifecycle::Stateless => {
            client
                .serve_with_lifecycle(
                    transport,
                    ClientLifecycleMode::Discover {
                        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                    },
                )
                .await
        }
    };
    started.map_err(|e| e.to_string())
}

/// A JSON object literal as tool arguments.
pub fn args(v: Value) -> JsonObject {
    match v {
        Value::Object(m) => m,
        other => panic!("arguments must be an object: {other}"),
    }
}

/// A tool's answer: its one text block, and whether it is a tool error.
#[derive(Debug)]
pub struct ToolAnswer {
    pub is_error: bool,
    pub text: String,
}

/// Calls `tool` with `arguments`; panics on a protocol error (a tool error is an answer).
pub async fn call(client: &Client, tool: &str, arguments: Value) -> ToolAnswer {
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_string()).with_arguments(args(arguments)))
        .await
        .unwrap_or_else(|e| panic!("tools/call {tool}: {e}"));
    assert_eq!(result.content.len(), 1, "{tool}: one text block: {result:?}");
    let text = result.content[0]
        .as_text()
        .map(|t| t.text.clone())
        .unwrap_or_else(|| panic!("{tool}: a text block: {result:?}"));
    ToolAnswer {
        is_error: result.is_error == Some(true),
        text,
    }
}

/// The names of the listed tools, in order.
pub async fn tool_names(client: &Client) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// The six tools, in the order the server lists them.
pub const SIX_TOOLS: [&str; 6] = ["discover", "code", "db", "config", "wiki", "execute"];
