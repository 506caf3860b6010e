/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/** An order: a record with a compact constructor, a nested record and derived values. */
public record Order(String id, long customerId, List<Line> lines, Status status, Instant placed) implements Entity<String> {

    public enum Status {
        NEW, PAID, SHIPPED, CANCELLED;

        public boolean isFinal() {
            return this == SHIPPED || this == CANCELLED;
        }

        public Status next() {
            switch (this) {
                case NEW:
                    return PAID;
                case PAID:
                    return SHIPPED;
                default:
                    throw new IllegalStateException("no status after " + name());
            }
        }
    }

    /** One line of an order. */
    public record Line(String sku, int quantity, Money unitPrice) {
        public Line {
            Objects.requireNonNull(sku, "sku");
            if (quantity <= 0) {
                throw new IllegalArgumentException("quantity " + quantity);
            }
        }

        public Money total() {
            return unitPrice.times(quantity);
        }
    }

    public Order {
        lines = List.copyOf(lines);
        Objects.requireNonNull(status);
    }

    public Order(String id, long customerId, List<Line> lines) {
        this(id, customerId, lines, Status.NEW, Instant.now());
    }

    public Money total() {
        Money sum = Money.zero();
        for (Line l : lines) {
            sum = sum.plus(l.total());
        }
        return sum;
    }

    public Order advance() {
        return new Order(id, customerId, lines, status.next(), placed);
    }

    public Order cancel() {
        if (status.isFinal()) {
            throw new IllegalStateException(id + " is " + status.name().toLowerCase());
        }
        return new Order(id(), customerId(), lines(), Status.CANCELLED, placed());
    }

    public int itemCount() {
        return lines.stream().mapToInt(Line::quantity).sum();
    }
}
