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

#![allow(dead_code)]

mod config_files;
mod java;
mod jira;
mod sql;
mod wiki;
