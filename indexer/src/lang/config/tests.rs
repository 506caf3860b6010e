//! Tests of the config front-end: golden files under `fixtures/config/`, the ACME
//! company's real files, and inputs that must not make the parser panic or blow up.
//!
//! Golden files: `fixtures/config/<name>.expected` holds the rendered result of parsing
//! `fixtures/config/<name>`. `SEMGRAPH_BLESS=1 cargo test -p semgraph-indexer config_files`
//! rewrites them; review the diff before committing.

use std::fmt::Write as _;

use super::*;
use crate::testing::read;

/// One line per entry (`line key = "value" @profile`) and per warning.
fn render(file: &ConfigFile) -> String {
    let mut out = String::new();
    let profile = file.profile.as_deref().unwrap_or("-");
    let _ = writeln!(out, "kind {:?}, file profile {profile}", file.kind);
    for e in &file.entries {
        let _ = write!(out, "{} {} = {:?}", e.line, e.key, e.value);
        if let Some(p) = &e.profile {
            let _ = write!(out, " @{p}");
        }
        out.push('\n');
    }
    for w in &file.warnings {
        let _ = writeln!(out, "warning {}: {}", w.line, w.message);
    }
    out
}

/// Parses `fixtures/config/<name>` and compares with `<name>.expected`.
fn check_golden(name: &str) {
    let input = format!("fixtures/config/{name}");
    let actual = render(&parse_config_file(&input, &read(&input)));
    crate::testing::assert_golden(&input, &actual);
}

#[test]
fn properties_golden() {
    check_golden("application.properties");
}

#[test]
fn yaml_golden() {
    check_golden("application-cloud.yml");
}

#[test]
fn env_golden() {
    check_golden("local.env");
}

#[test]
fn invalid_yaml_document_is_a_warning_and_later_documents_count() {
    check_golden("broken.yml");
}

fn lookup<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
    move |key| {
        pairs
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| (*v).to_owned())
    }
}

fn resolved(text: &str, unresolved: &[&str]) -> Resolved {
    Resolved {
        text: text.to_owned(),
        unresolved: unresolved.iter().map(|s| (*s).to_owned()).collect(),
    }
}

#[test]
fn placeholders_resolve_values_defaults_and_nesting() {
    let env = [
        ("host", "db.local"),
        ("url", "jdbc:pg://${host}:${port:5432}/x"),
        ("which", "host"),
    ];
    let cases = [
        ("plain", resolved("plain", &[])),
        ("${host}", resolved("db.local", &[])),
        ("${missing:fallback}", resolved("fallback", &[])),
        ("${missing:}", resolved("", &[])),
        ("${url}", resolved("jdbc:pg://db.local:5432/x", &[])),
        ("${a:${b:${host}}}", resolved("db.local", &[])),
        ("${${which}}", resolved("db.local", &[])),
        (
            "${missing:http://h:8080/{id}}",
            resolved("http://h:8080/{id}", &[]),
        ),
        ("x ${missing} y", resolved("x ${missing} y", &["missing"])),
        ("${unterminated", resolved("${unterminated", &[])),
    ];
    for (input, expected) in cases {
        assert_eq!(resolve_placeholders(input, lookup(&env)), expected, "{input}");
    }
}

#[test]
fn placeholder_cycles_stop_at_the_depth_limit() {
    let env = [("a", "${b}"), ("b", "${a}")];
    let out = resolve_placeholders("${a}", lookup(&env));
    assert!(out.text.contains("${"), "{}", out.text);
    assert!(!out.unresolved.is_empty());
}

#[test]
fn placeholders_that_double_at_every_level_stay_cheap() {
    // Without the lookup budget this would take 2^32 lookups.
    let env: Vec<(String, String)> = (0..40)
        .map(|i| (format!("k{i}"), format!("${{k{}}}${{k{}}}", i + 1, i + 1)))
        .collect();
    let out = resolve_placeholders("${k0}", |key| {
        env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    });
    assert!(!out.unresolved.is_empty());
}

#[test]
fn placeholders_that_double_over_a_long_value_stay_under_the_size_cap() {
    // p40 would be 2^40 copies of a 64 KB value; each key is resolved once and the text
    // stops growing at the cap, the rest kept as written.
    let mut env: Vec<(String, String)> = vec![("p0".into(), "x".repeat(64 << 10))];
    env.extend((1..=40).map(|i| (format!("p{i}"), format!("${{p{}}}${{p{}}}", i - 1, i - 1))));
    let calls = std::cell::Cell::new(0);
    let out = resolve_placeholders("${p40}", |key| {
        calls.set(calls.get() + 1);
        env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    });
    assert!(
        out.text.len() <= MAX_RESOLVED_BYTES + 6,
        "{} bytes",
        out.text.len()
    );
    assert!(calls.get() <= 41, "{} lookups for 41 keys", calls.get());
    assert!(!out.unresolved.is_empty(), "what did not fit is reported");
    let get = |key: &str| env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    assert_eq!(
        resolve_placeholders("${p0}", get).text.len(),
        64 << 10,
        "a value at the cap fits"
    );
    // p1's value (two copies) does not fit: the placeholder stays as written.
    assert_eq!(resolve_placeholders("a ${p1} b", get).text, "a ${p1} b");
}

#[test]
fn application_name_prefers_the_default_profile() {
    let prod = parse_config_file("application-prod.yml", "spring.application.name: from-prod\n");
    let doc_profile = parse_config_file(
        "application.yml",
        "spring:\n  config.activate.on-profile: eu\n  application.name: from-eu\n---\nspring.application.name: from-default\n",
    );
    assert_eq!(
        application_name(&[prod.clone(), doc_profile]),
        Some("from-default".to_owned())
    );
    assert_eq!(application_name(&[prod]), Some("from-prod".to_owned()));
    assert_eq!(application_name(&[]), None);
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let garbage: String = (0u32..4096)
        .map(|i| char::from_u32((i.wrapping_mul(2_654_435_761) >> 7) % 0x2FF).unwrap_or('?'))
        .collect();
    let deep_flow = "a: ".to_owned() + &"[".repeat(20_000) + &"]".repeat(20_000);
    let deep_block: String = (0..2_000).fold(String::new(), |mut s, i| {
        let _ = writeln!(s, "{}k{i}:", " ".repeat(i));
        s
    });
    let inputs = [
        "",
        "\n\n\n",
        "\0\u{1}\u{2}binary",
        garbage.as_str(),
        deep_flow.as_str(),
        deep_block.as_str(),
        "- just\n- a list\n",
        "scalar document",
        "a: *nowhere\n",
        "? [complex, key]\n: value\n",
        "a: &x [*x]\n",
        "\\",
        "key\\",
        "k=\\u",
        "export",
        "=",
        "\"",
    ];
    for input in inputs {
        for name in ["a.yml", "a.properties", ".env", "a.conf"] {
            let file = parse_config_file(name, input);
            assert!(file.entries.len() <= MAX_ENTRIES_PER_FILE);
        }
    }
    let binary = parse_config_file("a.yml", "\0\u{1}\u{2}binary");
    assert!(binary.entries.is_empty());
    assert_eq!(binary.warnings.len(), 1);
}

#[test]
fn yaml_bomb_is_capped_with_a_warning() {
    // Billion laughs: nine levels of ten aliases each would flatten to 10^9 entries.
    let mut bomb = String::from("l0: &l0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for level in 1..10 {
        let previous = format!("*l{}", level - 1);
        let items = [previous.as_str(); 10].join(", ");
        let _ = writeln!(bomb, "l{level}: &l{level} [{items}]");
    }
    let file = parse_config_file("bomb.yml", &bomb);
    assert_eq!(file.entries.len(), MAX_ENTRIES_PER_FILE);
    assert!(file
        .warnings
        .iter()
        .any(|w| w.message.contains("entries (alias expansion?)")));
}

#[test]
fn yaml_alias_to_its_own_ancestor_is_dropped_with_a_warning() {
    let file = parse_config_file("a.yml", "root: &r\n  child: *r\n  leaf: 1\n");
    assert!(file.entries.iter().any(|e| e.key == "root.leaf"));
    assert!(file.warnings.iter().any(|w| w.message.contains("nesting")));
}

const ACME_CONFIG: [&str; 8] = [
    "fixtures/acme/orders/orders-scheduler/src/main/resources/application.yml",
    "fixtures/acme/orders/orders-scheduler/src/main/resources/application.properties",
    "fixtures/acme/orders/orders-service/src/main/resources/application.yml",
    "fixtures/acme/orders/orders-service/src/main/resources/application-prod.yml",
    "fixtures/acme/notifications/.env",
    "fixtures/acme/notifications/src/main/resources/application.yml",
    "fixtures/acme/inventory/src/main/resources/application.yml",
    "fixtures/acme/payments/src/main/resources/application.yml",
];

fn acme_files(prefix: &str) -> Vec<ConfigFile> {
    ACME_CONFIG
        .iter()
        .filter(|path| path.starts_with(prefix))
        .map(|path| parse_config_file(path, &read(path)))
        .collect()
}

fn value_of(files: &[ConfigFile], key: &str, profile: Option<&str>) -> Option<String> {
    files
        .iter()
        .flat_map(|f| &f.entries)
        .find(|e| e.key == key && e.profile.as_deref() == profile)
        .map(|e| e.value.clone())
}

#[test]
fn acme_config_files_parse_without_warnings() {
    for file in acme_files("fixtures/acme/") {
        assert!(file.warnings.is_empty(), "{}: {:?}", file.path, file.warnings);
        assert!(!file.entries.is_empty(), "{}", file.path);
    }
}

/// EXPECTED.md "Config usage": every key read by code exists in its product's files with a
/// value. `tax.api.base-url` and `notifications.sms.base-url` are left out: no file sets
/// them, the code's `@Value` default is their only value.
#[test]
fn acme_config_usage_keys_exist_with_values() {
    let rows = [
        (
            "fixtures/acme/orders/orders-service",
            "orders.pending.max-per-customer",
        ),
        ("fixtures/acme/orders/orders-service", "payments.topics.completed"),
        (
            "fixtures/acme/orders/orders-scheduler",
            "orders.cleanup.stale-after",
        ),
        ("fixtures/acme/inventory", "inventory.reservation.ttl"),
        (
            "fixtures/acme/inventory",
            "inventory.reservation.max-quantity-per-order",
        ),
        (
            "fixtures/acme/inventory",
            "inventory.reservation.expiry-batch-size",
        ),
        (
            "fixtures/acme/inventory",
            "inventory.reservation.allowed-warehouses",
        ),
        ("fixtures/acme/inventory", "inventory.stock.low-threshold"),
        ("fixtures/acme/payments", "payments.topics.completed"),
        ("fixtures/acme/notifications", "notifications.email.from"),
        ("fixtures/acme/notifications", "notifications.ops.sms-recipient"),
        ("fixtures/acme/notifications", "SMS_API_KEY"),
        (
            "fixtures/acme/notifications",
            "notifications.orders-datasource.url",
        ),
        (
            "fixtures/acme/notifications",
            "notifications.orders-datasource.username",
        ),
    ];
    for (product, key) in rows {
        let files = acme_files(product);
        let found = files.iter().flat_map(|f| &f.entries).any(|e| {
            let bound = e.key == key
                || e.key.starts_with(&format!("{key}["))
                || e.key.starts_with(&format!("{key}."));
            bound && !e.value.is_empty()
        });
        assert!(found, "{product}: {key}");
    }
}

#[test]
fn acme_values_profiles_and_names() {
    let orders = acme_files("fixtures/acme/orders/orders-service");
    let key = "orders.pending.max-per-customer";
    assert_eq!(value_of(&orders, key, None).as_deref(), Some("5"));
    assert_eq!(value_of(&orders, key, Some("local")).as_deref(), Some("50"));
    assert_eq!(value_of(&orders, key, Some("prod")).as_deref(), Some("3"));
    assert_eq!(application_name(&orders).as_deref(), Some("orders-service"));

    let inventory = acme_files("fixtures/acme/inventory");
    let warehouses = "inventory.reservation.allowed-warehouses";
    assert_eq!(
        value_of(&inventory, &format!("{warehouses}[1]"), None).as_deref(),
        Some("RTM-2")
    );
    assert_eq!(
        value_of(&inventory, warehouses, Some("staging")).as_deref(),
        Some("")
    );

    for (prefix, name) in [
        ("fixtures/acme/orders/orders-scheduler", "orders-scheduler"),
        ("fixtures/acme/inventory", "inventory-service"),
        ("fixtures/acme/payments", "payments-service"),
        ("fixtures/acme/notifications", "notifications-service"),
    ] {
        assert_eq!(application_name(&acme_files(prefix)).as_deref(), Some(name));
    }

    // The orders listener's topic: `${payments.topics.completed}` → `payment-events`.
    let topic = resolve_placeholders("${payments.topics.completed}", |k| value_of(&orders, k, None));
    assert_eq!(topic, resolved("payment-events", &[]));

    // notifications reads its sender from the environment, defaulting in the YAML.
    let notifications = acme_files("fixtures/acme/notifications");
    let from = value_of(&notifications, "notifications.email.from", None).unwrap_or_default();
    let env_only = |k: &str| {
        notifications
            .iter()
            .filter(|f| f.kind == ConfigKind::Env)
            .flat_map(|f| &f.entries)
            .find(|e| e.key == k)
            .map(|e| e.value.clone())
    };
    assert_eq!(
        resolve_placeholders(&from, env_only),
        resolved("no-reply@acme.example", &[])
    );
    let password = value_of(&notifications, "notifications.orders-datasource.password", None);
    assert_eq!(password.as_deref(), Some("${ORDERS_REPLICA_PASSWORD:}"));
}

#[test]
fn yaml_lines_count_newlines_only_as_the_rest_of_semgraph_does() {
    // A lone `\r` breaks a YAML line but not a line of the file: entries and warnings
    // must still point at the file's lines (found by fuzzing: a warning "at line 19" of an
    // 18-line file).
    let text = "a:\r  b: 1\nc: 2\r\nd: [\n";
    let file = parse_config_file("application.yml", text);
    assert!(
        !file.warnings.is_empty(),
        "the unclosed flow sequence is a warning"
    );
    for w in &file.warnings {
        assert!(w.line <= 4, "warning at line {} of a 3-line file", w.line);
    }
    let text = "a:\r  b: 1\nc: 2\r\nd: 3\n";
    let file = parse_config_file("application.yml", text);
    let lines: Vec<(&str, u32)> = file.entries.iter().map(|e| (e.key.as_str(), e.line)).collect();
    assert_eq!(lines, vec![("a.b", 1), ("c", 2), ("d", 3)]);
}
