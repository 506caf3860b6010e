//! Index while serving: `POST /api/v1/admin/index` and `GET /api/v1/admin/jobs`.
//!
//! An index job runs `index_product` for one product (or every product of the config) on a
//! blocking thread inside the server process, which owns the store's one writer. Readers
//! keep answering from the generation they hold until each product's commit swaps the new
//! one in; the document cache is keyed by generation, so nothing stale is served after.
//! One job runs at a time (a second request is a 409 naming the running one). Admin routes
//! need full access: the local user of a server without tokens, or a token of area `*`.
//!
//! The products are the config's (`{"product": "name"}`, or every one), or described in the
//! request (`{"products": [{"name", "area", "repos", "wiki", "jira"}]}`, absolute paths):
//! what `semgraph index` beside the server resolved from its own command line
//! (`crate::handoff`). Only full-access callers reach this, because they are the operators
//! who could run the indexer on this machine themselves; the paths are read as an index
//! run reads them (the walk's rules and size limits) and nothing of them is served back
//! but the indexed facts.

use std::collections::VecDeque;
use std::fmt::Write as _;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use parking_lot::Mutex;
use semgraph_indexer::{index_product_with, Company, IndexMode, NoProgress};
use semgraph_queries::{Caller, Document};
use serde::Serialize;

use super::error::ApiError;
use super::openapi::{ADMIN_INDEX_PATH, ADMIN_JOBS_PATH};
use super::routes::{
    answer_document, body_params, caller_of, format_of, method_not_allowed, query_params, strict,
};
use super::AppState;
use crate::answer::{Format, Paging, Problem};

/// How many finished jobs are remembered.
const HISTORY: usize = 32;

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum JobState {
    Running,
    Done,
    Failed,
}

/// One product's result within a job.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct ProductResult {
    product: String,
    generation: u64,
    nodes: u64,
    edges: u64,
    warnings: usize,
    seconds: f64,
    /// What `semgraph index` prints for it (a CLI that handed its run here prints this).
    summary: crate::index_cmd::RunSummary,
}

/// A product an admin index request describes itself (what `semgraph index` resolved from
/// its command line or config): folders and files on this machine.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestedProduct {
    name: String,
    #[serde(default = "default_area")]
    area: String,
    repos: Vec<std::path::PathBuf>,
    #[serde(default)]
    wiki: Vec<std::path::PathBuf>,
    #[serde(default)]
    jira: Vec<std::path::PathBuf>,
}

fn default_area() -> String {
    "default".into()
}

#[derive(Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ProductsBody {
    products: Vec<RequestedProduct>,
    /// Parse every file again rather than reuse the facts of unchanged ones.
    #[serde(default)]
    full: bool,
}

/// Most products, and paths per product, one request may name.
const MAX_REQUESTED: usize = 256;

/// The products of a `{"products": [...]}` body, checked: names and areas are words,
/// every path is absolute (the caller's working directory means nothing here).
/// The second value: whether the body asks for a full run (`"full": true`).
fn requested_products(body: &[u8]) -> Result<(Vec<semgraph_indexer::ProductSource>, IndexMode), Problem> {
    let parsed: ProductsBody = serde_json::from_slice(body).map_err(|e| {
        Problem::invalid(format!(
            "# 422: the products cannot be read\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: {e}. Send \
             `{{\"products\": [{{\"name\": \"…\", \"area\": \"…\", \"repos\": [\"/abs/path\"], \"wiki\": [], \
             \"jira\": []}}]}}`, or `{{\"product\": \"…\"}}` for a product of the server's config.\n"
        ))
    })?;
    if parsed.products.is_empty() || parsed.products.len() > MAX_REQUESTED {
        return Err(Problem::invalid(format!(
            "# 422: `products` names {} products\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: name 1 to {MAX_REQUESTED}.\n",
            parsed.products.len()
        )));
    }
    let mode = if parsed.full {
        IndexMode::Full
    } else {
        IndexMode::Incremental
    };
    let mut out: Vec<semgraph_indexer::ProductSource> = Vec::new();
    for p in parsed.products {
        let word = |w: &str| !w.trim().is_empty() && w.len() <= 200 && !w.contains(['/', '\\', '\0']);
        if !word(&p.name) || !word(&p.area) {
            return Err(Problem::invalid(format!(
                "# 422: product `{}` (area `{}`) is not a name\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: names and \
                 areas are words of at most 200 characters, without slashes.\n",
                p.name, p.area
            )));
        }
        if out.iter().any(|o| o.name == p.name) {
            return Err(Problem::invalid(format!(
                "# 422: product `{}` is named twice\n\nEndpoint `POST {ADMIN_INDEX_PATH}`.\n",
                p.name
            )));
        }
        for path in p.repos.iter().chain(&p.wiki).chain(&p.jira) {
            if !path.is_absolute() || path.as_os_str().len() > 4096 {
                return Err(Problem::invalid(format!(
                    "# 422: `{}` is not an absolute path\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: the server \
                     does not know the caller's working directory; send absolute paths.\n",
                    path.display()
                )));
            }
        }
        if p.repos.is_empty() || p.repos.len() + p.wiki.len() + p.jira.len() > MAX_REQUESTED {
            return Err(Problem::invalid(format!(
                "# 422: product `{}` names {} repositories\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: name 1 to \
                 {MAX_REQUESTED} paths.\n",
                p.name,
                p.repos.len()
            )));
        }
        out.push(semgraph_indexer::ProductSource {
            name: p.name,
            area: p.area,
            repos: p.repos,
            wiki: p.wiki,
            jira: p.jira,
        });
    }
    Ok((out, mode))
}

/// An index job.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Job {
    id: u64,
    products: Vec<String>,
    state: JobState,
    started_unix_ms: u64,
    seconds: Option<f64>,
    results: Vec<ProductResult>,
    error: Option<String>,
}

#[derive(Default)]
struct Book {
    next: u64,
    jobs: VecDeque<Job>,
}

/// The server's index jobs: at most one running, the last few remembered.
#[derive(Default)]
pub(crate) struct Jobs {
    book: Mutex<Book>,
}

impl Jobs {
    fn running(&self) -> Option<Job> {
        self.book
            .lock()
            .jobs
            .iter()
            .find(|j| j.state == JobState::Running)
            .cloned()
    }

    fn update(&self, id: u64, f: impl FnOnce(&mut Job)) {
        if let Some(job) = self.book.lock().jobs.iter_mut().find(|j| j.id == id) {
            f(job);
        }
    }

    /// Every remembered job, newest first.
    fn list(&self) -> Vec<Job> {
        self.book.lock().jobs.iter().rev().cloned().collect()
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What every admin route does first: the method it answers, then the caller, who must
/// have full access. An `Err` is the answer to send.
pub(crate) fn admin_caller(
    state: &AppState,
    method: &Method,
    answers: Method,
    headers: &HeaderMap,
    path: &str,
) -> Result<(Format, Caller), Box<Response>> {
    let format = format_of(headers);
    if *method != answers {
        let allowed = if answers == Method::GET { "GET" } else { "POST" };
        return Err(Box::new(method_not_allowed(path, allowed, format)));
    }
    let caller = caller_of(state, headers, format).map_err(|e| Box::new(e.into_response()))?;
    require_admin(&caller, path).map_err(|p| Box::new(ApiError::new(p, format).into_response()))?;
    Ok((format, caller))
}

pub(crate) fn require_admin(caller: &Caller, path: &str) -> Result<(), Problem> {
    if caller.area().is_none() {
        return Ok(());
    }
    Err(Problem {
        status: 403,
        code: "forbidden",
        body: format!(
            "# 403: admin needs full access\n\n`{path}` is for the server's operators: the local user \
             of a server without tokens, or a token of area `*`. Your token is of area `{}`.\n",
            caller.area().unwrap_or_default()
        ),
    })
}

fn job_markdown(job: &Job, out: &mut String) {
    let _ = writeln!(
        out,
        "## Job {} — {:?}\n\nproducts: {} · started (unix ms) {}{}\n",
        job.id,
        job.state,
        job.products.join(", "),
        job.started_unix_ms,
        job.seconds.map(|s| format!(" · {s:.2}s")).unwrap_or_default()
    );
    if !job.results.is_empty() {
        let _ = writeln!(
            out,
            "| product | generation | nodes | edges | warnings | seconds |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|");
        for r in &job.results {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.2} |",
                r.product, r.generation, r.nodes, r.edges, r.warnings, r.seconds
            );
        }
        out.push('\n');
    }
    if let Some(e) = &job.error {
        let _ = writeln!(out, "Failed: {e}\n");
    }
}

/// `POST /api/v1/admin/index` with `{"product": "name"}` (or no body: every product).
pub(crate) async fn start_index(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let (format, _) = match admin_caller(&state, &method, Method::POST, &headers, ADMIN_INDEX_PATH) {
        Ok(c) => c,
        Err(answer) => return *answer,
    };
    match start(&state, query.as_deref(), &body) {
        Ok(job) => {
            let mut markdown = format!(
                "# Index job {} started\n\nIndexing {} on the server; answers keep coming from the \
                 served generation until each product commits. Follow it at `GET {ADMIN_JOBS_PATH}`.\n\n",
                job.id,
                job.products.join(", ")
            );
            job_markdown(&job, &mut markdown);
            let doc = Document::new(
                format!("Index job {} started", job.id),
                markdown,
                &serde_json::to_value(&job).unwrap_or_default(),
            );
            let mut response = answer_document(&doc, Paging::default(), format);
            *response.status_mut() = StatusCode::ACCEPTED;
            response
        }
        Err(p) => ApiError::new(p, format).into_response(),
    }
}

fn start(state: &AppState, query: Option<&str>, body: &[u8]) -> Result<Job, Problem> {
    let described = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .is_some_and(|v| v.get("products").is_some());
    let (company, products, mode) = if described {
        // The products as a CLI beside the server resolved them (`semgraph index PATH…` or
        // `--config`): only from full-access callers, which `admin_caller` has checked.
        if let Some(q) = query.filter(|q| !q.is_empty()) {
            return Err(Problem::invalid(format!(
                "# 422: unexpected query string `{q}`\n\nEndpoint `POST {ADMIN_INDEX_PATH}`: with `products` in \
                 the body, send nothing in the query string.\n"
            )));
        }
        let (products, mode) = requested_products(body)?;
        let mut names: Vec<semgraph_indexer::ProductSource> = products.clone();
        // Mentions of the other products in wiki pages and tickets still find them.
        if let Some(config) = state.company() {
            names.extend(
                config
                    .products
                    .iter()
                    .filter(|p| !products.iter().any(|q| q.name == p.name))
                    .cloned(),
            );
        }
        let company = Company {
            store: state.store().path().to_path_buf(),
            products: names,
            config_file: None,
            server: None,
            // The server's own config says where dependency types come from.
            dependencies: state
                .company()
                .map(|c| c.dependencies.clone())
                .unwrap_or_default(),
        };
        (company, products, mode)
    } else {
        let mut params = query_params(ADMIN_INDEX_PATH, query)?;
        body_params(
            ADMIN_INDEX_PATH,
            "{\"product\": \"…\"}",
            body,
            &mut params,
            &|name| (name == "product").then_some(semgraph_queries::ParamType::String),
        )?;
        strict(ADMIN_INDEX_PATH, &params, &["product"])?;
        super::limits::param_lengths(ADMIN_INDEX_PATH, &params)?;
        let Some(company) = state.company() else {
            return Err(Problem::invalid(
                "# 422: nothing to index\n\nThis server was started without a semgraph.toml (`--config`), so \
                 it does not know where the sources are. Restart it with `--config FILE`, or run \
                 `semgraph index --config FILE` (or `semgraph index PATH…`) beside it: a run on a store this \
                 server holds is handed to it as a job, sent as `{\"products\": [...]}` to this endpoint.\n",
            ));
        };
        let products: Vec<_> = match params.get("product").map(|p| p.trim()) {
            Some(name) => match company.products.iter().find(|p| p.name == name) {
                Some(p) => vec![p.clone()],
                None => {
                    return Err(Problem::not_found(format!(
                        "# 404: no product `{name}`\n\nProducts of the config: {}. Leave `product` out to \
                         index them all.\n",
                        company
                            .products
                            .iter()
                            .map(|p| format!("`{}`", p.name))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )))
                }
            },
            None => company.products.clone(),
        };
        (company.clone(), products, IndexMode::Incremental)
    };
    let jobs = state.jobs();
    let job = {
        let mut book = jobs.book.lock();
        if let Some(running) = book.jobs.iter().find(|j| j.state == JobState::Running) {
            return Err(Problem {
                status: 409,
                code: "conflict",
                body: format!(
                    "# 409: an index job is running\n\nJob {} is indexing {}; one job runs at a time. \
                     Follow it at `GET {ADMIN_JOBS_PATH}` and start the next one when it is done.\n",
                    running.id,
                    running.products.join(", ")
                ),
            });
        }
        book.next += 1;
        let job = Job {
            id: book.next,
            products: products.iter().map(|p| p.name.clone()).collect(),
            state: JobState::Running,
            started_unix_ms: now_ms(),
            seconds: None,
            results: Vec::new(),
            error: None,
        };
        book.jobs.push_back(job.clone());
        while book.jobs.len() > HISTORY {
            book.jobs.pop_front();
        }
        job
    };
    let id = job.id;
    let worker = state.clone();
    tracing::info!(job = id, products = ?job.products, "index job started");
    tokio::task::spawn_blocking(move || {
        let started = Instant::now();
        let mut failure = None;
        for product in &products {
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                index_product_with(worker.store(), &company, product, &NoProgress, mode)
            }));
            worker
                .metrics()
                .observe_index_run(&product.name, matches!(run, Ok(Ok(_))));
            let report = match run {
                Ok(Ok(report)) => report,
                Ok(Err(e)) => {
                    tracing::error!(job = id, product = %product.name, error = %e, "index job failed");
                    failure = Some(format!("{}: {e}", product.name));
                    break;
                }
                Err(_) => {
                    tracing::error!(job = id, product = %product.name, "the indexer panicked");
                    failure = Some(format!(
                        "{}: the indexer panicked (see the server log)",
                        product.name
                    ));
                    break;
                }
            };
            let result = ProductResult {
                product: report.product.clone(),
                generation: report.commit.generation,
                nodes: report.commit.nodes,
                edges: report.commit.edges,
                warnings: report.warnings.len(),
                seconds: report.elapsed.as_secs_f64(),
                summary: crate::index_cmd::RunSummary::from(&report),
            };
            worker.jobs().update(id, |j| j.results.push(result));
        }
        let seconds = started.elapsed().as_secs_f64();
        worker.jobs().update(id, |j| {
            j.seconds = Some(seconds);
            j.state = if failure.is_some() {
                JobState::Failed
            } else {
                JobState::Done
            };
            j.error = failure;
        });
        tracing::info!(job = id, seconds, "index job finished");
    });
    Ok(job)
}

/// `GET /api/v1/admin/jobs`: the running job and the last finished ones.
pub(crate) async fn list_jobs(
    State(state): State<AppState>,
    method: Method,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let (format, _) = match admin_caller(&state, &method, Method::GET, &headers, ADMIN_JOBS_PATH) {
        Ok(c) => c,
        Err(answer) => return *answer,
    };
    let prepared = (|| {
        let mut params = query_params(ADMIN_JOBS_PATH, query.as_deref())?;
        let paging = Paging::take(&mut params, ADMIN_JOBS_PATH)?;
        strict(ADMIN_JOBS_PATH, &params, &[])?;
        Ok::<_, Problem>(paging)
    })();
    let paging = match prepared {
        Ok(p) => p,
        Err(p) => return ApiError::new(p, format).into_response(),
    };
    let jobs = state.jobs().list();
    let mut markdown = String::from("# Index jobs\n\n");
    match state.jobs().running() {
        Some(j) => {
            let _ = writeln!(markdown, "Running: job {} ({}).\n", j.id, j.products.join(", "));
        }
        None => markdown.push_str("No job is running.\n\n"),
    }
    if jobs.is_empty() {
        markdown.push_str(
            "No index job has run in this server since it started. Start one with `POST /api/v1/admin/index`.\n",
        );
    }
    for job in &jobs {
        job_markdown(job, &mut markdown);
    }
    let doc = Document::new("Index jobs", markdown, &serde_json::json!({ "jobs": jobs }));
    answer_document(&doc, paging, format)
}
