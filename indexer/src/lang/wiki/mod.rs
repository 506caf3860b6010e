//! Wiki front-end: one markdown page → title, headings, links, code and mention candidates.
//!
//! Wiki pages are where a company explains its systems in words, and the words that matter
//! to the graph are the names of things: endpoints, classes, methods, tables. The page's
//! structure comes from pulldown-cmark (so `#` inside a fenced block is not a heading and
//! a link inside a table still is a link); its names come from [`mention_candidates`],
//! which proposes but never resolves. Front matter is the YAML block between leading `---`
//! lines, read by the config front-end's YAML reader so that it has the same limits.
//!
//! Parsing never fails; a broken front matter block is a warning and the page still counts.

mod mentions;

#[cfg(test)]
mod tests;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

pub(crate) use mentions::{mention_candidates, MentionCandidate};

/// Everything the graph needs from one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WikiPage {
    pub(crate) path: String,
    /// Front matter `title`, else the first level-1 heading, else the file stem.
    pub(crate) title: String,
    /// Top-level front matter keys in file order; list values joined with `, `.
    pub(crate) front_matter: Vec<(String, String)>,
    pub(crate) tags: Vec<String>,
    pub(crate) headings: Vec<Heading>,
    /// Link targets in order of appearance; relative ones resolved against the page's
    /// folder (`../inventory/reservations.md` from `orders/` → `inventory/reservations.md`),
    /// without their `#fragment`. Same-page anchors are left out.
    pub(crate) links: Vec<String>,
    /// Inline code, and the code-like words (CamelCase, snake_case, dotted) of fenced blocks.
    pub(crate) code_spans: Vec<String>,
    pub(crate) mentions: Vec<MentionCandidate>,
    /// Plain text for search: the page without markup, blocks separated by newlines.
    pub(crate) text: String,
    pub(crate) warnings: Vec<WikiWarning>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Heading {
    pub(crate) level: u8,
    pub(crate) text: String,
    /// 1-based line in the page file.
    pub(crate) line: u32,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WikiWarning {
    pub(crate) line: u32,
    pub(crate) message: String,
}

/// Parses one markdown page; `path` is relative to the wiki root and anchors relative links.
pub(crate) fn parse_wiki_page(path: &str, text: &str) -> WikiPage {
    let mut page = WikiPage {
        path: path.to_owned(),
        title: String::new(),
        front_matter: Vec::new(),
        tags: Vec::new(),
        headings: Vec::new(),
        links: Vec::new(),
        code_spans: Vec::new(),
        mentions: Vec::new(),
        text: String::new(),
        warnings: Vec::new(),
    };
    let body_start = match split_front_matter(text) {
        Some((yaml, body_start)) => {
            read_front_matter(yaml, &mut page);
            body_start
        }
        None => 0,
    };
    let line_starts = LineIndex::new(text);
    let folder = path.rsplit_once('/').map_or("", |(folder, _)| folder);
    let body = text.get(body_start..).unwrap_or("");

    let mut prose = String::new();
    let mut heading: Option<(u8, String, u32)> = None;
    let mut in_code_block = false;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        match event {
            Event::Start(Tag::Heading { level, .. }) => {
                let line = line_starts.line_of(body_start + range.start);
                heading = Some((level as u8, String::new(), line));
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, text, line)) = heading.take() {
                    page.headings.push(Heading {
                        level,
                        text: text.trim().to_owned(),
                        line,
                    });
                }
                end_block(&mut page.text, &mut prose);
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(target) = resolve_link(folder, &dest_url) {
                    page.links.push(target);
                }
            }
            Event::Start(Tag::CodeBlock(_)) => {
                in_code_block = true;
                end_block(&mut page.text, &mut prose);
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code_block = false;
                end_block(&mut page.text, &mut prose);
            }
            Event::Text(text) => {
                if let Some((_, heading_text, _)) = heading.as_mut() {
                    heading_text.push_str(&text);
                }
                if in_code_block {
                    code_block_words(&text, &mut page.code_spans);
                } else {
                    prose.push_str(&text);
                }
                page.text.push_str(&text);
            }
            Event::Code(code) => {
                if let Some((_, heading_text, _)) = heading.as_mut() {
                    heading_text.push_str(&code);
                }
                page.code_spans.push(code.to_string());
                page.text.push_str(&code);
                // Keeps the words around a code span apart in the prose scan.
                prose.push(' ');
            }
            Event::SoftBreak | Event::HardBreak => {
                page.text.push('\n');
                prose.push('\n');
            }
            Event::End(TagEnd::TableCell) => {
                page.text.push(' ');
                prose.push(' ');
            }
            Event::End(TagEnd::Paragraph | TagEnd::Item | TagEnd::TableRow | TagEnd::TableHead)
            | Event::Rule => end_block(&mut page.text, &mut prose),
            _ => {}
        }
    }
    page.mentions = mention_candidates(&page.code_spans, &prose);
    page.text = page.text.trim().to_owned();
    if page.title.is_empty() {
        page.title = page
            .headings
            .iter()
            .find(|h| h.level == 1 && !h.text.is_empty())
            .map(|h| h.text.clone())
            .unwrap_or_else(|| file_stem(path).to_owned());
    }
    page
}

fn end_block(text: &mut String, prose: &mut String) {
    while text.ends_with(' ') {
        text.pop();
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    prose.push('\n');
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// The YAML between a leading `---` line and the next `---` or `...` line, and the byte
/// offset where the markdown starts. `None` when the page has no (closed) front matter.
fn split_front_matter(text: &str) -> Option<(&str, usize)> {
    let text_start = text.strip_prefix('\u{feff}').map_or(0, |_| 3);
    let mut lines = text[text_start..].split_inclusive('\n');
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    let yaml_start = text_start + text[text_start..].find('\n')? + 1;
    let mut offset = yaml_start;
    for line in lines {
        if matches!(line.trim_end(), "---" | "...") {
            return Some((&text[yaml_start..offset], offset + line.len()));
        }
        offset += line.len();
    }
    None
}

fn read_front_matter(yaml: &str, page: &mut WikiPage) {
    let parsed = crate::lang::config::parse_config_file("front-matter.yml", yaml);
    // The YAML starts on the page's second line.
    for warning in parsed.warnings {
        page.warnings.push(WikiWarning {
            line: if warning.line == 0 { 0 } else { warning.line + 1 },
            message: format!("front matter: {}", warning.message),
        });
    }
    for entry in parsed.entries {
        // `tags[0]`, `tags[1]` → one `tags` key.
        let key = match entry.key.rsplit_once('[') {
            Some((base, index)) if index.ends_with(']') && !base.contains('[') => base,
            _ => entry.key.as_str(),
        };
        if key == "tags" {
            page.tags.extend(
                entry
                    .value
                    .split(',')
                    .map(str::trim)
                    .filter(|tag| !tag.is_empty())
                    .map(str::to_owned),
            );
        }
        if key == "title" && !entry.value.trim().is_empty() {
            page.title = entry.value.trim().to_owned();
        }
        match page.front_matter.last_mut() {
            Some((last, value)) if last == key && key != entry.key => {
                if !value.is_empty() {
                    value.push_str(", ");
                }
                value.push_str(&entry.value);
            }
            _ => page.front_matter.push((key.to_owned(), entry.value)),
        }
    }
}

/// The page a link points at, or `None` for a same-page anchor. External URLs are kept as
/// written; relative paths are resolved against `folder` and normalised.
fn resolve_link(folder: &str, dest: &str) -> Option<String> {
    let dest = dest.trim();
    if dest.is_empty() || dest.starts_with('#') {
        return None;
    }
    let has_scheme = dest.split_once(':').is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if has_scheme || dest.starts_with("//") {
        return Some(dest.to_owned());
    }
    let path = dest.split(['#', '?']).next().unwrap_or(dest);
    let mut parts: Vec<&str> = if path.starts_with('/') {
        Vec::new()
    } else {
        folder.split('/').filter(|p| !p.is_empty()).collect()
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            // Above the wiki root there is nothing to point at; stay at the root.
            ".." => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    Some(parts.join("/"))
}

/// Code-like words of one fenced block's text: plain words there are mostly syntax.
fn code_block_words(text: &str, out: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    for line in text.lines() {
        for candidate in mention_candidates(&[], line) {
            let word = match candidate {
                MentionCandidate::QualifiedName(name) | MentionCandidate::Identifier(name) => name,
                MentionCandidate::Endpoint { verb, path } => format!("{verb} {path}"),
                MentionCandidate::Prefixed { kind, value } => format!("{kind}:{value}"),
            };
            if seen.insert(word.clone()) {
                out.push(word);
            }
        }
    }
}

/// Byte offset → 1-based line.
struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn line_of(&self, offset: usize) -> u32 {
        let line = self.starts.partition_point(|&start| start <= offset);
        u32::try_from(line).unwrap_or(u32::MAX)
    }
}
