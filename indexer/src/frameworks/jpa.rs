//! JPA (and Hibernate): `@Entity` types mapped to their tables, and what `EntityManager`
//! and Hibernate `Session` calls read and write.
//!
//! What is gathered across files is kept small — names only — in [`Entities`]: each
//! entity's table (`@Table`, else the single-table inheritance root's, else Spring Boot's
//! snake_case default name) and associations with their cascades. Spring Data JDBC and
//! R2DBC `@Table` types map the same way; Cassandra's `@Table` has no SQL table.
//!
//! From calls, from the calling method: `find`/`getReference`/… of an entity class read its
//! table; `persist`/`merge`/`remove`/… of an entity write its table and those its cascading
//! associations reach; `createQuery` text is JPQL, mapped through entity names and
//! association paths (never table names: a name that is no entity is dropped and said);
//! `createNativeQuery` text is SQL. A query text is whatever the one value evaluator fixes.

use std::collections::{HashMap, HashSet};

use super::annotations::{arg, find as annotation, short};
use super::values::{eval_fixed, At};
use super::{call_site, EntityTable, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::{self, CodeFile, TypeKind};
use crate::lang::sql::{self, Access};
use crate::resolve::{ResolvedCall, Target};

/// Native SQL entry points of JPA and Hibernate: (type simple name, methods).
const NATIVE_CALLS: &[(&str, &[&str])] = &[
    ("EntityManager", &["createNativeQuery"]),
    ("Session", &["createNativeQuery", "createNativeMutationQuery"]),
    (
        "StatelessSession",
        &["createNativeQuery", "createNativeMutationQuery"],
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

/// The product's JPA entities (and Spring Data JDBC/R2DBC `@Table` types), by fqn.
#[derive(Debug, Default, Clone)]
pub(crate) struct Entities {
    entities: HashMap<String, Entity>,
    /// JPA entity name (`@Entity(name)` or the simple class name) → fqns.
    entity_names: HashMap<String, Vec<String>>,
}

/// A written type name made fully qualified as far as the file tells: single imports, the
/// file's own types, else the file's package.
pub(crate) fn qualify(file: &CodeFile, written: &str) -> String {
    let erased = facts::erase(written);
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
        .find(|i| !i.is_static && !i.wildcard && short(&i.path) == first)
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
    match facts::type_args(ty).last() {
        Some(last) => last.clone(),
        None => ty.to_string(),
    }
}

impl Entities {
    /// Gathers the entities `file` declares.
    /// Forgets what was gathered of type `fqn` (before gathering another copy of it).
    pub(crate) fn forget(&mut self, fqn: &str) {
        self.entities.remove(fqn);
        for named in self.entity_names.values_mut() {
            named.retain(|n| n != fqn);
        }
    }

    pub(crate) fn collect(&mut self, file: &CodeFile) {
        for t in &file.types {
            let entity = annotation(&t.annotations, "Entity");
            // `@Table` maps to SQL for JPA and Spring Data JDBC/R2DBC, not for Cassandra.
            let cassandra = file
                .imports
                .iter()
                .any(|i| i.path.contains(".cassandra.") && (i.wildcard || short(&i.path) == "Table"));
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
                            .map(|v| short(v.trim()).to_string())
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
                let named = self.entity_names.entry(name).or_default();
                if !named.contains(&t.fqn) {
                    named.push(t.fqn.clone());
                }
                self.entities.insert(
                    t.fqn.clone(),
                    Entity {
                        simple: t.name.clone(),
                        table: table_name,
                        parent: t.extends.first().map(|p| qualify(file, p)),
                        inheritance: annotation(&t.annotations, "Inheritance")
                            .and_then(|a| arg(a, "strategy").or_else(|| arg(a, "value")))
                            .and_then(|v| v.first())
                            .map(|v| short(v).to_string()),
                        relations,
                    },
                );
            }
        }
    }

    /// The entity a type name denotes: by fqn, else the one entity of that simple name.
    pub(crate) fn entity(&self, fqn: &str) -> Option<&str> {
        if let Some((k, _)) = self.entities.get_key_value(fqn) {
            return Some(k);
        }
        let mut same = self.entities.iter().filter(|(_, e)| e.simple == short(fqn));
        match (same.next(), same.next()) {
            (Some((k, _)), None) => Some(k),
            _ => None,
        }
    }

    /// The table of an entity: `@Table`, else its single-table root's, else the default name.
    pub(crate) fn table_of(&self, fqn: &str) -> Option<String> {
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

    /// The tables a save (`remove` false) or delete of `entity` writes: its own and those
    /// its cascading associations reach.
    pub(crate) fn cascade_tables(&self, entity: &str, remove: bool) -> Vec<String> {
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
    pub(crate) fn jpql_entity(&self, name: &str) -> Option<&str> {
        if let Some(fqns) = self.entity_names.get(name) {
            return match fqns.as_slice() {
                [one] => Some(one),
                _ => None,
            };
        }
        self.entities.get_key_value(name).map(|(k, _)| k.as_str())
    }

    /// The tables a JPQL text reads and writes, or the first name that is no entity.
    pub(crate) fn jpql_tables(&self, text: &str) -> Result<Vec<(String, Access)>, String> {
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
}

pub(crate) struct Jpa;

impl Recogniser for Jpa {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        let entities = &product.knowledge.entities;
        for t in &file.types {
            if !entities.entities.contains_key(&t.fqn) {
                continue;
            }
            if let Some(table) = entities.table_of(&t.fqn).filter(|t| !t.contains(['{', '$'])) {
                out.push(Finding::EntityTable(EntityTable {
                    entity: t.fqn.clone(),
                    table,
                    line: t.line_start as u32,
                }));
            }
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        let entities = &product.knowledge.entities;
        for call in calls {
            let Target::External { type_fqn, method } = &call.target else {
                continue;
            };
            let owner = short(type_fqn);
            let listed = |table: &[(&str, &[&str])]| {
                table
                    .iter()
                    .any(|(t, ms)| *t == owner && ms.contains(&method.as_str()))
            };
            let native = NATIVE_CALLS
                .iter()
                .any(|(t, ms)| *t == owner && ms.contains(&method.as_str()));
            let jpql = listed(JPQL_CALLS);
            let access = if listed(ENTITY_READS) {
                Some(Access::Read)
            } else if listed(ENTITY_WRITES) {
                Some(Access::Write)
            } else {
                None
            };
            if !native && !jpql && access.is_none() {
                continue;
            }
            let Some((t, m, site)) = call_site(file, call) else {
                continue;
            };
            if site.arg_texts.is_empty() || super::mockito::in_mock_setup(m, site) {
                continue;
            }
            let from = Owner::Method(call.caller.clone());
            let line = call.line as u32;
            if let Some(access) = access {
                // The entity is the class literal of a load, or the declared type of what is
                // written.
                let written = site.arg_texts.first().filter(|a| a.ends_with(".class")).cloned();
                let ty = written.or_else(|| site.arg_types.first().cloned().flatten());
                let entity = ty.and_then(|ty| entities.entity(&qualify(file, &ty)).map(str::to_string));
                match entity
                    .as_deref()
                    .and_then(|e| entities.table_of(e).map(|t| (e, t)))
                {
                    Some((e, _)) if access == Access::Write => {
                        let remove = matches!(method.as_str(), "remove" | "delete");
                        for table in entities.cascade_tables(e, remove) {
                            out.table(&from, &table, Access::Write, line, "entity-manager");
                        }
                    }
                    Some((_, table)) => out.table(&from, &table, Access::Read, line, "entity-manager"),
                    None => {
                        out.table_unknown(line, format!("the entity of {owner}.{method}(…) is not known"))
                    }
                }
                continue;
            }
            let at = At::in_method(&product.values, &file.path, t, m, site.byte);
            let Some(text) = site.arg_values.first().and_then(|a| eval_fixed(a, &at)) else {
                out.table_unknown(
                    line,
                    format!(
                        "the SQL of {owner}.{method}(…) is not a literal, constant or concatenation of those"
                    ),
                );
                continue;
            };
            if native {
                out.sql(&from, &text, line, "native-query");
            } else {
                jpql_uses(entities, &from, &text, line, "jpql", out);
            }
        }
    }
}

/// The table uses of a JPQL text, or why it names no table.
pub(crate) fn jpql_uses(
    entities: &Entities,
    from: &Owner,
    text: &str,
    line: u32,
    via: &'static str,
    out: &mut Findings,
) {
    match entities.jpql_tables(text) {
        Ok(tables) => {
            for (table, access) in tables {
                out.table(from, &table, access, line, via);
            }
        }
        Err(reason) => out.table_unknown(line, reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::spring_data::Repositories;

    fn model(sources: &[(&str, &str)]) -> (Entities, Repositories) {
        let mut entities = Entities::default();
        let mut repos = Repositories::default();
        for (path, text) in sources {
            let f = crate::lang::java::parse_java_file(path, text);
            entities.collect(&f);
            repos.collect(&f);
        }
        (entities, repos)
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
            facts::type_args("A>B<C"),
            vec!["C".to_string()],
            "malformed text never panics"
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
    fn entities_map_and_entity_manager_calls_touch_their_tables() {
        crate::frameworks::testing::check(
            r#"
//- /shop/src/main/java/a/Order.java
package a;
import jakarta.persistence.*;
import java.util.List;
@Entity @Table(name = "orders")
class Order { @OneToMany(cascade = CascadeType.ALL) List<OrderLine> lines; }
@Entity class OrderLine {}
class NotAnEntity {}
//- /shop/src/main/java/a/Dao.java
package a;
import jakarta.persistence.EntityManager;
class Dao {
    private EntityManager em;
    static final String BY_STATUS = "select o from Order o where o.status = :s";
    Order load(long id) { return em.find(Order.class, id); }
    void save(Order o) { em.persist(o); }
    void byStatus() { em.createQuery(BY_STATUS); }
    void invoices() { em.createQuery("select i from Invoice i"); }
    void nativeCount() { em.createNativeQuery("SELECT count(*) FROM order_line"); }
    void dynamic(String q) { em.createQuery(q); }
}
"#,
            r#"
table read orders by a.Dao.load via entity-manager (line 6)
table write orders by a.Dao.save via entity-manager (line 7)
table write order_line by a.Dao.save via entity-manager (line 7)
table read orders by a.Dao.byStatus via jpql (line 8)
table? JPQL names Invoice which is no entity of the product (line 9)
table read order_line by a.Dao.nativeCount via native-query (line 10)
table? the SQL of EntityManager.createQuery(…) is not a literal, constant or concatenation of those (line 11)
maps a.Order -> orders
maps a.OrderLine -> order_line
"#,
        );
    }
}
