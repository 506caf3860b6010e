//! Mention candidates: the strings in prose that may name an endpoint, a type, a method or
//! a table.
//!
//! This is deliberately a recall-first pass over text alone. Whether `orders` is the table
//! or the product, and which `OrderService` a page means, is decided later by the pipeline
//! against the graph's names; here we only make sure every plausible name is offered once,
//! in the order it first appears. Code spans are trusted more than prose: a lone lowercase
//! word in backticks (`refunds`) is offered as an identifier, the same word in a sentence is
//! not.

/// A string in a page or ticket that may name something in the graph.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum MentionCandidate {
    /// `POST /api/orders`; the path without query string or fragment.
    Endpoint { verb: String, path: String },
    /// A dotted Java-like name: `com.acme.orders.OrderService`, `OrderService.placeOrder`.
    QualifiedName(String),
    /// A CamelCase or snake_case word, or any single identifier written as code.
    Identifier(String),
    /// An explicit `kind:value`, e.g. `table:orders`.
    Prefixed { kind: String, value: String },
}

const HTTP_VERBS: [&str; 7] = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"];

/// The kinds an explicit `kind:value` may name; others (`jdbc:postgresql`, `classpath:db`)
/// are URLs and resource locations, not mentions.
const PREFIX_KINDS: [&str; 12] = [
    "product", "service", "type", "class", "method", "table", "column", "view", "endpoint", "routine",
    "topic", "config",
];

/// Words that come before "table" in prose without naming one.
const NOT_TABLE_NAMES: [&str; 12] = [
    "the", "a", "an", "this", "that", "each", "every", "same", "one", "its", "their", "own",
];

/// Last segments that make a dotted word a file name rather than a qualified name.
const FILE_EXTENSIONS: [&str; 14] = [
    "sql",
    "yml",
    "yaml",
    "md",
    "java",
    "xml",
    "json",
    "properties",
    "txt",
    "html",
    "kt",
    "env",
    "sh",
    "csv",
];

/// Collects candidates from code spans (contents of inline code or monospace) and prose.
pub(crate) fn mention_candidates(code_spans: &[String], prose: &str) -> Vec<MentionCandidate> {
    let mut out = Candidates::default();
    for span in code_spans {
        out.code_span(span);
    }
    out.prose(prose);
    out.list
}

#[derive(Default)]
struct Candidates {
    list: Vec<MentionCandidate>,
    seen: std::collections::HashSet<MentionCandidate>,
}

impl Candidates {
    fn push(&mut self, candidate: MentionCandidate) {
        if self.seen.insert(candidate.clone()) {
            self.list.push(candidate);
        }
    }

    fn code_span(&mut self, span: &str) {
        let span = span.trim();
        if let Some(endpoint) = endpoint_at(span) {
            self.push(endpoint);
            return;
        }
        if let Some(prefixed) = prefixed(span) {
            self.push(prefixed);
            return;
        }
        // `OrderService.placeOrder(cmd)` names the method.
        let name = span.split_once('(').map_or(span, |(name, _)| name);
        if is_identifier(name) && name.len() >= 2 {
            self.push(MentionCandidate::Identifier(name.to_owned()));
            return;
        }
        if is_qualified_name(name) && !is_file_name(name) {
            self.push(MentionCandidate::QualifiedName(name.to_owned()));
            return;
        }
        self.prose(span);
    }

    fn prose(&mut self, text: &str) {
        let words: Vec<&str> = text.split_whitespace().collect();
        for (i, raw_word) in words.iter().enumerate() {
            // `(POST /api/x)`: the verb may carry the punctuation of the sentence.
            let word = &raw_word.trim_start_matches(['(', '[', '"', '\'', '`']);
            if HTTP_VERBS.contains(word) {
                if let Some(path) = words.get(i + 1).and_then(|next| endpoint_path(next)) {
                    self.push(MentionCandidate::Endpoint {
                        verb: (*word).to_owned(),
                        path,
                    });
                }
                continue;
            }
            if let Some(prefixed) = prefixed(word.trim_end_matches(['.', ',', ';', ')'])) {
                self.push(prefixed);
                continue;
            }
            if word.starts_with('/') || word.contains("://") {
                continue;
            }
            // "the orders table", "the reservations table": the word before names a table.
            let bare = word.trim_end_matches(['.', ',', ';', ':', ')']);
            if matches!(bare, "table" | "tables") && i > 0 {
                if let Some(name) = words.get(i - 1).map(|w| w.trim_matches(['(', '`', '"'])) {
                    let lowercase = !name.chars().any(|c| c.is_ascii_uppercase());
                    if is_identifier(name) && lowercase && name.len() >= 2 && !NOT_TABLE_NAMES.contains(&name)
                    {
                        self.push(MentionCandidate::Identifier(name.to_owned()));
                    }
                }
            }
            for token in
                word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '$'))
            {
                let token = token.trim_matches('.');
                if is_file_name(token) {
                    continue;
                }
                if is_qualified_name(token) && has_type_segment(token) {
                    self.push(MentionCandidate::QualifiedName(token.to_owned()));
                } else {
                    // `payment_repository.save`: not a Java name as a whole, but its parts
                    // may still be code words.
                    for part in token.split('.') {
                        if is_identifier(part) && (is_camel_case(part) || is_snake_case(part)) {
                            self.push(MentionCandidate::Identifier(part.to_owned()));
                        }
                    }
                }
            }
        }
    }
}

/// `GET /api/orders?x=1` at the start of `text`.
fn endpoint_at(text: &str) -> Option<MentionCandidate> {
    let (verb, rest) = text.split_once(char::is_whitespace)?;
    if !HTTP_VERBS.contains(&verb) {
        return None;
    }
    let path = endpoint_path(rest.split_whitespace().next()?)?;
    Some(MentionCandidate::Endpoint {
        verb: verb.to_owned(),
        path,
    })
}

/// The path of an endpoint word: starts with `/`, loses query, fragment and trailing
/// sentence punctuation.
fn endpoint_path(word: &str) -> Option<String> {
    let word = word.trim_start_matches(['(', '`', '"', '\'']);
    if !word.starts_with('/') {
        return None;
    }
    let end = word.find(['?', '#', '`', '"', '\'']).unwrap_or(word.len());
    let path = word[..end].trim_end_matches(['.', ',', ';', ':', ')', '!']);
    (path.len() > 1).then(|| path.to_owned())
}

fn prefixed(text: &str) -> Option<MentionCandidate> {
    let (kind, value) = text.split_once(':')?;
    let kind_lower = kind.to_ascii_lowercase();
    if !PREFIX_KINDS.contains(&kind_lower.as_str()) {
        return None;
    }
    let value = value.trim();
    if value.is_empty() || value.starts_with('/') {
        return None;
    }
    Some(MentionCandidate::Prefixed {
        kind: kind_lower,
        value: value.to_owned(),
    })
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

fn is_qualified_name(s: &str) -> bool {
    let mut segments = 0;
    for segment in s.split('.') {
        if !is_identifier(segment) {
            return false;
        }
        segments += 1;
    }
    segments >= 2
}

/// Prose is full of dotted words that are not code (`e.g`, `orders.backlog`); a segment
/// starting with an upper-case letter is what makes one look like Java.
fn has_type_segment(s: &str) -> bool {
    s.split('.').any(|segment| {
        segment.starts_with(|c: char| c.is_ascii_uppercase())
            && segment.chars().any(|c| c.is_ascii_lowercase())
    })
}

fn is_file_name(s: &str) -> bool {
    s.rsplit_once('.')
        .is_some_and(|(_, ext)| FILE_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str()))
}

/// `OrderService`, `placeOrder`, `DTOs`: lower-case letters with an upper-case letter after
/// the first character.
fn is_camel_case(s: &str) -> bool {
    s.chars().any(|c| c.is_ascii_lowercase()) && s.chars().skip(1).any(|c| c.is_ascii_uppercase())
}

/// `order_lines`, `ORDER_PLACED`: an underscore between letters or digits.
fn is_snake_case(s: &str) -> bool {
    let trimmed = s.trim_matches('_');
    trimmed.contains('_') && trimmed.chars().any(|c| c.is_ascii_alphabetic())
}
