//! What a query can name on each level: the wire fields, their kinds (which
//! operands a filter on them takes) and how a row yields them.

use rust_decimal::Decimal;
use serde_json::{Map, Value};

use crate::catalogue::{
    localized, Catalogue, Competition, Event, Game, GameType, Level, Market, Region, Sport,
};

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

const SPORT: &[(&str, Kind)] = &[
    ("id", Int),
    ("name", Str),
    ("alias", Str),
    ("order", Int),
    ("type", Int),
];
const REGION: &[(&str, Kind)] = &[
    ("id", Int),
    ("sport_id", Int),
    ("name", Str),
    ("alias", Str),
    ("order", Int),
];
const COMPETITION: &[(&str, Kind)] = &[
    ("id", Int),
    ("region_id", Int),
    ("name", Str),
    ("alias", Str),
    ("order", Int),
];
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
    ("is_started", Bool),
    ("is_live", Bool),
    ("visible_in_prematch", Bool),
    ("order", Int),
];
const MARKET: &[(&str, Kind)] = &[
    ("id", Int),
    ("game_id", Int),
    ("market_type", Str),
    ("type", Str),
    ("name", Str),
    ("base", Dec),
    ("order", Int),
    ("is_suspended", Bool),
    ("ew_allowed", Bool),
    ("ew_places", Int),
    ("ew_coeff", Dec),
    ("sp_allowed", Bool),
    ("col_count", Int),
    ("display_key", Str),
    ("express_id", Int),
];
const EVENT: &[(&str, Kind)] = &[
    ("id", Int),
    ("market_id", Int),
    ("name", Str),
    ("type", Str),
    ("price", Dec),
    ("base", Dec),
    ("is_suspended", Bool),
    ("order", Int),
];

/// Sports whose games are simulated (sport `type` 1); esports are type 2,
/// every other sport 0 (platform-defined; clients filter `sport.type`).
pub const VIRTUAL_SPORTS: &[u64] = &[300, 301];
pub const ESPORTS: &[u64] = &[75];

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
    /// A value made for the answer (a derived alias).
    Text(String),
    Bool(bool),
    Null,
}

impl Scalar<'_> {
    pub(crate) fn text(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            Scalar::Text(s) => Some(s),
            _ => None,
        }
    }
}

/// What an answer depends on besides the catalogue: the session's
/// language (names) and the time (`@now`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ctx<'q> {
    pub language: &'q str,
    pub now_s: i64,
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

    /// Natural order, which `@node_limit` and `@limit` keep the head of:
    /// sports, regions, competitions and markets by `order`, games by
    /// kick-off, events by their `order`, then id.
    pub(crate) fn sort_key(self) -> (i64, u64) {
        match self {
            Row::Sport(s) => (s.order, s.id),
            Row::Region(r) => (r.order, r.id),
            Row::Competition(k) => (k.order, k.id),
            Row::Game(g) => (g.start_ts, g.id),
            Row::Market(m) => (m.order, m.id),
            Row::Event(e) => (event_order(e), e.id),
        }
    }

    /// The rows of the next level down, in natural order.
    pub(crate) fn children(self, c: &'a Catalogue) -> Vec<Row<'a>> {
        let mut rows: Vec<Row<'a>> = match self {
            Row::Sport(s) => c.regions_of(s.id).map(Row::Region).collect(),
            Row::Region(r) => c.competitions_of(r.id).map(Row::Competition).collect(),
            Row::Competition(k) => c.games_of(k.id).map(Row::Game).collect(),
            Row::Game(g) => c.markets_of(g.id).map(Row::Market).collect(),
            Row::Market(m) => c.events_of(m.id).map(Row::Event).collect(),
            Row::Event(_) => Vec::new(),
        };
        rows.sort_by_key(|r| r.sort_key());
        rows
    }

    /// The row's name in `language` (sports, regions and competitions
    /// carry translations; other levels have one name).
    pub(crate) fn name_in(self, language: &str) -> Option<&'a str> {
        match self {
            Row::Sport(s) => Some(localized(&s.names, &s.name, language)),
            Row::Region(r) => Some(localized(&r.names, &r.name, language)),
            Row::Competition(k) => Some(localized(&k.names, &k.name, language)),
            Row::Game(_) => None,
            Row::Market(m) => Some(&m.name),
            Row::Event(e) => Some(&e.name),
        }
    }

    /// The value a filter compares; `name` is a field of this row's level.
    pub(crate) fn scalar(self, name: &str, ctx: &Ctx<'_>) -> Scalar<'a> {
        match (self, name) {
            (row, "id") => num(row.id()),
            (row, "name") => row.name_in(ctx.language).map_or(Scalar::Null, Scalar::Str),
            (Row::Sport(s), "alias") => Scalar::Str(&s.alias),
            (Row::Sport(s), "order") => num(s.order),
            (Row::Sport(s), "type") => num(sport_type(s.id)),
            (Row::Region(r), "sport_id") => num(r.sport_id),
            (Row::Region(r), "alias") => Scalar::Str(&r.alias),
            (Row::Region(r), "order") => num(r.order),
            (Row::Competition(k), "region_id") => num(k.region_id),
            (Row::Competition(k), "alias") => Scalar::Text(k.name.replace(' ', "")),
            (Row::Competition(k), "order") => num(k.order),
            (Row::Game(g), field) => game_scalar(g, field),
            (Row::Market(m), field) => market_scalar(m, field),
            (Row::Event(e), field) => event_scalar(e, field),
            _ => Scalar::Null,
        }
    }

    /// The selected fields as a JSON object; absent values are left out
    /// (an answer never holds `null`, which a diff reads as a deletion).
    pub(crate) fn select(
        self,
        level: Level,
        names: Option<&[&'static str]>,
        ctx: &Ctx<'_>,
    ) -> Map<String, Value> {
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
            if let Some(value) = self.value(name, ctx) {
                out.insert(name.to_string(), value);
            }
        }
        out
    }

    fn value(self, name: &str, ctx: &Ctx<'_>) -> Option<Value> {
        if let (Row::Game(g), "info") = (self, name) {
            return g.info.as_ref().and_then(|i| serde_json::to_value(i).ok());
        }
        match self.scalar(name, ctx) {
            Scalar::Num(n) if name == "price" && matches!(self, Row::Event(_)) => json_number(n),
            Scalar::Num(n) if is_decimal_field(self, name) => Some(Value::String(n.to_string())),
            Scalar::Num(n) => whole_number(n),
            Scalar::Str(s) => Some(Value::String(s.to_string())),
            Scalar::Text(s) => Some(Value::String(s)),
            Scalar::Bool(b) => Some(Value::Bool(b)),
            Scalar::Null => None,
        }
    }
}

/// Sport `type`: 0 a sport, 1 virtual (simulated games), 2 an esport.
pub(crate) fn sport_type(sport_id: u64) -> u8 {
    if VIRTUAL_SPORTS.contains(&sport_id) {
        1
    } else if ESPORTS.contains(&sport_id) {
        2
    } else {
        0
    }
}

fn is_decimal_field(row: Row<'_>, name: &str) -> bool {
    matches!(row, Row::Market(_) | Row::Event(_)) && matches!(name, "base" | "price" | "ew_coeff")
}

/// Prices travel as JSON numbers (the shortest text of the exact decimal:
/// 1.850 is 1.85), as real Swarm clients read them; lines (`base`) and
/// `ew_coeff` stay decimal strings.
fn json_number(n: Decimal) -> Option<Value> {
    let text = n.normalize().to_string();
    serde_json::from_str::<serde_json::Number>(&text)
        .ok()
        .map(Value::Number)
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
        "start_ts" | "order" => num(g.start_ts),
        "team1_name" => Scalar::Str(&g.team1_name),
        "team2_name" => g.team2_name.as_deref().map_or(Scalar::Null, Scalar::Str),
        "is_blocked" => Scalar::Bool(g.is_blocked),
        "markets_count" => num(g.markets_count),
        "is_started" | "is_live" => Scalar::Bool(g.game_type == GameType::Live),
        "visible_in_prematch" => Scalar::Bool(g.game_type == GameType::AlsoPrematch),
        _ => Scalar::Null,
    }
}

/// Display columns of a market: three-way markets 3, a race's one list 1,
/// the rest 2.
fn col_count(market_type: &str) -> u32 {
    match market_type {
        "P1XP2" | "DoubleChance" | "FirstHalfP1XP2" => 3,
        "RaceWinner" => 1,
        _ => 2,
    }
}

/// The display group of a market type (the real protocol's `display_key`).
fn display_key(market_type: &str) -> &'static str {
    match market_type {
        "P1XP2" | "P1P2" | "FirstHalfP1XP2" | "RaceWinner" => "WINNER",
        "AsianHandicap" | "Handicap" => "HANDICAP",
        "OverUnder" | "AsianTotal" | "CornerOverUnder" => "TOTALS",
        "DoubleChance" => "DOUBLE_CHANCE",
        "BothTeamsToScore" => "BOTHTEAMTOSCORE",
        _ => "OTHER",
    }
}

fn market_scalar<'a>(m: &'a Market, name: &str) -> Scalar<'a> {
    match name {
        "game_id" => num(m.game_id),
        "market_type" | "type" => Scalar::Str(&m.market_type),
        "base" => opt_dec(m.base),
        "order" => num(m.order),
        "is_suspended" => Scalar::Bool(m.is_suspended),
        "ew_allowed" => Scalar::Bool(m.ew_allowed),
        "ew_places" => m.ew_places.map_or(Scalar::Null, num),
        "ew_coeff" => opt_dec(m.ew_coeff),
        "sp_allowed" => Scalar::Bool(m.sp_allowed),
        "col_count" => num(col_count(&m.market_type)),
        "display_key" => Scalar::Str(display_key(&m.market_type)),
        // All markets of a game form one express group: a multiple takes
        // one selection per game (1904).
        "express_id" => num(1u8),
        _ => Scalar::Null,
    }
}

/// An event's place in its market: home / over / yes first, then draw,
/// then away / under / no; numbered runners by their number.
pub(crate) fn event_order(e: &Event) -> i64 {
    match e.type_.as_str() {
        "P1" | "Home" | "Over" | "Yes" | "1X" => 1,
        "X" | "12" => 2,
        "P2" | "Away" | "Under" | "No" | "X2" => 3,
        other => other.parse::<i64>().unwrap_or(0),
    }
}

fn event_scalar<'a>(e: &'a Event, name: &str) -> Scalar<'a> {
    match name {
        "market_id" => num(e.market_id),
        "type" => Scalar::Str(&e.type_),
        "price" => Scalar::Num(e.price),
        "base" => opt_dec(e.base),
        "is_suspended" => Scalar::Bool(e.is_suspended),
        "order" => num(event_order(e)),
        _ => Scalar::Null,
    }
}
