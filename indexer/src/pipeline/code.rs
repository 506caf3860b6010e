//! Java sources into the graph: packages, types, methods, fields, the type hierarchy, and
//! resolved calls with their call-site lines.
//!
//! Two passes over the files, each in small parallel chunks, so memory follows the
//! product's declarations rather than its bodies. The first writes every file's nodes and
//! content and keeps a skeleton of it (types, fields, constants, signatures — no call
//! sites); the symbol table and the hierarchy are built from the skeletons. The second
//! parses each chunk again and resolves its calls against the whole table: to a method of
//! the product, to an external method (a library type such as `RestTemplate`, kept as an
//! external node), or to nothing — an unresolved call is counted and reported per file,
//! never guessed into an edge — and writes what hangs from method bodies (endpoints,
//! table access, config use, clients, topics).

use std::collections::{BTreeMap, HashMap, HashSet};

use rayon::prelude::*;
use semgraph_storage::{
    ContentKind, EdgeAttrs, EdgeKind, LinkPolicy, NewNode, NodeFlags, NodeId, NodeKind, ProductWriter,
    Warning,
};

use super::ProductRun;
use crate::error::IndexError;
use crate::java::{self, JavaFile, MethodKey, SymbolTable, Target, TypeDecl, TypeKind};
use crate::keys;
use crate::walk::{self, SourceFile, SourceKind};

/// Files parsed at once: bounds the source text held in memory.
const CHUNK: usize = 64;

/// One file after the parallel step: its warnings, and its text and facts when readable.
type ParsedSource = (Vec<Warning>, Option<(String, JavaFile)>);

/// The product's Java nodes, for the passes that hang more facts from them.
#[derive(Default)]
pub(super) struct CodeNodes {
    pub(super) types: HashMap<String, NodeId>,
    pub(super) methods: HashMap<MethodKey, NodeId>,
    external_types: HashMap<String, NodeId>,
    external_methods: HashMap<(String, String), NodeId>,
    packages: HashMap<String, NodeId>,
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

/// The resolver's key of method `m` of type `t`.
pub(super) fn method_key(t: &TypeDecl, m: &java::MethodDecl) -> MethodKey {
    MethodKey {
        type_fqn: t.fqn.clone(),
        name: m.name.clone(),
        params: m.params.iter().map(|p| java::simple_name(&p.ty)).collect(),
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
            text.bytes()
                .enumerate()
                .filter(|&(i, b)| b == b'\n' && i + 1 < text.len())
                .map(|(i, _)| i + 1),
        );
        SourceLines { text, starts }
    }

    /// Lines `start..=end` (1-based) joined by `\n`, without line terminators.
    fn span(&self, start: usize, end: usize) -> String {
        let first = start.saturating_sub(1).min(self.starts.len());
        let last = (first + end.saturating_sub(start) + 1).min(self.starts.len());
        let mut out = String::new();
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
        out
    }
}

fn annotation_names(annotations: &[java::Annotation]) -> String {
    annotations
        .iter()
        .map(|a| format!("@{}", a.name))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Parses, writes and resolves the Java sources of one repository; `service_of` gives the
/// service a file belongs to, for its endpoints.
pub(super) fn index_java(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    files: &[SourceFile],
    file_nodes: &BTreeMap<String, NodeId>,
    service_of: &dyn Fn(&str) -> Option<(NodeId, String)>,
    resolve: &dyn Fn(&str, &str) -> String,
    config_keys: &super::config_usage::ConfigKeys,
) -> Result<CodeNodes, IndexError> {
    let sources: Vec<&SourceFile> = files.iter().filter(|f| f.kind == SourceKind::Java).collect();
    let mut nodes = CodeNodes::default();
    // Pass 1: nodes and content of every file; what later passes look up across files is
    // kept as a skeleton (structure without call sites), so memory follows the product's
    // declarations, not its bodies.
    let mut skeletons: Vec<JavaFile> = Vec::with_capacity(sources.len());
    let mut data = super::data_access::DataModel::default();
    for chunk in sources.chunks(CHUNK) {
        let parsed: Vec<ParsedSource> = chunk
            .par_iter()
            .map(|f| {
                let mut warnings = Vec::new();
                let parsed = walk::read_source(f, &mut warnings).map(|text| {
                    let facts = java::parse_java_file(&f.rel, &text);
                    (text, facts)
                });
                (warnings, parsed)
            })
            .collect();
        for (f, (warnings, parsed)) in chunk.iter().zip(parsed) {
            run.warnings.extend(warnings);
            let Some((text, file)) = parsed else {
                continue;
            };
            if let Some((line, message)) = file.diagnostics.first() {
                run.warn(
                    &f.rel,
                    Some(*line as u32),
                    format!(
                        "{} syntax error(s), first: {message}; the rest of the file is indexed",
                        file.diagnostics.len()
                    ),
                );
            }
            let file_node = file_nodes.get(&f.rel).copied();
            write_file(run, w, &mut nodes, f, file_node, &text, &file)?;
            data.collect(&file);
            skeletons.push(skeleton(file));
        }
    }

    let table = SymbolTable::build(skeletons.iter());
    write_hierarchy(run, w, &mut nodes, &skeletons, &table)?;
    let types: HashMap<&str, &TypeDecl> = skeletons
        .iter()
        .flat_map(|f| &f.types)
        .map(|t| (t.fqn.as_str(), t))
        .collect();
    let producers = Producers {
        types: types.clone(),
        table: &table,
        resolve,
        data: &data,
        config_keys,
    };
    let values = super::values::Values {
        types,
        table: &table,
        resolve,
    };

    // Pass 2: the files again, a chunk at a time, parsed anew (cheaper in memory than
    // keeping every body) for everything that hangs from method bodies.
    let mut topics = super::entry_points::Topics::default();
    for chunk in sources.chunks(CHUNK) {
        let facts: Vec<JavaFile> = chunk
            .par_iter()
            .filter_map(|f| {
                // Problems reading the file were reported by the first pass.
                let mut already_reported = Vec::new();
                walk::read_source(f, &mut already_reported).map(|text| java::parse_java_file(&f.rel, &text))
            })
            .collect();
        for file in &facts {
            let service = service_of(&file.path);
            let service = service.as_ref().map(|(id, name)| (*id, name.as_str()));
            let methods = &nodes.methods;
            let method_node = |key: &MethodKey| methods.get(key).copied();
            let types = &nodes.types;
            let type_node = |fqn: &str| types.get(fqn).copied();
            super::data_access::write_declared(run, w, &data, file, &type_node, &method_node)?;
            super::config_usage::write_config_usage(run, w, config_keys, file, &type_node, &method_node)?;
            super::endpoints::write_endpoints(run, w, file, service, &method_node)?;
            let path = file.path.clone();
            super::endpoints::write_feign_calls(run, w, file, &method_node, &|v| resolve(&path, v))?;
            super::entry_points::write_entry_points(
                run,
                w,
                &mut topics,
                file,
                service,
                &method_node,
                &|v| resolve(&path, v),
            )?;
        }
        write_calls(run, w, &mut nodes, &facts, &table, &producers, &mut topics)?;
        for file in &facts {
            super::boundaries::write_file_boundaries(run, w, &mut topics, &values, file, service_of, &nodes)?;
        }
    }
    super::boundaries::write_declared_endpoints(
        run, w, &skeletons, files, &table, &nodes, service_of, resolve,
    )?;
    Ok(nodes)
}

/// A file's structure for lookups from other files: types, fields, constants, method
/// signatures and annotations, the field assignments of every method (a field set once, in
/// a constructor, is a value), constructors whole — without call sites, locals, string
/// literals or initialisers of other methods, which only the file's own pass needs.
fn skeleton(mut file: JavaFile) -> JavaFile {
    for t in &mut file.types {
        for m in t.methods.iter_mut().filter(|m| m.name != "<init>") {
            // Only assignments to fields matter elsewhere ("set once, in a constructor").
            let locals = std::mem::take(&mut m.locals);
            m.assignments
                .retain(|(name, _)| !locals.iter().any(|l| l.name == *name));
            m.calls = Vec::new();
            m.strings = Vec::new();
            m.local_inits = Vec::new();
            m.string_locals = Vec::new();
        }
    }
    file.diagnostics = Vec::new();
    // A fresh copy, made on this thread: the parse allocated the facts in the parser
    // threads' heaps, and keeping pieces of them would pin those heaps' pages for the
    // whole run (the copy keeps the process flat; the original is freed here).
    file.clone()
}

fn write_file(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    f: &SourceFile,
    file_node: Option<NodeId>,
    text: &str,
    file: &JavaFile,
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
        w.add_anchor(id, &keys::java_type(&t.fqn))?;
        if !t.anonymous {
            w.add_anchor(id, &keys::java_type_simple(&t.name))?;
        }
        match t.outer.as_ref().and_then(|o| nodes.types.get(o)) {
            Some(&outer) => w.add_edge(outer, EdgeKind::Contains, id)?,
            None => {
                if let Some(file_node) = file_node {
                    w.add_edge(file_node, EdgeKind::Contains, id)?;
                }
                if let Some(p) = package {
                    w.add_edge(p, EdgeKind::Contains, id)?;
                }
            }
        }
        nodes.types.insert(t.fqn.clone(), id);

        for field in &t.fields {
            let mut flags = base_flags;
            if field.modifiers.iter().any(|m| m == "static") {
                flags |= NodeFlags::STATIC;
            }
            let mut node = NewNode::new(NodeKind::Field, &field.name)
                .fqn(format!("{}.{}", t.fqn, field.name))
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
            let params: Vec<String> = m.params.iter().map(|p| java::simple_name(&p.ty)).collect();
            let signature = format!("{}({})", m.name, params.join(", "));
            let mut node = NewNode::new(NodeKind::Method, &m.name)
                .fqn(format!("{}.{}", t.fqn, m.name))
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
                w.add_anchor(mid, &keys::java_method(&format!("{}.{}", t.fqn, m.name)))?;
                if !t.anonymous {
                    w.add_anchor(mid, &keys::java_method_simple(&format!("{}.{}", t.name, m.name)))?;
                }
            }
            nodes.methods.insert(method_key(t, m), mid);
        }
    }
    run.stat("java.files", 1);
    Ok(())
}

fn external_type(
    run: &mut ProductRun,
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
    run: &mut ProductRun,
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

fn type_node(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    fqn: &str,
) -> Result<NodeId, IndexError> {
    match nodes.types.get(fqn) {
        Some(&id) => Ok(id),
        None => external_type(run, w, nodes, fqn),
    }
}

/// Extends and Implements between types; Overrides and Implements between methods.
fn write_hierarchy(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    facts: &[JavaFile],
    table: &SymbolTable,
) -> Result<(), IndexError> {
    for t in facts.iter().flat_map(|f| &f.types) {
        let Some(info) = table.get(&t.fqn) else {
            continue;
        };
        let Some(&id) = nodes.types.get(&t.fqn) else {
            continue;
        };
        if let Some(sup) = &info.superclass {
            let to = type_node(run, w, nodes, sup)?;
            w.add_edge(id, EdgeKind::Extends, to)?;
        }
        for iface in &info.interfaces {
            let to = type_node(run, w, nodes, iface)?;
            let kind = if t.kind == TypeKind::Interface {
                EdgeKind::Extends
            } else {
                EdgeKind::Implements
            };
            w.add_edge(id, kind, to)?;
        }
        // Every internal ancestor, nearest first.
        let mut ancestors: Vec<String> = Vec::new();
        let mut queue: Vec<String> = info.superclass.iter().chain(&info.interfaces).cloned().collect();
        while let Some(a) = queue.pop() {
            if ancestors.contains(&a) || ancestors.len() > 64 {
                continue;
            }
            if let Some(ai) = table.get(&a) {
                queue.extend(ai.superclass.iter().chain(&ai.interfaces).cloned());
            }
            ancestors.push(a);
        }
        for m in t
            .methods
            .iter()
            .filter(|m| m.name != "<init>" && !m.modifiers.iter().any(|x| x == "static"))
        {
            let key = method_key(t, m);
            let Some(&mid) = nodes.methods.get(&key) else {
                continue;
            };
            for a in &ancestors {
                let parent = MethodKey {
                    type_fqn: a.clone(),
                    ..key.clone()
                };
                if let Some(&pid) = nodes.methods.get(&parent) {
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
    }
    Ok(())
}

/// Broker templates whose send methods publish to the topic named by their first argument.
const PRODUCER_TYPES: &[(&str, &[&str], &str)] = &[
    (".KafkaTemplate", &["send"], "kafka"),
    (".RabbitTemplate", &["convertAndSend", "send"], "rabbitmq"),
    (".JmsTemplate", &["convertAndSend", "send"], "jms"),
];

/// What finding a producer's topic needs: the facts (constants, fields), the symbol table,
/// and the configuration resolver; and the data model and config keys, for the calls
/// that touch tables and read configuration.
struct Producers<'a> {
    types: HashMap<&'a str, &'a TypeDecl>,
    table: &'a SymbolTable,
    resolve: &'a dyn Fn(&str, &str) -> String,
    data: &'a super::data_access::DataModel,
    config_keys: &'a super::config_usage::ConfigKeys,
}

impl Producers<'_> {
    fn type_decl(&self, fqn: &str) -> Option<&TypeDecl> {
        self.types.get(fqn).copied()
    }

    /// The topic a producer call names, when its first argument is a literal, a constant
    /// or a field bound to a config key; `None` when the source does not say.
    fn topic(&self, file: &JavaFile, caller: &MethodKey, line: usize, method: &str) -> Option<String> {
        // The caller's own file has the bodies; the product-wide map only skeletons.
        let decl = file
            .types
            .iter()
            .find(|t| t.fqn == caller.type_fqn)
            .or_else(|| self.type_decl(&caller.type_fqn))?;
        let m = decl
            .methods
            .iter()
            .find(|m| m.name == caller.name && method_key(decl, m) == *caller)?;
        let site = m.calls.iter().find(|c| c.line == line && c.name == method)?;
        let arg = site.arg_texts.first()?.trim();
        let value = if let Some(literal) = arg.strip_prefix('"').and_then(|a| a.strip_suffix('"')) {
            literal.to_string()
        } else if let Some((owner, name)) = arg.rsplit_once('.') {
            let owner = self.table.resolve_type(owner, &caller.type_fqn)?;
            let t = self.type_decl(&owner.fqn)?;
            t.constants.iter().find(|(n, _)| n == name)?.1.clone()
        } else {
            // A constant of the caller's type or an enclosing one, or a config-bound field.
            let mut scope = Some(decl);
            let mut found = None;
            while let Some(t) = scope {
                if let Some((_, v)) = t.constants.iter().find(|(n, _)| n == arg) {
                    found = Some(v.clone());
                    break;
                }
                if let Some(f) = t.fields.iter().find(|f| f.name == arg) {
                    // Bound on the field, or on the constructor parameter of the same name
                    // that the constructor assigns to it.
                    found = config_binding(&f.annotations).or_else(|| {
                        t.methods
                            .iter()
                            .filter(|m| m.name == "<init>")
                            .flat_map(|m| &m.params)
                            .find(|p| p.name == arg)
                            .and_then(|p| config_binding(&p.annotations))
                    });
                    break;
                }
                scope = t.outer.as_deref().and_then(|o| self.type_decl(o));
            }
            found?
        };
        let resolved = (self.resolve)(&file.path, &value);
        (!resolved.is_empty() && !resolved.contains("${")).then_some(resolved)
    }
}

/// The `${…}` text of a `@Value` annotation among `annotations`.
fn config_binding(annotations: &[java::Annotation]) -> Option<String> {
    annotations
        .iter()
        .find(|a| a.name.rsplit('.').next() == Some("Value"))
        .and_then(|a| a.args.iter().find(|(k, _)| k == "value"))
        .and_then(|(_, v)| v.first().cloned())
}

/// Resolves every call of every file and writes the Calls edges with their lines, and the
/// Produces links of calls to broker templates.
fn write_calls(
    run: &mut ProductRun,
    w: &mut ProductWriter,
    nodes: &mut CodeNodes,
    facts: &[JavaFile],
    table: &SymbolTable,
    producers: &Producers<'_>,
    topics: &mut super::entry_points::Topics,
) -> Result<(), IndexError> {
    let resolved: Vec<Vec<java::ResolvedCall>> =
        facts.par_iter().map(|f| java::resolve_calls(f, table)).collect();
    for (file, calls) in facts.iter().zip(resolved) {
        super::data_access::write_call_accesses(run, w, producers.data, file, &calls, &nodes.methods)?;
        super::config_usage::write_call_usages(
            run,
            w,
            producers.config_keys,
            producers.data,
            file,
            &calls,
            &nodes.methods,
        )?;
        let mut edges: BTreeMap<(NodeId, NodeId), Vec<u32>> = BTreeMap::new();
        let mut unresolved = 0u64;
        let mut first_unresolved: Option<(usize, String)> = None;
        for call in calls {
            let Some(&caller) = nodes.methods.get(&call.caller) else {
                continue;
            };
            let target = match &call.target {
                Target::Internal(key) => match nodes.methods.get(key) {
                    Some(&t) => Some(t),
                    None => {
                        unresolved += 1;
                        None
                    }
                },
                Target::External { type_fqn, method } => {
                    run.stat("calls.external", 1);
                    let producer = PRODUCER_TYPES.iter().find(|(suffix, methods, _)| {
                        type_fqn.ends_with(suffix) && methods.contains(&method.as_str())
                    });
                    if let Some((_, _, broker)) = producer {
                        match producers.topic(file, &call.caller, call.line, method) {
                            Some(topic) => {
                                topics.node(run, w, broker, &topic)?;
                                w.add_link(caller, EdgeKind::Produces, &keys::topic(broker, &topic), LinkPolicy::All)?;
                                run.stat("producers", 1);
                            }
                            None => run.warn(
                                &file.path,
                                Some(call.line as u32),
                                format!("{broker} producer: the topic of {method}(…) is not a literal, constant or config-bound field"),
                            ),
                        }
                    }
                    Some(external_method(run, w, nodes, type_fqn, method)?)
                }
                Target::Unresolved { reason } => {
                    unresolved += 1;
                    if first_unresolved.is_none() {
                        first_unresolved = Some((call.line, reason.clone()));
                    }
                    None
                }
            };
            if let Some(t) = target {
                if matches!(call.target, Target::Internal(_)) {
                    run.stat("calls.resolved", 1);
                }
                edges.entry((caller, t)).or_default().push(call.line as u32);
            }
        }
        for ((from, to), mut lines) in edges {
            lines.sort_unstable();
            lines.dedup();
            w.add_edge_with(from, EdgeKind::Calls, to, &EdgeAttrs { lines, via: None })?;
        }
        if unresolved > 0 {
            run.stat("calls.unresolved", unresolved);
            let (line, reason) = first_unresolved.unwrap_or((0, "target not found".into()));
            run.warn(
                &file.path,
                Some(line as u32),
                format!("{unresolved} call(s) not resolved, first: {reason}"),
            );
        }
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
                    let expected = text
                        .lines()
                        .skip(start.saturating_sub(1))
                        .take(end.saturating_sub(start) + 1)
                        .collect::<Vec<_>>()
                        .join("\n");
                    assert_eq!(lines.span(start, end), expected, "{text:?} {start}..={end}");
                }
            }
        }
    }
}
