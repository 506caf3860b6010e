//! Which files' resolved calls still hold after some declarations of the product changed.
//!
//! A file's calls are resolved against the declarations of every file of its product (the
//! symbol table and the type model, `resolve/`), and the resolver reaches another file's
//! declarations only by *name*: a name written in the file (a type, a method, a field, an
//! import), or a name written in a declaration it reached so (a method's return type, a
//! field's type, a supertype), and so on. So when the declarations of some files change, a
//! file whose text mentions none of the names whose meaning changed resolves exactly as it
//! did, and its calls are kept. This is the name hashing of incremental compilers, kept
//! conservative:
//!
//! - a member added, removed or changed (signature, modifiers, annotations, return values)
//!   changes its name and its accessor spellings (`getX`/`setX`/`isX` and the property
//!   `x`, which Kotlin and Lombok trade); a constructor, or a member of an interface that
//!   may type a lambda (fewer than two abstract methods), changes its type's simple name;
//! - a type added or removed changes its simple name and every member name it has;
//! - meaning spreads to a fixpoint: a member whose signature mentions a changed name
//!   changes its own name, a type whose supertypes mention one its own, and a member
//!   whose type is not written (inferred from its initializer or body) its own when its
//!   file mentions one;
//! - whatever this cannot follow by name re-resolves everything: a type's kind, modifiers,
//!   annotations, supertypes or type parameters changing; the imports or package of a
//!   file whose types have supertypes; a Kotlin file's declarations; a name declared by
//!   two files; a changed name the resolver looks up without its being written (an
//!   enhanced `for` asks for `iterator`); and (in `pipeline.rs`) a change of build,
//!   dependencies, Java release or a file's module.
//!
//! Kotlin files are resolved through operator and property conventions that name a
//! method without writing it (`a[i]` is `get`, `for` is `iterator`, `val (a, b)` is
//! `component1`): when one of those names changes, every Kotlin file resolves again.
//!
//! This module is pure: it compares skeletons and scans texts; the pipeline reads the
//! previous run's index and the old skeletons, and decides which cached calls it reads.

use std::collections::{HashMap, HashSet};

use semgraph_storage::FactsDigest;

use crate::facts::{CodeFile, Language, TypeDecl, TypeKind};

/// What one run resolved each code file's calls under, kept in the facts cache for the
/// next run of the same repository (`cache::calls_index_key`).
#[derive(bincode::Encode, bincode::Decode, Debug, Default, PartialEq, Eq)]
pub(crate) struct CallsIndex {
    /// The digest of what resolution reads besides the files' declarations
    /// (`cache::resolution_global`): another one, and nothing of this index holds.
    pub(crate) global: FactsDigest,
    /// Every code file the run read, in the run's order.
    pub(crate) files: Vec<IndexedFile>,
}

/// One code file of a [`CallsIndex`].
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexedFile {
    pub(crate) path: String,
    /// The key of its facts (and, through `cache::skeleton_digest`, of its skeleton).
    pub(crate) facts: FactsDigest,
    /// The module it was in.
    pub(crate) module: Option<String>,
    /// The cache key its resolved calls are under; `None` for a file that was not resolved
    /// (over its parse budget).
    pub(crate) calls: Option<FactsDigest>,
}

/// What a change of declarations asks to resolve again.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Invalidation {
    /// Every file: the change is one names cannot follow (the reason, for tests and logs).
    All(String),
    /// The files whose text mentions one of `names`, and every Kotlin file when
    /// `kotlin` (a name Kotlin calls by convention changed).
    Mentioning { names: HashSet<String>, kotlin: bool },
}

/// Names the Java resolver looks up without the file writing them.
const JAVA_IMPLICIT: &[&str] = &["iterator", "hasNext", "next"];

/// Names Kotlin calls by convention (operators, destructuring, delegation, `for`,
/// `invoke`), besides [`JAVA_IMPLICIT`]; any `componentN` too.
const KOTLIN_IMPLICIT: &[&str] = &[
    "get",
    "set",
    "invoke",
    "contains",
    "plus",
    "minus",
    "times",
    "div",
    "rem",
    "mod",
    "rangeTo",
    "rangeUntil",
    "compareTo",
    "equals",
    "hashCode",
    "toString",
    "unaryPlus",
    "unaryMinus",
    "not",
    "inc",
    "dec",
    "plusAssign",
    "minusAssign",
    "timesAssign",
    "divAssign",
    "remAssign",
    "getValue",
    "setValue",
    "provideDelegate",
];

/// What changed between the declarations of the files whose declarations changed:
/// `changed` pairs each such path's skeleton before (`None`: the file is new) with its
/// skeleton now (`None`: the file is gone); `now` is every skeleton of the product now;
/// `text_of` gives a file's text by path (read only for a file declaring a member whose
/// type is not written).
pub(crate) fn invalidation<'a>(
    changed: &[(Option<&'a CodeFile>, Option<&'a CodeFile>)],
    now: &[CodeFile],
    text_of: &dyn Fn(&str) -> Option<String>,
) -> Invalidation {
    let mut names: HashSet<String> = HashSet::new();
    for (before, after) in changed {
        if let Some(reason) = file_level(*before, *after, &mut names) {
            return Invalidation::All(reason);
        }
    }
    // The types the changed files declared and declare, by name.
    let declared =
        |side: &mut dyn Iterator<Item = &'a CodeFile>| -> Result<HashMap<&'a str, &'a TypeDecl>, String> {
            let mut types: HashMap<&str, &TypeDecl> = HashMap::new();
            for file in side {
                for t in file.types.iter().filter(|t| !t.anonymous) {
                    if types.insert(&t.fqn, t).is_some() {
                        return Err(format!("{} is declared twice", t.fqn));
                    }
                }
            }
            Ok(types)
        };
    let before = match declared(&mut changed.iter().filter_map(|(b, _)| *b)) {
        Ok(types) => types,
        Err(reason) => return Invalidation::All(reason),
    };
    let after = match declared(&mut changed.iter().filter_map(|(_, a)| *a)) {
        Ok(types) => types,
        Err(reason) => return Invalidation::All(reason),
    };
    // A name another file declares too: which one the table keeps depends on the order.
    let changed_paths: HashSet<&str> = changed
        .iter()
        .filter_map(|(b, a)| a.or(*b).map(|f| f.path.as_str()))
        .collect();
    for file in now.iter().filter(|f| !changed_paths.contains(f.path.as_str())) {
        for t in file.types.iter().filter(|t| !t.anonymous) {
            if before.contains_key(t.fqn.as_str()) || after.contains_key(t.fqn.as_str()) {
                return Invalidation::All(format!("{} is declared by another file too", t.fqn));
            }
        }
    }
    let mut fqns: Vec<&str> = before.keys().chain(after.keys()).copied().collect();
    fqns.sort_unstable();
    fqns.dedup();
    for fqn in fqns {
        match (before.get(fqn).copied(), after.get(fqn).copied()) {
            (Some(t), None) | (None, Some(t)) => add_type(t, &mut names),
            (Some(b), Some(a)) => {
                if header(b) != header(a) {
                    return Invalidation::All(format!(
                        "the kind, modifiers, annotations, type parameters or supertypes of {fqn} changed"
                    ));
                }
                let members = changed_members(b, a);
                // The type's own name too where a file may reach its members without
                // naming them: a constructor is called by the type's name, and an
                // interface with one abstract method types the lambdas passed as it.
                let reached_unnamed =
                    members.contains("<init>") || may_be_functional(b) || may_be_functional(a);
                if !members.is_empty() && reached_unnamed {
                    names.insert(a.name.clone());
                }
                names.extend(members);
            }
            (None, None) => {}
        }
    }
    if names.is_empty() {
        return Invalidation::Mentioning { names, kotlin: false };
    }
    spread(&mut names, now, text_of);
    // `<init>` is no name a file writes: a constructor is called by its type's name, which
    // a changed constructor put in already.
    names.remove("<init>");
    if let Some(odd) = names.iter().find(|n| !is_identifier(n)) {
        return Invalidation::All(format!("the name `{odd}` is not one a file writes"));
    }
    if let Some(implicit) = JAVA_IMPLICIT.iter().find(|n| names.contains(**n)) {
        return Invalidation::All(format!("`{implicit}` is looked up without being written"));
    }
    let kotlin = names
        .iter()
        .any(|n| KOTLIN_IMPLICIT.contains(&n.as_str()) || n.starts_with("component"));
    Invalidation::Mentioning { names, kotlin }
}

/// Compares what a changed path declares as a file (language, package, imports, facade,
/// whether it was parsed at all); adds the names an import change may rebind to `names`,
/// or says why everything must resolve again.
fn file_level(
    before: Option<&CodeFile>,
    after: Option<&CodeFile>,
    names: &mut HashSet<String>,
) -> Option<String> {
    for file in before.iter().chain(after.iter()) {
        if file.over_budget.is_some() {
            return Some(format!("{} was or is over its parse budget", file.path));
        }
    }
    for file in before.iter().chain(after.iter()) {
        if file.language == Language::Kotlin {
            return Some(format!(
                "the declarations of the Kotlin file {} changed",
                file.path
            ));
        }
        if file.facade.is_some() {
            return Some(format!("{} declares top-level functions", file.path));
        }
    }
    // Added or removed whole: its types are compared by name.
    let (Some(b), Some(a)) = (before, after) else {
        return None;
    };
    let imports = |f: &CodeFile| -> Vec<(String, bool, bool, Option<String>)> {
        f.imports
            .iter()
            .map(|i| (i.path.clone(), i.is_static, i.wildcard, i.alias.clone()))
            .collect()
    };
    if b.package != a.package || imports(b) != imports(a) {
        // Every name the file's declarations write may now mean another type.
        for file in [b, a] {
            for t in file.types.iter().filter(|t| !t.anonymous) {
                let bounded = t.type_param_bounds.iter().any(|b| !b.is_empty());
                if !t.extends.is_empty() || !t.implements.is_empty() || bounded {
                    return Some(format!(
                        "the imports or package of {} changed and {} has supertypes",
                        a.path, t.fqn
                    ));
                }
                add_type(t, names);
            }
        }
    }
    None
}

/// Every name a type added or removed takes with it: its own and its members'.
fn add_type(t: &TypeDecl, names: &mut HashSet<String>) {
    if t.anonymous {
        return;
    }
    names.insert(t.name.clone());
    names.extend(t.methods.iter().map(|m| m.name.clone()));
    names.extend(t.fields.iter().map(|f| f.name.clone()));
    names.extend(t.enum_constants.iter().cloned());
    names.extend(t.constants.iter().map(|(n, _)| n.clone()));
}

/// Whether a lambda or a method reference may be typed by `t`: an interface declaring
/// fewer than two abstract methods of distinct names (besides `Object`'s), so that with
/// those it inherits it may have exactly one.
fn may_be_functional(t: &TypeDecl) -> bool {
    if t.kind != TypeKind::Interface {
        return false;
    }
    let abstract_names: HashSet<&str> = t
        .methods
        .iter()
        .filter(|m| !m.has_body && !m.modifiers.iter().any(|x| x == "static" || x == "default"))
        .map(|m| m.name.as_str())
        .filter(|n| !matches!(*n, "equals" | "hashCode" | "toString"))
        .collect();
    abstract_names.len() < 2
}

/// What of a type is not a member: compared whole.
fn header(t: &TypeDecl) -> Vec<u8> {
    let mut h = t.clone();
    h.methods = Vec::new();
    h.fields = Vec::new();
    h.enum_constants = Vec::new();
    h.constants = Vec::new();
    h.field_inits = Vec::new();
    h.line_start = 0;
    h.line_end = 0;
    encode(&h)
}

/// The names of the members of a type that differ between `b` and `a` (each member
/// without positions or call sites, grouped by name).
fn changed_members(b: &TypeDecl, a: &TypeDecl) -> HashSet<String> {
    let members = |t: &TypeDecl| -> HashMap<String, Vec<Vec<u8>>> {
        let mut by_name: HashMap<String, Vec<Vec<u8>>> = HashMap::new();
        let stripped = strip(t);
        for m in &stripped.methods {
            by_name.entry(m.name.clone()).or_default().push(encode(m));
        }
        for f in &stripped.fields {
            by_name.entry(f.name.clone()).or_default().push(encode(f));
        }
        for c in &stripped.enum_constants {
            by_name
                .entry(c.clone())
                .or_default()
                .push(b"enum constant".to_vec());
        }
        for (name, value) in &stripped.constants {
            by_name
                .entry(name.clone())
                .or_default()
                .push(value.as_bytes().to_vec());
        }
        for (name, init) in &stripped.field_inits {
            by_name.entry(name.clone()).or_default().push(encode(init));
        }
        by_name
    };
    let (before, after) = (members(b), members(a));
    before
        .keys()
        .chain(after.keys())
        .filter(|n| before.get(*n) != after.get(*n))
        .cloned()
        .collect()
}

/// A type as the resolution context digests it (`cache::strip_to_declarations`).
fn strip(t: &TypeDecl) -> TypeDecl {
    let mut t = t.clone();
    super::cache::strip_to_declarations(&mut t);
    t
}

fn encode<T: bincode::Encode>(value: &T) -> Vec<u8> {
    bincode::encode_to_vec(value, bincode::config::standard()).unwrap_or_default()
}

/// Spreads a change to a fixpoint over every declaration of the product: a member whose
/// signature writes a changed name changes (with its accessor spellings), and so does a
/// type whose supertypes or bounds write one; a member whose type is not written (inferred
/// from what it is initialised with or returns, which its file writes) changes when its
/// file mentions a changed name. A type's members need not follow it: what it inherits is
/// reached by the inherited member's own name, which is in if it changed.
fn spread(names: &mut HashSet<String>, now: &[CodeFile], text_of: &dyn Fn(&str) -> Option<String>) {
    with_accessors(names);
    let untyped = |m: &crate::facts::MethodDecl| {
        m.name != "<init>" && m.return_type.as_deref().is_none_or(str::is_empty)
    };
    // The words of each file declaring a member whose type is not written; `None` for a
    // file that cannot be read (its members change with any change).
    let words: HashMap<&str, Option<Vec<String>>> = now
        .iter()
        .filter(|f| {
            f.types
                .iter()
                .any(|t| t.methods.iter().any(untyped) || t.fields.iter().any(|f| f.ty.is_empty()))
        })
        .map(|f| {
            let words = text_of(&f.path).map(|text| {
                let mut words: Vec<String> = identifiers(&text).map(str::to_string).collect();
                words.sort_unstable();
                words.dedup();
                words
            });
            (f.path.as_str(), words)
        })
        .collect();
    const ANY: &str = "";
    // Each declaration and the names it writes, once (every word of its file for one whose
    // type is inferred; the empty name, always in, for a file that could not be read).
    struct Decl<'a> {
        name: &'a str,
        writes: Vec<&'a str>,
    }
    let inferred = |path: &str| -> Vec<&str> {
        match words.get(path) {
            Some(Some(words)) => words.iter().map(String::as_str).collect(),
            _ => vec![ANY],
        }
    };
    let mut decls: Vec<Decl<'_>> = Vec::new();
    for (file, t) in now
        .iter()
        .flat_map(|f| f.types.iter().map(move |t| (f, t)))
        .filter(|(_, t)| !t.anonymous)
    {
        let header: Vec<&str> = t
            .extends
            .iter()
            .chain(&t.implements)
            .chain(t.type_param_bounds.iter().flatten())
            .flat_map(|w| identifiers(w))
            .collect();
        decls.push(Decl {
            name: &t.name,
            writes: header,
        });
        for m in &t.methods {
            let mut writes: Vec<&str> = m
                .return_type
                .iter()
                .chain(m.params.iter().map(|p| &p.ty))
                .chain(m.type_params.iter().flat_map(|(_, bounds)| bounds))
                .flat_map(|w| identifiers(w))
                .collect();
            if untyped(m) {
                writes.extend(inferred(&file.path));
            }
            // A constructor is called by its type's name.
            let name = if m.name == "<init>" { &t.name } else { &m.name };
            decls.push(Decl { name, writes });
        }
        for f in &t.fields {
            let mut writes: Vec<&str> = identifiers(&f.ty).collect();
            if f.ty.is_empty() {
                writes.extend(inferred(&file.path));
            }
            decls.push(Decl {
                name: &f.name,
                writes,
            });
        }
    }
    let mut done = vec![false; decls.len()];
    loop {
        let mut grew = false;
        for (d, done) in decls.iter().zip(done.iter_mut()) {
            if *done || !d.writes.iter().any(|w| *w == ANY || names.contains(*w)) {
                continue;
            }
            *done = true;
            let mut added = HashSet::new();
            added.insert(d.name.to_string());
            with_accessors(&mut added);
            for n in added {
                grew |= names.insert(n);
            }
        }
        if !grew {
            break;
        }
    }
}

/// Adds each name's accessor spellings: a property `x` is called as `getX`, `isX`, `setX`
/// from Java, and a getter `getX` as the property `x` from Kotlin (and Lombok generates
/// the one from the other).
fn with_accessors(names: &mut HashSet<String>) {
    let mut more = Vec::new();
    for n in names.iter().filter(|n| is_identifier(n)) {
        let property = ["get", "set", "is"].iter().find_map(|p| {
            n.strip_prefix(p)
                .filter(|rest| rest.starts_with(|c: char| c.is_uppercase()))
        });
        match property {
            Some(rest) => {
                let mut chars = rest.chars();
                if let Some(first) = chars.next() {
                    more.push(first.to_lowercase().chain(chars).collect::<String>());
                }
                more.push(rest.to_string());
                for p in ["get", "set", "is"] {
                    more.push(format!("{p}{rest}"));
                }
            }
            None => {
                let mut chars = n.chars();
                if let Some(first) = chars.next() {
                    let cap: String = first.to_uppercase().chain(chars).collect();
                    for p in ["get", "set", "is"] {
                        more.push(format!("{p}{cap}"));
                    }
                }
            }
        }
    }
    names.extend(more);
}

/// Whether `name` is a plain identifier (what [`identifiers`] finds in a text).
fn is_identifier(name: &str) -> bool {
    !name.is_empty() && identifiers(name).next() == Some(name)
}

/// The identifiers written in `text` (comments and literals included: a mention there
/// only costs a file resolved again). Any byte past ASCII counts as a letter.
pub(crate) fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let is_part = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            if is_part(bytes[at]) {
                let start = at;
                while at < bytes.len() && is_part(bytes[at]) {
                    at += 1;
                }
                // A number is no identifier; the slice ends on an ASCII byte or the end,
                // so it is on a char boundary.
                if !bytes[start].is_ascii_digit() {
                    return Some(&text[start..at]);
                }
            } else {
                at += 1;
            }
        }
        None
    })
}

/// Whether `text` writes one of `names`.
pub(crate) fn mentions(text: &str, names: &HashSet<String>) -> bool {
    identifiers(text).any(|word| names.contains(word))
}

#[cfg(test)]
#[path = "invalidation_tests.rs"]
mod tests;
