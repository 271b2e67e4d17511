//! What a query can name on each level: the wire fields, their kinds (which
//! operands a filter on them takes) and how a row yields them.

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use crate::catalogue::{Catalogue, Competition, Event, Game, Level, Market, Region, Sport};

/// The kind of a field, for checking filter operands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Whole numbers (ids, `order`, `start_ts`, game `type`).
    Int,
    /// Decimals (prices, lines); filters take numbers or numeric strings.
    Dec,
    Str,
    Bool,
    /// Nested data (`game.info`): selectable, not filterable.
    Object,
}

use Kind::*;

const SPORT: &[(&str, Kind)] = &[("id", Int), ("name", Str), ("alias", Str), ("order", Int)];
const REGION: &[(&str, Kind)] = &[
    ("id", Int),
    ("sport_id", Int),
    ("name", Str),
    ("alias", Str),
];
const COMPETITION: &[(&str, Kind)] = &[("id", Int), ("region_id", Int), ("name", Str)];
const GAME: &[(&str, Kind)] = &[
    ("id", Int),
    ("competition_id", Int),
    ("type", Int),
    ("start_ts", Int),
    ("team1_name", Str),
    ("team2_name", Str),
    ("is_blocked", Bool),
    ("info", Object),
    ("markets_count", Int),
];
const MARKET: &[(&str, Kind)] = &[
    ("id", Int),
    ("game_id", Int),
    ("market_type", Str),
    ("name", Str),
    ("base", Dec),
    ("order", Int),
    ("is_suspended", Bool),
    ("ew_allowed", Bool),
    ("ew_places", Int),
    ("ew_coeff", Dec),
    ("sp_allowed", Bool),
];
const EVENT: &[(&str, Kind)] = &[
    ("id", Int),
    ("market_id", Int),
    ("name", Str),
    ("type", Str),
    ("price", Dec),
    ("base", Dec),
    ("is_suspended", Bool),
];

/// The fields of a level, in wire order.
pub fn fields(level: Level) -> &'static [(&'static str, Kind)] {
    match level {
        Level::Sport => SPORT,
        Level::Region => REGION,
        Level::Competition => COMPETITION,
        Level::Game => GAME,
        Level::Market => MARKET,
        Level::Event => EVENT,
    }
}

/// The field's static name and kind, if the level has it.
pub(crate) fn field(level: Level, name: &str) -> Option<(&'static str, Kind)> {
    fields(level).iter().copied().find(|(n, _)| *n == name)
}

/// A field's value as filters see it. Absent optional fields are `Null`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar<'a> {
    Num(Decimal),
    Str(&'a str),
    Bool(bool),
    Null,
}

/// A row of any level.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Row<'a> {
    Sport(&'a Sport),
    Region(&'a Region),
    Competition(&'a Competition),
    Game(&'a Game),
    Market(&'a Market),
    Event(&'a Event),
}

fn num(n: impl Into<Decimal>) -> Scalar<'static> {
    Scalar::Num(n.into())
}

fn opt_dec(d: Option<Decimal>) -> Scalar<'static> {
    d.map_or(Scalar::Null, Scalar::Num)
}

impl<'a> Row<'a> {
    pub(crate) fn id(self) -> u64 {
        match self {
            Row::Sport(r) => r.id,
            Row::Region(r) => r.id,
            Row::Competition(r) => r.id,
            Row::Game(r) => r.id,
            Row::Market(r) => r.id,
            Row::Event(r) => r.id,
        }
    }

    /// Natural order, which `@node_limit` keeps the head of: sports and
    /// markets by `order`, games by kick-off, all else by id.
    pub(crate) fn sort_key(self) -> (i64, u64) {
        match self {
            Row::Sport(s) => (s.order, s.id),
            Row::Game(g) => (g.start_ts, g.id),
            Row::Market(m) => (m.order, m.id),
            other => (0, other.id()),
        }
    }

    /// The rows of the next level down.
    pub(crate) fn children(self, c: &'a Catalogue) -> Vec<Row<'a>> {
        match self {
            Row::Sport(s) => c.regions_of(s.id).map(Row::Region).collect(),
            Row::Region(r) => c.competitions_of(r.id).map(Row::Competition).collect(),
            Row::Competition(k) => c.games_of(k.id).map(Row::Game).collect(),
            Row::Game(g) => c.markets_of(g.id).map(Row::Market).collect(),
            Row::Market(m) => c.events_of(m.id).map(Row::Event).collect(),
            Row::Event(_) => Vec::new(),
        }
    }

    /// The value a filter compares; `name` is a field of this row's level.
    pub(crate) fn scalar(self, name: &str) -> Scalar<'a> {
        match (self, name) {
            (row, "id") => num(row.id()),
            (Row::Sport(s), "name") => Scalar::Str(&s.name),
            (Row::Sport(s), "alias") => Scalar::Str(&s.alias),
            (Row::Sport(s), "order") => num(s.order),
            (Row::Region(r), "sport_id") => num(r.sport_id),
            (Row::Region(r), "name") => Scalar::Str(&r.name),
            (Row::Region(r), "alias") => Scalar::Str(&r.alias),
            (Row::Competition(k), "region_id") => num(k.region_id),
            (Row::Competition(k), "name") => Scalar::Str(&k.name),
            (Row::Game(g), field) => game_scalar(g, field),
            (Row::Market(m), field) => market_scalar(m, field),
            (Row::Event(e), field) => event_scalar(e, field),
            _ => Scalar::Null,
        }
    }

    /// The selected fields as a JSON object; absent values are left out
    /// (an answer never holds `null`, which a diff reads as a deletion).
    pub(crate) fn select(self, level: Level, names: Option<&[&'static str]>) -> Map<String, Value> {
        let all: Vec<&str>;
        let names = match names {
            Some(names) => names,
            None => {
                all = fields(level).iter().map(|(n, _)| *n).collect();
                &all
            }
        };
        let mut out = Map::new();
        for &name in names {
            if let Some(value) = self.value(name) {
                out.insert(name.to_string(), value);
            }
        }
        out
    }

    fn value(self, name: &str) -> Option<Value> {
        if let (Row::Game(g), "info") = (self, name) {
            return g.info.as_ref().and_then(|i| serde_json::to_value(i).ok());
        }
        match self.scalar(name) {
            Scalar::Num(n) if is_decimal_field(self, name) => Some(Value::String(n.to_string())),
            Scalar::Num(n) => whole_number(n),
            Scalar::Str(s) => Some(Value::String(s.to_string())),
            Scalar::Bool(b) => Some(Value::Bool(b)),
            Scalar::Null => None,
        }
    }
}

fn is_decimal_field(row: Row<'_>, name: &str) -> bool {
    matches!(row, Row::Market(_) | Row::Event(_)) && matches!(name, "base" | "price" | "ew_coeff")
}

fn whole_number(n: Decimal) -> Option<Value> {
    let n = n.normalize();
    if n.is_sign_negative() {
        i64::try_from(n).ok().map(Value::from)
    } else {
        u64::try_from(n).ok().map(Value::from)
    }
}

fn game_scalar<'a>(g: &'a Game, name: &str) -> Scalar<'a> {
    match name {
        "competition_id" => num(g.competition_id),
        "type" => num(g.game_type.code()),
        "start_ts" => num(g.start_ts),
        "team1_name" => Scalar::Str(&g.team1_name),
        "team2_name" => g.team2_name.as_deref().map_or(Scalar::Null, Scalar::Str),
        "is_blocked" => Scalar::Bool(g.is_blocked),
        "markets_count" => num(g.markets_count),
        _ => Scalar::Null,
    }
}

fn market_scalar<'a>(m: &'a Market, name: &str) -> Scalar<'a> {
    match name {
        "game_id" => num(m.game_id),
        "market_type" => Scalar::Str(&m.market_type),
        "name" => Scalar::Str(&m.name),
        "base" => opt_dec(m.base),
        "order" => num(m.order),
        "is_suspended" => Scalar::Bool(m.is_suspended),
        "ew_allowed" => Scalar::Bool(m.ew_allowed),
        "ew_places" => m.ew_places.map_or(Scalar::Null, num),
        "ew_coeff" => opt_dec(m.ew_coeff),
        "sp_allowed" => Scalar::Bool(m.sp_allowed),
        _ => Scalar::Null,
    }
}

fn event_scalar<'a>(e: &'a Event, name: &str) -> Scalar<'a> {
    match name {
        "market_id" => num(e.market_id),
        "name" => Scalar::Str(&e.name),
        "type" => Scalar::Str(&e.type_),
        "price" => Scalar::Num(e.price),
        "base" => opt_dec(e.base),
        "is_suspended" => Scalar::Bool(e.is_suspended),
        _ => Scalar::Null,
    }
}
