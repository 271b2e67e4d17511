//! Sport search (spec 000 sections 2, 3, 5; 001 section 2.11). A term
//! matches a game when it is contained in team1_name, team2_name or the
//! competition's name, case-insensitively and ignoring whitespace on both
//! sides ("realmad" finds "Real Madrid"). Results group by sport in sport
//! order (`order`, then id), games by kick-off (then id); sports without
//! a match are left out. Blocked games are found too: search is a way to a
//! game page, and the page shows what can be bet.
//!
//! Minimum length, counted in characters after removing whitespace: 1 for
//! Korean, Chinese-traditional, English and Thai, 4 for every other
//! language. The codes accepted as those four (case-insensitive): `kor`;
//! `cht`, `zht` and `chi` (Chinese traditional; the platform's simplified
//! Chinese is `zhh` and needs 4, as the spec reads); `eng`; `tha`. Below
//! the minimum the answer is empty, as the client hides results.

use serde::{Deserialize, Serialize};

use super::model::{Game, GameType};
use super::store::Catalogue;

/// Language codes whose searches may be a single character.
pub const SHORT_SEARCH_LANGUAGES: [&str; 6] = ["kor", "cht", "zht", "chi", "eng", "tha"];

/// One sport's results.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchGroup {
    pub name: String,
    pub alias: String,
    pub results: Vec<SearchResult>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchResult {
    pub game: SearchGame,
    pub competition: SearchCompetition,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchGame {
    pub id: u64,
    #[serde(rename = "type")]
    pub game_type: GameType,
    pub team1_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team2_name: Option<String>,
    pub start_ts: i64,
}

impl SearchGame {
    pub fn link(&self) -> String {
        link_for(self.id, self.game_type)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchCompetition {
    pub name: String,
}

/// The shortest term (whitespace removed) searched in this language.
pub fn min_term_length(language: &str) -> usize {
    let language = language.to_ascii_lowercase();
    if SHORT_SEARCH_LANGUAGES.contains(&language.as_str()) {
        1
    } else {
        4
    }
}

/// Games whose teams or competition contain `term`, grouped by sport.
pub fn search(catalogue: &Catalogue, term: &str, language: &str) -> Vec<SearchGroup> {
    let needle = squash(term);
    let length = needle.chars().count();
    if length == 0 || length < min_term_length(language) {
        return Vec::new();
    }
    let mut sports: Vec<_> = catalogue.sports().values().collect();
    sports.sort_by_key(|s| (s.order, s.id));
    sports
        .into_iter()
        .filter_map(|sport| {
            let results = sport_results(catalogue, sport.id, &needle);
            (!results.is_empty()).then(|| SearchGroup {
                name: sport.name.clone(),
                alias: sport.alias.clone(),
                results,
            })
        })
        .collect()
}

fn sport_results(catalogue: &Catalogue, sport_id: u64, needle: &str) -> Vec<SearchResult> {
    let mut found: Vec<(&Game, &str)> = Vec::new();
    for region in catalogue.regions_of(sport_id) {
        for competition in catalogue.competitions_of(region.id) {
            let league_matches = squash(&competition.name).contains(needle);
            let games = catalogue.games_of(competition.id);
            found.extend(
                games
                    .filter(|g| league_matches || teams_match(g, needle))
                    .map(|g| (g, competition.name.as_str())),
            );
        }
    }
    found.sort_by_key(|(g, _)| (g.start_ts, g.id));
    found.into_iter().map(|(g, c)| result(g, c)).collect()
}

fn teams_match(game: &Game, needle: &str) -> bool {
    squash(&game.team1_name).contains(needle)
        || game
            .team2_name
            .as_deref()
            .is_some_and(|t| squash(t).contains(needle))
}

fn result(game: &Game, competition: &str) -> SearchResult {
    SearchResult {
        game: SearchGame {
            id: game.id,
            game_type: game.game_type,
            team1_name: game.team1_name.clone(),
            team2_name: game.team2_name.clone(),
            start_ts: game.start_ts,
        },
        competition: SearchCompetition {
            name: competition.to_string(),
        },
    }
}

/// Lowercase, whitespace removed.
fn squash(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Where a search result leads (spec 000 section 2): types 0 and 2 to the
/// prematch page, type 1 to the live page.
pub fn game_link(game: &Game) -> String {
    link_for(game.id, game.game_type)
}

pub fn link_for(id: u64, game_type: GameType) -> String {
    match game_type {
        GameType::Prematch | GameType::AlsoPrematch => format!("/prematch/game/{id}"),
        GameType::Live => format!("/live/game/{id}"),
    }
}
