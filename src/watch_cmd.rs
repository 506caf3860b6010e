//! `semgraph watch [PATH…]`: keep a store fresh while people edit.
//!
//! The products are resolved as `semgraph index` resolves them (a config, or one product
//! per PATH). At the start, every product whose recorded git state (commit, dirty) differs
//! from its repositories' — or that the store does not hold yet — is indexed. Then the
//! repositories, wiki folders and Jira exports are watched (`notify`, debounced): when files
//! of a product change, that product is re-indexed whole, with the same run as `semgraph
//! index` (or, while `semgraph serve` holds the store, handed to that server as an admin
//! job, so it keeps answering from the last generation until the new one commits). Saves
//! that arrive during a run are gathered into the next one. Build output, VCS folders and
//! the store itself are not watched for changes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use anyhow::Context;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use notify_debouncer_full::{new_debouncer, DebounceEventResult};
use semgraph_indexer::{Company, ProductSource};
use semgraph_storage::{NodeId, NodeKind, Store};

use crate::index_cmd::{company_for, index_or_hand_off, IndexRequest};

/// What to watch.
#[derive(Clone, Debug)]
pub struct WatchArgs {
    /// As for `semgraph index`: config, store, products, paths.
    pub index: IndexRequest,
    /// How long a burst of saves is gathered before a run.
    pub debounce: Duration,
}

/// Folders whose changes never reach an index run.
const SKIPPED: &[&str] = &[
    ".git",
    "target",
    "build",
    "node_modules",
    ".gradle",
    ".idea",
    ".semgraph",
];

/// True when a change at `path` can change what an index run reads.
fn relevant(path: &Path, store: &Path) -> bool {
    if path.starts_with(store) {
        return false;
    }
    !path
        .components()
        .any(|c| c.as_os_str().to_str().is_some_and(|s| SKIPPED.contains(&s)))
}

/// The products of `company` that hold `path`.
fn owners<'c>(company: &'c Company, path: &Path) -> Vec<&'c ProductSource> {
    company
        .products
        .iter()
        .filter(|p| {
            p.repos
                .iter()
                .chain(&p.wiki)
                .chain(&p.jira)
                .any(|root| path.starts_with(std::fs::canonicalize(root).unwrap_or_else(|_| root.clone())))
        })
        .collect()
}

/// The products whose index does not describe their repositories as they are now.
fn outdated(company: &Company) -> Vec<String> {
    let Ok(store) = Store::open_read_only(&company.store) else {
        return company.products.iter().map(|p| p.name.clone()).collect();
    };
    let snap = store.snapshot();
    let mut out = Vec::new();
    for p in &company.products {
        if snap.product(&p.name).is_none() {
            out.push(p.name.clone());
            continue;
        }
        let ids: Vec<NodeId> = snap
            .product_nodes_of_kind(&p.name, NodeKind::Repo)
            .iter()
            .map(NodeId)
            .collect();
        let repos: Vec<_> = snap
            .nodes(&ids)
            .unwrap_or_default()
            .into_iter()
            .flatten()
            .collect();
        let fresh = p.repos.iter().all(|root| {
            let Some(now) = semgraph_indexer::git::state(root) else {
                return false; // not git: nothing tells it is current
            };
            repos.iter().any(|r| {
                r.attr("commit") == Some(now.commit.as_str()) && r.attr("dirty") == Some("no") && !now.dirty
            })
        });
        if !fresh {
            out.push(p.name.clone());
        }
    }
    out
}

fn run(company: &Company, names: &BTreeSet<String>) {
    let mut some = company.clone();
    some.products.retain(|p| names.contains(&p.name));
    let started = Instant::now();
    match index_or_hand_off(&some, false, semgraph_indexer::IndexMode::Incremental) {
        Ok(summaries) => {
            for s in &summaries {
                println!(
                    "watch: indexed {} ({} files, {} warnings) in {:.2}s",
                    s.product,
                    s.files.values().sum::<u64>(),
                    s.warnings.len(),
                    s.seconds
                );
            }
            if summaries.is_empty() {
                println!(
                    "watch: indexed {} in {:.2}s",
                    names.iter().cloned().collect::<Vec<_>>().join(", "),
                    started.elapsed().as_secs_f64()
                );
            }
        }
        Err(e) => eprintln!(
            "watch: indexing {} failed: {e:#}",
            names.iter().cloned().collect::<Vec<_>>().join(", ")
        ),
    }
}

/// Watches until the process is stopped (Ctrl-C).
pub fn watch(args: &WatchArgs) -> anyhow::Result<()> {
    let company = company_for(&args.index)?;
    let store = std::fs::canonicalize(&company.store).unwrap_or_else(|_| company.store.clone());
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(args.debounce, None, move |res: DebounceEventResult| {
        let _ = tx.send(res);
    })
    .context("starting the file watcher")?;
    let mut roots: Vec<PathBuf> = Vec::new();
    for p in &company.products {
        for root in p.repos.iter().chain(&p.wiki).chain(&p.jira) {
            let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            let mode = if root.is_dir() {
                RecursiveMode::Recursive
            } else {
                RecursiveMode::NonRecursive
            };
            debouncer
                .watch(&root, mode)
                .with_context(|| format!("watching {}", root.display()))?;
            roots.push(root);
        }
    }
    println!(
        "watch: {} product(s), {} folder(s) and file(s) watched, store {}",
        company.products.len(),
        roots.len(),
        company.store.display()
    );
    let first: BTreeSet<String> = outdated(&company).into_iter().collect();
    if first.is_empty() {
        println!("watch: every product's index matches its repositories");
    } else {
        run(&company, &first);
    }
    loop {
        let Ok(batch) = rx.recv() else {
            return Ok(());
        };
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut take = |res: DebounceEventResult| match res {
            Ok(events) => {
                for e in events {
                    // Reads (an index run opening the files) change nothing.
                    if !matches!(
                        e.kind,
                        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
                    ) {
                        continue;
                    }
                    for path in e.paths.iter().filter(|p| relevant(p, &store)) {
                        names.extend(owners(&company, path).into_iter().map(|p| p.name.clone()));
                    }
                }
            }
            Err(errors) => {
                for e in errors {
                    eprintln!("watch: {e}");
                }
            }
        };
        take(batch);
        // Saves that came in while the last run went on join this one.
        while let Ok(more) = rx.try_recv() {
            take(more);
        }
        if !names.is_empty() {
            run(&company, &names);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_output_vcs_folders_and_the_store_are_not_changes() {
        let store = Path::new("/repo/.semgraph");
        assert!(relevant(Path::new("/repo/src/main/java/A.java"), store));
        assert!(!relevant(Path::new("/repo/target/classes/A.class"), store));
        assert!(!relevant(Path::new("/repo/.git/index"), store));
        assert!(!relevant(Path::new("/repo/.semgraph/000123.sst"), store));
    }
}
