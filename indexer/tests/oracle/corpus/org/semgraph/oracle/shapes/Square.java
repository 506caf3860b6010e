/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.shapes;

/** A square is a rectangle with equal sides. */
public class Square extends Rect {
    public Square(double side) {
        super(side, side);
    }

    public double side() {
        return width;
    }

    @Override
    public String describe() {
        return "square, " + super.describe();
    }

    @Override
    public Rect rotated() {
        return this;
    }

    @Override
    public double perimeter() {
        return 4 * side();
    }
}
