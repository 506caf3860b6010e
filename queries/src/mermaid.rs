//! Mermaid flowcharts for recipe documents: the picture beside the tables.
//!
//! A recipe that crosses services (`service-map`, `endpoint-trace`, `impact`) draws the
//! path it found — services as subgraphs, endpoints, outbound calls, topics and tables as
//! nodes — with a [`Flowchart`]. The builder owns Mermaid's syntax so no recipe writes it:
//! ids are generated (`n0`, `g0`: never a reserved word such as `end`, never a name that
//! starts an arrow), every label is quoted and escaped, an edge is drawn once. A diagram
//! is for reading, so it has a cap on nodes: what does not fit is counted per kind and
//! said under the diagram ("diagram cut: …"), and the document's tables still list it all.
//! The markdown reads the same without a Mermaid renderer: the diagram is one fenced block.

use std::collections::{BTreeMap, HashMap};

use crate::render::Md;

/// The shape of a node, by what it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shape {
    /// A method, an endpoint, a product: `id["…"]`.
    Box,
    /// The change a recipe starts from: `id{{"…"}}`.
    Hexagon,
    /// A service outside the company: `id(["…"])`.
    Stadium,
    /// A table: `id[("…")]`.
    Cylinder,
    /// A topic or queue: `id[["…"]]`.
    Subroutine,
}

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Line {
    /// A call or a data access: `-->`.
    Solid,
    /// Messaging, asynchronous: `-.->`.
    Dotted,
}

struct Node {
    id: String,
    label: String,
    shape: Shape,
    group: Option<usize>,
}

struct Group {
    id: String,
    label: String,
}

/// A flowchart under construction. Nodes and groups are named by keys the caller chooses
/// (a service name, `table:orders`); the drawn ids are the builder's.
pub(crate) struct Flowchart {
    direction: &'static str,
    cap: usize,
    groups: Vec<Group>,
    group_keys: HashMap<String, usize>,
    nodes: Vec<Node>,
    node_keys: HashMap<String, usize>,
    edges: Vec<(usize, usize, String, Line)>,
    /// What was left out, per kind of node ("table", "endpoint"): keys, so a node asked for
    /// twice is counted once.
    cut: BTreeMap<&'static str, std::collections::BTreeSet<String>>,
}

/// A label as Mermaid reads it inside quotes: `"`, `#`, `<`, `>` as entity codes (`#` first,
/// since the codes start with it), backticks (which turn a label into markdown) as `'`, one
/// line.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '`' => out.push('\''),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

impl Flowchart {
    /// A left-to-right flowchart of at most `cap` nodes.
    pub(crate) fn new(cap: usize) -> Flowchart {
        Flowchart {
            direction: "LR",
            cap,
            groups: Vec::new(),
            group_keys: HashMap::new(),
            nodes: Vec::new(),
            node_keys: HashMap::new(),
            edges: Vec::new(),
            cut: BTreeMap::new(),
        }
    }

    /// The subgraph named `key`, labelled `label` the first time it is asked for.
    fn group(&mut self, key: &str, label: &str) -> usize {
        if let Some(&g) = self.group_keys.get(key) {
            return g;
        }
        let g = self.groups.len();
        self.groups.push(Group {
            id: format!("g{g}"),
            label: label.to_string(),
        });
        self.group_keys.insert(key.to_string(), g);
        g
    }

    /// Adds the node `key` (once; later calls change nothing) in the subgraph `group`
    /// (key, label), unless the diagram is full: then it is counted under `kind` for the
    /// cut note. Returns whether the node is in the diagram.
    pub(crate) fn node(
        &mut self,
        key: &str,
        label: &str,
        shape: Shape,
        group: Option<(&str, &str)>,
        kind: &'static str,
    ) -> bool {
        if self.node_keys.contains_key(key) {
            return true;
        }
        if self.nodes.len() >= self.cap {
            self.cut.entry(kind).or_default().insert(key.to_string());
            return false;
        }
        let group = group.map(|(k, l)| self.group(k, l));
        let n = self.nodes.len();
        self.nodes.push(Node {
            id: format!("n{n}"),
            label: label.to_string(),
            shape,
            group,
        });
        self.node_keys.insert(key.to_string(), n);
        true
    }

    /// An edge between two nodes of the diagram, labelled; drawn once, and not at all when
    /// either end was cut.
    pub(crate) fn edge(&mut self, from: &str, to: &str, label: &str, line: Line) {
        let (Some(&a), Some(&b)) = (self.node_keys.get(from), self.node_keys.get(to)) else {
            return;
        };
        if self
            .edges
            .iter()
            .any(|(x, y, l, _)| *x == a && *y == b && l == label)
        {
            return;
        }
        self.edges.push((a, b, label.to_string(), line));
    }

    /// "diagram cut: 3 more tables, 1 more topic not drawn …", when the cap cut anything.
    pub(crate) fn cut_note(&self) -> Option<String> {
        if self.cut.is_empty() {
            return None;
        }
        let parts: Vec<String> = self
            .cut
            .iter()
            .map(|(kind, keys)| format!("{} more {kind}(s)", keys.len()))
            .collect();
        Some(format!(
            "diagram cut: {} not drawn (at most {} nodes); the tables below list every one.",
            parts.join(", "),
            self.cap
        ))
    }

    /// The Mermaid text.
    pub(crate) fn render(&self) -> String {
        let mut out = format!("flowchart {}\n", self.direction);
        let node_line = |n: &Node| {
            let label = escape(&n.label);
            let (open, close) = match n.shape {
                Shape::Box => ("[", "]"),
                Shape::Hexagon => ("{{", "}}"),
                Shape::Stadium => ("([", "])"),
                Shape::Cylinder => ("[(", ")]"),
                Shape::Subroutine => ("[[", "]]"),
            };
            format!("{}{open}\"{label}\"{close}", n.id)
        };
        for (g, group) in self.groups.iter().enumerate() {
            out.push_str(&format!(
                "  subgraph {}[\"{}\"]\n",
                group.id,
                escape(&group.label)
            ));
            for n in self.nodes.iter().filter(|n| n.group == Some(g)) {
                out.push_str(&format!("    {}\n", node_line(n)));
            }
            out.push_str("  end\n");
        }
        for n in self.nodes.iter().filter(|n| n.group.is_none()) {
            out.push_str(&format!("  {}\n", node_line(n)));
        }
        for (a, b, label, line) in &self.edges {
            let arrow = match line {
                Line::Solid => "-->",
                Line::Dotted => "-.->",
            };
            let from = &self.nodes[*a].id;
            let to = &self.nodes[*b].id;
            if label.is_empty() {
                out.push_str(&format!("  {from} {arrow} {to}\n"));
            } else {
                out.push_str(&format!("  {from} {arrow}|\"{}\"| {to}\n", escape(label)));
            }
        }
        out
    }

    /// Writes the diagram as a fenced `mermaid` block, and the cut note under it.
    pub(crate) fn write(&self, md: &mut Md) {
        md.code("mermaid", "", &self.render());
        if let Some(note) = self.cut_note() {
            md.para(&note);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_quoted_and_escaped_and_ids_are_generated() {
        let mut f = Flowchart::new(10);
        assert!(f.node(
            "end",
            "say \"hi\" #1 <init>",
            Shape::Box,
            Some(("svc", "orders-service")),
            "method"
        ));
        assert!(f.node("t", "orders", Shape::Cylinder, None, "table"));
        f.edge("end", "t", "writes", Line::Solid);
        f.edge("end", "t", "writes", Line::Solid);
        f.edge("end", "nowhere", "x", Line::Solid);
        assert_eq!(
            f.render(),
            "flowchart LR\n  subgraph g0[\"orders-service\"]\n    n0[\"say #quot;hi#quot; #35;1 #lt;init#gt;\"]\n  end\n  n1[(\"orders\")]\n  n0 -->|\"writes\"| n1\n"
        );
        assert_eq!(f.cut_note(), None);
    }

    #[test]
    fn the_cap_cuts_and_says_what() {
        let mut f = Flowchart::new(1);
        assert!(f.node("a", "a", Shape::Box, None, "endpoint"));
        assert!(!f.node("b", "b", Shape::Cylinder, None, "table"));
        assert!(!f.node("b", "b", Shape::Cylinder, None, "table"));
        assert!(!f.node("c", "c", Shape::Cylinder, None, "table"));
        f.edge("a", "b", "writes", Line::Solid);
        assert!(!f.render().contains("-->"));
        assert_eq!(
            f.cut_note().as_deref(),
            Some(
                "diagram cut: 2 more table(s) not drawn (at most 1 nodes); the tables below list every one."
            )
        );
    }
}
