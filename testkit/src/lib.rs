//! semgraph-testkit: synthetic companies for benchmarks and tests, kept out of the product.
//!
//! - [`scale`]: a company graph written straight into a store, deterministic from a seed,
//!   with the shapes of real code (hubs, local calls, thin HTTP and topic layers).
//! - [`java_corpus`]: a Spring company written to disk as Java sources, config and
//!   migrations, with a report of the facts it planted, so the indexer can be held to them.

pub mod java_corpus;
pub mod scale;

/// Writes `bytes` to `rel` under `root`, making its folders, and returns the file's path:
/// how a test lays out a small repository. Panics on an I/O error (tests only).
pub fn write_file(
    root: &std::path::Path,
    rel: &str,
    bytes: &(impl AsRef<[u8]> + ?Sized),
) -> std::path::PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("mkdir");
    std::fs::write(&path, bytes).expect("write a test file");
    path
}
