//! The one error type of the indexer.
//!
//! Only what stops a whole run is an error: an unreadable config, a store that cannot be
//! written. A broken source file is never one: it is a warning on the run.

use std::path::PathBuf;

/// What stops an index run.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// `semgraph.toml` (or a path on the command line) is wrong.
    #[error("{}: {message}", file.display())]
    Config {
        /// The file or path.
        file: PathBuf,
        /// What is wrong, for a person.
        message: String,
    },
    /// A product named on the command line is not in the config.
    #[error("no product named '{name}' in the config; products: {known}")]
    UnknownProduct {
        /// The name asked for.
        name: String,
        /// The names that exist, comma separated.
        known: String,
    },
    /// The store refused.
    #[error(transparent)]
    Store(#[from] semgraph_storage::StoreError),
}
