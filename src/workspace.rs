//! The machine behind the graph, for the questions a snapshot cannot answer alone.
//!
//! [`LocalWorkspace`] implements `semgraph_queries::Workspace` with the indexer's
//! front-ends (`semgraph_indexer::outline`, the declarations of the new side of a diff) and
//! the `git` command line (a repository's HEAD and dirtiness, the commits since the indexed
//! one, a range's diff, a file at a revision). The CLI, the server and MCP all answer with
//! it, so a question gets the same document whichever way it is asked.
//!
//! Repositories are the paths Repo nodes record; a CLI run that checks a repository out
//! elsewhere maps the recorded path to its own ([`LocalWorkspace::with_checkout`]). The
//! git state of a repository is cached for [`HEAD_TTL`], so a burst of questions forks
//! `git` once per repository rather than once per question. Revisions reach `git` only as
//! arguments after checks (no leading `-`, plain characters) and never through a shell.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use semgraph_indexer::git;
use semgraph_queries::{Declaration, RangeDiff, RepoHead, Workspace, WorkspaceError};

/// How long a repository's observed HEAD is reused.
pub const HEAD_TTL: Duration = Duration::from_secs(5);

/// The largest file read at a revision or from the working tree (the indexer's limit for
/// a source).
const MAX_FILE_BYTES: u64 = 8 << 20;

/// The largest diff a range may produce (the `diff` parameter's limit).
const MAX_DIFF_BYTES: usize = semgraph_queries::DIFF_MAX_BYTES;

/// A repository's HEAD as last asked (repository path, indexed commit), and when.
type HeadCache = HashMap<(String, Option<String>), (Instant, Option<RepoHead>)>;

/// The front-ends and `git` of this machine.
#[derive(Default)]
pub struct LocalWorkspace {
    heads: Mutex<HeadCache>,
    checkouts: HashMap<String, PathBuf>,
}

impl std::fmt::Debug for LocalWorkspace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalWorkspace")
            .field("checkouts", &self.checkouts)
            .finish()
    }
}

impl LocalWorkspace {
    /// A workspace of this machine.
    pub fn new() -> LocalWorkspace {
        LocalWorkspace::default()
    }

    /// This workspace, reading the repository recorded at `indexed_path` from `checkout`
    /// instead (a CI job's checkout of an indexed repository).
    pub fn with_checkout(mut self, indexed_path: &str, checkout: PathBuf) -> LocalWorkspace {
        self.checkouts.insert(indexed_path.to_string(), checkout);
        self
    }

    fn root(&self, repo_path: &str) -> PathBuf {
        self.checkouts
            .get(repo_path)
            .cloned()
            .unwrap_or_else(|| PathBuf::from(repo_path))
    }

    fn head_now(root: &Path, indexed: Option<&str>) -> Option<RepoHead> {
        let state = git::state(root)?;
        let behind = indexed.filter(|c| plain_revision(c)).and_then(|c| {
            if c == state.commit {
                return Some(0);
            }
            // Only when the indexed commit is an ancestor of HEAD is "behind" a count.
            git::run(root, &["merge-base", "--is-ancestor", c, &state.commit])?;
            let range = format!("{c}..{}", state.commit);
            git::run(root, &["rev-list", "--count", &range])?
                .trim()
                .parse()
                .ok()
        });
        Some(RepoHead {
            commit: state.commit,
            dirty: state.dirty,
            behind,
        })
    }

    /// The commit `rev` names in `root`.
    fn commit_of(root: &Path, rev: &str) -> Result<String, WorkspaceError> {
        let spec = format!("{rev}^{{commit}}");
        git::run(
            root,
            &["rev-parse", "--verify", "--quiet", "--end-of-options", &spec],
        )
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .ok_or_else(|| WorkspaceError(format!("`{rev}` names no commit there")))
    }
}

/// A revision that can be passed to `git` as it is.
fn plain_revision(rev: &str) -> bool {
    !rev.is_empty()
        && !rev.starts_with('-')
        && rev.len() <= 200
        && rev
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/@^~{}-".contains(c))
}

/// A repository-relative path that stays inside the repository.
fn inside(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.starts_with('/')
        && !rel.starts_with('-')
        && !rel.contains('\0')
        && !rel.split('/').any(|c| c == "..")
}

impl Workspace for LocalWorkspace {
    fn outline(&self, path: &str, text: &str) -> Option<Vec<Declaration>> {
        Some(
            semgraph_indexer::outline(path, text)
                .into_iter()
                .map(|d| Declaration {
                    kind: d.kind.to_string(),
                    fqn: d.fqn,
                    name: d.name,
                    signature: d.signature,
                    lines: d.lines,
                    action: d.action.to_string(),
                    routes: d.routes,
                })
                .collect(),
        )
    }

    fn head_of(&self, repo_path: &str, indexed: Option<&str>) -> Option<RepoHead> {
        let key = (repo_path.to_string(), indexed.map(str::to_string));
        if let Some((at, head)) = self.heads.lock().get(&key) {
            if at.elapsed() < HEAD_TTL {
                return head.clone();
            }
        }
        let head = LocalWorkspace::head_now(&self.root(repo_path), indexed);
        let mut heads = self.heads.lock();
        if heads.len() > 4096 {
            heads.clear();
        }
        heads.insert(key, (Instant::now(), head.clone()));
        head
    }

    fn diff_range(&self, repo_path: &str, base: &str, head: &str) -> Result<RangeDiff, WorkspaceError> {
        if !plain_revision(base) || !plain_revision(head) {
            return Err(WorkspaceError("a revision is not a plain name".into()));
        }
        let root = self.root(repo_path);
        if !root.is_dir() {
            return Err(WorkspaceError(format!(
                "the repository is not on this machine (no folder {})",
                root.display()
            )));
        }
        let base = LocalWorkspace::commit_of(&root, base)?;
        let head = LocalWorkspace::commit_of(&root, head)?;
        let text = git::run(
            &root,
            &[
                "diff",
                "--no-color",
                "--no-ext-diff",
                "--no-textconv",
                "-M",
                "--end-of-options",
                &base,
                &head,
                "--",
            ],
        )
        .ok_or_else(|| WorkspaceError("`git diff` failed there".into()))?;
        if text.len() > MAX_DIFF_BYTES {
            return Err(WorkspaceError(format!(
                "the range's diff is {} bytes, over the limit of {MAX_DIFF_BYTES}: ask about a shorter range",
                text.len()
            )));
        }
        Ok(RangeDiff { base, head, text })
    }

    fn file_text(&self, repo_path: &str, rev: Option<&str>, rel: &str) -> Option<String> {
        if !inside(rel) {
            return None;
        }
        let root = self.root(repo_path);
        match rev {
            Some(rev) => {
                if !plain_revision(rev) {
                    return None;
                }
                let spec = format!("{rev}:{rel}");
                let size: u64 = git::run(&root, &["cat-file", "-s", "--end-of-options", &spec])?
                    .trim()
                    .parse()
                    .ok()?;
                if size > MAX_FILE_BYTES {
                    return None;
                }
                git::run(&root, &["cat-file", "blob", "--end-of-options", &spec])
            }
            None => {
                let path = root.join(rel);
                let meta = std::fs::symlink_metadata(&path).ok()?;
                if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
                    return None;
                }
                std::fs::read_to_string(path).ok()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_revisions_and_inner_paths_reach_git() {
        assert!(plain_revision("main"));
        assert!(plain_revision("HEAD~3"));
        assert!(plain_revision("release/4.1.x"));
        assert!(!plain_revision("--output=/tmp/x"));
        assert!(!plain_revision("a b"));
        assert!(!plain_revision("$(id)"));
        assert!(inside("src/a.java"));
        assert!(!inside("../etc/passwd"));
        assert!(!inside("/etc/passwd"));
        assert!(!inside("a/../../b"));
    }
}
