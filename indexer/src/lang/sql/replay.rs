//! A repository's SQL scripts replayed into one schema: every script parsed in parallel,
//! then applied in Flyway order, each file as the origin of what it makes, so a later
//! `ALTER TABLE` changes the table the graph shows and the table's history says which file
//! did.

use rayon::prelude::*;
use semgraph_storage::Warning;

use super::{detect_dialect, flyway_order, parse_schema_file, Origin, Schema, SchemaFile};
use crate::walk::{self, SourceFile};

/// What replaying the scripts said.
#[derive(Default)]
pub(crate) struct ScriptsRead {
    /// Statements read.
    pub(crate) statements: u64,
    pub(crate) warnings: Vec<Warning>,
}

/// Reads, parses and applies `scripts` into `schema`, in Flyway order.
pub(crate) fn replay_scripts(scripts: &[&SourceFile], schema: &mut Schema) -> ScriptsRead {
    let order = flyway_order(&scripts.iter().map(|f| f.rel.clone()).collect::<Vec<_>>());
    let by_rel: std::collections::HashMap<&str, &SourceFile> =
        scripts.iter().map(|f| (f.rel.as_str(), *f)).collect();
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
    let mut out = ScriptsRead::default();
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
        out.statements += parsed.statements.len() as u64;
        schema.set_origin(Origin {
            file: file.rel.clone(),
            changeset: None,
        });
        schema.absorb(parsed);
    }
    out
}
