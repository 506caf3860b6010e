//! `.env` reader in the dialect docker compose and the dotenv libraries share.
//!
//! `KEY=value` or `export KEY=value`; `#` starts a comment line, or an inline comment after
//! whitespace in an unquoted value; single quotes are literal, double quotes decode `\n`,
//! `\t`, `\"` and `\\`. Multi-line quoted values are not supported: the value ends at the
//! end of its line with a warning.

use super::{entry, line_u32, warning, ConfigEntry, ConfigWarning};

pub(super) fn parse(text: &str, warnings: &mut Vec<ConfigWarning>) -> Vec<ConfigEntry> {
    let mut entries = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line_no = line_u32(index + 1);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line
            .strip_prefix("export")
            .filter(|rest| rest.starts_with([' ', '\t']))
            .map_or(line, str::trim_start);
        let Some((key, value)) = line.split_once('=') else {
            warnings.push(warning(line_no, "expected KEY=value".to_owned()));
            continue;
        };
        let key = key.trim_end();
        if !is_env_key(key) {
            warnings.push(warning(line_no, format!("invalid variable name `{key}`")));
            continue;
        }
        let value = read_value(value.trim_start(), line_no, warnings);
        entries.push(entry(key.to_owned(), value, line_no));
    }
    entries
}

fn is_env_key(key: &str) -> bool {
    let mut chars = key.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

fn read_value(value: &str, line: u32, warnings: &mut Vec<ConfigWarning>) -> String {
    if let Some(rest) = value.strip_prefix('\'') {
        return match rest.find('\'') {
            Some(end) => rest[..end].to_owned(),
            None => {
                warnings.push(warning(line, "unterminated single quote".to_owned()));
                rest.to_owned()
            }
        };
    }
    if let Some(rest) = value.strip_prefix('"') {
        let mut out = String::with_capacity(rest.len());
        let mut chars = rest.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => return out,
                '\\' => match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some('r') => out.push('\r'),
                    Some(other @ ('"' | '\\' | '$')) => out.push(other),
                    Some(other) => {
                        out.push('\\');
                        out.push(other);
                    }
                    None => out.push('\\'),
                },
                other => out.push(other),
            }
        }
        warnings.push(warning(line, "unterminated double quote".to_owned()));
        return out;
    }
    // An unquoted value ends at a `#` preceded by whitespace.
    let end = value
        .char_indices()
        .find(|&(i, c)| c == '#' && i > 0 && value[..i].ends_with([' ', '\t']))
        .map_or(value.len(), |(i, _)| i);
    value[..end].trim_end().to_owned()
}
