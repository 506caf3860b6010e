//! The REST API over a real socket and a real store: the fixture company indexed into a
//! temporary RocksDB, a server on a loopback port, and a plain HTTP client. Every domain
//! answers markdown and JSON; parameters are strict; pages continue where the last one
//! stopped; discover lists exactly the OpenAPI document's routes; tokens decide areas.

mod support;

use std::collections::BTreeSet;
use std::process::Command;

use serde_json::Value;
use support::{send, without_footer, without_times, TestServer};

const PLACE_ORDER: &str = "com.acme.orders.service.OrderService.placeOrder";
const CHARGE: &str = "com.acme.payments.service.PaymentService.charge";

fn client() -> reqwest::Client {
    reqwest::Client::new()
}

fn json(body: &str) -> Value {
    serde_json::from_str(body).unwrap_or_else(|e| panic!("not JSON ({e}): {body}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_domain_answers_markdown_and_the_same_result_as_json() {
    let s = TestServer::start(None).await;
    let c = client();
    let gets = [
        ("/api/v1/code/callers", vec![("fqn", PLACE_ORDER)]),
        ("/api/v1/db/table", vec![("name", "orders")]),
        ("/api/v1/config/keys", vec![]),
        ("/api/v1/wiki/search", vec![("q", "order")]),
        ("/api/v1/jira/search", vec![]),
        ("/api/v1/recipes/impact", vec![("target", PLACE_ORDER)]),
        ("/api/v1/products", vec![]),
    ];
    for (path, params) in &gets {
        let md = send(c.get(s.url(path)).query(params)).await;
        assert_eq!(md.status, 200, "{path}: {}", md.body);
        assert_eq!(md.content_type, "text/markdown; charset=utf-8", "{path}");
        assert!(
            md.body.starts_with("# "),
            "{path} starts with its title: {}",
            md.body
        );
        assert!(
            md.body.trim_end().ends_with("Page 1 of 1"),
            "{path} ends with its footer"
        );
        let js = send(
            c.get(s.url(path))
                .query(params)
                .header("accept", "application/json"),
        )
        .await;
        assert_eq!(js.status, 200, "{path}: {}", js.body);
        assert_eq!(js.content_type, "application/json", "{path}");
        let v = json(&js.body);
        assert_eq!(v["page"], 1, "{path}");
        assert_eq!(v["pages"], 1, "{path}");
        assert_eq!(v["page_size"], 20_000, "{path}");
        assert_eq!(
            v["markdown"].as_str(),
            Some(md.body.as_str()),
            "{path}: same page"
        );
        assert!(
            v["result"].is_object() || v["result"].is_array(),
            "{path}: a result"
        );
        assert!(!v["title"].as_str().unwrap_or("").is_empty(), "{path}: a title");
    }
    let callers = send(
        c.get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER)]),
    )
    .await;
    assert!(
        callers
            .body
            .contains("com.acme.orders.web.OrderController.placeOrder")
            || callers.body.contains("OrderController.placeOrder"),
        "the controller calls placeOrder: {}",
        callers.body
    );
    // A recipe answers POST with a JSON body (any scalar type) exactly as GET.
    let get = send(
        c.get(s.url("/api/v1/recipes/impact"))
            .query(&[("target", PLACE_ORDER), ("depth", "2")]),
    )
    .await;
    let post = send(
        c.post(s.url("/api/v1/recipes/impact"))
            .header("content-type", "application/json")
            .body(format!(
                r#"{{"target": "{PLACE_ORDER}", "depth": 2, "include_tests": false}}"#
            )),
    )
    .await;
    assert_eq!(post.status, 200, "{}", post.body);
    assert_eq!(
        without_times(without_footer(&post.body)),
        without_times(without_footer(&get.body))
    );
    assert!(post.body.contains("recipe_version: impact/"), "{}", post.body);
    // An empty body is no parameters.
    let status = send(c.post(s.url("/api/v1/recipes/status-snapshot"))).await;
    assert_eq!(status.status, 200, "{}", status.body);
    let health = send(c.get(s.url("/healthz"))).await;
    assert_eq!(health.status, 200);
    assert!(health.body.starts_with("ok"), "{}", health.body);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wrong_requests_are_422_or_404_with_a_body_that_names_the_fix() {
    let s = TestServer::start(None).await;
    let c = client();
    let wrong = send(c.get(s.url("/api/v1/code/callers?name=x"))).await;
    assert_eq!(wrong.status, 422, "{}", wrong.body);
    assert!(
        wrong.body.contains("`fqn`"),
        "names the right parameter: {}",
        wrong.body
    );
    assert!(
        wrong.body.contains("discover"),
        "points to discover: {}",
        wrong.body
    );
    let js = send(
        c.get(s.url("/api/v1/code/callers?name=x"))
            .header("accept", "application/json"),
    )
    .await;
    assert_eq!(js.status, 422);
    let v = json(&js.body);
    assert_eq!(v["error"]["status"], 422);
    assert_eq!(v["error"]["message"].as_str(), Some(wrong.body.as_str()));
    // Unknown parameters are refused on every route of the catalog, GET and POST.
    for spec in semgraph_queries::catalog() {
        let r = send(c.get(format!("{}{}?bogus_parameter=1", s.base, spec.path()))).await;
        assert_eq!(r.status, 422, "{}: {}", spec.path(), r.body);
        assert!(r.body.contains("bogus_parameter"), "{}: {}", spec.path(), r.body);
        if spec.method == semgraph_queries::HttpMethod::Post {
            let r = send(
                c.post(format!("{}{}", s.base, spec.path()))
                    .body(r#"{"bogus_parameter": 1}"#),
            )
            .await;
            assert_eq!(r.status, 422, "{}: {}", spec.path(), r.body);
        }
    }
    for path in ["/api/v1/discover", "/api/v1/openapi.json", "/api/v1/admin/jobs"] {
        let r = send(c.get(format!("{}{path}?bogus_parameter=1", s.base))).await;
        assert_eq!(r.status, 422, "{path}: {}", r.body);
    }
    let malformed = send(c.post(s.url("/api/v1/recipes/impact")).body("{\"target\": ")).await;
    assert_eq!(malformed.status, 422);
    assert!(malformed.body.contains("not valid JSON"), "{}", malformed.body);
    let array = send(c.post(s.url("/api/v1/recipes/impact")).body("[\"x\"]")).await;
    assert_eq!(array.status, 422);
    assert!(array.body.contains("must be a JSON object"), "{}", array.body);
    let nested = send(
        c.post(s.url("/api/v1/recipes/impact"))
            .body(r#"{"target": ["x"]}"#),
    )
    .await;
    assert_eq!(nested.status, 422);
    assert!(nested.body.contains("`target`"), "{}", nested.body);
    let twice = send(c.get(s.url("/api/v1/db/table?name=orders&name=payments"))).await;
    assert_eq!(twice.status, 422);
    assert!(twice.body.contains("given twice"), "{}", twice.body);
    let missing = send(c.get(s.url("/api/v1/code/callers"))).await;
    assert_eq!(missing.status, 422);
    assert!(
        missing.body.contains("missing required parameter `fqn`"),
        "{}",
        missing.body
    );
    let page_size = send(c.get(s.url("/api/v1/products?page_size=10"))).await;
    assert_eq!(page_size.status, 422);
    assert!(page_size.body.contains("page_size"), "{}", page_size.body);
    // An unknown entity is a 404 from queries; an unknown route a 404 naming the nearest.
    let entity = send(c.get(s.url("/api/v1/db/table?name=no_such_table_anywhere"))).await;
    assert_eq!(entity.status, 404, "{}", entity.body);
    let route = send(c.get(s.url("/api/v1/code/caller?fqn=x"))).await;
    assert_eq!(route.status, 404);
    assert!(route.body.contains("/api/v1/code/callers"), "{}", route.body);
    assert!(route.body.contains("/api/v1/discover"), "{}", route.body);
    // A wrong method is a 405 whose `Allow` header names the right one (RFC 9110).
    for (method, path, allowed) in [
        (reqwest::Method::POST, "/api/v1/code/callers", "GET"),
        (reqwest::Method::GET, "/api/v1/admin/backup", "POST"),
        (reqwest::Method::DELETE, "/api/v1/admin/index", "POST"),
        (reqwest::Method::PUT, "/api/v1/discover", "GET"),
    ] {
        let response = c
            .request(method.clone(), s.url(path))
            .send()
            .await
            .expect("request");
        assert_eq!(response.status().as_u16(), 405, "{method} {path}");
        let allow = response.headers().get("allow").and_then(|v| v.to_str().ok());
        assert_eq!(allow, Some(allowed), "{method} {path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_continue_where_the_last_stopped_and_concatenate_to_the_document() {
    let s = TestServer::start(None).await;
    let c = client();
    let path = "/api/v1/code/search?q=com.acme&limit=500";
    let whole = send(c.get(s.url(path)).query(&[("page_size", "200000")])).await;
    assert_eq!(whole.status, 200, "{}", whole.body);
    let whole_text = without_footer(&whole.body).to_string();
    let first = send(c.get(s.url(path)).query(&[("page_size", "1000")])).await;
    assert_eq!(first.status, 200, "{}", first.body);
    let footer = first
        .body
        .trim_end()
        .rsplit('\n')
        .next()
        .unwrap_or("")
        .to_string();
    let count: usize = footer
        .strip_prefix("Page 1 of ")
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("footer says how many pages: {footer}"));
    assert!(
        count >= 3,
        "a long document at page_size 1000 has several pages: {footer}"
    );
    assert!(
        footer.contains("FETCH EVERY PAGE") && footer.contains("`page=2`"),
        "{footer}"
    );
    let mut cursor = 0;
    for k in 1..=count {
        let page = send(
            c.get(s.url(path))
                .query(&[("page_size", "1000"), ("page", &k.to_string())]),
        )
        .await;
        assert_eq!(page.status, 200, "page {k}: {}", page.body);
        let last_line = page.body.trim_end().rsplit('\n').next().unwrap_or("");
        assert!(
            last_line.starts_with(&format!("Page {k} of {count}")),
            "page {k}: {last_line}"
        );
        let text = without_footer(&page.body);
        assert!(
            whole_text[cursor..].starts_with(text),
            "page {k} continues where page {} stopped",
            k - 1
        );
        cursor += text.len();
        cursor += whole_text[cursor..].len() - whole_text[cursor..].trim_start_matches('\n').len();
        let js = send(
            c.get(s.url(path))
                .query(&[("page_size", "1000"), ("page", &k.to_string())])
                .header("accept", "application/json"),
        )
        .await;
        let v = json(&js.body);
        assert_eq!(v["page"], k);
        assert_eq!(v["pages"], count);
        assert_eq!(v["markdown"].as_str(), Some(page.body.as_str()));
        assert_eq!(v["result"].is_null(), k > 1, "the result rides on page 1 only");
    }
    assert_eq!(cursor, whole_text.len(), "the pages hold the whole document");
    let beyond = send(
        c.get(s.url(path))
            .query(&[("page_size", "1000"), ("page", &(count + 1).to_string())]),
    )
    .await;
    assert_eq!(beyond.status, 404, "a page beyond the last does not exist");
    assert!(beyond.body.contains(&format!("{count} pages")), "{}", beyond.body);
}

/// The `METHOD|METHOD /path` routes a discover catalog lists.
fn discover_routes(markdown: &str) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    for line in markdown.lines() {
        let Some(rest) = line.strip_prefix("- `") else {
            continue;
        };
        let Some((route, _)) = rest.split_once('`') else {
            continue;
        };
        let Some((methods, path)) = route.split_once(' ') else {
            continue;
        };
        for m in methods.split('|') {
            out.insert((m.to_string(), path.to_string()));
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_lists_every_route_of_the_openapi_document_and_nothing_else() {
    let s = TestServer::start(None).await;
    let c = client();
    let doc = send(c.get(s.url("/api/v1/openapi.json"))).await;
    assert_eq!(doc.status, 200);
    let openapi = json(&doc.body);
    let mut documented = BTreeSet::new();
    for (path, item) in openapi["paths"].as_object().expect("paths") {
        for method in item.as_object().expect("path item").keys() {
            documented.insert((method.to_uppercase(), path.clone()));
        }
    }
    for spec in semgraph_queries::catalog() {
        assert!(
            documented.contains(&("GET".to_string(), spec.path())),
            "{} is documented",
            spec.path()
        );
    }
    let discover = send(c.get(s.url("/api/v1/discover"))).await;
    assert_eq!(discover.status, 200, "{}", discover.body);
    assert_eq!(discover_routes(&discover.body), documented);
    eprintln!("discover: {} chars", discover.body.chars().count());
    assert!(
        discover.body.chars().count() < 20_000,
        "discover fits one default page"
    );
    assert!(
        discover.body.contains("required: `fqn` string"),
        "{}",
        discover.body
    );
    assert!(
        discover.body.contains("`depth` integer 1..8 = 3"),
        "{}",
        discover.body
    );
    // Every route of the document answers at its path (no 404 from the router).
    for (method, path) in &documented {
        if path.contains("admin/index") {
            continue;
        }
        let r = send(c.request(method.parse().expect("method"), s.url(path))).await;
        assert_ne!(r.status, 404, "{method} {path}: {}", r.body);
        assert_ne!(r.status, 405, "{method} {path}: {}", r.body);
    }
    let code = send(c.get(s.url("/api/v1/discover?domain=code"))).await;
    assert_eq!(code.status, 200);
    assert!(discover_routes(&code.body)
        .iter()
        .all(|(_, p)| p.starts_with("/api/v1/code/")));
    let unknown = send(c.get(s.url("/api/v1/discover?domain=cod"))).await;
    assert_eq!(unknown.status, 422);
    assert!(
        unknown.body.contains("`code`") && unknown.body.contains("`recipes`"),
        "{}",
        unknown.body
    );
}

const TOKENS: &str = r#"
[server]
[[server.token]]
token = "commerce-token-1"
area = "commerce"
[[server.token]]
token = "operator-token-1"
area = "*"
[[server.gateway]]
token = "gateway-token-1"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_decide_the_area_and_content_outside_it_is_a_403() {
    let s = TestServer::start(Some(TOKENS)).await;
    let c = client();
    let source = |fqn: &str| s.url(&format!("/api/v1/code/source?fqn={fqn}"));
    let none = send(c.get(source(PLACE_ORDER))).await;
    assert_eq!(none.status, 401, "{}", none.body);
    assert!(none.body.contains("Authorization: Bearer"), "{}", none.body);
    let bad = send(c.get(source(PLACE_ORDER)).bearer_auth("not-a-token")).await;
    assert_eq!(bad.status, 401);
    let discover = send(c.get(s.url("/api/v1/discover"))).await;
    assert_eq!(discover.status, 401, "discover needs a token too");
    assert_eq!(
        send(c.get(s.url("/healthz"))).await.status,
        200,
        "health needs none"
    );
    let mine = send(c.get(source(PLACE_ORDER)).bearer_auth("commerce-token-1")).await;
    assert_eq!(mine.status, 200, "{}", mine.body);
    assert!(mine.body.contains("```"), "source comes fenced: {}", mine.body);
    let theirs = send(c.get(source(CHARGE)).bearer_auth("commerce-token-1")).await;
    assert_eq!(theirs.status, 403, "{}", theirs.body);
    assert!(theirs.body.contains("permission boundary"), "{}", theirs.body);
    // A non-gateway token's area header is ignored; a gateway's is the area.
    let asserted = send(
        c.get(source(CHARGE))
            .bearer_auth("commerce-token-1")
            .header("x-semgraph-area", "finance"),
    )
    .await;
    assert_eq!(asserted.status, 403, "{}", asserted.body);
    let gateway = send(
        c.get(source(CHARGE))
            .bearer_auth("gateway-token-1")
            .header("x-semgraph-area", "finance"),
    )
    .await;
    assert_eq!(gateway.status, 200, "{}", gateway.body);
    let gateway_other = send(
        c.get(source(PLACE_ORDER))
            .bearer_auth("gateway-token-1")
            .header("x-semgraph-area", "finance"),
    )
    .await;
    assert_eq!(gateway_other.status, 403);
    let gateway_bare = send(c.get(source(CHARGE)).bearer_auth("gateway-token-1")).await;
    assert_eq!(gateway_bare.status, 401, "{}", gateway_bare.body);
    // A recipe never fails for the boundary: it leaves content out and says so.
    let impact = send(
        c.post(s.url("/api/v1/recipes/impact"))
            .bearer_auth("commerce-token-1")
            .body(format!(r#"{{"target": "{CHARGE}"}}"#)),
    )
    .await;
    assert_eq!(impact.status, 200, "{}", impact.body);
    // Admin needs full access.
    let jobs = send(c.get(s.url("/api/v1/admin/jobs")).bearer_auth("commerce-token-1")).await;
    assert_eq!(jobs.status, 403, "{}", jobs.body);
    let jobs = send(c.get(s.url("/api/v1/admin/jobs")).bearer_auth("operator-token-1")).await;
    assert_eq!(jobs.status, 200, "{}", jobs.body);
    let operator = send(c.get(source(CHARGE)).bearer_auth("operator-token-1")).await;
    assert_eq!(operator.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_without_tokens_binds_loopback_only() {
    let auth = semgraph::server::Auth::none();
    let refused = semgraph::server::bind("0.0.0.0:0", &auth).await;
    let err = refused.expect_err("refused");
    assert!(err.to_string().contains("without auth"), "{err}");
    assert!(semgraph::server::bind("127.0.0.1:0", &auth).await.is_ok());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_indexes_while_it_answers_and_the_cli_prints_the_same_answer() {
    let s = TestServer::start(None).await;
    let c = client();
    let before = s.state.store().snapshot().generation();
    let started = send(
        c.post(s.url("/api/v1/admin/index"))
            .body(r#"{"product": "orders"}"#),
    )
    .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let again = send(c.post(s.url("/api/v1/admin/index"))).await;
    let running = send(
        c.get(s.url("/api/v1/admin/jobs"))
            .header("accept", "application/json"),
    )
    .await;
    let still_running = json(&running.body)["result"]["jobs"][0]["state"] == "running";
    if still_running {
        assert_eq!(again.status, 409, "one job at a time: {}", again.body);
    }
    // Readers keep answering while the job runs.
    let during = send(
        c.get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER)]),
    )
    .await;
    assert_eq!(during.status, 200);
    let mut done = false;
    for _ in 0..600 {
        let jobs = send(
            c.get(s.url("/api/v1/admin/jobs"))
                .header("accept", "application/json"),
        )
        .await;
        let v = json(&jobs.body)["result"].clone();
        if v["jobs"]
            .as_array()
            .is_some_and(|j| j.iter().all(|j| j["state"] != "running"))
        {
            assert!(
                v["jobs"]
                    .as_array()
                    .is_some_and(|j| j.iter().all(|j| j["state"] == "done")),
                "{v}"
            );
            done = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(done, "the job finished");
    assert!(
        s.state.store().snapshot().generation() > before,
        "a new generation is served"
    );
    let unknown = send(
        c.post(s.url("/api/v1/admin/index"))
            .body(r#"{"product": "nope"}"#),
    )
    .await;
    assert_eq!(unknown.status, 404, "no such product");
    assert!(unknown.body.contains("`orders`"), "{}", unknown.body);

    // `semgraph query` opens the store read-only beside the server and prints the same bytes.
    for json_flag in [false, true] {
        let mut request = c
            .get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER)]);
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_semgraph"));
        cmd.args(["query", "code/callers", &format!("fqn={PLACE_ORDER}"), "--store"])
            .arg(s.store_dir());
        if json_flag {
            request = request.header("accept", "application/json");
            cmd.arg("--json");
        }
        let http = send(request).await;
        let out = cmd.output().expect("run semgraph query");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let printed = String::from_utf8_lossy(&out.stdout);
        assert_eq!(printed, http.body, "json={json_flag}");
    }
    // The request itself, pasted as the target (a path with its query string, or the whole
    // URL the server was asked at), is the same question.
    let http = send(
        c.get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER), ("depth", "2")]),
    )
    .await;
    assert_eq!(http.status, 200, "{}", http.body);
    let query = serde_urlencoded::to_string([("fqn", PLACE_ORDER)]).expect("query string");
    for target in [
        format!("code/callers?{query}&depth=2"),
        format!("{}?{query}&depth=2", s.url("/api/v1/code/callers")),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_semgraph"))
            .args(["query", &target, "--store"])
            .arg(s.store_dir())
            .output()
            .expect("run semgraph query");
        assert!(
            out.status.success(),
            "{target}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout), http.body, "{target}");
    }
    let wrong = Command::new(env!("CARGO_BIN_EXE_semgraph"))
        .args(["query", "code/callers", "name=x", "--store"])
        .arg(s.store_dir())
        .output()
        .expect("run semgraph query");
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stdout).contains("`fqn`"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn change_impact_takes_a_diff_in_a_post_body_and_refuses_it_in_a_query_string() {
    let s = TestServer::start(None).await;
    let c = client();
    let diff = std::fs::read_to_string(
        support::fixture()
            .with_file_name("changes")
            .join("orders-open-orders.diff"),
    )
    .expect("the diff");
    let path = "/api/v1/recipes/change-impact";
    let ok = send(
        c.post(s.url(path))
            .query(&[("depth", "2")])
            .header("accept", "application/json")
            .body(serde_json::json!({ "diff": diff }).to_string()),
    )
    .await;
    assert_eq!(ok.status, 200, "{}", ok.body);
    let v = json(&ok.body);
    assert_eq!(v["result"]["recipe_version"], "change-impact/1");
    assert_eq!(
        v["result"]["depth"], 2,
        "the query string's parameters join the body's"
    );
    assert_eq!(v["result"]["complete"], true, "{}", v["markdown"]);
    assert!(v["markdown"].as_str().unwrap_or("").contains("## Tests to run"));

    // A document does not fit a URL: GET says to POST it.
    let get = send(c.get(s.url(path)).query(&[("diff", diff.as_str())])).await;
    assert_eq!(get.status, 422, "{}", get.body);
    assert!(
        get.body.contains("`diff`") && get.body.contains("POST"),
        "{}",
        get.body
    );
    // Neither a diff nor a range; a range without its repository; both.
    let none = send(c.post(s.url(path)).body("{}")).await;
    assert_eq!(none.status, 422, "{}", none.body);
    assert!(none.body.contains("parameter `diff`"), "{}", none.body);
    let range = send(c.post(s.url(path)).body(r#"{"range": "main..HEAD"}"#)).await;
    assert_eq!(range.status, 422, "{}", range.body);
    assert!(range.body.contains("parameter `repo`"), "{}", range.body);
    let both = send(
        c.post(s.url(path))
            .body(serde_json::json!({ "diff": diff, "repo": "orders", "range": "a..b" }).to_string()),
    )
    .await;
    assert_eq!(both.status, 422, "{}", both.body);
    // An option smuggled into a revision never reaches git.
    let smuggled = send(
        c.post(s.url(path))
            .body(r#"{"repo": "orders", "range": "--output=/tmp/x..HEAD"}"#),
    )
    .await;
    assert_eq!(smuggled.status, 422, "{}", smuggled.body);
    assert!(smuggled.body.contains("parameter `range`"), "{}", smuggled.body);
    // A diff that is not one.
    let garbage = send(
        c.post(s.url(path))
            .body(r#"{"diff": "--- a\n+++ b\n@@ -1,3 +1,3 @@\n nope\n"}"#),
    )
    .await;
    assert_eq!(garbage.status, 422, "{}", garbage.body);
    assert!(garbage.body.contains("cannot be read"), "{}", garbage.body);
}

/// The samples of a `/metrics` answer, read by a Prometheus text-format parser.
fn scrape(body: &str) -> prometheus_parse::Scrape {
    prometheus_parse::Scrape::parse(body.lines().map(|l| Ok(l.to_string()))).expect("a Prometheus exposition")
}

/// The value of the counter, gauge or untyped sample `metric` with exactly `labels`.
fn sample(scrape: &prometheus_parse::Scrape, metric: &str, labels: &[(&str, &str)]) -> Option<f64> {
    scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == metric
                && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
                && s.labels.len() == labels.len()
        })
        .and_then(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => Some(v),
            _ => None,
        })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_count_requests_by_route_and_status_with_latency_and_the_store() {
    let s = TestServer::start(None).await;
    let c = client();
    let ok = send(
        c.get(s.url("/api/v1/code/callers"))
            .query(&[("fqn", PLACE_ORDER)]),
    )
    .await;
    assert_eq!(ok.status, 200);
    let wrong = send(
        c.get(s.url("/api/v1/code/callers"))
            .query(&[("fqnn", PLACE_ORDER)]),
    )
    .await;
    assert_eq!(wrong.status, 422);
    // A path no route has is `other`: a caller cannot grow the label set.
    for junk in ["/no/such/path", "/api/v1/code/nope", "/api/v1/xyz"] {
        assert_eq!(send(c.get(s.url(junk))).await.status, 404);
    }
    let answer = send(c.get(s.url("/metrics"))).await;
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert!(
        answer.content_type.starts_with("application/openmetrics-text"),
        "{}",
        answer.content_type
    );
    assert!(answer.body.trim_end().ends_with("# EOF"), "{}", answer.body);
    let m = scrape(&answer.body);
    let requests = "semgraph_http_requests_total";
    let callers = [("endpoint", "/api/v1/code/callers"), ("method", "GET")];
    assert_eq!(
        sample(&m, requests, &[callers[0], callers[1], ("status", "200")]),
        Some(1.0),
        "{}",
        answer.body
    );
    assert_eq!(
        sample(&m, requests, &[callers[0], callers[1], ("status", "422")]),
        Some(1.0)
    );
    assert_eq!(
        sample(
            &m,
            requests,
            &[("endpoint", "other"), ("method", "GET"), ("status", "404")]
        ),
        Some(3.0)
    );
    // Latency: a histogram per route, its +Inf bucket counting both requests.
    let latency = m
        .samples
        .iter()
        .find(|s| {
            s.metric == "semgraph_http_request_duration_seconds"
                && s.labels.get("endpoint") == Some("/api/v1/code/callers")
        })
        .expect("a latency histogram for code/callers");
    let prometheus_parse::Value::Histogram(buckets) = &latency.value else {
        panic!("latency is a histogram: {:?}", latency.value);
    };
    let inf = buckets
        .iter()
        .find(|b| b.less_than.is_infinite())
        .expect("a +Inf bucket");
    assert_eq!(inf.count, 2.0);
    assert!(
        buckets.windows(2).all(|w| w[0].count <= w[1].count),
        "buckets are cumulative: {buckets:?}"
    );
    // The store: the served generation, its size, each product's nodes.
    let snapshot = s.state.store().snapshot();
    assert_eq!(
        sample(&m, "semgraph_store_generation", &[]),
        Some(snapshot.generation() as f64)
    );
    assert!(sample(&m, "semgraph_store_size_bytes", &[]).is_some_and(|b| b > 0.0));
    // The caches: the callers answer is kept for the next asker; the node records it read
    // are in the block cache.
    let held = sample(&m, "semgraph_document_cache_bytes", &[]);
    assert!(
        held.is_some_and(|b| b > 0.0 && b <= (64u64 << 20) as f64),
        "the callers answer is cached, within the default budget: {held:?}"
    );
    assert!(sample(&m, "semgraph_block_cache_bytes", &[]).is_some_and(|b| b > 0.0));
    // RocksDB outside its block cache: a memtable per column family (each holds at least
    // its first block; the index's commit flushed what it wrote) and the readers of the
    // table files the index wrote.
    for family in ["meta", "nodes", "names", "adj_in", "default"] {
        assert!(
            sample(&m, "semgraph_memtable_bytes", &[("family", family)]).is_some(),
            "memtable bytes of {family}"
        );
    }
    assert!(sample(&m, "semgraph_table_reader_bytes", &[]).is_some_and(|b| b > 0.0));
    // The heap, as the allocator counts it: resident pages hold at least what is allocated.
    let allocated = sample(&m, "semgraph_heap_allocated_bytes", &[]).unwrap_or(0.0);
    let resident = sample(&m, "semgraph_heap_resident_bytes", &[]).unwrap_or(0.0);
    assert!(
        allocated > 0.0 && resident >= allocated,
        "allocated {allocated}, resident {resident}"
    );
    for p in snapshot.products() {
        assert_eq!(
            sample(
                &m,
                "semgraph_product_nodes",
                &[("product", &p.name), ("area", &p.area)]
            ),
            Some(p.node_count as f64),
            "{}",
            p.name
        );
    }
    // No content: the only labels are these (`family` is a RocksDB column family), and no
    // value is a parameter a caller sent.
    let allowed = [
        "endpoint", "method", "status", "product", "area", "outcome", "family",
    ];
    for s in &m.samples {
        for (k, _) in s.labels.iter() {
            assert!(allowed.contains(&k.as_str()), "label {k} on {}", s.metric);
        }
    }
    assert!(
        !answer.body.contains(PLACE_ORDER),
        "no parameter reaches the metrics"
    );

    // Index runs: each product's counters are there at zero, and a job counts.
    let runs = "semgraph_index_runs_total";
    let orders = [("product", "orders"), ("outcome", "committed")];
    assert_eq!(sample(&m, runs, &orders), Some(0.0), "{}", answer.body);
    let started = send(
        c.post(s.url("/api/v1/admin/index"))
            .body(r#"{"product": "orders"}"#),
    )
    .await;
    assert_eq!(started.status, 202, "{}", started.body);
    let mut after = None;
    for _ in 0..600 {
        let m = scrape(&send(c.get(s.url("/metrics"))).await.body);
        if sample(&m, runs, &orders) == Some(1.0) {
            after = Some(m);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let after = after.expect("the index job is counted");
    assert_eq!(
        sample(&after, runs, &[("product", "orders"), ("outcome", "failed")]),
        Some(0.0)
    );
    assert!(
        sample(&after, "semgraph_store_generation", &[]) > Some(snapshot.generation() as f64),
        "the commit is a new generation"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_tokens_metrics_need_one_of_any_area() {
    let s = TestServer::start(Some(TOKENS)).await;
    let c = client();
    let none = send(c.get(s.url("/metrics"))).await;
    assert_eq!(none.status, 401, "{}", none.body);
    let commerce = send(c.get(s.url("/metrics")).bearer_auth("commerce-token-1")).await;
    assert_eq!(commerce.status, 200, "{}", commerce.body);
    let m = scrape(&commerce.body);
    assert!(
        sample(
            &m,
            "semgraph_http_requests_total",
            &[("endpoint", "/metrics"), ("method", "GET"), ("status", "401")]
        ) == Some(1.0),
        "{}",
        commerce.body
    );
}
