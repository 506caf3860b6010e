//! Call resolution: each call site of a file, against the product's [`SymbolTable`].
//!
//! The rules are `javac`'s where the facts allow and a refusal where they do not: a
//! receiver is typed from locals, parameters, fields (inherited and enclosing ones
//! included), type names and the declared return types of chained calls; the method is
//! looked up along the superclass chain and lands on the type that declares it; an
//! interface-typed receiver gives the interface method; overloads are told apart by arity,
//! then by known argument types. Anything left open is `Target::Unresolved` with a reason
//! — an edge that may be wrong is worse than a missing one.

use std::sync::Arc;

use super::symbols::MethodInfo;
use super::symbols::{is_primitive, ImportCtx, SymbolTable, TypeRef};
use super::typed::{FileSubtypes, SubtypeMemo, Typer, Val};
use super::types::{Names, ProductModel};
use super::{key, unresolved, Fit, MethodKey, Recv, ResolvedCall, Target};
use crate::facts::{erase, simple_name, CallKind, CallSite, CodeFile, MethodDecl, Receiver, TypeKind};
use crate::typemodel::model::{self as tm, FoundMethod, Layered, Memoized, TypeModel, TypeSource};
use crate::typemodel::ty::Ty;

/// Methods that pass the elements of their receiver to a one-parameter lambda.
const ELEMENT_METHODS: &[&str] = &[
    "forEach",
    "filter",
    "map",
    "flatMap",
    "anyMatch",
    "allMatch",
    "noneMatch",
    "ifPresent",
    "removeIf",
    "peek",
    "takeWhile",
    "dropWhile",
    "mapToInt",
    "mapToLong",
    "mapToDouble",
    "doOnNext",
    "flatMapMany",
];
/// JDK container and stream methods whose result holds the same elements as the receiver.
const ELEMENT_PRESERVING: &[&str] = &[
    "stream",
    "parallelStream",
    "filter",
    "sorted",
    "distinct",
    "peek",
    "limit",
    "skip",
    "takeWhile",
    "dropWhile",
    "unmodifiableList",
];
/// Generic containers whose single type argument is the element type.
const CONTAINERS: &[&str] = &[
    "List",
    "Set",
    "Collection",
    "Iterable",
    "Optional",
    "Stream",
    "SortedSet",
    "Queue",
    "Deque",
    "ArrayList",
    "LinkedList",
    "HashSet",
    "TreeSet",
    "LinkedHashSet",
    "Flux",
    "Mono",
];

/// Receiver chains deeper than this are not followed.
const MAX_DEPTH: usize = 64;

const OBJECT_METHODS: &[&str] = &[
    "toString",
    "equals",
    "hashCode",
    "getClass",
    "notify",
    "notifyAll",
    "wait",
    "clone",
    "finalize",
];
const ENUM_METHODS: &[&str] = &["values", "valueOf", "name", "ordinal", "compareTo"];
/// JDK types no product type can extend or implement, so an argument of one of them
/// never fits a parameter of another type (other than `Object`).
const JDK_VALUE_TYPES: &[&str] = &[
    "java.lang.String",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Short",
    "java.lang.Byte",
    "java.lang.Double",
    "java.lang.Float",
    "java.lang.Boolean",
    "java.lang.Character",
    "java.math.BigDecimal",
    "java.math.BigInteger",
    "java.util.UUID",
    "java.time.Instant",
    "java.time.LocalDate",
    "java.time.LocalDateTime",
    "java.time.Duration",
    "java.time.OffsetDateTime",
    "java.time.ZonedDateTime",
];

/// The product's types as the type model holds them, built once per product: what the
/// resolver asks, with its dependencies' types and the JDK beneath, about receivers,
/// returns and overloads. [`ProductTypes::for_module`] lays one module's own copies of
/// names other modules declare too over the shared part, which is built once.
pub(crate) struct ProductTypes {
    model: Arc<ProductModel>,
    /// The types of the jars the product's builds declare (or its classpath lists).
    dependencies: Arc<TypeModel>,
    /// A module's own copies, above `model`.
    own: Option<ProductModel>,
    /// Subtype answers of the files resolved against these types so far.
    subtypes: SubtypeMemo,
    /// The product compiles for a later Java than the JDK model's: a member the model's
    /// JDK types lack may have come since (see `Typer::lacks_method`).
    later_jdk: bool,
}

impl ProductTypes {
    /// The product's types, read from the skeletons of all its files, with the JDK alone
    /// beneath.
    pub(crate) fn build<'a>(
        files: impl IntoIterator<Item = &'a CodeFile>,
        table: &SymbolTable,
    ) -> ProductTypes {
        Self::build_with(files, table, TypeModel::default(), None)
    }

    /// [`ProductTypes::build`] with `dependencies` between the product and the JDK: a type
    /// of the product hides a dependency's of the same name, a dependency's the JDK's.
    /// `java_release`: the Java release the product's builds compile for, when they say.
    pub(crate) fn build_with<'a>(
        files: impl IntoIterator<Item = &'a CodeFile>,
        table: &SymbolTable,
        dependencies: TypeModel,
        java_release: Option<u32>,
    ) -> ProductTypes {
        let beneath = Layered::new(beneath_product(&dependencies));
        let model = ProductModel::build(files, table, &beneath);
        ProductTypes {
            model: Arc::new(model),
            dependencies: Arc::new(dependencies),
            own: None,
            subtypes: SubtypeMemo::default(),
            later_jdk: java_release.is_some_and(|r| r > crate::typemodel::jdk::JDK_RELEASE),
        }
    }

    /// The types as the files of one module see them: `files` are that module's files
    /// declaring names other modules declare too, `table` the module's view of the symbol
    /// table ([`SymbolTable::for_module`]).
    pub(crate) fn for_module<'a>(
        &self,
        files: impl IntoIterator<Item = &'a CodeFile>,
        table: &SymbolTable,
    ) -> ProductTypes {
        let beneath = Layered::new(beneath_product(&self.dependencies));
        ProductTypes {
            model: Arc::clone(&self.model),
            dependencies: Arc::clone(&self.dependencies),
            own: Some(ProductModel::build(files, table, &beneath)),
            subtypes: SubtypeMemo::default(),
            later_jdk: self.later_jdk,
        }
    }

    /// The graph's parameter spelling of method `m` of product type `declaring`.
    fn key_params(
        &self,
        declaring: &tm::TypeInfo,
        m: &tm::MethodInfo,
    ) -> Option<&[crate::typemodel::ty::Name]> {
        match &self.own {
            Some(own) if own.declares(&declaring.binary) => own.key_params(declaring, m),
            _ => self.model.key_params(declaring, m),
        }
    }

    /// The types beneath the product's own, nearest first: its dependencies' jars, the
    /// bundled test libraries, the JDK.
    pub(crate) fn library(&self) -> Layered<'_> {
        Layered::new(beneath_product(&self.dependencies))
    }

    /// Whether `binary` is a product type.
    fn declares(&self, binary: &str) -> bool {
        self.own.as_ref().is_some_and(|o| o.declares(binary)) || self.model.declares(binary)
    }
}

/// What lies beneath the product's own types, nearest first: the jars of its dependencies
/// (or its classpath), the bundled models of the common test libraries and frameworks,
/// the JDK.
fn beneath_product(dependencies: &TypeModel) -> Vec<&dyn TypeSource> {
    vec![
        dependencies,
        crate::typemodel::libraries::libraries(),
        crate::typemodel::jdk::jdk(),
    ]
}

/// Resolves every call site of `file` against the product's table, with the types of
/// `file` alone as the product's typed layer (tests and single files).
pub(crate) fn resolve_calls(file: &CodeFile, table: &SymbolTable) -> Vec<ResolvedCall> {
    let product = ProductTypes::build([file], table);
    resolve_calls_typed(file, table, &product)
}

/// Resolves every call site of `file` against the product's table and types.
pub(crate) fn resolve_calls_typed(
    file: &CodeFile,
    table: &SymbolTable,
    product: &ProductTypes,
) -> Vec<ResolvedCall> {
    let mut layers: Vec<&dyn TypeSource> = Vec::with_capacity(5);
    if let Some(own) = &product.own {
        layers.push(&own.model);
    }
    layers.push(&product.model.model);
    layers.extend(beneath_product(&product.dependencies));
    let layered = Layered::new(layers);
    let layered = Memoized::new(&layered);
    let subtypes = FileSubtypes::default();
    let mut out = Vec::new();
    for t in &file.types {
        for m in &t.methods {
            if m.calls.is_empty() {
                continue;
            }
            let caller = MethodKey {
                type_fqn: t.fqn.clone(),
                name: m.name.clone(),
                params: m.params.iter().map(|p| simple_name(&p.ty)).collect(),
            };
            let names = Names {
                table,
                external: &layered,
            };
            let scope = Scope {
                table,
                type_fqn: &t.fqn,
                method: m,
                typer: Typer::new(names, &layered, &t.fqn, m, &subtypes, &product.subtypes),
                product,
            };
            for (index, site) in m.calls.iter().enumerate() {
                if site.kind == CallKind::Constructor && scope.typer.names_interface(&site.name) {
                    // `new Runnable() { … }` runs the anonymous class's own constructor,
                    // which calls only `Object`'s: no call of the interface to record.
                    continue;
                }
                let target = scope.call(site, 0);
                // An implicit call (`findById(id)` in a default method) is made on `this`.
                // Methods of JDK types are left out: they are most calls, and tell nothing.
                let receiver_type = match (&target, site.kind, &site.receiver) {
                    (Target::External { type_fqn, .. }, _, _) if type_fqn.starts_with("java.") => None,
                    (Target::External { .. }, CallKind::Method, Receiver::None) => {
                        scope.internal_receiver(&Receiver::This, site.byte)
                    }
                    (Target::External { .. }, CallKind::Method, r) => scope.internal_receiver(r, site.byte),
                    _ => None,
                };
                out.push(ResolvedCall {
                    caller: caller.clone(),
                    site: index,
                    line: site.line,
                    target,
                    receiver_type,
                });
            }
        }
    }
    out
}

/// The method a call site sits in.
struct Scope<'a> {
    table: &'a SymbolTable,
    type_fqn: &'a str,
    method: &'a MethodDecl,
    typer: Typer<'a>,
    product: &'a ProductTypes,
}

/// Most candidates an ambiguous call lists; beyond, it is unresolved.
const MAX_CANDIDATES: usize = 8;

/// The overloads a call may reach, each once (an override and the method it overrides
/// are one candidate: the nearest declaration stays).
fn ambiguous(keys: impl Iterator<Item = MethodKey>, why: impl FnOnce() -> String) -> Target {
    let mut out: Vec<MethodKey> = Vec::new();
    for k in keys {
        if !out.iter().any(|o| o.name == k.name && o.params == k.params) {
            out.push(k);
        }
    }
    match out.len() {
        0 => unresolved(why()),
        1 => out
            .pop()
            .map(Target::Internal)
            .unwrap_or_else(|| unresolved(why())),
        n if n > MAX_CANDIDATES => unresolved(why()),
        _ => Target::Ambiguous(out),
    }
}

impl Scope<'_> {
    fn call(&self, site: &CallSite, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return unresolved("call chain too deep");
        }
        match site.kind {
            CallKind::Constructor => match self.table.resolve_type(&site.name, self.type_fqn) {
                None => self.typed_any(site, depth).unwrap_or_else(|| {
                    match self.on_demand(&site.name, self.type_fqn) {
                        Some(t) => Target::External {
                            type_fqn: t.fqn,
                            method: "<init>".into(),
                        },
                        None => unresolved(format!("unknown type {}", site.name)),
                    }
                }),
                Some(t) if !t.internal => Target::External {
                    type_fqn: t.fqn,
                    method: "<init>".into(),
                },
                Some(t) => self.select(&t.fqn, "<init>", site, depth),
            },
            CallKind::ThisCall => self.select(self.type_fqn, "<init>", site, depth),
            CallKind::SuperCall => match self.superclass() {
                Some(t) if t.internal => self.select(&t.fqn, "<init>", site, depth),
                Some(t) => Target::External {
                    type_fqn: t.fqn,
                    method: "<init>".into(),
                },
                None => Target::External {
                    type_fqn: "java.lang.Object".into(),
                    method: "<init>".into(),
                },
            },
            CallKind::MethodRef => self.method_ref(site, depth),
            CallKind::Property => unresolved("a property access is Kotlin's"),
            CallKind::Method => match &site.receiver {
                Receiver::None => self.implicit(site, depth),
                r => match self.receiver_type(r, site.byte, depth + 1) {
                    // A receiver that is one of several library types may still give
                    // one method whichever it is.
                    Err(reason) => self
                        .agreed_external(site, depth)
                        .unwrap_or_else(|| unresolved(reason)),
                    Ok(Recv::Static(t)) if !t.internal => self.external(site, t.fqn, true, depth),
                    Ok(Recv::Instance(t)) if !t.internal => {
                        let exact = self.typer.exact(r, site.byte, depth + 1);
                        self.external(site, t.fqn, exact, depth)
                    }
                    Ok(Recv::Instance(t) | Recv::Static(t)) => self.select(&t.fqn, &site.name, site, depth),
                },
            },
        }
    }

    /// A call of a method of the external type `fqn`: named at the type that declares
    /// it where the type model knows the method. `exact`: `fqn` is the receiver's own
    /// static type, so a method a bundled library model lacks may have been added since
    /// that model's version (`Typer::lacks_method`), and the call is then on `fqn`, as on
    /// a type no layer models.
    fn external(&self, site: &CallSite, fqn: String, exact: bool, depth: usize) -> Target {
        if self
            .typer
            .lacks_method(&fqn, &site.name, exact, self.product.later_jdk)
        {
            return unresolved(format!("no method {} on {fqn}", site.name));
        }
        let declaring = self.typer.call(site, depth + 1).and_then(|choice| {
            let first = choice.found.first()?;
            let decl = first.declaring.fqn.clone();
            choice
                .found
                .iter()
                .all(|f| f.declaring.fqn == decl)
                .then(|| decl.to_string())
        });
        Target::External {
            type_fqn: declaring.filter(|d| self.table.get(d).is_none()).unwrap_or(fqn),
            method: site.name.clone(),
        }
    }

    /// The library method a call reaches whichever of its receiver's possible types the
    /// receiver has (see `Val::OneOf`), when the typed rules find one.
    fn agreed_external(&self, site: &CallSite, depth: usize) -> Option<Target> {
        let choice = self.typer.call(site, depth + 1)?;
        match self.one_target(&choice.found)? {
            t @ Target::External { .. } => Some(t),
            _ => None,
        }
    }

    /// The graph key of a product method the type model found.
    fn typed_key(&self, f: &FoundMethod<'_>) -> Option<MethodKey> {
        let params = self.product.key_params(f.declaring, f.method)?;
        Some(MethodKey {
            type_fqn: f.declaring.fqn.to_string(),
            name: f.method.name.to_string(),
            params: params.iter().map(|p| p.to_string()).collect(),
        })
    }

    /// The one method, of the product or not, the typed rules choose for a call.
    fn typed_any(&self, site: &CallSite, depth: usize) -> Option<Target> {
        let choice = self.typer.call(site, depth + 1)?;
        self.one_target(&choice.found)
    }

    /// The target of the one method found, if one was.
    fn one_target(&self, found: &[FoundMethod<'_>]) -> Option<Target> {
        let first = found.first()?;
        // Overloads of one external type: the edge names the method, not the signature.
        let external = |f: &FoundMethod<'_>| !self.product.declares(&f.declaring.binary);
        if found
            .iter()
            .all(|f| external(f) && f.declaring.fqn == first.declaring.fqn)
        {
            return Some(Target::External {
                type_fqn: first.declaring.fqn.to_string(),
                method: first.method.name.to_string(),
            });
        }
        let [one] = found else {
            return None;
        };
        if self.product.declares(&one.declaring.binary) {
            return self.typed_key(one).map(Target::Internal);
        }
        Some(Target::External {
            type_fqn: one.declaring.fqn.to_string(),
            method: one.method.name.to_string(),
        })
    }

    /// The one product method the typed rules choose for a call, if they choose one.
    fn typed_internal(&self, site: &CallSite, depth: usize) -> Option<Target> {
        let choice = self.typer.call(site, depth + 1)?;
        let [one] = choice.found.as_slice() else {
            return None;
        };
        if !self.product.declares(&one.declaring.binary) {
            return None;
        }
        self.typed_key(one).map(Target::Internal)
    }

    /// A receiver typed by the type model: a value or a type, product or external.
    fn typed_receiver(&self, r: &Receiver, byte: usize, depth: usize) -> Option<Recv> {
        let v = self.typer.expr(r, byte, depth)?;
        match v {
            Val::Value(t) => {
                let c = match &t {
                    Ty::Class(c) => c.clone(),
                    // A type variable is looked up in its bound.
                    Ty::Var(_) | Ty::Array(_) => self.typer.class_of(&t)?,
                    Ty::Prim(_) => return None,
                };
                let (fqn, internal) = self.typer.source_name(&c)?;
                Some(Recv::Instance(TypeRef { fqn, internal }))
            }
            Val::Type(c) => {
                let (fqn, internal) = self.typer.source_name(&c)?;
                Some(Recv::Static(TypeRef { fqn, internal }))
            }
            Val::Null | Val::OneOf(_) => None,
        }
    }

    fn superclass(&self) -> Option<TypeRef> {
        let t = self.table.get(self.type_fqn)?;
        let sup = t.superclass.clone()?;
        let internal = self.table.get(&sup).is_some();
        Some(TypeRef {
            fqn: sup.to_string(),
            internal,
        })
    }

    /// A call with no receiver: the current type and its supertypes, then the enclosing
    /// types, then static imports.
    fn implicit(&self, site: &CallSite, depth: usize) -> Target {
        let name = &site.name;
        let mut cur = Some(self.type_fqn.to_string());
        let mut external_super = None;
        let mut hops = 0;
        while let Some(fqn) = cur {
            hops += 1;
            if hops > 32 {
                break;
            }
            let (cands, ext) = self.table.methods_named(&fqn, name);
            if !cands.is_empty() {
                return self.select(&fqn, name, site, depth);
            }
            if external_super.is_none() {
                external_super = ext;
            }
            cur = self.table.outer(&fqn);
        }
        let Some(me) = self.table.get(self.type_fqn) else {
            return unresolved("caller type unknown");
        };
        let ctx = &me.ctx;
        if let Some(from) = ctx.static_single.get(name.as_str()) {
            return match self.table.resolve_type(from, self.type_fqn) {
                Some(t) if t.internal => self.select(&t.fqn, name, site, depth),
                _ => Target::External {
                    type_fqn: from.to_string(),
                    method: name.clone(),
                },
            };
        }
        for w in &ctx.static_wildcards {
            if self.table.get(w).is_some() && !self.table.methods_named(w, name).0.is_empty() {
                return self.select(w, name, site, depth);
            }
        }
        if let Some(ext) = external_super {
            return Target::External {
                type_fqn: ext,
                method: name.clone(),
            };
        }
        if let Some(t) = self.typed_any(site, depth) {
            return t;
        }
        if OBJECT_METHODS.contains(&name.as_str()) {
            return Target::External {
                type_fqn: "java.lang.Object".into(),
                method: name.clone(),
            };
        }
        // Nothing declared in scope answers, and the one static import on demand of a type
        // no model holds is where javac finds the method; of several, the one whose type
        // another file imports the method from by name (`import static W.name;`), else
        // unresolved, naming them.
        let unmodelled = self.unmodelled_static_wildcards(ctx);
        if unmodelled.is_empty() {
            return unresolved(format!("no method {name} in scope"));
        }
        match self.table.on_demand_owner(&unmodelled, name) {
            Some(owner) => Target::External {
                type_fqn: owner.clone(),
                method: name.clone(),
            },
            None => {
                let imports: Vec<String> = unmodelled
                    .iter()
                    .map(|w| format!("import static {w}.*"))
                    .collect();
                unresolved(format!("{name} may come from {}", imports.join(" or ")))
            }
        }
    }

    /// The product type a receiver expression is an instance of, if it is one.
    fn internal_receiver(&self, r: &Receiver, byte: usize) -> Option<String> {
        match self.receiver_type(r, byte, 1) {
            Ok(Recv::Instance(t)) if t.internal => Some(t.fqn),
            _ => None,
        }
    }

    /// The type a receiver expression denotes: by the product's names, then by the type
    /// model.
    fn receiver_type(&self, r: &Receiver, byte: usize, depth: usize) -> Result<Recv, String> {
        match self.receiver_type_by_name(r, byte, depth) {
            Ok(recv) => Ok(recv),
            Err(e) => self
                .typed_receiver(r, byte, depth)
                .or_else(|| self.on_demand_receiver(r, byte))
                .ok_or(e),
        }
    }

    /// The external type an on-demand import gives a name written in type `from`
    /// ([`SymbolTable::on_demand`]), the type models asked which packages they hold.
    fn on_demand(&self, written: &str, from: &str) -> Option<TypeRef> {
        // The method's own type variables shadow every type name.
        let head = written.split(['.', '<']).next().unwrap_or(written).trim();
        if self.method.type_params.iter().any(|(p, _)| p == head) {
            return None;
        }
        self.table.on_demand(
            written,
            from,
            |p| self.typer.knows_package(p),
            |f| self.typer.knows(f),
        )
    }

    /// A receiver whose type, or which as a type, is written by a name only an on-demand
    /// import of a library can declare: a type (`TriggerKey.jobKey(…)`), a local, a
    /// parameter or a field declared with such a type, `new`, a cast.
    fn on_demand_receiver(&self, r: &Receiver, byte: usize) -> Option<Recv> {
        match r {
            Receiver::Name(n) => match self.method.lookup_local(n, byte) {
                Some(Some(ty)) => self.on_demand(&ty, self.type_fqn).map(Recv::Instance),
                Some(None) => None,
                None => match self.field_in_scope(n) {
                    Some((ty, decl)) => self.on_demand(&ty, &decl).map(Recv::Instance),
                    // A type is named in upper camel case; an upper-case name is a constant.
                    None if n.chars().any(char::is_lowercase) => {
                        self.on_demand(n, self.type_fqn).map(Recv::Static)
                    }
                    None => None,
                },
            },
            Receiver::New(t) | Receiver::Cast(t, _) => self.on_demand(t, self.type_fqn).map(Recv::Instance),
            _ => None,
        }
    }

    fn receiver_type_by_name(&self, r: &Receiver, byte: usize, depth: usize) -> Result<Recv, String> {
        if depth > MAX_DEPTH {
            return Err("receiver chain too deep".into());
        }
        let here = |fqn: &str| TypeRef {
            fqn: fqn.to_string(),
            internal: self.table.get(fqn).is_some(),
        };
        match r {
            Receiver::None | Receiver::This => Ok(Recv::Instance(here(self.type_fqn))),
            Receiver::Super => Ok(Recv::Instance(
                self.superclass().unwrap_or_else(|| here("java.lang.Object")),
            )),
            Receiver::Name(n) => self.name_type(n, byte, depth),
            Receiver::New(t) => self
                .table
                .resolve_type(t, self.type_fqn)
                .map(Recv::Instance)
                .ok_or_else(|| format!("unknown type {t}")),
            // `Interface.super::m`, `Interface.super.m()`: a value of the interface named.
            Receiver::Field(inner, f) if f == "super" => self
                .receiver_type(inner, byte, depth + 1)
                .map(|(Recv::Static(t) | Recv::Instance(t))| Recv::Instance(t)),
            Receiver::Field(inner, f) => match self.receiver_type(inner, byte, depth + 1) {
                Ok(Recv::Instance(t)) if t.internal => self.field_type(&t.fqn, f),
                Ok(Recv::Instance(t)) => Err(format!("field {f} of external type {}", t.fqn)),
                Ok(Recv::Static(t)) if t.internal => match self.field_type(&t.fqn, f) {
                    Ok(r) => Ok(r),
                    Err(_) => self
                        .table
                        .member_type(&t, f)
                        .map(Recv::Static)
                        .ok_or_else(|| format!("no field or member type {f} in {}", t.fqn)),
                },
                Ok(Recv::Static(t)) => {
                    let is_type_like = f.starts_with(char::is_uppercase) && f.chars().any(char::is_lowercase);
                    if is_type_like {
                        self.table.member_type(&t, f).map(Recv::Static).ok_or_default()
                    } else {
                        Err(format!("static field {f} of external type {}", t.fqn))
                    }
                }
                Err(e) => match dotted(r) {
                    Some(path) => self
                        .table
                        .resolve_type(&path, self.type_fqn)
                        .map(Recv::Static)
                        .ok_or(e),
                    None => Err(e),
                },
            },
            Receiver::Call(cs) => match self.call(cs, depth + 1) {
                Target::Internal(k) => self.return_type(&k),
                Target::External { type_fqn, method } => {
                    Err(format!("result of external {type_fqn}.{method} not typed"))
                }
                Target::Unresolved { reason } => Err(reason),
                Target::Ambiguous(_) => Err(format!("result of ambiguous {}", cs.name)),
            },
            Receiver::Cast(t, _) => self
                .table
                .resolve_type(t, self.type_fqn)
                .map(Recv::Instance)
                .ok_or_else(|| format!("unknown type {t}")),
            _ => Err("receiver expression not typed".into()),
        }
    }

    /// A bare name: local or parameter, then field (own, inherited, enclosing), then type.
    fn name_type(&self, n: &str, byte: usize, depth: usize) -> Result<Recv, String> {
        match self.method.lookup_local(n, byte) {
            Some(Some(ty)) => {
                return self
                    .table
                    .resolve_type(&ty, self.type_fqn)
                    .map(Recv::Instance)
                    .ok_or_else(|| format!("type {ty} of {n} unknown"));
            }
            Some(None) => {
                let local = self.method.find_local(n, byte);
                if let Some(init) = local.and_then(|l| l.init.as_ref()) {
                    // `var x = init;` — typed like a receiver, from the declaration's place.
                    let at = local.map_or(byte, |l| l.scope.0);
                    return match self.receiver_type(init, at, depth + 1) {
                        Ok(Recv::Instance(t)) => Ok(Recv::Instance(t)),
                        _ => Err(format!("type of local {n} not known")),
                    };
                }
                let source = local.and_then(|l| l.lambda_source.as_ref());
                return source
                    .and_then(|(recv, method)| self.lambda_param_type(recv, method, byte, depth))
                    .map(Recv::Instance)
                    .ok_or_else(|| format!("type of local {n} not known"));
            }
            None => {}
        }
        if let Some((ty, decl)) = self.field_in_scope(n) {
            return self
                .table
                .resolve_type(&ty, &decl)
                .map(Recv::Instance)
                .ok_or_else(|| format!("type {ty} of field {n} unknown"));
        }
        self.table
            .resolve_type(n, self.type_fqn)
            .map(Recv::Static)
            .ok_or_else(|| self.unknown_name(n))
    }

    /// Why bare name `n` is unknown, with where it may come from: a supertype of the
    /// caller's type (or of a type enclosing it), or a type imported with `import static
    /// T.*`, that neither the product declares nor a type model holds.
    fn unknown_name(&self, n: &str) -> String {
        let Some(me) = self.table.get(self.type_fqn) else {
            return format!("unknown name {n}");
        };
        if me.ctx.single.contains_key(n) {
            return format!("unknown name {n}");
        }
        if let Some(owner) = me.ctx.static_single.get(n) {
            return if self.table.get(owner).is_none() && !self.typer.knows(owner) {
                format!("unknown name {n}: it is imported by `import static {owner}.{n}`, whose members are not known")
            } else {
                format!("unknown name {n}")
            };
        }
        let mut from: Vec<String> = Vec::new();
        for t in self.table.enclosing(self.type_fqn) {
            // No method is named so: the lookup walks every supertype and gives the first
            // the product does not declare.
            if let (_, Some(sup)) = self.table.methods_named(&t.fqn, "") {
                let said = format!("inherited from {sup}");
                if !self.typer.knows(&sup) && !from.contains(&said) {
                    from.push(said);
                }
            }
        }
        for w in self.unmodelled_static_wildcards(&me.ctx) {
            from.push(format!("imported by `import static {w}.*`"));
        }
        if from.is_empty() {
            return format!("unknown name {n}");
        }
        format!(
            "unknown name {n}: it may be {}, whose members are not known",
            from.join(" or ")
        )
    }

    /// The types of the file's `import static T.*` that neither the product declares nor a
    /// type model holds: where a member nothing else answers for may come from (a type a
    /// model holds was searched by the typed pass).
    fn unmodelled_static_wildcards(&self, ctx: &ImportCtx) -> Vec<String> {
        ctx.static_wildcards
            .iter()
            .filter(|w| self.table.get(w).is_none() && !self.typer.knows(w))
            .map(|w| w.to_string())
            .collect()
    }

    fn field_in_scope(&self, n: &str) -> Option<(String, String)> {
        let mut cur = Some(self.type_fqn.to_string());
        let mut hops = 0;
        while let Some(fqn) = cur {
            hops += 1;
            if hops > 32 {
                return None;
            }
            if let Some(found) = self.table.field(&fqn, n) {
                return Some(found);
            }
            cur = self.table.outer(&fqn);
        }
        None
    }

    fn field_type(&self, fqn: &str, f: &str) -> Result<Recv, String> {
        let (ty, decl) = self
            .table
            .field(fqn, f)
            .ok_or_else(|| format!("no field {f} in {fqn}"))?;
        self.table
            .resolve_type(&ty, &decl)
            .map(Recv::Instance)
            .ok_or_else(|| format!("type {ty} of field {f} unknown"))
    }

    fn return_type(&self, k: &MethodKey) -> Result<Recv, String> {
        let t = self
            .table
            .get(&k.type_fqn)
            .ok_or_else(|| format!("type {} unknown", k.type_fqn))?;
        let m = t
            .methods
            .iter()
            .find(|m| *m.name == *k.name && key(&k.type_fqn, m).params == k.params)
            .ok_or_else(|| format!("method {}.{} unknown", k.type_fqn, k.name))?;
        let ret = m
            .return_type
            .as_deref()
            .ok_or_else(|| format!("{}.{} has no return type", k.type_fqn, k.name))?;
        self.table
            .resolve_type(ret, &k.type_fqn)
            .map(Recv::Instance)
            .ok_or_else(|| format!("return type {ret} of {}.{} not typed", k.type_fqn, k.name))
    }

    /// The type of argument `i` of a call, where known.
    fn arg_type(&self, site: &CallSite, i: usize, depth: usize) -> Option<String> {
        if let Some(Some(t)) = site.arg_types.get(i) {
            return Some(t.clone());
        }
        match site.arg_exprs.get(i)? {
            Receiver::Other => None,
            expr => match self.receiver_type_by_name(expr, site.byte, depth + 1) {
                Ok(Recv::Instance(t)) => Some(t.fqn),
                _ => match self.typer.expr(expr, site.byte, depth + 1)? {
                    Val::Value(Ty::Prim(p)) => Some(p.keyword().to_string()),
                    Val::Value(Ty::Class(c)) => self.typer.source_name(&c).map(|(fqn, _)| fqn),
                    _ => None,
                },
            },
        }
    }

    /// The parameter of `recv.method(x -> ...)` is the element type of `recv` when
    /// `method` hands the lambda the elements (`forEach`, `filter`, `map`...).
    fn lambda_param_type(&self, recv: &Receiver, method: &str, byte: usize, depth: usize) -> Option<TypeRef> {
        if !ELEMENT_METHODS.contains(&method) || depth > MAX_DEPTH {
            return None;
        }
        let (written, ctx) = self.written_type(recv, byte, depth + 1)?;
        let element = element_of(&written)?;
        self.table.resolve_type(&element, &ctx)
    }

    /// The declared type of a receiver with its generic arguments, and the type whose
    /// imports apply to it.
    fn written_type(&self, recv: &Receiver, byte: usize, depth: usize) -> Option<(String, String)> {
        if depth > MAX_DEPTH {
            return None;
        }
        match recv {
            Receiver::Name(n) => match self.method.lookup_local(n, byte) {
                Some(ty) => ty.map(|t| (t, self.type_fqn.to_string())),
                None => self.field_in_scope(n),
            },
            Receiver::Field(inner, f) if **inner == Receiver::This => self.table.field(self.type_fqn, f),
            Receiver::Call(cs) => match self.call(cs, depth + 1) {
                Target::Internal(k) => {
                    let t = self.table.get(&k.type_fqn)?;
                    let m = t
                        .methods
                        .iter()
                        .find(|m| *m.name == *k.name && key(&k.type_fqn, m).params == k.params)?;
                    Some((m.return_type.as_deref()?.to_string(), k.type_fqn))
                }
                // `list.stream()`, `stream.filter(..)`, `optional.filter(..)`: the same
                // elements, so the container's written type still tells the element type
                // (`element_of` only accepts the JDK container names).
                Target::External { .. } | Target::Unresolved { .. }
                    if ELEMENT_PRESERVING.contains(&cs.name.as_str()) =>
                {
                    self.written_type(&cs.receiver, byte, depth + 1)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Picks the one method `name` of type `fqn` that fits the call site.
    fn select(&self, fqn: &str, name: &str, site: &CallSite, depth: usize) -> Target {
        let (cands, external) = self.table.methods_named(fqn, name);
        // Not declared by the product: by the library type that declares it, where the
        // type models find it among the product type's supertypes (any of them: `Value
        // extends CharSequence, InputStreamSource` has `getInputStream()` from the second),
        // else on the product's first library supertype.
        let fallback = |why: String| match &external {
            Some(ext) => match self.typed_any(site, depth) {
                Some(t @ Target::External { .. }) => t,
                _ => Target::External {
                    type_fqn: ext.clone(),
                    method: name.to_string(),
                },
            },
            None if OBJECT_METHODS.contains(&name) => Target::External {
                type_fqn: "java.lang.Object".into(),
                method: name.to_string(),
            },
            None if ENUM_METHODS.contains(&name)
                && self.table.get(fqn).is_some_and(|t| t.kind == TypeKind::Enum) =>
            {
                Target::External {
                    type_fqn: "java.lang.Enum".into(),
                    method: name.to_string(),
                }
            }
            None => unresolved(why),
        };
        if cands.is_empty() {
            return fallback(format!("no method {name} on {fqn}"));
        }
        let n = site.arg_count;
        let by_arity: Vec<&(String, &MethodInfo)> = cands
            .iter()
            .filter(|(_, m)| m.params.len() == n || (m.varargs && n + 1 >= m.params.len()))
            .collect();
        match by_arity.len() {
            0 => return fallback(format!("no {name} on {fqn} takes {n} arguments")),
            1 => return Target::Internal(key(&by_arity[0].0, by_arity[0].1)),
            _ => {}
        }
        let fits: Vec<(&(String, &MethodInfo), Vec<Fit>)> = by_arity
            .into_iter()
            .map(|c| {
                let fits = (0..n)
                    .map(|i| {
                        let param = c.1.params.get(i).or(c.1.params.last());
                        match param {
                            Some(p) => self.fit(self.arg_type(site, i, depth).as_deref(), p, &c.0),
                            None => Fit::No,
                        }
                    })
                    .collect();
                (c, fits)
            })
            .filter(|(_, f): &(_, Vec<Fit>)| !f.contains(&Fit::No))
            .collect();
        if fits.len() != 1 {
            if let Some(t) = self.typed_internal(site, depth) {
                return t;
            }
        }
        match fits.len() {
            0 => unresolved(format!("no overload of {fqn}.{name} fits the arguments")),
            1 => Target::Internal(key(&fits[0].0 .0, fits[0].0 .1)),
            _ => {
                let exact: Vec<_> = fits
                    .iter()
                    .filter(|(_, f)| f.iter().all(|x| *x == Fit::Exact))
                    .collect();
                if exact.len() == 1 {
                    Target::Internal(key(&exact[0].0 .0, exact[0].0 .1))
                } else {
                    ambiguous(fits.iter().map(|(c, _)| key(&c.0, c.1)), || {
                        format!("ambiguous overload {fqn}.{name}")
                    })
                }
            }
        }
    }

    /// Whether an argument of type `arg` (written in the caller) may be passed to a
    /// parameter of type `param` (written in type `callee`).
    fn fit(&self, arg: Option<&str>, param: &str, callee: &str) -> Fit {
        let Some(arg) = arg else {
            return Fit::Maybe;
        };
        let (a, p) = (erase(arg), erase(param));
        let (ap, pp) = (is_primitive(&a), is_primitive(&p));
        if ap || pp {
            return if a == p {
                Fit::Exact
            } else if ap && pp {
                if widens(&a, &p) {
                    Fit::Maybe
                } else {
                    Fit::No
                }
            } else {
                let (prim, boxed) = if ap { (&a, &p) } else { (&p, &a) };
                let boxed = simple_name(boxed);
                if box_of(prim) == Some(boxed.as_str())
                    || (ap
                        && matches!(
                            boxed.as_str(),
                            "Object" | "Number" | "Serializable" | "Comparable"
                        ))
                    || (pp && box_of_widening(&boxed, prim))
                {
                    Fit::Maybe
                } else {
                    Fit::No
                }
            };
        }
        let ra = self.table.resolve_type(&a, self.type_fqn);
        let rp = self.table.resolve_type(&p, callee);
        match (ra, rp) {
            (Some(ra), Some(rp)) => {
                if ra.fqn == rp.fqn {
                    Fit::Exact
                } else if rp.fqn == "java.lang.Object" {
                    Fit::Maybe
                } else if ra.internal {
                    if self.table.is_subtype(&ra.fqn, &rp.fqn) {
                        Fit::Maybe
                    } else if rp.internal || JDK_VALUE_TYPES.contains(&rp.fqn.as_str()) {
                        Fit::No
                    } else {
                        Fit::Maybe
                    }
                } else if rp.internal
                    || JDK_VALUE_TYPES.contains(&ra.fqn.as_str())
                    || JDK_VALUE_TYPES.contains(&rp.fqn.as_str())
                {
                    // A value type still passes as an interface the JDK says it implements
                    // (`String` as `CharSequence`).
                    if self.typer.surely_subtype(&ra.fqn, &rp.fqn) {
                        Fit::Maybe
                    } else {
                        Fit::No
                    }
                } else {
                    Fit::Maybe
                }
            }
            _ if a.ends_with(']') || p.ends_with(']') => {
                if a == p {
                    Fit::Exact
                } else if a.ends_with(']') != p.ends_with(']') && p != "Object" {
                    Fit::No
                } else {
                    Fit::Maybe
                }
            }
            _ if simple_name(&a) == simple_name(&p) => Fit::Exact,
            _ => Fit::Maybe,
        }
    }

    /// `X::m`, `this::m`, `obj::m`, `X::new`.
    fn method_ref(&self, site: &CallSite, depth: usize) -> Target {
        let recv = match self.receiver_type(&site.receiver, site.byte, depth + 1) {
            Ok(r) => r,
            Err(e) => return unresolved(e),
        };
        let (t, is_static_ref) = match recv {
            Recv::Instance(t) => (t, false),
            Recv::Static(t) => (t, true),
        };
        if !t.internal {
            return Target::External {
                type_fqn: t.fqn,
                method: site.name.clone(),
            };
        }
        let (cands, external) = self.table.methods_named(&t.fqn, &site.name);
        if cands.is_empty() {
            return match external {
                Some(ext) => Target::External {
                    type_fqn: ext,
                    method: site.name.clone(),
                },
                None => unresolved(format!("no method {} on {}", site.name, t.fqn)),
            };
        }
        let fitting: Vec<&(String, &MethodInfo)> = match site.arity_hint {
            None => cands.iter().collect(),
            Some(n) => cands
                .iter()
                .filter(|(_, m)| {
                    if site.name == "<init>" || !is_static_ref {
                        m.params.len() == n
                    } else {
                        (m.is_static && m.params.len() == n) || (!m.is_static && m.params.len() + 1 == n)
                    }
                })
                .collect(),
        };
        if fitting.len() != 1 {
            if let Some(t) = self
                .typer
                .method_ref(site, depth + 1)
                .and_then(|f| self.one_target(&f))
            {
                return t;
            }
        }
        match fitting.as_slice() {
            [one] => Target::Internal(key(&one.0, one.1)),
            [] => unresolved(format!("no {}.{} fits the method reference", t.fqn, site.name)),
            _ => ambiguous(fitting.iter().map(|c| key(&c.0, c.1)), || {
                format!("ambiguous overload {}.{}", t.fqn, site.name)
            }),
        }
    }
}

/// `List<Foo>` → `Foo`; `Optional<? extends Foo>` → `Foo`; anything else → `None`.
fn element_of(written: &str) -> Option<String> {
    let open = written.find('<')?;
    let base = simple_name(&written[..open]);
    if !CONTAINERS.contains(&base.as_str()) {
        return None;
    }
    let inner = written[open + 1..].trim_end().strip_suffix('>')?.trim();
    if inner.contains(',') || inner == "?" {
        return None;
    }
    let inner = inner.strip_prefix("? extends ").unwrap_or(inner).trim();
    Some(inner.to_string())
}

/// A receiver that is only names (`a.b.C`), as dotted text.
fn dotted(r: &Receiver) -> Option<String> {
    match r {
        Receiver::Name(n) => Some(n.clone()),
        Receiver::Field(inner, f) => Some(format!("{}.{f}", dotted(inner)?)),
        _ => None,
    }
}

trait OkOrDefault<T> {
    fn ok_or_default(self) -> Result<T, String>;
}

impl<T> OkOrDefault<T> for Option<T> {
    fn ok_or_default(self) -> Result<T, String> {
        self.ok_or_else(|| "unknown member type".to_string())
    }
}

fn widens(from: &str, to: &str) -> bool {
    const ORDER: &[&str] = &["byte", "short", "int", "long", "float", "double"];
    let pos = |t: &str| ORDER.iter().position(|x| *x == t);
    match (from, pos(from), pos(to)) {
        ("char", _, Some(t)) => t >= 2,
        (_, Some(f), Some(t)) => f < t,
        _ => false,
    }
}

fn box_of(prim: &str) -> Option<&'static str> {
    Some(match prim {
        "int" => "Integer",
        "long" => "Long",
        "short" => "Short",
        "byte" => "Byte",
        "char" => "Character",
        "boolean" => "Boolean",
        "double" => "Double",
        "float" => "Float",
        _ => return None,
    })
}

/// A boxed argument unboxed and widened to a primitive parameter.
fn box_of_widening(boxed: &str, prim: &str) -> bool {
    [
        "byte", "short", "char", "int", "long", "float", "double", "boolean",
    ]
    .iter()
    .any(|p| box_of(p) == Some(boxed) && (*p == prim || widens(p, prim)))
}
