//! Areas over HTTP, as a property: for random endpoints (recipes included), random names
//! from the fixture, both formats and a random token of one of the fixture's areas, no
//! response carries content (source, SQL, config values, wiki and Jira text) of a product
//! of another area; and an area header sent with a non-gateway token changes nothing.
//!
//! The content of every area is read from the store first, so the check does not trust
//! the code under test to say what content is.

mod support;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use semgraph_queries::{catalog, EndpointSpec, HttpMethod, ParamType};
use semgraph_storage::{ContentKind, NodeKind, Snapshot};
use serde_json::Value;
use support::{send, without_times, TestServer};

const AREAS: &[&str] = &["commerce", "finance", "platform"];

fn server_toml() -> String {
    let mut s = String::from("[server]\n");
    for a in AREAS {
        s.push_str(&format!(
            "[[server.token]]\ntoken = \"token-of-{a}\"\narea = \"{a}\"\n"
        ));
    }
    s
}

/// Content per area: every stored content text, as the lines and values a leak would show.
struct Contents {
    /// area → lines (trimmed, long enough to be distinctive) of that area's content.
    lines: BTreeMap<String, HashSet<String>>,
}

fn distinctive(line: &str) -> bool {
    line.chars().count() >= 30 && !line.starts_with('#')
}

impl Contents {
    fn read(snap: &Snapshot) -> Contents {
        let mut lines: BTreeMap<String, HashSet<String>> = BTreeMap::new();
        let ids: Vec<_> = snap.live().iter().map(semgraph_storage::NodeId).collect();
        for id in ids {
            let Some(product) = snap.product_of(id) else {
                continue;
            };
            for kind in [
                ContentKind::Source,
                ContentKind::Sql,
                ContentKind::ConfigValue,
                ContentKind::Text,
            ] {
                let Ok(Some(text)) = snap.content(id, kind) else {
                    continue;
                };
                let set = lines.entry(product.area.clone()).or_default();
                for l in text.lines().map(str::trim).filter(|l| distinctive(l)) {
                    set.insert(l.to_string());
                }
            }
        }
        Contents { lines }
    }

    /// Lines of other areas' content that no content of `area` holds and that are not
    /// structure (a node's name, fqn or attribute, visible to every caller: a wiki page's
    /// title is also a line of its text).
    fn foreign(&self, area: &str, structure: &HashSet<String>) -> HashSet<String> {
        let mine = self.lines.get(area).cloned().unwrap_or_default();
        self.lines
            .iter()
            .filter(|(a, _)| a.as_str() != area)
            .flat_map(|(_, l)| l.iter())
            .filter(|l| !mine.contains(*l) && !structure.contains(*l))
            .cloned()
            .collect()
    }
}

/// Every node's name, fqn and attribute values: structure, readable by every caller.
fn structure(snap: &Snapshot) -> HashSet<String> {
    let ids: Vec<_> = snap.live().iter().map(semgraph_storage::NodeId).collect();
    let mut out = HashSet::new();
    for n in snap.nodes(&ids).expect("nodes").into_iter().flatten() {
        out.insert(n.name.trim().to_string());
        if let Some(f) = &n.fqn {
            out.insert(f.trim().to_string());
        }
        for (_, v) in &n.attrs {
            out.insert(v.trim().to_string());
            for part in v.split(['\n', '|']) {
                out.insert(part.trim().to_string());
            }
        }
    }
    out
}

/// Names of the fixture to fill parameters with, per node kind.
struct Names {
    by_kind: BTreeMap<&'static str, Vec<String>>,
}

impl Names {
    fn read(snap: &Snapshot) -> Names {
        let mut by_kind: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
        let kinds = [
            (NodeKind::Method, "method"),
            (NodeKind::Type, "type"),
            (NodeKind::Table, "table"),
            (NodeKind::ConfigKey, "key"),
            (NodeKind::WikiPage, "wiki"),
            (NodeKind::JiraIssue, "jira"),
            (NodeKind::Endpoint, "endpoint"),
            (NodeKind::Topic, "topic"),
            (NodeKind::Product, "product"),
            (NodeKind::Service, "service"),
            (NodeKind::View, "table"),
            (NodeKind::Routine, "routine"),
        ];
        for (kind, label) in kinds {
            let ids: Vec<_> = snap
                .nodes_of_kind(kind)
                .iter()
                .map(semgraph_storage::NodeId)
                .collect();
            let nodes = snap.nodes(&ids).expect("nodes");
            let names = by_kind.entry(label).or_default();
            for n in nodes.into_iter().flatten() {
                names.push(n.fqn.clone().unwrap_or(n.name.clone()));
                if kind == NodeKind::Method || kind == NodeKind::Type {
                    names.push(n.name.clone());
                }
            }
            names.sort();
            names.dedup();
        }
        Names { by_kind }
    }

    fn pick(&self, label: &str, i: usize) -> String {
        let v = self.by_kind.get(label).filter(|v| !v.is_empty());
        v.map(|v| v[i % v.len()].clone())
            .unwrap_or_else(|| "orders".into())
    }

    /// A plausible value for parameter `name` of `spec`.
    fn value(&self, spec: &EndpointSpec, name: &str, ty: &ParamType, i: usize) -> String {
        match ty {
            ParamType::Integer { min, max } => {
                return (min + (i as i64 % (max - min + 1).min(3))).to_string()
            }
            ParamType::Boolean => return i.is_multiple_of(2).to_string(),
            ParamType::Enum(values) => return values[i % values.len()].to_string(),
            ParamType::String => {}
        }
        let words = [
            "order", "payment", "retry", "stock", "refund", "email", "incident",
        ];
        match (spec.domain, spec.name, name) {
            (_, _, "fqn" | "from" | "to") => {
                self.pick(if i.is_multiple_of(3) { "type" } else { "method" }, i)
            }
            ("recipes", "impact", "target") => match i % 3 {
                0 => self.pick("endpoint", i),
                1 => self.pick("type", i),
                _ => self.pick("method", i),
            },
            ("wiki", "mentions", "target") => {
                self.pick(if i.is_multiple_of(2) { "table" } else { "method" }, i)
            }
            ("code", "topic", "name") => self.pick("topic", i),
            ("db", "ddl", "name") => self.pick(if i.is_multiple_of(2) { "table" } else { "routine" }, i),
            (_, _, "name" | "table") => self.pick("table", i),
            ("jira", _, "key") => self.pick("jira", i),
            (_, _, "key") => self.pick("key", i),
            (_, _, "id") => self.pick("wiki", i),
            ("recipes", "endpoint-trace", "endpoint") => self.pick("endpoint", i),
            (_, _, "verb") => "GET".into(),
            ("code", "endpoint", "path") => self
                .pick("endpoint", i)
                .split_once(' ')
                .map(|(_, p)| p.to_string())
                .unwrap_or_default(),
            (_, _, "service" | "product" | "scope") => self.pick("product", i),
            (_, _, "q" | "target") => words[i % words.len()].into(),
            _ => words[i % words.len()].into(),
        }
    }
}

/// Every string a response carries, split into the lines and cells a leak would show in.
fn pieces(body: &str, out: &mut BTreeSet<String>) {
    for line in body.lines() {
        let t = line.trim();
        out.insert(t.to_string());
        for cell in t.split('|') {
            out.insert(cell.trim().trim_matches('`').trim().to_string());
        }
    }
}

fn strings_of(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => pieces(s, out),
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// A JSON answer without its elapsed times.
fn comparable(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(without_times(s)),
        Value::Array(a) => Value::Array(a.iter().map(comparable).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| {
                    (
                        k.clone(),
                        if k == "seconds" {
                            Value::Null
                        } else {
                            comparable(x)
                        },
                    )
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[derive(Clone, Debug)]
struct Case {
    endpoint: usize,
    seed: usize,
    area: usize,
    json: bool,
    optional: bool,
    post: bool,
    header_area: usize,
}

#[test]
fn no_response_carries_content_of_another_area() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let toml = server_toml();
    let s = rt.block_on(TestServer::start(Some(&toml)));
    let snap = s.state.store().snapshot();
    let contents = Contents::read(&snap);
    for a in AREAS {
        assert!(
            contents.lines.get(*a).is_some_and(|l| l.len() > 10),
            "the fixture has content in area {a}"
        );
    }
    let structure = structure(&snap);
    let foreign: BTreeMap<&str, HashSet<String>> = AREAS
        .iter()
        .map(|a| (*a, contents.foreign(a, &structure)))
        .collect();
    let names = Names::read(&snap);
    let client = reqwest::Client::new();
    let specs: Vec<&EndpointSpec> = catalog().iter().collect();
    let answered = std::cell::Cell::new(0usize);
    let strategy = (
        0..specs.len(),
        0usize..10_000,
        0..AREAS.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0..AREAS.len(),
    )
        .prop_map(|(endpoint, seed, area, json, optional, post, header_area)| Case {
            endpoint,
            seed,
            area,
            json,
            optional,
            post,
            header_area,
        });
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |case| {
            let spec = specs[case.endpoint];
            let area = AREAS[case.area];
            let mut params: Vec<(String, String)> = Vec::new();
            for (k, p) in spec.params.iter().enumerate() {
                if p.required || (case.optional && (case.seed + k).is_multiple_of(2) && p.name != "scope") {
                    params.push((
                        p.name.to_string(),
                        names.value(spec, p.name, &p.ty, case.seed + k),
                    ));
                }
            }
            let url = s.url(&spec.path());
            let build = |with_header: bool| {
                let mut r = if case.post && spec.method == HttpMethod::Post {
                    let body: serde_json::Map<String, Value> = params
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect();
                    client.post(&url).body(Value::Object(body).to_string())
                } else {
                    client.get(&url).query(&params)
                };
                r = r.bearer_auth(format!("token-of-{area}"));
                if case.json {
                    r = r.header("accept", "application/json");
                }
                if with_header {
                    r = r.header("x-semgraph-area", AREAS[case.header_area]);
                }
                r
            };
            let (plain, with_header) =
                rt.block_on(async { (send(build(false)).await, send(build(true)).await) });
            prop_assert!(
                [200, 403, 404, 422].contains(&plain.status),
                "{} {:?}: {} {}",
                spec.path(),
                params,
                plain.status,
                plain.body
            );
            if plain.status == 200 {
                answered.set(answered.get() + 1);
            }
            let mut seen = BTreeSet::new();
            for a in [&plain, &with_header] {
                if case.json {
                    let v: Value =
                        serde_json::from_str(&a.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    strings_of(&v, &mut seen);
                } else {
                    pieces(&a.body, &mut seen);
                }
            }
            let leaked: Vec<&String> = seen.iter().filter(|p| foreign[area].contains(*p)).collect();
            prop_assert!(
                leaked.is_empty(),
                "{} {:?} as {area}: content of another area: {:?}",
                spec.path(),
                params,
                leaked
            );
            prop_assert_eq!(
                plain.status,
                with_header.status,
                "the area header of a plain token is ignored"
            );
            if case.json {
                let parse = |b: &str| serde_json::from_str::<Value>(b).map(|v| comparable(&v)).ok();
                prop_assert_eq!(
                    parse(&plain.body),
                    parse(&with_header.body),
                    "the area header of a plain token is ignored"
                );
            } else {
                prop_assert_eq!(
                    without_times(&plain.body),
                    without_times(&with_header.body),
                    "the area header of a plain token is ignored"
                );
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let answered = answered.get();
    eprintln!("answered {answered}");
    assert!(
        answered > 40,
        "most cases answer 200 ({answered}), so content was at stake"
    );
}
