//! Kafka: `@KafkaListener` methods consume their topics, `KafkaTemplate.send` produces to
//! the topic its first argument names, and Kafka Streams topologies —
//! `StreamsBuilder.stream(topic)` (and `table`, `globalTable`) consume, `.to(topic)` on a
//! stream or table chain produces, `through(topic)` does both — for the method that
//! builds the topology. Topic names go through the one value evaluator; a list of topics
//! (`List.of(a, b)`) names each; one the source does not fix (a pattern, a run-time value,
//! a `TopicNameExtractor`) is a warning.

use super::messaging::{listeners, producers, topic_name, Listener, Template};
use super::values::At;
use super::{Finding, Findings, Flow, Product, Recogniser, TopicUse};
use crate::facts::{self, CallSite, CodeFile, Expr, Receiver};
use crate::resolve::{MethodKey, ResolvedCall};

const LISTENERS: &[Listener] = &[Listener {
    annotation: "KafkaListener",
    kind: "kafka-listener",
    broker: "kafka",
    attrs: &["topics", "value"],
}];

const TEMPLATES: &[Template] = &[Template {
    type_suffix: ".KafkaTemplate",
    methods: &["send"],
    broker: "kafka",
}];

/// Types whose methods build a topology from topics.
const BUILDERS: &[&str] = &["StreamsBuilder", "KStreamBuilder"];
/// Types of the streams and tables that `to`/`through` are called on.
const STREAMS: &[&str] = &["KStream", "KTable", "KGroupedStream", "KGroupedTable"];

pub(crate) struct Kafka;

impl Recogniser for Kafka {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        listeners(product, file, LISTENERS, out);
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        producers(product, file, calls, TEMPLATES, out);
        topologies(product, file, out);
    }
}

/// What a topology call does with its topics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamFlow {
    Consumes,
    Produces,
    Both,
}

/// The declared simple type of the root of `site`'s receiver chain.
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
    at.declared_type(name).map(|t| facts::simple_name(&t))
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

/// The Consumes and Produces of the Kafka Streams topologies of `file`.
fn topologies(product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
    for t in &file.types {
        for m in &t.methods {
            for site in &m.calls {
                let at = At::in_method(&product.values, &file.path, t, m, site.byte);
                let flow = match site.name.as_str() {
                    "stream" | "table" | "globalTable" => StreamFlow::Consumes,
                    "to" => StreamFlow::Produces,
                    "through" => StreamFlow::Both,
                    _ => continue,
                };
                let Some(root) = root_type(site, &at) else {
                    continue;
                };
                let on_builder = BUILDERS.contains(&root.as_str());
                let direct_builder = on_builder && !matches!(site.receiver, Receiver::Call(_));
                let fits = match flow {
                    StreamFlow::Consumes => direct_builder,
                    StreamFlow::Produces | StreamFlow::Both => on_builder || STREAMS.contains(&root.as_str()),
                };
                if !fits || site.arg_values.is_empty() {
                    continue;
                }
                let Some(names) = topic_names(&site.arg_values[0], &at) else {
                    out.stat("streams.unresolved", 1);
                    out.warn(
                        &file.path,
                        Some(site.line as u32),
                        "Kafka Streams: the topic is not a literal, constant or config value",
                    );
                    continue;
                };
                for name in names {
                    let method = MethodKey::of(t, m);
                    if matches!(flow, StreamFlow::Consumes | StreamFlow::Both) {
                        out.push(Finding::Topic(TopicUse {
                            method: method.clone(),
                            broker: "kafka",
                            topic: name.clone(),
                            flow: Flow::Consumes,
                            scope: None,
                        }));
                    }
                    if matches!(flow, StreamFlow::Produces | StreamFlow::Both) {
                        out.push(Finding::Topic(TopicUse {
                            method,
                            broker: "kafka",
                            topic: name,
                            flow: Flow::Produces,
                            scope: None,
                        }));
                    }
                    out.stat("streams.topics", 1);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn listeners_templates_and_topologies_touch_their_topics() {
        check(
            r#"
//- /shipping/src/main/resources/application.properties
app.topic.orders=orders.placed
//- /shipping/src/main/java/a/Events.java
package a;
import org.springframework.kafka.core.KafkaTemplate;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.kstream.KStream;
class Events {
    static final String SHIPPED = "orders.shipped";
    private final KafkaTemplate<String, String> kafka;
    @KafkaListener(topics = "${app.topic.orders}") void onOrder(String o) {}
    @KafkaListener(topics = {"a", "b"}) void onAB(String o) {}
    @KafkaListener(topics = "${app.topic.missing}") void onMissing(String o) {}
    void ship(String dynamic) {
        kafka.send(SHIPPED, "x");
        kafka.send(dynamic, "x");
    }
    void topology(StreamsBuilder builder) {
        KStream<String, String> s = builder.stream(List.of("in.a", "in.b"));
        s.to("out");
    }
}
"#,
            r#"
config a.Events.onOrder -> app.topic.orders via placeholder
config? app.topic.missing
entry kafka-listener orders.placed a.Events.onOrder (shipping/src/main/java/a/Events.java:8)
topic consumes kafka:orders.placed by a.Events.onOrder
entry kafka-listener a a.Events.onAB (shipping/src/main/java/a/Events.java:9)
topic consumes kafka:a by a.Events.onAB
entry kafka-listener b a.Events.onAB (shipping/src/main/java/a/Events.java:9)
topic consumes kafka:b by a.Events.onAB
entry kafka-listener ${app.topic.missing} a.Events.onMissing (shipping/src/main/java/a/Events.java:10)
warning shipping/src/main/java/a/Events.java:10: topic ${app.topic.missing} could not be resolved from the configuration
topic produces kafka:orders.shipped by a.Events.ship
topic consumes kafka:in.a by a.Events.topology
topic consumes kafka:in.b by a.Events.topology
topic produces kafka:out by a.Events.topology
warning shipping/src/main/java/a/Events.java:13: kafka producer: the topic of send(…) is not a literal, constant or config-bound field
"#,
        );
    }

    #[test]
    fn kotlin_listeners_templates_and_string_templates_name_their_topics() {
        check(
            r#"
//- /shipping/src/main/resources/application.yml
app:
  topic:
    orders: orders.placed
//- /shipping/src/main/kotlin/a/Events.kt
package a

import org.springframework.kafka.core.KafkaTemplate

const val PREFIX = "orders"

class Events(private val kafka: KafkaTemplate<String, String>) {
    @KafkaListener(topics = ["\${app.topic.orders}", "audit"])
    fun onOrder(o: String) {}

    fun ship(region: String) {
        kafka.send("$PREFIX.shipped", "x")
        kafka.send("$PREFIX.$region", "x")
    }
}
"#,
            r#"
config a.Events.onOrder -> app.topic.orders via placeholder
entry kafka-listener orders.placed a.Events.onOrder (shipping/src/main/kotlin/a/Events.kt:8)
topic consumes kafka:orders.placed by a.Events.onOrder
entry kafka-listener audit a.Events.onOrder (shipping/src/main/kotlin/a/Events.kt:8)
topic consumes kafka:audit by a.Events.onOrder
topic produces kafka:orders.shipped by a.Events.ship
warning shipping/src/main/kotlin/a/Events.kt:13: kafka producer: the topic of send(…) is not a literal, constant or config-bound field
"#,
        );
    }
}
