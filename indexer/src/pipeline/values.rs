//! What a Java name holds and what type it was declared with, where the source says so:
//! the [`Scope`] through which URLs and topic names are evaluated.
//!
//! A name is looked up as the compiler would: a local of the method (its initializer,
//! when it is assigned nowhere else), a parameter (bound with `@Value("${…}")` or a
//! run-time value), a field of the type or an enclosing one (its initializer, its
//! `@Value` binding, or the one constructor assignment that sets it), a static import,
//! or `Type.CONST` of any type of the product. Config placeholders resolve through the
//! module's configuration, defaults honoured; one that stays unresolved makes the value
//! unknown.

use std::collections::HashMap;

use crate::java::{self, eval, Expr, Lookup, MethodDecl, Scope, SymbolTable, TypeDecl};

/// Depth beyond which lookups give up (constants defined through each other in a cycle).
const MAX_DEPTH: usize = 24;

/// The product's Java facts and configuration, for evaluating names.
pub(super) struct Values<'a> {
    pub(super) types: HashMap<&'a str, &'a TypeDecl>,
    pub(super) table: &'a SymbolTable,
    pub(super) resolve: &'a dyn Fn(&str, &str) -> String,
}

/// Where an expression is written: a file, a type, and maybe a method and a position.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    pub(super) values: &'a Values<'a>,
    pub(super) file: &'a str,
    pub(super) ty: &'a TypeDecl,
    pub(super) method: Option<&'a MethodDecl>,
    /// Byte offset of the use, for the locals in scope; `None` for "anywhere in the method".
    pub(super) byte: Option<usize>,
}

/// The `${…}` text of a `@Value` annotation among `annotations`.
pub(super) fn value_binding(annotations: &[java::Annotation]) -> Option<String> {
    annotations
        .iter()
        .find(|a| a.name.rsplit('.').next() == Some("Value"))
        .and_then(|a| a.args.iter().find(|(k, _)| k == "value"))
        .and_then(|(_, v)| v.first().cloned())
}

impl<'a> Values<'a> {
    pub(super) fn type_decl(&self, fqn: &str) -> Option<&'a TypeDecl> {
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
    pub(super) fn in_method(
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
    pub(super) fn declared_type(&self, name: &str) -> Option<String> {
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
    pub(super) fn field_type(&self, name: &str) -> Option<String> {
        self.values
            .lexical_types(self.ty)
            .into_iter()
            .find_map(|t| t.fields.iter().find(|f| f.name == name))
            .map(|f| f.ty.clone())
    }

    /// What field `name` holds: its value expression and where that is written.
    pub(super) fn field_value(&self, name: &str) -> Option<(Expr, At<'a>)> {
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
    pub(super) fn local_value(&self, name: &str) -> Option<Option<(Expr, At<'a>)>> {
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
                return Some(match eval(&e, &where_, depth + 1) {
                    Some(v) => Lookup::Value(v),
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
                return match local.and_then(|(e, at)| eval(&e, &at, depth + 1)) {
                    Some(v) => Lookup::Value(v),
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
        }
        Lookup::Unknown
    }
}
