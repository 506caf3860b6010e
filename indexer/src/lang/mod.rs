//! The language front-ends: each turns one file into plain facts and never fails (a
//! broken file is facts plus warnings). Nothing here knows about storage, frameworks or
//! other files: a front-end sees one file's text and says what it declares.

use crate::facts::CodeFile;
use crate::walk::SourceKind;

pub(crate) mod budget;
pub(crate) mod build;
pub(crate) mod config;
pub(crate) mod java;
pub(crate) mod jira;
pub(crate) mod kotlin;
pub(crate) mod liquibase;
pub(crate) mod schemas;
pub(crate) mod sql;
pub(crate) mod wiki;
pub(crate) mod xml;

/// The facts of one code file, by the front-end of its language; `None` for a file that
/// is no code.
pub(crate) fn parse_code(kind: SourceKind, rel: &str, text: &str) -> Option<CodeFile> {
    match kind {
        SourceKind::Java => Some(java::parse_java_file(rel, text)),
        SourceKind::Kotlin => Some(kotlin::parse_kotlin_file(rel, text)),
        _ => None,
    }
}
