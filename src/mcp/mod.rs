//! The MCP server: six tools in front of the REST API, over Streamable HTTP at `/mcp` and
//! over stdio.
//!
//! - `discover`, `code`, `db`, `config`, `wiki` (wiki and Jira), `execute` (recipes): each
//!   domain tool takes an `endpoint` (an enum read from the OpenAPI document that discover
//!   renders, `tools.rs`), `params` and `page`, and becomes one request to
//!   `/api/v1/<domain>/<endpoint>` through the API router in-process (`proxy.rs`). The
//!   result is the API's markdown page as one text block; a 4xx is a tool error whose text
//!   is the API's own body (the 422 that names the right parameter, the 403 that says
//!   "permission boundary"). No query logic, no second renderer.
//! - The playbook (discover first, copy names verbatim, scope only when named, fetch every
//!   page, never fabricate, a 403 is a boundary) is in the server instructions and in the
//!   tool descriptions.
//! - [`http_service`] is what `app()` mounts at `/mcp`: rmcp's Streamable HTTP service
//!   (sessions for the protocol versions that have them, stateless for those that do not),
//!   behind the server's tokens. [`run_stdio`] serves the same tools over stdin/stdout to
//!   a local client, with full access.

mod proxy;
mod stdio;
mod tools;

use std::sync::Arc;

use axum::extract::Request;
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use tokio_util::sync::CancellationToken;

pub use stdio::{run_stdio, StdioArgs};

use crate::server::{api_router, AppState, Auth};
use tools::Toolset;

/// The MCP server over one [`AppState`]: the tools, and the API router they proxy into.
/// Cheap to clone (rmcp makes one per session and per stateless request).
#[derive(Clone)]
pub struct McpServer {
    inner: Arc<Inner>,
}

struct Inner {
    router: Router,
    auth: Auth,
    toolset: Toolset,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("tools", &self.inner.toolset.tools.len())
            .finish()
    }
}

impl McpServer {
    /// The tools of `state`'s OpenAPI document, proxying into `state`'s API router.
    pub fn new(state: &AppState) -> McpServer {
        McpServer {
            inner: Arc::new(Inner {
                router: api_router(state.clone()),
                auth: state.auth().clone(),
                toolset: Toolset::from_openapi(state.openapi_json()),
            }),
        }
    }

    /// The tools `tools/list` answers.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.toolset.tools
    }

    /// The instructions sent on initialize.
    pub fn instructions() -> &'static str {
        tools::INSTRUCTIONS
    }
}

fn text_result(ok: bool, text: String) -> CallToolResponse {
    let content = vec![ContentBlock::text(text)];
    if ok {
        CallToolResult::success(content).into()
    } else {
        CallToolResult::error(content).into()
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_instructions(tools::INSTRUCTIONS)
            .with_server_info(
                Implementation::new("semgraph", env!("CARGO_PKG_VERSION")).with_description(
                    "A graph of a company's software answering whole questions as markdown",
                ),
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.toolset.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.toolset.tool(name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let toolset = &self.inner.toolset;
        if toolset.tool(&request.name).is_none() {
            let names: Vec<String> = toolset.tools.iter().map(|t| format!("`{}`", t.name)).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; the tools are {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        }
        let call = match proxy::prepare(toolset, &request.name, request.arguments) {
            Ok(call) => call,
            Err(text) => return Ok(text_result(false, text)),
        };
        // Over HTTP, the MCP request's own headers (its token); over stdio, none.
        let headers = context
            .extensions
            .get::<axum::http::request::Parts>()
            .map(|parts| &parts.headers);
        let answer = proxy::send(&self.inner.router, &self.inner.auth, headers, call).await;
        Ok(text_result((200..300).contains(&answer.status), answer.body))
    }
}

/// The Streamable HTTP service `app()` mounts at `/mcp`.
///
/// With tokens configured, an MCP request needs one the server knows (a gateway's will do
/// without an area: its tool calls carry `caller_area`), and the `Host` header is not
/// checked (the server may listen anywhere; the token is the guard). Without tokens the
/// server listens on loopback only, and so does this: only loopback `Host` headers are
/// accepted, against DNS rebinding. Cancelling `shutdown` ends every session and stream,
/// so a graceful shutdown does not wait on open event streams.
pub fn http_service(state: &AppState, shutdown: CancellationToken) -> Router {
    let server = McpServer::new(state);
    let mut config = StreamableHttpServerConfig::default().with_cancellation_token(shutdown);
    if state.auth().is_configured() {
        config = config.disable_allowed_hosts();
    }
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let auth = state.auth().clone();
    Router::new()
        .fallback_service(service)
        .layer(middleware::from_fn(move |request: Request, next: Next| {
            let auth = auth.clone();
            async move { require_token(&auth, request, next).await }
        }))
}

async fn require_token(auth: &Auth, request: Request, next: Next) -> Response {
    match auth.caller(request.headers()) {
        Ok(_) => next.run(request).await,
        Err(_) if auth.is_gateway(request.headers()) => next.run(request).await,
        Err(rejection) => {
            let mut response = (StatusCode::UNAUTHORIZED, rejection.problem().body).into_response();
            let h = response.headers_mut();
            h.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            h.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static(crate::answer::MARKDOWN),
            );
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_instructions_carry_the_playbook() {
        let text = McpServer::instructions();
        for must in [
            "`discover` first",
            "verbatim",
            "`scope`",
            "FETCH EVERY PAGE",
            "never fabricate",
            "permission boundary",
        ] {
            assert!(text.contains(must), "instructions say {must}");
        }
    }
}
