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

#[cfg(test)]
mod tests {
    use super::*;

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
