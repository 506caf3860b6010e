//! A product's layout into the graph: the product, its repositories, their deployable
//! services and their files, so every later fact has a place to hang from.

use std::path::Path;

use semgraph_storage::{keys, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter};

use super::Run;
use crate::error::IndexError;
use crate::walk::{SourceFile, SourceKind};

/// Writes the Product node, anchored by its name.
pub(crate) fn write_product(
    run: &mut Run,
    w: &mut ProductWriter,
    name: &str,
    area: &str,
) -> Result<NodeId, IndexError> {
    let id = run.add(
        w,
        NewNode::new(NodeKind::Product, name).fqn(name).attr("area", area),
    )?;
    w.add_anchor(id, keys::product(name))?;
    Ok(id)
}

/// Writes a Repo node under the product, with the commit its sources came from when the
/// folder is a git checkout.
pub(crate) fn write_repo(
    run: &mut Run,
    w: &mut ProductWriter,
    product: NodeId,
    name: &str,
    root: &Path,
    git: Option<&crate::git::GitState>,
) -> Result<NodeId, IndexError> {
    let mut node = NewNode::new(NodeKind::Repo, name).attr("path", root.display().to_string());
    if let Some(git) = git {
        node = node
            .attr("commit", git.commit.clone())
            .attr("dirty", if git.dirty { "yes" } else { "no" });
    }
    let id = run.add(w, node)?;
    w.add_edge(product, EdgeKind::Contains, id)?;
    Ok(id)
}

/// A deployable module of a repository, as the graph shows it.
pub(crate) struct Service<'a> {
    pub(crate) name: &'a str,
    /// Its folder in the repository (`""` for the root).
    pub(crate) module: &'a str,
    pub(crate) repo: &'a str,
    pub(crate) artifact: Option<&'a str>,
    /// Whether `name` is its `spring.application.name`.
    pub(crate) application_name: bool,
    /// Ports it listens on (`server.port`, ports a compose file publishes).
    pub(crate) ports: &'a [u16],
    /// Other host names its deployments give it (compose services, Kubernetes Services).
    pub(crate) hosts: &'a [String],
}

/// Writes a Service node under its repository.
pub(crate) fn write_service(
    run: &mut Run,
    w: &mut ProductWriter,
    repo: NodeId,
    s: &Service<'_>,
) -> Result<NodeId, IndexError> {
    let mut node = NewNode::new(NodeKind::Service, s.name)
        .fqn(s.name)
        .attr("module", if s.module.is_empty() { "." } else { s.module })
        .attr("repo", s.repo);
    if let Some(a) = s.artifact {
        node = node.attr("artifact", a);
    }
    if s.application_name {
        node = node.attr("application-name", s.name);
    }
    if !s.ports.is_empty() {
        let ports: Vec<String> = s.ports.iter().map(u16::to_string).collect();
        node = node.attr("ports", ports.join(","));
    }
    if !s.hosts.is_empty() {
        node = node.attr("hosts", s.hosts.join(","));
    }
    let id = run.add(w, node)?;
    w.add_edge(repo, EdgeKind::Contains, id)?;
    for &port in s.ports {
        w.add_anchor(id, keys::service_port(port))?;
    }
    run.services.push(s.name.to_string());
    Ok(id)
}

/// The language a file kind is shown as.
fn language(kind: SourceKind) -> &'static str {
    match kind {
        SourceKind::Java => "java",
        SourceKind::Kotlin => "kotlin",
        SourceKind::Sql => "sql",
        SourceKind::Config => "config",
        SourceKind::Yaml => "yaml",
        SourceKind::Deployment => "deployment",
        SourceKind::BuildFile => "build",
        SourceKind::Xml => "xml",
        SourceKind::Markdown => "markdown",
        SourceKind::GraphQl => "graphql",
    }
}

/// Writes a File node under `parent` (its service, else its repository).
pub(crate) fn write_file(
    run: &mut Run,
    w: &mut ProductWriter,
    parent: NodeId,
    repo: &str,
    f: &SourceFile,
) -> Result<NodeId, IndexError> {
    let kind = language(f.kind);
    run.bump_file(kind, f.size);
    let id = run.add(
        w,
        NewNode::new(NodeKind::File, &f.rel)
            .fqn(format!("{repo}/{}", f.rel))
            .attr("repo", repo)
            .attr("language", kind)
            .attr("bytes", f.size.to_string()),
    )?;
    w.add_edge(parent, EdgeKind::Contains, id)?;
    Ok(id)
}
