//! Wiki and Jira questions: search by words, pages and issues (content), and what mentions
//! a product, type, method, table or endpoint.

use roaring::RoaringBitmap;
use semgraph_storage::{ContentKind, Direction, EdgeKind, Node, NodeKind};
use serde::Serialize;

use super::NodeRef;
use crate::error::{nearest, QueryError};
use crate::graph::Ctx;
use crate::params::Args;
use crate::render::{document, tick, Md};
use crate::Document;

/// Search words as the term index stores them: lowercase words of two characters or more.
fn words(q: &str) -> Vec<String> {
    let mut out: Vec<String> = q
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(|w| w.trim_matches('_').to_lowercase())
        .filter(|w| w.chars().count() >= 2)
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Nodes of `kind` ranked by how many of the words of `q` they contain (all words first).
fn term_search(
    ctx: &Ctx<'_>,
    q: &str,
    kind: NodeKind,
    scope: Option<&str>,
) -> Result<Vec<(usize, u32)>, QueryError> {
    let pool = ctx.of_kind(kind, scope)?;
    let mut counts: std::collections::HashMap<u32, usize> = Default::default();
    for w in words(q) {
        let set: RoaringBitmap = ctx.snap.named_set_all(&format!("term:{w}"))? & &pool;
        for id in &set {
            *counts.entry(id).or_default() += 1;
        }
    }
    let mut ranked: Vec<(usize, u32)> = counts.into_iter().map(|(id, n)| (n, id)).collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok(ranked)
}

#[derive(Serialize)]
struct PageHit {
    page: NodeRef,
    title: String,
    matched_words: usize,
    headings: Option<String>,
}

pub(crate) fn wiki_search(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let q = args.text("q");
    let limit = args.int("limit") as usize;
    let pool = ctx.of_kind(NodeKind::WikiPage, args.get("scope"))?;
    let ranked = term_search(ctx, q, NodeKind::WikiPage, args.get("scope"))?;
    let total = ranked.len();
    let nodes = ctx.load(ranked.iter().take(limit).map(|r| r.1))?;
    let hits: Vec<PageHit> = nodes
        .iter()
        .zip(&ranked)
        .map(|(n, (c, _))| PageHit {
            page: NodeRef::of(ctx, n),
            title: n.name.clone(),
            matched_words: *c,
            headings: n.attr("headings").map(str::to_string),
        })
        .collect();
    let title = format!("Wiki search: {q}");
    let mut md = Md::new(&title);
    if pool.is_empty() {
        md.para("No wiki pages are indexed in this scope: the wiki domain is not indexed here.");
    } else {
        let n_words = words(q).len();
        let rows: Vec<Vec<String>> = hits
            .iter()
            .map(|h| {
                vec![
                    tick(h.page.fqn.as_deref().unwrap_or(&h.page.name)),
                    h.title.clone(),
                    h.page.product.clone(),
                    format!("{}/{n_words}", h.matched_words),
                    h.headings.clone().unwrap_or_default(),
                ]
            })
            .collect();
        md.table(
            &["id", "title", "product", "words", "headings"],
            &rows,
            &format!("No wiki page contains any of the words of `{q}`."),
        );
        if total > hits.len() {
            md.para(&format!(
                "{} of {total} pages shown; raise `limit` for more.",
                hits.len()
            ));
        }
        if !hits.is_empty() {
            md.para("Read a page with `wiki/page` (id=…).");
        }
    }
    document(&title, md.finish(), &hits)
}

fn resolve_page(ctx: &Ctx<'_>, id: &str) -> Result<Node, QueryError> {
    let mut found: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(id)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| n.kind == NodeKind::WikiPage)
        .collect();
    if found.is_empty() {
        let all = ctx.load(ctx.snap.nodes_of_kind(NodeKind::WikiPage).iter())?;
        found = all
            .iter()
            .filter(|n| n.file.as_deref() == Some(id) || n.name.eq_ignore_ascii_case(id))
            .cloned()
            .collect();
        if found.is_empty() {
            let names: Vec<&str> = all.iter().filter_map(|n| n.fqn.as_deref()).collect();
            return Err(QueryError::not_found(
                "wiki page",
                id,
                &nearest(id, names.into_iter(), 5),
            ));
        }
    }
    Ok(found.remove(0))
}

#[derive(Serialize)]
struct PageText {
    page: NodeRef,
    title: String,
    text: String,
    mentions: Vec<String>,
}

fn mention_names(ctx: &Ctx<'_>, id: semgraph_storage::NodeId) -> Result<Vec<String>, QueryError> {
    Ok(ctx
        .neighbor_nodes(id, Direction::Out, EdgeKind::Mentions)?
        .iter()
        .map(|n| format!("{}:{}", n.kind.as_str(), n.display_name()))
        .collect())
}

pub(crate) fn wiki_page(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let page = resolve_page(ctx, args.text("id"))?;
    ctx.check_content(&page, "wiki page", &["wiki/search", "wiki/mentions"])?;
    let text = ctx.snap.content(page.id, ContentKind::Text)?.unwrap_or_default();
    let r = PageText {
        page: NodeRef::of(ctx, &page),
        title: page.name.clone(),
        mentions: mention_names(ctx, page.id)?,
        text,
    };
    let title = format!("Wiki page: {}", r.title);
    let mut md = Md::new(&title);
    md.para(&format!(
        "`{}` — product {}. Mentions: {}.",
        r.page.fqn.as_deref().unwrap_or(&r.page.name),
        r.page.product,
        if r.mentions.is_empty() {
            "none resolved".into()
        } else {
            r.mentions.iter().map(|m| tick(m)).collect::<Vec<_>>().join(", ")
        }
    ));
    // The page's own headings are demoted so they never compete with this document's.
    let body: String = r
        .text
        .lines()
        .map(|l| {
            if l.starts_with('#') {
                format!("##{l}")
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    md.h2("Text").para(&body);
    document(&title, md.finish(), &r)
}

pub(crate) fn mentions(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let target = args.text("target");
    let targets: Vec<Node> = if target.contains(' ') && target.contains('/') {
        ctx.resolve_endpoint(target, None)?
    } else {
        ctx.resolve(
            target,
            &[
                NodeKind::Product,
                NodeKind::Service,
                NodeKind::Type,
                NodeKind::Method,
                NodeKind::Table,
                NodeKind::View,
                NodeKind::Routine,
            ],
        )?
    };
    if targets.is_empty() {
        let near = ctx.nearest_names(
            target,
            &[
                NodeKind::Product,
                NodeKind::Type,
                NodeKind::Method,
                NodeKind::Table,
            ],
        )?;
        return Err(QueryError::not_found(
            "product, type, method, table or endpoint",
            target,
            &near,
        ));
    }
    let mut rows: Vec<(String, NodeRef, String)> = Vec::new();
    for t in &targets {
        for n in ctx.neighbor_nodes(t.id, Direction::In, EdgeKind::Mentions)? {
            rows.push((
                format!("{}:{}", t.kind.as_str(), t.display_name()),
                NodeRef::of(ctx, &n),
                n.name.clone(),
            ));
        }
    }
    rows.sort_by(|a, b| (&a.1.kind, a.1.display()).cmp(&(&b.1.kind, b.1.display())));
    let title = format!("Mentions of {target}");
    let mut md = Md::new(&title);
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|(t, n, name)| {
            vec![
                n.kind.clone(),
                tick(n.display()),
                name.clone(),
                n.product.clone(),
                tick(t),
            ]
        })
        .collect();
    md.table(
        &["kind", "id", "title / key", "product", "mentions"],
        &table,
        &format!("No indexed wiki page or Jira issue mentions `{target}`."),
    );
    document(
        &title,
        md.finish(),
        &rows.iter().map(|r| &r.1).collect::<Vec<_>>(),
    )
}

#[derive(Serialize)]
pub(crate) struct IssueRow {
    pub(crate) key: String,
    pub(crate) product: String,
    pub(crate) issue_type: String,
    pub(crate) priority: String,
    pub(crate) status: String,
    pub(crate) created: String,
    pub(crate) resolved: String,
    /// The summary, when the caller may read the product's content.
    pub(crate) summary: Option<String>,
}

pub(crate) fn issue_row(ctx: &Ctx<'_>, n: &Node) -> Result<IssueRow, QueryError> {
    let summary = if ctx.may_read(n) {
        ctx.snap
            .content(n.id, ContentKind::Text)?
            .map(|t| t.lines().next().unwrap_or("").to_string())
    } else {
        None
    };
    Ok(IssueRow {
        key: n.name.clone(),
        product: ctx.product_name(n.product),
        issue_type: n.attr("type").unwrap_or("").to_string(),
        priority: n.attr("priority").unwrap_or("").to_string(),
        status: n.attr("status").unwrap_or("").to_string(),
        created: n.attr("created").unwrap_or("").chars().take(10).collect(),
        resolved: n.attr("resolved").unwrap_or("").chars().take(10).collect(),
        summary,
    })
}

pub(crate) fn issues_table(md: &mut Md, rows: &[IssueRow], empty: &str) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                tick(&r.key),
                r.issue_type.clone(),
                r.priority.clone(),
                r.status.clone(),
                r.created.clone(),
                r.product.clone(),
                r.summary
                    .clone()
                    .unwrap_or_else(|| "(withheld: outside your area)".into()),
            ]
        })
        .collect();
    md.table(
        &[
            "key", "type", "priority", "status", "created", "product", "summary",
        ],
        &table,
        empty,
    );
}

pub(crate) fn jira_search(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let scope = args.get("scope");
    let limit = args.int("limit") as usize;
    let pool = ctx.of_kind(NodeKind::JiraIssue, scope)?;
    let candidates: Vec<u32> = match args.get("q") {
        Some(q) => term_search(ctx, q, NodeKind::JiraIssue, scope)?
            .into_iter()
            .map(|r| r.1)
            .collect(),
        None => pool.iter().collect(),
    };
    let field = |n: &Node, k: &str, want: Option<&str>| {
        want.is_none_or(|w| n.attr(k).is_some_and(|v| v.eq_ignore_ascii_case(w)))
    };
    let nodes: Vec<Node> = ctx
        .load(candidates)?
        .into_iter()
        .filter(|n| {
            field(n, "type", args.get("type"))
                && field(n, "priority", args.get("priority"))
                && field(n, "status", args.get("status"))
        })
        .collect();
    let mut rows = nodes
        .iter()
        .map(|n| issue_row(ctx, n))
        .collect::<Result<Vec<_>, _>>()?;
    if args.get("q").is_none() {
        rows.sort_by(|a, b| b.created.cmp(&a.created).then(a.key.cmp(&b.key)));
    }
    let total = rows.len();
    rows.truncate(limit);
    let title = "Jira search".to_string();
    let mut md = Md::new(&title);
    if pool.is_empty() {
        md.para("No Jira issues are indexed in this scope: the jira domain is not indexed here.");
    } else {
        issues_table(&mut md, &rows, "No issue matches these filters.");
        if total > rows.len() {
            md.para(&format!(
                "{} of {total} shown; narrow the filters or raise `limit`.",
                rows.len()
            ));
        }
    }
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
struct IssueText {
    issue: IssueRow,
    components: Option<String>,
    labels: Option<String>,
    text: String,
    mentions: Vec<String>,
}

pub(crate) fn jira_issue(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let key = args.text("key");
    let found: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(key)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| n.kind == NodeKind::JiraIssue)
        .collect();
    let Some(n) = found.first() else {
        let all = ctx.load(ctx.snap.nodes_of_kind(NodeKind::JiraIssue).iter())?;
        let names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
        return Err(QueryError::not_found(
            "Jira issue",
            key,
            &nearest(key, names.into_iter(), 5),
        ));
    };
    ctx.check_content(n, "Jira issue", &["jira/search", "wiki/mentions"])?;
    let r = IssueText {
        issue: issue_row(ctx, n)?,
        components: n.attr("components").map(str::to_string),
        labels: n.attr("labels").map(str::to_string),
        text: ctx.snap.content(n.id, ContentKind::Text)?.unwrap_or_default(),
        mentions: mention_names(ctx, n.id)?,
    };
    let title = format!("{key}: {}", r.issue.summary.clone().unwrap_or_default());
    let mut md = Md::new(&title);
    md.table(
        &["fact", "value"],
        &[
            vec!["type".into(), r.issue.issue_type.clone()],
            vec!["priority".into(), r.issue.priority.clone()],
            vec!["status".into(), r.issue.status.clone()],
            vec!["created".into(), r.issue.created.clone()],
            vec!["resolved".into(), r.issue.resolved.clone()],
            vec!["product".into(), r.issue.product.clone()],
            vec!["components".into(), r.components.clone().unwrap_or_default()],
            vec!["labels".into(), r.labels.clone().unwrap_or_default()],
            vec![
                "mentions".into(),
                r.mentions.iter().map(|m| tick(m)).collect::<Vec<_>>().join(", "),
            ],
        ],
        "",
    );
    let body = r.text.split_once("\n\n").map(|(_, d)| d).unwrap_or("");
    md.h2("Description").para(if body.trim().is_empty() {
        "(no description)"
    } else {
        body
    });
    document(&title, md.finish(), &r)
}
