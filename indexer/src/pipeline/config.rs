//! Spring configuration into the graph: one `ConfigKey` node per key and file, its value
//! as content, and the module's `spring.application.name` as its service's name.

use semgraph_storage::{ContentKind, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter};

use super::ProductRun;
use crate::config_files::{self, ConfigFile};
use crate::error::IndexError;
use crate::walk::{self, SourceFile, SourceKind};

/// A config file of the repository, parsed.
pub(super) struct ParsedConfig {
    pub(super) file: SourceFile,
    pub(super) parsed: ConfigFile,
}

/// Reads and parses every config file; unreadable ones become warnings.
pub(super) fn read_configs(run: &mut ProductRun, files: &[SourceFile]) -> Vec<ParsedConfig> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.kind == SourceKind::Config) {
        let Some(text) = walk::read_source(f, &mut run.warnings) else {
            continue;
        };
        let parsed = config_files::parse_config_file(&f.rel, &text);
        for w in &parsed.warnings {
            run.warn(&f.rel, Some(w.line), w.message.clone());
        }
        out.push(ParsedConfig {
            file: f.clone(),
            parsed,
        });
    }
    out
}

/// The `spring.application.name` these files declare, test resources aside.
pub(super) fn application_name(configs: &[&ParsedConfig]) -> Option<String> {
    let main: Vec<ConfigFile> = configs
        .iter()
        .filter(|c| !c.file.rel.contains("src/test/"))
        .map(|c| c.parsed.clone())
        .collect();
    config_files::application_name(&main)
}

/// Writes one file's keys under its file node.
pub(super) fn write_config(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    file: NodeId,
    config: &ParsedConfig,
) -> Result<(), IndexError> {
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
        w.add_edge(file, EdgeKind::Contains, key)?;
        w.set_content(key, ContentKind::ConfigValue, &entry.value)?;
        run.stat("config.keys", 1);
    }
    Ok(())
}
