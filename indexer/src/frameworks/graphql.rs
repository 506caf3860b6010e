//! GraphQL handlers: Spring for GraphQL's `@QueryMapping`, `@MutationMapping`,
//! `@SubscriptionMapping`, `@SchemaMapping` and `@BatchMapping` on `@Controller` methods,
//! and Netflix DGS's `@DgsQuery`, `@DgsMutation`, `@DgsSubscription` and `@DgsData` on
//! `@DgsComponent` methods — each an endpoint named by its schema coordinate: the verb
//! `QUERY`, `MUTATION`, `SUBSCRIPTION` or `FIELD`, the path `Type.field` (`Query.orderById`,
//! `Order.customer`). The field is the annotation's `name`/`field`/`value`, else the
//! method's name; `@SchemaMapping`'s type is `typeName`, else the class-level
//! `@SchemaMapping(typeName)`, else the method's first parameter's type.

use super::annotations::{find, short, values};
use super::{Endpoint, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::{simple_name, type_args, CodeFile, MethodDecl, TypeDecl, TypeKind};
use crate::resolve::MethodKey;

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
    fn declared(&self, _product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
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
            let class_type =
                find(&t.annotations, "SchemaMapping").and_then(|a| values(a, &["typeName"]).first().cloned());
            for m in &t.methods {
                for a in &m.annotations {
                    let Some(&(_, verb, implied)) = table.iter().find(|(n, ..)| *n == short(&a.name)) else {
                        continue;
                    };
                    let field = values(a, &["field", "name", "value"])
                        .into_iter()
                        .next()
                        .filter(|f| !f.is_empty())
                        .unwrap_or_else(|| m.name.clone());
                    let parent = values(a, &["typeName", "parentType"])
                        .into_iter()
                        .next()
                        .filter(|p| !p.is_empty())
                        .or_else(|| implied.map(str::to_string))
                        .or_else(|| class_type.clone())
                        .or_else(|| source_type(m));
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
