//! The `semgraph` command line.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// jemalloc for every allocation of the process, RocksDB's C++ included (it replaces
/// `malloc` itself). Measured on spring-boot's index run against the C library's allocator:
/// a quarter less CPU (allocation was a quarter of it, much of it freeing on one thread what
/// the rayon workers allocated) and a smaller peak, since memory freed by one thread is
/// reused by the others instead of pinning per-thread arenas.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// An embedded graph database of a company's software.
#[derive(Parser, Debug)]
#[command(name = "semgraph", version = semgraph::VERSION, about)]
struct Cli {
    /// How the log on stderr is written: `text` for a person, `json` (one object a line)
    /// for a log collector.
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum LogFormat {
    Text,
    Json,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Index products into a store: from a semgraph.toml, or one product per PATH.
    Index {
        /// The store directory (default: the config's, else ./.semgraph).
        #[arg(long)]
        store: Option<PathBuf>,
        /// A semgraph.toml (default: ./semgraph.toml when no PATH is given).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Index only this product of the config (repeatable).
        #[arg(long = "product")]
        products: Vec<String>,
        /// Print every warning, not only the summary by reason (the full list is also
        /// written to last-index-warnings.txt in the store).
        #[arg(long)]
        verbose: bool,
        /// Parse every file again. By default a re-index parses only the code files whose
        /// path or content changed since an earlier run and reuses the facts of the others
        /// (the graph is the same either way).
        #[arg(long)]
        full: bool,
        /// Jars and class folders (a folder of jars stands for each) whose types calls into
        /// libraries need, before the config's `[dependencies] classpath`; repeatable or
        /// `:`-separated.
        #[arg(long, value_delimiter = ':')]
        classpath: Vec<PathBuf>,
        /// Repositories to index as one product each, named after their folder.
        paths: Vec<PathBuf>,
    },
    /// Keep a store fresh: index what is out of date, then re-index a product whenever its
    /// files change (handed to `semgraph serve` when a server holds the store).
    Watch {
        /// The store directory (default: the config's, else ./.semgraph).
        #[arg(long)]
        store: Option<PathBuf>,
        /// A semgraph.toml (default: ./semgraph.toml when no PATH is given).
        #[arg(long)]
        config: Option<PathBuf>,
        /// Watch only this product of the config (repeatable).
        #[arg(long = "product")]
        products: Vec<String>,
        /// How long a burst of saves is gathered before a run, in milliseconds.
        #[arg(long, default_value_t = 500)]
        debounce_ms: u64,
        /// Repositories to watch as one product each, named after their folder.
        paths: Vec<PathBuf>,
    },
    /// Show what a store holds: products, areas, node counts, last index runs.
    Status {
        /// The store directory.
        #[arg(long, default_value = ".semgraph")]
        store: PathBuf,
    },
    /// Serve a store over HTTP: the REST API under /api/v1 (and discover, OpenAPI, health).
    Serve {
        /// The store directory (default: the config's, else ./.semgraph).
        #[arg(long)]
        store: Option<PathBuf>,
        /// A semgraph.toml: its [server] table (bind, tokens) and products (for admin index jobs).
        #[arg(long)]
        config: Option<PathBuf>,
        /// The address to listen on (default: the config's bind, else 127.0.0.1:7420).
        #[arg(long)]
        bind: Option<String>,
    },
    /// Index and serve in one step: the bundled fixture company when given nothing, else a
    /// semgraph.toml, a folder holding one, or a repository folder.
    Up {
        /// A semgraph.toml, a folder with one, or a repository folder.
        path: Option<PathBuf>,
        /// The store directory (default: the config's, else ./.semgraph).
        #[arg(long)]
        store: Option<PathBuf>,
        /// The address to listen on (default: 127.0.0.1:7420).
        #[arg(long)]
        bind: Option<String>,
        /// Print every warning of the index run, not only the summary by reason.
        #[arg(long)]
        verbose: bool,
    },
    /// Serve the MCP tools on stdin/stdout to a local client (the local user, full access).
    /// Over HTTP, `semgraph serve` answers MCP at /mcp.
    Mcp {
        /// Speak MCP on stdin/stdout.
        #[arg(long, required = true)]
        stdio: bool,
        /// The store directory, opened read-only (default: the config's, else ./.semgraph).
        #[arg(long)]
        store: Option<PathBuf>,
        /// A semgraph.toml naming the store.
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Copy a store no process holds into a new directory: a RocksDB checkpoint (hard links on
    /// the same filesystem) holding one committed generation. A running server is asked
    /// instead: POST /api/v1/admin/backup.
    Backup {
        /// The store directory.
        #[arg(long, default_value = ".semgraph")]
        store: PathBuf,
        /// The backup's directory (must not exist yet).
        #[arg(long)]
        to: PathBuf,
    },
    /// What a change breaks, for CI: a diff (or a git range of a checkout) mapped onto the
    /// index, with the endpoints it reaches and the tests to run. Exit status: 0 complete,
    /// 1 failed, 2 wrong request, 3 partial (a file not mapped, or a range not starting
    /// at the indexed commit).
    Impact {
        /// A unified diff (`git diff` output); `-` reads standard input.
        #[arg(long, conflicts_with = "git")]
        diff: Option<PathBuf>,
        /// A range `BASE..HEAD` of the repository at --repo.
        #[arg(long, requires = "repo")]
        git: Option<String>,
        /// A checkout of an indexed repository (any path: matched to the indexed one by its
        /// recorded path, else by folder name).
        #[arg(long)]
        repo: Option<PathBuf>,
        /// Levels of callers followed (1..=8, default 3).
        #[arg(long)]
        depth: Option<u32>,
        /// Print the JSON result instead of markdown.
        #[arg(long)]
        json: bool,
        /// The store directory (opened read-only: works while a server holds it).
        #[arg(long, default_value = ".semgraph")]
        store: PathBuf,
    },
    /// Answer one question from a store without a server, exactly as the HTTP endpoint would.
    Query {
        /// `<domain>/<endpoint>` (e.g. code/callers, recipes/impact, products) or `discover`;
        /// also written as the request (`'code/callers?fqn=a.B.c'`, or a whole URL of the API),
        /// whose query string gives parameters.
        target: String,
        /// Parameters as name=value.
        params: Vec<String>,
        /// Print the JSON answer instead of markdown.
        #[arg(long)]
        json: bool,
        /// Which page to print (1-based).
        #[arg(long)]
        page: Option<usize>,
        /// Page size in characters (1000..=200000, default 20000).
        #[arg(long)]
        page_size: Option<usize>,
        /// The store directory (opened read-only: works while a server holds it).
        #[arg(long, default_value = ".semgraph")]
        store: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let log = tracing_subscriber::fmt()
        .with_env_filter(semgraph::server::log_filter())
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr);
    match cli.log_format {
        LogFormat::Text => log.init(),
        LogFormat::Json => log.json().flatten_event(true).init(),
    }
    match cli.command {
        Command::Index {
            store,
            config,
            products,
            verbose,
            full,
            classpath,
            paths,
        } => {
            let request = semgraph::index_cmd::IndexRequest {
                config,
                store,
                products,
                paths,
                progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
                full,
                classpath,
            };
            let company = semgraph::index_cmd::company_for(&request)?;
            let summaries =
                semgraph::index_cmd::index_or_hand_off(&company, request.progress, request.mode())?;
            print!(
                "{}",
                semgraph::index_cmd::render_report(&summaries, &company.store, verbose)
            );
            println!("\nstore: {}", company.store.display());
        }
        Command::Watch {
            store,
            config,
            products,
            debounce_ms,
            paths,
        } => semgraph::watch_cmd::watch(&semgraph::watch_cmd::WatchArgs {
            index: semgraph::index_cmd::IndexRequest {
                config,
                store,
                products,
                paths,
                progress: false,
                full: false,
                classpath: Vec::new(),
            },
            debounce: std::time::Duration::from_millis(debounce_ms.max(10)),
        })?,
        Command::Status { store } => {
            if !store.exists() {
                anyhow::bail!("no store at {} (index something first)", store.display());
            }
            let store = semgraph_storage::Store::open_read_only(&store)
                .with_context(|| format!("opening the store at {}", store.display()))?;
            print!("{}", semgraph::status::render_status(&store.snapshot())?);
        }
        Command::Serve { store, config, bind } => {
            semgraph::serve_cmd::serve(semgraph::serve_cmd::ServeArgs { store, config, bind })?
        }
        Command::Up {
            path,
            store,
            bind,
            verbose,
        } => semgraph::serve_cmd::up(semgraph::serve_cmd::UpArgs {
            target: path,
            store,
            bind,
            verbose,
        })?,
        Command::Mcp { store, config, .. } => {
            semgraph::mcp::run_stdio(semgraph::mcp::StdioArgs { store, config })?
        }
        Command::Backup { store, to } => {
            let report = semgraph::backup_cmd::backup(&semgraph::backup_cmd::BackupArgs { store, to })?;
            print!("{}", semgraph::backup_cmd::render(&report));
        }
        Command::Impact {
            diff,
            git,
            repo,
            depth,
            json,
            store,
        } => {
            if !store.exists() {
                eprintln!(
                    "semgraph impact: no store at {} (index something first)",
                    store.display()
                );
                std::process::exit(semgraph::impact_cmd::ExitStatus::Failed as i32);
            }
            let out = semgraph::impact_cmd::run(&semgraph::impact_cmd::ImpactArgs {
                store,
                diff,
                git,
                repo,
                depth,
                json,
            });
            if out.status == semgraph::impact_cmd::ExitStatus::Invalid
                || out.status == semgraph::impact_cmd::ExitStatus::Failed
            {
                eprint!("{}", out.body);
            } else {
                print!("{}", out.body);
            }
            std::process::exit(out.status as i32);
        }
        Command::Query {
            target,
            params,
            json,
            page,
            page_size,
            store,
        } => {
            if !store.exists() && semgraph::query_cmd::endpoint_of(&target).0 != "discover" {
                anyhow::bail!("no store at {} (index something first)", store.display());
            }
            let out = semgraph::query_cmd::run(&semgraph::query_cmd::QueryArgs {
                store,
                target,
                params,
                json,
                page,
                page_size,
            });
            print!("{}", out.body);
            if out.status != 200 {
                eprintln!("semgraph query: the server would answer {}", out.status);
                std::process::exit(1);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// jemalloc was built with the options `.cargo/config.toml` gives it (unless the
    /// environment overrides them at run time).
    #[test]
    fn jemalloc_runs_with_the_configured_options() {
        if std::env::var_os("MALLOC_CONF").is_some() {
            return;
        }
        assert_eq!(tikv_jemalloc_ctl::opt::narenas::read().ok(), Some(1));
        assert_eq!(tikv_jemalloc_ctl::opt::background_thread::read().ok(), Some(true));
    }
}
