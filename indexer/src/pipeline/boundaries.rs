//! The service boundaries found after the product's calls are resolved: outbound HTTP
//! clients, Kafka Streams topologies, and the endpoints declared outside Java annotations
//! (OpenAPI specs, Spring Data REST, web.xml). One entry point so the code pass calls a
//! single function.

use semgraph_storage::{NodeId, ProductWriter};

use super::code::CodeNodes;
use super::entry_points::Topics;
use super::values::Values;
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{JavaFile, SymbolTable};
use crate::walk::SourceFile;

/// Writes the HTTP client calls and stream topologies of one file (with its bodies);
/// `values` looks names up across the product.
pub(super) fn write_file_boundaries(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    topics: &mut Topics,
    values: &Values<'_>,
    file: &JavaFile,
    service_of: &dyn Fn(&str) -> Option<(NodeId, String)>,
    nodes: &CodeNodes,
) -> Result<(), IndexError> {
    let service = service_of(&file.path).map(|(_, n)| n);
    super::http_clients::write_client_calls(run, w, values, file, service.as_deref(), &nodes.methods)?;
    super::streams::write_topologies(run, w, topics, values, file, &nodes.methods)
}

/// Writes the endpoints declared outside Java annotations (OpenAPI specs, Spring Data
/// REST, web.xml); they need the product's declarations only (`skeletons`).
#[allow(clippy::too_many_arguments)]
pub(super) fn write_declared_endpoints(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    skeletons: &[JavaFile],
    files: &[SourceFile],
    table: &SymbolTable,
    nodes: &CodeNodes,
    service_of: &dyn Fn(&str) -> Option<(NodeId, String)>,
    resolve: &dyn Fn(&str, &str) -> String,
) -> Result<(), IndexError> {
    let inputs = super::spec_endpoints::SpecInputs {
        facts: skeletons,
        files,
        table,
        types: &nodes.types,
        methods: &nodes.methods,
        service_of,
        resolve,
    };
    super::spec_endpoints::write_spec_endpoints(run, w, &inputs)
}
