//! Liquibase front-end: one changelog file in — XML, YAML, JSON or formatted SQL — and its
//! properties, includes and changesets out, each change turned into the same schema facts
//! the SQL front-end gives ([`crate::lang::sql::SchemaStatement`]), so one replay applies
//! Flyway scripts and Liquibase changesets alike.
//!
//! XML is read with roxmltree, YAML and JSON with yaml-rust2's event parser (JSON is YAML;
//! serde_json reads what the YAML parser refuses, without line numbers). The three share one
//! element tree ([`Element`]): YAML's `- createTable: {tableName: …, columns: [- column: …]}`
//! is XML's `<createTable tableName="…"><column …/></createTable>`, so `changes.rs` reads
//! every change once. Only a changeset's changes count: `<rollback>`, `preConditions` and
//! comments are never applied. `${…}` placeholders are expanded when changes are read
//! (`changes::Expander`), with the properties known at that point of the changelog tree.
//!
//! `changelogs.rs` finds the master changelogs of a repository and walks their `include`
//! and `includeAll` in the order Liquibase applies them. Never fails: a broken changelog is
//! a warning naming its file and line, and the rest still counts.

mod changelogs;
mod changes;
mod formatted;
mod tree;
mod xml;

#[cfg(test)]
mod tests;

pub(crate) use changelogs::{apply_changelogs, plan, ConfigLookup, ModuleChangelogs, Plan, Sources};
pub(crate) use formatted::is_formatted_sql;

use crate::lang::sql::{SqlDialect, SqlWarning};

/// A changelog's syntax, from its file name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// `.xml`.
    Xml,
    /// `.yaml`, `.yml`.
    Yaml,
    /// `.json`.
    Json,
    /// `.sql` with `--liquibase formatted sql`.
    FormattedSql,
}

impl Format {
    /// The format of a file called `path`, when Liquibase reads such files.
    pub(crate) fn of(path: &str) -> Option<Format> {
        let lower = path.to_ascii_lowercase();
        let ext = lower.rsplit_once('.').map(|(_, e)| e)?;
        Some(match ext {
            "xml" => Format::Xml,
            "yaml" | "yml" => Format::Yaml,
            "json" => Format::Json,
            "sql" => Format::FormattedSql,
            _ => return None,
        })
    }
}

/// A node of a changelog: an XML element, or a YAML/JSON mapping read as one (scalar
/// values are attributes, nested mappings and list items are children).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Element {
    /// The tag, or the key of a YAML mapping (`createTable`, `column`, `constraints`).
    pub(crate) name: String,
    /// Attributes in document order.
    pub(crate) attrs: Vec<(String, String)>,
    /// Child elements in document order.
    pub(crate) children: Vec<Element>,
    /// The text content (XML text and CDATA; a YAML scalar given as the value of the key).
    pub(crate) text: String,
    /// The 1-based line where it starts (0 when the reader could not tell).
    pub(crate) line: u32,
}

impl Element {
    /// The attribute `name`, as written.
    pub(crate) fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the attribute `name` is `true`.
    pub(crate) fn flag(&self, name: &str) -> bool {
        self.attr(name)
            .is_some_and(|v| v.trim().eq_ignore_ascii_case("true"))
    }

    /// The children called `name`.
    pub(crate) fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// The first child called `name`.
    pub(crate) fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
}

/// A `property` of a changelog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Property {
    /// `name`.
    pub(crate) name: String,
    /// `value`.
    pub(crate) value: String,
    /// `dbms`, as written: a value for some databases only.
    pub(crate) dbms: Option<String>,
    /// `context`, as written.
    pub(crate) context: Option<String>,
}

/// The filters and names of a changeset, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ChangeSetHeader {
    /// `id`.
    pub(crate) id: String,
    /// `author`.
    pub(crate) author: String,
    /// `dbms`.
    pub(crate) dbms: Option<String>,
    /// `context` or `contextFilter`.
    pub(crate) context: Option<String>,
    /// `labels`.
    pub(crate) labels: Option<String>,
    /// The 1-based line of the changeset.
    pub(crate) line: u32,
}

/// What a changeset holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Body {
    /// Changes of an XML, YAML or JSON changeset (placeholders not expanded yet).
    Changes(Vec<Element>),
    /// The SQL of a formatted-SQL changeset (or of a plain script a changelog includes),
    /// read by the SQL front-end once its placeholders are expanded.
    Sql {
        /// The statements' text.
        text: String,
        /// The dialect they are read in.
        dialect: SqlDialect,
        /// Lines of the file before `text` starts.
        offset: u32,
    },
}

/// One changeset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ChangeSet {
    /// Its id, author and filters.
    pub(crate) header: ChangeSetHeader,
    /// Its changes.
    pub(crate) body: Body,
    /// Its source text (the DDL content of the tables it creates).
    pub(crate) source: String,
}

/// An entry of a changelog, in document order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// `include file=…`.
    Include {
        /// The path as written.
        file: String,
        /// `relativeToChangelogFile`.
        relative: bool,
        /// The 1-based line.
        line: u32,
    },
    /// `includeAll path=…`.
    IncludeAll {
        /// The folder as written.
        path: String,
        /// `relativeToChangelogFile`.
        relative: bool,
        /// The 1-based line.
        line: u32,
    },
    /// `changeSet`.
    ChangeSet(ChangeSet),
}

/// One changelog file, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Changelog {
    /// Its syntax.
    pub(crate) format: Format,
    /// Its `property` entries, in order.
    pub(crate) properties: Vec<Property>,
    /// Includes and changesets, in order.
    pub(crate) entries: Vec<Entry>,
    /// What could not be read, by line.
    pub(crate) warnings: Vec<SqlWarning>,
}

/// Whether `text` (of a file called `path`) is a Liquibase changelog, from its first bytes
/// only: an XML or YAML/JSON document naming `databaseChangeLog`, or formatted SQL.
pub(crate) fn is_changelog(path: &str, text: &str) -> bool {
    match Format::of(path) {
        Some(Format::FormattedSql) => is_formatted_sql(text),
        Some(_) => {
            let mut end = text.len().min(16 * 1024);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            text.get(..end)
                .is_some_and(|head| head.contains("databaseChangeLog"))
        }
        None => false,
    }
}

/// Reads one changelog; `None` when the file is not one (a plain SQL script, an XML file
/// of another kind). Never fails: what cannot be read is a warning.
pub(crate) fn parse_changelog(path: &str, text: &str) -> Option<Changelog> {
    if !is_changelog(path, text) {
        return None;
    }
    match Format::of(path)? {
        Format::Xml => xml::parse(text),
        Format::Yaml => Some(tree::parse(text, Format::Yaml)),
        Format::Json => Some(tree::parse(text, Format::Json)),
        Format::FormattedSql => Some(formatted::parse(path, text)),
    }
}

/// Reads the root element of a changelog (XML, YAML or JSON) into a [`Changelog`].
fn from_root(root: &Element, format: Format, source: &dyn Fn(&Element, usize) -> String) -> Changelog {
    let mut log = Changelog {
        format,
        properties: Vec::new(),
        entries: Vec::new(),
        warnings: Vec::new(),
    };
    for (i, el) in root.children.iter().enumerate() {
        match el.name.as_str() {
            "property" => {
                // A property read from a file (`file=…`) is not followed.
                if let (Some(name), Some(value)) = (el.attr("name"), el.attr("value")) {
                    log.properties.push(Property {
                        name: name.to_owned(),
                        value: value.to_owned(),
                        dbms: el.attr("dbms").map(str::to_owned),
                        context: el
                            .attr("context")
                            .or_else(|| el.attr("contextFilter"))
                            .map(str::to_owned),
                    });
                }
            }
            "include" => match el.attr("file") {
                Some(file) => log.entries.push(Entry::Include {
                    file: file.to_owned(),
                    relative: el.flag("relativeToChangelogFile"),
                    line: el.line,
                }),
                None => log.warnings.push(SqlWarning {
                    line: el.line,
                    message: "include without `file`".to_owned(),
                }),
            },
            "includeAll" => match el.attr("path") {
                Some(path) => log.entries.push(Entry::IncludeAll {
                    path: path.to_owned(),
                    relative: el.flag("relativeToChangelogFile"),
                    line: el.line,
                }),
                None => log.warnings.push(SqlWarning {
                    line: el.line,
                    message: "includeAll without `path`".to_owned(),
                }),
            },
            "changeSet" => {
                let (Some(id), Some(author)) = (el.attr("id"), el.attr("author")) else {
                    log.warnings.push(SqlWarning {
                        line: el.line,
                        message: "changeSet without `id` or `author`, skipped".to_owned(),
                    });
                    continue;
                };
                let changes: Vec<Element> = el
                    .children
                    .iter()
                    .filter(|c| !IGNORED_IN_CHANGESET.contains(&c.name.as_str()))
                    .cloned()
                    .collect();
                log.entries.push(Entry::ChangeSet(ChangeSet {
                    header: ChangeSetHeader {
                        id: id.to_owned(),
                        author: author.to_owned(),
                        dbms: el.attr("dbms").map(str::to_owned),
                        context: el
                            .attr("context")
                            .or_else(|| el.attr("contextFilter"))
                            .map(str::to_owned),
                        labels: el.attr("labels").map(str::to_owned),
                        line: el.line,
                    },
                    body: Body::Changes(changes),
                    source: source(el, i),
                }));
            }
            _ => {}
        }
    }
    log
}

/// Children of a changeset that are not changes: never applied.
const IGNORED_IN_CHANGESET: &[&str] = &[
    "rollback",
    "preConditions",
    "precondition",
    "comment",
    "validCheckSum",
    "tagDatabase",
];
