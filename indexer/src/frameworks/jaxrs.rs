//! JAX-RS resources: a class-level `@Path` and methods with `@GET`/`@POST`/… and an
//! optional method-level `@Path`.

use super::annotations::{find, join, short, values};
use super::{Endpoint, Finding, Findings, Owner, Product, Recogniser};
use crate::facts::CodeFile;
use crate::resolve::MethodKey;

const VERBS: &[&str] = &["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"];

pub(crate) struct JaxRs;

impl Recogniser for JaxRs {
    fn declared(&self, _product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            let Some(class_path) = find(&t.annotations, "Path").map(|a| values(a, &["value"])) else {
                continue;
            };
            let prefix = class_path.first().cloned().unwrap_or_default();
            for m in &t.methods {
                let Some(verb) = m
                    .annotations
                    .iter()
                    .map(|a| short(&a.name))
                    .find(|n| VERBS.contains(n))
                else {
                    continue;
                };
                let path = find(&m.annotations, "Path")
                    .and_then(|a| values(a, &["value"]).first().cloned())
                    .unwrap_or_default();
                out.push(Finding::Endpoint(Endpoint {
                    verb: verb.to_string(),
                    path: join(&prefix, &path),
                    kind: "jax-rs",
                    file: file.path.clone(),
                    lines: (m.line_start, m.line_end),
                    handler: Owner::Method(MethodKey::of(t, m)),
                    handler_name: format!("{}.{}", t.fqn, m.name),
                    service_file: file.path.clone(),
                    before: Vec::new(),
                }));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn resources_serve_verb_methods_under_the_class_path() {
        check(
            r#"
//- /svc/src/main/java/a/Legacy.java
package a;
@Path("/legacy")
public class Legacy {
    @GET @Path("/{id}") public String get(String id) { return id; }
    @POST public void post(String body) {}
    public void notAResource() {}
}
//- /svc/src/main/java/a/NoPath.java
package a;
public class NoPath { @GET public void get() {} }
"#,
            r#"
endpoint GET /legacy/{id} jax-rs a.Legacy.get (svc/src/main/java/a/Legacy.java:4)
endpoint POST /legacy jax-rs a.Legacy.post (svc/src/main/java/a/Legacy.java:5)
"#,
        );
    }
}
