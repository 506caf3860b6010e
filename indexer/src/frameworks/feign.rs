//! OpenFeign clients: every mapped method of a `@FeignClient` interface is an outbound
//! call to its service, asking for the endpoint with the same service, verb and route.
//!
//! The client's `name`/`value`/`serviceId`, `url` and `path` are evaluated by the one
//! value evaluator — literals, constants of any type of the product (`ServiceNames.BILLING`,
//! an interface of another module), concatenations — then resolved through the module's
//! configuration (`${…}` with defaults); `contextId` only names the bean. Routes come from
//! Spring's mapping annotations (their paths evaluated the same way) or from Feign's own
//! contract, `@RequestLine("GET /path")`, which also serves interfaces built by hand with
//! `Feign.builder()….target(Api.class, url)`.
//!
//! Where the call goes: without `url`, the named service; with one, its host — a service
//! name, a local host with a port (the service of the company on that port), or a host
//! outside the company (a boundary). A name or URL whose placeholder nothing sets leaves
//! the target unknown: every method is still a call, kept unresolved.

use super::annotations::{find, short};
use super::rest_clients::{aim, destination, Destination};
use super::values::{annotation_values, eval_candidates, At};
use super::{Finding, Findings, HttpCall, Product, Recogniser};
use crate::facts::{Annotation, CodeFile, Expr, MethodDecl, TypeDecl, TypeKind};
use crate::resolve::{MethodKey, ResolvedCall};

/// The verb each Spring mapping shortcut stands for.
const VERBS: &[(&str, &str)] = &[
    ("GetMapping", "GET"),
    ("PostMapping", "POST"),
    ("PutMapping", "PUT"),
    ("DeleteMapping", "DELETE"),
    ("PatchMapping", "PATCH"),
];

pub(crate) struct Feign;

/// Where a client's calls go.
enum Base {
    /// A service by name (discovery, `lb://`).
    Service(String),
    /// An explicit URL: its candidates (one per value the source may give it).
    Urls(Vec<String>),
    /// Not fixed: why.
    Unknown(String),
}

impl Recogniser for Feign {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
            let Some(client) = find(&t.annotations, "FeignClient") else {
                continue;
            };
            let attr = |key: &str| -> Option<Result<String, String>> {
                let values = match annotation_values(&product.values, file, t, client, key) {
                    Some(v) => v,
                    None if client.exprs.iter().any(|(k, _)| k == key) => {
                        return Some(Err(format!(
                            "@FeignClient {key} of {} is not a literal or constant the source fixes",
                            t.name
                        )))
                    }
                    None => return None,
                };
                let written = values.first()?.clone();
                let resolved = product.resolve(&file.path, &written);
                Some(if resolved.contains("${") {
                    Err(format!(
                        "@FeignClient {key} of {} is {written}, which no config of its module sets",
                        t.name
                    ))
                } else {
                    Ok(resolved)
                })
            };
            let name = ["name", "value", "serviceId"].iter().find_map(|k| attr(k));
            let base = match (attr("url"), name) {
                (Some(Ok(url)), _) if !url.is_empty() => Base::Urls(vec![url]),
                (Some(Err(why)), _) => Base::Unknown(why),
                (_, Some(Ok(service))) if !service.is_empty() => Base::Service(service),
                (_, Some(Err(why))) => Base::Unknown(why),
                _ => Base::Unknown(format!("@FeignClient {} names no service and no url", t.name)),
            };
            let prefix = match attr("path") {
                Some(Ok(p)) => p,
                Some(Err(why)) => {
                    out.warn(&file.path, Some(t.line_start as u32), why);
                    String::new()
                }
                None => String::new(),
            };
            client_calls(product, &file.path, file, t, &base, &prefix, out);
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, _calls: &[ResolvedCall], out: &mut Findings) {
        // `Feign.builder()….target(Api.class, url)`: the interface's `@RequestLine`s go to url.
        for t in &file.types {
            for m in &t.methods {
                for site in m
                    .calls
                    .iter()
                    .filter(|c| c.name == "target" && c.arg_values.len() == 2)
                {
                    if !built_by_feign(&site.receiver) {
                        continue;
                    }
                    let Some(api) = site.arg_texts[0].strip_suffix(".class") else {
                        continue;
                    };
                    let Some(api) = product
                        .table
                        .resolve_type(api.trim(), &t.fqn)
                        .and_then(|r| product.type_decl(&r.fqn))
                    else {
                        continue;
                    };
                    let at = At::in_method(&product.values, &file.path, t, m, site.byte);
                    let urls = eval_candidates(&site.arg_values[1], &at);
                    let base = if urls.is_empty() {
                        Base::Unknown(format!(
                            "the URL of Feign.builder().target({}.class, …) is not one the source fixes",
                            api.name
                        ))
                    } else {
                        Base::Urls(urls)
                    };
                    // The calls are the interface's methods, written in its own file.
                    let api_file = product
                        .skeletons
                        .iter()
                        .find(|f| f.types.iter().any(|x| x.fqn == api.fqn))
                        .map_or(file.path.as_str(), |f| f.path.as_str());
                    client_calls(product, api_file, file, api, &base, "", out);
                }
            }
        }
    }
}

/// Whether a receiver chain starts at `Feign.builder()` (or a Feign builder subclass's).
fn built_by_feign(r: &crate::facts::Receiver) -> bool {
    use crate::facts::Receiver;
    let mut cur = r;
    for _ in 0..64 {
        match cur {
            Receiver::Call(c) if c.name == "builder" => {
                return matches!(&c.receiver, Receiver::Name(n) if n.ends_with("Feign"));
            }
            Receiver::Call(c) => cur = &c.receiver,
            _ => return false,
        }
    }
    false
}

/// One HTTP call per route of each method of client interface `t`, declared in file
/// `declared_in`; `file` is where its constants are looked up from.
fn client_calls(
    product: &Product<'_>,
    declared_in: &str,
    file: &CodeFile,
    t: &TypeDecl,
    base: &Base,
    prefix: &str,
    out: &mut Findings,
) {
    let mut said: Vec<String> = Vec::new();
    for m in &t.methods {
        for (verb, path) in routes(product, file, t, m, prefix) {
            let mut planned: Vec<Planned> = Vec::new();
            match base {
                Base::Service(service) => {
                    planned.push((path.clone(), path.clone(), service.clone(), false, None, None))
                }
                Base::Unknown(why) => planned.push((
                    path.clone(),
                    path.clone(),
                    String::new(),
                    false,
                    None,
                    Some(why.clone()),
                )),
                Base::Urls(urls) => {
                    for url in urls {
                        let full = format!("{}{path}", url.trim_end_matches('/'));
                        match destination(&full) {
                            Destination::Host { host, port, .. } => {
                                let a = aim(&host, port);
                                // A service's route is what it serves: the URL's path is a
                                // context prefix of the client's route (not for hosts
                                // outside the company, which only show the client's route).
                                let route = if a.external {
                                    path.clone()
                                } else {
                                    super::annotations::join(&url_path(url), &path)
                                };
                                planned.push((full, route, a.target, a.external, a.port, None));
                            }
                            _ => planned.push((
                                full,
                                path.clone(),
                                String::new(),
                                false,
                                None,
                                Some(format!(
                                    "the Feign client URL {url} names no host the source fixes"
                                )),
                            )),
                        }
                    }
                }
            }
            for (url, route, target, external, port, unresolved) in planned {
                if let Some(why) = &unresolved {
                    out.stat("http-calls.unresolved", 1);
                    if !said.contains(why) {
                        out.warn(
                            declared_in,
                            Some(t.line_start as u32),
                            format!("{why}; its calls are kept unresolved, linked to nothing"),
                        );
                        said.push(why.clone());
                    }
                }
                out.push(Finding::HttpCall(HttpCall {
                    caller: MethodKey::of(t, m),
                    caller_name: format!("{}.{}", t.fqn, m.name),
                    verb: verb.clone(),
                    path: route,
                    url,
                    links: unresolved.is_none() && !external,
                    target,
                    client: "feign",
                    file: declared_in.to_string(),
                    lines: (m.line_start, m.line_end),
                    test: false,
                    external,
                    port,
                    unresolved,
                    from_service_root: false,
                }));
            }
        }
    }
}

/// One call of a client method before it is written: URL, route, target, whether the
/// target is outside the company, the port of a local URL, and why it is unresolved.
type Planned = (String, String, String, bool, Option<u16>, Option<String>);

/// The path part of a URL (`https://api.partner.example/v1` → `/v1`).
fn url_path(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    match rest.find('/') {
        Some(i) => rest[i..].split(['?', '#']).next().unwrap_or("").to_string(),
        None => String::new(),
    }
}

/// The (verb, path) routes method `m` declares under `prefix`: Spring's mapping annotations
/// (paths evaluated, so `@GetMapping(Paths.STOCK)` is the constant's value) or Feign's
/// `@RequestLine("VERB /path?query")`.
fn routes(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    m: &MethodDecl,
    prefix: &str,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for a in &m.annotations {
        let name = short(&a.name);
        if name == "RequestLine" {
            let Some(line) =
                annotation_values(&product.values, file, t, a, "value").and_then(|v| v.first().cloned())
            else {
                continue;
            };
            let line = product.resolve(&file.path, &line);
            let mut words = line.split_whitespace();
            let (Some(verb), Some(path)) = (words.next(), words.next()) else {
                continue;
            };
            let path = path.split(['?', '#']).next().unwrap_or("");
            out.push((verb.to_uppercase(), super::annotations::join(prefix, path)));
            continue;
        }
        let verbs: Vec<String> = if let Some((_, verb)) = VERBS.iter().find(|(n, _)| *n == name) {
            vec![verb.to_string()]
        } else if name == "RequestMapping" {
            let methods = method_names(a);
            if methods.is_empty() {
                // Spring Cloud OpenFeign's contract sends a mapping that names no method as
                // a GET (`SpringMvcContract`): the call is a GET, not one of "any" verb.
                vec!["GET".to_string()]
            } else {
                methods
            }
        } else {
            continue;
        };
        let mut paths = Vec::new();
        for key in ["value", "path"] {
            if let Some(v) = annotation_values(&product.values, file, t, a, key) {
                paths.extend(v.into_iter().map(|p| product.resolve(&file.path, &p)));
            }
        }
        if paths.is_empty() {
            paths.push(String::new());
        }
        for path in &paths {
            for verb in &verbs {
                out.push((verb.clone(), super::annotations::join(prefix, path)));
            }
        }
    }
    out
}

/// `method = RequestMethod.GET` or `{GET, POST}`.
fn method_names(a: &Annotation) -> Vec<String> {
    a.exprs
        .iter()
        .filter(|(k, _)| k == "method")
        .flat_map(|(_, v)| v)
        .filter_map(|e| match e {
            Expr::Field(_, n) | Expr::Name(n) => Some(n.to_uppercase()),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn feign_methods_call_their_service_by_verb_and_route() {
        check(
            r#"
//- /orders/src/main/java/a/InventoryClient.java
package a;
@FeignClient(name = "inventory-service", path = "/api")
interface InventoryClient {
    @GetMapping("/stock/{sku}") Stock stock(@PathVariable String sku);
    @PostMapping("/reservations") void reserve(Reservation r);
    default void notMapped() {}
}
//- /orders/src/main/java/a/Partner.java
package a;
@FeignClient(name = "partner", url = "https://api.partner.example/v1")
interface Partner {
    @GetMapping("/rates") Rates rates();
}
//- /orders/src/main/java/a/NotFeign.java
package a;
interface NotFeign { @GetMapping("/x") void x(); }
"#,
            r#"
http GET inventory-service /api/stock/{sku} feign url=/api/stock/{sku} by a.InventoryClient.stock linked (orders/src/main/java/a/InventoryClient.java:4)
http POST inventory-service /api/reservations feign url=/api/reservations by a.InventoryClient.reserve linked (orders/src/main/java/a/InventoryClient.java:5)
http GET api.partner.example /rates feign url=https://api.partner.example/v1/rates by a.Partner.rates external (orders/src/main/java/a/Partner.java:4)
"#,
        );
    }

    #[test]
    fn names_urls_and_paths_come_from_constants_of_other_modules_and_config() {
        check(
            r#"
//- /common/src/main/java/c/ServiceNames.java
package c;
public interface ServiceNames {
    String BILLING = "billing-service";
    String API = "/api";
    String INVOICES = API + "/invoices";
}
//- /orders/src/main/resources/application.yml
clients:
  stock-url: http://localhost:8085
  audit-name: audit-service
//- /orders/src/main/java/a/Billing.java
package a;
import c.ServiceNames;
@FeignClient(contextId = "billingAdmin", value = ServiceNames.BILLING, path = ServiceNames.API)
interface Billing {
    @GetMapping(ServiceNames.INVOICES + "/{id}") Invoice invoice(@PathVariable long id);
    @RequestMapping(value = "/refunds", method = RequestMethod.POST) void refund();
    @RequestMapping("/health") String health();
}
//- /orders/src/main/java/a/Stock.java
package a;
@FeignClient(name = "stock", url = "${clients.stock-url}")
interface Stock {
    @GetMapping("/api/stock/{sku}") int level(@PathVariable String sku);
}
//- /orders/src/main/java/a/Audit.java
package a;
@FeignClient(name = "${clients.audit-name}", configuration = FeignConfig.class)
interface Audit {
    @RequestLine("POST /api/audit/events?source={source}") void record(@Param("source") String source);
}
//- /orders/src/main/java/a/Missing.java
package a;
@FeignClient(name = "ledger", url = "${clients.ledger-url}")
interface Missing {
    @GetMapping("/api/entries") List<Entry> entries();
}
//- /orders/src/main/java/a/Unknown.java
package a;
@FeignClient(name = Registry.NAME)
interface Unknown {
    @GetMapping("/api/x") void x();
}
"#,
            r#"
config a.Audit -> clients.audit-name via placeholder
http POST audit-service /api/audit/events feign url=/api/audit/events by a.Audit.record linked (orders/src/main/java/a/Audit.java:4)
http GET billing-service /api/api/invoices/{id} feign url=/api/api/invoices/{id} by a.Billing.invoice linked (orders/src/main/java/a/Billing.java:5)
http POST billing-service /api/refunds feign url=/api/refunds by a.Billing.refund linked (orders/src/main/java/a/Billing.java:6)
http GET billing-service /api/health feign url=/api/health by a.Billing.health linked (orders/src/main/java/a/Billing.java:7)
config? clients.ledger-url
http GET  /api/entries feign url=/api/entries by a.Missing.entries unresolved (orders/src/main/java/a/Missing.java:4)
warning orders/src/main/java/a/Missing.java:2: @FeignClient url of Missing is ${clients.ledger-url}, which no config of its module sets; its calls are kept unresolved, linked to nothing
config a.Stock -> clients.stock-url via placeholder
http GET localhost:8085 /api/stock/{sku} feign url=http://localhost:8085/api/stock/{sku} by a.Stock.level linked port=8085 (orders/src/main/java/a/Stock.java:4)
http GET  /api/x feign url=/api/x by a.Unknown.x unresolved (orders/src/main/java/a/Unknown.java:4)
warning orders/src/main/java/a/Unknown.java:2: @FeignClient name of Unknown is not a literal or constant the source fixes; its calls are kept unresolved, linked to nothing
"#,
        );
    }

    #[test]
    fn clients_built_by_hand_call_the_url_they_are_given() {
        check(
            r#"
//- /orders/src/main/java/a/TaxApi.java
package a;
interface TaxApi {
    @RequestLine("GET /api/tax/{country}") Rate rate(@Param("country") String country);
    Rate notAnnotated();
}
//- /orders/src/main/java/a/Config.java
package a;
class Config {
    TaxApi tax() { return Feign.builder().decoder(new JacksonDecoder()).target(TaxApi.class, "http://tax-service"); }
    TaxApi notFeign(Builder b) { return b.target(TaxApi.class, "http://other-service"); }
}
"#,
            r#"
http GET tax-service /api/tax/{country} feign url=http://tax-service/api/tax/{country} by a.TaxApi.rate linked (orders/src/main/java/a/TaxApi.java:3)
"#,
        );
    }

    #[test]
    fn kotlin_feign_interfaces_call_their_service() {
        check(
            r#"
//- /orders/src/main/kotlin/a/InventoryClient.kt
package a

@FeignClient(name = "inventory-service", path = "/api")
interface InventoryClient {
    @GetMapping("/stock/{sku}")
    fun stock(@PathVariable sku: String): Stock

    @PostMapping(path = ["/reservations"])
    fun reserve(r: Reservation)
}
"#,
            r#"
http GET inventory-service /api/stock/{sku} feign url=/api/stock/{sku} by a.InventoryClient.stock linked (orders/src/main/kotlin/a/InventoryClient.kt:5)
http POST inventory-service /api/reservations feign url=/api/reservations by a.InventoryClient.reserve linked (orders/src/main/kotlin/a/InventoryClient.kt:8)
"#,
        );
    }
}
