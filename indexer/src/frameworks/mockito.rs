//! Mockito and BDDMockito: a call that only stubs or verifies a mock
//! (`when(repo.findById(1L))`, `verify(repo).save(…)`, `doReturn(x).when(repo).findById(…)`,
//! `then(repo).should()…`) runs nothing. Not a recogniser: the rules of the data
//! frameworks ask it before they count a call as an access.

use crate::facts::{CallSite, MethodDecl, Receiver};

/// Mockito and BDDMockito calls whose receiver chain stubs or verifies a mock
/// (`verify(repo).save(…)`, `doReturn(x).when(repo).findById(…)`, `then(repo).should()…`).
const MOCK_RECEIVERS: &[&str] = &[
    "verify",
    "when",
    "should",
    "shouldHaveNoMoreInteractions",
    "inOrder",
];

/// Calls whose argument is a stubbed call (`when(repo.findById(1L))`, `given(…)`).
const STUBBING_CALLS: &[&str] = &["when", "given"];

/// Whether `site` only stubs or verifies a mock: such a call runs no SQL.
pub(crate) fn in_mock_setup(m: &MethodDecl, site: &CallSite) -> bool {
    if let Receiver::Call(inner) = &site.receiver {
        if MOCK_RECEIVERS.contains(&inner.name.as_str()) {
            return true;
        }
    }
    let called = format!(".{}(", site.name);
    m.calls.iter().any(|c| {
        STUBBING_CALLS.contains(&c.name.as_str())
            && c.line <= site.line
            && site.line - c.line <= 3
            && c.arg_texts.first().is_some_and(|a| {
                let flat: String = a.split_whitespace().collect();
                flat.contains(&called)
            })
    })
}
