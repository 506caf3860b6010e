//! One class file in, one [`TypeInfo`] out: signatures only, never bodies.
//!
//! Read with `cafebabe` with bytecode decoding off. The type's source name comes from
//! its `InnerClasses` entries (so `Map$Entry` is `java.util.Map.Entry` while a top-level
//! `Foo$Bar` stays as written); generic types come from `Signature` attributes, else from
//! descriptors. Members are the public and protected ones, bridge and synthetic methods
//! dropped; a constructor's synthetic parameters (the outer instance of an inner class,
//! an enum's name and ordinal, captured locals) are dropped too, through
//! `MethodParameters` where the class file has it. Local and anonymous classes, and
//! `module-info`/`package-info`, are no types of the model.

use std::borrow::Cow;

use cafebabe::attributes::{AttributeData, AttributeInfo, InnerClassAccessFlags, MethodParameterAccessFlags};
use cafebabe::constant_pool::LiteralConstant;
use cafebabe::{ClassAccessFlags, FieldAccessFlags, MethodAccessFlags, ParseOptions};

use super::error::TypeModelError;
use super::model::{Constant, FieldInfo, Flags, MethodInfo, TypeInfo, TypeKind};
use super::ty::{parse_class, parse_method, parse_type, ClassTy, Interner, MethodSig, Prim, Ty};

/// The module a `module-info.class` declares: its name and the packages it exports to
/// everyone (qualified exports, `exports p to m`, are left out: application code cannot
/// use them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ModuleInfo {
    pub(crate) name: String,
    /// Dotted package names.
    pub(crate) exports: Vec<String>,
}

/// What one class file holds for the model.
#[derive(Debug)]
pub(crate) enum ClassContent {
    Type(Box<TypeInfo>),
    Module(ModuleInfo),
    /// Nothing for the model (`package-info`, a synthetic, local or anonymous class).
    Nothing,
}

fn has_attr(attrs: &[AttributeInfo<'_>], f: impl Fn(&AttributeData<'_>) -> bool) -> bool {
    attrs.iter().any(|a| f(&a.data))
}

fn signature_attr<'a>(attrs: &'a [AttributeInfo<'_>]) -> Option<&'a str> {
    attrs.iter().find_map(|a| match &a.data {
        AttributeData::Signature(s) => Some(&**s),
        _ => None,
    })
}

fn deprecated(attrs: &[AttributeInfo<'_>]) -> bool {
    has_attr(attrs, |d| match d {
        AttributeData::Deprecated => true,
        AttributeData::RuntimeVisibleAnnotations(anns) => anns
            .iter()
            .any(|a| a.type_descriptor.to_string() == "Ljava/lang/Deprecated;"),
        _ => false,
    })
}

/// Reads one class file. `name` (the archive entry) only labels errors.
pub(crate) fn read_class(
    bytes: &[u8],
    name: &str,
    names: &mut Interner,
) -> Result<ClassContent, TypeModelError> {
    let mut opts = ParseOptions::default();
    opts.parse_bytecode(false);
    let cf = cafebabe::parse_class_with_options(bytes, &opts).map_err(|e| TypeModelError::ClassFile {
        name: name.to_string(),
        message: e.to_string(),
    })?;
    let this: &str = &cf.this_class;
    if cf.access_flags.contains(ClassAccessFlags::MODULE) {
        return Ok(cf
            .attributes
            .iter()
            .find_map(|a| match &a.data {
                AttributeData::Module(m) => Some(ClassContent::Module(ModuleInfo {
                    name: m.name.to_string(),
                    exports: m
                        .exports
                        .iter()
                        .filter(|e| e.exports_to.is_empty())
                        .map(|e| e.package_name.replace('/', "."))
                        .collect(),
                })),
                _ => None,
            })
            .unwrap_or(ClassContent::Nothing));
    }
    if this.ends_with("/package-info")
        || this == "package-info"
        || cf.access_flags.contains(ClassAccessFlags::SYNTHETIC)
    {
        return Ok(ClassContent::Nothing);
    }

    // Nesting, from the InnerClasses entries the class file carries for itself and for
    // every class enclosing it.
    let inner: Vec<(&str, Option<&str>, Option<&str>, InnerClassAccessFlags)> = cf
        .attributes
        .iter()
        .filter_map(|a| match &a.data {
            AttributeData::InnerClasses(entries) => Some(entries),
            _ => None,
        })
        .flatten()
        .map(|e| {
            (
                &*e.inner_class_info,
                e.outer_class_info.as_deref(),
                e.inner_name.as_deref(),
                e.access_flags,
            )
        })
        .collect();
    let Some(fqn) = source_name(this, &inner) else {
        return Ok(ClassContent::Nothing);
    };
    let own_entry = inner.iter().find(|(i, ..)| *i == this);
    let package = this.rsplit_once('/').map_or("", |(p, _)| p).replace('/', ".");
    let simple = match own_entry {
        Some((_, _, Some(n), _)) => n.to_string(),
        _ => this.rsplit('/').next().unwrap_or(this).to_string(),
    };
    let outer = own_entry
        .and_then(|(_, o, ..)| *o)
        .map(|o| names.intern(&o.replace('/', ".")));

    // Modifiers: a member type's true ones are in its InnerClasses entry.
    let flags = match own_entry {
        Some((_, _, _, f)) => Flags::default()
            .with(Flags::PUBLIC, f.contains(InnerClassAccessFlags::PUBLIC))
            .with(Flags::PROTECTED, f.contains(InnerClassAccessFlags::PROTECTED))
            .with(Flags::STATIC, f.contains(InnerClassAccessFlags::STATIC))
            .with(Flags::FINAL, f.contains(InnerClassAccessFlags::FINAL))
            .with(Flags::ABSTRACT, f.contains(InnerClassAccessFlags::ABSTRACT))
            .with(
                Flags::NOT_ACCESSIBLE,
                !f.intersects(InnerClassAccessFlags::PUBLIC | InnerClassAccessFlags::PROTECTED),
            ),
        None => Flags::default()
            .with(Flags::PUBLIC, cf.access_flags.contains(ClassAccessFlags::PUBLIC))
            .with(Flags::FINAL, cf.access_flags.contains(ClassAccessFlags::FINAL))
            .with(
                Flags::ABSTRACT,
                cf.access_flags.contains(ClassAccessFlags::ABSTRACT),
            )
            .with(
                Flags::NOT_ACCESSIBLE,
                !cf.access_flags.contains(ClassAccessFlags::PUBLIC),
            ),
    };
    let flags = flags
        .with(
            Flags::SEALED,
            has_attr(&cf.attributes, |d| {
                matches!(d, AttributeData::PermittedSubclasses(_))
            }),
        )
        .with(Flags::DEPRECATED, deprecated(&cf.attributes));
    let super_name = cf.super_class.as_deref();
    let kind = if cf.access_flags.contains(ClassAccessFlags::ANNOTATION) {
        TypeKind::Annotation
    } else if cf.access_flags.contains(ClassAccessFlags::INTERFACE) {
        TypeKind::Interface
    } else if cf.access_flags.contains(ClassAccessFlags::ENUM) && super_name == Some("java/lang/Enum") {
        TypeKind::Enum
    } else if super_name == Some("java/lang/Record") {
        TypeKind::Record
    } else {
        TypeKind::Class
    };

    // Type parameters and generic supertypes.
    let from_descriptors = |names: &mut Interner| -> (Option<ClassTy>, Vec<ClassTy>) {
        let sup = super_name.map(|s| ClassTy::plain(names.intern(&s.replace('/', "."))));
        let ifaces = cf
            .interfaces
            .iter()
            .map(|i| ClassTy::plain(names.intern(&i.replace('/', "."))))
            .collect();
        (sup, ifaces)
    };
    let (type_params, mut superclass, interfaces) = match signature_attr(&cf.attributes) {
        Some(sig) => match parse_class(sig, names) {
            Ok(s) => (s.type_params, Some(s.superclass), s.interfaces),
            Err(_) => {
                let (s, i) = from_descriptors(names);
                (Vec::new(), s, i)
            }
        },
        None => {
            let (s, i) = from_descriptors(names);
            (Vec::new(), s, i)
        }
    };
    if kind.is_interface() || super_name.is_none() {
        superclass = None;
    }

    // An inner (non-static) class's constructors take the outer instance first.
    let inner_class_of = match own_entry {
        Some((_, Some(o), _, f)) if !f.contains(InnerClassAccessFlags::STATIC) && !kind.is_interface() => {
            Some(*o)
        }
        _ => None,
    };
    let is_interface = kind.is_interface();
    let mut methods = Vec::new();
    for m in &cf.methods {
        let af = m.access_flags;
        if !af.intersects(MethodAccessFlags::PUBLIC | MethodAccessFlags::PROTECTED)
            || af.intersects(MethodAccessFlags::SYNTHETIC | MethodAccessFlags::BRIDGE)
            || m.name == "<clinit>"
        {
            continue;
        }
        let descriptor = m.descriptor.to_string();
        let is_ctor = m.name == "<init>";
        let generic = signature_attr(&m.attributes).and_then(|s| parse_method(s, names).ok());
        let sig = match generic {
            Some(sig) => sig,
            None => {
                let mut sig = parse_method(&descriptor, names)?;
                drop_synthetic_params(&mut sig, &m.attributes, is_ctor, kind, inner_class_of);
                sig
            }
        };
        let mflags = Flags::default()
            .with(Flags::PUBLIC, af.contains(MethodAccessFlags::PUBLIC))
            .with(Flags::PROTECTED, af.contains(MethodAccessFlags::PROTECTED))
            .with(Flags::STATIC, af.contains(MethodAccessFlags::STATIC))
            .with(Flags::FINAL, af.contains(MethodAccessFlags::FINAL))
            .with(Flags::ABSTRACT, af.contains(MethodAccessFlags::ABSTRACT))
            .with(Flags::VARARGS, af.contains(MethodAccessFlags::VARARGS))
            .with(
                Flags::DEFAULT,
                is_interface && !af.intersects(MethodAccessFlags::ABSTRACT | MethodAccessFlags::STATIC),
            )
            .with(Flags::DEPRECATED, deprecated(&m.attributes));
        methods.push(MethodInfo {
            name: names.intern(&m.name),
            flags: mflags,
            type_params: sig.type_params,
            params: sig.params,
            ret: if is_ctor { Ty::Prim(Prim::Void) } else { sig.ret },
        });
    }

    let mut fields = Vec::new();
    for f in &cf.fields {
        let af = f.access_flags;
        if !af.intersects(FieldAccessFlags::PUBLIC | FieldAccessFlags::PROTECTED)
            || af.contains(FieldAccessFlags::SYNTHETIC)
        {
            continue;
        }
        let ty = match signature_attr(&f.attributes).and_then(|s| parse_type(s, names).ok()) {
            Some(t) => t,
            None => parse_type(&f.descriptor.to_string(), names)?,
        };
        let is_static_final = af.contains(FieldAccessFlags::STATIC | FieldAccessFlags::FINAL);
        let constant = if is_static_final {
            f.attributes.iter().find_map(|a| match &a.data {
                AttributeData::ConstantValue(c) => constant(c),
                _ => None,
            })
        } else {
            None
        };
        fields.push(FieldInfo {
            name: names.intern(&f.name),
            flags: Flags::default()
                .with(Flags::PUBLIC, af.contains(FieldAccessFlags::PUBLIC))
                .with(Flags::PROTECTED, af.contains(FieldAccessFlags::PROTECTED))
                .with(Flags::STATIC, af.contains(FieldAccessFlags::STATIC))
                .with(Flags::FINAL, af.contains(FieldAccessFlags::FINAL))
                .with(Flags::DEPRECATED, deprecated(&f.attributes)),
            ty,
            constant,
        });
    }

    let member_types = inner
        .iter()
        .filter(|(_, o, n, f)| {
            *o == Some(this) && n.is_some() && !f.contains(InnerClassAccessFlags::SYNTHETIC)
        })
        .map(|(i, ..)| names.intern(&i.replace('/', ".")))
        .collect();

    Ok(ClassContent::Type(Box::new(TypeInfo {
        binary: names.intern(&this.replace('/', ".")),
        fqn: names.intern(&fqn),
        package: names.intern(&package),
        simple: names.intern(&simple),
        kind,
        flags,
        type_params,
        superclass,
        interfaces,
        methods,
        fields,
        member_types,
        outer,
    })))
}

/// The source name of class `this` (internal form), or `None` for a local or anonymous
/// class (an InnerClasses entry with no outer class).
fn source_name(
    this: &str,
    inner: &[(&str, Option<&str>, Option<&str>, InnerClassAccessFlags)],
) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    let mut current = this;
    for _ in 0..64 {
        match inner.iter().find(|(i, ..)| *i == current) {
            Some((_, Some(outer), Some(simple), _)) => {
                parts.push(simple);
                current = outer;
            }
            Some(_) => return None,
            None => {
                let mut out = current.replace('/', ".");
                for p in parts.iter().rev() {
                    out.push('.');
                    out.push_str(p);
                }
                return Some(out);
            }
        }
    }
    None
}

/// Drops the parameters javac adds to a descriptor that the source does not declare.
fn drop_synthetic_params(
    sig: &mut MethodSig,
    attrs: &[AttributeInfo<'_>],
    is_ctor: bool,
    kind: TypeKind,
    inner_class_of: Option<&str>,
) {
    let params = attrs.iter().find_map(|a| match &a.data {
        AttributeData::MethodParameters(p) => Some(p),
        _ => None,
    });
    if let Some(params) = params {
        if params.len() == sig.params.len() {
            // Synthetic parameters are javac's own. A mandated one is implicitly declared
            // but real (`valueOf(String)`, a compact constructor's) — except the outer
            // instance an inner class's constructor takes first.
            let outer_first = is_ctor
                && inner_class_of.is_some_and(|o| {
                    let o = o.replace('/', ".");
                    sig.params
                        .first()
                        .and_then(Ty::as_class)
                        .is_some_and(|c| *c.name == *o)
                });
            let mut keep = params.iter().enumerate().map(|(i, p)| {
                !(p.access_flags.contains(MethodParameterAccessFlags::SYNTHETIC)
                    || (i == 0
                        && outer_first
                        && p.access_flags.contains(MethodParameterAccessFlags::MANDATED)))
            });
            sig.params.retain(|_| keep.next().unwrap_or(true));
            return;
        }
    }
    if !is_ctor {
        return;
    }
    if kind == TypeKind::Enum && sig.params.len() >= 2 {
        sig.params.drain(..2);
    } else if let Some(outer) = inner_class_of {
        let outer_binary = outer.replace('/', ".");
        if sig
            .params
            .first()
            .and_then(Ty::as_class)
            .is_some_and(|c| *c.name == *outer_binary)
        {
            sig.params.remove(0);
        }
    }
}

fn constant(c: &LiteralConstant<'_>) -> Option<Constant> {
    Some(match c {
        LiteralConstant::Integer(v) => Constant::Int(*v),
        LiteralConstant::Long(v) => Constant::Long(*v),
        LiteralConstant::Float(v) => Constant::Float(*v),
        LiteralConstant::Double(v) => Constant::Double(*v),
        LiteralConstant::String(s) => Constant::String(Cow::as_ref(s).into()),
        // Unpaired surrogates: no Rust string spells them.
        LiteralConstant::StringBytes(_) => return None,
    })
}
