//! The language-neutral facts of code: what one source file declares and calls, with no
//! syntax tree attached.
//!
//! Every code front-end (`lang/java`, and any language after it) turns a file into a
//! [`CodeFile`]; everything downstream — resolution over the product's symbol table, the
//! framework recognisers, emit — reads these facts only, never a syntax tree, so a new
//! language is a front-end that fills them. The names are the JVM's (types, methods,
//! fields, annotations), which is what every language semgraph reads compiles to.
//!
//! Types are kept as written (`List<Order>`, `Map.Entry`): binding a written name to a
//! type is resolution's job, with the file's imports. Expressions are kept where later
//! stages need them: call sites with their receivers and arguments, and [`Expr`] trees of
//! arguments, initializers and assignments for evaluating URLs, topics and SQL.

/// The language a source file is written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) enum Language {
    /// Java.
    #[default]
    Java,
}

impl Language {
    /// The name counters and file kinds use.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Language::Java => "java",
        }
    }
}

/// Everything one source file declares and calls, with no syntax tree attached.
#[derive(Debug, Clone, Default)]
pub(crate) struct CodeFile {
    pub(crate) path: String,
    /// The language the file is written in.
    pub(crate) language: Language,
    /// Dotted package name; empty for the default package.
    pub(crate) package: String,
    pub(crate) imports: Vec<Import>,
    /// Every type of the file, nested, local and anonymous ones included, outer first.
    pub(crate) types: Vec<TypeDecl>,
    /// `(line, message)` for each syntax error tree-sitter recovered from.
    pub(crate) diagnostics: Vec<(usize, String)>,
    /// Set when the front-end gave up on the file (its parse went over budget): the
    /// reason, for the warning; the file has no facts then.
    pub(crate) over_budget: Option<String>,
}

/// One `import` line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// The dotted path as written, without `.*`.
    pub(crate) path: String,
    pub(crate) is_static: bool,
    pub(crate) wildcard: bool,
    pub(crate) line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// A class, interface, enum, record or annotation type.
#[derive(Debug, Clone)]
pub(crate) struct TypeDecl {
    /// `package.Outer.Inner`; anonymous classes are `package.Outer$1`.
    pub(crate) fqn: String,
    /// Simple name (`Inner`, or `$1` for an anonymous class).
    pub(crate) name: String,
    pub(crate) kind: TypeKind,
    /// fqn of the enclosing type for nested, local and anonymous types.
    pub(crate) outer: Option<String>,
    pub(crate) anonymous: bool,
    pub(crate) modifiers: Vec<String>,
    pub(crate) annotations: Vec<Annotation>,
    pub(crate) type_params: Vec<String>,
    /// Superclass (classes, anonymous classes) or super-interfaces (interfaces), as written.
    pub(crate) extends: Vec<String>,
    pub(crate) implements: Vec<String>,
    pub(crate) fields: Vec<FieldDecl>,
    pub(crate) methods: Vec<MethodDecl>,
    pub(crate) enum_constants: Vec<String>,
    /// `static final String` constants: name and literal value.
    pub(crate) constants: Vec<(String, String)>,
    /// Each field declared with an initializer: name and the initializer's expression.
    pub(crate) field_inits: Vec<(String, Expr)>,
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
}

/// An annotation: its name as written and each argument as `(key, values)`; a lone value
/// has key `value`, string literals are unquoted and arrays are split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Annotation {
    pub(crate) name: String,
    pub(crate) args: Vec<(String, Vec<String>)>,
    /// The same arguments as expression trees, for the value evaluator (a constant named
    /// in an annotation, `ServiceNames.BILLING`, is a value, not a text).
    pub(crate) exprs: Vec<(String, Vec<Expr>)>,
}

#[derive(Debug, Clone)]
pub(crate) struct FieldDecl {
    pub(crate) name: String,
    pub(crate) ty: String,
    pub(crate) modifiers: Vec<String>,
    pub(crate) annotations: Vec<Annotation>,
    pub(crate) line: usize,
}

#[derive(Debug, Clone)]
pub(crate) struct Param {
    pub(crate) name: String,
    /// Declared type as written (`List<String>`, `String...` is recorded as `String[]`).
    pub(crate) ty: String,
    /// Annotations on the parameter (`@Value("${key}")`, `@PathVariable`…).
    pub(crate) annotations: Vec<Annotation>,
}

/// A method or constructor (constructors are named `<init>`).
#[derive(Debug, Clone, Default)]
pub(crate) struct MethodDecl {
    pub(crate) name: String,
    pub(crate) params: Vec<Param>,
    pub(crate) varargs: bool,
    /// `None` for constructors.
    pub(crate) return_type: Option<String>,
    pub(crate) annotations: Vec<Annotation>,
    pub(crate) modifiers: Vec<String>,
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
    pub(crate) has_body: bool,
    /// Synthesized from a record header (accessors, canonical constructor).
    pub(crate) implicit: bool,
    pub(crate) locals: Vec<Local>,
    pub(crate) calls: Vec<CallSite>,
    /// String literals of the body with their line.
    pub(crate) strings: Vec<(usize, String)>,
    /// Locals declared with an initializer: name, scope (as in [`Local`]) and value.
    pub(crate) local_inits: Vec<(String, (usize, usize), Expr)>,
    /// `x = value` and `this.x = value` in the body: the assigned name and the value.
    pub(crate) assignments: Vec<(String, Expr)>,
    /// Locals initialised with string literals joined by `+` and never assigned again:
    /// name, byte scope and value (SQL is often built this way before it is run).
    pub(crate) string_locals: Vec<(String, (usize, usize), String)>,
}

/// A local variable or lambda parameter, visible in the byte range `scope`.
#[derive(Debug, Clone)]
pub(crate) struct Local {
    pub(crate) name: String,
    /// Declared type; `None` when not written and not inferable (`var x = f()`, `x -> ...`).
    pub(crate) ty: Option<String>,
    pub(crate) scope: (usize, usize),
    /// For the parameter of a one-parameter lambda passed to `recv.method(...)`: the
    /// receiver and method, so the resolver can type it as the element type of `recv`
    /// (`orders.forEach(o -> ...)`, `list.stream().filter(x -> ...)`).
    pub(crate) lambda_source: Option<(Receiver, String)>,
    /// For `var x = <call, name or field access>`: the initializer, typed by the resolver.
    pub(crate) init: Option<Receiver>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallKind {
    Method,
    /// `new X(...)`.
    Constructor,
    /// `X::m`, `this::m`, `obj::m`, `X::new` (name `<init>`).
    MethodRef,
    /// `super(...)`.
    SuperCall,
    /// `this(...)`.
    ThisCall,
}

/// What a call is made on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// Implicit `this`, or a statically imported method.
    None,
    This,
    Super,
    /// A local, parameter, field or type name.
    Name(String),
    /// The result of another call (`a.b().c()`).
    Call(Box<CallSite>),
    /// `x.f` where `x` is itself a receiver (also `pkg.Type` and `Outer.Inner`).
    Field(Box<Receiver>, String),
    /// `new X(...)`.
    New(String),
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CallSite {
    pub(crate) line: usize,
    /// Byte offset, to find the locals in scope.
    pub(crate) byte: usize,
    pub(crate) name: String,
    pub(crate) receiver: Receiver,
    pub(crate) arg_count: usize,
    /// Argument types where the syntax tells (literals, `new X()`, casts, locals, params).
    pub(crate) arg_types: Vec<Option<String>>,
    /// The shape of each argument whose type the syntax alone does not tell (a name, a
    /// field access, a call), for typing at resolution time; `Receiver::Other` otherwise.
    pub(crate) arg_exprs: Vec<Receiver>,
    /// Each argument as written (at most 4096 bytes): string literals, constants and
    /// config-bound fields name topics, URLs and SQL.
    pub(crate) arg_texts: Vec<String>,
    /// Each argument's expression tree, for evaluating URLs and topic names.
    pub(crate) arg_values: Vec<Expr>,
    pub(crate) kind: CallKind,
    /// For a method reference passed to a well-known functional method (`map`, `forEach`,
    /// `reduce`...): how many arguments the function takes.
    pub(crate) arity_hint: Option<usize>,
}

/// `List<Map<K, V>>[]` → `List[]`; `a.b.C<T>` → `a.b.C`; varargs `...` → `[]`.
pub(crate) fn erase(ty: &str) -> String {
    let mut out = String::with_capacity(ty.len());
    let mut depth = 0usize;
    for c in ty.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            c if depth == 0 && !c.is_whitespace() => out.push(c),
            _ => {}
        }
    }
    if let Some(base) = out.strip_suffix("...") {
        return format!("{base}[]");
    }
    // Drop annotations written inside a type (`@NonNull String`).
    if out.starts_with('@') {
        if let Some(pos) = ty.rfind(char::is_whitespace) {
            return erase(&ty[pos + 1..]);
        }
    }
    out
}

/// The simple name of an erased type: `java.util.Map.Entry` → `Entry`.
pub(crate) fn simple_name(ty: &str) -> String {
    let erased = erase(ty);
    match erased.rfind('.') {
        Some(pos) => erased[pos + 1..].to_string(),
        None => erased,
    }
}

/// The shape of an expression, as far as naming things (URLs, topics, SQL) needs it.
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

impl MethodDecl {
    /// The innermost local (or lambda parameter) `name` visible at `byte`.
    pub(crate) fn find_local(&self, name: &str, byte: usize) -> Option<&Local> {
        self.locals
            .iter()
            .filter(|l| l.name == name && l.scope.0 <= byte && byte < l.scope.1)
            .max_by_key(|l| l.scope.0)
    }

    /// The declared type of the innermost local or parameter `name` visible at `byte`:
    /// `None` if no such variable, `Some(None)` if it exists but its type is unknown.
    pub(crate) fn lookup_local(&self, name: &str, byte: usize) -> Option<Option<String>> {
        if let Some(l) = self.find_local(name, byte) {
            return Some(l.ty.clone());
        }
        self.params
            .iter()
            .find(|p| p.name == name)
            .map(|p| Some(p.ty.clone()))
    }
}

/// The top-level type arguments of a written type: `Map<K, List<V>>` → `K`, `List<V>`.
pub(crate) fn type_args(written: &str) -> Vec<String> {
    let Some(open) = written.find('<') else {
        return Vec::new();
    };
    let close = written.rfind('>').filter(|&c| c > open).unwrap_or(written.len());
    let inner = &written[open + 1..close];
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in inner.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}
