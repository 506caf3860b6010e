//! `semgraph backup`: a consistent copy of a store, to restore by serving it.
//!
//! A backup is a RocksDB checkpoint ([`Store::checkpoint`]): table files hard-linked when
//! the destination is on the store's filesystem, so it costs seconds and little space, and
//! it holds exactly one committed generation. Only the process that owns a store can take
//! one, so this command backs up a store no process holds; a running server is asked
//! instead (`POST /api/v1/admin/backup`, see `server/backup.rs`), and this command says so
//! when it finds the store held. The copy is opened read-only before success is reported:
//! a backup that cannot be read is never announced.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use semgraph_storage::{Store, StoreError};

/// Where to back up from and to.
#[derive(Clone, Debug)]
pub struct BackupArgs {
    /// The store to copy.
    pub store: PathBuf,
    /// A directory that does not exist yet.
    pub to: PathBuf,
}

/// What a backup holds, read back from the copy.
#[derive(Clone, Debug)]
pub struct BackupReport {
    /// The copy's directory.
    pub path: PathBuf,
    /// The generation it serves.
    pub generation: u64,
    /// Its products: name, area, nodes.
    pub products: Vec<(String, String, u64)>,
}

/// Where a server writes the backups it is asked for: beside its store, in
/// `<store>.backups/`, so the checkpoint's hard links stay on the store's filesystem. The
/// place is fixed by the store's path, never by a request.
pub fn backup_root(store: &Path) -> PathBuf {
    let store = std::fs::canonicalize(store).unwrap_or_else(|_| store.to_path_buf());
    let name = store
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store".into());
    let parent = store.parent().map(Path::to_path_buf).unwrap_or_default();
    parent.join(format!("{name}.backups"))
}

/// Reads back what the copy at `path` serves; an error when it does not open.
pub fn describe(path: &Path) -> anyhow::Result<BackupReport> {
    let copy = Store::open_read_only(path)
        .with_context(|| format!("the backup at {} does not open", path.display()))?;
    let snap = copy.snapshot();
    Ok(BackupReport {
        path: path.to_path_buf(),
        generation: snap.generation(),
        products: snap
            .products()
            .into_iter()
            .map(|p| (p.name, p.area, p.node_count))
            .collect(),
    })
}

/// `semgraph backup --store DIR --to DIR`.
pub fn backup(args: &BackupArgs) -> anyhow::Result<BackupReport> {
    if !args.store.join("CURRENT").is_file() {
        anyhow::bail!(
            "no store at {} (index something first: `semgraph index`)",
            args.store.display()
        );
    }
    let store = match Store::open(&args.store) {
        Ok(store) => store,
        Err(StoreError::Locked { path }) => anyhow::bail!(
            "the store at {} is held by a running process (a semgraph server?). Ask the server for \
             the backup: `POST /api/v1/admin/backup` (full access) writes a checkpoint into {} and \
             answers its path; or stop the server and run this command again",
            path.display(),
            backup_root(&path).display()
        ),
        Err(e) => return Err(e).with_context(|| format!("opening the store at {}", args.store.display())),
    };
    let generation = store
        .checkpoint(&args.to)
        .with_context(|| format!("backing up {} into {}", args.store.display(), args.to.display()))?;
    drop(store);
    let report = describe(&args.to)?;
    anyhow::ensure!(
        report.generation == generation,
        "the backup at {} serves generation {}, not the {generation} it was taken at",
        args.to.display(),
        report.generation
    );
    Ok(report)
}

/// What `semgraph backup` prints.
pub fn render(report: &BackupReport) -> String {
    let mut out = format!(
        "backup written to {}: generation {}, {} products\n\n",
        report.path.display(),
        report.generation,
        report.products.len()
    );
    for (name, area, nodes) in &report.products {
        let _ = writeln!(out, "  {name} ({area}): {nodes} nodes");
    }
    let _ = writeln!(
        out,
        "\nRestore: `semgraph serve --store {}` (or copy it where the store was, with the server stopped).",
        report.path.display()
    );
    out
}
