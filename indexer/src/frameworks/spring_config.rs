//! Spring configuration binding: which code reads which configuration keys.
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
use std::collections::BTreeMap;

use super::annotations::short;
use super::values::{eval_fixed, At};
use super::{call_site, ConfigUse, Finding, Findings, Owner, Product, Recogniser, UnmatchedKey};
use crate::facts::{Annotation, CodeFile};
use crate::lang::config::{self, ConfigKind};
use crate::resolve::{MethodKey, ResolvedCall, Target};

/// A key of the repository's configuration: the `n`th key the [`ConfigIndex`] was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode)]
pub(crate) struct KeyRef(pub(crate) usize);

/// One config key as code looks it up.
#[derive(Debug)]
struct KeyEntry {
    /// The file that sets it.
    file: String,
    /// The module folder of its file (`""` for the repository root).
    module: String,
    key: String,
    env: bool,
    /// An environment entry of one module's deployment (docker-compose, Kubernetes), not
    /// of the whole repository.
    scoped: bool,
    test: bool,
}

/// The config keys of one repository, by module, for lookups from code files.
#[derive(Debug, Default)]
pub(crate) struct ConfigIndex {
    keys: Vec<KeyEntry>,
    /// Relaxed form → indexes into `keys`, in form order: the keys under a prefix are one
    /// range.
    by_form: BTreeMap<String, Vec<usize>>,
    /// Deployable module folders (`""` for the repository's root).
    modules: rustc_hash::FxHashSet<String>,
}

use crate::lang::config::{relaxed, relaxed_env};

impl ConfigIndex {
    /// An index with `modules` as the deployable module folders.
    pub(crate) fn new(modules: Vec<String>) -> ConfigIndex {
        ConfigIndex {
            modules: modules.into_iter().collect(),
            ..ConfigIndex::default()
        }
    }

    /// Records the keys of one config file of `module`, in file order: key `n` of the
    /// index is the `n`th key added.
    pub(crate) fn add<'k>(
        &mut self,
        rel: &str,
        kind: ConfigKind,
        module: &str,
        keys: impl IntoIterator<Item = &'k str>,
    ) {
        self.add_keys(rel, kind == ConfigKind::Env, false, module, keys);
    }

    /// Records the environment entries a deployment descriptor gives module `module`'s
    /// service: environment names (`BILLING_BASEURL`), seen by that module only.
    pub(crate) fn add_deployment<'k>(
        &mut self,
        rel: &str,
        module: &str,
        keys: impl IntoIterator<Item = &'k str>,
    ) {
        self.add_keys(rel, true, true, module, keys);
    }

    fn add_keys<'k>(
        &mut self,
        rel: &str,
        env: bool,
        scoped: bool,
        module: &str,
        keys: impl IntoIterator<Item = &'k str>,
    ) {
        for key in keys {
            let form = if env { relaxed_env(key) } else { relaxed(key) };
            self.by_form.entry(form).or_default().push(self.keys.len());
            self.keys.push(KeyEntry {
                file: rel.to_string(),
                module: module.to_string(),
                key: key.to_string(),
                env,
                scoped,
                test: rel.contains("src/test/"),
            });
        }
    }

    /// Key `key` as file `rel` sets it (the first entry when the file sets it twice).
    pub(crate) fn in_file(&self, rel: &str, key: &str) -> Option<KeyRef> {
        self.by_form
            .get(&relaxed(key))?
            .iter()
            .find(|&&i| self.keys[i].file == rel && self.keys[i].key == key)
            .map(|&i| KeyRef(i))
    }

    /// The key as written.
    #[cfg(test)]
    pub(crate) fn key(&self, k: KeyRef) -> &str {
        self.keys.get(k.0).map_or("", |e| e.key.as_str())
    }

    /// The deepest module folder holding `rel` (`""` when none does): found by walking up
    /// the file's folders, which costs its depth. Every code file asks, twice, and a
    /// repository has hundreds of modules: a scan of them all was 1 % of a one-file
    /// re-index of spring-boot.
    fn module_of(&self, rel: &str) -> String {
        rel.rmatch_indices('/')
            .map(|(end, _)| &rel[..end])
            .find(|dir| self.modules.contains(*dir))
            .unwrap_or_default()
            .to_string()
    }

    /// The non-environment keys whose relaxed form starts with `prefix`, with that form,
    /// in the order they were added.
    fn plain_keys_under(&self, prefix: &str) -> Vec<(&str, usize)> {
        let mut found: Vec<(&str, usize)> = self
            .by_form
            .range::<str, _>((std::ops::Bound::Included(prefix), std::ops::Bound::Unbounded))
            .take_while(|(form, _)| form.starts_with(prefix))
            .flat_map(|(form, keys)| keys.iter().map(move |&i| (form.as_str(), i)))
            .filter(|&(_, i)| !self.keys[i].env)
            .collect();
        found.sort_by_key(|&(_, i)| i);
        found
    }

    fn visible(&self, k: &KeyEntry, module: &str, test: bool) -> bool {
        ((k.env && !k.scoped) || k.module == module) && (test || !k.test)
    }

    /// The nodes of `key` visible from a file of `module`, list entries (`key[0]`) included.
    fn lookup(&self, key: &str, module: &str, test: bool) -> Vec<KeyRef> {
        let mut out: Vec<KeyRef> = Vec::new();
        let plain = relaxed(key);
        let env = relaxed_env(key);
        for form in [&plain, &env] {
            for &i in self.by_form.get(form.as_str()).into_iter().flatten() {
                let k = &self.keys[i];
                let same_rule = if k.env { *form == env } else { *form == plain };
                if same_rule && self.visible(k, module, test) && !out.contains(&KeyRef(i)) {
                    out.push(KeyRef(i));
                }
            }
        }
        let indexed = format!("{plain}[");
        for (_, i) in self.plain_keys_under(&indexed) {
            if self.visible(&self.keys[i], module, test) && !out.contains(&KeyRef(i)) {
                out.push(KeyRef(i));
            }
        }
        out
    }

    /// The nodes of every key under `prefix` visible from a file of `module`.
    fn under(&self, prefix: &str, module: &str, test: bool) -> Vec<KeyRef> {
        let p = relaxed(prefix);
        self.plain_keys_under(&p)
            .into_iter()
            .filter(|&(f, _)| f.len() > p.len() && matches!(f.as_bytes()[p.len()], b'.' | b'['))
            .filter(|&(_, i)| self.visible(&self.keys[i], module, test))
            .map(|(_, i)| KeyRef(i))
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
    let resolved = config::resolve_placeholders(text, |k| {
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

/// Where the code of one file looks keys up.
struct Lookup<'k> {
    keys: &'k ConfigIndex,
    module: String,
    test: bool,
}

impl<'k> Lookup<'k> {
    fn new(keys: &'k ConfigIndex, path: &str) -> Lookup<'k> {
        Lookup {
            keys,
            module: keys.module_of(path),
            test: path.contains("src/test/"),
        }
    }

    /// Uses of `key` by `owner`, or the key said unmatched.
    fn key(
        &self,
        owner: &Owner,
        key: &str,
        line: u32,
        via: &'static str,
        defaulted: bool,
        out: &mut Findings,
    ) {
        let found = self.keys.lookup(key, &self.module, self.test);
        self.uses(owner, found, key, line, via, defaulted, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn uses(
        &self,
        owner: &Owner,
        found: Vec<KeyRef>,
        key: &str,
        line: u32,
        via: &'static str,
        defaulted: bool,
        out: &mut Findings,
    ) {
        if found.is_empty() {
            out.push(Finding::ConfigUnmatched(UnmatchedKey {
                key: key.to_string(),
                line,
                defaulted,
            }));
        }
        for k in found {
            out.push(Finding::Config(ConfigUse {
                owner: owner.clone(),
                key: k,
                line,
                via,
            }));
        }
    }

    fn placeholders(&self, owner: &Owner, annotations: &[Annotation], line: u32, out: &mut Findings) {
        for a in annotations {
            let via = if short(&a.name) == "Value" {
                "value"
            } else {
                "placeholder"
            };
            for v in a.args.iter().flat_map(|(_, v)| v) {
                for (key, defaulted) in placeholder_keys(v) {
                    self.key(owner, &key, line, via, defaulted, out);
                }
            }
        }
    }

    /// `@ConditionalOnProperty(prefix, name|value)`: the bean exists only as the keys say.
    fn conditions(&self, owner: &Owner, annotations: &[Annotation], line: u32, out: &mut Findings) {
        for a in annotations
            .iter()
            .filter(|a| short(&a.name) == "ConditionalOnProperty")
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
                // A condition without a key set is only counted: `matchIfMissing` is common.
                self.key(owner, &key, line, "conditional", true, out);
            }
        }
    }

    fn properties(&self, owner: &Owner, annotations: &[Annotation], line: u32, out: &mut Findings) {
        let Some(a) = annotations
            .iter()
            .find(|a| short(&a.name) == "ConfigurationProperties")
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
        let found = self.keys.under(&prefix, &self.module, self.test);
        self.uses(owner, found, &prefix, line, "configuration-properties", true, out);
    }
}

pub(crate) struct SpringConfig;

impl Recogniser for SpringConfig {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        let u = Lookup::new(product.config, &file.path);
        for t in &file.types {
            let owner = Owner::Type(t.fqn.clone());
            let line = t.line_start as u32;
            u.placeholders(&owner, &t.annotations, line, out);
            u.properties(&owner, &t.annotations, line, out);
            u.conditions(&owner, &t.annotations, line, out);
            for f in &t.fields {
                u.placeholders(&owner, &f.annotations, f.line as u32, out);
            }
            for m in &t.methods {
                let owner = Owner::Method(MethodKey::of(t, m));
                let line = m.line_start as u32;
                u.placeholders(&owner, &m.annotations, line, out);
                u.properties(&owner, &m.annotations, line, out);
                u.conditions(&owner, &m.annotations, line, out);
                for p in &m.params {
                    u.placeholders(&owner, &p.annotations, line, out);
                }
            }
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        let u = Lookup::new(product.config, &file.path);
        for call in calls {
            let Target::External { type_fqn, method } = &call.target else {
                continue;
            };
            if !ENVIRONMENT_TYPES.contains(&short(type_fqn))
                || !ENVIRONMENT_METHODS.contains(&method.as_str())
            {
                continue;
            }
            let Some((t, m, site)) = call_site(file, call) else {
                continue;
            };
            let owner = Owner::Method(call.caller.clone());
            let line = call.line as u32;
            let at = At::in_method(&product.values, &file.path, t, m, site.byte);
            let key = site.arg_values.first().and_then(|a| eval_fixed(a, &at));
            match key {
                Some(key) => u.key(&owner, &key, line, "environment", true, out),
                None => out.push(Finding::ConfigUnmatched(UnmatchedKey {
                    key: String::new(),
                    line,
                    defaulted: true,
                })),
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frameworks::testing::check;

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

    proptest::proptest! {
        /// A file's module is the longest module folder holding it, as a scan of every
        /// module says it (modules nest: `a`, `a/b`, the root `""`).
        #[test]
        fn a_files_module_is_the_deepest_folder_holding_it(
            modules in proptest::collection::vec("(|a|b|a/b|a/bc|ab|b/a/b)", 0..5),
            rel in "(a|b|ab|bc|c)(/(a|b|bc|src)){0,4}/F\\.java",
        ) {
            let scanned = modules
                .iter()
                .filter(|m| {
                    m.is_empty()
                        || rel
                            .strip_prefix(m.as_str())
                            .is_some_and(|rest| rest.starts_with('/'))
                })
                .max_by_key(|m| m.len())
                .cloned()
                .unwrap_or_default();
            proptest::prop_assert_eq!(ConfigIndex::new(modules).module_of(&rel), scanned);
        }
    }

    /// Keys 0–3 in module a, 4 in module b, 5 in a's test resources, 6 in a's `.env`.
    fn keys() -> ConfigIndex {
        let mut keys = ConfigIndex::new(vec!["a".into(), "b".into()]);
        keys.add(
            "a/src/main/resources/application.yml",
            ConfigKind::Yaml,
            "a",
            ["shop.max-items", "shop.zones[0]", "shop.enabled", "shopping.x"],
        );
        keys.add(
            "b/src/main/resources/application.yml",
            ConfigKind::Yaml,
            "b",
            ["shop.max-items"],
        );
        keys.add(
            "a/src/test/resources/application.yml",
            ConfigKind::Yaml,
            "a",
            ["shop.test-only"],
        );
        keys.add("a/.env", ConfigKind::Env, "a", ["SHOP_API_KEY"]);
        keys
    }

    #[test]
    fn keys_are_looked_up_in_the_module_with_relaxed_binding() {
        let keys = keys();
        let main = |k: &str| keys.lookup(k, &keys.module_of("a/src/main/java/X.java"), false);
        assert_eq!(main("shop.maxItems"), vec![KeyRef(0)], "not module b's key");
        assert_eq!(
            main("shop.zones"),
            vec![KeyRef(1)],
            "list entries belong to their key"
        );
        assert_eq!(
            main("shop.api.key"),
            vec![KeyRef(6)],
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
        assert_eq!(under, vec![KeyRef(0), KeyRef(1), KeyRef(2)], "not shopping.x");
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

    #[test]
    fn values_properties_conditions_and_environment_read_keys() {
        check(
            r#"
//- /shop/src/main/resources/application.yml
shop:
  max-items: 5
  enabled: true
  zones:
    - eu
//- /shop/src/main/java/a/Shop.java
package a;
import org.springframework.core.env.Environment;
@ConfigurationProperties(prefix = "shop")
class ShopProperties { int maxItems; }
@ConditionalOnProperty(prefix = "shop", name = "enabled")
class Shop {
    static final String ZONES = "shop.zones";
    @Value("${shop.max-items}") int max;
    private final Environment env;
    Shop(@Value("${shop.missing}") String missing, @Value("${shop.other:x}") String other) {}
    void zones() { env.getProperty(ZONES); env.getProperty("shop.nothing"); }
}
"#,
            r#"
config a.ShopProperties -> shop.max-items via configuration-properties
config a.ShopProperties -> shop.enabled via configuration-properties
config a.ShopProperties -> shop.zones[0] via configuration-properties
config a.Shop -> shop.enabled via conditional
config a.Shop -> shop.max-items via value
config? shop.missing
config? shop.other (defaulted)
config a.Shop.zones -> shop.zones[0] via environment
config? shop.nothing (defaulted)
"#,
        );
    }

    #[test]
    fn kotlin_value_parameters_and_properties_read_their_keys() {
        check(
            r#"
//- /svc/src/main/resources/application.yml
pricing:
  base-url: http://pricing
  retries: 3
//- /svc/src/main/kotlin/a/Pricing.kt
package a

class Pricing(
    @Value("\${pricing.base-url}") private val baseUrl: String,
    @param:Value("\${pricing.retries:1}") val retries: Int,
) {
    @Value("\${pricing.missing:none}")
    lateinit var fallback: String
}
"#,
            r#"
config? pricing.missing (defaulted)
config a.Pricing.<init> -> pricing.base-url via value
config a.Pricing.<init> -> pricing.retries via value
"#,
        );
    }
}
