/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.shapes;

/** A rectangle; Square overrides it and calls up with super. */
public class Rect implements Shape {
    protected final double width;
    protected final double height;

    public Rect(double width, double height) {
        this.width = width;
        this.height = height;
    }

    @Override
    public double area() {
        return width * height;
    }

    @Override
    public double perimeter() {
        return 2 * (width + height);
    }

    @Override
    public String describe() {
        return "rect " + width + "x" + height + " " + Shape.super.describe();
    }

    public Rect rotated() {
        return new Rect(height, width);
    }

    public boolean isSquare() {
        return Double.compare(width, height) == 0;
    }
}
