//! The graph as queries see it: node loading, name resolution, entitlement checks, and the
//! traversal kernels of the recipes.
//!
//! Every query goes through [`Ctx`], which holds one snapshot (so a whole document reads one
//! generation) and the caller (so content checks cannot be forgotten). Names are resolved
//! the way agents write them: an fqn with or without an overload's parameter list, a
//! `Type.method` tail, a simple name, or `VERB /path` for endpoints; a miss comes with the
//! nearest names.

use std::collections::{BTreeMap, HashMap};

use roaring::RoaringBitmap;
use semgraph_storage::{
    Adjacency, Direction, EdgeKind, Node, NodeFlags, NodeId, NodeKind, ProductId, ProductInfo, Snapshot,
};

use crate::access::Caller;
use crate::error::{nearest, QueryError};
use crate::workspace::Workspace;

/// One snapshot and one caller: what every query runs against.
pub(crate) struct Ctx<'a> {
    pub(crate) snap: &'a Snapshot,
    pub(crate) caller: &'a Caller,
    /// The machine behind the graph (front-ends, repositories), or `NoWorkspace`.
    pub(crate) workspace: &'a dyn Workspace,
    products: BTreeMap<u32, &'a ProductInfo>,
}

impl<'a> Ctx<'a> {
    pub(crate) fn with_workspace(
        snap: &'a Snapshot,
        caller: &'a Caller,
        workspace: &'a dyn Workspace,
    ) -> Ctx<'a> {
        let products = snap.product_infos().map(|p| (p.id.0, p)).collect();
        Ctx {
            snap,
            caller,
            workspace,
            products,
        }
    }

    pub(crate) fn adj(&self) -> &Adjacency {
        self.snap.adjacency()
    }

    pub(crate) fn products(&self) -> impl Iterator<Item = &ProductInfo> {
        self.products.values().copied()
    }

    pub(crate) fn product(&self, id: ProductId) -> Option<&ProductInfo> {
        self.products.get(&id.0).copied()
    }

    pub(crate) fn product_name(&self, id: ProductId) -> String {
        self.product(id)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| "?".into())
    }

    pub(crate) fn area(&self, id: ProductId) -> String {
        self.product(id).map(|p| p.area.clone()).unwrap_or_default()
    }

    /// True when the caller may read `node`'s content.
    pub(crate) fn may_read(&self, node: &Node) -> bool {
        self.caller.may_read(&self.area(node.product))
    }

    /// Fails with the permission-boundary error when the caller may not read `node`'s content.
    pub(crate) fn check_content(
        &self,
        node: &Node,
        what: &str,
        structural: &[&str],
    ) -> Result<(), QueryError> {
        if self.may_read(node) {
            Ok(())
        } else {
            Err(QueryError::forbidden(
                what,
                &self.product_name(node.product),
                &self.area(node.product),
                structural,
            ))
        }
    }

    /// The nodes of `ids`, in order, skipping ids no longer live.
    pub(crate) fn load(&self, ids: impl IntoIterator<Item = u32>) -> Result<Vec<Node>, QueryError> {
        let ids: Vec<NodeId> = ids.into_iter().map(NodeId).collect();
        Ok(self.snap.nodes(&ids)?.into_iter().flatten().collect())
    }

    /// The nodes of `ids` (duplicates read once) by id, in one batched read.
    pub(crate) fn load_map(
        &self,
        ids: impl IntoIterator<Item = u32>,
    ) -> Result<HashMap<u32, Node>, QueryError> {
        let unique: std::collections::BTreeSet<u32> = ids.into_iter().collect();
        Ok(self.load(unique)?.into_iter().map(|n| (n.id.0, n)).collect())
    }

    pub(crate) fn neighbors(&self, id: NodeId, dir: Direction, kind: EdgeKind) -> Vec<u32> {
        self.adj().neighbors(id, dir, kind).map(|n| n.0).collect()
    }

    /// Loaded neighbours of `id`, sorted by display name.
    pub(crate) fn neighbor_nodes(
        &self,
        id: NodeId,
        dir: Direction,
        kind: EdgeKind,
    ) -> Result<Vec<Node>, QueryError> {
        let mut nodes = self.load(self.neighbors(id, dir, kind))?;
        nodes.sort_by(|a, b| a.display_name().cmp(b.display_name()));
        Ok(nodes)
    }

    /// Nodes of `kind`, within the product `scope` if given (an unknown scope is a 404).
    pub(crate) fn of_kind(&self, kind: NodeKind, scope: Option<&str>) -> Result<RoaringBitmap, QueryError> {
        match scope {
            None => Ok(self.snap.nodes_of_kind(kind).clone()),
            Some(p) => {
                if self.snap.product(p).is_none() {
                    let names: Vec<&str> = self.products.values().map(|p| p.name.as_str()).collect();
                    return Err(QueryError::not_found(
                        "indexed product",
                        p,
                        &nearest(p, names.iter().copied(), 5),
                    ));
                }
                Ok(self.snap.product_nodes_of_kind(p, kind))
            }
        }
    }

    /// The nodes of `kinds` a written name designates (see the module doc), best first.
    pub(crate) fn resolve(&self, written: &str, kinds: &[NodeKind]) -> Result<Vec<Node>, QueryError> {
        let written = written.trim();
        let (base, params) = split_params(written);
        let keep = |n: &Node| kinds.contains(&n.kind);
        let mut found: Vec<Node> = self
            .load(self.snap.find_by_fqn(base)?.into_iter().map(|n| n.0))?
            .into_iter()
            .filter(keep)
            .collect();
        if found.is_empty() {
            let simple = base.rsplit('.').next().unwrap_or(base);
            let tail = format!(".{base}");
            found = self
                .load(self.snap.find_by_name(simple)?.into_iter().map(|n| n.0))?
                .into_iter()
                .filter(keep)
                .filter(|n| simple == base || n.fqn.as_deref().is_some_and(|f| f.ends_with(&tail)))
                .collect();
        }
        if let Some(params) = params {
            found.retain(|n| n.attr("signature").is_some_and(|s| same_params(s, &params)));
        }
        // Company code before library stand-ins.
        found.sort_by_key(|n| {
            (
                n.flags.contains(NodeFlags::EXTERNAL),
                n.display_name().to_string(),
            )
        });
        Ok(found)
    }

    /// Up to five names of `kinds` near `written`, for "nothing matches" answers.
    pub(crate) fn nearest_names(&self, written: &str, kinds: &[NodeKind]) -> Result<Vec<String>, QueryError> {
        let (base, _) = split_params(written.trim());
        let simple = base.rsplit(['.', '/', ' ']).next().unwrap_or(base);
        let mut candidates: Vec<String> = Vec::new();
        for len in [4usize, 2, 1] {
            let prefix: String = simple.chars().take(len).collect();
            if prefix.is_empty() {
                break;
            }
            for n in self.load(self.snap.find_by_prefix(&prefix, 400)?.into_iter().map(|n| n.0))? {
                if kinds.contains(&n.kind) && !n.flags.contains(NodeFlags::EXTERNAL) {
                    candidates.push(n.display_name().to_string());
                }
            }
            if candidates.len() >= 5 {
                break;
            }
        }
        candidates.sort();
        candidates.dedup();
        let mut by_simple: Vec<(String, String)> = candidates
            .into_iter()
            .map(|c| (c.rsplit(['.', ' ']).next().unwrap_or(&c).to_string(), c))
            .collect();
        by_simple.sort();
        let near = nearest(simple, by_simple.iter().map(|(s, _)| s.as_str()), 5);
        let mut out = Vec::new();
        for s in near {
            for (simple_name, full) in &by_simple {
                if *simple_name == s && out.len() < 5 && !out.contains(full) {
                    out.push(full.clone());
                }
            }
        }
        Ok(out)
    }

    /// Like [`Ctx::resolve`], but nothing found is a 404 with the nearest names.
    pub(crate) fn resolve_or_404(
        &self,
        written: &str,
        kinds: &[NodeKind],
        what: &str,
    ) -> Result<Vec<Node>, QueryError> {
        let found = self.resolve(written, kinds)?;
        if found.is_empty() {
            return Err(QueryError::not_found(
                what,
                written,
                &self.nearest_names(written, kinds)?,
            ));
        }
        Ok(found)
    }

    /// Endpoints written `VERB /path` (path variables may be named differently).
    pub(crate) fn resolve_endpoint(
        &self,
        written: &str,
        scope: Option<&str>,
    ) -> Result<Vec<Node>, QueryError> {
        let mut parts = written.split_whitespace();
        let (verb, path) = match (parts.next(), parts.next()) {
            (Some(v), Some(p)) => (v.to_uppercase(), p.to_string()),
            (Some(p), None) => (String::new(), p.to_string()),
            _ => (String::new(), String::new()),
        };
        let want = shape(&path);
        let ids = self.of_kind(NodeKind::Endpoint, scope)?;
        let mut found: Vec<Node> = self
            .load(ids.iter())?
            .into_iter()
            .filter(|n| {
                (verb.is_empty() || n.attr("verb") == Some(verb.as_str()))
                    && n.attr("path").is_some_and(|p| shape(p) == want)
            })
            .collect();
        found.sort_by(|a, b| (a.product, &a.name).cmp(&(b.product, &b.name)));
        Ok(found)
    }

    /// Near endpoint names for a miss.
    pub(crate) fn nearest_endpoints(&self, written: &str) -> Result<Vec<String>, QueryError> {
        let all = self.load(self.snap.nodes_of_kind(NodeKind::Endpoint).iter())?;
        let names: Vec<String> = all.iter().map(|n| n.name.clone()).collect();
        Ok(nearest(written, names.iter().map(String::as_str), 5))
    }

    /// The service an endpoint, entry point or method belongs to (its `service` attribute
    /// or the product name).
    pub(crate) fn service_of(&self, node: &Node) -> String {
        node.attr("service")
            .map(str::to_string)
            .unwrap_or_else(|| self.product_name(node.product))
    }
}

/// Splits `a.B.m(String, int)` into `a.B.m` and the parameter types.
fn split_params(written: &str) -> (&str, Option<Vec<String>>) {
    match written.find('(') {
        Some(i) if written.ends_with(')') => {
            let inner = &written[i + 1..written.len() - 1];
            let params = if inner.trim().is_empty() {
                Vec::new()
            } else {
                inner.split(',').map(|p| p.trim().to_string()).collect()
            };
            (written[..i].trim(), Some(params))
        }
        _ => (written, None),
    }
}

/// True when a stored `name(A, B)` signature has exactly `params` (simple names, generics
/// ignored).
fn same_params(signature: &str, params: &[String]) -> bool {
    let (_, have) = split_params(signature);
    let simple = |t: &str| {
        let t = t.split('<').next().unwrap_or(t).trim();
        t.rsplit('.').next().unwrap_or(t).to_string()
    };
    have.is_some_and(|h| h.len() == params.len() && h.iter().zip(params).all(|(a, b)| simple(a) == simple(b)))
}

/// A path with its variable names erased: `/a/{id}` and `/a/{orderId}` are the same route.
pub(crate) fn shape(path: &str) -> String {
    let mut out = String::new();
    let mut depth = 0;
    for c in path.trim_end_matches('/').chars() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    out.push_str("{}");
                }
            }
            '}' => depth -= 1,
            _ if depth > 0 => {}
            _ => out.push(c),
        }
    }
    if out.is_empty() {
        "/".into()
    } else {
        out
    }
}

/// How a caller reaches the method below it in a blast radius.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Via {
    /// A Java call to the method itself.
    Call,
    /// A Java call to an interface or superclass method it implements or overrides.
    Dispatch,
    /// An HTTP call to an endpoint it serves.
    Http,
}

/// For each reached node: the node below it that it reaches and how.
pub(crate) type Parents = rustc_hash::FxHashMap<u32, (u32, Via)>;

/// The callers of `frontier` one hop up, each with the frontier node it reaches and how.
fn callers_one_hop(adj: &Adjacency, frontier: &[u32], mut visit: impl FnMut(u32, u32, Via)) {
    // Most methods override nothing and serve nothing: only those that do are looked up
    // for it. Each next stretch of the frontier is warmed while this one is visited: its
    // callers' lists and its kind bits both ways (overrides and implementations go out,
    // calls and serving come in).
    let warm = [(Direction::In, true), (Direction::Out, false)];
    adj.visit_warmed(frontier, &warm, |m| {
        let id = NodeId(m);
        for c in adj.neighbors(id, Direction::In, EdgeKind::Calls) {
            visit(c.0, m, Via::Call);
        }
        for kind in [EdgeKind::Overrides, EdgeKind::Implements] {
            if !adj.has_edges(id, Direction::Out, kind) {
                continue;
            }
            for parent in adj.neighbors(id, Direction::Out, kind) {
                for c in adj.neighbors(parent, Direction::In, EdgeKind::Calls) {
                    visit(c.0, m, Via::Dispatch);
                }
            }
        }
        if !adj.has_edges(id, Direction::In, EdgeKind::Serves) {
            return;
        }
        for served_by in adj.neighbors(id, Direction::In, EdgeKind::Serves) {
            for call in adj.neighbors(served_by, Direction::In, EdgeKind::Invokes) {
                for c in adj.neighbors(call, Direction::In, EdgeKind::Calls) {
                    visit(c.0, m, Via::Http);
                }
            }
        }
    });
}

/// The blast radius of changing `seeds` (methods): `layers[d]` holds the methods that first
/// reach a seed after `d + 1` hops up the call graph, where a call to an interface or
/// superclass method counts as a call to each implementation or override (interface
/// dispatch), and an HTTP call to an endpoint counts as a call to the endpoint's handler.
/// A method appears once, at its shortest distance; seeds never appear.
pub fn blast_radius(adj: &Adjacency, seeds: &RoaringBitmap, depth: u32) -> Vec<RoaringBitmap> {
    blast_radius_with_parents(adj, seeds, depth).0
}

pub(crate) fn blast_radius_with_parents(
    adj: &Adjacency,
    seeds: &RoaringBitmap,
    depth: u32,
) -> (Vec<RoaringBitmap>, Parents) {
    let (layers, parents, _) = blast_radius_until(adj, seeds, depth, |_, _| true, |_, _| true);
    (layers, parents)
}

/// Like [`blast_radius`], with parents, going on only while `more(level, methods_reached)`
/// says so. It is asked before each level and again at each new method, so a level that
/// explodes on a hub is cut where the budget runs out (the last layer is then partial).
/// The flag says whether the budget stopped the walk before `depth` or exhaustion did.
///
/// A method found at `level` (0: a direct caller) through `via` has its parent recorded
/// only when `keep(level, via)` says so: a walk that goes on past what it shows only to
/// find what is reached further up does not fill a map with parents nobody reads.
pub(crate) fn blast_radius_until(
    adj: &Adjacency,
    seeds: &RoaringBitmap,
    depth: u32,
    more: impl Fn(u32, u64) -> bool,
    keep: impl Fn(u32, Via) -> bool,
) -> (Vec<RoaringBitmap>, Parents, bool) {
    with_seen(adj.node_slots(), |seen| {
        walk_callers(adj, seeds, depth, more, keep, seen)
    })
}

/// A dense bit set of node ids (ids are dense, and marking is the hot loop), kept by the
/// thread that used it last: a traversal clears only the words it set, instead of
/// allocating and zeroing one bit per node of the graph every time.
#[derive(Default)]
struct Seen {
    words: Vec<u64>,
    touched: Vec<u32>,
}

impl Seen {
    /// Marks `id`; true when it was not marked yet.
    fn mark(&mut self, id: u32) -> bool {
        let w = (id / 64) as usize;
        match self.words.get_mut(w) {
            Some(word) if *word & (1 << (id % 64)) == 0 => {
                if *word == 0 {
                    self.touched.push(w as u32);
                }
                *word |= 1 << (id % 64);
                true
            }
            _ => false,
        }
    }
}

thread_local! {
    static SEEN: std::cell::Cell<Seen> = std::cell::Cell::new(Seen::default());
}

/// Runs `f` with an empty [`Seen`] of `slots` ids (a nested call gets one of its own).
fn with_seen<R>(slots: usize, f: impl FnOnce(&mut Seen) -> R) -> R {
    let mut seen = SEEN.with(std::cell::Cell::take);
    let words = slots / 64 + 1;
    if seen.words.len() < words {
        seen.words.resize(words, 0);
    }
    let out = f(&mut seen);
    for &w in &seen.touched {
        seen.words[w as usize] = 0;
    }
    seen.touched.clear();
    SEEN.with(|cell| cell.set(seen));
    out
}

fn walk_callers(
    adj: &Adjacency,
    seeds: &RoaringBitmap,
    depth: u32,
    more: impl Fn(u32, u64) -> bool,
    keep: impl Fn(u32, Via) -> bool,
    seen: &mut Seen,
) -> (Vec<RoaringBitmap>, Parents, bool) {
    let mut mark = |id: u32| seen.mark(id);
    for s in seeds {
        mark(s);
    }
    let mut parents: Parents = Parents::default();
    let mut frontier: Vec<u32> = seeds.iter().collect();
    let mut layers = Vec::new();
    let mut reached = 0u64;
    let mut cut = false;
    for level in 0..depth {
        if !more(level, reached) {
            cut = true;
            break;
        }
        // The level's callers, and those kept with what each reaches, added to `parents`
        // at once: the map grows once per level instead of rehashing as a level fills it.
        let mut next: Vec<u32> = Vec::new();
        let mut kept: Vec<(u32, (u32, Via))> = Vec::new();
        let mut open = true;
        callers_one_hop(adj, &frontier, |caller, below, via| {
            if open && mark(caller) {
                next.push(caller);
                if keep(level, via) {
                    kept.push((caller, (below, via)));
                }
                open = more(level, reached + next.len() as u64);
            }
        });
        if next.is_empty() {
            break;
        }
        parents.reserve(kept.len());
        parents.extend(kept);
        next.sort_unstable();
        reached += next.len() as u64;
        layers.push(RoaringBitmap::from_sorted_iter(next.iter().copied()).unwrap_or_default());
        frontier = next;
        if !open {
            cut = true;
            break;
        }
    }
    (layers, parents, cut)
}

/// Each `(node, neighbour)` pair one `kind` edge away in `dir` from a node of `nodes`. For a
/// kind few nodes have (Produces, Writes), the page's kind bits rule out the others without
/// reading their lists: a set of methods reached by a walk up the callers was read in the
/// other direction, so each list read here would be a cache miss.
pub(crate) fn edges_of_kind(
    adj: &Adjacency,
    nodes: &RoaringBitmap,
    dir: Direction,
    kind: EdgeKind,
) -> Vec<(u32, u32)> {
    nodes
        .iter()
        .filter(|&n| adj.has_edges(NodeId(n), dir, kind))
        .flat_map(|n| adj.neighbors(NodeId(n), dir, kind).map(move |t| (n, t.0)))
        .collect()
}

/// The endpoints and entry points whose handler is in `methods` (Serves edges into them).
pub fn reached_entry_points(adj: &Adjacency, methods: &RoaringBitmap) -> RoaringBitmap {
    // Few methods are handlers: only theirs are looked up.
    let handlers: RoaringBitmap = methods
        .iter()
        .filter(|&m| adj.has_edges(NodeId(m), Direction::In, EdgeKind::Serves))
        .collect();
    adj.expand(&handlers, Direction::In, &[EdgeKind::Serves])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overload_parameters_match_by_simple_names() {
        assert!(same_params(
            "price(String, int, BigDecimal, String)",
            &[
                "String".into(),
                "int".into(),
                "java.math.BigDecimal".into(),
                "String".into()
            ]
        ));
        assert!(!same_params("price(OrderLineRequest)", &["String".into()]));
        assert!(same_params("run()", &[]));
        assert_eq!(split_params("a.B.m"), ("a.B.m", None));
    }

    #[test]
    fn path_shapes_ignore_variable_names() {
        assert_eq!(shape("/api/orders/{id}"), shape("/api/orders/{orderId}"));
        assert_ne!(shape("/api/orders/{id}"), shape("/api/orders/search"));
        assert_eq!(shape("/x/"), "/x");
    }
}
