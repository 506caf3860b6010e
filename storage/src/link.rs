//! Cross-product linking: symbolic keys resolved against every product at commit.
//!
//! A product's index run cannot name another product's node ids: they change whenever
//! that product is re-indexed. Instead a node *answers to* a key (an anchor: an endpoint
//! answers to its service, verb and route) and a node *asks for* a key (a reference: an
//! HTTP call asks for the endpoint it targets). After every commit the store resolves all
//! references of all products against all anchors and replaces the link edges whole, so a
//! re-index of either side re-links both. What the keys mean is the indexer's business;
//! here they are opaque strings.

use bincode::{Decode, Encode};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::adjacency::Edge;
use crate::model::{EdgeKind, LinkPolicy};

/// One declaration of a node, stored in the `links` column family.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub(crate) enum LinkDecl {
    /// The node answers to `key`.
    Anchor {
        /// The key.
        key: String,
    },
    /// The node wants a `kind` edge to whatever answers to `key`.
    Ref {
        /// The edge kind to create.
        kind: EdgeKind,
        /// The key asked for.
        key: String,
        /// What to do when several anchors answer.
        policy: LinkPolicy,
    },
}

/// A reference that did not become an edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnlinkedRef {
    /// The node that asked.
    pub from: u32,
    /// The edge kind it asked for.
    pub kind: EdgeKind,
    /// The key.
    pub key: String,
    /// How many anchors answered (0: nobody; 2 or more with [`LinkPolicy::Unique`]: ambiguous).
    pub candidates: usize,
}

/// The outcome of one resolution over the whole store.
#[derive(Debug, Default)]
pub(crate) struct Resolution {
    /// Resolved edges, sorted and without duplicates.
    pub(crate) edges: Vec<Edge>,
    /// References that found no anchor, or several under the unique policy.
    pub(crate) unlinked: Vec<UnlinkedRef>,
}

/// The in-memory fingerprint of a key: 32 bits of SipHash keyed at random for the process.
/// Anchors are kept only as fingerprints (where the key itself was a heap string of 50
/// bytes or more), so a company's anchors — every type and method answers to its name,
/// twice — cost 8 bytes each: a fingerprint and a node id. They are the one part of a
/// process's memory that grows with the company (about 0.75 MB for a product of 200k
/// lines), so the fingerprint is a half word, not a whole one: two keys share one about
/// once in four billion, and a match is confirmed against the anchor's stored key before
/// it becomes an edge either way. Fingerprints are never stored.
fn fingerprint(key: &str) -> u32 {
    use std::hash::BuildHasher;
    static KEYS: std::sync::OnceLock<std::hash::RandomState> = std::sync::OnceLock::new();
    // The low half of the hash: truncation is the point.
    KEYS.get_or_init(std::hash::RandomState::new).hash_one(key) as u32
}

/// A reference of one product: `from` wants a `kind` edge to whatever answers to `key`
/// (whose fingerprint is `print`).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Reference {
    from: u32,
    kind: EdgeKind,
    key: String,
    print: u32,
    policy: LinkPolicy,
}

/// One product's link declarations, as resolution reads them: its anchors as fingerprints
/// with their nodes, sorted by fingerprint (a product's part of the lookup, built once per
/// run rather than at every commit of any product), and its references whole (their keys
/// are confirmed against anchors, and said when they stay unlinked).
#[derive(Clone, Debug, Default)]
pub(crate) struct ProductLinks {
    /// Fingerprints of the anchors' keys, sorted once sealed; `nodes[i]` answers to
    /// `prints[i]`.
    prints: Vec<u32>,
    nodes: Vec<u32>,
    refs: Vec<Reference>,
}

impl ProductLinks {
    /// Adds one declaration of `node`.
    pub(crate) fn push(&mut self, node: u32, decl: &LinkDecl) {
        match decl {
            LinkDecl::Anchor { key } => {
                self.prints.push(fingerprint(key));
                self.nodes.push(node);
            }
            LinkDecl::Ref { kind, key, policy } => self.refs.push(Reference {
                from: node,
                kind: *kind,
                key: key.clone(),
                print: fingerprint(key),
                policy: *policy,
            }),
        }
    }

    /// Sorts the anchors for lookups; called once all declarations are in.
    pub(crate) fn seal(&mut self) {
        let mut pairs: Vec<(u32, u32)> = self
            .prints
            .iter()
            .copied()
            .zip(self.nodes.iter().copied())
            .collect();
        pairs.sort_unstable();
        pairs.dedup();
        self.prints = pairs.iter().map(|(p, _)| *p).collect();
        self.nodes = pairs.iter().map(|(_, n)| *n).collect();
        self.refs.shrink_to_fit();
    }

    /// The nodes of this product whose anchor key may have the fingerprint `print`.
    fn answering(&self, print: u32) -> &[u32] {
        debug_assert!(self.prints.is_sorted(), "anchors looked up before seal");
        let from = self.prints.partition_point(|p| *p < print);
        let to = from + self.prints[from..].partition_point(|p| *p == print);
        &self.nodes[from..to]
    }
}

/// Resolves every reference of `products` against every anchor of `products`. Each
/// reference looks its key's fingerprint up in each product's sorted anchors, so the work
/// follows the references (calls across services, topics, tables, mentions), not the
/// anchors; each node found is kept only when `answers(node, key)` confirms, from the
/// stored declarations, that it answers to exactly that key.
pub(crate) fn resolve<'a, E>(
    products: impl Iterator<Item = &'a ProductLinks> + Clone,
    mut answers: impl FnMut(u32, &str) -> Result<bool, E>,
) -> Result<Resolution, E> {
    let mut out = Resolution::default();
    let mut found = Found::default();
    for r in products.clone().flat_map(|p| p.refs.iter()) {
        resolve_one(r, products.clone(), &mut found, &mut answers, &mut out)?;
    }
    Ok(out.sorted())
}

/// What one product's new declarations change in `before`, the resolution of every
/// product with its old ones (`replaced`, on the nodes `retired`): the same [`Resolution`]
/// that [`resolve`] gives over `products` (the other products, and `fresh` itself among
/// them, as the same reference),
/// with the work of the references the replacement can change.
///
/// Those are the new declarations' own references, and every reference of another
/// product's node whose key's fingerprint is among the anchors of the old declarations or
/// of the new ones (the only anchors that come or go). What any other node asked for found
/// the same anchors before and after, so its edges and its unlinked references carry over
/// from `before`; a node with one reference to re-resolve has all of its re-resolved, so an
/// edge two of its references gave is never lost with one of them.
pub(crate) fn resolve_replacing<'a, E>(
    products: impl Iterator<Item = &'a ProductLinks> + Clone,
    replaced: &ProductLinks,
    fresh: &ProductLinks,
    retired: &roaring::RoaringBitmap,
    before: (&[Edge], &[UnlinkedRef]),
    mut answers: impl FnMut(u32, &str) -> Result<bool, E>,
) -> Result<Resolution, E> {
    let mut touched: Vec<u32> = replaced.prints.iter().chain(&fresh.prints).copied().collect();
    touched.sort_unstable();
    touched.dedup();
    // Every other product's references (the new declarations' are all resolved again).
    let others = products.clone().filter(|p| !std::ptr::eq(*p, fresh));
    let affected: FxHashSet<u32> = others
        .clone()
        .flat_map(|p| p.refs.iter())
        .filter(|r| touched.binary_search(&r.print).is_ok())
        .map(|r| r.from)
        .collect();
    let (edges, unlinked) = before;
    let mut out = Resolution {
        edges: edges
            .iter()
            .filter(|(from, _, to)| {
                !affected.contains(from) && !retired.contains(*from) && !retired.contains(*to)
            })
            .copied()
            .collect(),
        unlinked: unlinked
            .iter()
            .filter(|u| !affected.contains(&u.from) && !retired.contains(u.from))
            .cloned()
            .collect(),
    };
    let mut found = Found::default();
    let again = others
        .flat_map(|p| p.refs.iter())
        .filter(|r| affected.contains(&r.from));
    for r in fresh.refs.iter().chain(again) {
        resolve_one(r, products.clone(), &mut found, &mut answers, &mut out)?;
    }
    Ok(out.sorted())
}

/// What each key resolves to, confirmed once however many references ask for it.
type Found<'k> = FxHashMap<&'k str, Vec<u32>>;

/// Resolves reference `r` against `products` into `out`.
fn resolve_one<'a, 'k, E>(
    r: &'k Reference,
    products: impl Iterator<Item = &'a ProductLinks> + Clone,
    found: &mut Found<'k>,
    answers: &mut impl FnMut(u32, &str) -> Result<bool, E>,
    out: &mut Resolution,
) -> Result<(), E> {
    if !found.contains_key(r.key.as_str()) {
        let mut nodes = Vec::new();
        for p in products {
            for &node in p.answering(r.print) {
                if answers(node, &r.key)? {
                    nodes.push(node);
                }
            }
        }
        nodes.sort_unstable();
        nodes.dedup();
        found.insert(r.key.as_str(), nodes);
    }
    let targets: Vec<u32> = found
        .get(r.key.as_str())
        .map(|nodes| nodes.iter().copied().filter(|t| *t != r.from).collect())
        .unwrap_or_default();
    let linked = match (r.policy, targets.len()) {
        (_, 0) => false,
        (LinkPolicy::Unique, n) if n > 1 => false,
        _ => true,
    };
    if linked {
        out.edges.extend(targets.iter().map(|&t| (r.from, r.kind, t)));
    } else {
        out.unlinked.push(UnlinkedRef {
            from: r.from,
            kind: r.kind,
            key: r.key.clone(),
            candidates: targets.len(),
        });
    }
    Ok(())
}

impl Resolution {
    /// Edges sorted without duplicates, unlinked references by node and key.
    fn sorted(mut self) -> Resolution {
        self.edges.sort_unstable();
        self.edges.dedup();
        self.unlinked.sort_by(|a, b| {
            (a.from, &a.key, a.kind, a.candidates).cmp(&(b.from, &b.key, b.kind, b.candidates))
        });
        self
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use super::*;

    fn anchor(key: &str) -> LinkDecl {
        LinkDecl::Anchor { key: key.into() }
    }
    fn reference(key: &str, policy: LinkPolicy) -> LinkDecl {
        LinkDecl::Ref {
            kind: EdgeKind::Invokes,
            key: key.into(),
            policy,
        }
    }

    #[test]
    fn unique_refs_link_once_and_report_ambiguity() {
        let decls = [
            (1, anchor("http:a:GET:/x")),
            (2, anchor("http:b:GET:/x")),
            (3, anchor("http:b:GET:/x")),
            (10, reference("http:a:GET:/x", LinkPolicy::Unique)),
            (11, reference("http:b:GET:/x", LinkPolicy::Unique)),
            (12, reference("http:b:GET:/x", LinkPolicy::All)),
            (13, reference("http:c:GET:/x", LinkPolicy::Unique)),
        ];
        let mut links = ProductLinks::default();
        for (node, decl) in &decls {
            links.push(*node, decl);
        }
        links.seal();
        let Ok(r) = resolve(std::iter::once(&links), |node, key| {
            Ok::<_, Infallible>(decls.iter().any(|(n, d)| *n == node && *d == anchor(key)))
        });
        assert_eq!(
            r.edges,
            vec![
                (10, EdgeKind::Invokes, 1),
                (12, EdgeKind::Invokes, 2),
                (12, EdgeKind::Invokes, 3)
            ]
        );
        let unlinked: Vec<_> = r.unlinked.iter().map(|u| (u.from, u.candidates)).collect();
        assert_eq!(unlinked, vec![(11, 2), (13, 0)]);
    }

    #[test]
    fn a_fingerprint_match_the_stored_key_does_not_confirm_is_no_edge() {
        let decls = [
            (1, anchor("table:orders")),
            (2, anchor("table:orders")),
            (10, reference("table:orders", LinkPolicy::Unique)),
        ];
        let mut links = ProductLinks::default();
        for (node, decl) in &decls {
            links.push(*node, decl);
        }
        links.seal();
        // As if node 2's key only shared the fingerprint: the reference is unique again.
        let Ok(r) = resolve(std::iter::once(&links), |node, _| Ok::<_, Infallible>(node != 2));
        assert_eq!(r.edges, vec![(10, EdgeKind::Invokes, 1)]);
        assert!(r.unlinked.is_empty());
        // And nothing confirmed: unlinked, with no candidate.
        let Ok(r) = resolve(std::iter::once(&links), |_, _| Ok::<_, Infallible>(false));
        assert!(r.edges.is_empty());
        assert_eq!(r.unlinked[0].candidates, 0);
    }

    /// The resolution as first written: one map of every anchor's key string.
    fn by_strings(products: &[Vec<(u32, LinkDecl)>]) -> (Vec<Edge>, Vec<(u32, String, usize)>) {
        let mut anchors: std::collections::HashMap<&str, Vec<u32>> = Default::default();
        for (node, decl) in products.iter().flatten() {
            if let LinkDecl::Anchor { key } = decl {
                anchors.entry(key.as_str()).or_default().push(*node);
            }
        }
        let mut edges = Vec::new();
        let mut unlinked = Vec::new();
        for (node, decl) in products.iter().flatten() {
            let LinkDecl::Ref { kind, key, policy } = decl else {
                continue;
            };
            let mut targets: Vec<u32> = anchors.get(key.as_str()).cloned().unwrap_or_default();
            targets.retain(|t| t != node);
            targets.sort_unstable();
            targets.dedup();
            let linked = !targets.is_empty() && (*policy == LinkPolicy::All || targets.len() == 1);
            if linked {
                edges.extend(targets.iter().map(|&t| (*node, *kind, t)));
            } else {
                unlinked.push((*node, key.clone(), targets.len()));
            }
        }
        edges.sort_unstable();
        edges.dedup();
        unlinked.sort();
        (edges, unlinked)
    }

    fn decl() -> impl proptest::strategy::Strategy<Value = (u32, LinkDecl)> {
        use proptest::prelude::*;
        // Few nodes and few keys, so that keys are shared, nodes declare several, and a
        // reference may meet its own node's anchor.
        (0u32..40, 0u8..3, 0u8..12, any::<bool>()).prop_map(|(node, what, key, all)| {
            let key = format!("k{key}");
            let decl = match what {
                0 => anchor(&key),
                _ => LinkDecl::Ref {
                    kind: if all {
                        EdgeKind::Mentions
                    } else {
                        EdgeKind::Invokes
                    },
                    key,
                    policy: if all { LinkPolicy::All } else { LinkPolicy::Unique },
                },
            };
            (node, decl)
        })
    }

    proptest::proptest! {
        #[test]
        fn resolution_by_fingerprint_is_resolution_by_key(
            products in proptest::collection::vec(proptest::collection::vec(decl(), 0..30), 1..5)
        ) {
            let links: Vec<ProductLinks> = products
                .iter()
                .map(|decls| {
                    let mut links = ProductLinks::default();
                    for (node, decl) in decls {
                        links.push(*node, decl);
                    }
                    links.seal();
                    links
                })
                .collect();
            let anchored: std::collections::HashSet<(u32, &str)> = products
                .iter()
                .flatten()
                .filter_map(|(n, d)| match d {
                    LinkDecl::Anchor { key } => Some((*n, key.as_str())),
                    LinkDecl::Ref { .. } => None,
                })
                .collect();
            let Ok(r) = resolve(links.iter(), |node, key| Ok::<_, Infallible>(anchored.contains(&(node, key))));
            let unlinked: Vec<(u32, String, usize)> =
                r.unlinked.iter().map(|u| (u.from, u.key.clone(), u.candidates)).collect();
            let (edges, mut expected_unlinked) = by_strings(&products);
            let mut unlinked = unlinked;
            unlinked.sort();
            expected_unlinked.sort();
            proptest::prop_assert_eq!(r.edges, edges);
            proptest::prop_assert_eq!(unlinked, expected_unlinked);
        }
    }

    fn sealed(decls: &[(u32, LinkDecl)]) -> ProductLinks {
        let mut links = ProductLinks::default();
        for (node, decl) in decls {
            links.push(*node, decl);
        }
        links.seal();
        links
    }

    fn anchors_of(products: &[Vec<(u32, LinkDecl)>]) -> std::collections::HashSet<(u32, String)> {
        products
            .iter()
            .flatten()
            .filter_map(|(n, d)| match d {
                LinkDecl::Anchor { key } => Some((*n, key.clone())),
                LinkDecl::Ref { .. } => None,
            })
            .collect()
    }

    proptest::proptest! {
        #[test]
        fn resolution_after_a_replacement_is_the_resolution_of_every_new_declaration(
            products in proptest::collection::vec(proptest::collection::vec(decl(), 0..30), 1..5),
            which in proptest::prelude::any::<proptest::sample::Index>(),
            added in proptest::prelude::any::<bool>(),
            replacement in proptest::collection::vec(decl(), 0..30),
        ) {
            // Each product's nodes are its own (ids never shared by two live products), and
            // the replacement's are new ids, as a run's are.
            let products: Vec<Vec<(u32, LinkDecl)>> = products
                .into_iter()
                .enumerate()
                .map(|(i, decls)| decls.into_iter().map(|(n, d)| (i as u32 * 100 + n, d)).collect())
                .collect();
            let replacement: Vec<(u32, LinkDecl)> =
                replacement.into_iter().map(|(n, d)| (1_000 + n, d)).collect();
            let before_links: Vec<ProductLinks> = products.iter().map(|d| sealed(d)).collect();
            let before_anchors = anchors_of(&products);
            let Ok(before) = resolve(before_links.iter(), |n, k| {
                Ok::<_, Infallible>(before_anchors.contains(&(n, k.to_string())))
            });
            let mut after = products.clone();
            let (i, retired) = if added {
                after.push(replacement.clone());
                (after.len() - 1, roaring::RoaringBitmap::new())
            } else {
                let i = which.index(products.len());
                after[i] = replacement.clone();
                (i, (i as u32 * 100..i as u32 * 100 + 40).collect())
            };
            let empty = ProductLinks::default();
            let replaced = if added { &empty } else { &before_links[i] };
            let after_links: Vec<ProductLinks> = after.iter().map(|d| sealed(d)).collect();
            let after_anchors = anchors_of(&after);
            let confirm = |n: u32, k: &str| Ok::<_, Infallible>(after_anchors.contains(&(n, k.to_string())));
            let Ok(incremental) = resolve_replacing(
                after_links.iter(),
                replaced,
                &after_links[i],
                &retired,
                (&before.edges, &before.unlinked),
                confirm,
            );
            let Ok(full) = resolve(after_links.iter(), confirm);
            proptest::prop_assert_eq!(&incremental.edges, &full.edges);
            proptest::prop_assert_eq!(&incremental.unlinked, &full.unlinked);
            let (edges, _) = by_strings(&after);
            proptest::prop_assert_eq!(incremental.edges, edges);
        }
    }
}
