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
//!   [`backup_cmd`]: the commands.
//! - [`handoff`]: `index` and `watch` beside a running server hand their run to it.
//! - [`workspace`]: the front-ends and `git` of this machine, for the recipes that ask.
//! - [`scale`]: synthetic companies for benchmarks.
//! - [`java_corpus`]: a synthetic Java company written to disk, with the facts it planted.

pub mod answer;
pub mod backup_cmd;
pub mod handoff;
pub mod impact_cmd;
pub mod index_cmd;
pub mod java_corpus;
pub mod mcp;
pub mod query_cmd;
pub mod scale;
pub mod serve_cmd;
pub mod server;
pub mod status;
pub mod watch_cmd;
pub mod workspace;
