//! Java front-end: one `.java` file in, language-neutral [`CodeFile`] facts out.
//!
//! `parse` walks one tree-sitter tree and drops it before the next file is read, so
//! memory follows the facts, never the syntax trees; `expr` builds the [`crate::facts::Expr`]
//! trees of arguments and initializers. Binding names and calls to the product's types is
//! resolution's work (`crate::resolve`), not this module's.
//!
//! [`CodeFile`]: crate::facts::CodeFile

/// The Java grammar's field ids (see [`super::FieldIds`]).
static FIELDS: std::sync::LazyLock<super::FieldIds> =
    std::sync::LazyLock::new(|| super::FieldIds::of(&tree_sitter_java::LANGUAGE.into()));

/// The grammar's node kind names (see [`super::KindNames`]).
static KINDS: std::sync::LazyLock<super::KindNames> =
    std::sync::LazyLock::new(|| super::KindNames::of(&tree_sitter_java::LANGUAGE.into()));

mod expr;
mod lombok;
mod parse;

pub(crate) use parse::parse_java_file;

/// The expression tree of one Java expression written alone (`"a" + B.C`), for tests of
/// what reads expressions.
#[cfg(test)]
pub(crate) fn parse_expr(java: &str) -> crate::facts::Expr {
    expr::parse_expr(java)
}
