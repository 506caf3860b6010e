//! Code ↔ data: JPA entities mapped to tables, and the methods that read and write tables.
//!
//! What is gathered across files is kept small — names only — in a [`DataModel`]: each
//! entity's table and associations, each repository interface's supertypes, the string
//! constants of every type. The writers then work one file at a time:
//!
//! - [`write_declared`] (before calls are resolved): `@Entity` → MapsTo its table; on a
//!   Spring Data repository, derived query methods (`findBy…`, `countBy…`, `deleteBy…`) and
//!   `@Query` (JPQL through the entity map, or native SQL); MyBatis `@Select`/`@Insert`/
//!   `@Update`/`@Delete` on any interface. The edge starts at the declared method.
//! - [`write_call_accesses`] (with the resolved calls): a call of an inherited repository
//!   method (`save`, `findById`…) on a receiver typed as a repository of the product, SQL
//!   handed to `JdbcTemplate`/`NamedParameterJdbcTemplate`/`JdbcClient`/`EntityManager`/a
//!   Hibernate `Session`, and `SimpleJdbcInsert.execute…`. The edge starts at the calling
//!   method. A call that only stubs or verifies a mock (`when(repo.findById(1L))`,
//!   `verify(repo).save(…)`) runs no SQL and is skipped.
//! - [`write_mapper_xml`]: MyBatis mapper files, statement id → interface method.
//!
//! Rules that keep edges true: a table is named only from a literal, a constant, a
//! concatenation of those, `@Table`, or Spring Boot's default naming of an `@Entity`; JPQL
//! names entities, never tables, so a name that is no entity of the product is dropped and
//! counted. Anything not determined (SQL in a local variable, an unknown entity) is a
//! per-file warning and a `tables.*` stat. A table this product defines gets a direct edge
//! carrying the lines and `via`; any other is a unique link by normalised name, resolved
//! across products at commit (links carry no attributes).

use std::collections::{BTreeMap, HashMap, HashSet};

use semgraph_storage::{ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NodeId, ProductWriter};

use super::ProductRun;
use crate::error::IndexError;
use crate::java::{
    self, Annotation, JavaFile, MethodDecl, MethodKey, Receiver, ResolvedCall, Target, TypeDecl, TypeKind,
};
use crate::keys;
use crate::sql::{self, Access};
use crate::walk::{self, SourceFile, SourceKind};

/// Spring Data repository interfaces of relational stores (JPA, JDBC, R2DBC); the first type
/// argument is the domain type. Stores without tables (MongoDB, Elasticsearch…) are absent.
const FRAMEWORK_REPOSITORIES: &[&str] = &[
    "Repository",
    "CrudRepository",
    "ListCrudRepository",
    "PagingAndSortingRepository",
    "ListPagingAndSortingRepository",
    "JpaRepository",
    "JpaRepositoryImplementation",
    "JpaSpecificationExecutor",
    "QuerydslPredicateExecutor",
    "QueryByExampleExecutor",
    "ListQueryByExampleExecutor",
    "ReactiveCrudRepository",
    "ReactiveSortingRepository",
    "R2dbcRepository",
    "CoroutineCrudRepository",
    "CoroutineSortingRepository",
    "RxJava3CrudRepository",
    "RxJava3SortingRepository",
    "RevisionRepository",
];

/// Inherited repository methods that read the domain type's table.
const REPOSITORY_READS: &[&str] = &[
    "findById",
    "findAll",
    "findAllById",
    "findOne",
    "findBy",
    "count",
    "exists",
    "existsById",
    "getById",
    "getOne",
    "getReferenceById",
    "findRevisions",
    "findLastChangeRevision",
    "findRevision",
];

/// Inherited repository methods that write it.
const REPOSITORY_WRITES: &[&str] = &[
    "save",
    "saveAll",
    "saveAndFlush",
    "saveAllAndFlush",
    "delete",
    "deleteAll",
    "deleteById",
    "deleteAllById",
    "deleteInBatch",
    "deleteAllInBatch",
    "deleteAllByIdInBatch",
];

/// Subjects of Spring Data derived queries (`find…By…`).
const DERIVED_PREFIXES: &[&str] = &[
    "find", "read", "get", "query", "search", "stream", "count", "exists", "delete", "remove",
];

/// JDBC helpers whose first argument is the SQL: (type simple name, methods, via).
const SQL_CALLS: &[(&str, &[&str], &str)] = &[
    (
        "JdbcTemplate",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "jdbc-template",
    ),
    (
        "JdbcOperations",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "jdbc-template",
    ),
    (
        "NamedParameterJdbcTemplate",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "named-parameter-jdbc",
    ),
    (
        "NamedParameterJdbcOperations",
        &[
            "query",
            "queryForObject",
            "queryForList",
            "queryForMap",
            "queryForRowSet",
            "queryForStream",
            "update",
            "batchUpdate",
            "execute",
        ],
        "named-parameter-jdbc",
    ),
    ("JdbcClient", &["sql"], "jdbc-client"),
    ("DatabaseClient", &["sql"], "r2dbc-database-client"),
    (
        "Connection",
        &["prepareStatement", "prepareCall", "nativeSQL"],
        "jdbc",
    ),
    (
        "Statement",
        &[
            "executeQuery",
            "executeUpdate",
            "executeLargeUpdate",
            "execute",
            "addBatch",
        ],
        "jdbc",
    ),
    ("EntityManager", &["createNativeQuery"], "native-query"),
    (
        "Session",
        &["createNativeQuery", "createNativeMutationQuery"],
        "native-query",
    ),
    (
        "StatelessSession",
        &["createNativeQuery", "createNativeMutationQuery"],
        "native-query",
    ),
];

/// JPQL/HQL entry points: (type simple name, methods).
const JPQL_CALLS: &[(&str, &[&str])] = &[
    ("EntityManager", &["createQuery"]),
    (
        "Session",
        &["createQuery", "createSelectionQuery", "createMutationQuery"],
    ),
    (
        "StatelessSession",
        &["createQuery", "createSelectionQuery", "createMutationQuery"],
    ),
];

/// `EntityManager` and Hibernate `Session` methods that load one entity by class
/// (`find(Order.class, id)`).
const ENTITY_READS: &[(&str, &[&str])] = &[
    ("EntityManager", &["find", "getReference"]),
    ("Session", &["find", "get", "load", "getReference", "byId"]),
    ("StatelessSession", &["get", "fetch"]),
];

/// `EntityManager` and Hibernate `Session` methods that write the entity they are given.
const ENTITY_WRITES: &[(&str, &[&str])] = &[
    ("EntityManager", &["persist", "merge", "remove"]),
    (
        "Session",
        &[
            "persist",
            "merge",
            "remove",
            "save",
            "update",
            "saveOrUpdate",
            "delete",
        ],
    ),
    ("StatelessSession", &["insert", "update", "upsert", "delete"]),
];

/// `SimpleJdbcInsert` methods that insert a row.
const INSERT_CALLS: &[&str] = &[
    "execute",
    "executeAndReturnKey",
    "executeAndReturnKeyHolder",
    "executeBatch",
];

/// One JPA entity (or Spring Data JDBC/R2DBC `@Table` type), by name only.
#[derive(Debug, Clone)]
struct Entity {
    simple: String,
    /// `@Table(name, schema)` as written, when given.
    table: Option<String>,
    /// The superclass, qualified as the file's imports tell.
    parent: Option<String>,
    /// `@Inheritance(strategy)` as written, when given.
    inheritance: Option<String>,
    relations: Vec<Relation>,
}

/// An association field of an entity.
#[derive(Debug, Clone)]
struct Relation {
    field: String,
    /// The associated type, qualified as the file's imports tell.
    target: String,
    /// Saving the owner writes the associated rows (`cascade` ALL/PERSIST/MERGE, or
    /// `orphanRemoval`).
    cascade_save: bool,
    /// Deleting the owner deletes them (`cascade` ALL/REMOVE, or `orphanRemoval`).
    cascade_remove: bool,
}

/// A type argument of a supertype: a concrete type or the subtype's own type parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypeArg {
    Concrete(String),
    Param(usize),
}

/// A super-interface as an interface declares it.
#[derive(Debug, Clone)]
struct SuperRef {
    simple: String,
    qualified: String,
    args: Vec<TypeArg>,
    /// Whether it is Spring Data's: imported from `org.springframework.data…`, written
    /// with that package, or only reachable through such a wildcard import.
    spring_data: bool,
}

/// An interface that may be a repository: its supertypes with their type arguments.
#[derive(Debug, Clone, Default)]
struct RepoDecl {
    supers: Vec<SuperRef>,
    /// `@RepositoryDefinition(domainClass = X.class)`.
    domain: Option<String>,
}

/// The cross-file knowledge: entities, repository interfaces, string constants.
#[derive(Debug, Default)]
pub(super) struct DataModel {
    entities: HashMap<String, Entity>,
    /// JPA entity name (`@Entity(name)` or the simple class name) → fqns.
    entity_names: HashMap<String, Vec<String>>,
    repositories: HashMap<String, RepoDecl>,
    /// Type fqn → its `static final String` constants.
    constants: HashMap<String, Vec<(String, String)>>,
    /// Simple name → fqns of the types with constants.
    constant_types: HashMap<String, Vec<String>>,
}

fn simple(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn is_annotation(a: &Annotation, name: &str) -> bool {
    simple(&a.name) == name
}

fn annotation<'a>(annotations: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    annotations.iter().find(|a| is_annotation(a, name))
}

fn arg<'a>(a: &'a Annotation, key: &str) -> Option<&'a [String]> {
    a.args.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_slice())
}

/// The top-level type arguments of a written type: `Map<K, List<V>>` → `K`, `List<V>`.
fn type_args(written: &str) -> Vec<String> {
    let Some(open) = written.find('<') else {
        return Vec::new();
    };
    let close = written.rfind('>').filter(|&c| c > open).unwrap_or(written.len());
    let inner = &written[open + 1..close];
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A written type name made fully qualified as far as the file tells: single imports, the
/// file's own types, else the file's package.
fn qualify(file: &JavaFile, written: &str) -> String {
    let erased = java::erase(written);
    let erased = erased.trim_end_matches("[]").trim_end_matches(".class");
    let (first, rest) = match erased.split_once('.') {
        Some((f, r)) => (f, Some(r)),
        None => (erased, None),
    };
    let join = |base: &str| match rest {
        Some(r) => format!("{base}.{r}"),
        None => base.to_string(),
    };
    if let Some(i) = file
        .imports
        .iter()
        .find(|i| !i.is_static && !i.wildcard && simple(&i.path) == first)
    {
        return join(&i.path);
    }
    if first.starts_with(char::is_lowercase) && rest.is_some() {
        return erased.to_string();
    }
    if let Some(t) = file.types.iter().find(|t| !t.anonymous && t.name == first) {
        return join(&t.fqn);
    }
    if file.package.is_empty() {
        erased.to_string()
    } else {
        format!("{}.{erased}", file.package)
    }
}

/// The element type of a collection-typed field (`List<OrderLine>` → `OrderLine`), else
/// the field's type.
fn element_type(ty: &str) -> String {
    match type_args(ty).last() {
        Some(last) => last.clone(),
        None => ty.to_string(),
    }
}

impl DataModel {
    /// Gathers what `file` declares: entities, interfaces that may be repositories, constants.
    pub(super) fn collect(&mut self, file: &JavaFile) {
        for t in &file.types {
            if !t.constants.is_empty() {
                self.constants.insert(t.fqn.clone(), t.constants.clone());
                self.constant_types
                    .entry(t.name.clone())
                    .or_default()
                    .push(t.fqn.clone());
            }
            let entity = annotation(&t.annotations, "Entity");
            // `@Table` maps to SQL for JPA and Spring Data JDBC/R2DBC, not for Cassandra.
            let cassandra = file
                .imports
                .iter()
                .any(|i| i.path.contains(".cassandra.") && (i.wildcard || simple(&i.path) == "Table"));
            let table =
                annotation(&t.annotations, "Table").filter(|a| !cassandra && !a.name.contains(".cassandra."));
            let mappable = t.kind == TypeKind::Class || (t.kind == TypeKind::Record && entity.is_none());
            if mappable && (entity.is_some() || table.is_some()) {
                let name = entity
                    .and_then(|e| arg(e, "name"))
                    .and_then(|v| v.first().cloned())
                    .filter(|n| !n.is_empty())
                    .unwrap_or_else(|| t.name.clone());
                let table_name = table.and_then(|a| {
                    let name = arg(a, "name").or_else(|| arg(a, "value"))?.first()?.clone();
                    if name.is_empty() {
                        return None;
                    }
                    Some(
                        match arg(a, "schema").and_then(|s| s.first()).filter(|s| !s.is_empty()) {
                            Some(schema) => format!("{schema}.{name}"),
                            None => name,
                        },
                    )
                });
                let relations = t
                    .fields
                    .iter()
                    .filter_map(|f| {
                        let a = ["OneToMany", "ManyToOne", "OneToOne", "ManyToMany"]
                            .iter()
                            .find_map(|n| annotation(&f.annotations, n))?;
                        let target = arg(a, "targetEntity")
                            .and_then(|v| v.first())
                            .map(|v| v.trim_end_matches(".class").to_string())
                            .unwrap_or_else(|| element_type(&f.ty));
                        let cascade: Vec<String> = arg(a, "cascade")
                            .unwrap_or_default()
                            .iter()
                            .flat_map(|v| v.split([',', '{', '}']))
                            .map(|v| simple(v.trim()).to_string())
                            .collect();
                        let orphans =
                            arg(a, "orphanRemoval").is_some_and(|v| v.first().is_some_and(|v| v == "true"));
                        let has = |names: &[&str]| cascade.iter().any(|c| names.contains(&c.as_str()));
                        Some(Relation {
                            field: f.name.clone(),
                            target: qualify(file, &target),
                            cascade_save: orphans || has(&["ALL", "PERSIST", "MERGE"]),
                            cascade_remove: orphans || has(&["ALL", "REMOVE"]),
                        })
                    })
                    .collect();
                self.entity_names.entry(name).or_default().push(t.fqn.clone());
                self.entities.insert(
                    t.fqn.clone(),
                    Entity {
                        simple: t.name.clone(),
                        table: table_name,
                        parent: t.extends.first().map(|p| qualify(file, p)),
                        inheritance: annotation(&t.annotations, "Inheritance")
                            .and_then(|a| arg(a, "strategy").or_else(|| arg(a, "value")))
                            .and_then(|v| v.first())
                            .map(|v| simple(v).to_string()),
                        relations,
                    },
                );
            }
            if t.kind == TypeKind::Interface {
                let domain = annotation(&t.annotations, "RepositoryDefinition")
                    .and_then(|a| arg(a, "domainClass"))
                    .and_then(|v| v.first())
                    .map(|v| qualify(file, v));
                if t.extends.is_empty() && domain.is_none() {
                    continue;
                }
                let supers =
                    t.extends
                        .iter()
                        .map(|s| {
                            let args = type_args(s)
                                .iter()
                                .map(|a| match t.type_params.iter().position(|p| p == a) {
                                    Some(i) => TypeArg::Param(i),
                                    None => TypeArg::Concrete(qualify(file, a)),
                                })
                                .collect();
                            let qualified = qualify(file, s);
                            let name = simple(&java::erase(s)).to_string();
                            let imported = file
                                .imports
                                .iter()
                                .any(|i| !i.is_static && !i.wildcard && simple(&i.path) == name);
                            let declared_here = file.types.iter().any(|t| t.name == name);
                            let spring_data = qualified.starts_with("org.springframework.data.")
                                || (!imported
                                    && !declared_here
                                    && file.imports.iter().any(|i| {
                                        i.wildcard && i.path.starts_with("org.springframework.data")
                                    }));
                            SuperRef {
                                simple: name,
                                qualified,
                                args,
                                spring_data,
                            }
                        })
                        .collect();
                self.repositories
                    .insert(t.fqn.clone(), RepoDecl { supers, domain });
            }
        }
    }

    /// The entity a type name denotes: by fqn, else the one entity of that simple name.
    fn entity(&self, fqn: &str) -> Option<&str> {
        if let Some((k, _)) = self.entities.get_key_value(fqn) {
            return Some(k);
        }
        let mut same = self.entities.iter().filter(|(_, e)| e.simple == simple(fqn));
        match (same.next(), same.next()) {
            (Some((k, _)), None) => Some(k),
            _ => None,
        }
    }

    /// The table of an entity: `@Table`, else its single-table root's, else the default name.
    fn table_of(&self, fqn: &str) -> Option<String> {
        let mut cur = self.entities.get(fqn)?;
        if let Some(t) = &cur.table {
            return Some(t.clone());
        }
        // JPA's default inheritance is one table for the hierarchy, named after its root.
        let mut depth = 0;
        while let Some(parent) = cur.parent.as_deref().and_then(|p| self.entities.get(p)) {
            depth += 1;
            if depth > 16 {
                break;
            }
            if let Some(t) = &parent.table {
                let single = parent.inheritance.as_deref().is_none_or(|s| s == "SINGLE_TABLE");
                if single
                    && parent
                        .parent
                        .as_deref()
                        .is_none_or(|p| !self.entities.contains_key(p))
                {
                    return Some(t.clone());
                }
            }
            cur = parent;
        }
        let root_single = cur.inheritance.as_deref().is_none_or(|s| s == "SINGLE_TABLE");
        let own = self.entities.get(fqn)?;
        if !std::ptr::eq(cur, own) && root_single {
            return Some(sql::spring_table_name(&cur.simple));
        }
        Some(sql::spring_table_name(&own.simple))
    }

    /// The domain type argument of repository `fqn` as declared (concrete or a parameter).
    fn domain_arg(&self, fqn: &str, depth: usize) -> Option<TypeArg> {
        let repo = self.repositories.get(fqn)?;
        if let Some(d) = &repo.domain {
            return Some(TypeArg::Concrete(d.clone()));
        }
        if depth > 16 {
            return None;
        }
        for s in &repo.supers {
            if self.repositories.contains_key(&s.qualified) {
                match self.domain_arg(&s.qualified, depth + 1) {
                    Some(TypeArg::Concrete(c)) => return Some(TypeArg::Concrete(c)),
                    Some(TypeArg::Param(i)) => return s.args.get(i).cloned(),
                    None => continue,
                }
            }
            if s.spring_data && FRAMEWORK_REPOSITORIES.contains(&s.simple.as_str()) {
                return s.args.first().cloned();
            }
        }
        None
    }

    /// The entity fqn of a Spring Data repository interface of the product.
    fn repository_entity(&self, fqn: &str) -> Option<&str> {
        match self.domain_arg(fqn, 0)? {
            TypeArg::Concrete(c) => self.entity(&c),
            TypeArg::Param(_) => None,
        }
    }

    /// Whether `fqn` is a repository interface (whatever its domain type).
    fn is_repository(&self, fqn: &str) -> bool {
        self.domain_arg(fqn, 0).is_some()
    }

    /// The tables a save (`remove` false) or delete of `entity` writes: its own and those
    /// its cascading associations reach.
    fn cascade_tables(&self, entity: &str, remove: bool) -> Vec<String> {
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        let mut stack = vec![entity.to_string()];
        while let Some(e) = stack.pop() {
            if !seen.insert(e.clone()) || seen.len() > 32 {
                continue;
            }
            if let Some(t) = self.table_of(&e) {
                out.push(t);
            }
            for r in self
                .entities
                .get(&e)
                .map(|x| x.relations.as_slice())
                .unwrap_or_default()
            {
                if (remove && r.cascade_remove) || (!remove && r.cascade_save) {
                    if let Some(target) = self.entity(&r.target) {
                        stack.push(target.to_string());
                    }
                }
            }
        }
        out
    }

    /// The JPA entity a JPQL name denotes: an entity name, or a qualified class name.
    fn jpql_entity(&self, name: &str) -> Option<&str> {
        if let Some(fqns) = self.entity_names.get(name) {
            return match fqns.as_slice() {
                [one] => Some(one),
                _ => None,
            };
        }
        self.entities.get_key_value(name).map(|(k, _)| k.as_str())
    }

    /// The tables a JPQL text reads and writes, or the first name that is no entity.
    fn jpql_tables(&self, text: &str) -> Result<Vec<(String, Access)>, String> {
        let mut out: Vec<(String, Access)> = Vec::new();
        for (path, access) in sql::jpql_touches(text) {
            let Some(mut entity) = self.jpql_entity(&path[0]) else {
                return Err(format!(
                    "JPQL names {} which is no entity of the product",
                    path[0]
                ));
            };
            for field in &path[1..] {
                let target = self
                    .entities
                    .get(entity)
                    .and_then(|e| e.relations.iter().find(|r| &r.field == field))
                    .and_then(|r| self.entity(&r.target));
                match target {
                    Some(t) => entity = t,
                    None => {
                        return Err(format!(
                            "JPQL path {} is no association of an entity",
                            path.join(".")
                        ))
                    }
                }
            }
            if let Some(table) = self.table_of(entity) {
                if !out.contains(&(table.clone(), access)) {
                    out.push((table, access));
                }
            }
        }
        Ok(out)
    }

    /// The value of a string expression: literals, text blocks, constants (of `ty`, its
    /// enclosing types, or `Owner.NAME`) and `+` concatenations of those.
    pub(super) fn string_value(&self, file: &JavaFile, ty: &TypeDecl, expr: &str) -> Option<String> {
        let mut out = String::new();
        for part in split_concat(expr) {
            let part = part.trim();
            if let Some(block) = part.strip_prefix("\"\"\"").and_then(|p| p.strip_suffix("\"\"\"")) {
                out.push_str(&unescape_java(
                    block
                        .trim_start_matches([' ', '\t', '\r'])
                        .trim_start_matches('\n'),
                ));
            } else if let Some(lit) = part.strip_prefix('"').and_then(|p| p.strip_suffix('"')) {
                out.push_str(&unescape_java(lit));
            } else if !part.is_empty() && part.chars().all(|c| c.is_ascii_digit()) {
                out.push_str(part);
            } else if is_dotted_identifier(part) {
                out.push_str(&self.constant(file, ty, part)?);
            } else {
                return None;
            }
        }
        Some(out)
    }

    fn constant(&self, file: &JavaFile, ty: &TypeDecl, name: &str) -> Option<String> {
        let name = name.strip_prefix("this.").unwrap_or(name);
        let find = |fqn: &str, n: &str| {
            self.constants
                .get(fqn)
                .and_then(|c| c.iter().find(|(k, _)| k == n))
                .map(|(_, v)| v.clone())
        };
        match name.rsplit_once('.') {
            None => {
                let mut scope = Some(ty);
                while let Some(t) = scope {
                    if let Some(v) = find(&t.fqn, name) {
                        return Some(v);
                    }
                    scope = t
                        .outer
                        .as_deref()
                        .and_then(|o| file.types.iter().find(|x| x.fqn == o));
                }
                // A static import of the constant.
                let import = file
                    .imports
                    .iter()
                    .find(|i| i.is_static && !i.wildcard && simple(&i.path) == name)?;
                let (owner, n) = import.path.rsplit_once('.')?;
                find(owner, n)
            }
            Some((owner, n)) => {
                let qualified = qualify(file, owner);
                find(&qualified, n).or_else(|| {
                    match self.constant_types.get(simple(owner)).map(Vec::as_slice) {
                        Some([one]) => find(one, n),
                        _ => None,
                    }
                })
            }
        }
    }

    /// The text of an annotation value: a literal's content as the parser gives it, or an
    /// expression of literals and constants.
    fn annotation_text(&self, file: &JavaFile, ty: &TypeDecl, values: &[String]) -> Option<String> {
        let mut parts = Vec::new();
        for v in values {
            let evaluated = if v.contains('"') || is_dotted_identifier(v) {
                self.string_value(file, ty, v)
            } else {
                None
            };
            match evaluated {
                Some(e) => parts.push(e),
                None if is_dotted_identifier(v) => return None,
                None => parts.push(v.clone()),
            }
        }
        Some(parts.join(" "))
    }
}

fn is_dotted_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|p| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
                && p.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        })
}

/// `a + "b" + C.D` → its operands; `+` inside string literals and parentheses is kept.
fn split_concat(expr: &str) -> Vec<&str> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                if expr[i..].starts_with("\"\"\"") {
                    i = expr[i + 3..].find("\"\"\"").map_or(b.len(), |p| i + 3 + p + 3);
                    continue;
                }
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => depth += 1,
            b')' => depth = depth.saturating_sub(1),
            b'+' if depth == 0 => {
                out.push(&expr[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push(&expr[start.min(expr.len())..]);
    out
}

fn unescape_java(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') | Some('\n') => out.push(' '),
            Some('s') => out.push(' '),
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

/// One Reads (false) or Writes (true) edge from a node to a normalised table name.
type TouchKey = (NodeId, bool, String);

/// What is known of one touch: the table as written, the lines, how it was found.
#[derive(Default)]
struct TouchFacts {
    name: String,
    lines: Vec<u32>,
    vias: Vec<&'static str>,
}

/// The Reads/Writes edges of one file, gathered so each (method, table, kind) is written
/// once with all its lines.
#[derive(Default)]
struct Touches {
    edges: BTreeMap<TouchKey, TouchFacts>,
    /// Accesses not determined: count and the first reason with its line.
    unknown: u64,
    first_unknown: Option<(u32, String)>,
    /// SQL read by the token scan because sqlparser refused it.
    unparsed: u64,
    first_unparsed: Option<u32>,
}

impl Touches {
    fn add(&mut self, from: NodeId, table: &str, access: Access, line: u32, via: &'static str) {
        let key = keys::table_name(table);
        if key.is_empty() {
            return;
        }
        if key.contains(['{', '$']) {
            self.unknown(line, "a table name is a placeholder");
            return;
        }
        let entry = self
            .edges
            .entry((from, access == Access::Write, key))
            .or_insert_with(|| TouchFacts {
                name: table.to_string(),
                ..TouchFacts::default()
            });
        if line > 0 && !entry.lines.contains(&line) {
            entry.lines.push(line);
        }
        if !entry.vias.contains(&via) {
            entry.vias.push(via);
        }
    }

    fn unknown(&mut self, line: u32, reason: impl Into<String>) {
        self.unknown += 1;
        if self.first_unknown.is_none() {
            self.first_unknown = Some((line, reason.into()));
        }
    }

    /// Adds the tables of a SQL text, counting what did not parse.
    fn sql(&mut self, from: NodeId, text: &str, line: u32, via: &'static str) {
        let touches = sql::sql_touches(text);
        if !touches.looks_like_sql {
            self.unknown(line, "a SQL argument is no SQL statement");
            return;
        }
        if !touches.parsed {
            self.unparsed += 1;
            self.first_unparsed.get_or_insert(line);
        }
        for (table, access) in touches.tables {
            self.add(from, &table, access, line, via);
        }
    }

    fn flush(self, run: &mut ProductRun, w: &mut ProductWriter, path: &str) -> Result<(), IndexError> {
        for (
            (from, write, key),
            TouchFacts {
                name,
                mut lines,
                vias,
            },
        ) in self.edges
        {
            let kind = if write { EdgeKind::Writes } else { EdgeKind::Reads };
            lines.sort_unstable();
            match run.tables.get(&key) {
                Some(&to) => {
                    let attrs = EdgeAttrs {
                        lines,
                        via: Some(vias.join(",")),
                    };
                    w.add_edge_with(from, kind, to, &attrs)?;
                }
                None => {
                    w.add_link(from, kind, &keys::table(&name), LinkPolicy::Unique)?;
                    run.stat("tables.linked", 1);
                }
            }
            run.stat(if write { "tables.writes" } else { "tables.reads" }, 1);
        }
        if self.unparsed > 0 {
            run.stat("tables.sql.unparsed", self.unparsed);
            run.warn(
                path,
                self.first_unparsed,
                format!(
                    "{} SQL statement(s) not parsed by sqlparser; their tables come from a token scan",
                    self.unparsed
                ),
            );
        }
        if self.unknown > 0 {
            run.stat("tables.unknown", self.unknown);
            let (line, reason) = self.first_unknown.unwrap_or((0, String::new()));
            run.warn(
                path,
                Some(line),
                format!("{} data access(es) not determined, first: {reason}", self.unknown),
            );
        }
        Ok(())
    }
}

/// Writes the MapsTo edges of `file`'s entities and the accesses its declarations make:
/// repository query methods, `@Query`, MyBatis annotations.
pub(super) fn write_declared(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    data: &DataModel,
    file: &JavaFile,
    type_node: &dyn Fn(&str) -> Option<NodeId>,
    method_node: &dyn Fn(&MethodKey) -> Option<NodeId>,
) -> Result<(), IndexError> {
    let mut touches = Touches::default();
    for t in &file.types {
        if data.entities.contains_key(&t.fqn) {
            let table = data.table_of(&t.fqn).filter(|t| !t.contains(['{', '$']));
            if let (Some(table), Some(node)) = (table, type_node(&t.fqn)) {
                let attrs = EdgeAttrs {
                    lines: vec![t.line_start as u32],
                    via: Some("jpa-entity".into()),
                };
                match run.tables.get(&keys::table_name(&table)) {
                    Some(&to) => w.add_edge_with(node, EdgeKind::MapsTo, to, &attrs)?,
                    None => w.add_link(node, EdgeKind::MapsTo, &keys::table(&table), LinkPolicy::Unique)?,
                }
                run.stat("tables.entities", 1);
            }
        }
        if t.kind != TypeKind::Interface {
            continue;
        }
        let repository = data.is_repository(&t.fqn);
        let entity = data.repository_entity(&t.fqn);
        if repository && entity.is_none() {
            touches.unknown(
                t.line_start as u32,
                format!(
                    "the domain type of repository {} is no entity of the product",
                    t.name
                ),
            );
        }
        for m in t.methods.iter().filter(|m| !m.has_body) {
            let Some(node) = method_node(&super::code::method_key(t, m)) else {
                continue;
            };
            let line = m.line_start as u32;
            if declared_sql(data, file, t, m, node, &mut touches) {
                continue;
            }
            if let Some(entity) = entity {
                if let Some(access) = derived_query(&m.name) {
                    if let Some(table) = data.table_of(entity) {
                        touches.add(node, &table, access, line, "jpa-repository");
                    }
                }
            }
        }
    }
    touches.flush(run, w, &file.path)
}

/// `@Query` and MyBatis statement annotations on `m`; true when `m` had one.
fn declared_sql(
    data: &DataModel,
    file: &JavaFile,
    t: &TypeDecl,
    m: &MethodDecl,
    node: NodeId,
    touches: &mut Touches,
) -> bool {
    let line = m.line_start as u32;
    if let Some(q) = annotation(&m.annotations, "Query") {
        let Some(values) = arg(q, "value").filter(|v| !v.is_empty()) else {
            // `@Query(name = …)` names a query declared elsewhere.
            touches.unknown(line, format!("@Query on {} has no query text", m.name));
            return true;
        };
        let Some(text) = data.annotation_text(file, t, values) else {
            touches.unknown(
                line,
                format!("the @Query text of {} is not a literal or constant", m.name),
            );
            return true;
        };
        // Spring Data JDBC's and R2DBC's `@Query` hold SQL; JPA's hold JPQL unless native.
        let sql_store = |path: &str| path.contains(".data.jdbc.") || path.contains(".data.r2dbc.");
        let imported_from_sql_store = file
            .imports
            .iter()
            .any(|i| !i.is_static && simple(&i.path) == "Query" && sql_store(&i.path));
        let native = imported_from_sql_store
            || sql_store(&q.name)
            || arg(q, "nativeQuery").is_some_and(|v| v.first().is_some_and(|v| v == "true"));
        if native {
            touches.sql(node, &text, line, "native-query");
        } else {
            match data.jpql_tables(&text) {
                Ok(tables) => {
                    for (table, access) in tables {
                        touches.add(node, &table, access, line, "jpql");
                    }
                }
                Err(reason) => touches.unknown(line, reason),
            }
        }
        return true;
    }
    for name in ["Select", "Insert", "Update", "Delete"] {
        let Some(a) = annotation(&m.annotations, name) else {
            continue;
        };
        match arg(a, "value").and_then(|v| data.annotation_text(file, t, v)) {
            Some(text) => touches.sql(node, &text, line, "mybatis-annotation"),
            None => touches.unknown(
                line,
                format!("the @{name} text of {} is not a literal or constant", m.name),
            ),
        }
        return true;
    }
    false
}

/// The access of a Spring Data derived query method, from its name.
fn derived_query(name: &str) -> Option<Access> {
    if REPOSITORY_WRITES.contains(&name) {
        return Some(Access::Write);
    }
    if REPOSITORY_READS.contains(&name) {
        return Some(Access::Read);
    }
    let prefix = DERIVED_PREFIXES.iter().find(|p| name.starts_with(*p))?;
    let rest = &name[prefix.len()..];
    if !rest.starts_with(char::is_uppercase) || !rest.contains("By") {
        return None;
    }
    Some(if matches!(*prefix, "delete" | "remove") {
        Access::Write
    } else {
        Access::Read
    })
}

/// Writes the accesses that `file`'s resolved calls make, from the calling methods.
pub(super) fn write_call_accesses(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    data: &DataModel,
    file: &JavaFile,
    calls: &[ResolvedCall],
    methods: &HashMap<MethodKey, NodeId>,
) -> Result<(), IndexError> {
    let mut touches = Touches::default();
    for call in calls {
        let Target::External { type_fqn, method } = &call.target else {
            continue;
        };
        let Some(&from) = methods.get(&call.caller) else {
            continue;
        };
        let line = call.line as u32;
        // An inherited repository method on a repository of the product.
        if let Some(entity) = call
            .receiver_type
            .as_deref()
            .and_then(|r| data.repository_entity(r))
        {
            let site = caller_decl(file, &call.caller).and_then(|(_, m)| {
                m.calls
                    .iter()
                    .find(|c| c.line == call.line && &c.name == method)
                    .map(|s| (m, s))
            });
            if site.is_some_and(|(m, s)| in_mock_setup(m, s)) {
                continue;
            }
            if REPOSITORY_WRITES.contains(&method.as_str()) {
                let remove = method.starts_with("delete");
                for table in data.cascade_tables(entity, remove) {
                    touches.add(from, &table, Access::Write, line, "jpa-repository");
                }
            } else if REPOSITORY_READS.contains(&method.as_str()) {
                if let Some(table) = data.table_of(entity) {
                    touches.add(from, &table, Access::Read, line, "jpa-repository");
                }
            }
            continue;
        }
        let owner = simple(type_fqn);
        let sql_call = SQL_CALLS
            .iter()
            .find(|(t, ms, _)| *t == owner && ms.contains(&method.as_str()))
            .map(|(_, _, via)| *via);
        let jpql_call = JPQL_CALLS
            .iter()
            .any(|(t, ms)| *t == owner && ms.contains(&method.as_str()));
        let insert_call = owner == "SimpleJdbcInsert" && INSERT_CALLS.contains(&method.as_str());
        let listed = |table: &[(&str, &[&str])]| {
            table
                .iter()
                .any(|(t, ms)| *t == owner && ms.contains(&method.as_str()))
        };
        let entity_access = if listed(ENTITY_READS) {
            Some(Access::Read)
        } else if listed(ENTITY_WRITES) {
            Some(Access::Write)
        } else {
            None
        };
        if sql_call.is_none() && !jpql_call && !insert_call && entity_access.is_none() {
            continue;
        }
        let Some((t, m)) = caller_decl(file, &call.caller) else {
            continue;
        };
        let Some(site) = m.calls.iter().find(|c| c.line == call.line && &c.name == method) else {
            continue;
        };
        if site.arg_texts.is_empty() || in_mock_setup(m, site) {
            // `preparedStatement.executeQuery()`: the SQL was given earlier; a stubbed or
            // verified call on a mock touches no table.
            continue;
        }
        if let Some(access) = entity_access {
            // The entity is the class literal of a load, or the declared type of what is
            // written.
            let written = site.arg_texts.first().filter(|a| a.ends_with(".class")).cloned();
            let ty = written.or_else(|| site.arg_types.first().cloned().flatten());
            let entity = ty.and_then(|ty| data.entity(&qualify(file, &ty)).map(str::to_string));
            match entity.as_deref().and_then(|e| data.table_of(e).map(|t| (e, t))) {
                Some((e, _)) if access == Access::Write => {
                    let remove = matches!(method.as_str(), "remove" | "delete");
                    for table in data.cascade_tables(e, remove) {
                        touches.add(from, &table, Access::Write, line, "entity-manager");
                    }
                }
                Some((_, table)) => touches.add(from, &table, Access::Read, line, "entity-manager"),
                None => touches.unknown(line, format!("the entity of {owner}.{method}(…) is not known")),
            }
            continue;
        }
        if insert_call {
            match inserted_table(data, file, t, m, &site.receiver) {
                Some(table) => touches.add(from, &table, Access::Write, line, "simple-jdbc-insert"),
                None => touches.unknown(
                    line,
                    "the table of a SimpleJdbcInsert is not a literal or constant",
                ),
            }
            continue;
        }
        let text = site.arg_texts.first().filter(|a| a.len() < 4096).and_then(|a| {
            let local = m
                .string_locals
                .iter()
                .find(|(n, scope, _)| n == a && scope.0 <= site.byte && site.byte < scope.1);
            match local {
                Some((_, _, value)) => Some(value.clone()),
                None => data.string_value(file, t, a),
            }
        });
        let Some(text) = text else {
            touches.unknown(
                line,
                format!(
                    "the SQL of {owner}.{method}(…) is not a literal, constant or concatenation of those"
                ),
            );
            continue;
        };
        match sql_call {
            Some(via) => touches.sql(from, &text, line, via),
            None => match data.jpql_tables(&text) {
                Ok(tables) => {
                    for (table, access) in tables {
                        touches.add(from, &table, access, line, "jpql");
                    }
                }
                Err(reason) => touches.unknown(line, reason),
            },
        }
    }
    touches.flush(run, w, &file.path)
}

/// Mockito and BDDMockito calls whose receiver chain stubs or verifies a mock
/// (`verify(repo).save(…)`, `doReturn(x).when(repo).findById(…)`, `then(repo).should()…`).
const MOCK_RECEIVERS: &[&str] = &[
    "verify",
    "when",
    "should",
    "shouldHaveNoMoreInteractions",
    "inOrder",
];

/// Calls whose argument is a stubbed call (`when(repo.findById(1L))`, `given(…)`).
const STUBBING_CALLS: &[&str] = &["when", "given"];

/// Whether `site` only stubs or verifies a mock: such a call runs no SQL.
fn in_mock_setup(m: &MethodDecl, site: &java::CallSite) -> bool {
    if let Receiver::Call(inner) = &site.receiver {
        if MOCK_RECEIVERS.contains(&inner.name.as_str()) {
            return true;
        }
    }
    let called = format!(".{}(", site.name);
    m.calls.iter().any(|c| {
        STUBBING_CALLS.contains(&c.name.as_str())
            && c.line <= site.line
            && site.line - c.line <= 3
            && c.arg_texts.first().is_some_and(|a| {
                let flat: String = a.split_whitespace().collect();
                flat.contains(&called)
            })
    })
}

/// The type and method declarations of `key` in `file`.
pub(super) fn caller_decl<'f>(file: &'f JavaFile, key: &MethodKey) -> Option<(&'f TypeDecl, &'f MethodDecl)> {
    let t = file.types.iter().find(|t| t.fqn == key.type_fqn)?;
    let m = t
        .methods
        .iter()
        .find(|m| m.name == key.name && super::code::method_key(t, m) == *key)?;
    Some((t, m))
}

/// The table a `SimpleJdbcInsert` inserts into: `withTableName(…)` in the same method, or,
/// for a field, in the type when it has that one insert field and names one table.
fn inserted_table(
    data: &DataModel,
    file: &JavaFile,
    t: &TypeDecl,
    m: &MethodDecl,
    receiver: &Receiver,
) -> Option<String> {
    let tables_in = |m: &MethodDecl| -> Vec<Option<String>> {
        m.calls
            .iter()
            .filter(|c| c.name == "withTableName")
            .map(|c| c.arg_texts.first().and_then(|a| data.string_value(file, t, a)))
            .collect()
    };
    let own = tables_in(m);
    if let [Some(table)] = own.as_slice() {
        return Some(table.clone());
    }
    if !own.is_empty() {
        return None;
    }
    let field = match receiver {
        Receiver::Name(n) => n,
        Receiver::Field(inner, n) if **inner == Receiver::This => n,
        _ => return None,
    };
    let insert_fields: Vec<&str> = t
        .fields
        .iter()
        .filter(|f| simple(&java::erase(&f.ty)) == "SimpleJdbcInsert")
        .map(|f| f.name.as_str())
        .collect();
    if insert_fields != [field.as_str()] {
        return None;
    }
    let all: Vec<Option<String>> = t.methods.iter().flat_map(tables_in).collect();
    let first = all.first()?.clone()?;
    all.iter()
        .all(|x| x.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// Reads the MyBatis mapper files among `files` and writes their statements' accesses
/// from the interface methods they belong to; each statement's SQL is the method's SQL
/// content.
pub(super) fn write_mapper_xml(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    files: &[SourceFile],
    methods: &HashMap<MethodKey, NodeId>,
) -> Result<(), IndexError> {
    let mut by_name: HashMap<(&str, &str), Vec<NodeId>> = HashMap::new();
    for (k, &id) in methods {
        by_name.entry((&k.type_fqn, &k.name)).or_default().push(id);
    }
    for f in files
        .iter()
        .filter(|f| f.kind == SourceKind::Xml && !f.rel.contains("src/test/"))
    {
        let Some(text) = walk::read_source(f, &mut run.warnings) else {
            continue;
        };
        if !text.contains("<mapper") {
            continue;
        }
        let Some(mapper) = sql::parse_mapper(&text) else {
            continue;
        };
        let mut touches = Touches::default();
        for s in &mapper.statements {
            match by_name
                .get(&(mapper.namespace.as_str(), s.id.as_str()))
                .map(Vec::as_slice)
            {
                Some([node]) => {
                    w.set_content(*node, ContentKind::Sql, &s.sql)?;
                    touches.sql(*node, &s.sql, s.line, "mybatis-xml");
                }
                Some(_) => touches.unknown(s.line, format!("statement {} matches several overloads", s.id)),
                None => touches.unknown(
                    s.line,
                    format!("statement {} has no method in {}", s.id, mapper.namespace),
                ),
            }
        }
        run.stat("mybatis.statements", mapper.statements.len() as u64);
        touches.flush(run, w, &f.rel)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(sources: &[(&str, &str)]) -> (DataModel, Vec<JavaFile>) {
        let mut data = DataModel::default();
        let files: Vec<JavaFile> = sources
            .iter()
            .map(|(path, text)| java::parse_java_file(path, text))
            .collect();
        for f in &files {
            data.collect(f);
        }
        (data, files)
    }

    #[test]
    fn entities_take_table_then_inheritance_root_then_default_names() {
        let (data, _) = model(&[
            (
                "A.java",
                "package p; import jakarta.persistence.*;\n\
                 @Entity(name = \"Purchase\") @Table(name = \"purchases\", schema = \"shop\") class Order {}\n\
                 @Entity class OrderStatusHistory {}\n\
                 @Entity @Inheritance(strategy = InheritanceType.JOINED) class Payment {}\n\
                 @Entity class CardPayment extends Payment {}\n\
                 @Entity @Table(name = \"vehicles\") class Vehicle {}\n\
                 @Entity class Car extends Vehicle {}\n",
            ),
        ]);
        assert_eq!(data.table_of("p.Order").as_deref(), Some("shop.purchases"));
        assert_eq!(
            data.table_of("p.OrderStatusHistory").as_deref(),
            Some("order_status_history")
        );
        assert_eq!(data.table_of("p.CardPayment").as_deref(), Some("card_payment"));
        assert_eq!(data.table_of("p.Car").as_deref(), Some("vehicles"));
        assert_eq!(data.jpql_entity("Purchase"), Some("p.Order"));
        assert_eq!(
            data.jpql_entity("Order"),
            None,
            "the entity name replaces the class name"
        );
    }

    #[test]
    fn spring_data_jdbc_records_map_and_cassandra_tables_do_not() {
        let (data, _) = model(&[
            (
                "J.java",
                "package j; import org.springframework.data.relational.core.mapping.Table;\n\
                 @Table(\"customers\") record Customer(Long id) {}\n",
            ),
            (
                "C.java",
                "package c; import org.springframework.data.cassandra.core.mapping.Table;\n\
                 @Table(\"events\") class Event {}\n",
            ),
        ]);
        assert_eq!(data.table_of("j.Customer").as_deref(), Some("customers"));
        assert_eq!(data.table_of("c.Event"), None);
        assert_eq!(
            type_args("A>B<C"),
            vec!["C".to_string()],
            "malformed text never panics"
        );
    }

    #[test]
    fn repositories_find_their_entity_through_generic_bases() {
        let (data, _) = model(&[
            ("E.java", "package p; @Entity @Table(name = \"orders\") class Order {}"),
            (
                "R.java",
                "package p; import org.springframework.data.jpa.repository.JpaRepository;\n\
                 interface BaseRepository<T, ID> extends JpaRepository<T, ID> {}\n\
                 interface OrderRepository extends BaseRepository<Order, Long> {}\n\
                 interface Plain extends java.io.Serializable {}\n\
                 interface Own extends com.acme.lib.Repository<Order> {}\n\
                 interface Wild extends CrudRepository<Order, Long> {}\n\
                 interface Docs extends org.springframework.data.mongodb.repository.MongoRepository<Order, String> {}\n",
            ),
        ]);
        assert_eq!(data.repository_entity("p.OrderRepository"), Some("p.Order"));
        assert_eq!(data.repository_entity("p.BaseRepository"), None);
        assert!(!data.is_repository("p.Plain"));
        assert!(
            !data.is_repository("p.Own"),
            "another library's Repository is no Spring Data one"
        );
        assert!(
            !data.is_repository("p.Wild"),
            "CrudRepository here is not imported from Spring Data"
        );
        assert!(
            !data.is_repository("p.Docs"),
            "MongoDB repositories have no tables"
        );
    }

    #[test]
    fn jpql_maps_entity_names_and_association_paths_never_table_names() {
        let (data, _) = model(&[(
            "E.java",
            "package p; import java.util.List;\n\
             @Entity @Table(name = \"orders\") class Order { @OneToMany(mappedBy = \"order\") List<OrderLine> lines; }\n\
             @Entity @Table(name = \"order_lines\") class OrderLine {}\n",
        )]);
        assert_eq!(
            data.jpql_tables("select o from Order o join fetch o.lines l where l.sku = :sku"),
            Ok(vec![
                ("orders".to_string(), Access::Read),
                ("order_lines".to_string(), Access::Read)
            ])
        );
        assert_eq!(
            data.jpql_tables("update Order o set o.status = :s where o.id = :id"),
            Ok(vec![("orders".to_string(), Access::Write)])
        );
        assert!(
            data.jpql_tables("select x from Invoice x").is_err(),
            "no entity, no table"
        );
        let tables = data.jpql_tables("select o from Order o").unwrap_or_default();
        assert!(!tables.iter().any(|(t, _)| t == "order"));
    }

    #[test]
    fn string_values_join_literals_constants_and_text_blocks() {
        let (data, files) = model(&[
            (
                "Q.java",
                "package p; public final class Queries { public static final String COLS = \"id, name\"; }",
            ),
            (
                "D.java",
                "package p; class Dao { private static final String T = \"orders\";\n\
                 void f() {} }",
            ),
        ]);
        let file = &files[1];
        let t = &file.types[0];
        assert_eq!(
            data.string_value(file, t, "\"SELECT \" + Queries.COLS + \" FROM \" + T")
                .as_deref(),
            Some("SELECT id, name FROM orders")
        );
        assert_eq!(
            data.string_value(file, t, "\"\"\"\n    SELECT 1\n    \"\"\"")
                .as_deref()
                .map(str::trim),
            Some("SELECT 1")
        );
        assert_eq!(
            data.string_value(file, t, "sql"),
            None,
            "a local variable is not known"
        );
    }

    #[test]
    fn derived_query_names_follow_spring_data() {
        assert_eq!(
            derived_query("findByCustomerIdOrderByCreatedAtDesc"),
            Some(Access::Read)
        );
        assert_eq!(derived_query("countByStatus"), Some(Access::Read));
        assert_eq!(derived_query("existsByCode"), Some(Access::Read));
        assert_eq!(derived_query("findTop10ByOrderByIdDesc"), Some(Access::Read));
        assert_eq!(derived_query("deleteByExpiresAtBefore"), Some(Access::Write));
        assert_eq!(derived_query("removeByCode"), Some(Access::Write));
        assert_eq!(derived_query("findAll"), Some(Access::Read));
        assert_eq!(derived_query("finder"), None);
        assert_eq!(
            derived_query("getTotals"),
            None,
            "no By: a custom fragment method"
        );
    }
}
