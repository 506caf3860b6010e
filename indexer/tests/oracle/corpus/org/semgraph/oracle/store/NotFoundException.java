/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

/** An entity that should be there is not. */
public class NotFoundException extends RuntimeException {
    private final Object id;

    public NotFoundException(Object id) {
        this("no entity with id " + id, id);
    }

    public NotFoundException(String message, Object id) {
        super(message);
        this.id = id;
    }

    public Object getId() {
        return id;
    }

    @Override
    public String getMessage() {
        return super.getMessage() + " (" + getId() + ")";
    }
}
