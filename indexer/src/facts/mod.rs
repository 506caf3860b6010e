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

mod compact;

pub(crate) use compact::CompactVec;

/// The language a source file is written in.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub(crate) enum Language {
    /// Java.
    #[default]
    Java,
    /// Kotlin, in the JVM's view of its declarations (`lang/kotlin`).
    Kotlin,
}

impl Language {
    /// The run's counter of files in this language.
    pub(crate) fn files_counter(self) -> &'static str {
        match self {
            Language::Java => "java.files",
            Language::Kotlin => "kotlin.files",
        }
    }
}

/// Everything one source file declares and calls, with no syntax tree attached.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, Default)]
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
    /// The fqn of the class that holds the file's top-level functions and properties
    /// (Kotlin's `<File>Kt`, or its `@file:JvmName`), when the file has any.
    pub(crate) facade: Option<String>,
    /// Set when the front-end gave up on the file (its parse went over budget): the
    /// reason, for the warning; the file has no facts then.
    pub(crate) over_budget: Option<String>,
    /// Set when the front-end stopped building expression trees (its per-file budget of
    /// tree nodes was spent): the warning; the file keeps its other facts.
    pub(crate) trees_cut: Option<String>,
}

impl CodeFile {
    /// Passes every position the facts hold of where something sits — lines, byte offsets
    /// and spans of imports, syntax errors, types, fields, methods, call sites, locals,
    /// lambdas, string literals and local initialisers — through `at`. Zeroed, they leave a
    /// file's facts as a key that an edit moving its declarations does not change
    /// (`pipeline/cache.rs`); shifted, they check that what another file's facts say does
    /// not depend on them. A position inside a receiver's tree is not among them.
    pub(crate) fn map_positions(&mut self, at: impl Fn(usize) -> usize) {
        for i in &mut self.imports {
            i.line = at(i.line);
        }
        for (line, _) in &mut self.diagnostics {
            *line = at(*line);
        }
        let span = |s: &mut (usize, usize)| *s = (at(s.0), at(s.1));
        for t in &mut self.types {
            t.line_start = at(t.line_start);
            t.line_end = at(t.line_end);
            for f in &mut t.fields {
                f.line = at(f.line);
            }
            for m in t.methods.iter_mut() {
                m.line_start = at(m.line_start);
                m.line_end = at(m.line_end);
                span(&mut m.span);
                for c in m.calls.iter_mut() {
                    c.line = at(c.line);
                    c.byte = at(c.byte);
                    c.end = at(c.end);
                }
                for l in m.locals.iter_mut() {
                    span(&mut l.scope);
                    if let Some(lambda) = &mut l.lambda {
                        span(lambda);
                    }
                }
                for (line, _) in m.strings.iter_mut() {
                    *line = at(*line);
                }
                for (_, s, _) in m.local_inits.iter_mut() {
                    span(s);
                }
                for (_, s, _) in m.string_locals.iter_mut() {
                    span(s);
                }
            }
        }
    }
}

/// One `import` line.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
pub(crate) struct Import {
    /// The dotted path as written, without `.*`.
    pub(crate) path: String,
    pub(crate) is_static: bool,
    pub(crate) wildcard: bool,
    pub(crate) line: usize,
    /// The name the import binds instead of the last segment (Kotlin's `import a.B as C`).
    pub(crate) alias: Option<String>,
}

#[derive(bincode::Encode, bincode::Decode, Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypeKind {
    Class,
    Interface,
    Enum,
    Record,
    Annotation,
}

/// A class, interface, enum, record or annotation type.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone)]
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
    /// The bounds of each type parameter as written, in the order of `type_params`
    /// (`SELF extends AbstractAssert<SELF, A>` → `["AbstractAssert<SELF, A>"]`).
    pub(crate) type_param_bounds: Vec<Vec<String>>,
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
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
pub(crate) struct Annotation {
    pub(crate) name: String,
    pub(crate) args: Vec<(String, Vec<String>)>,
    /// The same arguments as expression trees, for the value evaluator (a constant named
    /// in an annotation, `ServiceNames.BILLING`, is a value, not a text).
    pub(crate) exprs: Vec<(String, Vec<Expr>)>,
}

#[derive(bincode::Encode, bincode::Decode, Debug, Clone)]
pub(crate) struct FieldDecl {
    pub(crate) name: String,
    pub(crate) ty: String,
    pub(crate) modifiers: Vec<String>,
    pub(crate) annotations: Vec<Annotation>,
    pub(crate) line: usize,
}

#[derive(bincode::Encode, bincode::Decode, Debug, Clone)]
pub(crate) struct Param {
    pub(crate) name: String,
    /// Declared type as written (`List<String>`, `String...` is recorded as `String[]`).
    pub(crate) ty: String,
    /// Annotations on the parameter (`@Value("${key}")`, `@PathVariable`…).
    pub(crate) annotations: CompactVec<Annotation>,
    /// The parameter has a default value (Kotlin), so a call may leave it out.
    pub(crate) has_default: bool,
}

/// A method or constructor (constructors are named `<init>`).
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, Default)]
pub(crate) struct MethodDecl {
    pub(crate) name: String,
    /// The method's own type parameters with their bounds as written (`<T extends
    /// Comparable<T>>` → `("T", ["Comparable<T>"])`).
    pub(crate) type_params: CompactVec<(String, Vec<String>)>,
    pub(crate) params: CompactVec<Param>,
    pub(crate) varargs: bool,
    /// `None` for constructors.
    pub(crate) return_type: Option<String>,
    pub(crate) annotations: CompactVec<Annotation>,
    pub(crate) modifiers: Vec<String>,
    pub(crate) line_start: usize,
    pub(crate) line_end: usize,
    pub(crate) has_body: bool,
    /// Synthesized from a record header (accessors, canonical constructor).
    pub(crate) implicit: bool,
    pub(crate) locals: CompactVec<Local>,
    pub(crate) calls: CompactVec<CallSite>,
    /// String literals of the body with their line.
    pub(crate) strings: CompactVec<(usize, String)>,
    /// Locals declared with an initializer: name, scope (as in [`Local`]) and value.
    pub(crate) local_inits: CompactVec<(String, (usize, usize), Expr)>,
    /// `x = value` and `this.x = value` in the body: the assigned name and the value.
    pub(crate) assignments: CompactVec<(String, Expr)>,
    /// Locals initialised with string literals joined by `+` and never assigned again:
    /// name, byte scope and value (SQL is often built this way before it is run).
    pub(crate) string_locals: CompactVec<(String, (usize, usize), String)>,
    /// Values whose type their place fixes and which hold a lambda or a method reference:
    /// a typed local's initializer, a `return` of the method, a field's initializer. The
    /// type as written and the value's tree, so the resolver can type the lambda's
    /// parameters and choose the method a reference names.
    pub(crate) typed_values: CompactVec<(String, Receiver)>,
    /// Byte range of the declaration: its parameters are visible only inside it (a
    /// constructor also holds the calls of the type's field initializers, which do not
    /// see them). `(0, 0)` when not known: the parameters are visible everywhere.
    pub(crate) span: (usize, usize),
    /// The expression of each `return` of a method returning text (`String`, `URI`,
    /// `CharSequence`), outside lambdas: a helper that builds a base URL or a topic name.
    pub(crate) returns: CompactVec<Expr>,
}

/// A local variable or lambda parameter, visible in the byte range `scope`.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone)]
pub(crate) struct Local {
    pub(crate) name: String,
    /// Declared type; `None` when not written and not inferable (`var x = f()`, `x -> ...`).
    pub(crate) ty: Option<String>,
    pub(crate) scope: (usize, usize),
    /// For the parameter of a one-parameter lambda passed to `recv.method(...)`: the
    /// receiver and method, so the resolver can type it as the element type of `recv`
    /// (`orders.forEach(o -> ...)`, `list.stream().filter(x -> ...)`).
    pub(crate) lambda_source: Option<(Receiver, String)>,
    /// For a local declared `var` (or a lambda parameter's enclosing declaration): the
    /// initializer's expression tree, typed by the resolver.
    pub(crate) init: Option<Receiver>,
    /// For a lambda parameter: the byte offset where its lambda starts (the lambda's
    /// [`Lambda::scope`] start) and the parameter's position, so the resolver types it from
    /// the functional interface the lambda is passed as.
    pub(crate) lambda: Option<(usize, usize)>,
    /// For the variable of `for (var x : xs)` (or any enhanced `for`): the iterated
    /// expression, whose element type is the variable's when none is written.
    pub(crate) element_of: Option<Receiver>,
}

#[derive(bincode::Encode, bincode::Decode, Debug, Clone, Copy, PartialEq, Eq)]
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
    /// A Kotlin property read (`x.name`, no arguments) or write (`x.name = v`, one
    /// argument): a getter or setter call when the property has one, nothing when it is a
    /// field, a type or a package (the resolver decides).
    Property,
}

/// What a call is made on.
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
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
    /// `new X(...)` (also `new X<A>(…)`, `new X<>(…)` and anonymous `new X() { … }`): the
    /// type as written, type arguments kept.
    New(String),
    Other,
    /// A literal of a primitive type or `String`: the type's name (`int`, `long`, `char`,
    /// `boolean`, `double`, `float`, `String`).
    Literal(String),
    /// `null`.
    Null,
    /// `X.class` (`int.class`, `String[].class`): the type as written.
    ClassLit(String),
    /// `(T) e`: the type as written and the operand.
    Cast(String, Box<Receiver>),
    /// `c ? a : b`: the two branches.
    Conditional(Box<Receiver>, Box<Receiver>),
    /// A lambda expression.
    Lambda(Box<Lambda>),
    /// A method reference used as a value: the byte offset of its call site (a
    /// [`CallKind::MethodRef`] site of the method's `calls`).
    MethodRef(usize),
    /// `a[i]`: the array.
    ArrayAccess(Box<Receiver>),
    /// `new T[n]`, `new T[] {…}`: the array type as written (`T[]`, `int[][]`).
    NewArray(String),
    /// `a op b` with the operator as written (`+`, `==`, `&&`, `<<`…).
    Binary(String, Box<Receiver>, Box<Receiver>),
    /// `op a` (`-`, `!`, `~`, `++`, `--`, prefix or postfix): the operator and operand.
    Unary(String, Box<Receiver>),
    /// `a = b` or `a op= b`: its value is the left side's.
    Assign(Box<Receiver>),
    /// `Outer.this`: the enclosing instance of type `Outer` (as written).
    OuterThis(String),
    /// A `switch` expression: the value of each arm (`yield`s and arrow expressions).
    Switch(Vec<Receiver>),
    /// `x instanceof T` (with or without a pattern): a `boolean`.
    InstanceOf,
}

/// A lambda expression's shape: what the resolver needs to type its parameters from the
/// functional interface it is passed as, and its result for inferring that interface's
/// type arguments (`map(o -> o.customer())` makes a `Stream<Customer>`).
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
pub(crate) struct Lambda {
    /// Byte range of the lambda (its parameters are locals of this scope).
    pub(crate) scope: (usize, usize),
    /// Each parameter: name and declared type (`None` when inferred or `var`).
    pub(crate) params: Vec<(String, Option<String>)>,
    /// An expression body.
    pub(crate) body: Option<Receiver>,
    /// The values of a block body's `return` statements (nested lambdas and classes
    /// excluded); empty for a body that returns nothing.
    pub(crate) returns: Vec<Receiver>,
    /// The body is a block.
    pub(crate) block: bool,
}

#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
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
    /// The name of each named argument (Kotlin's `f(id = 1)`), `None` for a positional one;
    /// empty when the call has none.
    pub(crate) arg_names: Vec<Option<String>>,
    pub(crate) kind: CallKind,
    /// For a method reference passed to a well-known functional method (`map`, `forEach`,
    /// `reduce`...): how many arguments the function takes.
    pub(crate) arity_hint: Option<usize>,
    /// Byte offset where the call's expression ends: with `byte`, it tells apart calls of a
    /// chain that start at the same place (`sb.append(a).append(b)`), and it says which
    /// calls hold a call in their arguments or lambdas. 0 when unknown.
    pub(crate) end: usize,
}

/// `List<Map<K, V>>[]` → `List[]`; `a.b.C<T>` → `a.b.C`; varargs `...` → `[]`.
pub(crate) fn erase(ty: &str) -> String {
    erased(ty).into_owned()
}

/// [`erase`], borrowing `ty` when there is nothing to take out: for a caller that only
/// reads the erased name.
pub(crate) fn erased(ty: &str) -> std::borrow::Cow<'_, str> {
    // Most types are written plain (`String`, `java.util.List`, `int[]`): nothing to take out.
    let plain = ty
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'$' | b'[' | b']'));
    if plain && !ty.ends_with("...") {
        return std::borrow::Cow::Borrowed(ty);
    }
    std::borrow::Cow::Owned(erase_written(ty))
}

/// [`erase`] of any type as written, character by character.
fn erase_written(ty: &str) -> String {
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
#[derive(bincode::Encode, bincode::Decode, Debug, Clone, PartialEq, Eq)]
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
    /// `cond ? a : b`: either branch (the condition is not kept).
    Choice(Vec<Expr>),
    /// `this`.
    This,
    /// Anything else (numbers, ternaries, arrays…).
    Other,
}

impl MethodDecl {
    /// The method's `signature` as the graph spells it: `name(A, B)`, each parameter's
    /// type by its erased simple name (`place(Order, List)`). Emit writes it on the method's
    /// node and the outline of a changed file compares it, so both read it from here.
    pub(crate) fn signature(&self) -> String {
        let mut out = String::with_capacity(self.name.len() + 2 + 16 * self.params.len());
        out.push_str(&self.name);
        out.push('(');
        for (i, p) in self.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&simple_name(&p.ty));
        }
        out.push(')');
        out
    }

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
        self.param_at(name, byte).map(|p| Some(p.ty.clone()))
    }

    /// The parameter `name`, if it is visible at `byte` (inside the declaration).
    pub(crate) fn param_at(&self, name: &str, byte: usize) -> Option<&Param> {
        let inside = self.span == (0, 0) || (self.span.0 <= byte && byte < self.span.1);
        if !inside {
            return None;
        }
        self.params.iter().find(|p| p.name == name)
    }
}

/// `Type.member`: the fqn of a field or method of the type `type_fqn`, as the graph and the
/// outline of a changed file both spell it.
pub(crate) fn member_fqn(type_fqn: &str, member: &str) -> String {
    let mut fqn = String::with_capacity(type_fqn.len() + 1 + member.len());
    fqn.push_str(type_fqn);
    fqn.push('.');
    fqn.push_str(member);
    fqn
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A skeleton keeps one `MethodDecl` per method of the product for the whole run, and
    /// most of its lists are empty there: those lists are one word each (`CompactVec`), so a
    /// new list field grows every method by 8 bytes, not 24.
    #[test]
    fn a_method_declaration_stays_small() {
        assert!(
            std::mem::size_of::<MethodDecl>() <= 208,
            "MethodDecl is {} bytes",
            std::mem::size_of::<MethodDecl>()
        );
    }

    #[test]
    fn a_signature_names_each_parameter_type_erased_and_simple() {
        let method = |name: &str, types: &[&str]| MethodDecl {
            name: name.to_string(),
            params: types
                .iter()
                .map(|ty| Param {
                    name: "p".into(),
                    ty: ty.to_string(),
                    annotations: Default::default(),
                    has_default: false,
                })
                .collect(),
            ..Default::default()
        };
        assert_eq!(method("run", &[]).signature(), "run()");
        assert_eq!(method("<init>", &["int"]).signature(), "<init>(int)");
        assert_eq!(
            method(
                "place",
                &["com.acme.Order", "Map<String, List<Line>>", "String..."]
            )
            .signature(),
            "place(Order, Map, String[])"
        );
        assert_eq!(member_fqn("a.b.Orders", "place"), "a.b.Orders.place");
    }

    #[test]
    fn erase_takes_out_arguments_spaces_varargs_and_annotations() {
        for (written, erased) in [
            ("String", "String"),
            ("java.util.Map.Entry", "java.util.Map.Entry"),
            ("int[]", "int[]"),
            ("Outer$Inner", "Outer$Inner"),
            ("List<String>", "List"),
            ("Map<String, List<Integer>>", "Map"),
            ("String...", "String[]"),
            ("@NonNull String", "String"),
            ("java.util. List", "java.util.List"),
        ] {
            assert_eq!(erase(written), erased, "{written}");
        }
    }

    proptest! {
        /// The shortcut for plain names answers what the character walk does.
        #[test]
        fn erase_of_a_plain_name_is_the_character_walk(ty in "[A-Za-z0-9_.$\\[\\]@<>, ]{0,24}") {
            prop_assert_eq!(erase(&ty), erase_written(&ty));
        }
    }
}
