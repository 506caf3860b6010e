//! One product's index run: walk its sources, run the front-ends, write one generation.
//!
//! The run writes the product's skeleton first — product, repositories, deployable
//! services, files — so every later fact has a place to hang from, then streams the facts
//! of each file into the same `ProductWriter`, and commits once at the end. Anything that
//! goes wrong with one file is a warning on the run; only a store failure stops it, and
//! then nothing of the run becomes visible.

mod boundaries;
mod code;
mod config;
mod config_usage;
mod data_access;
mod docs;
mod endpoints;
mod entry_points;
mod http_clients;
mod schema;
mod spec_endpoints;
mod streams;
mod values;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use semgraph_storage::{CommitSummary, EdgeKind, NewNode, NodeId, NodeKind, ProductWriter, Store, Warning};

use crate::company::{Company, ProductSource};
use crate::error::IndexError;
use crate::keys;
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
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
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
            let has_sources = files
                .iter()
                .any(|g| g.rel.starts_with(&format!("{prefix}src/main/")));
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

/// Indexes one product of `company` into `store` as a new generation and commits it.
pub fn index_product(
    store: &Store,
    company: &Company,
    product: &ProductSource,
    progress: &dyn Progress,
) -> Result<ProductReport, IndexError> {
    let started = Instant::now();
    let mut w = store.begin(&product.name, &product.area)?;
    let mut run = ProductRun {
        product_names: company.products.iter().map(|p| p.name.clone()).collect(),
        ..ProductRun::default()
    };
    let product_node = run.add(
        &mut w,
        NewNode::new(NodeKind::Product, &product.name)
            .fqn(&product.name)
            .attr("area", &product.area),
    )?;
    w.add_anchor(product_node, &keys::product(&product.name))?;

    let walk_started = Instant::now();
    let mut repos = Vec::new();
    for root in &product.repos {
        if !root.is_dir() {
            run.warnings.push(Warning {
                file: root.display().to_string(),
                line: None,
                message: "skipped: the repository path is not a folder".into(),
            });
            continue;
        }
        let files = walk::walk_repo(root, &mut run.warnings);
        repos.push((root.clone(), files));
    }
    let (count, bytes) = repos
        .iter()
        .flat_map(|(_, f)| f)
        .fold((0u64, 0u64), |(n, b), f| (n + 1, b + f.size));
    progress.planned(count, bytes);
    w.record_timing("walk", walk_started.elapsed());

    let repo_started = Instant::now();
    for (root, files) in &repos {
        run.index_repo(&mut w, product_node, root, files, progress)?;
    }
    w.record_timing("code", repo_started.elapsed());

    let docs_started = Instant::now();
    for folder in &product.wiki {
        docs::index_wiki(&mut run, &mut w, product_node, folder)?;
    }
    docs::index_jira(&mut run, &mut w, company, product, product_node)?;
    w.record_timing("docs", docs_started.elapsed());

    for warning in &run.warnings {
        w.warn(warning.clone());
    }
    for (name, value) in &run.stats {
        w.record_stat(name, *value);
    }
    let commit = w.commit()?;
    Ok(ProductReport {
        product: product.name.clone(),
        files: run.files,
        bytes: run.bytes,
        nodes: run.nodes,
        stats: run.stats,
        warnings: run.warnings,
        elapsed: started.elapsed(),
        commit,
    })
}

/// The state of one run while it writes.
#[derive(Default)]
struct ProductRun {
    files: BTreeMap<String, u64>,
    bytes: u64,
    nodes: BTreeMap<String, u64>,
    stats: BTreeMap<String, u64>,
    warnings: Vec<Warning>,
    /// Service names of this product (for attributing tickets).
    services: Vec<String>,
    /// Every product of the company (mentions of product names).
    product_names: Vec<String>,
    /// The tables this product's schemas define, by normalised name.
    tables: BTreeMap<String, NodeId>,
}

impl ProductRun {
    fn add(&mut self, w: &mut ProductWriter, node: NewNode) -> Result<NodeId, IndexError> {
        if let Some(kind) = node.kind {
            *self.nodes.entry(kind.as_str().to_string()).or_default() += 1;
        }
        Ok(w.add_node(node)?)
    }

    fn bump_file(&mut self, kind: &str, bytes: u64) {
        *self.files.entry(kind.to_string()).or_default() += 1;
        self.bytes += bytes;
    }

    fn stat(&mut self, name: &str, value: u64) {
        *self.stats.entry(name.to_string()).or_default() += value;
    }

    fn warn(&mut self, file: &str, line: Option<u32>, message: impl Into<String>) {
        self.warnings.push(Warning {
            file: file.to_string(),
            line: line.filter(|&l| l > 0),
            message: message.into(),
        });
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
        let mut repo_node = NewNode::new(NodeKind::Repo, &repo_name).attr("path", root.display().to_string());
        if let Some(git) = crate::git::state(root) {
            repo_node = repo_node
                .attr("commit", git.commit)
                .attr("dirty", if git.dirty { "yes" } else { "no" });
        }
        let repo = self.add(w, repo_node)?;
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

        // Config first: a module's `spring.application.name` names its service.
        let configs = config::read_configs(self, files);
        let mut services: BTreeMap<String, (NodeId, String)> = BTreeMap::new();
        for m in modules.iter().filter(|m| m.deployable) {
            let in_module: Vec<&config::ParsedConfig> = configs
                .iter()
                .filter(|c| module_of(&modules, &c.file.rel).map(|o| &o.dir) == Some(&m.dir))
                .collect();
            let app_name = config::application_name(&in_module);
            let name = app_name
                .clone()
                .or_else(|| m.artifact.clone())
                .or_else(|| {
                    m.dir
                        .rsplit('/')
                        .next()
                        .filter(|s| !s.is_empty())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| repo_name.clone());
            let mut node = NewNode::new(NodeKind::Service, &name)
                .fqn(&name)
                .attr("module", if m.dir.is_empty() { "." } else { &m.dir })
                .attr("repo", &repo_name);
            if let Some(a) = &m.artifact {
                node = node.attr("artifact", a);
            }
            if app_name.is_some() {
                node = node.attr("application-name", &name);
            }
            let id = self.add(w, node)?;
            w.add_edge(repo, EdgeKind::Contains, id)?;
            services.insert(m.dir.clone(), (id, name.clone()));
            self.services.push(name);
        }

        let mut file_nodes: BTreeMap<String, NodeId> = BTreeMap::new();
        for f in files {
            let kind = match f.kind {
                SourceKind::Java => "java",
                SourceKind::Sql => "sql",
                SourceKind::Config => "config",
                SourceKind::Yaml => "yaml",
                SourceKind::BuildFile => "build",
                SourceKind::Xml => "xml",
                SourceKind::Markdown => "markdown",
            };
            self.bump_file(kind, f.size);
            let parent = module_of(&modules, &f.rel)
                .and_then(|m| services.get(&m.dir).map(|(id, _)| *id))
                .unwrap_or(repo);
            let file = self.add(
                w,
                NewNode::new(NodeKind::File, &f.rel)
                    .fqn(format!("{repo_name}/{}", f.rel))
                    .attr("repo", &repo_name)
                    .attr("language", kind)
                    .attr("bytes", f.size.to_string()),
            )?;
            w.add_edge(parent, EdgeKind::Contains, file)?;
            file_nodes.insert(f.rel.clone(), file);
        }

        let tables = schema::index_schema(self, w, files, &file_nodes)?;
        self.tables.extend(tables);
        let service_of = |rel: &str| module_of(&modules, rel).and_then(|m| services.get(&m.dir).cloned());
        let env: Vec<&config::ParsedConfig> = configs
            .iter()
            .filter(|c| c.parsed.kind == crate::config_files::ConfigKind::Env)
            .collect();
        // Each module's keys indexed once, for every placeholder of the repository.
        let mut module_configs: BTreeMap<Option<String>, Vec<&config::ParsedConfig>> = BTreeMap::new();
        for c in &configs {
            let module = module_of(&modules, &c.file.rel).map(|m| m.dir.clone());
            module_configs.entry(module).or_default().push(c);
        }
        let scopes: BTreeMap<Option<String>, config::ConfigScope<'_>> = module_configs
            .iter()
            .map(|(module, scope)| (module.clone(), config::ConfigScope::new(scope, &env)))
            .collect();
        let env_only = config::ConfigScope::new(&[], &env);
        let scope_of = |rel: &str| {
            let module = module_of(&modules, rel).map(|m| m.dir.clone());
            scopes.get(&module).unwrap_or(&env_only)
        };
        let resolve = |rel: &str, value: &str| -> String {
            if !value.contains("${") {
                return value.to_string();
            }
            scope_of(rel).resolve(value)
        };
        // Config keys before Java, so code can point at them.
        let mut config_keys = config_usage::ConfigKeys::new(
            modules
                .iter()
                .filter(|m| m.deployable)
                .map(|m| m.dir.clone())
                .collect(),
        );
        for c in &configs {
            let module = module_of(&modules, &c.file.rel).map(|m| m.dir.clone());
            if let Some(&file) = file_nodes.get(&c.file.rel) {
                let written = config::write_config(self, w, file, c, scope_of(&c.file.rel))?;
                config_keys.add(&c.file.rel, c.parsed.kind, module.unwrap_or_default(), written);
            }
            progress.file_done(c.file.size);
        }
        let nodes = code::index_java(self, w, files, &file_nodes, &service_of, &resolve, &config_keys)?;
        data_access::write_mapper_xml(self, w, files, &nodes.methods)?;
        for f in files.iter().filter(|f| f.kind != SourceKind::Config) {
            progress.file_done(f.size);
        }
        Ok(())
    }
}

#[cfg(test)]
mod data_tests;
#[cfg(test)]
mod http_tests;
#[cfg(test)]
mod tests;
