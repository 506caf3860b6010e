//! YAML and JSON changelogs as [`Element`]s.
//!
//! Built on yaml-rust2's event parser, which gives every node its line (JSON is read by the
//! same parser; what it refuses — tab indentation, which YAML forbids — is read again by
//! serde_json, without lines). A mapping becomes an element: scalar values are its
//! attributes, mapping values its children named by their key, and lists of one-key
//! mappings (`changes`, `columns`, `databaseChangeLog`) children named by each item's key —
//! the shape of the XML changelog. Any other list is a child named by its key, so a
//! `rollback:` list stays inside its own element and is never taken for changes. Aliases
//! are not followed (a changelog has no use for them, and following them is how an alias
//! bomb allocates).

use yaml_rust2::parser::{Event, Parser};

use super::{from_root, Changelog, Element, Format};
use crate::lang::sql::SqlWarning;

/// Nodes one document may have before it is refused: far above any real changelog.
const MAX_NODES: usize = 2_000_000;
/// Nesting beyond which a branch is dropped.
const MAX_DEPTH: usize = 64;
/// Keys whose list items are the element's own children.
const HOISTED: &[&str] = &["databaseChangeLog", "changes", "columns"];

enum Node {
    Scalar(String, u32),
    Seq(Vec<usize>, u32),
    Map(Vec<(usize, usize)>, u32),
    Alias(u32),
}

impl Node {
    fn line(&self) -> u32 {
        match self {
            Node::Scalar(_, l) | Node::Seq(_, l) | Node::Map(_, l) | Node::Alias(l) => *l,
        }
    }
}

#[derive(Default)]
struct Arena {
    nodes: Vec<Node>,
    open: Vec<(usize, Option<usize>)>,
    root: Option<usize>,
}

impl Arena {
    fn push(&mut self, node: Node) -> usize {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    fn attach(&mut self, index: usize) {
        let Some((parent, pending)) = self.open.last_mut() else {
            self.root.get_or_insert(index);
            return;
        };
        match &mut self.nodes[*parent] {
            Node::Seq(items, _) => items.push(index),
            Node::Map(pairs, _) => match pending.take() {
                Some(key) => pairs.push((key, index)),
                None => *pending = Some(index),
            },
            _ => {}
        }
    }
}

/// Reads a YAML or JSON changelog; one that cannot be read is a changelog with a warning.
pub(super) fn parse(text: &str, format: Format) -> Changelog {
    let (root, warning) = match arena(text) {
        Ok(arena) => (to_root(&arena), None),
        Err((line, message)) => match format {
            Format::Json => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(value) => (Some(json_root(&value)), None),
                Err(e) => (
                    None,
                    Some((line_u32(e.line()), format!("invalid JSON changelog: {e}"))),
                ),
            },
            _ => (None, Some((line, format!("invalid YAML changelog: {message}")))),
        },
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut log = match &root {
        Some(root) => {
            // A changeset's source: its lines up to the next entry of the changelog.
            let starts: Vec<u32> = root.children.iter().map(|c| c.line).collect();
            let source = |el: &Element, i: usize| -> String {
                let from = el.line.max(1) as usize - 1;
                let to = starts
                    .get(i + 1)
                    .map_or(lines.len(), |&next| (next.max(1) as usize - 1).max(from + 1));
                if el.line == 0 {
                    return String::new();
                }
                lines.get(from..to.min(lines.len())).unwrap_or_default().concat()
            };
            from_root(root, format, &source)
        }
        None => Changelog {
            format,
            properties: Vec::new(),
            entries: Vec::new(),
            warnings: Vec::new(),
        },
    };
    if let Some((line, message)) = warning {
        log.warnings.push(SqlWarning { line, message });
    }
    log
}

fn line_u32(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// The first document as an arena of nodes, or the line and message of the parse error.
fn arena(text: &str) -> Result<Arena, (u32, String)> {
    let mut parser = Parser::new_from_str(text);
    let mut arena = Arena::default();
    loop {
        let (event, mark) = parser
            .next_token()
            .map_err(|e| (line_u32(e.marker().line()), e.info().to_owned()))?;
        let line = line_u32(mark.line());
        if arena.nodes.len() > MAX_NODES {
            return Err((line, format!("more than {MAX_NODES} nodes")));
        }
        match event {
            Event::StreamEnd | Event::DocumentEnd => return Ok(arena),
            Event::StreamStart | Event::DocumentStart | Event::Nothing => {}
            Event::Scalar(value, ..) => {
                let i = arena.push(Node::Scalar(value, line));
                arena.attach(i);
            }
            Event::Alias(_) => {
                let i = arena.push(Node::Alias(line));
                arena.attach(i);
            }
            Event::SequenceStart(..) => {
                let i = arena.push(Node::Seq(Vec::new(), line));
                arena.open.push((i, None));
            }
            Event::MappingStart(..) => {
                let i = arena.push(Node::Map(Vec::new(), line));
                arena.open.push((i, None));
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((i, _)) = arena.open.pop() {
                    arena.attach(i);
                }
            }
        }
    }
}

/// The `databaseChangeLog` element of a document whose root maps that key to a list.
fn to_root(arena: &Arena) -> Option<Element> {
    let root = arena.root?;
    let Node::Map(pairs, line) = &arena.nodes[root] else {
        return None;
    };
    let mut el = Element {
        name: "databaseChangeLog".into(),
        line: *line,
        ..Element::default()
    };
    for &(k, v) in pairs {
        if scalar(arena, k) == Some("databaseChangeLog") {
            fill(arena, &mut el, "databaseChangeLog", v, 0);
        }
    }
    Some(el)
}

fn scalar(arena: &Arena, i: usize) -> Option<&str> {
    match &arena.nodes[i] {
        Node::Scalar(s, _) => Some(s),
        _ => None,
    }
}

/// Adds what the value `v` of key `key` contributes to `el`.
fn fill(arena: &Arena, el: &mut Element, key: &str, v: usize, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match &arena.nodes[v] {
        Node::Scalar(s, _) => el.attrs.push((key.to_owned(), s.clone())),
        Node::Map(..) => el.children.push(element(arena, key, v, depth + 1)),
        Node::Seq(items, line) => {
            let mut target = Element {
                name: key.to_owned(),
                line: *line,
                ..Element::default()
            };
            let mut scalars = Vec::new();
            for &item in items {
                match &arena.nodes[item] {
                    Node::Map(pairs, _) if pairs.len() == 1 => {
                        let (ik, iv) = pairs[0];
                        let Some(name) = scalar(arena, ik) else {
                            continue;
                        };
                        let mut child = element(arena, name, iv, depth + 1);
                        child.line = arena.nodes[ik].line();
                        target.children.push(child);
                    }
                    Node::Map(..) => target.children.push(element(arena, key, item, depth + 1)),
                    Node::Scalar(s, _) => scalars.push(s.clone()),
                    _ => {}
                }
            }
            if HOISTED.contains(&key) {
                el.children.append(&mut target.children);
            } else if !target.children.is_empty() {
                el.children.push(target);
            }
            if !scalars.is_empty() {
                el.attrs.push((key.to_owned(), scalars.join(", ")));
            }
        }
        Node::Alias(_) => {}
    }
}

/// The element called `name` made of the node `v`: a mapping's entries, or a scalar as text.
fn element(arena: &Arena, name: &str, v: usize, depth: usize) -> Element {
    let mut el = Element {
        name: name.to_owned(),
        line: arena.nodes[v].line(),
        ..Element::default()
    };
    match &arena.nodes[v] {
        Node::Map(pairs, _) => {
            for &(k, val) in pairs {
                if let Some(key) = scalar(arena, k) {
                    fill(arena, &mut el, key, val, depth);
                }
            }
        }
        Node::Scalar(s, _) => el.text.clone_from(s),
        _ => {}
    }
    el
}

/// A JSON document read by serde_json as the `databaseChangeLog` element (lines unknown).
fn json_root(value: &serde_json::Value) -> Element {
    let mut el = Element {
        name: "databaseChangeLog".into(),
        ..Element::default()
    };
    if let Some(list) = value.get("databaseChangeLog") {
        json_fill(&mut el, "databaseChangeLog", list, 0);
    }
    el
}

fn json_scalar(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Bool(b) => Some(b.to_string()),
        serde_json::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn json_fill(el: &mut Element, key: &str, v: &serde_json::Value, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        serde_json::Value::Object(_) => el.children.push(json_element(key, v, depth + 1)),
        serde_json::Value::Array(items) => {
            let mut target = Element {
                name: key.to_owned(),
                ..Element::default()
            };
            let mut scalars = Vec::new();
            for item in items {
                match item {
                    serde_json::Value::Object(map) if map.len() == 1 => {
                        if let Some((name, inner)) = map.iter().next() {
                            target.children.push(json_element(name, inner, depth + 1));
                        }
                    }
                    serde_json::Value::Object(_) => target.children.push(json_element(key, item, depth + 1)),
                    other => scalars.extend(json_scalar(other)),
                }
            }
            if HOISTED.contains(&key) {
                el.children.append(&mut target.children);
            } else if !target.children.is_empty() {
                el.children.push(target);
            }
            if !scalars.is_empty() {
                el.attrs.push((key.to_owned(), scalars.join(", ")));
            }
        }
        other => {
            if let Some(s) = json_scalar(other) {
                el.attrs.push((key.to_owned(), s));
            }
        }
    }
}

fn json_element(name: &str, v: &serde_json::Value, depth: usize) -> Element {
    let mut el = Element {
        name: name.to_owned(),
        ..Element::default()
    };
    match v {
        serde_json::Value::Object(map) => {
            for (k, val) in map {
                json_fill(&mut el, k, val, depth);
            }
        }
        other => el.text = json_scalar(other).unwrap_or_default(),
    }
    el
}
