//! Answering a query from the catalogue.
//!
//! Shape: the shallowest level asked is the root, `{"<level>": {"<id>":
//! {fields..., "<next asked level>": {"<id>": {...}}}}}`, ids as strings.
//! Levels not asked are skipped, not shown: asking sport and game nests
//! games directly under their sport. Nothing below the deepest asked
//! level is answered. A count level answers `{"@count": n}` in place of
//! its id map: the bare number (`{"sport": {"1": {"name": "Football",
//! "game": 12}}}`, or `{"game": 12}` when it is the only level).
//!
//! Which rows: a row is answered when it and its ancestors pass their
//! levels' filters and, if a deeper level is filtered, it has at least one
//! descendant passing all filters down to that level (asking sports where
//! game type is live gives the sports with live games). Without filters
//! below it a row is answered even with no children. `@node_limit` keeps
//! the first n rows of an asked level under each answered parent (or at
//! the root), in natural order: sports and markets by `order`, games by
//! `start_ts`, the rest by id, then id; it has no effect on a level not
//! asked and does not change a count. `@limit` keeps the first n rows of
//! a level in the whole answer (walking the tree in natural order).
//! Names of sports, regions and competitions are answered in the query's
//! language; `@now` operands are the time given to `run`.

use std::cell::Cell;

use serde_json::{Map, Value};

use super::query::{Query, Selection};
use super::schema::{Ctx, Row};
use crate::catalogue::{Catalogue, Level};

/// The answer to `query` at `now_s` (unix seconds, for `@now`), as the
/// protocol sends it.
pub fn run(catalogue: &Catalogue, query: &Query, now_s: i64) -> Value {
    let Some(top) = query.asked().next() else {
        return Value::Object(Map::new());
    };
    let ctx = Ctx {
        language: query.language(),
        now_s,
    };
    let runner = Runner::new(catalogue, query, ctx);
    let mut sports: Vec<Row> = catalogue.sports().values().map(Row::Sport).collect();
    sports.sort_by_key(|r| r.sort_key());
    let items: Vec<Item> = sports
        .into_iter()
        .filter(|row| query.matches(Level::Sport, *row, &runner.ctx))
        .filter_map(|row| runner.items(Level::Sport, row))
        .flatten()
        .collect();
    let mut root = Map::new();
    root.insert(top.name().to_string(), runner.group(top, items));
    Value::Object(root)
}

/// An answered row on its way up to its asked parent.
struct Item {
    key: (i64, u64),
    id: u64,
    value: Value,
}

struct Runner<'a> {
    catalogue: &'a Catalogue,
    query: &'a Query,
    ctx: Ctx<'a>,
    deepest_asked: Level,
    deepest_filtered: Option<Level>,
    /// Rows answered so far per level (for `@limit`).
    answered: [Cell<usize>; 6],
}

impl<'a> Runner<'a> {
    fn new(catalogue: &'a Catalogue, query: &'a Query, ctx: Ctx<'a>) -> Self {
        Runner {
            catalogue,
            query,
            ctx,
            deepest_asked: query.asked().last().unwrap_or(Level::Sport),
            deepest_filtered: Level::ALL.into_iter().rev().find(|l| query.filters(*l)),
            answered: Default::default(),
        }
    }

    /// Whether `@limit` of `level` still lets a row in.
    fn room(&self, level: Level) -> bool {
        self.query
            .limit(level)
            .is_none_or(|limit| self.answered[level.depth()].get() < limit)
    }

    /// Counts an answered row against `@limit`.
    fn answered(&self, level: Level) {
        let slot = &self.answered[level.depth()];
        slot.set(slot.get() + 1);
    }

    /// Whether no filter below `level` still needs a descendant.
    fn free_below(&self, level: Level) -> bool {
        self.deepest_filtered.is_none_or(|f| level >= f)
    }

    /// The items `row` (already passing its filter) contributes to its
    /// nearest asked ancestor; `None` when a filter below rules it out.
    fn items(&self, level: Level, row: Row<'a>) -> Option<Vec<Item>> {
        if !self.room(level) {
            return None;
        }
        if level == self.deepest_asked {
            if !self.has_descendant(level, row) {
                return None;
            }
            self.answered(level);
            return Some(vec![self.item(level, row, Vec::new())]);
        }
        let child = level.child()?;
        let below: Vec<Item> = row
            .children(self.catalogue)
            .into_iter()
            .filter(|c| self.query.matches(child, *c, &self.ctx))
            .filter_map(|c| self.items(child, c))
            .flatten()
            .collect();
        let alive = !below.is_empty() || self.free_below(level);
        if !alive {
            return None;
        }
        self.answered(level);
        match self.query.selection(level) {
            Some(_) => Some(vec![self.item(level, row, below)]),
            None => Some(below),
        }
    }

    /// Whether `row` has a descendant passing every filter down to the
    /// deepest filtered level.
    fn has_descendant(&self, level: Level, row: Row<'a>) -> bool {
        if self.free_below(level) {
            return true;
        }
        let Some(child) = level.child() else {
            return true;
        };
        row.children(self.catalogue)
            .into_iter()
            .any(|c| self.query.matches(child, c, &self.ctx) && self.has_descendant(child, c))
    }

    fn item(&self, level: Level, row: Row<'a>, below: Vec<Item>) -> Item {
        let mut object = match self.query.selection(level) {
            Some(Selection::Fields(names)) => row.select(level, Some(names), &self.ctx),
            Some(Selection::All) => row.select(level, None, &self.ctx),
            _ => Map::new(),
        };
        if let Some(next) = self.next_asked(level) {
            object.insert(next.name().to_string(), self.group(next, below));
        }
        Item {
            key: row.sort_key(),
            id: row.id(),
            value: Value::Object(object),
        }
    }

    fn next_asked(&self, level: Level) -> Option<Level> {
        self.query.asked().find(|l| *l > level)
    }

    /// The id map of one asked level under one parent, or its count.
    fn group(&self, level: Level, mut items: Vec<Item>) -> Value {
        if self.query.selection(level) == Some(&Selection::Count) {
            return Value::from(items.len());
        }
        items.sort_by_key(|i| i.key);
        if let Some(limit) = self.query.node_limit(level) {
            items.truncate(limit);
        }
        let map = items
            .into_iter()
            .map(|i| (i.id.to_string(), i.value))
            .collect();
        Value::Object(map)
    }
}
