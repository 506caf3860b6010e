//! Configuration questions: keys, where they are set and read, and their values (content).

use std::collections::BTreeMap;

use semgraph_storage::{ContentKind, Direction, EdgeKind, Node, NodeKind};
use serde::Serialize;

use super::{method_display, NodeRef};
use crate::error::{nearest, QueryError};
use crate::graph::Ctx;
use crate::params::Args;
use crate::render::{document, tick, Md};
use crate::Document;

#[derive(Serialize)]
struct KeyRow {
    key: String,
    product: String,
    files: Vec<String>,
    profiles: Vec<String>,
    used_by: Vec<String>,
}

fn key_rows(ctx: &Ctx<'_>, nodes: Vec<Node>) -> Result<Vec<KeyRow>, QueryError> {
    let mut rows: BTreeMap<(String, String), KeyRow> = BTreeMap::new();
    for n in nodes {
        let product = ctx.product_name(n.product);
        let row = rows
            .entry((n.name.clone(), product.clone()))
            .or_insert_with(|| KeyRow {
                key: n.name.clone(),
                product,
                files: Vec::new(),
                profiles: Vec::new(),
                used_by: Vec::new(),
            });
        row.files.push(NodeRef::of(ctx, &n).location());
        if let Some(p) = n.attr("profile") {
            row.profiles.push(p.to_string());
        }
        row.used_by.extend(
            ctx.neighbor_nodes(n.id, Direction::In, EdgeKind::UsesConfig)?
                .iter()
                .map(method_display),
        );
    }
    let mut rows: Vec<KeyRow> = rows.into_values().collect();
    for r in &mut rows {
        for v in [&mut r.files, &mut r.profiles, &mut r.used_by] {
            v.sort();
            v.dedup();
        }
    }
    Ok(rows)
}

fn keys_table(md: &mut Md, rows: &[KeyRow], empty: &str) {
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                tick(&r.key),
                r.product.clone(),
                r.files.join(", "),
                r.profiles.join(", "),
                r.used_by.iter().map(|u| tick(u)).collect::<Vec<_>>().join(", "),
            ]
        })
        .collect();
    md.table(
        &["key", "product", "set in", "profiles", "read by"],
        &table,
        empty,
    );
}

pub(crate) fn keys(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let q = args.get("q").map(str::to_lowercase);
    let limit = args.int("limit") as usize;
    let ids = ctx.of_kind(NodeKind::ConfigKey, args.get("scope"))?;
    let nodes: Vec<Node> = ctx
        .load(ids.iter())?
        .into_iter()
        .filter(|n| q.as_deref().is_none_or(|q| n.name.to_lowercase().contains(q)))
        .collect();
    let mut rows = key_rows(ctx, nodes)?;
    let total = rows.len();
    rows.truncate(limit);
    let title = "Config keys".to_string();
    let mut md = Md::new(&title);
    if ids.is_empty() {
        md.para("No configuration is indexed in this scope: the config domain is not indexed here.");
    } else {
        keys_table(&mut md, &rows, "No config key matches `q`.");
        if total > rows.len() {
            md.para(&format!(
                "{} of {total} shown; narrow with `q` or raise `limit`.",
                rows.len()
            ));
        }
    }
    document(&title, md.finish(), &rows)
}

fn resolve_key(ctx: &Ctx<'_>, key: &str) -> Result<Vec<Node>, QueryError> {
    let found: Vec<Node> = ctx
        .load(ctx.snap.find_by_fqn(key)?.into_iter().map(|n| n.0))?
        .into_iter()
        .filter(|n| n.kind == NodeKind::ConfigKey)
        .collect();
    if found.is_empty() {
        let all = ctx.load(ctx.snap.nodes_of_kind(NodeKind::ConfigKey).iter())?;
        let mut names: Vec<&str> = all.iter().map(|n| n.name.as_str()).collect();
        names.sort();
        names.dedup();
        return Err(QueryError::not_found(
            "config key",
            key,
            &nearest(key, names.into_iter(), 5),
        ));
    }
    Ok(found)
}

pub(crate) fn key(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let key = args.text("key");
    let rows = key_rows(ctx, resolve_key(ctx, key)?)?;
    let title = format!("Config key {key}");
    let mut md = Md::new(&title);
    keys_table(&mut md, &rows, "");
    if rows.iter().all(|r| r.used_by.is_empty()) {
        md.para("No indexed code reads this key through `@Value` or `@ConfigurationProperties` (the framework itself, or code reading the environment directly, may).");
    }
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
struct ValueRow {
    key: NodeRef,
    profile: Option<String>,
    value: String,
}

pub(crate) fn value(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let key = args.text("key");
    let found = resolve_key(ctx, key)?;
    let title = format!("Value of {key}");
    let mut md = Md::new(&title);
    let mut rows = Vec::new();
    for n in &found {
        ctx.check_content(n, "config value", &["config/key", "config/keys"])?;
        rows.push(ValueRow {
            key: NodeRef::of(ctx, n),
            profile: n.attr("profile").map(str::to_string),
            value: ctx
                .snap
                .content(n.id, ContentKind::ConfigValue)?
                .unwrap_or_default(),
        });
    }
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.key.product.clone(),
                r.key.location(),
                r.profile.clone().unwrap_or_else(|| "default".into()),
                tick(&r.value.replace('\n', " ")),
            ]
        })
        .collect();
    md.table(&["product", "file", "profile", "value (=> resolved)"], &table, "");
    document(&title, md.finish(), &rows)
}

#[derive(Serialize)]
struct FileRow {
    product: String,
    file: String,
    keys: usize,
}

pub(crate) fn files(ctx: &Ctx<'_>, args: &Args) -> Result<Document, QueryError> {
    let ids = ctx.of_kind(NodeKind::File, args.get("scope"))?;
    let mut rows: Vec<FileRow> = ctx
        .load(ids.iter())?
        .into_iter()
        .filter(|n| n.attr("language") == Some("config"))
        .map(|n| FileRow {
            product: ctx.product_name(n.product),
            keys: ctx.neighbors(n.id, Direction::Out, EdgeKind::Contains).len(),
            file: n.name,
        })
        .collect();
    rows.sort_by(|a, b| (&a.product, &a.file).cmp(&(&b.product, &b.file)));
    let title = "Config files".to_string();
    let mut md = Md::new(&title);
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r.product.clone(), tick(&r.file), r.keys.to_string()])
        .collect();
    md.table(
        &["product", "file", "keys"],
        &table,
        "No configuration files are indexed in this scope: the config domain is not indexed here.",
    );
    document(&title, md.finish(), &rows)
}
