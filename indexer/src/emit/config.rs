//! Spring configuration into the graph: one `ConfigKey` node per key and file, its value
//! as content.
//!
//! A value with `${…}` placeholders is resolved the way Spring would at start-up, as far
//! as the repository knows: from the other keys of the same module (the entry's profile
//! first, then the default profile), then from the repository's `.env` files, then the
//! placeholder's default. The content is the value as written, followed by a line
//! `=> resolved` when resolution changed it; a placeholder nothing resolves is kept as
//! written and counted.

use semgraph_storage::{ContentKind, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter};

use super::Run;
use crate::error::IndexError;
use crate::lang::config::{self, ConfigScope, ParsedConfig};

/// Writes one file's keys under its file node; `scope` holds the keys of the same module
/// and the repository's `.env` files, for resolving placeholders. Returns the key nodes
/// written.
pub(crate) fn write_config(
    run: &mut Run,
    w: &mut ProductWriter,
    file: NodeId,
    config: &ParsedConfig,
    scope: &ConfigScope<'_>,
) -> Result<Vec<(String, NodeId)>, IndexError> {
    let mut written = Vec::with_capacity(config.parsed.entries.len());
    for entry in &config.parsed.entries {
        let mut node = NewNode::new(NodeKind::ConfigKey, &entry.key).fqn(&entry.key).at(
            &config.file.rel,
            entry.line,
            entry.line,
        );
        if let Some(profile) = &entry.profile {
            node = node.attr("profile", profile);
        }
        let key = run.add(w, node)?;
        written.push((entry.key.clone(), key));
        w.add_edge(file, EdgeKind::Contains, key)?;
        let mut content = entry.value.clone();
        if entry.value.contains("${") {
            let profile = entry.profile.as_deref();
            let resolved = config::resolve_placeholders(&entry.value, |k| scope.lookup(profile, k));
            if resolved.text != entry.value {
                content.push_str("\n=> ");
                content.push_str(&resolved.text);
            }
            run.stat("config.placeholders.unresolved", resolved.unresolved.len() as u64);
        }
        w.set_content(key, ContentKind::ConfigValue, &content)?;
        run.stat("config.keys", 1);
    }
    Ok(written)
}
