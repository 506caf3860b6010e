//! The shared vocabulary of semgraph: what a node and an edge are.
//!
//! Every crate above storage speaks in these terms. Node ids are dense `u32`s so that any
//! set of nodes is a roaring bitmap; kinds are small enums with stable on-disk codes.

use std::fmt;

use bincode::{Decode, Encode};

/// The dense id of a node in the served graph.
///
/// Ids are reused after the generation that freed them is no longer read by anyone, which
/// keeps them dense; they are never more than [`NodeId::MAX`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Encode, Decode)]
pub struct NodeId(pub u32);

impl NodeId {
    /// The largest id the store hands out: the in-memory adjacency packs an edge kind into
    /// the top four bits of a 32-bit neighbour entry.
    pub const MAX: u32 = (1 << 28) - 1;
}

impl fmt::Display for NodeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// The dense id of a product, assigned the first time a product is indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Encode, Decode)]
pub struct ProductId(pub u32);

/// Generates a `#[repr(u8)]` enum with stable codes, names and an `ALL` list.
macro_rules! coded_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $code:literal => $text:literal,)* }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $code,)*
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The stable one-byte code used in keys.
            pub fn code(self) -> u8 {
                self as u8
            }

            /// The value with this code, if any.
            pub fn from_code(code: u8) -> Option<Self> {
                match code {
                    $($code => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The lowercase name used in documents and parameters.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Parses the lowercase name (as written by [`Self::as_str`]).
            pub fn parse(text: &str) -> Option<Self> {
                match text {
                    $($text => Some($name::$variant),)*
                    _ => None,
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        // On disk a kind is its one-byte code, never its position in the enum.
        impl Encode for $name {
            fn encode<E: bincode::enc::Encoder>(&self, encoder: &mut E) -> Result<(), bincode::error::EncodeError> {
                Encode::encode(&self.code(), encoder)
            }
        }

        impl<Context> Decode<Context> for $name {
            fn decode<D: bincode::de::Decoder<Context = Context>>(decoder: &mut D) -> Result<Self, bincode::error::DecodeError> {
                let code: u8 = Decode::decode(decoder)?;
                $name::from_code(code).ok_or(bincode::error::DecodeError::Other("unknown kind code"))
            }
        }

        bincode::impl_borrow_decode!($name);
    };
}

coded_enum! {
    /// What a node is in the company's software.
    NodeKind {
        /// A product: the unit of indexing and of ownership (it belongs to one area).
        Product = 0 => "product",
        /// A source repository of a product.
        Repo = 1 => "repo",
        /// A deployable module: its own `spring.application.name` or main class.
        Service = 2 => "service",
        /// A file of a repository.
        File = 3 => "file",
        /// A Java package.
        Package = 4 => "package",
        /// A class, interface, enum, record or annotation type.
        Type = 5 => "type",
        /// A method or constructor.
        Method = 6 => "method",
        /// A field of a type.
        Field = 7 => "field",
        /// An HTTP verb and route, or a servlet mapping.
        Endpoint = 8 => "endpoint",
        /// A non-HTTP trigger: a scheduled job, a message listener, `main`.
        EntryPoint = 9 => "entry-point",
        /// An outbound HTTP call: verb, URL template, target service.
        HttpCall = 10 => "http-call",
        /// A Kafka topic, RabbitMQ queue or exchange, or JMS destination.
        Topic = 11 => "topic",
        /// A database table.
        Table = 12 => "table",
        /// A column of a table.
        Column = 13 => "column",
        /// An index on a table.
        Index = 14 => "index",
        /// A trigger on a table.
        Trigger = 15 => "trigger",
        /// A view.
        View = 16 => "view",
        /// A stored function or procedure.
        Routine = 17 => "routine",
        /// A configuration key.
        ConfigKey = 18 => "config-key",
        /// A wiki page.
        WikiPage = 19 => "wiki-page",
        /// A Jira issue.
        JiraIssue = 20 => "jira-issue",
    }
}

coded_enum! {
    /// How two nodes are related. Every edge is stored in both directions.
    EdgeKind {
        /// A parent holds a child (product → repo → file → type → method …).
        Contains = 0 => "contains",
        /// A method calls a method (calls through an interface land on the interface method).
        Calls = 1 => "calls",
        /// A method overrides a superclass method.
        Overrides = 2 => "overrides",
        /// A type (or method) implements an interface (method).
        Implements = 3 => "implements",
        /// A type extends a type.
        Extends = 4 => "extends",
        /// An endpoint or entry point is served by its handler method.
        Serves = 5 => "serves",
        /// An outbound HTTP call resolves to an endpoint, possibly of another product.
        Invokes = 6 => "invokes",
        /// A method publishes to a topic.
        Produces = 7 => "produces",
        /// A method consumes a topic.
        Consumes = 8 => "consumes",
        /// A method (or view, routine) reads a table.
        Reads = 9 => "reads",
        /// A method (or trigger, routine) writes a table.
        Writes = 10 => "writes",
        /// An entity type maps to a table.
        MapsTo = 11 => "maps-to",
        /// A view, trigger, routine or foreign key refers to a table or column.
        References = 12 => "references",
        /// A method or type reads a configuration key.
        UsesConfig = 13 => "uses-config",
        /// A wiki page or Jira issue mentions a node.
        Mentions = 14 => "mentions",
    }
}

coded_enum! {
    /// The kinds of content: text that only the owning area may read.
    ContentKind {
        /// Source code of a type or method.
        Source = 0 => "source",
        /// SQL text: DDL, view/trigger/routine bodies, SQL strings in code.
        Sql = 1 => "sql",
        /// A configuration value.
        ConfigValue = 2 => "config-value",
        /// Wiki text or a Jira description.
        Text = 3 => "text",
    }
}

/// Which way an edge is followed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From source to target (callees).
    Out,
    /// From target to source (callers).
    In,
}

/// Boolean facts about a node, packed in a `u32`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Encode, Decode)]
pub struct NodeFlags(pub u32);

impl NodeFlags {
    /// Outside the product's own sources (a library type such as `RestTemplate`).
    pub const EXTERNAL: NodeFlags = NodeFlags(1);
    /// Test code.
    pub const TEST: NodeFlags = NodeFlags(1 << 1);
    /// Declared `public`.
    pub const PUBLIC: NodeFlags = NodeFlags(1 << 2);
    /// Declared `static`.
    pub const STATIC: NodeFlags = NodeFlags(1 << 3);
    /// Declared `abstract`, or an interface method without a body.
    pub const ABSTRACT: NodeFlags = NodeFlags(1 << 4);
    /// Generated code.
    pub const GENERATED: NodeFlags = NodeFlags(1 << 5);
    /// Marked deprecated.
    pub const DEPRECATED: NodeFlags = NodeFlags(1 << 6);

    /// Every single flag with its stable name; the store keeps a set of nodes per flag.
    pub const ALL: &'static [(NodeFlags, &'static str)] = &[
        (NodeFlags::EXTERNAL, "external"),
        (NodeFlags::TEST, "test"),
        (NodeFlags::PUBLIC, "public"),
        (NodeFlags::STATIC, "static"),
        (NodeFlags::ABSTRACT, "abstract"),
        (NodeFlags::GENERATED, "generated"),
        (NodeFlags::DEPRECATED, "deprecated"),
    ];

    /// The position of a single flag in [`NodeFlags::ALL`] (None for none or several).
    pub(crate) fn slot(self) -> Option<usize> {
        NodeFlags::ALL.iter().position(|(f, _)| *f == self)
    }

    /// True when every flag of `other` is set.
    pub fn contains(self, other: NodeFlags) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for NodeFlags {
    type Output = NodeFlags;
    fn bitor(self, rhs: NodeFlags) -> NodeFlags {
        NodeFlags(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for NodeFlags {
    fn bitor_assign(&mut self, rhs: NodeFlags) {
        self.0 |= rhs.0;
    }
}

/// A line span in a file, 1-based and inclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub struct Span {
    /// First line.
    pub start_line: u32,
    /// Last line.
    pub end_line: u32,
}

/// A node of the graph: structure only (its content, if any, is stored apart).
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct Node {
    /// The node's id in the generation it was read from.
    pub id: NodeId,
    /// What it is.
    pub kind: NodeKind,
    /// The product that owns it.
    pub product: ProductId,
    /// Its short name (`placeOrder`, `orders`, `GET /api/orders/{id}`).
    pub name: String,
    /// Its fully-qualified name, where one exists (`com.acme.orders.OrderService.placeOrder`).
    pub fqn: Option<String>,
    /// The file it is declared in, relative to its repository.
    pub file: Option<String>,
    /// Where in that file.
    pub span: Option<Span>,
    /// Boolean facts.
    pub flags: NodeFlags,
    /// Kind-specific facts (`verb`, `route`, `broker`, `signature`, `type`…), sorted by key.
    pub attrs: Vec<(String, String)>,
}

impl Node {
    /// The value of attribute `key`, if present.
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| self.attrs[i].1.as_str())
    }

    /// The fqn when there is one, else the name.
    pub fn display_name(&self) -> &str {
        self.fqn.as_deref().unwrap_or(&self.name)
    }
}

/// A node as an indexer describes it, before the store gives it an id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewNode {
    /// What it is.
    pub kind: Option<NodeKind>,
    /// Short name.
    pub name: String,
    /// Fully-qualified name.
    pub fqn: Option<String>,
    /// File relative to the repository.
    pub file: Option<String>,
    /// Line span.
    pub span: Option<Span>,
    /// Boolean facts.
    pub flags: NodeFlags,
    /// Kind-specific facts, in any order (the store sorts them).
    pub attrs: Vec<(String, String)>,
}

impl NewNode {
    /// A node of `kind` named `name`.
    pub fn new(kind: NodeKind, name: impl Into<String>) -> Self {
        NewNode {
            kind: Some(kind),
            name: name.into(),
            ..NewNode::default()
        }
    }

    /// With a fully-qualified name.
    pub fn fqn(mut self, fqn: impl Into<String>) -> Self {
        self.fqn = Some(fqn.into());
        self
    }

    /// Declared in `file` at `start..=end`.
    pub fn at(mut self, file: impl Into<String>, start_line: u32, end_line: u32) -> Self {
        self.file = Some(file.into());
        self.span = Some(Span { start_line, end_line });
        self
    }

    /// With these flags added.
    pub fn flags(mut self, flags: NodeFlags) -> Self {
        self.flags |= flags;
        self
    }

    /// With an attribute.
    pub fn attr(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.attrs.push((key.into(), value.into()));
        self
    }
}

/// Facts about one edge: where in the source it was seen and how it was found.
#[derive(Clone, Debug, Default, PartialEq, Eq, Encode, Decode)]
pub struct EdgeAttrs {
    /// The lines (of the source node's file) where the edge was seen, e.g. call sites.
    pub lines: Vec<u32>,
    /// How the edge was found (`jdbc-template`, `feign`, `interface-dispatch`…), if said.
    pub via: Option<String>,
}

/// How a link declaration is resolved against the anchors of every product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Encode, Decode)]
pub enum LinkPolicy {
    /// Link only when exactly one anchor answers to the key; several is "ambiguous".
    Unique,
    /// Link to every anchor that answers (a topic shared by many products).
    All,
}

/// A file-level problem met while indexing: the file (or statement) was skipped.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct Warning {
    /// The file, relative to its repository or the config.
    pub file: String,
    /// The line, when known.
    pub line: Option<u32>,
    /// What went wrong, for a person.
    pub message: String,
}

/// Whether an index run ended in a commit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Encode, Decode)]
pub enum RunStatus {
    /// Committed: the run's graph is (or was) served.
    Committed,
    /// Aborted by the indexer, or cut short by a crash (found on the next open).
    Interrupted,
}

/// One index run of one product, as recorded in the store's meta.
#[derive(Clone, Debug, PartialEq, Eq, Encode, Decode)]
pub struct IndexRun {
    /// The run's id, increasing across the store.
    pub id: u64,
    /// The product it indexed.
    pub product: ProductId,
    /// Start, in milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    /// End (commit or abort), in milliseconds since the Unix epoch.
    pub finished_at_ms: u64,
    /// How it ended.
    pub status: RunStatus,
    /// Nodes per kind (kind name, count).
    pub counts: Vec<(String, u64)>,
    /// Edges written by the run.
    pub edges: u64,
    /// Named phases and their durations in milliseconds (`parse`, `resolve`, `commit`…).
    pub timings: Vec<(String, u64)>,
    /// Indexer-defined counters (`calls.unresolved`, …).
    pub stats: Vec<(String, u64)>,
    /// Every file-level problem.
    pub warnings: Vec<Warning>,
}

/// A product as the served generation knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProductInfo {
    /// Its id.
    pub id: ProductId,
    /// Its name.
    pub name: String,
    /// The area that owns its content.
    pub area: String,
    /// The committed run whose graph is served.
    pub run: u64,
    /// Number of nodes.
    pub node_count: u64,
}
