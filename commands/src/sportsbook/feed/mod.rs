//! The odds feed: a port (`Feed`) with two adapters, the seeded simulator
//! that keeps a realistic catalogue alive, and the fixture importer that
//! loads an operator's catalogue from JSON. A feed mutates the catalogue on
//! each tick and reports games that finished, with their results.

mod fixture;
mod simulator;
pub mod sports;

pub use fixture::{Fixture, FixtureFeed};
pub use simulator::{
    Simulator, SimulatorSettings, RACE_ID_BASE, RACE_INTERVAL_S, RACE_MARKET_TYPE, RACE_SECONDS,
    RACING_SPORT_ID,
};

use domain::catalogue::Catalogue;
use domain::result::{FinalScore, SelectionResult};

/// A game that ended on this tick.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Finished {
    pub game_id: u64,
    pub score: FinalScore,
    pub selections: Vec<SelectionResult>,
}

pub trait Feed: Send {
    /// Fills an empty catalogue.
    fn start(&mut self, catalogue: &mut Catalogue, now_s: i64);
    /// Takes over a catalogue another process's feed built (failover).
    fn adopt(&mut self, catalogue: &Catalogue, now_s: i64);
    /// Moves the catalogue on to `now_s`; returns the games that finished.
    fn tick(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<Finished>;
}
