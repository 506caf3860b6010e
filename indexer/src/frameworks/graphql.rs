//! GraphQL handlers: Spring for GraphQL's `@QueryMapping`, `@MutationMapping`,
//! `@SubscriptionMapping`, `@SchemaMapping` and `@BatchMapping` on `@Controller` methods,
//! and Netflix DGS's `@DgsQuery`, `@DgsMutation`, `@DgsSubscription` and `@DgsData` on
//! `@DgsComponent` methods — each an endpoint named by its schema coordinate: the verb
//! `QUERY`, `MUTATION`, `SUBSCRIPTION` or `FIELD`, the path `Type.field` (`Query.orderById`,
//! `Order.customer`). The field is the annotation's `name`/`field`/`value`, else the
//! method's name; `@SchemaMapping`'s type is `typeName`, else the class-level
//! `@SchemaMapping(typeName)`, else the method's first parameter's type.
//!
//! A type or field is what the source fixes: a literal, or a constant of the product
//! (`ShowTypes.SHOW`). DGS's code generator writes such constants too, in a `DgsConstants`
//! class built from the schema and never among the sources (`SHOW.TYPE_NAME`,
//! `SHOW.Reviews`, `DgsConstants.QUERY_TYPE`): those are read back through the product's
//! schema files ([`GraphQlSchema`]) — the generator upper-cases a type's name and
//! capitalises a field's. A mapping whose type or field neither tells is not made an
//! endpoint: a warning names what it could not read, rather than an endpoint named by the
//! constant's text.

use std::collections::BTreeMap;

use semgraph_storage::Warning;

use super::annotations::{find, short};
use super::values::annotation_values;
use super::{Endpoint, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::{simple_name, type_args, Annotation, CodeFile, MethodDecl, TypeDecl, TypeKind};
use crate::lang::graphql::schema_types;
use crate::resolve::MethodKey;
use crate::walk::{self, SourceFile, SourceKind};

/// Spring for GraphQL's mapping annotations: name, verb, the operation type they imply.
const SPRING: &[(&str, &str, Option<&str>)] = &[
    ("QueryMapping", "QUERY", Some("Query")),
    ("MutationMapping", "MUTATION", Some("Mutation")),
    ("SubscriptionMapping", "SUBSCRIPTION", Some("Subscription")),
    ("SchemaMapping", "FIELD", None),
    ("BatchMapping", "FIELD", None),
];
/// DGS's data fetcher annotations.
const DGS: &[(&str, &str, Option<&str>)] = &[
    ("DgsQuery", "QUERY", Some("Query")),
    ("DgsMutation", "MUTATION", Some("Mutation")),
    ("DgsSubscription", "SUBSCRIPTION", Some("Subscription")),
    ("DgsData", "FIELD", None),
];

pub(crate) struct GraphQl;

impl Recogniser for GraphQl {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in file.types.iter().filter(|t| t.kind == TypeKind::Class) {
            let (table, kind) = if find(&t.annotations, "DgsComponent").is_some() {
                (DGS, "dgs")
            } else if find(&t.annotations, "Controller").is_some()
                || find(&t.annotations, "RestController").is_some()
            {
                (SPRING, "graphql")
            } else {
                continue;
            };
            let class_type = find(&t.annotations, "SchemaMapping")
                .and_then(|a| attribute(product, file, t, a, &["typeName"]))
                .and_then(Result::ok);
            for m in &t.methods {
                for a in &m.annotations {
                    let Some(&(_, verb, implied)) = table.iter().find(|(n, ..)| *n == short(&a.name)) else {
                        continue;
                    };
                    let parent = match attribute(product, file, t, a, &["typeName", "parentType"]) {
                        Some(Ok(parent)) => Some(parent),
                        Some(Err(written)) => {
                            unread(out, file, m, "parent type", &written);
                            continue;
                        }
                        None => None,
                    };
                    let field = match attribute(product, file, t, a, &["field", "name", "value"]) {
                        Some(Ok(field)) => field,
                        Some(Err(written)) => {
                            unread(out, file, m, "field", &written);
                            continue;
                        }
                        None => m.name.clone(),
                    };
                    let parent = parent
                        .or_else(|| implied.map(str::to_string))
                        .or_else(|| class_type.clone())
                        .or_else(|| source_type(m));
                    // A field of a root operation type is that operation, however mapped.
                    let verb = match ROOTS.iter().find(|(_, name)| parent.as_deref() == Some(*name)) {
                        Some((class, _)) if verb == "FIELD" => class,
                        _ => verb,
                    };
                    let Some(parent) = parent else {
                        out.warn(
                            &file.path,
                            Some(m.line_start as u32),
                            format!("GraphQL mapping {}: its parent type is not written", m.name),
                        );
                        continue;
                    };
                    out.push(Finding::Endpoint(endpoint(
                        file,
                        t,
                        m,
                        verb,
                        &format!("{parent}.{field}"),
                        kind,
                    )));
                }
            }
        }
    }
}

/// What attribute `keys` (the first of them written) of mapping `a` names: `None` when
/// none is written (or it is empty), else the value the source fixes or, for a constant of
/// DGS's generated `DgsConstants`, the schema's name; else the attribute as written.
fn attribute(
    product: &Product<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    a: &Annotation,
    keys: &[&str],
) -> Option<Result<String, String>> {
    let (key, written) = a
        .args
        .iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .find_map(|(k, v)| v.first().filter(|v| !v.is_empty()).map(|v| (k, v)))?;
    let fixed = annotation_values(&product.values, file, t, a, key)
        .and_then(|v| v.into_iter().next())
        .filter(|v| !v.is_empty());
    Some(
        fixed
            .or_else(|| product.graphql.generated_constant(file, written))
            .ok_or_else(|| written.clone()),
    )
}

/// Says that mapping `m` is not an endpoint because its `what` is not read.
fn unread(out: &mut Findings, file: &CodeFile, m: &MethodDecl, what: &str, written: &str) {
    out.warn(
        &file.path,
        Some(m.line_start as u32),
        format!(
            "GraphQL mapping {}: its {what} `{written}` is no value the source fixes (a constant of a class not among the sources, or of DGS's generated DgsConstants that no schema file of the product declares): not an endpoint",
            m.name
        ),
    );
}

/// The root operation types, as DGS's generator names their constants (`QUERY_TYPE`) and
/// their classes (`QUERY`): the same whatever the schema says.
const ROOTS: &[(&str, &str)] = &[
    ("QUERY", "Query"),
    ("MUTATION", "Mutation"),
    ("SUBSCRIPTION", "Subscription"),
];

/// The GraphQL types the product's schema files declare, each with its fields: what the
/// constants of DGS's generated `DgsConstants` stand for.
#[derive(Debug, Default)]
pub(crate) struct GraphQlSchema {
    /// Type name → its fields (of every file that declares or extends it).
    types: BTreeMap<String, Vec<String>>,
}

impl GraphQlSchema {
    /// The types of every schema file of `files`; a file that cannot be read is said.
    pub(crate) fn read(files: &[SourceFile], warnings: &mut Vec<Warning>) -> GraphQlSchema {
        let mut schema = GraphQlSchema::default();
        for f in files.iter().filter(|f| f.kind == SourceKind::GraphQl) {
            let Some(text) = walk::read_source(f, warnings) else {
                continue;
            };
            match schema_types(&text) {
                Ok(types) => {
                    for t in types {
                        schema.types.entry(t.name).or_default().extend(t.fields);
                    }
                }
                Err(message) => warnings.push(Warning {
                    file: f.rel.clone(),
                    line: None,
                    message,
                }),
            }
        }
        schema
    }

    /// The name `written` stands for when it is a constant of DGS's generated
    /// `DgsConstants` (`DgsConstants.QUERY_TYPE`, `SHOW.TYPE_NAME`, `SHOW.Reviews`, the
    /// class imported by `file` or named with `DgsConstants.`).
    pub(crate) fn generated_constant(&self, file: &CodeFile, written: &str) -> Option<String> {
        let parts: Vec<&str> = written.split('.').map(str::trim).collect();
        let rest = match parts.iter().position(|p| *p == "DgsConstants") {
            Some(at) => &parts[at + 1..],
            None => {
                let class = parts.first()?;
                let suffix = format!(".DgsConstants.{class}");
                let imported = file.imports.iter().any(|i| {
                    (!i.wildcard && i.path.ends_with(&suffix))
                        || (i.wildcard && !i.is_static && i.path.ends_with(".DgsConstants"))
                });
                if !imported {
                    return None;
                }
                &parts[..]
            }
        };
        match rest {
            [constant] => root(constant.strip_suffix("_TYPE")?).map(str::to_string),
            [class, "TYPE_NAME"] => self.type_of_class(class),
            [class, field] => {
                let ty = self.type_of_class(class)?;
                let declared = self
                    .types
                    .get(&ty)
                    .and_then(|fields| fields.iter().find(|f| capitalised(f) == *field));
                Some(declared.cloned().unwrap_or_else(|| uncapitalised(field)))
            }
            _ => None,
        }
    }

    /// The type whose generated class is `class` (its name upper-cased): the one type of
    /// the schema named so, else a root operation type.
    fn type_of_class(&self, class: &str) -> Option<String> {
        let mut named = self.types.keys().filter(|t| t.to_uppercase() == class);
        match (named.next(), named.next()) {
            (Some(t), None) => Some(t.clone()),
            (Some(_), Some(_)) => None,
            (None, _) => root(class).map(str::to_string),
        }
    }
}

/// The root operation type DGS's generator names with class `class` (`QUERY`).
fn root(class: &str) -> Option<&'static str> {
    ROOTS.iter().find(|(c, _)| *c == class).map(|(_, name)| *name)
}

/// `name` with its first letter upper-cased, as DGS's generator names a field's constant.
fn capitalised(name: &str) -> String {
    with_first(name, char::to_uppercase)
}

/// A field's constant back to the field's name, when no schema says it: the generator
/// capitalises a name, and GraphQL fields are written in camel case.
fn uncapitalised(constant: &str) -> String {
    with_first(constant, char::to_lowercase)
}

/// `text` with its first letter changed by `case`.
fn with_first<I: Iterator<Item = char>>(text: &str, case: impl Fn(char) -> I) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| case(c).chain(chars).collect())
        .unwrap_or_default()
}

/// The type of the source object a field mapping receives: its first parameter that is
/// no argument (`@Argument`) and no framework type.
/// A `@BatchMapping` receives the sources as a collection: its element type is the parent.
fn source_type(m: &MethodDecl) -> Option<String> {
    let p = m.params.iter().find(|p| {
        find(&p.annotations, "Argument").is_none()
            && !matches!(
                simple_name(&p.ty).as_str(),
                "DataFetchingEnvironment" | "DgsDataFetchingEnvironment" | "GraphQLContext"
            )
    })?;
    let ty = simple_name(&p.ty);
    if matches!(ty.as_str(), "List" | "Set" | "Collection") {
        return type_args(&p.ty).first().map(|e| simple_name(e));
    }
    Some(ty)
}

fn endpoint(
    file: &CodeFile,
    t: &TypeDecl,
    m: &MethodDecl,
    verb: &str,
    path: &str,
    kind: &'static str,
) -> Endpoint {
    Endpoint {
        verb: verb.to_string(),
        path: path.to_string(),
        kind,
        file: file.path.clone(),
        lines: (m.line_start, m.line_end),
        handler: Owner::Method(MethodKey::of(t, m)),
        handler_name: format!("{}.{}", t.fqn, m.name),
        service_file: file.path.clone(),
        before: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn dgs_generated_constants_are_read_back_through_the_schema() {
        check(
            r#"
//- /shows/src/main/resources/schema/shows.graphqls
type Query { shows(titleFilter: String): [Show] }
type Show { id: ID, title: String, reviews: [Review] }
type ShowPayload { show: Show }
type Review { starScore: Int }
//- /shows/src/main/resources/schema/mutations.graphqls
type Mutation { addReview(review: String): [Review] }
//- /shows/src/main/java/a/ShowsDatafetcher.java
package a;
import com.netflix.graphql.dgs.DgsComponent;
import a.codegen.DgsConstants;
import a.codegen.DgsConstants.QUERY;
import a.codegen.DgsConstants.SHOW;
import a.codegen.DgsConstants.SHOWPAYLOAD;
@DgsComponent
class ShowsDatafetcher {
    @DgsQuery(field = QUERY.Shows) List<Show> shows() { return null; }
    @DgsData(parentType = DgsConstants.QUERY_TYPE, field = QUERY.Shows) List<Show> all() { return null; }
    @DgsData(parentType = SHOW.TYPE_NAME, field = SHOW.Reviews) List<Review> reviews(DgsDataFetchingEnvironment dfe) { return null; }
    @DgsData(parentType = SHOWPAYLOAD.TYPE_NAME, field = SHOWPAYLOAD.Show) Show show(DgsDataFetchingEnvironment dfe) { return null; }
    @DgsMutation(field = DgsConstants.MUTATION.AddReview) List<Review> addReview() { return null; }
    @DgsData(parentType = Names.SHOW, field = Names.TITLE) String title(DgsDataFetchingEnvironment dfe) { return null; }
    @DgsData(parentType = Elsewhere.SHOW, field = "id") String id(DgsDataFetchingEnvironment dfe) { return null; }
}
//- /shows/src/main/java/a/Names.java
package a;
class Names { static final String SHOW = "Show"; static final String TITLE = "title"; }
//- /ratings/src/main/java/b/Ratings.java
package b;
import b.gen.DgsConstants.QUERY;
import b.gen.DgsConstants.RATING;
@DgsComponent
class Ratings {
    @DgsQuery(field = QUERY.TopRated) List<Rating> top() { return null; }
    @DgsData(parentType = RATING.TYPE_NAME, field = RATING.Stars) int stars(DgsDataFetchingEnvironment dfe) { return 0; }
}
"#,
            r#"
endpoint QUERY Query.topRated dgs b.Ratings.top (ratings/src/main/java/b/Ratings.java:6)
warning ratings/src/main/java/b/Ratings.java:7: GraphQL mapping stars: its parent type `RATING.TYPE_NAME` is no value the source fixes (a constant of a class not among the sources, or of DGS's generated DgsConstants that no schema file of the product declares): not an endpoint
endpoint QUERY Query.shows dgs a.ShowsDatafetcher.shows (shows/src/main/java/a/ShowsDatafetcher.java:9)
endpoint QUERY Query.shows dgs a.ShowsDatafetcher.all (shows/src/main/java/a/ShowsDatafetcher.java:10)
endpoint FIELD Show.reviews dgs a.ShowsDatafetcher.reviews (shows/src/main/java/a/ShowsDatafetcher.java:11)
endpoint FIELD ShowPayload.show dgs a.ShowsDatafetcher.show (shows/src/main/java/a/ShowsDatafetcher.java:12)
endpoint MUTATION Mutation.addReview dgs a.ShowsDatafetcher.addReview (shows/src/main/java/a/ShowsDatafetcher.java:13)
endpoint FIELD Show.title dgs a.ShowsDatafetcher.title (shows/src/main/java/a/ShowsDatafetcher.java:14)
warning shows/src/main/java/a/ShowsDatafetcher.java:15: GraphQL mapping id: its parent type `Elsewhere.SHOW` is no value the source fixes (a constant of a class not among the sources, or of DGS's generated DgsConstants that no schema file of the product declares): not an endpoint
"#,
        );
    }

    #[test]
    fn graphql_handlers_are_endpoints_named_by_their_schema_coordinate() {
        check(
            r#"
//- /shop/src/main/java/a/OrderGraph.java
package a;
@Controller
class OrderGraph {
    @QueryMapping Order orderById(@Argument String id) { return null; }
    @MutationMapping("placeOrder") Order place(@Argument OrderInput input) { return null; }
    @SchemaMapping Customer customer(Order order) { return null; }
    @SchemaMapping(typeName = "Order", field = "lines") List<Line> lines(Order o) { return null; }
    @BatchMapping List<Item> items(List<Order> orders) { return null; }
    Order notMapped() { return null; }
}
//- /shop/src/main/java/a/Shows.java
package a;
@DgsComponent
class Shows {
    @DgsQuery List<Show> shows(@InputArgument String title) { return null; }
    @DgsData(parentType = "Show", field = "reviews") List<Review> reviews(DgsDataFetchingEnvironment env) { return null; }
}
//- /shop/src/main/java/a/NotGraph.java
package a;
@Service
class NotGraph { @QueryMapping Order orderById(String id) { return null; } }
"#,
            r#"
endpoint QUERY Query.orderById graphql a.OrderGraph.orderById (shop/src/main/java/a/OrderGraph.java:4)
endpoint MUTATION Mutation.placeOrder graphql a.OrderGraph.place (shop/src/main/java/a/OrderGraph.java:5)
endpoint FIELD Order.customer graphql a.OrderGraph.customer (shop/src/main/java/a/OrderGraph.java:6)
endpoint FIELD Order.lines graphql a.OrderGraph.lines (shop/src/main/java/a/OrderGraph.java:7)
endpoint FIELD Order.items graphql a.OrderGraph.items (shop/src/main/java/a/OrderGraph.java:8)
endpoint QUERY Query.shows dgs a.Shows.shows (shop/src/main/java/a/Shows.java:4)
endpoint FIELD Show.reviews dgs a.Shows.reviews (shop/src/main/java/a/Shows.java:5)
"#,
        );
    }
}
