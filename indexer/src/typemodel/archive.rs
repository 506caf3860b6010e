//! Class files out of their containers: jars (zip), jmods (a `JM\x01\x00` header before
//! a zip whose classes sit under `classes/`), and directories of `.class` files — and the
//! public API cut of what they hold.
//!
//! A container that cannot be opened is an error; a class inside it that cannot be read
//! is an entry of [`ArchiveContent::unreadable`] and the rest is kept.

use std::io::{Cursor, Read, Seek};
use std::path::Path;

use rustc_hash::{FxHashMap, FxHashSet};

use super::classfile::{read_class, ClassContent, ModuleInfo};
use super::error::TypeModelError;
use super::model::{Flags, TypeInfo};
use super::ty::{Interner, Name};

/// A class file larger than this is not read (the largest in the JDK is under 1 MB).
const MAX_CLASS_BYTES: u64 = 32 << 20;
/// At most this many class files are read from one container.
const MAX_CLASSES: usize = 500_000;

/// What one container holds.
#[derive(Debug, Default)]
pub(crate) struct ArchiveContent {
    /// Every type read, accessible or not (see [`public_api`]).
    pub(crate) types: Vec<TypeInfo>,
    /// The module it declares, if it has a `module-info.class`.
    pub(crate) module: Option<ModuleInfo>,
    /// Class files that could not be read: entry name and why.
    pub(crate) unreadable: Vec<(String, String)>,
    /// Class files seen.
    pub(crate) class_files: usize,
}

/// Reads every class of a jar, a jmod or a directory.
pub(crate) fn read_archive(path: &Path, names: &mut Interner) -> Result<ArchiveContent, TypeModelError> {
    let io = |source| TypeModelError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return read_dir(path, names);
    }
    if path.extension().is_some_and(|e| e == "jmod") {
        let bytes = std::fs::read(path).map_err(io)?;
        let Some(zip) = bytes.strip_prefix(b"JM\x01\x00") else {
            return Err(TypeModelError::NotJmod {
                path: path.to_path_buf(),
            });
        };
        return read_zip(path, Cursor::new(zip), "classes/", names);
    }
    let file = std::fs::File::open(path).map_err(io)?;
    read_zip(path, std::io::BufReader::new(file), "", names)
}

fn read_zip<R: Read + Seek>(
    path: &Path,
    reader: R,
    prefix: &str,
    names: &mut Interner,
) -> Result<ArchiveContent, TypeModelError> {
    let mut zip = zip::ZipArchive::new(reader).map_err(|source| TypeModelError::Zip {
        path: path.to_path_buf(),
        source,
    })?;
    let mut out = ArchiveContent::default();
    let mut buf = Vec::new();
    for i in 0..zip.len() {
        let mut entry = match zip.by_index(i) {
            Ok(e) => e,
            Err(e) => {
                out.unreadable.push((format!("entry {i}"), e.to_string()));
                continue;
            }
        };
        let name = match entry.name() {
            Ok(n) => n.to_string(),
            Err(e) => {
                out.unreadable.push((format!("entry {i}"), e.to_string()));
                continue;
            }
        };
        let Some(rel) = name.strip_prefix(prefix) else {
            continue;
        };
        // Multi-release jars keep later versions under META-INF/versions/; the base
        // classes are the API every Java version sees.
        if !rel.ends_with(".class") || rel.starts_with("META-INF/") {
            continue;
        }
        out.class_files += 1;
        if out.class_files > MAX_CLASSES {
            out.unreadable
                .push((name, format!("more than {MAX_CLASSES} classes; the rest skipped")));
            break;
        }
        if entry.size() > MAX_CLASS_BYTES {
            out.unreadable
                .push((name, format!("larger than {MAX_CLASS_BYTES} bytes")));
            continue;
        }
        buf.clear();
        if let Err(e) = (&mut entry).take(MAX_CLASS_BYTES).read_to_end(&mut buf) {
            out.unreadable.push((name, e.to_string()));
            continue;
        }
        add_class(&mut out, &buf, &name, names);
    }
    Ok(out)
}

fn read_dir(root: &Path, names: &mut Interner) -> Result<ArchiveContent, TypeModelError> {
    let mut out = ArchiveContent::default();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|source| TypeModelError::Io {
            path: dir.clone(),
            source,
        })?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(ft) = entry.file_type() else { continue };
            if ft.is_dir() {
                stack.push(path);
            } else if ft.is_file() && path.extension().is_some_and(|e| e == "class") {
                out.class_files += 1;
                if out.class_files > MAX_CLASSES {
                    return Ok(out);
                }
                let label = path.display().to_string();
                match std::fs::File::open(&path).and_then(|f| {
                    // Sized from the file: through `take`, an unsized buffer grows by
                    // doubling, one read call per step.
                    let size = f.metadata().map_or(0, |m| m.len().min(MAX_CLASS_BYTES));
                    let mut buf = Vec::with_capacity(size as usize + 1);
                    f.take(MAX_CLASS_BYTES).read_to_end(&mut buf).map(|_| buf)
                }) {
                    Ok(buf) => add_class(&mut out, &buf, &label, names),
                    Err(e) => out.unreadable.push((label, e.to_string())),
                }
            }
        }
    }
    Ok(out)
}

fn add_class(out: &mut ArchiveContent, bytes: &[u8], name: &str, names: &mut Interner) {
    match read_class(bytes, name, names) {
        Ok(ClassContent::Type(t)) => out.types.push(*t),
        Ok(ClassContent::Module(m)) => out.module = Some(m),
        Ok(ClassContent::Nothing) => {}
        Err(e) => out.unreadable.push((name.to_string(), e.to_string())),
    }
}

/// The public API of `types`: the accessible types (public top-level types of `exported`
/// packages — every package when `None` — and their public or protected member types),
/// plus every inaccessible type one of them inherits from, kept for its members and
/// marked [`Flags::NOT_ACCESSIBLE`]. Member-type lists are cut to the types kept.
pub(crate) fn public_api(types: Vec<TypeInfo>, exported: Option<&FxHashSet<String>>) -> Vec<TypeInfo> {
    let index: FxHashMap<Name, usize> = types
        .iter()
        .enumerate()
        .map(|(i, t)| (t.binary.clone(), i))
        .collect();
    // Accessible: its own flags allow it, its package is exported, its outer is accessible.
    let mut accessible = vec![false; types.len()];
    fn visit(
        i: usize,
        types: &[TypeInfo],
        index: &FxHashMap<Name, usize>,
        exported: Option<&FxHashSet<String>>,
        memo: &mut [Option<bool>],
        depth: usize,
    ) -> bool {
        if let Some(v) = memo[i] {
            return v;
        }
        let t = &types[i];
        let own = t.is_accessible() && exported.is_none_or(|e| e.contains(&*t.package));
        let v = own
            && match &t.outer {
                None => true,
                Some(o) => match index.get(o) {
                    Some(&oi) if depth < 64 => visit(oi, types, index, exported, memo, depth + 1),
                    _ => false,
                },
            };
        memo[i] = Some(v);
        v
    }
    let mut memo = vec![None; types.len()];
    for (i, slot) in accessible.iter_mut().enumerate() {
        *slot = visit(i, &types, &index, exported, &mut memo, 0);
    }
    // Keep the supertypes they reach.
    let mut keep = accessible.clone();
    let mut stack: Vec<usize> = (0..types.len()).filter(|&i| keep[i]).collect();
    while let Some(i) = stack.pop() {
        let t = &types[i];
        for sup in t.superclass.iter().chain(&t.interfaces) {
            if let Some(&j) = index.get(&sup.name) {
                if !keep[j] {
                    keep[j] = true;
                    stack.push(j);
                }
            }
        }
    }
    let kept: FxHashSet<Name> = types
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(t, _)| t.binary.clone())
        .collect();
    types
        .into_iter()
        .zip(keep.into_iter().zip(accessible))
        .filter(|(_, (k, _))| *k)
        .map(|(mut t, (_, acc))| {
            t.flags = t.flags.with(Flags::NOT_ACCESSIBLE, !acc);
            t.member_types.retain(|m| kept.contains(m));
            t
        })
        .collect()
}
