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

use super::values::{eval, At, Values};
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
    let erased = facts::erase(ty);
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
pub(crate) struct FoundCall {
    pub(crate) line: usize,
    pub(crate) client: &'static str,
    pub(crate) verb: String,
    pub(crate) url: String,
}

/// Why a client call could not be turned into a [`FoundCall`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unresolved {
    pub(crate) line: usize,
    pub(crate) message: String,
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
pub(crate) fn client_calls(
    values: &Values<'_>,
    file: &CodeFile,
    t: &facts::TypeDecl,
    m: &facts::MethodDecl,
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
                let (found, unresolved) = client_calls(&product.values, file, t, m);
                for u in unresolved {
                    out.stat("http-calls.unresolved", 1);
                    out.warn(&file.path, Some(u.line as u32), u.message);
                }
                for call in found {
                    let (target, path) = match destination(&call.url) {
                        Destination::Host { host, path } => (host, path),
                        Destination::Relative(path)
                            if calls_own_service(call.client) && service.is_some() =>
                        {
                            (service.clone().unwrap_or_default(), path)
                        }
                        _ => {
                            out.stat("http-calls.unresolved", 1);
                            out.warn(
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
                    let external = is_external(&target);
                    out.push(Finding::HttpCall(HttpCall {
                        caller: MethodKey::of(t, m),
                        caller_name: format!("{}.{}", t.fqn, m.name),
                        verb: call.verb,
                        path,
                        url: call.url,
                        target,
                        client: call.client,
                        file: file.path.clone(),
                        lines: (call.line, call.line),
                        test,
                        external,
                        links: !external,
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
            types: facts
                .iter()
                .flat_map(|f| &f.types)
                .map(|t| (t.fqn.as_str(), t))
                .collect(),
            table: &table,
            resolve: &resolve,
        };
        let file = &facts[0];
        let mut found = Vec::new();
        let mut warnings = Vec::new();
        for t in &file.types {
            for m in t.methods.iter().filter(|m| m.name == method) {
                let (f, u) = client_calls(&values, file, t, m);
                found.extend(f);
                warnings.extend(u.into_iter().map(|u| format!("{}: {}", u.line, u.message)));
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
    fn a_url_the_source_does_not_fix_is_a_warning_and_no_call() {
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
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].starts_with("8:"), "{warnings:?}");
        // A placeholder literal and a reassigned local are not hosts the source fixes: they
        // are found with a template, and `destination` refuses them.
        for c in &found {
            assert_eq!(destination(&c.url), Destination::Unknown, "{}", c.url);
        }
    }

    #[test]
    fn destinations_are_hosts_with_their_path() {
        assert_eq!(
            destination("lb://orders-service/api/orders/{id}?x=1"),
            Destination::Host {
                host: "orders-service".into(),
                path: "/api/orders/{id}?x=1".into()
            }
        );
        assert_eq!(
            destination("http://user@inventory.default.svc.cluster.local:8080/api"),
            Destination::Host {
                host: "inventory".into(),
                path: "/api".into()
            }
        );
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
warning orders/src/main/java/a/Clients.java:12: HTTP call GET {url}: the URL names no host the source fixes
http GET orders /actuator/health test-rest-template url=/actuator/health by a.ApiTest.health linked test (orders/src/test/java/a/ApiTest.java:5)
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
