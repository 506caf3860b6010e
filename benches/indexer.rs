//! Indexer benchmark: Java and Kotlin lines/s and MB/s of a whole company, DDL MB/s and Jira
//! issues/minute, end to end (walk → parse → resolve → write → commit), with peak RSS. The
//! store is opened as `semgraph index` opens it (`StoreOptions::for_indexing`).
//!
//! The corpora are generated into a temporary folder, deterministically, and deleted:
//! - Java (`--java-lines`, default `1000000,4000000`): per size, the synthetic company of
//!   `semgraph_testkit::java_corpus` — realistic Spring services of about 200,000 lines each
//!   (`--java-products` at the largest size, default 20; smaller sizes get proportionally
//!   fewer, so a product is the same size at every size), calling each other over HTTP and
//!   Kafka — indexed product by product into one fresh store, as a company would. Printed
//!   per size: lines, MB, seconds, lines/s, MB/s, the peak RSS of the whole size (reset
//!   before it), nodes, edges, link edges, the store's size on disk, the call sites given
//!   a target (in source or in a library, as `semgraph index` counts them) and the share of
//!   the non-library ones resolved; then the peak RSS of the smallest and the largest size
//!   side by side — memory that grew with the number of products would show there;
//! - DDL (`--ddl-corpus mixed`, the default): PostgreSQL Flyway migrations, `mysqldump`
//!   files with their rows and H2 scripts — commented tables, keys, indexes, foreign keys,
//!   views, a few routines and triggers, seed `INSERT`s, and some statements (`CHECK`,
//!   casts, `enum`) only sqlparser reads; `--ddl-corpus dense` is the older PostgreSQL-only
//!   corpus without comments or data, `dense,mixed` runs both;
//! - Kotlin (`--kotlin-lines`, default `200000`): generated Spring services in Kotlin —
//!   entities with constructor properties, Spring Data repositories, services calling each
//!   other and their repositories through properties, scope functions, safe calls and named
//!   arguments, controllers over them — in products of about 50,000 lines; printed as for
//!   Java (lines, MB, seconds, lines/s, MB/s, call sites and the share resolved), beside the
//!   Java figures. `--kotlin-sources PATH,…` indexes real Kotlin repositories instead (each
//!   path one product; lines are the `.kt` lines under it);
//! - Jira: one search-API export of generated issues.
//!
//! `--heap-per-product` prints, after each Java product, the time its commit took to build
//! the next generation (links resolved again) and the heap jemalloc has allocated and keeps
//! resident: what grows with the company shows as a rising floor.
//!
//! The 4M-line size writes about 145 MB of sources (some 500 MB of disk in 4 KB blocks) and
//! its store beside them; both are deleted before the next size.
//!
//! `--write-corpus DIR` only writes the Java company of the first `--java-lines` size (in
//! `--java-products` products) under DIR, with its `semgraph.toml` and `targets.txt` (the
//! methods and tables it planted, one question target a line: `method <fqn>` or
//! `table <name>`), and exits: `benches/soak.py` serves and re-indexes it.
//!
//! Run (release):
//!
//! ```text
//! cargo bench --bench indexer
//! cargo bench --bench indexer -- --java-lines 1000000 --java-products 5 --ddl-mb 20 --jira-issues 50000
//! cargo bench --bench indexer -- --java-lines "" --ddl-mb 20 --ddl-corpus dense,mixed --jira-issues 0
//! cargo bench --bench indexer -- --java-lines 1000000 --java-products 5 --kotlin-lines 1000000 --ddl-mb 0 --jira-issues 0
//! cargo bench --bench indexer -- --java-lines "" --kotlin-sources /tmp/petclinic-kt --ddl-mb 0 --jira-issues 0
//! ```

mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use semgraph_indexer::{index_product, Company, NoProgress, ProductSource};
use semgraph_storage::{Store, StoreOptions};
use semgraph_testkit::java_corpus::{write_java_company, JavaCorpusSpec};

struct Args {
    java_lines: Vec<u64>,
    java_products: u32,
    ddl_mb: u64,
    ddl_corpus: String,
    jira_issues: u64,
    kotlin_lines: u64,
    kotlin_sources: Vec<PathBuf>,
    heap_per_product: bool,
}

fn parse_args() -> Args {
    let java: String = support::arg("--java-lines", "1000000,4000000".to_string());
    Args {
        java_lines: java.split(',').filter_map(|v| v.parse().ok()).collect(),
        java_products: support::arg("--java-products", 20),
        ddl_mb: support::arg("--ddl-mb", 20),
        ddl_corpus: support::arg("--ddl-corpus", "mixed".to_string()),
        jira_issues: support::arg("--jira-issues", 50_000),
        kotlin_lines: support::arg("--kotlin-lines", 200_000),
        kotlin_sources: support::arg("--kotlin-sources", String::new())
            .split(',')
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
            .collect(),
        heap_per_product: std::env::args().any(|a| a == "--heap-per-product"),
    }
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

/// A company of `products` in `store`, typed by its sources and the JDK alone, so figures
/// do not depend on the machine's Maven repository.
fn company(store: PathBuf, products: Vec<ProductSource>) -> Company {
    Company {
        store,
        products,
        config_file: None,
        server: None,
        dependencies: semgraph_indexer::Dependencies::sources_only(),
    }
}

fn run(store: &Store, source: ProductSource) -> (f64, semgraph_indexer::ProductReport) {
    let company = company(PathBuf::new(), vec![source.clone()]);
    support::reset_peak_rss();
    let started = Instant::now();
    let report = index_product(store, &company, &source, &NoProgress).expect("index");
    (started.elapsed().as_secs_f64(), report)
}

/// What one Java size measured.
struct JavaRun {
    lines: u64,
    products: u32,
    peak_rss_mb: f64,
}

/// Generates the company of `lines` lines in `products` products, indexes every product in
/// turn into a fresh store, prints the figures and deletes both.
fn bench_java(dir: &Path, lines: u64, products: u32, heap_per_product: bool) -> JavaRun {
    let root = dir.join(format!("java-{lines}"));
    let started = Instant::now();
    let corpus =
        write_java_company(&root, &JavaCorpusSpec::new(products, lines)).expect("write the Java corpus");
    let gen_secs = started.elapsed().as_secs_f64();
    let sources: Vec<ProductSource> = corpus
        .products
        .iter()
        .map(|p| product(&p.name, vec![p.dir.clone()], Vec::new()))
        .collect();
    let store_dir = dir.join(format!("store-java-{lines}"));
    let store = Store::open_with_options(&store_dir, &StoreOptions::for_indexing()).expect("store");
    let company = company(store_dir.clone(), sources.clone());
    support::reset_peak_rss();
    let started = Instant::now();
    let (mut nodes, mut edges, mut links, mut unlinked) = (0u64, 0u64, 0u64, 0u64);
    let (mut resolved, mut external, mut unresolved) = (0u64, 0u64, 0u64);
    for source in &sources {
        let report = index_product(&store, &company, source, &NoProgress).expect("index");
        let stat = |k: &str| report.stats.get(k).copied().unwrap_or(0);
        resolved += stat("calls.resolved");
        external += stat("calls.external");
        unresolved += stat("calls.unresolved");
        nodes += report.commit.nodes;
        edges += report.commit.edges;
        links = report.commit.links;
        if heap_per_product {
            // What stays allocated between products (memory that grows with the company),
            // beside what jemalloc keeps resident and the process's peak so far.
            let _ = tikv_jemalloc_ctl::epoch::advance();
            println!(
                "  after {}: commit built the generation in {} ms; heap allocated {} MB, jemalloc resident {} MB, peak RSS {:.0} MB",
                source.name,
                report.commit.graph_ms,
                tikv_jemalloc_ctl::stats::allocated::read().unwrap_or(0) >> 20,
                tikv_jemalloc_ctl::stats::resident::read().unwrap_or(0) >> 20,
                support::peak_rss_mb()
            );
        }
        unlinked = report.commit.unlinked;
    }
    let secs = started.elapsed().as_secs_f64();
    let peak = support::peak_rss_mb();
    let store_mb = store.disk_bytes().unwrap_or(0) as f64 / 1e6;
    // What the store itself holds in memory once every product is in: the block cache is
    // bounded by its size; table readers and memtables are RocksDB's own estimates.
    let cache_mb = store.block_cache_bytes().unwrap_or(0) as f64 / 1e6;
    let readers_mb = store.table_reader_bytes().unwrap_or(0) as f64 / 1e6;
    let memtables_mb = store
        .memtable_bytes()
        .unwrap_or_default()
        .iter()
        .map(|(_, b)| b)
        .sum::<u64>() as f64
        / 1e6;
    let mb = corpus.bytes as f64 / 1e6;
    let http: usize = corpus.products.iter().map(|p| p.http_calls.len()).sum();
    let endpoints: usize = corpus.products.iter().map(|p| p.endpoints.len()).sum();
    let sites = (resolved + external + unresolved).max(1) as f64;
    println!(
        "java: {} lines ({} of Java, {mb:.1} MB) in {products} products in {secs:.2} s = {:.0} lines/s, {:.2} MB/s; \
         peak RSS {peak:.0} MB (the store's block cache {cache_mb:.1} MB, table readers {readers_mb:.1} MB, \
         memtables {memtables_mb:.1} MB at the end); store {store_mb:.0} MB; {nodes} nodes, {edges} edges, {links} link edges ({unlinked} references unlinked; \
         {endpoints} endpoints and {http} cross-product HTTP calls planted); call sites: {resolved} in source, \
         {external} library, {unresolved} unresolved = {:.3} given a target, {:.3} of the non-library resolved; \
         corpus written in {gen_secs:.1} s ({:.0} lines/s)",
        corpus.lines,
        corpus.java_lines,
        corpus.lines as f64 / secs,
        mb / secs,
        (resolved + external) as f64 / sites,
        resolved as f64 / (resolved + unresolved).max(1) as f64,
        corpus.lines as f64 / gen_secs.max(1e-9),
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&store_dir);
    JavaRun {
        lines: corpus.java_lines,
        products,
        peak_rss_mb: peak,
    }
}

/// Lines of Kotlin a generated product holds.
const KOTLIN_PRODUCT_LINES: u64 = 50_000;

/// One unit of a generated Kotlin service: an entity, its repository, a service and a
/// controller (about 110 lines); `prev` is the unit whose service this one's calls.
fn kotlin_unit(pkg: &str, u: u64, prev: Option<u64>) -> Vec<(String, String)> {
    let dep = prev.map_or(String::new(), |p| format!(",\n    private val next: Service{p}"));
    let call_next = prev.map_or(String::new(), |_| {
        "        next.find(id)?.let { log(\"next ${it.name}\") }\n".to_string()
    });
    vec![
        (
            format!("Entity{u}.kt"),
            format!(
                "package {pkg}\n\nimport jakarta.persistence.*\n\n@Entity\n@Table(name = \"entity_{u}\")\nclass Entity{u}(\n    \
                 @Id @GeneratedValue var id: Long? = null,\n    var name: String,\n    var amount: Long = 0,\n    \
                 var active: Boolean = true,\n    @Column(name = \"owner_email\") var ownerEmail: String? = null,\n) {{\n    \
                 fun rename(to: String): Entity{u} = apply {{ name = to }}\n\n    fun total(extra: Long = 0): Long = amount + extra\n}}\n"
            ),
        ),
        (
            format!("Repository{u}.kt"),
            format!(
                "package {pkg}\n\nimport org.springframework.data.jpa.repository.JpaRepository\nimport org.springframework.data.jpa.repository.Query\n\n\
                 interface Repository{u} : JpaRepository<Entity{u}, Long> {{\n    fun findByName(name: String): List<Entity{u}>\n\n    \
                 fun countByActive(active: Boolean): Long\n\n    @Query(\"select e from Entity{u} e where e.amount > :min\")\n    \
                 fun large(min: Long): List<Entity{u}>\n}}\n"
            ),
        ),
        (
            format!("Service{u}.kt"),
            format!(
                "package {pkg}\n\nimport org.springframework.stereotype.Service\nimport org.springframework.transaction.annotation.Transactional\n\n\
                 @Service\nclass Service{u}(\n    private val repository: Repository{u}{dep},\n) {{\n    \
                 fun find(id: Long): Entity{u}? = repository.findById(id).orElse(null)\n\n    \
                 fun byName(name: String): List<Entity{u}> = repository.findByName(name).filter {{ it.active }}\n\n    \
                 @Transactional\n    fun create(name: String, amount: Long = 0): Entity{u} {{\n        \
                 val entity = Entity{u}(name = name, amount = amount)\n        log(\"create $name\")\n        \
                 return repository.save(entity)\n    }}\n\n    \
                 @Transactional\n    fun rename(id: Long, to: String): Entity{u}? {{\n        \
                 val entity = find(id) ?: return null\n{call_next}        \
                 return repository.save(entity.rename(to))\n    }}\n\n    \
                 fun totals(): Long = repository.findAll().sumOf {{ it.total(extra = 1) }}\n\n    \
                 fun report(): String {{\n        val count = repository.countByActive(true)\n        \
                 val large = repository.large(min = 100).map {{ it.name }}\n        \
                 return \"active=$count large=${{large.size}} total=${{totals()}}\"\n    }}\n\n    \
                 fun deactivate(id: Long) {{\n        find(id)?.apply {{\n            active = false\n            \
                 repository.save(this)\n        }}\n    }}\n\n    \
                 private fun log(message: String) {{\n        println(\"Service{u}: $message\")\n    }}\n}}\n"
            ),
        ),
        (
            format!("Controller{u}.kt"),
            format!(
                "package {pkg}\n\nimport org.springframework.web.bind.annotation.*\n\n@RestController\n\
                 @RequestMapping(\"/api/unit{u}\")\nclass Controller{u}(private val service: Service{u}) {{\n    \
                 @GetMapping(\"/{{id}}\")\n    fun get(@PathVariable id: Long): Entity{u}? = service.find(id)\n\n    \
                 @GetMapping\n    fun byName(@RequestParam name: String) = service.byName(name)\n\n    \
                 @PostMapping\n    fun create(@RequestBody body: Entity{u}): Entity{u} = service.create(body.name, amount = body.amount)\n\n    \
                 @PutMapping(value = [\"/{{id}}/name\", \"/{{id}}/rename\"])\n    \
                 fun rename(@PathVariable id: Long, @RequestParam to: String) = service.rename(id, to)\n\n    \
                 @GetMapping(\"/report\")\n    fun report(): String = service.report()\n\n    \
                 @DeleteMapping(\"/{{id}}\")\n    fun deactivate(@PathVariable id: Long) = service.deactivate(id)\n}}\n"
            ),
        ),
    ]
}

/// Writes `lines` lines of generated Kotlin services, one repository per product of
/// about [`KOTLIN_PRODUCT_LINES`]; returns the products' folders, the lines and the bytes.
fn write_kotlin_company(root: &Path, lines: u64) -> (Vec<PathBuf>, u64, u64) {
    let (mut written, mut bytes) = (0u64, 0u64);
    let mut products = Vec::new();
    let mut unit = 0u64;
    while written < lines {
        let p = products.len();
        let dir = root.join(format!("kt{p}"));
        write(
            &dir.join("src/main/resources/application.yml"),
            &format!("spring:\n  application:\n    name: kt{p}-service\n"),
        );
        let pkg = format!("com.bench.kt{p}");
        let src = dir.join(format!("src/main/kotlin/com/bench/kt{p}"));
        let mut in_product = 0u64;
        let mut prev = None;
        while in_product < KOTLIN_PRODUCT_LINES && written < lines {
            for (name, text) in kotlin_unit(&pkg, unit, prev) {
                let n = text.lines().count() as u64;
                in_product += n;
                written += n;
                bytes += text.len() as u64;
                write(&src.join(name), &text);
            }
            prev = Some(unit);
            unit += 1;
        }
        products.push(dir);
    }
    (products, written, bytes)
}

/// The `.kt` lines and bytes under `dir`.
fn kotlin_lines_under(dir: &Path) -> (u64, u64) {
    let (mut lines, mut bytes) = (0u64, 0u64);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "kt") {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                lines += text.lines().count() as u64;
                bytes += text.len() as u64;
            }
        }
    }
    (lines, bytes)
}

/// Indexes generated (`lines`) or given (`sources`) Kotlin products into a fresh store
/// and prints their figures beside Java's.
fn bench_kotlin(dir: &Path, lines: u64, sources: &[PathBuf]) {
    let root = dir.join("kotlin");
    let (repos, total_lines, bytes, what) = if sources.is_empty() {
        let (repos, l, b) = write_kotlin_company(&root, lines);
        (repos, l, b, "generated")
    } else {
        let (mut l, mut b) = (0, 0);
        for s in sources {
            let (sl, sb) = kotlin_lines_under(s);
            l += sl;
            b += sb;
        }
        (sources.to_vec(), l, b, "given")
    };
    let sources: Vec<ProductSource> = repos
        .iter()
        .enumerate()
        .map(|(i, r)| product(&format!("kotlin-{i}"), vec![r.clone()], Vec::new()))
        .collect();
    let store_dir = dir.join("store-kotlin");
    let store = Store::open_with_options(&store_dir, &StoreOptions::for_indexing()).expect("store");
    let company = company(store_dir.clone(), sources.clone());
    support::reset_peak_rss();
    let started = Instant::now();
    let (mut resolved, mut external, mut unresolved, mut files) = (0u64, 0u64, 0u64, 0u64);
    for source in &sources {
        let report = index_product(&store, &company, source, &NoProgress).expect("index");
        let stat = |k: &str| report.stats.get(k).copied().unwrap_or(0);
        resolved += stat("calls.resolved");
        external += stat("calls.external");
        unresolved += stat("calls.unresolved");
        files += stat("kotlin.files");
    }
    let secs = started.elapsed().as_secs_f64();
    let mb = bytes as f64 / 1e6;
    let sites = (resolved + external + unresolved).max(1) as f64;
    println!(
        "kotlin ({what}): {total_lines} lines of Kotlin ({mb:.1} MB, {files} files) in {} products in {secs:.2} s \
         = {:.0} lines/s, {:.2} MB/s; peak RSS {:.0} MB; call sites: {resolved} in source, {external} library, \
         {unresolved} unresolved = {:.3} given a target, {:.3} of the non-library resolved",
        sources.len(),
        total_lines as f64 / secs,
        mb / secs,
        support::peak_rss_mb(),
        (resolved + external) as f64 / sites,
        resolved as f64 / (resolved + unresolved).max(1) as f64,
    );
    drop(store);
    let _ = std::fs::remove_dir_all(&root);
    let _ = std::fs::remove_dir_all(&store_dir);
}

/// The old DDL corpus, kept for comparison (`--ddl-corpus dense`): PostgreSQL only, no
/// comments, no data, five columns a table — about 42 bytes of SQL per graph node, denser
/// than any real schema.
fn dense_ddl(table: &mut u64) -> String {
    let mut sql = String::new();
    while sql.len() < 1 << 20 {
        let t = *table;
        let _ = writeln!(
            sql,
            "-- table {t}\nCREATE TABLE t{t} (\n  id BIGSERIAL PRIMARY KEY,\n  name VARCHAR(200) NOT NULL,\n  \
             amount NUMERIC(12,2) DEFAULT 0,\n  parent_id BIGINT REFERENCES t{} (id),\n  created_at TIMESTAMP NOT NULL DEFAULT now()\n);\n\
             CREATE INDEX ix_t{t}_name ON t{t} (name);\n\
             ALTER TABLE t{t} ADD CONSTRAINT uq_t{t} UNIQUE (name, parent_id);",
            t.max(1) - 1
        );
        if t % 10 == 9 {
            let _ = writeln!(
                sql,
                "CREATE VIEW v{t} AS SELECT a.id, b.name FROM t{t} a JOIN t{} b ON b.id = a.parent_id;",
                t - 1
            );
        }
        *table += 1;
    }
    sql
}

/// Extra columns a generated table may have, as (name, PostgreSQL type, MySQL type).
const EXTRA_COLUMNS: &[(&str, &str, &str)] = &[
    ("description", "TEXT", "text"),
    (
        "quantity",
        "INTEGER NOT NULL DEFAULT 1",
        "int NOT NULL DEFAULT '1'",
    ),
    (
        "currency",
        "CHAR(3) NOT NULL DEFAULT 'EUR'",
        "char(3) NOT NULL DEFAULT 'EUR'",
    ),
    ("external_ref", "VARCHAR(128)", "varchar(128) DEFAULT NULL"),
    (
        "is_active",
        "BOOLEAN NOT NULL DEFAULT TRUE",
        "tinyint(1) NOT NULL DEFAULT '1'",
    ),
    ("valid_from", "DATE", "date DEFAULT NULL"),
    ("owner_email", "VARCHAR(320)", "varchar(320) DEFAULT NULL"),
    (
        "version",
        "BIGINT NOT NULL DEFAULT 0",
        "bigint NOT NULL DEFAULT '0'",
    ),
];

/// One PostgreSQL Flyway migration of about 1 MB: commented tables of 6–14 columns, a
/// `CHECK` or a cast now and then (those go to sqlparser), indexes, foreign keys added by
/// `ALTER TABLE`, `COMMENT ON`, a view every tenth table, an audit function and trigger
/// every 25th, and seed rows for every eighth.
fn postgres_ddl(table: &mut u64) -> String {
    let mut sql = String::from(
        "-- Generated migration: checkout domain tables.\n-- Owner: platform team. Do not edit applied migrations.\n\nSET search_path = app, public;\n\n",
    );
    while sql.len() < 1 << 20 {
        let t = *table;
        let p = t.max(1) - 1;
        let _ = write!(
            sql,
            "-- ------------------------------------------------------------------\n\
             -- t{t}: line items of flow {} (tenant-scoped)\n\
             -- ------------------------------------------------------------------\n\
             CREATE TABLE IF NOT EXISTS app.t{t} (\n    \
             id            BIGSERIAL     PRIMARY KEY,\n    \
             tenant_id     BIGINT        NOT NULL,\n    \
             parent_id     BIGINT        REFERENCES app.t{p} (id) ON DELETE CASCADE,\n    \
             code          VARCHAR(64)   NOT NULL,\n    \
             name          VARCHAR(200)  NOT NULL,\n    \
             amount        NUMERIC(12,2) NOT NULL DEFAULT 0{},\n    \
             status        VARCHAR(16)   NOT NULL DEFAULT 'NEW', -- NEW, ACTIVE or CLOSED\n",
            t % 97,
            if t.is_multiple_of(5) {
                " CHECK (amount >= 0)"
            } else {
                ""
            },
        );
        for (name, pg, _) in EXTRA_COLUMNS.iter().take((t % 9) as usize) {
            let _ = writeln!(sql, "    {name:<13} {pg},");
        }
        let _ = write!(
            sql,
            "    attributes    JSONB{},\n    \
             created_at    TIMESTAMPTZ   NOT NULL DEFAULT now(),\n    \
             updated_at    TIMESTAMPTZ,\n    \
             CONSTRAINT uq_t{t}_code UNIQUE (tenant_id, code)\n);\n\
             COMMENT ON TABLE app.t{t} IS 'Line items of flow {}; one row per priced item.';\n\
             CREATE INDEX ix_t{t}_parent ON app.t{t} (parent_id);\n\
             CREATE INDEX ix_t{t}_status ON app.t{t} USING btree (status, created_at DESC);\n\
             ALTER TABLE ONLY app.t{t}\n    ADD CONSTRAINT fk_t{t}_tenant FOREIGN KEY (tenant_id) REFERENCES app.tenants (id);\n\n",
            if t.is_multiple_of(7) { " NOT NULL DEFAULT '{}'::jsonb" } else { "" },
            t % 97,
        );
        if t.is_multiple_of(8) {
            let _ = writeln!(
                sql,
                "INSERT INTO app.t{t} (tenant_id, code, name, amount, status) VALUES"
            );
            for r in 0..6 {
                let sep = if r == 5 { ";\n\n" } else { ",\n" };
                let _ = write!(
                    sql,
                    "    (1, 'code-{r}', 'Seed item {r} of t{t}', {r}.50, 'ACTIVE'){sep}"
                );
            }
        }
        if t % 10 == 9 {
            let _ = write!(
                sql,
                "CREATE OR REPLACE VIEW app.v{t} AS\n    SELECT a.id, a.code, b.name AS parent_name, a.amount\n    \
                 FROM app.t{t} a\n    JOIN app.t{p} b ON b.id = a.parent_id\n    WHERE a.status <> 'CLOSED';\n\n"
            );
        }
        if t % 25 == 24 {
            let _ = write!(
                sql,
                "CREATE OR REPLACE FUNCTION app.audit_t{t}() RETURNS trigger AS $$\nBEGIN\n    \
                 INSERT INTO app.audit_log (table_name, row_id, changed_at) VALUES ('t{t}', NEW.id, now());\n    \
                 UPDATE app.t{p} SET updated_at = now() WHERE id = NEW.parent_id;\n    RETURN NEW;\nEND;\n$$ LANGUAGE plpgsql;\n\n\
                 CREATE TRIGGER trg_t{t}_audit AFTER INSERT OR UPDATE ON app.t{t}\n    \
                 FOR EACH ROW EXECUTE FUNCTION app.audit_t{t}();\n\n"
            );
        }
        *table += 1;
    }
    sql
}

/// One `mysqldump` file of about 1 MB: backticks, inline keys, `ENGINE=` options, an `enum`
/// column in every third table (sqlparser's), the dump's version comments, and each table's
/// rows as one multi-row `INSERT` between `LOCK TABLES` and `UNLOCK TABLES`.
fn mysql_ddl(table: &mut u64) -> String {
    let mut sql = String::from(
        "-- MySQL dump 10.13  Distrib 8.0.36, for Linux (x86_64)\n--\n-- Host: localhost    Database: shop\n\
         -- ------------------------------------------------------\n\
         /*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;\n/*!50503 SET NAMES utf8mb4 */;\n\
         /*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;\n\n",
    );
    while sql.len() < 1 << 20 {
        let t = *table;
        let p = t.max(1) - 1;
        let status = if t.is_multiple_of(3) {
            "enum('NEW','ACTIVE','CLOSED') NOT NULL DEFAULT 'NEW'"
        } else {
            "varchar(16) NOT NULL DEFAULT 'NEW'"
        };
        let _ = write!(
            sql,
            "--\n-- Table structure for table `t{t}`\n--\n\n\
             DROP TABLE IF EXISTS `t{t}`;\n\
             /*!40101 SET @saved_cs_client     = @@character_set_client */;\n\
             /*!50503 SET character_set_client = utf8mb4 */;\n\
             CREATE TABLE `t{t}` (\n  \
             `id` bigint NOT NULL AUTO_INCREMENT,\n  \
             `parent_id` bigint DEFAULT NULL,\n  \
             `code` varchar(64) NOT NULL,\n  \
             `name` varchar(200) NOT NULL,\n  \
             `amount` decimal(12,2) NOT NULL DEFAULT '0.00',\n  \
             `status` {status},\n"
        );
        for (name, _, my) in EXTRA_COLUMNS.iter().take((t % 9) as usize) {
            let _ = writeln!(sql, "  `{name}` {my},");
        }
        let _ = write!(
            sql,
            "  `created_at` datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n  \
             PRIMARY KEY (`id`),\n  \
             UNIQUE KEY `uq_t{t}_code` (`code`),\n  \
             KEY `ix_t{t}_parent` (`parent_id`),\n  \
             CONSTRAINT `fk_t{t}_parent` FOREIGN KEY (`parent_id`) REFERENCES `t{p}` (`id`)\n\
             ) ENGINE=InnoDB AUTO_INCREMENT=7 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci;\n\
             /*!40101 SET character_set_client = @saved_cs_client */;\n\n\
             --\n-- Dumping data for table `t{t}`\n--\n\n\
             LOCK TABLES `t{t}` WRITE;\n/*!40000 ALTER TABLE `t{t}` DISABLE KEYS */;\nINSERT INTO `t{t}` VALUES "
        );
        for r in 0..4 {
            let sep = if r == 3 { ";\n" } else { "," };
            let extra = ",NULL".repeat((t % 9) as usize);
            let _ = write!(
                sql,
                "({r},NULL,'code-{r}','Item {r}',{r}.50,'NEW'{extra},'2026-01-0{} 10:00:00.000000'){sep}",
                r + 1
            );
        }
        let _ = write!(
            sql,
            "/*!40000 ALTER TABLE `t{t}` ENABLE KEYS */;\nUNLOCK TABLES;\n\n"
        );
        *table += 1;
    }
    sql
}

/// One H2 init script of about 1 MB, the way Spring Boot tests and small services ship them.
fn h2_ddl(table: &mut u64) -> String {
    let mut sql = String::from("-- H2 schema for local runs and integration tests.\n\n");
    while sql.len() < 1 << 20 {
        let t = *table;
        let p = t.max(1) - 1;
        let _ = write!(
            sql,
            "CREATE TABLE IF NOT EXISTS t{t} (\n    \
             id         BIGINT AUTO_INCREMENT PRIMARY KEY,\n    \
             parent_id  BIGINT,\n    \
             code       VARCHAR(64)  NOT NULL,\n    \
             name       VARCHAR(200) NOT NULL,\n    \
             amount     DECIMAL(12,2) DEFAULT 0 NOT NULL,\n    \
             created_at TIMESTAMP    DEFAULT CURRENT_TIMESTAMP NOT NULL,\n    \
             CONSTRAINT fk_t{t}_parent FOREIGN KEY (parent_id) REFERENCES t{p} (id)\n);\n\
             CREATE UNIQUE INDEX IF NOT EXISTS ux_t{t}_code ON t{t} (code);\n\
             INSERT INTO t{t} (code, name, amount) VALUES ('a', 'Alpha', 1.00), ('b', 'Beta', 2.00);\n\n"
        );
        *table += 1;
    }
    sql
}

/// Writes the DDL corpus: `dense` is the old PostgreSQL-only one; `mixed` (the default) is,
/// by files of about 1 MB, half PostgreSQL Flyway migrations, 35% MySQL dumps with their
/// rows and 15% H2 scripts. Returns (bytes, bytes of INSERT statements, tables).
fn write_ddl(repo: &Path, mb: u64, corpus: &str) -> (usize, usize, u64) {
    let (mut total, mut inserts, mut table) = (0usize, 0usize, 0u64);
    let mut file = 1;
    while total < (mb as usize) << 20 {
        let (rel, sql) = match (corpus, file % 20) {
            ("dense", _) => (format!("db/migration/V{file}__tables.sql"), dense_ddl(&mut table)),
            (_, 0..=9) => (
                format!("db/migration/V{file}__checkout.sql"),
                postgres_ddl(&mut table),
            ),
            (_, 10..=16) => (format!("db/dump/shop-{file}-mysql.sql"), mysql_ddl(&mut table)),
            _ => (
                format!("src/main/resources/schema-{file}-h2.sql"),
                h2_ddl(&mut table),
            ),
        };
        total += sql.len();
        inserts += sql
            .split(";\n")
            .filter(|s| s.trim_start().starts_with("INSERT"))
            .map(|s| s.len() + 2)
            .sum::<usize>();
        write(&repo.join(rel), &sql);
        file += 1;
    }
    (total, inserts, table)
}

fn bench_ddl(dir: &Path, store: &Store, mb: u64, corpus: &str) {
    let repo = dir.join(format!("ddl-{corpus}"));
    let (total, inserts, tables) = write_ddl(&repo, mb, corpus);
    let (secs, report) = run(store, product(&format!("ddl-{corpus}"), vec![repo], Vec::new()));
    println!(
        "ddl ({corpus}): {:.1} MB ({:.0}% INSERT rows), {tables} tables, {} nodes ({:.0} bytes/node) in {secs:.2} s \
         = {:.2} MB/s; {} warnings; peak RSS {:.0} MB",
        total as f64 / 1e6,
        inserts as f64 * 100.0 / total as f64,
        report.commit.nodes,
        total as f64 / report.commit.nodes.max(1) as f64,
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

/// Writes the Java company of `lines` lines in `products` products under `dir` with its
/// config and the question targets it planted, for a benchmark that serves it.
fn write_corpus(dir: &Path, lines: u64, products: u32) {
    let corpus = write_java_company(&dir.join("repos"), &JavaCorpusSpec::new(products, lines))
        .expect("write the Java corpus");
    let mut toml = String::from("[store]\npath = \"store\"\n");
    let mut targets = Vec::new();
    for (i, p) in corpus.products.iter().enumerate() {
        let repo = p.dir.strip_prefix(dir).unwrap_or(&p.dir).display().to_string();
        toml.push_str(&format!(
            "\n[[product]]\nname = \"{}\"\narea = \"area{}\"\nrepos = [\"{repo}\"]\n",
            p.name,
            i % 3
        ));
        targets.extend(p.endpoints.iter().map(|e| format!("method {}", e.handler)));
        for t in &p.tables {
            targets.push(format!("table {}", t.name));
            targets.extend(t.writers.iter().map(|m| format!("method {m}")));
        }
        targets.extend(p.produces.iter().map(|u| format!("method {}", u.method)));
    }
    targets.sort();
    targets.dedup();
    write(&dir.join("semgraph.toml"), &toml);
    write(&dir.join("targets.txt"), &(targets.join("\n") + "\n"));
    println!(
        "wrote {} lines in {} products and {} targets to {}",
        corpus.lines,
        corpus.products.len(),
        targets.len(),
        dir.display()
    );
}

fn main() {
    let args = parse_args();
    let corpus_dir: String = support::arg("--write-corpus", String::new());
    if !corpus_dir.is_empty() {
        let lines = args.java_lines.first().copied().unwrap_or(200_000);
        write_corpus(Path::new(&corpus_dir), lines, args.java_products);
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let store =
        Store::open_with_options(dir.path().join("store"), &StoreOptions::for_indexing()).expect("store");
    println!("# semgraph indexer benchmark");
    let largest = args.java_lines.iter().copied().max().unwrap_or(1).max(1);
    let mut java_runs = Vec::new();
    for &lines in &args.java_lines {
        // Products scale with the size, so each is about as large at every size.
        let products = ((u64::from(args.java_products) * lines).div_ceil(largest)).max(1) as u32;
        java_runs.push(bench_java(dir.path(), lines, products, args.heap_per_product));
    }
    if let (Some(small), Some(large)) = (java_runs.first(), java_runs.last()) {
        if java_runs.len() > 1 {
            println!(
                "java memory: peak RSS {:.0} MB at {} lines ({} products) vs {:.0} MB at {} lines ({} products): \
                 {:.2}x the memory for {:.1}x the lines",
                small.peak_rss_mb,
                small.lines,
                small.products,
                large.peak_rss_mb,
                large.lines,
                large.products,
                large.peak_rss_mb / small.peak_rss_mb.max(1.0),
                large.lines as f64 / small.lines.max(1) as f64
            );
        }
    }
    if args.kotlin_lines > 0 || !args.kotlin_sources.is_empty() {
        bench_kotlin(dir.path(), args.kotlin_lines, &args.kotlin_sources);
    }
    for corpus in args.ddl_corpus.split(',') {
        if args.ddl_mb > 0 {
            bench_ddl(dir.path(), &store, args.ddl_mb, corpus);
        }
    }
    bench_jira(dir.path(), &store, args.jira_issues);
}
