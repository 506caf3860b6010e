//! One product's index run, in the order its data flows: walk the sources, read each file
//! with its front-end (`lang`), resolve the code against the product's symbol table
//! (`resolve`), let every framework recogniser say what the code means (`frameworks`), and
//! write it all through one `ProductWriter` (`emit`), committed once at the end.
//!
//! Per repository: its layout first — product, repository, deployable services (Maven and
//! Gradle modules, named by their `spring.application.name`), files — so every later fact
//! has a place to hang from; then the schema, the config keys, and the code in two passes
//! over small parallel chunks of files, so memory follows the product's declarations, not
//! its bodies: the first writes every file's declarations and keeps a skeleton of it (no
//! call sites); the symbol table, the hierarchy and the cross-file knowledge of the
//! frameworks are built from the skeletons; the second parses each chunk again, resolves
//! its calls, runs the recognisers in parallel (they are pure) and writes what they found.
//! Anything that goes wrong with one file is a warning on the run; only a store failure
//! stops it, and then nothing of the run becomes visible.
//!
//! A re-index is incremental by default (`cache`): each code file's parsed facts are kept
//! in the store under a digest of its path, content and the indexer build, and a file
//! whose digest is there is not parsed again; every stage over the whole product runs
//! again over the facts, so the graph is exactly the one a full run writes.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::{Duration, Instant};

use rayon::prelude::*;
use semgraph_storage::{CommitSummary, FactsDigest, NodeId, ProductWriter, Store, Warning};

use crate::company::{Company, Dependencies, DependencyTyping, ProductSource};
use crate::emit::{self, code::CodeNodes, findings::Targets, findings::Topics, Run};
use crate::error::IndexError;
use crate::facts::{self, CodeFile, Receiver};
use crate::frameworks::{self, ConfigIndex, Knowledge, Product};
use crate::lang::build::{self, BuildFile, BuildKind};
use crate::lang::config::{self, ConfigKind, ConfigScope, ParsedConfig};
use crate::lang::liquibase::{ConfigLookup, ModuleChangelogs};
use crate::lang::{self, jira, schemas, wiki};
use crate::resolve::{self, SymbolTable};
use crate::typemodel::{
    self,
    deps::{Coordinate, Outcome, Repositories, ResolveOptions},
    model::TypeModel,
};
use crate::walk::{self, SourceFile, SourceKind};

mod ahead;
mod cache;
mod copies;
mod invalidation;
use cache::FactsCache;
pub use cache::IndexMode;

/// Code files read and parsed at once in the first pass: bounds the source text and syntax
/// trees held in memory (three chunks at a time: one written, one waiting, one prepared).
const CHUNK: usize = 64;

/// Code files resolved and recognised at once in the second pass, which holds more of each
/// (its whole facts, resolved calls and findings) while the product's symbol table and type
/// model are in memory: the run's peak. 32 rather than 64 took 10–14 MB off spring-boot's
/// peak; the pool still has 16 files a core.
const RESOLVE_CHUNK: usize = 32;

/// Jira exports larger than this are skipped with a warning (a search-API page is a few
/// MB; the limit only stops a wrong path from reading a disk image into memory).
const MAX_JIRA_EXPORT_BYTES: u64 = 256 << 20;

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
    /// Code files this run parsed (changed, added, renamed, or every one on a full run).
    pub code_parsed: u64,
    /// Code files whose facts were reused from an earlier run (unchanged content).
    pub code_reused: u64,
    /// Code files whose resolved calls were reused: unchanged, and no declaration of the
    /// product, module layout or dependency changed either (bodies may have).
    pub calls_reused: u64,
    /// Code files whose findings (endpoints, HTTP calls, tables, config keys, topics…)
    /// were reused: their calls were, and no other file's declarations, no config, build
    /// or other non-code file changed either.
    pub findings_reused: u64,
    /// The dependencies the builds declare and the classpath lists: whose types the
    /// resolver had, and why not the others'.
    pub dependencies: Vec<DependencyTyping>,
}

/// Indexes one product of `company` into `store` as a new generation and commits it,
/// reusing the facts of every code file an earlier run parsed ([`IndexMode::Incremental`]).
pub fn index_product(
    store: &Store,
    company: &Company,
    product: &ProductSource,
    progress: &dyn Progress,
) -> Result<ProductReport, IndexError> {
    index_product_with(store, company, product, progress, IndexMode::Incremental)
}

/// [`index_product`], choosing whether earlier runs' facts are reused.
pub fn index_product_with(
    store: &Store,
    company: &Company,
    product: &ProductSource,
    progress: &dyn Progress,
    mode: IndexMode,
) -> Result<ProductReport, IndexError> {
    let started = Instant::now();
    let mut cache = FactsCache::new(store, mode, &product.name);
    let mut w = store.begin(&product.name, &product.area)?;
    let mut run = Run {
        product_names: company.products.iter().map(|p| p.name.clone()).collect(),
        ..Run::default()
    };
    // Each repository's git state (`git status` alone takes 0.2 s on spring-boot), asked
    // beside the walk; its Repo node is the first thing its run writes.
    let git: Vec<Option<std::thread::JoinHandle<Option<crate::git::GitState>>>> = product
        .repos
        .iter()
        .map(|root| {
            let root = root.clone();
            std::thread::Builder::new()
                .name("semgraph-git".into())
                .spawn(move || crate::git::state(&root))
                .ok()
        })
        .collect();
    let product_node = emit::layout::write_product(&mut run, &mut w, &product.name, &product.area)?;

    let walk_started = Instant::now();
    let mut repos = Vec::new();
    for (root, git) in product.repos.iter().zip(git) {
        if !root.is_dir() {
            run.warn(
                &root.display().to_string(),
                None,
                "skipped: the repository path is not a folder",
            );
            continue;
        }
        let files = walk::walk_repo(root, &mut run.warnings);
        repos.push((root.clone(), files, git));
    }
    let (count, bytes) = repos
        .iter()
        .flat_map(|(_, f, _)| f)
        .fold((0u64, 0u64), |(n, b), f| (n + 1, b + f.size));
    progress.planned(count, bytes);
    run.time("walk", walk_started.elapsed());

    let repo_started = Instant::now();
    for (root, files, git) in repos {
        let git = match git {
            Some(asked) => asked.join().ok().flatten(),
            // No thread could be started: asked here.
            None => crate::git::state(&root),
        };
        index_repo(
            &mut run,
            &mut w,
            &mut cache,
            product_node,
            (&root, &files, git),
            &company.dependencies,
            progress,
        )?;
    }
    run.time("code", repo_started.elapsed());

    let docs_started = Instant::now();
    for folder in &product.wiki {
        index_wiki(&mut run, &mut w, product_node, folder)?;
    }
    index_jira(&mut run, &mut w, company, product, product_node)?;
    run.time("docs", docs_started.elapsed());

    for (phase, elapsed) in &run.timings {
        w.record_timing(phase, *elapsed);
    }
    for warning in &run.warnings {
        w.warn(warning.clone());
    }
    for (name, value) in &run.stats {
        w.record_stat(name, *value);
    }
    let commit = w.commit()?;
    // After the commit: a run that fails keeps the previous run's entries.
    if let Err(e) = store.retain_facts(&product.name, &cache.used) {
        tracing::warn!(error = %e, product = %product.name, "cannot prune the facts cache");
    }
    Ok(ProductReport {
        product: product.name.clone(),
        files: run.files,
        bytes: run.bytes,
        nodes: run.nodes,
        stats: run.stats,
        warnings: run.warnings,
        elapsed: started.elapsed(),
        commit,
        code_parsed: cache.parsed,
        code_reused: cache.reused,
        calls_reused: cache.calls_reused,
        findings_reused: cache.findings_reused,
        dependencies: run.dependencies,
    })
}

/// A module of a repository, as its build file declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Module {
    /// Folder relative to the repository root ("" for the root).
    dir: String,
    /// Maven artifactId, when there is one.
    artifact: Option<String>,
    /// Whether it builds something that runs (not a `pom` aggregator).
    deployable: bool,
    /// What its build file declares.
    build: BuildFile,
}

/// The deployable modules of a repository by folder. A repository has hundreds of modules
/// and thousands of files, and every file's module is asked for several times: walking up
/// the file's folders costs its depth, where a scan of the modules costs their number.
struct DeployableModules<'m> {
    by_dir: rustc_hash::FxHashMap<&'m str, &'m Module>,
    /// The module at the repository's root, if one is deployable.
    root: Option<&'m Module>,
}

impl<'m> DeployableModules<'m> {
    fn new(modules: &'m [Module]) -> Self {
        let mut by_dir = rustc_hash::FxHashMap::default();
        let mut root = None;
        // Of two modules in one folder, the later wins.
        for m in modules.iter().filter(|m| m.deployable) {
            if m.dir.is_empty() {
                root = Some(m);
            } else {
                by_dir.insert(m.dir.as_str(), m);
            }
        }
        DeployableModules { by_dir, root }
    }

    /// The deployable module `rel` belongs to: the deepest one whose folder holds it.
    fn of(&self, rel: &str) -> Option<&'m Module> {
        rel.rmatch_indices('/')
            .find_map(|(end, _)| self.by_dir.get(&rel[..end]).copied())
            .or(self.root)
    }
}

/// The modules of a repository, from its Maven POMs and Gradle build scripts.
fn find_modules(files: &[SourceFile], warnings: &mut Vec<Warning>) -> Vec<Module> {
    let mut modules = Vec::new();
    // The folders with main sources (`{dir}/src/main/…`), each as `{dir}/` (`""` for the
    // root): what makes a Gradle module deployable, found in one pass over the files.
    let with_main_sources: std::collections::HashSet<&str> = files
        .iter()
        .flat_map(|f| {
            f.rel
                .match_indices("src/main/")
                .filter(|(at, _)| *at == 0 || f.rel.as_bytes()[at - 1] == b'/')
                .map(|(at, _)| &f.rel[..at])
        })
        .collect();
    for f in files.iter().filter(|f| f.kind == SourceKind::BuildFile) {
        let Some(kind) = build::build_kind(&f.rel) else {
            continue;
        };
        if kind == BuildKind::GradleSettings {
            continue;
        }
        let dir = f
            .rel
            .rsplit_once('/')
            .map(|(d, _)| d.to_string())
            .unwrap_or_default();
        let Some(text) = walk::read_source(f, warnings) else {
            continue;
        };
        let parsed = build::parse_build_file(kind, &text);
        for (line, message) in &parsed.warnings {
            warnings.push(Warning {
                file: f.rel.clone(),
                line: *line,
                message: message.clone(),
            });
        }
        let deployable = match kind {
            BuildKind::Maven => parsed.packaging.as_deref() != Some("pom"),
            _ if dir.is_empty() => with_main_sources.contains(""),
            _ => with_main_sources.contains(format!("{dir}/").as_str()),
        };
        modules.push(Module {
            dir,
            artifact: parsed.artifact.clone(),
            deployable,
            build: parsed,
        });
    }
    modules.sort_by(|a, b| a.dir.cmp(&b.dir));
    modules.dedup_by(|a, b| a.dir == b.dir);
    modules
}

/// Indexes one repository of the product.
fn index_repo(
    run: &mut Run,
    w: &mut ProductWriter,
    cache: &mut FactsCache<'_>,
    product_node: NodeId,
    (root, files, git): (&Path, &[SourceFile], Option<crate::git::GitState>),
    dependencies: &Dependencies,
    progress: &dyn Progress,
) -> Result<(), IndexError> {
    let repo_name = root
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("repo")
        .to_string();
    let started = Instant::now();
    let repo = emit::layout::write_repo(run, w, product_node, &repo_name, root, git.as_ref())?;

    // Modules, then config: a module's `spring.application.name` names its service.
    let mut modules = find_modules(files, &mut run.warnings);
    if !modules.iter().any(|m| m.deployable) {
        // A repository without a build file is one service named after it.
        modules.push(Module {
            dir: String::new(),
            artifact: None,
            deployable: true,
            build: BuildFile::default(),
        });
    }
    let local = config::read_configs(files, &mut run.warnings);
    // Each deployable module's service name, then what a config server among them serves
    // to the others from the repository (`shared/billing-service.yml`). The module of each
    // file is found once: a repository has hundreds of modules and thousands of config files.
    let deployable: Vec<&Module> = modules.iter().filter(|m| m.deployable).collect();
    let module_of = DeployableModules::new(&modules);
    let local_module: Vec<Option<&str>> = local
        .iter()
        .map(|c| module_of.of(&c.file.rel).map(|m| m.dir.as_str()))
        .collect();
    let in_module = |m: &Module, except: &ServedTo| -> Vec<&ParsedConfig> {
        local
            .iter()
            .zip(&local_module)
            .filter(|(c, owner)| **owner == Some(m.dir.as_str()) && !except.contains_key(&c.file.rel))
            .map(|(c, _)| c)
            .collect()
    };
    let no_served = BTreeMap::new();
    let mut names: Vec<(String, Option<String>)> = deployable
        .iter()
        .map(|m| service_name(m, &in_module(m, &no_served), &repo_name))
        .collect();
    let served_to = served_configs(run, &deployable, &names, files, &local, &in_module);
    if !served_to.is_empty() {
        // A server's name comes from its own files, not from those it serves.
        for (m, name) in deployable.iter().zip(names.iter_mut()) {
            *name = service_name(m, &in_module(m, &served_to), &repo_name);
        }
    }
    let (mut served_local, mut configs): (Vec<ParsedConfig>, Vec<ParsedConfig>) = local
        .into_iter()
        .partition(|c| served_to.contains_key(&c.file.rel));
    let mut served: Vec<ParsedConfig> = Vec::new();
    for (rel, (_, profile)) in &served_to {
        let mut c = match served_local.iter().position(|c| &c.file.rel == rel) {
            Some(i) => served_local.swap_remove(i),
            None => {
                let Some(f) = files.iter().find(|f| &f.rel == rel) else {
                    continue;
                };
                let Some(text) = walk::read_source(f, &mut run.warnings) else {
                    continue;
                };
                let parsed = config::parse_config_file(rel, &text);
                for w in &parsed.warnings {
                    run.warn(rel, Some(w.line), w.message.clone());
                }
                ParsedConfig {
                    file: SourceFile {
                        kind: SourceKind::Config,
                        ..f.clone()
                    },
                    parsed,
                }
            }
        };
        // `billing-service-docker.yml` is profile `docker`, as `application-docker.yml` is.
        if c.parsed.profile.is_none() {
            c.parsed.profile = profile.clone();
            for e in c.parsed.entries.iter_mut().filter(|e| e.profile.is_none()) {
                e.profile = profile.clone();
            }
        }
        served.push(c);
    }
    run.stat("config.served-files", served.len() as u64);
    // Served files first: Spring puts a config server's property sources above the
    // service's own files.
    let served_count = served.len();
    served.append(&mut configs);
    let configs = served;
    // The modules a config file configures: those it is served to, else its own.
    let config_modules = |rel: &str| -> Vec<String> {
        match served_to.get(rel) {
            Some((dirs, _)) => dirs.clone(),
            None => module_of.of(rel).map(|m| m.dir.clone()).into_iter().collect(),
        }
    };
    // The one module a file belongs to for its service and its placeholders: a file
    // served to one service is that service's.
    let owner_dir = |rel: &str| -> Option<String> {
        match served_to.get(rel) {
            Some((dirs, _)) if dirs.len() == 1 => dirs.first().cloned(),
            _ => module_of.of(rel).map(|m| m.dir.clone()),
        }
    };
    let env: Vec<&ParsedConfig> = configs
        .iter()
        .filter(|c| c.parsed.kind == ConfigKind::Env)
        .collect();
    // Each deployable module's service name, and the port its configuration listens on.
    let configured: Vec<Vec<String>> = configs.iter().map(|c| config_modules(&c.file.rel)).collect();
    let mut named: Vec<NamedModule<'_>> = Vec::new();
    for (m, (name, app_name)) in deployable.iter().zip(names) {
        let main: Vec<&ParsedConfig> = configs
            .iter()
            .zip(&configured)
            .filter(|(c, dirs)| dirs.contains(&m.dir) && !c.file.rel.contains("src/test/"))
            .map(|(c, _)| c)
            .collect();
        let scope = ConfigScope::new(&main, &env);
        let ports = server_port(&scope).into_iter().collect();
        named.push(NamedModule {
            module: m,
            name,
            app_name,
            ports,
            base_path: context_path(&scope),
        });
    }
    // Deployment descriptors: which module each deploys, and what it gives it.
    let deployments = read_deployments(files, &env, &mut run.warnings);
    let mut deployed: BTreeMap<String, Vec<&config::Deployment>> = BTreeMap::new();
    for d in &deployments {
        match deployed_module(d, &named) {
            Some(dir) => deployed.entry(dir).or_default().push(d),
            None => run.stat("deployments.unmatched", 1),
        }
    }
    let mut services: BTreeMap<String, (NodeId, String)> = BTreeMap::new();
    let mut reach: BTreeMap<String, emit::findings::Reach> = BTreeMap::new();
    for NamedModule {
        module: m,
        name,
        app_name,
        mut ports,
        base_path,
    } in named
    {
        let mut hosts: Vec<String> = Vec::new();
        for d in deployed.get(&m.dir).into_iter().flatten() {
            for h in &d.hosts {
                if !h.eq_ignore_ascii_case(&name) && !hosts.contains(h) {
                    hosts.push(h.clone());
                }
            }
            for p in &d.ports {
                if !ports.contains(p) {
                    ports.push(*p);
                }
            }
        }
        let service = emit::layout::Service {
            name: &name,
            module: &m.dir,
            repo: &repo_name,
            artifact: m.artifact.as_deref(),
            application_name: app_name.is_some(),
            ports: &ports,
            hosts: &hosts,
        };
        let id = emit::layout::write_service(run, w, repo, &service)?;
        let r = reach.entry(name.clone()).or_default();
        r.hosts.extend(hosts);
        r.ports.extend(ports);
        if r.base_path.is_none() {
            r.base_path = base_path;
        }
        services.insert(m.dir.clone(), (id, name));
    }
    // A deployment's environment is configuration of the module it deploys.
    let deploy_configs: Vec<(String, ParsedConfig)> = deployed
        .iter()
        .flat_map(|(dir, ds)| ds.iter().map(move |d| (dir, d)))
        .filter(|(_, d)| !d.env.is_empty())
        .filter_map(|(dir, d)| {
            let file = files.iter().find(|f| f.rel == d.file)?.clone();
            Some((
                dir.clone(),
                ParsedConfig {
                    parsed: config::ConfigFile {
                        path: d.file.clone(),
                        kind: ConfigKind::Env,
                        profile: None,
                        entries: d.env.clone(),
                        warnings: Vec::new(),
                    },
                    file,
                },
            ))
        })
        .collect();
    let mut file_nodes: BTreeMap<String, NodeId> = BTreeMap::new();
    for f in files {
        let parent = module_of
            .of(&f.rel)
            .and_then(|m| services.get(&m.dir).map(|(id, _)| *id))
            .unwrap_or(repo);
        let id = emit::layout::write_file(run, w, parent, &repo_name, f)?;
        file_nodes.insert(f.rel.clone(), id);
    }

    // Config keys before code, so code can point at them. Each module's keys indexed once,
    // for every placeholder of the repository.
    // Each file's owner worked out once: finding it scans the modules, and the code passes
    // ask for every file's service several times.
    let owners: rustc_hash::FxHashMap<&str, Option<String>> = files
        .iter()
        .map(|f| (f.rel.as_str(), owner_dir(&f.rel)))
        .collect();
    let owner_of = |rel: &str| match owners.get(rel) {
        Some(owner) => owner.clone(),
        None => owner_dir(rel),
    };
    let service_of = |rel: &str| owner_of(rel).and_then(|dir| services.get(&dir).cloned());
    let mut module_configs: BTreeMap<Option<String>, Vec<&ParsedConfig>> = BTreeMap::new();
    for c in &configs {
        let modules = config_modules(&c.file.rel);
        if modules.is_empty() {
            module_configs.entry(None).or_default().push(c);
        }
        for module in modules {
            module_configs.entry(Some(module)).or_default().push(c);
        }
    }
    for (dir, _) in &deploy_configs {
        module_configs.entry(Some(dir.clone())).or_default();
    }
    let scopes: BTreeMap<Option<String>, ConfigScope<'_>> = module_configs
        .iter()
        .map(|(module, scope)| {
            let deployment = deploy_configs
                .iter()
                .filter(|(dir, _)| Some(dir) == module.as_ref())
                .flat_map(|(_, c)| &c.parsed.entries);
            (
                module.clone(),
                ConfigScope::new(scope, &env).with_deployment(deployment),
            )
        })
        .collect();
    let env_only = ConfigScope::new(&[], &env);
    let scope_of = |rel: &str| scopes.get(&owner_of(rel)).unwrap_or(&env_only);

    // Schemas: scripts and Liquibase changelogs, whose master and parameters come from
    // each module's config.
    let lookups: Vec<(String, ConfigLookup<'_>)> = modules
        .iter()
        .filter(|m| m.deployable)
        .map(|m| {
            let scope = scopes.get(&Some(m.dir.clone())).unwrap_or(&env_only);
            let lookup: ConfigLookup<'_> =
                Box::new(move |key: &str| scope.lookup(None, key).map(|v| scope.resolve(&v)));
            (m.dir.clone(), lookup)
        })
        .collect();
    let changelog_modules: Vec<ModuleChangelogs<'_>> = lookups
        .iter()
        .map(|(dir, lookup)| ModuleChangelogs {
            dir,
            config: lookup.as_ref(),
        })
        .collect();
    let schema = schemas::read_repository_schema(files, &changelog_modules);
    run.warnings.extend(schema.warnings);
    run.stat("sql.statements", schema.statements);
    if schema.changelogs > 0 {
        run.stat("liquibase.changelogs", schema.changelogs);
        run.stat("liquibase.changesets", schema.changesets);
    }
    let tables = emit::schema::write_schema(run, w, &schema.schema, &file_nodes)?;
    run.tables.extend(tables);
    let resolve = |rel: &str, value: &str| -> String {
        if !value.contains("${") {
            return value.to_string();
        }
        scope_of(rel).resolve(value)
    };
    let mut config_index = ConfigIndex::new(
        modules
            .iter()
            .filter(|m| m.deployable)
            .map(|m| m.dir.clone())
            .collect(),
    );
    let mut config_keys: Vec<NodeId> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        if let Some(&file) = file_nodes.get(&c.file.rel) {
            let written = emit::config::write_config(run, w, file, c, scope_of(&c.file.rel))?;
            let mut modules = config_modules(&c.file.rel);
            if modules.is_empty() {
                modules.push(String::new());
            }
            // A file served to several services is each one's: its keys are indexed once
            // per module, each time pointing at the same nodes.
            for module in &modules {
                config_index.add(
                    &c.file.rel,
                    c.parsed.kind,
                    module,
                    written.iter().map(|(k, _)| k.as_str()),
                );
                config_keys.extend(written.iter().map(|(_, id)| *id));
            }
        }
        // A served YAML file is counted with the other files (it was not config to the walk).
        if i >= served_count || c.file.rel.ends_with(".properties") {
            progress.file_done(c.file.size);
        }
    }
    for (dir, c) in &deploy_configs {
        if let Some(&file) = file_nodes.get(&c.file.rel) {
            let scope = scopes.get(&Some(dir.clone())).unwrap_or(&env_only);
            let written = emit::config::write_config(run, w, file, c, scope)?;
            config_index.add_deployment(&c.file.rel, dir, written.iter().map(|(k, _)| k.as_str()));
            config_keys.extend(written.into_iter().map(|(_, id)| id));
        }
    }

    let builds: Vec<(String, BuildFile)> = modules.iter().map(|m| (m.dir.clone(), m.build.clone())).collect();
    let code = Code {
        builds: &builds,
        dependencies,
        configs: &configs,
        reach: &reach,
        files,
        file_nodes: &file_nodes,
        service_of: &service_of,
        resolve: &resolve,
        config_index: &config_index,
        config_keys: &config_keys,
        root,
    };
    run.time("code.schema-config", started.elapsed());
    index_code(run, w, cache, &code)?;
    for f in files.iter().filter(|f| f.kind != SourceKind::Config) {
        progress.file_done(f.size);
    }
    Ok(())
}

/// A deployable module with what names and reaches its service.
struct NamedModule<'m> {
    module: &'m Module,
    /// Its service name.
    name: String,
    /// Its `spring.application.name`, when it has one.
    app_name: Option<String>,
    /// The ports its configuration listens on.
    ports: Vec<u16>,
    /// The path its HTTP routes sit under.
    base_path: Option<String>,
}

/// Config files served to modules, by file: the module folders each configures and the
/// profile its name gives it.
type ServedTo = BTreeMap<String, (Vec<String>, Option<String>)>;

/// A deployable module's service name (its `spring.application.name`, else its artifact,
/// else its folder, else the repository's name), and the application name when it has one.
fn service_name(m: &Module, in_module: &[&ParsedConfig], repo_name: &str) -> (String, Option<String>) {
    let app_name = config::module_application_name(in_module);
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
        .unwrap_or_else(|| repo_name.to_string());
    (name, app_name)
}

/// What the Spring Cloud Config servers among the modules serve to the others from the
/// repository (see [`config::served_files`]); each location outside the sources is a
/// warning on the server's config.
fn served_configs<'c>(
    run: &mut Run,
    deployable: &[&Module],
    names: &[(String, Option<String>)],
    files: &[SourceFile],
    local: &'c [ParsedConfig],
    in_module: &dyn Fn(&Module, &ServedTo) -> Vec<&'c ParsedConfig>,
) -> ServedTo {
    let env: Vec<&ParsedConfig> = local
        .iter()
        .filter(|c| c.parsed.kind == ConfigKind::Env)
        .collect();
    let mut described = Vec::new();
    let mut first_file: BTreeMap<&str, String> = BTreeMap::new();
    for (m, (name, _)) in deployable.iter().zip(names) {
        let own: Vec<&ParsedConfig> = in_module(m, &ServedTo::new())
            .into_iter()
            .filter(|c| !c.file.rel.contains("src/test/"))
            .collect();
        if let Some(c) = own.first() {
            first_file.insert(&m.dir, c.file.rel.clone());
        }
        let scope = ConfigScope::new(&own, &env);
        let entries = || own.iter().flat_map(|c| &c.parsed.entries);
        let value = |key: &str| scope.lookup(None, key).map(|v| scope.resolve(&v));
        let is_server = m.build.depends_on("spring-cloud-config-server")
            || entries().any(|e| e.key.starts_with("spring.cloud.config.server."));
        let server = is_server.then(|| config::ServerSettings {
            search_locations: value("spring.cloud.config.server.native.search-locations")
                .or_else(|| value("spring.cloud.config.server.native.searchLocations")),
            native: entries()
                .filter(|e| e.profile.is_none())
                .filter(|e| {
                    e.key.starts_with("spring.profiles.active")
                        || e.key.starts_with("spring.profiles.include")
                })
                .any(|e| scope.resolve(&e.value).split(',').any(|p| p.trim() == "native")),
        });
        let client = m.build.depends_on("spring-cloud-starter-config")
            || m.build.depends_on("spring-cloud-config-client")
            || entries().any(|e| {
                e.key.starts_with("spring.cloud.config.uri")
                    || (e.key.starts_with("spring.config.import") && e.value.contains("configserver:"))
            });
        described.push(config::ConfigModule {
            dir: &m.dir,
            service: name,
            server,
            client,
        });
    }
    let rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let (served, warnings) = config::served_files(&described, &rels);
    for (dir, message) in warnings {
        let file = first_file.get(dir.as_str()).cloned().unwrap_or(dir);
        run.warn(&file, None, message);
    }
    served
        .into_iter()
        .map(|s| (s.rel, (s.modules, s.profile)))
        .collect()
}

/// The path every HTTP route of a service sits under: `server.servlet.context-path`
/// (`server.context-path` before Spring Boot 2), or WebFlux's `spring.webflux.base-path`;
/// `None` for the root.
fn context_path(scope: &ConfigScope<'_>) -> Option<String> {
    let written = [
        "server.servlet.context-path",
        "server.servlet.contextPath",
        "server.context-path",
        "server.contextPath",
        "spring.webflux.base-path",
        "spring.webflux.basePath",
    ]
    .iter()
    .find_map(|k| scope.lookup(None, k))?;
    let path = scope.resolve(&written);
    let path = path.trim().trim_end_matches('/');
    (path.starts_with('/') && !path.contains("${")).then(|| path.to_string())
}

/// The types of the repository's dependencies: the classpath's jars and class folders,
/// then the jars its builds declare (modules of the repository itself aside), found in
/// the local repositories when the company allows it. What became of each is kept for
/// the summary.
fn dependency_types(run: &mut Run, builds: &[(String, BuildFile)], deps: &Dependencies) -> TypeModel {
    let own: std::collections::HashSet<&str> =
        builds.iter().filter_map(|(_, b)| b.artifact.as_deref()).collect();
    let mut declared: Vec<Coordinate> = Vec::new();
    for d in builds.iter().flat_map(|(_, b)| &b.dependencies) {
        if d.group.is_empty() || d.artifact.is_empty() || own.contains(d.artifact.as_str()) {
            continue;
        }
        // A version left to a property (`${spring.version}`) or a build token
        // (`@spring-framework.version@`) is no version: the highest on disk is taken.
        let version = d
            .version
            .clone()
            .filter(|v| !v.trim().is_empty() && !v.contains("${") && !v.contains('@'));
        match declared
            .iter_mut()
            .find(|c| c.group == d.group && c.artifact == d.artifact)
        {
            Some(c) => {
                if c.version.is_none() {
                    c.version = version;
                }
            }
            None => declared.push(Coordinate {
                group: d.group.clone(),
                artifact: d.artifact.clone(),
                version,
            }),
        }
    }
    let classpath = classpath_entries(&deps.classpath);
    if declared.is_empty() && classpath.is_empty() {
        return TypeModel::default();
    }
    // A classpath jar named as Maven names the artifact's (`greeter-1.0.jar`, `greeter.jar`)
    // is that declared dependency: it is not looked up again, and is reported as typed by it.
    let mut by_jar: Vec<(Coordinate, std::path::PathBuf)> = Vec::new();
    declared.retain(|c| match classpath.iter().find(|p| names_artifact(p, c)) {
        Some(p) => {
            by_jar.push((c.clone(), p.clone()));
            false
        }
        None => true,
    });
    let repositories = if deps.local_repositories {
        Repositories::from_env()
    } else {
        Repositories::default()
    };
    let loaded = typemodel::deps::load_all(&classpath, &declared, &repositories, &ResolveOptions::default());
    for r in &loaded.reports {
        let typed = r.is_typed();
        run.stat(
            if typed {
                "dependencies.typed"
            } else {
                "dependencies.not-typed"
            },
            1,
        );
        if r.via.is_some() {
            continue;
        }
        if let Some((c, _)) = by_jar
            .iter()
            .find(|(_, p)| p.display().to_string() == r.coordinate)
        {
            // The declared dependency this jar is, under its coordinate.
            let (typed_from, why_not) = match &r.outcome {
                Outcome::Typed { jar, .. } => (Some(jar.display().to_string()), None),
                Outcome::NotOnDisk { .. } => (None, Some("its classpath jar is missing".to_string())),
                Outcome::Unreadable { error, .. } => (None, Some(format!("unreadable: {error}"))),
            };
            run.dependencies.push(DependencyTyping {
                coordinate: c.to_string(),
                declared: true,
                typed_from,
                why_not,
            });
            continue;
        }
        // A declared dependency with no jar on disk that semgraph bundles a model of.
        let bundled = Coordinate::parse(&r.coordinate)
            .and_then(|c| typemodel::libraries::bundled_version(&c.group, &c.artifact));
        let (typed_from, why_not) = match &r.outcome {
            Outcome::Typed { jar, .. } => (Some(jar.display().to_string()), None),
            Outcome::NotOnDisk { .. } if bundled.is_some() => {
                (bundled.map(|b| format!("semgraph's bundled model of {b}")), None)
            }
            Outcome::NotOnDisk { .. } if !deps.local_repositories => (
                None,
                Some("not looked for (local_repositories = false)".to_string()),
            ),
            Outcome::NotOnDisk { .. } => (None, Some("no jar on disk".to_string())),
            Outcome::Unreadable { error, .. } => (None, Some(format!("unreadable: {error}"))),
        };
        let listed = classpath.iter().any(|p| p.display().to_string() == r.coordinate);
        run.dependencies.push(DependencyTyping {
            coordinate: match &r.version {
                Some(v) if !r.coordinate.ends_with(v.as_str()) => format!("{}:{v}", r.coordinate),
                _ => r.coordinate.clone(),
            },
            declared: !listed,
            typed_from,
            why_not,
        });
    }
    loaded.model
}

/// Whether `jar` is named as Maven names the jar of `c` (`artifact-version.jar`, or
/// `artifact.jar` and `artifact-<any version>.jar` when the build gives no version).
fn names_artifact(jar: &std::path::Path, c: &Coordinate) -> bool {
    let Some(name) = jar.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    let Some(stem) = name.strip_suffix(".jar") else {
        return false;
    };
    match &c.version {
        Some(v) => stem == format!("{}-{v}", c.artifact),
        None => {
            stem == c.artifact
                || stem
                    .strip_prefix(&format!("{}-", c.artifact))
                    .is_some_and(|rest| rest.starts_with(|ch: char| ch.is_ascii_digit()))
        }
    }
}

/// The classpath as the loader reads it: a folder holding jars stands for each of them (in
/// name order); any other folder is a class folder; a file is a jar.
fn classpath_entries(listed: &[std::path::PathBuf]) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for p in listed {
        let mut jars: Vec<std::path::PathBuf> = std::fs::read_dir(p)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|e| e.extension().is_some_and(|x| x == "jar"))
            .collect();
        jars.sort();
        if jars.is_empty() {
            out.push(p.clone());
        } else {
            out.extend(jars);
        }
    }
    out
}

/// The port a module's configuration listens on (`server.port`, placeholders resolved),
/// unless it is Spring's default, random (`0`) or not fixed.
fn server_port(scope: &ConfigScope<'_>) -> Option<u16> {
    let written = scope.lookup(None, "server.port")?;
    let port: u16 = scope.resolve(&written).trim().parse().ok()?;
    (port != 0).then_some(port)
}

/// The deployment descriptors of a repository (docker-compose files, Kubernetes manifests).
fn read_deployments(
    files: &[SourceFile],
    env: &[&ParsedConfig],
    warnings: &mut Vec<Warning>,
) -> Vec<config::Deployment> {
    let env_scope = ConfigScope::new(&[], env);
    let lookup = |k: &str| env_scope.lookup(None, k);
    let mut out = Vec::new();
    for f in files.iter().filter(|f| f.kind == SourceKind::Deployment) {
        let Some(text) = walk::read_source(f, warnings) else {
            continue;
        };
        let mut found = Vec::new();
        out.extend(config::parse_deployments(&f.rel, &text, &lookup, &mut found));
        warnings.extend(found.into_iter().map(|w| Warning {
            file: f.rel.clone(),
            line: Some(w.line).filter(|&l| l > 0),
            message: w.message,
        }));
    }
    out
}

/// The module a deployment runs: the one its compose `build` context is, else the one
/// service whose name, artifact or folder its image or names give.
fn deployed_module(d: &config::Deployment, named: &[NamedModule<'_>]) -> Option<String> {
    if let Some(context) = &d.build {
        if let Some(n) = named.iter().find(|n| &n.module.dir == context) {
            return Some(n.module.dir.clone());
        }
    }
    let candidates: Vec<&str> = d
        .images
        .iter()
        .chain(&d.names)
        .chain(std::iter::once(&d.name))
        .map(String::as_str)
        .collect();
    for wanted in candidates {
        let hits: Vec<&Module> = named
            .iter()
            .filter(|n| {
                let m = n.module;
                n.name.eq_ignore_ascii_case(wanted)
                    || m.artifact
                        .as_deref()
                        .is_some_and(|a| a.eq_ignore_ascii_case(wanted))
                    || (!m.dir.is_empty()
                        && m.dir
                            .rsplit('/')
                            .next()
                            .is_some_and(|f| f.eq_ignore_ascii_case(wanted)))
            })
            .map(|n| n.module)
            .collect();
        if let [only] = hits.as_slice() {
            return Some(only.dir.clone());
        }
    }
    None
}

/// What the code passes of a repository need from the rest of its run.
struct Code<'a> {
    builds: &'a [(String, BuildFile)],
    dependencies: &'a Dependencies,
    configs: &'a [ParsedConfig],
    reach: &'a BTreeMap<String, emit::findings::Reach>,
    files: &'a [SourceFile],
    file_nodes: &'a BTreeMap<String, NodeId>,
    service_of: &'a (dyn Fn(&str) -> Option<(NodeId, String)> + Sync),
    resolve: &'a (dyn Fn(&str, &str) -> String + Sync),
    config_index: &'a ConfigIndex,
    config_keys: &'a [NodeId],
    /// The repository's folder (its calls index is named by it).
    root: &'a Path,
}

/// The calls keys of the last run to read for the files whose resolved calls still hold
/// ([`invalidation`]), with the last run's index as read. Empty (every file is looked up
/// under this run's context) when there is no index, when what resolution reads besides
/// the declarations changed, when a file moved to another module, when an old skeleton is
/// gone, or when the change is one names cannot follow.
fn carried_calls(
    store: &Store,
    index_key: &FactsDigest,
    global: &FactsDigest,
    skeletons: &[CodeFile],
    skeleton_digests: &[cache::SkeletonDigests],
    now: &[invalidation::IndexedFile],
    files: &[SourceFile],
) -> Result<(HashMap<String, FactsDigest>, Option<invalidation::CallsIndex>), IndexError> {
    let nothing = HashMap::new();
    let Some(previous) = store
        .cached_facts(std::slice::from_ref(index_key))?
        .pop()
        .flatten()
        .and_then(|bytes| cache::decode::<invalidation::CallsIndex>(&bytes))
    else {
        return Ok((nothing, None));
    };
    if previous.global != *global {
        return Ok((nothing, Some(previous)));
    }
    let before: HashMap<&str, &invalidation::IndexedFile> =
        previous.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let skeleton_at: HashMap<&str, usize> = skeletons
        .iter()
        .enumerate()
        .map(|(i, s)| (s.path.as_str(), i))
        .collect();
    let now_paths: std::collections::HashSet<&str> = now.iter().map(|f| f.path.as_str()).collect();
    // Unchanged files (each with the key its calls are under), and the paths whose facts
    // changed, appeared or went.
    let mut unchanged: Vec<(&str, FactsDigest, FactsDigest)> = Vec::new();
    let mut touched: Vec<(Option<&invalidation::IndexedFile>, Option<&str>)> = Vec::new();
    for f in now {
        match before.get(f.path.as_str()) {
            Some(b) if b.facts == f.facts => {
                if b.module != f.module {
                    return Ok((nothing, Some(previous)));
                }
                if let Some(calls) = b.calls {
                    unchanged.push((f.path.as_str(), f.facts, calls));
                }
            }
            Some(b) => touched.push((Some(*b), Some(f.path.as_str()))),
            None => touched.push((None, Some(f.path.as_str()))),
        }
    }
    for b in previous
        .files
        .iter()
        .filter(|b| !now_paths.contains(b.path.as_str()))
    {
        touched.push((Some(b), None));
    }
    // The old skeletons of the touched paths, with their digests.
    let old_keys: Vec<FactsDigest> = touched
        .iter()
        .filter_map(|(b, _)| b.map(|b| cache::skeleton_digest(&b.facts)))
        .collect();
    let mut old: Vec<(CodeFile, cache::SkeletonDigests)> = Vec::with_capacity(old_keys.len());
    for bytes in store.cached_facts(&old_keys)? {
        match bytes.and_then(|b| cache::decode::<(CodeFile, cache::SkeletonDigests)>(&b)) {
            Some(entry) => old.push(entry),
            None => return Ok((nothing, Some(previous))),
        }
    }
    let mut old = old.iter();
    let mut changed: Vec<(Option<&CodeFile>, Option<&CodeFile>)> = Vec::new();
    for (b, a) in &touched {
        let before = match b {
            Some(_) => old.next(),
            None => None,
        };
        let after = match a {
            Some(path) => match skeleton_at.get(path) {
                Some(&i) => Some((&skeletons[i], &skeleton_digests[i])),
                // Over its parse budget now: names cannot say what it declared.
                None => return Ok((nothing, Some(previous))),
            },
            None => None,
        };
        // A file whose declarations stayed as they were resolves again alone.
        let same_declarations = matches!(
            (before, after),
            (Some((_, b)), Some((_, a))) if b.declarations == a.declarations
        );
        if !same_declarations {
            changed.push((before.map(|(f, _)| f), after.map(|(f, _)| f)));
        }
    }
    if changed.is_empty() {
        let carried = unchanged
            .into_iter()
            .map(|(p, _, k)| (p.to_string(), k))
            .collect();
        return Ok((carried, Some(previous)));
    }
    let source_of: HashMap<&str, &SourceFile> = files.iter().map(|f| (f.rel.as_str(), f)).collect();
    let text_of = |path: &str| {
        source_of
            .get(path)
            .and_then(|f| walk::read_source(f, &mut Vec::new()))
    };
    let (names, kotlin) = match invalidation::invalidation(&changed, skeletons, &text_of) {
        invalidation::Invalidation::All(reason) => {
            tracing::debug!(%reason, "every file resolves again");
            return Ok((nothing, Some(previous)));
        }
        invalidation::Invalidation::Mentioning { names, kotlin } => (names, kotlin),
    };
    tracing::debug!(
        changed = changed.len(),
        kotlin,
        names = ?names.iter().take(40).collect::<Vec<_>>(),
        "files that mention these names resolve again"
    );
    let carried: HashMap<String, FactsDigest> = unchanged
        .par_iter()
        .filter(|(path, facts, _)| {
            let Some(&i) = skeleton_at.get(path) else {
                return false;
            };
            if kotlin && skeletons[i].language == facts::Language::Kotlin {
                return false;
            }
            if names.is_empty() {
                return true;
            }
            // The text its facts were made from (else it changed since: resolved again).
            let Some(text) = text_of(path) else {
                return false;
            };
            cache::digest(path, &text) == *facts && !invalidation::mentions(&text, &names)
        })
        .map(|(path, _, calls)| (path.to_string(), *calls))
        .collect();
    Ok((carried, Some(previous)))
}

/// Which of a file's cached results the second pass read back.
struct Reused {
    calls: bool,
    findings: bool,
}

/// One code file after the parallel read: its warnings, and its text and digest when
/// readable.
type ReadSource = (Vec<Warning>, Option<(String, FactsDigest)>);

/// What the cache holds for one code file, looked up skeleton first.
enum Cached {
    /// The file's skeleton: all the first pass needs.
    Skeleton(Vec<u8>),
    /// The file's facts, whose skeleton entry is missing (lost, or unreadable): the
    /// skeleton is stripped from them and cached again.
    Facts(Vec<u8>),
    Nothing,
}

/// One code file before its facts are known: the file, its read warnings, and (when
/// readable) its text, digest and what the cache holds for it.
type CacheInput<'a> = (
    &'a SourceFile,
    Vec<Warning>,
    Option<(String, FactsDigest, Cached)>,
);

/// One code file's skeleton for the first pass: whether its facts were parsed (rather than
/// reused), and the cache entries to write for it.
struct FirstPass {
    skeleton: CodeFile,
    digests: cache::SkeletonDigests,
    parsed: bool,
    fresh: Vec<(FactsDigest, Vec<u8>)>,
}

/// One code file with its skeleton: read warnings, and its text, digest and skeleton.
type CacheOutput = (Vec<Warning>, Option<(String, FactsDigest, FirstPass)>);

/// A file's skeleton from what the cache holds: the cached skeleton; else the cached
/// facts, stripped (and the skeleton cached for the next run); else facts parsed now (both
/// cached). Bytes this build cannot read are a miss.
fn first_pass(f: &SourceFile, text: &str, digest: FactsDigest, cached: Cached) -> FirstPass {
    let facts = match cached {
        Cached::Skeleton(bytes) => match cache::decode::<(CodeFile, cache::SkeletonDigests)>(&bytes) {
            Some((skeleton, digests)) => {
                return FirstPass {
                    skeleton,
                    digests,
                    parsed: false,
                    fresh: Vec::new(),
                }
            }
            None => None,
        },
        Cached::Facts(bytes) => cache::decode(&bytes),
        Cached::Nothing => None,
    };
    let (file, parsed, mut fresh) = match facts {
        Some(file) => (file, false, Vec::new()),
        None => {
            let file = parse_code(f, text);
            let bytes = cache::encode(&file);
            (file, true, vec![(digest, bytes)])
        }
    };
    let skeleton = skeleton(file);
    let digests = cache::skeleton_digests(&skeleton);
    fresh.push((
        cache::skeleton_digest(&digest),
        cache::encode(&(&skeleton, &digests)),
    ));
    FirstPass {
        skeleton,
        digests,
        parsed,
        fresh,
    }
}

/// The facts of one code file, by the front-end of its language.
fn parse_code(f: &SourceFile, text: &str) -> CodeFile {
    lang::parse_code(f.kind, &f.rel, text).unwrap_or_default()
}

/// The code of one repository, in two passes (see the module documentation).
fn index_code(
    run: &mut Run,
    w: &mut ProductWriter,
    cache: &mut FactsCache<'_>,
    code: &Code<'_>,
) -> Result<(), IndexError> {
    let started = Instant::now();
    let sources: Vec<&SourceFile> = code.files.iter().filter(|f| f.kind.is_code()).collect();
    let mut nodes = CodeNodes::default();

    // Pass 1: declarations and content of every file; a skeleton of each for the rest.
    let mut skeletons: Vec<CodeFile> = Vec::with_capacity(sources.len());
    // The module of each skeleton's file.
    let mut skeleton_modules: Vec<copies::ModuleKey> = Vec::with_capacity(sources.len());
    // What each skeleton puts into the resolution and recognition contexts.
    let mut skeleton_digests: Vec<cache::SkeletonDigests> = Vec::with_capacity(sources.len());
    let mut knowledge = Knowledge::default();
    // Files a front-end gave up on (over its parse budget): said once, not parsed again.
    let mut over_budget: std::collections::HashSet<String> = std::collections::HashSet::new();
    // The digest of every file read, for the second pass to find its facts again.
    let mut digests: std::collections::HashMap<String, FactsDigest> = std::collections::HashMap::new();
    let store = cache.store;
    let reuse = cache.reuse;
    // Each chunk's files read, looked up and parsed on the pool while the chunk before it
    // is written here.
    let prepare = |chunk: &&[&SourceFile]| -> Result<Vec<CacheOutput>, IndexError> {
        let read: Vec<ReadSource> = chunk
            .par_iter()
            .map(|f| {
                let mut warnings = Vec::new();
                let read = walk::read_source(f, &mut warnings).map(|text| {
                    let digest = cache::digest(&f.rel, &text);
                    (text, digest)
                });
                (warnings, read)
            })
            .collect();
        let keys: Vec<FactsDigest> = read
            .iter()
            .filter_map(|(_, r)| r.as_ref().map(|(_, d)| *d))
            .collect();
        // Each file's skeleton, else (for a file whose skeleton is not cached) its facts.
        let mut cached: Vec<Cached> = Vec::with_capacity(keys.len());
        if reuse {
            let skeleton_keys: Vec<FactsDigest> = keys.iter().map(cache::skeleton_digest).collect();
            let skeletons = store.cached_facts(&skeleton_keys)?;
            let missing: Vec<FactsDigest> = keys
                .iter()
                .zip(&skeletons)
                .filter(|(_, s)| s.is_none())
                .map(|(k, _)| *k)
                .collect();
            let mut facts = store.cached_facts(&missing)?.into_iter();
            for bytes in skeletons {
                cached.push(match bytes {
                    Some(bytes) => Cached::Skeleton(bytes),
                    None => facts.next().flatten().map_or(Cached::Nothing, Cached::Facts),
                });
            }
        } else {
            cached.extend(keys.iter().map(|_| Cached::Nothing));
        }
        let mut cached = cached.into_iter();
        let inputs: Vec<CacheInput<'_>> = chunk
            .iter()
            .zip(read)
            .map(|(f, (warnings, read))| {
                let read =
                    read.map(|(text, digest)| (text, digest, cached.next().unwrap_or(Cached::Nothing)));
                (*f, warnings, read)
            })
            .collect();
        // Each file's skeleton: decoded from the cache, else stripped from its facts.
        Ok(inputs
            .into_par_iter()
            .map(|(f, warnings, read)| {
                let read = read.map(|(text, digest, cached)| {
                    let pass = first_pass(f, &text, digest, cached);
                    (text, digest, pass)
                });
                (warnings, read)
            })
            .collect())
    };
    ahead::write_one_ahead(sources.chunks(CHUNK), prepare, |chunk, parsed| {
        let mut fresh: Vec<(FactsDigest, Vec<u8>)> = Vec::new();
        let mut files: Vec<(String, CodeFile, cache::SkeletonDigests)> = Vec::with_capacity(chunk.len());
        for (f, (warnings, read)) in chunk.iter().zip(parsed) {
            run.warnings.extend(warnings);
            let Some((text, digest, pass)) = read else {
                // Never written: the loop below skips a file without a digest.
                files.push((String::new(), CodeFile::default(), Default::default()));
                continue;
            };
            if pass.parsed {
                cache.parsed += 1;
            } else {
                cache.reused += 1;
            }
            fresh.extend(pass.fresh);
            cache.used.push(digest);
            cache.used.push(cache::skeleton_digest(&digest));
            digests.insert(f.rel.clone(), digest);
            files.push((text, pass.skeleton, pass.digests));
        }
        cache.store.cache_facts(&fresh)?;
        drop(fresh);
        for (f, (text, mut file, file_digests)) in chunk.iter().zip(files) {
            if !digests.contains_key(&f.rel) {
                continue;
            }
            if let Some(reason) = &file.over_budget {
                run.warn(&f.rel, None, reason.clone());
                run.stat("files.over-budget", 1);
                over_budget.insert(f.rel.clone());
                continue;
            }
            if let Some((line, message)) = file.diagnostics.first() {
                run.warn(
                    &f.rel,
                    Some(*line as u32),
                    format!(
                        "{} syntax error(s), first: {message}; the rest of the file is indexed",
                        file.diagnostics.len()
                    ),
                );
            }
            if let Some(message) = &file.trees_cut {
                run.warn(&f.rel, None, message.clone());
                run.stat("files.expression-trees-cut", 1);
            }
            let file_node = code.file_nodes.get(&f.rel).copied();
            let module = (code.service_of)(&f.rel).map(|(id, _)| id);
            emit::code::write_file(run, w, &mut nodes, f, file_node, module, &text, &file)?;
            knowledge.collect(&file);
            file.diagnostics = Vec::new();
            skeletons.push(file);
            skeleton_modules.push(module);
            skeleton_digests.push(file_digests);
        }
        Ok(())
    })?;

    run.time("code.declarations", started.elapsed());
    let started = Instant::now();
    let dependency_types = dependency_types(run, code.builds, code.dependencies);
    let java_release = code.builds.iter().filter_map(|(_, b)| b.java_release).max();
    // Modules by name: a module's node id is the generation's, not the same from run to run.
    let module_names: Vec<Option<String>> = skeletons
        .iter()
        .map(|f| (code.service_of)(&f.path).map(|(_, name)| name.to_string()))
        .collect();
    // The symbol table and the product's types over it on one worker; on the other, what
    // every file's calls resolve against (unchanged, a file's cached calls hold), the types
    // by name and what each module declaring its own copy of a name another module
    // declares sees.
    let dependencies = &run.dependencies;
    let ((table, product_types), ((context, recognition), decls, copied)) = rayon::join(
        || {
            let table = SymbolTable::build(skeletons.iter());
            let types =
                resolve::ProductTypes::build_with(skeletons.iter(), &table, dependency_types, java_release);
            (table, types)
        },
        || {
            let context = cache::resolution_context(
                &skeletons,
                &skeleton_digests,
                &module_names,
                dependencies,
                java_release,
            );
            // Every file a recogniser may list or read: a code file by its path (what it
            // declares is in its skeleton's digest), any other by the digest of its bytes.
            let files: Vec<(&str, cache::FileDigest)> = code
                .files
                .par_iter()
                .map(|f| {
                    let digest = match f.kind.is_code() {
                        true => cache::FileDigest::Code,
                        false => match std::fs::read(&f.path) {
                            Ok(bytes) => cache::FileDigest::Bytes(cache::bytes_digest(&bytes)),
                            Err(_) => cache::FileDigest::Unreadable,
                        },
                    };
                    (f.rel.as_str(), digest)
                })
                .collect();
            let recognition = cache::recognition_context(&context, &skeletons, &skeleton_digests, &files);
            (
                (context, recognition),
                frameworks::types_by_fqn(&skeletons),
                copies::by_module(&skeletons, &skeleton_modules),
            )
        },
    );
    // The calls the last run resolved that still hold, by path: read under the last run's
    // keys (`invalidation`).
    let index_key = cache::calls_index_key(&cache.product, &code.root.display().to_string());
    let global = cache::resolution_global(dependencies, java_release);
    let indexed: Vec<invalidation::IndexedFile> = sources
        .iter()
        .filter_map(|f| {
            digests.get(&f.rel).map(|d| invalidation::IndexedFile {
                path: f.rel.clone(),
                facts: *d,
                module: (code.service_of)(&f.rel).map(|(_, name)| name.to_string()),
                calls: None,
            })
        })
        .collect();
    let (carried, previous_index) = match reuse {
        true => carried_calls(
            store,
            &index_key,
            &global,
            &skeletons,
            &skeleton_digests,
            &indexed,
            code.files,
        )?,
        false => (HashMap::new(), None),
    };
    let views: BTreeMap<copies::ModuleKey, copies::ModuleView<'_>> = copied
        .iter()
        .map(|(module, files)| {
            (
                *module,
                copies::ModuleView::new(files, &table, &product_types, &knowledge),
            )
        })
        .collect();
    if !copied.is_empty() {
        run.stat("modules.with-copied-types", copied.len() as u64);
    }
    let table_of = |module: copies::ModuleKey| views.get(&module).map_or(&table, |v| &v.table);
    emit::code::write_hierarchy(run, w, &mut nodes, &skeletons, &skeleton_modules, &table_of)?;
    let service_name = |rel: &str| (code.service_of)(rel).map(|(_, name)| name);
    let graphql = frameworks::graphql::GraphQlSchema::read(code.files, &mut run.warnings);
    let product = Product {
        table: &table,
        values: frameworks::values::Values {
            types: &decls,
            own: HashMap::new(),
            table: &table,
            resolve: code.resolve,
        },
        skeletons: &skeletons,
        files: code.files,
        knowledge: &knowledge,
        builds: code.builds,
        config: code.config_index,
        configs: code.configs,
        service_of: &service_name,
        graphql: &graphql,
    };
    let module_products: BTreeMap<copies::ModuleKey, Product<'_>> = views
        .iter()
        .map(|(module, v)| {
            (
                *module,
                product.for_module(&v.table, &v.knowledge, v.decls.clone()),
            )
        })
        .collect();
    // The lookups a file of `module` resolves and is recognised against.
    let seen_from = |module: copies::ModuleKey| match (views.get(&module), module_products.get(&module)) {
        (Some(v), Some(p)) => (&v.table, &v.types, p),
        _ => (&table, &product_types, &product),
    };

    run.time("code.symbols", started.elapsed());
    let started = Instant::now();

    // Pass 2: the files again, a chunk at a time, parsed anew (cheaper in memory than
    // keeping every body): resolve, recognise, write.
    let mut topics = Topics::default();
    let sources: Vec<&SourceFile> = sources
        .into_iter()
        .filter(|f| !over_budget.contains(&f.rel))
        .collect();
    // A file's path, its resolved calls and what the recognisers found in it: all the
    // writer needs of it. Its facts are dropped on the worker that decoded them, as soon as
    // they are recognised: freed where they were allocated, a file's many small
    // allocations go back to that thread's cache rather than across to the writer's, whose
    // frees had been over a third of its work in this pass.
    type Recognised = (
        String,
        Vec<resolve::ResolvedCall>,
        frameworks::Findings,
        frameworks::Findings,
    );
    // Each chunk's cached calls and findings read back — else its facts, to resolve and
    // recognise — on the pool, with the cache keys it used and the entries it made, while
    // the chunk before it is written here.
    type Prepared = (
        Vec<FactsDigest>,
        Vec<(Recognised, Reused, Vec<(FactsDigest, Vec<u8>)>, FactsDigest)>,
    );
    let prepare = |chunk: &&[&SourceFile]| -> Result<Prepared, IndexError> {
        // The facts the first pass parsed or reused, read back from the cache (a file
        // unreadable then is skipped now too).
        let known: Vec<(&SourceFile, FactsDigest)> = chunk
            .iter()
            .filter_map(|f| digests.get(&f.rel).map(|d| (*f, *d)))
            .collect();
        let keys: Vec<FactsDigest> = known.iter().map(|(_, d)| *d).collect();
        // Each file's calls key, then each file's findings key: looked up in one batched
        // read of the cache.
        let used: Vec<FactsDigest> = known
            .iter()
            .map(|(f, d)| {
                carried
                    .get(&f.rel)
                    .copied()
                    .unwrap_or_else(|| cache::calls_digest(&context, d))
            })
            .chain(keys.iter().map(|d| cache::findings_digest(&recognition, d)))
            .collect();
        let (cached_calls, cached_findings) = if reuse {
            let mut calls = store.cached_facts(&used)?;
            let findings = calls.split_off(keys.len());
            (calls, findings)
        } else {
            (vec![None; keys.len()], vec![None; keys.len()])
        };
        let (call_keys, finding_keys) = used.split_at(keys.len());
        // Facts are read only for the files whose calls or findings must be made again.
        let wanted: Vec<FactsDigest> = keys
            .iter()
            .zip(cached_calls.iter().zip(&cached_findings))
            .filter(|(_, (c, f))| c.is_none() || f.is_none())
            .map(|(k, _)| *k)
            .collect();
        let mut facts = store.cached_facts(&wanted)?.into_iter();
        let cached: Vec<Option<Vec<u8>>> = cached_calls
            .iter()
            .zip(&cached_findings)
            .map(|(c, f)| match c.is_none() || f.is_none() {
                true => facts.next().flatten(),
                false => None,
            })
            .collect();
        let done: Vec<_> = known
            .into_par_iter()
            .zip(cached)
            .zip(cached_calls.into_par_iter().zip(cached_findings))
            .zip(call_keys.par_iter().zip(finding_keys))
            .filter_map(
                |((((f, digest), bytes), (call_bytes, finding_bytes)), (call_key, finding_key))| {
                    let calls = match (
                        call_bytes
                            .as_deref()
                            .and_then(cache::decode::<Vec<resolve::ResolvedCall>>),
                        finding_bytes
                            .as_deref()
                            .and_then(cache::decode::<(frameworks::Findings, frameworks::Findings)>),
                    ) {
                        (Some(calls), Some((declared, called))) => {
                            // Both read back: the file's facts are not needed.
                            let reused = Reused {
                                calls: true,
                                findings: true,
                            };
                            return Some((
                                (f.rel.clone(), calls, declared, called),
                                reused,
                                Vec::new(),
                                *call_key,
                            ));
                        }
                        (calls, _) => calls,
                    };
                    let file = match bytes.as_deref().and_then(cache::decode) {
                        Some(file) => file,
                        None => {
                            // An entry lost since the first pass: parse the file again.
                            let mut already_reported = Vec::new();
                            let text = walk::read_source(f, &mut already_reported)?;
                            parse_code(f, &text)
                        }
                    };
                    let module = (code.service_of)(&f.rel).map(|(id, _)| id);
                    let (table, types, product) = seen_from(module);
                    let mut fresh = Vec::new();
                    let reused = Reused {
                        calls: calls.is_some(),
                        findings: false,
                    };
                    let (calls, calls_key) = match calls {
                        Some(calls) => (calls, *call_key),
                        None => {
                            let calls = resolve::resolve_calls_typed(&file, table, types);
                            // Under this run's context, whichever key was looked up.
                            let key = cache::calls_digest(&context, &digest);
                            fresh.push((key, cache::encode(&calls)));
                            (calls, key)
                        }
                    };
                    let findings = (
                        frameworks::declared(product, &file),
                        frameworks::calls(product, &file, &calls),
                    );
                    fresh.push((*finding_key, cache::encode(&findings)));
                    let path = file.path.clone();
                    drop(file);
                    let (declared, called) = findings;
                    Some(((path, calls, declared, called), reused, fresh, calls_key))
                },
            )
            .collect();
        Ok((used, done))
    };
    // The key each file's calls are under now, for the next run's index.
    let mut calls_keys: HashMap<String, FactsDigest> = HashMap::new();
    ahead::write_one_ahead(sources.chunks(RESOLVE_CHUNK), prepare, |_, (used, done)| {
        cache.used.extend(&used);
        let mut fresh: Vec<(FactsDigest, Vec<u8>)> = Vec::new();
        let mut recognised = Vec::with_capacity(done.len());
        for (item, reused, entries, calls_key) in done {
            // Resolved again after the key looked up missed: kept under this run's key.
            if entries.iter().any(|(key, _)| *key == calls_key) && !used.contains(&calls_key) {
                cache.used.push(calls_key);
            }
            calls_keys.insert(item.0.clone(), calls_key);
            cache.calls_reused += u64::from(reused.calls);
            cache.findings_reused += u64::from(reused.findings);
            fresh.extend(entries);
            recognised.push(item);
        }
        cache.store.cache_facts(&fresh)?;
        for (path, calls, declared, called) in recognised {
            let targets = Targets {
                types: &nodes.types,
                methods: &nodes.methods,
                config_keys: code.config_keys,
                service_of: code.service_of,
                reach: code.reach,
            };
            emit::findings::write(run, w, &mut topics, &targets, &path, declared)?;
            // Call sites a recogniser knows run nothing (a link built from a method).
            let not_calls: std::collections::HashSet<(&resolve::MethodKey, usize)> = called
                .items
                .iter()
                .filter_map(|f| match f {
                    frameworks::Finding::NotACall { caller, site } => Some((caller, *site)),
                    _ => None,
                })
                .collect();
            if !not_calls.is_empty() {
                run.stat("calls.not-calls", not_calls.len() as u64);
            }
            let calls: Vec<resolve::ResolvedCall> = calls
                .into_iter()
                .filter(|c| !not_calls.contains(&(&c.caller, c.site)))
                .collect();
            let module = (code.service_of)(&path).map(|(id, _)| id);
            emit::code::write_calls(run, w, &mut nodes, &path, module, &calls)?;
            let targets = Targets {
                types: &nodes.types,
                methods: &nodes.methods,
                config_keys: code.config_keys,
                service_of: code.service_of,
                reach: code.reach,
            };
            emit::findings::write(run, w, &mut topics, &targets, &path, called)?;
        }
        Ok(())
    })?;
    // What this run resolved each file under, for the next run (written only when it
    // differs from what the last run left).
    let index = invalidation::CallsIndex {
        global,
        files: indexed
            .into_iter()
            .map(|mut f| {
                f.calls = calls_keys.get(&f.path).copied();
                f
            })
            .collect(),
    };
    if previous_index.as_ref() != Some(&index) {
        cache.store.cache_facts(&[(index_key, cache::encode(&index))])?;
    }
    cache.used.push(index_key);
    run.time("code.calls", started.elapsed());
    let started = Instant::now();
    // What the product says as a whole: specs, descriptors, mapper files.
    let targets = Targets {
        types: &nodes.types,
        methods: &nodes.methods,
        config_keys: code.config_keys,
        service_of: code.service_of,
        reach: code.reach,
    };
    for (path, batch) in frameworks::product(&product).batches {
        emit::findings::write(run, w, &mut topics, &targets, &path, batch)?;
    }
    // Every endpoint of the repository is written: one that answers every verb is anchored
    // under each verb no endpoint of its own serves on its route, and its services' calls
    // to a concrete route of their own (`/owners/2`) find the template they fill.
    let served = std::mem::take(&mut run.served);
    let own = std::mem::take(&mut run.own_service_calls);
    emit::findings::anchor_every_verb(w, code.reach, &served)?;
    let (linked, ambiguous) = emit::routes::link_concrete(w, &served, &own)?;
    if linked > 0 {
        run.stat("http-calls.by-route-template", linked);
    }
    if ambiguous > 0 {
        run.stat("http-calls.by-route-template.ambiguous", ambiguous);
    }
    run.time("code.product", started.elapsed());
    Ok(())
}

/// A file's structure for lookups from other files: types, fields, constants, method
/// signatures and annotations, the field assignments of every method (a field set once, in
/// a constructor, is a value), constructors whole — without call sites, locals, string
/// literals or initialisers of other methods, which only the file's own pass needs. It
/// keeps the file's syntax errors and budget notes, which the first pass reports.
///
/// The first pass (emit of every declaration, what the recognisers gather) reads no more
/// than this, so a file whose skeleton is cached is never decoded whole there.
fn skeleton(mut file: CodeFile) -> CodeFile {
    for t in &mut file.types {
        // Expression trees are for resolving this file's calls, in pass 2 (a constructor's
        // call sites stay, with their receivers, but not their arguments' trees).
        for m in t.methods.iter_mut() {
            m.typed_values = Default::default();
            for c in &mut m.calls {
                c.arg_exprs.fill(Receiver::Other);
            }
        }
        for m in t.methods.iter_mut().filter(|m| m.name != "<init>") {
            // Only assignments to fields matter elsewhere ("set once, in a constructor").
            let locals = std::mem::take(&mut m.locals);
            m.assignments
                .retain(|(name, _)| !locals.iter().any(|l| l.name == *name));
            m.calls = Default::default();
            m.strings = Default::default();
            m.local_inits = Default::default();
            m.string_locals = Default::default();
        }
    }
    // A fresh copy: the parse allocated the facts among its own short-lived allocations,
    // and keeping pieces of them would pin those pages for the whole run (the copy keeps
    // the process flat; the original is freed here).
    file.clone()
}

/// Indexes the markdown pages of one wiki folder.
fn index_wiki(
    run: &mut Run,
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
    for f in files.iter().filter(|f| f.kind == SourceKind::Markdown) {
        let Some(text) = walk::read_source(f, &mut run.warnings) else {
            continue;
        };
        let page = wiki::parse_wiki_page(&f.rel, &text);
        for warning in &page.warnings {
            run.warn(&f.rel, Some(warning.line), warning.message.clone());
        }
        let lines = text.lines().count() as u32;
        emit::docs::write_wiki_page(run, w, product_node, &folder_name, f, &page, lines)?;
    }
    Ok(())
}

/// Indexes the Jira issues of this product's exports that are about this product.
///
/// Several products may list one company-wide export, and every issue is indexed once: in
/// its home product (the first its components, labels or text name) with Mentions of the
/// others; the home is the first named product that lists the export, else the first product
/// (in config order) that lists it.
fn index_jira(
    run: &mut Run,
    w: &mut ProductWriter,
    company: &Company,
    product: &ProductSource,
    product_node: NodeId,
) -> Result<(), IndexError> {
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
        let names: Vec<(String, Vec<String>)> = company
            .products
            .iter()
            .map(|p| (p.name.clone(), services_of(&p.name)))
            .collect();
        for issue in &export.issues {
            let about = jira::issue_products(issue, &names);
            // The home is the first product the issue names that lists this export.
            let home = about
                .iter()
                .find(|p| listers.contains(p))
                .or(first_lister.as_ref());
            if home != Some(&product.name) || issue.key.is_empty() {
                continue;
            }
            emit::docs::write_jira_issue(run, w, &product.name, product_node, issue, &about)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod cloud_tests;
#[cfg(test)]
mod data_tests;
#[cfg(test)]
mod http_tests;
#[cfg(test)]
mod incremental_tests;
#[cfg(test)]
mod tests;
