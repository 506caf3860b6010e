//! Servlets: `HttpServlet` subclasses annotated `@WebServlet(urlPatterns)`, and servlet
//! classes mapped in a `web.xml` (or `web-fragment.xml`) deployment descriptor; each
//! pattern is served by the class's `doGet`/`doPost`/`doPut`/`doDelete`/`doPatch` (its
//! own, else the nearest superclass's in the product).

use std::collections::HashMap;

use super::annotations::{find, join, short, values};
use super::{Endpoint, Finding, Findings, Owner, Product, ProductFindings, Recogniser};
use crate::facts::{CodeFile, TypeDecl};
use crate::resolve::MethodKey;
use crate::walk::{self, SourceKind};

/// The `HttpServlet` methods that serve a verb.
const METHODS: &[(&str, &str)] = &[
    ("doGet", "GET"),
    ("doPost", "POST"),
    ("doPut", "PUT"),
    ("doDelete", "DELETE"),
    ("doPatch", "PATCH"),
];

pub(crate) struct Servlets;

impl Recogniser for Servlets {
    fn declared(&self, _product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        for t in &file.types {
            let Some(servlet) = find(&t.annotations, "WebServlet") else {
                continue;
            };
            if !t.extends.iter().any(|e| short(e) == "HttpServlet") {
                continue;
            }
            for m in &t.methods {
                let Some((_, verb)) = METHODS.iter().find(|(n, _)| *n == m.name) else {
                    continue;
                };
                for p in values(servlet, &["value", "urlPatterns"]) {
                    out.push(Finding::Endpoint(Endpoint {
                        verb: verb.to_string(),
                        path: join("", &p),
                        kind: "servlet",
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

    fn product(&self, product: &Product<'_>, all: &mut ProductFindings) {
        let decls: HashMap<&str, (&CodeFile, &TypeDecl)> = product
            .skeletons
            .iter()
            .flat_map(|f| f.types.iter().map(move |t| (t.fqn.as_str(), (f, t))))
            .collect();
        for f in product.files.iter().filter(|f| {
            f.kind == SourceKind::Xml
                && (f.rel.ends_with("/web.xml") || f.rel.ends_with("/web-fragment.xml") || f.rel == "web.xml")
        }) {
            let out = all.file(&f.rel);
            let mut ignored = Vec::new();
            let Some(text) = walk::read_source(f, &mut ignored) else {
                continue;
            };
            let servlets = match web_xml_servlets(&text) {
                Ok(s) => s,
                Err(e) => {
                    out.warn(&f.rel, None, format!("skipped as a deployment descriptor: {e}"));
                    continue;
                }
            };
            for (class, patterns) in servlets {
                let Some(&(file, t)) = decls.get(class.as_str()) else {
                    out.warn(
                        &f.rel,
                        None,
                        format!("web.xml servlet class {class} is not in the product's sources"),
                    );
                    continue;
                };
                // `@WebServlet` patterns are found from the annotation already.
                let annotated: Vec<String> = find(&t.annotations, "WebServlet")
                    .map(|a| {
                        values(a, &["value", "urlPatterns"])
                            .iter()
                            .map(|p| join("", p))
                            .collect()
                    })
                    .unwrap_or_default();
                // The handlers: the class's own, else the nearest internal superclass's.
                let mut chain = vec![(file, t)];
                while let Some(sup) = chain
                    .last()
                    .and_then(|(_, c)| product.table.get(&c.fqn))
                    .and_then(|i| i.superclass.clone())
                    .and_then(|s| decls.get(&*s).copied())
                {
                    if chain.len() > 16 || chain.iter().any(|(_, c)| c.fqn == sup.1.fqn) {
                        break;
                    }
                    chain.push(sup);
                }
                for (method, verb) in METHODS {
                    let Some((owner_file, owner, m)) = chain.iter().find_map(|(f2, c)| {
                        c.methods.iter().find(|m| m.name == *method).map(|m| (*f2, *c, m))
                    }) else {
                        continue;
                    };
                    for p in &patterns {
                        let path = join("", p);
                        if annotated.contains(&path) {
                            continue;
                        }
                        out.push(Finding::Endpoint(Endpoint {
                            verb: verb.to_string(),
                            path,
                            kind: "servlet",
                            file: owner_file.path.clone(),
                            lines: (m.line_start, m.line_end),
                            handler: Owner::Method(MethodKey::of(owner, m)),
                            handler_name: format!("{}.{}", owner.fqn, m.name),
                            service_file: f.rel.clone(),
                            before: Vec::new(),
                        }));
                    }
                }
            }
        }
    }
}

/// `(servlet class, url patterns)` of a web.xml deployment descriptor, read with a real
/// XML parser (namespaces, comments, CDATA and entities as XML has them).
pub(crate) fn web_xml_servlets(xml: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let doc = roxmltree::Document::parse_with_options(xml, crate::lang::xml::options())
        .map_err(|e| format!("not well-formed XML: {e}"))?;
    let text_of = |n: roxmltree::Node<'_, '_>, tag: &str| -> Option<String> {
        n.children()
            .find(|c| c.is_element() && c.tag_name().name() == tag)
            .map(|c| crate::lang::xml::text(c).trim().to_string())
    };
    let elements = |tag: &'static str| {
        doc.descendants()
            .filter(move |n| n.is_element() && n.tag_name().name() == tag)
    };
    let classes: Vec<(String, String)> = elements("servlet")
        .filter_map(|s| Some((text_of(s, "servlet-name")?, text_of(s, "servlet-class")?)))
        .collect();
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for m in elements("servlet-mapping") {
        let Some(name) = text_of(m, "servlet-name") else {
            continue;
        };
        let Some((_, class)) = classes.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let patterns: Vec<String> = m
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "url-pattern")
            .map(|c| crate::lang::xml::text(c).trim().to_string())
            .collect();
        match out.iter_mut().find(|(c, _)| c == class) {
            Some((_, ps)) => ps.extend(patterns),
            None => out.push((class.clone(), patterns)),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::web_xml_servlets;
    use crate::frameworks::testing::check;

    #[test]
    fn annotated_and_descriptor_servlets_serve_their_patterns() {
        check(
            r#"
//- /web/src/main/java/a/Health.java
package a;
@WebServlet(urlPatterns = {"/health"})
public class Health extends HttpServlet {
    protected void doGet(Object req, Object resp) {}
}
//- /web/src/main/java/a/Base.java
package a;
public class Base extends HttpServlet {
    protected void doPost(Object req, Object resp) {}
}
//- /web/src/main/java/a/Legacy.java
package a;
public class Legacy extends Base {}
//- /web/src/main/java/a/NotAServlet.java
package a;
@WebServlet("/nope")
public class NotAServlet { protected void doGet(Object req, Object resp) {} }
//- /web/src/main/webapp/WEB-INF/web.xml
<?xml version="1.0"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee">
  <!-- <servlet><servlet-name>x</servlet-name><servlet-class>a.Ghost</servlet-class></servlet> -->
  <servlet><servlet-name>legacy</servlet-name><servlet-class>a.Legacy</servlet-class></servlet>
  <servlet><servlet-name>missing</servlet-name><servlet-class>a.Missing</servlet-class></servlet>
  <servlet-mapping><servlet-name>legacy</servlet-name><url-pattern>/legacy/*</url-pattern></servlet-mapping>
  <servlet-mapping><servlet-name>missing</servlet-name><url-pattern>/m</url-pattern></servlet-mapping>
</web-app>
"#,
            r#"
endpoint GET /health servlet a.Health.doGet (web/src/main/java/a/Health.java:4)
endpoint POST /legacy/* servlet a.Base.doPost (web/src/main/java/a/Base.java:3)
warning web/src/main/webapp/WEB-INF/web.xml: web.xml servlet class a.Missing is not in the product's sources
"#,
        );
    }

    #[test]
    fn web_xml_maps_servlet_classes_to_their_patterns() {
        let xml = r#"<web-app>
          <!-- <servlet><servlet-name>old</servlet-name><servlet-class>a.Old</servlet-class></servlet> -->
          <servlet><servlet-name>s</servlet-name><servlet-class> a.b.S </servlet-class></servlet>
          <servlet-mapping><servlet-name>s</servlet-name><url-pattern>/x</url-pattern><url-pattern>/y/*</url-pattern></servlet-mapping>
          <servlet-mapping><servlet-name>old</servlet-name><url-pattern>/old</url-pattern></servlet-mapping>
        </web-app>"#;
        assert_eq!(
            web_xml_servlets(xml),
            Ok(vec![(
                "a.b.S".to_string(),
                vec!["/x".to_string(), "/y/*".to_string()]
            )])
        );
    }

    #[test]
    fn a_broken_descriptor_is_an_error_not_a_guess() {
        assert!(web_xml_servlets("<web-app><servlet>").is_err());
        assert_eq!(
            web_xml_servlets("<web-app><servlet><servlet-name> s </servlet-name><servlet-class>a.S</servlet-class></servlet><servlet-mapping><servlet-name>s</servlet-name><url-pattern><![CDATA[/s]]></url-pattern></servlet-mapping></web-app>"),
            Ok(vec![("a.S".to_string(), vec!["/s".to_string()])])
        );
    }
}
