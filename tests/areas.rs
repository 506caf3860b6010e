//! Areas over HTTP, as a property: for random endpoints (recipes included), random names
//! from the fixture, both formats and a random token of one of the fixture's areas, no
//! response carries content (source, SQL, config values, wiki and Jira text) of a product
//! of another area; and an area header sent with a non-gateway token changes nothing.
//!
//! The content of every area is read from the store first, so the check does not trust
//! the code under test to say what content is.

mod support;

use std::collections::{BTreeMap, BTreeSet, HashSet};

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use semgraph_queries::{catalog, EndpointSpec, HttpMethod};
use serde_json::Value;
use support::areas::{comparable, pieces, server_toml, strings_of, structure, Contents, Names, AREAS};
use support::{send, without_times, TestServer};

#[derive(Clone, Debug)]
struct Case {
    endpoint: usize,
    seed: usize,
    area: usize,
    json: bool,
    optional: bool,
    post: bool,
    header_area: usize,
}

#[test]
fn no_response_carries_content_of_another_area() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let toml = server_toml();
    let s = rt.block_on(TestServer::start(Some(&toml)));
    let snap = s.state.store().snapshot();
    let contents = Contents::read(&snap);
    for a in AREAS {
        assert!(
            contents.lines.get(*a).is_some_and(|l| l.len() > 10),
            "the fixture has content in area {a}"
        );
    }
    let structure = structure(&snap);
    let foreign: BTreeMap<&str, HashSet<String>> = AREAS
        .iter()
        .map(|a| (*a, contents.foreign(a, &structure)))
        .collect();
    let names = Names::read(&snap);
    let client = reqwest::Client::new();
    let specs: Vec<&EndpointSpec> = catalog().iter().collect();
    let answered = std::cell::Cell::new(0usize);
    let strategy = (
        0..specs.len(),
        0usize..10_000,
        0..AREAS.len(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        0..AREAS.len(),
    )
        .prop_map(|(endpoint, seed, area, json, optional, post, header_area)| Case {
            endpoint,
            seed,
            area,
            json,
            optional,
            post,
            header_area,
        });
    let mut runner = TestRunner::new(Config {
        cases: 256,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&strategy, |case| {
            let spec = specs[case.endpoint];
            let area = AREAS[case.area];
            let mut params: Vec<(String, String)> = Vec::new();
            for (k, p) in spec.params.iter().enumerate() {
                if p.required || (case.optional && (case.seed + k).is_multiple_of(2) && p.name != "scope") {
                    params.push((
                        p.name.to_string(),
                        names.value(spec, p.name, &p.ty, case.seed + k),
                    ));
                }
            }
            let url = s.url(&spec.path());
            let build = |with_header: bool| {
                let mut r = if case.post && spec.method == HttpMethod::Post {
                    let body: serde_json::Map<String, Value> = params
                        .iter()
                        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                        .collect();
                    client.post(&url).body(Value::Object(body).to_string())
                } else {
                    client.get(&url).query(&params)
                };
                r = r.bearer_auth(format!("token-of-{area}"));
                if case.json {
                    r = r.header("accept", "application/json");
                }
                if with_header {
                    r = r.header("x-semgraph-area", AREAS[case.header_area]);
                }
                r
            };
            let (plain, with_header) =
                rt.block_on(async { (send(build(false)).await, send(build(true)).await) });
            prop_assert!(
                [200, 403, 404, 422].contains(&plain.status),
                "{} {:?}: {} {}",
                spec.path(),
                params,
                plain.status,
                plain.body
            );
            if plain.status == 200 {
                answered.set(answered.get() + 1);
            }
            let mut seen = BTreeSet::new();
            for a in [&plain, &with_header] {
                if case.json {
                    let v: Value =
                        serde_json::from_str(&a.body).map_err(|e| TestCaseError::fail(e.to_string()))?;
                    strings_of(&v, &mut seen);
                } else {
                    pieces(&a.body, &mut seen);
                }
            }
            let leaked: Vec<&String> = seen.iter().filter(|p| foreign[area].contains(*p)).collect();
            prop_assert!(
                leaked.is_empty(),
                "{} {:?} as {area}: content of another area: {:?}",
                spec.path(),
                params,
                leaked
            );
            prop_assert_eq!(
                plain.status,
                with_header.status,
                "the area header of a plain token is ignored"
            );
            if case.json {
                let parse = |b: &str| serde_json::from_str::<Value>(b).map(|v| comparable(&v)).ok();
                prop_assert_eq!(
                    parse(&plain.body),
                    parse(&with_header.body),
                    "the area header of a plain token is ignored"
                );
            } else {
                prop_assert_eq!(
                    without_times(&plain.body),
                    without_times(&with_header.body),
                    "the area header of a plain token is ignored"
                );
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let answered = answered.get();
    eprintln!("answered {answered}");
    assert!(
        answered > 40,
        "most cases answer 200 ({answered}), so content was at stake"
    );
}
