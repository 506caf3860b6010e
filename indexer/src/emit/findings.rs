//! Framework findings into the graph: endpoints served by their handlers, entry points,
//! outbound HTTP calls, topics with their producers and consumers, table reads and
//! writes, entity mappings, config reads.
//!
//! Findings name methods, types, tables and keys; this is where those names become
//! nodes. A finding whose method or type has no node (a declaration the code pass did not
//! write) is dropped. Each endpoint is anchored by its service, verb and route, so
//! outbound calls of any product find it by service name — never by path alone — and wiki
//! pages by verb and route. A topic is one node per product and topic key; consumers ask
//! for every node that answers (`LinkPolicy::All`), so a producer in one product and a
//! consumer in another meet after linking. A table this product defines gets a direct
//! edge carrying the lines and `via`; any other is a unique link by normalised name,
//! resolved across products at commit (links carry no attributes).
//!
//! Table and config uses are gathered per batch (one file's findings of one phase), so
//! each (owner, table, access) and (owner, key) is written once with all its lines, and
//! what a batch could not determine is one warning naming the file.

use std::collections::{BTreeMap, BTreeSet};

use semgraph_storage::{
    keys, ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeId, NodeKind, ProductWriter,
};

use super::routes::{OwnServiceCall, ServedRoute, ANY};
use super::Run;
use crate::emit::code::{Declarations, MethodDeclarations};
use crate::error::IndexError;
use crate::frameworks::{Finding, Findings, Flow, Forward, GatewayRoute, Owner, RouteSource};
use crate::lang::sql::Access;
use crate::resolve::MethodKey;

/// The nodes findings refer to.
pub(crate) struct Targets<'a> {
    pub(crate) types: &'a Declarations<String>,
    pub(crate) methods: &'a MethodDeclarations,
    /// The node of each config key, in the order of the product's `ConfigIndex`.
    pub(crate) config_keys: &'a [NodeId],
    /// The service (node and name) a file belongs to.
    pub(crate) service_of: &'a (dyn Fn(&str) -> Option<(NodeId, String)> + Sync),
    /// The other names and the ports each service is reached by, by service name.
    pub(crate) reach: &'a BTreeMap<String, Reach>,
}

/// How else a service is reached than by its name: the host names its deployments give
/// it (a docker-compose service, a Kubernetes Service), the ports it listens on
/// (`server.port`, a compose file's published ports), and the path its routes sit under
/// (`server.servlet.context-path`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Reach {
    pub(crate) hosts: Vec<String>,
    pub(crate) ports: Vec<u16>,
    pub(crate) base_path: Option<String>,
}

/// Endpoint kinds served over the service's HTTP root, so under its context path (a
/// GraphQL coordinate or a gateway route is not).
const UNDER_CONTEXT_PATH: &[&str] = &[
    "spring-mvc",
    "webflux",
    "jax-rs",
    "servlet",
    "openapi",
    "data-rest",
];

/// `path` under the service's context path `base`.
fn under(base: Option<&str>, path: &str) -> String {
    match base {
        Some(b) if path.starts_with('/') => format!("{b}{path}"),
        Some(b) => format!("{b}/{path}"),
        None => path.to_string(),
    }
}

impl Targets<'_> {
    /// What `owner` names as a file of `module` names it: its own module's copy when
    /// several modules declare the name.
    fn owner(&self, owner: &Owner, module: Option<NodeId>) -> Option<NodeId> {
        match owner {
            Owner::Type(fqn) => self.types.own(fqn, module),
            Owner::Method(key) => self.method(key, module),
        }
    }

    /// Method `key` as a file of `module` names it.
    fn method(&self, key: &MethodKey, module: Option<NodeId>) -> Option<NodeId> {
        self.methods.own(key, module)
    }
}

/// The product's Topic nodes, one per topic key, created on first use.
#[derive(Default)]
pub(crate) struct Topics {
    nodes: BTreeMap<String, NodeId>,
}

impl Topics {
    /// The Topic node of `broker`/`name` in this product, anchored by `key_name`.
    fn node(
        &mut self,
        run: &mut Run,
        w: &mut ProductWriter,
        broker: &str,
        name: &str,
        key_name: &str,
    ) -> Result<NodeId, IndexError> {
        let key = keys::topic(broker, key_name);
        if let Some(&id) = self.nodes.get(&key) {
            return Ok(id);
        }
        let id = run.add(
            w,
            NewNode::new(NodeKind::Topic, name)
                .fqn(name)
                .attr("broker", broker),
        )?;
        w.add_anchor(id, &key)?;
        self.nodes.insert(key, id);
        Ok(id)
    }
}

/// Writes one batch of findings of file `path`.
pub(crate) fn write(
    run: &mut Run,
    w: &mut ProductWriter,
    topics: &mut Topics,
    targets: &Targets<'_>,
    path: &str,
    findings: Findings,
) -> Result<(), IndexError> {
    run.warnings.extend(findings.warnings);
    for (name, value) in findings.stats {
        run.stat(name, value);
    }
    let mut touches = Touches::default();
    let mut usages = Usages::default();
    let module = (targets.service_of)(path).map(|(id, _)| id);
    for item in findings.items {
        match item {
            Finding::Endpoint(e) => {
                let Some(handler) = targets.owner(&e.handler, module) else {
                    continue;
                };
                let service = (targets.service_of)(&e.service_file);
                let base = service
                    .as_ref()
                    .and_then(|(_, name)| targets.reach.get(name))
                    .and_then(|r| r.base_path.as_deref())
                    .filter(|_| UNDER_CONTEXT_PATH.contains(&e.kind));
                let mut e = e;
                e.path = under(base, &e.path);
                let name = format!("{} {}", e.verb, e.path);
                let mut node = NewNode::new(NodeKind::Endpoint, &name)
                    .fqn(&name)
                    .at(&e.file, e.lines.0 as u32, e.lines.1 as u32)
                    .attr("verb", &e.verb)
                    .attr("path", &e.path)
                    .attr("kind", e.kind)
                    .attr("handler", &e.handler_name);
                if let Some(base) = base {
                    node = node.attr("context-path", base);
                }
                if let Some((_, service_name)) = &service {
                    node = node.attr("service", service_name);
                }
                let id = run.add(w, node)?;
                w.add_edge(id, EdgeKind::Serves, handler)?;
                // Methods that run before the handler serve the endpoint too, marked so.
                for before in e.before.iter().filter_map(|k| targets.method(k, module)) {
                    let attrs = EdgeAttrs {
                        lines: Vec::new(),
                        via: Some("model-attribute".into()),
                    };
                    w.add_edge_with(id, EdgeKind::Serves, before, &attrs)?;
                }
                w.add_anchor(id, keys::http_route(&e.verb, &e.path))?;
                if let Some((service_node, service_name)) = service {
                    w.add_edge(service_node, EdgeKind::Contains, id)?;
                    anchor_endpoint(
                        w,
                        id,
                        targets.reach.get(&service_name),
                        &service_name,
                        &e.verb,
                        &e.path,
                    )?;
                    run.served.push(ServedRoute {
                        service: service_name.to_lowercase(),
                        verb: e.verb.to_uppercase(),
                        route: keys::route(&e.path),
                        endpoint: id,
                    });
                }
                run.stat("endpoints", 1);
            }
            Finding::EntryPoint(e) => {
                let Some(handler) = targets.method(&e.handler, module) else {
                    continue;
                };
                let service = (targets.service_of)(&e.file);
                let name = format!("{} {}", e.kind, e.trigger);
                let mut node = NewNode::new(NodeKind::EntryPoint, &name)
                    .fqn(&name)
                    .at(&e.file, e.lines.0 as u32, e.lines.1 as u32)
                    .attr("kind", e.kind)
                    .attr("trigger", &e.trigger)
                    .attr("handler", &e.handler_name);
                if let Some((_, service_name)) = &service {
                    node = node.attr("service", service_name);
                }
                let id = run.add(w, node)?;
                w.add_edge(id, EdgeKind::Serves, handler)?;
                if let Some((service_node, _)) = service {
                    w.add_edge(service_node, EdgeKind::Contains, id)?;
                }
                // A listener whose topic stays a placeholder is said by its recogniser.
                if !(e.broker.is_some() && e.trigger.contains("${")) {
                    run.stat("entry-points", 1);
                }
            }
            Finding::HttpCall(mut c) => {
                let Some(caller) = targets.method(&c.caller, module) else {
                    continue;
                };
                if c.from_service_root {
                    let base = targets.reach.get(&c.target).and_then(|r| r.base_path.as_deref());
                    c.path = under(base, &c.path);
                }
                let mut flags = NodeFlags::default();
                if c.test {
                    flags |= NodeFlags::TEST;
                }
                let fqn = match &c.unresolved {
                    Some(_) => format!("unresolved {} {}", c.verb, c.url),
                    None => format!("{} {} {}", c.target, c.verb, c.path),
                };
                let mut node = NewNode::new(NodeKind::HttpCall, format!("{} {}", c.verb, c.path))
                    .fqn(fqn)
                    .at(&c.file, c.lines.0 as u32, c.lines.1 as u32)
                    .flags(flags)
                    .attr("verb", &c.verb)
                    .attr("url", &c.url)
                    .attr("client", c.client)
                    .attr("caller", &c.caller_name);
                if !c.target.is_empty() {
                    node = node.attr("target-service", &c.target);
                }
                if c.external {
                    node = node.attr("external", "yes");
                }
                if let Some(port) = c.port {
                    node = node.attr("port", port.to_string());
                }
                if let Some(reason) = &c.unresolved {
                    node = node.attr("unresolved", reason);
                }
                let id = run.add(w, node)?;
                w.add_edge(caller, EdgeKind::Calls, id)?;
                if c.links && c.unresolved.is_none() {
                    let key = match c.port {
                        Some(port) => keys::http_port(port, &c.verb, &c.path),
                        None => keys::http_endpoint(&c.target, &c.verb, &c.path),
                    };
                    w.add_link(id, EdgeKind::Invokes, &key, LinkPolicy::Unique)?;
                    if c.from_service_root && c.port.is_none() {
                        run.own_service_calls.push(OwnServiceCall {
                            call: id,
                            service: c.target.to_lowercase(),
                            verb: c.verb.to_uppercase(),
                            route: keys::route(&c.path),
                        });
                    }
                }
                run.stat("http-calls", 1);
                if c.unresolved.is_some() {
                    run.stat("http-calls.kept-unresolved", 1);
                }
            }
            Finding::Topic(t) => {
                let Some(method) = targets.method(&t.method, module) else {
                    continue;
                };
                // An in-process topic is keyed by its scope too, so it meets nothing outside it.
                let key_name = match &t.scope {
                    Some(scope) => format!("{scope}/{}", t.topic),
                    None => t.topic.clone(),
                };
                topics.node(run, w, t.broker, &t.topic, &key_name)?;
                let kind = match t.flow {
                    Flow::Consumes => EdgeKind::Consumes,
                    Flow::Produces => EdgeKind::Produces,
                };
                w.add_link(method, kind, &keys::topic(t.broker, &key_name), LinkPolicy::All)?;
            }
            Finding::Table(u) => {
                if let Some(from) = targets.owner(&u.owner, module) {
                    touches.add(from, &u.table, u.access, u.line, u.via);
                }
            }
            Finding::TableUnknown { line, reason } => touches.unknown(line, reason),
            Finding::SqlUnparsed { line } => {
                touches.unparsed += 1;
                touches.first_unparsed.get_or_insert(line);
            }
            Finding::EntityTable(e) => {
                let Some(node) = targets.types.own(&e.entity, module) else {
                    continue;
                };
                let attrs = EdgeAttrs {
                    lines: vec![e.line],
                    via: Some("jpa-entity".into()),
                };
                match run.tables.get(&keys::table_name(&e.table)) {
                    Some(&to) => w.add_edge_with(node, EdgeKind::MapsTo, to, &attrs)?,
                    None => w.add_link(node, EdgeKind::MapsTo, &keys::table(&e.table), LinkPolicy::Unique)?,
                }
                run.stat("tables.entities", 1);
            }
            Finding::Config(c) => {
                let (Some(from), Some(&key)) =
                    (targets.owner(&c.owner, module), targets.config_keys.get(c.key.0))
                else {
                    continue;
                };
                usages.edges.entry((from, key)).or_insert((c.line, c.via));
            }
            Finding::ConfigUnmatched(u) => {
                usages.unmatched += 1;
                if !u.defaulted && usages.first_missing.is_none() {
                    usages.first_missing = Some((u.line, u.key));
                }
            }
            // Dropped from the calls before they were written.
            Finding::NotACall { .. } => {}
            Finding::Gateway(g) => gateway(run, w, targets, g)?,
            Finding::MethodSql { method, sql } => {
                if let Some(node) = targets.method(&method, module) {
                    w.set_content(node, ContentKind::Sql, &sql)?;
                }
            }
        }
    }
    touches.flush(run, w, path)?;
    usages.flush(run, w, path)
}

/// A gateway route: an Endpoint of kind `gateway` served by what declares it (its config
/// key or bean method), which calls one HttpCall per target; each call asks for every
/// endpoint of the target under the forwarded prefix (or the one forwarded route), with
/// each verb the route forwards.
fn gateway(
    run: &mut Run,
    w: &mut ProductWriter,
    targets: &Targets<'_>,
    g: GatewayRoute,
) -> Result<(), IndexError> {
    let handler = match &g.declared_by {
        RouteSource::Config(k) => targets.config_keys.get(k.0).copied(),
        RouteSource::Method(m) => targets.method(m, (targets.service_of)(&g.file).map(|(id, _)| id)),
    };
    let Some(handler) = handler else {
        return Ok(());
    };
    let service = (targets.service_of)(&g.file);
    let verb = if g.verbs.is_empty() {
        "ANY".to_string()
    } else {
        g.verbs.join(",")
    };
    let name = format!("{verb} {}", g.path);
    let mut node = NewNode::new(NodeKind::Endpoint, &name)
        .fqn(&name)
        .at(&g.file, g.line, g.line)
        .attr("verb", &verb)
        .attr("path", &g.path)
        .attr("kind", "gateway")
        .attr("handler", format!("route {}", g.id))
        .attr("route-id", &g.id);
    if let Some((_, service_name)) = &service {
        node = node.attr("service", service_name);
    }
    let id = run.add(w, node)?;
    w.add_edge(id, EdgeKind::Serves, handler)?;
    let endpoint_verbs: Vec<&str> = if g.verbs.is_empty() {
        vec!["ANY"]
    } else {
        g.verbs.iter().map(String::as_str).collect()
    };
    for v in &endpoint_verbs {
        w.add_anchor(id, keys::http_route(v, &g.path))?;
    }
    if let Some((service_node, service_name)) = &service {
        w.add_edge(*service_node, EdgeKind::Contains, id)?;
        for v in &endpoint_verbs {
            w.add_anchor(id, keys::http_endpoint(service_name, v, &g.path))?;
        }
    }
    run.stat("endpoints", 1);
    run.stat("gateway.routes", 1);
    // Every verb, or those of its `Method` predicate and the endpoints that answer any.
    let asked: Vec<&str> = if g.verbs.is_empty() {
        vec![ANY_VERB]
    } else {
        g.verbs.iter().map(String::as_str).chain(["ANY"]).collect()
    };
    for t in &g.targets {
        let (shape, path) = match &t.forward {
            Forward::Prefix(p) => ("prefix", p),
            Forward::Exact(p) => ("exact", p),
        };
        let shown = if shape == "prefix" {
            format!("{}/**", path.trim_end_matches('/'))
        } else {
            path.clone()
        };
        let fqn = match &t.unresolved {
            Some(_) => format!("unresolved {verb} {}", t.uri),
            None => format!("{} {verb} {shown}", t.target),
        };
        let mut call = NewNode::new(NodeKind::HttpCall, format!("{verb} {shown}"))
            .fqn(fqn)
            .at(&g.file, g.line, g.line)
            .attr("verb", &verb)
            .attr("url", format!("{}{shown}", t.uri.trim_end_matches('/')))
            .attr("client", "gateway")
            .attr("caller", format!("route {}", g.id))
            .attr("forwards", shape);
        if !t.target.is_empty() {
            call = call.attr("target-service", &t.target);
        }
        if t.external {
            call = call.attr("external", "yes");
        }
        if let Some(port) = t.port {
            call = call.attr("port", port.to_string());
        }
        if let Some(why) = &t.unresolved {
            call = call.attr("unresolved", why);
        }
        let call_id = run.add(w, call)?;
        w.add_edge(handler, EdgeKind::Calls, call_id)?;
        run.stat("http-calls", 1);
        if t.external || t.unresolved.is_some() {
            continue;
        }
        for v in &asked {
            let (key, policy) = match (&t.forward, t.port) {
                (Forward::Prefix(p), Some(port)) => (keys::http_port_prefix(port, v, p), LinkPolicy::All),
                (Forward::Prefix(p), None) => (keys::http_prefix(&t.target, v, p), LinkPolicy::All),
                (Forward::Exact(p), Some(port)) => (keys::http_port(port, v, p), LinkPolicy::All),
                (Forward::Exact(p), None) => (keys::http_endpoint(&t.target, v, p), LinkPolicy::All),
            };
            w.add_link(call_id, EdgeKind::Invokes, &key, policy)?;
        }
    }
    Ok(())
}

/// The verb a gateway route that forwards every verb asks with.
const ANY_VERB: &str = "*";

/// The keys an endpoint answers to beyond its route: its service's verb and route under
/// every name and port the service is reached by, and each literal prefix of its route
/// (what a gateway route forwarding `/prefix/**` asks for) — each also without its verb
/// ([`ANY_VERB`]), for the routes that forward every verb.
fn anchor_endpoint(
    w: &mut ProductWriter,
    id: NodeId,
    reach: Option<&Reach>,
    service: &str,
    verb: &str,
    path: &str,
) -> Result<(), IndexError> {
    let prefixes = keys::route_prefixes(path);
    for name in reached_as(reach, service) {
        w.add_anchor(id, keys::http_endpoint(name, verb, path))?;
        w.add_anchor(id, keys::http_endpoint(name, ANY_VERB, path))?;
        for prefix in &prefixes {
            w.add_anchor(id, keys::http_prefix(name, verb, prefix))?;
            w.add_anchor(id, keys::http_prefix(name, ANY_VERB, prefix))?;
        }
    }
    for &port in reach.map_or(&[][..], |r| &r.ports) {
        w.add_anchor(id, keys::http_port(port, verb, path))?;
        w.add_anchor(id, keys::http_port(port, ANY_VERB, path))?;
        for prefix in &prefixes {
            w.add_anchor(id, keys::http_port_prefix(port, verb, prefix))?;
            w.add_anchor(id, keys::http_port_prefix(port, ANY_VERB, prefix))?;
        }
    }
    Ok(())
}

/// The names `service` is reached by: its own, then the host names its deployments give it.
fn reached_as<'a>(reach: Option<&'a Reach>, service: &'a str) -> impl Iterator<Item = &'a str> {
    let hosts: &[String] = reach.map_or(&[], |r| &r.hosts);
    std::iter::once(service).chain(
        hosts
            .iter()
            .map(String::as_str)
            .filter(move |h| !h.eq_ignore_ascii_case(service)),
    )
}

/// The verbs an HTTP client sends.
const CLIENT_VERBS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// Anchors each endpoint of `served` that answers every verb (`@RequestMapping` with no
/// method) under each verb a client sends, as its service and port answer to them, but
/// for the verbs its service serves on the same route with an endpoint of their own:
/// Spring routes those to the endpoint that names the verb, and so does a call here.
/// A client's call names its verb (`GET /owners`); an endpoint of every verb is anchored
/// under `ANY` and `*` only, so without these anchors no call from another service ever
/// reached it.
pub(crate) fn anchor_every_verb(
    w: &mut ProductWriter,
    reach: &BTreeMap<String, Reach>,
    served: &[ServedRoute],
) -> Result<(), IndexError> {
    // Served routes are keyed by the lower-cased service name, as link keys are.
    let reach: BTreeMap<String, &Reach> = reach.iter().map(|(k, v)| (k.to_lowercase(), v)).collect();
    let taken: BTreeSet<(&str, &str, &str)> = served
        .iter()
        .map(|s| (s.service.as_str(), s.verb.as_str(), s.route.as_str()))
        .collect();
    for s in served.iter().filter(|s| s.verb == ANY) {
        let reach = reach.get(&s.service).copied();
        let verbs = CLIENT_VERBS
            .into_iter()
            .filter(|v| !taken.contains(&(s.service.as_str(), v, s.route.as_str())));
        for verb in verbs {
            w.add_anchor(s.endpoint, keys::http_route(verb, &s.route))?;
            for name in reached_as(reach, &s.service) {
                w.add_anchor(s.endpoint, keys::http_endpoint(name, verb, &s.route))?;
            }
            for &port in reach.map_or(&[][..], |r| &r.ports) {
                w.add_anchor(s.endpoint, keys::http_port(port, verb, &s.route))?;
            }
        }
    }
    Ok(())
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

/// The Reads/Writes edges of one batch, gathered so each (owner, table, kind) is written
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

    fn flush(self, run: &mut Run, w: &mut ProductWriter, path: &str) -> Result<(), IndexError> {
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

/// The UsesConfig edges of one batch, each (from, key node) once.
#[derive(Default)]
struct Usages {
    edges: BTreeMap<(NodeId, NodeId), (u32, &'static str)>,
    unmatched: u64,
    first_missing: Option<(u32, String)>,
}

impl Usages {
    fn flush(self, run: &mut Run, w: &mut ProductWriter, path: &str) -> Result<(), IndexError> {
        for ((from, to), (line, via)) in &self.edges {
            let attrs = EdgeAttrs {
                lines: vec![*line],
                via: Some((*via).to_string()),
            };
            w.add_edge_with(*from, EdgeKind::UsesConfig, *to, &attrs)?;
        }
        run.stat("config.usages", self.edges.len() as u64);
        if self.unmatched > 0 {
            run.stat("config.usages.unmatched", self.unmatched);
        }
        if let Some((line, key)) = self.first_missing {
            run.warn(
                path,
                Some(line),
                format!("config key {key} is read without a default but set in no config file of its module"),
            );
        }
        Ok(())
    }
}
