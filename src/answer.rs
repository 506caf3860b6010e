//! One answer as the caller receives it: a page of a document, as markdown or JSON.
//!
//! The HTTP server and `semgraph query` print exactly the same bytes for the same
//! question, so this module is the one place that turns a [`Document`] (or an error) into
//! a response body: it owns the `page`/`page_size` parameters, the JSON page shape and the
//! table from error kind to status code. It knows nothing of sockets.
//!
//! The JSON shape of a page is stable:
//!
//! ```json
//! {"title": "…", "page": 1, "pages": 3, "page_size": 20000,
//!  "markdown": "<the page's markdown, footer included>", "result": { … } }
//! ```
//!
//! `markdown` is byte for byte the markdown response of the same page. `result` is the
//! whole structured result; it is carried by page 1 only (`null` on later pages), so the
//! pages of an answer together carry every part of it exactly once.
//!
//! An error is a markdown body; as JSON it is
//! `{"error": {"status": 422, "code": "invalid_request", "message": "<markdown>"}}`.

use std::collections::BTreeMap;

use semgraph_queries::{Document, ErrorKind, Page, QueryError, DEFAULT_PAGE_SIZE};
use serde_json::json;

/// The smallest page size a caller may ask for, in characters.
pub const MIN_PAGE_SIZE: usize = 1_000;
/// The largest page size a caller may ask for, in characters.
pub const MAX_PAGE_SIZE: usize = 200_000;

/// The media type of markdown answers.
pub const MARKDOWN: &str = "text/markdown; charset=utf-8";
/// The media type of JSON answers.
pub const JSON: &str = "application/json";

/// How an answer is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Markdown (the default).
    Markdown,
    /// JSON: a page object (see the module documentation).
    Json,
}

impl Format {
    /// The format an `Accept` header asks for: JSON when `application/json` is listed
    /// explicitly with a weight at least that of an explicit `text/markdown`; markdown
    /// otherwise (wildcards choose the default).
    pub fn from_accept(accept: Option<&str>) -> Format {
        let Some(accept) = accept else {
            return Format::Markdown;
        };
        let mut json_q: Option<f32> = None;
        let mut markdown_q: Option<f32> = None;
        for range in accept.split(',') {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q=").map(str::to_string))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            match media.as_str() {
                "application/json" => json_q = Some(json_q.map_or(q, |old| old.max(q))),
                "text/markdown" => markdown_q = Some(markdown_q.map_or(q, |old| old.max(q))),
                _ => {}
            }
        }
        match (json_q, markdown_q) {
            (Some(j), m) if j > 0.0 && j >= m.unwrap_or(0.0) => Format::Json,
            _ => Format::Markdown,
        }
    }

    /// The media type of answers in this format.
    pub fn content_type(self) -> &'static str {
        match self {
            Format::Markdown => MARKDOWN,
            Format::Json => JSON,
        }
    }
}

/// Which page of an answer the caller wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paging {
    /// 1-based page number.
    pub page: usize,
    /// Page size in characters.
    pub page_size: usize,
}

impl Default for Paging {
    fn default() -> Paging {
        Paging {
            page: 1,
            page_size: DEFAULT_PAGE_SIZE,
        }
    }
}

impl Paging {
    /// Takes `page` and `page_size` out of `params` (they are this layer's business, not
    /// the query's) and checks them. `path` names the endpoint in error bodies.
    pub fn take(params: &mut BTreeMap<String, String>, path: &str) -> Result<Paging, Problem> {
        let mut paging = Paging::default();
        if let Some(v) = params.remove("page") {
            paging.page = match v.trim().parse::<usize>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(Problem::invalid(format!(
                        "# 422: `page` must be a whole number of 1 or more, not `{v}`\n\n\
                         Endpoint `{path}`. Pages are numbered from 1; every page's footer says \
                         how many there are.\n"
                    )))
                }
            };
        }
        if let Some(v) = params.remove("page_size") {
            paging.page_size = match v.trim().parse::<usize>() {
                Ok(n) if (MIN_PAGE_SIZE..=MAX_PAGE_SIZE).contains(&n) => n,
                _ => {
                    return Err(Problem::invalid(format!(
                        "# 422: `page_size` must be a whole number between {MIN_PAGE_SIZE} and \
                         {MAX_PAGE_SIZE}, not `{v}`\n\nEndpoint `{path}`. It counts characters; \
                         the default is {DEFAULT_PAGE_SIZE}.\n"
                    )))
                }
            };
        }
        Ok(paging)
    }
}

/// A rendered answer: its media type and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rendered {
    /// The media type (`text/markdown; charset=utf-8` or `application/json`).
    pub content_type: &'static str,
    /// The body.
    pub body: String,
    /// Which page this is.
    pub page: usize,
    /// How many pages the answer has.
    pub pages: usize,
}

/// Renders page `paging.page` of `doc`, already cut into `pages`, in `format`. A page
/// beyond the last is a 404 (the request is well formed; that page does not exist) that
/// says how many pages exist.
pub fn render_page(
    doc: &Document,
    pages: &[Page],
    paging: Paging,
    format: Format,
) -> Result<Rendered, Problem> {
    let count = pages.len();
    let Some(page) = pages.get(paging.page.saturating_sub(1)) else {
        let plural = if count == 1 { "page" } else { "pages" };
        return Err(Problem::not_found(format!(
            "# 404: page {} does not exist\n\nThis answer has {count} {plural} at page_size {}: \
             pass `page` from 1 to {count}.\n",
            paging.page, paging.page_size
        )));
    };
    let text = page.text();
    let body = match format {
        Format::Markdown => text,
        Format::Json => json_page(doc, page.number, count, paging.page_size, &text),
    };
    Ok(Rendered {
        content_type: format.content_type(),
        body,
        page: page.number,
        pages: count,
    })
}

/// The JSON page (see the module doc) of page `number` of `count` of `doc`, whose markdown,
/// footer included, is `text`. The result is written as it was serialized once, not
/// rebuilt: the page is assembled around that text.
pub fn json_page(doc: &Document, number: usize, count: usize, page_size: usize, text: &str) -> String {
    // A string always serializes.
    let string = |s: &str| serde_json::to_string(s).unwrap_or_default();
    let result = if number == 1 { doc.json.as_str() } else { "null" };
    let mut out = String::with_capacity(text.len() + result.len() + doc.title.len() + 96);
    out.push_str("{\"title\":");
    out.push_str(&string(&doc.title));
    out.push_str(&format!(
        ",\"page\":{number},\"pages\":{count},\"page_size\":{page_size},\"markdown\":"
    ));
    out.push_str(&string(text));
    out.push_str(",\"result\":");
    out.push_str(result);
    out.push('}');
    out
}

/// An error answer: a status code, a stable code word, and a markdown body written for
/// the caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The HTTP status code.
    pub status: u16,
    /// A stable code word (`invalid_request`, `not_found`, …).
    pub code: &'static str,
    /// The markdown body.
    pub body: String,
}

impl Problem {
    /// A 422: the request is wrong and the body says how to fix it.
    pub fn invalid(body: impl Into<String>) -> Problem {
        Problem {
            status: 422,
            code: "invalid_request",
            body: body.into(),
        }
    }

    /// A 404 with `body`.
    pub fn not_found(body: impl Into<String>) -> Problem {
        Problem {
            status: 404,
            code: "not_found",
            body: body.into(),
        }
    }

    /// A 500 whose body says nothing of the cause (the cause goes to the log).
    pub fn internal() -> Problem {
        Problem {
            status: 500,
            code: "internal",
            body: "# 500: internal error\n\nThe server failed to answer. Retry; if it persists, \
                   the server's log says more.\n"
                .into(),
        }
    }

    /// The body in `format`.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Markdown => self.body.clone(),
            Format::Json => json!({
                "error": { "status": self.status, "code": self.code, "message": self.body }
            })
            .to_string(),
        }
    }
}

impl From<QueryError> for Problem {
    /// The table from a query's error kind to a status code. Internal errors keep their
    /// cause out of the body; the caller of this conversion logs it.
    fn from(e: QueryError) -> Problem {
        let (status, code) = match e.kind() {
            ErrorKind::InvalidRequest => (422, "invalid_request"),
            ErrorKind::NotFound => (404, "not_found"),
            ErrorKind::Forbidden => (403, "forbidden"),
            ErrorKind::Internal => return Problem::internal(),
        };
        Problem {
            status,
            code,
            body: e.body().to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_page_is_the_object_the_json_tree_would_write() {
        let result = json!({"rows": [{"name": "a \"quoted\"\nname", "depth": 1}], "more": null});
        let doc = Document::new("Callers of `a`", "# Callers\n\n| a |\n".into(), &result);
        for (number, want_result) in [(1, result.clone()), (2, serde_json::Value::Null)] {
            let text = format!("page {number}\n\u{2014} \"end\"\n");
            let got: serde_json::Value =
                serde_json::from_str(&json_page(&doc, number, 2, 4_000, &text)).expect("valid JSON");
            let want = json!({
                "title": doc.title,
                "page": number,
                "pages": 2,
                "page_size": 4_000,
                "markdown": text,
                "result": want_result,
            });
            assert_eq!(got, want);
        }
    }

    #[test]
    fn accept_headers_choose_json_only_when_asked_for_explicitly() {
        assert_eq!(Format::from_accept(None), Format::Markdown);
        assert_eq!(Format::from_accept(Some("*/*")), Format::Markdown);
        assert_eq!(Format::from_accept(Some("application/json")), Format::Json);
        assert_eq!(
            Format::from_accept(Some("application/json, */*;q=0.8")),
            Format::Json
        );
        assert_eq!(
            Format::from_accept(Some("text/markdown, application/json;q=0.5")),
            Format::Markdown
        );
        assert_eq!(
            Format::from_accept(Some("application/json;q=0")),
            Format::Markdown
        );
    }

    #[test]
    fn paging_is_taken_out_of_the_parameters_and_bounded() {
        let mut params: BTreeMap<String, String> = [("page", "2"), ("page_size", "5000"), ("fqn", "x")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let paging = Paging::take(&mut params, "/api/v1/code/callers").expect("valid");
        assert_eq!(
            paging,
            Paging {
                page: 2,
                page_size: 5000
            }
        );
        assert_eq!(params.len(), 1);
        for bad in [
            ("page", "0"),
            ("page", "x"),
            ("page_size", "10"),
            ("page_size", "900000"),
        ] {
            let mut params = BTreeMap::from([(bad.0.to_string(), bad.1.to_string())]);
            let err = Paging::take(&mut params, "/p").expect_err("invalid");
            assert_eq!(err.status, 422);
            assert!(err.body.contains(bad.0), "{}", err.body);
        }
    }
}
