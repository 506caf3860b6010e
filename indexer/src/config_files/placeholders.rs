//! Spring-style `${key}` / `${key:default}` placeholder resolution.
//!
//! Topic names, URLs and table names often reach code through placeholders
//! (`@Value("${payments.topics.completed}")` → `payment-events`), so the pipeline resolves
//! them against a service's config. Placeholders nest in keys, defaults and looked-up values;
//! a depth limit stops cycles (`a=${b}`, `b=${a}`) and a lookup budget stops values that
//! double at every level from taking exponential time. Whatever cannot be resolved stays in
//! the text as written and its key is reported.

/// Nesting of placeholders inside looked-up values beyond which resolution gives up.
const MAX_DEPTH: usize = 32;
/// Lookups one call may make.
const MAX_LOOKUPS: usize = 10_000;

use super::Resolved;

/// Replaces `${key}` and `${key:default}` in `value` using `lookup`.
pub(super) fn resolve(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> Resolved {
    let mut resolver = Resolver {
        lookup,
        lookups_left: MAX_LOOKUPS,
        unresolved: Vec::new(),
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
}

impl Resolver<'_> {
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
            out.push_str(&self.placeholder(whole, body, depth));
            rest = &rest[body_start + body_len + 1..];
        }
        out.push_str(rest);
        out
    }

    fn placeholder(&mut self, whole: &str, body: &str, depth: usize) -> String {
        let (raw_key, default) = match split_default(body) {
            Some((key, default)) => (key, Some(default)),
            None => (body, None),
        };
        if depth >= MAX_DEPTH || self.lookups_left == 0 {
            self.note_unresolved(raw_key);
            return whole.to_owned();
        }
        let key = self.resolve(raw_key, depth + 1);
        self.lookups_left -= 1;
        if let Some(found) = (self.lookup)(&key) {
            return self.resolve(&found, depth + 1);
        }
        match default {
            Some(default) => self.resolve(default, depth + 1),
            None => {
                self.note_unresolved(&key);
                whole.to_owned()
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
