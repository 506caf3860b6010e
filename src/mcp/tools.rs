//! The six tools, read from the OpenAPI document that discover renders.
//!
//! Nothing here names an endpoint: each domain tool's `endpoint` enum is the list of
//! routes the OpenAPI document tags with the tool's domains, in document order, so a new
//! catalog endpoint becomes a new enum value without touching this module. The tool
//! descriptions and the server instructions carry the playbook an agent needs on every
//! turn; they are kept short because a client pays for the tool list on every turn.

use std::collections::BTreeMap;
use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

/// The server instructions, sent on initialize.
pub(crate) const INSTRUCTIONS: &str = "\
semgraph answers questions about this company's software (code, SQL schemas, configuration, \
wiki pages, Jira issues) as markdown documents. Rules:
1. Call `discover` first, no exceptions, and copy endpoint and parameter names verbatim into \
`endpoint` and `params`; never guess one (a wrong name is refused with the nearest right one).
2. Pass `scope` (a product filter) only if the user named a product.
3. FETCH EVERY PAGE before concluding: while a result ends with `Page K of N` and K < N, call \
again with `page` = K+1.
4. For a whole question use `execute` (recipes): `impact` answers \"what breaks if X changes\" in \
one call.
5. If a domain or product is not indexed, the answer says so: say so too, never fabricate.
6. A 403 is a permission boundary (content of another area): say so plainly and answer with \
structure, which every caller may read.
Tools: `discover`; `code`; `db`; `config`; `wiki` (wiki and Jira: `jira/search`, \
`jira/issue`); `execute` (recipes).";

/// What every domain tool's description ends with: the rules a model needs on every call.
/// The rest of the playbook (`scope` only when named, never fabricate, a 403 is a
/// boundary) is in the server instructions and discover, which a client reads once; the
/// tool list is paid for on every turn, so it stays under 4,000 characters.
const PLAYBOOK: &str = "Call `discover` first; copy names verbatim. FETCH EVERY PAGE: while a result \
ends `Page K of N`, K < N, call again with `page` = K+1.";

/// A tool over one or more API domains: its name, the OpenAPI tags it serves, and the
/// prefix its endpoint names carry for each tag.
struct DomainTool {
    name: &'static str,
    tags: &'static [(&'static str, &'static str)],
    what: &'static str,
}

const DOMAIN_TOOLS: &[DomainTool] = &[
    DomainTool {
        name: "code",
        tags: &[("code", "")],
        what: "Code: types, methods, callers, callees, endpoints, HTTP calls, topics, source.",
    },
    DomainTool {
        name: "db",
        tags: &[("db", "")],
        what: "SQL schemas: tables, columns, indexes, views, triggers, code using a table, DDL.",
    },
    DomainTool {
        name: "config",
        tags: &[("config", "")],
        what: "Configuration: keys, values, files.",
    },
    DomainTool {
        name: "wiki",
        tags: &[("wiki", ""), ("jira", "jira/")],
        what: "Wiki pages and Jira issues (`jira/search`, `jira/issue`).",
    },
    DomainTool {
        name: "execute",
        tags: &[("recipes", "")],
        what: "Recipes: a whole question in one call (`impact`: what breaks if this changes).",
    },
];

/// The name of the discover tool.
pub(crate) const DISCOVER: &str = "discover";

/// How a route is called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verb {
    /// Query parameters.
    Get,
    /// A JSON object body.
    Post,
}

/// One API route behind a tool's endpoint name.
#[derive(Clone, Debug)]
pub(crate) struct Route {
    pub(crate) verb: Verb,
    pub(crate) path: String,
    /// Parameters a GET route does not take in its query string (a document such as a
    /// diff): the call is then a POST carrying them in its JSON body.
    pub(crate) body_only: Vec<String>,
}

/// The parameters of a path's POST body that its GET operation does not list.
fn body_only(item: &Value) -> Vec<String> {
    let (Some(get), Some(post)) = (item.get("get"), item.get("post")) else {
        return Vec::new();
    };
    let in_query: Vec<&str> = get["parameters"]
        .as_array()
        .map(|ps| ps.iter().filter_map(|p| p["name"].as_str()).collect())
        .unwrap_or_default();
    post["requestBody"]["content"]["application/json"]["schema"]["properties"]
        .as_object()
        .map(|props| {
            props
                .keys()
                .filter(|k| !in_query.contains(&k.as_str()))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

/// The tools and the routes behind them.
#[derive(Debug)]
pub(crate) struct Toolset {
    /// What `tools/list` answers, in order: discover first.
    pub(crate) tools: Vec<Tool>,
    /// tool → endpoint name → route.
    pub(crate) routes: BTreeMap<String, BTreeMap<String, Route>>,
    /// The discover route.
    pub(crate) discover: Route,
}

impl Toolset {
    /// Reads the tools from the OpenAPI document (as JSON text).
    pub(crate) fn from_openapi(openapi_json: &str) -> Toolset {
        let doc: Value = serde_json::from_str(openapi_json).unwrap_or(Value::Null);
        let empty = serde_json::Map::new();
        let paths = doc["paths"].as_object().unwrap_or(&empty);
        let mut routes: BTreeMap<String, BTreeMap<String, Route>> = BTreeMap::new();
        let mut discover = Route {
            verb: Verb::Get,
            path: "/api/v1/discover".into(),
            body_only: Vec::new(),
        };
        let mut domains: Vec<String> = Vec::new();
        for (path, item) in paths {
            // GET where a route answers it (recipes answer both): a tool's parameters are
            // text, which a query string carries as is, while a JSON body is typed.
            let (verb, op) = match (item.get("get"), item.get("post")) {
                (Some(op), _) => (Verb::Get, op),
                (None, Some(op)) => (Verb::Post, op),
                (None, None) => continue,
            };
            if op["operationId"] == "discover" {
                discover = Route {
                    verb,
                    path: path.clone(),
                    body_only: Vec::new(),
                };
                domains = discover_domains(op);
                continue;
            }
            let Some(tag) = op["tags"][0].as_str() else {
                continue;
            };
            let body_only = body_only(item);
            for tool in DOMAIN_TOOLS {
                for (t, prefix) in tool.tags {
                    if *t != tag {
                        continue;
                    }
                    let Some(name) = path.strip_prefix(&format!("/api/v1/{tag}/")) else {
                        continue;
                    };
                    routes.entry(tool.name.to_string()).or_default().insert(
                        format!("{prefix}{name}"),
                        Route {
                            verb,
                            path: path.clone(),
                            body_only: body_only.clone(),
                        },
                    );
                }
            }
        }
        let mut tools = vec![discover_tool(&domains)];
        for tool in DOMAIN_TOOLS {
            let names: Vec<&str> = routes
                .get(tool.name)
                .map(|r| r.keys().map(String::as_str).collect())
                .unwrap_or_default();
            tools.push(domain_tool(tool, &names));
        }
        Toolset {
            tools,
            routes,
            discover,
        }
    }

    /// The tool called `name`.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }
}

/// The values of the discover operation's `domain` parameter.
fn discover_domains(op: &Value) -> Vec<String> {
    op["parameters"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == "domain")
        .and_then(|p| p["schema"]["enum"].as_array())
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn page_property() -> Value {
    json!({ "type": "integer", "minimum": 1 })
}

fn read_only() -> ToolAnnotations {
    let mut a = ToolAnnotations::default();
    a.read_only_hint = Some(true);
    a.open_world_hint = Some(false);
    a
}

fn discover_tool(domains: &[String]) -> Tool {
    let mut domain = json!({
        "type": "string",
        "description": "Only this domain (`wiki` tool: wiki, jira; `execute`: recipes)."
    });
    if !domains.is_empty() {
        domain["enum"] = json!(domains);
    }
    let input = json!({
        "type": "object",
        "properties": { "domain": domain, "page": page_property() }
    });
    Tool::new(
        DISCOVER,
        "Every endpoint with its parameters, types and defaults. Call it FIRST, and copy endpoint \
         and parameter names verbatim into the other tools.",
        schema(input),
    )
    .annotate(read_only())
}

fn domain_tool(tool: &DomainTool, endpoints: &[&str]) -> Tool {
    let input = json!({
        "type": "object",
        "properties": {
            "endpoint": { "type": "string", "enum": endpoints },
            "params": {
                "type": "object",
                "description": "Parameters, named as discover lists them."
            },
            "page": page_property()
        },
        "required": ["endpoint"]
    });
    Tool::new(tool.name, format!("{} {PLAYBOOK}", tool.what), schema(input)).annotate(read_only())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{"paths": {
        "/api/v1/code/callers": {"get": {"tags": ["code"], "operationId": "code_callers"}},
        "/api/v1/code/brand-new": {"get": {"tags": ["code"], "operationId": "code_brand_new"}},
        "/api/v1/jira/issue": {"get": {"tags": ["jira"]}},
        "/api/v1/wiki/page": {"get": {"tags": ["wiki"]}},
        "/api/v1/recipes/impact": {"post": {"tags": ["recipes"]}, "get": {"tags": ["recipes"]}},
        "/api/v1/recipes/only-post": {"post": {"tags": ["recipes"]}},
        "/api/v1/products": {"get": {"tags": ["meta"]}},
        "/api/v1/discover": {"get": {"tags": ["meta"], "operationId": "discover",
            "parameters": [{"name": "domain", "schema": {"type": "string", "enum": ["code", "jira"]}}]}}
    }}"#;

    #[test]
    fn endpoints_come_from_the_document_and_jira_sits_under_wiki() {
        let set = Toolset::from_openapi(DOC);
        let names: Vec<&str> = set.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["discover", "code", "db", "config", "wiki", "execute"]);
        let code: Vec<&String> = set.routes["code"].keys().collect();
        assert_eq!(code, ["brand-new", "callers"], "a new route is a new endpoint");
        assert_eq!(set.routes["wiki"]["jira/issue"].path, "/api/v1/jira/issue");
        assert_eq!(set.routes["wiki"]["page"].path, "/api/v1/wiki/page");
        // GET wherever a route answers it: a tool's values are text, a JSON body is typed.
        assert_eq!(set.routes["execute"]["impact"].verb, Verb::Get);
        assert_eq!(set.routes["execute"]["only-post"].verb, Verb::Post);
        assert_eq!(set.routes["code"]["callers"].verb, Verb::Get);
        assert!(!set.routes.values().any(|r| r.contains_key("products")));
        let enum_of =
            |tool: &str| set.tool(tool).expect("tool").input_schema["properties"]["endpoint"]["enum"].clone();
        assert_eq!(enum_of("code"), json!(["brand-new", "callers"]));
        let discover = set.tool("discover").expect("discover");
        assert_eq!(
            discover.input_schema["properties"]["domain"]["enum"],
            json!(["code", "jira"])
        );
    }
}
