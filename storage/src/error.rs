//! The one error type of the storage crate.
//!
//! User-facing mistakes (a busy writer, a read-only store, an edge between foreign nodes)
//! are kept apart from internal failures (RocksDB, a corrupt record) so callers above can
//! map the first to clear messages and the second to an opaque failure.

use std::path::PathBuf;

use crate::model::NodeId;

/// What can go wrong in the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another process holds the store's lock (a running server, most likely).
    #[error("the store at {path} is held by another process (a running semgraph server?); open it read-only or stop that process")]
    Locked {
        /// The store directory.
        path: PathBuf,
    },
    /// An index run is already in progress in this process.
    #[error("an index run for product '{product}' is already in progress; the store has one writer")]
    WriterBusy {
        /// The product being indexed.
        product: String,
    },
    /// The store was opened read-only.
    #[error("the store is open read-only; indexing needs the process that owns it")]
    ReadOnly,
    /// The store was written by another format version.
    #[error("the store has format version {found}, this semgraph reads version {expected}; re-index into a new store")]
    FormatVersion {
        /// On disk.
        found: u32,
        /// Understood by this build.
        expected: u32,
    },
    /// The store was written by an older format version that an open for writing upgrades
    /// in place, and this open is read-only.
    #[error("the store has format version {found}, this semgraph reads version {expected}; open it once for writing (`semgraph index` or `semgraph serve`) and it is upgraded in place")]
    UpgradeNeeded {
        /// On disk.
        found: u32,
        /// Understood by this build.
        expected: u32,
    },
    /// An edge named a node that this index run did not create.
    #[error("edge {from} -> {to} names a node outside this index run; link across products with a link declaration")]
    ForeignNode {
        /// Source.
        from: NodeId,
        /// Target.
        to: NodeId,
    },
    /// The writer was given a node without a kind.
    #[error("a node named '{name}' has no kind")]
    MissingKind {
        /// The node's name.
        name: String,
    },
    /// More nodes than the in-memory adjacency can address.
    #[error("the graph would exceed {max} nodes")]
    TooManyNodes {
        /// The limit.
        max: u32,
    },
    /// A product name or area that cannot be stored.
    #[error("invalid {what}: {reason}")]
    Invalid {
        /// What was invalid.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// A stored record could not be decoded.
    #[error("corrupt record in column family '{cf}': {reason}")]
    Corrupt {
        /// The column family.
        cf: &'static str,
        /// What was wrong.
        reason: String,
    },
    /// The store cannot grow: the disk is full, or a file-size or quota limit was reached.
    #[error(
        "the store cannot grow: the disk is full or a file-size limit was reached ({detail}). \
         Nothing of an unfinished index run is served; the last committed graph is. Free space, \
         then index again"
    )]
    DiskFull {
        /// What RocksDB said, naming the file.
        detail: String,
    },
    /// The store's directory cannot be created or written (permissions, a read-only
    /// filesystem, a path through a regular file).
    #[error(
        "cannot write the store at {path}: {detail}. Indexing and serving need a directory this \
         user can write on a read-write filesystem; `semgraph status` and `semgraph query` read a \
         store without writing"
    )]
    NotWritable {
        /// The store directory.
        path: PathBuf,
        /// What the filesystem said.
        detail: String,
    },
    /// RocksDB failed.
    #[error("rocksdb: {0}")]
    Rocks(rocksdb::Error),
    /// The filesystem failed.
    #[error("io: {0}")]
    Io(#[from] std::io::Error),
}

/// What the operating system says when a disk is full or a file may not grow.
const NO_SPACE: &[&str] = &["No space left on device", "File too large", "Disk quota exceeded"];

impl From<rocksdb::Error> for StoreError {
    fn from(e: rocksdb::Error) -> StoreError {
        let detail = e.to_string();
        if NO_SPACE.iter().any(|m| detail.contains(m)) {
            StoreError::DiskFull { detail }
        } else {
            StoreError::Rocks(e)
        }
    }
}

/// The storage crate's result.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;
