//! The seeded, deterministic feed simulator (a stand-in for a real odds
//! feed, labelled as such in the client and docs).
//!
//! It keeps six sports alive: football (sport 1), ice hockey (2),
//! basketball (3), tennis (4), an esport (Counter-Strike 2, 75) and a
//! virtual sport (virtual football, 300). Prematch games are spread over the
//! next eight days; games go live at their start time, run an accelerated
//! clock with scores, corners and half-time, move prices, suspend and
//! re-open markets, and finish with a result for every selection. New games
//! are added so the catalogue never runs dry. The same seed and the same
//! tick times give the same catalogue.

use std::collections::BTreeMap;

use domain::catalogue::{
    Catalogue, Competition, Event, Game, GameType, LiveInfo, Market, Region, Sport,
};
use domain::money::round_odds;
use domain::result::{settle, FinalScore, SelectionResult};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;

use super::{Feed, Finished};

#[derive(Debug, Clone, Copy)]
pub struct SimulatorSettings {
    pub seed: u64,
    /// Prematch games kept per competition.
    pub games_per_competition: usize,
    /// Wall-clock seconds a live game lasts (its clock is accelerated).
    pub live_seconds: i64,
    /// Price moves per tick across the catalogue.
    pub price_moves_per_tick: usize,
}

impl Default for SimulatorSettings {
    fn default() -> Self {
        Self {
            seed: 42,
            games_per_competition: 4,
            live_seconds: 600,
            price_moves_per_tick: 40,
        }
    }
}

struct SportSpec {
    id: u64,
    name: &'static str,
    alias: &'static str,
    draws: bool,
    /// Expected total score (goals, points, games) and the state names.
    scoring: u32,
    /// Regulation time shown on the clock (0: the sport has no clock).
    minutes: u32,
    states: &'static [&'static str],
    regions: &'static [(&'static str, &'static [&'static str])],
    teams: &'static [&'static str],
}

const SPORTS: &[SportSpec] = &[
    SportSpec {
        id: 1,
        name: "Football",
        alias: "Soccer",
        draws: true,
        scoring: 3,
        minutes: 90,
        states: &["1st half", "2nd half"],
        regions: &[
            ("England", &["Premier League", "Championship"]),
            ("Spain", &["LaLiga"]),
            ("Germany", &["Bundesliga"]),
            ("China", &["Chinese Super League"]),
        ],
        teams: &[
            "Arsenal",
            "Chelsea",
            "Liverpool",
            "Everton",
            "Leeds",
            "Burnley",
            "Sevilla",
            "Valencia",
            "Girona",
            "Bayern",
            "Dortmund",
            "Freiburg",
            "Shanghai Port",
            "Beijing Guoan",
            "Shandong Taishan",
            "Chengdu Rongcheng",
        ],
    },
    SportSpec {
        id: 2,
        name: "Ice Hockey",
        alias: "IceHockey",
        draws: true,
        scoring: 5,
        minutes: 60,
        states: &["period1", "period2", "period3"],
        regions: &[("USA", &["NHL"]), ("Finland", &["Liiga"])],
        teams: &[
            "Rangers", "Bruins", "Oilers", "Kings", "Tappara", "Ilves", "HIFK", "Lukko",
        ],
    },
    SportSpec {
        id: 3,
        name: "Basketball",
        alias: "Basketball",
        draws: false,
        scoring: 210,
        minutes: 48,
        states: &["quarter1", "quarter2", "quarter3", "quarter4"],
        regions: &[("USA", &["NBA"]), ("China", &["CBA"])],
        teams: &[
            "Lakers",
            "Celtics",
            "Warriors",
            "Heat",
            "Guangdong Tigers",
            "Liaoning Flying Leopards",
            "Beijing Ducks",
            "Zhejiang Lions",
        ],
    },
    SportSpec {
        id: 4,
        name: "Tennis",
        alias: "Tennis",
        draws: false,
        scoring: 22,
        minutes: 0,
        states: &["set1", "set2", "set3"],
        regions: &[("World", &["ATP Tour", "WTA Tour"])],
        teams: &[
            "Sinner J.",
            "Alcaraz C.",
            "Djokovic N.",
            "Zverev A.",
            "Sabalenka A.",
            "Swiatek I.",
            "Gauff C.",
            "Zheng Q.",
        ],
    },
    SportSpec {
        id: 75,
        name: "Counter-Strike 2",
        alias: "CounterStrike",
        draws: false,
        scoring: 3,
        minutes: 0,
        states: &["map1", "map2", "map3"],
        regions: &[("World", &["ESL Pro League"])],
        teams: &["Natus Vincere", "FaZe", "Vitality", "G2", "Spirit", "MOUZ"],
    },
    SportSpec {
        id: 300,
        name: "Virtual Football",
        alias: "VirtualFootball",
        draws: true,
        scoring: 3,
        minutes: 90,
        states: &["1st half", "2nd half"],
        regions: &[("Virtual", &["Virtual League"])],
        teams: &[
            "Red Lions",
            "Blue Eagles",
            "Green Wolves",
            "Gold Bears",
            "Black Sharks",
            "White Tigers",
        ],
    },
];

fn spec(sport_id: u64) -> &'static SportSpec {
    SPORTS
        .iter()
        .find(|s| s.id == sport_id)
        .unwrap_or(&SPORTS[0])
}

/// What the simulator knows about a game that the catalogue does not show.
#[derive(Debug, Clone)]
struct Play {
    sport_id: u64,
    /// How much stronger team 1 is, in score units per game.
    edge: i32,
    live_since: Option<i64>,
    score: (u32, u32),
    first_half: Option<(u32, u32)>,
    corners: u32,
}

pub struct Simulator {
    settings: SimulatorSettings,
    rng: StdRng,
    next_id: u64,
    plays: BTreeMap<u64, Play>,
}

fn dec(units: i64, scale: u32) -> Decimal {
    Decimal::new(units, scale)
}

impl Simulator {
    pub fn new(settings: SimulatorSettings) -> Self {
        Self {
            settings,
            rng: StdRng::seed_from_u64(settings.seed),
            next_id: 1_000,
            plays: BTreeMap::new(),
        }
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    /// A fair-ish price with a margin, from a win chance in per mille.
    fn price(chance_per_mille: i64) -> Decimal {
        let chance = chance_per_mille.clamp(20, 980);
        // 1 / p, less a 6% margin, at 3 places; never below 1.01.
        let fair = Decimal::from(1000) / Decimal::from(chance);
        round_odds((fair * dec(94, 2)).max(dec(101, 2)))
    }

    /// The teams of a competition's region: the sport's team list is
    /// grouped by region in the order of its regions.
    fn teams_of(
        catalogue: &Catalogue,
        sport: &'static SportSpec,
        competition_id: u64,
    ) -> &'static [&'static str] {
        let region = catalogue
            .competitions()
            .get(&competition_id)
            .and_then(|c| catalogue.regions().get(&c.region_id))
            .map(|r| r.name.as_str());
        let index = sport
            .regions
            .iter()
            .position(|(name, _)| Some(*name) == region)
            .unwrap_or(0);
        let per_region = (sport.teams.len() / sport.regions.len().max(1)).max(2);
        let start = (index * per_region).min(sport.teams.len() - per_region);
        &sport.teams[start..start + per_region]
    }

    fn add_game(
        &mut self,
        catalogue: &mut Catalogue,
        competition_id: u64,
        sport_id: u64,
        start_ts: i64,
    ) {
        let sport = spec(sport_id);
        let teams = Self::teams_of(catalogue, sport, competition_id);
        let a = self.rng.random_range(0..teams.len());
        let mut b = self.rng.random_range(0..teams.len() - 1);
        if b >= a {
            b += 1;
        }
        let id = self.id();
        let edge = self.rng.random_range(-2..=2);
        let game = Game {
            id,
            competition_id,
            game_type: GameType::Prematch,
            start_ts,
            team1_name: teams[a].to_string(),
            team2_name: Some(teams[b].to_string()),
            is_blocked: false,
            info: None,
            markets_count: 0,
        };
        if catalogue.insert_game(game).is_err() {
            return;
        }
        self.plays.insert(
            id,
            Play {
                sport_id,
                edge,
                live_since: None,
                score: (0, 0),
                first_half: None,
                corners: 0,
            },
        );
        self.add_markets(catalogue, id, sport, edge);
    }

    fn add_market(
        &mut self,
        catalogue: &mut Catalogue,
        game_id: u64,
        market_type: &str,
        name: &str,
        base: Option<Decimal>,
        order: i64,
        events: &[(&str, &str, i64, Option<Decimal>)],
    ) {
        let market_id = self.id();
        let market = Market {
            id: market_id,
            game_id,
            market_type: market_type.to_string(),
            name: name.to_string(),
            base,
            order,
            is_suspended: false,
        };
        if catalogue.insert_market(market).is_err() {
            return;
        }
        for (name, type_, chance, event_base) in events {
            let event = Event {
                id: self.id(),
                market_id,
                name: name.to_string(),
                type_: type_.to_string(),
                price: Self::price(*chance),
                base: *event_base,
                is_suspended: false,
            };
            let _ = catalogue.insert_event(event);
        }
    }

    fn add_markets(
        &mut self,
        catalogue: &mut Catalogue,
        game_id: u64,
        sport: &SportSpec,
        edge: i32,
    ) {
        let tilt = i64::from(edge) * 90;
        if sport.draws {
            self.add_market(
                catalogue,
                game_id,
                "P1XP2",
                "Match Result",
                None,
                1,
                &[
                    ("W1", "P1", 400 + tilt, None),
                    ("Draw", "X", 260, None),
                    ("W2", "P2", 340 - tilt, None),
                ],
            );
            self.add_market(
                catalogue,
                game_id,
                "DoubleChance",
                "Double Chance",
                None,
                5,
                &[
                    ("1X", "1X", 660 + tilt, None),
                    ("12", "12", 740, None),
                    ("X2", "X2", 600 - tilt, None),
                ],
            );
        } else {
            self.add_market(
                catalogue,
                game_id,
                "P1P2",
                "Winner",
                None,
                1,
                &[
                    ("W1", "P1", 520 + tilt, None),
                    ("W2", "P2", 480 - tilt, None),
                ],
            );
        }
        // Asian handicap on a quarter line, leaning to the stronger side.
        let quarter = [dec(-75, 2), dec(-25, 2), dec(25, 2), dec(75, 2)];
        let line = quarter[((edge + 2) as usize).min(3)]
            * Decimal::from(if sport.scoring > 50 { 8 } else { 1 });
        self.add_market(
            catalogue,
            game_id,
            "AsianHandicap",
            "Asian Handicap",
            Some(line),
            2,
            &[
                ("Team 1", "Home", 500, Some(line)),
                ("Team 2", "Away", 500, Some(-line)),
            ],
        );
        let total = Decimal::from(sport.scoring) - dec(5, 1);
        self.add_market(
            catalogue,
            game_id,
            "OverUnder",
            "Total",
            Some(total),
            3,
            &[
                ("Over", "Over", 500, Some(total)),
                ("Under", "Under", 500, Some(total)),
            ],
        );
        if sport.id == 1 || sport.id == 300 {
            let asian_total = Decimal::from(sport.scoring) - dec(75, 2);
            self.add_market(
                catalogue,
                game_id,
                "AsianTotal",
                "Asian Total",
                Some(asian_total),
                4,
                &[
                    ("Over", "Over", 520, Some(asian_total)),
                    ("Under", "Under", 480, Some(asian_total)),
                ],
            );
            self.add_market(
                catalogue,
                game_id,
                "BothTeamsToScore",
                "Both Teams To Score",
                None,
                6,
                &[("Yes", "Yes", 520, None), ("No", "No", 480, None)],
            );
            self.add_market(
                catalogue,
                game_id,
                "FirstHalfP1XP2",
                "1st Half Result",
                None,
                7,
                &[
                    ("W1", "P1", 330 + tilt / 2, None),
                    ("Draw", "X", 400, None),
                    ("W2", "P2", 270 - tilt / 2, None),
                ],
            );
            let corners = dec(95, 1);
            self.add_market(
                catalogue,
                game_id,
                "CornerOverUnder",
                "Corners Total",
                Some(corners),
                8,
                &[
                    ("Over", "Over", 500, Some(corners)),
                    ("Under", "Under", 500, Some(corners)),
                ],
            );
        }
    }

    fn populate_competition(
        &mut self,
        catalogue: &mut Catalogue,
        competition_id: u64,
        sport_id: u64,
        now_s: i64,
    ) {
        let existing = catalogue
            .games_of(competition_id)
            .filter(|g| g.game_type != GameType::Live)
            .count();
        for _ in existing..self.settings.games_per_competition {
            // Within the next eight days, on the quarter hour.
            let offset = self.rng.random_range(600..8 * 86_400);
            let start = (now_s + offset) / 900 * 900;
            self.add_game(catalogue, competition_id, sport_id, start);
        }
    }

    /// Moves one random event's price by up to 6% and re-rounds it.
    fn move_price(&mut self, catalogue: &mut Catalogue) {
        let count = catalogue.events().len();
        if count == 0 {
            return;
        }
        let index = self.rng.random_range(0..count);
        let Some(id) = catalogue.events().keys().nth(index).copied() else {
            return;
        };
        let step = dec(self.rng.random_range(-60..=60), 3);
        let _ = catalogue.update_event(id, |e| {
            e.price = round_odds(
                (e.price * (Decimal::ONE + step)).clamp(dec(101, 2), Decimal::from(100)),
            );
        });
    }

    /// Suspends a few markets and re-opens suspended ones.
    fn flip_suspensions(&mut self, catalogue: &mut Catalogue) {
        let ids: Vec<(u64, bool)> = catalogue
            .markets()
            .values()
            .map(|m| (m.id, m.is_suspended))
            .collect();
        for (id, suspended) in ids {
            let flip = if suspended {
                self.rng.random_bool(0.3)
            } else {
                self.rng.random_bool(0.003)
            };
            if flip {
                let _ = catalogue.update_market(id, |m| m.is_suspended = !suspended);
            }
        }
    }

    fn go_live(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        let due: Vec<u64> = catalogue
            .games()
            .values()
            .filter(|g| g.game_type != GameType::Live && g.start_ts <= now_s)
            .map(|g| g.id)
            .collect();
        for id in due {
            let Some(play) = self.plays.get_mut(&id) else {
                continue;
            };
            play.live_since = Some(now_s);
            let state = spec(play.sport_id).states[0].to_string();
            let _ = catalogue.update_game(id, |g| {
                g.game_type = GameType::Live;
                g.info = Some(LiveInfo {
                    current_game_state: state,
                    clock: 0,
                    score1: 0,
                    score2: 0,
                });
            });
        }
    }

    /// Runs the live games on; returns those that finished.
    fn play_live(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<u64> {
        let live_seconds = self.settings.live_seconds.max(10);
        let mut finished = Vec::new();
        let ids: Vec<u64> = self
            .plays
            .iter()
            .filter(|(_, p)| p.live_since.is_some())
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(play) = self.plays.get(&id).cloned() else {
                continue;
            };
            let since = play.live_since.unwrap_or(now_s);
            let progress = ((now_s - since) as f64 / live_seconds as f64).min(1.0);
            let sport = spec(play.sport_id);
            // Expected scoring per tick, tilted by the edge.
            let per_tick = f64::from(sport.scoring) / live_seconds as f64;
            let mut score = play.score;
            let bias = 0.5 + f64::from(play.edge) * 0.08;
            let mut scored = None;
            if self.rng.random_bool((per_tick * 1.0).min(0.95)) {
                if self.rng.random_bool(bias.clamp(0.1, 0.9)) {
                    score.0 += 1;
                    scored = Some(1);
                } else {
                    score.1 += 1;
                    scored = Some(2);
                }
            }
            let corner = self.rng.random_bool((10.0 / live_seconds as f64).min(0.5));
            let states = sport.states;
            let state_index = ((progress * states.len() as f64) as usize).min(states.len() - 1);
            let entry = self.plays.get_mut(&id).expect("present");
            entry.score = score;
            if corner {
                entry.corners += 1;
            }
            if entry.first_half.is_none() && progress >= 0.5 {
                entry.first_half = Some(score);
            }
            let clock = (progress * f64::from(sport.minutes) * 60.0) as u32;
            let _ = catalogue.update_game(id, |g| {
                if let Some(info) = g.info.as_mut() {
                    info.clock = clock;
                    info.score1 = score.0;
                    info.score2 = score.1;
                    info.current_game_state = states[state_index].to_string();
                }
            });
            if let Some(side) = scored {
                self.react_to_score(catalogue, id, side);
            }
            if progress >= 1.0 {
                finished.push(id);
            }
        }
        finished
    }

    /// After a score, the scoring side's win prices shorten, the other's drift.
    fn react_to_score(&mut self, catalogue: &mut Catalogue, game_id: u64, side: u8) {
        let markets: Vec<(u64, String)> = catalogue
            .markets_of(game_id)
            .map(|m| (m.id, m.market_type.clone()))
            .collect();
        for (market_id, market_type) in markets {
            if !matches!(market_type.as_str(), "P1XP2" | "P1P2" | "AsianHandicap") {
                continue;
            }
            let events: Vec<(u64, String)> = catalogue
                .events_of(market_id)
                .map(|e| (e.id, e.type_.clone()))
                .collect();
            for (event_id, type_) in events {
                let favoured = matches!(
                    (side, type_.as_str()),
                    (1, "P1" | "Home") | (2, "P2" | "Away")
                );
                let factor = if favoured { dec(80, 2) } else { dec(125, 2) };
                let _ = catalogue.update_event(event_id, |e| {
                    e.price = round_odds((e.price * factor).clamp(dec(101, 2), Decimal::from(100)));
                });
            }
        }
    }

    fn finish(&mut self, catalogue: &mut Catalogue, game_id: u64) -> Option<Finished> {
        let play = self.plays.remove(&game_id)?;
        let score = FinalScore {
            team1: play.score.0,
            team2: play.score.1,
            first_half: Some(play.first_half.unwrap_or(play.score)),
            corners: Some(play.corners),
        };
        let mut selections = Vec::new();
        for market in catalogue.markets_of(game_id) {
            for event in catalogue.events_of(market.id) {
                let base = event.base.or(market.base);
                if let Some(outcome) = settle(&market.market_type, &event.type_, base, &score) {
                    selections.push(SelectionResult {
                        event_id: event.id,
                        market_id: market.id,
                        outcome,
                    });
                }
            }
        }
        catalogue.remove_game(game_id);
        Some(Finished {
            game_id,
            score,
            selections,
        })
    }
}

impl Feed for Simulator {
    fn start(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        for (order, sport) in SPORTS.iter().enumerate() {
            catalogue.insert_sport(Sport {
                id: sport.id,
                name: sport.name.to_string(),
                alias: sport.alias.to_string(),
                order: order as i64,
            });
            for (region_name, competitions) in sport.regions {
                let region_id = self.id();
                let _ = catalogue.insert_region(Region {
                    id: region_id,
                    sport_id: sport.id,
                    name: region_name.to_string(),
                    alias: region_name.replace(' ', ""),
                });
                for competition in *competitions {
                    let competition_id = self.id();
                    let _ = catalogue.insert_competition(Competition {
                        id: competition_id,
                        region_id,
                        name: competition.to_string(),
                    });
                    // One game already under way in each competition.
                    let started = now_s
                        - self
                            .rng
                            .random_range(1..(self.settings.live_seconds / 2).max(2));
                    self.add_game(catalogue, competition_id, sport.id, started);
                    self.populate_competition(catalogue, competition_id, sport.id, now_s);
                }
            }
        }
        self.go_live(catalogue, now_s);
    }

    /// Continues a catalogue built elsewhere: ids go on from its largest,
    /// and its games are played on from their live info (edges unknown).
    fn adopt(&mut self, catalogue: &Catalogue, now_s: i64) {
        let largest = [
            catalogue.regions().keys().max(),
            catalogue.competitions().keys().max(),
            catalogue.games().keys().max(),
            catalogue.markets().keys().max(),
            catalogue.events().keys().max(),
        ]
        .into_iter()
        .flatten()
        .max()
        .copied()
        .unwrap_or(0);
        self.next_id = self.next_id.max(largest);
        self.plays.clear();
        for game in catalogue.games().values() {
            let sport_id = catalogue.lineage(game.id).map(|l| l.sport.id).unwrap_or(1);
            let info = game
                .info
                .as_ref()
                .filter(|_| game.game_type == GameType::Live);
            // The clock runs the sport's regulation time in `live_seconds`;
            // a sport without a clock is taken as half played.
            let regulation = i64::from(spec(sport_id).minutes) * 60;
            let live_for = info.map(|i| match regulation {
                0 => self.settings.live_seconds / 2,
                r => i64::from(i.clock) * self.settings.live_seconds / r,
            });
            self.plays.insert(
                game.id,
                Play {
                    sport_id,
                    edge: 0,
                    live_since: live_for.map(|secs| now_s - secs),
                    score: info.map(|i| (i.score1, i.score2)).unwrap_or((0, 0)),
                    first_half: None,
                    corners: 0,
                },
            );
        }
    }

    fn tick(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<Finished> {
        self.go_live(catalogue, now_s);
        for _ in 0..self.settings.price_moves_per_tick {
            self.move_price(catalogue);
        }
        self.flip_suspensions(catalogue);
        let done = self.play_live(catalogue, now_s);
        let finished: Vec<Finished> = done
            .into_iter()
            .filter_map(|id| self.finish(catalogue, id))
            .collect();
        let competitions: Vec<(u64, u64)> = catalogue
            .competitions()
            .values()
            .filter_map(|c| {
                catalogue
                    .regions()
                    .get(&c.region_id)
                    .map(|r| (c.id, r.sport_id))
            })
            .collect();
        for (competition_id, sport_id) in competitions {
            self.populate_competition(catalogue, competition_id, sport_id, now_s);
        }
        finished
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(seed: u64, ticks: i64) -> (Catalogue, Vec<Finished>) {
        let mut sim = Simulator::new(SimulatorSettings {
            seed,
            live_seconds: 60,
            ..Default::default()
        });
        let mut catalogue = Catalogue::new();
        let t0 = 1_800_000_000;
        sim.start(&mut catalogue, t0);
        let mut finished = Vec::new();
        for t in 1..=ticks {
            finished.extend(sim.tick(&mut catalogue, t0 + t));
        }
        (catalogue, finished)
    }

    #[test]
    fn the_simulator_keeps_the_six_sports_with_live_and_prematch_games() {
        let (catalogue, _) = run(7, 5);
        let sports: Vec<u64> = catalogue.sports().keys().copied().collect();
        assert_eq!(sports, vec![1, 2, 3, 4, 75, 300]);
        let live = catalogue
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Live)
            .count();
        let prematch = catalogue
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch)
            .count();
        assert!(live >= 10, "{live} live games");
        assert!(prematch >= 40, "{prematch} prematch games");
        let horizon = 1_800_000_000 + 8 * 86_400;
        assert!(catalogue.games().values().all(|g| g.start_ts <= horizon));
        assert!(catalogue.events().values().all(|e| e.price >= dec(101, 2)));
    }

    #[test]
    fn teams_play_in_their_own_region() {
        let (catalogue, _) = run(4, 3);
        let english = ["Arsenal", "Chelsea", "Liverpool", "Everton"];
        for game in catalogue.games().values() {
            let lineage = catalogue.lineage(game.id).unwrap();
            if lineage.region.name == "England" {
                assert!(
                    english.contains(&game.team1_name.as_str()),
                    "{}",
                    game.team1_name
                );
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_catalogue() {
        let (a, fa) = run(11, 30);
        let (b, fb) = run(11, 30);
        assert_eq!(a, b);
        assert_eq!(fa, fb);
        let (c, _) = run(12, 30);
        assert_ne!(a, c);
    }

    #[test]
    fn live_games_finish_with_a_result_for_their_selections_and_are_replaced() {
        let (catalogue, finished) = run(3, 90);
        assert!(!finished.is_empty());
        for game in &finished {
            assert!(catalogue.games().get(&game.game_id).is_none());
            assert!(!game.selections.is_empty());
        }
        // Quarter-line markets produced half outcomes somewhere, or at least settled.
        let prematch = catalogue
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Prematch)
            .count();
        assert!(prematch >= 40);
    }

    #[test]
    fn a_second_simulator_adopts_the_catalogue_and_plays_on() {
        let (catalogue, _) = run(8, 10);
        let mut next = Simulator::new(SimulatorSettings {
            seed: 99,
            live_seconds: 60,
            ..Default::default()
        });
        let mut adopted = catalogue.clone();
        next.adopt(&adopted, 1_800_000_010);
        // A prematch game withdrawn: the simulator schedules a new one.
        let withdrawn = adopted
            .games()
            .values()
            .find(|g| g.game_type == GameType::Prematch)
            .unwrap()
            .id;
        adopted.remove_game(withdrawn);
        let live_before = adopted
            .games()
            .values()
            .filter(|g| g.game_type == GameType::Live)
            .count();
        let mut finished = Vec::new();
        for t in 11..=120 {
            finished.extend(next.tick(&mut adopted, 1_800_000_000 + t));
        }
        assert!(live_before > 0);
        assert!(!finished.is_empty(), "adopted live games finish");
        let largest_before = catalogue.events().keys().max().copied().unwrap();
        assert!(
            adopted.events().keys().any(|id| *id > largest_before),
            "new ids continue"
        );
    }

    #[test]
    fn prices_move_and_markets_suspend_over_time() {
        let (before, _) = run(5, 1);
        let (after, _) = run(5, 20);
        let moved = before
            .events()
            .iter()
            .filter(|(id, e)| after.events().get(id).is_some_and(|a| a.price != e.price))
            .count();
        assert!(moved > 20, "{moved} prices moved");
        let (long, _) = run(5, 40);
        assert!(long.markets().values().any(|m| m.is_suspended));
    }
}
