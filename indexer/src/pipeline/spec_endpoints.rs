//! HTTP endpoints that no Java annotation declares: controllers implementing interfaces
//! generated from an OpenAPI spec, Spring Data REST repositories, and servlets mapped in
//! `web.xml`.
//!
//! - **OpenAPI**: a controller implementing an interface the product does not declare
//!   (generated at build time) serves, for each method named like an `operationId` of an
//!   OpenAPI 3 / Swagger 2 spec in the same module, that operation's verb and path under
//!   the controller's own class-level `@RequestMapping`. The spec's `servers[].url` (or
//!   `basePath`) path is NOT applied: openapi-generator puts it on generated controllers,
//!   not on the interfaces (`interfaceOnly`) that hand-written controllers implement.
//! - **Spring Data REST**: in a module that depends on Spring Data REST (its build file or
//!   an `@RepositoryRestResource`), each exported repository interface (the module's
//!   `spring.data.rest.detection-strategy`: `default` and `visibility` export public
//!   interfaces, `annotated` only annotated ones, `all` every one; `exported = false`
//!   hides) serves the collection (`GET`, `POST`), the item `{id}` (`GET`, `PUT`,
//!   `PATCH`, `DELETE`) and one `GET …/search/{method}` per query method, under
//!   `spring.data.rest.base-path`. The path is `@RepositoryRestResource(path)` or the
//!   uncapitalised English plural of the domain type (`StockItem` → `stockItems`). The
//!   endpoint is served by the repository interface's Type node.
//! - **web.xml**: each `<servlet-mapping>` of a `<servlet-class>` the product declares
//!   serves its `url-pattern` with the class's `doGet`/`doPost`/`doPut`/`doDelete`.

use std::collections::HashMap;

use semgraph_storage::{NodeId, ProductWriter};
use yaml_rust2::YamlLoader;

use super::endpoints::{add_endpoint, find, join, short, values, NewEndpoint, SERVLET_METHODS};
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{JavaFile, MethodKey, SymbolTable, TypeDecl, TypeKind};
use crate::walk::{self, SourceFile, SourceKind};

/// Everything the three kinds need from the run.
pub(super) struct SpecInputs<'a> {
    pub(super) facts: &'a [JavaFile],
    pub(super) files: &'a [SourceFile],
    pub(super) table: &'a SymbolTable,
    pub(super) types: &'a HashMap<String, NodeId>,
    pub(super) methods: &'a HashMap<MethodKey, NodeId>,
    pub(super) service_of: &'a dyn Fn(&str) -> Option<(NodeId, String)>,
    pub(super) resolve: &'a dyn Fn(&str, &str) -> String,
}

/// One operation of a spec: verb, path and the spec file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Operation {
    pub(super) id: String,
    pub(super) verb: String,
    pub(super) path: String,
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
pub(super) fn openapi_operations(text: &str) -> Result<Vec<Operation>, String> {
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

fn is_controller(t: &TypeDecl) -> bool {
    t.kind == TypeKind::Class
        && (find(&t.annotations, "RestController").is_some() || find(&t.annotations, "Controller").is_some())
}

fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("")
}

/// Writes the endpoints of OpenAPI-generated interfaces, Spring Data REST and web.xml.
pub(super) fn write_spec_endpoints(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    inp: &SpecInputs<'_>,
) -> Result<(), IndexError> {
    write_openapi(run, w, inp)?;
    write_data_rest(run, w, inp)?;
    write_web_xml(run, w, inp)?;
    Ok(())
}

fn service_name(inp: &SpecInputs<'_>, rel: &str) -> Option<String> {
    (inp.service_of)(rel).map(|(_, n)| n)
}

fn write_openapi(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    inp: &SpecInputs<'_>,
) -> Result<(), IndexError> {
    // Controllers implementing a type the product does not declare.
    let mut candidates = Vec::new();
    for file in inp.facts {
        for t in file
            .types
            .iter()
            .filter(|t| is_controller(t) && !t.implements.is_empty())
        {
            let generated = t.implements.iter().any(|i| {
                inp.table
                    .resolve_type(i, &t.fqn)
                    .is_none_or(|r| !r.internal && !r.fqn.starts_with("java."))
            });
            if generated {
                candidates.push((file, t));
            }
        }
    }
    if candidates.is_empty() {
        return Ok(());
    }
    // Specs, per service.
    let mut specs: Vec<(Option<String>, String, Vec<Operation>)> = Vec::new();
    for f in inp.files.iter().filter(|f| f.kind == SourceKind::Yaml) {
        let Some(text) = walk::read_source(f, &mut run.warnings) else {
            continue;
        };
        if !(text.contains("openapi") || text.contains("swagger")) {
            continue;
        }
        let ops = match openapi_operations(&text) {
            Ok(ops) => ops,
            Err(reason) => {
                run.warn(&f.rel, None, format!("skipped as an OpenAPI spec: {reason}"));
                continue;
            }
        };
        if !ops.is_empty() {
            specs.push((service_name(inp, &f.rel), f.rel.clone(), ops));
        }
    }
    for (file, t) in candidates {
        let service = (inp.service_of)(&file.path);
        let service_name = service.as_ref().map(|(_, n)| n.clone());
        let prefixes = find(&t.annotations, "RequestMapping")
            .map(|a| values(a, &["value", "path"]))
            .unwrap_or_default();
        let prefix = prefixes.first().cloned().unwrap_or_default();
        for m in &t.methods {
            if m.name == "<init>" || m.modifiers.iter().any(|x| x == "static" || x == "private") {
                continue;
            }
            // A method with its own mapping is an ordinary Spring endpoint.
            if !super::endpoints::mapping_routes(&m.annotations, &[String::new()]).is_empty() {
                continue;
            }
            let ops: Vec<&Operation> = specs
                .iter()
                .filter(|(s, _, _)| *s == service_name)
                .flat_map(|(_, _, ops)| ops)
                .filter(|o| o.id == m.name)
                .collect();
            let Some(&handler) = inp.methods.get(&super::code::method_key(t, m)) else {
                continue;
            };
            let mut seen = Vec::new();
            for op in ops {
                let path = join(&prefix, &op.path);
                if seen.contains(&(op.verb.clone(), path.clone())) {
                    continue;
                }
                seen.push((op.verb.clone(), path.clone()));
                add_endpoint(
                    run,
                    w,
                    &NewEndpoint {
                        verb: &op.verb,
                        path: &path,
                        kind: "openapi",
                        file: &file.path,
                        lines: (m.line_start, m.line_end),
                        handler_name: &format!("{}.{}", t.fqn, m.name),
                        handler,
                        service: service.as_ref().map(|(id, n)| (*id, n.as_str())),
                    },
                )?;
            }
        }
    }
    Ok(())
}

/// Spring Data repository base interfaces that give the whole CRUD resource set.
const CRUD_BASES: &[&str] = &[
    "CrudRepository",
    "ListCrudRepository",
    "PagingAndSortingRepository",
    "JpaRepository",
    "MongoRepository",
    "ElasticsearchRepository",
    "Neo4jRepository",
    "CassandraRepository",
    "KeyValueRepository",
];
/// Methods of the CRUD interfaces: declaring them again does not make a search resource.
const CRUD_METHODS: &[&str] = &[
    "save",
    "saveAll",
    "saveAndFlush",
    "saveAllAndFlush",
    "findById",
    "findAll",
    "findAllById",
    "existsById",
    "count",
    "delete",
    "deleteById",
    "deleteAll",
    "deleteAllById",
    "deleteAllInBatch",
    "deleteAllByIdInBatch",
    "deleteInBatch",
    "flush",
    "getById",
    "getOne",
    "getReferenceById",
    "findOne",
    "exists",
    "insert",
];

/// The English plural Spring Data REST's Evo Inflector gives the usual entity names.
pub(super) fn plural(word: &str) -> String {
    let lower = word.to_lowercase();
    const UNCOUNTABLE: &[&str] = &[
        "equipment",
        "information",
        "rice",
        "money",
        "species",
        "series",
        "fish",
        "sheep",
        "news",
        "data",
        "metadata",
    ];
    if UNCOUNTABLE.iter().any(|u| lower.ends_with(u)) {
        return word.to_string();
    }
    const IRREGULAR: &[(&str, &str)] = &[
        ("person", "people"),
        ("child", "children"),
        ("man", "men"),
        ("mouse", "mice"),
        ("foot", "feet"),
        ("tooth", "teeth"),
        ("goose", "geese"),
    ];
    for (one, many) in IRREGULAR {
        if lower.ends_with(one) {
            return format!(
                "{}{}",
                &word[..word.len() - one.len()],
                restore_case(word, one, many)
            );
        }
    }
    let vowel = |c: char| "aeiou".contains(c);
    if let Some(stem) = word.strip_suffix('y') {
        if stem
            .chars()
            .last()
            .is_some_and(|c| !vowel(c.to_ascii_lowercase()))
        {
            return format!("{stem}ies");
        }
    }
    if ["s", "x", "z", "ch", "sh"].iter().any(|s| lower.ends_with(s)) {
        return format!("{word}es");
    }
    format!("{word}s")
}

/// `many` with the case of the first letter of the `one` part of `word`.
fn restore_case(word: &str, one: &str, many: &str) -> String {
    let start = word.len() - one.len();
    if word[start..].starts_with(char::is_uppercase) {
        let mut c = many.chars();
        c.next()
            .map(|f| f.to_uppercase().chain(c).collect())
            .unwrap_or_default()
    } else {
        many.to_string()
    }
}

fn uncapitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// The first type argument of a written type: `JpaRepository<Warehouse, Long>` → `Warehouse`.
fn first_type_arg(written: &str) -> Option<String> {
    let open = written.find('<')?;
    let inner = &written[open + 1..written.rfind('>')?];
    let first = inner.split(',').next()?.trim();
    let base = first.split('<').next().unwrap_or(first);
    Some(base.rsplit('.').next().unwrap_or(base).to_string())
}

/// A repository interface's base and domain type, following internal super-interfaces.
fn repository_base(
    t: &TypeDecl,
    inp: &SpecInputs<'_>,
    decls: &HashMap<&str, &TypeDecl>,
    depth: usize,
) -> Option<(String, String)> {
    if depth > 8 {
        return None;
    }
    for e in &t.extends {
        let base = short(e.split('<').next().unwrap_or(e)).to_string();
        if base == "Repository" || CRUD_BASES.contains(&base.as_str()) {
            if let Some(domain) = first_type_arg(e) {
                return Some((base, domain));
            }
        }
        let parent = inp
            .table
            .resolve_type(e, &t.fqn)
            .filter(|r| r.internal)
            .and_then(|r| decls.get(r.fqn.as_str()).copied());
        if let Some(p) = parent {
            if let Some(found) = repository_base(p, inp, decls, depth + 1) {
                return Some(found);
            }
        }
    }
    None
}

/// `exported = false` on an annotation among `names`.
fn hidden(annotations: &[crate::java::Annotation], names: &[&str]) -> bool {
    annotations
        .iter()
        .filter(|a| names.contains(&short(&a.name)))
        .any(|a| values(a, &["exported"]).iter().any(|v| v.trim() == "false"))
}

/// Whether the build files on the way from the repository root to `rel` pull in Spring
/// Data REST.
fn depends_on_data_rest(inp: &SpecInputs<'_>, rel: &str) -> bool {
    inp.files
        .iter()
        .filter(|f| f.kind == SourceKind::BuildFile)
        .filter(|f| {
            let dir = dir_of(&f.rel);
            dir.is_empty() || rel.starts_with(&format!("{dir}/"))
        })
        .any(|f| {
            let mut warnings = Vec::new();
            walk::read_source(f, &mut warnings).is_some_and(|t| {
                t.contains("spring-boot-starter-data-rest") || t.contains("spring-data-rest")
            })
        })
}

fn write_data_rest(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    inp: &SpecInputs<'_>,
) -> Result<(), IndexError> {
    let decls: HashMap<&str, &TypeDecl> = inp
        .facts
        .iter()
        .flat_map(|f| &f.types)
        .map(|t| (t.fqn.as_str(), t))
        .collect();
    let mut module_cache: HashMap<String, bool> = HashMap::new();
    for file in inp.facts {
        if file.path.contains("src/test/") {
            continue;
        }
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
            if find(&t.annotations, "NoRepositoryBean").is_some() {
                continue;
            }
            let Some((base, domain)) = repository_base(t, inp, &decls, 0) else {
                continue;
            };
            let annotated = find(&t.annotations, "RepositoryRestResource")
                .or_else(|| find(&t.annotations, "RestResource"));
            let service = (inp.service_of)(&file.path);
            let module_key = service.as_ref().map(|(_, n)| n.clone()).unwrap_or_default();
            let has_rest = *module_cache
                .entry(module_key)
                .or_insert_with(|| depends_on_data_rest(inp, &file.path));
            if !has_rest && annotated.is_none() {
                continue;
            }
            if hidden(&t.annotations, &["RepositoryRestResource", "RestResource"]) {
                continue;
            }
            let strategy =
                (inp.resolve)(&file.path, "${spring.data.rest.detection-strategy:default}").to_lowercase();
            let public = t.modifiers.iter().any(|m| m == "public");
            let exported = match strategy.as_str() {
                "annotated" => annotated.is_some(),
                "all" => true,
                _ => public || annotated.is_some_and(|_| strategy != "visibility"),
            };
            if !exported {
                continue;
            }
            let Some(&handler) = inp.types.get(&t.fqn) else {
                continue;
            };
            let base_path = (inp.resolve)(&file.path, "${spring.data.rest.base-path:}");
            let base_path = if base_path.contains("${") {
                String::new()
            } else {
                base_path
            };
            let path = annotated
                .map(|a| values(a, &["path"]))
                .and_then(|p| p.first().cloned())
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| uncapitalize(&plural(&domain)));
            let collection = join(&base_path, &path);
            let item = join(&collection, "{id}");
            let declared = |names: &[&str]| -> Option<bool> {
                let found: Vec<_> = t
                    .methods
                    .iter()
                    .filter(|m| names.contains(&m.name.as_str()))
                    .collect();
                if found.is_empty() {
                    return None;
                }
                Some(found.iter().any(|m| !hidden(&m.annotations, &["RestResource"])))
            };
            let crud = CRUD_BASES.contains(&base.as_str());
            // A CRUD base exports unless the redeclared method hides it; a bare
            // `Repository` exports what it declares.
            let has = |names: &[&str]| declared(names).unwrap_or(crud);
            let mut routes: Vec<(&str, String)> = Vec::new();
            if has(&["findAll"]) {
                routes.push(("GET", collection.clone()));
            }
            if has(&["save"]) {
                routes.push(("POST", collection.clone()));
            }
            if has(&["findById", "findOne"]) {
                routes.push(("GET", item.clone()));
            }
            if has(&["save"]) {
                routes.push(("PUT", item.clone()));
                routes.push(("PATCH", item.clone()));
            }
            if has(&["deleteById", "delete"]) {
                routes.push(("DELETE", item.clone()));
            }
            for m in &t.methods {
                let is_default = m.modifiers.iter().any(|x| x == "default" || x == "static");
                if is_default
                    || CRUD_METHODS.contains(&m.name.as_str())
                    || hidden(&m.annotations, &["RestResource"])
                {
                    continue;
                }
                let name = find(&m.annotations, "RestResource")
                    .map(|a| values(a, &["path"]))
                    .and_then(|p| p.first().cloned())
                    .filter(|p| !p.is_empty())
                    .unwrap_or_else(|| m.name.clone());
                routes.push(("GET", join(&join(&collection, "search"), &name)));
            }
            routes.dedup();
            for (verb, route) in routes {
                add_endpoint(
                    run,
                    w,
                    &NewEndpoint {
                        verb,
                        path: &route,
                        kind: "data-rest",
                        file: &file.path,
                        lines: (t.line_start, t.line_end),
                        handler_name: &t.fqn,
                        handler,
                        service: service.as_ref().map(|(id, n)| (*id, n.as_str())),
                    },
                )?;
            }
        }
    }
    Ok(())
}

/// The text of every `<tag>…</tag>` block of `xml`.
fn blocks<'x>(xml: &'x str, tag: &str) -> Vec<&'x str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        let Some(end) = after.find(&close) else { break };
        out.push(&after[..end]);
        rest = &after[end + close.len()..];
    }
    out
}

fn strip_comments(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(start) = rest.find("<!--") {
        out.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// `(servlet class, url patterns)` of a web.xml deployment descriptor.
pub(super) fn web_xml_servlets(xml: &str) -> Vec<(String, Vec<String>)> {
    let xml = strip_comments(xml);
    let mut classes: Vec<(String, String)> = Vec::new();
    for b in blocks(&xml, "servlet") {
        let name = blocks(b, "servlet-name").first().map(|s| s.trim().to_string());
        let class = blocks(b, "servlet-class").first().map(|s| s.trim().to_string());
        if let (Some(n), Some(c)) = (name, class) {
            classes.push((n, c));
        }
    }
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for b in blocks(&xml, "servlet-mapping") {
        let Some(name) = blocks(b, "servlet-name").first().map(|s| s.trim().to_string()) else {
            continue;
        };
        let Some((_, class)) = classes.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let patterns: Vec<String> = blocks(b, "url-pattern")
            .iter()
            .map(|p| p.trim().to_string())
            .collect();
        match out.iter_mut().find(|(c, _)| c == class) {
            Some((_, ps)) => ps.extend(patterns),
            None => out.push((class.clone(), patterns)),
        }
    }
    out
}

fn write_web_xml(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    inp: &SpecInputs<'_>,
) -> Result<(), IndexError> {
    let decls: HashMap<&str, (&JavaFile, &TypeDecl)> = inp
        .facts
        .iter()
        .flat_map(|f| f.types.iter().map(move |t| (t.fqn.as_str(), (f, t))))
        .collect();
    for f in inp.files.iter().filter(|f| {
        f.kind == SourceKind::Xml
            && (f.rel.ends_with("/web.xml") || f.rel.ends_with("/web-fragment.xml") || f.rel == "web.xml")
    }) {
        let mut warnings = Vec::new();
        let Some(text) = walk::read_source(f, &mut warnings) else {
            continue;
        };
        let service = (inp.service_of)(&f.rel);
        for (class, patterns) in web_xml_servlets(&text) {
            let Some(&(file, t)) = decls.get(class.as_str()) else {
                run.warn(
                    &f.rel,
                    None,
                    format!("web.xml servlet class {class} is not in the product's sources"),
                );
                continue;
            };
            // `@WebServlet` patterns are written by the annotation pass already.
            let annotated: Vec<String> = find(&t.annotations, "WebServlet")
                .map(|a| {
                    values(a, &["value", "urlPatterns"])
                        .iter()
                        .map(|p| join("", p))
                        .collect()
                })
                .unwrap_or_default();
            // The handlers: the class's own, else the nearest internal superclass's.
            let mut chain = vec![(file, t)];
            while let Some(sup) = chain
                .last()
                .and_then(|(_, c)| inp.table.get(&c.fqn))
                .and_then(|i| i.superclass.clone())
                .and_then(|s| decls.get(s.as_str()).copied())
            {
                if chain.len() > 16 || chain.iter().any(|(_, c)| c.fqn == sup.1.fqn) {
                    break;
                }
                chain.push(sup);
            }
            for (method, verb) in SERVLET_METHODS {
                let Some((owner_file, owner, m)) = chain
                    .iter()
                    .find_map(|(f2, c)| c.methods.iter().find(|m| m.name == *method).map(|m| (*f2, *c, m)))
                else {
                    continue;
                };
                let Some(&handler) = inp.methods.get(&super::code::method_key(owner, m)) else {
                    continue;
                };
                for p in &patterns {
                    let path = join("", p);
                    if annotated.contains(&path) {
                        continue;
                    }
                    add_endpoint(
                        run,
                        w,
                        &NewEndpoint {
                            verb,
                            path: &path,
                            kind: "servlet",
                            file: &owner_file.path,
                            lines: (m.line_start, m.line_end),
                            handler_name: &format!("{}.{}", owner.fqn, m.name),
                            handler,
                            service: service.as_ref().map(|(id, n)| (*id, n.as_str())),
                        },
                    )?;
                }
            }
        }
    }
    Ok(())
}
