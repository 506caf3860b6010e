//! A tool call becomes one request to the REST API, answered by the same router in-process.
//!
//! [`prepare`] checks the tool arguments (strictly, like the API: an unknown argument, a
//! non-object `params`, a nested value is a 422-style answer that names the fix) and spells
//! the request: `GET path?query` where the route answers GET (recipes answer both), else
//! `POST path` with a JSON object body. [`send`] runs it through the router and hands back the status and the body
//! untouched. There is no query logic and no rendering here.
//!
//! Entitlement: the reserved argument `caller_area` (stamped by a gateway, at the top level
//! or inside `params`) never reaches the API as a parameter. It becomes the area header
//! only when the MCP request itself carries a gateway credential; from anyone else it is
//! dropped, and the caller's own `Authorization`, forwarded on every request, decides.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, Request};
use axum::Router;
use rmcp::model::JsonObject;
use serde_json::Value;
use tower::ServiceExt;

use super::tools::{Route, Toolset, Verb, DISCOVER};
use crate::server::{Auth, AREA_HEADER};

/// The reserved argument in which a gateway stamps its caller's area.
pub(crate) const CALLER_AREA: &str = "caller_area";

/// The largest answer read back from the router (a page is at most 200,000 characters).
const MAX_BODY: usize = 16 << 20;

/// One API request, ready to send.
#[derive(Debug)]
pub(crate) struct Call {
    /// `tool/endpoint`, for the log.
    pub(crate) what: String,
    route: Route,
    params: BTreeMap<String, String>,
    /// The area a gateway stamped, if any (not yet checked against the credential).
    caller_area: Option<String>,
}

/// A 422 in the API's words, for a call that cannot become a request.
fn invalid(title: &str, body: &str) -> String {
    format!(
        "# 422: {title}\n\n{body}\n\nCall `discover` first and copy endpoint and parameter names \
         verbatim.\n"
    )
}

fn quoted<'a>(names: impl Iterator<Item = &'a str>) -> String {
    names.map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

fn nearest<'a>(asked: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let asked = asked.to_lowercase();
    candidates
        .map(|c| {
            (
                strsim::normalized_damerau_levenshtein(&asked, &c.to_lowercase()),
                c,
            )
        })
        .filter(|(score, _)| *score > 0.3)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

/// Removes `caller_area` from the arguments and from `params`; two different values are a
/// refusal, never a choice.
fn take_caller_area(arguments: &mut JsonObject) -> Result<Option<String>, String> {
    let top = arguments.remove(CALLER_AREA);
    let inner = match arguments.get_mut("params") {
        Some(Value::Object(params)) => params.remove(CALLER_AREA),
        _ => None,
    };
    let text = |v: Value| match v {
        Value::String(s) => Ok(Some(s.trim().to_string()).filter(|s| !s.is_empty())),
        Value::Null => Ok(None),
        _ => Err(invalid(
            "`caller_area` must be a string",
            "`caller_area` is reserved for a gateway and names one area.",
        )),
    };
    let top = top.map(text).transpose()?.flatten();
    let inner = inner.map(text).transpose()?.flatten();
    match (top, inner) {
        (Some(a), Some(b)) if a != b => Err(invalid(
            "`caller_area` is given twice with different values",
            "`caller_area` is reserved for a gateway; give it once.",
        )),
        (a, b) => Ok(a.or(b)),
    }
}

/// A JSON scalar as the text the API reads; `None` for `null` (absent).
fn scalar(tool: &str, name: &str, value: Value) -> Result<Option<String>, String> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        Value::Bool(b) => Ok(Some(b.to_string())),
        Value::Number(n) => Ok(Some(n.to_string())),
        Value::Array(_) | Value::Object(_) => Err(invalid(
            &format!("parameter `{name}` must be a string, number or boolean"),
            &format!(
                "Tool `{tool}`: every parameter in `params` is one scalar value, e.g. \
                 `{{\"{name}\": \"…\"}}`."
            ),
        )),
    }
}

fn page_of(tool: &str, value: Value) -> Result<Option<String>, String> {
    let page = match &value {
        Value::Null => return Ok(None),
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    match page {
        Some(p) if p >= 1 => Ok(Some(p.to_string())),
        _ => Err(invalid(
            "`page` must be an integer ≥ 1",
            &format!("Tool `{tool}`: pass `page` as a number, e.g. `\"page\": 2`."),
        )),
    }
}

/// Checks a tool call's arguments and spells the API request. `Err` is the text of a
/// 422-style tool error.
pub(crate) fn prepare(toolset: &Toolset, tool: &str, arguments: Option<JsonObject>) -> Result<Call, String> {
    let mut arguments = arguments.unwrap_or_default();
    let caller_area = take_caller_area(&mut arguments)?;
    let is_discover = tool == DISCOVER;
    let allowed: &[&str] = if is_discover {
        &["domain", "page"]
    } else {
        &["endpoint", "params", "page"]
    };
    let mut params = BTreeMap::new();
    let mut page = None;
    let mut endpoint = None;
    let mut inner = JsonObject::new();
    for (name, value) in arguments {
        match name.as_str() {
            "page" => page = page_of(tool, value)?,
            "endpoint" if !is_discover => endpoint = Some(value),
            "params" if !is_discover => match value {
                Value::Object(map) => inner = map,
                Value::Null => {}
                _ => {
                    return Err(invalid(
                        "`params` must be an object",
                        &format!(
                            "Tool `{tool}`: pass the endpoint's parameters as an object, e.g. \
                             `\"params\": {{\"fqn\": \"…\"}}`."
                        ),
                    ))
                }
            },
            "domain" if is_discover => {
                if let Some(d) = scalar(tool, "domain", value)? {
                    params.insert("domain".to_string(), d);
                }
            }
            other => {
                let hint = if is_discover {
                    String::new()
                } else {
                    format!(" An endpoint's parameters go inside `params`, e.g. `\"params\": {{\"{other}\": \"…\"}}`.")
                };
                return Err(invalid(
                    &format!("unknown argument `{other}` of tool `{tool}`"),
                    &format!("Tool `{tool}` takes {}.{hint}", quoted(allowed.iter().copied())),
                ));
            }
        }
    }
    for (name, value) in inner {
        if let Some(text) = scalar(tool, &name, value)? {
            params.insert(name, text);
        }
    }
    if let Some(page) = page {
        match params.get("page") {
            Some(p) if *p != page => {
                return Err(invalid(
                    "`page` is given twice",
                    &format!("Tool `{tool}`: give `page` once, as the tool's own argument."),
                ))
            }
            _ => {
                params.insert("page".to_string(), page);
            }
        }
    }
    if is_discover {
        return Ok(Call {
            what: DISCOVER.to_string(),
            route: toolset.discover.clone(),
            params,
            caller_area,
        });
    }
    let routes = toolset.routes.get(tool);
    let names = || routes.into_iter().flat_map(|r| r.keys().map(String::as_str));
    let endpoint = match endpoint {
        Some(Value::String(e)) => e,
        Some(_) | None => {
            return Err(invalid(
                &format!("tool `{tool}` needs `endpoint`"),
                &format!("Its endpoints: {}.", quoted(names())),
            ))
        }
    };
    let Some(route) = routes.and_then(|r| r.get(endpoint.trim())) else {
        let hint = nearest(&endpoint, names())
            .map(|n| format!("Did you mean `{n}`? "))
            .unwrap_or_default();
        return Err(invalid(
            &format!("unknown endpoint `{endpoint}` of tool `{tool}`"),
            &format!("{hint}Its endpoints: {}.", quoted(names())),
        ));
    };
    Ok(Call {
        what: format!("{tool}/{}", endpoint.trim()),
        route: route.clone(),
        params,
        caller_area,
    })
}

/// The API's answer to a call: its status and its body, untouched.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: String,
}

/// The headers the proxied request carries: the caller's `Authorization`, and the area
/// header only for a gateway credential (its `caller_area`, else the area header the MCP
/// request itself carried).
fn forwarded(auth: &Auth, mcp: Option<&HeaderMap>, caller_area: Option<String>) -> HeaderMap {
    let mut out = HeaderMap::new();
    let Some(mcp) = mcp else {
        return out;
    };
    if let Some(token) = mcp.get(header::AUTHORIZATION) {
        out.insert(header::AUTHORIZATION, token.clone());
    }
    if auth.is_gateway(mcp) {
        let area = caller_area
            .and_then(|a| HeaderValue::from_str(&a).ok())
            .or_else(|| mcp.get(AREA_HEADER).cloned());
        if let Some(area) = area {
            out.insert(AREA_HEADER, area);
        }
    }
    out
}

fn build(call: &Call, headers: HeaderMap) -> Result<Request<Body>, String> {
    let in_body = |name: &String| call.route.body_only.contains(name);
    let (method, uri, body) = match call.route.verb {
        // A document parameter (a diff) rides in a POST body, the others in the query.
        Verb::Get if call.params.keys().any(in_body) => {
            let (body, query): (BTreeMap<&String, &String>, BTreeMap<&String, &String>) =
                call.params.iter().partition(|(k, _)| in_body(k));
            let query = serde_urlencoded::to_string(&query).map_err(|e| e.to_string())?;
            let body = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
            let uri = if query.is_empty() {
                call.route.path.clone()
            } else {
                format!("{}?{query}", call.route.path)
            };
            (Method::POST, uri, Body::from(body))
        }
        Verb::Get if call.params.is_empty() => (Method::GET, call.route.path.clone(), Body::empty()),
        Verb::Get => {
            let query = serde_urlencoded::to_string(&call.params).map_err(|e| e.to_string())?;
            (Method::GET, format!("{}?{query}", call.route.path), Body::empty())
        }
        Verb::Post => {
            let body = serde_json::to_vec(&call.params).map_err(|e| e.to_string())?;
            (Method::POST, call.route.path.clone(), Body::from(body))
        }
    };
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .body(body)
        .map_err(|e| e.to_string())?;
    *request.headers_mut() = headers;
    if request.method() == Method::POST {
        request
            .headers_mut()
            .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    }
    Ok(request)
}

/// Sends `call` through `router` as the MCP request with headers `mcp` (none over stdio).
pub(crate) async fn send(router: &Router, auth: &Auth, mcp: Option<&HeaderMap>, call: Call) -> Answer {
    let headers = forwarded(auth, mcp, call.caller_area.clone());
    let request = match build(&call, headers) {
        Ok(r) => r,
        Err(e) => {
            tracing::error!(error = %e, "cannot build the API request");
            return Answer {
                status: 500,
                body: "# 500: internal error\n\nThe request could not be built.\n".into(),
            };
        }
    };
    let response = match router.clone().oneshot(request).await {
        Ok(r) => r,
        Err(never) => match never {},
    };
    let status = response.status().as_u16();
    let body = match axum::body::to_bytes(response.into_body(), MAX_BODY).await {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            tracing::error!(error = %e, "cannot read the API answer");
            return Answer {
                status: 500,
                body: "# 500: internal error\n\nThe answer could not be read.\n".into(),
            };
        }
    };
    tracing::info!(call = %call.what, status, "mcp tool call");
    Answer { status, body }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOC: &str = r#"{"paths": {
        "/api/v1/code/callers": {"get": {"tags": ["code"]}},
        "/api/v1/recipes/impact": {"post": {"tags": ["recipes"]}, "get": {"tags": ["recipes"]}},
        "/api/v1/discover": {"get": {"tags": ["meta"], "operationId": "discover"}}
    }}"#;

    fn args(v: Value) -> Option<JsonObject> {
        match v {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn scalars_become_text_and_caller_area_never_reaches_the_api() {
        let set = Toolset::from_openapi(DOC);
        let call = prepare(
            &set,
            "code",
            args(
                json!({"endpoint": "callers", "params": {"fqn": "a.B.c", "depth": 2, "x": null,
                "caller_area": "finance"}, "page": 3}),
            ),
        )
        .expect("valid");
        assert_eq!(call.route.path, "/api/v1/code/callers");
        let expected: BTreeMap<String, String> = [("depth", "2"), ("fqn", "a.B.c"), ("page", "3")]
            .into_iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        assert_eq!(call.params, expected);
        assert_eq!(call.caller_area.as_deref(), Some("finance"));
        let top = prepare(
            &set,
            "execute",
            args(json!({"endpoint": "impact", "caller_area": "finance", "params": {"target": "X"}})),
        )
        .expect("valid");
        assert_eq!(top.caller_area.as_deref(), Some("finance"));
        assert!(!top.params.contains_key(CALLER_AREA));
        let twice = prepare(
            &set,
            "execute",
            args(json!({"endpoint": "impact", "caller_area": "a", "params": {"caller_area": "b"}})),
        );
        assert!(twice.is_err());
    }

    #[test]
    fn wrong_calls_are_422_texts_that_name_the_fix() {
        let set = Toolset::from_openapi(DOC);
        let nested = prepare(
            &set,
            "code",
            args(json!({"endpoint": "callers", "params": {"fqn": ["a"]}})),
        );
        assert!(nested.expect_err("nested").contains("`fqn` must be a string"));
        let endpoint = prepare(&set, "code", args(json!({"endpoint": "caller"}))).expect_err("unknown");
        assert!(endpoint.starts_with("# 422"), "{endpoint}");
        assert!(endpoint.contains("Did you mean `callers`?"), "{endpoint}");
        let stray =
            prepare(&set, "code", args(json!({"endpoint": "callers", "fqn": "x"}))).expect_err("stray");
        assert!(stray.contains("inside `params`"), "{stray}");
        let page = prepare(&set, "code", args(json!({"endpoint": "callers", "page": 0}))).expect_err("page");
        assert!(page.contains("`page`"), "{page}");
        let missing = prepare(&set, "code", None).expect_err("missing");
        assert!(missing.contains("needs `endpoint`"), "{missing}");
        let discover = prepare(&set, "discover", args(json!({"domain": "code"}))).expect("discover");
        assert_eq!(discover.route.path, "/api/v1/discover");
    }

    #[test]
    fn only_a_gateway_credential_presents_the_area() {
        let table: toml::Table = toml::from_str(
            "[server]\n[[server.token]]\ntoken = \"plain-token-1\"\narea = \"commerce\"\n\
             [[server.gateway]]\ntoken = \"gateway-token-1\"\n",
        )
        .expect("toml");
        let auth = crate::server::ServerConfig::from_table(table.get("server").and_then(|v| v.as_table()))
            .expect("config")
            .auth;
        let mcp = |token: &str| {
            let mut h = HeaderMap::new();
            h.insert(
                header::AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {token}")).expect("header"),
            );
            h.insert(AREA_HEADER, HeaderValue::from_static("platform"));
            h
        };
        let plain = forwarded(&auth, Some(&mcp("plain-token-1")), Some("finance".into()));
        assert!(plain.get(AREA_HEADER).is_none());
        assert!(plain.get(header::AUTHORIZATION).is_some());
        let gateway = forwarded(&auth, Some(&mcp("gateway-token-1")), Some("finance".into()));
        assert_eq!(
            gateway.get(AREA_HEADER).and_then(|v| v.to_str().ok()),
            Some("finance")
        );
        let asserted = forwarded(&auth, Some(&mcp("gateway-token-1")), None);
        assert_eq!(
            asserted.get(AREA_HEADER).and_then(|v| v.to_str().ok()),
            Some("platform")
        );
        assert!(forwarded(&Auth::none(), None, Some("finance".into())).is_empty());
    }
}
