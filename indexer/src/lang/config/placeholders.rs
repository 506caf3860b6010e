//! Spring-style `${key}` / `${key:default}` placeholder resolution.
//!
//! Topic names, URLs and table names often reach code through placeholders
//! (`@Value("${payments.topics.completed}")` → `payment-events`), so the pipeline resolves
//! them against a service's config. Placeholders nest in keys, defaults and looked-up values;
//! a depth limit stops cycles (`a=${b}`, `b=${a}`), a lookup budget stops values that
//! double at every level from taking exponential time, and a size cap stops them from taking
//! exponential memory (`p1=${p0}${p0}`, `p2=${p1}${p1}`, … over a long `p0` would otherwise
//! build a value of gigabytes from a file of kilobytes). Whatever cannot be resolved stays in
//! the text as written and its key is reported.

/// Nesting of placeholders inside looked-up values beyond which resolution gives up.
const MAX_DEPTH: usize = 32;
/// Lookups one call may make.
const MAX_LOOKUPS: usize = 10_000;

use std::collections::HashMap;

use super::{Resolved, MAX_RESOLVED_BYTES};

/// Replaces `${key}` and `${key:default}` in `value` using `lookup`.
pub(super) fn resolve(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Resolved {
    let mut resolver = Resolver {
        lookup,
        lookups_left: MAX_LOOKUPS,
        unresolved: Vec::new(),
        resolved: HashMap::new(),
    };
    let text = resolver.resolve(value, 0);
    Resolved {
        text,
        unresolved: resolver.unresolved,
    }
}

struct Resolver<'l> {
    lookup: &'l dyn Fn(&str) -> Option<String>,
    lookups_left: usize,
    unresolved: Vec<String>,
    /// Each key looked up so far and its value resolved (`None`: no such key). A key named
    /// twice is resolved once, so a value that doubles at every level costs one resolution
    /// per key, not one per leaf.
    resolved: HashMap<String, Option<String>>,
}

impl Resolver<'_> {
    /// `value` with its placeholders replaced; at most [`MAX_RESOLVED_BYTES`] longer than
    /// `value` (a placeholder whose value does not fit stays as written).
    fn resolve(&mut self, value: &str, depth: usize) -> String {
        let mut out = String::with_capacity(value.len());
        let mut rest = value;
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            let body_start = start + 2;
            let Some(body_len) = closing_brace(&rest[body_start..]) else {
                // No closing brace: not a placeholder, keep the text as written.
                out.push_str(&rest[start..]);
                return out;
            };
            let body = &rest[body_start..body_start + body_len];
            let whole = &rest[start..body_start + body_len + 1];
            match self.placeholder(body, depth) {
                Some(expanded) if out.len() + expanded.len() <= MAX_RESOLVED_BYTES => out.push_str(&expanded),
                Some(_) => {
                    // Past the cap the placeholder stays as written, like one nothing resolves.
                    let (key, _) = split_default(body).unwrap_or((body, ""));
                    self.note_unresolved(key);
                    out.push_str(whole);
                }
                None => out.push_str(whole),
            }
            rest = &rest[body_start + body_len + 1..];
        }
        out.push_str(rest);
        out
    }

    /// The text of one placeholder's `body` (`key` or `key:default`); `None` when it stays
    /// as written (noted as unresolved).
    fn placeholder(&mut self, body: &str, depth: usize) -> Option<String> {
        let (raw_key, default) = match split_default(body) {
            Some((key, default)) => (key, Some(default)),
            None => (body, None),
        };
        if depth >= MAX_DEPTH {
            self.note_unresolved(raw_key);
            return None;
        }
        let key = self.resolve(raw_key, depth + 1);
        let found = match self.resolved.get(&key) {
            Some(known) => known.clone(),
            None if self.lookups_left == 0 => {
                self.note_unresolved(&key);
                return None;
            }
            None => {
                self.lookups_left -= 1;
                let value = (self.lookup)(&key).map(|found| self.resolve(&found, depth + 1));
                self.resolved.insert(key.clone(), value.clone());
                value
            }
        };
        if found.is_some() {
            return found;
        }
        match default {
            Some(default) => Some(self.resolve(default, depth + 1)),
            None => {
                self.note_unresolved(&key);
                None
            }
        }
    }

    fn note_unresolved(&mut self, key: &str) {
        if !self.unresolved.iter().any(|k| k == key) {
            self.unresolved.push(key.to_owned());
        }
    }
}

/// Length of the placeholder body: up to the `}` that closes it, skipping nested `${…}`.
fn closing_brace(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'$' if bytes.get(i + 1) == Some(&b'{') => {
                depth += 1;
                i += 1;
            }
            // A bare `{` (e.g. `{id}` in a default URL) also needs its `}`.
            b'{' => depth += 1,
            b'}' if depth == 0 => return Some(i),
            b'}' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Splits `key:default` at the first `:` outside nested placeholders.
fn split_default(body: &str) -> Option<(&str, &str)> {
    let bytes = body.as_bytes();
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth = depth.saturating_sub(1),
            b':' if depth == 0 => return Some((&body[..i], &body[i + 1..])),
            _ => {}
        }
    }
    None
}
