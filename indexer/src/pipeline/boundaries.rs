//! The service boundaries found after the product's calls are resolved: outbound HTTP
//! clients, Kafka Streams topologies, and the endpoints declared outside Java annotations
//! (OpenAPI specs, Spring Data REST, web.xml). One entry point so the code pass calls a
//! single function.

use std::collections::HashMap;

use semgraph_storage::{NodeId, ProductWriter};

use super::code::CodeNodes;
use super::entry_points::Topics;
use super::values::Values;
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{JavaFile, SymbolTable};
use crate::walk::SourceFile;

/// Writes HTTP client calls, stream topologies and spec-declared endpoints.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_boundaries(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    topics: &mut Topics,
    facts: &[JavaFile],
    files: &[SourceFile],
    table: &SymbolTable,
    nodes: &CodeNodes,
    service_of: &dyn Fn(&str) -> Option<(NodeId, String)>,
    resolve: &dyn Fn(&str, &str) -> String,
) -> Result<(), IndexError> {
    let values = Values {
        types: facts
            .iter()
            .flat_map(|f| &f.types)
            .map(|t| (t.fqn.as_str(), t))
            .collect::<HashMap<_, _>>(),
        table,
        resolve,
    };
    for file in facts {
        let service = service_of(&file.path).map(|(_, n)| n);
        super::http_clients::write_client_calls(run, w, &values, file, service.as_deref(), &nodes.methods)?;
        super::streams::write_topologies(run, w, topics, &values, file, &nodes.methods)?;
    }
    let inputs = super::spec_endpoints::SpecInputs {
        facts,
        files,
        table,
        types: &nodes.types,
        methods: &nodes.methods,
        service_of,
        resolve,
    };
    super::spec_endpoints::write_spec_endpoints(run, w, &inputs)
}
