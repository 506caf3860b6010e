//! What a question may need from outside the graph: the machine the sources live on.
//!
//! Two answers are beyond a snapshot. What a changed file declares now (the new side of a
//! diff) takes a language front-end, which lives in the indexer — a crate this one never
//! imports. Whether a repository has moved on since it was indexed, a range's diff, or a
//! file at a revision take the repository on disk. A [`Workspace`] answers both; the
//! binary implements it with the indexer's front-ends and the `git` command line and
//! passes the same implementation to the CLI, the server and MCP. Without one
//! ([`NoWorkspace`]) every question still answers from the graph, and a recipe says what
//! it could not tell.
//!
//! Repositories are named by the `path` attribute of their Repo node — what the index run
//! read — never by a caller's parameter.

/// One declaration of a source text, as the graph would name it (see
/// `semgraph_indexer::Declaration`, which this mirrors).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declaration {
    /// The node kind: `type`, `method`, `field`, `table`, `column`, `index`, `trigger`,
    /// `view`, `routine`, `config-key`.
    pub kind: String,
    /// The fully-qualified name as the graph spells it.
    pub fqn: String,
    /// The short name.
    pub name: String,
    /// A method's `name(ParamType, …)`, as the graph's `signature` attribute.
    pub signature: Option<String>,
    /// First and last line, 1-based, inclusive.
    pub lines: (u32, u32),
    /// `declares`, `alters` or `drops`.
    pub action: String,
    /// Routes a handler declares, `VERB /path`.
    pub routes: Vec<String>,
}

/// Where a repository's checkout is now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RepoHead {
    /// The full hash of `HEAD`.
    pub commit: String,
    /// True when the working tree differs from `HEAD`.
    pub dirty: bool,
    /// Commits from the indexed commit to `HEAD`; `None` when the indexed commit is not in
    /// `HEAD`'s history (a rebase, another branch) or was not given.
    pub behind: Option<u64>,
}

/// The text of `git diff BASE..HEAD` and the commits both ends name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RangeDiff {
    /// The commit `BASE` names.
    pub base: String,
    /// The commit `HEAD` names.
    pub head: String,
    /// The unified diff (git format, renames detected).
    pub text: String,
}

/// A question the workspace could not answer, said for the caller.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct WorkspaceError(pub String);

/// The machine the sources live on. Every method is cheap to call repeatedly: an
/// implementation caches what forks a process.
pub trait Workspace: Send + Sync {
    /// The declarations of `text` read as the file `path`; `None` when this workspace has
    /// no front-end (not "declares nothing", which is `Some(vec![])`).
    fn outline(&self, path: &str, text: &str) -> Option<Vec<Declaration>>;

    /// Where the repository at `repo_path` is now, with the commits since `indexed`.
    /// `None` when it cannot tell (not a repository, not on this machine).
    fn head_of(&self, repo_path: &str, indexed: Option<&str>) -> Option<RepoHead>;

    /// The diff of the repository at `repo_path` from `base` to `head` (revisions already
    /// checked to be plain names).
    fn diff_range(&self, repo_path: &str, base: &str, head: &str) -> Result<RangeDiff, WorkspaceError>;

    /// The text of the file `rel` of the repository at `repo_path`: at revision `rev`, or
    /// in the working tree when `rev` is `None`. `None` when there is no such file or it is
    /// not text.
    fn file_text(&self, repo_path: &str, rev: Option<&str>, rel: &str) -> Option<String>;
}

/// No machine behind the graph: nothing to outline, no repository to look at.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoWorkspace;

impl Workspace for NoWorkspace {
    fn outline(&self, _path: &str, _text: &str) -> Option<Vec<Declaration>> {
        None
    }

    fn head_of(&self, _repo_path: &str, _indexed: Option<&str>) -> Option<RepoHead> {
        None
    }

    fn diff_range(&self, _repo_path: &str, _base: &str, _head: &str) -> Result<RangeDiff, WorkspaceError> {
        Err(WorkspaceError(
            "this answer is computed without access to the repositories (no workspace): send the diff text as `diff` instead".into(),
        ))
    }

    fn file_text(&self, _repo_path: &str, _rev: Option<&str>, _rel: &str) -> Option<String> {
        None
    }
}
