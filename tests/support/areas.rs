//! Shared by the area property tests (REST and MCP): the content of every area read from
//! the store, the structure every caller may see, names of the fixture to fill parameters
//! with, and the pieces of an answer a leak would show in.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use semgraph_queries::{EndpointSpec, ParamType};
use semgraph_storage::{ContentKind, NodeKind, Snapshot};
use serde_json::Value;

use super::without_times;

pub const AREAS: &[&str] = &["commerce", "finance", "platform"];

pub fn server_toml() -> String {
    let mut s = String::from("[server]\n");
    for a in AREAS {
        s.push_str(&format!(
            "[[server.token]]\ntoken = \"token-of-{a}\"\narea = \"{a}\"\n"
        ));
    }
    s
}

/// Content per area: every stored content text, as the lines and values a leak would show.
pub struct Contents {
    /// area → lines (trimmed, long enough to be distinctive) of that area's content.
    pub lines: BTreeMap<String, HashSet<String>>,
}

pub fn distinctive(line: &str) -> bool {
    line.chars().count() >= 30 && !line.starts_with('#')
}

impl Contents {
    pub fn read(snap: &Snapshot) -> Contents {
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
    pub fn foreign(&self, area: &str, structure: &HashSet<String>) -> HashSet<String> {
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
pub fn structure(snap: &Snapshot) -> HashSet<String> {
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
pub struct Names {
    by_kind: BTreeMap<&'static str, Vec<String>>,
}

impl Names {
    pub fn read(snap: &Snapshot) -> Names {
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

    pub fn pick(&self, label: &str, i: usize) -> String {
        let v = self.by_kind.get(label).filter(|v| !v.is_empty());
        v.map(|v| v[i % v.len()].clone())
            .unwrap_or_else(|| "orders".into())
    }

    /// A plausible value for parameter `name` of `spec`.
    pub fn value(&self, spec: &EndpointSpec, name: &str, ty: &ParamType, i: usize) -> String {
        match ty {
            ParamType::Integer { min, max } => {
                return (min + (i as i64 % (max - min + 1).min(3))).to_string()
            }
            ParamType::Boolean => return i.is_multiple_of(2).to_string(),
            ParamType::Enum(values) => return values[i % values.len()].to_string(),
            // A one-line change in a source of one of the products.
            ParamType::Text { .. } => {
                let files = [
                    "orders-service/src/main/java/com/acme/orders/service/OrderService.java",
                    "src/main/java/com/acme/inventory/service/ReservationService.java",
                    "src/main/java/com/acme/payments/service/PaymentService.java",
                    "src/main/java/com/acme/notifications/service/NotificationService.java",
                ];
                let f = files[i % files.len()];
                return format!(
                    "diff --git a/{f} b/{f}\n--- a/{f}\n+++ b/{f}\n@@ -{n} +{n} @@\n-        old();\n+        changed();\n",
                    n = 30 + i % 20
                );
            }
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
pub fn pieces(body: &str, out: &mut BTreeSet<String>) {
    for line in body.lines() {
        let t = line.trim();
        out.insert(t.to_string());
        for cell in t.split('|') {
            out.insert(cell.trim().trim_matches('`').trim().to_string());
        }
    }
}

pub fn strings_of(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => pieces(s, out),
        Value::Array(a) => a.iter().for_each(|x| strings_of(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings_of(x, out)),
        _ => {}
    }
}

/// A JSON answer without its elapsed times.
pub fn comparable(v: &Value) -> Value {
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
