//! Limits: what keeps one slow, large or eager caller from taking the server away from the
//! others.
//!
//! A server shared by a team (and by the agents of that team, which ask in bursts) must
//! answer "not now" quickly and clearly rather than queue without bound or hang. Each limit
//! is a key of the `[server]` table of `semgraph.toml`:
//!
//! - `request_timeout_secs` (default 30): a request — reading its body included, so a
//!   client that trickles a body cannot hold a connection open — that has not produced its
//!   answer by then is a 503 that says which parameters narrow the question. The
//!   computation it started is not abandoned: it finishes on its blocking thread (holding
//!   its recipe slot, so the cap stays honest) and its document is cached, so the same
//!   question asked again may be answered at once.
//! - `max_body_bytes` (default 1 MiB): a larger body is a 413 that names the limit, whether
//!   it declares its length or streams it chunked. Parameters are names, never documents.
//! - `max_concurrent_recipes` (default: twice the number of cores, at least 4): a recipe
//!   computes on one blocking thread, and part of its time is spent waiting for blocks
//!   read from disk, so with one slot per core a burst of recipes would queue while cores
//!   sit idle. Twice the cores keeps the cores busy and leaves blocking threads (four per
//!   core, see `serve_cmd.rs`) for primitives. A recipe
//!   that finds every slot taken waits in a bounded queue (`recipe_queue` requests, default
//!   64) for at most `recipe_queue_wait_secs` (default 5); past either bound it is a 429
//!   with `Retry-After` and a message saying that primitives still answer. A document
//!   already in the cache needs no slot.
//!
//! - Parameter values are at most [`MAX_PARAM_CHARS`] characters (a 422 naming the limit,
//!   not configurable): every name in a graph is far shorter, and a name is compared with
//!   many others when nothing matches it, so a longer one would only buy CPU time.
//!
//! The guards are middleware around the API router (`guard`: body limit and timeout) and
//! around `/mcp` (`body_guard`: body limit, and the timeout only while the body is read,
//! since a tool call is timed by the API request it becomes); the recipe slot is taken in
//! the handler, only when a recipe must be computed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use semgraph_queries::{catalog, ParamType};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;
use super::routes::format_of;
use super::AppState;
use crate::answer::{Format, Problem};

/// The limits of a server, as the `[server]` table sets them.
#[derive(Clone, Debug, PartialEq)]
pub struct LimitsConfig {
    /// `request_timeout_secs`: how long a request may take, body included.
    pub request_timeout: Duration,
    /// `max_body_bytes`: the largest request body read.
    pub max_body_bytes: usize,
    /// `max_concurrent_recipes`: how many recipes are computed at once.
    pub max_concurrent_recipes: usize,
    /// `recipe_queue`: how many recipe requests may wait for a slot.
    pub recipe_queue: usize,
    /// `recipe_queue_wait_secs`: how long one waits before it is answered 429.
    pub recipe_queue_wait: Duration,
}

/// The default `request_timeout_secs`.
const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// The default `max_body_bytes`.
const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;
/// The default `recipe_queue`.
const DEFAULT_RECIPE_QUEUE: usize = 64;
/// The default `recipe_queue_wait_secs`.
const DEFAULT_RECIPE_QUEUE_WAIT: Duration = Duration::from_secs(5);

impl Default for LimitsConfig {
    fn default() -> LimitsConfig {
        let cores = std::thread::available_parallelism().map_or(2, usize::from);
        LimitsConfig {
            request_timeout: DEFAULT_REQUEST_TIMEOUT,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_concurrent_recipes: (2 * cores).max(4),
            recipe_queue: DEFAULT_RECIPE_QUEUE,
            recipe_queue_wait: DEFAULT_RECIPE_QUEUE_WAIT,
        }
    }
}

/// The limit keys of the `[server]` table, as written.
#[derive(Debug, Default)]
pub(crate) struct RawLimits {
    pub(crate) request_timeout_secs: Option<f64>,
    pub(crate) max_body_bytes: Option<u64>,
    pub(crate) max_concurrent_recipes: Option<u64>,
    pub(crate) recipe_queue: Option<u64>,
    pub(crate) recipe_queue_wait_secs: Option<f64>,
}

/// The longest duration a limit accepts: a day.
const MAX_SECS: f64 = 86_400.0;

fn seconds(key: &str, value: Option<f64>, default: Duration) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(s) if s.is_finite() && s > 0.0 && s <= MAX_SECS => Ok(Duration::from_secs_f64(s)),
        Some(s) => Err(format!(
            "{key} = {s}: give a number of seconds above 0 and at most {MAX_SECS}"
        )),
    }
}

fn count(key: &str, value: Option<u64>, default: usize, min: u64) -> Result<usize, String> {
    match value {
        None => Ok(default),
        Some(n) if n >= min => usize::try_from(n).map_err(|_| format!("{key} = {n} is too large")),
        Some(n) => Err(format!("{key} = {n}: give a whole number of at least {min}")),
    }
}

impl RawLimits {
    /// The checked limits: every key within its range, absent keys at their defaults.
    pub(crate) fn check(self) -> Result<LimitsConfig, String> {
        let d = LimitsConfig::default();
        Ok(LimitsConfig {
            request_timeout: seconds(
                "request_timeout_secs",
                self.request_timeout_secs,
                d.request_timeout,
            )?,
            max_body_bytes: count("max_body_bytes", self.max_body_bytes, d.max_body_bytes, 1)?,
            max_concurrent_recipes: count(
                "max_concurrent_recipes",
                self.max_concurrent_recipes,
                d.max_concurrent_recipes,
                1,
            )?,
            recipe_queue: count("recipe_queue", self.recipe_queue, d.recipe_queue, 0)?,
            recipe_queue_wait: seconds(
                "recipe_queue_wait_secs",
                self.recipe_queue_wait_secs,
                d.recipe_queue_wait,
            )?,
        })
    }
}

/// The longest parameter value read, in characters.
pub(crate) const MAX_PARAM_CHARS: usize = 4_096;

/// Refuses a parameter value longer than [`MAX_PARAM_CHARS`] with a 422 that says so.
pub(crate) fn param_lengths(
    path: &str,
    params: &std::collections::BTreeMap<String, String>,
) -> Result<(), Problem> {
    for (name, value) in params {
        let chars = value.chars().count();
        if chars > MAX_PARAM_CHARS {
            return Err(Problem::invalid(format!(
                "# 422: parameter `{name}` is {chars} characters long\n\nEndpoint `{path}`: a \
                 parameter value is at most {MAX_PARAM_CHARS} characters. Parameters are names, \
                 words and small values, never sources or documents.\n"
            )));
        }
    }
    Ok(())
}

/// [`param_lengths`] for the parameters of `spec`: a document parameter (a diff) is
/// bounded by its own limit instead, and the others as usual.
pub(crate) fn param_lengths_of(
    spec: &semgraph_queries::EndpointSpec,
    path: &str,
    params: &std::collections::BTreeMap<String, String>,
) -> Result<(), Problem> {
    let mut short = params.clone();
    for p in spec.params {
        if let ParamType::Text { max_bytes } = p.ty {
            if let Some(v) = short.remove(p.name) {
                if v.len() > max_bytes {
                    return Err(Problem::invalid(format!(
                        "# 422: parameter `{}` is {} bytes long\n\nEndpoint `{path}`: `{}` is at most \
                         {max_bytes} bytes. Send a smaller diff (fewer files, less context), or ask about \
                         a range of an indexed repository (`repo`, `range`).\n",
                        p.name,
                        v.len(),
                        p.name
                    )));
                }
            }
        }
    }
    param_lengths(path, &short)
}

/// The limits of a running server: the configuration and the recipe slots.
pub(crate) struct Limiter {
    config: LimitsConfig,
    recipes: Arc<Semaphore>,
    waiting: AtomicUsize,
}

/// A recipe slot, held for as long as the recipe is computed (moved into its blocking
/// task, so an answer nobody waits for any more still counts until it is done).
pub(crate) struct RecipeSlot {
    _permit: OwnedSemaphorePermit,
}

/// Leaves the recipe queue when dropped.
struct InQueue<'a>(&'a AtomicUsize);

impl Drop for InQueue<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Limiter {
    pub(crate) fn new(config: LimitsConfig) -> Limiter {
        Limiter {
            recipes: Arc::new(Semaphore::new(config.max_concurrent_recipes)),
            waiting: AtomicUsize::new(0),
            config,
        }
    }

    pub(crate) fn config(&self) -> &LimitsConfig {
        &self.config
    }

    /// A recipe slot: at once when one is free, else after a bounded wait in a bounded
    /// queue; the 429 answer when neither bound holds.
    pub(crate) async fn recipe_slot(&self) -> Result<RecipeSlot, Busy> {
        if let Ok(permit) = self.recipes.clone().try_acquire_owned() {
            return Ok(RecipeSlot { _permit: permit });
        }
        let ahead = self.waiting.fetch_add(1, Ordering::SeqCst);
        let _queued = InQueue(&self.waiting);
        if ahead < self.config.recipe_queue {
            let wait = self.config.recipe_queue_wait;
            if let Ok(Ok(permit)) = tokio::time::timeout(wait, self.recipes.clone().acquire_owned()).await {
                return Ok(RecipeSlot { _permit: permit });
            }
        }
        let running = self.config.max_concurrent_recipes - self.recipes.available_permits();
        let waiting = self.waiting.load(Ordering::SeqCst).saturating_sub(1);
        tracing::warn!(running, waiting, "recipe refused: every slot is taken");
        Err(Busy {
            running,
            waiting,
            cap: self.config.max_concurrent_recipes,
            retry_after: retry_after(self.config.recipe_queue_wait),
        })
    }
}

/// Whole seconds to suggest in `Retry-After`: the queue wait, rounded up, at least 1.
fn retry_after(wait: Duration) -> u64 {
    wait.as_secs_f64().ceil().max(1.0) as u64
}

/// Every recipe slot is taken and the queue is full or was waited in too long.
#[derive(Clone, Debug)]
pub(crate) struct Busy {
    running: usize,
    waiting: usize,
    cap: usize,
    retry_after: u64,
}

impl Busy {
    fn problem(&self) -> Problem {
        Problem {
            status: 429,
            code: "busy",
            body: format!(
                "# 429: busy — every recipe slot is taken\n\n{} recipes are being computed, the most \
                 this server runs at once (`max_concurrent_recipes` = {}), and {} more are waiting. \
                 Retry this recipe after {} s (the `Retry-After` header says the same). Primitives \
                 (`/api/v1/code/…`, `/api/v1/db/…`, …) and answers already computed still answer \
                 meanwhile.\n",
                self.running, self.cap, self.waiting, self.retry_after
            ),
        }
    }

    /// The 429 answer, in `format`, with `Retry-After`.
    pub(crate) fn response(&self, format: Format) -> Response {
        let mut response = ApiError::new(self.problem(), format).into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(self.retry_after));
        response
    }
}

/// What narrows a question at `path`, from the catalog's parameters of that endpoint.
fn narrowing(path: &str) -> String {
    let Some(spec) = catalog().iter().find(|s| s.path() == path) else {
        return "ask for less at once".into();
    };
    let mut ways = Vec::new();
    for p in spec.params {
        let way = match (p.name, &p.ty) {
            ("depth", ParamType::Integer { min, .. }) => format!("a smaller `depth` (down to {min})"),
            ("limit", ParamType::Integer { .. }) => "a smaller `limit`".into(),
            ("scope", _) => "a `scope` naming one product".into(),
            ("include_tests", _) => "`include_tests` = false".into(),
            (name, ParamType::String) if p.required => format!("a more specific `{name}`"),
            _ => continue,
        };
        ways.push(way);
    }
    if ways.is_empty() {
        return "ask for less at once".into();
    }
    ways.join(", ")
}

fn timed_out(path: &str, timeout: Duration) -> Problem {
    Problem {
        status: 503,
        code: "timeout",
        body: format!(
            "# 503: the request took too long\n\n`{path}` did not finish within {} s \
             (`request_timeout_secs` of this server), so the server stopped waiting. Narrow the \
             question and ask again: {}. A question that timed out is still computed to the end \
             and kept, so asking the same one again shortly may answer at once.\n",
            timeout.as_secs_f64(),
            narrowing(path)
        ),
    }
}

fn too_large(limit: usize, declared: Option<u64>) -> Problem {
    let size = match declared {
        Some(n) => format!("this one declares {n} bytes"),
        None => "this one is longer".into(),
    };
    Problem {
        status: 413,
        code: "payload_too_large",
        body: format!(
            "# 413: the request body is too large\n\nThis server reads at most {limit} bytes of a \
             request body (`max_body_bytes` of this server); {size}. Parameters are names and small \
             values, e.g. `{{\"target\": \"com.acme.orders.OrderService.placeOrder\"}}`: send \
             names, never sources or documents.\n"
        ),
    }
}

fn unreadable() -> Problem {
    Problem {
        status: 400,
        code: "bad_request",
        body: "# 400: the request body could not be read\n\nThe connection failed while the body \
               was being sent. Send the request again.\n"
            .into(),
    }
}

/// The request with its body read whole, if it is at most `limit` bytes.
async fn read_body(request: Request, limit: usize) -> Result<Request, Problem> {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(too_large(limit, declared));
    }
    let (parts, body) = request.into_parts();
    match Limited::new(body, limit).collect().await {
        Ok(collected) => Ok(Request::from_parts(parts, Body::from(collected.to_bytes()))),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => Err(too_large(limit, declared)),
        Err(_) => Err(unreadable()),
    }
}

/// The API's guard: the body is read within `max_body_bytes`, and the whole request —
/// reading included — within `request_timeout_secs`.
pub(crate) async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limits = state.limiter().config().clone();
    let format = format_of(request.headers());
    let path = request.uri().path().to_string();
    let answered = tokio::time::timeout(limits.request_timeout, async move {
        match read_body(request, limits.max_body_bytes).await {
            Ok(request) => next.run(request).await,
            Err(problem) => ApiError::new(problem, format).into_response(),
        }
    })
    .await;
    match answered {
        Ok(response) => response,
        Err(_) => {
            tracing::warn!(%path, secs = limits.request_timeout.as_secs_f64(), "request timed out");
            ApiError::new(timed_out(&path, limits.request_timeout), format).into_response()
        }
    }
}

/// The guard of `/mcp`: the body is read within `max_body_bytes` and `request_timeout_secs`;
/// what follows is a tool call, timed by the API request it becomes (event streams are
/// long-lived by design).
pub(crate) async fn body_guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let limits = state.limiter().config().clone();
    let format = format_of(request.headers());
    let read = tokio::time::timeout(limits.request_timeout, read_body(request, limits.max_body_bytes)).await;
    match read {
        Ok(Ok(request)) => next.run(request).await,
        Ok(Err(problem)) => ApiError::new(problem, format).into_response(),
        Err(_) => {
            tracing::warn!(path = "/mcp", "request body not received in time");
            ApiError::new(timed_out("/mcp", limits.request_timeout), format).into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(text: &str) -> Result<LimitsConfig, String> {
        let table: toml::Table = toml::from_str(&format!("[server]\n{text}")).map_err(|e| e.to_string())?;
        crate::server::ServerConfig::from_table(table.get("server").and_then(|v| v.as_table()))
            .map(|c| c.limits)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn limits_are_read_checked_and_defaulted() {
        let d = LimitsConfig::default();
        assert_eq!(limits("").expect("empty"), d);
        assert!(d.max_concurrent_recipes >= 2);
        let c = limits(
            "request_timeout_secs = 0.25\nmax_body_bytes = 64\nmax_concurrent_recipes = 1\n\
             recipe_queue = 0\nrecipe_queue_wait_secs = 2\n",
        )
        .expect("valid");
        assert_eq!(c.request_timeout, Duration::from_millis(250));
        assert_eq!(c.max_body_bytes, 64);
        assert_eq!(c.max_concurrent_recipes, 1);
        assert_eq!(c.recipe_queue, 0);
        assert_eq!(c.recipe_queue_wait, Duration::from_secs(2));
        for (bad, name) in [
            ("request_timeout_secs = 0", "request_timeout_secs"),
            ("request_timeout_secs = -1.5", "request_timeout_secs"),
            ("max_body_bytes = 0", "max_body_bytes"),
            ("max_concurrent_recipes = 0", "max_concurrent_recipes"),
            ("recipe_queue_wait_secs = 1e9", "recipe_queue_wait_secs"),
            ("max_body_byte = 10", "max_body_byte"),
        ] {
            let err = limits(bad).expect_err(bad);
            assert!(err.contains(name), "{bad}: {err}");
        }
        assert!(limits("max_body_bytes = -4").is_err());
        assert!(limits("request_timeout_secs = \"30s\"").is_err());
    }

    #[test]
    fn a_parameter_value_is_at_most_max_param_chars() {
        let mut params = std::collections::BTreeMap::new();
        params.insert("q".to_string(), "é".repeat(MAX_PARAM_CHARS));
        assert!(param_lengths("/p", &params).is_ok(), "characters, not bytes");
        params.insert("q".to_string(), "x".repeat(MAX_PARAM_CHARS + 1));
        let err = param_lengths("/p", &params).expect_err("too long");
        assert_eq!(err.status, 422);
        assert!(
            err.body.contains("`q`") && err.body.contains("4096"),
            "{}",
            err.body
        );
    }

    #[test]
    fn a_timeout_names_what_narrows_the_question() {
        let impact = timed_out("/api/v1/recipes/impact", Duration::from_secs(30));
        assert_eq!(impact.status, 503);
        assert!(impact.body.contains("`depth`"), "{}", impact.body);
        assert!(
            impact.body.contains("a more specific `target`"),
            "{}",
            impact.body
        );
        let search = timed_out("/api/v1/code/search", Duration::from_secs(30));
        assert!(search.body.contains("`scope`") && search.body.contains("`limit`"));
        assert_eq!(retry_after(Duration::from_millis(10)), 1);
        assert_eq!(retry_after(Duration::from_millis(2500)), 3);
    }
}
