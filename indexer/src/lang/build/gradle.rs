//! Gradle build and settings scripts, Groovy and Kotlin DSL alike: the declarative lines
//! of a `dependencies { … }` block and the `include` lines of a settings script.
//!
//! A script is a program, so only what is written as data is read: a configuration name
//! followed by a string coordinate (`implementation("g:a:v")`, `api 'g:a'`), by named
//! arguments (`implementation(group = "g", name = "a", version = "v")`, Groovy's
//! `group: 'g', name: 'a'`), wrapped in `platform(…)`/`enforcedPlatform(…)`, or a
//! `project(":x")`. Comments and strings are respected; anything computed (a variable, a
//! version catalog alias `libs.x`) is left out and not guessed.

use super::{BuildFile, Dependency};

/// Configurations whose dependencies a module builds or runs with.
const CONFIGURATIONS: &[&str] = &[
    "implementation",
    "api",
    "compileOnly",
    "runtimeOnly",
    "compile",
    "runtime",
    "annotationProcessor",
    "kapt",
    "ksp",
    "developmentOnly",
    "testImplementation",
    "testCompileOnly",
    "testRuntimeOnly",
    "testCompile",
    "testRuntime",
    "integrationTestImplementation",
];

/// Reads the dependencies of a `build.gradle` or `build.gradle.kts`.
pub(crate) fn parse_gradle_build(text: &str) -> BuildFile {
    let mut out = BuildFile::default();
    let code = strip_comments(text);
    for line in code.lines() {
        let line = line.trim();
        if let Some(release) = java_release_line(line) {
            out.java_release = out.java_release.max(Some(release));
        }
        let Some((config, rest)) = configuration(line) else {
            continue;
        };
        let rest = rest.trim_start();
        let scope = if config.starts_with("test") || config.starts_with("integrationTest") {
            "test".to_string()
        } else {
            config.to_string()
        };
        if let Some(path) = project_reference(rest) {
            out.project_dependencies.push(path);
            continue;
        }
        if let Some(dep) = coordinate(rest, &scope) {
            out.dependencies.push(dep);
        }
    }
    out
}

/// The Java release a line of a build script sets as data: `sourceCompatibility = '21'`
/// (or `JavaVersion.VERSION_21`, `targetCompatibility`, `java.sourceCompatibility`),
/// `languageVersion = JavaLanguageVersion.of(21)` (or `.set(…)`), `jvmToolchain(21)`,
/// `options.release = 21` (or `.set(21)`).
fn java_release_line(line: &str) -> Option<u32> {
    const KEYS: &[&str] = &[
        "sourceCompatibility",
        "targetCompatibility",
        "languageVersion",
        "jvmToolchain",
        "release",
    ];
    KEYS.iter()
        .flat_map(|k| line.match_indices(k).map(move |(at, _)| (at, k.len())))
        .filter(|&(at, _)| {
            // A whole name: `options.release`, not `prerelease`.
            line[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric() && c != '_')
        })
        .filter_map(|(at, len)| release_after(&line[at + len..]))
        .max()
}

/// The release written right after a key: ` = 21`, `.set(21)`, `(21)`,
/// ` = JavaLanguageVersion.of(21)`, ` = JavaVersion.VERSION_21`.
fn release_after(rest: &str) -> Option<u32> {
    let value = rest
        .trim_start()
        .trim_start_matches(".set")
        .trim_start_matches(['=', '(', ' '])
        .trim();
    let value = value
        .strip_prefix("JavaLanguageVersion.of(")
        .unwrap_or(value)
        .trim_start_matches("JavaVersion.");
    let end = value
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '"' || c == '\''))
        .unwrap_or(value.len());
    super::java_release(&value[..end])
}

/// Reads the modules a `settings.gradle(.kts)` includes, as folders (`:a:b` → `a/b`).
pub(crate) fn parse_gradle_settings(text: &str) -> BuildFile {
    let mut out = BuildFile::default();
    let code = strip_comments(text);
    for line in code.lines() {
        let line = line.trim();
        let Some(rest) = line.strip_prefix("include") else {
            continue;
        };
        if !rest.starts_with([' ', '(', '\t']) {
            continue;
        }
        for s in strings(rest) {
            let folder = s.trim_start_matches(':').replace(':', "/");
            if !folder.is_empty() && !out.modules.contains(&folder) {
                out.modules.push(folder);
            }
        }
    }
    out
}

/// `implementation(…)`, `implementation '…'`: the configuration and what follows it.
fn configuration(line: &str) -> Option<(&str, &str)> {
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let (word, rest) = line.split_at(end);
    if !CONFIGURATIONS.contains(&word) {
        return None;
    }
    let next = rest.chars().next()?;
    (next == '(' || next == ' ' || next == '\t').then_some((word, rest))
}

/// `project(":x")` / `project(path: ':x')` → `x`.
fn project_reference(rest: &str) -> Option<String> {
    let inner = rest.trim_start_matches('(').trim_start();
    let args = inner.strip_prefix("project")?;
    let first = strings(args).into_iter().next()?;
    Some(first.trim_start_matches(':').replace(':', "/"))
}

/// A dependency from a string coordinate or named arguments.
fn coordinate(rest: &str, scope: &str) -> Option<Dependency> {
    let rest = rest.trim_start_matches('(').trim_start();
    let rest = ["enforcedPlatform", "platform", "testFixtures"]
        .iter()
        .find_map(|w| rest.strip_prefix(w))
        .map(|r| r.trim_start_matches('(').trim_start())
        .unwrap_or(rest);
    let quote = rest.chars().next()?;
    if quote == '"' || quote == '\'' {
        let s = strings(rest).into_iter().next()?;
        if s.contains('$') {
            return None;
        }
        let mut parts = s.split(':');
        let group = parts.next()?.trim().to_string();
        let artifact = parts.next()?.trim().to_string();
        let version = parts
            .next()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty());
        if group.is_empty() || artifact.is_empty() {
            return None;
        }
        return Some(Dependency {
            group,
            artifact,
            version,
            scope: scope.to_string(),
        });
    }
    let named = |key: &str| -> Option<String> {
        let at = rest.find(key)?;
        let after = rest[at + key.len()..].trim_start();
        let after = after.strip_prefix(['=', ':'])?.trim_start();
        let s = strings(after).into_iter().next()?;
        (!s.contains('$')).then_some(s)
    };
    Some(Dependency {
        group: named("group")?,
        artifact: named("name")?,
        version: named("version"),
        scope: scope.to_string(),
    })
}

/// The string literals of `text`, in order (single or double quoted, escapes kept).
fn strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '"' && c != '\'' {
            continue;
        }
        let mut s = String::new();
        let mut escaped = false;
        for d in chars.by_ref() {
            if escaped {
                s.push(d);
                escaped = false;
            } else if d == '\\' {
                escaped = true;
            } else if d == c {
                break;
            } else {
                s.push(d);
            }
        }
        out.push(s);
    }
    out
}

/// `text` without `//` and `/* … */` comments (strings kept whole; lines kept).
fn strip_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    let mut quote: Option<u8> = None;
    while i < b.len() {
        let c = b[i];
        if let Some(q) = quote {
            out.push(c as char);
            if c == b'\\' && i + 1 < b.len() {
                out.push(b[i + 1] as char);
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == b'"' || c == b'\'' {
            quote = Some(c);
            out.push(c as char);
            i += 1;
        } else if text[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if text[i..].starts_with("/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |p| i + 2 + p + 2);
            out.extend(text[i..end].chars().filter(|&c| c == '\n'));
            i = end;
        } else {
            // Multi-byte characters are copied whole.
            let ch = text[i..].chars().next().unwrap_or(' ');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_java_release_is_read_where_the_script_writes_it_as_data() {
        let release = |text: &str| parse_gradle_build(text).java_release;
        assert_eq!(
            release("java {\n  sourceCompatibility = JavaVersion.VERSION_21\n}"),
            Some(21)
        );
        assert_eq!(release("sourceCompatibility = '1.8'"), Some(8));
        assert_eq!(
            release("java.sourceCompatibility = JavaVersion.VERSION_1_8"),
            Some(8)
        );
        assert_eq!(
            release("java { toolchain { languageVersion = JavaLanguageVersion.of(21) } }"),
            Some(21)
        );
        assert_eq!(
            release("java {\n toolchain {\n  languageVersion.set(JavaLanguageVersion.of(17))\n }\n}"),
            Some(17)
        );
        assert_eq!(release("kotlin { jvmToolchain(21) }"), Some(21));
        assert_eq!(
            release("tasks.withType<JavaCompile> { options.release.set(21) }"),
            Some(21)
        );
        // Computed, commented out, or another word that contains a key: no release.
        assert_eq!(release("sourceCompatibility = javaVersion"), None);
        assert_eq!(release("// sourceCompatibility = '21'"), None);
        assert_eq!(release("prerelease = 21"), None);
    }

    #[test]
    fn build_scripts_declare_dependencies_in_every_usual_notation() {
        let kts = parse_gradle_build(
            r#"
plugins { id("org.springframework.boot") version "3.3.0" }
dependencies {
    implementation("org.springframework.boot:spring-boot-starter-web")
    implementation(platform("org.springframework.cloud:spring-cloud-dependencies:2023.0.1"))
    // implementation("commented:out:1")
    implementation(project(":shared:model"))
    runtimeOnly(group = "org.postgresql", name = "postgresql", version = "42.7.3")
    testImplementation("org.junit.jupiter:junit-jupiter:${junitVersion}")
    implementation(libs.jackson.kotlin)
}
"#,
        );
        let deps: Vec<(&str, &str, Option<&str>, &str)> = kts
            .dependencies
            .iter()
            .map(|d| {
                (
                    d.group.as_str(),
                    d.artifact.as_str(),
                    d.version.as_deref(),
                    d.scope.as_str(),
                )
            })
            .collect();
        assert_eq!(
            deps,
            [
                (
                    "org.springframework.boot",
                    "spring-boot-starter-web",
                    None,
                    "implementation"
                ),
                (
                    "org.springframework.cloud",
                    "spring-cloud-dependencies",
                    Some("2023.0.1"),
                    "implementation"
                ),
                ("org.postgresql", "postgresql", Some("42.7.3"), "runtimeOnly"),
            ],
            "a computed version or a catalog alias is left out"
        );
        assert_eq!(kts.project_dependencies, ["shared/model"]);
        let groovy = parse_gradle_build(
            "dependencies {\n  implementation 'org.springframework.boot:spring-boot-starter-data-jpa'\n  compileOnly group: 'org.projectlombok', name: 'lombok'\n}\n",
        );
        assert_eq!(groovy.dependencies.len(), 2);
        assert_eq!(groovy.dependencies[1].artifact, "lombok");
    }

    #[test]
    fn settings_scripts_include_modules_as_folders() {
        let kts = parse_gradle_settings(
            "rootProject.name = \"shop\"\ninclude(\":orders\", \":billing:core\")\n/* include(\":old\") */\ninclude 'legacy'\n",
        );
        assert_eq!(kts.modules, ["orders", "billing/core", "legacy"]);
    }
}
