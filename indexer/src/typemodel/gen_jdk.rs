//! `typemodel-jdk`: regenerates the committed JDK type model (`jdk17.tm`) from a JDK 17's
//! jmods. Run `cargo run -p semgraph-indexer --bin typemodel-jdk -- [JMODS_DIR] [OUT]`;
//! the defaults are this machine's OpenJDK 17 and the file beside this one.
//!
//! It compiles the type model's sources on their own (`#[path]`), so it needs nothing of
//! the indexer at run time and the indexer needs nothing of it.

#![allow(dead_code, unreachable_pub)]

#[path = "mod.rs"]
mod typemodel;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let jmods = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "/usr/lib/jvm/java-17-openjdk-amd64/jmods".to_string()),
    );
    let out = args
        .next()
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/typemodel/jdk17.tm"));
    let release = release_of(&jmods).unwrap_or_else(|| "17".to_string());
    let started = std::time::Instant::now();
    let (data, report) = match typemodel::jdk::generate(&jmods, &release) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("typemodel-jdk: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&out, &data) {
        eprintln!("typemodel-jdk: {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    println!("{}", report.origin);
    for (m, classes) in &report.modules {
        println!("  {m}: {classes} class files");
    }
    println!(
        "kept {} types, {} methods, {} fields; {} class files unreadable",
        report.types,
        report.methods,
        report.fields,
        report.unreadable.len()
    );
    for (name, why) in report.unreadable.iter().take(10) {
        println!("  unreadable: {name}: {why}");
    }
    println!(
        "wrote {} ({} bytes) in {:.2}s",
        out.display(),
        data.len(),
        started.elapsed().as_secs_f64()
    );
    ExitCode::SUCCESS
}

/// `17.0.15` from the `release` file beside the jmods folder.
fn release_of(jmods: &std::path::Path) -> Option<String> {
    let text = std::fs::read_to_string(jmods.parent()?.join("release")).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))
        .map(|v| v.trim_matches('"').to_string())
}
