//! change-impact benchmark: a real pull request's diff mapped onto a real repository's
//! graph, as the server computes it (parse, map hunks with the indexer's front-ends on the
//! new side, the consolidated impact, markdown and JSON rendering), first run and warm.
//!
//! It needs a store holding an indexed repository and a diff of that repository; the
//! figures of the report are spring-boot's, indexed at the parent of the diff's commit:
//!
//! ```text
//! git clone --shared --no-checkout <spring-boot git dir> /tmp/sb && git -C /tmp/sb checkout -q c459815171f
//! cargo build --release && target/release/semgraph index --store /tmp/sb-store /tmp/sb
//! git -C /tmp/sb diff -M c459815171f b9fb384f8da > /tmp/sb.diff       # 516 changed lines
//! cargo bench --bench change_impact -- --store /tmp/sb-store --diff /tmp/sb.diff --runs 20
//! ```
//!
//! `--repo NAME` restricts the mapping to one indexed repository (as the `repo` parameter
//! does); `--depth N` is the recipe's depth (default 3). The workspace is this machine's
//! (`semgraph::workspace::LocalWorkspace`), so the new side of each file is read and
//! outlined as the server would. It prints the median, p95 and max, and the document's
//! size; no test asserts a timing.

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use semgraph::workspace::LocalWorkspace;
use semgraph_queries::{execute_with, Caller, Request};
use semgraph_storage::Store;
use support::{arg, ms, percentile};

fn main() {
    let store: PathBuf = arg("--store", PathBuf::new());
    let diff: PathBuf = arg("--diff", PathBuf::new());
    if store.as_os_str().is_empty() || diff.as_os_str().is_empty() {
        eprintln!("usage: cargo bench --bench change_impact -- --store DIR --diff FILE [--repo NAME] [--runs N] [--depth N]");
        return;
    }
    let runs: usize = arg("--runs", 20);
    let depth: u32 = arg("--depth", 3);
    let repo: String = arg("--repo", String::new());
    let text = match std::fs::read_to_string(&diff) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {}: {e}", diff.display());
            return;
        }
    };
    let changed = text
        .lines()
        .filter(|l| {
            (l.starts_with('+') && !l.starts_with("+++")) || (l.starts_with('-') && !l.starts_with("---"))
        })
        .count();
    let opened = Instant::now();
    let store = match Store::open_read_only(&store) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("cannot open the store: {e}");
            return;
        }
    };
    println!("store opened in {} ms", ms(opened.elapsed()));
    let snapshot = store.snapshot();
    let workspace = LocalWorkspace::new();
    let mut params = vec![
        ("diff".to_string(), text.clone()),
        ("depth".to_string(), depth.to_string()),
    ];
    if !repo.is_empty() {
        params.push(("repo".to_string(), repo));
    }
    let request = Request::new("recipes", "change-impact", params);
    let mut times: Vec<Duration> = Vec::new();
    let mut chars = 0;
    let mut first = Duration::ZERO;
    for i in 0..runs.max(1) {
        let started = Instant::now();
        match execute_with(&snapshot, &Caller::full_access(), &request, &workspace) {
            Ok(doc) => {
                let took = started.elapsed();
                if i == 0 {
                    first = took;
                    chars = doc.markdown.chars().count();
                    let json = doc.json_value();
                    println!(
                        "diff: {changed} changed lines in {} files; seeds {}, endpoints {}, tests {}, complete {}",
                        json["files"].as_array().map_or(0, Vec::len),
                        json["seeds"],
                        json["endpoints"].as_array().map_or(0, Vec::len),
                        json["test_methods"],
                        json["complete"]
                    );
                } else {
                    times.push(took);
                }
            }
            Err(e) => {
                eprintln!("change-impact failed: {}", e.body());
                return;
            }
        }
    }
    times.sort();
    println!(
        "change-impact: first {} ms; warm median {} ms, p95 {} ms, max {} ms over {} runs; {chars} chars",
        ms(first),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.95)),
        ms(times.last().copied().unwrap_or_default()),
        times.len()
    );
}
