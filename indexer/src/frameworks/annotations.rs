//! Reading annotations the one way every recogniser reads them: by short name (an
//! annotation may be written `Name` or `a.b.Name`), attribute values with arrays
//! flattened, and routes joined from a prefix and a path.

use crate::facts::Annotation;

/// The short name of an annotation or type written `a.b.Name` or `Name`.
pub(crate) fn short(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// The annotation called `name` (short name), if present.
pub(crate) fn find<'a>(annotations: &'a [Annotation], name: &str) -> Option<&'a Annotation> {
    annotations.iter().find(|a| short(&a.name) == name)
}

/// Whether an annotation called `name` (short name) is present.
pub(crate) fn has(annotations: &[Annotation], name: &str) -> bool {
    find(annotations, name).is_some()
}

/// Every value of the attributes `keys` of `a`, arrays flattened.
pub(crate) fn values(a: &Annotation, keys: &[&str]) -> Vec<String> {
    a.args
        .iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .flat_map(|(_, v)| v.iter().cloned())
        .collect()
}

/// The values of attribute `key` of `a`, as written.
pub(crate) fn arg<'a>(a: &'a Annotation, key: &str) -> Option<&'a [String]> {
    a.args.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_slice())
}

/// `prefix` + `path`, with exactly one slash between and a leading slash.
pub(crate) fn join(prefix: &str, path: &str) -> String {
    let joined = format!(
        "{}/{}",
        prefix.trim_end_matches('/'),
        path.trim_start_matches('/')
    );
    let joined = joined.trim_end_matches('/');
    if joined.starts_with('/') {
        joined.to_string()
    } else {
        format!("/{joined}")
    }
}

#[cfg(test)]
mod tests {
    use super::join;

    #[test]
    fn paths_join_with_one_slash() {
        assert_eq!(join("/api/orders", "/{id}"), "/api/orders/{id}");
        assert_eq!(join("/api/orders/", ""), "/api/orders");
        assert_eq!(join("", "search"), "/search");
        assert_eq!(join("", ""), "/");
    }
}
