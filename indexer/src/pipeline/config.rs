//! Spring configuration into the graph: one `ConfigKey` node per key and file, its value
//! as content, and the module's `spring.application.name` as its service's name.
//!
//! A value with `${…}` placeholders is resolved the way Spring would at start-up, as far
//! as the repository knows: from the other keys of the same module (the entry's profile
//! first, then the default profile), then from the repository's `.env` files, then the
//! placeholder's default. The content is the value as written, followed by a line
//! `=> resolved` when resolution changed it; a placeholder nothing resolves is kept as
//! written and counted.

use std::collections::HashMap;

use semgraph_storage::{ContentKind, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter};

use super::ProductRun;
use crate::config_files::{self, ConfigEntry, ConfigFile};
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

/// The keys a placeholder may name: a module's config files (every profile) and the
/// repository's `.env` files, indexed by key once. A lookup is one hash probe however many
/// keys the module has; a scan per lookup made a module with an alias bomb (100,000 keys)
/// and a placeholder chain (10,000 lookups per value) take hours.
pub(super) struct ConfigScope<'a> {
    /// Entries of the module's files by key, in file order.
    keys: HashMap<&'a str, Vec<&'a ConfigEntry>>,
    /// The first `.env` entry of each key.
    env: HashMap<&'a str, &'a ConfigEntry>,
}

impl<'a> ConfigScope<'a> {
    /// The scope of a module's config files `scope` and the repository's `.env` files.
    pub(super) fn new(scope: &[&'a ParsedConfig], env: &[&'a ParsedConfig]) -> ConfigScope<'a> {
        let mut keys: HashMap<&'a str, Vec<&'a ConfigEntry>> = HashMap::new();
        for e in scope.iter().flat_map(|c| &c.parsed.entries) {
            keys.entry(e.key.as_str()).or_default().push(e);
        }
        let mut first_env: HashMap<&'a str, &'a ConfigEntry> = HashMap::new();
        for e in env.iter().flat_map(|c| &c.parsed.entries) {
            first_env.entry(e.key.as_str()).or_insert(e);
        }
        ConfigScope { keys, env: first_env }
    }

    /// The value of `key` for a placeholder in an entry of `profile`: the profile's own
    /// entry, else the default profile's, else `.env`'s.
    fn lookup(&self, profile: Option<&str>, key: &str) -> Option<String> {
        let entries = self.keys.get(key).map(Vec::as_slice).unwrap_or_default();
        entries
            .iter()
            .find(|e| profile.is_some() && e.profile.as_deref() == profile)
            .or_else(|| entries.iter().find(|e| e.profile.is_none()))
            .or_else(|| self.env.get(key))
            .map(|e| e.value.clone())
    }

    /// `value` with its placeholders resolved as far as the scope knows (default profile).
    pub(super) fn resolve(&self, value: &str) -> String {
        config_files::resolve_placeholders(value, |k| self.lookup(None, k)).text
    }
}

/// Writes one file's keys under its file node; `scope` holds the keys of the same module
/// and the repository's `.env` files, for resolving placeholders. Returns the key nodes
/// written.
pub(super) fn write_config(
    run: &mut ProductRun,
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
            let resolved = config_files::resolve_placeholders(&entry.value, |k| scope.lookup(profile, k));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::{SourceFile, SourceKind};

    fn parsed(rel: &str, text: &str) -> ParsedConfig {
        ParsedConfig {
            file: SourceFile {
                path: rel.into(),
                rel: rel.into(),
                kind: SourceKind::Config,
                size: text.len() as u64,
            },
            parsed: config_files::parse_config_file(rel, text),
        }
    }

    #[test]
    fn placeholders_look_in_the_profile_then_the_default_then_env() {
        let base = parsed("application.yml", "db:\n  host: base-db\nsmtp: x\n");
        let prod = parsed("application-prod.yml", "db:\n  host: prod-db\n");
        let env = parsed(".env", "SMTP_HOST=mail.local\n");
        let scope = ConfigScope::new(&[&base, &prod], &[&env]);
        assert_eq!(scope.lookup(Some("prod"), "db.host").as_deref(), Some("prod-db"));
        assert_eq!(scope.lookup(None, "db.host").as_deref(), Some("base-db"));
        assert_eq!(scope.lookup(Some("dev"), "db.host").as_deref(), Some("base-db"));
        assert_eq!(scope.lookup(None, "SMTP_HOST").as_deref(), Some("mail.local"));
        assert_eq!(scope.lookup(None, "missing"), None);
    }
}
