//! `semgraph serve` and `semgraph up`: run the server over a store.
//!
//! `serve` opens a store (the config's, `--store`, or `./.semgraph`) and serves it with the
//! config's `[server]` table. `up` is the one-step start: it indexes a company (the bundled
//! fixture company when given nothing) and serves it on loopback, printing the URLs, an
//! example question and the MCP client configuration to paste.

use std::path::{Path, PathBuf};

use anyhow::Context;
use semgraph_indexer::{Company, DEFAULT_STORE};
use semgraph_storage::Store;

use crate::server::{self, AppState, ServerConfig, ServerOptions, DEFAULT_BIND};

/// Where to serve from and on which address.
#[derive(Clone, Debug, Default)]
pub struct ServeArgs {
    /// `--store`: overrides the config's store.
    pub store: Option<PathBuf>,
    /// `--config`: a `semgraph.toml` (its `[server]` table, and its products for admin
    /// index jobs).
    pub config: Option<PathBuf>,
    /// `--bind`: overrides the config's `bind`.
    pub bind: Option<String>,
}

/// The fixture company's config: beside this crate's manifest, else under the working
/// directory.
pub fn fixture_config() -> Option<PathBuf> {
    let rel = Path::new("fixtures").join("acme").join("semgraph.toml");
    [Path::new(env!("CARGO_MANIFEST_DIR")).join(&rel), rel]
        .into_iter()
        .find(|p| p.is_file())
}

/// The company `semgraph up [PATH_OR_CONFIG]` indexes: a `semgraph.toml`, a folder holding
/// one, a repository folder (one product), or the fixture company.
pub fn company_for_up(target: Option<&Path>, store: Option<PathBuf>) -> anyhow::Result<Company> {
    let mut company = match target {
        None => {
            let config = fixture_config().context(
                "the bundled fixture company (fixtures/acme/semgraph.toml) is not here; pass a \
                 semgraph.toml or a repository folder",
            )?;
            Company::load(&config)?
        }
        Some(p) if p.is_file() => Company::load(p)?,
        Some(p) if p.join("semgraph.toml").is_file() => Company::load(&p.join("semgraph.toml"))?,
        Some(p) => Company::from_paths(&[p.to_path_buf()], None)?,
    };
    if let Some(store) = store {
        company.store = store;
    }
    Ok(company)
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")
}

/// The banner printed when a server is up.
pub fn banner(base: &str, store: &Path, example_target: &str) -> String {
    format!(
        "semgraph is serving {store} on {base}\n\n\
         \x20 catalog:  {base}/api/v1/discover\n\
         \x20 OpenAPI:  {base}/api/v1/openapi.json\n\
         \x20 MCP:      {base}/mcp\n\n\
         Ask an impact question:\n\n\
         \x20 curl -s -X POST {base}/api/v1/recipes/impact -H 'content-type: application/json' \\\n\
         \x20      -d '{{\"target\": \"{example_target}\"}}'\n\n\
         MCP client configuration (paste into your agent's MCP settings):\n\n\
         \x20 {{\"mcpServers\":{{\"semgraph\":{{\"type\":\"http\",\"url\":\"{base}/mcp\"}}}}}}\n\n\
         Ctrl-C stops the server.\n",
        store = store.display()
    )
}

fn serve_store(
    store_dir: &Path,
    company: Option<Company>,
    bind: Option<String>,
    example_target: &str,
) -> anyhow::Result<()> {
    let config = ServerConfig::from_table(company.as_ref().and_then(|c| c.server.as_ref()))?;
    let bind = bind
        .or(config.bind.clone())
        .unwrap_or_else(|| DEFAULT_BIND.to_string());
    // The store's error says why (held by another process, not writable, disk full).
    let store =
        Store::open(store_dir).with_context(|| format!("opening the store at {}", store_dir.display()))?;
    let state = AppState::new(
        store,
        ServerOptions {
            auth: config.auth.clone(),
            company,
            limits: config.limits.clone(),
            ..ServerOptions::default()
        },
    );
    let rt = runtime()?;
    let served = rt.block_on(async move {
        let listener = server::bind(&bind, &config.auth).await?;
        let addr = listener.local_addr()?;
        let base = format!("http://{addr}");
        // `semgraph index` and `watch` on this store hand their runs to this server.
        let recorded = match crate::handoff::record(store_dir, addr) {
            Ok(r) => Some(r),
            Err(e) => {
                tracing::warn!(error = %e, "cannot record where this server listens; index runs beside it will fail");
                None
            }
        };
        println!("{}", banner(&base, store_dir, example_target));
        if config.auth.is_configured() {
            println!("Tokens are configured: send `Authorization: Bearer <token>`.");
        }
        tracing::info!(%addr, "listening");
        server::serve(listener, state, server::shutdown_signal()).await?;
        drop(recorded);
        Ok::<_, anyhow::Error>(())
    });
    // An index job still running is abandoned: the store serves the last committed
    // generation on its next open and records the run as interrupted.
    rt.shutdown_timeout(std::time::Duration::from_secs(5));
    served
}

/// `semgraph serve`.
pub fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let company = args.config.as_deref().map(Company::load).transpose()?;
    let store = args
        .store
        .clone()
        .or_else(|| company.as_ref().map(|c| c.store.clone()))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_STORE));
    if !store.exists() {
        anyhow::bail!(
            "no store at {} (index something first: `semgraph index`, or `semgraph up`)",
            store.display()
        );
    }
    serve_store(&store, company, args.bind, "<method or type fqn, or VERB /path>")
}

/// `semgraph up [PATH_OR_CONFIG]`: index, then serve.
pub fn up(target: Option<&Path>, store: Option<PathBuf>, bind: Option<String>) -> anyhow::Result<()> {
    let company = company_for_up(target, store)?;
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let reports = crate::index_cmd::run_index(&company, progress)?;
    let summaries: Vec<crate::index_cmd::RunSummary> = reports.iter().map(Into::into).collect();
    print!("{}", crate::index_cmd::render_summary(&summaries));
    println!();
    let example = if target.is_none() {
        "com.acme.orders.service.OrderService.placeOrder"
    } else {
        "<method or type fqn, or VERB /path>"
    };
    let store = company.store.clone();
    serve_store(&store, Some(company), bind, example)
}
