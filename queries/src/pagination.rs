//! Cutting a long document into pages an agent will read to the end.
//!
//! A reader — person or model — stops once it thinks it has enough. A long answer cut
//! blindly loses its second half silently, and a cut inside a code fence or a table row
//! corrupts what is read. So: pages of about `page_size` characters, cut only between lines
//! and never inside a fenced block; when a `## ` heading falls in the last 10% of a page the
//! cut moves to it, so sections start pages; and every page ends with `Page K of N` and, when
//! there is more than one, the instruction to FETCH EVERY PAGE with the parameter to pass.
//! The footer is what keeps a reader honest about what it has not seen yet.
//!
//! Pages are a pure function of the document and the page size, so page K is stable while
//! the graph (and thus the document) does not change.

use serde::Serialize;

/// The default page size in characters.
pub const DEFAULT_PAGE_SIZE: usize = 20_000;

/// One page of a document.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Page {
    /// 1-based page number.
    pub number: usize,
    /// How many pages the document has.
    pub count: usize,
    /// The page's part of the document (pages concatenate to the whole document).
    pub body: String,
}

impl Page {
    /// The footer line(s) of this page.
    pub fn footer(&self) -> String {
        if self.count <= 1 {
            format!("Page {} of {}", self.number, self.count)
        } else if self.number < self.count {
            format!(
                "Page {} of {}. FETCH EVERY PAGE before concluding: this answer continues on page {}; \
                 call again with the same parameters and `page={}`.",
                self.number,
                self.count,
                self.number + 1,
                self.number + 1
            )
        } else {
            format!(
                "Page {} of {} (the last page). If you have not read pages 1–{}, FETCH EVERY PAGE \
                 (parameter `page`) before concluding.",
                self.number,
                self.count,
                self.count - 1
            )
        }
    }

    /// The page as served: its body, then the footer after a rule.
    pub fn text(&self) -> String {
        let body = self.body.trim_end_matches('\n');
        format!("{body}\n\n---\n{}\n", self.footer())
    }
}

/// A unit the cutter never splits: one line, or a whole fenced block.
struct Unit {
    start: usize,
    chars: usize,
    heading: bool,
}

/// A fence line as CommonMark reads one: up to three spaces, then three or more backticks
/// or tildes; the char, the run's length and what follows it. A backtick fence's info
/// string holds no backtick (```` ```a`b ```` is inline code, not a fence).
fn fence_of(line: &str) -> Option<(char, usize, &str)> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let c = t.chars().next()?;
    if c != '`' && c != '~' {
        return None;
    }
    let n = t.chars().take_while(|&x| x == c).count();
    let rest = &t[n..];
    (n >= 3 && !(c == '`' && rest.contains('`'))).then_some((c, n, rest))
}

fn units(doc: &str) -> Vec<Unit> {
    let mut out: Vec<Unit> = Vec::new();
    let mut open: Option<(char, usize)> = None;
    let mut pos = 0;
    for line in doc.split_inclusive('\n') {
        let chars = line.chars().count();
        let bare = line.trim_end_matches(['\n', '\r']);
        match open {
            Some((c, n)) => {
                if let Some(last) = out.last_mut() {
                    last.chars += chars;
                }
                // A closer: the same char, at least as many, then only spaces or tabs.
                if fence_of(bare).is_some_and(|(fc, fnum, rest)| {
                    fc == c && fnum >= n && rest.chars().all(|x| x == ' ' || x == '\t')
                }) {
                    open = None;
                }
            }
            None => {
                out.push(Unit {
                    start: pos,
                    chars,
                    heading: bare.starts_with("## "),
                });
                open = fence_of(bare).map(|(c, n, _)| (c, n));
            }
        }
        pos += line.len();
    }
    out
}

/// Cuts `doc` into pages of at most `page_size` characters (a single line or fenced block
/// longer than that is a page of its own). Always at least one page.
pub fn paginate(doc: &str, page_size: usize) -> Vec<Page> {
    let page_size = page_size.max(1);
    // A document of at most `page_size` bytes has at most that many characters: one page.
    if doc.len() <= page_size {
        return vec![Page {
            number: 1,
            count: 1,
            body: doc.to_string(),
        }];
    }
    cut(doc, page_size)
}

/// [`paginate`] without its shortcut for a document that fits one page.
fn cut(doc: &str, page_size: usize) -> Vec<Page> {
    let units = units(doc);
    let mut bodies: Vec<String> = Vec::new();
    let mut i = 0;
    while i < units.len() {
        // Take units while they fit.
        let mut size = 0;
        let mut j = i;
        while j < units.len() && (j == i || size + units[j].chars <= page_size) {
            size += units[j].chars;
            j += 1;
        }
        if j < units.len() {
            // Move the cut back to a `## ` heading starting in the last 10% of the page.
            let threshold = page_size - page_size / 10;
            let mut offset = 0;
            let mut best = None;
            for (k, u) in units.iter().enumerate().take(j).skip(i) {
                if k > i && u.heading && offset >= threshold {
                    best = Some(k);
                    break;
                }
                offset += u.chars;
            }
            if let Some(k) = best {
                j = k;
            }
        }
        let start = units[i].start;
        let end = units.get(j).map_or(doc.len(), |u| u.start);
        bodies.push(doc[start..end].to_string());
        i = j;
    }
    if bodies.is_empty() {
        bodies.push(String::new());
    }
    let count = bodies.len();
    bodies
        .into_iter()
        .enumerate()
        .map(|(n, body)| Page {
            number: n + 1,
            count,
            body,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn block() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z ]{0,60}\n".prop_map(|s| s),
            "[a-z]{1,20}".prop_map(|s| format!("## {s}\n")),
            "[a-z]{1,10}".prop_map(|s| format!("| {s} | x |\n")),
            proptest::collection::vec("[a-z#| ]{0,40}", 0..8)
                .prop_map(|lines| format!("```java\n{}\n```\n", lines.join("\n"))),
        ]
    }

    fn inside_fence(doc: &str, at: usize) -> bool {
        let mut open = false;
        let mut pos = 0;
        for line in doc.split_inclusive('\n') {
            if pos >= at {
                break;
            }
            if line.starts_with("```") {
                open = !open;
            }
            pos += line.len();
        }
        open
    }

    proptest! {
        #[test]
        fn a_document_that_fits_one_page_is_cut_as_the_general_cutter_would(
            blocks in proptest::collection::vec(block(), 0..12),
            slack in 0usize..50,
        ) {
            let doc: String = blocks.concat();
            let size = doc.len() + slack;
            let fast: Vec<(usize, usize, String)> = paginate(&doc, size).into_iter().map(|p| (p.number, p.count, p.body)).collect();
            let general: Vec<(usize, usize, String)> = cut(&doc, size.max(1)).into_iter().map(|p| (p.number, p.count, p.body)).collect();
            prop_assert_eq!(fast, general);
        }

        #[test]
        fn pages_concatenate_fit_and_cut_only_between_blocks(
            blocks in proptest::collection::vec(block(), 0..80),
            size in 40usize..600,
        ) {
            let doc: String = blocks.concat();
            let pages = paginate(&doc, size);
            let joined: String = pages.iter().map(|p| p.body.as_str()).collect();
            prop_assert_eq!(&joined, &doc);
            let mut at = 0;
            for (n, p) in pages.iter().enumerate() {
                prop_assert_eq!(p.number, n + 1);
                prop_assert_eq!(p.count, pages.len());
                let chars = p.body.chars().count();
                if chars > size {
                    // Only a single unsplittable block may exceed the size.
                    let first_line = p.body.split_inclusive('\n').next().unwrap_or("");
                    prop_assert!(first_line.starts_with("```") || p.body.lines().count() == 1,
                        "page {} of {} chars is not one block", n + 1, chars);
                }
                if n > 0 {
                    prop_assert!(doc[..at].ends_with('\n'), "cut between lines");
                    prop_assert!(!inside_fence(&doc, at), "cut inside a fence at {}", at);
                }
                // A heading in the last 10% of a full page moves the cut to it.
                if n + 1 < pages.len() {
                    let threshold = size - size / 10;
                    let mut offset = 0;
                    let mut late_heading = false;
                    let lines = p.body.split_inclusive('\n');
                    let mut first = true;
                    for l in lines {
                        if !first && l.starts_with("## ") && offset >= threshold && !inside_fence(&p.body, offset) {
                            late_heading = true;
                        }
                        first = false;
                        offset += l.chars().count();
                    }
                    prop_assert!(!late_heading, "page {} keeps a heading it should start the next page with", n + 1);
                }
                at += p.body.len();
            }
        }
    }

    #[test]
    fn footers_tell_the_reader_to_fetch_every_page() {
        let doc = format!("# T\n\n{}\n## Second\n\nmore\n", "line of text\n".repeat(30));
        let pages = paginate(&doc, 200);
        assert!(pages.len() > 1);
        assert!(pages[0].text().contains("FETCH EVERY PAGE"));
        assert!(pages[0].text().contains("`page=2`"));
        assert!(pages[0].text().trim_end().ends_with("`page=2`."));
        let last = pages.last().map(Page::text).unwrap_or_default();
        assert!(last.contains(&format!("Page {} of {}", pages.len(), pages.len())));
        let single = paginate("# Small\n", 200);
        assert_eq!(single.len(), 1);
        assert!(single[0].text().ends_with("Page 1 of 1\n"));
    }

    #[test]
    fn a_heading_near_the_end_of_a_page_starts_the_next_page() {
        let doc = format!("{}## Next\n{}", "x\n".repeat(46), "y\n".repeat(40));
        let pages = paginate(&doc, 100);
        assert!(pages[1].body.starts_with("## Next"), "{:?}", pages[1].body);
    }

    #[test]
    fn a_fence_longer_than_a_page_is_one_page() {
        let fence = format!("```\n{}```\n", "code\n".repeat(50));
        let doc = format!("intro\n{fence}outro\n");
        let pages = paginate(&doc, 60);
        assert!(pages.iter().any(|p| p.body == fence));
    }
}
