//! An index run's writes, off the indexing thread and around the memtables.
//!
//! The indexing thread only allocates ids and keeps the run's node sets; everything it
//! writes travels in batches over a bounded channel to one staging thread. That thread
//! encodes records and name keys, keeps one sorted run per column family in memory, and
//! when the runs reach their byte budget writes each as an SST file into the run's own
//! folder (`<store>/ingest/<run>/`). The commit ingests those files into the store, one
//! call per column family (RocksDB's `IngestExternalFile`: no memtable, no write-ahead log,
//! no flush), under the run's node ids, which no reader can see; then one synced catalog
//! write makes them visible. A run that is abandoned, or a process that dies before the
//! commit, leaves only files in that folder, removed with it (or on the next open).
//!
//! Memory is bounded by design: the channel holds at most [`CHANNEL_BATCHES`] batches of at
//! most [`BATCH_OPS`] operations or [`BATCH_BYTES`] bytes, and the sorted runs together at
//! most `staging_bytes` ([`crate::StoreOptions`], 64 MiB by default; past it the largest is
//! written out) — counted as what their vectors have reserved, so the bound is the memory
//! held, not the bytes written into it. A product of any size is a sequence of such runs:
//! later runs of the sets family are merge operands that RocksDB unions, the other
//! families overlap nowhere or are ordered by ingestion — except `names`, keyed by run
//! first (each run of them spans the run's range), `links`, whose declarations may come
//! long after their node's range was written out, and the adjacency families, whose edges
//! (calls, found in the second pass) reach across the whole product at any time. Their
//! runs would overlap and land in level 0, to be compacted; they are written out as plain
//! sorted files instead and merged at the end (a node's adjacency lists unioned), so they
//! too are ingested at the bottom level (in parts of the key range, one per core, since
//! the end of the run waits for the merge). What is buffered when
//! the run ends is written family by family side by side, one thread each, while the
//! indexing thread waits for the commit.
//!
//! A file of a family keyed by node id never spans an id of another run: it is cut where
//! one lies between two of its keys ([`IdSpace`]). Ingested over nothing, each goes to the
//! bottom level, and a purge later drops it whole (see `Store::purge_ids`).
//!
//! Files are ingested nodes first, so a node's name keys never reach the store before its
//! record does: whatever part of a run is in the store can be purged through its records.

use std::collections::HashMap;
use std::io::{Read, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use roaring::RoaringBitmap;
use rocksdb::{IngestExternalFileOptions, SstFileWriter};

use crate::codec;
use crate::error::{Result, StoreError};
use crate::link::LinkDecl;
use crate::model::{EdgeAttrs, EdgeKind, Node};
use crate::store::{
    self, Store, CF_ADJ_IN, CF_ADJ_OUT, CF_CONTENT, CF_EDGE_ATTRS, CF_LINKS, CF_NAMES, CF_NODES, CF_SETS,
};

/// Operations per batch sent to the staging thread.
const BATCH_OPS: usize = 4_096;
/// Bytes (of names and content) per batch, whichever bound comes first.
const BATCH_BYTES: usize = 1 << 20;
/// Batches in flight: past this the indexing thread waits for the staging thread.
const CHANNEL_BATCHES: usize = 4;
/// Bytes all sorted runs of the staging thread may hold before the largest is written out,
/// unless the store is opened with another [`crate::StoreOptions::staging_bytes`].
pub(crate) const DEFAULT_STAGING_BYTES: usize = 64 << 20;
/// Bytes one buffered edge costs (source, kind, target, padding).
const EDGE_BYTES: usize = std::mem::size_of::<(u32, EdgeKind, u32)>();

/// SST files written, in the order written.
type Files = Vec<PathBuf>;

/// The folder, inside the store's directory, where SST files are written before ingestion.
pub(crate) const INGEST_DIR: &str = "ingest";

/// One write of an index run.
pub(crate) enum Op {
    /// A node record and its name keys.
    Node(Node),
    /// An edge within the run.
    Edge(u32, EdgeKind, u32),
    /// Facts about an edge.
    EdgeAttrs(u32, EdgeKind, u32, EdgeAttrs),
    /// Content of a node.
    Content(u32, u8, String),
    /// A link declaration of a node, with its sequence number within the node.
    Decl(u32, u32, LinkDecl),
    /// Named sets, as id lists to union into what is stored.
    Sets(HashMap<String, RoaringBitmap>),
}

impl Op {
    fn bytes(&self) -> usize {
        match self {
            Op::Node(n) => 64 + n.name.len() * 2 + n.fqn.as_ref().map_or(0, |f| f.len() * 2),
            Op::Content(_, _, text) => 16 + text.len(),
            Op::Sets(sets) => sets.values().map(|s| s.serialized_size()).sum(),
            _ => 32,
        }
    }
}

enum Msg {
    Ops(Vec<Op>),
    /// Write everything out, with these last records of the `sets` family (the run's own
    /// node, kind and flag sets), and stop.
    Finish(Vec<(Vec<u8>, Vec<u8>)>),
}

/// The indexing thread's end of the staging thread.
pub(crate) struct Stage {
    tx: Option<SyncSender<Msg>>,
    thread: Option<JoinHandle<Result<()>>>,
    failed: Arc<AtomicBool>,
    ops: Vec<Op>,
    bytes: usize,
}

impl std::fmt::Debug for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stage")
            .field("buffered", &self.ops.len())
            .finish()
    }
}

impl Stage {
    /// Starts the staging thread of run `run`, which is given ids from `ids`.
    pub(crate) fn start(store: &Store, run: u64, ids: IdSpace) -> Result<Stage> {
        let dir = store.inner.path.join(INGEST_DIR).join(run.to_string());
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, e))?;
        let (tx, rx) = sync_channel(CHANNEL_BATCHES);
        let failed = Arc::new(AtomicBool::new(false));
        let mut stager = Stager::new(store.clone(), run, ids, dir, failed.clone());
        let thread = std::thread::Builder::new()
            .name("semgraph-stage".into())
            .spawn(move || stager.run(rx))
            .map_err(StoreError::Io)?;
        Ok(Stage {
            tx: Some(tx),
            thread: Some(thread),
            failed,
            ops: Vec::with_capacity(BATCH_OPS),
            bytes: 0,
        })
    }

    /// Queues one write; sends the batch when it is full.
    pub(crate) fn push(&mut self, op: Op) -> Result<()> {
        self.bytes += op.bytes();
        self.ops.push(op);
        if self.ops.len() >= BATCH_OPS || self.bytes >= BATCH_BYTES {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> Result<()> {
        if self.failed.load(Ordering::Relaxed) {
            return Err(self.stop());
        }
        let ops = std::mem::replace(&mut self.ops, Vec::with_capacity(BATCH_OPS));
        self.bytes = 0;
        if ops.is_empty() {
            return Ok(());
        }
        let sent = self.tx.as_ref().map(|tx| tx.send(Msg::Ops(ops)).is_ok());
        match sent {
            Some(true) => Ok(()),
            _ => Err(self.stop()),
        }
    }

    /// The staging thread's error, once it has stopped.
    fn stop(&mut self) -> StoreError {
        self.tx = None;
        match self.join() {
            Err(e) => e,
            Ok(()) => StoreError::Invalid {
                what: "index run",
                reason: "its staging thread stopped before the run ended".into(),
            },
        }
    }

    fn join(&mut self) -> Result<()> {
        match self.thread.take() {
            Some(t) => t.join().unwrap_or_else(|_| {
                Err(StoreError::Invalid {
                    what: "index run",
                    reason: "its staging thread panicked".into(),
                })
            }),
            None => Ok(()),
        }
    }

    /// Writes everything out, `last_sets` included, and waits until it is in the store.
    pub(crate) fn finish(&mut self, last_sets: Vec<(Vec<u8>, Vec<u8>)>) -> Result<()> {
        self.send()?;
        let sent = self.tx.take().map(|tx| tx.send(Msg::Finish(last_sets)).is_ok());
        let joined = self.join();
        match (sent, joined) {
            (_, Err(e)) => Err(e),
            (Some(true), Ok(())) => Ok(()),
            _ => Err(StoreError::Invalid {
                what: "index run",
                reason: "its staging thread stopped before the run ended".into(),
            }),
        }
    }

    /// Abandons what is buffered and waits for the staging thread to stop: after this
    /// returns, nothing more of the run reaches the store.
    pub(crate) fn abandon(&mut self) {
        self.ops.clear();
        self.tx = None;
        if let Err(e) = self.join() {
            tracing::debug!(error = %e, "the staging thread of an abandoned run had failed");
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        self.abandon();
    }
}

fn io_error(path: &Path, e: std::io::Error) -> StoreError {
    let detail = format!("{}: {e}", path.display());
    if matches!(e.raw_os_error(), Some(28 | 27 | 122)) {
        StoreError::DiskFull { detail }
    } else {
        StoreError::Io(e)
    }
}

/// Whether an entry of a sorted run replaces what is stored or is unioned into it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Write {
    Put,
    /// An id list merged by `semgraph.id_union.v1`.
    Merge,
}

/// The entries of one column family waiting to be written, in arrival order.
struct SortedRun {
    cf: &'static str,
    data: Vec<u8>,
    /// (offset in `data`, key length, value length, write).
    entries: Vec<(u32, u32, u32, Write)>,
}

impl SortedRun {
    fn new(cf: &'static str) -> SortedRun {
        SortedRun {
            cf,
            data: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// The memory the run holds: what its vectors have reserved, not only what they
    /// hold (a vector that doubles may hold half of what it took).
    fn bytes(&self) -> usize {
        self.data.capacity() + self.entries.capacity() * std::mem::size_of::<(u32, u32, u32, Write)>()
    }

    fn add(&mut self, key: &[u8], value: &[u8], write: Write) {
        // A run is written out long before it could reach 4 GiB.
        let at = self.data.len() as u32;
        self.data.extend_from_slice(key);
        self.data.extend_from_slice(value);
        self.entries
            .push((at, key.len() as u32, value.len() as u32, write));
    }

    fn key(&self, e: &(u32, u32, u32, Write)) -> &[u8] {
        &self.data[e.0 as usize..(e.0 + e.1) as usize]
    }

    fn value(&self, e: &(u32, u32, u32, Write)) -> &[u8] {
        let start = (e.0 + e.1) as usize;
        &self.data[start..start + e.2 as usize]
    }

    /// The entries' indices sorted by key; equal keys stay in arrival order.
    fn order(&self) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.entries.len() as u32).collect();
        order.sort_by(|a, b| {
            self.key(&self.entries[*a as usize])
                .cmp(self.key(&self.entries[*b as usize]))
        });
        order
    }

    /// Writes the run as SST files, sorted; of equal keys the last put wins and merges
    /// are unioned (in arrival order, as a write batch would have applied them). With an
    /// `ids` space (the column family is keyed by node id first), a new file begins
    /// wherever an id the run cannot hold lies between two keys, so that no file spans
    /// another run's ids: each is ingested at the bottom level, and later purged whole.
    /// Returns the files written (none when the run was empty).
    fn write(
        &mut self,
        options: &rocksdb::Options,
        ids: Option<&IdSpace>,
        next_path: impl FnMut() -> PathBuf,
    ) -> Result<Vec<PathBuf>> {
        if self.entries.is_empty() {
            return Ok(Vec::new());
        }
        let order = self.order();
        let mut out = CutWriter::new(options, ids, next_path);
        let mut i = 0;
        while i < order.len() {
            let first = &self.entries[order[i] as usize];
            let mut j = i + 1;
            while j < order.len() && self.key(&self.entries[order[j] as usize]) == self.key(first) {
                j += 1;
            }
            let group = &order[i..j];
            let key = self.key(first);
            // A put replaces what came before it; merges after it are unioned into it.
            let from = group
                .iter()
                .rposition(|&k| self.entries[k as usize].3 == Write::Put)
                .unwrap_or(0);
            let head = &self.entries[group[from] as usize];
            if group.len() - from == 1 {
                out.add(key, self.value(head), head.3)?;
            } else {
                // Only id lists are ever merged.
                let mut ids = RoaringBitmap::new();
                for &k in &group[from..] {
                    ids |= codec::decode_ids(self.cf, self.value(&self.entries[k as usize]))?;
                }
                out.add(key, &codec::encode_ids(&ids), head.3)?;
            }
            i = j;
        }
        let written = out.finish()?;
        self.data = Vec::new();
        self.entries = Vec::new();
        Ok(written)
    }
}

/// SST files written from keys in order: with an id space (a family keyed by node id
/// first), a new file begins wherever an id the run cannot hold lies between two keys.
struct CutWriter<'a, P: FnMut() -> PathBuf> {
    options: &'a rocksdb::Options,
    ids: Option<&'a IdSpace>,
    next_path: P,
    writer: Option<SstFileWriter<'a>>,
    last_id: Option<u32>,
    written: Vec<PathBuf>,
}

impl<'a, P: FnMut() -> PathBuf> CutWriter<'a, P> {
    fn new(options: &'a rocksdb::Options, ids: Option<&'a IdSpace>, next_path: P) -> Self {
        CutWriter {
            options,
            ids,
            next_path,
            writer: None,
            last_id: None,
            written: Vec::new(),
        }
    }

    /// Adds `key` (greater than every key added before) with `value`.
    fn add(&mut self, key: &[u8], value: &[u8], write: Write) -> Result<()> {
        if let Some(space) = self.ids {
            let id = codec::id_from_key(key);
            if let (Some(a), Some(b)) = (self.last_id, id) {
                if space.foreign_between(a, b) {
                    if let Some(mut w) = self.writer.take() {
                        w.finish()?;
                    }
                }
            }
            self.last_id = id.or(self.last_id);
        }
        let writer = match &mut self.writer {
            Some(w) => w,
            None => {
                let path = (self.next_path)();
                let w = SstFileWriter::create(self.options);
                w.open(&path)?;
                self.written.push(path);
                self.writer.insert(w)
            }
        };
        match write {
            Write::Put => writer.put(key, value)?,
            Write::Merge => writer.merge(key, value)?,
        }
        Ok(())
    }

    /// Finishes the last file; the files written, in key order.
    fn finish(mut self) -> Result<Vec<PathBuf>> {
        if let Some(mut w) = self.writer.take() {
            w.finish()?;
        }
        Ok(self.written)
    }
}

/// The node ids a run may be given: the free ids, then every id from `next` on. A run
/// takes them in increasing order, so two of its ids have another run's id between them
/// only if an id outside this space lies there.
#[derive(Clone, Debug)]
pub(crate) struct IdSpace {
    pub(crate) free: RoaringBitmap,
    pub(crate) next: u32,
}

impl IdSpace {
    /// Whether some id strictly between `a` and `b` is not the run's to take. Every id from
    /// `next` on is the run's, so only the gap's part below `next` is looked up, and only
    /// the words of the free set that cover it are read (a rank would count from the
    /// start of its container, for every key of a re-index's files).
    fn foreign_between(&self, a: u32, b: u32) -> bool {
        let lo = a.saturating_add(1);
        let below_next = b.min(self.next);
        lo < below_next && !self.free.contains_range(lo..below_next)
    }
}

/// The staging thread: sorted runs per column family, written out and ingested.
struct Stager {
    store: Store,
    dir: PathBuf,
    /// Files written so far (each file's name is numbered).
    files: AtomicU32,
    /// Files written and not yet ingested, per column family, in the order written.
    pending: Vec<(&'static str, PathBuf)>,
    nodes: SortedRun,
    names: SortedRun,
    /// Runs of `names` and `links` written out past the budget, each sorted, in the order
    /// written: merged at the end (see [`Stager::spill`]).
    spilled: Vec<Spilled>,
    attrs: SortedRun,
    content: SortedRun,
    links: SortedRun,
    sets: SortedRun,
    run: u64,
    edges: Vec<(u32, EdgeKind, u32)>,
    /// The ids the run may be given, where its files are cut.
    ids: IdSpace,
    failed: Arc<AtomicBool>,
}

impl Stager {
    fn new(store: Store, run: u64, ids: IdSpace, dir: PathBuf, failed: Arc<AtomicBool>) -> Stager {
        Stager {
            store,
            dir,
            files: AtomicU32::new(0),
            pending: Vec::new(),
            nodes: SortedRun::new(CF_NODES),
            names: SortedRun::new(CF_NAMES),
            spilled: Vec::new(),
            attrs: SortedRun::new(CF_EDGE_ATTRS),
            content: SortedRun::new(CF_CONTENT),
            links: SortedRun::new(CF_LINKS),
            sets: SortedRun::new(CF_SETS),
            run,
            edges: Vec::new(),
            ids,
            failed,
        }
    }

    fn run(&mut self, rx: Receiver<Msg>) -> Result<()> {
        let result = self.serve(&rx);
        if result.is_err() {
            self.failed.store(true, Ordering::Relaxed);
        }
        // Whatever was not ingested is dropped with the folder.
        if let Err(e) = std::fs::remove_dir_all(&self.dir) {
            tracing::debug!(error = %e, dir = %self.dir.display(), "removing the staging folder failed");
        }
        result
    }

    fn serve(&mut self, rx: &Receiver<Msg>) -> Result<()> {
        // A closed channel without `Finish` is an abandoned run: stop, write nothing more.
        while let Ok(msg) = rx.recv() {
            match msg {
                Msg::Ops(ops) => {
                    for op in ops {
                        self.apply(op);
                        self.keep_within_budget()?;
                    }
                }
                Msg::Finish(last_sets) => {
                    for (key, value) in last_sets {
                        self.sets.add(&key, &value, Write::Put);
                    }
                    self.write_all()?;
                    return self.ingest_all();
                }
            }
        }
        Ok(())
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Node(mut node) => {
                node.attrs.sort();
                node.attrs.dedup_by(|a, b| a.0 == b.0);
                let id = node.id.0;
                self.nodes
                    .add(&codec::id_key(id), &codec::encode_record(&node), Write::Put);
                for key in store::name_keys(self.run, &node, id) {
                    self.names.add(&key, &[], Write::Put);
                }
            }
            Op::Edge(src, kind, dst) => self.edges.push((src, kind, dst)),
            Op::EdgeAttrs(src, kind, dst, attrs) => self.attrs.add(
                &codec::edge_key(src, kind, dst),
                &codec::encode_record(&attrs),
                Write::Put,
            ),
            Op::Content(id, kind, text) => {
                self.content
                    .add(&codec::content_key(id, kind), text.as_bytes(), Write::Put)
            }
            Op::Decl(id, seq, decl) => self.links.add(
                &codec::link_decl_key(id, seq),
                &codec::encode_record(&decl),
                Write::Put,
            ),
            Op::Sets(sets) => {
                for (name, ids) in sets {
                    self.sets.add(
                        &codec::set_key(self.run, &name),
                        &codec::encode_ids(&ids),
                        Write::Merge,
                    );
                }
            }
        }
    }

    /// The memory each buffer holds, in the order `keep_within_budget` writes them out.
    fn sizes(&self) -> [usize; 7] {
        [
            self.nodes.bytes(),
            self.names.bytes(),
            self.attrs.bytes(),
            self.content.bytes(),
            self.links.bytes(),
            self.sets.bytes(),
            self.edges.capacity() * EDGE_BYTES,
        ]
    }

    fn buffered(&self) -> usize {
        self.sizes().iter().sum()
    }

    /// Writes out the largest runs until the rest fit in half the budget.
    fn keep_within_budget(&mut self) -> Result<()> {
        let budget = self.store.inner.options.staging_bytes;
        if self.buffered() <= budget {
            return Ok(());
        }
        while self.buffered() > budget / 2 {
            let sizes = self.sizes();
            let largest = (0..sizes.len()).max_by_key(|&i| sizes[i]).unwrap_or(0);
            match largest {
                0 => self.write_nodes()?,
                1 => self.spill(CF_NAMES)?,
                2 => self.write_sorted(Which::Attrs)?,
                3 => self.write_sorted(Which::Content)?,
                4 => self.spill(CF_LINKS)?,
                5 => self.write_sorted(Which::Sets)?,
                _ => self.write_edges()?,
            }
        }
        Ok(())
    }

    /// Writes every buffered run at the end of the index run. The families' files are
    /// independent, so they are written side by side: the indexing thread waits for this,
    /// and one thread alone would leave the other cores idle.
    fn write_all(&mut self) -> Result<()> {
        let mut runs = vec![
            std::mem::replace(&mut self.nodes, SortedRun::new(CF_NODES)),
            std::mem::replace(&mut self.names, SortedRun::new(CF_NAMES)),
        ];
        runs.extend(self.edge_runs());
        for slot in [
            &mut self.attrs,
            &mut self.content,
            &mut self.links,
            &mut self.sets,
        ] {
            let cf = slot.cf;
            runs.push(std::mem::replace(slot, SortedRun::new(cf)));
        }
        // A family with runs spilled is merged with them; the others are written as they are.
        let spilled = std::mem::take(&mut self.spilled);
        let (mut merged_runs, runs): (Vec<SortedRun>, Vec<SortedRun>) = runs
            .into_iter()
            .partition(|r| spilled.iter().any(|s| s.cf == r.cf));
        let mut runs: Vec<SortedRun> = runs.into_iter().filter(|r| !r.entries.is_empty()).collect();
        let this = &*self;
        let spilled = &spilled;
        let (written, merged): (Vec<Result<Files>>, Vec<Result<Files>>) = std::thread::scope(|scope| {
            let workers: Vec<_> = runs
                .iter_mut()
                .map(|run| scope.spawn(move || this.write_file(run)))
                .collect();
            let merges: Vec<_> = merged_runs
                .iter_mut()
                .map(|run| scope.spawn(move || this.merge(run, spilled)))
                .collect();
            let joined = |w| joined(w, "a thread writing its files panicked");
            (
                workers.into_iter().map(joined).collect(),
                merges.into_iter().map(joined).collect(),
            )
        });
        // In a fixed order, so that within a family the files stay in the order written.
        let families = runs.iter().chain(&merged_runs).map(|r| r.cf);
        for (cf, files) in families.zip(written.into_iter().chain(merged)) {
            for path in files? {
                self.pending.push((cf, path));
            }
        }
        Ok(())
    }

    /// Writes the run of `cf` (`names` or `links`) out past the budget as a plain file of
    /// its entries in key order (each key, then value, after its length as a little-endian
    /// `u32`; of equal keys the last put), for the end of the run to merge.
    ///
    /// Nodes, edge attributes and content are written as SST files: their runs cover
    /// ranges of ids that later runs do not reach back into. These families do: names are
    /// keyed by run first, so each run of them spans the run's whole range; a link
    /// declaration may come long after its node (a finding of the second pass); and the
    /// edges buffered at any time (calls, found in the second pass) start and end anywhere
    /// in the product. Ingested as they were, such files overlap each other and land in
    /// level 0, and RocksDB compacts them, rewriting the family's files of the run (and any
    /// other run's they overlap). Merged, they are files at the bottom level like the
    /// others, cut where other runs' ids lie.
    fn spill(&mut self, cf: &'static str) -> Result<()> {
        let slot = if cf == CF_NAMES {
            &mut self.names
        } else {
            &mut self.links
        };
        let run = std::mem::replace(slot, SortedRun::new(cf));
        self.spill_run(&run)
    }

    /// Writes `run` out as a plain sorted file (see [`Stager::spill`]).
    fn spill_run(&mut self, run: &SortedRun) -> Result<()> {
        if run.entries.is_empty() {
            return Ok(());
        }
        let cf = run.cf;
        let n = self.files.fetch_add(1, Ordering::Relaxed) + 1;
        let path = self.dir.join(format!("{n:06}-{cf}.spill"));
        let spilled = Spilled::write(run, path)?;
        self.spilled.push(spilled);
        Ok(())
    }

    /// Merges the spilled runs of `rest`'s family and `rest` itself (what is left in
    /// memory, the latest) into SST files; of equal keys the latest written wins, but for
    /// the adjacency families, whose runs each hold part of a node's edges, the id lists
    /// are unioned.
    ///
    /// This is the longest write at the end of a run (every name key of the product), and
    /// the indexing thread waits for it: the key range is cut into as many parts as there
    /// are cores (at most [`MAX_PARTS`]), at keys the spilled files marked, and each part is
    /// merged into its own files on its own thread. A part's files hold only its keys, so no
    /// two overlap.
    fn merge(&self, rest: &SortedRun, spilled: &[Spilled]) -> Result<Vec<PathBuf>> {
        let cf = rest.cf;
        let files: Vec<&Spilled> = spilled.iter().filter(|s| s.cf == cf).collect();
        let order = rest.order();
        // Each part reads every spilled file of the family: the parts are bounded so that
        // a many-core machine and a product of many spills do not open more than
        // `MAX_OPEN_SPILLS` files between them.
        let parts = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_PARTS)
            .min((MAX_OPEN_SPILLS / files.len().max(1)).max(1));
        let bounds = split_keys(rest, &order, &files, parts);
        let options = store::cf_options(cf, &self.store.inner.cache);
        let ids = (cf != CF_NAMES).then_some(&self.ids);
        let equal_keys = if matches!(cf, CF_ADJ_OUT | CF_ADJ_IN) {
            EqualKeys::Union
        } else {
            EqualKeys::Latest
        };
        let merge_part = |lo: Option<&[u8]>, hi: Option<&[u8]>| -> Result<Vec<PathBuf>> {
            let next_path = || {
                let n = self.files.fetch_add(1, Ordering::Relaxed) + 1;
                self.dir.join(format!("{n:06}-{cf}.sst"))
            };
            let mut out = CutWriter::new(&options, ids, next_path);
            merge_range(rest, &order, &files, (lo, hi), equal_keys, |key, value| {
                out.add(key, value, Write::Put)
            })?;
            out.finish()
        };
        // Part k holds the keys from bound k - 1 (inclusive) to bound k (exclusive).
        let ranges: Vec<KeyRange<'_>> = (0..=bounds.len())
            .map(|k| {
                (
                    k.checked_sub(1).map(|b| bounds[b].as_slice()),
                    bounds.get(k).map(Vec::as_slice),
                )
            })
            .collect();
        if ranges.len() == 1 {
            return merge_part(None, None);
        }
        let merge_part = &merge_part;
        let written: Vec<Result<Vec<PathBuf>>> = std::thread::scope(|scope| {
            let workers: Vec<_> = ranges
                .iter()
                .map(|&(lo, hi)| scope.spawn(move || merge_part(lo, hi)))
                .collect();
            workers
                .into_iter()
                .map(|w| joined(w, "a thread merging its files panicked"))
                .collect()
        });
        let mut paths = Vec::new();
        for part in written {
            paths.extend(part?);
        }
        Ok(paths)
    }

    /// Writes `run` as SST files in the run's folder, numbered after every file before.
    fn write_file(&self, run: &mut SortedRun) -> Result<Vec<PathBuf>> {
        let options = store::cf_options(run.cf, &self.store.inner.cache);
        // Every family but the run-keyed ones is keyed by node id first.
        let ids = (!matches!(run.cf, CF_NAMES | CF_SETS)).then_some(&self.ids);
        let cf = run.cf;
        let next_path = || {
            let n = self.files.fetch_add(1, Ordering::Relaxed) + 1;
            self.dir.join(format!("{n:06}-{cf}.sst"))
        };
        run.write(&options, ids, next_path)
    }

    fn write_run(&mut self, run: &mut SortedRun) -> Result<()> {
        for path in self.write_file(run)? {
            self.pending.push((run.cf, path));
        }
        Ok(())
    }

    fn write_nodes(&mut self) -> Result<()> {
        let mut run = std::mem::replace(&mut self.nodes, SortedRun::new(CF_NODES));
        self.write_run(&mut run)
    }

    fn write_sorted(&mut self, which: Which) -> Result<()> {
        let slot = match which {
            Which::Attrs => &mut self.attrs,
            Which::Content => &mut self.content,
            Which::Sets => &mut self.sets,
        };
        let cf = slot.cf;
        let mut run = std::mem::replace(slot, SortedRun::new(cf));
        self.write_run(&mut run)
    }

    /// Writes the buffered edges out past the budget, as the adjacency families' plain
    /// sorted files (see [`Stager::spill`]): the end of the run merges them.
    fn write_edges(&mut self) -> Result<()> {
        for run in self.edge_runs() {
            self.spill_run(&run)?;
        }
        Ok(())
    }

    /// The buffered edges as one id list per (node, kind) in each direction, as the runs of
    /// the two adjacency families (empty when nothing is buffered): sorting groups them, so
    /// no per-edge hashing is needed.
    fn edge_runs(&mut self) -> [SortedRun; 2] {
        let mut edges = std::mem::take(&mut self.edges);
        [CF_ADJ_OUT, CF_ADJ_IN].map(|cf| {
            if cf == CF_ADJ_IN {
                for e in edges.iter_mut() {
                    *e = (e.2, e.1, e.0);
                }
            }
            edges.sort_unstable();
            edges.dedup();
            let mut run = SortedRun::new(cf);
            for group in edges.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
                let (node, kind, _) = group[0];
                let ids = RoaringBitmap::from_sorted_iter(group.iter().map(|e| e.2)).unwrap_or_default();
                run.add(&codec::adj_key(node, kind), &codec::encode_ids(&ids), Write::Put);
            }
            run
        })
    }

    /// Ingests every file written, one call per column family, nodes first (see the
    /// module doc); within a family later files win, as later writes would.
    fn ingest_all(&mut self) -> Result<()> {
        let inner = &self.store.inner;
        let mut opts = IngestExternalFileOptions::default();
        opts.set_move_files(true);
        for cf in [
            CF_NODES,
            CF_NAMES,
            CF_ADJ_OUT,
            CF_ADJ_IN,
            CF_EDGE_ATTRS,
            CF_CONTENT,
            CF_LINKS,
            CF_SETS,
        ] {
            let files: Vec<&PathBuf> = self
                .pending
                .iter()
                .filter(|(c, _)| *c == cf)
                .map(|(_, p)| p)
                .collect();
            if !files.is_empty() {
                inner
                    .db
                    .ingest_external_file_cf_opts(inner.cf(cf), &opts, files)?;
            }
        }
        self.pending.clear();
        Ok(())
    }
}

/// What a scoped writer thread returned; its panic is an error of the run, said as `panicked`.
fn joined<T>(worker: std::thread::ScopedJoinHandle<'_, Result<T>>, panicked: &str) -> Result<T> {
    worker.join().unwrap_or_else(|_| {
        Err(StoreError::Invalid {
            what: "index run",
            reason: panicked.into(),
        })
    })
}

/// One field of a spilled entry (a key or a value): its length as a little-endian `u32`,
/// then its bytes.
fn read_field(input: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    input.read_exact(&mut len)?;
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    input.read_exact(&mut bytes)?;
    Ok(bytes)
}

/// Entries of a spilled file between which a merge of part of the key range may start
/// reading it: one every [`MARK_EVERY`] entries.
const MARK_EVERY: u64 = 1_024;
/// Entries a part of a merge holds at least (over the family's spilled and in-memory runs):
/// below that, a thread costs more than it saves.
const MIN_PART_ENTRIES: u64 = 4 * MARK_EVERY;
/// Parts a merge is cut into at most: it runs beside the other families' writers, and the
/// commit waits for the slowest of them.
const MAX_PARTS: usize = 4;
/// Spilled files the parts of one merge may hold open together.
const MAX_OPEN_SPILLS: usize = 256;

/// Part of a family's keys: from the first (inclusive) to the second (exclusive), unbounded
/// where `None`.
type KeyRange<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// A run of `names` or `links` written out past the budget (see [`Stager::spill`]).
struct Spilled {
    cf: &'static str,
    path: PathBuf,
    /// Entries in the file.
    count: u64,
    /// The first entry and every [`MARK_EVERY`]th after it, where a reader may start.
    marks: Vec<Mark>,
}

/// An entry of a spilled file: its key and where it begins (the `k`th mark is entry
/// `k * MARK_EVERY`).
struct Mark {
    key: Vec<u8>,
    offset: u64,
}

impl Spilled {
    /// Writes `run`'s entries to `path` in key order (each key, then value, after its
    /// length as a little-endian `u32`; of equal keys the last put), marking every
    /// [`MARK_EVERY`]th.
    fn write(run: &SortedRun, path: PathBuf) -> Result<Spilled> {
        let file = std::fs::File::create(&path).map_err(|e| io_error(&path, e))?;
        let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
        let order = run.order();
        let mut count = 0u64;
        let mut offset = 0u64;
        let mut marks = Vec::new();
        for (i, &at) in order.iter().enumerate() {
            let entry = &run.entries[at as usize];
            let key = run.key(entry);
            // Only puts reach these families: of equal keys the last one written wins.
            if order
                .get(i + 1)
                .is_some_and(|&next| run.key(&run.entries[next as usize]) == key)
            {
                continue;
            }
            if count.is_multiple_of(MARK_EVERY) {
                marks.push(Mark {
                    key: key.to_vec(),
                    offset,
                });
            }
            let value = run.value(entry);
            out.write_all(&(key.len() as u32).to_le_bytes())
                .and_then(|()| out.write_all(key))
                .and_then(|()| out.write_all(&(value.len() as u32).to_le_bytes()))
                .and_then(|()| out.write_all(value))
                .map_err(|e| io_error(&path, e))?;
            offset += 8 + key.len() as u64 + value.len() as u64;
            count += 1;
        }
        out.flush().map_err(|e| io_error(&path, e))?;
        Ok(Spilled {
            cf: run.cf,
            path,
            count,
            marks,
        })
    }
}

/// Keys that cut a family's merge into at most `parts` parts of about equal size: quantiles
/// of the marks of its spilled files and of every [`MARK_EVERY`]th key of what is left in
/// memory (each stands for about as many entries), with no more parts than
/// [`MIN_PART_ENTRIES`] allows. Sorted and distinct; none when the family is too small to be
/// worth cutting.
fn split_keys(rest: &SortedRun, order: &[u32], files: &[&Spilled], parts: usize) -> Vec<Vec<u8>> {
    let total = files.iter().map(|f| f.count).sum::<u64>() + order.len() as u64;
    // Every part of at least `MIN_PART_ENTRIES`.
    let parts = parts.min(usize::try_from(total / MIN_PART_ENTRIES).unwrap_or(usize::MAX));
    if parts < 2 {
        return Vec::new();
    }
    let mut samples: Vec<&[u8]> = files
        .iter()
        .flat_map(|f| f.marks.iter().map(|m| m.key.as_slice()))
        .chain(
            order
                .iter()
                .step_by(MARK_EVERY as usize)
                .map(|&at| rest.key(&rest.entries[at as usize])),
        )
        .collect();
    samples.sort_unstable();
    let mut bounds: Vec<Vec<u8>> = (1..parts)
        .map(|k| samples[k * samples.len() / parts].to_vec())
        .collect();
    bounds.dedup();
    // A bound equal to the smallest key would leave the first part empty.
    if bounds.first().map(Vec::as_slice) == samples.first().copied() {
        bounds.remove(0);
    }
    bounds
}

/// What a merge writes for a key more than one source holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EqualKeys {
    /// The latest source's value (names, link declarations: puts).
    Latest,
    /// The union of every source's id list (adjacency: each run holds some of a node's
    /// edges).
    Union,
}

/// Merges the entries of `files` (oldest first) and of `rest` (sorted by `order`, the
/// latest) whose keys lie in `range` (from its first, inclusive, to its second, exclusive;
/// unbounded where `None`), in key order; of equal keys `out` is given what `equal_keys`
/// says.
fn merge_range(
    rest: &SortedRun,
    order: &[u32],
    files: &[&Spilled],
    (lo, hi): KeyRange<'_>,
    equal_keys: EqualKeys,
    mut out: impl FnMut(&[u8], &[u8]) -> Result<()>,
) -> Result<()> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    // Oldest first; what is in memory last.
    let mut sources: Vec<SpilledSource<'_>> = Vec::with_capacity(files.len() + 1);
    for spilled in files {
        sources.push(SpilledSource::open(spilled, lo, hi)?);
    }
    let below = |at: &u32, bound: &[u8]| rest.key(&rest.entries[*at as usize]) < bound;
    let start = lo.map_or(0, |lo| order.partition_point(|at| below(at, lo)));
    let end = hi.map_or(order.len(), |hi| order.partition_point(|at| below(at, hi)));
    sources.push(SpilledSource::Memory {
        run: rest,
        order: order[start..end].iter().peekable(),
    });
    let mut heap = BinaryHeap::with_capacity(sources.len());
    for (i, source) in sources.iter_mut().enumerate() {
        if let Some((key, value)) = source.next_entry()? {
            heap.push(Reverse((key, i, value)));
        }
    }
    // The union so far of the id lists of the key being merged, when more than one held it.
    let mut union: Option<RoaringBitmap> = None;
    while let Some(Reverse((key, i, value))) = heap.pop() {
        if let Some((k, v)) = sources[i].next_entry()? {
            heap.push(Reverse((k, i, v)));
        }
        // Equal keys pop in source order, the latest last.
        let more = heap.peek().is_some_and(|Reverse((next, _, _))| *next == key);
        match equal_keys {
            EqualKeys::Latest if more => continue,
            EqualKeys::Latest => out(&key, &value)?,
            EqualKeys::Union => {
                if !more && union.is_none() {
                    out(&key, &value)?;
                    continue;
                }
                let ids = codec::decode_ids(rest.cf, &value)?;
                let all = match union.take() {
                    Some(all) => all | ids,
                    None => ids,
                };
                if more {
                    union = Some(all);
                } else {
                    out(&key, &codec::encode_ids(&all))?;
                }
            }
        }
    }
    Ok(())
}

/// Where [`merge_range`] reads a family's entries from, in key order.
enum SpilledSource<'a> {
    /// A spilled run, with the number of entries not read yet and the key it stops before.
    File {
        path: &'a Path,
        input: std::io::BufReader<std::fs::File>,
        left: u64,
        hi: Option<&'a [u8]>,
    },
    /// What is still in memory, the part of it in the range.
    Memory {
        run: &'a SortedRun,
        order: std::iter::Peekable<std::slice::Iter<'a, u32>>,
    },
}

impl<'a> SpilledSource<'a> {
    /// A spilled file read from its first key at or past `lo` to before `hi`: from the
    /// last mark below `lo`, skipping what precedes `lo`.
    fn open(spilled: &'a Spilled, lo: Option<&[u8]>, hi: Option<&'a [u8]>) -> Result<SpilledSource<'a>> {
        use std::io::{Seek, SeekFrom};
        let path = spilled.path.as_path();
        let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
        let mut input = std::io::BufReader::with_capacity(1 << 16, file);
        let mut left = spilled.count;
        let Some(lo) = lo else {
            return Ok(SpilledSource::File {
                path,
                input,
                left,
                hi,
            });
        };
        let before = spilled.marks.partition_point(|m| m.key.as_slice() < lo);
        if let Some(k) = before.checked_sub(1) {
            input
                .seek(SeekFrom::Start(spilled.marks[k].offset))
                .map_err(|e| io_error(path, e))?;
            left -= k as u64 * MARK_EVERY;
        }
        // Entries below `lo`, all before the next mark, are read past.
        while left > 0 {
            let key = read_field(&mut input).map_err(|e| io_error(path, e))?;
            if key.as_slice() >= lo {
                // Back to this entry's start: its length word and key.
                input
                    .seek_relative(-(4 + key.len() as i64))
                    .map_err(|e| io_error(path, e))?;
                break;
            }
            let mut len = [0u8; 4];
            input.read_exact(&mut len).map_err(|e| io_error(path, e))?;
            input
                .seek_relative(i64::from(u32::from_le_bytes(len)))
                .map_err(|e| io_error(path, e))?;
            left -= 1;
        }
        Ok(SpilledSource::File {
            path,
            input,
            left,
            hi,
        })
    }

    fn next_entry(&mut self) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        match self {
            SpilledSource::File {
                path,
                input,
                left,
                hi,
            } => {
                if *left == 0 {
                    return Ok(None);
                }
                *left -= 1;
                let key = read_field(input).map_err(|e| io_error(path, e))?;
                if hi.is_some_and(|hi| key.as_slice() >= hi) {
                    *left = 0;
                    return Ok(None);
                }
                let value = read_field(input).map_err(|e| io_error(path, e))?;
                Ok(Some((key, value)))
            }
            SpilledSource::Memory { run, order } => {
                // Of equal keys (all puts), the last one written.
                while let Some(&at) = order.next() {
                    let entry = &run.entries[at as usize];
                    let key = run.key(entry);
                    if order
                        .peek()
                        .is_some_and(|&&next| run.key(&run.entries[next as usize]) == key)
                    {
                        continue;
                    }
                    return Ok(Some((key.to_vec(), run.value(entry).to_vec())));
                }
                Ok(None)
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Which {
    Attrs,
    Content,
    Sets,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A family's runs as a merge finds them: every run but the last spilled to a file in
    /// `dir` (oldest first), the last still in memory.
    fn spilled_and_rest(mut runs: Vec<SortedRun>, dir: &Path) -> (Vec<Spilled>, SortedRun) {
        let cf = runs.first().map_or(CF_NAMES, |r| r.cf);
        let rest = runs.pop().unwrap_or_else(|| SortedRun::new(cf));
        let files = runs
            .iter()
            .enumerate()
            .map(|(n, run)| Spilled::write(run, dir.join(format!("{n}.spill"))).expect("spilled"))
            .collect();
        (files, rest)
    }

    /// Every part of a merge cut at `bounds`, merged one after another: the entries given
    /// to the writer, in order.
    fn merged_in_parts(
        rest: &SortedRun,
        files: &[&Spilled],
        bounds: &[Vec<u8>],
        equal_keys: EqualKeys,
    ) -> Vec<(Vec<u8>, Vec<u8>)> {
        let order = rest.order();
        let mut merged = Vec::new();
        for k in 0..=bounds.len() {
            let lo = k.checked_sub(1).map(|b| bounds[b].as_slice());
            let hi = bounds.get(k).map(Vec::as_slice);
            merge_range(rest, &order, files, (lo, hi), equal_keys, |key, value| {
                merged.push((key.to_vec(), value.to_vec()));
                Ok(())
            })
            .expect("merged");
        }
        merged
    }

    proptest! {
        /// Cutting points agree with a count, id by id, of what lies between two ids. The
        /// free set is single ids and whole ranges, so it is stored as an array, a bitmap or
        /// runs, as a re-index's is.
        #[test]
        fn foreign_between_is_an_id_outside_the_space(
            free in proptest::collection::vec(0u32..12_000, 0..120),
            ranges in proptest::collection::vec((0u32..12_000, 0u32..6_000), 0..4),
            next in 0u32..12_000,
            a in 0u32..13_000,
            gap in 0u32..6_000,
        ) {
            let mut free: RoaringBitmap = free.into_iter().collect();
            for (start, len) in ranges {
                free.insert_range(start..start + len);
            }
            free.remove_range(next..);
            let space = IdSpace { free, next };
            let b = a + gap;
            let reference = (a.saturating_add(1)..b).any(|id| id < next && !space.free.contains(id));
            prop_assert_eq!(space.foreign_between(a, b), reference);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A merge cut into parts, at the keys `split_keys` picks or at any others, gives in
        /// order exactly the entries a map would hold after every run's puts in order.
        #[test]
        fn merged_parts_are_the_latest_entries_in_key_order(
            runs in proptest::collection::vec(
                proptest::collection::vec((0u32..20_000, 0u8..4), 0..3_000),
                1..5,
            ),
            cuts in proptest::collection::vec(0u32..21_000, 0..4),
            parts in 1usize..5,
        ) {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let key = |k: u32| format!("key-{k:06}").into_bytes();
            let mut reference = std::collections::BTreeMap::new();
            let runs: Vec<SortedRun> = runs
                .iter()
                .map(|entries| {
                    let mut run = SortedRun::new(CF_NAMES);
                    for &(k, v) in entries {
                        run.add(&key(k), &[v], Write::Put);
                        reference.insert(key(k), vec![v]);
                    }
                    run
                })
                .collect();
            let (files, rest) = spilled_and_rest(runs, dir.path());
            let files: Vec<&Spilled> = files.iter().collect();
            let order = rest.order();
            let expected: Vec<(Vec<u8>, Vec<u8>)> = reference.into_iter().collect();
            let mut chosen = split_keys(&rest, &order, &files, parts);
            prop_assert!(chosen.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(chosen.len() < parts.max(1));
            let total = files.iter().map(|f| f.count).sum::<u64>() + order.len() as u64;
            prop_assert!(chosen.is_empty() || (chosen.len() as u64 + 1) * MIN_PART_ENTRIES <= total);
            let mut arbitrary: Vec<Vec<u8>> = cuts.iter().map(|&k| key(k)).collect();
            arbitrary.sort();
            arbitrary.dedup();
            for bounds in [std::mem::take(&mut chosen), arbitrary] {
                let merged = merged_in_parts(&rest, &files, &bounds, EqualKeys::Latest);
                prop_assert_eq!(&merged, &expected);
            }
        }

        /// Adjacency buffered and written out in several runs, merged in parts: every
        /// node's list of each kind is the union of what every run held of it, once.
        #[test]
        fn merged_adjacency_is_the_union_of_every_run(
            runs in proptest::collection::vec(
                proptest::collection::vec((0u32..3_000, 0usize..3, 0u32..5_000), 0..3_000),
                1..5,
            ),
            parts in 1usize..5,
        ) {
            let dir = tempfile::tempdir().expect("a temporary folder");
            let kinds = [EdgeKind::Calls, EdgeKind::Contains, EdgeKind::Reads];
            let mut reference: std::collections::BTreeMap<Vec<u8>, RoaringBitmap> = Default::default();
            let runs: Vec<SortedRun> = runs
                .iter()
                .map(|edges| {
                    let mut lists: std::collections::BTreeMap<Vec<u8>, RoaringBitmap> = Default::default();
                    for &(src, kind, dst) in edges {
                        let key = codec::adj_key(src, kinds[kind]).to_vec();
                        lists.entry(key.clone()).or_default().insert(dst);
                        reference.entry(key).or_default().insert(dst);
                    }
                    let mut run = SortedRun::new(CF_ADJ_OUT);
                    for (key, ids) in &lists {
                        run.add(key, &codec::encode_ids(ids), Write::Put);
                    }
                    run
                })
                .collect();
            let (files, rest) = spilled_and_rest(runs, dir.path());
            let files: Vec<&Spilled> = files.iter().collect();
            let bounds = split_keys(&rest, &rest.order(), &files, parts);
            let merged: Vec<(Vec<u8>, RoaringBitmap)> = merged_in_parts(&rest, &files, &bounds, EqualKeys::Union)
                .into_iter()
                .map(|(key, ids)| (key, codec::decode_ids(CF_ADJ_OUT, &ids).expect("an id list")))
                .collect();
            let expected: Vec<(Vec<u8>, RoaringBitmap)> = reference.into_iter().collect();
            prop_assert_eq!(merged, expected);
        }
    }
}
