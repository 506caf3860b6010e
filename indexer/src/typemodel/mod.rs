//! The type model: every type the compiler sees that is not the product's own source —
//! the JDK and, where their jars are on disk, the build's dependencies — with their
//! generic signatures, so a call resolver can type receivers, returns and chains.
//!
//! # What it holds
//! For each type ([`model::TypeInfo`]): binary name (`java.util.Map$Entry`) and source name
//! (`java.util.Map.Entry`), package, kind (class, interface, enum, record, annotation),
//! modifiers ([`model::Flags`]: public, protected, static, final, abstract, sealed, and
//! `NOT_ACCESSIBLE` for package-private supertypes kept for what they give public types),
//! type parameters with bounds, generic superclass and interfaces, member types, and every
//! public or protected method ([`model::MethodInfo`]: `<init>` for constructors, type
//! parameters, generic parameter and return types, static / abstract / default / varargs;
//! bridge and synthetic methods dropped, synthetic constructor parameters dropped) and
//! field ([`model::FieldInfo`]: type, modifiers, the constant of a `static final` field
//! with a ConstantValue — strings included, for URL and topic evaluation).
//!
//! Types are [`ty::Ty`]: primitives, class types with type arguments and wildcards, type
//! variables, arrays. [`ty`] parses JVM signatures and descriptors, renders them back
//! (exactly) and as Java source, substitutes ([`ty::subst`], [`ty::Subst`]) and erases
//! ([`ty::erase`]).
//!
//! # How to use it (a resolver's five minutes)
//! ```ignore
//! use crate::typemodel::{jdk::jdk, deps, model::{Layered, TypeSource}, ty::{ClassTy, Ty, TyArg}};
//!
//! // The JDK: decoded once per process from the embedded data.
//! let jdk = jdk();
//! let string = jdk.package_type("java.lang", "String");       // `import java.lang.*`
//! let entry = jdk.get("java.util.Map.Entry");                   // by source name
//!
//! // A module's dependencies: coordinates as the build declares them; jars found in
//! // ~/.m2, Gradle's cache, or explicit paths. Each coordinate is reported.
//! let cp = deps::load_all(&classpath_paths, &declared, &deps::Repositories::from_env(),
//!                         &deps::ResolveOptions::default());
//! for r in &cp.reports { /* r.coordinate, r.outcome (Typed{jar, types} | NotOnDisk | Unreadable), r.notes */ }
//!
//! // Stack the layers: the product's own types (a TypeModel built from source facts) on
//! // top, then the dependencies, then the JDK. The first layer that knows a name wins.
//! let types = Layered::new(vec![&product_model, &cp.model, jdk]);
//!
//! // Member lookups walk supertypes and substitute the receiver's type arguments:
//! let recv = ClassTy { name: "java.util.ArrayList".into(),
//!                      args: vec![TyArg::Exact(Ty::class("java.lang.String"))].into(), outer: None };
//! let get = &types.find_methods(&recv, "get")[0];
//! assert_eq!(get.ret.to_string(), "java.lang.String");      // ArrayList<String>.get(int)
//! let decl = &get.declaring.fqn;                              // where the call edge lands
//! let stream = &types.find_methods(&recv, "stream")[0];     // declared by Collection
//! // stream.ret == Stream<String>; stream.method.type_params are left for inference.
//! let field = types.find_field(&recv, "modCount");          // inherited, protected
//! let sups = types.supertypes(&recv);                        // nearest first, Object last
//! let nested = types.member_type("java.util.HashMap", "Entry"); // inherited member type
//! ```
//! [`model::TypeSource`] is the one interface: `by_binary`, `by_fqn`, `package_type`,
//! `has_package`, and the provided lookups `direct_supertypes`, `supertypes`,
//! `is_subtype`, `find_methods` (every overload, nearest declaration first, overridden ones
//! listed once; [`model::FoundMethod`] carries the declaring type, the method, the declaring
//! type as the receiver sees it, substituted parameter and return types, and the distance),
//! `find_field`, `member_type`. [`model::TypeModel`] adds `get`, `packages`,
//! `package_types`, `types`, `heap_bytes`. Product types from source join by building a
//! `TypeModel::new(Vec<TypeInfo>)` of them.
//!
//! # Invariants
//! - Signatures only, never bodies: class files are parsed with bytecode decoding off, and
//!   nothing of a method body is kept.
//! - The JDK model is generated, never hand-edited: `typemodel-jdk` (see [`jdk`]) reads a
//!   JDK 17's jmods, keeps the exported packages of the chosen modules, and writes
//!   `jdk17.tm`; a test regenerates it on a machine with that JDK and compares. It is
//!   embedded with `include_bytes!` and decoded once per process (`OnceLock`).
//! - The bundled library models (`libraries.tm`, see [`libraries`]) are generated the same
//!   way from the jars of the common test libraries, sit between the dependencies' jars
//!   and the JDK, and answer only for names no jar on disk declares.
//! - Nothing here touches the network, and a jar that is missing or broken costs its
//!   types and a report line, never a run.
//! - Names are shared (`Arc<str>` interned per archive): a model of tens of thousands of
//!   classes keeps each name once per jar.

pub(crate) mod archive;
pub(crate) mod classfile;
pub(crate) mod deps;
pub(crate) mod error;
pub(crate) mod jdk;
pub(crate) mod libraries;
pub(crate) mod model;
pub(crate) mod ty;
pub(crate) mod wire;

#[cfg(test)]
mod tests;
