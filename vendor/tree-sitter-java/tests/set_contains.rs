//! The one change to upstream's grammar, checked whole: the lexer's character-set lookup
//! with its ASCII fast path answers as upstream's binary search does for every code point
//! of every set the generated parser asks about. The check is C (`check/set_contains.c`,
//! which includes the parser itself), compiled here with the system's C compiler.

use std::path::Path;
use std::process::Command;

#[test]
fn the_ascii_fast_path_answers_as_upstream_on_every_code_point() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let binary = Path::new(env!("CARGO_TARGET_TMPDIR")).join("set_contains_check");
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let compiled = Command::new(&compiler)
        .args(["-O1", "-w", "-o"])
        .arg(&binary)
        .arg(crate_dir.join("check/set_contains.c"))
        .output()
        .unwrap_or_else(|e| panic!("running the C compiler `{compiler}`: {e}"));
    assert!(
        compiled.status.success(),
        "compiling check/set_contains.c failed:\n{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let run = Command::new(&binary).output().expect("running the check");
    let said = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("0 disagreement(s)"), "{said}");
}
