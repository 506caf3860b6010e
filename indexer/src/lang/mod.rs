//! The language front-ends: each turns one file into plain facts and never fails (a
//! broken file is facts plus warnings). Nothing here knows about storage, frameworks or
//! other files: a front-end sees one file's text and says what it declares.

use crate::facts::CodeFile;
use crate::walk::SourceKind;

pub(crate) mod budget;
pub(crate) mod build;
pub(crate) mod config;
pub(crate) mod graphql;
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

/// A grammar's node kind names by kind id, read from the grammar once.
///
/// `Node::kind` measures the grammar's C string and checks it is UTF-8 on every call; the
/// front-ends ask for the kind of nearly every node they read, and those checks were 2 % of
/// the CPU of indexing a large Java company.
pub(crate) struct KindNames(Vec<Box<str>>);

impl KindNames {
    pub(crate) fn of(language: &tree_sitter::Language) -> Self {
        let count = u16::try_from(language.node_kind_count()).unwrap_or(u16::MAX);
        KindNames(
            (0..count)
                .map(|id| language.node_kind_for_id(id).unwrap_or_default().into())
                .collect(),
        )
    }
}

/// [`tree_sitter::Node::kind`] read from a [`KindNames`] table (`ERROR`, which is no kind of
/// the grammar's table, is said as `Node::kind` says it).
pub(crate) trait KindName {
    fn kind_name<'k>(&self, kinds: &'k KindNames) -> &'k str;
}

impl KindName for tree_sitter::Node<'_> {
    #[inline]
    fn kind_name<'k>(&self, kinds: &'k KindNames) -> &'k str {
        match kinds.0.get(usize::from(self.kind_id())) {
            Some(name) => name,
            None if self.is_error() => "ERROR",
            None => "",
        }
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

#[cfg(test)]
mod tests {
    use super::{ChildByField, FieldIds, KindName, KindNames};

    /// Every node of `source`, depth first.
    fn nodes(tree: &tree_sitter::Tree) -> Vec<tree_sitter::Node<'_>> {
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            out.push(n);
            let mut cursor = n.walk();
            stack.extend(n.children(&mut cursor));
        }
        out
    }

    /// For every node and every field name of the grammar (and a name that is none), the
    /// child found by id is the child tree-sitter finds by name.
    fn agrees_with_lookup_by_name(language: tree_sitter::Language, source: &str) {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).expect("the grammar loads");
        let tree = parser.parse(source, None).expect("the source parses");
        let fields = FieldIds::of(&language);
        let names: Vec<String> = (1..=language.field_count() as u16)
            .filter_map(|id| language.field_name_for_id(id).map(str::to_string))
            .chain(["no_such_field".to_string(), String::new()])
            .collect();
        assert!(names.len() > 2, "the grammar names its fields");
        let mut found = 0;
        for node in nodes(&tree) {
            for name in &names {
                let by_name = node.child_by_field_name(name);
                assert_eq!(
                    node.child_by_field(&fields, name),
                    by_name,
                    "{} . {name}",
                    node.kind()
                );
                found += usize::from(by_name.is_some());
            }
        }
        assert!(found > 0, "the source has fields to find");
    }

    #[test]
    fn a_java_field_by_id_is_the_field_by_name() {
        agrees_with_lookup_by_name(
            tree_sitter_java::LANGUAGE.into(),
            r#"package a.b;
import java.util.List;
@Service
class OrderService<T extends Comparable<T>> extends Base implements Api {
    private final List<String> names = List.of("x");
    @GetMapping("/orders/{id}")
    public <R> R find(@PathVariable long id, String... rest) throws Exception {
        for (var n : names) { if (n.isEmpty()) { continue; } }
        Runnable r = () -> repo.save(new Order(id, rest[0]));
        return switch ((int) id) { case 1 -> null; default -> this.<R>other(id > 0 ? 1 : 2); };
    }
}
"#,
        );
    }

    #[test]
    fn a_kotlin_field_by_id_is_the_field_by_name() {
        agrees_with_lookup_by_name(
            tree_sitter_kotlin_ng::LANGUAGE.into(),
            r#"package a.b
import org.springframework.web.bind.annotation.GetMapping
@RestController
class OrderController(private val repo: OrderRepository) : Base(), Api {
    @GetMapping("/orders/{id}")
    fun find(@PathVariable id: Long, vararg rest: String): Order? =
        repo.findById(id).orElse(null)?.let { it.copy(name = "${rest[0]}") }
    companion object { const val X = 1 }
}
"#,
        );
    }

    /// Every node's kind read from the table is the kind tree-sitter says, `ERROR` nodes and
    /// unnamed tokens included; returns how many `ERROR` nodes the source had.
    fn kinds_agree(language: tree_sitter::Language, source: &str) -> usize {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(&language).expect("the grammar loads");
        let tree = parser.parse(source, None).expect("the source parses");
        let kinds = KindNames::of(&language);
        let mut errors = 0;
        for node in nodes(&tree) {
            assert_eq!(node.kind_name(&kinds), node.kind(), "kind id {}", node.kind_id());
            errors += usize::from(node.is_error());
        }
        errors
    }

    #[test]
    fn a_node_kind_from_the_table_is_the_kind_tree_sitter_says() {
        let java = "class A { @Get(\"/x\") int f(String s) { return s.length() + 1; } }";
        assert_eq!(kinds_agree(tree_sitter_java::LANGUAGE.into(), java), 0);
        let broken_java = "class A { void f( { int x = ; } ] }";
        assert!(kinds_agree(tree_sitter_java::LANGUAGE.into(), broken_java) > 0);
        let kotlin = "class A(val s: String) { fun f(): Int = s.length + \"${s}\".length }";
        assert_eq!(kinds_agree(tree_sitter_kotlin_ng::LANGUAGE.into(), kotlin), 0);
        let broken_kotlin = "class A { fun f( = ) { val = } ] }";
        assert!(kinds_agree(tree_sitter_kotlin_ng::LANGUAGE.into(), broken_kotlin) > 0);
    }
}
