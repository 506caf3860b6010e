//! A tolerant SQL token scan, for the text sqlparser cannot take.
//!
//! PL/pgSQL bodies, MySQL compound statements and the headers of triggers and routines in
//! every dialect are beyond sqlparser (or change shape between its releases); yet all we need
//! from them is names: which tables a body reads and writes, what a trigger fires on. This
//! lexer never fails — anything it does not know becomes a one-byte punctuation token — and
//! the touch scan looks only at the few keyword shapes that name a table.

use std::collections::HashSet;

use super::split::{dollar_tag_len, find};
use super::Access;

/// What a token is; the text of words and strings is in [`Tok::text`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// An unquoted identifier or keyword.
    Word,
    /// A quoted identifier (`"x"`, `` `x` ``, `[x]`); the text is without quotes.
    Quoted,
    /// A string literal; the text is without quotes, escapes left as written.
    Str,
    /// A dollar-quoted string; the text is the body between the tags.
    Dollar,
    /// A number.
    Number,
    /// Any other single character.
    Punct(u8),
}

/// One token with its byte span in the scanned text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Tok<'a> {
    pub(super) kind: Kind,
    pub(super) text: &'a str,
    pub(super) start: usize,
    pub(super) end: usize,
}

impl Tok<'_> {
    /// Whether this is the unquoted word `kw` (ASCII case-insensitive).
    pub(super) fn is(&self, kw: &str) -> bool {
        self.kind == Kind::Word && self.text.eq_ignore_ascii_case(kw)
    }

    /// Whether this is the punctuation `c`.
    pub(super) fn is_punct(&self, c: u8) -> bool {
        self.kind == Kind::Punct(c)
    }

    /// Whether this token can be (part of) an object name: a quoted identifier, or a word
    /// that is not a clause keyword.
    pub(super) fn is_name(&self) -> bool {
        match self.kind {
            Kind::Quoted => true,
            Kind::Word => !is_reserved(self.text),
            _ => false,
        }
    }
}

/// Splits `text` into tokens, skipping whitespace and comments. `mysql` selects MySQL's
/// lexical rules: backslash escapes in strings, `#` comments, no dollar quoting.
pub(super) fn tokenize(text: &str, mysql: bool) -> Vec<Tok<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let rest = &bytes[i..];
        if rest.starts_with(b"--") || (mysql && b == b'#') {
            i += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            continue;
        }
        if rest.starts_with(b"/*") {
            i += find(&rest[2..], b"*/").map_or(rest.len(), |e| e + 4);
            continue;
        }
        let start = i;
        let (kind, text_start, text_end, next) = if is_word_byte(b) && !b.is_ascii_digit() {
            let len = rest
                .iter()
                .position(|&c| !is_word_byte(c) && c != b'$')
                .unwrap_or(rest.len());
            (Kind::Word, i, i + len, i + len)
        } else if b.is_ascii_digit() {
            let len = rest
                .iter()
                .position(|&c| !is_word_byte(c) && c != b'.')
                .unwrap_or(rest.len());
            (Kind::Number, i, i + len, i + len)
        } else if b == b'\'' {
            let end = quoted_end(rest, b'\'', mysql);
            (Kind::Str, i + 1, i + end.saturating_sub(1).max(1), i + end)
        } else if b == b'"' || b == b'`' {
            let end = quoted_end(rest, b, false);
            (Kind::Quoted, i + 1, i + end.saturating_sub(1).max(1), i + end)
        } else if b == b'$' && !mysql && dollar_tag_len(rest).is_some() {
            let tag_len = dollar_tag_len(rest).unwrap_or(1);
            let tag = &rest[..tag_len];
            match find(&rest[tag_len..], tag) {
                Some(e) => (
                    Kind::Dollar,
                    i + tag_len,
                    i + tag_len + e,
                    i + tag_len + e + tag_len,
                ),
                None => (Kind::Dollar, i + tag_len, bytes.len(), bytes.len()),
            }
        } else {
            (Kind::Punct(b), i, i + 1, i + 1)
        };
        let text_end = text_end.min(bytes.len()).max(text_start.min(bytes.len()));
        out.push(Tok {
            kind,
            text: text.get(text_start..text_end).unwrap_or_default(),
            start,
            end: next.min(bytes.len()),
        });
        i = next.max(i + 1);
    }
    out
}

/// Identifier bytes; every non-ASCII byte counts, so tokens never split a UTF-8 character.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The length of a quoted token starting at `s[0]`, including both quotes.
fn quoted_end(s: &[u8], quote: u8, backslash: bool) -> usize {
    let mut i = 1;
    while i < s.len() {
        if backslash && s[i] == b'\\' {
            i += 2;
            continue;
        }
        if s[i] == quote {
            if s.get(i + 1) == Some(&quote) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    s.len()
}

/// Keywords that end a table reference: a word in this list after a table name is a clause,
/// not an alias.
fn is_reserved(word: &str) -> bool {
    const RESERVED: &[&str] = &[
        "all",
        "and",
        "as",
        "begin",
        "by",
        "call",
        "case",
        "cross",
        "declare",
        "default",
        "delete",
        "do",
        "else",
        "end",
        "except",
        "fetch",
        "for",
        "force",
        "from",
        "full",
        "group",
        "having",
        "if",
        "ignore",
        "inner",
        "insert",
        "intersect",
        "into",
        "join",
        "lateral",
        "left",
        "limit",
        "loop",
        "natural",
        "not",
        "offset",
        "on",
        "only",
        "or",
        "order",
        "outer",
        "partition",
        "returning",
        "right",
        "select",
        "set",
        "straight_join",
        "tablesample",
        "then",
        "union",
        "update",
        "use",
        "using",
        "values",
        "when",
        "where",
        "while",
        "window",
        "with",
    ];
    RESERVED.iter().any(|k| k.eq_ignore_ascii_case(word))
}

/// A possibly schema-qualified name read from tokens: its parts, unquoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct QName {
    pub(super) parts: Vec<String>,
}

impl QName {
    /// The object's own name (the last part).
    pub(super) fn name(&self) -> &str {
        self.parts.last().map_or("", String::as_str)
    }
}

/// Reads a dotted name starting at `toks[i]`; returns it and the index after it.
pub(super) fn qname_at(toks: &[Tok<'_>], i: usize) -> Option<(QName, usize)> {
    let first = toks.get(i)?;
    if !first.is_name() {
        return None;
    }
    let mut parts = vec![first.text.to_owned()];
    let mut j = i + 1;
    while toks.get(j).is_some_and(|t| t.is_punct(b'.')) {
        match toks.get(j + 1) {
            Some(t) if matches!(t.kind, Kind::Word | Kind::Quoted) => {
                parts.push(t.text.to_owned());
                j += 2;
            }
            _ => break,
        }
    }
    Some((QName { parts }, j))
}

/// The index just after the parenthesised group opening at `toks[i]` (which must be `(`).
pub(super) fn skip_parens(toks: &[Tok<'_>], i: usize) -> usize {
    let mut depth = 0usize;
    let mut j = i;
    while j < toks.len() {
        if toks[j].is_punct(b'(') {
            depth += 1;
        } else if toks[j].is_punct(b')') {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return j + 1;
            }
        }
        j += 1;
    }
    toks.len()
}

/// The tables a SQL body reads and writes, in order of first mention, each (table, access)
/// once. Names are unqualified; CTE names, `NEW`, `OLD` and `DUAL` are not tables.
pub(super) fn touches(body: &str, mysql: bool) -> Vec<(String, Access)> {
    let toks = tokenize(body, mysql);
    let ctes = cte_names(&toks);
    let mut scan = TouchScan {
        toks: &toks,
        ctes,
        out: Vec::new(),
        seen: HashSet::new(),
    };
    scan.run();
    scan.out
}

/// Names defined by `WITH [RECURSIVE] name [(cols)] AS [NOT MATERIALIZED] (…), …`.
fn cte_names(toks: &[Tok<'_>]) -> HashSet<String> {
    let mut names = HashSet::new();
    for (i, t) in toks.iter().enumerate() {
        if !t.is("with") {
            continue;
        }
        let mut j = i + 1;
        if toks.get(j).is_some_and(|t| t.is("recursive")) {
            j += 1;
        }
        while let Some(name) = toks.get(j).filter(|t| t.is_name()) {
            j += 1;
            if toks.get(j).is_some_and(|t| t.is_punct(b'(')) {
                j = skip_parens(toks, j);
            }
            if !toks.get(j).is_some_and(|t| t.is("as")) {
                break;
            }
            j += 1;
            while toks.get(j).is_some_and(|t| t.is("not") || t.is("materialized")) {
                j += 1;
            }
            if !toks.get(j).is_some_and(|t| t.is_punct(b'(')) {
                break;
            }
            names.insert(name.text.to_ascii_lowercase());
            j = skip_parens(toks, j);
            if !toks.get(j).is_some_and(|t| t.is_punct(b',')) {
                break;
            }
            j += 1;
        }
    }
    names
}

struct TouchScan<'t, 'a> {
    toks: &'t [Tok<'a>],
    ctes: HashSet<String>,
    out: Vec<(String, Access)>,
    seen: HashSet<(String, Access)>,
}

impl TouchScan<'_, '_> {
    fn run(&mut self) {
        let toks = self.toks;
        // The word before each open parenthesis, so `EXTRACT(x FROM y)` is not a table read.
        let mut openers: Vec<Option<&str>> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let t = toks[i];
            let prev = i.checked_sub(1).map(|p| toks[p]);
            let prev_is = |kws: &[&str]| prev.is_some_and(|p| kws.iter().any(|k| p.is(k)));
            match t.kind {
                Kind::Punct(b'(') => {
                    openers.push(prev.filter(|p| p.kind == Kind::Word).map(|p| p.text));
                    i += 1;
                }
                Kind::Punct(b')') => {
                    openers.pop();
                    i += 1;
                }
                Kind::Word if t.is("from") => {
                    let in_function = openers.last().copied().flatten().is_some_and(|w| {
                        ["extract", "substring", "trim", "overlay", "position"]
                            .iter()
                            .any(|k| k.eq_ignore_ascii_case(w))
                    });
                    let not_a_table = prev_is(&["distinct", "delete", "next", "prior", "fetch"]);
                    if in_function || not_a_table {
                        i += 1;
                    } else {
                        i = self.table_list(i + 1, Access::Read);
                    }
                }
                Kind::Word if t.is("join") || (t.is("using") && !prev_is(&["as"])) => {
                    i = self.table_list(i + 1, Access::Read);
                }
                Kind::Word if t.is("insert") || t.is("replace") || t.is("merge") => {
                    let mut j = i + 1;
                    while toks.get(j).is_some_and(|t| {
                        t.is("ignore") || t.is("low_priority") || t.is("delayed") || t.is("high_priority")
                    }) {
                        j += 1;
                    }
                    let has_into = toks.get(j).is_some_and(|t| t.is("into"));
                    // `REPLACE(s, a, b)` is a function; only `REPLACE INTO t` writes.
                    if has_into || (t.is("insert") && !prev_is(&["before", "after", "of", "or", "on"])) {
                        if has_into {
                            j += 1;
                        }
                        i = self.one_table(j, Access::Write);
                    } else {
                        i += 1;
                    }
                }
                Kind::Word if t.is("update") => {
                    if prev_is(&["on", "for", "key", "do", "or", "before", "after", "of"]) {
                        i += 1;
                    } else {
                        let mut j = i + 1;
                        while toks
                            .get(j)
                            .is_some_and(|t| t.is("low_priority") || t.is("ignore") || t.is("only"))
                        {
                            j += 1;
                        }
                        i = self.one_table(j, Access::Write);
                    }
                }
                Kind::Word if t.is("delete") => {
                    let mut j = i + 1;
                    while toks
                        .get(j)
                        .is_some_and(|t| t.is("low_priority") || t.is("quick") || t.is("ignore"))
                    {
                        j += 1;
                    }
                    if toks.get(j).is_some_and(|t| t.is("from")) {
                        j += 1;
                        if toks.get(j).is_some_and(|t| t.is("only")) {
                            j += 1;
                        }
                    }
                    i = self.one_table(j, Access::Write);
                }
                Kind::Word if t.is("truncate") => {
                    let mut j = i + 1;
                    while toks.get(j).is_some_and(|t| t.is("table") || t.is("only")) {
                        j += 1;
                    }
                    i = self.table_list(j, Access::Write);
                }
                _ => i += 1,
            }
        }
    }

    /// Records the table named at `toks[i]`, if any; returns the index after its alias.
    fn one_table(&mut self, i: usize, access: Access) -> usize {
        let Some((name, mut j)) = qname_at(self.toks, i) else {
            return i;
        };
        if self.toks.get(j).is_some_and(|t| t.is_punct(b'(')) && access == Access::Read {
            // A set-returning function, not a table.
            return j;
        }
        self.record(&name, access);
        if self.toks.get(j).is_some_and(|t| t.is("as")) {
            j += 1;
        }
        if self.toks.get(j).is_some_and(Tok::is_name) {
            j += 1;
        }
        j
    }

    /// Records a comma-separated list of table references starting at `toks[i]`.
    fn table_list(&mut self, mut i: usize, access: Access) -> usize {
        loop {
            while self.toks.get(i).is_some_and(|t| t.is("only") || t.is("lateral")) {
                i += 1;
            }
            let start = i;
            i = self.one_table(i, access);
            if i == start || !self.toks.get(i).is_some_and(|t| t.is_punct(b',')) {
                return i;
            }
            i += 1;
        }
    }

    fn record(&mut self, name: &QName, access: Access) {
        let table = name.name();
        let lower = table.to_ascii_lowercase();
        let pseudo = name.parts.len() == 1 && matches!(lower.as_str(), "new" | "old" | "dual");
        if table.is_empty() || pseudo || self.ctes.contains(&lower) {
            return;
        }
        if self.seen.insert((lower, access)) {
            self.out.push((table.to_owned(), access));
        }
    }
}
