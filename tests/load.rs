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

/// The body of `/healthz` at `base`, which names the generation the server answers from.
async fn served_generation(client: reqwest::Client, base: String) -> String {
    client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .expect("healthz")
        .text()
        .await
        .expect("body")
}
