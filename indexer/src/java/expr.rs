//! A small expression tree of the Java expressions that name things (URLs, topics), and
//! their evaluation to a string template.
//!
//! The parser keeps, for each call argument, local initializer, assignment and field
//! initializer, an [`Expr`]: literals, names, `a.b`, `+` concatenations and method calls,
//! everything else is [`Expr::Other`]. [`eval`] folds one into a template such as
//! `http://inventory-service/api/inventory/{sku}`: names are looked up through a
//! [`Scope`] (which knows constants, config-bound fields and locals), values only known at
//! run time become `{name}` placeholders named after their variable, and anything the
//! source does not tell makes the whole value unknown (`None`) — never a guess.

use tree_sitter::Node;

/// Depth beyond which a tree is cut to [`Expr::Other`] (and evaluation gives up).
const MAX_DEPTH: usize = 24;
/// Longest string literal kept.
const MAX_LITERAL: usize = 2048;

/// The shape of a Java expression, as far as naming things needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Expr {
    /// A string literal or text block, unquoted (escapes kept as written, except `\"`).
    Str(String),
    /// A simple name: local, parameter, field or type.
    Name(String),
    /// `x.name`: a field of an object or a type (`Type.CONST`, `HttpMethod.GET`).
    Field(Box<Expr>, String),
    /// `a + b + …`, flattened.
    Concat(Vec<Expr>),
    /// `recv.name(args)`, or `name(args)` without a receiver.
    Call {
        recv: Option<Box<Expr>>,
        name: String,
        args: Vec<Expr>,
    },
    /// `new Type(args)`.
    New { ty: String, args: Vec<Expr> },
    /// A lambda with an expression body (`b -> b.path("/x").build()`): the body.
    Lambda(Box<Expr>),
    /// `this`.
    This,
    /// Anything else (numbers, ternaries, arrays…).
    Other,
}

/// Builds the tree of `node` from the file's bytes `src`.
pub(super) fn build(node: Node<'_>, src: &[u8]) -> Expr {
    build_at(node, src, 0)
}

fn text<'s>(node: Node<'_>, src: &'s [u8]) -> &'s str {
    std::str::from_utf8(&src[node.byte_range()]).unwrap_or("")
}

fn build_at(node: Node<'_>, src: &[u8], depth: usize) -> Expr {
    if depth > MAX_DEPTH {
        return Expr::Other;
    }
    let mut node = node;
    while node.kind() == "parenthesized_expression" || node.kind() == "cast_expression" {
        let inner = if node.kind() == "cast_expression" {
            node.child_by_field_name("value")
        } else {
            node.named_child(0)
        };
        match inner {
            Some(n) => node = n,
            None => return Expr::Other,
        }
    }
    match node.kind() {
        "string_literal" | "text_block" => {
            let raw = text(node, src);
            let inner = raw
                .strip_prefix("\"\"\"")
                .and_then(|r| r.strip_suffix("\"\"\""))
                .or_else(|| raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
                .unwrap_or(raw);
            let mut s = inner.replace("\\\"", "\"");
            if s.len() > MAX_LITERAL {
                return Expr::Other;
            }
            if node.kind() == "text_block" {
                s = s.trim().to_string();
            }
            Expr::Str(s)
        }
        "identifier" => Expr::Name(text(node, src).to_string()),
        "this" => Expr::This,
        "field_access" => match (
            node.child_by_field_name("object"),
            node.child_by_field_name("field"),
        ) {
            (Some(object), Some(field)) => Expr::Field(
                Box::new(build_at(object, src, depth + 1)),
                text(field, src).to_string(),
            ),
            _ => Expr::Other,
        },
        "binary_expression" => {
            let is_plus = node
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "+");
            if !is_plus {
                return Expr::Other;
            }
            let (Some(left), Some(right)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
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
                .child_by_field_name("object")
                .map(|o| Box::new(build_at(o, src, depth + 1)));
            let name = node
                .child_by_field_name("name")
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
                .child_by_field_name("type")
                .map(|t| super::erase(text(t, src)))
                .unwrap_or_default(),
            args: args(node, src, depth),
        },
        "lambda_expression" => match node.child_by_field_name("body") {
            Some(body) if body.kind() != "block" => Expr::Lambda(Box::new(build_at(body, src, depth + 1))),
            _ => Expr::Other,
        },
        _ => Expr::Other,
    }
}

fn args(node: Node<'_>, src: &[u8], depth: usize) -> Vec<Expr> {
    let Some(list) = node.child_by_field_name("arguments") else {
        return Vec::new();
    };
    let mut c = list.walk();
    list.named_children(&mut c)
        .filter(|a| !matches!(a.kind(), "line_comment" | "block_comment"))
        .map(|a| build_at(a, src, depth + 1))
        .collect()
}

/// What a name stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Lookup {
    /// A value the source fixes (a constant, a config value): the template it evaluates to.
    Value(String),
    /// A value known only at run time, named (a parameter, a non-constant local).
    Var(String),
    /// Something the source does not tell.
    Unknown,
}

/// Where [`eval`] looks names up: the caller knows locals, fields, constants and config.
pub(crate) trait Scope {
    /// The value of a simple name (`sku`, `BASE_URL`) or a qualified one (`Type.CONST`,
    /// `this.baseUrl`); `depth` is passed on to nested evaluations.
    fn lookup(&self, e: &Expr, depth: usize) -> Lookup;
}

/// The template `e` evaluates to, or `None` when the source does not tell it.
pub(crate) fn eval(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<String> {
    match piece(e, scope, depth)? {
        Piece::Text(s) => Some(s),
        Piece::Var(name) => Some(format!("{{{name}}}")),
    }
}

enum Piece {
    Text(String),
    Var(String),
}

impl Piece {
    fn into_template(self) -> String {
        match self {
            Piece::Text(s) => s,
            Piece::Var(name) => format!("{{{name}}}"),
        }
    }
}

/// The run-time variable a value would be named after: `sku`, `line.getSku()` → `sku`,
/// `order.id()` → `id`.
fn var_name(e: &Expr) -> Option<String> {
    match e {
        Expr::Name(n) => Some(n.clone()),
        Expr::Field(_, n) => Some(n.clone()),
        Expr::Call { name, args, .. } if args.is_empty() => {
            let bare = name
                .strip_prefix("get")
                .filter(|r| r.starts_with(char::is_uppercase))
                .map(|r| {
                    let mut c = r.chars();
                    c.next()
                        .map(|f| f.to_lowercase().chain(c).collect::<String>())
                        .unwrap_or_default()
                })
                .unwrap_or_else(|| name.clone());
            // An accessor (`getSku()`, `sku()`), not a conversion or a builder step.
            let verb_like = ["to", "as", "build", "create", "format", "encode", "expand"]
                .iter()
                .any(|p| name.starts_with(p));
            (!bare.is_empty() && !verb_like).then_some(bare)
        }
        _ => None,
    }
}

fn piece(e: &Expr, scope: &dyn Scope, depth: usize) -> Option<Piece> {
    if depth > MAX_DEPTH {
        return None;
    }
    match e {
        Expr::Str(s) => Some(Piece::Text(s.clone())),
        Expr::Name(_) | Expr::Field(..) => match scope.lookup(e, depth + 1) {
            Lookup::Value(v) => Some(Piece::Text(v)),
            Lookup::Var(n) => Some(Piece::Var(n)),
            Lookup::Unknown => None,
        },
        Expr::Concat(parts) => {
            let mut out = String::new();
            for p in parts {
                out.push_str(&piece(p, scope, depth + 1)?.into_template());
            }
            Some(Piece::Text(out))
        }
        Expr::Call { recv, name, args } => {
            let recv = recv.as_deref();
            let is_string_type = matches!(recv, Some(Expr::Name(n)) if n == "String");
            match (name.as_str(), args.len()) {
                ("format", n) if is_string_type && n >= 1 => {
                    format(&args[0], &args[1..], scope, depth).map(Piece::Text)
                }
                ("formatted", _) => {
                    let fmt = recv?;
                    format(fmt, args, scope, depth).map(Piece::Text)
                }
                ("valueOf", 1) if is_string_type => piece(&args[0], scope, depth + 1),
                ("toString", 0) | ("trim", 0) | ("strip", 0) => piece(recv?, scope, depth + 1),
                ("concat", 1) => {
                    let a = piece(recv?, scope, depth + 1)?.into_template();
                    let b = piece(&args[0], scope, depth + 1)?.into_template();
                    Some(Piece::Text(a + &b))
                }
                // A getter or accessor of some object: a value known at run time.
                _ => var_name(e)
                    .filter(|_| args.is_empty() && recv.is_some())
                    .map(Piece::Var),
            }
        }
        Expr::New { .. } | Expr::Lambda(_) | Expr::This | Expr::Other => None,
    }
}

/// `String.format(fmt, args…)`: each `%s`/`%d` takes the next argument; `%%` is `%`.
fn format(fmt: &Expr, args: &[Expr], scope: &dyn Scope, depth: usize) -> Option<String> {
    let fmt = piece(fmt, scope, depth + 1)?.into_template();
    let mut out = String::new();
    let mut next = args.iter();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // Flags, width and precision, then the conversion.
        let mut spec = String::new();
        while let Some(&d) = chars.peek() {
            if d.is_ascii_digit() || matches!(d, '-' | '.' | '+' | '0' | ',' | '#' | ' ') {
                spec.push(d);
                chars.next();
            } else {
                break;
            }
        }
        match chars.next()? {
            '%' => out.push('%'),
            'n' => out.push('\n'),
            's' | 'S' | 'd' | 'x' | 'X' | 'f' | 'b' | 'c' => {
                let arg = next.next()?;
                out.push_str(&piece(arg, scope, depth + 1)?.into_template());
            }
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// Names in the map are constants; names starting with a lowercase letter and absent
    /// from the map are run-time variables; others are unknown.
    struct MapScope(HashMap<&'static str, &'static str>);

    impl Scope for MapScope {
        fn lookup(&self, e: &Expr, _depth: usize) -> Lookup {
            let name = match e {
                Expr::Name(n) => n.clone(),
                Expr::Field(owner, n) => match owner.as_ref() {
                    Expr::Name(o) => format!("{o}.{n}"),
                    _ => return Lookup::Unknown,
                },
                _ => return Lookup::Unknown,
            };
            match self.0.get(name.as_str()) {
                Some(v) => Lookup::Value(v.to_string()),
                None if name.starts_with(char::is_lowercase) && !name.contains('.') => Lookup::Var(name),
                None => Lookup::Unknown,
            }
        }
    }

    fn parse_expr(java: &str) -> Expr {
        let src = format!("class X {{ Object x = {java}; }}");
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&tree_sitter_java::LANGUAGE.into())
            .expect("java grammar");
        let tree = parser.parse(&src, None).expect("tree");
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if n.kind() == "variable_declarator" {
                let value = n.child_by_field_name("value").expect("value");
                return build(value, src.as_bytes());
            }
            let mut c = n.walk();
            stack.extend(n.named_children(&mut c));
        }
        panic!("no declarator in {java}");
    }

    fn eval_with(java: &str, constants: &[(&'static str, &'static str)]) -> Option<String> {
        let scope = MapScope(constants.iter().copied().collect());
        eval(&parse_expr(java), &scope, 0)
    }

    #[test]
    fn concatenation_names_each_variable() {
        assert_eq!(
            eval_with("BASE + \"/api/x/\" + id + \"/lines\"", &[("BASE", "http://svc")]).as_deref(),
            Some("http://svc/api/x/{id}/lines")
        );
        assert_eq!(
            eval_with("\"/api/items/\" + line.getSku()", &[]).as_deref(),
            Some("/api/items/{sku}")
        );
    }

    #[test]
    fn constants_of_other_types_are_looked_up_qualified() {
        assert_eq!(
            eval_with(
                "Urls.ORDERS + \"/{id}\"",
                &[("Urls.ORDERS", "lb://orders/api/orders")]
            )
            .as_deref(),
            Some("lb://orders/api/orders/{id}")
        );
    }

    #[test]
    fn string_format_fills_placeholders_after_the_arguments() {
        assert_eq!(
            eval_with(
                "String.format(\"%s/api/inventory/%s\", BASE, sku)",
                &[("BASE", "http://inventory-service")]
            )
            .as_deref(),
            Some("http://inventory-service/api/inventory/{sku}")
        );
        assert_eq!(
            eval_with("\"/a/%d/b\".formatted(orderId)", &[]).as_deref(),
            Some("/a/{orderId}/b")
        );
        assert_eq!(
            eval_with("String.format(\"%s/%s\", BASE)", &[]),
            None,
            "too few arguments"
        );
    }

    #[test]
    fn config_values_come_from_the_scope_with_their_defaults() {
        // The scope resolves `@Value` bindings; the evaluator only joins what it says.
        assert_eq!(
            eval_with(
                "baseUrl + \"/v2/quotes\"",
                &[("baseUrl", "https://tax.example.com")]
            )
            .as_deref(),
            Some("https://tax.example.com/v2/quotes")
        );
    }

    #[test]
    fn what_the_source_does_not_tell_is_unknown() {
        assert_eq!(eval_with("UNKNOWN_CONSTANT + \"/x\"", &[]), None);
        assert_eq!(eval_with("flag ? \"/a\" : \"/b\"", &[]), None);
        assert_eq!(eval_with("builder().toUriString()", &[]), None);
        assert_eq!(eval_with("new StringBuilder(\"/x\")", &[]), None);
    }
}
