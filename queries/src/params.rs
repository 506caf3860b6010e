//! Strict parameter checking against the catalog.
//!
//! An agent that misspells `fqn` as `name` must hear so, with the right name, rather than
//! get an empty answer it will trust. Unknown, missing and ill-typed parameters are errors;
//! defaults come from the catalog, so they are the ones discover prints.

use std::collections::BTreeMap;

use crate::catalog::{EndpointSpec, ParamType};
use crate::error::QueryError;

/// Parameters the pagination layer owns: accepted everywhere, ignored by queries.
const PAGING: &[&str] = &["page", "page_size"];

/// Checked parameters of one request, defaults filled in.
#[derive(Debug)]
pub(crate) struct Args {
    values: BTreeMap<&'static str, String>,
}

impl Args {
    pub(crate) fn check(spec: &EndpointSpec, given: &BTreeMap<String, String>) -> Result<Args, QueryError> {
        for name in given.keys() {
            if spec.param(name).is_none() && !PAGING.contains(&name.as_str()) {
                // An unknown name beside a missing required one (`name` for `fqn`) most
                // likely meant that one, however little the two names look alike.
                let mut missing = spec
                    .params
                    .iter()
                    .filter(|p| p.required && !given.contains_key(p.name));
                let meant = match (missing.next(), missing.next()) {
                    (Some(only), None) => Some(only.name),
                    _ => None,
                };
                return Err(QueryError::unknown_parameter(spec, name, meant));
            }
        }
        for name in PAGING {
            if let Some(v) = given.get(*name) {
                if v.trim().parse::<u64>().map_or(true, |n| n == 0) {
                    return Err(QueryError::parameter(
                        spec,
                        name,
                        &format!("`{name}` must be a whole number of 1 or more, not `{v}`"),
                    ));
                }
            }
        }
        let mut values = BTreeMap::new();
        for p in spec.params {
            if let ParamType::Text { max_bytes } = p.ty {
                // A document is kept as sent: its last line may be a lone space (a diff's
                // context line of an empty line).
                match given.get(p.name).filter(|v| !v.trim().is_empty()) {
                    Some(v) if v.len() > max_bytes => {
                        return Err(QueryError::parameter(
                            spec,
                            p.name,
                            &format!(
                                "`{}` is {} bytes long, over its limit of {max_bytes} bytes",
                                p.name,
                                v.len()
                            ),
                        ))
                    }
                    Some(v) => {
                        values.insert(p.name, v.clone());
                    }
                    None if p.required => {
                        return Err(QueryError::parameter(
                            spec,
                            p.name,
                            &format!("missing required parameter `{}`", p.name),
                        ))
                    }
                    None => {}
                }
                continue;
            }
            let value = match given.get(p.name).map(|v| v.trim()).filter(|v| !v.is_empty()) {
                Some(v) => v.to_string(),
                None if p.required => {
                    return Err(QueryError::parameter(
                        spec,
                        p.name,
                        &format!("missing required parameter `{}`", p.name),
                    ))
                }
                None => match p.default {
                    Some(d) => d.to_string(),
                    None => continue,
                },
            };
            let problem = match p.ty {
                ParamType::String | ParamType::Text { .. } => None,
                ParamType::Integer { min, max } => match value.parse::<i64>() {
                    Ok(n) if (min..=max).contains(&n) => None,
                    Ok(n) => Some(format!("`{}` must be between {min} and {max}, not {n}", p.name)),
                    Err(_) => Some(format!("`{}` must be a whole number, not `{value}`", p.name)),
                },
                ParamType::Boolean => (!matches!(value.as_str(), "true" | "false"))
                    .then(|| format!("`{}` must be true or false, not `{value}`", p.name)),
                ParamType::Enum(options) => {
                    let hit = options.iter().find(|o| o.eq_ignore_ascii_case(&value));
                    match hit {
                        Some(o) => {
                            values.insert(p.name, o.to_string());
                            continue;
                        }
                        None => Some(format!(
                            "`{}` must be one of {}, not `{value}`",
                            p.name,
                            options.join(", ")
                        )),
                    }
                }
            };
            if let Some(problem) = problem {
                return Err(QueryError::parameter(spec, p.name, &problem));
            }
            values.insert(p.name, value);
        }
        Ok(Args { values })
    }

    /// A parameter's value (required ones are always present).
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// A required parameter (checked present by [`Args::check`]).
    pub(crate) fn text(&self, name: &str) -> &str {
        self.get(name).unwrap_or_default()
    }

    /// An integer parameter with a default (checked by [`Args::check`]).
    pub(crate) fn int(&self, name: &str) -> u32 {
        self.get(name).and_then(|v| v.parse().ok()).unwrap_or(1)
    }

    /// A boolean parameter.
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.get(name) == Some("true")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::endpoint_spec;

    fn given(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn a_document_parameter_is_kept_as_sent_and_bounded_in_bytes() {
        let spec = endpoint_spec("recipes", "change-impact").expect("change-impact");
        let diff = "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+b\n \n";
        let args = Args::check(spec, &given(&[("diff", diff)])).expect("valid");
        assert_eq!(
            args.get("diff"),
            Some(diff),
            "not trimmed: the last context line is a space"
        );
        let big = "x".repeat(crate::catalog::DIFF_MAX_BYTES + 1);
        let err = Args::check(spec, &given(&[("diff", &big)])).expect_err("too long");
        assert!(err.body().contains("parameter `diff`"), "{}", err.body());
    }

    #[test]
    fn an_unknown_name_beside_a_missing_required_one_is_pointed_to_it() {
        let callers = endpoint_spec("code", "callers").expect("code/callers");
        let err = Args::check(callers, &given(&[("name", "a.B.c")])).expect_err("unknown");
        assert!(err.body().contains("Did you mean `fqn`?"), "{}", err.body());
        // With the required one given, only a near name is suggested.
        let err = Args::check(callers, &given(&[("fqn", "a.B.c"), ("name", "x")])).expect_err("unknown");
        assert!(!err.body().contains("Did you mean `fqn`?"), "{}", err.body());
        let err = Args::check(callers, &given(&[("fqn", "a.B.c"), ("dept", "2")])).expect_err("unknown");
        assert!(err.body().contains("Did you mean `depth`?"), "{}", err.body());
    }
}
