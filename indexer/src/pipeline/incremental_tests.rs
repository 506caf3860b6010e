//! Incremental re-index equals a full one: random sequences of edits, additions,
//! deletions, renames and moves over a small company (two products, Maven modules, Java,
//! SQL migrations, Spring config, a wiki page), re-indexed incrementally in one store after
//! every step, give exactly the graph a full index of the same tree gives in a fresh store
//! — nodes with every attribute and content, edges with their attributes, the per-kind,
//! per-flag and term sets, and the cross-product links — compared through the storage API.

use std::collections::BTreeMap;
use std::path::Path;

use proptest::prelude::*;
use semgraph_storage::{ContentKind, Direction, NodeFlags, NodeId, NodeKind, Snapshot, Store};

use super::*;

/// One Java file of the generated company.
#[derive(Clone, Debug)]
struct JavaFile {
    /// 0 and 1: the two modules of `shop`; 2: the `web` product's client module.
    module: usize,
    /// Class name suffix (renames change it).
    name: u8,
    /// Which body the file has (edits change it).
    variant: u8,
    /// A controller (an endpoint) rather than a service.
    controller: bool,
    /// The class another one calls (a name that may no longer exist).
    other: u8,
    /// A sub-folder the file was moved into, its package unchanged.
    moved: bool,
}

/// The generated tree: Java files, each module's config and migration variants.
#[derive(Clone, Debug)]
struct Tree {
    java: Vec<JavaFile>,
    config: [u8; 3],
    schema: [u8; 2],
}

const MODULES: [&str; 3] = ["orders", "billing", "client"];

fn class_name(f: &JavaFile) -> String {
    if f.controller {
        format!("Api{}", f.name)
    } else {
        format!("Svc{}", f.name)
    }
}

fn java_rel(f: &JavaFile) -> (usize, String) {
    let module = MODULES[f.module];
    let dir = if f.moved { "moved/" } else { "" };
    let repo = usize::from(f.module == 2);
    let prefix = if repo == 0 {
        format!("{module}/")
    } else {
        String::new()
    };
    (
        repo,
        format!(
            "{prefix}src/main/java/com/acme/{module}/{dir}{}.java",
            class_name(f)
        ),
    )
}

fn java_text(f: &JavaFile) -> String {
    let module = MODULES[f.module];
    let name = class_name(f);
    let other = format!("Svc{}", f.other);
    let v = f.variant;
    if f.module == 2 {
        return format!(
            "package com.acme.{module};\n\nimport org.springframework.stereotype.Service;\nimport org.springframework.web.client.RestTemplate;\n\n\
             @Service\npublic class {name} {{\n    private final RestTemplate rest = new RestTemplate();\n\n    \
             public String fetch{v}() {{\n        return rest.getForObject(\"http://orders-svc/api/items/{}\", String.class);\n    }}\n\n    \
             public String again() {{\n        return fetch{v}();\n    }}\n}}\n",
            v % 3
        );
    }
    if f.controller {
        return format!(
            "package com.acme.{module};\n\nimport org.springframework.web.bind.annotation.GetMapping;\nimport org.springframework.web.bind.annotation.RestController;\n\n\
             @RestController\npublic class {name} {{\n    private final {other} svc;\n\n    public {name}({other} svc) {{\n        this.svc = svc;\n    }}\n\n    \
             @GetMapping(\"/api/items/{}\")\n    public int items() {{\n        svc.work();\n        return svc.count{}();\n    }}\n}}\n",
            v % 3,
            v % 2
        );
    }
    let table = format!("t_{module}_{}", v % 2);
    format!(
        "package com.acme.{module};\n\nimport org.springframework.beans.factory.annotation.Value;\nimport org.springframework.jdbc.core.JdbcTemplate;\nimport org.springframework.stereotype.Service;\n\n\
         @Service\npublic class {name} {{\n    private final JdbcTemplate jdbc;\n    private final {other} other;\n\n    @Value(\"${{acme.limit{}}}\")\n    private int limit;\n\n    \
         public {name}(JdbcTemplate jdbc, {other} other) {{\n        this.jdbc = jdbc;\n        this.other = other;\n    }}\n\n    \
         public int count{}() {{\n        other.work();\n        return jdbc.queryForObject(\"SELECT count(*) FROM {table}\", Integer.class);\n    }}\n\n    \
         public void work() {{\n        Unknown.call();\n        jdbc.update(\"UPDATE {table} SET name = ? WHERE id = ?\", \"x\", limit);\n    }}\n}}\n",
        v % 2,
        v % 2
    )
}

fn write_tree(root: &Path, tree: &Tree) {
    if root.exists() {
        std::fs::remove_dir_all(root).expect("clear the tree");
    }
    let shop = root.join("shop");
    let web = root.join("web");
    let mut files: Vec<(std::path::PathBuf, String)> = Vec::new();
    files.push((
        shop.join("pom.xml"),
        "<project><artifactId>shop</artifactId><packaging>pom</packaging>\
         <modules><module>orders</module><module>billing</module></modules></project>\n"
            .into(),
    ));
    for (i, module) in MODULES.iter().enumerate() {
        let base = if i == 2 { web.clone() } else { shop.join(module) };
        files.push((
            base.join("pom.xml"),
            format!("<project><artifactId>{module}</artifactId><packaging>jar</packaging></project>\n"),
        ));
        let c = tree.config[i];
        files.push((
            base.join("src/main/resources/application.yml"),
            format!(
                "spring:\n  application:\n    name: {module}-svc\nacme:\n  limit0: {c}\n{}",
                if c % 2 == 1 { "  limit1: 7\n" } else { "" }
            ),
        ));
        if i < 2 {
            let s = tree.schema[i];
            let extra = if s % 2 == 1 { ",\n  note varchar(40)" } else { "" };
            files.push((
                base.join("src/main/resources/db/migration/V1__init.sql"),
                format!(
                    "CREATE TABLE t_{module}_0 (\n  id bigint primary key,\n  name varchar(20){extra}\n);\n\
                     CREATE TABLE t_{module}_1 (\n  id bigint primary key\n);\n"
                ),
            ));
        }
    }
    for f in &tree.java {
        let (repo, rel) = java_rel(f);
        let base = if repo == 0 { &shop } else { &web };
        files.push((base.join(rel), java_text(f)));
    }
    files.push((
        root.join("wiki/Orders.md"),
        "# Orders\n\nThe orders service counts items; see Svc1 and Api2.\n".into(),
    ));
    for (path, text) in files {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, text).expect("write");
    }
}

fn company(root: &Path, store: &Path) -> Company {
    Company {
        store: store.to_path_buf(),
        products: vec![
            ProductSource {
                name: "shop".into(),
                area: "commerce".into(),
                repos: vec![root.join("shop")],
                wiki: vec![root.join("wiki")],
                jira: Vec::new(),
            },
            ProductSource {
                name: "web".into(),
                area: "commerce".into(),
                repos: vec![root.join("web")],
                wiki: Vec::new(),
                jira: Vec::new(),
            },
        ],
        config_file: None,
        server: None,
        dependencies: crate::Dependencies::sources_only(),
    }
}

fn index_all(store: &Store, company: &Company, mode: IndexMode) -> Vec<ProductReport> {
    company
        .products
        .iter()
        .map(|p| index_product_with(store, company, p, &NoProgress, mode).expect("indexes"))
        .collect()
}

/// A node as text, without its id: product, kind, names, place, flags, attributes and
/// every content it has.
fn node_label(snap: &Snapshot, id: NodeId) -> String {
    let node = snap.node(id).expect("read").expect("live node");
    let product = snap.product_of(id).map(|p| p.name).unwrap_or_default();
    let mut label = format!(
        "{product}|{}|{}|{:?}|{:?}|{:?}|{}|{:?}",
        node.kind.as_str(),
        node.name,
        node.fqn,
        node.file,
        node.span.map(|s| (s.start_line, s.end_line)),
        node.flags.0,
        node.attrs
    );
    for &kind in ContentKind::ALL {
        if let Some(text) = snap.content(id, kind).expect("content") {
            label.push_str(&format!("|{}={text:?}", kind.as_str()));
        }
    }
    label
}

/// The whole served graph as multisets of text, ids left out (the two stores allocate
/// them differently).
fn graph(store: &Store) -> BTreeMap<&'static str, BTreeMap<String, usize>> {
    let snap = store.snapshot();
    let mut out: BTreeMap<&'static str, BTreeMap<String, usize>> = BTreeMap::new();
    let ids: Vec<NodeId> = snap.live().iter().map(NodeId).collect();
    let labels: BTreeMap<u32, String> = ids.iter().map(|&id| (id.0, node_label(&snap, id))).collect();
    for label in labels.values() {
        *out.entry("nodes").or_default().entry(label.clone()).or_default() += 1;
    }
    for &id in &ids {
        let edges: Vec<_> = snap.adjacency().edges(id, Direction::Out).collect();
        let keys: Vec<_> = edges.iter().map(|&(kind, dst)| (id, kind, dst)).collect();
        let attrs = snap.edge_attrs(&keys).expect("edge attributes");
        for ((kind, dst), attrs) in edges.into_iter().zip(attrs) {
            let text = format!(
                "{} -{}-> {} {:?}",
                labels[&id.0],
                kind.as_str(),
                labels.get(&dst.0).cloned().unwrap_or_else(|| "(not live)".into()),
                attrs.map(|a| (a.lines, a.via))
            );
            *out.entry("edges").or_default().entry(text).or_default() += 1;
        }
    }
    for product in ["shop", "web"] {
        for &kind in NodeKind::ALL {
            for id in snap.product_nodes_of_kind(product, kind).iter() {
                let text = format!("{product} @kind:{} {}", kind.as_str(), labels[&id]);
                *out.entry("kind sets").or_default().entry(text).or_default() += 1;
            }
        }
        for word in ["orders", "service", "counts", "items", "svc1"] {
            for id in snap
                .named_set(product, &format!("term:{word}"))
                .expect("set")
                .iter()
            {
                let text = format!("{product} term:{word} {}", labels[&id]);
                *out.entry("term sets").or_default().entry(text).or_default() += 1;
            }
        }
    }
    for &(flag, name) in NodeFlags::ALL {
        for id in snap.nodes_with_flag(flag).iter() {
            let text = format!("@flag:{name} {}", labels[&id]);
            *out.entry("flag sets").or_default().entry(text).or_default() += 1;
        }
    }
    // What the last run of each product recorded: counts, stats and warnings (timings
    // are the only thing two runs may differ in).
    for product in snap.products() {
        let runs = snap.runs(product.id).expect("runs");
        if let Some(run) = runs.iter().rfind(|r| r.id == product.run) {
            let mut warnings: Vec<String> = run.warnings.iter().map(|w| format!("{w:?}")).collect();
            warnings.sort();
            let text = format!(
                "{} counts {:?} edges {} stats {:?} warnings {warnings:#?}",
                product.name, run.counts, run.edges, run.stats
            );
            *out.entry("runs").or_default().entry(text).or_default() += 1;
        }
    }
    for u in snap.unlinked() {
        let text = format!(
            "{} -{}-> {} ({} candidates)",
            labels.get(&u.from).cloned().unwrap_or_default(),
            u.kind.as_str(),
            u.key,
            u.candidates
        );
        *out.entry("unlinked").or_default().entry(text).or_default() += 1;
    }
    out
}

/// One change to the tree.
#[derive(Clone, Debug)]
enum Step {
    Edit(usize, u8),
    Add(usize, u8, bool, u8),
    Delete(usize),
    Rename(usize, u8),
    Move(usize),
    Config(usize, u8),
    Schema(usize, u8),
    /// Nothing changed: a re-index of the same tree.
    Again,
}

fn apply(tree: &mut Tree, step: &Step) {
    let n = tree.java.len();
    match *step {
        Step::Edit(i, v) if n > 0 => tree.java[i % n].variant = v,
        Step::Add(module, name, controller, other) => tree.java.push(JavaFile {
            module: module % 3,
            name,
            variant: 0,
            controller: controller && module % 3 != 2,
            other,
            moved: false,
        }),
        Step::Delete(i) if n > 0 => {
            tree.java.remove(i % n);
        }
        Step::Rename(i, name) if n > 0 => tree.java[i % n].name = name,
        Step::Move(i) if n > 0 => tree.java[i % n].moved = !tree.java[i % n].moved,
        Step::Config(m, c) => tree.config[m % 3] = c,
        Step::Schema(m, s) => tree.schema[m % 2] = s,
        _ => {}
    }
    // Two files at one path cannot exist: the later one wins, as on a disk.
    let mut seen = std::collections::HashSet::new();
    let mut kept: Vec<JavaFile> = tree
        .java
        .iter()
        .rev()
        .filter(|f| seen.insert(java_rel(f)))
        .cloned()
        .collect();
    kept.reverse();
    tree.java = kept;
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => (0..16usize, 0..4u8).prop_map(|(i, v)| Step::Edit(i, v)),
        2 => (0..3usize, 0..6u8, any::<bool>(), 0..6u8).prop_map(|(m, n, c, o)| Step::Add(m, n, c, o)),
        2 => (0..16usize).prop_map(Step::Delete),
        1 => (0..16usize, 0..6u8).prop_map(|(i, n)| Step::Rename(i, n)),
        1 => (0..16usize).prop_map(Step::Move),
        1 => (0..3usize, 0..4u8).prop_map(|(m, c)| Step::Config(m, c)),
        1 => (0..2usize, 0..4u8).prop_map(|(m, s)| Step::Schema(m, s)),
        1 => Just(Step::Again),
    ]
}

fn start_tree() -> Tree {
    let f = |module, name, controller, other| JavaFile {
        module,
        name,
        variant: 0,
        controller,
        other,
        moved: false,
    };
    Tree {
        java: vec![
            f(0, 1, false, 2),
            f(0, 2, false, 1),
            f(0, 2, true, 1),
            f(1, 3, false, 1),
            f(1, 4, true, 3),
            f(2, 5, false, 0),
        ],
        config: [0, 0, 0],
        schema: [0, 0],
    }
}

fn check_sequence(steps: &[Step]) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("src");
    let incremental = dir.path().join("incremental");
    let store = Store::open(&incremental).expect("store");
    let mut tree = start_tree();
    write_tree(&root, &tree);
    index_all(&store, &company(&root, &incremental), IndexMode::Incremental);
    for (n, s) in steps.iter().enumerate() {
        apply(&mut tree, s);
        write_tree(&root, &tree);
        let reports = index_all(&store, &company(&root, &incremental), IndexMode::Incremental);
        let full_dir = dir.path().join(format!("full-{n}"));
        let full = Store::open(&full_dir).expect("store");
        let full_reports = index_all(&full, &company(&root, &full_dir), IndexMode::Full);
        let java_files = tree.java.len() as u64;
        let parsed: u64 = reports.iter().map(|r| r.code_parsed).sum();
        let reused: u64 = reports.iter().map(|r| r.code_reused).sum();
        prop_assert_eq!(parsed + reused, java_files, "every code file is parsed or reused");
        prop_assert_eq!(full_reports.iter().map(|r| r.code_reused).sum::<u64>(), 0);
        prop_assert_eq!(full_reports.iter().map(|r| r.calls_reused).sum::<u64>(), 0);
        prop_assert_eq!(full_reports.iter().map(|r| r.findings_reused).sum::<u64>(), 0);
        if matches!(s, Step::Again) {
            prop_assert_eq!(parsed, 0, "an unchanged tree parses nothing");
            let calls_reused: u64 = reports.iter().map(|r| r.calls_reused).sum();
            prop_assert_eq!(calls_reused, java_files, "an unchanged tree resolves nothing");
            let findings_reused: u64 = reports.iter().map(|r| r.findings_reused).sum();
            prop_assert_eq!(
                findings_reused,
                java_files,
                "an unchanged tree recognises nothing"
            );
        }
        let (got, want) = (graph(&store), graph(&full));
        for (part, want_part) in &want {
            let got_part = got.get(part).cloned().unwrap_or_default();
            let missing: Vec<_> = want_part
                .iter()
                .filter(|(k, v)| got_part.get(*k) != Some(v))
                .collect();
            let extra: Vec<_> = got_part
                .iter()
                .filter(|(k, v)| want_part.get(*k) != Some(v))
                .collect();
            prop_assert!(
                missing.is_empty() && extra.is_empty(),
                "after step {n} ({s:?}) the incremental {part} differ from a full run's:\nmissing {missing:#?}\nextra {extra:#?}"
            );
        }
        prop_assert_eq!(got.keys().collect::<Vec<_>>(), want.keys().collect::<Vec<_>>());
        drop(full);
        std::fs::remove_dir_all(&full_dir).expect("remove the full store");
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn incremental_re_index_gives_the_graph_a_full_index_gives(steps in prop::collection::vec(step(), 1..6)) {
        check_sequence(&steps)?;
    }
}

#[test]
fn each_kind_of_change_alone_re_indexes_to_the_full_graph() {
    // Every file of the start tree moved (same bytes, another path), renamed, edited and
    // deleted on its own, and the config and schema edits: the cases a cache keyed on the
    // wrong thing would get wrong.
    for i in 0..start_tree().java.len() {
        for step in [
            Step::Move(i),
            Step::Rename(i, 9),
            Step::Edit(i, 1),
            Step::Delete(i),
        ] {
            check_sequence(std::slice::from_ref(&step)).unwrap_or_else(|e| panic!("{step:?}: {e}"));
        }
    }
    check_sequence(&[Step::Config(0, 1), Step::Schema(1, 1), Step::Again]).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_generated_company_has_what_the_comparison_needs() {
    // The comparison is only as strong as the graph: the tree must give endpoints, calls
    // across files, SQL table edges, config keys, term sets and a cross-product link.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("src");
    write_tree(&root, &start_tree());
    let store = Store::open(dir.path().join("store")).expect("store");
    index_all(
        &store,
        &company(&root, &dir.path().join("store")),
        IndexMode::Full,
    );
    let g = graph(&store);
    let has = |part: &str, needle: &str| g.get(part).is_some_and(|m| m.keys().any(|k| k.contains(needle)));
    assert!(has("nodes", "|endpoint|"), "endpoints: {:#?}", g.get("nodes"));
    assert!(has("nodes", "|config-key|"), "config keys");
    assert!(has("edges", "-calls->"), "calls");
    assert!(has("term sets", "term:orders"), "term sets");
    let cross = g
        .get("edges")
        .is_some_and(|m| m.keys().any(|k| k.starts_with("web|") && k.contains("-> shop|")));
    assert!(
        cross,
        "a link from web to shop: {:#?}",
        g.get("edges")
            .map(|m| m.keys().filter(|k| k.starts_with("web|")).collect::<Vec<_>>())
    );
    assert_eq!(
        store.cached_facts_count().expect("count"),
        24 + 2,
        "four cache entries per Java file (its facts, its skeleton, its resolved calls and \
         its findings) and the calls index of each of the two repositories"
    );
}

/// What a file's calls resolve against is every declaration of its product, not where it
/// sits: an edit of a config or schema file changes none, and every file's resolved calls
/// are read back (its findings are not: a recogniser reads config and SQL); an edit inside
/// a method body moves the declarations after it but changes none, and only the edited
/// file resolves and is recognised again; an edit of a signature changes its product's,
/// and every file of that product resolves again — the other product's calls and
/// findings are still reused. The graph is a full run's each time.
#[test]
fn calls_are_reused_while_no_declaration_of_the_product_changes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("src");
    let mut tree = start_tree();
    write_tree(&root, &tree);
    let store_dir = dir.path().join("store");
    let store = Store::open(&store_dir).expect("store");
    index_all(&store, &company(&root, &store_dir), IndexMode::Incremental);
    let reindex = |tree: &Tree, edit: &dyn Fn()| {
        write_tree(&root, tree);
        edit();
        let reports = index_all(&store, &company(&root, &store_dir), IndexMode::Incremental);
        let full_dir = dir.path().join("full");
        let full = Store::open(&full_dir).expect("store");
        index_all(&full, &company(&root, &full_dir), IndexMode::Full);
        assert_eq!(
            graph(&store),
            graph(&full),
            "the incremental graph is a full run's"
        );
        drop(full);
        std::fs::remove_dir_all(&full_dir).expect("remove the full store");
        (
            reports.iter().map(|r| r.calls_reused).sum::<u64>(),
            reports.iter().map(|r| r.findings_reused).sum::<u64>(),
        )
    };
    let files = tree.java.len() as u64;
    let web = tree.java.iter().filter(|f| f.module == 2).count() as u64;
    tree.config[0] = 1;
    tree.schema[1] = 1;
    assert_eq!(
        reindex(&tree, &|| ()),
        (files, web),
        "no Java file changed: every file's calls are reused; shop's config and SQL changed, \
         so shop's files are recognised again, web's not"
    );
    let shop = tree
        .java
        .iter()
        .position(|f| f.module == 0 && !f.controller)
        .expect("a shop service");
    let (repo, rel) = java_rel(&tree.java[shop]);
    let path = root.join(["shop", "web"][repo]).join(rel);
    let body_edit = || {
        let text = std::fs::read_to_string(&path).expect("read");
        let edited = text.replacen("other.work();", "other.work();\n        other.work();", 1);
        assert_ne!(edited, text, "the fixture has the call to repeat");
        std::fs::write(&path, edited).expect("write");
    };
    assert_eq!(
        reindex(&tree, &body_edit),
        (files - 1, files - 1),
        "a body edit moves the declarations after it and changes none: only that file \
         resolves and is recognised"
    );
    tree.java[shop].variant = 1;
    assert_eq!(
        reindex(&tree, &|| ()),
        (web, web),
        "a signature of shop changed: every file of shop resolves again, web's not"
    );
}

/// Java files by path, as [`mentions_tree`] gives them.
type Files = Vec<(&'static str, String)>;

/// The Java files of a repository in which every file reaches another's declarations a
/// different way: by a name it writes, through a chain of returns, through a lambda typed
/// by a functional interface it never names, and through an on-demand import a new type
/// of its own package shadows.
fn mentions_tree() -> Files {
    let p = |rest: &str| format!("package p;\n{rest}\n");
    vec![
        ("p/Orders.java", p("public class Orders {\n  public Order find(long id) { return new Order(); }\n}")),
        ("p/Order.java", p("public class Order {\n  public String name() { return \"\"; }\n  public void pay() {}\n}")),
        ("p/Shop.java", p("public class Shop {\n  public Orders orders() { return new Orders(); }\n  public void each(Visitor v) {}\n}")),
        ("p/Visitor.java", p("public interface Visitor {\n  void visit(Order o);\n}")),
        ("p/UsesFind.java", p("class UsesFind {\n  void useFind(Orders o) { o.find(1L).pay(); }\n}")),
        ("p/UsesChain.java", p("class UsesChain {\n  void useChain(Shop s) { s.orders().find(2L).name(); }\n}")),
        ("p/UsesLambda.java", p("class UsesLambda {\n  void useLambda(Shop s) { s.each(o -> o.pay()); }\n}")),
        ("p/Helper.java", p("class Helper {\n  void help() {}\n}")),
        ("p/Unrelated.java", p("class Unrelated {\n  void unrelated(Helper h) { h.help(); }\n}")),
        ("q/Shadow.java", "package q;\nimport r.*;\nclass Shadow {\n  void shadow() { Tool.make(); }\n}\n".to_string()),
        ("r/Tool.java", "package r;\npublic class Tool {\n  public static void make() {}\n}\n".to_string()),
    ]
}

/// A declaration change resolves again the changed file and the files that mention a name
/// whose meaning changed — the overloads of a method, a chain's return type, a lambda's
/// functional interface, a simple name a new type now binds — and reads back every other
/// file's calls; the graph is a full run's each time (a file that should have resolved
/// again and did not would keep a call edge the full run does not have, or lack one).
#[test]
fn a_declaration_change_resolves_only_the_files_that_mention_what_changed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("src");
    let write = |files: &[(&str, String)]| {
        if root.exists() {
            std::fs::remove_dir_all(&root).expect("clear");
        }
        for (rel, text) in files {
            let path = root.join("shop/src/main/java").join(rel);
            std::fs::create_dir_all(path.parent().expect("folder")).expect("mkdir");
            std::fs::write(path, text).expect("write");
        }
    };
    let company = |store: &Path| Company {
        store: store.to_path_buf(),
        products: vec![ProductSource {
            name: "shop".into(),
            area: "commerce".into(),
            repos: vec![root.join("shop")],
            wiki: Vec::new(),
            jira: Vec::new(),
        }],
        config_file: None,
        server: None,
        dependencies: crate::Dependencies::sources_only(),
    };
    let edit = |rel: &str, from: &str, to: &str| -> Files {
        let mut files = mentions_tree();
        let file = files
            .iter_mut()
            .find(|(r, _)| *r == rel)
            .expect("a file of the tree");
        assert!(file.1.contains(from), "{rel} has {from}");
        file.1 = file.1.replace(from, to);
        files
    };
    let mut added = mentions_tree();
    added.push((
        "q/Tool.java",
        "package q;\npublic class Tool {\n  public static void make() {}\n}\n".into(),
    ));
    let base = mentions_tree().len() as u64;
    let cases: Vec<(&str, Files, u64)> = vec![
        (
            // `find` changed: Orders, UsesFind and UsesChain resolve again.
            "an overload added",
            edit(
                "p/Orders.java",
                "  public Order find",
                "  public Order find(int id) { return null; }\n  public Order find",
            ),
            base - 3,
        ),
        (
            // `visit`, `Visitor` and `each` (takes a Visitor): Visitor, Shop and
            // UsesLambda, whose lambda's parameter is no longer an Order.
            "a functional interface's parameter type changed",
            edit("p/Visitor.java", "visit(Order o)", "visit(Orders o)"),
            base - 3,
        ),
        (
            // `pay` changed: Order, UsesFind and UsesLambda.
            "a method removed",
            edit("p/Order.java", "  public void pay() {}\n", ""),
            base - 3,
        ),
        (
            // A constructor: `Orders`, then `orders` (returns an Orders) and `useFind`
            // (takes one): Orders, Shop, UsesFind and UsesChain.
            "a constructor added",
            edit(
                "p/Orders.java",
                "  public Order find",
                "  public Orders(int size) {}\n  public Order find",
            ),
            base - 4,
        ),
        (
            // `Tool` and `make`: Shadow now calls its own package's Tool; r's Tool
            // writes both names.
            "a type added that an on-demand import loses to",
            added,
            base - 2,
        ),
    ];
    for (what, files, reused) in cases {
        write(&mentions_tree());
        let store_dir = dir.path().join("store");
        if store_dir.exists() {
            std::fs::remove_dir_all(&store_dir).expect("clear the store");
        }
        let store = Store::open(&store_dir).expect("store");
        index_all(&store, &company(&store_dir), IndexMode::Incremental);
        write(&files);
        let reports = index_all(&store, &company(&store_dir), IndexMode::Incremental);
        let full_dir = dir.path().join("full");
        let full = Store::open(&full_dir).expect("store");
        index_all(&full, &company(&full_dir), IndexMode::Full);
        let (got, want) = (graph(&store), graph(&full));
        assert_eq!(got, want, "{what}: the incremental graph is a full run's");
        assert!(
            want.get("edges")
                .is_some_and(|e| e.keys().any(|k| k.contains("-calls->"))),
            "{what}: the tree has calls"
        );
        assert_eq!(
            reports.iter().map(|r| r.calls_reused).sum::<u64>(),
            reused,
            "{what}: the files that mention no changed name keep their calls"
        );
        drop(full);
        std::fs::remove_dir_all(&full_dir).expect("remove the full store");
    }
}
