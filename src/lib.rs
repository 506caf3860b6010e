//! semgraph: an embedded graph database of a company's software.
//!
//! The binary (`src/main.rs`) is the command line; this library holds what the binary and
//! the benchmarks share. Layers point one way: this crate uses `semgraph-queries` and
//! `semgraph-indexer`, which both stand on `semgraph-storage`.

pub mod index_cmd;
pub mod scale;
pub mod status;
