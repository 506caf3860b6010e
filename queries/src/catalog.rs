//! The endpoint catalog: the contract agents copy parameter names from.
//!
//! One table describes every endpoint: domain, name, HTTP method, one-line summary, and each
//! parameter's name, type, default and meaning. Parameter checking, the REST routes, the
//! OpenAPI document, the discover catalog and the MCP tool enums are all generated from it,
//! so a new endpoint appears everywhere by adding one entry here. Names are never renamed
//! within v1.

/// The domains of the API, in the order the catalog lists them.
pub const DOMAINS: &[&str] = &["code", "db", "config", "wiki", "jira", "recipes", "meta"];

/// How an endpoint is called over HTTP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HttpMethod {
    /// Query parameters.
    Get,
    /// A JSON body (recipes; they answer GET with query parameters too).
    Post,
}

/// The type of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamType {
    /// Free text.
    String,
    /// A whole number within `min..=max`.
    Integer {
        /// Smallest accepted value.
        min: i64,
        /// Largest accepted value.
        max: i64,
    },
    /// `true` or `false`.
    Boolean,
    /// One of the listed words.
    Enum(&'static [&'static str]),
    /// A document (a diff), at most `max_bytes` long, kept as sent (never trimmed). Too
    /// long for a query string: it is sent in a POST body.
    Text {
        /// Largest accepted size in bytes.
        max_bytes: usize,
    },
}

impl ParamType {
    /// The type as the catalog prints it (`string`, `integer 1..8`, `read|write`).
    pub fn describe(&self) -> String {
        match self {
            ParamType::String => "string".into(),
            ParamType::Integer { min, max } => format!("integer {min}..{max}"),
            ParamType::Boolean => "boolean".into(),
            ParamType::Enum(values) => values.join("|"),
            ParamType::Text { max_bytes } => format!("text of at most {max_bytes} bytes, in a POST body"),
        }
    }
}

/// One parameter of an endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    /// Its name, copied verbatim by callers.
    pub name: &'static str,
    /// Its type.
    pub ty: ParamType,
    /// True when the endpoint cannot answer without it.
    pub required: bool,
    /// The value used when it is absent, as text.
    pub default: Option<&'static str>,
    /// What it means, in a few words.
    pub doc: &'static str,
}

/// One endpoint of the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EndpointSpec {
    /// Its domain.
    pub domain: &'static str,
    /// Its name within the domain.
    pub name: &'static str,
    /// How it is called over HTTP.
    pub method: HttpMethod,
    /// A one-line summary.
    pub summary: &'static str,
    /// True when it returns content (source, SQL, values, text): answered only for the
    /// owning area.
    pub content: bool,
    /// Its parameters (`page` and `page_size` are implied on every endpoint).
    pub params: &'static [ParamSpec],
}

impl EndpointSpec {
    /// The REST path of the endpoint (`/api/v1/code/callers`; `meta` endpoints sit at the
    /// root of `/api/v1`).
    pub fn path(&self) -> String {
        if self.domain == "meta" {
            format!("/api/v1/{}", self.name)
        } else {
            format!("/api/v1/{}/{}", self.domain, self.name)
        }
    }

    /// The parameter called `name`.
    pub fn param(&self, name: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.name == name)
    }
}

const fn req(name: &'static str, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::String,
        required: true,
        default: None,
        doc,
    }
}

const fn opt(name: &'static str, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::String,
        required: false,
        default: None,
        doc,
    }
}

const fn int(name: &'static str, default: &'static str, min: i64, max: i64, doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::Integer { min, max },
        required: false,
        default: Some(default),
        doc,
    }
}

const fn choice(name: &'static str, values: &'static [&'static str], doc: &'static str) -> ParamSpec {
    ParamSpec {
        name,
        ty: ParamType::Enum(values),
        required: false,
        default: None,
        doc,
    }
}

/// The largest diff `recipes/change-impact` reads: 1 MiB, the server's default body limit.
pub const DIFF_MAX_BYTES: usize = 1 << 20;

const SCOPE: ParamSpec = opt("scope", "only this product (a search filter, not a permission)");
const LIMIT: ParamSpec = int("limit", "50", 1, 500, "at most this many results");
const FQN: ParamSpec = req(
    "fqn",
    "package.Type.method, optionally with (ParamType, …) to pick an overload; a simple name if unambiguous",
);
const TABLE: ParamSpec = req("table", "table name, optionally schema-qualified");
const VERB: &[&str] = &["GET", "POST", "PUT", "PATCH", "DELETE"];
const NODE_KINDS: &[&str] = &[
    "product",
    "service",
    "file",
    "package",
    "type",
    "method",
    "field",
    "endpoint",
    "entry-point",
    "http-call",
    "topic",
    "table",
    "column",
    "index",
    "trigger",
    "view",
    "routine",
    "config-key",
    "wiki-page",
    "jira-issue",
];

const fn get(
    domain: &'static str,
    name: &'static str,
    summary: &'static str,
    params: &'static [ParamSpec],
) -> EndpointSpec {
    EndpointSpec {
        domain,
        name,
        method: HttpMethod::Get,
        summary,
        content: false,
        params,
    }
}

const fn content(
    domain: &'static str,
    name: &'static str,
    summary: &'static str,
    params: &'static [ParamSpec],
) -> EndpointSpec {
    EndpointSpec {
        content: true,
        ..get(domain, name, summary, params)
    }
}

const fn recipe(name: &'static str, summary: &'static str, params: &'static [ParamSpec]) -> EndpointSpec {
    EndpointSpec {
        method: HttpMethod::Post,
        ..get("recipes", name, summary, params)
    }
}

static CATALOG: &[EndpointSpec] = &[
    get(
        "code",
        "search",
        "Find code and data by name: types, methods, endpoints, tables, keys (ranked: exact, prefix, contains)",
        &[
            req("q", "a name, fqn or prefix"),
            choice("kind", NODE_KINDS, "only nodes of this kind"),
            SCOPE,
            LIMIT,
        ],
    ),
    get("code", "method", "A method: signature, flags, callers and callees counts, endpoints it serves", &[FQN]),
    get("code", "type", "A type: kind, annotations, supertypes, subtypes, fields and methods", &[FQN]),
    get(
        "code",
        "callers",
        "Who calls a method, with call-site lines (calls through its interfaces included)",
        &[FQN, int("depth", "1", 1, 8, "levels of callers"), SCOPE],
    ),
    get(
        "code",
        "callees",
        "What a method calls, with call-site lines",
        &[FQN, int("depth", "1", 1, 8, "levels of callees"), SCOPE],
    ),
    get("code", "hierarchy", "Supertypes and subtypes of a type", &[FQN]),
    get("code", "implementations", "Implementations of an interface, or overrides of a method", &[FQN]),
    content("code", "source", "Source of a method or type, with file and lines", &[FQN]),
    get(
        "code",
        "file",
        "What a file declares",
        &[req("product", "the product"), req("path", "path relative to its repository")],
    ),
    get(
        "code",
        "endpoints",
        "HTTP endpoints and servlets, filtered by verb and path pattern",
        &[
            choice("verb", VERB, "only this HTTP verb"),
            opt("path", "a path or part of one; `*` matches one segment"),
            SCOPE,
            LIMIT,
        ],
    ),
    get(
        "code",
        "endpoint",
        "One endpoint: handler, service, outbound callers from other services",
        &[
            req("verb", "HTTP verb"),
            req("path", "path template as served, e.g. /api/orders/{id}"),
            SCOPE,
        ],
    ),
    get(
        "code",
        "entry-points",
        "Non-HTTP entry points: main, @Scheduled jobs, message listeners",
        &[opt("kind", "main, scheduled, kafka-listener, rabbit-listener, jms-listener"), SCOPE],
    ),
    get(
        "code",
        "http-calls",
        "Outbound HTTP calls with URL template, target service and the endpoint they reach",
        &[opt("target", "only calls to this service or host"), SCOPE, LIMIT],
    ),
    get("code", "topics", "Message topics and queues with their producers and consumers", &[SCOPE]),
    get("code", "topic", "One topic or queue: producers and consumers", &[req("name", "topic or queue name")]),
    get(
        "code",
        "path",
        "The shortest call path between two methods (calls, HTTP calls and endpoints)",
        &[
            req("from", "method fqn where the path starts"),
            req("to", "method fqn where it ends"),
            int("depth", "8", 1, 12, "longest path searched"),
        ],
    ),
    get("db", "tables", "Tables and views by name", &[opt("q", "a name or part of one"), SCOPE, LIMIT]),
    get("db", "table", "One table: columns, keys, indexes, triggers, views, code that uses it", &[req("name", "table name")]),
    get("db", "columns", "Columns of a table", &[TABLE]),
    get("db", "indexes", "Indexes of a table", &[TABLE]),
    get("db", "triggers", "Triggers on a table", &[TABLE]),
    get("db", "views", "Views that read a table", &[TABLE]),
    get("db", "routines", "Functions and procedures that touch a table", &[TABLE]),
    get(
        "db",
        "usages",
        "Code that reads or writes a table",
        &[TABLE, choice("mode", &["read", "write"], "only reads or only writes")],
    ),
    content("db", "ddl", "DDL of a table, view, trigger or routine", &[req("name", "object name")]),
    get("config", "keys", "Config keys by name", &[opt("q", "a key or part of one"), SCOPE, LIMIT]),
    get("config", "key", "One config key: files, profiles, code that reads it", &[req("key", "the flattened key")]),
    content("config", "value", "The value of a config key, per file and profile", &[req("key", "the flattened key")]),
    get("config", "files", "Config files per product", &[SCOPE]),
    get("wiki", "search", "Wiki pages by words of their title, headings and text", &[req("q", "words"), SCOPE, LIMIT]),
    content("wiki", "page", "A wiki page's text", &[req("id", "page path as listed by search")]),
    get(
        "wiki",
        "mentions",
        "Wiki pages and Jira issues that mention a product, type, method, table or endpoint",
        &[req("target", "a name, fqn, table or `VERB /path`")],
    ),
    get(
        "jira",
        "search",
        "Jira issues by words and fields",
        &[
            opt("q", "words"),
            opt("type", "issue type (Bug, Story, Incident…)"),
            opt("priority", "priority (Highest…Lowest)"),
            opt("status", "status (To Do, In Progress, Done…)"),
            SCOPE,
            LIMIT,
        ],
    ),
    content("jira", "issue", "One Jira issue with its summary and description", &[req("key", "issue key, e.g. PAY-301")]),
    recipe(
        "impact",
        "What breaks if this changes: callers by depth, endpoints and entry points reached, other services, topics, tables, incidents",
        &[
            req("target", "method or type fqn, simple name, or endpoint `VERB /path`"),
            int("depth", "3", 1, 8, "levels of callers followed"),
            ParamSpec {
                name: "include_tests",
                ty: ParamType::Boolean,
                required: false,
                default: Some("false"),
                doc: "list every test that reaches the change, not only their count",
            },
        ],
    ),
    recipe(
        "table-analysis",
        "A table across the SQL and code graphs: columns, keys, FKs in and out, indexes, triggers, views, routines, readers and writers",
        &[req("table", "table name")],
    ),
    recipe("status-snapshot", "What is indexed: per product area, runs, counts, domains, warnings", &[SCOPE]),
    recipe(
        "jira-history",
        "Tickets that mention a product or service, aggregated by type and priority, with a timeline",
        &[
            req("service", "product or service name"),
            opt("since", "first day, YYYY-MM-DD"),
            opt("until", "last day, YYYY-MM-DD"),
        ],
    ),
    recipe(
        "endpoint-trace",
        "Forward from an endpoint: methods reached, tables, outbound HTTP, topics, config keys",
        &[
            req("endpoint", "`VERB /path`"),
            int("depth", "4", 1, 8, "levels of callees followed"),
            SCOPE,
        ],
    ),
    recipe("service-map", "Services and their HTTP, messaging and shared-table dependencies, within and across products, with a diagram", &[SCOPE]),
    recipe(
        "change-impact",
        "What a change breaks: a unified diff (or a git range of an indexed repository) mapped to the methods, types, endpoints, tables, columns and config keys it touches, then one consolidated impact with the tests that reach it",
        &[
            ParamSpec {
                name: "diff",
                ty: ParamType::Text {
                    max_bytes: DIFF_MAX_BYTES,
                },
                required: false,
                default: None,
                doc: "a unified diff (`git diff` output) in a POST body; or give `repo` and `range` instead",
            },
            opt(
                "repo",
                "an indexed repository's name, `product/repo` when two share one (status-snapshot lists them): where the diff's files are; required with `range`",
            ),
            opt("range", "`BASE..HEAD` of `repo`'s git history, read on the server instead of a `diff`"),
            int("depth", "3", 1, 8, "levels of callers followed"),
        ],
    ),
    get("meta", "products", "Products, their areas and services", &[]),
];

/// Every endpoint, in catalog order.
pub fn catalog() -> &'static [EndpointSpec] {
    CATALOG
}

/// The endpoint `domain/name`, if the catalog has it.
pub fn endpoint_spec(domain: &str, name: &str) -> Option<&'static EndpointSpec> {
    CATALOG.iter().find(|e| e.domain == domain && e.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_names_are_unique_and_parameters_are_unique_per_endpoint() {
        let mut seen = std::collections::BTreeSet::new();
        for e in catalog() {
            assert!(seen.insert((e.domain, e.name)), "{}/{} twice", e.domain, e.name);
            assert!(DOMAINS.contains(&e.domain), "{} is a domain", e.domain);
            let mut names = std::collections::BTreeSet::new();
            for p in e.params {
                assert!(names.insert(p.name), "{}/{}: {} twice", e.domain, e.name, p.name);
                assert!(
                    !["page", "page_size"].contains(&p.name),
                    "page parameters are implied"
                );
                assert!(
                    !(p.required && p.default.is_some()),
                    "{}: required with a default",
                    p.name
                );
            }
        }
    }
}
