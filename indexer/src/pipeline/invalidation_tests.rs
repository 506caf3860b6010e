//! The names a declaration change makes resolve again: each rule of `invalidation.rs`
//! on Java (and one Kotlin) skeletons parsed from text, and the identifier scan.

use super::*;
use crate::lang::java::parse_java_file;

fn java(path: &str, text: &str) -> CodeFile {
    parse_java_file(path, text)
}

/// The invalidation of changing `path` from `before` to `after` in a product whose other
/// files are `rest`.
fn change(path: &str, before: Option<&str>, after: Option<&str>, rest: &[(&str, &str)]) -> Invalidation {
    let b = before.map(|t| java(path, t));
    let a = after.map(|t| java(path, t));
    let mut now: Vec<CodeFile> = rest.iter().map(|(p, t)| java(p, t)).collect();
    now.extend(a.clone());
    invalidation(&[(b.as_ref(), a.as_ref())], &now, &|_| None)
}

fn names(i: &Invalidation) -> &HashSet<String> {
    match i {
        Invalidation::Mentioning { names, .. } => names,
        Invalidation::All(reason) => panic!("everything resolves again: {reason}"),
    }
}

const ORDERS: &str = "package p;\npublic class Orders {\n  public Order find(long id) { return null; }\n  private int size;\n}\n";

#[test]
fn a_method_added_changes_its_name_and_its_accessors() {
    let after = ORDERS.replace(
        "  private int size;",
        "  private int size;\n  public void place() {}",
    );
    let i = change("Orders.java", Some(ORDERS), Some(&after), &[]);
    let n = names(&i);
    for want in ["place", "getPlace"] {
        assert!(n.contains(want), "{want} in {n:?}");
    }
    for not in ["find", "size", "Order", "Orders"] {
        assert!(!n.contains(not), "{not} not in {n:?}");
    }
}

#[test]
fn a_constructor_or_a_functional_interface_changes_its_type_s_name() {
    let after = ORDERS.replace(
        "  private int size;",
        "  private int size;\n  public Orders(int size) {}",
    );
    assert!(names(&change("Orders.java", Some(ORDERS), Some(&after), &[])).contains("Orders"));
    let visitor =
        "package p;\npublic interface Visitor {\n  void visit(Order o);\n  default void done() {}\n}\n";
    let changed = visitor.replace("visit(Order o)", "visit(Orders o)");
    let n = change("Visitor.java", Some(visitor), Some(&changed), &[]);
    assert!(
        names(&n).contains("Visitor"),
        "a lambda typed by it changes: {n:?}"
    );
    // Two abstract methods: no lambda is ever typed by it.
    let two = visitor.replace("default void done() {}", "void done();");
    let changed = two.replace("visit(Order o)", "visit(Orders o)");
    let n = change("Visitor.java", Some(&two), Some(&changed), &[]);
    assert!(!names(&n).contains("Visitor"), "{n:?}");
}

#[test]
fn a_body_edit_changes_no_name() {
    let after = ORDERS.replace("return null;", "System.out.println(id); return null;");
    let i = change("Orders.java", Some(ORDERS), Some(&after), &[]);
    assert_eq!(
        i,
        Invalidation::Mentioning {
            names: HashSet::new(),
            kotlin: false
        }
    );
}

#[test]
fn a_change_spreads_through_the_signatures_that_write_it() {
    // A constructor of `Orders` added changes `Orders`; `Shop.orders()` returns one,
    // `Api`'s constructor takes one and `BigOrders` extends it: a caller of `orders()`, of
    // `new Api(…)` or of `new BigOrders()` may now resolve differently. `other()` and
    // `more()` write no changed name, and what BigOrders inherits is reached by name.
    let shop = "package p;\npublic class Shop {\n  public Orders orders() { return null; }\n  public int other() { return 0; }\n}\n";
    let api = "package p;\npublic class Api {\n  public Api(Orders o) {}\n}\n";
    let sub = "package p;\npublic class BigOrders extends Orders {\n  public void more() {}\n}\n";
    let after = ORDERS.replace(
        "  private int size;",
        "  private int size;\n  public Orders(int size) {}",
    );
    let rest = [("Shop.java", shop), ("Api.java", api), ("BigOrders.java", sub)];
    let i = change("Orders.java", Some(ORDERS), Some(&after), &rest);
    let n = names(&i);
    for want in ["Orders", "orders", "getOrders", "Api", "BigOrders"] {
        assert!(n.contains(want), "{want} in {n:?}");
    }
    for not in ["other", "more", "find"] {
        assert!(
            !n.contains(not),
            "{not}: its signature does not write a changed name: {n:?}"
        );
    }
    // A method's parameter type changed in a class: only its name.
    let param = ORDERS.replace("find(long id)", "find(int id)");
    let n = change("Orders.java", Some(ORDERS), Some(&param), &rest);
    for not in ["Orders", "orders", "Api", "BigOrders"] {
        assert!(!names(&n).contains(not), "{not}: {n:?}");
    }
}

#[test]
fn a_type_added_or_removed_changes_its_name_and_its_members() {
    let i = change("Orders.java", None, Some(ORDERS), &[]);
    let n = names(&i);
    for want in ["Orders", "find", "size", "getSize"] {
        assert!(n.contains(want), "{want} in {n:?}");
    }
    assert_eq!(change("Orders.java", Some(ORDERS), None, &[]), i);
}

#[test]
fn what_names_cannot_follow_resolves_everything() {
    let supertype = ORDERS.replace("class Orders {", "class Orders extends Base {");
    assert!(matches!(
        change("Orders.java", Some(ORDERS), Some(&supertype), &[]),
        Invalidation::All(_)
    ));
    let iterable = ORDERS.replace(
        "  private int size;",
        "  private int size;\n  public java.util.Iterator<Order> iterator() { return null; }",
    );
    assert!(matches!(
        change("Orders.java", Some(ORDERS), Some(&iterable), &[]),
        Invalidation::All(_)
    ));
    // Another file declares the same name: which one the table keeps depends on order.
    let added = change("copy/Orders.java", None, Some(ORDERS), &[("Orders.java", ORDERS)]);
    assert!(matches!(added, Invalidation::All(_)), "{added:?}");
    let imports = ORDERS.replace("package p;\n", "package p;\nimport q.*;\n");
    let with_supertype = supertype.replace("package p;\n", "package p;\nimport q.*;\n");
    assert!(
        matches!(
            change("Orders.java", Some(&supertype), Some(&with_supertype), &[]),
            Invalidation::All(_)
        ),
        "new imports may rebind a supertype"
    );
    let n = change("Orders.java", Some(ORDERS), Some(&imports), &[]);
    for want in ["Orders", "find", "size"] {
        assert!(
            names(&n).contains(want),
            "new imports may rebind a signature: {n:?}"
        );
    }
}

#[test]
fn a_name_kotlin_calls_by_convention_resolves_every_kotlin_file() {
    let with_get = ORDERS.replace(
        "  private int size;",
        "  private int size;\n  public Order get(int i) { return null; }",
    );
    match change("Orders.java", Some(ORDERS), Some(&with_get), &[]) {
        Invalidation::Mentioning { kotlin, names } => {
            assert!(kotlin, "`get` is Kotlin's `[]`: {names:?}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn identifiers_are_whole_words_outside_numbers() {
    let words: Vec<&str> = identifiers("a.getB().c_1($x, 42, 3e5, né) // Orders2").collect();
    assert_eq!(words, ["a", "getB", "c_1", "$x", "né", "Orders2"]);
    let names: HashSet<String> = ["find".to_string()].into_iter().collect();
    assert!(mentions("orders.find(1)", &names));
    assert!(!mentions("orders.findAll(1); // refind", &names));
}

#[test]
fn an_unchanged_functional_interface_beside_a_change_changes_nothing() {
    // A file declaring a class and a functional interface: a method added to the class
    // leaves the interface, and the lambdas it types, as they were.
    let before = "package p;\npublic class Shop {\n  public void a() {}\n  public interface Step {\n    void go(int i);\n  }\n}\n";
    let after = before.replace(
        "  public void a() {}",
        "  public void a() {}\n  public void b() {}",
    );
    let n = change("Shop.java", Some(before), Some(&after), &[]);
    for not in ["Step", "Shop", "go"] {
        assert!(!names(&n).contains(not), "{not}: {n:?}");
    }
}

#[test]
fn a_member_whose_type_is_not_written_changes_when_its_file_mentions_a_change() {
    // `svc`'s type is whatever `Factory.make()` returns: a file calling `holder.svc.go()`
    // writes neither `make` nor a type name that changed.
    let holder = "package p\n\nclass Holder {\n    val svc = Factory.make()\n    val count: Int = 0\n}\n";
    let kotlin = crate::lang::kotlin::parse_kotlin_file("Holder.kt", holder);
    let factory = "package p;\npublic class Factory {\n  public static Orders make() { return null; }\n  public static int other() { return 0; }\n}\n";
    let now_with = |a: &CodeFile| vec![kotlin.clone(), a.clone()];
    let text_of = |path: &str| (path == "Holder.kt").then(|| holder.to_string());
    let b = java("Factory.java", factory);
    let a = java("Factory.java", &factory.replace("Orders make()", "Order make()"));
    let n = invalidation(&[(Some(&b), Some(&a))], &now_with(&a), &text_of);
    for want in ["make", "svc", "getSvc"] {
        assert!(names(&n).contains(want), "{want}: {n:?}");
    }
    assert!(!names(&n).contains("count"), "a written type: {n:?}");
    // A change its file does not mention leaves it; a file that cannot be read, not.
    let a = java("Factory.java", &factory.replace("int other()", "long other()"));
    let n = invalidation(&[(Some(&b), Some(&a))], &now_with(&a), &text_of);
    assert!(!names(&n).contains("svc"), "{n:?}");
    let n = invalidation(&[(Some(&b), Some(&a))], &now_with(&a), &|_| None);
    assert!(names(&n).contains("svc"), "{n:?}");
}
