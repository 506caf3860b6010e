//! Kotlin front-end: one `.kt` file in, language-neutral [`CodeFile`] facts out, as the
//! JVM — and so Java code — sees its declarations.
//!
//! `parse` walks one tree-sitter tree (`tree-sitter-kotlin-ng`) and drops it before the
//! next file is read; `types` maps Kotlin types to the JVM's; `expr` builds the
//! [`crate::facts::Expr`] trees of arguments, initializers and annotation values (string
//! templates as concatenations). Binding names and calls is `crate::resolve::kotlin`'s
//! work, not this module's.
//!
//! [`CodeFile`]: crate::facts::CodeFile

/// The Kotlin grammar's field ids (see [`super::FieldIds`]).
static FIELDS: std::sync::LazyLock<super::FieldIds> =
    std::sync::LazyLock::new(|| super::FieldIds::of(&tree_sitter_kotlin_ng::LANGUAGE.into()));

/// The grammar's node kind names (see [`super::KindNames`]).
static KINDS: std::sync::LazyLock<super::KindNames> =
    std::sync::LazyLock::new(|| super::KindNames::of(&tree_sitter_kotlin_ng::LANGUAGE.into()));

mod expr;
mod parse;
mod types;

pub(crate) use parse::{accessor_names, parse_kotlin_file};
