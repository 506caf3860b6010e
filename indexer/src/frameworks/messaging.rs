//! Message brokers' listeners and templates: RabbitMQ (`@RabbitListener`,
//! `RabbitTemplate`) and JMS (`@JmsListener`, `JmsTemplate`), with the rules Kafka's
//! listeners and `KafkaTemplate` share (`kafka.rs`).
//!
//! A listener method is an entry point consuming each topic (queue, destination) its
//! annotation names, resolved through the module's config when written `${key}`; a
//! template's send method produces to the topic its first argument evaluates to (a
//! literal, a constant, a config-bound field or parameter). A topic the source does not
//! fix is a warning, never a guessed topic.

use super::annotations::{short, values};
use super::values::{eval, At};
use super::{call_site, EntryPoint, Finding, Findings, Flow, Product, Recogniser, TopicUse};
use crate::facts::CodeFile;
use crate::resolve::{MethodKey, ResolvedCall, Target};

/// A listener annotation: its name, the entry point's kind, the broker, and the
/// attributes that name topics.
pub(crate) struct Listener {
    pub(crate) annotation: &'static str,
    pub(crate) kind: &'static str,
    pub(crate) broker: &'static str,
    pub(crate) attrs: &'static [&'static str],
}

/// A template type whose send methods publish to the topic named by their first argument.
pub(crate) struct Template {
    /// The end of the type's fqn (`.KafkaTemplate`).
    pub(crate) type_suffix: &'static str,
    pub(crate) methods: &'static [&'static str],
    pub(crate) broker: &'static str,
}

const LISTENERS: &[Listener] = &[
    Listener {
        annotation: "RabbitListener",
        kind: "rabbit-listener",
        broker: "rabbitmq",
        attrs: &["queues", "value"],
    },
    Listener {
        annotation: "JmsListener",
        kind: "jms-listener",
        broker: "jms",
        attrs: &["destination", "value"],
    },
];

const TEMPLATES: &[Template] = &[
    Template {
        type_suffix: ".RabbitTemplate",
        methods: &["convertAndSend", "send"],
        broker: "rabbitmq",
    },
    Template {
        type_suffix: ".JmsTemplate",
        methods: &["convertAndSend", "send"],
        broker: "jms",
    },
];

pub(crate) struct Messaging;

impl Recogniser for Messaging {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        listeners(product, file, LISTENERS, out);
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        producers(product, file, calls, TEMPLATES, out);
    }
}

/// The entry points of the listener methods of `file` and the topics they consume.
pub(crate) fn listeners(product: &Product<'_>, file: &CodeFile, specs: &[Listener], out: &mut Findings) {
    for t in &file.types {
        for m in &t.methods {
            for a in &m.annotations {
                let Some(spec) = specs.iter().find(|s| s.annotation == short(&a.name)) else {
                    continue;
                };
                for topic in values(a, spec.attrs) {
                    let trigger = product.resolve(&file.path, &topic);
                    out.push(Finding::EntryPoint(EntryPoint {
                        kind: spec.kind,
                        trigger: trigger.clone(),
                        broker: Some(spec.broker),
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        handler: MethodKey::of(t, m),
                        handler_name: format!("{}.{}", t.fqn, m.name),
                    }));
                    if trigger.contains("${") {
                        out.warn(
                            &file.path,
                            Some(m.line_start as u32),
                            format!("topic {trigger} could not be resolved from the configuration"),
                        );
                        continue;
                    }
                    out.push(Finding::Topic(TopicUse {
                        method: MethodKey::of(t, m),
                        broker: spec.broker,
                        topic: trigger,
                        flow: Flow::Consumes,
                        scope: None,
                    }));
                    out.stat("entry-points", 1);
                }
            }
        }
    }
}

/// The topics the template calls of `file` produce to, from the calling method.
pub(crate) fn producers(
    product: &Product<'_>,
    file: &CodeFile,
    calls: &[ResolvedCall],
    specs: &[Template],
    out: &mut Findings,
) {
    for call in calls {
        let Target::External { type_fqn, method } = &call.target else {
            continue;
        };
        let Some(spec) = specs
            .iter()
            .find(|s| type_fqn.ends_with(s.type_suffix) && s.methods.contains(&method.as_str()))
        else {
            continue;
        };
        let topic = call_site(file, call).and_then(|(t, m, site)| {
            let at = At::in_method(&product.values, &file.path, t, m, site.byte);
            topic_name(site.arg_values.first()?, &at)
        });
        match topic {
            Some(topic) => {
                out.push(Finding::Topic(TopicUse {
                    method: call.caller.clone(),
                    broker: spec.broker,
                    topic,
                    flow: Flow::Produces,
                    scope: None,
                }));
                out.stat("producers", 1);
            }
            None => out.warn(
                &file.path,
                Some(call.line as u32),
                format!(
                    "{} producer: the topic of {method}(…) is not a literal, constant or config-bound field",
                    spec.broker
                ),
            ),
        }
    }
}

/// The topic name an expression fixes: no run-time part, no unresolved placeholder.
pub(crate) fn topic_name(e: &crate::facts::Expr, at: &At<'_>) -> Option<String> {
    let v = eval(e, at, 0)?;
    (!v.is_empty() && !v.contains(['{', '$'])).then_some(v)
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn rabbit_and_jms_listeners_consume_and_templates_produce() {
        check(
            r#"
//- /mail/src/main/resources/application.yml
mail:
  queue: mail.outbox
//- /mail/src/main/java/a/Mail.java
package a;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.jms.core.JmsTemplate;
class Mail {
    static final String AUDIT = "audit.events";
    private final RabbitTemplate rabbit;
    private final JmsTemplate jms;
    @Value("${mail.queue}") private String queue;
    @RabbitListener(queues = "${mail.queue}") void onMail(String m) {}
    @JmsListener(destination = "billing.in") void onBilling(String m) {}
    void send(String topic) {
        rabbit.convertAndSend(queue, "x");
        jms.convertAndSend(AUDIT, "x");
        jms.send(topic, null);
    }
}
"#,
            r#"
config a.Mail -> mail.queue via value
config a.Mail.onMail -> mail.queue via placeholder
entry rabbit-listener mail.outbox a.Mail.onMail (mail/src/main/java/a/Mail.java:9)
topic consumes rabbitmq:mail.outbox by a.Mail.onMail
entry jms-listener billing.in a.Mail.onBilling (mail/src/main/java/a/Mail.java:10)
topic consumes jms:billing.in by a.Mail.onBilling
topic produces rabbitmq:mail.outbox by a.Mail.send
topic produces jms:audit.events by a.Mail.send
warning mail/src/main/java/a/Mail.java:14: jms producer: the topic of send(…) is not a literal, constant or config-bound field
"#,
        );
    }
}
