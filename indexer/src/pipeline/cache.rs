//! The per-file facts cache that makes a re-index incremental: a code file whose path and
//! content a previous run already parsed, with this same build of the indexer, is not
//! parsed again — its facts ([`CodeFile`]) are read back from the store.
//!
//! The key is a SHA-256 over the indexer's build identity, the file's path in its
//! repository and its bytes, so an entry is true of its key forever: any edit, rename or
//! new build of semgraph is a different key, and a stale entry can never be read.
//!
//! Its skeleton (the declarations the first pass reads; see `pipeline::skeleton`) is
//! cached beside the facts, so the first pass of a re-index decodes only that, and the
//! whole facts once, in the second pass.
//!
//! A file's resolved calls are cached too, under a key that adds the digest of everything
//! resolution reads besides the file ([`resolution_context`]): every file's declarations
//! (its skeleton without positions and call sites, the only part of another file
//! resolution sees), the module each file is in, and the dependency jars typed (path,
//! size, modification time). An edit inside a method body leaves that context as it was,
//! even though it moves the declarations after it, so every other file's calls are read
//! back. An edit of a declaration changes it; then a file that mentions none of the names
//! whose meaning changed keeps the calls it had, read under the key the last run's calls
//! index ([`calls_index_key`]) holds for it (`invalidation`).
//!
//! What the recognisers found in a file is cached the same way, under a key that adds what
//! recognising reads besides the file and its calls ([`recognition_context`]): every
//! file's skeleton without its positions, every file of the repository by path, and every
//! file that is not code by its bytes. A file whose calls and findings are both read back
//! is not decoded at all in the second pass.
//! The symbol table and emit run again over every file, so an incremental run writes
//! exactly the graph a full run writes.

use std::sync::OnceLock;

use semgraph_storage::{FactsDigest, Store};
use sha2::{Digest, Sha256};

use crate::company::DependencyTyping;
use crate::facts::{CodeFile, TypeDecl};

/// Bumped whenever the shape or meaning of the facts changes; the build identity below
/// already changes with every new binary, this guards a build that reuses one.
const FACTS_FORMAT: u32 = 1;

/// Largest facts entry decoded (a file's facts are far smaller than its 8 MB size limit).
const MAX_ENTRY_BYTES: usize = 256 << 20;

/// How a run treats the facts earlier runs left in the store.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexMode {
    /// Reuse the cached facts of every file whose path and content are unchanged.
    #[default]
    Incremental,
    /// Parse every file again (the cache is still filled for the next run).
    Full,
}

/// What a run did with the cache, and the digests it used (kept for the next run).
pub(crate) struct FactsCache<'s> {
    pub(crate) store: &'s Store,
    /// Whether earlier entries may be read.
    pub(crate) reuse: bool,
    /// Every digest this run parsed or reused.
    pub(crate) used: Vec<FactsDigest>,
    /// Code files parsed by this run.
    pub(crate) parsed: u64,
    /// Code files whose cached facts were reused.
    pub(crate) reused: u64,
    /// Code files whose cached resolved calls were reused.
    pub(crate) calls_reused: u64,
    /// Code files whose cached findings were reused.
    pub(crate) findings_reused: u64,
    /// The product the run indexes (its repositories' calls indexes are named by it).
    pub(crate) product: String,
}

impl<'s> FactsCache<'s> {
    pub(crate) fn new(store: &'s Store, mode: IndexMode, product: &str) -> Self {
        FactsCache {
            store,
            reuse: mode == IndexMode::Incremental,
            used: Vec::new(),
            parsed: 0,
            reused: 0,
            calls_reused: 0,
            findings_reused: 0,
            product: product.to_string(),
        }
    }
}

/// Who parsed: the version, and the executable's path, size and modification time (a
/// rebuilt binary is another indexer, even at the same version number).
fn build_identity() -> &'static [u8] {
    static IDENTITY: OnceLock<Vec<u8>> = OnceLock::new();
    IDENTITY.get_or_init(|| {
        let mut id = format!(
            "semgraph-indexer {} facts {FACTS_FORMAT}",
            env!("CARGO_PKG_VERSION")
        );
        if let Ok(exe) = std::env::current_exe() {
            id.push_str(&format!(" exe {}", exe.display()));
            if let Some(stamp) = size_and_modified(&exe) {
                id.push_str(&format!(" {stamp}"));
            }
        }
        id.into_bytes()
    })
}

/// A file's size and modification time (nanoseconds since the epoch, 0 where the file
/// system keeps none), as text: what tells a rebuilt binary or a replaced jar apart.
fn size_and_modified(path: &std::path::Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    let modified = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    Some(format!("{} {modified}", meta.len()))
}

/// The cache key of one file's facts.
pub(crate) fn digest(rel: &str, text: &str) -> FactsDigest {
    let mut h = Sha256::new();
    let identity = build_identity();
    h.update((identity.len() as u64).to_le_bytes());
    h.update(identity);
    h.update((rel.len() as u64).to_le_bytes());
    h.update(rel.as_bytes());
    h.update(text.as_bytes());
    h.finalize().into()
}

/// The bytes cached for an entry: a file's facts, its skeleton with its digests, its
/// resolved calls, its findings.
pub(crate) fn encode<T: bincode::Encode>(entry: &T) -> Vec<u8> {
    // Encoding plain data into a Vec cannot fail; an empty entry would only be a miss.
    bincode::encode_to_vec(entry, bincode::config::standard()).unwrap_or_default()
}

/// An entry from its cached bytes; `None` for bytes this build cannot read (a miss).
pub(crate) fn decode<T: bincode::Decode<()>>(bytes: &[u8]) -> Option<T> {
    bincode::decode_from_slice(bytes, bincode::config::standard().with_limit::<MAX_ENTRY_BYTES>())
        .ok()
        .map(|(entry, _)| entry)
}

/// The digest of what resolving one file's calls reads besides the file itself: the build,
/// every file's declarations ([`declarations`], through its [`SkeletonDigests`]) and module
/// (in the run's order), and each dependency's typing with the size and modification time
/// of the jar or folder it was typed from.
pub(crate) fn resolution_context<M: std::fmt::Debug>(
    skeletons: &[CodeFile],
    digests: &[SkeletonDigests],
    modules: &[M],
    dependencies: &[DependencyTyping],
    java_release: Option<u32>,
) -> FactsDigest {
    let mut h = Sha256::new();
    part(&mut h, b"resolution context");
    part(&mut h, build_identity());
    part(&mut h, format!("java release {java_release:?}").as_bytes());
    for ((file, digests), module) in skeletons.iter().zip(digests).zip(modules) {
        part(&mut h, file.path.as_bytes());
        part(&mut h, format!("{module:?}").as_bytes());
        part(&mut h, &digests.declarations);
    }
    dependencies_part(&mut h, dependencies);
    h.finalize().into()
}

/// The part of [`resolution_context`] that is not a file's declarations or module: the
/// build, the Java release and each dependency's typing. A run whose global part differs
/// from the last run's resolves every file again (`invalidation`).
pub(crate) fn resolution_global(dependencies: &[DependencyTyping], java_release: Option<u32>) -> FactsDigest {
    let mut h = Sha256::new();
    part(&mut h, b"resolution global");
    part(&mut h, build_identity());
    part(&mut h, format!("java release {java_release:?}").as_bytes());
    dependencies_part(&mut h, dependencies);
    h.finalize().into()
}

fn dependencies_part(h: &mut Sha256, dependencies: &[DependencyTyping]) {
    for d in dependencies {
        part(h, d.coordinate.as_bytes());
        part(h, format!("{:?} {:?}", d.typed_from, d.why_not).as_bytes());
        if let Some(stamp) = d.typed_from.as_ref().and_then(|p| size_and_modified(p.as_ref())) {
            part(h, stamp.as_bytes());
        }
    }
}

/// The key of the [`CallsIndex`](super::invalidation::CallsIndex) of one repository of a
/// product: the one entry of the cache that a run rewrites (it says what the last run
/// resolved each file under, so it is true of the last run, not of its key forever).
pub(crate) fn calls_index_key(product: &str, root: &str) -> FactsDigest {
    let mut h = Sha256::new();
    part(&mut h, b"calls index");
    part(&mut h, product.as_bytes());
    part(&mut h, root.as_bytes());
    h.finalize().into()
}

/// Adds `bytes` to a context's digest, length first, so that no two sequences of parts
/// digest alike.
fn part(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

/// What one file's skeleton puts into the contexts, digested once, when the skeleton is
/// made, and cached with it: its [`declarations`] (for the resolution context) and its
/// whole without positions (for the recognition context). A re-index reads them back
/// rather than encoding every skeleton of the product twice more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct SkeletonDigests {
    pub(crate) declarations: FactsDigest,
    pub(crate) recognition: FactsDigest,
}

/// The [`SkeletonDigests`] of `skeleton`.
pub(crate) fn skeleton_digests(skeleton: &CodeFile) -> SkeletonDigests {
    let declarations = Sha256::digest(encode(&declarations(skeleton))).into();
    let mut whole = skeleton.clone();
    whole.diagnostics = Vec::new();
    whole.map_positions(|_| 0);
    let recognition = Sha256::digest(encode(&whole)).into();
    SkeletonDigests {
        declarations,
        recognition,
    }
}

/// What of a skeleton another file's resolution reads: the skeleton without where anything
/// sits (lines, byte spans) and without method bodies' call sites and locals (a
/// constructor's included). The symbol table (`resolve/symbols.rs`) and the product's type
/// model (`resolve/types.rs`) are built from names, kinds, modifiers, supertypes,
/// signatures, fields, imports and type parameters only — never from a position or a call
/// site of another file — so an edit inside a body, which moves every declaration after it,
/// leaves the other files' calls as they were. Whatever else the skeleton holds (field
/// assignments, returns, annotations, constants) stays, whether resolution reads it or not.
fn declarations(skeleton: &CodeFile) -> CodeFile {
    let mut file = skeleton.clone();
    for i in &mut file.imports {
        i.line = 0;
    }
    file.diagnostics = Vec::new();
    file.types.iter_mut().for_each(strip_to_declarations);
    file
}

/// One type as [`declarations`] leaves it: no position, and no method's call sites, locals
/// or strings.
pub(crate) fn strip_to_declarations(t: &mut TypeDecl) {
    t.line_start = 0;
    t.line_end = 0;
    for f in &mut t.fields {
        f.line = 0;
    }
    for m in &mut t.methods {
        m.line_start = 0;
        m.line_end = 0;
        m.span = (0, 0);
        m.calls = Default::default();
        m.locals = Default::default();
        m.strings = Default::default();
        m.local_inits = Default::default();
        m.string_locals = Default::default();
        m.typed_values = Default::default();
    }
}

/// The digest of what recognising one file reads besides the file and its resolved calls:
/// the resolution context its calls were resolved in, every file's skeleton with its
/// positions zeroed ([`CodeFile::map_positions`]) and every file of the repository by
/// path, with the digest of its bytes where it is not code (config, builds, SQL, schemas,
/// descriptors, specs — whatever a recogniser or the lookups it is given may list or
/// read; a code file's part is its skeleton's). The recognisers read another file
/// only through these, and never where its declarations sit (the invariant
/// `another_file_s_positions_change_no_finding` checks on the fixture company), so an
/// edit inside a body leaves every other file's findings as they were; a change to any
/// declaration, config entry or non-code file changes it, and every file is recognised
/// again.
pub(crate) fn recognition_context(
    resolution: &FactsDigest,
    skeletons: &[CodeFile],
    digests: &[SkeletonDigests],
    files: &[(&str, FileDigest)],
) -> FactsDigest {
    let mut h = Sha256::new();
    part(&mut h, b"recognition context");
    part(&mut h, resolution);
    for (file, digests) in skeletons.iter().zip(digests) {
        part(&mut h, file.path.as_bytes());
        part(&mut h, &digests.recognition);
    }
    for (rel, digest) in files {
        part(&mut h, rel.as_bytes());
        match digest {
            FileDigest::Code => part(&mut h, b"code"),
            FileDigest::Bytes(d) => part(&mut h, d),
            FileDigest::Unreadable => part(&mut h, b"unreadable"),
        }
    }
    h.finalize().into()
}

/// One file of the repository as it goes into [`recognition_context`].
pub(crate) enum FileDigest {
    /// A code file: what the recognisers may read of it is its skeleton.
    Code,
    /// Any other file, by the digest of its bytes.
    Bytes(FactsDigest),
    /// A file that could not be read.
    Unreadable,
}

/// The digest of one file's bytes, as it goes into [`recognition_context`].
pub(crate) fn bytes_digest(bytes: &[u8]) -> FactsDigest {
    Sha256::digest(bytes).into()
}

/// The cache key of what the recognisers found in one file: its facts' key within a
/// recognition context.
pub(crate) fn findings_digest(context: &FactsDigest, file: &FactsDigest) -> FactsDigest {
    derived_key(b"findings", &[context, file])
}

/// The cache key of one file's skeleton (what the first pass reads), beside its facts.
pub(crate) fn skeleton_digest(file: &FactsDigest) -> FactsDigest {
    derived_key(b"skeleton", &[file])
}

/// The cache key of one file's resolved calls: its facts' key within a resolution context.
pub(crate) fn calls_digest(context: &FactsDigest, file: &FactsDigest) -> FactsDigest {
    derived_key(b"resolved calls", &[context, file])
}

/// The key of an entry kept beside a file's facts: what it is (`tag`), then the digests
/// it depends on, each of a fixed 32 bytes.
fn derived_key(tag: &[u8], digests: &[&FactsDigest]) -> FactsDigest {
    let mut h = Sha256::new();
    h.update(tag);
    for d in digests {
        h.update(d);
    }
    h.finalize().into()
}
