//! The on-disk form of a [`TypeModel`]: how the JDK model is committed and embedded.
//!
//! Layout: the 4 bytes `SGTM`, a little-endian `u32` format version, then a raw deflate
//! stream of one bincode (2.0, standard config) [`Wire`] value. Names and signatures
//! are strings of one table, each stored once; a type's generics are its JVM class
//! signature, a method's its method signature and a field's its field signature — the
//! same grammar [`super::ty`] parses, so the format needs no encoding of its own for
//! types, and decoding parses each distinct signature once. Bump [`FORMAT_VERSION`] for
//! any change; a reader refuses other versions.

use std::io::{Read, Write};

use rustc_hash::FxHashMap;

use super::error::TypeModelError;
use super::model::{Constant, FieldInfo, Flags, MethodInfo, TypeInfo, TypeKind, TypeModel};
use super::ty::{parse_class, parse_method, parse_type, ClassSig, ClassTy, Interner, MethodSig, Name, Ty};

const MAGIC: &[u8; 4] = b"SGTM";
/// Version 1: the first format.
pub(crate) const FORMAT_VERSION: u32 = 1;
/// Decoded data larger than this is refused.
const MAX_DECODED: u64 = 256 << 20;
const NONE: u32 = u32::MAX;

#[derive(bincode::Encode, bincode::Decode)]
struct Wire {
    /// A label: where the model came from (`OpenJDK 17.0.15 jmods: java.base, …`).
    origin: String,
    strings: Vec<String>,
    types: Vec<WType>,
}

#[derive(bincode::Encode, bincode::Decode)]
struct WType {
    binary: u32,
    fqn: u32,
    package: u32,
    simple: u32,
    kind: u8,
    flags: u16,
    /// The class signature; its superclass is a placeholder when `has_superclass` is off.
    signature: u32,
    has_superclass: bool,
    outer: u32,
    member_types: Vec<u32>,
    methods: Vec<WMethod>,
    fields: Vec<WField>,
}

#[derive(bincode::Encode, bincode::Decode)]
struct WMethod {
    name: u32,
    flags: u16,
    signature: u32,
}

#[derive(bincode::Encode, bincode::Decode)]
struct WField {
    name: u32,
    flags: u16,
    signature: u32,
    constant: Option<WConst>,
}

#[derive(bincode::Encode, bincode::Decode)]
enum WConst {
    Int(i32),
    Long(i64),
    Float(u32),
    Double(u64),
    Str(u32),
}

#[derive(Default)]
struct Strings {
    index: FxHashMap<String, u32>,
    list: Vec<String>,
}

impl Strings {
    fn id(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(s.to_string());
        self.index.insert(s.to_string(), i);
        i
    }
}

fn kind_code(k: TypeKind) -> u8 {
    match k {
        TypeKind::Class => 0,
        TypeKind::Interface => 1,
        TypeKind::Enum => 2,
        TypeKind::Record => 3,
        TypeKind::Annotation => 4,
    }
}

fn kind_of(c: u8) -> Result<TypeKind, TypeModelError> {
    Ok(match c {
        0 => TypeKind::Class,
        1 => TypeKind::Interface,
        2 => TypeKind::Enum,
        3 => TypeKind::Record,
        4 => TypeKind::Annotation,
        _ => return Err(TypeModelError::Data(format!("unknown type kind {c}"))),
    })
}

/// Encodes `model` (with an `origin` label) into the committed format.
pub(crate) fn encode(model: &TypeModel, origin: &str) -> Result<Vec<u8>, TypeModelError> {
    let mut s = Strings::default();
    let mut types = Vec::with_capacity(model.len());
    for t in model.types() {
        let sig = ClassSig {
            type_params: t.type_params.clone(),
            superclass: t
                .superclass
                .clone()
                .unwrap_or_else(|| ClassTy::plain(Name::from("java.lang.Object"))),
            interfaces: t.interfaces.clone(),
        };
        types.push(WType {
            binary: s.id(&t.binary),
            fqn: s.id(&t.fqn),
            package: s.id(&t.package),
            simple: s.id(&t.simple),
            kind: kind_code(t.kind),
            flags: t.flags.0,
            signature: s.id(&sig.signature()),
            has_superclass: t.superclass.is_some(),
            outer: t.outer.as_ref().map_or(NONE, |o| s.id(o)),
            member_types: t.member_types.iter().map(|m| s.id(m)).collect(),
            methods: t
                .methods
                .iter()
                .map(|m| WMethod {
                    name: s.id(&m.name),
                    flags: m.flags.0,
                    signature: s.id(&MethodSig {
                        type_params: m.type_params.clone(),
                        params: m.params.clone(),
                        ret: m.ret.clone(),
                        throws: Vec::new(),
                    }
                    .signature()),
                })
                .collect(),
            fields: t
                .fields
                .iter()
                .map(|f| WField {
                    name: s.id(&f.name),
                    flags: f.flags.0,
                    signature: s.id(&f.ty.signature()),
                    constant: f.constant.as_ref().map(|c| match c {
                        Constant::Int(v) => WConst::Int(*v),
                        Constant::Long(v) => WConst::Long(*v),
                        Constant::Float(v) => WConst::Float(v.to_bits()),
                        Constant::Double(v) => WConst::Double(v.to_bits()),
                        Constant::String(v) => WConst::Str(s.id(v)),
                    }),
                })
                .collect(),
        });
    }
    let wire = Wire {
        origin: origin.to_string(),
        strings: s.list,
        types,
    };
    let raw = bincode::encode_to_vec(&wire, bincode::config::standard())
        .map_err(|e| TypeModelError::Data(format!("encoding: {e}")))?;
    let mut out = Vec::with_capacity(raw.len() / 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    let mut enc = flate2::write::DeflateEncoder::new(out, flate2::Compression::best());
    enc.write_all(&raw)
        .map_err(|e| TypeModelError::Data(format!("compressing: {e}")))?;
    enc.finish()
        .map_err(|e| TypeModelError::Data(format!("compressing: {e}")))
}

/// Decodes data written by [`encode`]: the model and its origin label.
pub(crate) fn decode(data: &[u8]) -> Result<(TypeModel, String), TypeModelError> {
    let bad = |m: String| TypeModelError::Data(m);
    let rest = data
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad("no SGTM header".into()))?;
    let (version, body) = rest
        .split_at_checked(4)
        .ok_or_else(|| bad("truncated header".into()))?;
    let version = u32::from_le_bytes([version[0], version[1], version[2], version[3]]);
    if version != FORMAT_VERSION {
        return Err(bad(format!(
            "format version {version}, this build reads {FORMAT_VERSION}: regenerate the data"
        )));
    }
    let mut raw = Vec::new();
    flate2::read::DeflateDecoder::new(body)
        .take(MAX_DECODED)
        .read_to_end(&mut raw)
        .map_err(|e| bad(format!("decompressing: {e}")))?;
    let (wire, _): (Wire, usize) =
        bincode::decode_from_slice(&raw, bincode::config::standard().with_limit::<{ 256 << 20 }>())
            .map_err(|e| bad(format!("decoding: {e}")))?;
    drop(raw);

    let mut names = Interner::default();
    let strings: Vec<Name> = wire.strings.iter().map(|s| names.intern(s)).collect();
    let str_at = |i: u32| -> Result<Name, TypeModelError> {
        strings
            .get(i as usize)
            .cloned()
            .ok_or_else(|| TypeModelError::Data(format!("string index {i} out of range")))
    };
    let mut method_sigs: FxHashMap<u32, MethodSig> = FxHashMap::default();
    let mut field_sigs: FxHashMap<u32, Ty> = FxHashMap::default();
    let mut types = Vec::with_capacity(wire.types.len());
    for t in &wire.types {
        let sig = parse_class(&str_at(t.signature)?, &mut names)?;
        let mut methods = Vec::with_capacity(t.methods.len());
        for m in &t.methods {
            let ms = match method_sigs.get(&m.signature) {
                Some(ms) => ms.clone(),
                None => {
                    let ms = parse_method(&str_at(m.signature)?, &mut names)?;
                    method_sigs.insert(m.signature, ms.clone());
                    ms
                }
            };
            methods.push(MethodInfo {
                name: str_at(m.name)?,
                flags: Flags(m.flags),
                type_params: ms.type_params,
                params: ms.params,
                ret: ms.ret,
            });
        }
        let mut fields = Vec::with_capacity(t.fields.len());
        for f in &t.fields {
            let ty = match field_sigs.get(&f.signature) {
                Some(ty) => ty.clone(),
                None => {
                    let ty = parse_type(&str_at(f.signature)?, &mut names)?;
                    field_sigs.insert(f.signature, ty.clone());
                    ty
                }
            };
            let constant = match &f.constant {
                None => None,
                Some(WConst::Int(v)) => Some(Constant::Int(*v)),
                Some(WConst::Long(v)) => Some(Constant::Long(*v)),
                Some(WConst::Float(v)) => Some(Constant::Float(f32::from_bits(*v))),
                Some(WConst::Double(v)) => Some(Constant::Double(f64::from_bits(*v))),
                Some(WConst::Str(i)) => Some(Constant::String((*str_at(*i)?).into())),
            };
            fields.push(FieldInfo {
                name: str_at(f.name)?,
                flags: Flags(f.flags),
                ty,
                constant,
            });
        }
        types.push(TypeInfo {
            binary: str_at(t.binary)?,
            fqn: str_at(t.fqn)?,
            package: str_at(t.package)?,
            simple: str_at(t.simple)?,
            kind: kind_of(t.kind)?,
            flags: Flags(t.flags),
            type_params: sig.type_params,
            superclass: t.has_superclass.then_some(sig.superclass),
            interfaces: sig.interfaces,
            methods,
            fields,
            member_types: t
                .member_types
                .iter()
                .map(|&m| str_at(m))
                .collect::<Result<_, _>>()?,
            outer: if t.outer == NONE {
                None
            } else {
                Some(str_at(t.outer)?)
            },
        });
    }
    Ok((TypeModel::new(types), wire.origin))
}
