//! Markdown building blocks shared by every endpoint's renderer.
//!
//! Results are computed first into plain structs (which serialize as the JSON answer), then
//! rendered here; no query logic lives in rendering. Tables escape their cells so a `|` in a
//! signature never breaks a row; code fences grow past any backtick run in the source.

use serde::Serialize;

use crate::error::{ErrorKind, QueryError};
use crate::Document;

/// A markdown document under construction.
pub(crate) struct Md {
    out: String,
}

impl Md {
    pub(crate) fn new(title: &str) -> Md {
        Md {
            out: format!("# {title}\n\n"),
        }
    }

    pub(crate) fn h2(&mut self, text: &str) -> &mut Md {
        self.out.push_str(&format!("## {text}\n\n"));
        self
    }

    pub(crate) fn h3(&mut self, text: &str) -> &mut Md {
        self.out.push_str(&format!("### {text}\n\n"));
        self
    }

    pub(crate) fn para(&mut self, text: &str) -> &mut Md {
        self.out.push_str(text.trim_end());
        self.out.push_str("\n\n");
        self
    }

    pub(crate) fn line(&mut self, text: &str) -> &mut Md {
        self.out.push_str(text);
        self.out.push('\n');
        self
    }

    pub(crate) fn blank(&mut self) -> &mut Md {
        self.out.push('\n');
        self
    }

    pub(crate) fn bullets<I: IntoIterator<Item = String>>(&mut self, items: I) -> &mut Md {
        let mut any = false;
        for i in items {
            self.out.push_str(&format!("- {i}\n"));
            any = true;
        }
        if any {
            self.out.push('\n');
        }
        self
    }

    /// A table; `empty` is said instead when there are no rows.
    pub(crate) fn table(&mut self, headers: &[&str], rows: &[Vec<String>], empty: &str) -> &mut Md {
        if rows.is_empty() {
            return self.para(empty);
        }
        self.out.push_str("| ");
        self.out.push_str(&headers.join(" | "));
        self.out.push_str(" |\n|");
        for _ in headers {
            self.out.push_str("---|");
        }
        self.out.push('\n');
        // Each cell is escaped straight into the document: a recipe's tables are most of
        // its rows, and a string per cell, a vector per row and a join were a tenth of the
        // CPU of an impact answer under load.
        for row in rows {
            self.out.push_str("| ");
            for (i, c) in row.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(" | ");
                }
                push_cell(&mut self.out, c);
            }
            self.out.push_str(" |\n");
        }
        self.out.push('\n');
        self
    }

    /// A fenced code block, preceded by its location.
    pub(crate) fn code(&mut self, lang: &str, location: &str, text: &str) -> &mut Md {
        if !location.is_empty() {
            self.out.push_str(&format!("`{location}`\n\n"));
        }
        let mut fence = "```".to_string();
        while text.contains(&fence) {
            fence.push('`');
        }
        self.out.push_str(&format!(
            "{fence}{lang}\n{}\n{fence}\n\n",
            text.trim_end_matches('\n')
        ));
        self
    }

    pub(crate) fn finish(self) -> String {
        let mut out = self.out;
        while out.ends_with("\n\n") {
            out.pop();
        }
        out
    }
}

/// A table cell: one line, pipes escaped, empty shown as `-`.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_cell(&mut out, text);
    out
}

/// [`cell`], appended to `out`.
fn push_cell(out: &mut String, text: &str) {
    if text.is_empty() {
        out.push('-');
        return;
    }
    let mut rest = text;
    while let Some(at) = rest.find(['\\', '|', '\n', '\r']) {
        out.push_str(&rest[..at]);
        out.push_str(match rest.as_bytes()[at] {
            b'\\' => "\\\\",
            b'|' => "\\|",
            _ => " ",
        });
        rest = &rest[at + 1..];
    }
    out.push_str(rest);
}

/// `code` spans for names.
pub(crate) fn tick(text: &str) -> String {
    if text.is_empty() {
        "-".into()
    } else {
        let mut out = String::with_capacity(text.len() + 2);
        out.push('`');
        let mut parts = text.split('`');
        out.push_str(parts.next().unwrap_or_default());
        for part in parts {
            out.push('\'');
            out.push_str(part);
        }
        out.push('`');
        out
    }
}

/// Bundles a rendered document with the JSON of its result.
pub(crate) fn document<T: Serialize>(
    title: &str,
    markdown: String,
    result: &T,
) -> Result<Document, QueryError> {
    let json = serde_json::to_string(result).map_err(|e| {
        QueryError::new(
            ErrorKind::Internal,
            format!("# 500: the answer could not be encoded\n\n{e}\n"),
        )
    })?;
    Ok(Document {
        title: title.to_string(),
        markdown,
        json,
    })
}

/// Seconds with millisecond precision, as the trace prints them.
pub(crate) fn seconds(d: std::time::Duration) -> String {
    format!("{:.3}s", d.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The escaping as first written, one pass per character replaced: the reference the
    /// one-pass escaping must equal.
    fn cell_reference(text: &str) -> String {
        if text.is_empty() {
            return "-".into();
        }
        text.replace('\\', "\\\\")
            .replace('|', "\\|")
            .replace(['\n', '\r'], " ")
    }

    fn tick_reference(text: &str) -> String {
        if text.is_empty() {
            "-".into()
        } else {
            format!("`{}`", text.replace('`', "'"))
        }
    }

    fn table_reference(headers: &[&str], rows: &[Vec<String>]) -> String {
        let mut out = format!("| {} |\n", headers.join(" | "));
        out.push_str(&format!("|{}\n", "---|".repeat(headers.len())));
        for row in rows {
            let cells: Vec<String> = row.iter().map(|c| cell_reference(c)).collect();
            out.push_str(&format!("| {} |\n", cells.join(" | ")));
        }
        out.push('\n');
        out
    }

    #[test]
    fn cells_escape_pipes_and_backslashes_and_join_lines() {
        assert_eq!(cell(""), "-");
        assert_eq!(cell(r"a|b\c"), r"a\|b\\c");
        assert_eq!(cell("one\r\ntwo\n"), "one  two ");
        assert_eq!(cell(r"\|"), r"\\\|");
        assert_eq!(tick("a`b`"), "`a'b'`");
        assert_eq!(tick(""), "-");
    }

    proptest! {
        #[test]
        fn escaping_matches_the_reference(text in r"[a-c|\\`\r\n é]{0,24}") {
            prop_assert_eq!(cell(&text), cell_reference(&text));
            prop_assert_eq!(tick(&text), tick_reference(&text));
        }

        #[test]
        fn tables_match_the_reference(
            rows in prop::collection::vec(prop::collection::vec(r"[a|\\\n]{0,6}", 3), 1..5)
        ) {
            let headers = ["one", "two", "three"];
            let mut md = Md { out: String::new() };
            md.table(&headers, &rows, "none");
            prop_assert_eq!(md.out, table_reference(&headers, &rows));
        }
    }
}
