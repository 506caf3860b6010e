//! The compiler oracle: semgraph's Calls edges against the calls `javac` compiled.
//!
//! A folder of pure-JDK Java sources is compiled with `javac -g -parameters` into a
//! temporary folder; the call edges are read out of the class files (`invokevirtual`,
//! `invokeinterface`, `invokestatic`, `invokespecial` — constructors, `this(..)`,
//! `super(..)`, `super.m()` — and `invokedynamic` method references through their
//! bootstrap method-handle arguments), each target moved to the class that declares it by
//! walking the owner's superclass and interface chain through the corpus and the JDK's own
//! class files (read from its jmods: the oracle shares no code with the type model it
//! judges). Lambda bodies (`lambda$m$N`) are charged to the method that holds the lambda,
//! synthetic and bridge methods are skipped, an anonymous class's constructor is the
//! superclass constructor it calls. A call counts only where the source writes it: the
//! callee's name (for a constructor `new`, `this`, `super` or the class's name) must be
//! written on the line javac attributes the call to — that drops what the compiler
//! inserts (boxing, for-each iterators, string switches, try-with-resources, implicit
//! `super()`), which no source-level graph can or should show.
//!
//! The same folder is indexed by semgraph into a temporary store, and the two edge sets
//! are compared at caller method → callee method level. Method identity is semgraph's:
//! the fqn (nested types with `.`, anonymous classes `Outer$N`, local classes
//! `Outer.Local`) and `name(SimpleType, …)` with type variables as written. A JDK callee
//! is compared by fqn alone while semgraph's external method nodes carry no signature.
//! Calls from a caller that has no node in semgraph's graph (static initializers,
//! implicit constructors, enum constant bodies' constructors) are counted apart.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use cafebabe::attributes::{AttributeData, AttributeInfo, InnerClassAccessFlags, MethodParameterAccessFlags};
use cafebabe::bytecode::Opcode;
use cafebabe::constant_pool::{BootstrapArgument, MemberRef, ReferenceKind};
use cafebabe::{ClassAccessFlags, MethodAccessFlags, ParseOptions};
use semgraph_indexer::{index_product, Company, NoProgress};
use semgraph_storage::{Direction, EdgeKind, NodeFlags, NodeId, NodeKind, Store};

/// A method as semgraph names it: `pkg.Type.name` and `(SimpleType, …)`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct MethodId {
    pub(crate) fqn: String,
    /// `None` where the side does not know the parameters (semgraph's external methods).
    pub(crate) params: Option<String>,
}

impl std::fmt::Display for MethodId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.params {
            Some(p) => write!(f, "{}({p})", self.fqn),
            None => write!(f, "{}", self.fqn),
        }
    }
}

/// How a call was written, for sorting misses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum CallShape {
    Method,
    New,
    ThisCall,
    SuperCall,
    AnonymousNew,
    MethodRef,
}

/// One call edge of the compiled code.
#[derive(Debug, Clone)]
pub(crate) struct OracleCall {
    pub(crate) caller: MethodId,
    pub(crate) callee: MethodId,
    /// The callee is a JDK method.
    pub(crate) external: bool,
    pub(crate) shape: CallShape,
    /// The call sits in a lambda body.
    pub(crate) in_lambda: bool,
    /// Source file (relative to the corpus) and line.
    pub(crate) file: String,
    pub(crate) line: u32,
    /// The receiver is the result of a call on the same line to a JDK method (`true`) or
    /// a corpus method (`false`), as far as the owner class tells.
    pub(crate) chained_on: Option<bool>,
    /// The declaring class has several methods of this name and arity.
    pub(crate) overloaded: bool,
}

/// What the comparison found.
#[derive(Debug, Default)]
pub(crate) struct OracleReport {
    pub(crate) oracle_edges: usize,
    pub(crate) semgraph_edges: usize,
    pub(crate) matched: usize,
    /// Misses by kind.
    pub(crate) misses: BTreeMap<String, usize>,
    /// Edges semgraph has that javac does not, by kind.
    pub(crate) wrong: BTreeMap<String, usize>,
    pub(crate) first_misses: Vec<String>,
    pub(crate) first_wrong: Vec<String>,
    /// Edges whose caller semgraph has no node for (static initializers, implicit
    /// constructors…), by caller kind; not part of recall.
    pub(crate) uncounted_callers: BTreeMap<String, usize>,
    /// Calls javac inserted that the source does not write (dropped).
    pub(crate) compiler_inserted: usize,
    /// semgraph JDK callees named at the receiver's type, renamed to the declaring type.
    pub(crate) renamed_external: usize,
    /// JDK callees compared by fqn only.
    pub(crate) name_level_external: bool,
    pub(crate) java_files: usize,
    pub(crate) java_lines: usize,
}

impl OracleReport {
    pub(crate) fn recall(&self) -> f64 {
        if self.oracle_edges == 0 {
            return 1.0;
        }
        self.matched as f64 / self.oracle_edges as f64
    }

    pub(crate) fn precision(&self) -> f64 {
        if self.semgraph_edges == 0 {
            return 1.0;
        }
        let right = self.semgraph_edges - self.wrong.values().sum::<usize>();
        right as f64 / self.semgraph_edges as f64
    }

    /// The report as text: figures, misses by kind, the first misses and wrong edges.
    pub(crate) fn render(&self) -> String {
        let mut out = String::new();
        out.push_str(&format!(
            "corpus: {} Java files, {} lines\n",
            self.java_files, self.java_lines
        ));
        out.push_str(&format!(
            "recall {:.4} ({} of {} compiled call edges), precision {:.4} ({} of {} semgraph edges right)\n",
            self.recall(),
            self.matched,
            self.oracle_edges,
            self.precision(),
            self.semgraph_edges - self.wrong.values().sum::<usize>(),
            self.semgraph_edges
        ));
        if self.name_level_external {
            out.push_str("JDK callees compared by fqn (semgraph's external methods carry no signature)\n");
        }
        out.push_str(&format!(
            "{} semgraph edges name a JDK callee at the receiver's type (renamed to the declaring type before comparing)\n",
            self.renamed_external
        ));
        out.push_str(&format!(
            "dropped: {} compiler-inserted calls; not counted: {:?}\n",
            self.compiler_inserted, self.uncounted_callers
        ));
        out.push_str("misses by kind:\n");
        for (k, n) in &self.misses {
            out.push_str(&format!("  {k}: {n}\n"));
        }
        out.push_str("wrong edges by kind:\n");
        for (k, n) in &self.wrong {
            out.push_str(&format!("  {k}: {n}\n"));
        }
        out.push_str("first misses:\n");
        for m in &self.first_misses {
            out.push_str(&format!("  {m}\n"));
        }
        out.push_str("first wrong edges:\n");
        for m in &self.first_wrong {
            out.push_str(&format!("  {m}\n"));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Descriptors and signatures, spelled the way semgraph spells parameters

/// Splits a method descriptor or signature into its parameter items (type parameters
/// skipped): `<T:…>(ILjava/util/List<TT;>;[TT;)V` → `["I", "Ljava/util/List<TT;>;", "[TT;"]`.
fn param_items(sig: &str) -> Option<Vec<&str>> {
    let b = sig.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'<') {
        let mut depth = 0;
        while i < b.len() {
            match b[i] {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        i += 1;
                        break;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    if b.get(i) != Some(&b'(') {
        return None;
    }
    i += 1;
    let mut out = Vec::new();
    while b.get(i)? != &b')' {
        let start = i;
        while b.get(i)? == &b'[' {
            i += 1;
        }
        match b.get(i)? {
            b'L' | b'T' => {
                let mut depth = 0;
                loop {
                    match b.get(i)? {
                        b'<' => depth += 1,
                        b'>' => depth -= 1,
                        b';' if depth == 0 => break,
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            _ => i += 1,
        }
        out.push(&sig[start..i]);
    }
    Some(out)
}

/// `Ljava/util/Map$Entry<TK;TV;>;` → `Entry`; `[TT;` → `T[]`; `I` → `int`.
fn simple(item: &str) -> String {
    let dims = item.bytes().take_while(|&c| c == b'[').count();
    let base = &item[dims..];
    let name = match base.as_bytes().first() {
        Some(b'L') => {
            let body = &base[1..base.len().saturating_sub(1)];
            let erased = body.split('<').next().unwrap_or(body);
            // The last segment of an inner class spelled `Outer<..>.Inner` is after a dot.
            let erased = match body.rfind('>') {
                Some(pos) if body[pos + 1..].starts_with('.') => {
                    body[pos + 2..].split('<').next().unwrap_or("")
                }
                _ => erased,
            };
            erased
                .rsplit(['/', '$', '.'])
                .next()
                .unwrap_or(erased)
                .to_string()
        }
        Some(b'T') => base[1..base.len().saturating_sub(1)].to_string(),
        Some(c) => match c {
            b'Z' => "boolean",
            b'B' => "byte",
            b'C' => "char",
            b'S' => "short",
            b'I' => "int",
            b'J' => "long",
            b'F' => "float",
            b'D' => "double",
            _ => "void",
        }
        .to_string(),
        None => String::new(),
    };
    format!("{name}{}", "[]".repeat(dims))
}

// ---------------------------------------------------------------------------------------
// Classes: the corpus's and the JDK's

/// What the oracle needs of one class.
#[derive(Debug, Clone)]
struct ClassInfo {
    internal: String,
    /// semgraph's fqn for the class.
    fqn: String,
    superclass: Option<String>,
    interfaces: Vec<String>,
    is_interface: bool,
    anonymous: bool,
    /// For an anonymous class: the superclass constructor its constructor calls, filled
    /// after its code is read.
    methods: Vec<MethodMeta>,
    source_file: Option<String>,
}

#[derive(Debug, Clone)]
struct MethodMeta {
    name: String,
    descriptor: String,
    /// `(SimpleType, …)` as semgraph spells it.
    params: String,
    arity: usize,
    synthetic: bool,
}

fn signature_attr<'a>(attrs: &'a [AttributeInfo<'_>]) -> Option<&'a str> {
    attrs.iter().find_map(|a| match &a.data {
        AttributeData::Signature(s) => Some(&**s),
        _ => None,
    })
}

/// The semgraph parameter list of a method.
fn method_params(m: &cafebabe::MethodInfo<'_>, inner_of: Option<&str>, is_enum: bool) -> (String, usize) {
    let descriptor = m.descriptor.to_string();
    if let Some(items) = signature_attr(&m.attributes).and_then(param_items) {
        return (
            items.iter().map(|i| simple(i)).collect::<Vec<_>>().join(", "),
            items.len(),
        );
    }
    let mut items = param_items(&descriptor).unwrap_or_default();
    let flags = m.attributes.iter().find_map(|a| match &a.data {
        AttributeData::MethodParameters(p) => Some(p),
        _ => None,
    });
    match flags {
        Some(p) if p.len() == items.len() => {
            // Synthetic parameters are javac's own; a mandated one is implicitly declared
            // but real (`valueOf(String)`, a compact constructor's), except an inner
            // class constructor's outer instance.
            let outer_first = m.name == "<init>"
                && inner_of.is_some_and(|o| items.first() == Some(&format!("L{o};").as_str()));
            let mut keep = p.iter().enumerate().map(|(i, x)| {
                !(x.access_flags.contains(MethodParameterAccessFlags::SYNTHETIC)
                    || (i == 0
                        && outer_first
                        && x.access_flags.contains(MethodParameterAccessFlags::MANDATED)))
            });
            items.retain(|_| keep.next().unwrap_or(true));
        }
        _ if m.name == "<init>" => {
            if is_enum && items.len() >= 2 {
                items.drain(..2);
            } else if let Some(outer) = inner_of {
                if items.first() == Some(&format!("L{outer};").as_str()) {
                    items.remove(0);
                }
            }
        }
        _ => {}
    }
    (
        items.iter().map(|i| simple(i)).collect::<Vec<_>>().join(", "),
        items.len(),
    )
}

/// The corpus's classes with their code, and the JDK's classes on demand.
pub(crate) struct Classes {
    corpus: HashMap<String, ClassInfo>,
    jdk_index: HashMap<String, (PathBuf, String)>,
    jdk: HashMap<String, Option<ClassInfo>>,
    jmod_bytes: HashMap<PathBuf, Vec<u8>>,
}

fn class_info(bytes: &[u8], names: &HashMap<String, String>) -> Option<ClassInfo> {
    let mut opts = ParseOptions::default();
    opts.parse_bytecode(false);
    let cf = cafebabe::parse_class_with_options(bytes, &opts).ok()?;
    let internal = cf.this_class.to_string();
    let inner: Vec<(String, Option<String>, Option<String>, InnerClassAccessFlags)> =
        inner_classes(&cf.attributes);
    let own = inner.iter().find(|(i, ..)| *i == internal);
    let inner_of = match own {
        Some((_, Some(o), _, f)) if !f.contains(InnerClassAccessFlags::STATIC) => Some(o.clone()),
        // Local and anonymous classes in an instance context take the outer instance too;
        // their constructors' MethodParameters say so.
        _ => None,
    };
    let is_enum = cf.access_flags.contains(ClassAccessFlags::ENUM);
    let methods = cf
        .methods
        .iter()
        .map(|m| {
            let (params, arity) = method_params(m, inner_of.as_deref(), is_enum);
            MethodMeta {
                name: m.name.to_string(),
                descriptor: m.descriptor.to_string(),
                params,
                arity,
                synthetic: m
                    .access_flags
                    .intersects(MethodAccessFlags::SYNTHETIC | MethodAccessFlags::BRIDGE),
            }
        })
        .collect();
    let fqn = names
        .get(&internal)
        .cloned()
        .unwrap_or_else(|| internal.replace(['/', '$'], "."));
    Some(ClassInfo {
        fqn,
        superclass: cf.super_class.as_ref().map(|s| s.to_string()),
        interfaces: cf.interfaces.iter().map(|i| i.to_string()).collect(),
        is_interface: cf.access_flags.contains(ClassAccessFlags::INTERFACE),
        anonymous: matches!(own, Some((_, None, None, _))),
        methods,
        source_file: cf.attributes.iter().find_map(|a| match &a.data {
            AttributeData::SourceFile(s) => Some(s.to_string()),
            _ => None,
        }),
        internal,
    })
}

fn inner_classes(
    attrs: &[AttributeInfo<'_>],
) -> Vec<(String, Option<String>, Option<String>, InnerClassAccessFlags)> {
    attrs
        .iter()
        .filter_map(|a| match &a.data {
            AttributeData::InnerClasses(e) => Some(e),
            _ => None,
        })
        .flatten()
        .map(|e| {
            (
                e.inner_class_info.to_string(),
                e.outer_class_info.as_ref().map(|s| s.to_string()),
                e.inner_name.as_ref().map(|s| s.to_string()),
                e.access_flags,
            )
        })
        .collect()
}

impl Classes {
    fn jdk_class(&mut self, internal: &str) -> Option<&ClassInfo> {
        if !self.jdk.contains_key(internal) {
            let info = self.read_jdk(internal);
            self.jdk.insert(internal.to_string(), info);
        }
        self.jdk.get(internal).and_then(|c| c.as_ref())
    }

    fn read_jdk(&mut self, internal: &str) -> Option<ClassInfo> {
        let (jmod, entry) = self.jdk_index.get(internal)?.clone();
        if !self.jmod_bytes.contains_key(&jmod) {
            let bytes = std::fs::read(&jmod).ok()?;
            self.jmod_bytes.insert(jmod.clone(), bytes);
        }
        let bytes = self.jmod_bytes.get(&jmod)?;
        let mut zip = zip::ZipArchive::new(std::io::Cursor::new(&bytes[4..])).ok()?;
        let mut e = zip.by_name(&entry).ok()?;
        let mut class = Vec::new();
        e.read_to_end(&mut class).ok()?;
        // JDK names: nested types with `.`, from each class's own InnerClasses.
        let mut opts = ParseOptions::default();
        opts.parse_bytecode(false);
        let cf = cafebabe::parse_class_with_options(&class, &opts).ok()?;
        let inner = inner_classes(&cf.attributes);
        let mut names = HashMap::new();
        names.insert(internal.to_string(), source_name(internal, &inner));
        class_info(&class, &names)
    }

    fn get(&mut self, internal: &str) -> Option<ClassInfo> {
        if let Some(c) = self.corpus.get(internal) {
            return Some(c.clone());
        }
        self.jdk_class(internal).cloned()
    }

    /// The class declaring `name descriptor` as seen from `owner`: the owner, its
    /// superclasses, then its interfaces (JVMS §5.4.3.3), non-synthetic methods only.
    fn declaring(&mut self, owner: &str, name: &str, descriptor: &str) -> Option<(ClassInfo, MethodMeta)> {
        let mut chain = Vec::new();
        let mut cur = Some(owner.to_string());
        while let Some(c) = cur.take() {
            if chain.len() > 64 {
                break;
            }
            let info = self.get(&c)?;
            if let Some(m) = info
                .methods
                .iter()
                .find(|m| m.name == name && m.descriptor == descriptor && !m.synthetic)
            {
                return Some((info.clone(), m.clone()));
            }
            if name == "<init>" {
                return None;
            }
            cur = info.superclass.clone();
            chain.push(info);
        }
        // Interfaces, breadth first, then Object for interfaces.
        let mut queue: std::collections::VecDeque<String> =
            chain.iter().flat_map(|c| c.interfaces.clone()).collect();
        let mut seen = HashSet::new();
        while let Some(i) = queue.pop_front() {
            if !seen.insert(i.clone()) {
                continue;
            }
            let Some(info) = self.get(&i) else { continue };
            if let Some(m) = info
                .methods
                .iter()
                .find(|m| m.name == name && m.descriptor == descriptor && !m.synthetic)
            {
                return Some((info.clone(), m.clone()));
            }
            queue.extend(info.interfaces.clone());
        }
        let object = self.get("java/lang/Object")?;
        let m = object
            .methods
            .iter()
            .find(|m| m.name == name && m.descriptor == descriptor)?
            .clone();
        Some((object, m))
    }
}

impl Classes {
    /// The internal name of a class semgraph names by its source name (`java.util.Map.Entry`).
    fn internal_of(&mut self, fqn: &str) -> Option<String> {
        let mut candidate = fqn.replace('.', "/");
        loop {
            if self.corpus.contains_key(&candidate) || self.jdk_index.contains_key(&candidate) {
                return Some(candidate);
            }
            let pos = candidate.rfind('/')?;
            candidate.replace_range(pos..=pos, "$");
        }
    }

    /// The source name of the class declaring a method `name` as seen from `owner`, by
    /// name alone (for callees named without parameters).
    fn declaring_by_name(&mut self, owner: &str, name: &str) -> Option<String> {
        let mut order = Vec::new();
        let mut cur = Some(owner.to_string());
        while let Some(c) = cur.take() {
            let info = self.get(&c)?;
            if info.methods.iter().any(|m| m.name == name && !m.synthetic) {
                return Some(info.fqn);
            }
            cur = info.superclass.clone();
            order.push(info);
        }
        let mut queue: std::collections::VecDeque<String> =
            order.iter().flat_map(|c| c.interfaces.clone()).collect();
        let mut seen = HashSet::new();
        while let Some(i) = queue.pop_front() {
            if !seen.insert(i.clone()) {
                continue;
            }
            let Some(info) = self.get(&i) else { continue };
            if info.methods.iter().any(|m| m.name == name && !m.synthetic) {
                return Some(info.fqn);
            }
            queue.extend(info.interfaces.clone());
        }
        let object = self.get("java/lang/Object")?;
        object
            .methods
            .iter()
            .any(|m| m.name == name)
            .then_some(object.fqn)
    }

    /// A JDK callee named at the receiver's type (`java.util.List.stream`), renamed to the
    /// type that declares it (`java.util.Collection.stream`); `None` if it already is.
    pub(crate) fn declaring_fqn(&mut self, callee_fqn: &str) -> Option<String> {
        let (type_fqn, name) = callee_fqn.rsplit_once('.')?;
        let internal = self.internal_of(type_fqn)?;
        let decl = self.declaring_by_name(&internal, name)?;
        (decl != type_fqn).then(|| format!("{decl}.{name}"))
    }
}

/// semgraph's fqn of a class from its InnerClasses entries: members with `.`, local
/// classes as members of the enclosing class, anonymous classes `Enclosing$N`.
fn source_name(
    internal: &str,
    inner: &[(String, Option<String>, Option<String>, InnerClassAccessFlags)],
) -> String {
    match inner.iter().find(|(i, ..)| i == internal) {
        Some((_, Some(outer), Some(name), _)) => format!("{}.{name}", source_name(outer, inner)),
        _ => internal.replace('/', "."),
    }
}

fn jdk_index(jmods: &Path) -> HashMap<String, (PathBuf, String)> {
    let mut out = HashMap::new();
    let Ok(entries) = std::fs::read_dir(jmods) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_none_or(|x| x != "jmod") {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Ok(zip) = zip::ZipArchive::new(std::io::Cursor::new(&bytes[4..])) else {
            continue;
        };
        for name in zip.file_names() {
            let Ok(name) = name else { continue };
            if let Some(class) = name
                .strip_prefix("classes/")
                .and_then(|n| n.strip_suffix(".class"))
            {
                out.entry(class.to_string())
                    .or_insert((path.clone(), name.to_string()));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Compiling and reading the corpus

/// Every `.java` file under `root`.
pub(crate) fn java_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "java") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Compiles `sources` into `classes` with javac (`-g -parameters`, Java 17).
pub(crate) fn compile(sources: &[PathBuf], classes: &Path) -> Result<(), String> {
    std::fs::create_dir_all(classes).map_err(|e| e.to_string())?;
    let list = classes.join("sources.txt");
    let text: Vec<String> = sources.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(&list, text.join("\n")).map_err(|e| e.to_string())?;
    let out = Command::new("javac")
        .args([
            "--release",
            "17",
            "-g",
            "-parameters",
            "-proc:none",
            "-nowarn",
            "-encoding",
            "UTF-8",
            "-d",
        ])
        .arg(classes)
        .arg(format!("@{}", list.display()))
        .output()
        .map_err(|e| format!("javac: {e}"))?;
    if !out.status.success() {
        return Err(format!("javac failed:\n{}", String::from_utf8_lossy(&out.stderr)));
    }
    Ok(())
}

fn class_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "class") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One invoke read from a method's code, before targets are moved to their declaring class.
struct RawCall {
    owner: String,
    name: String,
    descriptor: String,
    shape: CallShape,
    line: u32,
    /// The previous call on the same line: (owner, return type's class).
    previous_return: Option<String>,
}

struct RawMethod {
    class: String,
    name: String,
    descriptor: String,
    synthetic: bool,
    calls: Vec<RawCall>,
    /// Lambda bodies this method's invokedynamics point at: (class, name, descriptor).
    lambdas: Vec<(String, String, String)>,
}

fn line_at(lines: &[(u16, u16)], pc: usize) -> u32 {
    let mut best = 0;
    for &(start, line) in lines {
        if start as usize <= pc {
            best = line as u32;
        }
    }
    best
}

fn return_class(descriptor: &str) -> Option<String> {
    let ret = descriptor.rsplit(')').next()?;
    ret.strip_prefix('L')?.strip_suffix(';').map(str::to_string)
}

fn read_code(bytes: &[u8]) -> Vec<RawMethod> {
    let Ok(cf) = cafebabe::parse_class(bytes) else {
        return Vec::new();
    };
    let internal = cf.this_class.to_string();
    let bootstrap: Vec<&cafebabe::attributes::BootstrapMethodEntry<'_>> = cf
        .attributes
        .iter()
        .filter_map(|a| match &a.data {
            AttributeData::BootstrapMethods(b) => Some(b),
            _ => None,
        })
        .flatten()
        .collect();
    let mut out = Vec::new();
    for m in &cf.methods {
        let mut raw = RawMethod {
            class: internal.clone(),
            name: m.name.to_string(),
            descriptor: m.descriptor.to_string(),
            synthetic: m
                .access_flags
                .intersects(MethodAccessFlags::SYNTHETIC | MethodAccessFlags::BRIDGE),
            calls: Vec::new(),
            lambdas: Vec::new(),
        };
        let Some(code) = m.attributes.iter().find_map(|a| match &a.data {
            AttributeData::Code(c) => Some(c),
            _ => None,
        }) else {
            out.push(raw);
            continue;
        };
        let lines: Vec<(u16, u16)> = code
            .attributes
            .iter()
            .filter_map(|a| match &a.data {
                AttributeData::LineNumberTable(t) => Some(t),
                _ => None,
            })
            .flatten()
            .map(|e| (e.start_pc, e.line_number))
            .collect();
        let Some(bc) = &code.bytecode else {
            out.push(raw);
            continue;
        };
        let mut previous: Option<(u32, String)> = None;
        // Which `new X` each `invokespecial X.<init>` belongs to: a stack of pending news.
        let mut pending_new: Vec<String> = Vec::new();
        for (pc, op) in &bc.opcodes {
            let line = line_at(&lines, *pc);
            let mut push =
                |mr: &MemberRef<'_>, kind: u8, raw: &mut RawMethod, previous: &mut Option<(u32, String)>| {
                    let name = mr.name_and_type.name.to_string();
                    let descriptor = mr.name_and_type.descriptor.to_string();
                    let owner = mr.class_name.to_string();
                    let shape = if name == "<init>" && kind == b's' {
                        match pending_new.iter().rposition(|n| *n == owner) {
                            Some(pos) => {
                                pending_new.remove(pos);
                                CallShape::New
                            }
                            None if raw.name == "<init>" && owner == internal => CallShape::ThisCall,
                            None => CallShape::SuperCall,
                        }
                    } else {
                        CallShape::Method
                    };
                    let previous_return = previous
                        .as_ref()
                        .filter(|(l, _)| *l == line)
                        .map(|(_, r)| r.clone());
                    raw.calls.push(RawCall {
                        owner,
                        name,
                        descriptor: descriptor.clone(),
                        shape,
                        line,
                        previous_return,
                    });
                    *previous = return_class(&descriptor).map(|r| (line, r));
                };
            match op {
                Opcode::New(c) => pending_new.push(c.to_string()),
                Opcode::Invokevirtual(mr) | Opcode::Invokestatic(mr) => {
                    push(mr, b'v', &mut raw, &mut previous)
                }
                Opcode::Invokeinterface(mr, _) => push(mr, b'v', &mut raw, &mut previous),
                Opcode::Invokespecial(mr) => push(mr, b's', &mut raw, &mut previous),
                Opcode::Invokedynamic(indy) => {
                    let Some(entry) = bootstrap.get(indy.attr_index as usize) else {
                        continue;
                    };
                    if &*entry.method.class_name != "java/lang/invoke/LambdaMetafactory" {
                        continue;
                    }
                    let Some(BootstrapArgument::MethodHandle(h)) = entry.arguments.get(1) else {
                        continue;
                    };
                    let owner = h.class_name.to_string();
                    let name = h.member_ref.name.to_string();
                    let descriptor = h.member_ref.descriptor.to_string();
                    if name.starts_with("lambda$") && owner == internal {
                        raw.lambdas.push((owner, name, descriptor));
                        continue;
                    }
                    let _ = matches!(h.kind, ReferenceKind::NewInvokeSpecial);
                    raw.calls.push(RawCall {
                        owner,
                        name,
                        descriptor,
                        shape: CallShape::MethodRef,
                        line,
                        previous_return: None,
                    });
                    previous = None;
                }
                _ => {}
            }
        }
        out.push(raw);
    }
    out
}

/// Whether the source writes the call at `line`: the callee's name, or for a
/// constructor `new`/`this`/`super`/the class name, followed by `(` — or `::name`.
fn written_at(source: &[&str], line: u32, name: &str, class_simple: &str, shape: CallShape) -> bool {
    if shape == CallShape::MethodRef {
        // javac gives an invokedynamic the line of the call or statement before it.
        let from = (line as usize).saturating_sub(1);
        return source
            .iter()
            .skip(from)
            .take(12)
            .any(|text| text.contains(&format!("::{name}")) || (name == "<init>" && text.contains("::new")));
    }
    let Some(text) = source.get((line as usize).wrapping_sub(1)) else {
        return false;
    };
    let has_call = |word: &str, text: &str| {
        let mut from = 0;
        while let Some(pos) = text[from..].find(word) {
            let at = from + pos;
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].trim_start();
            let boundary = before.is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '$'));
            if boundary
                && (after.starts_with('(') || after.starts_with('<') || text[..at].trim_end().ends_with("::"))
            {
                return true;
            }
            from = at + word.len();
        }
        false
    };
    match shape {
        CallShape::MethodRef => {
            text.contains(&format!("::{name}")) || (name == "<init>" && text.contains("::new"))
        }
        CallShape::New | CallShape::AnonymousNew => {
            // javac gives a constructor call the line its arguments end on.
            let from = (line as usize).saturating_sub(16);
            let to = line as usize;
            source[from.min(to)..to.min(source.len())]
                .iter()
                .any(|t| t.contains("new ") && t.contains(class_simple))
        }
        CallShape::ThisCall => has_call("this", text),
        CallShape::SuperCall => has_call("super", text),
        CallShape::Method => {
            if name == "<init>" {
                has_call(class_simple, text)
            } else {
                has_call(name, text)
            }
        }
    }
}

/// The compiled calls of a corpus: every edge javac compiled that the source writes.
pub(crate) fn oracle_calls(
    root: &Path,
    classes_dir: &Path,
    jmods: &Path,
) -> (Vec<OracleCall>, usize, Classes) {
    let files = class_files(classes_dir);
    let mut bytes: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for f in &files {
        if let Ok(b) = std::fs::read(f) {
            bytes.push((f.clone(), b));
        }
    }
    // semgraph names for corpus classes, from every class's InnerClasses and EnclosingMethod.
    let mut inner_all: Vec<(String, Option<String>, Option<String>, InnerClassAccessFlags)> = Vec::new();
    let mut enclosing: HashMap<String, String> = HashMap::new();
    for (_, b) in &bytes {
        let mut opts = ParseOptions::default();
        opts.parse_bytecode(false);
        let Ok(cf) = cafebabe::parse_class_with_options(b, &opts) else {
            continue;
        };
        inner_all.extend(inner_classes(&cf.attributes));
        for a in &cf.attributes {
            if let AttributeData::EnclosingMethod { class_name, .. } = &a.data {
                enclosing.insert(cf.this_class.to_string(), class_name.to_string());
            }
        }
    }
    let mut names: HashMap<String, String> = HashMap::new();
    fn sg_name(
        internal: &str,
        inner: &[(String, Option<String>, Option<String>, InnerClassAccessFlags)],
        enclosing: &HashMap<String, String>,
        depth: usize,
    ) -> String {
        if depth > 32 {
            return internal.replace('/', ".");
        }
        match inner.iter().find(|(i, ..)| i == internal) {
            Some((_, Some(outer), Some(name), _)) => {
                format!("{}.{name}", sg_name(outer, inner, enclosing, depth + 1))
            }
            Some((_, None, Some(name), _)) => match enclosing.get(internal) {
                Some(e) => format!("{}.{name}", sg_name(e, inner, enclosing, depth + 1)),
                None => internal.replace('/', "."),
            },
            Some((_, None, None, _)) => {
                let n = internal.rsplit('$').next().unwrap_or("");
                match enclosing.get(internal) {
                    Some(e) => format!("{}${n}", sg_name(e, inner, enclosing, depth + 1)),
                    None => internal.replace('/', "."),
                }
            }
            _ => internal.replace('/', "."),
        }
    }
    let mut corpus = HashMap::new();
    let mut code: Vec<RawMethod> = Vec::new();
    let mut synthetic_classes = HashSet::new();
    for (_, b) in &bytes {
        let mut opts = ParseOptions::default();
        opts.parse_bytecode(false);
        let Ok(cf) = cafebabe::parse_class_with_options(b, &opts) else {
            continue;
        };
        let internal = cf.this_class.to_string();
        if cf.access_flags.contains(ClassAccessFlags::SYNTHETIC) {
            synthetic_classes.insert(internal.clone());
        }
        names.insert(internal.clone(), sg_name(&internal, &inner_all, &enclosing, 0));
    }
    for (_, b) in &bytes {
        if let Some(info) = class_info(b, &names) {
            if !synthetic_classes.contains(&info.internal) {
                code.extend(read_code(b));
            }
            corpus.insert(info.internal.clone(), info);
        }
    }
    let mut classes = Classes {
        corpus,
        jdk_index: jdk_index(jmods),
        jdk: HashMap::new(),
        jmod_bytes: HashMap::new(),
    };

    // Lambda bodies: which method holds each one (following lambdas in lambdas).
    let mut lambda_owner: HashMap<(String, String, String), (String, String, String)> = HashMap::new();
    for m in &code {
        for l in &m.lambdas {
            lambda_owner.insert(l.clone(), (m.class.clone(), m.name.clone(), m.descriptor.clone()));
        }
    }
    let holder = |key: &(String, String, String)| -> (String, String, String) {
        let mut k = key.clone();
        for _ in 0..32 {
            match lambda_owner.get(&k) {
                Some(o) => k = o.clone(),
                None => break,
            }
        }
        k
    };
    // Anonymous classes' constructors: the superclass constructor each calls.
    let mut anon_super: HashMap<(String, String), Option<(String, String)>> = HashMap::new();
    for m in &code {
        if m.name == "<init>" && classes.corpus.get(&m.class).is_some_and(|c| c.anonymous) {
            let sup = m
                .calls
                .iter()
                .find(|c| c.shape == CallShape::SuperCall)
                .map(|c| (c.owner.clone(), c.descriptor.clone()));
            anon_super.insert((m.class.clone(), m.descriptor.clone()), sup);
        }
    }

    let mut sources: HashMap<String, Vec<String>> = HashMap::new();
    let mut out = Vec::new();
    let mut inserted = 0;
    for m in &code {
        let is_lambda = m.name.starts_with("lambda$") && m.synthetic;
        if m.synthetic && !is_lambda {
            continue;
        }
        // Anonymous class constructors are not callers: their only call is the super one.
        if m.name == "<init>" && classes.corpus.get(&m.class).is_some_and(|c| c.anonymous) {
            continue;
        }
        let (cclass, cname, cdesc) = if is_lambda {
            holder(&(m.class.clone(), m.name.clone(), m.descriptor.clone()))
        } else {
            (m.class.clone(), m.name.clone(), m.descriptor.clone())
        };
        let Some(caller_class) = classes.corpus.get(&cclass).cloned() else {
            continue;
        };
        let Some(caller_meta) = caller_class
            .methods
            .iter()
            .find(|x| x.name == cname && x.descriptor == cdesc)
            .cloned()
        else {
            continue;
        };
        let caller = MethodId {
            fqn: format!("{}.{}", caller_class.fqn, cname),
            params: Some(caller_meta.params.clone()),
        };
        let file = source_path(&caller_class);
        let text = sources.entry(file.clone()).or_insert_with(|| {
            std::fs::read_to_string(root.join(&file))
                .map(|t| t.lines().map(str::to_string).collect())
                .unwrap_or_default()
        });
        let lines: Vec<&str> = text.iter().map(String::as_str).collect();
        for c in &m.calls {
            if c.owner.starts_with('[') {
                continue;
            }
            let mut shape = c.shape;
            let (mut owner, mut name, mut descriptor) =
                (c.owner.clone(), c.name.clone(), c.descriptor.clone());
            if name == "<init>" && classes.corpus.get(&owner).is_some_and(|k| k.anonymous) {
                // `new X(..) { … }`: the constructor of X the anonymous class calls.
                match anon_super
                    .get(&(owner.clone(), descriptor.clone()))
                    .cloned()
                    .flatten()
                {
                    Some((o, d)) if o != "java/lang/Object" => {
                        owner = o;
                        descriptor = d;
                        shape = CallShape::AnonymousNew;
                    }
                    _ => continue,
                }
            }
            if synthetic_classes.contains(&owner) {
                continue;
            }
            let Some((decl, meta)) = classes.declaring(&owner, &name, &descriptor) else {
                continue;
            };
            if meta.synthetic {
                continue;
            }
            let simple_class = decl.fqn.rsplit(['.', '$']).next().unwrap_or("").to_string();
            if !written_at(&lines, c.line, &name, &simple_class, shape) {
                inserted += 1;
                continue;
            }
            let external = !classes.corpus.contains_key(&decl.internal);
            let overloaded = decl
                .methods
                .iter()
                .filter(|x| x.name == name && x.arity == meta.arity && !x.synthetic)
                .count()
                > 1;
            let chained_on = c
                .previous_return
                .as_ref()
                .filter(|r| **r == owner)
                .map(|r| !classes.corpus.contains_key(r));
            name = meta.name.clone();
            out.push(OracleCall {
                caller: caller.clone(),
                callee: MethodId {
                    fqn: format!("{}.{}", decl.fqn, name),
                    params: Some(meta.params.clone()),
                },
                external,
                shape,
                in_lambda: is_lambda,
                file: file.clone(),
                line: c.line,
                chained_on,
                overloaded,
            });
        }
    }
    (out, inserted, classes)
}

fn source_path(c: &ClassInfo) -> String {
    let pkg = c.internal.rsplit_once('/').map_or("", |(p, _)| p);
    let file = c.source_file.clone().unwrap_or_default();
    if pkg.is_empty() {
        file
    } else {
        format!("{pkg}/{file}")
    }
}

// ---------------------------------------------------------------------------------------
// semgraph's side

/// A semgraph Calls edge.
pub(crate) struct SemgraphCall {
    pub(crate) caller: MethodId,
    pub(crate) callee: MethodId,
    pub(crate) external: bool,
}

/// Indexes `root` as one product into a store under `work` and reads its Calls edges,
/// with each caller's line span.
pub(crate) fn semgraph_calls(
    root: &Path,
    work: &Path,
) -> (Vec<SemgraphCall>, HashMap<MethodId, (u32, u32)>, bool) {
    let store_dir = work.join("store");
    let company = Company::from_paths(&[root.to_path_buf()], Some(store_dir.clone()))
        .expect("a company of one product");
    let store = Store::open(&store_dir).expect("store");
    for product in &company.products {
        index_product(&store, &company, product, &NoProgress).expect("indexes");
    }
    let snap = store.snapshot();
    let adj = snap.adjacency();
    let mut spans = HashMap::new();
    let mut out = Vec::new();
    let mut external_signatures = false;
    let id_of = |n: &semgraph_storage::Node| MethodId {
        fqn: n.display_name().to_string(),
        params: n.attr("signature").and_then(|s| {
            s.find('(')
                .map(|p| s[p + 1..s.len().saturating_sub(1)].to_string())
        }),
    };
    for product in snap.products() {
        let ids: Vec<NodeId> = snap
            .product_nodes_of_kind(&product.name, NodeKind::Method)
            .iter()
            .map(NodeId)
            .collect();
        let methods = snap.nodes(&ids).expect("nodes");
        for m in methods.into_iter().flatten() {
            if m.flags.contains(NodeFlags::EXTERNAL) {
                external_signatures |= m.attr("signature").is_some();
                continue;
            }
            let caller = id_of(&m);
            spans.insert(
                caller.clone(),
                m.span.map_or((0, u32::MAX), |s| (s.start_line, s.end_line)),
            );
            let callee_ids: Vec<NodeId> = adj.neighbors(m.id, Direction::Out, EdgeKind::Calls).collect();
            for c in snap.nodes(&callee_ids).expect("callees").into_iter().flatten() {
                if c.kind != NodeKind::Method {
                    continue;
                }
                out.push(SemgraphCall {
                    caller: caller.clone(),
                    callee: id_of(&c),
                    external: c.flags.contains(NodeFlags::EXTERNAL),
                });
            }
        }
    }
    (out, spans, external_signatures)
}

// ---------------------------------------------------------------------------------------
// The comparison

/// Compiles, reads, indexes and compares `root`; `jmods` is the JDK's jmods folder.
pub(crate) fn run(root: &Path, jmods: &Path, work: &Path) -> Result<OracleReport, String> {
    let sources = java_files(root);
    let java_lines = sources
        .iter()
        .map(|p| std::fs::read_to_string(p).map(|t| t.lines().count()).unwrap_or(0))
        .sum();
    let classes = work.join("classes");
    compile(&sources, &classes)?;
    let (oracle, inserted, mut class_index) = oracle_calls(root, &classes, jmods);
    let (mut semgraph, spans, external_signatures) = semgraph_calls(root, work);
    // A JDK callee semgraph names at the receiver's type is the same method as the one
    // its supertype declares: rename it, and count how often that was needed.
    let mut renamed = 0;
    for c in semgraph.iter_mut().filter(|c| c.external) {
        if let Some(decl) = class_index.declaring_fqn(&c.callee.fqn) {
            c.callee.fqn = decl;
            renamed += 1;
        }
    }
    let mut report = compare(&oracle, &semgraph, &spans, external_signatures);
    report.renamed_external = renamed;
    report.compiler_inserted = inserted;
    report.java_files = sources.len();
    report.java_lines = java_lines;
    Ok(report)
}

/// The edge key both sides are compared by.
fn key(
    caller: &MethodId,
    callee: &MethodId,
    external: bool,
    name_level_external: bool,
) -> (MethodId, MethodId) {
    let callee = if external && name_level_external {
        MethodId {
            fqn: callee.fqn.clone(),
            params: None,
        }
    } else {
        callee.clone()
    };
    (caller.clone(), callee)
}

pub(crate) fn compare(
    oracle: &[OracleCall],
    semgraph: &[SemgraphCall],
    spans: &HashMap<MethodId, (u32, u32)>,
    external_signatures: bool,
) -> OracleReport {
    let name_level = !external_signatures;
    let mut report = OracleReport {
        name_level_external: name_level,
        ..OracleReport::default()
    };
    let s_keys: HashSet<(MethodId, MethodId)> = semgraph
        .iter()
        .map(|c| key(&c.caller, &c.callee, c.external, name_level))
        .collect();
    // Oracle edges, deduplicated by key, first call kept for its description.
    let mut o_edges: BTreeMap<(MethodId, MethodId), &OracleCall> = BTreeMap::new();
    for c in oracle {
        if !spans.contains_key(&c.caller) {
            let kind = if c.caller.fqn.ends_with(".<clinit>") {
                "static initializer"
            } else if c.caller.fqn.ends_with(".<init>") {
                "implicit constructor"
            } else {
                "method with no node"
            };
            *report.uncounted_callers.entry(kind.to_string()).or_default() += 1;
            continue;
        }
        o_edges
            .entry(key(&c.caller, &c.callee, c.external, name_level))
            .or_insert(c);
    }
    let o_keys: HashSet<(MethodId, MethodId)> = o_edges.keys().cloned().collect();
    let s_by_caller_fqn: HashSet<(MethodId, String)> =
        s_keys.iter().map(|(a, b)| (a.clone(), b.fqn.clone())).collect();
    let o_by_caller_fqn: HashSet<(MethodId, String)> =
        o_keys.iter().map(|(a, b)| (a.clone(), b.fqn.clone())).collect();
    report.oracle_edges = o_edges.len();
    for (k, c) in &o_edges {
        if s_keys.contains(k) {
            report.matched += 1;
            continue;
        }
        let span = spans.get(&c.caller).copied().unwrap_or((0, u32::MAX));
        let kind = if c.line < span.0 || c.line > span.1 {
            "field or instance initializer"
        } else {
            match c.shape {
                CallShape::New => "constructor: new",
                CallShape::ThisCall => "constructor: this(..)",
                CallShape::SuperCall => "constructor: super(..)",
                CallShape::AnonymousNew => "constructor: anonymous class",
                CallShape::MethodRef => "method reference",
                CallShape::Method if s_by_caller_fqn.contains(&(c.caller.clone(), c.callee.fqn.clone())) => {
                    "overload: another one chosen"
                }
                CallShape::Method if c.in_lambda => "in a lambda body",
                CallShape::Method if c.chained_on == Some(true) => "chained: on the result of a JDK call",
                CallShape::Method if c.chained_on == Some(false) => "chained: on the result of a corpus call",
                CallShape::Method if c.overloaded => "overload: not told apart",
                CallShape::Method if c.external => "JDK method: other",
                CallShape::Method => "corpus method: other",
            }
        };
        *report.misses.entry(kind.to_string()).or_default() += 1;
        if report.first_misses.len() < 40 {
            report
                .first_misses
                .push(format!("[{kind}] {}:{} {} → {}", c.file, c.line, k.0, k.1));
        }
    }
    let mut s_sorted: Vec<&(MethodId, MethodId)> = s_keys.iter().collect();
    s_sorted.sort();
    report.semgraph_edges = s_keys.len();
    for k in s_sorted {
        if o_keys.contains(k) {
            continue;
        }
        if !o_edges.keys().any(|(a, _)| *a == k.0)
            && !oracle.iter().any(|c| c.caller == k.0)
            && !spans.contains_key(&k.0)
        {
            continue;
        }
        let kind = if o_by_caller_fqn.contains(&(k.0.clone(), k.1.fqn.clone())) {
            "wrong overload"
        } else {
            "no such call compiled"
        };
        *report.wrong.entry(kind.to_string()).or_default() += 1;
        if report.first_wrong.len() < 40 {
            report.first_wrong.push(format!("[{kind}] {} → {}", k.0, k.1));
        }
    }
    report
}

/// The set of distinct callee kinds in an oracle run, for tests of the harness itself.
pub(crate) fn shapes(calls: &[OracleCall]) -> BTreeSet<CallShape> {
    calls.iter().map(|c| c.shape).collect()
}
