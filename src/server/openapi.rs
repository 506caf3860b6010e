//! The OpenAPI document, generated from the endpoint catalog, and the discover catalog
//! rendered from it.
//!
//! The catalog in `semgraph-queries` is the contract; this module spells it as OpenAPI 3.1
//! with utoipa's builder types (every route, its parameters with types, defaults and
//! whether they are required, JSON request bodies for recipes), adds the server's own
//! routes (discover, the document itself, health, admin), and renders the document as the
//! compact markdown catalog that `/api/v1/discover` serves. Discover reads the OpenAPI
//! document, not the catalog, so the two can never disagree.

use std::fmt::Write as _;

use semgraph_queries::{catalog, EndpointSpec, HttpMethod, ParamSpec, ParamType, DEFAULT_PAGE_SIZE, DOMAINS};
use serde_json::{json, Value};
use utoipa::openapi::path::{Operation, OperationBuilder, ParameterBuilder, ParameterIn, PathItem};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{AdditionalProperties, ObjectBuilder, Schema, SchemaType, Type};
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityRequirement, SecurityScheme};
use utoipa::openapi::tag::TagBuilder;
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, PathsBuilder, RefOr, Required,
    ResponseBuilder, ResponsesBuilder,
};

use super::limits::MAX_PARAM_CHARS;
use crate::answer::{JSON, MARKDOWN, MAX_PAGE_SIZE, MIN_PAGE_SIZE};

/// The tag of the server's own routes (discover, the OpenAPI document, health).
const META: &str = "meta";
/// The tag of the admin routes.
const ADMIN: &str = "admin";

/// Path of the discover catalog.
pub(crate) const DISCOVER_PATH: &str = "/api/v1/discover";
/// Path of the OpenAPI document.
pub(crate) const OPENAPI_PATH: &str = "/api/v1/openapi.json";
/// Path of the health check.
pub(crate) const HEALTH_PATH: &str = "/healthz";
/// Path that starts an index job.
pub(crate) const ADMIN_INDEX_PATH: &str = "/api/v1/admin/index";
/// Path that lists index jobs.
pub(crate) const ADMIN_JOBS_PATH: &str = "/api/v1/admin/jobs";

/// A character the server does not trim away: a required text parameter needs one (the
/// server trims values with Rust's `char::is_whitespace`, and this class is exactly the
/// complement of that set, the same in every regex dialect).
const NOT_BLANK: &str =
    "[^\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// Whitespace as the server trims it (Rust's `char::is_whitespace`).
const BLANK: &str =
    "[\\t\\n\\u000B\\f\\r \\u0085\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]";

/// Text parameters whose values the queries check beyond the catalog's types, and the
/// pattern of what they accept (after trimming; blank is absent): a day, `YYYY-MM-DD`.
const CHECKED_TEXT: &[(&str, &str, &str)] = &[
    ("jira-history", "since", "[0-9]{4}-[0-9]{2}-[0-9]{2}"),
    ("jira-history", "until", "[0-9]{4}-[0-9]{2}-[0-9]{2}"),
];

fn checked_text(spec: &EndpointSpec, name: &str) -> Option<String> {
    CHECKED_TEXT
        .iter()
        .find(|(endpoint, param, _)| *endpoint == spec.name && *param == name)
        .map(|(_, _, pattern)| format!("^{BLANK}*({pattern})?{BLANK}*$"))
}

fn schema_of(spec: &EndpointSpec, p: &ParamSpec, doc: Option<&str>) -> Schema {
    let (ty, default, required) = (&p.ty, p.default, p.required);
    let base = match ty {
        ParamType::String if required => ObjectBuilder::new()
            .schema_type(Type::String)
            .min_length(Some(1))
            .max_length(Some(MAX_PARAM_CHARS))
            .pattern(Some(NOT_BLANK)),
        ParamType::String => ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(MAX_PARAM_CHARS))
            .pattern(checked_text(spec, p.name)),
        ParamType::Integer { min, max } => ObjectBuilder::new()
            .schema_type(Type::Integer)
            .minimum(Some(*min))
            .maximum(Some(*max)),
        ParamType::Boolean => ObjectBuilder::new().schema_type(Type::Boolean),
        ParamType::Enum(values) => ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(values.iter().copied())),
        ParamType::Text { max_bytes } => ObjectBuilder::new()
            .schema_type(Type::String)
            .max_length(Some(*max_bytes)),
    };
    let default = default.map(|d| match ty {
        ParamType::Integer { .. } => d.parse::<i64>().map_or_else(|_| json!(d), |n| json!(n)),
        ParamType::Boolean => d.parse::<bool>().map_or_else(|_| json!(d), |b| json!(b)),
        _ => json!(d),
    });
    Schema::Object(base.default(default).description(doc).build())
}

/// The largest `page` the document admits (the server reads any whole number, and a page
/// beyond the last is a 404).
const MAX_PAGE: i64 = 1_000_000_000;

fn paging_params() -> [(&'static str, Schema, &'static str); 2] {
    let page = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(1))
        .maximum(Some(MAX_PAGE))
        .default(Some(json!(1)))
        .build();
    let page_size = ObjectBuilder::new()
        .schema_type(Type::Integer)
        .minimum(Some(MIN_PAGE_SIZE as i64))
        .maximum(Some(MAX_PAGE_SIZE as i64))
        .default(Some(json!(DEFAULT_PAGE_SIZE)))
        .build();
    [
        ("page", Schema::Object(page), "which page of the answer (1-based)"),
        ("page_size", Schema::Object(page_size), "page size in characters"),
    ]
}

fn query_param(name: &str, schema: Schema, required: bool, doc: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(if required { Required::True } else { Required::False })
        .description(Some(doc))
        .schema(Some(schema))
        .build()
}

fn query_params(spec: &EndpointSpec) -> Vec<utoipa::openapi::path::Parameter> {
    // A document parameter (a diff) travels in a body only.
    let mut out: Vec<_> = spec
        .params
        .iter()
        .filter(|p| !matches!(p.ty, ParamType::Text { .. }))
        .map(|p| query_param(p.name, schema_of(spec, p, None), p.required, p.doc))
        .collect();
    out.extend(
        paging_params()
            .into_iter()
            .map(|(name, schema, doc)| query_param(name, schema, false, doc)),
    );
    out
}

fn body_schema(spec: &EndpointSpec) -> Schema {
    let mut object = ObjectBuilder::new().schema_type(Type::Object);
    for p in spec.params {
        object = object.property(p.name, schema_of(spec, p, Some(p.doc)));
        if p.required {
            object = object.required(p.name);
        }
    }
    for (name, schema, _) in paging_params() {
        object = object.property(name, schema);
    }
    // Parameters are strict: any other member is a 422.
    Schema::Object(
        object
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .build(),
    )
}

/// The statuses an operation answers besides those every operation may answer (200, 401,
/// 404, 413, 414, 422, 503).
#[derive(Clone, Copy, Debug, Default)]
struct Statuses {
    /// 403: content outside the caller's area, or admin without full access.
    forbidden: bool,
    /// 429: a recipe finds every recipe slot taken.
    busy: bool,
    /// 409: an index job is already running.
    conflict: bool,
}

fn answer_responses(statuses: Statuses) -> utoipa::openapi::Responses {
    let page = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property("title", ObjectBuilder::new().schema_type(Type::String))
        .property("page", ObjectBuilder::new().schema_type(Type::Integer))
        .property("pages", ObjectBuilder::new().schema_type(Type::Integer))
        .property("page_size", ObjectBuilder::new().schema_type(Type::Integer))
        .property("markdown", ObjectBuilder::new().schema_type(Type::String))
        .property(
            "result",
            ObjectBuilder::new()
                .schema_type(SchemaType::AnyValue)
                .description(Some("the whole structured result, on page 1 only")),
        )
        .required("title")
        .required("page")
        .required("pages")
        .required("page_size")
        .required("markdown")
        .required("result")
        .build();
    let markdown = ContentBuilder::new()
        .schema(Some(ObjectBuilder::new().schema_type(Type::String).build()))
        .build();
    let ok = ResponseBuilder::new()
        .description("One page of the answer; its footer says how many pages there are")
        .content(MARKDOWN, markdown.clone())
        .content(JSON, ContentBuilder::new().schema(Some(page)).build())
        .build();
    // `Accept: application/json` gets the error as `{"error": {status, code, message}}`.
    let error_object = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(
            "error",
            ObjectBuilder::new()
                .schema_type(Type::Object)
                .property("status", ObjectBuilder::new().schema_type(Type::Integer))
                .property("code", ObjectBuilder::new().schema_type(Type::String))
                .property(
                    "message",
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .description(Some("the markdown body")),
                )
                .required("status")
                .required("code")
                .required("message"),
        )
        .required("error")
        .build();
    let error_json = ContentBuilder::new().schema(Some(error_object)).build();
    let error = |what: &str| {
        ResponseBuilder::new()
            .description(what)
            .content(MARKDOWN, markdown.clone())
            .content(JSON, error_json.clone())
            .build()
    };
    let mut responses = ResponsesBuilder::new()
        .response("200", ok)
        .response("401", error("Missing or unknown token"))
        .response(
            "404",
            error("Nothing matches (the body lists the nearest names), or a page beyond the last"),
        )
        .response(
            "413",
            error("The request body is larger than the server's `max_body_bytes`"),
        )
        .response(
            "414",
            // Written by the HTTP layer before any handler, without a body.
            ResponseBuilder::new()
                .description("The request line is longer than the server reads: shorten the parameters")
                .build(),
        )
        .response(
            "422",
            error("A wrong, missing or ill-typed parameter: the body names the fix"),
        )
        .response(
            "503",
            error("The request took longer than the server's `request_timeout_secs`: the body says what narrows it"),
        );
    if statuses.forbidden {
        responses = responses.response(
            "403",
            error("Content outside the caller's area (a permission boundary; structure still answers), or admin without full access"),
        );
    }
    if statuses.busy {
        let retry_after = utoipa::openapi::HeaderBuilder::new()
            .schema(Some(ObjectBuilder::new().schema_type(Type::Integer)))
            .description(Some("seconds to wait before asking again"))
            .build();
        let mut busy = error(
            "Every recipe slot is taken and the wait for one ran out: retry after `Retry-After` seconds",
        );
        busy.headers.insert("Retry-After".into(), RefOr::T(retry_after));
        responses = responses.response("429", busy);
    }
    if statuses.conflict {
        responses = responses.response(
            "409",
            error("An index job is already running: follow it at /api/v1/admin/jobs"),
        );
    }
    responses.build()
}

/// `responses` with its 200 answered as 202 (a job started, not a question answered).
fn accepted(mut responses: utoipa::openapi::Responses) -> utoipa::openapi::Responses {
    if let Some(ok) = responses.responses.remove("200") {
        responses.responses.insert("202".into(), ok);
    }
    responses
}

fn operation(spec: &EndpointSpec, method: HttpMethod) -> Operation {
    let id = format!("{}_{}", spec.domain, spec.name.replace('-', "_"));
    let mut op = OperationBuilder::new()
        .tag(spec.domain)
        .summary(Some(spec.summary))
        .responses(answer_responses(Statuses {
            forbidden: spec.content,
            busy: spec.domain == "recipes",
            conflict: false,
        }));
    match method {
        HttpMethod::Get => {
            let id = if spec.method == HttpMethod::Post {
                format!("{id}_get")
            } else {
                id
            };
            op = op.operation_id(Some(id)).parameters(Some(query_params(spec)));
        }
        HttpMethod::Post => {
            let body = RequestBodyBuilder::new()
                .content(
                    JSON,
                    ContentBuilder::new().schema(Some(body_schema(spec))).build(),
                )
                // Required parameters come in the body (or the query string, which the
                // document does not spell for POST).
                .required(Some(if spec.params.iter().any(|p| p.required) {
                    Required::True
                } else {
                    Required::False
                }))
                .build();
            op = op.operation_id(Some(id)).request_body(Some(body));
        }
    }
    if spec.content {
        op = op.description(Some(
            "Returns content: answered only for callers of the owning product's area (403 otherwise).",
        ));
    }
    op.build()
}

fn plain_get(
    tag: &str,
    id: &str,
    summary: &str,
    params: Vec<utoipa::openapi::path::Parameter>,
    statuses: Statuses,
) -> Operation {
    OperationBuilder::new()
        .tag(tag)
        .operation_id(Some(id))
        .summary(Some(summary))
        .parameters(Some(params))
        .responses(answer_responses(statuses))
        .build()
}

/// Builds the OpenAPI document of the whole API from the catalog.
pub(crate) fn document() -> OpenApi {
    let mut paths = PathsBuilder::new();
    for spec in catalog() {
        let item = match spec.method {
            HttpMethod::Get => {
                PathItem::new(utoipa::openapi::HttpMethod::Get, operation(spec, HttpMethod::Get))
            }
            HttpMethod::Post => {
                let mut item = PathItem::new(
                    utoipa::openapi::HttpMethod::Post,
                    operation(spec, HttpMethod::Post),
                );
                item.get = Some(operation(spec, HttpMethod::Get));
                item
            }
        };
        paths = paths.path(spec.path(), item);
    }
    let domain_param = query_param(
        "domain",
        Schema::Object(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(DOMAINS.iter().copied().chain([ADMIN])))
                .build(),
        ),
        false,
        "only this domain",
    );
    let mut discover_params = vec![domain_param];
    discover_params.extend(
        paging_params()
            .into_iter()
            .map(|(name, schema, doc)| query_param(name, schema, false, doc)),
    );
    paths = paths.path(
        DISCOVER_PATH,
        PathItem::new(
            utoipa::openapi::HttpMethod::Get,
            plain_get(
                META,
                "discover",
                "This catalog: every endpoint, its parameters, types and defaults. Call it first",
                discover_params,
                Statuses::default(),
            ),
        ),
    );
    let mut openapi_op = plain_get(
        META,
        "openapi",
        "The OpenAPI 3.1 document of this API",
        Vec::new(),
        Statuses::default(),
    );
    // The document itself, not a page of an answer.
    openapi_op.responses.responses.insert(
        "200".into(),
        RefOr::T(
            ResponseBuilder::new()
                .description("This OpenAPI document")
                .content(
                    JSON,
                    ContentBuilder::new()
                        .schema(Some(ObjectBuilder::new().schema_type(Type::Object).build()))
                        .build(),
                )
                .build(),
        ),
    );
    paths = paths.path(
        OPENAPI_PATH,
        PathItem::new(utoipa::openapi::HttpMethod::Get, openapi_op),
    );
    paths = paths.path(
        HEALTH_PATH,
        PathItem::new(
            utoipa::openapi::HttpMethod::Get,
            OperationBuilder::new()
                .tag(META)
                .operation_id(Some("healthz"))
                .summary(Some("Liveness: `ok` and the served generation (no token needed)"))
                .security(SecurityRequirement::default())
                .responses(
                    ResponsesBuilder::new()
                        .response(
                            "200",
                            ResponseBuilder::new()
                                .description("`ok generation <n>`")
                                .content(
                                    "text/plain; charset=utf-8",
                                    ContentBuilder::new()
                                        .schema(Some(ObjectBuilder::new().schema_type(Type::String).build()))
                                        .build(),
                                )
                                .build(),
                        )
                        .build(),
                )
                .build(),
        ),
    );
    let product_schema = ObjectBuilder::new()
        .schema_type(Type::Object)
        .property(
            "product",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(MAX_PARAM_CHARS))
                .description(Some(
                    "the product to re-index; every product of the config when absent",
                )),
        )
        .additional_properties(Some(AdditionalProperties::FreeForm(false)))
        .build();
    paths = paths.path(
        ADMIN_INDEX_PATH,
        PathItem::new(
            utoipa::openapi::HttpMethod::Post,
            OperationBuilder::new()
                .tag(ADMIN)
                .operation_id(Some("admin_index"))
                .summary(Some(
                    "Re-index one product (or all) in the server while it keeps answering; full access only; 409 while a job runs",
                ))
                .request_body(Some(
                    RequestBodyBuilder::new()
                        .content(JSON, ContentBuilder::new().schema(Some(product_schema)).build())
                        .build(),
                ))
                .responses(accepted(answer_responses(Statuses {
                    forbidden: true,
                    conflict: true,
                    ..Statuses::default()
                })))
                .build(),
        ),
    );
    paths = paths.path(
        ADMIN_JOBS_PATH,
        PathItem::new(
            utoipa::openapi::HttpMethod::Get,
            plain_get(
                ADMIN,
                "admin_jobs",
                "Index jobs of this server: running, done and failed, with per-product results; full access only",
                paging_params()
                    .into_iter()
                    .map(|(name, schema, doc)| query_param(name, schema, false, doc))
                    .collect(),
                Statuses {
                    forbidden: true,
                    ..Statuses::default()
                },
            ),
        ),
    );
    paths = paths.path(
        super::backup::ADMIN_BACKUP_PATH,
        PathItem::new(
            utoipa::openapi::HttpMethod::Post,
            OperationBuilder::new()
                .tag(ADMIN)
                .operation_id(Some("admin_backup"))
                .summary(Some(
                    "Write a checkpoint of the store into <store>.backups/ and answer its path and generation; no parameters; full access only",
                ))
                .responses(answer_responses(Statuses {
                    forbidden: true,
                    ..Statuses::default()
                }))
                .build(),
        ),
    );
    let tags = DOMAINS
        .iter()
        .chain([&ADMIN])
        .map(|d| TagBuilder::new().name(*d).build())
        .collect::<Vec<_>>();
    let components = ComponentsBuilder::new()
        .security_scheme("bearer", SecurityScheme::Http(Http::new(HttpAuthScheme::Bearer)))
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("semgraph")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "A graph of a company's software answering whole questions as markdown. \
                     Markdown by default; `Accept: application/json` for JSON. When the server has \
                     tokens configured, send `Authorization: Bearer <token>`.",
                ))
                .build(),
        )
        .paths(paths.build())
        .tags(Some(tags))
        .components(Some(components))
        .security(Some([SecurityRequirement::new("bearer", Vec::<String>::new())]))
        .build()
}

/// One route of the discover catalog, read from the OpenAPI document.
#[derive(Clone, Debug, serde::Serialize)]
pub(crate) struct Route {
    /// The tag (domain) it is listed under.
    pub(crate) domain: String,
    /// Its methods (`POST` first for recipes, which also answer `GET`).
    pub(crate) methods: Vec<&'static str>,
    /// Its path.
    pub(crate) path: String,
    /// One-line summary.
    pub(crate) summary: String,
    /// Required parameters: `name` and type.
    pub(crate) required: Vec<(String, String)>,
    /// Optional parameters: `name`, type and default.
    pub(crate) optional: Vec<(String, String, Option<String>)>,
}

fn describe_schema(schema: Option<&RefOr<Schema>>) -> (String, Option<String>) {
    let Some(RefOr::T(Schema::Object(o))) = schema else {
        return ("any".into(), None);
    };
    let default = o.default.as_ref().map(|d| match d {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    if let Some(values) = &o.enum_values {
        let words: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
            .collect();
        return (words.join("|"), default);
    }
    let number = |n: &utoipa::Number| match n {
        utoipa::Number::Int(i) => i.to_string(),
        utoipa::Number::UInt(u) => u.to_string(),
        utoipa::Number::Float(f) => f.to_string(),
    };
    let ty = match &o.schema_type {
        SchemaType::Type(Type::Integer) => match (&o.minimum, &o.maximum) {
            (Some(min), Some(max)) => format!("integer {}..{}", number(min), number(max)),
            (Some(min), None) => format!("integer ≥{}", number(min)),
            _ => "integer".into(),
        },
        SchemaType::Type(Type::String) => "string".into(),
        SchemaType::Type(Type::Boolean) => "boolean".into(),
        SchemaType::Type(Type::Number) => "number".into(),
        SchemaType::Type(Type::Object) => "object".into(),
        _ => "any".into(),
    };
    (ty, default)
}

fn is_paging(name: &str) -> bool {
    matches!(name, "page" | "page_size")
}

fn route_params(route: &mut Route, op: &Operation) {
    if let Some(RefOr::T(body)) = &op.request_body {
        if let Some(RefOr::T(content)) = body.content.get(JSON) {
            if let Some(RefOr::T(Schema::Object(object))) = &content.schema {
                for (name, schema) in &object.properties {
                    if is_paging(name) {
                        continue;
                    }
                    let (ty, default) = describe_schema(Some(schema));
                    if object.required.contains(name) {
                        route.required.push((name.clone(), ty));
                    } else {
                        route.optional.push((name.clone(), ty, default));
                    }
                }
                return;
            }
        }
    }
    for p in op.parameters.iter().flatten() {
        let RefOr::T(p) = p else { continue };
        if is_paging(&p.name) {
            continue;
        }
        let (ty, default) = describe_schema(p.schema.as_ref());
        if matches!(p.required, Required::True) {
            route.required.push((p.name.clone(), ty));
        } else {
            route.optional.push((p.name.clone(), ty, default));
        }
    }
}

/// The routes of an OpenAPI document, in document order, grouped later by domain.
pub(crate) fn routes(doc: &OpenApi) -> Vec<Route> {
    let mut out = Vec::new();
    for (path, item) in &doc.paths.paths {
        let mut ops: Vec<(&'static str, &Operation)> = Vec::new();
        if let Some(op) = &item.post {
            ops.push(("POST", op));
        }
        if let Some(op) = &item.get {
            ops.push(("GET", op));
        }
        let Some((_, main)) = ops.first() else { continue };
        let mut route = Route {
            domain: main
                .tags
                .as_ref()
                .and_then(|t| t.first().cloned())
                .unwrap_or_else(|| META.into()),
            methods: ops.iter().map(|(m, _)| *m).collect(),
            path: path.clone(),
            summary: main.summary.clone().unwrap_or_default(),
            required: Vec::new(),
            optional: Vec::new(),
        };
        route_params(&mut route, main);
        out.push(route);
    }
    out
}

/// The domains (tags) of an OpenAPI document, in its order.
pub(crate) fn domains(doc: &OpenApi) -> Vec<String> {
    doc.tags.iter().flatten().map(|t| t.name.clone()).collect()
}

/// Renders the discover catalog of `doc` (one domain when `only` is given) as markdown.
pub(crate) fn render_discover(doc: &OpenApi, only: Option<&str>) -> (String, Value) {
    let routes = routes(doc);
    let mut out = String::new();
    let title = match only {
        Some(d) => format!("semgraph API: {d}"),
        None => "semgraph API".to_string(),
    };
    let _ = writeln!(out, "# {title}\n");
    let _ = writeln!(
        out,
        "Copy endpoint and parameter names verbatim. GET takes query parameters; POST takes a JSON \
         object (recipes answer both). Every endpoint also takes `page` (integer ≥1, default 1) and \
         `page_size` (integer {MIN_PAGE_SIZE}..{MAX_PAGE_SIZE}, default {DEFAULT_PAGE_SIZE}): read \
         every page: FETCH EVERY PAGE before concluding. Markdown by default; `Accept: \
         application/json` for JSON. Parameters: `name` type (= default).\n\n\
         `scope` is a product filter: pass it only when the user named a product. A domain or \
         product that is not indexed is said so: say so too, never fabricate. A 403 is a \
         permission boundary (content of another area): say so and answer with structure, \
         which every caller may read."
    );
    let mut listed = Vec::new();
    for domain in domains(doc) {
        if only.is_some_and(|d| d != domain) {
            continue;
        }
        let mine: Vec<&Route> = routes.iter().filter(|r| r.domain == domain).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n## {domain}\n");
        for r in mine {
            let _ = writeln!(out, "- `{} {}` — {}", r.methods.join("|"), r.path, r.summary);
            let mut parts = Vec::new();
            if !r.required.is_empty() {
                let list: Vec<String> = r.required.iter().map(|(n, t)| format!("`{n}` {t}")).collect();
                parts.push(format!("required: {}", list.join(", ")));
            }
            if !r.optional.is_empty() {
                let list: Vec<String> = r
                    .optional
                    .iter()
                    .map(|(n, t, d)| match d {
                        Some(d) => format!("`{n}` {t} = {d}"),
                        None => format!("`{n}` {t}"),
                    })
                    .collect();
                parts.push(format!("optional: {}", list.join(", ")));
            }
            if !parts.is_empty() {
                let _ = writeln!(out, "  {}", parts.join("; "));
            }
            listed.push(r.clone());
        }
    }
    (out, json!({ "routes": listed }))
}
