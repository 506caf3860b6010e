//! The product's symbol table: every type, method and field of one product, with the
//! import context of the file each type came from, so names written anywhere can be
//! resolved to fully-qualified types the way `javac` would — or reported as unknown.
//!
//! Types are keyed by fqn, never by simple name alone: two `Money` classes in two
//! packages stay two types. Types outside the product are only ever named through an
//! explicit import (or `java.lang`), never guessed.

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::sync::Arc;

use crate::facts::{erase, simple_name, CodeFile, Language, MethodDecl, TypeKind};
use crate::typemodel::model::TypeSource;
use crate::typemodel::ty::{Interner, Name};

/// Names of `java.lang` types that may be used without an import.
const JAVA_LANG: &[&str] = &[
    "Object",
    "String",
    "StringBuilder",
    "StringBuffer",
    "Integer",
    "Long",
    "Short",
    "Byte",
    "Double",
    "Float",
    "Boolean",
    "Character",
    "Number",
    "Math",
    "StrictMath",
    "System",
    "Thread",
    "Runnable",
    "Exception",
    "RuntimeException",
    "Error",
    "Throwable",
    "IllegalArgumentException",
    "IllegalStateException",
    "NullPointerException",
    "UnsupportedOperationException",
    "IndexOutOfBoundsException",
    "Iterable",
    "Comparable",
    "CharSequence",
    "Enum",
    "Record",
    "Class",
    "Void",
    "AutoCloseable",
    "Override",
    "Deprecated",
    "SuppressWarnings",
    "FunctionalInterface",
    "InterruptedException",
    "ArithmeticException",
    "NumberFormatException",
    "ClassCastException",
    "Cloneable",
    "Process",
    "ProcessBuilder",
    "Runtime",
    "ThreadLocal",
    "SecurityException",
];

/// Where names written in a file are looked up.
///
/// Every name is the table's shared copy: a product's files import the same few thousand
/// types, and each file holding its own spelling of them was most of the table's memory.
#[derive(Debug, Default)]
pub(crate) struct ImportCtx {
    pub(crate) package: Name,
    /// Simple name → fqn of single-type imports.
    pub(crate) single: FxHashMap<Name, Name>,
    /// Packages (or types) imported with `.*`.
    pub(crate) wildcards: Vec<Name>,
    /// Member name → fqn of the type it is statically imported from.
    pub(crate) static_single: FxHashMap<Name, Name>,
    /// Types whose static members are all imported.
    pub(crate) static_wildcards: Vec<Name>,
}

/// A method as the resolver needs it (its names the table's shared copies).
#[derive(Debug, Clone)]
pub(crate) struct MethodInfo {
    pub(crate) name: Name,
    /// Erased parameter types as written (`List`, `Map.Entry`, `String[]`).
    pub(crate) params: Box<[Name]>,
    pub(crate) varargs: bool,
    pub(crate) return_type: Option<Name>,
    pub(crate) is_static: bool,
    /// What only a Kotlin method has; `None` for a method declared in Java (most of a
    /// product's methods: one pointer each rather than two empty lists).
    kotlin: Option<Box<KotlinParams>>,
    /// A record accessor the source does not write.
    #[cfg(test)]
    pub(crate) implicit: bool,
}

/// The parameters of a Kotlin method beyond their types.
#[derive(Debug, Clone)]
struct KotlinParams {
    /// Names as declared (Kotlin calls may name their arguments).
    names: Vec<String>,
    /// Which parameters have a default value, so a call may leave them out.
    defaults: Vec<bool>,
}

impl MethodInfo {
    /// Parameter names as declared; empty for a method declared in Java.
    pub(crate) fn param_names(&self) -> &[String] {
        self.kotlin.as_deref().map_or(&[], |k| &k.names)
    }

    /// Which parameters have a default value (Kotlin); empty for a method declared in Java.
    pub(crate) fn defaults(&self) -> &[bool] {
        self.kotlin.as_deref().map_or(&[], |k| &k.defaults)
    }
}

/// A type as the resolver needs it.
///
/// Its names are the table's shared copies too: a type's fqn is also the table's key, its
/// package's entry, its outer type's member and every subtype's supertype.
#[derive(Debug)]
pub(crate) struct TypeInfo {
    pub(crate) fqn: Name,
    pub(crate) kind: TypeKind,
    pub(crate) outer: Option<Name>,
    pub(crate) type_params: Vec<Name>,
    /// Resolved superclass fqn (internal or external); `None` for `Object`.
    pub(crate) superclass: Option<Name>,
    /// Resolved super-interfaces.
    pub(crate) interfaces: Vec<Name>,
    pub(crate) methods: Vec<MethodInfo>,
    /// Field name → declared type as written.
    pub(crate) fields: FxHashMap<Name, Name>,
    /// Simple name → fqn of member types.
    pub(crate) nested: FxHashMap<Name, Name>,
    pub(crate) ctx: Arc<ImportCtx>,
    extends_written: Vec<Name>,
    implements_written: Vec<Name>,
}

/// Every type of one product, as the files of one module see them.
///
/// A product may declare one fully-qualified name in two modules (a class copied into
/// each service). The table built from all files holds one copy of each name;
/// [`SymbolTable::for_module`] lays a module's own copies over it, so that module's files
/// bind names to the copy they compile against. The shared part is built once and
/// reference-counted: a module's view costs only its own copies.
#[derive(Debug, Default)]
pub(crate) struct SymbolTable {
    shared: Arc<SharedTypes>,
    /// This view's module's copies of names other modules declare too; they hide the
    /// shared copy of the same name.
    own: FxHashMap<Name, Box<TypeInfo>>,
}

#[derive(Debug, Default)]
struct SharedTypes {
    /// Each type boxed: a map's slots are a power of two, up to half of them empty, and a
    /// `TypeInfo` (about 300 bytes) in each slot held that room for nothing; boxed, a slot
    /// is a key and a pointer. On spring-boot the table took 30 MB rather than 34 (jemalloc's
    /// `stats.allocated` around its build).
    types: FxHashMap<Name, Box<TypeInfo>>,
    /// `(package, simple name)` → fqn of top-level types.
    by_package: FxHashMap<Name, FxHashMap<Name, Name>>,
    /// Package → the classes holding its top-level functions and properties (Kotlin's
    /// file facades), where top-level and extension functions are looked up.
    facades: FxHashMap<Name, Vec<Name>>,
    /// The types and static members the product's files import by name (`import
    /// io.minio.MinioClient;`, `import static a.B.get;`, Kotlin's `import a.B.get`): what
    /// some file names this way exists where that import says.
    imported_by_name: rustc_hash::FxHashSet<Name>,
}

/// A resolved type: its fqn and whether the product declares it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TypeRef {
    pub(crate) fqn: String,
    pub(crate) internal: bool,
}

/// A method of a file written in `language`, as the resolver needs it. Parameter names and
/// defaults are kept for Kotlin's methods only: Kotlin names arguments only in calls of
/// Kotlin functions (a Java method's parameters have no names a call can use), and only
/// Kotlin declares defaults, so a Java method's would be held for nothing.
fn method_info(m: &MethodDecl, language: Language, names: &mut Interner) -> MethodInfo {
    let kotlin = language == Language::Kotlin;
    MethodInfo {
        name: names.intern(&m.name),
        params: m.params.iter().map(|p| names.intern(&erase(&p.ty))).collect(),
        varargs: m.varargs,
        return_type: m.return_type.as_deref().map(|r| names.intern(r)),
        is_static: m.modifiers.iter().any(|x| x == "static"),
        kotlin: kotlin.then(|| {
            Box::new(KotlinParams {
                names: m.params.iter().map(|p| p.name.clone()).collect(),
                defaults: m.params.iter().map(|p| p.has_default).collect(),
            })
        }),
        #[cfg(test)]
        implicit: m.implicit && m.name != "<init>",
    }
}

/// The import context of `file`.
fn import_ctx(file: &CodeFile, names: &mut Interner) -> ImportCtx {
    let mut ctx = ImportCtx {
        package: names.intern(&file.package),
        ..ImportCtx::default()
    };
    for imp in &file.imports {
        match (imp.is_static, imp.wildcard) {
            (false, false) => {
                let bound = imp.alias.clone().unwrap_or_else(|| simple_name(&imp.path));
                ctx.single.insert(names.intern(&bound), names.intern(&imp.path));
            }
            (false, true) => ctx.wildcards.push(names.intern(&imp.path)),
            (true, false) => {
                if let Some((ty, member)) = imp.path.rsplit_once('.') {
                    ctx.static_single.insert(names.intern(member), names.intern(ty));
                }
            }
            (true, true) => ctx.static_wildcards.push(names.intern(&imp.path)),
        }
    }
    ctx.single.shrink_to_fit();
    ctx.static_single.shrink_to_fit();
    ctx.wildcards.shrink_to_fit();
    ctx.static_wildcards.shrink_to_fit();
    ctx
}

/// The types `file` declares, as the resolver needs them (supertypes not yet bound).
fn type_infos(file: &CodeFile, names: &mut Interner) -> Vec<TypeInfo> {
    let ctx = Arc::new(import_ctx(file, names));
    file.types
        .iter()
        .map(|t| {
            let mut methods: Vec<MethodInfo> = t
                .methods
                .iter()
                .map(|m| method_info(m, file.language, names))
                .collect();
            if t.kind == TypeKind::Class && !t.anonymous && !t.methods.iter().any(|m| m.name == "<init>") {
                // The implicit default constructor.
                methods.push(MethodInfo {
                    name: names.intern("<init>"),
                    params: Box::default(),
                    varargs: false,
                    return_type: None,
                    is_static: false,
                    kotlin: None,
                    #[cfg(test)]
                    implicit: false,
                });
            }
            methods.shrink_to_fit();
            let mut fields: FxHashMap<Name, Name> = t
                .fields
                .iter()
                .map(|f| (names.intern(&f.name), names.intern(&f.ty)))
                .collect();
            for c in &t.enum_constants {
                fields.insert(names.intern(c), names.intern(&t.name));
            }
            let all = |written: &[String], names: &mut Interner| -> Vec<Name> {
                written.iter().map(|w| names.intern(w)).collect()
            };
            TypeInfo {
                fqn: names.intern(&t.fqn),
                kind: t.kind,
                outer: t.outer.as_deref().map(|o| names.intern(o)),
                type_params: all(&t.type_params, names),
                superclass: None,
                interfaces: Vec::new(),
                methods,
                fields,
                nested: FxHashMap::default(),
                ctx: Arc::clone(&ctx),
                extends_written: all(&t.extends, names),
                implements_written: all(&t.implements, names),
            }
        })
        .collect()
}

/// Records each member type of `types` in its outer type's `nested`.
fn link_members(types: &mut FxHashMap<Name, Box<TypeInfo>>, names: &mut Interner) {
    let pairs: Vec<(Name, Name, Name)> = types
        .values()
        .filter_map(|t| {
            let outer = t.outer.clone()?;
            let simple = t.fqn.strip_prefix(&*outer)?.strip_prefix('.')?;
            Some((outer, names.intern(simple), t.fqn.clone()))
        })
        .collect();
    for (outer, simple, fqn) in pairs {
        if let Some(o) = types.get_mut(&outer) {
            o.nested.insert(simple, fqn);
        }
    }
}

impl SymbolTable {
    /// Builds the table from all files of one product.
    pub(crate) fn build<'a>(files: impl IntoIterator<Item = &'a CodeFile>) -> SymbolTable {
        let mut shared = SharedTypes::default();
        let mut names = Interner::default();
        for file in files {
            if let Some(facade) = &file.facade {
                shared
                    .facades
                    .entry(names.intern(&file.package))
                    .or_default()
                    .push(names.intern(facade));
            }
            for t in file.types.iter().filter(|t| t.outer.is_none()) {
                let (simple, fqn) = (names.intern(&t.name), names.intern(&t.fqn));
                shared
                    .by_package
                    .entry(names.intern(&file.package))
                    .or_default()
                    .insert(simple, fqn);
            }
            for i in file.imports.iter().filter(|i| !i.wildcard) {
                shared.imported_by_name.insert(names.intern(&i.path));
            }
            for info in type_infos(file, &mut names) {
                shared.types.insert(info.fqn.clone(), Box::new(info));
            }
        }
        // Member types, then supertypes (which may name member types).
        link_members(&mut shared.types, &mut names);
        let mut table = SymbolTable {
            shared: Arc::new(shared),
            own: FxHashMap::default(),
        };
        let fqns: Vec<Name> = table.shared.types.keys().cloned().collect();
        table.link_all(&fqns, &mut names, |t| {
            Arc::get_mut(&mut t.shared).map(|s| &mut s.types)
        });
        table
    }

    /// The table as the files of one module see it: `files` are that module's files
    /// declaring names another module of the product declares too, and their types hide
    /// the shared copies of those names.
    pub(crate) fn for_module<'a>(&self, files: impl IntoIterator<Item = &'a CodeFile>) -> SymbolTable {
        let mut own: FxHashMap<Name, Box<TypeInfo>> = FxHashMap::default();
        let mut names = Interner::default();
        for file in files {
            for info in type_infos(file, &mut names) {
                own.insert(info.fqn.clone(), Box::new(info));
            }
        }
        link_members(&mut own, &mut names);
        let mut table = SymbolTable {
            shared: Arc::clone(&self.shared),
            own,
        };
        let fqns: Vec<Name> = table.own.keys().cloned().collect();
        table.link_all(&fqns, &mut names, |t| Some(&mut t.own));
        table
    }

    /// Binds the written supertypes of `fqns`, held in the map `held` gives.
    fn link_all(
        &mut self,
        fqns: &[Name],
        names: &mut Interner,
        held: impl Fn(&mut SymbolTable) -> Option<&mut FxHashMap<Name, Box<TypeInfo>>>,
    ) {
        // A supertype written as a member type inherited from another supertype
        // (`class Builder extends AbstractBuilder<…>` inside a subclass of the type that
        // declares `AbstractBuilder`) binds only once that supertype is linked: link
        // again until nothing changes (a few rounds at most; nesting is shallow).
        for _ in 0..4 {
            // Each type's on its own, on the pool (binding names is most of the build).
            let bound: Vec<(&Name, Option<String>, Vec<String>)> = fqns
                .par_iter()
                .filter_map(|fqn| self.supertypes(fqn).map(|(sup, ifaces)| (fqn, sup, ifaces)))
                .collect();
            let bound: Vec<(&Name, Option<Name>, Vec<Name>)> = bound
                .into_iter()
                .map(|(fqn, sup, ifaces)| {
                    let sup = sup.map(|s| names.intern(&s));
                    (fqn, sup, ifaces.iter().map(|i| names.intern(i)).collect())
                })
                .collect();
            let Some(types) = held(self) else {
                return;
            };
            let mut changed = false;
            for (fqn, superclass, interfaces) in bound {
                if let Some(t) = types.get_mut(fqn) {
                    if t.superclass != superclass || t.interfaces != interfaces {
                        changed = true;
                    }
                    t.superclass = superclass;
                    t.interfaces = interfaces;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// The supertypes type `fqn` writes, bound as far as the table now tells.
    fn supertypes(&self, fqn: &str) -> Option<(Option<String>, Vec<String>)> {
        let t = self.ty(fqn)?;
        let bind = |w: &Name| {
            self.resolve_type(w, fqn)
                .or_else(|| self.imported_on_demand(w, t))
        };
        let extends: Vec<Option<TypeRef>> = t.extends_written.iter().map(bind).collect();
        let implements: Vec<Option<TypeRef>> = t.implements_written.iter().map(bind).collect();
        let mut superclass = None;
        let mut interfaces = Vec::new();
        for r in extends.into_iter().flatten() {
            let is_interface = self.ty(&r.fqn).is_some_and(|s| s.kind == TypeKind::Interface);
            if t.kind == TypeKind::Interface || is_interface {
                interfaces.push(r.fqn);
            } else {
                superclass = Some(r.fqn);
            }
        }
        interfaces.extend(implements.into_iter().flatten().map(|r| r.fqn));
        Some((superclass, interfaces))
    }

    /// A supertype written by a simple name that nothing of the product declares: a type
    /// of `java.lang` the JDK model knows, else the type of that name in the one package
    /// imported on demand that can hold it ([`SymbolTable::on_demand`], asked of the
    /// bundled models: `extends JpaRepository<…>` under
    /// `import org.springframework.data.jpa.repository.*;`). Left unbound, such a type
    /// looked like it had no supertype outside the product, and a call of an inherited
    /// method (`repository.save(…)`) was said to name no method at all.
    fn imported_on_demand(&self, written: &str, t: &TypeInfo) -> Option<TypeRef> {
        let name = erase(written);
        if name.is_empty() || name.contains(['.', '[']) || is_primitive(&name) {
            return None;
        }
        let lang = format!("java.lang.{name}");
        if crate::typemodel::jdk::jdk().get(&lang).is_some() {
            return Some(TypeRef {
                fqn: lang,
                internal: false,
            });
        }
        let bundled = |f: &dyn Fn(&dyn TypeSource) -> bool| {
            f(crate::typemodel::jdk::jdk()) || f(crate::typemodel::libraries::libraries())
        };
        self.on_demand_in(
            &name,
            &t.ctx,
            |p| bundled(&|m| m.has_package(p)),
            |f| bundled(&|m| m.by_fqn(f).is_some()),
        )
    }

    /// The external type a name written in type `from` denotes when no product type, no
    /// single-type import and no type model answers for it, by the one on-demand import
    /// (`import org.quartz.*;`) that can hold it: `TriggerKey.jobKey(…)` is a call of
    /// `org.quartz.TriggerKey`. `written` may be qualified by a member type
    /// (`Problem.Builder`) and carry type arguments; only its first name is looked up.
    ///
    /// An import that can hold it is one of a package neither the product declares nor a
    /// type model holds (`model_package`); a package a model holds answers exactly, by
    /// whether it has the type (`model_type`). Between two imports that can hold it, the
    /// one whose type another file of the product imports by name is taken (javac would
    /// find it there); else nothing is guessed, so a name stays unresolved rather than
    /// bound to a wrong type.
    pub(crate) fn on_demand(
        &self,
        written: &str,
        from: &str,
        model_package: impl Fn(&str) -> bool,
        model_type: impl Fn(&str) -> bool,
    ) -> Option<TypeRef> {
        let erased = erase(written);
        let (head, rest) = match erased.split_once('.') {
            Some((head, rest)) => (head, Some(rest)),
            None => (erased.as_str(), None),
        };
        if head.is_empty() || !head.starts_with(char::is_uppercase) || erased.ends_with(']') {
            return None;
        }
        let t = self.ty(from)?;
        // A type variable of the type or of a type enclosing it is no imported type.
        if self
            .enclosing(from)
            .any(|s| s.type_params.iter().any(|p| **p == *head))
        {
            return None;
        }
        let found = self.on_demand_in(head, &t.ctx, model_package, model_type)?;
        Some(match rest {
            Some(rest) => TypeRef {
                fqn: format!("{}.{rest}", found.fqn),
                internal: false,
            },
            None => found,
        })
    }

    fn on_demand_in(
        &self,
        name: &str,
        ctx: &ImportCtx,
        model_package: impl Fn(&str) -> bool,
        model_type: impl Fn(&str) -> bool,
    ) -> Option<TypeRef> {
        let holders: Vec<String> = ctx
            .wildcards
            .iter()
            .filter(|w| {
                // The product's own packages and types were searched already.
                if self.shared.by_package.contains_key(&***w) || self.has(w) {
                    return false;
                }
                !(model_package(w) || model_type(w)) || model_type(&format!("{w}.{name}"))
            })
            .map(|w| w.to_string())
            .collect();
        let owner = self.on_demand_owner(&holders, name)?;
        Some(TypeRef {
            fqn: format!("{owner}.{name}"),
            internal: false,
        })
    }

    /// Of the `owners` (packages or types) imported on demand that may hold `name`, the one
    /// that does: the only one, else the one from which, and only from which, a file of the
    /// product imports `name` by name (`import io.minio.MinioClient;`, `import static
    /// a.B.get;`) — javac finds `name` there, since two holding it would be ambiguous.
    pub(crate) fn on_demand_owner<'o>(&self, owners: &'o [String], name: &str) -> Option<&'o String> {
        if let [only] = owners {
            return Some(only);
        }
        let mut named = owners.iter().filter(|o| {
            self.shared
                .imported_by_name
                .contains(format!("{o}.{name}").as_str())
        });
        match (named.next(), named.next()) {
            (Some(one), None) => Some(one),
            _ => None,
        }
    }

    /// Type `fqn`: this view's own copy, else the shared one.
    fn ty(&self, fqn: &str) -> Option<&TypeInfo> {
        self.own
            .get(fqn)
            .or_else(|| self.shared.types.get(fqn))
            .map(|t| &**t)
    }

    /// Whether the product declares `fqn`.
    fn has(&self, fqn: &str) -> bool {
        self.own.contains_key(fqn) || self.shared.types.contains_key(fqn)
    }

    pub(crate) fn get(&self, fqn: &str) -> Option<&TypeInfo> {
        self.ty(fqn)
    }

    /// The type enclosing type `fqn`, when the product declares `fqn` and it is a member,
    /// local or anonymous type.
    pub(crate) fn outer(&self, fqn: &str) -> Option<String> {
        self.ty(fqn)?.outer.as_deref().map(str::to_string)
    }

    /// The classes holding the top-level functions and properties of `package`.
    pub(crate) fn facades(&self, package: &str) -> &[Name] {
        self.shared.facades.get(package).map_or(&[], Vec::as_slice)
    }

    /// Whether `fqn` declares more than one method (or constructor) called `name`, the
    /// fixture company's rule for writing parameter types. Implicit record accessors do
    /// not count (`approved()` beside `static approved(String)`).
    #[cfg(test)]
    pub(crate) fn is_overloaded(&self, fqn: &str, name: &str) -> bool {
        self.ty(fqn).is_some_and(|t| {
            t.methods
                .iter()
                .filter(|m| *m.name == *name && !m.implicit)
                .count()
                > 1
        })
    }

    /// Resolves a type name written inside type `from` (generics erased). `None` when it
    /// is a type variable, a primitive, an array, or a name nothing in scope declares.
    pub(crate) fn resolve_type(&self, written: &str, from: &str) -> Option<TypeRef> {
        let erased = erase(written);
        if erased.is_empty() || erased.ends_with(']') {
            return None;
        }
        if is_primitive(&erased) {
            return None;
        }
        let mut parts = erased.split('.');
        let head = parts.next()?;
        let rest: Vec<&str> = parts.collect();
        let mut current = match self.resolve_simple(head, from) {
            Some(r) => r,
            None => return self.resolve_qualified(&erased),
        };
        for part in rest {
            current = self.member_type(&current, part)?;
        }
        Some(current)
    }

    /// `Outer.Inner` given `Outer`.
    pub(crate) fn member_type(&self, outer: &TypeRef, name: &str) -> Option<TypeRef> {
        if !outer.internal {
            return Some(TypeRef {
                fqn: format!("{}.{name}", outer.fqn),
                internal: false,
            });
        }
        let mut seen = 0;
        let mut cur = Some(outer.fqn.clone());
        while let Some(fqn) = cur {
            seen += 1;
            if seen > 32 {
                return None;
            }
            let t = self.ty(&fqn)?;
            if let Some(n) = t.nested.get(name) {
                return Some(TypeRef {
                    fqn: n.to_string(),
                    internal: true,
                });
            }
            cur = t
                .superclass
                .as_deref()
                .filter(|s| self.has(s))
                .map(str::to_string);
        }
        None
    }

    /// A fully-qualified name as written (`com.acme.x.Foo`, `java.util.List`).
    fn resolve_qualified(&self, erased: &str) -> Option<TypeRef> {
        if !erased.contains('.') || erased.starts_with(char::is_uppercase) {
            return None;
        }
        if self.has(erased) {
            return Some(TypeRef {
                fqn: erased.to_string(),
                internal: true,
            });
        }
        let last = erased.rsplit('.').next()?;
        last.starts_with(char::is_uppercase).then(|| TypeRef {
            fqn: erased.to_string(),
            internal: false,
        })
    }

    /// Type `fqn` of the product, then the types enclosing it, innermost first (at most
    /// 32: a cycle of outer types, which no source can write, ends there).
    pub(crate) fn enclosing(&self, fqn: &str) -> impl Iterator<Item = &TypeInfo> {
        std::iter::successors(self.ty(fqn), |t| t.outer.as_deref().and_then(|o| self.ty(o))).take(32)
    }

    /// A simple name seen from inside type `from`.
    pub(crate) fn resolve_simple(&self, name: &str, from: &str) -> Option<TypeRef> {
        let from_type = self.ty(from)?;
        // Type variables of the type and its enclosing types shadow everything.
        for t in self.enclosing(from) {
            if t.type_params.iter().any(|p| **p == *name) {
                return None;
            }
            // The type itself, its member types and inherited member types.
            let simple = t.fqn.rsplit_once('.').map_or(&*t.fqn, |(_, simple)| simple);
            if simple == name && !t.fqn.contains('$') {
                return Some(TypeRef {
                    fqn: t.fqn.to_string(),
                    internal: true,
                });
            }
            let me = TypeRef {
                fqn: t.fqn.to_string(),
                internal: true,
            };
            if let Some(r) = self.member_type(&me, name) {
                return Some(r);
            }
        }
        let ctx = &from_type.ctx;
        if let Some(fqn) = ctx.single.get(name) {
            return Some(TypeRef {
                fqn: fqn.to_string(),
                internal: self.has(fqn),
            });
        }
        if let Some(fqn) = self
            .shared
            .by_package
            .get(&*ctx.package)
            .and_then(|types| types.get(name))
        {
            return Some(TypeRef {
                fqn: fqn.to_string(),
                internal: true,
            });
        }
        let mut found: Vec<String> = ctx
            .wildcards
            .iter()
            .map(|w| format!("{w}.{name}"))
            .filter(|f| self.has(f))
            .collect();
        if found.len() == 1 {
            return found.pop().map(|fqn| TypeRef { fqn, internal: true });
        }
        if found.is_empty() && JAVA_LANG.contains(&name) {
            return Some(TypeRef {
                fqn: format!("java.lang.{name}"),
                internal: false,
            });
        }
        None
    }

    /// Methods called `name` visible on type `fqn`, nearest declaration first, with the
    /// fqn of the declaring type; overridden declarations (same parameters) are dropped.
    /// Also returns the first external supertype met, where unseen methods may live.
    pub(crate) fn methods_named(
        &self,
        fqn: &str,
        name: &str,
    ) -> (Vec<(String, &MethodInfo)>, Option<String>) {
        let mut out: Vec<(String, &MethodInfo)> = Vec::new();
        let mut external = None;
        let mut queue = std::collections::VecDeque::from([fqn.to_string()]);
        let mut seen = std::collections::HashSet::new();
        while let Some(cur) = queue.pop_front() {
            if !seen.insert(cur.clone()) || seen.len() > 64 {
                continue;
            }
            let Some(t) = self.ty(&cur) else {
                if external.is_none() {
                    external = Some(cur);
                }
                continue;
            };
            for m in t.methods.iter().filter(|m| *m.name == *name) {
                if !out.iter().any(|(_, o)| o.params == m.params) {
                    out.push((cur.clone(), m));
                }
            }
            if name == "<init>" {
                break;
            }
            queue.extend(t.superclass.iter().chain(&t.interfaces).map(|s| s.to_string()));
        }
        (out, external)
    }

    /// The declared type of field `name` visible in type `fqn` (inherited ones included),
    /// and the type it is declared in (its imports apply to the written type).
    pub(crate) fn field(&self, fqn: &str, name: &str) -> Option<(String, String)> {
        let mut queue = std::collections::VecDeque::from([fqn.to_string()]);
        let mut seen = std::collections::HashSet::new();
        while let Some(cur) = queue.pop_front() {
            if !seen.insert(cur.clone()) || seen.len() > 64 {
                continue;
            }
            let Some(t) = self.ty(&cur) else {
                continue;
            };
            if let Some(ty) = t.fields.get(name) {
                return Some((ty.to_string(), cur));
            }
            queue.extend(t.superclass.iter().chain(&t.interfaces).map(|s| s.to_string()));
        }
        None
    }

    /// Whether `sub` is `sup` or inherits from it (as far as the product knows).
    pub(crate) fn is_subtype(&self, sub: &str, sup: &str) -> bool {
        let mut stack = vec![sub.to_string()];
        let mut seen = std::collections::HashSet::new();
        while let Some(cur) = stack.pop() {
            if cur == sup {
                return true;
            }
            if !seen.insert(cur.clone()) || seen.len() > 64 {
                continue;
            }
            if let Some(t) = self.ty(&cur) {
                stack.extend(t.superclass.iter().chain(&t.interfaces).map(|s| s.to_string()));
            }
        }
        false
    }
}

pub(crate) fn is_primitive(name: &str) -> bool {
    matches!(
        name,
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "double" | "float" | "void"
    )
}
