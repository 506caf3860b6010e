//! Queries and recipes over a storage snapshot (see ARCHITECTURE.md).
