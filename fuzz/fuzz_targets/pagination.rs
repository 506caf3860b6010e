//! Fuzz target `pagination`: the body and its invariants are `semgraph_queries::fuzzing::pagination`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| semgraph_queries::fuzzing::pagination(data));
