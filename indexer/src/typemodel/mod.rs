//! The type model (placeholder header, rewritten below).

pub(crate) mod archive;
pub(crate) mod classfile;
pub(crate) mod deps;
pub(crate) mod error;
pub(crate) mod jdk;
pub(crate) mod model;
#[cfg(test)]
mod tests;
pub(crate) mod ty;
pub(crate) mod wire;
