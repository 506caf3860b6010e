//! Recipes: whole questions answered in one call.
//!
//! Each recipe is a plain function over the same store methods the primitives use. It runs
//! its steps through a [`crate::trace::Trace`], fans out in rayon where the work is wide,
//! bounds every fan-out by a budget (and says so in a `WARN:` line when the budget cuts),
//! and renders one document that opens with its title, `recipe_version` and
//! `## Steps executed`. A change of a document's shape bumps its version.

pub(crate) mod change_impact;
pub(crate) mod endpoint_trace;
pub(crate) mod impact;
pub(crate) mod jira_history;
pub(crate) mod service_map;
pub(crate) mod status;
pub(crate) mod table_analysis;

use crate::render::Md;
use crate::trace::Trace;

/// Most rows a table of a recipe document shows; the rest are counted.
pub(crate) const ROWS: usize = 40;

/// The opening of every recipe document.
pub(crate) fn header(title: &str, version: &str, trace: &Trace) -> Md {
    let mut md = Md::new(title);
    md.para(&format!("recipe_version: {version}"));
    trace.render(&mut md);
    md
}

/// "… and N more" when a list was cut to [`ROWS`].
pub(crate) fn more(md: &mut Md, total: usize, shown: usize, hint: &str) {
    if total > shown {
        md.para(&format!("… and {} more not shown ({hint}).", total - shown));
    }
}
