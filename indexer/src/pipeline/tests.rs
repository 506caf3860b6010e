//! The pipeline on the fixture company, checked against the facts of `EXPECTED.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Snapshot, Store};

use super::*;
use crate::testing::expected_rows;

pub(super) fn acme() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme")
}

pub(super) fn index_acme() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let company = Company::load(&acme().join("semgraph.toml")).expect("config");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    (dir, store)
}

fn names_of_kind(snap: &Snapshot, product: &str, kind: NodeKind) -> Vec<String> {
    let ids: Vec<NodeId> = snap
        .product_nodes_of_kind(product, kind)
        .iter()
        .map(NodeId)
        .collect();
    let mut names: Vec<String> = snap
        .nodes(&ids)
        .expect("read")
        .into_iter()
        .flatten()
        .map(|n| n.name)
        .collect();
    names.sort();
    names
}

#[test]
fn the_fixture_company_is_indexed_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();

    // Products, areas and services (named by spring.application.name).
    for row in expected_rows("Products") {
        let product = snap.product(&row[0]).expect("product indexed");
        assert_eq!(product.area, row[1], "area of {}", row[0]);
        let mut want: Vec<String> = row[2].split(", ").map(str::to_string).collect();
        want.sort();
        assert_eq!(
            names_of_kind(&snap, &row[0], NodeKind::Service),
            want,
            "services of {}",
            row[0]
        );
    }

    // A scheduler source file hangs under the scheduler service.
    let file = snap
        .find_by_name(
            "orders-scheduler/src/main/java/com/acme/orders/scheduler/OrdersSchedulerApplication.java",
        )
        .expect("lookup");
    assert_eq!(file.len(), 1);
    let parent: Vec<NodeId> = snap
        .adjacency()
        .neighbors(file[0], Direction::In, EdgeKind::Contains)
        .collect();
    assert_eq!(
        snap.node(parent[0]).expect("read").expect("live").name,
        "orders-scheduler"
    );

    // Config keys the code reads exist as keys, unless the code carries a default.
    let mut sources = String::new();
    for entry in ignore::Walk::new(acme()).flatten() {
        if entry.path().extension().is_some_and(|e| e == "java") {
            sources.push_str(&std::fs::read_to_string(entry.path()).unwrap_or_default());
        }
    }
    for row in expected_rows("Config usage") {
        let key = &row[0];
        let found = snap.find_by_fqn(key).expect("lookup");
        let has_default = sources.contains(&format!("${{{key}:"));
        assert!(
            !found.is_empty() || has_default,
            "config key {key} is neither indexed nor defaulted in code"
        );
    }

    // Every Jira issue is indexed once, in a product, with its type, priority and status.
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for row in expected_rows("Jira") {
        let ids = snap.find_by_fqn(&row[0]).expect("lookup");
        seen.insert(row[0].clone(), ids.len());
        let Some(&id) = ids.first() else {
            continue;
        };
        let node = snap.node(id).expect("read").expect("live");
        assert_eq!(
            (node.attr("type"), node.attr("priority"), node.attr("status")),
            (
                Some(row[1].as_str()),
                Some(row[2].as_str()),
                Some(row[3].as_str())
            ),
            "{}",
            row[0]
        );
        // Tickets tagged with a product mention it.
        for m in row[4].split(", ").filter_map(|m| m.strip_prefix("product:")) {
            let product = snap.find_by_fqn(m).expect("lookup");
            let mentioned: Vec<NodeId> = snap
                .adjacency()
                .neighbors(id, Direction::Out, EdgeKind::Mentions)
                .collect();
            assert!(
                product.iter().any(|p| mentioned.contains(p)),
                "{} mentions product {m}",
                row[0]
            );
        }
    }
    let wrong: Vec<_> = seen.iter().filter(|(_, &n)| n != 1).collect();
    assert!(wrong.is_empty(), "issues not indexed exactly once: {wrong:?}");

    // Wiki pages are indexed with their text searchable by term.
    let pages: u64 = snap.nodes_of_kind(NodeKind::WikiPage).len();
    assert!(pages >= 6, "{pages} wiki pages");
    let term = snap.named_set_all("term:runbook").expect("terms");
    assert!(!term.is_empty(), "the runbook is found by its term");
    // A page that names a product mentions it, across products.
    let mentions_orders = snap
        .adjacency()
        .neighbors(
            snap.find_by_fqn("orders").expect("lookup")[0],
            Direction::In,
            EdgeKind::Mentions,
        )
        .filter(|id| snap.nodes_of_kind(NodeKind::WikiPage).contains(id.0))
        .count();
    assert!(mentions_orders > 0, "some wiki page mentions the orders product");
}

pub(super) fn node_by_fqn(snap: &Snapshot, fqn: &str, kind: NodeKind) -> Option<semgraph_storage::Node> {
    let ids = snap.find_by_fqn(fqn).expect("lookup");
    snap.nodes(&ids)
        .expect("read")
        .into_iter()
        .flatten()
        .find(|n| n.kind == kind)
}

pub(super) fn neighbour_names(snap: &Snapshot, id: NodeId, dir: Direction, kind: EdgeKind) -> Vec<String> {
    let ids: Vec<NodeId> = snap.adjacency().neighbors(id, dir, kind).collect();
    let mut names: Vec<String> = snap
        .nodes(&ids)
        .expect("read")
        .into_iter()
        .flatten()
        .map(|n| n.fqn.unwrap_or(n.name))
        .collect();
    names.sort();
    names
}

#[test]
fn the_fixture_company_schemas_are_indexed_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    for row in expected_rows("Tables") {
        let table =
            table_in(&snap, &row[0], &row[1]).unwrap_or_else(|| panic!("table {}.{}", row[0], row[1]));
        let columns: Vec<NodeId> = snap
            .adjacency()
            .neighbors(table.id, Direction::Out, EdgeKind::Contains)
            .collect();
        let mut cols: Vec<(u32, String)> = snap
            .nodes(&columns)
            .expect("read")
            .into_iter()
            .flatten()
            .filter(|n| n.kind == NodeKind::Column)
            .map(|n| {
                (
                    n.attr("position").and_then(|p| p.parse().ok()).unwrap_or(0),
                    n.name,
                )
            })
            .collect();
        cols.sort();
        let names: Vec<String> = cols.into_iter().map(|(_, n)| n).collect();
        assert_eq!(names.join(", "), row[2], "columns of {}", row[1]);
        assert_eq!(
            table.attr("primary-key").unwrap_or(""),
            row[3],
            "primary key of {}",
            row[1]
        );
    }
    for row in expected_rows("Foreign keys") {
        let from = node_by_fqn(&snap, &row[0], NodeKind::Table).expect("from table");
        if row[0] == row[2] {
            // A table referencing itself has no edge to itself; its key says so.
            let keys = from.attr("foreign-keys").unwrap_or("");
            assert!(keys.contains(&format!("\t{}\t{}\t", row[1], row[2])), "{keys}");
            continue;
        }
        let refs = neighbour_names(&snap, from.id, Direction::Out, EdgeKind::References);
        assert!(
            refs.contains(&row[2]),
            "{} references {} (has {refs:?})",
            row[0],
            row[2]
        );
    }
    for row in expected_rows("Indexes") {
        let index = node_by_fqn(&snap, &format!("{}.{}", row[0], row[1]), NodeKind::Index)
            .unwrap_or_else(|| panic!("index {} on {}", row[1], row[0]));
        assert_eq!(
            index.attr("columns"),
            Some(row[2].as_str()),
            "columns of {}",
            row[1]
        );
        assert_eq!(
            index.attr("unique"),
            Some(row[3].as_str()),
            "uniqueness of {}",
            row[1]
        );
    }
    for row in expected_rows("Triggers") {
        // A trigger is named per table.
        assert!(node_by_fqn(&snap, &row[1], NodeKind::Trigger).is_none());
        let trigger =
            node_by_fqn(&snap, &format!("{}.{}", row[0], row[1]), NodeKind::Trigger).expect("trigger");
        assert_eq!(trigger.attr("table"), Some(row[0].as_str()));
        assert_eq!(trigger.attr("timing"), Some(row[2].as_str()));
        assert_eq!(trigger.attr("events"), Some(row[3].as_str()));
        let writes = neighbour_names(&snap, trigger.id, Direction::Out, EdgeKind::Writes);
        for t in row[4].split(", ") {
            assert!(
                writes.contains(&t.to_string()),
                "{} writes {t} (has {writes:?})",
                row[1]
            );
        }
    }
    for row in expected_rows("Views") {
        let view = node_by_fqn(&snap, &row[0], NodeKind::View).expect("view");
        let reads = neighbour_names(&snap, view.id, Direction::Out, EdgeKind::Reads);
        let mut want: Vec<String> = row[1].split(", ").map(str::to_string).collect();
        want.sort();
        assert_eq!(reads, want, "tables read by view {}", row[0]);
    }
    for row in expected_rows("Routines") {
        let routine = node_by_fqn(&snap, &row[0], NodeKind::Routine).expect("routine");
        assert_eq!(routine.attr("kind"), Some(row[1].as_str()));
        let mut touched = neighbour_names(&snap, routine.id, Direction::Out, EdgeKind::Writes);
        touched.extend(neighbour_names(
            &snap,
            routine.id,
            Direction::Out,
            EdgeKind::Reads,
        ));
        for t in row[2].split(", ") {
            assert!(
                touched.contains(&t.to_string()),
                "{} touches {t} (has {touched:?})",
                row[0]
            );
        }
    }
}

/// The table `name` of `product`.
pub(super) fn table_in(snap: &Snapshot, product: &str, name: &str) -> Option<semgraph_storage::Node> {
    let ids = snap.find_by_fqn(name).expect("lookup");
    snap.nodes(&ids).expect("read").into_iter().flatten().find(|n| {
        n.kind == NodeKind::Table && snap.product_of(n.id).map(|p| p.name).as_deref() == Some(product)
    })
}

#[test]
fn the_fixture_company_keys_and_liquibase_histories_are_in_the_graph_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    for row in expected_rows("Constraint names") {
        let (product, table, kind, name, columns, target) =
            (&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]);
        let t = table_in(&snap, product, table).unwrap_or_else(|| panic!("{product}.{table}"));
        let found = match kind.as_str() {
            "primary key" => {
                t.attr("primary-key-name") == Some(name.as_str())
                    && t.attr("primary-key") == Some(columns.as_str())
            }
            "unique" => t
                .attr("unique-keys")
                .unwrap_or("")
                .lines()
                .any(|l| l == format!("{name}\t{columns}")),
            _ => t.attr("foreign-keys").unwrap_or("").lines().any(|l| {
                let parts: Vec<&str> = l.split('\t').collect();
                parts.len() == 4
                    && parts[0] == name
                    && parts[1] == columns
                    && format!("{}.{}", parts[2], parts[3]) == *target
            }),
        };
        assert!(
            found,
            "{product}.{table}: {kind} {name} ({columns}) -> {target}: {:?}",
            t.attrs
        );
    }
    for row in expected_rows("Liquibase") {
        let t = table_in(&snap, &row[0], &row[1]).unwrap_or_else(|| panic!("{}.{}", row[0], row[1]));
        let (file, changeset) = row[2].rsplit_once(' ').expect("file and changeset");
        let created = t.attr("created-by").unwrap_or("");
        assert!(
            created.contains(&format!("{file}:")) && created.contains(&format!(" changeset {changeset} by ")),
            "{} created by {created}",
            row[1]
        );
        let changed: Vec<String> = t
            .attr("changed-by")
            .unwrap_or("")
            .lines()
            .filter_map(|l| l.split(" changeset ").nth(1))
            .filter_map(|l| l.split(' ').next())
            .map(str::to_owned)
            .collect();
        let want: Vec<String> = row[3]
            .split(", ")
            .filter(|c| *c != "-")
            .map(str::to_owned)
            .collect();
        assert_eq!(changed, want, "{} changed by", row[1]);
    }
    for row in expected_rows("Tables defined in several places") {
        let t = table_in(&snap, &row[0], &row[1]).unwrap_or_else(|| panic!("{}.{}", row[0], row[1]));
        let definitions: Vec<&str> = t.attr("definitions").unwrap_or("").lines().collect();
        let want: Vec<&str> = row[2].split(", ").collect();
        assert_eq!(definitions.len(), want.len(), "{}: {definitions:?}", row[1]);
        for (have, want) in definitions.iter().zip(&want) {
            let (file, rest) = want.split_once(' ').expect("file and changeset");
            let (changeset, filter) = rest.split_once(' ').unwrap_or((rest, ""));
            assert!(
                have.contains(&format!("{file}:"))
                    && have.contains(&format!(" changeset {changeset} by "))
                    && have.ends_with(filter),
                "{have} is {want}"
            );
        }
        let differences = t.attr("definition-differences").unwrap_or("");
        for item in row[3].split("; ") {
            assert!(
                differences.contains(item),
                "{}: `{item}` in {differences}",
                row[1]
            );
        }
    }
    for row in expected_rows("Not tables") {
        assert!(
            table_in(&snap, &row[0], &row[1]).is_none(),
            "{} is no table: {}",
            row[1],
            row[2]
        );
    }
    // One table name in two products: each product's own code reaches its own table.
    let ours = table_in(&snap, "catalog", "subscriptions").expect("catalog's");
    let theirs = table_in(&snap, "notifications", "subscriptions").expect("notifications'");
    let writers = |t: NodeId| neighbour_names(&snap, t, Direction::In, EdgeKind::Writes);
    assert_eq!(
        writers(ours.id),
        ["com.acme.catalog.repository.StockAlertSubscriptionDao.subscribe"]
    );
    assert_eq!(
        writers(theirs.id),
        ["com.acme.notifications.repository.SubscriptionDao.insert"]
    );
}

#[test]
fn a_dump_with_one_trigger_name_on_fifteen_tables_is_fifteen_trigger_nodes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/sql/constraints");
    let company = Company::from_paths(&[repo], None).expect("company");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    let snap = store.snapshot();
    let ids: Vec<NodeId> = snap.nodes_of_kind(NodeKind::Trigger).iter().map(NodeId).collect();
    let triggers: Vec<semgraph_storage::Node> =
        snap.nodes(&ids).expect("read").into_iter().flatten().collect();
    let touch: Vec<&semgraph_storage::Node> =
        triggers.iter().filter(|t| t.name == "touch_updated_at").collect();
    assert_eq!(touch.len(), 15);
    for t in &touch {
        let table = t.attr("table").expect("table");
        assert_eq!(
            t.fqn.as_deref(),
            Some(format!("{table}.touch_updated_at").as_str())
        );
        // Each trigger references its own table, and only it.
        assert_eq!(
            neighbour_names(&snap, t.id, Direction::Out, EdgeKind::References),
            [table]
        );
    }
    let orders = node_by_fqn(&snap, "orders", NodeKind::Table).expect("orders");
    assert_eq!(orders.attr("primary-key-name"), Some("orders_pkey"));
    assert_eq!(
        orders.attr("foreign-keys"),
        Some("fk_orders_customer\tcustomer_id\tcustomers\tid")
    );
}

/// The method nodes a fact names: `pkg.Type.method` or `pkg.Type.method(A, B)`.
pub(super) fn methods_named(snap: &Snapshot, written: &str) -> Vec<NodeId> {
    let (fqn, params) = match written.split_once('(') {
        Some((f, p)) => (f, Some(p.trim_end_matches(')'))),
        None => (written, None),
    };
    let ids = snap.find_by_fqn(fqn).expect("lookup");
    snap.nodes(&ids)
        .expect("read")
        .into_iter()
        .flatten()
        .filter(|n| n.kind == NodeKind::Method)
        .filter(|n| {
            params.is_none_or(|p| {
                let name = fqn.rsplit('.').next().unwrap_or(fqn);
                n.attr("signature") == Some(format!("{name}({p})").as_str())
            })
        })
        .map(|n| n.id)
        .collect()
}

fn calls(snap: &Snapshot, caller: &str, callee: &str) -> bool {
    let callees = methods_named(snap, callee);
    methods_named(snap, caller).into_iter().any(|c| {
        snap.adjacency()
            .neighbors(c, Direction::Out, EdgeKind::Calls)
            .any(|t| callees.contains(&t))
    })
}

#[test]
fn the_fixture_company_calls_are_resolved_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    let rows = expected_rows("Calls");
    for row in &rows {
        if !calls(&snap, &row[0], &row[1]) {
            missed.push(format!("{} -> {}", row[0], row[1]));
        }
    }
    let mut wrong = Vec::new();
    for row in expected_rows("Not calls") {
        if calls(&snap, &row[0], &row[1]) {
            wrong.push(format!("{} -> {}", row[0], row[1]));
        }
    }
    assert!(wrong.is_empty(), "false call edges:\n{}", wrong.join("\n"));
    assert!(
        missed.is_empty(),
        "{}/{} expected calls missing:\n{}",
        missed.len(),
        rows.len(),
        missed.join("\n")
    );
}

#[test]
fn the_fixture_company_endpoints_are_found_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    // Every row must be found, served by its handler: annotated controllers, servlets
    // (annotated or in web.xml), OpenAPI-generated interfaces and Spring Data REST.
    let mut missed = Vec::new();
    let mut checked = 0;
    for row in expected_rows("Endpoints") {
        checked += 1;
        let name = format!("{} {}", row[1], row[2]);
        let ids = snap.find_by_fqn(&name).expect("lookup");
        let found = snap.nodes(&ids).expect("read").into_iter().flatten().any(|e| {
            e.kind == NodeKind::Endpoint
                && e.attr("service") == Some(row[0].as_str())
                && e.attr("kind") == Some(row[4].as_str())
                && neighbour_names(&snap, e.id, Direction::Out, EdgeKind::Serves).contains(&row[3])
        });
        if !found {
            missed.push(format!("{} {name} -> {} ({})", row[0], row[3], row[4]));
        }
    }
    assert!(checked >= 37, "checked {checked} rows");
    assert!(missed.is_empty(), "endpoints missing:\n{}", missed.join("\n"));
    // A Feign client interface's mappings are calls, not endpoints.
    assert!(snap
        .find_by_fqn("POST /api/payments")
        .expect("lookup")
        .iter()
        .all(|id| snap.product_of(*id).map(|p| p.name) == Some("payments".into())));
}

#[test]
fn the_fixture_company_wiki_mentions_resolve_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    let rows: Vec<Vec<String>> = expected_rows("Wiki mentions");
    assert!(rows.len() > 60, "{} rows", rows.len());
    for row in &rows {
        let page =
            node_by_fqn(&snap, &row[0], NodeKind::WikiPage).unwrap_or_else(|| panic!("page {}", row[0]));
        let mentioned: Vec<NodeId> = snap
            .adjacency()
            .neighbors(page.id, Direction::Out, EdgeKind::Mentions)
            .collect();
        let (kind, value) = row[1].split_once(':').expect("kind:value");
        let (kinds, fqn): (&[NodeKind], String) = match kind {
            "product" => (&[NodeKind::Product], value.to_string()),
            "type" => (&[NodeKind::Type], value.to_string()),
            "method" => (&[NodeKind::Method], value.to_string()),
            "table" => (&[NodeKind::Table, NodeKind::View], value.to_string()),
            "endpoint" => (&[NodeKind::Endpoint], value.to_string()),
            "routine" => (&[NodeKind::Routine], value.to_string()),
            other => panic!("unknown mention kind {other}"),
        };
        let targets = snap.find_by_fqn(&fqn).expect("lookup");
        let hit = snap
            .nodes(&targets)
            .expect("read")
            .into_iter()
            .flatten()
            .any(|n| kinds.contains(&n.kind) && mentioned.contains(&n.id));
        if !hit {
            missed.push(format!("{} -> {}", row[0], row[1]));
        }
    }
    assert!(
        missed.is_empty(),
        "{}/{} wiki mentions missing:\n{}",
        missed.len(),
        rows.len(),
        missed.join("\n")
    );
}

#[test]
fn config_placeholders_resolve_from_the_module_env_files_and_defaults() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let value = |key: &str, product: &str| -> Vec<String> {
        let ids = snap.find_by_fqn(key).expect("lookup");
        ids.into_iter()
            .filter(|id| snap.product_of(*id).map(|p| p.name).as_deref() == Some(product))
            .filter_map(|id| {
                snap.content(id, semgraph_storage::ContentKind::ConfigValue)
                    .expect("content")
            })
            .collect()
    };
    // Written with a default, resolved to the default (or to what a .env file says).
    let smtp = value("spring.mail.host", "notifications");
    assert!(!smtp.is_empty(), "spring.mail.host is indexed");
    assert!(
        smtp.contains(&"${SMTP_HOST:localhost}\n=> localhost".to_string()),
        "{smtp:?}"
    );
    assert!(
        smtp.contains(&"smtp.prod.acme.internal".to_string()),
        "the prod profile's own value: {smtp:?}"
    );
    // A value without placeholders is stored as written, alone.
    let name = value("spring.application.name", "payments");
    assert_eq!(name, vec!["payments-service".to_string()]);
}

#[test]
fn the_fixture_company_entry_points_and_consumers_are_found_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    for row in expected_rows("Entry points") {
        let name = format!("{} {}", row[1], row[2]);
        let ids = snap.find_by_fqn(&name).expect("lookup");
        let found = snap.nodes(&ids).expect("read").into_iter().flatten().any(|e| {
            e.kind == NodeKind::EntryPoint
                && e.attr("service") == Some(row[0].as_str())
                && neighbour_names(&snap, e.id, Direction::Out, EdgeKind::Serves).contains(&row[3])
        });
        if !found {
            missed.push(format!("{} {name} -> {}", row[0], row[3]));
        }
    }
    assert!(missed.is_empty(), "entry points missing:\n{}", missed.join("\n"));

    // Every listener and stream topology consumes its topic, across products.
    for row in expected_rows("Topics") {
        for consumer in row[3].split(", ").filter(|c| *c != "-") {
            let methods = methods_named(&snap, consumer);
            assert_eq!(methods.len(), 1, "{consumer}");
            let topics = neighbour_names(&snap, methods[0], Direction::Out, EdgeKind::Consumes);
            assert!(
                topics.contains(&row[0]),
                "{consumer} consumes {} (has {topics:?})",
                row[0]
            );
        }
    }
    // Listeners of one topic in several products meet on every product's topic node.
    let order_events: Vec<NodeId> = snap
        .find_by_fqn("order-events")
        .expect("lookup")
        .into_iter()
        .filter(|id| snap.nodes_of_kind(NodeKind::Topic).contains(id.0))
        .collect();
    assert!(
        order_events.len() >= 2,
        "payments and notifications each have the topic"
    );
    // Three listeners (payments, notifications, logistics) and the orders stream topology.
    for t in &order_events {
        assert_eq!(snap.adjacency().degree(*t, Direction::In, EdgeKind::Consumes), 4);
    }
}

#[test]
fn the_fixture_company_producers_meet_their_consumers_on_topics() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let mut missed = Vec::new();
    for row in expected_rows("Topics") {
        for producer in row[2].split(", ").filter(|p| *p != "-") {
            let methods = methods_named(&snap, producer);
            assert_eq!(methods.len(), 1, "{producer}");
            let topics: Vec<NodeId> = snap
                .adjacency()
                .neighbors(methods[0], Direction::Out, EdgeKind::Produces)
                .collect();
            let names = neighbour_names(&snap, methods[0], Direction::Out, EdgeKind::Produces);
            if !names.contains(&row[0]) {
                missed.push(format!("{producer} -> {}", row[0]));
                continue;
            }
            // The producer reaches every consumer of the topic in one hop through a topic node.
            for consumer in row[3].split(", ").filter(|c| *c != "-") {
                let consumer = methods_named(&snap, consumer);
                let meets = topics.iter().any(|t| {
                    snap.adjacency()
                        .neighbors(*t, Direction::In, EdgeKind::Consumes)
                        .any(|c| consumer.contains(&c))
                });
                assert!(meets, "{producer} meets {:?} on {}", consumer, row[0]);
            }
        }
    }
    assert!(missed.is_empty(), "producers missing:\n{}", missed.join("\n"));
}

#[test]
fn the_fixture_company_feign_calls_resolve_by_service_as_expected_md_says() {
    let (_dir, store) = index_acme();
    let snap = store.snapshot();
    let rows: Vec<Vec<String>> = expected_rows("HTTP calls")
        .into_iter()
        .filter(|r| r[1] == "Feign")
        .collect();
    assert!(rows.len() >= 4);
    for row in rows {
        let callers = methods_named(&snap, &row[0]);
        assert_eq!(callers.len(), 1, "{}", row[0]);
        let calls: Vec<NodeId> = snap
            .adjacency()
            .neighbors(callers[0], Direction::Out, EdgeKind::Calls)
            .filter(|id| snap.nodes_of_kind(NodeKind::HttpCall).contains(id.0))
            .collect();
        assert_eq!(calls.len(), 1, "{} makes one HTTP call", row[0]);
        let call = snap.node(calls[0]).expect("read").expect("live");
        assert_eq!(call.attr("verb"), Some(row[2].as_str()));
        assert_eq!(call.attr("target-service"), Some(row[4].as_str()));
        // It invokes exactly the endpoint of the named service, even where another service
        // exposes the same route.
        let invoked: Vec<NodeId> = snap
            .adjacency()
            .neighbors(call.id, Direction::Out, EdgeKind::Invokes)
            .collect();
        assert_eq!(invoked.len(), 1, "{} resolves to one endpoint", row[0]);
        let endpoint = snap.node(invoked[0]).expect("read").expect("live");
        assert_eq!(endpoint.name, row[5], "{}", row[0]);
        assert_eq!(endpoint.attr("service"), Some(row[4].as_str()), "{}", row[0]);
    }
}

/// The module a file belongs to, found by walking up its folders, is the one a scan of every
/// module finds: the deepest deployable module whose folder holds the file (of two in one
/// folder, the later), else a deployable module at the root.
mod module_lookup {
    use proptest::prelude::*;

    use super::super::{DeployableModules, Module};
    use crate::lang::build::BuildFile;

    /// The reference: every module checked against the path.
    fn scan<'m>(modules: &'m [Module], rel: &str) -> Option<&'m Module> {
        modules
            .iter()
            .filter(|m| {
                m.deployable
                    && (m.dir.is_empty()
                        || rel
                            .strip_prefix(m.dir.as_str())
                            .is_some_and(|rest| rest.starts_with('/')))
            })
            .max_by_key(|m| m.dir.len())
    }

    fn path() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(vec!["a", "b", "ab", "a.b", "src"]), 0..4)
            .prop_map(|segments| segments.join("/"))
    }

    proptest! {
        #[test]
        fn walking_up_finds_what_a_scan_finds(
            dirs in prop::collection::vec((path(), any::<bool>()), 0..8),
            files in prop::collection::vec(path(), 1..12),
        ) {
            let modules: Vec<Module> = dirs
                .into_iter()
                .enumerate()
                .map(|(i, (dir, deployable))| Module {
                    dir,
                    artifact: Some(format!("m{i}")),
                    deployable,
                    build: BuildFile::default(),
                })
                .collect();
            let index = DeployableModules::new(&modules);
            for file in files {
                let rel = format!("{file}/F.java");
                let found = index.of(&rel).and_then(|m| m.artifact.clone());
                let expected = scan(&modules, &rel).and_then(|m| m.artifact.clone());
                prop_assert_eq!(found, expected, "{}", rel);
            }
        }
    }
}
