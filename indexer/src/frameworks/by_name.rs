//! A map by fully-qualified name that a product and the views of its modules share.
//!
//! What recognisers gather across files (the supertypes of every type, the repositories)
//! is keyed by fqn. A module that declares its own copy of a name another module declares
//! too sees its copy's entry instead (see `Knowledge::for_module`): the product-wide map is
//! shared by reference count and a view holds only the entries its copies change, so a
//! product with a hundred such modules does not hold a hundred copies of the map.

use rustc_hash::FxHashMap;
use std::sync::Arc;

#[derive(Debug)]
pub(crate) struct ByName<V> {
    shared: Arc<FxHashMap<String, V>>,
    /// This view's entries: a value, or `None` for a name its copies do not have.
    own: FxHashMap<String, Option<V>>,
}

impl<V> Default for ByName<V> {
    fn default() -> Self {
        ByName {
            shared: Arc::new(FxHashMap::default()),
            own: FxHashMap::default(),
        }
    }
}

impl<V: Clone> Clone for ByName<V> {
    /// A view over the same shared entries (the shared map is not copied).
    fn clone(&self) -> Self {
        ByName {
            shared: Arc::clone(&self.shared),
            own: self.own.clone(),
        }
    }
}

impl<V> ByName<V> {
    /// The shared map, while no view shares it (the product's own gathering).
    fn unshared(&mut self) -> Option<&mut FxHashMap<String, V>> {
        if self.own.is_empty() {
            Arc::get_mut(&mut self.shared)
        } else {
            None
        }
    }

    pub(crate) fn insert(&mut self, name: String, value: V) {
        match self.unshared() {
            Some(map) => {
                map.insert(name, value);
            }
            None => {
                self.own.insert(name, Some(value));
            }
        }
    }

    pub(crate) fn remove(&mut self, name: &str) {
        match self.unshared() {
            Some(map) => {
                map.remove(name);
            }
            None => {
                self.own.insert(name.to_string(), None);
            }
        }
    }

    pub(crate) fn get(&self, name: &str) -> Option<&V> {
        match self.own.get(name) {
            Some(own) => own.as_ref(),
            None => self.shared.get(name),
        }
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Every name with a value.
    pub(crate) fn keys(&self) -> impl Iterator<Item = &String> {
        let own = self.own.iter().filter(|(_, v)| v.is_some()).map(|(k, _)| k);
        let shared = self.shared.keys().filter(|k| !self.own.contains_key(*k));
        own.chain(shared)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A view read after any edits equals a plain map given the same edits.
        #[test]
        fn a_view_reads_as_a_copy_edited_alike(
            base in prop::collection::vec((0u8..12, any::<u16>()), 0..24),
            edits in prop::collection::vec((0u8..12, prop::option::of(any::<u16>())), 0..24),
        ) {
            let mut product: ByName<u16> = ByName::default();
            let mut reference: FxHashMap<String, u16> = FxHashMap::default();
            for (k, v) in &base {
                product.insert(k.to_string(), *v);
                reference.insert(k.to_string(), *v);
            }
            let mut view = product.clone();
            for (k, v) in &edits {
                match v {
                    Some(v) => {
                        view.insert(k.to_string(), *v);
                        reference.insert(k.to_string(), *v);
                    }
                    None => {
                        view.remove(&k.to_string());
                        reference.remove(&k.to_string());
                    }
                }
            }
            for k in 0u8..12 {
                prop_assert_eq!(view.get(&k.to_string()), reference.get(&k.to_string()));
            }
            let mut keys: Vec<&String> = view.keys().collect();
            keys.sort();
            let mut expected: Vec<&String> = reference.keys().collect();
            expected.sort();
            prop_assert_eq!(keys, expected);
            // The product's own entries are untouched by the view's edits.
            let product_reference: FxHashMap<String, u16> =
                base.iter().map(|(k, v)| (k.to_string(), *v)).collect();
            for k in 0u8..12 {
                prop_assert_eq!(product.get(&k.to_string()), product_reference.get(&k.to_string()));
            }
        }
    }
}
