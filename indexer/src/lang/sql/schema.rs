//! Replaying a product's schema files into its final state.
//!
//! Facts of one file are not the schema: a Flyway `V2__` adds columns and foreign keys to a
//! table `V1__` created, and `PARTITION OF` children take their parent's columns. [`Schema`]
//! applies statements in order, matching names case-insensitively and without schema
//! qualifiers (table names are unique within a product), and keeps each object's spelling
//! as first written.

use std::collections::HashMap;

use super::{AlterOp, Column, Index, ObjectKind, Routine, SchemaFile, SchemaStatement, Table, Trigger, View};

/// Objects keyed by lowercase name, in creation order; a re-created object keeps its place.
#[derive(Debug, Clone)]
struct Keyed<T> {
    items: Vec<Option<T>>,
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
    fn insert(&mut self, name: &str, item: T) {
        let key = name.to_ascii_lowercase();
        match self.by_name.get(&key) {
            Some(&i) => self.items[i] = Some(item),
            None => {
                self.by_name.insert(key, self.items.len());
                self.items.push(Some(item));
            }
        }
    }

    /// Adds an object that has no name (it can never be replaced or dropped).
    fn push(&mut self, item: T) {
        self.items.push(Some(item));
    }

    fn get(&self, name: &str) -> Option<&T> {
        let i = *self.by_name.get(&name.to_ascii_lowercase())?;
        self.items.get(i)?.as_ref()
    }

    fn get_mut(&mut self, name: &str) -> Option<&mut T> {
        let i = *self.by_name.get(&name.to_ascii_lowercase())?;
        self.items.get_mut(i)?.as_mut()
    }

    fn remove(&mut self, name: &str) -> Option<T> {
        let i = self.by_name.remove(&name.to_ascii_lowercase())?;
        self.items.get_mut(i)?.take()
    }

    fn iter(&self) -> impl Iterator<Item = &T> {
        self.items.iter().flatten()
    }

    fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        for slot in &mut self.items {
            if slot.as_ref().is_some_and(|item| !keep(item)) {
                *slot = None;
            }
        }
        let items = &self.items;
        self.by_name
            .retain(|_, i| items.get(*i).is_some_and(Option::is_some));
    }
}

/// The schema state after applying files in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Schema {
    tables: Keyed<Table>,
    indexes: Keyed<Index>,
    views: Keyed<View>,
    triggers: Keyed<Trigger>,
    routines: Keyed<Routine>,
}

impl Schema {
    /// Applies every statement of `file`, in order.
    pub(crate) fn apply(&mut self, file: &SchemaFile) {
        for statement in &file.statements {
            self.apply_statement(statement);
        }
    }

    /// Applies every statement of `file`, in order, keeping its facts without copying them.
    pub(crate) fn absorb(&mut self, file: SchemaFile) {
        for statement in file.statements {
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

    fn apply_owned(&mut self, statement: SchemaStatement) {
        match statement {
            SchemaStatement::CreateTable(table) => self.create_table(table),
            SchemaStatement::CreateIndex(index) => self.add_index(index),
            SchemaStatement::CreateView(view) => {
                let name = view.name.clone();
                self.views.insert(&name, view);
            }
            SchemaStatement::CreateTrigger(trigger) => {
                let name = trigger.name.clone();
                self.triggers.insert(&name, trigger);
            }
            SchemaStatement::CreateRoutine(routine) => {
                let name = routine.name.clone();
                self.routines.insert(&name, routine);
            }
            other => self.change(&other),
        }
    }

    /// Applies an `ALTER` or a `DROP`.
    fn change(&mut self, statement: &SchemaStatement) {
        match statement {
            SchemaStatement::AlterTable { table, ops } => {
                for op in ops {
                    self.alter(table, op);
                }
            }
            SchemaStatement::Drop { kind, names } => {
                for name in names {
                    self.drop(*kind, name);
                }
            }
            _ => {}
        }
    }

    /// Tables in creation order.
    pub(crate) fn tables(&self) -> Vec<&Table> {
        self.tables.iter().collect()
    }

    /// The table named `name` (case-insensitive, unqualified).
    #[cfg(test)]
    pub(crate) fn table(&self, name: &str) -> Option<&Table> {
        self.tables.get(name)
    }

    /// Indexes in creation order.
    pub(crate) fn indexes(&self) -> Vec<&Index> {
        self.indexes.iter().collect()
    }

    /// Views in creation order.
    pub(crate) fn views(&self) -> Vec<&View> {
        self.views.iter().collect()
    }

    /// Routines in creation order.
    pub(crate) fn routines(&self) -> Vec<&Routine> {
        self.routines.iter().collect()
    }

    /// Triggers in creation order. A trigger that executes a known routine touches what the
    /// routine's body touches, since the routine may be replaced after the trigger is made.
    pub(crate) fn triggers(&self) -> Vec<Trigger> {
        self.triggers
            .iter()
            .map(|t| {
                let mut trigger = t.clone();
                if let Some(routine) = t.function.as_deref().and_then(|f| self.routines.get(f)) {
                    for touch in &routine.touches {
                        if !trigger.touches.contains(touch) {
                            trigger.touches.push(touch.clone());
                        }
                    }
                }
                trigger
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
        self.tables.insert(&name, table);
    }

    fn add_index(&mut self, index: Index) {
        match index.name.clone() {
            Some(name) => self.indexes.insert(&name, index),
            None => self.indexes.push(index),
        }
    }

    fn alter(&mut self, table_name: &str, op: &AlterOp) {
        if let AlterOp::AddIndex(index) = op {
            self.add_index(index.clone());
            return;
        }
        if let AlterOp::RenameTable(new) = op {
            if let Some(mut table) = self.tables.remove(table_name) {
                table.name.clone_from(new);
                self.tables.insert(new, table);
                for index in self.indexes.items.iter_mut().flatten() {
                    if index.table.eq_ignore_ascii_case(table_name) {
                        index.table.clone_from(new);
                    }
                }
                for trigger in self.triggers.items.iter_mut().flatten() {
                    if trigger.table.eq_ignore_ascii_case(table_name) {
                        trigger.table.clone_from(new);
                    }
                }
            }
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
            self.alter_one(&name, op);
            if let AlterOp::RenameColumn { from, to } = op {
                for index in self.indexes.items.iter_mut().flatten() {
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
                table
                    .unique_keys
                    .retain(|k| !k.iter().any(|c| c.eq_ignore_ascii_case(name)));
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
                table.unique_keys.iter_mut().flatten().for_each(rename);
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
            AlterOp::AddPrimaryKey(cols) => {
                table.primary_key.clone_from(cols);
                for col in &mut table.columns {
                    if cols.iter().any(|k| k.eq_ignore_ascii_case(&col.name)) {
                        col.nullable = false;
                    }
                }
            }
            AlterOp::AddUnique(cols) => table.unique_keys.push(cols.clone()),
            AlterOp::AddForeignKey(fk) => table.foreign_keys.push(fk.clone()),
            AlterOp::DropConstraint(name) => {
                table
                    .foreign_keys
                    .retain(|fk| !fk.name.as_deref().is_some_and(|n| n.eq_ignore_ascii_case(name)));
            }
            AlterOp::AddIndex(_) | AlterOp::RenameTable(_) => {}
        }
    }

    fn drop(&mut self, kind: ObjectKind, name: &str) {
        match kind {
            ObjectKind::Table => {
                self.tables.remove(name);
                self.indexes.retain(|i| !i.table.eq_ignore_ascii_case(name));
                self.triggers.retain(|t| !t.table.eq_ignore_ascii_case(name));
            }
            ObjectKind::View => {
                self.views.remove(name);
            }
            ObjectKind::Index => {
                self.indexes.remove(name);
            }
            ObjectKind::Trigger => {
                self.triggers.remove(name);
            }
            ObjectKind::Routine => {
                self.routines.remove(name);
            }
        }
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
