//! Prometheus metrics at `GET /metrics`, in the OpenMetrics text format.
//!
//! What a platform engineer scrapes: requests by endpoint, method and status, their
//! latency as a histogram per endpoint, the index runs this server ran (admin jobs) by
//! product and outcome, the served generation, the store's size on disk, and per product
//! its node count and served run. The endpoint label is the route (`/api/v1/code/callers`,
//! `/mcp`), never the raw path, so a caller cannot grow the label set; anything else is
//! `other`. Nothing here is content: counts, names of products (structure, which every
//! caller may read) and sizes. With tokens configured, `/metrics` needs one, of any area,
//! like every structural answer; without tokens the server is loopback-only anyway.
//! Prometheus sends it with `authorization: {credentials: …}` in its scrape config.

use std::collections::HashSet;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::Registry;

use super::routes::{caller_of, format_of, method_not_allowed};
use super::AppState;

/// Where the metrics are served.
pub const METRICS_PATH: &str = "/metrics";

/// The content type of the OpenMetrics text format.
const OPENMETRICS: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

type Labels = Vec<(String, String)>;
type HistogramFamily = Family<Labels, Histogram, fn() -> Histogram>;

fn latency_histogram() -> Histogram {
    // 1 ms to ~33 s.
    Histogram::new(exponential_buckets(0.001, 2.0, 16))
}

/// The server's metrics and the routes they are labelled with.
pub(crate) struct Metrics {
    registry: Registry,
    requests: Family<Labels, Counter>,
    latency: HistogramFamily,
    index_runs: Family<Labels, Counter>,
    generation: Gauge,
    store_bytes: Gauge,
    document_cache_bytes: Gauge,
    block_cache_bytes: Gauge,
    memtable_bytes: Family<Labels, Gauge>,
    table_reader_bytes: Gauge,
    heap_allocated_bytes: Gauge,
    heap_resident_bytes: Gauge,
    product_nodes: Family<Labels, Gauge>,
    product_run: Family<Labels, Gauge>,
    routes: HashSet<String>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Metrics {
    /// Metrics labelled by the routes in `routes` (every other path is `other`).
    pub(crate) fn new(routes: impl IntoIterator<Item = String>) -> Metrics {
        let mut registry = Registry::with_prefix("semgraph");
        let requests = Family::<Labels, Counter>::default();
        registry.register(
            "http_requests",
            "HTTP requests answered, by endpoint (route), method and status",
            requests.clone(),
        );
        let latency: HistogramFamily = Family::new_with_constructor(latency_histogram);
        registry.register(
            "http_request_duration_seconds",
            "Time to answer an HTTP request, by endpoint (route)",
            latency.clone(),
        );
        let index_runs = Family::<Labels, Counter>::default();
        registry.register(
            "index_runs",
            "Index runs this server ran (admin jobs), by product and outcome (committed, failed)",
            index_runs.clone(),
        );
        let generation = gauge(
            &mut registry,
            "store_generation",
            "The generation of the graph being served",
        );
        let store_bytes = gauge(
            &mut registry,
            "store_size_bytes",
            "Bytes the store directory holds on disk",
        );
        let document_cache_bytes = gauge(
            &mut registry,
            "document_cache_bytes",
            "Bytes the computed documents kept for the next asker hold (at most document_cache_bytes)",
        );
        let block_cache_bytes = gauge(
            &mut registry,
            "block_cache_bytes",
            "Bytes RocksDB's block cache holds (at most block_cache_bytes)",
        );
        let memtable_bytes = gauges(
            &mut registry,
            "memtable_bytes",
            "Bytes RocksDB's memtables hold, per column family: writes not yet flushed to table files",
        );
        let table_reader_bytes = gauge(
            &mut registry,
            "table_reader_bytes",
            "Bytes the open table files' readers hold outside the block cache (RocksDB's estimate)",
        );
        let heap_allocated_bytes = gauge(
            &mut registry,
            "heap_allocated_bytes",
            "Bytes the process has allocated and not freed (the allocator's count)",
        );
        let heap_resident_bytes = gauge(
            &mut registry,
            "heap_resident_bytes",
            "Bytes of resident pages the allocator holds: allocations, free pages not yet returned, metadata",
        );
        let product_nodes = gauges(
            &mut registry,
            "product_nodes",
            "Nodes of each product in the served generation",
        );
        let product_run = gauges(
            &mut registry,
            "product_index_run",
            "The index run whose graph is served, per product",
        );
        Metrics {
            registry,
            requests,
            latency,
            index_runs,
            generation,
            store_bytes,
            document_cache_bytes,
            block_cache_bytes,
            memtable_bytes,
            table_reader_bytes,
            heap_allocated_bytes,
            heap_resident_bytes,
            product_nodes,
            product_run,
            routes: routes.into_iter().collect(),
        }
    }

    /// The `endpoint` label of a request path: its route, `/mcp`, or `other`.
    fn endpoint_of(&self, path: &str) -> String {
        if self.routes.contains(path) {
            path.to_string()
        } else if path == "/mcp" || path.starts_with("/mcp/") {
            "/mcp".to_string()
        } else {
            "other".to_string()
        }
    }

    /// Counts one answered request and its latency.
    pub(crate) fn observe_request(&self, method: &Method, path: &str, status: u16, elapsed: Duration) {
        let endpoint = self.endpoint_of(path);
        self.requests
            .get_or_create(&vec![
                ("endpoint".to_string(), endpoint.clone()),
                ("method".to_string(), method.as_str().to_string()),
                ("status".to_string(), status.to_string()),
            ])
            .inc();
        self.latency
            .get_or_create(&vec![("endpoint".to_string(), endpoint)])
            .observe(elapsed.as_secs_f64());
    }

    /// Shows the index-run counters of `products` at zero, so a scrape before the first job
    /// already has the series an alert compares against.
    pub(crate) fn expect_index_runs<'a>(&self, products: impl IntoIterator<Item = &'a str>) {
        for product in products {
            for outcome in ["committed", "failed"] {
                let _ = self.index_runs.get_or_create(&vec![
                    ("product".to_string(), product.to_string()),
                    ("outcome".to_string(), outcome.to_string()),
                ]);
            }
        }
    }

    /// Counts one index run of `product` this server ran.
    pub(crate) fn observe_index_run(&self, product: &str, committed: bool) {
        let outcome = if committed { "committed" } else { "failed" };
        self.index_runs
            .get_or_create(&vec![
                ("product".to_string(), product.to_string()),
                ("outcome".to_string(), outcome.to_string()),
            ])
            .inc();
    }

    /// The exposition, with the gauges read from `state` now.
    fn render(&self, state: &AppState) -> Result<String, std::fmt::Error> {
        let snapshot = state.store().snapshot();
        set_u64(&self.generation, snapshot.generation());
        set_u64(&self.store_bytes, state.store().disk_bytes().unwrap_or(0));
        set_u64(&self.document_cache_bytes, state.cache().held_bytes() as u64);
        set_u64(
            &self.block_cache_bytes,
            state.store().block_cache_bytes().unwrap_or(0),
        );
        for (family, bytes) in state.store().memtable_bytes().unwrap_or_default() {
            let labels = vec![("family".to_string(), family.to_string())];
            set_u64(&self.memtable_bytes.get_or_create(&labels), bytes);
        }
        set_u64(
            &self.table_reader_bytes,
            state.store().table_reader_bytes().unwrap_or(0),
        );
        // The allocator's counts are refreshed only when its epoch advances; without
        // statistics (another allocator) they read as 0.
        let _ = tikv_jemalloc_ctl::epoch::advance();
        let allocated = tikv_jemalloc_ctl::stats::allocated::read().unwrap_or(0);
        set_u64(&self.heap_allocated_bytes, allocated as u64);
        let resident = tikv_jemalloc_ctl::stats::resident::read().unwrap_or(0);
        set_u64(&self.heap_resident_bytes, resident as u64);
        self.product_nodes.clear();
        self.product_run.clear();
        for p in snapshot.products() {
            let labels = vec![
                ("product".to_string(), p.name.clone()),
                ("area".to_string(), p.area.clone()),
            ];
            set_u64(&self.product_nodes.get_or_create(&labels), p.node_count);
            set_u64(&self.product_run.get_or_create(&labels), p.run);
        }
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        Ok(out)
    }
}

/// Sets a gauge to a count or size (one past `i64::MAX` reads as the largest a gauge holds).
fn set_u64(gauge: &Gauge, value: u64) {
    gauge.set(i64::try_from(value).unwrap_or(i64::MAX));
}

/// A family of gauges, one per set of labels, registered in `registry` under `name`.
fn gauges(registry: &mut Registry, name: &str, help: &str) -> Family<Labels, Gauge> {
    let family = Family::<Labels, Gauge>::default();
    registry.register(name, help, family.clone());
    family
}

/// A gauge registered in `registry` under `name` (after the registry's prefix).
fn gauge(registry: &mut Registry, name: &str, help: &str) -> Gauge {
    let gauge = Gauge::default();
    registry.register(name, help, gauge.clone());
    gauge
}

/// `GET /metrics`.
pub(crate) async fn metrics(State(state): State<AppState>, method: Method, headers: HeaderMap) -> Response {
    let format = format_of(&headers);
    if method != Method::GET {
        return method_not_allowed(METRICS_PATH, "GET", format);
    }
    if let Err(e) = caller_of(&state, &headers, format) {
        return e.into_response();
    }
    let worker = state.clone();
    let rendered = tokio::task::spawn_blocking(move || worker.metrics().render(&worker)).await;
    match rendered {
        Ok(Ok(text)) => {
            let mut response = (StatusCode::OK, text).into_response();
            response
                .headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static(OPENMETRICS));
            response
        }
        _ => {
            tracing::error!("the metrics could not be encoded");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}
