/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.util;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.function.BiConsumer;

/** A weighted directed graph of nodes of any type, with the usual walks. */
public class Graph<N> {
    /** An edge to a node, with a weight. */
    public record Edge<N>(N to, double weight) {
    }

    private record Visit<N>(N node, double distance) implements Comparable<Visit<N>> {
        @Override
        public int compareTo(Visit<N> o) {
            return Double.compare(distance, o.distance);
        }
    }

    private final Map<N, List<Edge<N>>> out = new HashMap<>();

    public Graph<N> add(N from, N to, double weight) {
        out.computeIfAbsent(from, k -> new ArrayList<>()).add(new Edge<>(to, weight));
        out.computeIfAbsent(to, k -> new ArrayList<>());
        return this;
    }

    public Graph<N> add(N from, N to) {
        return add(from, to, 1.0);
    }

    public Set<N> nodes() {
        return Collections.unmodifiableSet(out.keySet());
    }

    public List<Edge<N>> edges(N from) {
        return out.getOrDefault(from, List.of());
    }

    public List<N> breadthFirst(N start) {
        List<N> order = new ArrayList<>();
        Set<N> seen = new HashSet<>();
        Deque<N> queue = new ArrayDeque<>();
        queue.add(start);
        seen.add(start);
        while (!queue.isEmpty()) {
            N n = queue.removeFirst();
            order.add(n);
            for (Edge<N> e : edges(n)) {
                if (seen.add(e.to())) {
                    queue.addLast(e.to());
                }
            }
        }
        return order;
    }

    public void depthFirst(N start, BiConsumer<N, Integer> visitor) {
        depthFirst(start, 0, new HashSet<>(), visitor);
    }

    private void depthFirst(N node, int depth, Set<N> seen, BiConsumer<N, Integer> visitor) {
        if (!seen.add(node)) {
            return;
        }
        visitor.accept(node, depth);
        for (Edge<N> e : edges(node)) {
            depthFirst(e.to(), depth + 1, seen, visitor);
        }
    }

    public Map<N, Double> shortestDistances(N source) {
        Map<N, Double> dist = new HashMap<>();
        PriorityQueue<Visit<N>> queue = new PriorityQueue<>();
        dist.put(source, 0.0);
        queue.add(new Visit<>(source, 0.0));
        while (!queue.isEmpty()) {
            Visit<N> v = queue.poll();
            if (v.distance() > dist.getOrDefault(v.node(), Double.MAX_VALUE)) {
                continue;
            }
            for (Edge<N> e : edges(v.node())) {
                double d = v.distance() + e.weight();
                if (d < dist.getOrDefault(e.to(), Double.MAX_VALUE)) {
                    dist.put(e.to(), d);
                    queue.add(new Visit<>(e.to(), d));
                }
            }
        }
        return dist;
    }

    public Optional<List<N>> path(N from, N to) {
        Map<N, N> parent = new HashMap<>();
        Deque<N> queue = new ArrayDeque<>(List.of(from));
        Set<N> seen = new LinkedHashSet<>(Set.of(from));
        while (!queue.isEmpty()) {
            N n = queue.poll();
            if (n.equals(to)) {
                List<N> path = new ArrayList<>();
                for (N at = to; at != null; at = parent.get(at)) {
                    path.add(at);
                }
                Collections.reverse(path);
                return Optional.of(path);
            }
            for (Edge<N> e : edges(n)) {
                if (seen.add(e.to())) {
                    parent.put(e.to(), n);
                    queue.add(e.to());
                }
            }
        }
        return Optional.empty();
    }

    public boolean hasCycle() {
        Set<N> done = new HashSet<>();
        Set<N> active = new HashSet<>();
        for (N n : out.keySet()) {
            if (cycleFrom(n, done, active)) {
                return true;
            }
        }
        return false;
    }

    private boolean cycleFrom(N n, Set<N> done, Set<N> active) {
        if (active.contains(n)) {
            return true;
        }
        if (!done.add(n)) {
            return false;
        }
        active.add(n);
        for (Edge<N> e : edges(n)) {
            if (cycleFrom(e.to(), done, active)) {
                return true;
            }
        }
        active.remove(n);
        return false;
    }

    public int inDegree(N node) {
        int count = 0;
        for (List<Edge<N>> edges : out.values()) {
            for (Edge<N> e : edges) {
                if (e.to().equals(node)) {
                    count++;
                }
            }
        }
        return count;
    }
}
