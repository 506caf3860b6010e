//! One tree-sitter parse of one Java file, turned into language-neutral facts ([`CodeFile`]).
//!
//! The syntax tree never leaves this module. Method bodies are walked with an explicit
//! stack, and the few recursive helpers (receiver chains, nested types) carry a depth
//! limit, so a pathological file (10,000 nested parentheses) costs a diagnostic, never a
//! stack overflow. tree-sitter recovers from syntax errors; each ERROR or MISSING node
//! becomes a diagnostic and every fact that did parse is kept.

use std::collections::HashMap;

use tree_sitter::{Node, Parser};

use super::{FIELDS, KINDS};
use crate::lang::{ChildByField as _, KindName as _};

use super::expr;
use super::lombok;
use crate::facts::{
    erase, Annotation, CallKind, CallSite, CodeFile, Expr, FieldDecl, Import, Lambda, Local, MethodDecl,
    Param, Receiver, TypeDecl, TypeKind,
};

/// Nesting of types (nested, local, anonymous) beyond which bodies are skipped.
const MAX_TYPE_DEPTH: usize = 32;
/// Length of a receiver chain (`a.b().c()...`) beyond which the rest is `Receiver::Other`.
const MAX_RECEIVER_DEPTH: usize = 64;
/// At most this many diagnostics per file.
const MAX_DIAGNOSTICS: usize = 50;

/// Methods whose function argument takes one value (`map(f)`, `forEach(f)`), so a method
/// reference passed to them is a one-argument function.
const UNARY_FUNCTION_METHODS: &[&str] = &[
    "map",
    "flatMap",
    "filter",
    "forEach",
    "peek",
    "anyMatch",
    "allMatch",
    "noneMatch",
    "ifPresent",
    "mapToInt",
    "mapToLong",
    "mapToDouble",
    "mapToObj",
    "flatMapMany",
    "flatMapIterable",
    "doOnNext",
    "doOnSuccess",
    "thenApply",
    "thenAccept",
    "thenCompose",
    "removeIf",
    "takeWhile",
    "dropWhile",
    "extracting",
    "distinct",
    "sorted",
    "comparing",
    "groupingBy",
    "toMap",
    "computeIfAbsent",
];
/// Methods whose function argument takes two values (`reduce(id, f)`).
const BINARY_FUNCTION_METHODS: &[&str] = &["reduce", "merge", "compute", "computeIfPresent"];

/// Parses one Java file into facts. Never fails: unparsable parts become diagnostics.
pub(crate) fn parse_java_file(path: &str, source: &str) -> CodeFile {
    let mut file = CodeFile {
        path: path.to_string(),
        ..CodeFile::default()
    };
    let mut parser = Parser::new();
    if let Err(err) = parser.set_language(&tree_sitter_java::LANGUAGE.into()) {
        file.diagnostics
            .push((0, format!("tree-sitter-java could not be loaded: {err}")));
        return file;
    }
    let tree = match crate::lang::budget::parse(&mut parser, source) {
        Ok((tree, _)) => tree,
        Err(over) => {
            file.over_budget = Some(over.message);
            return file;
        }
    };
    let root = tree.root_node();
    let mut ex = Extractor {
        src: source,
        file,
        anon_counters: HashMap::new(),
        tree_nodes: std::cell::Cell::new(0),
        trees_cut: std::cell::Cell::new(0),
    };
    if root.has_error() {
        ex.collect_diagnostics(root);
    }
    ex.program(root);
    let cut = ex.trees_cut.get();
    if cut > 0 {
        ex.file.trees_cut = Some(format!(
            "{cut} expression(s) past the file's budget of {MAX_TREE_NODES} expression-tree nodes are typed as unknown"
        ));
    }
    ex.file
}

struct Extractor<'s> {
    src: &'s str,
    file: CodeFile,
    anon_counters: HashMap<String, usize>,
    /// Expression-tree nodes built for the file so far: each call site keeps its receiver
    /// and arguments whole, so a long chain or deep nesting costs the square of its
    /// length; past [`MAX_TREE_NODES`] trees become `Receiver::Other` (typed as unknown).
    tree_nodes: std::cell::Cell<usize>,
    /// Expressions left untyped because the file's tree budget was spent.
    trees_cut: std::cell::Cell<usize>,
}

/// Expression-tree nodes kept per file at most (a few MB of facts).
const MAX_TREE_NODES: usize = 200_000;

/// What a call site built by the front-end carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Payload {
    /// Everything: a site of the method's `calls`, or a call of its receiver chain.
    Full,
    /// What typing needs (no argument texts or values): a call nested in an argument,
    /// a cast, a lambda body or another expression tree.
    Typing,
}

/// What a method body walk knows about its surroundings.
struct BodyCtx<'a> {
    type_fqn: &'a str,
    type_name: &'a str,
    depth: usize,
}

fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn end_line(node: Node<'_>) -> usize {
    node.end_position().row + 1
}

fn is_type_decl(kind: &str) -> bool {
    matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    )
}

impl<'s> Extractor<'s> {
    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    /// The text of `node`'s child `field`, or empty when it has none.
    fn field_text(&self, node: Node<'_>, field: &str) -> String {
        node.child_by_field(&FIELDS, field)
            .map(|n| self.text(n).to_string())
            .unwrap_or_default()
    }

    fn collect_diagnostics(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        let mut stack = vec![root];
        while let Some(node) = stack.pop() {
            if self.file.diagnostics.len() >= MAX_DIAGNOSTICS {
                break;
            }
            if node.is_missing() {
                self.file
                    .diagnostics
                    .push((line(node), format!("missing {}", node.kind_name(&KINDS))));
            } else if node.is_error() {
                let snippet: String = self.text(node).chars().take(40).collect();
                self.file
                    .diagnostics
                    .push((line(node), format!("syntax error near `{snippet}`")));
            }
            if node.has_error() {
                let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
                stack.extend(children.into_iter().rev());
            }
        }
    }

    fn program(&mut self, root: Node<'_>) {
        let mut cursor = root.walk();
        // Type declarations may also sit inside ERROR nodes: look one level into them.
        let mut top: Vec<Node<'_>> = Vec::new();
        for child in root.named_children(&mut cursor) {
            if child.is_error() {
                let mut c2 = child.walk();
                top.extend(child.named_children(&mut c2));
            } else {
                top.push(child);
            }
        }
        for child in top {
            match child.kind_name(&KINDS) {
                "package_declaration" => {
                    let mut c = child.walk();
                    let name = child
                        .named_children(&mut c)
                        .find(|n| matches!(n.kind_name(&KINDS), "identifier" | "scoped_identifier"));
                    if let Some(name) = name {
                        self.file.package = self.text(name).to_string();
                    }
                }
                "import_declaration" => self.import(child),
                k if is_type_decl(k) => self.type_decl(child, None, 0),
                _ => {}
            }
        }
    }

    fn import(&mut self, node: Node<'_>) {
        let mut c = node.walk();
        let mut path = None;
        let mut is_static = false;
        let mut wildcard = false;
        for child in node.children(&mut c) {
            match child.kind_name(&KINDS) {
                "static" => is_static = true,
                "asterisk" => wildcard = true,
                "identifier" | "scoped_identifier" => path = Some(self.text(child).to_string()),
                _ => {}
            }
        }
        if let Some(path) = path {
            self.file.imports.push(Import {
                path,
                is_static,
                wildcard,
                line: line(node),
                alias: None,
            });
        }
    }

    fn modifiers(&self, node: Node<'_>) -> (Vec<String>, Vec<Annotation>) {
        let mut mods = Vec::new();
        let mut annos = Vec::new();
        let mut c = node.walk();
        for child in node.children(&mut c) {
            if child.kind_name(&KINDS) != "modifiers" {
                continue;
            }
            let mut c2 = child.walk();
            for m in child.children(&mut c2) {
                match m.kind_name(&KINDS) {
                    "annotation" | "marker_annotation" => annos.push(self.annotation(m)),
                    "line_comment" | "block_comment" => {}
                    _ => mods.push(self.text(m).to_string()),
                }
            }
        }
        (mods, annos)
    }

    fn annotation(&self, node: Node<'_>) -> Annotation {
        let name = self.field_text(node, "name");
        let mut args = Vec::new();
        let mut exprs = Vec::new();
        if let Some(list) = node.child_by_field(&FIELDS, "arguments") {
            let mut c = list.walk();
            for arg in list.named_children(&mut c) {
                let (key, value) = match arg.kind_name(&KINDS) {
                    "element_value_pair" => {
                        (self.field_text(arg, "key"), arg.child_by_field(&FIELDS, "value"))
                    }
                    "line_comment" | "block_comment" => continue,
                    _ => ("value".to_string(), Some(arg)),
                };
                let elements = value.map(|v| self.element_nodes(v)).unwrap_or_default();
                args.push((
                    key.clone(),
                    elements.iter().map(|n| self.value_text(*n)).collect(),
                ));
                exprs.push((key, elements.iter().map(|n| expr::build(*n, self.src)).collect()));
            }
        }
        Annotation { name, args, exprs }
    }

    /// The value of an annotation attribute, an array's elements one by one.
    fn element_nodes<'t>(&self, node: Node<'t>) -> Vec<Node<'t>> {
        if node.kind_name(&KINDS) == "element_value_array_initializer" {
            let mut c = node.walk();
            node.named_children(&mut c)
                .filter(|n| !matches!(n.kind_name(&KINDS), "line_comment" | "block_comment"))
                .collect()
        } else {
            vec![node]
        }
    }

    /// A string literal's content, or any other expression's text.
    fn value_text(&self, node: Node<'_>) -> String {
        if node.kind_name(&KINDS) == "string_literal" {
            self.string_content(node)
        } else {
            self.text(node).to_string()
        }
    }

    fn string_content(&self, node: Node<'_>) -> String {
        let raw = self.text(node);
        let inner = raw
            .strip_prefix("\"\"\"")
            .and_then(|r| r.strip_suffix("\"\"\""))
            .or_else(|| raw.strip_prefix('"').and_then(|r| r.strip_suffix('"')))
            .unwrap_or(raw);
        inner.to_string()
    }

    /// The type parameters of a type or method, each with its bounds as written.
    fn type_params(&self, node: Node<'_>) -> Vec<(String, Vec<String>)> {
        let Some(tp) = node.child_by_field(&FIELDS, "type_parameters") else {
            return Vec::new();
        };
        let mut c = tp.walk();
        tp.named_children(&mut c)
            .filter(|n| n.kind_name(&KINDS) == "type_parameter")
            .filter_map(|n| {
                let mut c2 = n.walk();
                let mut name = None;
                let mut bounds = Vec::new();
                for x in n.named_children(&mut c2) {
                    match x.kind_name(&KINDS) {
                        "type_identifier" | "identifier" if name.is_none() => {
                            name = Some(self.text(x).to_string());
                        }
                        "type_bound" => {
                            let mut c3 = x.walk();
                            bounds.extend(x.named_children(&mut c3).map(|b| self.text(b).to_string()));
                        }
                        _ => {}
                    }
                }
                name.map(|n| (n, bounds))
            })
            .collect()
    }

    fn type_list(&self, node: Node<'_>) -> Vec<String> {
        // super_interfaces / extends_interfaces → type_list → types.
        let mut out = Vec::new();
        let mut c = node.walk();
        for child in node.named_children(&mut c) {
            if child.kind_name(&KINDS) == "type_list" {
                let mut c2 = child.walk();
                out.extend(child.named_children(&mut c2).map(|t| self.text(t).to_string()));
            } else {
                out.push(self.text(child).to_string());
            }
        }
        out
    }

    fn type_decl(&mut self, node: Node<'_>, outer: Option<&str>, depth: usize) {
        if depth > MAX_TYPE_DEPTH {
            self.file
                .diagnostics
                .push((line(node), "types nested too deeply; skipped".to_string()));
            return;
        }
        let kind = match node.kind_name(&KINDS) {
            "interface_declaration" => TypeKind::Interface,
            "enum_declaration" => TypeKind::Enum,
            "record_declaration" => TypeKind::Record,
            "annotation_type_declaration" => TypeKind::Annotation,
            _ => TypeKind::Class,
        };
        let Some(name_node) = node.child_by_field(&FIELDS, "name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let fqn = match outer {
            Some(o) => format!("{o}.{name}"),
            None if self.file.package.is_empty() => name.clone(),
            None => format!("{}.{name}", self.file.package),
        };
        let (modifiers, annotations) = self.modifiers(node);
        let type_params = self.type_params(node);
        let mut decl = TypeDecl {
            fqn: fqn.clone(),
            name,
            kind,
            outer: outer.map(str::to_string),
            anonymous: false,
            modifiers,
            annotations,
            type_params: type_params.iter().map(|(n, _)| n.clone()).collect(),
            type_param_bounds: type_params.into_iter().map(|(_, b)| b).collect(),
            extends: Vec::new(),
            implements: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            enum_constants: Vec::new(),
            constants: Vec::new(),
            field_inits: Vec::new(),
            line_start: line(node),
            line_end: end_line(node),
        };
        let mut c = node.walk();
        for child in node.children(&mut c) {
            match child.kind_name(&KINDS) {
                "superclass" => decl.extends.extend(self.type_list(child)),
                "extends_interfaces" => decl.extends.extend(self.type_list(child)),
                "super_interfaces" => decl.implements.extend(self.type_list(child)),
                _ => {}
            }
        }
        let mut record_params = Vec::new();
        if kind == TypeKind::Record {
            if let Some(params) = node.child_by_field(&FIELDS, "parameters") {
                record_params = self.formal_params(params).0;
                for p in &record_params {
                    decl.fields.push(FieldDecl {
                        name: p.name.clone(),
                        ty: p.ty.clone(),
                        modifiers: vec!["private".into(), "final".into()],
                        annotations: Vec::new(),
                        line: line(params),
                    });
                }
            }
        }
        // Push first so that nested types come after their outer type.
        let index = self.file.types.len();
        self.file.types.push(decl);
        let mut initializer = MethodDecl {
            name: "<init>".into(),
            ..MethodDecl::default()
        };
        if let Some(body) = node.child_by_field(&FIELDS, "body") {
            let mut members = Vec::new();
            self.members(body, &fqn, depth, &record_params, &mut members, &mut initializer);
            let decl = &mut self.file.types[index];
            for m in members {
                match m {
                    Member::Field(f) => decl.fields.push(f),
                    Member::Method(m) => decl.methods.push(*m),
                    Member::EnumConstant(n) => decl.enum_constants.push(n),
                    Member::Constant(n, v) => decl.constants.push((n, v)),
                    Member::FieldInit(n, e) => decl.field_inits.push((n, e)),
                }
            }
        }
        let builder = if lombok::imported(&self.file.imports) {
            lombok::generate(&mut self.file.types[index], &self.file.imports)
        } else {
            None
        };
        let decl = &mut self.file.types[index];
        if kind == TypeKind::Record {
            for p in &record_params {
                if !decl
                    .methods
                    .iter()
                    .any(|m| m.name == p.name && m.params.is_empty())
                {
                    decl.methods.push(MethodDecl {
                        name: p.name.clone(),
                        return_type: Some(p.ty.clone()),
                        modifiers: vec!["public".into()],
                        line_start: decl.line_start,
                        line_end: decl.line_start,
                        implicit: true,
                        ..MethodDecl::default()
                    });
                }
            }
            let canonical: Vec<String> = record_params.iter().map(|p| erase(&p.ty)).collect();
            if !decl.methods.iter().any(|m| {
                m.name == "<init>" && m.params.iter().map(|p| erase(&p.ty)).collect::<Vec<_>>() == canonical
            }) {
                decl.methods.push(MethodDecl {
                    name: "<init>".into(),
                    params: record_params.clone().into(),
                    modifiers: vec!["public".into()],
                    line_start: decl.line_start,
                    line_end: decl.line_start,
                    implicit: true,
                    ..MethodDecl::default()
                });
            }
            // `toString`, `hashCode` and `equals` are members of every record (JLS §8.10.3).
            implicit_method(decl, "toString", &[], "String", false);
            implicit_method(decl, "hashCode", &[], "int", false);
            implicit_method(decl, "equals", &["Object"], "boolean", false);
        }
        if kind == TypeKind::Enum {
            // `values()` and `valueOf(String)` are members of every enum (JLS §8.9.3).
            let array = format!("{}[]", decl.name);
            let name = decl.name.clone();
            implicit_method(decl, "values", &[], &array, true);
            implicit_method(decl, "valueOf", &["String"], &name, true);
        }
        if matches!(kind, TypeKind::Class | TypeKind::Enum) {
            // The default constructor (JLS §8.8.9), and the field initializers and instance
            // initializer blocks that run in every constructor not starting with `this(..)`.
            if !decl.methods.iter().any(|m| m.name == "<init>") {
                let public = decl.modifiers.iter().any(|m| m == "public") && kind == TypeKind::Class;
                decl.methods.push(MethodDecl {
                    name: "<init>".into(),
                    modifiers: if public { vec!["public".into()] } else { Vec::new() },
                    line_start: decl.line_start,
                    line_end: decl.line_start,
                    implicit: true,
                    ..MethodDecl::default()
                });
            }
            if !initializer.calls.is_empty() || !initializer.locals.is_empty() {
                let mut ctors: Vec<&mut MethodDecl> = decl
                    .methods
                    .iter_mut()
                    .filter(|m| m.name == "<init>" && !m.calls.iter().any(|c| c.kind == CallKind::ThisCall))
                    .collect();
                // Copies for all but the last constructor; the last takes the original
                // (the trees of a big initializer are not held twice).
                if let Some(last) = ctors.pop() {
                    for ctor in ctors {
                        ctor.calls.extend(initializer.calls.iter().cloned());
                        ctor.locals.extend(initializer.locals.iter().cloned());
                        ctor.typed_values.extend(initializer.typed_values.iter().cloned());
                        ctor.strings.extend(initializer.strings.iter().cloned());
                    }
                    last.calls.append(&mut initializer.calls);
                    last.locals.append(&mut initializer.locals);
                    last.typed_values.append(&mut initializer.typed_values);
                    last.strings.append(&mut initializer.strings);
                }
            }
        }
        // The member type `@Builder` generates comes after its outer type, like written ones.
        if let Some(builder) = builder {
            self.file.types.push(builder);
        }
    }

    /// Members of a class, interface, enum, record or annotation body. The calls of
    /// instance field initializers and instance initializer blocks go to `initializer`
    /// (they run in the constructors).
    fn members(
        &mut self,
        body: Node<'_>,
        type_fqn: &str,
        depth: usize,
        record_params: &[Param],
        out: &mut Vec<Member>,
        initializer: &mut MethodDecl,
    ) {
        let type_name = type_fqn.rsplit(['.', '$']).next().unwrap_or(type_fqn).to_string();
        let mut c = body.walk();
        let children: Vec<Node<'_>> = body.named_children(&mut c).collect();
        let ctx = BodyCtx {
            type_fqn,
            type_name: &type_name,
            depth,
        };
        for child in children {
            match child.kind_name(&KINDS) {
                "enum_constant" => {
                    if let Some(n) = child.child_by_field(&FIELDS, "name") {
                        out.push(Member::EnumConstant(self.text(n).to_string()));
                    }
                    if let Some(class_body) = child.child_by_field(&FIELDS, "body") {
                        // A constant with a body is an anonymous subclass of the enum.
                        let none = MethodDecl::default();
                        self.anonymous_class(child, class_body, type_fqn, &ctx, &none);
                    }
                }
                "enum_body_declarations" => {
                    self.members(child, type_fqn, depth, record_params, out, initializer);
                }
                "field_declaration" | "constant_declaration" => {
                    let is_static = child.kind_name(&KINDS) == "constant_declaration" || {
                        let (mods, _) = self.modifiers(child);
                        mods.iter().any(|m| m == "static")
                    };
                    if !is_static {
                        self.field_initializers(child, &ctx, initializer);
                    }
                    self.field(child, type_fqn, out);
                }
                "block" => self.body(child, &ctx, initializer),
                "method_declaration"
                | "constructor_declaration"
                | "compact_constructor_declaration"
                | "annotation_type_element_declaration" => {
                    let m = self.method(child, &ctx, record_params, &[]);
                    out.push(Member::Method(Box::new(m)));
                }
                k if is_type_decl(k) => self.type_decl(child, Some(type_fqn), depth + 1),
                _ => {}
            }
        }
    }

    /// The calls of an instance field's initializers, walked into `initializer`.
    fn field_initializers(&mut self, node: Node<'_>, ctx: &BodyCtx<'_>, initializer: &mut MethodDecl) {
        let ty = self.field_text(node, "type");
        let mut c = node.walk();
        let values: Vec<Node<'_>> = node
            .children_by_field_name("declarator", &mut c)
            .filter_map(|d| d.child_by_field(&FIELDS, "value"))
            .collect();
        for v in values {
            let tree = self.tree(v, initializer, ctx, 0);
            if has_function(&tree) {
                initializer.typed_values.push((ty.clone(), tree));
            }
            self.body(v, ctx, initializer);
        }
    }

    fn field(&mut self, node: Node<'_>, _type_fqn: &str, out: &mut Vec<Member>) {
        let (modifiers, annotations) = self.modifiers(node);
        let ty = self.field_text(node, "type");
        let is_constant = modifiers.iter().any(|m| m == "static")
            && modifiers.iter().any(|m| m == "final")
            && erase(&ty) == "String";
        // Interface constants are implicitly static final.
        let interface_constant = node.kind_name(&KINDS) == "constant_declaration" && erase(&ty) == "String";
        let mut c = node.walk();
        for decl in node.children_by_field_name("declarator", &mut c) {
            let Some(name) = decl.child_by_field(&FIELDS, "name") else {
                continue;
            };
            let name = self.text(name).to_string();
            if is_constant || interface_constant {
                if let Some(value) = decl
                    .child_by_field(&FIELDS, "value")
                    .and_then(|v| self.constant_value(v, 0))
                {
                    out.push(Member::Constant(name.clone(), value));
                }
            }
            if let Some(v) = decl.child_by_field(&FIELDS, "value") {
                out.push(Member::FieldInit(name.clone(), expr::build(v, self.src)));
            }
            out.push(Member::Field(FieldDecl {
                name,
                ty: ty.clone(),
                modifiers: modifiers.clone(),
                annotations: annotations.clone(),
                line: line(node),
            }));
        }
    }

    /// The value of a constant's initializer when it is string literals joined by `+`
    /// (`"SELECT … " + "FROM orders"`); `None` for anything else.
    fn constant_value(&self, node: Node<'_>, depth: usize) -> Option<String> {
        match node.kind_name(&KINDS) {
            "string_literal" => Some(self.string_content(node)),
            "parenthesized_expression" if depth < MAX_RECEIVER_DEPTH => {
                self.constant_value(node.named_child(0)?, depth + 1)
            }
            "binary_expression" if depth < MAX_RECEIVER_DEPTH => {
                let op = node.child_by_field(&FIELDS, "operator")?;
                if self.text(op) != "+" {
                    return None;
                }
                let left = self.constant_value(node.child_by_field(&FIELDS, "left")?, depth + 1)?;
                let right = self.constant_value(node.child_by_field(&FIELDS, "right")?, depth + 1)?;
                Some(left + &right)
            }
            _ => None,
        }
    }

    fn formal_params(&self, node: Node<'_>) -> (Vec<Param>, bool) {
        let mut params = Vec::new();
        let mut varargs = false;
        let mut c = node.walk();
        for p in node.named_children(&mut c) {
            match p.kind_name(&KINDS) {
                "formal_parameter" => {
                    let ty = self.field_text(p, "type");
                    let dims = self.field_text(p, "dimensions");
                    let name = self.field_text(p, "name");
                    params.push(Param {
                        name,
                        ty: format!("{ty}{dims}"),
                        annotations: self.modifiers(p).1.into(),
                        has_default: false,
                    });
                }
                "spread_parameter" => {
                    varargs = true;
                    let mut c2 = p.walk();
                    let mut ty = String::new();
                    let mut name = String::new();
                    for x in p.named_children(&mut c2) {
                        match x.kind_name(&KINDS) {
                            "modifiers" => {}
                            "variable_declarator" => {
                                name = self.field_text(x, "name");
                            }
                            _ => ty = self.text(x).to_string(),
                        }
                    }
                    params.push(Param {
                        name,
                        ty: format!("{ty}[]"),
                        annotations: self.modifiers(p).1.into(),
                        has_default: false,
                    });
                }
                _ => {}
            }
        }
        (params, varargs)
    }

    /// A method, constructor or annotation element, with its body's facts.
    fn method(
        &mut self,
        node: Node<'_>,
        ctx: &BodyCtx<'_>,
        record_params: &[Param],
        inherited_locals: &[Local],
    ) -> MethodDecl {
        let (modifiers, annotations) = self.modifiers(node);
        let is_ctor = matches!(
            node.kind_name(&KINDS),
            "constructor_declaration" | "compact_constructor_declaration"
        );
        let name = if is_ctor {
            "<init>".to_string()
        } else {
            self.field_text(node, "name")
        };
        let (params, varargs) = if node.kind_name(&KINDS) == "compact_constructor_declaration" {
            (record_params.to_vec(), false)
        } else {
            node.child_by_field(&FIELDS, "parameters")
                .map(|p| self.formal_params(p))
                .unwrap_or_default()
        };
        let return_type = if is_ctor {
            None
        } else {
            node.child_by_field(&FIELDS, "type").map(|t| {
                let dims = self.field_text(node, "dimensions");
                format!("{}{dims}", self.text(t))
            })
        };
        let mut m = MethodDecl {
            name,
            type_params: self.type_params(node).into(),
            params: params.into(),
            varargs,
            return_type,
            annotations: annotations.into(),
            modifiers,
            line_start: line(node),
            line_end: end_line(node),
            has_body: false,
            implicit: false,
            span: (node.start_byte(), node.end_byte()),
            ..MethodDecl::default()
        };
        for l in inherited_locals {
            m.locals.push(Local {
                scope: (node.start_byte(), node.end_byte()),
                ..l.clone()
            });
        }
        if let Some(body) = node.child_by_field(&FIELDS, "body") {
            m.has_body = true;
            self.body(body, ctx, &mut m);
        }
        m
    }

    /// Walks a method body with an explicit stack: locals, calls, strings, and the
    /// anonymous and local classes declared inside.
    fn body(&mut self, body: Node<'_>, ctx: &BodyCtx<'_>, m: &mut MethodDecl) {
        let mut stack = vec![body];
        let mut cursor = body.walk();
        while let Some(node) = stack.pop() {
            let mut descend = true;
            match node.kind_name(&KINDS) {
                "method_invocation" => {
                    let site = self.method_call(node, m, ctx, 0, Payload::Full);
                    m.calls.push(site);
                }
                "object_creation_expression" => {
                    let site = self.new_call(node, m, ctx);
                    let written = match &site.receiver {
                        Receiver::New(w) => w.clone(),
                        _ => site.name.clone(),
                    };
                    m.calls.push(site);
                    let mut c = node.walk();
                    let anon_body = node
                        .named_children(&mut c)
                        .find(|n| n.kind_name(&KINDS) == "class_body");
                    if let Some(class_body) = anon_body {
                        // Descend only the arguments; the body is its own type.
                        if let Some(args) = node.child_by_field(&FIELDS, "arguments") {
                            stack.push(args);
                        }
                        descend = false;
                        self.anonymous_class(node, class_body, &written, ctx, m);
                    }
                }
                "explicit_constructor_invocation" => {
                    let is_super = node
                        .child_by_field(&FIELDS, "constructor")
                        .is_some_and(|c| c.kind_name(&KINDS) == "super");
                    let (arg_count, arg_types, arg_exprs, arg_texts) =
                        self.args(node, m, ctx, 0, Payload::Full);
                    m.calls.push(CallSite {
                        line: line(node),
                        byte: node.start_byte(),
                        name: "<init>".to_string(),
                        receiver: if is_super { Receiver::Super } else { Receiver::This },
                        arg_count,
                        arg_types,
                        arg_exprs,
                        arg_texts,
                        arg_values: self.arg_values(node),
                        arg_names: Vec::new(),
                        kind: if is_super {
                            CallKind::SuperCall
                        } else {
                            CallKind::ThisCall
                        },
                        arity_hint: None,
                        end: node.end_byte(),
                    });
                }
                "method_reference" => {
                    if let Some(site) = self.method_ref(node, m, ctx) {
                        m.calls.push(site);
                    }
                    // The receiver of `foo()::bar` is a call too.
                    if let Some(first) = node.named_child(0) {
                        if first.kind_name(&KINDS) != "method_invocation" {
                            descend = false;
                        }
                    }
                }
                "local_variable_declaration" => self.local_decl(node, m, ctx),
                "assignment_expression" => {
                    // A local assigned again has no one value.
                    if let Some(left) = node.child_by_field(&FIELDS, "left") {
                        let name = self.text(left);
                        m.string_locals.retain(|(n, ..)| n != name);
                    }
                    self.assignment(node, m);
                }
                "lambda_expression" => self.lambda_params(node, m),
                "return_statement" => {
                    if let Some(value) = node
                        .named_child(0)
                        .filter(|v| !v.kind_name(&KINDS).ends_with("comment"))
                    {
                        if !inside_lambda(node, body) {
                            // A helper that builds a base URL or a topic name.
                            if returns_text(m) {
                                m.returns.push(expr::build(value, self.src));
                            }
                            if let Some(ret) = m.return_type.clone() {
                                let tree = self.tree(value, m, ctx, 0);
                                if has_function(&tree) {
                                    m.typed_values.push((ret, tree));
                                }
                            }
                        }
                    }
                }
                "enhanced_for_statement" => {
                    if let (Some(name), Some(ty)) = (
                        node.child_by_field(&FIELDS, "name"),
                        node.child_by_field(&FIELDS, "type"),
                    ) {
                        let ty = self.text(ty);
                        let value = node.child_by_field(&FIELDS, "value");
                        let (ty, element_of) = if ty == "var" {
                            (
                                value.and_then(|v| self.element_type_of(v, m)),
                                value.map(|v| self.tree(v, m, ctx, 0)),
                            )
                        } else {
                            let dims = self.field_text(node, "dimensions");
                            (Some(format!("{ty}{dims}")), None)
                        };
                        m.locals.push(Local {
                            name: self.text(name).to_string(),
                            ty,
                            scope: (node.start_byte(), node.end_byte()),
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of,
                        });
                    }
                }
                "catch_formal_parameter" => {
                    let mut c = node.walk();
                    let ty = node
                        .named_children(&mut c)
                        .find(|n| n.kind_name(&KINDS) == "catch_type")
                        .map(|t| self.text(t).to_string())
                        .filter(|t| !t.contains('|'));
                    if let (Some(name), Some(parent)) = (node.child_by_field(&FIELDS, "name"), node.parent())
                    {
                        m.locals.push(Local {
                            name: self.text(name).to_string(),
                            ty,
                            scope: (parent.start_byte(), parent.end_byte()),
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
                "resource" => {
                    if let (Some(name), Some(ty)) = (
                        node.child_by_field(&FIELDS, "name"),
                        node.child_by_field(&FIELDS, "type"),
                    ) {
                        let ty = self.text(ty);
                        let scope = node.parent().and_then(|p| p.parent()).unwrap_or(node);
                        let init = (ty == "var")
                            .then(|| node.child_by_field(&FIELDS, "value"))
                            .flatten()
                            .map(|v| self.tree(v, m, ctx, 0));
                        m.locals.push(Local {
                            name: self.text(name).to_string(),
                            ty: (ty != "var").then(|| ty.to_string()),
                            scope: (scope.start_byte(), scope.end_byte()),
                            lambda_source: None,
                            init,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
                "instanceof_expression" => {
                    if let (Some(name), Some(ty)) = (
                        node.child_by_field(&FIELDS, "name"),
                        node.child_by_field(&FIELDS, "right"),
                    ) {
                        m.locals.push(Local {
                            name: self.text(name).to_string(),
                            ty: Some(self.text(ty).to_string()),
                            scope: (node.start_byte(), body.end_byte()),
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
                "type_pattern" => {
                    let mut c = node.walk();
                    let kids: Vec<Node<'_>> = node.named_children(&mut c).collect();
                    if let [ty, name] = kids.as_slice() {
                        m.locals.push(Local {
                            name: self.text(*name).to_string(),
                            ty: Some(self.text(*ty).to_string()),
                            scope: (node.start_byte(), body.end_byte()),
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
                "string_literal" => {
                    m.strings.push((line(node), self.string_content(node)));
                    descend = false;
                }
                k if is_type_decl(k) => {
                    // A local class: its own type, nested in the current one.
                    self.type_decl(node, Some(ctx.type_fqn), ctx.depth + 1);
                    descend = false;
                }
                _ => {}
            }
            if descend {
                let before = stack.len();
                stack.extend(node.named_children(&mut cursor));
                stack[before..].reverse();
            }
        }
    }

    fn visible_locals(&self, m: &MethodDecl, byte: usize) -> Vec<Local> {
        let mut out: Vec<Local> = m
            .params
            .iter()
            .map(|p| Local {
                name: p.name.clone(),
                ty: Some(p.ty.clone()),
                scope: (0, 0),
                lambda_source: None,
                init: None,
                lambda: None,
                element_of: None,
            })
            .collect();
        out.extend(
            m.locals
                .iter()
                .filter(|l| l.scope.0 <= byte && byte < l.scope.1)
                .cloned(),
        );
        out
    }

    fn anonymous_class(
        &mut self,
        node: Node<'_>,
        class_body: Node<'_>,
        super_ty: &str,
        ctx: &BodyCtx<'_>,
        m: &MethodDecl,
    ) {
        if ctx.depth + 1 > MAX_TYPE_DEPTH {
            self.file
                .diagnostics
                .push((line(node), "types nested too deeply; skipped".to_string()));
            return;
        }
        let counter = self.anon_counters.entry(ctx.type_fqn.to_string()).or_insert(0);
        *counter += 1;
        let fqn = format!("{}${}", ctx.type_fqn, counter);
        let name = format!("${counter}");
        let index = self.file.types.len();
        self.file.types.push(TypeDecl {
            fqn: fqn.clone(),
            name: name.clone(),
            kind: TypeKind::Class,
            outer: Some(ctx.type_fqn.to_string()),
            anonymous: true,
            modifiers: Vec::new(),
            annotations: Vec::new(),
            type_params: Vec::new(),
            type_param_bounds: Vec::new(),
            extends: vec![super_ty.to_string()],
            implements: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            enum_constants: Vec::new(),
            constants: Vec::new(),
            field_inits: Vec::new(),
            line_start: line(node),
            line_end: end_line(node),
        });
        let captured = self.visible_locals(m, node.start_byte());
        let inner = BodyCtx {
            type_fqn: &fqn,
            type_name: &name,
            depth: ctx.depth + 1,
        };
        let mut c = class_body.walk();
        let children: Vec<Node<'_>> = class_body.named_children(&mut c).collect();
        let mut members = Vec::new();
        for child in children {
            match child.kind_name(&KINDS) {
                "method_declaration" => {
                    let method = self.method(child, &inner, &[], &captured);
                    members.push(Member::Method(Box::new(method)));
                }
                "field_declaration" => self.field(child, &fqn, &mut members),
                k if is_type_decl(k) => self.type_decl(child, Some(&fqn), ctx.depth + 2),
                _ => {}
            }
        }
        let decl = &mut self.file.types[index];
        for member in members {
            match member {
                Member::Field(f) => decl.fields.push(f),
                Member::Method(m) => decl.methods.push(*m),
                Member::FieldInit(n, e) => decl.field_inits.push((n, e)),
                Member::EnumConstant(_) | Member::Constant(..) => {}
            }
        }
    }

    fn local_decl(&self, node: Node<'_>, m: &mut MethodDecl, ctx: &BodyCtx<'_>) {
        let Some(ty_node) = node.child_by_field(&FIELDS, "type") else {
            return;
        };
        let written = self.text(ty_node);
        let scope_end = node.parent().map_or(node.end_byte(), |p| p.end_byte());
        let mut c = node.walk();
        for decl in node.children_by_field_name("declarator", &mut c) {
            let Some(name) = decl.child_by_field(&FIELDS, "name") else {
                continue;
            };
            let value = decl.child_by_field(&FIELDS, "value");
            if let Some(v) = value {
                m.local_inits.push((
                    self.text(name).to_string(),
                    (node.start_byte(), scope_end),
                    expr::build(v, self.src),
                ));
            }
            let is_var = written == "var";
            let ty = if is_var {
                value.and_then(|v| self.shallow_type(v, m))
            } else {
                let dims = decl
                    .child_by_field(&FIELDS, "dimensions")
                    .map(|d| self.text(d))
                    .unwrap_or("");
                Some(format!("{written}{dims}"))
            };
            // `var x = …`: the initializer tells the type (with its type arguments, which
            // the shallow type above drops).
            let init = value
                .filter(|_| is_var)
                .map(|v| self.tree(v, m, ctx, MAX_RECEIVER_DEPTH / 2));
            if let (false, Some(v), Some(t)) = (is_var, value, &ty) {
                let tree = self.tree(v, m, ctx, MAX_RECEIVER_DEPTH / 2);
                if has_function(&tree) {
                    m.typed_values.push((t.clone(), tree));
                }
            }
            if let Some(v) = value.and_then(|v| self.constant_value(v, 0)) {
                m.string_locals
                    .push((self.text(name).to_string(), (node.start_byte(), scope_end), v));
            }
            m.locals.push(Local {
                name: self.text(name).to_string(),
                ty,
                scope: (node.start_byte(), scope_end),
                lambda_source: None,
                init,
                lambda: None,
                element_of: None,
            });
        }
    }

    fn assignment(&self, node: Node<'_>, m: &mut MethodDecl) {
        let is_plain = node
            .child_by_field(&FIELDS, "operator")
            .is_some_and(|o| o.kind_name(&KINDS) == "=");
        let (Some(left), Some(right)) = (
            node.child_by_field(&FIELDS, "left"),
            node.child_by_field(&FIELDS, "right"),
        ) else {
            return;
        };
        let target = match left.kind_name(&KINDS) {
            "identifier" => self.text(left).to_string(),
            "field_access"
                if left
                    .child_by_field(&FIELDS, "object")
                    .is_some_and(|o| o.kind_name(&KINDS) == "this") =>
            {
                self.field_text(left, "field")
            }
            _ => return,
        };
        // A compound assignment (`url += "/x"`) makes the value unknown.
        let value = if is_plain {
            expr::build(right, self.src)
        } else {
            Expr::Other
        };
        m.assignments.push((target, value));
    }

    /// The expression tree of each argument of a call.
    fn arg_values(&self, call: Node<'_>) -> Vec<Expr> {
        let Some(args) = call.child_by_field(&FIELDS, "arguments") else {
            return Vec::new();
        };
        let mut c = args.walk();
        args.named_children(&mut c)
            .filter(|a| !matches!(a.kind_name(&KINDS), "line_comment" | "block_comment"))
            .map(|a| expr::build(a, self.src))
            .collect()
    }

    /// Lambda parameters: typed when written, else unknown (they still shadow fields).
    /// A lambda's parameters as written: name and declared type (`None` when inferred).
    fn lambda_param_list(&self, node: Node<'_>) -> Vec<(String, Option<String>)> {
        let Some(params) = node.child_by_field(&FIELDS, "parameters") else {
            return Vec::new();
        };
        match params.kind_name(&KINDS) {
            "identifier" => vec![(self.text(params).to_string(), None)],
            "inferred_parameters" => {
                let mut c = params.walk();
                let names: Vec<(String, Option<String>)> = params
                    .named_children(&mut c)
                    .map(|n| (self.text(n).to_string(), None))
                    .collect();
                names
            }
            _ => self
                .formal_params(params)
                .0
                .into_iter()
                .map(|p| {
                    let ty = (p.ty != "var").then_some(p.ty);
                    (p.name, ty)
                })
                .collect(),
        }
    }

    /// Lambda parameters: locals of the lambda's scope, typed when written, else typed by
    /// the resolver from the functional interface the lambda is passed as.
    fn lambda_params(&self, node: Node<'_>, m: &mut MethodDecl) {
        let scope = (node.start_byte(), node.end_byte());
        if m.locals.iter().any(|l| l.scope == scope && l.lambda.is_some()) {
            return;
        }
        for (i, (name, ty)) in self.lambda_param_list(node).into_iter().enumerate() {
            m.locals.push(Local {
                name,
                ty,
                scope,
                lambda_source: None,
                init: None,
                lambda: Some((scope.0, i)),
                element_of: None,
            });
        }
    }

    /// The shape of a lambda: parameters, and its expression body or the values its block
    /// body returns.
    fn lambda_shape(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>, depth: usize) -> Lambda {
        let mut shape = Lambda {
            scope: (node.start_byte(), node.end_byte()),
            params: self.lambda_param_list(node),
            body: None,
            returns: Vec::new(),
            block: false,
        };
        let Some(body) = node.child_by_field(&FIELDS, "body") else {
            return shape;
        };
        if body.kind_name(&KINDS) != "block" {
            shape.body = Some(self.tree(body, m, ctx, depth + 1));
            return shape;
        }
        shape.block = true;
        let mut stack = vec![body];
        let mut c = body.walk();
        while let Some(n) = stack.pop() {
            if shape.returns.len() >= 16 {
                break;
            }
            match n.kind_name(&KINDS) {
                "return_statement" => {
                    if let Some(v) = n.named_child(0) {
                        shape.returns.push(self.tree(v, m, ctx, depth + 1));
                    }
                    continue;
                }
                "lambda_expression" | "class_body" => continue,
                k if is_type_decl(k) => continue,
                _ => {}
            }
            stack.extend(n.named_children(&mut c));
        }
        shape
    }

    fn element_type_of(&self, node: Node<'_>, m: &MethodDecl) -> Option<String> {
        if node.kind_name(&KINDS) != "identifier" {
            return None;
        }
        let ty = m.lookup_local(self.text(node), node.start_byte())??;
        let open = ty.find('<')?;
        let base = erase(&ty[..open]);
        let base = base.rsplit('.').next().unwrap_or(&base);
        if !matches!(
            base,
            "List"
                | "Set"
                | "Collection"
                | "Iterable"
                | "Optional"
                | "Stream"
                | "SortedSet"
                | "Queue"
                | "Deque"
                | "ArrayList"
                | "LinkedList"
                | "HashSet"
                | "TreeSet"
        ) {
            return None;
        }
        let inner = ty[open + 1..].strip_suffix('>')?.trim();
        if inner.contains(',') || inner.starts_with('?') {
            return None;
        }
        Some(inner.to_string())
    }

    fn args(
        &self,
        call: Node<'_>,
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
        depth: usize,
        payload: Payload,
    ) -> (usize, Vec<Option<String>>, Vec<Receiver>, Vec<String>) {
        let Some(args) = call.child_by_field(&FIELDS, "arguments") else {
            return (0, Vec::new(), Vec::new(), Vec::new());
        };
        let mut c = args.walk();
        let mut types = Vec::new();
        let mut exprs = Vec::new();
        let mut texts = Vec::new();
        for arg in args.named_children(&mut c) {
            if matches!(arg.kind_name(&KINDS), "line_comment" | "block_comment") {
                continue;
            }
            let arg = unparen(arg);
            if payload == Payload::Full {
                let text = self.text(arg);
                let mut end = text.len().min(4096);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                texts.push(text[..end].to_string());
            }
            let ty = if arg.kind_name(&KINDS) == "this" {
                Some(ctx.type_name.to_string())
            } else {
                self.shallow_type(arg, m)
            };
            exprs.push(self.tree(arg, m, ctx, depth + 1));
            types.push(ty);
        }
        (types.len(), types, exprs, texts)
    }

    fn shallow_type(&self, node: Node<'_>, m: &MethodDecl) -> Option<String> {
        let node = unparen(node);
        let text = self.text(node);
        match node.kind_name(&KINDS) {
            "string_literal" | "text_block" => Some("String".into()),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => Some(if text.ends_with(['l', 'L']) {
                "long".into()
            } else {
                "int".into()
            }),
            "decimal_floating_point_literal" | "hex_floating_point_literal" => {
                Some(if text.ends_with(['f', 'F']) {
                    "float".into()
                } else {
                    "double".into()
                })
            }
            "true" | "false" => Some("boolean".into()),
            "character_literal" => Some("char".into()),
            "object_creation_expression" => node.child_by_field(&FIELDS, "type").map(|t| erase(self.text(t))),
            "cast_expression" => node.child_by_field(&FIELDS, "type").map(|t| erase(self.text(t))),
            "array_creation_expression" => node.child_by_field(&FIELDS, "type").map(|t| {
                let dims = node
                    .child_by_field(&FIELDS, "dimensions")
                    .map(|d| self.text(d).matches('[').count())
                    .unwrap_or(1)
                    .max(1);
                format!("{}{}", erase(self.text(t)), "[]".repeat(dims))
            }),
            "identifier" => m
                .lookup_local(text, node.start_byte())
                .flatten()
                .map(|t| erase(&t)),
            _ => None,
        }
    }

    /// A method call site. With [`Payload::Typing`] it is a node of an expression tree,
    /// kept for typing only: its arguments' texts and values stay with the call's own
    /// site in the method's `calls`, so deep nesting costs a node per call, not a copy of
    /// every argument at every level.
    fn method_call(
        &self,
        node: Node<'_>,
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
        depth: usize,
        payload: Payload,
    ) -> CallSite {
        let name = self.field_text(node, "name");
        let receiver = match node.child_by_field(&FIELDS, "object") {
            None => Receiver::None,
            Some(object) => self.tree_with(object, m, ctx, depth + 1, payload),
        };
        let (arg_count, arg_types, arg_exprs, arg_texts) = self.args(node, m, ctx, depth, payload);
        let arg_values = match payload {
            Payload::Full => self.arg_values(node),
            Payload::Typing => Vec::new(),
        };
        CallSite {
            line: line(node),
            byte: node.start_byte(),
            name,
            receiver,
            arg_count,
            arg_types,
            arg_exprs,
            arg_texts,
            arg_values,
            arg_names: Vec::new(),
            kind: CallKind::Method,
            arity_hint: None,
            end: node.end_byte(),
        }
    }

    fn new_call(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>) -> CallSite {
        let written = node
            .child_by_field(&FIELDS, "type")
            .map(|t| self.text(t).to_string())
            .unwrap_or_default();
        let ty = erase(&written);
        let (arg_count, arg_types, arg_exprs, arg_texts) = self.args(node, m, ctx, 0, Payload::Full);
        CallSite {
            line: line(node),
            byte: node.start_byte(),
            name: ty,
            receiver: Receiver::New(written),
            arg_count,
            arg_types,
            arg_exprs,
            arg_texts,
            arg_values: self.arg_values(node),
            arg_names: Vec::new(),
            kind: CallKind::Constructor,
            arity_hint: None,
            end: node.end_byte(),
        }
    }

    /// The tree of an expression, as far as typing it needs (see [`Receiver`]).
    fn tree(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>, depth: usize) -> Receiver {
        self.tree_with(node, m, ctx, depth, Payload::Typing)
    }

    /// [`Self::tree`], with the calls of a receiver chain (`a.b(x).c(y)` under `.d()`)
    /// keeping `payload`: the framework rules read the arguments of a chain's calls.
    fn tree_with(
        &self,
        node: Node<'_>,
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
        depth: usize,
        payload: Payload,
    ) -> Receiver {
        if depth > MAX_RECEIVER_DEPTH {
            return Receiver::Other;
        }
        if self.tree_nodes.get() >= MAX_TREE_NODES {
            self.trees_cut.set(self.trees_cut.get() + 1);
            return Receiver::Other;
        }
        self.tree_nodes.set(self.tree_nodes.get() + 1);
        let node = unparen(node);
        let text = self.text(node);
        let boxed =
            |n: Option<Node<'_>>| Box::new(n.map_or(Receiver::Other, |n| self.tree(n, m, ctx, depth + 1)));
        match node.kind_name(&KINDS) {
            "this" => Receiver::This,
            "super" => Receiver::Super,
            "identifier" | "type_identifier" => Receiver::Name(text.to_string()),
            "field_access" => {
                let (Some(object), Some(field)) = (
                    node.child_by_field(&FIELDS, "object"),
                    node.child_by_field(&FIELDS, "field"),
                ) else {
                    return Receiver::Other;
                };
                if field.kind_name(&KINDS) == "this" {
                    // `Outer.this`: the enclosing instance, not the current one.
                    return Receiver::OuterThis(self.text(object).to_string());
                }
                Receiver::Field(
                    Box::new(self.tree_with(object, m, ctx, depth + 1, payload)),
                    self.text(field).to_string(),
                )
            }
            "method_invocation" => {
                Receiver::Call(Box::new(self.method_call(node, m, ctx, depth + 1, payload)))
            }
            "object_creation_expression" => node
                .child_by_field(&FIELDS, "type")
                .map_or(Receiver::Other, |t| Receiver::New(self.text(t).to_string())),
            "string_literal" | "text_block" => Receiver::Literal("String".into()),
            "decimal_integer_literal"
            | "hex_integer_literal"
            | "octal_integer_literal"
            | "binary_integer_literal" => {
                Receiver::Literal(if text.ends_with(['l', 'L']) { "long" } else { "int" }.into())
            }
            "decimal_floating_point_literal" | "hex_floating_point_literal" => Receiver::Literal(
                if text.ends_with(['f', 'F']) {
                    "float"
                } else {
                    "double"
                }
                .into(),
            ),
            "true" | "false" => Receiver::Literal("boolean".into()),
            "character_literal" => Receiver::Literal("char".into()),
            "null_literal" => Receiver::Null,
            "class_literal" => node
                .named_child(0)
                .map_or(Receiver::Other, |t| Receiver::ClassLit(self.text(t).to_string())),
            "cast_expression" => match node.child_by_field(&FIELDS, "type") {
                Some(t) => Receiver::Cast(
                    self.text(t).to_string(),
                    boxed(node.child_by_field(&FIELDS, "value")),
                ),
                None => Receiver::Other,
            },
            "ternary_expression" => Receiver::Conditional(
                boxed(node.child_by_field(&FIELDS, "consequence")),
                boxed(node.child_by_field(&FIELDS, "alternative")),
            ),
            "lambda_expression" => Receiver::Lambda(Box::new(self.lambda_shape(node, m, ctx, depth))),
            "method_reference" => Receiver::MethodRef(node.start_byte()),
            "array_access" => Receiver::ArrayAccess(boxed(node.child_by_field(&FIELDS, "array"))),
            "array_creation_expression" => match node.child_by_field(&FIELDS, "type") {
                Some(t) => {
                    let mut c = node.walk();
                    let dims: usize = node
                        .children_by_field_name("dimensions", &mut c)
                        .map(|d| self.text(d).matches('[').count())
                        .sum::<usize>()
                        .max(1);
                    Receiver::NewArray(format!("{}{}", self.text(t), "[]".repeat(dims)))
                }
                None => Receiver::Other,
            },
            "binary_expression" => {
                let op = node
                    .child_by_field(&FIELDS, "operator")
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                Receiver::Binary(
                    op,
                    boxed(node.child_by_field(&FIELDS, "left")),
                    boxed(node.child_by_field(&FIELDS, "right")),
                )
            }
            "unary_expression" => {
                let op = node
                    .child_by_field(&FIELDS, "operator")
                    .map(|o| self.text(o).to_string())
                    .unwrap_or_default();
                Receiver::Unary(op, boxed(node.child_by_field(&FIELDS, "operand")))
            }
            "update_expression" => Receiver::Unary("++".into(), boxed(node.named_child(0))),
            "instanceof_expression" => Receiver::InstanceOf,
            "assignment_expression" => Receiver::Assign(boxed(node.child_by_field(&FIELDS, "left"))),
            "switch_expression" => {
                let mut arms = Vec::new();
                if let Some(block) = node.child_by_field(&FIELDS, "body") {
                    let mut stack = vec![block];
                    let mut c = block.walk();
                    while let Some(n) = stack.pop() {
                        if arms.len() >= 32 {
                            break;
                        }
                        match n.kind_name(&KINDS) {
                            "switch_rule" => {
                                let last = u32::try_from(n.named_child_count().saturating_sub(1))
                                    .ok()
                                    .and_then(|i| n.named_child(i));
                                match last {
                                    Some(e) if e.kind_name(&KINDS) == "expression_statement" => {
                                        arms.push(self.tree(
                                            e.named_child(0).unwrap_or(e),
                                            m,
                                            ctx,
                                            depth + 1,
                                        ));
                                        continue;
                                    }
                                    Some(e) if e.kind_name(&KINDS) == "throw_statement" => continue,
                                    _ => {}
                                }
                            }
                            "yield_statement" => {
                                if let Some(v) = n.named_child(0) {
                                    arms.push(self.tree(v, m, ctx, depth + 1));
                                }
                                continue;
                            }
                            "switch_expression" | "lambda_expression" | "class_body" => continue,
                            _ => {}
                        }
                        stack.extend(n.named_children(&mut c));
                    }
                }
                Receiver::Switch(arms)
            }
            _ => Receiver::Other,
        }
    }

    fn method_ref(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>) -> Option<CallSite> {
        let mut c = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut c).collect();
        let first = *children.first()?;
        let last = *children.last()?;
        let name = match last.kind_name(&KINDS) {
            "new" => "<init>".to_string(),
            "identifier" => self.text(last).to_string(),
            _ => return None,
        };
        let receiver = match first.kind_name(&KINDS) {
            "this" => Receiver::This,
            "super" => Receiver::Super,
            "identifier" | "type_identifier" => Receiver::Name(self.text(first).to_string()),
            "generic_type" | "scoped_type_identifier" | "scoped_identifier" => {
                let erased = erase(self.text(first));
                dotted_receiver(&erased)
            }
            "field_access" => dotted_receiver(self.text(first)),
            "array_type" => Receiver::NewArray(self.text(first).to_string()),
            "method_invocation"
            | "object_creation_expression"
            | "parenthesized_expression"
            | "cast_expression" => self.tree(first, m, ctx, 1),
            // `"a"::equals`, `X.class::isInstance`, `a[0]::m`, `(c ? a : b)::m`: the
            // expression's tree.
            _ => self.tree(first, m, ctx, 1),
        };
        let arity_hint = node
            .parent()
            .filter(|p| p.kind_name(&KINDS) == "argument_list")
            .and_then(|args| {
                let call = args.parent()?;
                let name = call.child_by_field(&FIELDS, "name")?;
                let name = self.text(name);
                if UNARY_FUNCTION_METHODS.contains(&name) {
                    Some(1)
                } else if BINARY_FUNCTION_METHODS.contains(&name) {
                    Some(2)
                } else {
                    None
                }
            });
        Some(CallSite {
            line: line(node),
            byte: node.start_byte(),
            name,
            receiver,
            arg_count: 0,
            arg_types: Vec::new(),
            arg_exprs: Vec::new(),
            arg_texts: Vec::new(),
            arg_values: Vec::new(),
            arg_names: Vec::new(),
            kind: CallKind::MethodRef,
            arity_hint,
            end: node.end_byte(),
        })
    }
}

enum Member {
    Field(FieldDecl),
    Method(Box<MethodDecl>),
    EnumConstant(String),
    Constant(String, String),
    FieldInit(String, Expr),
}

/// `a.b.C` → `Field(Field(Name(a), b), C)`.
fn dotted_receiver(text: &str) -> Receiver {
    let mut parts = text.split('.').map(|p| p.trim().to_string());
    let Some(first) = parts.next() else {
        return Receiver::Other;
    };
    // `this.repository::save`, `super.handler::accept`.
    let first = match first.as_str() {
        "this" => Receiver::This,
        "super" => Receiver::Super,
        _ => Receiver::Name(first),
    };
    parts.fold(first, |acc, part| Receiver::Field(Box::new(acc), part))
}

/// Strips parentheses iteratively (`((((x))))` is common in generated code).
fn unparen(mut node: Node<'_>) -> Node<'_> {
    while node.kind_name(&KINDS) == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// Adds the implicit member `name(params)` to a type unless the source declares it.
fn implicit_method(decl: &mut TypeDecl, name: &str, params: &[&str], ret: &str, is_static: bool) {
    let declared = decl.methods.iter().any(|m| {
        m.name == name
            && m.params.len() == params.len()
            && m.params.iter().zip(params).all(|(p, want)| erase(&p.ty) == *want)
    });
    if declared {
        return;
    }
    let mut modifiers = vec!["public".to_string()];
    if is_static {
        modifiers.push("static".into());
    }
    decl.methods.push(MethodDecl {
        name: name.to_string(),
        params: params
            .iter()
            .enumerate()
            .map(|(i, ty)| Param {
                name: format!("arg{i}"),
                ty: ty.to_string(),
                annotations: Default::default(),
                has_default: false,
            })
            .collect(),
        return_type: Some(ret.to_string()),
        modifiers,
        line_start: decl.line_start,
        line_end: decl.line_start,
        has_body: true,
        implicit: true,
        ..MethodDecl::default()
    });
}

/// Whether a method returns text: only such helpers' `return` values are kept.
fn returns_text(m: &MethodDecl) -> bool {
    m.return_type.as_deref().is_some_and(|t| {
        matches!(
            crate::facts::simple_name(t).as_str(),
            "String" | "URI" | "CharSequence"
        )
    })
}

/// Whether an expression is (or chooses between) a lambda or a method reference, whose
/// typing needs the type its place fixes.
fn has_function(r: &Receiver) -> bool {
    match r {
        Receiver::Lambda(_) | Receiver::MethodRef(_) => true,
        Receiver::Conditional(a, b) => has_function(a) || has_function(b),
        Receiver::Cast(_, inner) => has_function(inner),
        _ => false,
    }
}

/// Whether `node` sits inside a lambda within `body` (a `return` there is the lambda's).
fn inside_lambda(node: Node<'_>, body: Node<'_>) -> bool {
    let mut cur = node.parent();
    let mut hops = 0;
    while let Some(n) = cur {
        if n.id() == body.id() || hops > 256 {
            return false;
        }
        if n.kind_name(&KINDS) == "lambda_expression" {
            return true;
        }
        hops += 1;
        cur = n.parent();
    }
    false
}
