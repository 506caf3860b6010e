//! XML changelogs, read with roxmltree (the options every XML front-end uses, so a hostile
//! file is bounded): `<databaseChangeLog>` and its elements as [`Element`]s. Comments and
//! processing instructions are not elements, so a `createTable` inside `<!-- -->` never
//! counts.

use super::{from_root, Changelog, Element, Format};
use crate::lang::sql::SqlWarning;

/// Nesting beyond which a changelog's elements are not read (no real changelog nests past
/// a dozen levels).
const MAX_DEPTH: usize = 64;

/// Reads an XML changelog; `None` when its root is not `databaseChangeLog`.
pub(super) fn parse(text: &str) -> Option<Changelog> {
    let doc = match roxmltree::Document::parse_with_options(text, crate::lang::xml::options()) {
        Ok(doc) => doc,
        Err(e) => {
            let line = e.pos().row;
            return Some(Changelog {
                format: Format::Xml,
                properties: Vec::new(),
                entries: Vec::new(),
                warnings: vec![SqlWarning {
                    line,
                    message: format!("invalid XML changelog: {e}"),
                }],
            });
        }
    };
    let root = doc.root_element();
    if root.tag_name().name() != "databaseChangeLog" {
        return None;
    }
    let lines = LineStarts::of(text);
    let tree = element(&lines, root, 0);
    // The i-th element child of the root is the i-th child of the tree: its source text.
    let ranges: Vec<std::ops::Range<usize>> = root
        .children()
        .filter(roxmltree::Node::is_element)
        .map(|n| n.range())
        .collect();
    let source = |_: &Element, i: usize| -> String {
        ranges
            .get(i)
            .and_then(|r| text.get(r.clone()))
            .unwrap_or_default()
            .to_owned()
    };
    Some(from_root(&tree, Format::Xml, &source))
}

/// The byte offset where each line starts, so an element's line is a binary search
/// (roxmltree's `text_pos_at` counts from the start of the text every time).
struct LineStarts(Vec<usize>);

impl LineStarts {
    fn of(text: &str) -> LineStarts {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineStarts(starts)
    }

    /// The 1-based line of byte `pos`.
    fn line(&self, pos: usize) -> u32 {
        let i = self.0.partition_point(|&s| s <= pos);
        u32::try_from(i).unwrap_or(u32::MAX)
    }
}

fn element(lines: &LineStarts, node: roxmltree::Node<'_, '_>, depth: usize) -> Element {
    let line = lines.line(node.range().start);
    let mut el = Element {
        name: node.tag_name().name().to_owned(),
        attrs: node
            .attributes()
            .map(|a| (a.name().to_owned(), a.value().to_owned()))
            .collect(),
        children: Vec::new(),
        text: crate::lang::xml::text(node),
        line,
    };
    if depth < MAX_DEPTH {
        el.children = node
            .children()
            .filter(roxmltree::Node::is_element)
            .map(|c| element(lines, c, depth + 1))
            .collect();
    }
    el
}
