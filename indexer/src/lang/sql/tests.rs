//! Tests of the SQL front-end: a fixture per dialect rendered and compared whole, the fixture
//! company checked against the tables of its `EXPECTED.md`, and hostile inputs.

use std::fmt::Write as _;

use super::*;
use crate::testing::{expected_rows, read};

fn access(a: Access) -> &'static str {
    match a {
        Access::Read => "read",
        Access::Write => "write",
    }
}

fn touches(list: &[(String, Access)]) -> String {
    list.iter()
        .map(|(t, a)| format!("{t}:{}", access(*a)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per fact, in the schema's order; `@n` is the line number.
fn render(schema: &Schema) -> String {
    let mut out = String::new();
    for t in schema.tables() {
        let qualified = match &t.schema {
            Some(s) => format!("{s}.{}", t.name),
            None => t.name.clone(),
        };
        let _ = writeln!(out, "table {qualified} @{}", t.line);
        for c in &t.columns {
            let mut line = format!("  {} {}", c.name, c.data_type);
            if !c.nullable {
                line.push_str(" not null");
            }
            if let Some(d) = &c.default {
                let _ = write!(line, " default {d}");
            }
            if c.identity {
                line.push_str(" identity");
            }
            let _ = writeln!(out, "{line} @{}", c.line);
        }
        if !t.primary_key.is_empty() {
            let name = t
                .primary_key_name
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default();
            let _ = writeln!(out, "  pk {name}({})", t.primary_key.join(", "));
        }
        for u in &t.unique_keys {
            let name = u.name.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
            let _ = writeln!(out, "  unique {name}({})", u.columns.join(", "));
        }
        for fk in &t.foreign_keys {
            let target = match &fk.ref_schema {
                Some(s) => format!("{s}.{}", fk.ref_table),
                None => fk.ref_table.clone(),
            };
            let _ = writeln!(
                out,
                "  fk {} ({}) -> {target} ({}) @{}",
                fk.name.as_deref().unwrap_or("-"),
                fk.columns.join(", "),
                fk.ref_columns.join(", "),
                fk.line
            );
        }
        if let Some(p) = &t.partition_of {
            let _ = writeln!(out, "  partition of {p}");
        }
        if let Some(p) = &t.partition_by {
            let _ = writeln!(out, "  partition by {p}");
        }
        if !t.inherits.is_empty() {
            let _ = writeln!(out, "  inherits {}", t.inherits.join(", "));
        }
    }
    for i in schema.indexes() {
        let _ = writeln!(
            out,
            "index {} on {} ({}){} {:?} @{}",
            i.name.as_deref().unwrap_or("-"),
            i.table,
            i.columns.join(", "),
            if i.unique { " unique" } else { "" },
            i.method,
            i.line
        );
    }
    for v in schema.views() {
        let _ = writeln!(out, "view {} reads {} @{}", v.name, v.reads.join(", "), v.line);
    }
    for t in schema.triggers() {
        let events: Vec<String> = t.events.iter().map(|e| format!("{e:?}")).collect();
        let _ = writeln!(
            out,
            "trigger {} on {} {:?} {} function {} touches {} @{}",
            t.name,
            t.table,
            t.timing,
            events.join("|"),
            t.function.as_deref().unwrap_or("-"),
            touches(&t.touches),
            t.line
        );
    }
    for r in schema.routines() {
        let _ = writeln!(
            out,
            "routine {} {:?} touches {} @{}",
            r.name,
            r.kind,
            touches(&r.touches),
            r.line
        );
    }
    out
}

/// Parses and applies `files` (repository-relative) in Flyway order.
fn schema_of(files: &[&str]) -> (Schema, Vec<SchemaFile>) {
    let paths: Vec<String> = files.iter().map(|f| (*f).to_owned()).collect();
    let mut schema = Schema::default();
    let mut parsed = Vec::new();
    for path in flyway_order(&paths) {
        let text = read(&path);
        let file = parse_schema_file(&path, &text, detect_dialect(&path, &text));
        schema.apply(&file);
        parsed.push(file);
    }
    (schema, parsed)
}

fn check(files: &[&str], expect: &str) {
    let (schema, parsed) = schema_of(files);
    let mut actual = render(&schema);
    if parsed.iter().any(|f| !f.warnings.is_empty()) {
        actual.push('\n');
    }
    for file in &parsed {
        for w in &file.warnings {
            let _ = writeln!(actual, "warning @{}: {}", w.line, w.message);
        }
    }
    assert_eq!(actual.trim(), expect.trim(), "\n--- actual ---\n{actual}");
}

// ---------------------------------------------------------------------------------------
// The fixture company, against the tables of its EXPECTED.md.

const ACME_PRODUCTS: &[(&str, &[&str])] = &[
    (
        "orders",
        &[
            "fixtures/acme/orders/orders-service/src/main/resources/db/migration/V3__audit_trigger.sql",
            "fixtures/acme/orders/orders-service/src/main/resources/db/migration/V1__init.sql",
            "fixtures/acme/orders/orders-service/src/main/resources/db/migration/V2__shipping.sql",
        ],
    ),
    (
        "payments",
        &["fixtures/acme/payments/src/main/resources/db/schema-mysql.sql"],
    ),
    (
        "inventory",
        &["fixtures/acme/inventory/src/main/resources/schema.sql"],
    ),
    (
        "notifications",
        &["fixtures/acme/notifications/src/main/resources/schema.sql"],
    ),
    (
        "logistics",
        &[
            "fixtures/acme/shipping/shipping-service/src/main/resources/db/migration/V2__parcels.sql",
            "fixtures/acme/shipping/shipping-service/src/main/resources/db/migration/V1__shipments.sql",
        ],
    ),
];

fn joined<S: AsRef<str>>(items: &[S]) -> String {
    items.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(", ")
}

fn sorted(mut rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    rows.sort();
    rows
}

/// Each product of the fixture company replayed as the pipeline replays a repository: its
/// scripts in Flyway order and its Liquibase changelogs.
fn acme() -> Vec<(&'static str, Schema)> {
    // (product, its repository's folder), as fixtures/acme/semgraph.toml names them.
    [
        ("orders", "orders"),
        ("payments", "payments"),
        ("inventory", "inventory"),
        ("notifications", "notifications"),
        ("catalog", "catalog"),
        ("logistics", "shipping"),
    ]
    .into_iter()
    .map(|(product, folder)| {
        let root = crate::testing::repo_root().join("fixtures/acme").join(folder);
        let mut warnings = Vec::new();
        let files = crate::walk::walk_repo(&root, &mut warnings);
        let configs = crate::lang::config::read_configs(&files, &mut warnings);
        let refs: Vec<&crate::lang::config::ParsedConfig> = configs.iter().collect();
        let scope = crate::lang::config::ConfigScope::new(&refs, &[]);
        let config = |key: &str| scope.lookup(None, key);
        let modules = [crate::lang::liquibase::ModuleChangelogs {
            dir: "",
            config: &config,
        }];
        let read = crate::lang::schemas::read_repository_schema(&files, &modules);
        // The catalog's changelogs warn on purpose (a changelog nobody includes, a
        // property with a value per database); every other product reads cleanly.
        if product != "catalog" {
            assert!(read.warnings.is_empty(), "{product}: {:?}", read.warnings);
        }
        (product, read.schema)
    })
    .collect()
}

#[test]
fn acme_dialects_are_detected_from_names_and_hints() {
    let dialect = |path: &str| detect_dialect(path, &read(path));
    assert_eq!(dialect(ACME_PRODUCTS[0].1[1]), SqlDialect::Postgres);
    assert_eq!(dialect(ACME_PRODUCTS[1].1[0]), SqlDialect::MySql);
    assert_eq!(dialect(ACME_PRODUCTS[2].1[0]), SqlDialect::H2);
    assert_eq!(dialect(ACME_PRODUCTS[3].1[0]), SqlDialect::Postgres);
}

#[test]
fn acme_tables_match_expected() {
    let mut actual = Vec::new();
    for (product, schema) in acme() {
        for t in schema.tables() {
            let columns: Vec<&str> = t.columns.iter().map(|c| c.name.as_str()).collect();
            actual.push(vec![
                product.to_owned(),
                t.name.clone(),
                joined(&columns),
                joined(&t.primary_key),
            ]);
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Tables")));
}

#[test]
fn acme_foreign_keys_match_expected() {
    let mut actual = Vec::new();
    for (_, schema) in acme() {
        for t in schema.tables() {
            for fk in &t.foreign_keys {
                actual.push(vec![t.name.clone(), joined(&fk.columns), fk.ref_table.clone()]);
            }
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Foreign keys")));
}

#[test]
fn acme_indexes_match_expected() {
    let mut actual = Vec::new();
    for (_, schema) in acme() {
        for i in schema.indexes() {
            let Some(name) = &i.name else { continue };
            let unique = if i.unique { "yes" } else { "no" };
            actual.push(vec![
                i.table.clone(),
                name.clone(),
                joined(&i.columns),
                unique.to_owned(),
            ]);
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Indexes")));
}

#[test]
fn acme_triggers_match_expected() {
    let mut actual = Vec::new();
    for (_, schema) in acme() {
        for t in schema.triggers() {
            let timing = match t.timing {
                TriggerTiming::Before => "BEFORE",
                TriggerTiming::After => "AFTER",
                TriggerTiming::InsteadOf => "INSTEAD OF",
            };
            let events: Vec<String> = t
                .events
                .iter()
                .map(|e| format!("{e:?}").to_ascii_uppercase())
                .collect();
            let tables: Vec<&str> = t.touches.iter().map(|(table, _)| table.as_str()).collect();
            actual.push(vec![
                t.table.clone(),
                t.name.clone(),
                timing.to_owned(),
                joined(&events),
                joined(&tables),
            ]);
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Triggers")));
}

#[test]
fn acme_constraint_names_match_expected() {
    let schemas = acme();
    for row in expected_rows("Constraint names") {
        let (product, table, kind, name, columns, target) =
            (&row[0], &row[1], &row[2], &row[3], &row[4], &row[5]);
        let schema = &schemas.iter().find(|(p, _)| p == product).expect("product").1;
        let t = schema.table(table).unwrap_or_else(|| panic!("{product}.{table}"));
        let found = match kind.as_str() {
            "primary key" => {
                t.primary_key_name.as_deref() == Some(name) && joined(&t.primary_key) == *columns
            }
            "unique" => t
                .unique_keys
                .iter()
                .any(|k| k.name.as_deref() == Some(name) && joined(&k.columns) == *columns),
            _ => t.foreign_keys.iter().any(|fk| {
                let cols = if fk.ref_columns.is_empty() {
                    schema
                        .table(&fk.ref_table)
                        .map(|r| r.primary_key.clone())
                        .unwrap_or_default()
                } else {
                    fk.ref_columns.clone()
                };
                fk.name.as_deref() == Some(name)
                    && joined(&fk.columns) == *columns
                    && format!("{}.{}", fk.ref_table, joined(&cols)) == *target
            }),
        };
        assert!(found, "{product}.{table}: {kind} {name} ({columns}) -> {target}");
    }
}

#[test]
fn acme_views_match_expected() {
    let mut actual = Vec::new();
    for (_, schema) in acme() {
        for v in schema.views() {
            actual.push(vec![v.name.clone(), joined(&v.reads)]);
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Views")));
}

#[test]
fn acme_routines_match_expected() {
    let mut actual = Vec::new();
    for (_, schema) in acme() {
        for r in schema.routines() {
            let kind = match r.kind {
                RoutineKind::Function => "function",
                RoutineKind::Procedure => "procedure",
            };
            let mut tables: Vec<&str> = r.touches.iter().map(|(table, _)| table.as_str()).collect();
            tables.dedup();
            actual.push(vec![r.name.clone(), kind.to_owned(), joined(&tables)]);
        }
    }
    assert_eq!(sorted(actual), sorted(expected_rows("Routines")));
}

#[test]
fn acme_payments_foreign_key_keeps_the_orders_db_qualifier() {
    let (schema, _) = schema_of(ACME_PRODUCTS[1].1);
    let payments = schema.table("payments").expect("payments table");
    let fk = &payments.foreign_keys[0];
    assert_eq!(
        (fk.ref_schema.as_deref(), fk.ref_table.as_str()),
        (Some("orders_db"), "orders")
    );
    let col = &payments.columns[9];
    assert_eq!(
        (
            col.name.as_str(),
            col.data_type.as_str(),
            col.nullable,
            col.default.as_deref(),
            col.line
        ),
        (
            "created_at",
            "DATETIME(6)",
            false,
            Some("CURRENT_TIMESTAMP(6)"),
            17
        )
    );
}

#[test]
fn mysql_fixture_schema() {
    check(
        &["fixtures/sql/mysql/schema.sql"],
        r#"
table authors @6
  id INT UNSIGNED not null identity @7
  name VARCHAR(120) not null @8
  bio TEXT @9
  pk (id)
  unique ux_authors_name (name)
table catalog.books @14
  id BIGINT not null identity @15
  author_id INT UNSIGNED not null @16
  title VARCHAR(255) not null @17
  summary TEXT @18
  price_cents INT not null default 0 @19
  status ENUM('DRAFT', 'PUBLISHED') not null default 'DRAFT' @20
  pk (id)
  fk fk_books_author (author_id) -> authors (id) @24
table book_events @27
  id BIGINT not null identity @28
  book_id BIGINT not null @29
  kind VARCHAR(16) not null @30
  at DATETIME not null default CURRENT_TIMESTAMP @31
  pk (id)
index ux_authors_name on authors (name) unique BTree @11
index ix_books_author on books (author_id) BTree @21
index ix_books_status_title on books (status, title) BTree @22
index ft_books_text on books (title, summary) FullText @23
index ix_book_events_book on book_events (book_id) BTree @35
view published_books reads books, authors @39
view author_stats reads books, authors @45
trigger trg_books_insert on books After Insert function - touches book_events:write @51
trigger trg_books_status on books Before Update function - touches book_events:write @58
routine archive_drafts Procedure touches books:read, book_events:write, books:write, authors:read @66
"#,
    );
}

#[test]
fn postgres_flyway_folder_applied_in_version_order() {
    check(
        &[
            "fixtures/sql/postgres/V3__functions.sql",
            "fixtures/sql/postgres/V1__init.sql",
            "fixtures/sql/postgres/V2__alter.sql",
        ],
        r#"
table ledger.accounts @4
  id BIGSERIAL not null identity @5
  Code VARCHAR(32) not null @6
  tags JSONB not null default '{}'::JSONB @7
  opened_at TIMESTAMPTZ not null default now() @8
  closed_at TIMESTAMPTZ @4
  pk (id)
  unique (Code)
table entries @13
  id BIGINT not null identity @14
  account_id BIGINT not null @15
  amount NUMERIC(14,2) not null @16
  booked_at DATE not null @17
  currency CHAR(3) not null default 'EUR' @1
  pk (id, booked_at)
  fk - (account_id) -> ledger.accounts (id) @15
  fk fk_entries_currency (currency) -> currencies (code) @3
  partition by RANGE(booked_at)
table entries_2026 @22
  id BIGINT not null identity @14
  account_id BIGINT not null @15
  amount NUMERIC(14,2) not null @16
  booked_at DATE not null @17
  currency CHAR(3) not null default 'EUR' @1
  pk (id, booked_at)
  partition of entries
table audit_base @25
  changed_at TIMESTAMPTZ not null default now() @26
  changed_by TEXT @27
table account_audit @30
  changed_at TIMESTAMPTZ not null default now() @26
  changed_by TEXT @27
  account_id BIGINT not null @31
  operation CHAR(1) not null @32
  inherits audit_base
table currencies @35
  code CHAR(3) not null @35
  name TEXT not null @35
  pk (code)
index ix_accounts_tags on accounts (tags) Gin @11
trigger trg_accounts_audit on accounts After Insert|Update function audit_account touches entries:read, account_audit:write, accounts:write @18
routine audit_account Function touches entries:read, account_audit:write, accounts:write @1
routine balance Function touches entries:read @22
"#,
    );
}

#[test]
fn h2_fixture_schema() {
    check(
        &["fixtures/sql/h2/schema.sql"],
        r#"
table carriers @3
  id BIGINT not null identity @4
  code VARCHAR(16) not null @5
  active BOOLEAN not null default true @6
  pk (id)
table parcels @9
  id BIGINT not null identity @10
  carrier_id BIGINT not null @11
  weight_grams INT not null default 0 @12
  label VARCHAR(64) @13
  pk (id)
  unique uq_parcels_label (label)
  fk fk_parcels_carrier (carrier_id) -> carriers (id) @14
index uq_parcels_label on parcels (label) unique BTree @15
index ix_parcels_carrier on parcels (carrier_id) BTree @18
view heavy_parcels reads parcels, carriers @20
"#,
    );
}

#[test]
fn broken_statements_are_skipped_with_a_warning_and_neighbours_still_count() {
    check(
        &["fixtures/sql/broken/mixed.sql"],
        r#"
table good_one @2
  id INT not null @2
  pk (id)
table good_two @6
  id INT not null @7
  one_id INT @8
  pk (id)
  fk - (one_id) -> good_one (id) @8
index ix_good_two_one on good_two (one_id) BTree @15
view good_view reads good_two @19

warning @4: sql parser error: Expected: column name or constraint definition, found: , at Line: 1, Column: 45
warning @11: unrecognised statement `FROBNICATE THE DATABASE`
warning @13: trigger `trg_broken`: expected BEFORE, AFTER or INSTEAD OF
warning @17: sql parser error: Expected: identifier, found: EOF
"#,
    );
}

// ---------------------------------------------------------------------------------------
// Statement splitting.

fn split(text: &str, dialect: SqlDialect) -> Vec<(u32, String)> {
    split_statements(text, dialect)
        .into_iter()
        .map(|s| (s.line, s.text))
        .collect()
}

#[test]
fn split_ignores_semicolons_in_comments_strings_and_quoted_names() {
    let text = "-- one; two\nCREATE TABLE \"a;b\" (x TEXT DEFAULT 'x;y'); /* c; */\n\n  SELECT 1 /* nested /* ; */ ; */;\nSELECT 'it''s;'";
    assert_eq!(
        split(text, SqlDialect::Postgres),
        vec![
            (2, "CREATE TABLE \"a;b\" (x TEXT DEFAULT 'x;y')".to_owned()),
            (4, "SELECT 1 /* nested /* ; */ ; */".to_owned()),
            (5, "SELECT 'it''s;'".to_owned()),
        ]
    );
}

#[test]
fn split_keeps_dollar_quoted_bodies_whole() {
    let text = "CREATE FUNCTION f() RETURNS int AS $fn$ BEGIN x := $$;$$; RETURN $1; END $fn$ LANGUAGE plpgsql;\nSELECT 2;";
    let parts = split(text, SqlDialect::Postgres);
    assert_eq!(parts.len(), 2);
    assert!(parts[0].1.ends_with("LANGUAGE plpgsql"), "{parts:?}");
    assert_eq!(parts[1], (2, "SELECT 2".to_owned()));
}

#[test]
fn split_follows_mysql_delimiter_commands() {
    let text = "DELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1; SELECT 'a\\'b;'; END //\ndelimiter ;\nSELECT 3;\n";
    assert_eq!(
        split(text, SqlDialect::MySql),
        vec![
            (
                2,
                "CREATE PROCEDURE p() BEGIN SELECT 1; SELECT 'a\\'b;'; END".to_owned()
            ),
            (4, "SELECT 3".to_owned()),
        ]
    );
}

#[test]
fn split_skips_copy_data_up_to_the_terminator() {
    let text = "COPY t (a) FROM stdin;\nx;y\n-- not a comment\n\\.\nCREATE TABLE u (a INT);\n";
    assert_eq!(
        split(text, SqlDialect::Postgres),
        vec![
            (1, "COPY t (a) FROM stdin".to_owned()),
            (5, "CREATE TABLE u (a INT)".to_owned())
        ]
    );
}

// ---------------------------------------------------------------------------------------
// Hostile input: never a panic, and what can be kept is kept.

fn parse_all_dialects(text: &str) -> Vec<SchemaFile> {
    [
        SqlDialect::Postgres,
        SqlDialect::MySql,
        SqlDialect::H2,
        SqlDialect::Generic,
    ]
    .into_iter()
    .map(|d| parse_schema_file("x.sql", text, d))
    .collect()
}

#[test]
fn empty_and_comment_only_files_have_no_facts_and_no_warnings() {
    for text in ["", "   \n\n", "-- only a comment", "/* only */", ";;;"] {
        for file in parse_all_dialects(text) {
            assert_eq!(file, SchemaFile::default(), "{text:?}");
        }
    }
}

#[test]
fn binary_garbage_gives_warnings_not_panics() {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let bytes: Vec<u8> = (0..64 * 1024)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.to_le_bytes()[0]
        })
        .collect();
    let text = String::from_utf8_lossy(&bytes);
    for file in parse_all_dialects(&text) {
        assert!(file.statements.is_empty());
        assert!(!file.warnings.is_empty());
    }
}

#[test]
fn unterminated_dollar_quote_swallows_the_rest_but_keeps_what_came_before() {
    let text =
        "CREATE TABLE a (id INT);\nCREATE FUNCTION f() RETURNS int AS $$ BEGIN; CREATE TABLE b (id INT);";
    let file = parse_schema_file("x.sql", text, SqlDialect::Postgres);
    let names: Vec<&str> = file
        .statements
        .iter()
        .map(|s| match s {
            SchemaStatement::CreateTable(t) => t.name.as_str(),
            SchemaStatement::CreateRoutine(r) => r.name.as_str(),
            _ => "?",
        })
        .collect();
    assert_eq!(names, ["a", "f"]);
}

#[test]
fn unterminated_comment_and_string_end_the_file_without_panic() {
    for text in [
        "CREATE TABLE a (id INT);\n/* never closed ;\nCREATE TABLE b (id INT);",
        "CREATE TABLE a (id INT);\nSELECT 'never closed;",
    ] {
        for file in parse_all_dialects(text) {
            assert!(matches!(file.statements.as_slice(), [SchemaStatement::CreateTable(t)] if t.name == "a"));
        }
    }
}

#[test]
fn truncated_statements_of_every_shape_do_not_panic() {
    let text = read("fixtures/sql/mysql/schema.sql") + &read("fixtures/sql/postgres/V3__functions.sql");
    // Every prefix ending at a token boundary of a real file: headers cut anywhere.
    for (end, _) in text.char_indices().filter(|(_, c)| c.is_whitespace()).step_by(7) {
        let prefix = &text[..end];
        let _ = parse_all_dialects(prefix);
        for cut in [
            prefix.rfind("CREATE"),
            prefix.rfind("TRIGGER"),
            prefix.rfind("VIEW"),
        ]
        .into_iter()
        .flatten()
        {
            let _ = parse_all_dialects(&prefix[cut..]);
        }
    }
}

#[test]
fn a_hundred_thousand_line_file_is_split_with_correct_lines() {
    let mut text = String::new();
    for i in 0..25_000 {
        let _ = write!(text, "CREATE TABLE t{i} (\n  id INT PRIMARY KEY,\n  v TEXT\n);\n");
    }
    assert_eq!(text.lines().count(), 100_000);
    let file = parse_schema_file("big.sql", &text, SqlDialect::Generic);
    assert!(file.warnings.is_empty());
    assert_eq!(file.statements.len(), 25_000);
    let SchemaStatement::CreateTable(last) = &file.statements[24_999] else {
        panic!("not a table")
    };
    assert_eq!(
        (last.name.as_str(), last.line, last.columns[1].line),
        ("t24999", 99_997, 99_999)
    );
}

// ---------------------------------------------------------------------------------------
// Body scans, dialects and migration order.

fn scan(body: &str, mysql: bool) -> String {
    touches(&scan::touches(body, mysql))
}

#[test]
fn body_scan_ignores_function_from_distinct_from_and_upsert_updates() {
    assert_eq!(
        scan(
            "SELECT extract(epoch FROM now()), trim(both ' ' FROM name) FROM a WHERE x IS DISTINCT FROM y",
            false
        ),
        "a:read"
    );
    assert_eq!(
        scan(
            "INSERT INTO a (k) VALUES (1) ON DUPLICATE KEY UPDATE k = k + 1; SELECT 1 FROM dual",
            true
        ),
        "a:write"
    );
    assert_eq!(
        scan(
            "INSERT INTO a VALUES (1) ON CONFLICT (k) DO UPDATE SET k = 2",
            false
        ),
        "a:write"
    );
    assert_eq!(scan("SELECT * FROM b FOR UPDATE", false), "b:read");
}

#[test]
fn body_scan_reads_comma_joins_subqueries_and_skips_ctes_and_pseudo_rows() {
    assert_eq!(
        scan(
            "WITH x AS (SELECT * FROM s.a), y (n) AS (SELECT 1) SELECT * FROM x, b AS bb, \"C\" c \
             JOIN d ON true WHERE id IN (SELECT id FROM e) AND NEW.id = OLD.id",
            false
        ),
        "a:read, b:read, C:read, d:read, e:read"
    );
    assert_eq!(
        scan(
            "DELETE FROM a USING b WHERE a.id = b.id; TRUNCATE TABLE c, d; MERGE INTO e USING f ON true",
            false
        ),
        "a:write, b:read, c:write, d:write, e:write, f:read"
    );
    assert_eq!(
        scan("SELECT replace(name, 'a', 'b') FROM t; -- DELETE FROM u\n", false),
        "t:read"
    );
}

#[test]
fn dialect_is_detected_from_file_names_then_text_hints() {
    assert_eq!(detect_dialect("db/schema-mysql.sql", ""), SqlDialect::MySql);
    assert_eq!(detect_dialect("db/schema-h2.sql", ""), SqlDialect::H2);
    assert_eq!(detect_dialect("db/schema-postgres.sql", ""), SqlDialect::Postgres);
    assert_eq!(detect_dialect("x.sql", "DELIMITER $$\n"), SqlDialect::MySql);
    assert_eq!(
        detect_dialect("x.sql", "CREATE TABLE a (id INT) ENGINE=InnoDB;"),
        SqlDialect::MySql
    );
    assert_eq!(
        detect_dialect("x.sql", "CREATE FUNCTION f() AS $$ $$ LANGUAGE plpgsql;"),
        SqlDialect::Postgres
    );
    assert_eq!(
        detect_dialect("x.sql", "CREATE TABLE a (id SERIAL);"),
        SqlDialect::Postgres
    );
    assert_eq!(
        detect_dialect("x.sql", "CREATE TABLE a (id INT IDENTITY);"),
        SqlDialect::H2
    );
    assert_eq!(
        detect_dialect("x.sql", "CREATE TABLE a (id INT);"),
        SqlDialect::Generic
    );
}

#[test]
fn flyway_order_sorts_versions_numerically_and_repeatables_last() {
    let paths: Vec<String> = [
        "m/R__views.sql",
        "m/V10__d.sql",
        "schema.sql",
        "m/V2__c.sql",
        "m/R__a_functions.sql",
        "m/V1_1__b.sql",
        "m/V1__a.sql",
        "data.sql",
    ]
    .iter()
    .map(|p| (*p).to_owned())
    .collect();
    assert_eq!(
        flyway_order(&paths),
        [
            "schema.sql",
            "data.sql",
            "m/V1__a.sql",
            "m/V1_1__b.sql",
            "m/V2__c.sql",
            "m/V10__d.sql",
            "m/R__a_functions.sql",
            "m/R__views.sql",
        ]
    );
}

#[test]
fn later_alters_change_the_table_and_drops_remove_it() {
    let text = "CREATE TABLE a (id INT, old_name TEXT, gone INT);\n\
        CREATE INDEX ix_a ON a (old_name);\n\
        ALTER TABLE a RENAME COLUMN old_name TO name;\n\
        ALTER TABLE a ALTER COLUMN name SET NOT NULL;\n\
        ALTER TABLE a DROP COLUMN gone;\n\
        ALTER TABLE a ADD PRIMARY KEY (id);\n\
        ALTER TABLE a RENAME TO b;\n\
        CREATE TABLE c (id INT);\n\
        DROP TABLE IF EXISTS c;\n";
    let mut schema = Schema::default();
    schema.apply(&parse_schema_file("x.sql", text, SqlDialect::Postgres));
    assert_eq!(
        render(&schema).trim(),
        "table b @1\n  id INT not null @1\n  name TEXT not null @1\n  pk (id)\nindex ix_a on b (name) BTree @2"
    );
}

#[test]
fn header_words_sqlparser_lacks_are_blanked_not_fatal() {
    let text = "CREATE CACHED TABLE t (id INT IDENTITY PRIMARY KEY, a TEXT, b TEXT);\n\
        CREATE FULLTEXT INDEX ft_a ON t (a);\n\
        ALTER TABLE t ADD FULLTEXT INDEX ft_b (b);\n\
        CREATE INDEX ix_d ON ONLY t USING hash (lower(a));\n\
        ALTER TABLE t ADD CONSTRAINT fk_x FOREIGN KEY (a) REFERENCES u (a);\n\
        ALTER TABLE t DROP FOREIGN KEY fk_x;\n\
        ALTER TABLE t OWNER TO postgres;\n";
    let file = parse_schema_file("x.sql", text, SqlDialect::MySql);
    assert!(file.warnings.is_empty(), "{:?}", file.warnings);
    let mut schema = Schema::default();
    schema.apply(&file);
    assert_eq!(
        render(&schema).trim(),
        "table t @1\n  id INT not null identity @1\n  a TEXT @1\n  b TEXT @1\n  pk (id)\n\
         index ft_a on t (a) FullText @2\nindex ft_b on t (b) FullText @3\nindex ix_d on t (lower(a)) Hash @4"
    );
}

// ---------------------------------------------------------------------------------------
// The hand-written fast path against sqlparser: wherever the fast path answers, its facts
// must be exactly those of `ddl`.

/// A small deterministic generator (xorshift64*), so failures reproduce without a seed file.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

/// DDL fragments: the plain ones the fast path must take, and odd ones it may leave to
/// sqlparser (and must then leave, or agree with it).
struct Pieces {
    names: &'static [&'static str],
    types: &'static [&'static str],
    defaults: &'static [&'static str],
    column_options: &'static [&'static str],
    constraints: &'static [&'static str],
    separators: &'static [&'static str],
    tails: &'static [&'static str],
}

const PLAIN: Pieces = Pieces {
    names: &[
        "id",
        "name",
        "customer_id",
        "Amount",
        "createdAt",
        "status",
        "type",
        "value",
        "t_1",
        "_x",
        "orders",
        "ORDER_LINES",
    ],
    types: &[
        "INT",
        "int",
        "INTEGER",
        "BIGINT",
        "bigint(20)",
        "SMALLINT",
        "TINYINT(1)",
        "VARCHAR(200)",
        "varchar(007)",
        "VARCHAR",
        "CHAR(3)",
        "character varying(40)",
        "CHARACTER(2)",
        "TEXT",
        "text",
        "NUMERIC(12,2)",
        "numeric(12, 2)",
        "DECIMAL(10)",
        "decimal",
        "BOOLEAN",
        "bool",
        "DATE",
        "TIMESTAMP",
        "timestamp(6)",
        "TIMESTAMP WITH TIME ZONE",
        "timestamp(3) without time zone",
        "TIMESTAMPTZ",
        "TIME",
        "DATETIME",
        "datetime(6)",
        "UUID",
        "JSON",
        "jsonb",
        "BYTEA",
        "BLOB",
        "LONGTEXT",
        "REAL",
        "FLOAT",
        "DOUBLE PRECISION",
        "SERIAL",
        "bigserial",
        "SmallSerial",
    ],
    defaults: &[
        "0",
        "-1",
        "1.50",
        "'x'",
        "''",
        "'NEW'",
        "TRUE",
        "false",
        "NULL",
        "now()",
        "NOW()",
        "CURRENT_TIMESTAMP",
        "current_timestamp",
        "CURRENT_TIMESTAMP(6)",
        "CURRENT_DATE",
        "gen_random_uuid()",
    ],
    column_options: &[
        "NOT NULL",
        "NULL",
        "DEFAULT",
        "PRIMARY KEY",
        "UNIQUE",
        "REFERENCES parent (id)",
        "REFERENCES s.parent",
        "REFERENCES parent(id) ON DELETE CASCADE",
        "REFERENCES parent (id) ON DELETE SET NULL ON UPDATE NO ACTION",
        "CONSTRAINT fk_c REFERENCES parent (id)",
        "CONSTRAINT nn NOT NULL",
    ],
    constraints: &[
        "PRIMARY KEY (id, name)",
        "PRIMARY KEY (id DESC)",
        "CONSTRAINT pk_t PRIMARY KEY (id)",
        "UNIQUE (name)",
        "CONSTRAINT ux_t UNIQUE (name, status)",
        "FOREIGN KEY (customer_id) REFERENCES customers (id)",
        "CONSTRAINT fk_t FOREIGN KEY (a, b) REFERENCES s.p (x, y) ON DELETE CASCADE",
        "FOREIGN KEY (x)\n    REFERENCES p",
        "CONSTRAINT\n  fk_2 FOREIGN KEY (y) REFERENCES \"P\" (\"Id\")",
    ],
    separators: &[
        ",\n  ",
        ", ",
        ",\n  -- a comment; with words\n  ",
        ",\n\n  ",
        " ,\n",
    ],
    tails: &[""],
};

const ODD: Pieces = Pieces {
    names: &[
        "\"Order Lines\"",
        "`weird name`",
        "\"a\"\"b\"",
        "date",
        "order",
        "user",
        "key",
        "comment",
        "check",
        "primary",
        "index",
        "time",
        "\"x\"",
        "`y`",
        "[z]",
        "naïve",
        "a$b",
        "e",
    ],
    types: &[
        "INT UNSIGNED",
        "int(11) unsigned",
        "timestamptz(3)",
        "double",
        "ENUM('a','b')",
        "INT[]",
        "citext",
        "TEXT(10)",
        "DECIMAL(10,2) UNSIGNED",
        "money",
        "INT SIGNED",
        "VARCHAR(MAX)",
        "varchar(10 char)",
        "FLOAT(53)",
        "tinyint unsigned",
        "character large object",
        "int4",
        "serial(4)",
        "public.mytype",
        "INTEGER ARRAY",
        "bit varying(3)",
    ],
    defaults: &[
        "'it''s'",
        "'a\\b'",
        "'{}'::jsonb",
        "nextval('s')",
        "1 + 2",
        "(0)",
        "1e3",
        ".5",
        "- 1",
        "+1",
        "E'x'",
        "b'1'",
        "CURRENT_USER",
        "uuid()",
        "x'00'",
        "1.",
        "DATE '2020-01-01'",
        "'multi\nline'",
    ],
    column_options: &[
        "AUTO_INCREMENT",
        "CHECK (x > 0)",
        "UNIQUE KEY",
        "COMMENT 'c'",
        "COLLATE \"C\"",
        "GENERATED ALWAYS AS IDENTITY",
        "DEFERRABLE",
        "ON UPDATE CURRENT_TIMESTAMP",
        "IDENTITY",
        "KEY",
        "REFERENCES p (id) MATCH FULL",
        "REFERENCES p (id) ON DELETE CASCADE ON DELETE RESTRICT",
        "CHARACTER SET utf8mb4",
        "PRIMARY KEY AUTO_INCREMENT",
        "NOT NULL AUTO_INCREMENT",
        "INVISIBLE",
        "REFERENCES p ()",
        "CONSTRAINT PRIMARY KEY",
        "UNIQUE NULLS NOT DISTINCT",
        "DEFAULT 1 /* c */",
    ],
    constraints: &[
        "UNIQUE KEY ux (name)",
        "UNIQUE INDEX ux (name)",
        "KEY ix (name)",
        "INDEX ix_2 (name, status)",
        "KEY (name)",
        "CHECK (a > 0)",
        "CONSTRAINT c CHECK (a > 0)",
        "FULLTEXT KEY ft (name)",
        "PRIMARY KEY (a) DEFERRABLE",
        "UNIQUE (lower(a))",
        "PRIMARY KEY (title(20))",
        "EXCLUDE USING gist (a WITH &&)",
        "LIKE other",
        "FOREIGN KEY fk_i (a) REFERENCES p (id)",
        "UNIQUE USING INDEX ux",
        "CONSTRAINT u UNIQUE KEY uk (a)",
        "PRIMARY KEY USING BTREE (id)",
        "UNIQUE (a) INCLUDE (b)",
        "FOREIGN KEY (a) REFERENCES p (id) NOT VALID",
    ],
    separators: &[",", ",\n# mysql comment\n", ",--x\n", ", /* c */ "],
    tails: &[
        " ENGINE=InnoDB",
        " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4",
        " ENGINE=InnoDB AUTO_INCREMENT=42 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci",
        " COMMENT='t'",
        " ENGINE InnoDB",
        " INHERITS (p)",
        " PARTITION BY RANGE (a)",
        " WITH (fillfactor=70)",
        " AS SELECT 1",
        " ENGINE=InnoDB ROW_FORMAT=DYNAMIC",
        " DEFAULT CHARSET utf8",
        " TABLESPACE t",
    ],
};

/// Picks from the plain pieces, or (with `odd_percent` chance) from the odd ones.
fn piece(rng: &mut Rng, odd_percent: u64, get: fn(&Pieces) -> &'static [&'static str]) -> &'static str {
    if rng.chance(odd_percent) {
        rng.pick(get(&ODD))
    } else {
        rng.pick(get(&PLAIN))
    }
}

fn gen_name(rng: &mut Rng, odd: u64) -> String {
    let mut name = piece(rng, odd, |p| p.names).to_owned();
    if rng.chance(15) {
        name = format!("{}.{name}", piece(rng, odd, |p| p.names));
    }
    name
}

fn gen_column(rng: &mut Rng, odd: u64) -> String {
    let mut col = format!("{} {}", gen_name_part(rng, odd), piece(rng, odd, |p| p.types));
    for _ in 0..rng.below(4) {
        let option = piece(rng, odd, |p| p.column_options);
        col.push(' ');
        if option == "DEFAULT" {
            col.push_str("DEFAULT ");
            col.push_str(piece(rng, odd, |p| p.defaults));
        } else {
            col.push_str(option);
        }
    }
    col
}

fn gen_name_part(rng: &mut Rng, odd: u64) -> &'static str {
    piece(rng, odd, |p| p.names)
}

fn gen_create_table(rng: &mut Rng, odd: u64) -> String {
    let head = if rng.chance(odd) {
        rng.pick(&[
            "CREATE TEMPORARY TABLE",
            "CREATE CACHED TABLE",
            "CREATE TABLE IF EXISTS",
        ])
    } else {
        rng.pick(&["CREATE TABLE", "create table", "CREATE TABLE IF NOT EXISTS"])
    };
    let mut sql = format!("{head} {} (\n  ", gen_name(rng, odd));
    let elements = 1 + rng.below(6);
    for i in 0..elements {
        if i > 0 {
            sql.push_str(piece(rng, odd, |p| p.separators));
        }
        if i > 0 && rng.chance(30) {
            sql.push_str(piece(rng, odd, |p| p.constraints));
        } else {
            sql.push_str(&gen_column(rng, odd));
        }
    }
    sql.push_str("\n)");
    if rng.chance(40) {
        sql.push_str(rng.pick(ODD.tails));
    }
    sql
}

fn gen_create_index(rng: &mut Rng, odd: u64) -> String {
    let mut sql = String::from(rng.pick(&["CREATE INDEX", "CREATE UNIQUE INDEX", "create index"]));
    if rng.chance(20) {
        sql.push_str(" CONCURRENTLY");
    }
    if rng.chance(20) {
        sql.push_str(" IF NOT EXISTS");
    }
    let _ = write!(sql, " {} ON ", gen_name(rng, odd));
    if rng.chance(odd) {
        sql.push_str("ONLY ");
    }
    sql.push_str(&gen_name(rng, odd));
    if rng.chance(30) {
        let _ = write!(
            sql,
            " USING {}",
            rng.pick(&["btree", "HASH", "gin", "gist", "spgist", "brin", "bloom", "ivfflat"])
        );
    }
    sql.push_str(" (");
    for i in 0..1 + rng.below(3) {
        if i > 0 {
            sql.push_str(", ");
        }
        if rng.chance(odd) {
            sql.push_str(rng.pick(&[
                "lower(a)",
                "a(20)",
                "a text_pattern_ops",
                "a NULLS LAST",
                "(a + 1)",
            ]));
        } else {
            sql.push_str(gen_name_part(rng, 0));
            sql.push_str(rng.pick(&["", "", " ASC", " desc"]));
        }
    }
    sql.push(')');
    if rng.chance(odd) {
        sql.push_str(rng.pick(&[
            " WHERE a > 0",
            " INCLUDE (b)",
            " WITH (fillfactor = 70)",
            " USING BTREE",
        ]));
    }
    sql
}

fn gen_alter_table(rng: &mut Rng, odd: u64) -> String {
    let mut sql = String::from("ALTER TABLE ");
    if rng.chance(20) {
        sql.push_str("IF EXISTS ");
    }
    if rng.chance(30) {
        sql.push_str("ONLY ");
    }
    sql.push_str(&gen_name(rng, odd));
    for i in 0..1 + rng.below(2) {
        sql.push_str(if i > 0 { ",\n  ADD " } else { " ADD " });
        match rng.below(3) {
            0 => sql.push_str(piece(rng, odd, |p| p.constraints)),
            1 => {
                sql.push_str("COLUMN ");
                sql.push_str(&gen_column(rng, odd));
            }
            _ => sql.push_str(&gen_column(rng, odd)),
        }
    }
    if rng.chance(odd) {
        sql.push_str(rng.pick(&[
            " NOT VALID",
            ", DROP COLUMN x",
            " FIRST",
            ", ALTER COLUMN a SET NOT NULL",
        ]));
    }
    sql
}

const DIALECTS: [SqlDialect; 4] = [
    SqlDialect::Postgres,
    SqlDialect::MySql,
    SqlDialect::H2,
    SqlDialect::Generic,
];

/// Runs both paths on `text`; fails when the fast path answers differently from sqlparser.
/// Returns whether the fast path answered.
fn fast_agrees(text: &str, line: u32, dialect: SqlDialect) -> bool {
    let statement = Statement {
        text: text.to_owned(),
        line,
    };
    let Some((fast, slow)) = both_paths(&statement, dialect) else {
        return false;
    };
    assert_eq!(Ok(fast), slow, "{dialect:?}, line {line}:\n{text}");
    true
}

#[test]
fn fast_path_takes_plain_generated_ddl_and_agrees_with_sqlparser() {
    let mut rng = Rng(0x5eed_0001);
    let (mut total, mut fast) = (0, 0);
    for dialect in DIALECTS {
        for _ in 0..1500 {
            for text in [
                gen_create_table(&mut rng, 0),
                gen_create_index(&mut rng, 0),
                gen_alter_table(&mut rng, 0),
            ] {
                // Plain tables may still carry an odd tail (`ENGINE=…`, `INHERITS`).
                total += 1;
                if fast_agrees(&text, 1 + rng.below(500) as u32, dialect) {
                    fast += 1;
                }
            }
        }
    }
    // Everything but the odd tails (40% of tables × most tails) takes the fast path.
    assert!(fast * 100 >= total * 80, "fast path took {fast} of {total}");
}

#[test]
fn fast_path_agrees_with_sqlparser_on_odd_generated_ddl() {
    let mut rng = Rng(0x5eed_0002);
    let (mut total, mut fast) = (0, 0);
    for dialect in DIALECTS {
        for _ in 0..2500 {
            for text in [
                gen_create_table(&mut rng, 25),
                gen_create_index(&mut rng, 25),
                gen_alter_table(&mut rng, 25),
            ] {
                total += 1;
                if fast_agrees(&text, 1 + rng.below(500) as u32, dialect) {
                    fast += 1;
                }
            }
        }
    }
    // Both outcomes must occur, or the test proves nothing about the fallback rule.
    assert!(fast > 0 && fast < total, "fast path took {fast} of {total}");
}

#[test]
fn fast_path_agrees_with_sqlparser_on_fixture_ddl() {
    let files = [
        "fixtures/sql/mysql/schema.sql",
        "fixtures/sql/h2/schema.sql",
        "fixtures/sql/postgres/V1__init.sql",
        "fixtures/sql/postgres/V2__alter.sql",
        "fixtures/sql/postgres/V3__functions.sql",
        "fixtures/sql/broken/mixed.sql",
    ];
    let acme = ACME_PRODUCTS.iter().flat_map(|(_, files)| files.iter().copied());
    let mut fast = 0;
    for path in files.into_iter().chain(acme) {
        let text = read(path);
        let dialect = detect_dialect(path, &text);
        for statement in split_statements(&text, dialect) {
            for d in DIALECTS {
                if fast_agrees(&statement.text, statement.line, d) {
                    fast += 1;
                }
            }
        }
    }
    assert!(fast > 20, "fast path took only {fast} fixture statements");
}

// ---------------------------------------------------------------------------------------
// Constraint names, per-table triggers and tables defined in several files: each file
// replayed with its origin, rendered with places and histories, against golden files.

/// Replays `files` (repository-relative) in Flyway order, each file the origin of what it
/// makes, as the repository replay does.
fn replay(files: &[String]) -> (Schema, Vec<String>) {
    let mut schema = Schema::default();
    let mut warnings = Vec::new();
    for path in flyway_order(files) {
        let text = read(&path);
        let file = parse_schema_file(&path, &text, detect_dialect(&path, &text));
        for w in &file.warnings {
            warnings.push(format!("warning {path}:{}: {}", w.line, w.message));
        }
        schema.set_origin(Origin {
            file: path.clone(),
            changeset: None,
        });
        schema.absorb(file);
    }
    schema.finish();
    (schema, warnings)
}

/// The SQL files under a fixture folder, sorted by path (as the walk lists them).
fn sql_files_under(folder: &str) -> Vec<String> {
    let root = crate::testing::repo_root();
    let mut out = Vec::new();
    let mut pending = vec![root.join(folder)];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("fixture folder").flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "sql") {
                let rel = path.strip_prefix(&root).expect("under the root");
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

/// [`render`] plus where each table and trigger was made and each table's history.
fn render_placed(schema: &Schema, prefix: &str) -> String {
    let strip = |label: String| label.replace(prefix, "");
    let mut out = render(schema);
    out.push('\n');
    for (t, place) in schema.tables_placed() {
        let _ = writeln!(
            out,
            "table {} created by {}",
            t.name,
            place.map_or_else(|| "-".to_owned(), |p| strip(p.label()))
        );
        let Some(history) = schema.history(&t.name) else {
            continue;
        };
        if history.definitions.len() > 1 {
            for d in &history.definitions {
                let _ = writeln!(out, "  defined in {}", strip(d.place.label()));
            }
            for d in history.differences() {
                let _ = writeln!(out, "  differs: {}", strip(d));
            }
        }
        for c in &history.changes {
            let _ = writeln!(out, "  changed by {}: {}", strip(c.place.label()), c.what);
        }
    }
    for (t, place) in schema.triggers_placed() {
        let _ = writeln!(
            out,
            "trigger {}.{} at {}",
            t.table,
            t.name,
            place.map_or_else(|| "-".to_owned(), |p| strip(p.label()))
        );
    }
    out
}

#[test]
fn constraint_names_of_a_pg_dump_are_kept() {
    let input = "fixtures/sql/constraints/shop-dump.sql";
    let (schema, warnings) = replay(&[input.to_owned()]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let orders = schema.table("orders").expect("orders");
    assert_eq!(orders.primary_key_name.as_deref(), Some("orders_pkey"));
    let fk = &orders.foreign_keys[0];
    assert_eq!(
        (
            fk.name.as_deref(),
            fk.columns.join(","),
            fk.ref_table.as_str(),
            fk.ref_columns.join(",")
        ),
        (
            Some("fk_orders_customer"),
            "customer_id".to_owned(),
            "customers",
            "id".to_owned()
        )
    );
    let customers = schema.table("customers").expect("customers");
    assert_eq!(
        customers.unique_keys[0].name.as_deref(),
        Some("customers_email_key")
    );
    crate::testing::assert_golden(input, &render_placed(&schema, "fixtures/sql/constraints/"));
}

#[test]
fn fifteen_touch_updated_at_triggers_on_fifteen_tables_stay_fifteen() {
    let (schema, _) = replay(&["fixtures/sql/constraints/shop-dump.sql".to_owned()]);
    let triggers = schema.triggers();
    let touch: Vec<&str> = triggers
        .iter()
        .filter(|t| t.name == "touch_updated_at")
        .map(|t| t.table.as_str())
        .collect();
    // Sixteen created, the audit log's dropped with `DROP TRIGGER … ON audit_log`.
    assert_eq!(touch.len(), 15, "{touch:?}");
    assert!(!touch.contains(&"audit_log"));
    let check: Vec<&str> = triggers
        .iter()
        .filter(|t| t.name == "check_amount")
        .map(|t| t.table.as_str())
        .collect();
    assert_eq!(check, ["payments", "refunds"]);
}

#[test]
fn drop_trigger_without_a_table_drops_every_trigger_of_that_name() {
    let mut schema = Schema::default();
    let text = "CREATE TABLE a (id INT);\nCREATE TABLE b (id INT);\n\
                CREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW SET NEW.id = 1;\n\
                CREATE TRIGGER t BEFORE INSERT ON b FOR EACH ROW SET NEW.id = 1;\n\
                CREATE TRIGGER u BEFORE INSERT ON b FOR EACH ROW SET NEW.id = 2;\n\
                DROP TRIGGER t;\n";
    schema.apply(&parse_schema_file("x.sql", text, SqlDialect::MySql));
    let left: Vec<String> = schema
        .triggers()
        .iter()
        .map(|t| format!("{}.{}", t.table, t.name))
        .collect();
    assert_eq!(left, ["b.u"]);
}

#[test]
fn renaming_a_table_moves_its_triggers_and_history() {
    let mut schema = Schema::default();
    schema.set_origin(Origin {
        file: "V1__a.sql".into(),
        changeset: None,
    });
    schema.apply(&parse_schema_file(
        "V1__a.sql",
        "CREATE TABLE a (id INT);\nCREATE TRIGGER t BEFORE INSERT ON a FOR EACH ROW EXECUTE FUNCTION f();\n",
        SqlDialect::Postgres,
    ));
    schema.set_origin(Origin {
        file: "V2__b.sql".into(),
        changeset: None,
    });
    schema.apply(&parse_schema_file(
        "V2__b.sql",
        "ALTER TABLE a RENAME TO b;\nDROP TRIGGER t ON b;\n",
        SqlDialect::Postgres,
    ));
    schema.finish();
    assert!(schema.table("a").is_none());
    assert!(
        schema.triggers().is_empty(),
        "the trigger moved with its table and was dropped there"
    );
    let history = schema.history("b").expect("history moved");
    assert_eq!(history.changes.len(), 1);
    assert_eq!(history.changes[0].what, "rename table to b");
    assert_eq!(history.changes[0].place.label(), "V2__b.sql:1");
}

#[test]
fn a_schema_per_dialect_is_one_table_with_a_definition_per_file() {
    let files = sql_files_under("fixtures/sql/dialects");
    assert_eq!(files.len(), 4);
    let dialects: Vec<SqlDialect> = files.iter().map(|f| detect_dialect(f, &read(f))).collect();
    assert_eq!(
        dialects,
        [
            SqlDialect::H2,
            SqlDialect::H2,
            SqlDialect::MySql,
            SqlDialect::Postgres
        ]
    );
    let (schema, warnings) = replay(&files);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(schema.tables().len(), 4, "one table per name, however many files");
    let owners = schema.history("owners").expect("history");
    assert_eq!(owners.definitions.len(), 4);
    crate::testing::assert_golden(
        "fixtures/sql/dialects",
        &render_placed(&schema, "fixtures/sql/dialects/src/main/resources/"),
    );
}

#[test]
fn a_table_recreated_by_migrations_keeps_both_definitions_and_its_changes() {
    let files = sql_files_under("fixtures/sql/recreated");
    let (schema, warnings) = replay(&files);
    assert!(warnings.is_empty(), "{warnings:?}");
    let history = schema.history("invoices").expect("history");
    assert_eq!(history.definitions.len(), 2);
    // V1's own ALTER is part of its definition, not a change.
    assert!(history
        .changes
        .iter()
        .all(|c| !c.place.origin.file.ends_with("V1__init.sql")));
    crate::testing::assert_golden(
        "fixtures/sql/recreated",
        &render_placed(&schema, "fixtures/sql/recreated/"),
    );
}

#[test]
fn types_that_mean_the_same_in_every_dialect_compare_equal() {
    use super::history::canonical_type;
    for (a, b) in [
        ("INT(4)", "INTEGER"),
        ("int", "INT4"),
        ("BOOL", "boolean"),
        ("character varying(30)", "VARCHAR(30)"),
        ("DECIMAL(12, 2)", "numeric(12,2)"),
        ("timestamp with time zone", "TIMESTAMPTZ"),
    ] {
        assert_eq!(canonical_type(a), canonical_type(b), "{a} vs {b}");
    }
    for (a, b) in [
        ("VARCHAR(20)", "VARCHAR(30)"),
        ("TEXT", "VARCHAR(30)"),
        ("INT UNSIGNED", "INT"),
    ] {
        assert_ne!(canonical_type(a), canonical_type(b), "{a} vs {b}");
    }
}

#[test]
fn definitions_that_name_the_same_keys_differently_say_so() {
    // Facts: customers' primary key is `pk_customers` in H2 and `customers_pkey` in
    // PostgreSQL, its unique key `uq_customers_email` in both; orders' primary key is
    // unnamed in H2 and `orders_pkey` in PostgreSQL, its foreign key `fk_orders_customer`
    // vs `orders_customer_id_fkey`. Columns and types agree.
    let files = sql_files_under("fixtures/sql/key-names");
    let (schema, warnings) = replay(&files);
    assert!(warnings.is_empty(), "{warnings:?}");
    let differences = |table: &str| -> Vec<String> {
        schema
            .history(table)
            .expect("history")
            .differences()
            .into_iter()
            .map(|d| d.replace("fixtures/sql/key-names/", ""))
            .collect()
    };
    assert_eq!(
        differences("customers"),
        vec!["db/h2/schema.sql:2 vs db/postgres/schema.sql:2: key names: primary key pk_customers vs customers_pkey"]
    );
    assert_eq!(
        differences("orders"),
        vec!["db/h2/schema.sql:9 vs db/postgres/schema.sql:9: key names: foreign key (customer_id) -> customers fk_orders_customer vs orders_customer_id_fkey, primary key unnamed vs orders_pkey"]
    );
}
