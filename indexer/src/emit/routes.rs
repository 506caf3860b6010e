//! Calls that name a concrete route of their own service, matched to the endpoint whose
//! template it fills.
//!
//! A service's tests call it with values in the path: `mvc.perform(get("/owners/2"))`,
//! `webTestClient.get().uri("/api/gateway/owners/1")`. An HTTP call is linked to an
//! endpoint by an exact key (verb, service, route with every variable written `{}`), which
//! `/owners/2` never equals, so such a test reached no endpoint and impact said the
//! handler was untested. A call to the caller's own service has its endpoints in the same
//! product: once every file of the product is written, each such call that no route
//! equals is matched here against the service's route templates, segment by segment
//! (a variable or `*` takes any one segment, `**` the rest). The match with the most
//! literal segments wins; a tie between endpoints links nothing (the call's own key,
//! declared as for every call, still links it if the route is served as written).

use std::collections::BTreeMap;

use semgraph_storage::{EdgeAttrs, EdgeKind, NodeId, ProductWriter};

use crate::error::IndexError;

/// A route an endpoint of the product serves.
#[derive(Debug, Clone)]
pub(crate) struct ServedRoute {
    /// The service, lower-cased.
    pub(crate) service: String,
    pub(crate) verb: String,
    /// The route, normalised (`keys::route`).
    pub(crate) route: String,
    pub(crate) endpoint: NodeId,
}

/// An HTTP call of a service to a route of its own.
#[derive(Debug, Clone)]
pub(crate) struct OwnServiceCall {
    pub(crate) call: NodeId,
    /// The service, lower-cased.
    pub(crate) service: String,
    pub(crate) verb: String,
    /// The route, normalised (`keys::route`).
    pub(crate) route: String,
}

/// The verb of endpoints that answer every verb.
pub(crate) const ANY: &str = "ANY";

/// How well concrete route `call` fills `template` (both normalised): `None` when it does
/// not, else how many of the template's segments are literals the call repeats.
pub(crate) fn fit(template: &str, call: &str) -> Option<usize> {
    let mut literal = 0;
    let mut calls = call.split('/').filter(|s| !s.is_empty());
    let mut templates = template.split('/').filter(|s| !s.is_empty());
    loop {
        match (templates.next(), calls.next()) {
            (None, None) => return Some(literal),
            (Some("**"), _) => return Some(literal),
            (Some("{}" | "*"), Some(_)) => {}
            (Some(t), Some(c)) if t == c && c != "{}" => literal += 1,
            _ => return None,
        }
    }
}

/// Links each of `calls` that no route of `served` equals to the one endpoint of its
/// service whose template it fills best; returns how many were linked and how many had
/// several best endpoints (and were left alone).
pub(crate) fn link_concrete(
    w: &mut ProductWriter,
    served: &[ServedRoute],
    calls: &[OwnServiceCall],
) -> Result<(u64, u64), IndexError> {
    // A template fills only calls of its own number of segments, but for one with `**`:
    // a call is compared with the routes of its service of that length, and those with `**`.
    let mut by_length: BTreeMap<(&str, Option<usize>), Vec<&ServedRoute>> = BTreeMap::new();
    for s in served {
        let length = (!s.route.split('/').any(|p| p == "**")).then(|| segments(&s.route));
        by_length.entry((s.service.as_str(), length)).or_default().push(s);
    }
    let (mut linked, mut ambiguous) = (0, 0);
    for c in calls {
        let service = c.service.as_str();
        let routes = [Some(segments(&c.route)), None]
            .into_iter()
            .filter_map(|length| by_length.get(&(service, length)))
            .flatten();
        // Its own key links it to a route served as written: of its verb, or of every verb
        // (`@RequestMapping` with no method, anchored under each verb no sibling names;
        // see `findings::anchor_every_verb`).
        let verb_fits = |s: &&&ServedRoute| s.verb == c.verb || s.verb == ANY;
        if routes.clone().filter(verb_fits).any(|s| s.route == c.route) {
            continue;
        }
        let mut best: Vec<(usize, NodeId)> = routes
            .filter(verb_fits)
            .filter_map(|s| fit(&s.route, &c.route).map(|n| (n, s.endpoint)))
            .collect();
        let Some(top) = best.iter().map(|(n, _)| *n).max() else {
            continue;
        };
        best.retain(|(n, _)| *n == top);
        best.sort_unstable_by_key(|(_, e)| e.0);
        best.dedup_by_key(|(_, e)| e.0);
        match best.as_slice() {
            [(_, endpoint)] => {
                let attrs = EdgeAttrs {
                    lines: Vec::new(),
                    via: Some("route-template".into()),
                };
                w.add_edge_with(c.call, EdgeKind::Invokes, *endpoint, &attrs)?;
                linked += 1;
            }
            _ => ambiguous += 1,
        }
    }
    Ok((linked, ambiguous))
}

/// The number of segments of a normalised route.
fn segments(route: &str) -> usize {
    route.split('/').filter(|s| !s.is_empty()).count()
}

#[cfg(test)]
mod tests {
    use super::fit;

    #[test]
    fn a_concrete_route_fills_templates_by_segment() {
        assert_eq!(fit("/owners/{}", "/owners/2"), Some(1));
        assert_eq!(fit("/owners/*/pets/{}", "/owners/2/pets/7"), Some(2));
        assert_eq!(fit("/owners/{}/pets/{}", "/owners/2/pets/7"), Some(2));
        assert_eq!(fit("/owners/new", "/owners/new"), Some(2));
        assert_eq!(fit("/owners/{}", "/owners/new"), Some(1));
        assert_eq!(fit("/api/**", "/api/owners/2"), Some(1));
        assert_eq!(fit("/", "/"), Some(0));
        // A call's own variable is filled by a variable only.
        assert_eq!(fit("/owners/{}", "/owners/{}"), Some(1));
        assert_eq!(fit("/owners/new", "/owners/{}"), None);
        assert_eq!(fit("/owners/{}", "/owners/2/pets"), None);
        assert_eq!(fit("/owners/{}/pets", "/owners/2"), None);
        assert_eq!(fit("/vets", "/owners"), None);
    }
}
