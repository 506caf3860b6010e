/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.util;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/** A least-recently-used cache: inherits most of what it does from JDK supertypes. */
public class LruCache<K, V> extends LinkedHashMap<K, V> {
    private final int capacity;
    private long hits;
    private long misses;

    public LruCache(int capacity) {
        super(16, 0.75f, true);
        this.capacity = Checks.positive(capacity, "capacity");
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }

    public V load(K key, Function<? super K, ? extends V> loader) {
        V value = get(key);
        if (value != null) {
            hits++;
            return value;
        }
        misses++;
        value = loader.apply(key);
        put(key, value);
        return value;
    }

    public double hitRatio() {
        long total = hits + misses;
        return total == 0 ? 0.0 : (double) hits / total;
    }

    public boolean warm(Map<? extends K, ? extends V> entries) {
        putAll(entries);
        return !isEmpty() && containsKey(entries.keySet().iterator().next());
    }

    @Override
    public V put(K key, V value) {
        Checks.notNull(key, "key");
        return super.put(key, value);
    }
}
