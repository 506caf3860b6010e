//! Which code reads which configuration keys: UsesConfig edges to `ConfigKey` nodes.
//!
//! Where a key is read from, by rule:
//!
//! - a `${…}` placeholder in an annotation of a method or of one of its parameters
//!   (`@Value` on a constructor parameter, `@Scheduled(cron = "${…}")`,
//!   `@KafkaListener(topics = "${…}")`) is read by that method — a constructor is `<init>`;
//! - a placeholder in an annotation of a field (field injection) or of the type itself
//!   (`@FeignClient(url = "${…}")`) is read by the type: no method of the source does it;
//! - `@ConfigurationProperties(prefix)` binds every key under the prefix that the module's
//!   config sets: on a type, the type reads them; on a `@Bean` method, that method does;
//!   `@ConditionalOnProperty(prefix, name)` reads `prefix.name` the same way;
//! - `environment.getProperty("key")` (a literal or constant key) is read by the calling
//!   method.
//!
//! Keys are looked up in the config of the Java file's own module (its service), plus the
//! repository's `.env` files; main code does not see test resources. Spring's relaxed
//! binding is followed: case and dashes do not matter (`maxQuantityPerOrder` is
//! `max-quantity-per-order`), and an environment entry `NOTIFICATIONS_EMAIL_FROM` answers
//! `notifications.email.from`. A placeholder nothing sets is counted
//! (`config.usages.unmatched`), and warned about only when it carries no default.

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use semgraph_storage::{EdgeAttrs, EdgeKind, NodeId, ProductWriter};

use super::data_access::{caller_decl, DataModel};
use super::ProductRun;
use crate::config_files::{self, ConfigKind};
use crate::error::IndexError;
use crate::java::{Annotation, JavaFile, MethodKey, ResolvedCall, Target};

/// One written config key.
struct KeyNode {
    /// The module folder of its file (`""` for the repository root).
    module: String,
    key: String,
    node: NodeId,
    env: bool,
    test: bool,
}

/// The config keys of one repository, by module, for lookups from Java files.
#[derive(Default)]
pub(super) struct ConfigKeys {
    keys: Vec<KeyNode>,
    /// Relaxed form → indexes into `keys`.
    by_form: HashMap<String, Vec<usize>>,
    /// Deployable module folders.
    modules: Vec<String>,
}

/// Spring's relaxed form of a property name: lower case, no dashes.
fn relaxed(key: &str) -> String {
    key.chars()
        .filter(|&c| c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The relaxed form an environment variable answers to: `_` is `.`.
fn relaxed_env(key: &str) -> String {
    relaxed(&key.replace('_', "."))
}

impl ConfigKeys {
    /// Keys with `modules` as the deployable module folders.
    pub(super) fn new(modules: Vec<String>) -> ConfigKeys {
        ConfigKeys {
            modules,
            ..ConfigKeys::default()
        }
    }

    /// Records the key nodes written for one config file of `module`.
    pub(super) fn add(
        &mut self,
        rel: &str,
        kind: ConfigKind,
        module: String,
        written: Vec<(String, NodeId)>,
    ) {
        let env = kind == ConfigKind::Env;
        for (key, node) in written {
            let form = if env { relaxed_env(&key) } else { relaxed(&key) };
            self.by_form.entry(form).or_default().push(self.keys.len());
            self.keys.push(KeyNode {
                module: module.clone(),
                key,
                node,
                env,
                test: rel.contains("src/test/"),
            });
        }
    }

    fn module_of(&self, rel: &str) -> String {
        self.modules
            .iter()
            .filter(|m| m.is_empty() || rel.starts_with(&format!("{m}/")))
            .max_by_key(|m| m.len())
            .cloned()
            .unwrap_or_default()
    }

    fn visible(&self, k: &KeyNode, module: &str, test: bool) -> bool {
        (k.env || k.module == module) && (test || !k.test)
    }

    /// The nodes of `key` visible from a file of `module`, list entries (`key[0]`) included.
    fn lookup(&self, key: &str, module: &str, test: bool) -> Vec<NodeId> {
        let mut out: Vec<NodeId> = Vec::new();
        for form in [relaxed(key), relaxed_env(key)] {
            for &i in self.by_form.get(&form).into_iter().flatten() {
                let k = &self.keys[i];
                let same_rule = if k.env {
                    form == relaxed_env(key)
                } else {
                    form == relaxed(key)
                };
                if same_rule && self.visible(k, module, test) && !out.contains(&k.node) {
                    out.push(k.node);
                }
            }
        }
        let indexed = format!("{}[", relaxed(key));
        for k in &self.keys {
            if !k.env
                && relaxed(&k.key).starts_with(&indexed)
                && self.visible(k, module, test)
                && !out.contains(&k.node)
            {
                out.push(k.node);
            }
        }
        out
    }

    /// The nodes of every key under `prefix` visible from a file of `module`.
    fn under(&self, prefix: &str, module: &str, test: bool) -> Vec<NodeId> {
        let p = relaxed(prefix);
        self.keys
            .iter()
            .filter(|k| !k.env && self.visible(k, module, test))
            .filter(|k| {
                let f = relaxed(&k.key);
                f.len() > p.len() && f.starts_with(&p) && matches!(f.as_bytes()[p.len()], b'.' | b'[')
            })
            .map(|k| k.node)
            .collect()
    }
}

/// The keys `${…}` placeholders in `text` name (defaults' placeholders too), each with
/// whether the text gives a value when the key is missing.
fn placeholder_keys(text: &str) -> Vec<(String, bool)> {
    if !text.contains("${") {
        return Vec::new();
    }
    let asked: RefCell<Vec<String>> = RefCell::new(Vec::new());
    let resolved = config_files::resolve_placeholders(text, |k| {
        asked.borrow_mut().push(k.to_string());
        None
    });
    let mut keys = asked.into_inner();
    keys.dedup();
    keys.into_iter()
        .map(|k| {
            let defaulted = !resolved.unresolved.contains(&k);
            (k, defaulted)
        })
        .collect()
}

/// The UsesConfig edges of one file, each (from, key node) once.
struct Usages<'k> {
    keys: &'k ConfigKeys,
    module: String,
    test: bool,
    edges: BTreeMap<(NodeId, NodeId), (u32, &'static str)>,
    unmatched: u64,
    first_missing: Option<(u32, String)>,
}

impl<'k> Usages<'k> {
    fn new(keys: &'k ConfigKeys, path: &str) -> Usages<'k> {
        Usages {
            keys,
            module: keys.module_of(path),
            test: path.contains("src/test/"),
            edges: BTreeMap::new(),
            unmatched: 0,
            first_missing: None,
        }
    }

    fn flush(self, run: &mut ProductRun, w: &mut ProductWriter, path: &str) -> Result<(), IndexError> {
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

    fn placeholders(&mut self, from: NodeId, annotations: &[Annotation], line: u32) {
        for a in annotations {
            let via = if a.name.rsplit('.').next() == Some("Value") {
                "value"
            } else {
                "placeholder"
            };
            for v in a.args.iter().flat_map(|(_, v)| v) {
                for (key, defaulted) in placeholder_keys(v) {
                    let nodes = self.keys.lookup(&key, &self.module, self.test);
                    if nodes.is_empty() {
                        self.unmatched += 1;
                        if !defaulted && self.first_missing.is_none() {
                            self.first_missing = Some((line, key.clone()));
                        }
                    }
                    for n in nodes {
                        self.edges.entry((from, n)).or_insert((line, via));
                    }
                }
            }
        }
    }

    /// `@ConditionalOnProperty(prefix, name|value)`: the bean exists only as the keys say.
    fn conditions(&mut self, from: NodeId, annotations: &[Annotation], line: u32) {
        for a in annotations
            .iter()
            .filter(|a| a.name.rsplit('.').next() == Some("ConditionalOnProperty"))
        {
            let values = |k: &str| a.args.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
            let prefix = values("prefix")
                .and_then(|v| v.first().cloned())
                .unwrap_or_default();
            for name in values("name").or_else(|| values("value")).unwrap_or_default() {
                let key = if prefix.is_empty() {
                    name
                } else {
                    format!("{}.{name}", prefix.trim_end_matches('.'))
                };
                let nodes = self.keys.lookup(&key, &self.module, self.test);
                if nodes.is_empty() {
                    self.unmatched += 1;
                }
                for n in nodes {
                    self.edges.entry((from, n)).or_insert((line, "conditional"));
                }
            }
        }
    }

    fn properties(&mut self, from: NodeId, annotations: &[Annotation], line: u32) {
        let Some(a) = annotations
            .iter()
            .find(|a| a.name.rsplit('.').next() == Some("ConfigurationProperties"))
        else {
            return;
        };
        let prefix = a
            .args
            .iter()
            .find(|(k, _)| k == "prefix" || k == "value")
            .and_then(|(_, v)| v.first())
            .cloned()
            .unwrap_or_default();
        if prefix.is_empty() {
            return;
        }
        let nodes = self.keys.under(&prefix, &self.module, self.test);
        if nodes.is_empty() {
            self.unmatched += 1;
        }
        for n in nodes {
            self.edges
                .entry((from, n))
                .or_insert((line, "configuration-properties"));
        }
    }
}

/// Writes the UsesConfig edges of `file`'s types and methods.
pub(super) fn write_config_usage(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    keys: &ConfigKeys,
    file: &JavaFile,
    type_node: &dyn Fn(&str) -> Option<NodeId>,
    method_node: &dyn Fn(&MethodKey) -> Option<NodeId>,
) -> Result<(), IndexError> {
    let mut u = Usages::new(keys, &file.path);
    for t in &file.types {
        if let Some(node) = type_node(&t.fqn) {
            let line = t.line_start as u32;
            u.placeholders(node, &t.annotations, line);
            u.properties(node, &t.annotations, line);
            u.conditions(node, &t.annotations, line);
            for f in &t.fields {
                u.placeholders(node, &f.annotations, f.line as u32);
            }
        }
        for m in &t.methods {
            let Some(node) = method_node(&super::code::method_key(t, m)) else {
                continue;
            };
            let line = m.line_start as u32;
            u.placeholders(node, &m.annotations, line);
            u.properties(node, &m.annotations, line);
            u.conditions(node, &m.annotations, line);
            for p in &m.params {
                u.placeholders(node, &p.annotations, line);
            }
        }
    }
    u.flush(run, w, &file.path)
}

/// Spring's property sources, and their lookups whose first argument is the key.
const ENVIRONMENT_TYPES: &[&str] = &[
    "Environment",
    "ConfigurableEnvironment",
    "StandardEnvironment",
    "AbstractEnvironment",
    "PropertyResolver",
    "ConfigurablePropertyResolver",
];
const ENVIRONMENT_METHODS: &[&str] = &["getProperty", "getRequiredProperty", "containsProperty"];

/// Writes the UsesConfig edges of `file`'s `environment.getProperty("key")` calls (a literal
/// or constant key), from the calling method.
pub(super) fn write_call_usages(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    keys: &ConfigKeys,
    data: &DataModel,
    file: &JavaFile,
    calls: &[ResolvedCall],
    methods: &HashMap<MethodKey, NodeId>,
) -> Result<(), IndexError> {
    let mut u = Usages::new(keys, &file.path);
    for call in calls {
        let Target::External { type_fqn, method } = &call.target else {
            continue;
        };
        let owner = type_fqn.rsplit('.').next().unwrap_or(type_fqn);
        if !ENVIRONMENT_TYPES.contains(&owner) || !ENVIRONMENT_METHODS.contains(&method.as_str()) {
            continue;
        }
        let (Some(&from), Some((t, m))) = (methods.get(&call.caller), caller_decl(file, &call.caller)) else {
            continue;
        };
        let key = m
            .calls
            .iter()
            .find(|c| c.line == call.line && &c.name == method)
            .and_then(|site| site.arg_texts.first())
            .and_then(|a| data.string_value(file, t, a));
        let Some(key) = key else {
            u.unmatched += 1;
            continue;
        };
        let nodes = keys.lookup(&key, &u.module, u.test);
        if nodes.is_empty() {
            u.unmatched += 1;
        }
        for n in nodes {
            u.edges
                .entry((from, n))
                .or_insert((call.line as u32, "environment"));
        }
    }
    u.flush(run, w, &file.path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_name_their_keys_and_defaults() {
        assert_eq!(
            placeholder_keys("${a.b:${c:x}}-${d}"),
            vec![
                ("a.b".to_string(), true),
                ("c".to_string(), true),
                ("d".to_string(), false)
            ]
        );
        assert!(placeholder_keys("#{systemProperties['x']}").is_empty());
    }

    fn keys() -> ConfigKeys {
        let mut keys = ConfigKeys::new(vec!["a".into(), "b".into()]);
        let written =
            |names: &[(&str, u32)]| names.iter().map(|(k, id)| (k.to_string(), NodeId(*id))).collect();
        keys.add(
            "a/src/main/resources/application.yml",
            ConfigKind::Yaml,
            "a".into(),
            written(&[
                ("shop.max-items", 1),
                ("shop.zones[0]", 2),
                ("shop.enabled", 3),
                ("shopping.x", 4),
            ]),
        );
        keys.add(
            "b/src/main/resources/application.yml",
            ConfigKind::Yaml,
            "b".into(),
            written(&[("shop.max-items", 5)]),
        );
        keys.add(
            "a/src/test/resources/application.yml",
            ConfigKind::Yaml,
            "a".into(),
            written(&[("shop.test-only", 6)]),
        );
        keys.add(
            "a/.env",
            ConfigKind::Env,
            "a".into(),
            written(&[("SHOP_API_KEY", 7)]),
        );
        keys
    }

    #[test]
    fn keys_are_looked_up_in_the_module_with_relaxed_binding() {
        let keys = keys();
        let main = |k: &str| keys.lookup(k, &keys.module_of("a/src/main/java/X.java"), false);
        assert_eq!(main("shop.maxItems"), vec![NodeId(1)], "not module b's key");
        assert_eq!(
            main("shop.zones"),
            vec![NodeId(2)],
            "list entries belong to their key"
        );
        assert_eq!(
            main("shop.api.key"),
            vec![NodeId(7)],
            "an env entry answers its relaxed name"
        );
        assert!(
            main("shop.api-key").is_empty(),
            "SHOP_API_KEY is shop.api.key, not shop.api-key"
        );
        assert!(
            main("shop.test-only").is_empty(),
            "main code does not see test config"
        );
        let mut under = keys.under("shop", "a", false);
        under.sort();
        assert_eq!(under, vec![NodeId(1), NodeId(2), NodeId(3)], "not shopping.x");
    }

    #[test]
    fn conditional_properties_read_prefix_and_name() {
        let keys = keys();
        let mut u = Usages {
            keys: &keys,
            module: "a".into(),
            test: false,
            edges: BTreeMap::new(),
            unmatched: 0,
            first_missing: None,
        };
        let a = Annotation {
            name: "ConditionalOnProperty".into(),
            args: vec![
                ("prefix".into(), vec!["shop".into()]),
                ("name".into(), vec!["enabled".into()]),
            ],
        };
        u.conditions(NodeId(100), &[a], 3);
        assert_eq!(
            u.edges.keys().copied().collect::<Vec<_>>(),
            vec![(NodeId(100), NodeId(3))]
        );
    }

    #[test]
    fn relaxed_binding_ignores_case_dashes_and_env_underscores() {
        assert_eq!(
            relaxed("inventory.reservation.maxQuantityPerOrder"),
            relaxed("inventory.reservation.max-quantity-per-order")
        );
        assert_eq!(
            relaxed_env("NOTIFICATIONS_EMAIL_FROM"),
            relaxed_env("notifications.email.from")
        );
        assert_eq!(relaxed_env("SMS_API_KEY"), relaxed_env("SMS_API_KEY"));
    }
}
