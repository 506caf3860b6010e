//! Conventions no one has to remember: every Rust file opens with a `//!` paragraph saying
//! why it exists; no `dbg!`, `todo!`, `unimplemented!` or ignored tests; and the layers
//! point one way (storage knows nothing of parsers, HTTP or MCP; queries never import the
//! indexer).

use std::path::{Path, PathBuf};
use std::process::Command;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(name.as_ref(), "target" | "fixtures" | ".git") && !name.starts_with('.') {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_rust_file_says_why_it_exists_and_nothing_is_left_unfinished() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(files.len() > 10, "found the sources");
    let mut problems = Vec::new();
    let banned = [
        concat!("dbg", "!("),
        concat!("todo", "!("),
        concat!("unimplemented", "!("),
        concat!("#[", "ignore"),
    ];
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let rel = file.strip_prefix(root).unwrap_or(file).display().to_string();
        if !text.trim_start().starts_with("//!") {
            problems.push(format!("{rel}: does not open with a //! paragraph"));
        }
        for pattern in banned {
            if text.contains(pattern) {
                problems.push(format!("{rel}: contains {pattern}"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

fn dependencies_of(package: &str) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "--offline",
            "-e",
            "normal",
            "--prefix",
            "none",
            "-p",
            package,
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn layers_point_one_way() {
    let storage = dependencies_of("semgraph-storage");
    for forbidden in [
        "axum",
        "tree-sitter",
        "rmcp",
        "sqlparser",
        "semgraph-indexer",
        "semgraph-queries",
    ] {
        assert!(
            !storage.lines().any(|l| l.starts_with(&format!("{forbidden} "))),
            "semgraph-storage depends on {forbidden}"
        );
    }
    let queries = dependencies_of("semgraph-queries");
    assert!(
        !queries.lines().any(|l| l.starts_with("semgraph-indexer ")),
        "semgraph-queries depends on the indexer"
    );
}

/// The stage of the indexer a file belongs to, by its first folder under `indexer/src`.
fn indexer_stage(rel: &str) -> &str {
    let first = rel.split('/').next().unwrap_or(rel);
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The indexer's stages, lowest first: a file may import only from its own stage or one
/// below it (`pipeline` runs them all; tests and the fuzz bodies may reach anywhere).
const INDEXER_STAGES: &[&[&str]] = &[
    &["error", "walk", "company", "git"],
    &["facts", "typemodel"],
    &["lang"],
    &["resolve"],
    &["frameworks"],
    &["emit"],
    &["pipeline", "outline", "framework_models", "gen_frameworks"],
];

fn stage_rank(stage: &str) -> Option<usize> {
    INDEXER_STAGES.iter().position(|s| s.contains(&stage))
}

/// The code of a file outside its comments and its `#[cfg(test)] mod tests`.
fn production_code(text: &str) -> String {
    let production = text.split("#[cfg(test)]\nmod tests").next().unwrap_or(text);
    production
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `crate::<module>` paths a file's production code names.
fn crate_imports(text: &str) -> Vec<String> {
    let production = production_code(text);
    let mut out = Vec::new();
    for (i, _) in production.match_indices("crate::") {
        let rest = &production[i + "crate::".len()..];
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let before = production[..i].chars().last();
        let is_path = before.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
        if is_path && !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

#[test]
fn the_indexer_stages_point_one_way_and_recognisers_import_no_loop() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("indexer/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut problems = Vec::new();
    // Imports between framework files, for the loop check.
    let mut framework_edges: Vec<(String, String)> = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap_or(file).display().to_string();
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let stage = indexer_stage(&rel);
        if matches!(stage, "lib" | "testing" | "fuzzing")
            || rel.ends_with("tests.rs")
            || rel.contains("/testing.rs")
        {
            continue;
        }
        let Some(rank) = stage_rank(stage) else {
            problems.push(format!("{rel}: stage {stage} is in no layer of INDEXER_STAGES"));
            continue;
        };
        for import in crate_imports(&text) {
            let Some(to) = stage_rank(&import) else {
                continue;
            };
            if to > rank {
                problems.push(format!("{rel}: {stage} imports crate::{import}, a later stage"));
            }
        }
        if let Some(name) = rel
            .strip_prefix("frameworks/")
            .and_then(|r| r.strip_suffix(".rs"))
        {
            let production = production_code(&text);
            for (i, _) in production.match_indices("super::") {
                let target: String = production[i + "super::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let is_module = files
                    .iter()
                    .any(|f| f.ends_with(format!("frameworks/{target}.rs")));
                if is_module && target != name {
                    framework_edges.push((name.to_string(), target));
                }
            }
        }
    }
    // No cycle among framework files (a recogniser may use a sibling's rules, never back).
    let names: std::collections::BTreeSet<String> = framework_edges
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect();
    for start in &names {
        let mut stack = vec![(start.clone(), vec![start.clone()])];
        while let Some((at, path)) = stack.pop() {
            for (_, to) in framework_edges.iter().filter(|(from, _)| *from == at) {
                if to == start {
                    problems.push(format!("frameworks import loop: {} -> {to}", path.join(" -> ")));
                } else if !path.contains(to) && path.len() < 32 {
                    let mut next = path.clone();
                    next.push(to.clone());
                    stack.push((to.clone(), next));
                }
            }
        }
    }
    problems.sort();
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
