//! GraphQL schema files (`.graphql`, `.graphqls`): the types they declare and the fields
//! of each.
//!
//! Netflix DGS's code generator turns a schema into a `DgsConstants` class, and data
//! fetchers name the type and field they serve through it
//! (`@DgsData(parentType = SHOW.TYPE_NAME, field = SHOW.Reviews)`). That class is written
//! at build time and is not among the sources, so only the schema it was generated from
//! tells which type `SHOW.TYPE_NAME` is: the generator upper-cases type names and
//! capitalises field names, and the schema gives them back as declared.
//!
//! A `.graphql` file may also hold the operations a client or a test sends; it declares
//! no type. The schema is read with `graphql-parser`. A recursive-descent parser, it is given only
//! files it can finish: at most [`MAX_BYTES`] and brackets at most [`MAX_DEPTH`] deep
//! (a schema nests a few levels; a hostile file nested thousands deep would exhaust the
//! stack). Anything else is skipped with a warning, as is a file that does not parse.

use graphql_parser::schema::{Definition, TypeDefinition, TypeExtension};

/// The largest schema file read (real schemas are tens of kilobytes).
pub(crate) const MAX_BYTES: usize = 4 << 20;
/// The deepest nesting of brackets a schema file may have to be read.
pub(crate) const MAX_DEPTH: usize = 64;

/// One type a schema declares (or extends), with its fields in the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SchemaType {
    pub(crate) name: String,
    pub(crate) fields: Vec<String>,
}

/// The types of one schema file, or why it is not read.
pub(crate) fn schema_types(text: &str) -> Result<Vec<SchemaType>, String> {
    if text.len() > MAX_BYTES {
        return Err(format!(
            "GraphQL schema not read: {} bytes, over the {} MB a schema file may have",
            text.len(),
            MAX_BYTES >> 20
        ));
    }
    let depth = bracket_depth(text);
    if depth > MAX_DEPTH {
        return Err(format!(
            "GraphQL schema not read: brackets nested {depth} deep, over the {MAX_DEPTH} a schema file may have"
        ));
    }
    let document = match graphql_parser::schema::parse_schema::<String>(text) {
        Ok(document) => document,
        // Queries and mutations a client or a test sends (`GraphQlTester`'s documents)
        // are `.graphql` files too: they declare no type.
        Err(_) if graphql_parser::query::parse_query::<String>(text).is_ok() => return Ok(Vec::new()),
        Err(e) => return Err(format!("GraphQL schema not read: {}", e.to_string().trim())),
    };
    let mut out = Vec::new();
    for definition in document.definitions {
        let (name, fields) = match definition {
            Definition::TypeDefinition(t) => match t {
                TypeDefinition::Object(o) => (o.name, o.fields.into_iter().map(|f| f.name).collect()),
                TypeDefinition::Interface(i) => (i.name, i.fields.into_iter().map(|f| f.name).collect()),
                TypeDefinition::InputObject(i) => (i.name, i.fields.into_iter().map(|f| f.name).collect()),
                TypeDefinition::Enum(e) => (e.name, Vec::new()),
                TypeDefinition::Union(u) => (u.name, Vec::new()),
                TypeDefinition::Scalar(s) => (s.name, Vec::new()),
            },
            Definition::TypeExtension(t) => match t {
                TypeExtension::Object(o) => (o.name, o.fields.into_iter().map(|f| f.name).collect()),
                TypeExtension::Interface(i) => (i.name, i.fields.into_iter().map(|f| f.name).collect()),
                TypeExtension::InputObject(i) => (i.name, i.fields.into_iter().map(|f| f.name).collect()),
                TypeExtension::Enum(e) => (e.name, Vec::new()),
                TypeExtension::Union(u) => (u.name, Vec::new()),
                TypeExtension::Scalar(s) => (s.name, Vec::new()),
            },
            Definition::SchemaDefinition(_) | Definition::DirectiveDefinition(_) => continue,
        };
        out.push(SchemaType { name, fields });
    }
    Ok(out)
}

/// The deepest nesting of `(`, `[` and `{` in `text`, strings and comments included: a
/// bound on the parser's recursion, never below it.
fn bracket_depth(text: &str) -> usize {
    let (mut depth, mut deepest) = (0usize, 0usize);
    for b in text.bytes() {
        match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_and_fields_of_definitions_and_extensions_are_read() {
        let types = schema_types(
            r#"
"""A show, with "quotes" and a type Fake { in its description."""
type Show { title: String, reviews(first: Int = 10): [Review!]! }
# type Commented { x: Int }
type Query { shows(titleFilter: String): [Show] }
extend type Query { show(id: ID!): Show }
input ShowInput { title: String! }
interface Node { id: ID! }
enum Genre { DRAMA COMEDY }
union Item = Show | Review
scalar DateTime
schema { query: Query }
"#,
        )
        .expect("a valid schema");
        let named: Vec<(&str, Vec<&str>)> = types
            .iter()
            .map(|t| (t.name.as_str(), t.fields.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            named,
            vec![
                ("Show", vec!["title", "reviews"]),
                ("Query", vec!["shows"]),
                ("Query", vec!["show"]),
                ("ShowInput", vec!["title"]),
                ("Node", vec!["id"]),
                ("Genre", vec![]),
                ("Item", vec![]),
                ("DateTime", vec![]),
            ]
        );
    }

    #[test]
    fn an_operation_document_declares_no_type_and_is_no_broken_schema() {
        let none = schema_types("query greeting($name: String) { greeting(name: $name) }\n")
            .expect("an executable document");
        assert!(none.is_empty());
    }

    #[test]
    fn a_broken_deep_or_huge_schema_is_refused_with_the_reason() {
        let broken = schema_types("type Show { title: String").expect_err("unclosed");
        assert!(broken.starts_with("GraphQL schema not read: "), "{broken}");
        let deep = schema_types(&format!("type A {{ f: {}Int }}", "[".repeat(20_000))).expect_err("deep");
        assert!(deep.contains("nested 20001 deep, over the 64"), "{deep}");
        let huge = schema_types(&"# x\n".repeat(MAX_BYTES / 4 + 1)).expect_err("huge");
        assert!(huge.contains("over the 4 MB"), "{huge}");
    }
}
