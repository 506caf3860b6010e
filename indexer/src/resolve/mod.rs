//! Resolution: names and calls of the product's code bound to types and methods.
//!
//! [`SymbolTable`] holds every type, method and field the product declares, with the
//! import context of the file each came from, for all languages at once; each language
//! has its own rules for binding a call site against it (`java.rs`). A call resolves to a
//! method of the product ([`Target::Internal`]), to a method of a type outside it
//! ([`Target::External`]), to one of several overloads it cannot tell apart
//! ([`Target::Ambiguous`], every candidate kept and marked), or to nothing
//! ([`Target::Unresolved`], with the reason) — never to a guess.

mod java;
mod kotlin;
mod symbols;
mod typed;
mod types;

#[cfg(test)]
mod java_tests;
#[cfg(test)]
mod kotlin_tests;
#[cfg(test)]
mod typed_tests;

pub(crate) use java::ProductTypes;
pub(crate) use symbols::SymbolTable;
pub(crate) use types::ProductModel;

/// Resolves every call site of `file` with the rules of its language.
pub(crate) fn resolve_calls(file: &crate::facts::CodeFile, table: &SymbolTable) -> Vec<ResolvedCall> {
    match file.language {
        crate::facts::Language::Java => java::resolve_calls(file, table),
        crate::facts::Language::Kotlin => {
            kotlin::resolve_calls(file, table, &ProductTypes::build([file], table))
        }
    }
}

/// Resolves every call site of `file` with the rules of its language, Java's typed
/// against the product's types and the JDK's (`types`).
pub(crate) fn resolve_calls_typed(
    file: &crate::facts::CodeFile,
    table: &SymbolTable,
    types: &ProductTypes,
) -> Vec<ResolvedCall> {
    match file.language {
        crate::facts::Language::Java => java::resolve_calls_typed(file, table, types),
        crate::facts::Language::Kotlin => kotlin::resolve_calls(file, table, types),
    }
}

/// A method of the product: type fqn, name and erased simple parameter types.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, bincode::Encode, bincode::Decode)]
pub(crate) struct MethodKey {
    pub(crate) type_fqn: String,
    pub(crate) name: String,
    pub(crate) params: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) enum Target {
    Internal(MethodKey),
    External {
        type_fqn: String,
        method: String,
    },
    Unresolved {
        reason: String,
    },
    /// Overloads of the product the call cannot be told apart between (argument types
    /// not known): each is a candidate, none is certain. Two or more.
    Ambiguous(Vec<MethodKey>),
}

#[derive(Debug, Clone, PartialEq, Eq, bincode::Encode, bincode::Decode)]
pub(crate) struct ResolvedCall {
    pub(crate) caller: MethodKey,
    /// The call site's index among the caller's `calls`.
    pub(crate) site: usize,
    pub(crate) line: usize,
    pub(crate) target: Target,
    /// For an external target reached through a receiver of a product type (a Spring Data
    /// repository interface inheriting `save` from `CrudRepository`), or through implicit
    /// `this` in one: that product type. Not computed for methods of JDK types.
    pub(crate) receiver_type: Option<String>,
}

impl MethodKey {
    /// The key of method `m` of type `t`.
    pub(crate) fn of(t: &crate::facts::TypeDecl, m: &crate::facts::MethodDecl) -> MethodKey {
        MethodKey {
            type_fqn: t.fqn.clone(),
            name: m.name.clone(),
            params: m
                .params
                .iter()
                .map(|p| crate::facts::simple_name(&p.ty))
                .collect(),
        }
    }
}

/// What a receiver expression denotes, for the call rules of either language.
#[derive(Debug, Clone)]
enum Recv {
    /// A value of this type.
    Instance(symbols::TypeRef),
    /// The type itself (`Type.f()`: its statics, a Kotlin companion, its nested types).
    Static(symbols::TypeRef),
}

/// How well a call's arguments fit a method's parameters.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fit {
    Exact,
    Maybe,
    No,
}

/// A call no rule binds, with the reason a person reads.
fn unresolved(reason: impl Into<String>) -> Target {
    Target::Unresolved {
        reason: reason.into(),
    }
}

/// The key of method `m` as type `decl_fqn` declares it.
fn key(decl_fqn: &str, m: &symbols::MethodInfo) -> MethodKey {
    MethodKey {
        type_fqn: decl_fqn.to_string(),
        name: m.name.to_string(),
        params: m.params.iter().map(|p| crate::facts::simple_name(p)).collect(),
    }
}
