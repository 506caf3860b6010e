/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Currency;
import java.util.Objects;

/** An amount in a currency; overloads that boxing, widening and null pick between. */
public final class Money implements Comparable<Money> {
    public static final String DEFAULT_CURRENCY = "EUR";
    private final BigDecimal amount;
    private final Currency currency;

    public Money(BigDecimal amount, Currency currency) {
        this.amount = amount.setScale(2, RoundingMode.HALF_EVEN);
        this.currency = Objects.requireNonNull(currency);
    }

    public Money(long cents, String currency) {
        this(BigDecimal.valueOf(cents, 2), Currency.getInstance(currency));
    }

    public Money(double amount) {
        this(BigDecimal.valueOf(amount), Currency.getInstance(DEFAULT_CURRENCY));
    }

    public static Money of(long cents) {
        return new Money(cents, DEFAULT_CURRENCY);
    }

    public static Money of(String amount) {
        return new Money(new BigDecimal(amount), Currency.getInstance(DEFAULT_CURRENCY));
    }

    public static Money of(BigDecimal amount) {
        return new Money(amount, Currency.getInstance(DEFAULT_CURRENCY));
    }

    public static Money zero() {
        return of(0L);
    }

    public Money plus(Money other) {
        requireSameCurrency(other);
        return new Money(amount.add(other.amount), currency);
    }

    public Money times(int factor) {
        return new Money(amount.multiply(BigDecimal.valueOf(factor)), currency);
    }

    public Money times(double factor) {
        return new Money(amount.multiply(BigDecimal.valueOf(factor)), currency);
    }

    public Money times(BigDecimal factor) {
        return new Money(amount.multiply(factor), currency);
    }

    public boolean isZero() {
        return amount.signum() == 0;
    }

    public BigDecimal amount() {
        return amount;
    }

    public Currency currency() {
        return currency;
    }

    private void requireSameCurrency(Money other) {
        if (!currency.equals(other.currency)) {
            throw new IllegalArgumentException("currency mismatch: " + currency.getCurrencyCode() + " vs " + other.currency.getCurrencyCode());
        }
    }

    @Override
    public int compareTo(Money o) {
        requireSameCurrency(o);
        return amount.compareTo(o.amount);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Money)) {
            return false;
        }
        Money m = (Money) o;
        return amount.equals(m.amount) && currency.equals(m.currency);
    }

    @Override
    public int hashCode() {
        return Objects.hash(amount, currency);
    }

    @Override
    public String toString() {
        return amount.toPlainString() + " " + currency.getCurrencyCode();
    }
}
