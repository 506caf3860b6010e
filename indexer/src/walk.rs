//! Finding a repository's source files, the way its developers see them.
//!
//! `.gitignore` rules are honoured (the `ignore` crate), build output and vendored folders
//! are skipped, symlinks are not followed (no loops, nothing outside the root), and a file
//! that cannot be indexed — too large, binary, unreadable — becomes a warning with its
//! reason instead of stopping the run.

use std::path::{Path, PathBuf};

use semgraph_storage::Warning;

/// Folders that hold build output or vendored code, never sources of the product.
const SKIPPED_DIRS: &[&str] = &[
    "target",
    "build",
    "out",
    "node_modules",
    "vendor",
    "dist",
    ".gradle",
    ".mvn",
    ".idea",
    ".git",
    ".semgraph",
];

/// Files larger than this are skipped with a warning (generated code, data dumps).
pub(crate) const MAX_SOURCE_BYTES: u64 = 8 << 20;

/// What a file is to the indexer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum SourceKind {
    /// A `.java` source.
    Java,
    /// A `.kt` source (`.kts` scripts are build files, or nothing).
    Kotlin,
    /// A `.sql` script.
    Sql,
    /// Spring configuration: `application*`/`bootstrap*` YAML, `.properties`, `.env`.
    Config,
    /// Deployment descriptors: docker-compose files, and Kubernetes manifests in a folder
    /// named for them (`k8s/`, `kubernetes/`, `manifests/`, `deploy/`…).
    Deployment,
    /// Any other YAML (OpenAPI specs).
    Yaml,
    /// A Maven `pom.xml` or a Gradle build script.
    BuildFile,
    /// Any other `.xml` (MyBatis mappers, `web.xml`).
    Xml,
    /// A markdown page.
    Markdown,
    /// A GraphQL schema (`.graphql`, `.graphqls`): the types DGS's generated constants name.
    GraphQl,
}

impl SourceKind {
    /// Whether a code front-end reads it (`lang::parse_code`).
    pub(crate) fn is_code(self) -> bool {
        matches!(self, SourceKind::Java | SourceKind::Kotlin)
    }
}

/// One file found in a repository.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SourceFile {
    /// Absolute path.
    pub(crate) path: PathBuf,
    /// Path relative to the repository root, with `/` separators.
    pub(crate) rel: String,
    /// What it is.
    pub(crate) kind: SourceKind,
    /// Size in bytes.
    pub(crate) size: u64,
}

fn classify(path: &Path) -> Option<SourceKind> {
    let name = path.file_name()?.to_str()?;
    let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    match ext {
        "java" => Some(SourceKind::Java),
        "kt" => Some(SourceKind::Kotlin),
        "sql" => Some(SourceKind::Sql),
        "properties" => Some(SourceKind::Config),
        "yml" | "yaml" if name.starts_with("application") || name.starts_with("bootstrap") => {
            Some(SourceKind::Config)
        }
        "yml" | "yaml" if is_compose_file(name) => Some(SourceKind::Deployment),
        "yml" | "yaml" => Some(SourceKind::Yaml),
        // JSON is YAML: OpenAPI and Swagger documents are read with the YAML parser, and so
        // are Liquibase changelogs (named so, or in a changelog folder).
        "json"
            if ["openapi", "swagger", "api-docs", "changelog"]
                .iter()
                .any(|k| name.to_lowercase().contains(k))
                || in_changelog_folder(path) =>
        {
            Some(SourceKind::Yaml)
        }
        "env" => Some(SourceKind::Config),
        "md" | "markdown" => Some(SourceKind::Markdown),
        "graphql" | "graphqls" => Some(SourceKind::GraphQl),
        "xml" if name == "pom.xml" => Some(SourceKind::BuildFile),
        "xml" => Some(SourceKind::Xml),
        "gradle" | "kts" if name.starts_with("build.gradle") || name.starts_with("settings.gradle") => {
            Some(SourceKind::BuildFile)
        }
        _ if name == ".env" => Some(SourceKind::Config),
        _ => None,
    }
}

/// Folders that hold Kubernetes manifests by convention.
const MANIFEST_FOLDERS: &[&str] = &[
    "k8s",
    "kubernetes",
    "kube",
    "manifests",
    "deploy",
    "deployment",
    "deployments",
    "openshift",
];

/// Whether a YAML file (repository-relative) sits in a folder of Kubernetes manifests (a Helm chart's
/// `templates/` are Go templates, not YAML, and stay out).
fn in_manifest_folder(rel: &str) -> bool {
    let folders: Vec<String> = rel
        .rsplit_once('/')
        .map_or("", |(d, _)| d)
        .split('/')
        .map(str::to_lowercase)
        .collect();
    folders.iter().any(|f| MANIFEST_FOLDERS.contains(&f.as_str()))
        && !folders.iter().any(|f| f == "templates")
}

/// Whether one of the few folders above `path` is a Liquibase changelog folder
/// (`db/changelog/changes/…`, `config/liquibase/…`).
fn in_changelog_folder(path: &Path) -> bool {
    path.ancestors().skip(1).take(4).any(|dir| {
        dir.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            let n = n.to_ascii_lowercase();
            n.contains("changelog") || n.contains("liquibase")
        })
    })
}

/// Whether a name that is not UTF-8 still ends like a source file (`caf\xe9.java`).
fn source_like(path: &Path) -> bool {
    path.file_name().is_some_and(|n| {
        let lossy = n.to_string_lossy();
        classify(Path::new(lossy.as_ref())).is_some()
    })
}

/// Why a walk entry that is not a regular file is passed over, when a person would expect
/// it indexed: a symbolic link named like a source or leading to a folder (links are never
/// followed: a loop cannot trap the walk and nothing outside the repository is read), or a
/// named pipe, socket or device named like a source (opening a pipe would block the run).
/// Folders, and links or special files with other names, pass silently.
fn not_followed(path: &Path, file_type: std::fs::FileType) -> Option<&'static str> {
    if file_type.is_dir() {
        return None;
    }
    let named_like_source = classify(path).is_some() || source_like(path);
    if file_type.is_symlink() {
        let to_folder = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        return (named_like_source || to_folder)
            .then_some("a symbolic link; links are not followed, so nothing outside the repository is read");
    }
    named_like_source.then(|| special_kind(file_type))
}

#[cfg(unix)]
fn special_kind(file_type: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "not a regular file (a named pipe)"
    } else if file_type.is_socket() {
        "not a regular file (a socket)"
    } else if file_type.is_block_device() || file_type.is_char_device() {
        "not a regular file (a device)"
    } else {
        "not a regular file"
    }
}

#[cfg(not(unix))]
fn special_kind(_file_type: std::fs::FileType) -> &'static str {
    "not a regular file"
}

fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// Every indexable file under `root`, sorted by relative path; what was skipped is said in
/// `warnings`, in path order.
///
/// Folders are listed on every core (listing and `stat` calls are most of a walk; one
/// thread took a quarter of a second of each re-index of spring-boot), and the result is
/// sorted, so the order never depends on which thread saw what.
pub(crate) fn walk_repo(root: &Path, warnings: &mut Vec<Warning>) -> Vec<SourceFile> {
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_exclude(true)
        .require_git(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(is_dir
                && entry
                    .file_name()
                    .to_str()
                    .is_some_and(|n| SKIPPED_DIRS.contains(&n)))
        })
        .build_parallel();
    let found: std::sync::Mutex<(Vec<SourceFile>, Vec<Warning>)> = std::sync::Mutex::default();
    walker.run(|| {
        let found = &found;
        Box::new(move |entry| {
            let mut files = Vec::new();
            let mut skipped = Vec::new();
            visit(root, entry, &mut files, &mut skipped);
            if !files.is_empty() || !skipped.is_empty() {
                // Held only to append: a visitor that panicked left both lists whole.
                let mut found = found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                found.0.append(&mut files);
                found.1.append(&mut skipped);
            }
            ignore::WalkState::Continue
        })
    });
    let (mut files, mut skipped) = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    skipped.sort_by(|a, b| (&a.file, &a.message).cmp(&(&b.file, &b.message)));
    warnings.append(&mut skipped);
    files
}

/// One entry of the walk: a file to index goes to `files`, what is skipped and why to
/// `warnings`; folders and unknown kinds of file add nothing.
fn visit(
    root: &Path,
    entry: Result<ignore::DirEntry, ignore::Error>,
    files: &mut Vec<SourceFile>,
    warnings: &mut Vec<Warning>,
) {
    let entry = match entry {
        Ok(e) => e,
        Err(e) => {
            // The error names the path it concerns (a loop, a permission).
            warnings.push(Warning {
                file: root.display().to_string(),
                line: None,
                message: format!("skipped: {e}"),
            });
            return;
        }
    };
    let Some(file_type) = entry.file_type() else {
        return;
    };
    if !file_type.is_file() {
        if let Some(reason) = not_followed(entry.path(), file_type) {
            warnings.push(Warning {
                file: relative(root, entry.path()),
                line: None,
                message: format!("skipped: {reason}"),
            });
        }
        return;
    }
    let path = entry.path();
    let Some(kind) = classify(path) else {
        if path.file_name().is_some_and(|n| n.to_str().is_none()) && source_like(path) {
            warnings.push(Warning {
                file: relative(root, path),
                line: None,
                message: "skipped: the file name is not UTF-8".into(),
            });
        }
        return;
    };
    let rel = relative(root, path);
    let kind = if kind == SourceKind::Yaml && in_manifest_folder(&rel) {
        SourceKind::Deployment
    } else {
        kind
    };
    let size = match entry.metadata() {
        Ok(m) => m.len(),
        Err(e) => {
            warnings.push(Warning {
                file: rel,
                line: None,
                message: format!("skipped: cannot read its metadata: {e}"),
            });
            return;
        }
    };
    if size > MAX_SOURCE_BYTES {
        warnings.push(Warning {
            file: rel,
            line: None,
            message: format!(
                "skipped: {:.1} MB is over the {} MB limit for a source file (generated?)",
                size as f64 / 1e6,
                MAX_SOURCE_BYTES >> 20
            ),
        });
        return;
    }
    files.push(SourceFile {
        path: path.to_path_buf(),
        rel,
        kind,
        size,
    });
}

/// Reads at most `limit` bytes of the regular file at `path`: anything else (a named pipe,
/// which would block, a folder, a device), a file over the limit (it may have grown since it
/// was listed) or a read error is the reason, for a warning.
pub(crate) fn read_bounded(path: &Path, limit: u64) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    // Checked before opening: opening a named pipe blocks until someone writes to it.
    let listed = std::fs::symlink_metadata(path).map_err(|e| format!("cannot read: {e}"))?;
    if !listed.is_file() {
        return Err(if listed.is_dir() {
            "a folder, not a file".into()
        } else if listed.file_type().is_symlink() {
            "a symbolic link; links are not followed".into()
        } else {
            special_kind(listed.file_type()).into()
        });
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read: {e}"))?;
    // Sized from the listing: reading through `take` gives `read_to_end` no size hint, and
    // an unsized buffer grows from 32 bytes by doubling, one `read` call per step — most of
    // the cost of reading a tree of small files. One more byte than the file holds lets the
    // call that sees its end (or a file grown since) read into what is already there.
    let expected = listed.len().min(limit) as usize + 1;
    let mut bytes = Vec::with_capacity(expected);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(format!("over the {} MB limit for one file", limit >> 20));
    }
    Ok(bytes)
}

/// Reads a source file as text: a BOM is dropped, a binary file or an unreadable one is a
/// warning, invalid UTF-8 is decoded lossily with a warning (the rest of the file counts).
pub(crate) fn read_source(file: &SourceFile, warnings: &mut Vec<Warning>) -> Option<String> {
    let bytes = match read_bounded(&file.path, MAX_SOURCE_BYTES) {
        Ok(b) => b,
        Err(reason) => {
            warnings.push(Warning {
                file: file.rel.clone(),
                line: None,
                message: format!("skipped: {reason}"),
            });
            return None;
        }
    };
    let head = &bytes[..bytes.len().min(8192)];
    if head.contains(&0) {
        warnings.push(Warning {
            file: file.rel.clone(),
            line: None,
            message: "skipped: binary content in a source file".into(),
        });
        return None;
    }
    let mut body = bytes;
    if body.starts_with(b"\xEF\xBB\xBF") {
        body.drain(..3);
    }
    // Validated in place: the text is the bytes read, not a copy of them.
    match String::from_utf8(body) {
        Ok(text) => Some(text),
        Err(e) => {
            let body = e.as_bytes();
            warnings.push(Warning {
                file: file.rel.clone(),
                line: None,
                message: "not valid UTF-8; decoded with replacement characters".into(),
            });
            Some(String::from_utf8_lossy(body).into_owned())
        }
    }
}

/// Whether a file name is a docker-compose file's.
pub(crate) fn is_compose_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    let stem = lower
        .strip_suffix(".yml")
        .or_else(|| lower.strip_suffix(".yaml"))
        .unwrap_or("");
    stem == "compose"
        || stem.starts_with("compose.")
        || stem.starts_with("compose-")
        || stem.starts_with("docker-compose")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gitignore_build_output_binaries_and_bad_encodings_are_handled() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let write = |rel: &str, bytes: &[u8]| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, bytes).expect("write");
        };
        write(".gitignore", b"generated/\n");
        write("src/main/java/A.java", b"\xEF\xBB\xBFclass A {}");
        write("src/main/java/Latin.java", b"class L { /* caf\xE9 */ }");
        write("src/main/java/Bin.java", b"\x00\x01\x02");
        write("target/classes/B.java", b"class B {}");
        write("generated/C.java", b"class C {}");
        write("src/main/resources/application.yml", b"a: 1");
        write("README.txt", b"not indexed");
        let mut warnings = Vec::new();
        let files = walk_repo(root, &mut warnings);
        let rels: Vec<_> = files.iter().map(|f| f.rel.as_str()).collect();
        assert_eq!(
            rels,
            vec![
                "src/main/java/A.java",
                "src/main/java/Bin.java",
                "src/main/java/Latin.java",
                "src/main/resources/application.yml"
            ]
        );
        let texts: Vec<_> = files.iter().map(|f| read_source(f, &mut warnings)).collect();
        assert_eq!(texts[0].as_deref(), Some("class A {}"), "BOM dropped");
        assert_eq!(texts[1], None, "binary skipped");
        assert!(texts[2].as_deref().is_some_and(|t| t.contains("caf\u{FFFD}")));
        let messages: Vec<_> = warnings
            .iter()
            .map(|w| format!("{}: {}", w.file, w.message))
            .collect();
        assert_eq!(
            messages,
            vec![
                "src/main/java/Bin.java: skipped: binary content in a source file",
                "src/main/java/Latin.java: not valid UTF-8; decoded with replacement characters"
            ]
        );
    }
}
