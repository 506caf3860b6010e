//! The per-file facts cache an incremental re-index reads: the parsed facts of one source
//! file, opaque bytes here, under a digest the indexer computes from the file's path, its
//! content and the indexer build that parsed it.
//!
//! It lives in the `default` column family, outside every generation: an entry is true of
//! its key forever (the same bytes parsed by the same build give the same facts), so it
//! needs no atomicity with a commit — an entry written by a run that then dies is simply
//! there for the next run, and an entry lost in a crash costs one parse. What does need
//! bookkeeping is garbage: each product records the digests its last run used, and entries
//! no product uses any more are deleted when a run records its own list.

use rocksdb::{BottommostLevelCompaction, CompactOptions, IteratorMode, WriteBatch, WriteOptions};

use crate::error::Result;
use crate::store::{Store, CF_DEFAULT};

/// A cache key: a 32-byte digest the indexer computes.
pub type FactsDigest = [u8; 32];

/// Prefix of a cached entry's key (`facts/` + digest).
const ENTRY: &[u8] = b"facts/";
/// Prefix of a product's list of digests (`facts-of/` + product name).
const USED_BY: &[u8] = b"facts-of/";

fn entry_key(digest: &FactsDigest) -> Vec<u8> {
    let mut key = ENTRY.to_vec();
    key.extend_from_slice(digest);
    key
}

fn used_key(product: &str) -> Vec<u8> {
    let mut key = USED_BY.to_vec();
    key.extend_from_slice(product.as_bytes());
    key
}

/// Cache writes skip the sync: a lost entry costs a parse, never a wrong answer.
fn cache_write() -> WriteOptions {
    let mut w = WriteOptions::default();
    w.set_sync(false);
    w
}

/// Cached entries skip the write-ahead log too: the commit's flush writes them out (an
/// atomic flush of every memtable), and one lost in a crash before it costs a parse. The
/// log was a second copy of every entry, checksummed and written as it came: a fresh
/// index of a synthetic 1M-line company spent 1.1 % of its CPU there. The products' lists
/// of digests and the deletes keep the log (`cache_write`): they are small, and they say
/// what may be deleted.
fn entry_write() -> WriteOptions {
    let mut w = cache_write();
    w.disable_wal(true);
    w
}

fn digests(bytes: &[u8]) -> impl Iterator<Item = FactsDigest> + '_ {
    bytes.chunks_exact(32).filter_map(|c| c.try_into().ok())
}

impl Store {
    /// The cached facts under each digest, in order (`None` where there are none).
    pub fn cached_facts(&self, keys: &[FactsDigest]) -> Result<Vec<Option<Vec<u8>>>> {
        let inner = &self.inner;
        let keys: Vec<Vec<u8>> = keys.iter().map(entry_key).collect();
        inner
            .db
            .batched_multi_get_cf(inner.cf(CF_DEFAULT), keys.iter(), false)
            .into_iter()
            .map(|r| Ok(r?.map(|v| v.to_vec())))
            .collect()
    }

    /// Caches facts under their digests (an entry already there is overwritten with what
    /// is, by construction, the same bytes).
    pub fn cache_facts(&self, entries: &[(FactsDigest, Vec<u8>)]) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let inner = &self.inner;
        let mut batch = WriteBatch::default();
        for (digest, bytes) in entries {
            batch.put_cf(inner.cf(CF_DEFAULT), entry_key(digest), bytes);
        }
        inner.db.write_opt(batch, &entry_write())?;
        Ok(())
    }

    /// Records the digests `product`'s last run used and deletes the cached entries that no
    /// product uses any more. Returns how many entries were deleted.
    ///
    /// A run that used the same digests as the product's last run (nothing it reads
    /// changed) writes nothing: a server re-indexing unchanged products would otherwise
    /// add each product's whole list to the memtable every time.
    ///
    /// Either way the cache's blob files are then collected if half of them is garbage
    /// (`collect_facts_garbage`).
    pub fn retain_facts(&self, product: &str, used: &[FactsDigest]) -> Result<u64> {
        let inner = &self.inner;
        let cf = inner.cf(CF_DEFAULT);
        let own = used_key(product);
        let listed = used.concat();
        let previous = inner.db.get_pinned_cf(cf, &own)?;
        if previous.as_ref().is_some_and(|last| **last == *listed) {
            // Compactions since the last run may have found garbage all the same.
            self.collect_facts_garbage()?;
            return Ok(0);
        }
        // Entries the product used last time and not now, unless another product uses them:
        // only these are read against the other products' lists, so a run holds its own
        // lists, never the whole company's.
        let mut dropped: std::collections::HashSet<FactsDigest> = match &previous {
            Some(previous) => {
                let keep: std::collections::HashSet<&FactsDigest> = used.iter().collect();
                digests(previous).filter(|d| !keep.contains(d)).collect()
            }
            None => std::collections::HashSet::new(),
        };
        drop(previous);
        if !dropped.is_empty() {
            for item in inner
                .db
                .iterator_cf(cf, IteratorMode::From(USED_BY, rocksdb::Direction::Forward))
            {
                let (key, value) = item?;
                if !key.starts_with(USED_BY) {
                    break;
                }
                if *key != *own {
                    for digest in digests(&value) {
                        dropped.remove(&digest);
                    }
                }
            }
        }
        let mut batch = WriteBatch::default();
        batch.put_cf(cf, &own, listed);
        for digest in &dropped {
            batch.delete_cf(cf, entry_key(digest));
        }
        let deleted = dropped.len() as u64;
        inner.db.write_opt(batch, &cache_write())?;
        self.collect_facts_garbage()?;
        Ok(deleted)
    }

    /// Copies the live values of the facts cache into new blob files and deletes the old
    /// ones, when at least half of what the blob files hold is garbage (values of entries
    /// deleted or overwritten, as compactions have found so far). Returns whether it did.
    ///
    /// Background compactions never do this (see `cf_options`): run here, a value is
    /// copied once per time the garbage doubles, so the cache's files stay within twice
    /// what is live and each byte of garbage costs at most one byte copied.
    pub(crate) fn collect_facts_garbage(&self) -> Result<bool> {
        let inner = &self.inner;
        let cf = inner.cf(CF_DEFAULT);
        let (live, garbage) = self.facts_blob_bytes()?;
        if garbage == 0 || garbage * 2 < live {
            return Ok(false);
        }
        inner.db.set_options_cf(
            cf,
            &[
                ("enable_blob_garbage_collection", "true"),
                ("blob_garbage_collection_age_cutoff", "1.0"),
            ],
        )?;
        let mut compact = CompactOptions::default();
        // Values move only with their keys, including those already at the last level.
        compact.set_bottommost_level_compaction(BottommostLevelCompaction::Force);
        inner
            .db
            .compact_range_cf_opt(cf, None::<&[u8]>, None::<&[u8]>, &compact);
        inner
            .db
            .set_options_cf(cf, &[("enable_blob_garbage_collection", "false")])?;
        let (after, _) = self.facts_blob_bytes()?;
        tracing::info!(
            garbage_mb = garbage >> 20,
            blob_mb_before = live >> 20,
            blob_mb_after = after >> 20,
            "collected the facts cache's garbage"
        );
        Ok(true)
    }

    /// Bytes of the facts cache's blob files, and how many of them are garbage.
    fn facts_blob_bytes(&self) -> Result<(u64, u64)> {
        let inner = &self.inner;
        let cf = inner.cf(CF_DEFAULT);
        let live = inner
            .db
            .property_int_value_cf(cf, "rocksdb.live-blob-file-size")?
            .unwrap_or(0);
        let garbage = inner
            .db
            .property_int_value_cf(cf, "rocksdb.live-blob-file-garbage-size")?
            .unwrap_or(0);
        Ok((live, garbage))
    }

    /// How many facts entries the cache holds (for tests and `status`).
    pub fn cached_facts_count(&self) -> Result<u64> {
        let inner = &self.inner;
        let mut n = 0;
        for item in inner.db.iterator_cf(
            inner.cf(CF_DEFAULT),
            IteratorMode::From(ENTRY, rocksdb::Direction::Forward),
        ) {
            let (key, _) = item?;
            if !key.starts_with(ENTRY) {
                break;
            }
            n += 1;
        }
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digest(n: u8) -> FactsDigest {
        [n; 32]
    }

    /// A fresh store whose cache holds 300 bytes under each of `digest(1..=n)` (the
    /// directory lives as long as the returned guard).
    fn store_caching(n: u8) -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("open");
        let entries: Vec<(FactsDigest, Vec<u8>)> = (1..=n).map(|n| (digest(n), vec![n; 300])).collect();
        store.cache_facts(&entries).expect("cache");
        (dir, store)
    }

    /// Whether the cache holds an entry under each of `digest(1..=n)`.
    fn cached(store: &Store, n: u8) -> Vec<bool> {
        let digests: Vec<FactsDigest> = (1..=n).map(digest).collect();
        store
            .cached_facts(&digests)
            .expect("read")
            .iter()
            .map(Option::is_some)
            .collect()
    }

    /// 1,000 bytes of a xorshift sequence seeded by `seed`: nothing LZ4 can shorten.
    fn noise(seed: u8) -> Vec<u8> {
        let mut x = u64::from(seed).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..1000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect()
    }

    /// What background compactions do to the cache: flush it, and merge every file.
    fn compact_without_collecting(store: &Store) {
        let inner = &store.inner;
        let cf = inner.cf(CF_DEFAULT);
        inner.db.flush_cf(cf).expect("flush");
        inner.db.compact_range_cf(cf, None::<&[u8]>, None::<&[u8]>);
    }

    #[test]
    fn the_blob_files_are_collected_once_half_of_them_is_garbage() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(dir.path()).expect("open");
        // 40 entries of 1,000 bytes that do not compress, all in the blob file of one flush.
        let all: Vec<FactsDigest> = (1..=40).map(digest).collect();
        let entries: Vec<(FactsDigest, Vec<u8>)> = all.iter().map(|&d| (d, noise(d[0]))).collect();
        store.cache_facts(&entries).expect("cache");
        store.retain_facts("orders", &all).expect("retain");
        compact_without_collecting(&store);
        let (cached, garbage) = store.facts_blob_bytes().expect("sizes");
        assert!(cached >= 40_000, "the values are in blob files: {cached} bytes");
        assert_eq!(garbage, 0);

        // A quarter is garbage: not collected.
        let kept: Vec<FactsDigest> = all[..30].to_vec();
        assert_eq!(store.retain_facts("orders", &kept).expect("retain"), 10);
        compact_without_collecting(&store);
        assert!(!store.collect_facts_garbage().expect("collect"));
        let (before, garbage) = store.facts_blob_bytes().expect("sizes");
        // (The product's list of digests is a value in a blob file too, rewritten each run.)
        assert!(
            before >= cached,
            "nothing collected below half: {before} of {cached}"
        );
        assert!(
            garbage * 5 > before && garbage * 3 < before,
            "{garbage} bytes of garbage in {before}"
        );

        // Three quarters: the next run's bookkeeping collects them, once compactions have
        // found them (here the run after the one that deleted them, which lists the same).
        let kept: Vec<FactsDigest> = all[..10].to_vec();
        assert_eq!(store.retain_facts("orders", &kept).expect("retain"), 20);
        compact_without_collecting(&store);
        assert_eq!(store.retain_facts("orders", &kept).expect("retain"), 0);
        let (after, garbage) = store.facts_blob_bytes().expect("sizes");
        assert_eq!(garbage, 0, "no garbage left");
        assert!(after < cached / 3, "{after} bytes left of {cached}");
        let read = store.cached_facts(&all).expect("read");
        for (n, value) in read.iter().enumerate() {
            match value {
                Some(bytes) => assert!(n < 10 && *bytes == noise(n as u8 + 1), "entry {n}"),
                None => assert!(n >= 10, "entry {n} lost"),
            }
        }
    }

    #[test]
    fn a_run_that_used_the_same_digests_writes_nothing() {
        let (_dir, store) = store_caching(3);
        assert_eq!(
            store
                .retain_facts("orders", &[digest(1), digest(2), digest(3)])
                .expect("retain"),
            0
        );
        let written = store.inner.db.latest_sequence_number();

        // The same list again: not one write.
        assert_eq!(
            store
                .retain_facts("orders", &[digest(1), digest(2), digest(3)])
                .expect("retain"),
            0
        );
        assert_eq!(store.inner.db.latest_sequence_number(), written);

        // Another list is recorded, and what no product uses any more is deleted.
        assert_eq!(
            store
                .retain_facts("orders", &[digest(1), digest(3)])
                .expect("retain"),
            1
        );
        assert!(store.inner.db.latest_sequence_number() > written);
        assert_eq!(cached(&store, 3), [true, false, true]);
    }

    #[test]
    fn an_entry_another_product_still_uses_is_kept() {
        let (_dir, store) = store_caching(4);
        // 2 is shared by both products; 1 is only orders', 3 only billing's.
        store
            .retain_facts("orders", &[digest(1), digest(2)])
            .expect("retain");
        store
            .retain_facts("billing", &[digest(2), digest(3)])
            .expect("retain");
        // orders moves to 4 alone: 1 goes, 2 stays for billing.
        assert_eq!(store.retain_facts("orders", &[digest(4)]).expect("retain"), 1);
        assert_eq!(cached(&store, 4), [false, true, true, true]);

        // billing lets 2 go too: now no product uses it.
        assert_eq!(store.retain_facts("billing", &[digest(3)]).expect("retain"), 1);
        assert_eq!(cached(&store, 4), [false, false, true, true]);
    }
}
