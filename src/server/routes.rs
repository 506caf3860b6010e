//! The handlers: parse, ask `semgraph-queries`, paginate, render. No query logic here.
//!
//! Every catalog endpoint is served by [`endpoint`] with its spec captured: GET takes
//! query parameters; a recipe (POST in the catalog) also takes a JSON object body whose
//! values, each of its parameter's JSON type, are turned to text. Parameters are strict
//! everywhere — an unknown one, a parameter given twice, a value of the wrong JSON type or
//! `null`, a malformed or non-object body is a 422 whose body says what to fix. The
//! document is computed on a blocking thread (a recipe only with a recipe slot) or found
//! in the cache, and one page of it is cut and rendered, also on a blocking thread, in
//! the format the `Accept` header asks for.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use semgraph_queries::{
    catalog, execute_with, Caller, Document, EndpointSpec, HttpMethod, Page, ParamType, Request,
};
use serde_json::Value;

use super::cache::{Entry, Flight, Key, Outcome};
use super::error::ApiError;
use super::limits::{param_lengths, param_lengths_of, Busy};
use super::openapi::{self, DISCOVER_PATH};
use super::AppState;
use crate::answer::{json_page, render_page, Format, Paging, Problem};

/// The format asked for by a request's `Accept` header.
pub(crate) fn format_of(headers: &HeaderMap) -> Format {
    Format::from_accept(headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()))
}

/// A 200 answer: page `paging.page` of a document, with its page headers.
pub(crate) fn answer(doc: &Document, pages: &[Page], paging: Paging, format: Format) -> Response {
    match render_page(doc, pages, paging, format) {
        Ok(r) => {
            let mut response = (StatusCode::OK, r.body).into_response();
            let h = response.headers_mut();
            h.insert(header::CONTENT_TYPE, HeaderValue::from_static(r.content_type));
            h.insert("x-semgraph-page", HeaderValue::from(r.page));
            h.insert("x-semgraph-pages", HeaderValue::from(r.pages));
            response
        }
        Err(p) => ApiError::new(p, format).into_response(),
    }
}

/// Answers a small document computed in the handler (discover, admin), paginated like
/// every other answer.
pub(crate) fn answer_document(doc: &Document, paging: Paging, format: Format) -> Response {
    let pages = semgraph_queries::paginate(&doc.markdown, paging.page_size);
    answer(doc, &pages, paging, format)
}

fn twice(path: &str, name: &str) -> Problem {
    Problem::invalid(format!(
        "# 422: parameter `{name}` is given twice\n\nEndpoint `{path}`: give each parameter once \
         (in the query string or the JSON body, not both).\n\nCall `GET {DISCOVER_PATH}` first and \
         copy parameter names verbatim.\n"
    ))
}

/// A document parameter (a diff) in the query string: a 422 saying to POST it.
fn text_in_query(spec: &EndpointSpec, params: &BTreeMap<String, String>) -> Result<(), Problem> {
    for p in spec.params {
        if let ParamType::Text { max_bytes } = p.ty {
            if params.contains_key(p.name) {
                return Err(Problem::invalid(format!(
                    "# 422: parameter `{}` cannot be sent in the query string\n\nEndpoint `{}`: `{}` is a \
                     document of up to {max_bytes} bytes, too long for a URL. Send it in a JSON body with \
                     POST, e.g. `{{\"{}\": \"diff --git …\"}}` (the other parameters may stay in the query \
                     string or join it in the body).\n\nCall `GET {DISCOVER_PATH}` first and copy parameter \
                     names verbatim.\n",
                    p.name,
                    spec.path(),
                    p.name,
                    p.name
                )));
            }
        }
    }
    Ok(())
}

/// The query string's parameters, each at most once.
pub(crate) fn query_params(path: &str, query: Option<&str>) -> Result<BTreeMap<String, String>, Problem> {
    let pairs: Vec<(String, String)> = match query {
        None | Some("") => Vec::new(),
        Some(q) => serde_urlencoded::from_str(q).map_err(|e| {
            Problem::invalid(format!(
                "# 422: the query string cannot be read\n\nEndpoint `{path}`: {e}. Encode parameters \
                 as `name=value&name=value` with percent-encoding.\n"
            ))
        })?,
    };
    let mut out = BTreeMap::new();
    for (k, v) in pairs {
        if out.contains_key(&k) {
            return Err(twice(path, &k));
        }
        out.insert(k, v);
    }
    Ok(out)
}

fn body_example(spec: &EndpointSpec) -> String {
    let fields: Vec<String> = spec
        .params
        .iter()
        .filter(|p| p.required)
        .map(|p| format!("\"{}\": \"…\"", p.name))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

/// The JSON type a parameter's value must have in a body, for the error message.
fn json_kind(ty: ParamType) -> &'static str {
    match ty {
        ParamType::String | ParamType::Enum(_) | ParamType::Text { .. } => "a JSON string",
        ParamType::Integer { .. } => "a JSON integer",
        ParamType::Boolean => "`true` or `false`",
    }
}

/// The type of parameter `name` of `spec` in a body, `page` and `page_size` included.
fn body_type(spec: &EndpointSpec, name: &str) -> Option<ParamType> {
    match name {
        "page" | "page_size" => Some(ParamType::Integer {
            min: 1,
            max: i64::MAX,
        }),
        _ => spec.param(name).map(|p| p.ty),
    }
}

/// Adds the parameters of a JSON object body to `params`, as text. Each value must have
/// the JSON type of its parameter (`types`: a string for text and choices, an integer, a
/// boolean); `null` and nested values are 422s, and so is a body that is not an object.
/// A name `types` does not know is kept (as text, if it is a scalar) for the strict
/// check of names that follows, which names the nearest right one.
pub(crate) fn body_params(
    path: &str,
    example: &str,
    body: &[u8],
    params: &mut BTreeMap<String, String>,
    types: &dyn Fn(&str) -> Option<ParamType>,
) -> Result<(), Problem> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        Problem::invalid(format!(
            "# 422: the request body is not valid JSON\n\nEndpoint `POST {path}`: {e}.\n\nSend a JSON \
             object of parameters, e.g. `{example}`, or call GET with query parameters. Call `GET \
             {DISCOVER_PATH}` first and copy parameter names verbatim.\n"
        ))
    })?;
    let Value::Object(object) = value else {
        return Err(Problem::invalid(format!(
            "# 422: the request body must be a JSON object, not {}\n\nEndpoint `POST {path}`: send \
             the parameters as an object, e.g. `{example}`. Call `GET {DISCOVER_PATH}` first and copy \
             parameter names verbatim.\n",
            kind_of(&value)
        )));
    };
    for (name, v) in object {
        let wrong = |expected: &str| {
            Problem::invalid(format!(
                "# 422: parameter `{name}` must be {expected}, not {}\n\nEndpoint `POST {path}`: e.g. \
                 `{example}`. Leave a parameter out to use its default.\n",
                kind_of(&v)
            ))
        };
        let text = match (types(&name), &v) {
            (_, Value::Null) => return Err(wrong("given a value or left out")),
            (_, Value::Array(_) | Value::Object(_)) => return Err(wrong("a string, number or boolean")),
            (Some(ParamType::String | ParamType::Enum(_) | ParamType::Text { .. }), Value::String(s)) => {
                s.clone()
            }
            (Some(ParamType::Integer { .. }), Value::Number(n)) => match integer(n) {
                Some(i) => i,
                None => return Err(wrong(json_kind(ParamType::Integer { min: 0, max: 0 }))),
            },
            (Some(ParamType::Boolean), Value::Bool(b)) => b.to_string(),
            (Some(ty), _) => return Err(wrong(json_kind(ty))),
            (None, Value::String(s)) => s.clone(),
            (None, Value::Bool(b)) => b.to_string(),
            (None, Value::Number(n)) => n.to_string(),
        };
        if params.contains_key(&name) {
            return Err(twice(path, &name));
        }
        params.insert(name, text);
    }
    Ok(())
}

/// A JSON number that is an integer, as text: `3`, and `3.0` too (JSON Schema counts a
/// number without a fraction as an integer).
fn integer(n: &serde_json::Number) -> Option<String> {
    if n.is_i64() || n.is_u64() {
        return Some(n.to_string());
    }
    let f = n.as_f64()?;
    // Below 2^53 every whole f64 is exact, and no parameter goes near it.
    (f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0).then(|| format!("{}", f as i64))
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn method_not_allowed(path: &str, allowed: &'static str, format: Format) -> Response {
    let problem = Problem {
        status: 405,
        code: "method_not_allowed",
        body: format!(
            "# 405: method not allowed\n\n`{path}` answers {allowed}. Call `GET {DISCOVER_PATH}` to see \
             how each endpoint is called.\n"
        ),
    };
    let mut response = ApiError::new(problem, format).into_response();
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allowed));
    response
}

/// The caller of a request, or the 401 answer.
pub(crate) fn caller_of(state: &AppState, headers: &HeaderMap, format: Format) -> Result<Caller, ApiError> {
    state
        .auth()
        .caller(headers)
        .map_err(|r| ApiError::new(r.problem(), format))
}

/// Serves one catalog endpoint.
pub(crate) async fn endpoint(
    spec: &'static EndpointSpec,
    state: AppState,
    method: Method,
    headers: HeaderMap,
    query: Option<String>,
    body: Bytes,
) -> Response {
    let format = format_of(&headers);
    let path = spec.path();
    let takes_body = spec.method == HttpMethod::Post;
    match (&method, takes_body) {
        (&Method::GET, _) | (&Method::POST, true) => {}
        (_, true) => return method_not_allowed(&path, "POST, GET", format),
        (_, false) => return method_not_allowed(&path, "GET", format),
    }
    let caller = match caller_of(&state, &headers, format) {
        Ok(c) => c,
        Err(e) => return e.into_response(),
    };
    let prepared = (|| {
        let mut params = query_params(&path, query.as_deref())?;
        text_in_query(spec, &params)?;
        if method == Method::POST {
            body_params(&path, &body_example(spec), &body, &mut params, &|name| {
                body_type(spec, name)
            })?;
        }
        param_lengths_of(spec, &path, &params)?;
        let paging = Paging::take(&mut params, &path)?;
        Ok::<_, Problem>((params, paging))
    })();
    let (params, paging) = match prepared {
        Ok(p) => p,
        Err(p) => return ApiError::new(p, format).into_response(),
    };
    let request = Request {
        domain: spec.domain.to_string(),
        endpoint: spec.name.to_string(),
        params,
    };
    match document(&state, caller, request, paging, format).await {
        Ok(response) => response,
        Err(Refusal::Problem(p)) => ApiError::new(p, format).into_response(),
        Err(Refusal::Busy(busy)) => busy.response(format),
    }
}

/// Why a document is not answered.
pub(crate) enum Refusal {
    /// The question is wrong, forbidden, matches nothing, or failed.
    Problem(Problem),
    /// Every recipe slot is taken (429).
    Busy(Busy),
}

/// Documents up to this many bytes have their page answered on the runtime's thread:
/// answering a page of a cached document copies nothing, and its JSON is linear in the
/// page. Longer ones are answered on a blocking thread.
const INLINE_BYTES: usize = 256 << 10;

/// The answer to `request` for `caller`: page `paging` of its document in `format`. The
/// document comes from the cache, or from a computation of the same question already
/// running, or is computed on a blocking thread — a recipe only with a recipe slot, which
/// that thread holds until it is done — which also cuts the page asked for and caches the
/// document, so a request that timed out still leaves its answer for the next one.
pub(crate) async fn document(
    state: &AppState,
    caller: Caller,
    request: Request,
    paging: Paging,
    format: Format,
) -> Result<Response, Refusal> {
    let snapshot = state.store().snapshot();
    // A recipe's trace says whether each repository has moved on since it was indexed,
    // which no generation tells: a recipe's document is reused only within one window of
    // the workspace's HEAD cache.
    let window = if request.domain == "recipes" {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() / crate::workspace::HEAD_TTL.as_secs().max(1))
            .unwrap_or(0)
    } else {
        0
    };
    let key = Key {
        area: caller.area().map(str::to_string),
        request: serde_json::to_string(&(&request.domain, &request.endpoint, &request.params, window))
            .unwrap_or_default(),
        generation: snapshot.generation(),
    };
    loop {
        if let Some(entry) = state.cache().get(&key) {
            return Ok(answer_entry(entry, paging, format).await);
        }
        let lead = match state.cache().flight(&key) {
            Flight::Lead(lead) => lead,
            Flight::Follow(mut rx) => {
                let landed = rx.wait_for(Option::is_some).await.ok().and_then(|o| o.clone());
                match landed {
                    Some(Ok(entry)) => return Ok(answer_entry(entry, paging, format).await),
                    Some(Err(p)) => return Err(Refusal::Problem(p)),
                    // The leader gave up before computing: ask again.
                    None => continue,
                }
            }
        };
        let slot = if request.domain == "recipes" {
            Some(state.limiter().recipe_slot().await.map_err(Refusal::Busy)?)
        } else {
            None
        };
        let state = state.clone();
        let workspace = state.workspace().clone();
        let computed = tokio::task::spawn_blocking(move || {
            let _slot = slot;
            let outcome: Outcome = match execute_with(&snapshot, &caller, &request, &*workspace) {
                Ok(doc) => Ok(Arc::new(Entry::new(doc))),
                Err(e) => {
                    if e.kind() == semgraph_queries::ErrorKind::Internal {
                        tracing::error!(error = %e.body(), "query failed");
                    }
                    Err(Problem::from(e))
                }
            };
            let response = outcome.as_ref().ok().map(|entry| {
                let response = answer_page(entry, paging, format);
                state.cache().insert(key, entry.clone());
                response
            });
            lead.land(&outcome);
            (outcome, response)
        })
        .await;
        return match computed {
            Ok((_, Some(response))) => Ok(response),
            Ok((Err(p), _)) => Err(Refusal::Problem(p)),
            Ok((Ok(_), None)) | Err(_) => {
                tracing::error!("query task failed");
                Err(Refusal::Problem(Problem::internal()))
            }
        };
    }
}

/// Page `paging` of a computed document in `format`, on this thread or a blocking one.
async fn answer_entry(entry: Arc<Entry>, paging: Paging, format: Format) -> Response {
    if entry.doc.markdown.len() <= INLINE_BYTES {
        return answer_page(&entry, paging, format);
    }
    tokio::task::spawn_blocking(move || answer_page(&entry, paging, format))
        .await
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "rendering task failed");
            ApiError::new(Problem::internal(), format).into_response()
        })
}

/// A 200 answer: page `paging.page` of a cached document (its text as cut once), with its
/// page headers; a page beyond the last is the same 404 [`render_page`] answers.
fn answer_page(entry: &Entry, paging: Paging, format: Format) -> Response {
    let texts = entry.page_texts(paging.page_size);
    let count = texts.len();
    let Some(text) = texts.get(paging.page.saturating_sub(1)) else {
        return answer(
            &entry.doc,
            &semgraph_queries::paginate(&entry.doc.markdown, paging.page_size),
            paging,
            format,
        );
    };
    let number = paging.page;
    let body = match format {
        Format::Markdown => text.clone(),
        Format::Json => {
            // The page text is valid UTF-8: it was cut from a String.
            let text = std::str::from_utf8(text).unwrap_or_default();
            Bytes::from(json_page(&entry.doc, number, count, paging.page_size, text))
        }
    };
    let mut response = (StatusCode::OK, body).into_response();
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(format.content_type()),
    );
    h.insert("x-semgraph-page", HeaderValue::from(number));
    h.insert("x-semgraph-pages", HeaderValue::from(count));
    response
}

/// `GET /api/v1/discover[?domain=]`: the OpenAPI document as a compact catalog.
pub(crate) async fn discover(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let format = format_of(&headers);
    if method != Method::GET {
        return method_not_allowed(DISCOVER_PATH, "GET", format);
    }
    if let Err(e) = caller_of(&state, &headers, format) {
        return e.into_response();
    }
    let result = query_params(DISCOVER_PATH, query.as_deref()).and_then(|params| {
        param_lengths(DISCOVER_PATH, &params)?;
        discover_document(state.openapi(), params)
    });
    match result {
        Ok((doc, paging)) => answer_document(&doc, paging, format),
        Err(p) => ApiError::new(p, format).into_response(),
    }
}

/// The discover catalog of `doc` for the parameters of a discover request (`domain`,
/// `page`, `page_size`).
pub(crate) fn discover_document(
    doc: &utoipa::openapi::OpenApi,
    mut params: BTreeMap<String, String>,
) -> Result<(Document, Paging), Problem> {
    let paging = Paging::take(&mut params, DISCOVER_PATH)?;
    strict(DISCOVER_PATH, &params, &["domain"])?;
    let domains = openapi::domains(doc);
    let domain = params.get("domain").map(|d| d.trim().to_string());
    if let Some(d) = &domain {
        if !domains.contains(d) {
            return Err(Problem::invalid(format!(
                "# 422: unknown domain `{d}`\n\nDomains: {}. Call `GET {DISCOVER_PATH}` without \
                 `domain` to see them all.\n",
                domains
                    .iter()
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    let (markdown, json) = openapi::render_discover(doc, domain.as_deref());
    let title = markdown
        .lines()
        .next()
        .unwrap_or("")
        .trim_start_matches("# ")
        .to_string();
    let doc = Document::new(title, markdown, &json);
    Ok((doc, paging))
}

/// Refuses parameters other than `allowed` with a 422 naming the nearest allowed one.
pub(crate) fn strict(path: &str, params: &BTreeMap<String, String>, allowed: &[&str]) -> Result<(), Problem> {
    for name in params.keys() {
        if allowed.contains(&name.as_str()) {
            continue;
        }
        let hint = nearest(name, allowed.iter().copied(), 1)
            .first()
            .map(|n| format!("Did you mean `{n}`? "))
            .unwrap_or_default();
        let list = if allowed.is_empty() {
            "none besides `page` and `page_size`".to_string()
        } else {
            allowed
                .iter()
                .map(|a| format!("`{a}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        return Err(Problem::invalid(format!(
            "# 422: unknown parameter `{name}`\n\nEndpoint `{path}`. {hint}Its parameters: {list} \
             (and `page`, `page_size`).\n\nCall `GET {DISCOVER_PATH}` first and copy parameter names \
             verbatim.\n"
        )));
    }
    Ok(())
}

/// `GET /api/v1/openapi.json`.
pub(crate) async fn openapi_json(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let format = format_of(&headers);
    if method != Method::GET {
        return method_not_allowed(openapi::OPENAPI_PATH, "GET", format);
    }
    if let Err(e) = caller_of(&state, &headers, format) {
        return e.into_response();
    }
    let checked = query_params(openapi::OPENAPI_PATH, query.as_deref())
        .and_then(|p| strict(openapi::OPENAPI_PATH, &p, &[]));
    if let Err(p) = checked {
        return ApiError::new(p, format).into_response();
    }
    let mut response = (StatusCode::OK, state.openapi_json().to_string()).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(crate::answer::JSON),
    );
    response
}

/// `GET /healthz`: `ok` and the served generation; no token needed.
pub(crate) async fn healthz(State(state): State<AppState>) -> Response {
    let generation = state.store().snapshot().generation();
    let mut response = (StatusCode::OK, format!("ok generation {generation}\n")).into_response();
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Every path under `/api/v1` a caller is pointed to, for the nearest-path hint of a 404.
pub(crate) fn known_paths() -> Vec<String> {
    let mut paths: Vec<String> = catalog().iter().map(EndpointSpec::path).collect();
    paths.extend(
        [
            DISCOVER_PATH,
            openapi::OPENAPI_PATH,
            openapi::ADMIN_INDEX_PATH,
            openapi::ADMIN_JOBS_PATH,
        ]
        .map(str::to_string),
    );
    paths
}

/// Every route the server answers, for the `endpoint` label of the metrics.
pub(crate) fn every_route() -> Vec<String> {
    let mut paths = known_paths();
    paths.extend(
        [
            super::backup::ADMIN_BACKUP_PATH,
            openapi::HEALTH_PATH,
            super::metrics::METRICS_PATH,
        ]
        .map(str::to_string),
    );
    paths
}

fn nearest<'a>(asked: &str, candidates: impl Iterator<Item = &'a str>, n: usize) -> Vec<String> {
    let asked = asked.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|c| {
            (
                strsim::normalized_damerau_levenshtein(&asked, &c.to_lowercase()),
                c,
            )
        })
        .filter(|(s, _)| *s > 0.3)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.into_iter().take(n).map(|(_, c)| c.to_string()).collect()
}

/// Any other path: a 404 that lists the nearest endpoint paths and points to discover.
pub(crate) async fn not_found(method: Method, headers: HeaderMap, uri: Uri) -> Response {
    let format = format_of(&headers);
    let asked = uri.path();
    let paths = known_paths();
    let tail = |p: &str| p.trim_start_matches("/api/v1/").to_string();
    let tails: Vec<String> = paths.iter().map(|p| tail(p)).collect();
    let near = nearest(&tail(asked), tails.iter().map(String::as_str), 3);
    let mut body = format!("# 404: no endpoint at `{method} {asked}`\n\n");
    if !near.is_empty() {
        body.push_str("Nearest endpoints:\n\n");
        for n in near {
            body.push_str(&format!("- `/api/v1/{n}`\n"));
        }
        body.push('\n');
    }
    body.push_str(&format!(
        "Call `GET {DISCOVER_PATH}` for every endpoint and its parameters, and copy paths verbatim.\n"
    ));
    ApiError::new(Problem::not_found(body), format).into_response()
}
