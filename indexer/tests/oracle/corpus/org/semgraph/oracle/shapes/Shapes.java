/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.shapes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/** Works on shapes: casts, instanceof patterns, conditional receivers, nested classes. */
public final class Shapes {
    public enum Family {
        ROUND, ANGULAR
    }

    /** A shape with a label: a static nested class. */
    public static final class Labeled {
        private final String label;
        private final Shape shape;

        public Labeled(String label, Shape shape) {
            this.label = label;
            this.shape = shape;
        }

        public String label() {
            return label;
        }

        public Shape shape() {
            return shape;
        }
    }

    private Shapes() {
    }

    public static Family family(Shape s) {
        return s instanceof Circle ? Family.ROUND : Family.ANGULAR;
    }

    public static double size(Object o) {
        if (o instanceof Circle c) {
            return c.radius();
        }
        if (o instanceof Square sq) {
            return sq.side();
        }
        if (o instanceof Rect) {
            return ((Rect) o).area();
        }
        return o instanceof Shape ? ((Shape) o).area() : 0.0;
    }

    public static Shape bigger(Shape a, Shape b) {
        return (a.compareTo(b) >= 0 ? a : b);
    }

    public static String biggerDescription(Shape a, Shape b) {
        return (a.area() >= b.area() ? a : b).describe();
    }

    public static Shape parse(String spec) {
        String[] parts = spec.split(":");
        switch (parts[0]) {
            case "circle":
                return new Circle(Double.parseDouble(parts[1]));
            case "square":
                return new Square(Double.parseDouble(parts[1]));
            case "rect":
                return new Rect(Double.parseDouble(parts[1]), Double.parseDouble(parts[2]));
            default:
                throw new IllegalArgumentException("unknown shape " + parts[0]);
        }
    }

    public static Map<Family, List<Shape>> byFamily(List<? extends Shape> shapes) {
        Map<Family, List<Shape>> out = new EnumMap<>(Family.class);
        for (Family f : Family.values()) {
            out.put(f, new ArrayList<>());
        }
        for (Shape s : shapes) {
            out.get(family(s)).add(s);
        }
        return out;
    }

    public static Optional<Labeled> largestLabeled(List<Labeled> shapes) {
        return shapes.stream().max(Comparator.comparingDouble(l -> l.shape().area()));
    }

    public static String labels(List<Labeled> shapes) {
        return shapes.stream().map(Labeled::label).sorted(Comparator.reverseOrder()).collect(Collectors.joining(","));
    }

    public static double totalArea(List<? extends Shape> shapes) {
        return shapes.stream().mapToDouble(Shape::area).sum();
    }

    public static List<Circle> grow(List<Circle> circles, DoubleUnaryOperator growth) {
        List<Circle> out = new ArrayList<>();
        for (Circle c : circles) {
            out.add(new Circle(growth.applyAsDouble(c.radius())));
        }
        return out;
    }

    public static Supplier<Shape> factory(String spec) {
        return () -> parse(spec);
    }

    public static List<Shape> squares(int n) {
        List<Shape> out = new ArrayList<>();
        for (int i = 1; i <= n; i++) {
            out.add(new Square(i));
        }
        return out;
    }

    public static String summary(List<Shape> shapes) {
        StringBuilder sb = new StringBuilder();
        for (Shape s : shapes) {
            sb.append(s.describe()).append('\n');
        }
        return sb.toString().trim();
    }

    public static Shape unitFor(Family f) {
        return switch (f) {
            case ROUND -> new Circle(1);
            case ANGULAR -> new Square(1);
        };
    }
}
