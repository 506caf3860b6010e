//! The bundled library models: the public API of the test libraries nearly every Spring
//! codebase compiles against (the assertion, mocking and test-engine libraries of
//! `spring-boot-starter-test`), generated from their jars, committed as `libraries.tm` and
//! embedded like the JDK model.
//!
//! Why: a server indexes fresh clones, where no build has filled a local Maven repository.
//! Without these types every assertion chain (`assertThat(x).isEqualTo(y)`) and every
//! Mockito call (`verify(repository).save(order)`, whose result is the product's own type)
//! is unresolved — on spring-boot, seven calls in ten of those left unresolved. Jars on
//! disk (a classpath, a local repository) always come first: the bundled model only
//! answers for names nothing closer declares.
//!
//! Only libraries whose packaged version's API is the one current code calls are built
//! from jars (additive APIs: AssertJ 3, Mockito 2+, JUnit 5, Hamcrest 2, JUnit 4);
//! frameworks whose packaged build is a major version behind (Spring 4.3) are not, since
//! their signatures would type today's calls wrongly. Their current releases' API is read
//! from their sources instead (`crate::framework_models`, committed as `frameworks.tm`)
//! and embedded here too: [`libraries`] is both, as one layer.
//!
//! Regenerate with `cargo run -p semgraph-indexer --bin typemodel-jdk -- --libraries
//! [JARS_DIR]` (default `/usr/share/java`, where Debian's `libassertj-core-java`,
//! `libmockito-java`, `junit5`, `libhamcrest-java`, `junit4` and `libopentest4j-java`
//! packages put them); it rewrites `indexer/src/typemodel/libraries.tm`. Licences:
//! `LIBRARIES.md` beside this file.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::deps;
use super::error::TypeModelError;
use super::model::TypeModel;
use super::wire;

/// A bundled library: its Maven coordinate and the jar it is generated from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Library {
    pub(crate) group: &'static str,
    pub(crate) artifact: &'static str,
    /// The jar's name in the generator's folder (a link to the versioned jar).
    pub(crate) jar: &'static str,
}

/// The bundled libraries, in the order their types hide each other's.
pub(crate) const LIBRARIES: &[Library] = &[
    Library {
        group: "org.assertj",
        artifact: "assertj-core",
        jar: "assertj-core.jar",
    },
    Library {
        group: "org.mockito",
        artifact: "mockito-core",
        jar: "mockito-core.jar",
    },
    Library {
        group: "org.junit.jupiter",
        artifact: "junit-jupiter-api",
        jar: "junit-jupiter-api.jar",
    },
    Library {
        group: "org.junit.jupiter",
        artifact: "junit-jupiter-params",
        jar: "junit-jupiter-params.jar",
    },
    Library {
        group: "org.opentest4j",
        artifact: "opentest4j",
        jar: "opentest4j.jar",
    },
    Library {
        group: "org.hamcrest",
        artifact: "hamcrest",
        jar: "hamcrest.jar",
    },
    Library {
        group: "junit",
        artifact: "junit",
        jar: "junit4.jar",
    },
];

static LIBRARIES_DATA: &[u8] = include_bytes!("libraries.tm");
/// The framework APIs read from their sources (`framework_models`, `typemodel-frameworks`).
static FRAMEWORKS_DATA: &[u8] = include_bytes!("frameworks.tm");
static JARS: OnceLock<TypeModel> = OnceLock::new();
static MODEL: OnceLock<(TypeModel, Vec<BundledVersion>)> = OnceLock::new();

/// A bundled library as the embedded data records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BundledVersion {
    pub(crate) group: String,
    pub(crate) artifact: String,
    pub(crate) version: String,
}

impl std::fmt::Display for BundledVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.group, self.artifact, self.version)
    }
}

/// Every bundled model in one layer, decoded on first use: the test libraries read from
/// their jars and the framework APIs read from their sources (no type is in both). Never
/// fails: were the embedded data unreadable (a test proves they are not), that part is
/// empty.
pub(crate) fn libraries() -> &'static TypeModel {
    &entry().0
}

/// The test libraries read from their jars alone (what `generate_model` makes), for the
/// framework models' generator and the tests; an index run reads only [`libraries`], which
/// does not keep this copy.
pub(crate) fn jar_libraries() -> &'static TypeModel {
    JARS.get_or_init(|| decoded(LIBRARIES_DATA, "library").0)
}

/// Which libraries and frameworks, at which versions, the bundled model holds.
pub(crate) fn bundled() -> &'static [BundledVersion] {
    &entry().1
}

/// The bundled version of `group:artifact`, if it is bundled.
pub(crate) fn bundled_version(group: &str, artifact: &str) -> Option<&'static BundledVersion> {
    bundled()
        .iter()
        .find(|b| b.group == group && b.artifact == artifact)
}

fn decoded(data: &[u8], what: &str) -> (TypeModel, Vec<BundledVersion>) {
    match wire::decode(data) {
        Ok((model, origin)) => (model, parse_origin(&origin)),
        Err(e) => {
            tracing::warn!("the embedded {what} type model does not load: {e}");
            (TypeModel::default(), Vec::new())
        }
    }
}

fn entry() -> &'static (TypeModel, Vec<BundledVersion>) {
    MODEL.get_or_init(|| {
        let (jars, mut versions) = decoded(LIBRARIES_DATA, "library");
        let (frameworks, framework_versions) = decoded(FRAMEWORKS_DATA, "framework");
        let mut types = jars.into_types();
        types.extend(frameworks.into_types());
        versions.extend(framework_versions);
        (TypeModel::new(types), versions)
    })
}

/// The size of the embedded data, in bytes.
pub(crate) fn embedded_size() -> usize {
    LIBRARIES_DATA.len()
}

/// The origin line the generator writes: `bundled libraries: g:a:v, g:a:v`.
fn origin_of(versions: &[BundledVersion]) -> String {
    let listed: Vec<String> = versions.iter().map(ToString::to_string).collect();
    format!("bundled libraries: {}", listed.join(", "))
}

fn parse_origin(origin: &str) -> Vec<BundledVersion> {
    origin
        .strip_prefix("bundled libraries: ")
        .or_else(|| origin.strip_prefix("bundled frameworks: "))
        .unwrap_or_default()
        .split(", ")
        .filter_map(|c| {
            let mut parts = c.splitn(3, ':');
            Some(BundledVersion {
                group: parts.next()?.to_string(),
                artifact: parts.next()?.to_string(),
                version: parts.next()?.to_string(),
            })
        })
        .collect()
}

/// The version of `jar`, from the versioned name beside it that leads to the same file
/// (`assertj-core-3.14.0.jar` → `assertj-core.jar`, or the other way round).
fn version_of(jar: &Path) -> Option<String> {
    let stem = jar.file_stem()?.to_str()?;
    let real = std::fs::canonicalize(jar).ok()?;
    let prefix = format!("{stem}-");
    std::fs::read_dir(jar.parent()?)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            let version = name.strip_prefix(&prefix)?.strip_suffix(".jar")?.to_string();
            (version.starts_with(|c: char| c.is_ascii_digit())
                && std::fs::canonicalize(e.path()).ok()? == real)
                .then_some(version)
        })
        .min()
}

/// Reads [`LIBRARIES`] from `dir` into one model, with the versions read.
pub(crate) fn generate_model(dir: &Path) -> Result<(TypeModel, Vec<BundledVersion>), TypeModelError> {
    let mut jars: Vec<PathBuf> = Vec::new();
    let mut versions = Vec::new();
    for lib in LIBRARIES {
        let jar = dir.join(lib.jar);
        let version = version_of(&jar).ok_or_else(|| {
            TypeModelError::Data(format!(
                "{}: no versioned jar of {} beside it",
                jar.display(),
                lib.artifact
            ))
        })?;
        versions.push(BundledVersion {
            group: lib.group.to_string(),
            artifact: lib.artifact.to_string(),
            version,
        });
        jars.push(jar);
    }
    let cp = deps::load_classpath(&jars);
    if let Some(r) = cp.reports.iter().find(|r| !r.is_typed()) {
        return Err(TypeModelError::Data(format!("{}: {:?}", r.coordinate, r.outcome)));
    }
    Ok((cp.model, versions))
}

/// [`generate_model`], encoded for committing.
pub(crate) fn generate(dir: &Path) -> Result<(Vec<u8>, Vec<BundledVersion>), TypeModelError> {
    let (model, versions) = generate_model(dir)?;
    let data = wire::encode(&model, &origin_of(&versions))?;
    Ok((data, versions))
}
