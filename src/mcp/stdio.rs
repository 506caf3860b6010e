//! `semgraph mcp --stdio`: the same tools over stdin/stdout, for a local client.
//!
//! A local client launches the binary and speaks MCP on its standard streams; the caller
//! is the local user, with full access. The store is opened read-only, so the client can
//! run beside a server or an index job that holds it (it answers from the generation
//! committed when it started). Logs go to stderr; stdout carries only MCP messages.

use std::path::PathBuf;

use anyhow::Context;
use rmcp::ServiceExt;
use semgraph_indexer::{Company, DEFAULT_STORE};
use semgraph_storage::Store;

use super::McpServer;
use crate::server::{AppState, Auth, ServerOptions};

/// Where `semgraph mcp --stdio` reads from.
#[derive(Clone, Debug, Default)]
pub struct StdioArgs {
    /// `--store`: overrides the config's store.
    pub store: Option<PathBuf>,
    /// `--config`: a `semgraph.toml` naming the store.
    pub config: Option<PathBuf>,
}

/// Serves the MCP tools on stdin/stdout until the client closes them.
pub fn run_stdio(args: StdioArgs) -> anyhow::Result<()> {
    let company = args.config.as_deref().map(Company::load).transpose()?;
    let store_dir = args
        .store
        .or_else(|| company.as_ref().map(|c| c.store.clone()))
        .unwrap_or_else(|| PathBuf::from(DEFAULT_STORE));
    if !store_dir.exists() {
        anyhow::bail!(
            "no store at {} (index something first: `semgraph index`, or pass --store)",
            store_dir.display()
        );
    }
    let store = Store::open_read_only(&store_dir)
        .with_context(|| format!("opening the store at {}", store_dir.display()))?;
    let state = AppState::new(
        store,
        ServerOptions {
            auth: Auth::none(),
            company,
            ..ServerOptions::default()
        },
    );
    let server = McpServer::new(&state);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(async move {
        tracing::info!(store = %store_dir.display(), "serving MCP on stdio");
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .context("starting the MCP session on stdio")?;
        running.waiting().await.context("serving MCP on stdio")?;
        Ok::<_, anyhow::Error>(())
    })?;
    // A blocking read of stdin may still be pending; it ends with the process.
    runtime.shutdown_background();
    Ok(())
}
