/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.util;

import java.util.Collection;
import java.util.Objects;
import java.util.function.Supplier;

/** Argument checks shared by the corpus; statically imported on demand elsewhere. */
public final class Checks {
    private Checks() {
    }

    public static <T> T notNull(T value, String name) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    public static String notBlank(String value, String name) {
        notNull(value, name);
        if (value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        return value.trim();
    }

    public static int positive(int value, String name) {
        if (value <= 0) {
            throw new IllegalArgumentException(String.format("%s must be positive, was %d", name, value));
        }
        return value;
    }

    public static long positive(long value, String name) {
        if (value <= 0L) {
            throw new IllegalArgumentException(String.format("%s must be positive, was %d", name, value));
        }
        return value;
    }

    public static <C extends Collection<?>> C notEmpty(C values, String name) {
        notNull(values, name);
        if (values.isEmpty()) {
            throw new IllegalArgumentException(name + " must not be empty");
        }
        return values;
    }

    public static void state(boolean condition, Supplier<String> message) {
        if (!condition) {
            throw new IllegalStateException(message.get());
        }
    }

    public static boolean same(Object a, Object b) {
        return Objects.equals(a, b);
    }

    public static String describe(Object value) {
        return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
    }

    public static String describe(String value) {
        return value == null ? "null" : "'" + value + "'";
    }

    public static String describe(Integer value) {
        return "int " + value;
    }
}
