//! The tree-sitter grammar of Java, as tree-sitter-java 0.23.5 publishes it, with a faster
//! lexer character-set lookup (README.md says what changed and why).

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_java() -> *const ();
}

/// The tree-sitter [`LanguageFn`] of this grammar.
// SAFETY: `tree_sitter_java` is the generated parser's language function, which returns a
// pointer to a static `TSLanguage`.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_java) };
