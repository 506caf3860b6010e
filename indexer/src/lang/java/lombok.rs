//! The members Lombok's annotations generate at compile time, added to a type's facts as
//! implicit members, as the compiler would see them.
//!
//! Most real Spring code uses Lombok: `@Data` entities and DTOs, `@Slf4j` loggers,
//! `@RequiredArgsConstructor` services, `@Builder` values. None of what it generates is in
//! the source, so without this every `dto.getName()` was "no method getName on Dto", every
//! `log.info(…)` "unknown name log", and a call through a builder reached nothing. What
//! is generated follows Lombok's documented rules; what depends on `lombok.config` (a
//! renamed logger field, a changed accessor prefix) is not read, and such a call stays
//! unresolved as before.
//!
//! Only a file that imports from `lombok` is read so, and an annotation written by its
//! simple name is Lombok's only where the file imports it from `lombok` (by name, or on
//! demand with no other import of that name): another library's `@Data` or `@Log`
//! generates nothing.

use crate::facts::{Annotation, FieldDecl, Import, MethodDecl, Param, TypeDecl, TypeKind};

/// The logger annotations and the type of the `log` field each declares.
const LOGGERS: &[(&str, &str)] = &[
    ("Slf4j", "org.slf4j.Logger"),
    ("XSlf4j", "org.slf4j.ext.XLogger"),
    ("Log4j2", "org.apache.logging.log4j.Logger"),
    ("Log4j", "org.apache.log4j.Logger"),
    ("Log", "java.util.logging.Logger"),
    ("CommonsLog", "org.apache.commons.logging.Log"),
    ("JBossLog", "org.jboss.logging.Logger"),
    ("Flogger", "com.google.common.flogger.FluentLogger"),
];

/// Whether the file imports from Lombok at all (the test before [`generate`]).
pub(super) fn imported(imports: &[Import]) -> bool {
    imports
        .iter()
        .any(|i| !i.is_static && (i.path == "lombok" || i.path.starts_with("lombok.")))
}

/// Adds to `decl` what Lombok generates for its annotations and those of its fields, and
/// returns the member type `@Builder` generates, if any. `imports`: the file's.
pub(super) fn generate(decl: &mut TypeDecl, imports: &[Import]) -> Option<TypeDecl> {
    if !matches!(decl.kind, TypeKind::Class | TypeKind::Enum | TypeKind::Record) {
        return None;
    }
    let on_type = |name: &str| lombok(&decl.annotations, name, imports).cloned();
    let data = on_type("Data");
    let value = on_type("Value");
    let getter = on_type("Getter");
    let setter = on_type("Setter");
    let accessors = on_type("Accessors");
    let fluent = accessors.as_ref().is_some_and(|a| flag(a, "fluent"));
    let chain = fluent || accessors.as_ref().is_some_and(|a| flag(a, "chain"));
    let no_args = on_type("NoArgsConstructor");
    let all_args = on_type("AllArgsConstructor");
    let required_args = on_type("RequiredArgsConstructor");
    let builder = on_type("Builder").or_else(|| on_type("SuperBuilder"));
    let with = on_type("With");
    let logger = LOGGERS
        .iter()
        .find(|(name, _)| lombok(&decl.annotations, name, imports).is_some());

    if let Some((_, ty)) = logger {
        if !decl.fields.iter().any(|f| f.name == "log") {
            decl.fields.push(FieldDecl {
                name: "log".into(),
                ty: (*ty).into(),
                modifiers: vec!["private".into(), "static".into(), "final".into()],
                annotations: Vec::new(),
                line: decl.line_start,
            });
        }
    }

    let fields: Vec<FieldDecl> = decl
        .fields
        .iter()
        .filter(|f| !has_modifier(f, "static"))
        .cloned()
        .collect();
    // `@Value` makes every field private and final.
    let is_final = |f: &FieldDecl| value.is_some() || has_modifier(f, "final");
    let type_getters = data.is_some() || value.is_some() || getter.as_ref().is_some_and(|a| !none(a));
    let type_setters = data.is_some() || setter.as_ref().is_some_and(|a| !none(a));
    let self_type = decl.name.clone();
    for f in &fields {
        let field_getter = lombok(&f.annotations, "Getter", imports);
        if field_getter.is_some_and(|a| !none(a)) || (type_getters && field_getter.is_none()) {
            let name = if fluent { f.name.clone() } else { getter_name(f) };
            add_method(decl, &name, &[], &f.ty, false, f.line);
        }
        // `@With`: a copy with one field changed.
        let field_with = lombok(&f.annotations, "With", imports);
        if field_with.is_some_and(|a| !none(a))
            || (with.as_ref().is_some_and(|a| !none(a)) && field_with.is_none())
        {
            let name = format!(
                "with{}",
                capitalised(
                    is_prefixed(&f.name)
                        .filter(|_| f.ty == "boolean")
                        .unwrap_or(&f.name)
                )
            );
            add_method(
                decl,
                &name,
                &[(f.name.as_str(), f.ty.as_str())],
                &self_type,
                false,
                f.line,
            );
        }
        let field_setter = lombok(&f.annotations, "Setter", imports);
        let wanted = field_setter.is_some_and(|a| !none(a)) || (type_setters && field_setter.is_none());
        if wanted && !is_final(f) {
            let name = if fluent { f.name.clone() } else { setter_name(f) };
            let ret = if chain { self_type.as_str() } else { "void" };
            add_method(
                decl,
                &name,
                &[(f.name.as_str(), f.ty.as_str())],
                ret,
                false,
                f.line,
            );
        }
    }

    // Constructors: Lombok's, then (when none is written) those `@Data`, `@Value` and
    // `@Builder` imply.
    let written_ctor = decl.methods.iter().any(|m| m.name == "<init>");
    let all: Vec<(&str, &str)> = fields.iter().map(|f| (f.name.as_str(), f.ty.as_str())).collect();
    let initialised = |f: &FieldDecl| decl.field_inits.iter().any(|(n, _)| *n == f.name);
    let required: Vec<(String, String)> = fields
        .iter()
        .filter(|f| (is_final(f) && !initialised(f)) || lombok(&f.annotations, "NonNull", imports).is_some())
        .map(|f| (f.name.clone(), f.ty.clone()))
        .collect();
    let required: Vec<(&str, &str)> = required.iter().map(|(n, t)| (n.as_str(), t.as_str())).collect();
    let mut ctors: Vec<Vec<(&str, &str)>> = Vec::new();
    if no_args.is_some() {
        ctors.push(Vec::new());
    }
    if all_args.is_some() || (!written_ctor && value.is_some()) {
        ctors.push(all.clone());
    }
    if required_args.is_some() || (!written_ctor && data.is_some() && value.is_none()) {
        ctors.push(required.clone());
    }
    if !written_ctor && builder.is_some() && no_args.is_none() && all_args.is_none() {
        ctors.push(all.clone());
    }
    let line = decl.line_start;
    for params in ctors {
        add_method(decl, "<init>", &params, "", false, line);
    }

    let super_builder = lombok(&decl.annotations, "SuperBuilder", imports).is_some();
    builder.map(|_| add_builder(decl, &fields, super_builder))
}

/// `@Builder`'s static `builder()` and the `NameBuilder` type it returns: a setter-like
/// method per field, each returning the builder, and `build()`. The builder type is a
/// member type of `decl`, declared on its line.
///
/// `@SuperBuilder`'s is Lombok's own generic shape, so that a chain typed by it goes on
/// where javac's does: `NameBuilder<C extends Name, B extends NameBuilder<C, B>>` extends
/// the superclass's builder `<C, B>`, its setters return `B` and `build()` returns `C`, and
/// `builder()` returns `NameBuilder<?, ?>`. A setter of the superclass's field called on the
/// subclass's builder returns the subclass's builder, and `build()` the subclass.
fn add_builder(decl: &mut TypeDecl, fields: &[FieldDecl], super_builder: bool) -> TypeDecl {
    let builder_name = format!("{}Builder", decl.name);
    let line = decl.line_start;
    let (made, setter_returns, built) = if super_builder {
        (format!("{builder_name}<?, ?>"), "B".to_string(), "C".to_string())
    } else {
        (builder_name.clone(), builder_name.clone(), decl.name.clone())
    };
    add_method(decl, "builder", &[], &made, true, line);
    add_method(decl, "toBuilder", &[], &made, false, line);
    let mut methods = Vec::new();
    for f in fields {
        methods.push(method(
            &f.name,
            &[(f.name.as_str(), f.ty.as_str())],
            &setter_returns,
            false,
            f.line,
        ));
    }
    methods.push(method("build", &[], &built, false, line));
    methods.push(method("<init>", &[], "", false, line));
    // `@SuperBuilder`'s builder extends the superclass's, whose methods it inherits.
    let (type_params, type_param_bounds, extends) = if super_builder {
        let extends: Vec<String> = decl
            .extends
            .first()
            .map(|parent| {
                let parent = crate::facts::erase(parent);
                let simple = parent.rsplit('.').next().unwrap_or(&parent).to_string();
                format!("{parent}.{simple}Builder<C, B>")
            })
            .into_iter()
            .collect();
        (
            vec!["C".to_string(), "B".to_string()],
            vec![vec![decl.name.clone()], vec![format!("{builder_name}<C, B>")]],
            extends,
        )
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    TypeDecl {
        fqn: format!("{}.{builder_name}", decl.fqn),
        name: builder_name,
        kind: TypeKind::Class,
        outer: Some(decl.fqn.clone()),
        anonymous: false,
        modifiers: vec!["public".into(), "static".into()],
        annotations: Vec::new(),
        type_params,
        type_param_bounds,
        extends,
        implements: Vec::new(),
        fields: Vec::new(),
        methods,
        enum_constants: Vec::new(),
        constants: Vec::new(),
        field_inits: Vec::new(),
        line_start: line,
        line_end: line,
    }
}

/// The annotation `name` of Lombok among `annotations`: written `@lombok.…Name`, or `@Name`
/// where the file imports it from `lombok`, by name or on demand (and no other import of
/// the file binds that name).
fn lombok<'a>(annotations: &'a [Annotation], name: &str, imports: &[Import]) -> Option<&'a Annotation> {
    let by_name = imports
        .iter()
        .find(|i| !i.is_static && !i.wildcard && i.path.rsplit('.').next() == Some(name));
    let simple_is_lombok = match by_name {
        Some(i) => i.path.starts_with("lombok."),
        None => imports
            .iter()
            .any(|i| !i.is_static && i.wildcard && (i.path == "lombok" || i.path.starts_with("lombok."))),
    };
    annotations.iter().find(|a| {
        let written = a.name.as_str();
        match written.strip_prefix("lombok.") {
            Some(rest) => rest.rsplit('.').next() == Some(name),
            None => simple_is_lombok && written == name,
        }
    })
}

/// `@Getter(AccessLevel.NONE)`: no accessor for this one.
fn none(a: &Annotation) -> bool {
    a.args
        .iter()
        .any(|(k, v)| k == "value" && v.iter().any(|v| v.ends_with("NONE")))
}

/// A boolean flag of an annotation (`@Accessors(chain = true)`).
fn flag(a: &Annotation, key: &str) -> bool {
    a.args
        .iter()
        .any(|(k, v)| k == key && v.iter().any(|v| v == "true"))
}

fn has_modifier(f: &FieldDecl, m: &str) -> bool {
    f.modifiers.iter().any(|x| x == m)
}

/// `getName`, or `isActive` for a `boolean` field (`isActive` stays `isActive`).
fn getter_name(f: &FieldDecl) -> String {
    if f.ty == "boolean" {
        if let Some(rest) = is_prefixed(&f.name) {
            return format!("is{rest}");
        }
        return format!("is{}", capitalised(&f.name));
    }
    format!("get{}", capitalised(&f.name))
}

/// `setName`, or `setActive` for a `boolean` field named `isActive`.
fn setter_name(f: &FieldDecl) -> String {
    if f.ty == "boolean" {
        if let Some(rest) = is_prefixed(&f.name) {
            return format!("set{rest}");
        }
    }
    format!("set{}", capitalised(&f.name))
}

/// `Active` of `isActive`: a boolean field whose name is `is` and a capital.
fn is_prefixed(name: &str) -> Option<&str> {
    name.strip_prefix("is")
        .filter(|rest| rest.starts_with(|c: char| c.is_uppercase()))
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Adds a generated method unless `decl` declares one of that name and parameter types.
fn add_method(
    decl: &mut TypeDecl,
    name: &str,
    params: &[(&str, &str)],
    ret: &str,
    is_static: bool,
    line: usize,
) {
    let exists = decl.methods.iter().any(|m| {
        m.name == name
            && m.params.len() == params.len()
            && m.params.iter().zip(params).all(|(p, (_, ty))| p.ty == *ty)
    });
    if !exists {
        decl.methods.push(method(name, params, ret, is_static, line));
    }
}

fn method(name: &str, params: &[(&str, &str)], ret: &str, is_static: bool, line: usize) -> MethodDecl {
    let mut modifiers = vec!["public".to_string()];
    if is_static {
        modifiers.push("static".into());
    }
    MethodDecl {
        name: name.to_string(),
        params: params
            .iter()
            .map(|(n, ty)| Param {
                name: (*n).to_string(),
                ty: (*ty).to_string(),
                annotations: Default::default(),
                has_default: false,
            })
            .collect(),
        return_type: (name != "<init>").then(|| ret.to_string()),
        modifiers,
        line_start: line,
        line_end: line,
        has_body: true,
        implicit: true,
        ..MethodDecl::default()
    }
}
