//! The fuzz targets on stable: every committed crasher, the committed corpus, the fixtures
//! as seeds, and a few seconds of seeded mutations per target.
//!
//! The real fuzzing runs under cargo-fuzz with a nightly toolchain (`fuzz/README.md`); CI
//! has neither, and building the fuzz crate would build RocksDB a second time. The target
//! bodies live in the libraries (`semgraph_indexer::fuzzing`, `semgraph_queries::fuzzing`),
//! so this test runs the very same code with the workspace's build: a crasher committed under
//! `fuzz/regressions/<target>/` fails here until it is fixed, and the mutation loop catches
//! the shallow regressions a new change brings.
//!
//! `SEMGRAPH_FUZZ_SECONDS` sets the mutation time per target (default 2; `.ci/fuzz-smoke`
//! runs longer). The seed is fixed per target and the mutation count depends only on time,
//! so a failure prints the input and writes it to a file to commit as a regression.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every file under `dir` (recursively), sorted by path.
fn files_under(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() && keep(&p) => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

fn ext_is(exts: &'static [&'static str]) -> impl Fn(&Path) -> bool {
    move |p: &Path| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
    }
}

/// A target: its body, the fixtures that seed it (with the prefix byte(s) its body reads
/// first), and tokens the mutator splices in.
struct Target {
    name: &'static str,
    body: fn(&[u8]),
    seeds: Vec<Vec<u8>>,
    tokens: &'static [&'static str],
}

fn prefixed(prefix: &[u8], files: Vec<PathBuf>) -> Vec<Vec<u8>> {
    files
        .into_iter()
        .filter_map(|p| std::fs::read(p).ok())
        .map(|b| [prefix, &b].concat())
        .collect()
}

fn targets() -> Vec<Target> {
    let fixtures = root().join("fixtures");
    let mut out = Vec::new();
    for (name, body) in semgraph_indexer::fuzzing::TARGETS
        .iter()
        .chain(semgraph_queries::fuzzing::TARGETS)
    {
        let (seeds, tokens): (Vec<Vec<u8>>, &'static [&'static str]) = match *name {
            "java" => (
                prefixed(b"", files_under(&fixtures, &ext_is(&["java"]))),
                &[
                    "class ",
                    "interface ",
                    "record ",
                    "enum ",
                    "@interface ",
                    "(",
                    ")",
                    "{",
                    "}",
                    "<",
                    ">",
                    "->",
                    "::",
                    "\"\"\"",
                    "/*",
                    "*/",
                    "//",
                    "\"",
                    "'",
                    "@",
                    "switch (x) { case 1 -> 2; }",
                    "new ",
                    ".",
                    ";",
                    ",",
                    "\\u0041",
                    "var ",
                    "this.",
                    "super(",
                    "String.format(\"%s\", a)",
                    "+",
                ],
            ),
            "sql" => (
                [0u8, 1, 2, 3]
                    .iter()
                    .flat_map(|d| prefixed(&[*d], files_under(&fixtures, &ext_is(&["sql"]))))
                    .collect(),
                &[
                    "CREATE TABLE ",
                    "CREATE INDEX ",
                    "ALTER TABLE ",
                    " ADD CONSTRAINT ",
                    " PRIMARY KEY",
                    " REFERENCES ",
                    " UNIQUE",
                    " NOT NULL",
                    " DEFAULT ",
                    "(",
                    ")",
                    ",",
                    ";",
                    "'",
                    "\"",
                    "`",
                    "$$",
                    "$tag$",
                    "--",
                    "/*",
                    "*/",
                    "DELIMITER //\n",
                    "//",
                    "\\.",
                    "COPY t FROM stdin;\n",
                    "VARCHAR(10)",
                    "NUMERIC(12, 2)",
                    "CHECK (",
                    "GENERATED ALWAYS AS IDENTITY",
                    "AUTO_INCREMENT",
                    "ON DELETE CASCADE",
                    "\n",
                ],
            ),
            "config" => (
                {
                    let mut s = prefixed(b"\x00", files_under(&fixtures, &ext_is(&["properties"])));
                    s.extend(prefixed(
                        b"\x01",
                        files_under(&fixtures, &ext_is(&["yml", "yaml"])),
                    ));
                    s.extend(prefixed(b"\x02", files_under(&fixtures, &ext_is(&["env"]))));
                    s
                },
                &[
                    "${",
                    "}",
                    ":",
                    "=",
                    "\n",
                    "---\n",
                    "#---\n",
                    "&a ",
                    "*a",
                    "<<: ",
                    "[",
                    "]",
                    "{",
                    "}",
                    "- ",
                    "  ",
                    "\\\n",
                    "\"",
                    "'",
                    "!!str ",
                    "|\n",
                    ">\n",
                    "spring.profiles: p\n",
                    "${a:${b}}",
                ],
            ),
            "pagination" => (
                prefixed(
                    &[200, 0],
                    files_under(&root().join("tests/golden"), &ext_is(&["snap"])),
                ),
                &[
                    "```",
                    "~~~",
                    "````java\n",
                    "```\n",
                    "## ",
                    "\n",
                    "\r\n",
                    "   ```",
                    "    ```",
                    "| a | b |\n",
                    "`",
                    "é",
                    "\u{1F600}",
                ],
            ),
            _ => (
                Vec::new(),
                &["page", "page_size", "fqn", "depth", "true", "1", "\u{0}"],
            ),
        };
        out.push(Target {
            name,
            body: *body,
            seeds,
            tokens,
        });
    }
    out
}

/// One mutation of `input` (bit flips, byte edits, token and chunk splices, truncation).
fn mutate(rng: &mut ChaCha8Rng, input: &[u8], pool: &[Vec<u8>], tokens: &[&str]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..rng.random_range(1..=4) {
        let len = v.len();
        match rng.random_range(0..8) {
            0 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] ^= 1 << rng.random_range(0..8);
            }
            1 if len > 0 => {
                let i = rng.random_range(0..len);
                v[i] = rng.random();
            }
            2 => {
                let t = tokens[rng.random_range(0..tokens.len())].as_bytes();
                let i = rng.random_range(0..=len);
                v.splice(i..i, t.iter().copied());
            }
            3 if len > 0 => {
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(1..=64)).min(len);
                v.drain(a..b);
            }
            4 if len > 0 => {
                // Repeat a chunk many times: deep nesting and long runs.
                let a = rng.random_range(0..len);
                let b = (a + rng.random_range(1..=8)).min(len);
                let chunk = v[a..b].to_vec();
                let times = rng.random_range(2..=200);
                v.splice(b..b, chunk.iter().copied().cycle().take(chunk.len() * times));
            }
            5 if !pool.is_empty() => {
                let other = &pool[rng.random_range(0..pool.len())];
                if !other.is_empty() {
                    let a = rng.random_range(0..other.len());
                    let b = (a + rng.random_range(1..=256)).min(other.len());
                    let i = rng.random_range(0..=len);
                    v.splice(i..i, other[a..b].iter().copied());
                }
            }
            6 if len > 0 => v.truncate(rng.random_range(0..len)),
            _ => {
                let i = rng.random_range(0..=len);
                let n = rng.random_range(1..=8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.random()).collect();
                v.splice(i..i, bytes);
            }
        }
    }
    v.truncate(256 << 10);
    v
}

/// Runs `body` on `input`; on a panic, saves the input and fails with its path.
fn run_one(target: &str, body: fn(&[u8]), input: &[u8], origin: &str) {
    if catch_unwind(AssertUnwindSafe(|| body(input))).is_ok() {
        return;
    }
    let dir = std::env::temp_dir().join("semgraph-fuzz-smoke");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{target}-crash-{:016x}", fxhash(input)));
    let _ = std::fs::write(&path, input);
    panic!(
        "fuzz target `{target}` failed on {origin} ({} bytes), saved as {}; commit it under \
         fuzz/regressions/{target}/ once fixed. Input (lossy): {:?}",
        input.len(),
        path.display(),
        String::from_utf8_lossy(&input[..input.len().min(2000)])
    );
}

fn fxhash(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

#[test]
fn fuzz_targets_hold_on_regressions_corpus_and_seeded_mutations() {
    let seconds: u64 = std::env::var("SEMGRAPH_FUZZ_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    let fuzz = root().join("fuzz");
    let mut report = Vec::new();
    for (n, t) in targets().into_iter().enumerate() {
        let regressions = files_under(&fuzz.join("regressions").join(t.name), &|_| true);
        for path in &regressions {
            let input = std::fs::read(path).expect("read regression");
            run_one(t.name, t.body, &input, &path.display().to_string());
        }
        let corpus = files_under(&fuzz.join("corpus").join(t.name), &|_| true);
        let mut pool: Vec<Vec<u8>> = corpus.iter().filter_map(|p| std::fs::read(p).ok()).collect();
        pool.extend(t.seeds);
        for (i, input) in pool.iter().enumerate() {
            run_one(t.name, t.body, input, &format!("corpus entry {i}"));
        }
        if pool.is_empty() {
            pool.push(Vec::new());
        }
        let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_f022 + n as u64);
        let started = Instant::now();
        let mut execs = 0u64;
        while started.elapsed() < Duration::from_secs(seconds) {
            let base = &pool[rng.random_range(0..pool.len())];
            let input = mutate(&mut rng, base, &pool, t.tokens);
            run_one(t.name, t.body, &input, &format!("mutation {execs}"));
            execs += 1;
        }
        report.push(format!(
            "{}: {} regressions, {} corpus inputs, {execs} mutations in {seconds}s",
            t.name,
            regressions.len(),
            pool.len()
        ));
    }
    eprintln!("fuzz smoke:\n  {}", report.join("\n  "));
}
