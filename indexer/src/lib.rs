//! semgraph-indexer: a company's sources in, product generations out.
//!
//! Four stages, data flowing one way, run by one orchestrator (`pipeline`):
//!
//! - `lang`: the front-ends — one file in, plain facts out, never failing (a broken file
//!   is facts plus warnings): Java, Kotlin, build files, SQL and migrations, config, wiki, Jira;
//! - `facts` and `resolve`: the language-neutral facts of code, and their names and calls
//!   bound over the product's symbol table;
//! - `frameworks`: pure recognisers, one per framework — facts in, findings out;
//! - `emit`: the only writer — layout, code, schemas, config, documents and findings
//!   into one `ProductWriter` run.
//!
//! [`Company`] reads `semgraph.toml`; [`index_product`] runs one product into a store.
//! [`outline`] lists what one source text declares, with lines (the new side of a diff);
//! [`git`] tells a repository's checked-out commit and whether its tree is dirty (recorded
//! on each Repo node of a run).
//! `fuzzing` (hidden) holds the fuzz target bodies, which need the private front-ends.

mod company;
mod emit;
mod error;
mod facts;
pub mod framework_models;
mod frameworks;
#[doc(hidden)]
pub mod fuzzing;
pub mod git;
mod lang;
mod outline;
mod pipeline;
mod resolve;
#[cfg(test)]
mod testing;
#[allow(dead_code)]
mod typemodel;
mod walk;

pub use company::{Company, Dependencies, DependencyTyping, ProductSource, DEFAULT_STORE};
pub use error::IndexError;
pub use outline::{outline, Declaration};
pub use pipeline::{index_product, index_product_with, IndexMode, NoProgress, ProductReport, Progress};
