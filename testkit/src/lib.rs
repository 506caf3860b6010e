//! semgraph-testkit: synthetic companies for benchmarks and tests, kept out of the product.
//!
//! - [`scale`]: a company graph written straight into a store, deterministic from a seed,
//!   with the shapes of real code (hubs, local calls, thin HTTP and topic layers).
//! - [`java_corpus`]: a Spring company written to disk as Java sources, config and
//!   migrations, with a report of the facts it planted, so the indexer can be held to them.

pub mod java_corpus;
pub mod scale;
