/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.events;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.ArrayDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Topic-based publish/subscribe: lambdas, method references, anonymous and local classes. */
public class EventBus {
    private static final Logger LOG = Logger.getLogger(EventBus.class.getName());

    private final Map<String, List<Listener<Event>>> listeners = new HashMap<>();
    private final Deque<Event> deadLetters = new ArrayDeque<>();
    private final AtomicLong published = new AtomicLong();
    private final List<Consumer<Event>> taps = new CopyOnWriteArrayList<>();

    /** A subscription that can be cancelled: an inner class using the bus's state. */
    public class Subscription implements AutoCloseable {
        private final String topic;
        private final Listener<Event> listener;

        Subscription(String topic, Listener<Event> listener) {
            this.topic = topic;
            this.listener = listener;
        }

        @Override
        public void close() {
            unsubscribe(topic, listener);
        }

        public String topic() {
            return topic;
        }
    }

    public Subscription subscribe(String topic, Listener<Event> listener) {
        listeners.computeIfAbsent(topic, t -> new ArrayList<>()).add(listener);
        return new Subscription(topic, listener);
    }

    public Subscription subscribe(String topic, Consumer<Event> consumer) {
        return subscribe(topic, (Listener<Event>) consumer::accept);
    }

    public void unsubscribe(String topic, Listener<Event> listener) {
        List<Listener<Event>> list = listeners.get(topic);
        if (list != null) {
            list.remove(listener);
        }
    }

    public void tap(Consumer<Event> tap) {
        taps.add(tap);
    }

    public int publish(Event event) {
        published.incrementAndGet();
        taps.forEach(t -> t.accept(event));
        List<Listener<Event>> list = listeners.getOrDefault(event.topic(), Collections.emptyList());
        if (list.isEmpty()) {
            deadLetters.addLast(event);
            return 0;
        }
        int delivered = 0;
        for (Listener<Event> l : list) {
            try {
                l.on(event);
                delivered++;
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "listener failed on " + event.topic(), e);
            }
        }
        return delivered;
    }

    public int publish(String topic) {
        return publish(new Event(topic));
    }

    public int publishAll(Event... events) {
        int total = 0;
        for (Event e : events) {
            total += publish(e);
        }
        return total;
    }

    public long published() {
        return published.get();
    }

    public List<Event> drainDeadLetters() {
        List<Event> out = new ArrayList<>(deadLetters);
        deadLetters.clear();
        return out;
    }

    public Listener<Event> counting(AtomicLong counter) {
        return new Listener<Event>() {
            @Override
            public void on(Event event) {
                counter.incrementAndGet();
                LOG.fine(() -> "counted " + event);
            }
        };
    }

    public Listener<Event> logging(Level level) {
        class LoggingListener implements Listener<Event> {
            private int seen;

            @Override
            public void on(Event event) {
                seen++;
                LOG.log(level, "event #" + seen + ": " + event);
            }
        }
        return new LoggingListener();
    }

    public <R> List<R> replay(List<Event> events, Function<? super Event, ? extends R> mapper) {
        List<R> out = new ArrayList<>();
        for (Event e : events) {
            out.add(mapper.apply(e));
        }
        return out;
    }

    public Map<String, Integer> listenerCounts() {
        Map<String, Integer> out = new HashMap<>();
        listeners.forEach((topic, list) -> out.put(topic, list.size()));
        return out;
    }

    public Runnable publisher(String topic) {
        return () -> publish(topic);
    }

    public Thread publishLater(Event event) {
        Thread t = new Thread(new Runnable() {
            @Override
            public void run() {
                publish(event);
            }
        }, "publisher-" + event.topic());
        t.setDaemon(true);
        return t;
    }
}
