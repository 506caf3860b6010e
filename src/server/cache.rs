//! Computed documents, kept so that the next asker of the same question — page 2 of an
//! answer, or another agent asking what this one asked — does not compute it again.
//!
//! The key is (caller area, the request in canonical form, graph generation): a document
//! depends on nothing else, so an entry is never stale — a commit bumps the generation
//! and old entries simply stop being asked for and age out. The cache is an LRU bounded by
//! the bytes its entries hold (`document_cache_bytes`, see `auth.rs`); each entry keeps,
//! for the page sizes asked for, every page's text as it is sent, so answering a page
//! again copies nothing.
//!
//! Questions asked again while their answer is being computed wait for that computation
//! instead of starting their own ([`DocCache::flight`]): a burst of the same question costs
//! one computation, and a recipe that waits this way takes no recipe slot.

use std::collections::HashMap;
use std::hash::Hash;
use std::num::NonZeroUsize;
use std::sync::Arc;

use axum::body::Bytes;
use lru::LruCache;
use parking_lot::Mutex;
use semgraph_queries::{paginate, Document};
use tokio::sync::watch;

use crate::answer::Problem;

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

/// A computed document and the text of its pages per page size.
pub(crate) struct Entry {
    pub(crate) doc: Document,
    pages: Mutex<Vec<(usize, Arc<[Bytes]>)>>,
}

impl Entry {
    pub(crate) fn new(doc: Document) -> Entry {
        Entry {
            doc,
            pages: Mutex::new(Vec::new()),
        }
    }

    /// The text of every page (footer included) at `page_size`, cut once per size.
    pub(crate) fn page_texts(&self, page_size: usize) -> Arc<[Bytes]> {
        if let Some((_, p)) = self.pages.lock().iter().find(|(s, _)| *s == page_size) {
            return p.clone();
        }
        let pages: Arc<[Bytes]> = paginate(&self.doc.markdown, page_size)
            .iter()
            .map(|p| Bytes::from(p.text()))
            .collect();
        let mut held = self.pages.lock();
        // Keep the few most recent sizes: one or two in practice.
        if held.len() >= 4 {
            held.remove(0);
        }
        held.push((page_size, pages.clone()));
        pages
    }

    /// The bytes the entry holds: the document (markdown, JSON, title), one set of pages
    /// (about the markdown again) and the bookkeeping.
    fn weight(&self) -> usize {
        self.doc.title.len() + 2 * self.doc.markdown.len() + self.doc.json.len() + 1_024
    }
}

/// What a computation ends with, for those who waited for it.
pub(crate) type Outcome = Result<Arc<Entry>, Problem>;

/// A question being computed: [`Flight::Lead`] computes and publishes, [`Flight::Follow`]
/// waits for what the leader publishes.
pub(crate) enum Flight {
    /// Compute, then [`Lead::land`].
    Lead(Lead),
    /// Wait for the leader's outcome.
    Follow(watch::Receiver<Option<Outcome>>),
}

/// The right and duty to compute one question and tell the others.
pub(crate) struct Lead {
    key: Key,
    tx: watch::Sender<Option<Outcome>>,
    flights: Arc<Mutex<HashMap<Key, watch::Receiver<Option<Outcome>>>>>,
}

impl Lead {
    /// Publishes `outcome` to every follower and ends the flight.
    pub(crate) fn land(self, outcome: &Outcome) {
        self.flights.lock().remove(&self.key);
        self.tx.send_replace(Some(outcome.clone()));
    }
}

impl Drop for Lead {
    fn drop(&mut self) {
        // A leader that never landed (refused a recipe slot, or failed): followers see the
        // channel close and ask for themselves.
        let mut flights = self.flights.lock();
        if flights
            .get(&self.key)
            .is_some_and(|rx| rx.same_channel(&self.tx.subscribe()))
        {
            flights.remove(&self.key);
        }
    }
}

struct Held {
    lru: LruCache<Key, (Arc<Entry>, usize)>,
    bytes: usize,
}

/// An LRU of documents bounded by the bytes they hold, and the questions in flight.
pub(crate) struct DocCache {
    held: Mutex<Held>,
    budget: usize,
    flights: Arc<Mutex<HashMap<Key, watch::Receiver<Option<Outcome>>>>>,
}

/// The default budget of the document cache (`document_cache_bytes`).
pub(crate) const DEFAULT_CACHE_BYTES: usize = 64 << 20;
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
            flights: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// The bytes its documents hold now (at most its budget).
    pub(crate) fn held_bytes(&self) -> usize {
        self.held.lock().bytes
    }

    pub(crate) fn get(&self, key: &Key) -> Option<Arc<Entry>> {
        self.held.lock().lru.get(key).map(|(e, _)| e.clone())
    }

    /// Joins the computation of `key` if one is running, else leads a new one.
    pub(crate) fn flight(&self, key: &Key) -> Flight {
        let mut flights = self.flights.lock();
        if let Some(rx) = flights.get(key) {
            return Flight::Follow(rx.clone());
        }
        let (tx, rx) = watch::channel(None);
        flights.insert(key.clone(), rx);
        Flight::Lead(Lead {
            key: key.clone(),
            tx,
            flights: self.flights.clone(),
        })
    }

    /// Keeps `entry` under `key` (unless it alone is larger than a quarter of the budget)
    /// and evicts the least recently used entries beyond the budget.
    pub(crate) fn insert(&self, key: Key, entry: Arc<Entry>) {
        let weight = entry.weight();
        if weight > self.budget / 4 {
            return;
        }
        // Entries evicted here are dropped after the lock is released.
        let mut evicted = Vec::new();
        {
            let mut held = self.held.lock();
            if let Some((_, (old, w))) = held.lru.push(key, (entry, weight)) {
                held.bytes = held.bytes.saturating_sub(w);
                evicted.push(old);
            }
            held.bytes += weight;
            while held.bytes > self.budget {
                match held.lru.pop_lru() {
                    Some((_, (old, w))) => {
                        held.bytes = held.bytes.saturating_sub(w);
                        evicted.push(old);
                    }
                    None => break,
                }
            }
        }
        drop(evicted);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(len: usize) -> Arc<Entry> {
        Arc::new(Entry::new(Document::new(
            "t",
            "x\n".repeat(len / 2),
            &serde_json::Value::Null,
        )))
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
        let a = e.page_texts(1_000);
        let b = e.page_texts(1_000);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(a.len() >= 10);
    }

    #[tokio::test]
    async fn a_question_asked_while_it_is_computed_waits_for_that_computation() {
        let cache = DocCache::new(1 << 20);
        let Flight::Lead(lead) = cache.flight(&key(1)) else {
            panic!("the first asker leads");
        };
        let Flight::Follow(mut rx) = cache.flight(&key(1)) else {
            panic!("the second asker follows");
        };
        assert!(
            matches!(cache.flight(&key(2)), Flight::Lead(_)),
            "another question leads its own"
        );
        let entry = doc(100);
        lead.land(&Ok(entry.clone()));
        let got = rx.wait_for(Option::is_some).await.expect("landed").clone();
        assert!(matches!(got, Some(Ok(e)) if Arc::ptr_eq(&e, &entry)));
        assert!(
            matches!(cache.flight(&key(1)), Flight::Lead(_)),
            "a landed flight is over"
        );
    }

    #[tokio::test]
    async fn followers_of_a_leader_that_gave_up_ask_for_themselves() {
        let cache = DocCache::new(1 << 20);
        let lead = cache.flight(&key(1));
        let Flight::Follow(mut rx) = cache.flight(&key(1)) else {
            panic!("follows");
        };
        drop(lead);
        assert!(rx.wait_for(Option::is_some).await.is_err(), "the channel closed");
        assert!(matches!(cache.flight(&key(1)), Flight::Lead(_)));
    }
}
