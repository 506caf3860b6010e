//! Call resolution of Kotlin files, with Kotlin's rules, against the product's
//! [`SymbolTable`] — the same table Java files resolve against, so a Kotlin call lands
//! on a Java method and a Java call on a Kotlin declaration: the Kotlin front-end writes
//! the JVM view (accessors, companions, facades).
//!
//! - Receivers are typed from locals (declared, or from their initializer), parameters,
//!   properties (own, inherited, enclosing, of the implicit receivers), type names (an
//!   `object` is its instance; a type's companion answers for it), casts, and the
//!   declared return types of chained calls; `?.` and `!!` change nothing.
//! - `it` and explicit lambda parameters: the receiver of `let`/`also`/`takeIf`/`use`,
//!   the elements of the receiver of `forEach`/`map`/`filter`/…; `apply`/`run`/`with`
//!   make their receiver the lambda's `this`, and an extension's receiver is `this` in
//!   its body; `this@Label` names an enclosing class, a scope function or the extension.
//! - A call without receiver looks in the implicit receivers, innermost first, then the
//!   class, its supertypes and companion, the enclosing classes, then constructors, then
//!   top-level functions of the file's package and of its imports (explicit, then
//!   wildcard), then the Kotlin standard library.
//! - Members win over extensions; an extension function is a static method of a facade
//!   whose `$receiver` fits the receiver.
//! - Arguments bind as Kotlin binds them: positional, then named, a trailing lambda to
//!   the last parameter, defaults filling the rest; overloads are told apart by what
//!   binds, then by known argument types, then by using no defaults.
//! - `x.name` is `getName()` (or `isName()`), `x.name = v` is `setName(v)`, when the type
//!   has the accessor; a field, a type, a package or a property of a type outside the
//!   product is no call and gives no edge.
//! - A class imported on demand (`import org.hamcrest.Matchers.*`) gives its statics to
//!   bare calls outside lambdas: the one class a library model declares the name in, ahead
//!   of the standard library; else, after every other rule, the one such class no model
//!   holds (of several, the one another file imports the function from by name; else
//!   unresolved, naming them).
//! - A call of a type outside the product types a chain on as the library declares it —
//!   the jars of the product's dependencies, the bundled test libraries, the JDK
//!   ([`library_result`]): a constructor gives its type, a method the erased return type
//!   its overloads agree on (those whose parameters the known argument types match
//!   exactly, else all of its arity). Members called on such a type are not checked.
//!
//! Anything left open is `Target::Unresolved` with a reason, never a guess.

use super::java::ProductTypes;
use super::symbols::{is_primitive, MethodInfo, SymbolTable, TypeRef};
use super::{key, unresolved, Fit, MethodKey, Recv, ResolvedCall, Target};
use crate::facts::{erase, simple_name, CallKind, CallSite, CodeFile, Expr, MethodDecl, Receiver, TypeKind};
use crate::lang::kotlin::accessor_names;
use crate::typemodel::model::TypeSource;
use crate::typemodel::ty::{erase as erase_ty, Ty, TypeParam};

/// Receiver chains deeper than this are not followed.
const MAX_DEPTH: usize = 48;

/// Scope functions whose lambda parameter is the receiver itself.
const SELF_LAMBDAS: &[&str] = &["let", "also", "takeIf", "takeUnless", "use"];
/// Scope functions whose lambda receiver (`this`) is the call's receiver.
const THIS_LAMBDAS: &[&str] = &["apply", "run", "with"];
/// Collection, sequence and reactive functions that hand their lambda the elements.
const ELEMENT_LAMBDAS: &[&str] = &[
    "forEach",
    "map",
    "mapNotNull",
    "flatMap",
    "filter",
    "filterNot",
    "any",
    "all",
    "none",
    "first",
    "firstOrNull",
    "last",
    "lastOrNull",
    "find",
    "single",
    "singleOrNull",
    "onEach",
    "sortedBy",
    "sortedByDescending",
    "groupBy",
    "associateBy",
    "associateWith",
    "associate",
    "count",
    "sumOf",
    "maxByOrNull",
    "minByOrNull",
    "maxOf",
    "minOf",
    "partition",
    "distinctBy",
    "takeWhile",
    "dropWhile",
    "ifPresent",
    "doOnNext",
    "flatMapMany",
    "peek",
    "removeIf",
];
/// Functions whose result holds the receiver's elements.
const ELEMENT_PRESERVING: &[&str] = &[
    "filter",
    "filterNot",
    "sortedBy",
    "sortedByDescending",
    "distinct",
    "distinctBy",
    "toList",
    "toMutableList",
    "toSet",
    "asSequence",
    "stream",
    "take",
    "drop",
    "reversed",
    "sorted",
];
/// Containers whose single type argument is the element type.
const CONTAINERS: &[&str] = &[
    "List",
    "Set",
    "Collection",
    "Iterable",
    "Optional",
    "Stream",
    "Sequence",
    "ArrayList",
    "LinkedList",
    "HashSet",
    "LinkedHashSet",
    "TreeSet",
    "Flux",
    "Mono",
    "Page",
    "Slice",
];

/// Top-level functions of the Kotlin standard library, by the facade class holding them.
const STDLIB: &[(&str, &[&str])] = &[
    (
        "kotlin.StandardKt",
        &[
            "run",
            "with",
            "apply",
            "also",
            "let",
            "takeIf",
            "takeUnless",
            "repeat",
            "TODO",
        ],
    ),
    (
        "kotlin.PreconditionsKt",
        &["require", "requireNotNull", "check", "checkNotNull", "error"],
    ),
    (
        "kotlin.collections.CollectionsKt",
        &[
            "listOf",
            "mutableListOf",
            "arrayListOf",
            "emptyList",
            "listOfNotNull",
            "buildList",
        ],
    ),
    (
        "kotlin.collections.SetsKt",
        &[
            "setOf",
            "mutableSetOf",
            "emptySet",
            "hashSetOf",
            "linkedSetOf",
            "buildSet",
        ],
    ),
    (
        "kotlin.collections.MapsKt",
        &[
            "mapOf",
            "mutableMapOf",
            "emptyMap",
            "hashMapOf",
            "linkedMapOf",
            "buildMap",
        ],
    ),
    ("kotlin.io.ConsoleKt", &["println", "print", "readLine", "readln"]),
    ("kotlin.io.CloseableKt", &["use"]),
    ("kotlin.LazyKt", &["lazy", "lazyOf"]),
    ("kotlin.text.StringsKt", &["buildString"]),
    (
        "kotlin.ArrayIntrinsicsKt",
        &[
            "arrayOf",
            "emptyArray",
            "arrayOfNulls",
            "intArrayOf",
            "longArrayOf",
            "byteArrayOf",
            "charArrayOf",
            "doubleArrayOf",
            "booleanArrayOf",
        ],
    ),
    ("kotlin.ExceptionsKt", &["runCatching"]),
];

const OBJECT_METHODS: &[&str] = &["toString", "equals", "hashCode", "getClass"];

/// `kotlin.collections`' type aliases of `java.util`'s classes, imported by default.
const KOTLIN_COLLECTION_ALIASES: &[(&str, &str)] = &[
    ("ArrayList", "java.util.ArrayList"),
    ("HashMap", "java.util.HashMap"),
    ("HashSet", "java.util.HashSet"),
    ("LinkedHashMap", "java.util.LinkedHashMap"),
    ("LinkedHashSet", "java.util.LinkedHashSet"),
    ("RandomAccess", "java.util.RandomAccess"),
];

/// JDK types no product type extends, so an argument of one never fits another type.
const JDK_VALUE_TYPES: &[&str] = &[
    "java.lang.String",
    "java.lang.Integer",
    "java.lang.Long",
    "java.lang.Double",
    "java.lang.Boolean",
    "java.math.BigDecimal",
    "java.util.UUID",
    "java.time.Instant",
    "java.time.LocalDate",
    "java.time.LocalDateTime",
];

/// Resolves every call site of a Kotlin `file` against the product's table, with the
/// types of the libraries beneath the product (`types`) for chains through them.
pub(crate) fn resolve_calls(file: &CodeFile, table: &SymbolTable, types: &ProductTypes) -> Vec<ResolvedCall> {
    let library = types.library();
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
            let scope = Scope {
                table,
                library: &library,
                file,
                type_fqn: &t.fqn,
                method: m,
            };
            for (index, site) in m.calls.iter().enumerate() {
                let Some(target) = scope.call(site, 0) else {
                    continue;
                };
                let receiver_type = match (&target, site.kind) {
                    (Target::External { type_fqn, .. }, _)
                        if type_fqn.starts_with("java.") || type_fqn.starts_with("kotlin") =>
                    {
                        None
                    }
                    (Target::External { .. }, CallKind::Method) => {
                        scope.internal_receiver(&site.receiver, site.byte)
                    }
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
    /// The types beneath the product's own: what a library call's result is typed by.
    library: &'a dyn TypeSource,
    file: &'a CodeFile,
    type_fqn: &'a str,
    method: &'a MethodDecl,
}

/// Whether a call's argument `i` is a lambda (trailing or not).
fn is_lambda(site: &CallSite, i: usize) -> bool {
    matches!(site.arg_values.get(i), Some(Expr::Lambda(_)))
        || site.arg_texts.get(i).is_some_and(|t| t.starts_with('{'))
}

impl<'a> Scope<'a> {
    fn internal(&self, fqn: &str) -> TypeRef {
        TypeRef {
            fqn: fqn.to_string(),
            internal: self.table.get(fqn).is_some(),
        }
    }

    /// Whether `fqn` is an `object` (its `INSTANCE` is of its own type).
    fn is_object(&self, fqn: &str) -> bool {
        self.table
            .get(fqn)
            .and_then(|t| t.fields.get("INSTANCE"))
            .is_some_and(|ty| **ty == *fqn)
    }

    /// The companion object of type `fqn`, if it has one.
    fn companion(&self, fqn: &str) -> Option<String> {
        let t = self.table.get(fqn)?;
        t.nested
            .iter()
            .find(|(name, nested)| t.fields.get(&**name).is_some_and(|ty| **ty == ***nested))
            .filter(|(_, c)| self.table.get(c).is_some())
            .map(|(_, nested)| nested.to_string())
    }

    fn call(&self, site: &CallSite, depth: usize) -> Option<Target> {
        if depth > MAX_DEPTH {
            return Some(unresolved("call chain too deep"));
        }
        if self.sam_conversion(site).is_some() {
            return None;
        }
        Some(match site.kind {
            CallKind::Property => return self.property(site, depth),
            CallKind::ThisCall => self.select_on(self.type_fqn, "<init>", site, depth),
            CallKind::SuperCall => match self.superclass() {
                Some(t) if t.internal => self.select_on(&t.fqn, "<init>", site, depth),
                Some(t) => Target::External {
                    type_fqn: t.fqn,
                    method: "<init>".into(),
                },
                None => Target::External {
                    type_fqn: "java.lang.Object".into(),
                    method: "<init>".into(),
                },
            },
            CallKind::Constructor => self.constructor(&site.name, site, depth),
            CallKind::MethodRef => self.method_ref(site, depth),
            CallKind::Method => match &site.receiver {
                Receiver::None => self.implicit(site, depth),
                r => match self.receiver_type(r, site.byte, depth + 1) {
                    Err(reason) => unresolved(reason),
                    Ok(recv) => self.member_call(&recv, site, depth),
                },
            },
        })
    }

    fn superclass(&self) -> Option<TypeRef> {
        let sup = self.table.get(self.type_fqn)?.superclass.clone()?;
        Some(self.internal(&sup))
    }

    fn constructor(&self, name: &str, site: &CallSite, depth: usize) -> Target {
        match self.named_type(name) {
            None => unresolved(format!("unknown type {name}")),
            Some(t) if !t.internal => Target::External {
                type_fqn: t.fqn,
                method: "<init>".into(),
            },
            Some(t) => self.select_on(&t.fqn, "<init>", site, depth),
        }
    }

    /// A call on a receiver of known type.
    fn member_call(&self, recv: &Recv, site: &CallSite, depth: usize) -> Target {
        let name = site.name.as_str();
        match recv {
            Recv::Static(t) if t.internal && !self.is_object(&t.fqn) => {
                if let Some(c) = self.companion(&t.fqn) {
                    if !self.table.methods_named(&c, name).0.is_empty() {
                        return self.select_on(&c, name, site, depth);
                    }
                }
                if let Some(nested) = self.table.member_type(t, name).filter(|n| n.internal) {
                    return self.select_on(&nested.fqn, "<init>", site, depth);
                }
                self.select_on(&t.fqn, name, site, depth)
            }
            Recv::Static(t) if !t.internal => {
                if name.starts_with(char::is_uppercase) {
                    Target::External {
                        type_fqn: format!("{}.{name}", t.fqn),
                        method: "<init>".into(),
                    }
                } else {
                    Target::External {
                        type_fqn: t.fqn.clone(),
                        method: name.to_string(),
                    }
                }
            }
            Recv::Static(t) | Recv::Instance(t) if t.internal => {
                let (cands, _) = self.table.methods_named(&t.fqn, name);
                if !cands.is_empty() {
                    // A member that does not fit leaves the call to extensions.
                    let member = self.select_on(&t.fqn, name, site, depth);
                    if !matches!(&member, Target::Unresolved { reason } if reason.starts_with("no overload"))
                    {
                        return member;
                    }
                    return self
                        .extension(&t.fqn, site, depth)
                        .or_else(|| {
                            stdlib_facade(name).map(|f| Target::External {
                                type_fqn: f.into(),
                                method: name.to_string(),
                            })
                        })
                        .unwrap_or(member);
                }
                if let Some(found) = self.extension(&t.fqn, site, depth) {
                    return found;
                }
                if let Some(facade) = stdlib_facade(name) {
                    return Target::External {
                        type_fqn: facade.into(),
                        method: name.to_string(),
                    };
                }
                self.select_on(&t.fqn, name, site, depth)
            }
            Recv::Static(t) | Recv::Instance(t) => {
                if let Some(found) = self.extension(&t.fqn, site, depth) {
                    return found;
                }
                Target::External {
                    type_fqn: t.fqn.clone(),
                    method: name.to_string(),
                }
            }
        }
    }

    /// The implicit receivers in scope at `byte`, innermost first: scope-function lambdas
    /// and an extension's receiver (`this` locals).
    fn implicit_receivers(&self, byte: usize, depth: usize) -> Vec<Result<TypeRef, String>> {
        let mut locals: Vec<&crate::facts::Local> = self
            .method
            .locals
            .iter()
            .filter(|l| l.name == "this" && l.scope.0 <= byte && byte < l.scope.1)
            .collect();
        locals.sort_by_key(|l| std::cmp::Reverse(l.scope.0));
        locals
            .into_iter()
            .map(|l| {
                self.local_type(l, depth + 1)
                    .map_err(|_| "implicit receiver not typed".to_string())
            })
            .collect()
    }

    /// A call without receiver (see the module documentation for the order).
    fn implicit(&self, site: &CallSite, depth: usize) -> Target {
        let name = site.name.as_str();
        let mut external_receiver: Option<String> = None;
        for r in self.implicit_receivers(site.byte, depth) {
            match r {
                Ok(t) if t.internal => {
                    if !self.table.methods_named(&t.fqn, name).0.is_empty() {
                        return self.select_on(&t.fqn, name, site, depth);
                    }
                }
                Ok(t) => {
                    if external_receiver.is_none() {
                        external_receiver = Some(t.fqn);
                    }
                }
                Err(_) => {
                    if external_receiver.is_none() {
                        external_receiver = Some(String::new());
                    }
                }
            }
        }
        // The class, its supertypes and companion, then the enclosing classes.
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
                if let Some(other) = &external_receiver {
                    return unresolved(format!(
                        "{name} may be a member of the implicit receiver {}",
                        if other.is_empty() {
                            "of unknown type"
                        } else {
                            other
                        }
                    ));
                }
                return self.select_on(&fqn, name, site, depth);
            }
            if let Some(c) = self.companion(&fqn) {
                if !self.table.methods_named(&c, name).0.is_empty() {
                    return self.select_on(&c, name, site, depth);
                }
            }
            if external_super.is_none() {
                external_super = ext;
            }
            cur = self.table.outer(&fqn);
        }
        if let Some(other) = external_receiver {
            return if other.is_empty() {
                unresolved(format!(
                    "{name} is called on an implicit receiver of unknown type"
                ))
            } else {
                Target::External {
                    type_fqn: other,
                    method: name.to_string(),
                }
            };
        }
        if name.starts_with(char::is_uppercase) {
            if let Some(t) = self.named_type(name) {
                // An interface has no constructor: a function of its name is the call.
                if !self.is_interface(&t) || self.top_level(name, false).is_empty() {
                    return self.constructor(&t.fqn, site, depth);
                }
            }
        }
        let cands = self.top_level(name, false);
        if !cands.is_empty() {
            return self.select(&cands, name, site, 0, depth, None);
        }
        // `import org.assertj.core.api.Assertions.assertThat`: a static method of a
        // library class (a class name begins with a capital; a package's does not).
        if let Some(owner) = self.imported_member_owner(name) {
            return match self.table.get(&owner) {
                Some(_) => self.select_on(&owner, name, site, depth),
                None => Target::External {
                    type_fqn: owner,
                    method: name.to_string(),
                },
            };
        }
        // `import org.hamcrest.Matchers.*`: Kotlin imports a class's statics on demand, ahead
        // of the standard library's default imports.
        let (declared_by, may_hold) = if self.inside_a_lambda(site) {
            (None, Vec::new())
        } else {
            self.on_demand_owners(name)
        };
        if let (Some(owner), None) = (&declared_by, &external_super) {
            return Target::External {
                type_fqn: owner.clone(),
                method: name.to_string(),
            };
        }
        if let Some(facade) = stdlib_facade(name) {
            return Target::External {
                type_fqn: facade.into(),
                method: name.to_string(),
            };
        }
        if let Some(ext) = external_super {
            return Target::External {
                type_fqn: ext,
                method: name.to_string(),
            };
        }
        if OBJECT_METHODS.contains(&name) {
            return Target::External {
                type_fqn: "java.lang.Object".into(),
                method: name.to_string(),
            };
        }
        // Of several, the one whose class another file imports the function from by name.
        if may_hold.is_empty() {
            return unresolved(format!("no function {name} in scope"));
        }
        match self.table.on_demand_owner(&may_hold, name) {
            Some(owner) => Target::External {
                type_fqn: owner.clone(),
                method: name.to_string(),
            },
            None => unresolved(format!(
                "no function {name} in scope; it may be a static of {}, imported on demand, whose members are not known",
                may_hold.join(" or ")
            )),
        }
    }

    /// The classes imported on demand (`import a.b.Type.*`) that hold static method `name`:
    /// the one a library model declares it in, and those no model holds, which may. A
    /// modelled class without it holds it not; a package (its last name lower-case) holds
    /// no Java statics, and its Kotlin functions are the product's facades.
    fn on_demand_owners(&self, name: &str) -> (Option<String>, Vec<String>) {
        let Some(me) = self.table.get(self.type_fqn) else {
            return (None, Vec::new());
        };
        let mut declared_by = None;
        let mut may_hold = Vec::new();
        for w in &me.ctx.wildcards {
            let class = w.to_string();
            if !class
                .rsplit('.')
                .next()
                .is_some_and(|s| s.starts_with(char::is_uppercase))
                || self.table.get(&class).is_some()
            {
                continue;
            }
            match self.library.by_fqn(&class) {
                Some(info) => {
                    if declared_by.is_none() && info.methods_named(name).any(|m| m.is_static()) {
                        declared_by = Some(class);
                    }
                }
                None => may_hold.push(class),
            }
        }
        (declared_by, may_hold)
    }

    /// Whether `site` may sit in a lambda: a call of the method whose span holds it has a
    /// lambda argument. A lambda passed to a function outside the scope functions may have
    /// a receiver whose members a bare call names first (a Kotlin DSL), and that receiver
    /// is not known.
    fn inside_a_lambda(&self, site: &CallSite) -> bool {
        self.method.calls.iter().any(|c| {
            c.byte < site.byte
                && site.byte < c.end
                && (0..c.arg_count.max(c.arg_texts.len())).any(|i| is_lambda(c, i))
        })
    }

    /// The class an explicit import of member `name` names (`import a.b.Type.name`), when
    /// the import's prefix is a class, not a package.
    fn imported_member_owner(&self, name: &str) -> Option<String> {
        let owner = self.table.get(self.type_fqn)?.ctx.static_single.get(name)?;
        let last = owner.rsplit('.').next()?;
        last.starts_with(char::is_uppercase).then(|| owner.to_string())
    }

    /// The packages whose top-level declarations named `name` are visible in this file:
    /// its own, an explicit import of the name, then wildcard imports.
    fn visible_packages(&self, name: &str) -> Vec<String> {
        let mut out = vec![self.file.package.clone()];
        let Some(me) = self.table.get(self.type_fqn) else {
            return out;
        };
        let ctx = &me.ctx;
        if let Some(pkg) = ctx.static_single.get(name) {
            out.insert(0, pkg.to_string());
        }
        out.extend(ctx.wildcards.iter().map(|w| w.to_string()));
        out.dedup();
        out
    }

    /// Static methods `name` of the facades of the visible packages (extensions only, or
    /// plain functions only).
    fn top_level(&self, name: &str, extensions: bool) -> Vec<(String, &'a MethodInfo)> {
        let mut out = Vec::new();
        for pkg in self.visible_packages(name) {
            for facade in self.table.facades(&pkg) {
                let Some(t) = self.table.get(facade) else {
                    continue;
                };
                for m in t.methods.iter().filter(|m| *m.name == *name && m.is_static) {
                    let is_extension = m.param_names().first().is_some_and(|n| n == "$receiver");
                    if is_extension == extensions {
                        out.push((facade.to_string(), m));
                    }
                }
            }
            if !out.is_empty() {
                // Nearer packages shadow farther ones.
                break;
            }
        }
        out
    }

    /// An extension function `site.name` whose receiver fits `recv_fqn`.
    fn extension(&self, recv_fqn: &str, site: &CallSite, depth: usize) -> Option<Target> {
        let cands: Vec<(String, &MethodInfo)> = self
            .top_level(&site.name, true)
            .into_iter()
            .filter(|(facade, m)| {
                m.params.first().is_some_and(|p| {
                    self.table
                        .resolve_type(p, facade)
                        .is_some_and(|r| r.fqn == recv_fqn || self.table.is_subtype(recv_fqn, &r.fqn))
                })
            })
            .collect();
        (!cands.is_empty()).then(|| self.select(&cands, &site.name, site, 1, depth, None))
    }

    /// The product type a receiver expression is an instance of, if it is one.
    fn internal_receiver(&self, r: &Receiver, byte: usize) -> Option<String> {
        let r = if *r == Receiver::None { &Receiver::This } else { r };
        match self.receiver_type(r, byte, 1) {
            Ok(Recv::Instance(t)) if t.internal => Some(t.fqn),
            _ => None,
        }
    }

    /// The type a receiver expression denotes.
    fn receiver_type(&self, r: &Receiver, byte: usize, depth: usize) -> Result<Recv, String> {
        if depth > MAX_DEPTH {
            return Err("receiver chain too deep".into());
        }
        match r {
            Receiver::None | Receiver::This => {
                match self.implicit_receivers(byte, depth).into_iter().next() {
                    Some(inner) => inner.map(Recv::Instance),
                    None => Ok(Recv::Instance(self.internal(self.type_fqn))),
                }
            }
            Receiver::Super => Ok(Recv::Instance(
                self.superclass()
                    .unwrap_or_else(|| self.internal("java.lang.Object")),
            )),
            Receiver::Name(n) if n.starts_with("this@") => self.labelled_this(&n[5..], byte, depth),
            Receiver::Name(n) => self.name_type(n, byte, depth),
            Receiver::New(t) => self
                .named_type(t)
                .map(Recv::Instance)
                .ok_or_else(|| format!("unknown type {t}")),
            Receiver::Field(inner, f) => match self.receiver_type(inner, byte, depth + 1) {
                Ok(recv) => self.member_type_of(&recv, f, depth),
                Err(e) => match dotted(r) {
                    Some(path) => self.named_type(&path).map(|t| self.static_or_object(t)).ok_or(e),
                    None => Err(e),
                },
            },
            Receiver::Call(cs) => match self.sam_conversion(cs) {
                Some(t) => Ok(Recv::Instance(t)),
                None => self.call_result(cs, depth),
            },
            // Java's typed expressions (literals, casts, lambdas…) are not in Kotlin facts.
            _ => Err("receiver expression not typed".into()),
        }
    }

    /// The type of what call `cs`, a receiver, gives.
    fn call_result(&self, cs: &CallSite, depth: usize) -> Result<Recv, String> {
        match self.call(cs, depth + 1) {
            Some(Target::Internal(k)) => self.return_type(&k),
            Some(Target::External { type_fqn, method }) if method == "<init>" => {
                Ok(Recv::Instance(self.internal(&type_fqn)))
            }
            Some(Target::External { type_fqn, method }) => {
                let args: Vec<Option<String>> = (0..cs.arg_count)
                    .map(|i| self.arg_type(cs, i, depth + 1))
                    .collect();
                library_result(self.library, &type_fqn, &method, &args)
                    .map(|fqn| Recv::Instance(self.internal(&fqn)))
                    .ok_or_else(|| format!("result of external {type_fqn}.{method} not typed"))
            }
            Some(Target::Unresolved { reason }) => Err(reason),
            Some(Target::Ambiguous(_)) => Err("result of an ambiguous overload not typed".into()),
            None => Err("receiver expression not typed".into()),
        }
    }

    /// A type named as a receiver: an `object` is its instance.
    fn static_or_object(&self, t: TypeRef) -> Recv {
        if t.internal && self.is_object(&t.fqn) {
            Recv::Instance(t)
        } else {
            Recv::Static(t)
        }
    }

    /// `this@Label`: an enclosing class, a scope function's receiver, the extension's.
    fn labelled_this(&self, label: &str, byte: usize, depth: usize) -> Result<Recv, String> {
        let mut cur = Some(self.type_fqn.to_string());
        while let Some(fqn) = cur {
            if simple_name(&fqn) == label {
                return Ok(Recv::Instance(self.internal(&fqn)));
            }
            cur = self.table.outer(&fqn);
        }
        let mut lambdas: Vec<&crate::facts::Local> = self
            .method
            .locals
            .iter()
            .filter(|l| l.name == "this" && l.scope.0 <= byte && byte < l.scope.1)
            .collect();
        lambdas.sort_by_key(|l| std::cmp::Reverse(l.scope.0));
        for l in lambdas {
            let matches = match &l.lambda_source {
                Some((_, method)) => method == label,
                None => self.method.name == label,
            };
            if matches {
                return self.local_type(l, depth + 1).map(Recv::Instance);
            }
        }
        Err(format!("this@{label} names nothing in scope"))
    }

    /// What member `f` of a receiver is: a property's type, a nested type, a companion.
    fn member_type_of(&self, recv: &Recv, f: &str, depth: usize) -> Result<Recv, String> {
        match recv {
            Recv::Instance(t) if t.internal => self.property_type(&t.fqn, f, depth),
            Recv::Instance(t) => Err(format!("property {f} of external type {}", t.fqn)),
            Recv::Static(t) if t.internal => {
                if let Some((ty, decl)) = self.table.field(&t.fqn, f) {
                    return self
                        .table
                        .resolve_type(&ty, &decl)
                        .map(Recv::Instance)
                        .ok_or_else(|| format!("type {ty} of {f} unknown"));
                }
                if let Some(n) = self.table.member_type(t, f) {
                    return Ok(self.static_or_object(n));
                }
                match self.companion(&t.fqn) {
                    Some(c) => self.property_type(&c, f, depth),
                    None => Err(format!("no property or member type {f} in {}", t.fqn)),
                }
            }
            Recv::Static(t) => {
                if f.starts_with(char::is_uppercase) && f.chars().any(char::is_lowercase) {
                    self.table
                        .member_type(t, f)
                        .map(Recv::Static)
                        .ok_or_else(|| "unknown member type".to_string())
                } else {
                    Err(format!("static member {f} of external type {}", t.fqn))
                }
            }
        }
    }

    /// The type of property `f` of type `fqn`: its field, else its getter's return type.
    fn property_type(&self, fqn: &str, f: &str, depth: usize) -> Result<Recv, String> {
        if let Some((ty, decl)) = self.table.field(fqn, f) {
            if !ty.is_empty() {
                return self
                    .table
                    .resolve_type(&ty, &decl)
                    .map(Recv::Instance)
                    .ok_or_else(|| format!("type {ty} of property {f} unknown"));
            }
        }
        let (getter, _) = accessor_names(f);
        let (cands, _) = self.table.methods_named(fqn, &getter);
        if let Some((decl, m)) = cands.iter().find(|(_, m)| m.params.is_empty()) {
            let k = key(decl, m);
            return self.return_type(&k);
        }
        let _ = depth;
        Err(format!("no property {f} in {fqn}"))
    }

    /// A bare name: local or parameter, then a property of the implicit receivers, of the
    /// class (inherited and enclosing ones), a top-level property, then a type.
    fn name_type(&self, n: &str, byte: usize, depth: usize) -> Result<Recv, String> {
        if let Some(local) = self.method.find_local(n, byte) {
            return self.local_type(local, depth + 1).map(Recv::Instance);
        }
        if let Some(p) = self.method.params.iter().find(|p| p.name == n) {
            return self
                .named_type(&p.ty)
                .map(Recv::Instance)
                .ok_or_else(|| format!("type {} of {n} unknown", p.ty));
        }
        for r in self.implicit_receivers(byte, depth).into_iter().flatten() {
            if r.internal {
                if let Ok(found) = self.property_type(&r.fqn, n, depth + 1) {
                    return Ok(found);
                }
            }
        }
        let mut cur = Some(self.type_fqn.to_string());
        let mut hops = 0;
        while let Some(fqn) = cur {
            hops += 1;
            if hops > 32 {
                break;
            }
            if let Ok(found) = self.property_type(&fqn, n, depth + 1) {
                return Ok(found);
            }
            cur = self.table.outer(&fqn);
        }
        for pkg in self.visible_packages(n) {
            for facade in self.table.facades(&pkg) {
                if let Ok(found) = self.property_type(facade, n, depth + 1) {
                    return Ok(found);
                }
            }
        }
        self.named_type(n)
            .map(|t| self.static_or_object(t))
            .ok_or_else(|| format!("unknown name {n}"))
    }

    /// `Runnable { … }`, `Comparator<T> { a, b -> … }`: an interface's name called with one
    /// lambda is a SAM conversion — an instance of the interface, made without a call of
    /// any constructor (an interface has none). The interface, when it is one.
    fn sam_conversion(&self, site: &CallSite) -> Option<TypeRef> {
        let bare = matches!(site.kind, CallKind::Constructor)
            || (site.kind == CallKind::Method && site.receiver == Receiver::None);
        if !bare || !site.name.starts_with(char::is_uppercase) || site.arg_count != 1 || !is_lambda(site, 0) {
            return None;
        }
        // A function of that name (a factory `fun Handler(block: …): Handler`) is the call.
        if site.kind == CallKind::Method && !self.top_level(&site.name, false).is_empty() {
            return None;
        }
        let t = self.named_type(&site.name)?;
        self.is_interface(&t).then_some(t)
    }

    /// Whether `t` is an interface, of the product or of a library (which has no
    /// constructor to call).
    fn is_interface(&self, t: &TypeRef) -> bool {
        match self.table.get(&t.fqn) {
            Some(info) => info.kind == TypeKind::Interface,
            None => self.library.by_fqn(&t.fqn).is_some_and(|i| i.kind.is_interface()),
        }
    }

    /// The type `name` names in this file: the product's names and the file's imports
    /// by name first ([`SymbolTable::resolve_type`]), else a type a library beneath the
    /// product holds — a qualified name, the one package imported on demand that has
    /// it (`import java.util.*` and `Collections`), then Kotlin's default imports:
    /// `kotlin.collections`' aliases of `java.util`'s collections and `java.lang`.
    fn named_type(&self, name: &str) -> Option<TypeRef> {
        if let Some(t) = self.table.resolve_type(name, self.type_fqn) {
            return Some(t);
        }
        let written = erase(name);
        let written = written.trim_end_matches('?');
        let external = |fqn: &str| TypeRef {
            fqn: fqn.to_string(),
            internal: false,
        };
        if written.contains('.') {
            return self.library.by_fqn(written).map(|t| external(&t.fqn));
        }
        if !written.starts_with(char::is_uppercase) {
            return None;
        }
        // Every import is asked of the models: a package no model holds may hold Kotlin's
        // own types (`Pair`, `Regex`), which no model holds either.
        let by_model = |fqn: &str| self.library.by_fqn(fqn).is_some();
        if let Some(t) = self.table.on_demand(written, self.type_fqn, |_| true, by_model) {
            return Some(t);
        }
        if let Some((_, java)) = KOTLIN_COLLECTION_ALIASES.iter().find(|(k, _)| *k == written) {
            return Some(external(java));
        }
        self.library
            .package_type("java.lang", written)
            .map(|t| external(&t.fqn))
    }

    /// The type of a local: declared, from its initializer, or from the call its lambda
    /// is passed to.
    fn local_type(&self, local: &crate::facts::Local, depth: usize) -> Result<TypeRef, String> {
        if depth > MAX_DEPTH {
            return Err("local chain too deep".into());
        }
        if let Some(ty) = &local.ty {
            return self
                .table
                .resolve_type(ty, self.type_fqn)
                .ok_or_else(|| format!("type {ty} of {} unknown", local.name));
        }
        if let Some(init) = &local.init {
            return match self.receiver_type(init, local.scope.0, depth + 1) {
                Ok(Recv::Instance(t)) => Ok(t),
                _ => Err(format!("type of local {} not known", local.name)),
            };
        }
        let Some((recv, method)) = &local.lambda_source else {
            return Err(format!("type of local {} not known", local.name));
        };
        let at = local.scope.0;
        if SELF_LAMBDAS.contains(&method.as_str()) || THIS_LAMBDAS.contains(&method.as_str()) {
            return match self.receiver_type(recv, at, depth + 1) {
                Ok(Recv::Instance(t)) => Ok(t),
                Ok(Recv::Static(t)) if self.is_object(&t.fqn) => Ok(t),
                _ => Err(format!("receiver of {method} not typed")),
            };
        }
        if ELEMENT_LAMBDAS.contains(&method.as_str()) {
            let (written, ctx) = self
                .written_type(recv, at, depth + 1)
                .ok_or_else(|| format!("elements of the receiver of {method} not typed"))?;
            let element = element_of(&written).ok_or_else(|| format!("{written} has no element type"))?;
            return self
                .table
                .resolve_type(&element, &ctx)
                .ok_or_else(|| format!("element type {element} unknown"));
        }
        Err(format!("parameter of the lambda passed to {method} not typed"))
    }

    /// The declared type of a receiver with its type arguments, and the type whose
    /// imports apply to it.
    fn written_type(&self, recv: &Receiver, byte: usize, depth: usize) -> Option<(String, String)> {
        if depth > MAX_DEPTH {
            return None;
        }
        match recv {
            Receiver::Name(n) => {
                if let Some(l) = self.method.find_local(n, byte) {
                    return l.ty.clone().map(|t| (t, self.type_fqn.to_string()));
                }
                if let Some(p) = self.method.params.iter().find(|p| p.name == *n) {
                    return Some((p.ty.clone(), self.type_fqn.to_string()));
                }
                let mut cur = Some(self.type_fqn.to_string());
                while let Some(fqn) = cur {
                    if let Some(found) = self.written_property(&fqn, n) {
                        return Some(found);
                    }
                    cur = self.table.outer(&fqn);
                }
                None
            }
            Receiver::Field(inner, f) => match self.receiver_type(inner, byte, depth + 1) {
                Ok(Recv::Instance(t)) if t.internal => self.written_property(&t.fqn, f),
                _ => None,
            },
            Receiver::Call(cs) => match self.call(cs, depth + 1) {
                Some(Target::Internal(k)) => {
                    let t = self.table.get(&k.type_fqn)?;
                    let m = t
                        .methods
                        .iter()
                        .find(|m| *m.name == *k.name && key(&k.type_fqn, m).params == k.params)?;
                    Some((m.return_type.as_deref()?.to_string(), k.type_fqn))
                }
                _ if ELEMENT_PRESERVING.contains(&cs.name.as_str()) => {
                    self.written_type(&cs.receiver, byte, depth + 1)
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The declared type of property `f` of `fqn` as written: its field, else its getter.
    fn written_property(&self, fqn: &str, f: &str) -> Option<(String, String)> {
        if let Some(found) = self.table.field(fqn, f).filter(|(ty, _)| !ty.is_empty()) {
            return Some(found);
        }
        let (getter, _) = accessor_names(f);
        let (cands, _) = self.table.methods_named(fqn, &getter);
        cands
            .iter()
            .find(|(_, m)| m.params.is_empty())
            .and_then(|(decl, m)| Some((m.return_type.as_deref()?.to_string(), decl.clone())))
    }

    fn return_type(&self, k: &MethodKey) -> Result<Recv, String> {
        let t = self
            .table
            .get(&k.type_fqn)
            .ok_or_else(|| format!("type {} unknown", k.type_fqn))?;
        if k.name == "<init>" {
            return Ok(Recv::Instance(self.internal(&k.type_fqn)));
        }
        let m = t
            .methods
            .iter()
            .find(|m| *m.name == *k.name && key(&k.type_fqn, m).params == k.params)
            .ok_or_else(|| format!("method {}.{} unknown", k.type_fqn, k.name))?;
        let ret = m
            .return_type
            .as_deref()
            .filter(|r| !r.is_empty())
            .ok_or_else(|| format!("{}.{} has no declared return type", k.type_fqn, k.name))?;
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
            expr => match self.receiver_type(expr, site.byte, depth + 1) {
                Ok(Recv::Instance(t)) => Some(t.fqn),
                _ => None,
            },
        }
    }

    /// `x.name` (read) and `x.name = v` (write): the accessor, or `None` when no call.
    fn property(&self, site: &CallSite, depth: usize) -> Option<Target> {
        let write = site.arg_count == 1;
        let recv = self.receiver_type(&site.receiver, site.byte, depth + 1).ok()?;
        let (getter, setter) = accessor_names(&site.name);
        let accessor = if write { &setter } else { &getter };
        let arity = usize::from(write);
        let holder = match &recv {
            Recv::Instance(t) if t.internal => t.fqn.clone(),
            Recv::Static(t) if t.internal => {
                if self.is_object(&t.fqn) {
                    t.fqn.clone()
                } else if self.table.field(&t.fqn, &site.name).is_some()
                    || self.table.member_type(t, &site.name).is_some()
                {
                    // A constant, an enum entry, `Companion`, a nested type.
                    return None;
                } else {
                    self.companion(&t.fqn)?
                }
            }
            _ => return None,
        };
        let (cands, _) = self.table.methods_named(&holder, accessor);
        let fitting: Vec<&(String, &MethodInfo)> =
            cands.iter().filter(|(_, m)| m.params.len() == arity).collect();
        if let [(decl, m)] = fitting.as_slice() {
            return Some(Target::Internal(key(decl, m)));
        }
        if self.table.field(&holder, &site.name).is_some()
            || self
                .table
                .get(&holder)
                .is_some_and(|t| t.nested.contains_key(site.name.as_str()))
        {
            return None;
        }
        // An extension property.
        let ext: Vec<(String, &MethodInfo)> = self
            .top_level(accessor, true)
            .into_iter()
            .filter(|(f, m)| {
                m.params.len() == arity + 1
                    && m.params.first().is_some_and(|p| {
                        self.table
                            .resolve_type(p, f)
                            .is_some_and(|r| r.fqn == holder || self.table.is_subtype(&holder, &r.fqn))
                    })
            })
            .collect();
        if let [(decl, m)] = ext.as_slice() {
            return Some(Target::Internal(key(decl, m)));
        }
        if fitting.len() > 1 {
            return Some(unresolved(format!("ambiguous accessor {holder}.{accessor}")));
        }
        // Kotlin reads an enum's `name()` and `ordinal()` as properties.
        if !write
            && matches!(site.name.as_str(), "name" | "ordinal")
            && self.table.get(&holder).is_some_and(|t| t.kind == TypeKind::Enum)
        {
            return Some(Target::External {
                type_fqn: "java.lang.Enum".into(),
                method: site.name.clone(),
            });
        }
        let (_, external) = self.table.methods_named(&holder, accessor);
        match external {
            // Inherited from a type outside the product: a getter or a field, unknown.
            Some(_) => None,
            None => Some(unresolved(format!("no property {} on {holder}", site.name))),
        }
    }

    fn select_on(&self, fqn: &str, name: &str, site: &CallSite, depth: usize) -> Target {
        let (cands, external) = self.table.methods_named(fqn, name);
        if cands.is_empty() {
            return match external {
                Some(ext) => Target::External {
                    type_fqn: ext,
                    method: name.to_string(),
                },
                None if OBJECT_METHODS.contains(&name) => Target::External {
                    type_fqn: "java.lang.Object".into(),
                    method: name.to_string(),
                },
                None if self.table.get(fqn).is_some_and(|t| t.kind == TypeKind::Enum)
                    && matches!(name, "values" | "valueOf" | "name" | "ordinal" | "compareTo") =>
                {
                    Target::External {
                        type_fqn: "java.lang.Enum".into(),
                        method: name.to_string(),
                    }
                }
                None => unresolved(format!("no method {name} on {fqn}")),
            };
        }
        let owned: Vec<(String, &MethodInfo)> = cands.into_iter().collect();
        self.select(&owned, name, site, 0, depth, external.as_deref())
    }

    /// Picks the one candidate the call's arguments bind to; `offset` leading parameters
    /// are bound already (an extension's receiver).
    fn select(
        &self,
        cands: &[(String, &MethodInfo)],
        name: &str,
        site: &CallSite,
        offset: usize,
        depth: usize,
        external: Option<&str>,
    ) -> Target {
        let mut fitting: Vec<(&(String, &MethodInfo), bool, bool)> = Vec::new();
        for c in cands {
            if let Some((exact, uses_defaults)) = self.binds(c.1, &c.0, site, offset, depth) {
                fitting.push((c, exact, uses_defaults));
            }
        }
        let pick = |v: &[&(&(String, &MethodInfo), bool, bool)]| -> Option<Target> {
            match v {
                [one] => Some(Target::Internal(key(&one.0 .0, one.0 .1))),
                _ => None,
            }
        };
        let all: Vec<&(&(String, &MethodInfo), bool, bool)> = fitting.iter().collect();
        if let Some(t) = pick(&all) {
            return t;
        }
        if all.is_empty() {
            return match external {
                Some(ext) => Target::External {
                    type_fqn: ext.to_string(),
                    method: name.to_string(),
                },
                None => unresolved(format!("no overload of {name} fits the arguments")),
            };
        }
        let exact: Vec<_> = all.iter().copied().filter(|f| f.1).collect();
        if let Some(t) = pick(&exact) {
            return t;
        }
        // Kotlin prefers the candidate that needs no defaults — when it knows both apply,
        // which it does only when every argument's type is known.
        let all_known =
            (0..site.arg_count).all(|i| is_lambda(site, i) || self.arg_type(site, i, depth).is_some());
        let pool = if exact.is_empty() { all } else { exact };
        let no_defaults: Vec<_> = pool.iter().copied().filter(|f| !f.2).collect();
        if all_known {
            if let Some(t) = pick(&no_defaults) {
                return t;
            }
        }
        unresolved(format!("ambiguous overload {name}"))
    }

    /// Whether the call's arguments bind to `m`'s parameters the way Kotlin binds them:
    /// `Some((all known argument types exact, defaults used))`.
    fn binds(
        &self,
        m: &MethodInfo,
        decl: &str,
        site: &CallSite,
        offset: usize,
        depth: usize,
    ) -> Option<(bool, bool)> {
        let params = m.params.get(offset..)?;
        let names = m.param_names().get(offset..).unwrap_or(&[]);
        let defaults = m.defaults().get(offset..).unwrap_or(&[]);
        let n = site.arg_count;
        let mut bound: Vec<Vec<usize>> = vec![Vec::new(); params.len()];
        let last_is_lambda =
            n > 0 && is_lambda(site, n - 1) && site.arg_names.get(n - 1).is_none_or(Option::is_none);
        let mut positional: Vec<usize> = (0..n)
            .filter(|&i| site.arg_names.get(i).is_none_or(Option::is_none))
            .collect();
        if last_is_lambda && !params.is_empty() && positional.len() < params.len() {
            positional.pop();
            bound[params.len() - 1].push(n - 1);
        }
        let mut next = 0usize;
        for i in positional {
            while next < params.len() && !bound[next].is_empty() && !(m.varargs && next == params.len() - 1) {
                next += 1;
            }
            if next >= params.len() {
                return None;
            }
            bound[next].push(i);
            if !(m.varargs && next == params.len() - 1) {
                next += 1;
            }
        }
        for (i, arg_name) in site.arg_names.iter().enumerate() {
            let Some(arg_name) = arg_name else { continue };
            let p = names.iter().position(|x| x == arg_name)?;
            if !bound[p].is_empty() {
                return None;
            }
            bound[p].push(i);
        }
        let mut uses_defaults = false;
        for (p, args) in bound.iter().enumerate() {
            if args.is_empty() {
                let vararg = m.varargs && p == params.len() - 1;
                if defaults.get(p).copied().unwrap_or(false) {
                    uses_defaults = true;
                } else if !vararg {
                    return None;
                }
            }
        }
        let mut exact = true;
        for (p, args) in bound.iter().enumerate() {
            let param = if m.varargs && p == params.len() - 1 {
                params[p].trim_end_matches("[]").to_string()
            } else {
                params[p].to_string()
            };
            for &i in args {
                if is_lambda(site, i) {
                    if self.lambda_fit(&param, decl) == Fit::No {
                        return None;
                    }
                    exact = false;
                    continue;
                }
                match self.fit(self.arg_type(site, i, depth).as_deref(), &param, decl) {
                    Fit::No => return None,
                    Fit::Maybe => exact = false,
                    Fit::Exact => {}
                }
            }
        }
        Some((exact, uses_defaults))
    }

    /// Whether an argument of type `arg` fits a parameter of type `param` (declared in
    /// `callee`). Kotlin's numbers adapt (`1` is an `Int`, a `Long` or a `Short` as the
    /// parameter asks) and `Int` is `int` or `Integer`.
    fn fit(&self, arg: Option<&str>, param: &str, callee: &str) -> Fit {
        let Some(arg) = arg else {
            return Fit::Maybe;
        };
        let (a, p) = (unbox(&erase(arg)), unbox(&erase(param)));
        let (ap, pp) = (is_primitive(&a), is_primitive(&p));
        if ap || pp {
            return if a == p {
                Fit::Exact
            } else if (ap && pp && is_number(&a) && is_number(&p))
                || p == "Object"
                || a == "Object"
                || p == "Number"
                || p == "Comparable"
            {
                Fit::Maybe
            } else if ap && pp {
                Fit::No
            } else {
                let other = if ap { &p } else { &a };
                if self
                    .table
                    .resolve_type(other, if ap { callee } else { self.type_fqn })
                    .is_some_and(|r| r.internal || JDK_VALUE_TYPES.contains(&r.fqn.as_str()))
                {
                    Fit::No
                } else {
                    Fit::Maybe
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
                        && JDK_VALUE_TYPES.contains(&rp.fqn.as_str())
                {
                    Fit::No
                } else {
                    Fit::Maybe
                }
            }
            _ if simple_name(&a) == simple_name(&p) => Fit::Exact,
            _ => Fit::Maybe,
        }
    }

    /// Whether a lambda may be passed for a parameter of type `param`: a function type or
    /// an interface (a SAM conversion) may take one; a class, a primitive or a JDK value
    /// type may not.
    fn lambda_fit(&self, param: &str, callee: &str) -> Fit {
        let p = erase(param);
        if is_primitive(&p) {
            return Fit::No;
        }
        match self.table.resolve_type(&p, callee) {
            Some(r) if JDK_VALUE_TYPES.contains(&r.fqn.as_str()) => Fit::No,
            Some(r) if r.internal => match self.table.get(&r.fqn) {
                Some(t) if t.kind == TypeKind::Interface => Fit::Maybe,
                _ => Fit::No,
            },
            _ => Fit::Maybe,
        }
    }

    /// `Type::method`, `obj::method`, `::function`: the one method of that name.
    fn method_ref(&self, site: &CallSite, depth: usize) -> Target {
        let (fqn, cands, external) = match &site.receiver {
            Receiver::None => {
                let mut cur = Some(self.type_fqn.to_string());
                let mut found = None;
                while let Some(fqn) = cur {
                    let (cands, ext) = self.table.methods_named(&fqn, &site.name);
                    if !cands.is_empty() {
                        found = Some((fqn, cands, ext));
                        break;
                    }
                    cur = self.table.outer(&fqn);
                }
                match found {
                    Some(f) => f,
                    None => {
                        let top = self.top_level(&site.name, false);
                        return match top.as_slice() {
                            [(decl, m)] => Target::Internal(key(decl, m)),
                            [] if site.name.starts_with(char::is_uppercase) => {
                                self.constructor(&site.name, site, depth)
                            }
                            [] => unresolved(format!("no function {} in scope", site.name)),
                            _ => unresolved(format!("ambiguous reference ::{}", site.name)),
                        };
                    }
                }
            }
            r => {
                let t = match self.receiver_type(r, site.byte, depth + 1) {
                    Ok(Recv::Instance(t) | Recv::Static(t)) => t,
                    Err(e) => return unresolved(e),
                };
                if !t.internal {
                    return Target::External {
                        type_fqn: t.fqn,
                        method: site.name.clone(),
                    };
                }
                // `Type::f` of a companion's function is the companion's.
                let holder = match self.companion(&t.fqn) {
                    Some(c) if !self.table.methods_named(&c, &site.name).0.is_empty() => c,
                    _ => t.fqn,
                };
                let (cands, ext) = self.table.methods_named(&holder, &site.name);
                (holder, cands, ext)
            }
        };
        match cands.as_slice() {
            [(decl, m)] => Target::Internal(key(decl, m)),
            [] => match external {
                Some(ext) => Target::External {
                    type_fqn: ext,
                    method: site.name.clone(),
                },
                None => unresolved(format!("no method {} on {fqn}", site.name)),
            },
            _ => {
                let by_arity: Vec<&(String, &MethodInfo)> = match site.arity_hint {
                    Some(n) => cands
                        .iter()
                        .filter(|(_, m)| m.params.len() == n || m.params.len() + 1 == n)
                        .collect(),
                    None => Vec::new(),
                };
                match by_arity.as_slice() {
                    [(decl, m)] => Target::Internal(key(decl, m)),
                    _ => unresolved(format!("ambiguous reference {fqn}::{}", site.name)),
                }
            }
        }
    }
}

/// The type a call of library method `type_fqn.method` returns, with arguments of these
/// types (`None` where not known): the erased return type of the overloads of that arity
/// (`TypeSource::find_methods`: declared or inherited, an override hiding what it
/// overrides) whose parameters the known argument types match exactly, else of all of
/// them, when they agree on one class. A type variable erased to `Object`, `void` and a
/// primitive type give nothing.
fn library_result(
    lib: &dyn TypeSource,
    type_fqn: &str,
    method: &str,
    args: &[Option<String>],
) -> Option<String> {
    let start = lib.by_fqn(type_fqn)?;
    // (erased parameter types as source names, erased return type), nearest first.
    let candidates: Vec<(Vec<String>, Ty)> = lib
        .find_methods(&start.this_type(), method)
        .iter()
        .filter(|f| {
            f.params.len() == args.len() || (f.method.is_varargs() && args.len() + 1 >= f.params.len())
        })
        .map(|f| {
            let scopes: [&[TypeParam]; 2] = [&f.method.type_params, &start.type_params];
            let params = f
                .params
                .iter()
                .map(|p| source_name(lib, &erase_ty(p, &scopes)))
                .collect();
            (params, erase_ty(&f.ret, &scopes))
        })
        .collect();
    let exact: Vec<&(Vec<String>, Ty)> = candidates
        .iter()
        .filter(|(params, _)| {
            args.iter().zip(params).all(|(a, p)| match a {
                Some(a) => unbox(&kotlin_to_java(a)) == unbox(p),
                None => true,
            })
        })
        .collect();
    let chosen: Vec<&(Vec<String>, Ty)> = if exact.is_empty() {
        candidates.iter().collect()
    } else {
        exact
    };
    let mut results = chosen.iter().map(|(_, ret)| ret);
    let first = results.next()?;
    if results.any(|r| r != first) {
        return None;
    }
    match first {
        Ty::Class(c) => {
            Some(source_name(lib, first)).filter(|n| n != "java.lang.Object" && !c.name.is_empty())
        }
        _ => None,
    }
}

/// The source name of an erased type (`java.util.Map.Entry`, `int`, `String[]`).
fn source_name(lib: &dyn TypeSource, t: &Ty) -> String {
    match t {
        Ty::Class(c) => lib
            .by_binary(&c.name)
            .map_or_else(|| c.name.replace('$', "."), |i| i.fqn.to_string()),
        Ty::Prim(p) => p.keyword().to_string(),
        Ty::Array(inner) => format!("{}[]", source_name(lib, inner)),
        Ty::Var(v) => v.to_string(),
    }
}

/// The JVM's name of a Kotlin type as an argument type may be written (`kotlin.String`,
/// `Int`): what a library's parameter type is compared with, through [`unbox`] (which
/// takes `Long`, `Double`, `Boolean`… as Kotlin and Java both name them).
fn kotlin_to_java(t: &str) -> String {
    let t = erase(t);
    let t = t.trim_end_matches('?');
    match t.strip_prefix("kotlin.").unwrap_or(t) {
        "String" => "java.lang.String",
        "Any" => "java.lang.Object",
        "Int" => "int",
        "Char" => "char",
        _ => t,
    }
    .to_string()
}

/// The standard library facade of a top-level function, if it is one of Kotlin's.
fn stdlib_facade(name: &str) -> Option<&'static str> {
    STDLIB
        .iter()
        .find(|(_, names)| names.contains(&name))
        .map(|(facade, _)| *facade)
}

/// `Integer` → `int` and the other boxes; Kotlin does not tell them apart in calls.
fn unbox(t: &str) -> String {
    let simple = t.rsplit('.').next().unwrap_or(t);
    match simple {
        "Integer" => "int",
        "Long" => "long",
        "Short" => "short",
        "Byte" => "byte",
        "Double" => "double",
        "Float" => "float",
        "Boolean" => "boolean",
        "Character" => "char",
        _ => return t.to_string(),
    }
    .to_string()
}

fn is_number(t: &str) -> bool {
    matches!(t, "int" | "long" | "short" | "byte" | "double" | "float")
}

/// `List<Foo>` → `Foo`; `java.util.List<Foo>` too.
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
