//! Spring Cloud Gateway: each route is an endpoint of the gateway service that forwards to
//! a service, so a question about a service's endpoint crosses the gateway in front of it.
//!
//! Routes come from configuration — `spring.cloud.gateway.routes[*]` (and the newer
//! `spring.cloud.gateway.server.webflux.routes`, the MVC gateway's `…mvc.routes` and
//! `…server.webmvc.routes`), in the shortcut form (`Path=/api/billing/**`,
//! `StripPrefix=1`) or the long one (`name` + `args`) — and from the Java DSL of a
//! `RouteLocatorBuilder` where it is literal (`builder.routes().route("billing", r ->
//! r.path("/api/billing/**").filters(f -> f.stripPrefix(1)).uri("lb://billing"))`).
//!
//! A route's `Path` patterns are its endpoints (verb `ANY`, or its `Method` predicate's);
//! its `uri` says where it forwards: `lb://service` and `http://service:port` name a
//! service, a local host with a port the service listening on it, any other host is
//! outside the company. What the target receives follows the filters that change the
//! path: `StripPrefix`, `PrefixPath`, `RewritePath` (its literal prefix and
//! replacement) and `SetPath`; the forwarded call asks for every endpoint of the target
//! under the resulting literal prefix (or for the one route, when the pattern has no
//! wildcard). Other predicates (`Host`, `Header`, …) and filters change no route and are
//! not read. A `uri` whose placeholder nothing sets leaves the route unresolved, said.

use std::collections::BTreeMap;

use super::annotations::join;
use super::rest_clients::{aim, destination, Destination};
use super::values::{eval_fixed, At};
use super::{
    Finding, Findings, Forward, GatewayRoute, Product, ProductFindings, Recogniser, RouteSource, RouteTarget,
};
use crate::facts::{CodeFile, Expr, MethodDecl, TypeDecl};
use crate::lang::config::ConfigKind;
use crate::resolve::MethodKey;

/// The configuration prefixes of the routes list.
const ROUTE_LISTS: &[&str] = &[
    "spring.cloud.gateway.routes[",
    "spring.cloud.gateway.server.webflux.routes[",
    "spring.cloud.gateway.mvc.routes[",
    "spring.cloud.gateway.server.webmvc.routes[",
];

pub(crate) struct Gateway;

/// A long-form predicate or filter: its `name` and its named `args`.
type LongForm = (String, Vec<(String, String)>);

/// A route as declared, before its targets are worked out.
#[derive(Debug, Default, Clone)]
struct Declared {
    id: String,
    uri: Option<String>,
    /// `Path` patterns.
    paths: Vec<String>,
    verbs: Vec<String>,
    /// Path filters, in order: (name, arguments).
    filters: Vec<(String, Vec<String>)>,
    /// Long-form predicates (`true`) and filters by index: their name and named arguments.
    long: BTreeMap<(bool, usize), LongForm>,
    line: u32,
}

impl Recogniser for Gateway {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            for m in &t.methods {
                let builds_routes = m
                    .return_type
                    .as_deref()
                    .is_some_and(|r| r.ends_with("RouteLocator"))
                    || m.params.iter().any(|p| p.ty.ends_with("RouteLocatorBuilder"));
                if !builds_routes {
                    continue;
                }
                for site in m.calls.iter().filter(|c| c.name == "route") {
                    let Some(Expr::Lambda(body)) = site.arg_values.last() else {
                        continue;
                    };
                    let at = At::in_method(&product.values, &file.path, t, m, site.byte);
                    let id = match site.arg_values.first() {
                        Some(e) if site.arg_values.len() == 2 => eval_fixed(e, &at).unwrap_or_default(),
                        _ => String::new(),
                    };
                    let Some(mut d) = dsl_route(body, &at) else {
                        out.warn(
                            &file.path,
                            Some(site.line as u32),
                            "gateway route: the route is not one the source fixes (a uri, path or filter that is no literal or constant)",
                        );
                        continue;
                    };
                    d.id = if id.is_empty() {
                        format!("{}#{}", m.name, site.line)
                    } else {
                        id
                    };
                    d.line = site.line as u32;
                    push_routes(&file.path, d_key(t, m), vec![d], out);
                }
            }
        }
    }

    fn product(&self, product: &Product<'_>, out: &mut ProductFindings) {
        let mut found: Vec<ConfiguredRoutes> = Vec::new();
        // (file, route index) → the route in each profile's document.
        for c in product
            .configs
            .iter()
            .filter(|c| c.parsed.kind != ConfigKind::Env && !c.file.rel.contains("src/test/"))
        {
            let mut routes: BTreeMap<(Option<String>, String), Declared> = BTreeMap::new();
            let mut uri_keys: BTreeMap<(Option<String>, String), String> = BTreeMap::new();
            for e in &c.parsed.entries {
                let Some((list, rest)) = ROUTE_LISTS
                    .iter()
                    .find_map(|p| e.key.strip_prefix(p).map(|r| (*p, r)))
                else {
                    continue;
                };
                let Some((index, field)) = rest.split_once(']') else {
                    continue;
                };
                let field = field.strip_prefix('.').unwrap_or(field);
                let slot = (e.profile.clone(), format!("{list}{index}"));
                let d = routes.entry(slot.clone()).or_insert_with(|| Declared {
                    id: index.to_string(),
                    line: e.line,
                    ..Declared::default()
                });
                let value = product.resolve(&c.file.rel, &e.value);
                match field {
                    "id" => d.id = value,
                    "uri" => {
                        d.uri = Some(value);
                        uri_keys.insert(slot, e.key.clone());
                    }
                    f if f.starts_with("predicates[") || f.starts_with("filters[") => {
                        read_shortcut_or_long(d, f, &value);
                    }
                    _ => {}
                }
            }
            for (slot, d) in routes {
                let id = d.id.clone();
                let Some(key) = uri_keys
                    .get(&slot)
                    .and_then(|k| product.config.in_file(&c.file.rel, k))
                else {
                    out.file(&c.file.rel).warn(
                        &c.file.rel,
                        Some(d.line),
                        format!(
                            "gateway route {}: no uri, so it forwards nowhere the configuration says",
                            d.id
                        ),
                    );
                    continue;
                };
                let owner = (product.service_of)(&c.file.rel).unwrap_or_else(|| c.file.rel.clone());
                let found_here = self::routes(
                    &c.file.rel,
                    RouteSource::Config(key),
                    vec![d],
                    out.file(&c.file.rel),
                );
                found.push(((owner, id), slot.0, c.file.rel.clone(), found_here));
            }
        }
        // One route per service and id across its files and profiles: Spring reads one
        // route list, a profile's replacing the default's, so a route declared in
        // `application.yml` and again in `application-docker.yml` is one endpoint with a
        // target per uri, declared by the default profile's key.
        found.sort_by_key(|(_, profile, ..)| profile.is_some());
        let mut merged: Vec<(String, GatewayRoute)> = Vec::new();
        let mut first_of: BTreeMap<(String, String), usize> = BTreeMap::new();
        for (route, _, file, routes) in found {
            match first_of.get(&route) {
                None => {
                    first_of.insert(route, merged.len());
                    merged.extend(routes.into_iter().map(|r| (file.clone(), r)));
                }
                Some(&start) => {
                    for r in routes {
                        let same = merged[start..]
                            .iter_mut()
                            .find(|(_, m)| m.id == r.id && m.path == r.path && m.verbs == r.verbs);
                        match same {
                            Some((_, m)) => {
                                for t in r.targets {
                                    if !m.targets.contains(&t) {
                                        m.targets.push(t);
                                    }
                                }
                            }
                            None => merged.push((file.clone(), r)),
                        }
                    }
                }
            }
        }
        for (file, r) in merged {
            out.file(&file).push(Finding::Gateway(r));
        }
    }
}

/// The routes one config file declares under one id: (service or file, route id), the
/// profile of the document, the file, and its routes.
type ConfiguredRoutes = ((String, String), Option<String>, String, Vec<GatewayRoute>);

fn d_key(t: &TypeDecl, m: &MethodDecl) -> RouteSource {
    RouteSource::Method(MethodKey::of(t, m))
}

/// Reads one `predicates[j]…`/`filters[j]…` entry into the route.
fn read_shortcut_or_long(d: &mut Declared, field: &str, value: &str) {
    let predicate = field.starts_with("predicates[");
    let Some((index, rest)) = field.split_once('[').and_then(|(_, r)| r.split_once(']')) else {
        return;
    };
    match rest.strip_prefix('.') {
        // Shortcut: `Path=/a/**,/b/**`.
        None if rest.is_empty() => {
            let Some((name, args)) = value.split_once('=') else {
                return;
            };
            let args: Vec<String> = split_args(name.trim(), args);
            apply(d, predicate, name.trim(), args);
        }
        None => {}
        // Long form: `name: Path` and `args.patterns[0]: /a/**`, applied once all is read.
        Some(sub) => {
            let Ok(i) = index.parse::<usize>() else {
                return;
            };
            let slot = d.long.entry((predicate, i)).or_default();
            if sub == "name" {
                slot.0 = value.to_string();
            } else if let Some(arg) = sub.strip_prefix("args.") {
                let arg = arg.split('[').next().unwrap_or(arg);
                slot.1.push((arg.to_string(), value.to_string()));
            }
        }
    }
}

/// `RewritePath=/a/(?<s>.*), /$\{s}` keeps its comma-separated pair; others split on commas.
fn split_args(name: &str, args: &str) -> Vec<String> {
    let parts: Vec<String> = args.split(',').map(|a| a.trim().to_string()).collect();
    if name == "RewritePath" && parts.len() > 2 {
        // A comma inside the regex: the replacement is the last part.
        let (last, first) = parts
            .split_last()
            .map(|(l, f)| (l.clone(), f.join(",")))
            .unwrap_or_default();
        return vec![first, last];
    }
    parts
}

/// The arguments of a long-form predicate or filter, in the order its shortcut takes them.
fn long_args(name: &str, args: &[(String, String)]) -> Vec<String> {
    let named = |keys: &[&str]| -> Vec<String> {
        args.iter()
            .filter(|(k, _)| keys.contains(&k.as_str()) || k.starts_with("_genkey_"))
            .map(|(_, v)| v.clone())
            .collect()
    };
    match name {
        "Path" => named(&["patterns", "pattern"]),
        "Method" => named(&["methods", "method"]),
        "StripPrefix" => named(&["parts"]),
        "PrefixPath" => named(&["prefix"]),
        "SetPath" => named(&["template"]),
        "RewritePath" => {
            let get = |k: &str| args.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            match (get("regexp"), get("replacement")) {
                (Some(r), Some(p)) => vec![r, p],
                _ => named(&[]),
            }
        }
        _ => Vec::new(),
    }
}

/// Records a predicate or a path filter.
fn apply(d: &mut Declared, predicate: bool, name: &str, args: Vec<String>) {
    if predicate {
        match name {
            "Path" => d.paths.extend(args.into_iter().filter(|a| !a.is_empty())),
            "Method" => d.verbs.extend(
                args.into_iter()
                    .map(|a| a.to_uppercase())
                    .filter(|a| !a.is_empty()),
            ),
            _ => {}
        }
    } else if matches!(name, "StripPrefix" | "PrefixPath" | "RewritePath" | "SetPath") {
        d.filters.push((name.to_string(), args));
    }
}

/// The long forms, applied once every entry of the route is read (predicates first, each
/// kind in index order, after the shortcuts of the same kind).
fn finish(mut d: Declared) -> Declared {
    for ((predicate, _), (name, args)) in std::mem::take(&mut d.long) {
        let args = long_args(&name, &args);
        apply(&mut d, predicate, &name, args);
    }
    d
}

/// The literal prefix of a path pattern (up to the first segment with a wildcard or a
/// variable) and whether the pattern is that path exactly.
fn literal_prefix(pattern: &str) -> (String, bool) {
    let mut out = String::new();
    for segment in pattern.split('/').filter(|s| !s.is_empty()) {
        if segment.contains(['*', '{', '?']) {
            return (if out.is_empty() { "/".into() } else { out }, false);
        }
        out.push('/');
        out.push_str(segment);
    }
    (if out.is_empty() { "/".into() } else { out }, true)
}

/// The literal start of a regular expression (before its first metacharacter).
fn regex_literal(re: &str) -> String {
    re.chars()
        .take_while(|c| {
            !matches!(
                c,
                '(' | '.' | '*' | '+' | '?' | '[' | '\\' | '^' | '$' | '|' | '{'
            )
        })
        .collect()
}

/// What the target receives for `pattern` after the path filters.
fn forward(pattern: &str, filters: &[(String, Vec<String>)]) -> Forward {
    let (mut path, mut exact) = literal_prefix(pattern);
    for (name, args) in filters {
        let first = args.first().map(String::as_str).unwrap_or("");
        match name.as_str() {
            "StripPrefix" => {
                let n: usize = first.trim().parse().unwrap_or(1);
                let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
                if segments.len() < n {
                    // More stripped than the pattern fixes: any route may follow.
                    path = "/".into();
                    exact = false;
                } else {
                    path = format!("/{}", segments[n..].join("/"));
                }
            }
            "PrefixPath" => path = join(first, &path),
            "RewritePath" => {
                let literal = regex_literal(first);
                let replacement = args.get(1).map(String::as_str).unwrap_or("");
                let replacement = replacement.split('$').next().unwrap_or("");
                let with_slash = format!("{}/", path.trim_end_matches('/'));
                if let Some(rest) = with_slash.strip_prefix(literal.as_str()) {
                    path = join(replacement, rest);
                } else if literal.starts_with(&with_slash) || literal.is_empty() {
                    path = join(replacement, "");
                    exact = false;
                }
            }
            "SetPath" => {
                let (p, e) = literal_prefix(first);
                path = p;
                exact = e;
            }
            _ => {}
        }
    }
    if exact {
        Forward::Exact(path)
    } else {
        Forward::Prefix(path)
    }
}

/// The routes one declaration makes: one per `Path` pattern, forwarding to its `uri`.
fn push_routes(file: &str, source: RouteSource, declared: Vec<Declared>, out: &mut Findings) {
    for r in routes(file, source, declared, out) {
        out.push(Finding::Gateway(r));
    }
}

/// The routes `declared` gives, one per `Path` pattern; an unresolved target is said in `out`.
fn routes(file: &str, source: RouteSource, declared: Vec<Declared>, out: &mut Findings) -> Vec<GatewayRoute> {
    let mut found = Vec::new();
    for d in declared.into_iter().map(finish) {
        let uri = d.uri.clone().unwrap_or_default();
        let paths = if d.paths.is_empty() {
            vec!["/**".to_string()]
        } else {
            d.paths.clone()
        };
        for pattern in paths {
            let fwd = forward(&pattern, &d.filters);
            let target = route_target(&uri, fwd);
            if let Some(why) = &target.unresolved {
                out.stat("http-calls.unresolved", 1);
                out.warn(
                    file,
                    Some(d.line),
                    format!(
                        "gateway route {}: {why}; kept unresolved, linked to nothing",
                        d.id
                    ),
                );
            }
            found.push(GatewayRoute {
                id: d.id.clone(),
                verbs: d.verbs.clone(),
                path: pattern,
                file: file.to_string(),
                line: d.line,
                declared_by: source.clone(),
                targets: vec![target],
            });
        }
    }
    found
}

/// Where a route's `uri` forwards.
fn route_target(uri: &str, forward: Forward) -> RouteTarget {
    let unresolved = |why: String| RouteTarget {
        uri: uri.to_string(),
        target: String::new(),
        port: None,
        external: false,
        forward: forward.clone(),
        unresolved: Some(why),
    };
    if uri.contains("${") {
        return unresolved(format!("its uri {uri} names a key no config of its module sets"));
    }
    // `lb:ws://service`: the scheme after `lb:` is the protocol.
    let normal = uri
        .strip_prefix("lb:")
        .filter(|r| !r.starts_with("//"))
        .unwrap_or(uri);
    if normal.starts_with("forward:") || normal.starts_with("no://") {
        return unresolved(format!("its uri {uri} forwards inside the gateway"));
    }
    match destination(normal) {
        Destination::Host { host, port, .. } => {
            let a = aim(&host, port);
            RouteTarget {
                uri: uri.to_string(),
                target: a.target,
                port: a.port,
                external: a.external,
                forward,
                unresolved: None,
            }
        }
        _ => unresolved(format!("its uri {uri} names no host")),
    }
}

/// A route of the Java DSL: `r.path(…).and().method(…).filters(f -> …).uri(…)`.
fn dsl_route(body: &Expr, at: &At<'_>) -> Option<Declared> {
    let mut d = Declared::default();
    let mut cur = body;
    let mut steps: Vec<(&str, &[Expr])> = Vec::new();
    while let Expr::Call { recv, name, args } = cur {
        steps.push((name.as_str(), args.as_slice()));
        match recv {
            Some(r) if steps.len() < 64 => cur = r,
            _ => break,
        }
    }
    let text = |e: &Expr| eval_fixed(e, at);
    for (name, args) in steps.into_iter().rev() {
        match name {
            "path" => {
                for a in args {
                    d.paths.push(text(a)?);
                }
            }
            "method" => {
                for a in args {
                    let verb = match a {
                        Expr::Field(_, n) | Expr::Name(n) => n.to_uppercase(),
                        e => text(e)?.to_uppercase(),
                    };
                    d.verbs.push(verb);
                }
            }
            "uri" => d.uri = Some(text(args.first()?)?),
            "filters" => {
                let Some(Expr::Lambda(f)) = args.first() else {
                    return None;
                };
                let mut fcur = f.as_ref();
                let mut fsteps: Vec<(&str, &[Expr])> = Vec::new();
                while let Expr::Call { recv, name, args } = fcur {
                    fsteps.push((name.as_str(), args.as_slice()));
                    match recv {
                        Some(r) if fsteps.len() < 64 => fcur = r,
                        _ => break,
                    }
                }
                for (fname, fargs) in fsteps.into_iter().rev() {
                    let filter = match fname {
                        "stripPrefix" => "StripPrefix",
                        "prefixPath" => "PrefixPath",
                        "rewritePath" => "RewritePath",
                        "setPath" => "SetPath",
                        _ => continue,
                    };
                    let values: Option<Vec<String>> = fargs.iter().map(text).collect();
                    d.filters.push((filter.to_string(), values?));
                }
            }
            _ => {}
        }
    }
    d.uri.as_ref()?;
    Some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::testing::check;

    #[test]
    fn filters_say_what_the_target_receives() {
        let f = |pattern: &str, filters: &[(&str, &[&str])]| {
            let filters: Vec<(String, Vec<String>)> = filters
                .iter()
                .map(|(n, a)| (n.to_string(), a.iter().map(|x| x.to_string()).collect()))
                .collect();
            forward(pattern, &filters)
        };
        assert_eq!(f("/api/billing/**", &[]), Forward::Prefix("/api/billing".into()));
        assert_eq!(
            f("/api/billing/**", &[("StripPrefix", &["1"])]),
            Forward::Prefix("/billing".into())
        );
        assert_eq!(
            f("/api/billing/**", &[("StripPrefix", &["2"])]),
            Forward::Prefix("/".into())
        );
        assert_eq!(
            f("/b/**", &[("StripPrefix", &["3"])]),
            Forward::Prefix("/".into())
        );
        assert_eq!(
            f("/health", &[("PrefixPath", &["/internal"])]),
            Forward::Exact("/internal/health".into())
        );
        assert_eq!(
            f(
                "/api/billing/**",
                &[("RewritePath", &["/api/billing/(?<segment>.*)", "/v2/${segment}"])]
            ),
            Forward::Prefix("/v2".into())
        );
        assert_eq!(
            f("/api/{tenant}/orders/**", &[]),
            Forward::Prefix("/api".into()),
            "a variable ends the literal prefix"
        );
        assert_eq!(
            f("/x/**", &[("SetPath", &["/status"])]),
            Forward::Exact("/status".into())
        );
    }

    #[test]
    fn configured_and_java_routes_are_gateway_endpoints_that_forward() {
        check(
            r#"
//- /gateway/src/main/resources/application.yml
spring:
  application:
    name: gateway
  cloud:
    gateway:
      routes:
        - id: billing
          uri: lb://billing-service
          predicates:
            - Path=/api/billing/**,/billing-legacy/**
            - Method=GET,POST
          filters:
            - StripPrefix=1
        - id: stock
          uri: ${stock.uri:http://localhost:8085}
          predicates:
            - name: Path
              args:
                patterns: /stock/**
          filters:
            - name: RewritePath
              args:
                regexp: /stock/(?<rest>.*)
                replacement: /api/stock/${rest}
        - id: docs
          uri: https://docs.partner.example
          predicates:
            - Path=/docs/**
        - id: broken
          uri: ${missing.uri}
          predicates:
            - Path=/broken/**
        - id: nowhere
          predicates:
            - Path=/nowhere/**
//- /gateway/src/main/java/g/Routes.java
package g;
class Routes {
    static final String ORDERS = "lb://orders-service";
    RouteLocator routes(RouteLocatorBuilder builder) {
        return builder.routes()
            .route("orders", r -> r.path("/api/orders/**").filters(f -> f.stripPrefix(1).prefixPath("/v1")).uri(ORDERS))
            .route(r -> r.host("*.example").uri(dynamicUri()))
            .build();
    }
    void notRoutes(Map<String, String> m) { m.put("x", "y"); }
}
//- /gateway/src/test/resources/application.yml
spring.cloud.gateway.routes[0].uri: lb://test-only
"#,
            r#"
gateway orders ANY /api/orders/** -> orders-service prefix /v1/orders by g.Routes.routes (gateway/src/main/java/g/Routes.java:5)
warning gateway/src/main/java/g/Routes.java:5: gateway route: the route is not one the source fixes (a uri, path or filter that is no literal or constant)
gateway billing GET,POST /api/billing/** -> billing-service prefix /billing by config (gateway/src/main/resources/application.yml:7)
gateway billing GET,POST /billing-legacy/** -> billing-service prefix / by config (gateway/src/main/resources/application.yml:7)
gateway stock ANY /stock/** -> localhost:8085 port=8085 prefix /api/stock by config (gateway/src/main/resources/application.yml:14)
gateway docs ANY /docs/** -> docs.partner.example external prefix /docs by config (gateway/src/main/resources/application.yml:25)
gateway broken ANY /broken/** ->  unresolved prefix /broken by config (gateway/src/main/resources/application.yml:29)
warning gateway/src/main/resources/application.yml:29: gateway route broken: its uri ${missing.uri} names a key no config of its module sets; kept unresolved, linked to nothing
warning gateway/src/main/resources/application.yml:33: gateway route nowhere: no uri, so it forwards nowhere the configuration says
"#,
        );
    }

    #[test]
    fn a_route_declared_again_in_a_profile_is_one_endpoint_with_a_target_per_uri() {
        check(
            r#"
//- /gateway/src/main/resources/application.yml
spring:
  application:
    name: gateway
  cloud.gateway.routes:
    - id: billing
      uri: lb://billing-service
      predicates:
        - Path=/api/billing/**
//- /gateway/src/main/resources/application-docker.yml
spring.cloud.gateway.routes:
  - id: billing
    uri: http://billing-core:8081
    predicates:
      - Path=/api/billing/**
  - id: users
    uri: lb://users-service
    predicates:
      - Path=/api/users/**
"#,
            // One endpoint per route (its targets a line each), declared by the default
            // profile's key; a route only a profile declares is its own.
            r#"
gateway billing ANY /api/billing/** -> billing-service prefix /api/billing by config (gateway/src/main/resources/application.yml:5)
  gateway billing ANY /api/billing/** -> billing-core prefix /api/billing by config (gateway/src/main/resources/application.yml:5)
gateway users ANY /api/users/** -> users-service prefix /api/users by config (gateway/src/main/resources/application-docker.yml:6)
"#,
        );
    }
}
