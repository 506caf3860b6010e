//! Non-HTTP entry points from Java: `main`, `@Scheduled` jobs, and message listeners
//! (`@KafkaListener`, `@RabbitListener`, `@JmsListener`) with the topics they consume.
//!
//! A topic is known by its broker and name, resolved through the module's configuration
//! when written as `${key}`. Each product that touches a topic has its own Topic node
//! answering to the topic's key, and its consumers ask for every node that answers (the
//! `All` policy), so a producer in one product and a consumer in another meet on the same
//! topic nodes after linking.

use std::collections::BTreeMap;

use semgraph_storage::{EdgeKind, LinkPolicy, NewNode, NodeId, NodeKind, ProductWriter};

use super::endpoints::{short, values};
use super::ProductRun;
use crate::error::IndexError;
use crate::java::{JavaFile, MethodKey};
use crate::keys;

/// Listener annotations: name, entry-point kind, broker, attributes naming the topics.
const LISTENERS: &[(&str, &str, &str, &[&str])] = &[
    ("KafkaListener", "kafka-listener", "kafka", &["topics", "value"]),
    (
        "RabbitListener",
        "rabbit-listener",
        "rabbitmq",
        &["queues", "value"],
    ),
    ("JmsListener", "jms-listener", "jms", &["destination", "value"]),
];

/// The product's Topic nodes, one per topic key, created on first use.
#[derive(Default)]
pub(super) struct Topics {
    nodes: BTreeMap<String, NodeId>,
}

impl Topics {
    /// The Topic node of `broker`/`name` in this product.
    pub(super) fn node(
        &mut self,
        run: &mut ProductRun,
        w: &mut ProductWriter,
        broker: &str,
        name: &str,
    ) -> Result<NodeId, IndexError> {
        let key = keys::topic(broker, name);
        if let Some(&id) = self.nodes.get(&key) {
            return Ok(id);
        }
        let id = run.add(
            w,
            NewNode::new(NodeKind::Topic, name)
                .fqn(name)
                .attr("broker", broker),
        )?;
        w.add_anchor(id, &key)?;
        self.nodes.insert(key, id);
        Ok(id)
    }
}

/// Writes the entry points of `file`.
pub(super) fn write_entry_points(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    topics: &mut Topics,
    file: &JavaFile,
    service: Option<(NodeId, &str)>,
    method_node: &dyn Fn(&MethodKey) -> Option<NodeId>,
    resolve: &dyn Fn(&str) -> String,
) -> Result<(), IndexError> {
    for t in &file.types {
        for m in &t.methods {
            let key = super::code::method_key(t, m);
            let mut triggers: Vec<(&str, String, Option<&str>)> = Vec::new();
            let is_static = m.modifiers.iter().any(|x| x == "static");
            if m.name == "main"
                && is_static
                && m.params.len() == 1
                && m.params[0].ty.replace(' ', "").starts_with("String")
            {
                triggers.push(("main", "main".into(), None));
            }
            for a in &m.annotations {
                let name = short(&a.name);
                if name == "Scheduled" {
                    let when = values(
                        a,
                        &[
                            "cron",
                            "fixedRate",
                            "fixedDelay",
                            "fixedRateString",
                            "fixedDelayString",
                        ],
                    );
                    let trigger = when.first().cloned().unwrap_or_else(|| "scheduled".into());
                    triggers.push(("scheduled", resolve(&trigger), None));
                }
                if let Some((_, kind, broker, attrs)) = LISTENERS.iter().find(|(n, ..)| *n == name) {
                    for topic in values(a, attrs) {
                        triggers.push((kind, resolve(&topic), Some(broker)));
                    }
                }
            }
            if triggers.is_empty() {
                continue;
            }
            let Some(handler) = method_node(&key) else {
                continue;
            };
            for (kind, trigger, broker) in triggers {
                let mut node = NewNode::new(NodeKind::EntryPoint, format!("{kind} {trigger}"))
                    .fqn(format!("{kind} {trigger}"))
                    .at(&file.path, m.line_start as u32, m.line_end as u32)
                    .attr("kind", kind)
                    .attr("trigger", &trigger)
                    .attr("handler", format!("{}.{}", t.fqn, m.name));
                if let Some((_, service_name)) = service {
                    node = node.attr("service", service_name);
                }
                let id = run.add(w, node)?;
                w.add_edge(id, EdgeKind::Serves, handler)?;
                if let Some((service_node, _)) = service {
                    w.add_edge(service_node, EdgeKind::Contains, id)?;
                }
                if let Some(broker) = broker {
                    if trigger.contains("${") {
                        run.warn(
                            &file.path,
                            Some(m.line_start as u32),
                            format!("topic {trigger} could not be resolved from the configuration"),
                        );
                        continue;
                    }
                    topics.node(run, w, broker, &trigger)?;
                    w.add_link(
                        handler,
                        EdgeKind::Consumes,
                        &keys::topic(broker, &trigger),
                        LinkPolicy::All,
                    )?;
                }
                run.stat("entry-points", 1);
            }
        }
    }
    Ok(())
}
