//! One tree-sitter parse of one Kotlin file, turned into language-neutral facts
//! ([`CodeFile`]) as the JVM — and so Java code — sees the declarations.
//!
//! - Top-level functions and properties live on the file's facade class (`<File>Kt`, or
//!   the `@file:JvmName`), static; an extension function is a static method whose first
//!   parameter, named `$receiver`, is the receiver.
//! - A property is a private field with its accessors, `getName()`/`setName(…)` (`isX()`
//!   and `setX(…)` for a property `isX`), written as implicit methods; `const val` and
//!   `@JvmField` properties are fields only (static on the class that holds them; a
//!   companion's on its outer class); a private property has no accessors.
//! - An `object` has a static `INSTANCE` field; a companion object is the nested class
//!   `Outer.Companion` with a static `Companion` field on its outer class, and each of its
//!   `@JvmStatic` functions is also a static method of the outer class that calls it.
//! - The primary constructor is `<init>`, its `val`/`var` parameters are properties; with
//!   a default for every parameter, a no-argument `<init>` too; `@JvmOverloads` adds the
//!   overloads javac sees. Property initializers, `init` blocks and the superclass call
//!   belong to the primary constructor.
//! - A data class has its `componentN()`, `copy(…)`, `equals`, `hashCode` and `toString`.
//! - Types are the JVM's (`types.rs`): `Int` is `int`, `List<Order>` is `java.util.List`.
//!
//! Bodies are walked with an explicit stack and the recursive helpers carry depth limits,
//! so a pathological file costs a diagnostic, never a stack overflow. Call sites keep
//! their receivers and arguments (named ones with their names, a trailing lambda last);
//! `x.name` and `x.name = v` are property sites, for the resolver to bind to an accessor
//! or to nothing; a lambda's `it` and a scope function's `this` remember the call they
//! come from. A cast `x as T` types a receiver as `T`, written `Receiver::New(T)`;
//! `this@Label` is the receiver name `this@Label`.

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Parser};

use super::{FIELDS, KINDS};
use crate::lang::{ChildByField as _, KindName as _};

use super::expr::{self, call_parts, children, has_token, navigation_op, navigation_parts, text};
use super::types::{jvm_type, Shadows};
use crate::facts::{
    erase, Annotation, CallKind, CallSite, CodeFile, Expr, FieldDecl, Import, Language, Local, MethodDecl,
    Param, Receiver, TypeDecl, TypeKind,
};

/// Nesting of types beyond which bodies are skipped.
const MAX_TYPE_DEPTH: usize = 32;
/// Length of a receiver chain beyond which the rest is `Receiver::Other`.
const MAX_RECEIVER_DEPTH: usize = 64;
/// At most this many diagnostics per file.
const MAX_DIAGNOSTICS: usize = 50;
/// Longest argument text kept.
const MAX_ARG_TEXT: usize = 4096;

/// Scope functions whose lambda gets the receiver as `this`.
const THIS_SCOPE_FUNCTIONS: &[&str] = &["apply", "run", "with"];

/// Parses one Kotlin file into facts. Never fails: unparsable parts become diagnostics.
pub(crate) fn parse_kotlin_file(path: &str, source: &str) -> CodeFile {
    let mut file = CodeFile {
        path: path.to_string(),
        language: Language::Kotlin,
        ..CodeFile::default()
    };
    let mut parser = Parser::new();
    if let Err(err) = parser.set_language(&tree_sitter_kotlin_ng::LANGUAGE.into()) {
        file.diagnostics
            .push((0, format!("tree-sitter-kotlin could not be loaded: {err}")));
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
        names: HashSet::new(),
        consts: HashMap::new(),
        anon_counters: HashMap::new(),
        facade_name: facade_name(path),
    };
    if root.has_error() {
        ex.collect_diagnostics(root);
    }
    ex.program(root);
    ex.file
}

/// `order_service.kt` → `Order_serviceKt`, as kotlinc names a file's facade class.
fn facade_name(path: &str) -> String {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let stem = file.strip_suffix(".kt").unwrap_or(file);
    let mut out: String = stem
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if let Some(first) = out.chars().next() {
        let upper: String = first.to_uppercase().collect();
        out.replace_range(..first.len_utf8(), &upper);
    }
    format!("{out}Kt")
}

struct Extractor<'s> {
    src: &'s str,
    file: CodeFile,
    /// Simple names the file binds (imports, aliases, its own types): never builtins.
    names: HashSet<String>,
    /// `const val` values of the file by name, for annotation texts.
    consts: HashMap<String, String>,
    anon_counters: HashMap<String, usize>,
    facade_name: String,
}

impl Shadows for HashSet<String> {
    fn shadows(&self, name: &str) -> bool {
        self.contains(name)
    }
}

/// Where a member is declared, which decides its JVM shape.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Holder {
    /// A class, interface, enum or annotation class.
    Class,
    /// An `object` declaration (or an object literal).
    Object,
    /// A companion object.
    Companion,
    /// The file facade (top level).
    Facade,
}

/// What a body walk knows about its surroundings.
struct BodyCtx<'a> {
    type_fqn: &'a str,
    depth: usize,
}

fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn end_line(node: Node<'_>) -> usize {
    node.end_position().row + 1
}

fn is_type_node(kind: &str) -> bool {
    matches!(
        kind,
        "user_type" | "nullable_type" | "non_nullable_type" | "function_type" | "parenthesized_type"
    )
}

/// A property name's accessor names: `name` → `getName`/`setName`, `isOpen` →
/// `isOpen`/`setOpen`.
pub(crate) fn accessor_names(property: &str) -> (String, String) {
    let is_prefixed = property
        .strip_prefix("is")
        .is_some_and(|r| r.starts_with(|c: char| c.is_uppercase()));
    if is_prefixed {
        return (property.to_string(), format!("set{}", &property[2..]));
    }
    let cap = capitalize(property);
    (format!("get{cap}"), format!("set{cap}"))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Modifier words of a declaration and its annotations.
#[derive(Default, Clone)]
struct Mods {
    words: Vec<String>,
    annotations: Vec<Annotation>,
    /// The use-site target of each annotation (`field` of `@field:Id`), when written.
    targets: Vec<Option<String>>,
}

/// Annotations that only fields take (persistence mappings): on a constructor property
/// without a use-site target, Kotlin puts them on the field; any other annotation that a
/// parameter takes (`@Value`, `@Autowired`, validation) goes to the parameter.
const FIELD_ANNOTATIONS: &[&str] = &[
    "Id",
    "GeneratedValue",
    "Column",
    "OneToMany",
    "ManyToOne",
    "OneToOne",
    "ManyToMany",
    "JoinColumn",
    "JoinColumns",
    "JoinTable",
    "Embedded",
    "EmbeddedId",
    "Enumerated",
    "Temporal",
    "Lob",
    "Version",
    "Transient",
    "CreatedDate",
    "LastModifiedDate",
    "CreationTimestamp",
    "UpdateTimestamp",
    "ElementCollection",
    "CollectionTable",
    "OrderBy",
    "MapsId",
    "Convert",
    "Basic",
    "SequenceGenerator",
];

impl Mods {
    fn has(&self, word: &str) -> bool {
        self.words.iter().any(|w| w == word)
    }

    /// The annotations of a constructor property that go to its parameter (`true`) or
    /// to its field (`false`).
    fn split_for(&self, param: bool) -> Vec<Annotation> {
        self.annotations
            .iter()
            .zip(&self.targets)
            .filter(|(a, target)| {
                let short = a.name.rsplit('.').next().unwrap_or(&a.name);
                match target.as_deref() {
                    Some("param") => param,
                    Some("field") | Some("property") => !param,
                    Some(_) => false,
                    None => FIELD_ANNOTATIONS.contains(&short) != param,
                }
            })
            .map(|(a, _)| a.clone())
            .collect()
    }

    fn annotated(&self, name: &str) -> bool {
        self.annotations
            .iter()
            .any(|a| a.name.rsplit('.').next() == Some(name))
    }

    /// The JVM visibility: `internal` is public in bytecode.
    fn visibility(&self) -> &'static str {
        if self.has("private") {
            "private"
        } else if self.has("protected") {
            "protected"
        } else {
            "public"
        }
    }
}

impl<'s> Extractor<'s> {
    /// The text of `node`; an identifier written in backticks (`` `when` ``) without them.
    fn text(&self, node: Node<'_>) -> &'s str {
        let t = text(node, self.src);
        if node.kind_name(&KINDS) == "identifier" {
            t.trim_matches('`')
        } else {
            t
        }
    }

    fn jvm(&self, ty: &str) -> String {
        jvm_type(ty, &self.names)
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
                let kids: Vec<Node<'_>> = node.children(&mut cursor).collect();
                stack.extend(kids.into_iter().rev());
            }
        }
    }

    fn program(&mut self, root: Node<'_>) {
        // Declarations may also sit inside ERROR nodes: look one level into them.
        let mut top: Vec<Node<'_>> = Vec::new();
        for child in children(root) {
            if child.is_error() {
                top.extend(children(child));
            } else {
                top.push(child);
            }
        }
        for child in &top {
            match child.kind_name(&KINDS) {
                "package_header" => {
                    if let Some(q) = children(*child).first() {
                        self.file.package = self.text(*q).to_string();
                    }
                }
                "import" => self.import(*child),
                "file_annotation" => {
                    let a = self.annotation(*child);
                    if a.name.rsplit('.').next() == Some("JvmName") {
                        if let Some(name) = a.args.first().and_then(|(_, v)| v.first()) {
                            self.facade_name = name.clone();
                        }
                    }
                }
                _ => {}
            }
        }
        self.gather_names(&top, 0);
        for child in top {
            match child.kind_name(&KINDS) {
                "class_declaration" | "object_declaration" => {
                    self.type_decl(child, None, 0);
                }
                "function_declaration" => {
                    let facade = self.facade();
                    self.function(child, &facade, Holder::Facade, 0);
                }
                "property_declaration" => {
                    let facade = self.facade();
                    self.property(child, &facade, Holder::Facade, 0);
                }
                _ => {}
            }
        }
    }

    fn import(&mut self, node: Node<'_>) {
        let kids = children(node);
        let Some(path_node) = kids
            .iter()
            .find(|k| matches!(k.kind_name(&KINDS), "qualified_identifier" | "identifier"))
        else {
            return;
        };
        let path = self.text(*path_node).replace('`', "");
        let wildcard = has_token(node, "*");
        let alias = kids
            .iter()
            .skip_while(|k| k.id() != path_node.id())
            .nth(1)
            .filter(|k| k.kind_name(&KINDS) == "identifier")
            .map(|k| self.text(*k).to_string());
        let last = path.rsplit('.').next().unwrap_or(&path).to_string();
        let bound = alias.clone().unwrap_or_else(|| last.clone());
        if wildcard {
            self.file.imports.push(Import {
                path,
                is_static: false,
                wildcard: true,
                line: line(node),
                alias: None,
            });
            return;
        }
        self.names.insert(bound);
        // Kotlin imports types and top-level members alike; by Kotlin's naming, a
        // capitalised name with lowercase letters is a type, a lowercase one a function
        // or property, and an all-capitals one may be either.
        let has_lower = last.chars().any(char::is_lowercase);
        let starts_upper = last.starts_with(char::is_uppercase);
        let as_type = starts_upper;
        let as_member = !starts_upper || !has_lower;
        if as_type {
            self.file.imports.push(Import {
                path: path.clone(),
                is_static: false,
                wildcard: false,
                line: line(node),
                alias: alias.clone(),
            });
        }
        if as_member && alias.is_none() {
            self.file.imports.push(Import {
                path,
                is_static: true,
                wildcard: false,
                line: line(node),
                alias: None,
            });
        }
    }

    /// The names of every type the file declares, and its `const val`s, before any
    /// declaration is read (they shadow builtins and name annotation values).
    fn gather_names(&mut self, nodes: &[Node<'_>], depth: usize) {
        if depth > MAX_TYPE_DEPTH {
            return;
        }
        for n in nodes {
            match n.kind_name(&KINDS) {
                "class_declaration" | "object_declaration" | "companion_object" => {
                    if let Some(name) = n.child_by_field(&FIELDS, "name") {
                        self.names.insert(self.text(name).to_string());
                    }
                    for body in children(*n)
                        .into_iter()
                        .filter(|b| matches!(b.kind_name(&KINDS), "class_body" | "enum_class_body"))
                    {
                        self.gather_names(&children(body), depth + 1);
                    }
                }
                "property_declaration" => {
                    let mods = self.modifiers(*n);
                    if mods.has("const") {
                        let name = children(*n)
                            .into_iter()
                            .find(|k| k.kind_name(&KINDS) == "variable_declaration")
                            .and_then(|v| children(v).first().copied())
                            .map(|i| self.text(i).to_string());
                        let value = children(*n)
                            .into_iter()
                            .find(|k| {
                                matches!(k.kind_name(&KINDS), "string_literal" | "multiline_string_literal")
                            })
                            .and_then(|s| expr::string_value(s, self.src));
                        if let (Some(name), Some(value)) = (name, value) {
                            self.consts.insert(name, value);
                        }
                    }
                }
                _ => {}
            }
        }
    }

    /// The facade class of the file, created on first use.
    fn facade(&mut self) -> String {
        let fqn = if self.file.package.is_empty() {
            self.facade_name.clone()
        } else {
            format!("{}.{}", self.file.package, self.facade_name)
        };
        if self.file.facade.is_none() {
            self.file.facade = Some(fqn.clone());
            self.file.types.push(TypeDecl {
                fqn: fqn.clone(),
                name: self.facade_name.clone(),
                kind: TypeKind::Class,
                outer: None,
                anonymous: false,
                modifiers: vec!["public".into(), "final".into()],
                annotations: Vec::new(),
                type_params: Vec::new(),
                extends: Vec::new(),
                implements: Vec::new(),
                fields: Vec::new(),
                methods: Vec::new(),
                enum_constants: Vec::new(),
                constants: Vec::new(),
                field_inits: Vec::new(),
                line_start: 1,
                line_end: self.src.bytes().filter(|&b| b == b'\n').count() + 1,
                type_param_bounds: Vec::new(),
            });
        }
        fqn
    }

    fn type_index(&self, fqn: &str) -> Option<usize> {
        self.file.types.iter().position(|t| t.fqn == fqn)
    }

    fn modifiers(&self, node: Node<'_>) -> Mods {
        let mut mods = Mods::default();
        for child in children(node) {
            if !matches!(child.kind_name(&KINDS), "modifiers" | "parameter_modifiers") {
                continue;
            }
            for m in children(child) {
                match m.kind_name(&KINDS) {
                    "annotation" => {
                        mods.annotations.push(self.annotation(m));
                        let target = children(m)
                            .into_iter()
                            .find(|k| k.kind_name(&KINDS) == "use_site_target")
                            .map(|t| self.text(t).trim_end_matches(':').trim().to_string());
                        mods.targets.push(target);
                    }
                    _ => mods.words.push(self.text(m).to_string()),
                }
            }
        }
        mods
    }

    /// An annotation (`@Name`, `@Name(args)`, `@field:Name(args)`, `@file:Name(args)`).
    fn annotation(&self, node: Node<'_>) -> Annotation {
        let kids = children(node);
        let target = kids
            .iter()
            .find(|k| matches!(k.kind_name(&KINDS), "constructor_invocation" | "user_type"));
        let Some(target) = target else {
            return Annotation {
                name: String::new(),
                args: Vec::new(),
                exprs: Vec::new(),
            };
        };
        if target.kind_name(&KINDS) == "user_type" {
            return Annotation {
                name: erase(self.text(*target)),
                args: Vec::new(),
                exprs: Vec::new(),
            };
        }
        let inner = children(*target);
        let name = inner
            .iter()
            .find(|k| k.kind_name(&KINDS) == "user_type")
            .map(|t| erase(self.text(*t)))
            .unwrap_or_default();
        let mut args: Vec<(String, Vec<String>)> = Vec::new();
        let mut exprs: Vec<(String, Vec<Expr>)> = Vec::new();
        if let Some(list) = inner.iter().find(|k| k.kind_name(&KINDS) == "value_arguments") {
            for arg in children(*list)
                .into_iter()
                .filter(|a| a.kind_name(&KINDS) == "value_argument")
            {
                let parts = children(arg);
                let named =
                    parts.len() >= 2 && parts[0].kind_name(&KINDS) == "identifier" && has_token(arg, "=");
                let key = if named {
                    self.text(parts[0]).to_string()
                } else {
                    "value".to_string()
                };
                let Some(value) = parts.last().copied() else {
                    continue;
                };
                let elements = self.annotation_elements(value);
                let texts: Vec<String> = elements.iter().map(|e| self.annotation_text(*e)).collect();
                let trees: Vec<Expr> = elements.iter().map(|e| expr::build(*e, self.src)).collect();
                // Positional values all fill `value` (Java annotations' `value` is vararg).
                match args
                    .iter_mut()
                    .zip(exprs.iter_mut())
                    .find(|((k, _), _)| *k == key)
                {
                    Some(((_, v), (_, e))) if !named => {
                        v.extend(texts);
                        e.extend(trees);
                    }
                    _ => {
                        args.push((key.clone(), texts));
                        exprs.push((key, trees));
                    }
                }
            }
        }
        Annotation { name, args, exprs }
    }

    /// An annotation value's elements: `[a, b]`, `arrayOf(a, b)` and its typed siblings
    /// split, anything else one element.
    fn annotation_elements<'t>(&self, node: Node<'t>) -> Vec<Node<'t>> {
        match node.kind_name(&KINDS) {
            "collection_literal" => children(node),
            "call_expression" => {
                let parts = call_parts(node);
                let is_array = parts.receiver.is_none()
                    && parts
                        .name
                        .is_some_and(|n| self.text(n).ends_with("rrayOf") && self.text(n).len() <= 12);
                if is_array {
                    parts.args.into_iter().map(|(_, v)| v).collect()
                } else {
                    vec![node]
                }
            }
            _ => vec![node],
        }
    }

    /// An annotation element as text: a string's value (templates of the file's
    /// constants filled in, `\$` read as `$`), `X::class` as `X.class`, a nested
    /// annotation as `@Name(…)`, anything else as written.
    fn annotation_text(&self, node: Node<'_>) -> String {
        match node.kind_name(&KINDS) {
            "string_literal" | "multiline_string_literal" => match expr::build(node, self.src) {
                Expr::Str(s) => s,
                Expr::Concat(parts) => {
                    let mut out = String::new();
                    for p in parts {
                        match p {
                            Expr::Str(s) => out.push_str(&s),
                            Expr::Name(n) if self.consts.contains_key(&n) => out.push_str(&self.consts[&n]),
                            Expr::Field(_, n) if self.consts.contains_key(&n) => {
                                out.push_str(&self.consts[&n])
                            }
                            _ => return self.text(node).to_string(),
                        }
                    }
                    out
                }
                _ => self.text(node).to_string(),
            },
            "call_expression"
                if call_parts(node)
                    .name
                    .is_some_and(|n| self.text(n).starts_with(char::is_uppercase)) =>
            {
                format!("@{}", self.text(node))
            }
            // A constant of the file (`BASE`, `Routes.BASE`): its value.
            "identifier" | "navigation_expression" => {
                let written = self.text(node);
                let last = written.rsplit('.').next().unwrap_or(written);
                match self.consts.get(last) {
                    Some(v) if !written.contains("::") => v.clone(),
                    _ => class_literal(written),
                }
            }
            _ => class_literal(self.text(node)),
        }
    }

    /// A class, interface, enum, annotation class, object or companion object.
    fn type_decl(&mut self, node: Node<'_>, outer: Option<&str>, depth: usize) -> Option<String> {
        if depth > MAX_TYPE_DEPTH {
            self.file
                .diagnostics
                .push((line(node), "types nested too deeply; skipped".to_string()));
            return None;
        }
        let mods = self.modifiers(node);
        let holder = match node.kind_name(&KINDS) {
            "object_declaration" => Holder::Object,
            "companion_object" => Holder::Companion,
            _ => Holder::Class,
        };
        let name = match node.child_by_field(&FIELDS, "name") {
            Some(n) => self.text(n).to_string(),
            None if holder == Holder::Companion => "Companion".to_string(),
            None => return None,
        };
        let fqn = match outer {
            Some(o) => format!("{o}.{name}"),
            None if self.file.package.is_empty() => name.clone(),
            None => format!("{}.{name}", self.file.package),
        };
        let kind = if has_token(node, "interface") {
            TypeKind::Interface
        } else if mods.has("enum") {
            TypeKind::Enum
        } else if mods.has("annotation") {
            TypeKind::Annotation
        } else {
            TypeKind::Class
        };
        let mut modifiers = vec![mods.visibility().to_string()];
        if mods.has("abstract") || mods.has("sealed") {
            modifiers.push("abstract".into());
        } else if kind == TypeKind::Class && !mods.has("open") {
            modifiers.push("final".into());
        }
        // A nested class that is not `inner` is a static nested class; so are objects.
        if outer.is_some() && (!mods.has("inner") || holder != Holder::Class) {
            modifiers.push("static".into());
        }
        for w in ["data", "sealed", "inner", "open", "value"] {
            if mods.has(w) {
                modifiers.push(w.into());
            }
        }
        if holder == Holder::Object {
            modifiers.push("object".into());
        }
        if holder == Holder::Companion {
            modifiers.push("companion".into());
        }
        let mut decl = TypeDecl {
            fqn: fqn.clone(),
            name: name.clone(),
            kind,
            outer: outer.map(str::to_string),
            anonymous: false,
            modifiers,
            annotations: mods.annotations,
            type_params: self.type_params(node),
            extends: Vec::new(),
            implements: Vec::new(),
            fields: Vec::new(),
            methods: Vec::new(),
            enum_constants: Vec::new(),
            constants: Vec::new(),
            field_inits: Vec::new(),
            line_start: line(node),
            line_end: end_line(node),
            type_param_bounds: Vec::new(),
        };
        let mut super_call: Option<Node<'_>> = None;
        for k in children(node) {
            if k.kind_name(&KINDS) != "delegation_specifiers" {
                continue;
            }
            for spec in children(k) {
                let Some(inner) = children(spec)
                    .into_iter()
                    .find(|n| n.kind_name(&KINDS) != "annotation")
                else {
                    continue;
                };
                match inner.kind_name(&KINDS) {
                    "constructor_invocation" => {
                        if let Some(t) = children(inner)
                            .into_iter()
                            .find(|n| n.kind_name(&KINDS) == "user_type")
                        {
                            decl.extends.push(self.jvm(self.text(t)));
                        }
                        super_call = Some(inner);
                    }
                    "explicit_delegation" => {
                        if let Some(t) = children(inner)
                            .into_iter()
                            .find(|n| is_type_node(n.kind_name(&KINDS)))
                        {
                            decl.implements.push(self.jvm(self.text(t)));
                        }
                    }
                    t if is_type_node(t) => {
                        let ty = self.jvm(self.text(inner));
                        if kind == TypeKind::Interface {
                            decl.extends.push(ty);
                        } else {
                            decl.implements.push(ty);
                        }
                    }
                    _ => {}
                }
            }
        }
        match holder {
            Holder::Object => decl.fields.push(FieldDecl {
                name: "INSTANCE".into(),
                ty: fqn.clone(),
                modifiers: vec!["public".into(), "static".into(), "final".into()],
                annotations: Vec::new(),
                line: line(node),
            }),
            Holder::Companion => {
                if let Some(i) = outer.and_then(|o| self.type_index(o)) {
                    self.file.types[i].fields.push(FieldDecl {
                        name: name.clone(),
                        ty: fqn.clone(),
                        modifiers: vec!["public".into(), "static".into(), "final".into()],
                        annotations: Vec::new(),
                        line: line(node),
                    });
                }
            }
            _ => {}
        }
        let index = self.file.types.len();
        self.file.types.push(decl);

        // The primary constructor and its properties.
        let primary = children(node)
            .into_iter()
            .find(|k| k.kind_name(&KINDS) == "primary_constructor");
        let ctx = BodyCtx {
            type_fqn: &fqn,
            depth,
        };
        let mut ctor = MethodDecl {
            name: "<init>".into(),
            modifiers: vec![
                if matches!(holder, Holder::Object | Holder::Companion) || kind == TypeKind::Enum {
                    "private".to_string()
                } else {
                    "public".to_string()
                },
            ],
            line_start: line(node),
            line_end: line(node),
            implicit: primary.is_none(),
            has_body: true,
            ..MethodDecl::default()
        };
        if let Some(p) = primary {
            let pmods = self.modifiers(p);
            if kind != TypeKind::Enum {
                ctor.modifiers = vec![pmods.visibility().to_string()];
            }
            ctor.annotations = pmods.annotations.into();
            ctor.line_start = line(p);
            ctor.line_end = end_line(p);
            if let Some(params) = children(p)
                .into_iter()
                .find(|k| k.kind_name(&KINDS) == "class_parameters")
            {
                self.class_parameters(params, index, &mut ctor, &ctx);
            }
        }
        if let Some(sc) = super_call {
            let site = self.delegation_call(sc, CallKind::SuperCall, &ctor, &ctx);
            ctor.calls.push(site);
        }
        let has_primary = primary.is_some() || kind == TypeKind::Class || kind == TypeKind::Enum;

        // The body.
        let body = children(node)
            .into_iter()
            .find(|k| matches!(k.kind_name(&KINDS), "class_body" | "enum_class_body"));
        let mut secondary: Vec<MethodDecl> = Vec::new();
        if let Some(body) = body {
            for member in children(body) {
                match member.kind_name(&KINDS) {
                    "enum_entry" => {
                        if let Some(n) = children(member)
                            .into_iter()
                            .find(|k| k.kind_name(&KINDS) == "identifier")
                        {
                            let constant = self.text(n).to_string();
                            self.file.types[index].enum_constants.push(constant);
                        }
                    }
                    "property_declaration" => {
                        let inits = self.property(member, &fqn, holder, depth);
                        if let Some(mut init) = inits {
                            self.merge_into(&mut ctor, &mut init);
                        }
                    }
                    "function_declaration" => self.function(member, &fqn, holder, depth),
                    "anonymous_initializer" => {
                        let mut init = MethodDecl::default();
                        self.body(member, &ctx, &mut init);
                        self.merge_into(&mut ctor, &mut init);
                    }
                    "secondary_constructor" => {
                        let m = self.secondary_constructor(member, &ctx);
                        secondary.push(m);
                    }
                    "class_declaration" | "object_declaration" | "companion_object" => {
                        self.type_decl(member, Some(&fqn), depth + 1);
                    }
                    _ => {}
                }
            }
        }
        if kind == TypeKind::Interface || kind == TypeKind::Annotation {
            // Annotation classes: their constructor parameters are elements.
            if kind == TypeKind::Annotation {
                let elements: Vec<MethodDecl> = ctor
                    .params
                    .iter()
                    .map(|p| MethodDecl {
                        name: p.name.clone(),
                        return_type: Some(p.ty.clone()),
                        modifiers: vec!["public".into(), "abstract".into()],
                        line_start: ctor.line_start,
                        line_end: ctor.line_start,
                        ..MethodDecl::default()
                    })
                    .collect();
                self.file.types[index].methods.extend(elements);
            }
            return Some(fqn);
        }
        if has_primary && (primary.is_some() || secondary.is_empty()) {
            let all_default = !ctor.params.is_empty() && ctor.params.iter().all(|p| p.has_default);
            let jvm_overloads = ctor
                .annotations
                .iter()
                .any(|a| a.name.rsplit('.').next() == Some("JvmOverloads"));
            let extra = overloads_of(&ctor, jvm_overloads, all_default);
            let t = &mut self.file.types[index];
            t.methods.push(ctor);
            t.methods.extend(extra);
        } else if let Some(first) = secondary.first_mut() {
            // No primary constructor: initializers run in every constructor; they are
            // recorded once, in the first.
            self.merge_into(first, &mut ctor);
        }
        self.file.types[index].methods.extend(secondary);

        // A data class's members.
        let is_data = self.file.types[index].modifiers.iter().any(|m| m == "data");
        if is_data {
            self.data_members(index);
        }
        Some(fqn)
    }

    /// Moves the facts of an initializer into the constructor that runs it.
    fn merge_into(&self, ctor: &mut MethodDecl, init: &mut MethodDecl) {
        ctor.calls.append(&mut init.calls);
        ctor.locals.append(&mut init.locals);
        ctor.strings.append(&mut init.strings);
        ctor.local_inits.append(&mut init.local_inits);
        ctor.assignments.append(&mut init.assignments);
        ctor.string_locals.append(&mut init.string_locals);
    }

    fn data_members(&mut self, index: usize) {
        let t = &self.file.types[index];
        let Some(ctor) = t.methods.iter().find(|m| m.name == "<init>" && !m.implicit) else {
            return;
        };
        let props: Vec<Param> = ctor
            .params
            .iter()
            .filter(|p| t.fields.iter().any(|f| f.name == p.name))
            .cloned()
            .collect();
        let at = t.line_start;
        let own = t.name.clone();
        let mut extra = Vec::new();
        let declared = |name: &str, n: usize| t.methods.iter().any(|m| m.name == name && m.params.len() == n);
        let implicit = |name: &str, params: Vec<Param>, ret: &str| MethodDecl {
            name: name.to_string(),
            params: params.into(),
            return_type: Some(ret.to_string()),
            modifiers: vec!["public".into(), "final".into()],
            line_start: at,
            line_end: at,
            implicit: true,
            ..MethodDecl::default()
        };
        for (i, p) in props.iter().enumerate() {
            extra.push(implicit(&format!("component{}", i + 1), Vec::new(), &p.ty));
        }
        let copy_params: Vec<Param> = props
            .iter()
            .map(|p| Param {
                has_default: true,
                annotations: Default::default(),
                ..p.clone()
            })
            .collect();
        extra.push(implicit("copy", copy_params, &own));
        if !declared("equals", 1) {
            extra.push(implicit(
                "equals",
                vec![Param {
                    name: "other".into(),
                    ty: "Object".into(),
                    annotations: Default::default(),
                    has_default: false,
                }],
                "boolean",
            ));
        }
        if !declared("hashCode", 0) {
            extra.push(implicit("hashCode", Vec::new(), "int"));
        }
        if !declared("toString", 0) {
            extra.push(implicit("toString", Vec::new(), "String"));
        }
        self.file.types[index].methods.extend(extra);
    }

    fn type_params(&self, node: Node<'_>) -> Vec<String> {
        let Some(tp) = children(node)
            .into_iter()
            .find(|k| k.kind_name(&KINDS) == "type_parameters")
        else {
            return Vec::new();
        };
        children(tp)
            .into_iter()
            .filter(|n| n.kind_name(&KINDS) == "type_parameter")
            .filter_map(|n| {
                children(n)
                    .into_iter()
                    .find(|x| x.kind_name(&KINDS) == "identifier")
                    .map(|x| self.text(x).to_string())
            })
            .collect()
    }

    /// The primary constructor's parameters; `val`/`var` ones are properties of type
    /// `index` too.
    fn class_parameters(&mut self, params: Node<'_>, index: usize, ctor: &mut MethodDecl, ctx: &BodyCtx<'_>) {
        for p in children(params)
            .into_iter()
            .filter(|k| k.kind_name(&KINDS) == "class_parameter")
        {
            let mods = self.modifiers(p);
            let kids = children(p);
            let Some(name) = kids.iter().find(|k| k.kind_name(&KINDS) == "identifier") else {
                continue;
            };
            let name = self.text(*name).to_string();
            let ty = kids
                .iter()
                .find(|k| is_type_node(k.kind_name(&KINDS)))
                .map(|t| self.jvm(self.text(*t)))
                .unwrap_or_default();
            let default = kids
                .iter()
                .skip_while(|k| !is_type_node(k.kind_name(&KINDS)))
                .nth(1)
                .copied();
            let is_property = (has_token(p, "val") || has_token(p, "var"))
                && self.file.types[index].kind != TypeKind::Annotation;
            if let Some(d) = default {
                // A default value is evaluated by the constructor.
                let mut init = MethodDecl::default();
                self.body(d, ctx, &mut init);
                self.merge_into(ctor, &mut init);
            }
            ctor.params.push(Param {
                name: name.clone(),
                ty: ty.clone(),
                annotations: if is_property {
                    mods.split_for(true).into()
                } else {
                    mods.annotations.clone().into()
                },
                has_default: default.is_some(),
            });
            if is_property {
                // The constructor sets the property's field from the parameter.
                ctor.assignments.push((name.clone(), Expr::Name(name.clone())));
                let mutable = has_token(p, "var");
                let field_mods = Mods {
                    annotations: mods.split_for(false),
                    targets: Vec::new(),
                    words: mods.words.clone(),
                };
                self.add_property(
                    index,
                    Holder::Class,
                    &name,
                    &ty,
                    &field_mods,
                    mutable,
                    line(p),
                    false,
                );
            }
        }
    }

    /// The field and accessors of a property `name: ty` on type `index`.
    #[allow(clippy::too_many_arguments)]
    fn add_property(
        &mut self,
        index: usize,
        holder: Holder,
        name: &str,
        ty: &str,
        mods: &Mods,
        mutable: bool,
        at: usize,
        custom_getter: bool,
    ) {
        let is_const = mods.has("const");
        let jvm_field = mods.annotated("JvmField");
        let in_interface = self.file.types[index].kind == TypeKind::Interface;
        let static_field = matches!(holder, Holder::Object | Holder::Companion | Holder::Facade) || is_const;
        // A companion's fields live on its outer class.
        let field_owner = if holder == Holder::Companion {
            self.file.types[index]
                .outer
                .clone()
                .and_then(|o| self.type_index(&o))
                .unwrap_or(index)
        } else {
            index
        };
        let field_visibility = if is_const || jvm_field {
            mods.visibility()
        } else {
            "private"
        };
        if !in_interface && !custom_getter {
            let mut modifiers = vec![field_visibility.to_string()];
            if static_field {
                modifiers.push("static".into());
            }
            if !mutable {
                modifiers.push("final".into());
            }
            self.file.types[field_owner].fields.push(FieldDecl {
                name: name.to_string(),
                ty: ty.to_string(),
                modifiers,
                annotations: mods.annotations.clone(),
                line: at,
            });
        }
        if is_const || jvm_field || mods.has("private") {
            return;
        }
        let (getter, setter) = accessor_names(name);
        let mut accessor_mods = vec!["public".to_string()];
        if holder == Holder::Facade {
            accessor_mods.push("static".into());
        }
        if in_interface {
            accessor_mods.push("abstract".into());
        }
        let t = &mut self.file.types[index];
        if !custom_getter && !t.methods.iter().any(|m| m.name == getter && m.params.is_empty()) {
            t.methods.push(MethodDecl {
                name: getter,
                return_type: Some(ty.to_string()),
                modifiers: accessor_mods.clone(),
                annotations: Default::default(),
                line_start: at,
                line_end: at,
                implicit: true,
                ..MethodDecl::default()
            });
        }
        if mutable && !t.methods.iter().any(|m| m.name == setter && m.params.len() == 1) {
            t.methods.push(MethodDecl {
                name: setter,
                params: vec![Param {
                    name: "value".into(),
                    ty: ty.to_string(),
                    annotations: Default::default(),
                    has_default: false,
                }]
                .into(),
                return_type: Some("void".into()),
                modifiers: accessor_mods,
                line_start: at,
                line_end: at,
                implicit: true,
                ..MethodDecl::default()
            });
        }
    }

    /// A property declaration of a type (or the facade): its field, accessors, constant
    /// value and initializer. Returns the facts of its initializer, which the holder's
    /// constructor runs.
    fn property(
        &mut self,
        node: Node<'_>,
        type_fqn: &str,
        holder: Holder,
        depth: usize,
    ) -> Option<MethodDecl> {
        let index = self.type_index(type_fqn)?;
        let mods = self.modifiers(node);
        let kids = children(node);
        let var = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "variable_declaration")?;
        let var_kids = children(*var);
        let name = self.text(*var_kids.first()?).to_string();
        let written = var_kids
            .iter()
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .map(|t| self.text(*t).to_string());
        // An extension property: its receiver type comes before the name.
        let receiver = kids
            .iter()
            .take_while(|k| k.id() != var.id())
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .map(|t| self.jvm(self.text(*t)));
        let init = kids
            .iter()
            .skip_while(|k| k.id() != var.id())
            .skip(1)
            .find(|k| {
                !matches!(
                    k.kind_name(&KINDS),
                    "getter" | "setter" | "property_delegate" | "type_constraints"
                )
            })
            .copied();
        let getter = kids.iter().find(|k| k.kind_name(&KINDS) == "getter").copied();
        let setter = kids.iter().find(|k| k.kind_name(&KINDS) == "setter").copied();
        let mutable = has_token(node, "var");
        let ty = match (&written, init) {
            (Some(w), _) => self.jvm(w),
            (None, Some(i)) => self
                .literal_type(i)
                .or_else(|| self.constructed_type(i))
                .unwrap_or_default(),
            (None, None) => getter
                .and_then(|g| {
                    children(g)
                        .into_iter()
                        .find(|k| is_type_node(k.kind_name(&KINDS)))
                })
                .map(|t| self.jvm(self.text(t)))
                .unwrap_or_default(),
        };
        let ctx = BodyCtx { type_fqn, depth };
        let (getter_name, setter_name) = accessor_names(&name);
        if let Some(recv) = receiver {
            // An extension property: accessors taking the receiver, no field.
            let mut m = MethodDecl {
                name: getter_name,
                params: vec![receiver_param(&recv)].into(),
                return_type: Some(ty.clone()),
                modifiers: self.method_modifiers(&mods, holder, true),
                annotations: mods.annotations.clone().into(),
                line_start: line(node),
                line_end: end_line(node),
                has_body: getter.is_some(),
                ..MethodDecl::default()
            };
            m.locals.push(this_local(&recv, node));
            if let Some(g) = getter {
                self.body(g, &ctx, &mut m);
            }
            self.file.types[index].methods.push(m);
            return None;
        }
        let is_const = mods.has("const");
        if is_const {
            let value = init.and_then(|i| match expr::build(i, self.src) {
                Expr::Str(s) => Some(s),
                Expr::Concat(parts) => parts
                    .iter()
                    .map(|p| match p {
                        Expr::Str(s) => Some(s.clone()),
                        Expr::Name(n) => self.consts.get(n).cloned(),
                        _ => None,
                    })
                    .collect::<Option<Vec<String>>>()
                    .map(|v| v.concat()),
                _ => None,
            });
            if let Some(v) = value {
                let owner = if holder == Holder::Companion {
                    self.file.types[index]
                        .outer
                        .clone()
                        .and_then(|o| self.type_index(&o))
                        .unwrap_or(index)
                } else {
                    index
                };
                self.file.types[owner].constants.push((name.clone(), v));
            }
        }
        self.add_property(
            index,
            holder,
            &name,
            &ty,
            &mods,
            mutable,
            line(node),
            getter.is_some(),
        );
        // A class's property initializer is an assignment in its constructor (where the
        // constructor's parameters are in scope); other holders initialize statically.
        let assigned_in_constructor = holder == Holder::Class && !is_const;
        if let Some(i) = init.filter(|_| !assigned_in_constructor) {
            let value = expr::build(i, self.src);
            let owner = if holder == Holder::Companion && (is_const || mods.annotated("JvmField")) {
                self.file.types[index]
                    .outer
                    .clone()
                    .and_then(|o| self.type_index(&o))
                    .unwrap_or(index)
            } else {
                index
            };
            self.file.types[owner].field_inits.push((name.clone(), value));
        }
        if let Some(g) = getter.filter(|_| !mods.has("private")) {
            let mut m = MethodDecl {
                name: getter_name,
                return_type: Some(ty.clone()),
                modifiers: self.method_modifiers(&mods, holder, false),
                annotations: Default::default(),
                line_start: line(g),
                line_end: end_line(g),
                has_body: children(g).iter().any(|k| k.kind_name(&KINDS) == "function_body"),
                ..MethodDecl::default()
            };
            self.body(g, &ctx, &mut m);
            self.file.types[index]
                .methods
                .retain(|x| !(x.name == m.name && x.params.is_empty()));
            self.file.types[index].methods.push(m);
        }
        if let Some(s) = setter.filter(|_| !mods.has("private")) {
            if children(s).iter().any(|k| k.kind_name(&KINDS) == "function_body") {
                let mut m = MethodDecl {
                    name: setter_name,
                    params: vec![Param {
                        name: "value".into(),
                        ty: ty.clone(),
                        annotations: Default::default(),
                        has_default: false,
                    }]
                    .into(),
                    return_type: Some("void".into()),
                    modifiers: self.method_modifiers(&mods, holder, false),
                    line_start: line(s),
                    line_end: end_line(s),
                    has_body: true,
                    ..MethodDecl::default()
                };
                self.body(s, &ctx, &mut m);
                self.file.types[index]
                    .methods
                    .retain(|x| !(x.name == m.name && x.params.len() == 1));
                self.file.types[index].methods.push(m);
            }
        }
        // The initializer runs in the constructor (or the static initializer of objects,
        // companions and facades, which has no method here).
        let init = init?;
        let mut facts = MethodDecl::default();
        self.body(init, &ctx, &mut facts);
        if assigned_in_constructor {
            facts.assignments.push((name, expr::build(init, self.src)));
        }
        (holder == Holder::Class).then_some(facts)
    }

    /// The type an initializer `Name(…)` constructs (a capitalised call without receiver),
    /// when the file binds that name or it is no function the file declares.
    fn constructed_type(&self, node: Node<'_>) -> Option<String> {
        if node.kind_name(&KINDS) != "call_expression" {
            return None;
        }
        let parts = call_parts(node);
        if parts.receiver.is_some() || parts.other_callee {
            return None;
        }
        let name = self.text(parts.name?);
        name.starts_with(char::is_uppercase).then(|| self.jvm(name))
    }

    /// The type of a literal initializer (`= "x"`, `= 3`, `= true`), else `None`.
    fn literal_type(&self, node: Node<'_>) -> Option<String> {
        Some(
            match node.kind_name(&KINDS) {
                "string_literal" | "multiline_string_literal" => "String",
                "number_literal" => {
                    if self.text(node).ends_with(['L', 'l']) {
                        "long"
                    } else {
                        "int"
                    }
                }
                "float_literal" => {
                    if self.text(node).ends_with(['f', 'F']) {
                        "float"
                    } else {
                        "double"
                    }
                }
                "character_literal" => "char",
                "identifier" if matches!(self.text(node), "true" | "false") => "boolean",
                _ => return None,
            }
            .to_string(),
        )
    }

    fn method_modifiers(&self, mods: &Mods, holder: Holder, is_static: bool) -> Vec<String> {
        let mut out = vec![mods.visibility().to_string()];
        if is_static || holder == Holder::Facade {
            out.push("static".into());
        }
        if mods.has("abstract") {
            out.push("abstract".into());
        }
        for w in ["override", "suspend", "inline", "open", "operator", "infix"] {
            if mods.has(w) {
                out.push(w.into());
            }
        }
        out
    }

    /// The parameters of a function or secondary constructor (a flat list of modifiers,
    /// parameters and default values).
    fn function_params<'t>(&self, node: Node<'t>) -> (Vec<Param>, bool, Vec<Node<'t>>) {
        let mut params: Vec<Param> = Vec::new();
        let mut varargs = false;
        let mut defaults = Vec::new();
        let mut pending = Mods::default();
        for k in children(node) {
            match k.kind_name(&KINDS) {
                "parameter_modifiers" => {
                    for m in children(k) {
                        match m.kind_name(&KINDS) {
                            "annotation" => pending.annotations.push(self.annotation(m)),
                            _ => pending.words.push(self.text(m).to_string()),
                        }
                    }
                }
                "parameter" => {
                    let kids = children(k);
                    let name = kids
                        .iter()
                        .find(|x| x.kind_name(&KINDS) == "identifier")
                        .map(|x| self.text(*x).to_string())
                        .unwrap_or_default();
                    let mut ty = kids
                        .iter()
                        .find(|x| is_type_node(x.kind_name(&KINDS)))
                        .map(|t| self.jvm(self.text(*t)))
                        .unwrap_or_default();
                    let mods = std::mem::take(&mut pending);
                    if mods.has("vararg") {
                        varargs = true;
                        ty = format!("{ty}[]");
                    }
                    params.push(Param {
                        name,
                        ty,
                        annotations: mods.annotations.into(),
                        has_default: false,
                    });
                }
                _ => {
                    // A default value of the parameter before it.
                    if let Some(last) = params.last_mut() {
                        last.has_default = true;
                        defaults.push(k);
                    }
                }
            }
        }
        (params, varargs, defaults)
    }

    /// A function of a type or of the facade.
    fn function(&mut self, node: Node<'_>, type_fqn: &str, holder: Holder, depth: usize) {
        let Some(index) = self.type_index(type_fqn) else {
            return;
        };
        let mods = self.modifiers(node);
        let Some(name_node) = node.child_by_field(&FIELDS, "name") else {
            return;
        };
        let name = self.text(name_node).to_string();
        let kids = children(node);
        let receiver = kids
            .iter()
            .take_while(|k| k.id() != name_node.id())
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .map(|t| self.jvm(self.text(*t)));
        let params_node = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "function_value_parameters")
            .copied();
        let return_node = kids
            .iter()
            .skip_while(|k| k.kind_name(&KINDS) != "function_value_parameters")
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .copied();
        let body = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "function_body")
            .copied();
        let (mut params, varargs, defaults) =
            params_node.map(|p| self.function_params(p)).unwrap_or_default();
        if let Some(r) = &receiver {
            params.insert(0, receiver_param(r));
        }
        let return_type = match return_node {
            Some(r) => Some(self.jvm(self.text(r))),
            None => match body {
                Some(b)
                    if children(b)
                        .first()
                        .is_some_and(|k| k.kind_name(&KINDS) == "block") =>
                {
                    Some("void".into())
                }
                Some(b) => children(b).first().and_then(|e| self.literal_type(*e)),
                None => Some("void".into()),
            },
        };
        let jvm_static = mods.annotated("JvmStatic");
        let is_static = holder == Holder::Facade || (holder == Holder::Object && jvm_static);
        let mut modifiers = self.method_modifiers(&mods, holder, is_static);
        let in_interface = self.file.types[index].kind == TypeKind::Interface;
        if in_interface && body.is_none() && !modifiers.iter().any(|m| m == "abstract") {
            modifiers.push("abstract".into());
        }
        let mut m = MethodDecl {
            name: name.clone(),
            params: params.into(),
            varargs,
            return_type,
            annotations: mods.annotations.clone().into(),
            modifiers,
            line_start: line(node),
            line_end: end_line(node),
            has_body: body.is_some(),
            ..MethodDecl::default()
        };
        if let Some(r) = &receiver {
            m.locals.push(this_local(r, node));
        }
        let ctx = BodyCtx { type_fqn, depth };
        for d in defaults {
            self.body(d, &ctx, &mut m);
        }
        if let Some(b) = body {
            self.body(b, &ctx, &mut m);
        }
        let jvm_overloads = mods.annotated("JvmOverloads");
        let extra = overloads_of(&m, jvm_overloads, false);
        // A companion's `@JvmStatic` function is also a static method of its outer class,
        // which calls the companion's.
        let bridge = (holder == Holder::Companion && jvm_static)
            .then(|| self.static_bridge(index, &m))
            .flatten();
        self.file.types[index].methods.push(m);
        self.file.types[index].methods.extend(extra);
        if let Some((outer, bridge)) = bridge {
            self.file.types[outer].methods.push(bridge);
        }
    }

    /// The static method of a companion's outer class that calls the companion's `m`.
    fn static_bridge(&self, companion: usize, m: &MethodDecl) -> Option<(usize, MethodDecl)> {
        let c = &self.file.types[companion];
        let outer_fqn = c.outer.clone()?;
        let outer = self.type_index(&outer_fqn)?;
        let outer_name = self.file.types[outer].name.clone();
        let site = CallSite {
            line: m.line_start,
            byte: 0,
            name: m.name.clone(),
            receiver: Receiver::Field(Box::new(Receiver::Name(outer_name)), c.name.clone()),
            arg_count: m.params.len(),
            arg_types: m.params.iter().map(|p| Some(erase(&p.ty))).collect(),
            arg_exprs: m.params.iter().map(|_| Receiver::Other).collect(),
            arg_texts: m.params.iter().map(|p| p.name.clone()).collect(),
            arg_values: m.params.iter().map(|p| Expr::Name(p.name.clone())).collect(),
            arg_names: Vec::new(),
            kind: CallKind::Method,
            arity_hint: None,
            end: 0,
        };
        let mut modifiers = m.modifiers.clone();
        modifiers.retain(|x| x != "override");
        modifiers.push("static".into());
        Some((
            outer,
            MethodDecl {
                name: m.name.clone(),
                params: m.params.clone(),
                varargs: m.varargs,
                return_type: m.return_type.clone(),
                annotations: m.annotations.clone(),
                modifiers,
                line_start: m.line_start,
                line_end: m.line_end,
                has_body: true,
                implicit: true,
                calls: vec![site].into(),
                ..MethodDecl::default()
            },
        ))
    }

    fn secondary_constructor(&mut self, node: Node<'_>, ctx: &BodyCtx<'_>) -> MethodDecl {
        let mods = self.modifiers(node);
        let kids = children(node);
        let (params, varargs, defaults) = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "function_value_parameters")
            .map(|p| self.function_params(*p))
            .unwrap_or_default();
        let mut m = MethodDecl {
            name: "<init>".into(),
            params: params.into(),
            varargs,
            annotations: mods.annotations.clone().into(),
            modifiers: vec![mods.visibility().to_string()],
            line_start: line(node),
            line_end: end_line(node),
            has_body: true,
            ..MethodDecl::default()
        };
        for d in defaults {
            self.body(d, ctx, &mut m);
        }
        if let Some(d) = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "constructor_delegation_call")
        {
            let kind = if has_token(*d, "super") {
                CallKind::SuperCall
            } else {
                CallKind::ThisCall
            };
            let site = self.delegation_call(*d, kind, &m, ctx);
            m.calls.push(site);
            if let Some(args) = children(*d)
                .into_iter()
                .find(|k| k.kind_name(&KINDS) == "value_arguments")
            {
                self.body(args, ctx, &mut m);
            }
        }
        if let Some(b) = kids.iter().find(|k| k.kind_name(&KINDS) == "block") {
            self.body(*b, ctx, &mut m);
        }
        m
    }

    /// `: Base(args)`, `: this(args)`, `: super(args)`.
    fn delegation_call(
        &mut self,
        node: Node<'_>,
        kind: CallKind,
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
    ) -> CallSite {
        let args: Vec<(Option<Node<'_>>, Node<'_>)> = children(node)
            .into_iter()
            .find(|k| k.kind_name(&KINDS) == "value_arguments")
            .map(|list| {
                children(list)
                    .into_iter()
                    .filter(|a| a.kind_name(&KINDS) == "value_argument")
                    .filter_map(|a| {
                        let parts = children(a);
                        let named = parts.len() >= 2
                            && parts[0].kind_name(&KINDS) == "identifier"
                            && has_token(a, "=");
                        parts.last().map(|v| (named.then_some(parts[0]), *v))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let receiver = if kind == CallKind::SuperCall {
            Receiver::Super
        } else {
            Receiver::This
        };
        let mut site = self.site_with_args(node, "<init>".into(), receiver, &args, m, ctx, 0);
        site.kind = kind;
        site
    }

    /// Walks a body with an explicit stack: locals, calls, property sites, strings,
    /// assignments, and the object literals and local classes declared inside.
    fn body(&mut self, body: Node<'_>, ctx: &BodyCtx<'_>, m: &mut MethodDecl) {
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let mut push: Vec<Node<'_>> = Vec::new();
            let mut descend = true;
            match node.kind_name(&KINDS) {
                "call_expression" => {
                    let parts = call_parts(node);
                    if let Some(site) = self.call_site(node, m, ctx, 0) {
                        self.lambda_params_from_call(&parts, &site, m);
                        m.calls.push(site);
                    }
                    // `f(a) { … }`: the inner call is this one, not another; and the
                    // callee navigation is the call, not a property read.
                    descend = false;
                    let kids = children(node);
                    let joined = kids.first().filter(|k| {
                        k.kind_name(&KINDS) == "call_expression"
                            && !kids.iter().any(|x| x.kind_name(&KINDS) == "value_arguments")
                    });
                    let (callee_kids, rest) = match joined {
                        Some(inner) => (children(*inner), &kids[1..]),
                        None => (kids.clone(), &kids[..0]),
                    };
                    for (i, k) in callee_kids.iter().enumerate() {
                        if i == 0 && k.kind_name(&KINDS) == "navigation_expression" {
                            push.extend(children(*k));
                        } else {
                            push.push(*k);
                        }
                    }
                    push.extend(rest.iter().copied());
                }
                "navigation_expression" => {
                    let op = navigation_op(node);
                    if op == "::" {
                        if let Some(site) = self.method_ref(node, m, ctx) {
                            m.calls.push(site);
                        }
                        descend = false;
                    } else if let Some(site) = self.property_site(node, None, m, ctx) {
                        m.calls.push(site);
                    }
                }
                "callable_reference" => {
                    if let Some(site) = self.method_ref(node, m, ctx) {
                        m.calls.push(site);
                    }
                    descend = false;
                }
                "assignment" => {
                    self.assignment(node, m, ctx);
                    descend = false;
                    if let Some(left) = node.child_by_field(&FIELDS, "left") {
                        if left.kind_name(&KINDS) == "navigation_expression" {
                            push.extend(children(left).into_iter().take(1));
                        }
                    }
                    if let Some(right) = node.child_by_field(&FIELDS, "right") {
                        push.push(right);
                    }
                }
                "property_declaration" => self.local_decl(node, m, ctx),
                "lambda_literal" => self.lambda_params(node, m, None),
                "for_statement" => self.for_local(node, m, ctx),
                "catch_block" => {
                    let kids = children(node);
                    let name = kids.iter().find(|k| k.kind_name(&KINDS) == "identifier");
                    let ty = kids.iter().find(|k| is_type_node(k.kind_name(&KINDS)));
                    if let (Some(n), Some(t)) = (name, ty) {
                        m.locals.push(Local {
                            name: self.text(*n).to_string(),
                            ty: Some(self.jvm(self.text(*t))),
                            scope: (node.start_byte(), node.end_byte()),
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
                "is_expression" => self.smart_cast(node, m),
                "when_expression" => self.when_casts(node, m),
                "string_literal" | "multiline_string_literal" => {
                    if let Some(s) = expr::string_value(node, self.src) {
                        m.strings.push((line(node), s));
                        descend = false;
                    }
                }
                "object_literal" => {
                    self.object_literal(node, ctx, m);
                    descend = false;
                    for k in children(node)
                        .into_iter()
                        .filter(|k| k.kind_name(&KINDS) == "delegation_specifiers")
                    {
                        push.push(k);
                    }
                }
                "class_declaration" | "object_declaration" => {
                    self.type_decl(node, Some(ctx.type_fqn), ctx.depth + 1);
                    descend = false;
                }
                _ => {}
            }
            if descend {
                push.extend(children(node));
            }
            push.reverse();
            stack.extend(push);
        }
    }

    /// A call site, or `None` when the callee is no name (`f()()`, `(x)()`).
    fn call_site(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>, depth: usize) -> Option<CallSite> {
        if depth > MAX_RECEIVER_DEPTH {
            return None;
        }
        let parts = call_parts(node);
        if parts.other_callee {
            return None;
        }
        let name = self.text(parts.name?).to_string();
        let receiver = match parts.receiver {
            None => Receiver::None,
            Some(r) => self.receiver(r, m, ctx, depth + 1),
        };
        Some(self.site_with_args(node, name, receiver, &parts.args, m, ctx, depth))
    }

    #[allow(clippy::too_many_arguments)]
    fn site_with_args(
        &self,
        node: Node<'_>,
        name: String,
        receiver: Receiver,
        args: &[(Option<Node<'_>>, Node<'_>)],
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
        depth: usize,
    ) -> CallSite {
        let mut arg_types = Vec::new();
        let mut arg_exprs = Vec::new();
        let mut arg_texts = Vec::new();
        let mut arg_values = Vec::new();
        let mut arg_names = Vec::new();
        for (arg_name, value) in args {
            let value = unwrap_value(*value);
            let t = class_literal(self.text(value));
            let mut end = t.len().min(MAX_ARG_TEXT);
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            arg_texts.push(t[..end].to_string());
            arg_values.push(expr::build(value, self.src));
            let ty = self.shallow_type(value, m);
            let typed_later = ty.is_none()
                && matches!(
                    value.kind_name(&KINDS),
                    "identifier" | "navigation_expression" | "call_expression" | "this_expression"
                );
            arg_exprs.push(if typed_later {
                self.receiver(value, m, ctx, depth + 1)
            } else {
                Receiver::Other
            });
            arg_types.push(ty);
            arg_names.push(arg_name.map(|n| self.text(n).to_string()));
        }
        if arg_names.iter().all(Option::is_none) {
            arg_names.clear();
        }
        CallSite {
            line: line(node),
            byte: node.start_byte(),
            name,
            receiver,
            arg_count: arg_types.len(),
            arg_types,
            arg_exprs,
            arg_texts,
            arg_values,
            arg_names,
            kind: CallKind::Method,
            arity_hint: None,
            end: node.end_byte(),
        }
    }

    /// A property read `a.b` (or write, with `value`) as a call site for the resolver.
    fn property_site(
        &self,
        node: Node<'_>,
        value: Option<Node<'_>>,
        m: &MethodDecl,
        ctx: &BodyCtx<'_>,
    ) -> Option<CallSite> {
        let (recv, name) = navigation_parts(node)?;
        let name = self.text(name).to_string();
        if name == "class" {
            return None;
        }
        let receiver = self.receiver(recv, m, ctx, 1);
        if matches!(receiver, Receiver::Other) {
            return None;
        }
        let args: Vec<(Option<Node<'_>>, Node<'_>)> = value.map(|v| (None, v)).into_iter().collect();
        let mut site = self.site_with_args(node, name, receiver, &args, m, ctx, 0);
        site.kind = CallKind::Property;
        Some(site)
    }

    /// `Type::method`, `obj::method`, `::function`, `::Type` (a constructor).
    fn method_ref(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>) -> Option<CallSite> {
        let kids = children(node);
        let last = *kids.last()?;
        if last.kind_name(&KINDS) != "identifier" {
            return None;
        }
        let name = self.text(last).to_string();
        if name == "class" {
            return None;
        }
        let receiver = match kids.len() {
            1 => Receiver::None,
            _ => {
                let first = kids[0];
                match first.kind_name(&KINDS) {
                    "user_type" => dotted_receiver(&erase(self.text(first))),
                    _ => self.receiver(first, m, ctx, 1),
                }
            }
        };
        let arity_hint = node
            .parent()
            .filter(|p| p.kind_name(&KINDS) == "value_argument")
            .map(|_| 1);
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
            end: 0,
        })
    }

    fn receiver(&self, node: Node<'_>, m: &MethodDecl, ctx: &BodyCtx<'_>, depth: usize) -> Receiver {
        if depth > MAX_RECEIVER_DEPTH {
            return Receiver::Other;
        }
        let node = unwrap_value(node);
        match node.kind_name(&KINDS) {
            "identifier" => match self.text(node) {
                "true" | "false" | "null" => Receiver::Other,
                n => Receiver::Name(n.to_string()),
            },
            "this_expression" => match children(node).first() {
                Some(label) => Receiver::Name(format!("this@{}", self.text(*label))),
                None => Receiver::This,
            },
            "super_expression" => Receiver::Super,
            // `X::class.java`: the JVM's `Class` of `X`.
            "navigation_expression" if self.is_class_java(node) => Receiver::New("java.lang.Class".into()),
            "navigation_expression" if navigation_op(node) != "::" => match navigation_parts(node) {
                Some((recv, name)) => Receiver::Field(
                    Box::new(self.receiver(recv, m, ctx, depth + 1)),
                    self.text(name).to_string(),
                ),
                None => Receiver::Other,
            },
            "call_expression" => match self.call_site(node, m, ctx, depth + 1) {
                Some(site) => Receiver::Call(Box::new(site)),
                None => Receiver::Other,
            },
            "as_expression" => match node.child_by_field(&FIELDS, "right") {
                Some(t) => Receiver::New(erase(&self.jvm(self.text(t)))),
                None => Receiver::Other,
            },
            "string_literal" | "multiline_string_literal" => Receiver::New("String".into()),
            // The grammar nests `!a.b()` as `(!a).b()` (a prefix operator binds tighter
            // than a call there, looser in Kotlin): the call's receiver is the operand.
            "unary_expression" => match node.child_by_field(&FIELDS, "argument") {
                Some(operand) => self.receiver(operand, m, ctx, depth + 1),
                None => Receiver::Other,
            },
            _ => Receiver::Other,
        }
    }

    /// Whether navigation `node` is `X::class.java`.
    fn is_class_java(&self, node: Node<'_>) -> bool {
        let literal = |n: Node<'_>| {
            n.kind_name(&KINDS) == "navigation_expression"
                && navigation_op(n) == "::"
                && navigation_parts(n).is_some_and(|(_, name)| self.text(name) == "class")
        };
        navigation_op(node) == "."
            && navigation_parts(node).is_some_and(|(recv, name)| self.text(name) == "java" && literal(recv))
    }

    /// The type of an expression where the syntax alone tells it.
    fn shallow_type(&self, node: Node<'_>, m: &MethodDecl) -> Option<String> {
        if let Some(t) = self.literal_type(node) {
            return Some(t);
        }
        match node.kind_name(&KINDS) {
            "identifier" => m
                .lookup_local(self.text(node), node.start_byte())
                .flatten()
                .map(|t| erase(&t)),
            "as_expression" => node
                .child_by_field(&FIELDS, "right")
                .map(|t| erase(&self.jvm(self.text(t)))),
            _ => None,
        }
    }

    /// `a.b = v` is a setter call (a property write); `x = v` and `this.x = v` are
    /// assignments, for evaluating what `x` holds.
    fn assignment(&self, node: Node<'_>, m: &mut MethodDecl, ctx: &BodyCtx<'_>) {
        let (Some(left), Some(right)) = (
            node.child_by_field(&FIELDS, "left"),
            node.child_by_field(&FIELDS, "right"),
        ) else {
            return;
        };
        let is_plain = node
            .child_by_field(&FIELDS, "operator")
            .is_some_and(|o| o.kind_name(&KINDS) == "=");
        let target = match left.kind_name(&KINDS) {
            "identifier" => Some(self.text(left).to_string()),
            "navigation_expression" => {
                let this_field = navigation_parts(left)
                    .filter(|(recv, _)| {
                        recv.kind_name(&KINDS) == "this_expression" && children(*recv).is_empty()
                    })
                    .map(|(_, name)| self.text(name).to_string());
                if this_field.is_none() {
                    if let Some(site) = self.property_site(left, Some(right), m, ctx) {
                        m.calls.push(site);
                    }
                }
                this_field
            }
            _ => None,
        };
        if let Some(target) = target {
            m.string_locals.retain(|(n, ..)| *n != target);
            let value = if is_plain {
                expr::build(right, self.src)
            } else {
                Expr::Other
            };
            m.assignments.push((target, value));
        }
    }

    /// `val x: T = init` inside a body.
    fn local_decl(&self, node: Node<'_>, m: &mut MethodDecl, ctx: &BodyCtx<'_>) {
        let kids = children(node);
        let scope_end = node.parent().map_or(node.end_byte(), |p| p.end_byte());
        let scope = (node.start_byte(), scope_end);
        let init = kids
            .iter()
            .skip_while(|k| {
                !matches!(
                    k.kind_name(&KINDS),
                    "variable_declaration" | "multi_variable_declaration"
                )
            })
            .nth(1)
            .copied();
        let Some(var) = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "variable_declaration")
        else {
            // `val (a, b) = pair`: names without types.
            if let Some(multi) = kids
                .iter()
                .find(|k| k.kind_name(&KINDS) == "multi_variable_declaration")
            {
                for v in children(*multi) {
                    if let Some(n) = children(v).first() {
                        m.locals.push(Local {
                            name: self.text(*n).to_string(),
                            ty: None,
                            scope,
                            lambda_source: None,
                            init: None,
                            lambda: None,
                            element_of: None,
                        });
                    }
                }
            }
            return;
        };
        let var_kids = children(*var);
        let Some(name) = var_kids.first().map(|n| self.text(*n).to_string()) else {
            return;
        };
        let written = var_kids
            .iter()
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .map(|t| self.jvm(self.text(*t)));
        let ty = written.or_else(|| init.and_then(|i| self.shallow_type(unwrap_value(i), m)));
        let recv_init = init
            .filter(|i| {
                ty.is_none()
                    && matches!(
                        unwrap_value(*i).kind_name(&KINDS),
                        "identifier" | "navigation_expression" | "call_expression" | "as_expression"
                    )
            })
            .map(|i| self.receiver(i, m, ctx, MAX_RECEIVER_DEPTH / 2));
        if let Some(i) = init {
            let value = expr::build(i, self.src);
            if let Some(s) = fixed_text(&value) {
                m.string_locals.push((name.clone(), scope, s));
            }
            m.local_inits.push((name.clone(), scope, value));
        }
        m.locals.push(Local {
            name,
            ty,
            scope,
            lambda_source: None,
            init: recv_init,
            lambda: None,
            element_of: None,
        });
    }

    /// `for (x in xs)`: `x` is an element of `xs`.
    fn for_local(&self, node: Node<'_>, m: &mut MethodDecl, ctx: &BodyCtx<'_>) {
        let kids = children(node);
        let Some(var) = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "variable_declaration")
        else {
            return;
        };
        let var_kids = children(*var);
        let Some(name) = var_kids.first() else {
            return;
        };
        let written = var_kids
            .iter()
            .find(|k| is_type_node(k.kind_name(&KINDS)))
            .map(|t| self.jvm(self.text(*t)));
        let iterable = kids.iter().skip_while(|k| k.id() != var.id()).nth(1).copied();
        let source = match (&written, iterable) {
            (None, Some(it)) => Some((self.receiver(it, m, ctx, 1), "forEach".to_string())),
            _ => None,
        };
        m.locals.push(Local {
            name: self.text(*name).to_string(),
            ty: written,
            scope: (node.start_byte(), node.end_byte()),
            lambda_source: source,
            init: None,
            element_of: None,
            lambda: None,
        });
    }

    /// `x is T` in a condition: `x` is a `T` in what follows, up to the end of the
    /// enclosing `if` or `when` branch.
    fn smart_cast(&self, node: Node<'_>, m: &mut MethodDecl) {
        let (Some(left), Some(right)) = (
            node.child_by_field(&FIELDS, "left"),
            node.child_by_field(&FIELDS, "right"),
        ) else {
            return;
        };
        if left.kind_name(&KINDS) != "identifier" || has_token(node, "!is") {
            return;
        }
        let mut scope_node = node;
        while let Some(p) = scope_node.parent() {
            scope_node = p;
            if matches!(p.kind_name(&KINDS), "if_expression" | "when_entry" | "block") {
                break;
            }
        }
        m.locals.push(Local {
            name: self.text(left).to_string(),
            ty: Some(self.jvm(self.text(right))),
            scope: (node.start_byte(), scope_node.end_byte()),
            lambda_source: None,
            init: None,
            element_of: None,
            lambda: None,
        });
    }

    /// `when (x) { is T -> … }`: `x` is a `T` in that branch.
    fn when_casts(&self, node: Node<'_>, m: &mut MethodDecl) {
        let kids = children(node);
        let Some(subject) = kids
            .iter()
            .find(|k| k.kind_name(&KINDS) == "when_subject")
            .and_then(|s| {
                children(*s)
                    .into_iter()
                    .find(|k| k.kind_name(&KINDS) == "identifier")
            })
        else {
            return;
        };
        let name = self.text(subject).to_string();
        for entry in kids.iter().filter(|k| k.kind_name(&KINDS) == "when_entry") {
            let Some(cond) = entry.child_by_field(&FIELDS, "condition") else {
                continue;
            };
            if cond.kind_name(&KINDS) != "type_test" || has_token(cond, "!is") {
                continue;
            }
            if let Some(t) = children(cond)
                .into_iter()
                .find(|k| is_type_node(k.kind_name(&KINDS)))
            {
                m.locals.push(Local {
                    name: name.clone(),
                    ty: Some(self.jvm(self.text(t))),
                    scope: (entry.start_byte(), entry.end_byte()),
                    lambda_source: None,
                    init: None,
                    element_of: None,
                    lambda: None,
                });
            }
        }
    }

    /// A lambda's parameters (`it` when it declares none), typed when written.
    fn lambda_params(&self, node: Node<'_>, m: &mut MethodDecl, source: Option<(Receiver, String)>) {
        let scope = (node.start_byte(), node.end_byte());
        if m.locals.iter().any(|l| l.scope == scope) {
            // Recorded from the call it is passed to (a scope function's `this` included:
            // such a lambda has no `it`).
            return;
        }
        let params = children(node)
            .into_iter()
            .find(|k| k.kind_name(&KINDS) == "lambda_parameters");
        let Some(params) = params else {
            m.locals.push(Local {
                name: "it".into(),
                ty: None,
                scope,
                lambda_source: source,
                init: None,
                element_of: None,
                lambda: None,
            });
            return;
        };
        let decls = children(params);
        let single = decls.len() == 1;
        for d in decls {
            if d.kind_name(&KINDS) != "variable_declaration" {
                // `(a, b)`: a destructured pair.
                for v in children(d) {
                    if let Some(n) = children(v).first() {
                        m.locals.push(Local {
                            name: self.text(*n).to_string(),
                            ty: None,
                            scope,
                            lambda_source: None,
                            init: None,
                            element_of: None,
                            lambda: None,
                        });
                    }
                }
                continue;
            }
            let kids = children(d);
            let Some(n) = kids.first() else {
                continue;
            };
            let ty = kids
                .iter()
                .find(|k| is_type_node(k.kind_name(&KINDS)))
                .map(|t| self.jvm(self.text(*t)));
            let lambda_source = if single && ty.is_none() {
                source.clone()
            } else {
                None
            };
            m.locals.push(Local {
                name: self.text(*n).to_string(),
                ty,
                scope,
                lambda_source,
                init: None,
                element_of: None,
                lambda: None,
            });
        }
    }

    /// The lambdas passed to a call remember it: `xs.forEach { it… }` types `it` as an
    /// element of `xs`, `x.let { it… }` as `x`, `x.apply { … }` and `with(x) { … }` make
    /// `x` the lambda's `this`.
    fn lambda_params_from_call(&self, parts: &expr::CallParts<'_>, site: &CallSite, m: &mut MethodDecl) {
        for (_, arg) in &parts.args {
            let lambda = match arg.kind_name(&KINDS) {
                "annotated_lambda" => children(*arg)
                    .into_iter()
                    .find(|k| k.kind_name(&KINDS) == "lambda_literal"),
                "lambda_literal" => Some(*arg),
                _ => None,
            };
            let Some(lambda) = lambda else {
                continue;
            };
            let scope = (lambda.start_byte(), lambda.end_byte());
            let source_recv = if site.name == "with" {
                site.arg_exprs
                    .first()
                    .cloned()
                    .filter(|r| *r != Receiver::Other)
                    .or_else(|| {
                        parts.args.first().and_then(|(_, a)| {
                            (a.kind_name(&KINDS) == "identifier")
                                .then(|| Receiver::Name(self.text(*a).to_string()))
                        })
                    })
            } else {
                Some(site.receiver.clone())
            };
            let Some(recv) = source_recv else {
                continue;
            };
            if THIS_SCOPE_FUNCTIONS.contains(&site.name.as_str())
                && (recv != Receiver::None || site.name == "with")
            {
                m.locals.push(Local {
                    name: "this".into(),
                    ty: None,
                    scope,
                    lambda_source: Some((recv, site.name.clone())),
                    init: None,
                    element_of: None,
                    lambda: None,
                });
                continue;
            }
            if recv == Receiver::None {
                continue;
            }
            self.lambda_params(lambda, m, Some((recv, site.name.clone())));
        }
    }

    /// `object : Base(args), Iface { … }` inside a body: an anonymous class nested in the
    /// current type, its methods seeing the enclosing method's locals.
    fn object_literal(&mut self, node: Node<'_>, ctx: &BodyCtx<'_>, m: &MethodDecl) {
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
        let mut extends = Vec::new();
        let mut implements = Vec::new();
        for spec in children(node)
            .into_iter()
            .filter(|k| k.kind_name(&KINDS) == "delegation_specifiers")
            .flat_map(children)
        {
            let Some(inner) = children(spec).into_iter().next() else {
                continue;
            };
            match inner.kind_name(&KINDS) {
                "constructor_invocation" => {
                    if let Some(t) = children(inner)
                        .into_iter()
                        .find(|n| n.kind_name(&KINDS) == "user_type")
                    {
                        extends.push(self.jvm(self.text(t)));
                    }
                }
                k if is_type_node(k) => implements.push(self.jvm(self.text(inner))),
                _ => {}
            }
        }
        // A Java anonymous class names one supertype; so does the usual object literal.
        if extends.is_empty() && implements.len() == 1 {
            extends.append(&mut implements);
        }
        let index = self.file.types.len();
        self.file.types.push(TypeDecl {
            fqn: fqn.clone(),
            name,
            kind: TypeKind::Class,
            outer: Some(ctx.type_fqn.to_string()),
            anonymous: true,
            modifiers: Vec::new(),
            annotations: Vec::new(),
            type_params: Vec::new(),
            extends,
            implements,
            fields: Vec::new(),
            methods: Vec::new(),
            enum_constants: Vec::new(),
            constants: Vec::new(),
            field_inits: Vec::new(),
            line_start: line(node),
            line_end: end_line(node),
            type_param_bounds: Vec::new(),
        });
        let captured: Vec<Local> = m
            .params
            .iter()
            .map(|p| Local {
                name: p.name.clone(),
                ty: Some(p.ty.clone()),
                scope: (0, usize::MAX),
                lambda_source: None,
                init: None,
                element_of: None,
                lambda: None,
            })
            .chain(
                m.locals
                    .iter()
                    .filter(|l| l.scope.0 <= node.start_byte() && node.start_byte() < l.scope.1)
                    .map(|l| Local {
                        scope: (0, usize::MAX),
                        ..l.clone()
                    }),
            )
            .collect();
        let before = self.file.types[index].methods.len();
        if let Some(body) = children(node)
            .into_iter()
            .find(|k| k.kind_name(&KINDS) == "class_body")
        {
            for member in children(body) {
                match member.kind_name(&KINDS) {
                    "function_declaration" => self.function(member, &fqn, Holder::Object, ctx.depth + 1),
                    "property_declaration" => {
                        self.property(member, &fqn, Holder::Class, ctx.depth + 1);
                    }
                    _ => {}
                }
            }
        }
        let t = &mut self.file.types[index];
        t.modifiers.retain(|m| m != "static");
        for method in &mut t.methods[before..] {
            method.modifiers.retain(|x| x != "static");
            method.locals.extend(captured.iter().cloned());
        }
    }
}

/// The `$receiver` parameter an extension function takes first.
fn receiver_param(ty: &str) -> Param {
    Param {
        name: "$receiver".into(),
        ty: ty.to_string(),
        annotations: Default::default(),
        has_default: false,
    }
}

/// The receiver of an extension, visible as `this` in its whole body.
fn this_local(ty: &str, node: Node<'_>) -> Local {
    Local {
        name: "this".into(),
        ty: Some(ty.to_string()),
        scope: (node.start_byte(), node.end_byte()),
        lambda_source: None,
        init: None,
        element_of: None,
        lambda: None,
    }
}

/// The overloads javac sees besides `m`: with `@JvmOverloads`, one per trailing run of
/// defaulted parameters left out; a constructor whose parameters all have defaults also
/// has a no-argument one.
fn overloads_of(m: &MethodDecl, jvm_overloads: bool, all_default: bool) -> Vec<MethodDecl> {
    let mut out = Vec::new();
    if jvm_overloads {
        let mut params = m.params.clone();
        while let Some(pos) = params.iter().rposition(|p| p.has_default) {
            params.remove(pos);
            out.push(MethodDecl {
                name: m.name.clone(),
                params: params.clone(),
                return_type: m.return_type.clone(),
                modifiers: m.modifiers.clone(),
                line_start: m.line_start,
                line_end: m.line_start,
                implicit: true,
                has_body: true,
                ..MethodDecl::default()
            });
        }
    } else if all_default && m.name == "<init>" {
        out.push(MethodDecl {
            name: m.name.clone(),
            modifiers: m.modifiers.clone(),
            line_start: m.line_start,
            line_end: m.line_start,
            implicit: true,
            has_body: true,
            ..MethodDecl::default()
        });
    }
    out
}

/// `X::class.java` and `X::class` as Java writes them: `X.class`.
fn class_literal(text: &str) -> String {
    let t = text.trim();
    let stripped = t
        .strip_suffix("::class.java")
        .or_else(|| t.strip_suffix("::class"));
    match stripped {
        Some(base) if !base.is_empty() => format!("{base}.class"),
        _ => t.to_string(),
    }
}

/// The expression of a value, without parentheses, `!!` and annotations.
fn unwrap_value(mut node: Node<'_>) -> Node<'_> {
    for _ in 0..MAX_RECEIVER_DEPTH {
        match node.kind_name(&KINDS) {
            "parenthesized_expression" | "annotated_expression" | "value_argument" => {
                match children(node).last() {
                    Some(inner) => node = *inner,
                    None => break,
                }
            }
            "unary_expression" if has_token(node, "!!") => match node.child_by_field(&FIELDS, "argument") {
                Some(inner) => node = inner,
                None => break,
            },
            _ => break,
        }
    }
    node
}

/// The text of an expression made of string literals alone.
fn fixed_text(e: &Expr) -> Option<String> {
    match e {
        Expr::Str(s) => Some(s.clone()),
        Expr::Concat(parts) => parts
            .iter()
            .map(fixed_text)
            .collect::<Option<Vec<_>>>()
            .map(|v| v.concat()),
        _ => None,
    }
}

/// `a.b.C` → `Field(Field(Name(a), b), C)`.
fn dotted_receiver(text: &str) -> Receiver {
    let mut parts = text.split('.').map(|p| p.trim().to_string());
    let Some(first) = parts.next() else {
        return Receiver::Other;
    };
    parts.fold(Receiver::Name(first), |acc, part| {
        Receiver::Field(Box::new(acc), part)
    })
}
