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
        self.out.push_str(&format!("| {} |\n", headers.join(" | ")));
        self.out.push_str(&format!("|{}\n", "---|".repeat(headers.len())));
        for row in rows {
            let cells: Vec<String> = row.iter().map(|c| cell(c)).collect();
            self.out.push_str(&format!("| {} |\n", cells.join(" | ")));
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
    if text.is_empty() {
        return "-".into();
    }
    text.replace('\\', "\\\\")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// `code` spans for names.
pub(crate) fn tick(text: &str) -> String {
    if text.is_empty() {
        "-".into()
    } else {
        format!("`{}`", text.replace('`', "'"))
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
