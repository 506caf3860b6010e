//! The model of a set of types: what each type declares (kind, modifiers, type
//! parameters, generic supertypes, public and protected members), the lookups a resolver
//! makes by name, and member lookups that walk supertypes substituting type arguments.
//!
//! A [`TypeModel`] holds one layer (the JDK, a build's dependency jars, or a product's own
//! types from source); [`Layered`] stacks several behind the same [`TypeSource`] trait, the
//! first layer that knows a name answering for it. Member lookups are provided methods of
//! the trait, so they work the same over one layer or a stack.

use std::collections::BTreeMap;

use rustc_hash::{FxHashMap, FxHashSet};

use super::ty::{erase, subst, subst_class, ClassTy, Interner, Name, Subst, Ty, TyArg, TypeParam};

/// What kind of type a declaration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

impl TypeKind {
    /// The Java keyword (`class`, `interface`, `enum`, `record`, `@interface`).
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            TypeKind::Class => "class",
            TypeKind::Interface => "interface",
            TypeKind::Enum => "enum",
            TypeKind::Record => "record",
            TypeKind::Annotation => "@interface",
        }
    }

    pub(crate) fn is_interface(self) -> bool {
        matches!(self, TypeKind::Interface | TypeKind::Annotation)
    }
}

/// Modifiers of a type or member, as bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub(crate) struct Flags(pub(crate) u16);

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
}

impl Flags {
    pub(crate) const PUBLIC: Flags = Flags(1);
    pub(crate) const PROTECTED: Flags = Flags(1 << 1);
    pub(crate) const STATIC: Flags = Flags(1 << 2);
    pub(crate) const FINAL: Flags = Flags(1 << 3);
    pub(crate) const ABSTRACT: Flags = Flags(1 << 4);
    /// A type with a `PermittedSubclasses` attribute (`sealed`).
    pub(crate) const SEALED: Flags = Flags(1 << 5);
    /// A method whose last parameter is `T...`.
    pub(crate) const VARARGS: Flags = Flags(1 << 6);
    /// An interface method with a body that is not static.
    pub(crate) const DEFAULT: Flags = Flags(1 << 7);
    pub(crate) const DEPRECATED: Flags = Flags(1 << 8);
    /// A type no code outside its package may name (kept because a public type inherits
    /// members through it, as `StringBuilder` does from `AbstractStringBuilder`).
    pub(crate) const NOT_ACCESSIBLE: Flags = Flags(1 << 9);

    pub(crate) fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    pub(crate) fn with(self, other: Flags, on: bool) -> Flags {
        if on {
            Flags(self.0 | other.0)
        } else {
            self
        }
    }
}

/// One type of the model.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TypeInfo {
    /// Binary name: `java.util.Map$Entry`.
    pub(crate) binary: Name,
    /// Source name: `java.util.Map.Entry`.
    pub(crate) fqn: Name,
    /// Package (`java.util`); empty for the default package.
    pub(crate) package: Name,
    /// Simple name (`Entry`).
    pub(crate) simple: Name,
    pub(crate) kind: TypeKind,
    pub(crate) flags: Flags,
    pub(crate) type_params: Vec<TypeParam>,
    /// Generic superclass; `None` for `java.lang.Object` and for interfaces.
    pub(crate) superclass: Option<ClassTy>,
    /// Generic super-interfaces (for an interface: the interfaces it extends).
    pub(crate) interfaces: Vec<ClassTy>,
    pub(crate) methods: Vec<MethodInfo>,
    pub(crate) fields: Vec<FieldInfo>,
    /// Binary names of the member types it declares.
    pub(crate) member_types: Vec<Name>,
    /// Binary name of the declaring type of a member type.
    pub(crate) outer: Option<Name>,
}

impl TypeInfo {
    /// This type used with its own type parameters as arguments (`List<E>` inside `List`).
    pub(crate) fn this_type(&self) -> ClassTy {
        ClassTy {
            name: self.binary.clone(),
            args: self
                .type_params
                .iter()
                .map(|p| super::ty::TyArg::Exact(Ty::Var(p.name.clone())))
                .collect(),
            outer: None,
        }
    }

    /// Makes every name this type holds the interner's shared copy: a model built a type
    /// at a time (on a pool) spells `java.lang.String` once per use until then.
    pub(crate) fn share_names(&mut self, names: &mut Interner) {
        for name in [
            &mut self.binary,
            &mut self.fqn,
            &mut self.package,
            &mut self.simple,
        ] {
            names.share(name);
        }
        for p in &mut self.type_params {
            p.share_names(names);
        }
        for c in self.superclass.iter_mut().chain(&mut self.interfaces) {
            c.share_names(names);
        }
        for m in &mut self.methods {
            names.share(&mut m.name);
            for p in &mut m.type_params {
                p.share_names(names);
            }
            for p in &mut m.params {
                p.share_names(names);
            }
            m.ret.share_names(names);
        }
        for f in &mut self.fields {
            names.share(&mut f.name);
            f.ty.share_names(names);
        }
        for n in self.member_types.iter_mut().chain(&mut self.outer) {
            names.share(n);
        }
    }

    /// The methods of this type named `name` (constructors are `<init>`).
    pub(crate) fn methods_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a MethodInfo> + 'a {
        self.methods.iter().filter(move |m| &*m.name == name)
    }

    /// The field of this type named `name`.
    pub(crate) fn field(&self, name: &str) -> Option<&FieldInfo> {
        self.fields.iter().find(|f| &*f.name == name)
    }

    /// Whether code outside the type's package may name it.
    pub(crate) fn is_accessible(&self) -> bool {
        !self.flags.contains(Flags::NOT_ACCESSIBLE)
    }
}

/// A method or constructor (named `<init>`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MethodInfo {
    pub(crate) name: Name,
    pub(crate) flags: Flags,
    pub(crate) type_params: Vec<TypeParam>,
    /// Generic parameter types, as the source declares them (no synthetic parameters).
    pub(crate) params: Vec<Ty>,
    /// Generic return type; `void` for constructors.
    pub(crate) ret: Ty,
}

impl MethodInfo {
    pub(crate) fn is_static(&self) -> bool {
        self.flags.contains(Flags::STATIC)
    }
    pub(crate) fn is_varargs(&self) -> bool {
        self.flags.contains(Flags::VARARGS)
    }
    pub(crate) fn is_abstract(&self) -> bool {
        self.flags.contains(Flags::ABSTRACT)
    }
    pub(crate) fn is_default(&self) -> bool {
        self.flags.contains(Flags::DEFAULT)
    }
    pub(crate) fn is_constructor(&self) -> bool {
        &*self.name == "<init>"
    }

    /// semgraph's method signature spelling: `name(SimpleType, …)` with type variables as
    /// written and varargs as arrays (`of(E[])`, `put(K, V)`, `<init>(int)`).
    pub(crate) fn semgraph_signature(&self) -> String {
        let params: Vec<String> = self.params.iter().map(Ty::simple).collect();
        format!("{}({})", self.name, params.join(", "))
    }
}

/// A field.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldInfo {
    pub(crate) name: Name,
    pub(crate) flags: Flags,
    pub(crate) ty: Ty,
    /// The compile-time constant of a `static final` field with a ConstantValue.
    pub(crate) constant: Option<Constant>,
}

/// A compile-time constant value. `boolean`, `byte`, `char` and `short` constants are
/// `Int`s in class files; read them through the field's type. Floating-point constants
/// compare by their bits, so `NaN` equals itself (`Double.NaN` is a constant).
#[derive(Debug, Clone)]
pub(crate) enum Constant {
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    String(Box<str>),
}

impl PartialEq for Constant {
    fn eq(&self, other: &Constant) -> bool {
        match (self, other) {
            (Constant::Int(a), Constant::Int(b)) => a == b,
            (Constant::Long(a), Constant::Long(b)) => a == b,
            (Constant::Float(a), Constant::Float(b)) => a.to_bits() == b.to_bits(),
            (Constant::Double(a), Constant::Double(b)) => a.to_bits() == b.to_bits(),
            (Constant::String(a), Constant::String(b)) => a == b,
            _ => false,
        }
    }
}

/// A method found by a member lookup, with the receiver's type arguments applied.
#[derive(Debug, Clone)]
pub(crate) struct FoundMethod<'a> {
    /// The type that declares the method (the target a call edge names).
    pub(crate) declaring: &'a TypeInfo,
    pub(crate) method: &'a MethodInfo,
    /// The declaring type as the receiver sees it (`AbstractList<String>` from
    /// `ArrayList<String>`).
    pub(crate) declaring_as: ClassTy,
    /// Parameter types with the receiver's type arguments substituted; the method's own
    /// type variables stay (inferring them is the caller's work).
    pub(crate) params: Vec<Ty>,
    /// Return type, substituted likewise.
    pub(crate) ret: Ty,
    /// How many supertype steps from the receiver's type (0: declared there).
    pub(crate) distance: usize,
}

/// The overloads a lookup found, shared: a memoized lookup hands out the same list again
/// without copying every overload's substituted signature.
pub(crate) type Methods<'a> = std::sync::Arc<[FoundMethod<'a>]>;

/// A field found by a member lookup.
#[derive(Debug, Clone)]
pub(crate) struct FoundField<'a> {
    pub(crate) declaring: &'a TypeInfo,
    pub(crate) field: &'a FieldInfo,
    /// The field's type with the receiver's type arguments substituted.
    pub(crate) ty: Ty,
}

/// Where types come from: one [`TypeModel`], or several stacked by [`Layered`]. The
/// provided methods are the member lookups a resolver makes.
pub(crate) trait TypeSource: Sync {
    /// The type of this binary name (`java.util.Map$Entry`).
    fn by_binary(&self, binary: &str) -> Option<&TypeInfo>;
    /// The type of this source name (`java.util.Map.Entry`).
    fn by_fqn(&self, fqn: &str) -> Option<&TypeInfo>;
    /// The top-level type `simple` of package `pkg` (`import pkg.*;`).
    fn package_type(&self, pkg: &str, simple: &str) -> Option<&TypeInfo>;
    /// Whether any type of the source lives in package `pkg`.
    fn has_package(&self, pkg: &str) -> bool;

    /// The direct supertypes of `ty` as it is parameterised: `ArrayList<String>` gives
    /// `AbstractList<String>`, `List<String>`, `RandomAccess`… An interface with no
    /// super-interface has `java.lang.Object` (JLS §9.2). Empty for unknown types.
    fn direct_supertypes(&self, ty: &ClassTy) -> Vec<ClassTy> {
        let Some(info) = self.by_binary(&ty.name) else {
            return Vec::new();
        };
        let s = Subst::for_class(&info.type_params, ty);
        let mut out: Vec<ClassTy> = Vec::new();
        if let Some(sup) = &info.superclass {
            out.push(subst_class(sup, &s));
        }
        out.extend(info.interfaces.iter().map(|i| subst_class(i, &s)));
        if info.kind.is_interface() && info.interfaces.is_empty() {
            out.push(ClassTy::plain(Name::from("java.lang.Object")));
        }
        out
    }

    /// The declared super-interfaces of `ty`, as `ty` parameterises them.
    fn interfaces_of(&self, ty: &ClassTy) -> Vec<ClassTy> {
        let Some(info) = self.by_binary(&ty.name) else {
            return Vec::new();
        };
        let s = Subst::for_class(&info.type_params, ty);
        info.interfaces.iter().map(|i| subst_class(i, &s)).collect()
    }

    /// `ty` and all its supertypes, each once, nearest first, as `ty` parameterises them:
    /// the superclass chain before interfaces (a class's method beats an interface's
    /// default), `java.lang.Object` last. Each comes with its distance from `ty`. Types
    /// the source does not know end their branch of the walk.
    fn supertypes(&self, ty: &ClassTy) -> Vec<(ClassTy, usize)> {
        let mut out: Vec<(ClassTy, usize)> = Vec::new();
        let mut seen: FxHashSet<Name> = FxHashSet::default();
        // The superclass chain first.
        let mut chain: Vec<(ClassTy, usize)> = Vec::new();
        let mut current = Some((ty.clone(), 0usize));
        while let Some((c, d)) = current.take() {
            if !seen.insert(c.name.clone()) || d > 64 {
                break;
            }
            chain.push((c.clone(), d));
            let Some(info) = self.by_binary(&c.name) else {
                break;
            };
            if info.kind.is_interface() {
                break;
            }
            if let Some(sup) = &info.superclass {
                let s = Subst::for_class(&info.type_params, &c);
                current = Some((subst_class(sup, &s), d + 1));
            }
        }
        // Then the interfaces of each class of the chain, nearest class first, each
        // interface before its own super-interfaces, in declaration order.
        let mut interfaces: Vec<(ClassTy, usize)> = Vec::new();
        for (c, d) in &chain {
            let mut stack: Vec<(ClassTy, usize)> = self
                .interfaces_of(c)
                .into_iter()
                .rev()
                .map(|i| (i, d + 1))
                .collect();
            while let Some((i, d)) = stack.pop() {
                if &*i.name == "java.lang.Object" || d > 64 || !seen.insert(i.name.clone()) {
                    continue;
                }
                stack.extend(self.interfaces_of(&i).into_iter().rev().map(|s| (s, d + 1)));
                interfaces.push((i, d));
            }
        }
        out.extend(chain);
        out.extend(interfaces);
        let object_seen = out.iter().any(|(c, _)| &*c.name == "java.lang.Object");
        if !object_seen && self.by_binary("java.lang.Object").is_some() {
            let d = out.iter().map(|(_, d)| *d).max().unwrap_or(0) + 1;
            out.push((ClassTy::plain(Name::from("java.lang.Object")), d));
        }
        out
    }

    /// Whether `sub` is `sup` or one of its supertypes names `sup` (binary names; type
    /// arguments not compared).
    fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        sub == sup
            || self
                .supertypes(&ClassTy::plain(Name::from(sub)))
                .iter()
                .any(|(c, _)| &*c.name == sup)
    }

    /// Whether type `binary` has a method `name` (only static ones: `static_only`),
    /// declared there or inherited — a walk of names with nothing substituted, for the
    /// question alone. Constructors are looked up on `binary` itself only.
    fn has_method(&self, binary: &str, name: &str, static_only: bool) -> bool {
        let mut stack: Vec<Name> = vec![Name::from(binary)];
        let mut seen: FxHashSet<Name> = FxHashSet::default();
        while let Some(b) = stack.pop() {
            if seen.len() > 64 || !seen.insert(b.clone()) {
                continue;
            }
            let Some(info) = self.by_binary(&b) else {
                continue;
            };
            if info
                .methods
                .iter()
                .any(|m| &*m.name == name && (!static_only || m.is_static()))
            {
                return true;
            }
            if name == "<init>" {
                return false;
            }
            stack.extend(info.interfaces.iter().map(|i| i.name.clone()));
            stack.extend(info.superclass.iter().map(|c| c.name.clone()));
            // Every type has `Object`'s methods, interfaces included.
            if stack.is_empty() && !seen.contains("java.lang.Object") {
                stack.push(Name::from("java.lang.Object"));
            }
        }
        false
    }

    /// Every method named `name` that a value of type `receiver` has, nearest declaration
    /// first: a method overridden lower in the hierarchy (same parameter types once the
    /// receiver's type arguments are applied) is listed once, at its lowest declaration.
    /// Constructors (`<init>`) are looked up on `receiver` itself only.
    fn find_methods(&self, receiver: &ClassTy, name: &str) -> Methods<'_> {
        let mut out: Vec<FoundMethod<'_>> = Vec::new();
        // Erased parameter lists already listed (a set: `Assertions.assertThat` has
        // hundreds of overloads).
        let mut keys: FxHashSet<String> = FxHashSet::default();
        let walk = if name == "<init>" {
            vec![(receiver.clone(), 0)]
        } else {
            self.supertypes(receiver)
        };
        for (c, distance) in walk {
            let Some(info) = self.by_binary(&c.name) else {
                continue;
            };
            let s = Subst::for_class(&info.type_params, &c);
            for m in info.methods.iter().filter(|m| &*m.name == name) {
                // A method's own type variables shadow the class's of the same name
                // (`static <T> Comparator<T> comparing(…)` in `Comparator<T>`).
                let shadowed = m.type_params.iter().any(|tp| s.get(&tp.name).is_some());
                let own;
                let s = if shadowed {
                    let mut kept = Subst::empty();
                    for (n, a, u) in s.entries() {
                        if !m.type_params.iter().any(|tp| tp.name == *n) {
                            kept.bind(n.clone(), a.clone(), u.clone());
                        }
                    }
                    own = kept;
                    &own
                } else {
                    &s
                };
                let params: Vec<Ty> = m.params.iter().map(|p| subst(p, s)).collect();
                let scopes: [&[TypeParam]; 1] = [&m.type_params];
                let key: String = params.iter().map(|p| erase(p, &scopes).signature()).collect();
                if !keys.insert(key) {
                    continue;
                }
                out.push(FoundMethod {
                    declaring: info,
                    method: m,
                    declaring_as: c.clone(),
                    ret: subst(&m.ret, s),
                    params,
                    distance,
                });
            }
        }
        out.into()
    }

    /// The field `name` a value of type `receiver` has, nearest declaration first.
    fn find_field(&self, receiver: &ClassTy, name: &str) -> Option<FoundField<'_>> {
        for (c, _) in self.supertypes(receiver) {
            let Some(info) = self.by_binary(&c.name) else {
                continue;
            };
            if let Some(f) = info.field(name) {
                let s = Subst::for_class(&info.type_params, &c);
                return Some(FoundField {
                    declaring: info,
                    field: f,
                    ty: subst(&f.ty, &s),
                });
            }
        }
        None
    }

    /// The member type `simple` of the type `binary`, declared there or inherited from a
    /// supertype (`HashMap.Entry` is `Map.Entry`).
    fn member_type(&self, binary: &str, simple: &str) -> Option<&TypeInfo> {
        for (c, _) in self.supertypes(&ClassTy::plain(Name::from(binary))) {
            let Some(info) = self.by_binary(&c.name) else {
                continue;
            };
            for m in &info.member_types {
                if m.rsplit('$').next() == Some(simple) {
                    if let Some(t) = self.by_binary(m) {
                        return Some(t);
                    }
                }
            }
        }
        None
    }
}

/// One layer of types, indexed by binary name, source name and package.
#[derive(Debug, Default)]
pub(crate) struct TypeModel {
    types: Vec<TypeInfo>,
    by_binary: FxHashMap<Name, u32>,
    by_fqn: FxHashMap<Name, u32>,
    /// Package → its top-level types by simple name.
    packages: BTreeMap<Name, FxHashMap<Name, u32>>,
}

impl TypeModel {
    /// A model of `types`; a binary name given twice keeps its first type (the order of a
    /// classpath).
    pub(crate) fn new(types: Vec<TypeInfo>) -> TypeModel {
        let mut model = TypeModel::default();
        for t in types {
            if model.by_binary.contains_key(&t.binary) {
                continue;
            }
            let id = model.types.len() as u32;
            model.by_binary.insert(t.binary.clone(), id);
            model.by_fqn.entry(t.fqn.clone()).or_insert(id);
            if t.outer.is_none() {
                model
                    .packages
                    .entry(t.package.clone())
                    .or_default()
                    .insert(t.simple.clone(), id);
            }
            model.types.push(t);
        }
        model
    }

    /// Its types, in order, the indexes dropped (to build a larger model of them).
    pub(crate) fn into_types(self) -> Vec<TypeInfo> {
        self.types
    }

    /// The type of this source name (`java.util.Map.Entry`).
    pub(crate) fn get(&self, fqn: &str) -> Option<&TypeInfo> {
        self.by_fqn.get(fqn).map(|&i| &self.types[i as usize])
    }

    /// Every package that holds a type, sorted.
    pub(crate) fn packages(&self) -> impl Iterator<Item = &str> {
        self.packages.keys().map(|k| &**k)
    }

    /// The top-level types of package `pkg`.
    pub(crate) fn package_types<'a>(&'a self, pkg: &str) -> impl Iterator<Item = &'a TypeInfo> + 'a {
        self.packages
            .get(pkg)
            .into_iter()
            .flat_map(|m| m.values())
            .map(|&i| &self.types[i as usize])
    }

    /// Every type, in load order.
    pub(crate) fn types(&self) -> &[TypeInfo] {
        &self.types
    }

    pub(crate) fn len(&self) -> usize {
        self.types.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// An estimate of the heap the model holds, in bytes: every distinct string once
    /// (names are shared), the type, member and type-tree allocations, the index tables.
    pub(crate) fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        struct Acc {
            strings: FxHashSet<usize>,
            bytes: usize,
        }
        impl Acc {
            fn name(&mut self, n: &Name) {
                if self.strings.insert(n.as_ptr() as usize) {
                    // The string and the Arc's two counters.
                    self.bytes += n.len() + 16;
                }
            }
            fn ty(&mut self, t: &Ty) {
                match t {
                    Ty::Prim(_) => {}
                    Ty::Var(v) => self.name(v),
                    Ty::Array(e) => {
                        self.bytes += size_of::<Ty>();
                        self.ty(e);
                    }
                    Ty::Class(c) => self.class(c),
                }
            }
            fn class(&mut self, c: &ClassTy) {
                self.name(&c.name);
                self.bytes += c.args.len() * size_of::<TyArg>();
                for a in c.args.iter() {
                    if let TyArg::Exact(t) | TyArg::Extends(t) | TyArg::Super(t) = a {
                        self.ty(t);
                    }
                }
                if let Some(o) = &c.outer {
                    self.bytes += size_of::<ClassTy>();
                    self.class(o);
                }
            }
            fn params(&mut self, ps: &[TypeParam]) {
                for p in ps {
                    self.bytes += size_of::<TypeParam>() + p.bounds.capacity() * size_of::<Ty>();
                    self.name(&p.name);
                    p.bounds.iter().for_each(|b| self.ty(b));
                }
            }
        }
        let mut acc = Acc {
            strings: FxHashSet::default(),
            bytes: 0,
        };
        acc.bytes += self.types.capacity() * size_of::<TypeInfo>();
        acc.bytes += (self.by_binary.capacity() + self.by_fqn.capacity()) * (size_of::<Name>() + 8);
        for t in &self.types {
            for n in [&t.binary, &t.fqn, &t.package, &t.simple] {
                acc.name(n);
            }
            acc.params(&t.type_params);
            if let Some(s) = &t.superclass {
                acc.class(s);
            }
            acc.bytes += t.interfaces.capacity() * size_of::<ClassTy>();
            t.interfaces.iter().for_each(|i| acc.class(i));
            acc.bytes += t.member_types.capacity() * size_of::<Name>();
            acc.bytes += t.methods.capacity() * size_of::<MethodInfo>();
            for m in &t.methods {
                acc.name(&m.name);
                acc.params(&m.type_params);
                acc.ty(&m.ret);
                acc.bytes += m.params.capacity() * size_of::<Ty>();
                m.params.iter().for_each(|p| acc.ty(p));
            }
            acc.bytes += t.fields.capacity() * size_of::<FieldInfo>();
            for f in &t.fields {
                acc.name(&f.name);
                acc.ty(&f.ty);
                if let Some(Constant::String(s)) = &f.constant {
                    acc.bytes += s.len();
                }
            }
        }
        acc.bytes
    }
}

impl TypeSource for TypeModel {
    fn by_binary(&self, binary: &str) -> Option<&TypeInfo> {
        self.by_binary.get(binary).map(|&i| &self.types[i as usize])
    }

    fn by_fqn(&self, fqn: &str) -> Option<&TypeInfo> {
        self.get(fqn)
    }

    fn package_type(&self, pkg: &str, simple: &str) -> Option<&TypeInfo> {
        self.packages
            .get(pkg)
            .and_then(|m| m.get(simple))
            .map(|&i| &self.types[i as usize])
    }

    fn has_package(&self, pkg: &str) -> bool {
        self.packages.contains_key(pkg)
    }
}

/// Several [`TypeSource`]s searched in order: a product's own types, then its
/// dependencies', then the JDK's. The first layer that knows a name answers for it, so a
/// product class shadows a same-named class of a jar.
pub(crate) struct Layered<'a> {
    layers: Vec<&'a dyn TypeSource>,
}

impl<'a> Layered<'a> {
    /// The layers, highest first.
    pub(crate) fn new(layers: Vec<&'a dyn TypeSource>) -> Layered<'a> {
        Layered { layers }
    }
}

/// A type source that remembers its member lookups: the resolver asks for the same
/// overloads again and again within one file (every `assertThat` of a test class looks
/// up all of AssertJ's), and each lookup substitutes every overload. One per file, so it
/// never outgrows what one file names.
pub(crate) struct Memoized<'a> {
    inner: &'a dyn TypeSource,
    /// By receiver, then by name: a hit builds no key.
    methods: std::sync::Mutex<FxHashMap<ClassTy, FxHashMap<Box<str>, Methods<'a>>>>,
}

impl<'a> Memoized<'a> {
    pub(crate) fn new(inner: &'a dyn TypeSource) -> Memoized<'a> {
        Memoized {
            inner,
            methods: std::sync::Mutex::new(FxHashMap::default()),
        }
    }
}

impl TypeSource for Memoized<'_> {
    fn by_binary(&self, binary: &str) -> Option<&TypeInfo> {
        self.inner.by_binary(binary)
    }

    fn by_fqn(&self, fqn: &str) -> Option<&TypeInfo> {
        self.inner.by_fqn(fqn)
    }

    fn package_type(&self, pkg: &str, simple: &str) -> Option<&TypeInfo> {
        self.inner.package_type(pkg, simple)
    }

    fn has_package(&self, pkg: &str) -> bool {
        self.inner.has_package(pkg)
    }

    fn find_methods(&self, receiver: &ClassTy, name: &str) -> Methods<'_> {
        let known = self
            .methods
            .lock()
            .ok()
            .and_then(|m| m.get(receiver).and_then(|by_name| by_name.get(name)).cloned());
        if let Some(found) = known {
            return found;
        }
        let found = self.inner.find_methods(receiver, name);
        if let Ok(mut m) = self.methods.lock() {
            m.entry(receiver.clone())
                .or_default()
                .insert(name.into(), found.clone());
        }
        found
    }
}

impl TypeSource for Layered<'_> {
    fn by_binary(&self, binary: &str) -> Option<&TypeInfo> {
        self.layers.iter().find_map(|l| l.by_binary(binary))
    }

    fn by_fqn(&self, fqn: &str) -> Option<&TypeInfo> {
        self.layers.iter().find_map(|l| l.by_fqn(fqn))
    }

    fn package_type(&self, pkg: &str, simple: &str) -> Option<&TypeInfo> {
        self.layers.iter().find_map(|l| l.package_type(pkg, simple))
    }

    fn has_package(&self, pkg: &str) -> bool {
        self.layers.iter().any(|l| l.has_package(pkg))
    }
}
