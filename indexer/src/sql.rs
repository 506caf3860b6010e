//! Front-end: see the crate documentation.
