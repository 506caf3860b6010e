/*
 * Copyright 2026 the semgraph authors. Licensed under the Apache License, Version 2.0.
 */
package org.semgraph.oracle.app;

import static org.semgraph.oracle.util.Strings.*;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.semgraph.oracle.events.Event;
import org.semgraph.oracle.events.EventBus;
import org.semgraph.oracle.events.Listener;
import org.semgraph.oracle.shapes.Circle;
import org.semgraph.oracle.shapes.Rect;
import org.semgraph.oracle.shapes.Shape;
import org.semgraph.oracle.shapes.Shapes;
import org.semgraph.oracle.shapes.Square;
import org.semgraph.oracle.store.Customer;
import org.semgraph.oracle.store.InMemoryRepository;
import org.semgraph.oracle.store.Money;
import org.semgraph.oracle.store.Order;
import org.semgraph.oracle.store.OrderService;
import org.semgraph.oracle.text.JsonWriter;
import org.semgraph.oracle.text.Tokenizer;
import org.semgraph.oracle.util.Checks;
import org.semgraph.oracle.util.Graph;
import org.semgraph.oracle.util.LruCache;

/** Wires the corpus together the way an application would. */
public class Main {
    private final Map<Class<?>, Supplier<?>> factories = new HashMap<>();
    private final EventBus bus;
    private final OrderService service;

    public Main(EventBus bus) {
        this.bus = bus;
        InMemoryRepository<Customer, Long> customers = new InMemoryRepository<>();
        customers.save(new Customer(1L, "Ada"));
        customers.save(new Customer(2L, "Grace"));
        customers.onSave(c -> bus.publish(new Event("customer.saved", Map.of("id", c.id()))));
        this.service = new OrderService(new InMemoryRepository<>(), customers);
    }

    public Main() {
        this(new EventBus());
    }

    public <T> void register(Class<T> type, Supplier<? extends T> factory) {
        factories.put(type, factory);
    }

    public <T> T create(Class<T> type) {
        Supplier<?> f = factories.get(type);
        Checks.state(f != null, () -> "no factory for " + type.getSimpleName());
        return type.cast(f.get());
    }

    public String orders() {
        service.restock("apple", 10);
        service.restock("pear", 5);
        Order first = service.place(1L, List.of(new Order.Line("apple", 3, Money.of(120L))));
        service.place(2L, Arrays.asList(new Order.Line("pear", 1, Money.of("2.50")), new Order.Line("apple", 2, Money.of(new BigDecimal("1.20")))));
        service.advance(first.id());
        String name = service.biggestCustomerName().orElse("nobody");
        Money spent = service.spentBy(1L);
        return join(" / ", name, spent.toString(), service.report());
    }

    public String json() {
        JsonWriter w = new JsonWriter();
        w.beginObject().field("name", "corpus").field("count", 3).field("tags", List.of("a", "b"));
        w.name("ratio").value(0.5);
        w.name("big").value(1L << 40);
        w.name("nothing").value((String) null);
        w.name("boxed").value(Integer.valueOf(7));
        w.name("list").values(1, "two", 3.0, null);
        w.endObject();
        return w.toString();
    }

    public List<String> shapes() {
        List<Shape> all = new ArrayList<>(Shapes.squares(3));
        all.add(new Circle(2));
        all.add(new Rect(2, 3));
        all.add(Shapes.parse("circle:0.5"));
        Shape largest = Shape.largest(all.toArray(new Shape[0]));
        List<String> out = new ArrayList<>();
        out.add(largest.describe());
        out.add(Shapes.labels(List.of(new Shapes.Labeled("x", new Square(2)), new Shapes.Labeled("y", new Circle(1)))));
        out.add(pad(Shapes.totalArea(all), 12));
        Map<Shapes.Family, List<Shape>> families = Shapes.byFamily(all);
        for (var entry : families.entrySet()) {
            out.add(entry.getKey().name() + "=" + entry.getValue().size());
        }
        Shape unit = Shapes.unitFor(Shapes.Family.valueOf("ROUND"));
        out.add(capitalize(unit.describe()));
        return out;
    }

    public int tokens(String expression) {
        int sum = Tokenizer.evaluate(expression);
        for (Tokenizer.Token t : new Tokenizer(expression)) {
            if (t.kind() == Tokenizer.Kind.WORD) {
                sum += t.text().length();
            }
        }
        return sum + new Tokenizer(expression).all().size();
    }

    public String graph() {
        Graph<String> g = new Graph<String>().add("a", "b", 2).add("b", "c").add("a", "c", 5);
        Map<String, Double> d = g.shortestDistances("a");
        String path = g.path("a", "c").map(p -> String.join("->", p)).orElse("none");
        StringBuilder walk = new StringBuilder();
        g.depthFirst("a", (n, depth) -> walk.append(repeat(' ', depth)).append(n));
        return path + " " + d.get("c") + " " + walk + " cycle=" + g.hasCycle();
    }

    public double cache() {
        LruCache<String, Integer> cache = new LruCache<>(2);
        Function<String, Integer> length = String::length;
        cache.load("one", length);
        cache.load("two", length);
        cache.load("one", length);
        cache.load("three", s -> s.length() * 2);
        cache.warm(Map.of("four", 4));
        return cache.hitRatio() + cache.size();
    }

    public long events() {
        AtomicLong counter = new AtomicLong();
        try (EventBus.Subscription s = bus.subscribe("tick", bus.counting(counter))) {
            bus.subscribe("tick", bus.logging(Level.FINE).andThen(Listener.ignore()));
            bus.subscribe("tock", (Listener<Event>) e -> counter.addAndGet(10));
            bus.publishAll(new Event("tick"), new Event("tock"), new Event("nobody"));
            bus.publisher("tick").run();
            s.topic();
        }
        List<Integer> sizes = bus.replay(bus.drainDeadLetters(), e -> e.topic().length());
        return counter.get() + sizes.size() + bus.published();
    }

    public List<String> words(String text) {
        return Stream.of(text.split("\\s+"))
                .map(String::trim)
                .filter(w -> !w.isEmpty())
                .map(org.semgraph.oracle.util.Strings::snakeCase)
                .distinct()
                .collect(Collectors.toList());
    }

    public String misc() {
        IntFunction<String[]> arrays = String[]::new;
        BinaryOperator<Integer> max = Math::max;
        Function<String, Circle> circle = s -> new Circle(Double.parseDouble(s));
        Supplier<List<String>> lists = ArrayList::new;
        List<String> names = lists.get();
        names.add(Checks.describe("x"));
        names.add(Checks.describe(42));
        names.add(Checks.describe((Object) null));
        names.add(Objects.toString(max.apply(3, 4)));
        names.add(String.valueOf(arrays.apply(2).length));
        names.add(String.valueOf(circle.apply("1.5").area()));
        Optional<String> longest = names.stream().max((a, b) -> Integer.compare(a.length(), b.length()));
        return longest.map(String::toUpperCase).orElseGet(() -> "none") + count(String.join(",", names), ",");
    }

    public List<Order> recent() {
        return service.recent(Duration.ofHours(1), Instant.now());
    }

    public static void main(String[] args) {
        Main main = new Main();
        main.register(Circle.class, () -> new Circle(1));
        main.register(Square.class, () -> new Square(2));
        System.out.println(main.create(Circle.class).area());
        System.out.println(main.orders());
        System.out.println(main.json());
        main.shapes().forEach(System.out::println);
        System.out.println(main.tokens("1 + 2 - 3"));
        System.out.println(main.graph());
        System.out.println(main.cache());
        System.out.println(main.events());
        System.out.println(main.words("Hello camelCase World"));
        System.out.println(main.misc());
        System.out.println(main.recent().size());
    }
}
