//! Dependencies' types from jars: a library compiled with `javac` into a jar, a product
//! whose build declares it and whose code calls through it. Without the jar the calls on
//! what the library returns are unresolved and counted so; with the jar on the classpath
//! they resolve, and the run says which declared dependencies were typed and which not.

use std::path::{Path, PathBuf};
use std::process::Command;

use semgraph_indexer::{index_product, Company, Dependencies, NoProgress, ProductReport, ProductSource};
use semgraph_storage::Store;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

fn run(cmd: &mut Command) {
    let out = cmd
        .output()
        .expect("runs (Java 17 is on every machine semgraph is built on)");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `greeter.jar`: `Greeter.create()` returns a `Greeting`, whose `text()` is a `String`.
fn library(dir: &Path) -> PathBuf {
    let src = dir.join("lib-src");
    write(
        &src.join("com/example/greeter/Greeter.java"),
        "package com.example.greeter;\npublic final class Greeter {\n    public static Greeter create() { return new Greeter(); }\n    public Greeting greet(String name) { return new Greeting(\"hello \" + name); }\n}\n",
    );
    write(
        &src.join("com/example/greeter/Greeting.java"),
        "package com.example.greeter;\npublic final class Greeting {\n    private final String text;\n    public Greeting(String text) { this.text = text; }\n    public String text() { return text; }\n}\n",
    );
    let classes = dir.join("lib-classes");
    run(Command::new("javac")
        .arg("-d")
        .arg(&classes)
        .arg(src.join("com/example/greeter/Greeter.java"))
        .arg(src.join("com/example/greeter/Greeting.java")));
    let jar = dir.join("libs/greeter-1.0.jar");
    std::fs::create_dir_all(jar.parent().expect("parent")).expect("mkdir");
    run(Command::new("jar")
        .arg("cf")
        .arg(&jar)
        .arg("-C")
        .arg(&classes)
        .arg("."));
    jar
}

fn product(dir: &Path) -> PathBuf {
    let repo = dir.join("app");
    write(
        &repo.join("pom.xml"),
        "<project><modelVersion>4.0.0</modelVersion><groupId>com.example</groupId><artifactId>app</artifactId><version>1</version>\n<dependencies>\n<dependency><groupId>com.example</groupId><artifactId>greeter</artifactId><version>1.0</version></dependency>\n<dependency><groupId>org.example</groupId><artifactId>absent</artifactId><version>2.0</version></dependency>\n<dependency><groupId>org.example</groupId><artifactId>tokened</artifactId><version>@tokened.version@</version></dependency>\n</dependencies></project>\n",
    );
    write(
        &repo.join("src/main/java/app/Welcome.java"),
        "package app;\nimport com.example.greeter.Greeter;\npublic class Welcome {\n    int length(String name) {\n        return Greeter.create().greet(name).text().length();\n    }\n}\n",
    );
    repo
}

fn index(dir: &Path, repo: &Path, dependencies: Dependencies, store: &str) -> ProductReport {
    let company = Company {
        store: dir.join(store),
        products: vec![ProductSource {
            name: "app".into(),
            area: "a".into(),
            repos: vec![repo.to_path_buf()],
            wiki: Vec::new(),
            jira: Vec::new(),
        }],
        config_file: None,
        server: None,
        dependencies,
    };
    let store = Store::open(&company.store).expect("store");
    index_product(&store, &company, &company.products[0], &NoProgress).expect("indexes")
}

fn stat(r: &ProductReport, key: &str) -> u64 {
    r.stats.get(key).copied().unwrap_or(0)
}

#[test]
fn a_jar_on_the_classpath_types_the_calls_through_its_library() {
    let dir = tempfile::tempdir().expect("tempdir");
    let jar = library(dir.path());
    let repo = product(dir.path());

    let bare = index(dir.path(), &repo, Dependencies::sources_only(), "bare");
    // `create()` is typed by its class, the rest of the chain by nothing.
    assert!(stat(&bare, "calls.unresolved") >= 2, "{:?}", bare.stats);
    let declared: Vec<(&str, bool)> = bare
        .dependencies
        .iter()
        .map(|d| (d.coordinate.as_str(), d.typed_from.is_some()))
        .collect();
    assert_eq!(
        declared,
        vec![
            ("com.example:greeter:1.0", false),
            ("org.example:absent:2.0", false),
            // A build token is no version.
            ("org.example:tokened", false)
        ]
    );
    assert!(bare
        .dependencies
        .iter()
        .all(|d| d.why_not.as_deref() == Some("not looked for (local_repositories = false)")));

    // The folder holding the jar stands for it.
    let typed = index(
        dir.path(),
        &repo,
        Dependencies {
            classpath: vec![jar.parent().expect("libs").to_path_buf()],
            local_repositories: false,
        },
        "typed",
    );
    assert_eq!(stat(&typed, "calls.unresolved"), 0, "{:?}", typed.warnings);
    assert!(
        stat(&typed, "calls.external") > stat(&bare, "calls.external"),
        "{:?} vs {:?}",
        typed.stats,
        bare.stats
    );
    // The jar is named as Maven names the declared artifact's: it is that dependency.
    let jar_shown = jar.display().to_string();
    let declared: Vec<(&str, Option<&str>)> = typed
        .dependencies
        .iter()
        .map(|d| (d.coordinate.as_str(), d.typed_from.as_deref()))
        .collect();
    assert_eq!(
        declared,
        vec![
            ("com.example:greeter:1.0", Some(jar_shown.as_str())),
            ("org.example:absent:2.0", None),
            ("org.example:tokened", None)
        ]
    );
}

/// A declared test library semgraph bundles a model of types its calls with no jar on
/// disk, and the report says where its types came from; one it does not bundle stays
/// untyped, and says why.
#[test]
fn a_bundled_test_library_types_calls_without_its_jar_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let repo = dir.path().join("app");
    write(
        &repo.join("pom.xml"),
        "<project><modelVersion>4.0.0</modelVersion><groupId>com.example</groupId><artifactId>app</artifactId><version>1</version>\n<dependencies>\n<dependency><groupId>org.assertj</groupId><artifactId>assertj-core</artifactId><version>3.27.3</version><scope>test</scope></dependency>\n<dependency><groupId>org.example</groupId><artifactId>absent</artifactId><version>2.0</version></dependency>\n</dependencies></project>\n",
    );
    write(
        &repo.join("src/test/java/app/NameTest.java"),
        "package app;\nimport static org.assertj.core.api.Assertions.assertThat;\npublic class NameTest {\n    void trims() {\n        assertThat(\" a \".trim()).isEqualTo(\"a\").hasSize(1);\n    }\n}\n",
    );
    let report = index(dir.path(), &repo, Dependencies::sources_only(), "bundled");
    assert_eq!(stat(&report, "calls.unresolved"), 0, "{:?}", report.warnings);
    assert!(stat(&report, "calls.external") >= 4, "{:?}", report.stats);
    let declared: Vec<(&str, Option<&str>, Option<&str>)> = report
        .dependencies
        .iter()
        .map(|d| {
            (
                d.coordinate.as_str(),
                d.typed_from.as_deref(),
                d.why_not.as_deref(),
            )
        })
        .collect();
    // The version is the committed model's (`indexer/src/typemodel/libraries.tm`).
    let bundled = "semgraph's bundled model of org.assertj:assertj-core:3.14.0";
    assert_eq!(
        declared,
        vec![
            ("org.assertj:assertj-core:3.27.3", Some(bundled), None),
            (
                "org.example:absent:2.0",
                None,
                Some("not looked for (local_repositories = false)")
            ),
        ]
    );
}
