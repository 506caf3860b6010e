//! `semgraph query <domain>/<endpoint> name=value …`: the HTTP answer, without a server.
//! The target may also be written as the request itself — `code/callers?fqn=…`, or a whole
//! URL of the API pasted from a log or a browser — and its query string is read as
//! parameters.
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
    /// `domain/endpoint` (or `discover`); a leading `/api/v1/`, a whole URL of the API and a
    /// query string are accepted ([`endpoint_of`]).
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

/// The endpoint a target names (`code/callers`, `discover`, `products`) and its query
/// string, if it has one. The target may be written as the endpoint, as its path
/// (`/api/v1/code/callers`) or as a whole URL of the API
/// (`http://127.0.0.1:7878/api/v1/code/callers?fqn=a.B.c`).
pub fn endpoint_of(target: &str) -> (&str, Option<&str>) {
    let target = target.trim();
    let (path, query) = match target.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (target, None),
    };
    const API: &str = "api/v1/";
    let path = match path.find(API) {
        Some(at) if at == 0 || path[..at].ends_with('/') => &path[at + API.len()..],
        _ => path,
    };
    (path.trim_matches('/'), query)
}

fn params_of(
    args: &QueryArgs,
    endpoint: &str,
    query: Option<&str>,
) -> Result<BTreeMap<String, String>, Problem> {
    // The target's query string, read as the server reads one (`%2F`, `+`, each name once).
    let mut params = crate::server::query_params(endpoint, query)?;
    let extra = [
        args.page.map(|p| format!("page={p}")),
        args.page_size.map(|p| format!("page_size={p}")),
    ];
    for pair in args.params.iter().chain(extra.iter().flatten()) {
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
    let (target, query) = endpoint_of(&args.target);
    let mut params = params_of(args, target, query)?;
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

#[cfg(test)]
mod tests {
    use super::{endpoint_of, params_of, QueryArgs};

    fn args(params: &[&str]) -> QueryArgs {
        QueryArgs {
            store: ".semgraph".into(),
            target: String::new(),
            params: params.iter().map(|p| p.to_string()).collect(),
            json: false,
            page: None,
            page_size: None,
        }
    }

    #[test]
    fn a_target_may_be_the_endpoint_its_path_or_a_whole_url() {
        for (target, endpoint, query) in [
            ("code/callers", "code/callers", None),
            ("/api/v1/code/callers", "code/callers", None),
            ("api/v1/code/callers/", "code/callers", None),
            ("code/callers?fqn=a.B.c", "code/callers", Some("fqn=a.B.c")),
            (
                "http://127.0.0.1:7878/api/v1/code/callers?fqn=a.B.c&depth=2",
                "code/callers",
                Some("fqn=a.B.c&depth=2"),
            ),
            ("discover?page=2", "discover", Some("page=2")),
            ("products", "products", None),
            // Only a whole path segment `api` starts the API's prefix.
            ("myapi/v1/x", "myapi/v1/x", None),
        ] {
            assert_eq!(endpoint_of(target), (endpoint, query), "{target}");
        }
    }

    #[test]
    fn a_query_string_is_decoded_and_joins_the_parameters_given_after_the_target() {
        let params = params_of(
            &args(&["depth=2"]),
            "code/callers",
            Some("fqn=a.B.c%28x%29&q=two+words"),
        )
        .expect("params");
        assert_eq!(params.get("fqn").map(String::as_str), Some("a.B.c(x)"));
        assert_eq!(params.get("q").map(String::as_str), Some("two words"));
        assert_eq!(params.get("depth").map(String::as_str), Some("2"));
        assert_eq!(params.len(), 3);
    }

    #[test]
    fn a_parameter_in_both_the_query_string_and_the_arguments_is_given_twice() {
        let err = params_of(&args(&["fqn=x.Y.z"]), "code/callers", Some("fqn=a.B.c")).expect_err("twice");
        assert_eq!(err.status, 422);
        assert!(err.body.contains("`fqn` is given twice"), "{}", err.body);
        let err = params_of(&args(&[]), "code/callers", Some("page=1")).map(|_| ());
        assert!(err.is_ok(), "one page given once");
    }
}
