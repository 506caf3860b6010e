//! Hostile sources: `semgraph index`, the real binary, over a corpus of bad inputs written
//! at test time next to a small valid Spring product.
//!
//! A company's repositories hold whatever their history left in them: generated classes,
//! half-typed files, binaries under source names, symlink games, named pipes, YAML that
//! expands to billions of keys. Indexing them must end — no panic, no hang, bounded memory —
//! with every skipped or damaged file named in a warning with its reason, and with every
//! good fact next to them still in the store. The index runs as a child process so that a
//! hang is caught by a timeout, a stack overflow or abort shows as a failed exit, and the
//! peak RSS read from `/proc` is the indexer's own.
//!
//! Nothing here is committed as a file: the corpus is generated into a temporary folder
//! (the 50 MB class included) and removed when the test ends.

use std::fmt::Write as _;
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use semgraph_storage::{Direction, EdgeKind, NodeId, NodeKind, Snapshot, Store};

/// How long the index of the whole corpus may take before it counts as a hang. Generous:
/// a debug build on a busy 2-core machine takes a small fraction of it.
const HANG_GUARD: Duration = Duration::from_secs(420);
/// Peak RSS allowed to the index child. The store's memtables share a 128 MB budget; the
/// rest is the largest file being parsed and the facts of one product. A YAML bomb or a
/// placeholder chain that expanded would go far past it.
const RSS_LIMIT_MB: u64 = 1_500;
/// Nesting depth of the deep inputs.
const DEEP: usize = 10_000;

/// One bad input: where it is and what its warning must say. `file` is matched against
/// the warning's file (a suffix, since repository-relative and absolute paths both occur)
/// and `reason` against its message.
struct Bad {
    what: String,
    file: String,
    reason: Option<&'static str>,
}

#[derive(Default)]
struct Corpus {
    bad: Vec<Bad>,
    /// Tables the big migration defines that must be indexed.
    good_tables: Vec<String>,
    /// Java types that must be indexed (the valid product, BOM files, the parts of broken
    /// files that parse).
    good_types: Vec<String>,
    notes: Vec<String>,
    /// Names that must not reach the store (outside the root, unreadable, skipped).
    absent: Vec<String>,
}

impl Corpus {
    /// A bad input whose file must appear in a warning whose message contains `reason`.
    fn warned(&mut self, what: impl Into<String>, file: impl Into<String>, reason: &'static str) {
        self.bad.push(Bad {
            what: what.into(),
            file: file.into(),
            reason: Some(reason),
        });
    }

    /// A bad input that must only not break the run (deep nesting that parses, a bomb
    /// whose expansion is capped, …).
    fn tolerated(&mut self, what: impl Into<String>, file: impl Into<String>) {
        self.bad.push(Bad {
            what: what.into(),
            file: file.into(),
            reason: None,
        });
    }
}

fn write(root: &Path, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("mkdir");
    std::fs::write(&path, bytes).expect("write corpus file");
    path
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().expect("a parent folder")).expect("mkdir");
    let status = Command::new("mkfifo").arg(path).status().expect("run mkfifo");
    assert!(status.success(), "mkfifo {}", path.display());
}

const JAVA_DIR: &str = "src/main/java/com/acme/shop";
const RES_DIR: &str = "src/main/resources";

/// The valid product: a controller, a service reading a table through JdbcTemplate, a
/// controller implementing a generated OpenAPI interface (so spec files are read), config
/// and a migration.
fn valid_product(repo: &Path, c: &mut Corpus) {
    write(
        repo,
        "pom.xml",
        "<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId>\
         <artifactId>shop</artifactId><packaging>jar</packaging></project>\n",
    );
    write(
        repo,
        &format!("{JAVA_DIR}/OrderController.java"),
        r#"package com.acme.shop;

import org.springframework.web.bind.annotation.*;

@RestController
@RequestMapping("/orders")
public class OrderController {
    private final OrderService service;

    public OrderController(OrderService service) {
        this.service = service;
    }

    @GetMapping("/{id}")
    public String get(@PathVariable long id) {
        return service.find(id);
    }
}
"#,
    );
    write(
        repo,
        &format!("{JAVA_DIR}/OrderService.java"),
        r#"package com.acme.shop;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

@Service
public class OrderService {
    private final JdbcTemplate jdbc;

    public OrderService(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    public String find(long id) {
        return jdbc.queryForObject("SELECT status FROM orders WHERE id = ?", String.class, id);
    }
}
"#,
    );
    write(
        repo,
        &format!("{JAVA_DIR}/RefundController.java"),
        r#"package com.acme.shop;

import com.acme.shop.api.RefundsApi;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class RefundController implements RefundsApi {
    @Override
    public String createRefund(String body) {
        return body;
    }
}
"#,
    );
    write(
        repo,
        &format!("{RES_DIR}/openapi.yml"),
        "openapi: 3.0.0\ninfo:\n  title: refunds\n  version: '1'\npaths:\n  /refunds:\n    post:\n      operationId: createRefund\n",
    );
    write(
        repo,
        &format!("{RES_DIR}/application.yml"),
        "spring:\n  application:\n    name: shop\nshop:\n  greeting: hello\n",
    );
    write(
        repo,
        &format!("{RES_DIR}/db/migration/V1__init.sql"),
        "CREATE TABLE customers (\n  id BIGINT PRIMARY KEY,\n  name VARCHAR(100) NOT NULL\n);\n\n\
         CREATE TABLE orders (\n  id BIGINT PRIMARY KEY,\n  customer_id BIGINT REFERENCES customers(id),\n  status VARCHAR(20)\n);\n",
    );
    c.good_types.extend(
        ["OrderController", "OrderService", "RefundController"].map(|t| format!("com.acme.shop.{t}")),
    );
    c.good_tables.extend(["customers", "orders"].map(String::from));
}

/// Java with a syntax error in each construct. Each file also declares a good method
/// before the damage; `recovers` says whether tree-sitter keeps the type (an unterminated
/// comment, string or text block, or an unclosed anonymous class, costs the enclosing type:
/// tree-sitter's recovery drops it, and the file is still a warning).
const BROKEN_JAVA: &[(&str, &str, bool)] = &[
    ("ClassHeader", "public class ClassHeader extends implements , {\n  void ok() {}\n}\n", true),
    ("Generics", "class Generics<T extends Comparable<T> {\n  java.util.List<java.util.Map<String,>> m;\n  void ok() {}\n}\n", true),
    ("Annotations", "@RestController(value = )\n@RequestMapping(\"/x\"\nclass Annotations {\n  @GetMapping(path = {\"/a\", }) void ok() {}\n}\n", true),
    ("Lambdas", "class Lambdas {\n  void ok() {}\n  Runnable r = () -> { foo( ; };\n  java.util.function.Function<String, String> f = (a, ) -> ;\n}\n", true),
    ("SwitchExpressions", "class SwitchExpressions {\n  void ok() {}\n  int f(int x) { return switch (x) { case 1 -> ; case -> 2; default }; }\n}\n", true),
    ("Records", "record Records(int a, ) implements {\n  Records { if (a < ) throw; }\n}\n", true),
    ("TextBlocks", "class TextBlocks {\n  void ok() {}\n  String s = \"\"\"\n    an unterminated text block\n", false),
    ("UnterminatedComment", "class UnterminatedComment {\n  void ok() {}\n  /* never closed\n  void gone() {}\n", false),
    ("UnterminatedString", "class UnterminatedString {\n  void ok() {}\n  String s = \"never closed;\n  void gone() {}\n}\n", false),
    ("Enums", "enum Enums {\n  A(, B;\n  Enums(int x) { }\n  void ok() {}\n}\n", true),
    ("Interfaces", "interface Interfaces {\n  default void ok() { return }\n  void m(int, );\n}\n", true),
    ("TryWithResources", "class TryWithResources {\n  void ok() {}\n  void m() { try (var r = ; ) { } catch () { } finally }\n}\n", true),
    ("MethodHeaders", "class MethodHeaders {\n  void ok() {}\n  void m(int a,, int b) { }\n  int ( ) { }\n  <T void g() {}\n}\n", true),
    ("Imports", "import java.util.;\nimport static ;\nclass Imports {\n  void ok() {}\n}\npackage late;\n", true),
    ("Arrays", "class Arrays {\n  void ok() {}\n  int[] a = {1, 2,, };\n  int[][ b;\n  Object c = new int[][;\n}\n", true),
    ("GenericCalls", "class GenericCalls {\n  void ok() { this.<>foo(); java.util.List.<String,>of(); }\n}\n", true),
    ("CastsAndTernaries", "class CastsAndTernaries {\n  void ok() { Object o = (String; int x = a ? : b; }\n}\n", true),
    ("Patterns", "class Patterns {\n  void ok(Object o) { if (o instanceof String s &&) {} switch (o) { case String t when -> {} } }\n}\n", true),
    ("Sealed", "sealed interface Sealed permits {\n  void ok();\n}\n", true),
    ("AnnotationTypes", "@interface AnnotationTypes {\n  String value() default ;\n  int[] more() default {1,;\n}\n", true),
    ("AnonymousClasses", "class AnonymousClasses {\n  void ok() {}\n  Runnable r = new Runnable() { public void run() { };\n}\n", false),
    ("Initializers", "class Initializers {\n  static { int x = ; }\n  { this. = 1; }\n  void ok() {}\n}\n", true),
    ("Varargs", "class Varargs {\n  void ok() {}\n  void m(String... ) {}\n  void n(int... a, int b) {}\n}\n", true),
    ("Loops", "class Loops {\n  void ok() { for (int i = 0; i < ; ) { break ; continue label } while () do ; }\n}\n", true),
    ("UnicodeEscapes", "class UnicodeEscapes {\n  void ok() {}\n  String s = \"\\u00\";\n  char c = '\\uZZZZ';\n}\n", true),
    ("Garbage", "}}}} {{{{ )))) (((( ;;;; @@@@ <<<< >>>> class Garbage { void ok() {} }\n", true),
];

fn broken_java(repo: &Path, c: &mut Corpus) {
    for (name, body, recovers) in BROKEN_JAVA {
        let rel = format!("{JAVA_DIR}/broken/{name}.java");
        write(repo, &rel, format!("package com.acme.shop.broken;\n\n{body}"));
        c.warned(format!("Java syntax error: {name}"), &rel, "syntax error");
        if *recovers {
            c.good_types.push(format!("com.acme.shop.broken.{name}"));
        }
    }
    let rel = format!("{JAVA_DIR}/module-info.java");
    write(repo, &rel, "module com.acme.shop { requires ; exports ; }\n");
    c.warned("Java syntax error: module-info", &rel, "syntax error");
}

/// Binary bytes, invalid UTF-8 and UTF-8 with a BOM, under every source extension.
fn encodings(repo: &Path, wiki: &Path, c: &mut Corpus) {
    let mut binary = b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00".to_vec();
    binary.extend((0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8));
    for rel in [
        format!("{JAVA_DIR}/Binary.java"),
        format!("{RES_DIR}/db/migration/V9__binary.sql"),
        format!("{RES_DIR}/application-binary.yml"),
        format!("{RES_DIR}/application-binary.properties"),
        format!("{RES_DIR}/mapper/BinaryMapper.xml"),
    ] {
        write(repo, &rel, &binary);
        c.warned(format!("binary content: {rel}"), &rel, "binary");
    }
    write(wiki, "binary.md", &binary);
    c.warned("binary content: wiki page", "binary.md", "binary");

    // ISO-8859-1 where UTF-8 is expected: decoded with replacement characters, indexed.
    let rel = format!("{JAVA_DIR}/Latin1.java");
    write(
        repo,
        &rel,
        b"package com.acme.shop;\n\n/** Caf\xe9 cr\xe8me */\npublic class Latin1 {\n  String s = \"na\xefve\";\n}\n",
    );
    c.warned("invalid UTF-8: Java", &rel, "not valid UTF-8");
    c.good_types.push("com.acme.shop.Latin1".into());
    let rel = format!("{RES_DIR}/db/migration/V8__latin1.sql");
    write(
        repo,
        &rel,
        b"-- r\xe9sum\xe9\nCREATE TABLE latin1_notes (id INT PRIMARY KEY, note VARCHAR(10));\n",
    );
    c.warned("invalid UTF-8: SQL", &rel, "not valid UTF-8");
    c.good_tables.push("latin1_notes".into());
    let rel = format!("{RES_DIR}/application-latin1.properties");
    write(repo, &rel, b"shop.latin1=caf\xe9\n");
    c.warned("invalid UTF-8: properties", &rel, "not valid UTF-8");
    write(
        wiki,
        "latin1.md",
        b"# Caf\xe9 notes\n\nThe shop serves caf\xe9.\n",
    );
    c.warned("invalid UTF-8: wiki page", "latin1.md", "not valid UTF-8");
    // Truncated multi-byte sequences and lone surrogates (CESU-8).
    let rel = format!("{JAVA_DIR}/Truncated.java");
    write(
        repo,
        &rel,
        b"package com.acme.shop;\npublic class Truncated { String a = \"\xe2\x82\"; String b = \"\xed\xa0\x80\"; }\n\xf0\x9f",
    );
    c.warned("invalid UTF-8: truncated sequences", &rel, "not valid UTF-8");
    c.good_types.push("com.acme.shop.Truncated".into());

    // A BOM is valid UTF-8: indexed, no warning (checked apart, see `boms_are_not_warnings`).
    write(
        repo,
        &format!("{JAVA_DIR}/BomGreeter.java"),
        "\u{feff}package com.acme.shop;\n\npublic class BomGreeter {\n  public String greet() { return \"hi\"; }\n}\n",
    );
    c.good_types.push("com.acme.shop.BomGreeter".into());
    write(
        repo,
        &format!("{RES_DIR}/db/migration/V2__bom.sql"),
        "\u{feff}CREATE TABLE bom_table (id INT PRIMARY KEY);\n",
    );
    c.good_tables.push("bom_table".into());
    write(
        repo,
        &format!("{RES_DIR}/application-bom.properties"),
        "\u{feff}bom.key=1\n",
    );
    write(
        wiki,
        "bom.md",
        "\u{feff}# Bom page\n\nA page saved by an editor that writes a BOM.\n",
    );
}

/// A class over the size limit (skipped with a warning, never read whole) and a large one
/// under it (parsed; memory stays bounded).
fn big_files(repo: &Path, c: &mut Corpus) {
    let mut method = String::new();
    let mut big = String::from("package com.acme.shop.gen;\n\npublic class Huge {\n");
    let mut i = 0;
    while big.len() < 50 << 20 {
        method.clear();
        let _ = writeln!(
            method,
            "  public int m{i}(int a) {{ int b = a * {i}; return m{}(b) + \"{i}\".length(); }}",
            i + 1
        );
        big.push_str(&method);
        i += 1;
    }
    big.push_str("}\n");
    let rel = format!("{JAVA_DIR}/gen/Huge.java");
    write(repo, &rel, &big);
    c.warned("a 50 MB generated class", &rel, "over the");

    // 1 MB: read, parsed twice, its 10,000 methods and calls written.
    big.truncate(0);
    big.push_str("package com.acme.shop.gen;\n\npublic class Large {\n");
    let mut i = 0;
    while big.len() < 1 << 20 {
        let _ = writeln!(
            big,
            "  public int m{i}(int a) {{ int b = a * {i}; return m{}(b) + \"{i}\".length(); }}",
            i + 1
        );
        i += 1;
    }
    big.push_str("}\n");
    write(repo, &format!("{JAVA_DIR}/gen/Large.java"), &big);
    c.tolerated("a 1 MB generated class of 10,000 methods", "Large.java");
    c.good_types.push("com.acme.shop.gen.Large".into());
}

/// 10,000-deep nesting in every language the indexer reads.
fn deep_nesting(repo: &Path, wiki: &Path, jira: &Path, c: &mut Corpus) {
    let n = DEEP;
    let java = |name: &str, member: String| {
        format!("package com.acme.shop.deep;\n\npublic class {name} {{\n  void ok() {{}}\n{member}\n}}\n")
    };
    let cases: Vec<(&str, String)> = vec![
        (
            "DeepParens",
            format!("  int x = {}1{};", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "DeepBlocks",
            format!("  void m() {{ {} int y = 0; {} }}", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "DeepLambdas",
            format!(
                "  Object f = {}null;",
                (0..n).map(|i| format!("x{i} -> ")).collect::<String>()
            ),
        ),
        (
            "DeepConcat",
            format!(
                "  void q(org.springframework.jdbc.core.JdbcTemplate jdbc) {{ String sql = \"SELECT 1 FROM orders\"{}; jdbc.queryForList(sql); }}",
                " + \" \"".repeat(n)
            ),
        ),
        (
            "DeepCalls",
            format!("  int c = {}0{};", "f(".repeat(n), ")".repeat(n)),
        ),
        (
            "DeepChain",
            format!("  Object d = builder(){};", ".next()".repeat(n)),
        ),
        (
            "DeepGenerics",
            format!(
                "  {}String{} g;",
                "java.util.List<".repeat(n),
                ">".repeat(n)
            ),
        ),
        (
            "DeepTypes",
            format!("{}{}", "  class Inner {\n".repeat(n), "  }\n".repeat(n)),
        ),
        (
            "DeepAnnotations",
            format!("  @A({}1{}) void a() {{}}", "@A(".repeat(n), ")".repeat(n)),
        ),
        (
            "DeepArrays",
            format!("  int[] arr = {}1{};", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "DeepTernary",
            format!("  int t = {}0;", "a ? 1 : ".repeat(n)),
        ),
        (
            "DeepIfElse",
            format!("  void e(int a) {{ {} {{}} }}", "if (a > 0) {} else ".repeat(n)),
        ),
    ];
    for (name, member) in cases {
        let rel = format!("{JAVA_DIR}/deep/{name}.java");
        write(repo, &rel, java(name, member));
        c.tolerated(format!("Java nesting {n} deep: {name}"), &rel);
    }
    // A deep anonymous class chain, one level per line.
    let rel = format!("{JAVA_DIR}/deep/DeepAnonymous.java");
    write(
        repo,
        &rel,
        java(
            "DeepAnonymous",
            format!(
                "  Object o = {}null{};",
                "new Object() { Object x = ".repeat(n / 10),
                "; }".repeat(n / 10)
            ),
        ),
    );
    c.tolerated("Java anonymous classes 1,000 deep", &rel);

    // YAML and JSON.
    let rel = format!("{RES_DIR}/application-deepflow.yml");
    write(
        repo,
        &rel,
        format!("shop:\n  deep: {}1{}\n", "[".repeat(n), "]".repeat(n)),
    );
    c.tolerated("YAML flow sequences 10,000 deep", &rel);
    let rel = format!("{RES_DIR}/application-deepmap.yml");
    write(
        repo,
        &rel,
        format!("shop:\n  deep: {}1{}\n", "{a: ".repeat(n), "}".repeat(n)),
    );
    c.tolerated("YAML flow mappings 10,000 deep", &rel);
    let mut block = String::from("shop:\n");
    for depth in 1..=1_000 {
        let _ = writeln!(block, "{}k{depth}:", " ".repeat(depth));
    }
    let rel = format!("{RES_DIR}/application-deepblock.yml");
    write(repo, &rel, &block);
    c.tolerated("YAML block mappings 1,000 deep", &rel);
    let rel = format!("{RES_DIR}/openapi-deep.json");
    write(
        repo,
        &rel,
        format!(
            "{{\"openapi\": \"3.0.0\", \"paths\": {{}}, \"x\": {}1{}}}",
            "{\"a\": ".repeat(n),
            "}".repeat(n)
        ),
    );
    c.tolerated("JSON (OpenAPI) 10,000 deep", &rel);
    let rel = format!("{RES_DIR}/openapi-deep.yml");
    write(
        repo,
        &rel,
        format!(
            "openapi: 3.0.0\npaths: {{}}\nx: {}1{}\n",
            "[".repeat(n),
            "]".repeat(n)
        ),
    );
    c.tolerated("YAML (OpenAPI) 10,000 deep", &rel);

    // SQL.
    let rel = format!("{RES_DIR}/db/migration/V4__deep.sql");
    write(
        repo,
        &rel,
        format!(
            "CREATE TABLE deep_default (a INT DEFAULT {p}1{q});\n\
             CREATE VIEW deep_view AS SELECT {p}1{q} AS x;\n\
             CREATE TABLE deep_check (a INT CHECK {p}a > 0{q});\n\
             SELECT {p}1{q};\n\
             CREATE TABLE after_deep (id INT PRIMARY KEY);\n",
            p = "(".repeat(n),
            q = ")".repeat(n)
        ),
    );
    c.tolerated("SQL parentheses 10,000 deep", &rel);
    c.good_tables.push("after_deep".into());

    // MyBatis mapper XML.
    let rel = format!("{RES_DIR}/mapper/DeepMapper.xml");
    write(
        repo,
        &rel,
        format!(
            "<?xml version=\"1.0\"?>\n<mapper namespace=\"com.acme.shop.DeepMapper\">\n<select id=\"q\">SELECT * FROM orders {}WHERE 1=1{}</select>\n</mapper>\n",
            "<if test=\"a\">".repeat(n),
            "</if>".repeat(n)
        ),
    );
    c.tolerated("MyBatis mapper XML 10,000 deep", &rel);
    let rel = "deep/pom.xml";
    write(
        repo,
        rel,
        format!(
            "<project>{}<artifactId>deep</artifactId>{}</project>\n",
            "<a>".repeat(n),
            "</a>".repeat(n)
        ),
    );
    c.tolerated("pom.xml 10,000 deep", rel);

    // Markdown.
    write(
        wiki,
        "deep-quotes.md",
        format!("# Deep quotes\n\n{}text\n", "> ".repeat(n)),
    );
    c.tolerated("markdown block quotes 10,000 deep", "deep-quotes.md");
    let mut lists = String::from("# Deep lists\n\n");
    for depth in 0..1_000 {
        let _ = writeln!(lists, "{}- item {depth}", "  ".repeat(depth));
    }
    write(wiki, "deep-lists.md", &lists);
    c.tolerated("markdown lists 1,000 deep", "deep-lists.md");
    write(
        wiki,
        "deep-links.md",
        format!(
            "# Deep links\n\n{}x{}\n\n{}\n",
            "[".repeat(n),
            "](y)".repeat(n),
            "*_".repeat(n)
        ),
    );
    c.tolerated("markdown link and emphasis openers 10,000 deep", "deep-links.md");

    // Jira: JSON nested far beyond serde_json's limit.
    let path = write(
        jira,
        "deep.json",
        format!("{{\"issues\": [{}1{}]}}", "[".repeat(n), "]".repeat(n)),
    );
    c.warned("Jira export JSON 10,000 deep", path.display().to_string(), "");
    // An ADF description nested 10,000 deep (as one string of JSON the parser must walk).
    let mut adf = String::new();
    for _ in 0..n {
        adf.push_str("{\"type\":\"bulletList\",\"content\":[");
    }
    adf.push_str("{\"type\":\"text\",\"text\":\"deep\"}");
    for _ in 0..n {
        adf.push_str("]}");
    }
    let path = write(
        jira,
        "deep-adf.json",
        format!(
            "{{\"issues\": [{{\"key\": \"SHOP-2\", \"fields\": {{\"summary\": \"deep\", \"description\": {adf}}}}}]}}"
        ),
    );
    c.warned("Jira ADF description 10,000 deep", path.display().to_string(), "");
}

/// 20,000 nested constructs that are never closed, in every language the indexer reads:
/// the shape on which a parser's error recovery goes superlinear. Each costs at most its
/// front-end's parse budget (`lang/budget.rs` for tree-sitter), then a warning.
fn unclosed_nesting(repo: &Path, wiki: &Path, c: &mut Corpus) {
    let n = 2 * DEEP;
    let rel = format!("{JAVA_DIR}/unclosed/UnclosedMethods.java");
    write(
        repo,
        &rel,
        format!(
            "package com.acme.shop.unclosed;\n\nclass UnclosedMethods {{\n{}",
            "void m(){\n".repeat(n)
        ),
    );
    c.tolerated("Java method declarations 20,000 deep, never closed", &rel);
    let rel = format!("{JAVA_DIR}/unclosed/UnclosedParams.java");
    write(
        repo,
        &rel,
        format!(
            "package com.acme.shop.unclosed;\n\npublic class UnclosedParams {{\n{}",
            "public static void m(String[] a, int b) {\n".repeat(n / 4)
        ),
    );
    c.tolerated("Java public methods 5,000 deep, never closed", &rel);
    let rel = "src/main/kotlin/com/acme/shop/unclosed/Unclosed.kt".to_string();
    write(
        repo,
        &rel,
        format!(
            "package com.acme.shop.unclosed\n\nclass Unclosed {{\n{}",
            "fun m() {\n".repeat(n)
        ),
    );
    c.tolerated("Kotlin functions 20,000 deep, never closed", &rel);
    let rel = format!("{RES_DIR}/application-unclosed.yml");
    write(repo, &rel, format!("shop:\n  deep: {}1\n", "[".repeat(n)));
    c.tolerated("YAML flow sequences 20,000 deep, never closed", &rel);
    let rel = format!("{RES_DIR}/db/migration/V5__unclosed.sql");
    write(
        repo,
        &rel,
        format!(
            "CREATE TABLE unclosed (a INT DEFAULT {}1;\nCREATE TABLE after_unclosed (id INT PRIMARY KEY);\n",
            "(".repeat(n)
        ),
    );
    c.tolerated("SQL parentheses 20,000 deep, never closed", &rel);
    c.good_tables.push("after_unclosed".into());
    let rel = format!("{RES_DIR}/mapper/UnclosedMapper.xml");
    write(
        repo,
        &rel,
        format!(
            "<?xml version=\"1.0\"?>\n<mapper namespace=\"com.acme.shop.UnclosedMapper\">\n<select id=\"q\">SELECT * FROM orders {}",
            "<if test=\"a\">".repeat(n)
        ),
    );
    c.tolerated("MyBatis mapper XML 20,000 deep, never closed", &rel);
    let rel = format!("{RES_DIR}/openapi-unclosed.json");
    write(
        repo,
        &rel,
        format!("{{\"openapi\": \"3.0.0\", \"x\": {}", "{\"a\": ".repeat(n)),
    );
    c.tolerated("JSON (OpenAPI) 20,000 deep, never closed", &rel);
    let rel = format!("{RES_DIR}/schema/unclosed.graphqls");
    write(repo, &rel, format!("type Deep {{ f: {}Int\n", "[".repeat(n)));
    c.warned(
        "GraphQL list types 20,000 deep, never closed",
        &rel,
        "brackets nested",
    );
    write(
        wiki,
        "unclosed.md",
        format!("# Unclosed\n\n{}x\n\n{}\n", "[".repeat(n), "<div>".repeat(n)),
    );
    c.tolerated(
        "markdown links and HTML blocks 20,000 deep, never closed",
        "unclosed.md",
    );
}

/// 100,000 lines of migration with broken statements between good ones.
fn big_migration(repo: &Path, c: &mut Corpus) {
    let rel = format!("{RES_DIR}/db/migration/V3__big.sql");
    let mut sql = String::new();
    let mut lines = 0;
    let mut i = 0;
    let mut broken = 0;
    while lines < 100_000 {
        let _ = write!(
            sql,
            "CREATE TABLE good_{i} (\n  id BIGINT PRIMARY KEY,\n  name VARCHAR(100) NOT NULL,\n  amount DECIMAL(10, 2) DEFAULT 0,\n  created_at TIMESTAMP\n);\n"
        );
        lines += 6;
        c.good_tables.push(format!("good_{i}"));
        let bad = match i % 6 {
            0 => format!("CREATE TABLE broken_{i} (id INT,, name);\n"),
            1 => format!("CREATE TABL oops_{i} (id INT);\n"),
            2 => format!("ALTER TABLE good_{i} ADD CONSTRAINT fk_{i} FOREIGN KEY (x REFERENCES;\n"),
            3 => format!("CREATE VIEW v_{i} AS SELECT * FROM ((good_{i};\n"),
            4 => format!("CREATE INDEX ON ON good_{i} (((;\n"),
            _ => format!("CREATE TABLE (id INT PRIMARY KEY) good_{i};\n"),
        };
        sql.push_str(&bad);
        broken += 1;
        lines += 1;
        i += 1;
    }
    write(repo, &rel, &sql);
    c.warned(
        format!("a {lines}-line migration with {broken} broken statements between {i} good tables"),
        &rel,
        "",
    );
    // An unterminated quote: swallows the rest of its file (as it would in psql), ends.
    let rel = format!("{RES_DIR}/db/migration/V5__unterminated.sql");
    write(
        repo,
        &rel,
        "CREATE TABLE before_quote (id INT PRIMARY KEY);\nINSERT INTO before_quote VALUES ('never closed);\nCREATE TABLE swallowed (id INT);\n",
    );
    c.tolerated("an unterminated SQL string", &rel);
    c.good_tables.push("before_quote".into());
    // Dollar quotes and DELIMITER blocks left open.
    let rel = format!("{RES_DIR}/db/migration/V6__open_blocks.sql");
    write(
        repo,
        &rel,
        "CREATE FUNCTION f() RETURNS int AS $$ BEGIN RETURN 1;\nDELIMITER //\nCREATE PROCEDURE p() BEGIN SELECT 1;\n",
    );
    c.tolerated("an open dollar quote and DELIMITER block", &rel);
}

/// YAML anchor bombs (config and OpenAPI), a placeholder chain that doubles at every key.
fn bombs(repo: &Path, c: &mut Corpus) {
    let mut laughs = String::from("a0: &a0 [\"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\", \"lol\"]\n");
    for i in 1..=9 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        let _ = writeln!(laughs, "a{i}: &a{i} [{refs}]");
    }
    let rel = format!("{RES_DIR}/application-bomb.yml");
    write(repo, &rel, &laughs);
    c.warned("YAML billion laughs (config)", &rel, "entries");
    let rel = format!("{RES_DIR}/openapi-bomb.yml");
    write(
        repo,
        &rel,
        format!(
            "openapi: 3.0.0\n{laughs}paths:\n  /bomb:\n    get:\n      operationId: createRefund\n      x-laughs: *a9\n"
        ),
    );
    c.warned("YAML billion laughs (OpenAPI spec)", &rel, "");
    // Mapping merges of mappings that merge: the same blow-up through `<<`.
    let mut merges =
        String::from("m0: &m0 {k0: v, k1: v, k2: v, k3: v, k4: v, k5: v, k6: v, k7: v, k8: v, k9: v}\n");
    for i in 1..=9 {
        let _ = write!(merges, "m{i}: &m{i} {{");
        for j in 0..10 {
            let _ = write!(merges, "c{j}: *m{}, ", i - 1);
        }
        merges.push_str("}\n");
    }
    let rel = format!("{RES_DIR}/application-merge.yml");
    write(repo, &rel, &merges);
    c.warned("YAML nested aliases of mappings", &rel, "entries");
    // A self-referencing alias (invalid YAML, but parsers have looped on it).
    let rel = format!("{RES_DIR}/application-selfref.yml");
    write(repo, &rel, "a: &a\n  b: *a\n  c: 1\n");
    c.tolerated("a YAML alias to its own ancestor", &rel);

    // Placeholders: every key doubles the one before it, and the leaf is 64 KB.
    let mut props = format!("ph.p0={}\n", "x".repeat(64 << 10));
    for i in 1..=40 {
        let _ = writeln!(props, "ph.p{i}=${{ph.p{j}}}${{ph.p{j}}}", j = i - 1);
    }
    props.push_str("ph.cycle.a=${ph.cycle.b}\nph.cycle.b=${ph.cycle.a}\n");
    let rel = format!("{RES_DIR}/application-placeholders.properties");
    write(repo, &rel, &props);
    c.tolerated("a placeholder chain doubling 40 times over a 64 KB value", &rel);
    write(
        repo,
        &format!("{JAVA_DIR}/PlaceholderUser.java"),
        "package com.acme.shop;\n\nimport org.springframework.beans.factory.annotation.Value;\n\n\
         public class PlaceholderUser {\n  @Value(\"${ph.p40}\") String big;\n  @Value(\"${ph.cycle.a}\") String cycle;\n\
           void call(org.springframework.web.client.RestTemplate rest) { rest.getForObject(\"http://${ph.p40}/x\", String.class); }\n}\n",
    );
    c.good_types.push("com.acme.shop.PlaceholderUser".into());
}

/// Symlink loops and links out of the root, a named pipe, an unreadable file, names that
/// are not UTF-8, folders named like sources.
fn file_system(repo: &Path, outside: &Path, c: &mut Corpus) {
    let java = repo.join(JAVA_DIR);
    std::fs::create_dir_all(java.join("links")).expect("mkdir");
    symlink("..", java.join("links/loop")).expect("symlink");
    c.tolerated("a directory symlink loop", "links/loop");
    symlink("LoopB.java", java.join("links/LoopA.java")).expect("symlink");
    symlink("LoopA.java", java.join("links/LoopB.java")).expect("symlink");
    c.warned("a file symlink loop (A)", "links/LoopA.java", "symbolic link");
    c.warned("a file symlink loop (B)", "links/LoopB.java", "symbolic link");
    symlink("Nowhere.java", java.join("links/Dangling.java")).expect("symlink");
    c.warned("a dangling symlink", "links/Dangling.java", "symbolic link");

    write(
        outside,
        "OutsideSecret.java",
        "package com.outside;\npublic class OutsideSecret { String token = \"outside-secret-token\"; }\n",
    );
    write(
        outside,
        "application.properties",
        "outside.secret=outside-secret-token\n",
    );
    write(
        outside,
        "V1__outside.sql",
        "CREATE TABLE outside_secret (id INT);\n",
    );
    symlink(
        outside.join("OutsideSecret.java"),
        java.join("links/OutsideSecret.java"),
    )
    .expect("symlink");
    c.warned(
        "a symlink to a file outside the root",
        "links/OutsideSecret.java",
        "symbolic link",
    );
    symlink(outside, java.join("links/outside")).expect("symlink");
    c.tolerated("a symlink to a folder outside the root", "links/outside");
    symlink(
        "/etc/passwd",
        repo.join(format!("{RES_DIR}/application-passwd.properties")),
    )
    .expect("symlink");
    c.warned(
        "a symlink to a system file",
        "application-passwd.properties",
        "symbolic link",
    );

    for rel in [
        format!("{JAVA_DIR}/Pipe.java"),
        format!("{RES_DIR}/application-pipe.properties"),
        format!("{RES_DIR}/db/migration/V7__pipe.sql"),
    ] {
        mkfifo(&repo.join(&rel));
        c.warned(format!("a named pipe: {rel}"), &rel, "not a regular file");
    }

    let rel = format!("{JAVA_DIR}/Locked.java");
    let locked = write(repo, &rel, "package com.acme.shop;\npublic class Locked {}\n");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod 000");
    if std::fs::File::open(&locked).is_ok() {
        c.notes.push(
            "running as root: chmod 000 does not stop reading, so Locked.java is read; an \
             unreadable file is covered by the dangling symlink here and by the file removed \
             during the walk in indexer/tests/hostile.rs"
                .into(),
        );
        c.tolerated("a chmod 000 file (readable: root)", &rel);
    } else {
        c.warned("a chmod 000 file", &rel, "cannot read");
    }
    let locked_dir = java.join("lockeddir");
    write(
        &locked_dir,
        "Hidden.java",
        "package com.acme.shop;\npublic class Hidden {}\n",
    );
    std::fs::set_permissions(&locked_dir, std::fs::Permissions::from_mode(0o000)).expect("chmod 000");
    if std::fs::read_dir(&locked_dir).is_ok() {
        c.tolerated("a chmod 000 folder (listable: root)", "lockeddir");
    } else {
        c.warned("a chmod 000 folder", "lockeddir", "skipped");
        c.absent.push("Hidden".into());
    }

    // A file name that is not UTF-8.
    let name = std::ffi::OsStr::from_bytes(b"Caf\xe9.java");
    std::fs::write(java.join(name), "package com.acme.shop;\npublic class Cafe {}\n").expect("write");
    c.warned("a file name that is not UTF-8", "Caf\u{fffd}.java", "not UTF-8");

    // A folder named like a source file, holding one.
    write(
        repo,
        &format!("{JAVA_DIR}/Folder.java/Inner.java"),
        "package com.acme.shop;\npublic class InFolder {}\n",
    );
    c.tolerated("a folder named Folder.java", "Folder.java");
    c.good_types.push("com.acme.shop.InFolder".into());
    // An empty file and one of only whitespace.
    write(repo, &format!("{JAVA_DIR}/Empty.java"), "");
    write(
        repo,
        &format!("{RES_DIR}/db/migration/V10__empty.sql"),
        "\n\n   \n",
    );
    c.tolerated("empty sources", "Empty.java");
}

/// The config: the product with paths that are not folders, do not exist, or are pipes.
fn company(dir: &Path, c: &mut Corpus) -> PathBuf {
    let jira = dir.join("jira");
    write(
        &jira,
        "good.json",
        r#"{"issues": [{"key": "SHOP-1", "fields": {"summary": "Orders page slow", "issuetype": {"name": "Bug"}, "priority": {"name": "High"}, "status": {"name": "Open"}, "components": [{"name": "shop"}], "labels": [], "created": "2026-03-01T10:00:00.000+0000", "updated": "2026-03-01T10:00:00.000+0000", "description": "OrderService.find is slow"}}]}"#,
    );
    let pipe = jira.join("pipe.json");
    mkfifo(&pipe);
    c.warned(
        "a Jira export that is a named pipe",
        pipe.display().to_string(),
        "not a regular file",
    );
    std::fs::create_dir_all(jira.join("folder.json")).expect("mkdir");
    c.warned(
        "a Jira export path that is a folder",
        jira.join("folder.json").display().to_string(),
        "skipped",
    );
    let binary = write(&jira, "binary.json", b"\x00\x01\x02\xff\xfe");
    c.warned("a binary Jira export", binary.display().to_string(), "");
    c.warned(
        "a Jira export that does not exist",
        jira.join("missing.json").display().to_string(),
        "skipped",
    );
    write(dir, "not-a-folder.txt", "a file where a repository is expected\n");
    c.warned(
        "a repository path that is a file",
        dir.join("not-a-folder.txt").display().to_string(),
        "not a folder",
    );
    c.warned(
        "a repository path that does not exist",
        dir.join("missing-repo").display().to_string(),
        "not a folder",
    );
    c.warned(
        "a wiki path that does not exist",
        dir.join("missing-wiki").display().to_string(),
        "not a folder",
    );
    let config = concat!(
        "[store]\npath = \"store\"\n\n[[product]]\nname = \"shop\"\narea = \"retail\"\n\n",
        "repos = [\"shop\", \"not-a-folder.txt\", \"missing-repo\"]\nwiki = [\"wiki\", \"missing-wiki\"]\n\n",
        "jira = [\"jira/good.json\", \"jira/pipe.json\", \"jira/folder.json\", \"jira/binary.json\", \
         \"jira/missing.json\", \"jira/deep.json\", \"jira/deep-adf.json\"]\n"
    );
    write(dir, "semgraph.toml", config)
}

struct Run {
    stdout: String,
    stderr: String,
    success: bool,
    peak_rss_mb: u64,
    elapsed: Duration,
}

/// Peak resident set of a live process (`VmHWM`), in MB.
fn peak_rss_mb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// Runs `semgraph index --verbose --config FILE` (every warning printed) with a hang guard, sampling its peak RSS.
fn index(config: &Path, dir: &Path) -> Run {
    let out_path = dir.join("index.stdout");
    let err_path = dir.join("index.stderr");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_semgraph"))
        .arg("index")
        .arg("--verbose")
        .arg("--config")
        .arg(config)
        .current_dir(dir)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"))
        .spawn()
        .expect("start semgraph index");
    let mut peak = 0;
    let status = loop {
        if let Some(rss) = peak_rss_mb(child.id()) {
            peak = peak.max(rss);
        }
        if let Some(status) = child.try_wait().expect("wait for semgraph index") {
            break status;
        }
        if started.elapsed() > HANG_GUARD {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "semgraph index still running after {HANG_GUARD:?}: a hang. stderr:\n{}",
                std::fs::read_to_string(&err_path).unwrap_or_default()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let read = |p: &Path| {
        let mut s = String::new();
        let _ = std::fs::File::open(p).and_then(|mut f| f.read_to_string(&mut s));
        s
    };
    Run {
        stdout: read(&out_path),
        stderr: read(&err_path),
        success: status.success(),
        peak_rss_mb: peak,
        elapsed: started.elapsed(),
    }
}

/// `(file, message)` of every warning line of the summary (`- file[:line]: message`).
fn warnings(summary: &str) -> Vec<(String, String)> {
    let start = summary.find("\nWarnings for").map_or(summary.len(), |i| i);
    summary[start..]
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .map(|l| {
            // The file may itself hold `: ` only in absolute paths we write, which do not.
            let (file, message) = l.split_once(": ").unwrap_or((l, ""));
            let file = match file.rsplit_once(':') {
                Some((f, line)) if line.chars().all(|c| c.is_ascii_digit()) => f,
                _ => file,
            };
            (file.to_string(), message.to_string())
        })
        .collect()
}

fn names_of_kind(snap: &Snapshot, kind: NodeKind, fqn: bool) -> std::collections::BTreeSet<String> {
    let ids: Vec<NodeId> = snap
        .product_nodes_of_kind("shop", kind)
        .iter()
        .map(NodeId)
        .collect();
    snap.nodes(&ids)
        .expect("read nodes")
        .into_iter()
        .flatten()
        .map(|n| {
            if fqn {
                n.fqn.clone().unwrap_or_default()
            } else {
                n.name.clone()
            }
        })
        .collect()
}

#[test]
fn hostile_sources_are_indexed_without_panic_hang_or_blow_up_and_every_skip_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    // To look into a failure: SEMGRAPH_HOSTILE_CORPUS=DIR writes the corpus there and stops.
    let keep = std::env::var_os("SEMGRAPH_HOSTILE_CORPUS").map(PathBuf::from);
    let root = keep.as_deref().unwrap_or(dir.path());
    let repo = root.join("shop");
    let wiki = root.join("wiki");
    let outside = root.join("outside");
    let mut c = Corpus::default();
    valid_product(&repo, &mut c);
    broken_java(&repo, &mut c);
    encodings(&repo, &wiki, &mut c);
    big_files(&repo, &mut c);
    deep_nesting(&repo, &wiki, &root.join("jira"), &mut c);
    unclosed_nesting(&repo, &wiki, &mut c);
    big_migration(&repo, &mut c);
    bombs(&repo, &mut c);
    file_system(&repo, &outside, &mut c);
    let config = company(root, &mut c);
    write(
        &wiki,
        "good.md",
        "# Shop guide\n\nThe `OrderService` answers `GET /orders/{id}`.\n",
    );
    if keep.is_some() {
        eprintln!(
            "corpus written to {}; index it with `semgraph index --config {}`",
            root.display(),
            config.display()
        );
        return;
    }

    let run = index(&config, root);
    // Restore permissions so the temp dir can be removed (and so nothing is left behind).
    for p in [
        repo.join(JAVA_DIR).join("lockeddir"),
        repo.join(JAVA_DIR).join("Locked.java"),
    ] {
        let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
    }
    assert!(
        run.success,
        "semgraph index failed.\nstderr:\n{}\nstdout (tail):\n{}",
        run.stderr,
        &run.stdout[run.stdout.len().saturating_sub(4000)..]
    );
    assert!(!run.stderr.contains("panicked"), "a panic:\n{}", run.stderr);
    let warned = warnings(&run.stdout);

    // Every bad input that must be named is named, with its reason.
    let mut missing = Vec::new();
    for bad in &c.bad {
        let Some(reason) = bad.reason else { continue };
        let hit = warned.iter().any(|(file, message)| {
            // A walk error names its path in the message, under the repository root.
            (file.ends_with(&bad.file) || message.contains(&bad.file)) && message.contains(reason)
        });
        if !hit {
            missing.push(format!("{} ({}, expected \"{reason}\")", bad.what, bad.file));
        }
    }
    let shown: Vec<String> = warned
        .iter()
        .filter(|(_, m)| !m.starts_with("skipped statement") && !m.contains("unrecognised statement"))
        .take(150)
        .map(|(f, m)| format!("{f}: {m}"))
        .collect();
    assert!(
        missing.is_empty(),
        "bad inputs without their warning:\n  {}\nwarnings (first 150 but SQL):\n  {}",
        missing.join("\n  "),
        shown.join("\n  ")
    );
    // A BOM is valid UTF-8: those files carry no warning at all.
    for bom in [
        "BomGreeter.java",
        "V2__bom.sql",
        "application-bom.properties",
        "bom.md",
    ] {
        let hits: Vec<_> = warned.iter().filter(|(f, _)| f.ends_with(bom)).collect();
        assert!(hits.is_empty(), "a BOM file was warned about: {hits:?}");
    }

    // Everything good is in the store.
    let store = Store::open_read_only(root.join("store")).expect("open the store");
    let snap = store.snapshot();
    let types = names_of_kind(&snap, NodeKind::Type, true);
    let lost: Vec<_> = c.good_types.iter().filter(|t| !types.contains(*t)).collect();
    assert!(lost.is_empty(), "types lost: {lost:?}");
    let tables = names_of_kind(&snap, NodeKind::Table, false);
    let lost: Vec<_> = c.good_tables.iter().filter(|t| !tables.contains(*t)).collect();
    assert!(
        lost.is_empty(),
        "{} of {} tables lost, e.g. {:?}",
        lost.len(),
        c.good_tables.len(),
        &lost[..lost.len().min(10)]
    );
    let endpoints = names_of_kind(&snap, NodeKind::Endpoint, false);
    for e in ["GET /orders/{id}", "POST /refunds"] {
        assert!(endpoints.contains(e), "endpoint {e} lost: {endpoints:?}");
    }
    let keys = names_of_kind(&snap, NodeKind::ConfigKey, false);
    for k in ["shop.greeting", "bom.key", "spring.application.name"] {
        assert!(keys.contains(k), "config key {k} lost");
    }
    let pages = names_of_kind(&snap, NodeKind::WikiPage, false);
    for p in ["Shop guide", "Bom page"] {
        assert!(pages.contains(p), "wiki page {p} lost: {pages:?}");
    }
    let issues = names_of_kind(&snap, NodeKind::JiraIssue, true);
    assert!(
        issues.iter().any(|i| i.contains("SHOP-1")),
        "Jira issue lost: {issues:?}"
    );
    // The controller's call and the service's read survived their neighbours.
    let find = snap.find_by_fqn("com.acme.shop.OrderService.find").expect("find");
    assert_eq!(find.len(), 1, "OrderService.find");
    let adjacency = snap.adjacency();
    assert!(
        adjacency.degree(find[0], Direction::In, EdgeKind::Calls) > 0,
        "OrderController.get → OrderService.find lost"
    );
    assert!(
        adjacency.degree(find[0], Direction::Out, EdgeKind::Reads) > 0,
        "OrderService.find reads orders: lost"
    );

    // Nothing from outside the root reached the store.
    c.absent
        .extend(["OutsideSecret", "outside_secret", "Cafe", "Pipe", "Binary"].map(String::from));
    for name in &c.absent {
        let found = snap.find_by_name(name).expect("find by name");
        assert!(found.is_empty(), "{name} reached the store");
    }
    assert!(
        !keys
            .iter()
            .any(|k| k.starts_with("outside.") || k.contains("root:")),
        "outside config reached the store"
    );
    assert!(
        !run.stdout.contains("outside-secret-token"),
        "outside content in the summary"
    );

    assert!(
        run.peak_rss_mb < RSS_LIMIT_MB,
        "semgraph index peaked at {} MB (limit {RSS_LIMIT_MB} MB)",
        run.peak_rss_mb
    );
    eprintln!(
        "hostile corpus: {} bad inputs ({} named in warnings), {} warnings, {} good tables and {} good types kept; \
         index took {:.1}s, peak RSS {} MB",
        c.bad.len(),
        c.bad.iter().filter(|b| b.reason.is_some()).count(),
        warned.len(),
        c.good_tables.len(),
        c.good_types.len(),
        run.elapsed.as_secs_f64(),
        run.peak_rss_mb
    );
    for note in &c.notes {
        eprintln!("note: {note}");
    }
}
