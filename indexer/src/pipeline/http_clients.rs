//! Outbound HTTP calls made through `RestTemplate`, `WebClient` and `RestClient` (and the
//! test clients `TestRestTemplate` and `WebTestClient`), as `HttpCall` nodes.
//!
//! A call is recognised on the syntax: a verb method (`getForObject`, `exchange(url,
//! HttpMethod.X, …)`, fluent `.get()`/`.method(HttpMethod.X)` followed by `.uri(…)`) on a
//! receiver declared with a client type, or on a chain that starts at
//! `WebClient.create(…)`/`RestClient.builder()`. The URL template is evaluated from the
//! argument ([`crate::java::eval`] through [`super::values`]); a fluent client's base URL
//! comes from the `baseUrl(…)`/`rootUri(…)`/`create(…)` of the builder chain that made it,
//! where the constructor, field or local that holds the client shows it.
//!
//! The target service is the URL's host (`http://inventory-service/…`, `lb://orders/…`).
//! A call is linked to an endpoint only by that service, its verb and its route — the
//! key Feign clients use — so two services exposing the same path never meet by path.
//! Hosts with a dot, `localhost` and IP addresses are outside the company: the call stays
//! a boundary to that host. A URL the source does not fix, or one without a host, is a
//! warning naming the file and line, and no node.
//!
//! The test clients call the application under test: a relative URL targets the caller's
//! own service. Every call written in test sources carries the TEST flag.

use std::collections::HashMap;

use semgraph_storage::{EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeId, NodeKind, ProductWriter};

use super::values::{At, Values};
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{self, eval, CallSite, Expr, JavaFile, MethodKey, Receiver};
use crate::keys;

/// `RestTemplate` methods whose name says the verb.
const TEMPLATE_VERBS: &[(&str, &str)] = &[
    ("getForObject", "GET"),
    ("getForEntity", "GET"),
    ("postForObject", "POST"),
    ("postForEntity", "POST"),
    ("postForLocation", "POST"),
    ("put", "PUT"),
    ("delete", "DELETE"),
    ("patchForObject", "PATCH"),
    ("headForHeaders", "HEAD"),
    ("optionsForAllow", "OPTIONS"),
];
/// `RestTemplate` methods that take the verb as their second argument.
const TEMPLATE_GENERIC: &[&str] = &["exchange", "execute"];
/// Fluent clients' verb methods.
const FLUENT_VERBS: &[&str] = &["get", "post", "put", "patch", "delete", "head", "options"];
/// Builder methods that set the base URL (`create(url)` of the static factories too).
const BASE_URL_METHODS: &[&str] = &["baseUrl", "rootUri", "create"];

/// Which client a receiver is, from its declared type (or the type it is a builder of).
fn client_kind(ty: &str) -> Option<&'static str> {
    let erased = java::erase(ty);
    let parts: Vec<&str> = erased.rsplit('.').collect();
    let simple = parts.first().copied().unwrap_or("");
    let owner = parts.get(1).copied().unwrap_or("");
    let name = if simple == "Builder" { owner } else { simple };
    Some(match name {
        "RestTemplate" | "RestOperations" => "rest-template",
        "TestRestTemplate" => "test-rest-template",
        "WebClient" => "web-client",
        "WebTestClient" => "web-test-client",
        "RestClient" => "rest-client",
        _ => return None,
    })
}

fn is_fluent(kind: &str) -> bool {
    matches!(kind, "web-client" | "rest-client" | "web-test-client")
}

/// Whether a relative URL of this client targets the caller's own service.
fn calls_own_service(kind: &str) -> bool {
    matches!(kind, "test-rest-template" | "web-test-client")
}

/// The calls a receiver chain is made of, innermost last, and the receiver at its root.
fn chain(site: &CallSite) -> (Vec<&CallSite>, &Receiver) {
    let mut calls = Vec::new();
    let mut r = &site.receiver;
    while let Receiver::Call(inner) = r {
        if calls.len() > 64 {
            break;
        }
        calls.push(inner.as_ref());
        r = &inner.receiver;
    }
    (calls, r)
}

/// `HttpMethod.GET`, `HttpMethod.valueOf("GET")`, `GET` (static import) → `GET`.
fn http_method(e: &Expr) -> Option<String> {
    let word = match e {
        Expr::Field(_, n) | Expr::Name(n) => n.clone(),
        Expr::Call { name, args, .. } if name == "valueOf" || name == "resolve" => match args.first() {
            Some(Expr::Str(s)) => s.clone(),
            _ => return None,
        },
        _ => return None,
    };
    let upper = word.to_uppercase();
    [
        "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE",
    ]
    .contains(&upper.as_str())
    .then_some(upper)
}

/// The URL a `uri(…)`/`URI.create(…)`/`new URI(…)` argument evaluates to; a lambda
/// `b -> b.path("/x/{id}").build(id)` gives the concatenation of its `path` segments.
fn url_of(e: &Expr, at: &At<'_>) -> Option<String> {
    match e {
        Expr::New { ty, args } if ty.ends_with("URI") && args.len() == 1 => url_of(&args[0], at),
        Expr::Call {
            recv: Some(r),
            name,
            args,
        } if name == "create" && matches!(r.as_ref(), Expr::Name(n) if n == "URI") && args.len() == 1 => {
            url_of(&args[0], at)
        }
        Expr::Lambda(body) => {
            let mut segments = Vec::new();
            let mut cur = body.as_ref();
            while let Expr::Call { recv, name, args } = cur {
                if name == "path" || name == "pathSegment" {
                    let mut joined = String::new();
                    for a in args {
                        let v = eval(a, at, 0)?;
                        if name == "pathSegment" {
                            joined.push('/');
                        }
                        joined.push_str(&v);
                    }
                    segments.push(joined);
                }
                if matches!(name.as_str(), "scheme" | "host" | "port" | "uri") {
                    // An absolute URL built piece by piece: not evaluated.
                    return None;
                }
                match recv {
                    Some(r) => cur = r,
                    None => break,
                }
            }
            if segments.is_empty() {
                return None;
            }
            segments.reverse();
            Some(segments.concat())
        }
        _ => eval(e, at, 0),
    }
}

/// The base URL a builder expression sets (`builder.baseUrl(x).build()`,
/// `WebClient.create(x)`), following a builder held in a local or field once.
fn base_of_expr(e: &Expr, at: &At<'_>, depth: usize) -> Option<String> {
    if depth > 4 {
        return None;
    }
    let mut cur = e;
    loop {
        match cur {
            Expr::Call { recv, name, args } => {
                if BASE_URL_METHODS.contains(&name.as_str()) && args.len() == 1 {
                    return eval(&args[0], at, 0);
                }
                match recv {
                    Some(r) => cur = r,
                    None => return None,
                }
            }
            Expr::Name(n) => return base_of_name(n, at, depth + 1),
            Expr::Field(o, n) if **o == Expr::This => return base_of_name(n, at, depth + 1),
            _ => return None,
        }
    }
}

/// The base URL of the client or builder held by `name` (a local or a field).
fn base_of_name(name: &str, at: &At<'_>, depth: usize) -> Option<String> {
    if let Some(local) = at.local_value(name) {
        let (e, where_) = local?;
        return base_of_expr(&e, &where_, depth);
    }
    if at.method.is_some_and(|m| m.params.iter().any(|p| p.name == name)) {
        return None;
    }
    let (e, where_) = at.field_value(name)?;
    base_of_expr(&e, &where_, depth)
}

/// One outbound call found in a method, before it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct FoundCall {
    pub(super) line: usize,
    pub(super) client: &'static str,
    pub(super) verb: String,
    pub(super) url: String,
}

/// Why a client call could not be turned into a [`FoundCall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unresolved {
    pub(super) line: usize,
    pub(super) message: String,
}

/// The client kind of a chain's root: a variable declared with a client type, or the
/// client type itself (`WebClient.create(…)`, `RestClient.builder()…build()`).
fn root_client(root: &Receiver, at: &At<'_>) -> Option<&'static str> {
    let name = match root {
        Receiver::Name(n) => n,
        Receiver::Field(o, n) if **o == Receiver::This => {
            return at.field_type(n).and_then(|t| client_kind(&t))
        }
        Receiver::Field(o, n) if n == "Builder" => match o.as_ref() {
            Receiver::Name(t) => return client_kind(&format!("{t}.Builder")),
            _ => return None,
        },
        _ => return None,
    };
    match at.declared_type(name) {
        Some(ty) => client_kind(&ty),
        None if matches!(name.as_str(), "WebClient" | "RestClient") => client_kind(name),
        None => None,
    }
}

/// Every outbound client call of method `m` of type `t`.
pub(super) fn client_calls(
    values: &Values<'_>,
    file: &JavaFile,
    t: &java::TypeDecl,
    m: &java::MethodDecl,
) -> (Vec<FoundCall>, Vec<Unresolved>) {
    let mut found = Vec::new();
    let mut unresolved = Vec::new();
    for site in &m.calls {
        let at = At::in_method(values, &file.path, t, m, site.byte);
        let (inner, root) = chain(site);
        let Some(client) = root_client(root, &at) else {
            continue;
        };
        let mut fail = |message: String| {
            unresolved.push(Unresolved {
                line: site.line,
                message,
            })
        };
        if !is_fluent(client) {
            if !inner.is_empty() {
                continue;
            }
            let verb = if let Some((_, v)) = TEMPLATE_VERBS.iter().find(|(n, _)| *n == site.name) {
                v.to_string()
            } else if TEMPLATE_GENERIC.contains(&site.name.as_str()) {
                match site.arg_values.get(1).and_then(http_method) {
                    Some(v) => v,
                    None => {
                        fail(format!(
                            "HTTP call {}(…): the HTTP method is not a literal HttpMethod",
                            site.name
                        ));
                        continue;
                    }
                }
            } else {
                continue;
            };
            let Some(url) = site.arg_values.first().and_then(|a| url_of(a, &at)) else {
                fail(format!(
                    "HTTP call {}(…): the URL is not a literal, constant, config value, concatenation or format the source fixes",
                    site.name
                ));
                continue;
            };
            // A template built with `rootUri(…)` prefixes relative URLs.
            let base = match root {
                Receiver::Name(n) => base_of_name(n, &at, 0),
                Receiver::Field(_, n) => base_of_name(n, &at, 0),
                _ => None,
            };
            found.push(FoundCall {
                line: site.line,
                client,
                verb,
                url: join_base(base.as_deref(), &url),
            });
            continue;
        }
        // Fluent: this site is the verb; the `uri(…)` call is made on its result.
        let verb = if FLUENT_VERBS.contains(&site.name.as_str()) && site.arg_count == 0 {
            site.name.to_uppercase()
        } else if site.name == "method" && site.arg_count == 1 {
            match site.arg_values.first().and_then(http_method) {
                Some(v) => v,
                None => {
                    fail("HTTP call method(…): the HTTP method is not a literal HttpMethod".to_string());
                    continue;
                }
            }
        } else {
            continue;
        };
        // The verb must be called on the client itself, not on a builder of it.
        let builds = inner.iter().any(|c| c.name == "build");
        let static_builder = matches!(root, Receiver::Name(n) if matches!(n.as_str(), "WebClient" | "RestClient"))
            && inner.iter().any(|c| c.name == "builder");
        let on_builder = static_builder || root_is_builder(root, &at);
        if on_builder && !builds {
            continue;
        }
        let uri_call = m.calls.iter().find(|c| {
            c.name == "uri" && matches!(&c.receiver, Receiver::Call(r) if r.byte == site.byte && r.name == site.name && r.line == site.line)
        });
        let path = match uri_call {
            Some(u) => match u.arg_values.first().and_then(|a| url_of(a, &at)) {
                Some(p) => Some(p),
                None => {
                    fail(format!(
                        "HTTP call {}().uri(…): the URL is not a literal, constant, config value, concatenation or format the source fixes",
                        site.name
                    ));
                    continue;
                }
            },
            None => None,
        };
        // The base URL: from the inline chain, else from what holds the client.
        let inline_base = inner.iter().find_map(|c| {
            (BASE_URL_METHODS.contains(&c.name.as_str()) && c.arg_values.len() == 1)
                .then(|| eval(&c.arg_values[0], &at, 0))
                .flatten()
        });
        let base = inline_base.or_else(|| match root {
            Receiver::Name(n) => base_of_name(n, &at, 0),
            Receiver::Field(_, n) => base_of_name(n, &at, 0),
            _ => None,
        });
        let url = match (base, path) {
            (base, Some(p)) => join_base(base.as_deref(), &p),
            (Some(b), None) => b,
            (None, None) => {
                fail(format!("HTTP call {}(): no uri(…) and no base URL", site.name));
                continue;
            }
        };
        found.push(FoundCall {
            line: site.line,
            client,
            verb,
            url,
        });
    }
    (found, unresolved)
}

fn root_is_builder(root: &Receiver, at: &At<'_>) -> bool {
    match root {
        Receiver::Name(n) => at
            .declared_type(n)
            .is_some_and(|t| java::erase(&t).ends_with(".Builder") || java::erase(&t) == "Builder"),
        Receiver::Field(o, n) if **o == Receiver::This => at
            .field_type(n)
            .is_some_and(|t| java::erase(&t).ends_with("Builder")),
        Receiver::Field(..) => true,
        _ => false,
    }
}

/// `base` + `path`, unless `path` is absolute already.
fn join_base(base: Option<&str>, path: &str) -> String {
    match base {
        Some(b) if !path.contains("://") => {
            if path.is_empty() {
                b.to_string()
            } else {
                format!("{}/{}", b.trim_end_matches('/'), path.trim_start_matches('/'))
            }
        }
        _ => path.to_string(),
    }
}

/// Where a URL goes: its host (`None` when relative) and its path.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Destination {
    Host {
        host: String,
        path: String,
    },
    Relative(String),
    /// The host is a run-time value (`{baseUrl}/x`) or not written.
    Unknown,
}

pub(super) fn destination(url: &str) -> Destination {
    if let Some((_, rest)) = url.split_once("://") {
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let host_port = authority.rsplit('@').next().unwrap_or(authority);
        let host = host_port.split(':').next().unwrap_or(host_port).to_lowercase();
        if host.is_empty() || host.contains(['{', '$', '%']) {
            return Destination::Unknown;
        }
        // In-cluster DNS names are the service name.
        let host = ["svc.cluster.local", "svc"]
            .iter()
            .find_map(|s| {
                host.strip_suffix(&format!(".{s}"))
                    .map(|h| h.split('.').next().unwrap_or(h).to_string())
            })
            .unwrap_or(host);
        let path = &rest[end..];
        return Destination::Host {
            host,
            path: if path.is_empty() {
                "/".into()
            } else {
                path.to_string()
            },
        };
    }
    if url.starts_with('/') {
        Destination::Relative(url.to_string())
    } else {
        Destination::Unknown
    }
}

/// Whether a host is outside the company (no service is named like it).
fn is_external(host: &str) -> bool {
    host.contains('.') || host == "localhost" || host.contains(':')
}

/// Writes the outbound client calls of `file` as HttpCall nodes called by their method.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_client_calls(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    values: &Values<'_>,
    file: &JavaFile,
    service: Option<&str>,
    methods: &HashMap<MethodKey, NodeId>,
) -> Result<(), IndexError> {
    let test = file.path.contains("src/test/");
    for t in &file.types {
        for m in &t.methods {
            if m.calls.is_empty() {
                continue;
            }
            let (found, unresolved) = client_calls(values, file, t, m);
            for u in unresolved {
                run.stat("http-calls.unresolved", 1);
                run.warn(&file.path, Some(u.line as u32), u.message);
            }
            if found.is_empty() {
                continue;
            }
            let Some(&caller) = methods.get(&super::code::method_key(t, m)) else {
                continue;
            };
            for call in found {
                let (target, path) = match destination(&call.url) {
                    Destination::Host { host, path } => (host, path),
                    Destination::Relative(path) if calls_own_service(call.client) && service.is_some() => {
                        (service.unwrap_or_default().to_string(), path)
                    }
                    _ => {
                        run.stat("http-calls.unresolved", 1);
                        run.warn(
                            &file.path,
                            Some(call.line as u32),
                            format!(
                                "HTTP call {} {}: the URL names no host the source fixes",
                                call.verb, call.url
                            ),
                        );
                        continue;
                    }
                };
                let path = path.split(['?', '#']).next().unwrap_or("/").to_string();
                let mut flags = NodeFlags::default();
                if test {
                    flags |= NodeFlags::TEST;
                }
                let external = is_external(&target);
                let mut node = NewNode::new(NodeKind::HttpCall, format!("{} {path}", call.verb))
                    .fqn(format!("{target} {} {path}", call.verb))
                    .at(&file.path, call.line as u32, call.line as u32)
                    .flags(flags)
                    .attr("verb", &call.verb)
                    .attr("url", &call.url)
                    .attr("target-service", &target)
                    .attr("client", call.client)
                    .attr("caller", format!("{}.{}", t.fqn, m.name));
                if external {
                    node = node.attr("external", "yes");
                }
                let id = run.add(w, node)?;
                w.add_edge(caller, EdgeKind::Calls, id)?;
                if !external {
                    w.add_link(
                        id,
                        EdgeKind::Invokes,
                        &keys::http_endpoint(&target, &call.verb, &path),
                        LinkPolicy::Unique,
                    )?;
                }
                run.stat("http-calls", 1);
            }
        }
    }
    Ok(())
}
