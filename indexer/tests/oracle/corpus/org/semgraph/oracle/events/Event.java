/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.events;

import java.time.Instant;
import java.util.Map;

/** Something that happened, with a topic and attributes. */
public class Event {
    private final String topic;
    private final Instant at;
    private final Map<String, Object> attributes;

    public Event(String topic, Map<String, Object> attributes) {
        this(topic, Instant.now(), attributes);
    }

    public Event(String topic, Instant at, Map<String, Object> attributes) {
        this.topic = topic;
        this.at = at;
        this.attributes = Map.copyOf(attributes);
    }

    public Event(String topic) {
        this(topic, Map.of());
    }

    public String topic() {
        return topic;
    }

    public Instant at() {
        return at;
    }

    public Object attribute(String key) {
        return attributes.get(key);
    }

    public <T> T attribute(String key, Class<T> type) {
        Object value = attributes.get(key);
        return type.isInstance(value) ? type.cast(value) : null;
    }

    public boolean has(String key) {
        return attributes.containsKey(key);
    }

    @Override
    public String toString() {
        return topic + "@" + at + attributes.keySet();
    }
}
