//! Areas over MCP, as a property, with rmcp's own client in real sessions: for random tools,
//! endpoints (recipes included), names from the fixture, `scope`s and stray arguments, and
//! random callers — a plain token of each area, a plain token whose MCP request carries
//! another area's header, a gateway — no tool answer carries content (source, SQL, config
//! values, wiki and Jira text) of another area than the caller's.
//!
//! The reserved `caller_area`, wherever the model puts it, changes nothing for a plain
//! token: the answer is the one without it. From a gateway it is the area: the answer is
//! exactly what a token of that area gets, and a model's second, different `caller_area`
//! is refused. `scope` and any other argument never widen access: each case is compared
//! with the same call made by a token of the area it should have.
//!
//! Content is read from the store first, so the check does not trust the server to say
//! what content is.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use crate::mcp::{call, connect_http, Client, Lifecycle};
use crate::support::areas::{pieces, server_toml, structure, Contents, Names, AREAS};
use crate::support::{without_times, TestServer};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use semgraph_queries::{catalog, EndpointSpec};
use serde_json::{json, Map, Value};

const GATEWAY: &str = "gateway-of-every-area";

/// Who calls.
#[derive(Clone, Copy, Debug)]
enum Who {
    /// A plain token of `AREAS[i]`.
    Token(usize),
    /// The finance token, its MCP request carrying `x-semgraph-area: commerce`.
    TokenWithHeader,
    /// The gateway.
    Gateway,
}

/// Where a `caller_area` goes in the arguments.
#[derive(Clone, Copy, Debug)]
enum At {
    Top,
    Params,
}

/// An argument a model might add hoping for more access.
#[derive(Clone, Copy, Debug)]
enum Stray {
    None,
    AreaParam,
    HeaderParam,
    AuthorizationArgument,
}

#[derive(Clone, Debug)]
struct Case {
    endpoint: usize,
    seed: usize,
    who: Who,
    /// The gateway's stamp (its caller's area), where it puts it.
    stamp: (usize, At),
    /// A `caller_area` the model wrote, if any.
    spoof: Option<(usize, At)>,
    scope: Option<usize>,
    optional: bool,
    stray: Stray,
}

/// A tool name and its `endpoint` value for a catalog endpoint (`None` for `meta`).
fn tool_of(spec: &EndpointSpec) -> Option<(&'static str, String)> {
    match spec.domain {
        "meta" => None,
        "recipes" => Some(("execute", spec.name.to_string())),
        "jira" => Some(("wiki", format!("jira/{}", spec.name))),
        "code" => Some(("code", spec.name.to_string())),
        "db" => Some(("db", spec.name.to_string())),
        "config" => Some(("config", spec.name.to_string())),
        "wiki" => Some(("wiki", spec.name.to_string())),
        _ => None,
    }
}

fn put(args: &mut Map<String, Value>, at: At, area: &str) {
    match at {
        At::Top => {
            args.insert("caller_area".into(), json!(area));
        }
        At::Params => {
            if let Some(Value::Object(p)) = args.get_mut("params") {
                p.insert("caller_area".into(), json!(area));
            }
        }
    }
}

struct Sessions {
    tokens: Vec<Client>,
    with_header: Client,
    gateway: Client,
}

#[test]
fn no_tool_answer_carries_content_of_another_area_and_caller_area_counts_only_from_a_gateway() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let toml = format!("{}[[server.gateway]]\ntoken = \"{GATEWAY}\"\n", server_toml());
    let s = rt.block_on(TestServer::start(Some(&toml)));
    let snap = s.state.store().snapshot();
    let contents = Contents::read(&snap);
    let structure = structure(&snap);
    let foreign: BTreeMap<&str, HashSet<String>> = AREAS
        .iter()
        .map(|a| (*a, contents.foreign(a, &structure)))
        .collect();
    let names = Names::read(&snap);
    let products: Vec<String> = s.company.products.iter().map(|p| p.name.clone()).collect();
    let url = s.url("/mcp");
    let sessions = rt.block_on(async {
        let mut tokens = Vec::new();
        for a in AREAS {
            let token = format!("token-of-{a}");
            tokens.push(
                connect_http(&url, Some(&token), &[], Lifecycle::Session)
                    .await
                    .expect("session"),
            );
        }
        let with_header = connect_http(
            &url,
            Some("token-of-finance"),
            &[("x-semgraph-area", "commerce")],
            Lifecycle::Session,
        )
        .await
        .expect("session with a header");
        let gateway = connect_http(&url, Some(GATEWAY), &[], Lifecycle::Session)
            .await
            .expect("gateway session");
        Sessions {
            tokens,
            with_header,
            gateway,
        }
    });
    let finance = AREAS.iter().position(|a| *a == "finance").expect("finance");
    let specs: Vec<&EndpointSpec> = catalog().iter().filter(|s| tool_of(s).is_some()).collect();
    let answered = std::cell::Cell::new(0usize);
    let refused_twice = std::cell::Cell::new(0usize);
    let at = prop_oneof![Just(At::Top), Just(At::Params)];
    let who = prop_oneof![
        (0..AREAS.len()).prop_map(Who::Token),
        Just(Who::TokenWithHeader),
        Just(Who::Gateway),
        Just(Who::Gateway),
    ];
    let stray = prop_oneof![
        4 => Just(Stray::None),
        1 => Just(Stray::AreaParam),
        1 => Just(Stray::HeaderParam),
        1 => Just(Stray::AuthorizationArgument),
    ];
    let strategy = (
        0..specs.len(),
        0usize..10_000,
        who,
        (0..AREAS.len(), at.clone()),
        proptest::option::weighted(0.6, (0..AREAS.len(), at)),
        proptest::option::of(0..products.len()),
        any::<bool>(),
        stray,
    )
        .prop_map(
            |(endpoint, seed, who, stamp, spoof, scope, optional, stray)| Case {
                endpoint,
                seed,
                who,
                stamp,
                spoof,
                scope,
                optional,
                stray,
            },
        );
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |case| {
            let spec = specs[case.endpoint];
            let (tool, endpoint) = tool_of(spec).expect("a tool");
            let mut params = Map::new();
            for (k, p) in spec.params.iter().enumerate() {
                if p.name == "scope" {
                    continue;
                }
                if p.required || (case.optional && (case.seed + k).is_multiple_of(2)) {
                    params.insert(
                        p.name.to_string(),
                        json!(names.value(spec, p.name, &p.ty, case.seed + k)),
                    );
                }
            }
            if let Some(i) = case.scope.filter(|_| spec.param("scope").is_some()) {
                params.insert("scope".into(), json!(products[i]));
            }
            let mut plain = Map::new();
            plain.insert("endpoint".into(), json!(endpoint));
            plain.insert("params".into(), Value::Object(params));
            match case.stray {
                Stray::None => {}
                Stray::AreaParam | Stray::HeaderParam => {
                    let name = if matches!(case.stray, Stray::AreaParam) {
                        "area"
                    } else {
                        "x-semgraph-area"
                    };
                    if let Some(Value::Object(p)) = plain.get_mut("params") {
                        p.insert(name.into(), json!(AREAS[case.seed % AREAS.len()]));
                    }
                }
                Stray::AuthorizationArgument => {
                    plain.insert("authorization".into(), json!(format!("Bearer {GATEWAY}")));
                }
            }
            // The area the caller must get, the session it calls from, its arguments, and
            // whether the call must be refused (a gateway stamp and a different spoof).
            let mut args = plain.clone();
            let (area, session, refused) = match case.who {
                Who::Token(i) => {
                    if let Some((j, at)) = case.spoof {
                        put(&mut args, at, AREAS[j]);
                    }
                    (i, &sessions.tokens[i], false)
                }
                Who::TokenWithHeader => {
                    if let Some((j, at)) = case.spoof {
                        put(&mut args, at, AREAS[j]);
                    }
                    (finance, &sessions.with_header, false)
                }
                Who::Gateway => {
                    let (stamped, at) = case.stamp;
                    let mut conflict = false;
                    if let Some((j, spoof_at)) = case.spoof {
                        // The gateway overwrites the model's value where it stamps; one put
                        // elsewhere stays, and differs or not.
                        if !matches!((spoof_at, at), (At::Top, At::Top) | (At::Params, At::Params)) {
                            put(&mut args, spoof_at, AREAS[j]);
                            conflict = j != stamped;
                        }
                    }
                    put(&mut args, at, AREAS[stamped]);
                    (stamped, &sessions.gateway, conflict)
                }
            };
            let area_name = AREAS[area];
            let (got, reference) = rt.block_on(async {
                (
                    call(session, tool, Value::Object(args.clone())).await,
                    call(&sessions.tokens[area], tool, Value::Object(plain.clone())).await,
                )
            });
            let mut seen = BTreeSet::new();
            pieces(&got.text, &mut seen);
            let leaked: Vec<&String> = seen.iter().filter(|p| foreign[area_name].contains(*p)).collect();
            prop_assert!(
                leaked.is_empty(),
                "{tool} {args:?} as {:?} (area {area_name}): content of another area: {leaked:?}",
                case.who
            );
            prop_assert!(
                !got.text.starts_with("# 5"),
                "{tool} {args:?}: never a server error: {}",
                got.text
            );
            if refused {
                refused_twice.set(refused_twice.get() + 1);
                prop_assert!(got.is_error, "two different caller_area: {}", got.text);
                prop_assert!(got.text.contains("`caller_area` is given twice"), "{}", got.text);
                return Ok(());
            }
            if !got.is_error {
                answered.set(answered.get() + 1);
            }
            prop_assert_eq!(
                got.is_error,
                reference.is_error,
                "{} {:?} as {:?}: the answer is the one a token of {} gets:\n{}\n---\n{}",
                tool,
                args,
                case.who,
                area_name,
                got.text,
                reference.text
            );
            prop_assert_eq!(
                without_times(&got.text),
                without_times(&reference.text),
                "{} {:?} as {:?}: the answer is the one a token of {} gets",
                tool,
                args,
                case.who,
                area_name
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let answered = answered.get();
    eprintln!(
        "mcp areas: {answered} answered, {} refused for two caller_area values",
        refused_twice.get()
    );
    assert!(
        answered > 30,
        "most cases answer ({answered}), so content was at stake"
    );
    rt.block_on(async move {
        for c in sessions.tokens {
            let _ = c.cancel().await;
        }
        let _ = sessions.with_header.cancel().await;
        let _ = sessions.gateway.cancel().await;
    });
}
