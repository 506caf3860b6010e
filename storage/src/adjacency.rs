//! The in-memory adjacency of the served generation, in both directions.
//!
//! A traversal must never pay a RocksDB read per visited node (3–7 µs each here), so the
//! edges of the served graph live in memory: per direction, a compressed-sparse-row array
//! cut into pages of [`PAGE`] consecutive node ids. Each neighbour entry packs the edge kind
//! into its top four bits and the neighbour id into the low 28, and a node's entries are
//! sorted, so the neighbours of one kind are a contiguous sub-slice found by binary search.
//! That costs 4 bytes per edge per direction, plus 4 bytes per node per direction for the
//! offsets.
//!
//! Pages are shared between generations (`Arc`): a commit rebuilds only the pages that hold
//! a node of the product it replaces (its old ids and its new ones) or a node whose
//! cross-product link edges changed, and every other page of the new generation is the old
//! generation's own. A commit therefore costs the size of the product, not of the graph, and
//! the generation it replaces shares all but those pages with it while readers still hold
//! it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::error::{Result, StoreError};
use crate::model::{Direction, EdgeKind, NodeId};

const KIND_SHIFT: u32 = 28;
const ID_MASK: u32 = (1 << KIND_SHIFT) - 1;
const PAGE_SHIFT: u32 = 12;
/// Node ids per page.
pub(crate) const PAGE: usize = 1 << PAGE_SHIFT;
/// A node's list of at most this many entries is scanned for a kind, not searched.
const SHORT_LIST: usize = 16;
/// Nodes a traversal warms ([`Adjacency::warm`]) ahead of those it is visiting.
const WARM_AHEAD: usize = 32;

fn pack(kind: EdgeKind, target: u32) -> u32 {
    (u32::from(kind.code()) << KIND_SHIFT) | (target & ID_MASK)
}

/// The [`WARM_AHEAD`] nodes of `nodes` from `from` on (fewer at its end).
fn stretch(nodes: &[u32], from: usize) -> &[u32] {
    let from = from.min(nodes.len());
    &nodes[from..(from + WARM_AHEAD).min(nodes.len())]
}

/// One edge: source, kind, target.
pub(crate) type Edge = (u32, EdgeKind, u32);

/// The stored adjacency lists of some nodes, in (node, kind) order, as a cursor: the store
/// scans them without building a value per list.
pub(crate) trait StoredLists {
    /// The node of the next list, if any, without moving on.
    fn peek_node(&mut self) -> Result<Option<u32>>;
    /// Appends the next list's entries (packed, targets below `slots`) to `out`, moves on.
    fn take(&mut self, slots: usize, out: &mut Vec<u32>) -> Result<()>;
}

/// A kind and a target, packed as the adjacency stores them.
pub(crate) fn packed(kind: EdgeKind, target: u32) -> u32 {
    pack(kind, target)
}

/// `entries[offsets[i]..offsets[i + 1]]` are the packed neighbours of the page's `i`-th node.
#[derive(Debug)]
struct Page {
    offsets: Box<[u32]>,
    entries: Box<[u32]>,
    /// Per node of the page, one bit per edge kind it has (the bit of the kind's code): a
    /// traversal skips a node without the kind it follows, without reading its list.
    kinds: Box<[u16]>,
}

impl Page {
    fn new(offsets: Vec<u32>, entries: Vec<u32>) -> Page {
        let kinds = offsets
            .windows(2)
            .map(|w| {
                entries[w[0] as usize..w[1] as usize]
                    .iter()
                    .fold(0u16, |mask, &e| mask | 1 << (e >> KIND_SHIFT))
            })
            .collect();
        Page {
            offsets: offsets.into_boxed_slice(),
            entries: entries.into_boxed_slice(),
            kinds,
        }
    }

    fn slice(&self, i: usize) -> &[u32] {
        &self.entries[self.offsets[i] as usize..self.offsets[i + 1] as usize]
    }

    fn has(&self, i: usize, kind: EdgeKind) -> bool {
        self.kinds
            .get(i)
            .is_some_and(|mask| mask & (1 << kind.code()) != 0)
    }

    fn heap_bytes(&self) -> usize {
        (self.offsets.len() + self.entries.len()) * 4 + self.kinds.len() * 2
    }
}

/// One direction of every edge, as pages (`None`: a page without edges).
#[derive(Debug, Default, Clone)]
struct Csr {
    pages: Vec<Option<Arc<Page>>>,
    slots: usize,
    edges: u64,
}

impl Csr {
    /// The page holding `node`'s list and the node's index in it (`None`: no edges there).
    #[inline]
    fn page_of(&self, node: u32) -> Option<(&Page, usize)> {
        let n = node as usize;
        if n >= self.slots {
            return None;
        }
        match self.pages.get(n >> PAGE_SHIFT) {
            Some(Some(page)) => Some((page, n & (PAGE - 1))),
            _ => None,
        }
    }

    fn node_slice(&self, node: u32) -> &[u32] {
        self.page_of(node).map_or(&[], |(page, i)| page.slice(i))
    }

    fn has_kind(&self, node: u32, kind: EdgeKind) -> bool {
        self.page_of(node).is_some_and(|(page, i)| page.has(i, kind))
    }

    /// The neighbours of `node` of one kind. The page's kind bits answer for a node
    /// without any (its list is not read); a short list is scanned, a long one searched.
    fn kind_slice(&self, node: u32, kind: EdgeKind) -> &[u32] {
        let Some((page, i)) = self.page_of(node) else {
            return &[];
        };
        if !page.has(i, kind) {
            return &[];
        }
        let all = page.slice(i);
        let code = u32::from(kind.code());
        if all.len() <= SHORT_LIST {
            let start = all
                .iter()
                .position(|&e| e >> KIND_SHIFT >= code)
                .unwrap_or(all.len());
            let len = all[start..]
                .iter()
                .take_while(|&&e| e >> KIND_SHIFT == code)
                .count();
            return &all[start..start + len];
        }
        let start = all.partition_point(|&e| e >> KIND_SHIFT < code);
        let end = start + all[start..].partition_point(|&e| e >> KIND_SHIFT == code);
        &all[start..end]
    }

    /// Reads what a lookup of each of `nodes` reads first — its kind bits and, with
    /// `lists`, its list's bounds and first entry — and returns a value made of it all.
    /// The reads of one node do not wait on another's, so a frontier's cache misses are in
    /// flight together; a lookup right after finds them in the cache.
    fn touch(&self, nodes: &[u32], lists: bool) -> u32 {
        let mut sum = 0u32;
        for &n in nodes {
            let Some((page, i)) = self.page_of(n) else {
                continue;
            };
            sum = sum.wrapping_add(u32::from(page.kinds.get(i).copied().unwrap_or(0)));
            if lists {
                let start = page.offsets.get(i).copied().unwrap_or(0);
                sum = sum.wrapping_add(page.entries.get(start as usize).copied().unwrap_or(0));
            }
        }
        sum
    }

    fn heap_bytes(&self) -> usize {
        self.pages.capacity() * std::mem::size_of::<Option<Arc<Page>>>()
            + self.pages.iter().flatten().map(|p| p.heap_bytes()).sum::<usize>()
    }

    fn page_edges(&self, p: usize) -> u64 {
        match self.pages.get(p) {
            Some(Some(page)) => page.entries.len() as u64,
            _ => 0,
        }
    }

    /// The next generation of this direction (see [`Adjacency::update`]); `dirty` holds
    /// every node whose list may change. `found_shadowed` hears of every added link entry
    /// already present among the node's own edges.
    #[allow(clippy::too_many_arguments)]
    fn rebuild(
        &self,
        slots: usize,
        fresh: &RoaringBitmap,
        cleared: &RoaringBitmap,
        dirty: &RoaringBitmap,
        stored: &mut dyn StoredLists,
        removed: &HashMap<u32, Vec<u32>>,
        added: &HashMap<u32, Vec<u32>>,
        found_shadowed: &mut dyn FnMut(u32, u32),
    ) -> Result<Csr> {
        let page_count = slots.div_ceil(PAGE);
        let mut pages: Vec<Option<Arc<Page>>> = self.pages.iter().take(page_count).cloned().collect();
        pages.resize(page_count, None);
        let mut edges = self.edges;
        // Pages past the new end lose their edges.
        for p in page_count..self.pages.len() {
            edges -= self.page_edges(p);
        }
        let mut dirty_pages: Vec<usize> = dirty
            .iter()
            .map(|n| n as usize >> PAGE_SHIFT)
            .filter(|&p| p < page_count)
            .collect();
        dirty_pages.dedup();
        let mut list: Vec<u32> = Vec::new();
        for p in dirty_pages {
            let base = p << PAGE_SHIFT;
            let old = if p < self.pages.len() {
                self.pages[p].clone()
            } else {
                None
            };
            let mut offsets = Vec::with_capacity(PAGE + 1);
            let mut entries: Vec<u32> = Vec::with_capacity(old.as_ref().map_or(0, |o| o.entries.len()));
            for i in 0..PAGE {
                offsets.push(entries.len() as u32);
                let n = base + i;
                if n >= slots {
                    continue;
                }
                let node = n as u32;
                if !dirty.contains(node) {
                    if let Some(o) = &old {
                        entries.extend_from_slice(o.slice(i));
                    }
                    continue;
                }
                list.clear();
                if fresh.contains(node) {
                    take_stored(stored, node, slots, &mut list)?;
                } else if !cleared.contains(node) {
                    if let Some(o) = &old {
                        list.extend_from_slice(o.slice(i));
                    }
                    if let Some(gone) = removed.get(&node) {
                        list.retain(|e| !gone.contains(e));
                    }
                }
                if let Some(new) = added.get(&node) {
                    for &e in new {
                        if list.contains(&e) {
                            found_shadowed(node, e);
                        } else {
                            list.push(e);
                        }
                    }
                    list.sort_unstable();
                }
                entries.extend_from_slice(&list);
            }
            offsets.push(entries.len() as u32);
            if entries.len() as u64 >= u64::from(u32::MAX) {
                return Err(StoreError::Invalid {
                    what: "graph",
                    reason: "a page of the adjacency exceeds 2^32 edges".into(),
                });
            }
            edges = edges - old.as_ref().map_or(0, |o| o.entries.len() as u64) + entries.len() as u64;
            pages[p] = (!entries.is_empty()).then(|| Arc::new(Page::new(offsets, entries)));
        }
        // Whatever the scan holds for nodes it was not asked for is not part of the graph.
        Ok(Csr { pages, slots, edges })
    }
}

/// Appends the packed entries of `node` from the front of `stored`, skipping lists of
/// nodes before it (not live: not asked for).
fn take_stored(stored: &mut dyn StoredLists, node: u32, slots: usize, list: &mut Vec<u32>) -> Result<()> {
    while let Some(n) = stored.peek_node()? {
        if n > node {
            break;
        }
        if n == node {
            stored.take(slots, list)?;
        } else {
            stored.take(0, &mut Vec::new())?;
        }
    }
    Ok(())
}

/// Stored lists held in memory: (node, kind, targets) in (node, kind) order.
#[cfg(test)]
pub(crate) struct ListsInMemory(pub(crate) std::collections::VecDeque<(u32, EdgeKind, Vec<u32>)>);

#[cfg(test)]
impl StoredLists for ListsInMemory {
    fn peek_node(&mut self) -> Result<Option<u32>> {
        Ok(self.0.front().map(|l| l.0))
    }

    fn take(&mut self, slots: usize, out: &mut Vec<u32>) -> Result<()> {
        if let Some((_, kind, ids)) = self.0.pop_front() {
            out.extend(
                ids.iter()
                    .filter(|&&d| (d as usize) < slots)
                    .map(|&d| pack(kind, d)),
            );
        }
        Ok(())
    }
}

/// The lists of `edges` (flipped: of their targets), sorted as the store keeps them.
#[cfg(test)]
fn in_memory(edges: &[Edge], flip: bool) -> std::collections::VecDeque<(u32, EdgeKind, Vec<u32>)> {
    let mut es: Vec<Edge> = edges
        .iter()
        .map(|&(s, k, d)| if flip { (d, k, s) } else { (s, k, d) })
        .collect();
    es.sort_unstable();
    es.dedup();
    es.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1)
        .map(|g| (g[0].0, g[0].1, g.iter().map(|e| e.2).collect()))
        .collect()
}

/// Both directions of every edge of the served generation (links across products included).
#[derive(Debug, Default, Clone)]
pub struct Adjacency {
    out: Csr,
    inc: Csr,
}

/// What changes from one generation's adjacency to the next.
pub(crate) struct Update<'a> {
    /// The node slots of the next generation (the largest live id + 1).
    pub(crate) slots: usize,
    /// Nodes whose own (within-product) edges are read from `stored_out` / `stored_in`.
    pub(crate) fresh: &'a RoaringBitmap,
    /// Nodes that have no edges any more (the replaced generation of a product).
    pub(crate) cleared: &'a RoaringBitmap,
    /// The cross-product link edges of the current generation, sorted.
    pub(crate) old_links: &'a [Edge],
    /// Those of them that are also a node's own edge.
    pub(crate) old_shadowed: &'a HashSet<Edge>,
    /// The cross-product link edges of the next generation, sorted.
    pub(crate) new_links: &'a [Edge],
}

impl Adjacency {
    /// The next generation: this one with the lists of `cleared` nodes emptied, those of
    /// `fresh` nodes read from the stored lists (every list of every fresh node, in
    /// (node, kind) order, in each direction), and the link edges changed from `old_links`
    /// to `new_links`. Pages without a changed node are shared with this generation.
    /// Also returns the link edges of the next generation that duplicate a node's own edge
    /// (they stay when the link goes).
    pub(crate) fn update(
        &self,
        change: &Update<'_>,
        stored_out: &mut dyn StoredLists,
        stored_in: &mut dyn StoredLists,
    ) -> Result<(Adjacency, HashSet<Edge>)> {
        let old: HashSet<Edge> = change.old_links.iter().copied().collect();
        let new: HashSet<Edge> = change.new_links.iter().copied().collect();
        let mut touched_out = RoaringBitmap::new();
        let mut touched_in = RoaringBitmap::new();
        for &(s, _, d) in old.symmetric_difference(&new) {
            touched_out.insert(s);
            touched_in.insert(d);
        }
        // A touched node loses every old link that is not also its own edge and gains every
        // new one.
        let mut removed_out: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut removed_in: HashMap<u32, Vec<u32>> = HashMap::new();
        for e @ &(s, k, d) in change.old_links {
            if change.old_shadowed.contains(e) {
                continue;
            }
            if touched_out.contains(s) {
                removed_out.entry(s).or_default().push(pack(k, d));
            }
            if touched_in.contains(d) {
                removed_in.entry(d).or_default().push(pack(k, s));
            }
        }
        let mut added_out: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut added_in: HashMap<u32, Vec<u32>> = HashMap::new();
        let in_range = |id: u32| (id as usize) < change.slots;
        for &(s, k, d) in change.new_links {
            if !in_range(s) || !in_range(d) {
                continue;
            }
            if touched_out.contains(s) {
                added_out.entry(s).or_default().push(pack(k, d));
            }
            if touched_in.contains(d) {
                added_in.entry(d).or_default().push(pack(k, s));
            }
        }
        let replaced = change.fresh | change.cleared;
        let dirty_out = &replaced | &touched_out;
        let dirty_in = &replaced | &touched_in;
        let mut shadowed: HashSet<Edge> = change
            .old_shadowed
            .iter()
            .filter(|e| !dirty_out.contains(e.0) && new.contains(e))
            .copied()
            .collect();
        let out = self.out.rebuild(
            change.slots,
            change.fresh,
            change.cleared,
            &dirty_out,
            stored_out,
            &removed_out,
            &added_out,
            &mut |s, e| {
                if let Some(k) = EdgeKind::from_code((e >> KIND_SHIFT) as u8) {
                    shadowed.insert((s, k, e & ID_MASK));
                }
            },
        )?;
        let inc = self.inc.rebuild(
            change.slots,
            change.fresh,
            change.cleared,
            &dirty_in,
            stored_in,
            &removed_in,
            &added_in,
            &mut |_, _| {},
        )?;
        Ok((Adjacency { out, inc }, shadowed))
    }

    /// Builds from a list of edges (duplicates collapse), for tests.
    #[cfg(test)]
    pub(crate) fn from_edges(slots: usize, edges: &[Edge]) -> Result<Adjacency> {
        let lists = |flip: bool| ListsInMemory(in_memory(edges, flip));
        let mut fresh = RoaringBitmap::new();
        fresh.insert_range(0..slots as u32);
        let (adjacency, _) = Adjacency::default().update(
            &Update {
                slots,
                fresh: &fresh,
                cleared: &RoaringBitmap::new(),
                old_links: &[],
                old_shadowed: &HashSet::new(),
                new_links: &[],
            },
            &mut lists(false),
            &mut lists(true),
        )?;
        Ok(adjacency)
    }

    fn csr(&self, dir: Direction) -> &Csr {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inc,
        }
    }

    /// The number of node slots (the largest id + 1).
    pub fn node_slots(&self) -> usize {
        self.out.slots
    }

    /// The number of edges (each counted once).
    pub fn edge_count(&self) -> u64 {
        self.out.edges
    }

    /// Heap bytes held by both directions (pages shared with another generation included).
    pub fn heap_bytes(&self) -> usize {
        self.out.heap_bytes() + self.inc.heap_bytes()
    }

    /// The neighbours of `node` over edges of `kind`, followed in `dir`, in id order.
    pub fn neighbors(
        &self,
        node: NodeId,
        dir: Direction,
        kind: EdgeKind,
    ) -> impl ExactSizeIterator<Item = NodeId> + '_ {
        self.csr(dir)
            .kind_slice(node.0, kind)
            .iter()
            .map(|&e| NodeId(e & ID_MASK))
    }

    /// Every neighbour of `node` in `dir`, with the edge kind.
    pub fn edges(&self, node: NodeId, dir: Direction) -> impl Iterator<Item = (EdgeKind, NodeId)> + '_ {
        self.csr(dir)
            .node_slice(node.0)
            .iter()
            .filter_map(|&e| EdgeKind::from_code((e >> KIND_SHIFT) as u8).map(|k| (k, NodeId(e & ID_MASK))))
    }

    /// The number of `kind` neighbours of `node` in `dir`.
    pub fn degree(&self, node: NodeId, dir: Direction, kind: EdgeKind) -> usize {
        self.csr(dir).kind_slice(node.0, kind).len()
    }

    /// Whether `node` has at least one `kind` edge in `dir`: one bit of its page, without
    /// reading its list (a traversal skips the nodes that override or serve nothing).
    pub fn has_edges(&self, node: NodeId, dir: Direction, kind: EdgeKind) -> bool {
        self.csr(dir).has_kind(node.0, kind)
    }

    /// Brings into the CPU's cache what a traversal about to visit the [`WARM_AHEAD`] nodes
    /// of `frontier` from `from` on reads first of each in `dir`: whether it has edges of a
    /// kind and, with `lists`, where its list starts. A traversal that looks its nodes up
    /// one at a time waits out each one's cache misses in turn (most of a walk up the call
    /// graph of millions of edges); warmed a stretch ahead, their misses overlap.
    fn warm(&self, frontier: &[u32], from: usize, dir: Direction, lists: bool) {
        std::hint::black_box(self.csr(dir).touch(stretch(frontier, from), lists));
    }

    /// Calls `visit` on each node of `frontier` in order, warming ([`Adjacency::warm`])
    /// each next stretch of it in every `(direction, lists)` of `warm` while it visits
    /// one: what a traversal that looks each node up in those directions reads first is
    /// in the cache when it gets there.
    pub fn visit_warmed(&self, frontier: &[u32], warm: &[(Direction, bool)], mut visit: impl FnMut(u32)) {
        let warm_from = |from: usize| {
            for &(dir, lists) in warm {
                self.warm(frontier, from, dir, lists);
            }
        };
        warm_from(0);
        for (at, &node) in frontier.iter().enumerate() {
            if at % WARM_AHEAD == 0 {
                warm_from(at + WARM_AHEAD);
            }
            visit(node);
        }
    }

    /// Every node one `kinds` edge away from `frontier` in `dir`.
    pub fn expand(&self, frontier: &RoaringBitmap, dir: Direction, kinds: &[EdgeKind]) -> RoaringBitmap {
        let csr = self.csr(dir);
        let mut next = Vec::new();
        for node in frontier {
            for &kind in kinds {
                next.extend(csr.kind_slice(node, kind).iter().map(|&e| e & ID_MASK));
            }
        }
        next.sort_unstable();
        next.dedup();
        RoaringBitmap::from_sorted_iter(next).unwrap_or_default()
    }

    /// Breadth-first reach from `seeds` over `kinds` edges in `dir`, up to `depth` hops.
    ///
    /// Returns one bitmap per depth: `layers[d]` holds the nodes first reached after `d + 1`
    /// hops (seeds are not included unless a cycle brings them back — it does not: a node
    /// is reported at its shortest distance only, and seeds are at distance 0).
    pub fn reach(
        &self,
        seeds: &RoaringBitmap,
        dir: Direction,
        kinds: &[EdgeKind],
        depth: u32,
    ) -> Vec<RoaringBitmap> {
        let csr = self.csr(dir);
        let slots = self.node_slots();
        let mut visited = vec![0u64; slots / 64 + 1];
        fn mark(id: u32, visited: &mut [u64]) -> bool {
            let (w, b) = ((id / 64) as usize, id % 64);
            match visited.get_mut(w) {
                Some(word) if *word & (1 << b) == 0 => {
                    *word |= 1 << b;
                    true
                }
                _ => false,
            }
        }
        let mut frontier: Vec<u32> = Vec::with_capacity(seeds.len() as usize);
        for s in seeds {
            if mark(s, &mut visited) {
                frontier.push(s);
            }
        }
        let mut layers = Vec::with_capacity(depth as usize);
        for _ in 0..depth {
            let mut next = Vec::new();
            self.visit_warmed(&frontier, &[(dir, true)], |node| {
                for &kind in kinds {
                    for &e in csr.kind_slice(node, kind) {
                        let id = e & ID_MASK;
                        if mark(id, &mut visited) {
                            next.push(id);
                        }
                    }
                }
            });
            if next.is_empty() {
                break;
            }
            next.sort_unstable();
            layers.push(RoaringBitmap::from_sorted_iter(next.iter().copied()).unwrap_or_default());
            frontier = next;
        }
        layers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(n: usize, edges: &[Edge]) -> Adjacency {
        Adjacency::from_edges(n, edges).expect("builds")
    }

    fn out_edges(g: &Adjacency) -> Vec<Edge> {
        (0..g.node_slots() as u32)
            .flat_map(|s| g.edges(NodeId(s), Direction::Out).map(move |(k, d)| (s, k, d.0)))
            .collect()
    }

    fn in_edges(g: &Adjacency) -> Vec<Edge> {
        let mut v: Vec<Edge> = (0..g.node_slots() as u32)
            .flat_map(|d| g.edges(NodeId(d), Direction::In).map(move |(k, s)| (s.0, k, d)))
            .collect();
        v.sort_unstable();
        v
    }

    #[test]
    fn neighbours_are_split_by_kind_and_direction() {
        let g = graph(
            4,
            &[
                (0, EdgeKind::Calls, 1),
                (0, EdgeKind::Calls, 2),
                (0, EdgeKind::Reads, 3),
                (2, EdgeKind::Calls, 1),
                (0, EdgeKind::Calls, 1),
            ],
        );
        let calls: Vec<_> = g.neighbors(NodeId(0), Direction::Out, EdgeKind::Calls).collect();
        assert_eq!(calls, vec![NodeId(1), NodeId(2)]);
        let callers: Vec<_> = g.neighbors(NodeId(1), Direction::In, EdgeKind::Calls).collect();
        assert_eq!(callers, vec![NodeId(0), NodeId(2)]);
        assert_eq!(g.degree(NodeId(3), Direction::In, EdgeKind::Reads), 1);
        assert_eq!(g.edge_count(), 4, "the duplicate call collapses");
    }

    proptest::proptest! {
        /// A node has a kind of edge coming in (going out) exactly when it is the target
        /// (source) of an edge of that kind, over several pages.
        #[test]
        fn a_node_has_the_kinds_of_its_edges(
            edges in proptest::collection::vec((0u32..3 * PAGE as u32, 0usize..3, 0u32..3 * PAGE as u32), 0..60)
        ) {
            const KINDS: [EdgeKind; 3] = [EdgeKind::Calls, EdgeKind::Serves, EdgeKind::Reads];
            let edges: Vec<Edge> = edges.into_iter().map(|(s, k, d)| (s, KINDS[k], d)).collect();
            let g = graph(3 * PAGE, &edges);
            let mut ends: Vec<u32> = edges.iter().flat_map(|e| [e.0, e.2]).collect();
            ends.extend([0, PAGE as u32, 3 * PAGE as u32 + 5]);
            for node in ends {
                for kind in KINDS {
                    let target = edges.iter().any(|e| e.1 == kind && e.2 == node);
                    let source = edges.iter().any(|e| e.1 == kind && e.0 == node);
                    proptest::prop_assert_eq!(g.has_edges(NodeId(node), Direction::In, kind), target);
                    proptest::prop_assert_eq!(g.has_edges(NodeId(node), Direction::Out, kind), source);
                }
            }
        }
    }

    proptest::proptest! {
        /// The neighbours of one kind are exactly the edges of that kind, in id order, for
        /// lists short enough to be scanned and long enough to be searched.
        #[test]
        fn neighbours_of_a_kind_are_the_edges_of_that_kind(
            edges in proptest::collection::vec((0u32..6, 0usize..5, 0u32..60), 0..400)
        ) {
            const KINDS: [EdgeKind; 5] =
                [EdgeKind::Contains, EdgeKind::Calls, EdgeKind::Serves, EdgeKind::Reads, EdgeKind::Mentions];
            let edges: Vec<Edge> = edges.into_iter().map(|(s, k, d)| (s, KINDS[k], d)).collect();
            let g = graph(60, &edges);
            for node in 0..60u32 {
                for kind in KINDS {
                    for dir in [Direction::Out, Direction::In] {
                        let mut expected: Vec<u32> = edges
                            .iter()
                            .filter(|e| e.1 == kind)
                            .filter_map(|e| match dir {
                                Direction::Out => (e.0 == node).then_some(e.2),
                                Direction::In => (e.2 == node).then_some(e.0),
                            })
                            .collect();
                        expected.sort_unstable();
                        expected.dedup();
                        let got: Vec<u32> = g.neighbors(NodeId(node), dir, kind).map(|n| n.0).collect();
                        proptest::prop_assert_eq!(got, expected, "node {} {:?} {:?}", node, dir, kind);
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// `reach`, which warms each next stretch of its frontier while it visits one,
        /// finds every node at its breadth-first depth, over frontiers many stretches long
        /// and ids across pages; warming any stretch of any list of ids, past the graph's
        /// slots or past the list's end, reads nothing out of bounds.
        #[test]
        fn reach_is_a_plain_breadth_first_search(
            edges in proptest::collection::vec((0u32..2 * PAGE as u32, 0u32..2 * PAGE as u32), 0..800),
            seeds in proptest::collection::vec(0u32..2 * PAGE as u32 + 9, 1..120),
            from in 0usize..200,
        ) {
            let mut seeds = seeds;
            // Many seeds hold edges, so the first frontiers are longer than a stretch.
            seeds.extend(edges.iter().take(100).map(|e| e.0));
            let edges: Vec<Edge> = edges.into_iter().map(|(s, d)| (s, EdgeKind::Calls, d)).collect();
            let g = graph(2 * PAGE, &edges);
            for dir in [Direction::Out, Direction::In] {
                g.warm(&seeds, from, dir, true);
                g.warm(&seeds, from, dir, false);
            }
            let start: RoaringBitmap = seeds.iter().copied().filter(|&s| (s as usize) < 2 * PAGE).collect();
            let got = g.reach(&start, Direction::Out, &[EdgeKind::Calls], 4);
            let mut seen = start.clone();
            let mut frontier = start;
            let mut expected = Vec::new();
            for _ in 0..4 {
                let next: RoaringBitmap = edges
                    .iter()
                    .filter(|e| frontier.contains(e.0) && !seen.contains(e.2))
                    .map(|e| e.2)
                    .collect();
                if next.is_empty() {
                    break;
                }
                seen |= &next;
                expected.push(next.clone());
                frontier = next;
            }
            proptest::prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn reach_reports_each_node_at_its_shortest_depth() {
        let g = graph(
            5,
            &[
                (1, EdgeKind::Calls, 0),
                (2, EdgeKind::Calls, 1),
                (3, EdgeKind::Calls, 2),
                (3, EdgeKind::Calls, 0),
                (4, EdgeKind::Reads, 0),
            ],
        );
        let seeds: RoaringBitmap = [0u32].into_iter().collect();
        let layers = g.reach(&seeds, Direction::In, &[EdgeKind::Calls], 5);
        let as_vec: Vec<Vec<u32>> = layers.iter().map(|l| l.iter().collect()).collect();
        assert_eq!(as_vec, vec![vec![1, 3], vec![2]]);
    }

    /// Two products over three pages, one replaced, with links that change and one link
    /// that repeats an edge of the product: the update equals a build from scratch, and the
    /// pages of the untouched product are shared.
    #[test]
    fn an_update_equals_a_rebuild_and_shares_untouched_pages() {
        let a: Vec<u32> = (0..PAGE as u32).collect(); // page 0: product A
        let b_old: Vec<u32> = (PAGE as u32..PAGE as u32 + 50).collect(); // page 1: B, old
        let b_new: Vec<u32> = (2 * PAGE as u32..2 * PAGE as u32 + 60).collect(); // page 2: B, new
        let chain =
            |ids: &[u32]| -> Vec<Edge> { ids.windows(2).map(|w| (w[0], EdgeKind::Calls, w[1])).collect() };
        let own_a = chain(&a);
        let own_b_old = chain(&b_old);
        let own_b_new = chain(&b_new);
        // A's node 5 calls its own node 6 and also links to it; A links into B.
        let old_links = vec![(5, EdgeKind::Calls, 6), (7, EdgeKind::Invokes, b_old[3])];
        let new_links = vec![
            (5, EdgeKind::Calls, 6),
            (7, EdgeKind::Invokes, b_new[4]),
            (b_new[0], EdgeKind::Invokes, 9),
        ];
        let slots = 2 * PAGE + 60;
        let old_all: Vec<Edge> = own_a
            .iter()
            .chain(&own_b_old)
            .chain(&old_links)
            .copied()
            .collect();
        let old = graph(slots, &old_all);
        let old_shadowed: HashSet<Edge> = [(5, EdgeKind::Calls, 6)].into_iter().collect();

        let fresh: RoaringBitmap = b_new.iter().copied().collect();
        let cleared: RoaringBitmap = b_old.iter().copied().collect();
        let stored = |flip: bool| ListsInMemory(in_memory(&own_b_new, flip));
        let (next, shadowed) = old
            .update(
                &Update {
                    slots,
                    fresh: &fresh,
                    cleared: &cleared,
                    old_links: &old_links,
                    old_shadowed: &old_shadowed,
                    new_links: &new_links,
                },
                &mut stored(false),
                &mut stored(true),
            )
            .expect("updates");
        let expected_all: Vec<Edge> = own_a
            .iter()
            .chain(&own_b_new)
            .chain(&new_links)
            .copied()
            .collect();
        let expected = graph(slots, &expected_all);
        assert_eq!(out_edges(&next), out_edges(&expected));
        assert_eq!(in_edges(&next), in_edges(&expected));
        assert_eq!(next.edge_count(), expected.edge_count());
        for node in 0..slots as u32 {
            for dir in [Direction::In, Direction::Out] {
                assert_eq!(
                    next.has_edges(NodeId(node), dir, EdgeKind::Calls),
                    expected.has_edges(NodeId(node), dir, EdgeKind::Calls),
                    "{node} {dir:?}"
                );
            }
        }
        assert!(
            next.neighbors(NodeId(5), Direction::Out, EdgeKind::Calls)
                .any(|n| n == NodeId(6)),
            "the link that repeats an own edge never took the edge with it"
        );
        assert_eq!(shadowed, old_shadowed);
        assert!(next.out.pages[1].is_none(), "the old generation's page is empty");
        // Page 0 changes (node 7's link moved), so it is rebuilt; with no change it is shared.
        let (same, _) = next
            .update(
                &Update {
                    slots,
                    fresh: &RoaringBitmap::new(),
                    cleared: &RoaringBitmap::new(),
                    old_links: &new_links,
                    old_shadowed: &shadowed,
                    new_links: &new_links,
                },
                &mut ListsInMemory(Default::default()),
                &mut ListsInMemory(Default::default()),
            )
            .expect("updates");
        for (p, q) in same.out.pages.iter().zip(&next.out.pages) {
            match (p, q) {
                (Some(p), Some(q)) => assert!(Arc::ptr_eq(p, q)),
                (None, None) => {}
                _ => panic!("a page changed without a change"),
            }
        }
    }
}
