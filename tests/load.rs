//! Load and limits, over real sockets: each limit of the `[server]` table configured tiny
//! (`limits.rs`). One test binary for this family, since every binary links RocksDB.

#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mod.rs"]
mod support;

#[path = "load/limits.rs"]
mod limits;
