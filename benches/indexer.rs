//! Indexer benchmark: Java lines/s, DDL MB/s and Jira issues/minute, end to end
//! (walk → parse → resolve → write → commit), with the peak RSS of each run.
//!
//! The corpora are generated into a temporary folder, deterministically:
//! - Java: the fixture company's Java sources copied N times, each copy with its own
//!   packages (`com.acme.` → `com.acmeN.`), so fqns stay distinct, in one product;
//! - DDL: PostgreSQL Flyway migrations of tables, indexes, foreign keys and views;
//! - Jira: one search-API export of generated issues.
//!
//! Run (release):
//!
//! ```text
//! cargo bench --bench indexer
//! cargo bench --bench indexer -- --java-lines 1000000 --ddl-mb 20 --jira-issues 50000
//! ```

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use semgraph_indexer::{index_product, Company, NoProgress, ProductSource};
use semgraph_storage::Store;

struct Args {
    java_lines: Vec<u64>,
    ddl_mb: u64,
    jira_issues: u64,
}

fn parse_args() -> Args {
    let java: String = support::arg("--java-lines", "250000,1000000".to_string());
    Args {
        java_lines: java.split(',').filter_map(|v| v.parse().ok()).collect(),
        ddl_mb: support::arg("--ddl-mb", 20),
        jira_issues: support::arg("--jira-issues", 50_000),
    }
}

fn fixture_java() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/acme");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "java") {
                let rel = path.strip_prefix(&root).unwrap_or(&path).display().to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn product(name: &str, repos: Vec<PathBuf>, jira: Vec<PathBuf>) -> ProductSource {
    ProductSource {
        name: name.into(),
        area: "bench".into(),
        repos,
        wiki: Vec::new(),
        jira,
    }
}

fn run(store: &Store, source: ProductSource) -> (f64, semgraph_indexer::ProductReport) {
    let company = Company {
        store: PathBuf::new(),
        products: vec![source.clone()],
        config_file: None,
        server: None,
    };
    support::reset_peak_rss();
    let started = Instant::now();
    let report = index_product(store, &company, &source, &NoProgress).expect("index");
    (started.elapsed().as_secs_f64(), report)
}

fn bench_java(dir: &Path, store: &Store, lines_wanted: u64) {
    let files = fixture_java();
    let lines_per_copy: u64 = files.iter().map(|(_, t)| t.lines().count() as u64).sum();
    let copies = (lines_wanted / lines_per_copy.max(1)).max(1);
    let repo = dir.join(format!("java-{lines_wanted}"));
    let mut bytes = 0u64;
    for c in 0..copies {
        for (rel, text) in &files {
            let renamed = text.replace("com.acme.", &format!("com.acme{c}."));
            bytes += renamed.len() as u64;
            write(&repo.join(format!("copy{c}")).join(rel), &renamed);
        }
    }
    let lines = copies * lines_per_copy;
    let (secs, report) = run(
        store,
        product(&format!("java{lines_wanted}"), vec![repo], Vec::new()),
    );
    println!(
        "java: {lines} lines ({:.1} MB) in {secs:.2} s = {:.0} lines/s, {:.2} MB/s; {} nodes, {} edges; \
         calls resolved {} / external {} / unresolved {}; peak RSS {:.0} MB",
        bytes as f64 / 1e6,
        lines as f64 / secs,
        bytes as f64 / 1e6 / secs,
        report.commit.nodes,
        report.commit.edges,
        report.stats.get("calls.resolved").unwrap_or(&0),
        report.stats.get("calls.external").unwrap_or(&0),
        report.stats.get("calls.unresolved").unwrap_or(&0),
        support::peak_rss_mb()
    );
}

fn bench_ddl(dir: &Path, store: &Store, mb: u64) {
    let repo = dir.join("ddl");
    let mut total = 0usize;
    let mut file = 1;
    let mut table = 0;
    while total < (mb as usize) << 20 {
        let mut sql = String::new();
        while sql.len() < 1 << 20 {
            let _ = writeln!(
                sql,
                "-- table {table}\nCREATE TABLE t{table} (\n  id BIGSERIAL PRIMARY KEY,\n  name VARCHAR(200) NOT NULL,\n  \
                 amount NUMERIC(12,2) DEFAULT 0,\n  parent_id BIGINT REFERENCES t{} (id),\n  created_at TIMESTAMP NOT NULL DEFAULT now()\n);\n\
                 CREATE INDEX ix_t{table}_name ON t{table} (name);\n\
                 ALTER TABLE t{table} ADD CONSTRAINT uq_t{table} UNIQUE (name, parent_id);",
                table.max(1) - 1
            );
            if table % 10 == 9 {
                let _ = writeln!(
                    sql,
                    "CREATE VIEW v{table} AS SELECT a.id, b.name FROM t{table} a JOIN t{} b ON b.id = a.parent_id;",
                    table - 1
                );
            }
            table += 1;
        }
        total += sql.len();
        write(&repo.join(format!("db/migration/V{file}__tables.sql")), &sql);
        file += 1;
    }
    let (secs, report) = run(store, product("ddl", vec![repo], Vec::new()));
    println!(
        "ddl: {:.1} MB, {table} tables in {secs:.2} s = {:.2} MB/s; {} warnings; peak RSS {:.0} MB",
        total as f64 / 1e6,
        total as f64 / 1e6 / secs,
        report.warnings.len(),
        support::peak_rss_mb()
    );
}

fn bench_jira(dir: &Path, store: &Store, issues: u64) {
    let mut json = String::from("{\"startAt\":0,\"maxResults\":50,\"total\":");
    let _ = write!(json, "{issues},\"issues\":[");
    let types = ["Bug", "Incident", "Story", "Task"];
    let priorities = ["Highest", "High", "Medium", "Low"];
    for i in 0..issues {
        if i > 0 {
            json.push(',');
        }
        let _ = write!(
            json,
            "{{\"id\":\"{}\",\"key\":\"BEN-{i}\",\"fields\":{{\"summary\":\"Checkout fails when OrderService.placeOrder times out ({i})\",\
             \"description\":\"Calls to POST /api/orders time out; the orders table is locked by the nightly job. See PaymentsClient.charge.\",\
             \"issuetype\":{{\"name\":\"{}\"}},\"priority\":{{\"name\":\"{}\"}},\"status\":{{\"name\":\"Done\"}},\"resolution\":null,\
             \"components\":[{{\"name\":\"bench\"}}],\"labels\":[\"checkout\"],\"created\":\"2026-03-02T09:15:00.000+0000\",\
             \"resolutiondate\":null,\"updated\":\"2026-03-03T09:15:00.000+0000\"}}}}",
            10_000 + i,
            types[(i % 4) as usize],
            priorities[(i % 4) as usize]
        );
    }
    json.push_str("]}");
    let path = dir.join("jira/export.json");
    write(&path, &json);
    let (secs, report) = run(store, product("bench", Vec::new(), vec![path]));
    println!(
        "jira: {} issues ({:.1} MB) in {secs:.2} s = {:.0} issues/minute; peak RSS {:.0} MB",
        report.stats.get("jira.issues").unwrap_or(&0),
        json.len() as f64 / 1e6,
        issues as f64 / secs * 60.0,
        support::peak_rss_mb()
    );
}

fn main() {
    let args = parse_args();
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path().join("store")).expect("store");
    println!("# semgraph indexer benchmark");
    for &lines in &args.java_lines {
        bench_java(dir.path(), &store, lines);
    }
    bench_ddl(dir.path(), &store, args.ddl_mb);
    bench_jira(dir.path(), &store, args.jira_issues);
}
