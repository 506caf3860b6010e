//! Kafka Streams topologies: `StreamsBuilder.stream(topic)` (and `table`, `globalTable`)
//! consumes a topic, `.to(topic)` on a stream or table chain produces one, `through(topic)`
//! does both; all of it for the method that builds the topology.
//!
//! Topic names are evaluated like URLs ([`super::values`]): literals, constants, config-bound
//! fields and parameters; a list of topics (`List.of(a, b)`) names each. A topic the source
//! does not fix (a pattern, a run-time value, a `TopicNameExtractor`) is a warning.

use std::collections::HashMap;

use semgraph_storage::{EdgeKind, LinkPolicy, NodeId, ProductWriter};

use super::entry_points::Topics;
use super::values::{At, Values};
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{self, eval, CallSite, Expr, JavaFile, MethodKey, Receiver};
use crate::keys;

/// Types whose methods build a topology from topics.
const BUILDERS: &[&str] = &["StreamsBuilder", "KStreamBuilder"];
/// Types of the streams and tables that `to`/`through` are called on.
const STREAMS: &[&str] = &["KStream", "KTable", "KGroupedStream", "KGroupedTable"];

/// What a topology call does with its topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Flow {
    Consumes,
    Produces,
    Both,
}

/// The declared simple type of the root of `site`'s receiver chain, and whether the
/// chain starts at a builder call (`builder.stream(…)…`).
fn root_type(site: &CallSite, at: &At<'_>) -> Option<String> {
    let mut r = &site.receiver;
    while let Receiver::Call(inner) = r {
        r = &inner.receiver;
    }
    let name = match r {
        Receiver::Name(n) => n,
        Receiver::Field(o, n) if **o == Receiver::This => n,
        _ => return None,
    };
    at.declared_type(name).map(|t| java::simple_name(&t))
}

/// Topic names of one argument: a single name, or each element of `List.of(…)`,
/// `Arrays.asList(…)`, `Set.of(…)`.
fn topic_names(e: &Expr, at: &At<'_>) -> Option<Vec<String>> {
    if let Expr::Call { name, args, .. } = e {
        if matches!(name.as_str(), "of" | "asList") {
            return args.iter().map(|a| topic_name(a, at)).collect();
        }
    }
    topic_name(e, at).map(|t| vec![t])
}

fn topic_name(e: &Expr, at: &At<'_>) -> Option<String> {
    let v = eval(e, at, 0)?;
    (!v.is_empty() && !v.contains(['{', '$'])).then_some(v)
}

/// One topology call: its line, what it does, and the topics it names.
pub(super) type TopologyCall = (usize, Flow, Vec<String>);

/// The topics each topology call of method `m` touches, with its line; topics the
/// source does not fix are `Err(line)`.
pub(super) fn topology_calls(
    values: &Values<'_>,
    file: &JavaFile,
    t: &java::TypeDecl,
    m: &java::MethodDecl,
) -> Vec<Result<TopologyCall, usize>> {
    let mut out = Vec::new();
    for site in &m.calls {
        let at = At::in_method(values, &file.path, t, m, site.byte);
        let flow = match site.name.as_str() {
            "stream" | "table" | "globalTable" => Flow::Consumes,
            "to" => Flow::Produces,
            "through" => Flow::Both,
            _ => continue,
        };
        let Some(root) = root_type(site, &at) else {
            continue;
        };
        let on_builder = BUILDERS.contains(&root.as_str());
        let direct_builder = on_builder && !matches!(site.receiver, Receiver::Call(_));
        let fits = match flow {
            Flow::Consumes => direct_builder,
            Flow::Produces | Flow::Both => on_builder || STREAMS.contains(&root.as_str()),
        };
        if !fits || site.arg_values.is_empty() {
            continue;
        }
        out.push(match topic_names(&site.arg_values[0], &at) {
            Some(topics) => Ok((site.line, flow, topics)),
            None => Err(site.line),
        });
    }
    out
}

/// Writes the Consumes and Produces links of the Kafka Streams topologies of `file`.
pub(super) fn write_topologies(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    topics: &mut Topics,
    values: &Values<'_>,
    file: &JavaFile,
    methods: &HashMap<MethodKey, NodeId>,
) -> Result<(), IndexError> {
    for t in &file.types {
        for m in &t.methods {
            let calls = topology_calls(values, file, t, m);
            if calls.is_empty() {
                continue;
            }
            let Some(&method) = methods.get(&super::code::method_key(t, m)) else {
                continue;
            };
            for call in calls {
                let (_, flow, names) = match call {
                    Ok(c) => c,
                    Err(line) => {
                        run.stat("streams.unresolved", 1);
                        run.warn(
                            &file.path,
                            Some(line as u32),
                            "Kafka Streams: the topic is not a literal, constant or config value",
                        );
                        continue;
                    }
                };
                for name in names {
                    topics.node(run, w, "kafka", &name)?;
                    let key = keys::topic("kafka", &name);
                    if matches!(flow, Flow::Consumes | Flow::Both) {
                        w.add_link(method, EdgeKind::Consumes, &key, LinkPolicy::All)?;
                    }
                    if matches!(flow, Flow::Produces | Flow::Both) {
                        w.add_link(method, EdgeKind::Produces, &key, LinkPolicy::All)?;
                    }
                    run.stat("streams.topics", 1);
                }
            }
        }
    }
    Ok(())
}
