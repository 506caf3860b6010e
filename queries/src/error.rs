//! What can go wrong with a question, said so that the asker can fix it.
//!
//! Every error carries a markdown body meant for an agent: a wrong parameter names the
//! nearest right one and the endpoint's parameter list; an unknown entity lists the nearest
//! names; a permission boundary says which structural endpoints still answer. The server
//! maps [`ErrorKind`] to a status code; the CLI prints the body as it is.

use crate::catalog::{catalog, EndpointSpec};

/// The class of an error (the server maps it to a status code).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// Unknown endpoint, unknown/missing/ill-typed parameter (HTTP 422).
    InvalidRequest,
    /// The entity asked about does not exist (HTTP 404).
    NotFound,
    /// Content outside the caller's area (HTTP 403).
    Forbidden,
    /// The store failed (HTTP 500).
    Internal,
}

/// An error of a query, with a body written for the caller.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct QueryError {
    kind: ErrorKind,
    message: String,
}

impl QueryError {
    /// The class of the error.
    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The markdown body.
    pub fn body(&self) -> &str {
        &self.message
    }

    pub(crate) fn new(kind: ErrorKind, message: impl Into<String>) -> QueryError {
        QueryError {
            kind,
            message: message.into(),
        }
    }

    pub(crate) fn unknown_endpoint(domain: &str, name: &str) -> QueryError {
        let names: Vec<String> = catalog()
            .iter()
            .map(|e| format!("{}/{}", e.domain, e.name))
            .collect();
        let asked = format!("{domain}/{name}");
        let near = nearest(&asked, names.iter().map(String::as_str), 3);
        let mut msg = format!("# 422: unknown endpoint `{asked}`\n\n");
        if let Some(best) = near.first() {
            msg.push_str(&format!("Did you mean `{best}`?\n\n"));
        }
        msg.push_str(&format!(
            "Call `GET /api/v1/discover` first and copy endpoint names verbatim. Endpoints of `{domain}`: {}.\n",
            list_or_none(
                catalog()
                    .iter()
                    .filter(|e| e.domain == domain)
                    .map(|e| format!("`{}`", e.name))
            )
        ));
        QueryError::new(ErrorKind::InvalidRequest, msg)
    }

    /// An unknown parameter `name`; `meant` is the parameter it most likely stands for
    /// when no name is near it.
    pub(crate) fn unknown_parameter(spec: &EndpointSpec, name: &str, meant: Option<&str>) -> QueryError {
        QueryError::parameter_hinted(spec, name, &format!("unknown parameter `{name}`"), meant)
    }

    pub(crate) fn parameter(spec: &EndpointSpec, name: &str, problem: &str) -> QueryError {
        QueryError::parameter_hinted(spec, name, problem, None)
    }

    fn parameter_hinted(spec: &EndpointSpec, name: &str, problem: &str, meant: Option<&str>) -> QueryError {
        let mut msg = format!(
            "# 422: {problem}\n\nEndpoint `{} {}` — parameter `{name}`.\n\n",
            match spec.method {
                crate::HttpMethod::Get => "GET",
                crate::HttpMethod::Post => "POST",
            },
            spec.path()
        );
        let near = nearest(name, spec.params.iter().map(|p| p.name), 1);
        let best = near.first().map(String::as_str).or(meant);
        if let Some(best) = best.filter(|b| *b != name) {
            msg.push_str(&format!("Did you mean `{best}`?\n\n"));
        }
        msg.push_str("Parameters of this endpoint:\n\n");
        for p in spec.params {
            let need = if p.required {
                "required".to_string()
            } else {
                match p.default {
                    Some(d) => format!("optional, default {d}"),
                    None => "optional".into(),
                }
            };
            msg.push_str(&format!(
                "- `{}` ({}, {need}): {}\n",
                p.name,
                p.ty.describe(),
                p.doc
            ));
        }
        msg.push_str("- `page`, `page_size` (integer, optional): which page of the answer\n\n");
        msg.push_str(&format!(
            "Call `GET /api/v1/discover?domain={}` first and copy parameter names verbatim.\n",
            spec.domain
        ));
        QueryError::new(ErrorKind::InvalidRequest, msg)
    }

    pub(crate) fn not_found(what: &str, asked: &str, near: &[String]) -> QueryError {
        let mut msg = format!("# 404: no {what} matches `{asked}`\n\n");
        if near.is_empty() {
            msg.push_str("Nothing with a similar name is indexed either. Search with `code/search` (q=…) to find the right name.\n");
        } else {
            msg.push_str("Nearest names:\n\n");
            for n in near {
                msg.push_str(&format!("- `{n}`\n"));
            }
        }
        QueryError::new(ErrorKind::NotFound, msg)
    }

    pub(crate) fn forbidden(what: &str, product: &str, area: &str, structural: &[&str]) -> QueryError {
        let msg = format!(
            "# 403: permission boundary\n\nThe {what} belongs to product `{product}` of area `{area}`, and your \
             credentials are not of that area. This is a permission boundary, not an error in the request: \
             content (source, SQL, config values, wiki and Jira text) is readable only inside its area.\n\n\
             Structure still answers — try {}.\n",
            structural.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
        );
        QueryError::new(ErrorKind::Forbidden, msg)
    }
}

impl From<semgraph_storage::StoreError> for QueryError {
    fn from(e: semgraph_storage::StoreError) -> QueryError {
        QueryError::new(
            ErrorKind::Internal,
            format!("# 500: the store failed\n\n{e}\n\nRetry; if it persists, the server's log says more.\n"),
        )
    }
}

fn list_or_none(items: impl Iterator<Item = String>) -> String {
    let v: Vec<String> = items.collect();
    if v.is_empty() {
        "none (no such domain)".into()
    } else {
        v.join(", ")
    }
}

/// Up to `n` of `candidates` nearest to `asked` by edit distance (case-insensitive), best first.
pub(crate) fn nearest<'a>(asked: &str, candidates: impl Iterator<Item = &'a str>, n: usize) -> Vec<String> {
    let asked = asked.to_lowercase();
    let mut scored: Vec<(f64, &str)> = candidates
        .map(|c| {
            let lc = c.to_lowercase();
            let mut score = strsim::normalized_damerau_levenshtein(&asked, &lc);
            if lc.contains(&asked) || asked.contains(&lc) {
                score += 0.3;
            }
            (score, c)
        })
        .filter(|(s, _)| *s > 0.3)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    scored.dedup_by(|a, b| a.1 == b.1);
    scored.into_iter().take(n).map(|(_, c)| c.to_string()).collect()
}
