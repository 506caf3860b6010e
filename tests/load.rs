//! Load and limits, over real sockets: each limit of the `[server]` table configured tiny
//! (`limits.rs`), every answer unchanged through a re-index and a burst of recipes taken at
//! once (`reindex.rs`), and a bounded soak of the real binary under concurrent clients with an
//! index job half-way (`soak.rs`). One test binary for this family, since every binary
//! links RocksDB.

#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mod.rs"]
mod support;

#[path = "load/limits.rs"]
mod limits;
#[path = "load/reindex.rs"]
mod reindex;
#[path = "load/soak.rs"]
mod soak;
