//! `semgraph impact --diff FILE|-` and `semgraph impact --git BASE..HEAD --repo PATH`: a
//! pull request's impact for a CI job, from a store on disk (opened read-only, so it works
//! while a server holds it).
//!
//! It asks `recipes/change-impact` exactly as the API would (the same document, markdown
//! or `--json`) with this machine's workspace; `--repo PATH` names a checkout of an
//! indexed repository (a CI job's clone anywhere on disk): its files are looked up in that
//! repository, and the range's diff and the new side of each file are read from the
//! checkout. The exit status is for a gate (see [`ExitStatus`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use semgraph_queries::{execute_with, Caller, ErrorKind, Request};
use semgraph_storage::{NodeId, NodeKind, Store};

use crate::workspace::LocalWorkspace;

/// A `semgraph impact` invocation.
#[derive(Clone, Debug, Default)]
pub struct ImpactArgs {
    /// The store directory.
    pub store: PathBuf,
    /// `--diff FILE`, or `-` for standard input.
    pub diff: Option<PathBuf>,
    /// `--git BASE..HEAD`.
    pub git: Option<String>,
    /// `--repo PATH`: a checkout of an indexed repository.
    pub repo: Option<PathBuf>,
    /// `--depth N`.
    pub depth: Option<u32>,
    /// `--json`: the structured result instead of markdown.
    pub json: bool,
}

/// What `semgraph impact` exits with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// 0: the impact is computed and the whole diff was mapped onto a current index.
    Complete = 0,
    /// 1: it could not be computed (the store, git, an internal error).
    Failed = 1,
    /// 2: the request is wrong (unreadable diff, unknown repository, bad range).
    Invalid = 2,
    /// 3: computed, but partial — a file of the diff is not indexed, binary or ambiguous,
    /// or a range does not start at the commit its repository was indexed at.
    Partial = 3,
}

/// The document to print and the status to exit with.
#[derive(Clone, Debug)]
pub struct ImpactOutput {
    /// Markdown, or JSON with `--json`.
    pub body: String,
    /// The exit status.
    pub status: ExitStatus,
}

fn fail(status: ExitStatus, body: String) -> ImpactOutput {
    ImpactOutput { body, status }
}

/// The Repo node of `store` that `checkout` is a copy of: the one recorded at the same
/// path, else the only one with the same folder name. Returns its `product/name` and
/// recorded path.
fn indexed_repo(store: &Store, checkout: &Path) -> Result<(String, String), String> {
    let snap = store.snapshot();
    let ids: Vec<NodeId> = snap.nodes_of_kind(NodeKind::Repo).iter().map(NodeId).collect();
    let repos: Vec<_> = snap
        .nodes(&ids)
        .map_err(|e| e.to_string())?
        .into_iter()
        .flatten()
        .collect();
    let product = |r: &semgraph_storage::Node| {
        snap.products()
            .into_iter()
            .find(|p| p.id == r.product)
            .map(|p| p.name)
            .unwrap_or_default()
    };
    let wanted = std::fs::canonicalize(checkout).unwrap_or_else(|_| checkout.to_path_buf());
    for r in &repos {
        let Some(path) = r.attr("path") else { continue };
        let recorded = std::fs::canonicalize(path).unwrap_or_else(|_| PathBuf::from(path));
        if recorded == wanted {
            return Ok((format!("{}/{}", product(r), r.name), path.to_string()));
        }
    }
    let folder = wanted.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let same: Vec<_> = repos.iter().filter(|r| r.name == folder).collect();
    match same.as_slice() {
        [one] => Ok((
            format!("{}/{}", product(one), one.name),
            one.attr("path").unwrap_or_default().to_string(),
        )),
        [] => Err(format!(
            "no indexed repository is at {} or named `{folder}`; indexed: {}",
            checkout.display(),
            repos
                .iter()
                .map(|r| format!("{}/{}", product(r), r.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
        many => Err(format!(
            "{} indexed repositories are named `{folder}`; run against the indexed path of one",
            many.len()
        )),
    }
}

/// Runs the question and returns what to print and exit with.
pub fn run(args: &ImpactArgs) -> ImpactOutput {
    let store = match Store::open_read_only(&args.store) {
        Ok(s) => s,
        Err(e) => {
            return fail(
                ExitStatus::Failed,
                format!("cannot open the store at {}: {e}\n", args.store.display()),
            )
        }
    };
    let mut params: Vec<(String, String)> = Vec::new();
    if let Some(d) = args.depth {
        params.push(("depth".into(), d.to_string()));
    }
    let mut workspace = LocalWorkspace::new();
    if let Some(checkout) = &args.repo {
        match indexed_repo(&store, checkout) {
            Ok((name, recorded)) => {
                params.push(("repo".into(), name));
                workspace = workspace.with_checkout(&recorded, checkout.clone());
            }
            Err(e) => return fail(ExitStatus::Invalid, format!("semgraph impact: {e}\n")),
        }
    }
    match (&args.diff, &args.git) {
        (Some(file), None) => {
            let mut text = String::new();
            let read = if file.as_os_str() == "-" {
                std::io::stdin().read_to_string(&mut text).map(|_| ())
            } else {
                std::fs::read_to_string(file).map(|t| text = t)
            };
            if let Err(e) = read {
                return fail(
                    ExitStatus::Invalid,
                    format!("semgraph impact: cannot read the diff {}: {e}\n", file.display()),
                );
            }
            params.push(("diff".into(), text));
        }
        (None, Some(range)) => {
            if args.repo.is_none() {
                return fail(
                    ExitStatus::Invalid,
                    "semgraph impact: --git BASE..HEAD needs --repo PATH (the repository's checkout)\n"
                        .into(),
                );
            }
            params.push(("range".into(), range.clone()));
        }
        _ => return fail(
            ExitStatus::Invalid,
            "semgraph impact: give --diff FILE (or - for standard input), or --git BASE..HEAD --repo PATH\n"
                .into(),
        ),
    }
    let request = Request::new("recipes", "change-impact", params);
    match execute_with(&store.snapshot(), &Caller::full_access(), &request, &workspace) {
        Ok(doc) => {
            let complete = doc.json_value()["complete"].as_bool().unwrap_or(false);
            let body = if args.json {
                serde_json::to_string_pretty(&doc.json_value()).unwrap_or_default() + "\n"
            } else {
                doc.markdown + "\n"
            };
            ImpactOutput {
                body,
                status: if complete {
                    ExitStatus::Complete
                } else {
                    ExitStatus::Partial
                },
            }
        }
        Err(e) => fail(
            match e.kind() {
                ErrorKind::InvalidRequest | ErrorKind::NotFound | ErrorKind::Forbidden => ExitStatus::Invalid,
                ErrorKind::Internal => ExitStatus::Failed,
            },
            e.body().to_string(),
        ),
    }
}
