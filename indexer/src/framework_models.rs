//! The bundled models of the framework APIs nearly every Spring codebase calls — Spring's
//! HTTP types, `RestTemplate` and `RestClient`, MockMvc and its matchers, `JdbcTemplate`,
//! Spring Data's repositories and pages — built from the frameworks' own sources.
//!
//! Why: a server indexes fresh clones, where no build has filled a local Maven repository,
//! so every chain through one of these types stopped at its first call
//! (`ResponseEntity.ok().body(x)`, `mockMvc.perform(get("/")).andExpect(status().isOk())`,
//! `repository.findById(id).orElseThrow()`): on five public Spring applications, a third
//! of the calls left unresolved. The only jars a package registry offers here are Spring
//! 4.3's, a major version behind, whose signatures would type today's calls wrongly; the
//! sources of any release are public. So the model is read from a release's sources by
//! semgraph's own Java front-end and symbol table — the same reading that types a
//! product's own classes — and then kept as a library model is: public and protected
//! types and members of the listed packages, under their binary names.
//!
//! This module is the generator (`typemodel-frameworks`, see [`generate`]); its output is
//! committed as `typemodel/frameworks.tm` and embedded beside the jar-built library models
//! (`typemodel::libraries`), so an index run reads no source of any framework.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::facts::CodeFile;
use crate::resolve::{ProductModel, SymbolTable};
use crate::typemodel::model::{Flags, Layered, TypeInfo, TypeModel, TypeSource};
use crate::typemodel::ty::{ClassTy, Name, Ty, TyArg};
use crate::walk::SourceKind;
use crate::IndexError;

/// One artifact of a framework: where its sources sit in the framework's repository and
/// which of its packages the bundled model keeps (a package and its subpackages).
#[derive(Debug, Clone, Copy)]
pub struct FrameworkArtifact {
    /// The repository it is built from (a name the generator's command line maps to a
    /// checkout).
    pub repository: &'static str,
    /// Its Maven group.
    pub group: &'static str,
    /// Its Maven artifact.
    pub artifact: &'static str,
    /// Its Java sources, relative to the repository.
    pub sources: &'static str,
    /// The packages kept, each with its subpackages (or one type, by its name); empty
    /// keeps none of its own (the sources are read so that names in the kept signatures
    /// bind and kept types' supertypes are there), and the artifact is not listed as
    /// bundled.
    pub packages: &'static [&'static str],
}

/// The bundled framework artifacts. Their API is what Spring Boot 3 applications call;
/// a member added later stays unresolved, and one removed since is still answered.
pub const FRAMEWORK_ARTIFACTS: &[FrameworkArtifact] = &[
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-core",
        sources: "spring-core/src/main/java",
        packages: &[
            "org.springframework.util",
            "org.springframework.core.ParameterizedTypeReference",
            "org.springframework.core.env",
            "org.springframework.core.io",
            "org.springframework.core.style",
        ],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-beans",
        sources: "spring-beans/src/main/java",
        packages: &["org.springframework.beans.BeanUtils"],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-context",
        sources: "spring-context/src/main/java",
        packages: &[
            "org.springframework.cache.Cache",
            "org.springframework.cache.CacheManager",
            "org.springframework.context.ApplicationContext",
            "org.springframework.context.ApplicationEventPublisher",
            "org.springframework.context.ConfigurableApplicationContext",
        ],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-jdbc",
        sources: "spring-jdbc/src/main/java",
        packages: &["org.springframework.jdbc.core"],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-web",
        sources: "spring-web/src/main/java",
        packages: &[
            "org.springframework.http",
            "org.springframework.web.client",
            "org.springframework.web.util",
            "org.springframework.web.server.ResponseStatusException",
            "org.springframework.web.bind.MethodArgumentNotValidException",
            "org.springframework.web.multipart.MultipartFile",
        ],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-webmvc",
        sources: "spring-webmvc/src/main/java",
        packages: &[
            "org.springframework.web.servlet.ModelAndView",
            "org.springframework.web.servlet.support.ServletUriComponentsBuilder",
            "org.springframework.web.servlet.mvc.support.RedirectAttributes",
        ],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-test",
        sources: "spring-test/src/main/java",
        packages: &[
            "org.springframework.test.web.servlet",
            "org.springframework.test.web.reactive.server",
            "org.springframework.test.util",
            "org.springframework.mock.web",
        ],
    },
    FrameworkArtifact {
        repository: "spring-framework",
        group: "org.springframework",
        artifact: "spring-webflux",
        sources: "spring-webflux/src/main/java",
        packages: &["org.springframework.web.reactive.function.client"],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-crypto",
        sources: "crypto/src/main/java",
        packages: &[
            "org.springframework.security.crypto.password",
            "org.springframework.security.crypto.bcrypt",
        ],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-core",
        sources: "core/src/main/java",
        packages: &[
            "org.springframework.security.core.Authentication",
            "org.springframework.security.core.GrantedAuthority",
            "org.springframework.security.core.authority",
            "org.springframework.security.core.context",
            "org.springframework.security.core.userdetails",
            "org.springframework.security.authentication",
        ],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-web",
        sources: "web/src/main/java",
        packages: &["org.springframework.security.web.SecurityFilterChain"],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-config",
        sources: "config/src/main/java",
        packages: &[
            "org.springframework.security.config.Customizer",
            "org.springframework.security.config.annotation.web.builders",
            "org.springframework.security.config.annotation.web.configurers",
        ],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-oauth2-core",
        sources: "oauth2/oauth2-core/src/main/java",
        packages: &[],
    },
    FrameworkArtifact {
        repository: "spring-security",
        group: "org.springframework.security",
        artifact: "spring-security-oauth2-jose",
        sources: "oauth2/oauth2-jose/src/main/java",
        packages: &["org.springframework.security.oauth2.jwt"],
    },
    FrameworkArtifact {
        repository: "spring-boot",
        group: "org.springframework.boot",
        artifact: "spring-boot",
        sources: "spring-boot-project/spring-boot/src/main/java",
        packages: &[
            "org.springframework.boot.SpringApplication",
            "org.springframework.boot.builder",
            "org.springframework.boot.web.client",
        ],
    },
    FrameworkArtifact {
        repository: "spring-boot",
        group: "org.springframework.boot",
        artifact: "spring-boot-test",
        sources: "spring-boot-project/spring-boot-test/src/main/java",
        packages: &[
            "org.springframework.boot.test.web.client",
            "org.springframework.boot.test.context.runner",
            "org.springframework.boot.test.system",
        ],
    },
    FrameworkArtifact {
        repository: "spring-boot",
        group: "org.springframework.boot",
        artifact: "spring-boot-actuator",
        sources: "spring-boot-project/spring-boot-actuator/src/main/java",
        packages: &[
            "org.springframework.boot.actuate.health.Health",
            "org.springframework.boot.actuate.health.Status",
        ],
    },
    FrameworkArtifact {
        repository: "spring-data-commons",
        group: "org.springframework.data",
        artifact: "spring-data-commons",
        sources: "src/main/java",
        packages: &[
            "org.springframework.data.domain",
            "org.springframework.data.repository",
        ],
    },
    FrameworkArtifact {
        repository: "spring-data-jpa",
        group: "org.springframework.data",
        artifact: "spring-data-jpa",
        sources: "spring-data-jpa/src/main/java",
        packages: &[
            "org.springframework.data.jpa.repository",
            "org.springframework.data.jpa.domain",
        ],
    },
    FrameworkArtifact {
        repository: "spring-data-redis",
        group: "org.springframework.data",
        artifact: "spring-data-redis",
        sources: "src/main/java",
        packages: &["org.springframework.data.redis.core"],
    },
    FrameworkArtifact {
        repository: "spring-data-mongodb",
        group: "org.springframework.data",
        artifact: "spring-data-mongodb",
        sources: "spring-data-mongodb/src/main/java",
        packages: &[
            "org.springframework.data.mongodb.core.query",
            "org.springframework.data.mongodb.core.MongoTemplate",
            "org.springframework.data.mongodb.core.MongoOperations",
            "org.springframework.data.mongodb.repository.MongoRepository",
        ],
    },
];

/// A framework repository's checkout at a release: the generator's input.
#[derive(Debug, Clone)]
pub struct FrameworkCheckout {
    /// The repository's name in [`FRAMEWORK_ARTIFACTS`].
    pub repository: String,
    /// The release the checkout is at (`6.2.19`), recorded as each artifact's version.
    pub version: String,
    /// The checkout's root folder.
    pub path: PathBuf,
}

/// What [`generate`] made.
#[derive(Debug)]
pub struct GeneratedModel {
    /// The encoded model, to commit as `typemodel/frameworks.tm`.
    pub data: Vec<u8>,
    /// `group:artifact:version` of each artifact it holds.
    pub artifacts: Vec<String>,
    /// Source files parsed.
    pub files: usize,
    /// Source files that could not be read (not UTF-8, or gone), which the model lacks.
    pub unreadable: Vec<PathBuf>,
    /// Types kept.
    pub types: usize,
    /// Methods kept.
    pub methods: usize,
}

/// Reads every artifact of [`FRAMEWORK_ARTIFACTS`] from its repository's checkout and
/// encodes the kept API as one library model.
pub fn generate(checkouts: &[FrameworkCheckout]) -> Result<GeneratedModel, IndexError> {
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut artifacts = Vec::new();
    for a in FRAMEWORK_ARTIFACTS {
        let checkout = checkouts
            .iter()
            .find(|c| c.repository == a.repository)
            .ok_or_else(|| IndexError::Config {
                file: PathBuf::from(a.repository),
                message: "no checkout of this repository given".to_string(),
            })?;
        let root = checkout.path.join(a.sources);
        if !root.is_dir() {
            return Err(IndexError::Config {
                message: format!("no sources of {} there", a.artifact),
                file: root,
            });
        }
        if !a.packages.is_empty() {
            artifacts.push(format!("{}:{}:{}", a.group, a.artifact, checkout.version));
        }
        roots.push(root);
    }
    let mut paths: Vec<(PathBuf, String)> = Vec::new();
    for root in &roots {
        java_files(root, root, &mut paths)?;
    }
    let read: Vec<Result<CodeFile, PathBuf>> = paths
        .par_iter()
        .map(|(path, rel)| match std::fs::read_to_string(path) {
            Ok(text) => crate::lang::parse_code(SourceKind::Java, rel, &text).ok_or_else(|| path.clone()),
            Err(_) => Err(path.clone()),
        })
        .collect();
    let mut files = Vec::with_capacity(read.len());
    let mut unreadable = Vec::new();
    for r in read {
        match r {
            Ok(f) => files.push(f),
            Err(path) => unreadable.push(path),
        }
    }
    let packages: Vec<&str> = FRAMEWORK_ARTIFACTS
        .iter()
        .flat_map(|a| a.packages.iter().copied())
        .collect();
    let model = model_of(&files, &packages);
    let types = model.len();
    let methods = model.types().iter().map(|t| t.methods.len()).sum();
    let origin = format!("bundled frameworks: {}", artifacts.join(", "));
    let data = crate::typemodel::wire::encode(&model, &origin).map_err(|e| IndexError::Config {
        file: PathBuf::from("frameworks.tm"),
        message: format!("the model does not encode: {e}"),
    })?;
    Ok(GeneratedModel {
        data,
        artifacts,
        files: files.len(),
        unreadable,
        types,
        methods,
    })
}

/// The `.java` files under `dir`, with their paths relative to `root`, in name order.
/// Not `walk::walk_repo`: a source root's folders are packages, and that walk skips
/// folders a repository's builds own (`target`, `build`, `out`), which are package names
/// too (`org.springframework.aop.target`).
fn java_files(root: &Path, dir: &Path, out: &mut Vec<(PathBuf, String)>) -> Result<(), IndexError> {
    let read = std::fs::read_dir(dir).map_err(|e| IndexError::Config {
        file: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut entries: Vec<PathBuf> = read.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            java_files(root, &path, out)?;
        } else if path.extension().is_some_and(|e| e == "java") {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            out.push((path, rel));
        }
    }
    Ok(())
}

/// The library model of `files`' API in `packages`: their types read as a product's are
/// (names bound by their imports, over the JDK and the bundled libraries), then kept as a
/// jar's model keeps them — with the supertypes they inherit members from, wherever
/// declared; public and protected members; under binary names.
pub(crate) fn model_of(files: &[CodeFile], packages: &[&str]) -> TypeModel {
    let table = SymbolTable::build(files.iter());
    let beneath = Layered::new(vec![
        crate::typemodel::libraries::jar_libraries() as &dyn TypeSource,
        crate::typemodel::jdk::jdk(),
    ]);
    let read = ProductModel::build(files.iter(), &table, &beneath);
    let read = read.model.types();
    // Every read type's binary name (`a.b.Outer$Inner`) by its key (`a.b.Outer.Inner`).
    let by_key: FxHashMap<&str, &TypeInfo> = read.iter().map(|t| (&*t.fqn, t)).collect();
    let mut binary: FxHashMap<Name, Name> = FxHashMap::default();
    for t in read {
        if let Some(b) = binary_name(t, &by_key) {
            binary.insert(t.fqn.clone(), Name::from(b.as_str()));
        }
    }
    let kept = |t: &TypeInfo| {
        let fqn: &str = &t.fqn;
        packages.iter().any(|p| {
            fqn.strip_prefix(p)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        })
    };
    // The listed packages' types, and every supertype they inherit members from, wherever
    // it is declared (`Sort` is a `Streamable`, whose `stream()` it answers).
    let mut chosen: Vec<&TypeInfo> = read.iter().filter(|t| kept(t) && visible(t, &by_key)).collect();
    let mut seen: std::collections::HashSet<&str> = chosen.iter().map(|t| &*t.fqn).collect();
    let mut next = 0;
    while next < chosen.len() {
        let t = chosen[next];
        next += 1;
        for sup in t.superclass.iter().chain(&t.interfaces) {
            if let Some(s) = by_key.get(&*sup.name) {
                if seen.insert(&*s.fqn) {
                    chosen.push(s);
                }
            }
        }
    }
    let mut out: BTreeMap<Name, TypeInfo> = BTreeMap::new();
    for t in chosen {
        let Some(b) = binary.get(&t.fqn) else { continue };
        let mut t = t.clone();
        t.methods.retain(|m| member_visible(m.flags));
        t.fields.retain(|f| member_visible(f.flags));
        if !t.flags.contains(Flags::PUBLIC) && !t.flags.contains(Flags::PROTECTED) && t.outer.is_none() {
            t.flags = t.flags | Flags::NOT_ACCESSIBLE;
        }
        t.binary = b.clone();
        rename_type(&mut t, &binary);
        out.insert(b.clone(), t);
    }
    // A member type listed only when it is kept too.
    let names: std::collections::HashSet<Name> = out.keys().cloned().collect();
    let mut types: Vec<TypeInfo> = out.into_values().collect();
    for t in &mut types {
        t.member_types.retain(|m| names.contains(m));
        t.member_types.sort();
    }
    TypeModel::new(types)
}

/// `t`'s binary name: its outer type's, `$` and its simple name; `None` for an anonymous
/// or local class, which no other file can name.
fn binary_name(t: &TypeInfo, by_key: &FxHashMap<&str, &TypeInfo>) -> Option<String> {
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    let mut inner: Vec<&str> = Vec::new();
    let mut cur = t;
    while let Some(outer) = cur.outer.as_deref() {
        let simple = cur.fqn.strip_prefix(outer)?.strip_prefix('.')?;
        if !ident(simple) || inner.len() > 16 {
            return None;
        }
        inner.push(simple);
        cur = by_key.get(outer)?;
    }
    if !cur.fqn.split('.').all(ident) {
        return None;
    }
    let mut out = cur.fqn.to_string();
    for simple in inner.iter().rev() {
        out.push('$');
        out.push_str(simple);
    }
    Some(out)
}

/// Whether every type from `t` out is visible outside its package or class (public, or
/// protected and nested, or nested in an interface).
fn visible(t: &TypeInfo, by_key: &FxHashMap<&str, &TypeInfo>) -> bool {
    let mut cur = t;
    let mut hops = 0;
    loop {
        let Some(outer) = cur.outer.as_deref().and_then(|o| by_key.get(o)) else {
            // A top-level type: public, or kept as not accessible when a public type of
            // its package may inherit through it.
            return true;
        };
        let in_interface = outer.kind.is_interface();
        if !in_interface && !cur.flags.contains(Flags::PUBLIC) && !cur.flags.contains(Flags::PROTECTED) {
            return false;
        }
        cur = outer;
        hops += 1;
        if hops > 16 {
            return false;
        }
    }
}

/// Whether a member with `flags` is part of the API: public or protected (the reading
/// marks an interface's members public).
fn member_visible(flags: Flags) -> bool {
    flags.contains(Flags::PUBLIC) || flags.contains(Flags::PROTECTED)
}

/// Every name in `t` that is a read type's key, as its binary name.
fn rename_type(t: &mut TypeInfo, binary: &FxHashMap<Name, Name>) {
    let fix = |n: &mut Name| {
        if let Some(b) = binary.get(n) {
            *n = b.clone();
        }
    };
    for p in &mut t.type_params {
        p.bounds.iter_mut().for_each(|b| rename_ty(b, binary));
    }
    for c in t.superclass.iter_mut().chain(&mut t.interfaces) {
        rename_class(c, binary);
    }
    for m in &mut t.methods {
        for p in &mut m.type_params {
            p.bounds.iter_mut().for_each(|b| rename_ty(b, binary));
        }
        m.params.iter_mut().for_each(|p| rename_ty(p, binary));
        rename_ty(&mut m.ret, binary);
    }
    for f in &mut t.fields {
        rename_ty(&mut f.ty, binary);
    }
    t.member_types.iter_mut().for_each(fix);
    if let Some(o) = &mut t.outer {
        fix(o);
    }
}

fn rename_ty(t: &mut Ty, binary: &FxHashMap<Name, Name>) {
    match t {
        Ty::Prim(_) | Ty::Var(_) => {}
        Ty::Class(c) => rename_class(c, binary),
        Ty::Array(e) => rename_ty(e, binary),
    }
}

fn rename_class(c: &mut ClassTy, binary: &FxHashMap<Name, Name>) {
    if let Some(b) = binary.get(&c.name) {
        c.name = b.clone();
    }
    for a in c.args.iter_mut() {
        match a {
            TyArg::Wildcard => {}
            TyArg::Extends(t) | TyArg::Super(t) | TyArg::Exact(t) => rename_ty(t, binary),
        }
    }
    if let Some(o) = &mut c.outer {
        rename_class(o, binary);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::typemodel::ty::TyArg;

    fn parsed(files: &[(&str, &str)]) -> Vec<CodeFile> {
        files
            .iter()
            .filter_map(|(rel, text)| crate::lang::parse_code(SourceKind::Java, rel, text))
            .collect()
    }

    fn class(name: &str) -> ClassTy {
        ClassTy {
            name: name.into(),
            args: Vec::new().into(),
            outer: None,
        }
    }

    /// Read from sources, a library keeps what a jar's model keeps: the listed packages'
    /// public and protected types and members and the supertypes they inherit members from
    /// (`Streamy`, outside the list), nested types under binary names (in the
    /// signatures that name them too), no private, package-private, anonymous or local
    /// type or member; names its sources import from elsewhere stay as imported, and the
    /// model survives the committed encoding.
    #[test]
    fn a_library_read_from_sources_keeps_its_api_under_binary_names() {
        let files = parsed(&[
            (
                "v/api/Client.java",
                r#"package v.api;
import v.internal.Wire;
import com.other.Codec;
public class Client {
    public static class Builder {
        public Builder timeout(int seconds) { return this; }
        public Client build() { return new Client(); }
        private void secret() {}
    }
    public interface Callback { Result done(Client c); }
    private static class Hidden { public void h() {} }
    public static Builder builder() { return new Builder(); }
    public Result send(Wire w, Codec c) {
        Runnable r = new Runnable() { public void run() {} };
        class Local { public void l() {} }
        return null;
    }
    protected void hook() {}
    void packagePrivate() {}
    private void secret() {}
}
"#,
            ),
            (
                "v/api/Result.java",
                "package v.api;\npublic class Result<T> { public T get() { return null; } }\n",
            ),
            (
                "v/internal/Wire.java",
                "package v.internal;\npublic class Wire { public void w() {} }\n",
            ),
            (
                "v/util/Streamy.java",
                "package v.util;\npublic interface Streamy<T> { default T first() { return null; } }\n",
            ),
            (
                "v/api/Sorting.java",
                "package v.api;\nimport v.util.Streamy;\npublic class Sorting implements Streamy<String> { }\n",
            ),
        ]);
        let model = model_of(&files, &["v.api"]);
        let mut names: Vec<&str> = model.types().iter().map(|t| &*t.binary).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "v.api.Client",
                "v.api.Client$Builder",
                "v.api.Client$Callback",
                "v.api.Result",
                "v.api.Sorting",
                "v.util.Streamy"
            ]
        );
        let client = model.get("v.api.Client").expect("Client");
        let mut methods: Vec<&str> = client.methods.iter().map(|m| &*m.name).collect();
        methods.sort_unstable();
        assert_eq!(methods, ["<init>", "builder", "hook", "send"]);
        let builder = client
            .methods
            .iter()
            .find(|m| &*m.name == "builder")
            .expect("builder()");
        assert_eq!(builder.ret, Ty::Class(class("v.api.Client$Builder")));
        let send = client
            .methods
            .iter()
            .find(|m| &*m.name == "send")
            .expect("send()");
        assert_eq!(send.params[0], Ty::Class(class("v.internal.Wire")));
        assert_eq!(send.params[1], Ty::Class(class("com.other.Codec")));
        let inner = model.by_binary("v.api.Client$Builder").expect("Builder");
        assert_eq!(inner.fqn.as_ref(), "v.api.Client.Builder");
        assert_eq!(inner.outer.as_deref(), Some("v.api.Client"));
        assert!(inner.methods.iter().all(|m| &*m.name != "secret"));
        let mut members: Vec<&str> = client.member_types.iter().map(|m| &**m).collect();
        members.sort_unstable();
        assert_eq!(members, ["v.api.Client$Builder", "v.api.Client$Callback"]);
        let callback = model.by_binary("v.api.Client$Callback").expect("Callback");
        assert!(callback.methods[0].flags.contains(Flags::PUBLIC));
        let data = crate::typemodel::wire::encode(&model, "bundled frameworks: v:api:1.0").expect("encodes");
        let (back, origin) = crate::typemodel::wire::decode(&data).expect("decodes");
        assert_eq!(origin, "bundled frameworks: v:api:1.0");
        let result = back.get("v.api.Result").expect("Result");
        assert_eq!(
            result.methods.iter().find(|m| &*m.name == "get").map(|m| &m.ret),
            Some(&Ty::Var("T".into()))
        );
        assert_eq!(back.len(), model.len());
    }

    /// The committed framework model holds the Spring types applications chain through,
    /// none of which a jar-built library model or the JDK's holds too, with the results
    /// their releases declare.
    #[test]
    fn the_committed_framework_model_types_what_spring_applications_chain() {
        let all = crate::typemodel::libraries::libraries();
        let jars = crate::typemodel::libraries::jar_libraries();
        let jdk = crate::typemodel::jdk::jdk();
        let frameworks = all.len() - jars.len();
        assert!(frameworks > 1000, "{frameworks} framework types");
        assert!(all
            .types()
            .iter()
            .filter(|t| t.package.starts_with("org.springframework"))
            .all(|t| jars.by_binary(&t.binary).is_none() && jdk.by_binary(&t.binary).is_none()));
        let returns = |owner: &str, method: &str| -> Vec<String> {
            all.find_methods(&class(owner), method)
                .iter()
                .map(|f| match &f.method.ret {
                    Ty::Class(c) => c.name.to_string(),
                    other => format!("{other:?}"),
                })
                .collect()
        };
        assert_eq!(
            returns("org.springframework.test.web.servlet.MockMvc", "perform"),
            ["org.springframework.test.web.servlet.ResultActions"]
        );
        assert_eq!(
            returns("org.springframework.http.ResponseEntity", "ok")[0],
            "org.springframework.http.ResponseEntity$BodyBuilder"
        );
        let find_by_id = all.find_methods(
            &class("org.springframework.data.repository.CrudRepository"),
            "findById",
        );
        let Some(Ty::Class(optional)) = find_by_id.first().map(|f| &f.method.ret) else {
            panic!("findById returns a class");
        };
        assert_eq!(&*optional.name, "java.util.Optional");
        assert_eq!(&*optional.args, [TyArg::Exact(Ty::Var("T".into()))]);
        let jpa = all
            .get("org.springframework.data.jpa.repository.JpaRepository")
            .expect("JpaRepository");
        assert!(jpa
            .interfaces
            .iter()
            .any(|i| &*i.name == "org.springframework.data.repository.ListCrudRepository"));
        assert_eq!(
            returns(
                "org.springframework.data.redis.core.StringRedisTemplate",
                "opsForValue"
            ),
            ["org.springframework.data.redis.core.ValueOperations"]
        );
        assert_eq!(
            returns(
                "org.springframework.security.core.context.SecurityContextHolder",
                "getContext"
            ),
            ["org.springframework.security.core.context.SecurityContext"]
        );
        assert_eq!(
            returns("org.springframework.data.mongodb.core.query.Criteria", "where"),
            ["org.springframework.data.mongodb.core.query.Criteria"]
        );
        let run = returns("org.springframework.boot.SpringApplication", "run");
        assert!(
            !run.is_empty()
                && run
                    .iter()
                    .all(|r| r == "org.springframework.context.ConfigurableApplicationContext")
        );
        assert_eq!(
            returns("org.springframework.boot.actuate.health.Health", "down")[0],
            "org.springframework.boot.actuate.health.Health$Builder"
        );
        // `Sort` answers `stream()` through `Streamable`, kept as its supertype.
        assert!(!all
            .find_methods(&class("org.springframework.data.domain.Sort"), "stream")
            .is_empty());
        // Packages outside the list are not kept.
        assert!(all
            .get("org.springframework.jdbc.datasource.DriverManagerDataSource")
            .is_none());
    }
}
