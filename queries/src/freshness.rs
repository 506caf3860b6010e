//! Which commit an answer describes, and whether the repository has moved on since.
//!
//! Each index run records on every Repo node the commit its sources came from (`commit`)
//! and whether the tree had uncommitted changes (`dirty`). A recipe names them in its trace
//! for the products it answers about, and — when a [`crate::Workspace`] can look at the
//! repository — says plainly when HEAD is elsewhere now ("indexed at 1a2b3c4, 4 commits
//! behind HEAD 9f8e7d6"), as a `WARN:` line, because the answer then describes code that is
//! no longer the code on disk.

use semgraph_storage::{Node, NodeKind};
use serde::Serialize;

use crate::error::QueryError;
use crate::graph::Ctx;
use crate::trace::Trace;

/// The short form of a commit hash.
pub(crate) fn short(commit: &str) -> &str {
    commit.get(..7).unwrap_or(commit)
}

/// One repository's index state and, where it could be looked at, its state now.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct RepoFreshness {
    pub(crate) product: String,
    pub(crate) repo: String,
    /// The commit the index run read, when the repository is a git repository.
    pub(crate) indexed_commit: Option<String>,
    /// Whether the tree had uncommitted changes then.
    pub(crate) indexed_dirty: bool,
    /// HEAD now, when the workspace could tell.
    pub(crate) head: Option<String>,
    /// Commits from the indexed one to HEAD (None: not in HEAD's history, or unknown).
    pub(crate) behind: Option<u64>,
    /// Whether the tree has uncommitted changes now.
    pub(crate) dirty_now: Option<bool>,
    /// True when the repository has moved on: another HEAD, or changes since.
    pub(crate) stale: bool,
}

/// The Repo nodes of `product`.
pub(crate) fn repos_of(ctx: &Ctx<'_>, product: &str) -> Result<Vec<Node>, QueryError> {
    let mut repos = ctx.load(ctx.snap.product_nodes_of_kind(product, NodeKind::Repo).iter())?;
    repos.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(repos)
}

/// The freshness of one Repo node.
pub(crate) fn of_repo(ctx: &Ctx<'_>, product: &str, repo: &Node) -> RepoFreshness {
    let indexed_commit = repo.attr("commit").map(str::to_string);
    let indexed_dirty = repo.attr("dirty") == Some("yes");
    let now = repo
        .attr("path")
        .and_then(|path| ctx.workspace.head_of(path, indexed_commit.as_deref()));
    let stale = match (&indexed_commit, &now) {
        (Some(c), Some(h)) => *c != h.commit || (h.dirty && !indexed_dirty),
        _ => false,
    };
    RepoFreshness {
        product: product.to_string(),
        repo: repo.name.clone(),
        head: now.as_ref().map(|h| h.commit.clone()),
        behind: now.as_ref().and_then(|h| h.behind),
        dirty_now: now.as_ref().map(|h| h.dirty),
        indexed_commit,
        indexed_dirty,
        stale,
    }
}

/// One sentence about a repository's freshness.
pub(crate) fn sentence(f: &RepoFreshness) -> String {
    let at = match &f.indexed_commit {
        None => {
            return format!(
                "{}/{} is not a git repository (no commit recorded)",
                f.product, f.repo
            )
        }
        Some(c) => format!(
            "{}/{} indexed at {}{}",
            f.product,
            f.repo,
            short(c),
            if f.indexed_dirty {
                " with uncommitted changes"
            } else {
                ""
            }
        ),
    };
    match (&f.head, f.behind) {
        (None, _) => format!("{at}; HEAD not checked here"),
        (Some(h), _) if Some(h) == f.indexed_commit.as_ref() => {
            if f.stale {
                format!("{at}, still HEAD, but the working tree has changed since")
            } else {
                format!("{at}, still HEAD")
            }
        }
        (Some(h), Some(n)) => format!(
            "{at}, {n} commit{} behind HEAD {}",
            if n == 1 { "" } else { "s" },
            short(h)
        ),
        (Some(h), None) => format!(
            "{at}; HEAD is now {} and the indexed commit is not in its history",
            short(h)
        ),
    }
}

/// Adds a step naming the indexed commit of every repository of `products` (in name
/// order) and a `WARN:` line for each that has moved on — unless the question is about
/// the indexed commit itself (`asked_about`: a range whose base it is). Returns what it
/// found.
pub(crate) fn note(
    ctx: &Ctx<'_>,
    trace: &mut Trace,
    products: &[String],
    asked_about: Option<&str>,
) -> Result<Vec<RepoFreshness>, QueryError> {
    let mut found = trace.step(
        "index freshness (commit indexed, HEAD now)",
        || -> Result<_, QueryError> {
            let mut found = Vec::new();
            for p in products {
                for repo in repos_of(ctx, p)? {
                    found.push(of_repo(ctx, p, &repo));
                }
            }
            let text = if found.is_empty() {
                "no repository to check".to_string()
            } else {
                found.iter().map(sentence).collect::<Vec<_>>().join("; ")
            };
            Ok((found, text))
        },
    )?;
    for f in &mut found {
        if f.stale && asked_about.is_some() && f.indexed_commit.as_deref() == asked_about {
            // The question is about the indexed commit: HEAD being elsewhere is expected.
            f.stale = false;
        }
    }
    for f in found.iter().filter(|f| f.stale) {
        trace.warn(format!(
            "{}: the answer describes the indexed commit, not the code on disk now; re-index `{}` for a fresh answer",
            sentence(f),
            f.product
        ));
    }
    Ok(found)
}
