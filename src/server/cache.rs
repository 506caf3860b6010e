//! Rendered documents, kept so that page 2 of an answer does not recompute page 1's
//! question.
//!
//! The key is (caller area, the request in canonical form, graph generation): a document
//! depends on nothing else, so an entry is never stale — a commit bumps the generation
//! and old entries simply stop being asked for and age out. The cache is an LRU bounded by
//! an estimate of the bytes it holds; each entry also keeps its pages for the page sizes
//! asked for, since cutting a long document is linear in its length.

use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::Arc;

use lru::LruCache;
use parking_lot::Mutex;
use semgraph_queries::{paginate, Document, Page};

/// What a document depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Key {
    /// The caller's area (`None`: full access).
    pub(crate) area: Option<String>,
    /// The request: domain, endpoint and parameters in canonical form (paging excluded).
    pub(crate) request: String,
    /// The graph generation the document was computed on.
    pub(crate) generation: u64,
}

/// A cached document and its pages per page size.
pub(crate) struct Entry {
    pub(crate) doc: Document,
    pages: Mutex<Vec<(usize, Arc<Vec<Page>>)>>,
}

impl Entry {
    pub(crate) fn new(doc: Document) -> Entry {
        Entry {
            doc,
            pages: Mutex::new(Vec::new()),
        }
    }

    /// The pages of the document at `page_size`, cut once per size.
    pub(crate) fn pages(&self, page_size: usize) -> Arc<Vec<Page>> {
        if let Some((_, p)) = self.pages.lock().iter().find(|(s, _)| *s == page_size) {
            return p.clone();
        }
        let pages = Arc::new(paginate(&self.doc.markdown, page_size));
        let mut held = self.pages.lock();
        // Keep the few most recent sizes: one or two in practice.
        if held.len() >= 4 {
            held.remove(0);
        }
        held.push((page_size, pages.clone()));
        pages
    }

    fn weight(&self) -> usize {
        // The markdown, its JSON (about as large), and a set of pages (as large again).
        3 * self.doc.markdown.len() + 512
    }
}

struct Held {
    lru: LruCache<Key, Arc<Entry>>,
    bytes: usize,
}

/// An LRU of documents bounded by their estimated size in bytes.
pub(crate) struct DocCache {
    held: Mutex<Held>,
    budget: usize,
}

/// The default budget of the document cache.
pub(crate) const DEFAULT_CACHE_BYTES: usize = 128 << 20;
/// At most this many entries, however small.
const MAX_ENTRIES: usize = 16_384;

impl DocCache {
    pub(crate) fn new(budget: usize) -> DocCache {
        DocCache {
            held: Mutex::new(Held {
                lru: LruCache::new(NonZeroUsize::new(MAX_ENTRIES).unwrap_or(NonZeroUsize::MIN)),
                bytes: 0,
            }),
            budget,
        }
    }

    pub(crate) fn get(&self, key: &Key) -> Option<Arc<Entry>> {
        self.held.lock().lru.get(key).cloned()
    }

    /// Keeps `entry` under `key` (unless it alone is larger than the budget) and evicts
    /// the least recently used entries beyond the budget.
    pub(crate) fn insert(&self, key: Key, entry: Arc<Entry>) {
        let weight = entry.weight();
        if weight > self.budget / 4 {
            return;
        }
        let mut held = self.held.lock();
        if let Some((_, old)) = held.lru.push(key, entry) {
            held.bytes = held.bytes.saturating_sub(old.weight());
        }
        held.bytes += weight;
        while held.bytes > self.budget {
            match held.lru.pop_lru() {
                Some((_, old)) => held.bytes = held.bytes.saturating_sub(old.weight()),
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(len: usize) -> Arc<Entry> {
        Arc::new(Entry::new(Document {
            title: "t".into(),
            markdown: "x\n".repeat(len / 2),
            json: serde_json::Value::Null,
        }))
    }

    fn key(n: u64) -> Key {
        Key {
            area: None,
            request: "code/callers".into(),
            generation: n,
        }
    }

    #[test]
    fn the_cache_stays_within_its_budget_and_drops_the_least_recent() {
        let cache = DocCache::new(100_000);
        for n in 0..20 {
            cache.insert(key(n), doc(5_000));
        }
        let held = cache.held.lock().bytes;
        assert!(held <= 100_000, "{held}");
        assert!(cache.get(&key(19)).is_some());
        assert!(cache.get(&key(0)).is_none());
        // Too large for the budget: not kept at all.
        cache.insert(key(99), doc(90_000));
        assert!(cache.get(&key(99)).is_none());
    }

    #[test]
    fn pages_are_cut_once_per_size() {
        let e = doc(10_000);
        let a = e.pages(1_000);
        let b = e.pages(1_000);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(a.len() >= 10);
    }
}
