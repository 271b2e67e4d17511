//! The sportsbook entities as the wire names them. Decimals (prices, lines)
//! travel as strings, like every `Decimal` in this workspace, and are read
//! from strings or numbers.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A name per language (`"eng"`, `"zhh"`, `"tha"` ...), besides the row's
/// `name` (the default when the session's language has none).
pub type Names = BTreeMap<String, String>;

/// The row's name in `language`, or its default name.
pub fn localized<'a>(names: &'a Names, default: &'a str, language: &str) -> &'a str {
    names.get(language).map_or(default, String::as_str)
}

/// A sport (Football, Basketball ...). `order` is the menu position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sport {
    pub id: u64,
    pub name: String,
    pub alias: String,
    pub order: i64,
    /// Translations of `name` (optional; a Swarm session's language picks one).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: Names,
}

/// A region (country or area) inside one sport.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Region {
    pub id: u64,
    pub sport_id: u64,
    pub name: String,
    pub alias: String,
    /// Menu position inside the sport (0 when the feed gives none).
    #[serde(default)]
    pub order: i64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: Names,
}

/// A competition (league, cup) inside one region.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Competition {
    pub id: u64,
    pub region_id: u64,
    pub name: String,
    /// Menu position inside the region (0 when the feed gives none).
    #[serde(default)]
    pub order: i64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: Names,
}

/// How a game is listed. The wire carries the number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "u8", into = "u8")]
pub enum GameType {
    /// 0: not started, prematch lists.
    Prematch,
    /// 1: in play.
    Live,
    /// 2: listed as prematch as well (search links it to prematch).
    AlsoPrematch,
}

impl GameType {
    pub fn code(self) -> u8 {
        match self {
            GameType::Prematch => 0,
            GameType::Live => 1,
            GameType::AlsoPrematch => 2,
        }
    }
}

impl From<GameType> for u8 {
    fn from(t: GameType) -> u8 {
        t.code()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game type {0} (accepted: 0 prematch, 1 live, 2 also prematch)")]
pub struct UnknownGameType(pub u8);

impl TryFrom<u8> for GameType {
    type Error = UnknownGameType;

    fn try_from(code: u8) -> Result<Self, Self::Error> {
        match code {
            0 => Ok(GameType::Prematch),
            1 => Ok(GameType::Live),
            2 => Ok(GameType::AlsoPrematch),
            other => Err(UnknownGameType(other)),
        }
    }
}

/// The live state of a game in play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LiveInfo {
    /// The period as the feed names it: "1st half", "set1", "Q3" ...
    pub current_game_state: String,
    /// Seconds played on the game clock.
    pub clock: u32,
    pub score1: u32,
    pub score2: u32,
}

/// A game (match). `markets_count` is kept by the `Catalogue` (the number
/// of markets it holds for the game); a value given on insert is replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub id: u64,
    pub competition_id: u64,
    #[serde(rename = "type")]
    pub game_type: GameType,
    /// Kick-off, unix seconds.
    pub start_ts: i64,
    pub team1_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team2_name: Option<String>,
    #[serde(default)]
    pub is_blocked: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub info: Option<LiveInfo>,
    #[serde(default)]
    pub markets_count: u32,
}

/// A market of a game. `base` is the handicap or total line (quarter lines
/// such as 0.25 or -0.75 allowed); the catalogue strips trailing zeros.
///
/// Each-way terms and SP are market-level (racing "Winner" markets): with
/// `ew_allowed`, a bet may be each-way, its place part paying
/// `1 + (price - 1) x ew_coeff` (`bet::place_odds`; 1/4 of the odds is
/// `ew_coeff` 0.25) when the selection finishes within the first
/// `ew_places`; with `sp_allowed`, a pick may take the starting price
/// (price -1). All four are absent (off) unless given, so catalogues
/// stored or imported before them read as they did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Market {
    pub id: u64,
    pub game_id: u64,
    /// The market code: "P1XP2", "AsianHandicap", "OverUnder" ... (see `tabs`).
    pub market_type: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Decimal>,
    #[serde(default)]
    pub order: i64,
    #[serde(default)]
    pub is_suspended: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub ew_allowed: bool,
    /// Places paid each way (2 means first or second).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ew_places: Option<u32>,
    /// The place fraction of the odds less one (0.25 for 1/4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ew_coeff: Option<Decimal>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub sp_allowed: bool,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A selection of a market. The catalogue keeps `price` at 3 places
/// (invariant 1) and strips trailing zeros from `base`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub id: u64,
    pub market_id: u64,
    pub name: String,
    /// "P1", "X", "P2", "Home", "Away", "Over", "Under" ...
    #[serde(rename = "type")]
    pub type_: String,
    pub price: Decimal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Decimal>,
    #[serde(default)]
    pub is_suspended: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn game_type_travels_as_its_number() {
        let json = serde_json::json!({
            "id": 1, "competition_id": 2, "type": 2, "start_ts": 1_700_000_000,
            "team1_name": "A"
        });
        let game: Game = serde_json::from_value(json).unwrap();
        assert_eq!(game.game_type, GameType::AlsoPrematch);
        assert_eq!(game.team2_name, None);
        let back = serde_json::to_value(&game).unwrap();
        assert_eq!(back["type"], 2);
        assert!(back.get("team2_name").is_none());
        assert!(serde_json::from_value::<GameType>(serde_json::json!(3)).is_err());
    }

    #[test]
    fn decimals_are_read_from_numbers_or_strings_and_written_as_strings() {
        let json = serde_json::json!({
            "id": 5, "market_id": 4, "name": "Over", "type": "Over",
            "price": 1.85, "base": "2.25"
        });
        let event: Event = serde_json::from_value(json).unwrap();
        assert_eq!(event.price, dec!(1.85));
        assert_eq!(event.base, Some(dec!(2.25)));
        assert_eq!(serde_json::to_value(&event).unwrap()["price"], "1.85");
    }
}
