//! The `semgraph` command line.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Parser, Subcommand};

/// An embedded graph database of a company's software.
#[derive(Parser, Debug)]
#[command(name = "semgraph", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
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
        /// Repositories to index as one product each, named after their folder.
        paths: Vec<PathBuf>,
    },
    /// Show what a store holds: products, areas, node counts, last index runs.
    Status {
        /// The store directory.
        #[arg(long, default_value = ".semgraph")]
        store: PathBuf,
    },
}

fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Index {
            store,
            config,
            products,
            paths,
        } => {
            let request = semgraph::index_cmd::IndexRequest {
                config,
                store,
                products,
                paths,
                progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
            };
            let company = semgraph::index_cmd::company_for(&request)?;
            let reports = semgraph::index_cmd::run_index(&company, request.progress)?;
            print!("{}", semgraph::index_cmd::render_summary(&reports));
            println!("\nstore: {}", company.store.display());
        }
        Command::Status { store } => {
            if !store.exists() {
                anyhow::bail!("no store at {} (index something first)", store.display());
            }
            let store = semgraph_storage::Store::open_read_only(&store)
                .with_context(|| format!("opening the store at {}", store.display()))?;
            print!("{}", semgraph::status::render_status(&store.snapshot())?);
        }
    }
    Ok(())
}
