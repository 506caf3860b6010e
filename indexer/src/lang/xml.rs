//! XML as every front-end of an XML format reads it (Maven POMs, `web.xml`, MyBatis
//! mappers, Liquibase changelogs): roxmltree with a DTD allowed (mapper files declare one)
//! and a bound on nodes, so a hostile file costs an error, not memory.

/// Nodes one document may have before it is refused: far above any real descriptor.
const MAX_NODES: u32 = 2_000_000;

/// The parsing options of every XML front-end.
pub(crate) fn options<'input>() -> roxmltree::ParsingOptions<'input> {
    roxmltree::ParsingOptions {
        allow_dtd: true,
        nodes_limit: MAX_NODES,
        ..roxmltree::ParsingOptions::default()
    }
}

/// The text of an element: its text and CDATA children joined, child elements skipped.
pub(crate) fn text(node: roxmltree::Node<'_, '_>) -> String {
    node.children()
        .filter(|c| c.is_text())
        .filter_map(|c| c.text())
        .collect()
}

/// The first child element of `node` called `name` (local name, any namespace).
pub(crate) fn child<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Option<roxmltree::Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// The child elements of `node` called `name`.
pub(crate) fn children<'a, 'i: 'a>(
    node: roxmltree::Node<'a, 'i>,
    name: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> + 'a {
    node.children()
        .filter(move |c| c.is_element() && c.tag_name().name() == name)
}
