//! Parse budgets: a bound on the work one file may cost a tree-sitter front-end.
//!
//! tree-sitter recovers from syntax errors, and on some broken inputs its recovery is
//! quadratic: 20,000 nested, unclosed method declarations in 200 KB took two minutes to
//! parse. A generated or hostile file must cost a bounded time, so every tree-sitter parse
//! runs with a progress callback (tree-sitter calls it every 100 parser operations) that
//! counts the work done and gives up past a budget proportional to the file's size, far
//! above what real code needs: spring-boot's 8,667 Java files need 0.46 operations per
//! byte on average and 1.68 at worst, the budget allows 100. The count is deterministic —
//! the same file is cut at the same place on any machine — and a wall-clock bound backs
//! it up for inputs that are slow without being long in operations. A file over budget is
//! skipped with a warning that names the budget; the run goes on.

use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, Tree};

/// Parser operations allowed per byte of source (real code needs under two).
pub(crate) const OPERATIONS_PER_BYTE: u64 = 100;
/// Operations allowed for any file, however small.
pub(crate) const MIN_OPERATIONS: u64 = 1_000_000;
/// Wall time after which a parse is given up whatever its count says.
pub(crate) const MAX_PARSE_TIME: Duration = Duration::from_secs(10);

/// tree-sitter calls the progress callback once per this many operations.
const OPERATIONS_PER_CALLBACK: u64 = 100;

/// Why a parse was given up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OverBudget {
    /// What the parser had done when it was stopped, for the warning.
    pub(crate) message: String,
}

/// The operation budget of a source of `len` bytes.
pub(crate) fn operations_for(len: usize) -> u64 {
    (len as u64)
        .saturating_mul(OPERATIONS_PER_BYTE)
        .max(MIN_OPERATIONS)
}

/// Parses `source` with `parser` within its budget; the operations used come back too.
pub(crate) fn parse(parser: &mut Parser, source: &str) -> Result<(Tree, u64), OverBudget> {
    parse_within(parser, source, operations_for(source.len()), MAX_PARSE_TIME)
}

/// Parses `source` within `budget` operations and `max_time`.
fn parse_within(
    parser: &mut Parser,
    source: &str,
    budget: u64,
    max_time: Duration,
) -> Result<(Tree, u64), OverBudget> {
    let started = Instant::now();
    let mut operations: u64 = 0;
    let mut stopped: Option<String> = None;
    let bytes = source.as_bytes();
    let mut read = |offset: usize, _| bytes.get(offset..).unwrap_or_default();
    let mut progress = |state: &ParseState| {
        operations += OPERATIONS_PER_CALLBACK;
        if operations > budget {
            stopped = Some(format!(
                "skipped: parsing exceeded its budget of {budget} operations at byte {} of {}; a generated or broken file?",
                state.current_byte_offset(),
                bytes.len()
            ));
            return ControlFlow::Break(());
        }
        if operations.is_multiple_of(OPERATIONS_PER_CALLBACK * 1024) && started.elapsed() > max_time {
            stopped = Some(format!(
                "skipped: parsing took longer than {} s at byte {} of {}; a generated or broken file?",
                max_time.as_secs(),
                state.current_byte_offset(),
                bytes.len()
            ));
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let tree = parser.parse_with_options(
        &mut read,
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    match (tree, stopped) {
        (_, Some(message)) => Err(OverBudget { message }),
        (Some(tree), None) => Ok((tree, operations)),
        (None, None) => Err(OverBudget {
            message: "skipped: tree-sitter gave no tree".into(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn java_parser() -> Parser {
        let mut p = Parser::new();
        p.set_language(&tree_sitter_java::LANGUAGE.into())
            .expect("java grammar");
        p
    }

    fn java_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                java_files(&path, out);
            } else if path.extension().is_some_and(|e| e == "java") {
                out.push(path);
            }
        }
    }

    #[test]
    fn real_code_needs_a_small_fraction_of_the_budget() {
        let mut files = Vec::new();
        java_files(&crate::testing::repo_root().join("fixtures/acme"), &mut files);
        assert!(files.len() > 20, "the fixture company's sources");
        for path in files {
            let text = std::fs::read_to_string(&path).expect("fixture");
            let (_, ops) = parse(&mut java_parser(), &text).expect("within budget");
            let per_byte = ops as f64 / text.len().max(1) as f64;
            assert!(
                per_byte * 20.0 < OPERATIONS_PER_BYTE as f64,
                "{}: {per_byte:.2}",
                path.display()
            );
        }
    }

    /// 20,000 nested, unclosed method declarations: the work tree-sitter's error recovery
    /// does is counted and a budget cuts it, at the same byte every time.
    #[test]
    fn a_parse_over_its_budget_is_cut_deterministically() {
        let text = format!("class X {{\n{}", "void m(){\n".repeat(20_000));
        // Operations, not time, are what this test is about: the wall-clock backstop is
        // lifted so a loaded machine cannot cut the parse first.
        let no_backstop = Duration::from_secs(3600);
        let (_, ops) = parse_within(&mut java_parser(), &text, operations_for(text.len()), no_backstop)
            .expect("within the real budget");
        let small = ops / 2;
        let err =
            parse_within(&mut java_parser(), &text, small, no_backstop).expect_err("over a smaller budget");
        assert!(
            err.message.contains(&format!("budget of {small} operations")),
            "{}",
            err.message
        );
        let again = parse_within(&mut java_parser(), &text, small, no_backstop).expect_err("over budget");
        assert_eq!(err, again, "the same file is cut at the same place");
    }

    #[test]
    fn a_parse_over_its_time_is_cut() {
        let text = format!("class X {{\n{}", "void m(){\n".repeat(20_000));
        let err =
            parse_within(&mut java_parser(), &text, u64::MAX, Duration::ZERO).expect_err("no time at all");
        assert!(err.message.contains("took longer than 0 s"), "{}", err.message);
    }
}
