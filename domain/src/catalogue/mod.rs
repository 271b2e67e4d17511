//! The sportsbook catalogue: what can be bet on, as the Swarm-style data
//! protocol serves it (sport > region > competition > game > market >
//! event). The feed adapter writes it; `swarm` answers queries from it and
//! diffs answers for subscribers; the betslip and settlement read prices,
//! lines and game state from it.
//!
//! Rows are stored flat and keyed by id, each with a link to its parent,
//! because feed updates name single rows (a price, a score) and queries
//! walk down from any level. Removing a row removes its descendants.
//! Invariants the catalogue keeps on every write: a child's parent exists;
//! event prices are at 3 places ("1.850"); lines carry no trailing zeros;
//! `Game::markets_count` equals the markets it holds.
//!
//! Layout
//! - `model`: the entities with their wire field names.
//! - `store`: `Catalogue` (insert, update, cascade remove, lineage) and
//!   its fixture shape `Snapshot`.
//! - `tabs`: which market tabs a market_type belongs to.
//! - `handicap`: quarter-line display and split.
//! - `search`: sport search with per-language minimum length, game links.

mod changes;
mod handicap;
mod model;
mod search;
mod store;
mod tabs;
#[cfg(any(test, feature = "testgen"))]
pub mod testgen;
#[cfg(test)]
mod tests;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

pub use changes::{ChangeSet, Removed};
pub use handicap::{handicap_lines, split_quarter};
pub use model::{
    localized, Competition, Event, Game, GameType, LiveInfo, Market, Names, Region, Sport,
    UnknownGameType,
};
pub use search::{
    game_link, link_for, min_term_length, search, SearchCompetition, SearchGame, SearchGroup,
    SearchResult, SHORT_SEARCH_LANGUAGES,
};
pub use store::{Catalogue, CatalogueError, Lineage, Snapshot};
pub use tabs::{tabs_for, MarketTab};

/// The six levels of the tree, top down. Their wire names are lowercase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Sport,
    Region,
    Competition,
    Game,
    Market,
    Event,
}

impl Level {
    pub const ALL: [Level; 6] = [
        Level::Sport,
        Level::Region,
        Level::Competition,
        Level::Game,
        Level::Market,
        Level::Event,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Level::Sport => "sport",
            Level::Region => "region",
            Level::Competition => "competition",
            Level::Game => "game",
            Level::Market => "market",
            Level::Event => "event",
        }
    }

    /// Position from the top (sport 0 ... event 5).
    pub fn depth(self) -> usize {
        self as usize
    }

    pub fn parent(self) -> Option<Level> {
        self.depth().checked_sub(1).map(|d| Level::ALL[d])
    }

    pub fn child(self) -> Option<Level> {
        Level::ALL.get(self.depth() + 1).copied()
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown level '{0}' (accepted: sport, region, competition, game, market, event)")]
pub struct UnknownLevel(pub String);

impl FromStr for Level {
    type Err = UnknownLevel;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Level::ALL
            .into_iter()
            .find(|l| l.name() == s)
            .ok_or_else(|| UnknownLevel(s.to_string()))
    }
}
