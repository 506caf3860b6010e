//! Index beside a running server: `semgraph index` and `semgraph watch` on a store that
//! `semgraph serve` holds hand their run to that server.
//!
//! A store has one writer. While a server holds it, the server records where it listens in
//! [`SERVER_FILE`] inside the store directory (its pid and a URL a local client can reach),
//! and removes the file when it shuts down. A CLI run on that store finds the record, checks
//! it is live (the pid is a running process and `GET /healthz` answers; a record left by a
//! killed server is ignored), and sends the products it resolved — repository folders from
//! the command line or a config — as `POST /api/v1/admin/index` with `{"products": [...]}`.
//! The server runs them as an admin job and swaps each product's generation as it commits,
//! answering from the last one meanwhile; the CLI follows the job at
//! `GET /api/v1/admin/jobs` to its end and prints the same summary as a local run. A server
//! without tokens accepts this from loopback; with tokens, the CLI sends the admin token of
//! `SEMGRAPH_ADMIN_TOKEN` (a token of area `*`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use semgraph_indexer::Company;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::index_cmd::RunSummary;

/// The file in a store directory that names the server holding the store.
pub const SERVER_FILE: &str = "semgraph-server.json";

/// The environment variable holding an admin token (of area `*`) for a server with tokens.
pub const ADMIN_TOKEN_ENV: &str = "SEMGRAPH_ADMIN_TOKEN";

/// How long a job is waited for when another one runs (a watch's burst of saves).
const BUSY_WAIT: Duration = Duration::from_secs(600);

/// Where a server holding a store listens.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerRecord {
    /// The server's process id.
    pub pid: u32,
    /// A base URL a client on this machine reaches it at (`http://127.0.0.1:7420`).
    pub url: String,
}

/// The record of a running server; removes its file when dropped (the server shuts down).
#[derive(Debug)]
pub struct Recorded {
    path: PathBuf,
}

impl Drop for Recorded {
    fn drop(&mut self) {
        // Only our own record: another server may have taken the store since.
        let ours = std::fs::read_to_string(&self.path)
            .ok()
            .and_then(|t| serde_json::from_str::<ServerRecord>(&t).ok())
            .is_some_and(|r| r.pid == std::process::id());
        if ours {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// Records that this process serves `store` on `addr` (an unspecified address is reached
/// through loopback).
pub fn record(store: &Path, addr: SocketAddr) -> std::io::Result<Recorded> {
    let host = if addr.ip().is_unspecified() {
        if addr.is_ipv4() {
            "127.0.0.1".to_string()
        } else {
            "[::1]".to_string()
        }
    } else if addr.is_ipv6() {
        format!("[{}]", addr.ip())
    } else {
        addr.ip().to_string()
    };
    let record = ServerRecord {
        pid: std::process::id(),
        url: format!("http://{host}:{}", addr.port()),
    };
    let path = store.join(SERVER_FILE);
    let tmp = store.join(format!("{SERVER_FILE}.tmp"));
    std::fs::write(&tmp, serde_json::to_string(&record).unwrap_or_default())?;
    std::fs::rename(&tmp, &path)?;
    Ok(Recorded { path })
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// True when a process with `pid` runs (where the platform tells; else assumed).
fn alive(pid: u32) -> bool {
    if cfg!(target_os = "linux") {
        Path::new(&format!("/proc/{pid}")).exists()
    } else {
        true
    }
}

/// The live server holding `store`, if one recorded itself there.
pub fn find(store: &Path) -> Option<ServerRecord> {
    let text = std::fs::read_to_string(store.join(SERVER_FILE)).ok()?;
    let record: ServerRecord = serde_json::from_str(&text).ok()?;
    if !alive(record.pid) {
        return None;
    }
    let rt = runtime().ok()?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(3))
        .build()
        .ok()?;
    let healthy = rt.block_on(async {
        match client.get(format!("{}/healthz", record.url)).send().await {
            Ok(r) => r.status().is_success(),
            Err(_) => false,
        }
    });
    healthy.then_some(record)
}

fn request(client: &reqwest::Client, method: reqwest::Method, url: &str) -> reqwest::RequestBuilder {
    let mut r = client
        .request(method, url)
        .header("accept", "application/json")
        .header("content-type", "application/json");
    if let Ok(token) = std::env::var(ADMIN_TOKEN_ENV) {
        if !token.is_empty() {
            r = r.bearer_auth(token);
        }
    }
    r
}

fn products_body(company: &Company, mode: semgraph_indexer::IndexMode) -> Value {
    let paths = |ps: &[PathBuf]| -> Vec<String> {
        ps.iter()
            .map(|p| {
                std::fs::canonicalize(p)
                    .unwrap_or_else(|_| p.clone())
                    .display()
                    .to_string()
            })
            .collect()
    };
    json!({
        "products": company.products.iter().map(|p| json!({
            "name": p.name,
            "area": p.area,
            "repos": paths(&p.repos),
            "wiki": paths(&p.wiki),
            "jira": paths(&p.jira),
        })).collect::<Vec<_>>(),
        "full": mode == semgraph_indexer::IndexMode::Full,
    })
}

/// The message of an error answer (`{"error": {"message": …}}`, else the body).
fn message(body: &str) -> String {
    serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(str::to_string))
        .unwrap_or_else(|| body.to_string())
}

/// Hands the run of `company`'s products to `server` as an admin index job and follows it
/// to its end; returns each product's summary.
pub fn hand_off(
    server: &ServerRecord,
    company: &Company,
    progress: bool,
    mode: semgraph_indexer::IndexMode,
) -> anyhow::Result<Vec<RunSummary>> {
    let rt = runtime()?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .context("an HTTP client")?;
    let body = products_body(company, mode).to_string();
    rt.block_on(async move {
        let start = format!("{}/api/v1/admin/index", server.url);
        let started = Instant::now();
        let id = loop {
            let r = request(&client, reqwest::Method::POST, &start)
                .body(body.clone())
                .send()
                .await
                .with_context(|| format!("asking the server at {} to index", server.url))?;
            let status = r.status().as_u16();
            let text = r.text().await.unwrap_or_default();
            match status {
                202 => {
                    let v: Value = serde_json::from_str(&text).context("the server's answer")?;
                    break v["result"]["id"].as_u64().context("the job's id")?;
                }
                // One job at a time: wait for the running one (a watch's earlier save).
                409 if started.elapsed() < BUSY_WAIT => tokio::time::sleep(Duration::from_millis(500)).await,
                401 | 403 => bail!(
                    "the store {} is held by the server at {}, which refused the index run: {}\nRun it with \
                     {ADMIN_TOKEN_ENV} set to a token of area `*`.",
                    company.store.display(),
                    server.url,
                    message(&text).trim()
                ),
                _ => bail!("the server at {} did not start the run ({status}): {}", server.url, message(&text).trim()),
            }
        };
        if progress {
            eprintln!(
                "semgraph: {} is held by the server at {}; the run is its job {id} (answers keep coming from the last generation)",
                company.store.display(),
                server.url
            );
        }
        let jobs = format!("{}/api/v1/admin/jobs", server.url);
        loop {
            tokio::time::sleep(Duration::from_millis(200)).await;
            let r = request(&client, reqwest::Method::GET, &jobs)
                .send()
                .await
                .with_context(|| format!("following job {id} at {}", server.url))?;
            let status = r.status().as_u16();
            let text = r.text().await.unwrap_or_default();
            if status != 200 {
                bail!("the server at {} did not list its jobs ({status}): {}", server.url, message(&text).trim());
            }
            let v: Value = serde_json::from_str(&text).context("the server's jobs")?;
            let Some(job) = v["result"]["jobs"]
                .as_array()
                .and_then(|jobs| jobs.iter().find(|j| j["id"].as_u64() == Some(id)))
            else {
                bail!("the server at {} no longer lists job {id}", server.url);
            };
            match job["state"].as_str() {
                Some("running") => continue,
                Some("done") => {
                    let summaries = job["results"]
                        .as_array()
                        .map(|rs| {
                            rs.iter()
                                .filter_map(|r| serde_json::from_value::<RunSummary>(r["summary"].clone()).ok())
                                .collect()
                        })
                        .unwrap_or_default();
                    return Ok(summaries);
                }
                _ => bail!(
                    "job {id} on the server at {} failed: {}",
                    server.url,
                    job["error"].as_str().unwrap_or("see the server's log")
                ),
            }
        }
    })
}
