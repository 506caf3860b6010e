//! `.properties` reader following `java.util.Properties.load`, which is what Spring uses.
//!
//! Logical lines join physical lines ending in an odd number of backslashes; the key ends at
//! the first unescaped `=`, `:` or whitespace; escapes (`\t`, `\n`, `\uXXXX`, `\=`, ...) are
//! decoded in keys and values. Spring Boot's multi-document form (a `#---` or `!---` line
//! starting a new document) splits the result, so each part can carry its own profile.

use super::{entry, line_u32, warning, ConfigEntry, ConfigWarning};

/// Parses the file into documents of entries (one unless `#---` separators are used).
pub(super) fn parse(text: &str, warnings: &mut Vec<ConfigWarning>) -> Vec<Vec<ConfigEntry>> {
    let mut documents = vec![Vec::new()];
    let mut lines = text.lines().enumerate().peekable();
    while let Some((index, raw)) = lines.next() {
        let line_no = line_u32(index + 1);
        let trimmed = raw.trim_start_matches([' ', '\t', '\u{c}']);
        if trimmed.is_empty() {
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with('!') {
            if matches!(trimmed.trim_end(), "#---" | "!---") {
                documents.push(Vec::new());
            }
            continue;
        }
        // Join continuation lines: the leading whitespace of each continuation is dropped.
        let mut logical = String::from(trimmed);
        while ends_with_odd_backslashes(&logical) {
            logical.pop();
            match lines.next() {
                Some((_, next)) => {
                    logical.push_str(next.trim_start_matches([' ', '\t', '\u{c}']));
                }
                None => break,
            }
        }
        let (key, value) = split_key_value(&logical);
        let key = unescape(key, line_no, warnings);
        let value = unescape(value, line_no, warnings);
        if let Some(document) = documents.last_mut() {
            document.push(entry(key, value, line_no));
        }
    }
    documents
}

fn ends_with_odd_backslashes(line: &str) -> bool {
    line.bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

/// Splits a logical line into its raw (still escaped) key and value.
fn split_key_value(line: &str) -> (&str, &str) {
    let mut escaped = false;
    let mut key_end = line.len();
    for (i, c) in line.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if matches!(c, '=' | ':' | ' ' | '\t' | '\u{c}') {
            key_end = i;
            break;
        }
    }
    let key = &line[..key_end];
    let rest = line[key_end..].trim_start_matches([' ', '\t', '\u{c}']);
    let rest = rest
        .strip_prefix(['=', ':'])
        .map_or(rest, |r| r.trim_start_matches([' ', '\t', '\u{c}']));
    (key, rest)
}

fn unescape(raw: &str, line: u32, warnings: &mut Vec<ConfigWarning>) -> String {
    if !raw.contains('\\') {
        return raw.to_owned();
    }
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    // A `\uD83D\uDE00` pair encodes one character, so a high surrogate waits for its partner.
    let mut pending_high: Option<u32> = None;
    while let Some(c) = chars.next() {
        if c != '\\' {
            flush_surrogate(&mut pending_high, &mut out);
            out.push(c);
            continue;
        }
        let Some(escaped) = chars.next() else {
            break;
        };
        if escaped != 'u' {
            flush_surrogate(&mut pending_high, &mut out);
            out.push(match escaped {
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                'f' => '\u{c}',
                other => other,
            });
            continue;
        }
        let hex: String = chars.clone().take(4).collect();
        let code = (hex.len() == 4)
            .then(|| u32::from_str_radix(&hex, 16).ok())
            .flatten();
        let Some(code) = code else {
            warnings.push(warning(line, format!("malformed \\u escape `\\u{hex}`")));
            flush_surrogate(&mut pending_high, &mut out);
            out.push_str("\\u");
            continue;
        };
        for _ in 0..4 {
            chars.next();
        }
        match (pending_high.take(), code) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let combined = 0x10000 + ((high - 0xD800) << 10) + (code - 0xDC00);
                out.push(char::from_u32(combined).unwrap_or('\u{FFFD}'));
            }
            (previous, 0xD800..=0xDBFF) => {
                if previous.is_some() {
                    out.push('\u{FFFD}');
                }
                pending_high = Some(code);
            }
            (previous, _) => {
                if previous.is_some() {
                    out.push('\u{FFFD}');
                }
                out.push(char::from_u32(code).unwrap_or('\u{FFFD}'));
            }
        }
    }
    flush_surrogate(&mut pending_high, &mut out);
    out
}

fn flush_surrogate(pending_high: &mut Option<u32>, out: &mut String) {
    if pending_high.take().is_some() {
        out.push('\u{FFFD}');
    }
}
