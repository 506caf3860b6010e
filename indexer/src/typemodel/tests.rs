//! Tests of the type model: signatures parsed and rendered (examples and properties), the
//! embedded JDK model and its lookups, class files and jars built here with `javac` and
//! `jar`, and dependency resolution over a fake local Maven repository and Gradle cache.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;

use super::archive::{public_api, read_archive};
use super::deps::{
    compare_versions, load_classpath, load_dependencies, Coordinate, Outcome, Repositories, ResolveOptions,
};
use super::jdk::{embedded_size, jdk, jdk_origin};
use super::model::{Constant, Flags, Layered, TypeKind, TypeModel, TypeSource};
use super::ty::{
    erase, parse_class, parse_method, parse_type, subst, ClassSig, ClassTy, Interner, MethodSig, Name, Prim,
    Subst, Ty, TyArg, TypeParam,
};
use super::wire;

fn ty(sig: &str) -> Ty {
    parse_type(sig, &mut Interner::default()).expect("parses")
}

fn class(binary: &str, args: Vec<TyArg>) -> ClassTy {
    ClassTy {
        name: Name::from(binary),
        args: args.into_boxed_slice(),
        outer: None,
    }
}

// ---------------------------------------------------------------------------------------
// Signatures

#[test]
fn signatures_display_as_java_source_writes_them() {
    let cases = [
        ("Ljava/util/Map<TK;TV;>;", "java.util.Map<K, V>"),
        (
            "Ljava/util/Map$Entry<Ljava/lang/String;[I>;",
            "java.util.Map.Entry<java.lang.String, int[]>",
        ),
        (
            "Ljava/util/List<+Ljava/lang/Number;>;",
            "java.util.List<? extends java.lang.Number>",
        ),
        ("Ljava/util/Comparator<-TT;>;", "java.util.Comparator<? super T>"),
        ("Ljava/lang/Class<*>;", "java.lang.Class<?>"),
        ("[[TT;", "T[][]"),
        ("J", "long"),
        (
            "Lp/Outer<Ljava/lang/String;>.Inner<TU;>.Deep;",
            "p.Outer<java.lang.String>.Inner<U>.Deep",
        ),
    ];
    for (sig, java) in cases {
        let t = ty(sig);
        assert_eq!(t.to_string(), java, "{sig}");
        assert_eq!(t.signature(), sig, "renders back: {sig}");
    }
}

#[test]
fn method_and_class_signatures_parse_with_bounds_and_throws() {
    let mut names = Interner::default();
    let sig = "<T:Ljava/lang/Object;:Ljava/lang/Comparable<-TT;>;>(Ljava/util/Collection<+TT;>;)TT;";
    let m = parse_method(sig, &mut names).expect("parses");
    assert_eq!(m.type_params.len(), 1);
    assert_eq!(m.type_params[0].bounds.len(), 2);
    assert_eq!(
        m.to_string(),
        "<T extends java.lang.Comparable<? super T>> T (java.util.Collection<? extends T>)"
    );
    assert_eq!(m.signature(), sig);
    // Erasure takes the leftmost bound: Object here, as javac's descriptor says.
    assert_eq!(
        m.erased_descriptor(&[]),
        "(Ljava/util/Collection;)Ljava/lang/Object;"
    );

    let only_interface_bound = "<T::Ljava/lang/Comparable<-TT;>;>(Ljava/util/List<TT;>;)V";
    let m = parse_method(only_interface_bound, &mut names).expect("parses");
    assert!(!m.type_params[0].has_class_bound);
    assert_eq!(m.signature(), only_interface_bound);
    assert_eq!(m.erased_descriptor(&[]), "(Ljava/util/List;)V");

    let throws =
        "<X:Ljava/lang/Throwable;>(Ljava/util/function/Supplier<+TX;>;)TT;^TX;^Ljava/io/IOException;";
    let m = parse_method(throws, &mut names).expect("parses");
    assert_eq!(m.throws.len(), 2);
    assert_eq!(m.signature(), throws);

    let descriptor = "([Ljava/lang/String;IJ)V";
    let m = parse_method(descriptor, &mut names).expect("parses");
    assert_eq!(
        m.params.iter().map(Ty::simple).collect::<Vec<_>>(),
        ["String[]", "int", "long"]
    );
    assert_eq!(m.ret, Ty::Prim(Prim::Void));

    let c = parse_class(
        "<E:Ljava/lang/Object;>Ljava/util/AbstractList<TE;>;Ljava/util/List<TE;>;Ljava/util/RandomAccess;",
        &mut names,
    )
    .expect("parses");
    assert_eq!(c.superclass.to_string(), "java.util.AbstractList<E>");
    assert_eq!(c.interfaces.len(), 2);
}

#[test]
fn malformed_signatures_are_errors_not_panics() {
    let mut names = Interner::default();
    for bad in [
        "",
        "L",
        "Ljava/util/List",
        "Ljava/util/List<>;",
        "Ljava/util/List<TT;",
        "TT",
        "[",
        "V",
        "[V",
        "Q",
        "Ljava/lang/String;X",
    ] {
        assert!(parse_type(bad, &mut names).is_err(), "{bad:?}");
    }
    for bad in ["(V)V", "()", "(I", "<>()V", "<T>()V", "<T:>()V", "()VV", "(I)V^"] {
        assert!(parse_method(bad, &mut names).is_err(), "{bad:?}");
    }
}

#[test]
fn simple_names_are_semgraphs_parameter_spelling() {
    assert_eq!(ty("Ljava/util/List<Ljava/lang/String;>;").simple(), "List");
    assert_eq!(ty("Ljava/util/Map$Entry<TK;TV;>;").simple(), "Entry");
    assert_eq!(ty("[Ljava/lang/String;").simple(), "String[]");
    assert_eq!(ty("TT;").simple(), "T");
    assert_eq!(ty("[[I").simple(), "int[][]");
}

fn arb_name() -> impl Strategy<Value = String> {
    // Identifiers, `$` and non-ASCII letters included (JVMS allows any but `.;[/<>:`).
    "[A-Za-z_][A-Za-z0-9_$é]{0,6}"
}

fn arb_binary() -> impl Strategy<Value = String> {
    (proptest::collection::vec("[a-z][a-z0-9]{0,4}", 0..3), arb_name()).prop_map(|(pkg, name)| {
        if pkg.is_empty() {
            name
        } else {
            format!("{}.{name}", pkg.join("."))
        }
    })
}

fn arb_ty() -> impl Strategy<Value = Ty> {
    let leaf = prop_oneof![
        prop_oneof![
            Just(Prim::Boolean),
            Just(Prim::Byte),
            Just(Prim::Char),
            Just(Prim::Short),
            Just(Prim::Int),
            Just(Prim::Long),
            Just(Prim::Float),
            Just(Prim::Double),
        ]
        .prop_map(Ty::Prim),
        arb_name().prop_map(|n| Ty::Var(Name::from(n))),
        arb_binary().prop_map(|n| Ty::class(&n)),
    ];
    leaf.prop_recursive(4, 24, 3, |inner| {
        let reference = inner
            .clone()
            .prop_filter("a reference type", |t| !t.is_primitive());
        let arg = prop_oneof![
            Just(TyArg::Wildcard),
            reference.clone().prop_map(TyArg::Exact),
            reference.clone().prop_map(TyArg::Extends),
            reference.prop_map(TyArg::Super),
        ];
        prop_oneof![
            inner.prop_map(|t| Ty::Array(Box::new(t))),
            (arb_binary(), proptest::collection::vec(arg.clone(), 1..3))
                .prop_map(|(n, args)| Ty::Class(class(&n, args))),
            // An inner class of a parameterised outer class.
            (
                arb_binary(),
                proptest::collection::vec(arg.clone(), 1..3),
                arb_name(),
                proptest::collection::vec(arg, 0..2)
            )
                .prop_map(|(outer, oargs, inner, args)| {
                    let outer = class(&outer, oargs);
                    Ty::Class(ClassTy {
                        name: Name::from(format!("{}${inner}", outer.name)),
                        args: args.into_boxed_slice(),
                        outer: Some(Box::new(outer)),
                    })
                }),
        ]
    })
}

fn arb_reference() -> impl Strategy<Value = Ty> {
    arb_ty().prop_filter("a reference type", |t| !t.is_primitive())
}

fn arb_type_params() -> impl Strategy<Value = Vec<TypeParam>> {
    proptest::collection::vec(
        (
            arb_name(),
            any::<bool>(),
            proptest::collection::vec(arb_reference(), 1..3),
        ),
        0..3,
    )
    .prop_map(|ps| {
        ps.into_iter()
            .map(|(name, has_class_bound, bounds)| TypeParam {
                name: Name::from(name),
                has_class_bound,
                bounds,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn type_signatures_round_trip(t in arb_ty()) {
        let sig = t.signature();
        let back = parse_type(&sig, &mut Interner::default()).expect("a rendered signature parses");
        prop_assert_eq!(&back, &t);
        prop_assert_eq!(back.signature(), sig);
    }

    #[test]
    fn method_signatures_round_trip(
        type_params in arb_type_params(),
        params in proptest::collection::vec(arb_ty(), 0..4),
        ret in prop_oneof![Just(Ty::Prim(Prim::Void)), arb_ty()],
        throws in proptest::collection::vec(arb_reference().prop_filter("class or variable", |t| !matches!(t, Ty::Array(_))), 0..2),
    ) {
        let m = MethodSig { type_params, params, ret, throws };
        let sig = m.signature();
        let back = parse_method(&sig, &mut Interner::default()).expect("parses");
        prop_assert_eq!(&back, &m);
        prop_assert_eq!(back.signature(), sig);
    }

    #[test]
    fn class_signatures_round_trip(
        type_params in arb_type_params(),
        superclass in arb_binary(),
        interfaces in proptest::collection::vec(arb_binary(), 0..3),
    ) {
        let c = ClassSig {
            type_params,
            superclass: class(&superclass, Vec::new()),
            interfaces: interfaces.iter().map(|i| class(i, Vec::new())).collect(),
        };
        let sig = c.signature();
        let back = parse_class(&sig, &mut Interner::default()).expect("parses");
        prop_assert_eq!(&back, &c);
    }

    /// Substituting nothing changes nothing; substituting every variable by an exact type
    /// leaves no variable behind.
    #[test]
    fn substitution_replaces_every_bound_variable(t in arb_ty(), by in arb_binary()) {
        prop_assert_eq!(subst(&t, &Subst::empty()), t.clone());
        let mut vars = Vec::new();
        collect_vars(&t, &mut vars);
        let mut s = Subst::empty();
        for v in &vars {
            s.bind_exact(v.clone(), Ty::class(&by));
        }
        let mut left = Vec::new();
        collect_vars(&subst(&t, &s), &mut left);
        prop_assert!(left.is_empty(), "{:?} left in {}", left, subst(&t, &s));
    }

    /// Erasure leaves no type argument and no variable.
    #[test]
    fn erasure_is_a_descriptor(t in arb_ty()) {
        let e = erase(&t, &[]);
        let sig = e.signature();
        prop_assert!(!sig.contains('<') && !sig.starts_with('T') && !sig.contains("[T"), "{}", sig);
    }
}

fn collect_vars(t: &Ty, out: &mut Vec<Name>) {
    match t {
        Ty::Prim(_) => {}
        Ty::Var(v) => out.push(v.clone()),
        Ty::Array(e) => collect_vars(e, out),
        Ty::Class(c) => {
            let mut c = Some(c);
            while let Some(cur) = c {
                for a in cur.args.iter() {
                    if let TyArg::Exact(t) | TyArg::Extends(t) | TyArg::Super(t) = a {
                        collect_vars(t, out);
                    }
                }
                c = cur.outer.as_deref();
            }
        }
    }
}

#[test]
fn substitution_through_wildcards_follows_capture() {
    let t = Name::from("T");
    let mut s = Subst::empty();
    s.bind(
        t.clone(),
        TyArg::Extends(Ty::class("java.lang.Number")),
        Ty::object(),
    );
    // A value read from a `T` position is a Number; a `List<T>` is a `List<? extends Number>`.
    assert_eq!(subst(&ty("TT;"), &s).to_string(), "java.lang.Number");
    assert_eq!(
        subst(&ty("Ljava/util/List<TT;>;"), &s).to_string(),
        "java.util.List<? extends java.lang.Number>"
    );
    assert_eq!(
        subst(&ty("Ljava/util/List<-TT;>;"), &s).to_string(),
        "java.util.List<?>"
    );
    let mut s = Subst::empty();
    s.bind(t, TyArg::Super(Ty::class("java.lang.Integer")), Ty::object());
    assert_eq!(subst(&ty("TT;"), &s).to_string(), "java.lang.Object");
    assert_eq!(
        subst(&ty("Ljava/util/function/Consumer<-TT;>;"), &s).to_string(),
        "java.util.function.Consumer<? super java.lang.Integer>"
    );
}

// ---------------------------------------------------------------------------------------
// The JDK model

fn receiver(binary: &str, args: &[&str]) -> ClassTy {
    class(binary, args.iter().map(|a| TyArg::Exact(ty(a))).collect())
}

#[test]
fn the_jdk_model_loads_once_and_is_small() {
    let started = std::time::Instant::now();
    let model = jdk();
    let first = started.elapsed();
    let again = std::time::Instant::now();
    let same = jdk();
    assert!(std::ptr::eq(model, same), "one model per process");
    assert!(again.elapsed() < first || first.as_millis() < 5);
    let origin = jdk_origin().expect("the embedded data loads");
    assert!(
        origin.contains("java.base") && origin.contains("OpenJDK 17"),
        "{origin}"
    );
    // A few MB at most, committed.
    assert!(embedded_size() < 4 << 20, "{} bytes", embedded_size());
    assert!(model.len() > 1_500, "{} types", model.len());
    eprintln!(
        "JDK model: {} types, {} bytes embedded, {} bytes of heap (estimate), first use {:?}",
        model.len(),
        embedded_size(),
        model.heap_bytes(),
        first
    );
}

#[test]
fn the_jdk_model_holds_the_public_api_of_the_chosen_modules() {
    let m = jdk();
    for (fqn, kind) in [
        ("java.lang.String", TypeKind::Class),
        ("java.util.Map.Entry", TypeKind::Interface),
        ("java.util.Optional", TypeKind::Class),
        ("java.util.stream.Collectors", TypeKind::Class),
        ("java.time.DayOfWeek", TypeKind::Enum),
        ("java.lang.Override", TypeKind::Annotation),
        ("java.lang.Record", TypeKind::Class),
        ("java.sql.Connection", TypeKind::Interface),
        ("java.net.http.HttpClient", TypeKind::Class),
        ("javax.xml.parsers.DocumentBuilder", TypeKind::Class),
        ("org.w3c.dom.Node", TypeKind::Interface),
        ("java.util.logging.Logger", TypeKind::Class),
        ("javax.naming.InitialContext", TypeKind::Class),
        ("java.beans.PropertyChangeListener", TypeKind::Interface),
    ] {
        let t = m.get(fqn).unwrap_or_else(|| panic!("{fqn} is in the model"));
        assert_eq!(t.kind, kind, "{fqn}");
        assert!(t.is_accessible(), "{fqn}");
    }
    // Binary and source names, packages, nesting.
    let entry = m.by_binary("java.util.Map$Entry").expect("by binary name");
    assert_eq!(&*entry.fqn, "java.util.Map.Entry");
    assert_eq!(entry.outer.as_deref(), Some("java.util.Map"));
    assert!(m
        .get("java.util.Map")
        .expect("Map")
        .member_types
        .iter()
        .any(|n| &**n == "java.util.Map$Entry"));
    assert!(m.package_type("java.util", "List").is_some());
    assert!(
        m.package_type("java.util", "Entry").is_none(),
        "member types are not package members"
    );
    assert!(m.packages().any(|p| p == "java.util.concurrent"));
    // Not exported, not chosen, not public: absent.
    for absent in [
        "jdk.internal.misc.Unsafe",
        "sun.nio.ch.FileChannelImpl",
        "java.awt.Image",
        "java.beans.beancontext.BeanContext",
    ] {
        assert!(m.get(absent).is_none(), "{absent}");
    }
    assert!(!m
        .packages()
        .any(|p| p.starts_with("jdk.internal") || p.starts_with("sun.")));
    // A package-private supertype is kept for what it gives, and marked.
    let asb = m
        .get("java.lang.AbstractStringBuilder")
        .expect("kept as a supertype");
    assert!(!asb.is_accessible());
    // Sealed and final.
    assert!(m
        .get("java.lang.String")
        .expect("String")
        .flags
        .contains(Flags::FINAL));
    assert!(m
        .get("java.lang.constant.ConstantDesc")
        .expect("ConstantDesc")
        .flags
        .contains(Flags::SEALED));
}

#[test]
fn jdk_members_carry_generic_signatures_and_modifiers() {
    let m = jdk();
    let list = m.get("java.util.List").expect("List");
    assert_eq!(list.type_params.len(), 1);
    let of_varargs = list
        .methods_named("of")
        .find(|x| x.is_varargs())
        .expect("List.of(E...)");
    assert!(of_varargs.is_static());
    assert_eq!(of_varargs.semgraph_signature(), "of(E[])");
    assert_eq!(of_varargs.type_params.len(), 1);
    let format = m
        .get("java.lang.String")
        .expect("String")
        .methods_named("format")
        .find(|x| x.params.len() == 2)
        .expect("format(String, Object...)");
    assert!(format.is_varargs() && format.is_static());
    // Bridges are dropped: String has compareTo(String) only.
    let compare: Vec<String> = m
        .get("java.lang.String")
        .expect("String")
        .methods_named("compareTo")
        .map(|x| x.semgraph_signature())
        .collect();
    assert_eq!(compare, ["compareTo(String)"]);
    let get_or_default = m
        .get("java.util.Map")
        .expect("Map")
        .methods_named("getOrDefault")
        .next()
        .expect("getOrDefault");
    assert!(get_or_default.is_default() && !get_or_default.is_abstract());
    let ctors: Vec<String> = m
        .get("java.util.ArrayList")
        .expect("ArrayList")
        .methods_named("<init>")
        .map(|x| x.semgraph_signature())
        .collect();
    assert_eq!(ctors.len(), 3, "{ctors:?}");
    assert!(ctors.contains(&"<init>(Collection)".to_string()));
    // Protected members are there; private ones are not.
    let object = m.get("java.lang.Object").expect("Object");
    assert!(object
        .methods_named("clone")
        .next()
        .is_some_and(|x| x.flags.contains(Flags::PROTECTED)));
    assert!(m
        .get("java.util.ArrayList")
        .expect("ArrayList")
        .methods_named("grow")
        .next()
        .is_none());
    // Constants of static final fields, strings above all.
    let cases: [(&str, &str, Constant); 3] = [
        (
            "javax.xml.XMLConstants",
            "XML_NS_URI",
            Constant::String("http://www.w3.org/XML/1998/namespace".into()),
        ),
        (
            "java.util.jar.JarFile",
            "MANIFEST_NAME",
            Constant::String("META-INF/MANIFEST.MF".into()),
        ),
        ("java.lang.Integer", "MAX_VALUE", Constant::Int(i32::MAX)),
    ];
    for (t, f, value) in cases {
        let field = m.get(t).expect(t).field(f).expect(f);
        assert!(field.flags.contains(Flags::STATIC | Flags::FINAL));
        assert_eq!(field.constant.as_ref(), Some(&value), "{t}.{f}");
    }
    assert_eq!(
        m.get("java.lang.System")
            .expect("System")
            .field("out")
            .expect("out")
            .constant,
        None
    );
}

#[test]
fn member_lookups_walk_supertypes_substituting_type_arguments() {
    let m = jdk();
    let array_list = receiver("java.util.ArrayList", &["Ljava/lang/String;"]);
    let get = m.find_methods(&array_list, "get");
    assert_eq!(
        get.len(),
        1,
        "ArrayList.get overrides List.get and AbstractList.get"
    );
    assert_eq!(&*get[0].declaring.binary, "java.util.ArrayList");
    assert_eq!(get[0].ret.to_string(), "java.lang.String");

    // Declared in a supertype: the declaring type and the substituted types.
    let stream = m.find_methods(&array_list, "stream");
    assert_eq!(&*stream[0].declaring.binary, "java.util.Collection");
    assert_eq!(
        stream[0].ret.to_string(),
        "java.util.stream.Stream<java.lang.String>"
    );
    assert_eq!(
        stream[0].declaring_as.to_string(),
        "java.util.Collection<java.lang.String>"
    );

    let map = receiver(
        "java.util.HashMap",
        &["Ljava/lang/String;", "Ljava/lang/Integer;"],
    );
    let entry_set = m.find_methods(&map, "entrySet");
    assert_eq!(
        entry_set[0].ret.to_string(),
        "java.util.Set<java.util.Map.Entry<java.lang.String, java.lang.Integer>>"
    );
    let merge = m.find_methods(&map, "merge");
    assert_eq!(
        merge[0].params.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
        [
            "java.lang.String",
            "java.lang.Integer",
            "java.util.function.BiFunction<? super java.lang.Integer, ? super java.lang.Integer, ? extends java.lang.Integer>"
        ]
    );

    // A wildcard receiver: what is read is the bound.
    let numbers = class(
        "java.util.List",
        vec![TyArg::Extends(Ty::class("java.lang.Number"))],
    );
    assert_eq!(
        m.find_methods(&numbers, "get")[0].ret.to_string(),
        "java.lang.Number"
    );
    // A raw receiver: erased members.
    let raw = class("java.util.ArrayList", Vec::new());
    assert_eq!(m.find_methods(&raw, "get")[0].ret.to_string(), "java.lang.Object");

    // Through a package-private supertype: StringBuilder.length() is AbstractStringBuilder's.
    let sb = class("java.lang.StringBuilder", Vec::new());
    let length = m.find_methods(&sb, "length");
    assert_eq!(&*length[0].declaring.binary, "java.lang.AbstractStringBuilder");
    // Overloads are all there, nearest first; append(String) is StringBuilder's own.
    let append = m.find_methods(&sb, "append");
    assert!(append.len() >= 10, "{}", append.len());
    assert!(append
        .iter()
        .all(|a| &*a.declaring.binary == "java.lang.StringBuilder"));

    // Interfaces have Object's members.
    let runnable = class("java.lang.Runnable", Vec::new());
    assert_eq!(
        &*m.find_methods(&runnable, "toString")[0].declaring.binary,
        "java.lang.Object"
    );
    // A generic interface implemented with an argument: compareTo(String) on String.
    let cmp = m.find_methods(&class("java.lang.String", Vec::new()), "compareTo");
    assert_eq!(
        cmp.len(),
        1,
        "Comparable<String>.compareTo(T) is overridden by compareTo(String)"
    );

    // Supertypes, nearest first, the superclass chain before interfaces, Object last.
    let sups: Vec<String> = m
        .supertypes(&array_list)
        .iter()
        .map(|(c, _)| c.to_string())
        .collect();
    assert_eq!(sups[0], "java.util.ArrayList<java.lang.String>");
    assert_eq!(sups[1], "java.util.AbstractList<java.lang.String>");
    assert_eq!(sups[2], "java.util.AbstractCollection<java.lang.String>");
    assert_eq!(sups[3], "java.lang.Object");
    assert!(sups.contains(&"java.lang.Iterable<java.lang.String>".to_string()));
    assert!(m.is_subtype("java.util.ArrayList", "java.util.Collection"));
    assert!(!m.is_subtype("java.util.Collection", "java.util.ArrayList"));

    // Fields and member types through supertypes.
    let field = m
        .find_field(&class("java.util.concurrent.TimeUnit", Vec::new()), "SECONDS")
        .expect("SECONDS");
    assert_eq!(field.ty.to_string(), "java.util.concurrent.TimeUnit");
    let entry = m
        .member_type("java.util.HashMap", "Entry")
        .expect("HashMap.Entry is Map.Entry");
    assert_eq!(&*entry.fqn, "java.util.Map.Entry");
    // Constructors are the type's own.
    assert_eq!(m.find_methods(&array_list, "<init>").len(), 3);
}

#[test]
fn the_wire_format_round_trips_the_jdk_model() {
    let model = jdk();
    let data = wire::encode(model, "test").expect("encodes");
    let (back, origin) = wire::decode(&data).expect("decodes");
    assert_eq!(origin, "test");
    assert_same_types(back.types(), model.types());
    // A broken or foreign file is an error.
    assert!(wire::decode(b"SGTM\x01\0\0\0garbage").is_err());
    assert!(wire::decode(b"SGTM\x09\0\0\0").is_err());
    assert!(wire::decode(&data[..data.len() / 2]).is_err());
}

/// Equal lists of types, or a panic naming the first that differs.
fn assert_same_types(a: &[super::model::TypeInfo], b: &[super::model::TypeInfo]) {
    for (x, y) in a.iter().zip(b) {
        assert!(
            x == y,
            "{} differs (regenerate with `cargo run -p semgraph-indexer --bin typemodel-jdk`):\n{x:?}\n{y:?}",
            x.binary
        );
    }
    assert_eq!(a.len(), b.len());
}

/// The committed data is what the generator makes of this machine's JDK, when this
/// machine has the JDK it was made from.
#[test]
fn the_committed_jdk_model_is_what_the_generator_makes() {
    let jmods = Path::new("/usr/lib/jvm/java-17-openjdk-amd64/jmods");
    let Ok(origin) = jdk_origin() else {
        panic!("the embedded data does not load")
    };
    let release = std::fs::read_to_string(jmods.join("../release"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("JAVA_VERSION="))
                .map(|v| v.trim_matches('"').to_string())
        });
    let Some(release) = release.filter(|r| origin.contains(&format!("OpenJDK {r} "))) else {
        eprintln!("skipped: this machine's JDK is not the one the data was made from ({origin})");
        return;
    };
    let (model, report) = super::jdk::generate_model(jmods, &release).expect("generates");
    assert!(report.unreadable.is_empty(), "{:?}", report.unreadable);
    assert_same_types(model.types(), jdk().types());
}

// ---------------------------------------------------------------------------------------
// Class files and jars built with javac

fn javac(dir: &Path, files: &[(&str, &str)], extra: &[&str]) -> PathBuf {
    let src = dir.join("src");
    let mut paths = Vec::new();
    for (name, text) in files {
        let p = src.join(name);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(&p, text).expect("write");
        paths.push(p);
    }
    let classes = dir.join("classes");
    let out = Command::new("javac")
        .args(["--release", "17", "-d"])
        .arg(&classes)
        .args(extra)
        .args(&paths)
        .output()
        .expect("javac runs (Java 17 is on every machine)");
    assert!(
        out.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    classes
}

fn jar(classes: &Path, jar: &Path) {
    std::fs::create_dir_all(jar.parent().expect("parent")).expect("mkdir");
    let out = Command::new("jar")
        .arg("cf")
        .arg(jar)
        .arg("-C")
        .arg(classes)
        .arg(".")
        .output()
        .expect("jar runs");
    assert!(
        out.status.success(),
        "jar: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const SHAPES: &str = r#"
package com.acme.shapes;

import java.util.*;
import java.util.function.*;

/** Generic, with a generic inner class, a static nested class and members of every kind. */
public class Box<T extends Comparable<? super T>> extends AbstractList<T> implements RandomAccess, Comparable<Box<T>> {
    public static final String TOPIC = "shapes.created";
    public static final int LIMIT = 42;
    public static final long BIG = 1L << 40;
    public static final double RATIO = 0.5;
    public static final boolean ON = true;
    public static String notConstant = "x";
    protected final List<T> items = new ArrayList<>();
    private int hidden;

    public Box() { this(new ArrayList<>()); }
    public Box(Collection<? extends T> init) { items.addAll(init); }
    protected Box(T first, T... rest) { items.add(first); items.addAll(Arrays.asList(rest)); }
    private Box(int secret) {}

    @Override public T get(int i) { return items.get(i); }
    @Override public int size() { return items.size(); }
    @Override public int compareTo(Box<T> o) { return Integer.compare(size(), o.size()); }
    public <R> Box<R> map(Function<? super T, ? extends R> f) where R extends Comparable<? super R> { return null; }
    public static <K, V extends Number> Map<K, List<V>> group(Map<? extends K, ? super V>[] maps) throws java.io.IOException { return null; }
    protected void hook() {}
    void packagePrivate() {}
    private void secret() {}

    public Runnable task() {
        Runnable anonymous = new Runnable() { public void run() { hook(); } };
        class Local { void go() {} }
        new Local().go();
        return anonymous;
    }

    public class Cursor implements Iterator<T> {
        public Cursor(int start) {}
        public boolean hasNext() { return false; }
        public T next() { return null; }
    }

    public static final class Pair<A, B> {
        public final A left;
        public final B right;
        public Pair(A left, B right) { this.left = left; this.right = right; }
    }

    private static class Hidden {}
}
"#;

const MORE: &str = r#"
package com.acme.shapes;

import java.util.function.Supplier;

public enum Color implements Supplier<String> {
    RED { @Override public String get() { return "r"; } }, GREEN;
    public String get() { return name(); }
}

interface PackagePrivateBase {
    default String describe() { return "base"; }
}
"#;

const RECORD: &str = r#"
package com.acme.shapes;

public record Point(int x, int y) implements Shape {
    public Point { if (x < 0) throw new IllegalArgumentException(); }
    public static Point origin() { return new Point(0, 0); }
}
"#;

const SHAPE: &str = r#"
package com.acme.shapes;

public sealed interface Shape extends PackagePrivateBase permits Point {
    static Shape unit() { return new Point(1, 1); }
    double area();
    default String name() { return getClass().getSimpleName(); }
}
"#;

fn shapes_sources() -> Vec<(&'static str, String)> {
    // `where R extends` is not Java: the bound belongs in the type parameter list.
    let shapes = SHAPES.replace(
        "public <R> Box<R> map(Function<? super T, ? extends R> f) where R extends Comparable<? super R> {",
        "public <R extends Comparable<? super R>> Box<R> map(Function<? super T, ? extends R> f) {",
    );
    let shape = SHAPE.replace("double area();\n", "");
    vec![
        ("com/acme/shapes/Box.java", shapes),
        ("com/acme/shapes/Color.java", MORE.to_string()),
        ("com/acme/shapes/Point.java", RECORD.to_string()),
        ("com/acme/shapes/Shape.java", shape),
    ]
}

fn shapes_model(extra: &[&str]) -> (tempfile::TempDir, TypeModel, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let sources = shapes_sources();
    let files: Vec<(&str, &str)> = sources.iter().map(|(n, t)| (*n, t.as_str())).collect();
    let classes = javac(dir.path(), &files, extra);
    let jar_path = dir.path().join("shapes.jar");
    jar(&classes, &jar_path);
    let mut names = Interner::default();
    let content = read_archive(&jar_path, &mut names).expect("reads the jar");
    assert!(content.unreadable.is_empty(), "{:?}", content.unreadable);
    let model = TypeModel::new(public_api(content.types, None));
    (dir, model, jar_path)
}

#[test]
fn class_files_from_javac_read_back_with_exact_generic_signatures() {
    for extra in [&[][..], &["-parameters"][..]] {
        let (_dir, m, _) = shapes_model(extra);
        let b = m.get("com.acme.shapes.Box").expect("Box");
        assert_eq!(b.kind, TypeKind::Class);
        assert_eq!(
            super::ty::ClassSig {
                type_params: b.type_params.clone(),
                superclass: b.superclass.clone().expect("superclass"),
                interfaces: b.interfaces.clone(),
            }
            .signature(),
            "<T::Ljava/lang/Comparable<-TT;>;>Ljava/util/AbstractList<TT;>;Ljava/util/RandomAccess;Ljava/lang/Comparable<Lcom/acme/shapes/Box<TT;>;>;"
        );
        let sigs: Vec<String> = b
            .methods
            .iter()
            .map(|x| {
                format!(
                    "{} {}",
                    x.name,
                    MethodSig {
                        type_params: x.type_params.clone(),
                        params: x.params.clone(),
                        ret: x.ret.clone(),
                        throws: Vec::new()
                    }
                    .signature()
                )
            })
            .collect();
        for expected in [
            "<init> ()V",
            "<init> (Ljava/util/Collection<+TT;>;)V",
            "<init> (TT;[TT;)V",
            "get (I)TT;",
            "compareTo (Lcom/acme/shapes/Box<TT;>;)I",
            "map <R::Ljava/lang/Comparable<-TR;>;>(Ljava/util/function/Function<-TT;+TR;>;)Lcom/acme/shapes/Box<TR;>;",
            "group <K:Ljava/lang/Object;V:Ljava/lang/Number;>([Ljava/util/Map<+TK;-TV;>;)Ljava/util/Map<TK;Ljava/util/List<TV;>;>;",
            "hook ()V",
        ] {
            assert!(sigs.contains(&expected.to_string()), "{expected} in {sigs:#?}");
        }
        // Private and package-private members, bridges (compareTo(Object), get's none) are not.
        assert!(!sigs
            .iter()
            .any(|s| s.starts_with("secret") || s.starts_with("packagePrivate")));
        assert_eq!(
            b.methods_named("compareTo").count(),
            1,
            "the bridge compareTo(Object) is dropped"
        );
        assert_eq!(
            b.methods_named("<init>").count(),
            3,
            "the private constructor is not API"
        );
        let protected_ctor = b
            .methods_named("<init>")
            .find(|x| x.params.len() == 2)
            .expect("varargs ctor");
        assert!(protected_ctor.is_varargs() && protected_ctor.flags.contains(Flags::PROTECTED));
        assert_eq!(protected_ctor.semgraph_signature(), "<init>(T, T[])");
        // Constants.
        assert_eq!(
            b.field("TOPIC").and_then(|f| f.constant.clone()),
            Some(Constant::String("shapes.created".into()))
        );
        assert_eq!(
            b.field("LIMIT").and_then(|f| f.constant.clone()),
            Some(Constant::Int(42))
        );
        assert_eq!(
            b.field("BIG").and_then(|f| f.constant.clone()),
            Some(Constant::Long(1 << 40))
        );
        assert_eq!(
            b.field("RATIO").and_then(|f| f.constant.clone()),
            Some(Constant::Double(0.5))
        );
        assert_eq!(
            b.field("ON").and_then(|f| f.constant.clone()),
            Some(Constant::Int(1))
        );
        assert_eq!(b.field("notConstant").and_then(|f| f.constant.clone()), None);
        assert_eq!(
            b.field("items").expect("protected field").ty.to_string(),
            "java.util.List<T>"
        );
        assert!(b.field("hidden").is_none());

        // The inner class: its constructor has no outer-instance parameter.
        let cursor = m.get("com.acme.shapes.Box.Cursor").expect("inner class");
        assert_eq!(&*cursor.binary, "com.acme.shapes.Box$Cursor");
        assert!(!cursor.flags.contains(Flags::STATIC));
        assert_eq!(
            cursor
                .methods_named("<init>")
                .map(|x| x.semgraph_signature())
                .collect::<Vec<_>>(),
            ["<init>(int)"]
        );
        let pair = m.get("com.acme.shapes.Box.Pair").expect("nested class");
        assert!(pair.flags.contains(Flags::STATIC | Flags::FINAL));
        assert_eq!(pair.field("left").expect("left").ty, Ty::Var(Name::from("A")));
        assert!(b.member_types.iter().any(|n| &**n == "com.acme.shapes.Box$Pair"));
        // Private nested, local and anonymous classes are no API.
        assert!(m.get("com.acme.shapes.Box.Hidden").is_none());
        assert!(
            m.types().iter().all(|t| !t.binary.contains("$1")),
            "no local or anonymous class"
        );

        // An enum (its constant with a body is anonymous), a record, a sealed interface.
        let color = m.get("com.acme.shapes.Color").expect("enum");
        assert_eq!(color.kind, TypeKind::Enum);
        assert!(color
            .field("RED")
            .is_some_and(|f| f.flags.contains(Flags::STATIC)));
        assert!(color
            .methods_named("values")
            .next()
            .is_some_and(|x| x.is_static()));
        assert_eq!(
            color.interfaces[0].to_string(),
            "java.util.function.Supplier<java.lang.String>"
        );
        let point = m.get("com.acme.shapes.Point").expect("record");
        assert_eq!(point.kind, TypeKind::Record);
        let accessors: Vec<String> = point
            .methods
            .iter()
            .filter(|x| x.params.is_empty() && !x.is_static())
            .map(|x| x.name.to_string())
            .collect();
        assert!(
            accessors.contains(&"x".to_string()) && accessors.contains(&"y".to_string()),
            "{accessors:?}"
        );
        assert_eq!(
            point
                .methods_named("<init>")
                .map(|x| x.semgraph_signature())
                .collect::<Vec<_>>(),
            ["<init>(int, int)"]
        );
        let shape = m.get("com.acme.shapes.Shape").expect("interface");
        assert!(shape.flags.contains(Flags::SEALED));
        assert!(shape.methods_named("name").next().is_some_and(|x| x.is_default()));
        assert!(shape
            .methods_named("unit")
            .next()
            .is_some_and(|x| x.is_static() && !x.is_default()));
        // A package-private interface is kept for what it gives, marked.
        let base = m
            .by_binary("com.acme.shapes.PackagePrivateBase")
            .expect("kept as a supertype");
        assert!(!base.is_accessible());
        assert!(m.package_type("com.acme.shapes", "Box").is_some());

        // Layered over the JDK: inherited members through JDK supertypes, substituted.
        let layered = Layered::new(vec![&m, jdk()]);
        let boxed = receiver("com.acme.shapes.Box", &["Ljava/lang/String;"]);
        let stream = layered.find_methods(&boxed, "stream");
        assert_eq!(&*stream[0].declaring.binary, "java.util.Collection");
        assert_eq!(
            stream[0].ret.to_string(),
            "java.util.stream.Stream<java.lang.String>"
        );
        let get = layered.find_methods(&boxed, "get");
        assert_eq!(get.len(), 1);
        assert_eq!(&*get[0].declaring.binary, "com.acme.shapes.Box");
        assert_eq!(get[0].ret.to_string(), "java.lang.String");
        let describe = layered.find_methods(&class("com.acme.shapes.Point", Vec::new()), "describe");
        assert_eq!(
            &*describe[0].declaring.binary,
            "com.acme.shapes.PackagePrivateBase"
        );
        assert!(layered.is_subtype("com.acme.shapes.Box", "java.lang.Iterable"));
    }
}

#[test]
fn a_broken_class_in_a_jar_is_reported_and_the_rest_kept() {
    let (dir, _, jar_path) = shapes_model(&[]);
    // Rewrite the jar with one truncated class and one non-class file.
    let broken = dir.path().join("broken.jar");
    {
        let src = std::fs::File::open(&jar_path).expect("open");
        let mut zin = zip::ZipArchive::new(src).expect("zip");
        let out = std::fs::File::create(&broken).expect("create");
        let mut zout = zip::ZipWriter::new(out);
        let opts = zip::write::SimpleFileOptions::default();
        for i in 0..zin.len() {
            let mut e = zin.by_index(i).expect("entry");
            let name = e.name().expect("name").to_string();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut e, &mut bytes).expect("read");
            if name.ends_with("Color.class") {
                bytes.truncate(bytes.len() / 2);
            }
            zout.start_file(name, opts).expect("start");
            std::io::Write::write_all(&mut zout, &bytes).expect("write");
        }
        zout.start_file("com/acme/shapes/Garbage.class", opts)
            .expect("start");
        std::io::Write::write_all(&mut zout, b"\xCA\xFE\xBA\xBEnot really").expect("write");
        zout.finish().expect("finish");
    }
    let mut names = Interner::default();
    let content = read_archive(&broken, &mut names).expect("the jar opens");
    let bad: Vec<&str> = content.unreadable.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(bad.len(), 2, "{:?}", content.unreadable);
    assert!(
        bad.iter().any(|n| n.ends_with("Color.class")) && bad.iter().any(|n| n.ends_with("Garbage.class"))
    );
    let model = TypeModel::new(public_api(content.types, None));
    assert!(model.get("com.acme.shapes.Box").is_some() && model.get("com.acme.shapes.Color").is_none());
    // Not a zip at all: an error naming the file.
    let not_zip = dir.path().join("not.jar");
    std::fs::write(&not_zip, b"hello").expect("write");
    let err = read_archive(&not_zip, &mut names).expect_err("not a zip");
    assert!(err.to_string().contains("not.jar"), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any bytes: an error or a type, never a panic.
    #[test]
    fn arbitrary_bytes_never_panic_the_class_reader(bytes in proptest::collection::vec(any::<u8>(), 0..256), cut in 0usize..4000) {
        let mut names = Interner::default();
        let _ = super::classfile::read_class(&bytes, "fuzz", &mut names);
        let real = include_bytes!("testdata/Point.class");
        let cut = cut.min(real.len());
        let _ = super::classfile::read_class(&real[..cut], "fuzz", &mut names);
    }
}

// ---------------------------------------------------------------------------------------
// Dependencies on disk

/// Builds `group:artifact:version` as a jar of one class `<package>.<Class>` (which
/// extends `extends`, if given) into the Maven layout under `m2`, with `pom` as its POM.
fn maven_artifact(m2: &Path, work: &Path, coord: (&str, &str, &str), class: &str, pom: &str) -> PathBuf {
    let (g, a, v) = coord;
    let (pkg, name) = class.rsplit_once('.').expect("qualified");
    let src = format!(
        "package {pkg};\npublic class {name}<T> {{ public java.util.List<T> items() {{ return null; }} }}\n"
    );
    let tmp = work.join(format!("{a}-{v}"));
    let classes = javac(
        &tmp,
        &[(&format!("{}/{name}.java", pkg.replace('.', "/")), &src)],
        &[],
    );
    let dir = m2.join(g.replace('.', "/")).join(a).join(v);
    let jar_path = dir.join(format!("{a}-{v}.jar"));
    jar(&classes, &jar_path);
    std::fs::write(dir.join(format!("{a}-{v}.pom")), pom).expect("pom");
    jar_path
}

fn pom(g: &str, a: &str, v: &str, parent: Option<(&str, &str, &str)>, body: &str) -> String {
    let parent = parent
        .map(|(pg, pa, pv)| format!("<parent><groupId>{pg}</groupId><artifactId>{pa}</artifactId><version>{pv}</version></parent>"))
        .unwrap_or_default();
    format!(
        "<?xml version=\"1.0\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">{parent}<groupId>{g}</groupId><artifactId>{a}</artifactId><version>{v}</version>{body}</project>"
    )
}

fn dep(g: &str, a: &str, v: Option<&str>, extra: &str) -> String {
    let v = v.map(|v| format!("<version>{v}</version>")).unwrap_or_default();
    format!("<dependency><groupId>{g}</groupId><artifactId>{a}</artifactId>{v}{extra}</dependency>")
}

#[test]
fn dependencies_are_found_in_maven_and_gradle_layouts_and_followed_through_poms() {
    let dir = tempfile::tempdir().expect("tempdir");
    let m2 = dir.path().join("m2");
    let gradle = dir.path().join("gradle/files-2.1");
    let work = dir.path().join("work");

    // A parent POM manages lib-b's version through a property.
    let parent_dir = m2.join("com/acme/acme-parent/7");
    std::fs::create_dir_all(&parent_dir).expect("mkdir");
    std::fs::write(
        parent_dir.join("acme-parent-7.pom"),
        pom(
            "com.acme",
            "acme-parent",
            "7",
            None,
            &format!(
                "<packaging>pom</packaging><properties><b.version>1.10</b.version></properties><dependencyManagement><dependencies>{}</dependencies></dependencyManagement>",
                dep("com.acme", "lib-b", Some("${b.version}"), "")
            ),
        ),
    )
    .expect("parent pom");
    // lib-a: declares lib-b (managed version), a test, a provided and an optional
    // dependency (all skipped), one absent from disk, and lib-g from the Gradle cache.
    let deps = [
        dep("com.acme", "lib-b", None, ""),
        dep("com.acme", "lib-test", Some("1"), "<scope>test</scope>"),
        dep("com.acme", "lib-provided", Some("1"), "<scope>provided</scope>"),
        dep("com.acme", "lib-optional", Some("1"), "<optional>true</optional>"),
        dep("com.acme", "lib-missing", Some("3.0"), ""),
        dep("org.gradle.things", "lib-g", Some("2.0"), ""),
    ]
    .join("");
    maven_artifact(
        &m2,
        &work,
        ("com.acme", "lib-a", "1.0"),
        "com.acme.a.Alpha",
        &pom(
            "com.acme",
            "lib-a",
            "1.0",
            Some(("com.acme", "acme-parent", "7")),
            &format!("<dependencies>{deps}</dependencies>"),
        ),
    );
    // lib-b in two versions: 1.10 is managed (and is also the highest: 1.10 > 1.9).
    for v in ["1.9", "1.10"] {
        maven_artifact(
            &m2,
            &work,
            ("com.acme", "lib-b", v),
            &format!("com.acme.b{}.Beta", v.replace('.', "_")),
            &pom("com.acme", "lib-b", v, None, ""),
        );
    }
    for a in ["lib-test", "lib-provided", "lib-optional"] {
        maven_artifact(
            &m2,
            &work,
            ("com.acme", a, "1"),
            &format!("com.acme.{}.Skipped", a.replace('-', "_")),
            &pom("com.acme", a, "1", None, ""),
        );
    }
    // lib-g in Gradle's cache: files-2.1/<group>/<artifact>/<version>/<hash>/.
    {
        let src = "package org.things;\npublic interface Gadget { String id(); }\n";
        let classes = javac(&work.join("g"), &[("org/things/Gadget.java", src)], &[]);
        let base = gradle.join("org.gradle.things/lib-g/2.0");
        jar(&classes, &base.join("0a1b2c/lib-g-2.0.jar"));
        std::fs::create_dir_all(base.join("3d4e5f")).expect("mkdir");
        std::fs::write(
            base.join("3d4e5f/lib-g-2.0.pom"),
            pom("org.gradle.things", "lib-g", "2.0", None, ""),
        )
        .expect("pom");
    }
    // A jar that is not one.
    let bad_dir = m2.join("com/acme/lib-bad/1");
    std::fs::create_dir_all(&bad_dir).expect("mkdir");
    std::fs::write(bad_dir.join("lib-bad-1.jar"), b"not a zip").expect("write");

    let repos = Repositories {
        maven: Some(m2.clone()),
        gradle: Some(gradle.clone()),
    };
    let declared: Vec<Coordinate> = [
        "com.acme:lib-a:1.0",
        "com.acme:lib-bad:${bad.version}",
        "com.acme:nowhere:1",
    ]
    .iter()
    .map(|c| Coordinate::parse(c).expect("coordinate"))
    .collect();
    assert_eq!(declared[1].version, None, "an unresolved property is no version");
    let cp = load_dependencies(&declared, &repos, &ResolveOptions::default());
    let by_name = |prefix: &str| {
        cp.reports
            .iter()
            .find(|r| r.coordinate == prefix || r.coordinate.starts_with(&format!("{prefix}:")))
            .unwrap_or_else(|| panic!("{prefix} in {:#?}", cp.reports))
    };
    assert!(matches!(
        by_name("com.acme:lib-a").outcome,
        Outcome::Typed { types: 1, .. }
    ));
    let b = by_name("com.acme:lib-b");
    assert_eq!(b.version.as_deref(), Some("1.10"));
    assert_eq!(b.via.as_deref(), Some("com.acme:lib-a:1.0"));
    assert!(b.is_typed());
    let g = by_name("org.gradle.things:lib-g");
    assert!(
        matches!(&g.outcome, Outcome::Typed { jar, .. } if jar.starts_with(&gradle)),
        "{g:?}"
    );
    assert!(matches!(
        by_name("com.acme:lib-missing").outcome,
        Outcome::NotOnDisk { .. }
    ));
    assert!(matches!(
        by_name("com.acme:nowhere").outcome,
        Outcome::NotOnDisk { .. }
    ));
    let bad = by_name("com.acme:lib-bad");
    assert!(
        matches!(&bad.outcome, Outcome::Unreadable { error, .. } if error.contains("zip")),
        "{bad:?}"
    );
    assert!(
        bad.notes.iter().any(|n| n.contains("no version given")),
        "{:?}",
        bad.notes
    );
    for skipped in ["lib-test", "lib-provided", "lib-optional"] {
        assert!(
            !cp.reports.iter().any(|r| r.coordinate.contains(skipped)),
            "{skipped} is not followed"
        );
    }
    // The model holds the typed jars' types, generic signatures read back.
    let alpha = cp.model.get("com.acme.a.Alpha").expect("Alpha");
    assert_eq!(
        alpha
            .methods_named("items")
            .next()
            .expect("items")
            .ret
            .to_string(),
        "java.util.List<T>"
    );
    assert!(cp.model.get("com.acme.b1_10.Beta").is_some());
    assert!(
        cp.model.get("com.acme.b1_9.Beta").is_none(),
        "one version of an artifact"
    );
    assert!(cp.model.get("org.things.Gadget").is_some());

    // Depth 0: the declared artifacts only.
    let shallow = load_dependencies(
        &declared[..1],
        &repos,
        &ResolveOptions {
            max_depth: 0,
            ..ResolveOptions::default()
        },
    );
    assert_eq!(shallow.reports.len(), 1);
    // No repositories at all: nothing typed, everything said.
    let none = load_dependencies(&declared, &Repositories::default(), &ResolveOptions::default());
    assert!(none.model.is_empty() && none.reports.iter().all(|r| !r.is_typed()));

    // Explicit classpath entries: a jar, a class folder, a path that is not there.
    let folder = javac(
        &work.join("folder"),
        &[("p/Q.java", "package p; public class Q {}")],
        &[],
    );
    let cp = load_classpath(&[
        m2.join("com/acme/lib-a/1.0/lib-a-1.0.jar"),
        folder,
        dir.path().join("absent.jar"),
    ]);
    assert!(cp.model.get("com.acme.a.Alpha").is_some() && cp.model.get("p.Q").is_some());
    assert_eq!(cp.reports.iter().filter(|r| r.is_typed()).count(), 2);
    assert!(matches!(cp.reports[2].outcome, Outcome::NotOnDisk { .. }));
}

#[test]
fn maven_versions_order_as_maven_orders_them() {
    let ordered = [
        "1.0-alpha1",
        "1.0-beta2",
        "1.0-rc1",
        "1.0-SNAPSHOT",
        "1.0",
        "1.0-sp1",
        "1.0.1",
        "1.2",
        "1.10",
        "2.0.0-M1",
        "2.0",
    ];
    for w in ordered.windows(2) {
        assert_eq!(
            compare_versions(w[0], w[1]),
            std::cmp::Ordering::Less,
            "{} < {}",
            w[0],
            w[1]
        );
    }
    assert_eq!(compare_versions("1.0", "1.0.0"), std::cmp::Ordering::Equal);
    assert_eq!(compare_versions("1.0.Final", "1.0"), std::cmp::Ordering::Equal);
    assert_eq!(Coordinate::parse("g:a").map(|c| c.version), Some(None));
    assert_eq!(Coordinate::parse(":a"), None);
}

/// The embedded library models load and hold each bundled library at its version, with
/// the members a test calls.
#[test]
fn the_bundled_library_models_load_with_their_versions() {
    use super::libraries::{bundled, bundled_version, libraries, LIBRARIES};
    let listed: Vec<String> = bundled()
        .iter()
        .map(|b| format!("{}:{}", b.group, b.artifact))
        .collect();
    let expected: Vec<String> = LIBRARIES
        .iter()
        .map(|l| format!("{}:{}", l.group, l.artifact))
        .chain(
            crate::framework_models::FRAMEWORK_ARTIFACTS
                .iter()
                .filter(|a| !a.packages.is_empty())
                .map(|a| format!("{}:{}", a.group, a.artifact)),
        )
        .collect();
    assert_eq!(listed, expected);
    assert!(bundled()
        .iter()
        .all(|b| b.version.starts_with(|c: char| c.is_ascii_digit())));
    assert!(bundled_version("org.assertj", "assertj-core").is_some());
    assert!(bundled_version("org.springframework", "spring-core").is_some());
    assert!(bundled_version("org.springframework", "spring-aop").is_none());
    let m = libraries();
    let assertions = ClassTy {
        name: "org.assertj.core.api.Assertions".into(),
        args: Vec::new().into(),
        outer: None,
    };
    assert!(m.find_methods(&assertions, "assertThat").len() > 20);
    assert!(m.get("org.mockito.Mockito").is_some());
    assert!(m.get("org.junit.jupiter.api.Assertions").is_some());
    assert!(m.get("org.hamcrest.Matchers").is_some());
    // Nothing of the JDK is repeated in it.
    assert!(m.get("java.lang.String").is_none());
    assert!(super::libraries::embedded_size() > 100_000);
}

/// The committed library data is what the generator makes of this machine's jars, when
/// this machine has the very versions it was made from (Debian's packages of them).
#[test]
fn the_committed_library_models_are_what_the_generator_makes() {
    use super::libraries::{bundled, generate_model, LIBRARIES};
    let dir = Path::new("/usr/share/java");
    let Ok((model, versions)) = generate_model(dir) else {
        eprintln!(
            "skipped: this machine lacks the bundled libraries' jars in {}",
            dir.display()
        );
        return;
    };
    if versions != bundled()[..LIBRARIES.len()] {
        eprintln!("skipped: this machine's jars are other versions ({versions:?})");
        return;
    }
    assert_same_types(model.types(), super::libraries::jar_libraries().types());
}
