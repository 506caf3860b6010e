//! Spring MVC and WebFlux controllers: `@RestController`/`@Controller` types, their
//! class-level `@RequestMapping` prefixes, and `@GetMapping` and its siblings or
//! `@RequestMapping(method = …)` on handler methods (`value`/`path`, arrays of paths).
//!
//! A handler returning `Mono`/`Flux` is a WebFlux endpoint; a `@RequestMapping` without a
//! method answers every verb (`ANY`).

use super::annotations::{find, join, short, values};
use super::{Endpoint, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::{Annotation, CodeFile, MethodDecl, TypeDecl, TypeKind};
use crate::resolve::MethodKey;

/// The verb each mapping shortcut stands for.
const VERBS: &[(&str, &str)] = &[
    ("GetMapping", "GET"),
    ("PostMapping", "POST"),
    ("PutMapping", "PUT"),
    ("DeleteMapping", "DELETE"),
    ("PatchMapping", "PATCH"),
];

pub(crate) struct SpringMvc;

impl Recogniser for SpringMvc {
    fn declared(&self, _product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| is_controller(t)) {
            let mut prefixes = find(&t.annotations, "RequestMapping")
                .map(|a| values(a, &["value", "path"]))
                .unwrap_or_default();
            if prefixes.is_empty() {
                prefixes.push(String::new());
            }
            for m in &t.methods {
                let kind = if is_reactive(m) { "webflux" } else { "spring-mvc" };
                for (verb, path) in mapping_routes(&m.annotations, &prefixes) {
                    out.push(Finding::Endpoint(Endpoint {
                        verb,
                        path,
                        kind,
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        handler: Owner::Method(MethodKey::of(t, m)),
                        handler_name: format!("{}.{}", t.fqn, m.name),
                        service_file: file.path.clone(),
                    }));
                }
            }
        }
    }
}

/// Whether `t` is a Spring controller class.
pub(crate) fn is_controller(t: &TypeDecl) -> bool {
    t.kind == TypeKind::Class
        && (find(&t.annotations, "RestController").is_some() || find(&t.annotations, "Controller").is_some())
}

fn is_reactive(m: &MethodDecl) -> bool {
    m.return_type
        .as_deref()
        .is_some_and(|r| r.starts_with("Mono") || r.starts_with("Flux"))
}

/// The (verb, path) pairs that Spring mapping annotations declare, under `prefixes`:
/// `@GetMapping` and its siblings, `@RequestMapping(method = …)` (verb `ANY` without one),
/// `value`/`path` and arrays of paths. Feign clients declare their calls the same way.
pub(crate) fn mapping_routes(annotations: &[Annotation], prefixes: &[String]) -> Vec<(String, String)> {
    let mut routes = Vec::new();
    for a in annotations {
        let name = short(&a.name);
        let verbs: Vec<String> = if let Some((_, verb)) = VERBS.iter().find(|(n, _)| *n == name) {
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

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn controllers_serve_their_mappings_under_the_class_prefix() {
        check(
            r#"
//- /svc/src/main/java/a/OrderController.java
package a;
@RestController
@RequestMapping("/api/orders")
class OrderController {
    @GetMapping("/{id}") Order get(long id) { return null; }
    @PostMapping Order create(Order o) { return null; }
    @RequestMapping(value = {"/a", "/b"}, method = RequestMethod.PUT) void put() {}
    @RequestMapping("/any") void any() {}
    @GetMapping("/stream") Flux<Order> stream() { return null; }
    void helper() {}
}
//- /svc/src/main/java/a/NotAController.java
package a;
@Service
class NotAController {
    @GetMapping("/nope") void nope() {}
}
"#,
            r#"
endpoint GET /api/orders/{id} spring-mvc a.OrderController.get (svc/src/main/java/a/OrderController.java:5)
endpoint POST /api/orders spring-mvc a.OrderController.create (svc/src/main/java/a/OrderController.java:6)
endpoint PUT /api/orders/a spring-mvc a.OrderController.put (svc/src/main/java/a/OrderController.java:7)
endpoint PUT /api/orders/b spring-mvc a.OrderController.put (svc/src/main/java/a/OrderController.java:7)
endpoint ANY /api/orders/any spring-mvc a.OrderController.any (svc/src/main/java/a/OrderController.java:8)
endpoint GET /api/orders/stream webflux a.OrderController.stream (svc/src/main/java/a/OrderController.java:9)
"#,
        );
    }

    #[test]
    fn kotlin_controllers_with_array_paths_and_constant_prefixes() {
        check(
            r#"
//- /svc/src/main/kotlin/a/OwnerController.kt
package a

@RestController
@RequestMapping(OwnerController.BASE)
class OwnerController(private val owners: OwnerRepository) {
    @GetMapping(value = ["/{id}", "/by-id/{id}"])
    fun get(@PathVariable id: Long): Owner? = owners.findById(id).orElse(null)

    @PostMapping
    fun create(@RequestBody owner: Owner): Owner = owners.save(owner)

    @RequestMapping(path = arrayOf("/search"), method = [RequestMethod.GET, RequestMethod.POST])
    fun search(q: String): List<Owner> = emptyList()

    @GetMapping("/stream")
    fun stream(): Flux<Owner> = Flux.empty()

    companion object {
        const val BASE = "/api/owners"
    }
}
//- /svc/src/main/kotlin/a/NotAController.kt
package a

@Service
class NotAController {
    @GetMapping("/nope")
    fun nope() {}
}
"#,
            r#"
endpoint GET /api/owners/{id} spring-mvc a.OwnerController.get (svc/src/main/kotlin/a/OwnerController.kt:6)
endpoint GET /api/owners/by-id/{id} spring-mvc a.OwnerController.get (svc/src/main/kotlin/a/OwnerController.kt:6)
endpoint POST /api/owners spring-mvc a.OwnerController.create (svc/src/main/kotlin/a/OwnerController.kt:9)
endpoint GET /api/owners/search spring-mvc a.OwnerController.search (svc/src/main/kotlin/a/OwnerController.kt:12)
endpoint POST /api/owners/search spring-mvc a.OwnerController.search (svc/src/main/kotlin/a/OwnerController.kt:12)
endpoint GET /api/owners/stream webflux a.OwnerController.stream (svc/src/main/kotlin/a/OwnerController.kt:15)
"#,
        );
    }
}
