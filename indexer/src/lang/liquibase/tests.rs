//! Tests of the Liquibase front-end: each changelog format read alone, its look-alikes
//! (changes inside comments and rollbacks, a changelog nobody includes, properties with a
//! value per database), include resolution and order, and the fixture company's Liquibase
//! product replayed whole against a golden file.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use super::changes::{self, Expander, Step};
use super::*;
use crate::lang::sql::{AlterOp, Schema, SchemaStatement};

fn changesets(log: &Changelog) -> Vec<&ChangeSet> {
    log.entries
        .iter()
        .filter_map(|e| match e {
            Entry::ChangeSet(cs) => Some(cs),
            _ => None,
        })
        .collect()
}

fn change_names(cs: &ChangeSet) -> Vec<&str> {
    match &cs.body {
        Body::Changes(c) => c.iter().map(|e| e.name.as_str()).collect(),
        Body::Sql { .. } => vec!["sql"],
    }
}

const XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<databaseChangeLog xmlns="http://www.liquibase.org/xml/ns/dbchangelog">
    <property name="idType" value="bigint"/>
    <!-- <changeSet id="0" author="x"><createTable tableName="ghost"/></changeSet> -->
    <changeSet id="1" author="ann" dbms="postgresql" context="!test">
        <comment>orders</comment>
        <createTable tableName="orders">
            <column name="id" type="${idType}">
                <constraints primaryKey="true" primaryKeyName="orders_pkey"/>
            </column>
        </createTable>
        <rollback>
            <createTable tableName="rollback_trap"/>
        </rollback>
    </changeSet>
    <include file="more.yaml" relativeToChangelogFile="true"/>
</databaseChangeLog>
"#;

#[test]
fn xml_changesets_keep_their_changes_and_never_comments_or_rollbacks() {
    let log = parse_changelog("db/master.xml", XML).expect("a changelog");
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    let sets = changesets(&log);
    assert_eq!(sets.len(), 1);
    let cs = sets[0];
    assert_eq!(
        (cs.header.id.as_str(), cs.header.author.as_str(), cs.header.line),
        ("1", "ann", 5)
    );
    assert_eq!(cs.header.dbms.as_deref(), Some("postgresql"));
    assert_eq!(cs.header.context.as_deref(), Some("!test"));
    assert_eq!(change_names(cs), ["createTable"]);
    assert!(cs.source.starts_with("<changeSet id=\"1\"") && cs.source.ends_with("</changeSet>"));
    assert_eq!(log.properties[0].name, "idType");
    assert!(
        matches!(&log.entries[1], Entry::Include { file, relative: true, line: 16 } if file == "more.yaml")
    );
}

#[test]
fn an_xml_file_of_another_kind_is_no_changelog() {
    let mapper =
        "<?xml version=\"1.0\"?>\n<mapper namespace=\"x\"><select id=\"a\">SELECT 1</select></mapper>\n";
    assert!(parse_changelog("mybatis/x.xml", mapper).is_none());
}

#[test]
fn a_broken_changelog_is_a_warning_with_its_line() {
    let text = "<databaseChangeLog>\n  <changeSet id=\"1\" author=\"a\">\n    <createTable tableName=\"t\">\n</databaseChangeLog>\n";
    let log = parse_changelog("db/broken.xml", text).expect("still a changelog");
    assert_eq!(log.warnings.len(), 1);
    assert_eq!(log.warnings[0].line, 4);
    assert!(
        log.warnings[0].message.starts_with("invalid XML changelog"),
        "{}",
        log.warnings[0].message
    );
    let yaml = "databaseChangeLog:\n  - changeSet:\n      id: 1\n     author: [a\n";
    let log = parse_changelog("db/broken.yaml", yaml).expect("still a changelog");
    assert_eq!(log.warnings.len(), 1);
    assert!(log.warnings[0].line >= 3, "{:?}", log.warnings);
}

const YAML: &str = "databaseChangeLog:
  - changeSet:
      id: 2
      author: bob
      changes:
        - addColumn:
            tableName: orders
            columns:
              - column:
                  name: note
                  type: varchar(200)
        - sql:
            dbms: postgresql
            sql: CREATE INDEX ix_orders_note ON orders (note)
      rollback:
        - dropTable:
            tableName: orders
  - include:
      file: db/changelog/other.json
";

#[test]
fn yaml_changesets_read_like_xml_and_their_rollback_stays_out() {
    let log = parse_changelog("db/more.yaml", YAML).expect("a changelog");
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    let sets = changesets(&log);
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].header.line, 2);
    assert_eq!(change_names(sets[0]), ["addColumn", "sql"]);
    let Body::Changes(changes) = &sets[0].body else {
        panic!("changes");
    };
    let column = changes[0].child("column").expect("the column");
    assert_eq!(
        (column.attr("name"), column.attr("type"), column.line),
        (Some("note"), Some("varchar(200)"), 9)
    );
    assert!(
        matches!(&log.entries[1], Entry::Include { file, relative: false, .. } if file == "db/changelog/other.json")
    );
}

#[test]
fn json_changelogs_read_like_yaml_even_with_tab_indentation() {
    let json = "{\n\t\"databaseChangeLog\": [\n\t\t{\"changeSet\": {\"id\": \"3\", \"author\": \"cy\", \"changes\": [\n\t\t\t{\"dropTable\": {\"tableName\": \"orders\"}}\n\t\t]}}\n\t]\n}\n";
    let log = parse_changelog("db/other.json", json).expect("a changelog");
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    let sets = changesets(&log);
    assert_eq!(sets.len(), 1);
    assert_eq!(sets[0].header.id, "3");
    assert_eq!(change_names(sets[0]), ["dropTable"]);
}

const FORMATTED: &str = "--liquibase formatted sql

--changeset \"Ann Lee\":10 dbms:mysql context:dev labels:v2
CREATE TABLE t (id INT PRIMARY KEY);
--rollback DROP TABLE t;

--changeset ann:11
ALTER TABLE t ADD COLUMN note TEXT;
";

#[test]
fn formatted_sql_is_cut_at_changeset_lines_with_their_attributes() {
    assert!(is_formatted_sql(FORMATTED));
    assert!(!is_formatted_sql(
        "-- liquibase is not used here\nCREATE TABLE t (id INT);\n"
    ));
    let log = parse_changelog("db/changes.sql", FORMATTED).expect("a changelog");
    let sets = changesets(&log);
    assert_eq!(sets.len(), 2);
    let h = &sets[0].header;
    assert_eq!((h.author.as_str(), h.id.as_str(), h.line), ("Ann Lee", "10", 3));
    assert_eq!(
        (h.dbms.as_deref(), h.context.as_deref(), h.labels.as_deref()),
        (Some("mysql"), Some("dev"), Some("v2"))
    );
    let Body::Sql { text, offset, .. } = &sets[0].body else {
        panic!("sql");
    };
    assert_eq!(*offset, 3);
    assert!(text.contains("CREATE TABLE t") && text.contains("--rollback"));
    assert_eq!(sets[1].header.line, 7);
}

#[test]
fn a_plain_sql_file_is_no_changelog() {
    assert!(parse_changelog("db/V1__init.sql", "CREATE TABLE t (id INT);\n").is_none());
}

/// Applies `changes` of one changeset (YAML) with `config` as the module's config.
fn read_steps(
    yaml: &str,
    properties: &[Property],
    config: &dyn Fn(&str) -> Option<String>,
) -> (Vec<Step>, Vec<String>) {
    let log = parse_changelog("db/x.yaml", yaml).expect("a changelog");
    let mut x = Expander::new(config);
    x.add(properties);
    x.add(&log.properties);
    let cs = changesets(&log)[0];
    let Body::Changes(c) = &cs.body else {
        panic!("changes");
    };
    let read = changes::read(c, cs.header.dbms.as_deref(), &x, &cs.source);
    let unresolved = x.unresolved.borrow().iter().cloned().collect();
    (read.steps, unresolved)
}

/// The schema fact of the first step, when it is one.
fn first_statement(steps: &[Step]) -> Option<&SchemaStatement> {
    match steps.first() {
        Some(Step::Statement(statement, _)) => Some(statement.as_ref()),
        _ => None,
    }
}

fn prop(name: &str, value: &str, dbms: Option<&str>) -> Property {
    Property {
        name: name.into(),
        value: value.into(),
        dbms: dbms.map(str::to_owned),
        context: None,
    }
}

const TYPED: &str = "databaseChangeLog:
  - changeSet:
      id: 1
      author: a
      changes:
        - addColumn:
            tableName: ${prefix}orders
            columns:
              - column:
                  name: total
                  type: ${moneyType}
                  defaultValueComputed: ${now}
";

#[test]
fn placeholders_use_spring_parameters_then_properties_and_leave_per_dbms_values_as_written() {
    let config = |key: &str| (key == "spring.liquibase.parameters.prefix").then(|| "shop_".to_owned());
    let (steps, unresolved) = read_steps(
        TYPED,
        &[
            prop("prefix", "ignored_", None),
            prop("moneyType", "numeric(12,2)", None),
            prop("now", "now()", Some("postgresql")),
            prop("now", "CURRENT_TIMESTAMP()", Some("h2")),
        ],
        &config,
    );
    let Some(SchemaStatement::AlterTable { table, ops }) = first_statement(&steps) else {
        panic!("{steps:?}");
    };
    assert_eq!(
        table, "shop_orders",
        "Spring's parameters come first, as Liquibase gives them precedence"
    );
    let AlterOp::AddColumn(column) = &ops[0] else {
        panic!("{ops:?}");
    };
    assert_eq!(column.data_type, "numeric(12,2)");
    assert_eq!(
        column.default.as_deref(),
        Some("${now}"),
        "no single value: left as written"
    );
    assert_eq!(unresolved, ["now"]);
    // The same value for every dbms is a single value.
    let (steps, unresolved) = read_steps(
        TYPED,
        &[
            prop("prefix", "", None),
            prop("moneyType", "decimal", Some("h2")),
            prop("moneyType", "decimal", Some("mysql")),
            prop("now", "now()", None),
        ],
        &|_| None,
    );
    assert!(unresolved.is_empty(), "{unresolved:?}");
    let Some(SchemaStatement::AlterTable { ops, .. }) = first_statement(&steps) else {
        panic!("{steps:?}");
    };
    let AlterOp::AddColumn(column) = &ops[0] else {
        panic!("{ops:?}");
    };
    assert_eq!(column.data_type, "decimal");
}

/// A repository of `files` (path, text) planned and applied, with one module at the root
/// whose config is `config`.
fn replay(files: &[(&str, &str)], config: &dyn Fn(&str) -> Option<String>) -> (Schema, Vec<String>) {
    let mut changelogs = BTreeMap::new();
    let mut sql_texts = HashMap::new();
    let mut paths = BTreeSet::new();
    for (path, text) in files {
        paths.insert((*path).to_owned());
        match parse_changelog(path, text) {
            Some(log) => {
                changelogs.insert((*path).to_owned(), log);
            }
            None => {
                sql_texts.insert((*path).to_owned(), (*text).to_owned());
            }
        }
    }
    let modules = [ModuleChangelogs { dir: "", config }];
    let sources = Sources {
        changelogs: &changelogs,
        paths: &paths,
        modules: &modules,
    };
    let plan = plan(&sources);
    let mut schema = Schema::default();
    let applied = apply_changelogs(&plan, &sources, &sql_texts, &mut schema);
    schema.finish();
    let warnings = applied
        .warnings
        .iter()
        .map(|(f, l, m)| format!("{f}:{l}: {m}"))
        .collect();
    (schema, warnings)
}

fn table_names(schema: &Schema) -> Vec<String> {
    schema.tables().iter().map(|t| t.name.clone()).collect()
}

fn create(table: &str, id: &str) -> String {
    format!(
        "<databaseChangeLog><changeSet id=\"{id}\" author=\"a\"><createTable tableName=\"{table}\">\
         <column name=\"id\" type=\"bigint\"/></createTable></changeSet></databaseChangeLog>"
    )
}

#[test]
fn include_all_applies_a_folder_in_path_order_and_includes_resolve_relative_or_from_the_classpath() {
    let master = "databaseChangeLog:
  - includeAll:
      path: db/changelog/changes/
  - include:
      file: later/z.xml
      relativeToChangelogFile: true
";
    let (b, a, z) = (
        create("b_table", "b"),
        create("a_table", "a"),
        create("z_table", "z"),
    );
    let (schema, warnings) = replay(
        &[
            ("src/main/resources/db/changelog/db.changelog-master.yaml", master),
            ("src/main/resources/db/changelog/changes/02-b.xml", &b),
            ("src/main/resources/db/changelog/changes/01-a.xml", &a),
            (
                "src/main/resources/db/changelog/changes/03-c.sql",
                "CREATE TABLE c_table (id INT);\n",
            ),
            ("src/main/resources/db/changelog/later/z.xml", &z),
        ],
        &|_| None,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(table_names(&schema), ["a_table", "b_table", "c_table", "z_table"]);
    let c = schema.history("c_table").expect("placed");
    assert_eq!(
        c.definitions[0].place.label(),
        "src/main/resources/db/changelog/changes/03-c.sql:1 changeset raw by includeAll"
    );
}

#[test]
fn a_changelog_no_master_reaches_is_not_applied_and_said_so() {
    let master = "databaseChangeLog:\n  - include:\n      file: db/changelog/used.xml\n";
    let (used, orphan) = (create("used", "u"), create("orphan", "o"));
    let (schema, warnings) = replay(
        &[
            ("src/main/resources/db/changelog/db.changelog-master.yaml", master),
            ("src/main/resources/db/changelog/used.xml", &used),
            ("src/main/resources/db/changelog/old/orphan.xml", &orphan),
        ],
        &|_| None,
    );
    assert_eq!(table_names(&schema), ["used"]);
    assert_eq!(
        warnings,
        ["src/main/resources/db/changelog/old/orphan.xml:0: changelog that no master changelog reaches: not applied"]
    );
}

#[test]
fn without_a_master_every_changelog_nobody_includes_is_one() {
    let (one, two) = (create("one", "1"), create("two", "2"));
    let (schema, warnings) = replay(
        &[
            ("src/main/resources/liquibase/one.xml", &one),
            ("src/main/resources/liquibase/two.xml", &two),
        ],
        &|_| None,
    );
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(table_names(&schema), ["one", "two"]);
}

#[test]
fn the_configured_master_wins_over_the_default_name() {
    let config = |key: &str| {
        (key == "spring.liquibase.change-log").then(|| "classpath:/config/liquibase/master.xml".to_owned())
    };
    let master =
        "<databaseChangeLog><include file=\"config/liquibase/changelog/01.xml\"/></databaseChangeLog>";
    let (first, default) = (create("jhipster_user", "1"), create("not_deployed", "d"));
    let (schema, warnings) = replay(
        &[
            ("src/main/resources/config/liquibase/master.xml", master),
            ("src/main/resources/config/liquibase/changelog/01.xml", &first),
            (
                "src/main/resources/db/changelog/db.changelog-master.xml",
                &default,
            ),
        ],
        &config,
    );
    assert_eq!(table_names(&schema), ["jhipster_user"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("db.changelog-master.xml:0: changelog that no master"));
}

#[test]
fn a_missing_include_is_a_warning_and_the_rest_still_counts() {
    let master = "databaseChangeLog:\n  - include:\n      file: nowhere.xml\n  - changeSet:\n      id: 1\n      author: a\n      changes:\n        - createTable:\n            tableName: kept\n";
    let (schema, warnings) = replay(
        &[("src/main/resources/db/changelog/db.changelog-master.yaml", master)],
        &|_| None,
    );
    assert_eq!(table_names(&schema), ["kept"]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].ends_with(":2: include `nowhere.xml`: no such file in the repository"),
        "{warnings:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The fixture company's Liquibase product, replayed as the pipeline does.

/// Tables with their keys and histories, indexes, views and warnings, one line each.
fn render(schema: &Schema, warnings: &[String]) -> String {
    let mut out = String::new();
    for (t, place) in schema.tables_placed() {
        let _ = writeln!(
            out,
            "table {} created by {}",
            t.name,
            place.map_or("-".into(), |p| p.label())
        );
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
            let _ = writeln!(
                out,
                "  pk {} ({})",
                t.primary_key_name.as_deref().unwrap_or("-"),
                t.primary_key.join(", ")
            );
        }
        for u in &t.unique_keys {
            let _ = writeln!(
                out,
                "  unique {} ({})",
                u.name.as_deref().unwrap_or("-"),
                u.columns.join(", ")
            );
        }
        for fk in &t.foreign_keys {
            let _ = writeln!(
                out,
                "  fk {} ({}) -> {} ({}) @{}",
                fk.name.as_deref().unwrap_or("-"),
                fk.columns.join(", "),
                fk.ref_table,
                fk.ref_columns.join(", "),
                fk.line
            );
        }
        if let Some(h) = schema.history(&t.name) {
            for c in &h.changes {
                let _ = writeln!(out, "  changed by {}: {}", c.place.label(), c.what);
            }
        }
    }
    for (i, place) in schema.indexes_placed() {
        let _ = writeln!(
            out,
            "index {} on {} ({}){} by {}",
            i.name.as_deref().unwrap_or("-"),
            i.table,
            i.columns.join(", "),
            if i.unique { " unique" } else { "" },
            place.map_or("-".into(), |p| p.label())
        );
    }
    for (v, place) in schema.views_placed() {
        let _ = writeln!(
            out,
            "view {} reads {} by {}",
            v.name,
            v.reads.join(", "),
            place.map_or("-".into(), |p| p.label())
        );
    }
    for w in warnings {
        let _ = writeln!(out, "warning {w}");
    }
    out
}

#[test]
fn the_fixture_liquibase_product_replays_into_the_expected_schema() {
    let root = crate::testing::repo_root().join("fixtures/acme/catalog");
    let mut warnings = Vec::new();
    let files = crate::walk::walk_repo(&root, &mut warnings);
    let configs = crate::lang::config::read_configs(&files, &mut warnings);
    let refs: Vec<&crate::lang::config::ParsedConfig> = configs.iter().collect();
    let scope = crate::lang::config::ConfigScope::new(&refs, &[]);
    let config = |key: &str| scope.lookup(None, key);
    let modules = [ModuleChangelogs {
        dir: "",
        config: &config,
    }];
    let read = crate::lang::schemas::read_repository_schema(&files, &modules);
    let warnings: Vec<String> = read
        .warnings
        .iter()
        .map(|w| format!("{}:{}: {}", w.file, w.line.unwrap_or(0), w.message))
        .collect();
    let names = table_names(&read.schema);
    for absent in ["ghost_products", "rollback_trap", "legacy_items", "tags_tmp"] {
        assert!(!names.iter().any(|n| n == absent), "{absent} in {names:?}");
    }
    assert_eq!(read.changesets, 13);
    crate::testing::assert_golden(
        "fixtures/acme/catalog/src/main/resources/db/changelog/catalog-master.yaml",
        &render(&read.schema, &warnings),
    );
}
