//! What the indexer's tests share: paths into the repository, the facts tables of
//! `fixtures/acme/EXPECTED.md`, and golden files that `SEMGRAPH_BLESS=1` rewrites.

use std::path::{Path, PathBuf};

/// The repository root.
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A file of the repository, as text.
pub(crate) fn read(rel: &str) -> String {
    let path = repo_root().join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rows of the markdown table under `## {section}` of EXPECTED.md, header and separator
/// dropped, cells trimmed.
pub(crate) fn expected_rows(section: &str) -> Vec<Vec<String>> {
    expected_rows_in("fixtures/acme/EXPECTED.md", section)
}

/// The rows of the markdown table under `## {section}` of the facts file `rel`.
pub(crate) fn expected_rows_in(rel: &str, section: &str) -> Vec<Vec<String>> {
    let text = read(rel);
    let heading = format!("## {section}");
    let rows: Vec<Vec<String>> = text
        .lines()
        .skip_while(|l| l.trim() != heading)
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .filter(|l| l.trim_start().starts_with('|') && !l.trim_start().starts_with("|---"))
        .skip(1)
        .map(|l| {
            l.trim()
                .trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_owned())
                .collect()
        })
        .collect();
    assert!(!rows.is_empty(), "{rel} has rows under ## {section}");
    rows
}

/// Compares `actual` with the golden file `{input}.expected` beside the input.
pub(crate) fn assert_golden(input: &str, actual: &str) {
    let expected_path = repo_root().join(format!("{input}.expected"));
    if std::env::var_os("SEMGRAPH_BLESS").is_some() {
        std::fs::write(&expected_path, actual).unwrap_or_else(|e| panic!("bless: {e}"));
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    assert_eq!(actual, expected, "golden mismatch for {input}");
}
