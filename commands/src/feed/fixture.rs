//! Loading an operator's catalogue from a JSON fixture file:
//! `{"sports": [...], "regions": [...], "competitions": [...], "games": [...],
//! "markets": [...], "events": [...]}` with the wire field names.

use domain::catalogue::{
    Catalogue, CatalogueError, Competition, Event, Game, Market, Region, Sport,
};
use serde::Deserialize;

use super::{Feed, Finished};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Fixture {
    #[serde(default)]
    pub sports: Vec<Sport>,
    #[serde(default)]
    pub regions: Vec<Region>,
    #[serde(default)]
    pub competitions: Vec<Competition>,
    #[serde(default)]
    pub games: Vec<Game>,
    #[serde(default)]
    pub markets: Vec<Market>,
    #[serde(default)]
    pub events: Vec<Event>,
}

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("fixture is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("fixture is inconsistent: {0}")]
    Catalogue(#[from] CatalogueError),
}

impl Fixture {
    pub fn parse(text: &str) -> Result<Fixture, FixtureError> {
        Ok(serde_json::from_str(text)?)
    }

    /// Loads every entity, parents first; a child naming a missing parent
    /// is an error, not a silent drop.
    pub fn load_into(&self, catalogue: &mut Catalogue) -> Result<(), FixtureError> {
        for s in &self.sports {
            catalogue.insert_sport(s.clone());
        }
        for r in &self.regions {
            catalogue.insert_region(r.clone())?;
        }
        for c in &self.competitions {
            catalogue.insert_competition(c.clone())?;
        }
        for g in &self.games {
            catalogue.insert_game(g.clone())?;
        }
        for m in &self.markets {
            catalogue.insert_market(m.clone())?;
        }
        for e in &self.events {
            catalogue.insert_event(e.clone())?;
        }
        Ok(())
    }
}

/// A feed that serves a fixed, imported catalogue.
pub struct FixtureFeed {
    fixture: Fixture,
}

impl FixtureFeed {
    pub fn new(fixture: Fixture) -> Self {
        Self { fixture }
    }
}

impl Feed for FixtureFeed {
    fn start(&mut self, catalogue: &mut Catalogue, _now_s: i64) {
        if let Err(e) = self.fixture.load_into(catalogue) {
            tracing::error!(error = %e, "fixture not loaded");
        }
    }

    fn tick(&mut self, _catalogue: &mut Catalogue, _now_s: i64) -> Vec<Finished> {
        Vec::new()
    }
}
