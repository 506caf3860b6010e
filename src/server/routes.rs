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
    catalog, execute, Caller, Document, EndpointSpec, HttpMethod, Page, ParamType, Request,
};
use serde_json::Value;

use super::cache::{Entry, Key};
use super::error::ApiError;
use super::limits::{param_lengths, Busy};
use super::openapi::{self, DISCOVER_PATH};
use super::AppState;
use crate::answer::{render_page, Format, Paging, Problem};

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
        ParamType::String | ParamType::Enum(_) => "a JSON string",
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
            (Some(ParamType::String | ParamType::Enum(_)), Value::String(s)) => s.clone(),
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
        if method == Method::POST {
            body_params(&path, &body_example(spec), &body, &mut params, &|name| {
                body_type(spec, name)
            })?;
        }
        param_lengths(&path, &params)?;
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
    let entry = match document(&state, caller, request).await {
        Ok(entry) => entry,
        Err(Refusal::Problem(p)) => return ApiError::new(p, format).into_response(),
        Err(Refusal::Busy(busy)) => return busy.response(format),
    };
    // Cutting a long document and writing its JSON page are linear in its length: not on
    // the runtime's threads either.
    let rendered = tokio::task::spawn_blocking(move || {
        let pages = entry.pages(paging.page_size);
        answer(&entry.doc, &pages, paging, format)
    })
    .await;
    rendered.unwrap_or_else(|e| {
        tracing::error!(error = %e, "rendering task failed");
        ApiError::new(Problem::internal(), format).into_response()
    })
}

/// Why a document is not answered.
pub(crate) enum Refusal {
    /// The question is wrong, forbidden, matches nothing, or failed.
    Problem(Problem),
    /// Every recipe slot is taken (429).
    Busy(Busy),
}

/// The document answering `request` for `caller`: from the cache, or computed on a
/// blocking thread and cached. A recipe is computed only with a recipe slot, which the
/// blocking task holds until it is done; the document is cached by that task, so a
/// request that timed out still leaves its answer for the next one.
pub(crate) async fn document(
    state: &AppState,
    caller: Caller,
    request: Request,
) -> Result<Arc<Entry>, Refusal> {
    let snapshot = state.store().snapshot();
    let key = Key {
        area: caller.area().map(str::to_string),
        request: serde_json::to_string(&(&request.domain, &request.endpoint, &request.params))
            .unwrap_or_default(),
        generation: snapshot.generation(),
    };
    if let Some(entry) = state.cache().get(&key) {
        return Ok(entry);
    }
    let slot = if request.domain == "recipes" {
        Some(state.limiter().recipe_slot().await.map_err(Refusal::Busy)?)
    } else {
        None
    };
    let cache = state.clone();
    let computed = tokio::task::spawn_blocking(move || {
        let _slot = slot;
        let entry = Arc::new(Entry::new(execute(&snapshot, &caller, &request)?));
        cache.cache().insert(key, entry.clone());
        Ok::<_, semgraph_queries::QueryError>(entry)
    })
    .await;
    match computed {
        Ok(Ok(entry)) => Ok(entry),
        Ok(Err(e)) => {
            if e.kind() == semgraph_queries::ErrorKind::Internal {
                tracing::error!(error = %e.body(), "query failed");
            }
            Err(Refusal::Problem(Problem::from(e)))
        }
        Err(e) => {
            tracing::error!(error = %e, "query task failed");
            Err(Refusal::Problem(Problem::internal()))
        }
    }
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
    let doc = Document {
        title: markdown
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("# ")
            .to_string(),
        markdown,
        json,
    };
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
