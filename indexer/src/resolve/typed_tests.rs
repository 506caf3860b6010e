//! Fixtures for the typed rules of Java call resolution: each rule of `typed.rs` on a
//! small product, with the calls it must give and the ones it must refuse.

use super::java_tests::check;

#[test]
fn lambda_parameters_typed_from_the_target_of_a_generic_factory() {
    check(
        r#"
//- /src/a/Shape.java
package a;
public interface Shape { double area(); }
//- /src/a/Labeled.java
package a;
public record Labeled(String label, Shape shape) {}
//- /src/a/Shapes.java
package a;
import java.util.*;
public class Shapes {
    static Optional<Labeled> largest(List<Labeled> shapes) {
        return shapes.stream().max(Comparator.comparingDouble(l -> l.shape().area()));
    }
}
"#,
        r#"
a.Shapes.largest -> a.Labeled.shape
a.Shapes.largest -> a.Shape.area
a.Shapes.largest -> ext java.util.Collection.stream
a.Shapes.largest -> ext java.util.Comparator.comparingDouble
a.Shapes.largest -> ext java.util.stream.Stream.max
"#,
    );
}

#[test]
fn collectors_and_static_factories_in_arguments() {
    check(
        r#"
//- /src/a/Order.java
package a;
public record Order(String customer, int total) {}
//- /src/a/Report.java
package a;
import java.util.*;
import java.util.stream.Collectors;
public class Report {
    Map<String, Integer> totals(List<Order> orders) {
        return orders.stream().collect(Collectors.groupingBy(Order::customer, Collectors.summingInt(Order::total)));
    }
    List<String> names(List<Order> orders) {
        return orders.stream().map(o -> o.customer()).collect(Collectors.toList());
    }
}
"#,
        r#"
a.Report.names -> a.Order.customer
a.Report.names -> ext java.util.Collection.stream
a.Report.names -> ext java.util.stream.Collectors.toList
a.Report.names -> ext java.util.stream.Stream.collect
a.Report.names -> ext java.util.stream.Stream.map
a.Report.totals -> a.Order.customer
a.Report.totals -> a.Order.total
a.Report.totals -> ext java.util.Collection.stream
a.Report.totals -> ext java.util.stream.Collectors.groupingBy
a.Report.totals -> ext java.util.stream.Collectors.summingInt
a.Report.totals -> ext java.util.stream.Stream.collect
"#,
    );
}

#[test]
fn overloads_told_apart_only_by_a_jdk_typed_argument() {
    check(
        r#"
//- /src/a/Sink.java
package a;
import java.util.*;
public class Sink {
    public void put(List<String> xs) {}
    public void put(Map<String, String> m) {}
    public void put(Optional<String> o) {}
    public void num(long x) {}
    public void num(Integer x) {}
    void run(Map<String, List<String>> index) {
        put(index.get("k"));
        put(new HashMap<>());
        put(Optional.of("x"));
        num(3);
        num(Integer.valueOf(3));
    }
}
"#,
        r#"
a.Sink.run -> a.Sink.num(Integer)
a.Sink.run -> a.Sink.num(long)
a.Sink.run -> a.Sink.put(List)
a.Sink.run -> a.Sink.put(Map)
a.Sink.run -> a.Sink.put(Optional)
a.Sink.run -> ext java.lang.Integer.valueOf
a.Sink.run -> ext java.util.HashMap.<init>
a.Sink.run -> ext java.util.Map.get
a.Sink.run -> ext java.util.Optional.of
"#,
    );
}

#[test]
fn generic_self_types_follow_the_subclass_through_a_chain() {
    check(
        r#"
//- /src/a/AbstractAssert.java
package a;
public abstract class AbstractAssert<SELF extends AbstractAssert<SELF, A>, A> {
    protected A actual;
    public SELF isNotNull() { return null; }
    public SELF isEqualTo(A other) { return null; }
}
//- /src/a/StringAssert.java
package a;
public class StringAssert extends AbstractAssert<StringAssert, String> {
    public StringAssert startsWith(String p) { return this; }
}
//- /src/a/Assertions.java
package a;
public class Assertions {
    public static StringAssert assertThat(String s) { return null; }
}
//- /src/a/UseIt.java
package a;
import static a.Assertions.assertThat;
public class UseIt {
    void check(String s) {
        assertThat(s).isNotNull().startsWith("x").isEqualTo("y").startsWith("z");
    }
}
"#,
        r#"
a.UseIt.check -> a.AbstractAssert.isEqualTo
a.UseIt.check -> a.AbstractAssert.isNotNull
a.UseIt.check -> a.Assertions.assertThat
a.UseIt.check -> a.StringAssert.startsWith
"#,
    );
}

#[test]
fn casts_and_patterns_narrow_the_receiver() {
    check(
        r#"
//- /src/a/Shape.java
package a;
public class Shape { public double area() { return 0; } }
//- /src/a/Circle.java
package a;
public class Circle extends Shape { public double radius() { return 1; } }
//- /src/a/Use.java
package a;
public class Use {
    double f(Object o, Shape s) {
        double r = 0;
        if (o instanceof Circle c) {
            r += c.radius();
        }
        r += ((Circle) s).radius();
        Object x = s;
        r += switch (x) {
            case Circle k -> k.radius();
            default -> s.area();
        };
        return r;
    }
}
"#,
        r#"
a.Use.f -> a.Circle.radius
a.Use.f -> a.Shape.area
"#,
    );
}

#[test]
fn an_overload_sure_although_the_argument_has_unknown_supertypes() {
    // `Context` extends a type no layer knows, so whether it is also a `Map` or a
    // `Comparable` cannot be told. `Provider` surely applies, and neither `Map` nor
    // `Comparable` (nor a type variable bounded by it) is more specific than `Provider`:
    // were one of them to apply as well, no overload would be most specific and the code
    // would not compile. So `accept(Provider)` is the one called. In `narrow` the sure
    // overload is `offer(Iterable)`, and `Collection`, a subtype of `Iterable` that the
    // unknown supertype may implement, would be more specific: that call stays open.
    check(
        r#"
//- /src/a/Provider.java
package a;
public interface Provider { }
//- /src/a/Context.java
package a;
import org.other.Base;
public abstract class Context extends Base implements Provider, Iterable<String> { }
//- /src/a/Checks.java
package a;
public class Checks {
    public static void accept(Provider p) {}
    public static void accept(Object o) {}
    public static void accept(java.util.Map<?, ?> m) {}
    public static <T extends Comparable<? super T>> void accept(T t) {}
    public static void offer(Iterable<?> it) {}
    public static void offer(java.util.Collection<?> c) {}
    public static void offer(Object o) {}
}
//- /src/a/Use.java
package a;
public class Use {
    void run(Context c) {
        Checks.accept(c);
    }
    void narrow(Context c) {
        Checks.offer(c);
    }
}
"#,
        r#"
a.Use.narrow -> one of 3: a.Checks.offer(Iterable) | a.Checks.offer(Collection) | a.Checks.offer(Object)
a.Use.run -> a.Checks.accept(Provider)
"#,
    );
}

#[test]
fn method_references_on_fields_of_this_literals_class_literals_and_interface_super() {
    check(
        r#"
//- /src/a/Support.java
package a;
public class Support { public boolean keep(String s) { return true; } }
//- /src/a/Named.java
package a;
public interface Named { default String name() { return "n"; } }
//- /src/a/Filter.java
package a;
import java.util.List;
import java.util.stream.Collectors;
public class Filter implements Named {
    private final Support support = new Support();
    public String name() { return "f"; }
    List<String> run(List<String> xs, List<Object> os) {
        xs.removeIf(this.support::keep);
        xs.removeIf("x"::equals);
        os.removeIf(String.class::isInstance);
        java.util.function.Supplier<String> s = Named.super::name;
        return xs.stream().filter(this::kept).collect(Collectors.toList());
    }
    boolean kept(String s) { return true; }
}
"#,
        r#"
a.Filter.<init> -> a.Support.<init>
a.Filter.run -> a.Filter.kept
a.Filter.run -> a.Named.name
a.Filter.run -> a.Support.keep
a.Filter.run -> ext java.lang.Class.isInstance
a.Filter.run -> ext java.lang.String.equals
a.Filter.run -> ext java.util.Collection.removeIf
a.Filter.run -> ext java.util.Collection.stream
a.Filter.run -> ext java.util.stream.Collectors.toList
a.Filter.run -> ext java.util.stream.Stream.collect
a.Filter.run -> ext java.util.stream.Stream.filter
"#,
    );
}

#[test]
fn a_call_on_a_library_type_no_layer_models_is_named_at_that_type() {
    // `container()` returns `C`, bound to `RedisContainer`, which the file imports and no
    // layer models: `getHost` is that type's method by name, as `getPort` is on a local
    // declared `RedisContainer`. `Mystery`, which nothing imports, stays unknown. A value of
    // `T extends Jar & Archive` may take its member from either bound: with `Jar`
    // unmodelled, `mainClass` is not named at `Jar`; and `T extends Number &
    // Comparable<T>` has `compareTo` though `Number` has none: not looked up in the first
    // bound alone.
    check(
        r#"
//- /src/a/Details.java
package a;
public abstract class Details<C> {
    public C container() { return null; }
}
//- /src/a/RedisDetails.java
package a;
import org.testcontainers.RedisContainer;
public class RedisDetails extends Details<RedisContainer> {
    String host(RedisContainer local) {
        local.getPort();
        return container().getHost();
    }
}
//- /src/a/Archive.java
package a;
public interface Archive { String mainClass(); }
//- /src/a/ArchiveTests.java
package a;
import org.gradle.Jar;
public abstract class ArchiveTests<T extends Jar & Archive> {
    T task;
    String main() { return this.task.mainClass(); }
}
//- /src/a/Other.java
package a;
public class Other extends Details<Mystery> {
    String host() { return container().getHost(); }
}
//- /src/a/Ranges.java
package a;
public class Ranges {
    static <T extends Number & Comparable<T>> boolean positive(T v, T zero) { return v.compareTo(zero) > 0; }
}
"#,
        r#"
a.ArchiveTests.main -> ? type T of field task unknown
a.Other.host -> ? return type C of a.Details.container not typed
a.Other.host -> a.Details.container
a.Ranges.positive -> ? type T of v unknown
a.RedisDetails.host -> a.Details.container
a.RedisDetails.host -> ext org.testcontainers.RedisContainer.getHost
a.RedisDetails.host -> ext org.testcontainers.RedisContainer.getPort
"#,
    );
}

#[test]
fn a_lambda_parameter_whose_type_mentions_a_variable_nothing_binds() {
    // `of(Consumer<Members<T>>)` with nothing to bind `T`: the lambda's parameter is a
    // `Members` whatever `T` is, and its calls are `Members`' methods. `each(Consumer<T>)`
    // leaves the parameter itself unbound: unknown, not an `Object`.
    check(
        r#"
//- /src/a/JsonWriter.java
package a;
import java.util.function.Consumer;
public interface JsonWriter<T> {
    void write(T t);
    static <T> JsonWriter<T> of(Consumer<Members<T>> members) { return null; }
    static <T> void each(Consumer<T> action) {}
    final class Members<T> {
        public void add() {}
        public void add(String name) {}
    }
}
//- /src/a/Use.java
package a;
class Use {
    void run() {
        JsonWriter.of((members) -> members.add("x"));
        JsonWriter.of(m -> m.add());
        JsonWriter.each(x -> x.hashCode());
    }
}
"#,
        r#"
a.Use.run -> ? type of local x not known
a.Use.run -> a.JsonWriter.Members.add()
a.Use.run -> a.JsonWriter.Members.add(String)
a.Use.run -> a.JsonWriter.each
a.Use.run -> a.JsonWriter.of
"#,
    );
}
