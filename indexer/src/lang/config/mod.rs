//! Config front-end: `.properties`, `.yml`/`.yaml` and `.env` files → flattened keys.
//!
//! Code reads configuration through keys (`@Value("${orders.pending.max-per-customer}")`,
//! `@ConfigurationProperties(prefix = "inventory.reservation")`), so the graph needs every
//! file reduced to the same shape whatever its syntax: one dotted key, one text value, the
//! Spring profile it applies to and the line it came from. That is all this module produces;
//! deciding which service a file belongs to and which method uses which key is the product
//! pipeline's job.
//!
//! Like every front-end, parsing never fails: a broken line or document becomes a
//! [`ConfigWarning`] and the rest of the file still counts. Files are untrusted input, so the
//! YAML reader caps how many entries one file may flatten to (anchors and aliases can
//! otherwise expand a few hundred bytes into billions of keys).

mod deploy;
mod env;
mod placeholders;
mod properties;
mod scope;
mod served;
mod yaml;

pub(crate) use deploy::{parse_deployments, Deployment};
pub(crate) use scope::{
    application_name as module_application_name, read_configs, ConfigScope, ParsedConfig,
};
pub(crate) use served::{served_files, ConfigModule, ServerSettings};

#[cfg(test)]
mod tests;

/// The syntax a config file is written in, chosen from its file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConfigKind {
    Properties,
    Yaml,
    Env,
}

/// One config file reduced to flat keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigFile {
    pub(crate) path: String,
    pub(crate) kind: ConfigKind,
    /// The profile named by the file name (`application-prod.yml` → `prod`).
    pub(crate) profile: Option<String>,
    pub(crate) entries: Vec<ConfigEntry>,
    pub(crate) warnings: Vec<ConfigWarning>,
}

/// One flattened key and its value as written (placeholders are not resolved here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigEntry {
    /// Dotted key; list items are `key[0]`, `key[1].name`.
    pub(crate) key: String,
    pub(crate) value: String,
    /// The profile the entry applies to: its YAML document's or `#---` section's
    /// `spring.config.activate.on-profile` (or legacy `spring.profiles`), else the file's.
    /// `None` is the default profile.
    pub(crate) profile: Option<String>,
    /// 1-based line where the key is written.
    pub(crate) line: u32,
}

/// Something in the file that could not be read; the rest of the file still counts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConfigWarning {
    /// 1-based line, 0 when the warning is about the whole file.
    pub(crate) line: u32,
    pub(crate) message: String,
}

/// How many entries one file may flatten to before the rest is dropped with a warning.
pub(crate) const MAX_ENTRIES_PER_FILE: usize = 100_000;

/// How long a value may grow by placeholder expansion; a placeholder whose value would take
/// it further stays as written (its own text is kept whatever its length).
pub(crate) const MAX_RESOLVED_BYTES: usize = 64 << 10;

/// The keys Spring reads to decide which profile a document belongs to.
const PROFILE_KEYS: [&str; 3] = [
    "spring.config.activate.on-profile",
    "spring.profiles",
    "spring.profiles[0]",
];

/// A value with its placeholders replaced where possible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    pub(crate) text: String,
    /// Keys of placeholders with neither a value nor a default, in order of appearance.
    pub(crate) unresolved: Vec<String>,
}

/// Replaces Spring `${key}` and `${key:default}` placeholders in `value` using `lookup`,
/// including placeholders nested in keys, defaults and looked-up values. Unresolvable ones
/// stay in the text as written and are listed in `unresolved`.
pub(crate) fn resolve_placeholders(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Resolved {
    placeholders::resolve(value, &lookup)
}

/// Spring's relaxed form of a property name: lower case, no dashes
/// (`billing.base-url`, `billing.baseUrl` → `billing.baseurl`).
pub(crate) fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|&c| c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The relaxed form an environment variable answers to: `_` is `.`
/// (`BILLING_BASEURL` → `billing.baseurl`).
pub(crate) fn relaxed_env(key: &str) -> String {
    relaxed(&key.replace('_', "."))
}

/// Parses one config file. Never fails: problems are reported in `warnings`.
pub(crate) fn parse_config_file(path: &str, text: &str) -> ConfigFile {
    let file_name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let (kind, known) = kind_of(file_name);
    let mut file = ConfigFile {
        path: path.to_owned(),
        kind,
        profile: profile_of(file_name),
        entries: Vec::new(),
        warnings: Vec::new(),
    };
    if !known {
        file.warnings.push(warning(
            0,
            "unknown config file type, read as .properties".to_owned(),
        ));
    }
    // A NUL never appears in a text config file; reading binary data line by line would
    // only produce garbage keys.
    if text.contains('\0') {
        file.warnings
            .push(warning(0, "binary content, file skipped".to_owned()));
        return file;
    }
    let documents = match kind {
        ConfigKind::Properties => properties::parse(text, &mut file.warnings),
        ConfigKind::Yaml => yaml::parse(text, &mut file.warnings),
        ConfigKind::Env => vec![env::parse(text, &mut file.warnings)],
    };
    for document in documents {
        let document_profile = document
            .iter()
            .find(|entry| PROFILE_KEYS.contains(&entry.key.as_str()))
            .map(|entry| entry.value.trim().to_owned())
            .filter(|value| !value.is_empty());
        let profile = document_profile.or_else(|| file.profile.clone());
        file.entries.extend(document.into_iter().map(|entry| ConfigEntry {
            profile: profile.clone(),
            ..entry
        }));
    }
    file
}

/// The service name declared by a set of files (`spring.application.name`), preferring the
/// default profile; among equals, the first file given wins.
pub(crate) fn application_name(files: &[ConfigFile]) -> Option<String> {
    let names = || {
        files
            .iter()
            .flat_map(|file| &file.entries)
            .filter(|entry| entry.key == "spring.application.name" && !entry.value.is_empty())
    };
    names()
        .find(|entry| entry.profile.is_none())
        .or_else(|| names().next())
        .map(|entry| entry.value.clone())
}

fn kind_of(file_name: &str) -> (ConfigKind, bool) {
    let lower = file_name.to_ascii_lowercase();
    if lower.ends_with(".yml") || lower.ends_with(".yaml") {
        (ConfigKind::Yaml, true)
    } else if lower.ends_with(".properties") {
        (ConfigKind::Properties, true)
    } else if lower == ".env" || lower.starts_with(".env.") || lower.ends_with(".env") {
        (ConfigKind::Env, true)
    } else {
        (ConfigKind::Properties, false)
    }
}

/// `application-prod.yml` → `prod`; `bootstrap-dev.properties` → `dev`.
fn profile_of(file_name: &str) -> Option<String> {
    let stem = file_name.rsplit_once('.').map_or(file_name, |(stem, _)| stem);
    let (base, profile) = stem.split_once('-')?;
    (matches!(base, "application" | "bootstrap") && !profile.is_empty()).then(|| profile.to_owned())
}

fn warning(line: u32, message: String) -> ConfigWarning {
    ConfigWarning { line, message }
}

fn entry(key: String, value: String, line: u32) -> ConfigEntry {
    ConfigEntry {
        key,
        value,
        profile: None,
        line,
    }
}

/// Saturating conversion for line numbers: a file with more than 4 billion lines is not a
/// config file anyone wrote by hand.
fn line_u32(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}
