//! Maven POMs, read with a real XML parser: coordinates (a module's own, or inherited from
//! `<parent>`), packaging, `<modules>`, and `<dependencies>` (not those of
//! `<dependencyManagement>` or of plugins, which a module does not depend on by them).

use super::{BuildFile, Dependency};
use crate::lang::xml;

/// Reads a POM; a file that is no well-formed POM gives facts with a warning.
pub(crate) fn parse_pom(text: &str) -> BuildFile {
    let mut out = BuildFile::default();
    let doc = match roxmltree::Document::parse_with_options(text, xml::options()) {
        Ok(doc) => doc,
        Err(e) => {
            out.warnings
                .push((Some(e.pos().row), format!("not a well-formed POM: {e}")));
            return out;
        }
    };
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        out.warnings
            .push((None, "not a POM: the root element is not <project>".into()));
        return out;
    }
    let value = |n: roxmltree::Node<'_, '_>, tag: &str| {
        xml::child(n, tag)
            .map(|c| xml::text(c).trim().to_string())
            .filter(|s| !s.is_empty())
    };
    out.artifact = value(project, "artifactId");
    out.group =
        value(project, "groupId").or_else(|| xml::child(project, "parent").and_then(|p| value(p, "groupId")));
    out.packaging = Some(value(project, "packaging").unwrap_or_else(|| "jar".into()));
    if let Some(modules) = xml::child(project, "modules") {
        out.modules = xml::children(modules, "module")
            .map(|m| xml::text(m).trim().to_string())
            .filter(|m| !m.is_empty())
            .collect();
    }
    out.java_release = java_release_of(project);
    if let Some(deps) = xml::child(project, "dependencies") {
        for d in xml::children(deps, "dependency") {
            let (Some(group), Some(artifact)) = (value(d, "groupId"), value(d, "artifactId")) else {
                continue;
            };
            out.dependencies.push(Dependency {
                group,
                artifact,
                version: value(d, "version"),
                scope: value(d, "scope").unwrap_or_else(|| "compile".into()),
            });
        }
    }
    out
}

/// The Java release a POM compiles for: the highest of its compiler properties
/// (`maven.compiler.release`/`source`/`target`, Spring Boot's `java.version`) and its
/// `maven-compiler-plugin`'s `<release>`/`<source>`/`<target>`, a `${property}` read
/// from the POM's own `<properties>`.
fn java_release_of(project: roxmltree::Node<'_, '_>) -> Option<u32> {
    let properties: Vec<(&str, String)> = xml::child(project, "properties")
        .map(|p| {
            p.children()
                .filter(|c| c.is_element())
                .map(|c| (c.tag_name().name(), xml::text(c).trim().to_string()))
                .collect()
        })
        .unwrap_or_default();
    let property = |name: &str| {
        properties
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.clone())
    };
    let value = |written: String| match written.strip_prefix("${").and_then(|w| w.strip_suffix('}')) {
        Some(name) => property(name),
        None => Some(written),
    };
    let mut written: Vec<String> = [
        "maven.compiler.release",
        "maven.compiler.source",
        "maven.compiler.target",
        "java.version",
    ]
    .iter()
    .filter_map(|name| property(name))
    .collect();
    let build = xml::child(project, "build");
    let plugin_lists = build
        .into_iter()
        .flat_map(|b| {
            [
                xml::child(b, "plugins"),
                xml::child(b, "pluginManagement").and_then(|m| xml::child(m, "plugins")),
            ]
        })
        .flatten();
    for plugins in plugin_lists {
        for plugin in xml::children(plugins, "plugin") {
            let is_compiler = xml::child(plugin, "artifactId")
                .is_some_and(|a| xml::text(a).trim() == "maven-compiler-plugin");
            let Some(config) = xml::child(plugin, "configuration").filter(|_| is_compiler) else {
                continue;
            };
            for tag in ["release", "source", "target"] {
                if let Some(t) = xml::child(config, tag) {
                    written.push(xml::text(t).trim().to_string());
                }
            }
        }
    }
    written
        .into_iter()
        .filter_map(value)
        .filter_map(|w| super::java_release(&w))
        .max()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_java_release_is_the_highest_the_pom_writes_as_data() {
        let release = |body: &str| {
            parse_pom(&format!("<project><artifactId>x</artifactId>{body}</project>")).java_release
        };
        assert_eq!(
            release("<properties><java.version>21</java.version></properties>"),
            Some(21)
        );
        assert_eq!(
            release("<properties><maven.compiler.source>1.8</maven.compiler.source></properties>"),
            Some(8)
        );
        assert_eq!(
            release(
                "<properties><jdk>17</jdk></properties><build><plugins><plugin>\
                 <artifactId>maven-compiler-plugin</artifactId>\
                 <configuration><release>${jdk}</release></configuration></plugin></plugins></build>"
            ),
            Some(17)
        );
        // Another plugin's `<release>` is not the compiler's; a property nothing defines is
        // no release.
        assert_eq!(
            release(
                "<build><plugins><plugin><artifactId>maven-release-plugin</artifactId>\
                 <configuration><release>21</release></configuration></plugin></plugins></build>\
                 <properties><maven.compiler.release>${unknown}</maven.compiler.release></properties>"
            ),
            None
        );
        assert_eq!(release(""), None);
    }

    #[test]
    fn poms_give_coordinates_modules_and_dependencies_not_managed_ones() {
        let pom = parse_pom(
            r#"<?xml version="1.0"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1</version></parent>
  <artifactId>orders-service</artifactId>
  <!-- <packaging>pom</packaging> -->
  <modules><module>api</module><module> core </module></modules>
  <dependencyManagement><dependencies><dependency>
    <groupId>org.x</groupId><artifactId>managed</artifactId><version>9</version>
  </dependency></dependencies></dependencyManagement>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-data-rest</artifactId></dependency>
    <dependency><groupId>org.junit</groupId><artifactId>junit</artifactId><version>${junit.version}</version><scope>test</scope></dependency>
  </dependencies>
</project>"#,
        );
        assert_eq!(pom.artifact.as_deref(), Some("orders-service"));
        assert_eq!(
            pom.group.as_deref(),
            Some("com.acme"),
            "inherited from the parent"
        );
        assert_eq!(
            pom.packaging.as_deref(),
            Some("jar"),
            "a commented packaging is no packaging"
        );
        assert_eq!(pom.modules, ["api", "core"]);
        let deps: Vec<(&str, Option<&str>, &str)> = pom
            .dependencies
            .iter()
            .map(|d| (d.artifact.as_str(), d.version.as_deref(), d.scope.as_str()))
            .collect();
        assert_eq!(
            deps,
            [
                ("spring-boot-starter-data-rest", None, "compile"),
                ("junit", Some("${junit.version}"), "test")
            ]
        );
        assert!(pom.depends_on("data-rest"));
        assert!(!parse_pom("<project><artifactId>x").warnings.is_empty());
    }
}
