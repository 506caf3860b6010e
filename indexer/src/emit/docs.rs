//! Wiki pages and Jira issues into the graph: one node each, text as content, a term
//! index for search, and Mentions of whatever they name that the graph knows.
//!
//! A mention is a link reference (see `semgraph_storage::keys`): a page of product A naming
//! `com.acme.b.Service` or `POST /api/payments` finds product B's node when B is indexed,
//! and only when exactly one node answers — an ambiguous name mentions nothing rather than
//! the wrong thing.

use std::collections::BTreeSet;

use semgraph_storage::{keys, ContentKind, EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter};

use super::Run;
use crate::error::IndexError;
use crate::lang::jira::{self, JiraIssue};
use crate::lang::wiki::{MentionCandidate, WikiPage};
use crate::walk::SourceFile;

/// Keys a mention candidate may answer to, most specific first.
fn mention_keys(candidate: &MentionCandidate, products: &[String]) -> Vec<String> {
    match candidate {
        MentionCandidate::Endpoint { verb, path } => vec![keys::http_route(verb, path)],
        MentionCandidate::QualifiedName(name) => {
            let last = name.rsplit('.').next().unwrap_or(name);
            if last.chars().next().is_some_and(char::is_uppercase) {
                vec![keys::java_type(name)]
            } else {
                let mut parts = name.rsplitn(3, '.');
                let method = parts.next().unwrap_or(name);
                let owner = parts.next().unwrap_or("");
                vec![
                    keys::java_method(name),
                    keys::java_method_simple_of(owner, method),
                ]
            }
        }
        MentionCandidate::Identifier(word) => {
            let mut out = Vec::new();
            if products.iter().any(|p| p.eq_ignore_ascii_case(word)) {
                out.push(keys::product(word));
            }
            if word.chars().next().is_some_and(char::is_uppercase) {
                out.push(keys::java_type_simple(word));
            } else {
                out.push(keys::table(word));
            }
            out
        }
        MentionCandidate::Prefixed { kind, value } => match kind.as_str() {
            "product" | "service" => vec![keys::product(value)],
            "type" | "class" => vec![if value.contains('.') {
                keys::java_type(value)
            } else {
                keys::java_type_simple(value)
            }],
            "method" => {
                let mut parts = value.rsplitn(3, '.');
                let method = parts.next().unwrap_or(value);
                let owner = parts.next().unwrap_or("");
                vec![
                    keys::java_method(value),
                    keys::java_method_simple_of(owner, method),
                ]
            }
            "table" | "view" => vec![keys::table(value)],
            "endpoint" => {
                let (verb, path) = value.split_once(' ').unwrap_or(("GET", value));
                vec![keys::http_route(verb, path)]
            }
            "topic" => vec![keys::topic("kafka", value)],
            _ => Vec::new(),
        },
    }
}

fn write_mentions(
    w: &mut ProductWriter,
    node: NodeId,
    candidates: &[MentionCandidate],
    products: &[String],
) -> Result<u64, IndexError> {
    let mut seen = BTreeSet::new();
    for c in candidates {
        for key in mention_keys(c, products) {
            if seen.insert(key.clone()) {
                w.add_link(node, EdgeKind::Mentions, &key, LinkPolicy::Unique)?;
            }
        }
    }
    Ok(seen.len() as u64)
}

fn write_terms(w: &mut ProductWriter, node: NodeId, text: &str) -> Result<(), IndexError> {
    let terms: BTreeSet<String> = jira::terms(text).into_iter().collect();
    for t in terms {
        w.add_to_set(&format!("term:{t}"), node)?;
    }
    Ok(())
}

/// Writes one wiki page of folder `folder_name` under the product.
pub(crate) fn write_wiki_page(
    run: &mut Run,
    w: &mut ProductWriter,
    product_node: NodeId,
    folder_name: &str,
    f: &SourceFile,
    page: &WikiPage,
    lines: u32,
) -> Result<(), IndexError> {
    let products = run.product_names.clone();
    let mut node = NewNode::new(NodeKind::WikiPage, &page.title)
        .fqn(format!("{folder_name}/{}", f.rel))
        .at(&f.rel, 1, lines.max(1));
    if !page.tags.is_empty() {
        node = node.attr("tags", page.tags.join(", "));
    }
    if !page.headings.is_empty() {
        let headings: Vec<&str> = page.headings.iter().map(|h| h.text.as_str()).collect();
        node = node.attr("headings", headings.join(" | "));
    }
    if !page.links.is_empty() {
        node = node.attr("links", page.links.join(", "));
    }
    let id = run.add(w, node)?;
    w.add_edge(product_node, EdgeKind::Contains, id)?;
    w.set_content(id, ContentKind::Text, &page.text)?;
    write_terms(w, id, &format!("{}\n{}", page.title, page.text))?;
    let mut mentions = write_mentions(w, id, &page.mentions, &products)?;
    // A page names a product by a word of its title, tags or text.
    let words = format!("{} {} {}", page.title, page.tags.join(" "), page.text).to_lowercase();
    for p in &products {
        let lower = p.to_lowercase();
        if words
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| w == lower)
        {
            w.add_link(id, EdgeKind::Mentions, &keys::product(p), LinkPolicy::Unique)?;
            mentions += 1;
        }
    }
    run.stat("wiki.pages", 1);
    run.stat("wiki.mention-candidates", mentions);
    run.bump_file("markdown", f.size);
    Ok(())
}

/// Writes one Jira issue whose home is this product; `about` are the products it is
/// about (its home first).
pub(crate) fn write_jira_issue(
    run: &mut Run,
    w: &mut ProductWriter,
    product: &str,
    product_node: NodeId,
    issue: &JiraIssue,
    about: &[String],
) -> Result<(), IndexError> {
    let products = run.product_names.clone();
    let mut node = NewNode::new(NodeKind::JiraIssue, &issue.key)
        .fqn(&issue.key)
        .attr("type", &issue.issue_type)
        .attr("priority", &issue.priority)
        .attr("status", &issue.status);
    for (k, v) in [
        ("resolution", &issue.resolution),
        ("created", &issue.created),
        ("resolved", &issue.resolved),
        ("updated", &issue.updated),
    ] {
        if let Some(v) = v {
            node = node.attr(k, v);
        }
    }
    if !issue.components.is_empty() {
        node = node.attr("components", issue.components.join(", "));
    }
    if !issue.labels.is_empty() {
        node = node.attr("labels", issue.labels.join(", "));
    }
    let id = run.add(w, node)?;
    w.add_edge(product_node, EdgeKind::Contains, id)?;
    w.add_edge(id, EdgeKind::Mentions, product_node)?;
    for other in about.iter().filter(|p| **p != product) {
        w.add_link(id, EdgeKind::Mentions, &keys::product(other), LinkPolicy::Unique)?;
    }
    let body = format!("{}\n\n{}", issue.summary, issue.description);
    w.set_content(id, ContentKind::Text, &body)?;
    write_terms(w, id, &body)?;
    write_mentions(w, id, &issue.mentions, &products)?;
    run.stat("jira.issues", 1);
    Ok(())
}
