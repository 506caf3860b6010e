/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A store of entities by id, generic in both. */
public interface Repository<T extends Entity<ID>, ID extends Comparable<ID>> {
    T save(T entity);

    Optional<T> findById(ID id);

    List<T> findAll();

    boolean delete(ID id);

    default List<T> saveAll(Collection<? extends T> entities) {
        List<T> saved = new java.util.ArrayList<>();
        for (T e : entities) {
            saved.add(save(e));
        }
        return saved;
    }

    default Stream<T> stream() {
        return findAll().stream();
    }

    default List<T> where(Predicate<? super T> filter) {
        return stream().filter(filter).collect(java.util.stream.Collectors.toList());
    }

    default long count() {
        return stream().count();
    }

    default T require(ID id) {
        return findById(id).orElseThrow(() -> new NotFoundException(id));
    }
}
