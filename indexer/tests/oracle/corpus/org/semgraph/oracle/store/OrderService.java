/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.store;

import static java.util.stream.Collectors.*;
import static org.semgraph.oracle.util.Checks.*;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/** Orders placed against customers: streams, collectors, Optional chains and generics. */
public class OrderService {
    private final Repository<Order, String> orders;
    private final Repository<Customer, Long> customers;
    private final Map<String, Integer> stock = new HashMap<>();

    public OrderService(Repository<Order, String> orders, Repository<Customer, Long> customers) {
        this.orders = notNull(orders, "orders");
        this.customers = notNull(customers, "customers");
    }

    public OrderService() {
        this(new InMemoryRepository<>(), new InMemoryRepository<>());
    }

    public void restock(String sku, int quantity) {
        stock.merge(notBlank(sku, "sku"), positive(quantity, "quantity"), Integer::sum);
    }

    public Order place(long customerId, List<Order.Line> lines) {
        Customer customer = customers.require(customerId);
        notEmpty(lines, "lines");
        for (Order.Line line : lines) {
            int left = stock.getOrDefault(line.sku(), 0);
            state(left >= line.quantity(), () -> "not enough " + line.sku());
            stock.put(line.sku(), left - line.quantity());
        }
        Order order = new Order(UUID.randomUUID().toString(), customer.id(), lines);
        orders.save(order);
        customer.promote(spentBy(customerId));
        return order;
    }

    public Money spentBy(long customerId) {
        return orders.stream()
                .filter(o -> o.customerId() == customerId)
                .filter(o -> o.status() != Order.Status.CANCELLED)
                .map(Order::total)
                .reduce(Money.zero(), Money::plus);
    }

    public Map<Order.Status, Long> countByStatus() {
        return orders.stream().collect(groupingBy(Order::status, () -> new TreeMap<>(), counting()));
    }

    public Map<Long, List<String>> orderIdsByCustomer() {
        return orders.findAll().stream().collect(groupingBy(Order::customerId, mapping(Order::id, toList())));
    }

    public Map<String, Integer> quantityBySku() {
        Map<String, Integer> out = new LinkedHashMap<>();
        orders.stream().flatMap(o -> o.lines().stream()).forEach(l -> out.merge(l.sku(), l.quantity(), Integer::sum));
        return out;
    }

    public Optional<String> biggestCustomerName() {
        return orders.stream()
                .collect(groupingBy(Order::customerId, summingInt(Order::itemCount)))
                .entrySet()
                .stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .flatMap(customers::findById)
                .map(Customer::name);
    }

    public String report() {
        List<String> lines = new ArrayList<>();
        for (Map.Entry<Order.Status, Long> e : countByStatus().entrySet()) {
            lines.add(e.getKey().name().toLowerCase() + "=" + e.getValue());
        }
        return lines.stream().sorted().collect(joining(", ", "[", "]"));
    }

    public Set<String> skus() {
        return orders.stream().flatMap(o -> o.lines().stream().map(Order.Line::sku)).collect(Collectors.toCollection(java.util.TreeSet::new));
    }

    public DoubleSummaryStatistics orderValues() {
        return orders.stream().mapToDouble(o -> o.total().amount().doubleValue()).summaryStatistics();
    }

    public List<Order> recent(Duration window, Instant now) {
        var cutoff = now.minus(window);
        var result = new ArrayList<Order>();
        for (var o : orders.findAll()) {
            if (o.placed().isAfter(cutoff)) {
                result.add(o);
            }
        }
        result.sort(Comparator.comparing(Order::placed).reversed());
        return result;
    }

    public Map<String, Order> byId() {
        return orders.stream().collect(toMap(Order::id, Function.identity()));
    }

    public Order advance(String id) {
        Order next = orders.require(id).advance();
        return orders.save(next);
    }

    public boolean cancel(String id) {
        return orders.findById(id).map(Order::cancel).map(orders::save).isPresent();
    }

    public List<String> customerLabels() {
        return customers.findAll().stream()
                .flatMap(c -> c.addresses().stream())
                .map(Customer.Address::label)
                .collect(toList());
    }

    public int[] histogram(int buckets) {
        int[] counts = new int[buckets];
        IntStream.range(0, buckets).forEach(i -> counts[i] = 0);
        for (Order o : orders.findAll()) {
            int bucket = Math.min(buckets - 1, o.itemCount() / 10);
            counts[bucket]++;
        }
        return counts;
    }

    public String describeFirst() {
        Object first = orders.findAll().isEmpty() ? null : orders.findAll().get(0);
        return describe(first);
    }

    public String describeName(long customerId) {
        return describe(customers.findById(customerId).map(Customer::name).orElse(null));
    }
}
