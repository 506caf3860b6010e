//! The compiler oracle on any folder of Java sources: compiles it with `javac`, indexes it
//! with semgraph, and prints recall and precision of semgraph's Calls edges against the
//! compiled calls, with the misses by kind (see `tests/oracle/harness.rs`).
//!
//! Run: `cargo bench -p semgraph-indexer --bench oracle -- [DIR] [--jmods DIR]`; without a
//! folder it measures the corpus under `tests/oracle/corpus/`. The folder must compile on
//! its own with the JDK (a pure-JDK library's `src/main/java`).

#[path = "../tests/oracle/harness.rs"]
mod harness;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut dir = None;
    let mut jmods = PathBuf::from("/usr/lib/jvm/java-17-openjdk-amd64/jmods");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--jmods" => match args.next() {
                Some(j) => jmods = PathBuf::from(j),
                None => {
                    eprintln!("--jmods needs a folder");
                    return ExitCode::FAILURE;
                }
            },
            // `cargo bench` passes `--bench`.
            "--bench" => {}
            other => dir = Some(PathBuf::from(other)),
        }
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/corpus"));
    let work = match tempfile::tempdir() {
        Ok(w) => w,
        Err(e) => {
            eprintln!("tempdir: {e}");
            return ExitCode::FAILURE;
        }
    };
    let started = std::time::Instant::now();
    match harness::run(&dir, &jmods, work.path()) {
        Ok(report) => {
            println!("oracle on {}", dir.display());
            print!("{}", report.render());
            println!("({:.1}s)", started.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
