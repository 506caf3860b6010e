//! Spring application events, an in-process topic: `@EventListener` and
//! `@TransactionalEventListener` methods (and `ApplicationListener<E>.onApplicationEvent`)
//! consume the event types they declare — the annotation's `classes`/`value`, else the
//! method's parameter — and a call of `ApplicationEventPublisher.publishEvent(x)` (or an
//! `ApplicationContext`'s) produces the type of `x` and each of its supertypes in the
//! product (a listener of a supertype hears its subtypes). The topic is the event type's
//! fqn, scoped to the service: events never leave the JVM that publishes them.

use super::annotations::{find, values};
use super::{call_site, EntryPoint, Finding, Findings, Flow, Product, Recogniser, TopicUse};
use crate::facts::CodeFile;
use crate::resolve::{MethodKey, ResolvedCall, SymbolTable, Target};

/// The broker name of in-process events.
const BROKER: &str = "spring-event";
const LISTENERS: &[&str] = &["EventListener", "TransactionalEventListener"];
const PUBLISHERS: &[&str] = &[
    "ApplicationEventPublisher",
    "ApplicationContext",
    "ConfigurableApplicationContext",
    "AbstractApplicationContext",
    "GenericApplicationContext",
];

pub(crate) struct SpringEvents;

impl Recogniser for SpringEvents {
    fn declared(&self, product: &Product<'_>, file: &CodeFile, out: &mut Findings) {
        let scope = (product.service_of)(&file.path);
        for t in &file.types {
            let listener_type = super::implements(
                product.table,
                &t.fqn,
                &["org.springframework.context.ApplicationListener"],
            );
            for m in &t.methods {
                let annotated = LISTENERS.iter().find_map(|n| find(&m.annotations, n));
                let events: Vec<String> = match annotated {
                    Some(a) => {
                        let classes = values(a, &["classes", "value"]);
                        if classes.is_empty() {
                            m.params.first().map(|p| p.ty.clone()).into_iter().collect()
                        } else {
                            classes
                                .iter()
                                .map(|c| c.trim_end_matches(".class").to_string())
                                .collect()
                        }
                    }
                    None if listener_type.is_some()
                        && m.name == "onApplicationEvent"
                        && m.params.len() == 1 =>
                    {
                        vec![m.params[0].ty.clone()]
                    }
                    None => continue,
                };
                for written in events {
                    let event = event_type(product.table, &written, &t.fqn);
                    out.push(Finding::EntryPoint(EntryPoint {
                        kind: "event-listener",
                        trigger: event.clone(),
                        broker: Some(BROKER),
                        file: file.path.clone(),
                        lines: (m.line_start, m.line_end),
                        handler: MethodKey::of(t, m),
                        handler_name: format!("{}.{}", t.fqn, m.name),
                    }));
                    out.push(Finding::Topic(TopicUse {
                        method: MethodKey::of(t, m),
                        broker: BROKER,
                        topic: event,
                        flow: Flow::Consumes,
                        scope: scope.clone(),
                    }));
                }
            }
        }
    }

    fn calls(&self, product: &Product<'_>, file: &CodeFile, calls: &[ResolvedCall], out: &mut Findings) {
        let scope = (product.service_of)(&file.path);
        for call in calls {
            let Target::External { type_fqn, method } = &call.target else {
                continue;
            };
            if method != "publishEvent" || !PUBLISHERS.contains(&super::annotations::short(type_fqn)) {
                continue;
            }
            let Some((t, _, site)) = call_site(file, call) else {
                continue;
            };
            let event = site
                .arg_types
                .first()
                .cloned()
                .flatten()
                .map(|written| event_type(product.table, &written, &t.fqn))
                .filter(|e| !matches!(e.as_str(), "java.lang.Object" | "Object"));
            let Some(event) = event else {
                out.warn(
                    &file.path,
                    Some(call.line as u32),
                    "publishEvent(…): the event's type is not known where it is published",
                );
                continue;
            };
            for event in with_supertypes(product.table, &event) {
                out.push(Finding::Topic(TopicUse {
                    method: call.caller.clone(),
                    broker: BROKER,
                    topic: event,
                    flow: Flow::Produces,
                    scope: scope.clone(),
                }));
            }
        }
    }
}

/// The fqn of an event type written in type `from` (generics dropped), or the written
/// name when nothing in scope declares it.
fn event_type(table: &SymbolTable, written: &str, from: &str) -> String {
    table
        .resolve_type(written, from)
        .map(|r| r.fqn)
        .unwrap_or_else(|| crate::facts::erase(written))
}

/// `fqn` and its supertypes the product declares, nearest first.
fn with_supertypes(table: &SymbolTable, fqn: &str) -> Vec<String> {
    let mut out = vec![fqn.to_string()];
    let mut i = 0;
    while i < out.len() && out.len() < 32 {
        if let Some(t) = table.get(&out[i]) {
            for sup in t.superclass.iter().chain(&t.interfaces) {
                if table.get(sup).is_some() && !out.iter().any(|o| **o == **sup) {
                    out.push(sup.to_string());
                }
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::frameworks::testing::check;

    #[test]
    fn published_events_reach_the_listeners_of_their_type_and_supertypes_in_the_service() {
        check(
            r#"
//- /orders/src/main/java/a/Events.java
package a;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationListener;
class OrderEvent {}
class OrderPlaced extends OrderEvent {}
class Placer {
    private final ApplicationEventPublisher events;
    void place() { events.publishEvent(new OrderPlaced()); }
    void dynamic(Object e) { events.publishEvent(e); }
}
class Mailer {
    @EventListener void on(OrderPlaced e) {}
    @TransactionalEventListener(classes = OrderEvent.class) void any() {}
}
class Audit implements ApplicationListener<OrderEvent> { public void onApplicationEvent(OrderEvent e) {} }
"#,
            r#"
entry event-listener a.OrderPlaced a.Mailer.on (orders/src/main/java/a/Events.java:12)
topic consumes spring-event:a.OrderPlaced in orders by a.Mailer.on
entry event-listener a.OrderEvent a.Mailer.any (orders/src/main/java/a/Events.java:13)
topic consumes spring-event:a.OrderEvent in orders by a.Mailer.any
entry event-listener a.OrderEvent a.Audit.onApplicationEvent (orders/src/main/java/a/Events.java:15)
topic consumes spring-event:a.OrderEvent in orders by a.Audit.onApplicationEvent
topic produces spring-event:a.OrderPlaced in orders by a.Placer.place
topic produces spring-event:a.OrderEvent in orders by a.Placer.place
warning orders/src/main/java/a/Events.java:9: publishEvent(…): the event's type is not known where it is published
"#,
        );
    }
}
