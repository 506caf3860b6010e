//! The [`Expr`] trees of Java expressions that name things (URLs, topics, SQL).
//!
//! The parser keeps, for each call argument, local initializer, assignment and field
//! initializer, an [`Expr`]: literals, names, `a.b`, `+` concatenations and method calls,
//! everything else is [`Expr::Other`]. Evaluating one to a string template is the one
//! value evaluator's job (`crate::frameworks::values`).

use tree_sitter::Node;

use super::{FIELDS, KINDS};
use crate::lang::{ChildByField as _, KindName as _};

use crate::facts::Expr;

/// Depth beyond which a tree is cut to [`Expr::Other`] (and evaluation gives up).
const MAX_DEPTH: usize = 24;
/// Longest string literal kept.
const MAX_LITERAL: usize = 2048;

/// Builds the tree of `node` from the file's bytes `src`.
pub(super) fn build(node: Node<'_>, src: &str) -> Expr {
    build_at(node, src, 0)
}

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

fn build_at(node: Node<'_>, src: &str, depth: usize) -> Expr {
    if depth > MAX_DEPTH {
        return Expr::Other;
    }
    let mut node = node;
    // Parentheses and casts say nothing of the value: their inner expression does.
    loop {
        let inner = match node.kind_name(&KINDS) {
            "cast_expression" => node.child_by_field(&FIELDS, "value"),
            "parenthesized_expression" => node.named_child(0),
            _ => break,
        };
        match inner {
            Some(n) => node = n,
            None => return Expr::Other,
        }
    }
    match node.kind_name(&KINDS) {
        "string_literal" | "text_block" => {
            let raw = text(node, src);
            let inner = raw
                .strip_prefix("\"\"\"")
                .and_then(|r| r.strip_suffix("\"\"\""))
                .or_else(|| raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
                .unwrap_or(raw);
            if inner.len() > MAX_LITERAL {
                return Expr::Other;
            }
            let mut s = unescape(inner);
            if node.kind_name(&KINDS) == "text_block" {
                s = s.trim().to_string();
            }
            Expr::Str(s)
        }
        // A number is the text it prints as (`":" + 8080`); only integers, as written.
        "decimal_integer_literal" => Expr::Str(
            text(node, src)
                .replace('_', "")
                .trim_end_matches(['l', 'L'])
                .to_string(),
        ),
        "identifier" => Expr::Name(text(node, src).to_string()),
        "this" => Expr::This,
        "field_access" => match (
            node.child_by_field(&FIELDS, "object"),
            node.child_by_field(&FIELDS, "field"),
        ) {
            (Some(object), Some(field)) => Expr::Field(
                Box::new(build_at(object, src, depth + 1)),
                text(field, src).to_string(),
            ),
            _ => Expr::Other,
        },
        "binary_expression" => {
            let is_plus = node
                .child_by_field(&FIELDS, "operator")
                .is_some_and(|o| o.kind_name(&KINDS) == "+");
            if !is_plus {
                return Expr::Other;
            }
            let (Some(left), Some(right)) = (
                node.child_by_field(&FIELDS, "left"),
                node.child_by_field(&FIELDS, "right"),
            ) else {
                return Expr::Other;
            };
            let mut parts = Vec::new();
            for side in [left, right] {
                match build_at(side, src, depth + 1) {
                    Expr::Concat(inner) => parts.extend(inner),
                    e => parts.push(e),
                }
            }
            Expr::Concat(parts)
        }
        "method_invocation" => {
            let recv = node
                .child_by_field(&FIELDS, "object")
                .map(|o| Box::new(build_at(o, src, depth + 1)));
            let name = node
                .child_by_field(&FIELDS, "name")
                .map(|n| text(n, src).to_string())
                .unwrap_or_default();
            Expr::Call {
                recv,
                name,
                args: args(node, src, depth),
            }
        }
        "object_creation_expression" => Expr::New {
            ty: node
                .child_by_field(&FIELDS, "type")
                .map(|t| crate::facts::erase(text(t, src)))
                .unwrap_or_default(),
            args: args(node, src, depth),
        },
        "ternary_expression" => match (
            node.child_by_field(&FIELDS, "consequence"),
            node.child_by_field(&FIELDS, "alternative"),
        ) {
            (Some(a), Some(b)) => {
                Expr::Choice(vec![build_at(a, src, depth + 1), build_at(b, src, depth + 1)])
            }
            _ => Expr::Other,
        },
        "lambda_expression" => match node.child_by_field(&FIELDS, "body") {
            Some(body) if body.kind_name(&KINDS) != "block" => {
                Expr::Lambda(Box::new(build_at(body, src, depth + 1)))
            }
            _ => Expr::Other,
        },
        _ => Expr::Other,
    }
}

fn args(node: Node<'_>, src: &str, depth: usize) -> Vec<Expr> {
    let Some(list) = node.child_by_field(&FIELDS, "arguments") else {
        return Vec::new();
    };
    let mut c = list.walk();
    list.named_children(&mut c)
        .filter(|a| !matches!(a.kind_name(&KINDS), "line_comment" | "block_comment"))
        .map(|a| build_at(a, src, depth + 1))
        .collect()
}

/// The tree of one expression written alone, parsed as a field initializer.
#[cfg(test)]
pub(super) fn parse_expr(java: &str) -> Expr {
    let src = format!("class X {{ Object x = {java}; }}");
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("java grammar");
    let tree = parser.parse(&src, None).expect("tree");
    let mut stack = vec![tree.root_node()];
    while let Some(n) = stack.pop() {
        if n.kind_name(&KINDS) == "variable_declarator" {
            let value = n.child_by_field(&FIELDS, "value").expect("value");
            return build(value, &src);
        }
        let mut c = n.walk();
        stack.extend(n.named_children(&mut c));
    }
    panic!("no declarator in {java}");
}

/// A Java string literal's content with its escapes read: `\n`, `\t`, `\"`, `\\`,
/// `\uXXXX`, octal escapes, `\s` (a space) and, in text blocks, `\<newline>` (nothing).
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('b') => out.push('\u{8}'),
            Some('f') => out.push('\u{c}'),
            Some('s') => out.push(' '),
            Some('\n') => {}
            Some('u') => {
                while chars.peek() == Some(&'u') {
                    chars.next();
                }
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&hex),
                }
            }
            Some(d @ '0'..='7') => {
                let mut value = d.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|c| c.to_digit(8)) {
                        Some(n) if value * 8 + n <= 0o377 => {
                            value = value * 8 + n;
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('?'));
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
