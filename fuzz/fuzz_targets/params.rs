//! Fuzz target `params`: the body and its invariants are `semgraph_queries::fuzzing::params`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| semgraph_queries::fuzzing::params(data));
