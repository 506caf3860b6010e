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
//! - [`index_cmd`], [`serve_cmd`], [`query_cmd`], [`status`], [`backup_cmd`]: the commands.
//!
//! The synthetic companies of the benchmarks and tests live in `semgraph-testkit`, outside
//! the product.

pub mod answer;
pub mod backup_cmd;
pub mod index_cmd;
pub mod mcp;
pub mod query_cmd;
pub mod serve_cmd;
pub mod server;
pub mod status;
