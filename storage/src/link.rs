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
use rustc_hash::FxHashMap;

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

/// Resolves every reference in `decls` against every anchor in `decls`.
pub(crate) fn resolve<'a>(decls: impl Iterator<Item = &'a (u32, LinkDecl)> + Clone) -> Resolution {
    // Every anchor of every product, at every open and commit: hashed with FxHash.
    let mut anchors: FxHashMap<&str, Vec<u32>> = FxHashMap::default();
    for (node, decl) in decls.clone() {
        if let LinkDecl::Anchor { key } = decl {
            anchors.entry(key.as_str()).or_default().push(*node);
        }
    }
    for nodes in anchors.values_mut() {
        nodes.sort_unstable();
        nodes.dedup();
    }
    let mut out = Resolution::default();
    for (node, decl) in decls {
        let LinkDecl::Ref { kind, key, policy } = decl else {
            continue;
        };
        let targets: Vec<u32> = anchors
            .get(key.as_str())
            .map(|t| t.iter().copied().filter(|t| t != node).collect())
            .unwrap_or_default();
        let linked = match (policy, targets.len()) {
            (_, 0) => false,
            (LinkPolicy::Unique, n) if n > 1 => false,
            _ => true,
        };
        if linked {
            out.edges.extend(targets.iter().map(|&t| (*node, *kind, t)));
        } else {
            out.unlinked.push(UnlinkedRef {
                from: *node,
                kind: *kind,
                key: key.clone(),
                candidates: targets.len(),
            });
        }
    }
    out.edges.sort_unstable();
    out.edges.dedup();
    out.unlinked
        .sort_by(|a, b| (a.from, &a.key).cmp(&(b.from, &b.key)));
    out
}

#[cfg(test)]
mod tests {
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
        let r = resolve(decls.iter());
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
}
