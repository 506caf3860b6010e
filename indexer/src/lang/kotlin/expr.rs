//! The [`Expr`] trees of Kotlin expressions that name things (URLs, topics, SQL), in the
//! shapes the one value evaluator (`crate::frameworks::values`) reads for Java.
//!
//! A string template is a concatenation: `"$base/api/${id}"` is `base + "/api/" + id`;
//! `\$` and `${'$'}` are a literal `$`, so `@Value("\${app.url}")` holds `${app.url}`.
//! A call of a capitalised name without a receiver (`URI(url)`) is a constructor, and
//! `"%s/x".format(a)` is `String.format("%s/x", a)`; `"""…""".trimIndent()` is the
//! trimmed text. Everything else is [`Expr::Other`].

use tree_sitter::Node;

use super::{FIELDS, KINDS};
use crate::lang::{ChildByField as _, KindName as _};

use crate::facts::Expr;

/// Depth beyond which a tree is cut to [`Expr::Other`].
const MAX_DEPTH: usize = 24;
/// Longest string literal kept.
const MAX_LITERAL: usize = 2048;

pub(super) fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Builds the tree of `node` from the file's bytes `src`.
pub(super) fn build(node: Node<'_>, src: &str) -> Expr {
    build_at(node, src, 0)
}

/// The named children of `node`, comments left out.
pub(super) fn children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut c = node.walk();
    node.named_children(&mut c)
        .filter(|n| !matches!(n.kind_name(&KINDS), "line_comment" | "block_comment"))
        .collect()
}

/// The operator token between a navigation's receiver and its name: `.`, `?.` or `::`.
pub(super) fn navigation_op(node: Node<'_>) -> &'static str {
    let mut c = node.walk();
    for child in node.children(&mut c) {
        match child.kind_name(&KINDS) {
            "?." => return "?.",
            "::" => return "::",
            "." => return ".",
            _ => {}
        }
    }
    "."
}

/// `(receiver, name)` of a navigation `a.b`, `a?.b` (not `a::b`).
pub(super) fn navigation_parts(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let kids = children(node);
    let (first, last) = (*kids.first()?, *kids.last()?);
    (kids.len() >= 2 && last.kind_name(&KINDS) == "identifier").then_some((first, last))
}

fn build_at(node: Node<'_>, src: &str, depth: usize) -> Expr {
    if depth > MAX_DEPTH {
        return Expr::Other;
    }
    match node.kind_name(&KINDS) {
        "parenthesized_expression" | "annotated_expression" => match children(node).last() {
            Some(inner) => build_at(*inner, src, depth + 1),
            None => Expr::Other,
        },
        "as_expression" => match node.child_by_field(&FIELDS, "left") {
            Some(left) => build_at(left, src, depth + 1),
            None => Expr::Other,
        },
        "string_literal" | "multiline_string_literal" => template(node, src, depth),
        "character_literal" => {
            let raw = text(node, src);
            let inner = raw.trim_start_matches('\'').trim_end_matches('\'');
            Expr::Str(unescape(inner))
        }
        "number_literal" => {
            let t = text(node, src).replace('_', "");
            let t = t.trim_end_matches(['l', 'L']);
            if t.chars().all(|c| c.is_ascii_digit()) && !t.is_empty() {
                Expr::Str(t.to_string())
            } else {
                Expr::Other
            }
        }
        "identifier" => match text(node, src) {
            "true" | "false" | "null" => Expr::Other,
            name => Expr::Name(name.to_string()),
        },
        "this_expression" if children(node).is_empty() => Expr::This,
        "navigation_expression" if navigation_op(node) != "::" => match navigation_parts(node) {
            Some((recv, name)) => Expr::Field(
                Box::new(build_at(recv, src, depth + 1)),
                text(name, src).to_string(),
            ),
            None => Expr::Other,
        },
        "binary_expression" => {
            let is_plus = node
                .child_by_field(&FIELDS, "operator")
                .is_some_and(|o| o.kind_name(&KINDS) == "+");
            let (Some(left), Some(right), true) = (
                node.child_by_field(&FIELDS, "left"),
                node.child_by_field(&FIELDS, "right"),
                is_plus,
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
        "call_expression" => call(node, src, depth),
        "lambda_literal" => lambda(node, src, depth),
        "annotated_lambda" => match children(node)
            .into_iter()
            .find(|n| n.kind_name(&KINDS) == "lambda_literal")
        {
            Some(l) => lambda(l, src, depth),
            None => Expr::Other,
        },
        _ => Expr::Other,
    }
}

/// A lambda whose body is one expression: that expression.
fn lambda(node: Node<'_>, src: &str, depth: usize) -> Expr {
    let body: Vec<Node<'_>> = children(node)
        .into_iter()
        .filter(|n| n.kind_name(&KINDS) != "lambda_parameters")
        .collect();
    match body.as_slice() {
        [one] => Expr::Lambda(Box::new(build_at(*one, src, depth + 1))),
        _ => Expr::Other,
    }
}

/// The parts of a call: callee, argument expressions (trailing lambdas last).
pub(super) struct CallParts<'t> {
    /// The receiver, for `a.f(...)` and `a?.f(...)`.
    pub(super) receiver: Option<Node<'t>>,
    /// The called name.
    pub(super) name: Option<Node<'t>>,
    /// Each argument: its name when named, and its expression.
    pub(super) args: Vec<(Option<Node<'t>>, Node<'t>)>,
    /// The callee is something else than a name (`f()()`, `(x)()`).
    pub(super) other_callee: bool,
}

/// Splits a `call_expression`, joining `f(a) { … }` (a call wrapped by its trailing
/// lambda) into one call.
pub(super) fn call_parts(node: Node<'_>) -> CallParts<'_> {
    call_parts_at(node, 0)
}

fn call_parts_at(node: Node<'_>, depth: usize) -> CallParts<'_> {
    let mut parts = CallParts {
        receiver: None,
        name: None,
        args: Vec::new(),
        other_callee: false,
    };
    let kids = children(node);
    let Some(&callee) = kids.first() else {
        parts.other_callee = true;
        return parts;
    };
    let mut lambdas = Vec::new();
    let mut arguments = None;
    for k in &kids[1..] {
        match k.kind_name(&KINDS) {
            "value_arguments" => arguments = Some(*k),
            "annotated_lambda" => lambdas.push(*k),
            _ => {}
        }
    }
    match callee.kind_name(&KINDS) {
        "identifier" => parts.name = Some(callee),
        "navigation_expression" if navigation_op(callee) != "::" => match navigation_parts(callee) {
            Some((recv, name)) => {
                parts.receiver = Some(recv);
                parts.name = Some(name);
            }
            None => parts.other_callee = true,
        },
        // `f(a) { … }`: the inner call with the lambda as its last argument.
        "call_expression" if arguments.is_none() && !lambdas.is_empty() && depth < MAX_DEPTH => {
            let mut inner = call_parts_at(callee, depth + 1);
            for l in lambdas {
                inner.args.push((None, l));
            }
            return inner;
        }
        _ => parts.other_callee = true,
    }
    if let Some(list) = arguments {
        for arg in children(list)
            .into_iter()
            .filter(|a| a.kind_name(&KINDS) == "value_argument")
        {
            let kids = children(arg);
            let named = kids.len() >= 2 && kids[0].kind_name(&KINDS) == "identifier" && has_token(arg, "=");
            let value = kids.last().copied();
            if let Some(v) = value {
                parts.args.push((named.then_some(kids[0]), v));
            }
        }
    }
    for l in lambdas {
        parts.args.push((None, l));
    }
    parts
}

/// Whether `node` has the anonymous token `token` among its children.
pub(super) fn has_token(node: Node<'_>, token: &str) -> bool {
    let mut c = node.walk();
    let found = node
        .children(&mut c)
        .any(|n| !n.is_named() && n.kind_name(&KINDS) == token);
    found
}

fn call(node: Node<'_>, src: &str, depth: usize) -> Expr {
    let parts = call_parts(node);
    let Some(name_node) = parts.name.filter(|_| !parts.other_callee) else {
        return Expr::Other;
    };
    let name = text(name_node, src).to_string();
    let args: Vec<Expr> = parts
        .args
        .iter()
        .map(|(_, a)| build_at(*a, src, depth + 1))
        .collect();
    let recv = parts.receiver.map(|r| build_at(r, src, depth + 1));
    match (recv, name.as_str()) {
        (None, n) if n.starts_with(char::is_uppercase) => Expr::New { ty: name, args },
        // `"%s/x".format(a)` is `String.format("%s/x", a)`.
        (Some(fmt @ (Expr::Str(_) | Expr::Concat(_))), "format") => Expr::Call {
            recv: Some(Box::new(Expr::Name("String".into()))),
            name,
            args: std::iter::once(fmt).chain(args).collect(),
        },
        (Some(Expr::Str(s)), "trimIndent" | "trimMargin") if args.is_empty() => {
            Expr::Str(trim_indent(&s, name == "trimMargin"))
        }
        (recv, _) => Expr::Call {
            recv: recv.map(Box::new),
            name,
            args,
        },
    }
}

/// A string template as a concatenation of its literal parts and interpolated values.
fn template(node: Node<'_>, src: &str, depth: usize) -> Expr {
    let raw = node.kind_name(&KINDS) == "multiline_string_literal";
    let mut parts: Vec<Expr> = Vec::new();
    let mut literal = String::new();
    let mut pending_dollar = false;
    let kids = children(node);
    for k in kids {
        let piece = text(k, src);
        match k.kind_name(&KINDS) {
            "string_content" => {
                let mut piece = piece;
                if pending_dollar {
                    pending_dollar = false;
                    // `$name` the grammar read as `$` then text: the name is a value.
                    let end = piece
                        .char_indices()
                        .find(|&(i, c)| !(c == '_' || c.is_alphanumeric()) || (i == 0 && c.is_ascii_digit()))
                        .map_or(piece.len(), |(i, _)| i);
                    if end > 0 && !piece.starts_with(|c: char| c.is_ascii_digit()) {
                        flush(&mut literal, &mut parts);
                        parts.push(Expr::Name(piece[..end].to_string()));
                        piece = &piece[end..];
                    } else {
                        literal.push('$');
                    }
                }
                if piece == "$" {
                    pending_dollar = true;
                } else if raw {
                    literal.push_str(piece);
                } else {
                    literal.push_str(&unescape(piece));
                }
            }
            "escape_sequence" => {
                if pending_dollar {
                    literal.push('$');
                    pending_dollar = false;
                }
                literal.push_str(&unescape(piece));
            }
            "interpolation" => {
                if pending_dollar {
                    literal.push('$');
                    pending_dollar = false;
                }
                let value = children(k)
                    .last()
                    .map_or(Expr::Other, |e| build_at(*e, src, depth + 1));
                match value {
                    Expr::Str(s) => literal.push_str(&s),
                    v => {
                        flush(&mut literal, &mut parts);
                        parts.push(v);
                    }
                }
            }
            _ => {}
        }
        if literal.len() > MAX_LITERAL {
            return Expr::Other;
        }
    }
    if pending_dollar {
        literal.push('$');
    }
    flush(&mut literal, &mut parts);
    match parts.len() {
        0 => Expr::Str(String::new()),
        1 => parts.pop().unwrap_or(Expr::Other),
        _ => Expr::Concat(parts),
    }
}

fn flush(literal: &mut String, parts: &mut Vec<Expr>) {
    if !literal.is_empty() {
        parts.push(Expr::Str(std::mem::take(literal)));
    }
}

/// The fixed text of a string template, when it has no interpolated value.
pub(super) fn string_value(node: Node<'_>, src: &str) -> Option<String> {
    match template(node, src, 0) {
        Expr::Str(s) => Some(s),
        _ => None,
    }
}

/// Kotlin's `trimIndent()` (and `trimMargin()` with `|`): blank first and last lines
/// dropped, the common indent (or the margin) removed.
fn trim_indent(s: &str, margin: bool) -> String {
    let mut lines: Vec<&str> = s.lines().collect();
    if lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    if lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    if margin {
        return lines
            .iter()
            .map(|l| {
                let t = l.trim_start();
                t.strip_prefix('|').unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
    }
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.len() >= indent {
                &l[indent..]
            } else {
                l.trim_start()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A Kotlin string's escapes read: `\n`, `\t`, `\r`, `\b`, `\"`, `\'`, `\\`, `\$`, `\uXXXX`.
fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
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
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => out.push_str(&hex),
                }
            }
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}
