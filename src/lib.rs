//! semgraph: an embedded graph database of a company's software.
//!
//! The binary (`src/main.rs`) is the command line; this library holds what the binary, the
//! tests and the benchmarks share. Layers point one way: this crate uses `semgraph-queries`
//! and `semgraph-indexer`, which both stand on `semgraph-storage`.
//!
//! - [`server`]: the REST API (axum), generated from the endpoint catalog, with areas.
//! - [`mcp`]: the MCP server (six tools proxying into the REST API) over HTTP and stdio.
//! - [`answer`]: one page of a document as markdown or JSON — what both the server and
//!   `semgraph query` print.
//! - [`index_cmd`], [`serve_cmd`], [`query_cmd`], [`impact_cmd`], [`watch_cmd`], [`status`],
//!   [`backup_cmd`]: the commands; [`warnings`]: an index run's warnings summarised by
//!   reason; [`run_summary`]: what one product's run did, from this process or a server.
//! - [`handoff`]: `index` and `watch` beside a running server hand their run to it.
//! - [`workspace`]: the front-ends and `git` of this machine, for the recipes that ask.
//!
//! The synthetic companies of the benchmarks and tests live in `semgraph-testkit`, outside
//! the product.

/// The version of the store format this build reads and writes (`docs/storage-format.md`).
/// `tests/first_run.rs` holds it to the storage crate's own: a store of another version is
/// refused, and the message names the version this build expects.
pub const STORE_FORMAT_VERSION: u32 = 2;

/// What `semgraph --version` prints after the name: the release and the store format.
pub const VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), " (store format version 2)");

pub mod answer;
pub mod backup_cmd;
pub mod handoff;
pub mod impact_cmd;
pub mod index_cmd;
pub mod mcp;
pub mod query_cmd;
pub mod run_summary;
pub mod serve_cmd;
pub mod server;
pub mod status;
pub mod warnings;
pub mod watch_cmd;
pub mod workspace;

#[cfg(test)]
mod tests {
    #[test]
    fn the_version_names_the_store_format() {
        assert!(
            super::VERSION.ends_with(&format!("(store format version {})", super::STORE_FORMAT_VERSION)),
            "{}",
            super::VERSION
        );
    }
}
