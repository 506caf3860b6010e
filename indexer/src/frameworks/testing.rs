//! The recognisers' test helper: a fixture of several files in (`//- /path` headers, as
//! rust-analyzer's fixtures), the findings of every recogniser out, one line each, in the
//! order emit would write them — so a test shows what a rule finds and, as much, what it
//! must not (a look-alike that gives a line is a failure).
//!
//! The fixture is written to a temporary folder and walked like a repository; the first
//! folder of a path is its module and names its service.

use std::fmt::Write as _;

use super::{ConfigIndex, Finding, Findings, Flow, Knowledge, Owner, Product};
use crate::facts::CodeFile;
use crate::lang::config::{self, ConfigScope, ParsedConfig};
use crate::lang::sql::Access;
use crate::resolve::{resolve_calls_typed, ProductTypes, SymbolTable};
use crate::walk::{self, SourceKind};

/// Runs every recogniser over `fixture` and compares the findings with `expected` (both
/// trimmed); on a difference, the message shows the whole actual output to copy.
pub(crate) fn check(fixture: &str, expected: &str) {
    let actual = findings(fixture);
    assert_eq!(
        actual.trim(),
        expected.trim(),
        "\n--- actual findings ---\n{}\n--- end ---",
        actual.trim()
    );
}

/// The findings of every recogniser over `fixture`, rendered.
pub(crate) fn findings(fixture: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in split(fixture) {
        let full = dir.path().join(&path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).expect("fixture folder");
        }
        std::fs::write(&full, text).expect("fixture file");
    }
    let repo = Repo::read(dir.path());
    repo.with_product(&repo.code, |product, table, types| {
        let mut out = String::new();
        for f in &repo.code {
            render(&mut out, &repo.index, super::declared(product, f));
            let calls = resolve_calls_typed(f, table, types);
            render(&mut out, &repo.index, super::calls(product, f, &calls));
        }
        for (_, batch) in super::product(product).batches {
            render(&mut out, &repo.index, batch);
        }
        out
    })
}

/// A repository folder read as the pipeline reads one, for the recognisers: its files,
/// config, builds and every code file's facts. The first folder of a path is its module
/// and names its service.
pub(crate) struct Repo {
    pub(crate) files: Vec<walk::SourceFile>,
    pub(crate) configs: Vec<ParsedConfig>,
    pub(crate) index: ConfigIndex,
    pub(crate) code: Vec<CodeFile>,
    pub(crate) builds: Vec<(String, crate::lang::build::BuildFile)>,
    pub(crate) graphql: super::graphql::GraphQlSchema,
}

fn module(rel: &str) -> String {
    rel.split('/').next().unwrap_or("").to_string()
}

impl Repo {
    pub(crate) fn read(dir: &std::path::Path) -> Repo {
        let mut warnings = Vec::new();
        let files = walk::walk_repo(dir, &mut warnings);
        let configs = config::read_configs(&files, &mut warnings);
        let mut index = ConfigIndex::new(files.iter().map(|f| module(&f.rel)).collect());
        for c in &configs {
            index.add(
                &c.file.rel,
                c.parsed.kind,
                &module(&c.file.rel),
                c.parsed.entries.iter().map(|e| e.key.as_str()),
            );
        }
        let mut code: Vec<CodeFile> = Vec::new();
        for f in files.iter().filter(|f| f.kind.is_code()) {
            if let Some(text) = walk::read_source(f, &mut warnings) {
                code.extend(crate::lang::parse_code(f.kind, &f.rel, &text));
            }
        }
        let builds = files
            .iter()
            .filter(|f| f.kind == SourceKind::BuildFile)
            .filter_map(|f| {
                let kind = crate::lang::build::build_kind(&f.rel)?;
                let text = walk::read_source(f, &mut Vec::new())?;
                let dir = f
                    .rel
                    .rsplit_once('/')
                    .map(|(d, _)| d.to_string())
                    .unwrap_or_default();
                Some((dir, crate::lang::build::parse_build_file(kind, &text)))
            })
            .collect();
        let graphql = super::graphql::GraphQlSchema::read(&files, &mut warnings);
        Repo {
            files,
            configs,
            index,
            code,
            builds,
            graphql,
        }
    }

    /// Runs `f` with the product whose code files are `code` (this repository's, or
    /// changed copies of them), its symbol table and its types.
    pub(crate) fn with_product<R>(
        &self,
        code: &[CodeFile],
        f: impl FnOnce(&Product<'_>, &SymbolTable, &ProductTypes) -> R,
    ) -> R {
        let env: Vec<&ParsedConfig> = self
            .configs
            .iter()
            .filter(|c| c.parsed.kind == config::ConfigKind::Env)
            .collect();
        let resolve = |rel: &str, value: &str| -> String {
            let in_module: Vec<&ParsedConfig> = self
                .configs
                .iter()
                .filter(|c| module(&c.file.rel) == module(rel))
                .collect();
            ConfigScope::new(&in_module, &env).resolve(value)
        };
        let mut knowledge = Knowledge::default();
        for file in code {
            knowledge.collect(file);
        }
        let table = SymbolTable::build(code.iter());
        let types = ProductTypes::build(code.iter(), &table);
        let service_of = |rel: &str| Some(module(rel));
        let product = Product {
            table: &table,
            values: super::values::Values {
                types: &super::types_by_fqn(code),
                own: Default::default(),
                table: &table,
                resolve: &resolve,
            },
            skeletons: code,
            files: &self.files,
            knowledge: &knowledge,
            builds: &self.builds,
            config: &self.index,
            configs: &self.configs,
            service_of: &service_of,
            graphql: &self.graphql,
        };
        f(&product, &table, &types)
    }
}

/// `//- /path` sections of a fixture.
fn split(fixture: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in fixture.lines() {
        if let Some(p) = line.trim().strip_prefix("//- ") {
            out.push((p.trim().trim_start_matches('/').to_string(), String::new()));
        } else if let Some((_, text)) = out.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    out
}

fn owner(o: &Owner) -> String {
    match o {
        Owner::Type(fqn) => fqn.clone(),
        Owner::Method(k) => format!("{}.{}", k.type_fqn, k.name),
    }
}

fn render(out: &mut String, index: &ConfigIndex, f: Findings) {
    for item in f.items {
        let _ = match item {
            Finding::Endpoint(e) => writeln!(
                out,
                "endpoint {} {} {} {}{} ({}:{})",
                e.verb,
                e.path,
                e.kind,
                e.handler_name,
                e.before
                    .iter()
                    .map(|k| format!(" after {}.{}", k.type_fqn, k.name))
                    .collect::<String>(),
                e.file,
                e.lines.0
            ),
            Finding::EntryPoint(e) => writeln!(
                out,
                "entry {} {} {} ({}:{})",
                e.kind, e.trigger, e.handler_name, e.file, e.lines.0
            ),
            Finding::HttpCall(c) => writeln!(
                out,
                "http {} {} {} {} url={} by {}{}{}{}{}{} ({}:{})",
                c.verb,
                c.target,
                c.path,
                c.client,
                c.url,
                c.caller_name,
                if c.links { " linked" } else { "" },
                c.port.map(|p| format!(" port={p}")).unwrap_or_default(),
                if c.external { " external" } else { "" },
                if c.unresolved.is_some() { " unresolved" } else { "" },
                if c.test { " test" } else { "" },
                c.file,
                c.lines.0
            ),
            Finding::Topic(t) => writeln!(
                out,
                "topic {} {}:{}{} by {}.{}",
                match t.flow {
                    Flow::Consumes => "consumes",
                    Flow::Produces => "produces",
                },
                t.broker,
                t.topic,
                t.scope.as_deref().map(|s| format!(" in {s}")).unwrap_or_default(),
                t.method.type_fqn,
                t.method.name
            ),
            Finding::Table(u) => writeln!(
                out,
                "table {} {} by {} via {} (line {})",
                if u.access == Access::Write {
                    "write"
                } else {
                    "read"
                },
                u.table,
                owner(&u.owner),
                u.via,
                u.line
            ),
            Finding::TableUnknown { line, reason } => writeln!(out, "table? {reason} (line {line})"),
            Finding::SqlUnparsed { line } => writeln!(out, "sql-unparsed (line {line})"),
            Finding::EntityTable(e) => writeln!(out, "maps {} -> {}", e.entity, e.table),
            Finding::Config(c) => writeln!(
                out,
                "config {} -> {} via {}",
                owner(&c.owner),
                index.key(c.key),
                c.via
            ),
            Finding::ConfigUnmatched(u) => writeln!(
                out,
                "config? {}{}",
                u.key,
                if u.defaulted { " (defaulted)" } else { "" }
            ),
            Finding::Gateway(g) => {
                // A route's second and later targets are indented under its first.
                for (i, t) in g.targets.iter().enumerate() {
                    if i > 0 {
                        out.push_str("  ");
                    }
                    let (shape, to) = match &t.forward {
                        super::Forward::Prefix(p) => ("prefix", p),
                        super::Forward::Exact(p) => ("exact", p),
                    };
                    let _ = writeln!(
                        out,
                        "gateway {} {} {} -> {}{}{}{} {shape} {to} by {} ({}:{})",
                        g.id,
                        if g.verbs.is_empty() {
                            "ANY".to_string()
                        } else {
                            g.verbs.join(",")
                        },
                        g.path,
                        t.target,
                        t.port.map(|p| format!(" port={p}")).unwrap_or_default(),
                        if t.external { " external" } else { "" },
                        if t.unresolved.is_some() { " unresolved" } else { "" },
                        match &g.declared_by {
                            super::RouteSource::Config(_) => "config".to_string(),
                            super::RouteSource::Method(k) => format!("{}.{}", k.type_fqn, k.name),
                        },
                        g.file,
                        g.line
                    );
                }
                Ok(())
            }
            Finding::MethodSql { method, .. } => writeln!(out, "sql {}.{}", method.type_fqn, method.name),
            Finding::NotACall { caller, site } => {
                writeln!(out, "not-a-call {}.{} #{site}", caller.type_fqn, caller.name)
            }
        };
    }
    for w in f.warnings {
        let _ = match w.line {
            Some(l) => writeln!(out, "warning {}:{l}: {}", w.file, w.message),
            None => writeln!(out, "warning {}: {}", w.file, w.message),
        };
    }
}
