//! The HTTP server: the REST API under `/api/v1`, generated from the endpoint catalog.
//!
//! - [`api_router`] mounts one route per catalog endpoint at its `path()` (recipes answer
//!   POST with a JSON body and GET with query parameters), `/api/v1/discover`,
//!   `/api/v1/openapi.json`, the admin routes and `/healthz`; [`app`] is the API plus
//!   request logging and whatever else the process serves (`/mcp`).
//! - [`AppState`] holds the store, the credentials, the OpenAPI document, the document
//!   cache and the index jobs; it is one `Arc`, cheap to clone.
//! - [`Auth::caller`] turns request headers (`Authorization: Bearer <token>`, and for a
//!   gateway token [`AREA_HEADER`]) into a [`semgraph_queries::Caller`] or a rejection; it
//!   is the one place the caller's area is decided, for the REST API and MCP alike.
//!
//! - `metrics.rs` serves Prometheus metrics at [`METRICS_PATH`]: requests by endpoint and
//!   status, latency histograms, index runs, the generation, the store's size.
//! - `limits.rs` keeps one caller from taking the server from the others: a request
//!   timeout, a body size limit and a cap on recipes computed at once, each a `[server]`
//!   key ([`LimitsConfig`]), each answered with a status and a message that says what to do.
//!
//! Handlers parse, call `semgraph_queries::execute` on a blocking thread, paginate and
//! render (`crate::answer`); there is no query logic here.

mod admin;
mod auth;
mod backup;
mod cache;
mod error;
mod limits;
mod metrics;
mod openapi;
mod routes;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{DefaultBodyLimit, Request, State};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{any, get};
use axum::Router;
use semgraph_indexer::Company;
use semgraph_storage::Store;

pub use auth::{Auth, AuthRejection, ConfigError, MemoryConfig, ServerConfig, ALL_AREAS, AREA_HEADER};
pub use error::ApiError;
pub use limits::LimitsConfig;
pub use metrics::METRICS_PATH;
pub(crate) use routes::query_params;

/// The address `semgraph serve` listens on unless told otherwise.
pub const DEFAULT_BIND: &str = "127.0.0.1:7420";

/// What a server is built with besides its store.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Who may call, and with which area.
    pub auth: Auth,
    /// The company config, when the server may index (`POST /api/v1/admin/index`).
    pub company: Option<Company>,
    /// Budget of the rendered-document cache, in bytes (0: no cache).
    pub cache_bytes: usize,
    /// Request timeout, body size limit and recipe slots.
    pub limits: LimitsConfig,
}

impl Default for ServerOptions {
    fn default() -> ServerOptions {
        ServerOptions {
            auth: Auth::none(),
            company: None,
            cache_bytes: cache::DEFAULT_CACHE_BYTES,
            limits: LimitsConfig::default(),
        }
    }
}

struct Shared {
    store: Store,
    auth: Auth,
    company: Option<Company>,
    cache: cache::DocCache,
    openapi: utoipa::openapi::OpenApi,
    openapi_json: String,
    jobs: admin::Jobs,
    limiter: limits::Limiter,
    workspace: Arc<crate::workspace::LocalWorkspace>,
    metrics: metrics::Metrics,
}

/// Everything a handler needs; one `Arc`, cheap to clone.
#[derive(Clone)]
pub struct AppState {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("store", &self.shared.store)
            .field("auth", &self.shared.auth)
            .finish()
    }
}

impl AppState {
    /// A server state over `store`.
    pub fn new(store: Store, options: ServerOptions) -> AppState {
        let openapi = openapi::document();
        let openapi_json = openapi.to_json().unwrap_or_else(|_| "{}".into());
        let metrics = metrics::Metrics::new(routes::every_route());
        if let Some(company) = &options.company {
            metrics.expect_index_runs(company.products.iter().map(|p| p.name.as_str()));
        }
        AppState {
            shared: Arc::new(Shared {
                store,
                auth: options.auth,
                company: options.company,
                cache: cache::DocCache::new(options.cache_bytes),
                openapi,
                openapi_json,
                jobs: admin::Jobs::default(),
                limiter: limits::Limiter::new(options.limits),
                workspace: Arc::new(crate::workspace::LocalWorkspace::new()),
                metrics,
            }),
        }
    }

    /// The store answers are read from.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// The credentials: [`Auth::caller`] turns request headers into a caller.
    pub fn auth(&self) -> &Auth {
        &self.shared.auth
    }

    /// The OpenAPI document as JSON text.
    pub fn openapi_json(&self) -> &str {
        &self.shared.openapi_json
    }

    pub(crate) fn openapi(&self) -> &utoipa::openapi::OpenApi {
        &self.shared.openapi
    }

    pub(crate) fn company(&self) -> Option<&Company> {
        self.shared.company.as_ref()
    }

    pub(crate) fn cache(&self) -> &cache::DocCache {
        &self.shared.cache
    }

    pub(crate) fn jobs(&self) -> &admin::Jobs {
        &self.shared.jobs
    }

    pub(crate) fn limiter(&self) -> &limits::Limiter {
        &self.shared.limiter
    }

    /// The front-ends and repositories of this machine, for the recipes that ask.
    pub(crate) fn workspace(&self) -> &Arc<crate::workspace::LocalWorkspace> {
        &self.shared.workspace
    }

    pub(crate) fn metrics(&self) -> &metrics::Metrics {
        &self.shared.metrics
    }
}

/// The discover catalog for `params` (`domain`, `page`, `page_size`), as
/// `GET /api/v1/discover` answers it, without a server (for `semgraph query discover`).
pub fn discover(
    params: std::collections::BTreeMap<String, String>,
) -> Result<(semgraph_queries::Document, crate::answer::Paging), crate::answer::Problem> {
    routes::discover_document(&openapi::document(), params)
}

/// The REST API: every catalog endpoint, discover, the OpenAPI document, admin and health.
/// Any other path is a 404 naming the nearest endpoints. Every request is read within the
/// body limit and answered within the request timeout (`limits.rs`).
pub fn api_router(state: AppState) -> Router {
    let mut router = Router::new();
    for spec in semgraph_queries::catalog() {
        router = router.route(
            &spec.path(),
            any(
                move |State(state): State<AppState>,
                      method: axum::http::Method,
                      headers: axum::http::HeaderMap,
                      axum::extract::RawQuery(query): axum::extract::RawQuery,
                      body: axum::body::Bytes| async move {
                    routes::endpoint(spec, state, method, headers, query, body).await
                },
            ),
        );
    }
    router
        .route(openapi::DISCOVER_PATH, any(routes::discover))
        .route(openapi::OPENAPI_PATH, any(routes::openapi_json))
        .route(openapi::ADMIN_INDEX_PATH, any(admin::start_index))
        .route(openapi::ADMIN_JOBS_PATH, any(admin::list_jobs))
        .route(backup::ADMIN_BACKUP_PATH, any(backup::start_backup))
        .route(openapi::HEALTH_PATH, get(routes::healthz))
        .route(METRICS_PATH, any(metrics::metrics))
        .fallback(routes::not_found)
        .layer(middleware::from_fn_with_state(state.clone(), limits::guard))
        .layer(DefaultBodyLimit::disable())
        .with_state(state)
}

/// The whole application: the API and the MCP server at `/mcp`, with every request logged
/// (method, path, status, elapsed; never parameters, bodies or tokens) and counted in the
/// metrics (`/metrics`).
pub fn app(state: AppState) -> Router {
    app_until(state, tokio_util::sync::CancellationToken::new())
}

/// [`app`], whose MCP sessions and event streams end when `closing` is cancelled.
fn app_until(state: AppState, closing: tokio_util::sync::CancellationToken) -> Router {
    let mcp = crate::mcp::http_service(&state, closing)
        .layer(middleware::from_fn_with_state(state.clone(), limits::body_guard));
    api_router(state.clone())
        .nest_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(state, log_request))
}

/// What the process logs: `RUST_LOG` (default `info`), except that rmcp is never more
/// verbose than `info`, whatever `RUST_LOG` asks — at `debug` and `trace` it writes every
/// JSON-RPC message whole, tool arguments included, and parameters are never logged.
pub fn log_filter() -> tracing_subscriber::EnvFilter {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    match "rmcp=info".parse() {
        Ok(cap) => filter.add_directive(cap),
        Err(_) => filter,
    }
}

async fn log_request(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let started = Instant::now();
    let response = next.run(request).await;
    let elapsed = started.elapsed();
    let status = response.status().as_u16();
    state.metrics().observe_request(&method, &path, status, elapsed);
    tracing::info!(
        %method,
        %path,
        status,
        ms = elapsed.as_secs_f64() * 1e3,
        "request"
    );
    response
}

/// Why a server cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A non-loopback bind without tokens configured.
    #[error(
        "refusing to listen on {0} without auth: with no [[server.token]] or [[server.gateway]] in \
         semgraph.toml the server serves one local user with full access, so it binds loopback only \
         (e.g. 127.0.0.1:7420). Configure tokens to listen elsewhere."
    )]
    OpenWithoutAuth(SocketAddr),
    /// The address cannot be parsed or resolved.
    #[error("cannot use the address {0}: {1}")]
    Address(String, String),
    /// The socket cannot be bound.
    #[error("cannot listen on {0}: {1}")]
    Bind(String, std::io::Error),
}

/// Resolves `bind` and binds it, refusing a non-loopback address when `auth` has no
/// tokens.
pub async fn bind(bind: &str, auth: &Auth) -> Result<tokio::net::TcpListener, StartError> {
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host(bind)
        .await
        .map_err(|e| StartError::Address(bind.to_string(), e.to_string()))?
        .collect();
    let Some(first) = addrs.first().copied() else {
        return Err(StartError::Address(
            bind.to_string(),
            "it resolves to nothing".into(),
        ));
    };
    if !auth.is_configured() {
        if let Some(open) = addrs.iter().find(|a| !a.ip().is_loopback()) {
            return Err(StartError::OpenWithoutAuth(*open));
        }
    }
    tokio::net::TcpListener::bind(first)
        .await
        .map_err(|e| StartError::Bind(bind.to_string(), e))
}

/// Serves [`app`] on `listener` until `shutdown` completes, then ends the MCP sessions and
/// finishes the requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let closing = tokio_util::sync::CancellationToken::new();
    let app = app_until(state, closing.clone());
    axum::serve(listener, app)
        .with_graceful_shutdown(async move {
            shutdown.await;
            closing.cancel();
        })
        .await
}

/// Completes on Ctrl-C (or SIGTERM on Unix).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    tracing::info!("shutting down");
}
