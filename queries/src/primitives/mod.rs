//! Primitive queries: one question each, one result struct each, rendered by the same module.
//!
//! - `code`: search, methods, types, callers/callees, hierarchy, source, endpoints, entry
//!   points, HTTP calls, topics, paths.
//! - `db`: tables, columns, indexes, triggers, views, routines, usages, DDL.
//! - `settings`: config keys, their users and values.
//! - `docs`: wiki pages and Jira issues.
//! - `meta`: products.

pub(crate) mod code;
pub(crate) mod db;
pub(crate) mod docs;
pub(crate) mod meta;
pub(crate) mod settings;

use semgraph_storage::{Node, NodeFlags};
use serde::Serialize;

use crate::graph::Ctx;

/// A node as every list shows it.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct NodeRef {
    pub(crate) id: u32,
    pub(crate) kind: String,
    pub(crate) name: String,
    pub(crate) fqn: Option<String>,
    pub(crate) product: String,
    pub(crate) file: Option<String>,
    pub(crate) line: Option<u32>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) test: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) external: bool,
}

impl NodeRef {
    pub(crate) fn of(ctx: &Ctx<'_>, n: &Node) -> NodeRef {
        NodeRef {
            id: n.id.0,
            kind: n.kind.as_str().to_string(),
            name: n.name.clone(),
            fqn: n.fqn.clone(),
            product: ctx.product_name(n.product),
            file: n.file.clone(),
            line: n.span.map(|s| s.start_line),
            test: n.flags.contains(NodeFlags::TEST),
            external: n.flags.contains(NodeFlags::EXTERNAL),
        }
    }

    /// The fqn or name.
    pub(crate) fn display(&self) -> &str {
        self.fqn.as_deref().unwrap_or(&self.name)
    }

    /// `file:line`, or `-`.
    pub(crate) fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            (Some(f), None) => f.clone(),
            _ if self.external => "(library)".into(),
            _ => "-".into(),
        }
    }
}

/// A method's display with its overload signature when it has parameters.
pub(crate) fn method_display(n: &Node) -> String {
    let fqn = n.display_name();
    match n.attr("signature") {
        Some(sig) if !sig.ends_with("()") => {
            let params = sig.find('(').map(|i| &sig[i..]).unwrap_or("");
            format!("{fqn}{params}")
        }
        _ => fqn.to_string(),
    }
}
