//! `semgraph index`: index products into a store, with progress bars and a summary.

use std::fmt::Write as _;

pub use crate::run_summary::{RunSummary, SummaryWarning};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use indicatif::{ProgressBar, ProgressStyle};
use semgraph_indexer::{index_product_with, Company, IndexError, IndexMode, ProductReport, Progress};
use semgraph_storage::{Store, StoreOptions};

/// What to index, as the command line says it.
#[derive(Clone, Debug, Default)]
pub struct IndexRequest {
    /// `--config`: a `semgraph.toml`.
    pub config: Option<PathBuf>,
    /// `--store`: overrides the config's store.
    pub store: Option<PathBuf>,
    /// `--product`: only these products of the config.
    pub products: Vec<String>,
    /// Paths to index as one product each (when no config is given).
    pub paths: Vec<PathBuf>,
    /// Draw progress bars.
    pub progress: bool,
    /// `--full`: parse every file again instead of reusing the facts of unchanged ones.
    pub full: bool,
    /// `--classpath`: jars and class folders whose types calls may need, read before the
    /// config's `[dependencies] classpath`.
    pub classpath: Vec<PathBuf>,
}

impl IndexRequest {
    /// Whether the run reuses the facts of unchanged files.
    pub fn mode(&self) -> IndexMode {
        if self.full {
            IndexMode::Full
        } else {
            IndexMode::Incremental
        }
    }
}

/// Resolves the request into a company: a config file, `./semgraph.toml`, or the paths.
pub fn company_for(request: &IndexRequest) -> Result<Company, IndexError> {
    let default_config = PathBuf::from("semgraph.toml");
    let mut company = match (&request.config, request.paths.is_empty()) {
        (Some(file), _) => Company::load(file)?,
        (None, false) => Company::from_paths(&request.paths, request.store.clone())?,
        (None, true) if default_config.is_file() => Company::load(&default_config)?,
        (None, true) => {
            return Err(IndexError::Config {
                file: default_config,
                message: "no semgraph.toml here; pass --config FILE or the paths to index".into(),
            })
        }
    };
    if let Some(store) = &request.store {
        company.store = store.clone();
    }
    if !request.classpath.is_empty() {
        let mut classpath = request.classpath.clone();
        classpath.append(&mut company.dependencies.classpath);
        company.dependencies.classpath = classpath;
    }
    if !request.products.is_empty() {
        let known = company
            .products
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
            .join(", ");
        for name in &request.products {
            if !company.products.iter().any(|p| &p.name == name) {
                return Err(IndexError::UnknownProduct {
                    name: name.clone(),
                    known,
                });
            }
        }
        company.products.retain(|p| request.products.contains(&p.name));
    }
    Ok(company)
}

/// A progress bar of bytes, with the files done in its message.
struct Bar {
    bar: ProgressBar,
    files: AtomicU64,
    planned: AtomicU64,
}

impl Progress for Bar {
    fn planned(&self, files: u64, bytes: u64) {
        self.planned.store(files, Ordering::Relaxed);
        self.bar.set_length(bytes);
    }
    fn file_done(&self, bytes: u64) {
        let done = self.files.fetch_add(1, Ordering::Relaxed) + 1;
        self.bar.inc(bytes);
        self.bar
            .set_message(format!("{done}/{} files", self.planned.load(Ordering::Relaxed)));
    }
}

/// Indexes every product of `company` into its store, one generation each — or, when a
/// running `semgraph serve` holds the store, hands the run to that server and follows its
/// job to the end (`crate::handoff`).
pub fn index_or_hand_off(
    company: &Company,
    progress: bool,
    mode: IndexMode,
) -> anyhow::Result<Vec<RunSummary>> {
    if let Some(server) = crate::handoff::find(&company.store) {
        return crate::handoff::hand_off(&server, company, progress, mode);
    }
    Ok(run_index(company, progress, mode)?
        .iter()
        .map(RunSummary::from)
        .collect())
}

/// Indexes every product of `company` into its store, one generation each.
pub fn run_index(company: &Company, progress: bool, mode: IndexMode) -> anyhow::Result<Vec<ProductReport>> {
    let store = Store::open_with_options(&company.store, &StoreOptions::for_indexing())?;
    let mut reports = Vec::new();
    for product in &company.products {
        let bar = if progress {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:>14} [{bar:30}] {msg} {bytes}/{total_bytes} {bytes_per_sec}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(product.name.clone());
            bar
        } else {
            ProgressBar::hidden()
        };
        let progress = Bar {
            bar: bar.clone(),
            files: AtomicU64::new(0),
            planned: AtomicU64::new(0),
        };
        let report = index_product_with(&store, company, product, &progress, mode)?;
        bar.finish_and_clear();
        reports.push(report);
    }
    Ok(reports)
}

/// The summary printed at the end of `semgraph index`: one row per product, then every
/// warning with its file.
pub fn render_summary(reports: &[RunSummary]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| product | files | MB | types | methods | endpoints | boundaries | tables touched | calls resolved | warnings | seconds |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|---|");
    for r in reports {
        let node = |k: &str| r.nodes.get(k).copied().unwrap_or(0);
        let stat = |k: &str| r.stats.get(k).copied().unwrap_or(0);
        // Resolved: to a method of the company or to a known library type.
        let resolved = stat("calls.resolved") + stat("calls.external");
        let unresolved = stat("calls.unresolved");
        let ratio = if resolved + unresolved == 0 {
            "-".to_string()
        } else {
            format!(
                "{:.1}% ({resolved}/{})",
                100.0 * resolved as f64 / (resolved + unresolved) as f64,
                resolved + unresolved
            )
        };
        let _ = writeln!(
            out,
            "| {} | {} | {:.2} | {} | {} | {} | {} | {} | {ratio} | {} | {:.2} |",
            r.product,
            r.files.values().sum::<u64>(),
            r.bytes as f64 / 1e6,
            node("type"),
            node("method"),
            node("endpoint") + node("entry-point"),
            node("http-call") + stat("producers") + node("topic"),
            stat("tables.reads") + stat("tables.writes"),
            r.warnings.len(),
            r.seconds
        );
    }
    for r in reports {
        let _ = writeln!(
            out,
            "\n{}: {} code files parsed, {} unchanged (their facts reused from an earlier run; `--full` parses every file); resolved calls of {} reused (a file resolves again when it changed or mentions a name whose declaration changed); findings of {} reused (all are recognised again when a declaration, a config or another non-code file changes).",
            r.product, r.code_parsed, r.code_reused, r.calls_reused, r.findings_reused
        );
        let _ = write!(out, "{}", dependency_line(r));
    }
    let _ = writeln!(
        out,
        "\nendpoints include non-HTTP entry points; boundaries are outbound HTTP calls, producer calls and topics; \
         tables touched counts code→table edges (JPA, repositories, SQL strings, MyBatis)."
    );
    out
}

/// Which declared dependencies' types the run read, and which it did not with why (the
/// first few by name); empty for a product that declares none.
fn dependency_line(r: &RunSummary) -> String {
    let declared: Vec<&crate::run_summary::SummaryDependency> =
        r.dependencies.iter().filter(|d| d.declared).collect();
    let listed: Vec<&crate::run_summary::SummaryDependency> =
        r.dependencies.iter().filter(|d| !d.declared).collect();
    if declared.is_empty() && listed.is_empty() {
        return String::new();
    }
    let typed = declared.iter().filter(|d| d.typed_from.is_some()).count();
    let mut line = format!(
        "{}: types of {typed} of {} declared dependencies read",
        r.product,
        declared.len()
    );
    if !listed.is_empty() {
        let read = listed.iter().filter(|d| d.typed_from.is_some()).count();
        let _ = write!(
            line,
            ", and of {read} of {} other classpath entries",
            listed.len()
        );
    }
    let missing: Vec<&&crate::run_summary::SummaryDependency> =
        declared.iter().filter(|d| d.typed_from.is_none()).collect();
    if missing.is_empty() {
        line.push_str(".\n");
        return line;
    }
    const SHOWN: usize = 5;
    let mut reasons: Vec<&str> = missing.iter().filter_map(|d| d.why_not.as_deref()).collect();
    reasons.sort_unstable();
    reasons.dedup();
    let names: Vec<&str> = missing
        .iter()
        .take(SHOWN)
        .map(|d| d.coordinate.as_str())
        .collect();
    let more = missing.len().saturating_sub(SHOWN);
    let _ = writeln!(
        line,
        "; not typed ({}): {}{}. Calls into them stay unresolved; list their jars under `[dependencies] classpath` in semgraph.toml or pass `--classpath`.",
        reasons.join("; "),
        names.join(", "),
        if more > 0 { format!(" and {more} more") } else { String::new() }
    );
    line
}

/// What an index run prints when it is done: the table of products, then the warnings by
/// reason (every one with `verbose`). The full list is written to the store's
/// [`crate::warnings::WARNINGS_FILE`] first, so the summary can name it.
pub fn render_report(reports: &[RunSummary], store: &Path, verbose: bool) -> String {
    let mut out = render_summary(reports);
    out.push('\n');
    let written = match crate::warnings::write_full(store, reports) {
        Ok(path) => Some(path),
        Err(e) => {
            tracing::warn!(error = %e, store = %store.display(), "cannot write the list of warnings");
            None
        }
    };
    out.push_str(&crate::warnings::render_summary(reports, written.as_deref()));
    if verbose {
        out.push_str(&crate::warnings::render_verbose(reports));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_summary::SummaryDependency;

    fn summary(dependencies: Vec<SummaryDependency>) -> RunSummary {
        RunSummary {
            product: "orders".into(),
            files: Default::default(),
            bytes: 0,
            nodes: Default::default(),
            stats: Default::default(),
            warnings: Vec::new(),
            seconds: 0.0,
            code_parsed: 0,
            code_reused: 0,
            calls_reused: 0,
            findings_reused: 0,
            dependencies,
        }
    }

    fn dep(coordinate: &str, typed_from: Option<&str>, why_not: Option<&str>) -> SummaryDependency {
        SummaryDependency {
            coordinate: coordinate.into(),
            declared: !coordinate.starts_with('/'),
            typed_from: typed_from.map(str::to_string),
            why_not: why_not.map(str::to_string),
        }
    }

    #[test]
    fn the_summary_says_which_declared_dependencies_were_typed_and_why_not_the_others() {
        assert_eq!(dependency_line(&summary(Vec::new())), "");
        let all = summary(vec![dep("a:b:1", Some("/m2/b-1.jar"), None)]);
        assert_eq!(
            dependency_line(&all),
            "orders: types of 1 of 1 declared dependencies read.\n"
        );
        let mut deps = vec![dep("a:b:1", Some("/m2/b-1.jar"), None)];
        for i in 0..6 {
            deps.push(dep(&format!("x:missing{i}"), None, Some("no jar on disk")));
        }
        let line = dependency_line(&summary(deps));
        assert!(
            line.starts_with("orders: types of 1 of 7 declared dependencies read; not typed (no jar on disk): x:missing0, x:missing1, x:missing2, x:missing3, x:missing4 and 1 more."),
            "{line}"
        );
        assert!(line.contains("`--classpath`"), "{line}");
        let with_classpath = summary(vec![
            dep("a:b:1", Some("/libs/b-1.jar"), None),
            dep("/libs/other.jar", Some("/libs/other.jar"), None),
            dep("/libs/broken.jar", None, Some("unreadable: bad zip")),
        ]);
        assert_eq!(
            dependency_line(&with_classpath),
            "orders: types of 1 of 1 declared dependencies read, and of 1 of 2 other classpath entries.\n"
        );
    }
}
