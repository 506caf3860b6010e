//! Tests of Kotlin resolution and of the JVM view the Kotlin front-end writes: one
//! `check(fixture, expect)` helper over Kotlin and Java files together (`//- /path`), the
//! resolved calls out as sorted `caller -> callee` lines, look-alikes included.

use std::collections::BTreeSet;

use super::{resolve_calls, MethodKey, SymbolTable, Target};
use crate::facts::{CodeFile, TypeKind};
use crate::lang::parse_code;
use crate::walk::SourceKind;

/// Splits a multi-file fixture on `//- /path` header lines; `.kt` and `.java` files.
fn files(fixture: &str) -> Vec<CodeFile> {
    let mut out = Vec::new();
    let mut sections: Vec<(String, String)> = Vec::new();
    for line in fixture.lines() {
        if let Some(p) = line.trim().strip_prefix("//- ") {
            sections.push((p.trim().to_string(), String::new()));
        } else if let Some((_, text)) = sections.last_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    for (path, text) in sections {
        let kind = if path.ends_with(".kt") {
            SourceKind::Kotlin
        } else {
            SourceKind::Java
        };
        out.extend(parse_code(kind, &path, &text));
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
fn render(files: &[CodeFile]) -> Vec<String> {
    let table = SymbolTable::build(files);
    let mut lines = BTreeSet::new();
    for f in files {
        for call in resolve_calls(f, &table) {
            let caller = render_key(&call.caller, &table);
            let callee = match &call.target {
                Target::Internal(k) => render_key(k, &table),
                Target::External { type_fqn, method } => format!("ext {type_fqn}.{method}"),
                Target::Unresolved { reason } => format!("? {reason}"),
                Target::Ambiguous(ks) => format!("one of {}", ks.len()),
            };
            lines.insert(format!("{caller} -> {callee}"));
        }
    }
    lines.into_iter().collect()
}

#[track_caller]
fn check(fixture: &str, expect: &str) {
    let parsed = files(fixture);
    for f in &parsed {
        assert!(f.diagnostics.is_empty(), "{}: {:?}", f.path, f.diagnostics);
    }
    let actual = render(&parsed).join("\n");
    let expect: Vec<&str> = expect.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    assert_eq!(actual, expect.join("\n"), "\nactual:\n{actual}\n");
}

#[test]
fn receivers_from_constructor_properties_locals_and_casts() {
    check(
        r#"
//- /src/a/Repo.kt
package a
class Repo { fun save(s: String) {} }
//- /src/a/Cache.kt
package a
class Cache { fun save(s: String) {} }
//- /src/a/Service.kt
package a
class Service(private val repo: Repo) {
    fun run(cache: Cache, any: Any) {
        val local = Repo()
        val inferred = repo
        repo.save("x")
        this.repo.save("y")
        cache.save("z")
        local.save("w")
        inferred.save("v")
        (any as Cache).save("c")
        helper()
        unknown.save("q")
    }
    fun helper() {}
}
"#,
        r#"
a.Service.run -> ? unknown name unknown
a.Service.run -> a.Cache.save
a.Service.run -> a.Repo.<init>
a.Service.run -> a.Repo.save
a.Service.run -> a.Service.helper
"#,
    );
}

#[test]
fn properties_are_accessors_for_kotlin_and_java_alike() {
    check(
        r#"
//- /src/a/Order.kt
package a
class Order(val id: Long, var status: String, private val secret: String) {
    var isPaid: Boolean = false
    @JvmField val code: String = "c"
    val total: Int get() = 1
}
//- /src/a/Customer.java
package a;
public class Customer {
    private String name;
    public String getName() { return name; }
    public void setName(String n) { name = n; }
    public Order order() { return null; }
}
//- /src/a/UseInKotlin.kt
package a
class UseInKotlin {
    fun read(o: Order, c: Customer) {
        o.status
        o.status = "paid"
        o.isPaid
        o.code
        o.total
        c.name
        c.name = "x"
        c.order().id
    }
}
//- /src/a/UseInJava.java
package a;
class UseInJava {
    void read(Order o) {
        o.getStatus();
        o.setStatus("x");
        o.isPaid();
        o.getTotal();
        o.getId();
    }
}
"#,
        r#"
a.UseInJava.read -> a.Order.getId
a.UseInJava.read -> a.Order.getStatus
a.UseInJava.read -> a.Order.getTotal
a.UseInJava.read -> a.Order.isPaid
a.UseInJava.read -> a.Order.setStatus
a.UseInKotlin.read -> a.Customer.getName
a.UseInKotlin.read -> a.Customer.order
a.UseInKotlin.read -> a.Customer.setName
a.UseInKotlin.read -> a.Order.getId
a.UseInKotlin.read -> a.Order.getStatus
a.UseInKotlin.read -> a.Order.getTotal
a.UseInKotlin.read -> a.Order.isPaid
a.UseInKotlin.read -> a.Order.setStatus
"#,
    );
}

#[test]
fn objects_companions_and_jvm_static_from_both_languages() {
    check(
        r#"
//- /src/a/Ids.kt
package a
object Ids {
    fun next(): Long = 1
    @JvmStatic fun reset() {}
}
//- /src/a/Order.kt
package a
class Order {
    companion object {
        const val PREFIX = "o-"
        fun create(): Order = Order()
        @JvmStatic fun of(id: Long): Order = Order()
    }
    fun copyOf() = create()
}
//- /src/a/Use.kt
package a
class Use {
    fun run() {
        Ids.next()
        Ids.reset()
        Order.create()
        Order.of(1)
        Order.Companion.create()
        Order.PREFIX
    }
}
//- /src/a/FromJava.java
package a;
class FromJava {
    void run() {
        Ids.INSTANCE.next();
        Ids.reset();
        Order.Companion.create();
        Order.of(2L);
    }
}
"#,
        r#"
a.FromJava.run -> a.Ids.next
a.FromJava.run -> a.Ids.reset
a.FromJava.run -> a.Order.Companion.create
a.FromJava.run -> a.Order.of
a.Order.Companion.create -> a.Order.<init>
a.Order.Companion.of -> a.Order.<init>
a.Order.copyOf -> a.Order.Companion.create
a.Order.of -> a.Order.Companion.of
a.Use.run -> a.Ids.next
a.Use.run -> a.Ids.reset
a.Use.run -> a.Order.Companion.create
a.Use.run -> a.Order.Companion.of
"#,
    );
}

#[test]
fn extension_and_top_level_functions_by_package_and_import() {
    check(
        r#"
//- /src/a/util/Strings.kt
package a.util
fun String.slug(): String = this.lowercase()
fun Order.label(): String = describe()
fun shout(s: String) = s
//- /src/a/util/Order.kt
package a.util
class Order { fun describe(): String = "" }
//- /src/a/web/Page.kt
package a.web
import a.util.slug
import a.util.Order
import a.util.label
class Page {
    fun render(o: Order) {
        "Title".slug()
        o.label()
        o.describe()
        shout("x")
    }
}
//- /src/a/util/Same.kt
package a.util
class Same { fun run() { shout("y") } }
//- /src/a/util/FromJava.java
package a.util;
class FromJava { void run(Order o) { StringsKt.label(o); } }
"#,
        r#"
a.util.FromJava.run -> a.util.StringsKt.label
a.util.Same.run -> a.util.StringsKt.shout
a.util.StringsKt.label -> a.util.Order.describe
a.util.StringsKt.slug -> ext java.lang.String.lowercase
a.web.Page.render -> ? no function shout in scope
a.web.Page.render -> a.util.Order.describe
a.web.Page.render -> a.util.StringsKt.label
a.web.Page.render -> a.util.StringsKt.slug
"#,
    );
}

#[test]
fn lambdas_it_scope_functions_and_labels() {
    check(
        r#"
//- /src/a/Line.kt
package a
class Line { fun sku(): String = "" }
//- /src/a/Cart.kt
package a
class Cart(val lines: List<Line>) {
    fun first(): Line? = null
    fun total() {}
    fun run(other: Cart) {
        lines.forEach { it.sku() }
        lines.map { l -> l.sku() }
        first()?.let { it.sku() }
        other.apply { total() }
        with(other) { total() }
        other.run { this.total() }
        other.also { it.total() }
        other.apply { this@Cart.total() }
        for (l in lines) { l.sku() }
    }
}
"#,
        r#"
a.Cart.run -> a.Cart.first
a.Cart.run -> a.Cart.total
a.Cart.run -> a.Line.sku
a.Cart.run -> ext java.util.List.forEach
a.Cart.run -> ext java.util.List.map
a.Cart.run -> ext kotlin.StandardKt.also
a.Cart.run -> ext kotlin.StandardKt.apply
a.Cart.run -> ext kotlin.StandardKt.let
a.Cart.run -> ext kotlin.StandardKt.run
a.Cart.run -> ext kotlin.StandardKt.with
"#,
    );
}

#[test]
fn named_and_default_arguments_choose_the_overload() {
    check(
        r#"
//- /src/a/Mailer.kt
package a
class Mailer {
    fun send(to: String, subject: String = "hi", urgent: Boolean = false) {}
    fun send(to: Long) {}
    fun notify(id: Long, body: String) {}
    fun notify(id: Long, count: Int) {}
    fun run() {
        send("a")
        send("a", urgent = true)
        send(to = "b", subject = "s")
        send(3L)
        notify(1, body = "x")
        notify(1, count = 2)
        send("a", nope = 1)
    }
}
"#,
        r#"
a.Mailer.run -> ? no overload of send fits the arguments
a.Mailer.run -> a.Mailer.notify(long, String)
a.Mailer.run -> a.Mailer.notify(long, int)
a.Mailer.run -> a.Mailer.send(String, String, boolean)
a.Mailer.run -> a.Mailer.send(long)
"#,
    );
}

#[test]
fn safe_calls_elvis_not_null_and_when_keep_their_receivers() {
    check(
        r#"
//- /src/a/Repo.kt
package a
class Repo { fun find(id: Long): Item? = null }
//- /src/a/Item.kt
package a
open class Item {
    fun name(): String = "n"
}
class Special : Item() {
    fun extra() {}
}
//- /src/a/Use.kt
package a
class Use(private val repo: Repo?) {
    fun run(x: Item) {
        repo?.find(1)?.name()
        repo!!.find(2)!!.name()
        val item = repo?.find(3) ?: Item()
        when (x) {
            is Special -> x.extra()
            else -> x.name()
        }
        if (x is Special) x.extra()
    }
}
"#,
        r#"
a.Special.<init> -> a.Item.<init>
a.Use.run -> a.Item.<init>
a.Use.run -> a.Item.name
a.Use.run -> a.Repo.find
a.Use.run -> a.Special.extra
"#,
    );
}

#[test]
fn data_classes_and_constructors_as_javac_sees_them() {
    check(
        r#"
//- /src/a/Money.kt
package a
data class Money(val amount: Long, val currency: String = "EUR") {
    constructor(text: String) : this(0L, text)
}
//- /src/a/Use.kt
package a
class Use {
    fun run(m: Money) {
        val (a, c) = m
        m.copy(amount = 2)
        m.component1()
        Money(1)
        Money("12")
        Money(1, "USD")
    }
}
//- /src/a/UseJava.java
package a;
class UseJava {
    void run(Money m) {
        m.copy(1L, "x");
        m.getCurrency();
        new Money(3L, "EUR");
        m.hashCode();
    }
}
"#,
        r#"
a.Money.<init>(String) -> a.Money.<init>(long, String)
a.Use.run -> a.Money.<init>(String)
a.Use.run -> a.Money.<init>(long, String)
a.Use.run -> a.Money.component1
a.Use.run -> a.Money.copy
a.UseJava.run -> a.Money.<init>(long, String)
a.UseJava.run -> a.Money.copy
a.UseJava.run -> a.Money.getCurrency
a.UseJava.run -> a.Money.hashCode
"#,
    );
}

#[test]
fn look_alikes_in_other_packages_and_languages_never_meet() {
    check(
        r#"
//- /src/com/orders/Money.kt
package com.orders
class Money { fun isPositive(): Boolean = true }
//- /src/com/pay/Money.java
package com.pay;
public class Money { public boolean isPositive() { return true; } }
//- /src/com/orders/Draft.kt
package com.orders
class Draft(val total: Money) { fun validate() { total.isPositive() } }
//- /src/com/pay/gw/Gateway.kt
package com.pay.gw
import com.pay.Money
class Gateway { fun validate(m: Money) { m.isPositive() } }
//- /src/com/pay/gw/Alias.kt
package com.pay.gw
import com.orders.Money as OrderMoney
class Alias { fun validate(m: OrderMoney) { m.isPositive() } }
"#,
        r#"
com.orders.Draft.validate -> com.orders.Money.isPositive
com.pay.gw.Alias.validate -> com.orders.Money.isPositive
com.pay.gw.Gateway.validate -> com.pay.Money.isPositive
"#,
    );
}

#[test]
fn the_jvm_view_of_declarations() {
    let parsed = files(
        r#"
//- /src/a/Things.kt
@file:JvmName("Things")
package a

const val LIMIT = "10"
val version: String = "1"
fun top(x: Int = 1): Int = x
fun String.shout(): String = uppercase()

interface Named { val name: String }
enum class Color(val rgb: Int) { RED(1), GREEN(2) }
annotation class Marker(val value: String)
abstract class Base
class Holder(val names: List<String>, var count: Int?) : Base(), Named {
    override val name: String = "h"
    inner class Inner
    class Nested
}
"#,
    );
    let f = &parsed[0];
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(f.facade.as_deref(), Some("a.Things"));
    let describe = |fqn: &str| -> String {
        let t = f.types.iter().find(|t| t.fqn == fqn).expect(fqn);
        let mut out = format!("{:?} {} [{}]", t.kind, t.fqn, t.modifiers.join(" "));
        if !t.extends.is_empty() {
            out += &format!(" extends {}", t.extends.join(", "));
        }
        if !t.implements.is_empty() {
            out += &format!(" implements {}", t.implements.join(", "));
        }
        for field in &t.fields {
            out += &format!(
                "\n  field {} {}: {}",
                field.modifiers.join(" "),
                field.name,
                field.ty
            );
        }
        for m in &t.methods {
            let params: Vec<String> = m.params.iter().map(|p| format!("{}: {}", p.name, p.ty)).collect();
            out += &format!(
                "\n  method {} {}({}): {}{}",
                m.modifiers.join(" "),
                m.name,
                params.join(", "),
                m.return_type.as_deref().unwrap_or("-"),
                if m.implicit { " implicit" } else { "" }
            );
        }
        for c in &t.constants {
            out += &format!("\n  const {} = {:?}", c.0, c.1);
        }
        out
    };
    let all: Vec<String> = f.types.iter().map(|t| describe(&t.fqn)).collect();
    let expected = r#"Class a.Things [public final]
  field public static final LIMIT: String
  field private static final version: String
  method public static getVersion(): String implicit
  method public static top(x: int): int
  method public static shout($receiver: String): String
  const LIMIT = "10"
Interface a.Named [public]
  method public abstract getName(): String implicit
Enum a.Color [public]
  field private final rgb: int
  method public getRgb(): int implicit
  method private <init>(rgb: int): -
Annotation a.Marker [public]
  method public abstract value(): String
Class a.Base [public abstract]
  method public <init>(): - implicit
Class a.Holder [public final] extends Base implements Named
  field private final names: java.util.List<String>
  field private count: Integer
  field private final name: String
  method public getNames(): java.util.List<String> implicit
  method public getCount(): Integer implicit
  method public setCount(value: Integer): void implicit
  method public getName(): String implicit
  method public <init>(names: java.util.List<String>, count: Integer): -
Class a.Holder.Inner [public final inner]
  method public <init>(): - implicit
Class a.Holder.Nested [public final static]
  method public <init>(): - implicit"#;
    assert_eq!(all.join("\n"), expected, "\nactual:\n{}\n", all.join("\n"));
    assert!(f.types.iter().all(|t| t.kind != TypeKind::Record));
}

#[test]
fn annotation_arguments_as_text_and_trees() {
    let parsed = files(
        r#"
//- /src/a/Api.kt
package a
const val BASE = "/api"
@RequestMapping(value = ["/owners", "$BASE/x"], produces = arrayOf("application/json"))
class Api(@Value("\${app.url:http://x}") val url: String) {
    @GetMapping("/a", "/b") fun get() {}
    @JoinTable(joinColumns = [JoinColumn(name = "a_id")]) val links: List<String> = emptyList()
    @Query("""
        select o from Order o
    """) fun q() {}
}
"#,
    );
    let f = &parsed[0];
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    let api = f.types.iter().find(|t| t.fqn == "a.Api").expect("Api");
    let mapping = &api.annotations[0];
    assert_eq!(mapping.name, "RequestMapping");
    assert_eq!(
        mapping.args,
        vec![
            (
                "value".to_string(),
                vec!["/owners".to_string(), "/api/x".to_string()]
            ),
            ("produces".to_string(), vec!["application/json".to_string()]),
        ]
    );
    let ctor = api.methods.iter().find(|m| m.name == "<init>").expect("ctor");
    assert_eq!(
        ctor.params[0].annotations[0].args[0].1,
        vec!["${app.url:http://x}".to_string()]
    );
    let get = api.methods.iter().find(|m| m.name == "get").expect("get");
    assert_eq!(
        get.annotations[0].args[0].1,
        vec!["/a".to_string(), "/b".to_string()]
    );
    let links = api.fields.iter().find(|x| x.name == "links").expect("links");
    assert_eq!(
        links.annotations[0].args[0].1,
        vec!["@JoinColumn(name = \"a_id\")".to_string()]
    );
    let q = api.methods.iter().find(|m| m.name == "q").expect("q");
    assert_eq!(
        q.annotations[0].args[0].1,
        vec!["\n        select o from Order o\n    ".to_string()]
    );
    use crate::facts::Expr;
    assert_eq!(
        mapping.exprs[0].1[1],
        Expr::Concat(vec![Expr::Name("BASE".into()), Expr::Str("/x".into())])
    );
}

#[test]
fn string_templates_are_concatenations() {
    let parsed = files(
        r#"
//- /src/a/Urls.kt
package a
class Urls(private val base: String) {
    fun u(id: Long) {
        val a = "$base/orders/$id/lines"
        val b = "${base}/x/${'$'}{id}"
        val c = "price: \$5"
    }
}
"#,
    );
    use crate::facts::Expr;
    let f = &parsed[0];
    let m = f.types[0].methods.iter().find(|m| m.name == "u").expect("u");
    let value = |name: &str| {
        m.local_inits
            .iter()
            .find(|(n, ..)| n == name)
            .map(|(_, _, e)| e.clone())
    };
    assert_eq!(
        value("a"),
        Some(Expr::Concat(vec![
            Expr::Name("base".into()),
            Expr::Str("/orders/".into()),
            Expr::Name("id".into()),
            Expr::Str("/lines".into()),
        ]))
    );
    assert_eq!(
        value("b"),
        Some(Expr::Concat(vec![
            Expr::Name("base".into()),
            Expr::Str("/x/${id}".into())
        ]))
    );
    assert_eq!(value("c"), Some(Expr::Str("price: $5".into())));
}

#[test]
fn never_panics_on_hostile_kotlin() {
    let deep_parens = format!("fun f() {{ val x = {}1{} }}", "(".repeat(5000), ")".repeat(5000));
    let deep_calls = format!("fun f() {{ a{} }}", ".b()".repeat(3000));
    let deep_lambdas = format!("fun f() {{ {} }}", "run { ".repeat(2000));
    let deep_types = format!("{}{}", "class A { ".repeat(200), "}".repeat(200));
    let trailing_lambdas = format!("fun f() {{ a{} }}", " {}".repeat(20_000));
    let deep_templates = format!("val s = {}{}", "\"${".repeat(3000), "}\"".repeat(3000));
    let inputs = [
        "",
        "class",
        "fun (",
        "package ;; import",
        "class A { fun b( { val } }",
        "@file:JvmName(",
        "val s = \"${",
        "val s = \"\"\"unterminated",
        deep_parens.as_str(),
        deep_calls.as_str(),
        deep_lambdas.as_str(),
        deep_types.as_str(),
        trailing_lambdas.as_str(),
        deep_templates.as_str(),
    ];
    for (i, input) in inputs.iter().enumerate() {
        let f = crate::lang::kotlin::parse_kotlin_file(&format!("{i}.kt"), input);
        let files = [f];
        let table = SymbolTable::build(&files);
        let _ = resolve_calls(&files[0], &table);
    }
}

#[test]
fn a_member_imported_from_a_class_is_called_on_that_class() {
    // `Assertions.assertThat` is a library class's static method; `Checks.check` a
    // product object's. `getBean` is imported from a package (an extension function of a
    // facade whose name the import does not give): it stays open.
    check(
        r#"
//- /src/a/Checks.kt
package a
object Checks { fun check(x: Any) {} }
//- /src/a/UseTest.kt
package a
import org.assertj.core.api.Assertions.assertThat
import org.springframework.beans.factory.getBean
import a.Checks.check
class UseTest {
    fun run(x: Any) {
        assertThat(x)
        check(x)
        getBean(x)
    }
}
"#,
        r#"
a.UseTest.run -> ? no function getBean in scope
a.UseTest.run -> a.Checks.check
a.UseTest.run -> ext org.assertj.core.api.Assertions.assertThat
"#,
    );
}

#[test]
fn a_call_under_a_prefix_operator_or_on_a_class_literal_keeps_its_receiver() {
    // The grammar nests `!a.b()` as `(!a).b()`; the receiver is still `a`. `X::class.java`
    // is the JVM's `Class`.
    check(
        r#"
//- /src/a/V.kt
package a
import org.springframework.util.StringUtils
class Box { fun empty(): Boolean = true; fun size(): Int = 0 }
class V {
    fun v(name: String?, b: Box) {
        if (!StringUtils.hasLength(name)) { }
        if (!b.empty()) { }
        val n = -b.size()
        Box::class.java.isAssignableFrom(Box::class.java)
    }
}
"#,
        r#"
a.V.v -> a.Box.empty
a.V.v -> a.Box.size
a.V.v -> ext java.lang.Class.isAssignableFrom
a.V.v -> ext org.springframework.util.StringUtils.hasLength
"#,
    );
}

#[test]
fn a_chain_through_a_library_call_is_typed_as_the_library_declares_it() {
    // `assertThat` has dozens of one-argument overloads: a `String` argument picks
    // `assertThat(String)`, an `Int?` the `int`/`Integer` pair (which agree), an argument of
    // unknown type none. `given` returns `BDDMyOngoingStubbing<T>`, a constructor its type,
    // `File.toPath` a `Path`, `StringBuilder.append` (overloads that all return
    // `StringBuilder`) its type whatever the argument. A type outside every model stays
    // untyped. Library types are named through an on-demand import of their package
    // (`Collections`), `kotlin.collections`' aliases (`ArrayList`) and `java.lang`.
    check(
        r#"
//- /src/a/Owner.kt
package a
class Owner(var name: String, var age: Int?) {
    fun find(): Owner? = null
}
//- /src/a/OwnerTest.kt
package a
import org.assertj.core.api.Assertions.assertThat
import org.mockito.BDDMockito.given
import com.acme.Unknown
import java.io.File
import java.util.*
class OwnerTest {
    fun run(owner: Owner, other: Unknown) {
        assertThat(owner.name).isEqualTo("n")
        assertThat(owner.age).isEqualTo(3)
        assertThat(other.value()).isEqualTo(4)
        given(owner.find()).willReturn(owner)
        File("x").toPath().normalize()
        StringBuilder().append(other.value()).reverse()
        Unknown.make().use()
        Collections.emptyList<String>().isEmpty()
        ArrayList<String>().add("x")
        IllegalStateException("x").printStackTrace()
    }
}
"#,
        r#"
a.OwnerTest.run -> ? result of external com.acme.Unknown.make not typed
a.OwnerTest.run -> ? result of external org.assertj.core.api.Assertions.assertThat not typed
a.OwnerTest.run -> a.Owner.find
a.OwnerTest.run -> a.Owner.getAge
a.OwnerTest.run -> a.Owner.getName
a.OwnerTest.run -> ext com.acme.Unknown.make
a.OwnerTest.run -> ext com.acme.Unknown.value
a.OwnerTest.run -> ext java.io.File.<init>
a.OwnerTest.run -> ext java.io.File.toPath
a.OwnerTest.run -> ext java.lang.IllegalStateException.<init>
a.OwnerTest.run -> ext java.lang.IllegalStateException.printStackTrace
a.OwnerTest.run -> ext java.lang.StringBuilder.<init>
a.OwnerTest.run -> ext java.lang.StringBuilder.append
a.OwnerTest.run -> ext java.lang.StringBuilder.reverse
a.OwnerTest.run -> ext java.nio.file.Path.normalize
a.OwnerTest.run -> ext java.util.ArrayList.<init>
a.OwnerTest.run -> ext java.util.ArrayList.add
a.OwnerTest.run -> ext java.util.Collections.emptyList
a.OwnerTest.run -> ext java.util.List.isEmpty
a.OwnerTest.run -> ext org.assertj.core.api.AbstractIntegerAssert.isEqualTo
a.OwnerTest.run -> ext org.assertj.core.api.AbstractStringAssert.isEqualTo
a.OwnerTest.run -> ext org.assertj.core.api.Assertions.assertThat
a.OwnerTest.run -> ext org.mockito.BDDMockito.BDDMyOngoingStubbing.willReturn
a.OwnerTest.run -> ext org.mockito.BDDMockito.given
"#,
    );
}

#[test]
fn a_class_imported_on_demand_gives_its_statics_to_bare_calls() {
    // Hamcrest's `Matchers` is modelled: `hasItem` is its static, `nothingLikeThis` is not.
    // `ResultMatchers` is known to no model: a name nothing else answers for is
    // its, outside lambdas (a lambda's receiver may declare it: `inDsl`), never a standard
    // library function's (`listOf`). A package imported on demand holds no statics. In
    // `B`, two unmodelled classes could hold `status`: unresolved, naming both; `get` is
    // the one `C` imports from `RequestBuilders` by name.
    check(
        r#"
//- /src/a/A.kt
package a
import org.hamcrest.Matchers.*
import com.vendor.web.ResultMatchers.*
import java.util.*
class A {
    fun run(d: Dsl) {
        hasItem("x")
        nothingLikeThis()
        status()
        listOf(1)
        d.configure { inDsl() }
    }
}
class Dsl { fun configure(block: () -> Unit) {} }
//- /src/a/B.kt
package a
import com.vendor.web.ResultMatchers.*
import com.vendor.web.RequestBuilders.*
class B {
    fun run() { status(); get("/x") }
}
//- /src/a/C.kt
package a
import com.vendor.web.RequestBuilders.get
class C {
    fun run() { get("/y") }
}
"#,
        r#"
a.A.run -> ? no function inDsl in scope
a.A.run -> a.Dsl.configure
a.A.run -> ext com.vendor.web.ResultMatchers.nothingLikeThis
a.A.run -> ext com.vendor.web.ResultMatchers.status
a.A.run -> ext kotlin.collections.CollectionsKt.listOf
a.A.run -> ext org.hamcrest.Matchers.hasItem
a.B.run -> ? no function status in scope; it may be a static of com.vendor.web.ResultMatchers or com.vendor.web.RequestBuilders, imported on demand, whose members are not known
a.B.run -> ext com.vendor.web.RequestBuilders.get
a.C.run -> ext com.vendor.web.RequestBuilders.get
"#,
    );
}

#[test]
fn an_interface_called_with_a_lambda_is_a_sam_conversion_not_a_constructor_call() {
    // `Runnable { }` and `Handler { s -> }` make instances of the interfaces without
    // calling anything (an interface has no constructor); a chain on one goes on with the
    // interface's methods. A class called with a lambda is still its constructor, and a
    // function of the interface's name (a factory) is still called.
    check(
        r#"
//- /src/a/Handler.java
package a;
public interface Handler { void handle(String s); }
//- /src/a/Box.java
package a;
public class Box { public Box(Runnable r) {} }
//- /src/a/S.kt
package a
class S {
    fun run() {
        val r = Runnable { }
        r.run()
        Handler { s -> }.handle("y")
        Thread(Runnable { })
        Box { }
        Sink { }
    }
}
//- /src/a/Sink.java
package a;
public interface Sink { void accept(String s); }
//- /src/a/Sinks.kt
package a
fun Sink(block: () -> Unit): Sink = object : Sink { override fun accept(s: String) {} }
"#,
        r#"
a.S.run -> a.Box.<init>
a.S.run -> a.Handler.handle
a.S.run -> a.SinksKt.Sink
a.S.run -> ext java.lang.Runnable.run
a.S.run -> ext java.lang.Thread.<init>
"#,
    );
}
