//! Tests of the Java front-end: one `check(fixture, expect)` helper for call resolution,
//! fact tests for the parser, never-panic tests, and the fixture company's contract.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{resolve_calls, resolve_calls_typed, MethodKey, ProductTypes, SymbolTable, Target};
use crate::facts::CodeFile;
use crate::lang::java::parse_java_file;

/// Splits a multi-file fixture on `//- /path` header lines.
pub(super) fn files(fixture: &str) -> Vec<CodeFile> {
    let mut out = Vec::new();
    let mut path: Option<String> = None;
    let mut text = String::new();
    for line in fixture.lines() {
        if let Some(p) = line.trim().strip_prefix("//- ") {
            if let Some(prev) = path.take() {
                out.push(parse_java_file(&prev, &text));
            }
            path = Some(p.trim().to_string());
            text.clear();
        } else {
            text.push_str(line);
            text.push('\n');
        }
    }
    if let Some(prev) = path {
        out.push(parse_java_file(&prev, &text));
    }
    out
}

fn render_key(key: &MethodKey, table: &SymbolTable) -> String {
    let mut s = format!("{}.{}", key.type_fqn, key.name);
    if table.is_overloaded(&key.type_fqn, &key.name) {
        s.push_str(&format!("({})", key.params.join(", ")));
    }
    s
}

/// All resolved calls of a set of files, as sorted unique `caller -> callee` lines.
pub(super) fn render(files: &[CodeFile]) -> Vec<String> {
    render_for(files, None)
}

/// [`render`] for a product whose builds say it compiles for `java_release`.
fn render_for(files: &[CodeFile], java_release: Option<u32>) -> Vec<String> {
    let table = SymbolTable::build(files);
    let types = ProductTypes::build_with(
        files,
        &table,
        crate::typemodel::model::TypeModel::default(),
        java_release,
    );
    let mut lines = BTreeSet::new();
    for f in files {
        for call in resolve_calls_typed(f, &table, &types) {
            let caller = render_key(&call.caller, &table);
            let callee = match &call.target {
                Target::Internal(k) => render_key(k, &table),
                Target::External { type_fqn, method } => format!("ext {type_fqn}.{method}"),
                Target::Unresolved { reason } => format!("? {reason}"),
                Target::Ambiguous(keys) => {
                    let all: Vec<String> = keys.iter().map(|k| render_key(k, &table)).collect();
                    format!("one of {}: {}", keys.len(), all.join(" | "))
                }
            };
            lines.insert(format!("{caller} -> {callee}"));
        }
    }
    lines.into_iter().collect()
}

#[track_caller]
pub(super) fn check(fixture: &str, expect: &str) {
    let parsed = files(fixture);
    for f in &parsed {
        assert!(f.diagnostics.is_empty(), "{}: {:?}", f.path, f.diagnostics);
    }
    let actual = render(&parsed).join("\n");
    let expect: Vec<&str> = expect.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(actual, expect.join("\n"), "\nactual:\n{actual}\n");
}

#[test]
fn receivers_from_fields_params_locals_and_this() {
    check(
        r#"
//- /src/a/Repo.java
package a;
public class Repo { public void save(String s) {} }
//- /src/a/Cache.java
package a;
public class Cache { public void save(String s) {} }
//- /src/a/Service.java
package a;
public class Service {
    private final Repo repo = null;
    void run(Cache cache) {
        Repo local = repo;
        repo.save("x");
        this.repo.save("y");
        cache.save("z");
        local.save("w");
        helper();
        this.helper();
        unknown.save("q");
    }
    void helper() {}
}
"#,
        r#"
a.Service.run -> ? unknown name unknown
a.Service.run -> a.Cache.save
a.Service.run -> a.Repo.save
a.Service.run -> a.Service.helper
"#,
    );
}

#[test]
fn overloads_by_arity_and_argument_type() {
    check(
        r#"
//- /src/a/Pricing.java
package a;
import java.math.BigDecimal;
public class Pricing {
    public int price(String sku) { return price(sku, 1); }
    public int price(String sku, int qty) { return 0; }
    public int price(Line line, int qty) { return price(line.sku(), qty); }
    public void send(String to, String body) {}
    public void send(Line line, String body) {}
    public void any(Object o) {}
    public void any(String s) {}
    void run(Line l, Object o, NotImported mystery) {
        send("a", "b");
        send(l, "b");
        send(new Line("x"), "b");
        send(o, "b");
        price(mystery, 3);
        price(unknownLocal(), 3);
    }
    Object unknownLocal() { return null; }
}
//- /src/a/Line.java
package a;
public record Line(String sku) {}
"#,
        r#"
a.Pricing.price(Line, int) -> a.Line.sku
a.Pricing.price(Line, int) -> a.Pricing.price(String, int)
a.Pricing.price(String) -> a.Pricing.price(String, int)
a.Pricing.run -> ? no overload of a.Pricing.price fits the arguments
a.Pricing.run -> ? no overload of a.Pricing.send fits the arguments
a.Pricing.run -> a.Line.<init>
a.Pricing.run -> a.Pricing.send(Line, String)
a.Pricing.run -> a.Pricing.send(String, String)
a.Pricing.run -> a.Pricing.unknownLocal
a.Pricing.run -> one of 2: a.Pricing.price(String, int) | a.Pricing.price(Line, int)
"#,
    );
}

#[test]
fn same_simple_name_in_two_packages_is_never_confused() {
    check(
        r#"
//- /src/com/orders/Money.java
package com.orders;
public class Money { public boolean isPositive() { return true; } }
//- /src/com/pay/Money.java
package com.pay;
public class Money { public boolean isPositive() { return true; } }
//- /src/com/orders/Draft.java
package com.orders;
public class Draft {
    Money total;
    void validate() { total.isPositive(); }
}
//- /src/com/pay/gw/Gateway.java
package com.pay.gw;
import com.pay.Money;
public class Gateway {
    void validate(Money m) { m.isPositive(); }
}
//- /src/com/pay/gw/Other.java
package com.pay.gw;
import com.pay.*;
public class Other {
    void validate(Money m) { m.isPositive(); }
}
"#,
        r#"
com.orders.Draft.validate -> com.orders.Money.isPositive
com.pay.gw.Gateway.validate -> com.pay.Money.isPositive
com.pay.gw.Other.validate -> com.pay.Money.isPositive
"#,
    );
}

#[test]
fn interface_dispatch_super_and_inherited_members() {
    check(
        r#"
//- /src/a/Gateway.java
package a;
public interface Gateway { void charge(); boolean supports(String m); }
//- /src/a/AbstractGateway.java
package a;
public abstract class AbstractGateway implements Gateway {
    protected Audit audit;
    public void charge() { validate(); doCharge(); }
    protected void validate() {}
    protected abstract void doCharge();
}
//- /src/a/CardGateway.java
package a;
public class CardGateway extends AbstractGateway {
    protected void validate() { super.validate(); audit.log(); }
    protected void doCharge() {}
    public boolean supports(String m) { return true; }
}
//- /src/a/Audit.java
package a;
public class Audit { void log() {} }
//- /src/a/Router.java
package a;
import java.util.List;
public class Router {
    List<Gateway> all;
    void route(Gateway g, CardGateway card) {
        g.charge();
        g.supports("x");
        card.charge();
        card.validate();
    }
}
"#,
        r#"
a.AbstractGateway.charge -> a.AbstractGateway.doCharge
a.AbstractGateway.charge -> a.AbstractGateway.validate
a.CardGateway.validate -> a.AbstractGateway.validate
a.CardGateway.validate -> a.Audit.log
a.Router.route -> a.AbstractGateway.charge
a.Router.route -> a.CardGateway.validate
a.Router.route -> a.Gateway.charge
a.Router.route -> a.Gateway.supports
"#,
    );
}

#[test]
fn chained_calls_and_external_types() {
    check(
        r#"
//- /src/a/Dao.java
package a;
import java.util.Optional;
public class Dao { public Optional<Order> findById(long id) { return Optional.empty(); } }
//- /src/a/Order.java
package a;
public class Order { public Order next() { return this; } public void close() {} }
//- /src/a/Service.java
package a;
import org.springframework.web.client.RestTemplate;
public class Service {
    private final Dao dao;
    private final RestTemplate rest;
    void run(Order o) {
        dao.findById(1L).map(x -> x);
        o.next().next().close();
        rest.exchange("u");
        new Order().close();
        String s = "a";
        s.trim();
        Math.max(1, 2);
    }
}
"#,
        r#"
a.Dao.findById -> ext java.util.Optional.empty
a.Service.run -> a.Dao.findById
a.Service.run -> a.Order.<init>
a.Service.run -> a.Order.close
a.Service.run -> a.Order.next
a.Service.run -> ext java.lang.Math.max
a.Service.run -> ext java.lang.String.trim
a.Service.run -> ext java.util.Optional.map
a.Service.run -> ext org.springframework.web.client.RestTemplate.exchange
"#,
    );
}

#[test]
fn a_supertype_imported_on_demand_from_outside_the_product_holds_the_inherited_methods() {
    check(
        r#"
//- /src/a/Account.java
package a;
public class Account { }
//- /src/a/AccountRepository.java
package a;
import com.vendor.data.jpa.*;
public interface AccountRepository extends VendorRepository<Account, Long> { }
//- /src/a/Broken.java
package a;
import com.vendor.data.jpa.*;
import com.vendor.data.*;
public interface Broken extends BaseRepository<Account, Long> { }
//- /src/a/Failure.java
package a;
import com.vendor.data.jpa.*;
public class Failure extends ReflectiveOperationException { }
//- /src/a/Value.java
package a;
import org.springframework.core.io.InputStreamSource;
public interface Value extends CharSequence, InputStreamSource { }
//- /src/a/Service.java
package a;
public class Service {
    private final AccountRepository accounts;
    private final Broken broken;
    void run(Account a, Failure f, Value v) throws Exception {
        accounts.save(a);
        broken.save(a);
        f.getMessage();
        v.getInputStream();
        v.length();
    }
}
"#,
        r#"
a.Service.run -> ? no method save on a.Broken
a.Service.run -> ext com.vendor.data.jpa.VendorRepository.save
a.Service.run -> ext java.lang.CharSequence.length
a.Service.run -> ext java.lang.Throwable.getMessage
a.Service.run -> ext org.springframework.core.io.InputStreamSource.getInputStream
"#,
    );
}

#[test]
fn a_type_of_a_library_imported_on_demand_is_named_by_the_one_import_that_can_hold_it() {
    check(
        r#"
//- /src/a/Jobs.java
package a;
import java.util.*;
import org.quartz.*;
public class Jobs {
    private Scheduler scheduler;
    void run(List<String> names) {
        TriggerKey.triggerKey("t");
        JobKey key = JobKey.jobKey("j");
        key.getName();
        scheduler.start();
        new JobDataMap();
        names.size();
        MAX_RETRIES.intValue();
    }
}
//- /src/a/Mixed.java
package a;
import org.quartz.*;
import org.other.*;
public class Mixed {
    void run() { TriggerKey.triggerKey("t"); }
}
//- /src/a/Storage.java
package a;
import io.minio.*;
import org.springframework.web.bind.annotation.*;
public class Storage {
    void run() { MinioClient.builder(); }
}
//- /src/a/Buckets.java
package a;
import io.minio.MinioClient;
public class Buckets { }
//- /src/a/Generic.java
package a;
import org.quartz.*;
public class Generic<T extends Job> {
    private T job;
    <K extends Key> void run(K key) { job.execute(null); key.getName(); }
}
//- /src/a/OrderService.java
package a;
import com.corp.core.*;
import static io.gatling.javaapi.http.HttpDsl.*;
public class OrderService extends BaseService<String> {
    void run() { repository.save("x"); }
}
//- /src/a/Imported.java
package a;
import com.corp.core.BaseService;
import com.corp.core.Registry;
import static io.gatling.javaapi.http.HttpDsl.http;
public class Imported extends BaseService<String> {
    void run() { Registry.lookup("x"); http.baseUrl("u"); }
}
"#,
        r#"
a.Generic.run -> ? type K of key unknown
a.Generic.run -> ? type T of field job unknown
a.Imported.run -> ? unknown name http: it is imported by `import static io.gatling.javaapi.http.HttpDsl.http`, whose members are not known
a.Imported.run -> ext com.corp.core.Registry.lookup
a.Jobs.run -> ? unknown name MAX_RETRIES
a.Jobs.run -> ext java.util.List.size
a.Jobs.run -> ext org.quartz.JobDataMap.<init>
a.Jobs.run -> ext org.quartz.JobKey.getName
a.Jobs.run -> ext org.quartz.JobKey.jobKey
a.Jobs.run -> ext org.quartz.Scheduler.start
a.Jobs.run -> ext org.quartz.TriggerKey.triggerKey
a.Mixed.run -> ? unknown name TriggerKey
a.OrderService.run -> ? unknown name repository: it may be inherited from com.corp.core.BaseService or imported by `import static io.gatling.javaapi.http.HttpDsl.*`, whose members are not known
a.Storage.run -> ext io.minio.MinioClient.builder
"#,
    );
}

/// The JDK model is Java 17's. A product whose build compiles for a later Java may call
/// what came since (`List.getFirst()`, Java 21): on a receiver of that exact type the call
/// is the type's, as with a bundled library a member lacks; for a Java 17 build, or a
/// build that does not say, the model is complete and the member is missing.
#[test]
fn a_jdk_member_added_after_the_model_is_called_when_the_build_targets_a_later_java() {
    let parsed = files(
        r#"
//- /src/a/Recent.java
package a;
import java.util.List;
public class Recent {
    void run(List<String> names) {
        names.getFirst();
        names.size();
    }
}
"#,
    );
    let later = vec![
        "a.Recent.run -> ext java.util.List.getFirst".to_string(),
        "a.Recent.run -> ext java.util.List.size".to_string(),
    ];
    let model = vec![
        "a.Recent.run -> ? no method getFirst on java.util.List".to_string(),
        "a.Recent.run -> ext java.util.List.size".to_string(),
    ];
    assert_eq!(render_for(&parsed, Some(21)), later);
    assert_eq!(render_for(&parsed, Some(17)), model);
    assert_eq!(render_for(&parsed, None), model);
}

#[test]
fn members_lombok_generates_are_called_like_written_ones() {
    check(
        r#"
//- /src/a/Dto.java
package a;
import lombok.Data;
@Data
public class Dto { private String name; private boolean active; private final long id; }
//- /src/a/Item.java
package a;
import lombok.*;
import lombok.experimental.Accessors;
@Getter @Setter @Builder @AllArgsConstructor @NoArgsConstructor
@Accessors(chain = true)
public class Item { private String sku; @Getter(AccessLevel.NONE) private int qty; }
//- /src/a/Base.java
package a;
import lombok.experimental.SuperBuilder;
@SuperBuilder
public class Base { private String id; }
//- /src/a/Child.java
package a;
import lombok.*;
import lombok.experimental.SuperBuilder;
@SuperBuilder @With @AllArgsConstructor
public class Child extends Base { private String name; }
//- /src/a/Service.java
package a;
import lombok.extern.slf4j.Slf4j;
import lombok.RequiredArgsConstructor;
@Slf4j
@RequiredArgsConstructor
public class Service {
    private final Dto dto;
    void run(Item it) {
        log.info("x");
        dto.getName();
        dto.isActive();
        dto.setName("n");
        dto.getId();
        Item.builder().sku("a").qty(2).build().getSku();
        new Item().setSku("b").setQty(1);
        new Item("c", 3);
        new Service(dto);
        it.getQty();
        Child.builder().name("n").id("i").build();
        Child.builder().id("j").name("m").build().withName("z");
        new Child("x").withName("y");
    }
}
//- /src/b/Other.java
package b;
public class Other {
    @Data static class X { String y; }
    void m(X x) { x.getY(); }
}
//- /src/b/Audited.java
package b;
import lombok.*;
import com.acme.audit.Log;
@Log @Getter
public class Audited {
    private String who;
    void m() { log.info("x"); getWho(); }
}
"#,
        // `qty` has no getter (`AccessLevel.NONE`); `b` imports no Lombok, so its `@Data`
        // generates nothing, nor does another library's `@Log` beside `lombok.*`. A
        // `@SuperBuilder` chain stays on the subclass's builder whichever class's field it
        // sets first, and builds the subclass.
        r#"
a.Service.run -> ? no method getQty on a.Item
a.Service.run -> a.Base.BaseBuilder.id
a.Service.run -> a.Child.<init>
a.Service.run -> a.Child.ChildBuilder.build
a.Service.run -> a.Child.ChildBuilder.name
a.Service.run -> a.Child.builder
a.Service.run -> a.Child.withName
a.Service.run -> a.Dto.getId
a.Service.run -> a.Dto.getName
a.Service.run -> a.Dto.isActive
a.Service.run -> a.Dto.setName
a.Service.run -> a.Item.<init>()
a.Service.run -> a.Item.<init>(String, int)
a.Service.run -> a.Item.ItemBuilder.build
a.Service.run -> a.Item.ItemBuilder.qty
a.Service.run -> a.Item.ItemBuilder.sku
a.Service.run -> a.Item.builder
a.Service.run -> a.Item.getSku
a.Service.run -> a.Item.setQty
a.Service.run -> a.Item.setSku
a.Service.run -> a.Service.<init>
a.Service.run -> ext org.slf4j.Logger.info
b.Audited.m -> ? unknown name log
b.Audited.m -> b.Audited.getWho
b.Other.m -> ? no method getY on b.Other.X
"#,
    );
}

#[test]
fn static_imports() {
    check(
        r#"
//- /src/a/util/Checks.java
package a.util;
public final class Checks {
    public static void requirePositive(int v) {}
    public static void requireText(String s) {}
}
//- /src/a/util/Numbers.java
package a.util;
public final class Numbers { public static int next() { return 1; } }
//- /src/a/Service.java
package a;
import static a.util.Checks.requirePositive;
import static a.util.Numbers.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.*;
import static com.example.unseen.Helpers.*;
public class Service {
    void run() {
        requirePositive(next());
        assertThat(1);
        mock(Service.class);
        help();
        hashCode();
    }
}
//- /src/b/Two.java
package b;
import static com.example.unseen.Helpers.*;
import static com.example.unseen.Others.*;
public class Two {
    void run() { help(); assist(); }
}
//- /src/b/Three.java
package b;
import static com.example.unseen.Others.assist;
public class Three {
    void run() { assist(); }
}
"#,
        // `help` is in scope only through the one static import on demand of a type no
        // model holds (Mockito's is modelled, and has none), so javac finds it there; `Two`
        // has two such imports, either of which may hold `help`; `assist` is the one
        // `Three` imports from `Others` by name. `hashCode` is inherited.
        r#"
a.Service.run -> a.util.Checks.requirePositive
a.Service.run -> a.util.Numbers.next
a.Service.run -> ext com.example.unseen.Helpers.help
a.Service.run -> ext java.lang.Object.hashCode
a.Service.run -> ext org.assertj.core.api.Assertions.assertThat
a.Service.run -> ext org.mockito.Mockito.mock
b.Three.run -> ext com.example.unseen.Others.assist
b.Two.run -> ? help may come from import static com.example.unseen.Helpers.* or import static com.example.unseen.Others.*
b.Two.run -> ext com.example.unseen.Others.assist
"#,
    );
}

#[test]
fn lambdas_and_method_references() {
    check(
        r#"
//- /src/a/Mapper.java
package a;
public class Mapper {
    public Dto toDto(Order o) { return null; }
    public static Dto convert(Order o) { return null; }
}
//- /src/a/Order.java
package a;
public class Order { public long total() { return 0; } }
//- /src/a/Dto.java
package a;
public class Dto { public String describe() { return ""; } }
//- /src/a/Service.java
package a;
import java.util.List;
public class Service {
    private final Mapper mapper;
    private final Order order;
    private final java.util.Map<String, Order> byId;
    private Dto local(Order o) { return null; }
    private Dto load(String key) { return null; }
    private Dto load(String key, int n) { return null; }
    void run(List<Order> orders) {
        orders.stream().map(this::local).map(o -> o);
        orders.stream().map(mapper::toDto);
        orders.stream().map(Mapper::convert);
        orders.stream().map(Order::total);
        orders.forEach(o -> mapper.toDto(o));
        orders.forEach(o -> o.total());
        orders.stream().map(order -> order.total());
        Runnable r = () -> order.total();
        byId.forEach((id, order) -> order.total());
        orders.stream().filter(o -> o != null).forEach(o -> mapper.toDto(o));
        orders.stream().map(o -> o.total()).forEach(t -> t.total());
        java.util.Map<String, Dto> cache = null;
        cache.computeIfAbsent("k", this::load);
        var d = mapper.toDto(order);
        d.describe();
        java.util.function.Function<Order, Long> f = (Order x) -> x.total();
    }
}
"#,
        r#"
a.Service.run -> ? no method total on java.lang.Long
a.Service.run -> a.Dto.describe
a.Service.run -> a.Mapper.convert
a.Service.run -> a.Mapper.toDto
a.Service.run -> a.Order.total
a.Service.run -> a.Service.load(String)
a.Service.run -> a.Service.local
a.Service.run -> ext java.lang.Iterable.forEach
a.Service.run -> ext java.util.Collection.stream
a.Service.run -> ext java.util.Map.computeIfAbsent
a.Service.run -> ext java.util.Map.forEach
a.Service.run -> ext java.util.stream.Stream.filter
a.Service.run -> ext java.util.stream.Stream.forEach
a.Service.run -> ext java.util.stream.Stream.map
"#,
    );
}

#[test]
fn nested_anonymous_records_and_constructors() {
    check(
        r#"
//- /src/a/Templates.java
package a;
public final class Templates {
    public static final class Orders {
        public static String placed(String id) { return id; }
    }
}
//- /src/a/Base.java
package a;
public class Base {
    public Base(String s) {}
    public void hook() {}
}
//- /src/a/Child.java
package a;
public class Child extends Base {
    public Child() { this("x"); }
    public Child(String s) { super(s); }
    void run() {
        Templates.Orders.placed("1");
        new Point(1, 2).x();
        Runnable r = new Runnable() {
            public void run() { hook(); helper(); }
        };
        Inner i = new Inner();
        i.go();
    }
    void helper() {}
    class Inner { void go() { helper(); } }
}
//- /src/a/Point.java
package a;
public record Point(int x, int y) {}
"#,
        r#"
a.Child$1.run -> a.Base.hook
a.Child$1.run -> a.Child.helper
a.Child.<init>() -> a.Child.<init>(String)
a.Child.<init>(String) -> a.Base.<init>
a.Child.Inner.go -> a.Child.helper
a.Child.run -> a.Child.Inner.<init>
a.Child.run -> a.Child.Inner.go
a.Child.run -> a.Point.<init>
a.Child.run -> a.Point.x
a.Child.run -> a.Templates.Orders.placed
"#,
    );
}

#[test]
fn parse_facts_of_a_controller() {
    let src = r#"
package com.acme.web;

import java.util.List;
import java.util.*;
import static java.util.Objects.requireNonNull;
import static org.mockito.Mockito.*;

@RestController
@RequestMapping(value = "/orders", produces = {"application/json", "text/csv"})
public class OrderController<T extends Comparable<T>> extends Base implements Api, Other<T> {
    public static final String TOPIC = "order-events";
    private static final String SQL = """
        select 1""";
    @Autowired private final OrderService service;

    @GetMapping({"/a", "/b"})
    public List<String> list(@PathVariable("id") Long id, String... rest) {
        var dto = new OrderDto("x");
        var n = 3;
        var unknown = service.find();
        return service.list("/path/" + id);
    }

    @RequestMapping(value="/x", method=RequestMethod.PATCH)
    abstract void patch();

    enum Status { NEW, PAID; }
    interface Callback { void done(); }
    record Pair(String left, int right) { Pair { requireNonNull(left); } }
}
"#;
    let f = parse_java_file("OrderController.java", src);
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(f.package, "com.acme.web");
    let imports: Vec<(String, bool, bool)> = f
        .imports
        .iter()
        .map(|i| (i.path.clone(), i.is_static, i.wildcard))
        .collect();
    assert_eq!(
        imports,
        vec![
            ("java.util.List".into(), false, false),
            ("java.util".into(), false, true),
            ("java.util.Objects.requireNonNull".into(), true, false),
            ("org.mockito.Mockito".into(), true, true),
        ]
    );
    let fqns: Vec<&str> = f.types.iter().map(|t| t.fqn.as_str()).collect();
    assert_eq!(
        fqns,
        vec![
            "com.acme.web.OrderController",
            "com.acme.web.OrderController.Status",
            "com.acme.web.OrderController.Callback",
            "com.acme.web.OrderController.Pair",
        ]
    );
    let c = &f.types[0];
    assert_eq!(c.type_params, vec!["T"]);
    assert_eq!(c.extends, vec!["Base"]);
    assert_eq!(c.implements, vec!["Api", "Other<T>"]);
    assert_eq!(c.annotations[0].name, "RestController");
    assert_eq!(
        c.annotations[1].args,
        vec![
            ("value".to_string(), vec!["/orders".to_string()]),
            (
                "produces".to_string(),
                vec!["application/json".to_string(), "text/csv".to_string()]
            ),
        ]
    );
    assert_eq!(
        c.constants,
        vec![
            ("TOPIC".to_string(), "order-events".to_string()),
            ("SQL".to_string(), "\n        select 1".to_string()),
        ]
    );
    let field = c.fields.iter().find(|x| x.name == "service").expect("field");
    assert_eq!(field.ty, "OrderService");
    assert_eq!(field.annotations[0].name, "Autowired");
    let list = &c.methods[0];
    assert_eq!(list.name, "list");
    assert_eq!(list.return_type.as_deref(), Some("List<String>"));
    assert!(list.varargs && list.has_body);
    let params: Vec<(&str, &str)> = list
        .params
        .iter()
        .map(|p| (p.name.as_str(), p.ty.as_str()))
        .collect();
    assert_eq!(params, vec![("id", "Long"), ("rest", "String[]")]);
    assert_eq!(list.annotations[0].args[0].1, vec!["/a", "/b"]);
    assert_eq!(list.modifiers, vec!["public"]);
    let locals: Vec<(&str, Option<&str>)> = list
        .locals
        .iter()
        .map(|l| (l.name.as_str(), l.ty.as_deref()))
        .collect();
    assert_eq!(
        locals,
        vec![("dto", Some("OrderDto")), ("n", Some("int")), ("unknown", None)]
    );
    assert_eq!(
        list.strings,
        vec![(19, "x".to_string()), (22, "/path/".to_string())].into()
    );
    assert_eq!(list.calls.len(), 3);
    assert_eq!(list.calls[0].arg_types, vec![Some("String".to_string())]);
    let patch = &c.methods[1];
    assert!(!patch.has_body);
    assert_eq!(
        patch.annotations[0].args,
        vec![
            ("value".to_string(), vec!["/x".to_string()]),
            ("method".to_string(), vec!["RequestMethod.PATCH".to_string()]),
        ]
    );
    assert_eq!(f.types[1].enum_constants, vec!["NEW", "PAID"]);
    let pair = &f.types[3];
    let pair_methods: Vec<(&str, usize, bool)> = pair
        .methods
        .iter()
        .map(|m| (m.name.as_str(), m.params.len(), m.implicit))
        .collect();
    assert_eq!(
        pair_methods,
        vec![
            ("<init>", 2, false),
            ("left", 0, true),
            ("right", 0, true),
            ("toString", 0, true),
            ("hashCode", 0, true),
            ("equals", 1, true)
        ]
    );
    assert_eq!(pair.fields.len(), 2);
}

/// Identifiers are lexed one character at a time against Java's identifier sets: ASCII
/// letters, digits, `_` and `$` by the grammar's fast path, everything else by its search of
/// the Unicode ranges. Names mixing both, and characters at the edges of the ASCII ranges,
/// must come out whole.
#[test]
fn identifiers_in_ascii_and_beyond_are_lexed_whole() {
    let src = "package a.ü;\nclass Größe$_9 {\n  int café = 1;\n  String 名前;\n  double πr2Zz;\n  void $_aZ09() { café.ändern(名前); Größe$_9.λ(); }\n}\n";
    let f = parse_java_file("Größe$_9.java", src);
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(f.package, "a.ü");
    let t = &f.types[0];
    assert_eq!(t.fqn, "a.ü.Größe$_9");
    let fields: Vec<&str> = t.fields.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(fields, vec!["café", "名前", "πr2Zz"]);
    let m = t
        .methods
        .iter()
        .find(|m| m.name == "$_aZ09")
        .expect("the method named in ASCII edges");
    let calls: Vec<&str> = m.calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(calls, vec!["ändern", "λ"]);
}

#[test]
fn syntax_errors_keep_the_facts_that_parsed() {
    let src = "package a;\nclass A {\n  void ok() { b.c(); }\n  void broken( { \n}\nclass B { void f() { g(); } }\n";
    let f = parse_java_file("A.java", src);
    assert!(!f.diagnostics.is_empty());
    let methods: Vec<&str> = f
        .types
        .iter()
        .flat_map(|t| t.methods.iter().map(|m| m.name.as_str()))
        .collect();
    assert!(methods.contains(&"ok"), "{methods:?}");
}

#[test]
fn never_panics_on_hostile_input() {
    let deep_parens = format!(
        "class A {{ void f() {{ int x = {}1{}; g({}a{}.b()); }} }}",
        "(".repeat(10_000),
        ")".repeat(10_000),
        "(".repeat(10_000),
        ")".repeat(10_000)
    );
    let deep_blocks = format!(
        "class A {{ void f() {{ {} g(); {} }} }}",
        "{".repeat(10_000),
        "}".repeat(10_000)
    );
    let deep_chain = format!("class A {{ void f() {{ a{}; }} }}", ".b()".repeat(5_000));
    let deep_types = format!("{} {}", "class A { ".repeat(2_000), "}".repeat(2_000));
    let deep_lambdas = format!(
        "class A {{ void f() {{ Runnable r = {} g(); {}; }} }}",
        "() -> { Runnable r = ".repeat(3_000),
        "; }".repeat(3_000)
    );
    let deep_args = format!(
        "class A {{ void f() {{ {}1{}; }} }}",
        "g(".repeat(10_000),
        ")".repeat(10_000)
    );
    let deep_var = "class A { void f() { var a = a.b(); a.c(); } }".to_string();
    let garbage: String = (0..20_000u32)
        .map(|i| char::from_u32((i * 7919) % 0x2FF).unwrap_or('x'))
        .collect();
    let inputs = [
        String::new(),
        "\0\u{1}\u{2}\u{fffd}".repeat(100),
        garbage,
        deep_parens,
        deep_blocks,
        deep_chain,
        deep_types,
        deep_lambdas,
        deep_args,
        deep_var,
        "class A { String s = \"unterminated; void f() { g(\"also ); }".to_string(),
        "class A { String s = \"\"\" never closed".to_string(),
        "package".to_string(),
        "@".repeat(5_000),
    ];
    for (i, input) in inputs.iter().enumerate() {
        let f = parse_java_file(&format!("{i}.java"), input);
        let files = [f];
        let table = SymbolTable::build(&files);
        let _ = resolve_calls(&files[0], &table);
    }
}

/// The fixture company's product folders; a method belongs to the product named by the
/// second segment of its package (`com.acme.orders...`).
const PRODUCTS: &[&str] = &["orders", "inventory", "payments", "notifications"];

fn acme_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme")
}

fn java_files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            java_files_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "java") {
            out.push(p);
        }
    }
}

/// Rows `| a | b |` of the markdown table under `## {section}`, header and rule skipped.
fn table_rows(markdown: &str, section: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut inside = false;
    for line in markdown.lines() {
        if line.starts_with("## ") {
            inside = line.trim_start_matches("## ").trim() == section;
            continue;
        }
        if !inside || !line.starts_with('|') {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        if cells.len() >= 2 && !cells[0].starts_with("---") {
            rows.push((cells[0].to_string(), cells[1].to_string()));
        }
    }
    // The first row is the header.
    if !rows.is_empty() {
        rows.remove(0);
    }
    rows
}

fn product_of(fqn: &str) -> Option<&'static str> {
    let second = fqn.split('.').nth(2)?;
    PRODUCTS.iter().copied().find(|p| *p == second)
}

/// Every product of the fixture company, resolved: the set of `caller -> callee` lines of
/// internal calls.
fn acme_calls() -> BTreeSet<String> {
    let mut all = BTreeSet::new();
    for product in PRODUCTS {
        let mut paths = Vec::new();
        java_files_under(&acme_dir().join(product), &mut paths);
        assert!(!paths.is_empty(), "no java files for {product}");
        let parsed: Vec<CodeFile> = paths
            .iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).unwrap_or_default();
                parse_java_file(&p.display().to_string(), &text)
            })
            .collect();
        let table = SymbolTable::build(&parsed);
        let types = ProductTypes::build(&parsed, &table);
        for f in &parsed {
            assert!(f.diagnostics.is_empty(), "{}: {:?}", f.path, f.diagnostics);
            for call in resolve_calls_typed(f, &table, &types) {
                if let Target::Internal(k) = &call.target {
                    all.insert(format!(
                        "{} -> {}",
                        render_key(&call.caller, &table),
                        render_key(k, &table)
                    ));
                }
            }
        }
    }
    all
}

/// Calls rows the resolver is known not to find, each with the reason.
const KNOWN_MISSES: &[(&str, &str)] = &[];

#[test]
fn acme_expected_calls_within_a_product() {
    let expected = std::fs::read_to_string(acme_dir().join("EXPECTED.md")).unwrap_or_default();
    let rows = table_rows(&expected, "Calls");
    assert!(rows.len() > 100, "Calls table not parsed: {} rows", rows.len());
    let calls = acme_calls();
    let mut total = 0;
    let mut misses = Vec::new();
    for (caller, callee) in &rows {
        let (Some(a), Some(b)) = (product_of(caller), product_of(callee)) else {
            continue;
        };
        if a != b {
            continue;
        }
        total += 1;
        let line = format!("{caller} -> {callee}");
        if !calls.contains(&line) && !KNOWN_MISSES.iter().any(|(row, _)| *row == line) {
            misses.push(line);
        }
    }
    assert!(total > 150, "only {total} same-product Calls rows");
    let found = total - misses.len();
    assert!(
        misses.is_empty(),
        "found {found}/{total}; missing:\n{}",
        misses.join("\n")
    );
}

#[test]
fn acme_not_calls_are_never_produced() {
    let expected = std::fs::read_to_string(acme_dir().join("EXPECTED.md")).unwrap_or_default();
    let rows = table_rows(&expected, "Not calls");
    assert!(rows.len() > 20, "Not calls table not parsed: {} rows", rows.len());
    let calls = acme_calls();
    let violations: Vec<String> = rows
        .iter()
        .map(|(a, b)| format!("{a} -> {b}"))
        .filter(|l| calls.contains(l))
        .collect();
    assert!(violations.is_empty(), "produced:\n{}", violations.join("\n"));
}

/// Without any jar on disk, the bundled test libraries type what a test calls: an
/// assertion chain lands on AssertJ's methods, and `verify(mock)` returns the product's
/// own type, so the verified call is a call of the product's method. The targets are
/// what `javac` compiles the test to (checked with `javap -c`).
#[test]
fn bundled_test_libraries_type_assertions_and_mocks() {
    check(
        r#"
//- /src/a/Repo.java
package a;
public class Repo {
    public void save(String name) {}
    public String name() { return "x"; }
}
//- /src/a/RepoTest.java
package a;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
public class RepoTest {
    void saves() {
        Repo repo = mock(Repo.class);
        given(repo.name()).willReturn("y");
        verify(repo).save("x");
        assertThat(repo.name()).isEqualTo("y");
    }
}
"#,
        r#"
a.RepoTest.saves -> a.Repo.name
a.RepoTest.saves -> a.Repo.save
a.RepoTest.saves -> ext org.assertj.core.api.AbstractStringAssert.isEqualTo
a.RepoTest.saves -> ext org.assertj.core.api.Assertions.assertThat
a.RepoTest.saves -> ext org.mockito.BDDMockito.BDDMyOngoingStubbing.willReturn
a.RepoTest.saves -> ext org.mockito.BDDMockito.given
a.RepoTest.saves -> ext org.mockito.Mockito.mock
a.RepoTest.saves -> ext org.mockito.Mockito.verify
"#,
    );
}

/// The bundled framework models (Spring 6.2, Spring Data 3.5, read from their sources)
/// type the chains every Spring application writes: a repository's inherited
/// `findById(…)` gives `Optional<Owner>`, `ResponseEntity.ok()` a builder whose `body(…)`
/// goes on, and MockMvc's `perform(…)` the `ResultActions` its matchers chain on. Each
/// call lands on the class that declares the method in those releases.
#[test]
fn bundled_framework_models_type_spring_chains() {
    check(
        r#"
//- /src/a/Owner.java
package a;
public class Owner { public String getName() { return "x"; } }
//- /src/a/OwnerRepository.java
package a;
import org.springframework.data.jpa.repository.JpaRepository;
public interface OwnerRepository extends JpaRepository<Owner, Long> {}
//- /src/a/OwnerController.java
package a;
import org.springframework.http.ResponseEntity;
import org.springframework.web.util.UriComponentsBuilder;
public class OwnerController {
    private final OwnerRepository owners;
    public OwnerController(OwnerRepository owners) { this.owners = owners; }
    public ResponseEntity<Owner> show(Long id) {
        Owner o = owners.findById(id).orElseThrow();
        return ResponseEntity.ok().header("X-Id", o.getName()).body(o);
    }
    public ResponseEntity<Void> create(Owner o) {
        owners.save(o).getName();
        return ResponseEntity.created(UriComponentsBuilder.fromPath("/owners/{id}").buildAndExpand(o.getName()).toUri()).build();
    }
}
//- /src/a/OwnerControllerTest.java
package a;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.*;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.MockMvc;
public class OwnerControllerTest {
    MockMvc mockMvc;
    void shows() throws Exception {
        mockMvc.perform(get("/owners/1").accept(MediaType.APPLICATION_JSON))
            .andExpect(status().isOk())
            .andExpect(jsonPath("$.name").value("x"))
            .andReturn().getResponse().getContentAsString();
    }
}
"#,
        r#"
a.OwnerController.create -> a.Owner.getName
a.OwnerController.create -> ext org.springframework.data.repository.CrudRepository.save
a.OwnerController.create -> ext org.springframework.http.ResponseEntity.HeadersBuilder.build
a.OwnerController.create -> ext org.springframework.http.ResponseEntity.created
a.OwnerController.create -> ext org.springframework.web.util.UriComponents.toUri
a.OwnerController.create -> ext org.springframework.web.util.UriComponentsBuilder.buildAndExpand
a.OwnerController.create -> ext org.springframework.web.util.UriComponentsBuilder.fromPath
a.OwnerController.show -> a.Owner.getName
a.OwnerController.show -> ext java.util.Optional.orElseThrow
a.OwnerController.show -> ext org.springframework.data.repository.CrudRepository.findById
a.OwnerController.show -> ext org.springframework.http.ResponseEntity.BodyBuilder.body
a.OwnerController.show -> ext org.springframework.http.ResponseEntity.HeadersBuilder.header
a.OwnerController.show -> ext org.springframework.http.ResponseEntity.ok
a.OwnerControllerTest.shows -> ext org.springframework.mock.web.MockHttpServletResponse.getContentAsString
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.MockMvc.perform
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.MvcResult.getResponse
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.ResultActions.andExpect
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.ResultActions.andReturn
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.request.MockHttpServletRequestBuilder.accept
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.result.JsonPathResultMatchers.value
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.result.MockMvcResultMatchers.status
a.OwnerControllerTest.shows -> ext org.springframework.test.web.servlet.result.StatusResultMatchers.isOk
"#,
    );
}

/// A method reference on a type (`Optional::get`) applies to the function's first
/// argument: mapped over `Optional<Optional<User>>` it gives a `User`, so the next lambda's
/// parameter is one. A reference whose result stays a variable of a raw type says nothing
/// of the result: the lambda after it is not typed, never taken for an `Object`.
#[test]
fn a_method_reference_on_a_type_gives_the_result_for_the_function_argument() {
    check(
        r#"
//- /src/a/User.java
package a;
public class User { public void setLogin(String s) {} }
//- /src/a/Users.java
package a;
import java.util.Optional;
import java.util.List;
public class Users {
    Optional<User> find() { return Optional.empty(); }
    void run(List<Optional<User>> all) {
        Optional.of(find()).filter(Optional::isPresent).map(Optional::get).map(u -> { u.setLogin("x"); return u; });
        all.stream().map(Optional::get).forEach(u -> u.setLogin("y"));
    }
}
"#,
        r#"
a.Users.find -> ext java.util.Optional.empty
a.Users.run -> a.User.setLogin
a.Users.run -> a.Users.find
a.Users.run -> ext java.util.Collection.stream
a.Users.run -> ext java.util.Optional.filter
a.Users.run -> ext java.util.Optional.get
a.Users.run -> ext java.util.Optional.isPresent
a.Users.run -> ext java.util.Optional.map
a.Users.run -> ext java.util.Optional.of
a.Users.run -> ext java.util.stream.Stream.forEach
a.Users.run -> ext java.util.stream.Stream.map
"#,
    );
}

/// A self type read through a wildcard (`AbstractThrowableAssert<?, ?>`) keeps the
/// variable's bound, so a fluent chain goes on typing: each call lands on the class that
/// declares the method (the receivers `javac` compiles them against, walked up to the
/// declaration with `javap`).
#[test]
fn a_self_type_under_a_wildcard_keeps_its_bound() {
    check(
        r#"
//- /src/a/Repo.java
package a;
public class Repo {
    public void save(String name) {}
}
//- /src/a/ThrowTest.java
package a;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import java.util.List;
public class ThrowTest {
    void rejects(Repo repo) {
        assertThatThrownBy(() -> repo.save(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThat(List.of("a")).hasSize(1).contains("a");
    }
}
"#,
        r#"
a.ThrowTest.rejects -> a.Repo.save
a.ThrowTest.rejects -> ext java.util.List.of
a.ThrowTest.rejects -> ext org.assertj.core.api.AbstractAssert.isInstanceOf
a.ThrowTest.rejects -> ext org.assertj.core.api.AbstractIterableAssert.hasSize
a.ThrowTest.rejects -> ext org.assertj.core.api.AbstractThrowableAssert.hasMessageContaining
a.ThrowTest.rejects -> ext org.assertj.core.api.Assertions.assertThat
a.ThrowTest.rejects -> ext org.assertj.core.api.Assertions.assertThatThrownBy
a.ThrowTest.rejects -> ext org.assertj.core.api.ListAssert.contains
"#,
    );
}

/// The bundled library models are of one version of each library; code written against a
/// later one calls members they lack (`rootCause()` came with AssertJ 3.16, the model is
/// 3.14; `shouldHaveNoInteractions` with Mockito 3). Such a call is on its receiver's type,
/// named there as a call on a type no layer models is, and what it returns stays unknown.
/// The look-alikes stay unresolved with the reason: a JDK type of a product whose build
/// does not compile for a later Java than the model's lacks the member for real; and a receiver typed at a type
/// variable's bound (`asInstanceOf(factory)` whose factory is not typed gives `ASSERT` at
/// `AbstractAssert`, `isInstanceOf` gives `SELF` under a wildcard) is a supertype of the
/// static type, so a member it lacks may be the real type's.
#[test]
fn a_member_a_bundled_model_lacks_is_called_on_the_receiver_type() {
    check(
        r#"
//- /src/a/CauseTest.java
package a;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.then;
import org.assertj.core.api.InstanceOfAssertFactories;
import java.util.List;
public class CauseTest {
    void causes(RuntimeException e, Runnable mock, String s, List<String> names) {
        assertThat(e).rootCause().isInstanceOf(IllegalStateException.class);
        then(mock).shouldHaveNoInteractions();
        s.strip().stripAll();
        assertThat(e).isInstanceOf(RuntimeException.class).cause();
        assertThat(names).asInstanceOf(InstanceOfAssertFactories.collection(String.class)).containsExactly("a");
    }
}
"#,
        r#"
a.CauseTest.causes -> ? no method cause on org.assertj.core.api.AbstractThrowableAssert
a.CauseTest.causes -> ? no method containsExactly on org.assertj.core.api.AbstractAssert
a.CauseTest.causes -> ? no method stripAll on java.lang.String
a.CauseTest.causes -> ? result of external org.assertj.core.api.AbstractThrowableAssert.rootCause not typed
a.CauseTest.causes -> ext java.lang.String.strip
a.CauseTest.causes -> ext org.assertj.core.api.AbstractAssert.asInstanceOf
a.CauseTest.causes -> ext org.assertj.core.api.AbstractAssert.isInstanceOf
a.CauseTest.causes -> ext org.assertj.core.api.AbstractThrowableAssert.rootCause
a.CauseTest.causes -> ext org.assertj.core.api.Assertions.assertThat
a.CauseTest.causes -> ext org.assertj.core.api.InstanceOfAssertFactories.collection
a.CauseTest.causes -> ext org.mockito.BDDMockito.Then.shouldHaveNoInteractions
a.CauseTest.causes -> ext org.mockito.BDDMockito.then
"#,
    );
}

/// A call whose overloads cannot be told apart (its argument is of a type nothing declares)
/// has one of several results; a call on it is resolved when every one of them gives the
/// same method — `within(x)` is an `Offset` of whichever number `x` is, and `hashCode` is
/// `Offset`'s — and stays unresolved when they are too many to follow (`assertThat(x)`
/// may be any of AssertJ's assertions).
#[test]
fn a_call_on_one_of_several_results_resolves_when_they_agree() {
    check(
        r#"
//- /src/a/Tolerances.java
package a;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import com.example.unseen.Settings;
public class Tolerances {
    int offset(Settings settings) {
        return within(settings.tolerance()).hashCode();
    }
    void unknown(Settings settings) {
        assertThat(settings.tolerance()).isNotNull();
    }
}
"#,
        r#"
a.Tolerances.offset -> ext com.example.unseen.Settings.tolerance
a.Tolerances.offset -> ext org.assertj.core.api.Assertions.within
a.Tolerances.offset -> ext org.assertj.core.data.Offset.hashCode
a.Tolerances.unknown -> ? result of external org.assertj.core.api.Assertions.assertThat not typed
a.Tolerances.unknown -> ext com.example.unseen.Settings.tolerance
a.Tolerances.unknown -> ext org.assertj.core.api.Assertions.assertThat
"#,
    );
}

/// An overload whose parameter is the argument's own declared type is chosen although the
/// other overloads' parameter types are of libraries no layer models: to be more specific
/// one would have to take a type that is both a subtype and a supertype of the argument's
/// — its own class. A `String` passes as the `CharSequence` the JDK says it is. The
/// look-alikes stay "one of 3": an argument no layer types (a constant of an unmodelled
/// enum, a lambda) and one of an unmodelled type that may be a subtype of each.
#[test]
fn an_argument_of_the_parameter_own_type_chooses_the_overload_despite_unknowns() {
    check(
        r#"
//- /src/a/J.java
package a;
import org.skyscreamer.jsonassert.JSONCompareMode;
import org.skyscreamer.jsonassert.comparator.JSONComparator;
import org.skyscreamer.jsonassert.Lenient;
import org.springframework.util.function.ThrowingFunction;
public class J {
    private String compare(CharSequence e, JSONCompareMode m) { return null; }
    private String compare(CharSequence e, JSONComparator c) { return null; }
    private String compare(CharSequence e, ThrowingFunction<String, String> f) { return null; }
    void exact(String s, JSONCompareMode mode) {
        compare(s, mode);
    }
    void unknown(String s, Lenient lenient) {
        compare(s, JSONCompareMode.LENIENT);
        compare(s, (x) -> x);
        compare(s, lenient);
    }
}
"#,
        r#"
a.J.exact -> a.J.compare(CharSequence, JSONCompareMode)
a.J.unknown -> one of 3: a.J.compare(CharSequence, JSONCompareMode) | a.J.compare(CharSequence, JSONComparator) | a.J.compare(CharSequence, ThrowingFunction)
"#,
    );
}

/// The symbol table and the product's type model hold one copy of each name, however many
/// files and members spell it (a type name once per use was most of their memory).
#[test]
fn the_symbol_table_and_the_type_model_hold_each_name_once() {
    use crate::typemodel::ty::Ty;
    use std::sync::Arc;
    let files = files(
        r#"
//- /src/a/A.java
package a;
import java.util.List;
public class A { List<String> names; public List<String> f(List<String> x) { return x; } }
//- /src/b/B.java
package b;
import java.util.List;
public class B extends a.A { List<String> others; public List<String> g(List<String> y) { return y; } }
"#,
    );
    let table = SymbolTable::build(&files);
    let (Some(a), Some(b)) = (table.get("a.A"), table.get("b.B")) else {
        panic!("both types are in the table");
    };
    let (Some(list_a), Some(list_b)) = (a.ctx.single.get("List"), b.ctx.single.get("List")) else {
        panic!("both files import List");
    };
    assert!(Arc::ptr_eq(list_a, list_b), "one import name for both files");
    let method = |t: &'_ super::symbols::TypeInfo, name: &str| {
        t.methods
            .iter()
            .find(|m| &*m.name == name)
            .cloned()
            .expect("declared")
    };
    let (f, g) = (method(a, "f"), method(b, "g"));
    assert!(Arc::ptr_eq(&f.params[0], &g.params[0]), "one parameter type name");
    let (Some(fr), Some(gr)) = (&f.return_type, &g.return_type) else {
        panic!("both return a list");
    };
    assert!(Arc::ptr_eq(fr, gr), "one return type name");
    let (Some(fa), Some(fb)) = (a.fields.get("names"), b.fields.get("others")) else {
        panic!("both declare a field");
    };
    assert!(Arc::ptr_eq(fa, fb), "one field type name");

    let model = super::types::ProductModel::build(&files, &table, crate::typemodel::jdk::jdk());
    let (Some(ma), Some(mb)) = (model.model.get("a.A"), model.model.get("b.B")) else {
        panic!("both types are in the model");
    };
    let class = |t: &Ty| match t {
        Ty::Class(c) => c.name.clone(),
        other => panic!("a class type, not {other:?}"),
    };
    let (Some(tf), Some(tg)) = (ma.methods_named("f").next(), mb.methods_named("g").next()) else {
        panic!("both methods are in the model");
    };
    assert!(
        Arc::ptr_eq(&class(&tf.params[0]), &class(&tg.params[0])),
        "one parameter class name"
    );
    assert!(
        Arc::ptr_eq(&class(&tf.ret), &class(&tg.params[0])),
        "returns and parameters share it"
    );
    let Some(superclass) = &mb.superclass else {
        panic!("B extends A");
    };
    assert!(
        Arc::ptr_eq(&superclass.name, &ma.binary),
        "a supertype names its type's own name"
    );
}
