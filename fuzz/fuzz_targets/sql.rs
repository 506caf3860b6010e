//! Fuzz target `sql`: the body and its invariants are `semgraph_indexer::fuzzing::sql`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| semgraph_indexer::fuzzing::sql(data));
