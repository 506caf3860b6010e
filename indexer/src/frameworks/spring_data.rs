//! Spring Data repositories of relational stores (JPA, JDBC, R2DBC): interfaces whose
//! supertypes lead to Spring Data's `Repository` with a domain type that is an entity.
//!
//! - declared: derived query methods (`findBy…`, `countBy…`, `deleteBy…`) read or write
//!   the entity's table; `@Query` text is JPQL mapped through the entity map, or SQL when
//!   native (or Spring Data JDBC's/R2DBC's `@Query`). The edge starts at the declared method.
//! - calls: an inherited method (`save`, `findById`, …) called on a receiver typed as a
//!   repository of the product reads or writes the table (saves and deletes follow JPA
//!   cascades), from the calling method. A call that only stubs or verifies a mock
//!   (`when(repo.findById(1L))`, `verify(repo).save(…)`) runs no SQL and is skipped.

use super::by_name::ByName;

use super::annotations::{arg, find as annotation, has, short};
use super::jpa::{jpql_uses, qualify, Entities};
use super::mockito::in_mock_setup;
use super::supertypes::{supers_of, SuperRef, TypeArg};
use super::values::annotation_text;
use super::{call_site, Findings, Owner, Product, Recogniser};
use crate::facts::{Annotation, CodeFile, MethodDecl, TypeDecl, TypeKind};
use crate::lang::sql::Access;
use crate::resolve::{MethodKey, ResolvedCall, Target};

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
    // Spring Data's Kotlin extension of `CrudRepository`.
    "findByIdOrNull",
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

/// An interface that may be a repository: its supertypes with their type arguments.
#[derive(Debug, Clone, Default)]
struct RepoDecl {
    supers: Vec<SuperRef>,
    /// `@RepositoryDefinition(domainClass = X.class)`.
    domain: Option<String>,
}

/// Interfaces of the product that may be repositories, by fqn.
#[derive(Debug, Default, Clone)]
pub(crate) struct Repositories {
    repositories: ByName<RepoDecl>,
}

impl Repositories {
    /// Forgets what was gathered of type `fqn` (before gathering another copy of it).
    pub(crate) fn forget(&mut self, fqn: &str) {
        self.repositories.remove(fqn);
    }

    /// Gathers the interfaces `file` declares that may be repositories.
    pub(crate) fn collect(&mut self, file: &CodeFile) {
        for t in &file.types {
            if t.kind == TypeKind::Interface {
                let domain = annotation(&t.annotations, "RepositoryDefinition")
                    .and_then(|a| arg(a, "domainClass"))
                    .and_then(|v| v.first())
                    .map(|v| qualify(file, v));
                if t.extends.is_empty() && domain.is_none() {
                    continue;
                }
                let supers = supers_of(file, t, &t.extends, &["org.springframework.data"]);
                self.repositories
                    .insert(t.fqn.clone(), RepoDecl { supers, domain });
            }
        }
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
            if s.framework && FRAMEWORK_REPOSITORIES.contains(&s.simple.as_str()) {
                return s.args.first().cloned();
            }
        }
        None
    }

    /// The entity fqn of a Spring Data repository interface of the product.
    pub(crate) fn repository_entity<'e>(&self, entities: &'e Entities, fqn: &str) -> Option<&'e str> {
        match self.domain_arg(fqn, 0)? {
            TypeArg::Concrete(c) => entities.entity(&c),
            TypeArg::Param(_) => None,
        }
    }

    /// Whether `fqn` is a repository interface (whatever its domain type).
    pub(crate) fn is_repository(&self, fqn: &str) -> bool {
        self.domain_arg(fqn, 0).is_some()
    }
}

/// MyBatis statement annotations: a method carrying one is MyBatis', not derived.
const MYBATIS_STATEMENTS: &[&str] = &["Select", "Insert", "Update", "Delete"];

pub(crate) struct SpringData;

impl Recogniser for SpringData {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        let entities = &product.knowledge.entities;
        let repos = &product.knowledge.repositories;
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Interface) {
            let repository = repos.is_repository(&t.fqn);
            let entity = repos.repository_entity(entities, &t.fqn);
            if repository && entity.is_none() {
                out.table_unknown(
                    t.line_start as u32,
                    format!(
                        "the domain type of repository {} is no entity of the product",
                        t.name
                    ),
                );
            }
            for m in t.methods.iter().filter(|m| !m.has_body) {
                if MYBATIS_STATEMENTS.iter().any(|n| has(&m.annotations, n)) {
                    continue;
                }
                let owner = Owner::Method(MethodKey::of(t, m));
                let line = m.line_start as u32;
                if let Some(q) = annotation(&m.annotations, "Query") {
                    query(product, file, t, m, q, &owner, out);
                    continue;
                }
                if let Some(entity) = entity {
                    if let Some(access) = derived_query(&m.name) {
                        if let Some(table) = entities.table_of(entity) {
                            out.table(&owner, &table, access, line, "jpa-repository");
                        }
                    }
                }
            }
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        let entities = &product.knowledge.entities;
        let repos = &product.knowledge.repositories;
        for call in calls {
            let Target::External { method, .. } = &call.target else {
                continue;
            };
            let Some(entity) = call
                .receiver_type
                .as_deref()
                .and_then(|r| repos.repository_entity(entities, r))
            else {
                continue;
            };
            if call_site(file, call).is_some_and(|(_, m, s)| in_mock_setup(m, s)) {
                continue;
            }
            let from = Owner::Method(call.caller.clone());
            let line = call.line as u32;
            if REPOSITORY_WRITES.contains(&method.as_str()) {
                let remove = method.starts_with("delete");
                for table in entities.cascade_tables(entity, remove) {
                    out.table(&from, &table, Access::Write, line, "jpa-repository");
                }
            } else if REPOSITORY_READS.contains(&method.as_str()) {
                if let Some(table) = entities.table_of(entity) {
                    out.table(&from, &table, Access::Read, line, "jpa-repository");
                }
            }
        }
    }
}

/// The table uses of a `@Query` on method `m`.
fn query(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    m: &MethodDecl,
    q: &Annotation,
    owner: &Owner,
    out: &mut Findings,
) {
    let line = m.line_start as u32;
    if arg(q, "value").is_none_or(|v| v.is_empty()) {
        // `@Query(name = …)` names a query declared elsewhere.
        out.table_unknown(line, format!("@Query on {} has no query text", m.name));
        return;
    }
    let Some(text) = annotation_text(&product.values, file, t, q) else {
        out.table_unknown(
            line,
            format!("the @Query text of {} is not a literal or constant", m.name),
        );
        return;
    };
    // Spring Data JDBC's and R2DBC's `@Query` hold SQL; JPA's hold JPQL unless native.
    let sql_store = |path: &str| path.contains(".data.jdbc.") || path.contains(".data.r2dbc.");
    let imported_from_sql_store = file
        .imports
        .iter()
        .any(|i| !i.is_static && short(&i.path) == "Query" && sql_store(&i.path));
    let native = imported_from_sql_store
        || sql_store(&q.name)
        || arg(q, "nativeQuery").is_some_and(|v| v.first().is_some_and(|v| v == "true"));
    if native {
        out.sql(owner, &text, line, "native-query");
    } else {
        jpql_uses(&product.knowledge.entities, owner, &text, line, "jpql", out);
    }
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

#[cfg(test)]
mod tests {
    use super::*;

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
    fn repositories_find_their_entity_through_generic_bases() {
        let (entities, data) = model(&[
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
        assert_eq!(
            data.repository_entity(&entities, "p.OrderRepository"),
            Some("p.Order")
        );
        assert_eq!(data.repository_entity(&entities, "p.BaseRepository"), None);
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

    #[test]
    fn repositories_read_and_write_their_entity_table_and_mocks_touch_nothing() {
        crate::frameworks::testing::check(
            r#"
//- /shop/src/main/java/a/Order.java
package a;
@Entity @Table(name = "orders")
class Order {}
//- /shop/src/main/java/a/OrderRepository.java
package a;
import org.springframework.data.jpa.repository.JpaRepository;
import org.springframework.data.jpa.repository.Query;
interface OrderRepository extends JpaRepository<Order, Long> {
    List<Order> findByStatus(String status);
    long deleteByStatus(String status);
    @Query("select o from Order o") List<Order> all();
    @Query(value = "SELECT * FROM orders_archive", nativeQuery = true) List<Order> archived();
    List<Order> totals();
}
//- /shop/src/main/java/a/Ledger.java
package a;
interface Ledger extends com.acme.lib.Repository<Order> { List<Order> findByStatus(String s); }
//- /shop/src/main/java/a/OrderService.java
package a;
class OrderService {
    private final OrderRepository orders;
    private final Ledger ledger;
    void place(Order o) { orders.save(o); ledger.findByStatus("x"); }
    Order one(long id) { return orders.findById(id).orElseThrow(); }
}
//- /shop/src/test/java/a/OrderServiceTest.java
package a;
import static org.mockito.Mockito.*;
class OrderServiceTest {
    OrderRepository orders;
    void stubs() { when(orders.findById(1L)).thenReturn(null); verify(orders).save(null); }
}
"#,
            r#"
maps a.Order -> orders
table read orders by a.OrderRepository.findByStatus via jpa-repository (line 5)
table write orders by a.OrderRepository.deleteByStatus via jpa-repository (line 6)
table read orders by a.OrderRepository.all via jpql (line 7)
table read orders_archive by a.OrderRepository.archived via native-query (line 8)
table write orders by a.OrderService.place via jpa-repository (line 5)
table read orders by a.OrderService.one via jpa-repository (line 6)
"#,
        );
    }

    #[test]
    fn kotlin_entities_and_repositories_read_and_write_their_tables() {
        crate::frameworks::testing::check(
            r#"
//- /shop/src/main/kotlin/a/Owner.kt
package a

import jakarta.persistence.*

@Entity
@Table(name = "owners")
class Owner(
    @Id @GeneratedValue var id: Long? = null,
    val name: String,
    @OneToMany(cascade = [CascadeType.ALL])
    @JoinColumn(name = "owner_id")
    val pets: MutableList<Pet> = mutableListOf(),
)

@Entity
class Pet(@Id var id: Long? = null, val name: String)
//- /shop/src/main/kotlin/a/OwnerRepository.kt
package a

import org.springframework.data.jpa.repository.JpaRepository
import org.springframework.data.jpa.repository.Query

interface OwnerRepository : JpaRepository<Owner, Long> {
    fun findByName(name: String): List<Owner>

    @Query("select o from Owner o join o.pets p where p.name = :pet")
    fun withPet(pet: String): List<Owner>

    @Query(value = """
        SELECT * FROM owners_archive
    """, nativeQuery = true)
    fun archived(): List<Owner>
}
//- /shop/src/main/kotlin/a/OwnerService.kt
package a

import org.springframework.data.repository.findByIdOrNull

class OwnerService(private val owners: OwnerRepository) {
    fun add(owner: Owner) = owners.save(owner)

    fun one(id: Long): Owner? = owners.findByIdOrNull(id)

    fun all() = owners.findAll().also { println(it.size) }
}
"#,
            r#"
maps a.Owner -> owners
maps a.Pet -> pet
table read owners by a.OwnerRepository.findByName via jpa-repository (line 7)
table read owners by a.OwnerRepository.withPet via jpql (line 9)
table read pet by a.OwnerRepository.withPet via jpql (line 9)
table read owners_archive by a.OwnerRepository.archived via native-query (line 12)
table write owners by a.OwnerService.add via jpa-repository (line 6)
table write pet by a.OwnerService.add via jpa-repository (line 6)
table read owners by a.OwnerService.one via jpa-repository (line 8)
table read owners by a.OwnerService.all via jpa-repository (line 10)
"#,
        );
    }
}
