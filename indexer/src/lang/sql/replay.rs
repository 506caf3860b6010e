//! A repository's SQL scripts replayed into one schema: every script (test resources
//! aside) parsed in parallel, then applied in Flyway order, so a later `ALTER TABLE`
//! changes the table the graph shows.

use std::collections::HashMap;

use rayon::prelude::*;
use semgraph_storage::{keys, Warning};

use super::{detect_dialect, flyway_order, parse_schema_file, Schema, SchemaFile, SchemaStatement};
use crate::walk::{self, SourceFile, SourceKind};

/// The schema of one repository and what reading it said.
#[derive(Default)]
pub(crate) struct RepositorySchema {
    pub(crate) schema: Schema,
    /// The file each table, view, trigger and routine was created in, by normalised name.
    pub(crate) placed: HashMap<String, String>,
    /// Statements read.
    pub(crate) statements: u64,
    pub(crate) warnings: Vec<Warning>,
}

/// Reads, parses and replays the SQL scripts among `files`.
pub(crate) fn read_repository_schema(files: &[SourceFile]) -> RepositorySchema {
    let scripts: Vec<&SourceFile> = files
        .iter()
        .filter(|f| f.kind == SourceKind::Sql && !f.rel.contains("src/test/"))
        .collect();
    let order = flyway_order(&scripts.iter().map(|f| f.rel.clone()).collect::<Vec<_>>());
    let by_rel: HashMap<&str, &SourceFile> = scripts.iter().map(|f| (f.rel.as_str(), *f)).collect();
    // Files are read and parsed in parallel (each also parses its statements in parallel);
    // only applying them to the schema needs Flyway order.
    let parsed: Vec<(&SourceFile, Vec<Warning>, Option<SchemaFile>)> = order
        .par_iter()
        .filter_map(|rel| by_rel.get(rel.as_str()).copied())
        .map(|file| {
            let mut warnings = Vec::new();
            let parsed = walk::read_source(file, &mut warnings).map(|text| {
                let dialect = detect_dialect(&file.rel, &text);
                parse_schema_file(&file.rel, &text, dialect)
            });
            (file, warnings, parsed)
        })
        .collect();
    let mut out = RepositorySchema::default();
    for (file, mut warnings, parsed) in parsed {
        out.warnings.append(&mut warnings);
        let Some(parsed) = parsed else {
            continue;
        };
        for warning in &parsed.warnings {
            out.warnings.push(Warning {
                file: file.rel.clone(),
                line: Some(warning.line).filter(|&l| l > 0),
                message: warning.message.clone(),
            });
        }
        for statement in &parsed.statements {
            let name = match statement {
                SchemaStatement::CreateTable(t) => Some(&t.name),
                SchemaStatement::CreateView(v) => Some(&v.name),
                SchemaStatement::CreateTrigger(t) => Some(&t.name),
                SchemaStatement::CreateRoutine(r) => Some(&r.name),
                _ => None,
            };
            if let Some(name) = name {
                out.placed.insert(keys::table_name(name), file.rel.clone());
            }
        }
        out.statements += parsed.statements.len() as u64;
        out.schema.absorb(parsed);
    }
    out
}
