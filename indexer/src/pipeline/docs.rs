//! Wiki pages and Jira issues into the graph: one node each, text as content, a term
//! index for search, and Mentions of whatever they name that the graph knows.
//!
//! A mention is a link reference (see `keys`): a page of product A naming
//! `com.acme.b.Service` or `POST /api/payments` finds product B's node when B is indexed,
//! and only when exactly one node answers — an ambiguous name mentions nothing rather than
//! the wrong thing.

use std::collections::BTreeSet;
use std::path::Path;

use semgraph_storage::{ContentKind, EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter};

use super::ProductRun;
use crate::company::{Company, ProductSource};
use crate::error::IndexError;
use crate::jira::{self, JiraIssue};
use crate::keys;
use crate::walk::{self, SourceKind};
use crate::wiki::{self, MentionCandidate};

/// Jira exports larger than this are skipped with a warning (a search-API page is a few
/// MB; the limit only stops a wrong path from reading a disk image into memory).
const MAX_JIRA_EXPORT_BYTES: u64 = 256 << 20;

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
                    keys::java_method_simple(&format!("{owner}.{method}")),
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
                    keys::java_method_simple(&format!("{owner}.{method}")),
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

/// Indexes the markdown pages of one wiki folder.
pub(super) fn index_wiki(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    product_node: NodeId,
    folder: &Path,
) -> Result<(), IndexError> {
    if !folder.is_dir() {
        run.warn(
            &folder.display().to_string(),
            None,
            "skipped: the wiki path is not a folder",
        );
        return Ok(());
    }
    let folder_name = folder
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("wiki")
        .to_string();
    let files = walk::walk_repo(folder, &mut run.warnings);
    let products = run.product_names.clone();
    for f in files.iter().filter(|f| f.kind == SourceKind::Markdown) {
        let Some(text) = walk::read_source(f, &mut run.warnings) else {
            continue;
        };
        let page = wiki::parse_wiki_page(&f.rel, &text);
        for warning in &page.warnings {
            run.warn(&f.rel, Some(warning.line), warning.message.clone());
        }
        let lines = text.lines().count() as u32;
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
    }
    Ok(())
}

/// The products an issue is about, its home product first: the products its components
/// and labels name (in the issue's order), else the products its text names.
fn issue_products(
    issue: &JiraIssue,
    company: &Company,
    services_of: &dyn Fn(&str) -> Vec<String>,
) -> Vec<String> {
    let mut about: Vec<String> = Vec::new();
    for tag in issue.components.iter().chain(&issue.labels) {
        for p in &company.products {
            let named = p.name.eq_ignore_ascii_case(tag)
                || services_of(&p.name).iter().any(|s| s.eq_ignore_ascii_case(tag));
            if named && !about.contains(&p.name) {
                about.push(p.name.clone());
            }
        }
    }
    if !about.is_empty() {
        return about;
    }
    let text = format!("{} {}", issue.summary, issue.description).to_lowercase();
    let words: Vec<&str> = text.split(|c: char| !c.is_alphanumeric() && c != '-').collect();
    for word in words {
        if let Some(p) = company.products.iter().find(|p| p.name.to_lowercase() == word) {
            if !about.contains(&p.name) {
                about.push(p.name.clone());
            }
        }
    }
    about
}

/// Indexes the Jira issues of this product's exports that are about this product.
///
/// Several products may list one company-wide export, and every issue is indexed once: in
/// its home product (the first its components, labels or text name) with Mentions of the
/// others; the home is the first named product that lists the export, else the first product
/// (in config order) that lists it.
pub(super) fn index_jira(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    company: &Company,
    product: &ProductSource,
    product_node: NodeId,
) -> Result<(), IndexError> {
    let products = run.product_names.clone();
    let own_services = run.services.clone();
    for path in &product.jira {
        let display = path.display().to_string();
        // A config path may name anything: a folder, a named pipe (which would block the
        // run), a file of any size. Only a regular file under the limit is read.
        let text = match walk::read_bounded(path, MAX_JIRA_EXPORT_BYTES).and_then(|bytes| {
            String::from_utf8(bytes).map_err(|_| "not valid UTF-8 (a Jira export is JSON)".to_string())
        }) {
            Ok(t) => t,
            Err(reason) => {
                run.warn(
                    &display,
                    None,
                    format!("skipped: cannot read the Jira export: {reason}"),
                );
                continue;
            }
        };
        let export = jira::parse_jira_export(&display, &text);
        for warning in &export.warnings {
            let what = warning.issue.map(|i| format!("issue #{i}: ")).unwrap_or_default();
            run.warn(&display, None, format!("{what}{}", warning.message));
        }
        let listers: Vec<String> = company
            .products
            .iter()
            .filter(|p| p.jira.iter().any(|j| j == path))
            .map(|p| p.name.clone())
            .collect();
        let first_lister = listers.first().cloned();
        let services_of = |name: &str| {
            if name == product.name {
                own_services.clone()
            } else {
                Vec::new()
            }
        };
        for issue in &export.issues {
            let about = issue_products(issue, company, &services_of);
            // The home is the first product the issue names that lists this export.
            let home = about
                .iter()
                .find(|p| listers.contains(p))
                .or(first_lister.as_ref());
            let mine = home == Some(&product.name);
            if !mine || issue.key.is_empty() {
                continue;
            }
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
            for other in about.iter().filter(|p| **p != product.name) {
                w.add_link(id, EdgeKind::Mentions, &keys::product(other), LinkPolicy::Unique)?;
            }
            let body = format!("{}\n\n{}", issue.summary, issue.description);
            w.set_content(id, ContentKind::Text, &body)?;
            write_terms(w, id, &body)?;
            write_mentions(w, id, &issue.mentions, &products)?;
            run.stat("jira.issues", 1);
        }
    }
    Ok(())
}
