//! YAML reader: every document flattened to dotted keys the way Spring Boot binds them.
//!
//! Built on yaml-rust2's event parser rather than its `Yaml` tree because the tree loader
//! copies a node for every alias, which lets an anchor bomb allocate exponentially before we
//! see a single key. Here nodes live in an arena per document and an alias is an index into
//! it, so memory stays linear in the input; the only blow-up left is in flattening, which
//! stops at [`MAX_ENTRIES_PER_FILE`] entries and [`MAX_VISITS`] visited nodes.
//!
//! When the parser reports an error, the broken document is dropped with a warning and
//! parsing starts again at the next `---` line, so one bad document costs only itself.

use yaml_rust2::parser::{Event, Parser};
use yaml_rust2::scanner::TScalarStyle;

use super::{entry, line_u32, warning, ConfigEntry, ConfigWarning, MAX_ENTRIES_PER_FILE};

/// Nodes visited while flattening one file; bounds the work of aliases that expand to
/// nothing (empty keys, complex keys), which the entry cap alone would not catch.
const MAX_VISITS: usize = 1_000_000;
/// Nesting (including alias hops) beyond which a branch is dropped; also stops an alias to
/// one of its own ancestors.
const MAX_DEPTH: usize = 128;

enum Node {
    Scalar {
        value: String,
        line: usize,
    },
    Seq {
        items: Vec<usize>,
        line: usize,
    },
    Map {
        pairs: Vec<(usize, usize)>,
        line: usize,
    },
    Alias {
        target: usize,
        line: usize,
    },
    /// An alias to an anchor the parser never saw.
    Missing {
        line: usize,
    },
}

impl Node {
    fn line(&self) -> usize {
        match self {
            Node::Scalar { line, .. }
            | Node::Seq { line, .. }
            | Node::Map { line, .. }
            | Node::Alias { line, .. }
            | Node::Missing { line } => *line,
        }
    }
}

/// Parses all documents of a YAML stream into flattened entries, one vector per document.
pub(super) fn parse(text: &str, warnings: &mut Vec<ConfigWarning>) -> Vec<Vec<ConfigEntry>> {
    let mut flattener = Flattener {
        entries_left: MAX_ENTRIES_PER_FILE,
        visits_left: MAX_VISITS,
        truncated: false,
        warnings,
    };
    let mut documents = Vec::new();
    // Byte offset and line offset of the part of the text being parsed; both move forward
    // when parsing restarts after an error.
    let mut start = 0;
    let mut line_offset = 0;
    while let Some(segment) = text.get(start..) {
        match parse_segment(segment, line_offset, &mut flattener, &mut documents) {
            Ok(()) => break,
            Err((line, message)) => {
                flattener
                    .warnings
                    .push(warning(line_u32(line), format!("invalid YAML: {message}")));
                match next_document_start(text, start, line.saturating_sub(1)) {
                    Some((byte, line_index)) => {
                        start = byte;
                        line_offset = line_index;
                    }
                    None => break,
                }
            }
        }
    }
    if flattener.truncated {
        flattener.warnings.push(warning(
            0,
            format!("more than {MAX_ENTRIES_PER_FILE} entries (alias expansion?), the rest dropped"),
        ));
    }
    documents
}

/// The first line at or after 0-based `from_line` (and after byte `after`) that starts a
/// document, as (byte offset, 0-based line index).
fn next_document_start(text: &str, after: usize, from_line: usize) -> Option<(usize, usize)> {
    let mut byte = 0;
    for (index, line) in text.split_inclusive('\n').enumerate() {
        if index >= from_line && byte > after && line.starts_with("---") {
            return Some((byte, index));
        }
        byte += line.len();
    }
    None
}

/// Parses one run of documents; on error returns the absolute 1-based line and message.
fn parse_segment(
    segment: &str,
    line_offset: usize,
    flattener: &mut Flattener<'_>,
    documents: &mut Vec<Vec<ConfigEntry>>,
) -> Result<(), (usize, String)> {
    let mut parser = Parser::new_from_str(segment);
    let mut builder = Builder::default();
    let lines = LineBreaks::of(segment);
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            (
                lines.line_of(e.marker().line()) + line_offset,
                e.info().to_owned(),
            )
        })?;
        let line = lines.line_of(mark.line()) + line_offset;
        match event {
            Event::StreamEnd => return Ok(()),
            Event::StreamStart | Event::Nothing => {}
            Event::DocumentStart => builder = Builder::default(),
            Event::DocumentEnd => {
                let finished = std::mem::take(&mut builder);
                documents.push(flattener.document(&finished));
            }
            Event::Scalar(value, style, anchor, _) => {
                // `key:` with nothing after it is a null, which Spring binds as empty.
                let value = if style == TScalarStyle::Plain && value == "~" {
                    String::new()
                } else {
                    value
                };
                builder.add(Node::Scalar { value, line }, anchor);
            }
            Event::Alias(anchor) => {
                let node = match builder.anchors.get(&anchor) {
                    Some(&target) => Node::Alias { target, line },
                    None => Node::Missing { line },
                };
                builder.add(node, 0);
            }
            Event::SequenceStart(anchor, _) => builder.open(
                Node::Seq {
                    items: Vec::new(),
                    line,
                },
                anchor,
            ),
            Event::MappingStart(anchor, _) => builder.open(
                Node::Map {
                    pairs: Vec::new(),
                    line,
                },
                anchor,
            ),
            Event::SequenceEnd | Event::MappingEnd => builder.close(),
        }
    }
}

/// Lines as the rest of semgraph counts them (by `\n`). YAML also breaks a line on a lone
/// `\r`, so the parser's line numbers drift from the file's and can point past its end;
/// they are mapped back here.
struct LineBreaks {
    /// For each parser line (0-based), the 1-based line of the file it is on.
    file_line: Vec<usize>,
}

impl LineBreaks {
    fn of(text: &str) -> LineBreaks {
        let mut file_line = vec![1];
        let mut line = 1;
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\n' => {
                    line += 1;
                    file_line.push(line);
                }
                '\r' if chars.peek() == Some(&'\n') => {}
                '\r' => file_line.push(line),
                _ => {}
            }
        }
        LineBreaks { file_line }
    }

    /// The file's 1-based line for the parser's 1-based `parser_line`.
    fn line_of(&self, parser_line: usize) -> usize {
        let last = self.file_line.last().copied().unwrap_or(1);
        parser_line
            .checked_sub(1)
            .and_then(|i| self.file_line.get(i).copied())
            .unwrap_or(last)
    }
}

/// Turns parser events of one document into an arena of nodes.
#[derive(Default)]
struct Builder {
    nodes: Vec<Node>,
    anchors: std::collections::HashMap<usize, usize>,
    /// Open collections, each with the key waiting for its value when it is a mapping.
    open: Vec<(usize, Option<usize>)>,
    root: Option<usize>,
}

impl Builder {
    fn push(&mut self, node: Node, anchor: usize) -> usize {
        let index = self.nodes.len();
        self.nodes.push(node);
        if anchor > 0 {
            self.anchors.insert(anchor, index);
        }
        index
    }

    fn add(&mut self, node: Node, anchor: usize) {
        let index = self.push(node, anchor);
        self.attach(index);
    }

    fn open(&mut self, node: Node, anchor: usize) {
        let index = self.push(node, anchor);
        self.open.push((index, None));
    }

    fn close(&mut self) {
        if let Some((index, _)) = self.open.pop() {
            self.attach(index);
        }
    }

    /// Hangs a finished node under the innermost open collection.
    fn attach(&mut self, index: usize) {
        let Some((parent, pending_key)) = self.open.last_mut() else {
            self.root.get_or_insert(index);
            return;
        };
        match &mut self.nodes[*parent] {
            Node::Seq { items, .. } => items.push(index),
            Node::Map { pairs, .. } => match pending_key.take() {
                Some(key) => pairs.push((key, index)),
                None => *pending_key = Some(index),
            },
            _ => {}
        }
    }
}

struct Flattener<'w> {
    entries_left: usize,
    visits_left: usize,
    truncated: bool,
    warnings: &'w mut Vec<ConfigWarning>,
}

impl Flattener<'_> {
    fn document(&mut self, doc: &Builder) -> Vec<ConfigEntry> {
        let mut out = Vec::new();
        let Some(root) = doc.root else {
            return out;
        };
        match &doc.nodes[root] {
            Node::Map { .. } => self.flatten(doc, root, String::new(), None, 0, &mut out),
            Node::Scalar { value, .. } if value.is_empty() => {}
            other => self.warnings.push(warning(
                line_u32(other.line()),
                "document is not a mapping, skipped".to_owned(),
            )),
        }
        out
    }

    /// Appends the entries under `node` with key `prefix`; `key_line` is the line of the
    /// key that leads here, which is where a reader looks for the entry.
    fn flatten(
        &mut self,
        doc: &Builder,
        node: usize,
        prefix: String,
        key_line: Option<usize>,
        depth: usize,
        out: &mut Vec<ConfigEntry>,
    ) {
        if self.truncated {
            return;
        }
        if self.visits_left == 0 || self.entries_left == 0 {
            self.truncated = true;
            return;
        }
        self.visits_left -= 1;
        let Some(current) = doc.nodes.get(node) else {
            return;
        };
        let line = key_line.unwrap_or_else(|| current.line());
        if depth > MAX_DEPTH {
            self.warnings.push(warning(
                line_u32(line),
                format!("nesting deeper than {MAX_DEPTH} under `{prefix}`, dropped"),
            ));
            return;
        }
        match current {
            Node::Scalar { value, .. } => self.emit(prefix, value.clone(), line, out),
            Node::Missing { .. } => self.warnings.push(warning(
                line_u32(line),
                format!("alias to an unknown anchor under `{prefix}`"),
            )),
            Node::Alias { target, .. } => {
                self.flatten(doc, *target, prefix, Some(line), depth + 1, out);
            }
            Node::Seq { items, .. } => {
                if items.is_empty() {
                    self.emit(prefix.clone(), String::new(), line, out);
                }
                for (i, &item) in items.iter().enumerate() {
                    let key = format!("{prefix}[{i}]");
                    self.flatten(doc, item, key, None, depth + 1, out);
                }
            }
            Node::Map { pairs, .. } => {
                if pairs.is_empty() && !prefix.is_empty() {
                    self.emit(prefix.clone(), String::new(), line, out);
                }
                for &(key, value) in pairs {
                    let Some((key_text, line)) = scalar_key(doc, key) else {
                        let line = doc.nodes.get(key).map_or(line, Node::line);
                        self.warnings.push(warning(
                            line_u32(line),
                            format!("non-scalar key under `{prefix}`, skipped"),
                        ));
                        continue;
                    };
                    if key_text == "<<" {
                        // A merge key (`<<: *defaults` or `<<: [*a, *b]`) pulls the aliased
                        // mappings in at this level.
                        let merged = match resolve(doc, value).and_then(|i| doc.nodes.get(i)) {
                            Some(Node::Seq { items, .. }) => items.clone(),
                            _ => vec![value],
                        };
                        for item in merged {
                            self.flatten(doc, item, prefix.clone(), Some(line), depth + 1, out);
                        }
                        continue;
                    }
                    let key = if prefix.is_empty() {
                        key_text.to_owned()
                    } else {
                        format!("{prefix}.{key_text}")
                    };
                    self.flatten(doc, value, key, Some(line), depth + 1, out);
                }
            }
        }
    }

    fn emit(&mut self, key: String, value: String, line: usize, out: &mut Vec<ConfigEntry>) {
        if self.entries_left == 0 {
            self.truncated = true;
            return;
        }
        self.entries_left -= 1;
        out.push(entry(key, value, line_u32(line)));
    }
}

/// The node an alias chain ends at.
fn resolve(doc: &Builder, mut node: usize) -> Option<usize> {
    for _ in 0..MAX_DEPTH {
        match doc.nodes.get(node)? {
            Node::Alias { target, .. } => node = *target,
            _ => return Some(node),
        }
    }
    None
}

/// The text and line of a mapping key, following aliases; `None` for collections as keys.
fn scalar_key(doc: &Builder, mut key: usize) -> Option<(&str, usize)> {
    for _ in 0..MAX_DEPTH {
        match doc.nodes.get(key)? {
            Node::Scalar { value, line } => return Some((value, *line)),
            Node::Alias { target, .. } => key = *target,
            _ => return None,
        }
    }
    None
}
