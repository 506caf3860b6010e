//! Controllers implementing interfaces generated from an OpenAPI spec: a controller
//! implementing an interface the product does not declare (generated at build time)
//! serves, for each method named like an `operationId` of an OpenAPI 3 / Swagger 2 spec
//! in the same module, that operation's verb and path under the controller's own
//! class-level `@RequestMapping`. The spec's `servers[].url` (or `basePath`) path is NOT
//! applied: openapi-generator puts it on generated controllers, not on the interfaces
//! (`interfaceOnly`) that hand-written controllers implement.

use std::collections::HashMap;

use yaml_rust2::YamlLoader;

use super::annotations::{find, join, values};
use super::spring_mvc::{is_controller, mapping_routes};
use super::{Endpoint, Finding, Owner, Product, ProductFindings, Recogniser};
use crate::resolve::MethodKey;
use crate::walk::{self, SourceKind};

/// One operation of a spec: verb, path and the spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Operation {
    pub(crate) id: String,
    pub(crate) verb: String,
    pub(crate) path: String,
}

/// Nodes a spec may expand to once its aliases are copied, and nesting it may have, before
/// it is refused: far above any real API description.
const MAX_SPEC_NODES: u64 = 2_000_000;
const MAX_SPEC_DEPTH: usize = 256;

/// Whether `text` may be loaded as a YAML tree. yaml-rust2's loader copies a node for every
/// alias, so an anchor bomb of a few hundred bytes expands to billions of nodes; and a tree
/// nested thousands deep is built and dropped recursively. One pass over the parser's
/// events counts the nodes the tree would have, aliases expanded, and its depth, without
/// building anything; the answer is the reason to refuse, for a warning.
fn loadable(text: &str) -> Result<(), String> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(text);
    // Expanded node count of each anchored node, and of each open collection.
    let mut anchored: HashMap<usize, u64> = HashMap::new();
    let mut open: Vec<(usize, u64)> = Vec::new();
    let mut total: u64 = 0;
    loop {
        let Ok((event, _)) = parser.next_token() else {
            // Not YAML: the loader will refuse it too, cheaply.
            return Ok(());
        };
        let (anchor, nodes) = match event {
            Event::StreamEnd => return Ok(()),
            Event::Scalar(_, _, anchor, _) => (anchor, 1),
            Event::Alias(id) => (0, anchored.get(&id).copied().unwrap_or(1)),
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if open.len() >= MAX_SPEC_DEPTH {
                    return Err(format!("nested more than {MAX_SPEC_DEPTH} deep"));
                }
                open.push((anchor, 1));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match open.pop() {
                Some(done) => done,
                None => continue,
            },
            _ => continue,
        };
        if anchor > 0 {
            anchored.insert(anchor, nodes);
        }
        if let Some((_, parent)) = open.last_mut() {
            *parent = parent.saturating_add(nodes);
        }
        total = total.saturating_add(nodes);
        if total > MAX_SPEC_NODES || open.last().is_some_and(|(_, n)| *n > MAX_SPEC_NODES) {
            return Err(format!(
                "its aliases expand to more than {MAX_SPEC_NODES} nodes (an anchor bomb?)"
            ));
        }
    }
}

/// The operations of an OpenAPI 3 or Swagger 2 document; empty when `text` is not one.
/// A document too large or too deep to load is an error with the reason.
pub(crate) fn openapi_operations(text: &str) -> Result<Vec<Operation>, String> {
    loadable(text)?;
    Ok(spec_operations(text))
}

fn spec_operations(text: &str) -> Vec<Operation> {
    let Ok(docs) = YamlLoader::load_from_str(text) else {
        return Vec::new();
    };
    let Some(doc) = docs.first() else {
        return Vec::new();
    };
    if doc["openapi"].is_badvalue() && doc["swagger"].is_badvalue() {
        return Vec::new();
    }
    let Some(paths) = doc["paths"].as_hash() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (path, item) in paths {
        let Some(path) = path.as_str() else { continue };
        let Some(item) = item.as_hash() else { continue };
        for (verb, op) in item {
            let Some(verb) = verb.as_str() else { continue };
            if ![
                "get", "put", "post", "delete", "options", "head", "patch", "trace",
            ]
            .contains(&verb)
            {
                continue;
            }
            if let Some(id) = op["operationId"].as_str() {
                out.push(Operation {
                    id: id.to_string(),
                    verb: verb.to_uppercase(),
                    path: path.to_string(),
                });
            }
        }
    }
    out
}

pub(crate) struct OpenApi;

impl Recogniser for OpenApi {
    fn product(&self, product: &Product<'_>, all: &mut ProductFindings) {
        // Controllers implementing a type the product does not declare.
        let mut candidates = Vec::new();
        for file in product.skeletons {
            for t in file
                .types
                .iter()
                .filter(|t| is_controller(t) && !t.implements.is_empty())
            {
                let generated = t.implements.iter().any(|i| {
                    product
                        .table
                        .resolve_type(i, &t.fqn)
                        .is_none_or(|r| !r.internal && !r.fqn.starts_with("java."))
                });
                if generated {
                    candidates.push((file, t));
                }
            }
        }
        if candidates.is_empty() {
            return;
        }
        // Specs, per service.
        let mut specs: Vec<(Option<String>, Vec<Operation>)> = Vec::new();
        for f in product.files.iter().filter(|f| f.kind == SourceKind::Yaml) {
            let out = all.file(&f.rel);
            let Some(text) = walk::read_source(f, &mut out.warnings) else {
                continue;
            };
            if !(text.contains("openapi") || text.contains("swagger")) {
                continue;
            }
            let ops = match openapi_operations(&text) {
                Ok(ops) => ops,
                Err(reason) => {
                    out.warn(&f.rel, None, format!("skipped as an OpenAPI spec: {reason}"));
                    continue;
                }
            };
            if !ops.is_empty() {
                specs.push(((product.service_of)(&f.rel), ops));
            }
        }
        for (file, t) in candidates {
            let out = all.file(&file.path);
            let service_name = (product.service_of)(&file.path);
            let prefixes = find(&t.annotations, "RequestMapping")
                .map(|a| values(a, &["value", "path"]))
                .unwrap_or_default();
            let prefix = prefixes.first().cloned().unwrap_or_default();
            for m in &t.methods {
                if m.name == "<init>" || m.modifiers.iter().any(|x| x == "static" || x == "private") {
                    continue;
                }
                // A method with its own mapping is an ordinary Spring endpoint.
                if !mapping_routes(&m.annotations, &[String::new()]).is_empty() {
                    continue;
                }
                let ops = specs
                    .iter()
                    .filter(|(s, _)| *s == service_name)
                    .flat_map(|(_, ops)| ops)
                    .filter(|o| o.id == m.name);
                let mut seen = Vec::new();
                for op in ops {
                    let path = join(&prefix, &op.path);
                    if seen.contains(&(op.verb.clone(), path.clone())) {
                        continue;
                    }
                    seen.push((op.verb.clone(), path.clone()));
                    out.push(Finding::Endpoint(Endpoint {
                        verb: op.verb.clone(),
                        path,
                        kind: "openapi",
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        handler: Owner::Method(MethodKey::of(t, m)),
                        handler_name: format!("{}.{}", t.fqn, m.name),
                        service_file: file.path.clone(),
                        before: Vec::new(),
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::openapi_operations;

    #[test]
    fn openapi_documents_of_both_versions_list_their_operations() {
        let v3 =
            "openapi: 3.0.1\npaths:\n  /a/{id}:\n    get:\n      operationId: getA\n    parameters: []\n";
        let ops = openapi_operations(v3).expect("loadable");
        assert_eq!(ops.len(), 1);
        assert_eq!(
            (ops[0].id.as_str(), ops[0].verb.as_str(), ops[0].path.as_str()),
            ("getA", "GET", "/a/{id}")
        );
        let v2 = r#"{"swagger": "2.0", "basePath": "/v2", "paths": {"/pets": {"post": {"operationId": "addPet"}}}}"#;
        let ops = openapi_operations(v2).expect("loadable");
        assert_eq!(
            (ops[0].id.as_str(), ops[0].verb.as_str(), ops[0].path.as_str()),
            ("addPet", "POST", "/pets")
        );
        assert!(openapi_operations("spring:\n  application:\n    name: x\n").is_ok_and(|o| o.is_empty()));
    }

    #[test]
    fn controllers_implementing_generated_interfaces_serve_the_spec_of_their_module() {
        crate::frameworks::testing::check(
            r#"
//- /pets/src/main/resources/openapi.yml
openapi: 3.0.1
paths:
  /pets/{id}:
    get:
      operationId: getPet
  /pets:
    post:
      operationId: addPet
//- /pets/src/main/java/a/PetController.java
package a;
import com.acme.api.PetsApi;
@RestController
@RequestMapping("/v1")
class PetController implements PetsApi {
    public Pet getPet(long id) { return null; }
    public Pet addPet(Pet p) { return null; }
    @GetMapping("/own") public Pet own() { return null; }
    public void notAnOperation() {}
}
//- /other/src/main/java/b/LookAlike.java
package b;
@RestController
class LookAlike implements Runnable { public void getPet() {} public void run() {} }
"#,
            r#"
endpoint GET /v1/own spring-mvc a.PetController.own (pets/src/main/java/a/PetController.java:8)
endpoint GET /v1/pets/{id} openapi a.PetController.getPet (pets/src/main/java/a/PetController.java:6)
endpoint POST /v1/pets openapi a.PetController.addPet (pets/src/main/java/a/PetController.java:7)
"#,
        );
    }
}
