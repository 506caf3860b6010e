//! The indexer: sources in, product generations out (see ARCHITECTURE.md).
