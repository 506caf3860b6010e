//! Security, over real sockets and real clients: the area property over MCP sessions
//! (`mcp_areas.rs`), no token in the log of the real binary at `RUST_LOG=trace`
//! (`no_secrets_in_logs.rs`), and no parameter reaching the filesystem
//! (`path_params.rs`). One test binary for this family, since every binary links
//! RocksDB.

#[path = "support/mcp.rs"]
mod mcp;
#[path = "support/mod.rs"]
mod support;

#[path = "security/mcp_areas.rs"]
mod mcp_areas;
#[path = "security/no_secrets_in_logs.rs"]
mod no_secrets_in_logs;
#[path = "security/path_params.rs"]
mod path_params;
