//! The product's own types as a layer of the type model, and the one way a type written
//! in Java source becomes a [`Ty`].
//!
//! [`ProductModel`] turns every type the product declares (from the files' skeletons and
//! the [`SymbolTable`]) into a [`TypeInfo`] with generic signatures — type parameters and
//! their bounds, generic superclass and interfaces, every method's and field's type — so
//! the call resolver asks one [`TypeSource`] (`Layered`: the product, the module's
//! dependency jars, the JDK) the same questions about a product class, a library class
//! and a JDK class. A product type's "binary name" in the model is its key in the symbol
//! table (its fqn as the facts spell it: `pkg.Outer.Inner`, `pkg.Outer$1`), so a model
//! lookup and a graph node name the same type.
//!
//! [`Names::ty`] reads a written type (`Map<String, List<? extends Order>>[]`, `Outer.Inner`,
//! `java.util.Map.Entry<K, V>`, `T`, `int...`) in the scope of a type and a method: type
//! variables first, then the names `javac` would see (JLS §6.4.1: the type and its members,
//! enclosing types, single imports, the package, on-demand imports — the product's and
//! the libraries' packages alike —, `java.lang`), then fully-qualified names. A name that
//! nothing in scope declares becomes an *opaque* class type (its best-known name, never a
//! guess at its members): lookups on it find nothing, and the resolver says so.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::symbols::{SymbolTable, TypeInfo as SymbolInfo};
use crate::facts::{self, CodeFile, TypeDecl};
use crate::typemodel::model::{FieldInfo, Flags, MethodInfo, TypeInfo, TypeKind, TypeModel, TypeSource};
use crate::typemodel::ty::{ClassTy, Interner, Name, Prim, Ty, TyArg, TypeParam};

/// The prefix of an opaque type's name: a simple name nothing in scope declares.
pub(crate) const UNKNOWN: char = '?';

/// The product's types as one layer of the type model, and what the graph calls their
/// methods.
#[derive(Default)]
pub(crate) struct ProductModel {
    pub(crate) model: TypeModel,
    /// For each product type (by key) and each of its methods, in declaration order: the
    /// parameter spelling of its graph node (`MethodKey::params`).
    params: FxHashMap<Name, Vec<Box<[Name]>>>,
}

impl ProductModel {
    /// The product's types, read from `files` with names bound by `table` and, for the
    /// types outside the product, by `external`.
    pub(crate) fn build<'a>(
        files: impl IntoIterator<Item = &'a CodeFile>,
        table: &SymbolTable,
        external: &dyn TypeSource,
    ) -> ProductModel {
        let names = Names { table, external };
        // The declarations to read, each key once: of a type declared twice under one key
        // (a broken or generated source), the first.
        let mut seen: FxHashSet<&str> = FxHashSet::default();
        let declared: Vec<(&TypeDecl, &str, &SymbolInfo)> = files
            .into_iter()
            .flat_map(|file| file.types.iter().map(move |t| (t, file.package.as_str())))
            .filter_map(|(t, package)| {
                let info = table.get(&t.fqn)?;
                seen.insert(t.fqn.as_str()).then_some((t, package, info))
            })
            .collect();
        // Each type on its own, on the pool: its names bound and its signatures read.
        let read: Vec<(TypeInfo, Vec<Vec<String>>)> = declared
            .par_iter()
            .map(|(t, package, info)| {
                let spelled: Vec<Vec<String>> = t
                    .methods
                    .iter()
                    .map(|m| m.params.iter().map(|p| facts::simple_name(&p.ty)).collect())
                    .collect();
                let key: Name = Arc::from(t.fqn.as_str());
                (names.type_info(t, package, key, info.kind, &info.nested), spelled)
            })
            .collect();
        // One copy of each name (read on the pool, each type spelled its own).
        let mut interner = Interner::default();
        let mut types = Vec::with_capacity(read.len());
        let mut params = FxHashMap::default();
        for (mut info, spelled) in read {
            info.share_names(&mut interner);
            let spelled: Vec<Box<[Name]>> = spelled
                .into_iter()
                .map(|method| method.iter().map(|p| interner.intern(p)).collect())
                .collect();
            params.insert(info.binary.clone(), spelled);
            types.push(info);
        }
        ProductModel {
            model: TypeModel::new(types),
            params,
        }
    }

    /// The graph's parameter spelling of method `m` of product type `declaring`.
    pub(crate) fn key_params(&self, declaring: &TypeInfo, m: &MethodInfo) -> Option<&[Name]> {
        let index = declaring.methods.iter().position(|x| std::ptr::eq(x, m))?;
        self.params
            .get(&declaring.binary)
            .and_then(|p| p.get(index))
            .map(|p| &**p)
    }

    /// Whether `binary` is a product type.
    pub(crate) fn declares(&self, binary: &str) -> bool {
        self.params.contains_key(binary)
    }
}

/// A written type, parsed.
#[derive(Debug, Clone, PartialEq)]
enum Written {
    Prim(Prim),
    /// Dotted segments, each with the type arguments written on it.
    Class(Vec<(String, Vec<WrittenArg>)>),
    Array(Box<Written>),
}

#[derive(Debug, Clone, PartialEq)]
enum WrittenArg {
    Wildcard,
    Extends(Written),
    Super(Written),
    Exact(Written),
}

/// Parses Java type syntax; annotations and `final` are skipped. `None` for what is not a
/// type (`var`, an empty string, unbalanced brackets).
fn parse_written(text: &str) -> Option<Written> {
    let mut p = WrittenParser {
        s: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    let t = p.ty()?;
    p.ws();
    if p.pos != p.s.len() {
        return None;
    }
    Some(t)
}

struct WrittenParser<'a> {
    s: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl WrittenParser<'_> {
    fn ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.get(self.pos).copied()
    }

    fn ident(&mut self) -> Option<&str> {
        self.ws();
        let start = self.pos;
        while self.pos < self.s.len() {
            let c = self.s[self.pos];
            if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80 {
                self.pos += 1;
            } else {
                break;
            }
        }
        (self.pos > start).then(|| &self.text[start..self.pos])
    }

    /// Skips `@Name`, `@a.b.Name(…)` annotations.
    fn annotations(&mut self) -> Option<()> {
        while self.peek() == Some(b'@') {
            self.pos += 1;
            self.ident()?;
            while self.peek() == Some(b'.') {
                self.pos += 1;
                self.ident()?;
            }
            if self.peek() == Some(b'(') {
                let mut depth = 0usize;
                while self.pos < self.s.len() {
                    match self.s[self.pos] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                self.pos += 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                    self.pos += 1;
                }
            }
        }
        Some(())
    }

    fn ty(&mut self) -> Option<Written> {
        self.depth += 1;
        if self.depth > 32 {
            return None;
        }
        self.annotations()?;
        let save = self.pos;
        if self.ident() == Some("final") {
            self.annotations()?;
        } else {
            self.pos = save;
        }
        let first = self.ident()?.to_string();
        let mut base = match Prim::from_keyword(&first) {
            Some(p) => Written::Prim(p),
            None => {
                let mut segments = vec![(first, Vec::new())];
                loop {
                    match self.peek() {
                        Some(b'<') => {
                            self.pos += 1;
                            let mut args = Vec::new();
                            if self.peek() != Some(b'>') {
                                loop {
                                    args.push(self.arg()?);
                                    match self.peek() {
                                        Some(b',') => self.pos += 1,
                                        Some(b'>') => break,
                                        _ => return None,
                                    }
                                }
                            }
                            self.pos += 1;
                            segments.last_mut()?.1 = args;
                        }
                        Some(b'.') if self.s.get(self.pos + 1) != Some(&b'.') => {
                            self.pos += 1;
                            self.annotations()?;
                            let next = self.ident()?.to_string();
                            segments.push((next, Vec::new()));
                        }
                        _ => break,
                    }
                }
                Written::Class(segments)
            }
        };
        loop {
            self.annotations()?;
            match self.peek() {
                Some(b'[') => {
                    self.pos += 1;
                    if self.peek() != Some(b']') {
                        return None;
                    }
                    self.pos += 1;
                    base = Written::Array(Box::new(base));
                }
                Some(b'.') if self.text[self.pos..].starts_with("...") => {
                    self.pos += 3;
                    base = Written::Array(Box::new(base));
                }
                _ => break,
            }
        }
        self.depth -= 1;
        Some(base)
    }

    fn arg(&mut self) -> Option<WrittenArg> {
        self.annotations()?;
        if self.peek() == Some(b'?') {
            self.pos += 1;
            let save = self.pos;
            return Some(match self.ident() {
                Some("extends") => WrittenArg::Extends(self.ty()?),
                Some("super") => WrittenArg::Super(self.ty()?),
                _ => {
                    self.pos = save;
                    WrittenArg::Wildcard
                }
            });
        }
        Some(WrittenArg::Exact(self.ty()?))
    }
}

/// Where a written type is read: the type whose imports and members apply, and the type
/// variables in scope (a method's, then its type's and the enclosing types').
pub(crate) struct Scope<'s> {
    /// Key of the type the text is written in.
    pub(crate) from: &'s str,
    /// Type variables of the method, innermost first.
    pub(crate) method_vars: &'s [String],
}

/// Binds written names to types: the product's through the symbol table, the rest
/// through the external types (dependencies and the JDK).
pub(crate) struct Names<'a> {
    pub(crate) table: &'a SymbolTable,
    /// The dependencies and the JDK.
    pub(crate) external: &'a dyn TypeSource,
}

impl Names<'_> {
    /// The type `written` denotes in `scope`; `None` for `var` and for text that is no
    /// type. A name nothing declares is an opaque class type.
    pub(crate) fn ty(&self, written: &str, scope: &Scope<'_>) -> Option<Ty> {
        let w = parse_written(written.trim())?;
        Some(self.resolve(&w, scope))
    }

    fn resolve(&self, w: &Written, scope: &Scope<'_>) -> Ty {
        match w {
            Written::Prim(p) => Ty::Prim(*p),
            Written::Array(e) => Ty::Array(Box::new(self.resolve(e, scope))),
            Written::Class(segments) => {
                if segments.len() == 1 && segments[0].1.is_empty() && self.is_type_var(&segments[0].0, scope)
                {
                    return Ty::Var(Arc::from(segments[0].0.as_str()));
                }
                let path: Vec<&str> = segments.iter().map(|(s, _)| s.as_str()).collect();
                let name = self.class_name(&path, scope.from);
                let args: Box<[TyArg]> = segments
                    .last()
                    .map(|(_, a)| a.iter().map(|a| self.arg(a, scope)).collect())
                    .unwrap_or_default();
                Ty::Class(ClassTy {
                    name,
                    args,
                    outer: None,
                })
            }
        }
    }

    fn arg(&self, a: &WrittenArg, scope: &Scope<'_>) -> TyArg {
        match a {
            WrittenArg::Wildcard => TyArg::Wildcard,
            WrittenArg::Extends(t) => TyArg::Extends(self.resolve(t, scope)),
            WrittenArg::Super(t) => TyArg::Super(self.resolve(t, scope)),
            WrittenArg::Exact(t) => TyArg::Exact(self.resolve(t, scope)),
        }
    }

    /// Whether `name` is a type variable seen from the scope.
    fn is_type_var(&self, name: &str, scope: &Scope<'_>) -> bool {
        if scope.method_vars.iter().any(|v| v == name) {
            return true;
        }
        let mut cur = self.table.get(scope.from);
        let mut hops = 0;
        while let Some(t) = cur {
            hops += 1;
            if hops > 32 {
                break;
            }
            if t.type_params.iter().any(|p| **p == *name) {
                return true;
            }
            // A type's own name or member type shadows its outer type's variables.
            if t.nested.contains_key(name) {
                return false;
            }
            cur = t.outer.as_deref().and_then(|o| self.table.get(o));
        }
        false
    }

    /// The model name of the class a dotted path names, seen from type `from`.
    pub(crate) fn class_name(&self, path: &[&str], from: &str) -> Name {
        if let Some(n) = self.try_class_name(path, from) {
            return n;
        }
        // Not declared anywhere we can see: keep the best name we have.
        let joined = path.join(".");
        if path.len() > 1 && path[0].starts_with(char::is_lowercase) {
            return Arc::from(guess_binary(&joined).as_str());
        }
        Arc::from(format!("{UNKNOWN}{joined}").as_str())
    }

    fn try_class_name(&self, path: &[&str], from: &str) -> Option<Name> {
        let head = *path.first()?;
        let mut current = self.simple(head, from);
        let mut rest = &path[1..];
        if current.is_none() {
            // A qualified name: the shortest prefix that is a type, then member types.
            for i in 2..=path.len() {
                let prefix = path[..i].join(".");
                if let Some(found) = self.qualified(&prefix) {
                    current = Some(found);
                    rest = &path[i..];
                    break;
                }
            }
        }
        let mut current = current?;
        for part in rest {
            current = self.member(&current, part)?;
        }
        Some(current)
    }

    /// A fully-qualified source name (`java.util.Map.Entry`, `com.acme.Order`).
    fn qualified(&self, fqn: &str) -> Option<Name> {
        if self.table.get(fqn).is_some() {
            return Some(Arc::from(fqn));
        }
        self.external.by_fqn(fqn).map(|t| t.binary.clone())
    }

    /// Member type `simple` of the type `outer` (a product key or an external binary name),
    /// declared there or inherited.
    fn member(&self, outer: &Name, simple: &str) -> Option<Name> {
        if self.table.get(outer).is_some() {
            let r = super::symbols::TypeRef {
                fqn: outer.to_string(),
                internal: true,
            };
            if let Some(m) = self.table.member_type(&r, simple) {
                if m.internal {
                    return Some(Arc::from(m.fqn.as_str()));
                }
            }
            // Inherited from an external supertype.
            let mut cur = self.table.get(outer);
            let mut hops = 0;
            while let Some(t) = cur {
                hops += 1;
                if hops > 32 {
                    break;
                }
                let sups: Vec<&Name> = t.superclass.iter().chain(&t.interfaces).collect();
                for s in &sups {
                    if self.table.get(s).is_none() {
                        let bin = self.external.by_fqn(s).map(|i| i.binary.clone());
                        if let Some(b) = bin {
                            if let Some(m) = self.external.member_type(&b, simple) {
                                return Some(m.binary.clone());
                            }
                        }
                    }
                }
                cur = t.superclass.as_deref().and_then(|s| self.table.get(s));
            }
            return None;
        }
        if let Some(m) = self.external.member_type(outer, simple) {
            return Some(m.binary.clone());
        }
        if outer.starts_with(UNKNOWN) {
            return None;
        }
        // An external type the model does not know: its member by name.
        (self.external.by_binary(outer).is_none()).then(|| Arc::from(format!("{outer}${simple}").as_str()))
    }

    /// A simple type name seen from inside type `from` (JLS §6.4.1 order).
    fn simple(&self, name: &str, from: &str) -> Option<Name> {
        let t = self.table.get(from)?;
        // The type, its members and enclosing types' (through the symbol table), single
        // imports, the package's product types, product on-demand imports.
        let product = self.table.resolve_simple(name, from);
        match &product {
            Some(r) if r.internal => return Some(Arc::from(r.fqn.as_str())),
            Some(r) if !r.fqn.starts_with("java.lang.") || t.ctx.single.contains_key(name) => {
                // A single import of an external type.
                return Some(
                    self.external
                        .by_fqn(&r.fqn)
                        .map(|i| i.binary.clone())
                        .unwrap_or_else(|| Arc::from(guess_binary(&r.fqn).as_str())),
                );
            }
            _ => {}
        }
        // Member types inherited from external supertypes of the type or its outers.
        let mut cur = Some(t);
        let mut hops = 0;
        while let Some(c) = cur {
            hops += 1;
            if hops > 32 {
                break;
            }
            for s in c.superclass.iter().chain(&c.interfaces) {
                if self.table.get(s).is_none() {
                    if let Some(b) = self.external.by_fqn(s).map(|i| i.binary.clone()) {
                        if let Some(m) = self.external.member_type(&b, name) {
                            return Some(m.binary.clone());
                        }
                    }
                }
            }
            cur = c.outer.as_deref().and_then(|o| self.table.get(o));
        }
        // External types of the same package, then of on-demand imports.
        if let Some(found) = self.external.package_type(&t.ctx.package, name) {
            return Some(found.binary.clone());
        }
        for w in &t.ctx.wildcards {
            if let Some(found) = self.external.package_type(w, name) {
                return Some(found.binary.clone());
            }
            // `import java.util.Map.*;`: member types of a type.
            if let Some(owner) = self.external.by_fqn(w) {
                if let Some(m) = self.external.member_type(&owner.binary, name) {
                    return Some(m.binary.clone());
                }
            }
        }
        if let Some(found) = self.external.package_type("java.lang", name) {
            return Some(found.binary.clone());
        }
        product.map(|r| Arc::from(r.fqn.as_str()))
    }

    /// The type parameters `(name, bounds)` as the model holds them, in `scope`.
    fn type_params(&self, written: &[(String, Vec<String>)], scope: &Scope<'_>) -> Vec<TypeParam> {
        written
            .iter()
            .map(|(name, bounds)| {
                let mut tys: Vec<Ty> = bounds.iter().filter_map(|b| self.ty(b, scope)).collect();
                let has_class_bound = !tys.is_empty();
                if tys.is_empty() {
                    tys.push(Ty::object());
                }
                TypeParam {
                    name: Arc::from(name.as_str()),
                    has_class_bound,
                    bounds: tys,
                }
            })
            .collect()
    }

    /// Whether the type a model name denotes is an interface (product or external).
    fn is_interface(&self, name: &str) -> Option<bool> {
        if let Some(t) = self.table.get(name) {
            return Some(matches!(
                t.kind,
                facts::TypeKind::Interface | facts::TypeKind::Annotation
            ));
        }
        self.external.by_binary(name).map(|t| t.kind.is_interface())
    }

    /// One product type as the model holds it.
    fn type_info(
        &self,
        t: &TypeDecl,
        package: &str,
        key: Name,
        kind: facts::TypeKind,
        nested: &rustc_hash::FxHashMap<Name, Name>,
    ) -> TypeInfo {
        let scope = Scope {
            from: &t.fqn,
            method_vars: &[],
        };
        let written_params: Vec<(String, Vec<String>)> = t
            .type_params
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), t.type_param_bounds.get(i).cloned().unwrap_or_default()))
            .collect();
        let type_params = self.type_params(&written_params, &scope);
        let model_kind = match kind {
            facts::TypeKind::Class => TypeKind::Class,
            facts::TypeKind::Interface => TypeKind::Interface,
            facts::TypeKind::Enum => TypeKind::Enum,
            facts::TypeKind::Record => TypeKind::Record,
            facts::TypeKind::Annotation => TypeKind::Annotation,
        };
        let class_ty = |w: &str| match self.ty(w, &scope) {
            Some(Ty::Class(c)) => Some(c),
            _ => None,
        };
        let mut superclass = None;
        let mut interfaces = Vec::new();
        match kind {
            facts::TypeKind::Interface | facts::TypeKind::Annotation => {
                interfaces.extend(t.extends.iter().filter_map(|w| class_ty(w)));
                if kind == facts::TypeKind::Annotation {
                    interfaces.push(ClassTy::plain(Arc::from("java.lang.annotation.Annotation")));
                }
            }
            facts::TypeKind::Enum => {
                superclass = Some(ClassTy {
                    name: Arc::from("java.lang.Enum"),
                    args: Box::new([TyArg::Exact(Ty::Class(ClassTy::plain(key.clone())))]),
                    outer: None,
                });
            }
            facts::TypeKind::Record => superclass = Some(ClassTy::plain(Arc::from("java.lang.Record"))),
            facts::TypeKind::Class => {
                for w in &t.extends {
                    let Some(c) = class_ty(w) else { continue };
                    // An anonymous class of an interface implements it.
                    if self.is_interface(&c.name) == Some(true) {
                        interfaces.push(c);
                    } else {
                        superclass = Some(c);
                    }
                }
                if superclass.is_none() {
                    superclass = Some(ClassTy::plain(Arc::from("java.lang.Object")));
                }
            }
        }
        if kind != facts::TypeKind::Interface && kind != facts::TypeKind::Annotation {
            interfaces.extend(t.implements.iter().filter_map(|w| class_ty(w)));
        } else {
            interfaces.extend(t.implements.iter().filter_map(|w| class_ty(w)));
        }
        let has = |mods: &[String], m: &str| mods.iter().any(|x| x == m);
        let mut flags = Flags::default()
            .with(Flags::PUBLIC, has(&t.modifiers, "public"))
            .with(Flags::PROTECTED, has(&t.modifiers, "protected"))
            .with(Flags::STATIC, has(&t.modifiers, "static"))
            .with(Flags::FINAL, has(&t.modifiers, "final"))
            .with(Flags::ABSTRACT, has(&t.modifiers, "abstract"));
        if kind == facts::TypeKind::Interface {
            flags = flags | Flags::ABSTRACT;
        }
        let interface = matches!(kind, facts::TypeKind::Interface | facts::TypeKind::Annotation);
        let methods = t
            .methods
            .iter()
            .map(|m| {
                let vars: Vec<String> = m.type_params.iter().map(|(n, _)| n.clone()).collect();
                let mscope = Scope {
                    from: &t.fqn,
                    method_vars: &vars,
                };
                let is_static = has(&m.modifiers, "static");
                let is_default = has(&m.modifiers, "default");
                let abstract_ = (has(&m.modifiers, "abstract") || (interface && !m.has_body && !is_static))
                    && !m.implicit;
                let flags = Flags::default()
                    .with(Flags::PUBLIC, has(&m.modifiers, "public") || interface)
                    .with(Flags::PROTECTED, has(&m.modifiers, "protected"))
                    .with(Flags::STATIC, is_static)
                    .with(Flags::FINAL, has(&m.modifiers, "final"))
                    .with(Flags::ABSTRACT, abstract_)
                    .with(Flags::DEFAULT, is_default)
                    .with(Flags::VARARGS, m.varargs);
                MethodInfo {
                    name: Arc::from(m.name.as_str()),
                    flags,
                    type_params: self.type_params(&m.type_params, &mscope),
                    params: m
                        .params
                        .iter()
                        .map(|p| self.ty(&p.ty, &mscope).unwrap_or_else(Ty::object))
                        .collect(),
                    ret: match &m.return_type {
                        None => Ty::Prim(Prim::Void),
                        Some(r) => self.ty(r, &mscope).unwrap_or_else(Ty::object),
                    },
                }
            })
            .collect();
        let mut fields: Vec<FieldInfo> = t
            .fields
            .iter()
            .map(|f| {
                let is_static = has(&f.modifiers, "static") || interface;
                FieldInfo {
                    name: Arc::from(f.name.as_str()),
                    flags: Flags::default()
                        .with(Flags::PUBLIC, has(&f.modifiers, "public") || interface)
                        .with(Flags::STATIC, is_static)
                        .with(Flags::FINAL, has(&f.modifiers, "final") || interface),
                    ty: self.ty(&f.ty, &scope).unwrap_or_else(Ty::object),
                    constant: None,
                }
            })
            .collect();
        for c in &t.enum_constants {
            fields.push(FieldInfo {
                name: Arc::from(c.as_str()),
                flags: Flags::PUBLIC | Flags::STATIC | Flags::FINAL,
                ty: Ty::Class(ClassTy::plain(key.clone())),
                constant: None,
            });
        }
        let simple = if t.anonymous {
            t.name.clone()
        } else {
            t.fqn.rsplit('.').next().unwrap_or(&t.name).to_string()
        };
        TypeInfo {
            binary: key.clone(),
            fqn: key,
            package: Arc::from(package),
            simple: Arc::from(simple.as_str()),
            kind: model_kind,
            flags,
            type_params,
            superclass,
            interfaces,
            methods,
            fields,
            member_types: nested.values().cloned().collect(),
            outer: t.outer.as_deref().map(Arc::from),
        }
    }
}

/// The binary name of a source name whose type no model knows: the segments after the
/// first capitalised one are nested types (`a.b.Outer.Inner` → `a.b.Outer$Inner`).
pub(crate) fn guess_binary(fqn: &str) -> String {
    let mut out = String::with_capacity(fqn.len());
    let mut in_class = false;
    for (i, seg) in fqn.split('.').enumerate() {
        if i > 0 {
            out.push(if in_class { '$' } else { '.' });
        }
        if seg.starts_with(char::is_uppercase) {
            in_class = true;
        }
        out.push_str(seg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_types_parse_with_arguments_wildcards_arrays_and_annotations() {
        let w = parse_written("Map<String, List<? extends Order>>[]").expect("parses");
        let Written::Array(inner) = w else { panic!("array") };
        let Written::Class(segs) = *inner else {
            panic!("class")
        };
        assert_eq!(segs[0].0, "Map");
        assert_eq!(segs[0].1.len(), 2);
        assert!(matches!(parse_written("int..."), Some(Written::Array(_))));
        assert!(matches!(
            parse_written("@NonNull final String"),
            Some(Written::Class(_))
        ));
        assert!(
            matches!(parse_written("java.util.Map.Entry<K, V>"), Some(Written::Class(s)) if s.len() == 4)
        );
        assert!(matches!(parse_written("List<?>"), Some(Written::Class(_))));
        assert_eq!(parse_written("List<String"), None);
        assert_eq!(parse_written(""), None);
        assert_eq!(guess_binary("a.b.Outer.Inner"), "a.b.Outer$Inner");
    }
}
