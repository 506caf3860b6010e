/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.events;

/** Receives events; a functional interface with default combinators. */
@FunctionalInterface
public interface Listener<E extends Event> {
    void on(E event);

    default Listener<E> andThen(Listener<? super E> next) {
        return e -> {
            on(e);
            next.on(e);
        };
    }

    default Listener<E> onlyIf(java.util.function.Predicate<? super E> condition) {
        return e -> {
            if (condition.test(e)) {
                on(e);
            }
        };
    }

    static <E extends Event> Listener<E> ignore() {
        return e -> { };
    }
}
