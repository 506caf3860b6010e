//! A table's history across a product's scripts and changelogs: every definition (the same
//! table written once per dialect — H2, HSQLDB, MySQL, PostgreSQL —, or dropped and created
//! again by a later migration) with where it was made, the changes later files and
//! changesets made to it, and where the definitions disagree.
//!
//! Definitions are compared as their files leave them (a script that creates a table and
//! adds its foreign keys at the end is one definition with those keys). Types are compared
//! after the spellings that mean the same type in every dialect are folded (`INT` and
//! `INTEGER`, `BOOL` and `BOOLEAN`, MySQL's display widths `INT(11)`); any other difference
//! in spelling is reported, since a reader cannot tell a deliberate one from a slip.

use super::schema::Place;
use super::Table;

/// One `CREATE TABLE` (or Liquibase `createTable`) of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Definition {
    /// Where it was made.
    pub(crate) place: Place,
    /// The table as the defining file left it; `None` until the file ends (and, once the
    /// replay ends, when it is the table's only definition: nothing is compared then).
    pub(crate) shape: Option<Shape>,
}

/// What definitions are compared on: columns with their types and nullability, and keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Shape {
    /// Name, type and nullability of each column, in order.
    columns: Vec<(String, String, bool)>,
    /// Primary-key columns, lowercase.
    primary_key: Vec<String>,
    /// Each foreign key as `(cols) -> table`, lowercase.
    foreign_keys: Vec<String>,
    /// Each unique key as `(cols)`, lowercase.
    unique_keys: Vec<String>,
    /// The constraint name of each key that has one: the key as above (`primary key`,
    /// `foreign key (cols) -> table`, `unique key (cols)`) and its name as written.
    key_names: Vec<(String, String)>,
}

impl Shape {
    /// The shape of `table`.
    pub(crate) fn of(table: &Table) -> Shape {
        Shape {
            columns: table
                .columns
                .iter()
                .map(|c| (c.name.clone(), c.data_type.clone(), c.nullable))
                .collect(),
            primary_key: table.primary_key.iter().map(|c| c.to_ascii_lowercase()).collect(),
            foreign_keys: table
                .foreign_keys
                .iter()
                .map(|fk| format!("({}) -> {}", fk.columns.join(", "), fk.ref_table).to_ascii_lowercase())
                .collect(),
            unique_keys: table
                .unique_keys
                .iter()
                .map(|k| format!("({})", k.columns.join(", ")).to_ascii_lowercase())
                .collect(),
            key_names: key_names(table),
        }
    }
}

/// The named keys of `table`, each as [`Shape::key_names`] holds it.
fn key_names(table: &Table) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Some(name) = &table.primary_key_name {
        out.push(("primary key".to_string(), name.clone()));
    }
    for fk in &table.foreign_keys {
        if let Some(name) = &fk.name {
            let key = format!("foreign key ({}) -> {}", fk.columns.join(", "), fk.ref_table);
            out.push((key.to_ascii_lowercase(), name.clone()));
        }
    }
    for k in &table.unique_keys {
        if let Some(name) = &k.name {
            out.push((
                format!("unique key ({})", k.columns.join(", ")).to_ascii_lowercase(),
                name.clone(),
            ));
        }
    }
    out
}

/// A change a later file or changeset made to a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableChange {
    /// Where the change was made.
    pub(crate) place: Place,
    /// What it did (`add column note VARCHAR(200)`, `add foreign key fk_x (a) -> t(id)`).
    pub(crate) what: String,
}

/// Every definition of a table and the changes made to it since, in replay order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct TableHistory {
    /// Definitions in the order they were applied; the last one is the table's current one.
    pub(crate) definitions: Vec<Definition>,
    /// Changes by other files or changesets than the definition they changed.
    pub(crate) changes: Vec<TableChange>,
    /// Changes beyond the ones kept.
    pub(crate) more_changes: usize,
}

impl TableHistory {
    /// For each definition but the last, how it differs from the last one (the table the
    /// graph shows): one sentence each, `agrees` when nothing differs.
    pub(crate) fn differences(&self) -> Vec<String> {
        let Some((last, earlier)) = self.definitions.split_last() else {
            return Vec::new();
        };
        let Some(current) = &last.shape else {
            return Vec::new();
        };
        earlier
            .iter()
            .filter_map(|def| {
                let shape = def.shape.as_ref()?;
                let items = compare(shape, current);
                let (a, b) = (def.place.label(), last.place.label());
                Some(if items.is_empty() {
                    format!("{a} agrees with {b} on columns, types and keys")
                } else {
                    format!("{a} vs {b}: {}", items.join("; "))
                })
            })
            .collect()
    }
}

/// What differs between two definitions of one table, `a` first.
fn compare(a: &Shape, b: &Shape) -> Vec<String> {
    let mut out = Vec::new();
    let find = |t: &Shape, name: &str| t.columns.iter().position(|c| c.0.eq_ignore_ascii_case(name));
    let only = |x: &Shape, y: &Shape| -> Vec<String> {
        x.columns
            .iter()
            .filter(|c| find(y, &c.0).is_none())
            .map(|c| c.0.clone())
            .collect()
    };
    let (only_a, only_b) = (only(a, b), only(b, a));
    if !only_a.is_empty() {
        out.push(format!("columns only in the first: {}", only_a.join(", ")));
    }
    if !only_b.is_empty() {
        out.push(format!("columns only in the second: {}", only_b.join(", ")));
    }
    let mut types = Vec::new();
    let mut nulls = Vec::new();
    for (name, ty, nullable) in &a.columns {
        let Some((_, other_ty, other_null)) = find(b, name).map(|i| &b.columns[i]) else {
            continue;
        };
        if canonical_type(ty) != canonical_type(other_ty) {
            types.push(format!("{name} {ty} vs {other_ty}"));
        }
        if nullable != other_null {
            let word = |n: bool| if n { "null" } else { "not null" };
            nulls.push(format!("{name} {} vs {}", word(*nullable), word(*other_null)));
        }
    }
    if !types.is_empty() {
        out.push(format!("types: {}", types.join(", ")));
    }
    if !nulls.is_empty() {
        out.push(format!("nullability: {}", nulls.join(", ")));
    }
    if a.primary_key != b.primary_key {
        let show = |cols: &[String]| {
            if cols.is_empty() {
                "none".to_owned()
            } else {
                format!("({})", cols.join(", "))
            }
        };
        out.push(format!(
            "primary key: {} vs {}",
            show(&a.primary_key),
            show(&b.primary_key)
        ));
    }
    let missing = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|f| !y.contains(f)).cloned().collect()
    };
    for (what, x, y) in [
        ("foreign keys", &a.foreign_keys, &b.foreign_keys),
        ("unique keys", &a.unique_keys, &b.unique_keys),
    ] {
        for (which, list) in [("first", missing(x, y)), ("second", missing(y, x))] {
            if !list.is_empty() {
                out.push(format!("{what} only in the {which}: {}", list.join(", ")));
            }
        }
    }
    // The same key named differently (or named on one side only): scripts that name
    // constraints per dialect drift, and a migration that drops `fk_x` fails on the other.
    let has_key = |t: &Shape, key: &str| {
        key == "primary key" && !t.primary_key.is_empty()
            || t.foreign_keys.iter().any(|f| key == format!("foreign key {f}"))
            || t.unique_keys.iter().any(|u| key == format!("unique key {u}"))
    };
    let name_of = |t: &Shape, key: &str| t.key_names.iter().find(|(k, _)| k == key).map(|(_, n)| n.clone());
    let mut keys: Vec<&String> = a.key_names.iter().chain(&b.key_names).map(|(k, _)| k).collect();
    keys.sort();
    keys.dedup();
    let mut names = Vec::new();
    for key in keys {
        if !(has_key(a, key) && has_key(b, key)) {
            continue;
        }
        let (x, y) = (name_of(a, key), name_of(b, key));
        if x.as_deref().map(str::to_ascii_lowercase) != y.as_deref().map(str::to_ascii_lowercase) {
            let show = |n: Option<String>| n.unwrap_or_else(|| "unnamed".to_string());
            names.push(format!("{key} {} vs {}", show(x), show(y)));
        }
    }
    if !names.is_empty() {
        out.push(format!("key names: {}", names.join(", ")));
    }
    out
}

/// A type with the spellings every dialect treats alike folded to one: case and spaces,
/// integer display widths, and the common synonyms.
pub(crate) fn canonical_type(data_type: &str) -> String {
    let upper = data_type.trim().to_ascii_uppercase();
    let joined = upper.split_whitespace().collect::<Vec<_>>().join(" ");
    // `BASE(ARGS) REST`: `VARCHAR(30)`, `INT(4) UNSIGNED`, `TIMESTAMP(6) WITH TIME ZONE`.
    let (base, args, rest) = match (joined.find('('), joined.find(')')) {
        (Some(open), Some(close)) if close > open => (
            joined[..open].trim().to_owned(),
            joined[open..=close].replace(' ', ""),
            joined[close + 1..].trim().to_owned(),
        ),
        _ => (joined.clone(), String::new(), String::new()),
    };
    let base = match base.as_str() {
        "INT" | "INTEGER" | "INT4" | "SERIAL" | "SERIAL4" | "MEDIUMINT" => "INT",
        "BIGINT" | "INT8" | "BIGSERIAL" | "SERIAL8" => "BIGINT",
        "SMALLINT" | "INT2" | "SMALLSERIAL" | "SERIAL2" => "SMALLINT",
        "BOOL" | "BOOLEAN" => "BOOLEAN",
        "DEC" | "DECIMAL" | "NUMERIC" | "NUMBER" => "NUMERIC",
        "CHARACTER VARYING" | "VARCHAR" | "VARCHAR2" | "NVARCHAR" | "NVARCHAR2" => "VARCHAR",
        "CHARACTER" | "CHAR" | "NCHAR" => "CHAR",
        "DOUBLE" | "DOUBLE PRECISION" | "FLOAT8" => "DOUBLE",
        "REAL" | "FLOAT4" => "REAL",
        "TIMESTAMP WITHOUT TIME ZONE" => "TIMESTAMP",
        "TIMESTAMP WITH TIME ZONE" | "TIMESTAMPTZ" => "TIMESTAMPTZ",
        "TIME WITHOUT TIME ZONE" => "TIME",
        other => other,
    };
    // Display widths of integer types (`INT(11)`) change nothing about the values.
    let integer = matches!(base, "INT" | "BIGINT" | "SMALLINT" | "TINYINT");
    let mut out = base.to_owned();
    if !integer {
        out.push_str(&args);
    }
    if !rest.is_empty() {
        out.push(' ');
        out.push_str(&rest);
    }
    out
}
