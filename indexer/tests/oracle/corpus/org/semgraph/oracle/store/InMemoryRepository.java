/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/** A repository held in a sorted map, guarded by a read-write lock. */
public class InMemoryRepository<T extends Entity<ID>, ID extends Comparable<ID>> implements Repository<T, ID> {
    private final Map<ID, T> items = new TreeMap<>();
    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final List<Consumer<? super T>> onSave = new ArrayList<>();

    public InMemoryRepository() {
    }

    public InMemoryRepository(Iterable<? extends T> initial) {
        this();
        for (T t : initial) {
            items.put(t.id(), t);
        }
    }

    public void onSave(Consumer<? super T> listener) {
        onSave.add(listener);
    }

    @Override
    public T save(T entity) {
        lock.writeLock().lock();
        try {
            items.put(entity.id(), entity);
        } finally {
            lock.writeLock().unlock();
        }
        onSave.forEach(l -> l.accept(entity));
        return entity;
    }

    @Override
    public Optional<T> findById(ID id) {
        lock.readLock().lock();
        try {
            return Optional.ofNullable(items.get(id));
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public List<T> findAll() {
        lock.readLock().lock();
        try {
            return Collections.unmodifiableList(new ArrayList<>(items.values()));
        } finally {
            lock.readLock().unlock();
        }
    }

    @Override
    public boolean delete(ID id) {
        lock.writeLock().lock();
        try {
            return items.remove(id) != null;
        } finally {
            lock.writeLock().unlock();
        }
    }

    public List<T> sorted(Comparator<? super T> order) {
        List<T> all = new ArrayList<>(findAll());
        all.sort(order);
        return all;
    }

    public Optional<T> first() {
        return findAll().stream().findFirst();
    }

    public ID lastId() {
        lock.readLock().lock();
        try {
            return ((TreeMap<ID, T>) items).lastKey();
        } finally {
            lock.readLock().unlock();
        }
    }
}
