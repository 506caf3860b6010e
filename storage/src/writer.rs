//! Writing one product's graph: stream it in, then commit it whole or not at all.
//!
//! An index run writes under node ids that no reader can see (fresh or purged ids, outside
//! every served product). The indexing thread only allocates ids and keeps the run's node
//! sets; its writes go to a staging thread (`staging.rs`) that turns them into sorted SST
//! files and ingests them, in bounded runs, so memory stays flat whatever the size of the
//! product and the indexing thread never waits on RocksDB. The commit waits for the last
//! of those files, then makes the run visible with one synced write of the catalog, and
//! swaps in the next in-memory generation, rebuilding only the adjacency pages the product
//! touches. A process that dies before the catalog write leaves the previous graph served;
//! its partial data is purged on the next open.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use roaring::RoaringBitmap;
use rocksdb::WriteBatch;
use rustc_hash::FxHashMap;

use crate::adjacency::Update;
use crate::codec;
use crate::error::{Result, StoreError};
use crate::link::{self, LinkDecl, ProductLinks};
use crate::model::{
    ContentKind, EdgeAttrs, EdgeKind, IndexRun, LinkPolicy, NewNode, Node, NodeFlags, NodeId, NodeKind,
    ProductId, ProductInfo, RunStatus, Warning,
};
use crate::staging::{IdSpace, Op, Stage};
use crate::store::{
    self, flag_set_name, kind_set_name, GraphState, ProductRecord, ProductState, Retired, Staging, Store,
    CF_ADJ_IN, CF_ADJ_OUT, CF_LINK_EDGES,
};

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
    /// Milliseconds of the commit that built the next generation in memory: the links
    /// resolved again, and the adjacency of a process that answers questions.
    pub graph_ms: u64,
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
    /// The staging thread that writes the run.
    stage: Stage,
    edges: u64,
    sets: HashMap<String, RoaringBitmap>,
    buffered_set_ids: usize,
    /// The run's link declarations, as the next generation resolves them.
    links: ProductLinks,
    decl_seq: FxHashMap<u32, u32>,
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
        let ids = IdSpace {
            free: free.clone(),
            next: catalog.next_id,
        };
        let stage = Stage::start(self, run, ids)?;
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
            stage,
            edges: 0,
            sets: HashMap::new(),
            buffered_set_ids: 0,
            links: ProductLinks::default(),
            decl_seq: FxHashMap::default(),
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
        let node = Node {
            id: NodeId(id),
            kind,
            product: self.product,
            name: new.name,
            fqn: new.fqn,
            file: new.file,
            span: new.span,
            flags: new.flags,
            attrs: new.attrs,
        };
        self.nodes.insert(id);
        self.kinds[kind.code() as usize].insert(id);
        for (set, (flag, _)) in self.flagged.iter_mut().zip(NodeFlags::ALL) {
            if node.flags.contains(*flag) {
                set.insert(id);
            }
        }
        self.stage.push(Op::Node(node))?;
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
        self.edges += 1;
        self.stage.push(Op::Edge(from.0, kind, to.0))
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
        self.stage.push(Op::EdgeAttrs(from.0, kind, to.0, attrs.clone()))
    }

    /// Stores content (source, SQL, a config value, text) of a node of this run.
    pub fn set_content(&mut self, node: NodeId, kind: ContentKind, text: &str) -> Result<()> {
        self.own(node, node)?;
        self.stage
            .push(Op::Content(node.0, kind.code(), text.to_string()))
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
        match self.sets.get_mut(name) {
            Some(set) => {
                set.insert(node.0);
            }
            None => {
                self.sets.insert(name.to_string(), [node.0].into_iter().collect());
            }
        }
        self.buffered_set_ids += 1;
        // Set members cost about 4 bytes each until they go to the staging thread.
        if self.buffered_set_ids * 16 >= self.store.inner.options.staging_bytes {
            self.flush_sets()?;
        }
        Ok(())
    }

    fn add_decl(&mut self, node: NodeId, decl: LinkDecl) -> Result<()> {
        self.own(node, node)?;
        let seq = self.decl_seq.entry(node.0).or_insert(0);
        let at = *seq;
        *seq += 1;
        self.links.push(node.0, &decl);
        self.stage.push(Op::Decl(node.0, at, decl))
    }

    /// Declares that `node` answers to `key` (an endpoint to its service, verb and route).
    /// A key spelled for this call is taken as it is, not copied.
    pub fn add_anchor(&mut self, node: NodeId, key: impl Into<String>) -> Result<()> {
        self.add_decl(node, LinkDecl::Anchor { key: key.into() })
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

    fn flush_sets(&mut self) -> Result<()> {
        if self.sets.is_empty() {
            return Ok(());
        }
        self.buffered_set_ids = 0;
        self.stage.push(Op::Sets(std::mem::take(&mut self.sets)))
    }

    /// Makes the run's graph the served graph of its product, atomically, and re-links
    /// every product's cross-product references.
    pub fn commit(mut self) -> Result<CommitSummary> {
        let result = self.commit_inner();
        // Outside the catalog's lock. The commit is durable (in the write-ahead log) either
        // way; a failed flush leaves the memtables to RocksDB's own.
        if result.is_ok() {
            if let Err(e) = self.store.flush_memtables() {
                tracing::warn!(error = %e, "flushing the memtables after a commit failed");
            }
        }
        self.done = true;
        *self.store.inner.writing.lock() = None;
        if result.is_err() {
            self.abort_quietly();
        }
        result
    }

    fn commit_inner(&mut self) -> Result<CommitSummary> {
        let commit_started = Instant::now();
        self.flush_sets()?;
        let mut last_sets = vec![(
            codec::set_key(self.run, store::SET_NODES),
            codec::encode_ids(&self.nodes),
        )];
        for &kind in NodeKind::ALL {
            let set = &self.kinds[kind.code() as usize];
            if !set.is_empty() {
                last_sets.push((
                    codec::set_key(self.run, &kind_set_name(kind)),
                    codec::encode_ids(set),
                ));
            }
        }
        // Written even when empty: a run without them predates flag sets (see load_state).
        for (set, (_, name)) in self.flagged.iter().zip(NodeFlags::ALL) {
            last_sets.push((
                codec::set_key(self.run, &flag_set_name(name)),
                codec::encode_ids(set),
            ));
        }
        // Everything staged is in the store's files before the commit record can be written.
        self.stage.finish(last_sets)?;
        let staged_ms = commit_started.elapsed().as_millis() as u64;
        let store = self.store.clone();
        let inner = &store.inner;

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

        let state_started = Instant::now();
        let next = self.next_state(&old, &old_nodes)?;
        let state_ms = state_started.elapsed().as_millis() as u64;
        self.timings.push(("commit.staged".to_string(), staged_ms));
        self.timings.push(("commit.graph".to_string(), state_ms));
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
        store::forget_old_runs(inner, &mut batch, self.product, self.run);
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
            graph_ms: state_ms,
        };
        store.publish(next);
        if let Err(e) = store.collect_garbage(catalog, free) {
            tracing::warn!(error = %e, "purging the replaced generation failed; it will be retried");
        }
        tracing::debug!(
            product = %self.name,
            staged_ms,
            state_ms,
            commit_ms = commit_started.elapsed().as_millis() as u64,
            "committed"
        );
        Ok(summary)
    }

    /// The generation after this commit: `old` with this product replaced and links redone.
    /// Only the adjacency pages holding a node of the old or the new run, or a node whose
    /// link edges changed, are rebuilt; the new run's lists are read back in id order (one
    /// scan per direction, RocksDB having merged the run's operands).
    fn next_state(&mut self, old: &GraphState, old_nodes: &RoaringBitmap) -> Result<GraphState> {
        let mut products: Vec<Arc<ProductState>> = old
            .products
            .iter()
            .filter(|p| p.info.id != self.product)
            .cloned()
            .collect();
        if !old.links_loaded {
            // A process that only writes reads the other products' declarations now.
            let owners: Vec<&RoaringBitmap> = products.iter().map(|p| &p.nodes).collect();
            let declared = self.store.read_links(&owners)?;
            products = products
                .iter()
                .zip(declared)
                .map(|(p, links)| {
                    Arc::new(ProductState {
                        info: p.info.clone(),
                        nodes: p.nodes.clone(),
                        kinds: p.kinds.clone(),
                        flagged: p.flagged.clone(),
                        links,
                        // A process that only writes keeps no name filter.
                        names: None,
                    })
                })
                .collect();
        }
        products.push(Arc::new(ProductState {
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
            links: {
                let mut links = std::mem::take(&mut self.links);
                links.seal();
                links
            },
            names: self.store.name_filter(self.run)?,
        }));
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
        let answers = |node: u32, key: &str| self.store.answers_to(node, key);
        let resolution = if old.links_loaded {
            // The old generation's resolution is whole: only what this product's
            // declarations can change is resolved again.
            let empty = ProductLinks::default();
            let replaced = old
                .products
                .iter()
                .find(|p| p.info.id == self.product)
                .map_or(&empty, |p| &p.links);
            let fresh = products
                .iter()
                .find(|p| p.info.id == self.product)
                .map_or(&empty, |p| &p.links);
            link::resolve_replacing(
                products.iter().map(|p| &p.links),
                replaced,
                fresh,
                old_nodes,
                (&old.links, &old.unlinked),
                answers,
            )?
        } else {
            link::resolve(products.iter().map(|p| &p.links), answers)?
        };
        let (adjacency, shadowed) = if !self.store.inner.options.serves_queries {
            // Nobody reads this process's adjacency: none is built (see `StoreOptions`).
            Default::default()
        } else {
            let mut stored_out = self.store.stored_lists(CF_ADJ_OUT, &self.nodes);
            let mut stored_in = self.store.stored_lists(CF_ADJ_IN, &self.nodes);
            old.adjacency.update(
                &Update {
                    slots: store::slot_count(&live),
                    fresh: &self.nodes,
                    cleared: old_nodes,
                    old_links: &old.links,
                    old_shadowed: &old.shadowed,
                    new_links: &resolution.edges,
                },
                &mut stored_out,
                &mut stored_in,
            )?
        };
        Ok(GraphState {
            generation: old.generation,
            products,
            live,
            kinds,
            flagged,
            adjacency,
            links: resolution.edges,
            shadowed,
            unlinked: resolution.unlinked,
            links_loaded: true,
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
        // Nothing more of the run may reach the store once its ids are purged.
        self.stage.abandon();
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
