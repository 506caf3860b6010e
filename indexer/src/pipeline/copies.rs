//! Names a product declares in more than one module — a class copied into each service
//! that needs it — and what each such module sees.
//!
//! The product-wide lookups (symbol table, typed model, what recognisers gathered, the
//! skeleton of each type) hold one copy of each fully-qualified name. A module that
//! declares its own copy compiles against that copy: its files are resolved and
//! recognised through a view that lays the module's copies over the shared lookups. A
//! view costs what the module's copies cost; the shared part is built once. A module
//! without a copy of a name sees the shared one, and the emit pass says a call into such
//! a name is one of the copies.

use std::collections::{BTreeMap, HashMap, HashSet};

use semgraph_storage::NodeId;

use crate::facts::{CodeFile, TypeDecl};
use crate::frameworks::Knowledge;
use crate::resolve::{ProductTypes, SymbolTable};

/// The module (its service node) of a file, as the emit pass records it.
pub(super) type ModuleKey = Option<NodeId>;

/// For each module declaring a name another module declares too: its files declaring
/// such names. Empty for most products.
pub(super) fn by_module<'s>(
    skeletons: &'s [CodeFile],
    modules: &[ModuleKey],
) -> BTreeMap<ModuleKey, Vec<&'s CodeFile>> {
    let mut first: HashMap<&str, ModuleKey> = HashMap::new();
    let mut copied: HashSet<&str> = HashSet::new();
    for (file, module) in skeletons.iter().zip(modules) {
        for t in &file.types {
            match first.get(t.fqn.as_str()) {
                None => {
                    first.insert(&t.fqn, *module);
                }
                Some(m) if m != module => {
                    copied.insert(&t.fqn);
                }
                Some(_) => {}
            }
        }
    }
    let mut out: BTreeMap<ModuleKey, Vec<&CodeFile>> = BTreeMap::new();
    if copied.is_empty() {
        return out;
    }
    for (file, module) in skeletons.iter().zip(modules) {
        if file.types.iter().any(|t| copied.contains(t.fqn.as_str())) {
            out.entry(*module).or_default().push(file);
        }
    }
    out
}

/// What the files of one module with copies see.
pub(super) struct ModuleView<'s> {
    pub(super) table: SymbolTable,
    pub(super) types: ProductTypes,
    pub(super) knowledge: Knowledge,
    /// The skeleton of each of the module's copies.
    pub(super) decls: HashMap<&'s str, &'s TypeDecl>,
}

impl<'s> ModuleView<'s> {
    /// The view of the module whose copies `files` declare.
    pub(super) fn new(
        files: &[&'s CodeFile],
        table: &SymbolTable,
        types: &ProductTypes,
        knowledge: &Knowledge,
    ) -> ModuleView<'s> {
        let table = table.for_module(files.iter().copied());
        let types = types.for_module(files.iter().copied(), &table);
        ModuleView {
            knowledge: knowledge.for_module(files),
            decls: files
                .iter()
                .flat_map(|f| &f.types)
                .map(|t| (t.fqn.as_str(), t))
                .collect(),
            table,
            types,
        }
    }
}
