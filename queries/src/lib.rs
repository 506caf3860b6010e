//! semgraph-queries: questions in, one document out.
//!
//! An agent that chains one-question calls guesses parameter names, stops reading early and
//! pays for every hop. This crate answers whole questions over one [`Snapshot`]: primitives
//! (find, callers, tables, …) and recipes (`impact`, `table-analysis`, …) that run many
//! steps server-side and return one document with a trace of what ran and how sure it is.
//!
//! - [`catalog`] is the contract: every endpoint, its parameters, types and defaults. The
//!   server, the discover catalog, the MCP tools and the CLI are all generated from it.
//! - [`execute`] checks a [`Request`] against the catalog (strictly: an unknown parameter
//!   is an error naming the nearest right one), runs it for a [`Caller`] and returns a
//!   [`Document`]: markdown and JSON rendered from the same result structs.
//! - [`paginate`] cuts a markdown document into pages with an honest footer.
//! - [`Workspace`] is what a recipe may ask outside the graph (the new side of a diff, a
//!   repository's git state); [`execute_with`] passes one, [`execute`] none.
//! - [`blast_radius`] and [`reached_entry_points`] are the traversal kernels of `impact`,
//!   public so they can be checked against a reference implementation.
//! - `fuzzing` (hidden) holds the fuzz target bodies for parameters and pagination.
//!
//! Content (source, SQL, config values, wiki and Jira text) is returned only to callers of
//! the owning product's area; everything else is structure and visible to every caller.

mod access;
mod catalog;
mod error;
mod freshness;
#[doc(hidden)]
pub mod fuzzing;
mod graph;
mod mermaid;
mod pagination;
mod params;
mod primitives;
mod recipes;
mod render;
mod trace;
mod workspace;

pub use access::Caller;
pub use catalog::{
    catalog, endpoint_spec, EndpointSpec, HttpMethod, ParamSpec, ParamType, DIFF_MAX_BYTES, DOMAINS,
};
pub use error::{ErrorKind, QueryError};
pub use graph::{blast_radius, reached_entry_points};
pub use pagination::{paginate, Page, DEFAULT_PAGE_SIZE};
pub use workspace::{Declaration, NoWorkspace, RangeDiff, RepoHead, Workspace, WorkspaceError};

use semgraph_storage::Snapshot;
use std::collections::BTreeMap;

/// One question: an endpoint of the catalog and its parameters as text (query-string
/// values, or JSON values turned to text).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Request {
    /// The domain (`code`, `db`, `config`, `wiki`, `jira`, `recipes`, `meta`).
    pub domain: String,
    /// The endpoint within the domain (`callers`, `impact`, …).
    pub endpoint: String,
    /// Parameter name → value. `page` and `page_size` are the caller's business, not the
    /// query's: they are accepted and ignored here.
    pub params: BTreeMap<String, String>,
}

impl Request {
    /// A request for `domain/endpoint` with `params`.
    pub fn new<K: Into<String>, V: Into<String>>(
        domain: &str,
        endpoint: &str,
        params: impl IntoIterator<Item = (K, V)>,
    ) -> Request {
        Request {
            domain: domain.to_string(),
            endpoint: endpoint.to_string(),
            params: params.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
        }
    }
}

/// An answer: the same result as markdown and as JSON.
#[derive(Clone, Debug)]
pub struct Document {
    /// The document's title (its first heading, without `# `).
    pub title: String,
    /// The whole markdown document (not yet paginated).
    pub markdown: String,
    /// The same result as JSON text, serialized once from the result (no JSON tree is
    /// built: a document is written out far more often than it is looked into).
    pub json: String,
}

impl Document {
    /// A document whose JSON is `json`.
    pub fn new(title: impl Into<String>, markdown: String, json: &serde_json::Value) -> Document {
        Document {
            title: title.into(),
            markdown,
            json: json.to_string(),
        }
    }

    /// The JSON result as a value, for callers that look into it.
    pub fn json_value(&self) -> serde_json::Value {
        serde_json::from_str(&self.json).unwrap_or_default()
    }
}

/// Runs `request` on `snapshot` for `caller`: validates the parameters against the
/// catalog, computes the result, and renders it. Nothing outside the graph is consulted
/// ([`NoWorkspace`]): see [`execute_with`].
pub fn execute(snapshot: &Snapshot, caller: &Caller, request: &Request) -> Result<Document, QueryError> {
    execute_with(snapshot, caller, request, &NoWorkspace)
}

/// [`execute`] with a [`Workspace`]: the front-ends that outline the new side of a diff and
/// the repositories whose git state and history a recipe may consult.
pub fn execute_with(
    snapshot: &Snapshot,
    caller: &Caller,
    request: &Request,
    workspace: &dyn Workspace,
) -> Result<Document, QueryError> {
    let spec = catalog::endpoint_spec(&request.domain, &request.endpoint)
        .ok_or_else(|| QueryError::unknown_endpoint(&request.domain, &request.endpoint))?;
    let args = params::Args::check(spec, &request.params)?;
    let ctx = graph::Ctx::with_workspace(snapshot, caller, workspace);
    dispatch(&ctx, spec, &args)
}

fn dispatch(ctx: &graph::Ctx<'_>, spec: &EndpointSpec, args: &params::Args) -> Result<Document, QueryError> {
    use primitives::{code, db, docs, meta, settings};
    match (spec.domain, spec.name) {
        ("code", "search") => code::search(ctx, args),
        ("code", "method") => code::method(ctx, args),
        ("code", "type") => code::type_details(ctx, args),
        ("code", "callers") => code::callers(ctx, args, semgraph_storage::Direction::In),
        ("code", "callees") => code::callers(ctx, args, semgraph_storage::Direction::Out),
        ("code", "hierarchy") => code::hierarchy(ctx, args),
        ("code", "implementations") => code::implementations(ctx, args),
        ("code", "source") => code::source(ctx, args),
        ("code", "file") => code::file(ctx, args),
        ("code", "endpoints") => code::endpoints(ctx, args),
        ("code", "endpoint") => code::endpoint(ctx, args),
        ("code", "entry-points") => code::entry_points(ctx, args),
        ("code", "http-calls") => code::http_calls(ctx, args),
        ("code", "topics") => code::topics(ctx, args),
        ("code", "topic") => code::topic(ctx, args),
        ("code", "path") => code::path(ctx, args),
        ("db", "tables") => db::tables(ctx, args),
        ("db", "table") => db::table(ctx, args),
        ("db", "columns") => db::columns(ctx, args),
        ("db", "indexes") => db::objects(ctx, args, semgraph_storage::NodeKind::Index),
        ("db", "triggers") => db::objects(ctx, args, semgraph_storage::NodeKind::Trigger),
        ("db", "views") => db::objects(ctx, args, semgraph_storage::NodeKind::View),
        ("db", "routines") => db::objects(ctx, args, semgraph_storage::NodeKind::Routine),
        ("db", "usages") => db::usages(ctx, args),
        ("db", "ddl") => db::ddl(ctx, args),
        ("config", "keys") => settings::keys(ctx, args),
        ("config", "key") => settings::key(ctx, args),
        ("config", "value") => settings::value(ctx, args),
        ("config", "files") => settings::files(ctx, args),
        ("wiki", "search") => docs::wiki_search(ctx, args),
        ("wiki", "page") => docs::wiki_page(ctx, args),
        ("wiki", "mentions") => docs::mentions(ctx, args),
        ("jira", "search") => docs::jira_search(ctx, args),
        ("jira", "issue") => docs::jira_issue(ctx, args),
        ("recipes", "impact") => recipes::impact::run(ctx, args),
        ("recipes", "table-analysis") => recipes::table_analysis::run(ctx, args),
        ("recipes", "status-snapshot") => recipes::status::run(ctx, args),
        ("recipes", "jira-history") => recipes::jira_history::run(ctx, args),
        ("recipes", "endpoint-trace") => recipes::endpoint_trace::run(ctx, args),
        ("recipes", "service-map") => recipes::service_map::run(ctx, args),
        ("recipes", "change-impact") => recipes::change_impact::run(ctx, args),
        ("meta", "products") => meta::products(ctx, args),
        (domain, name) => Err(QueryError::unknown_endpoint(domain, name)),
    }
}
