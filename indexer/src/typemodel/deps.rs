//! The types of a build's dependencies, when their jars are on disk.
//!
//! Given the Maven coordinates a module declares, [`load_dependencies`] finds each jar in
//! the local Maven repository (`$MAVEN_REPO`, else `~/.m2/repository`) or Gradle's cache
//! (`~/.gradle/caches/modules-2/files-2.1/<group>/<artifact>/<version>/<hash>/`), follows
//! the dependencies of the POM found beside it (compile and runtime scope, not optional,
//! to a bounded depth, the nearest declaration of an artifact winning as in Maven), reads
//! the class files' signatures and returns one [`TypeModel`] plus a report per coordinate:
//! typed (which jar, how many types) or not (not on disk, unreadable). [`load_classpath`]
//! does the same for explicit jar and class-folder paths. Nothing here touches the
//! network, and a dependency that is not on disk only costs its types.
//!
//! Versions: a missing version, a `${property}` the POMs do not define, or a version
//! range takes the highest version present on disk; a version that is given but not on
//! disk takes the highest present too. Either way the report's note says so.

use std::cmp::Ordering;
use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::archive::{public_api, read_archive};
use super::error::TypeModelError;
use super::model::{TypeInfo, TypeModel};
use super::ty::Interner;

/// A dependency as a build declares it: `group:artifact[:version]`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Coordinate {
    pub(crate) group: String,
    pub(crate) artifact: String,
    /// `None` when absent, empty, or an unresolved `${property}`.
    pub(crate) version: Option<String>,
}

impl Coordinate {
    /// Parses `group:artifact[:version]` (extra `:type:classifier` parts are ignored);
    /// `None` when group or artifact is missing.
    pub(crate) fn parse(text: &str) -> Option<Coordinate> {
        let mut parts = text.trim().split(':');
        let group = parts.next()?.trim();
        let artifact = parts.next()?.trim();
        if group.is_empty() || artifact.is_empty() {
            return None;
        }
        let version = parts
            .next()
            .map(str::trim)
            .filter(|v| !v.is_empty() && !v.contains("${"))
            .map(str::to_string);
        Some(Coordinate {
            group: group.to_string(),
            artifact: artifact.to_string(),
            version,
        })
    }

    fn key(&self) -> (String, String) {
        (self.group.clone(), self.artifact.clone())
    }
}

impl fmt::Display for Coordinate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.version {
            Some(v) => write!(f, "{}:{}:{v}", self.group, self.artifact),
            None => write!(f, "{}:{}", self.group, self.artifact),
        }
    }
}

/// Where jars are looked for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Repositories {
    /// A Maven repository layout root (`~/.m2/repository`).
    pub(crate) maven: Option<PathBuf>,
    /// Gradle's `modules-2/files-2.1` folder.
    pub(crate) gradle: Option<PathBuf>,
}

impl Repositories {
    /// `$MAVEN_REPO` or `~/.m2/repository`, and `$GRADLE_USER_HOME` or `~/.gradle`'s
    /// `caches/modules-2/files-2.1`, each only if it exists.
    pub(crate) fn from_env() -> Repositories {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let maven = std::env::var_os("MAVEN_REPO")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".m2/repository")))
            .filter(|p| p.is_dir());
        let gradle = std::env::var_os("GRADLE_USER_HOME")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".gradle")))
            .map(|g| g.join("caches/modules-2/files-2.1"))
            .filter(|p| p.is_dir());
        Repositories { maven, gradle }
    }
}

/// How far transitive dependencies are followed.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ResolveOptions {
    /// Levels of POM dependencies followed below the declared ones (0: declared only).
    pub(crate) max_depth: usize,
    /// At most this many artifacts are read in all.
    pub(crate) max_artifacts: usize,
}

impl Default for ResolveOptions {
    fn default() -> Self {
        ResolveOptions {
            max_depth: 8,
            max_artifacts: 2_000,
        }
    }
}

/// What became of one dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// Its types are in the model.
    Typed {
        jar: PathBuf,
        /// Accessible types read from it.
        types: usize,
        /// Class files of the jar that could not be read (their types are missing).
        unreadable_classes: usize,
    },
    /// Its jar was not found where the repositories keep it.
    NotOnDisk { searched: Vec<PathBuf> },
    /// Its jar is there but could not be opened.
    Unreadable { jar: PathBuf, error: String },
}

/// One line of the dependency report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DependencyReport {
    /// The coordinate as declared (or, for a transitive one, as its POM gives it).
    pub(crate) coordinate: String,
    /// The version whose jar was read.
    pub(crate) version: Option<String>,
    /// For a transitive dependency: the coordinate whose POM declared it.
    pub(crate) via: Option<String>,
    pub(crate) outcome: Outcome,
    /// What was decided on the way ("no version given: took 2.1, the highest on disk").
    pub(crate) notes: Vec<String>,
}

impl DependencyReport {
    pub(crate) fn is_typed(&self) -> bool {
        matches!(self.outcome, Outcome::Typed { .. })
    }
}

/// The types of a set of jars and what became of each.
#[derive(Debug, Default)]
pub(crate) struct Classpath {
    pub(crate) model: TypeModel,
    pub(crate) reports: Vec<DependencyReport>,
}

/// One artifact found on disk, ready to be read.
struct Located {
    report: DependencyReport,
    jar: Option<PathBuf>,
}

/// Finds, follows and reads `declared` (see the module documentation).
pub(crate) fn load_dependencies(
    declared: &[Coordinate],
    repos: &Repositories,
    opts: &ResolveOptions,
) -> Classpath {
    let located = resolve(declared, repos, opts);
    read_located(located)
}

/// Reads explicit jars and class folders (a `classpath = [...]` list, `--classpath`), in
/// order: a class in an earlier entry hides the same class in a later one.
pub(crate) fn load_classpath(paths: &[PathBuf]) -> Classpath {
    load_all(paths, &[], &Repositories::default(), &ResolveOptions::default())
}

/// [`load_classpath`] then [`load_dependencies`], as one model: explicit paths first.
pub(crate) fn load_all(
    paths: &[PathBuf],
    declared: &[Coordinate],
    repos: &Repositories,
    opts: &ResolveOptions,
) -> Classpath {
    let mut located: Vec<Located> = paths
        .iter()
        .map(|p| Located {
            report: DependencyReport {
                coordinate: p.display().to_string(),
                version: None,
                via: None,
                outcome: Outcome::NotOnDisk {
                    searched: vec![p.clone()],
                },
                notes: Vec::new(),
            },
            jar: p.exists().then(|| p.clone()),
        })
        .collect();
    located.extend(resolve(declared, repos, opts));
    read_located(located)
}

fn read_located(located: Vec<Located>) -> Classpath {
    let read: Vec<(DependencyReport, Vec<TypeInfo>)> = located
        .into_par_iter()
        .map(|mut l| {
            let Some(jar) = l.jar else {
                return (l.report, Vec::new());
            };
            let mut names = Interner::default();
            match read_archive(&jar, &mut names) {
                Ok(content) => {
                    let types = public_api(content.types, None);
                    let accessible = types.iter().filter(|t| t.is_accessible()).count();
                    l.report.outcome = Outcome::Typed {
                        jar,
                        types: accessible,
                        unreadable_classes: content.unreadable.len(),
                    };
                    (l.report, types)
                }
                Err(e) => {
                    l.report.outcome = Outcome::Unreadable {
                        jar,
                        error: e.to_string(),
                    };
                    (l.report, Vec::new())
                }
            }
        })
        .collect();
    let mut reports = Vec::with_capacity(read.len());
    let mut types = Vec::new();
    for (r, t) in read {
        reports.push(r);
        types.extend(t);
    }
    Classpath {
        model: TypeModel::new(types),
        reports,
    }
}

// ---------------------------------------------------------------------------------------
// Finding artifacts

struct Artifact {
    version: String,
    jar: PathBuf,
    pom: Option<PathBuf>,
}

/// Every version of `group:artifact` present on disk, with its jar and POM.
fn versions_on_disk(group: &str, artifact: &str, repos: &Repositories) -> (Vec<Artifact>, Vec<PathBuf>) {
    let mut found: Vec<Artifact> = Vec::new();
    let mut searched = Vec::new();
    if let Some(m2) = &repos.maven {
        let dir = m2.join(group.replace('.', "/")).join(artifact);
        searched.push(dir.clone());
        for version in subdirs(&dir) {
            let base = dir.join(&version);
            let jar = base.join(format!("{artifact}-{version}.jar"));
            if jar.is_file() {
                let pom = base.join(format!("{artifact}-{version}.pom"));
                found.push(Artifact {
                    pom: pom.is_file().then_some(pom),
                    version,
                    jar,
                });
            }
        }
    }
    if let Some(gradle) = &repos.gradle {
        let dir = gradle.join(group).join(artifact);
        searched.push(dir.clone());
        for version in subdirs(&dir) {
            if found.iter().any(|a| a.version == version) {
                continue;
            }
            let base = dir.join(&version);
            let jar_name = format!("{artifact}-{version}.jar");
            let pom_name = format!("{artifact}-{version}.pom");
            let mut jar = None;
            let mut pom = None;
            for hash in subdirs(&base) {
                let j = base.join(&hash).join(&jar_name);
                if j.is_file() {
                    jar = Some(j);
                }
                let p = base.join(&hash).join(&pom_name);
                if p.is_file() {
                    pom = Some(p);
                }
            }
            if let Some(jar) = jar {
                found.push(Artifact { version, jar, pom });
            }
        }
    }
    found.sort_by(|a, b| compare_versions(&a.version, &b.version));
    (found, searched)
}

/// The POM of `group:artifact:version`, wherever the repositories keep it.
fn find_pom(group: &str, artifact: &str, version: &str, repos: &Repositories) -> Option<PathBuf> {
    if let Some(m2) = &repos.maven {
        let p = m2
            .join(group.replace('.', "/"))
            .join(artifact)
            .join(version)
            .join(format!("{artifact}-{version}.pom"));
        if p.is_file() {
            return Some(p);
        }
    }
    if let Some(gradle) = &repos.gradle {
        let base = gradle.join(group).join(artifact).join(version);
        for hash in subdirs(&base) {
            let p = base.join(hash).join(format!("{artifact}-{version}.pom"));
            if p.is_file() {
                return Some(p);
            }
        }
    }
    None
}

fn subdirs(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    out.sort();
    out
}

fn resolve(declared: &[Coordinate], repos: &Repositories, opts: &ResolveOptions) -> Vec<Located> {
    let mut out = Vec::new();
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut queue: VecDeque<(Coordinate, usize, Option<String>)> =
        declared.iter().map(|c| (c.clone(), 0, None)).collect();
    let mut poms = PomCache::default();
    while let Some((coord, depth, via)) = queue.pop_front() {
        if !seen.insert(coord.key()) {
            continue;
        }
        if out.len() >= opts.max_artifacts {
            break;
        }
        let mut notes = Vec::new();
        let (versions, searched) = versions_on_disk(&coord.group, &coord.artifact, repos);
        let chosen = match &coord.version {
            Some(v) if is_range(v) => {
                notes.push(format!("version range {v}: took the highest version on disk"));
                versions.last()
            }
            Some(v) => match versions.iter().find(|a| &a.version == v) {
                Some(a) => Some(a),
                None => {
                    let last = versions.last();
                    if let Some(a) = last {
                        notes.push(format!(
                            "{v} is not on disk: took {}, the highest version there",
                            a.version
                        ));
                    }
                    last
                }
            },
            None => {
                let last = versions.last();
                if let Some(a) = last {
                    notes.push(format!(
                        "no version given: took {}, the highest version on disk",
                        a.version
                    ));
                }
                last
            }
        };
        let Some(artifact) = chosen else {
            out.push(Located {
                report: DependencyReport {
                    coordinate: coord.to_string(),
                    version: coord.version.clone(),
                    via,
                    outcome: Outcome::NotOnDisk { searched },
                    notes,
                },
                jar: None,
            });
            continue;
        };
        if depth < opts.max_depth {
            if let Some(pom_path) = &artifact.pom {
                match poms.effective(pom_path, repos) {
                    Ok(pom) => {
                        for d in pom.runtime_dependencies() {
                            if !seen.contains(&d.key()) {
                                queue.push_back((
                                    d,
                                    depth + 1,
                                    Some(format!("{}:{}:{}", coord.group, coord.artifact, artifact.version)),
                                ));
                            }
                        }
                    }
                    Err(e) => notes.push(format!("POM not followed: {e}")),
                }
            }
        }
        out.push(Located {
            report: DependencyReport {
                coordinate: coord.to_string(),
                version: Some(artifact.version.clone()),
                via,
                outcome: Outcome::NotOnDisk { searched: Vec::new() },
                notes,
            },
            jar: Some(artifact.jar.clone()),
        });
    }
    out
}

fn is_range(v: &str) -> bool {
    v.starts_with('[') || v.starts_with('(')
}

// ---------------------------------------------------------------------------------------
// POMs

#[derive(Debug, Clone, Default)]
struct PomDep {
    group: String,
    artifact: String,
    version: Option<String>,
    scope: Option<String>,
    kind: Option<String>,
    optional: bool,
}

/// What a POM says, before inheritance.
#[derive(Debug, Clone, Default)]
struct RawPom {
    group: Option<String>,
    artifact: String,
    version: Option<String>,
    parent: Option<(String, String, String)>,
    properties: HashMap<String, String>,
    dependencies: Vec<PomDep>,
    managed: Vec<PomDep>,
}

/// A POM with its parents' properties, dependencies and managed versions merged in.
#[derive(Debug, Clone, Default)]
struct EffectivePom {
    properties: HashMap<String, String>,
    dependencies: Vec<PomDep>,
    managed: HashMap<(String, String), PomDep>,
}

impl EffectivePom {
    fn interpolate(&self, text: &str) -> String {
        let mut out = text.to_string();
        for _ in 0..8 {
            let Some(start) = out.find("${") else { break };
            let Some(len) = out[start..].find('}') else { break };
            let key = &out[start + 2..start + len];
            let Some(value) = self.properties.get(key) else {
                break;
            };
            out = format!("{}{}{}", &out[..start], value, &out[start + len + 1..]);
        }
        out
    }

    /// The dependencies a consumer gets at compile and run time.
    fn runtime_dependencies(&self) -> Vec<Coordinate> {
        let mut out = Vec::new();
        for d in &self.dependencies {
            let group = self.interpolate(&d.group);
            let artifact = self.interpolate(&d.artifact);
            let managed = self.managed.get(&(group.clone(), artifact.clone()));
            let scope = d.scope.clone().or_else(|| managed.and_then(|m| m.scope.clone()));
            if matches!(scope.as_deref(), Some("test" | "provided" | "system" | "import"))
                || d.optional
                || matches!(d.kind.as_deref(), Some(k) if k != "jar")
            {
                continue;
            }
            let version = d
                .version
                .clone()
                .or_else(|| managed.and_then(|m| m.version.clone()))
                .map(|v| self.interpolate(&v))
                .filter(|v| !v.contains("${"));
            out.push(Coordinate {
                group,
                artifact,
                version,
            });
        }
        out
    }
}

#[derive(Default)]
struct PomCache {
    raw: HashMap<PathBuf, Option<RawPom>>,
}

impl PomCache {
    fn raw(&mut self, path: &Path) -> Result<RawPom, TypeModelError> {
        if let Some(p) = self.raw.get(path) {
            return p.clone().ok_or_else(|| TypeModelError::Pom {
                path: path.to_path_buf(),
                message: "unreadable (see the first report)".into(),
            });
        }
        let parsed = read_pom(path);
        self.raw.insert(path.to_path_buf(), parsed.as_ref().ok().cloned());
        parsed
    }

    /// The POM at `path` with its parent chain (at most 10 levels) and imported BOMs
    /// (one level) merged.
    fn effective(&mut self, path: &Path, repos: &Repositories) -> Result<EffectivePom, TypeModelError> {
        let mut chain = vec![self.raw(path)?];
        for _ in 0..10 {
            let Some((g, a, v)) = chain.last().and_then(|p| p.parent.clone()) else {
                break;
            };
            let Some(parent) = find_pom(&g, &a, &v, repos) else {
                break;
            };
            match self.raw(&parent) {
                Ok(p) => chain.push(p),
                Err(_) => break,
            }
        }
        let mut eff = EffectivePom::default();
        // Oldest ancestor first, so children override.
        for p in chain.iter().rev() {
            for (k, v) in &p.properties {
                eff.properties.insert(k.clone(), v.clone());
            }
            if let Some((g, _, v)) = &p.parent {
                eff.properties.insert("project.parent.groupId".into(), g.clone());
                eff.properties.insert("project.parent.version".into(), v.clone());
                eff.properties.insert("parent.version".into(), v.clone());
            }
            let group = p.group.clone().or_else(|| p.parent.as_ref().map(|x| x.0.clone()));
            let version = p
                .version
                .clone()
                .or_else(|| p.parent.as_ref().map(|x| x.2.clone()));
            if let Some(g) = group {
                eff.properties.insert("project.groupId".into(), g.clone());
                eff.properties.insert("pom.groupId".into(), g);
            }
            if let Some(v) = version {
                eff.properties.insert("project.version".into(), v.clone());
                eff.properties.insert("pom.version".into(), v.clone());
                eff.properties.insert("version".into(), v);
            }
            eff.properties
                .insert("project.artifactId".into(), p.artifact.clone());
            eff.dependencies.extend(p.dependencies.iter().cloned());
        }
        // Managed versions: the nearest POM's first, then imported BOMs.
        let mut imports = Vec::new();
        for p in &chain {
            for m in &p.managed {
                let key = (eff.interpolate(&m.group), eff.interpolate(&m.artifact));
                if m.scope.as_deref() == Some("import") {
                    if let Some(v) = &m.version {
                        imports.push((key.0, key.1, eff.interpolate(v)));
                    }
                    continue;
                }
                eff.managed.entry(key).or_insert_with(|| m.clone());
            }
        }
        for (g, a, v) in imports.into_iter().take(32) {
            let Some(bom_path) = find_pom(&g, &a, &v, repos) else {
                continue;
            };
            let Ok(bom) = self.raw(&bom_path) else { continue };
            let mut bom_eff = EffectivePom::default();
            bom_eff.properties.clone_from(&bom.properties);
            if let Some(v) = bom
                .version
                .clone()
                .or_else(|| bom.parent.as_ref().map(|x| x.2.clone()))
            {
                bom_eff.properties.insert("project.version".into(), v);
            }
            for m in &bom.managed {
                let key = (bom_eff.interpolate(&m.group), bom_eff.interpolate(&m.artifact));
                let mut m = m.clone();
                m.version = m.version.map(|v| bom_eff.interpolate(&v));
                eff.managed.entry(key).or_insert(m);
            }
        }
        Ok(eff)
    }
}

fn read_pom(path: &Path) -> Result<RawPom, TypeModelError> {
    let pom_err = |message: String| TypeModelError::Pom {
        path: path.to_path_buf(),
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| pom_err(e.to_string()))?;
    if meta.len() > 8 << 20 {
        return Err(pom_err("larger than 8 MB".into()));
    }
    let text = std::fs::read_to_string(path).map_err(|e| pom_err(e.to_string()))?;
    let doc = roxmltree::Document::parse(&text).map_err(|e| pom_err(e.to_string()))?;
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err(pom_err("no <project> element".into()));
    }
    let deps_of = |n: Option<roxmltree::Node<'_, '_>>| -> Vec<PomDep> {
        let Some(n) = n else { return Vec::new() };
        n.children()
            .filter(|c| c.is_element() && c.tag_name().name() == "dependency")
            .filter_map(|d| {
                Some(PomDep {
                    group: child(d, "groupId")?,
                    artifact: child(d, "artifactId")?,
                    version: child(d, "version"),
                    scope: child(d, "scope"),
                    kind: child(d, "type"),
                    optional: child(d, "optional").as_deref() == Some("true"),
                })
            })
            .collect()
    };
    let parent = element(project, "parent").and_then(|p| {
        Some((
            child(p, "groupId")?,
            child(p, "artifactId")?,
            child(p, "version")?,
        ))
    });
    let properties = element(project, "properties")
        .map(|p| {
            p.children()
                .filter(|c| c.is_element())
                .map(|c| {
                    (
                        c.tag_name().name().to_string(),
                        c.text().unwrap_or("").trim().to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(RawPom {
        group: child(project, "groupId"),
        artifact: child(project, "artifactId").unwrap_or_default(),
        version: child(project, "version"),
        parent,
        properties,
        dependencies: deps_of(element(project, "dependencies")),
        managed: deps_of(element(project, "dependencyManagement").and_then(|m| element(m, "dependencies"))),
    })
}

/// The text of `n`'s child element `name`, trimmed.
fn child(n: roxmltree::Node<'_, '_>, name: &str) -> Option<String> {
    element(n, name)
        .and_then(|c| c.text())
        .map(|t| t.trim().to_string())
}

/// `n`'s first child element `name`.
fn element<'a, 'b>(n: roxmltree::Node<'a, 'b>, name: &str) -> Option<roxmltree::Node<'a, 'b>> {
    n.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

// ---------------------------------------------------------------------------------------
// Versions

/// One item of a version: a number or a qualifier.
#[derive(Debug, PartialEq, Eq)]
enum Item {
    Num(u64),
    Qual(String),
}

/// Maven's version order, simplified from `ComparableVersion`: items split at `.`, `-`
/// and digit/letter changes; numbers compare as numbers; qualifiers `alpha` < `beta` <
/// `milestone` < `rc` < `snapshot` < release (`ga`, `final`, none) < `sp` < any other,
/// which compare as text; a missing item is a release (`1.0` = `1.0.0`, `1.0-rc1` < `1.0`).
pub(crate) fn compare_versions(a: &str, b: &str) -> Ordering {
    let ia = version_items(a);
    let ib = version_items(b);
    for i in 0..ia.len().max(ib.len()) {
        // A missing item is a 0 beside a number and a release beside a qualifier.
        let padding = |other: &Item| match other {
            Item::Num(_) => Item::Num(0),
            Item::Qual(_) => Item::Qual(String::new()),
        };
        let o = match (ia.get(i), ib.get(i)) {
            (Some(x), Some(y)) => compare_items(x, y),
            (Some(x), None) => compare_items(x, &padding(x)),
            (None, Some(y)) => compare_items(&padding(y), y),
            (None, None) => Ordering::Equal,
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

fn version_items(v: &str) -> Vec<Item> {
    let mut items = Vec::new();
    let mut cur = String::new();
    let mut digits = false;
    let flush = |cur: &mut String, digits: bool, items: &mut Vec<Item>| {
        if cur.is_empty() {
            return;
        }
        items.push(if digits {
            Item::Num(cur.parse().unwrap_or(u64::MAX))
        } else {
            Item::Qual(cur.to_ascii_lowercase())
        });
        cur.clear();
    };
    for c in v.chars() {
        if c == '.' || c == '-' || c == '_' {
            flush(&mut cur, digits, &mut items);
            continue;
        }
        let d = c.is_ascii_digit();
        if !cur.is_empty() && d != digits {
            flush(&mut cur, digits, &mut items);
        }
        digits = d;
        cur.push(c);
    }
    flush(&mut cur, digits, &mut items);
    // Trailing zeros and release words carry nothing (`1.0.0` = `1`).
    while matches!(items.last(), Some(Item::Num(0)))
        || matches!(items.last(), Some(Item::Qual(q)) if qualifier_rank(q) == 5)
    {
        items.pop();
    }
    items
}

fn qualifier_rank(q: &str) -> u8 {
    match q {
        "alpha" | "a" => 0,
        "beta" | "b" => 1,
        "milestone" | "m" => 2,
        "rc" | "cr" => 3,
        "snapshot" => 4,
        "" | "ga" | "final" | "release" => 5,
        "sp" => 6,
        _ => 7,
    }
}

fn compare_items(a: &Item, b: &Item) -> Ordering {
    match (a, b) {
        (Item::Num(x), Item::Num(y)) => x.cmp(y),
        // A number is newer than any qualifier but a post-release one.
        (Item::Num(_), Item::Qual(q)) => {
            if qualifier_rank(q) == 7 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
        (Item::Qual(_), Item::Num(_)) => compare_items(b, a).reverse(),
        (Item::Qual(x), Item::Qual(y)) => qualifier_rank(x).cmp(&qualifier_rank(y)).then_with(|| {
            if qualifier_rank(x) == 7 {
                x.cmp(y)
            } else {
                Ordering::Equal
            }
        }),
    }
}
