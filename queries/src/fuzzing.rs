//! Fuzz target bodies for what a caller controls: request parameters and the pages of a
//! document.
//!
//! Parameters arrive from agents that guess, and documents carry source code full of fence
//! markers, so both are checked with arbitrary bytes. Each function is one fuzz target's
//! body: `fuzz/` runs it under libFuzzer (nightly) and the stable test `tests/fuzz_smoke.rs`
//! runs it over the committed corpus, the crashers found so far and seeded mutations. A body
//! panics only when an invariant breaks — pages that lose or repeat text, a cut inside a
//! fenced block, a parameter accepted that the catalog forbids — checked against small
//! reference implementations written apart from the code under test.
//!
//! Not an API: hidden from the docs and free to change with the crate.

use std::collections::BTreeMap;

use crate::catalog::{catalog, EndpointSpec, ParamType};
use crate::error::ErrorKind;
use crate::pagination::paginate;
use crate::params::Args;

/// A fuzz target's body.
pub type Body = fn(&[u8]);

/// The fuzz targets of this crate, by name, for the stable smoke test.
pub const TARGETS: &[(&str, Body)] = &[("pagination", pagination), ("params", params)];

/// A CommonMark fenced-code opener (§4.5): up to three spaces, three or more backticks or
/// tildes, and for backticks an info string without a backtick.
fn opener(line: &str) -> Option<(u8, usize)> {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line.as_bytes()[indent..];
    let c = *rest.first()?;
    if c != b'`' && c != b'~' {
        return None;
    }
    let n = rest.iter().take_while(|&&b| b == c).count();
    if n < 3 || (c == b'`' && rest[n..].contains(&b'`')) {
        return None;
    }
    Some((c, n))
}

/// A closer of a fence of `n` `c`s: up to three spaces, at least `n` of them, then only
/// spaces or tabs.
fn closes(line: &str, c: u8, n: usize) -> bool {
    let indent = line.bytes().take_while(|&b| b == b' ').count();
    if indent > 3 {
        return false;
    }
    let rest = &line.as_bytes()[indent..];
    let m = rest.iter().take_while(|&&b| b == c).count();
    m >= n && rest[m..].iter().all(|&b| b == b' ' || b == b'\t')
}

/// For each line of `doc`: its byte offset, its length in chars, whether it starts inside
/// an open fence (after the opener), and whether it is a `## ` heading outside fences.
struct Line {
    start: usize,
    chars: usize,
    in_fence: bool,
    heading: bool,
}

fn lines(doc: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut open: Option<(u8, usize)> = None;
    let mut start = 0;
    for raw in doc.split_inclusive('\n') {
        let bare = raw.trim_end_matches(['\n', '\r']);
        let in_fence = open.is_some();
        out.push(Line {
            start,
            chars: raw.chars().count(),
            in_fence,
            heading: !in_fence && bare.starts_with("## "),
        });
        open = match open {
            Some((c, n)) if closes(bare, c, n) => None,
            Some(o) => Some(o),
            None => opener(bare),
        };
        start += raw.len();
    }
    out
}

/// Pagination: the first two bytes choose the page size, the rest is the document. Pages
/// concatenate to the document, are cut only between lines and never inside a fenced block,
/// fit the page size unless they are one line or one fenced block, start at a late `## `
/// heading when one falls in the last 10% of a page, and carry honest footers.
pub fn pagination(data: &[u8]) {
    let (size, rest) = match data {
        [a, b, rest @ ..] => (1 + usize::from(u16::from_le_bytes([*a, *b]) % 4096), rest),
        _ => (80, data),
    };
    let doc = String::from_utf8_lossy(rest);
    let pages = paginate(&doc, size);
    assert!(!pages.is_empty(), "no page");
    let joined: String = pages.iter().map(|p| p.body.as_str()).collect();
    assert_eq!(joined, doc, "pages lose or repeat text");
    assert_eq!(
        pages,
        paginate(&doc, size),
        "pages are not a function of the document"
    );
    let lines = lines(&doc);
    let line_at = |offset: usize| lines.binary_search_by_key(&offset, |l| l.start);
    let mut at = 0;
    for (k, page) in pages.iter().enumerate() {
        assert_eq!((page.number, page.count), (k + 1, pages.len()), "page numbering");
        assert!(!page.body.is_empty() || doc.is_empty(), "an empty page {}", k + 1);
        let first = match line_at(at) {
            Ok(i) => i,
            Err(_) if doc.is_empty() => 0,
            Err(_) => panic!("page {} starts at byte {at}, not at a line", k + 1),
        };
        if k > 0 {
            assert!(
                !lines[first].in_fence,
                "page {} starts inside a fenced block",
                k + 1
            );
        }
        let end = at + page.body.len();
        let page_lines: Vec<&Line> = lines.iter().skip(first).take_while(|l| l.start < end).collect();
        let chars: usize = page_lines.iter().map(|l| l.chars).sum();
        assert_eq!(
            chars,
            page.body.chars().count(),
            "page {} is not whole lines",
            k + 1
        );
        if chars > size {
            // One unit: a single line, or one fence from opener to closer.
            let one_unit = page_lines.len() == 1 || page_lines.iter().skip(1).all(|l| l.in_fence);
            assert!(
                one_unit,
                "page {} has {chars} chars (size {size}) and more than one block",
                k + 1
            );
        }
        if k + 1 < pages.len() {
            let threshold = size - size / 10;
            let mut offset = 0;
            for (i, l) in page_lines.iter().enumerate() {
                assert!(
                    !(i > 0 && l.heading && offset >= threshold),
                    "page {} keeps a `## ` heading at char {offset} of {size}",
                    k + 1
                );
                offset += l.chars;
            }
        }
        let text = page.text();
        assert!(
            text.starts_with(page.body.trim_end_matches('\n')),
            "page text drops its body"
        );
        // What the page adds after its body (the document may quote a footer itself).
        let footer = &text[page.body.trim_end_matches('\n').len()..];
        assert!(
            footer.contains(&format!("Page {} of {}", k + 1, pages.len())),
            "footer of page {}",
            k + 1
        );
        assert_eq!(
            footer.contains("FETCH EVERY PAGE"),
            pages.len() > 1,
            "the fetch-every-page instruction on page {} of {}",
            k + 1,
            pages.len()
        );
        at = end;
    }
}

/// Values worth trying for any parameter.
const VALUES: &[&str] = &[
    "",
    " ",
    "0",
    "1",
    "-1",
    "2",
    "8",
    "9",
    "10",
    "11",
    "21",
    "50",
    "100",
    "101",
    "1000",
    "100000",
    "-9223372036854775808",
    "9223372036854775807",
    "+3",
    " 4 ",
    "1e3",
    "0x10",
    "99999999999999999999",
    "true",
    "false",
    "TRUE",
    "yes",
    "read",
    "WRITE",
    "both",
    "method",
    "a.b.C.m",
    "GET /orders/{id}",
    "\u{0}",
    "é",
    "1\n2",
];

/// Parameter checking: bytes choose an endpoint and up to eight parameters (names from the
/// endpoint, paging, near misses or raw bytes; values from `VALUES` or raw bytes). The
/// answer must be what the catalog says, computed here apart: the first unknown name, a bad
/// page, a missing or ill-typed parameter is a 422 naming it; otherwise every parameter has
/// a valid value, defaults included.
pub fn params(data: &[u8]) {
    let mut bytes = data.iter().copied();
    let mut next = || bytes.next().unwrap_or(0);
    let specs = catalog();
    let spec = &specs[usize::from(next()) % specs.len()];
    let mut given: BTreeMap<String, String> = BTreeMap::new();
    let count = next() % 9;
    let raw = |len: u8, next: &mut dyn FnMut() -> u8| -> String {
        let v: Vec<u8> = (0..len % 12).map(|_| next()).collect();
        String::from_utf8_lossy(&v).into_owned()
    };
    for _ in 0..count {
        let pick = next();
        let name = match pick % 8 {
            0..=3 if !spec.params.is_empty() => spec.params[usize::from(next()) % spec.params.len()]
                .name
                .to_string(),
            4 => ["page", "page_size"][usize::from(next() % 2)].to_string(),
            5 if !spec.params.is_empty() => {
                // A near miss: one character changed.
                let mut n = spec.params[usize::from(next()) % spec.params.len()]
                    .name
                    .to_string();
                n.push(char::from(b'a' + next() % 26));
                n
            }
            _ => {
                let len = next();
                raw(len, &mut next)
            }
        };
        let value = if next() % 4 == 0 {
            let len = next();
            raw(len, &mut next)
        } else {
            match spec.param(&name).map(|p| p.ty) {
                Some(ParamType::Enum(options)) if next() % 2 == 0 => {
                    options[usize::from(next()) % options.len()].to_string()
                }
                _ => VALUES[usize::from(next()) % VALUES.len()].to_string(),
            }
        };
        given.insert(name, value);
    }
    check_params(spec, &given);
}

/// The parameter that must be named, and whether the request is valid, by the catalog.
fn expected_problem(spec: &EndpointSpec, given: &BTreeMap<String, String>) -> Option<String> {
    if let Some(unknown) = given
        .keys()
        .find(|k| spec.param(k).is_none() && k.as_str() != "page" && k.as_str() != "page_size")
    {
        return Some(unknown.clone());
    }
    for paging in ["page", "page_size"] {
        if let Some(v) = given.get(paging) {
            if !matches!(v.trim().parse::<u64>(), Ok(n) if n >= 1) {
                return Some(paging.to_string());
            }
        }
    }
    for p in spec.params {
        if let ParamType::Text { max_bytes } = p.ty {
            match given.get(p.name).filter(|v| !v.trim().is_empty()) {
                Some(v) if v.len() > max_bytes => return Some(p.name.to_string()),
                None if p.required => return Some(p.name.to_string()),
                _ => continue,
            }
        }
        let value = match given.get(p.name).map(|v| v.trim()).filter(|v| !v.is_empty()) {
            Some(v) => v.to_string(),
            None if p.required => return Some(p.name.to_string()),
            None => match p.default {
                Some(d) => d.to_string(),
                None => continue,
            },
        };
        let ok = match p.ty {
            ParamType::String | ParamType::Text { .. } => true,
            ParamType::Integer { min, max } => value.parse::<i64>().is_ok_and(|n| n >= min && n <= max),
            ParamType::Boolean => value == "true" || value == "false",
            ParamType::Enum(options) => options.iter().any(|o| o.eq_ignore_ascii_case(&value)),
        };
        if !ok {
            return Some(p.name.to_string());
        }
    }
    None
}

fn check_params(spec: &EndpointSpec, given: &BTreeMap<String, String>) {
    let expected = expected_problem(spec, given);
    match (Args::check(spec, given), expected) {
        (Ok(args), None) => {
            for p in spec.params {
                let value = args.get(p.name);
                if p.required || p.default.is_some() {
                    assert!(value.is_some_and(|v| !v.is_empty()), "`{}` has no value", p.name);
                }
                let Some(value) = value else { continue };
                match p.ty {
                    ParamType::String => {}
                    ParamType::Text { max_bytes } => {
                        assert!(value.len() <= max_bytes, "`{}` too long", p.name)
                    }
                    ParamType::Integer { min, max } => {
                        let n: i64 = value.parse().unwrap_or(i64::MIN);
                        assert!(
                            (min..=max).contains(&n),
                            "`{}` = {value} outside {min}..={max}",
                            p.name
                        );
                    }
                    ParamType::Boolean => assert!(value == "true" || value == "false"),
                    ParamType::Enum(options) => assert!(options.contains(&value), "`{}` = {value}", p.name),
                }
            }
        }
        (Err(err), Some(name)) => {
            assert_eq!(err.kind(), ErrorKind::InvalidRequest, "{}", err.body());
            assert!(
                err.body().contains(&format!("parameter `{name}`")),
                "the error does not name `{name}`:\n{}",
                err.body()
            );
        }
        (Ok(_), Some(name)) => panic!("{}/{} accepted a bad `{name}`: {given:?}", spec.domain, spec.name),
        (Err(err), None) => panic!(
            "{}/{} refused valid parameters {given:?}:\n{}",
            spec.domain,
            spec.name,
            err.body()
        ),
    }
}
