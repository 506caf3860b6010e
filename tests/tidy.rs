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
