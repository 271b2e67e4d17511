//! Loading an operator's catalogue from a JSON fixture file: the catalogue
//! snapshot shape `{"sports": [...], "regions": [...], "competitions": [...],
//! "games": [...], "markets": [...], "events": [...]}` (singular keys work
//! too) with the wire field names, parents before children.

use domain::catalogue::{Catalogue, CatalogueError, ChangeSet, Snapshot};

use super::{Feed, Finished};

#[derive(Debug, Clone, Default)]
pub struct Fixture(pub Snapshot);

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("fixture is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("fixture is inconsistent: {0}")]
    Catalogue(#[from] CatalogueError),
}

impl Fixture {
    pub fn parse(text: &str) -> Result<Fixture, FixtureError> {
        Ok(Fixture(serde_json::from_str(text)?))
    }

    /// Loads every entity, parents first; a child naming a missing parent
    /// is an error, not a silent drop.
    pub fn load_into(&self, catalogue: &mut Catalogue) -> Result<(), FixtureError> {
        let changes = ChangeSet {
            upsert: self.0.clone(),
            ..ChangeSet::default()
        };
        Ok(catalogue.apply_changes(&changes)?)
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

    fn adopt(&mut self, _catalogue: &Catalogue, _now_s: i64) {}

    fn tick(&mut self, _catalogue: &mut Catalogue, _now_s: i64) -> Vec<Finished> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fixture_loads_with_plural_keys_and_refuses_orphans() {
        let text = r#"{"sports":[{"id":1,"name":"Football","alias":"Soccer","order":0}],
            "regions":[{"id":10,"sport_id":1,"name":"England","alias":"England"}],
            "competitions":[{"id":100,"region_id":10,"name":"Premier League"}],
            "games":[{"id":1000,"competition_id":100,"type":0,"start_ts":1800000000,"team1_name":"A","team2_name":"B"}],
            "markets":[{"id":5,"game_id":1000,"market_type":"P1XP2","name":"Match Result"}],
            "events":[{"id":6,"market_id":5,"name":"W1","type":"P1","price":"1.85"}]}"#;
        let mut catalogue = Catalogue::new();
        Fixture::parse(text)
            .unwrap()
            .load_into(&mut catalogue)
            .unwrap();
        assert_eq!(catalogue.events()[&6].price.to_string(), "1.850");
        let orphan =
            r#"{"games":[{"id":1,"competition_id":99,"type":0,"start_ts":0,"team1_name":"A"}]}"#;
        assert!(Fixture::parse(orphan)
            .unwrap()
            .load_into(&mut Catalogue::new())
            .is_err());
        assert!(Fixture::parse("{nope").is_err());
    }
}
