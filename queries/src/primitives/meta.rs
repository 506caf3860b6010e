//! The products of the company: area, services, and what each holds.

use semgraph_storage::NodeKind;
use serde::Serialize;

use crate::error::QueryError;
use crate::graph::Ctx;
use crate::params::Args;
use crate::render::{document, Md};
use crate::Document;

#[derive(Serialize)]
struct ProductRow {
    product: String,
    area: String,
    services: Vec<String>,
    nodes: u64,
}

pub(crate) fn products(ctx: &Ctx<'_>, _args: &Args) -> Result<Document, QueryError> {
    let mut rows = Vec::new();
    for p in ctx.products() {
        let mut services: Vec<String> = ctx
            .load(ctx.snap.product_nodes_of_kind(&p.name, NodeKind::Service).iter())?
            .into_iter()
            .map(|s| s.name)
            .collect();
        services.sort();
        rows.push(ProductRow {
            product: p.name.clone(),
            area: p.area.clone(),
            services,
            nodes: p.node_count,
        });
    }
    rows.sort_by(|a, b| a.product.cmp(&b.product));
    let title = "Products".to_string();
    let mut md = Md::new(&title);
    let table: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.product.clone(),
                r.area.clone(),
                r.services.join(", "),
                r.nodes.to_string(),
            ]
        })
        .collect();
    md.table(
        &["product", "area", "services", "nodes"],
        &table,
        "No product is indexed yet. Run `semgraph index` (or `POST /api/v1/admin/index`) first.",
    );
    document(&title, md.finish(), &rows)
}
