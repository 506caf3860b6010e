//! semgraph-indexer: a company's sources in, product generations out.
//!
//! Each language front-end turns one file into plain facts (it never fails: a broken file
//! is facts plus warnings); the product pipeline turns the facts of a whole product into
//! nodes, edges, content and link declarations of one `ProductWriter` run.
//!
//! - `config_files`: `.properties`, `.yml`/`.yaml`, `.env` → flattened keys and values.
//! - `sql`: DDL statements → tables, columns, keys, indexes, views, triggers, routines.
//! - `wiki`: markdown pages → title, headings, links, mention candidates.
//! - `jira`: Jira search-API JSON → issues.
//! - `java`: Java sources → types, methods, fields, resolved calls.
//!
//! [`Company`] reads `semgraph.toml`; [`index_product`] runs one product into a store.
//! [`outline`] lists what one source text declares, with lines (the new side of a diff);
//! [`git`] tells a repository's checked-out commit and whether its tree is dirty (recorded
//! on each Repo node of a run).
//! `fuzzing` (hidden) holds the fuzz target bodies, which need the private front-ends.

mod company;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod git;
#[allow(dead_code)]
mod keys;
mod outline;
mod pipeline;
#[cfg(test)]
mod testing;
mod walk;

// Front-ends: plain facts from one file each, wired into the pipeline as they land.
#[allow(dead_code)]
mod config_files;
#[allow(dead_code)]
mod java;
#[allow(dead_code)]
mod jira;
#[allow(dead_code)]
mod sql;
#[allow(dead_code)]
mod wiki;

pub use company::{Company, ProductSource, DEFAULT_STORE};
pub use error::IndexError;
pub use outline::{outline, Declaration};
pub use pipeline::{index_product, NoProgress, ProductReport, Progress};
