//! Who is asking: the caller's area decides which content it may read.
//!
//! Structure (names, kinds, signatures, edges) is visible to every caller; content (source,
//! SQL, config values, wiki and Jira text) only to callers of the owning product's area.
//! The area comes from credentials checked above this crate, never from a query parameter.

/// The caller of a query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    area: Option<String>,
}

impl Caller {
    /// A caller who may read every area's content (the local user of a loopback server).
    pub fn full_access() -> Caller {
        Caller { area: None }
    }

    /// A caller of one area: content of other areas is withheld.
    pub fn of_area(area: impl Into<String>) -> Caller {
        Caller {
            area: Some(area.into()),
        }
    }

    /// The caller's area, or `None` for full access.
    pub fn area(&self) -> Option<&str> {
        self.area.as_deref()
    }

    /// True when content owned by `area` may be returned to this caller.
    pub fn may_read(&self, area: &str) -> bool {
        self.area.as_deref().is_none_or(|mine| mine == area)
    }
}
