//! `typemodel-jdk`: regenerates the committed JDK type model (`jdk17.tm`) from a JDK 17's
//! jmods. Run `cargo run -p semgraph-indexer --bin typemodel-jdk -- [JMODS_DIR] [OUT]`;
//! the defaults are this machine's OpenJDK 17 and the file beside this one.
//!
//! `typemodel-jdk --measure PATH…` instead reads jars, jmods or class folders as a
//! dependency classpath and prints what the model of them holds and costs (types, heap
//! estimate, peak RSS, time), and how long the embedded JDK model takes to decode.
//!
//! It compiles the type model's sources on their own (`#[path]`), so it needs nothing of
//! the indexer at run time and the indexer needs nothing of it.

#![allow(dead_code, unreachable_pub)]

#[path = "mod.rs"]
mod typemodel;

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let all: Vec<String> = std::env::args().skip(1).collect();
    if all.first().map(String::as_str) == Some("--measure") {
        return measure(&all[1..]);
    }
    if all.first().map(String::as_str) == Some("--libraries") {
        return libraries(&all[1..]);
    }
    let mut args = all.into_iter();
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

/// `--libraries [JARS_DIR] [OUT]`: regenerates the bundled library models.
fn libraries(args: &[String]) -> ExitCode {
    let dir = PathBuf::from(args.first().map_or("/usr/share/java", String::as_str));
    let out = args
        .get(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/typemodel/libraries.tm"));
    let started = std::time::Instant::now();
    let (data, versions) = match typemodel::libraries::generate(&dir) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("typemodel-jdk --libraries: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&out, &data) {
        eprintln!("typemodel-jdk --libraries: {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    for v in &versions {
        println!("  {v}");
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

/// Loads `paths` as a classpath and prints the model's size and cost.
fn measure(paths: &[String]) -> ExitCode {
    let started = std::time::Instant::now();
    let jdk = typemodel::jdk::jdk();
    println!(
        "embedded JDK model: {} bytes, {} types, decoded in {:.1} ms, heap ≈ {:.1} MB",
        typemodel::jdk::embedded_size(),
        jdk.len(),
        started.elapsed().as_secs_f64() * 1000.0,
        jdk.heap_bytes() as f64 / 1e6
    );
    let rss_before = peak_rss_kb();
    let started = std::time::Instant::now();
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let cp = typemodel::deps::load_classpath(&paths);
    let elapsed = started.elapsed();
    let typed = cp.reports.iter().filter(|r| r.is_typed()).count();
    let methods: usize = cp.model.types().iter().map(|t| t.methods.len()).sum();
    println!(
        "classpath: {} of {} entries typed, {} types ({} methods) in {:.2}s; heap ≈ {:.1} MB; peak RSS {} → {} MB",
        typed,
        cp.reports.len(),
        cp.model.len(),
        methods,
        elapsed.as_secs_f64(),
        cp.model.heap_bytes() as f64 / 1e6,
        rss_before / 1024,
        peak_rss_kb() / 1024
    );
    for r in cp.reports.iter().filter(|r| !r.is_typed()) {
        println!("  not typed: {} ({:?})", r.coordinate, r.outcome);
    }
    ExitCode::SUCCESS
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}
