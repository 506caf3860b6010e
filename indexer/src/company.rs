//! `semgraph.toml`: which products make up the company, and where their sources are.
//!
//! The file is strict: an unknown key is an error that names it, because a misspelt
//! `repo = …` silently indexing nothing is worse than a refusal. Paths are relative to
//! the file. Without a file, `semgraph index PATH…` makes one product per path.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::IndexError;

/// The whole company: the store and its products.
#[derive(Clone, Debug, PartialEq)]
pub struct Company {
    /// The store directory.
    pub store: PathBuf,
    /// The products, in file order.
    pub products: Vec<ProductSource>,
    /// The file this came from, if any.
    pub config_file: Option<PathBuf>,
    /// The `[server]` section, kept as written for the server to read.
    pub server: Option<toml::Table>,
    /// Where the types of the code's dependencies come from (`[dependencies]`).
    pub dependencies: Dependencies,
}

/// Where the types of the code's dependencies come from: jars and class folders listed
/// explicitly, then the jars the builds declare, looked up in the local Maven repository
/// and the Gradle cache. Signatures only; without any, calls into a library stay
/// unresolved and are counted so.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependencies {
    /// Jars and class folders read first (`classpath = [...]`, `--classpath`); a folder
    /// holding jars stands for each of them.
    pub classpath: Vec<PathBuf>,
    /// Whether declared dependencies are looked for in `~/.m2/repository` (or
    /// `$MAVEN_REPO`) and the Gradle cache (`$GRADLE_USER_HOME`).
    pub local_repositories: bool,
}

/// Whether the types of one declared dependency (or classpath entry) were read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DependencyTyping {
    /// `group:artifact[:version]` as declared, or the classpath entry.
    pub coordinate: String,
    /// Declared by a build (else an entry of the classpath no declared dependency names).
    pub declared: bool,
    /// The jar or folder its types were read from.
    pub typed_from: Option<String>,
    /// Why its types are not known, when they are not.
    pub why_not: Option<String>,
}

impl Dependencies {
    /// The sources' own types and the JDK's only: no classpath, no local repositories — a
    /// run whose answers do not depend on the machine (tests, benchmarks).
    pub fn sources_only() -> Dependencies {
        Dependencies {
            classpath: Vec::new(),
            local_repositories: false,
        }
    }
}

impl Default for Dependencies {
    fn default() -> Self {
        Dependencies {
            classpath: Vec::new(),
            local_repositories: true,
        }
    }
}

/// One product and where its sources are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductSource {
    /// Its name (unique in the company).
    pub name: String,
    /// The area that owns its content.
    pub area: String,
    /// Repository roots.
    pub repos: Vec<PathBuf>,
    /// Folders of markdown wiki pages.
    pub wiki: Vec<PathBuf>,
    /// Jira search-API export files (or folders of them).
    pub jira: Vec<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCompany {
    store: Option<RawStore>,
    #[serde(default, rename = "product")]
    products: Vec<RawProduct>,
    server: Option<toml::Table>,
    dependencies: Option<RawDependencies>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDependencies {
    #[serde(default)]
    classpath: Vec<PathBuf>,
    local_repositories: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStore {
    path: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProduct {
    name: String,
    area: String,
    #[serde(default)]
    repos: Vec<PathBuf>,
    #[serde(default)]
    wiki: Vec<PathBuf>,
    #[serde(default)]
    jira: Vec<PathBuf>,
}

/// The store used when neither the config nor the command line names one.
pub const DEFAULT_STORE: &str = ".semgraph";

impl Company {
    /// Reads `semgraph.toml` at `path`.
    pub fn load(path: &Path) -> Result<Company, IndexError> {
        let text = std::fs::read_to_string(path).map_err(|e| IndexError::Config {
            file: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::parse(path, &text)
    }

    /// Parses the text of a `semgraph.toml` found at `path`.
    pub fn parse(path: &Path, text: &str) -> Result<Company, IndexError> {
        let config_error = |message: String| IndexError::Config {
            file: path.to_path_buf(),
            message,
        };
        let raw: RawCompany = toml::from_str(text).map_err(|e| config_error(e.to_string()))?;
        let base = path.parent().unwrap_or_else(|| Path::new("."));
        let resolve = |p: &PathBuf| if p.is_absolute() { p.clone() } else { base.join(p) };
        let mut products: Vec<ProductSource> = Vec::new();
        for p in raw.products {
            if products.iter().any(|q| q.name == p.name) {
                return Err(config_error(format!("product '{}' is listed twice", p.name)));
            }
            if p.repos.is_empty() && p.wiki.is_empty() && p.jira.is_empty() {
                return Err(config_error(format!(
                    "product '{}' has no repos, wiki or jira to index",
                    p.name
                )));
            }
            products.push(ProductSource {
                name: p.name,
                area: p.area,
                repos: p.repos.iter().map(resolve).collect(),
                wiki: p.wiki.iter().map(resolve).collect(),
                jira: p.jira.iter().map(resolve).collect(),
            });
        }
        let store = raw
            .store
            .and_then(|s| s.path)
            .map(|p| resolve(&p))
            .unwrap_or_else(|| base.join(DEFAULT_STORE));
        let dependencies = match raw.dependencies {
            Some(d) => Dependencies {
                classpath: d.classpath.iter().map(resolve).collect(),
                local_repositories: d.local_repositories.unwrap_or(true),
            },
            None => Dependencies::default(),
        };
        Ok(Company {
            store,
            products,
            config_file: Some(path.to_path_buf()),
            server: raw.server,
            dependencies,
        })
    }

    /// One product per path, named after its folder, in area `default`.
    pub fn from_paths(paths: &[PathBuf], store: Option<PathBuf>) -> Result<Company, IndexError> {
        let mut products: Vec<ProductSource> = Vec::new();
        for path in paths {
            let canonical = path.canonicalize().map_err(|e| IndexError::Config {
                file: path.clone(),
                message: format!("cannot read this path: {e}"),
            })?;
            let name = canonical
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("root")
                .to_string();
            if products.iter().any(|p| p.name == name) {
                return Err(IndexError::Config {
                    file: path.clone(),
                    message: format!(
                        "two paths are both named '{name}'; use a semgraph.toml to name products"
                    ),
                });
            }
            products.push(ProductSource {
                name,
                area: "default".into(),
                repos: vec![canonical],
                wiki: Vec::new(),
                jira: Vec::new(),
            });
        }
        Ok(Company {
            store: store.unwrap_or_else(|| PathBuf::from(DEFAULT_STORE)),
            products,
            config_file: None,
            server: None,
            dependencies: Dependencies::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_file_and_unknown_keys_are_named() {
        let c = Company::parse(
            Path::new("/co/semgraph.toml"),
            "[store]\npath = \"db\"\n[[product]]\nname = \"orders\"\narea = \"commerce\"\nrepos = [\"orders\", \"/abs\"]\n",
        )
        .expect("parses");
        assert_eq!(c.store, PathBuf::from("/co/db"));
        assert_eq!(
            c.products[0].repos,
            vec![PathBuf::from("/co/orders"), PathBuf::from("/abs")]
        );

        let err = Company::parse(
            Path::new("/co/semgraph.toml"),
            "[[product]]\nname = \"x\"\narea = \"a\"\nrepo = [\"x\"]\n",
        )
        .expect_err("typo");
        assert!(err.to_string().contains("unknown field `repo`"), "{err}");
    }

    #[test]
    fn dependencies_name_a_classpath_relative_to_the_file_and_may_leave_repositories_alone() {
        let c = Company::parse(
            Path::new("/co/semgraph.toml"),
            "[dependencies]\nclasspath = [\"libs\", \"/opt/x.jar\"]\nlocal_repositories = false\n[[product]]\nname = \"o\"\narea = \"a\"\nrepos = [\"o\"]\n",
        )
        .expect("parses");
        assert_eq!(
            c.dependencies.classpath,
            vec![PathBuf::from("/co/libs"), PathBuf::from("/opt/x.jar")]
        );
        assert!(!c.dependencies.local_repositories);
        let plain = Company::parse(
            Path::new("/co/semgraph.toml"),
            "[[product]]\nname = \"o\"\narea = \"a\"\nrepos = [\"o\"]\n",
        )
        .expect("parses");
        assert_eq!(plain.dependencies, Dependencies::default());
        assert!(plain.dependencies.local_repositories);
        let err =
            Company::parse(Path::new("/co/semgraph.toml"), "[dependencies]\njars = []\n").expect_err("typo");
        assert!(err.to_string().contains("unknown field `jars`"), "{err}");
    }

    #[test]
    fn the_fixture_company_config_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme/semgraph.toml");
        let c = Company::load(&path).expect("fixture config");
        let names: Vec<_> = c
            .products
            .iter()
            .map(|p| (p.name.as_str(), p.area.as_str()))
            .collect();
        assert_eq!(
            names,
            vec![
                ("orders", "commerce"),
                ("inventory", "commerce"),
                ("catalog", "commerce"),
                ("payments", "finance"),
                ("notifications", "platform"),
                ("logistics", "commerce")
            ]
        );
        assert!(c.products.iter().all(|p| p.repos.iter().all(|r| r.is_dir())));
    }
}
