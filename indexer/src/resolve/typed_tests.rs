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
