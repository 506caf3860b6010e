//! Tests of the type model: signatures, the JDK model, class files compiled by javac,
//! dependency resolution over a fake local repository.

use super::jdk::jdk;
use super::model::TypeSource;

#[test]
fn jdk_probe() {
    let m = jdk();
    let mut n = 0;
    for p in m.packages() {
        let c = m.package_types(p).count();
        n += c;
        eprintln!("{p}: {c}");
    }
    eprintln!("top-level {n} of {}", m.len());
    for f in [
        "java.util.ArrayList",
        "java.util.Map.Entry",
        "java.lang.String",
        "java.lang.AbstractStringBuilder",
        "java.sql.Connection",
    ] {
        eprintln!("{f}: {:?}", m.get(f).map(|t| (t.kind, t.flags, t.methods.len())));
    }
    assert!(m.by_binary("java.util.ArrayList").is_some());
}
