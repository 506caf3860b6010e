//! Security, over real sockets and real clients: the area property over MCP sessions
//! (`mcp_areas.rs`), and no token in the log of the real binary at `RUST_LOG=trace`
//! (`no_secrets_in_logs.rs`). One test binary for this family, since every binary links
//! RocksDB.

#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mod.rs"]
mod support;

#[path = "security/mcp_areas.rs"]
mod mcp_areas;
#[path = "security/no_secrets_in_logs.rs"]
mod no_secrets_in_logs;
