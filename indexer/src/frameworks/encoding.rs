//! Findings as bytes, so an incremental re-index can keep what the recognisers found in a
//! file (`pipeline/cache.rs`) rather than decode the file's facts and recognise it again.
//!
//! Encoding is derived. Decoding is derived too, except for the findings that carry a
//! name from the recognisers' fixed vocabulary as a `&'static str` (an endpoint's kind, a
//! client, a broker, how a table or key was found, a counter's name): those names are
//! read back as text and interned once per process, so a decoded finding is the same value
//! the recogniser made. The vocabulary is the recognisers' literals, a few dozen names; a
//! name past [`MAX_NAMES`] is refused as a decode error (a cache miss), so bytes that are
//! not this build's findings cannot grow the process.

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use bincode::de::Decoder;
use bincode::error::DecodeError;
use bincode::Decode;

use super::{ConfigUse, Endpoint, EntryPoint, Findings, HttpCall, TableUse, TopicUse};

/// How many distinct names the interner keeps at most.
const MAX_NAMES: usize = 4096;

/// `name` as the one `&'static str` this process holds for it.
fn intern(name: String) -> Result<&'static str, DecodeError> {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let names = NAMES.get_or_init(Default::default);
    let mut names = names
        .lock()
        .map_err(|_| DecodeError::Other("the name interner is poisoned"))?;
    if let Some(known) = names.get(name.as_str()) {
        return Ok(known);
    }
    if names.len() >= MAX_NAMES {
        return Err(DecodeError::Other("more recogniser names than any build has"));
    }
    // Bounded above: at most MAX_NAMES short names live for the process.
    let kept: &'static str = Box::leak(name.into_boxed_str());
    names.insert(kept);
    Ok(kept)
}

/// One name of the recognisers' vocabulary.
fn name<C, D: Decoder<Context = C>>(d: &mut D) -> Result<&'static str, DecodeError> {
    intern(String::decode(d)?)
}

// Each `decode` reads the fields in the order they are declared (the order the derived
// `Encode` writes them); `a_file_s_findings_read_back_are_the_findings_made` checks every
// finding of the fixture company comes back equal.

impl<C> Decode<C> for Endpoint {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(Endpoint {
            verb: Decode::decode(d)?,
            path: Decode::decode(d)?,
            kind: name(d)?,
            file: Decode::decode(d)?,
            lines: Decode::decode(d)?,
            handler: Decode::decode(d)?,
            handler_name: Decode::decode(d)?,
            service_file: Decode::decode(d)?,
            before: Decode::decode(d)?,
        })
    }
}

impl<C> Decode<C> for EntryPoint {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(EntryPoint {
            kind: name(d)?,
            trigger: Decode::decode(d)?,
            broker: match Option::<String>::decode(d)? {
                Some(b) => Some(intern(b)?),
                None => None,
            },
            file: Decode::decode(d)?,
            lines: Decode::decode(d)?,
            handler: Decode::decode(d)?,
            handler_name: Decode::decode(d)?,
        })
    }
}

impl<C> Decode<C> for HttpCall {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(HttpCall {
            caller: Decode::decode(d)?,
            caller_name: Decode::decode(d)?,
            verb: Decode::decode(d)?,
            path: Decode::decode(d)?,
            url: Decode::decode(d)?,
            target: Decode::decode(d)?,
            client: name(d)?,
            file: Decode::decode(d)?,
            lines: Decode::decode(d)?,
            test: Decode::decode(d)?,
            external: Decode::decode(d)?,
            links: Decode::decode(d)?,
            port: Decode::decode(d)?,
            unresolved: Decode::decode(d)?,
            from_service_root: Decode::decode(d)?,
        })
    }
}

impl<C> Decode<C> for TopicUse {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(TopicUse {
            method: Decode::decode(d)?,
            broker: name(d)?,
            topic: Decode::decode(d)?,
            flow: Decode::decode(d)?,
            scope: Decode::decode(d)?,
        })
    }
}

impl<C> Decode<C> for TableUse {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(TableUse {
            owner: Decode::decode(d)?,
            table: Decode::decode(d)?,
            access: Decode::decode(d)?,
            line: Decode::decode(d)?,
            via: name(d)?,
        })
    }
}

impl<C> Decode<C> for ConfigUse {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        Ok(ConfigUse {
            owner: Decode::decode(d)?,
            key: Decode::decode(d)?,
            line: Decode::decode(d)?,
            via: name(d)?,
        })
    }
}

impl<C> Decode<C> for Findings {
    fn decode<D: Decoder<Context = C>>(d: &mut D) -> Result<Self, DecodeError> {
        let items = Decode::decode(d)?;
        let warnings = Decode::decode(d)?;
        let stats: Vec<(String, u64)> = Decode::decode(d)?;
        Ok(Findings {
            items,
            warnings,
            stats: stats
                .into_iter()
                .map(|(n, v)| Ok((intern(n)?, v)))
                .collect::<Result<_, DecodeError>>()?,
        })
    }
}

bincode::impl_borrow_decode!(Endpoint);
bincode::impl_borrow_decode!(EntryPoint);
bincode::impl_borrow_decode!(HttpCall);
bincode::impl_borrow_decode!(TopicUse);
bincode::impl_borrow_decode!(TableUse);
bincode::impl_borrow_decode!(ConfigUse);
bincode::impl_borrow_decode!(Findings);

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::testing::Repo;
    use super::super::{calls, declared, Finding, Findings};
    use crate::facts::CodeFile;
    use crate::resolve::resolve_calls_typed;

    /// Every repository of the fixture company.
    fn company_repos() -> Vec<PathBuf> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures/acme");
        let mut repos: Vec<PathBuf> = std::fs::read_dir(&root)
            .expect("the fixture company")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                ["pom.xml", "build.gradle", "build.gradle.kts"]
                    .iter()
                    .any(|build| p.join(build).is_file())
            })
            .collect();
        repos.sort();
        assert!(repos.len() >= 6, "the fixture company's repositories: {repos:?}");
        repos
    }

    /// What a file's recognisers found, declarations then calls, against `code`'s product.
    fn findings_of(repo: &Repo, code: &[CodeFile], file: &CodeFile) -> (Findings, Findings) {
        repo.with_product(code, |product, table, types| {
            let resolved = resolve_calls_typed(file, table, types);
            (declared(product, file), calls(product, file, &resolved))
        })
    }

    #[test]
    fn a_file_s_findings_read_back_are_the_findings_made() {
        let mut kinds = std::collections::BTreeSet::new();
        let mut total = 0;
        for dir in company_repos() {
            let repo = Repo::read(&dir);
            for file in &repo.code {
                let made = findings_of(&repo, &repo.code, file);
                let bytes = bincode::encode_to_vec(&made, bincode::config::standard()).expect("encoded");
                let (read, _): ((Findings, Findings), usize) =
                    bincode::decode_from_slice(&bytes, bincode::config::standard())
                        .unwrap_or_else(|e| panic!("{}: findings not read back: {e}", file.path));
                assert_eq!(format!("{read:?}"), format!("{made:?}"), "{}", file.path);
                for f in made.0.items.iter().chain(&made.1.items) {
                    total += 1;
                    kinds.insert(match f {
                        Finding::Endpoint(_) => "endpoint",
                        Finding::EntryPoint(_) => "entry point",
                        Finding::HttpCall(_) => "http call",
                        Finding::Topic(_) => "topic",
                        Finding::Table(_) => "table",
                        Finding::Config(_) => "config",
                        _ => "other",
                    });
                }
            }
        }
        // Every finding whose decoding is written by hand was among them.
        assert_eq!(
            kinds.into_iter().collect::<Vec<_>>(),
            [
                "config",
                "endpoint",
                "entry point",
                "http call",
                "other",
                "table",
                "topic"
            ],
            "{total} findings"
        );
    }

    #[test]
    fn bytes_that_are_not_findings_are_an_error() {
        let read = |bytes: &[u8]| {
            bincode::decode_from_slice::<(Findings, Findings), _>(bytes, bincode::config::standard()).is_err()
        };
        assert!(read(&[0xff; 64]));
        assert!(read(&[]));
    }

    /// The invariant the findings cache keys on (`pipeline::cache::recognition_context`):
    /// what the recognisers find in a file never depends on where another file's
    /// declarations, call sites or locals sit. Each file of the fixture company is
    /// recognised against the other files as they are, and moved down three lines and
    /// bytes; the findings must be the same.
    #[test]
    fn another_file_s_positions_change_no_finding() {
        let mut compared = 0;
        for dir in company_repos() {
            let repo = Repo::read(&dir);
            for (i, file) in repo.code.iter().enumerate() {
                let moved: Vec<CodeFile> = repo
                    .code
                    .iter()
                    .enumerate()
                    .map(|(j, other)| {
                        let mut other = other.clone();
                        if j != i {
                            other.map_positions(|p| p + 3);
                        }
                        other
                    })
                    .collect();
                let before = findings_of(&repo, &repo.code, file);
                let after = findings_of(&repo, &moved, file);
                assert_eq!(format!("{after:?}"), format!("{before:?}"), "{}", file.path);
                compared += before.0.items.len() + before.1.items.len();
            }
        }
        assert!(compared > 50, "only {compared} findings compared");
    }
}
