//! HTTP benchmark: requests/s and latency (p50, p99) of the REST API on loopback, with 64
//! concurrent keep-alive connections, for `code/callers` (markdown) and `recipes/impact`
//! (POST, JSON body, markdown answer) on the fixture company.
//!
//! The server runs in this process on its own runtime; the load generator is 64 tokio
//! tasks on another runtime, each sending its next request as soon as the last answer is
//! read. Each scenario runs twice: with the document cache (repeated questions, the
//! common case of an agent paging or retrying) and without it (every request computes
//! its document). Both share the machine's cores with the client, as on a developer box.
//!
//! Run (release):
//!
//! ```text
//! cargo bench --bench http
//! cargo bench --bench http -- --seconds 10 --connections 64
//! ```

mod support;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use semgraph::server::{self, AppState, Auth, ServerOptions};
use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_storage::Store;

const PLACE_ORDER: &str = "com.acme.orders.service.OrderService.placeOrder";

struct Scenario {
    name: &'static str,
    post: bool,
    path: String,
    body: String,
}

struct Figures {
    requests: usize,
    errors: usize,
    seconds: f64,
    p50_ms: f64,
    p99_ms: f64,
}

async fn load(base: &str, scenario: &Scenario, connections: usize, duration: Duration) -> Figures {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(connections)
        .build()
        .expect("client");
    let url = Arc::new(format!("{base}{}", scenario.path));
    let body = Arc::new(scenario.body.clone());
    // Warm up: open the connections and fill the cache.
    for _ in 0..connections.min(8) {
        let _ = client.get(url.as_str()).send().await;
    }
    let started = Instant::now();
    let deadline = started + duration;
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let client = client.clone();
        let url = url.clone();
        let body = body.clone();
        let post = scenario.post;
        tasks.push(tokio::spawn(async move {
            let mut latencies = Vec::new();
            let mut errors = 0usize;
            while Instant::now() < deadline {
                let t = Instant::now();
                let request = if post {
                    client
                        .post(url.as_str())
                        .header("content-type", "application/json")
                        .body(body.as_str().to_string())
                } else {
                    client.get(url.as_str())
                };
                match request.send().await {
                    Ok(r) if r.status().is_success() => {
                        let _ = r.bytes().await;
                        latencies.push(t.elapsed());
                    }
                    _ => errors += 1,
                }
            }
            (latencies, errors)
        }));
    }
    let mut all = Vec::new();
    let mut errors = 0;
    for t in tasks {
        let (l, e) = t.await.expect("load task");
        all.extend(l);
        errors += e;
    }
    let seconds = started.elapsed().as_secs_f64();
    all.sort();
    let pct = |p: f64| {
        all.get(((all.len() as f64 * p) as usize).min(all.len().saturating_sub(1)))
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    Figures {
        requests: all.len(),
        errors,
        seconds,
        p50_ms: pct(0.50),
        p99_ms: pct(0.99),
    }
}

fn index_fixture(dir: &Path) -> Store {
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme/semgraph.toml");
    let mut company = Company::load(&config).expect("fixture config");
    company.store = dir.join("store");
    let store = Store::open(&company.store).expect("open store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("index");
    }
    store
}

fn main() {
    let seconds: u64 = support::arg("--seconds", 5);
    let connections: usize = support::arg("--connections", 64);
    let dir = tempfile::tempdir().expect("tempdir");
    let store = index_fixture(dir.path());
    let scenarios = [
        Scenario {
            name: "code/callers (markdown)",
            post: false,
            path: format!("/api/v1/code/callers?fqn={PLACE_ORDER}"),
            body: String::new(),
        },
        Scenario {
            name: "recipes/impact (POST)",
            post: true,
            path: "/api/v1/recipes/impact".into(),
            body: format!(r#"{{"target": "{PLACE_ORDER}"}}"#),
        },
    ];
    println!(
        "HTTP API on loopback, {connections} keep-alive connections, {seconds}s per run, {} cores\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| endpoint | cache | req/s | p50 ms | p99 ms | requests | errors |");
    println!("|---|---|---|---|---|---|---|");
    for cached in [true, false] {
        let server_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("server runtime");
        let state = AppState::new(
            store.clone(),
            ServerOptions {
                auth: Auth::none(),
                company: None,
                cache_bytes: if cached { 64 << 20 } else { 0 },
                ..ServerOptions::default()
            },
        );
        let listener = server_rt
            .block_on(server::bind("127.0.0.1:0", &Auth::none()))
            .expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        server_rt.spawn(server::serve(listener, state, async {
            let _ = stopped.await;
        }));
        let client_rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("client runtime");
        for s in &scenarios {
            let f = client_rt.block_on(load(&base, s, connections, Duration::from_secs(seconds)));
            println!(
                "| {} | {} | {:.0} | {:.2} | {:.2} | {} | {} |",
                s.name,
                if cached { "on" } else { "off" },
                f.requests as f64 / f.seconds,
                f.p50_ms,
                f.p99_ms,
                f.requests,
                f.errors
            );
        }
        let _ = stop.send(());
        drop(client_rt);
        server_rt.shutdown_timeout(Duration::from_secs(1));
    }
}
