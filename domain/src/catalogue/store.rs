//! The `Catalogue`: flat id-keyed tables with parent links and a per-table
//! index of children, so a query walks down without scanning and a removal
//! cascades without searching.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::model::{Competition, Event, Game, Market, Region, Sport};
use super::Level;
use crate::money::{round_odds, ODDS_PLACES};

/// Why a catalogue change was refused. The catalogue is unchanged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogueError {
    #[error("{level} {id} names {parent} {parent_id}, which is not in the catalogue")]
    MissingParent {
        level: Level,
        id: u64,
        parent: Level,
        parent_id: u64,
    },
    #[error("{level} {id} is not in the catalogue")]
    NotFound { level: Level, id: u64 },
}

/// One level's rows, and its rows' ids by parent id.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Table<T> {
    rows: BTreeMap<u64, T>,
    by_parent: BTreeMap<u64, BTreeSet<u64>>,
}

impl<T> Default for Table<T> {
    fn default() -> Self {
        Table {
            rows: BTreeMap::new(),
            by_parent: BTreeMap::new(),
        }
    }
}

impl<T: Clone> Table<T> {
    /// Inserts or replaces `row`; `parent_of` reads a row's parent id.
    fn put(&mut self, id: u64, row: T, parent_of: fn(&T) -> u64) -> Option<T> {
        let parent = parent_of(&row);
        let old = self.rows.insert(id, row);
        if let Some(old_row) = &old {
            self.unlink(parent_of(old_row), id);
        }
        self.by_parent.entry(parent).or_default().insert(id);
        old
    }

    fn take(&mut self, id: u64, parent_of: fn(&T) -> u64) -> Option<T> {
        let old = self.rows.remove(&id)?;
        self.unlink(parent_of(&old), id);
        Some(old)
    }

    fn unlink(&mut self, parent: u64, id: u64) {
        if let Some(ids) = self.by_parent.get_mut(&parent) {
            ids.remove(&id);
            if ids.is_empty() {
                self.by_parent.remove(&parent);
            }
        }
    }

    fn child_ids(&self, parent: u64) -> Vec<u64> {
        self.by_parent
            .get(&parent)
            .map(|ids| ids.iter().copied().collect())
            .unwrap_or_default()
    }

    fn children(&self, parent: u64) -> impl Iterator<Item = &T> + '_ {
        self.by_parent
            .get(&parent)
            .into_iter()
            .flatten()
            .filter_map(|id| self.rows.get(id))
    }

    fn count(&self, parent: u64) -> u32 {
        self.by_parent
            .get(&parent)
            .map_or(0, |ids| ids.len() as u32)
    }
}

/// Sports have no parent; they share the index slot 0.
fn no_parent(_: &Sport) -> u64 {
    0
}
fn region_parent(r: &Region) -> u64 {
    r.sport_id
}
fn competition_parent(c: &Competition) -> u64 {
    c.region_id
}
fn game_parent(g: &Game) -> u64 {
    g.competition_id
}
fn market_parent(m: &Market) -> u64 {
    m.game_id
}
fn event_parent(e: &Event) -> u64 {
    e.market_id
}

/// The sportsbook tree: sport > region > competition > game > market >
/// event, stored flat. Serialises as `{"sport": [...], "region": [...],
/// ...}` (the fixture format); deserialising checks every parent link.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Snapshot", into = "Snapshot")]
pub struct Catalogue {
    sports: Table<Sport>,
    regions: Table<Region>,
    competitions: Table<Competition>,
    games: Table<Game>,
    markets: Table<Market>,
    events: Table<Event>,
}

/// A game with its ancestors, for bet events and search results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lineage<'a> {
    pub sport: &'a Sport,
    pub region: &'a Region,
    pub competition: &'a Competition,
    pub game: &'a Game,
}

impl Catalogue {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn sports(&self) -> &BTreeMap<u64, Sport> {
        &self.sports.rows
    }
    pub fn regions(&self) -> &BTreeMap<u64, Region> {
        &self.regions.rows
    }
    pub fn competitions(&self) -> &BTreeMap<u64, Competition> {
        &self.competitions.rows
    }
    pub fn games(&self) -> &BTreeMap<u64, Game> {
        &self.games.rows
    }
    pub fn markets(&self) -> &BTreeMap<u64, Market> {
        &self.markets.rows
    }
    pub fn events(&self) -> &BTreeMap<u64, Event> {
        &self.events.rows
    }

    pub fn regions_of(&self, sport_id: u64) -> impl Iterator<Item = &Region> + '_ {
        self.regions.children(sport_id)
    }
    pub fn competitions_of(&self, region_id: u64) -> impl Iterator<Item = &Competition> + '_ {
        self.competitions.children(region_id)
    }
    pub fn games_of(&self, competition_id: u64) -> impl Iterator<Item = &Game> + '_ {
        self.games.children(competition_id)
    }
    pub fn markets_of(&self, game_id: u64) -> impl Iterator<Item = &Market> + '_ {
        self.markets.children(game_id)
    }
    pub fn events_of(&self, market_id: u64) -> impl Iterator<Item = &Event> + '_ {
        self.events.children(market_id)
    }

    /// The game with its competition, region and sport.
    pub fn lineage(&self, game_id: u64) -> Option<Lineage<'_>> {
        let game = self.games.rows.get(&game_id)?;
        let competition = self.competitions.rows.get(&game.competition_id)?;
        let region = self.regions.rows.get(&competition.region_id)?;
        let sport = self.sports.rows.get(&region.sport_id)?;
        Some(Lineage {
            sport,
            region,
            competition,
            game,
        })
    }
}

/// Inserts (or replaces, returning the previous row), updates through a
/// closure (the id cannot change; a parent change moves the row), and
/// removes with every descendant.
impl Catalogue {
    pub fn insert_sport(&mut self, sport: Sport) -> Option<Sport> {
        self.sports.put(sport.id, sport, no_parent)
    }

    pub fn insert_region(&mut self, region: Region) -> Result<Option<Region>, CatalogueError> {
        check_parent(&self.sports.rows, Level::Region, region.id, region.sport_id)?;
        Ok(self.regions.put(region.id, region, region_parent))
    }

    pub fn insert_competition(
        &mut self,
        competition: Competition,
    ) -> Result<Option<Competition>, CatalogueError> {
        let (id, parent) = (competition.id, competition.region_id);
        check_parent(&self.regions.rows, Level::Competition, id, parent)?;
        Ok(self.competitions.put(id, competition, competition_parent))
    }

    pub fn insert_game(&mut self, mut game: Game) -> Result<Option<Game>, CatalogueError> {
        let (id, parent) = (game.id, game.competition_id);
        check_parent(&self.competitions.rows, Level::Game, id, parent)?;
        game.markets_count = self.markets.count(id);
        Ok(self.games.put(id, game, game_parent))
    }

    pub fn insert_market(&mut self, mut market: Market) -> Result<Option<Market>, CatalogueError> {
        let (id, game_id) = (market.id, market.game_id);
        check_parent(&self.games.rows, Level::Market, id, game_id)?;
        market.base = market.base.map(|b| b.normalize());
        market.ew_coeff = market.ew_coeff.map(|c| c.normalize());
        let old = self.markets.put(id, market, market_parent);
        self.recount_markets(game_id);
        if let Some(moved_from) = old.as_ref().map(|m| m.game_id) {
            self.recount_markets(moved_from);
        }
        Ok(old)
    }

    pub fn insert_event(&mut self, mut event: Event) -> Result<Option<Event>, CatalogueError> {
        let (id, parent) = (event.id, event.market_id);
        check_parent(&self.markets.rows, Level::Event, id, parent)?;
        event.price = odds_at_three_places(event.price);
        event.base = event.base.map(|b| b.normalize());
        Ok(self.events.put(id, event, event_parent))
    }

    pub fn update_sport(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Sport),
    ) -> Result<(), CatalogueError> {
        let mut sport = found(&self.sports.rows, Level::Sport, id)?;
        f(&mut sport);
        sport.id = id;
        self.insert_sport(sport);
        Ok(())
    }

    pub fn update_region(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Region),
    ) -> Result<(), CatalogueError> {
        let mut region = found(&self.regions.rows, Level::Region, id)?;
        f(&mut region);
        region.id = id;
        self.insert_region(region).map(drop)
    }

    pub fn update_competition(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Competition),
    ) -> Result<(), CatalogueError> {
        let mut competition = found(&self.competitions.rows, Level::Competition, id)?;
        f(&mut competition);
        competition.id = id;
        self.insert_competition(competition).map(drop)
    }

    pub fn update_game(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Game),
    ) -> Result<(), CatalogueError> {
        let mut game = found(&self.games.rows, Level::Game, id)?;
        f(&mut game);
        game.id = id;
        self.insert_game(game).map(drop)
    }

    pub fn update_market(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Market),
    ) -> Result<(), CatalogueError> {
        let mut market = found(&self.markets.rows, Level::Market, id)?;
        f(&mut market);
        market.id = id;
        self.insert_market(market).map(drop)
    }

    pub fn update_event(
        &mut self,
        id: u64,
        f: impl FnOnce(&mut Event),
    ) -> Result<(), CatalogueError> {
        let mut event = found(&self.events.rows, Level::Event, id)?;
        f(&mut event);
        event.id = id;
        self.insert_event(event).map(drop)
    }

    pub fn remove_sport(&mut self, id: u64) -> Option<Sport> {
        for region in self.regions.child_ids(id) {
            self.remove_region(region);
        }
        self.sports.take(id, no_parent)
    }

    pub fn remove_region(&mut self, id: u64) -> Option<Region> {
        for competition in self.competitions.child_ids(id) {
            self.remove_competition(competition);
        }
        self.regions.take(id, region_parent)
    }

    pub fn remove_competition(&mut self, id: u64) -> Option<Competition> {
        for game in self.games.child_ids(id) {
            self.remove_game(game);
        }
        self.competitions.take(id, competition_parent)
    }

    pub fn remove_game(&mut self, id: u64) -> Option<Game> {
        for market in self.markets.child_ids(id) {
            self.remove_market(market);
        }
        self.games.take(id, game_parent)
    }

    pub fn remove_market(&mut self, id: u64) -> Option<Market> {
        for event in self.events.child_ids(id) {
            self.remove_event(event);
        }
        let market = self.markets.take(id, market_parent)?;
        self.recount_markets(market.game_id);
        Some(market)
    }

    pub fn remove_event(&mut self, id: u64) -> Option<Event> {
        self.events.take(id, event_parent)
    }

    fn recount_markets(&mut self, game_id: u64) {
        let count = self.markets.count(game_id);
        if let Some(game) = self.games.rows.get_mut(&game_id) {
            game.markets_count = count;
        }
    }
}

fn check_parent<P>(
    parents: &BTreeMap<u64, P>,
    level: Level,
    id: u64,
    parent_id: u64,
) -> Result<(), CatalogueError> {
    if parents.contains_key(&parent_id) {
        return Ok(());
    }
    let parent = level.parent().unwrap_or(Level::Sport);
    Err(CatalogueError::MissingParent {
        level,
        id,
        parent,
        parent_id,
    })
}

fn found<T: Clone>(rows: &BTreeMap<u64, T>, level: Level, id: u64) -> Result<T, CatalogueError> {
    rows.get(&id)
        .cloned()
        .ok_or(CatalogueError::NotFound { level, id })
}

/// Prices keep 3 places, written as such ("1.850"), so that equal prices
/// always produce equal wire text and a push never carries a no-op change.
fn odds_at_three_places(price: rust_decimal::Decimal) -> rust_decimal::Decimal {
    let mut price = round_odds(price);
    price.rescale(ODDS_PLACES);
    price
}

/// The fixture and persistence shape: one list per level, parents first.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Snapshot {
    #[serde(alias = "sports")]
    pub sport: Vec<Sport>,
    #[serde(alias = "regions")]
    pub region: Vec<Region>,
    #[serde(alias = "competitions")]
    pub competition: Vec<Competition>,
    #[serde(alias = "games")]
    pub game: Vec<Game>,
    #[serde(alias = "markets")]
    pub market: Vec<Market>,
    #[serde(alias = "events")]
    pub event: Vec<Event>,
}

impl From<Catalogue> for Snapshot {
    fn from(c: Catalogue) -> Self {
        Snapshot {
            sport: c.sports.rows.into_values().collect(),
            region: c.regions.rows.into_values().collect(),
            competition: c.competitions.rows.into_values().collect(),
            game: c.games.rows.into_values().collect(),
            market: c.markets.rows.into_values().collect(),
            event: c.events.rows.into_values().collect(),
        }
    }
}

impl TryFrom<Snapshot> for Catalogue {
    type Error = CatalogueError;

    fn try_from(s: Snapshot) -> Result<Self, Self::Error> {
        let mut c = Catalogue::new();
        for sport in s.sport {
            c.insert_sport(sport);
        }
        for region in s.region {
            c.insert_region(region)?;
        }
        for competition in s.competition {
            c.insert_competition(competition)?;
        }
        for game in s.game {
            c.insert_game(game)?;
        }
        for market in s.market {
            c.insert_market(market)?;
        }
        for event in s.event {
            c.insert_event(event)?;
        }
        Ok(c)
    }
}
