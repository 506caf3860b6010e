//! What one product's index run did, as `semgraph index` prints it: from a run in this
//! process or from a server's index job (whose jobs list carries it as JSON), so a run
//! handed to a running server prints the same summary and warnings as one run here.

use std::collections::BTreeMap;

use semgraph_indexer::ProductReport;

/// One warning of a run, as the summary prints it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SummaryWarning {
    /// The file, relative to its repository.
    pub file: String,
    /// The line, when known.
    pub line: Option<u32>,
    /// What went wrong.
    pub message: String,
}

/// What one product's run did, as `semgraph index` prints it — from a run in this process
/// or from a server's index job (whose jobs list carries it).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunSummary {
    /// The product.
    pub product: String,
    /// Files indexed per kind.
    pub files: BTreeMap<String, u64>,
    /// Bytes read.
    pub bytes: u64,
    /// Nodes written per kind.
    pub nodes: BTreeMap<String, u64>,
    /// Indexer counters.
    pub stats: BTreeMap<String, u64>,
    /// Every warning.
    pub warnings: Vec<SummaryWarning>,
    /// Wall time of the run.
    pub seconds: f64,
    /// Code files the run parsed.
    #[serde(default)]
    pub code_parsed: u64,
    /// Code files whose facts an earlier run's parse gave (content unchanged).
    #[serde(default)]
    pub code_reused: u64,
    /// Code files whose resolved calls an earlier run gave (no declaration of the
    /// product, module layout or dependency changed).
    #[serde(default)]
    pub calls_reused: u64,
    /// Code files whose findings an earlier run gave (their calls were reused, and no
    /// other file's declarations and no config, build or other non-code file changed).
    #[serde(default)]
    pub findings_reused: u64,
    /// Declared dependencies and classpath entries: whose types calls were resolved with.
    #[serde(default)]
    pub dependencies: Vec<SummaryDependency>,
}

/// One declared dependency (or classpath entry) and whether its types were read.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SummaryDependency {
    /// `group:artifact[:version]`, or the classpath entry.
    pub coordinate: String,
    /// Declared by a build (else a classpath entry no declared dependency names).
    #[serde(default)]
    pub declared: bool,
    /// The jar or folder read, when typed.
    pub typed_from: Option<String>,
    /// Why not, when not.
    pub why_not: Option<String>,
}

impl From<&ProductReport> for RunSummary {
    fn from(r: &ProductReport) -> RunSummary {
        RunSummary {
            product: r.product.clone(),
            files: r.files.clone(),
            bytes: r.bytes,
            nodes: r.nodes.clone(),
            stats: r.stats.clone(),
            warnings: r
                .warnings
                .iter()
                .map(|w| SummaryWarning {
                    file: w.file.clone(),
                    line: w.line,
                    message: w.message.clone(),
                })
                .collect(),
            seconds: r.elapsed.as_secs_f64(),
            code_parsed: r.code_parsed,
            code_reused: r.code_reused,
            calls_reused: r.calls_reused,
            findings_reused: r.findings_reused,
            dependencies: r
                .dependencies
                .iter()
                .map(|d| SummaryDependency {
                    coordinate: d.coordinate.clone(),
                    declared: d.declared,
                    typed_from: d.typed_from.clone(),
                    why_not: d.why_not.clone(),
                })
                .collect(),
        }
    }
}
