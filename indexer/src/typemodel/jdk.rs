//! The JDK model: the public API of the JDK modules application code uses, generated from
//! a JDK 17's jmods, committed as `jdk17.tm` (see [`super::wire`]) and embedded in the
//! binary, decoded once per process.
//!
//! Regenerate with `cargo run -p semgraph-indexer --bin typemodel-jdk -- [JMODS_DIR]`
//! (default `/usr/lib/jvm/java-17-openjdk-amd64/jmods`); it rewrites
//! `indexer/src/typemodel/jdk17.tm` and prints what it holds.

use std::path::Path;
use std::sync::OnceLock;

use rustc_hash::FxHashSet;

use super::archive::{public_api, read_archive};
use super::error::TypeModelError;
use super::model::TypeModel;
use super::ty::Interner;
use super::wire;

/// The modules read, and for each the packages kept (`None`: every exported package).
pub(crate) const JDK_MODULES: &[(&str, Option<&[&str]>)] = &[
    ("java.base", None),
    ("java.sql", None),
    ("java.net.http", None),
    ("java.xml", None),
    ("java.logging", None),
    ("java.naming", None),
    ("java.desktop", Some(&["java.beans"])),
];

/// The Java release whose API the embedded model holds.
pub(crate) const JDK_RELEASE: u32 = 17;

static JDK_DATA: &[u8] = include_bytes!("jdk17.tm");
static JDK: OnceLock<(TypeModel, Result<String, String>)> = OnceLock::new();

/// The JDK model, decoded on first use. Never fails: were the embedded data unreadable
/// (a test proves it is not), the model is empty and [`jdk_origin`] says why.
pub(crate) fn jdk() -> &'static TypeModel {
    &jdk_entry().0
}

/// Where the JDK model came from (`OpenJDK 17.0.15 jmods …`), or why it could not load.
pub(crate) fn jdk_origin() -> Result<&'static str, &'static str> {
    match &jdk_entry().1 {
        Ok(o) => Ok(o),
        Err(e) => Err(e),
    }
}

fn jdk_entry() -> &'static (TypeModel, Result<String, String>) {
    JDK.get_or_init(|| match wire::decode(JDK_DATA) {
        Ok((model, origin)) => (model, Ok(origin)),
        Err(e) => {
            tracing::warn!("the embedded JDK type model does not load: {e}");
            (TypeModel::default(), Err(e.to_string()))
        }
    })
}

/// The size of the embedded data, in bytes.
pub(crate) fn embedded_size() -> usize {
    JDK_DATA.len()
}

/// What [`generate`] read.
#[derive(Debug)]
pub(crate) struct GenerateReport {
    pub(crate) origin: String,
    /// Per module: name and class files seen.
    pub(crate) modules: Vec<(String, usize)>,
    /// Class files that could not be read.
    pub(crate) unreadable: Vec<(String, String)>,
    pub(crate) types: usize,
    pub(crate) methods: usize,
    pub(crate) fields: usize,
}

/// Reads the [`JDK_MODULES`] of a JDK's `jmods` folder into a model of their public API
/// (exported packages only; public and protected members; inaccessible supertypes kept
/// for what they give public types). `release` labels the data (`17.0.15`).
pub(crate) fn generate_model(
    jmods: &Path,
    release: &str,
) -> Result<(TypeModel, GenerateReport), TypeModelError> {
    let mut names = Interner::default();
    let mut all = Vec::new();
    let mut exported: FxHashSet<String> = FxHashSet::default();
    let mut report = GenerateReport {
        origin: String::new(),
        modules: Vec::new(),
        unreadable: Vec::new(),
        types: 0,
        methods: 0,
        fields: 0,
    };
    for (module, only) in JDK_MODULES {
        let content = read_archive(&jmods.join(format!("{module}.jmod")), &mut names)?;
        let exports = content
            .module
            .as_ref()
            .map(|m| m.exports.clone())
            .unwrap_or_default();
        for p in exports {
            if only.is_none_or(|o| o.contains(&p.as_str())) {
                exported.insert(p);
            }
        }
        report.modules.push((module.to_string(), content.class_files));
        report.unreadable.extend(content.unreadable);
        all.extend(content.types);
    }
    let mut kept = public_api(all, Some(&exported));
    kept.sort_by(|a, b| a.binary.cmp(&b.binary));
    for t in &kept {
        report.methods += t.methods.len();
        report.fields += t.fields.len();
    }
    report.types = kept.len();
    let modules: Vec<&str> = JDK_MODULES.iter().map(|(m, _)| *m).collect();
    report.origin = format!(
        "OpenJDK {release} jmods: {} (java.desktop: java.beans only)",
        modules.join(", ")
    );
    let model = TypeModel::new(kept);
    Ok((model, report))
}

/// [`generate_model`], encoded for committing.
pub(crate) fn generate(jmods: &Path, release: &str) -> Result<(Vec<u8>, GenerateReport), TypeModelError> {
    let (model, report) = generate_model(jmods, release)?;
    let data = wire::encode(&model, &report.origin)?;
    Ok((data, report))
}
