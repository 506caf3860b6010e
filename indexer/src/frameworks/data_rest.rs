//! Spring Data REST: in a module that depends on Spring Data REST (its build file or an
//! `@RepositoryRestResource`), each exported repository interface (the module's
//! `spring.data.rest.detection-strategy`: `default` and `visibility` export public
//! interfaces, `annotated` only annotated ones, `all` every one; `exported = false`
//! hides) serves the collection (`GET`, `POST`), the item `{id}` (`GET`, `PUT`, `PATCH`,
//! `DELETE`) and one `GET …/search/{method}` per query method, under
//! `spring.data.rest.base-path`. The path is `@RepositoryRestResource(path)` or the
//! uncapitalised English plural of the domain type (`StockItem` → `stockItems`). The
//! endpoint is served by the repository interface's type.

use std::collections::HashMap;

use super::annotations::{find, join, short, values};
use super::{Endpoint, Finding, Owner, Product, ProductFindings, Recogniser};
use crate::facts::{Annotation, TypeDecl, TypeKind};

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
pub(crate) fn plural(word: &str) -> String {
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
    inp: &Product<'_>,
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
fn hidden(annotations: &[Annotation], names: &[&str]) -> bool {
    annotations
        .iter()
        .filter(|a| names.contains(&short(&a.name)))
        .any(|a| values(a, &["exported"]).iter().any(|v| v.trim() == "false"))
}

/// Whether the build files on the way from the repository root to `rel` pull in Spring
/// Data REST.
fn depends_on_data_rest(product: &Product<'_>, rel: &str) -> bool {
    product
        .builds
        .iter()
        .filter(|(dir, _)| dir.is_empty() || rel.starts_with(&format!("{dir}/")))
        .any(|(_, build)| {
            build.depends_on("spring-boot-starter-data-rest") || build.depends_on("spring-data-rest")
        })
}

pub(crate) struct DataRest;

impl Recogniser for DataRest {
    fn product(&self, product: &Product<'_>, all: &mut ProductFindings) {
        let decls: HashMap<&str, &TypeDecl> = super::types_by_fqn(product.skeletons);
        let mut module_cache: HashMap<String, bool> = HashMap::new();
        for file in product.skeletons {
            if file.path.contains("src/test/") {
                continue;
            }
            for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
                if find(&t.annotations, "NoRepositoryBean").is_some() {
                    continue;
                }
                let Some((base, domain)) = repository_base(t, product, &decls, 0) else {
                    continue;
                };
                let annotated = find(&t.annotations, "RepositoryRestResource")
                    .or_else(|| find(&t.annotations, "RestResource"));
                let module_key = (product.service_of)(&file.path).unwrap_or_default();
                let has_rest = *module_cache
                    .entry(module_key)
                    .or_insert_with(|| depends_on_data_rest(product, &file.path));
                if !has_rest && annotated.is_none() {
                    continue;
                }
                if hidden(&t.annotations, &["RepositoryRestResource", "RestResource"]) {
                    continue;
                }
                let strategy = product
                    .resolve(&file.path, "${spring.data.rest.detection-strategy:default}")
                    .to_lowercase();
                let public = t.modifiers.iter().any(|m| m == "public");
                let exported = match strategy.as_str() {
                    "annotated" => annotated.is_some(),
                    "all" => true,
                    _ => public || annotated.is_some_and(|_| strategy != "visibility"),
                };
                if !exported {
                    continue;
                }
                let base_path = product.resolve(&file.path, "${spring.data.rest.base-path:}");
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
                let out = all.file(&file.path);
                for (verb, route) in routes {
                    out.push(Finding::Endpoint(Endpoint {
                        verb: verb.to_string(),
                        path: route,
                        kind: "data-rest",
                        file: file.path.clone(),
                        lines: (t.line_start, t.line_end),
                        handler: Owner::Type(t.fqn.clone()),
                        handler_name: t.fqn.clone(),
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
    use super::plural;

    #[test]
    fn data_rest_paths_are_english_plurals() {
        assert_eq!(plural("Warehouse"), "Warehouses");
        assert_eq!(plural("StockItem"), "StockItems");
        assert_eq!(plural("Category"), "Categories");
        assert_eq!(plural("Address"), "Addresses");
        assert_eq!(plural("Person"), "People");
        assert_eq!(plural("Day"), "Days");
    }

    #[test]
    fn exported_repositories_serve_collections_items_and_searches() {
        crate::frameworks::testing::check(
            r#"
//- /inv/pom.xml
<project><artifactId>inventory</artifactId><dependencies>
  <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-data-rest</artifactId></dependency>
</dependencies></project>
//- /inv/src/main/java/a/Warehouse.java
package a;
@Entity class Warehouse {}
//- /inv/src/main/java/a/WarehouseRepository.java
package a;
import org.springframework.data.repository.CrudRepository;
public interface WarehouseRepository extends CrudRepository<Warehouse, Long> {
    List<Warehouse> findByCity(String city);
}
//- /inv/src/main/java/a/Hidden.java
package a;
@RepositoryRestResource(exported = false)
public interface Hidden extends CrudRepository<Warehouse, Long> {}
//- /other/src/main/java/b/NoRest.java
package b;
public interface NoRest extends org.springframework.data.repository.CrudRepository<Thing, Long> {}
@Entity class Thing {}
"#,
            r#"
maps a.Warehouse -> warehouse
table read warehouse by a.WarehouseRepository.findByCity via jpa-repository (line 4)
maps b.Thing -> thing
endpoint GET /warehouses data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint POST /warehouses data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint GET /warehouses/{id} data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint PUT /warehouses/{id} data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint PATCH /warehouses/{id} data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint DELETE /warehouses/{id} data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
endpoint GET /warehouses/search/findByCity data-rest a.WarehouseRepository (inv/src/main/java/a/WarehouseRepository.java:3)
"#,
        );
    }
}
