//! Code facts into the graph: packages, types, methods, fields, the type hierarchy, and
//! resolved calls with their call-site lines.
//!
//! A call to a method of the product is a Calls edge with its lines; a call to a method
//! of a type outside the product (a library type such as `RestTemplate`) is an edge to an
//! external node, created on first use; an unresolved call is counted and reported per
//! file, never guessed into an edge.

use std::borrow::{Borrow, Cow};
use std::collections::{BTreeMap, HashSet};
use std::hash::{BuildHasher, Hash, Hasher, RandomState};

use rustc_hash::FxHashMap;
use semgraph_storage::{
    keys, ContentKind, EdgeAttrs, EdgeKind, NewNode, NodeFlags, NodeId, NodeKind, ProductWriter,
};

use super::Run;
use crate::error::IndexError;
use crate::facts::{self, CodeFile, TypeKind};
use crate::resolve::{MethodKey, ResolvedCall, SymbolTable, Target};
use crate::walk::SourceFile;

/// The product's Java nodes, for the passes that hang more facts from them.
#[derive(Default)]
pub(crate) struct CodeNodes {
    /// Each type by fqn.
    pub(crate) types: Declarations<String>,
    /// Each method by key.
    pub(crate) methods: MethodDeclarations,
    external_types: FxHashMap<String, NodeId>,
    external_methods: FxHashMap<(String, String), NodeId>,
    packages: FxHashMap<String, NodeId>,
}

fn type_kind(kind: TypeKind) -> &'static str {
    match kind {
        TypeKind::Class => "class",
        TypeKind::Interface => "interface",
        TypeKind::Enum => "enum",
        TypeKind::Record => "record",
        TypeKind::Annotation => "annotation",
    }
}

/// A file's text with the offset of every line, so the source of each of its types and
/// methods is sliced out directly: scanning from the top for each one made a generated
/// class of 40,000 methods take minutes.
struct SourceLines<'t> {
    text: &'t str,
    /// Byte offset where each line starts (as `str::lines` counts them).
    starts: Vec<usize>,
}

impl<'t> SourceLines<'t> {
    fn new(text: &'t str) -> SourceLines<'t> {
        let mut starts = Vec::new();
        if !text.is_empty() {
            starts.push(0);
        }
        starts.extend(
            memchr::memchr_iter(b'\n', text.as_bytes())
                .map(|i| i + 1)
                .filter(|&start| start < text.len()),
        );
        SourceLines { text, starts }
    }

    /// Lines `start..=end` (1-based) joined by `\n`, without line terminators.
    ///
    /// Lines ended by `\n` alone, as most sources' are, joined so are the text as it stands:
    /// it is borrowed, not copied. Only a span holding a `\r` is taken apart line by line.
    fn span(&self, start: usize, end: usize) -> Cow<'t, str> {
        let first = start.saturating_sub(1).min(self.starts.len());
        let last = (first + end.saturating_sub(start) + 1).min(self.starts.len());
        if first >= last {
            return Cow::Borrowed("");
        }
        let whole_stop = self.starts.get(last).copied().unwrap_or(self.text.len());
        let whole = &self.text[self.starts[first]..whole_stop];
        if memchr::memchr(b'\r', whole.as_bytes()).is_none() {
            return Cow::Borrowed(whole.strip_suffix('\n').unwrap_or(whole));
        }
        let mut out = String::with_capacity(whole.len());
        for (k, &s) in self.starts[first..last].iter().enumerate() {
            let stop = self.starts.get(first + k + 1).copied().unwrap_or(self.text.len());
            let raw = &self.text[s..stop];
            // As `str::lines`: `\n` or `\r\n` ends a line; a last line may have neither.
            let line = match raw.strip_suffix('\n') {
                Some(l) => l.strip_suffix('\r').unwrap_or(l),
                None => raw,
            };
            if k > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        Cow::Owned(out)
    }
}

/// The annotations' names, each after an `@`, separated by spaces.
fn annotation_names(annotations: &[facts::Annotation]) -> String {
    let mut out = String::with_capacity(annotations.iter().map(|a| a.name.len() + 2).sum());
    for (i, a) in annotations.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.push('@');
        out.push_str(&a.name);
    }
    out
}

/// Nodes of the product by a name more than one module may declare — the same
/// fully-qualified type in two modules: each copy is kept with its module (the service
/// node of its file), so a fact of a file is charged to, and lands on, its own module's
/// copy.
pub(crate) struct Declarations<K> {
    /// Each name's node; for a name several modules declare, the last one written.
    last: FxHashMap<K, NodeId>,
    /// Names more than one module declares: every declaration with its module.
    copies: FxHashMap<K, Vec<(Option<NodeId>, NodeId)>>,
    /// The module of each node, while copies may still appear.
    module: FxHashMap<NodeId, Option<NodeId>>,
}

impl<K> Default for Declarations<K> {
    fn default() -> Self {
        Declarations {
            last: FxHashMap::default(),
            copies: FxHashMap::default(),
            module: FxHashMap::default(),
        }
    }
}

/// The declarations a name names as seen from a file of one module.
pub(crate) enum Seen {
    One(NodeId),
    /// Several modules declare it and the file's module is none of them: one of these.
    Several(Vec<NodeId>),
    Missing,
}

impl<K: Hash + Eq + Clone> Declarations<K> {
    /// Records node `id`, declared under `key` in `module`.
    fn insert(&mut self, key: K, id: NodeId, module: Option<NodeId>) {
        self.module.insert(id, module);
        if let Some(&earlier) = self.last.get(&key) {
            let earlier_module = self.module.get(&earlier).copied().flatten();
            if earlier_module != module {
                let copies = self
                    .copies
                    .entry(key.clone())
                    .or_insert_with(|| vec![(earlier_module, earlier)]);
                if !copies.iter().any(|(m, _)| *m == module) {
                    copies.push((module, id));
                }
            }
        }
        self.last.insert(key, id);
    }

    /// `key` as seen from a file of `module` (see [`Seen`]).
    pub(crate) fn seen_from<Q>(&self, key: &Q, module: Option<NodeId>) -> Seen
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match self.copies.get(key) {
            Some(copies) => match copies.iter().find(|(m, _)| *m == module) {
                Some((_, id)) => Seen::One(*id),
                None => Seen::Several(copies.iter().map(|(_, id)| *id).collect()),
            },
            None => self.last.get(key).map_or(Seen::Missing, |&id| Seen::One(id)),
        }
    }

    /// `key` as a file of `module` names it: its own module's copy of a name several
    /// modules declare, else the one written last.
    pub(crate) fn own<Q>(&self, key: &Q, module: Option<NodeId>) -> Option<NodeId>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match self.seen_from(key, module) {
            Seen::One(id) => Some(id),
            Seen::Several(_) | Seen::Missing => self.last.get(key).copied(),
        }
    }
}

/// The product's methods by key, each key held as a 128-bit fingerprint of its type, name
/// and parameter types. A [`MethodKey`] is three strings and a vector of strings, about 230
/// bytes in five or more allocations; the key as one string was still about 110 bytes on
/// the heap (64,346 keys on spring-boot); the fingerprint is 16 bytes in the map itself,
/// and a lookup hashes the key's parts where they are, allocating nothing.
///
/// Two keys share a fingerprint with a probability of about 2^-128 per pair: the two halves
/// are SipHash-1-3 under two keys drawn at random per process, so no input can be written
/// to collide on purpose, and a run of a million methods has about 2^-89 chance of one.
#[derive(Default)]
pub(crate) struct MethodDeclarations(Declarations<MethodPrint>);

impl MethodDeclarations {
    fn insert(&mut self, key: &MethodKey, id: NodeId, module: Option<NodeId>) {
        self.0.insert(MethodPrint::of(key), id, module);
    }

    /// Method `key` as seen from a file of `module` (see [`Seen`]).
    pub(crate) fn seen_from(&self, key: &MethodKey, module: Option<NodeId>) -> Seen {
        self.0.seen_from(&MethodPrint::of(key), module)
    }

    /// Method `key` as a file of `module` names it (see [`Declarations::own`]).
    pub(crate) fn own(&self, key: &MethodKey, module: Option<NodeId>) -> Option<NodeId> {
        self.0.own(&MethodPrint::of(key), module)
    }
}

/// A [`MethodKey`]'s fingerprint, as [`MethodDeclarations`] holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct MethodPrint(u128);

impl MethodPrint {
    fn of(key: &MethodKey) -> MethodPrint {
        static KEYS: std::sync::OnceLock<(RandomState, RandomState)> = std::sync::OnceLock::new();
        let (high, low) = KEYS.get_or_init(|| (RandomState::new(), RandomState::new()));
        // The parts are separated by NUL, which no name holds, so two different keys are
        // never the same bytes.
        let hash = |keys: &RandomState| {
            let mut h = keys.build_hasher();
            h.write(key.type_fqn.as_bytes());
            h.write_u8(0);
            h.write(key.name.as_bytes());
            for p in &key.params {
                h.write_u8(0);
                h.write(p.as_bytes());
            }
            h.finish()
        };
        MethodPrint((u128::from(hash(high)) << 64) | u128::from(hash(low)))
    }
}

/// Writes one file's package, types, fields and methods with their sources as content;
/// `module` is the service node of the file's module.
#[allow(clippy::too_many_arguments)]
pub(crate) fn write_file(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    f: &SourceFile,
    file_node: Option<NodeId>,
    module: Option<NodeId>,
    text: &str,
    file: &CodeFile,
) -> Result<(), IndexError> {
    let lines = SourceLines::new(text);
    let test = f.rel.contains("src/test/");
    let base_flags = if test {
        NodeFlags::TEST
    } else {
        NodeFlags::default()
    };
    let package = if file.package.is_empty() {
        None
    } else {
        Some(match nodes.packages.get(&file.package) {
            Some(&p) => p,
            None => {
                let p = run.add(
                    w,
                    NewNode::new(NodeKind::Package, &file.package).fqn(&file.package),
                )?;
                nodes.packages.insert(file.package.clone(), p);
                p
            }
        })
    };
    for t in &file.types {
        let mut flags = base_flags;
        if t.modifiers.iter().any(|m| m == "public") {
            flags |= NodeFlags::PUBLIC;
        }
        if t.modifiers.iter().any(|m| m == "abstract") || t.kind == TypeKind::Interface {
            flags |= NodeFlags::ABSTRACT;
        }
        let mut node = NewNode::new(NodeKind::Type, &t.name)
            .fqn(&t.fqn)
            .at(&f.rel, t.line_start as u32, t.line_end as u32)
            .flags(flags)
            .attr("kind", type_kind(t.kind));
        if !t.annotations.is_empty() {
            node = node.attr("annotations", annotation_names(&t.annotations));
        }
        if !t.extends.is_empty() {
            node = node.attr("extends", t.extends.join(", "));
        }
        if !t.implements.is_empty() {
            node = node.attr("implements", t.implements.join(", "));
        }
        let id = run.add(w, node)?;
        w.set_content(id, ContentKind::Source, &lines.span(t.line_start, t.line_end))?;
        w.add_anchor(id, keys::java_type(&t.fqn))?;
        if !t.anonymous {
            w.add_anchor(id, keys::java_type_simple(&t.name))?;
        }
        match t.outer.as_ref().and_then(|o| nodes.types.own(o, module)) {
            Some(outer) => w.add_edge(outer, EdgeKind::Contains, id)?,
            None => {
                if let Some(file_node) = file_node {
                    w.add_edge(file_node, EdgeKind::Contains, id)?;
                }
                if let Some(p) = package {
                    w.add_edge(p, EdgeKind::Contains, id)?;
                }
            }
        }
        nodes.types.insert(t.fqn.clone(), id, module);

        for field in &t.fields {
            let mut flags = base_flags;
            if field.modifiers.iter().any(|m| m == "static") {
                flags |= NodeFlags::STATIC;
            }
            let mut node = NewNode::new(NodeKind::Field, &field.name)
                .fqn(facts::member_fqn(&t.fqn, &field.name))
                .at(&f.rel, field.line as u32, field.line as u32)
                .flags(flags)
                .attr("type", &field.ty);
            if !field.annotations.is_empty() {
                node = node.attr("annotations", annotation_names(&field.annotations));
            }
            let fid = run.add(w, node)?;
            w.add_edge(id, EdgeKind::Contains, fid)?;
        }

        // Names already anchored in this type (a set: a generated class has thousands).
        let mut anchored: HashSet<&str> = HashSet::new();
        for m in &t.methods {
            let mut flags = base_flags;
            if m.modifiers.iter().any(|x| x == "public") || t.kind == TypeKind::Interface {
                flags |= NodeFlags::PUBLIC;
            }
            if m.modifiers.iter().any(|x| x == "static") {
                flags |= NodeFlags::STATIC;
            }
            if !m.has_body && !m.implicit {
                flags |= NodeFlags::ABSTRACT;
            }
            let signature = m.signature();
            let mut node = NewNode::new(NodeKind::Method, &m.name)
                .fqn(facts::member_fqn(&t.fqn, &m.name))
                .at(&f.rel, m.line_start as u32, m.line_end as u32)
                .flags(flags)
                .attr("signature", &signature);
            if let Some(r) = &m.return_type {
                node = node.attr("returns", r);
            }
            if !m.annotations.is_empty() {
                node = node.attr("annotations", annotation_names(&m.annotations));
            }
            if m.implicit {
                node = node.attr("implicit", "yes");
            }
            let mid = run.add(w, node)?;
            if !m.implicit {
                w.set_content(mid, ContentKind::Source, &lines.span(m.line_start, m.line_end))?;
            }
            w.add_edge(id, EdgeKind::Contains, mid)?;
            // Overloads share their names: only the first answers to them, so a mention
            // of `Type.method` finds one method rather than none.
            if anchored.insert(m.name.as_str()) {
                w.add_anchor(mid, keys::java_method_of(&t.fqn, &m.name))?;
                if !t.anonymous {
                    w.add_anchor(mid, keys::java_method_simple_of(&t.name, &m.name))?;
                }
            }
            nodes.methods.insert(&MethodKey::of(t, m), mid, module);
        }
    }
    run.stat(file.language.files_counter(), 1);
    Ok(())
}

fn external_type(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    fqn: &str,
) -> Result<NodeId, IndexError> {
    if let Some(&id) = nodes.external_types.get(fqn) {
        return Ok(id);
    }
    let name = fqn.rsplit('.').next().unwrap_or(fqn);
    let id = run.add(
        w,
        NewNode::new(NodeKind::Type, name)
            .fqn(fqn)
            .flags(NodeFlags::EXTERNAL),
    )?;
    nodes.external_types.insert(fqn.to_string(), id);
    Ok(id)
}

fn external_method(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    type_fqn: &str,
    method: &str,
) -> Result<NodeId, IndexError> {
    let key = (type_fqn.to_string(), method.to_string());
    if let Some(&id) = nodes.external_methods.get(&key) {
        return Ok(id);
    }
    let owner = external_type(run, w, nodes, type_fqn)?;
    let id = run.add(
        w,
        NewNode::new(NodeKind::Method, method)
            .fqn(format!("{type_fqn}.{method}"))
            .flags(NodeFlags::EXTERNAL),
    )?;
    w.add_edge(owner, EdgeKind::Contains, id)?;
    nodes.external_methods.insert(key, id);
    Ok(id)
}

/// The node of type `fqn` as a file of `module` names it: the product's (its own
/// module's copy of a name several declare), else an external one.
fn type_node(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    fqn: &str,
    module: Option<NodeId>,
) -> Result<NodeId, IndexError> {
    match nodes.types.own(&fqn.to_string(), module) {
        Some(id) => Ok(id),
        None => external_type(run, w, nodes, fqn),
    }
}

/// Extends and Implements between types; Overrides and Implements between methods.
pub(crate) fn write_hierarchy<'t>(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    facts: &[CodeFile],
    modules: &[Option<NodeId>],
    table_of: &dyn Fn(Option<NodeId>) -> &'t SymbolTable,
) -> Result<(), IndexError> {
    for (file, &module) in facts.iter().zip(modules) {
        // The file's module's view: its copies' supertypes are its own.
        let table = table_of(module);
        for t in &file.types {
            write_supertypes(run, w, nodes, t, module, table)?;
        }
    }
    Ok(())
}

/// Extends and Implements of type `t` of a file of `module`, and of its methods.
fn write_supertypes(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    t: &facts::TypeDecl,
    module: Option<NodeId>,
    table: &SymbolTable,
) -> Result<(), IndexError> {
    let Some(info) = table.get(&t.fqn) else {
        return Ok(());
    };
    let Some(id) = nodes.types.own(&t.fqn, module) else {
        return Ok(());
    };
    if let Some(sup) = &info.superclass {
        let to = type_node(run, w, nodes, sup, module)?;
        w.add_edge(id, EdgeKind::Extends, to)?;
    }
    for iface in &info.interfaces {
        let to = type_node(run, w, nodes, iface, module)?;
        let kind = if t.kind == TypeKind::Interface {
            EdgeKind::Extends
        } else {
            EdgeKind::Implements
        };
        w.add_edge(id, kind, to)?;
    }
    // Every internal ancestor, nearest first.
    let mut ancestors: Vec<String> = Vec::new();
    let mut queue: Vec<String> = info
        .superclass
        .iter()
        .chain(&info.interfaces)
        .map(|s| s.to_string())
        .collect();
    while let Some(a) = queue.pop() {
        if ancestors.contains(&a) || ancestors.len() > 64 {
            continue;
        }
        if let Some(ai) = table.get(&a) {
            queue.extend(ai.superclass.iter().chain(&ai.interfaces).map(|s| s.to_string()));
        }
        ancestors.push(a);
    }
    for m in t
        .methods
        .iter()
        .filter(|m| m.name != "<init>" && !m.modifiers.iter().any(|x| x == "static"))
    {
        let key = MethodKey::of(t, m);
        let Some(mid) = nodes.methods.own(&key, module) else {
            continue;
        };
        for a in &ancestors {
            let parent = MethodKey {
                type_fqn: a.clone(),
                ..key.clone()
            };
            if let Some(pid) = nodes.methods.own(&parent, module) {
                let is_interface = table.get(a).is_some_and(|ai| ai.kind == TypeKind::Interface);
                let kind = if is_interface {
                    EdgeKind::Implements
                } else {
                    EdgeKind::Overrides
                };
                w.add_edge(mid, kind, pid)?;
            }
        }
    }
    Ok(())
}

/// The `via` of a Calls edge to one of several overloads a call may reach, followed by
/// the number of candidates (`ambiguous:3`).
pub(crate) const AMBIGUOUS_VIA: &str = "ambiguous:";

/// Per caller and callee of one file: the lines, and the number of candidates of a call
/// that may reach several methods (`None` once a certain call of the pair is seen).
type CallEdges = BTreeMap<(NodeId, NodeId), (Vec<u32>, Option<usize>)>;

/// Records a call at `line` that may reach any one of `candidates`: an edge to each,
/// carrying their number.
fn edge_to_each(edges: &mut CallEdges, caller: NodeId, candidates: &[NodeId], line: usize) {
    for t in candidates {
        let e = edges
            .entry((caller, *t))
            .or_insert((Vec::new(), Some(candidates.len())));
        e.0.push(line as u32);
    }
}

/// Writes the Calls edges of one file's resolved calls with their lines (external targets
/// become external nodes), and counts and reports what stayed unresolved, against the
/// file at `path`.
pub(crate) fn write_calls(
    run: &mut Run,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    path: &str,
    module: Option<NodeId>,
    calls: &[ResolvedCall],
) -> Result<(), IndexError> {
    // Per caller and callee: the lines, and for a call that may reach several overloads
    // the number of candidates (a certain call of the same pair wins).
    let mut edges: CallEdges = BTreeMap::new();
    // Counted here and added to the run's counters once per file.
    let (mut resolved, mut external, mut unresolved) = (0u64, 0u64, 0u64);
    let mut first_unresolved: Option<(usize, String)> = None;
    // A file's calls come method by method: the caller's node is looked up once per run of
    // calls it makes, not once per call.
    let mut last_caller: Option<(&MethodKey, Option<NodeId>)> = None;
    for call in calls {
        let caller = match last_caller {
            Some((key, id)) if *key == call.caller => id,
            _ => {
                let id = nodes.methods.own(&call.caller, module);
                last_caller = Some((&call.caller, id));
                id
            }
        };
        let Some(caller) = caller else {
            continue;
        };
        let target = match &call.target {
            Target::Internal(key) => match nodes.methods.seen_from(key, module) {
                Seen::One(t) => Some(t),
                // The type is declared in several other modules: one of their copies.
                Seen::Several(copies) => {
                    run.stat("calls.ambiguous", 1);
                    run.stat("calls.ambiguous-module", 1);
                    edge_to_each(&mut edges, caller, &copies, call.line);
                    None
                }
                Seen::Missing => {
                    unresolved += 1;
                    None
                }
            },
            Target::External { type_fqn, method } => {
                external += 1;
                Some(external_method(run, w, nodes, type_fqn, method)?)
            }
            Target::Unresolved { reason } => {
                unresolved += 1;
                if first_unresolved.is_none() {
                    first_unresolved = Some((call.line, reason.clone()));
                }
                None
            }
            Target::Ambiguous(keys) => {
                let found: Vec<NodeId> = keys.iter().filter_map(|k| nodes.methods.own(k, module)).collect();
                if found.len() < 2 {
                    unresolved += 1;
                    if first_unresolved.is_none() {
                        first_unresolved = Some((call.line, "ambiguous overload".into()));
                    }
                } else {
                    run.stat("calls.ambiguous", 1);
                    edge_to_each(&mut edges, caller, &found, call.line);
                }
                None
            }
        };
        if let Some(t) = target {
            if matches!(call.target, Target::Internal(_)) {
                resolved += 1;
            }
            let e = edges.entry((caller, t)).or_default();
            e.0.push(call.line as u32);
            e.1 = None;
        }
    }
    for ((from, to), (mut lines, candidates)) in edges {
        lines.sort_unstable();
        lines.dedup();
        let via = candidates.map(|n| format!("{AMBIGUOUS_VIA}{n}"));
        w.add_edge_with(from, EdgeKind::Calls, to, &EdgeAttrs { lines, via })?;
    }
    if resolved > 0 {
        run.stat("calls.resolved", resolved);
    }
    if external > 0 {
        run.stat("calls.external", external);
    }
    if unresolved > 0 {
        run.stat("calls.unresolved", unresolved);
        let (line, reason) = first_unresolved.unwrap_or((0, "target not found".into()));
        run.warn(
            path,
            Some(line as u32),
            format!("{unresolved} call(s) not resolved, first: {reason}"),
        );
    }
    Ok(())
}

#[cfg(test)]
mod source_lines_tests {
    use super::SourceLines;

    #[test]
    fn spans_are_the_lines_str_lines_gives() {
        let texts = [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n",
            "\n\n",
            "x\ny\r",
            "\r\n\ra\n\nb",
        ];
        for text in texts {
            let lines = SourceLines::new(text);
            for start in 0usize..6 {
                for end in 0usize..6 {
                    let expected = lines_of(text, start, end);
                    assert_eq!(lines.span(start, end), expected, "{text:?} {start}..={end}");
                }
            }
        }
    }

    /// Lines `start..=end` (1-based) of `text` as `str::lines` gives them, joined by `\n`:
    /// what a span must be.
    fn lines_of(text: &str, start: usize, end: usize) -> String {
        text.lines()
            .skip(start.saturating_sub(1))
            .take(end.saturating_sub(start) + 1)
            .collect::<Vec<_>>()
            .join("\n")
    }

    proptest::proptest! {
        /// Any text of lines ended by `\n`, `\r\n`, a lone `\r` or nothing, any span.
        #[test]
        fn any_span_is_the_lines_str_lines_gives(
            text in "[ab\r\n]{0,40}",
            start in 0usize..14,
            len in 0usize..14,
        ) {
            let end = start + len;
            proptest::prop_assert_eq!(SourceLines::new(&text).span(start, end), lines_of(&text, start, end));
        }
    }
}

#[cfg(test)]
mod annotation_names_tests {
    use super::annotation_names;
    use crate::facts::Annotation;

    #[test]
    fn names_are_each_after_an_at_and_separated_by_spaces() {
        let named = |name: &str| Annotation {
            name: name.to_string(),
            args: Vec::new(),
            exprs: Vec::new(),
        };
        assert_eq!(annotation_names(&[]), "");
        assert_eq!(annotation_names(&[named("Override")]), "@Override");
        assert_eq!(
            annotation_names(&[named("Transactional"), named("org.x.Cached")]),
            "@Transactional @org.x.Cached"
        );
    }
}

#[cfg(test)]
mod method_print_tests {
    use super::{MethodDeclarations, MethodPrint, Seen};
    use crate::resolve::MethodKey;
    use semgraph_storage::NodeId;

    fn key(type_fqn: &str, name: &str, params: &[&str]) -> MethodKey {
        MethodKey {
            type_fqn: type_fqn.into(),
            name: name.into(),
            params: params.iter().map(|p| p.to_string()).collect(),
        }
    }

    /// Keys that differ only in where one part ends and the next begins, or in their
    /// parameters' order or number, have different fingerprints; equal keys the same.
    #[test]
    fn keys_that_differ_anywhere_have_different_fingerprints() {
        let keys = [
            key("a.B", "run", &[]),
            key("a.B", "run", &["int"]),
            key("a.B", "run", &["int", "long"]),
            key("a.B", "run", &["long", "int"]),
            key("a.B", "run", &["intlong"]),
            key("a.B", "run", &[""]),
            key("a.B", "ru", &["n"]),
            key("a.Br", "un", &[]),
            key("a.C", "run", &[]),
        ];
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                assert_eq!(MethodPrint::of(a) == MethodPrint::of(b), i == j, "{a:?} / {b:?}");
            }
        }
        assert_eq!(
            MethodPrint::of(&key("a.B", "run", &["int"])),
            MethodPrint::of(&key("a.B", "run", &["int"]))
        );
    }

    #[test]
    fn a_method_is_found_by_its_key_and_by_no_other() {
        let mut methods = MethodDeclarations::default();
        let id = NodeId(7);
        methods.insert(&key("a.B", "run", &["int"]), id, None);
        assert_eq!(methods.own(&key("a.B", "run", &["int"]), None), Some(id));
        assert_eq!(methods.own(&key("a.B", "run", &["long"]), None), None);
        assert!(matches!(
            methods.seen_from(&key("a.B", "run", &[]), None),
            Seen::Missing
        ));
    }
}
