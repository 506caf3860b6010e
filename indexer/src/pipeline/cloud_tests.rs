//! The cloud fixture company end to end, against `fixtures/cloud/EXPECTED.md`: Feign names
//! and URLs from constants and config, URLs built in helpers, local URLs named by port
//! across products, docker-compose and Kubernetes configuration, calls kept unresolved,
//! gateway routes that forward to services, and MyBatis-Plus table uses — each with its
//! look-alike, through the real store and its cross-product linking.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use semgraph_storage::{Direction, EdgeKind, Node, NodeId, NodeKind, Snapshot, Store};

use super::tests::methods_named;
use super::*;
use crate::testing::expected_rows_in;

const FACTS: &str = "fixtures/cloud/EXPECTED.md";

fn cloud() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/cloud")
}

fn index_cloud() -> (tempfile::TempDir, Store, Vec<ProductReport>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    let company = Company::load(&cloud().join("semgraph.toml")).expect("config");
    let reports = company
        .products
        .iter()
        .map(|p| index_product(&store, &company, p, &NoProgress).expect("indexes"))
        .collect();
    (dir, store, reports)
}

fn load(snap: &Snapshot, ids: &[NodeId]) -> Vec<Node> {
    snap.nodes(ids).expect("read").into_iter().flatten().collect()
}

/// `service VERB /path` of every endpoint a call or route resolves to.
fn invoked(snap: &Snapshot, call: NodeId) -> BTreeSet<String> {
    let ids: Vec<NodeId> = snap
        .adjacency()
        .neighbors(call, Direction::Out, EdgeKind::Invokes)
        .collect();
    load(snap, &ids)
        .into_iter()
        .map(|e| format!("{} {}", e.attr("service").unwrap_or("?"), e.name))
        .collect()
}

fn http_calls_of(snap: &Snapshot, from: NodeId) -> Vec<Node> {
    let ids: Vec<NodeId> = snap
        .adjacency()
        .neighbors(from, Direction::Out, EdgeKind::Calls)
        .filter(|id| snap.nodes_of_kind(NodeKind::HttpCall).contains(id.0))
        .collect();
    load(snap, &ids)
}

#[test]
fn the_cloud_company_http_calls_resolve_as_expected_md_says() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let rows = expected_rows_in(FACTS, "HTTP calls");
    let mut wrong = Vec::new();
    let callers: BTreeSet<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    for caller in callers {
        let methods = methods_named(&snap, caller);
        assert_eq!(methods.len(), 1, "{caller}");
        let mut got: BTreeSet<(String, String, String, String, String)> = BTreeSet::new();
        for call in http_calls_of(&snap, methods[0]) {
            let resolves = invoked(&snap, call.id);
            let resolves = if call.attr("unresolved").is_some() {
                assert!(resolves.is_empty(), "an unresolved call links nowhere: {caller}");
                "unresolved".to_string()
            } else if resolves.is_empty() {
                "none".to_string()
            } else {
                resolves.into_iter().collect::<Vec<_>>().join(", ")
            };
            got.insert((
                call.attr("client").unwrap_or("").to_string(),
                call.attr("verb").unwrap_or("").to_string(),
                call.attr("url").unwrap_or("").to_string(),
                call.attr("target-service").unwrap_or("").to_string(),
                resolves,
            ));
        }
        let want: BTreeSet<(String, String, String, String, String)> = rows
            .iter()
            .filter(|r| r[0] == caller)
            .map(|r| {
                (
                    r[1].clone(),
                    r[2].clone(),
                    r[3].clone(),
                    r[4].clone(),
                    r[5].clone(),
                )
            })
            .collect();
        if got != want {
            wrong.push(format!("{caller}:\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "HTTP calls wrong:\n{}", wrong.join("\n"));
}

#[test]
fn the_cloud_company_services_are_reached_by_their_ports_and_host_names() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    for row in expected_rows_in(FACTS, "Services") {
        let ids: Vec<NodeId> = snap
            .product_nodes_of_kind(&row[0], NodeKind::Service)
            .iter()
            .map(NodeId)
            .collect();
        let services = load(&snap, &ids);
        let service = services
            .iter()
            .find(|s| s.name == row[1])
            .unwrap_or_else(|| panic!("service {} of {}", row[1], row[0]));
        let ports = service.attr("ports").unwrap_or("").replace(',', ", ");
        let hosts = service.attr("hosts").unwrap_or("").replace(',', ", ");
        assert_eq!(
            (ports.as_str(), hosts.as_str()),
            (row[2].as_str(), row[3].as_str()),
            "{}",
            row[1]
        );
    }
}

#[test]
fn the_cloud_company_gateway_routes_forward_to_the_endpoints_expected_md_says() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let rows = expected_rows_in(FACTS, "Gateway routes");
    let ids: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", NodeKind::Endpoint)
        .iter()
        .map(NodeId)
        .collect();
    let gateway: Vec<Node> = load(&snap, &ids)
        .into_iter()
        .filter(|e| e.attr("kind") == Some("gateway"))
        .collect();
    assert_eq!(
        gateway.len(),
        rows.len(),
        "one gateway endpoint per route and pattern"
    );
    for row in rows {
        let endpoint = gateway
            .iter()
            .find(|e| e.attr("route-id") == Some(row[0].as_str()))
            .unwrap_or_else(|| panic!("route {}", row[0]));
        assert_eq!(endpoint.name, row[1]);
        assert_eq!(endpoint.attr("service"), Some("gateway"));
        // Served by what declares it: the config key of its uri or the bean method.
        let handler: Vec<NodeId> = snap
            .adjacency()
            .neighbors(endpoint.id, Direction::Out, EdgeKind::Serves)
            .collect();
        assert_eq!(handler.len(), 1, "{}", row[0]);
        let handler = load(&snap, &handler).remove(0);
        assert_eq!(
            handler.fqn.as_deref().unwrap_or(&handler.name),
            row[2],
            "{}",
            row[0]
        );
        let calls = http_calls_of(&snap, handler.id);
        assert_eq!(calls.len(), 1, "{}: one forwarded call", row[0]);
        let (target, path) = row[3].split_once(' ').expect("target and path");
        assert_eq!(calls[0].attr("target-service"), Some(target), "{}", row[0]);
        assert_eq!(
            calls[0].name.split_once(' ').map(|(_, p)| p),
            Some(path),
            "{}",
            row[0]
        );
        let want: BTreeSet<String> = row[4].split(", ").map(str::to_string).collect();
        assert_eq!(invoked(&snap, calls[0].id), want, "{} reaches", row[0]);
    }
}

#[test]
fn impact_upstream_of_a_handler_crosses_the_gateway() {
    // The blast radius kernel: the billing handler's callers over HTTP include the route
    // that forwards to it, and from there the gateway endpoint.
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let handler = methods_named(&snap, "com.shop.billing.InvoiceController.archived");
    assert_eq!(handler.len(), 1);
    let adj = snap.adjacency();
    let endpoint: Vec<NodeId> = adj
        .neighbors(handler[0], Direction::In, EdgeKind::Serves)
        .collect();
    let mut callers = BTreeSet::new();
    for e in &endpoint {
        for call in adj.neighbors(*e, Direction::In, EdgeKind::Invokes) {
            for c in adj.neighbors(call, Direction::In, EdgeKind::Calls) {
                callers.insert(c);
            }
        }
    }
    let callers: Vec<NodeId> = callers.into_iter().collect();
    let names: BTreeSet<String> = load(&snap, &callers)
        .into_iter()
        .map(|n| n.fqn.unwrap_or(n.name))
        .collect();
    assert!(names.contains("spring.cloud.gateway.routes[0].uri"), "{names:?}");
    assert!(
        names.contains("com.shop.orders.service.OrderService.history"),
        "{names:?}"
    );
    let key: Vec<NodeId> = callers
        .iter()
        .copied()
        .filter(|c| snap.nodes_of_kind(NodeKind::ConfigKey).contains(c.0))
        .collect();
    let served: Vec<NodeId> = key
        .iter()
        .flat_map(|k| {
            adj.neighbors(*k, Direction::In, EdgeKind::Serves)
                .collect::<Vec<_>>()
        })
        .collect();
    let served = load(&snap, &served);
    assert_eq!(served.len(), 1);
    assert_eq!(served[0].name, "ANY /api/billing/**");
}

#[test]
fn the_cloud_company_mybatis_plus_table_uses_are_as_expected_md_says() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let rows = expected_rows_in(FACTS, "MyBatis-Plus table uses");
    for row in &rows {
        let m = methods_named(&snap, &row[0]);
        assert_eq!(m.len(), 1, "{}", row[0]);
        let kind = if row[1] == "write" {
            EdgeKind::Writes
        } else {
            EdgeKind::Reads
        };
        let tables: Vec<NodeId> = snap.adjacency().neighbors(m[0], Direction::Out, kind).collect();
        let names: Vec<String> = load(&snap, &tables).into_iter().map(|t| t.name).collect();
        assert_eq!(names, vec![row[2].clone()], "{} {}", row[0], row[1]);
    }
    for look_alike in [
        "com.shop.users.web.UserController.legacy",
        "com.shop.users.web.UserController.cached",
    ] {
        let m = methods_named(&snap, look_alike);
        for kind in [EdgeKind::Reads, EdgeKind::Writes] {
            assert_eq!(
                snap.adjacency().neighbors(m[0], Direction::Out, kind).count(),
                0,
                "{look_alike}"
            );
        }
    }
    // Entities map to their tables.
    for (entity, table) in [
        ("com.shop.users.domain.User", "sys_user"),
        ("com.shop.users.domain.OrderItem", "t_order_item"),
    ] {
        let t = snap.find_by_fqn(entity).expect("lookup");
        let mapped: Vec<NodeId> = t
            .iter()
            .flat_map(|id| {
                snap.adjacency()
                    .neighbors(*id, Direction::Out, EdgeKind::MapsTo)
                    .collect::<Vec<_>>()
            })
            .collect();
        let names: Vec<String> = load(&snap, &mapped).into_iter().map(|n| n.name).collect();
        assert_eq!(names, vec![table.to_string()], "{entity}");
    }
}

#[test]
fn a_call_kept_unresolved_is_said_in_its_warning() {
    let (_dir, _store, reports) = index_cloud();
    let shop = reports.iter().find(|r| r.product == "shop").expect("shop");
    let said: Vec<&str> = shop
        .warnings
        .iter()
        .filter(|w| w.message.contains("kept unresolved") || w.message.contains("kept as an unresolved call"))
        .map(|w| w.file.as_str())
        .collect();
    assert!(said.iter().any(|f| f.ends_with("LedgerClient.java")), "{said:?}");
    assert!(said.iter().any(|f| f.ends_with("OrderService.java")), "{said:?}");
    assert_eq!(shop.stats.get("http-calls.kept-unresolved"), Some(&2));
}

#[test]
fn a_config_server_serves_its_shared_files_to_the_services_they_name() {
    let (_dir, store, reports) = index_cloud();
    let snap = store.snapshot();
    let ids: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", NodeKind::ConfigKey)
        .iter()
        .map(NodeId)
        .collect();
    let keys = load(&snap, &ids);
    let rows = expected_rows_in(FACTS, "Served configuration");
    assert!(!rows.is_empty());
    for row in &rows {
        // EXPECTED names files from the company root; nodes, from their repository.
        let file = row[4].split_once('/').map_or(row[4].as_str(), |(_, f)| f);
        let key = keys
            .iter()
            .find(|k| {
                k.name == row[1]
                    && k.file.as_deref() == Some(file)
                    && k.attr("profile").unwrap_or("") == row[2]
            })
            .unwrap_or_else(|| panic!("key {} ({}) in {file}", row[1], row[2]));
        let value = snap
            .content(key.id, semgraph_storage::ContentKind::ConfigValue)
            .expect("read")
            .unwrap_or_default();
        assert_eq!(value, row[3], "{}", row[1]);
    }
    // The served port and context path are the service's.
    let service_ids: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", NodeKind::Service)
        .iter()
        .map(NodeId)
        .collect();
    let notes = load(&snap, &service_ids)
        .into_iter()
        .find(|s| s.name == "notes-service")
        .expect("notes-service");
    assert_eq!(notes.attr("ports"), Some("8084"));
    let endpoint_ids: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", NodeKind::Endpoint)
        .iter()
        .map(NodeId)
        .collect();
    let notes_endpoints: Vec<Node> = load(&snap, &endpoint_ids)
        .into_iter()
        .filter(|e| e.attr("service") == Some("notes-service"))
        .collect();
    assert_eq!(notes_endpoints.len(), 1, "{notes_endpoints:?}");
    assert_eq!(notes_endpoints[0].name, "GET /notes/api/notes/{id}");
    assert_eq!(notes_endpoints[0].attr("context-path"), Some("/notes"));
    // `@Value` reads in the controller resolve to the served keys, and nothing is said
    // missing.
    let controller: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", NodeKind::Type)
        .iter()
        .map(NodeId)
        .collect();
    let controller = load(&snap, &controller)
        .into_iter()
        .find(|t| t.fqn.as_deref() == Some("com.shop.notes.NoteController"))
        .expect("NoteController");
    let mut owners = vec![controller.id];
    owners.extend(
        snap.adjacency()
            .neighbors(controller.id, Direction::Out, EdgeKind::Contains),
    );
    let read: Vec<NodeId> = owners
        .iter()
        .flat_map(|o| {
            snap.adjacency()
                .neighbors(*o, Direction::Out, EdgeKind::UsesConfig)
                .collect::<Vec<_>>()
        })
        .collect();
    let read: BTreeSet<(String, String)> = load(&snap, &read)
        .into_iter()
        .map(|k| (k.name, k.file.unwrap_or_default()))
        .collect();
    let want: BTreeSet<(String, String)> = [
        (
            "notes.page-size",
            "config/src/main/resources/shared/notes-service.yml",
        ),
        (
            "shop.support-email",
            "config/src/main/resources/shared/application.yml",
        ),
    ]
    .into_iter()
    .map(|(k, f)| (k.to_string(), f.to_string()))
    .collect();
    assert_eq!(read, want);
    let shop = reports.iter().find(|r| r.product == "shop").expect("shop report");
    let missing: Vec<&semgraph_storage::Warning> = shop
        .warnings
        .iter()
        .filter(|w| w.file.contains("/notes/") && w.message.contains("set in no config file"))
        .collect();
    assert!(missing.is_empty(), "{missing:?}");
}

/// The module folder of a node's file (`billing` for `billing/src/…`).
fn module_of(n: &Node) -> String {
    n.file
        .as_deref()
        .and_then(|f| f.split('/').next())
        .unwrap_or("")
        .to_string()
}

#[test]
fn a_type_declared_in_two_modules_is_told_apart_by_module() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let rows = expected_rows_in(FACTS, "Types declared in two modules");
    assert!(!rows.is_empty());
    for row in &rows {
        let callers: Vec<Node> = load(&snap, &methods_named(&snap, &row[0]))
            .into_iter()
            .filter(|n| module_of(n) == row[1])
            .collect();
        assert_eq!(callers.len(), 1, "{} in {}", row[0], row[1]);
        let caller = &callers[0];
        let callees: Vec<NodeId> = snap
            .adjacency()
            .neighbors(caller.id, Direction::Out, EdgeKind::Calls)
            .collect();
        let callees: Vec<Node> = load(&snap, &callees)
            .into_iter()
            .filter(|n| n.fqn.as_deref() == Some(row[2].as_str()))
            .collect();
        let mut modules: Vec<String> = callees.iter().map(module_of).collect();
        modules.sort();
        assert_eq!(modules.join(", "), row[3], "{} ({}) → {}", row[0], row[1], row[2]);
        let edges: Vec<(NodeId, EdgeKind, NodeId)> = callees
            .iter()
            .map(|c| (caller.id, EdgeKind::Calls, c.id))
            .collect();
        let vias: BTreeSet<String> = snap
            .edge_attrs(&edges)
            .expect("attrs")
            .into_iter()
            .map(|a| {
                a.and_then(|a| a.via)
                    .and_then(|v| v.strip_prefix("ambiguous:").map(str::to_string))
                    .unwrap_or_else(|| "-".to_string())
            })
            .collect();
        assert_eq!(
            vias.into_iter().collect::<Vec<_>>().join(", "),
            row[4],
            "{} ({}) → {}",
            row[0],
            row[1],
            row[2]
        );
    }
}

#[test]
fn each_copy_of_a_type_has_its_own_supertypes_overrides_and_tables() {
    let (_dir, store, _) = index_cloud();
    let snap = store.snapshot();
    let rows = expected_rows_in(FACTS, "What each copy is, besides its methods");
    assert!(rows.len() >= 9, "{rows:?}");
    for row in &rows {
        let (fact, module, subject, object) = (&row[0], &row[1], &row[2], &row[3]);
        let (kind, edge) = match fact.as_str() {
            "implements" => (NodeKind::Type, EdgeKind::Implements),
            "extends" => (NodeKind::Type, EdgeKind::Extends),
            "method implements" => (NodeKind::Method, EdgeKind::Implements),
            "writes" => (NodeKind::Method, EdgeKind::Writes),
            other => panic!("unknown fact {other}"),
        };
        let subjects: Vec<Node> = load(&snap, &snap.find_by_fqn(subject).expect("lookup"))
            .into_iter()
            .filter(|n| n.kind == kind && module_of(n) == *module)
            .collect();
        assert_eq!(subjects.len(), 1, "{subject} in {module}");
        let out: Vec<NodeId> = snap
            .adjacency()
            .neighbors(subjects[0].id, Direction::Out, edge)
            .collect();
        let reached: Vec<Node> = load(&snap, &out);
        if edge == EdgeKind::Writes {
            let names: Vec<String> = reached.iter().map(|t| t.name.clone()).collect();
            assert_eq!(names, vec![object.clone()], "{subject} ({module}) writes");
            assert_eq!(module_of(&reached[0]), *module, "{object} defined in {module}");
            continue;
        }
        let modules: Vec<String> = reached
            .iter()
            .filter(|n| n.fqn.as_deref() == Some(object.as_str()))
            .map(module_of)
            .collect();
        assert_eq!(
            modules,
            vec![module.clone()],
            "{subject} ({module}) {fact} {object}"
        );
    }
    // The users module's `Clock` extends nothing of the product.
    let users_clock: Vec<Node> = load(&snap, &snap.find_by_fqn("com.shop.shared.Clock").expect("lookup"))
        .into_iter()
        .filter(|n| n.kind == NodeKind::Type && module_of(n) == "users")
        .collect();
    assert_eq!(users_clock.len(), 1);
    let extends: Vec<NodeId> = snap
        .adjacency()
        .neighbors(users_clock[0].id, Direction::Out, EdgeKind::Extends)
        .collect();
    assert!(
        extends.is_empty(),
        "users' Clock extends {:?}",
        load(&snap, &extends)
    );
}
