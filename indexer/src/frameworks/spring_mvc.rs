//! Spring MVC and WebFlux controllers: `@RestController`/`@Controller` types, their
//! class-level `@RequestMapping` prefixes, and `@GetMapping` and its siblings or
//! `@RequestMapping(method = …)` on handler methods (`value`/`path`, arrays of paths).
//!
//! A handler returning `Mono`/`Flux` is a WebFlux endpoint; a `@RequestMapping` without a
//! method answers every verb (`ANY`). A controller's `@ModelAttribute` methods (its own, its
//! superclasses', and those of the `@ControllerAdvice` classes of its service that advise
//! it — all of them, or those of `basePackages`) run before every handler: they are said
//! with each endpoint (`Endpoint::before`). An advice restricted by `assignableTypes` or
//! `annotations` is not applied (which controllers it picks is not read): its methods are
//! left out rather than guessed onto the wrong endpoints.

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

/// The `@ModelAttribute` methods of the product's `@ControllerAdvice` classes.
#[derive(Debug, Default, Clone)]
pub(crate) struct Advice {
    advices: Vec<AdviceDecl>,
}

#[derive(Debug, Clone)]
struct AdviceDecl {
    /// The file it is declared in, whose service it advises.
    file: String,
    /// `basePackages`/`value`; empty for every controller.
    packages: Vec<String>,
    methods: Vec<MethodKey>,
}

impl Advice {
    /// Gathers the advice classes `file` declares.
    pub(crate) fn collect(&mut self, file: &CodeFile) {
        for t in &file.types {
            let Some(a) = find(&t.annotations, "ControllerAdvice")
                .or_else(|| find(&t.annotations, "RestControllerAdvice"))
            else {
                continue;
            };
            if !values(a, &["assignableTypes", "annotations", "basePackageClasses"]).is_empty() {
                continue;
            }
            let methods = model_attributes(t);
            if methods.is_empty() {
                continue;
            }
            self.advices.push(AdviceDecl {
                file: file.path.clone(),
                packages: values(a, &["basePackages", "value"]),
                methods,
            });
        }
    }
}

/// The `@ModelAttribute` methods of `t` (not its handlers, not static ones).
fn model_attributes(t: &TypeDecl) -> Vec<MethodKey> {
    t.methods
        .iter()
        .filter(|m| {
            find(&m.annotations, "ModelAttribute").is_some() && !m.modifiers.iter().any(|x| x == "static")
        })
        .filter(|m| mapping_routes(&m.annotations, &[String::new()]).is_empty())
        .map(|m| MethodKey::of(t, m))
        .collect()
}

/// What runs before every handler of controller `t` of `file`.
fn runs_before(product: &Product<'_>, file: &CodeFile, t: &TypeDecl) -> Vec<MethodKey> {
    let mut out = model_attributes(t);
    // Inherited from the controller's superclasses in the product.
    let mut cur = product.table.get(&t.fqn).and_then(|i| i.superclass.clone());
    let mut hops = 0;
    while let Some(sup) = cur {
        hops += 1;
        let Some(decl) = product.type_decl(&sup).filter(|_| hops < 16) else {
            break;
        };
        out.extend(model_attributes(decl));
        cur = product.table.get(&sup).and_then(|i| i.superclass.clone());
    }
    let service = (product.service_of)(&file.path);
    for advice in &product.knowledge.advice.advices {
        let same_service = (product.service_of)(&advice.file) == service;
        let picks = advice.packages.is_empty()
            || advice
                .packages
                .iter()
                .any(|p| t.fqn.starts_with(&format!("{}.", p.trim_end_matches('.'))));
        if same_service && picks {
            out.extend(advice.methods.iter().cloned());
        }
    }
    out
}

pub(crate) struct SpringMvc;

impl Recogniser for SpringMvc {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| is_controller(t)) {
            let before = runs_before(product, file, t);
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
                        before: before.clone(),
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

    #[test]
    fn model_attribute_methods_run_before_every_handler_of_the_controllers_they_advise() {
        check(
            r#"
//- /web/src/main/java/a/BaseController.java
package a;
abstract class BaseController {
    @ModelAttribute void user(Model m) {}
}
//- /web/src/main/java/a/OwnerController.java
package a;
@Controller
class OwnerController extends BaseController {
    @ModelAttribute("types") List<String> types() { return null; }
    @GetMapping("/owners") String list(@ModelAttribute Owner filter) { return "owners"; }
}
//- /web/src/main/java/a/Advice.java
package a;
@ControllerAdvice
class Advice { @ModelAttribute void version(Model m) {} }
//- /web/src/main/java/b/Picky.java
package b;
@ControllerAdvice(assignableTypes = OwnerController.class)
class Picky { @ModelAttribute void picky(Model m) {} }
//- /web/src/main/java/c/Elsewhere.java
package c;
@ControllerAdvice(basePackages = "com.other")
class Elsewhere { @ModelAttribute void other(Model m) {} }
//- /api/src/main/java/d/OtherService.java
package d;
@ControllerAdvice
class OtherService { @ModelAttribute void notHere(Model m) {} }
"#,
            r#"
endpoint GET /owners spring-mvc a.OwnerController.list after a.OwnerController.types after a.BaseController.user after a.Advice.version (web/src/main/java/a/OwnerController.java:5)
"#,
        );
    }
}
