//! One product's index run: walk its sources, run the front-ends, write one generation.
//!
//! The run writes the product's skeleton first — product, repositories, deployable
//! services, files — so every later fact has a place to hang from, then streams the facts
//! of each file into the same `ProductWriter`, and commits once at the end. Anything that
//! goes wrong with one file is a warning on the run; only a store failure stops it, and
//! then nothing of the run becomes visible.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use semgraph_storage::{CommitSummary, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter, Store, Warning};

use crate::company::ProductSource;
use crate::error::IndexError;
use crate::walk::{self, SourceFile, SourceKind};

/// Receives progress of an index run (the command line draws bars with it).
pub trait Progress: Sync {
    /// The run found `files` files of `bytes` bytes in total to index.
    fn planned(&self, files: u64, bytes: u64);
    /// One file of `bytes` bytes is done.
    fn file_done(&self, bytes: u64);
}

/// A [`Progress`] that shows nothing.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn planned(&self, _files: u64, _bytes: u64) {}
    fn file_done(&self, _bytes: u64) {}
}

/// What one product's run did, for the summary a person reads.
#[derive(Clone, Debug)]
pub struct ProductReport {
    /// The product.
    pub product: String,
    /// Files indexed, per kind (`java`, `sql`, …).
    pub files: BTreeMap<String, u64>,
    /// Bytes read.
    pub bytes: u64,
    /// Nodes written per kind.
    pub nodes: BTreeMap<String, u64>,
    /// Indexer counters (`calls.resolved`, `calls.unresolved`, …).
    pub stats: BTreeMap<String, u64>,
    /// Every warning, with its file.
    pub warnings: Vec<Warning>,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// What the commit did.
    pub commit: CommitSummary,
}

/// A deployable module of a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Module {
    /// Folder relative to the repository root ("" for the root).
    dir: String,
    /// Maven artifactId, when there is one.
    artifact: Option<String>,
    /// Whether it builds something that runs (not a `pom` aggregator).
    deployable: bool,
}

/// The text between the first `<tag>` and `</tag>` outside a `<parent>` block.
fn pom_value(pom: &str, tag: &str) -> Option<String> {
    let without_parent = match (pom.find("<parent>"), pom.find("</parent>")) {
        (Some(a), Some(b)) if a < b => format!("{}{}", &pom[..a], &pom[b + "</parent>".len()..]),
        _ => pom.to_string(),
    };
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = without_parent.find(&open)? + open.len();
    let end = without_parent[start..].find(&close)? + start;
    Some(without_parent[start..end].trim().to_string())
}

fn module_of<'m>(modules: &'m [Module], rel: &str) -> Option<&'m Module> {
    modules
        .iter()
        .filter(|m| m.deployable && (m.dir.is_empty() || rel.starts_with(&format!("{}/", m.dir))))
        .max_by_key(|m| m.dir.len())
}

fn find_modules(files: &[SourceFile], warnings: &mut Vec<Warning>) -> Vec<Module> {
    let mut modules = Vec::new();
    for f in files.iter().filter(|f| f.kind == SourceKind::BuildFile) {
        let dir = f
            .rel
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        if f.rel.ends_with("pom.xml") {
            let Some(text) = walk::read_source(f, warnings) else {
                continue;
            };
            let packaging = pom_value(&text, "packaging").unwrap_or_else(|| "jar".into());
            modules.push(Module {
                dir,
                artifact: pom_value(&text, "artifactId"),
                deployable: packaging != "pom",
            });
        } else if f.rel.ends_with("build.gradle") || f.rel.ends_with("build.gradle.kts") {
            let has_sources = files.iter().any(|g| {
                g.rel.starts_with(&format!(
                    "{}src/main/",
                    if dir.is_empty() {
                        String::new()
                    } else {
                        format!("{dir}/")
                    }
                ))
            });
            modules.push(Module {
                dir,
                artifact: None,
                deployable: has_sources,
            });
        }
    }
    modules.sort_by(|a, b| a.dir.cmp(&b.dir));
    modules.dedup_by(|a, b| a.dir == b.dir);
    modules
}

/// Indexes one product into `store` as a new generation and commits it.
pub fn index_product(
    store: &Store,
    product: &ProductSource,
    progress: &dyn Progress,
) -> Result<ProductReport, IndexError> {
    let started = Instant::now();
    let mut w = store.begin(&product.name, &product.area)?;
    let mut report = ProductRun::new(&product.name);
    let product_node =
        w.add_node(NewNode::new(NodeKind::Product, &product.name).attr("area", &product.area))?;

    let walk_started = Instant::now();
    let mut repos = Vec::new();
    for root in &product.repos {
        let mut warnings = Vec::new();
        if !root.is_dir() {
            report.warnings.push(Warning {
                file: root.display().to_string(),
                line: None,
                message: "skipped: the repository path is not a folder".into(),
            });
            continue;
        }
        let files = walk::walk_repo(root, &mut warnings);
        report.warnings.extend(warnings);
        repos.push((root.clone(), files));
    }
    let (count, bytes) = repos
        .iter()
        .flat_map(|(_, f)| f)
        .fold((0u64, 0u64), |(n, b), f| (n + 1, b + f.size));
    progress.planned(count, bytes);
    w.record_timing("walk", walk_started.elapsed());

    for (root, files) in &repos {
        report.index_repo(&mut w, product_node, root, files, progress)?;
    }

    for warning in &report.warnings {
        w.warn(warning.clone());
    }
    for (name, value) in &report.stats {
        w.record_stat(name, *value);
    }
    let commit_started = Instant::now();
    w.record_timing("total-before-commit", started.elapsed());
    let commit = w.commit()?;
    tracing::debug!(product = %product.name, commit_ms = commit_started.elapsed().as_millis() as u64, "committed");
    Ok(ProductReport {
        product: product.name.clone(),
        files: report.files,
        bytes: report.bytes,
        nodes: report.nodes,
        stats: report.stats,
        warnings: report.warnings,
        elapsed: started.elapsed(),
        commit,
    })
}

/// The state of one run while it writes.
struct ProductRun {
    files: BTreeMap<String, u64>,
    bytes: u64,
    nodes: BTreeMap<String, u64>,
    stats: BTreeMap<String, u64>,
    warnings: Vec<Warning>,
}

impl ProductRun {
    fn new(_product: &str) -> Self {
        ProductRun {
            files: BTreeMap::new(),
            bytes: 0,
            nodes: BTreeMap::new(),
            stats: BTreeMap::new(),
            warnings: Vec::new(),
        }
    }

    fn add(&mut self, w: &mut ProductWriter, node: NewNode) -> Result<NodeId, IndexError> {
        if let Some(kind) = node.kind {
            *self.nodes.entry(kind.as_str().to_string()).or_default() += 1;
        }
        Ok(w.add_node(node)?)
    }

    fn index_repo(
        &mut self,
        w: &mut ProductWriter,
        product_node: NodeId,
        root: &Path,
        files: &[SourceFile],
        progress: &dyn Progress,
    ) -> Result<(), IndexError> {
        let repo_name = root
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("repo")
            .to_string();
        let repo = self.add(
            w,
            NewNode::new(NodeKind::Repo, &repo_name).attr("path", root.display().to_string()),
        )?;
        w.add_edge(product_node, EdgeKind::Contains, repo)?;

        let mut warnings = Vec::new();
        let mut modules = find_modules(files, &mut warnings);
        self.warnings.append(&mut warnings);
        if !modules.iter().any(|m| m.deployable) {
            // A repository without a build file is one service named after it.
            modules.push(Module {
                dir: String::new(),
                artifact: None,
                deployable: true,
            });
        }
        let mut services: BTreeMap<String, NodeId> = BTreeMap::new();
        for m in modules.iter().filter(|m| m.deployable) {
            let name = m
                .artifact
                .clone()
                .or_else(|| {
                    m.dir
                        .rsplit('/')
                        .next()
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| repo_name.clone());
            let mut node = NewNode::new(NodeKind::Service, &name)
                .attr("module", if m.dir.is_empty() { "." } else { &m.dir });
            if let Some(a) = &m.artifact {
                node = node.attr("artifact", a);
            }
            let id = self.add(w, node)?;
            w.add_edge(repo, EdgeKind::Contains, id)?;
            services.insert(m.dir.clone(), id);
        }

        for f in files {
            let kind = match f.kind {
                SourceKind::Java => "java",
                SourceKind::Sql => "sql",
                SourceKind::Config => "config",
                SourceKind::BuildFile => "build",
                SourceKind::Xml => "xml",
                SourceKind::Markdown => "markdown",
            };
            *self.files.entry(kind.to_string()).or_default() += 1;
            self.bytes += f.size;
            let parent = module_of(&modules, &f.rel)
                .and_then(|m| services.get(&m.dir).copied())
                .unwrap_or(repo);
            let file = self.add(
                w,
                NewNode::new(NodeKind::File, &f.rel)
                    .attr("repo", &repo_name)
                    .attr("language", kind)
                    .attr("bytes", f.size.to_string()),
            )?;
            w.add_edge(parent, EdgeKind::Contains, file)?;
            progress.file_done(f.size);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pom_values_skip_the_parent_block() {
        let pom = "<project><parent><artifactId>acme-parent</artifactId></parent>\
                   <artifactId>orders-service</artifactId><packaging>jar</packaging></project>";
        assert_eq!(pom_value(pom, "artifactId").as_deref(), Some("orders-service"));
        assert_eq!(pom_value(pom, "packaging").as_deref(), Some("jar"));
        assert_eq!(pom_value(pom, "modules"), None);
    }

    #[test]
    fn the_fixture_orders_repo_has_two_services_and_files_land_in_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = Store::open(dir.path()).expect("store");
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme/orders");
        let product = ProductSource {
            name: "orders".into(),
            area: "commerce".into(),
            repos: vec![repo],
            wiki: Vec::new(),
            jira: Vec::new(),
        };
        let report = index_product(&store, &product, &NoProgress).expect("indexes");
        assert!(
            report.files.get("java").copied().unwrap_or(0) >= 50,
            "{:?}",
            report.files
        );
        let snap = store.snapshot();
        let services = snap.product_nodes_of_kind("orders", NodeKind::Service);
        let ids: Vec<NodeId> = services.iter().map(NodeId).collect();
        let mut names: Vec<String> = snap
            .nodes(&ids)
            .expect("read")
            .into_iter()
            .flatten()
            .map(|n| n.name)
            .collect();
        names.sort();
        assert_eq!(names, vec!["orders-scheduler", "orders-service"]);
        // A scheduler source file hangs under the scheduler service.
        let file = snap
            .find_by_name(
                "orders-scheduler/src/main/java/com/acme/orders/scheduler/OrdersSchedulerApplication.java",
            )
            .expect("lookup");
        assert_eq!(file.len(), 1, "the scheduler's main class file is indexed");
        let parent: Vec<NodeId> = snap
            .adjacency()
            .neighbors(file[0], semgraph_storage::Direction::In, EdgeKind::Contains)
            .collect();
        let parent = snap.node(parent[0]).expect("read").expect("live");
        assert_eq!(parent.name, "orders-scheduler");
    }
}
