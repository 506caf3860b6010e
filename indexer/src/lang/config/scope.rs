//! A repository's config files as Spring reads them together: the files of one module
//! (every profile) and the repository's `.env` files form the scope in which `${…}`
//! placeholders resolve, and the module's `spring.application.name` names its service.

use std::collections::HashMap;

use semgraph_storage::Warning;

use super::{ConfigEntry, ConfigFile};
use crate::walk::{self, SourceFile, SourceKind};

/// A config file of the repository, parsed.
pub(crate) struct ParsedConfig {
    pub(crate) file: SourceFile,
    pub(crate) parsed: ConfigFile,
}

/// Reads and parses every config file; unreadable ones and what their parsers said
/// become warnings.
pub(crate) fn read_configs(files: &[SourceFile], warnings: &mut Vec<Warning>) -> Vec<ParsedConfig> {
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.kind == SourceKind::Config) {
        let Some(text) = walk::read_source(f, warnings) else {
            continue;
        };
        let parsed = super::parse_config_file(&f.rel, &text);
        for w in &parsed.warnings {
            warnings.push(Warning {
                file: f.rel.clone(),
                line: Some(w.line).filter(|&l| l > 0),
                message: w.message.clone(),
            });
        }
        out.push(ParsedConfig {
            file: f.clone(),
            parsed,
        });
    }
    out
}

/// The `spring.application.name` these files declare, test resources aside.
pub(crate) fn application_name(configs: &[&ParsedConfig]) -> Option<String> {
    let main: Vec<ConfigFile> = configs
        .iter()
        .filter(|c| !c.file.rel.contains("src/test/"))
        .map(|c| c.parsed.clone())
        .collect();
    super::application_name(&main)
}

/// The keys a placeholder may name: a module's config files (every profile) and the
/// repository's `.env` files, indexed by key once. A lookup is one hash probe however many
/// keys the module has; a scan per lookup made a module with an alias bomb (100,000 keys)
/// and a placeholder chain (10,000 lookups per value) take hours.
pub(crate) struct ConfigScope<'a> {
    /// Entries of the module's files by key, in file order.
    keys: HashMap<&'a str, Vec<&'a ConfigEntry>>,
    /// The first `.env` entry of each key.
    env: HashMap<&'a str, &'a ConfigEntry>,
    /// The first `.env` entry of each relaxed form (`BILLING_BASEURL` answers
    /// `billing.baseUrl`).
    env_relaxed: HashMap<String, &'a ConfigEntry>,
    /// The module's deployment environment (docker-compose, Kubernetes) by relaxed form.
    deployment: HashMap<String, &'a ConfigEntry>,
}

impl<'a> ConfigScope<'a> {
    /// The scope of a module's config files `scope` and the repository's `.env` files.
    pub(crate) fn new(scope: &[&'a ParsedConfig], env: &[&'a ParsedConfig]) -> ConfigScope<'a> {
        let mut keys: HashMap<&'a str, Vec<&'a ConfigEntry>> = HashMap::new();
        for e in scope.iter().flat_map(|c| &c.parsed.entries) {
            keys.entry(e.key.as_str()).or_default().push(e);
        }
        let mut first_env: HashMap<&'a str, &'a ConfigEntry> = HashMap::new();
        let mut env_relaxed: HashMap<String, &'a ConfigEntry> = HashMap::new();
        for e in env.iter().flat_map(|c| &c.parsed.entries) {
            first_env.entry(e.key.as_str()).or_insert(e);
            env_relaxed.entry(super::relaxed_env(&e.key)).or_insert(e);
        }
        ConfigScope {
            keys,
            env: first_env,
            env_relaxed,
            deployment: HashMap::new(),
        }
    }

    /// This scope with the environment a deployment descriptor gives the module's service
    /// (after the module's own files, before `.env`).
    pub(crate) fn with_deployment(mut self, entries: impl IntoIterator<Item = &'a ConfigEntry>) -> Self {
        for e in entries {
            self.deployment.entry(super::relaxed_env(&e.key)).or_insert(e);
        }
        self
    }

    /// The value of `key` for a placeholder in an entry of `profile`: the profile's own
    /// entry, else the default profile's, else the module's deployment environment's, else
    /// `.env`'s (by name, then by relaxed binding).
    pub(crate) fn lookup(&self, profile: Option<&str>, key: &str) -> Option<String> {
        let entries = self.keys.get(key).map(Vec::as_slice).unwrap_or_default();
        let found = entries
            .iter()
            .find(|e| profile.is_some() && e.profile.as_deref() == profile)
            .or_else(|| entries.iter().find(|e| e.profile.is_none()));
        if let Some(e) = found {
            return Some(e.value.clone());
        }
        if self.deployment.is_empty() && self.env_relaxed.is_empty() {
            return None;
        }
        let form = super::relaxed(key);
        self.deployment
            .get(&form)
            .or_else(|| self.env.get(key))
            .or_else(|| self.env_relaxed.get(&form))
            .map(|e| e.value.clone())
    }

    /// `value` with its placeholders resolved as far as the scope knows (default profile).
    pub(crate) fn resolve(&self, value: &str) -> String {
        super::resolve_placeholders(value, |k| self.lookup(None, k)).text
    }
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
            parsed: super::super::parse_config_file(rel, text),
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
        assert_eq!(
            scope.lookup(None, "smtp.host").as_deref(),
            Some("mail.local"),
            "relaxed binding"
        );
        assert_eq!(scope.lookup(None, "missing"), None);
    }

    #[test]
    fn a_deployment_environment_binds_relaxed_after_the_module_files() {
        let base = parsed("application.yml", "billing:\n  base-url: http://localhost:8085\n");
        let env = parsed(".env", "LEDGER_URL=http://from-dotenv\n");
        let deployment = [
            crate::lang::config::ConfigEntry {
                key: "BILLING_BASEURL".into(),
                value: "http://billing-core:8085".into(),
                profile: None,
                line: 3,
            },
            crate::lang::config::ConfigEntry {
                key: "LEDGER_URL".into(),
                value: "http://ledger:8090".into(),
                profile: None,
                line: 4,
            },
        ];
        let scope = ConfigScope::new(&[&base], &[&env]).with_deployment(&deployment);
        assert_eq!(
            scope.lookup(None, "billing.base-url").as_deref(),
            Some("http://localhost:8085"),
            "the module's own file first"
        );
        assert_eq!(
            scope.lookup(None, "ledger.url").as_deref(),
            Some("http://ledger:8090")
        );
        assert_eq!(
            scope.lookup(None, "ledgerUrl"),
            None,
            "no dot where the variable has an underscore"
        );
    }
}
