//! Java types as the compiler sees them: the one representation the type model and the
//! call resolver share.
//!
//! A [`Ty`] is a primitive, a class type with its type arguments (wildcards included), a
//! type variable or an array. [`TypeParam`]s carry their bounds; [`MethodSig`] and
//! [`ClassSig`] are the generic signatures of methods and classes. Everything parses from
//! the JVM's own spelling (JVMS §4.7.9.1 signatures and §4.3 descriptors, which are a
//! subset of the same grammar) and renders back to it exactly ([`Ty::signature`]), and
//! displays as Java source would write it (`java.util.Map.Entry<K, V>`, `? super T`).
//! [`subst`] replaces type variables, [`erase`] computes erasures, [`Ty::simple`] spells
//! a parameter the way semgraph's method signatures do (`List`, `T`, `String[]`).
//!
//! Class names inside a `Ty` are *binary* names with dots for packages and `$` for
//! nesting (`java.util.Map$Entry`): that spelling is unambiguous, and [`ClassTy::fqn`]
//! gives the source spelling. Names are shared [`Name`]s, interned by an [`Interner`] so a
//! model of tens of thousands of classes stores `java.lang.String` once.

use std::fmt;
use std::sync::Arc;

use rustc_hash::FxHashSet;

/// A shared, immutable name (class, package, member or type variable).
pub(crate) type Name = Arc<str>;

/// Hands out one shared [`Name`] per distinct string.
#[derive(Debug, Default)]
pub(crate) struct Interner {
    names: FxHashSet<Name>,
}

impl Interner {
    /// The shared name for `s`, allocated on first use.
    pub(crate) fn intern(&mut self, s: &str) -> Name {
        if let Some(n) = self.names.get(s) {
            return n.clone();
        }
        let n: Name = Arc::from(s);
        self.names.insert(n.clone());
        n
    }

    /// Makes `name` the shared copy of its text: the one interned before, else `name`
    /// itself, kept for the next.
    pub(crate) fn share(&mut self, name: &mut Name) {
        match self.names.get(&**name) {
            Some(shared) => *name = shared.clone(),
            None => {
                self.names.insert(name.clone());
            }
        }
    }

    /// How many distinct names were interned.
    pub(crate) fn len(&self) -> usize {
        self.names.len()
    }

    /// Bytes held by the interned strings themselves.
    pub(crate) fn string_bytes(&self) -> usize {
        self.names.iter().map(|n| n.len()).sum()
    }
}

/// The eight primitive types, and `void` (which only ever appears as a return type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Prim {
    Boolean,
    Byte,
    Char,
    Short,
    Int,
    Long,
    Float,
    Double,
    Void,
}

impl Prim {
    /// The descriptor letter (`I` for `int`).
    pub(crate) fn descriptor(self) -> char {
        match self {
            Prim::Boolean => 'Z',
            Prim::Byte => 'B',
            Prim::Char => 'C',
            Prim::Short => 'S',
            Prim::Int => 'I',
            Prim::Long => 'J',
            Prim::Float => 'F',
            Prim::Double => 'D',
            Prim::Void => 'V',
        }
    }

    fn from_descriptor(c: u8) -> Option<Prim> {
        Some(match c {
            b'Z' => Prim::Boolean,
            b'B' => Prim::Byte,
            b'C' => Prim::Char,
            b'S' => Prim::Short,
            b'I' => Prim::Int,
            b'J' => Prim::Long,
            b'F' => Prim::Float,
            b'D' => Prim::Double,
            b'V' => Prim::Void,
            _ => return None,
        })
    }

    /// The Java keyword (`int`).
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Prim::Boolean => "boolean",
            Prim::Byte => "byte",
            Prim::Char => "char",
            Prim::Short => "short",
            Prim::Int => "int",
            Prim::Long => "long",
            Prim::Float => "float",
            Prim::Double => "double",
            Prim::Void => "void",
        }
    }

    /// The primitive a Java keyword names.
    pub(crate) fn from_keyword(word: &str) -> Option<Prim> {
        Some(match word {
            "boolean" => Prim::Boolean,
            "byte" => Prim::Byte,
            "char" => Prim::Char,
            "short" => Prim::Short,
            "int" => Prim::Int,
            "long" => Prim::Long,
            "float" => Prim::Float,
            "double" => Prim::Double,
            "void" => Prim::Void,
            _ => return None,
        })
    }

    /// The binary name of the box class (`java.lang.Integer` for `int`); `None` for `void`.
    pub(crate) fn boxed(self) -> Option<&'static str> {
        Some(match self {
            Prim::Boolean => "java.lang.Boolean",
            Prim::Byte => "java.lang.Byte",
            Prim::Char => "java.lang.Character",
            Prim::Short => "java.lang.Short",
            Prim::Int => "java.lang.Integer",
            Prim::Long => "java.lang.Long",
            Prim::Float => "java.lang.Float",
            Prim::Double => "java.lang.Double",
            Prim::Void => return None,
        })
    }

    /// The primitive a box class unboxes to.
    pub(crate) fn unboxed(binary: &str) -> Option<Prim> {
        Some(match binary {
            "java.lang.Boolean" => Prim::Boolean,
            "java.lang.Byte" => Prim::Byte,
            "java.lang.Character" => Prim::Char,
            "java.lang.Short" => Prim::Short,
            "java.lang.Integer" => Prim::Int,
            "java.lang.Long" => Prim::Long,
            "java.lang.Float" => Prim::Float,
            "java.lang.Double" => Prim::Double,
            _ => return None,
        })
    }

    /// Whether a value of `self` converts to `to` by identity or widening primitive
    /// conversion (JLS §5.1.2): `int` → `long`, `float`, `double`; `char` → `int`…
    pub(crate) fn widens_to(self, to: Prim) -> bool {
        use Prim::*;
        self == to
            || matches!(
                (self, to),
                (Byte, Short | Int | Long | Float | Double)
                    | (Short, Int | Long | Float | Double)
                    | (Char, Int | Long | Float | Double)
                    | (Int, Long | Float | Double)
                    | (Long, Float | Double)
                    | (Float, Double)
            )
    }
}

/// A type as Java and the JVM's signatures know it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Prim(Prim),
    Class(ClassTy),
    /// A type variable (`T`), named as declared.
    Var(Name),
    /// An array of the element type.
    Array(Box<Ty>),
}

/// A class or interface type with its type arguments: `java.util.Map<K, V>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ClassTy {
    /// Binary name, dotted package, `$` before each nested name: `java.util.Map$Entry`.
    pub(crate) name: Name,
    /// Type arguments of this class itself (empty for a non-generic or raw type).
    pub(crate) args: Box<[TyArg]>,
    /// The enclosing type *as parameterised*, for an inner class of a generic class
    /// (`Outer<String>.Inner`); `None` whenever no enclosing type has type arguments.
    pub(crate) outer: Option<Box<ClassTy>>,
}

/// One type argument.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum TyArg {
    /// `?`
    Wildcard,
    /// `? extends T`
    Extends(Ty),
    /// `? super T`
    Super(Ty),
    /// `T`
    Exact(Ty),
}

/// A declared type parameter and its bounds (`T extends Number & Comparable<T>`).
///
/// `bounds` lists the class bound first when there is one, then the interface bounds; it
/// is never empty once parsed (an absent class bound with no interface bound is written
/// `T:Ljava/lang/Object;` by javac and parses as such).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct TypeParam {
    pub(crate) name: Name,
    /// Whether the signature gave a class bound (`T:Lx;`) rather than only interface
    /// bounds (`T::Lx;`); kept so rendering gives back the very same signature.
    pub(crate) has_class_bound: bool,
    pub(crate) bounds: Vec<Ty>,
}

impl TypeParam {
    /// Makes every name of this parameter the interner's shared copy.
    pub(crate) fn share_names(&mut self, names: &mut Interner) {
        names.share(&mut self.name);
        for bound in &mut self.bounds {
            bound.share_names(names);
        }
    }
}

/// A method's generic signature.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct MethodSig {
    pub(crate) type_params: Vec<TypeParam>,
    pub(crate) params: Vec<Ty>,
    /// `Ty::Prim(Prim::Void)` for `void`.
    pub(crate) ret: Ty,
    pub(crate) throws: Vec<Ty>,
}

/// A class's generic signature: its type parameters and supertypes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ClassSig {
    pub(crate) type_params: Vec<TypeParam>,
    pub(crate) superclass: ClassTy,
    pub(crate) interfaces: Vec<ClassTy>,
}

/// A signature or descriptor that does not follow JVMS §4.7.9.1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed signature {text:?} at byte {at}: {what}")]
pub(crate) struct SignatureError {
    pub(crate) text: String,
    pub(crate) at: usize,
    pub(crate) what: &'static str,
}

impl Ty {
    /// Makes every name of this type the interner's shared copy (see [`Interner::share`]).
    pub(crate) fn share_names(&mut self, names: &mut Interner) {
        match self {
            Ty::Prim(_) => {}
            Ty::Class(c) => c.share_names(names),
            Ty::Var(n) => names.share(n),
            Ty::Array(element) => element.share_names(names),
        }
    }

    /// `java.lang.Object`.
    pub(crate) fn object() -> Ty {
        Ty::class("java.lang.Object")
    }

    /// Whether this is `java.lang.Object`.
    pub(crate) fn is_object(&self) -> bool {
        matches!(self, Ty::Class(c) if &*c.name == "java.lang.Object" && c.args.is_empty())
    }

    /// A non-generic class type from its binary name.
    pub(crate) fn class(binary: &str) -> Ty {
        Ty::Class(ClassTy::plain(Arc::from(binary)))
    }

    /// The class type, if this is one.
    pub(crate) fn as_class(&self) -> Option<&ClassTy> {
        match self {
            Ty::Class(c) => Some(c),
            _ => None,
        }
    }

    /// Whether this is a primitive (or `void`).
    pub(crate) fn is_primitive(&self) -> bool {
        matches!(self, Ty::Prim(_))
    }

    /// The JVM signature of this type (a descriptor when the type has no generics):
    /// `Ljava/util/List<Ljava/lang/String;>;`, `[I`, `TT;`.
    pub(crate) fn signature(&self) -> String {
        let mut out = String::new();
        write_sig(self, &mut out);
        out
    }

    /// The parameter spelling of semgraph's method signatures: erasure of type arguments,
    /// the last name of a class (`Map$Entry` → `Entry`), type variables as written,
    /// arrays as `[]` (`List`, `T`, `Entry`, `String[]`, `int`).
    pub(crate) fn simple(&self) -> String {
        match self {
            Ty::Prim(p) => p.keyword().to_string(),
            Ty::Class(c) => c.simple_name().to_string(),
            Ty::Var(v) => v.to_string(),
            Ty::Array(e) => format!("{}[]", e.simple()),
        }
    }
}

impl ClassTy {
    /// Makes every name of this type the interner's shared copy (see [`Interner::share`]).
    pub(crate) fn share_names(&mut self, names: &mut Interner) {
        names.share(&mut self.name);
        for arg in self.args.iter_mut() {
            match arg {
                TyArg::Wildcard => {}
                TyArg::Extends(t) | TyArg::Super(t) | TyArg::Exact(t) => t.share_names(names),
            }
        }
        if let Some(outer) = &mut self.outer {
            outer.share_names(names);
        }
    }

    /// A class type with no type arguments.
    pub(crate) fn plain(name: Name) -> ClassTy {
        ClassTy {
            name,
            args: Box::new([]),
            outer: None,
        }
    }

    /// The source spelling of the class name: `java.util.Map.Entry`.
    pub(crate) fn fqn(&self) -> String {
        self.name.replace('$', ".")
    }

    /// The last name of the class (`Entry` for `java.util.Map$Entry`).
    pub(crate) fn simple_name(&self) -> &str {
        let n: &str = &self.name;
        n.rsplit(['.', '$']).next().unwrap_or(n)
    }

    /// Whether any level of this type has type arguments.
    pub(crate) fn is_parameterized(&self) -> bool {
        !self.args.is_empty() || self.outer.as_ref().is_some_and(|o| o.is_parameterized())
    }
}

impl MethodSig {
    /// The method descriptor of the erasure, given the type parameters of the declaring
    /// class (method type parameters are this signature's own): `(Ljava/lang/Object;)Z`.
    pub(crate) fn erased_descriptor(&self, class_params: &[TypeParam]) -> String {
        let scopes: [&[TypeParam]; 2] = [&self.type_params, class_params];
        let mut out = String::from("(");
        for p in &self.params {
            write_sig(&erase(p, &scopes), &mut out);
        }
        out.push(')');
        write_sig(&erase(&self.ret, &scopes), &mut out);
        out
    }

    /// The JVM signature: `<T:Ljava/lang/Object;>(TT;)V`.
    pub(crate) fn signature(&self) -> String {
        let mut out = String::new();
        write_type_params(&self.type_params, &mut out);
        out.push('(');
        for p in &self.params {
            write_sig(p, &mut out);
        }
        out.push(')');
        write_sig(&self.ret, &mut out);
        for t in &self.throws {
            out.push('^');
            write_sig(t, &mut out);
        }
        out
    }
}

impl ClassSig {
    /// The JVM signature: `<E:Ljava/lang/Object;>Ljava/util/AbstractList<TE;>;…`.
    pub(crate) fn signature(&self) -> String {
        let mut out = String::new();
        write_type_params(&self.type_params, &mut out);
        write_class_sig(&self.superclass, &mut out);
        for i in &self.interfaces {
            write_class_sig(i, &mut out);
        }
        out
    }
}

// ---------------------------------------------------------------------------------------
// Parsing

/// Parses a field signature, a field descriptor or any JavaTypeSignature (`I`,
/// `Ljava/util/List<TT;>;`, `[TT;`).
pub(crate) fn parse_type(text: &str, names: &mut Interner) -> Result<Ty, SignatureError> {
    let mut p = Parser::new(text, names);
    let t = p.java_type()?;
    p.end()?;
    Ok(t)
}

/// Parses a method signature or a method descriptor (`(ILjava/lang/String;)V`).
pub(crate) fn parse_method(text: &str, names: &mut Interner) -> Result<MethodSig, SignatureError> {
    let mut p = Parser::new(text, names);
    let type_params = p.type_params()?;
    p.expect(b'(', "expected '('")?;
    let mut params = Vec::new();
    while p.peek() != Some(b')') {
        if p.peek().is_none() {
            return Err(p.err("unterminated parameters"));
        }
        params.push(p.java_type()?);
    }
    p.pos += 1;
    let ret = p.result_type()?;
    let mut throws = Vec::new();
    while p.peek() == Some(b'^') {
        p.pos += 1;
        throws.push(p.reference_type()?);
    }
    p.end()?;
    Ok(MethodSig {
        type_params,
        params,
        ret,
        throws,
    })
}

/// Parses a class signature (`<T:Ljava/lang/Object;>Ljava/lang/Object;Ljava/lang/Comparable<TT;>;`).
pub(crate) fn parse_class(text: &str, names: &mut Interner) -> Result<ClassSig, SignatureError> {
    let mut p = Parser::new(text, names);
    let type_params = p.type_params()?;
    let superclass = p.class_type()?;
    let mut interfaces = Vec::new();
    while p.peek().is_some() {
        interfaces.push(p.class_type()?);
    }
    Ok(ClassSig {
        type_params,
        superclass,
        interfaces,
    })
}

/// Parses a class name as the constant pool holds it (`java/util/Map$Entry`, or an array
/// descriptor `[Ljava/lang/String;` for the owner of an array method).
pub(crate) fn parse_internal_name(text: &str, names: &mut Interner) -> Result<Ty, SignatureError> {
    if text.starts_with('[') {
        return parse_type(text, names);
    }
    if text.is_empty()
        || text
            .bytes()
            .any(|b| matches!(b, b'.' | b';' | b'[' | b'<' | b'>'))
    {
        return Err(SignatureError {
            text: text.to_string(),
            at: 0,
            what: "not an internal class name",
        });
    }
    Ok(Ty::Class(ClassTy::plain(names.intern(&text.replace('/', ".")))))
}

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    names: &'a mut Interner,
    /// Reused buffer for binary names.
    buf: String,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str, names: &'a mut Interner) -> Parser<'a> {
        Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            names,
            buf: String::new(),
        }
    }

    fn err(&self, what: &'static str) -> SignatureError {
        SignatureError {
            text: self.text.to_string(),
            at: self.pos,
            what,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn expect(&mut self, b: u8, what: &'static str) -> Result<(), SignatureError> {
        if self.peek() == Some(b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    fn end(&self) -> Result<(), SignatureError> {
        if self.pos == self.bytes.len() {
            Ok(())
        } else {
            Err(self.err("trailing characters"))
        }
    }

    /// An Identifier: anything up to one of `. ; [ / < > :`.
    fn identifier(&mut self) -> Result<&'a str, SignatureError> {
        let start = self.pos;
        while let Some(b) = self.peek() {
            if matches!(b, b'.' | b';' | b'[' | b'/' | b'<' | b'>' | b':') {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            return Err(self.err("expected an identifier"));
        }
        // Every stop byte is ASCII, so `start..pos` falls on character boundaries.
        Ok(&self.text[start..self.pos])
    }

    /// A JavaTypeSignature; `void` is refused here (see [`Parser::result_type`]).
    fn java_type(&mut self) -> Result<Ty, SignatureError> {
        match self.peek().and_then(Prim::from_descriptor) {
            Some(Prim::Void) => Err(self.err("void is only a return type")),
            Some(p) => {
                self.pos += 1;
                Ok(Ty::Prim(p))
            }
            None => self.reference_type(),
        }
    }

    /// A method's Result: a JavaTypeSignature or `V`.
    fn result_type(&mut self) -> Result<Ty, SignatureError> {
        if self.peek() == Some(b'V') {
            self.pos += 1;
            return Ok(Ty::Prim(Prim::Void));
        }
        self.java_type()
    }

    fn reference_type(&mut self) -> Result<Ty, SignatureError> {
        match self.peek() {
            Some(b'L') => Ok(Ty::Class(self.class_type()?)),
            Some(b'T') => {
                self.pos += 1;
                let name = self.identifier()?;
                let name = self.names.intern(name);
                self.expect(b';', "expected ';' after a type variable")?;
                Ok(Ty::Var(name))
            }
            Some(b'[') => {
                self.pos += 1;
                let elem = self.java_type()?;
                Ok(Ty::Array(Box::new(elem)))
            }
            _ => Err(self.err("expected a type")),
        }
    }

    fn class_type(&mut self) -> Result<ClassTy, SignatureError> {
        self.expect(b'L', "expected 'L'")?;
        self.buf.clear();
        // Package segments and the first simple name.
        loop {
            let id = self.identifier()?;
            self.buf.push_str(id);
            if self.peek() == Some(b'/') {
                self.pos += 1;
                self.buf.push('.');
            } else {
                break;
            }
        }
        let mut current = ClassTy {
            name: self.names.intern(&self.buf),
            args: self.type_args()?,
            outer: None,
        };
        while self.peek() == Some(b'.') {
            self.pos += 1;
            let id = self.identifier()?;
            let name = format!("{}${}", current.name, id);
            let args = self.type_args()?;
            let outer = current.is_parameterized().then(|| Box::new(current.clone()));
            current = ClassTy {
                name: self.names.intern(&name),
                args,
                outer,
            };
        }
        self.expect(b';', "expected ';' after a class type")?;
        Ok(current)
    }

    fn type_args(&mut self) -> Result<Box<[TyArg]>, SignatureError> {
        if self.peek() != Some(b'<') {
            return Ok(Box::new([]));
        }
        self.pos += 1;
        let mut args = Vec::new();
        while self.peek() != Some(b'>') {
            let arg = match self.peek() {
                Some(b'*') => {
                    self.pos += 1;
                    TyArg::Wildcard
                }
                Some(b'+') => {
                    self.pos += 1;
                    TyArg::Extends(self.reference_type()?)
                }
                Some(b'-') => {
                    self.pos += 1;
                    TyArg::Super(self.reference_type()?)
                }
                None => return Err(self.err("unterminated type arguments")),
                _ => TyArg::Exact(self.reference_type()?),
            };
            args.push(arg);
        }
        self.pos += 1;
        if args.is_empty() {
            return Err(self.err("empty type arguments"));
        }
        Ok(args.into_boxed_slice())
    }

    fn type_params(&mut self) -> Result<Vec<TypeParam>, SignatureError> {
        if self.peek() != Some(b'<') {
            return Ok(Vec::new());
        }
        self.pos += 1;
        let mut params = Vec::new();
        while self.peek() != Some(b'>') {
            if self.peek().is_none() {
                return Err(self.err("unterminated type parameters"));
            }
            let name = self.identifier()?;
            let name = self.names.intern(name);
            self.expect(b':', "expected ':' before a class bound")?;
            let mut bounds = Vec::new();
            let has_class_bound = !matches!(self.peek(), Some(b':') | Some(b'>'));
            if has_class_bound {
                bounds.push(self.reference_type()?);
            }
            while self.peek() == Some(b':') {
                self.pos += 1;
                bounds.push(self.reference_type()?);
            }
            if bounds.is_empty() {
                return Err(self.err("type parameter without a bound"));
            }
            params.push(TypeParam {
                name,
                has_class_bound,
                bounds,
            });
        }
        self.pos += 1;
        if params.is_empty() {
            return Err(self.err("empty type parameters"));
        }
        Ok(params)
    }
}

// ---------------------------------------------------------------------------------------
// Rendering

fn write_sig(t: &Ty, out: &mut String) {
    match t {
        Ty::Prim(p) => out.push(p.descriptor()),
        Ty::Class(c) => write_class_sig(c, out),
        Ty::Var(v) => {
            out.push('T');
            out.push_str(v);
            out.push(';');
        }
        Ty::Array(e) => {
            out.push('[');
            write_sig(e, out);
        }
    }
}

fn write_class_sig(c: &ClassTy, out: &mut String) {
    out.push('L');
    write_class_body(c, out);
    out.push(';');
}

/// The part of a class type signature between `L` and `;`.
fn write_class_body(c: &ClassTy, out: &mut String) {
    match &c.outer {
        Some(outer) if c.name.len() > outer.name.len() + 1 && c.name.starts_with(&*outer.name) => {
            write_class_body(outer, out);
            out.push('.');
            out.push_str(&c.name[outer.name.len() + 1..]);
        }
        _ => out.push_str(&c.name.replace('.', "/")),
    }
    if !c.args.is_empty() {
        out.push('<');
        for a in c.args.iter() {
            match a {
                TyArg::Wildcard => out.push('*'),
                TyArg::Extends(t) => {
                    out.push('+');
                    write_sig(t, out);
                }
                TyArg::Super(t) => {
                    out.push('-');
                    write_sig(t, out);
                }
                TyArg::Exact(t) => write_sig(t, out),
            }
        }
        out.push('>');
    }
}

fn write_type_params(params: &[TypeParam], out: &mut String) {
    if params.is_empty() {
        return;
    }
    out.push('<');
    for p in params {
        out.push_str(&p.name);
        let mut bounds = p.bounds.iter();
        out.push(':');
        if p.has_class_bound {
            if let Some(b) = bounds.next() {
                write_sig(b, out);
            }
        }
        for b in bounds {
            out.push(':');
            write_sig(b, out);
        }
    }
    out.push('>');
}

/// Java source spelling: `java.util.Map.Entry<K, V>`, `int[]`, `? extends T`.
impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Prim(p) => f.write_str(p.keyword()),
            Ty::Class(c) => c.fmt(f),
            Ty::Var(v) => f.write_str(v),
            Ty::Array(e) => write!(f, "{e}[]"),
        }
    }
}

impl fmt::Display for ClassTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.outer {
            Some(outer) if self.name.len() > outer.name.len() + 1 && self.name.starts_with(&*outer.name) => {
                write!(
                    f,
                    "{outer}.{}",
                    self.name[outer.name.len() + 1..].replace('$', ".")
                )?;
            }
            _ => f.write_str(&self.fqn())?,
        }
        if !self.args.is_empty() {
            f.write_str("<")?;
            for (i, a) in self.args.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{a}")?;
            }
            f.write_str(">")?;
        }
        Ok(())
    }
}

impl fmt::Display for TyArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TyArg::Wildcard => f.write_str("?"),
            TyArg::Extends(t) => write!(f, "? extends {t}"),
            TyArg::Super(t) => write!(f, "? super {t}"),
            TyArg::Exact(t) => write!(f, "{t}"),
        }
    }
}

impl fmt::Display for TypeParam {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        let shown: Vec<String> = self
            .bounds
            .iter()
            .filter(|b| **b != Ty::object())
            .map(|b| b.to_string())
            .collect();
        if !shown.is_empty() {
            write!(f, " extends {}", shown.join(" & "))?;
        }
        Ok(())
    }
}

/// `<T extends Comparable<T>> T (java.util.List<T>, int)`: the method without its name.
impl fmt::Display for MethodSig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.type_params.is_empty() {
            let ps: Vec<String> = self.type_params.iter().map(|p| p.to_string()).collect();
            write!(f, "<{}> ", ps.join(", "))?;
        }
        let params: Vec<String> = self.params.iter().map(|p| p.to_string()).collect();
        write!(f, "{} ({})", self.ret, params.join(", "))
    }
}

// ---------------------------------------------------------------------------------------
// Substitution and erasure

/// A binding of type variables to type arguments, with the upper bound each variable has
/// when it is bound to a wildcard (`? super X` and `?` give no usable upper bound beyond
/// the variable's declared one).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Subst {
    entries: Vec<(Name, TyArg, Ty)>,
}

impl Subst {
    /// No bindings: [`subst`] with it is the identity.
    pub(crate) fn empty() -> Subst {
        Subst::default()
    }

    /// Whether nothing is bound.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Binds `name` to `arg`; `upper` is what a bare use of the variable becomes when
    /// `arg` is `?` or `? super X` (the erasure of its declared bound, usually `Object`).
    pub(crate) fn bind(&mut self, name: Name, arg: TyArg, upper: Ty) {
        self.entries.retain(|(n, ..)| *n != name);
        self.entries.push((name, arg, upper));
    }

    /// Binds `name` to exactly `ty`.
    pub(crate) fn bind_exact(&mut self, name: Name, ty: Ty) {
        self.bind(name, TyArg::Exact(ty), Ty::object());
    }

    /// The bindings of a class's type parameters by the type arguments of `ty`. A raw
    /// type (no arguments, or the wrong number) binds each parameter to its erasure, as
    /// javac treats the members of a raw type.
    pub(crate) fn for_class(params: &[TypeParam], ty: &ClassTy) -> Subst {
        let mut s = Subst::empty();
        let raw = ty.args.len() != params.len();
        for (i, p) in params.iter().enumerate() {
            let upper = erase(&Ty::Var(p.name.clone()), &[params]);
            let arg = if raw {
                TyArg::Exact(upper.clone())
            } else {
                ty.args[i].clone()
            };
            s.bind(p.name.clone(), arg, upper);
        }
        s
    }

    /// What `name` is bound to.
    pub(crate) fn get(&self, name: &str) -> Option<&TyArg> {
        self.entries
            .iter()
            .find(|(n, ..)| &**n == name)
            .map(|(_, a, _)| a)
    }

    /// Every binding: variable, argument and the upper bound of a wildcard binding.
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Name, &TyArg, &Ty)> {
        self.entries.iter().map(|(n, a, u)| (n, a, u))
    }

    /// `self` followed by `then`: each bound argument is substituted by `then`, and the
    /// variables `then` binds that `self` does not are added.
    pub(crate) fn compose(&self, then: &Subst) -> Subst {
        let mut out = Subst::empty();
        for (n, a, u) in &self.entries {
            out.entries.push((n.clone(), subst_arg(a, then), subst(u, then)));
        }
        for (n, a, u) in &then.entries {
            if self.get(n).is_none() {
                out.entries.push((n.clone(), a.clone(), u.clone()));
            }
        }
        out
    }

    fn lookup(&self, name: &str) -> Option<(&TyArg, &Ty)> {
        self.entries
            .iter()
            .find(|(n, ..)| &**n == name)
            .map(|(_, a, u)| (a, u))
    }
}

/// `ty` with its type variables replaced by their bindings in `s`. A variable used bare
/// and bound to a wildcard becomes the wildcard's upper bound (`T` under `T := ? extends
/// Number` is `Number`; under `? super X` or `?`, the variable's declared upper bound) —
/// the type a value read from such a position has. Unbound variables stay.
pub(crate) fn subst(ty: &Ty, s: &Subst) -> Ty {
    if s.is_empty() {
        return ty.clone();
    }
    match ty {
        Ty::Prim(_) => ty.clone(),
        Ty::Var(v) => match s.lookup(v) {
            Some((TyArg::Exact(t) | TyArg::Extends(t), _)) => t.clone(),
            Some((TyArg::Super(_) | TyArg::Wildcard, upper)) => upper.clone(),
            None => ty.clone(),
        },
        Ty::Array(e) => Ty::Array(Box::new(subst(e, s))),
        Ty::Class(c) => Ty::Class(subst_class(c, s)),
    }
}

/// [`subst`] of a class type.
pub(crate) fn subst_class(c: &ClassTy, s: &Subst) -> ClassTy {
    if s.is_empty() {
        return c.clone();
    }
    ClassTy {
        name: c.name.clone(),
        args: c.args.iter().map(|a| subst_arg(a, s)).collect(),
        outer: c.outer.as_ref().map(|o| Box::new(subst_class(o, s))),
    }
}

fn subst_arg(a: &TyArg, s: &Subst) -> TyArg {
    // A variable in argument position passes its binding through, wildcards included:
    // `List<T>` under `T := ? extends Number` is `List<? extends Number>`. An unbounded
    // wildcard passes on the variable's own bound, as capture conversion gives it (JLS
    // §5.1.10): `Base<SELF>` under `SELF := ?` of `Sub<SELF extends Sub<SELF>>` is
    // `Base<? extends Sub>`, so a self type read through it is still `Sub`.
    let var_binding = |t: &Ty| match t {
        Ty::Var(v) => s.lookup(v).map(|(a, upper)| match a {
            TyArg::Wildcard if !upper.is_object() => TyArg::Extends(upper.clone()),
            _ => a.clone(),
        }),
        _ => None,
    };
    match a {
        TyArg::Wildcard => TyArg::Wildcard,
        TyArg::Exact(t) => var_binding(t).unwrap_or_else(|| TyArg::Exact(subst(t, s))),
        TyArg::Extends(t) => match var_binding(t) {
            Some(TyArg::Exact(x) | TyArg::Extends(x)) => TyArg::Extends(x),
            Some(TyArg::Super(_) | TyArg::Wildcard) => TyArg::Wildcard,
            None => TyArg::Extends(subst(t, s)),
        },
        TyArg::Super(t) => match var_binding(t) {
            Some(TyArg::Exact(x) | TyArg::Super(x)) => TyArg::Super(x),
            Some(TyArg::Extends(_) | TyArg::Wildcard) => TyArg::Wildcard,
            None => TyArg::Super(subst(t, s)),
        },
    }
}

/// The erasure of `ty` (JLS §4.6): type arguments dropped, a type variable replaced by the
/// erasure of its leftmost bound. `scopes` are the type parameter lists in scope, innermost
/// first (a method's, then its class's, then enclosing classes'); a variable found in none
/// erases to `java.lang.Object`.
pub(crate) fn erase(ty: &Ty, scopes: &[&[TypeParam]]) -> Ty {
    erase_depth(ty, scopes, 0)
}

fn erase_depth(ty: &Ty, scopes: &[&[TypeParam]], depth: usize) -> Ty {
    match ty {
        Ty::Prim(_) => ty.clone(),
        Ty::Class(c) => Ty::Class(ClassTy::plain(c.name.clone())),
        Ty::Array(e) => Ty::Array(Box::new(erase_depth(e, scopes, depth))),
        Ty::Var(v) => {
            // A bound that is itself a variable (`<U, T extends U>`) is followed; a cycle
            // cannot compile, but a broken class file must not loop.
            let bound = scopes
                .iter()
                .find_map(|ps| ps.iter().find(|p| p.name == *v))
                .and_then(|p| p.bounds.first());
            match bound {
                Some(b) if depth < 16 => erase_depth(b, scopes, depth + 1),
                _ => Ty::object(),
            }
        }
    }
}
