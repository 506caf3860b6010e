//! The link keys by which facts of one product find nodes of another, and the normalised
//! names both the indexer and the queries use.
//!
//! Storage resolves references to anchors by exact key equality after every commit, so
//! both sides must spell a key the same way: this module is the only place that spells
//! them (the indexer when it writes, the queries when they look a name up). Storage itself
//! never parses a key. Names are normalised here (case, schema qualifiers, path
//! variables), never at the call sites.

/// A table, by its unqualified lowercase name: `orders_db.Orders` and `"orders"` meet.
pub fn table(name: &str) -> String {
    format!("{TABLE}{}", table_name(name))
}

/// The normalised table name a [`table`] key asks for; `None` for any other key.
pub fn table_of_key(key: &str) -> Option<&str> {
    key.strip_prefix(TABLE)
}

/// The prefix of [`table`] keys.
const TABLE: &str = "table:";

/// The normalised table name: schema dropped, quotes removed, lowercase.
pub fn table_name(name: &str) -> String {
    let unquoted: String = name
        .chars()
        .filter(|c| !matches!(c, '"' | '`' | '[' | ']'))
        .collect();
    unquoted
        .rsplit('.')
        .next()
        .unwrap_or(&unquoted)
        .trim()
        .to_lowercase()
}

/// An HTTP route as an endpoint serves it and a client calls it: verb, service and path,
/// with every path variable written `{}` and no trailing slash.
pub fn http_endpoint(service: &str, verb: &str, path: &str) -> String {
    format!(
        "http:{}:{}:{}",
        service.to_lowercase(),
        verb.to_uppercase(),
        route(path)
    )
}

/// An HTTP route of whichever service listens on `port` on one machine
/// (`http://localhost:8085/…`): verb and path as in [`http_endpoint`].
pub fn http_port(port: u16, verb: &str, path: &str) -> String {
    format!("http-port:{port}:{}:{}", verb.to_uppercase(), route(path))
}

/// Every route of `service` with `verb` under the path `prefix` (a gateway route
/// forwarding `/api/billing/**`): an endpoint answers to each prefix of its route.
pub fn http_prefix(service: &str, verb: &str, prefix: &str) -> String {
    format!(
        "http-prefix:{}:{}:{}",
        service.to_lowercase(),
        verb.to_uppercase(),
        route(prefix)
    )
}

/// [`http_prefix`] of the service listening on `port`.
pub fn http_port_prefix(port: u16, verb: &str, prefix: &str) -> String {
    format!(
        "http-port-prefix:{port}:{}:{}",
        verb.to_uppercase(),
        route(prefix)
    )
}

/// The prefixes of a route an endpoint answers to: `/`, `/api`, `/api/orders`, … up to
/// the segment before the first path variable (a gateway's pattern matches any value there
/// only through its own variable, which ends its literal prefix).
pub fn route_prefixes(path: &str) -> Vec<String> {
    let normal = route(path);
    let mut out = vec!["/".to_string()];
    let mut cur = String::new();
    for segment in normal.split('/').filter(|s| !s.is_empty()) {
        if segment == "{}" {
            break;
        }
        cur.push('/');
        cur.push_str(segment);
        out.push(cur.clone());
    }
    out
}

/// A service by the port it listens on.
pub fn service_port(port: u16) -> String {
    format!("port:{port}")
}

/// A route without its service, for mentions in wiki pages and tickets.
pub fn http_route(verb: &str, path: &str) -> String {
    format!("route:{}:{}", verb.to_uppercase(), route(path))
}

/// The normalised path template: `{id}`/`{orderId}`/`:id` → `{}`, query string and
/// trailing slash dropped, duplicate slashes collapsed.
pub fn route(path: &str) -> String {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let mut out = String::with_capacity(path.len() + 1);
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        out.push('/');
        if (segment.starts_with('{') && segment.ends_with('}')) || segment.starts_with(':') {
            out.push_str("{}");
        } else {
            out.push_str(segment);
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// A topic, queue or destination of a broker (`kafka`, `rabbitmq`, `jms`).
pub fn topic(broker: &str, name: &str) -> String {
    format!("topic:{}:{}", broker.to_lowercase(), name)
}

/// A product, by name.
pub fn product(name: &str) -> String {
    format!("product:{}", name.to_lowercase())
}

/// A Java type, by fully-qualified name.
pub fn java_type(fqn: &str) -> String {
    spelled(&["type:", fqn])
}

/// A Java type, by simple name (for mentions that do not say the package).
pub fn java_type_simple(name: &str) -> String {
    spelled(&["type-name:", name])
}

/// A Java method, by `Type.method` fully-qualified name (any overload).
pub fn java_method(fqn: &str) -> String {
    spelled(&["method:", fqn])
}

/// [`java_method`] of method `method` of the type `type_fqn`, without spelling
/// `Type.method` first.
pub fn java_method_of(type_fqn: &str, method: &str) -> String {
    spelled(&["method:", type_fqn, ".", method])
}

/// A Java method by its type's simple name and its name (`OrderService.placeOrder`), for
/// mentions that do not say the package.
pub fn java_method_simple_of(type_name: &str, method: &str) -> String {
    spelled(&["method-name:", type_name, ".", method])
}

/// The parts one after another, in one allocation of the right size: every type and
/// method of a product is spelled as a key on each run, and `format!` costs several
/// times a copy.
fn spelled(parts: &[&str]) -> String {
    let mut out = String::with_capacity(parts.iter().map(|p| p.len()).sum());
    for p in parts {
        out.push_str(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_key_gives_back_its_normalised_name() {
        assert_eq!(table_of_key(&table("orders_db.\"Orders\"")), Some("orders"));
        assert_eq!(table_of_key(&java_type("a.B")), None);
    }

    #[test]
    fn a_method_key_of_its_parts_is_its_key_of_the_joined_name() {
        assert_eq!(
            java_method_of("a.b.Orders", "place"),
            java_method("a.b.Orders.place")
        );
        assert_eq!(java_method_of("a.b.Orders", "place"), "method:a.b.Orders.place");
        assert_eq!(
            java_method_simple_of("Orders", "place"),
            "method-name:Orders.place"
        );
        assert_eq!(java_type("a.B"), "type:a.B");
        assert_eq!(java_type_simple("B"), "type-name:B");
        assert_eq!(java_method_of("", ""), "method:.");
    }

    #[test]
    fn both_sides_spell_the_same_route() {
        assert_eq!(
            http_endpoint("Orders-Service", "get", "/api/orders/{orderId}/"),
            http_endpoint("orders-service", "GET", "/api//orders/{id}?expand=lines")
        );
        assert_eq!(route("/legacy/:id"), "/legacy/{}");
        assert_eq!(route(""), "/");
        assert_ne!(
            http_endpoint("inventory-service", "GET", "/api/health/details"),
            http_endpoint("payments-service", "GET", "/api/health/details"),
            "the service is part of the key"
        );
    }

    #[test]
    fn routes_answer_to_their_literal_prefixes() {
        assert_eq!(
            route_prefixes("/api/orders/{id}/lines"),
            vec!["/", "/api", "/api/orders"]
        );
        assert_eq!(route_prefixes("/"), vec!["/"]);
        assert_eq!(
            http_prefix("Billing", "get", "/api/"),
            http_prefix("billing", "GET", "/api")
        );
        assert_ne!(http_port(8085, "GET", "/x"), http_port(8086, "GET", "/x"));
    }

    #[test]
    fn table_keys_ignore_schema_quotes_and_case() {
        assert_eq!(table("orders_db.Orders"), table("\"orders\""));
        assert_eq!(table("`inventory`.`stock_items`"), "table:stock_items");
    }
}
