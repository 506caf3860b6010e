//! Writing one product's graph: stream it in, then commit it whole or not at all.
//!
//! An index run writes under node ids that no reader can see (fresh or purged ids, outside
//! every served product), with the write-ahead log off and in bounded batches: adjacency
//! and sets as merge operands that RocksDB unions, so memory stays flat whatever the size
//! of the product. The commit flushes those writes to disk, then makes them visible with one
//! synced write of the catalog. A process that dies before that write leaves the previous
//! graph served; its partial data is purged on the next open.

use std::collections::HashMap;
use std::time::Instant;

use roaring::RoaringBitmap;
use rocksdb::{FlushOptions, WriteBatch, WriteOptions};

use crate::adjacency::Adjacency;
use crate::codec;
use crate::error::{Result, StoreError};
use crate::link::{self, LinkDecl};
use crate::model::{
    ContentKind, EdgeAttrs, EdgeKind, IndexRun, LinkPolicy, NewNode, Node, NodeFlags, NodeId, NodeKind,
    ProductId, ProductInfo, RunStatus, Warning,
};
use crate::store::{
    self, flag_set_name, kind_set_name, GraphState, ProductRecord, ProductState, Retired, Staging, Store,
    CF_ADJ_IN, CF_ADJ_OUT, CF_CONTENT, CF_EDGE_ATTRS, CF_LINKS, CF_LINK_EDGES, CF_NAMES, CF_NODES, CF_SETS,
};

/// Edges buffered before they are written as merge operands.
const EDGE_BUFFER: usize = 4_000_000;
/// Bytes of records buffered before a batch is written.
const BATCH_BYTES: usize = 8 << 20;

/// What a commit did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitSummary {
    /// The run's id.
    pub run: u64,
    /// The generation now served.
    pub generation: u64,
    /// Nodes written.
    pub nodes: u64,
    /// Edges written (within the product).
    pub edges: u64,
    /// Cross-product link edges now in the whole graph.
    pub links: u64,
    /// Link references of the whole graph left without an edge.
    pub unlinked: u64,
    /// Milliseconds from begin to commit.
    pub elapsed_ms: u64,
}

/// An index run of one product. Dropping it without [`ProductWriter::commit`] aborts the run.
pub struct ProductWriter {
    store: Store,
    product: ProductId,
    name: String,
    area: String,
    run: u64,
    started: Instant,
    started_at_ms: u64,
    free: RoaringBitmap,
    next_id: u32,
    nodes: RoaringBitmap,
    kinds: Vec<RoaringBitmap>,
    /// The nodes carrying each flag of [`NodeFlags::ALL`].
    flagged: Vec<RoaringBitmap>,
    batch: WriteBatch,
    /// Buffered edges: (source, kind, target).
    edge_buffer: Vec<(u32, EdgeKind, u32)>,
    edges: u64,
    sets: HashMap<String, RoaringBitmap>,
    buffered_set_ids: usize,
    decls: Vec<(u32, LinkDecl)>,
    decl_seq: HashMap<u32, u32>,
    warnings: Vec<Warning>,
    timings: Vec<(String, u64)>,
    stats: Vec<(String, u64)>,
    done: bool,
}

impl std::fmt::Debug for ProductWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProductWriter")
            .field("product", &self.name)
            .field("run", &self.run)
            .finish()
    }
}

fn staging_write() -> WriteOptions {
    let mut w = WriteOptions::default();
    w.disable_wal(true);
    w
}

fn valid_name(what: &'static str, value: &str) -> Result<()> {
    if value.is_empty() || value.len() > 200 || value.chars().any(|c| c.is_control()) {
        return Err(StoreError::Invalid {
            what,
            reason: format!("'{value}' must be 1 to 200 printable characters"),
        });
    }
    Ok(())
}

impl Store {
    /// Begins an index run that will replace product `name` (in `area`) when committed.
    ///
    /// The store has one writer: a second concurrent run is refused.
    pub fn begin(&self, name: &str, area: &str) -> Result<ProductWriter> {
        valid_name("product name", name)?;
        valid_name("area", area)?;
        if self.inner.read_only {
            return Err(StoreError::ReadOnly);
        }
        {
            let mut writing = self.inner.writing.lock();
            if let Some(product) = writing.as_ref() {
                return Err(StoreError::WriterBusy {
                    product: product.clone(),
                });
            }
            *writing = Some(name.to_string());
        }
        match self.begin_locked(name, area) {
            Ok(w) => Ok(w),
            Err(e) => {
                *self.inner.writing.lock() = None;
                Err(e)
            }
        }
    }

    fn begin_locked(&self, name: &str, area: &str) -> Result<ProductWriter> {
        let inner = &self.inner;
        let mut guard = inner.catalog.lock();
        let (catalog, free) = &mut *guard;
        self.collect_garbage(catalog, free)?;
        let product = match catalog.products.iter().find(|p| p.name == name) {
            Some(p) => ProductId(p.id),
            None => ProductId(catalog.next_product),
        };
        let run = catalog.next_run.max(1);
        let started_at_ms = now_ms();
        catalog.next_run = run + 1;
        catalog.staging = Some(Staging {
            run,
            product: product.0,
            started_at_ms,
        });
        let mut batch = WriteBatch::default();
        store::put_catalog(inner, &mut batch, catalog, free);
        inner.db.write_opt(batch, &store::sync_write())?;
        Ok(ProductWriter {
            store: self.clone(),
            product,
            name: name.to_string(),
            area: area.to_string(),
            run,
            started: Instant::now(),
            started_at_ms,
            free: free.clone(),
            next_id: catalog.next_id,
            nodes: RoaringBitmap::new(),
            kinds: vec![RoaringBitmap::new(); NodeKind::ALL.len()],
            flagged: vec![RoaringBitmap::new(); NodeFlags::ALL.len()],
            batch: WriteBatch::default(),
            edge_buffer: Vec::new(),
            edges: 0,
            sets: HashMap::new(),
            buffered_set_ids: 0,
            decls: Vec::new(),
            decl_seq: HashMap::new(),
            warnings: Vec::new(),
            timings: Vec::new(),
            stats: Vec::new(),
            done: false,
        })
    }
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

impl ProductWriter {
    /// The product this run writes.
    pub fn product(&self) -> ProductId {
        self.product
    }

    /// The run's id.
    pub fn run(&self) -> u64 {
        self.run
    }

    fn allocate(&mut self) -> Result<u32> {
        if let Some(id) = self.free.min() {
            self.free.remove(id);
            return Ok(id);
        }
        if self.next_id > NodeId::MAX {
            return Err(StoreError::TooManyNodes { max: NodeId::MAX });
        }
        let id = self.next_id;
        self.next_id += 1;
        Ok(id)
    }

    /// Adds a node and returns its id.
    pub fn add_node(&mut self, new: NewNode) -> Result<NodeId> {
        let kind = new.kind.ok_or_else(|| StoreError::MissingKind {
            name: new.name.clone(),
        })?;
        let id = self.allocate()?;
        let mut attrs = new.attrs;
        attrs.sort();
        attrs.dedup_by(|a, b| a.0 == b.0);
        let node = Node {
            id: NodeId(id),
            kind,
            product: self.product,
            name: new.name,
            fqn: new.fqn,
            file: new.file,
            span: new.span,
            flags: new.flags,
            attrs,
        };
        let inner = &self.store.inner;
        self.batch
            .put_cf(inner.cf(CF_NODES), codec::id_key(id), codec::encode_record(&node));
        for key in store::name_keys(&node, id) {
            self.batch.put_cf(inner.cf(CF_NAMES), key, []);
        }
        self.nodes.insert(id);
        self.kinds[kind.code() as usize].insert(id);
        for (set, (flag, _)) in self.flagged.iter_mut().zip(NodeFlags::ALL) {
            if node.flags.contains(*flag) {
                set.insert(id);
            }
        }
        self.maybe_flush_batch()?;
        Ok(NodeId(id))
    }

    fn own(&self, from: NodeId, to: NodeId) -> Result<()> {
        if self.nodes.contains(from.0) && self.nodes.contains(to.0) {
            Ok(())
        } else {
            Err(StoreError::ForeignNode { from, to })
        }
    }

    /// Adds an edge between two nodes of this run.
    pub fn add_edge(&mut self, from: NodeId, kind: EdgeKind, to: NodeId) -> Result<()> {
        self.own(from, to)?;
        self.edge_buffer.push((from.0, kind, to.0));
        self.edges += 1;
        if self.edge_buffer.len() >= EDGE_BUFFER {
            self.flush_edges()?;
        }
        Ok(())
    }

    /// Adds an edge with facts about it (call-site lines, how it was found).
    pub fn add_edge_with(
        &mut self,
        from: NodeId,
        kind: EdgeKind,
        to: NodeId,
        attrs: &EdgeAttrs,
    ) -> Result<()> {
        self.add_edge(from, kind, to)?;
        let inner = &self.store.inner;
        self.batch.put_cf(
            inner.cf(CF_EDGE_ATTRS),
            codec::edge_key(from.0, kind, to.0),
            codec::encode_record(attrs),
        );
        self.maybe_flush_batch()
    }

    /// Stores content (source, SQL, a config value, text) of a node of this run.
    pub fn set_content(&mut self, node: NodeId, kind: ContentKind, text: &str) -> Result<()> {
        self.own(node, node)?;
        let inner = &self.store.inner;
        self.batch.put_cf(
            inner.cf(CF_CONTENT),
            codec::content_key(node.0, kind.code()),
            text.as_bytes(),
        );
        self.maybe_flush_batch()
    }

    /// Adds a node to the named set `name` of this product (`term:retry`, `public-methods`…).
    pub fn add_to_set(&mut self, name: &str, node: NodeId) -> Result<()> {
        self.own(node, node)?;
        if name.starts_with('@') {
            return Err(StoreError::Invalid {
                what: "set name",
                reason: format!("'{name}': names starting with '@' are the store's own"),
            });
        }
        self.sets.entry(name.to_string()).or_default().insert(node.0);
        self.buffered_set_ids += 1;
        if self.buffered_set_ids >= EDGE_BUFFER {
            self.flush_sets()?;
        }
        Ok(())
    }

    fn add_decl(&mut self, node: NodeId, decl: LinkDecl) -> Result<()> {
        self.own(node, node)?;
        let seq = self.decl_seq.entry(node.0).or_insert(0);
        let key = codec::link_decl_key(node.0, *seq);
        *seq += 1;
        let inner = &self.store.inner;
        self.batch
            .put_cf(inner.cf(CF_LINKS), key, codec::encode_record(&decl));
        self.decls.push((node.0, decl));
        self.maybe_flush_batch()
    }

    /// Declares that `node` answers to `key` (an endpoint to its service, verb and route).
    pub fn add_anchor(&mut self, node: NodeId, key: &str) -> Result<()> {
        self.add_decl(node, LinkDecl::Anchor { key: key.to_string() })
    }

    /// Declares that `from` wants a `kind` edge to whatever node of any product answers to
    /// `key`; resolved at every commit of any product.
    pub fn add_link(&mut self, from: NodeId, kind: EdgeKind, key: &str, policy: LinkPolicy) -> Result<()> {
        self.add_decl(
            from,
            LinkDecl::Ref {
                kind,
                key: key.to_string(),
                policy,
            },
        )
    }

    /// Records a file-level problem met by the run.
    pub fn warn(&mut self, warning: Warning) {
        self.warnings.push(warning);
    }

    /// Records how long a phase took.
    pub fn record_timing(&mut self, phase: &str, elapsed: std::time::Duration) {
        self.timings.push((phase.to_string(), elapsed.as_millis() as u64));
    }

    /// Records an indexer-defined counter (`calls.unresolved`…), adding to any earlier value.
    pub fn record_stat(&mut self, name: &str, value: u64) {
        match self.stats.iter_mut().find(|(n, _)| n == name) {
            Some((_, v)) => *v += value,
            None => self.stats.push((name.to_string(), value)),
        }
    }

    fn maybe_flush_batch(&mut self) -> Result<()> {
        if self.batch.size_in_bytes() >= BATCH_BYTES {
            self.flush_batch()?;
        }
        Ok(())
    }

    fn flush_batch(&mut self) -> Result<()> {
        let batch = std::mem::take(&mut self.batch);
        self.store.inner.db.write_opt(batch, &staging_write())?;
        Ok(())
    }

    /// Writes the buffered edges as merge operands, one id list per (node, kind) and
    /// direction: sorting groups them, so no per-edge hashing is needed.
    fn flush_edges(&mut self) -> Result<()> {
        let inner = &self.store.inner;
        let mut edges = std::mem::take(&mut self.edge_buffer);
        let mut batch = WriteBatch::default();
        for direction in [CF_ADJ_OUT, CF_ADJ_IN] {
            if direction == CF_ADJ_IN {
                for e in edges.iter_mut() {
                    *e = (e.2, e.1, e.0);
                }
            }
            edges.sort_unstable();
            edges.dedup();
            for group in edges.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
                let (node, kind, _) = group[0];
                let ids = RoaringBitmap::from_sorted_iter(group.iter().map(|e| e.2)).unwrap_or_default();
                batch.merge_cf(
                    inner.cf(direction),
                    codec::adj_key(node, kind),
                    codec::encode_ids(&ids),
                );
                if batch.size_in_bytes() >= BATCH_BYTES {
                    inner.db.write_opt(std::mem::take(&mut batch), &staging_write())?;
                }
            }
        }
        inner.db.write_opt(batch, &staging_write())?;
        edges.clear();
        self.edge_buffer = edges;
        Ok(())
    }

    fn flush_sets(&mut self) -> Result<()> {
        let inner = &self.store.inner;
        let mut batch = WriteBatch::default();
        for (name, ids) in self.sets.drain() {
            batch.merge_cf(
                inner.cf(CF_SETS),
                codec::set_key(self.run, &name),
                codec::encode_ids(&ids),
            );
        }
        inner.db.write_opt(batch, &staging_write())?;
        self.buffered_set_ids = 0;
        Ok(())
    }

    /// Makes the run's graph the served graph of its product, atomically, and re-links
    /// every product's cross-product references.
    pub fn commit(mut self) -> Result<CommitSummary> {
        let result = self.commit_inner();
        self.done = true;
        *self.store.inner.writing.lock() = None;
        if result.is_err() {
            self.abort_quietly();
        }
        result
    }

    fn commit_inner(&mut self) -> Result<CommitSummary> {
        let commit_started = Instant::now();
        self.flush_batch()?;
        self.flush_edges()?;
        self.flush_sets()?;
        let store = self.store.clone();
        let inner = &store.inner;
        {
            let mut batch = WriteBatch::default();
            batch.put_cf(
                inner.cf(CF_SETS),
                codec::set_key(self.run, store::SET_NODES),
                codec::encode_ids(&self.nodes),
            );
            for &kind in NodeKind::ALL {
                let set = &self.kinds[kind.code() as usize];
                if !set.is_empty() {
                    batch.put_cf(
                        inner.cf(CF_SETS),
                        codec::set_key(self.run, &kind_set_name(kind)),
                        codec::encode_ids(set),
                    );
                }
            }
            // Written even when empty: a run without them predates flag sets (see load_state).
            for (set, (_, name)) in self.flagged.iter().zip(NodeFlags::ALL) {
                batch.put_cf(
                    inner.cf(CF_SETS),
                    codec::set_key(self.run, &flag_set_name(name)),
                    codec::encode_ids(set),
                );
            }
            inner.db.write_opt(batch, &staging_write())?;
        }
        // Everything staged reaches disk before the commit record can.
        let mut flush = FlushOptions::default();
        flush.set_wait(true);
        let cfs: Vec<_> = [
            CF_NODES,
            CF_NAMES,
            CF_ADJ_OUT,
            CF_ADJ_IN,
            CF_EDGE_ATTRS,
            CF_SETS,
            CF_CONTENT,
            CF_LINKS,
        ]
        .iter()
        .map(|&n| inner.cf(n))
        .collect();
        inner.db.flush_cfs_opt(&cfs, &flush)?;

        let mut guard = inner.catalog.lock();
        let (catalog, free) = &mut *guard;
        let old = inner.served.read().clone();
        let old_nodes = old
            .products
            .iter()
            .find(|p| p.info.id == self.product)
            .map(|p| p.nodes.clone())
            .unwrap_or_default();
        let old_run = catalog
            .products
            .iter()
            .find(|p| p.id == self.product.0)
            .map(|p| p.run);

        let next = self.next_state(&old, &old_nodes)?;
        // The old generation stays alive only through real readers, so the purge below can run.
        drop(old);

        let generation = catalog.generation + 1;
        let mut new_catalog = catalog.clone();
        new_catalog.generation = generation;
        new_catalog.next_id = self.next_id;
        new_catalog.next_product = new_catalog.next_product.max(self.product.0 + 1);
        new_catalog.staging = None;
        let record = ProductRecord {
            id: self.product.0,
            name: self.name.clone(),
            area: self.area.clone(),
            run: self.run,
            node_count: self.nodes.len(),
        };
        match new_catalog.products.iter_mut().find(|p| p.id == self.product.0) {
            Some(p) => *p = record,
            None => new_catalog.products.push(record),
        }
        if !old_nodes.is_empty() || old_run.is_some() {
            new_catalog.retired.push(Retired {
                generation,
                run: old_run,
                ids: codec::encode_ids(&old_nodes),
            });
        }
        let mut new_free = free.clone();
        new_free -= &self.nodes;

        let mut batch = WriteBatch::default();
        store::put_run(inner, &mut batch, &self.run_record(RunStatus::Committed));
        batch.delete_range_cf(inner.cf(CF_LINK_EDGES), &[][..], &[0xffu8; 10][..]);
        for &(s, k, d) in &next.links {
            batch.put_cf(inner.cf(CF_LINK_EDGES), codec::edge_key(s, k, d), []);
        }
        store::put_catalog(inner, &mut batch, &new_catalog, &new_free);
        inner.db.write_opt(batch, &store::sync_write())?;

        *catalog = new_catalog;
        *free = new_free;
        let mut next = next;
        next.generation = generation;
        let summary = CommitSummary {
            run: self.run,
            generation,
            nodes: self.nodes.len(),
            edges: self.edges,
            links: next.links.len() as u64,
            unlinked: next.unlinked.len() as u64,
            elapsed_ms: self.started.elapsed().as_millis() as u64,
        };
        store.publish(next);
        if let Err(e) = store.collect_garbage(catalog, free) {
            tracing::warn!(error = %e, "purging the replaced generation failed; it will be retried");
        }
        tracing::debug!(
            product = %self.name,
            commit_ms = commit_started.elapsed().as_millis() as u64,
            "committed"
        );
        Ok(summary)
    }

    /// The generation after this commit: `old` with this product replaced and links redone.
    fn next_state(&self, old: &GraphState, old_nodes: &RoaringBitmap) -> Result<GraphState> {
        let inner = &self.store.inner;
        let mut products: Vec<ProductState> = old
            .products
            .iter()
            .filter(|p| p.info.id != self.product)
            .cloned()
            .collect();
        products.push(ProductState {
            info: ProductInfo {
                id: self.product,
                name: self.name.clone(),
                area: self.area.clone(),
                run: self.run,
                node_count: self.nodes.len(),
            },
            nodes: self.nodes.clone(),
            kinds: self.kinds.clone(),
            flagged: self.flagged.clone(),
        });
        products.sort_by(|a, b| a.info.name.cmp(&b.info.name));
        let mut live = RoaringBitmap::new();
        let mut kinds = vec![RoaringBitmap::new(); NodeKind::ALL.len()];
        let mut flagged = vec![RoaringBitmap::new(); NodeFlags::ALL.len()];
        for p in &products {
            live |= &p.nodes;
            for (all, set) in kinds.iter_mut().zip(&p.kinds) {
                *all |= set;
            }
            for (all, set) in flagged.iter_mut().zip(&p.flagged) {
                *all |= set;
            }
        }
        let mut decls: Vec<(u32, LinkDecl)> = old
            .decls
            .iter()
            .filter(|(n, _)| !old_nodes.contains(*n))
            .cloned()
            .collect();
        decls.extend(self.decls.iter().cloned());
        let resolution = link::resolve(&decls);

        // This run's out-edges, read back in id order (RocksDB has merged the operands).
        let mut fresh: HashMap<u32, Vec<(EdgeKind, RoaringBitmap)>> = HashMap::new();
        if let (Some(lo), Some(hi)) = (self.nodes.min(), self.nodes.max()) {
            let mut opts = rocksdb::ReadOptions::default();
            opts.set_iterate_upper_bound(codec::id_key(hi.saturating_add(1)).to_vec());
            let iter = inner.db.iterator_cf_opt(
                inner.cf(CF_ADJ_OUT),
                opts,
                rocksdb::IteratorMode::From(&codec::id_key(lo), rocksdb::Direction::Forward),
            );
            for item in iter {
                let (key, value) = item?;
                let (Some(src), Some(kind)) = (
                    codec::id_from_key(&key),
                    key.get(4).and_then(|&c| EdgeKind::from_code(c)),
                ) else {
                    continue;
                };
                if self.nodes.contains(src) {
                    fresh
                        .entry(src)
                        .or_default()
                        .push((kind, codec::decode_ids(CF_ADJ_OUT, &value)?));
                }
            }
        }
        let old_links: std::collections::HashSet<(u32, EdgeKind, u32)> = old.links.iter().copied().collect();
        // Only these nodes have link edges to leave out; every other node copies its list.
        let link_sources: RoaringBitmap = old.links.iter().map(|e| e.0).collect();
        let slots = store::slot_count(&live);
        let old_adj = &old.adjacency;
        let links = &resolution.edges;
        let adjacency = Adjacency::build(slots, &|f| {
            for src in &live {
                if let Some(lists) = fresh.get(&src) {
                    for (kind, ids) in lists {
                        ids.iter().for_each(|dst| f((src, *kind, dst)));
                    }
                } else {
                    let has_links = link_sources.contains(src);
                    for (kind, dst) in old_adj.edges(NodeId(src), crate::model::Direction::Out) {
                        if !has_links || !old_links.contains(&(src, kind, dst.0)) {
                            f((src, kind, dst.0));
                        }
                    }
                }
            }
            links.iter().for_each(|&e| f(e));
        })?;
        Ok(GraphState {
            generation: old.generation,
            products,
            live,
            kinds,
            flagged,
            adjacency,
            decls,
            links: resolution.edges,
            unlinked: resolution.unlinked,
        })
    }

    fn run_record(&self, status: RunStatus) -> IndexRun {
        IndexRun {
            id: self.run,
            product: self.product,
            started_at_ms: self.started_at_ms,
            finished_at_ms: now_ms(),
            status,
            counts: NodeKind::ALL
                .iter()
                .filter_map(|&k| {
                    let n = self.kinds[k.code() as usize].len();
                    (n > 0).then(|| (k.as_str().to_string(), n))
                })
                .collect(),
            edges: self.edges,
            timings: self.timings.clone(),
            stats: self.stats.clone(),
            warnings: self.warnings.clone(),
        }
    }

    /// Abandons the run: nothing it wrote becomes visible, and its ids are purged.
    pub fn abort(mut self) -> Result<()> {
        self.done = true;
        *self.store.inner.writing.lock() = None;
        self.abort_inner()
    }

    fn abort_quietly(&mut self) {
        if let Err(e) = self.abort_inner() {
            tracing::warn!(error = %e, run = self.run, "recording an aborted index run failed; the next open cleans up");
        }
    }

    fn abort_inner(&mut self) -> Result<()> {
        let store = self.store.clone();
        let inner = &store.inner;
        let mut guard = inner.catalog.lock();
        let (catalog, free) = &mut *guard;
        catalog.staging = None;
        // Ids taken from the high watermark are written to disk maybe; keep them accounted.
        catalog.next_id = catalog.next_id.max(self.next_id);
        // Allocated ids leave the free list until purged; none was ever visible.
        *free -= &self.nodes;
        catalog.retired.push(Retired {
            generation: 0,
            run: Some(self.run),
            ids: codec::encode_ids(&self.nodes),
        });
        let mut batch = WriteBatch::default();
        store::put_run(inner, &mut batch, &self.run_record(RunStatus::Interrupted));
        store::put_catalog(inner, &mut batch, catalog, free);
        inner.db.write_opt(batch, &store::sync_write())?;
        store.collect_garbage(catalog, free)
    }
}

impl Drop for ProductWriter {
    fn drop(&mut self) {
        if !self.done {
            self.done = true;
            *self.store.inner.writing.lock() = None;
            self.abort_quietly();
        }
    }
}
