//! Code ↔ data on the fixture company (`EXPECTED.md`: Table access, Entities, Config
//! usage), and on small companies written into a temp folder for the edges that must NOT
//! exist.

use std::path::Path;

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Snapshot, Store};

use super::tests::{index_acme, methods_named, neighbour_names, node_by_fqn};
use super::*;
use crate::testing::expected_rows;

/// The methods or types a fact names (`pkg.Type`, `pkg.Type.method`, overloads with `(…)`).
fn sources_named(snap: &Snapshot, written: &str) -> Vec<NodeId> {
    let mut ids = methods_named(snap, written);
    if let Some(t) = node_by_fqn(snap, written, NodeKind::Type) {
        ids.push(t.id);
    }
    ids
}

fn via_of(snap: &Snapshot, from: NodeId, kind: EdgeKind, to: NodeId) -> Option<String> {
    snap.edge_attrs(&[(from, kind, to)])
        .expect("attrs")
        .into_iter()
        .next()
        .flatten()
        .and_then(|a| a.via)
}

#[test]
fn the_fixture_company_table_access_is_found_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    let rows = expected_rows("Table access");
    for row in &rows {
        let (method, table, mode, via) = (&row[0], &row[1], &row[2], &row[3]);
        let kind = if mode == "write" {
            EdgeKind::Writes
        } else {
            EdgeKind::Reads
        };
        let methods = methods_named(&snap, method);
        assert!(!methods.is_empty(), "method {method} is indexed");
        // The method's own product's table when it has one (two products may each define
        // a table of one name), else the only one.
        let product = snap.product_of(methods[0]).map(|p| p.name).unwrap_or_default();
        let table_node = super::tests::table_in(&snap, &product, table)
            .or_else(|| node_by_fqn(&snap, table, NodeKind::Table))
            .unwrap_or_else(|| panic!("table {table}"));
        let edge = methods.iter().find(|&&m| {
            snap.adjacency()
                .neighbors(m, Direction::Out, kind)
                .any(|t| t == table_node.id)
        });
        match edge {
            None => missed.push(format!("{method} {mode} {table}")),
            Some(&m) => {
                // A table of another product is reached by a link, which carries no attributes.
                let same_product =
                    snap.product_of(m).map(|p| p.name) == snap.product_of(table_node.id).map(|p| p.name);
                if same_product {
                    assert_eq!(
                        via_of(&snap, m, kind, table_node.id).as_deref(),
                        Some(via.as_str()),
                        "via of {method} {mode} {table}"
                    );
                }
            }
        }
    }
    assert!(
        missed.is_empty(),
        "{}/{} expected table accesses missing:\n{}",
        missed.len(),
        rows.len(),
        missed.join("\n")
    );
}

#[test]
fn the_fixture_company_entities_map_to_tables_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    for row in expected_rows("Entities") {
        let entity = node_by_fqn(&snap, &row[0], NodeKind::Type).unwrap_or_else(|| panic!("type {}", row[0]));
        assert_eq!(
            neighbour_names(&snap, entity.id, Direction::Out, EdgeKind::MapsTo),
            vec![row[1].clone()],
            "table of {}",
            row[0]
        );
    }
    // Every MapsTo edge of the fixture is one of the listed rows.
    let listed: Vec<String> = expected_rows("Entities")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    for id in snap.nodes_of_kind(NodeKind::Type).iter().map(NodeId) {
        if snap
            .adjacency()
            .neighbors(id, Direction::Out, EdgeKind::MapsTo)
            .next()
            .is_some()
        {
            let node = snap.node(id).expect("read").expect("live");
            let fqn = node.fqn.unwrap_or(node.name);
            assert!(listed.contains(&fqn), "{fqn} maps to a table but is no entity");
        }
    }
}

#[test]
fn the_fixture_company_config_usage_is_found_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    let rows = expected_rows("Config usage");
    let mut checked = 0;
    for row in &rows {
        let (key, user, how) = (&row[0], &row[1], &row[2]);
        let users = sources_named(&snap, user);
        assert!(!users.is_empty(), "{user} is indexed");
        // The key's nodes: `key` itself, or its list entries `key[0]`, in the user's product.
        let product = snap.product_of(users[0]).map(|p| p.name);
        let mut key_nodes: Vec<NodeId> = snap.find_by_fqn(key).expect("lookup");
        key_nodes.extend(snap.find_by_prefix(&format!("{key}["), 100).expect("lookup"));
        key_nodes.retain(|&k| snap.product_of(k).map(|p| p.name) == product);
        if key_nodes.is_empty() {
            // Only a default in code gives the value (the general fixture test checks this).
            continue;
        }
        checked += 1;
        let found = users.iter().any(|&u| {
            snap.adjacency()
                .neighbors(u, Direction::Out, EdgeKind::UsesConfig)
                .any(|k| key_nodes.contains(&k))
        });
        if !found {
            missed.push(format!("{user} uses {key}"));
            continue;
        }
        let expected_via = if how == "configuration-properties" {
            "configuration-properties"
        } else {
            "value"
        };
        let vias: Vec<String> = users
            .iter()
            .flat_map(|&u| key_nodes.iter().map(move |&k| (u, k)))
            .filter_map(|(u, k)| via_of(&snap, u, EdgeKind::UsesConfig, k))
            .collect();
        if !(how == "value" && vias.iter().any(|v| v == "placeholder")) {
            assert!(
                vias.iter().any(|v| v == expected_via),
                "how {user} uses {key}: {vias:?}"
            );
        }
    }
    assert!(checked >= 10, "most config usage rows have key nodes ({checked})");
    assert!(
        missed.is_empty(),
        "{}/{} expected config usages missing:\n{}",
        missed.len(),
        rows.len(),
        missed.join("\n")
    );
}

/// Writes `files` (path, text) under a temp folder as one repository and indexes it as one
/// product.
fn index_sources(files: &[(&str, &str)]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("shop");
    for (rel, text) in files {
        let path = repo.join(rel);
        std::fs::create_dir_all(path.parent().unwrap_or(Path::new("."))).expect("mkdir");
        std::fs::write(&path, text).expect("write");
    }
    let store = Store::open(dir.path().join("store")).expect("store");
    let company = Company::from_paths(&[repo], None).expect("company");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    (dir, store)
}

const SHOP_SCHEMA: &str = "CREATE TABLE orders (id BIGINT PRIMARY KEY, status VARCHAR(10));\n\
                           CREATE TABLE \"order\" (id BIGINT PRIMARY KEY);\n\
                           CREATE TABLE order_lines (id BIGINT PRIMARY KEY, order_id BIGINT);\n\
                           CREATE TABLE audit (id BIGINT PRIMARY KEY);\n";

#[test]
fn save_on_a_type_that_is_no_repository_touches_no_table() {
    let (_dir, store) = index_sources(&[
        ("src/main/resources/schema.sql", SHOP_SCHEMA),
        (
            "src/main/java/shop/Order.java",
            "package shop;\nimport jakarta.persistence.*;\n@Entity @Table(name = \"orders\")\npublic class Order { @Id Long id; }\n",
        ),
        (
            "src/main/java/shop/OrderRepository.java",
            "package shop;\nimport org.springframework.data.jpa.repository.JpaRepository;\nimport org.springframework.data.jpa.repository.Query;\n\
             public interface OrderRepository extends JpaRepository<Order, Long> {\n\
             @Query(\"select o from Order o where o.status = :s\")\n  java.util.List<Order> withStatus(String s);\n}\n",
        ),
        (
            "src/main/java/shop/Drafts.java",
            "package shop;\npublic class Drafts { public void save(Order o) {} public long count() { return 0; } }\n",
        ),
        (
            "src/main/java/shop/OrderService.java",
            "package shop;\nimport org.example.cache.OrderCache;\n\
             public class OrderService {\n\
               private final OrderRepository orders; private final Drafts drafts; private final OrderCache cache;\n\
               OrderService(OrderRepository orders, Drafts drafts, OrderCache cache) { this.orders = orders; this.drafts = drafts; this.cache = cache; }\n\
               public void place(Order o) { orders.save(o); }\n\
               public void draft(Order o) { drafts.save(o); drafts.count(); }\n\
               public void remember(Order o) { cache.save(o); cache.findById(1L); }\n\
             }\n",
        ),
        (
            "src/test/java/shop/OrderServiceTest.java",
            "package shop;\nimport static org.mockito.Mockito.*;\n\
             class OrderServiceTest {\n\
               OrderRepository orders = mock(OrderRepository.class);\n\
               void stubs() { when(orders.findById(1L)).thenReturn(null); verify(orders).save(null); doReturn(null).when(orders).count(); }\n\
               void loads() { orders.findAll(); }\n\
             }\n",
        ),
    ]);
    let snap = store.snapshot();
    let orders = node_by_fqn(&snap, "orders", NodeKind::Table).expect("orders");
    let order = node_by_fqn(&snap, "order", NodeKind::Table).expect("order");
    let touched = |method: &str| -> Vec<String> {
        let mut out = Vec::new();
        for m in methods_named(&snap, method) {
            out.extend(neighbour_names(&snap, m, Direction::Out, EdgeKind::Writes));
            out.extend(neighbour_names(&snap, m, Direction::Out, EdgeKind::Reads));
        }
        out
    };
    assert_eq!(touched("shop.OrderService.place"), vec!["orders".to_string()]);
    assert!(
        touched("shop.OrderService.draft").is_empty(),
        "Drafts is no repository"
    );
    assert!(
        touched("shop.OrderService.remember").is_empty(),
        "an external cache is no repository"
    );
    assert!(touched("shop.Drafts.save").is_empty());
    assert!(
        touched("shop.OrderServiceTest.stubs").is_empty(),
        "stubbing a mock touches no table"
    );
    assert_eq!(touched("shop.OrderServiceTest.loads"), vec!["orders".to_string()]);
    // JPQL names the entity `Order`, which maps to `orders`, never to the table `order`.
    assert_eq!(
        touched("shop.OrderRepository.withStatus"),
        vec!["orders".to_string()]
    );
    let readers: Vec<NodeId> = snap
        .adjacency()
        .neighbors(order.id, Direction::In, EdgeKind::Reads)
        .collect();
    assert!(readers.is_empty(), "nothing reads the table `order`");
    assert!(snap
        .adjacency()
        .neighbors(orders.id, Direction::In, EdgeKind::MapsTo)
        .next()
        .is_some());
}

#[test]
fn sql_in_code_is_read_from_literals_constants_and_mybatis_xml() {
    let (_dir, store) = index_sources(&[
        ("src/main/resources/schema.sql", SHOP_SCHEMA),
        (
            "src/main/java/shop/Sql.java",
            "package shop;\npublic final class Sql {\n  public static final String LINES = \"order_lines\";\n}\n",
        ),
        (
            "src/main/java/shop/OrderDao.java",
            "package shop;\nimport org.springframework.jdbc.core.JdbcTemplate;\n\
             public class OrderDao {\n\
               private static final String ARCHIVE = \"INSERT INTO audit (id) SELECT id FROM orders WHERE status = ?\";\n\
               private final JdbcTemplate jdbc;\n\
               OrderDao(JdbcTemplate jdbc) { this.jdbc = jdbc; }\n\
               public void archive(String s) { jdbc.update(ARCHIVE, s); }\n\
               public int lines(long id) { return jdbc.queryForObject(\"SELECT count(*) FROM \" + Sql.LINES + \" l JOIN orders o ON o.id = l.order_id WHERE o.id = ?\", Integer.class, id); }\n\
               public void dynamic(String sql) { jdbc.execute(sql); }\n\
               public void purge() { String sql = \"DELETE FROM audit \" + \"WHERE id < ?\"; jdbc.update(sql, 5); }\n\
               public void either(boolean all) { String sql = \"SELECT * FROM audit\"; if (all) { sql = \"SELECT * FROM orders\"; } jdbc.queryForList(sql); }\n\
             }\n",
        ),
        (
            "src/main/java/shop/LineMapper.java",
            "package shop;\npublic interface LineMapper { int deleteFor(long orderId); }\n",
        ),
        (
            "src/main/resources/mapper/LineMapper.xml",
            "<?xml version=\"1.0\"?>\n<mapper namespace=\"shop.LineMapper\">\n\
             <delete id=\"deleteFor\">DELETE FROM order_lines <where><if test=\"orderId != null\">AND order_id = #{orderId}</if></where></delete>\n\
             </mapper>\n",
        ),
    ]);
    let snap = store.snapshot();
    let edges = |method: &str, kind: EdgeKind| -> Vec<String> {
        methods_named(&snap, method)
            .into_iter()
            .flat_map(|m| neighbour_names(&snap, m, Direction::Out, kind))
            .collect()
    };
    assert_eq!(
        edges("shop.OrderDao.archive", EdgeKind::Writes),
        vec!["audit".to_string()]
    );
    assert_eq!(
        edges("shop.OrderDao.archive", EdgeKind::Reads),
        vec!["orders".to_string()]
    );
    assert_eq!(
        edges("shop.OrderDao.lines", EdgeKind::Reads),
        vec!["order_lines".to_string(), "orders".to_string()]
    );
    assert!(edges("shop.OrderDao.dynamic", EdgeKind::Reads).is_empty());
    assert_eq!(
        edges("shop.OrderDao.purge", EdgeKind::Writes),
        vec!["audit".to_string()]
    );
    assert!(
        edges("shop.OrderDao.either", EdgeKind::Reads).is_empty(),
        "a local assigned twice has no one SQL"
    );
    assert_eq!(
        edges("shop.LineMapper.deleteFor", EdgeKind::Writes),
        vec!["order_lines".to_string()]
    );
    let run = &snap
        .runs(snap.product("shop").expect("product").id)
        .expect("runs")[0];
    assert!(
        run.warnings
            .iter()
            .any(|w| w.file.ends_with("OrderDao.java") && w.message.contains("not determined")),
        "SQL from a parameter is a warning: {:?}",
        run.warnings
    );
    // SQL text is content, never structure.
    assert!(!run.warnings.iter().any(|w| w.message.contains("SELECT")));
}

#[test]
fn entity_managers_jdbc_queries_and_default_methods_touch_their_tables() {
    let (_dir, store) = index_sources(&[
        ("src/main/resources/schema.sql", SHOP_SCHEMA),
        (
            "src/main/java/shop/Order.java",
            "package shop;\nimport jakarta.persistence.*;\nimport java.util.List;\n\
             @Entity @Table(name = \"orders\")\npublic class Order { @Id Long id;\n\
             @OneToMany(mappedBy = \"order\", cascade = CascadeType.ALL) List<OrderLine> lines; }\n",
        ),
        (
            "src/main/java/shop/OrderLine.java",
            "package shop;\nimport jakarta.persistence.*;\n@Entity @Table(name = \"order_lines\")\npublic class OrderLine { @Id Long id; }\n",
        ),
        (
            "src/main/java/shop/OrderStore.java",
            "package shop;\nimport jakarta.persistence.EntityManager;\n\
             public class OrderStore {\n  private EntityManager em;\n\
               public Order load(Long id) { return em.find(Order.class, id); }\n\
               public void add(Order order) { em.persist(order); }\n\
               public void add(Object any) { em.persist(any); }\n\
             }\n",
        ),
        (
            "src/main/java/shop/AuditRepository.java",
            "package shop;\nimport org.springframework.data.jdbc.repository.query.Query;\n\
             import org.springframework.data.repository.CrudRepository;\n\
             public interface AuditRepository extends org.springframework.data.repository.Repository<Order, Long> {\n\
               @Query(\"SELECT count(*) FROM audit\")\n  long audits();\n\
             }\n",
        ),
        (
            "src/main/java/shop/OrderRepository.java",
            "package shop;\nimport org.springframework.data.jpa.repository.JpaRepository;\n\
             public interface OrderRepository extends JpaRepository<Order, Long> {\n\
               default Order required(Long id) { return findById(id).orElseThrow(); }\n\
             }\n",
        ),
    ]);
    let snap = store.snapshot();
    let edges = |method: &str, kind: EdgeKind| -> Vec<String> {
        methods_named(&snap, method)
            .into_iter()
            .flat_map(|m| neighbour_names(&snap, m, Direction::Out, kind))
            .collect()
    };
    assert_eq!(
        edges("shop.OrderStore.load", EdgeKind::Reads),
        vec!["orders".to_string()]
    );
    // Persisting an order cascades to its lines; an untyped `Object` touches nothing.
    assert_eq!(
        edges("shop.OrderStore.add(Order)", EdgeKind::Writes),
        vec!["order_lines".to_string(), "orders".to_string()]
    );
    assert!(edges("shop.OrderStore.add(Object)", EdgeKind::Writes).is_empty());
    // Spring Data JDBC's @Query is SQL, not JPQL.
    assert_eq!(
        edges("shop.AuditRepository.audits", EdgeKind::Reads),
        vec!["audit".to_string()]
    );
    assert_eq!(
        edges("shop.OrderRepository.required", EdgeKind::Reads),
        vec!["orders".to_string()]
    );
}

#[test]
fn config_is_read_by_placeholders_bound_prefixes_and_environment_lookups() {
    let (_dir, store) = index_sources(&[
        (
            "src/main/resources/application.yml",
            "shop:\n  name: acme\n  mail:\n    from: a@b\n    retries: 3\n  feature:\n    enabled: true\n",
        ),
        (
            "src/main/java/shop/Mailer.java",
            "package shop;\nimport org.springframework.beans.factory.annotation.Value;\n\
             import org.springframework.core.env.Environment;\n\
             public class Mailer {\n\
               @Value(\"${shop.name}\") private String name;\n\
               private final Environment env;\n\
               Mailer(Environment env, @Value(\"${shop.mail.from:x@y}\") String from) { this.env = env; }\n\
               public int retries() { return env.getProperty(\"shop.mail.retries\", Integer.class, 1); }\n\
             }\n",
        ),
        (
            "src/main/java/shop/MailProperties.java",
            "package shop;\nimport org.springframework.boot.context.properties.ConfigurationProperties;\n\
             @ConfigurationProperties(prefix = \"shop.mail\")\npublic record MailProperties(String from, int retries) {}\n",
        ),
    ]);
    let snap = store.snapshot();
    let users = |key: &str| -> Vec<String> {
        let mut out = Vec::new();
        for k in snap.find_by_fqn(key).expect("lookup") {
            out.extend(neighbour_names(&snap, k, Direction::In, EdgeKind::UsesConfig));
        }
        out.sort();
        out
    };
    assert_eq!(
        users("shop.name"),
        vec!["shop.Mailer".to_string()],
        "field injection: the type"
    );
    assert_eq!(
        users("shop.mail.from"),
        vec![
            "shop.MailProperties".to_string(),
            "shop.Mailer.<init>".to_string()
        ]
    );
    assert_eq!(
        users("shop.mail.retries"),
        vec![
            "shop.MailProperties".to_string(),
            "shop.Mailer.retries".to_string()
        ]
    );
    assert!(users("shop.feature.enabled").is_empty());
}
