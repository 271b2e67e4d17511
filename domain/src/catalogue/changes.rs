//! What changed in a catalogue between two moments, as data: the feed's
//! process computes it after each tick and stores it, and every other
//! process sharing the store applies it, so all their subscribers see the
//! same catalogue.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Catalogue, CatalogueError, Snapshot};

/// Ids removed, per level.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Removed {
    pub sport: Vec<u64>,
    pub region: Vec<u64>,
    pub competition: Vec<u64>,
    pub game: Vec<u64>,
    pub market: Vec<u64>,
    pub event: Vec<u64>,
}

/// New or changed entities (whole rows) and removed ids.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChangeSet {
    pub upsert: Snapshot,
    pub remove: Removed,
}

impl ChangeSet {
    pub fn is_empty(&self) -> bool {
        let u = &self.upsert;
        let r = &self.remove;
        u.sport.is_empty()
            && u.region.is_empty()
            && u.competition.is_empty()
            && u.game.is_empty()
            && u.market.is_empty()
            && u.event.is_empty()
            && r.sport.is_empty()
            && r.region.is_empty()
            && r.competition.is_empty()
            && r.game.is_empty()
            && r.market.is_empty()
            && r.event.is_empty()
    }
}

/// Rows in `new` that are new or differ from `old`, and ids gone from it.
fn compare<T: Clone + PartialEq>(
    old: &BTreeMap<u64, T>,
    new: &BTreeMap<u64, T>,
) -> (Vec<T>, Vec<u64>) {
    let upserts = new
        .iter()
        .filter(|(id, row)| old.get(id) != Some(row))
        .map(|(_, row)| row.clone())
        .collect();
    let removed = old
        .keys()
        .filter(|id| !new.contains_key(id))
        .copied()
        .collect();
    (upserts, removed)
}

impl Catalogue {
    /// The changes that turn `old` into `self`.
    pub fn changes_since(&self, old: &Catalogue) -> ChangeSet {
        let mut set = ChangeSet::default();
        (set.upsert.sport, set.remove.sport) = compare(old.sports(), self.sports());
        (set.upsert.region, set.remove.region) = compare(old.regions(), self.regions());
        (set.upsert.competition, set.remove.competition) =
            compare(old.competitions(), self.competitions());
        (set.upsert.game, set.remove.game) = compare(old.games(), self.games());
        (set.upsert.market, set.remove.market) = compare(old.markets(), self.markets());
        (set.upsert.event, set.remove.event) = compare(old.events(), self.events());
        set
    }

    /// Applies `changes`: removals (children first), then upserts (parents
    /// first). A change naming a missing parent is an error.
    pub fn apply_changes(&mut self, changes: &ChangeSet) -> Result<(), CatalogueError> {
        let r = &changes.remove;
        for id in &r.event {
            self.remove_event(*id);
        }
        for id in &r.market {
            self.remove_market(*id);
        }
        for id in &r.game {
            self.remove_game(*id);
        }
        for id in &r.competition {
            self.remove_competition(*id);
        }
        for id in &r.region {
            self.remove_region(*id);
        }
        for id in &r.sport {
            self.remove_sport(*id);
        }
        let u = &changes.upsert;
        for row in &u.sport {
            self.insert_sport(row.clone());
        }
        for row in &u.region {
            self.insert_region(row.clone())?;
        }
        for row in &u.competition {
            self.insert_competition(row.clone())?;
        }
        for row in &u.game {
            self.insert_game(row.clone())?;
        }
        for row in &u.market {
            self.insert_market(row.clone())?;
        }
        for row in &u.event {
            self.insert_event(row.clone())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::testgen;

    #[test]
    fn applying_the_changes_since_old_to_old_gives_new() {
        for seed in 0..50u64 {
            let mut rng = testgen::Rng::new(seed);
            let old = testgen::catalogue(&mut rng);
            let mut new = old.clone();
            for _ in 0..5 {
                testgen::mutate(&mut rng, &mut new);
            }
            let changes = new.changes_since(&old);
            let mut replayed = old.clone();
            replayed.apply_changes(&changes).unwrap();
            assert_eq!(replayed, new, "seed {seed}");
            let text = serde_json::to_string(&changes).unwrap();
            let back: ChangeSet = serde_json::from_str(&text).unwrap();
            let mut again = old.clone();
            again.apply_changes(&back).unwrap();
            assert_eq!(again, new);
        }
    }

    #[test]
    fn no_change_is_an_empty_change_set() {
        let mut rng = testgen::Rng::new(9);
        let c = testgen::catalogue(&mut rng);
        assert!(c.changes_since(&c.clone()).is_empty());
    }
}
