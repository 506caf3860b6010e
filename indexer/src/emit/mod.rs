//! Emit: the only code that writes the graph. Everything the front-ends and recognisers
//! produced — product layout, code facts, schemas, config keys, documents, framework
//! findings — becomes nodes, edges, content, anchors and link declarations of one
//! product's `ProductWriter` run here, and nowhere else.
//!
//! [`Run`] holds what a run counts (nodes per kind, files, stats, warnings) and what later
//! writes need from earlier ones (the tables the product defines, its services); every
//! writer takes it with the `ProductWriter`.

pub(crate) mod code;
pub(crate) mod config;
pub(crate) mod docs;
pub(crate) mod findings;
pub(crate) mod layout;
pub(crate) mod routes;
pub(crate) mod schema;

use std::collections::BTreeMap;

use semgraph_storage::{NewNode, NodeId, ProductWriter, Warning};

use crate::error::IndexError;

/// The state of one product's run while it writes.
#[derive(Default)]
pub(crate) struct Run {
    /// Files indexed, per kind (`java`, `sql`, …).
    pub(crate) files: BTreeMap<String, u64>,
    /// Bytes read.
    pub(crate) bytes: u64,
    /// Nodes written per kind.
    pub(crate) nodes: BTreeMap<String, u64>,
    /// Indexer counters (`calls.resolved`, …).
    pub(crate) stats: BTreeMap<String, u64>,
    /// Every warning, with its file.
    pub(crate) warnings: Vec<Warning>,
    /// Service names of this product (for attributing tickets).
    pub(crate) services: Vec<String>,
    /// Every product of the company (mentions of product names).
    pub(crate) product_names: Vec<String>,
    /// The tables this product's schemas define, by normalised name.
    pub(crate) tables: BTreeMap<String, NodeId>,
    /// What became of each declared dependency's types.
    pub(crate) dependencies: Vec<crate::company::DependencyTyping>,
    /// Time spent per phase, added up over the product's repositories, in first-seen order.
    pub(crate) timings: Vec<(&'static str, std::time::Duration)>,
    /// The routes the product's endpoints serve, for its services' calls to themselves.
    pub(crate) served: Vec<routes::ServedRoute>,
    /// Calls of a service to its own routes (its tests' clients), matched to `served` once
    /// every file is written ([`routes::link_concrete`]).
    pub(crate) own_service_calls: Vec<routes::OwnServiceCall>,
}

impl Run {
    /// Writes `node`, counting it by kind.
    pub(crate) fn add(&mut self, w: &mut ProductWriter, node: NewNode) -> Result<NodeId, IndexError> {
        if let Some(kind) = node.kind {
            *self.nodes.entry(kind.as_str().to_string()).or_default() += 1;
        }
        Ok(w.add_node(node)?)
    }

    /// Counts one file of `kind` and `bytes`.
    pub(crate) fn bump_file(&mut self, kind: &str, bytes: u64) {
        *self.files.entry(kind.to_string()).or_default() += 1;
        self.bytes += bytes;
    }

    /// Adds `value` to counter `name`.
    pub(crate) fn stat(&mut self, name: &str, value: u64) {
        // Most counts are bumped once per call or file, under a name already counted.
        match self.stats.get_mut(name) {
            Some(count) => *count += value,
            None => {
                self.stats.insert(name.to_string(), value);
            }
        }
    }

    /// Adds `elapsed` to phase `phase`'s time.
    pub(crate) fn time(&mut self, phase: &'static str, elapsed: std::time::Duration) {
        match self.timings.iter_mut().find(|(p, _)| *p == phase) {
            Some((_, t)) => *t += elapsed,
            None => self.timings.push((phase, elapsed)),
        }
    }

    /// A warning about `file` (at `line`, when known).
    pub(crate) fn warn(&mut self, file: &str, line: Option<u32>, message: impl Into<String>) {
        self.warnings.push(Warning {
            file: file.to_string(),
            line: line.filter(|&l| l > 0),
            message: message.into(),
        });
    }
}
