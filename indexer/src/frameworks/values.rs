//! The one value evaluator: what string an expression makes — a URL, a topic name, a SQL
//! text — as far as the source fixes it.
//!
//! [`eval`] folds an [`Expr`] into a template such as
//! `http://inventory-service/api/inventory/{sku}`: names are looked up through a [`Scope`],
//! values only known at run time become `{name}` placeholders named after their variable,
//! and anything the source does not tell makes the whole value unknown (`None`) — never a
//! guess. Every recogniser that needs a string value asks this module.
//!
//! [`At`] is the scope of the product's code: a name is looked up as the compiler would:
//! a local of the method (its initializer, when it is assigned nowhere else), a parameter
//! (bound with `@Value("${…}")` or a run-time value), a field of the type or an enclosing
//! one (its initializer, its `@Value` binding, or the one constructor assignment that sets
//! it), a static import, a Kotlin top-level property of the file's package or of an
//! imported one, or `Type.CONST` of any type of the product. Config placeholders
//! resolve through the module's configuration, defaults honoured; one that stays
//! unresolved makes the value unknown.

use std::collections::HashMap;

use crate::facts::{Annotation, CodeFile, Expr, MethodDecl, TypeDecl};
use crate::resolve::SymbolTable;

/// Depth beyond which lookups give up (constants defined through each other in a cycle).
const MAX_DEPTH: usize = 24;

/// The product's Java facts and configuration, for evaluating names.
pub(crate) struct Values<'a> {
    pub(crate) types: &'a HashMap<&'a str, &'a TypeDecl>,
    /// One module's own copies of names other modules declare too, above `types`.
    pub(crate) own: HashMap<&'a str, &'a TypeDecl>,
    pub(crate) table: &'a SymbolTable,
    pub(crate) resolve: &'a (dyn Fn(&str, &str) -> String + Sync),
}

/// Where an expression is written: a file, a type, and maybe a method and a position.
#[derive(Clone, Copy)]
pub(crate) struct At<'a> {
    pub(crate) values: &'a Values<'a>,
    pub(crate) file: &'a str,
    pub(crate) ty: &'a TypeDecl,
    pub(crate) method: Option<&'a MethodDecl>,
    /// Byte offset of the use, for the locals in scope; `None` for "anywhere in the method".
    pub(crate) byte: Option<usize>,
}

/// The `${…}` text of a `@Value` annotation among `annotations`.
pub(crate) fn value_binding(annotations: &[Annotation]) -> Option<String> {
    annotations
        .iter()
        .find(|a| super::annotations::short(&a.name) == "Value")
        .and_then(|a| a.args.iter().find(|(k, _)| k == "value"))
        .and_then(|(_, v)| v.first().cloned())
}

impl<'a> Values<'a> {
    pub(crate) fn type_decl(&self, fqn: &str) -> Option<&'a TypeDecl> {
        self.own.get(fqn).or_else(|| self.types.get(fqn)).copied()
    }

    /// The type `t` and its enclosing types, innermost first, then its internal superclasses.
    fn lexical_types(&self, t: &'a TypeDecl) -> Vec<&'a TypeDecl> {
        let mut out = Vec::new();
        let mut cur = Some(t);
        while let Some(c) = cur {
            if out.len() > 16 {
                break;
            }
            out.push(c);
            let sup = self
                .table
                .get(&c.fqn)
                .and_then(|i| i.superclass.as_deref())
                .and_then(|s| self.type_decl(s));
            if let Some(s) = sup.filter(|s| !out.iter().any(|o| o.fqn == s.fqn)) {
                out.push(s);
            }
            cur = c.outer.as_deref().and_then(|o| self.type_decl(o));
        }
        out
    }

    /// A config value with its placeholders resolved, or unknown when one stays open.
    fn config(&self, file: &str, written: &str) -> Lookup {
        let resolved = (self.resolve)(file, written);
        if resolved.contains("${") {
            Lookup::Unknown
        } else {
            Lookup::Value(resolved)
        }
    }
}

impl<'a> At<'a> {
    /// Anywhere in type `ty` outside a method body (annotations, field initializers).
    pub(crate) fn in_type(values: &'a Values<'a>, file: &'a str, ty: &'a TypeDecl) -> Self {
        At {
            values,
            file,
            ty,
            method: None,
            byte: None,
        }
    }

    pub(crate) fn in_method(
        values: &'a Values<'a>,
        file: &'a str,
        ty: &'a TypeDecl,
        m: &'a MethodDecl,
        byte: usize,
    ) -> Self {
        At {
            values,
            file,
            ty,
            method: Some(m),
            byte: Some(byte),
        }
    }

    fn in_scope(&self, scope: (usize, usize)) -> bool {
        self.byte.is_none_or(|b| scope.0 <= b && b < scope.1)
    }

    /// The declared type of a local, parameter or field named `name` (as written).
    pub(crate) fn declared_type(&self, name: &str) -> Option<String> {
        if let Some(m) = self.method {
            let local = m
                .locals
                .iter()
                .filter(|l| l.name == name && self.in_scope(l.scope))
                .max_by_key(|l| l.scope.0);
            if let Some(l) = local {
                return l.ty.clone();
            }
            if let Some(p) = m.params.iter().find(|p| p.name == name) {
                return Some(p.ty.clone());
            }
        }
        self.field_type(name)
    }

    /// The declared type of field `name` of this type or an enclosing or super one.
    pub(crate) fn field_type(&self, name: &str) -> Option<String> {
        self.values
            .lexical_types(self.ty)
            .into_iter()
            .find_map(|t| t.fields.iter().find(|f| f.name == name))
            .map(|f| f.ty.clone())
    }

    /// What field `name` holds: its value expression and where that is written.
    pub(crate) fn field_value(&self, name: &str) -> Option<(Expr, At<'a>)> {
        for t in self.values.lexical_types(self.ty) {
            if !t.fields.iter().any(|f| f.name == name) {
                continue;
            }
            let at = At {
                values: self.values,
                file: self.file,
                ty: t,
                method: None,
                byte: None,
            };
            if let Some((_, e)) = t.field_inits.iter().find(|(n, _)| n == name) {
                return Some((e.clone(), at));
            }
            // Set once, in a constructor, and nowhere else.
            let mut sets = t
                .methods
                .iter()
                .flat_map(|m| m.assignments.iter().map(move |a| (m, a)))
                .filter(|(m, (n, _))| n == name && !m.locals.iter().any(|l| l.name == *n));
            let (m, (_, e)) = sets.next()?;
            if sets.next().is_some() || m.name != "<init>" {
                return None;
            }
            return Some((
                e.clone(),
                At {
                    method: Some(m),
                    ..at
                },
            ));
        }
        None
    }

    /// What local `name` was initialised with, when it is assigned nowhere else.
    pub(crate) fn local_value(&self, name: &str) -> Option<Option<(Expr, At<'a>)>> {
        let m = self.method?;
        let declared = m
            .locals
            .iter()
            .filter(|l| l.name == name && self.in_scope(l.scope))
            .max_by_key(|l| l.scope.0)?;
        let init = m
            .local_inits
            .iter()
            .find(|(n, scope, _)| n == name && *scope == declared.scope)
            .map(|(_, _, e)| e.clone());
        let reassigned = m.assignments.iter().any(|(n, _)| n == name);
        Some(match init {
            Some(e) if !reassigned => Some((
                e,
                At {
                    byte: Some(declared.scope.0),
                    ..*self
                },
            )),
            _ => None,
        })
    }

    /// Every value local `name` may hold where it is used: its initializer and each
    /// assignment of the method (both branches of an `if`). `Some(None)` when it is a
    /// run-time value (never set from an expression, or set from itself: `url = url + …`,
    /// whose order the facts do not keep); `None` when no such local is in scope.
    pub(crate) fn local_candidates(&self, name: &str) -> Option<Option<Vec<(Expr, At<'a>)>>> {
        let m = self.method?;
        let declared = m
            .locals
            .iter()
            .filter(|l| l.name == name && self.in_scope(l.scope))
            .max_by_key(|l| l.scope.0)?;
        let at = At {
            byte: Some(declared.scope.0),
            ..*self
        };
        let mut values: Vec<(Expr, At<'a>)> = m
            .local_inits
            .iter()
            .filter(|(n, scope, _)| n == name && *scope == declared.scope)
            .map(|(_, _, e)| (e.clone(), at))
            .collect();
        for (n, e) in &m.assignments {
            if n != name {
                continue;
            }
            if mentions(e, name) {
                return Some(None);
            }
            values.push((e.clone(), At { byte: None, ..at }));
        }
        Some((!values.is_empty()).then_some(values))
    }

    fn field_lookup(&self, t: &'a TypeDecl, name: &str, depth: usize) -> Option<Lookup> {
        let at = At {
            values: self.values,
            file: self.file,
            ty: t,
            method: None,
            byte: None,
        };
        for owner in self.values.lexical_types(t) {
            let Some(f) = owner.fields.iter().find(|f| f.name == name) else {
                continue;
            };
            if let Some(binding) = value_binding(&f.annotations) {
                return Some(self.values.config(self.file, &binding));
            }
            // Bound through the constructor parameter that sets it.
            let owner_at = At { ty: owner, ..at };
            if let Some((e, where_)) = owner_at.field_value(name) {
                return Some(match value_of(&e, &where_, depth + 1) {
                    Some(v) => v,
                    None => Lookup::Var(name.to_string()),
                });
            }
            return Some(Lookup::Var(name.to_string()));
        }
        None
    }

    /// `Owner.NAME`: a static field of a type the product declares.
    fn qualified(&self, owner: &Expr, name: &str, depth: usize) -> Lookup {
        let Some(written) = dotted(owner) else {
            return Lookup::Unknown;
        };
        // `order.id`: a field of a run-time object.
        if !written.contains('.') && self.declared_type(&written).is_some() {
            return Lookup::Var(name.to_string());
        }
        let Some(t) = self
            .values
            .table
            .resolve_type(&written, &self.ty.fqn)
            .and_then(|r| self.values.type_decl(&r.fqn))
        else {
            return Lookup::Unknown;
        };
        self.field_lookup(t, name, depth).unwrap_or(Lookup::Unknown)
    }
}

/// `a.b.C` written as a chain of names.
fn dotted(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(o, n) => Some(format!("{}.{n}", dotted(o)?)),
        _ => None,
    }
}

impl Scope for At<'_> {
    fn lookup(&self, e: &Expr, depth: usize) -> Lookup {
        if depth > MAX_DEPTH {
            return Lookup::Unknown;
        }
        let name = match e {
            Expr::Name(n) => n,
            Expr::Field(owner, n) if **owner == Expr::This => {
                return self.field_lookup(self.ty, n, depth).unwrap_or(Lookup::Unknown);
            }
            Expr::Field(owner, n) => return self.qualified(owner, n, depth),
            _ => return Lookup::Unknown,
        };
        if let Some(m) = self.method {
            if let Some(local) = self.local_candidates(name) {
                let Some(values) = local else {
                    return Lookup::Var(name.clone());
                };
                let mut found: Vec<Lookup> = values
                    .iter()
                    .map(|(e, at)| value_of(e, at, depth + 1).unwrap_or_else(|| Lookup::Var(name.clone())))
                    .collect();
                return match found.len() {
                    1 => found.pop().unwrap_or(Lookup::Unknown),
                    _ => Lookup::Candidates(found),
                };
            }
            if let Some(p) = m.params.iter().find(|p| p.name == *name) {
                return match value_binding(&p.annotations) {
                    Some(binding) => self.values.config(self.file, &binding),
                    None => Lookup::Var(name.clone()),
                };
            }
        }
        if let Some(found) = self.field_lookup(self.ty, name, depth) {
            return found;
        }
        // A static import of a constant.
        let ctx = self.values.table.get(&self.ty.fqn).map(|i| i.ctx.clone());
        if let Some(ctx) = ctx {
            let owners = ctx
                .static_single
                .get(name.as_str())
                .cloned()
                .into_iter()
                .chain(ctx.static_wildcards.iter().cloned());
            for owner in owners {
                if let Some(t) = self.values.type_decl(&owner) {
                    if let Some(found) = self.field_lookup(t, name, depth) {
                        return found;
                    }
                }
            }
            // A Kotlin top-level property: of the file's package, of an imported one.
            let packages = std::iter::once(&ctx.package)
                .chain(ctx.static_single.get(name.as_str()))
                .chain(ctx.wildcards.iter());
            for package in packages {
                for facade in self.values.table.facades(package) {
                    if let Some(t) = self.values.type_decl(facade) {
                        if let Some(found) = self.field_lookup(t, name, depth) {
                            return found;
                        }
                    }
                }
            }
        }
        Lookup::Unknown
    }

    fn call(&self, recv: Option<&Expr>, name: &str, args: &[Expr], depth: usize) -> Lookup {
        if depth > MAX_HELPER_DEPTH {
            return Lookup::Unknown;
        }
        let owners = match recv {
            None | Some(Expr::This) => self.values.lexical_types(self.ty),
            Some(Expr::Name(t)) => match self
                .values
                .table
                .resolve_type(t, &self.ty.fqn)
                .and_then(|r| self.values.type_decl(&r.fqn))
            {
                Some(decl) => vec![decl],
                None => return Lookup::Unknown,
            },
            _ => return Lookup::Unknown,
        };
        for t in owners {
            let Some(m) = t
                .methods
                .iter()
                .find(|m| m.name == name && m.params.len() == args.len() && !m.returns.is_empty())
            else {
                continue;
            };
            let params: Vec<(String, Lookup)> = m
                .params
                .iter()
                .zip(args)
                .map(|(p, a)| {
                    (
                        p.name.clone(),
                        value_of(a, self, depth + 1).unwrap_or_else(|| Lookup::Var(p.name.clone())),
                    )
                })
                .collect();
            let inside = Bound {
                at: At {
                    values: self.values,
                    file: self.file,
                    ty: t,
                    method: Some(m),
                    byte: None,
                },
                params: &params,
            };
            let mut found = Vec::new();
            for r in &m.returns {
                match value_of(r, &inside, depth + 1) {
                    Some(v) => found.push(v),
                    None => return Lookup::Unknown,
                }
            }
            return match found.len() {
                1 => found.pop().unwrap_or(Lookup::Unknown),
                _ => Lookup::Candidates(found),
            };
        }
        Lookup::Unknown
    }
}

/// How deep helper methods are followed into each other.
const MAX_HELPER_DEPTH: usize = 12;

/// A helper method's body with its parameters bound to the caller's arguments.
struct Bound<'a, 'p> {
    at: At<'a>,
    params: &'p [(String, Lookup)],
}

impl Scope for Bound<'_, '_> {
    fn lookup(&self, e: &Expr, depth: usize) -> Lookup {
        if let Expr::Name(n) = e {
            let local = self
                .at
                .method
                .is_some_and(|m| m.locals.iter().any(|l| l.name == *n));
            if let Some((_, v)) = self.params.iter().find(|(p, _)| p == n).filter(|_| !local) {
                return v.clone();
            }
        }
        self.at.lookup(e, depth)
    }

    fn call(&self, recv: Option<&Expr>, name: &str, args: &[Expr], depth: usize) -> Lookup {
        self.at.call(recv, name, args, depth)
    }
}

/// Whether `e` names `name` anywhere (a local set from itself).
fn mentions(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Name(n) => n == name,
        Expr::Field(o, _) => mentions(o, name),
        Expr::Concat(parts) | Expr::Choice(parts) => parts.iter().any(|p| mentions(p, name)),
        Expr::Call { recv, args, .. } => {
            recv.as_deref().is_some_and(|r| mentions(r, name)) || args.iter().any(|a| mentions(a, name))
        }
        Expr::New { args, .. } => args.iter().any(|a| mentions(a, name)),
        Expr::Lambda(b) => mentions(b, name),
        Expr::Str(_) | Expr::This | Expr::Other => false,
    }
}

/// The text of an annotation's `value` as the one value evaluator fixes it: array
/// elements joined by a space.
pub(crate) fn annotation_text(
    values: &Values<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    a: &Annotation,
) -> Option<String> {
    let parts = annotation_values(values, file, t, a, "value")?;
    Some(parts.join(" "))
}

/// Each element of attribute `key` of an annotation on type `t` (or its members) as the
/// source fixes it — literals, constants of any type of the product (`ServiceNames.BILLING`,
/// an interface's field in another module), concatenations; `None` when the attribute is
/// absent, empty, or one element is not fixed. Placeholders (`${…}`) are left as written.
pub(crate) fn annotation_values(
    values: &Values<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    a: &Annotation,
    key: &str,
) -> Option<Vec<String>> {
    let exprs = a.exprs.iter().find(|(k, _)| k == key).map(|(_, v)| v)?;
    if exprs.is_empty() {
        return None;
    }
    let at = At::in_type(values, &file.path, t);
    exprs.iter().map(|e| eval_fixed(e, &at)).collect()
}

/// What a name stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// A value the source fixes (a constant, a config value).
    Value(String),
    /// A value the source fixes only in part: the template it evaluates to, run-time
    /// parts written `{name}`.
    Template(String),
    /// A value known only at run time, named (a parameter, a non-constant local).
    Var(String),
    /// One of several values, each the source's (a local assigned in both branches of an
    /// `if`, a helper with two `return`s): every one is a candidate.
    Candidates(Vec<Lookup>),
    /// Something the source does not tell.
    Unknown,
}

/// Where [`eval`] looks names up: the caller knows locals, fields, constants and config.
pub(crate) trait Scope {
    /// The value of a simple name (`sku`, `BASE_URL`) or a qualified one (`Type.CONST`,
    /// `this.baseUrl`); `depth` is passed on to nested evaluations.
    fn lookup(&self, e: &Expr, depth: usize) -> Lookup;

    /// What a call of a method of the product returns (`baseUrl()`, `Urls.billing(id)`),
    /// when its `return`s say.
    fn call(&self, _recv: Option<&Expr>, _name: &str, _args: &[Expr], _depth: usize) -> Lookup {
        Lookup::Unknown
    }
}

/// At most this many candidate values of one expression; more is "not fixed".
pub(crate) const MAX_CANDIDATES: usize = 8;

/// The text `e` evaluates to when the source fixes all of it — no run-time part: what a
/// SQL text, a config key or a table name must be.
pub(crate) fn eval_fixed(e: &Expr, scope: &dyn Scope) -> Option<String> {
    single(piece(e, scope, 0, Ctx::FIXED))
}

/// What `e` stands for when a name is bound to it: a fixed value, a template, several
/// candidates, or `None`.
fn value_of(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<Lookup> {
    let fixed = piece(e, scope, depth, Ctx::FIXED_ALL);
    if !fixed.is_empty() {
        return Some(lookup_of(fixed, true));
    }
    let templates = piece(e, scope, depth, Ctx::TEMPLATE_ALL);
    (!templates.is_empty()).then(|| lookup_of(templates, false))
}

/// Candidate pieces as one lookup.
fn lookup_of(mut pieces: Vec<Piece>, fixed: bool) -> Lookup {
    let one = |p: Piece| match p {
        Piece::Text(s) if fixed => Lookup::Value(s),
        Piece::Text(s) => Lookup::Template(s),
        Piece::Var(n) => Lookup::Var(n),
    };
    if pieces.len() == 1 {
        return pieces.pop().map(one).unwrap_or(Lookup::Unknown);
    }
    Lookup::Candidates(pieces.into_iter().map(one).collect())
}

/// The template `e` evaluates to, or `None` when the source does not tell it (or tells
/// several candidates: see [`eval_candidates`]).
pub(crate) fn eval(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<String> {
    single(piece(e, scope, depth, Ctx::TEMPLATE))
}

/// Every template `e` may evaluate to — one per branch of an `if` that assigns the local,
/// per `return` of a helper, per side of a `?:` — at most [`MAX_CANDIDATES`]; empty when
/// the source does not tell.
pub(crate) fn eval_candidates(e: &Expr, scope: &dyn Scope) -> Vec<String> {
    piece(e, scope, 0, Ctx::TEMPLATE_ALL)
        .into_iter()
        .map(Piece::into_template)
        .collect()
}

fn single(mut pieces: Vec<Piece>) -> Option<String> {
    if pieces.len() != 1 {
        return None;
    }
    pieces.pop().map(Piece::into_template)
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Var(String),
}

/// Whether run-time values may be parts of the result (as `{name}`), or make it unknown.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Template,
    Fixed,
}

/// How [`piece`] evaluates: its mode, and whether several candidates are kept (else a
/// name with several values is a run-time value).
#[derive(Clone, Copy)]
struct Ctx {
    mode: Mode,
    all: bool,
}

impl Ctx {
    const FIXED: Ctx = Ctx {
        mode: Mode::Fixed,
        all: false,
    };
    const FIXED_ALL: Ctx = Ctx {
        mode: Mode::Fixed,
        all: true,
    };
    const TEMPLATE: Ctx = Ctx {
        mode: Mode::Template,
        all: false,
    };
    const TEMPLATE_ALL: Ctx = Ctx {
        mode: Mode::Template,
        all: true,
    };
}

impl Piece {
    fn into_template(self) -> String {
        match self {
            Piece::Text(s) => s,
            Piece::Var(name) => format!("{{{name}}}"),
        }
    }
}

/// The run-time variable a value would be named after: `sku`, `line.getSku()` → `sku`,
/// `order.id()` → `id`.
fn var_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(_, n) => Some(n.clone()),
        Expr::Call { name, args, .. } if args.is_empty() => {
            let bare = name
                .strip_prefix("get")
                .filter(|r| r.starts_with(char::is_uppercase))
                .map(|r| {
                    let mut c = r.chars();
                    c.next()
                        .map(|f| f.to_lowercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                })
                .unwrap_or_else(|| name.clone());
            // An accessor (`getSku()`, `sku()`), not a conversion or a builder step.
            let verb_like = ["to", "as", "build", "create", "format", "encode", "expand"]
                .iter()
                .any(|p| name.starts_with(p));
            (!bare.is_empty() && !verb_like).then_some(bare)
        }
        _ => None,
    }
}

/// The pieces a lookup stands for in `ctx`; empty when unknown there.
fn from_lookup(l: Lookup, ctx: Ctx) -> Vec<Piece> {
    match l {
        Lookup::Value(v) => vec![Piece::Text(v)],
        Lookup::Template(_) | Lookup::Var(_) if ctx.mode == Mode::Fixed => Vec::new(),
        Lookup::Template(v) => vec![Piece::Text(v)],
        Lookup::Var(n) => vec![Piece::Var(n)],
        Lookup::Unknown => Vec::new(),
        Lookup::Candidates(ls) => {
            let mut out = Vec::new();
            for l in ls {
                let p = from_lookup(l, ctx);
                if p.is_empty() {
                    return Vec::new();
                }
                for x in p {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
            if out.len() > MAX_CANDIDATES {
                return Vec::new();
            }
            out
        }
    }
}

/// Several candidates where one value is asked for: a run-time value named after `e`
/// (templates), or unknown (fixed values).
fn collapse(pieces: Vec<Piece>, e: &Expr, ctx: Ctx) -> Vec<Piece> {
    if ctx.all || pieces.len() <= 1 {
        return pieces;
    }
    match (ctx.mode, var_name(e)) {
        (Mode::Template, Some(n)) => vec![Piece::Var(n)],
        _ => Vec::new(),
    }
}

/// Every concatenation of one candidate of each part, in order; empty when a part is
/// unknown or the candidates would be more than [`MAX_CANDIDATES`].
fn product(parts: Vec<Vec<Piece>>) -> Vec<Piece> {
    let mut acc = vec![String::new()];
    for part in parts {
        if part.is_empty() {
            return Vec::new();
        }
        let mut next = Vec::new();
        for a in &acc {
            for p in &part {
                let joined = format!("{a}{}", p.clone().into_template());
                if !next.contains(&joined) {
                    next.push(joined);
                }
            }
        }
        if next.len() > MAX_CANDIDATES {
            return Vec::new();
        }
        acc = next;
    }
    acc.into_iter().map(Piece::Text).collect()
}

fn piece(e: &Expr, scope: &dyn Scope, depth: usize, ctx: Ctx) -> Vec<Piece> {
    if depth > MAX_DEPTH {
        return Vec::new();
    }
    match e {
        Expr::Str(s) => vec![Piece::Text(s.clone())],
        Expr::Name(_) | Expr::Field(..) => collapse(from_lookup(scope.lookup(e, depth + 1), ctx), e, ctx),
        Expr::Concat(parts) => product(parts.iter().map(|p| piece(p, scope, depth + 1, ctx)).collect()),
        Expr::Choice(sides) => {
            let all = Ctx { all: true, ..ctx };
            let mut out: Vec<Piece> = Vec::new();
            for side in sides {
                let p = piece(side, scope, depth + 1, all);
                if p.is_empty() {
                    return Vec::new();
                }
                for x in p {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
            if out.len() > MAX_CANDIDATES || (!ctx.all && out.len() > 1) {
                return Vec::new();
            }
            out
        }
        Expr::Call { recv, name, args } => {
            if let Some(p) = uri_builder(e, scope, depth, ctx) {
                return p;
            }
            let recv = recv.as_deref();
            let is_string_type = matches!(recv, Some(Expr::Name(n)) if n == "String");
            match (name.as_str(), args.len()) {
                ("format", n) if is_string_type && n >= 1 => format(&args[0], &args[1..], scope, depth, ctx),
                ("formatted", _) => match recv {
                    Some(fmt) => format(fmt, args, scope, depth, ctx),
                    None => Vec::new(),
                },
                ("valueOf", 1) if is_string_type => piece(&args[0], scope, depth + 1, ctx),
                ("toString", 0) | ("trim", 0) | ("strip", 0) => match recv {
                    Some(r) => piece(r, scope, depth + 1, ctx),
                    None => Vec::new(),
                },
                ("concat", 1) => match recv {
                    Some(r) => product(vec![
                        piece(r, scope, depth + 1, ctx),
                        piece(&args[0], scope, depth + 1, ctx),
                    ]),
                    None => Vec::new(),
                },
                _ => {
                    // A method of the product whose `return`s tell the value.
                    let helper = match recv {
                        None | Some(Expr::This) => true,
                        Some(Expr::Name(n)) => n.starts_with(char::is_uppercase),
                        _ => false,
                    };
                    if helper {
                        let found = scope.call(recv, name, args, depth + 1);
                        if found != Lookup::Unknown {
                            return collapse(from_lookup(found, ctx), e, ctx);
                        }
                    }
                    // A getter or accessor of some object: a value known at run time.
                    var_name(e)
                        .filter(|_| args.is_empty() && recv.is_some() && ctx.mode == Mode::Template)
                        .map(Piece::Var)
                        .into_iter()
                        .collect()
                }
            }
        }
        Expr::New { .. } | Expr::Lambda(_) | Expr::This | Expr::Other => Vec::new(),
    }
}

/// Spring's `UriComponentsBuilder` chains: `fromHttpUrl(base)`/`fromUriString(base)`/
/// `fromPath(p)`/`newInstance()`, then `scheme`, `host`, `port`, `path`, `pathSegment`,
/// `replacePath` (query, fragment and encoding steps change no route), ended by
/// `toUriString()`, `build…()`, `toUri()` or `toString()`. `None` when `e` is no such chain.
fn uri_builder(e: &Expr, scope: &dyn Scope, depth: usize, ctx: Ctx) -> Option<Vec<Piece>> {
    const ROOTS: &[&str] = &[
        "fromHttpUrl",
        "fromUriString",
        "fromPath",
        "fromUri",
        "newInstance",
    ];
    const NEUTRAL: &[&str] = &[
        "queryParam",
        "queryParams",
        "queryParamIfPresent",
        "replaceQueryParam",
        "query",
        "replaceQuery",
        "fragment",
        "encode",
        "expand",
        "normalize",
        "uriVariables",
        "userInfo",
        "build",
        "buildAndExpand",
        "toUriString",
        "toUri",
        "toString",
    ];
    // The chain, outermost step first.
    let mut steps: Vec<(&str, &[Expr])> = Vec::new();
    let mut cur = e;
    let root = loop {
        let Expr::Call { recv, name, args } = cur else {
            return None;
        };
        match recv.as_deref() {
            Some(Expr::Name(t)) if t == "UriComponentsBuilder" && ROOTS.contains(&name.as_str()) => {
                break (name.as_str(), args.as_slice());
            }
            Some(r) if steps.len() < 32 => {
                steps.push((name.as_str(), args.as_slice()));
                cur = r;
            }
            _ => return None,
        }
    };
    steps.reverse();
    // Candidates of (base, path) pieces, joined at the end.
    let mut parts: Vec<Vec<Piece>> = Vec::new();
    let arg = |a: &Expr| piece(a, scope, depth + 1, ctx);
    match root {
        ("newInstance", []) => {}
        (_, [a]) => parts.push(arg(a)),
        _ => return Some(Vec::new()),
    }
    let mut scheme: Option<Vec<Piece>> = None;
    let mut host: Option<Vec<Piece>> = None;
    let mut port: Option<Vec<Piece>> = None;
    for (name, args) in steps {
        match (name, args) {
            ("scheme", [a]) => scheme = Some(arg(a)),
            ("host", [a]) => host = Some(arg(a)),
            ("port", [a]) => port = Some(arg(a)),
            ("path", [a]) => {
                parts.push(vec![Piece::Text("\u{0}".into())]);
                parts.push(arg(a));
            }
            ("pathSegment", segs) => {
                for s in segs {
                    parts.push(vec![Piece::Text("/".into())]);
                    parts.push(arg(s));
                }
            }
            ("replacePath", [a]) => {
                parts.truncate(usize::from(root.0 != "newInstance" && root.0 != "fromPath"));
                parts.push(vec![Piece::Text("\u{0}".into())]);
                parts.push(arg(a));
            }
            (n, _) if NEUTRAL.contains(&n) => {}
            _ => return Some(Vec::new()),
        }
    }
    if let Some(h) = host {
        let mut authority = vec![scheme.unwrap_or_else(|| vec![Piece::Text("http".into())])];
        authority.push(vec![Piece::Text("://".into())]);
        authority.push(h);
        if let Some(p) = port {
            authority.push(vec![Piece::Text(":".into())]);
            authority.push(p);
        }
        let mut joined = vec![product(authority)];
        joined.extend(parts);
        parts = joined;
    }
    // `\0` marks a `path(…)` step: one slash between what is before and after it.
    Some(
        product(parts)
            .into_iter()
            .map(|p| match p {
                Piece::Text(t) => Piece::Text(join_path_steps(&t)),
                v => v,
            })
            .collect(),
    )
}

/// Joins the `path(…)` steps a builder appended (`\0` before each) with one slash.
fn join_path_steps(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    for (i, part) in t.split('\u{0}').enumerate() {
        if i == 0 {
            out.push_str(part);
            continue;
        }
        if part.is_empty() {
            continue;
        }
        match (out.ends_with('/'), part.starts_with('/')) {
            (true, true) => out.push_str(&part[1..]),
            (false, false) => {
                out.push('/');
                out.push_str(part);
            }
            _ => out.push_str(part),
        }
    }
    out
}

/// `String.format(fmt, args…)`: each `%s`/`%d` takes the next argument; `%%` is `%`.
fn format(fmt: &Expr, args: &[Expr], scope: &dyn Scope, depth: usize, ctx: Ctx) -> Vec<Piece> {
    let formats = piece(fmt, scope, depth + 1, ctx);
    let mut out = Vec::new();
    for f in formats {
        let f = f.into_template();
        let Some(parts) = format_parts(&f, args, scope, depth, ctx) else {
            return Vec::new();
        };
        for p in product(parts) {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    if out.len() > MAX_CANDIDATES {
        return Vec::new();
    }
    out
}

/// The pieces of one format string filled with its arguments, in order.
fn format_parts(
    fmt: &str,
    args: &[Expr],
    scope: &dyn Scope,
    depth: usize,
    ctx: Ctx,
) -> Option<Vec<Vec<Piece>>> {
    let mut parts: Vec<Vec<Piece>> = Vec::new();
    let mut text = String::new();
    let mut next = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        // Flags, width and precision, then the conversion.
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || matches!(d, '-' | '.' | '+' | '0' | ',' | '#' | ' ') {
                chars.next();
            } else {
                break;
            }
        }
        match chars.next()? {
            '%' => text.push('%'),
            'n' => text.push('\n'),
            's' | 'S' | 'd' | 'x' | 'X' | 'f' | 'b' | 'c' => {
                let arg = next.next()?;
                parts.push(vec![Piece::Text(std::mem::take(&mut text))]);
                parts.push(piece(arg, scope, depth + 1, ctx));
            }
            _ => return None,
        }
    }
    parts.push(vec![Piece::Text(text)]);
    Some(parts)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Names in the map are constants; names starting with a lowercase letter and absent
    /// from the map are run-time variables; others are unknown.
    struct MapScope(HashMap<&'static str, &'static str>);

    impl Scope for MapScope {
        fn lookup(&self, e: &Expr, _depth: usize) -> Lookup {
            let name = match e {
                Expr::Name(n) => n.clone(),
                Expr::Field(owner, n) => match owner.as_ref() {
                    Expr::Name(o) => format!("{o}.{n}"),
                    _ => return Lookup::Unknown,
                },
                _ => return Lookup::Unknown,
            };
            match self.0.get(name.as_str()) {
                Some(v) => Lookup::Value(v.to_string()),
                None if name.starts_with(char::is_lowercase) && !name.contains('.') => Lookup::Var(name),
                None => Lookup::Unknown,
            }
        }
    }

    fn parse_expr(java: &str) -> Expr {
        crate::lang::java::parse_expr(java)
    }

    fn eval_with(java: &str, constants: &[(&'static str, &'static str)]) -> Option<String> {
        let scope = MapScope(constants.iter().copied().collect());
        eval(&parse_expr(java), &scope, 0)
    }

    #[test]
    fn concatenation_names_each_variable() {
        assert_eq!(
            eval_with("BASE + \"/api/x/\" + id + \"/lines\"", &[("BASE", "http://svc")]).as_deref(),
            Some("http://svc/api/x/{id}/lines")
        );
        assert_eq!(
            eval_with("\"/api/items/\" + line.getSku()", &[]).as_deref(),
            Some("/api/items/{sku}")
        );
    }

    #[test]
    fn constants_of_other_types_are_looked_up_qualified() {
        assert_eq!(
            eval_with(
                "Urls.ORDERS + \"/{id}\"",
                &[("Urls.ORDERS", "lb://orders/api/orders")]
            )
            .as_deref(),
            Some("lb://orders/api/orders/{id}")
        );
    }

    #[test]
    fn string_format_fills_placeholders_after_the_arguments() {
        assert_eq!(
            eval_with(
                "String.format(\"%s/api/inventory/%s\", BASE, sku)",
                &[("BASE", "http://inventory-service")]
            )
            .as_deref(),
            Some("http://inventory-service/api/inventory/{sku}")
        );
        assert_eq!(
            eval_with("\"/a/%d/b\".formatted(orderId)", &[]).as_deref(),
            Some("/a/{orderId}/b")
        );
        assert_eq!(
            eval_with("String.format(\"%s/%s\", BASE)", &[]),
            None,
            "too few arguments"
        );
    }

    #[test]
    fn config_values_come_from_the_scope_with_their_defaults() {
        // The scope resolves `@Value` bindings; the evaluator only joins what it says.
        assert_eq!(
            eval_with(
                "baseUrl + \"/v2/quotes\"",
                &[("baseUrl", "https://tax.example.com")]
            )
            .as_deref(),
            Some("https://tax.example.com/v2/quotes")
        );
    }

    #[test]
    fn what_the_source_does_not_tell_is_unknown() {
        assert_eq!(eval_with("UNKNOWN_CONSTANT + \"/x\"", &[]), None);
        assert_eq!(eval_with("flag ? \"/a\" : \"/b\"", &[]), None);
        assert_eq!(eval_with("builder().toUriString()", &[]), None);
        assert_eq!(eval_with("new StringBuilder(\"/x\")", &[]), None);
    }
}
