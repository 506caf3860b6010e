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

/// A grammar's field ids by name, read from the grammar once.
///
/// `Node::child_by_field_name` looks the name up on every call, comparing it with each of
/// the grammar's field names in turn; the front-ends ask for a field of nearly every node
/// they read, and those comparisons were a tenth of extracting a Java file's facts.
pub(crate) struct FieldIds(rustc_hash::FxHashMap<String, u16>);

impl FieldIds {
    pub(crate) fn of(language: &tree_sitter::Language) -> Self {
        let count = u16::try_from(language.field_count()).unwrap_or(u16::MAX);
        FieldIds(
            (1..=count)
                .filter_map(|id| language.field_name_for_id(id).map(|name| (name.to_string(), id)))
                .collect(),
        )
    }
}

/// [`tree_sitter::Node::child_by_field_name`] with the grammar's field ids looked up in a
/// [`FieldIds`] (a name that is no field of the grammar has no child, as there).
pub(crate) trait ChildByField<'t> {
    fn child_by_field(&self, fields: &FieldIds, name: &str) -> Option<tree_sitter::Node<'t>>;
}

impl<'t> ChildByField<'t> for tree_sitter::Node<'t> {
    fn child_by_field(&self, fields: &FieldIds, name: &str) -> Option<tree_sitter::Node<'t>> {
        self.child_by_field_id(*fields.0.get(name)?)
    }
}

/// The facts of one code file, by the front-end of its language; `None` for a file that
/// is no code.
pub(crate) fn parse_code(kind: SourceKind, rel: &str, text: &str) -> Option<CodeFile> {
    match kind {
        SourceKind::Java => Some(java::parse_java_file(rel, text)),
        SourceKind::Kotlin => Some(kotlin::parse_kotlin_file(rel, text)),
        _ => None,
    }
}
