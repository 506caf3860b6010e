/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.shapes;

/** A plane figure. */
public interface Shape extends Comparable<Shape> {
    double area();

    double perimeter();

    default String describe() {
        return getClass().getSimpleName() + String.format("[area=%.2f]", area());
    }

    @Override
    default int compareTo(Shape other) {
        return Double.compare(area(), other.area());
    }

    static Shape largest(Shape... shapes) {
        Shape best = null;
        for (Shape s : shapes) {
            if (best == null || s.compareTo(best) > 0) {
                best = s;
            }
        }
        return best;
    }
}
