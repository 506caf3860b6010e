//! A synthetic Java company written to disk: one Spring Boot repository per product,
//! deterministic from a seed, for end-to-end indexing benchmarks and the tests that check
//! the indexer against what was planted.
//!
//! Each product is a Maven module whose code is spread over feature packages (an entity,
//! its repository, a service interface and its implementation, a controller, DTO records,
//! and now and then a JDBC repository, an event publisher, validators, a scheduled job and
//! tests) plus a `common` package of static helpers that everything calls (the hubs of a
//! real call graph). Products talk to each other the way Spring services do: REST clients
//! (`RestTemplate` or `WebClient`) whose base URL is a `@Value("${clients.<other>.url}")`
//! and whose paths are literals naming another product's endpoints, and Kafka topics that
//! one product produces and others consume. Flyway's `V1__init.sql` creates every table the
//! code touches, and `application.yml` holds the configuration the code reads.
//!
//! The generator first plans every product (its name, routes, features and topics: what
//! other products may refer to), then wires the products together, then writes one product
//! at a time: memory follows one product, never the company. The same spec writes the
//! same bytes. The report says what was planted — endpoints, cross-product HTTP calls,
//! topics, tables with their readers and writers, scheduled jobs and, on request, every
//! call between the product's own methods — so a test can hold the indexer to it.

use std::collections::HashSet;
use std::io;
use std::path::{Path, PathBuf};

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What to generate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JavaCorpusSpec {
    /// Number of products (one repository each).
    pub products: u32,
    /// Lines of Java to write across all products (main and test sources); each product
    /// gets an equal share and stops at the first feature that reaches it.
    pub lines: u64,
    /// The seed: the same spec writes the same bytes.
    pub seed: u64,
    /// Keep every planted call between the product's own methods in the report
    /// ([`ProductTruth::call_list`]); without it only their number is kept.
    pub record_calls: bool,
}

impl JavaCorpusSpec {
    /// `lines` lines of Java over `products` products, seed 42, calls counted only.
    pub fn new(products: u32, lines: u64) -> Self {
        JavaCorpusSpec {
            products,
            lines,
            seed: 42,
            record_calls: false,
        }
    }
}

/// What was written, and the facts it was written to contain.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JavaCorpusReport {
    /// Files written.
    pub files: u64,
    /// Lines written (every file).
    pub lines: u64,
    /// Lines of Java written.
    pub java_lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// One entry per product, in product order.
    pub products: Vec<ProductTruth>,
}

/// One product: where it is and what it contains.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProductTruth {
    /// The product's name, also its folder under the root.
    pub name: String,
    /// Its `spring.application.name`.
    pub service: String,
    /// The repository folder (`<root>/<name>`).
    pub dir: PathBuf,
    /// Files written.
    pub files: u64,
    /// Lines written (every file).
    pub lines: u64,
    /// Lines of Java written.
    pub java_lines: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Feature packages.
    pub features: u64,
    /// Every HTTP endpoint its controllers serve.
    pub endpoints: Vec<PlantedEndpoint>,
    /// Every outbound HTTP call to another product's endpoint.
    pub http_calls: Vec<PlantedHttpCall>,
    /// Methods that send to a Kafka topic.
    pub produces: Vec<PlantedTopicUse>,
    /// Kafka listener methods.
    pub consumes: Vec<PlantedTopicUse>,
    /// Tables of its migration, with methods that read and write them.
    pub tables: Vec<PlantedTable>,
    /// `@Scheduled` methods (method keys).
    pub scheduled: Vec<String>,
    /// Calls between the product's own methods the generator planted and recorded (one per
    /// caller, callee and place it was written; the rare repeat of a pair in one method is
    /// recorded once).
    pub calls: u64,
    /// Those calls, when the spec asked to record them.
    pub call_list: Vec<PlantedCall>,
}

/// An endpoint: verb, path as the controller declares it (class prefix joined), handler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedEndpoint {
    /// `GET`, `POST`, …
    pub verb: String,
    /// `/api/billing/invoices/{id}`.
    pub path: String,
    /// The handler's method key (see [`method_key`]).
    pub handler: String,
}

/// An outbound HTTP call to an endpoint of another product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedHttpCall {
    /// The client method that makes the call (method key).
    pub caller: String,
    /// The verb.
    pub verb: String,
    /// The product that serves it.
    pub target_product: String,
    /// That product's service name (the URL host).
    pub target_service: String,
    /// The endpoint's path as the target declares it.
    pub path: String,
    /// `rest-template` or `web-client`, as the indexer names them.
    pub client: &'static str,
    /// Where the client's base URL comes from: `@Value constructor parameter`, `@Value
    /// field`, or `builder baseUrl(@Value constructor parameter)`.
    pub base_url: &'static str,
}

/// A method that sends to or listens on a Kafka topic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedTopicUse {
    /// The topic name.
    pub topic: String,
    /// The method key.
    pub method: String,
    /// How the source names the topic: a producer's `constant`, `literal` or
    /// `@Value field`; a listener's `literal` or `config placeholder`.
    pub written: &'static str,
}

/// A table and the methods planted to read and write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedTable {
    /// Its name in the migration.
    pub name: String,
    /// The `@Entity` mapped to it (type fqn), if any.
    pub entity: Option<String>,
    /// Methods that read it (method keys).
    pub readers: Vec<String>,
    /// Methods that write it (method keys).
    pub writers: Vec<String>,
}

/// How a planted call is written in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CallStyle {
    /// On a field of a product class (`mapper.toDto(x)`).
    Field,
    /// On a field of a product interface (lands on the interface method).
    Interface,
    /// `Type.method(…)` of a static helper.
    Static,
    /// Without a receiver, or on `this`.
    Implicit,
    /// On a local variable or parameter.
    Local,
    /// On the result of another call of the product (`x.getStatus().canMoveTo(…)`).
    Chained,
    /// On the parameter of a lambda (`list.forEach(x -> x.m())`).
    Lambda,
    /// A method reference (`Type::m`, `field::m`).
    MethodRef,
    /// `new Type(…)` of a product type.
    Constructor,
    /// On the mock a Mockito `verify(…)` returns.
    MockVerify,
}

impl CallStyle {
    /// A short lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            CallStyle::Field => "field",
            CallStyle::Interface => "interface",
            CallStyle::Static => "static",
            CallStyle::Implicit => "implicit",
            CallStyle::Local => "local",
            CallStyle::Chained => "chained",
            CallStyle::Lambda => "lambda",
            CallStyle::MethodRef => "method-ref",
            CallStyle::Constructor => "constructor",
            CallStyle::MockVerify => "mock-verify",
        }
    }
}

/// A call between two methods of the product's own sources.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlantedCall {
    /// The calling method (method key).
    pub caller: String,
    /// The called method (method key; constructors are `<init>`).
    pub callee: String,
    /// How the call is written.
    pub style: CallStyle,
}

/// A method's key: its type's fqn, a dot, and its signature with simple parameter type
/// names and no generics — `com.synth.billing.invoice.service.InvoiceService.get(Long)`,
/// the same text as a Method node's fqn without its last segment, a dot, and its
/// `signature` attribute.
pub fn method_key(type_fqn: &str, signature: &str) -> String {
    format!("{type_fqn}.{signature}")
}

/// Writes the company under `root` (one folder per product) and reports what it planted.
pub fn write_java_company(root: &Path, spec: &JavaCorpusSpec) -> io::Result<JavaCorpusReport> {
    let plans = plan_company(spec);
    let mut report = JavaCorpusReport::default();
    for p in 0..plans.len() {
        let wiring = wire(spec, &plans, p);
        let truth = ProductGen::new(root, spec, &plans, p, wiring).run()?;
        report.files += truth.files;
        report.lines += truth.lines;
        report.java_lines += truth.java_lines;
        report.bytes += truth.bytes;
        report.products.push(truth);
    }
    Ok(report)
}

// ---------------------------------------------------------------------------------------
// Names

const PRODUCTS: &[&str] = &[
    "orders",
    "billing",
    "catalog",
    "inventory",
    "shipping",
    "payments",
    "customers",
    "pricing",
    "loyalty",
    "reviews",
    "search",
    "notifications",
    "accounts",
    "fraud",
    "returns",
    "warehouse",
    "promotions",
    "subscriptions",
    "invoicing",
    "ledger",
    "tax",
    "identity",
    "media",
    "messaging",
    "analytics",
    "reporting",
    "scheduling",
    "support",
    "partners",
    "content",
];

const NOUNS: &[&str] = &[
    "Account",
    "Address",
    "Adjustment",
    "Allocation",
    "Approval",
    "Asset",
    "Attachment",
    "Batch",
    "Booking",
    "Budget",
    "Campaign",
    "Carrier",
    "Category",
    "Certificate",
    "Channel",
    "Claim",
    "Contract",
    "Coupon",
    "Credit",
    "Delivery",
    "Deposit",
    "Device",
    "Discount",
    "Dispute",
    "Document",
    "Entitlement",
    "Estimate",
    "Fee",
    "Forecast",
    "Grant",
    "Invoice",
    "Journal",
    "Lead",
    "License",
    "Listing",
    "Location",
    "Mandate",
    "Manifest",
    "Meter",
    "Milestone",
    "Note",
    "Offer",
    "Parcel",
    "Partner",
    "Payout",
    "Permit",
    "Plan",
    "Policy",
    "Position",
    "Quota",
    "Quote",
    "Rate",
    "Rebate",
    "Receipt",
    "Refund",
    "Reminder",
    "Report",
    "Reservation",
    "Route",
    "Schedule",
    "Segment",
    "Settlement",
    "Shipment",
    "Slot",
    "Statement",
    "Subscription",
    "Supplier",
    "Survey",
    "Task",
    "Tariff",
    "Territory",
    "Ticket",
    "Transfer",
    "Vehicle",
    "Voucher",
    "Warranty",
    "Workflow",
];

const QUALIFIERS: &[&str] = &[
    "",
    "Regional",
    "Partner",
    "Internal",
    "Archived",
    "Recurring",
    "Draft",
    "Pending",
    "Priority",
    "Bulk",
    "Legacy",
    "Seasonal",
    "Corporate",
    "Retail",
    "Wholesale",
    "Domestic",
    "Foreign",
    "Digital",
    "Manual",
];

/// Extra entity columns: field name, Java type, SQL type, import.
const EXTRA_FIELDS: &[(&str, &str, &str, Option<&str>)] = &[
    ("description", "String", "VARCHAR(1000)", None),
    ("currency", "String", "CHAR(3)", None),
    ("priority", "int", "INTEGER NOT NULL DEFAULT 0", None),
    ("region", "String", "VARCHAR(32)", None),
    ("externalRef", "String", "VARCHAR(128)", None),
    ("dueDate", "LocalDate", "DATE", Some("java.time.LocalDate")),
    ("quantity", "int", "INTEGER NOT NULL DEFAULT 0", None),
    ("weight", "BigDecimal", "NUMERIC(10, 3)", None),
    ("active", "boolean", "BOOLEAN NOT NULL DEFAULT TRUE", None),
    ("ownerEmail", "String", "VARCHAR(320)", None),
];

/// A product type's naming in every case the code needs.
#[derive(Clone, Debug)]
struct Names {
    /// `RegionalInvoice`
    pascal: String,
    /// `regionalInvoice`
    camel: String,
    /// `regionalinvoice` (package segment)
    lower: String,
    /// `regional_invoice`
    snake: String,
    /// `regional-invoice`
    kebab: String,
    /// `regional_invoices`
    plural_snake: String,
    /// `regional-invoices`
    plural_kebab: String,
    /// `regional invoice` (for messages)
    words: String,
}

fn plural(word: &str) -> String {
    let lower = word.to_lowercase();
    if let Some(stem) = lower.strip_suffix('y') {
        if !stem.ends_with(['a', 'e', 'o', 'u']) {
            return format!("{stem}ies");
        }
    }
    if lower.ends_with('s') || lower.ends_with('x') || lower.ends_with("ch") || lower.ends_with("sh") {
        return format!("{lower}es");
    }
    format!("{lower}s")
}

fn names(qualifier: &str, noun: &str, suffix: usize) -> Names {
    let tag = if suffix > 0 {
        format!("{}", suffix + 1)
    } else {
        String::new()
    };
    let pascal = format!("{qualifier}{noun}{tag}");
    let mut words: Vec<String> = Vec::new();
    if !qualifier.is_empty() {
        words.push(qualifier.to_lowercase());
    }
    words.push(noun.to_lowercase());
    let mut plural_words = words.clone();
    if let Some(last) = plural_words.last_mut() {
        *last = plural(last);
    }
    if !tag.is_empty() {
        for w in [&mut words, &mut plural_words] {
            if let Some(last) = w.last_mut() {
                last.push_str(&tag);
            }
        }
    }
    let mut camel = pascal.clone();
    if let Some(first) = camel.get(..1) {
        camel = format!("{}{}", first.to_lowercase(), &pascal[1..]);
    }
    Names {
        lower: pascal.to_lowercase(),
        snake: words.join("_"),
        kebab: words.join("-"),
        plural_snake: plural_words.join("_"),
        plural_kebab: plural_words.join("-"),
        words: words.join(" "),
        camel,
        pascal,
    }
}

fn pascal_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = true;
    for c in name.chars() {
        if c == '-' || c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn camel_case(name: &str) -> String {
    let pascal = pascal_case(name);
    match pascal.get(..1) {
        Some(first) => format!("{}{}", first.to_lowercase(), &pascal[1..]),
        None => pascal,
    }
}

// ---------------------------------------------------------------------------------------
// Planning: what other products may refer to.

/// Average lines of Java a feature package comes to (measured on generated products);
/// products plan 85% of their share as features others may call, and fill the rest.
const LINES_PER_FEATURE: u64 = 780;

/// An endpoint a feature's controller may serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RouteKind {
    Get,
    List,
    GetByCode,
    Create,
    ChangeStatus,
    Delete,
    History,
    Summary,
    Dashboard,
}

impl RouteKind {
    /// Verb, path under the controller's prefix, handler signature (with `«E»` for the
    /// entity), handler name.
    fn route(self) -> (&'static str, &'static str, &'static str) {
        match self {
            RouteKind::Get => ("GET", "/{id}", "get(Long)"),
            RouteKind::List => ("GET", "", "list(String, int)"),
            RouteKind::GetByCode => ("GET", "/by-code/{code}", "getByCode(String)"),
            RouteKind::Create => ("POST", "", "create(Create«E»Request)"),
            RouteKind::ChangeStatus => (
                "PUT",
                "/{id}/status",
                "changeStatus(Long, Update«E»StatusRequest)",
            ),
            RouteKind::Delete => ("DELETE", "/{id}", "delete(Long)"),
            RouteKind::History => ("GET", "/{id}/history", "history(Long)"),
            RouteKind::Summary => ("GET", "/summary", "summary(Instant)"),
            RouteKind::Dashboard => ("GET", "/dashboard", "dashboard()"),
        }
    }

    /// Whether another product's client may call it.
    fn callable(self) -> bool {
        matches!(
            self,
            RouteKind::Get | RouteKind::GetByCode | RouteKind::Create | RouteKind::ChangeStatus
        )
    }
}

#[derive(Clone, Debug)]
struct FeaturePlan {
    n: Names,
    controller: bool,
    events: bool,
    jdbc: bool,
    routes: Vec<RouteKind>,
}

#[derive(Clone, Debug)]
struct ProductPlan {
    name: String,
    pascal: String,
    camel: String,
    service: String,
    base: String,
    /// 0: `/api/<product>/<plural>`, 1: `/api/v1/<plural>`, 2: `/<product>/api/<plural>`.
    route_style: u8,
    budget: u64,
    /// Features planned (others may refer to them); more are added until the budget.
    features: Vec<FeaturePlan>,
    /// Every name the product may use, in order.
    name_order: Vec<Names>,
}

impl ProductPlan {
    fn route_base(&self, n: &Names) -> String {
        match self.route_style {
            0 => format!("/api/{}/{}", self.name, n.plural_kebab),
            1 => format!("/api/v1/{}", n.plural_kebab),
            _ => format!("/{}/api/{}", self.name, n.plural_kebab),
        }
    }

    fn topic(&self, n: &Names) -> String {
        format!("{}.{}-events", self.name, n.kebab)
    }
}

fn product_name(p: usize) -> String {
    let base = PRODUCTS[p % PRODUCTS.len()];
    if p < PRODUCTS.len() {
        base.to_string()
    } else {
        format!("{base}{}", p / PRODUCTS.len() + 1)
    }
}

fn rng_for(spec: &JavaCorpusSpec, p: usize, stage: u64) -> ChaCha8Rng {
    let mixed = spec
        .seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add((p as u64) << 8)
        .wrapping_add(stage);
    ChaCha8Rng::seed_from_u64(mixed)
}

fn feature_plan(rng: &mut ChaCha8Rng, n: Names) -> FeaturePlan {
    let controller = rng.random_bool(0.75);
    let events = rng.random_bool(0.35);
    let jdbc = rng.random_bool(0.5);
    let mut routes = Vec::new();
    if controller {
        routes.extend([RouteKind::Get, RouteKind::List, RouteKind::Create]);
        if rng.random_bool(0.7) {
            routes.push(RouteKind::GetByCode);
        }
        if rng.random_bool(0.6) {
            routes.push(RouteKind::ChangeStatus);
        }
        if rng.random_bool(0.5) {
            routes.push(RouteKind::Delete);
        }
        if jdbc {
            routes.extend([RouteKind::History, RouteKind::Summary]);
        }
        if rng.random_bool(0.3) {
            routes.push(RouteKind::Dashboard);
        }
    }
    FeaturePlan {
        n,
        controller,
        events,
        jdbc,
        routes,
    }
}

fn plan_company(spec: &JavaCorpusSpec) -> Vec<ProductPlan> {
    let count = spec.products.max(1) as usize;
    let share = spec.lines / count as u64;
    let extra = spec.lines % count as u64;
    (0..count)
        .map(|p| {
            let mut rng = rng_for(spec, p, 1);
            let name = product_name(p);
            let budget = share + u64::from((p as u64) < extra);
            let mut combos: Vec<(usize, usize)> = (0..QUALIFIERS.len())
                .flat_map(|q| (0..NOUNS.len()).map(move |n| (q, n)))
                .collect();
            combos.shuffle(&mut rng);
            // Plain nouns first: most features of a product have the short names.
            combos.sort_by_key(|&(q, _)| q != 0);
            let wanted = (budget / LINES_PER_FEATURE + 8) as usize;
            let name_order: Vec<Names> = (0..wanted)
                .map(|i| {
                    let (q, n) = combos[i % combos.len()];
                    names(QUALIFIERS[q], NOUNS[n], i / combos.len())
                })
                .collect();
            let planned = ((budget * 85 / 100) / LINES_PER_FEATURE).max(1) as usize;
            let features = name_order
                .iter()
                .take(planned)
                .map(|n| feature_plan(&mut rng, n.clone()))
                .collect();
            ProductPlan {
                pascal: pascal_case(&name),
                camel: camel_case(&name),
                service: format!("{name}-service"),
                base: format!("com.synth.{name}"),
                route_style: rng.random_range(0..3u8),
                budget,
                features,
                name_order,
                name,
            }
        })
        .collect()
}

/// A client method: an endpoint of another product and the feature here that calls it.
#[derive(Clone, Debug)]
struct ClientMethod {
    feature: usize,
    kind: RouteKind,
    user: usize,
}

#[derive(Clone, Debug)]
struct ClientPlan {
    target: usize,
    web_client: bool,
    /// The base URL is a `@Value` field rather than a constructor parameter.
    field_value: bool,
    /// The port in the configured URL.
    port: bool,
    methods: Vec<ClientMethod>,
}

#[derive(Clone, Debug)]
struct ListenerPlan {
    source: usize,
    feature: usize,
    /// `topics = "${topics.inbound.…}"` rather than a literal.
    config_topic: bool,
    handler: usize,
}

#[derive(Clone, Debug, Default)]
struct Wiring {
    clients: Vec<ClientPlan>,
    listeners: Vec<ListenerPlan>,
}

/// Which other products product `p` calls and listens to.
fn wire(spec: &JavaCorpusSpec, plans: &[ProductPlan], p: usize) -> Wiring {
    let mut rng = rng_for(spec, p, 2);
    let me = &plans[p];
    let mut others: Vec<usize> = (0..plans.len()).filter(|&o| o != p).collect();
    others.shuffle(&mut rng);
    let planned = me.features.len();
    let targets = (2 + planned / 40).min(6).min(others.len());
    let mut clients = Vec::new();
    // Each way of writing a client appears in every company of a few products.
    let mut style = p;
    for &target in others.iter().take(targets) {
        let mut callable: Vec<(usize, RouteKind)> = plans[target]
            .features
            .iter()
            .enumerate()
            .flat_map(|(i, f)| f.routes.iter().filter(|r| r.callable()).map(move |&r| (i, r)))
            .collect();
        if callable.is_empty() {
            continue;
        }
        callable.shuffle(&mut rng);
        let m = rng.random_range(2..=6usize).min(callable.len());
        let mut chosen: Vec<(usize, RouteKind)> = callable.into_iter().take(m).collect();
        chosen.sort_by_key(|&(f, r)| (f, r as u8));
        let methods = chosen
            .into_iter()
            .map(|(feature, kind)| ClientMethod {
                feature,
                kind,
                user: rng.random_range(0..planned),
            })
            .collect();
        clients.push(ClientPlan {
            target,
            web_client: style % 3 == 1,
            field_value: style % 3 == 2,
            port: rng.random_bool(0.5),
            methods,
        });
        style += 1;
    }
    let mut listeners = Vec::new();
    let wanted = 1 + planned / 30;
    for &source in &others {
        if listeners.len() >= wanted {
            break;
        }
        let topics: Vec<usize> = plans[source]
            .features
            .iter()
            .enumerate()
            .filter(|(_, f)| f.events)
            .map(|(i, _)| i)
            .collect();
        if let Some(&feature) = topics.choose(&mut rng) {
            listeners.push(ListenerPlan {
                source,
                feature,
                config_topic: (p + listeners.len()) % 2 == 1,
                handler: rng.random_range(0..planned),
            });
        }
    }
    Wiring { clients, listeners }
}

// ---------------------------------------------------------------------------------------
// Writing

/// Replaces `«name»` in `tpl` by its value from `vars` (unknown names are left as written).
fn fill(out: &mut String, tpl: &str, vars: &[(&str, &str)]) {
    let mut rest = tpl;
    while let Some(start) = rest.find('«') {
        out.push_str(&rest[..start]);
        let after = &rest[start + '«'.len_utf8()..];
        let Some(end) = after.find('»') else {
            out.push_str(&rest[start..]);
            return;
        };
        let name = &after[..end];
        match vars.iter().find(|(k, _)| *k == name) {
            Some((_, v)) => out.push_str(v),
            None => out.push_str(&rest[start..start + '«'.len_utf8() + end + '»'.len_utf8()]),
        }
        rest = &after[end + '»'.len_utf8()..];
    }
    out.push_str(rest);
}

/// A Java file: package, imports (sorted, static ones last), body.
fn java_file(package: &str, imports: &[String], body: &str) -> String {
    // Types of the file's own package need no import.
    let mut plain: Vec<&str> = imports
        .iter()
        .filter(|i| !i.starts_with("static ") && i.rsplit_once('.').map(|(p, _)| p) != Some(package))
        .map(String::as_str)
        .collect();
    let mut statics: Vec<&str> = imports.iter().filter_map(|i| i.strip_prefix("static ")).collect();
    plain.sort_unstable();
    plain.dedup();
    statics.sort_unstable();
    statics.dedup();
    let mut out = String::with_capacity(body.len() + 64 * (plain.len() + statics.len()) + 64);
    out.push_str("package ");
    out.push_str(package);
    out.push_str(";\n\n");
    for s in &statics {
        out.push_str("import static ");
        out.push_str(s);
        out.push_str(";\n");
    }
    if !statics.is_empty() {
        out.push('\n');
    }
    for i in &plain {
        out.push_str("import ");
        out.push_str(i);
        out.push_str(";\n");
    }
    if !plain.is_empty() {
        out.push('\n');
    }
    out.push_str(body);
    out
}

fn path_of(package: &str, class: &str, test: bool) -> String {
    format!(
        "src/{}/java/{}/{class}.java",
        if test { "test" } else { "main" },
        package.replace('.', "/")
    )
}

/// One product being written.
struct ProductGen<'a> {
    spec: &'a JavaCorpusSpec,
    /// The product's position in the company.
    index: usize,
    plans: &'a [ProductPlan],
    me: &'a ProductPlan,
    wiring: Wiring,
    dir: PathBuf,
    made_dirs: HashSet<PathBuf>,
    rng: ChaCha8Rng,
    truth: ProductTruth,
    /// `application.yml` lines beyond the fixed ones, by top-level section.
    config: Vec<(String, String)>,
    /// `CREATE TABLE` statements, in feature order.
    ddl: String,
    /// Entities written so far: (entity fqn, names) for associations.
    entities: Vec<(String, Names)>,
}

/// What a feature's service gets from elsewhere in the product.
struct FeatureLinks {
    deps: Vec<usize>,
    parent: Option<usize>,
    clients: Vec<(usize, ClientMethod)>,
}

impl<'a> ProductGen<'a> {
    fn new(
        root: &Path,
        spec: &'a JavaCorpusSpec,
        plans: &'a [ProductPlan],
        p: usize,
        wiring: Wiring,
    ) -> Self {
        let me = &plans[p];
        let dir = root.join(&me.name);
        ProductGen {
            spec,
            index: p,
            plans,
            me,
            wiring,
            truth: ProductTruth {
                name: me.name.clone(),
                service: me.service.clone(),
                dir: dir.clone(),
                ..ProductTruth::default()
            },
            dir,
            made_dirs: HashSet::new(),
            rng: rng_for(spec, p, 3),
            config: Vec::new(),
            ddl: String::new(),
            entities: Vec::new(),
        }
    }

    fn write(&mut self, rel: &str, text: &str) -> io::Result<()> {
        let path = self.dir.join(rel);
        if let Some(parent) = path.parent() {
            if !self.made_dirs.contains(parent) {
                std::fs::create_dir_all(parent)?;
                self.made_dirs.insert(parent.to_path_buf());
            }
        }
        std::fs::write(&path, text)?;
        let lines = text.bytes().filter(|&b| b == b'\n').count() as u64;
        self.truth.files += 1;
        self.truth.lines += lines;
        self.truth.bytes += text.len() as u64;
        if rel.ends_with(".java") {
            self.truth.java_lines += lines;
        }
        Ok(())
    }

    fn java(
        &mut self,
        package: &str,
        class: &str,
        test: bool,
        imports: &[String],
        body: &str,
    ) -> io::Result<()> {
        let text = java_file(package, imports, body);
        self.write(&path_of(package, class, test), &text)
    }

    fn call(&mut self, caller: &str, callee: &str, style: CallStyle) {
        self.truth.calls += 1;
        if self.spec.record_calls {
            self.truth.call_list.push(PlantedCall {
                caller: caller.to_string(),
                callee: callee.to_string(),
                style,
            });
        }
    }

    fn run(mut self) -> io::Result<ProductTruth> {
        self.write_common()?;
        let planned = self.me.features.len();
        let mut i = 0;
        while i < planned || self.truth.java_lines < self.me.budget {
            let plan = match self.me.features.get(i) {
                Some(f) => f.clone(),
                None => {
                    let n = match self.me.name_order.get(i) {
                        Some(n) => n.clone(),
                        None => {
                            let noun = NOUNS[i % NOUNS.len()];
                            names("Extra", noun, i / NOUNS.len())
                        }
                    };
                    feature_plan(&mut self.rng, n)
                }
            };
            let links = self.links(i);
            self.write_feature(&plan, &links)?;
            i += 1;
        }
        self.truth.features = i as u64;
        self.write_clients()?;
        self.write_listeners()?;
        self.write_resources()?;
        Ok(self.truth)
    }

    fn links(&mut self, i: usize) -> FeatureLinks {
        let mut deps = Vec::new();
        if i > 0 {
            let n = self.rng.random_range(0..=2usize.min(i));
            while deps.len() < n {
                let d = self.rng.random_range(0..i);
                if !deps.contains(&d) {
                    deps.push(d);
                }
            }
            deps.sort_unstable();
        }
        let parent = (i > 0 && self.rng.random_bool(0.3)).then(|| self.rng.random_range(0..i));
        let clients = self
            .wiring
            .clients
            .iter()
            .enumerate()
            .flat_map(|(c, plan)| {
                plan.methods
                    .iter()
                    .filter(|m| m.user == i)
                    .map(move |m| (c, m.clone()))
            })
            .collect();
        FeatureLinks {
            deps,
            parent,
            clients,
        }
    }

    // -- common package ------------------------------------------------------------------

    fn write_common(&mut self) -> io::Result<()> {
        let base = self.me.base.clone();
        let svc = self.me.service.clone();
        let p = self.me.pascal.clone();
        let vars: [(&str, &str); 3] = [("base", &base), ("svc", &svc), ("P", &p)];
        let util = format!("{base}.common.util");
        let strings = format!("{util}.Strings");
        let money = format!("{util}.Money");
        let dates = format!("{util}.Dates");
        let pre = format!("{util}.Preconditions");

        let mut body = String::new();
        fill(&mut body, STRINGS_JAVA, &vars);
        self.java(
            &util,
            "Strings",
            false,
            &imports(&["java.text.Normalizer", "java.util.Locale"]),
            &body,
        )?;
        self.call(
            &method_key(&strings, "normalize(String)"),
            &method_key(&strings, "isBlank(String)"),
            CallStyle::Implicit,
        );
        self.call(
            &method_key(&strings, "slug(String)"),
            &method_key(&strings, "normalize(String)"),
            CallStyle::Implicit,
        );

        body.clear();
        fill(&mut body, MONEY_JAVA, &vars);
        self.java(
            &util,
            "Money",
            false,
            &imports(&["java.math.BigDecimal", "java.math.RoundingMode", "java.util.List"]),
            &body,
        )?;
        self.call(
            &method_key(&money, "round(BigDecimal)"),
            &method_key(&money, "round(BigDecimal, int)"),
            CallStyle::Implicit,
        );
        self.call(
            &method_key(&money, "percentOf(BigDecimal, int)"),
            &method_key(&money, "round(BigDecimal)"),
            CallStyle::Implicit,
        );
        self.call(
            &method_key(&money, "sum(List)"),
            &method_key(&money, "round(BigDecimal)"),
            CallStyle::Implicit,
        );

        body.clear();
        fill(&mut body, DATES_JAVA, &vars);
        self.java(
            &util,
            "Dates",
            false,
            &imports(&[
                "java.time.Clock",
                "java.time.Duration",
                "java.time.Instant",
                "java.time.LocalDate",
                "java.time.ZoneOffset",
                "java.time.temporal.ChronoUnit",
            ]),
            &body,
        )?;
        self.call(
            &method_key(&dates, "today()"),
            &method_key(&dates, "nowUtc()"),
            CallStyle::Implicit,
        );

        body.clear();
        fill(&mut body, PRECONDITIONS_JAVA, &vars);
        self.java(
            &util,
            "Preconditions",
            false,
            &imports(&["java.math.BigDecimal"]),
            &body,
        )?;
        self.call(
            &method_key(&pre, "requireText(String, String)"),
            &method_key(&strings, "isBlank(String)"),
            CallStyle::Static,
        );
        self.call(
            &method_key(&pre, "requirePositive(BigDecimal, String)"),
            &method_key(&money, "isPositive(BigDecimal)"),
            CallStyle::Static,
        );

        let error = format!("{base}.common.error");
        body.clear();
        fill(&mut body, NOT_FOUND_JAVA, &vars);
        self.java(&error, "NotFoundException", false, &[], &body)?;
        body.clear();
        fill(&mut body, CONFLICT_JAVA, &vars);
        self.java(&error, "ConflictException", false, &[], &body)?;

        let web = format!("{base}.common.web");
        body.clear();
        fill(&mut body, EXCEPTION_HANDLER_JAVA, &vars);
        self.java(
            &web,
            "ApiExceptionHandler",
            false,
            &imports(&[
                &format!("{error}.ConflictException"),
                &format!("{error}.NotFoundException"),
                &dates,
                &strings,
                "java.util.LinkedHashMap",
                "java.util.Map",
                "org.slf4j.Logger",
                "org.slf4j.LoggerFactory",
                "org.springframework.http.HttpStatus",
                "org.springframework.http.ResponseEntity",
                "org.springframework.web.bind.annotation.ExceptionHandler",
                "org.springframework.web.bind.annotation.RestControllerAdvice",
            ]),
            &body,
        )?;
        let handler = format!("{web}.ApiExceptionHandler");
        let problem = method_key(&handler, "problem(HttpStatus, String, String)");
        for m in [
            "notFound(NotFoundException)",
            "conflict(ConflictException)",
            "badRequest(RuntimeException)",
        ] {
            self.call(&method_key(&handler, m), &problem, CallStyle::Implicit);
        }
        self.call(
            &method_key(&handler, "notFound(NotFoundException)"),
            &method_key(&format!("{error}.NotFoundException"), "getResource()"),
            CallStyle::Local,
        );
        self.call(
            &problem,
            &method_key(&strings, "truncate(String, int)"),
            CallStyle::Static,
        );
        self.call(&problem, &method_key(&dates, "nowUtc()"), CallStyle::Static);

        let audit = format!("{base}.common.audit");
        body.clear();
        fill(&mut body, AUDIT_LOG_JAVA, &vars);
        self.java(
            &audit,
            "AuditLog",
            false,
            &imports(&[
                &dates,
                &strings,
                "java.sql.Timestamp",
                "java.time.Instant",
                "org.slf4j.Logger",
                "org.slf4j.LoggerFactory",
                "org.springframework.jdbc.core.JdbcTemplate",
                "org.springframework.stereotype.Component",
            ]),
            &body,
        )?;
        let audit_log = format!("{audit}.AuditLog");
        let record_long = method_key(&audit_log, "record(String, Long)");
        let record_string = method_key(&audit_log, "record(String, String)");
        self.call(&record_long, &record_string, CallStyle::Implicit);
        self.call(
            &record_string,
            &method_key(&strings, "truncate(String, int)"),
            CallStyle::Static,
        );
        self.call(&record_string, &method_key(&dates, "nowUtc()"), CallStyle::Static);
        self.truth.tables.push(PlantedTable {
            name: "audit_log".into(),
            entity: None,
            readers: vec![method_key(&audit_log, "countSince(Instant)")],
            writers: vec![record_string, method_key(&audit_log, "purgeOlderThan(Instant)")],
        });
        self.ddl.push_str(AUDIT_DDL);

        let config = format!("{base}.common.config");
        body.clear();
        fill(&mut body, HTTP_CONFIG_JAVA, &vars);
        self.java(
            &config,
            "HttpClientsConfig",
            false,
            &imports(&[
                "java.time.Duration",
                "org.springframework.boot.web.client.RestTemplateBuilder",
                "org.springframework.context.annotation.Bean",
                "org.springframework.context.annotation.Configuration",
                "org.springframework.web.client.RestTemplate",
                "org.springframework.web.reactive.function.client.WebClient",
            ]),
            &body,
        )?;

        body.clear();
        fill(&mut body, APPLICATION_JAVA, &vars);
        self.java(
            &base,
            &format!("{p}Application"),
            false,
            &imports(&[
                "org.springframework.boot.SpringApplication",
                "org.springframework.boot.autoconfigure.SpringBootApplication",
                "org.springframework.scheduling.annotation.EnableScheduling",
            ]),
            &body,
        )?;
        Ok(())
    }

    // -- one feature ---------------------------------------------------------------------

    fn write_feature(&mut self, f: &FeaturePlan, links: &FeatureLinks) -> io::Result<()> {
        let me = self.me;
        let n = &f.n;
        let pkg = format!("{}.{}", me.base, n.lower);
        let extras: Vec<usize> = {
            let count = self.rng.random_range(0..=5usize);
            let mut all: Vec<usize> = (0..EXTRA_FIELDS.len()).collect();
            all.shuffle(&mut self.rng);
            let mut chosen: Vec<usize> = all.into_iter().take(count).collect();
            chosen.sort_unstable();
            chosen
        };
        let validators = self.rng.random_bool(0.4);
        let job = self.rng.random_bool(0.3);
        // Publishers name their topic each of the three ways in turn.
        let topic_style = (self.index + self.truth.produces.len()) % 3;
        let config_topic = topic_style == 2;
        let literal_topic = topic_style == 1;
        let controller_test = f.controller && self.rng.random_bool(0.35);
        let wildcard_mockito = self.rng.random_bool(0.3);
        let ctx = FeatureCtx {
            base: me.base.clone(),
            pkg: pkg.clone(),
            e: n.pascal.clone(),
            v: n.camel.clone(),
            table: n.plural_snake.clone(),
            snake: n.snake.clone(),
            words: n.words.clone(),
            route: me.route_base(n),
            svc: me.service.clone(),
            product: me.name.clone(),
            topic: me.topic(n),
            kebab: n.kebab.clone(),
        };
        let parent = links.parent.map(|pi| self.entities[pi].clone());
        self.entity(&ctx, &extras, parent.as_ref())?;
        self.entities
            .push((format!("{pkg}.domain.{}", n.pascal), n.clone()));
        self.repository(&ctx, &extras, parent.as_ref())?;
        if f.jdbc {
            self.jdbc_repository(&ctx)?;
        }
        self.dtos(&ctx)?;
        self.mapper(&ctx)?;
        if validators {
            self.validators(&ctx)?;
        }
        if f.events {
            self.events(&ctx, config_topic, literal_topic)?;
        }
        let deps: Vec<Names> = links.deps.iter().map(|&d| self.entities[d].1.clone()).collect();
        let params = self.service(&ctx, f, validators, &deps, &links.clients)?;
        if f.controller {
            self.controller(&ctx, f)?;
        }
        if job {
            self.job(&ctx)?;
        }
        self.service_test(&ctx, f, &params, wildcard_mockito)?;
        if controller_test {
            self.controller_test(&ctx, wildcard_mockito)?;
        }
        self.feature_ddl(&ctx, &extras, parent.as_ref(), f.jdbc);
        Ok(())
    }
}

/// The names a feature's templates use.
struct FeatureCtx {
    base: String,
    pkg: String,
    e: String,
    v: String,
    table: String,
    snake: String,
    words: String,
    route: String,
    svc: String,
    product: String,
    topic: String,
    kebab: String,
}

impl FeatureCtx {
    fn vars(&self) -> [(&str, &str); 12] {
        [
            ("base", &self.base),
            ("pkg", &self.pkg),
            ("E", &self.e),
            ("e", &self.v),
            ("table", &self.table),
            ("snake", &self.snake),
            ("words", &self.words),
            ("route", &self.route),
            ("svc", &self.svc),
            ("product", &self.product),
            ("topic", &self.topic),
            ("kebab", &self.kebab),
        ]
    }

    fn ty(&self, layer: &str, class: &str) -> String {
        format!("{}.{layer}.{}", self.pkg, class.replace("«E»", &self.e))
    }

    fn util(&self, class: &str) -> String {
        format!("{}.common.util.{class}", self.base)
    }

    fn key(&self, layer: &str, class: &str, sig: &str) -> String {
        method_key(&self.ty(layer, class), &sig.replace("«E»", &self.e))
    }
}

fn imports(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// A constructor parameter of a service: type, name, import, and how a test provides it.
struct Param {
    ty: String,
    name: String,
    import: Option<String>,
    /// `None`: a Mockito mock; `Some(expr)`: built by the test.
    value: Option<String>,
}

impl ProductGen<'_> {
    fn entity(
        &mut self,
        c: &FeatureCtx,
        extras: &[usize],
        parent: Option<&(String, Names)>,
    ) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, ENTITY_HEAD, &vars);
        let mut imps = imports(&[
            "jakarta.persistence.Column",
            "jakarta.persistence.Entity",
            "jakarta.persistence.EnumType",
            "jakarta.persistence.Enumerated",
            "jakarta.persistence.GeneratedValue",
            "jakarta.persistence.GenerationType",
            "jakarta.persistence.Id",
            "jakarta.persistence.Table",
            "jakarta.persistence.Version",
            "java.math.BigDecimal",
            "java.time.Instant",
        ]);
        imps.push(c.util("Dates"));
        imps.push(c.util("Money"));
        imps.push(c.util("Strings"));
        if let Some((fqn, pn)) = parent {
            imps.push(fqn.clone());
            imps.extend(imports(&[
                "jakarta.persistence.FetchType",
                "jakarta.persistence.JoinColumn",
                "jakarta.persistence.ManyToOne",
            ]));
            body.push_str(&format!(
                "\n    @ManyToOne(fetch = FetchType.LAZY)\n    @JoinColumn(name = \"{}_id\")\n    private {} {};\n",
                pn.snake, pn.pascal, pn.camel
            ));
        }
        for &x in extras {
            let (name, ty, _, import) = EXTRA_FIELDS[x];
            if let Some(i) = import {
                imps.push(i.to_string());
            }
            let column = snake_of(name);
            if column != name {
                body.push_str(&format!(
                    "\n    @Column(name = \"{column}\")\n    private {ty} {name};\n"
                ));
            } else {
                body.push_str(&format!("\n    private {ty} {name};\n"));
            }
        }
        fill(&mut body, ENTITY_BODY, &vars);
        let status = c.ty("domain", "«E»Status");
        let ctor = c.key("domain", "«E»", "<init>(String, String, BigDecimal)");
        self.call(
            &ctor,
            &method_key(&c.util("Strings"), "normalize(String)"),
            CallStyle::Static,
        );
        self.call(
            &ctor,
            &method_key(&c.util("Money"), "round(BigDecimal)"),
            CallStyle::Static,
        );
        self.call(
            &ctor,
            &method_key(&c.util("Dates"), "nowUtc()"),
            CallStyle::Static,
        );
        let move_to = c.key("domain", "«E»", "moveTo(«E»Status, String)");
        self.call(
            &move_to,
            &method_key(&status, &format!("canMoveTo({}Status)", c.e)),
            CallStyle::Field,
        );
        self.call(
            &move_to,
            &method_key(&c.util("Strings"), "truncate(String, int)"),
            CallStyle::Static,
        );
        self.call(
            &move_to,
            &method_key(&c.util("Dates"), "nowUtc()"),
            CallStyle::Static,
        );
        self.call(
            &c.key("domain", "«E»", "isOpen()"),
            &method_key(&status, "isTerminal()"),
            CallStyle::Field,
        );
        let surcharge = c.key("domain", "«E»", "amountWithSurcharge(int)");
        self.call(
            &surcharge,
            &method_key(&c.util("Money"), "percentOf(BigDecimal, int)"),
            CallStyle::Static,
        );
        self.call(
            &surcharge,
            &method_key(&c.util("Money"), "round(BigDecimal)"),
            CallStyle::Static,
        );
        let age = c.key("domain", "«E»", "ageInDays()");
        self.call(
            &age,
            &method_key(&c.util("Dates"), "daysBetween(Instant, Instant)"),
            CallStyle::Static,
        );
        self.call(&age, &method_key(&c.util("Dates"), "nowUtc()"), CallStyle::Static);
        self.call(
            &c.key("domain", "«E»", "setAmount(BigDecimal)"),
            &method_key(&c.util("Money"), "round(BigDecimal)"),
            CallStyle::Static,
        );
        if let Some((_, pn)) = parent {
            body.push_str(&format!(
                "\n    public {p} get{p}() {{\n        return {v};\n    }}\n\n    public void set{p}({p} {v}) {{\n        this.{v} = {v};\n    }}\n",
                p = pn.pascal,
                v = pn.camel
            ));
        }
        for &x in extras {
            let (name, ty, _, _) = EXTRA_FIELDS[x];
            let cap = pascal_case(name);
            let getter = if ty == "boolean" {
                format!("is{cap}")
            } else {
                format!("get{cap}")
            };
            body.push_str(&format!(
                "\n    public {ty} {getter}() {{\n        return {name};\n    }}\n\n    public void set{cap}({ty} {name}) {{\n        this.{name} = {name};\n    }}\n"
            ));
        }
        body.push_str("}\n");
        self.java(&format!("{}.domain", c.pkg), &c.e, false, &imps, &body)?;

        body.clear();
        fill(&mut body, STATUS_JAVA, &vars);
        self.java(
            &format!("{}.domain", c.pkg),
            &format!("{}Status", c.e),
            false,
            &[],
            &body,
        )
    }

    fn repository(
        &mut self,
        c: &FeatureCtx,
        extras: &[usize],
        parent: Option<&(String, Names)>,
    ) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, REPOSITORY_HEAD, &vars);
        let mut reads: Vec<String> = [
            "findByCode(String)",
            "existsByCode(String)",
            "findByStatusOrderByCreatedAtDesc(«E»Status)",
            "findTop100ByOrderByCreatedAtDesc()",
            "findByStatusAndCreatedAtBefore(«E»Status, Instant)",
            "countByStatus(«E»Status)",
            "findLarge(BigDecimal, «E»Status)",
        ]
        .iter()
        .map(|s| c.key("repository", "«E»Repository", s))
        .collect();
        if let Some((_, pn)) = parent {
            body.push_str(&format!(
                "\n    List<{e}> findBy{p}IdOrderByCreatedAtDesc(Long {v}Id);\n",
                e = c.e,
                p = pn.pascal,
                v = pn.camel
            ));
            reads.push(c.key(
                "repository",
                "«E»Repository",
                &format!("findBy{}IdOrderByCreatedAtDesc(Long)", pn.pascal),
            ));
        }
        for &x in extras {
            let (name, ty, _, _) = EXTRA_FIELDS[x];
            if ty == "String" {
                let cap = pascal_case(name);
                body.push_str(&format!("\n    List<{}> findBy{cap}(String {name});\n", c.e));
                reads.push(c.key("repository", "«E»Repository", &format!("findBy{cap}(String)")));
                break;
            }
        }
        body.push_str("}\n");
        let imps = imports(&[
            &c.ty("domain", "«E»"),
            &c.ty("domain", "«E»Status"),
            "java.math.BigDecimal",
            "java.time.Instant",
            "java.util.List",
            "java.util.Optional",
            "org.springframework.data.jpa.repository.JpaRepository",
            "org.springframework.data.jpa.repository.Modifying",
            "org.springframework.data.jpa.repository.Query",
            "org.springframework.data.repository.query.Param",
        ]);
        self.java(
            &format!("{}.repository", c.pkg),
            &format!("{}Repository", c.e),
            false,
            &imps,
            &body,
        )?;
        let writes = vec![c.key("repository", "«E»Repository", "purge(«E»Status, Instant)")];
        self.truth.tables.push(PlantedTable {
            name: c.table.clone(),
            entity: Some(c.ty("domain", "«E»")),
            readers: reads,
            writers: writes,
        });
        Ok(())
    }

    fn jdbc_repository(&mut self, c: &FeatureCtx) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, JDBC_REPOSITORY_JAVA, &vars);
        let imps = imports(&[
            &c.util("Dates"),
            &c.util("Strings"),
            "java.math.BigDecimal",
            "java.sql.Timestamp",
            "java.time.Instant",
            "java.util.List",
            "org.springframework.jdbc.core.JdbcTemplate",
            "org.springframework.stereotype.Repository",
        ]);
        self.java(
            &format!("{}.repository", c.pkg),
            &format!("{}JdbcRepository", c.e),
            false,
            &imps,
            &body,
        )?;
        let jdbc = "«E»JdbcRepository";
        let summarize = c.key("repository", jdbc, "summarizeSince(Instant)");
        let record = c.key(
            "repository",
            jdbc,
            "recordTransition(Long, String, String, String)",
        );
        let history = c.key("repository", jdbc, "history(Long)");
        let touch = c.key("repository", jdbc, "touchStale(Instant)");
        let status_count = format!(
            "{}.{}JdbcRepository.StatusCount",
            c.pkg.clone() + ".repository",
            c.e
        );
        let transition = format!(
            "{}.{}JdbcRepository.Transition",
            c.pkg.clone() + ".repository",
            c.e
        );
        self.call(
            &summarize,
            &method_key(&status_count, "<init>(String, long, BigDecimal)"),
            CallStyle::Constructor,
        );
        self.call(
            &record,
            &method_key(&c.util("Strings"), "truncate(String, int)"),
            CallStyle::Static,
        );
        self.call(
            &record,
            &method_key(&c.util("Dates"), "nowUtc()"),
            CallStyle::Static,
        );
        self.call(
            &history,
            &method_key(&transition, "<init>(String, String, String, Instant)"),
            CallStyle::Constructor,
        );
        self.call(
            &touch,
            &method_key(&c.util("Dates"), "nowUtc()"),
            CallStyle::Static,
        );
        if let Some(t) = self.truth.tables.iter_mut().find(|t| t.name == c.table) {
            t.readers.push(summarize);
            t.writers.push(touch);
        }
        self.truth.tables.push(PlantedTable {
            name: format!("{}_status_history", c.snake),
            entity: None,
            readers: vec![history],
            writers: vec![record],
        });
        Ok(())
    }

    fn dtos(&mut self, c: &FeatureCtx) -> io::Result<()> {
        let vars = c.vars();
        let dto_pkg = format!("{}.web.dto", c.pkg);
        let mut body = String::new();
        fill(&mut body, DTO_JAVA, &vars);
        self.java(
            &dto_pkg,
            &format!("{}Dto", c.e),
            false,
            &imports(&["java.math.BigDecimal", "java.time.Instant"]),
            &body,
        )?;
        body.clear();
        fill(&mut body, CREATE_REQUEST_JAVA, &vars);
        self.java(
            &dto_pkg,
            &format!("Create{}Request", c.e),
            false,
            &imports(&[
                "jakarta.validation.constraints.NotBlank",
                "jakarta.validation.constraints.NotNull",
                "jakarta.validation.constraints.Positive",
                "java.math.BigDecimal",
            ]),
            &body,
        )?;
        body.clear();
        fill(&mut body, UPDATE_STATUS_REQUEST_JAVA, &vars);
        self.java(
            &dto_pkg,
            &format!("Update{}StatusRequest", c.e),
            false,
            &imports(&[
                &c.ty("domain", "«E»Status"),
                "jakarta.validation.constraints.NotNull",
            ]),
            &body,
        )
    }

    fn mapper(&mut self, c: &FeatureCtx) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, MAPPER_JAVA, &vars);
        let imps = imports(&[
            &c.ty("domain", "«E»"),
            &c.ty("web.dto", "«E»Dto"),
            &c.util("Money"),
            "java.util.List",
            "org.springframework.stereotype.Component",
        ]);
        self.java(
            &format!("{}.service", c.pkg),
            &format!("{}Mapper", c.e),
            false,
            &imps,
            &body,
        )?;
        let to_dto = c.key("service", "«E»Mapper", "toDto(«E»)");
        let entity = c.ty("domain", "«E»");
        for getter in [
            "getId()",
            "getCode()",
            "getName()",
            "getStatus()",
            "getAmount()",
            "getReferenceId()",
            "getCreatedAt()",
        ] {
            self.call(&to_dto, &method_key(&entity, getter), CallStyle::Local);
        }
        self.call(
            &to_dto,
            &method_key(&c.util("Money"), "round(BigDecimal)"),
            CallStyle::Static,
        );
        self.call(
            &to_dto,
            &c.key(
                "web.dto",
                "«E»Dto",
                "<init>(Long, String, String, String, BigDecimal, Long, Instant)",
            ),
            CallStyle::Constructor,
        );
        self.call(
            &c.key("service", "«E»Mapper", "toDtos(List)"),
            &to_dto,
            CallStyle::MethodRef,
        );
        Ok(())
    }

    fn validators(&mut self, c: &FeatureCtx) -> io::Result<()> {
        let vars = c.vars();
        let service_pkg = format!("{}.service", c.pkg);
        let mut body = String::new();
        fill(&mut body, VALIDATOR_JAVA, &vars);
        self.java(
            &service_pkg,
            &format!("{}Validator", c.e),
            false,
            &imports(&[&c.ty("domain", "«E»")]),
            &body,
        )?;
        body.clear();
        fill(&mut body, REQUIRED_VALIDATOR_JAVA, &vars);
        self.java(
            &service_pkg,
            &format!("Required{}FieldsValidator", c.e),
            false,
            &imports(&[
                &c.ty("domain", "«E»"),
                &c.util("Preconditions"),
                "org.springframework.stereotype.Component",
            ]),
            &body,
        )?;
        let required = c.key("service", "Required«E»FieldsValidator", "validate(«E»)");
        let entity = c.ty("domain", "«E»");
        let require_text = method_key(&c.util("Preconditions"), "requireText(String, String)");
        self.call(&required, &require_text, CallStyle::Static);
        self.call(&required, &method_key(&entity, "getCode()"), CallStyle::Local);
        self.call(&required, &method_key(&entity, "getName()"), CallStyle::Local);
        body.clear();
        fill(&mut body, LIMITS_VALIDATOR_JAVA, &vars);
        self.java(
            &service_pkg,
            &format!("{}LimitsValidator", c.e),
            false,
            &imports(&[
                &c.ty("domain", "«E»"),
                &c.util("Money"),
                "java.math.BigDecimal",
                "org.springframework.beans.factory.annotation.Value",
                "org.springframework.stereotype.Component",
            ]),
            &body,
        )?;
        let limits = c.key("service", "«E»LimitsValidator", "validate(«E»)");
        self.call(&limits, &method_key(&entity, "getAmount()"), CallStyle::Local);
        self.call(
            &limits,
            &method_key(&c.util("Money"), "isPositive(BigDecimal)"),
            CallStyle::Static,
        );
        self.config.push((
            format!("{}.limits.{}.max-amount", c.product, c.kebab),
            "250000".into(),
        ));
        Ok(())
    }

    fn events(&mut self, c: &FeatureCtx, config_topic: bool, literal_topic: bool) -> io::Result<()> {
        let vars = c.vars();
        let events_pkg = format!("{}.events", c.pkg);
        let mut body = String::new();
        fill(&mut body, EVENT_JAVA, &vars);
        self.java(
            &events_pkg,
            &format!("{}Event", c.e),
            false,
            &imports(&[
                &c.ty("domain", "«E»"),
                &c.util("Dates"),
                "java.math.BigDecimal",
                "java.time.Instant",
            ]),
            &body,
        )?;
        let entity = c.ty("domain", "«E»");
        let of = c.key("events", "«E»Event", "of(String, «E»)");
        for getter in ["getId()", "getCode()", "getStatus()", "getAmount()"] {
            self.call(&of, &method_key(&entity, getter), CallStyle::Local);
        }
        self.call(&of, &method_key(&c.util("Dates"), "nowUtc()"), CallStyle::Static);
        self.call(
            &of,
            &c.key(
                "events",
                "«E»Event",
                "<init>(String, Long, String, String, BigDecimal, Instant)",
            ),
            CallStyle::Constructor,
        );

        body.clear();
        let (tpl, topic_expr) = if config_topic {
            (PUBLISHER_CONFIG_JAVA, "topic")
        } else if literal_topic {
            (PUBLISHER_LITERAL_JAVA, "\"«topic»\"")
        } else {
            (PUBLISHER_CONSTANT_JAVA, "TOPIC")
        };
        let mut topic_text = String::new();
        fill(&mut topic_text, topic_expr, &vars);
        let mut all: Vec<(&str, &str)> = vars.to_vec();
        all.push(("topicExpr", &topic_text));
        fill(&mut body, tpl, &all);
        fill(&mut body, PUBLISHER_TAIL, &all);
        let mut imps = imports(&[
            &c.ty("domain", "«E»"),
            &c.ty("domain", "«E»Status"),
            "org.slf4j.Logger",
            "org.slf4j.LoggerFactory",
            "org.springframework.kafka.core.KafkaTemplate",
            "org.springframework.stereotype.Component",
        ]);
        if config_topic {
            imps.push("org.springframework.beans.factory.annotation.Value".into());
            self.config.push((format!("topics.{}", c.kebab), c.topic.clone()));
        }
        self.java(
            &events_pkg,
            &format!("{}EventPublisher", c.e),
            false,
            &imps,
            &body,
        )?;
        let publisher = "«E»EventPublisher";
        let send = c.key("events", publisher, "send(«E»Event)");
        let created = c.key("events", publisher, "publishCreated(«E»)");
        let changed = c.key("events", publisher, "publishStatusChanged(«E», «E»Status)");
        self.call(&created, &send, CallStyle::Implicit);
        self.call(&created, &of, CallStyle::Static);
        self.call(&changed, &send, CallStyle::Implicit);
        self.call(&changed, &of, CallStyle::Static);
        self.call(&send, &c.key("events", "«E»Event", "code()"), CallStyle::Local);
        self.truth.produces.push(PlantedTopicUse {
            topic: c.topic.clone(),
            method: send,
            written: if config_topic {
                "@Value field"
            } else if literal_topic {
                "literal"
            } else {
                "constant"
            },
        });
        Ok(())
    }

    /// The service interface and its implementation; returns the implementation's
    /// constructor parameters (the test builds it with them).
    fn service(
        &mut self,
        c: &FeatureCtx,
        f: &FeaturePlan,
        validators: bool,
        deps: &[Names],
        clients: &[(usize, ClientMethod)],
    ) -> io::Result<Vec<Param>> {
        let vars = c.vars();
        let service_pkg = format!("{}.service", c.pkg);
        let imp = c.ty("service", "Default«E»Service");
        let entity = c.ty("domain", "«E»");
        let status = c.ty("domain", "«E»Status");
        let repo = c.ty("repository", "«E»Repository");
        let jdbc = c.ty("repository", "«E»JdbcRepository");
        let mapper = c.ty("service", "«E»Mapper");
        let dto = c.ty("web.dto", "«E»Dto");
        let request = c.ty("web.dto", "Create«E»Request");
        let publisher = c.ty("events", "«E»EventPublisher");
        let audit = format!("{}.common.audit.AuditLog", c.base);

        // The interface.
        let mut body = String::new();
        fill(&mut body, SERVICE_IFACE_HEAD, &vars);
        if f.jdbc {
            fill(&mut body, SERVICE_IFACE_JDBC, &vars);
        }
        body.push_str("}\n");
        let mut imps = imports(&[
            &status,
            &dto,
            &request,
            "java.time.Duration",
            "java.util.List",
            "java.util.Map",
        ]);
        if f.jdbc {
            imps.extend(imports(&[&jdbc, "java.time.Instant"]));
        }
        self.java(&service_pkg, &format!("{}Service", c.e), false, &imps, &body)?;

        // Constructor parameters of the implementation.
        let mut params = vec![
            Param {
                ty: format!("{}Repository", c.e),
                name: format!("{}Repository", c.v),
                import: Some(repo.clone()),
                value: None,
            },
            Param {
                ty: format!("{}Mapper", c.e),
                name: format!("{}Mapper", c.v),
                import: Some(mapper.clone()),
                value: Some(format!("new {}Mapper()", c.e)),
            },
        ];
        if f.jdbc {
            params.push(Param {
                ty: format!("{}JdbcRepository", c.e),
                name: format!("{}JdbcRepository", c.v),
                import: Some(jdbc.clone()),
                value: None,
            });
        }
        if f.events {
            params.push(Param {
                ty: format!("{}EventPublisher", c.e),
                name: "eventPublisher".into(),
                import: Some(publisher.clone()),
                value: None,
            });
        }
        if validators {
            params.push(Param {
                ty: format!("List<{}Validator>", c.e),
                name: "validators".into(),
                import: None,
                value: Some("List.of()".into()),
            });
        }
        for d in deps {
            params.push(Param {
                ty: format!("{}Service", d.pascal),
                name: format!("{}Service", d.camel),
                import: Some(format!("{}.{}.service.{}Service", c.base, d.lower, d.pascal)),
                value: None,
            });
        }
        let mut client_fields: Vec<usize> = clients.iter().map(|(ci, _)| *ci).collect();
        client_fields.sort_unstable();
        client_fields.dedup();
        for &ci in &client_fields {
            let target = &self.plans[self.wiring.clients[ci].target];
            params.push(Param {
                ty: format!("{}Client", target.pascal),
                name: format!("{}Client", target.camel),
                import: Some(format!("{}.client.{}Client", c.base, target.pascal)),
                value: None,
            });
        }
        params.push(Param {
            ty: "AuditLog".into(),
            name: "auditLog".into(),
            import: Some(audit.clone()),
            value: None,
        });

        // The implementation.
        body.clear();
        fill(&mut body, SERVICE_IMPL_HEAD, &vars);
        for p in &params {
            body.push_str(&format!("    private final {} {};\n", p.ty, p.name));
        }
        body.push('\n');
        let ctor_params: Vec<String> = params.iter().map(|p| format!("{} {}", p.ty, p.name)).collect();
        body.push_str(&format!(
            "    public Default{}Service({}) {{\n",
            c.e,
            wrap_params(&ctor_params)
        ));
        for p in &params {
            body.push_str(&format!("        this.{0} = {0};\n", p.name));
        }
        body.push_str("    }\n");
        fill(&mut body, SERVICE_IMPL_READS, &vars);

        // create(…)
        let create = method_key(&imp, &format!("create(Create{}Request)", c.e));
        fill(&mut body, SERVICE_CREATE_HEAD, &vars);
        if validators {
            fill(
                &mut body,
                "        validators.forEach(validator -> validator.validate(«e»));\n",
                &vars,
            );
            self.call(
                &create,
                &c.key("service", "«E»Validator", "validate(«E»)"),
                CallStyle::Lambda,
            );
        }
        if let Some(d) = deps.first() {
            body.push_str(&format!(
                "        if (request.referenceId() != null) {{\n            {p}Dto related = {v}Service.get(request.referenceId());\n            log.debug(\"{e} {{}} refers to {w} {{}}\", request.code(), related.code());\n        }}\n",
                p = d.pascal,
                v = d.camel,
                e = c.e,
                w = d.words
            ));
            let dep_service = format!("{}.{}.service.{}Service", c.base, d.lower, d.pascal);
            let dep_dto = format!("{}.{}.web.dto.{}Dto", c.base, d.lower, d.pascal);
            self.call(
                &create,
                &method_key(&dep_service, "get(Long)"),
                CallStyle::Interface,
            );
            self.call(&create, &method_key(&dep_dto, "code()"), CallStyle::Local);
        }
        fill(&mut body, "        «E» saved = «e»Repository.save(«e»);\n", &vars);
        if !clients.is_empty() {
            body.push_str("        linkExternal(saved);\n");
            self.call(
                &create,
                &method_key(&imp, &format!("linkExternal({})", c.e)),
                CallStyle::Implicit,
            );
        }
        if f.events {
            body.push_str("        eventPublisher.publishCreated(saved);\n");
            self.call(
                &create,
                &c.key("events", "«E»EventPublisher", "publishCreated(«E»)"),
                CallStyle::Field,
            );
        }
        fill(&mut body, SERVICE_CREATE_TAIL, &vars);
        let req = c.ty("web.dto", "Create«E»Request");
        for accessor in ["code()", "amount()", "name()", "referenceId()"] {
            self.call(&create, &method_key(&req, accessor), CallStyle::Local);
        }
        self.call(
            &create,
            &method_key(&c.util("Preconditions"), "requireText(String, String)"),
            CallStyle::Static,
        );
        self.call(
            &create,
            &method_key(&c.util("Preconditions"), "requirePositive(BigDecimal, String)"),
            CallStyle::Static,
        );
        self.call(
            &create,
            &c.key("repository", "«E»Repository", "existsByCode(String)"),
            CallStyle::Field,
        );
        self.call(
            &create,
            &method_key(&c.util("Strings"), "normalize(String)"),
            CallStyle::Static,
        );
        self.call(
            &create,
            &method_key(
                &format!("{}.common.error.ConflictException", c.base),
                "<init>(String)",
            ),
            CallStyle::Constructor,
        );
        self.call(
            &create,
            &method_key(&entity, "<init>(String, String, BigDecimal)"),
            CallStyle::Constructor,
        );
        self.call(
            &create,
            &method_key(&entity, "setReferenceId(Long)"),
            CallStyle::Local,
        );
        self.call(
            &create,
            &method_key(&audit, "record(String, Long)"),
            CallStyle::Field,
        );
        self.call(&create, &method_key(&entity, "getId()"), CallStyle::Local);
        self.call(&create, &method_key(&entity, "getCode()"), CallStyle::Local);
        self.call(
            &create,
            &c.key("service", "«E»Mapper", "toDto(«E»)"),
            CallStyle::Field,
        );

        // changeStatus(…)
        let change = method_key(&imp, &format!("changeStatus(Long, {}Status, String)", c.e));
        fill(&mut body, SERVICE_CHANGE_HEAD, &vars);
        if f.jdbc {
            fill(
                &mut body,
                "        «e»JdbcRepository.recordTransition(id, previous.name(), status.name(), reason);\n",
                &vars,
            );
            self.call(
                &change,
                &c.key(
                    "repository",
                    "«E»JdbcRepository",
                    "recordTransition(Long, String, String, String)",
                ),
                CallStyle::Field,
            );
        }
        if f.events {
            body.push_str("        eventPublisher.publishStatusChanged(saved, previous);\n");
            self.call(
                &change,
                &c.key(
                    "events",
                    "«E»EventPublisher",
                    "publishStatusChanged(«E», «E»Status)",
                ),
                CallStyle::Field,
            );
        }
        fill(&mut body, SERVICE_CHANGE_TAIL, &vars);
        self.call(
            &change,
            &method_key(&c.util("Preconditions"), "requireNonNull(T, String)"),
            CallStyle::Static,
        );
        self.call(&change, &method_key(&imp, "load(Long)"), CallStyle::Implicit);
        self.call(&change, &method_key(&entity, "getStatus()"), CallStyle::Local);
        self.call(
            &change,
            &c.key("service", "«E»Mapper", "toDto(«E»)"),
            CallStyle::Field,
        );
        self.call(
            &change,
            &method_key(&entity, &format!("moveTo({}Status, String)", c.e)),
            CallStyle::Local,
        );
        self.call(
            &change,
            &method_key(&audit, "record(String, Long)"),
            CallStyle::Field,
        );
        self.call(&change, &method_key(&entity, "getId()"), CallStyle::Local);

        // The rest of the interface.
        fill(&mut body, SERVICE_IMPL_REST, &vars);
        let get_long = method_key(&imp, "get(Long)");
        self.call(&get_long, &method_key(&imp, "load(Long)"), CallStyle::Implicit);
        self.call(
            &get_long,
            &c.key("service", "«E»Mapper", "toDto(«E»)"),
            CallStyle::Field,
        );
        let get_code = method_key(&imp, "get(String)");
        self.call(
            &get_code,
            &method_key(&c.util("Preconditions"), "requireText(String, String)"),
            CallStyle::Static,
        );
        self.call(
            &get_code,
            &c.key("repository", "«E»Repository", "findByCode(String)"),
            CallStyle::Field,
        );
        self.call(
            &get_code,
            &method_key(&c.util("Strings"), "normalize(String)"),
            CallStyle::Static,
        );
        self.call(
            &get_code,
            &method_key(
                &format!("{}.common.error.NotFoundException", c.base),
                "<init>(String, Object)",
            ),
            CallStyle::Constructor,
        );
        self.call(
            &get_code,
            &c.key("service", "«E»Mapper", "toDto(«E»)"),
            CallStyle::Field,
        );
        let list = method_key(&imp, &format!("list({}Status, int)", c.e));
        self.call(
            &list,
            &c.key(
                "repository",
                "«E»Repository",
                "findTop100ByOrderByCreatedAtDesc()",
            ),
            CallStyle::Field,
        );
        self.call(
            &list,
            &c.key(
                "repository",
                "«E»Repository",
                "findByStatusOrderByCreatedAtDesc(«E»Status)",
            ),
            CallStyle::Field,
        );
        self.call(&list, &method_key(&entity, "isOpen()"), CallStyle::MethodRef);
        self.call(
            &list,
            &c.key("service", "«E»Mapper", "toDto(«E»)"),
            CallStyle::MethodRef,
        );
        let delete = method_key(&imp, "delete(Long)");
        self.call(&delete, &method_key(&imp, "load(Long)"), CallStyle::Implicit);
        self.call(&delete, &method_key(&entity, "isOpen()"), CallStyle::Local);
        self.call(
            &delete,
            &method_key(
                &format!("{}.common.error.ConflictException", c.base),
                "<init>(String)",
            ),
            CallStyle::Constructor,
        );
        self.call(
            &delete,
            &method_key(&audit, "record(String, Long)"),
            CallStyle::Field,
        );
        let expire = method_key(&imp, "expireStale(Duration)");
        self.call(
            &expire,
            &method_key(&c.util("Dates"), "nowUtc()"),
            CallStyle::Static,
        );
        self.call(
            &expire,
            &c.key(
                "repository",
                "«E»Repository",
                "findByStatusAndCreatedAtBefore(«E»Status, Instant)",
            ),
            CallStyle::Field,
        );
        self.call(
            &expire,
            &method_key(&entity, &format!("moveTo({}Status, String)", c.e)),
            CallStyle::Lambda,
        );
        self.call(
            &expire,
            &c.key("repository", "«E»Repository", "purge(«E»Status, Instant)"),
            CallStyle::Field,
        );
        let apply = method_key(&imp, "applyExternalUpdate(String, String)");
        self.call(
            &apply,
            &method_key(&c.util("Strings"), "isBlank(String)"),
            CallStyle::Static,
        );
        self.call(
            &apply,
            &c.key("repository", "«E»Repository", "findByCode(String)"),
            CallStyle::Field,
        );
        self.call(
            &apply,
            &method_key(&c.util("Strings"), "normalize(String)"),
            CallStyle::Static,
        );
        self.call(&apply, &method_key(&entity, "getStatus()"), CallStyle::Local);
        self.call(
            &apply,
            &method_key(&status, &format!("canMoveTo({}Status)", c.e)),
            CallStyle::Chained,
        );
        self.call(
            &apply,
            &method_key(&entity, &format!("moveTo({}Status, String)", c.e)),
            CallStyle::Local,
        );
        self.call(
            &apply,
            &method_key(&audit, "record(String, Long)"),
            CallStyle::Field,
        );
        self.call(&apply, &method_key(&entity, "getId()"), CallStyle::Local);
        let count_open = method_key(&imp, "countOpen()");
        self.call(
            &count_open,
            &c.key("repository", "«E»Repository", "countByStatus(«E»Status)"),
            CallStyle::Field,
        );
        let load = method_key(&imp, "load(Long)");
        self.call(
            &load,
            &method_key(
                &format!("{}.common.error.NotFoundException", c.base),
                "<init>(String, Object)",
            ),
            CallStyle::Constructor,
        );

        // dashboard(): the counts of this feature and of the features it depends on.
        let dashboard = method_key(&imp, "dashboard()");
        fill(&mut body, SERVICE_DASHBOARD_HEAD, &vars);
        self.call(
            &dashboard,
            &c.key("repository", "«E»Repository", "countByStatus(«E»Status)"),
            CallStyle::Field,
        );
        for d in deps {
            body.push_str(&format!(
                "        counts.put(\"{k}.open\", {v}Service.countOpen());\n",
                k = d.kebab,
                v = d.camel
            ));
            self.call(
                &dashboard,
                &method_key(
                    &format!("{}.{}.service.{}Service", c.base, d.lower, d.pascal),
                    "countOpen()",
                ),
                CallStyle::Interface,
            );
        }
        body.push_str("        return counts;\n    }\n");

        if f.jdbc {
            fill(&mut body, SERVICE_IMPL_JDBC, &vars);
            let history = method_key(&imp, "history(Long)");
            self.call(&history, &method_key(&imp, "load(Long)"), CallStyle::Implicit);
            self.call(
                &history,
                &c.key("repository", "«E»JdbcRepository", "history(Long)"),
                CallStyle::Field,
            );
            let summary = method_key(&imp, "summary(Instant)");
            self.call(
                &summary,
                &method_key(&c.util("Dates"), "nowUtc()"),
                CallStyle::Static,
            );
            self.call(
                &summary,
                &c.key("repository", "«E»JdbcRepository", "summarizeSince(Instant)"),
                CallStyle::Field,
            );
        }

        // linkExternal(…): the calls to other products' endpoints this feature makes.
        let mut client_imports: Vec<String> = Vec::new();
        if !clients.is_empty() {
            let link = method_key(&imp, &format!("linkExternal({})", c.e));
            fill(&mut body, SERVICE_LINK_HEAD, &vars);
            self.call(&link, &method_key(&entity, "getReferenceId()"), CallStyle::Local);
            for (ci, m) in clients {
                let plan = &self.wiring.clients[*ci];
                let target = &self.plans[plan.target];
                let tf = &target.features[m.feature].n;
                let client_ty = format!("{}.client.{}Client", c.base, target.pascal);
                let view = format!("{}{}View", target.pascal, tf.pascal);
                let view_fqn = format!("{}.client.dto.{view}", c.base);
                let field = format!("{}Client", target.camel);
                let (line, sig) = match m.kind {
                    RouteKind::Get => (
                        format!(
                            "        {view} {v} = {field}.get{e}({ent}.getReferenceId());\n        if ({v} != null && \"CLOSED\".equals({v}.status())) {{\n            log.warn(\"{w} {{}} is closed in {tp}\", {v}.code());\n        }}\n",
                            v = camel_case(&format!("{}-{}", target.name, tf.kebab)),
                            e = tf.pascal,
                            ent = c.v,
                            w = tf.words,
                            tp = target.name
                        ),
                        format!("get{}(Long)", tf.pascal),
                    ),
                    RouteKind::GetByCode => (
                        format!(
                            "        {view} {v}ByCode = {field}.find{e}ByCode({ent}.getCode());\n        log.debug(\"{w} for {{}}: {{}}\", {ent}.getCode(), {v}ByCode);\n",
                            v = camel_case(&format!("{}-{}", target.name, tf.kebab)),
                            e = tf.pascal,
                            ent = c.v,
                            w = tf.words
                        ),
                        format!("find{}ByCode(String)", tf.pascal),
                    ),
                    RouteKind::Create => (
                        format!(
                            "        {field}.create{e}(new {view}(null, {ent}.getCode(), {ent}.getName(), \"NEW\", {ent}.getAmount()));\n",
                            e = tf.pascal,
                            ent = c.v
                        ),
                        format!("create{}({view})", tf.pascal),
                    ),
                    _ => (
                        format!(
                            "        {field}.change{e}Status({ent}.getReferenceId(), \"ACTIVE\");\n",
                            e = tf.pascal,
                            ent = c.v
                        ),
                        format!("change{}Status(Long, String)", tf.pascal),
                    ),
                };
                body.push_str(&line);
                self.call(&link, &method_key(&client_ty, &sig), CallStyle::Field);
                match m.kind {
                    RouteKind::Get => {
                        self.call(&link, &method_key(&view_fqn, "status()"), CallStyle::Local);
                        self.call(&link, &method_key(&view_fqn, "code()"), CallStyle::Local);
                    }
                    RouteKind::GetByCode => {
                        self.call(&link, &method_key(&entity, "getCode()"), CallStyle::Local)
                    }
                    RouteKind::Create => {
                        self.call(
                            &link,
                            &method_key(&view_fqn, "<init>(Long, String, String, String, BigDecimal)"),
                            CallStyle::Constructor,
                        );
                        for g in ["getCode()", "getName()", "getAmount()"] {
                            self.call(&link, &method_key(&entity, g), CallStyle::Local);
                        }
                    }
                    _ => {}
                }
                client_imports.push(view_fqn);
            }
            body.push_str("    }\n");
        }

        fill(&mut body, SERVICE_IMPL_TAIL, &vars);
        let mut imps = imports(&[
            &entity,
            &status,
            &dto,
            &request,
            &format!("{}.common.error.ConflictException", c.base),
            &format!("{}.common.error.NotFoundException", c.base),
            &c.util("Dates"),
            &c.util("Preconditions"),
            &c.util("Strings"),
            "java.time.Duration",
            "java.time.Instant",
            "java.util.LinkedHashMap",
            "java.util.List",
            "java.util.Map",
            "java.util.Optional",
            "java.util.stream.Collectors",
            "org.slf4j.Logger",
            "org.slf4j.LoggerFactory",
            "org.springframework.stereotype.Service",
            "org.springframework.transaction.annotation.Transactional",
        ]);
        imps.extend(params.iter().filter_map(|p| p.import.clone()));
        for d in deps.iter().take(1) {
            imps.push(format!("{}.{}.web.dto.{}Dto", c.base, d.lower, d.pascal));
        }
        imps.extend(client_imports);
        self.java(
            &service_pkg,
            &format!("Default{}Service", c.e),
            false,
            &imps,
            &body,
        )?;
        // Writes through the inherited `save`, reads through the inherited `findById`.
        if let Some(t) = self.truth.tables.iter_mut().find(|t| t.name == c.table) {
            t.writers.push(create);
            t.writers.push(change);
            t.readers.push(load);
        }
        Ok(params)
    }

    fn controller(&mut self, c: &FeatureCtx, f: &FeaturePlan) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, CONTROLLER_HEAD, &vars);
        let controller = c.ty("web", "«E»Controller");
        let service = c.ty("service", "«E»Service");
        let mut imps = imports(&[
            &c.ty("domain", "«E»Status"),
            &c.ty("service", "«E»Service"),
            &c.ty("web.dto", "«E»Dto"),
            &c.ty("web.dto", "Create«E»Request"),
            &c.util("Strings"),
            "java.util.List",
            "org.slf4j.Logger",
            "org.slf4j.LoggerFactory",
            "org.springframework.web.bind.annotation.GetMapping",
            "org.springframework.web.bind.annotation.PathVariable",
            "org.springframework.web.bind.annotation.RequestMapping",
            "org.springframework.web.bind.annotation.RequestParam",
            "org.springframework.web.bind.annotation.RestController",
        ]);
        for &kind in &f.routes {
            let (verb, path, sig) = kind.route();
            let handler = method_key(&controller, &sig.replace("«E»", &c.e));
            self.truth.endpoints.push(PlantedEndpoint {
                verb: verb.to_string(),
                path: format!("{}{}", c.route, path),
                handler: handler.clone(),
            });
            let (tpl, calls): (&str, &[(&str, &str, CallStyle)]) = match kind {
                RouteKind::Get => (CONTROLLER_GET, &[("service", "get(Long)", CallStyle::Interface)]),
                RouteKind::List => (
                    CONTROLLER_LIST,
                    &[
                        ("util", "Strings.isBlank(String)", CallStyle::Static),
                        ("util", "Strings.normalize(String)", CallStyle::Static),
                        ("service", "list(«E»Status, int)", CallStyle::Interface),
                    ],
                ),
                RouteKind::GetByCode => (
                    CONTROLLER_BY_CODE,
                    &[("service", "get(String)", CallStyle::Interface)],
                ),
                RouteKind::Create => {
                    imps.extend(imports(&[
                        "jakarta.validation.Valid",
                        "org.springframework.http.HttpStatus",
                        "org.springframework.web.bind.annotation.PostMapping",
                        "org.springframework.web.bind.annotation.RequestBody",
                        "org.springframework.web.bind.annotation.ResponseStatus",
                    ]));
                    (
                        CONTROLLER_CREATE,
                        &[
                            ("service", "create(Create«E»Request)", CallStyle::Interface),
                            ("request", "code()", CallStyle::Local),
                        ],
                    )
                }
                RouteKind::ChangeStatus => {
                    imps.extend(imports(&[
                        &c.ty("web.dto", "Update«E»StatusRequest"),
                        "jakarta.validation.Valid",
                        "org.springframework.web.bind.annotation.PutMapping",
                        "org.springframework.web.bind.annotation.RequestBody",
                    ]));
                    (
                        CONTROLLER_CHANGE,
                        &[
                            (
                                "service",
                                "changeStatus(Long, «E»Status, String)",
                                CallStyle::Interface,
                            ),
                            ("update", "status()", CallStyle::Local),
                            ("update", "reason()", CallStyle::Local),
                        ],
                    )
                }
                RouteKind::Delete => {
                    imps.extend(imports(&[
                        "org.springframework.http.HttpStatus",
                        "org.springframework.web.bind.annotation.DeleteMapping",
                        "org.springframework.web.bind.annotation.ResponseStatus",
                    ]));
                    (
                        CONTROLLER_DELETE,
                        &[("service", "delete(Long)", CallStyle::Interface)],
                    )
                }
                RouteKind::History => {
                    imps.push(c.ty("repository", "«E»JdbcRepository"));
                    (
                        CONTROLLER_HISTORY,
                        &[("service", "history(Long)", CallStyle::Interface)],
                    )
                }
                RouteKind::Summary => {
                    imps.extend(imports(&[
                        &c.ty("repository", "«E»JdbcRepository"),
                        "java.time.Instant",
                        "org.springframework.format.annotation.DateTimeFormat",
                    ]));
                    (
                        CONTROLLER_SUMMARY,
                        &[("service", "summary(Instant)", CallStyle::Interface)],
                    )
                }
                RouteKind::Dashboard => {
                    imps.push("java.util.Map".into());
                    (
                        CONTROLLER_DASHBOARD,
                        &[("service", "dashboard()", CallStyle::Interface)],
                    )
                }
            };
            fill(&mut body, tpl, &vars);
            for (on, sig, style) in calls {
                let callee = match *on {
                    "service" => method_key(&service, &sig.replace("«E»", &c.e)),
                    "request" => c.key("web.dto", "Create«E»Request", sig),
                    "update" => c.key("web.dto", "Update«E»StatusRequest", sig),
                    _ => format!("{}.common.util.{sig}", c.base),
                };
                self.call(&handler, &callee, *style);
            }
        }
        body.push_str("}\n");
        self.java(
            &format!("{}.web", c.pkg),
            &format!("{}Controller", c.e),
            false,
            &imps,
            &body,
        )
    }

    fn job(&mut self, c: &FeatureCtx) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        let cron = self.rng.random_bool(0.6);
        fill(
            &mut body,
            if cron { JOB_CRON_JAVA } else { JOB_DELAY_JAVA },
            &vars,
        );
        let imps = imports(&[
            &c.ty("service", "«E»Service"),
            "java.time.Duration",
            "org.slf4j.Logger",
            "org.slf4j.LoggerFactory",
            "org.springframework.beans.factory.annotation.Value",
            "org.springframework.scheduling.annotation.Scheduled",
            "org.springframework.stereotype.Component",
        ]);
        self.java(
            &format!("{}.jobs", c.pkg),
            &format!("{}MaintenanceJob", c.e),
            false,
            &imps,
            &body,
        )?;
        let run = c.key("jobs", "«E»MaintenanceJob", "expireStale()");
        self.call(
            &run,
            &c.key("service", "«E»Service", "expireStale(Duration)"),
            CallStyle::Interface,
        );
        self.truth.scheduled.push(run);
        self.config.push(if cron {
            (format!("jobs.{}.cron", c.kebab), "\"0 */15 * * * *\"".into())
        } else {
            (format!("jobs.{}.delay", c.kebab), "PT5M".into())
        });
        Ok(())
    }

    fn service_test(
        &mut self,
        c: &FeatureCtx,
        f: &FeaturePlan,
        params: &[Param],
        wildcard: bool,
    ) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, SERVICE_TEST_HEAD, &vars);
        for p in params.iter().filter(|p| p.value.is_none()) {
            body.push_str(&format!("    @Mock\n    private {} {};\n\n", p.ty, p.name));
        }
        body.push_str(&format!("    private Default{}Service service;\n\n", c.e));
        body.push_str("    @BeforeEach\n    void setUp() {\n");
        let args: Vec<String> = params
            .iter()
            .map(|p| p.value.clone().unwrap_or_else(|| p.name.clone()))
            .collect();
        body.push_str(&format!(
            "        service = new Default{}Service({});\n    }}\n",
            c.e,
            wrap_args(&args)
        ));
        let test_ty = c.ty("service", "Default«E»ServiceTest");
        let imp = c.ty("service", "Default«E»Service");
        let set_up = method_key(&test_ty, "setUp()");
        let ctor_sig: Vec<String> = params.iter().map(|p| simple_type(&p.ty)).collect();
        self.call(
            &set_up,
            &method_key(&imp, &format!("<init>({})", ctor_sig.join(", "))),
            CallStyle::Constructor,
        );
        fill(&mut body, SERVICE_TEST_BODY, &vars);
        let repo = c.ty("repository", "«E»Repository");
        let req = c.ty("web.dto", "Create«E»Request");
        let dto = c.ty("web.dto", "«E»Dto");
        let entity = c.ty("domain", "«E»");
        let t1 = method_key(&test_ty, "createRejectsDuplicateCodes()");
        self.call(&t1, &method_key(&repo, "existsByCode(String)"), CallStyle::Field);
        self.call(
            &t1,
            &method_key(&imp, &format!("create(Create{}Request)", c.e)),
            CallStyle::Field,
        );
        self.call(
            &t1,
            &method_key(&req, "<init>(String, String, BigDecimal, Long)"),
            CallStyle::Constructor,
        );
        let t2 = method_key(&test_ty, "createSavesTheNormalizedCode()");
        self.call(
            &t2,
            &method_key(&imp, &format!("create(Create{}Request)", c.e)),
            CallStyle::Field,
        );
        self.call(
            &t2,
            &method_key(&req, "<init>(String, String, BigDecimal, Long)"),
            CallStyle::Constructor,
        );
        self.call(&t2, &method_key(&dto, "code()"), CallStyle::Local);
        self.call(&t2, &method_key(&dto, "amount()"), CallStyle::Local);
        let t3 = method_key(&test_ty, "getFailsForUnknownIds()");
        self.call(&t3, &method_key(&imp, "get(Long)"), CallStyle::Field);
        let t4 = method_key(&test_ty, "expireStaleMovesOldEntries()");
        self.call(
            &t4,
            &method_key(&entity, "<init>(String, String, BigDecimal)"),
            CallStyle::Constructor,
        );
        self.call(
            &t4,
            &method_key(
                &repo,
                &format!("findByStatusAndCreatedAtBefore({}Status, Instant)", c.e),
            ),
            CallStyle::Field,
        );
        self.call(&t4, &method_key(&imp, "expireStale(Duration)"), CallStyle::Field);
        self.call(&t4, &method_key(&entity, "getStatus()"), CallStyle::Local);
        if f.events {
            fill(&mut body, SERVICE_TEST_EVENTS, &vars);
            let t5 = method_key(&test_ty, "createPublishesAnEvent()");
            self.call(
                &t5,
                &method_key(&imp, &format!("create(Create{}Request)", c.e)),
                CallStyle::Field,
            );
            self.call(
                &t5,
                &method_key(&req, "<init>(String, String, BigDecimal, Long)"),
                CallStyle::Constructor,
            );
            self.call(
                &t5,
                &c.key("events", "«E»EventPublisher", "publishCreated(«E»)"),
                CallStyle::MockVerify,
            );
        }
        body.push_str("}\n");
        let mut imps: Vec<String> = params.iter().filter_map(|p| p.import.clone()).collect();
        imps.extend(imports(&[
            &entity,
            &c.ty("domain", "«E»Status"),
            &dto,
            &req,
            &format!("{}.common.error.ConflictException", c.base),
            &format!("{}.common.error.NotFoundException", c.base),
            "java.math.BigDecimal",
            "java.time.Duration",
            "java.time.Instant",
            "java.util.List",
            "java.util.Optional",
            "org.junit.jupiter.api.BeforeEach",
            "org.junit.jupiter.api.Test",
            "org.junit.jupiter.api.extension.ExtendWith",
            "org.mockito.Mock",
            "org.mockito.junit.jupiter.MockitoExtension",
        ]));
        if wildcard {
            imps.extend(imports(&[
                "static org.junit.jupiter.api.Assertions.*",
                "static org.mockito.ArgumentMatchers.*",
                "static org.mockito.Mockito.*",
            ]));
        } else {
            imps.extend(imports(&[
                "static org.junit.jupiter.api.Assertions.assertEquals",
                "static org.junit.jupiter.api.Assertions.assertThrows",
                "static org.mockito.ArgumentMatchers.any",
                "static org.mockito.Mockito.never",
                "static org.mockito.Mockito.verify",
                "static org.mockito.Mockito.when",
            ]));
        }
        self.java(
            &format!("{}.service", c.pkg),
            &format!("Default{}ServiceTest", c.e),
            true,
            &imps,
            &body,
        )
    }

    fn controller_test(&mut self, c: &FeatureCtx, wildcard: bool) -> io::Result<()> {
        let vars = c.vars();
        let mut body = String::new();
        fill(&mut body, CONTROLLER_TEST_JAVA, &vars);
        let mut imps = imports(&[
            &c.ty("service", "«E»Service"),
            &c.ty("web.dto", "«E»Dto"),
            &format!("{}.common.error.NotFoundException", c.base),
            "java.math.BigDecimal",
            "java.time.Instant",
            "org.junit.jupiter.api.Test",
            "org.springframework.beans.factory.annotation.Autowired",
            "org.springframework.boot.test.autoconfigure.web.servlet.WebMvcTest",
            "org.springframework.boot.test.mock.mockito.MockBean",
            "org.springframework.test.web.servlet.MockMvc",
        ]);
        if wildcard {
            imps.extend(imports(&[
                "static org.mockito.Mockito.*",
                "static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.*",
                "static org.springframework.test.web.servlet.result.MockMvcResultMatchers.*",
            ]));
        } else {
            imps.extend(imports(&[
                "static org.mockito.Mockito.when",
                "static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get",
                "static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath",
                "static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status",
            ]));
        }
        self.java(
            &format!("{}.web", c.pkg),
            &format!("{}ControllerTest", c.e),
            true,
            &imps,
            &body,
        )?;
        let test_ty = c.ty("web", "«E»ControllerTest");
        let service = c.ty("service", "«E»Service");
        let t1 = method_key(&test_ty, "getReturnsTheEntry()");
        self.call(&t1, &method_key(&service, "get(Long)"), CallStyle::Interface);
        self.call(
            &t1,
            &c.key(
                "web.dto",
                "«E»Dto",
                "<init>(Long, String, String, String, BigDecimal, Long, Instant)",
            ),
            CallStyle::Constructor,
        );
        let t2 = method_key(&test_ty, "unknownEntriesAreNotFound()");
        self.call(&t2, &method_key(&service, "get(Long)"), CallStyle::Interface);
        self.call(
            &t2,
            &method_key(
                &format!("{}.common.error.NotFoundException", c.base),
                "<init>(String, Object)",
            ),
            CallStyle::Constructor,
        );
        Ok(())
    }

    fn feature_ddl(
        &mut self,
        c: &FeatureCtx,
        extras: &[usize],
        parent: Option<&(String, Names)>,
        jdbc: bool,
    ) {
        let mut sql = format!(
            "CREATE TABLE {t} (\n    id BIGSERIAL PRIMARY KEY,\n    code VARCHAR(64) NOT NULL UNIQUE,\n    name VARCHAR(200) NOT NULL,\n    status VARCHAR(32) NOT NULL,\n    amount NUMERIC(14, 2) NOT NULL,\n    reference_id BIGINT,\n    status_reason VARCHAR(200),\n",
            t = c.table
        );
        if let Some((_, pn)) = parent {
            sql.push_str(&format!(
                "    {s}_id BIGINT REFERENCES {t} (id),\n",
                s = pn.snake,
                t = pn.plural_snake
            ));
        }
        for &x in extras {
            let (name, _, sql_type, _) = EXTRA_FIELDS[x];
            sql.push_str(&format!("    {} {sql_type},\n", snake_of(name)));
        }
        sql.push_str(&format!(
            "    created_at TIMESTAMP NOT NULL,\n    updated_at TIMESTAMP,\n    version BIGINT NOT NULL DEFAULT 0\n);\n\nCREATE INDEX ix_{t}_status ON {t} (status, created_at);\n\n",
            t = c.table
        ));
        if jdbc {
            sql.push_str(&format!(
                "CREATE TABLE {s}_status_history (\n    id BIGSERIAL PRIMARY KEY,\n    {s}_id BIGINT NOT NULL REFERENCES {t} (id),\n    from_status VARCHAR(32) NOT NULL,\n    to_status VARCHAR(32) NOT NULL,\n    reason VARCHAR(200),\n    changed_at TIMESTAMP NOT NULL\n);\n\nCREATE INDEX ix_{s}_status_history_{s} ON {s}_status_history ({s}_id, changed_at);\n\n",
                s = c.snake,
                t = c.table
            ));
        }
        self.ddl.push_str(&sql);
    }

    // -- clients and listeners -----------------------------------------------------------

    fn write_clients(&mut self) -> io::Result<()> {
        let base = self.me.base.clone();
        let client_pkg = format!("{base}.client");
        let clients = self.wiring.clients.clone();
        for plan in &clients {
            let target = &self.plans[plan.target];
            let class = format!("{}Client", target.pascal);
            let client_ty = format!("{client_pkg}.{class}");
            let mut imps = imports(&[
                "org.slf4j.Logger",
                "org.slf4j.LoggerFactory",
                "org.springframework.beans.factory.annotation.Value",
                "org.springframework.stereotype.Component",
            ]);
            let mut body = String::new();
            body.push_str(&format!(
                "/**\n * Calls {svc}: the base URL comes from {key}, each path is the one\n * {svc} serves.\n */\n@Component\npublic class {class} {{\n\n    private static final Logger log = LoggerFactory.getLogger({class}.class);\n",
                svc = target.service,
                key = format_args!("clients.{}.url", target.name),
            ));
            let value = format!("@Value(\"${{clients.{}.url}}\")", target.name);
            if plan.web_client {
                imps.extend(imports(&[
                    "java.time.Duration",
                    "org.springframework.web.reactive.function.client.WebClient",
                ]));
                body.push_str(&format!(
                    "    private static final Duration TIMEOUT = Duration.ofSeconds(3);\n\n    private final WebClient webClient;\n\n    public {class}(WebClient.Builder builder, {value} String baseUrl) {{\n        this.webClient = builder.baseUrl(baseUrl).build();\n    }}\n"
                ));
            } else if plan.field_value {
                imps.push("org.springframework.web.client.RestTemplate".into());
                body.push_str(&format!(
                    "\n    private final RestTemplate restTemplate;\n\n    {value}\n    private String baseUrl;\n\n    public {class}(RestTemplate restTemplate) {{\n        this.restTemplate = restTemplate;\n    }}\n"
                ));
            } else {
                imps.push("org.springframework.web.client.RestTemplate".into());
                body.push_str(&format!(
                    "\n    private final RestTemplate restTemplate;\n    private final String baseUrl;\n\n    public {class}(RestTemplate restTemplate, {value} String baseUrl) {{\n        this.restTemplate = restTemplate;\n        this.baseUrl = baseUrl;\n    }}\n"
                ));
            }
            let mut views: Vec<(String, String)> = Vec::new();
            for m in &plan.methods {
                let tf = &target.features[m.feature];
                let route = target.route_base(&tf.n);
                let (verb, sub, _) = m.kind.route();
                let path = format!("{route}{sub}");
                let view = format!("{}{}View", target.pascal, tf.n.pascal);
                let e = &tf.n.pascal;
                let w = &tf.n.words;
                // Clients name path variables their own way; the route is the same.
                let id_var = if self.rng.random_bool(0.5) {
                    "id".to_string()
                } else {
                    format!("{}Id", tf.n.camel)
                };
                let client_path = path.replace("{id}", &format!("{{{id_var}}}"));
                let (sig, text) = match (m.kind, plan.web_client) {
                    (RouteKind::Get, false) => (
                        format!("get{e}(Long)"),
                        format!("    public {view} get{e}(Long id) {{\n        log.debug(\"GET {w} {{}} from {t}\", id);\n        return restTemplate.getForObject(baseUrl + \"{client_path}\", {view}.class, id);\n    }}\n", t = target.name),
                    ),
                    (RouteKind::GetByCode, false) => (
                        format!("find{e}ByCode(String)"),
                        format!("    public {view} find{e}ByCode(String code) {{\n        if (code == null || code.isBlank()) {{\n            return null;\n        }}\n        return restTemplate.getForObject(baseUrl + \"{client_path}\", {view}.class, code);\n    }}\n"),
                    ),
                    (RouteKind::Create, false) => (
                        format!("create{e}({view})"),
                        format!("    public {view} create{e}({view} body) {{\n        log.info(\"Creating {w} {{}} in {t}\", body.code());\n        return restTemplate.postForObject(baseUrl + \"{client_path}\", body, {view}.class);\n    }}\n", t = target.name),
                    ),
                    (_, false) => {
                        imps.extend(imports(&["java.util.Map", "org.springframework.http.HttpEntity", "org.springframework.http.HttpMethod"]));
                        (
                            format!("change{e}Status(Long, String)"),
                            format!("    public void change{e}Status(Long id, String status) {{\n        HttpEntity<Map<String, String>> request = new HttpEntity<>(Map.of(\"status\", status, \"reason\", \"{svc}\"));\n        restTemplate.exchange(baseUrl + \"{client_path}\", HttpMethod.PUT, request, Void.class, id);\n    }}\n", svc = self.me.service),
                        )
                    }
                    (RouteKind::Get, true) => (
                        format!("get{e}(Long)"),
                        format!("    public {view} get{e}(Long id) {{\n        log.debug(\"GET {w} {{}} from {t}\", id);\n        return webClient.get()\n                .uri(\"{client_path}\", id)\n                .retrieve()\n                .bodyToMono({view}.class)\n                .timeout(TIMEOUT)\n                .block();\n    }}\n", t = target.name),
                    ),
                    (RouteKind::GetByCode, true) => (
                        {
                            imps.push("reactor.core.publisher.Mono".into());
                            format!("find{e}ByCode(String)")
                        },
                        format!("    public {view} find{e}ByCode(String code) {{\n        return webClient.get()\n                .uri(\"{client_path}\", code)\n                .retrieve()\n                .bodyToMono({view}.class)\n                .timeout(TIMEOUT)\n                .onErrorResume(error -> {{\n                    log.warn(\"{w} {{}} not found: {{}}\", code, error.getMessage());\n                    return Mono.<{view}>empty();\n                }})\n                .block();\n    }}\n"),
                    ),
                    (RouteKind::Create, true) => (
                        format!("create{e}({view})"),
                        format!("    public {view} create{e}({view} body) {{\n        return webClient.post()\n                .uri(\"{client_path}\")\n                .bodyValue(body)\n                .retrieve()\n                .bodyToMono({view}.class)\n                .timeout(TIMEOUT)\n                .block();\n    }}\n"),
                    ),
                    (_, true) => {
                        imps.push("java.util.Map".into());
                        (
                            format!("change{e}Status(Long, String)"),
                            format!("    public void change{e}Status(Long id, String status) {{\n        webClient.put()\n                .uri(\"{client_path}\", id)\n                .bodyValue(Map.of(\"status\", status, \"reason\", \"{svc}\"))\n                .retrieve()\n                .toBodilessEntity()\n                .timeout(TIMEOUT)\n                .block();\n    }}\n", svc = self.me.service),
                        )
                    }
                };
                body.push('\n');
                body.push_str(&text);
                let caller = method_key(&client_ty, &sig);
                if m.kind == RouteKind::Create && !plan.web_client {
                    self.call(
                        &caller,
                        &method_key(&format!("{client_pkg}.dto.{view}"), "code()"),
                        CallStyle::Local,
                    );
                }
                self.truth.http_calls.push(PlantedHttpCall {
                    caller,
                    verb: verb.to_string(),
                    target_product: target.name.clone(),
                    target_service: target.service.clone(),
                    path,
                    client: if plan.web_client {
                        "web-client"
                    } else {
                        "rest-template"
                    },
                    base_url: if plan.web_client {
                        "builder baseUrl(@Value constructor parameter)"
                    } else if plan.field_value {
                        "@Value field"
                    } else {
                        "@Value constructor parameter"
                    },
                });
                imps.push(format!("{client_pkg}.dto.{view}"));
                if !views.iter().any(|(v, _)| *v == view) {
                    views.push((view, tf.n.words.clone()));
                }
            }
            body.push_str("}\n");
            self.java(&client_pkg, &class, false, &imps, &body)?;
            for (view, words) in views {
                let text = format!(
                    "/** A {words} as {svc} returns it. */\npublic record {view}(Long id, String code, String name, String status, BigDecimal amount) {{\n\n    public boolean isClosed() {{\n        return \"CLOSED\".equals(status);\n    }}\n}}\n",
                    svc = target.service
                );
                self.java(
                    &format!("{client_pkg}.dto"),
                    &view,
                    false,
                    &imports(&["java.math.BigDecimal"]),
                    &text,
                )?;
            }
            let port = if plan.port { ":8080" } else { "" };
            self.config.push((
                format!("clients.{}.url", target.name),
                format!("http://{}{port}", target.service),
            ));
        }
        Ok(())
    }

    fn write_listeners(&mut self) -> io::Result<()> {
        let base = self.me.base.clone();
        let pkg = format!("{base}.messaging");
        let listeners = self.wiring.listeners.clone();
        for l in &listeners {
            let source = &self.plans[l.source];
            let sf = &source.features[l.feature].n;
            let topic = source.topic(sf);
            let handler_names = self.entities[l.handler].1.clone();
            let message = format!("{}{}Message", source.pascal, sf.pascal);
            let class = format!("{}{}EventsListener", source.pascal, sf.pascal);
            let topic_attr = if l.config_topic {
                let key = format!("{}-{}-events", source.name, sf.kebab);
                self.config.push((format!("topics.inbound.{key}"), topic.clone()));
                format!("${{topics.inbound.{key}}}")
            } else {
                topic.clone()
            };
            let service_ty = format!(
                "{base}.{}.service.{}Service",
                handler_names.lower, handler_names.pascal
            );
            let body = format!(
                r#"/** Applies {words} events of {src} to the {hw} they refer to. */
@Component
public class {class} {{

    private static final Logger log = LoggerFactory.getLogger({class}.class);

    private final {hp}Service {hv}Service;
    private final AuditLog auditLog;

    public {class}({hp}Service {hv}Service, AuditLog auditLog) {{
        this.{hv}Service = {hv}Service;
        this.auditLog = auditLog;
    }}

    @KafkaListener(topics = "{topic_attr}", groupId = "{svc}")
    public void on{e}Event({message} message) {{
        if (message == null || Strings.isBlank(message.code())) {{
            log.warn("Ignoring a {words} event without a code");
            return;
        }}
        int updated = {hv}Service.applyExternalUpdate(message.code(), message.status());
        if (updated == 0) {{
            log.debug("{words} event {{}} ({{}}) matched nothing", message.code(), message.type());
            return;
        }}
        auditLog.record("{upper}_EVENT_APPLIED", message.code());
    }}
}}
"#,
                words = sf.words,
                src = source.service,
                hw = handler_names.words,
                hp = handler_names.pascal,
                hv = handler_names.camel,
                svc = self.me.service,
                e = sf.pascal,
                upper = format!("{}_{}", source.name, sf.snake).to_uppercase(),
            );
            let imps = imports(&[
                &format!("{base}.common.audit.AuditLog"),
                &format!("{base}.common.util.Strings"),
                &service_ty,
                "org.slf4j.Logger",
                "org.slf4j.LoggerFactory",
                "org.springframework.kafka.annotation.KafkaListener",
                "org.springframework.stereotype.Component",
            ]);
            self.java(&pkg, &class, false, &imps, &body)?;
            let record = format!(
                "/** The {words} event {src} publishes on {topic}. */\npublic record {message}(String type, Long id, String code, String status, BigDecimal amount, Instant occurredAt) {{\n}}\n",
                words = sf.words,
                src = source.service,
            );
            self.java(
                &pkg,
                &message,
                false,
                &imports(&["java.math.BigDecimal", "java.time.Instant"]),
                &record,
            )?;
            let caller = method_key(
                &format!("{pkg}.{class}"),
                &format!("on{}Event({message})", sf.pascal),
            );
            let msg = format!("{pkg}.{message}");
            self.call(
                &caller,
                &method_key(&format!("{base}.common.util.Strings"), "isBlank(String)"),
                CallStyle::Static,
            );
            self.call(&caller, &method_key(&msg, "code()"), CallStyle::Local);
            self.call(&caller, &method_key(&msg, "status()"), CallStyle::Local);
            self.call(&caller, &method_key(&msg, "type()"), CallStyle::Local);
            self.call(
                &caller,
                &method_key(&service_ty, "applyExternalUpdate(String, String)"),
                CallStyle::Interface,
            );
            self.call(
                &caller,
                &method_key(&format!("{base}.common.audit.AuditLog"), "record(String, String)"),
                CallStyle::Field,
            );
            self.truth.consumes.push(PlantedTopicUse {
                topic,
                method: caller,
                written: if l.config_topic {
                    "config placeholder"
                } else {
                    "literal"
                },
            });
        }
        Ok(())
    }

    // -- build file, configuration, migration ---------------------------------------------

    fn write_resources(&mut self) -> io::Result<()> {
        let me = self.me;
        let vars: [(&str, &str); 4] = [
            ("product", &me.name),
            ("svc", &me.service),
            ("P", &me.pascal),
            ("DB", &me.name.to_uppercase()),
        ];
        let mut pom = String::new();
        fill(&mut pom, POM_XML, &vars);
        self.write("pom.xml", &pom)?;
        self.write(".gitignore", "target/\n*.iml\n.idea/\n")?;

        let mut yml = String::new();
        fill(&mut yml, APPLICATION_YML, &vars);
        let mut tree = YamlMap::default();
        tree.entry(&format!("{}.page-size", me.name), "50");
        for (path, value) in std::mem::take(&mut self.config) {
            tree.entry(&path, &value);
        }
        tree.write(&mut yml, 0);
        self.write("src/main/resources/application.yml", &yml)?;

        let mut sql = format!(
            "-- Schema of {}: one table per entity, the audit log, status histories.\n\n",
            me.service
        );
        sql.push_str(&std::mem::take(&mut self.ddl));
        self.write("src/main/resources/db/migration/V1__init.sql", &sql)
    }
}

/// Configuration entries as nested YAML maps, keys sorted, top-level sections apart.
#[derive(Default)]
struct YamlMap(std::collections::BTreeMap<String, YamlNode>);

enum YamlNode {
    Value(String),
    Map(YamlMap),
}

impl YamlMap {
    /// Sets `a.b.c` to `value` (a later value of the same key wins).
    fn entry(&mut self, path: &str, value: &str) {
        match path.split_once('.') {
            None => {
                self.0
                    .insert(path.to_string(), YamlNode::Value(value.to_string()));
            }
            Some((head, rest)) => {
                let node = self
                    .0
                    .entry(head.to_string())
                    .or_insert_with(|| YamlNode::Map(YamlMap::default()));
                if let YamlNode::Value(_) = node {
                    *node = YamlNode::Map(YamlMap::default());
                }
                if let YamlNode::Map(map) = node {
                    map.entry(rest, value);
                }
            }
        }
    }

    fn write(&self, out: &mut String, depth: usize) {
        let indent = "  ".repeat(depth);
        for (key, node) in &self.0 {
            if depth == 0 {
                out.push('\n');
            }
            match node {
                YamlNode::Value(v) => out.push_str(&format!("{indent}{key}: {v}\n")),
                YamlNode::Map(m) => {
                    out.push_str(&format!("{indent}{key}:\n"));
                    m.write(out, depth + 1);
                }
            }
        }
    }
}

fn snake_of(camel: &str) -> String {
    let mut out = String::with_capacity(camel.len() + 4);
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The simple erased name of a written type (`List<X>` → `List`).
fn simple_type(ty: &str) -> String {
    let erased = ty.split('<').next().unwrap_or(ty);
    erased.rsplit('.').next().unwrap_or(erased).to_string()
}

fn wrap_params(params: &[String]) -> String {
    if params.len() <= 2 {
        return params.join(", ");
    }
    let mut out = String::new();
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n            ");
        }
        out.push_str(p);
    }
    out
}

fn wrap_args(args: &[String]) -> String {
    if args.len() <= 3 {
        return args.join(", ");
    }
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(",\n                ");
        }
        out.push_str(a);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Templates. `«name»` is replaced by the feature's or product's value.

const STRINGS_JAVA: &str = r#"/** String helpers shared by every layer of «svc». */
public final class Strings {

    private Strings() {
    }

    public static boolean isBlank(String value) {
        return value == null || value.trim().isEmpty();
    }

    public static String normalize(String value) {
        if (isBlank(value)) {
            return "";
        }
        String trimmed = value.trim();
        String composed = Normalizer.normalize(trimmed, Normalizer.Form.NFKC);
        return composed.toUpperCase(Locale.ROOT);
    }

    public static String truncate(String value, int max) {
        if (value == null || value.length() <= max) {
            return value;
        }
        if (max <= 3) {
            return value.substring(0, max);
        }
        return value.substring(0, max - 3) + "...";
    }

    public static String slug(String value) {
        String lower = normalize(value).toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder(lower.length());
        for (char c : lower.toCharArray()) {
            if (Character.isLetterOrDigit(c)) {
                out.append(c);
            } else if (out.length() > 0 && out.charAt(out.length() - 1) != '-') {
                out.append('-');
            }
        }
        return out.toString();
    }
}
"#;

const MONEY_JAVA: &str = r#"/** Amounts as «svc» stores them: two decimals, banker's rounding. */
public final class Money {

    public static final int SCALE = 2;

    private static final BigDecimal HUNDRED = BigDecimal.valueOf(100);

    private Money() {
    }

    public static BigDecimal round(BigDecimal amount) {
        return round(amount, SCALE);
    }

    public static BigDecimal round(BigDecimal amount, int scale) {
        if (amount == null) {
            return BigDecimal.ZERO.setScale(scale, RoundingMode.HALF_EVEN);
        }
        return amount.setScale(scale, RoundingMode.HALF_EVEN);
    }

    public static BigDecimal percentOf(BigDecimal amount, int percent) {
        if (amount == null || percent == 0) {
            return BigDecimal.ZERO;
        }
        BigDecimal share = amount.multiply(BigDecimal.valueOf(percent));
        return round(share.divide(HUNDRED, SCALE + 2, RoundingMode.HALF_EVEN));
    }

    public static boolean isPositive(BigDecimal amount) {
        return amount != null && amount.signum() > 0;
    }

    public static BigDecimal sum(List<BigDecimal> amounts) {
        BigDecimal total = BigDecimal.ZERO;
        for (BigDecimal amount : amounts) {
            if (amount != null) {
                total = total.add(amount);
            }
        }
        return round(total);
    }
}
"#;

const DATES_JAVA: &str = r#"/** Time in «svc»: UTC, millisecond precision. */
public final class Dates {

    private static final Clock CLOCK = Clock.systemUTC();

    private Dates() {
    }

    public static Instant nowUtc() {
        return Instant.now(CLOCK).truncatedTo(ChronoUnit.MILLIS);
    }

    public static long daysBetween(Instant from, Instant to) {
        if (from == null || to == null) {
            return 0;
        }
        return Duration.between(from, to).toDays();
    }

    public static LocalDate today() {
        return LocalDate.ofInstant(nowUtc(), ZoneOffset.UTC);
    }
}
"#;

const PRECONDITIONS_JAVA: &str = r#"/** Argument checks that fail with a message the API returns as a 400. */
public final class Preconditions {

    private Preconditions() {
    }

    public static String requireText(String value, String name) {
        if (Strings.isBlank(value)) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value;
    }

    public static BigDecimal requirePositive(BigDecimal value, String name) {
        if (!Money.isPositive(value)) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
        return value;
    }

    public static <T> T requireNonNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " is required");
        }
        return value;
    }
}
"#;

const NOT_FOUND_JAVA: &str = r#"/** A resource of «svc» that does not exist; answered with 404. */
public class NotFoundException extends RuntimeException {

    private final String resource;
    private final Object key;

    public NotFoundException(String resource, Object key) {
        super(resource + " " + key + " not found");
        this.resource = resource;
        this.key = key;
    }

    public String getResource() {
        return resource;
    }

    public Object getKey() {
        return key;
    }
}
"#;

const CONFLICT_JAVA: &str = r#"/** A request that contradicts the state of «svc»; answered with 409. */
public class ConflictException extends RuntimeException {

    public ConflictException(String message) {
        super(message);
    }
}
"#;

const EXCEPTION_HANDLER_JAVA: &str = r#"/** Turns the exceptions of «svc» into problem responses. */
@RestControllerAdvice
public class ApiExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler(NotFoundException.class)
    public ResponseEntity<Map<String, Object>> notFound(NotFoundException e) {
        return problem(HttpStatus.NOT_FOUND, e.getMessage(), e.getResource());
    }

    @ExceptionHandler(ConflictException.class)
    public ResponseEntity<Map<String, Object>> conflict(ConflictException e) {
        return problem(HttpStatus.CONFLICT, e.getMessage(), null);
    }

    @ExceptionHandler({IllegalArgumentException.class, IllegalStateException.class})
    public ResponseEntity<Map<String, Object>> badRequest(RuntimeException e) {
        log.debug("Rejected request: {}", e.getMessage());
        return problem(HttpStatus.BAD_REQUEST, e.getMessage(), null);
    }

    private ResponseEntity<Map<String, Object>> problem(HttpStatus status, String detail, String resource) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status.value());
        body.put("error", status.getReasonPhrase());
        body.put("detail", Strings.truncate(detail, 500));
        if (resource != null) {
            body.put("resource", resource);
        }
        body.put("timestamp", Dates.nowUtc().toString());
        return ResponseEntity.status(status).body(body);
    }
}
"#;

const AUDIT_LOG_JAVA: &str = r#"/** Who did what in «svc», one row per action in audit_log. */
@Component
public class AuditLog {

    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    private static final String INSERT_SQL =
            "INSERT INTO audit_log (action, reference, recorded_at) VALUES (?, ?, ?)";

    private final JdbcTemplate jdbcTemplate;

    public AuditLog(JdbcTemplate jdbcTemplate) {
        this.jdbcTemplate = jdbcTemplate;
    }

    public void record(String action, Long id) {
        String reference = id == null ? null : String.valueOf(id);
        record(action, reference);
    }

    public void record(String action, String reference) {
        String normalized = Strings.truncate(action, 64);
        jdbcTemplate.update(INSERT_SQL, normalized, reference, Timestamp.from(Dates.nowUtc()));
        log.debug("audit {} {}", normalized, reference);
    }

    public int purgeOlderThan(Instant cutoff) {
        return jdbcTemplate.update("DELETE FROM audit_log WHERE recorded_at < ?", Timestamp.from(cutoff));
    }

    public long countSince(Instant since) {
        Long count = jdbcTemplate.queryForObject(
                "SELECT COUNT(*) FROM audit_log WHERE recorded_at >= ?", Long.class, Timestamp.from(since));
        return count == null ? 0 : count;
    }
}
"#;

const AUDIT_DDL: &str = "CREATE TABLE audit_log (\n    id BIGSERIAL PRIMARY KEY,\n    action VARCHAR(64) NOT NULL,\n    reference VARCHAR(128),\n    recorded_at TIMESTAMP NOT NULL\n);\n\nCREATE INDEX ix_audit_log_recorded_at ON audit_log (recorded_at);\n\n";

const HTTP_CONFIG_JAVA: &str = r#"/** The HTTP clients «svc» calls other services with. */
@Configuration
public class HttpClientsConfig {

    @Bean
    public RestTemplate restTemplate(RestTemplateBuilder builder) {
        return builder
                .setConnectTimeout(Duration.ofSeconds(2))
                .setReadTimeout(Duration.ofSeconds(5))
                .build();
    }

    @Bean
    public WebClient.Builder webClientBuilder() {
        return WebClient.builder()
                .defaultHeader("X-Caller", "«svc»");
    }
}
"#;

const APPLICATION_JAVA: &str = r#"@SpringBootApplication
@EnableScheduling
public class «P»Application {

    public static void main(String[] args) {
        SpringApplication.run(«P»Application.class, args);
    }
}
"#;

const ENTITY_HEAD: &str = r#"/** A «words» of «svc». */
@Entity
@Table(name = "«table»")
public class «E» {

    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false, unique = true, length = 64)
    private String code;

    @Column(nullable = false, length = 200)
    private String name;

    @Enumerated(EnumType.STRING)
    @Column(nullable = false, length = 32)
    private «E»Status status;

    @Column(nullable = false, precision = 14, scale = 2)
    private BigDecimal amount;

    @Column(name = "reference_id")
    private Long referenceId;

    @Column(name = "status_reason", length = 200)
    private String statusReason;
"#;

const ENTITY_BODY: &str = r#"
    @Column(name = "created_at", nullable = false)
    private Instant createdAt;

    @Column(name = "updated_at")
    private Instant updatedAt;

    @Version
    private long version;

    protected «E»() {
        // for JPA
    }

    public «E»(String code, String name, BigDecimal amount) {
        this.code = Strings.normalize(code);
        this.name = name;
        this.amount = Money.round(amount);
        this.status = «E»Status.NEW;
        this.createdAt = Dates.nowUtc();
    }

    public void moveTo(«E»Status target, String reason) {
        if (!status.canMoveTo(target)) {
            throw new IllegalStateException("«E» " + code + " cannot move from " + status + " to " + target);
        }
        this.status = target;
        this.statusReason = Strings.truncate(reason, 200);
        this.updatedAt = Dates.nowUtc();
    }

    public boolean isOpen() {
        return !status.isTerminal();
    }

    public BigDecimal amountWithSurcharge(int percent) {
        BigDecimal surcharge = Money.percentOf(amount, percent);
        return Money.round(amount.add(surcharge));
    }

    public long ageInDays() {
        return Dates.daysBetween(createdAt, Dates.nowUtc());
    }

    public Long getId() {
        return id;
    }

    public String getCode() {
        return code;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public «E»Status getStatus() {
        return status;
    }

    public String getStatusReason() {
        return statusReason;
    }

    public BigDecimal getAmount() {
        return amount;
    }

    public void setAmount(BigDecimal amount) {
        this.amount = Money.round(amount);
    }

    public Long getReferenceId() {
        return referenceId;
    }

    public void setReferenceId(Long referenceId) {
        this.referenceId = referenceId;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public Instant getUpdatedAt() {
        return updatedAt;
    }

    public long getVersion() {
        return version;
    }
"#;

const STATUS_JAVA: &str = r#"/** The life cycle of a «words». */
public enum «E»Status {
    NEW,
    ACTIVE,
    ON_HOLD,
    CLOSED,
    EXPIRED;

    public boolean canMoveTo(«E»Status target) {
        return switch (this) {
            case NEW -> target == ACTIVE || target == EXPIRED || target == CLOSED;
            case ACTIVE -> target == ON_HOLD || target == CLOSED;
            case ON_HOLD -> target == ACTIVE || target == CLOSED || target == EXPIRED;
            case CLOSED, EXPIRED -> false;
        };
    }

    public boolean isTerminal() {
        return this == CLOSED || this == EXPIRED;
    }
}
"#;

const REPOSITORY_HEAD: &str = r#"public interface «E»Repository extends JpaRepository<«E», Long> {

    Optional<«E»> findByCode(String code);

    boolean existsByCode(String code);

    List<«E»> findByStatusOrderByCreatedAtDesc(«E»Status status);

    List<«E»> findTop100ByOrderByCreatedAtDesc();

    List<«E»> findByStatusAndCreatedAtBefore(«E»Status status, Instant before);

    long countByStatus(«E»Status status);

    @Query("select x from «E» x where x.amount >= :min and x.status <> :excluded order by x.amount desc")
    List<«E»> findLarge(@Param("min") BigDecimal min, @Param("excluded") «E»Status excluded);

    @Modifying
    @Query("delete from «E» x where x.status = :status and x.updatedAt < :before")
    int purge(@Param("status") «E»Status status, @Param("before") Instant before);
"#;

const JDBC_REPOSITORY_JAVA: &str = r#"/** Reporting queries and the status history of «words» entries, in plain SQL. */
@Repository
public class «E»JdbcRepository {

    private static final String HISTORY_TABLE = "«snake»_status_history";
    private static final String SUMMARY_SQL = """
            SELECT status, COUNT(*) AS total, COALESCE(SUM(amount), 0) AS amount
            FROM «table»
            WHERE created_at >= ?
            GROUP BY status
            ORDER BY status
            """;

    private final JdbcTemplate jdbcTemplate;

    public «E»JdbcRepository(JdbcTemplate jdbcTemplate) {
        this.jdbcTemplate = jdbcTemplate;
    }

    public List<StatusCount> summarizeSince(Instant since) {
        return jdbcTemplate.query(SUMMARY_SQL,
                (rs, rowNum) -> new StatusCount(rs.getString("status"), rs.getLong("total"), rs.getBigDecimal("amount")),
                Timestamp.from(since));
    }

    public void recordTransition(Long id, String from, String to, String reason) {
        jdbcTemplate.update(
                "INSERT INTO " + HISTORY_TABLE + " («snake»_id, from_status, to_status, reason, changed_at) VALUES (?, ?, ?, ?, ?)",
                id, from, to, Strings.truncate(reason, 200), Timestamp.from(Dates.nowUtc()));
    }

    public List<Transition> history(Long id) {
        return jdbcTemplate.query(
                "SELECT from_status, to_status, reason, changed_at FROM " + HISTORY_TABLE
                        + " WHERE «snake»_id = ? ORDER BY changed_at DESC",
                (rs, rowNum) -> new Transition(rs.getString("from_status"), rs.getString("to_status"),
                        rs.getString("reason"), rs.getTimestamp("changed_at").toInstant()),
                id);
    }

    public int touchStale(Instant before) {
        return jdbcTemplate.update(
                "UPDATE «table» SET updated_at = ? WHERE updated_at < ? AND status = 'ON_HOLD'",
                Timestamp.from(Dates.nowUtc()), Timestamp.from(before));
    }

    public record StatusCount(String status, long total, BigDecimal amount) {
    }

    public record Transition(String fromStatus, String toStatus, String reason, Instant changedAt) {
    }
}
"#;

const DTO_JAVA: &str = r#"/** A «words» as the API returns it. */
public record «E»Dto(
        Long id,
        String code,
        String name,
        String status,
        BigDecimal amount,
        Long referenceId,
        Instant createdAt) {
}
"#;

const CREATE_REQUEST_JAVA: &str = r#"/** What a client sends to create a «words». */
public record Create«E»Request(
        @NotBlank String code,
        @NotBlank String name,
        @NotNull @Positive BigDecimal amount,
        Long referenceId) {
}
"#;

const UPDATE_STATUS_REQUEST_JAVA: &str = r#"/** A status change of a «words», with the reason shown in its history. */
public record Update«E»StatusRequest(@NotNull «E»Status status, String reason) {
}
"#;

const MAPPER_JAVA: &str = r#"/** Entity to API shape for «words» entries. */
@Component
public class «E»Mapper {

    public «E»Dto toDto(«E» «e») {
        return new «E»Dto(
                «e».getId(),
                «e».getCode(),
                «e».getName(),
                «e».getStatus().name(),
                Money.round(«e».getAmount()),
                «e».getReferenceId(),
                «e».getCreatedAt());
    }

    public List<«E»Dto> toDtos(List<«E»> entries) {
        return entries.stream()
                .map(this::toDto)
                .toList();
    }
}
"#;

const VALIDATOR_JAVA: &str = r#"/** A rule a «words» must satisfy before it is stored. */
public interface «E»Validator {

    void validate(«E» «e»);
}
"#;

const REQUIRED_VALIDATOR_JAVA: &str = r#"@Component
public class Required«E»FieldsValidator implements «E»Validator {

    @Override
    public void validate(«E» «e») {
        Preconditions.requireText(«e».getCode(), "code");
        Preconditions.requireText(«e».getName(), "name");
        if («e».getName().length() > 200) {
            throw new IllegalArgumentException("name is longer than 200 characters");
        }
    }
}
"#;

const LIMITS_VALIDATOR_JAVA: &str = r#"@Component
public class «E»LimitsValidator implements «E»Validator {

    private final BigDecimal maxAmount;

    public «E»LimitsValidator(@Value("${«product».limits.«kebab».max-amount:100000}") BigDecimal maxAmount) {
        this.maxAmount = maxAmount;
    }

    @Override
    public void validate(«E» «e») {
        BigDecimal amount = «e».getAmount();
        if (!Money.isPositive(amount)) {
            throw new IllegalArgumentException("amount must be positive");
        }
        if (amount.compareTo(maxAmount) > 0) {
            throw new IllegalArgumentException("amount " + amount + " is above the limit of " + maxAmount);
        }
    }
}
"#;

const EVENT_JAVA: &str = r#"/** What «svc» publishes when a «words» changes. */
public record «E»Event(String type, Long id, String code, String status, BigDecimal amount, Instant occurredAt) {

    public static «E»Event of(String type, «E» «e») {
        return new «E»Event(
                type,
                «e».getId(),
                «e».getCode(),
                «e».getStatus().name(),
                «e».getAmount(),
                Dates.nowUtc());
    }
}
"#;

const PUBLISHER_CONSTANT_JAVA: &str = r#"/** Publishes «words» events on «topic». */
@Component
public class «E»EventPublisher {

    public static final String TOPIC = "«topic»";

    private static final Logger log = LoggerFactory.getLogger(«E»EventPublisher.class);

    private final KafkaTemplate<String, «E»Event> kafkaTemplate;

    public «E»EventPublisher(KafkaTemplate<String, «E»Event> kafkaTemplate) {
        this.kafkaTemplate = kafkaTemplate;
    }
"#;

const PUBLISHER_LITERAL_JAVA: &str = r#"/** Publishes «words» events. */
@Component
public class «E»EventPublisher {

    private static final Logger log = LoggerFactory.getLogger(«E»EventPublisher.class);

    private final KafkaTemplate<String, «E»Event> kafkaTemplate;

    public «E»EventPublisher(KafkaTemplate<String, «E»Event> kafkaTemplate) {
        this.kafkaTemplate = kafkaTemplate;
    }
"#;

const PUBLISHER_CONFIG_JAVA: &str = r#"/** Publishes «words» events on the topic configured as topics.«kebab». */
@Component
public class «E»EventPublisher {

    private static final Logger log = LoggerFactory.getLogger(«E»EventPublisher.class);

    private final KafkaTemplate<String, «E»Event> kafkaTemplate;
    private final String topic;

    public «E»EventPublisher(KafkaTemplate<String, «E»Event> kafkaTemplate,
            @Value("${topics.«kebab»}") String topic) {
        this.kafkaTemplate = kafkaTemplate;
        this.topic = topic;
    }
"#;

const PUBLISHER_TAIL: &str = r#"
    public void publishCreated(«E» «e») {
        send(«E»Event.of("CREATED", «e»));
    }

    public void publishStatusChanged(«E» «e», «E»Status previous) {
        log.debug("«E» {} moved from {} to {}", «e».getCode(), previous, «e».getStatus());
        send(«E»Event.of("STATUS_CHANGED", «e»));
    }

    private void send(«E»Event event) {
        kafkaTemplate.send(«topicExpr», event.code(), event)
                .whenComplete((result, error) -> {
                    if (error != null) {
                        log.error("Could not publish {} for «words» {}", event.type(), event.code(), error);
                    }
                });
    }
}
"#;

const SERVICE_IFACE_HEAD: &str = r#"/** What the rest of «svc» may do with «words» entries. */
public interface «E»Service {

    «E»Dto get(Long id);

    «E»Dto get(String code);

    List<«E»Dto> list(«E»Status status, int limit);

    «E»Dto create(Create«E»Request request);

    «E»Dto changeStatus(Long id, «E»Status status, String reason);

    void delete(Long id);

    int expireStale(Duration age);

    int applyExternalUpdate(String reference, String status);

    long countOpen();

    Map<String, Long> dashboard();
"#;

const SERVICE_IFACE_JDBC: &str = r#"
    List<«E»JdbcRepository.Transition> history(Long id);

    List<«E»JdbcRepository.StatusCount> summary(Instant since);
"#;

const SERVICE_IMPL_HEAD: &str = r#"@Service
@Transactional
public class Default«E»Service implements «E»Service {

    private static final Logger log = LoggerFactory.getLogger(Default«E»Service.class);
    private static final int MAX_PAGE = 250;

"#;

const SERVICE_IMPL_READS: &str = r#"
    @Override
    @Transactional(readOnly = true)
    public «E»Dto get(Long id) {
        return «e»Mapper.toDto(load(id));
    }

    @Override
    @Transactional(readOnly = true)
    public «E»Dto get(String code) {
        Preconditions.requireText(code, "code");
        «E» «e» = «e»Repository.findByCode(Strings.normalize(code))
                .orElseThrow(() -> new NotFoundException("«E»", code));
        return «e»Mapper.toDto(«e»);
    }

    @Override
    @Transactional(readOnly = true)
    public List<«E»Dto> list(«E»Status status, int limit) {
        int size = Math.min(Math.max(limit, 1), MAX_PAGE);
        List<«E»> entries = status == null
                ? «e»Repository.findTop100ByOrderByCreatedAtDesc()
                : «e»Repository.findByStatusOrderByCreatedAtDesc(status);
        return entries.stream()
                .filter(«E»::isOpen)
                .limit(size)
                .map(«e»Mapper::toDto)
                .collect(Collectors.toList());
    }
"#;

const SERVICE_CREATE_HEAD: &str = r#"
    @Override
    public «E»Dto create(Create«E»Request request) {
        Preconditions.requireText(request.code(), "code");
        Preconditions.requirePositive(request.amount(), "amount");
        if («e»Repository.existsByCode(Strings.normalize(request.code()))) {
            throw new ConflictException("«E» " + request.code() + " already exists");
        }
        «E» «e» = new «E»(request.code(), request.name(), request.amount());
        «e».setReferenceId(request.referenceId());
"#;

const SERVICE_CREATE_TAIL: &str = r#"        auditLog.record("«snake»_created", saved.getId());
        log.info("Created «words» {} ({})", saved.getCode(), saved.getId());
        return «e»Mapper.toDto(saved);
    }
"#;

const SERVICE_CHANGE_HEAD: &str = r#"
    @Override
    public «E»Dto changeStatus(Long id, «E»Status status, String reason) {
        Preconditions.requireNonNull(status, "status");
        «E» «e» = load(id);
        «E»Status previous = «e».getStatus();
        if (previous == status) {
            return «e»Mapper.toDto(«e»);
        }
        «e».moveTo(status, reason);
        «E» saved = «e»Repository.save(«e»);
"#;

const SERVICE_CHANGE_TAIL: &str = r#"        auditLog.record("«snake»_status_" + status.name().toLowerCase(), saved.getId());
        return «e»Mapper.toDto(saved);
    }
"#;

const SERVICE_IMPL_REST: &str = r#"
    @Override
    public void delete(Long id) {
        «E» «e» = load(id);
        if («e».isOpen()) {
            throw new ConflictException("«E» " + id + " is still open");
        }
        «e»Repository.delete(«e»);
        auditLog.record("«snake»_deleted", id);
    }

    @Override
    public int expireStale(Duration age) {
        Instant cutoff = Dates.nowUtc().minus(age);
        List<«E»> stale = «e»Repository.findByStatusAndCreatedAtBefore(«E»Status.NEW, cutoff);
        stale.forEach(entry -> entry.moveTo(«E»Status.EXPIRED, "not activated within " + age.toHours() + "h"));
        «e»Repository.saveAll(stale);
        int purged = «e»Repository.purge(«E»Status.EXPIRED, cutoff.minus(age));
        if (!stale.isEmpty() || purged > 0) {
            log.info("Expired {} and purged {} «words» entries older than {}", stale.size(), purged, cutoff);
        }
        return stale.size();
    }

    @Override
    public int applyExternalUpdate(String reference, String status) {
        if (Strings.isBlank(reference)) {
            return 0;
        }
        Optional<«E»> match = «e»Repository.findByCode(Strings.normalize(reference));
        if (match.isEmpty()) {
            log.debug("No «words» for external reference {}", reference);
            return 0;
        }
        «E» «e» = match.get();
        «E»Status target = "CLOSED".equals(status) ? «E»Status.CLOSED : «E»Status.ON_HOLD;
        if (!«e».getStatus().canMoveTo(target)) {
            return 0;
        }
        «e».moveTo(target, "external update: " + status);
        «e»Repository.save(«e»);
        auditLog.record("«snake»_external_update", «e».getId());
        return 1;
    }

    @Override
    @Transactional(readOnly = true)
    public long countOpen() {
        return «e»Repository.countByStatus(«E»Status.NEW) + «e»Repository.countByStatus(«E»Status.ACTIVE);
    }
"#;

const SERVICE_DASHBOARD_HEAD: &str = r#"
    @Override
    @Transactional(readOnly = true)
    public Map<String, Long> dashboard() {
        Map<String, Long> counts = new LinkedHashMap<>();
        for («E»Status status : «E»Status.values()) {
            counts.put(status.name(), «e»Repository.countByStatus(status));
        }
"#;

const SERVICE_IMPL_JDBC: &str = r#"
    @Override
    @Transactional(readOnly = true)
    public List<«E»JdbcRepository.Transition> history(Long id) {
        load(id);
        return «e»JdbcRepository.history(id);
    }

    @Override
    @Transactional(readOnly = true)
    public List<«E»JdbcRepository.StatusCount> summary(Instant since) {
        Instant from = since == null ? Dates.nowUtc().minus(Duration.ofDays(30)) : since;
        return «e»JdbcRepository.summarizeSince(from);
    }
"#;

const SERVICE_LINK_HEAD: &str = r#"
    private void linkExternal(«E» «e») {
        if («e».getReferenceId() == null) {
            return;
        }
"#;

const SERVICE_IMPL_TAIL: &str = r#"
    private «E» load(Long id) {
        return «e»Repository.findById(id)
                .orElseThrow(() -> new NotFoundException("«E»", id));
    }
}
"#;

const CONTROLLER_HEAD: &str = r#"@RestController
@RequestMapping("«route»")
public class «E»Controller {

    private static final Logger log = LoggerFactory.getLogger(«E»Controller.class);

    private final «E»Service «e»Service;

    public «E»Controller(«E»Service «e»Service) {
        this.«e»Service = «e»Service;
    }
"#;

const CONTROLLER_GET: &str = r#"
    @GetMapping("/{id}")
    public «E»Dto get(@PathVariable Long id) {
        return «e»Service.get(id);
    }
"#;

const CONTROLLER_LIST: &str = r#"
    @GetMapping
    public List<«E»Dto> list(@RequestParam(required = false) String status,
            @RequestParam(defaultValue = "50") int limit) {
        «E»Status parsed = null;
        if (!Strings.isBlank(status)) {
            parsed = «E»Status.valueOf(Strings.normalize(status));
        }
        log.debug("Listing «words» entries with status {} (limit {})", parsed, limit);
        return «e»Service.list(parsed, limit);
    }
"#;

const CONTROLLER_BY_CODE: &str = r#"
    @GetMapping("/by-code/{code}")
    public «E»Dto getByCode(@PathVariable("code") String code) {
        return «e»Service.get(code);
    }
"#;

const CONTROLLER_CREATE: &str = r#"
    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    public «E»Dto create(@Valid @RequestBody Create«E»Request request) {
        log.info("Creating «words» {}", request.code());
        return «e»Service.create(request);
    }
"#;

const CONTROLLER_CHANGE: &str = r#"
    @PutMapping("/{id}/status")
    public «E»Dto changeStatus(@PathVariable Long id, @Valid @RequestBody Update«E»StatusRequest update) {
        return «e»Service.changeStatus(id, update.status(), update.reason());
    }
"#;

const CONTROLLER_DELETE: &str = r#"
    @DeleteMapping("/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    public void delete(@PathVariable Long id) {
        «e»Service.delete(id);
    }
"#;

const CONTROLLER_HISTORY: &str = r#"
    @GetMapping("/{id}/history")
    public List<«E»JdbcRepository.Transition> history(@PathVariable Long id) {
        return «e»Service.history(id);
    }
"#;

const CONTROLLER_SUMMARY: &str = r#"
    @GetMapping("/summary")
    public List<«E»JdbcRepository.StatusCount> summary(
            @RequestParam(required = false) @DateTimeFormat(iso = DateTimeFormat.ISO.DATE_TIME) Instant since) {
        return «e»Service.summary(since);
    }
"#;

const CONTROLLER_DASHBOARD: &str = r#"
    @GetMapping("/dashboard")
    public Map<String, Long> dashboard() {
        return «e»Service.dashboard();
    }
"#;

const JOB_CRON_JAVA: &str = r#"/** Expires «words» entries nobody activated, every quarter of an hour. */
@Component
public class «E»MaintenanceJob {

    private static final Logger log = LoggerFactory.getLogger(«E»MaintenanceJob.class);

    private final «E»Service «e»Service;
    private final long staleHours;

    public «E»MaintenanceJob(«E»Service «e»Service, @Value("${jobs.«kebab».stale-hours:48}") long staleHours) {
        this.«e»Service = «e»Service;
        this.staleHours = staleHours;
    }

    @Scheduled(cron = "${jobs.«kebab».cron}")
    public void expireStale() {
        long started = System.currentTimeMillis();
        int expired = «e»Service.expireStale(Duration.ofHours(staleHours));
        if (expired > 0) {
            log.info("Expired {} «words» entries in {} ms", expired, System.currentTimeMillis() - started);
        }
    }
}
"#;

const JOB_DELAY_JAVA: &str = r#"/** Expires «words» entries nobody activated. */
@Component
public class «E»MaintenanceJob {

    private static final Logger log = LoggerFactory.getLogger(«E»MaintenanceJob.class);

    private final «E»Service «e»Service;
    private final long staleHours;

    public «E»MaintenanceJob(«E»Service «e»Service, @Value("${jobs.«kebab».stale-hours:24}") long staleHours) {
        this.«e»Service = «e»Service;
        this.staleHours = staleHours;
    }

    @Scheduled(fixedDelayString = "${jobs.«kebab».delay}", initialDelay = 60000)
    public void expireStale() {
        try {
            int expired = «e»Service.expireStale(Duration.ofHours(staleHours));
            log.debug("Expired {} «words» entries", expired);
        } catch (RuntimeException e) {
            log.error("«E» maintenance failed", e);
        }
    }
}
"#;

const SERVICE_TEST_HEAD: &str = r#"@ExtendWith(MockitoExtension.class)
class Default«E»ServiceTest {

"#;

const SERVICE_TEST_BODY: &str = r#"
    @Test
    void createRejectsDuplicateCodes() {
        when(«e»Repository.existsByCode("X-1")).thenReturn(true);

        assertThrows(ConflictException.class,
                () -> service.create(new Create«E»Request("x-1", "First", new BigDecimal("10.00"), null)));
        verify(«e»Repository, never()).save(any());
    }

    @Test
    void createSavesTheNormalizedCode() {
        when(«e»Repository.save(any(«E».class))).thenAnswer(invocation -> invocation.getArgument(0));

        «E»Dto created = service.create(new Create«E»Request(" x-2 ", "Second", new BigDecimal("12.499"), null));

        assertEquals("X-2", created.code());
        assertEquals(new BigDecimal("12.50"), created.amount());
    }

    @Test
    void getFailsForUnknownIds() {
        when(«e»Repository.findById(42L)).thenReturn(Optional.empty());

        assertThrows(NotFoundException.class, () -> service.get(42L));
    }

    @Test
    void expireStaleMovesOldEntries() {
        «E» old = new «E»("OLD-1", "Old", new BigDecimal("5.00"));
        when(«e»Repository.findByStatusAndCreatedAtBefore(any(), any())).thenReturn(List.of(old));

        int expired = service.expireStale(Duration.ofHours(1));

        assertEquals(1, expired);
        assertEquals(«E»Status.EXPIRED, old.getStatus());
    }
"#;

const SERVICE_TEST_EVENTS: &str = r#"
    @Test
    void createPublishesAnEvent() {
        when(«e»Repository.save(any(«E».class))).thenAnswer(invocation -> invocation.getArgument(0));

        service.create(new Create«E»Request("X-3", "Third", new BigDecimal("1.00"), null));

        verify(eventPublisher).publishCreated(any(«E».class));
    }
"#;

const CONTROLLER_TEST_JAVA: &str = r#"@WebMvcTest(«E»Controller.class)
class «E»ControllerTest {

    @Autowired
    private MockMvc mockMvc;

    @MockBean
    private «E»Service «e»Service;

    @Test
    void getReturnsTheEntry() throws Exception {
        when(«e»Service.get(7L)).thenReturn(new «E»Dto(7L, "X-7", "Seventh", "NEW", new BigDecimal("70.00"), null,
                Instant.parse("2026-01-01T00:00:00Z")));

        mockMvc.perform(get("«route»/{id}", 7L))
                .andExpect(status().isOk())
                .andExpect(jsonPath("$.code").value("X-7"));
    }

    @Test
    void unknownEntriesAreNotFound() throws Exception {
        when(«e»Service.get(8L)).thenThrow(new NotFoundException("«E»", 8L));

        mockMvc.perform(get("«route»/{id}", 8L))
                .andExpect(status().isNotFound());
    }
}
"#;

const POM_XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
    <modelVersion>4.0.0</modelVersion>

    <parent>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-starter-parent</artifactId>
        <version>3.3.5</version>
        <relativePath/>
    </parent>

    <groupId>com.synth</groupId>
    <artifactId>«svc»</artifactId>
    <version>1.0.0-SNAPSHOT</version>
    <name>«svc»</name>

    <properties>
        <java.version>21</java.version>
    </properties>

    <dependencies>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-web</artifactId>
        </dependency>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-webflux</artifactId>
        </dependency>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-data-jpa</artifactId>
        </dependency>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-validation</artifactId>
        </dependency>
        <dependency>
            <groupId>org.springframework.kafka</groupId>
            <artifactId>spring-kafka</artifactId>
        </dependency>
        <dependency>
            <groupId>org.flywaydb</groupId>
            <artifactId>flyway-database-postgresql</artifactId>
        </dependency>
        <dependency>
            <groupId>org.postgresql</groupId>
            <artifactId>postgresql</artifactId>
            <scope>runtime</scope>
        </dependency>
        <dependency>
            <groupId>org.springframework.boot</groupId>
            <artifactId>spring-boot-starter-test</artifactId>
            <scope>test</scope>
        </dependency>
    </dependencies>

    <build>
        <plugins>
            <plugin>
                <groupId>org.springframework.boot</groupId>
                <artifactId>spring-boot-maven-plugin</artifactId>
            </plugin>
        </plugins>
    </build>
</project>
"#;

const APPLICATION_YML: &str = r#"spring:
  application:
    name: «svc»
  datasource:
    url: jdbc:postgresql://«product»-db:5432/«product»
    username: «product»
    password: ${«DB»_DB_PASSWORD:«product»}
  jpa:
    open-in-view: false
    hibernate:
      ddl-auto: validate
  flyway:
    enabled: true
    locations: classpath:db/migration
  kafka:
    bootstrap-servers: ${KAFKA_BOOTSTRAP_SERVERS:kafka:9092}
    consumer:
      group-id: «svc»
      auto-offset-reset: earliest

server:
  port: 8080

management:
  endpoints:
    web:
      exposure:
        include: health,info,prometheus
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cover_plurals_and_cases() {
        let n = names("Regional", "Category", 0);
        assert_eq!(n.pascal, "RegionalCategory");
        assert_eq!(n.camel, "regionalCategory");
        assert_eq!(n.plural_snake, "regional_categories");
        assert_eq!(n.plural_kebab, "regional-categories");
        assert_eq!(names("", "Address", 0).plural_snake, "addresses");
        assert_eq!(names("", "Survey", 0).plural_snake, "surveys");
        assert_eq!(names("", "Batch", 1).pascal, "Batch2");
        assert_eq!(names("", "Batch", 1).plural_snake, "batches2");
    }

    #[test]
    fn fill_replaces_known_names_and_keeps_the_rest() {
        let mut out = String::new();
        fill(&mut out, "a «x» b «y» ${c}", &[("x", "1")]);
        assert_eq!(out, "a 1 b «y» ${c}");
    }

    #[test]
    fn yaml_entries_share_their_prefixes() {
        let mut map = YamlMap::default();
        map.entry("topics.inbound.a", "x.a");
        map.entry("topics.inbound.b", "x.b");
        map.entry("topics.c", "y");
        let mut out = String::new();
        map.write(&mut out, 0);
        assert_eq!(out, "\ntopics:\n  c: y\n  inbound:\n    a: x.a\n    b: x.b\n");
    }
}
