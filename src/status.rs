//! `semgraph status`: what a store holds, read straight from its meta.

use std::fmt::Write as _;

use semgraph_storage::{RunStatus, Snapshot};

/// Renders the products of a snapshot, their areas, sizes and last index run, as markdown.
pub fn render_status(snapshot: &Snapshot) -> semgraph_storage::Result<String> {
    let mut out = String::new();
    let products = snapshot.products();
    let _ = writeln!(out, "# Store status\n");
    let _ = writeln!(
        out,
        "generation {} · {} products · {} nodes · {} edges\n",
        snapshot.generation(),
        products.len(),
        snapshot.live().len(),
        snapshot.adjacency().edge_count()
    );
    if products.is_empty() {
        let _ = writeln!(out, "Nothing is indexed in this store yet.");
        return Ok(out);
    }
    let _ = writeln!(out, "| product | area | nodes | last run | status | warnings |");
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for p in &products {
        let runs = snapshot.runs(p.id)?;
        let (run, status, warnings) = match runs.last() {
            Some(r) => (
                r.id.to_string(),
                match r.status {
                    RunStatus::Committed => "committed",
                    RunStatus::Interrupted => "interrupted",
                },
                r.warnings.len().to_string(),
            ),
            None => ("-".into(), "-", "-".into()),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            p.name, p.area, p.node_count, run, status, warnings
        );
    }
    Ok(out)
}
