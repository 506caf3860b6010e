//! Cutting a SQL file into statements before anything tries to parse them.
//!
//! A real schema file is not a list of `;`-terminated statements: comments and strings hold
//! `;`, PostgreSQL bodies are dollar-quoted, MySQL scripts change the delimiter with
//! `DELIMITER $$`, and `pg_dump` output carries `COPY … FROM stdin` data blocks. Splitting
//! here, with one byte scan that knows those forms, lets one bad statement be skipped while
//! its neighbours still count, and gives every statement the line it starts on.

use super::SqlDialect;

/// One statement of a file: its text without the delimiter, and the 1-based line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Statement {
    /// The statement's text, from its first keyword to just before its delimiter.
    pub(crate) text: String,
    /// The 1-based line of the statement's first keyword.
    pub(crate) line: u32,
}

/// Splits `text` into statements. Comments between statements are dropped; an unterminated
/// string, comment or dollar-quoted body runs to the end of the file and ends the last
/// statement there.
pub(crate) fn split_statements(text: &str, dialect: SqlDialect) -> Vec<Statement> {
    let mut splitter = Splitter {
        text,
        bytes: text.as_bytes(),
        pos: 0,
        line: 1,
        mysql: dialect == SqlDialect::MySql,
        out: Vec::new(),
    };
    splitter.run();
    splitter.out
}

struct Splitter<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    mysql: bool,
    out: Vec<Statement>,
}

impl Splitter<'_> {
    fn run(&mut self) {
        let mut delimiter = String::from(";");
        // Where the current statement starts (byte offset and line), once a byte that is not
        // whitespace or comment has been seen.
        let mut start: Option<(usize, u32)> = None;
        while self.pos < self.bytes.len() {
            let b = self.bytes[self.pos];
            if start.is_none() {
                if b.is_ascii_whitespace() {
                    self.advance(1);
                    continue;
                }
                if let Some(new) = self.delimiter_command() {
                    delimiter = new;
                    continue;
                }
            }
            if self.skip_comment() {
                continue;
            }
            if self.bytes[self.pos..].starts_with(delimiter.as_bytes()) {
                let end = self.pos;
                self.advance(delimiter.len());
                if let Some((s, line)) = start.take() {
                    self.finish(s, end, line);
                }
                continue;
            }
            if start.is_none() {
                start = Some((self.pos, self.line));
            }
            match b {
                b'\'' => self.skip_quoted(b'\'', self.mysql),
                b'"' => self.skip_quoted(b'"', false),
                b'`' => self.skip_quoted(b'`', false),
                b'$' if !self.mysql => {
                    if !self.skip_dollar_quoted() {
                        self.advance(1);
                    }
                }
                _ => self.advance(1),
            }
        }
        if let Some((s, line)) = start {
            self.finish(s, self.bytes.len(), line);
        }
    }

    /// Records the statement `[start, end)`, then skips the data of a `COPY … FROM stdin`.
    fn finish(&mut self, start: usize, end: usize, line: u32) {
        let text = self.text.get(start..end).unwrap_or_default().trim_end();
        if text.is_empty() {
            return;
        }
        let is_copy_from_stdin = text.len() >= 4
            && text.as_bytes()[..4].eq_ignore_ascii_case(b"COPY")
            && text.to_ascii_lowercase().contains("from stdin");
        self.out.push(Statement {
            text: text.to_owned(),
            line,
        });
        if is_copy_from_stdin {
            self.skip_copy_data();
        }
    }

    /// Skips the rest of the `COPY` line and its data lines, up to and including `\.`.
    fn skip_copy_data(&mut self) {
        self.skip_line();
        while self.pos < self.bytes.len() {
            let line_start = self.pos;
            self.skip_line();
            let line = &self.bytes[line_start..self.pos];
            if line.trim_ascii() == b"\\." {
                return;
            }
        }
    }

    /// Moves past the next newline (or to the end of the text).
    fn skip_line(&mut self) {
        match self.bytes[self.pos..].iter().position(|&b| b == b'\n') {
            Some(i) => self.advance(i + 1),
            None => self.advance(self.bytes.len() - self.pos),
        }
    }

    /// At a statement start, reads a MySQL client `DELIMITER x` line and returns `x`.
    fn delimiter_command(&mut self) -> Option<String> {
        const WORD: &[u8] = b"DELIMITER";
        let rest = &self.bytes[self.pos..];
        if rest.len() <= WORD.len()
            || !rest[..WORD.len()].eq_ignore_ascii_case(WORD)
            || !matches!(rest[WORD.len()], b' ' | b'\t')
        {
            return None;
        }
        let line_start = self.pos;
        self.skip_line();
        let line = self
            .text
            .get(line_start + WORD.len()..self.pos)
            .unwrap_or_default();
        let new = line.split_whitespace().next().unwrap_or(";");
        Some(new.to_owned())
    }

    /// Skips a `--`, `#` (MySQL) or `/* */` comment at the cursor; false when there is none.
    fn skip_comment(&mut self) -> bool {
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(b"--") || (self.mysql && rest.first() == Some(&b'#')) {
            match rest.iter().position(|&b| b == b'\n') {
                // The newline itself is left for the caller: it may end nothing, but it counts.
                Some(i) => self.advance(i),
                None => self.advance(rest.len()),
            }
            return true;
        }
        if rest.starts_with(b"/*") {
            // PostgreSQL nests block comments; MySQL and H2 do not, and an inner `/*` there
            // is just text.
            let mut depth = 0usize;
            let mut i = 0;
            while i < rest.len() {
                if rest[i..].starts_with(b"/*") && (depth == 0 || !self.mysql) {
                    depth += 1;
                    i += 2;
                } else if rest[i..].starts_with(b"*/") {
                    depth = depth.saturating_sub(1);
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            self.advance(i.min(rest.len()));
            return true;
        }
        false
    }

    /// Skips a quoted string or identifier; a doubled quote is an escaped quote, and so is a
    /// backslash-escaped one where `backslash` is set (MySQL strings).
    fn skip_quoted(&mut self, quote: u8, backslash: bool) {
        let rest = &self.bytes[self.pos..];
        let mut i = 1;
        while i < rest.len() {
            let b = rest[i];
            if backslash && b == b'\\' {
                i += 2;
                continue;
            }
            if b == quote {
                if rest.get(i + 1) == Some(&quote) {
                    i += 2;
                    continue;
                }
                i += 1;
                break;
            }
            i += 1;
        }
        self.advance(i.min(rest.len()));
    }

    /// Skips a PostgreSQL dollar-quoted string (`$$…$$`, `$tag$…$tag$`); false when the `$`
    /// at the cursor does not open one (a `$1` parameter, say).
    fn skip_dollar_quoted(&mut self) -> bool {
        let Some(tag_len) = dollar_tag_len(&self.bytes[self.pos..]) else {
            return false;
        };
        if self.pos > 0 {
            let prev = self.bytes[self.pos - 1];
            if prev.is_ascii_alphanumeric() || prev == b'_' {
                return false;
            }
        }
        let tag = &self.bytes[self.pos..self.pos + tag_len];
        let body_start = self.pos + tag_len;
        let end = find(&self.bytes[body_start..], tag).map_or(self.bytes.len(), |i| body_start + i + tag_len);
        self.advance(end - self.pos);
        true
    }

    /// Moves the cursor `n` bytes, counting the newlines passed.
    fn advance(&mut self, n: usize) {
        let end = (self.pos + n).min(self.bytes.len());
        let newlines = self.bytes[self.pos..end].iter().filter(|&&b| b == b'\n').count();
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
        self.pos = end;
    }
}

/// The length of a dollar-quote tag (`$$` or `$name$`) at the start of `s`.
pub(super) fn dollar_tag_len(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'$') {
        return None;
    }
    let mut i = 1;
    while i < s.len() {
        let b = s[i];
        if b == b'$' {
            return Some(i + 1);
        }
        let ok = b.is_ascii_alphabetic() || b == b'_' || (i > 1 && b.is_ascii_digit());
        if !ok {
            return None;
        }
        i += 1;
    }
    None
}

/// The offset of the first occurrence of `needle` in `hay`.
pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return None;
    }
    hay.windows(needle.len()).position(|w| w == needle)
}
