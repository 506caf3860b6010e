/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** A customer, with tiers and addresses: an entity with a nested enum and an inner class. */
public class Customer implements Entity<Long> {
    public enum Tier {
        BRONZE(0), SILVER(5), GOLD(10) {
            @Override
            public int discountPercent() {
                return super.discountPercent() + 2;
            }
        };

        private final int discount;

        Tier(int discount) {
            this.discount = discount;
        }

        public int discountPercent() {
            return discount;
        }

        public static Tier forSpend(Money spent) {
            if (spent.compareTo(Money.of(100_000L)) >= 0) {
                return GOLD;
            }
            return spent.compareTo(Money.of(10_000L)) >= 0 ? SILVER : BRONZE;
        }
    }

    /** An address belongs to its customer: an inner class that reads the outer one. */
    public class Address {
        private final String line;
        private final String city;

        public Address(String line, String city) {
            this.line = line;
            this.city = city;
        }

        public String label() {
            return name + ", " + line + ", " + city;
        }

        public Customer owner() {
            return Customer.this;
        }
    }

    private final Long id;
    private final String name;
    private final LocalDate since;
    private Tier tier = Tier.BRONZE;
    private final List<Address> addresses = new ArrayList<>();
    private final Set<Tier> history = EnumSet.noneOf(Tier.class);

    public Customer(Long id, String name, LocalDate since) {
        this.id = id;
        this.name = name;
        this.since = since;
        history.add(tier);
    }

    public Customer(long id, String name) {
        this(Long.valueOf(id), name, LocalDate.now());
    }

    @Override
    public Long id() {
        return id;
    }

    public String name() {
        return name;
    }

    public LocalDate since() {
        return since;
    }

    public Tier tier() {
        return tier;
    }

    public void promote(Money spent) {
        Tier next = Tier.forSpend(spent);
        if (next.ordinal() > tier.ordinal()) {
            tier = next;
            history.add(next);
        }
    }

    public Address addAddress(String line, String city) {
        Address a = new Address(line, city);
        addresses.add(a);
        return a;
    }

    public Address addAddress(String line) {
        return this.new Address(line, "unknown");
    }

    public List<Address> addresses() {
        return addresses;
    }

    public boolean wasEver(Tier t) {
        return history.contains(t);
    }

    public int loyaltyYears(LocalDate today) {
        return since.until(today).getYears();
    }
}
