//! `semgraph serve` and `semgraph up`: run the server over a store.
//!
//! `serve` opens a store (the config's, `--store`, or `./.semgraph`) and serves it with the
//! config's `[server]` table. `up` is the one-step start: it indexes a company (the bundled
//! fixture company when given nothing) and serves it on loopback, printing the URLs, an
//! example question and the MCP client configuration to paste.

use std::path::{Path, PathBuf};

use anyhow::Context;
use semgraph_indexer::{Company, DEFAULT_STORE};
use semgraph_storage::{Store, StoreOptions};

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

/// Where the bundled fixture company's config sits in a checkout of semgraph.
pub const FIXTURE_CONFIG: &str = "fixtures/acme/semgraph.toml";

/// The bundled fixture company's config, found from `dir` (the working directory): in it or
/// in the nearest folder above it that holds [`FIXTURE_CONFIG`]. Never a path fixed when
/// the binary was built: a binary built in one checkout and run in another indexes the
/// checkout it is run in.
pub fn fixture_config_from(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join(FIXTURE_CONFIG))
        .find(|p| p.is_file())
}

/// [`fixture_config_from`] the working directory.
pub fn fixture_config() -> Option<PathBuf> {
    fixture_config_from(&std::env::current_dir().ok()?)
}

/// The company `semgraph up [PATH_OR_CONFIG]` indexes: a `semgraph.toml`, a folder holding
/// one, a repository folder (one product), or the fixture company.
pub fn company_for_up(target: Option<&Path>, store: Option<PathBuf>) -> anyhow::Result<Company> {
    let mut company = match target {
        None => {
            let config = fixture_config().with_context(|| {
                format!(
                    "the bundled fixture company ({FIXTURE_CONFIG}) is not in {} or a folder above \
                     it: run `semgraph up` inside a semgraph checkout, or pass a semgraph.toml or a \
                     repository folder",
                    std::env::current_dir()
                        .map(|d| d.display().to_string())
                        .unwrap_or_else(|_| "the working directory".into())
                )
            })?;
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
    // Queries and page cutting run on blocking threads. They are bound by the cores, so
    // more threads than a few per core only add stacks and allocator arenas (memory that
    // stays with the process) without answering sooner; tokio's default allows 512.
    let cores = std::thread::available_parallelism().map_or(2, usize::from);
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads((4 * cores).max(8))
        .build()
        .context("starting the async runtime")
}

/// What the banner needs to say how to reach a server.
#[derive(Clone, Debug)]
pub struct BannerFacts<'a> {
    /// `http://ADDR`.
    pub base: &'a str,
    /// The store served (absolute where it can be).
    pub store: &'a Path,
    /// The `semgraph` binary a stdio client should start.
    pub exe: &'a Path,
    /// A target for the example impact question.
    pub example_target: &'a str,
    /// Whether tokens are configured (requests need `Authorization: Bearer`).
    pub tokens: bool,
}

/// `text` as one shell word: as is when it needs no quoting, else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=,".contains(c));
    if plain {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The MCP client configurations to paste, for this server over HTTP and for a local client
/// that starts `semgraph mcp --stdio` itself: `claude mcp add` one-liners, VS Code's
/// `.vscode/mcp.json` (`{"servers": …}` with a `type`), and the `mcpServers` JSON most other
/// clients read. Each JSON snippet is one line of valid JSON.
pub fn mcp_configs(facts: &BannerFacts<'_>) -> String {
    let url = format!("{}/mcp", facts.base);
    let exe = facts.exe.display().to_string();
    let store = facts.store.display().to_string();
    let args = ["mcp", "--stdio", "--store", store.as_str()];
    let mut http = serde_json::json!({"type": "http", "url": url});
    let mut header_flag = String::new();
    if facts.tokens {
        http["headers"] = serde_json::json!({"Authorization": "Bearer <token>"});
        header_flag = " --header 'Authorization: Bearer <token>'".into();
    }
    let stdio_vscode = serde_json::json!({"type": "stdio", "command": exe, "args": args});
    let stdio_generic = serde_json::json!({"command": exe, "args": args});
    let one = |key: &str, server: &serde_json::Value| {
        serde_json::json!({ key: { "semgraph": server } }).to_string()
    };
    let stdio_line: Vec<String> = std::iter::once(exe.as_str())
        .chain(args)
        .map(shell_word)
        .collect();
    format!(
        "MCP over HTTP, this server (the store stays with it):\n\n\
         \x20 Claude Code:  claude mcp add --transport http semgraph {url}{header_flag}\n\
         \x20 VS Code, .vscode/mcp.json:\n\
         \x20   {vscode_http}\n\
         \x20 mcpServers JSON (Cursor, Claude Code's .mcp.json, most others):\n\
         \x20   {generic_http}\n\n\
         MCP over stdio, the client starts semgraph itself (local user, store opened read-only):\n\n\
         \x20 Claude Code:  claude mcp add semgraph -- {stdio}\n\
         \x20 VS Code, .vscode/mcp.json:\n\
         \x20   {vscode_stdio}\n\
         \x20 mcpServers JSON (Claude Desktop, Cursor, most others):\n\
         \x20   {generic_stdio}\n",
        vscode_http = one("servers", &http),
        generic_http = one("mcpServers", &http),
        stdio = stdio_line.join(" "),
        vscode_stdio = one("servers", &stdio_vscode),
        generic_stdio = one("mcpServers", &stdio_generic),
    )
}

/// The banner printed when a server is up: where it serves, an example question, how to
/// scrape it, and the MCP configurations — last, where a person looks.
pub fn banner(facts: &BannerFacts<'_>) -> String {
    let base = facts.base;
    let auth = if facts.tokens {
        " -H 'authorization: Bearer <token>'"
    } else {
        ""
    };
    let tokens = if facts.tokens {
        "Tokens are configured: send `Authorization: Bearer <token>`.\n\n"
    } else {
        ""
    };
    format!(
        "semgraph is serving {store} on {base}\n\n\
         \x20 catalog:  {base}/api/v1/discover\n\
         \x20 OpenAPI:  {base}/api/v1/openapi.json\n\
         \x20 metrics:  {base}/metrics (Prometheus)\n\
         \x20 MCP:      {base}/mcp\n\n\
         {tokens}\
         Ask an impact question:\n\n\
         \x20 curl -s -X POST {base}/api/v1/recipes/impact -H 'content-type: application/json'{auth} \\\n\
         \x20      -d '{{\"target\": \"{example_target}\"}}'\n\n\
         {mcp}\n\
         Ctrl-C stops the server.\n",
        store = facts.store.display(),
        example_target = facts.example_target,
        mcp = mcp_configs(facts),
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
    let store = Store::open_with_options(
        store_dir,
        &StoreOptions {
            block_cache_bytes: config.memory.block_cache_bytes,
            ..StoreOptions::default()
        },
    )
    .with_context(|| format!("opening the store at {}", store_dir.display()))?;
    // A path that is not the store meant (a work folder around it, a typo) opens as a new,
    // empty store: every answer would say "not indexed" without saying why.
    if store.snapshot().products().is_empty() {
        tracing::warn!(
            store = %store_dir.display(),
            "the store holds no product yet, so every answer will be empty: index into it \
             (`semgraph index --store {}`), or check that this is the store's own folder",
            store_dir.display()
        );
    }
    let state = AppState::new(
        store,
        ServerOptions {
            auth: config.auth.clone(),
            company,
            limits: config.limits.clone(),
            cache_bytes: config.memory.document_cache_bytes,
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
        let store_abs = std::fs::canonicalize(store_dir).unwrap_or_else(|_| store_dir.to_path_buf());
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("semgraph"));
        println!(
            "{}",
            banner(&BannerFacts {
                base: &base,
                store: &store_abs,
                exe: &exe,
                example_target,
                tokens: config.auth.is_configured(),
            })
        );
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

/// What `semgraph up` is given.
#[derive(Clone, Debug, Default)]
pub struct UpArgs {
    /// A `semgraph.toml`, a folder with one, or a repository folder (none: the fixture
    /// company).
    pub target: Option<PathBuf>,
    /// `--store`.
    pub store: Option<PathBuf>,
    /// `--bind`.
    pub bind: Option<String>,
    /// `--verbose`: print every warning, not only the summary by reason.
    pub verbose: bool,
}

/// `semgraph up [PATH_OR_CONFIG]`: index, then serve.
pub fn up(args: UpArgs) -> anyhow::Result<()> {
    let UpArgs {
        target,
        store,
        bind,
        verbose,
    } = args;
    let target = target.as_deref();
    let company = company_for_up(target, store)?;
    println!(
        "indexing {} product(s) into {}",
        company.products.len(),
        company.store.display()
    );
    let progress = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let reports = crate::index_cmd::run_index(&company, progress, semgraph_indexer::IndexMode::Incremental)?;
    let summaries: Vec<crate::index_cmd::RunSummary> = reports.iter().map(Into::into).collect();
    print!(
        "{}",
        crate::index_cmd::render_report(&summaries, &company.store, verbose)
    );
    println!();
    let example = if target.is_none() {
        "com.acme.orders.service.OrderService.placeOrder"
    } else {
        "<method or type fqn, or VERB /path>"
    };
    let store = company.store.clone();
    serve_store(&store, Some(company), bind, example)
}
