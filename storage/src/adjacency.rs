//! The in-memory adjacency of the served generation, in both directions.
//!
//! A traversal must never pay a RocksDB read per visited node (3–7 µs each here), so the
//! edges of the served graph live in two compressed-sparse-row arrays, one per direction,
//! rebuilt on every commit and swapped with the generation. Each neighbour entry packs the
//! edge kind into its top four bits and the neighbour id into the low 28, and a node's
//! entries are sorted, so the neighbours of one kind are a contiguous sub-slice found by
//! binary search. That costs 4 bytes per edge per direction, plus 4 bytes per node per
//! direction for the offsets.

use roaring::RoaringBitmap;

use crate::error::{Result, StoreError};
use crate::model::{Direction, EdgeKind, NodeId};

const KIND_SHIFT: u32 = 28;
const ID_MASK: u32 = (1 << KIND_SHIFT) - 1;

fn pack(kind: EdgeKind, target: u32) -> u32 {
    (u32::from(kind.code()) << KIND_SHIFT) | (target & ID_MASK)
}

/// A source of packed entries that can be walked more than once: it calls its argument
/// with `(source, packed neighbour)` for every entry.
type EntryWalk<'a> = &'a dyn Fn(&mut dyn FnMut(u32, u32));

/// A source of edges that can be walked more than once.
pub(crate) type EdgeWalk<'a> = &'a dyn Fn(&mut dyn FnMut(Edge));

/// One direction: `entries[offsets[n]..offsets[n + 1]]` are node `n`'s packed neighbours.
#[derive(Debug, Default)]
struct Csr {
    offsets: Vec<u32>,
    entries: Vec<u32>,
}

impl Csr {
    /// Builds from an edge source that can be walked twice (count, then fill).
    fn build(node_count: usize, walk: EntryWalk<'_>) -> Result<Csr> {
        let mut degree = vec![0u32; node_count + 1];
        let mut total: u64 = 0;
        walk(&mut |src, _packed| {
            if let Some(d) = degree.get_mut(src as usize) {
                *d += 1;
                total += 1;
            }
        });
        if total >= u64::from(u32::MAX) {
            return Err(StoreError::Invalid {
                what: "graph",
                reason: format!("{total} edges exceed the adjacency's 2^32 limit"),
            });
        }
        let mut offsets = vec![0u32; node_count + 1];
        let mut acc = 0u32;
        for (n, d) in degree.iter().take(node_count).enumerate() {
            offsets[n] = acc;
            acc += d;
        }
        offsets[node_count] = acc;
        let mut cursor: Vec<u32> = offsets[..node_count].to_vec();
        let mut entries = vec![0u32; acc as usize];
        walk(&mut |src, packed| {
            if let Some(c) = cursor.get_mut(src as usize) {
                entries[*c as usize] = packed;
                *c += 1;
            }
        });
        for n in 0..node_count {
            let slice = &mut entries[offsets[n] as usize..offsets[n + 1] as usize];
            slice.sort_unstable();
        }
        // Duplicate edges (the same fact found twice) collapse to one.
        let mut csr = Csr { offsets, entries };
        csr.dedup();
        Ok(csr)
    }

    fn dedup(&mut self) {
        let n = self.offsets.len() - 1;
        let mut write = 0usize;
        let mut start = 0usize;
        for node in 0..n {
            let end = self.offsets[node + 1] as usize;
            let mut prev: Option<u32> = None;
            let begin = write;
            for read in start..end {
                let v = self.entries[read];
                if prev != Some(v) {
                    self.entries[write] = v;
                    write += 1;
                    prev = Some(v);
                }
            }
            self.offsets[node] = begin as u32;
            start = end;
        }
        self.offsets[n] = write as u32;
        self.entries.truncate(write);
        self.entries.shrink_to_fit();
    }

    fn node_slice(&self, node: u32) -> &[u32] {
        let n = node as usize;
        match (self.offsets.get(n), self.offsets.get(n + 1)) {
            (Some(&a), Some(&b)) => &self.entries[a as usize..b as usize],
            _ => &[],
        }
    }

    fn kind_slice(&self, node: u32, kind: EdgeKind) -> &[u32] {
        let all = self.node_slice(node);
        let lo = u32::from(kind.code()) << KIND_SHIFT;
        let start = all.partition_point(|&e| e < lo);
        let end = start + all[start..].partition_point(|&e| e >> KIND_SHIFT == u32::from(kind.code()));
        &all[start..end]
    }

    fn heap_bytes(&self) -> usize {
        (self.offsets.capacity() + self.entries.capacity()) * 4
    }
}

/// Both directions of every edge of the served generation (links across products included).
#[derive(Debug, Default)]
pub struct Adjacency {
    out: Csr,
    inc: Csr,
}

/// One edge: source, kind, target.
pub(crate) type Edge = (u32, EdgeKind, u32);

impl Adjacency {
    /// Builds from a walk over every out-edge; the in-direction is its transpose.
    pub(crate) fn build(node_count: usize, walk: EdgeWalk<'_>) -> Result<Self> {
        let out = Csr::build(node_count, &|f| {
            walk(&mut |(src, kind, dst)| {
                if (dst as usize) < node_count {
                    f(src, pack(kind, dst));
                }
            })
        })?;
        let inc = Csr::build(node_count, &|f| {
            for src in 0..node_count as u32 {
                for &e in out.node_slice(src) {
                    f(e & ID_MASK, (e & !ID_MASK) | src);
                }
            }
        })?;
        Ok(Adjacency { out, inc })
    }

    fn csr(&self, dir: Direction) -> &Csr {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inc,
        }
    }

    /// The number of node slots (the largest id + 1).
    pub fn node_slots(&self) -> usize {
        self.out.offsets.len().saturating_sub(1)
    }

    /// The number of edges (each counted once).
    pub fn edge_count(&self) -> u64 {
        self.out.entries.len() as u64
    }

    /// Heap bytes held by both directions.
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
            for &node in &frontier {
                for &kind in kinds {
                    for &e in csr.kind_slice(node, kind) {
                        let id = e & ID_MASK;
                        if mark(id, &mut visited) {
                            next.push(id);
                        }
                    }
                }
            }
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
        Adjacency::build(n, &|f| edges.iter().for_each(|&e| f(e))).expect("builds")
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
}
