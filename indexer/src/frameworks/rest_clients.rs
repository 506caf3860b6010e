//! Outbound HTTP calls made through `RestTemplate`, `WebClient` and `RestClient` (and the
//! test clients `TestRestTemplate` and `WebTestClient`), as `HttpCall` nodes.
//!
//! A call is recognised on the syntax: a verb method (`getForObject`, `exchange(url,
//! HttpMethod.X, …)`, fluent `.get()`/`.method(HttpMethod.X)` followed by `.uri(…)`) on a
//! receiver declared with a client type, or on a chain that starts at
//! `WebClient.create(…)`/`RestClient.builder()`. The URL template is evaluated from the
//! argument ([`crate::frameworks::values::eval`]); a fluent client's base URL
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

use super::values::{eval, eval_candidates, At, Values};
use super::{Finding, Findings, HttpCall, Product, Recogniser};
use crate::facts::{self, CallSite, CodeFile, Expr, Receiver};
use crate::resolve::{MethodKey, ResolvedCall};

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
    // Asked about the declared type of every named receiver: nothing allocated for a plain one.
    let erased = facts::erased(ty);
    let mut parts = erased.rsplit('.');
    let simple = parts.next().unwrap_or("");
    let owner = parts.next().unwrap_or("");
    let name = if simple == "Builder" { owner } else { simple };
    Some(match name {
        "RestTemplate" | "RestOperations" => "rest-template",
        "TestRestTemplate" => "test-rest-template",
        "WebClient" => "web-client",
        "WebTestClient" => "web-test-client",
        "RestClient" => "rest-client",
        "MockMvc" => "mock-mvc",
        "MockMvcTester" => "mock-mvc-tester",
        _ => return None,
    })
}

/// The class of MockMvc's request builders (`get("/owners/{id}", 1)`, statically imported).
const MOCK_MVC_BUILDERS: &str = "org.springframework.test.web.servlet.request.MockMvcRequestBuilders";

/// The classes whose static `given()`/`when()` start a REST Assured request (against a
/// running server, or MockMvc's).
const REST_ASSURED: &[&str] = &[
    "io.restassured.RestAssured",
    "io.restassured.module.mockmvc.RestAssuredMockMvc",
    "io.restassured.module.webtestclient.RestAssuredWebTestClient",
];

/// A REST Assured request, `given()….when().get(url, vars…)`: the verb, when `site` is
/// the verb method of a chain that starts at one of [`REST_ASSURED`]'s `given()` or
/// `when()` (statically imported or through its class).
fn rest_assured_verb(
    site: &CallSite,
    inner: &[&CallSite],
    root: &Receiver,
    file: &CodeFile,
) -> Option<String> {
    if !FLUENT_VERBS.contains(&site.name.as_str()) || site.arg_count == 0 {
        return None;
    }
    let start = inner.last()?;
    if !matches!(start.name.as_str(), "given" | "when") {
        return None;
    }
    let class_of = |path: &str| REST_ASSURED.contains(&path);
    let starts = match root {
        Receiver::None => file.imports.iter().any(|i| {
            i.is_static
                && ((i.wildcard && class_of(&i.path))
                    || (!i.wildcard
                        && i.path
                            .rsplit_once('.')
                            .is_some_and(|(class, name)| name == start.name && class_of(class))))
        }),
        Receiver::Name(n) | Receiver::Field(_, n) => REST_ASSURED
            .iter()
            .any(|c| c.rsplit('.').next() == Some(n.as_str())),
        _ => false,
    };
    starts.then(|| site.name.to_uppercase())
}

/// A request built by MockMvc's `MockMvcRequestBuilders` (`get(url, vars…)`, `post(…)`,
/// `multipart(…)`, `request(HttpMethod.GET, url)`), statically imported or named through
/// its class: its verb (or why it is not known) and which argument is the URL.
fn mock_mvc_request(site: &CallSite, file: &CodeFile) -> Option<(Result<String, String>, usize)> {
    let name = site.name.as_str();
    if site.arg_count == 0 || !(FLUENT_VERBS.contains(&name) || matches!(name, "multipart" | "request")) {
        return None;
    }
    let imported = || {
        file.imports.iter().any(|i| {
            i.is_static
                && match i.path.strip_prefix(MOCK_MVC_BUILDERS) {
                    Some("") => i.wildcard,
                    Some(rest) => !i.wildcard && rest.strip_prefix('.') == Some(name),
                    None => false,
                }
        })
    };
    let builder = match &site.receiver {
        Receiver::None => imported(),
        Receiver::Name(n) | Receiver::Field(_, n) => n == "MockMvcRequestBuilders",
        _ => false,
    };
    if !builder {
        return None;
    }
    if FLUENT_VERBS.contains(&name) {
        return Some((Ok(name.to_uppercase()), 0));
    }
    match name {
        "multipart" => Some((Ok("POST".to_string()), 0)),
        "request" if site.arg_count >= 2 => Some((literal_verb(site, 0), 1)),
        _ => None,
    }
}

/// A request of a test client made by one call: MockMvc's builders (whatever `perform`
/// they are given to), the verb method of a REST Assured chain, Kotlin's
/// `mockMvc.get(url) { … }`. The client, the verb (or why it is not known) and which
/// argument is the URL.
fn test_request(
    site: &CallSite,
    inner: &[&CallSite],
    root: &Receiver,
    file: &CodeFile,
    at: &At<'_>,
) -> Option<(&'static str, Result<String, String>, usize)> {
    if let Some((verb, url_at)) = mock_mvc_request(site, file) {
        return Some(("mock-mvc", verb, url_at));
    }
    if let Some(verb) = rest_assured_verb(site, inner, root, file) {
        return Some(("rest-assured", Ok(verb), 0));
    }
    let kotlin_dsl = inner.is_empty()
        && site.arg_count > 0
        && FLUENT_VERBS.contains(&site.name.as_str())
        && root_client(root, at) == Some("mock-mvc");
    kotlin_dsl.then(|| ("mock-mvc", Ok(site.name.to_uppercase()), 0))
}

/// Every URL argument `i` of `site` may evaluate to, or why the source does not tell it.
fn url_argument(site: &CallSite, i: usize, at: &At<'_>) -> Result<Vec<String>, String> {
    let urls = site.arg_values.get(i).map(|a| urls_of(a, at)).unwrap_or_default();
    if urls.is_empty() {
        return Err(format!(
            "HTTP call {}(…): the URL is not a literal, constant, config value, concatenation or format the source fixes",
            site.name
        ));
    }
    Ok(urls)
}

/// The verb argument `i` of `site` names, or why it names none.
fn literal_verb(site: &CallSite, i: usize) -> Result<String, String> {
    site.arg_values.get(i).and_then(http_method).ok_or_else(|| {
        format!(
            "HTTP call {}(…): the HTTP method is not a literal HttpMethod",
            site.name
        )
    })
}

fn is_fluent(kind: &str) -> bool {
    matches!(
        kind,
        "web-client" | "rest-client" | "web-test-client" | "mock-mvc-tester"
    )
}

/// Whether a relative URL of this client targets the caller's own service.
fn calls_own_service(kind: &str) -> bool {
    matches!(
        kind,
        "test-rest-template" | "web-test-client" | "mock-mvc" | "mock-mvc-tester" | "rest-assured"
    )
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

/// Every URL a `uri(…)`/`URI.create(…)`/`new URI(…)` argument may evaluate to (one per
/// candidate of the one value evaluator); a lambda `b -> b.path("/x/{id}").build(id)`
/// gives the concatenation of its `path` segments. Empty when the source does not tell.
fn urls_of(e: &Expr, at: &At<'_>) -> Vec<String> {
    match e {
        Expr::New { ty, args } if ty.ends_with("URI") && args.len() == 1 => urls_of(&args[0], at),
        Expr::Call {
            recv: Some(r),
            name,
            args,
        } if name == "create" && matches!(r.as_ref(), Expr::Name(n) if n == "URI") && args.len() == 1 => {
            urls_of(&args[0], at)
        }
        Expr::Lambda(body) => {
            let mut segments = Vec::new();
            let mut cur = body.as_ref();
            while let Expr::Call { recv, name, args } = cur {
                if name == "path" || name == "pathSegment" {
                    let mut joined = String::new();
                    for a in args {
                        let Some(v) = eval(a, at, 0) else {
                            return Vec::new();
                        };
                        if name == "pathSegment" {
                            joined.push('/');
                        }
                        joined.push_str(&v);
                    }
                    segments.push(joined);
                }
                if matches!(name.as_str(), "scheme" | "host" | "port" | "uri") {
                    // An absolute URL built piece by piece: not evaluated.
                    return Vec::new();
                }
                match recv {
                    Some(r) => cur = r,
                    None => break,
                }
            }
            if segments.is_empty() {
                return Vec::new();
            }
            segments.reverse();
            vec![segments.concat()]
        }
        _ => eval_candidates(e, at),
    }
}

/// The base URLs a builder expression sets (`builder.baseUrl(x).build()`,
/// `WebClient.create(x)`), following a builder held in a local or field once.
fn base_of_expr(e: &Expr, at: &At<'_>, depth: usize) -> Vec<String> {
    if depth > 4 {
        return Vec::new();
    }
    let mut cur = e;
    loop {
        match cur {
            Expr::Call { recv, name, args } => {
                if BASE_URL_METHODS.contains(&name.as_str()) && args.len() == 1 {
                    return eval_candidates(&args[0], at);
                }
                match recv {
                    Some(r) => cur = r,
                    None => return Vec::new(),
                }
            }
            Expr::Name(n) => return base_of_name(n, at, depth + 1),
            Expr::Field(o, n) if **o == Expr::This => return base_of_name(n, at, depth + 1),
            _ => return Vec::new(),
        }
    }
}

/// The base URLs of the client or builder held by `name` (a local or a field).
fn base_of_name(name: &str, at: &At<'_>, depth: usize) -> Vec<String> {
    if let Some(local) = at.local_value(name) {
        return match local {
            Some((e, where_)) => base_of_expr(&e, &where_, depth),
            None => Vec::new(),
        };
    }
    if at.method.is_some_and(|m| m.params.iter().any(|p| p.name == name)) {
        return Vec::new();
    }
    match at.field_value(name) {
        Some((e, where_)) => base_of_expr(&e, &where_, depth),
        None => Vec::new(),
    }
}

/// One outbound call found in a method, before it is written: one per candidate URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FoundCall {
    pub(crate) line: usize,
    pub(crate) client: &'static str,
    /// The verb, `UNKNOWN` when the source does not fix it.
    pub(crate) verb: String,
    /// The URL template, or the argument as written when the source does not fix it.
    pub(crate) url: String,
    /// Why the verb or URL is not what the source fixes: the call is kept, unresolved.
    pub(crate) unresolved: Option<String>,
}

/// The verb of a call whose HTTP method the source does not fix.
const UNKNOWN_VERB: &str = "UNKNOWN";

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

/// Every outbound client call of method `m` of type `t`: one per candidate URL, and one,
/// unresolved, for each call whose URL or verb the source does not fix.
pub(crate) fn client_calls(
    values: &Values<'_>,
    file: &CodeFile,
    t: &facts::TypeDecl,
    m: &facts::MethodDecl,
) -> Vec<FoundCall> {
    let mut found = Vec::new();
    for site in &m.calls {
        let at = At::in_method(values, &file.path, t, m, site.byte);
        let written = |i: usize| site.arg_texts.get(i).cloned().unwrap_or_default();
        let (inner, root) = chain(site);
        let request = test_request(site, &inner, root, file, &at);
        let Some(client) = request.as_ref().map(|r| r.0).or_else(|| root_client(root, &at)) else {
            continue;
        };
        let mut push = |verb: &str, urls: Vec<String>, unresolved: Option<String>| {
            for url in urls {
                found.push(FoundCall {
                    line: site.line,
                    client,
                    verb: verb.to_string(),
                    url,
                    unresolved: unresolved.clone(),
                });
            }
        };
        if let Some((_, verb, url_at)) = request {
            let (verb, verb_unknown) = match verb {
                Ok(v) => (v, None),
                Err(reason) => (UNKNOWN_VERB.to_string(), Some(reason)),
            };
            match url_argument(site, url_at, &at) {
                Ok(urls) => push(&verb, urls, verb_unknown),
                Err(reason) => push(&verb, vec![written(url_at)], Some(reason)),
            }
            continue;
        }
        if !is_fluent(client) {
            if !inner.is_empty() {
                continue;
            }
            let (verb, verb_unknown) =
                if let Some((_, v)) = TEMPLATE_VERBS.iter().find(|(n, _)| *n == site.name) {
                    (v.to_string(), None)
                } else if TEMPLATE_GENERIC.contains(&site.name.as_str()) {
                    match literal_verb(site, 1) {
                        Ok(v) => (v, None),
                        Err(reason) => (UNKNOWN_VERB.to_string(), Some(reason)),
                    }
                } else {
                    continue;
                };
            let urls = match url_argument(site, 0, &at) {
                Ok(urls) => urls,
                Err(reason) => {
                    push(&verb, vec![written(0)], Some(reason));
                    continue;
                }
            };
            // A template built with `rootUri(…)` prefixes relative URLs.
            let bases = match root {
                Receiver::Name(n) => base_of_name(n, &at, 0),
                Receiver::Field(_, n) => base_of_name(n, &at, 0),
                _ => Vec::new(),
            };
            push(&verb, join_bases(&bases, &urls), verb_unknown);
            continue;
        }
        // Fluent: this site is the verb; the `uri(…)` call is made on its result.
        let (verb, verb_unknown) = if FLUENT_VERBS.contains(&site.name.as_str()) && site.arg_count == 0 {
            (site.name.to_uppercase(), None)
        } else if site.name == "method" && site.arg_count == 1 {
            match literal_verb(site, 0) {
                Ok(v) => (v, None),
                Err(reason) => (UNKNOWN_VERB.to_string(), Some(reason)),
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
        let paths = match uri_call {
            Some(u) => {
                let p = u.arg_values.first().map(|a| urls_of(a, &at)).unwrap_or_default();
                if p.is_empty() {
                    push(
                        &verb,
                        vec![u.arg_texts.first().cloned().unwrap_or_default()],
                        Some(format!(
                            "HTTP call {}().uri(…): the URL is not a literal, constant, config value, concatenation or format the source fixes",
                            site.name
                        )),
                    );
                    continue;
                }
                Some(p)
            }
            None => None,
        };
        // The base URL: from the inline chain, else from what holds the client.
        let inline_base: Vec<String> = inner
            .iter()
            .find(|c| BASE_URL_METHODS.contains(&c.name.as_str()) && c.arg_values.len() == 1)
            .map(|c| eval_candidates(&c.arg_values[0], &at))
            .unwrap_or_default();
        let bases = if inline_base.is_empty() {
            match root {
                Receiver::Name(n) => base_of_name(n, &at, 0),
                Receiver::Field(_, n) => base_of_name(n, &at, 0),
                _ => Vec::new(),
            }
        } else {
            inline_base
        };
        match paths {
            Some(p) => push(&verb, join_bases(&bases, &p), verb_unknown),
            None if !bases.is_empty() => push(&verb, bases, verb_unknown),
            None => push(
                &verb,
                vec![String::new()],
                Some(format!("HTTP call {}(): no uri(…) and no base URL", site.name)),
            ),
        }
    }
    found
}

/// Every base joined with every path (a path alone when no base is known).
fn join_bases(bases: &[String], paths: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if bases.is_empty() {
        return paths.to_vec();
    }
    for b in bases {
        for p in paths {
            let joined = join_base(Some(b), p);
            if !out.contains(&joined) {
                out.push(joined);
            }
        }
    }
    out
}

fn root_is_builder(root: &Receiver, at: &At<'_>) -> bool {
    match root {
        Receiver::Name(n) => at
            .declared_type(n)
            .is_some_and(|t| facts::erase(&t).ends_with(".Builder") || facts::erase(&t) == "Builder"),
        Receiver::Field(o, n) if **o == Receiver::This => at
            .field_type(n)
            .is_some_and(|t| facts::erase(&t).ends_with("Builder")),
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
pub(crate) enum Destination {
    Host {
        host: String,
        /// The port, when written.
        port: Option<u16>,
        path: String,
    },
    Relative(String),
    /// The host is a run-time value (`{baseUrl}/x`) or not written.
    Unknown,
}

pub(crate) fn destination(url: &str) -> Destination {
    if let Some((_, rest)) = url.split_once("://") {
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..end];
        let host_port = authority.rsplit('@').next().unwrap_or(authority);
        // `[::1]:8080`: an IPv6 literal keeps its colons.
        let (host, port) = match host_port.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((h, p)) => (h.to_string(), p.strip_prefix(':')),
            None => match host_port.split_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (host_port.to_string(), None),
            },
        };
        let host = host.to_lowercase();
        if host.is_empty() || host.contains(['{', '$', '%']) {
            return Destination::Unknown;
        }
        // A port that is a run-time value leaves the service unknown when the host is local.
        let port = match port {
            Some(p) => match p.parse::<u16>() {
                Ok(n) => Some(n),
                Err(_) if is_local(&host) => return Destination::Unknown,
                Err(_) => None,
            },
            None => None,
        };
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
            port,
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

/// Whether a host is this machine: a call to it with a port names the service of the
/// company that listens on that port.
pub(crate) fn is_local(host: &str) -> bool {
    matches!(
        host,
        "localhost" | "127.0.0.1" | "0.0.0.0" | "::1" | "host.docker.internal"
    )
}

/// Whether a host is outside the company (no service is named like it).
fn is_external(host: &str) -> bool {
    host.contains('.') || host == "localhost" || host.contains(':')
}

/// What a call to `host` (with `port`) asks for: its target as shown, whether it is
/// outside the company, and the port a local URL names.
pub(crate) struct Aim {
    pub(crate) target: String,
    pub(crate) external: bool,
    pub(crate) port: Option<u16>,
}

/// Where a call to `host:port` is aimed: a local host with a port is the service on that
/// port; a host with a dot, an IP address or a local host without a port is outside the
/// company; any other host is a service name.
pub(crate) fn aim(host: &str, port: Option<u16>) -> Aim {
    match port {
        Some(p) if is_local(host) => Aim {
            target: format!("localhost:{p}"),
            external: false,
            port: Some(p),
        },
        _ => Aim {
            target: host.to_string(),
            external: is_external(host),
            port: None,
        },
    }
}

/// The route of a partial template whose host is a run-time value: `{baseUrl}/api/x` →
/// `/api/x`.
pub(crate) fn partial_path(url: &str) -> String {
    let rest = match url.strip_prefix('{').and_then(|r| r.split_once('}')) {
        Some((_, rest)) => rest,
        // `http://localhost:{port}/y`: what follows the authority.
        None => match url.split_once("://") {
            Some((_, r)) => r.find('/').map_or("", |i| &r[i..]),
            None => url,
        },
    };
    let path = rest.split(['?', '#']).next().unwrap_or("");
    if path.starts_with('/') {
        path.to_string()
    } else {
        String::new()
    }
}

pub(crate) struct RestClients;

impl Recogniser for RestClients {
    fn calls(&self, product: &Product<'_>, file: &CodeFile, _calls: &[ResolvedCall], out: &mut Findings) {
        let service = (product.service_of)(&file.path);
        let test = file.path.contains("src/test/");
        for t in &file.types {
            for m in &t.methods {
                if m.calls.is_empty() {
                    continue;
                }
                for call in client_calls(&product.values, file, t, m) {
                    let destination = destination(&call.url);
                    let from_service_root = matches!(destination, Destination::Relative(_));
                    let place = match (&call.unresolved, destination) {
                        (Some(reason), _) => Err(reason.clone()),
                        (None, Destination::Host { host, port, path }) => Ok((aim(&host, port), path)),
                        (None, Destination::Relative(path))
                            if calls_own_service(call.client) && service.is_some() =>
                        {
                            Ok((aim(service.as_deref().unwrap_or_default(), None), path))
                        }
                        (None, _) => Err(format!(
                            "HTTP call {} {}: the URL names no host the source fixes",
                            call.verb, call.url
                        )),
                    };
                    let caller = MethodKey::of(t, m);
                    let caller_name = format!("{}.{}", t.fqn, m.name);
                    let (aim, path) = match place {
                        Ok(p) => p,
                        Err(reason) => {
                            out.stat("http-calls.unresolved", 1);
                            out.warn(
                                &file.path,
                                Some(call.line as u32),
                                format!("{reason}; kept as an unresolved call, linked to nothing"),
                            );
                            out.push(Finding::HttpCall(HttpCall {
                                caller,
                                caller_name,
                                path: partial_path(&call.url),
                                verb: call.verb,
                                url: call.url,
                                target: String::new(),
                                client: call.client,
                                file: file.path.clone(),
                                lines: (call.line, call.line),
                                test,
                                external: false,
                                links: false,
                                port: None,
                                unresolved: Some(reason),
                                from_service_root: false,
                            }));
                            continue;
                        }
                    };
                    let path = path.split(['?', '#']).next().unwrap_or("/").to_string();
                    out.push(Finding::HttpCall(HttpCall {
                        caller,
                        caller_name,
                        verb: call.verb,
                        path,
                        url: call.url,
                        target: aim.target,
                        client: call.client,
                        file: file.path.clone(),
                        lines: (call.line, call.line),
                        test,
                        external: aim.external,
                        links: !aim.external,
                        port: aim.port,
                        unresolved: None,
                        from_service_root,
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::java::parse_java_file;
    use crate::resolve::SymbolTable;

    /// Parses `sources` (path, text) as one product and returns the facts and symbol table.
    fn product(sources: &[(&str, &str)]) -> (Vec<CodeFile>, SymbolTable) {
        let facts: Vec<CodeFile> = sources.iter().map(|(p, t)| parse_java_file(p, t)).collect();
        let table = SymbolTable::build(facts.iter());
        (facts, table)
    }

    /// The client calls of method `method` of the first file, with config values from `config`.
    fn calls_of(
        sources: &[(&str, &str)],
        method: &str,
        config: &[(&str, &str)],
    ) -> (Vec<FoundCall>, Vec<String>) {
        let (facts, table) = product(sources);
        let resolve = |_: &str, v: &str| -> String {
            let mut out = v.to_string();
            for (k, val) in config {
                out = out.replace(&format!("${{{k}}}"), val);
            }
            // `${key:default}` of an unset key takes its default.
            while let Some(start) = out.find("${") {
                let Some(end) = out[start..].find('}') else { break };
                let inner = &out[start + 2..start + end];
                let Some((_, default)) = inner.split_once(':') else {
                    break;
                };
                out = format!("{}{}{}", &out[..start], default, &out[start + end + 1..]);
            }
            out
        };
        let values = Values {
            types: &facts
                .iter()
                .flat_map(|f| &f.types)
                .map(|t| (t.fqn.as_str(), t))
                .collect(),
            own: Default::default(),
            table: &table,
            resolve: &resolve,
        };
        let file = &facts[0];
        let mut found = Vec::new();
        let mut warnings = Vec::new();
        for t in &file.types {
            for m in t.methods.iter().filter(|m| m.name == method) {
                for c in client_calls(&values, file, t, m) {
                    match &c.unresolved {
                        Some(reason) => warnings.push(format!("{}: {reason}", c.line)),
                        None => found.push(c),
                    }
                }
            }
        }
        (found, warnings)
    }

    fn urls(found: &[FoundCall]) -> Vec<(String, String)> {
        found.iter().map(|c| (c.verb.clone(), c.url.clone())).collect()
    }

    const URLS: &str = r#"
    package com.x.shared;
    public final class Urls {
        public static final String ORDERS = "http://orders-service";
        public static final String ITEMS = ORDERS + "/api/items";
    }
    "#;

    #[test]
    fn rest_template_urls_from_constants_of_other_classes_and_static_imports() {
        let client = r#"
    package com.x.client;
    import static com.x.shared.Urls.ORDERS;
    import com.x.shared.Urls;
    import org.springframework.http.HttpMethod;
    import org.springframework.web.client.RestTemplate;
    class Client {
        private final RestTemplate rest;
        Client(RestTemplate rest) { this.rest = rest; }
        void calls(String id, Item item) {
            rest.getForObject(Urls.ITEMS + "/{id}", Item.class, id);
            rest.delete(ORDERS + "/api/orders/" + id);
            rest.exchange(Urls.ITEMS, HttpMethod.PUT, null, Void.class);
            rest.postForEntity(String.format("%s/api/items/%s/lines", ORDERS, item.getSku()), item, Void.class);
        }
    }
    "#;
        let (found, warnings) = calls_of(&[("Client.java", client), ("Urls.java", URLS)], "calls", &[]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            urls(&found),
            vec![
                ("GET".into(), "http://orders-service/api/items/{id}".into()),
                ("DELETE".into(), "http://orders-service/api/orders/{id}".into()),
                ("PUT".into(), "http://orders-service/api/items".into()),
                (
                    "POST".into(),
                    "http://orders-service/api/items/{sku}/lines".into()
                ),
            ]
        );
        assert!(found.iter().all(|c| c.client == "rest-template"));
    }

    #[test]
    fn config_bound_base_urls_take_the_configured_value_or_the_default() {
        let client = r#"
    package com.x;
    import org.springframework.beans.factory.annotation.Value;
    import org.springframework.web.client.RestTemplate;
    import org.springframework.web.reactive.function.client.WebClient;
    class Client {
        @Value("${billing.url}")
        private String billingUrl;
        private final WebClient web;
        private final RestTemplate rest;
        Client(WebClient.Builder b, RestTemplate rest, @Value("${stock.url:http://stock-service}") String stock) {
            this.web = b.baseUrl(stock).build();
            this.rest = rest;
        }
        void calls(long id) {
            web.get().uri("/api/stock/{id}", id).retrieve();
            rest.getForObject(billingUrl + "/api/invoices/" + id, Object.class);
            String local = billingUrl + "/api/credit";
            rest.postForObject(local, null, Object.class);
        }
    }
    "#;
        let (found, warnings) = calls_of(
            &[("Client.java", client)],
            "calls",
            &[("billing.url", "lb://billing")],
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            urls(&found),
            vec![
                ("GET".into(), "http://stock-service/api/stock/{id}".into()),
                ("GET".into(), "lb://billing/api/invoices/{id}".into()),
                ("POST".into(), "lb://billing/api/credit".into()),
            ]
        );
    }

    #[test]
    fn fluent_clients_take_their_verb_uri_and_inline_base_url() {
        let client = r#"
    package com.x;
    import org.springframework.http.HttpMethod;
    import org.springframework.web.client.RestClient;
    import org.springframework.web.reactive.function.client.WebClient;
    class Client {
        private final RestClient rest = RestClient.create("http://catalog");
        void calls(String sku) {
            rest.method(HttpMethod.PATCH).uri("/api/products/{sku}", sku).retrieve();
            WebClient.create("http://pricing").post().uri(b -> b.path("/api/prices/{sku}").build(sku)).retrieve();
            rest.get().uri("/api/products").retrieve();
        }
    }
    "#;
        let (found, warnings) = calls_of(&[("Client.java", client)], "calls", &[]);
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            urls(&found),
            vec![
                ("PATCH".into(), "http://catalog/api/products/{sku}".into()),
                ("POST".into(), "http://pricing/api/prices/{sku}".into()),
                ("GET".into(), "http://catalog/api/products".into()),
            ]
        );
    }

    #[test]
    fn a_url_the_source_does_not_fix_is_an_unresolved_call_and_each_side_of_a_choice_a_candidate() {
        let client = r#"
    package com.x;
    import org.springframework.web.client.RestTemplate;
    class Client {
        private final RestTemplate rest;
        Client(RestTemplate rest) { this.rest = rest; }
        void calls(boolean b, Registry registry) {
            rest.getForObject(b ? "http://a/x" : "http://b/x", Object.class);
            rest.getForObject(registry.urlOf("orders").toString() + "/x", Object.class);
            rest.getForObject("${missing.key}/x", Object.class);
            String url = "http://a/x";
            url = url + "/y";
            rest.getForObject(url, Object.class);
        }
    }
    "#;
        let (found, warnings) = calls_of(&[("Client.java", client)], "calls", &[]);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("9:"), "{warnings:?}");
        assert_eq!(
            urls(&found[..2]),
            vec![
                ("GET".into(), "http://a/x".into()),
                ("GET".into(), "http://b/x".into())
            ]
        );
        // A placeholder literal and a local set from itself are not hosts the source fixes:
        // they are found with a template, and `destination` refuses them.
        for c in &found[2..] {
            assert_eq!(destination(&c.url), Destination::Unknown, "{}", c.url);
        }
        assert_eq!(found.len(), 4);
    }

    #[test]
    fn urls_built_in_helpers_branches_and_builders_keep_every_candidate() {
        let client = r#"
    package com.x;
    import org.springframework.beans.factory.annotation.Value;
    import org.springframework.web.client.RestTemplate;
    import org.springframework.web.util.UriComponentsBuilder;
    class Client {
        private final RestTemplate rest;
        @Value("${billing.url}") private String billingUrl;
        private String host = "http://audit";
        Client(RestTemplate rest) { this.rest = rest; }
        private String baseUrl() { return billingUrl + "/api"; }
        private String invoice(String id) { return baseUrl() + "/invoices/" + id; }
        private String region(boolean eu) {
            if (eu) { return "http://billing-eu"; }
            return "http://billing-us";
        }
        void calls(String id, boolean eu, boolean legacy) {
            rest.getForObject(baseUrl() + "/credit", Object.class);
            rest.getForObject(invoice(id), Object.class);
            String url;
            if (legacy) { url = "http://billing-legacy/v1/x"; } else { url = baseUrl() + "/v2/x"; }
            rest.getForObject(url, Object.class);
            rest.getForObject(region(eu) + "/api/tax", Object.class);
            String u = UriComponentsBuilder.fromHttpUrl(billingUrl).path("/api/").path("/refunds/{id}").queryParam("q", 1).buildAndExpand(id).toUriString();
            rest.postForObject(u, null, Object.class);
            rest.delete(String.format("%s/api/events/%s", this.host, id));
            rest.put(UriComponentsBuilder.newInstance().scheme("http").host("stock").port(8080).pathSegment("api", "items").build().toUri(), null);
        }
    }
    "#;
        let (found, warnings) = calls_of(
            &[("Client.java", client)],
            "calls",
            &[("billing.url", "lb://billing")],
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            urls(&found),
            vec![
                ("GET".into(), "lb://billing/api/credit".into()),
                ("GET".into(), "lb://billing/api/invoices/{id}".into()),
                ("GET".into(), "http://billing-legacy/v1/x".into()),
                ("GET".into(), "lb://billing/api/v2/x".into()),
                ("GET".into(), "http://billing-eu/api/tax".into()),
                ("GET".into(), "http://billing-us/api/tax".into()),
                ("POST".into(), "lb://billing/api/refunds/{id}".into()),
                ("DELETE".into(), "http://audit/api/events/{id}".into()),
                ("PUT".into(), "http://stock:8080/api/items".into()),
            ]
        );
    }

    #[test]
    fn look_alike_helpers_stay_unknown() {
        // A helper of another object, a helper whose return is a run-time value, and a
        // builder step the evaluator does not know: no candidate is made up.
        let client = r#"
    package com.x;
    import org.springframework.web.client.RestTemplate;
    import org.springframework.web.util.UriComponentsBuilder;
    class Client {
        private final RestTemplate rest;
        private final Registry registry;
        private String fromRegistry() { return registry.lookup("billing"); }
        void calls(String base) {
            rest.getForObject(registry.baseUrl() + "/x", Object.class);
            rest.getForObject(fromRegistry() + "/y", Object.class);
            rest.getForObject(UriComponentsBuilder.fromHttpUrl(base).uriComponents(null).toUriString(), Object.class);
        }
    }
    "#;
        let (found, warnings) = calls_of(&[("Client.java", client)], "calls", &[]);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(
            warnings[0].starts_with("11:") && warnings[1].starts_with("12:"),
            "{warnings:?}"
        );
        assert_eq!(urls(&found), vec![("GET".into(), "{baseUrl}/x".into())]);
        assert_eq!(destination(&found[0].url), Destination::Unknown);
    }

    #[test]
    fn destinations_are_hosts_with_their_path() {
        assert_eq!(
            destination("lb://orders-service/api/orders/{id}?x=1"),
            Destination::Host {
                host: "orders-service".into(),
                port: None,
                path: "/api/orders/{id}?x=1".into()
            }
        );
        assert_eq!(
            destination("http://user@inventory.default.svc.cluster.local:8080/api"),
            Destination::Host {
                host: "inventory".into(),
                port: Some(8080),
                path: "/api".into()
            }
        );
        assert_eq!(
            destination("http://[::1]:8085/x"),
            Destination::Host {
                host: "::1".into(),
                port: Some(8085),
                path: "/x".into()
            }
        );
        assert_eq!(destination("http://localhost:{port}/x"), Destination::Unknown);
        assert_eq!(partial_path("{baseUrl}/api/x?y=1"), "/api/x");
        assert_eq!(partial_path("{url}"), "");
        assert_eq!(partial_path("http://localhost:{port}/y"), "/y");
        assert_eq!(destination("/api/x"), Destination::Relative("/api/x".into()));
        assert_eq!(destination("{base}/api/x"), Destination::Unknown);
        assert_eq!(destination("http://{host}/api/x"), Destination::Unknown);
    }

    #[test]
    fn clients_call_services_by_host_and_test_clients_call_their_own() {
        crate::frameworks::testing::check(
            r#"
//- /orders/src/main/resources/application.yml
clients:
  inventory: http://inventory-service
//- /orders/src/main/java/a/Clients.java
package a;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.reactive.function.client.WebClient;
class Clients {
    private final RestTemplate rest;
    private final WebClient web;
    @Value("${clients.inventory}") private String inventory;
    Clients(WebClient.Builder b) { this.web = b.baseUrl("http://payments-service/api").build(); }
    void stock(String sku) { rest.getForObject(inventory + "/api/stock/" + sku, Object.class); }
    void pay() { web.post().uri("/payments").retrieve(); }
    void partner() { rest.getForObject("https://api.partner.example/v1/rates", Object.class); }
    void unknown(String url) { rest.getForObject(url, Object.class); }
    void notAClient(java.util.Map<String, String> m) { m.get("http://x"); }
    void partial(String base) { rest.getForObject(base + "/api/rates", Object.class); }
    void local(int port) {
        rest.getForObject("http://localhost:8085/api/stock", Object.class);
        rest.getForObject("http://127.0.0.1/x", Object.class);
        rest.getForObject("http://localhost:" + port + "/y", Object.class);
    }
}
//- /orders/src/test/java/a/ApiTest.java
package a;
import org.springframework.boot.test.web.client.TestRestTemplate;
class ApiTest {
    TestRestTemplate http;
    void health() { http.getForEntity("/actuator/health", String.class); }
}
"#,
            r#"
config a.Clients -> clients.inventory via value
http GET inventory-service /api/stock/{sku} rest-template url=http://inventory-service/api/stock/{sku} by a.Clients.stock linked (orders/src/main/java/a/Clients.java:9)
http POST payments-service /api/payments web-client url=http://payments-service/api/payments by a.Clients.pay linked (orders/src/main/java/a/Clients.java:10)
http GET api.partner.example /v1/rates rest-template url=https://api.partner.example/v1/rates by a.Clients.partner external (orders/src/main/java/a/Clients.java:11)
http GET   rest-template url={url} by a.Clients.unknown unresolved (orders/src/main/java/a/Clients.java:12)
http GET  /api/rates rest-template url={base}/api/rates by a.Clients.partial unresolved (orders/src/main/java/a/Clients.java:14)
http GET localhost:8085 /api/stock rest-template url=http://localhost:8085/api/stock by a.Clients.local linked port=8085 (orders/src/main/java/a/Clients.java:16)
http GET 127.0.0.1 /x rest-template url=http://127.0.0.1/x by a.Clients.local external (orders/src/main/java/a/Clients.java:17)
http GET  /y rest-template url=http://localhost:{port}/y by a.Clients.local unresolved (orders/src/main/java/a/Clients.java:18)
warning orders/src/main/java/a/Clients.java:12: HTTP call GET {url}: the URL names no host the source fixes; kept as an unresolved call, linked to nothing
warning orders/src/main/java/a/Clients.java:14: HTTP call GET {base}/api/rates: the URL names no host the source fixes; kept as an unresolved call, linked to nothing
warning orders/src/main/java/a/Clients.java:18: HTTP call GET http://localhost:{port}/y: the URL names no host the source fixes; kept as an unresolved call, linked to nothing
http GET orders /actuator/health test-rest-template url=/actuator/health by a.ApiTest.health linked test (orders/src/test/java/a/ApiTest.java:5)
"#,
        );
    }

    #[test]
    fn mock_mvc_and_rest_assured_requests_call_their_own_service() {
        crate::frameworks::testing::check(
            r#"
//- /owners/src/test/java/a/OwnerTest.java
package a;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.*;
import org.springframework.http.HttpMethod;
import org.springframework.test.web.servlet.MockMvc;
class OwnerTest {
    MockMvc mvc;
    void one() throws Exception { mvc.perform(get("/owners/{id}", 2).accept("json")); }
    void made() throws Exception { mvc.perform(request(HttpMethod.PATCH, "/owners/2")); }
    void upload() throws Exception { mvc.perform(multipart("/owners/2/photo")); }
    void notMockMvc(java.util.Map<String, String> m) { m.get("/owners"); }
    void tester(org.springframework.test.web.servlet.assertj.MockMvcTester tester) { tester.get().uri("/owners/{id}/pets", 3).exchange(); }
}
//- /owners/src/test/java/a/OwnerApiTest.java
package a;
import static io.restassured.module.mockmvc.RestAssuredMockMvc.given;
import io.restassured.RestAssured;
class OwnerApiTest {
    void favorite(String slug) { given().header("A", "b").when().post("/owners/{slug}/favorite", slug).then().statusCode(200); }
    void list() { RestAssured.when().get("/owners").then(); }
    void notRestAssured(Spec spec) { spec.given().get("/x"); }
}
//- /owners/src/test/kotlin/a/OwnerKtTest.kt
package a

import org.springframework.test.web.servlet.MockMvc
import org.springframework.test.web.servlet.get

class OwnerKtTest(private val mockMvc: MockMvc) {
    fun all() {
        mockMvc.get("/owners") { accept = APPLICATION_JSON }
    }
}
"#,
            r#"
http POST owners /owners/{slug}/favorite rest-assured url=/owners/{slug}/favorite by a.OwnerApiTest.favorite linked test (owners/src/test/java/a/OwnerApiTest.java:5)
http GET owners /owners rest-assured url=/owners by a.OwnerApiTest.list linked test (owners/src/test/java/a/OwnerApiTest.java:6)
http GET owners /owners/{id} mock-mvc url=/owners/{id} by a.OwnerTest.one linked test (owners/src/test/java/a/OwnerTest.java:7)
http PATCH owners /owners/2 mock-mvc url=/owners/2 by a.OwnerTest.made linked test (owners/src/test/java/a/OwnerTest.java:8)
http POST owners /owners/2/photo mock-mvc url=/owners/2/photo by a.OwnerTest.upload linked test (owners/src/test/java/a/OwnerTest.java:9)
http GET owners /owners/{id}/pets mock-mvc-tester url=/owners/{id}/pets by a.OwnerTest.tester linked test (owners/src/test/java/a/OwnerTest.java:11)
http GET owners /owners mock-mvc url=/owners by a.OwnerKtTest.all linked test (owners/src/test/kotlin/a/OwnerKtTest.kt:8)
"#,
        );
    }

    #[test]
    fn kotlin_clients_with_string_template_urls() {
        crate::frameworks::testing::check(
            r#"
//- /orders/src/main/resources/application.yml
inventory:
  url: http://inventory-service
//- /orders/src/main/kotlin/a/InventoryClient.kt
package a

import org.springframework.web.client.RestTemplate
import org.springframework.web.reactive.function.client.WebClient

class InventoryClient(
    private val rest: RestTemplate,
    @Value("\${inventory.url}") private val base: String,
    builder: WebClient.Builder,
) {
    private val web: WebClient = builder.baseUrl(base).build()

    fun stock(sku: String) = rest.getForObject("$base/api/inventory/$sku", String::class.java)

    fun reserve(sku: String) {
        web.post().uri("/api/inventory/{sku}/reservations", sku).retrieve()
    }
}
"#,
            r#"
config a.InventoryClient.<init> -> inventory.url via value
http GET inventory-service /api/inventory/{sku} rest-template url=http://inventory-service/api/inventory/{sku} by a.InventoryClient.stock linked (orders/src/main/kotlin/a/InventoryClient.kt:13)
http POST inventory-service /api/inventory/{sku}/reservations web-client url=http://inventory-service/api/inventory/{sku}/reservations by a.InventoryClient.reserve linked (orders/src/main/kotlin/a/InventoryClient.kt:16)
"#,
        );
    }
}
