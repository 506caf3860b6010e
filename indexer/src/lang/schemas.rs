//! A repository's schema from every source that defines one: plain SQL scripts (init
//! scripts, one per dialect, and Flyway folders in version order) first, then the
//! Liquibase changelogs of its modules, changeset by changeset — all into one
//! [`Schema`], each object and each table change placed in its file and changeset.
//!
//! A `.sql` file is a script unless it is a formatted-SQL changelog or a changelog runs it
//! (`include`, `includeAll`, `sqlFile`): then it is applied where the changelog says, once.
//! Test resources are not the application's schema and are left out.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use rayon::prelude::*;
use semgraph_storage::Warning;

use crate::lang::liquibase::{self, ModuleChangelogs};
use crate::lang::sql::{self, Schema};
use crate::walk::{self, SourceFile, SourceKind};

/// The schema of one repository and what reading it said.
#[derive(Default)]
pub(crate) struct RepositorySchema {
    pub(crate) schema: Schema,
    /// Statements (and Liquibase changes) read.
    pub(crate) statements: u64,
    /// Liquibase changesets applied.
    pub(crate) changesets: u64,
    /// Liquibase changelogs read.
    pub(crate) changelogs: u64,
    pub(crate) warnings: Vec<Warning>,
}

/// What a file may be to the schema, once read.
enum Read {
    /// A changelog.
    Changelog(liquibase::Changelog),
    /// A plain `.sql` script (its text is read again when applied).
    Script,
    /// Neither.
    Other,
}

fn warning(file: &str, line: u32, message: String) -> Warning {
    Warning {
        file: file.to_owned(),
        line: Some(line).filter(|&l| l > 0),
        message,
    }
}

/// Reads, parses and replays the scripts and changelogs among `files`; `modules` are the
/// repository's deployable modules with their config (for the master changelog and
/// Liquibase parameters).
pub(crate) fn read_repository_schema(
    files: &[SourceFile],
    modules: &[ModuleChangelogs<'_>],
) -> RepositorySchema {
    let main: Vec<&SourceFile> = files.iter().filter(|f| !f.rel.contains("src/test/")).collect();
    let candidates: Vec<&SourceFile> = main
        .iter()
        .copied()
        .filter(|f| {
            matches!(f.kind, SourceKind::Sql | SourceKind::Xml | SourceKind::Yaml)
                && liquibase::Format::of(&f.rel).is_some()
        })
        .collect();
    let read: Vec<(&SourceFile, Vec<Warning>, Read)> = candidates
        .par_iter()
        .map(|file| {
            let mut warnings = Vec::new();
            if file.kind == SourceKind::Sql && !might_be_formatted(file) {
                return (*file, warnings, Read::Script);
            }
            let read = match walk::read_source(file, &mut warnings) {
                Some(text) => match liquibase::parse_changelog(&file.rel, &text) {
                    Some(log) => Read::Changelog(log),
                    None if file.kind == SourceKind::Sql => Read::Script,
                    None => Read::Other,
                },
                None if file.kind == SourceKind::Sql => Read::Script,
                None => Read::Other,
            };
            (*file, warnings, read)
        })
        .collect();
    let mut out = RepositorySchema::default();
    let mut changelogs: BTreeMap<String, liquibase::Changelog> = BTreeMap::new();
    let mut scripts: Vec<&SourceFile> = Vec::new();
    for (file, mut warnings, read) in read {
        match read {
            Read::Changelog(log) => {
                changelogs.insert(file.rel.clone(), log);
            }
            // A script's read warnings come when it is applied.
            Read::Script => scripts.push(file),
            Read::Other => out.warnings.append(&mut warnings),
        }
    }
    let paths: BTreeSet<String> = main.iter().map(|f| f.rel.clone()).collect();
    let sources = liquibase::Sources {
        changelogs: &changelogs,
        paths: &paths,
        modules,
    };
    let plan = if changelogs.is_empty() {
        liquibase::Plan::default()
    } else {
        liquibase::plan(&sources)
    };
    let plain: Vec<&SourceFile> = scripts
        .into_iter()
        .filter(|f| !plan.used_sql.contains(&f.rel))
        .collect();
    let replayed = sql::replay_scripts(&plain, &mut out.schema);
    out.statements += replayed.statements;
    out.warnings.extend(replayed.warnings);
    if !changelogs.is_empty() {
        let by_rel: HashMap<&str, &SourceFile> = main.iter().map(|f| (f.rel.as_str(), *f)).collect();
        let mut sql_texts: HashMap<String, String> = HashMap::new();
        for rel in &plan.used_sql {
            let Some(file) = by_rel.get(rel.as_str()) else {
                continue;
            };
            if let Some(text) = walk::read_source(file, &mut out.warnings) {
                sql_texts.insert(rel.clone(), text);
            }
        }
        let applied = liquibase::apply_changelogs(&plan, &sources, &sql_texts, &mut out.schema);
        out.changelogs = changelogs.len() as u64;
        out.changesets = applied.changesets;
        out.statements += applied.statements;
        out.warnings
            .extend(applied.warnings.into_iter().map(|(f, l, m)| warning(&f, l, m)));
    }
    out.schema.finish();
    out
}

/// Whether a `.sql` file may be a formatted-SQL changelog: its first bytes are read (the
/// header must open the file), so plain scripts are read once, when applied.
fn might_be_formatted(file: &SourceFile) -> bool {
    use std::io::Read as _;
    // Opening a named pipe would block: only a regular file is opened.
    if !std::fs::symlink_metadata(&file.path).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let Ok(f) = std::fs::File::open(&file.path) else {
        // Unreadable: the replay says why.
        return false;
    };
    let mut head = Vec::with_capacity(1024);
    if f.take(1024).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    // A header cut at 1 KB still shows its first words.
    text.to_ascii_lowercase().contains("liquibase")
}
