//! The store: one RocksDB directory, the served generation, and its readers.
//!
//! Readers take a [`Snapshot`]: an `Arc` of the served generation (which products, which
//! node ids are live, the in-memory adjacency) plus the database for nodes, names and
//! content. A commit builds the next generation beside the current one and swaps it in;
//! a snapshot keeps answering from the generation it was taken on. Node ids freed by a
//! re-index are purged and reused only once no snapshot of an older generation is alive,
//! so a reader never sees a record rewritten under it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use bincode::{Decode, Encode};
use parking_lot::{Mutex, RwLock};
use roaring::RoaringBitmap;
use rocksdb::{
    BlockBasedOptions, Cache, ColumnFamily, ColumnFamilyDescriptor, DBCompressionType,
    Direction as ScanDirection, IteratorMode, Options, ReadOptions, SliceTransform, WriteBatch, WriteOptions,
    DB,
};

use crate::adjacency::{self, Adjacency, Edge, StoredLists, Update};
use crate::codec::{self, NameIndex};
use crate::error::{Result, StoreError};
use crate::link::{self, LinkDecl, ProductLinks, UnlinkedRef};
use crate::model::{
    ContentKind, EdgeAttrs, EdgeKind, IndexRun, Node, NodeFlags, NodeId, NodeKind, ProductId, ProductInfo,
    RunStatus,
};
use crate::staging;

pub(crate) const CF_DEFAULT: &str = "default";
pub(crate) const CF_META: &str = "meta";
pub(crate) const CF_NODES: &str = "nodes";
pub(crate) const CF_NAMES: &str = "names";
pub(crate) const CF_ADJ_OUT: &str = "adj_out";
pub(crate) const CF_ADJ_IN: &str = "adj_in";
pub(crate) const CF_EDGE_ATTRS: &str = "edge_attrs";
pub(crate) const CF_SETS: &str = "sets";
pub(crate) const CF_CONTENT: &str = "content";
pub(crate) const CF_LINKS: &str = "links";
pub(crate) const CF_LINK_EDGES: &str = "link_edges";

const ALL_CFS: &[&str] = &[
    CF_DEFAULT,
    CF_META,
    CF_NODES,
    CF_NAMES,
    CF_ADJ_OUT,
    CF_ADJ_IN,
    CF_EDGE_ATTRS,
    CF_SETS,
    CF_CONTENT,
    CF_LINKS,
    CF_LINK_EDGES,
];

/// Column families keyed by node id first: purged by id range.
const ID_KEYED_CFS: &[&str] = &[
    CF_NODES,
    CF_ADJ_OUT,
    CF_ADJ_IN,
    CF_EDGE_ATTRS,
    CF_CONTENT,
    CF_LINKS,
];

const META_FORMAT: &[u8] = b"format_version";
const META_CATALOG: &[u8] = b"catalog";
const META_FREE: &[u8] = b"free";
const META_RUN_PREFIX: &[u8] = b"run/";

/// The set holding a run's node ids.
pub(crate) const SET_NODES: &str = "@nodes";

/// The set holding a run's node ids of one kind.
pub(crate) fn kind_set_name(kind: NodeKind) -> String {
    format!("@kind:{}", kind.as_str())
}

/// The set of a run's nodes carrying one flag of [`NodeFlags::ALL`].
pub(crate) fn flag_set_name(flag: &str) -> String {
    format!("@flag:{flag}")
}

/// What the store has committed, persisted whole under `meta/catalog` at every commit.
#[derive(Clone, Debug, Default, Encode, Decode)]
pub(crate) struct Catalog {
    pub(crate) generation: u64,
    pub(crate) next_id: u32,
    pub(crate) next_run: u64,
    pub(crate) next_product: u32,
    pub(crate) products: Vec<ProductRecord>,
    pub(crate) retired: Vec<Retired>,
    pub(crate) staging: Option<Staging>,
}

#[derive(Clone, Debug, Encode, Decode)]
pub(crate) struct ProductRecord {
    pub(crate) id: u32,
    pub(crate) name: String,
    pub(crate) area: String,
    pub(crate) run: u64,
    pub(crate) node_count: u64,
}

/// Ids that stopped being live at `generation`; purged once no older snapshot is alive.
#[derive(Clone, Debug, Encode, Decode)]
pub(crate) struct Retired {
    pub(crate) generation: u64,
    pub(crate) run: Option<u64>,
    pub(crate) ids: Vec<u8>,
}

/// An index run in progress; found on open only if the process died during it.
#[derive(Clone, Debug, Encode, Decode)]
pub(crate) struct Staging {
    pub(crate) run: u64,
    pub(crate) product: u32,
    pub(crate) started_at_ms: u64,
}

/// One product in the served generation; shared by every generation that serves the
/// same run of it.
#[derive(Debug)]
pub(crate) struct ProductState {
    pub(crate) info: ProductInfo,
    pub(crate) nodes: RoaringBitmap,
    pub(crate) kinds: Vec<RoaringBitmap>,
    /// The nodes carrying each flag of [`NodeFlags::ALL`].
    pub(crate) flagged: Vec<RoaringBitmap>,
    /// The product's link declarations (anchors and references), sealed.
    pub(crate) links: ProductLinks,
    /// The exact names its run holds, for a process that answers questions.
    pub(crate) names: Option<NameFilter>,
}

/// The exact names (fqns and simple names) of one run, as a filter held in memory: an
/// exact lookup asks it before it seeks the run's range of `names`, so of the fifty runs a
/// company serves it seeks the one or two that may hold the name. It has no false
/// negatives; a false positive (under 0.4%) costs a seek that finds nothing. About 9 bits a
/// name, built from the run's keys when the generation that serves it is loaded.
pub(crate) struct NameFilter(xorf::BinaryFuse8);

impl std::fmt::Debug for NameFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "NameFilter({} bytes)", self.0.fingerprints.len())
    }
}

impl NameFilter {
    /// Whether the run may hold the name of `fingerprint` ([`codec::name_fingerprint`]).
    fn may_hold(&self, fingerprint: u64) -> bool {
        use xorf::Filter;
        self.0.contains(&fingerprint)
    }
}

/// Everything a reader needs in memory about one generation.
#[derive(Debug)]
pub(crate) struct GraphState {
    pub(crate) generation: u64,
    pub(crate) products: Vec<Arc<ProductState>>,
    pub(crate) live: RoaringBitmap,
    pub(crate) kinds: Vec<RoaringBitmap>,
    /// The live nodes carrying each flag of [`NodeFlags::ALL`].
    pub(crate) flagged: Vec<RoaringBitmap>,
    pub(crate) adjacency: Adjacency,
    /// The resolved cross-product edges, sorted.
    pub(crate) links: Vec<Edge>,
    /// Those link edges that are also an edge of their product (they stay when the link goes).
    pub(crate) shadowed: HashSet<Edge>,
    pub(crate) unlinked: Vec<UnlinkedRef>,
    /// Whether every product's `links` are read. Not in a process that only writes, from
    /// its open to its first commit: link declarations are read by the commit that needs
    /// them, which never needs those of the product it replaces (see `StoreOptions`).
    pub(crate) links_loaded: bool,
}

impl GraphState {
    fn empty() -> Self {
        GraphState {
            generation: 0,
            products: Vec::new(),
            live: RoaringBitmap::new(),
            kinds: vec![RoaringBitmap::new(); NodeKind::ALL.len()],
            flagged: vec![RoaringBitmap::new(); NodeFlags::ALL.len()],
            adjacency: Adjacency::default(),
            links: Vec::new(),
            shadowed: HashSet::new(),
            unlinked: Vec::new(),
            links_loaded: true,
        }
    }
}

pub(crate) struct Inner {
    pub(crate) db: DB,
    pub(crate) path: PathBuf,
    /// The block cache every column family shares.
    pub(crate) cache: Cache,
    /// What the store was opened with.
    pub(crate) options: StoreOptions,
    pub(crate) read_only: bool,
    pub(crate) served: RwLock<Arc<GraphState>>,
    /// Older generations, alive while some snapshot holds them.
    held: Mutex<Vec<Weak<GraphState>>>,
    /// The committed catalog and free list; locked by the one writer.
    pub(crate) catalog: Mutex<(Catalog, RoaringBitmap)>,
    /// The product being indexed, if any.
    pub(crate) writing: Mutex<Option<String>>,
}

impl Inner {
    pub(crate) fn cf(&self, name: &'static str) -> &ColumnFamily {
        // Every column family in ALL_CFS is created on open, so the handle always exists.
        self.db
            .cf_handle(name)
            .unwrap_or_else(|| unreachable!("column family {name} is opened with the store"))
    }
}

/// A semgraph store on disk. Cheap to clone; every clone is the same store.
#[derive(Clone)]
pub struct Store {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("path", &self.inner.path).finish()
    }
}

/// Bytes all memtables together may hold before RocksDB flushes them. An index run writes
/// its graph around the memtables (it ingests SST files), so they hold only the catalog,
/// run records, the deletes of purges and the facts cache (which flushes at
/// [`FACTS_MEMTABLE_BYTES`]).
const MEMTABLE_BUDGET: usize = 64 << 20;

/// Bytes of one memtable of the facts cache (the `default` column family): an index run
/// holds at most two (one filling, one being flushed). 4 MiB rather than 8 took about 4 MB
/// off spring-boot's peak; the entries are written once and read back from their files.
const FACTS_MEMTABLE_BYTES: usize = 4 << 20;

/// Values of the facts cache at least this large are kept in blob files beside the table
/// files (see [`cf_options`]): a file's facts and resolved calls (a kilobyte or more) and
/// the products' lists of digests; only the smallest entries stay inline.
const FACTS_MIN_BLOB_BYTES: u64 = 256;

/// Flushed files of the facts cache that start a compaction (see `cf_options`).
const FACTS_L0_COMPACTION_TRIGGER: i32 = 16;

/// How a store is opened: the sizes of what it keeps in memory besides the served graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// Bytes of the block cache all column families share (uncompressed blocks of node
    /// records, names, content; index and filter blocks). The files stay in the operating
    /// system's page cache either way; this bounds what the process itself holds.
    pub block_cache_bytes: usize,
    /// Bytes an index run keeps in sorted runs on its staging thread before it writes the
    /// largest out as a file (see `staging.rs`): the bound on what indexing buffers for the
    /// store, whatever the size of the product.
    pub staging_bytes: usize,
    /// Whether the process answers questions from this store. `false` for a process that
    /// only writes (`semgraph index`): the in-memory adjacency of the served generation is
    /// then never built — not at open, not at a commit — which spares the time to read
    /// every stored list back and the memory to hold them (9 bytes an edge of the whole
    /// company). Nor are the link declarations read at open: its first commit reads those of
    /// the other products, never those of the product it replaces (on spring-boot alone,
    /// 68 ms of every re-index went to decoding the declarations it was about to replace).
    /// A snapshot of such a store has every node, set and name, but an empty adjacency and,
    /// until its first commit, no links: no caller, callee, traversal or link may be asked
    /// of it.
    pub serves_queries: bool,
}

/// The default [`StoreOptions::block_cache_bytes`].
pub const DEFAULT_BLOCK_CACHE_BYTES: usize = 64 << 20;

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            block_cache_bytes: DEFAULT_BLOCK_CACHE_BYTES,
            staging_bytes: staging::DEFAULT_STAGING_BYTES,
            serves_queries: true,
        }
    }
}

impl StoreOptions {
    /// For a process that only indexes (`semgraph index`): it reads each cached fact once
    /// or twice and serves no questions, so a block cache that holds the index and filter
    /// partitions it looks through is enough, its sorted runs are written out at a
    /// sixteenth of the size, and it keeps no adjacency in memory. (On spring-boot, sorted
    /// runs of 16 MB rather than 32 lowered the peak by 16 MB, 8 MB rather than 16 by
    /// another 7–10 MB, and 4 rather than 8 by a few more, at the same wall time: the
    /// staging thread writes more, smaller files, on the core the parse leaves idle.)
    pub fn for_indexing() -> StoreOptions {
        StoreOptions {
            block_cache_bytes: 16 << 20,
            staging_bytes: staging::DEFAULT_STAGING_BYTES / 16,
            serves_queries: false,
        }
    }
}

pub(crate) fn cf_options(name: &str, cache: &Cache) -> Options {
    let mut opts = Options::default();
    let mut block = BlockBasedOptions::default();
    block.set_block_cache(cache);
    block.set_bloom_filter(10.0, false);
    // Index and filter blocks live in the block cache, so its size bounds them too. They
    // are partitioned (a small top level, pinned, over 4 KB partitions) so that a lookup
    // in a large table file reads a partition, not a whole index of megabytes: an index
    // larger than a cache shard is never kept, and would be read again on every lookup.
    block.set_cache_index_and_filter_blocks(true);
    block.set_cache_index_and_filter_blocks_with_high_priority(true);
    block.set_index_type(rocksdb::BlockBasedIndexType::TwoLevelIndexSearch);
    block.set_partition_filters(true);
    block.set_metadata_block_size(4096);
    block.set_pin_top_level_index_and_filter(true);
    opts.set_block_based_table_factory(&block);
    opts.set_compression_type(DBCompressionType::Lz4);
    if matches!(name, CF_ADJ_OUT | CF_ADJ_IN | CF_SETS) {
        opts.set_merge_operator_associative("semgraph.id_union.v1", codec::merge_id_lists);
    }
    if matches!(name, CF_ADJ_OUT | CF_ADJ_IN | CF_NODES | CF_NAMES) {
        opts.set_write_buffer_size(64 << 20);
    }
    if name == CF_NAMES {
        // Names are keyed by run first, so an exact lookup seeks once per served run, and
        // all but one or two runs hold no such name. The filter of each table file answers
        // for the name without reading a data block (every other scan of the family is a
        // total-order scan, which ignores it).
        opts.set_prefix_extractor(SliceTransform::create(
            codec::NAME_PREFIX_EXTRACTOR,
            codec::name_key_prefix,
            Some(codec::is_name_key),
        ));
    }
    if name == CF_DEFAULT {
        // The facts cache: each entry is written once by an index run and read back once or
        // twice by it, so a large memtable would only keep a run's whole cache in memory
        // (60 MB of a 518 MB peak on spring-boot); flushed sooner, it is read from its file.
        opts.set_write_buffer_size(FACTS_MEMTABLE_BYTES);
        // Its keys are digests, so every flushed file overlaps the whole family: kept
        // inline, each compaction rewrote every entry cached so far (1.1 GB rewritten, 8 s
        // of CPU, while a 4M-line company was indexed). In blob files, written once at
        // flush, compaction moves only the keys and references. Blob garbage collection
        // stays off in background compactions: with it on, every compaction reaching the
        // keys of the oldest blob files copied their values again, garbage or not (635 MB
        // of blobs rewritten for 214 MB cached, 11 s of CPU, over the same company). A blob
        // file all of whose values are garbage is deleted without it; the rest is collected
        // by `Store::collect_facts_garbage` once garbage is half the blob files.
        opts.set_enable_blob_files(true);
        opts.set_min_blob_size(FACTS_MIN_BLOB_BYTES);
        opts.set_blob_compression_type(DBCompressionType::Lz4);
        opts.set_enable_blob_gc(false);
        // Every compaction of the family rewrites all its keys (each flushed file overlaps
        // them all), so compactions are made rarer: 16 flushed files at a time, not 4.
        // A lookup probes each such file's filter, which stays in the block cache.
        opts.set_level_zero_file_num_compaction_trigger(FACTS_L0_COMPACTION_TRIGGER);
        opts.set_level_zero_slowdown_writes_trigger(FACTS_L0_COMPACTION_TRIGGER * 3);
        opts.set_level_zero_stop_writes_trigger(FACTS_L0_COMPACTION_TRIGGER * 4);
    }
    opts
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

pub(crate) fn sync_write() -> WriteOptions {
    let mut w = WriteOptions::default();
    w.set_sync(true);
    w
}

impl Store {
    /// Opens (creating if needed) the store at `path` for reading and indexing.
    ///
    /// If the last index run died before its commit, its partial data is purged here and
    /// the run is recorded as interrupted; the previously committed graph is served.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        Self::open_with(path.as_ref(), false, &StoreOptions::default())
    }

    /// [`Store::open`] with the memory sizes of `options`.
    pub fn open_with_options(path: impl AsRef<Path>, options: &StoreOptions) -> Result<Store> {
        Self::open_with(path.as_ref(), false, options)
    }

    /// Opens an existing store read-only (e.g. while a server process owns it).
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store> {
        Self::open_with(path.as_ref(), true, &StoreOptions::default())
    }

    fn open_with(path: &Path, read_only: bool, options: &StoreOptions) -> Result<Store> {
        // Few shards: an entry larger than its shard's share of the cache is not kept.
        let mut lru = rocksdb::LruCacheOptions::default();
        lru.set_capacity(options.block_cache_bytes);
        lru.set_num_shard_bits(2);
        let cache = Cache::new_lru_cache_opts(&lru);
        let mut db_opts = Options::default();
        db_opts.create_if_missing(!read_only);
        db_opts.create_missing_column_families(!read_only);
        db_opts.increase_parallelism(2);
        db_opts.set_max_background_jobs(2);
        db_opts.set_atomic_flush(true);
        // One budget for every column family's memtables: without a shared bound eleven
        // families of 64 MB buffers could hold far more than anything writes through them.
        db_opts.set_db_write_buffer_size(MEMTABLE_BUDGET);
        let descriptors: Vec<ColumnFamilyDescriptor> = ALL_CFS
            .iter()
            .map(|&name| ColumnFamilyDescriptor::new(name, cf_options(name, &cache)))
            .collect();
        if !read_only {
            // Created here rather than by RocksDB, whose error would not name the directory.
            std::fs::create_dir_all(path).map_err(|e| StoreError::NotWritable {
                path: path.to_path_buf(),
                detail: e.to_string(),
            })?;
        }
        let db = if read_only {
            // A writer compacting at the same moment can delete a file the manifest still
            // names; the next attempt reads the newer manifest.
            let mut attempt = 0;
            loop {
                let descriptors: Vec<ColumnFamilyDescriptor> = ALL_CFS
                    .iter()
                    .map(|&name| ColumnFamilyDescriptor::new(name, cf_options(name, &cache)))
                    .collect();
                match DB::open_cf_descriptors_read_only(&db_opts, path, descriptors, false) {
                    Err(e) if attempt < 20 && e.to_string().contains("No such file") => {
                        attempt += 1;
                        std::thread::sleep(std::time::Duration::from_millis(25));
                    }
                    other => break other,
                }
            }
        } else {
            DB::open_cf_descriptors(&db_opts, path, descriptors)
        }
        .map_err(|e| open_error(path, read_only, e))?;
        if !read_only {
            // SST files of a run that died before ingesting them.
            match std::fs::remove_dir_all(path.join(staging::INGEST_DIR)) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e.into()),
                _ => {}
            }
        }
        let inner = Inner {
            db,
            path: path.to_path_buf(),
            cache,
            options: options.clone(),
            read_only,
            served: RwLock::new(Arc::new(GraphState::empty())),
            held: Mutex::new(Vec::new()),
            catalog: Mutex::new((Catalog::default(), RoaringBitmap::new())),
            writing: Mutex::new(None),
        };
        let store = Store {
            inner: Arc::new(inner),
        };
        let upgrade_from = store.check_format()?;
        let (mut catalog, mut free) = store.load_catalog()?;
        if upgrade_from == Some(1) {
            store.upgrade_names(&catalog)?;
        }
        if !read_only {
            store.recover(&mut catalog, &mut free)?;
        }
        let state = store.load_state(&catalog)?;
        *store.inner.served.write() = Arc::new(state);
        *store.inner.catalog.lock() = (catalog, free);
        Ok(store)
    }

    /// Checks the store's format version, writing it into a new store. An older version
    /// that this build upgrades in place is returned (and refused on a read-only open).
    fn check_format(&self) -> Result<Option<u32>> {
        let inner = &self.inner;
        match inner.db.get_cf(inner.cf(CF_META), META_FORMAT)? {
            Some(bytes) => {
                let found =
                    bytes
                        .as_slice()
                        .try_into()
                        .map(u32::from_be_bytes)
                        .map_err(|_| StoreError::Corrupt {
                            cf: CF_META,
                            reason: "format version is not 4 bytes".into(),
                        })?;
                match found {
                    codec::FORMAT_VERSION => Ok(None),
                    1 if inner.read_only => Err(StoreError::UpgradeNeeded {
                        found,
                        expected: codec::FORMAT_VERSION,
                    }),
                    1 => Ok(Some(found)),
                    _ => Err(StoreError::FormatVersion {
                        found,
                        expected: codec::FORMAT_VERSION,
                    }),
                }
            }
            None if inner.read_only => Err(StoreError::Invalid {
                what: "store",
                reason: format!("{} holds no semgraph store", inner.path.display()),
            }),
            None => {
                let mut batch = WriteBatch::default();
                batch.put_cf(
                    inner.cf(CF_META),
                    META_FORMAT,
                    codec::FORMAT_VERSION.to_be_bytes(),
                );
                batch.put_cf(
                    inner.cf(CF_META),
                    META_CATALOG,
                    codec::encode_record(&Catalog::default()),
                );
                inner.db.write_opt(batch, &sync_write())?;
                Ok(None)
            }
        }
    }

    /// Upgrades format 1 to 2: format 1 kept one name index for every run, format 2 keys each
    /// run's names by the run. Each name of a served node moves under its product's run;
    /// names of ids no product serves are dropped (those ids are purged by this open). The
    /// old keys go and the new version is recorded in one synced write, so a crash before it
    /// leaves format 1, upgraded again on the next open.
    fn upgrade_names(&self, catalog: &Catalog) -> Result<()> {
        let inner = &self.inner;
        let mut runs: Vec<(u64, RoaringBitmap)> = Vec::new();
        for p in &catalog.products {
            runs.push((p.run, self.read_set(p.run, SET_NODES)?));
        }
        let (start, end) = codec::FORMAT_1_NAMES;
        let mut opts = ReadOptions::default();
        opts.set_iterate_upper_bound(end.to_vec());
        opts.set_total_order_seek(true);
        opts.fill_cache(false);
        let mut batch = WriteBatch::default();
        let mut moved = 0u64;
        for item in inner.db.iterator_cf_opt(
            inner.cf(CF_NAMES),
            opts,
            IteratorMode::From(start, ScanDirection::Forward),
        ) {
            let (key, _) = item?;
            let Some(id) = codec::format_1_name_id(&key) else {
                continue;
            };
            let Some((run, _)) = runs.iter().find(|(_, ids)| ids.contains(id)) else {
                continue;
            };
            batch.put_cf(inner.cf(CF_NAMES), codec::format_1_name_key_under(*run, &key), []);
            moved += 1;
            if batch.len() >= 100_000 {
                inner.db.write(std::mem::take(&mut batch))?;
            }
        }
        batch.delete_range_cf(inner.cf(CF_NAMES), start, end);
        batch.put_cf(
            inner.cf(CF_META),
            META_FORMAT,
            codec::FORMAT_VERSION.to_be_bytes(),
        );
        inner.db.write_opt(batch, &sync_write())?;
        tracing::info!(names = moved, "upgraded the store from format 1 to 2");
        Ok(())
    }

    fn load_catalog(&self) -> Result<(Catalog, RoaringBitmap)> {
        let inner = &self.inner;
        let catalog = match inner.db.get_cf(inner.cf(CF_META), META_CATALOG)? {
            Some(bytes) => codec::decode_record(CF_META, &bytes)?,
            None => Catalog::default(),
        };
        let free = match inner.db.get_cf(inner.cf(CF_META), META_FREE)? {
            Some(bytes) => codec::decode_ids(CF_META, &bytes)?,
            None => RoaringBitmap::new(),
        };
        Ok((catalog, free))
    }

    /// Purges what a dead index run left behind, and every retired id (no reader exists yet).
    fn recover(&self, catalog: &mut Catalog, free: &mut RoaringBitmap) -> Result<()> {
        let inner = &self.inner;
        if let Some(staging) = catalog.staging.take() {
            let mut live = RoaringBitmap::new();
            for p in &catalog.products {
                live |= self.read_set(p.run, SET_NODES)?;
            }
            let mut retired = RoaringBitmap::new();
            for r in &catalog.retired {
                retired |= codec::decode_ids(CF_META, &r.ids)?;
            }
            let mut max_id = catalog.next_id;
            for &cf in ID_KEYED_CFS {
                let mut it = inner.db.raw_iterator_cf(inner.cf(cf));
                it.seek_to_last();
                if let Some(id) = it.key().and_then(codec::id_from_key) {
                    max_id = max_id.max(id.saturating_add(1));
                }
            }
            let mut dirty = RoaringBitmap::new();
            dirty.insert_range(0..max_id);
            dirty -= &live;
            dirty -= &retired;
            tracing::warn!(
                run = staging.run,
                dirty = dirty.len(),
                "an index run died before its commit; purging its partial data"
            );
            self.purge_ids(&dirty, Some(staging.run))?;
            catalog.next_id = max_id;
            *free = dirty;
            let run = IndexRun {
                id: staging.run,
                product: ProductId(staging.product),
                started_at_ms: staging.started_at_ms,
                finished_at_ms: now_ms(),
                status: RunStatus::Interrupted,
                counts: Vec::new(),
                edges: 0,
                timings: Vec::new(),
                stats: Vec::new(),
                warnings: vec![crate::model::Warning {
                    file: String::new(),
                    line: None,
                    message: "the index run stopped before its commit (process killed or crashed); the previous graph stayed served".into(),
                }],
            };
            let mut batch = WriteBatch::default();
            put_run(inner, &mut batch, &run);
            put_catalog(inner, &mut batch, catalog, free);
            inner.db.write_opt(batch, &sync_write())?;
        }
        let retired = std::mem::take(&mut catalog.retired);
        for r in &retired {
            let ids = codec::decode_ids(CF_META, &r.ids)?;
            self.purge_ids(&ids, r.run)?;
            *free |= ids;
        }
        if !retired.is_empty() {
            let mut batch = WriteBatch::default();
            put_catalog(inner, &mut batch, catalog, free);
            inner.db.write_opt(batch, &sync_write())?;
        }
        Ok(())
    }

    /// Deletes every record of `ids`, and the names and sets of `run`. Each contiguous range
    /// of `ids`, in every id-keyed family, and the run's names and sets (each one range of
    /// keys) go by dropping the table files wholly inside the range, so no compaction
    /// rewrites them; an id range gets a range delete only where a key of it is still found,
    /// the run's names and sets always get one.
    pub(crate) fn purge_ids(&self, ids: &RoaringBitmap, run: Option<u64>) -> Result<()> {
        let inner = &self.inner;
        let ranges = id_ranges(ids);
        // A run's files hold its ids only (staging cuts them at other runs' ids), and they
        // were ingested at the bottom level: dropping the files in its ranges removes them
        // without a tombstone, so the next run given these ids is ingested at the bottom
        // too and nothing is ever compacted. RocksDB leaves level 0, a file another run's
        // keys share and a file being compacted; what they hold gets a range deletion.
        for range in &ranges {
            let first = codec::id_key(range.start);
            let last = codec::last_key_of(range.end - 1);
            for &cf in ID_KEYED_CFS {
                inner
                    .db
                    .delete_file_in_range_cf(inner.cf(cf), &first[..], &last[..])?;
            }
        }
        let mut batch = WriteBatch::default();
        for &cf in ID_KEYED_CFS {
            let mut it = inner.db.raw_iterator_cf(inner.cf(cf));
            for range in &ranges {
                // Ids are below 2^28, so `range.end` always has a key.
                let from = codec::id_key(range.start);
                let to = codec::id_key(range.end);
                it.seek(from);
                if it.key().is_some_and(|k| k < to.as_slice()) {
                    batch.delete_range_cf(inner.cf(cf), from, to);
                }
                if batch.len() >= 50_000 {
                    inner.db.write(std::mem::take(&mut batch))?;
                }
            }
            it.status()?;
        }
        if let Some(run) = run {
            let (from, to) = codec::run_names_range(run);
            inner.db.delete_file_in_range_cf(inner.cf(CF_NAMES), from, to)?;
            batch.delete_range_cf(inner.cf(CF_NAMES), from, to);
            let (from, to) = (codec::set_key(run, ""), codec::set_key(run + 1, ""));
            inner.db.delete_file_in_range_cf(inner.cf(CF_SETS), &from, &to)?;
            batch.delete_range_cf(inner.cf(CF_SETS), from, to);
        }
        inner.db.write(batch)?;
        Ok(())
    }

    pub(crate) fn read_set(&self, run: u64, name: &str) -> Result<RoaringBitmap> {
        let inner = &self.inner;
        match inner.db.get_cf(inner.cf(CF_SETS), codec::set_key(run, name))? {
            Some(bytes) => codec::decode_ids(CF_SETS, &bytes),
            None => Ok(RoaringBitmap::new()),
        }
    }

    /// The flag sets of a run. A run committed before flag sets existed has none: its
    /// flags are read from its node records once, on open.
    fn read_flag_sets(&self, run: u64, nodes: &RoaringBitmap) -> Result<Vec<RoaringBitmap>> {
        let inner = &self.inner;
        let first = codec::set_key(run, &flag_set_name(NodeFlags::ALL[0].1));
        if inner.db.get_pinned_cf(inner.cf(CF_SETS), first)?.is_some() {
            return NodeFlags::ALL
                .iter()
                .map(|(_, name)| self.read_set(run, &flag_set_name(name)))
                .collect();
        }
        let mut flagged = vec![RoaringBitmap::new(); NodeFlags::ALL.len()];
        let ids: Vec<u32> = nodes.iter().collect();
        for chunk in ids.chunks(4096) {
            let keys: Vec<_> = chunk.iter().map(|&id| codec::id_key(id)).collect();
            let values = inner
                .db
                .batched_multi_get_cf(inner.cf(CF_NODES), keys.iter(), false);
            for (id, value) in chunk.iter().zip(values) {
                let Some(bytes) = value? else { continue };
                let node: Node = codec::decode_record(CF_NODES, &bytes)?;
                for (set, (flag, _)) in flagged.iter_mut().zip(NodeFlags::ALL) {
                    if node.flags.contains(*flag) {
                        set.insert(*id);
                    }
                }
            }
        }
        Ok(flagged)
    }

    /// The name filter of `run`, from its `names` keys (one scan of its exact fqns, one of
    /// its simple names); `None` for a process that only writes, or if the filter cannot
    /// be built (every lookup then seeks the run).
    pub(crate) fn name_filter(&self, run: u64) -> Result<Option<NameFilter>> {
        if !self.inner.options.serves_queries {
            return Ok(None);
        }
        let inner = &self.inner;
        let mut fingerprints: Vec<u64> = Vec::new();
        for index in [NameIndex::Fqn, NameIndex::Simple] {
            let prefix = codec::name_prefix(run, index, "");
            let mut opts = ReadOptions::default();
            opts.set_total_order_seek(true);
            opts.fill_cache(false);
            if let Some(end) = codec::prefix_end(&prefix) {
                opts.set_iterate_upper_bound(end);
            }
            let mut it = inner.db.raw_iterator_cf_opt(inner.cf(CF_NAMES), opts);
            it.seek(&prefix);
            while let Some(key) = it.key() {
                if let Some(tagged) = codec::tagged_name_of_key(key) {
                    fingerprints.push(codec::name_fingerprint(tagged));
                }
                it.next();
            }
            it.status()?;
        }
        fingerprints.sort_unstable();
        fingerprints.dedup();
        Ok(xorf::BinaryFuse8::try_from(&fingerprints).ok().map(NameFilter))
    }

    fn load_state(&self, catalog: &Catalog) -> Result<GraphState> {
        let mut state = GraphState::empty();
        state.generation = catalog.generation;
        let mut products = Vec::with_capacity(catalog.products.len());
        for p in &catalog.products {
            let nodes = self.read_set(p.run, SET_NODES)?;
            let mut kinds = Vec::with_capacity(NodeKind::ALL.len());
            for &kind in NodeKind::ALL {
                let set = self.read_set(p.run, &kind_set_name(kind))?;
                state.kinds[kind.code() as usize] |= &set;
                kinds.push(set);
            }
            let flagged = self.read_flag_sets(p.run, &nodes)?;
            for (all, set) in state.flagged.iter_mut().zip(&flagged) {
                *all |= set;
            }
            state.live |= &nodes;
            products.push(ProductState {
                info: ProductInfo {
                    id: ProductId(p.id),
                    name: p.name.clone(),
                    area: p.area.clone(),
                    run: p.run,
                    node_count: nodes.len(),
                },
                nodes,
                kinds,
                flagged,
                links: ProductLinks::default(),
                names: self.name_filter(p.run)?,
            });
        }
        products.sort_by(|a, b| a.info.name.cmp(&b.info.name));
        let mut links = Vec::new();
        if self.inner.options.serves_queries {
            let owners: Vec<&RoaringBitmap> = products.iter().map(|p| &p.nodes).collect();
            let declared = self.read_links(&owners)?;
            for (p, declared) in products.iter_mut().zip(declared) {
                p.links = declared;
            }
            // The whole resolution, which each commit then updates with what its product's
            // declarations change (the link edges the last commit stored are the same).
            let resolution = link::resolve(products.iter().map(|p| &p.links), |node, key| {
                self.answers_to(node, key)
            })?;
            links = resolution.edges;
            state.unlinked = resolution.unlinked;
        } else {
            // Read by the first commit, which needs no declaration of the product it replaces.
            state.links_loaded = false;
        }
        state.products = products.into_iter().map(Arc::new).collect();
        // Every page is built, from the stored lists of every live node (none where the
        // process serves no questions).
        let (adjacency, shadowed) = if !self.inner.options.serves_queries {
            (Adjacency::default(), HashSet::new())
        } else {
            let mut stored_out = self.stored_lists(CF_ADJ_OUT, &state.live);
            let mut stored_in = self.stored_lists(CF_ADJ_IN, &state.live);
            Adjacency::default().update(
                &Update {
                    slots: slot_count(&state.live),
                    fresh: &state.live,
                    cleared: &RoaringBitmap::new(),
                    old_links: &[],
                    old_shadowed: &HashSet::new(),
                    new_links: &links,
                },
                &mut stored_out,
                &mut stored_in,
            )?
        };
        state.adjacency = adjacency;
        state.shadowed = shadowed;
        state.links = links;
        Ok(state)
    }

    /// The link declarations of the nodes of each of `owners` (one product's nodes each),
    /// sealed, in the order of `owners`. One pass over the family in id order that seeks
    /// past every stretch of ids no owner holds (a product being replaced, the run being
    /// committed) rather than reading it.
    pub(crate) fn read_links(&self, owners: &[&RoaringBitmap]) -> Result<Vec<ProductLinks>> {
        let inner = &self.inner;
        let mut links: Vec<ProductLinks> = owners.iter().map(|_| ProductLinks::default()).collect();
        let mut owned = RoaringBitmap::new();
        for nodes in owners {
            owned |= *nodes;
        }
        let (Some(first), Some(last_id)) = (owned.min(), owned.max()) else {
            return Ok(links);
        };
        let mut opts = ReadOptions::default();
        opts.set_iterate_upper_bound(codec::id_key(last_id.saturating_add(1)).to_vec());
        opts.fill_cache(false);
        let mut it = inner.db.raw_iterator_cf_opt(inner.cf(CF_LINKS), opts);
        it.seek(codec::id_key(first));
        // Declarations are keyed by node id, and a run's ids mostly follow one another:
        // the owner of the last one is asked first.
        let mut last = 0;
        while let (Some(key), Some(value)) = (it.key(), it.value()) {
            let Some(id) = codec::id_from_key(key) else {
                it.next();
                continue;
            };
            if !owned.contains(id) {
                match owned.range(id..).next() {
                    Some(next) => it.seek(codec::id_key(next)),
                    None => break,
                }
                continue;
            }
            let owner = match owners.get(last) {
                Some(nodes) if nodes.contains(id) => Some(last),
                _ => owners.iter().position(|nodes| nodes.contains(id)),
            };
            if let Some(i) = owner {
                last = i;
                let decl: LinkDecl = codec::decode_record(CF_LINKS, value)?;
                if let Some(declared) = links.get_mut(i) {
                    declared.push(id, &decl);
                }
            }
            it.next();
        }
        it.status()?;
        for declared in &mut links {
            declared.seal();
        }
        Ok(links)
    }

    /// The stored adjacency lists (`cf`: `adj_out` or `adj_in`) of the nodes of `ids`, in
    /// (node, kind) order: one scan from the smallest id to the largest.
    pub(crate) fn stored_lists<'a>(&'a self, cf: &'static str, ids: &'a RoaringBitmap) -> ScannedLists<'a> {
        let inner = &self.inner;
        let mut opts = ReadOptions::default();
        if let Some(hi) = ids.max() {
            opts.set_iterate_upper_bound(codec::id_key(hi.saturating_add(1)).to_vec());
        }
        opts.fill_cache(false);
        let mut it = inner.db.raw_iterator_cf_opt(inner.cf(cf), opts);
        match ids.min() {
            Some(lo) => it.seek(codec::id_key(lo)),
            None => it.seek_to_last(),
        }
        let mut lists = ScannedLists {
            it,
            ids,
            cf,
            empty: ids.is_empty(),
        };
        lists.skip_foreign();
        lists
    }

    /// A consistent view of the served graph, valid for as long as it is held.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            store: self.clone(),
            state: self.inner.served.read().clone(),
        }
    }

    /// The directory the store lives in.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Bytes RocksDB's block cache holds now (at most `block_cache_bytes`; every column
    /// family shares it).
    pub fn block_cache_bytes(&self) -> Result<u64> {
        let inner = &self.inner;
        Ok(inner
            .db
            .property_int_value_cf(inner.cf(CF_NODES), "rocksdb.block-cache-usage")?
            .unwrap_or(0))
    }

    /// Bytes RocksDB's memtables hold now, per column family: writes not yet flushed to a
    /// table file (all together bounded by the store's write buffer budget).
    pub fn memtable_bytes(&self) -> Result<Vec<(&'static str, u64)>> {
        self.per_family("rocksdb.cur-size-all-mem-tables")
    }

    /// Writes every memtable out to table files, in one atomic flush, and waits for it.
    ///
    /// A commit calls it last: what a run writes through the memtables (the catalog, its run
    /// record, every link edge rewritten, the deletes of the purge before it, the facts
    /// cache) is then in files, and between runs the memtables hold at most the facts
    /// cache's bookkeeping an indexer writes after its commit. Without it a server
    /// re-indexing all day grew them run after run up to the write buffer budget (the link
    /// edges of every product again at each commit).
    pub(crate) fn flush_memtables(&self) -> Result<()> {
        let inner = &self.inner;
        let families: Vec<&ColumnFamily> = ALL_CFS.iter().map(|&cf| inner.cf(cf)).collect();
        let mut options = rocksdb::FlushOptions::default();
        options.set_wait(true);
        inner.db.flush_cfs_opt(&families, &options)?;
        Ok(())
    }

    /// Bytes the open table files' readers hold outside the block cache, over every column
    /// family (RocksDB's estimate): grows with the number of table files until compaction
    /// merges them.
    pub fn table_reader_bytes(&self) -> Result<u64> {
        Ok(self
            .per_family("rocksdb.estimate-table-readers-mem")?
            .iter()
            .map(|(_, bytes)| bytes)
            .sum())
    }

    /// An integer property of each column family.
    fn per_family(&self, property: &str) -> Result<Vec<(&'static str, u64)>> {
        let inner = &self.inner;
        ALL_CFS
            .iter()
            .map(|&cf| {
                let value = inner.db.property_int_value_cf(inner.cf(cf), property)?;
                Ok((cf, value.unwrap_or(0)))
            })
            .collect()
    }

    /// Bytes on disk of every file of the store.
    pub fn disk_bytes(&self) -> Result<u64> {
        let mut total = 0;
        for entry in std::fs::read_dir(&self.inner.path)? {
            let meta = entry?.metadata()?;
            if meta.is_file() {
                total += meta.len();
            }
        }
        Ok(total)
    }

    /// Writes a consistent copy of the store into `to`, a directory that must not exist yet,
    /// and returns the generation the copy serves.
    ///
    /// The copy is a RocksDB checkpoint: memtables are flushed, table files are hard-linked
    /// when `to` is on the store's filesystem (copied otherwise), and a new manifest names
    /// exactly them. Readers keep reading meanwhile; a commit waits until the checkpoint is
    /// taken, so the copy holds exactly one committed generation. The data of an index run
    /// in progress goes along with its staging marker and is purged when the copy is first
    /// opened for writing, as after a crash; a read-only open never sees it.
    pub fn checkpoint(&self, to: &Path) -> Result<u64> {
        let inner = &self.inner;
        if inner.read_only {
            return Err(StoreError::Invalid {
                what: "backup",
                reason: format!(
                    "{} is open read-only here; a checkpoint is taken by the process that owns the store",
                    inner.path.display()
                ),
            });
        }
        if to.symlink_metadata().is_ok() {
            return Err(StoreError::Invalid {
                what: "backup destination",
                reason: format!(
                    "{} already exists; a backup goes into a new directory",
                    to.display()
                ),
            });
        }
        if let Some(parent) = to.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| StoreError::Invalid {
                what: "backup destination",
                reason: format!("cannot create {}: {e}", parent.display()),
            })?;
        }
        // Commits and purges take this lock: none runs while the checkpoint is taken.
        let guard = inner.catalog.lock();
        let generation = guard.0.generation;
        rocksdb::checkpoint::Checkpoint::new(&inner.db)?.create_checkpoint(to)?;
        drop(guard);
        Ok(generation)
    }

    /// The table files of each column family, counted per LSM level (0 to 6): where an
    /// index run's files went, and what background compaction has left to do.
    pub fn table_files(&self) -> Result<Vec<(&'static str, [u64; 7])>> {
        let inner = &self.inner;
        ALL_CFS
            .iter()
            .map(|&cf| {
                let mut levels = [0; 7];
                for (level, count) in levels.iter_mut().enumerate() {
                    let property = format!("rocksdb.num-files-at-level{level}");
                    *count = inner
                        .db
                        .property_int_value_cf(inner.cf(cf), property.as_str())?
                        .unwrap_or(0);
                }
                Ok((cf, levels))
            })
            .collect()
    }

    /// Flushes memtables and compacts every column family (for measuring size on disk).
    pub fn compact(&self) -> Result<()> {
        let inner = &self.inner;
        for &cf in ALL_CFS {
            inner
                .db
                .compact_range_cf(inner.cf(cf), None::<&[u8]>, None::<&[u8]>);
        }
        Ok(())
    }

    /// Swaps in `state` and remembers the old generation while readers hold it.
    pub(crate) fn publish(&self, state: GraphState) {
        let old = std::mem::replace(&mut *self.inner.served.write(), Arc::new(state));
        let mut held = self.inner.held.lock();
        held.retain(|w| w.strong_count() > 0);
        held.push(Arc::downgrade(&old));
    }

    /// The oldest generation some snapshot may still read.
    pub(crate) fn oldest_held_generation(&self) -> u64 {
        let current = self.inner.served.read().generation;
        let mut held = self.inner.held.lock();
        held.retain(|w| w.strong_count() > 0);
        held.iter()
            .filter_map(|w| w.upgrade().map(|s| s.generation))
            .min()
            .unwrap_or(current)
            .min(current)
    }

    /// Purges retired ids that no snapshot can read any more, and frees them for reuse.
    pub(crate) fn collect_garbage(&self, catalog: &mut Catalog, free: &mut RoaringBitmap) -> Result<()> {
        let oldest = self.oldest_held_generation();
        let (ready, keep): (Vec<Retired>, Vec<Retired>) = std::mem::take(&mut catalog.retired)
            .into_iter()
            .partition(|r| r.generation <= oldest);
        catalog.retired = keep;
        if ready.is_empty() {
            return Ok(());
        }
        for r in &ready {
            let ids = codec::decode_ids(CF_META, &r.ids)?;
            self.purge_ids(&ids, r.run)?;
            *free |= ids;
        }
        let mut batch = WriteBatch::default();
        put_catalog(&self.inner, &mut batch, catalog, free);
        self.inner.db.write_opt(batch, &sync_write())?;
        Ok(())
    }
}

/// What a failed open means for the person who asked: another process holds the lock, the
/// directory cannot be written, the disk is full, or something RocksDB says.
fn open_error(path: &Path, read_only: bool, e: rocksdb::Error) -> StoreError {
    let msg = e.to_string();
    // Matched on RocksDB's own wording, not on "lock" alone: a store path may contain it.
    if [
        "While lock file",
        "lock hold by current process",
        "Resource temporarily unavailable",
    ]
    .iter()
    .any(|m| msg.contains(m))
    {
        return StoreError::Locked {
            path: path.to_path_buf(),
        };
    }
    const NOT_WRITABLE: &[&str] = &["Permission denied", "Read-only file system", "Not a directory"];
    if !read_only && NOT_WRITABLE.iter().any(|m| msg.contains(m)) {
        return StoreError::NotWritable {
            path: path.to_path_buf(),
            detail: msg,
        };
    }
    StoreError::from(e)
}

pub(crate) fn put_catalog(inner: &Inner, batch: &mut WriteBatch, catalog: &Catalog, free: &RoaringBitmap) {
    batch.put_cf(inner.cf(CF_META), META_CATALOG, codec::encode_record(catalog));
    batch.put_cf(inner.cf(CF_META), META_FREE, codec::encode_ids(free));
}

pub(crate) fn put_run(inner: &Inner, batch: &mut WriteBatch, run: &IndexRun) {
    batch.put_cf(inner.cf(CF_META), run_key(run.id), codec::encode_record(run));
}

fn run_key(run: u64) -> Vec<u8> {
    let mut key = META_RUN_PREFIX.to_vec();
    key.extend_from_slice(&run.to_be_bytes());
    key
}

/// How many run records of each product the store keeps: its newest, however they ended.
///
/// A run record holds every warning of its run (three quarters of a megabyte for
/// spring-boot), and a product re-indexed on every save added one a save, forever: the
/// `meta` family grew without bound, and the status of a product decoded every record it
/// ever had.
pub const KEPT_RUNS: usize = 16;

/// The first fields of a run record ([`IndexRun`]'s, in its order): whose run it is, read
/// without decoding its warnings.
#[derive(Decode)]
struct RunHead {
    id: u64,
    product: ProductId,
}

/// Each stored run record's head with its full bytes, in run order.
fn run_records(inner: &Inner) -> impl Iterator<Item = Result<(RunHead, Box<[u8]>)>> + '_ {
    let mut opts = ReadOptions::default();
    if let Some(end) = codec::prefix_end(META_RUN_PREFIX) {
        opts.set_iterate_upper_bound(end);
    }
    inner
        .db
        .iterator_cf_opt(
            inner.cf(CF_META),
            opts,
            IteratorMode::From(META_RUN_PREFIX, ScanDirection::Forward),
        )
        .map(|item| {
            let (_, value) = item?;
            let head: RunHead = codec::decode_record(CF_META, &value)?;
            Ok((head, value))
        })
}

/// Deletes in `batch` the records of `product`'s earlier runs but the newest
/// `KEPT_RUNS - 1`: with the record of run `committing`, which the batch writes, the product
/// keeps [`KEPT_RUNS`]. A record that cannot be read is left as it is (and said): old
/// records are history, and never a reason to refuse a commit.
pub(crate) fn forget_old_runs(inner: &Inner, batch: &mut WriteBatch, product: ProductId, committing: u64) {
    let mut ids = Vec::new();
    for record in run_records(inner) {
        match record {
            Ok((head, _)) if head.product == product && head.id != committing => ids.push(head.id),
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(error = %e, "a run record could not be read; old run records are kept");
                return;
            }
        }
    }
    ids.sort_unstable();
    let old = ids.len().saturating_sub(KEPT_RUNS - 1);
    for &id in &ids[..old] {
        batch.delete_cf(inner.cf(CF_META), run_key(id));
    }
}

/// A scan of stored adjacency lists (see [`Store::stored_lists`]), read in place: no value
/// is copied out of RocksDB.
pub(crate) struct ScannedLists<'a> {
    it: rocksdb::DBRawIteratorWithThreadMode<'a, DB>,
    ids: &'a RoaringBitmap,
    cf: &'static str,
    empty: bool,
}

impl ScannedLists<'_> {
    /// The source and kind of the list under the cursor.
    fn current(&self) -> Option<(u32, EdgeKind)> {
        let key = self.it.key()?;
        Some((
            codec::id_from_key(key)?,
            key.get(4).and_then(|&c| EdgeKind::from_code(c))?,
        ))
    }

    /// Moves past lists of nodes that were not asked for.
    fn skip_foreign(&mut self) {
        while !self.empty && self.it.valid() {
            match self.current() {
                Some((src, _)) if self.ids.contains(src) => return,
                _ => self.it.next(),
            }
        }
    }

    fn status(&self) -> Result<()> {
        self.it.status().map_err(StoreError::from)
    }
}

impl StoredLists for ScannedLists<'_> {
    fn peek_node(&mut self) -> Result<Option<u32>> {
        if self.empty || !self.it.valid() {
            self.status()?;
            return Ok(None);
        }
        Ok(self.current().map(|(src, _)| src))
    }

    fn take(&mut self, slots: usize, out: &mut Vec<u32>) -> Result<()> {
        if let (Some((_, kind)), Some(value)) = (self.current(), self.it.value()) {
            codec::for_each_id(self.cf, value, |d| {
                if (d as usize) < slots {
                    out.push(adjacency::packed(kind, d));
                }
            })?;
        }
        self.it.next();
        self.skip_foreign();
        Ok(())
    }
}

/// The name-index keys of a node.
pub(crate) fn name_keys(run: u64, node: &Node, id: u32) -> Vec<Vec<u8>> {
    let name = node.name.as_str();
    let lower_name = name.to_lowercase();
    let mut keys = vec![
        codec::name_key(run, NameIndex::Simple, name, id),
        codec::name_key(run, NameIndex::Lower, &lower_name, id),
    ];
    if let Some(fqn) = node.fqn.as_deref() {
        keys.push(codec::name_key(run, NameIndex::Fqn, fqn, id));
        let lower = fqn.to_lowercase();
        if lower != lower_name {
            keys.push(codec::name_key(run, NameIndex::Lower, &lower, id));
        }
    }
    keys
}

/// The contiguous ranges of a bitmap, end exclusive.
pub(crate) fn id_ranges(ids: &RoaringBitmap) -> Vec<std::ops::Range<u32>> {
    let mut out: Vec<std::ops::Range<u32>> = Vec::new();
    for id in ids {
        match out.last_mut() {
            Some(r) if r.end == id => r.end = id + 1,
            _ => out.push(id..id.saturating_add(1)),
        }
    }
    out
}

/// Adjacency slots needed for `live`: the largest id + 1.
pub(crate) fn slot_count(live: &RoaringBitmap) -> usize {
    live.max().map(|m| m as usize + 1).unwrap_or(0)
}

/// A consistent, read-only view of one generation of the graph.
///
/// Everything a snapshot returns comes from the generation it was taken on, even while an
/// index run commits a newer one.
#[derive(Clone)]
pub struct Snapshot {
    store: Store,
    state: Arc<GraphState>,
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("generation", &self.state.generation)
            .finish()
    }
}

impl Snapshot {
    fn inner(&self) -> &Inner {
        &self.store.inner
    }

    /// The generation number: it changes on every commit.
    pub fn generation(&self) -> u64 {
        self.state.generation
    }

    /// The products served, by name.
    pub fn products(&self) -> Vec<ProductInfo> {
        self.state.products.iter().map(|p| p.info.clone()).collect()
    }

    /// The products served, by name, borrowed from the snapshot.
    pub fn product_infos(&self) -> impl Iterator<Item = &ProductInfo> {
        self.state.products.iter().map(|p| &p.info)
    }

    /// The product called `name`.
    pub fn product(&self, name: &str) -> Option<ProductInfo> {
        self.product_state(name).map(|p| p.info.clone())
    }

    fn product_state(&self, name: &str) -> Option<&ProductState> {
        self.state
            .products
            .iter()
            .find(|p| p.info.name == name)
            .map(|p| &**p)
    }

    /// The products owning at least one node of `nodes`, by name, each with its node set.
    pub fn products_touching(&self, nodes: &RoaringBitmap) -> Vec<(ProductInfo, &RoaringBitmap)> {
        self.state
            .products
            .iter()
            .filter(|p| !p.nodes.is_disjoint(nodes))
            .map(|p| (p.info.clone(), &p.nodes))
            .collect()
    }

    /// The product that owns `node`.
    pub fn product_of(&self, node: NodeId) -> Option<ProductInfo> {
        self.state
            .products
            .iter()
            .find(|p| p.nodes.contains(node.0))
            .map(|p| p.info.clone())
    }

    /// Every live node id.
    pub fn live(&self) -> &RoaringBitmap {
        &self.state.live
    }

    /// The ids of a product's nodes (empty when the product is unknown).
    pub fn product_nodes(&self, product: &str) -> RoaringBitmap {
        self.product_state(product)
            .map(|p| p.nodes.clone())
            .unwrap_or_default()
    }

    /// Every live node of `kind`, across products.
    pub fn nodes_of_kind(&self, kind: NodeKind) -> &RoaringBitmap {
        &self.state.kinds[kind.code() as usize]
    }

    /// Every live node carrying `flag` (one flag of [`NodeFlags::ALL`]; empty for others).
    pub fn nodes_with_flag(&self, flag: NodeFlags) -> &RoaringBitmap {
        static NONE: std::sync::LazyLock<RoaringBitmap> = std::sync::LazyLock::new(RoaringBitmap::new);
        flag.slot().map(|i| &self.state.flagged[i]).unwrap_or(&NONE)
    }

    /// The nodes of `kind` in `product`.
    pub fn product_nodes_of_kind(&self, product: &str, kind: NodeKind) -> RoaringBitmap {
        self.product_state(product)
            .map(|p| p.kinds[kind.code() as usize].clone())
            .unwrap_or_default()
    }

    /// The in-memory adjacency of this generation (both directions, links included).
    pub fn adjacency(&self) -> &Adjacency {
        &self.state.adjacency
    }

    /// A named set written by an index run (`term:retry`, `public-methods`…), per product.
    pub fn named_set(&self, product: &str, name: &str) -> Result<RoaringBitmap> {
        match self.product_state(product) {
            Some(p) => Ok(self.store.read_set(p.info.run, name)? & &p.nodes),
            None => Ok(RoaringBitmap::new()),
        }
    }

    /// A named set across every product.
    pub fn named_set_all(&self, name: &str) -> Result<RoaringBitmap> {
        let mut all = RoaringBitmap::new();
        for p in &self.state.products {
            all |= self.store.read_set(p.info.run, name)?;
        }
        Ok(all & &self.state.live)
    }

    /// One node, if live in this generation.
    pub fn node(&self, id: NodeId) -> Result<Option<Node>> {
        Ok(self.nodes(&[id])?.pop().flatten())
    }

    /// Many nodes in one batched read, in the order asked; `None` for ids not live here.
    pub fn nodes(&self, ids: &[NodeId]) -> Result<Vec<Option<Node>>> {
        let inner = self.inner();
        let keys: Vec<[u8; 4]> = ids.iter().map(|id| codec::id_key(id.0)).collect();
        let values = inner
            .db
            .batched_multi_get_cf(inner.cf(CF_NODES), keys.iter(), false);
        let mut out = Vec::with_capacity(ids.len());
        for (id, value) in ids.iter().zip(values) {
            let node = match value? {
                Some(bytes) if self.state.live.contains(id.0) => {
                    let mut node: Node = codec::decode_record(CF_NODES, &bytes)?;
                    node.id = *id;
                    Some(node)
                }
                _ => None,
            };
            out.push(node);
        }
        Ok(out)
    }

    /// Up to `limit` live nodes with a `names` key of `index` starting with `name` (then
    /// `0x00` when `exact`), in name order: one range of keys per served run, merged.
    ///
    /// One iterator seeks every run's range. An exact lookup iterates in prefix mode, so a
    /// table file whose prefix filter does not hold the name is passed over unread (most
    /// runs do not hold a given fqn); a prefix search is a total-order scan.
    fn scan_names(&self, index: NameIndex, name: &str, exact: bool, limit: usize) -> Result<Vec<NodeId>> {
        let inner = self.inner();
        let mut found: Vec<(Vec<u8>, u32)> = Vec::new();
        let mut opts = ReadOptions::default();
        if exact {
            opts.set_prefix_same_as_start(true);
        } else {
            opts.set_total_order_seek(true);
        }
        let mut it = inner.db.raw_iterator_cf_opt(inner.cf(CF_NAMES), opts);
        // The runs' filters hold exact fqns and simple names: the name's fingerprint, once.
        let fingerprint = (exact && index != NameIndex::Lower).then(|| {
            codec::name_fingerprint(codec::tagged_name_of_prefix(&codec::name_prefix(0, index, name)))
        });
        for product in &self.state.products {
            if let (Some(filter), Some(fingerprint)) = (&product.names, fingerprint) {
                if !filter.may_hold(fingerprint) {
                    continue;
                }
            }
            let mut prefix = codec::name_prefix(product.info.run, index, name);
            if exact {
                prefix.push(0);
                it.seek(codec::first_name_key(&prefix));
            } else {
                it.seek(&prefix);
            }
            // A run's first `limit` nodes are all it can add to the first `limit` of all; a
            // node's first key is its place in the order.
            let mut taken = RoaringBitmap::new();
            while let Some(key) = it.key() {
                if !key.starts_with(&prefix) {
                    break;
                }
                if let Some((name_and_id, id)) = codec::parse_name_key(key) {
                    if self.state.live.contains(id) && taken.insert(id) {
                        found.push((name_and_id.to_vec(), id));
                        if taken.len() >= limit as u64 {
                            break;
                        }
                    }
                }
                it.next();
            }
            it.status()?;
        }
        found.sort_unstable();
        let mut seen = RoaringBitmap::new();
        Ok(found
            .into_iter()
            .filter(|(_, id)| seen.insert(*id))
            .take(limit)
            .map(|(_, id)| NodeId(id))
            .collect())
    }

    /// Nodes whose fully-qualified name is exactly `fqn`.
    pub fn find_by_fqn(&self, fqn: &str) -> Result<Vec<NodeId>> {
        self.scan_names(NameIndex::Fqn, fqn, true, usize::MAX)
    }

    /// Nodes whose simple name is exactly `name`.
    pub fn find_by_name(&self, name: &str) -> Result<Vec<NodeId>> {
        self.scan_names(NameIndex::Simple, name, true, usize::MAX)
    }

    /// Up to `limit` nodes whose simple name or fqn starts with `prefix`, ignoring case,
    /// in name order.
    pub fn find_by_prefix(&self, prefix: &str, limit: usize) -> Result<Vec<NodeId>> {
        self.scan_names(NameIndex::Lower, &prefix.to_lowercase(), false, limit)
    }

    /// The content of `node` of `kind`, if stored (no entitlement check: callers decide).
    pub fn content(&self, node: NodeId, kind: ContentKind) -> Result<Option<String>> {
        if !self.state.live.contains(node.0) {
            return Ok(None);
        }
        let inner = self.inner();
        let bytes = inner
            .db
            .get_cf(inner.cf(CF_CONTENT), codec::content_key(node.0, kind.code()))?;
        Ok(bytes.map(|b| String::from_utf8_lossy(&b).into_owned()))
    }

    /// Facts about edges (call-site lines…), in one batched read; `None` where none were stored.
    pub fn edge_attrs(&self, edges: &[(NodeId, EdgeKind, NodeId)]) -> Result<Vec<Option<EdgeAttrs>>> {
        let inner = self.inner();
        let keys: Vec<[u8; 9]> = edges
            .iter()
            .map(|(s, k, d)| codec::edge_key(s.0, *k, d.0))
            .collect();
        let values = inner
            .db
            .batched_multi_get_cf(inner.cf(CF_EDGE_ATTRS), keys.iter(), false);
        values
            .into_iter()
            .zip(edges)
            .map(|(v, (s, _, _))| match v? {
                Some(bytes) if self.state.live.contains(s.0) => {
                    Ok(Some(codec::decode_record(CF_EDGE_ATTRS, &bytes)?))
                }
                _ => Ok(None),
            })
            .collect()
    }

    /// Link references that did not become edges, across products, by node and key.
    pub fn unlinked(&self) -> &[UnlinkedRef] {
        &self.state.unlinked
    }

    /// The references of `node` that did not become edges (a binary search: they are
    /// kept sorted by node).
    pub fn unlinked_of(&self, node: NodeId) -> &[UnlinkedRef] {
        let all = &self.state.unlinked;
        let from = all.partition_point(|r| r.from < node.0);
        let to = from + all[from..].partition_point(|r| r.from == node.0);
        &all[from..to]
    }

    /// The recorded index runs of `product` (its newest [`KEPT_RUNS`]), oldest first. Only
    /// its own records are decoded whole.
    pub fn runs(&self, product: ProductId) -> Result<Vec<IndexRun>> {
        let mut out = Vec::new();
        for record in run_records(self.inner()) {
            let (head, value) = record?;
            if head.product == product {
                out.push(codec::decode_record(CF_META, &value)?);
            }
        }
        Ok(out)
    }
}

impl Store {
    /// Whether `node` answers to `key`: one of its stored declarations is that anchor. Link
    /// resolution holds anchors as fingerprints and confirms each match here.
    pub(crate) fn answers_to(&self, node: u32, key: &str) -> Result<bool> {
        let inner = &self.inner;
        let mut opts = ReadOptions::default();
        opts.set_iterate_upper_bound(codec::id_key(node.saturating_add(1)).to_vec());
        let from = codec::id_key(node);
        let iter = inner.db.iterator_cf_opt(
            inner.cf(CF_LINKS),
            opts,
            IteratorMode::From(&from, rocksdb::Direction::Forward),
        );
        for item in iter {
            let (_, value) = item?;
            if let LinkDecl::Anchor { key: k } = codec::decode_record(CF_LINKS, &value)? {
                if k == key {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }
}
