//! Kotlin types as the JVM (and so Java code) sees them: `Int` is `int`, `Int?` and a
//! type argument `Int` are `Integer`, `List<Order>` is `java.util.List<Order>`, `Unit` is
//! `void`, `Array<String>` is `String[]`, a function type is a `kotlin.jvm.functions`
//! interface.
//!
//! A name the file imports, or declares itself, is never mapped: `import com.x.List`
//! makes `List` that type. Everything else is kept as written, for resolution to bind.

/// Kotlin's builtin types that are JVM primitives where not nullable: (name, primitive,
/// boxed).
const PRIMITIVES: &[(&str, &str, &str)] = &[
    ("Int", "int", "Integer"),
    ("Long", "long", "Long"),
    ("Short", "short", "Short"),
    ("Byte", "byte", "Byte"),
    ("Double", "double", "Double"),
    ("Float", "float", "Float"),
    ("Boolean", "boolean", "Boolean"),
    ("Char", "char", "Character"),
];

/// Kotlin builtins that are other JVM types (`kotlin.collections` read-only and mutable
/// interfaces are both `java.util`'s).
const MAPPED: &[(&str, &str)] = &[
    ("Any", "Object"),
    ("Nothing", "Void"),
    ("Unit", "void"),
    ("List", "java.util.List"),
    ("MutableList", "java.util.List"),
    ("Collection", "java.util.Collection"),
    ("MutableCollection", "java.util.Collection"),
    ("Set", "java.util.Set"),
    ("MutableSet", "java.util.Set"),
    ("Map", "java.util.Map"),
    ("MutableMap", "java.util.Map"),
    ("Map.Entry", "java.util.Map.Entry"),
    ("MutableMap.MutableEntry", "java.util.Map.Entry"),
    ("Iterator", "java.util.Iterator"),
    ("MutableIterator", "java.util.Iterator"),
    ("ListIterator", "java.util.ListIterator"),
    ("MutableIterable", "Iterable"),
    ("ArrayList", "java.util.ArrayList"),
    ("HashMap", "java.util.HashMap"),
    ("LinkedHashMap", "java.util.LinkedHashMap"),
    ("HashSet", "java.util.HashSet"),
    ("LinkedHashSet", "java.util.LinkedHashSet"),
    ("Comparator", "java.util.Comparator"),
    ("Annotation", "java.lang.annotation.Annotation"),
    ("Cloneable", "Cloneable"),
];

/// Primitive arrays: `IntArray` is `int[]`.
const PRIMITIVE_ARRAYS: &[(&str, &str)] = &[
    ("IntArray", "int[]"),
    ("LongArray", "long[]"),
    ("ShortArray", "short[]"),
    ("ByteArray", "byte[]"),
    ("DoubleArray", "double[]"),
    ("FloatArray", "float[]"),
    ("BooleanArray", "boolean[]"),
    ("CharArray", "char[]"),
];

/// Depth of nested type arguments beyond which the rest is kept as written.
const MAX_DEPTH: usize = 16;

/// Names the file itself binds (its imports and its own types), which shadow builtins.
pub(super) trait Shadows {
    fn shadows(&self, name: &str) -> bool;
}

/// The JVM view of a Kotlin type written `ty`.
pub(super) fn jvm_type(ty: &str, shadows: &dyn Shadows) -> String {
    map(ty.trim(), shadows, false, 0)
}

fn map(ty: &str, shadows: &dyn Shadows, as_argument: bool, depth: usize) -> String {
    let ty = strip_annotations(ty.trim());
    if depth > MAX_DEPTH {
        return ty.to_string();
    }
    // `(T)`, `T?`, `T & Any`.
    if let Some(inner) = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        if !inner.contains("->") {
            return map(inner, shadows, as_argument, depth + 1);
        }
    }
    if let Some(base) = ty.strip_suffix('?') {
        return map(base, shadows, true, depth + 1);
    }
    if let Some((base, _)) = ty.split_once(" & ") {
        return map(base, shadows, as_argument, depth + 1);
    }
    if let Some(arity) = function_arity(ty) {
        return format!("kotlin.jvm.functions.Function{arity}");
    }
    let ty = ty.strip_prefix("suspend ").unwrap_or(ty);
    let ty = ty.strip_prefix("kotlin.collections.").unwrap_or(ty);
    let ty = ty.strip_prefix("kotlin.").unwrap_or(ty);
    let (base, args) = match ty.find('<') {
        Some(open) if ty.ends_with('>') => (&ty[..open], Some(&ty[open + 1..ty.len() - 1])),
        _ => (ty, None),
    };
    let base = base.trim();
    let head = base.split('.').next().unwrap_or(base);
    if shadows.shadows(head) {
        return match args {
            Some(a) => format!("{base}<{}>", map_args(a, shadows, depth)),
            None => base.to_string(),
        };
    }
    if args.is_none() {
        if let Some((_, prim, boxed)) = PRIMITIVES.iter().find(|(k, _, _)| *k == base) {
            return if as_argument { boxed } else { prim }.to_string();
        }
        if let Some((_, arr)) = PRIMITIVE_ARRAYS.iter().find(|(k, _)| *k == base) {
            return arr.to_string();
        }
    }
    if base == "Array" {
        if let Some(a) = args {
            let element = a.trim().trim_start_matches("out ").trim_start_matches("in ");
            return format!("{}[]", map(element, shadows, true, depth + 1));
        }
    }
    let mapped = MAPPED.iter().find(|(k, _)| *k == base).map_or(base, |(_, v)| v);
    if mapped == "void" && as_argument {
        return "kotlin.Unit".to_string();
    }
    match args {
        Some(a) => format!("{mapped}<{}>", map_args(a, shadows, depth)),
        None => mapped.to_string(),
    }
}

/// Type arguments, each boxed and mapped (`out T` and `in T` are `T`, `*` is `?`).
fn map_args(args: &str, shadows: &dyn Shadows, depth: usize) -> String {
    split_top(args)
        .iter()
        .map(|a| {
            let a = a.trim();
            if a == "*" {
                return "?".to_string();
            }
            let a = a
                .strip_prefix("out ")
                .or_else(|| a.strip_prefix("in "))
                .unwrap_or(a);
            map(a, shadows, true, depth + 1)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Splits on commas outside `<>` and `()`.
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' => depth += 1,
            '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `(A, B) -> C`, `T.() -> Unit`: the number of parameters (a receiver counts).
fn function_arity(ty: &str) -> Option<usize> {
    let mut depth = 0i32;
    let bytes = ty.as_bytes();
    let mut arrow = None;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'<' => depth += 1,
            b')' | b'>' if !(b == b'>' && i > 0 && bytes[i - 1] == b'-') => depth -= 1,
            b'-' if depth == 0 && bytes.get(i + 1) == Some(&b'>') => {
                arrow = Some(i);
                break;
            }
            _ => {}
        }
    }
    let head = ty[..arrow?].trim();
    let head = head.strip_prefix("suspend").map_or(head, str::trim);
    let open = head.rfind('(')?;
    let receiver = usize::from(head[..open].trim_end().ends_with('.'));
    let params = head[open + 1..].trim_end_matches(')').trim();
    let count = if params.is_empty() {
        0
    } else {
        split_top(params).len()
    };
    Some(count + receiver)
}

/// Drops annotations written on a type (`@Valid Order`).
fn strip_annotations(mut ty: &str) -> &str {
    while ty.starts_with('@') {
        match ty.find(char::is_whitespace) {
            Some(pos) => ty = ty[pos..].trim_start(),
            None => return ty,
        }
    }
    ty
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Imports(&'static [&'static str]);

    impl Shadows for Imports {
        fn shadows(&self, name: &str) -> bool {
            self.0.contains(&name)
        }
    }

    #[test]
    fn builtins_are_the_types_javac_sees() {
        let none = Imports(&[]);
        let cases = [
            ("Int", "int"),
            ("Int?", "Integer"),
            ("Boolean", "boolean"),
            ("String?", "String"),
            ("List<Int>", "java.util.List<Integer>"),
            (
                "MutableMap<String, List<Order>>",
                "java.util.Map<String, java.util.List<Order>>",
            ),
            ("Array<String>", "String[]"),
            ("IntArray", "int[]"),
            ("Unit", "void"),
            ("Any?", "Object"),
            ("(Order) -> Unit", "kotlin.jvm.functions.Function1"),
            ("Order.() -> Unit", "kotlin.jvm.functions.Function1"),
            ("suspend () -> Unit", "kotlin.jvm.functions.Function0"),
            ("Map.Entry<String, Int>", "java.util.Map.Entry<String, Integer>"),
            ("List<*>", "java.util.List<?>"),
            ("List<out Order>", "java.util.List<Order>"),
            ("com.acme.Order", "com.acme.Order"),
            ("@Valid Order", "Order"),
        ];
        for (kotlin, jvm) in cases {
            assert_eq!(jvm_type(kotlin, &none), jvm, "{kotlin}");
        }
    }

    #[test]
    fn an_imported_name_is_never_mapped() {
        let imports = Imports(&["List"]);
        assert_eq!(jvm_type("List<Int>", &imports), "List<Integer>");
    }
}
