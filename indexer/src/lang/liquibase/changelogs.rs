//! A repository's changelogs as Liquibase runs them: which are masters, what they include,
//! in which order their changesets apply.
//!
//! The master of a module is the changelog its Spring Boot config names
//! (`spring.liquibase.change-log`, `classpath:` resolved against the module's
//! `src/main/resources`), else Spring Boot's default `db/changelog/db.changelog-master.*`;
//! a module with neither has as masters its changelogs that no other changelog includes.
//! A changelog of a module with a master that the master never reaches is not applied
//! (and said so): deploying the module would not run it. `include` resolves relative to
//! the including changelog (`relativeToChangelogFile`) or the classpath root, then the
//! repository root; `includeAll` takes the changelog files under a folder, sorted by path
//! as Liquibase's default comparator does; a plain `.sql` file included is one changeset
//! (`raw`, as Liquibase reads it). Each changelog is applied once, at its first include.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::changes::{self, Expander, Step};
use super::{formatted, Body, ChangeSet, Changelog, Entry, Format};
use crate::lang::sql::{self, ChangeSetRef, Origin, Schema, SqlDialect};

/// How a module's config answers a key: its value, placeholders resolved.
pub(crate) type ConfigLookup<'a> = Box<dyn Fn(&str) -> Option<String> + 'a>;

/// A deployable module: its folder and how its config answers a key.
pub(crate) struct ModuleChangelogs<'a> {
    /// The module's folder relative to the repository root (`""` for the root).
    pub(crate) dir: &'a str,
    /// The module's config: the value of a key, placeholders resolved.
    pub(crate) config: &'a dyn Fn(&str) -> Option<String>,
}

/// Config keys naming the master changelog (relaxed binding's spellings).
const CHANGE_LOG_KEYS: &[&str] = &[
    "spring.liquibase.change-log",
    "spring.liquibase.changeLog",
    "spring.liquibase.change_log",
];

/// Spring Boot's default master changelog, under the classpath root.
const DEFAULT_MASTER: &str = "db/changelog/db.changelog-master";

/// One thing to apply, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Visit {
    /// A changelog's properties become known (before its first changeset).
    Properties(String),
    /// Changeset `entry` of changelog `file`.
    ChangeSet(String, usize),
    /// A plain `.sql` file included as a changeset.
    Raw(String),
}

/// The walk of every master, and what it found.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// Per master, in order: the module it belongs to (index into the modules) and what it
    /// applies.
    masters: Vec<(String, Option<usize>, Vec<Visit>)>,
    /// Plain `.sql` files a changelog runs (`include`, `includeAll`, `sqlFile`): they are
    /// not scripts of their own.
    pub(crate) used_sql: BTreeSet<String>,
    /// Warnings: file, line (0: none), message.
    pub(crate) warnings: Vec<(String, u32, String)>,
}

/// What applying the changelogs did.
#[derive(Debug, Default)]
pub(crate) struct Applied {
    /// Changesets applied.
    pub(crate) changesets: u64,
    /// Schema facts applied.
    pub(crate) statements: u64,
    /// Warnings: file, line (0: none), message.
    pub(crate) warnings: Vec<(String, u32, String)>,
}

/// The module a file belongs to: the deepest module folder holding it.
fn module_of(modules: &[ModuleChangelogs<'_>], rel: &str) -> Option<usize> {
    modules
        .iter()
        .enumerate()
        .filter(|(_, m)| m.dir.is_empty() || rel.starts_with(&format!("{}/", m.dir)))
        .max_by_key(|(_, m)| m.dir.len())
        .map(|(i, _)| i)
}

/// The classpath root of a module (`src/main/resources/`, under its folder).
fn classpath_root(dir: &str) -> String {
    if dir.is_empty() {
        "src/main/resources/".to_owned()
    } else {
        format!("{dir}/src/main/resources/")
    }
}

/// `a/b/../c/./d` → `a/c/d`; `None` when it climbs out of the repository.
fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

fn strip_classpath(path: &str) -> &str {
    let path = path.trim();
    let path = path
        .strip_prefix("classpath*:")
        .or_else(|| path.strip_prefix("classpath:"))
        .or_else(|| path.strip_prefix("file:"))
        .unwrap_or(path);
    path.trim_start_matches('/')
}

fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The places a path written in `from` (a changelog of module `module`) may name, in the
/// order they are tried.
fn candidates(path: &str, relative: bool, from: &str, module: Option<&ModuleChangelogs<'_>>) -> Vec<String> {
    let written = strip_classpath(path);
    let beside = format!("{}/{written}", dir_of(from));
    let mut out = Vec::new();
    if relative {
        out.extend(normalise(&beside));
        return out;
    }
    if let Some(m) = module {
        out.extend(normalise(&format!("{}{written}", classpath_root(m.dir))));
    }
    out.extend(normalise(written));
    out.extend(normalise(&beside));
    out
}

/// Inputs of the walk.
pub(crate) struct Sources<'a> {
    /// Every changelog of the repository (test resources aside), by path.
    pub(crate) changelogs: &'a BTreeMap<String, Changelog>,
    /// Every file of the repository, by path (to resolve includes and list folders).
    pub(crate) paths: &'a BTreeSet<String>,
    /// The deployable modules.
    pub(crate) modules: &'a [ModuleChangelogs<'a>],
}

impl Sources<'_> {
    /// The first candidate of `path` that exists.
    fn resolve(&self, path: &str, relative: bool, from: &str) -> Option<String> {
        let module = module_of(self.modules, from).map(|i| &self.modules[i]);
        candidates(path, relative, from, module)
            .into_iter()
            .find(|c| self.paths.contains(c))
    }

    /// The folder `path` names, when files lie under it.
    fn resolve_dir(&self, path: &str, relative: bool, from: &str) -> Option<String> {
        let module = module_of(self.modules, from).map(|i| &self.modules[i]);
        candidates(path, relative, from, module).into_iter().find(|c| {
            let prefix = format!("{c}/");
            self.paths
                .range(prefix.clone()..)
                .next()
                .is_some_and(|p| p.starts_with(&prefix))
        })
    }

    /// The changelog files under `dir`, sorted by path.
    fn under(&self, dir: &str) -> Vec<String> {
        let prefix = format!("{dir}/");
        self.paths
            .range(prefix.clone()..)
            .take_while(|p| p.starts_with(&prefix))
            .filter(|p| Format::of(p).is_some())
            .cloned()
            .collect()
    }

    /// What a changelog includes, resolved: (file, line of the include).
    fn includes(&self, file: &str, warnings: &mut Vec<(String, u32, String)>) -> Vec<(String, u32)> {
        let Some(log) = self.changelogs.get(file) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for entry in &log.entries {
            match entry {
                Entry::Include {
                    file: path,
                    relative,
                    line,
                } => match self.resolve(path, *relative, file) {
                    Some(target) => out.push((target, *line)),
                    None => warnings.push((
                        file.to_owned(),
                        *line,
                        format!("include `{path}`: no such file in the repository"),
                    )),
                },
                Entry::IncludeAll { path, relative, line } => match self.resolve_dir(path, *relative, file) {
                    Some(dir) => out.extend(
                        self.under(&dir)
                            .into_iter()
                            .filter(|f| f != file)
                            .map(|f| (f, *line)),
                    ),
                    None => warnings.push((
                        file.to_owned(),
                        *line,
                        format!("includeAll `{path}`: no such folder in the repository"),
                    )),
                },
                Entry::ChangeSet(_) => {}
            }
        }
        out
    }
}

/// Finds the masters and walks their includes.
pub(crate) fn plan(sources: &Sources<'_>) -> Plan {
    let mut plan = Plan::default();
    let mut masters: Vec<String> = Vec::new();
    let mut has_master = vec![false; sources.modules.len()];
    for (i, m) in sources.modules.iter().enumerate() {
        let configured = CHANGE_LOG_KEYS.iter().find_map(|k| (m.config)(k));
        let root = classpath_root(m.dir);
        let found = match &configured {
            Some(value) => {
                let path = normalise(&format!("{root}{}", strip_classpath(value)));
                let found = path.filter(|p| sources.changelogs.contains_key(p));
                if found.is_none() {
                    plan.warnings.push((
                        root.clone(),
                        0,
                        format!("spring.liquibase.change-log names `{value}`, which is no changelog of the repository"),
                    ));
                }
                found
            }
            None => ["yaml", "yml", "xml", "json", "sql"]
                .iter()
                .map(|ext| format!("{root}{DEFAULT_MASTER}.{ext}"))
                .find(|p| sources.changelogs.contains_key(p)),
        };
        if let Some(master) = found {
            has_master[i] = true;
            if !masters.contains(&master) {
                masters.push(master);
            }
        }
    }
    // Changelogs no other includes are masters of the modules that have none.
    let mut scratch = Vec::new();
    let included: BTreeSet<String> = sources
        .changelogs
        .keys()
        .flat_map(|f| sources.includes(f, &mut scratch))
        .map(|(f, _)| f)
        .collect();
    let mut orphans = Vec::new();
    for file in sources.changelogs.keys() {
        if included.contains(file) {
            continue;
        }
        let module = module_of(sources.modules, file);
        if module.is_some_and(|m| has_master[m]) {
            orphans.push(file.clone());
        } else if !masters.contains(file) {
            masters.push(file.clone());
        }
    }
    let mut applied: BTreeSet<String> = BTreeSet::new();
    for master in masters {
        let module = module_of(sources.modules, &master);
        let mut visits = Vec::new();
        walk(sources, &master, &mut applied, &mut visits, &mut plan, 0);
        plan.masters.push((master, module, visits));
    }
    for file in orphans {
        if !applied.contains(&file) {
            plan.warnings.push((
                file,
                0,
                "changelog that no master changelog reaches: not applied".to_owned(),
            ));
        }
    }
    plan
}

/// Includes nest at most this deep (a changelog including itself through others is
/// stopped by the applied set first).
const MAX_INCLUDE_DEPTH: usize = 64;

fn walk(
    sources: &Sources<'_>,
    file: &str,
    applied: &mut BTreeSet<String>,
    visits: &mut Vec<Visit>,
    plan: &mut Plan,
    depth: usize,
) {
    if depth > MAX_INCLUDE_DEPTH || !applied.insert(file.to_owned()) {
        return;
    }
    let Some(log) = sources.changelogs.get(file) else {
        // A plain script included as a changelog: one raw changeset.
        if file.to_ascii_lowercase().ends_with(".sql") {
            plan.used_sql.insert(file.to_owned());
            visits.push(Visit::Raw(file.to_owned()));
        } else {
            plan.warnings.push((
                file.to_owned(),
                0,
                "included as a changelog but it is none (no `databaseChangeLog`)".to_owned(),
            ));
        }
        return;
    };
    visits.push(Visit::Properties(file.to_owned()));
    let mut includes = sources.includes(file, &mut plan.warnings).into_iter().peekable();
    // Includes are resolved in entry order; pair them back with their entries by line.
    for (i, entry) in log.entries.iter().enumerate() {
        match entry {
            Entry::ChangeSet(cs) => {
                for path in sql_files(cs) {
                    if let Some(target) = sources.resolve(&path.0, path.1, file) {
                        plan.used_sql.insert(target);
                    }
                }
                visits.push(Visit::ChangeSet(file.to_owned(), i));
            }
            Entry::Include { line, .. } | Entry::IncludeAll { line, .. } => {
                while let Some((target, _)) = includes.next_if(|(_, l)| l == line) {
                    walk(sources, &target, applied, visits, plan, depth + 1);
                }
            }
        }
    }
}

/// The `sqlFile` paths of a changeset, as written, with `relativeToChangelogFile`.
fn sql_files(cs: &ChangeSet) -> Vec<(String, bool)> {
    match &cs.body {
        Body::Changes(changes) => changes
            .iter()
            .filter(|c| c.name == "sqlFile")
            .filter_map(|c| Some((c.attr("path")?.to_owned(), c.flag("relativeToChangelogFile"))))
            .collect(),
        Body::Sql { .. } => Vec::new(),
    }
}

/// Applies every master's changesets into `schema`, in order. `sql_texts` holds the text
/// of every plain `.sql` file the plan uses.
pub(crate) fn apply_changelogs(
    plan: &Plan,
    sources: &Sources<'_>,
    sql_texts: &HashMap<String, String>,
    schema: &mut Schema,
) -> Applied {
    let mut out = Applied::default();
    out.warnings.extend(plan.warnings.iter().cloned());
    let no_config = |_: &str| -> Option<String> { None };
    for (master, module, visits) in &plan.masters {
        let config: &dyn Fn(&str) -> Option<String> = match module {
            Some(m) => sources.modules[*m].config,
            None => &no_config,
        };
        let mut expander = Expander::new(config);
        for visit in visits {
            match visit {
                Visit::Properties(file) => {
                    if let Some(log) = sources.changelogs.get(file) {
                        expander.add(&log.properties);
                        for w in &log.warnings {
                            out.warnings.push((file.clone(), w.line, w.message.clone()));
                        }
                    }
                }
                Visit::ChangeSet(file, i) => {
                    let Some(Entry::ChangeSet(cs)) =
                        sources.changelogs.get(file).and_then(|l| l.entries.get(*i))
                    else {
                        continue;
                    };
                    apply_changeset(file, cs, &expander, sources, sql_texts, schema, &mut out);
                }
                Visit::Raw(file) => {
                    let Some(text) = sql_texts.get(file) else {
                        continue;
                    };
                    let cs = formatted::raw_changeset(file, text);
                    apply_changeset(file, &cs, &expander, sources, sql_texts, schema, &mut out);
                }
            }
        }
        for name in expander.unresolved.borrow().iter() {
            out.warnings.push((
                master.clone(),
                0,
                format!(
                    "Liquibase property `{name}` has no single value in the sources (undefined, or one per dbms or context): `${{{name}}}` left as written"
                ),
            ));
        }
    }
    out
}

fn apply_changeset(
    file: &str,
    cs: &ChangeSet,
    x: &Expander<'_>,
    sources: &Sources<'_>,
    sql_texts: &HashMap<String, String>,
    schema: &mut Schema,
    out: &mut Applied,
) {
    let h = &cs.header;
    let changeset = ChangeSetRef {
        id: h.id.clone(),
        author: h.author.clone(),
        dbms: h.dbms.clone(),
        context: h.context.clone(),
        labels: h.labels.clone(),
    };
    let origin = Origin {
        file: file.to_owned(),
        changeset: Some(changeset.clone()),
    };
    schema.set_origin(origin.clone());
    out.changesets += 1;
    let sql_step = |schema: &mut Schema,
                    out: &mut Applied,
                    at: &str,
                    text: &str,
                    dialect: Option<SqlDialect>,
                    offset: u32| {
        let dialect = dialect.unwrap_or_else(|| sql::detect_dialect(at, text));
        let mut parsed = sql::parse_schema_file(at, text, dialect);
        sql::shift_lines(&mut parsed, offset);
        for w in &parsed.warnings {
            out.warnings.push((at.to_owned(), w.line, w.message.clone()));
        }
        out.statements += parsed.statements.len() as u64;
        schema.absorb(parsed);
    };
    match &cs.body {
        Body::Sql {
            text,
            dialect,
            offset,
        } => {
            let text = x.expand(text);
            sql_step(schema, out, file, &text, Some(*dialect), *offset);
        }
        Body::Changes(changes) => {
            let read = changes::read(changes, h.dbms.as_deref(), x, &cs.source);
            for w in read.warnings {
                out.warnings.push((file.to_owned(), w.line, w.message));
            }
            let mut unsupported: Vec<String> = read.unsupported;
            unsupported.sort();
            unsupported.dedup();
            for change in unsupported {
                out.warnings.push((
                    file.to_owned(),
                    h.line,
                    format!("changeset {}: change `{change}` is not read", h.id),
                ));
            }
            for step in read.steps {
                match step {
                    Step::Statement(statement, line) => {
                        out.statements += 1;
                        schema.apply_at(*statement, line);
                    }
                    Step::Sql {
                        text,
                        dialect,
                        offset,
                    } => sql_step(schema, out, file, &text, dialect, offset),
                    Step::SqlFile {
                        path,
                        relative,
                        dialect,
                        line,
                    } => {
                        let Some(target) = sources.resolve(&path, relative, file) else {
                            out.warnings.push((
                                file.to_owned(),
                                line,
                                format!("sqlFile `{path}`: no such file in the repository"),
                            ));
                            continue;
                        };
                        let Some(text) = sql_texts.get(&target) else {
                            continue;
                        };
                        let text = x.expand(text);
                        // Its statements are placed in the script, under the changeset.
                        schema.set_origin(Origin {
                            file: target.clone(),
                            changeset: Some(changeset.clone()),
                        });
                        sql_step(schema, out, &target, &text, dialect, 0);
                        schema.set_origin(origin.clone());
                    }
                    Step::Note { table, what, line } => schema.note(&table, line, &what),
                }
            }
        }
    }
}
