//! The tokenizer of the search term index, shared by wiki pages and Jira issues.
//!
//! People search for `order service` as often as for `OrderService`, and for
//! `status_history` as often as for `order_status_history`; so an identifier is indexed
//! whole and by its parts. Everything is lower-cased; words shorter than two characters
//! and a short list of English stop words are dropped. Terms come out in text order with
//! repeats, so callers can count frequencies.

/// Words too common to help a search. Kept short on purpose: in this domain, words like
/// `order` or `status` are exactly what people look for.
const STOP_WORDS: [&str; 33] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "has", "have", "if", "in", "into", "is",
    "it", "its", "not", "of", "on", "or", "so", "that", "the", "their", "then", "there", "this", "to", "was",
    "were", "with",
];

/// See [`super::terms`].
pub(super) fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        let word = word.trim_matches('_');
        if word.is_empty() {
            continue;
        }
        let parts = split_identifier(word);
        push_term(word, &mut out);
        if parts.len() > 1 {
            for part in parts {
                push_term(part, &mut out);
            }
        }
    }
    out
}

fn push_term(word: &str, out: &mut Vec<String>) {
    if word.chars().count() < 2 {
        return;
    }
    let lower = word.to_lowercase();
    if !STOP_WORDS.contains(&lower.as_str()) {
        out.push(lower);
    }
}

/// `OrderStatusHistory` → `Order`, `Status`, `History`; `HTTPClient` → `HTTP`, `Client`;
/// `order_lines` → `order`, `lines`; digits stay with the letters before them (`v2`).
fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let chars: Vec<(usize, char)> = piece.char_indices().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            let (at, c) = chars[i];
            let prev = chars[i - 1].1;
            let next_is_lower = chars.get(i + 1).is_some_and(|&(_, n)| n.is_lowercase());
            let boundary = c.is_uppercase()
                && (prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_is_lower));
            if boundary {
                parts.push(&piece[start..at]);
                start = at;
            }
        }
        parts.push(&piece[start..]);
    }
    parts
}
