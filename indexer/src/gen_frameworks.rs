//! `typemodel-frameworks`: regenerates the committed framework model
//! (`indexer/src/typemodel/frameworks.tm`) from checkouts of the frameworks' repositories at
//! a release. Run
//! `cargo run -p semgraph-indexer --bin typemodel-frameworks -- REPO:VERSION=PATH… [--out FILE]`,
//! one argument per repository of `FRAMEWORK_ARTIFACTS`, e.g.
//! `spring-framework:6.2.19=/tmp/spring-framework` (the releases and tags:
//! `indexer/src/typemodel/LIBRARIES.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use semgraph_indexer::framework_models::{generate, FrameworkCheckout};

fn main() -> ExitCode {
    let mut out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/typemodel/frameworks.tm");
    let mut checkouts = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--out" {
            match args.next() {
                Some(p) => out = PathBuf::from(p),
                None => return usage("--out needs a file"),
            }
            continue;
        }
        let Some((name, path)) = arg.split_once('=') else {
            return usage(&format!("{arg}: expected REPO:VERSION=PATH"));
        };
        let Some((repository, version)) = name.split_once(':') else {
            return usage(&format!("{arg}: expected REPO:VERSION=PATH"));
        };
        checkouts.push(FrameworkCheckout {
            repository: repository.to_string(),
            version: version.to_string(),
            path: PathBuf::from(path),
        });
    }
    let started = std::time::Instant::now();
    let generated = match generate(&checkouts) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("typemodel-frameworks: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&out, &generated.data) {
        eprintln!("typemodel-frameworks: {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    for a in &generated.artifacts {
        println!("  {a}");
    }
    for path in &generated.unreadable {
        eprintln!("typemodel-frameworks: {}: unreadable, left out", path.display());
    }
    println!(
        "read {} source files; kept {} types, {} methods; wrote {} ({} bytes) in {:.1}s",
        generated.files,
        generated.types,
        generated.methods,
        out.display(),
        generated.data.len(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("typemodel-frameworks: {problem}");
    eprintln!("usage: typemodel-frameworks REPO:VERSION=PATH… [--out FILE]");
    ExitCode::FAILURE
}
