//! Replaying a product's schema files into its final state.
//!
//! Facts of one file are not the schema: a Flyway `V2__` adds columns and foreign keys to a
//! table `V1__` created, and `PARTITION OF` children take their parent's columns. [`Schema`]
//! applies statements in order, matching names case-insensitively and without schema
//! qualifiers (table names are unique within a product), and keeps each object's spelling
//! as first written. Triggers are keyed by table and name (PostgreSQL names a trigger per
//! table, so fifteen `touch_updated_at` triggers on fifteen tables are fifteen triggers).
//!
//! When the caller says where statements come from ([`Schema::set_origin`]: a script, or a
//! Liquibase changeset of a changelog), every object remembers its [`Place`] and every table
//! its [`TableHistory`]: each definition (a table created in several files — one script per
//! dialect, or dropped and created again by a migration — has several) and each later
//! change made by another file or changeset.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use super::history::{Definition, Shape, TableChange, TableHistory};
use super::{
    AlterOp, Column, Index, ObjectKind, Routine, SchemaFile, SchemaStatement, Table, Trigger, UniqueKey, View,
};

/// What a table's history says of its drop.
const DROP_TABLE: &str = "drop table";

/// Most changes one table's history keeps; later ones are only counted.
const MAX_CHANGES: usize = 200;

/// Where statements come from: a script, or one changeset of a Liquibase changelog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Origin {
    /// The file, relative to the repository root.
    pub(crate) file: String,
    /// The Liquibase changeset, when the file is a changelog.
    pub(crate) changeset: Option<ChangeSetRef>,
}

/// A Liquibase changeset as its changelog names and filters it. Filters are recorded as
/// written, never evaluated: which database and contexts a deployment runs is not in the
/// sources.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ChangeSetRef {
    /// `id`.
    pub(crate) id: String,
    /// `author`.
    pub(crate) author: String,
    /// `dbms`, as written.
    pub(crate) dbms: Option<String>,
    /// `context` (or `contextFilter`), as written.
    pub(crate) context: Option<String>,
    /// `labels`, as written.
    pub(crate) labels: Option<String>,
}

impl Origin {
    /// How a reader finds it: `file:line`, then the changeset and its filters.
    pub(crate) fn label(&self, line: u32) -> String {
        let mut out = if line > 0 {
            format!("{}:{line}", self.file)
        } else {
            self.file.clone()
        };
        if let Some(c) = &self.changeset {
            out.push_str(&format!(" changeset {} by {}", c.id, c.author));
            for (what, value) in [("dbms", &c.dbms), ("context", &c.context), ("labels", &c.labels)] {
                if let Some(v) = value {
                    out.push_str(&format!(" [{what}: {v}]"));
                }
            }
        }
        out
    }
}

/// Where an object was made: its origin and the 1-based line of its statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The file (and changeset).
    pub(crate) origin: Arc<Origin>,
    /// The line.
    pub(crate) line: u32,
}

impl Place {
    /// `file:line` and the changeset.
    pub(crate) fn label(&self) -> String {
        self.origin.label(self.line)
    }
}

/// Objects keyed by lowercase name, in creation order; a re-created object keeps its place
/// in the order (its [`Place`] is the new one).
#[derive(Debug, Clone)]
struct Keyed<T> {
    items: Vec<Option<(T, Option<Place>)>>,
    by_name: HashMap<String, usize>,
}

impl<T> Default for Keyed<T> {
    fn default() -> Self {
        Self {
            items: Vec::new(),
            by_name: HashMap::new(),
        }
    }
}

impl<T> Keyed<T> {
    fn insert(&mut self, name: &str, item: T, place: Option<Place>) {
        let key = name.to_ascii_lowercase();
        match self.by_name.get(&key) {
            Some(&i) => self.items[i] = Some((item, place)),
            None => {
                self.by_name.insert(key, self.items.len());
                self.items.push(Some((item, place)));
            }
        }
    }

    /// Adds an object that has no name (it can never be replaced or dropped).
    fn push(&mut self, item: T, place: Option<Place>) {
        self.items.push(Some((item, place)));
    }

    fn get(&self, name: &str) -> Option<&T> {
        let i = *self.by_name.get(&name.to_ascii_lowercase())?;
        self.items.get(i)?.as_ref().map(|(t, _)| t)
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        let i = *self.by_name.get(&name.to_ascii_lowercase())?;
        self.items.get_mut(i)?.as_mut().map(|(t, _)| t)
    }

    fn remove(&mut self, name: &str) -> Option<(T, Option<Place>)> {
        let i = self.by_name.remove(&name.to_ascii_lowercase())?;
        self.items.get_mut(i)?.take()
    }

    /// Moves the object named `from` to the key `to`, keeping its place in the order; an
    /// object already at `to` is replaced.
    fn rekey(&mut self, from: &str, to: &str) {
        let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
        if from == to {
            return;
        }
        let Some(i) = self.by_name.remove(&from) else {
            return;
        };
        if let Some(old) = self.by_name.insert(to, i) {
            if let Some(slot) = self.items.get_mut(old) {
                *slot = None;
            }
        }
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten().map(|(t, _)| t)
    }

    fn iter_placed(&self) -> impl Iterator<Item = (&T, Option<&Place>)> {
        self.items.iter().flatten().map(|(t, p)| (t, p.as_ref()))
    }

    fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.items.iter_mut().flatten().map(|(t, _)| t)
    }

    fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for slot in &mut self.items {
            if slot.as_ref().is_some_and(|(item, _)| !keep(item)) {
                *slot = None;
            }
        }
        let items = &self.items;
        self.by_name
            .retain(|_, i| items.get(*i).is_some_and(Option::is_some));
    }
}

/// The key of a trigger: its table and its name.
fn trigger_key(table: &str, name: &str) -> String {
    format!("{table}.{name}").to_ascii_lowercase()
}

/// The schema state after applying files in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schema {
    tables: Keyed<Table>,
    indexes: Keyed<Index>,
    views: Keyed<View>,
    triggers: Keyed<Trigger>,
    routines: Keyed<Routine>,
    /// Where the statements being applied come from; `None` keeps no places or histories.
    origin: Option<Arc<Origin>>,
    /// The line of the statement being applied.
    line: u32,
    /// Each table's definitions and changes, by lowercase name.
    histories: HashMap<String, TableHistory>,
    /// Tables defined by the current file whose definition's final shape (the table as the
    /// file leaves it) is not taken yet.
    open: HashSet<String>,
    /// Where a column was added when another file or changeset than its table's
    /// definition added it (a later migration's `ADD COLUMN` lives in that migration's
    /// file), by lowercase table, then column.
    columns: HashMap<String, HashMap<String, Place>>,
    /// The slot of each unnamed index by table, columns and uniqueness.
    unnamed: HashMap<(String, Vec<String>, bool), usize>,
}

impl Schema {
    /// Says where the statements applied next come from. Leaving a file closes the
    /// definitions it made: each keeps the table as that file left it.
    pub(crate) fn set_origin(&mut self, origin: Origin) {
        let same_file = self.origin.as_ref().is_some_and(|o| o.file == origin.file);
        if !same_file {
            self.close_definitions();
        }
        self.origin = Some(Arc::new(origin));
    }

    /// Ends the replay: the definitions of the last file are closed, and the shapes of
    /// tables defined once are dropped (there is nothing to compare them with).
    pub(crate) fn finish(&mut self) {
        self.close_definitions();
        for history in self.histories.values_mut() {
            if let [only] = history.definitions.as_mut_slice() {
                only.shape = None;
            }
        }
    }

    /// Applies every statement of `file`, in order.
    pub(crate) fn apply(&mut self, file: &SchemaFile) {
        for (i, statement) in file.statements.iter().enumerate() {
            self.line = file.lines.get(i).copied().unwrap_or(0);
            self.apply_statement(statement);
        }
    }

    /// Applies every statement of `file`, in order, keeping its facts without copying them.
    pub(crate) fn absorb(&mut self, file: SchemaFile) {
        let lines = file.lines;
        for (i, statement) in file.statements.into_iter().enumerate() {
            self.line = lines.get(i).copied().unwrap_or(0);
            self.apply_owned(statement);
        }
    }

    /// Applies one statement. Changes to objects that do not exist are ignored, as a
    /// database would reject them.
    pub(crate) fn apply_statement(&mut self, statement: &SchemaStatement) {
        match statement {
            SchemaStatement::AlterTable { .. } | SchemaStatement::Drop { .. } => self.change(statement),
            other => self.apply_owned(other.clone()),
        }
    }

    /// Applies one statement read at `line` of the current origin.
    pub(crate) fn apply_at(&mut self, statement: SchemaStatement, line: u32) {
        self.line = line;
        self.apply_owned(statement);
    }

    /// Records something a change did to `table` that is no schema fact (Liquibase
    /// `loadData`): it shows in the table's history only.
    pub(crate) fn note(&mut self, table: &str, line: u32, what: &str) {
        if self.tables.get(table).is_some() {
            self.line = line;
            self.record(table, || what.to_owned());
        }
    }

    /// Where statements are applied now, at `line`.
    fn place(&self, line: u32) -> Option<Place> {
        self.origin.as_ref().map(|origin| Place {
            origin: Arc::clone(origin),
            line: if line > 0 { line } else { self.line },
        })
    }

    fn apply_owned(&mut self, statement: SchemaStatement) {
        match statement {
            SchemaStatement::CreateTable(table) => self.create_table(table),
            SchemaStatement::CreateIndex(index) => {
                let table = index.table.clone();
                let what = format!("create index {}", index_label(&index));
                self.add_index(index);
                self.record(&table, || what);
            }
            SchemaStatement::CreateView(view) => {
                let name = view.name.clone();
                let place = self.place(view.line);
                self.views.insert(&name, view, place);
            }
            SchemaStatement::CreateTrigger(trigger) => {
                let key = trigger_key(&trigger.table, &trigger.name);
                let (table, what) = (trigger.table.clone(), format!("create trigger {}", trigger.name));
                let place = self.place(trigger.line);
                self.triggers.insert(&key, trigger, place);
                self.record(&table, || what);
            }
            SchemaStatement::CreateRoutine(routine) => {
                let name = routine.name.clone();
                let place = self.place(routine.line);
                self.routines.insert(&name, routine, place);
            }
            other => self.change(&other),
        }
    }

    /// Applies an `ALTER` or a `DROP`.
    fn change(&mut self, statement: &SchemaStatement) {
        match statement {
            SchemaStatement::AlterTable { table, ops } => {
                // A rename moves the table: later operations of the statement name it anew.
                let mut current = table.clone();
                for op in ops {
                    // A named unique constraint's index is the constraint itself.
                    let constraint_index = matches!(op, AlterOp::AddIndex(ix) if ops.iter().any(|o| {
                        matches!(o, AlterOp::AddUnique(k) if k.name.is_some() && k.name == ix.name)
                    }));
                    if self.tables.get(&current).is_some() && !constraint_index {
                        let what = alter_label(op);
                        self.record(&current, || what);
                    }
                    self.alter(&current, op);
                    if let AlterOp::RenameTable(new) = op {
                        current.clone_from(new);
                    }
                }
            }
            SchemaStatement::Drop { kind, names, on } => {
                for name in names {
                    self.drop(*kind, name, on.as_deref());
                }
            }
            _ => {}
        }
    }

    /// Adds a change to `table`'s history when it comes from another file or changeset
    /// than the table's current definition (a script's own `ALTER`s are its definition).
    fn record(&mut self, table: &str, what: impl FnOnce() -> String) {
        let Some(place) = self.place(0) else {
            return;
        };
        let Some(history) = self.histories.get_mut(&table.to_ascii_lowercase()) else {
            return;
        };
        let defined_here = history
            .definitions
            .last()
            .is_some_and(|d| *d.place.origin == *place.origin);
        if defined_here {
            return;
        }
        if history.changes.len() < MAX_CHANGES {
            history.changes.push(TableChange { place, what: what() });
        } else {
            history.more_changes += 1;
        }
    }

    /// Takes the final shape of every definition the current file made.
    fn close_definitions(&mut self) {
        for key in std::mem::take(&mut self.open) {
            let shape = self.tables.get(&key).map(Shape::of);
            if let (Some(shape), Some(history)) = (shape, self.histories.get_mut(&key)) {
                if let Some(def) = history.definitions.last_mut() {
                    def.shape.get_or_insert(shape);
                }
            }
        }
    }

    /// Tables in creation order.
    pub(crate) fn tables(&self) -> Vec<&Table> {
        self.tables.iter().collect()
    }

    /// Tables in creation order, each with where its current definition was made.
    pub(crate) fn tables_placed(&self) -> Vec<(&Table, Option<&Place>)> {
        self.tables.iter_placed().collect()
    }

    /// The definitions and later changes of the table named `name`, when an origin was set.
    pub(crate) fn history(&self, name: &str) -> Option<&TableHistory> {
        self.histories.get(&name.to_ascii_lowercase())
    }

    /// The table named `name` (case-insensitive, unqualified).
    pub(crate) fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// Indexes in creation order.
    #[cfg(test)]
    pub(crate) fn indexes(&self) -> Vec<&Index> {
        self.indexes.iter().collect()
    }

    /// Indexes in creation order, each with where it was made.
    pub(crate) fn indexes_placed(&self) -> Vec<(&Index, Option<&Place>)> {
        self.indexes.iter_placed().collect()
    }

    /// Views in creation order.
    #[cfg(test)]
    pub(crate) fn views(&self) -> Vec<&View> {
        self.views.iter().collect()
    }

    /// Views in creation order, each with where it was made.
    pub(crate) fn views_placed(&self) -> Vec<(&View, Option<&Place>)> {
        self.views.iter_placed().collect()
    }

    /// Routines in creation order.
    #[cfg(test)]
    pub(crate) fn routines(&self) -> Vec<&Routine> {
        self.routines.iter().collect()
    }

    /// Routines in creation order, each with where it was made.
    pub(crate) fn routines_placed(&self) -> Vec<(&Routine, Option<&Place>)> {
        self.routines.iter_placed().collect()
    }

    /// Triggers in creation order. A trigger that executes a known routine touches what the
    /// routine's body touches, since the routine may be replaced after the trigger is made.
    pub(crate) fn triggers(&self) -> Vec<Trigger> {
        self.triggers_placed().into_iter().map(|(t, _)| t).collect()
    }

    /// Triggers as [`Schema::triggers`] gives them, each with where it was made.
    pub(crate) fn triggers_placed(&self) -> Vec<(Trigger, Option<&Place>)> {
        self.triggers
            .iter_placed()
            .map(|(t, place)| {
                let mut trigger = t.clone();
                if let Some(routine) = t.function.as_deref().and_then(|f| self.routines.get(f)) {
                    for touch in &routine.touches {
                        if !trigger.touches.contains(touch) {
                            trigger.touches.push(touch.clone());
                        }
                    }
                }
                (trigger, place)
            })
            .collect()
    }

    fn create_table(&mut self, mut table: Table) {
        // PARTITION OF and INHERITS children carry their parents' columns first; a partition
        // also has its parent's primary key.
        let mut parents: Vec<&str> = table.inherits.iter().map(String::as_str).collect();
        if let Some(parent) = table.partition_of.as_deref() {
            parents.insert(0, parent);
        }
        let mut inherited: Vec<Column> = Vec::new();
        for parent in parents {
            let Some(parent_table) = self.tables.get(parent) else {
                continue;
            };
            for col in &parent_table.columns {
                let own = table
                    .columns
                    .iter()
                    .any(|c| c.name.eq_ignore_ascii_case(&col.name));
                let dup = inherited.iter().any(|c| c.name.eq_ignore_ascii_case(&col.name));
                if !own && !dup {
                    inherited.push(col.clone());
                }
            }
            if table.partition_of.is_some() && table.primary_key.is_empty() {
                table.primary_key = parent_table.primary_key.clone();
            }
        }
        inherited.append(&mut table.columns);
        table.columns = inherited;
        let name = table.name.clone();
        let place = self.place(table.line);
        if let Some(place) = &place {
            let key = name.to_ascii_lowercase();
            // The definition this one replaces keeps the table as it was until now (two
            // changesets of one changelog, each for another database, both define it).
            let previous = self.tables.get(&key).map(Shape::of);
            if let Some(last) = self
                .histories
                .get_mut(&key)
                .and_then(|h| h.definitions.last_mut())
            {
                if last.shape.is_none() {
                    last.shape = previous;
                }
            }
            // A table created twice by one file (a script that drops and creates it again)
            // has one definition from that file.
            let history = self.histories.entry(key.clone()).or_default();
            let again_here = history
                .definitions
                .last()
                .is_some_and(|d| *d.place.origin == *place.origin);
            // A file that drops a table and creates it again defines it anew: its drop is
            // part of that definition, not a change to the old one.
            if history
                .changes
                .last()
                .is_some_and(|c| c.what == DROP_TABLE && *c.place.origin == *place.origin)
            {
                history.changes.pop();
            }
            if again_here {
                if let Some(def) = history.definitions.last_mut() {
                    def.place = place.clone();
                    def.shape = None;
                }
            } else {
                history.definitions.push(Definition {
                    place: place.clone(),
                    shape: None,
                });
            }
            self.open.insert(key);
        }
        // Its columns come with it.
        self.columns.remove(&name.to_ascii_lowercase());
        self.tables.insert(&name, table, place);
    }

    /// Where the column `column` of `table` was added, when another file or changeset than
    /// the table's definition added it.
    pub(crate) fn column_place(&self, table: &str, column: &str) -> Option<&Place> {
        self.columns
            .get(&table.to_ascii_lowercase())?
            .get(&column.to_ascii_lowercase())
    }

    /// Keeps the column places in step with a column change of `table`.
    fn move_columns(&mut self, table: &str, op: &AlterOp) {
        if self.origin.is_none() {
            return;
        }
        let key = table.to_ascii_lowercase();
        let defined_here = |schema: &Schema| {
            let current = schema
                .tables
                .by_name
                .get(&key)
                .and_then(|&i| schema.tables.items.get(i));
            match (current, &schema.origin) {
                (Some(Some((_, Some(p)))), Some(origin)) => *p.origin == **origin,
                _ => false,
            }
        };
        let added = |schema: &Schema, name: &str, line: u32| -> Option<(String, Place)> {
            let exists = schema
                .table(&key)
                .is_some_and(|t| t.columns.iter().any(|c| c.name.eq_ignore_ascii_case(name)));
            if exists || defined_here(schema) {
                return None;
            }
            schema.place(line).map(|p| (name.to_ascii_lowercase(), p))
        };
        match op {
            AlterOp::AddColumn(c) => {
                if let Some((name, place)) = added(self, &c.name, c.line) {
                    self.columns.entry(key).or_default().insert(name, place);
                }
            }
            AlterOp::ReplaceColumn { old, column } => {
                if let Some(m) = self.columns.get_mut(&key) {
                    m.remove(&old.to_ascii_lowercase());
                }
                if !defined_here(self) {
                    if let Some(place) = self.place(column.line) {
                        self.columns
                            .entry(key)
                            .or_default()
                            .insert(column.name.to_ascii_lowercase(), place);
                    }
                }
            }
            AlterOp::DropColumn(c) => {
                if let Some(m) = self.columns.get_mut(&key) {
                    m.remove(&c.to_ascii_lowercase());
                }
            }
            AlterOp::RenameColumn { from, to } => {
                if let Some(m) = self.columns.get_mut(&key) {
                    if let Some(place) = m.remove(&from.to_ascii_lowercase()) {
                        m.insert(to.to_ascii_lowercase(), place);
                    }
                }
            }
            _ => {}
        }
    }

    fn add_index(&mut self, index: Index) {
        let place = self.place(index.line);
        match index.name.clone() {
            Some(name) => self.indexes.insert(&name, index, place),
            None => {
                // An unnamed index on the same columns of the same table is the same index
                // (a schema written once per dialect declares it once in each).
                let key = (
                    index.table.to_ascii_lowercase(),
                    index.columns.clone(),
                    index.unique,
                );
                match self.unnamed.get(&key).copied() {
                    Some(i) if self.indexes.items.get(i).is_some_and(Option::is_some) => {
                        self.indexes.items[i] = Some((index, place));
                    }
                    _ => {
                        self.unnamed.insert(key, self.indexes.items.len());
                        self.indexes.push(index, place);
                    }
                }
            }
        }
    }

    fn alter(&mut self, table_name: &str, op: &AlterOp) {
        if let AlterOp::AddIndex(index) = op {
            self.add_index(index.clone());
            return;
        }
        if let AlterOp::RenameTable(new) = op {
            self.rename_table(table_name, new);
            return;
        }
        if let AlterOp::DropConstraint(name) = op {
            self.indexes.remove(name);
        }
        // Column changes reach partitions and inheritance children, as in PostgreSQL. The
        // visited list stops a malformed cycle (a table inheriting itself).
        let propagates = matches!(
            op,
            AlterOp::AddColumn(_)
                | AlterOp::DropColumn(_)
                | AlterOp::RenameColumn { .. }
                | AlterOp::SetType(..)
                | AlterOp::SetDefault(..)
                | AlterOp::SetNullable(..)
        );
        let mut pending = vec![table_name.to_ascii_lowercase()];
        let mut visited: Vec<String> = Vec::new();
        while let Some(name) = pending.pop() {
            if visited.contains(&name) {
                continue;
            }
            if self.tables.get(&name).is_some() {
                self.move_columns(&name, op);
            }
            self.alter_one(&name, op);
            if let AlterOp::RenameColumn { from, to } = op {
                for index in self.indexes.iter_mut() {
                    if index.table.eq_ignore_ascii_case(&name) {
                        for col in &mut index.columns {
                            if col.eq_ignore_ascii_case(from) {
                                col.clone_from(to);
                            }
                        }
                    }
                }
            }
            if propagates {
                for child in self.tables.iter() {
                    let is_child = child
                        .partition_of
                        .as_deref()
                        .is_some_and(|p| p.eq_ignore_ascii_case(&name))
                        || child.inherits.iter().any(|p| p.eq_ignore_ascii_case(&name));
                    if is_child {
                        pending.push(child.name.to_ascii_lowercase());
                    }
                }
            }
            visited.push(name);
        }
    }

    fn rename_table(&mut self, from: &str, to: &str) {
        let Some(table) = self.tables.get_mut(from) else {
            return;
        };
        table.name = to.to_owned();
        self.tables.rekey(from, to);
        for index in self.indexes.iter_mut() {
            if index.table.eq_ignore_ascii_case(from) {
                index.table = to.to_owned();
            }
        }
        let keys: Vec<(String, String)> = self
            .triggers
            .iter_mut()
            .filter(|t| t.table.eq_ignore_ascii_case(from))
            .map(|t| {
                t.table = to.to_owned();
                (trigger_key(from, &t.name), trigger_key(to, &t.name))
            })
            .collect();
        for (old, new) in keys {
            self.triggers.rekey(&old, &new);
        }
        let (from, to) = (from.to_ascii_lowercase(), to.to_ascii_lowercase());
        if let Some(history) = self.histories.remove(&from) {
            self.histories.insert(to.clone(), history);
        }
        if self.open.remove(&from) {
            self.open.insert(to.clone());
        }
        if let Some(columns) = self.columns.remove(&from) {
            self.columns.insert(to, columns);
        }
    }

    fn alter_one(&mut self, table_name: &str, op: &AlterOp) {
        let Some(table) = self.tables.get_mut(table_name) else {
            return;
        };
        let column = |table: &mut Table, name: &str| -> Option<usize> {
            table
                .columns
                .iter()
                .position(|c| c.name.eq_ignore_ascii_case(name))
        };
        match op {
            AlterOp::AddColumn(col) => {
                if column(table, &col.name).is_none() {
                    table.columns.push(col.clone());
                }
            }
            AlterOp::DropColumn(name) => {
                table.columns.retain(|c| !c.name.eq_ignore_ascii_case(name));
                table.primary_key.retain(|c| !c.eq_ignore_ascii_case(name));
                if table.primary_key.is_empty() {
                    table.primary_key_name = None;
                }
                table
                    .unique_keys
                    .retain(|k| !k.columns.iter().any(|c| c.eq_ignore_ascii_case(name)));
                table
                    .foreign_keys
                    .retain(|fk| !fk.columns.iter().any(|c| c.eq_ignore_ascii_case(name)));
            }
            AlterOp::RenameColumn { from, to } => {
                if let Some(i) = column(table, from) {
                    table.columns[i].name.clone_from(to);
                }
                let rename = |c: &mut String| {
                    if c.eq_ignore_ascii_case(from) {
                        c.clone_from(to);
                    }
                };
                table.primary_key.iter_mut().for_each(rename);
                table
                    .unique_keys
                    .iter_mut()
                    .flat_map(|k| k.columns.iter_mut())
                    .for_each(rename);
                table
                    .foreign_keys
                    .iter_mut()
                    .flat_map(|fk| fk.columns.iter_mut())
                    .for_each(rename);
            }
            AlterOp::ReplaceColumn { old, column: new } => match column(table, old) {
                Some(i) => table.columns[i] = new.clone(),
                None => table.columns.push(new.clone()),
            },
            AlterOp::SetNullable(name, nullable) => {
                if let Some(i) = column(table, name) {
                    table.columns[i].nullable = *nullable;
                }
            }
            AlterOp::SetDefault(name, default) => {
                if let Some(i) = column(table, name) {
                    table.columns[i].default.clone_from(default);
                }
            }
            AlterOp::SetType(name, data_type) => {
                if let Some(i) = column(table, name) {
                    table.columns[i].data_type.clone_from(data_type);
                }
            }
            AlterOp::AddPrimaryKey { name, columns } => {
                table.primary_key.clone_from(columns);
                table.primary_key_name = if columns.is_empty() { None } else { name.clone() };
                for col in &mut table.columns {
                    if columns.iter().any(|k| k.eq_ignore_ascii_case(&col.name)) {
                        col.nullable = false;
                    }
                }
            }
            AlterOp::AddUnique(key) => table.unique_keys.push(key.clone()),
            AlterOp::AddForeignKey(fk) => table.foreign_keys.push(fk.clone()),
            AlterOp::DropConstraint(name) => {
                let named = |n: &Option<String>| n.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name));
                table.foreign_keys.retain(|fk| !named(&fk.name));
                table.unique_keys.retain(|k: &UniqueKey| !named(&k.name));
                if named(&table.primary_key_name) {
                    table.primary_key.clear();
                    table.primary_key_name = None;
                }
            }
            AlterOp::AddIndex(_) | AlterOp::RenameTable(_) => {}
        }
    }

    fn drop(&mut self, kind: ObjectKind, name: &str, on: Option<&str>) {
        match kind {
            ObjectKind::Table => {
                if self.tables.get(name).is_none() {
                    return;
                }
                self.record(name, || DROP_TABLE.to_owned());
                // The definition of the file that drops the table ends here.
                let key = name.to_ascii_lowercase();
                if self.open.contains(&key) {
                    let shape = self.tables.get(&key).map(Shape::of);
                    if let (Some(shape), Some(def)) = (
                        shape,
                        self.histories
                            .get_mut(&key)
                            .and_then(|h| h.definitions.last_mut()),
                    ) {
                        def.shape.get_or_insert(shape);
                    }
                    self.open.remove(&key);
                }
                self.tables.remove(name);
                self.columns.remove(&key);
                self.indexes.retain(|i| !i.table.eq_ignore_ascii_case(name));
                self.triggers.retain(|t| !t.table.eq_ignore_ascii_case(name));
            }
            ObjectKind::View => {
                self.views.remove(name);
            }
            ObjectKind::Index => {
                self.indexes.remove(name);
            }
            ObjectKind::Trigger => match on {
                Some(table) => {
                    self.triggers.remove(&trigger_key(table, name));
                }
                // Without a table (MySQL, H2: trigger names are unique per schema there),
                // every trigger of that name goes.
                None => self.triggers.retain(|t| !t.name.eq_ignore_ascii_case(name)),
            },
            ObjectKind::Routine => {
                self.routines.remove(name);
            }
        }
    }
}

/// `name (columns)` of an index, for histories.
fn index_label(index: &Index) -> String {
    format!(
        "{} ({})",
        index.name.as_deref().unwrap_or("(unnamed)"),
        index.columns.join(", ")
    )
}

/// What an `ALTER TABLE` operation did, for histories.
fn alter_label(op: &AlterOp) -> String {
    let named = |name: &Option<String>| name.as_deref().map(|n| format!("{n} ")).unwrap_or_default();
    match op {
        AlterOp::AddColumn(c) => format!("add column {} {}", c.name, c.data_type),
        AlterOp::DropColumn(c) => format!("drop column {c}"),
        AlterOp::RenameColumn { from, to } => format!("rename column {from} to {to}"),
        AlterOp::RenameTable(to) => format!("rename table to {to}"),
        AlterOp::ReplaceColumn { old, column } if old.eq_ignore_ascii_case(&column.name) => {
            format!("change column {old} to {}", column.data_type)
        }
        AlterOp::ReplaceColumn { old, column } => {
            format!("change column {old} to {} {}", column.name, column.data_type)
        }
        AlterOp::SetNullable(c, false) => format!("set {c} not null"),
        AlterOp::SetNullable(c, true) => format!("drop not null of {c}"),
        AlterOp::SetDefault(c, Some(d)) => format!("set default of {c} to {d}"),
        AlterOp::SetDefault(c, None) => format!("drop default of {c}"),
        AlterOp::SetType(c, t) => format!("set type of {c} to {t}"),
        AlterOp::AddPrimaryKey { columns, .. } if columns.is_empty() => "drop primary key".to_owned(),
        AlterOp::AddPrimaryKey { name, columns } => {
            format!("add primary key {}({})", named(name), columns.join(", "))
        }
        AlterOp::AddUnique(k) => format!("add unique {}({})", named(&k.name), k.columns.join(", ")),
        AlterOp::AddForeignKey(fk) => format!(
            "add foreign key {}({}) -> {}({})",
            named(&fk.name),
            fk.columns.join(", "),
            fk.ref_table,
            fk.ref_columns.join(", ")
        ),
        AlterOp::AddIndex(ix) => format!("add index {}", index_label(ix)),
        AlterOp::DropConstraint(n) => format!("drop constraint {n}"),
    }
}

/// Where a file falls in Flyway order.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Migration {
    /// Not a Flyway name: applied first, in the order given.
    Other,
    /// `V1_2__desc.sql`: by version, numerically part by part.
    Versioned(Vec<u64>),
    /// `R__desc.sql`: after all versioned ones, by description.
    Repeatable(String),
}

fn migration(path: &str) -> Migration {
    let file = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let Some((prefix, desc)) = file.split_once("__") else {
        return Migration::Other;
    };
    if prefix == "R" {
        return Migration::Repeatable(desc.to_owned());
    }
    let Some(version) = prefix.strip_prefix('V') else {
        return Migration::Other;
    };
    let parts: Option<Vec<u64>> = version.split(['.', '_']).map(|p| p.parse().ok()).collect();
    match parts {
        Some(mut parts) if !parts.is_empty() => {
            // V1 and V1.0 are the same version.
            while parts.len() > 1 && parts.last() == Some(&0) {
                parts.pop();
            }
            Migration::Versioned(parts)
        }
        _ => Migration::Other,
    }
}

/// Sorts paths into the order Flyway applies them: non-Flyway files first as given, then
/// `V<version>__` by version (`V1` < `V1_1` < `V2` < `V10`), then `R__` repeatables.
pub(crate) fn flyway_order(paths: &[String]) -> Vec<String> {
    let mut keyed: Vec<(Migration, &String)> = paths.iter().map(|p| (migration(p), p)).collect();
    // A stable sort keeps non-Flyway files (equal keys) in their given order.
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, p)| p.clone()).collect()
}
