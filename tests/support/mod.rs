//! Shared by the HTTP tests: the fixture company indexed into a temporary store, and a
//! real server on a loopback port over it.

#![allow(dead_code, unreachable_pub)]

pub mod areas;
pub mod served;

use std::path::{Path, PathBuf};

use semgraph::server::{self, AppState, ServerConfig, ServerOptions};
use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_storage::Store;

/// The fixture company's config.
pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme/semgraph.toml")
}

/// The fixture company indexed into `dir`, one `index_product` per product.
pub fn indexed_fixture(dir: &Path) -> (Store, Company) {
    let mut company = Company::load(&fixture()).expect("fixture config");
    company.store = dir.join("store");
    let store = Store::open(&company.store).expect("open store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("index");
    }
    (store, company)
}

/// A server on 127.0.0.1:0 over the indexed fixture, running until the test ends.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    /// The state the server runs with.
    pub state: AppState,
    /// The company (its store is in `_dir`).
    pub company: Company,
    _dir: tempfile::TempDir,
}

impl TestServer {
    /// Indexes the fixture and serves it with the `[server]` table of `server_toml` (none:
    /// no auth, the local user).
    pub async fn start(server_toml: Option<&str>) -> TestServer {
        TestServer::start_with(server_toml, ServerOptions::default().cache_bytes).await
    }

    /// [`TestServer::start`] with a document cache of `cache_bytes` (0: every question is
    /// computed).
    pub async fn start_with(server_toml: Option<&str>, cache_bytes: usize) -> TestServer {
        let dir = tempfile::tempdir().expect("tempdir");
        let (store, mut company) = {
            let path = dir.path().to_path_buf();
            tokio::task::spawn_blocking(move || indexed_fixture(&path))
                .await
                .expect("index task")
        };
        let config = match server_toml {
            Some(text) => {
                let table: toml::Table = toml::from_str(text).expect("server toml");
                company.server = table.get("server").and_then(|v| v.as_table()).cloned();
                ServerConfig::from_table(company.server.as_ref()).expect("server config")
            }
            None => ServerConfig::default(),
        };
        let state = AppState::new(
            store,
            ServerOptions {
                auth: config.auth.clone(),
                company: Some(company.clone()),
                limits: config.limits.clone(),
                cache_bytes,
            },
        );
        let listener = server::bind("127.0.0.1:0", &config.auth).await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let serving = state.clone();
        tokio::spawn(async move {
            let _ = server::serve(listener, serving, std::future::pending()).await;
        });
        TestServer {
            base,
            state,
            company,
            _dir: dir,
        }
    }

    /// The store directory.
    pub fn store_dir(&self) -> PathBuf {
        self.company.store.clone()
    }

    /// `base` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

/// A response, read whole.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: String,
    pub body: String,
}

/// Sends `request` and reads the whole response.
pub async fn send(request: reqwest::RequestBuilder) -> Answer {
    let response = request.send().await.expect("request");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = response.text().await.expect("body");
    Answer {
        status,
        content_type,
        body,
    }
}

/// The page's own text: its markdown without the footer rule and line.
pub fn without_footer(text: &str) -> &str {
    match text.rfind("\n\n---\nPage ") {
        Some(at) => &text[..at],
        None => text,
    }
}

/// Elapsed step times (`0.012s`) differ between two runs of one question.
pub fn without_times(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        if i > start
            && i + 4 < chars.len() + 1
            && chars.get(i) == Some(&'.')
            && chars[i + 1..].iter().take(3).all(char::is_ascii_digit)
            && chars.get(i + 4) == Some(&'s')
        {
            out.push('T');
            i += 5;
            continue;
        }
        if i == start {
            out.push(chars[i]);
            i += 1;
        } else {
            out.extend(&chars[start..i]);
        }
    }
    out
}
