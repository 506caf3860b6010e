//! Build files front-end: Maven POMs and Gradle build scripts (Groovy and Kotlin DSL) →
//! the facts semgraph needs of a build: the module's coordinates and packaging, its
//! declared dependencies (for typing code against their jars, and for what a module
//! depends on), the modules an aggregator or a settings script includes, and the Java
//! release it compiles for.
//!
//! POMs are read with a real XML parser. Gradle scripts are programs; what is read of
//! them is their declarative part — dependency declarations in the usual notations
//! (`implementation("g:a:v")`, `implementation 'g:a:v'`, `implementation(group = "g", name
//! = "a", version = "v")`, `platform(…)`), `project(":x")` references, and the `include`
//! lines of settings scripts — and anything computed is left out, not guessed.

mod gradle;
mod maven;

pub(crate) use gradle::{parse_gradle_build, parse_gradle_settings};
pub(crate) use maven::parse_pom;

/// Which build tool a build file belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BuildKind {
    Maven,
    Gradle,
    GradleSettings,
}

/// A declared dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Dependency {
    pub(crate) group: String,
    pub(crate) artifact: String,
    /// As written: a version, a `${property}` left open, or absent (managed elsewhere).
    pub(crate) version: Option<String>,
    /// `compile`, `runtime`, `test`, `provided`, … (Maven scope or Gradle configuration).
    pub(crate) scope: String,
}

/// The facts of one build file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct BuildFile {
    /// Maven `artifactId` (outside `<parent>`).
    pub(crate) artifact: Option<String>,
    /// Maven `groupId` (its own, else the parent's).
    pub(crate) group: Option<String>,
    /// Maven `packaging` (`jar` when absent); `None` for Gradle.
    pub(crate) packaging: Option<String>,
    pub(crate) dependencies: Vec<Dependency>,
    /// Modules included: Maven `<modules>`, Gradle settings `include` (as folders).
    pub(crate) modules: Vec<String>,
    /// Other modules of the same build this one depends on (`project(":x")`).
    pub(crate) project_dependencies: Vec<String>,
    /// The Java release the module compiles for, when the build says it as data
    /// (`<java.version>21</java.version>`, `maven.compiler.release`, the compiler plugin's
    /// `<release>`, Gradle's `sourceCompatibility`, a toolchain's `languageVersion`,
    /// `jvmToolchain(21)`): the highest written. `1.8` is 8.
    pub(crate) java_release: Option<u32>,
    /// What could not be read, with its line when known.
    pub(crate) warnings: Vec<(Option<u32>, String)>,
}

impl BuildFile {
    /// Whether the build declares a dependency whose artifact id contains `needle`.
    pub(crate) fn depends_on(&self, needle: &str) -> bool {
        self.dependencies.iter().any(|d| d.artifact.contains(needle))
    }
}

/// A Java release as builds write it: `21`, `"17"`, `1.8` (8), `17.0.2` (17),
/// `JavaVersion.VERSION_21`, `VERSION_1_8` (8). `None` for anything else (a property left
/// open, a variable).
pub(crate) fn java_release(written: &str) -> Option<u32> {
    let w = written.trim().trim_matches(|c| c == '"' || c == '\'');
    let w = w.rsplit("VERSION_").next().unwrap_or(w).replace('_', ".");
    let mut parts = w.split('.');
    let first: u32 = parts.next()?.parse().ok()?;
    let release = if first == 1 {
        parts.next()?.parse().ok()?
    } else {
        first
    };
    (5..100).contains(&release).then_some(release)
}

/// Which build file `rel` is, by its name.
pub(crate) fn build_kind(rel: &str) -> Option<BuildKind> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    match name {
        "pom.xml" => Some(BuildKind::Maven),
        "build.gradle" | "build.gradle.kts" => Some(BuildKind::Gradle),
        "settings.gradle" | "settings.gradle.kts" => Some(BuildKind::GradleSettings),
        _ => None,
    }
}

/// Parses one build file of kind `kind`.
pub(crate) fn parse_build_file(kind: BuildKind, text: &str) -> BuildFile {
    match kind {
        BuildKind::Maven => parse_pom(text),
        BuildKind::Gradle => parse_gradle_build(text),
        BuildKind::GradleSettings => parse_gradle_settings(text),
    }
}
