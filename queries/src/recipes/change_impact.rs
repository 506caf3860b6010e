//! `change-impact`: what a change breaks — a pull request's question.
//!
//! The input is a unified diff (`git diff` output, sent as `diff`), or a git range of an
//! indexed repository (`repo` + `range`, read on the server through the [`Workspace`]).
//! Each file of the diff is found among the indexed files (by its path relative to its
//! repository, or below a folder holding several), then each hunk is mapped to what it
//! touches:
//!
//! - on the old side, the graph's own spans: the innermost method, field, type, table,
//!   column, index, trigger, view, routine or config key whose lines a deleted line or an
//!   insertion point falls in (a declaration whose every line is deleted is deleted);
//! - on the new side, the declarations the indexer's front-ends read in the file as it is
//!   after the change (a created file's text is in the diff; otherwise the workspace gives
//!   the file at the range's head, or the working tree the diff applies to): a touched
//!   declaration the graph knows is changed (altered, dropped for SQL), one it does not
//!   know is added — a new method, a new route of a handler, a new column;
//! - endpoints whose handler changed, and routes a handler declares now that no endpoint of
//!   the graph serves yet (or no longer declares).
//!
//! Then ONE consolidated impact over everything touched (the same computation as
//! `impact`): changed methods, the code that reads or writes a touched table, the code that
//! reads a touched config key, the method a touched MyBatis statement binds. The document
//! lists the endpoints and entry points reached, callers in other services, topics and
//! their consumers, tables written, and the tests that reach the change grouped by class (a
//! list a CI job can run), with the step trace, the commit each repository was indexed at,
//! and what the diff touches that the graph cannot map (a file not indexed, a binary, an
//! ambiguous path, lines outside any declaration). `complete` is false when a file was
//! left unmapped or a range does not start at the indexed commit.

use std::collections::{BTreeMap, BTreeSet};

use diffy::patch_set::{FileOperation, ParseOptions, PatchKind, PatchSet};
use diffy::Line;
use semgraph_storage::{Direction, EdgeKind, Node, NodeFlags, NodeKind};
use serde::Serialize;

use super::impact::{
    consolidate, reach_diagram, render_reach, Consolidated, CrossRow, EntryRow, Reach, TableRow, TopicRow,
};
use super::{header, more, ROWS};
use crate::error::QueryError;
use crate::freshness::{self, short, RepoFreshness};
use crate::graph::{shape, Ctx};
use crate::mermaid::Flowchart;
use crate::params::Args;
use crate::primitives::docs::{issues_table, IssueRow};
use crate::primitives::{method_display, NodeRef};
use crate::render::{cell, document, tick, Md};
use crate::trace::Trace;
use crate::workspace::Declaration;
use crate::Document;

const VERSION: &str = "change-impact/1";
/// Files of one diff that are mapped; the rest are counted as not mapped.
const MAX_FILES: usize = 5_000;

/// One file of the diff and what became of it.
#[derive(Clone, Debug, Serialize)]
struct FileChange {
    /// The path after the change (before it, for a deletion), as the diff writes it.
    path: String,
    /// The path before a rename or copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    renamed_from: Option<String>,
    /// `modified`, `added`, `deleted`, `renamed`, `copied`.
    status: &'static str,
    product: Option<String>,
    repo: Option<String>,
    lines_added: usize,
    lines_removed: usize,
    /// Declarations touched in this file.
    touched: usize,
    /// Why (part of) the file could not be mapped; `None` when it all was.
    #[serde(skip_serializing_if = "Option::is_none")]
    not_mapped: Option<String>,
}

/// Something the change touches.
#[derive(Clone, Debug, Serialize)]
struct Touched {
    /// `changed`, `added`, `deleted`, `altered`, `dropped`.
    change: &'static str,
    /// The node kind (`method`, `table`, …).
    kind: String,
    /// Its fqn (with the overload's parameters for methods).
    name: String,
    product: String,
    /// `file:first–last` as the change has it (new side for added ones).
    location: String,
    /// The graph's node, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    node: Option<NodeRef>,
    /// True for test code.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    test: bool,
    /// How the change reaches code (`read by 3 method(s)`, `routes: …`).
    #[serde(skip_serializing_if = "String::is_empty")]
    detail: String,
}

/// An endpoint the change touches directly.
#[derive(Clone, Debug, Serialize)]
struct EndpointChange {
    /// `handler changed`, `handler deleted`, `new route`, `route no longer declared`.
    change: &'static str,
    service: String,
    endpoint: String,
    handler: String,
    /// False for a route the graph does not have yet.
    indexed: bool,
}

/// Test methods of one class that reach or are part of the change.
#[derive(Clone, Debug, Serialize)]
struct TestClass {
    class: String,
    product: String,
    file: Option<String>,
    methods: Vec<String>,
}

#[derive(Serialize)]
struct ChangeImpact {
    recipe_version: &'static str,
    /// `diff` or `range`.
    input: &'static str,
    repo: Option<String>,
    range: Option<String>,
    depth: u32,
    /// True when every file was mapped (and a range starts at the indexed commit).
    complete: bool,
    files: Vec<FileChange>,
    /// Methods, types and fields touched.
    code: Vec<Touched>,
    /// Tables, columns, indexes, triggers, views and routines touched.
    schema: Vec<Touched>,
    /// Config keys touched.
    config: Vec<Touched>,
    endpoints_touched: Vec<EndpointChange>,
    /// Methods the consolidated impact starts from.
    seeds: usize,
    affected_methods: usize,
    affected_products: Vec<String>,
    endpoints: Vec<EntryRow>,
    entry_points: Vec<EntryRow>,
    other_products: Vec<CrossRow>,
    topics: Vec<TopicRow>,
    tables_written: Vec<TableRow>,
    tests: Vec<TestClass>,
    test_methods: usize,
    incidents: Vec<IssueRow>,
    freshness: Vec<RepoFreshness>,
    not_mapped: Vec<FileChange>,
    trace: Trace,
}

/// A file of the diff, read.
struct FileDiff<'a> {
    old_path: Option<String>,
    new_path: Option<String>,
    status: &'static str,
    binary: bool,
    /// Old-side lines deleted (code: not blank, not only a comment).
    deleted: Vec<u32>,
    /// Old-side line after which code lines were inserted (0: before the first).
    inserted_after: Vec<u32>,
    /// Every old-side line deleted, blank and comment lines included (a declaration is
    /// deleted when all of its lines are).
    deleted_all: Vec<u32>,
    /// New-side lines of code inserted.
    added: Vec<u32>,
    /// New-side line where each deletion happened (the line that follows it).
    deletion_anchors: Vec<u32>,
    lines_added: usize,
    lines_removed: usize,
    /// The whole new text, when the diff holds it (a created file).
    created_text: Option<String>,
    patch: Option<diffy::Patch<'a, str>>,
}

/// True for a line that can change what code does: not blank, not only a comment.
fn is_code(text: &str) -> bool {
    let t = text.trim();
    !(t.is_empty()
        || t.starts_with("//")
        || t.starts_with("/*")
        || t.starts_with('*')
        || t.starts_with("--")
        || t.starts_with('#'))
}

/// Strips git's `a/`/`b/` prefix.
fn strip_side(path: &str, git: bool) -> String {
    let p = path.trim();
    if git {
        if let Some(rest) = p.strip_prefix("a/").or_else(|| p.strip_prefix("b/")) {
            return rest.to_string();
        }
    }
    p.trim_start_matches("./").to_string()
}

fn read_patch<'a>(fp: diffy::patch_set::FilePatch<'a, str>, git: bool) -> FileDiff<'a> {
    let (old_path, new_path, status) = match fp.operation() {
        FileOperation::Create(p) => (None, Some(strip_side(p, git)), "added"),
        FileOperation::Delete(p) => (Some(strip_side(p, git)), None, "deleted"),
        FileOperation::Modify { original, modified } => {
            let (o, m) = (strip_side(original, git), strip_side(modified, git));
            let status = if o == m { "modified" } else { "renamed" };
            (Some(o), Some(m), status)
        }
        FileOperation::Rename { from, to } => (
            Some(strip_side(from, false)),
            Some(strip_side(to, false)),
            "renamed",
        ),
        FileOperation::Copy { from, to } => (
            Some(strip_side(from, false)),
            Some(strip_side(to, false)),
            "copied",
        ),
    };
    let mut f = FileDiff {
        old_path,
        new_path,
        status,
        binary: false,
        deleted: Vec::new(),
        deleted_all: Vec::new(),
        inserted_after: Vec::new(),
        added: Vec::new(),
        deletion_anchors: Vec::new(),
        lines_added: 0,
        lines_removed: 0,
        created_text: None,
        patch: None,
    };
    let patch = match fp.into_patch() {
        PatchKind::Binary(_) => {
            f.binary = true;
            return f;
        }
        PatchKind::Text(p) => p,
    };
    let mut created = String::new();
    for h in patch.hunks() {
        let (o, n) = (h.old_range(), h.new_range());
        // An empty range names the line before it.
        let mut old = if o.is_empty() { o.start() + 1 } else { o.start() } as u32;
        let mut new = if n.is_empty() { n.start() + 1 } else { n.start() } as u32;
        for line in h.lines() {
            match line {
                Line::Context(_) => {
                    old += 1;
                    new += 1;
                }
                Line::Delete(text) => {
                    f.lines_removed += 1;
                    f.deleted_all.push(old);
                    if is_code(text) {
                        f.deleted.push(old);
                        f.deletion_anchors.push(new);
                    }
                    old += 1;
                }
                Line::Insert(text) => {
                    f.lines_added += 1;
                    if f.status == "added" {
                        created.push_str(text);
                        if !text.ends_with('\n') {
                            created.push('\n');
                        }
                    }
                    if is_code(text) {
                        f.added.push(new);
                        f.inserted_after.push(old.saturating_sub(1));
                    }
                    new += 1;
                }
            }
        }
    }
    if f.status == "added" {
        f.created_text = Some(created);
    }
    f.patch = Some(patch);
    f
}

/// The files of a unified diff, or why it cannot be read.
fn parse_diff(text: &str) -> Result<Vec<FileDiff<'_>>, String> {
    let git = text.lines().any(|l| l.starts_with("diff --git "));
    let options = if git {
        ParseOptions::gitdiff()
    } else {
        ParseOptions::unidiff()
    };
    let mut out = Vec::new();
    for p in PatchSet::parse(text, options) {
        out.push(read_patch(p.map_err(|e| e.to_string())?, git));
    }
    Ok(out)
}

/// Checks `BASE..HEAD` (or `BASE...HEAD`) and returns the two revisions.
fn parse_range(range: &str) -> Option<(String, String)> {
    let (base, head) = range.split_once("...").or_else(|| range.split_once(".."))?;
    let ok = |r: &str| {
        !r.is_empty()
            && !r.starts_with('-')
            && !r.contains("..")
            && r.len() <= 200
            && r.chars()
                .all(|c| c.is_ascii_alphanumeric() || "._/@^~{}-".contains(c))
    };
    (ok(base) && ok(head)).then(|| (base.to_string(), head.to_string()))
}

/// An indexed file: the File node and its repository.
#[derive(Clone)]
struct Located {
    file: Node,
    repo: Option<Node>,
    /// The service (deployable module) the file belongs to, else the product.
    service: String,
}

/// Where a path of the diff is, among the indexed files.
enum Place {
    Found(Located),
    /// Not indexed, but inside the repository `repo` (a new file, or a kind semgraph does
    /// not index), in the service of the files beside it.
    InRepo(Node, String),
    Ambiguous(Vec<String>),
    Nowhere,
}

/// Tails of `path`: itself, then without its first folder, and so on (a diff taken above
/// the repositories names them with a prefix).
fn tails(path: &str) -> Vec<&str> {
    let mut out = vec![path];
    let mut rest = path;
    while let Some((_, tail)) = rest.split_once('/') {
        // A bare file name says too little to find a file by (every module has a pom.xml).
        if tail.is_empty() || !tail.contains('/') || out.len() > 8 {
            break;
        }
        out.push(tail);
        rest = tail;
    }
    out
}

struct Finder<'c, 'a> {
    ctx: &'c Ctx<'a>,
    /// The repository the caller named, if any.
    only: Option<Node>,
    repos: Vec<Node>,
}

impl Finder<'_, '_> {
    fn repo_of(&self, file: &Node) -> Option<Node> {
        let name = file.attr("repo")?;
        self.repos
            .iter()
            .find(|r| r.product == file.product && r.name == name)
            .cloned()
    }

    /// The service holding `file` (its Service parent), else its product.
    fn service_of(&self, file: &Node) -> Result<String, QueryError> {
        Ok(self
            .ctx
            .neighbor_nodes(file.id, Direction::In, EdgeKind::Contains)?
            .into_iter()
            .find(|p| p.kind == NodeKind::Service)
            .map(|s| s.name)
            .unwrap_or_else(|| self.ctx.product_name(file.product)))
    }

    fn keep(&self, file: &Node) -> bool {
        match &self.only {
            Some(r) => r.product == file.product && file.attr("repo") == Some(r.name.as_str()),
            None => true,
        }
    }

    fn locate(&self, path: &str) -> Result<Place, QueryError> {
        let files = self.ctx.snap.nodes_of_kind(NodeKind::File);
        for tail in tails(path) {
            let mut ids: BTreeSet<u32> = BTreeSet::new();
            ids.extend(self.ctx.snap.find_by_name(tail)?.into_iter().map(|n| n.0));
            ids.extend(self.ctx.snap.find_by_fqn(tail)?.into_iter().map(|n| n.0));
            ids.retain(|id| files.contains(*id));
            if ids.is_empty() {
                continue;
            }
            let found: Vec<Node> = self.ctx.load(ids)?.into_iter().filter(|f| self.keep(f)).collect();
            match found.as_slice() {
                [] => continue,
                [one] => {
                    return Ok(Place::Found(Located {
                        file: one.clone(),
                        repo: self.repo_of(one),
                        service: self.service_of(one)?,
                    }))
                }
                many => {
                    return Ok(Place::Ambiguous(
                        many.iter()
                            .map(|f| format!("{}/{}", self.ctx.product_name(f.product), f.display_name()))
                            .collect(),
                    ))
                }
            }
        }
        // Not indexed: which repository holds its folder?
        let dir = path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        let mut folders: Vec<&str> = Vec::new();
        let mut d = dir;
        loop {
            folders.push(d);
            match d.rsplit_once('/') {
                Some((parent, _)) => d = parent,
                None => break,
            }
        }
        for folder in folders.into_iter().filter(|f| !f.is_empty()) {
            for tail in tails(folder) {
                let prefix = format!("{tail}/");
                let hits = self.ctx.snap.find_by_prefix(&prefix, 64)?;
                let hits: Vec<u32> = hits
                    .into_iter()
                    .map(|n| n.0)
                    .filter(|id| files.contains(*id))
                    .collect();
                let mut repos: BTreeMap<String, (Node, Node)> = BTreeMap::new();
                for f in self.ctx.load(hits)? {
                    let starts = f.name.starts_with(&prefix)
                        || f.fqn.as_deref().is_some_and(|q| q.starts_with(&prefix));
                    if starts && self.keep(&f) {
                        if let Some(r) = self.repo_of(&f) {
                            repos.insert(format!("{}/{}", self.ctx.product_name(r.product), r.name), (r, f));
                        }
                    }
                }
                if repos.len() == 1 {
                    if let Some((_, (r, sibling))) = repos.into_iter().next() {
                        let service = self.service_of(&sibling)?;
                        return Ok(Place::InRepo(r, service));
                    }
                }
            }
        }
        if let Some(r) = &self.only {
            if !dir.is_empty() || path.contains('.') {
                return Ok(Place::InRepo(r.clone(), self.ctx.product_name(r.product)));
            }
        }
        Ok(Place::Nowhere)
    }
}

/// The repository path within which `file` sits: its `rel` (the File node's name).
fn rel_of(loc: &Located) -> String {
    loc.file.name.clone()
}

/// The declarations a File node holds (types and their members, tables and their
/// columns, config keys, …), each with its span in that file.
fn declared_in(ctx: &Ctx<'_>, file: &Node) -> Result<Vec<Node>, QueryError> {
    let mut out = Vec::new();
    let mut queue = vec![file.id];
    let mut seen = BTreeSet::new();
    while let Some(id) = queue.pop() {
        for n in ctx.neighbor_nodes(id, Direction::Out, EdgeKind::Contains)? {
            if !seen.insert(n.id.0) {
                continue;
            }
            if matches!(n.kind, NodeKind::Type | NodeKind::Table) {
                queue.push(n.id);
            }
            if n.span.is_some() && n.file.as_deref() == Some(file.name.as_str()) {
                out.push(n);
            }
        }
    }
    Ok(out)
}

/// The innermost of `spans` (index, first, last) containing every one of `lines`; ties
/// all kept.
fn innermost(spans: &[(usize, u32, u32)], holds: impl Fn(u32, u32) -> bool) -> Vec<usize> {
    let hits: Vec<&(usize, u32, u32)> = spans.iter().filter(|(_, a, b)| holds(*a, *b)).collect();
    let Some(min) = hits.iter().map(|(_, a, b)| b - a).min() else {
        return Vec::new();
    };
    hits.into_iter()
        .filter(|(_, a, b)| b - a == min)
        .map(|(i, ..)| *i)
        .collect()
}

fn same_decl(n: &Node, d: &Declaration) -> bool {
    n.kind.as_str() == d.kind
        && n.fqn.as_deref() == Some(d.fqn.as_str())
        && (d.kind != "method" || d.signature.is_none() || n.attr("signature") == d.signature.as_deref())
}

/// The file's text after the change, when it can be had.
fn new_text(
    ctx: &Ctx<'_>,
    f: &FileDiff<'_>,
    loc: Option<&Located>,
    head: Option<&str>,
) -> Option<(String, &'static str)> {
    if let Some(t) = &f.created_text {
        return Some((t.clone(), "the diff (a new file)"));
    }
    let new_path = f.new_path.as_deref()?;
    let repo = loc.and_then(|l| l.repo.as_ref())?;
    let path = repo.attr("path")?;
    let rel_new = loc.map(|l| {
        // The new path relative to the repository: the File node's name for an in-place
        // change; a rename keeps the old file's folder prefix length.
        let rel = rel_of(l);
        match &f.old_path {
            Some(old) if old != new_path => {
                let prefix_len = old.len().saturating_sub(rel.len());
                new_path.get(prefix_len..).unwrap_or(new_path).to_string()
            }
            _ => rel,
        }
    })?;
    if let Some(head) = head {
        return ctx
            .workspace
            .file_text(path, Some(head), &rel_new)
            .map(|t| (t, "the range's head"));
    }
    let patch = f.patch.as_ref()?;
    let rel_old = loc.map(rel_of)?;
    // The working tree either still holds the old side (the diff applies to it) or
    // already holds the new one (every inserted line is where the diff says).
    if let Some(tree) = ctx.workspace.file_text(path, None, &rel_old) {
        if let Ok(applied) = diffy::apply(&tree, patch) {
            return Some((applied, "the working tree with the diff applied"));
        }
    }
    if let Some(tree) = ctx.workspace.file_text(path, None, &rel_new) {
        let lines: Vec<&str> = tree.lines().collect();
        let mut matches = true;
        for h in patch.hunks() {
            let n = h.new_range();
            let mut at = if n.is_empty() { n.start() + 1 } else { n.start() };
            for line in h.lines() {
                match line {
                    Line::Context(t) | Line::Insert(t) => {
                        if lines.get(at.wrapping_sub(1)).map(|l| l.trim_end()) != Some(t.trim_end()) {
                            matches = false;
                        }
                        at += 1;
                    }
                    Line::Delete(_) => {}
                }
            }
        }
        if matches {
            return Some((tree, "the working tree (already changed)"));
        }
    }
    // The indexed commit, with the diff applied.
    let commit = repo.attr("commit")?;
    let base = ctx.workspace.file_text(path, Some(commit), &rel_old)?;
    diffy::apply(&base, patch)
        .ok()
        .map(|t| (t, "the indexed commit with the diff applied"))
}

#[derive(Default)]
struct Mapped {
    /// By node id: the node and its strongest change.
    nodes: BTreeMap<u32, (Node, &'static str, String)>,
    /// Declarations the graph does not have: (product, file, declaration).
    added: Vec<(String, String, Declaration)>,
    endpoints: Vec<EndpointChange>,
}

fn rank(change: &str) -> u8 {
    match change {
        "deleted" | "dropped" => 3,
        "altered" => 2,
        "changed" => 1,
        _ => 0,
    }
}

impl Mapped {
    fn touch(&mut self, n: &Node, change: &'static str, location: String) {
        let e = self
            .nodes
            .entry(n.id.0)
            .or_insert_with(|| (n.clone(), change, location));
        if rank(change) > rank(e.1) {
            e.1 = change;
        }
    }
}

/// Maps one located file's hunks; returns how many declarations it touched and, when some
/// changed lines touch none, a sentence saying so.
fn map_file(
    ctx: &Ctx<'_>,
    f: &FileDiff<'_>,
    loc: Option<&Located>,
    product: &str,
    head: Option<&str>,
    out: &mut Mapped,
    trace_notes: &mut Vec<String>,
) -> Result<(usize, Option<String>), QueryError> {
    let before = out.nodes.len() + out.added.len();
    let mut unplaced_old: Vec<u32> = Vec::new();
    let mut unplaced_new: Vec<u32> = Vec::new();
    // The old side: the graph's spans.
    let graph: Vec<Node> = match loc {
        Some(l) if f.old_path.is_some() => declared_in(ctx, &l.file)?,
        _ => Vec::new(),
    };
    let file_label = f
        .new_path
        .clone()
        .or_else(|| f.old_path.clone())
        .unwrap_or_default();
    let spans: Vec<(usize, u32, u32)> = graph
        .iter()
        .enumerate()
        .filter_map(|(i, n)| n.span.map(|s| (i, s.start_line, s.end_line)))
        .collect();
    let deleted: BTreeSet<u32> = f.deleted_all.iter().copied().collect();
    let location = |n: &Node| match n.span {
        Some(s) => format!(
            "{}:{}–{}",
            n.file.as_deref().unwrap_or(""),
            s.start_line,
            s.end_line
        ),
        None => n.file.clone().unwrap_or_default(),
    };
    if f.status == "deleted" {
        for n in &graph {
            out.touch(n, "deleted", location(n));
        }
    } else {
        for &line in &f.deleted {
            let hit = innermost(&spans, |a, b| a <= line && line <= b);
            if hit.is_empty() {
                unplaced_old.push(line);
            }
            for i in hit {
                let n = &graph[i];
                let whole = n
                    .span
                    .is_some_and(|s| (s.start_line..=s.end_line).all(|l| deleted.contains(&l)));
                out.touch(n, if whole { "deleted" } else { "changed" }, location(n));
            }
        }
    }
    // The new side: the front-ends' declarations of the file as it is after the change.
    let text = new_text(ctx, f, loc, head);
    let decls: Option<Vec<Declaration>> = match (&text, &f.new_path) {
        (Some((t, _)), Some(p)) => ctx.workspace.outline(p, t),
        _ => None,
    };
    match &decls {
        Some(decls) => {
            let dspans: Vec<(usize, u32, u32)> = decls
                .iter()
                .enumerate()
                .map(|(i, d)| (i, d.lines.0, d.lines.1))
                .collect();
            let mut touched: BTreeSet<usize> = BTreeSet::new();
            for &line in f.added.iter().chain(&f.deletion_anchors) {
                let hit = innermost(&dspans, |a, b| a <= line && line <= b);
                if hit.is_empty() && f.added.contains(&line) {
                    unplaced_new.push(line);
                }
                touched.extend(hit);
            }
            for i in touched {
                let d = &decls[i];
                let known: Vec<Node> = find_declared(ctx, &graph, d, product)?;
                let change: &'static str = match (d.action.as_str(), known.is_empty()) {
                    ("drops", _) => "dropped",
                    ("alters", _) => "altered",
                    (_, false) => "changed",
                    (_, true) => "added",
                };
                if known.is_empty() {
                    if change == "added" || change == "altered" || change == "dropped" {
                        out.added
                            .push((product.to_string(), file_label.clone(), d.clone()));
                    }
                    // Routes of a handler the graph does not know.
                    for r in &d.routes {
                        out.endpoints.push(EndpointChange {
                            change: "new route",
                            service: loc
                                .map(|l| l.service.clone())
                                .unwrap_or_else(|| product.to_string()),
                            endpoint: r.clone(),
                            handler: d.fqn.clone(),
                            indexed: route_indexed(ctx, product, r)?,
                        });
                    }
                }
                for n in &known {
                    out.touch(n, change, format!("{file_label}:{}–{}", d.lines.0, d.lines.1));
                    if n.kind == NodeKind::Method {
                        compare_routes(ctx, n, d, out)?;
                    }
                }
            }
        }
        None => {
            // Without the new side, insertions are placed by the old spans around them.
            for &after in &f.inserted_after {
                let hit = innermost(&spans, |a, b| a <= after && after < b);
                if hit.is_empty() {
                    unplaced_old.push(after + 1);
                }
                for i in hit {
                    out.touch(&graph[i], "changed", location(&graph[i]));
                }
            }
            if f.status != "deleted" && !f.added.is_empty() {
                let why = if text.is_none() {
                    "the file as it is after the change is not available here"
                } else {
                    "no front-end reads it here"
                };
                trace_notes.push(format!("{file_label}: declarations added are not listed ({why})"));
            }
        }
    }
    let touched = out.nodes.len() + out.added.len() - before;
    let mut note = None;
    if touched == 0 && (f.lines_added + f.lines_removed) > 0 {
        note = Some(if graph.is_empty() && decls.as_ref().is_none_or(Vec::is_empty) {
            "indexed, but it declares nothing semgraph maps (a build file, docs, or text outside declarations)".to_string()
        } else {
            "its changed lines fall outside every declaration (imports, comments, whitespace)".to_string()
        });
    } else if !unplaced_new.is_empty() || !unplaced_old.is_empty() {
        let n = unplaced_new.len().max(unplaced_old.len());
        note = Some(format!(
            "{n} changed line(s) fall outside every declaration (imports, comments, statements semgraph does not map)"
        ));
    }
    // Lines outside declarations are said, but they do not make the answer incomplete.
    Ok((touched, note))
}

/// The graph nodes a declaration of the new side stands for: in the same file, else (a
/// migration altering a table created elsewhere, a mapper statement binding an
/// interface method) anywhere in the product.
fn find_declared(
    ctx: &Ctx<'_>,
    graph: &[Node],
    d: &Declaration,
    product: &str,
) -> Result<Vec<Node>, QueryError> {
    let here: Vec<Node> = graph.iter().filter(|n| same_decl(n, d)).cloned().collect();
    if !here.is_empty() {
        return Ok(here);
    }
    let elsewhere = matches!(
        d.kind.as_str(),
        "table" | "column" | "index" | "trigger" | "view" | "routine"
    ) || (d.kind == "method" && d.signature.is_none());
    if !elsewhere {
        return Ok(Vec::new());
    }
    let nodes: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(&d.fqn)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| n.kind.as_str() == d.kind && !n.flags.contains(NodeFlags::EXTERNAL))
        .collect();
    let same_product: Vec<Node> = nodes
        .iter()
        .filter(|n| ctx.product_name(n.product) == product)
        .cloned()
        .collect();
    Ok(if same_product.is_empty() {
        nodes
    } else {
        same_product
    })
}

/// True when an endpoint of `product` serves `route` (`VERB /path`).
fn route_indexed(ctx: &Ctx<'_>, product: &str, route: &str) -> Result<bool, QueryError> {
    let Some((verb, path)) = route.split_once(' ') else {
        return Ok(false);
    };
    let want = shape(path);
    let ids = ctx.snap.product_nodes_of_kind(product, NodeKind::Endpoint);
    Ok(ctx.load(ids.iter())?.iter().any(|e| {
        (verb == "ANY" || e.attr("verb") == Some(verb)) && e.attr("path").is_some_and(|p| shape(p) == want)
    }))
}

/// Routes a changed handler declares now against the endpoints it serves in the graph
/// (only for the kinds of endpoints a handler's annotations declare).
fn compare_routes(ctx: &Ctx<'_>, method: &Node, d: &Declaration, out: &mut Mapped) -> Result<(), QueryError> {
    let served: Vec<Node> = ctx
        .neighbor_nodes(method.id, Direction::In, EdgeKind::Serves)?
        .into_iter()
        .filter(|e| {
            e.kind == NodeKind::Endpoint
                && matches!(
                    e.attr("kind"),
                    Some("spring-mvc" | "webflux" | "jax-rs" | "servlet")
                )
        })
        .collect();
    let route_of = |e: &Node| {
        format!(
            "{} {}",
            e.attr("verb").unwrap_or(""),
            shape(e.attr("path").unwrap_or(""))
        )
    };
    let now: BTreeSet<String> = d
        .routes
        .iter()
        .filter_map(|r| r.split_once(' ').map(|(v, p)| format!("{v} {}", shape(p))))
        .collect();
    let had: BTreeSet<String> = served.iter().map(route_of).collect();
    for e in &served {
        if !now.contains(&route_of(e)) {
            out.endpoints.push(EndpointChange {
                change: "route no longer declared",
                service: ctx.service_of(e),
                endpoint: e.name.clone(),
                handler: method_display(method),
                indexed: true,
            });
        }
    }
    for r in &d.routes {
        let Some((v, p)) = r.split_once(' ') else { continue };
        if !had.contains(&format!("{v} {}", shape(p))) {
            out.endpoints.push(EndpointChange {
                change: "new route",
                service: ctx.service_of(method),
                endpoint: r.clone(),
                handler: method_display(method),
                indexed: false,
            });
        }
    }
    Ok(())
}

fn section_of(kind: &str) -> u8 {
    match kind {
        "method" | "type" | "field" => 0,
        "config-key" => 2,
        _ => 1,
    }
}

pub(crate) fn run(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let spec = crate::catalog::endpoint_spec("recipes", "change-impact").ok_or_else(|| {
        QueryError::new(
            crate::error::ErrorKind::Internal,
            "# 500: change-impact is not in the catalog\n",
        )
    })?;
    let depth = args.int("depth");
    let diff_param = args.get("diff");
    let repo_param = args.get("repo").map(str::to_string);
    let range_param = args.get("range").map(str::to_string);
    match (diff_param.is_some(), range_param.is_some()) {
        (true, true) => {
            return Err(QueryError::parameter(
                spec,
                "range",
                "give either `diff` (the diff's text) or `repo` and `range`, not both",
            ))
        }
        (false, false) => {
            return Err(QueryError::parameter(
                spec,
                "diff",
                "missing the change: give `diff` (a unified diff, in a POST body) or `repo` and `range` (`BASE..HEAD`)",
            ))
        }
        _ => {}
    }
    let mut trace = Trace::default();
    let repos = ctx.load(ctx.snap.nodes_of_kind(NodeKind::Repo).iter())?;
    let only: Option<Node> = match &repo_param {
        None => None,
        Some(written) => {
            let hits: Vec<&Node> = repos
                .iter()
                .filter(|r| {
                    r.name == *written || format!("{}/{}", ctx.product_name(r.product), r.name) == *written
                })
                .collect();
            match hits.as_slice() {
                [one] => Some((*one).clone()),
                [] => {
                    let names: Vec<String> = repos
                        .iter()
                        .map(|r| format!("{}/{}", ctx.product_name(r.product), r.name))
                        .collect();
                    return Err(QueryError::not_found(
                        "indexed repository",
                        written,
                        &crate::error::nearest(written, names.iter().map(String::as_str), 5),
                    ));
                }
                many => {
                    return Err(QueryError::parameter(
                        spec,
                        "repo",
                        &format!(
                            "`{written}` names {} repositories; write `product/repo`: {}",
                            many.len(),
                            many.iter()
                                .map(|r| format!("`{}/{}`", ctx.product_name(r.product), r.name))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ))
                }
            }
        }
    };

    // The diff's text: as given, or read from the repository's history.
    let mut range_ends: Option<(String, String)> = None;
    let mut withheld = false;
    let text: String = match (&range_param, diff_param) {
        (Some(range), _) => {
            let Some(repo) = only.clone() else {
                return Err(QueryError::parameter(
                    spec,
                    "repo",
                    "`range` needs `repo`: the indexed repository whose history it is",
                ));
            };
            let Some((base, head)) = parse_range(range) else {
                return Err(QueryError::parameter(
                    spec,
                    "range",
                    &format!("`{range}` is not `BASE..HEAD`: two revisions (branch, tag or commit names) joined by `..`"),
                ));
            };
            if !ctx.may_read(&repo) {
                withheld = true;
                trace.warn(format!(
                    "the history of `{}` is content of area `{}`, outside your area: it was not read (a permission boundary); send the diff as `diff` instead",
                    repo.name,
                    ctx.area(repo.product)
                ));
                String::new()
            } else {
                let path = repo.attr("path").unwrap_or_default().to_string();
                let read = trace.step("read the range's diff", || -> Result<_, QueryError> {
                    let d = ctx.workspace.diff_range(&path, &base, &head).map_err(|e| {
                        QueryError::parameter(
                            spec,
                            "range",
                            &format!("`{range}` cannot be read in `{}`: {e}", repo.name),
                        )
                    })?;
                    let msg = format!(
                        "{} {}..{} ({} bytes)",
                        repo.name,
                        short(&d.base),
                        short(&d.head),
                        d.text.len()
                    );
                    Ok((d, msg))
                })?;
                range_ends = Some((read.base, read.head));
                read.text
            }
        }
        (None, Some(d)) => d.to_string(),
        (None, None) => String::new(),
    };

    let files = trace.step("parse the diff", || -> Result<_, QueryError> {
        let files = parse_diff(&text).map_err(|e| {
            QueryError::parameter(
                spec,
                "diff",
                &format!("the diff cannot be read: {e}. Send `git diff` output (unified format) as it is"),
            )
        })?;
        let (added, removed) = files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.lines_added, r + f.lines_removed));
        let msg = format!("{} file(s), +{added} −{removed} line(s)", files.len());
        Ok((files, msg))
    })?;

    let finder = Finder {
        ctx,
        only: only.clone(),
        repos: repos.clone(),
    };
    let head = range_ends.as_ref().map(|(_, h)| h.as_str());
    let mut mapped = Mapped::default();
    let mut changes: Vec<FileChange> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    let mut touched_repos: BTreeSet<(String, String)> = BTreeSet::new();
    trace.step("map hunks to the graph (old side: indexed spans; new side: the front-ends)", || -> Result<_, QueryError> {
        for (i, f) in files.iter().enumerate() {
            let path = f.old_path.clone().or_else(|| f.new_path.clone()).unwrap_or_default();
            let shown = f.new_path.clone().unwrap_or_else(|| path.clone());
            let mut change = FileChange {
                path: shown.clone(),
                renamed_from: match f.status {
                    "renamed" | "copied" => f.old_path.clone(),
                    _ => None,
                },
                status: f.status,
                product: None,
                repo: None,
                lines_added: f.lines_added,
                lines_removed: f.lines_removed,
                touched: 0,
                not_mapped: None,
            };
            if i >= MAX_FILES {
                change.not_mapped = Some(format!("past the first {MAX_FILES} files of the diff"));
                changes.push(change);
                continue;
            }
            let lookup = if f.status == "added" { &shown } else { &path };
            let place = finder.locate(lookup)?;
            let loc = match place {
                Place::Found(l) => Some(l),
                Place::InRepo(r, service) => {
                    change.product = Some(ctx.product_name(r.product));
                    change.repo = Some(r.name.clone());
                    if f.status == "added" && !f.binary {
                        // A new file: its declarations come from the diff alone.
                        let file = Node {
                            id: semgraph_storage::NodeId(u32::MAX),
                            kind: NodeKind::File,
                            product: r.product,
                            name: shown.clone(),
                            fqn: None,
                            file: None,
                            span: None,
                            flags: NodeFlags::default(),
                            attrs: Vec::new(),
                        };
                        Some(Located {
                            file,
                            repo: Some(r),
                            service,
                        })
                    } else {
                        change.not_mapped = Some(if f.binary {
                            "binary: not read".into()
                        } else {
                            "not indexed: a kind of file semgraph does not read, or outside the indexed sources".into()
                        });
                        changes.push(change);
                        continue;
                    }
                }
                Place::Ambiguous(candidates) => {
                    change.not_mapped = Some(format!(
                        "matches {} indexed files ({}): pass `repo` to say which repository the diff is of",
                        candidates.len(),
                        candidates.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                    ));
                    changes.push(change);
                    continue;
                }
                Place::Nowhere => {
                    change.not_mapped = Some(if f.binary {
                        "binary, and in no indexed repository".into()
                    } else {
                        "in no indexed repository".into()
                    });
                    changes.push(change);
                    continue;
                }
            };
            let Some(loc) = loc else { continue };
            let product = ctx.product_name(loc.file.product);
            change.product = Some(product.clone());
            if let Some(r) = &loc.repo {
                change.repo = Some(r.name.clone());
                touched_repos.insert((product.clone(), r.name.clone()));
            }
            if f.binary {
                change.not_mapped = Some("binary: not read".into());
                changes.push(change);
                continue;
            }
            let (touched, note) = map_file(ctx, f, Some(&loc), &product, head, &mut mapped, &mut notes)?;
            change.touched = touched;
            change.not_mapped = note;
            changes.push(change);
        }
        let mapped_files = changes.iter().filter(|c| c.product.is_some()).count();
        let msg = format!(
            "{} declaration(s) of the graph touched, {} new, in {mapped_files} of {} file(s)",
            mapped.nodes.len(),
            mapped.added.len(),
            changes.len()
        );
        Ok(((), msg))
    })?;
    for n in notes {
        trace.warn(n);
    }

    // What each touched node reaches in code, and the seeds of the consolidated impact.
    let mut seeds: BTreeMap<u32, Node> = BTreeMap::new();
    let mut code: Vec<Touched> = Vec::new();
    let mut schema: Vec<Touched> = Vec::new();
    let mut config: Vec<Touched> = Vec::new();
    let mut endpoints_touched = std::mem::take(&mut mapped.endpoints);
    trace.step(
        "code that reads the touched tables and keys, handlers of touched endpoints",
        || -> Result<_, QueryError> {
            for (n, change, location) in mapped.nodes.values() {
                let mut detail = String::new();
                let mut users: Vec<u32> = Vec::new();
                match n.kind {
                    NodeKind::Method => {
                        seeds.insert(n.id.0, n.clone());
                        for e in ctx.neighbor_nodes(n.id, Direction::In, EdgeKind::Serves)? {
                            endpoints_touched.push(EndpointChange {
                                change: if *change == "deleted" {
                                    "handler deleted"
                                } else {
                                    "handler changed"
                                },
                                service: ctx.service_of(&e),
                                endpoint: if e.kind == NodeKind::Endpoint {
                                    e.name.clone()
                                } else {
                                    e.attr("trigger").unwrap_or(&e.name).to_string()
                                },
                                handler: method_display(n),
                                indexed: true,
                            });
                        }
                    }
                    NodeKind::Type => {
                        for e in ctx.neighbor_nodes(n.id, Direction::In, EdgeKind::Serves)? {
                            endpoints_touched.push(EndpointChange {
                                change: "handler changed",
                                service: ctx.service_of(&e),
                                endpoint: e.name.clone(),
                                handler: n.display_name().to_string(),
                                indexed: true,
                            });
                        }
                    }
                    NodeKind::Table
                    | NodeKind::Column
                    | NodeKind::Index
                    | NodeKind::Trigger
                    | NodeKind::View => {
                        let table = table_of(ctx, n)?;
                        if let Some(t) = &table {
                            users.extend(ctx.neighbors(t.id, Direction::In, EdgeKind::Reads));
                            users.extend(ctx.neighbors(t.id, Direction::In, EdgeKind::Writes));
                            let objects = ctx.neighbors(t.id, Direction::In, EdgeKind::References).len();
                            let entities = ctx.neighbors(t.id, Direction::In, EdgeKind::MapsTo).len();
                            let mut parts = Vec::new();
                            if n.kind != NodeKind::Table {
                                parts.push(format!("on table `{}`", t.name));
                            }
                            parts.push(format!("{} method(s) read or write the table", users.len()));
                            if entities > 0 {
                                parts.push(format!("{entities} entity type(s) map to it"));
                            }
                            if objects > 0 {
                                parts.push(format!(
                                    "{objects} view(s), trigger(s), routine(s) or key(s) refer to it"
                                ));
                            }
                            detail = parts.join("; ");
                        }
                    }
                    NodeKind::Routine => {
                        users.extend(ctx.neighbors(n.id, Direction::In, EdgeKind::Calls));
                    }
                    NodeKind::ConfigKey => {
                        for u in ctx.neighbor_nodes(n.id, Direction::In, EdgeKind::UsesConfig)? {
                            match u.kind {
                                NodeKind::Method => users.push(u.id.0),
                                NodeKind::Type => users.extend(
                                    ctx.neighbors(u.id, Direction::Out, EdgeKind::Contains)
                                        .into_iter()
                                        .filter(|m| ctx.snap.nodes_of_kind(NodeKind::Method).contains(*m)),
                                ),
                                _ => {}
                            }
                        }
                        detail = format!("read by {} method(s)", users.len());
                    }
                    _ => {}
                }
                for u in ctx.load(users)? {
                    if u.kind == NodeKind::Method {
                        seeds.insert(u.id.0, u);
                    }
                }
                let row = Touched {
                    change,
                    kind: n.kind.as_str().to_string(),
                    name: if n.kind == NodeKind::Method {
                        method_display(n)
                    } else {
                        n.display_name().to_string()
                    },
                    product: ctx.product_name(n.product),
                    location: location.clone(),
                    node: Some(NodeRef::of(ctx, n)),
                    test: n.flags.contains(NodeFlags::TEST),
                    detail,
                };
                match section_of(n.kind.as_str()) {
                    0 => code.push(row),
                    1 => schema.push(row),
                    _ => config.push(row),
                }
            }
            for (product, file, d) in &mapped.added {
                let row = Touched {
                    change: match d.action.as_str() {
                        "drops" => "dropped",
                        "alters" => "altered",
                        _ => "added",
                    },
                    kind: d.kind.clone(),
                    name: match (&d.signature, d.kind.as_str()) {
                        (Some(sig), "method") => {
                            let params = sig.find('(').map(|i| &sig[i..]).unwrap_or("");
                            if params == "()" {
                                d.fqn.clone()
                            } else {
                                format!("{}{params}", d.fqn)
                            }
                        }
                        _ => d.fqn.clone(),
                    },
                    product: product.clone(),
                    location: format!("{file}:{}–{}", d.lines.0, d.lines.1),
                    node: None,
                    test: file.contains("src/test/"),
                    detail: if d.routes.is_empty() {
                        "not in the graph yet".into()
                    } else {
                        format!("not in the graph yet; routes: {}", d.routes.join(", "))
                    },
                };
                match section_of(&d.kind) {
                    0 => code.push(row),
                    1 => schema.push(row),
                    _ => config.push(row),
                }
            }
            for v in [&mut code, &mut schema, &mut config] {
                v.sort_by(|a, b| (&a.product, &a.location, &a.name).cmp(&(&b.product, &b.location, &b.name)));
            }
            endpoints_touched.sort_by(|a, b| {
                (&a.service, &a.endpoint, a.change).cmp(&(&b.service, &b.endpoint, b.change))
            });
            endpoints_touched
                .dedup_by(|a, b| a.service == b.service && a.endpoint == b.endpoint && a.change == b.change);
            let msg = format!(
                "{} method(s) to follow, {} endpoint change(s)",
                seeds.len(),
                endpoints_touched.len()
            );
            Ok(((), msg))
        },
    )?;

    let seed_nodes: Vec<Node> = seeds.values().cloned().collect();
    let Consolidated {
        endpoints,
        entry_points,
        other_products,
        topics,
        tables_written,
        tests,
        test_count,
        affected_methods,
        affected_products,
        incidents,
        ..
    } = consolidate(ctx, &seed_nodes, depth, true, &mut trace)?;

    // The tests to run: those that reach the change, and the changed or new test code.
    let mut classes: BTreeMap<(String, String), TestClass> = BTreeMap::new();
    let mut add_test = |class: String, product: String, file: Option<String>, method: String| {
        let e = classes
            .entry((product.clone(), class.clone()))
            .or_insert_with(|| TestClass {
                class,
                product,
                file: file.clone(),
                methods: Vec::new(),
            });
        if e.file.is_none() {
            e.file = file;
        }
        if !e.methods.contains(&method) {
            e.methods.push(method);
        }
    };
    let split_method = |fqn: &str| -> (String, String) {
        match fqn.rsplit_once('.') {
            Some((class, m)) => (class.to_string(), m.to_string()),
            None => (fqn.to_string(), fqn.to_string()),
        }
    };
    for t in &tests {
        let (class, m) = split_method(t.display());
        add_test(class, t.product.clone(), t.file.clone(), m);
    }
    // A deleted test is not run.
    let deleted_ids: BTreeSet<u32> = mapped
        .nodes
        .values()
        .filter(|(_, change, _)| *change == "deleted")
        .map(|(n, ..)| n.id.0)
        .collect();
    for s in seed_nodes
        .iter()
        .filter(|n| n.flags.contains(NodeFlags::TEST) && !deleted_ids.contains(&n.id.0))
    {
        let (class, m) = split_method(s.display_name());
        add_test(class, ctx.product_name(s.product), s.file.clone(), m);
    }
    for (product, file, d) in &mapped.added {
        if d.kind == "method" && file.contains("src/test/") {
            let (class, m) = split_method(&d.fqn);
            add_test(class, product.clone(), Some(file.clone()), m);
        }
    }
    let mut tests: Vec<TestClass> = classes.into_values().collect();
    for t in &mut tests {
        t.methods.sort();
    }
    let test_methods: usize = tests.iter().map(|t| t.methods.len()).sum();
    let _ = test_count;

    // Which commit each touched repository was indexed at, and whether it has moved on.
    let mut products: Vec<String> = touched_repos.iter().map(|(p, _)| p.clone()).collect();
    products.dedup();
    let base = range_ends.as_ref().map(|(b, _)| b.as_str());
    let mut fresh = freshness::note(ctx, &mut trace, &products, base)?;
    fresh.retain(|f| touched_repos.contains(&(f.product.clone(), f.repo.clone())));
    let mut off_base = false;
    if let (Some(base), Some(repo)) = (base, &only) {
        if let Some(indexed) = repo.attr("commit") {
            if indexed != base {
                off_base = true;
                trace.warn(format!(
                    "`{}` was indexed at {}, the range starts at {}: the old side is located by the indexed spans, which may have moved",
                    repo.name,
                    short(indexed),
                    short(base)
                ));
            }
        }
    }
    let not_mapped: Vec<FileChange> = changes
        .iter()
        .filter(|c| {
            c.product.is_none()
                || c.not_mapped
                    .as_deref()
                    .is_some_and(|n| !n.contains("outside every declaration"))
        })
        .cloned()
        .collect();
    // A plain diff says nothing of its base: a repository that has moved on since its
    // index is said (WARN above) but does not make the mapping partial; a range does when
    // it starts elsewhere than the indexed commit.
    let complete = not_mapped.is_empty() && !off_base && !withheld;

    let result = ChangeImpact {
        recipe_version: VERSION,
        input: if range_param.is_some() { "range" } else { "diff" },
        repo: repo_param,
        range: range_param,
        depth,
        complete,
        files: changes,
        code,
        schema,
        config,
        endpoints_touched,
        seeds: seed_nodes.len(),
        affected_methods,
        affected_products,
        endpoints,
        entry_points,
        other_products,
        topics,
        tables_written,
        tests,
        test_methods,
        incidents,
        freshness: fresh,
        not_mapped,
        trace,
    };
    let title = "Change impact".to_string();
    let md = render(&result);
    document(&title, md, &result)
}

/// The table a schema node belongs to (itself for a table).
fn table_of(ctx: &Ctx<'_>, n: &Node) -> Result<Option<Node>, QueryError> {
    if n.kind == NodeKind::Table || n.kind == NodeKind::View {
        return Ok(Some(n.clone()));
    }
    if let Some(parent) = ctx
        .neighbor_nodes(n.id, Direction::In, EdgeKind::Contains)?
        .into_iter()
        .find(|p| p.kind == NodeKind::Table)
    {
        return Ok(Some(parent));
    }
    // Indexes and triggers name their table.
    if let Some(t) = n.attr("table") {
        let key = t
            .rsplit('.')
            .next()
            .unwrap_or(t)
            .trim_matches(['"', '`'])
            .to_lowercase();
        let found = ctx
            .load(ctx.snap.find_by_fqn(&key)?.into_iter().map(|i| i.0))?
            .into_iter()
            .find(|x| x.kind == NodeKind::Table && x.product == n.product);
        return Ok(found);
    }
    Ok(None)
}

fn touched_table(md: &mut Md, rows: &[Touched], empty: &str) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .take(ROWS)
        .map(|t| {
            vec![
                t.change.to_string(),
                t.kind.clone(),
                tick(&t.name),
                t.product.clone(),
                t.location.clone(),
                t.detail.clone(),
            ]
        })
        .collect();
    md.table(
        &["change", "kind", "name", "product", "where", "reaches"],
        &table,
        empty,
    );
    more(md, rows.len(), table.len(), "see the JSON answer");
}

/// The path across services: the change, the services whose endpoints it reaches, the
/// services calling them over HTTP, the topics it produces and who consumes them, the
/// tables written — drawn as `impact` draws it.
fn diagram(r: &ChangeImpact) -> Option<Flowchart> {
    if r.seeds == 0 && r.endpoints.is_empty() && r.tables_written.is_empty() {
        return None;
    }
    let symbols = r.code.len() + r.schema.len() + r.config.len();
    Some(reach_diagram(
        &format!("this change: {symbols} declaration(s)"),
        None,
        Reach {
            endpoints: &r.endpoints,
            entry_points: &r.entry_points,
            other_products: &r.other_products,
            topics: &r.topics,
            tables_written: &r.tables_written,
        },
    ))
}

fn render(r: &ChangeImpact) -> String {
    let mut md = header("Change impact", VERSION, &r.trace);
    md.h2("Summary");
    let changed = |rows: &[Touched], what: &str| rows.iter().filter(|t| t.change == what).count();
    let all: Vec<&Touched> = r.code.iter().chain(&r.schema).chain(&r.config).collect();
    if all.is_empty() && r.files.is_empty() {
        md.para("The diff holds no file: nothing changes.");
    } else {
        let count = |what: &str| all.iter().filter(|t| t.change == what).count();
        let new_routes = r.endpoints_touched.iter().filter(|e| !e.indexed).count();
        md.para(&format!(
            "{} file(s); **{} declaration(s) changed, {} added, {} deleted, {} altered or dropped** ({} method(s) changed); \
             {} endpoint(s) touched directly{}. Following {} method(s) up to {} level(s) of callers: **{} endpoint(s)**, \
             {} other entry point(s), {} caller(s) in other services, {} topic(s), {} table(s) written; \
             **{} test method(s) in {} class(es)** to run.",
            r.files.len(),
            count("changed"),
            count("added"),
            count("deleted"),
            count("altered") + count("dropped"),
            changed(&r.code, "changed"),
            r.endpoints_touched.len(),
            if new_routes > 0 { format!(" ({new_routes} new route(s) not in the graph yet)") } else { String::new() },
            r.seeds,
            r.depth,
            r.endpoints.len(),
            r.entry_points.len(),
            r.other_products.len(),
            r.topics.len(),
            r.tables_written.len(),
            r.test_methods,
            r.tests.len(),
        ));
        md.para(if r.complete {
            "Every file of the diff was mapped onto the index."
        } else {
            "**Partial answer**: part of the diff could not be mapped, or the range does not start at the indexed commit — see `Not mapped` and the WARN lines above."
        });
    }

    if let Some(chart) = diagram(r) {
        md.h2("Diagram");
        chart.write(&mut md);
    }

    md.h2("Files");
    let rows: Vec<Vec<String>> = r
        .files
        .iter()
        .take(ROWS)
        .map(|f| {
            vec![
                tick(&f.path),
                match &f.renamed_from {
                    Some(from) => format!("{} from `{from}`", f.status),
                    None => f.status.to_string(),
                },
                match (&f.product, &f.repo) {
                    (Some(p), Some(r)) => format!("{p}/{r}"),
                    (Some(p), None) => p.clone(),
                    _ => "-".into(),
                },
                format!("+{} −{}", f.lines_added, f.lines_removed),
                f.touched.to_string(),
                f.not_mapped.clone().unwrap_or_default(),
            ]
        })
        .collect();
    md.table(
        &["file", "change", "repository", "lines", "declarations", "note"],
        &rows,
        "The diff holds no file.",
    );
    more(&mut md, r.files.len(), rows.len(), "see the JSON answer");

    md.h2("Code touched");
    touched_table(&mut md, &r.code, "No method, type or field is touched.");
    md.h2("Schema touched");
    touched_table(
        &mut md,
        &r.schema,
        "No table, column, index, trigger, view or routine is touched.",
    );
    md.h2("Config touched");
    touched_table(&mut md, &r.config, "No config key is touched.");

    md.h2("Endpoints touched directly");
    let rows: Vec<Vec<String>> = r
        .endpoints_touched
        .iter()
        .take(ROWS)
        .map(|e| {
            vec![
                e.change.to_string(),
                e.service.clone(),
                tick(&e.endpoint),
                tick(&e.handler),
                if e.indexed { "yes" } else { "not yet" }.to_string(),
            ]
        })
        .collect();
    md.table(
        &["change", "service", "endpoint", "handler", "in the graph"],
        &rows,
        "No endpoint's handler or mapping is in the diff.",
    );

    md.h2("Endpoints and entry points reached");
    let rows: Vec<Vec<String>> = r
        .endpoints
        .iter()
        .chain(&r.entry_points)
        .take(ROWS)
        .map(|e| {
            vec![
                e.product.clone(),
                e.service.clone(),
                e.kind.clone(),
                tick(&e.name),
                tick(&e.handler),
                e.depth.to_string(),
            ]
        })
        .collect();
    md.table(
        &[
            "product",
            "service",
            "kind",
            "endpoint / trigger",
            "handler",
            "depth",
        ],
        &rows,
        "No endpoint or entry point reaches the changed code within this depth.",
    );
    more(
        &mut md,
        r.endpoints.len() + r.entry_points.len(),
        rows.len(),
        "see the JSON answer",
    );

    render_reach(
        &mut md,
        &Reach {
            endpoints: &r.endpoints,
            entry_points: &r.entry_points,
            other_products: &r.other_products,
            topics: &r.topics,
            tables_written: &r.tables_written,
        },
    );

    md.h2("Tests to run");
    if r.tests.is_empty() {
        md.para("No indexed test reaches the change, and the diff changes no test: it is untested within this depth.");
    } else {
        md.para(&format!(
            "{} test method(s) in {} class(es) reach the change or are part of it (the JSON answer's `tests` lists them for a CI job):",
            r.test_methods,
            r.tests.len()
        ));
        let rows: Vec<Vec<String>> = r
            .tests
            .iter()
            .map(|t| {
                vec![
                    tick(&t.class),
                    t.product.clone(),
                    t.methods.iter().map(|m| cell(m)).collect::<Vec<_>>().join(", "),
                ]
            })
            .collect();
        md.table(&["test class", "product", "methods"], &rows, "");
    }

    md.h2("Recent incidents and bugs");
    issues_table(
        &mut md,
        &r.incidents,
        "No Jira incident or bug mentions the affected products.",
    );

    md.h2("Not mapped");
    if r.not_mapped.is_empty() {
        md.para("Every file of the diff was found in the graph.");
    } else {
        let rows: Vec<Vec<String>> = r
            .not_mapped
            .iter()
            .take(ROWS)
            .map(|f| {
                vec![
                    tick(&f.path),
                    f.status.to_string(),
                    f.not_mapped.clone().unwrap_or_default(),
                ]
            })
            .collect();
        md.table(&["file", "change", "why"], &rows, "");
        more(&mut md, r.not_mapped.len(), rows.len(), "see the JSON answer");
    }
    md.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_two_plain_revisions() {
        assert_eq!(
            parse_range("main..feature/x"),
            Some(("main".into(), "feature/x".into()))
        );
        assert_eq!(
            parse_range("a1b2c3...HEAD~2"),
            Some(("a1b2c3".into(), "HEAD~2".into()))
        );
        assert_eq!(parse_range("--output=/tmp/x..HEAD"), None);
        assert_eq!(parse_range("main"), None);
        assert_eq!(parse_range("a..b..c"), None);
        assert_eq!(parse_range("a;rm..b"), None);
    }

    #[test]
    fn hunks_give_old_and_new_lines() {
        let diff = "diff --git a/x.java b/x.java\nindex 1..2 100644\n--- a/x.java\n+++ b/x.java\n@@ -2,4 +2,5 @@ class X {\n   int a;\n-  int b;\n+  int c;\n+  int d;\n   int e;\n \n";
        let files = parse_diff(diff).expect("parses");
        assert_eq!(files.len(), 1);
        let f = &files[0];
        assert_eq!((f.old_path.as_deref(), f.status), (Some("x.java"), "modified"));
        assert_eq!(f.deleted, vec![3]);
        assert_eq!(f.added, vec![3, 4]);
        assert_eq!(f.inserted_after, vec![3, 3]);
        assert_eq!(f.deletion_anchors, vec![3]);
        // An insertion-only hunk names the line before it.
        let diff = "--- a/y.sql\n+++ b/y.sql\n@@ -5,0 +6,1 @@\n+ALTER TABLE t ADD c INT;\n";
        let files = parse_diff(diff).expect("parses");
        assert_eq!(files[0].inserted_after, vec![5]);
        assert_eq!(files[0].added, vec![6]);
    }

    #[test]
    fn binary_renamed_created_and_deleted_files_are_told_apart() {
        let diff = "diff --git a/bin.dat b/bin.dat\nnew file mode 100644\nindex 0000000..88768ef\nBinary files /dev/null and b/bin.dat differ\n\
diff --git a/g.txt b/h.txt\nsimilarity index 100%\nrename from g.txt\nrename to h.txt\n\
diff --git a/n.txt b/n.txt\nnew file mode 100644\nindex 0000000..1\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n\\ No newline at end of file\n\
diff --git a/o.txt b/o.txt\ndeleted file mode 100644\nindex 1..0000000\n--- a/o.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n";
        let files = parse_diff(diff).expect("parses");
        let got: Vec<(&str, bool, Option<&str>, Option<&str>)> = files
            .iter()
            .map(|f| (f.status, f.binary, f.old_path.as_deref(), f.new_path.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("added", true, None, Some("bin.dat")),
                ("renamed", false, Some("g.txt"), Some("h.txt")),
                ("added", false, None, Some("n.txt")),
                ("deleted", false, Some("o.txt"), None),
            ]
        );
        assert_eq!(files[2].created_text.as_deref(), Some("one\ntwo\n"));
        assert_eq!(files[3].deleted, vec![1]);
    }

    #[test]
    fn innermost_spans_win_and_ties_are_kept() {
        let spans = vec![(0, 1, 20), (1, 3, 8), (2, 3, 8), (3, 10, 12)];
        assert_eq!(innermost(&spans, |a, b| a <= 5 && 5 <= b), vec![1, 2]);
        assert_eq!(innermost(&spans, |a, b| a <= 9 && 9 <= b), vec![0]);
        assert!(innermost(&spans, |a, b| a <= 30 && 30 <= b).is_empty());
    }

    #[test]
    fn tails_drop_leading_folders() {
        assert_eq!(
            tails("orders/svc/a.java"),
            vec!["orders/svc/a.java", "svc/a.java"]
        );
        assert_eq!(tails("pom.xml"), vec!["pom.xml"]);
    }
}
