//! The supertypes a type declares, with their type arguments, for the recognisers that
//! find a framework's generic base through the product's own hierarchy (Spring Data's
//! `Repository<T, ID>`, MyBatis-Plus's `BaseMapper<T>`): `OrderRepository extends
//! BaseRepository<Order, Long>` and `BaseRepository<T, ID> extends JpaRepository<T, ID>`
//! give `Order`, with each argument either concrete or the subtype's own parameter.

use super::annotations::short;
use super::jpa::qualify;
use crate::facts::{self, CodeFile, TypeDecl};

/// A type argument of a supertype: a concrete type or the subtype's own type parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TypeArg {
    Concrete(String),
    Param(usize),
}

/// A supertype as a type declares it.
#[derive(Debug, Clone)]
pub(crate) struct SuperRef {
    pub(crate) simple: String,
    pub(crate) qualified: String,
    pub(crate) args: Vec<TypeArg>,
    /// The framework's own: imported from one of its packages, written with one, or
    /// reachable only through a wildcard import of one.
    pub(crate) framework: bool,
}

/// `written` supertypes of `t` (declared in `file`) as [`SuperRef`]s, the framework being
/// the one whose packages are `packages` (`org.springframework.data`).
pub(crate) fn supers_of<'a>(
    file: &CodeFile,
    t: &TypeDecl,
    written: impl IntoIterator<Item = &'a String>,
    packages: &[&str],
) -> Vec<SuperRef> {
    let in_packages = |name: &str| {
        packages
            .iter()
            .any(|p| name == *p || name.strip_prefix(p).is_some_and(|rest| rest.starts_with('.')))
    };
    written
        .into_iter()
        .map(|s| {
            let args = facts::type_args(s)
                .iter()
                .map(|a| {
                    // A parameter may be written with its bound (`T extends Base`).
                    match t
                        .type_params
                        .iter()
                        .position(|p| p == a || p.starts_with(&format!("{a} ")))
                    {
                        Some(i) => TypeArg::Param(i),
                        None => TypeArg::Concrete(qualify(file, a)),
                    }
                })
                .collect();
            let qualified = qualify(file, s);
            let simple = short(&facts::erase(s)).to_string();
            let imported = file
                .imports
                .iter()
                .any(|i| !i.is_static && !i.wildcard && short(&i.path) == simple);
            let declared_here = file.types.iter().any(|t| t.name == simple);
            let framework = in_packages(&qualified)
                || (!imported
                    && !declared_here
                    && file.imports.iter().any(|i| i.wildcard && in_packages(&i.path)));
            SuperRef {
                simple,
                qualified,
                args,
                framework,
            }
        })
        .collect()
}
