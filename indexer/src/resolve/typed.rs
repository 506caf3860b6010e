//! Typed expressions of Java: the type of every receiver and argument a call site has, read
//! against one layered type view (the product's own types, then the JDK), with generics
//! substituted through receivers, returns and chains.
//!
//! The string rules of `java.rs` bind names of the product; they stop where a value's type
//! comes from outside it — the result of `list.stream()`, the element a lambda receives,
//! an `Optional<T>` unwrapped. [`Typer`] answers those: it types an expression tree of the
//! facts ([`Receiver`]) to a [`Ty`], chooses among overloads the way `javac` does where the
//! argument types are known (JLS §15.12.2: strict, then loose invocation with boxing, then
//! varargs; the most specific of what remains), infers a generic method's type variables
//! from its arguments (lambdas' bodies and method references included), and types lambda
//! parameters from the functional interface the lambda is passed as. Where a type is not
//! known it says `None` — the caller reports the call unresolved rather than guess.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use super::types::{Names, Scope as NameScope, UNKNOWN};
use crate::facts::{CallKind, CallSite, Lambda, MethodDecl, Receiver};
use crate::typemodel::model::{FoundMethod, TypeInfo, TypeSource};
use crate::typemodel::ty::{subst, ClassTy, Name, Prim, Subst, Ty, TyArg, TypeParam};

/// Expression trees deeper than this are not followed.
const MAX_DEPTH: usize = 48;
/// Typing steps one method may take: typing a call types its receiver and arguments,
/// and overload choice and inference type them again, so nested calls cost more than
/// their size; past this budget every expression of the method is unknown.
const MAX_STEPS: usize = 50_000;

/// What an expression denotes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Val {
    /// A value of this type.
    Value(Ty),
    /// A type named as such (`Collections.sort`, `Map.Entry`).
    Type(ClassTy),
    /// `null`.
    Null,
    /// A value of one of these types, none of them the product's: the results of the
    /// overloads a call could not be told apart between (`assertThat(x)` with `x` of a
    /// type nothing declares). A call on it is resolved only when every one of them
    /// gives the same method.
    OneOf(Vec<Ty>),
}

/// A call site as [`Typer`] remembers its choice: start, end, whether lambdas were typed.
type ChosenKey = (usize, usize, bool);

/// Most types a [`Val::OneOf`] carries; beyond, the value is unknown.
const MAX_ONE_OF: usize = 8;

/// Whether an argument fits a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fit {
    No,
    /// The types involved are not all known.
    Maybe,
    /// By loose invocation (boxing or unboxing).
    Loose,
    /// By strict invocation (identity, widening).
    Strict,
}

/// Subtype answers shared by every file resolved against one product's types: whether a
/// class is a subtype of another depends on those types alone, and overload choice asks
/// the same pairs in file after file (`assertThat` has hundreds of candidates). Each
/// [`Typer`] keeps its own answers too, and asks here before walking supertypes.
///
/// Keyed by the addresses of the two types' entries in the model, which live as long as
/// the memo: a key allocates nothing. Bounded: past [`SubtypeMemo::MAX`] answers, new ones
/// are worked out again by each file rather than kept (the pairs asked most come first).
#[derive(Default)]
pub(crate) struct SubtypeMemo(std::sync::RwLock<FxHashMap<(usize, usize), Fit>>);

impl SubtypeMemo {
    /// At most this many answers (about 24 bytes each).
    const MAX: usize = 1 << 18;

    fn key(sub: &TypeInfo, sup: &TypeInfo) -> (usize, usize) {
        (std::ptr::from_ref(sub) as usize, std::ptr::from_ref(sup) as usize)
    }

    fn get(&self, key: &(usize, usize)) -> Option<Fit> {
        self.0.read().ok().and_then(|m| m.get(key).copied())
    }

    fn insert(&self, key: (usize, usize), fit: Fit) {
        if let Ok(mut m) = self.0.write() {
            if m.len() < Self::MAX {
                m.insert(key, fit);
            }
        }
    }
}

/// The subtype answers of one file's resolution, by (sub, sup) as named: overload choice
/// asks the same ones for every candidate (hundreds for `assertThat`), every call and every
/// method of the file. An answer depends only on the types resolved against, which are the
/// same for the whole file; looked up by name, it needs neither type's entry in the model
/// (which the [`SubtypeMemo`] is keyed by).
#[derive(Default)]
pub(crate) struct FileSubtypes(RefCell<FxHashMap<(Name, Name), Fit>>);

/// The methods a call site may invoke, and the bindings of the method's type variables.
#[derive(Clone)]
pub(crate) struct Choice<'a> {
    /// One method when the call is resolved; several when they cannot be told apart.
    pub(crate) found: Vec<FoundMethod<'a>>,
    subst: Subst,
}

impl Choice<'_> {
    /// Each candidate's result type, once each, in the candidates' order — and no more than
    /// `at_most` of them: a caller that has no use for more stops there. The candidates of
    /// an untyped call can be every overload of a name (`assertThat` has hundreds), and
    /// telling each result from every other one found is quadratic.
    fn rets(&self, at_most: usize) -> Vec<Ty> {
        let mut out: Vec<Ty> = Vec::new();
        for f in &self.found {
            if out.len() >= at_most {
                break;
            }
            let ret = finish(&subst(&f.ret, &self.subst), &f.method.type_params);
            if !out.contains(&ret) {
                out.push(ret);
            }
        }
        out
    }
}

/// Types expressions of one method's body.
pub(crate) struct Typer<'a> {
    names: Names<'a>,
    types: &'a dyn TypeSource,
    /// Key of the type the method belongs to.
    from: &'a str,
    method: &'a MethodDecl,
    vars: Vec<String>,
    var_params: Vec<TypeParam>,
    /// Lambda parameters already typed, by (lambda start, position).
    lambda_memo: RefCell<FxHashMap<(usize, usize), Option<Ty>>>,
    /// Lambdas whose parameters are being typed (a cycle stops here).
    typing: RefCell<Vec<usize>>,
    /// Typing steps taken so far (see [`MAX_STEPS`]).
    steps: std::cell::Cell<usize>,
    /// Subtype answers already worked out for the file, by (sub, sup).
    subtypes: &'a FileSubtypes,
    /// The answers of every file resolved against the same types.
    shared_subtypes: &'a SubtypeMemo,
    /// Calls already chosen, by (start, end, lambdas typed): a fluent chain types each
    /// inner call again for every call after it (`assertThat(x).isNotNull().isEqualTo(y)`).
    /// Only calls with a known end, and only found choices: one not found at some depth
    /// may be found at a shallower one.
    chosen: RefCell<FxHashMap<ChosenKey, (String, std::rc::Rc<Choice<'a>>)>>,
}

impl<'a> Typer<'a> {
    pub(crate) fn new(
        names: Names<'a>,
        types: &'a dyn TypeSource,
        from: &'a str,
        method: &'a MethodDecl,
        subtypes: &'a FileSubtypes,
        shared_subtypes: &'a SubtypeMemo,
    ) -> Self {
        let vars: Vec<String> = method.type_params.iter().map(|(n, _)| n.clone()).collect();
        let mut t = Typer {
            names,
            types,
            from,
            method,
            vars,
            var_params: Vec::new(),
            lambda_memo: RefCell::default(),
            typing: RefCell::default(),
            steps: std::cell::Cell::new(0),
            subtypes,
            shared_subtypes,
            chosen: RefCell::new(FxHashMap::default()),
        };
        t.var_params = method
            .type_params
            .iter()
            .map(|(name, bounds)| TypeParam {
                name: Name::from(name.as_str()),
                has_class_bound: !bounds.is_empty(),
                bounds: bounds.iter().filter_map(|b| t.written(b)).collect(),
            })
            .collect();
        t
    }

    /// Takes one typing step; whether the method's budget is spent.
    fn spent(&self) -> bool {
        let n = self.steps.get() + 1;
        self.steps.set(n);
        n > MAX_STEPS
    }

    /// The type `text` names where the method is written.
    pub(crate) fn written(&self, text: &str) -> Option<Ty> {
        let ty = self.names.ty(
            text,
            &NameScope {
                from: self.from,
                method_vars: &self.vars,
            },
        )?;
        Some(ty)
    }

    /// The source name of a class type and whether the product declares it. A library
    /// type no layer models is named as the file's imports name it (its binary name is
    /// then the source name with `$` for nesting, as `types::guess_binary` wrote it): a
    /// call on it is that type's method by name, as for a local declared of that type.
    pub(crate) fn source_name(&self, c: &ClassTy) -> Option<(String, bool)> {
        if c.name.starts_with(UNKNOWN) {
            return None;
        }
        if self.names.table.get(&c.name).is_some() {
            return Some((c.name.to_string(), true));
        }
        let Some(info) = self.types.by_binary(&c.name) else {
            return Some((c.fqn(), false));
        };
        let internal = self.names.table.get(&info.fqn).is_some();
        Some((info.fqn.to_string(), internal))
    }

    /// Whether the external type `fqn` is known with all its supertypes and has no
    /// method `name`: a call of it cannot be what the source means.
    ///
    /// Where the receiver's type is its exact static type (`exact`, see [`Typer::exact`])
    /// and a bundled library model answers for it or a supertype, a member the model lacks
    /// is not known to be missing: those models are of one version of each library, and
    /// the code may be written against a later one that added it (`rootCause()` came with
    /// AssertJ 3.16, the bundled model is 3.14). So with the JDK's model when the product
    /// compiles for a later Java than the model's (`later_jdk`): `List.getFirst()` came
    /// with Java 21.
    pub(crate) fn lacks_method(&self, fqn: &str, name: &str, exact: bool, later_jdk: bool) -> bool {
        let Some(info) = self.types.by_fqn(fqn) else {
            return false;
        };
        // Most members asked about are there: a walk of names settles that before the
        // hierarchy is walked with its type arguments.
        let name = if name == "new" { "<init>" } else { name };
        if self.types.has_method(&info.binary, name, false) {
            return false;
        }
        let c = ClassTy::plain(info.binary.clone());
        let walk = self.types.supertypes(&c);
        !walk.iter().any(|(s, _)| {
            !self.known(&s.name)
                || (exact && (self.bundled(&s.name) || (later_jdk && self.answered_by_jdk(&s.name))))
        })
    }

    /// Whether the layer that answers for `binary` is the JDK's model.
    fn answered_by_jdk(&self, binary: &str) -> bool {
        let jdk = crate::typemodel::jdk::jdk().by_binary(binary);
        match (self.types.by_binary(binary), jdk) {
            (Some(answered), Some(jdk)) => std::ptr::eq(answered, jdk),
            _ => false,
        }
    }

    /// Whether the class of source name `sub` is known to be a subtype of `sup`'s (both
    /// modelled, the walk between them known): `String` of `CharSequence`.
    pub(crate) fn surely_subtype(&self, sub: &str, sup: &str) -> bool {
        match (self.types.by_fqn(sub), self.types.by_fqn(sup)) {
            (Some(a), Some(b)) => self.subtype(&a.binary, &b.binary) == Fit::Strict,
            _ => false,
        }
    }

    /// Whether the type of expression `r` is its static type as javac has it, not a
    /// supertype the typer fell back on: not a type variable taken at its bound (a
    /// method's own variable nothing binds, `SELF` under a wildcard), not a lambda
    /// parameter's. A declared type, a `new`, a literal, and a call whose declared result
    /// is no bare type variable are; a `var` is what its initializer is.
    pub(crate) fn exact(&self, r: &Receiver, byte: usize, depth: usize) -> bool {
        if depth > MAX_DEPTH || self.spent() {
            return false;
        }
        let declared = |t: &Ty| matches!(t, Ty::Class(_) | Ty::Prim(_));
        let own_field = |n: &str| {
            let here = self.this_ty(self.from);
            self.types
                .find_field(&here, n)
                .is_some_and(|f| declared(&f.field.ty))
        };
        match r {
            Receiver::Name(n) => {
                if let Some(local) = self.method.find_local(n, byte) {
                    return match (&local.ty, &local.init) {
                        (Some(t), _) => self.written(t).is_some_and(|t| declared(&t)),
                        (None, Some(init)) => self.exact(init, local.scope.0, depth + 1),
                        _ => false,
                    };
                }
                if let Some(p) = self.method.param_at(n, byte) {
                    return self.written(&p.ty).is_some_and(|t| declared(&t));
                }
                own_field(n)
            }
            Receiver::Field(inner, f) if **inner == Receiver::This => own_field(f),
            Receiver::Call(cs) => self
                .call(cs, depth + 1)
                .is_some_and(|choice| choice.found.iter().all(|f| declared(&f.method.ret))),
            Receiver::New(_) | Receiver::Literal(_) | Receiver::ClassLit(_) => true,
            _ => false,
        }
    }

    /// Whether the type model (dependencies, bundled libraries, the JDK) declares the
    /// type of source name `fqn`.
    pub(crate) fn knows(&self, fqn: &str) -> bool {
        self.types.by_fqn(fqn).is_some()
    }

    /// Whether some type model (the product's, a jar's, a bundled one) holds package `pkg`.
    pub(crate) fn knows_package(&self, pkg: &str) -> bool {
        self.types.has_package(pkg)
    }

    /// Whether the written type names an interface (product or external).
    pub(crate) fn names_interface(&self, written: &str) -> bool {
        match self.written(written) {
            Some(Ty::Class(c)) => self
                .types
                .by_binary(&c.name)
                .is_some_and(|i| i.kind.is_interface()),
            _ => false,
        }
    }

    fn this_ty(&self, key: &str) -> ClassTy {
        match self.types.by_binary(key) {
            Some(info) => info.this_type(),
            None => ClassTy::plain(Name::from(key)),
        }
    }

    /// The class a value of type `t` is looked up in: a type variable by its bound, an
    /// array as `Object`.
    pub(crate) fn class_of(&self, t: &Ty) -> Option<ClassTy> {
        let mut cur = t.clone();
        for _ in 0..16 {
            match cur {
                Ty::Class(c) => return Some(c),
                Ty::Array(_) => return Some(ClassTy::plain(Name::from("java.lang.Object"))),
                Ty::Prim(_) => return None,
                Ty::Var(v) => {
                    cur = self.var_bound(&v)?;
                }
            }
        }
        None
    }

    /// The name of [`Typer::class_of`]'s class, without copying the type's arguments (what
    /// a subtype test reads).
    fn class_name(&self, t: &Ty) -> Option<Name> {
        match t {
            Ty::Class(c) => Some(c.name.clone()),
            other => self.class_of(other).map(|c| c.name),
        }
    }

    /// The first bound of a type variable in scope (the method's, then its type's and the
    /// enclosing types').
    fn var_bound(&self, v: &str) -> Option<Ty> {
        if let Some(p) = self.var_params.iter().find(|p| &*p.name == v) {
            return self.bound_of(p);
        }
        let mut key: Option<Name> = Some(Name::from(self.from));
        for _ in 0..16 {
            let info = self.types.by_binary(key.as_deref()?)?;
            if let Some(p) = info.type_params.iter().find(|p| &*p.name == v) {
                return self.bound_of(p);
            }
            key = info.outer.clone();
        }
        None
    }

    /// The bound a member of a value of type variable `p` is looked up in: its only one,
    /// or none when it has several — the member may be any bound's (`T extends Jar &
    /// BootArchive` calling `BootArchive.getMainClass`, `T extends Number & Comparable<T>`
    /// calling `compareTo`), and a lookup in the first alone would say it has none.
    fn bound_of(&self, p: &TypeParam) -> Option<Ty> {
        match p.bounds.as_slice() {
            [] => Some(Ty::object()),
            [only] => Some(only.clone()),
            _ => None,
        }
    }

    /// The type of an expression at byte `byte` of the method.
    pub(crate) fn expr(&self, r: &Receiver, byte: usize, depth: usize) -> Option<Val> {
        if depth > MAX_DEPTH || self.spent() {
            return None;
        }
        let value = |t: Ty| Some(Val::Value(t));
        match r {
            Receiver::None | Receiver::This => value(Ty::Class(self.this_ty(self.from))),
            Receiver::Super => {
                let info = self.types.by_binary(self.from)?;
                value(Ty::Class(info.superclass.clone()?))
            }
            Receiver::Name(n) => self.name(n, byte, depth),
            Receiver::Field(inner, f) => self.field(r, inner, f, byte, depth),
            Receiver::Call(cs) => {
                let choice = self.call(cs, depth + 1)?;
                // The result when every candidate agrees on it, else one of a few (one more
                // than `one_of` takes is enough to know there are too many).
                match <[Ty; 1]>::try_from(choice.rets(MAX_ONE_OF + 1)) {
                    Ok([t]) => value(t),
                    Err(rets) => self.one_of(rets),
                }
            }
            Receiver::New(t) => value(self.written(t)?),
            Receiver::Literal(t) => match Prim::from_keyword(t) {
                Some(p) => value(Ty::Prim(p)),
                None => value(Ty::class("java.lang.String")),
            },
            Receiver::Null => Some(Val::Null),
            Receiver::ClassLit(t) => {
                let arg = match self.written(t)? {
                    Ty::Prim(p) => Ty::class(p.boxed().unwrap_or("java.lang.Void")),
                    other => other,
                };
                value(Ty::Class(ClassTy {
                    name: Name::from("java.lang.Class"),
                    args: Box::new([TyArg::Exact(arg)]),
                    outer: None,
                }))
            }
            Receiver::Cast(t, _) => value(self.written(t)?),
            Receiver::Conditional(a, b) => {
                let a = self.expr(a, byte, depth + 1);
                let b = self.expr(b, byte, depth + 1);
                match (a, b) {
                    (Some(Val::Null), other) | (other, Some(Val::Null)) => other,
                    (Some(Val::Value(x)), Some(Val::Value(y))) => {
                        if x == y {
                            value(x)
                        } else {
                            match (unboxed(&x), unboxed(&y)) {
                                (Some(p), Some(q)) if p != Prim::Boolean && q != Prim::Boolean => {
                                    value(Ty::Prim(promote(p, q)))
                                }
                                _ => None,
                            }
                        }
                    }
                    _ => None,
                }
            }
            Receiver::Lambda(_) | Receiver::MethodRef(_) | Receiver::Other => None,
            Receiver::ArrayAccess(a) => match self.expr(a, byte, depth + 1)? {
                Val::Value(Ty::Array(e)) => value(*e),
                _ => None,
            },
            Receiver::NewArray(t) => value(self.written(t)?),
            Receiver::Binary(op, a, b) => match op.as_str() {
                "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||" => value(Ty::Prim(Prim::Boolean)),
                _ => {
                    let a = self.expr(a, byte, depth + 1)?;
                    let b = self.expr(b, byte, depth + 1)?;
                    let is_string =
                        |v: &Val| matches!(v, Val::Value(Ty::Class(c)) if &*c.name == "java.lang.String");
                    if op == "+" && (is_string(&a) || is_string(&b)) {
                        return value(Ty::class("java.lang.String"));
                    }
                    let (Val::Value(x), Val::Value(y)) = (a, b) else {
                        return None;
                    };
                    let (p, q) = (unboxed(&x)?, unboxed(&y)?);
                    if matches!(op.as_str(), "<<" | ">>" | ">>>") {
                        return value(Ty::Prim(promote(p, Prim::Int)));
                    }
                    if p == Prim::Boolean && q == Prim::Boolean {
                        return value(Ty::Prim(Prim::Boolean));
                    }
                    value(Ty::Prim(promote(p, q)))
                }
            },
            Receiver::Unary(op, a) => {
                if op == "!" {
                    return value(Ty::Prim(Prim::Boolean));
                }
                let Val::Value(x) = self.expr(a, byte, depth + 1)? else {
                    return None;
                };
                if op == "++" || op == "--" {
                    return value(x);
                }
                value(Ty::Prim(promote(unboxed(&x)?, Prim::Int)))
            }
            Receiver::Assign(l) => self.expr(l, byte, depth + 1),
            Receiver::OuterThis(t) => value(self.written(t)?),
            Receiver::Switch(arms) => arms
                .iter()
                .filter_map(|a| self.expr(a, byte, depth + 1))
                .find(|v| *v != Val::Null),
            Receiver::InstanceOf => value(Ty::Prim(Prim::Boolean)),
        }
    }

    /// A bare name: local, parameter, field (own, inherited, enclosing), then type.
    fn name(&self, n: &str, byte: usize, depth: usize) -> Option<Val> {
        if let Some(local) = self.method.find_local(n, byte) {
            if let Some(t) = &local.ty {
                return Some(Val::Value(self.written(t)?));
            }
            if let Some(init) = &local.init {
                return match self.expr(init, local.scope.0, depth + 1)? {
                    Val::Value(t) => Some(Val::Value(t)),
                    _ => None,
                };
            }
            if let Some((start, pos)) = local.lambda {
                return Some(Val::Value(self.lambda_param(start, pos, depth + 1)?));
            }
            if let Some(iterated) = &local.element_of {
                let Val::Value(t) = self.expr(iterated, local.scope.0, depth + 1)? else {
                    return None;
                };
                return Some(Val::Value(self.element(&t)?));
            }
            return None;
        }
        if let Some(p) = self.method.param_at(n, byte) {
            return Some(Val::Value(self.written(&p.ty)?));
        }
        // Fields of the type, its supertypes and its enclosing types.
        let mut key: Option<Name> = Some(Name::from(self.from));
        for _ in 0..16 {
            let Some(k) = key.as_deref() else { break };
            let here = self.this_ty(k);
            if let Some(f) = self.types.find_field(&here, n) {
                return Some(Val::Value(f.ty));
            }
            key = self.types.by_binary(k).and_then(|i| i.outer.clone());
        }
        let c = self.names.class_name(&[n], self.from);
        if c.starts_with(UNKNOWN) || self.types.by_binary(&c).is_none() {
            return None;
        }
        Some(Val::Type(ClassTy::plain(c)))
    }

    /// `x.f`: a field of a value or a type, a member type, or a qualified type name.
    fn field(&self, whole: &Receiver, inner: &Receiver, f: &str, byte: usize, depth: usize) -> Option<Val> {
        match self.expr(inner, byte, depth + 1) {
            Some(Val::Value(t)) => {
                if let Ty::Array(_) = t {
                    return (f == "length").then_some(Val::Value(Ty::Prim(Prim::Int)));
                }
                let c = self.class_of(&t)?;
                Some(Val::Value(self.types.find_field(&c, f)?.ty))
            }
            Some(Val::Type(c)) => {
                if let Some(found) = self.types.find_field(&c, f) {
                    return Some(Val::Value(found.ty));
                }
                let m = self.types.member_type(&c.name, f)?;
                Some(Val::Type(ClassTy::plain(m.binary.clone())))
            }
            Some(Val::Null | Val::OneOf(_)) => None,
            None => {
                let path = dotted(whole)?;
                let parts: Vec<&str> = path.split('.').collect();
                let c = self.names.class_name(&parts, self.from);
                if c.starts_with(UNKNOWN) || self.types.by_binary(&c).is_none() {
                    return None;
                }
                Some(Val::Type(ClassTy::plain(c)))
            }
        }
    }

    /// The element type of an iterable or array.
    pub(crate) fn element(&self, t: &Ty) -> Option<Ty> {
        if let Ty::Array(e) = t {
            return Some((**e).clone());
        }
        let c = self.class_of(t)?;
        let it = self.types.find_methods(&c, "iterator");
        let ret = it.iter().find(|m| m.params.is_empty())?.ret.clone();
        let Ty::Class(ic) = ret else { return None };
        arg_ty(ic.args.first()?)
    }

    /// The methods a call site may invoke.
    pub(crate) fn call(&self, cs: &CallSite, depth: usize) -> Option<std::rc::Rc<Choice<'a>>> {
        self.call_with(cs, depth, true)
    }

    /// [`Typer::call`], choosing with or without typing lambdas; a chosen call is kept
    /// (shared, not copied) for the chain or argument that asks again.
    fn call_with(&self, cs: &CallSite, depth: usize, lambdas: bool) -> Option<std::rc::Rc<Choice<'a>>> {
        let key = (cs.byte, cs.end, lambdas);
        if cs.end != 0 {
            if let Some((name, choice)) = self.chosen.borrow().get(&key) {
                if *name == cs.name {
                    return Some(choice.clone());
                }
            }
        }
        let choice = std::rc::Rc::new(self.call_uncached(cs, depth, lambdas)?);
        if cs.end != 0 {
            self.chosen
                .borrow_mut()
                .insert(key, (cs.name.clone(), choice.clone()));
        }
        Some(choice)
    }

    fn call_uncached(&self, cs: &CallSite, depth: usize, lambdas: bool) -> Option<Choice<'a>> {
        if depth > MAX_DEPTH || self.spent() {
            return None;
        }
        match cs.kind {
            CallKind::Constructor => {
                let Ty::Class(c) = self.written(&cs.name)? else {
                    return None;
                };
                let mut choice = self.choose(&c, "<init>", cs, false, depth, lambdas)?;
                // The value of `new X<>(…)` is `X`; its constructor returns nothing.
                choice.found.iter_mut().for_each(|f| f.ret = Ty::Class(c.clone()));
                Some(choice)
            }
            CallKind::ThisCall => {
                let c = self.this_ty(self.from);
                self.choose(&c, "<init>", cs, false, depth, lambdas)
            }
            CallKind::SuperCall => {
                let sup = self.types.by_binary(self.from)?.superclass.clone()?;
                self.choose(&sup, "<init>", cs, false, depth, lambdas)
            }
            // A Kotlin property access: Kotlin files are resolved by `kotlin.rs`.
            CallKind::MethodRef | CallKind::Property => None,
            CallKind::Method => match &cs.receiver {
                Receiver::None => self.implicit(cs, depth, lambdas),
                r => match self.expr(r, cs.byte, depth + 1)? {
                    Val::Value(t) => {
                        let c = self.class_of(&t)?;
                        self.choose(&c, &cs.name, cs, false, depth, lambdas)
                    }
                    Val::Type(c) => self.choose(&c, &cs.name, cs, true, depth, lambdas),
                    Val::Null => None,
                    Val::OneOf(ts) => self.choose_on_each(&ts, cs, depth, lambdas),
                },
            },
        }
    }

    /// `ts` as a [`Val::OneOf`]: classes only, none of them the product's, two to
    /// [`MAX_ONE_OF`].
    fn one_of(&self, ts: Vec<Ty>) -> Option<Val> {
        let external_class =
            |t: &Ty| matches!(t, Ty::Class(c) if self.source_name(c).is_some_and(|(_, internal)| !internal));
        (ts.len() >= 2 && ts.len() <= MAX_ONE_OF && ts.iter().all(external_class)).then_some(Val::OneOf(ts))
    }

    /// A call on a value of one of `ts`: the method each of them gives, when it is the same
    /// one (and not generic in its own right); its result may differ by receiver (a self
    /// type), so the choice keeps one candidate per receiver.
    fn choose_on_each(&self, ts: &[Ty], cs: &CallSite, depth: usize, lambdas: bool) -> Option<Choice<'a>> {
        let mut found: Vec<FoundMethod<'a>> = Vec::with_capacity(ts.len());
        let mut subst = None;
        for t in ts {
            let c = self.class_of(t)?;
            let choice = self.choose(&c, &cs.name, cs, false, depth, lambdas)?;
            let [one] = choice.found.as_slice() else {
                return None;
            };
            if !one.method.type_params.is_empty() {
                return None;
            }
            if let Some(first) = found.first() {
                if first.declaring.binary != one.declaring.binary || !std::ptr::eq(first.method, one.method) {
                    return None;
                }
            }
            found.push(one.clone());
            subst.get_or_insert(choice.subst);
        }
        Some(Choice {
            found,
            subst: subst.unwrap_or_default(),
        })
    }

    /// A call with no receiver: the type and its supertypes, the enclosing types, then
    /// static imports.
    fn implicit(&self, cs: &CallSite, depth: usize, lambdas: bool) -> Option<Choice<'a>> {
        let mut key: Option<Name> = Some(Name::from(self.from));
        for _ in 0..16 {
            let Some(k) = key.as_deref() else { break };
            let here = self.this_ty(k);
            if !self.types.find_methods(&here, &cs.name).is_empty() {
                return self.choose(&here, &cs.name, cs, false, depth, lambdas);
            }
            key = self.types.by_binary(k).and_then(|i| i.outer.clone());
        }
        let ctx = &self.names.table.get(self.from)?.ctx;
        let mut owners: Vec<&crate::typemodel::ty::Name> =
            ctx.static_single.get(cs.name.as_str()).into_iter().collect();
        owners.extend(&ctx.static_wildcards);
        for owner in owners {
            let parts: Vec<&str> = owner.split('.').collect();
            let c = self.names.class_name(&parts, self.from);
            if c.starts_with(UNKNOWN) {
                continue;
            }
            if self.types.has_method(&c, &cs.name, true) {
                return self.choose(&ClassTy::plain(c), &cs.name, cs, true, depth, lambdas);
            }
        }
        None
    }

    /// The overloads of `name` on `recv` that fit the call (JLS §15.12.2).
    fn choose(
        &self,
        recv: &ClassTy,
        name: &str,
        cs: &CallSite,
        static_only: bool,
        depth: usize,
        lambdas: bool,
    ) -> Option<Choice<'a>> {
        let all = self.types.find_methods(recv, name);
        let only_static = static_only && all.iter().any(|m| m.method.is_static());
        let cands: Vec<&FoundMethod<'a>> = all
            .iter()
            .filter(|m| !only_static || m.method.is_static())
            .collect();
        if cands.is_empty() {
            return None;
        }
        let n = cs.arg_count;
        let args: Vec<Arg> = (0..n).map(|i| self.arg(cs, i, depth)).collect();
        // Phases 1 and 2: by arity, strict then loose; phase 3: varargs.
        // Candidates by reference: only the ones chosen are copied out.
        let mut fitting: Vec<(&FoundMethod<'a>, Fit)> = Vec::new();
        for &c in cands.iter().filter(|c| c.params.len() == n) {
            let fit = args
                .iter()
                .zip(&c.params)
                .map(|(a, p)| self.fit_arg(a, p, c))
                .min()
                .unwrap_or(Fit::Strict);
            if fit != Fit::No {
                fitting.push((c, fit));
            }
        }
        let fixed_arity = !fitting.is_empty();
        if fitting.is_empty() {
            for &c in cands
                .iter()
                .filter(|c| c.method.is_varargs() && n + 1 >= c.params.len())
            {
                let fixed = c.params.len() - 1;
                let Some(Ty::Array(elem)) = c.params.last() else {
                    continue;
                };
                let fit = args
                    .iter()
                    .enumerate()
                    .map(|(i, a)| match c.params.get(i) {
                        Some(p) if i < fixed => self.fit_arg(a, p, c),
                        _ => self.fit_arg(a, elem, c),
                    })
                    .min()
                    .unwrap_or(Fit::Strict);
                if fit != Fit::No {
                    fitting.push((c, fit));
                }
            }
        }
        if fitting.is_empty() {
            return None;
        }
        let best = fitting.iter().map(|(_, f)| *f).max().unwrap_or(Fit::No);
        let known = fitting.iter().all(|(_, f)| *f != Fit::Maybe);
        let found: Vec<&FoundMethod<'a>> = if known {
            // Strict before loose; then the most specific.
            let phase: Vec<&FoundMethod<'a>> = fitting
                .into_iter()
                .filter(|(_, f)| *f == best)
                .map(|(c, _)| c)
                .collect();
            self.most_specific(phase)
        } else if let Some(sure) = fixed_arity
            .then(|| self.sure_despite_unknowns(&fitting, &args))
            .flatten()
        {
            vec![sure]
        } else {
            fitting.into_iter().map(|(c, _)| c).collect()
        };
        let found: Vec<FoundMethod<'a>> = found.into_iter().cloned().collect();
        let subst = match found.as_slice() {
            [one] => self.infer(one, &args, cs, depth, lambdas),
            _ => Subst::empty(),
        };
        Some(Choice { found, subst })
    }

    /// The overload javac must have chosen although some candidates' fit is unknown
    /// (an argument's type has supertypes no layer knows), when there is one.
    ///
    /// The code compiles, so among the overloads that really apply one is more specific
    /// than every other. When the candidates that surely apply by strict invocation
    /// (phase 1) have one most specific, `best`, and no candidate of unknown fit could be
    /// more specific than `best` (some parameter of it is known not to be a subtype of
    /// `best`'s), then a candidate of unknown fit either does not apply, or applies and is
    /// less specific than `best` — or is unrelated to it, which would leave no most
    /// specific method and not compile. Either way `best` is the one called
    /// (JLS §15.12.2.5). Only for fixed-arity candidates: phase 3 is never reached
    /// when phase 1 finds one.
    ///
    /// A parameter of `best` that is the argument's own type settles it too: a candidate
    /// whose parameter there is of another class would, to be more specific, take a
    /// subtype of the argument's type that the argument is also a subtype of — the same
    /// class. So `compare(s, mode)` with `mode` declared `JSONCompareMode` is
    /// `compare(CharSequence, JSONCompareMode)`, whatever `JSONComparator` is.
    fn sure_despite_unknowns<'m>(
        &self,
        fitting: &[(&'m FoundMethod<'a>, Fit)],
        args: &[Arg],
    ) -> Option<&'m FoundMethod<'a>> {
        let strict: Vec<&'m FoundMethod<'a>> = fitting
            .iter()
            .filter(|(_, f)| *f == Fit::Strict)
            .map(|(c, _)| *c)
            .collect();
        let [best] = <[&'m FoundMethod<'a>; 1]>::try_from(self.most_specific(strict)).ok()?;
        let surely_not_more_specific = |c: &FoundMethod<'_>| {
            c.params.iter().zip(&best.params).zip(args).any(|((x, y), a)| {
                let x = at_own_bound(x, c);
                let own_type = match (a, y, &x) {
                    (Arg::Value(Ty::Class(a)), Ty::Class(y), Ty::Class(x)) => a == y && x.name != y.name,
                    _ => false,
                };
                own_type || self.fit_ty(&x, y, best) == Fit::No
            })
        };
        fitting
            .iter()
            .filter(|(_, f)| *f == Fit::Maybe)
            .all(|(c, _)| surely_not_more_specific(c))
            .then_some(best)
    }

    /// The candidates no other candidate is more specific than.
    fn most_specific<'m>(&self, cands: Vec<&'m FoundMethod<'a>>) -> Vec<&'m FoundMethod<'a>> {
        if cands.len() < 2 {
            return cands;
        }
        let more_specific = |a: &FoundMethod<'_>, b: &FoundMethod<'_>| {
            a.params.len() == b.params.len()
                && a.params
                    .iter()
                    .zip(&b.params)
                    .all(|(x, y)| self.fit_ty(x, y, b) == Fit::Strict)
        };
        let keep: Vec<bool> = cands
            .iter()
            .enumerate()
            .map(|(i, a)| {
                !cands
                    .iter()
                    .enumerate()
                    .any(|(j, b)| i != j && more_specific(b, a) && !more_specific(a, b))
            })
            .collect();
        cands
            .into_iter()
            .zip(keep)
            .filter(|(_, k)| *k)
            .map(|(c, _)| c)
            .collect()
    }

    fn arg(&self, cs: &CallSite, i: usize, depth: usize) -> Arg {
        match cs.arg_exprs.get(i) {
            Some(Receiver::Lambda(l)) => Arg::Lambda(l.params.len()),
            Some(Receiver::MethodRef(_)) => Arg::Function,
            Some(Receiver::Conditional(a, b)) if is_function(a) || is_function(b) => Arg::Function,
            Some(e) => match self.expr(e, cs.byte, depth + 1) {
                Some(Val::Value(t)) => Arg::Value(t),
                Some(Val::Null) => Arg::Null,
                _ => Arg::Unknown,
            },
            None => Arg::Unknown,
        }
    }

    fn fit_arg(&self, a: &Arg, p: &Ty, c: &FoundMethod<'_>) -> Fit {
        match a {
            Arg::Unknown => Fit::Maybe,
            Arg::Null => match p {
                Ty::Prim(_) => Fit::No,
                _ => Fit::Strict,
            },
            Arg::Value(t) => self.fit_ty(t, p, c),
            Arg::Lambda(arity) => match self.param_class(p, c) {
                Some(pc) => match self.sam(&pc) {
                    Some((params, _)) if params.len() == *arity => Fit::Strict,
                    Some(_) => Fit::No,
                    None if self.types.by_binary(&pc.name).is_some() => Fit::No,
                    None => Fit::Maybe,
                },
                None if matches!(p, Ty::Var(_)) => Fit::Maybe,
                None => Fit::No,
            },
            Arg::Function => match self.param_class(p, c) {
                Some(pc) => match self.sam(&pc) {
                    Some(_) => Fit::Maybe,
                    None if self.types.by_binary(&pc.name).is_some() => Fit::No,
                    None => Fit::Maybe,
                },
                None if matches!(p, Ty::Var(_)) => Fit::Maybe,
                None => Fit::No,
            },
        }
    }

    /// The class of a parameter type (`None` for a primitive, an array or a method's
    /// type variable).
    fn param_class(&self, p: &Ty, c: &FoundMethod<'_>) -> Option<ClassTy> {
        match p {
            Ty::Class(pc) => Some(pc.clone()),
            Ty::Var(v) if c.method.type_params.iter().any(|tp| tp.name == *v) => None,
            Ty::Var(_) => Some(ClassTy::plain(Name::from("java.lang.Object"))),
            _ => None,
        }
    }

    /// Whether a value of type `t` may be passed where `p` is declared.
    fn fit_ty(&self, t: &Ty, p: &Ty, c: &FoundMethod<'_>) -> Fit {
        match (t, p) {
            (Ty::Prim(a), Ty::Prim(b)) => {
                if a.widens_to(*b) {
                    Fit::Strict
                } else {
                    Fit::No
                }
            }
            (Ty::Prim(a), _) => {
                let Some(boxed) = a.boxed() else { return Fit::No };
                match self.fit_ty(&Ty::class(boxed), p, c) {
                    Fit::Strict | Fit::Loose => Fit::Loose,
                    other => other,
                }
            }
            (_, Ty::Prim(b)) => match t.as_class().and_then(|tc| Prim::unboxed(&tc.name)) {
                Some(a) if a.widens_to(*b) => Fit::Loose,
                Some(_) => Fit::No,
                None if self.class_name(t).is_some_and(|tc| self.known(&tc)) => Fit::No,
                None => Fit::Maybe,
            },
            (Ty::Array(a), Ty::Array(b)) => match (&**a, &**b) {
                (Ty::Prim(x), Ty::Prim(y)) => {
                    if x == y {
                        Fit::Strict
                    } else {
                        Fit::No
                    }
                }
                (Ty::Prim(_), _) | (_, Ty::Prim(_)) => Fit::No,
                (x, y) => match self.fit_ty(x, y, c) {
                    Fit::Loose => Fit::No,
                    other => other,
                },
            },
            (_, Ty::Var(v)) if c.method.type_params.iter().any(|tp| tp.name == *v) => {
                // A method's type variable takes any reference; its bound is checked
                // against the argument's class.
                let bound = c
                    .method
                    .type_params
                    .iter()
                    .find(|tp| tp.name == *v)
                    .and_then(|tp| tp.bounds.first())
                    .and_then(Ty::as_class)
                    .filter(|b| &*b.name != "java.lang.Object" && !b.args.iter().any(|_| true));
                match bound {
                    Some(b) => self.fit_ty(t, &Ty::Class(b.clone()), c),
                    None => Fit::Strict,
                }
            }
            (Ty::Array(_), _) => match self.class_name(p) {
                Some(pc) => match &*pc {
                    "java.lang.Object" | "java.lang.Cloneable" | "java.io.Serializable" => Fit::Strict,
                    _ => Fit::No,
                },
                None => Fit::Maybe,
            },
            (_, Ty::Array(_)) => match self.class_name(t) {
                Some(tc) if self.known(&tc) && !matches!(t, Ty::Var(_)) => Fit::No,
                _ => Fit::Maybe,
            },
            _ => {
                let (Some(tc), Some(pc)) = (self.class_name(t), self.class_name(p)) else {
                    return Fit::Maybe;
                };
                self.subtype(&tc, &pc)
            }
        }
    }

    fn known(&self, binary: &str) -> bool {
        self.known_type(binary).is_some()
    }

    /// The model's entry for `binary`, unless it is a name the resolver could not bind.
    fn known_type(&self, binary: &str) -> Option<&'a TypeInfo> {
        if binary.starts_with(UNKNOWN) {
            return None;
        }
        self.types.by_binary(binary)
    }

    /// Whether the layer that answers for `binary` is the bundled library models (not a
    /// jar on disk, which is the version the code is built against, nor the JDK).
    fn bundled(&self, binary: &str) -> bool {
        let bundled = crate::typemodel::libraries::libraries().by_binary(binary);
        match (self.types.by_binary(binary), bundled) {
            (Some(answered), Some(bundled)) => std::ptr::eq(answered, bundled),
            _ => false,
        }
    }

    /// Whether class `sub` is `sup` or a subtype: `Maybe` when the walk meets a type no
    /// layer knows.
    fn subtype(&self, sub: &Name, sup: &Name) -> Fit {
        if sub == sup || &**sup == "java.lang.Object" {
            return Fit::Strict;
        }
        let key = (sub.clone(), sup.clone());
        if let Some(&fit) = self.subtypes.0.borrow().get(&key) {
            return fit;
        }
        let fit = self.subtype_shared(sub, sup);
        self.subtypes.0.borrow_mut().insert(key, fit);
        fit
    }

    /// [`Typer::subtype`] as every file of the product has it: `Maybe` unless both types,
    /// and every type the walk from `sub` meets, are known.
    fn subtype_shared(&self, sub: &str, sup: &str) -> Fit {
        let (Some(a), Some(b)) = (self.known_type(sub), self.known_type(sup)) else {
            return Fit::Maybe;
        };
        let key = SubtypeMemo::key(a, b);
        if let Some(fit) = self.shared_subtypes.get(&key) {
            return fit;
        }
        let walk = self.types.supertypes(&ClassTy::plain(Name::from(sub)));
        let fit = if walk.iter().any(|(c, _)| &*c.name == sup) {
            Fit::Strict
        } else if walk.iter().any(|(c, _)| !self.known(&c.name)) {
            Fit::Maybe
        } else {
            Fit::No
        };
        self.shared_subtypes.insert(key, fit);
        fit
    }

    /// The parameter types and result of the one abstract method of a functional
    /// interface, as `c` parameterises it (wildcards taken at their bound, JLS §9.9).
    fn sam(&self, c: &ClassTy) -> Option<(Vec<Ty>, Ty)> {
        let info = self.types.by_binary(&c.name)?;
        if !info.kind.is_interface() {
            return None;
        }
        let exact = ClassTy {
            name: c.name.clone(),
            args: c
                .args
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    TyArg::Exact(match a {
                        TyArg::Exact(t) | TyArg::Extends(t) | TyArg::Super(t) => t.clone(),
                        TyArg::Wildcard => info
                            .type_params
                            .get(i)
                            .and_then(|p| p.bounds.first().cloned())
                            .unwrap_or_else(Ty::object),
                    })
                })
                .collect(),
            outer: None,
        };
        let mut abstract_methods = Vec::new();
        for (sup, _) in self.types.supertypes(&exact) {
            let Some(si) = self.types.by_binary(&sup.name) else {
                continue;
            };
            if !si.kind.is_interface() {
                continue;
            }
            for m in si.methods.iter().filter(|m| m.is_abstract() && !m.is_static()) {
                if matches!(&*m.name, "equals" | "hashCode" | "toString") {
                    continue;
                }
                if abstract_methods
                    .iter()
                    .any(|(n, k): &(Name, usize)| *n == m.name && *k == m.params.len())
                {
                    continue;
                }
                abstract_methods.push((m.name.clone(), m.params.len()));
            }
        }
        let [(name, arity)] = abstract_methods.as_slice() else {
            return None;
        };
        let found = self.types.find_methods(&exact, name);
        let m = found
            .iter()
            .find(|f| f.params.len() == *arity && f.method.is_abstract())?;
        Some((m.params.clone(), m.ret.clone()))
    }

    /// Bindings of the method's own type variables from the arguments.
    fn infer(&self, m: &FoundMethod<'_>, args: &[Arg], cs: &CallSite, depth: usize, lambdas: bool) -> Subst {
        let mut s = Subst::empty();
        if m.method.type_params.is_empty() {
            return s;
        }
        let vars = &m.method.type_params;
        let param_at = |i: usize| -> Option<Ty> {
            let last = m.params.len().checked_sub(1)?;
            if m.method.is_varargs()
                && i >= last
                && !(args.len() == m.params.len() && is_array_arg(&args[last]))
            {
                match m.params.last() {
                    Some(Ty::Array(e)) => Some((**e).clone()),
                    _ => None,
                }
            } else {
                m.params.get(i).cloned()
            }
        };
        // Values first, then functions (whose parameter types need the values' bindings).
        for (i, a) in args.iter().enumerate() {
            if let (Arg::Value(t), Some(p)) = (a, param_at(i)) {
                self.unify(&p, t, vars, &mut s, 0);
            }
        }
        if !lambdas {
            return s;
        }
        for (i, a) in args.iter().enumerate() {
            if !matches!(a, Arg::Lambda(_) | Arg::Function) {
                continue;
            }
            let Some(Ty::Class(pc)) = param_at(i).map(|p| subst(&p, &s)) else {
                continue;
            };
            let Some((params, ret)) = self.sam(&pc) else {
                continue;
            };
            if !mentions(&ret, vars) {
                continue;
            }
            let body = match cs.arg_exprs.get(i) {
                Some(Receiver::Lambda(l)) => self.lambda_result(l, depth),
                Some(Receiver::MethodRef(b)) => self.method_ref_result(*b, params.first(), depth),
                _ => None,
            };
            if let Some(t) = body {
                self.unify(&ret, &t, vars, &mut s, 0);
            }
        }
        s
    }

    fn unify(&self, p: &Ty, a: &Ty, vars: &[TypeParam], s: &mut Subst, depth: usize) {
        if depth > 8 {
            return;
        }
        match p {
            Ty::Var(v) if vars.iter().any(|tp| tp.name == *v) && s.get(v).is_none() => {
                let a = match a {
                    Ty::Prim(pr) => match pr.boxed() {
                        Some(b) => Ty::class(b),
                        None => return,
                    },
                    other => other.clone(),
                };
                s.bind_exact(v.clone(), a);
            }
            Ty::Array(pe) => {
                if let Ty::Array(ae) = a {
                    self.unify(pe, ae, vars, s, depth + 1);
                }
            }
            Ty::Class(pc) if !pc.args.is_empty() => {
                let Some(ac) = self.class_of(a) else { return };
                let Some(sup) = self
                    .types
                    .supertypes(&ac)
                    .into_iter()
                    .find(|(c, _)| c.name == pc.name)
                    .map(|(c, _)| c)
                else {
                    return;
                };
                if sup.args.len() != pc.args.len() {
                    return;
                }
                for (x, y) in pc.args.iter().zip(sup.args.iter()) {
                    if let (Some(xt), Some(yt)) = (arg_inner(x), arg_inner(y)) {
                        self.unify(xt, yt, vars, s, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    /// The type a lambda's body gives.
    fn lambda_result(&self, l: &Lambda, depth: usize) -> Option<Ty> {
        let at = l.scope.0 + 1;
        let body = match &l.body {
            Some(b) => Some(b),
            None => l.returns.first(),
        }?;
        match self.expr(body, at, depth + 1)? {
            Val::Value(Ty::Prim(Prim::Void)) => None,
            Val::Value(t) => Some(t),
            _ => None,
        }
    }

    /// The result type of the method a method reference names, when all its candidates
    /// agree. `first_param`: the first parameter type of the function it is passed as,
    /// which a reference on a type (`Optional::get`) takes its receiver from (the instance
    /// it is applied to) when it names that type. A result that still holds a type variable
    /// of the receiver's type (a raw one) is not known.
    fn method_ref_result(&self, byte: usize, first_param: Option<&Ty>, depth: usize) -> Option<Ty> {
        let site = self
            .method
            .calls
            .iter()
            .find(|c| c.kind == CallKind::MethodRef && c.byte == byte)?;
        let recv = self.expr(&site.receiver, site.byte, depth + 1)?;
        let constructor = site.name == "<init>" || site.name == "new";
        let c = match &recv {
            Val::Value(t) => self.class_of(t)?,
            Val::Type(c) if constructor => c.clone(),
            Val::Type(c) => match first_param.and_then(|p| self.class_of(p)) {
                Some(applied) if c.args.is_empty() && self.subtype(&applied.name, &c.name) == Fit::Strict => {
                    applied
                }
                _ => c.clone(),
            },
            Val::Null | Val::OneOf(_) => return None,
        };
        if constructor {
            return Some(Ty::Class(c));
        }
        let found = self.types.find_methods(&c, &site.name);
        let first = found.first()?;
        let ret = finish(&first.ret, &first.method.type_params);
        found
            .iter()
            .all(|f| finish(&f.ret, &f.method.type_params) == ret)
            .then_some(ret)
            .filter(|t| *t != Ty::Prim(Prim::Void) && !mentions_any_var(t))
    }

    /// The type of parameter `pos` of the lambda starting at `start`, from the
    /// functional interface its place gives it.
    fn lambda_param(&self, start: usize, pos: usize, depth: usize) -> Option<Ty> {
        if let Some(t) = self.lambda_memo.borrow().get(&(start, pos)) {
            return t.clone();
        }
        if self.typing.borrow().contains(&start) || depth > MAX_DEPTH {
            return None;
        }
        self.typing.borrow_mut().push(start);
        let t = self.lambda_param_uncached(start, pos, depth);
        self.typing.borrow_mut().retain(|s| *s != start);
        self.lambda_memo.borrow_mut().insert((start, pos), t.clone());
        t
    }

    fn lambda_param_uncached(&self, start: usize, pos: usize, depth: usize) -> Option<Ty> {
        // A lambda whose place declares its type (`Function<A, B> f = x -> …`).
        for (written, tree) in &self.method.typed_values {
            if lambda_start(tree) == Some(start) {
                let Ty::Class(c) = self.written(written)? else {
                    return None;
                };
                let (params, _) = self.sam(&c)?;
                return params.get(pos).cloned().filter(|t| !mentions_any_var(t));
            }
        }
        // A lambda passed as an argument.
        for cs in &self.method.calls {
            let Some(i) = cs.arg_exprs.iter().position(|a| lambda_start(a) == Some(start)) else {
                continue;
            };
            let choice = self.call_with(cs, depth + 1, false)?;
            let args: Vec<Arg> = (0..cs.arg_count).map(|k| self.arg(cs, k, depth + 1)).collect();
            let mut seen: Option<Ty> = None;
            for m in &choice.found {
                let mut s = self.infer(m, &args, cs, depth + 1, false);
                if !m.method.type_params.is_empty() {
                    // `max(Comparator.comparing(x -> …))`: the type the call's place
                    // expects binds what its arguments leave open.
                    if let Some(target) = self.target_of(cs, depth + 1) {
                        self.unify(&m.ret, &target, &m.method.type_params, &mut s, 0);
                    }
                }
                let p = if m.method.is_varargs() && i + 1 >= m.params.len() {
                    match m.params.last()? {
                        Ty::Array(e) => (**e).clone(),
                        other => other.clone(),
                    }
                } else {
                    m.params.get(i)?.clone()
                };
                let Ty::Class(pc) = subst(&p, &s) else { return None };
                let (params, _) = self.sam(&pc)?;
                // A parameter that is the method's own variable, unbound, is unknown; one
                // that only mentions it is of its class, the variable at its bound, as a
                // call's result is (`of(Consumer<Members<T>>)`: a `Members`).
                let t = params.get(pos)?;
                if matches!(t, Ty::Var(v) if m.method.type_params.iter().any(|tp| tp.name == *v)) {
                    return None;
                }
                let t = finish(t, &m.method.type_params);
                match &seen {
                    Some(prev) if *prev != t => return None,
                    _ => seen = Some(t),
                }
            }
            return seen;
        }
        None
    }
}

impl<'a> Typer<'a> {
    /// The methods a method reference may name, chosen by the function type its place
    /// expects (`values.forEach(this::value)` takes the `value(String)` of a
    /// `List<String>`).
    pub(crate) fn method_ref(&self, site: &CallSite, depth: usize) -> Option<Vec<FoundMethod<'a>>> {
        let is_it = |r: &Receiver| matches!(r, Receiver::MethodRef(b) if *b == site.byte);
        let mut target: Option<Ty> = None;
        for (written, tree) in &self.method.typed_values {
            if is_it(tree) {
                target = self.written(written);
            }
        }
        if target.is_none() {
            let outer = self.method.calls.iter().find(|o| o.arg_exprs.iter().any(is_it))?;
            let j = outer.arg_exprs.iter().position(is_it)?;
            let choice = self.call_with(outer, depth + 1, false)?;
            let [m] = choice.found.as_slice() else { return None };
            let args: Vec<Arg> = (0..outer.arg_count)
                .map(|k| self.arg(outer, k, depth + 1))
                .collect();
            let s = self.infer(m, &args, outer, depth + 1, false);
            let p = if m.method.is_varargs() && j + 1 >= m.params.len() {
                match m.params.last()? {
                    Ty::Array(e) => (**e).clone(),
                    other => other.clone(),
                }
            } else {
                m.params.get(j)?.clone()
            };
            target = Some(subst(&p, &s));
        }
        let Some(Ty::Class(fi)) = target else { return None };
        let (params, _) = self.sam(&fi)?;
        if params.iter().any(mentions_any_var) {
            return None;
        }
        let recv = self.expr(&site.receiver, site.byte, depth + 1)?;
        let name = if site.name == "new" {
            "<init>"
        } else {
            site.name.as_str()
        };
        let (c, as_type) = match recv {
            Val::Value(t) => (self.class_of(&t)?, false),
            Val::Type(c) => (c, true),
            Val::Null | Val::OneOf(_) => return None,
        };
        let cands = self.types.find_methods(&c, name);
        let fits = |m: &FoundMethod<'_>, args: &[Ty]| {
            m.params.len() == args.len()
                && args
                    .iter()
                    .zip(&m.params)
                    .all(|(a, p)| matches!(self.fit_ty(a, p, m), Fit::Strict | Fit::Loose))
        };
        let fitting: Vec<&FoundMethod<'a>> = cands
            .iter()
            .filter(|m| {
                if !as_type || name == "<init>" || m.method.is_static() {
                    fits(m, &params)
                } else {
                    !params.is_empty() && fits(m, &params[1..])
                }
            })
            .collect();
        Some(self.most_specific(fitting).into_iter().cloned().collect())
    }

    /// The type the place of call `cs` expects: the parameter of the call it is an
    /// argument of, or the declared type of the variable or method result it gives.
    fn target_of(&self, cs: &CallSite, depth: usize) -> Option<Ty> {
        if depth > MAX_DEPTH {
            return None;
        }
        let is_it = |r: &Receiver| matches!(r, Receiver::Call(x) if x.byte == cs.byte && x.name == cs.name && x.end == cs.end);
        for (written, tree) in &self.method.typed_values {
            if is_it(tree) {
                return self.written(written);
            }
        }
        for outer in &self.method.calls {
            let Some(j) = outer.arg_exprs.iter().position(is_it) else {
                continue;
            };
            let choice = self.call_with(outer, depth + 1, false)?;
            let [m] = choice.found.as_slice() else { return None };
            let args: Vec<Arg> = (0..outer.arg_count)
                .map(|k| self.arg(outer, k, depth + 1))
                .collect();
            let s = self.infer(m, &args, outer, depth + 1, false);
            let p = if m.method.is_varargs() && j + 1 >= m.params.len() {
                match m.params.last()? {
                    Ty::Array(e) => (**e).clone(),
                    other => other.clone(),
                }
            } else {
                m.params.get(j)?.clone()
            };
            let p = subst(&p, &s);
            return (!mentions(&p, &m.method.type_params)).then_some(p);
        }
        None
    }
}

/// An argument as overload choice sees it.
enum Arg {
    Value(Ty),
    Null,
    /// A lambda with this many parameters.
    Lambda(usize),
    /// A method reference (or a choice of functions).
    Function,
    Unknown,
}

fn is_array_arg(a: &Arg) -> bool {
    matches!(a, Arg::Value(Ty::Array(_)) | Arg::Null)
}

fn is_function(r: &Receiver) -> bool {
    matches!(r, Receiver::Lambda(_) | Receiver::MethodRef(_))
}

fn lambda_start(r: &Receiver) -> Option<usize> {
    match r {
        Receiver::Lambda(l) => Some(l.scope.0),
        Receiver::Cast(_, inner) => lambda_start(inner),
        _ => None,
    }
}

/// The type an argument position holds (`? extends X` and `X` give `X`).
fn arg_ty(a: &TyArg) -> Option<Ty> {
    match a {
        TyArg::Exact(t) | TyArg::Extends(t) => Some(t.clone()),
        TyArg::Super(_) | TyArg::Wildcard => Some(Ty::object()),
    }
}

fn arg_inner(a: &TyArg) -> Option<&Ty> {
    match a {
        TyArg::Exact(t) | TyArg::Extends(t) | TyArg::Super(t) => Some(t),
        TyArg::Wildcard => None,
    }
}

/// Whether `t` mentions one of the type variables `vars`.
fn mentions(t: &Ty, vars: &[TypeParam]) -> bool {
    match t {
        Ty::Var(v) => vars.iter().any(|p| p.name == *v),
        Ty::Array(e) => mentions(e, vars),
        Ty::Class(c) => c
            .args
            .iter()
            .any(|a| arg_inner(a).is_some_and(|x| mentions(x, vars))),
        Ty::Prim(_) => false,
    }
}

fn mentions_any_var(t: &Ty) -> bool {
    match t {
        Ty::Var(_) => true,
        Ty::Array(e) => mentions_any_var(e),
        Ty::Class(c) => c.args.iter().any(|a| arg_inner(a).is_some_and(mentions_any_var)),
        Ty::Prim(_) => false,
    }
}

/// A parameter type of `c` with `c`'s own type variable at its first bound, kept as written
/// even when it mentions the variable: the type a more-specific test passes for it
/// (JLS §15.12.2.5). Unlike [`finish`], never widened to `Object`, which would make an
/// overload look less specific than it may be.
fn at_own_bound(p: &Ty, c: &FoundMethod<'_>) -> Ty {
    match p {
        Ty::Var(v) => match c.method.type_params.iter().find(|tp| tp.name == *v) {
            Some(tp) => tp.bounds.first().cloned().unwrap_or_else(Ty::object),
            None => p.clone(),
        },
        _ => p.clone(),
    }
}

/// A result type with the method's unbound type variables replaced by their bounds (what
/// `javac` infers with no constraint).
fn finish(t: &Ty, vars: &[TypeParam]) -> Ty {
    if vars.is_empty() || !mentions(t, vars) {
        return t.clone();
    }
    let mut s = Subst::empty();
    for p in vars {
        let bound = match p.bounds.first() {
            Some(b) if !mentions(b, vars) => b.clone(),
            _ => Ty::object(),
        };
        s.bind_exact(p.name.clone(), bound);
    }
    subst(t, &s)
}

fn unboxed(t: &Ty) -> Option<Prim> {
    match t {
        Ty::Prim(p) => Some(*p),
        Ty::Class(c) => Prim::unboxed(&c.name),
        _ => None,
    }
}

/// Binary numeric promotion (JLS §5.6.2).
fn promote(a: Prim, b: Prim) -> Prim {
    use Prim::*;
    if a == Double || b == Double {
        Double
    } else if a == Float || b == Float {
        Float
    } else if a == Long || b == Long {
        Long
    } else if a == Boolean && b == Boolean {
        Boolean
    } else {
        Int
    }
}

/// A receiver that is only names (`a.b.C`), as dotted text.
fn dotted(r: &Receiver) -> Option<String> {
    match r {
        Receiver::Name(n) => Some(n.clone()),
        Receiver::Field(inner, f) => Some(format!("{}.{f}", dotted(inner)?)),
        _ => None,
    }
}
