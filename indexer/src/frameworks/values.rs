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
    pub(crate) types: HashMap<&'a str, &'a TypeDecl>,
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
        self.types.get(fqn).copied()
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
            if let Some(local) = self.local_value(name) {
                return match local.and_then(|(e, at)| value_of(&e, &at, depth + 1)) {
                    Some(v) => v,
                    None => Lookup::Var(name.clone()),
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
}

/// The text of an annotation's `value` as the one value evaluator fixes it: array
/// elements joined by a space.
pub(crate) fn annotation_text(
    values: &Values<'_>,
    file: &CodeFile,
    t: &TypeDecl,
    a: &Annotation,
) -> Option<String> {
    let exprs = a.exprs.iter().find(|(k, _)| k == "value").map(|(_, v)| v)?;
    if exprs.is_empty() {
        return None;
    }
    let at = At::in_type(values, &file.path, t);
    let parts: Option<Vec<String>> = exprs.iter().map(|e| eval_fixed(e, &at)).collect();
    Some(parts?.join(" "))
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
    /// Something the source does not tell.
    Unknown,
}

/// Where [`eval`] looks names up: the caller knows locals, fields, constants and config.
pub(crate) trait Scope {
    /// The value of a simple name (`sku`, `BASE_URL`) or a qualified one (`Type.CONST`,
    /// `this.baseUrl`); `depth` is passed on to nested evaluations.
    fn lookup(&self, e: &Expr, depth: usize) -> Lookup;
}

/// The text `e` evaluates to when the source fixes all of it — no run-time part: what a
/// SQL text, a config key or a table name must be.
pub(crate) fn eval_fixed(e: &Expr, scope: &dyn Scope) -> Option<String> {
    match piece(e, scope, 0, Mode::Fixed)? {
        Piece::Text(s) => Some(s),
        Piece::Var(_) => None,
    }
}

/// What `e` stands for when a name is bound to it: a fixed value, a template, or `None`.
fn value_of(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<Lookup> {
    if let Some(v) = piece(e, scope, depth, Mode::Fixed).and_then(|p| match p {
        Piece::Text(s) => Some(s),
        Piece::Var(_) => None,
    }) {
        return Some(Lookup::Value(v));
    }
    eval(e, scope, depth).map(Lookup::Template)
}

/// The template `e` evaluates to, or `None` when the source does not tell it.
pub(crate) fn eval(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<String> {
    match piece(e, scope, depth, Mode::Template)? {
        Piece::Text(s) => Some(s),
        Piece::Var(name) => Some(format!("{{{name}}}")),
    }
}

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

fn piece(e: &Expr, scope: &dyn Scope, depth: usize, mode: Mode) -> Option<Piece> {
    if depth > MAX_DEPTH {
        return None;
    }
    match e {
        Expr::Str(s) => Some(Piece::Text(s.clone())),
        Expr::Name(_) | Expr::Field(..) => match scope.lookup(e, depth + 1) {
            Lookup::Value(v) => Some(Piece::Text(v)),
            Lookup::Template(_) if mode == Mode::Fixed => None,
            Lookup::Template(v) => Some(Piece::Text(v)),
            Lookup::Var(_) if mode == Mode::Fixed => None,
            Lookup::Var(n) => Some(Piece::Var(n)),
            Lookup::Unknown => None,
        },
        Expr::Concat(parts) => {
            let mut out = String::new();
            for p in parts {
                out.push_str(&piece(p, scope, depth + 1, mode)?.into_template());
            }
            Some(Piece::Text(out))
        }
        Expr::Call { recv, name, args } => {
            let recv = recv.as_deref();
            let is_string_type = matches!(recv, Some(Expr::Name(n)) if n == "String");
            match (name.as_str(), args.len()) {
                ("format", n) if is_string_type && n >= 1 => {
                    format(&args[0], &args[1..], scope, depth, mode).map(Piece::Text)
                }
                ("formatted", _) => {
                    let fmt = recv?;
                    format(fmt, args, scope, depth, mode).map(Piece::Text)
                }
                ("valueOf", 1) if is_string_type => piece(&args[0], scope, depth + 1, mode),
                ("toString", 0) | ("trim", 0) | ("strip", 0) => piece(recv?, scope, depth + 1, mode),
                ("concat", 1) => {
                    let a = piece(recv?, scope, depth + 1, mode)?.into_template();
                    let b = piece(&args[0], scope, depth + 1, mode)?.into_template();
                    Some(Piece::Text(a + &b))
                }
                // A getter or accessor of some object: a value known at run time.
                _ => var_name(e)
                    .filter(|_| args.is_empty() && recv.is_some() && mode == Mode::Template)
                    .map(Piece::Var),
            }
        }
        Expr::New { .. } | Expr::Lambda(_) | Expr::This | Expr::Other => None,
    }
}

/// `String.format(fmt, args…)`: each `%s`/`%d` takes the next argument; `%%` is `%`.
fn format(fmt: &Expr, args: &[Expr], scope: &dyn Scope, depth: usize, mode: Mode) -> Option<String> {
    let fmt = piece(fmt, scope, depth + 1, mode)?.into_template();
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // Flags, width and precision, then the conversion.
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || matches!(d, '-' | '.' | '+' | '0' | ',' | '#' | ' ') {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        match chars.next()? {
            '%' => out.push('%'),
            'n' => out.push('\n'),
            's' | 'S' | 'd' | 'x' | 'X' | 'f' | 'b' | 'c' => {
                let arg = next.next()?;
                out.push_str(&piece(arg, scope, depth + 1, mode)?.into_template());
            }
            _ => return None,
        }
    }
    Some(out)
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
