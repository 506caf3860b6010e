/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

/** Anything a repository stores: it has an id of type ID. */
public interface Entity<ID extends Comparable<ID>> {
    ID id();

    default boolean sameIdentity(Entity<ID> other) {
        return other != null && id().compareTo(other.id()) == 0;
    }
}
