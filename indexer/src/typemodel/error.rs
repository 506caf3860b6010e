//! The type model's one error type: what went wrong reading class files, archives, POMs
//! or the embedded JDK data, naming the file.

use std::path::PathBuf;

use super::ty::SignatureError;

/// An error of the type model. Reading a classpath never fails as a whole for one bad
/// file: archive readers turn these into per-file report entries.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TypeModelError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a readable zip archive: {source}")]
    Zip {
        path: PathBuf,
        #[source]
        source: zip::result::ZipError,
    },
    #[error("{path}: not a jmod file (no JM header)")]
    NotJmod { path: PathBuf },
    #[error("class file {name}: {message}")]
    ClassFile { name: String, message: String },
    #[error(transparent)]
    Signature(#[from] SignatureError),
    #[error("{path}: POM not readable: {message}")]
    Pom { path: PathBuf, message: String },
    #[error("embedded type model data: {0}")]
    Data(String),
}
