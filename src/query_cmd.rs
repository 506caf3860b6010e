//! `semgraph query <domain>/<endpoint> name=value …`: the HTTP answer, without a server.
//!
//! The store is opened read-only, so this works while a server holds it. The caller is the
//! local user (full access), as on a server without tokens. Parameters, paging, the page
//! text and the JSON shape are the server's own (`crate::answer`), so the output is
//! byte for byte what `GET /api/v1/<domain>/<endpoint>` returns; an error prints its body
//! as the server would and exits non-zero.

use std::collections::BTreeMap;
use std::path::PathBuf;

use semgraph_queries::{execute_with, Caller, Request};
use semgraph_storage::Store;

use crate::answer::{render_page, Format, Paging, Problem};

/// A `semgraph query` invocation.
#[derive(Clone, Debug)]
pub struct QueryArgs {
    /// The store directory.
    pub store: PathBuf,
    /// `domain/endpoint` (or `discover`); a leading `/api/v1/` is accepted.
    pub target: String,
    /// `name=value` parameters.
    pub params: Vec<String>,
    /// `--json`: the JSON answer instead of markdown.
    pub json: bool,
    /// `--page K`.
    pub page: Option<usize>,
    /// `--page-size N`.
    pub page_size: Option<usize>,
}

/// What to print: the body, and the HTTP status it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryOutput {
    /// The HTTP status the server would answer with.
    pub status: u16,
    /// The body, exactly as the server would send it.
    pub body: String,
}

fn params_of(args: &QueryArgs) -> Result<BTreeMap<String, String>, Problem> {
    let mut params = BTreeMap::new();
    let extra = [
        args.page.map(|p| format!("page={p}")),
        args.page_size.map(|p| format!("page_size={p}")),
    ];
    for pair in args.params.iter().cloned().chain(extra.into_iter().flatten()) {
        let Some((name, value)) = pair.split_once('=') else {
            return Err(Problem::invalid(format!(
                "# 422: `{pair}` is not a parameter\n\nWrite parameters as `name=value`, e.g. \
                 `semgraph query code/callers fqn=com.acme.Foo.bar`.\n"
            )));
        };
        if params.insert(name.to_string(), value.to_string()).is_some() {
            return Err(Problem::invalid(format!(
                "# 422: parameter `{name}` is given twice\n\nGive each parameter once (`--page` is `page=`).\n"
            )));
        }
    }
    Ok(params)
}

fn answer(args: &QueryArgs, format: Format) -> Result<String, Problem> {
    let mut params = params_of(args)?;
    let target = args
        .target
        .trim()
        .trim_start_matches("/api/v1/")
        .trim_matches('/');
    if target == "discover" {
        let (doc, paging) = crate::server::discover(params)?;
        let pages = semgraph_queries::paginate(&doc.markdown, paging.page_size);
        return render_page(&doc, &pages, paging, format).map(|r| r.body);
    }
    let (domain, endpoint) = match target.split_once('/') {
        Some(pair) => pair,
        // `products` and other meta endpoints sit at the root of /api/v1.
        None => ("meta", target),
    };
    let path = format!("/api/v1/{target}");
    let paging = Paging::take(&mut params, &path)?;
    let store = Store::open_read_only(&args.store).map_err(|e| {
        tracing::error!(error = %e, "cannot open the store");
        Problem {
            status: 500,
            code: "internal",
            body: format!(
                "# 500: cannot open the store at {}\n\n{e}\n",
                args.store.display()
            ),
        }
    })?;
    let request = Request {
        domain: domain.to_string(),
        endpoint: endpoint.to_string(),
        params,
    };
    let workspace = crate::workspace::LocalWorkspace::new();
    let doc = execute_with(&store.snapshot(), &Caller::full_access(), &request, &workspace).map_err(|e| {
        if e.kind() == semgraph_queries::ErrorKind::Internal {
            tracing::error!(error = %e.body(), "query failed");
        }
        Problem::from(e)
    })?;
    let pages = semgraph_queries::paginate(&doc.markdown, paging.page_size);
    render_page(&doc, &pages, paging, format).map(|r| r.body)
}

/// Runs the query and returns what to print.
pub fn run(args: &QueryArgs) -> QueryOutput {
    let format = if args.json { Format::Json } else { Format::Markdown };
    match answer(args, format) {
        Ok(body) => QueryOutput { status: 200, body },
        Err(p) => QueryOutput {
            status: p.status,
            body: p.render(format),
        },
    }
}
