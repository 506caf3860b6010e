//! semgraph-storage: the graph of a company's software, on disk and in memory.
//!
//! The crate owns the data model ([`NodeKind`], [`EdgeKind`], [`Node`]), one RocksDB
//! directory with a column family per concern, and the two things everything above
//! relies on: a re-index of a product is atomic (readers see the old graph or the new
//! one, never half), and traversals run on an in-memory adjacency, never one read per node.
//!
//! - [`Store`] opens the directory; [`Store::begin`] starts an index run of one product
//!   ([`ProductWriter`]) and [`ProductWriter::commit`] swaps it in.
//! - [`Snapshot`] is a reader's consistent view: nodes in batches, names, sets, content,
//!   runs, and the [`Adjacency`] for traversals.
//!
//! Storage knows nothing of Java, SQL, HTTP, markdown or entitlement: content is stored
//! apart from structure, and who may read it is decided above. [`keys`] spells the link
//! keys and normalised names that the indexer writes and the queries look up; storage
//! itself only ever compares them as opaque strings.

mod adjacency;
mod codec;
mod error;
mod facts;
pub mod keys;
mod link;
mod model;
mod staging;
mod store;
mod writer;

pub use adjacency::Adjacency;
pub use error::{Result, StoreError};
pub use facts::FactsDigest;
pub use link::UnlinkedRef;
pub use model::{
    ContentKind, Direction, EdgeAttrs, EdgeKind, IndexRun, LinkPolicy, NewNode, Node, NodeFlags, NodeId,
    NodeKind, ProductId, ProductInfo, RunStatus, Span, Warning,
};
pub use store::{Snapshot, Store, StoreOptions, DEFAULT_BLOCK_CACHE_BYTES, KEPT_RUNS};
pub use writer::{CommitSummary, ProductWriter};
