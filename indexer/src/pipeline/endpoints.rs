//! HTTP endpoints from Java annotations: Spring MVC and WebFlux controllers (class-level
//! prefixes, `value`/`path`, arrays of paths, `@RequestMapping(method = …)`), JAX-RS
//! resources (`@Path` + `@GET`…), and servlets declared with `@WebServlet`.
//!
//! Each endpoint is a node served by its handler method and anchored by its service, verb
//! and route, so outbound calls of any product can find it by service name — never by
//! path alone — and wiki pages by verb and route.

use semgraph_storage::{EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter};

use super::ProductRun;
use crate::error::IndexError;
use crate::java::{Annotation, JavaFile, MethodDecl, MethodKey, TypeDecl, TypeKind};
use crate::keys;

const SPRING_VERBS: &[(&str, &str)] = &[
    ("GetMapping", "GET"),
    ("PostMapping", "POST"),
    ("PutMapping", "PUT"),
    ("DeleteMapping", "DELETE"),
    ("PatchMapping", "PATCH"),
];
const JAXRS_VERBS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];
pub(super) const SERVLET_METHODS: &[(&str, &str)] = &[
    ("doGet", "GET"),
    ("doPost", "POST"),
    ("doPut", "PUT"),
    ("doDelete", "DELETE"),
    ("doPatch", "PATCH"),
];

/// The short name of an annotation written `a.b.Name` or `Name`.
pub(super) fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The annotation called `name` (short name), if present.
pub(super) fn find<'a>(annotations: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    annotations.iter().find(|a| short(&a.name) == name)
}

/// Every value of the attributes `keys` of `a`, arrays flattened.
pub(super) fn values(a: &Annotation, keys: &[&str]) -> Vec<String> {
    a.args
        .iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .flat_map(|(_, v)| v.iter().cloned())
        .collect()
}

/// `prefix` + `path`, with exactly one slash between and a leading slash.
pub(super) fn join(prefix: &str, path: &str) -> String {
    let joined = format!(
        "{}/{}",
        prefix.trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    let joined = joined.trim_end_matches('/');
    if joined.starts_with('/') {
        joined.to_string()
    } else {
        format!("/{joined}")
    }
}

/// One route a handler serves.
struct Route {
    verb: String,
    path: String,
    kind: &'static str,
}

fn spring_routes(t: &TypeDecl, m: &MethodDecl) -> Vec<Route> {
    let is_controller = t.kind == TypeKind::Class
        && (find(&t.annotations, "RestController").is_some() || find(&t.annotations, "Controller").is_some());
    if !is_controller {
        return Vec::new();
    }
    let mut prefixes = find(&t.annotations, "RequestMapping")
        .map(|a| values(a, &["value", "path"]))
        .unwrap_or_default();
    if prefixes.is_empty() {
        prefixes.push(String::new());
    }
    let reactive = m
        .return_type
        .as_deref()
        .is_some_and(|r| r.starts_with("Mono") || r.starts_with("Flux"));
    let kind = if reactive { "webflux" } else { "spring-mvc" };
    mapping_routes(&m.annotations, &prefixes)
        .into_iter()
        .map(|(verb, path)| Route { verb, path, kind })
        .collect()
}

/// The (verb, path) pairs that Spring mapping annotations declare, under `prefixes`:
/// `@GetMapping` and its siblings, `@RequestMapping(method = …)` (verb `ANY` without one),
/// `value`/`path` and arrays of paths.
pub(super) fn mapping_routes(annotations: &[Annotation], prefixes: &[String]) -> Vec<(String, String)> {
    let mut routes = Vec::new();
    for a in annotations {
        let name = short(&a.name);
        let verbs: Vec<String> = if let Some((_, verb)) = SPRING_VERBS.iter().find(|(n, _)| *n == name) {
            vec![verb.to_string()]
        } else if name == "RequestMapping" {
            let methods: Vec<String> = values(a, &["method"])
                .iter()
                .map(|v| v.rsplit('.').next().unwrap_or(v).to_uppercase())
                .collect();
            if methods.is_empty() {
                vec!["ANY".to_string()]
            } else {
                methods
            }
        } else {
            continue;
        };
        let mut paths = values(a, &["value", "path"]);
        if paths.is_empty() {
            paths.push(String::new());
        }
        for prefix in prefixes {
            for path in &paths {
                for verb in &verbs {
                    routes.push((verb.clone(), join(prefix, path)));
                }
            }
        }
    }
    routes
}

fn jaxrs_routes(t: &TypeDecl, m: &MethodDecl) -> Vec<Route> {
    let Some(class_path) = find(&t.annotations, "Path").map(|a| values(a, &["value"])) else {
        return Vec::new();
    };
    let prefix = class_path.first().cloned().unwrap_or_default();
    let Some(verb) = m
        .annotations
        .iter()
        .map(|a| short(&a.name))
        .find(|n| JAXRS_VERBS.contains(n))
    else {
        return Vec::new();
    };
    let path = find(&m.annotations, "Path")
        .and_then(|a| values(a, &["value"]).first().cloned())
        .unwrap_or_default();
    vec![Route {
        verb: verb.to_string(),
        path: join(&prefix, &path),
        kind: "jax-rs",
    }]
}

fn servlet_routes(t: &TypeDecl, m: &MethodDecl) -> Vec<Route> {
    let Some(servlet) = find(&t.annotations, "WebServlet") else {
        return Vec::new();
    };
    if !t.extends.iter().any(|e| short(e) == "HttpServlet") {
        return Vec::new();
    }
    let Some((_, verb)) = SERVLET_METHODS.iter().find(|(n, _)| *n == m.name) else {
        return Vec::new();
    };
    values(servlet, &["value", "urlPatterns"])
        .iter()
        .map(|p| Route {
            verb: verb.to_string(),
            path: join("", p),
            kind: "servlet",
        })
        .collect()
}

/// Writes the endpoints declared in `file`, each served by its handler and contained by
/// the service the file belongs to.
pub(super) fn write_endpoints(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    file: &JavaFile,
    service: Option<(NodeId, &str)>,
    method_node: &dyn Fn(&MethodKey) -> Option<NodeId>,
) -> Result<(), IndexError> {
    for t in &file.types {
        for m in &t.methods {
            let mut routes = spring_routes(t, m);
            routes.extend(jaxrs_routes(t, m));
            routes.extend(servlet_routes(t, m));
            if routes.is_empty() {
                continue;
            }
            let key = super::code::method_key(t, m);
            let Some(handler) = method_node(&key) else {
                continue;
            };
            for route in routes {
                add_endpoint(
                    run,
                    w,
                    &NewEndpoint {
                        verb: &route.verb,
                        path: &route.path,
                        kind: route.kind,
                        file: &file.path,
                        lines: (m.line_start, m.line_end),
                        handler_name: &format!("{}.{}", t.fqn, m.name),
                        handler,
                        service,
                    },
                )?;
            }
        }
    }
    Ok(())
}

/// One endpoint to write: its route, where it is declared and what serves it.
pub(super) struct NewEndpoint<'a> {
    pub(super) verb: &'a str,
    pub(super) path: &'a str,
    /// `spring-mvc`, `webflux`, `jax-rs`, `servlet`, `openapi`, `data-rest`.
    pub(super) kind: &'a str,
    pub(super) file: &'a str,
    pub(super) lines: (usize, usize),
    pub(super) handler_name: &'a str,
    /// The method (or, for Spring Data REST, the repository type) that serves it.
    pub(super) handler: NodeId,
    pub(super) service: Option<(NodeId, &'a str)>,
}

/// Writes an Endpoint node served by its handler, contained by its service and anchored
/// by service + verb + route (and by verb + route for mentions).
pub(super) fn add_endpoint(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    e: &NewEndpoint<'_>,
) -> Result<NodeId, IndexError> {
    let name = format!("{} {}", e.verb, e.path);
    let mut node = NewNode::new(NodeKind::Endpoint, &name)
        .fqn(&name)
        .at(e.file, e.lines.0 as u32, e.lines.1 as u32)
        .attr("verb", e.verb)
        .attr("path", e.path)
        .attr("kind", e.kind)
        .attr("handler", e.handler_name);
    if let Some((_, service_name)) = e.service {
        node = node.attr("service", service_name);
    }
    let id = run.add(w, node)?;
    w.add_edge(id, EdgeKind::Serves, e.handler)?;
    w.add_anchor(id, &keys::http_route(e.verb, e.path))?;
    if let Some((service_node, service_name)) = e.service {
        w.add_edge(service_node, EdgeKind::Contains, id)?;
        w.add_anchor(id, &keys::http_endpoint(service_name, e.verb, e.path))?;
    }
    run.stat("endpoints", 1);
    Ok(id)
}

/// Outbound calls of an OpenFeign client: every mapped method of a `@FeignClient`
/// interface is an `HttpCall` to its service (`name`/`value`), called by that method and
/// asking for the endpoint with the same service, verb and route. A client with an
/// explicit `url` calls outside the company: its calls stay boundaries to that host.
pub(super) fn write_feign_calls(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    file: &JavaFile,
    method_node: &dyn Fn(&MethodKey) -> Option<NodeId>,
    resolve: &dyn Fn(&str) -> String,
) -> Result<(), IndexError> {
    for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
        let Some(client) = find(&t.annotations, "FeignClient") else {
            continue;
        };
        let Some(service) = values(client, &["name", "value"]).first().map(|s| resolve(s)) else {
            continue;
        };
        let url = values(client, &["url"])
            .first()
            .map(|u| resolve(u))
            .filter(|u| !u.is_empty());
        let prefix = values(client, &["path"]).first().cloned().unwrap_or_default();
        for m in &t.methods {
            let routes = mapping_routes(&m.annotations, std::slice::from_ref(&prefix));
            if routes.is_empty() {
                continue;
            }
            let key = super::code::method_key(t, m);
            let Some(caller) = method_node(&key) else {
                continue;
            };
            for (verb, path) in routes {
                let target = url
                    .as_deref()
                    .and_then(|u| u.split("://").nth(1))
                    .and_then(|rest| rest.split(['/', ':']).next())
                    .unwrap_or(&service)
                    .to_string();
                let call = run.add(
                    w,
                    NewNode::new(NodeKind::HttpCall, format!("{verb} {path}"))
                        .fqn(format!("{} {verb} {path}", target))
                        .at(&file.path, m.line_start as u32, m.line_end as u32)
                        .attr("verb", &verb)
                        .attr("url", format!("{}{path}", url.as_deref().unwrap_or("")))
                        .attr("target-service", &target)
                        .attr("client", "feign")
                        .attr("caller", format!("{}.{}", t.fqn, m.name)),
                )?;
                w.add_edge(caller, EdgeKind::Calls, call)?;
                if url.is_none() {
                    w.add_link(
                        call,
                        EdgeKind::Invokes,
                        &keys::http_endpoint(&service, &verb, &path),
                        LinkPolicy::Unique,
                    )?;
                }
                run.stat("http-calls", 1);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn paths_join_with_one_slash() {
        assert_eq!(join("/api/orders", "/{id}"), "/api/orders/{id}");
        assert_eq!(join("/api/orders/", ""), "/api/orders");
        assert_eq!(join("", "search"), "/search");
        assert_eq!(join("", ""), "/");
    }
}
