//! Key layouts and value encodings: the on-disk format, in one place.
//!
//! `docs/storage-format.md` describes every layout written here; a change to either is a
//! change of [`FORMAT_VERSION`]. Integers in keys are big-endian so that RocksDB's byte
//! order is numeric order and an id's keys are contiguous.

use bincode::{Decode, Encode};
use roaring::RoaringBitmap;

use crate::error::{Result, StoreError};
use crate::model::EdgeKind;

/// The format version written into `meta/format_version`.
pub(crate) const FORMAT_VERSION: u32 = 2;

/// The version byte that starts every bincode-encoded record.
const RECORD_VERSION: u8 = 1;

/// Tag of an id list stored as a portable roaring bitmap.
const IDS_ROARING: u8 = 0;
/// Tag of an id list stored as a count and delta varints.
const IDS_DELTA: u8 = 1;

pub(crate) fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// Encodes a record: a version byte, then bincode.
pub(crate) fn encode_record<T: Encode>(value: &T) -> Vec<u8> {
    let mut out = vec![RECORD_VERSION];
    // Encoding into a Vec cannot fail for these plain types.
    if let Ok(body) = bincode::encode_to_vec(value, bincode_config()) {
        out.extend_from_slice(&body);
    }
    out
}

/// Decodes a record written by [`encode_record`].
pub(crate) fn decode_record<T: Decode<()>>(cf: &'static str, bytes: &[u8]) -> Result<T> {
    match bytes.split_first() {
        Some((&RECORD_VERSION, body)) => bincode::decode_from_slice(body, bincode_config())
            .map(|(v, _)| v)
            .map_err(|e| StoreError::Corrupt {
                cf,
                reason: e.to_string(),
            }),
        Some((v, _)) => Err(StoreError::Corrupt {
            cf,
            reason: format!("unknown record version {v}"),
        }),
        None => Err(StoreError::Corrupt {
            cf,
            reason: "empty record".into(),
        }),
    }
}

pub(crate) fn id_key(id: u32) -> [u8; 4] {
    id.to_be_bytes()
}

/// A key above every key of node `id` in a family keyed by node id first (the longest
/// such key has 9 bytes) and below every key of the next id.
pub(crate) fn last_key_of(id: u32) -> [u8; 16] {
    let mut key = [0xff; 16];
    key[..4].copy_from_slice(&id.to_be_bytes());
    key
}

pub(crate) fn id_from_key(key: &[u8]) -> Option<u32> {
    Some(u32::from_be_bytes(key.get(..4)?.try_into().ok()?))
}

/// `adj_out` / `adj_in` key: node id, edge kind.
pub(crate) fn adj_key(id: u32, kind: EdgeKind) -> [u8; 5] {
    let b = id.to_be_bytes();
    [b[0], b[1], b[2], b[3], kind.code()]
}

/// `edge_attrs` / `link_edges` key: source, kind, target.
pub(crate) fn edge_key(src: u32, kind: EdgeKind, dst: u32) -> [u8; 9] {
    let s = src.to_be_bytes();
    let d = dst.to_be_bytes();
    [s[0], s[1], s[2], s[3], kind.code(), d[0], d[1], d[2], d[3]]
}

/// `content` key: node id, content kind.
pub(crate) fn content_key(id: u32, kind: u8) -> [u8; 5] {
    let b = id.to_be_bytes();
    [b[0], b[1], b[2], b[3], kind]
}

/// `links` key: node id, sequence number within the node.
pub(crate) fn link_decl_key(id: u32, seq: u32) -> [u8; 8] {
    let a = id.to_be_bytes();
    let b = seq.to_be_bytes();
    [a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]]
}

/// The three name indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameIndex {
    /// Exact fully-qualified name.
    Fqn = b'F' as isize,
    /// Exact simple name.
    Simple = b'N' as isize,
    /// Lowercased simple name and fqn, for case-insensitive prefix search.
    Lower = b'L' as isize,
}

/// `names` key: the run that wrote it, index tag, the name (NUL bytes replaced), `0x00`,
/// node id. Keyed by run first, so a run's names are one range: written past every other
/// run's (run ids only grow) and purged by one range delete.
pub(crate) fn name_key(run: u64, index: NameIndex, name: &str, id: u32) -> Vec<u8> {
    let mut key = name_prefix(run, index, name);
    key.push(0);
    key.extend_from_slice(&id.to_be_bytes());
    key
}

/// The prefix shared by every `names` key of `run` and `index` whose name starts with `name`.
pub(crate) fn name_prefix(run: u64, index: NameIndex, name: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(name.len() + 14);
    key.extend_from_slice(&run.to_be_bytes());
    key.push(index as u8);
    key.extend(name.bytes().map(|b| if b == 0 { b' ' } else { b }));
    key
}

/// The range of every `names` key of `run`: `[start, end)`.
pub(crate) fn run_names_range(run: u64) -> ([u8; 8], [u8; 8]) {
    (run.to_be_bytes(), run.saturating_add(1).to_be_bytes())
}

/// Splits a `names` key into what follows its run (index tag, name, `0x00`, id) and its id.
pub(crate) fn parse_name_key(key: &[u8]) -> Option<(&[u8], u32)> {
    if key.len() < 14 || key[key.len() - 5] != 0 {
        return None;
    }
    let id = id_from_key(&key[key.len() - 4..])?;
    Some((&key[8..], id))
}

/// The name of the `names` family's prefix extractor, as RocksDB records it in each table
/// file: a file written with another extractor (or none) is read without its prefix filter.
pub(crate) const NAME_PREFIX_EXTRACTOR: &str = "semgraph.name_key.v1";

/// What a `names` key is filtered by: everything before its id (run, tag, name, `0x00`),
/// so an exact lookup asks each table file's filter whether it holds the name at all.
pub(crate) fn name_key_prefix(key: &[u8]) -> &[u8] {
    &key[..key.len().saturating_sub(4)]
}

/// Whether [`name_key_prefix`] applies to `key`: a name key ends in `0x00` and a 4-byte id.
pub(crate) fn is_name_key(key: &[u8]) -> bool {
    key.len() >= 14 && key[key.len() - 5] == 0
}

/// The tag and name of a `names` prefix built by [`name_prefix`] (what follows its run).
pub(crate) fn tagged_name_of_prefix(prefix: &[u8]) -> &[u8] {
    prefix.get(8..).unwrap_or_default()
}

/// The tag and name of a `names` key (less its run, `0x00` and id).
pub(crate) fn tagged_name_of_key(key: &[u8]) -> Option<&[u8]> {
    parse_name_key(key).map(|(tagged_name_and_id, _)| &tagged_name_and_id[..tagged_name_and_id.len() - 5])
}

/// The fingerprint of a tag and name, as a run's in-memory name filter holds it.
pub(crate) fn name_fingerprint(tagged: &[u8]) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(tagged)
}

/// The key an exact lookup of `prefix` (run, tag, name, `0x00`) seeks to: its first id.
pub(crate) fn first_name_key(prefix: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(prefix.len() + 4);
    key.extend_from_slice(prefix);
    key.extend_from_slice(&[0; 4]);
    key
}

/// Format 1's `names` keys had no run in front: an index tag (`F`, `L`, `N`), the name,
/// `0x00` and the id. They all lie in this range, which no key of a run below 2^56 reaches.
pub(crate) const FORMAT_1_NAMES: (&[u8], &[u8]) = (b"A", b"[");

/// The id a format 1 `names` key points at.
pub(crate) fn format_1_name_id(key: &[u8]) -> Option<u32> {
    if key.len() < 6 || key[key.len() - 5] != 0 {
        return None;
    }
    id_from_key(&key[key.len() - 4..])
}

/// The format 2 key of a format 1 `names` key whose node `run` wrote: the same tag, name and
/// id, after the run.
pub(crate) fn format_1_name_key_under(run: u64, key: &[u8]) -> Vec<u8> {
    let mut upgraded = Vec::with_capacity(key.len() + 8);
    upgraded.extend_from_slice(&run.to_be_bytes());
    upgraded.extend_from_slice(key);
    upgraded
}

/// `sets` key: run id, set name.
pub(crate) fn set_key(run: u64, name: &str) -> Vec<u8> {
    let mut key = run.to_be_bytes().to_vec();
    key.extend_from_slice(name.as_bytes());
    key
}

/// The smallest key after every key that starts with `prefix`, if there is one.
pub(crate) fn prefix_end(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < u8::MAX {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

/// Encodes a set of ids, as a roaring bitmap or a delta-varint list, whichever is smaller.
pub(crate) fn encode_ids(ids: &RoaringBitmap) -> Vec<u8> {
    let roaring_len = ids.serialized_size();
    let mut delta = Vec::with_capacity(1 + ids.len() as usize * 2);
    delta.push(IDS_DELTA);
    put_varint(&mut delta, ids.len());
    let mut prev = 0u32;
    for (i, id) in ids.iter().enumerate() {
        let gap = if i == 0 { id } else { id - prev };
        put_varint(&mut delta, u64::from(gap));
        prev = id;
        if delta.len() > roaring_len + 1 {
            break;
        }
    }
    if delta.len() <= roaring_len + 1 {
        return delta;
    }
    let mut out = Vec::with_capacity(roaring_len + 1);
    out.push(IDS_ROARING);
    // Writing into a Vec cannot fail.
    let _ = ids.serialize_into(&mut out);
    out
}

/// Decodes a set of ids written by [`encode_ids`].
pub(crate) fn decode_ids(cf: &'static str, bytes: &[u8]) -> Result<RoaringBitmap> {
    let corrupt = |reason: &str| StoreError::Corrupt {
        cf,
        reason: reason.to_string(),
    };
    match bytes.split_first() {
        Some((&IDS_ROARING, body)) => {
            RoaringBitmap::deserialize_from(body).map_err(|e| corrupt(&e.to_string()))
        }
        Some((&IDS_DELTA, mut body)) => {
            let count = get_varint(&mut body).ok_or_else(|| corrupt("truncated id count"))?;
            let mut ids = Vec::with_capacity(count.min(1 << 20) as usize);
            let mut prev = 0u64;
            for i in 0..count {
                let gap = get_varint(&mut body).ok_or_else(|| corrupt("truncated id list"))?;
                prev = if i == 0 { gap } else { prev + gap };
                let id = u32::try_from(prev).map_err(|_| corrupt("id out of range"))?;
                ids.push(id);
            }
            RoaringBitmap::from_sorted_iter(ids).map_err(|_| corrupt("id list not sorted"))
        }
        _ => Err(corrupt("unknown id list encoding")),
    }
}

/// Calls `f` with every id of a list written by [`encode_ids`], in ascending order, without
/// building a bitmap for the common delta-encoded lists.
pub(crate) fn for_each_id(cf: &'static str, bytes: &[u8], mut f: impl FnMut(u32)) -> Result<()> {
    match bytes.split_first() {
        Some((&IDS_DELTA, mut body)) => {
            let corrupt = |reason: &str| StoreError::Corrupt {
                cf,
                reason: reason.to_string(),
            };
            let count = get_varint(&mut body).ok_or_else(|| corrupt("truncated id count"))?;
            let mut prev = 0u64;
            for i in 0..count {
                let gap = get_varint(&mut body).ok_or_else(|| corrupt("truncated id list"))?;
                prev = if i == 0 { gap } else { prev + gap };
                f(u32::try_from(prev).map_err(|_| corrupt("id out of range"))?);
            }
            Ok(())
        }
        _ => {
            decode_ids(cf, bytes)?.iter().for_each(f);
            Ok(())
        }
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn get_varint(input: &mut &[u8]) -> Option<u64> {
    let mut v = 0u64;
    let mut shift = 0;
    loop {
        let (&b, rest) = input.split_first()?;
        *input = rest;
        if shift > 63 {
            return None;
        }
        v |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
        shift += 7;
    }
}

/// The RocksDB merge operator of id-list column families: the union of every operand.
///
/// Staging writes sets past its budget as merge operands, flushed in bounded batches; the
/// union happens in RocksDB, so no process ever holds a whole product's sets. Adjacency a
/// run spills is merged by the run itself (`staging.rs`); stores written before that hold
/// adjacency operands too, and read them through this operator.
pub(crate) fn merge_id_lists(
    _key: &[u8],
    existing: Option<&[u8]>,
    operands: &rocksdb::MergeOperands,
) -> Option<Vec<u8>> {
    let mut acc = match existing {
        Some(bytes) => decode_ids("merge", bytes).ok()?,
        None => RoaringBitmap::new(),
    };
    for op in operands {
        acc |= decode_ids("merge", op).ok()?;
    }
    Some(encode_ids(&acc))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn id_lists_round_trip_in_both_encodings() {
        let sparse: RoaringBitmap = [3u32, 70_000, 9_000_000].into_iter().collect();
        let dense: RoaringBitmap = (100..50_000u32).collect();
        for ids in [sparse, dense, RoaringBitmap::new()] {
            let bytes = encode_ids(&ids);
            assert_eq!(decode_ids("t", &bytes).expect("decodes"), ids);
        }
        let dense: RoaringBitmap = (100..50_000u32).collect();
        assert_eq!(encode_ids(&dense)[0], IDS_ROARING, "a run is smaller as roaring");
    }

    #[test]
    fn name_keys_sort_by_run_then_name_then_id_and_parse_back() {
        let a = name_key(3, NameIndex::Simple, "foo", 7);
        let b = name_key(3, NameIndex::Simple, "foo", 300);
        let c = name_key(3, NameIndex::Simple, "foobar", 1);
        let d = name_key(4, NameIndex::Fqn, "a", 1);
        assert!(a < b && b < c && c < d);
        assert_eq!(parse_name_key(&b), Some((&b"Nfoo\0\0\0\x01\x2c"[..], 300)));
        let (start, end) = run_names_range(3);
        assert!(start.as_slice() <= a.as_slice() && c.as_slice() < end.as_slice());
        assert!(d.as_slice() >= end.as_slice());
        let (old_start, old_end) = FORMAT_1_NAMES;
        for tag in [b'F', b'L', b'N'] {
            assert!(old_start <= &[tag][..] && &[tag][..] < old_end);
        }
        assert!(d.as_slice() < old_start, "run-keyed names lie below format 1's");
        let format_1 = [&b"Nfoo\0"[..], &300u32.to_be_bytes()].concat();
        assert_eq!(format_1_name_id(&format_1), Some(300));
        assert_eq!(format_1_name_key_under(3, &format_1), b);
    }

    #[test]
    fn a_name_keys_filters_see_its_name_whatever_its_id() {
        let key = name_key(3, NameIndex::Fqn, "a.B", 300);
        let mut exact = name_prefix(3, NameIndex::Fqn, "a.B");
        assert_eq!(tagged_name_of_key(&key), Some(tagged_name_of_prefix(&exact)));
        assert_eq!(tagged_name_of_prefix(&exact), b"Fa.B");
        exact.push(0);
        assert!(is_name_key(&key));
        assert_eq!(
            name_key_prefix(&key),
            exact.as_slice(),
            "the prefix filter's key is the name's"
        );
        let first = first_name_key(&exact);
        assert!(is_name_key(&first) && name_key_prefix(&first) == exact.as_slice());
        assert!(first <= name_key(3, NameIndex::Fqn, "a.B", 0) && first < key);
        assert!(
            !is_name_key(&name_prefix(3, NameIndex::Lower, "a.b")),
            "a prefix search is not"
        );
    }

    #[test]
    fn prefix_end_is_the_next_prefix() {
        assert_eq!(prefix_end(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_end(&[1, 255]), Some(vec![2]));
        assert_eq!(prefix_end(&[255]), None);
    }
}
