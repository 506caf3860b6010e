//! Framework recognisers: what the frameworks a product uses make of its code.
//!
//! A recogniser is pure: it reads language-neutral facts (`crate::facts`), the resolved
//! calls of a file and what the product knows as a whole ([`Product`]), and returns plain
//! [`Findings`] — routes, outbound calls, topic uses, table uses, config uses, entry
//! points — named by method keys, type names and table names, never by graph nodes.
//! Writing them into the graph is `crate::emit`'s job alone, so a rule can be tested on
//! a three-file fixture without a store (`testing::check`).
//!
//! Each framework is one file and one line of [`RECOGNISERS`]; a framework that needs
//! knowledge gathered across files before any file is recognised (JPA's entities, Spring
//! Data's repositories) adds one field to [`Knowledge`]. Values — a URL, a topic name, a
//! SQL text — are evaluated by the one evaluator, [`values`].
//!
//! Recognisers run in two phases per file, in registry order: `declared` (what the file's
//! declarations say: annotations, signatures, the expressions of its bodies) and `calls`
//! (what its resolved calls do); `product` runs once, after every file, for what is not
//! code (specs, descriptors, mapper files) or joins files.

pub(crate) mod annotations;
mod by_name;
mod encoding;
pub(crate) mod values;

mod data_rest;
mod feign;
mod gateway;
pub(crate) mod graphql;
mod jaxrs;
mod jdbc;
mod jpa;
mod jvm;
mod kafka;
mod messaging;
mod mockito;
pub(crate) mod mybatis;
mod mybatis_plus;
mod openapi;
mod quartz;
mod rest_clients;
mod scheduling;
mod servlet;
mod spring_boot;
mod spring_config;
mod spring_data;
mod spring_events;
mod spring_hateoas;
mod spring_mvc;
mod supertypes;

#[cfg(test)]
pub(crate) mod testing;

use std::collections::HashMap;

use semgraph_storage::Warning;

use crate::facts::{CodeFile, TypeDecl};

use crate::lang::sql::Access;
use crate::resolve::{MethodKey, ResolvedCall, SymbolTable};
use crate::walk::SourceFile;

pub(crate) use spring_config::{ConfigIndex, KeyRef};

/// Every recogniser, in the order their findings are emitted for a file.
pub(crate) static RECOGNISERS: &[&dyn Recogniser] = &[
    &jpa::Jpa,
    &spring_data::SpringData,
    &mybatis::MyBatis,
    &mybatis_plus::MyBatisPlus,
    &spring_config::SpringConfig,
    &spring_mvc::SpringMvc,
    &jaxrs::JaxRs,
    &servlet::Servlets,
    &feign::Feign,
    &gateway::Gateway,
    &jvm::MainMethods,
    &scheduling::Scheduling,
    &spring_boot::StartupRunners,
    &quartz::Quartz,
    &spring_events::SpringEvents,
    &graphql::GraphQl,
    &spring_hateoas::SpringHateoas,
    &kafka::Kafka,
    &messaging::Messaging,
    &jdbc::Jdbc,
    &rest_clients::RestClients,
    &openapi::OpenApi,
    &data_rest::DataRest,
];

/// One framework's rules.
pub(crate) trait Recogniser: Sync {
    /// What one file's declarations say: annotations, signatures, the expressions of its
    /// bodies.
    fn declared(&self, _product: &Product<'_>, _file: &CodeFile, _out: &mut Findings) {}

    /// What one file's resolved calls do.
    fn calls(&self, _product: &Product<'_>, _file: &CodeFile, _calls: &[ResolvedCall], _out: &mut Findings) {}

    /// What the product says as a whole: files that are not code, joins across files.
    fn product(&self, _product: &Product<'_>, _out: &mut ProductFindings) {}
}

/// What every recogniser may read about the product being indexed.
pub(crate) struct Product<'a> {
    /// The product's types, methods and fields with their import contexts.
    pub(crate) table: &'a SymbolTable,
    /// Names, constants and expressions of every type (bodies of other files are not
    /// kept: only their skeletons), for the value evaluator.
    pub(crate) values: values::Values<'a>,
    /// The skeletons of every code file of the repository.
    pub(crate) skeletons: &'a [CodeFile],
    /// Every source file of the repository, for the recognisers of files that are not code.
    pub(crate) files: &'a [SourceFile],
    /// What was gathered across files before recognising any.
    pub(crate) knowledge: &'a Knowledge,
    /// The build file of each module of the repository, by module folder.
    pub(crate) builds: &'a [(String, crate::lang::build::BuildFile)],
    /// The repository's config keys, for what code reads.
    pub(crate) config: &'a ConfigIndex,
    /// The repository's config files with their entries, for what configuration declares
    /// (gateway routes).
    pub(crate) configs: &'a [crate::lang::config::ParsedConfig],
    /// The name of the service a file belongs to.
    pub(crate) service_of: &'a (dyn Fn(&str) -> Option<String> + Sync),
    /// The types of the repository's GraphQL schema files.
    pub(crate) graphql: &'a graphql::GraphQlSchema,
}

impl<'a> Product<'a> {
    /// A config value of the module of `file` with its placeholders resolved as far as
    /// the configuration tells.
    pub(crate) fn resolve(&self, file: &str, value: &str) -> String {
        (self.values.resolve)(file, value)
    }

    /// The skeleton of type `fqn`.
    pub(crate) fn type_decl(&self, fqn: &str) -> Option<&'a TypeDecl> {
        self.values.type_decl(fqn)
    }

    /// The product as the files of a module with its own copies of names other modules
    /// declare too see it: `table` and `knowledge` are the module's views, `own` the
    /// skeletons of its copies.
    pub(crate) fn for_module(
        &self,
        table: &'a SymbolTable,
        knowledge: &'a Knowledge,
        own: HashMap<&'a str, &'a TypeDecl>,
    ) -> Product<'a> {
        Product {
            table,
            values: values::Values {
                types: self.values.types,
                own,
                table,
                resolve: self.values.resolve,
            },
            knowledge,
            ..*self
        }
    }
}

/// Knowledge of the product gathered from every file's skeleton before recognising any.
#[derive(Default)]
pub(crate) struct Knowledge {
    /// JPA entities (and Spring Data JDBC/R2DBC `@Table` types) and their tables.
    pub(crate) entities: jpa::Entities,
    /// Interfaces that may be Spring Data repositories.
    pub(crate) repositories: spring_data::Repositories,
    /// `@ControllerAdvice` classes and the `@ModelAttribute` methods they add.
    pub(crate) advice: spring_mvc::Advice,
    /// Types whose supertypes may lead to MyBatis-Plus's mappers and services.
    pub(crate) mappers: mybatis_plus::Mappers,
}

impl Knowledge {
    /// Gathers what `file` declares.
    pub(crate) fn collect(&mut self, file: &CodeFile) {
        self.entities.collect(file);
        self.repositories.collect(file);
        self.advice.collect(file);
        self.mappers.collect(file);
    }

    /// What the files of one module know: `files` are that module's files declaring names
    /// other modules declare too, and their copies replace what was gathered of those
    /// names (the entity a copy maps, the supertypes a copy names). Advice is kept as
    /// gathered: it is told apart by the file that declares it.
    pub(crate) fn for_module(&self, files: &[&CodeFile]) -> Knowledge {
        let mut view = Knowledge {
            entities: self.entities.clone(),
            repositories: self.repositories.clone(),
            advice: self.advice.clone(),
            mappers: self.mappers.clone(),
        };
        for t in files.iter().flat_map(|f| &f.types) {
            view.entities.forget(&t.fqn);
            view.repositories.forget(&t.fqn);
            view.mappers.forget(&t.fqn);
        }
        for file in files {
            view.entities.collect(file);
            view.repositories.collect(file);
            view.mappers.collect(file);
        }
        view
    }
}

/// What a finding hangs from: a type or a method of the product.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode)]
pub(crate) enum Owner {
    /// A type, by fqn.
    Type(String),
    /// A method.
    Method(MethodKey),
}

/// An HTTP endpoint served by a handler.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct Endpoint {
    pub(crate) verb: String,
    pub(crate) path: String,
    /// `spring-mvc`, `webflux`, `jax-rs`, `servlet`, `openapi`, `data-rest`.
    pub(crate) kind: &'static str,
    /// Where it is declared.
    pub(crate) file: String,
    pub(crate) lines: (usize, usize),
    /// The method (or, for Spring Data REST, the repository type) that serves it.
    pub(crate) handler: Owner,
    /// The handler's name as shown (`Type.method`).
    pub(crate) handler_name: String,
    /// The file whose module names the service that serves it (a descriptor's, for
    /// servlets mapped in `web.xml`).
    pub(crate) service_file: String,
    /// Methods that run before the handler on every request (Spring MVC's
    /// `@ModelAttribute` methods of the controller and of its `@ControllerAdvice`).
    pub(crate) before: Vec<MethodKey>,
}

/// A non-HTTP entry point: `main`, a scheduled job, a message listener.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct EntryPoint {
    /// `main`, `scheduled`, `kafka-listener`, `rabbit-listener`, `jms-listener`.
    pub(crate) kind: &'static str,
    /// What triggers it: a cron, a rate, a topic name.
    pub(crate) trigger: String,
    /// The broker whose topic `trigger` names, for listeners.
    pub(crate) broker: Option<&'static str>,
    pub(crate) file: String,
    pub(crate) lines: (usize, usize),
    pub(crate) handler: MethodKey,
    pub(crate) handler_name: String,
}

/// An outbound HTTP call of a method.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct HttpCall {
    pub(crate) caller: MethodKey,
    pub(crate) caller_name: String,
    pub(crate) verb: String,
    /// The route called, without query string.
    pub(crate) path: String,
    /// The URL template as evaluated.
    pub(crate) url: String,
    /// The service (or host) called.
    pub(crate) target: String,
    /// `feign`, `rest-template`, `web-client`, …
    pub(crate) client: &'static str,
    pub(crate) file: String,
    pub(crate) lines: (usize, usize),
    /// Written in test sources.
    pub(crate) test: bool,
    /// The host is outside the company: a boundary, linked to no endpoint.
    pub(crate) external: bool,
    /// Whether the call asks for the endpoint of `target` with its verb and route.
    pub(crate) links: bool,
    /// A local URL (`http://localhost:8085/…`): the call asks for the endpoint with its
    /// verb and route of the service of the company that listens on this port.
    pub(crate) port: Option<u16>,
    /// Why the URL names no target (a base URL only known at run time): the call is kept
    /// with its partial template and linked to nothing.
    pub(crate) unresolved: Option<String>,
    /// A relative URL of a test client bound to the running service (`TestRestTemplate`):
    /// its route sits under that service's context path.
    pub(crate) from_service_root: bool,
}

/// A Spring Cloud Gateway route: an endpoint of the gateway service (its `Path` pattern)
/// that forwards to a service, declared in configuration or by a `RouteLocator` bean.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct GatewayRoute {
    /// The route's `id` (its index when it has none).
    pub(crate) id: String,
    /// The verbs of its `Method` predicate; empty: every verb.
    pub(crate) verbs: Vec<String>,
    /// The `Path` pattern it answers (`/api/billing/**`).
    pub(crate) path: String,
    pub(crate) file: String,
    pub(crate) line: u32,
    /// What declares it: the config key of its `uri`, or the bean method.
    pub(crate) declared_by: RouteSource,
    /// Where it forwards, one per `uri` the configuration gives it (profiles).
    pub(crate) targets: Vec<RouteTarget>,
}

/// What declares a gateway route.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) enum RouteSource {
    Config(KeyRef),
    Method(MethodKey),
}

/// Where a gateway route forwards.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct RouteTarget {
    /// The `uri` as resolved (`lb://billing-service`).
    pub(crate) uri: String,
    /// The service (or host) forwarded to; empty when not fixed.
    pub(crate) target: String,
    /// A local URI's port: the service listening on it.
    pub(crate) port: Option<u16>,
    pub(crate) external: bool,
    /// The routes the target receives.
    pub(crate) forward: Forward,
    /// Why the target is not fixed.
    pub(crate) unresolved: Option<String>,
}

/// The routes a gateway route sends on, after its filters (`StripPrefix`, `PrefixPath`,
/// `RewritePath`, `SetPath`).
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) enum Forward {
    /// Every route under this literal prefix (`/billing` from `/api/billing/**` with
    /// `StripPrefix=1`).
    Prefix(String),
    /// This one route.
    Exact(String),
}

/// What a method does with a topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) enum Flow {
    Consumes,
    Produces,
}

/// A method producing to or consuming from a topic of a broker.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct TopicUse {
    pub(crate) method: MethodKey,
    pub(crate) broker: &'static str,
    pub(crate) topic: String,
    pub(crate) flow: Flow,
    /// For an in-process topic (Spring application events): the service it lives in; its
    /// producers and consumers meet only inside it, never across services or products.
    pub(crate) scope: Option<String>,
}

/// A read or write of a table, by its name as written.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct TableUse {
    pub(crate) owner: Owner,
    pub(crate) table: String,
    pub(crate) access: Access,
    pub(crate) line: u32,
    /// How it was found: `jpa-repository`, `jpql`, `native-query`, `jdbc-template`, …
    pub(crate) via: &'static str,
}

/// An entity type mapped to its table.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct EntityTable {
    pub(crate) entity: String,
    pub(crate) table: String,
    pub(crate) line: u32,
}

/// Code reading a config key.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode)]
pub(crate) struct ConfigUse {
    pub(crate) owner: Owner,
    pub(crate) key: KeyRef,
    pub(crate) line: u32,
    /// `value`, `placeholder`, `configuration-properties`, `conditional`, `environment`.
    pub(crate) via: &'static str,
}

/// A config key named in code that no config file of its module sets.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct UnmatchedKey {
    pub(crate) key: String,
    pub(crate) line: u32,
    /// The code gives a value when it is missing.
    pub(crate) defaulted: bool,
}

/// One thing a recogniser found.
#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) enum Finding {
    Endpoint(Endpoint),
    EntryPoint(EntryPoint),
    HttpCall(HttpCall),
    Topic(TopicUse),
    Table(TableUse),
    /// A data access the source does not determine (SQL in a variable, an unknown entity).
    TableUnknown {
        line: u32,
        reason: String,
    },
    /// SQL read by the token scan because sqlparser refused it.
    SqlUnparsed {
        line: u32,
    },
    EntityTable(EntityTable),
    Config(ConfigUse),
    ConfigUnmatched(UnmatchedKey),
    /// A Spring Cloud Gateway route.
    Gateway(GatewayRoute),
    /// The SQL a method runs, as content (MyBatis mapper statements).
    MethodSql {
        method: MethodKey,
        sql: String,
    },
    /// A call site that looks like a call but runs nothing (a HATEOAS link built from a
    /// method, `linkTo(methodOn(X.class).m())`): no Calls edge, and not unresolved.
    NotACall {
        caller: MethodKey,
        site: usize,
    },
}

/// What recognisers found in one file (or, for `product`, in the product), in order,
/// with the warnings and counters that go with it.
#[derive(Debug, Default, bincode::Encode)]
pub(crate) struct Findings {
    pub(crate) items: Vec<Finding>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) stats: Vec<(&'static str, u64)>,
}

impl Findings {
    pub(crate) fn push(&mut self, f: Finding) {
        self.items.push(f);
    }

    pub(crate) fn warn(&mut self, file: &str, line: Option<u32>, message: impl Into<String>) {
        self.warnings.push(Warning {
            file: file.to_string(),
            line: line.filter(|&l| l > 0),
            message: message.into(),
        });
    }

    pub(crate) fn stat(&mut self, name: &'static str, value: u64) {
        self.stats.push((name, value));
    }

    /// A read or write of `table` by `owner`, found `via` at `line`.
    pub(crate) fn table(&mut self, owner: &Owner, table: &str, access: Access, line: u32, via: &'static str) {
        self.push(Finding::Table(TableUse {
            owner: owner.clone(),
            table: table.to_string(),
            access,
            line,
            via,
        }));
    }

    /// A data access the source does not determine.
    pub(crate) fn table_unknown(&mut self, line: u32, reason: impl Into<String>) {
        self.push(Finding::TableUnknown {
            line,
            reason: reason.into(),
        });
    }

    /// The tables one SQL text of `owner` reads and writes; what is no SQL or did not
    /// parse is said.
    pub(crate) fn sql(&mut self, owner: &Owner, text: &str, line: u32, via: &'static str) {
        let touches = crate::lang::sql::sql_touches(text);
        if !touches.looks_like_sql {
            self.table_unknown(line, "a SQL argument is no SQL statement");
            return;
        }
        if !touches.parsed {
            self.push(Finding::SqlUnparsed { line });
        }
        for (table, access) in touches.tables {
            self.table(owner, &table, access, line, via);
        }
    }
}

/// What the `product` phase found, one batch per file it read (warnings and counts of a
/// batch name that file).
#[derive(Debug, Default)]
pub(crate) struct ProductFindings {
    pub(crate) batches: Vec<(String, Findings)>,
}

impl ProductFindings {
    /// The batch of file `rel`: the last one when it is that file's, else a new one.
    pub(crate) fn file(&mut self, rel: &str) -> &mut Findings {
        if self.batches.last().is_none_or(|(f, _)| f != rel) {
            self.batches.push((rel.to_string(), Findings::default()));
        }
        let last = self.batches.len() - 1;
        &mut self.batches[last].1
    }
}

/// Runs every recogniser's `declared` phase over one file.
pub(crate) fn declared(product: &Product<'_>, file: &CodeFile) -> Findings {
    let mut out = Findings::default();
    for r in RECOGNISERS {
        r.declared(product, file, &mut out);
    }
    out
}

/// The endpoints one file's declarations serve when it is read alone — no other file, no
/// configuration: what a text that is not (yet) in the graph declares (the new side of a
/// diff). Routes that only a whole product can tell (placeholders from config, prefixes
/// from another file's type, OpenAPI specs, `web.xml`) are not among them.
pub(crate) fn endpoints_of_file(file: &CodeFile) -> Vec<Endpoint> {
    let skeletons = std::slice::from_ref(file);
    let table = SymbolTable::build(skeletons.iter());
    let mut knowledge = Knowledge::default();
    knowledge.collect(file);
    let config = ConfigIndex::new(Vec::new());
    let resolve = |_: &str, value: &str| value.to_string();
    let service_of = |_: &str| None;
    let product = Product {
        table: &table,
        values: values::Values {
            types: &types_by_fqn(skeletons),
            own: Default::default(),
            table: &table,
            resolve: &resolve,
        },
        skeletons,
        files: &[],
        configs: &[],
        knowledge: &knowledge,
        builds: &[],
        config: &config,
        service_of: &service_of,
        graphql: &Default::default(),
    };
    declared(&product, file)
        .items
        .into_iter()
        .filter_map(|f| match f {
            Finding::Endpoint(e) => Some(e),
            _ => None,
        })
        .collect()
}

/// Runs every recogniser's `calls` phase over one file and its resolved calls.
pub(crate) fn calls(product: &Product<'_>, file: &CodeFile, resolved: &[ResolvedCall]) -> Findings {
    let mut out = Findings::default();
    for r in RECOGNISERS {
        r.calls(product, file, resolved, &mut out);
    }
    out
}

/// Runs every recogniser's `product` phase.
pub(crate) fn product(product: &Product<'_>) -> ProductFindings {
    let mut out = ProductFindings::default();
    for r in RECOGNISERS {
        r.product(product, &mut out);
    }
    out
}

/// The type, method and call site of a resolved call of `file`.
pub(crate) fn call_site<'f>(
    file: &'f CodeFile,
    call: &ResolvedCall,
) -> Option<(
    &'f TypeDecl,
    &'f crate::facts::MethodDecl,
    &'f crate::facts::CallSite,
)> {
    let (t, m) = caller_decl(file, &call.caller)?;
    Some((t, m, m.calls.get(call.site)?))
}

/// The type and method declarations of `key` in `file`.
pub(crate) fn caller_decl<'f>(
    file: &'f CodeFile,
    key: &MethodKey,
) -> Option<(&'f TypeDecl, &'f crate::facts::MethodDecl)> {
    let t = file.types.iter().find(|t| t.fqn == key.type_fqn)?;
    let m = t
        .methods
        .iter()
        .find(|m| m.name == key.name && MethodKey::of(t, m) == *key)?;
    Some((t, m))
}

/// The first of `names` (external type fqns) that type `fqn` extends or implements,
/// directly or through its supertypes in the product.
pub(crate) fn implements(table: &SymbolTable, fqn: &str, names: &[&str]) -> Option<String> {
    let mut stack = vec![fqn.to_string()];
    let mut seen = std::collections::HashSet::new();
    while let Some(cur) = stack.pop() {
        if !seen.insert(cur.clone()) || seen.len() > 64 {
            continue;
        }
        let Some(t) = table.get(&cur) else {
            continue;
        };
        for sup in t.superclass.iter().chain(&t.interfaces) {
            if let Some(n) = names.iter().find(|n| **n == &**sup) {
                return Some((*n).to_string());
            }
            stack.push(sup.to_string());
        }
    }
    None
}

/// The skeletons of a repository by type fqn.
pub(crate) fn types_by_fqn(skeletons: &[CodeFile]) -> HashMap<&str, &TypeDecl> {
    skeletons
        .iter()
        .flat_map(|f| &f.types)
        .map(|t| (t.fqn.as_str(), t))
        .collect()
}
