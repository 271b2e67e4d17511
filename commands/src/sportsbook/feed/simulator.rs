//! The seeded, deterministic feed simulator (a stand-in for a real odds
//! feed, labelled as such in the client and docs).
//!
//! It keeps six sports alive: football (sport 1), ice hockey (2),
//! basketball (3), tennis (4), an esport (Counter-Strike 2, 75) and a
//! virtual sport (virtual football, 300). Prematch games are listed over
//! the next eight days; games go live at their start time and are played at
//! their sport's real pace (football 105 minutes with half-time; an
//! accelerated clock is a setting, `live_seconds`), with scores, corners
//! and breaks, move prices, suspend and re-open markets, and finish with a
//! result for every selection. New games are added so the catalogue never
//! runs dry, drawn from leagues around the world so that no club plays two
//! games within 48 hours. The same seed and the same tick times give the
//! same catalogue.
//!
//! A seventh sport, virtual horse racing (301, `RACING_SPORT_ID`), runs
//! short races: every `RACE_INTERVAL_S` on each of two tracks, a race
//! (game, team1_name "Royal Downs Race 12", no team2) with one "Winner"
//! market (`RACE_MARKET_TYPE`) of 6-10 runners, each-way at 1/4 of the
//! odds (ew_coeff 0.25) for 2 places (6-7 runners) or 3 (8-10), SP
//! allowed. Prices move until the off; at the off the race goes live, its
//! market is suspended and each runner's price is its starting price; after
//! `RACE_SECONDS` the finishing order is drawn by the runners' strengths
//! and every runner gets a result: the winner Won, the others within the
//! places Placed, the rest Lost, each with its `sp_price` (the final
//! score's team1 is the winner's number). Racing draws from its own random
//! stream and its rows take ids from `RACE_ID_BASE` up, so the other six
//! sports are exactly what they are without it.

use std::collections::BTreeMap;

use domain::catalogue::{
    Catalogue, Competition, Event, Game, GameType, LiveInfo, Market, Region, Sport,
};
use domain::money::round_odds;
use domain::result::{settle, FinalScore, SelectionOutcome, SelectionResult};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rust_decimal::Decimal;

use super::sports::{
    league, spec, LeagueSpec, SportSpec, RACING_NAME, RACING_REGION, RACING_TRACKS, SPORTS,
};
use super::{Feed, Finished};

/// Virtual horse racing.
pub const RACING_SPORT_ID: u64 = 301;
/// The market type of a race's "Winner" market.
pub const RACE_MARKET_TYPE: &str = "RaceWinner";
/// Racing rows (region, tracks, races, markets, runners) take ids from
/// here up; the other sports' ids stay below.
pub const RACE_ID_BASE: u64 = 1_000_000_000;
/// A race every 3 minutes on each track.
pub const RACE_INTERVAL_S: i64 = 180;
/// Wall-clock seconds from the off to the finish.
pub const RACE_SECONDS: i64 = 60;
/// Races open for betting per track.
const RACES_AHEAD: usize = 4;
const RACE_PRICE_MOVES_PER_TICK: usize = 2;
/// Every slot of the next two hours is listed, so a game is shown
/// prematch for two hours before it kicks off and several kick-offs are
/// always within the next hour (accelerated: at most three game lengths).
const CYCLE_AHEAD_S: i64 = 7200;
/// A club (player, team) plays no two games within this many seconds of
/// each other, live or listed (at a real pace).
pub const REST_S: i64 = 48 * 3600;
/// The fixture list covers this many days ahead.
const FIXTURE_DAYS: i64 = 8;
const HORSES: &[&str] = &[
    "Silver Arrow",
    "Midnight Storm",
    "Golden Duke",
    "Red Comet",
    "Lucky Strike",
    "Desert Wind",
    "Iron Maiden",
    "Blue Moonlight",
    "Thunder Road",
    "Crimson Tide",
    "Noble Heart",
    "Wild Card",
    "Morning Glory",
    "Jade Emperor",
    "Northern Star",
    "Copper Kettle",
];

#[derive(Debug, Clone, Copy)]
pub struct SimulatorSettings {
    pub seed: u64,
    /// No longer read (the schedule decides; kept so configurations load).
    pub games_per_competition: usize,
    /// 0 (the default): every game is played at its sport's real pace and
    /// length (football 105 minutes with half-time, ...). Above 0: every
    /// game lasts this many wall-clock seconds, its clock accelerated, and
    /// kick-offs come as often as the live counts need (tests and quick
    /// demos that want results; clubs then reappear within hours).
    pub live_seconds: i64,
    /// Price moves per tick across the catalogue.
    pub price_moves_per_tick: usize,
}

impl Default for SimulatorSettings {
    fn default() -> Self {
        Self {
            seed: 42,
            games_per_competition: 4,
            live_seconds: 0,
            price_moves_per_tick: 40,
        }
    }
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

/// A race the simulator runs (game id -> race).
#[derive(Debug, Clone)]
struct Race {
    market_id: u64,
    /// Runner event ids in saddle-cloth order, with their strengths.
    runners: Vec<(u64, u32)>,
    places: u32,
    /// When it went off; none while open for betting.
    off_at: Option<i64>,
    /// Starting prices, taken at the off.
    sp: BTreeMap<u64, Decimal>,
}

pub struct Simulator {
    settings: SimulatorSettings,
    rng: StdRng,
    next_id: u64,
    plays: BTreeMap<u64, Play>,
    race_rng: StdRng,
    next_race_id: u64,
    races: BTreeMap<u64, Race>,
    /// Track (competition id) -> number of its last race.
    race_numbers: BTreeMap<u64, u32>,
    /// (sport, club) -> kick-offs of its games, played (the last
    /// `2 * REST_S`), live or listed: the rest rule of `pick_fixture`.
    appearances: BTreeMap<(u64, &'static str), std::collections::BTreeSet<i64>>,
}

fn dec(units: i64, scale: u32) -> Decimal {
    Decimal::new(units, scale)
}

/// Where a game is, `elapsed` real seconds after its kick-off.
#[derive(Debug, Clone, Copy)]
struct Position {
    /// Index into the sport's phases.
    phase: usize,
    /// Clock seconds (0 for a sport without a clock).
    clock: u32,
    /// The part of the game played, 0..=1 (regulation clock, or the
    /// time for a sport without a clock).
    played: f64,
    /// In play (not a break).
    in_play: bool,
}

fn position(sport: &SportSpec, elapsed: i64) -> Position {
    let mut start = 0i64;
    let mut clock_before = 0i64;
    let last = sport.phases.len() - 1;
    for (i, phase) in sport.phases.iter().enumerate() {
        let wall = i64::from(phase.wall_min) * 60;
        let clock_s = i64::from(phase.clock_min) * 60;
        if elapsed < start + wall || i == last {
            let into = (elapsed - start).clamp(0, wall);
            let clock = clock_before + clock_s * into / wall.max(1);
            let played = if sport.minutes > 0 {
                clock as f64 / f64::from(sport.minutes * 60)
            } else {
                elapsed as f64 / sport.length_s().max(1) as f64
            };
            return Position {
                phase: i,
                clock: clock as u32,
                played: played.clamp(0.0, 1.0),
                in_play: sport.minutes == 0 || phase.clock_min > 0,
            };
        }
        start += wall;
        clock_before += clock_s;
    }
    unreachable!("a sport has phases")
}

/// The inverse of `position`: real seconds since the kick-off of a game
/// showing `state` and `clock` (the middle of a break, or of a period of
/// a sport without a clock).
fn elapsed_at(sport: &SportSpec, state: &str, clock: u32) -> i64 {
    let mut start = 0i64;
    let mut clock_before = 0i64;
    for phase in sport.phases {
        let wall = i64::from(phase.wall_min) * 60;
        let clock_s = i64::from(phase.clock_min) * 60;
        if phase.state == state {
            if clock_s > 0 {
                let into = (i64::from(clock) - clock_before).clamp(0, clock_s);
                return start + into * wall / clock_s;
            }
            return start + wall / 2;
        }
        start += wall;
        clock_before += clock_s;
    }
    sport.length_s() / 2
}

/// The part of a game's length that is play (not breaks).
fn play_share(sport: &SportSpec) -> f64 {
    let play: u32 = sport
        .phases
        .iter()
        .filter(|p| sport.minutes == 0 || p.clock_min > 0)
        .map(|p| p.wall_min)
        .sum();
    f64::from(play.max(1)) * 60.0 / sport.length_s().max(1) as f64
}

impl Simulator {
    pub fn new(settings: SimulatorSettings) -> Self {
        Self {
            settings,
            rng: StdRng::seed_from_u64(settings.seed),
            next_id: 1_000,
            plays: BTreeMap::new(),
            race_rng: StdRng::seed_from_u64(settings.seed ^ 0x5241_4345),
            next_race_id: RACE_ID_BASE,
            races: BTreeMap::new(),
            race_numbers: BTreeMap::new(),
            appearances: BTreeMap::new(),
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

    /// The competitions of a sport the simulator plays, in order, with
    /// their leagues.
    fn competitions_of(
        catalogue: &Catalogue,
        sport: &'static SportSpec,
    ) -> Vec<(u64, &'static LeagueSpec)> {
        let mut found: Vec<(i64, u64, &'static LeagueSpec)> = catalogue
            .regions_of(sport.id)
            .flat_map(|r| catalogue.competitions_of(r.id))
            .filter_map(|c| league(sport, &c.name).map(|l| (c.order, c.id, l)))
            .collect();
        found.sort_by_key(|(order, id, _)| (*order, *id));
        found.into_iter().map(|(_, id, l)| (id, l)).collect()
    }

    /// How long a game of the sport lasts on the wall clock: its real
    /// length, a virtual sport's own short length, or `live_seconds` when
    /// the clock is accelerated.
    fn wall_s(&self, sport: &SportSpec) -> i64 {
        match (self.settings.live_seconds, sport.virtual_s) {
            (accelerated, _) if accelerated > 0 => accelerated.max(10),
            (_, virtual_s) if virtual_s > 0 => virtual_s,
            _ => sport.length_s(),
        }
    }

    /// Seconds between two kick-offs of the sport: `2 L / (2 target + 1)`,
    /// so `live_target` or more games are always under way (at a real pace
    /// rounded down to five minutes, so kick-offs fall on :00, :05, ...;
    /// football's on the quarter hour).
    fn interval_s(&self, sport: &SportSpec) -> i64 {
        if sport.cycle_s > 0 {
            return sport.cycle_s;
        }
        let raw = 2 * self.wall_s(sport) / (2 * sport.live_target as i64 + 1);
        if self.settings.live_seconds > 0 {
            raw.max(1)
        } else {
            (raw / 300 * 300).max(300)
        }
    }

    /// Seconds a club's nearest other game is from `start_ts` (before or
    /// after; `i64::MAX` when it has none).
    fn distance(&self, sport_id: u64, club: &'static str, start_ts: i64) -> i64 {
        self.appearances
            .get(&(sport_id, club))
            .map(|starts| {
                let after = starts.range(start_ts..).next().map(|s| s - start_ts);
                let before = starts.range(..start_ts).next_back().map(|s| start_ts - s);
                after.into_iter().chain(before).min().unwrap_or(i64::MAX)
            })
            .unwrap_or(i64::MAX)
    }

    /// The competition and two of its clubs for a game of the sport at
    /// `start_ts`. Every competition offers the two clubs whose nearest
    /// other game (before or after, live, played or listed) is furthest
    /// away; the game goes to the best offer among the competitions whose
    /// local time is 11:00-22:59 and whose two clubs are rested (no game
    /// within `REST_S` either side), else among the rested ones, else to
    /// the best offer of all (ties drawn at random).
    fn pick_fixture(
        &mut self,
        catalogue: &Catalogue,
        sport: &'static SportSpec,
        start_ts: i64,
    ) -> Option<(u64, &'static str, &'static str)> {
        let mut competitions = Self::competitions_of(catalogue, sport);
        competitions.shuffle(&mut self.rng);
        // ((local and rested, rested, distance), competition, home, away)
        type Offer = ((bool, bool, i64), u64, &'static str, &'static str);
        let mut best: Option<Offer> = None;
        for (competition_id, league) in competitions {
            if league.clubs.len() < 2 {
                continue;
            }
            let mut clubs: Vec<(i64, &'static str)> = league
                .clubs
                .iter()
                .map(|c| (self.distance(sport.id, c, start_ts), *c))
                .collect();
            clubs.shuffle(&mut self.rng);
            clubs.sort_by_key(|(distance, _)| std::cmp::Reverse(*distance));
            let score = clubs[1].0;
            let clubs = [clubs[0].1, clubs[1].1];
            let local_hour = (start_ts + league.utc_offset * 3600).rem_euclid(86_400) / 3600;
            let rested = score >= REST_S;
            let key = (rested && (11..23).contains(&local_hour), rested, score);
            if best.as_ref().is_none_or(|(k, ..)| key > *k) {
                best = Some((key, competition_id, clubs[0], clubs[1]));
            }
        }
        best.map(|(_, c, home, away)| (c, home, away))
    }

    fn add_game(&mut self, catalogue: &mut Catalogue, sport: &'static SportSpec, start_ts: i64) {
        let Some((competition_id, home, away)) = self.pick_fixture(catalogue, sport, start_ts)
        else {
            return;
        };
        let sport_id = sport.id;
        let id = self.id();
        let edge = self.rng.random_range(-2..=2);
        let game = Game {
            id,
            competition_id,
            game_type: GameType::Prematch,
            start_ts,
            team1_name: home.to_string(),
            team2_name: Some(away.to_string()),
            is_blocked: false,
            info: None,
            markets_count: 0,
        };
        if catalogue.insert_game(game).is_err() {
            return;
        }
        for club in [home, away] {
            self.appearances
                .entry((sport_id, club))
                .or_default()
                .insert(start_ts);
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

    #[allow(clippy::too_many_arguments)]
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
            ew_allowed: false,
            ew_places: None,
            ew_coeff: None,
            sp_allowed: false,
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

    /// Keeps every sport's schedule full (idempotent: it only adds what is
    /// missing, so an adopted catalogue is continued the same way). A sport
    /// kicks off a game every `interval_s` (staggered per sport, on five
    /// minutes at a real pace), one slot after another; a game lasts
    /// `wall_s`, so at every moment `live_target` or more games of the
    /// sport are live, each at its own minute. The slots of the next
    /// `CYCLE_AHEAD_S` are all listed (so every live game was shown
    /// prematch for two hours before its kick-off); beyond, up to
    /// `FIXTURE_DAYS` ahead, one slot in every `fixture_every_s` is, and the
    /// others are filled in as they come within `CYCLE_AHEAD_S`. The clubs
    /// of each slot: `pick_fixture`.
    fn schedule(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        // Appearances older than a rest either side no longer matter.
        let forget = now_s - 2 * REST_S;
        self.appearances.retain(|_, starts| {
            starts.retain(|s| *s >= forget);
            !starts.is_empty()
        });
        for sport in SPORTS {
            let competitions = Self::competitions_of(catalogue, sport);
            if competitions.is_empty() {
                continue;
            }
            let wall = self.wall_s(sport);
            let interval = self.interval_s(sport);
            let offset = if self.settings.live_seconds > 0 || sport.cycle_s > 0 {
                (sport.id as i64 * 37).rem_euclid(interval)
            } else {
                (sport.id as i64 * 3).rem_euclid(interval / 300) * 300
            };
            let near = if self.settings.live_seconds > 0 || sport.virtual_s > 0 {
                CYCLE_AHEAD_S.min(3 * wall)
            } else {
                CYCLE_AHEAD_S
            };
            let starts: std::collections::BTreeSet<i64> = competitions
                .iter()
                .flat_map(|(c, _)| catalogue.games_of(*c).map(|g| g.start_ts))
                .collect();
            let first = (now_s - wall - offset).div_euclid(interval) + 1;
            let near_last = (now_s + near - offset).div_euclid(interval);
            let mut slots: Vec<i64> = (first..=near_last).collect();
            if sport.fixture_every_s > 0 {
                let thin = (sport.fixture_every_s / interval).max(1);
                let far_last = (now_s + FIXTURE_DAYS * 86_400 - offset).div_euclid(interval);
                let mut k = (near_last + 1).div_euclid(thin) * thin;
                while k <= far_last {
                    if k > near_last {
                        slots.push(k);
                    }
                    k += thin;
                }
            }
            for k in slots {
                let start = k * interval + offset;
                if !starts.contains(&start) {
                    self.add_game(catalogue, sport, start);
                }
            }
        }
    }

    /// Moves random events' prices by up to 6% each and re-rounds them
    /// (racing runners move apart: `move_race_prices`).
    fn move_prices(&mut self, catalogue: &mut Catalogue, moves: usize) {
        let ids: Vec<u64> = catalogue
            .events()
            .range(..RACE_ID_BASE)
            .map(|(id, _)| *id)
            .collect();
        if ids.is_empty() {
            return;
        }
        for _ in 0..moves {
            let id = ids[self.rng.random_range(0..ids.len())];
            let step = dec(self.rng.random_range(-60..=60), 3);
            let _ = catalogue.update_event(id, |e| {
                e.price = round_odds(
                    (e.price * (Decimal::ONE + step)).clamp(dec(101, 2), Decimal::from(100)),
                );
            });
        }
    }

    /// Suspends a few markets and re-opens suspended ones.
    fn flip_suspensions(&mut self, catalogue: &mut Catalogue) {
        let ids: Vec<(u64, bool)> = catalogue
            .markets()
            .range(..RACE_ID_BASE)
            .map(|(_, m)| (m.id, m.is_suspended))
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
            let start_ts = catalogue.games().get(&id).map_or(now_s, |g| g.start_ts);
            let Some(sport_id) = self.plays.get(&id).map(|p| p.sport_id) else {
                continue;
            };
            let wall = self.wall_s(spec(sport_id));
            let Some(play) = self.plays.get_mut(&id) else {
                continue;
            };
            // Its clock runs from the kick-off (a tick may come later).
            play.live_since = Some(start_ts.clamp(now_s - wall, now_s));
            let state = spec(sport_id).phases[0].state.to_string();
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

    /// At the start, games the cycle put under way get the score a game
    /// would have by then (about the sport's expected scoring times the
    /// part played, tilted by the edge).
    fn score_games_under_way(&mut self, now_s: i64) {
        let ids: Vec<u64> = self
            .plays
            .iter()
            .filter(|(_, p)| p.live_since.is_some_and(|since| since < now_s))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            let Some(play) = self.plays.get(&id).cloned() else {
                continue;
            };
            let sport = spec(play.sport_id);
            let wall = self.wall_s(sport);
            let run = (now_s - play.live_since.unwrap_or(now_s)).clamp(0, wall);
            let played = position(sport, run * sport.length_s() / wall).played;
            let expected = f64::from(sport.scoring) * played;
            let share = (0.5 + f64::from(play.edge) * 0.08).clamp(0.1, 0.9);
            let mut side = |share: f64| -> u32 {
                let factor = self.rng.random_range(0.0..2.0);
                (expected * share * factor).round() as u32
            };
            let score = (side(share), side(1.0 - share));
            if let Some(entry) = self.plays.get_mut(&id) {
                entry.score = score;
                if played >= 0.5 {
                    entry.first_half = Some((score.0 / 2, score.1 / 2));
                }
            }
        }
    }

    /// Runs the live games on; returns those that finished.
    fn play_live(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<u64> {
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
            let sport = spec(play.sport_id);
            let wall = self.wall_s(sport);
            let length = sport.length_s();
            let since = play.live_since.unwrap_or(now_s);
            let run = (now_s - since).clamp(0, wall);
            let progress = run as f64 / wall as f64;
            let at = position(sport, run * length / wall);
            // Expected scoring per tick of play, tilted by the edge.
            let play_wall = wall as f64 * play_share(sport);
            let per_tick = f64::from(sport.scoring) / play_wall;
            let mut score = play.score;
            let bias = 0.5 + f64::from(play.edge) * 0.08;
            let mut scored = None;
            let mut corner = false;
            if at.in_play && progress < 1.0 {
                if self.rng.random_bool(per_tick.min(0.95)) {
                    if self.rng.random_bool(bias.clamp(0.1, 0.9)) {
                        score.0 += 1;
                        scored = Some(1);
                    } else {
                        score.1 += 1;
                        scored = Some(2);
                    }
                }
                corner = self.rng.random_bool((10.0 / play_wall).min(0.5));
            }
            let entry = self.plays.get_mut(&id).expect("present");
            entry.score = score;
            if corner {
                entry.corners += 1;
            }
            if entry.first_half.is_none() && at.played >= 0.5 {
                entry.first_half = Some(score);
            }
            let state = sport.phases[at.phase].state;
            let _ = catalogue.update_game(id, |g| {
                if let Some(info) = g.info.as_mut() {
                    info.clock = at.clock;
                    info.score1 = score.0;
                    info.score2 = score.1;
                    info.current_game_state = state.to_string();
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
                        sp_price: None,
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

/// Virtual horse racing (see the module notes).
impl Simulator {
    fn race_id(&mut self) -> u64 {
        self.next_race_id += 1;
        self.next_race_id
    }

    /// The racing sport, its region and tracks, one race under way on each
    /// track and the next ones open.
    fn start_racing(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        catalogue.insert_sport(Sport {
            id: RACING_SPORT_ID,
            name: RACING_NAME.eng.to_string(),
            alias: "VirtualHorseRacing".to_string(),
            order: SPORTS.len() as i64,
            names: RACING_NAME.names(),
        });
        let region_id = self.race_id();
        let _ = catalogue.insert_region(Region {
            id: region_id,
            sport_id: RACING_SPORT_ID,
            name: RACING_REGION.eng.to_string(),
            alias: RACING_REGION.eng.to_string(),
            order: 0,
            names: RACING_REGION.names(),
        });
        for (order, track) in RACING_TRACKS.iter().enumerate() {
            let competition_id = self.race_id();
            let _ = catalogue.insert_competition(Competition {
                id: competition_id,
                region_id,
                name: track.eng.to_string(),
                order: order as i64,
                names: track.names(),
            });
            let started = now_s - self.race_rng.random_range(1..RACE_SECONDS / 2);
            self.add_race(catalogue, competition_id, started);
            self.populate_track(catalogue, competition_id, now_s);
        }
    }

    /// Keeps `RACES_AHEAD` races open on a track, `RACE_INTERVAL_S` apart.
    fn populate_track(&mut self, catalogue: &mut Catalogue, competition_id: u64, now_s: i64) {
        let open = catalogue
            .games_of(competition_id)
            .filter(|g| g.game_type != GameType::Live && g.start_ts > now_s)
            .count();
        let mut last = catalogue
            .games_of(competition_id)
            .map(|g| g.start_ts)
            .max()
            .unwrap_or(now_s);
        for _ in open..RACES_AHEAD {
            last = (last + RACE_INTERVAL_S).max(now_s + RACE_INTERVAL_S / 3);
            self.add_race(catalogue, competition_id, last);
        }
    }

    fn add_race(&mut self, catalogue: &mut Catalogue, competition_id: u64, start_ts: i64) {
        let Some(track) = catalogue.competitions().get(&competition_id) else {
            return;
        };
        let number = {
            let n = self.race_numbers.entry(competition_id).or_insert(0);
            *n += 1;
            *n
        };
        let name = format!("{} Race {number}", track.name);
        let count = self.race_rng.random_range(6..=10usize);
        let mut horses: Vec<&str> = HORSES.to_vec();
        horses.shuffle(&mut self.race_rng);
        let strengths: Vec<u32> = (0..count)
            .map(|_| self.race_rng.random_range(1..=12))
            .collect();
        let total: u32 = strengths.iter().sum();
        let places: u32 = if count >= 8 { 3 } else { 2 };
        let game_id = self.race_id();
        let game = Game {
            id: game_id,
            competition_id,
            game_type: GameType::Prematch,
            start_ts,
            team1_name: name,
            team2_name: None,
            is_blocked: false,
            info: None,
            markets_count: 0,
        };
        if catalogue.insert_game(game).is_err() {
            return;
        }
        let market_id = self.race_id();
        let market = Market {
            id: market_id,
            game_id,
            market_type: RACE_MARKET_TYPE.to_string(),
            name: "Winner".to_string(),
            base: None,
            order: 1,
            is_suspended: false,
            ew_allowed: true,
            ew_places: Some(places),
            ew_coeff: Some(dec(25, 2)),
            sp_allowed: true,
        };
        if catalogue.insert_market(market).is_err() {
            return;
        }
        let mut runners = Vec::with_capacity(count);
        for (i, strength) in strengths.into_iter().enumerate() {
            let id = self.race_id();
            let chance = i64::from(strength) * 1000 / i64::from(total);
            let event = Event {
                id,
                market_id,
                name: horses[i].to_string(),
                type_: (i + 1).to_string(),
                price: Self::price(chance),
                base: None,
                is_suspended: false,
            };
            if catalogue.insert_event(event).is_ok() {
                runners.push((id, strength));
            }
        }
        self.races.insert(
            game_id,
            Race {
                market_id,
                runners,
                places,
                off_at: None,
                sp: BTreeMap::new(),
            },
        );
    }

    /// Moves a few open runners' prices by up to 6%.
    fn move_race_prices(&mut self, catalogue: &mut Catalogue) {
        let open: Vec<u64> = self
            .races
            .values()
            .filter(|r| r.off_at.is_none())
            .flat_map(|r| r.runners.iter().map(|(id, _)| *id))
            .collect();
        if open.is_empty() {
            return;
        }
        for _ in 0..RACE_PRICE_MOVES_PER_TICK {
            let id = open[self.race_rng.random_range(0..open.len())];
            let step = dec(self.race_rng.random_range(-60..=60), 3);
            let _ = catalogue.update_event(id, |e| {
                e.price = round_odds(
                    (e.price * (Decimal::ONE + step)).clamp(dec(101, 2), Decimal::from(100)),
                );
            });
        }
    }

    /// Races due go off: live, market suspended, starting prices taken.
    fn races_go_off(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        let due: Vec<u64> = self
            .races
            .iter()
            .filter(|(id, r)| {
                r.off_at.is_none()
                    && catalogue
                        .games()
                        .get(id)
                        .is_some_and(|g| g.start_ts <= now_s)
            })
            .map(|(id, _)| *id)
            .collect();
        for game_id in due {
            let Some(race) = self.races.get_mut(&game_id) else {
                continue;
            };
            let start_ts = catalogue
                .games()
                .get(&game_id)
                .map_or(now_s, |g| g.start_ts);
            race.off_at = Some(start_ts.min(now_s));
            race.sp = race
                .runners
                .iter()
                .filter_map(|(id, _)| catalogue.events().get(id).map(|e| (*id, e.price)))
                .collect();
            let _ = catalogue.update_game(game_id, |g| {
                g.game_type = GameType::Live;
                g.info = Some(LiveInfo {
                    current_game_state: "running".to_string(),
                    clock: 0,
                    score1: 0,
                    score2: 0,
                });
            });
            let _ = catalogue.update_market(race.market_id, |m| m.is_suspended = true);
        }
    }

    /// Runs the races on; finishes those past `RACE_SECONDS`.
    fn run_races(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<Finished> {
        let running: Vec<(u64, i64)> = self
            .races
            .iter()
            .filter_map(|(id, r)| r.off_at.map(|at| (*id, at)))
            .collect();
        let mut finished = Vec::new();
        for (game_id, off_at) in running {
            let run = (now_s - off_at).max(0);
            if run >= RACE_SECONDS {
                finished.extend(self.finish_race(catalogue, game_id));
                continue;
            }
            let _ = catalogue.update_game(game_id, |g| {
                if let Some(info) = g.info.as_mut() {
                    info.clock = run as u32;
                }
            });
        }
        finished
    }

    /// The finishing order, drawn by strength; a result for every runner.
    fn finish_race(&mut self, catalogue: &mut Catalogue, game_id: u64) -> Option<Finished> {
        let race = self.races.remove(&game_id)?;
        let mut field = race.runners.clone();
        let mut order = Vec::with_capacity(field.len());
        while !field.is_empty() {
            let total: u32 = field.iter().map(|(_, s)| *s).sum();
            let mut ticket = self.race_rng.random_range(0..total.max(1));
            let index = field
                .iter()
                .position(|(_, s)| {
                    if ticket < *s {
                        true
                    } else {
                        ticket -= s;
                        false
                    }
                })
                .unwrap_or(0);
            order.push(field.remove(index).0);
        }
        let winner_number = race
            .runners
            .iter()
            .position(|(id, _)| Some(id) == order.first())
            .map_or(0, |i| i as u32 + 1);
        let selections = order
            .iter()
            .enumerate()
            .map(|(position, id)| SelectionResult {
                event_id: *id,
                market_id: race.market_id,
                outcome: match position {
                    0 => SelectionOutcome::Won,
                    p if (p as u32) < race.places => SelectionOutcome::Placed,
                    _ => SelectionOutcome::Lost,
                },
                sp_price: race
                    .sp
                    .get(id)
                    .copied()
                    .or_else(|| catalogue.events().get(id).map(|e| e.price)),
            })
            .collect();
        catalogue.remove_game(game_id);
        Some(Finished {
            game_id,
            score: FinalScore {
                team1: winner_number,
                team2: 0,
                first_half: None,
                corners: None,
            },
            selections,
        })
    }

    /// One racing step: add the sport when the catalogue has none (one
    /// adopted from before racing), move prices, send races off, finish
    /// them and keep every track's card full.
    fn tick_racing(&mut self, catalogue: &mut Catalogue, now_s: i64) -> Vec<Finished> {
        if !catalogue.sports().contains_key(&RACING_SPORT_ID) {
            self.start_racing(catalogue, now_s);
        }
        self.move_race_prices(catalogue);
        self.races_go_off(catalogue, now_s);
        let finished = self.run_races(catalogue, now_s);
        for track in self.tracks(catalogue) {
            self.populate_track(catalogue, track, now_s);
        }
        finished
    }

    fn tracks(&self, catalogue: &Catalogue) -> Vec<u64> {
        catalogue
            .regions_of(RACING_SPORT_ID)
            .flat_map(|r| catalogue.competitions_of(r.id).map(|c| c.id))
            .collect()
    }

    /// Takes over the races of an adopted catalogue: strengths from the
    /// prices, running races from their clock, starting prices from the
    /// (suspended) prices at the off.
    fn adopt_racing(&mut self, catalogue: &Catalogue, now_s: i64) {
        let largest = [
            catalogue.regions().keys().next_back(),
            catalogue.competitions().keys().next_back(),
            catalogue.games().keys().next_back(),
            catalogue.markets().keys().next_back(),
            catalogue.events().keys().next_back(),
        ]
        .into_iter()
        .flatten()
        .filter(|id| **id >= RACE_ID_BASE)
        .max()
        .copied()
        .unwrap_or(RACE_ID_BASE);
        self.next_race_id = self.next_race_id.max(largest);
        self.races.clear();
        for track in self.tracks(catalogue) {
            for game in catalogue.games_of(track) {
                let number = game
                    .team1_name
                    .rsplit(' ')
                    .next()
                    .and_then(|n| n.parse::<u32>().ok())
                    .unwrap_or(0);
                let last = self.race_numbers.entry(track).or_insert(0);
                *last = (*last).max(number);
                let Some(market) = catalogue.markets_of(game.id).next() else {
                    continue;
                };
                let runners: Vec<(u64, u32)> = catalogue
                    .events_of(market.id)
                    .map(|e| {
                        let strength = (Decimal::from(100) / e.price.max(Decimal::ONE))
                            .round()
                            .try_into()
                            .unwrap_or(1u32);
                        (e.id, strength.max(1))
                    })
                    .collect();
                let off_at = game
                    .info
                    .as_ref()
                    .filter(|_| game.game_type == GameType::Live)
                    .map(|i| now_s - i64::from(i.clock));
                let sp = match off_at {
                    Some(_) => catalogue
                        .events_of(market.id)
                        .map(|e| (e.id, e.price))
                        .collect(),
                    None => BTreeMap::new(),
                };
                self.races.insert(
                    game.id,
                    Race {
                        market_id: market.id,
                        runners,
                        places: market.ew_places.unwrap_or(2),
                        off_at,
                        sp,
                    },
                );
            }
        }
    }
}

impl Feed for Simulator {
    fn start(&mut self, catalogue: &mut Catalogue, now_s: i64) {
        let mut competition_order = 0;
        for (order, sport) in SPORTS.iter().enumerate() {
            catalogue.insert_sport(Sport {
                id: sport.id,
                name: sport.name.eng.to_string(),
                alias: sport.alias.to_string(),
                order: order as i64,
                names: sport.name.names(),
            });
            for (region_order, region) in sport.regions.iter().enumerate() {
                let region_id = self.id();
                let _ = catalogue.insert_region(Region {
                    id: region_id,
                    sport_id: sport.id,
                    name: region.name.eng.to_string(),
                    alias: region.name.eng.replace(' ', ""),
                    order: region_order as i64,
                    names: region.name.names(),
                });
                for league in region.leagues {
                    let competition_id = self.id();
                    competition_order += 1;
                    let _ = catalogue.insert_competition(Competition {
                        id: competition_id,
                        region_id,
                        name: league.name.eng.to_string(),
                        order: competition_order,
                        names: league.name.names(),
                    });
                }
            }
        }
        self.schedule(catalogue, now_s);
        self.go_live(catalogue, now_s);
        self.score_games_under_way(now_s);
        // Games already under way show their clocks at once.
        let _ = self.play_live(catalogue, now_s);
        self.start_racing(catalogue, now_s);
        self.races_go_off(catalogue, now_s);
    }

    /// Continues a catalogue built elsewhere: ids go on from its largest,
    /// and its games are played on from their live info (edges unknown).
    fn adopt(&mut self, catalogue: &Catalogue, now_s: i64) {
        // Racing ids (from RACE_ID_BASE) go on in `adopt_racing`.
        let largest = [
            catalogue
                .regions()
                .range(..RACE_ID_BASE)
                .next_back()
                .map(|(id, _)| *id),
            catalogue
                .competitions()
                .range(..RACE_ID_BASE)
                .next_back()
                .map(|(id, _)| *id),
            catalogue
                .games()
                .range(..RACE_ID_BASE)
                .next_back()
                .map(|(id, _)| *id),
            catalogue
                .markets()
                .range(..RACE_ID_BASE)
                .next_back()
                .map(|(id, _)| *id),
            catalogue
                .events()
                .range(..RACE_ID_BASE)
                .next_back()
                .map(|(id, _)| *id),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
        self.next_id = self.next_id.max(largest);
        self.plays.clear();
        self.appearances.clear();
        self.adopt_racing(catalogue, now_s);
        for game in catalogue.games().values() {
            let sport_id = catalogue.lineage(game.id).map(|l| l.sport.id).unwrap_or(1);
            if sport_id == RACING_SPORT_ID {
                continue;
            }
            let info = game
                .info
                .as_ref()
                .filter(|_| game.game_type == GameType::Live);
            // Back from the clock and state to the kick-off, on this
            // simulator's pace.
            let sport = spec(sport_id);
            let wall = self.wall_s(sport);
            let live_for = info.map(|i| {
                elapsed_at(sport, &i.current_game_state, i.clock) * wall / sport.length_s().max(1)
            });
            let clubs = catalogue
                .lineage(game.id)
                .and_then(|l| league(sport, &l.competition.name))
                .map_or(&[][..], |l| l.clubs);
            for team in [Some(game.team1_name.as_str()), game.team2_name.as_deref()] {
                if let Some(club) = clubs.iter().find(|c| Some(**c) == team) {
                    self.appearances
                        .entry((sport_id, *club))
                        .or_default()
                        .insert(game.start_ts);
                }
            }
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
        self.move_prices(catalogue, self.settings.price_moves_per_tick);
        self.flip_suspensions(catalogue);
        let done = self.play_live(catalogue, now_s);
        let finished: Vec<Finished> = done
            .into_iter()
            .filter_map(|id| self.finish(catalogue, id))
            .collect();
        self.schedule(catalogue, now_s);
        self.go_live(catalogue, now_s);
        let mut finished = finished;
        finished.extend(self.tick_racing(catalogue, now_s));
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
        assert_eq!(sports, vec![1, 2, 3, 4, 75, 300, RACING_SPORT_ID]);
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
        let horizon = 1_800_000_000 + 5 + 8 * 86_400;
        assert!(catalogue.games().values().all(|g| g.start_ts <= horizon));
        assert!(catalogue.events().values().all(|e| e.price >= dec(101, 2)));
    }

    #[test]
    fn every_competition_plays_its_own_clubs() {
        let (catalogue, _) = run(4, 30);
        for game in catalogue.games().values() {
            let lineage = catalogue.lineage(game.id).unwrap();
            if lineage.sport.id == RACING_SPORT_ID {
                continue;
            }
            let league = league(spec(lineage.sport.id), &lineage.competition.name).unwrap();
            for team in [Some(game.team1_name.as_str()), game.team2_name.as_deref()] {
                let team = team.unwrap();
                assert!(
                    league.clubs.contains(&team),
                    "{team} in {}",
                    lineage.competition.name
                );
            }
        }
        // Liverpool never plays in the Championship, nor Bayern in LaLiga.
        assert!(league(spec(1), "Championship")
            .unwrap()
            .clubs
            .iter()
            .all(|c| !league(spec(1), "Premier League").unwrap().clubs.contains(c)));
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
        let largest_before = |c: &Catalogue, below: u64| {
            c.events()
                .range(..below)
                .next_back()
                .map(|(id, _)| *id)
                .unwrap()
        };
        let sports_before = largest_before(&catalogue, RACE_ID_BASE);
        assert!(
            adopted
                .events()
                .range(sports_before + 1..RACE_ID_BASE)
                .next()
                .is_some(),
            "new ids continue"
        );
        assert!(
            finished.iter().any(|f| f.game_id >= RACE_ID_BASE),
            "adopted races finish"
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

    fn racing_games(catalogue: &Catalogue) -> Vec<&Game> {
        catalogue
            .games()
            .values()
            .filter(|g| catalogue.lineage(g.id).unwrap().sport.id == RACING_SPORT_ID)
            .collect()
    }

    #[test]
    fn racing_offers_short_races_with_each_way_terms_and_starting_prices() {
        let t0 = 1_800_000_000;
        let (catalogue, _) = run(21, 0);
        let sport = &catalogue.sports()[&RACING_SPORT_ID];
        assert_eq!(sport.name, "Virtual Horse Racing");
        let races = racing_games(&catalogue);
        // Two tracks: one race under way on each, four open.
        assert_eq!(races.len(), 2 * (1 + RACES_AHEAD));
        let live: Vec<_> = races
            .iter()
            .filter(|g| g.game_type == GameType::Live)
            .collect();
        assert_eq!(live.len(), 2);
        for race in &races {
            assert!(race.id >= RACE_ID_BASE && race.team2_name.is_none());
            assert!(race.team1_name.contains(" Race "), "{}", race.team1_name);
            let markets: Vec<_> = catalogue.markets_of(race.id).collect();
            assert_eq!(markets.len(), 1);
            let winner = markets[0];
            assert_eq!(
                (winner.market_type.as_str(), winner.name.as_str()),
                (RACE_MARKET_TYPE, "Winner")
            );
            let runners: Vec<_> = catalogue.events_of(winner.id).collect();
            assert!(
                (6..=10).contains(&runners.len()),
                "{} runners",
                runners.len()
            );
            assert!(winner.ew_allowed && winner.sp_allowed);
            assert_eq!(winner.ew_coeff, Some(dec(25, 2)));
            let places = if runners.len() >= 8 { 3 } else { 2 };
            assert_eq!(winner.ew_places, Some(places));
            assert_eq!(
                winner.is_suspended,
                race.game_type == GameType::Live,
                "no betting in running"
            );
            assert!(runners.iter().all(|e| e.price > dec(101, 2)));
            // The betslip sees the terms.
            let q = domain::bet::Quote::from_catalogue(&catalogue, runners[0].id, t0).unwrap();
            assert!(q.ew_allowed && q.sp_allowed);
            assert_eq!(q.ew_coeff, Some(dec(25, 2)));
            if race.game_type == GameType::Prematch {
                assert!(
                    race.start_ts > t0
                        && race.start_ts
                            <= t0 + RACE_INTERVAL_S * RACES_AHEAD as i64 + RACE_SECONDS
                );
                assert!(!q.suspended && !q.game_started);
            }
        }
    }

    #[test]
    fn races_finish_with_one_winner_the_placed_runners_and_their_starting_prices() {
        let mut sim = Simulator::new(SimulatorSettings {
            seed: 5,
            live_seconds: 60,
            ..Default::default()
        });
        let mut catalogue = Catalogue::new();
        let t0 = 1_800_000_000;
        sim.start(&mut catalogue, t0);
        let mut results = 0;
        let mut moved = false;
        for t in 1..=(3 * RACE_INTERVAL_S) {
            let before = catalogue.clone();
            let finished = sim.tick(&mut catalogue, t0 + t);
            moved |= before.events().range(RACE_ID_BASE..).any(|(id, e)| {
                catalogue
                    .events()
                    .get(id)
                    .is_some_and(|now| now.price != e.price)
            });
            for race in finished.iter().filter(|f| f.game_id >= RACE_ID_BASE) {
                results += 1;
                assert!(catalogue.games().get(&race.game_id).is_none());
                let market = before.markets_of(race.game_id).next().unwrap();
                assert!(market.is_suspended);
                let runners: Vec<&Event> = before.events_of(market.id).collect();
                assert_eq!(
                    race.selections.len(),
                    runners.len(),
                    "a result for every runner"
                );
                let count =
                    |o: SelectionOutcome| race.selections.iter().filter(|s| s.outcome == o).count();
                let places = market.ew_places.unwrap() as usize;
                assert_eq!(count(SelectionOutcome::Won), 1);
                assert_eq!(count(SelectionOutcome::Placed), places - 1);
                assert_eq!(count(SelectionOutcome::Lost), runners.len() - places);
                for runner in runners {
                    let result = race
                        .selections
                        .iter()
                        .find(|s| s.event_id == runner.id)
                        .unwrap();
                    assert_eq!(result.market_id, market.id);
                    // Prices stand still from the off: the last one is the SP.
                    assert_eq!(result.sp_price, Some(runner.price));
                }
                let winner = race
                    .selections
                    .iter()
                    .find(|s| s.outcome == SelectionOutcome::Won)
                    .unwrap();
                let number = before.events()[&winner.event_id]
                    .type_
                    .parse::<u32>()
                    .unwrap();
                assert_eq!(race.score.team1, number);
            }
            // Every track keeps its card of open races.
            for track in sim.tracks(&catalogue) {
                let open = catalogue
                    .games_of(track)
                    .filter(|g| g.game_type == GameType::Prematch)
                    .count();
                assert_eq!(open, RACES_AHEAD);
            }
        }
        // Two tracks, a race every RACE_INTERVAL_S each, for three intervals.
        assert!(results >= 6, "{results} races finished");
        assert!(moved, "open runners' prices move");
    }

    #[test]
    fn an_adopted_catalogue_keeps_racing_or_gains_it() {
        let t0 = 1_800_000_000;
        let (catalogue, _) = run(9, 20);
        // A race under way carries on from its clock and finishes.
        let mut next = Simulator::new(SimulatorSettings {
            seed: 1,
            live_seconds: 60,
            ..Default::default()
        });
        let mut adopted = catalogue.clone();
        next.adopt(&adopted, t0 + 20);
        let running: Vec<u64> = racing_games(&adopted)
            .iter()
            .filter(|g| g.game_type == GameType::Live)
            .map(|g| g.id)
            .collect();
        assert!(!running.is_empty());
        let mut finished = Vec::new();
        for t in 21..=20 + RACE_SECONDS {
            finished.extend(next.tick(&mut adopted, t0 + t));
        }
        for id in running {
            let race = finished.iter().find(|f| f.game_id == id).expect("finished");
            assert!(race.selections.iter().all(|s| s.sp_price.is_some()));
            assert_eq!(
                race.selections
                    .iter()
                    .filter(|s| s.outcome == SelectionOutcome::Won)
                    .count(),
                1
            );
        }
        // New races take new ids above the adopted ones.
        let largest = *catalogue.events().keys().next_back().unwrap();
        for t in 21 + RACE_SECONDS..=20 + RACE_INTERVAL_S + RACE_SECONDS {
            next.tick(&mut adopted, t0 + t);
        }
        assert!(
            adopted.events().keys().any(|id| *id > largest),
            "new racing ids continue"
        );
        // A catalogue from before racing gains the sport on the next tick.
        let mut old = catalogue.clone();
        old.remove_sport(RACING_SPORT_ID);
        let mut upgraded = Simulator::new(SimulatorSettings::default());
        upgraded.adopt(&old, t0 + 20);
        upgraded.tick(&mut old, t0 + 21);
        assert!(old.sports().contains_key(&RACING_SPORT_ID));
        assert_eq!(racing_games(&old).len(), 2 * (1 + RACES_AHEAD));
    }
}

/// The living demo feed (issue 17): live counts at every minute of two
/// simulated days, the fixture list, virtual football and translations.
#[cfg(test)]
mod living_feed {
    use super::*;
    use crate::sportsbook::feed::sports::SPORTS;
    use std::collections::BTreeMap;

    /// Games live at every moment, per sport.
    const TARGETS: &[(u64, usize)] = &[(1, 6), (3, 3), (4, 3), (2, 2), (75, 1)];

    fn sport_of(catalogue: &Catalogue, game: &Game) -> u64 {
        catalogue.lineage(game.id).map_or(0, |l| l.sport.id)
    }

    /// What the test saw of a game over the run.
    struct Seen {
        sport: u64,
        competition: String,
        teams: Vec<String>,
        start: i64,
        /// The minute it first appeared in the catalogue.
        first_seen: i64,
    }

    #[test]
    fn live_counts_hold_at_every_minute_over_48_hours() {
        // Any hour of the day: start at 03:17 UTC.
        living_days(42, 3 * 3600 + 17 * 60, 48);
    }

    /// Ticks a default simulator every minute for `hours` from `at`
    /// seconds into a day, checking the live feed at every minute and the
    /// whole run's fixtures at the end.
    fn living_days(seed: u64, at: i64, hours: i64) {
        let mut sim = Simulator::new(SimulatorSettings {
            seed,
            ..Default::default()
        });
        let mut catalogue = Catalogue::new();
        let t0 = 1_800_000_000 / 86_400 * 86_400 + at;
        sim.start(&mut catalogue, t0);
        let mut seen: BTreeMap<u64, Seen> = BTreeMap::new();
        for minute in 0..=hours * 60 {
            let now = t0 + minute * 60;
            if minute > 0 {
                sim.tick(&mut catalogue, now);
            }
            for game in catalogue.games().values() {
                let sport = sport_of(&catalogue, game);
                if sport == RACING_SPORT_ID {
                    continue;
                }
                seen.entry(game.id).or_insert_with(|| Seen {
                    sport,
                    competition: catalogue.lineage(game.id).unwrap().competition.name.clone(),
                    teams: [Some(game.team1_name.clone()), game.team2_name.clone()]
                        .into_iter()
                        .flatten()
                        .collect(),
                    start: game.start_ts,
                    first_seen: now,
                });
            }
            let mut live: BTreeMap<u64, Vec<&Game>> = BTreeMap::new();
            for game in catalogue.games().values() {
                if game.game_type == GameType::Live {
                    live.entry(sport_of(&catalogue, game))
                        .or_default()
                        .push(game);
                }
            }
            for (sport, target) in TARGETS {
                let games = live.get(sport).cloned().unwrap_or_default();
                assert!(
                    games.len() >= *target,
                    "minute {minute}: sport {sport} has {} live games",
                    games.len()
                );
                // Staggered: every live game kicked off at its own minute,
                // and (sports with a clock) shows its own period and minute.
                let mut kick_offs: Vec<i64> = games.iter().map(|g| g.start_ts / 60).collect();
                kick_offs.sort();
                kick_offs.dedup();
                assert_eq!(
                    kick_offs.len(),
                    games.len(),
                    "minute {minute}: sport {sport}"
                );
                if spec(*sport).minutes > 0 {
                    let mut clocks: Vec<(String, u32)> = games
                        .iter()
                        .map(|g| {
                            let info = g.info.as_ref().unwrap();
                            (info.current_game_state.clone(), info.clock / 60)
                        })
                        .collect();
                    clocks.sort();
                    clocks.dedup();
                    assert_eq!(
                        clocks.len(),
                        games.len(),
                        "minute {minute}: sport {sport} clocks {clocks:?}"
                    );
                }
            }
            // Several kick-offs of real sports within the next hour, and
            // virtual football kicking off within every five minutes.
            let soon = catalogue
                .games()
                .values()
                .filter(|g| g.game_type == GameType::Prematch && g.start_ts <= now + 3600)
                .filter(|g| TARGETS.iter().any(|(s, _)| *s == sport_of(&catalogue, g)))
                .count();
            assert!(
                soon >= 5,
                "minute {minute}: {soon} kick-offs within the hour"
            );
            let virtual_next = catalogue
                .games()
                .values()
                .filter(|g| sport_of(&catalogue, g) == 300 && g.start_ts > now)
                .map(|g| g.start_ts)
                .min()
                .unwrap();
            assert!(
                virtual_next <= now + 300,
                "minute {minute}: virtual football"
            );
            if minute % 360 == 0 {
                fixture_list_is_plausible(&catalogue, now);
            }
        }
        let real: Vec<&Seen> = seen.values().filter(|g| g.sport != 300).collect();
        // Every game's clubs belong to its competition.
        for game in &real {
            let league = league(spec(game.sport), &game.competition).unwrap();
            for team in &game.teams {
                assert!(
                    league.clubs.contains(&team.as_str()),
                    "{team} in {}",
                    game.competition
                );
            }
            assert_eq!(game.teams.len(), 2);
        }
        // No club or player plays two games within 48 hours, live, played
        // or listed.
        let mut by_club: BTreeMap<(u64, &str), Vec<i64>> = BTreeMap::new();
        for game in &real {
            for team in &game.teams {
                by_club
                    .entry((game.sport, team.as_str()))
                    .or_default()
                    .push(game.start);
            }
        }
        for ((sport, club), mut starts) in by_club {
            starts.sort();
            for pair in starts.windows(2) {
                assert!(
                    pair[1] - pair[0] >= REST_S,
                    "sport {sport}: {club} plays at {} and {}",
                    pair[0],
                    pair[1]
                );
            }
        }
        // A live game is a fixture that was listed prematch for the two
        // hours before its kick-off (games of the first two hours aside).
        let mut went_live = 0;
        for game in real
            .iter()
            .filter(|g| g.start > t0 + CYCLE_AHEAD_S && g.start <= t0 + hours * 3600)
        {
            went_live += 1;
            assert!(
                game.first_seen <= game.start - CYCLE_AHEAD_S + 60,
                "{:?} listed at {} for {}",
                game.teams,
                game.first_seen,
                game.start
            );
        }
        // Football alone kicks off every 15 minutes.
        assert!(went_live > 6 * hours, "{went_live} games went live");
        // Kick-offs mostly fall in the league's afternoon or evening.
        let local = real
            .iter()
            .filter(|g| {
                let offset = league(spec(g.sport), &g.competition).unwrap().utc_offset;
                (11..23).contains(&((g.start + offset * 3600).rem_euclid(86_400) / 3600))
            })
            .count();
        assert!(
            local * 100 >= real.len() * 85,
            "{local} of {} games at a local kick-off time",
            real.len()
        );
    }

    #[test]
    fn live_games_play_at_their_real_pace_by_default() {
        let mut sim = Simulator::new(SimulatorSettings::default());
        let mut catalogue = Catalogue::new();
        let t0 = 1_800_000_000;
        sim.start(&mut catalogue, t0);
        // A football game listed for later.
        let game = catalogue
            .games()
            .values()
            .filter(|g| sport_of(&catalogue, g) == 1 && g.start_ts > t0 + 600)
            .min_by_key(|g| g.start_ts)
            .unwrap()
            .clone();
        let kick_off = game.start_ts;
        let mut finished_at = None;
        let mut now = t0;
        while finished_at.is_none() && now < kick_off + 3 * 3600 {
            now += 60;
            let done = sim.tick(&mut catalogue, now);
            if done.iter().any(|f| f.game_id == game.id) {
                finished_at = Some(now);
                break;
            }
            let info = |c: &Catalogue| {
                let g = &c.games()[&game.id];
                let i = g.info.clone().unwrap();
                (i.current_game_state, i.clock / 60)
            };
            match now - kick_off {
                1800 => assert_eq!(info(&catalogue), ("1st half".into(), 30)),
                3000 => assert_eq!(info(&catalogue), ("Half-time".into(), 45)),
                4200 => assert_eq!(info(&catalogue), ("2nd half".into(), 55)),
                _ => {}
            }
        }
        // 105 minutes: two halves of 45 and half-time.
        assert_eq!(finished_at, Some(kick_off + 105 * 60));
        // The accelerated option: a game of 60 wall seconds.
        let mut fast = Simulator::new(SimulatorSettings {
            live_seconds: 60,
            ..Default::default()
        });
        let mut quick = Catalogue::new();
        fast.start(&mut quick, t0);
        let next = quick
            .games()
            .values()
            .filter(|g| sport_of(&quick, g) == 1 && g.start_ts > t0)
            .min_by_key(|g| g.start_ts)
            .unwrap()
            .clone();
        let mut ended = None;
        for t in 1..=200 {
            if fast
                .tick(&mut quick, t0 + t)
                .iter()
                .any(|f| f.game_id == next.id)
            {
                ended = Some(t0 + t);
                break;
            }
        }
        assert_eq!(ended, Some(next.start_ts + 60));
    }

    #[test]
    fn an_adopted_catalogue_plays_on_from_each_games_period_and_clock() {
        let t0 = 1_800_000_000;
        let mut first = Simulator::new(SimulatorSettings::default());
        let mut catalogue = Catalogue::new();
        first.start(&mut catalogue, t0);
        for m in 1..=30 {
            first.tick(&mut catalogue, t0 + m * 60);
        }
        let now = t0 + 30 * 60;
        let mut next = Simulator::new(SimulatorSettings {
            seed: 7,
            ..Default::default()
        });
        next.adopt(&catalogue, now);
        let before = catalogue.clone();
        next.tick(&mut catalogue, now + 60);
        let mut followed = 0;
        let mut exact = 0;
        for game in before.games().values() {
            let (Some(was), Some(sport)) = (game.info.as_ref(), catalogue.lineage(game.id)) else {
                continue;
            };
            if sport.sport.id != 1 || was.current_game_state == "Half-time" {
                continue;
            }
            let Some(is) = catalogue
                .games()
                .get(&game.id)
                .and_then(|g| g.info.as_ref())
            else {
                continue;
            };
            followed += 1;
            // A minute later, a minute further (a period may have ended).
            let moved = i64::from(is.clock) - i64::from(was.clock);
            assert!((0..=61).contains(&moved), "{:?} -> {:?}", was, is);
            exact += usize::from(moved == 60);
            assert!(is.score1 >= was.score1 && is.score2 >= was.score2);
        }
        assert!(followed >= 4, "{followed} football games followed");
        assert!(exact >= 3, "{exact} of {followed} clocks a minute on");
    }

    /// Games on every one of the next eight days; no club plays two games
    /// at once in the catalogue.
    fn fixture_list_is_plausible(catalogue: &Catalogue, now: i64) {
        let today = now.div_euclid(86_400);
        for day in today + 1..=today + 7 {
            for (sport, least) in [(1, 8), (3, 3), (4, 3), (2, 3), (75, 3)] {
                let games = catalogue
                    .games()
                    .values()
                    .filter(|g| {
                        g.start_ts.div_euclid(86_400) == day && sport_of(catalogue, g) == sport
                    })
                    .count();
                assert!(games >= least, "day {day}: {games} games of sport {sport}");
            }
        }
        assert!(catalogue
            .games()
            .values()
            .all(|g| g.start_ts <= now + FIXTURE_DAYS * 86_400));
    }

    #[test]
    fn a_club_plays_in_one_competition_of_its_sport() {
        for sport in SPORTS {
            let mut clubs: Vec<&str> = sport
                .regions
                .iter()
                .flat_map(|r| r.leagues.iter())
                .flat_map(|l| l.clubs.iter().copied())
                .collect();
            let all = clubs.len();
            clubs.sort();
            clubs.dedup();
            assert_eq!(clubs.len(), all, "sport {}", sport.id);
        }
    }

    #[test]
    fn sport_region_and_competition_names_come_in_three_languages() {
        let mut sim = Simulator::new(SimulatorSettings::default());
        let mut catalogue = Catalogue::new();
        sim.start(&mut catalogue, 1_800_000_000);
        for sport in catalogue.sports().values() {
            for language in ["eng", "zhh", "tha"] {
                assert!(
                    sport.names.contains_key(language),
                    "{} {language}",
                    sport.name
                );
            }
        }
        assert_eq!(catalogue.sports()[&1].names["zhh"], "足球");
        assert_eq!(catalogue.sports()[&1].names["tha"], "ฟุตบอล");
        for region in catalogue.regions().values() {
            assert_eq!(region.names.len(), 3, "{}", region.name);
        }
        for competition in catalogue.competitions().values() {
            assert_eq!(competition.names.len(), 3, "{}", competition.name);
            assert_ne!(competition.names["zhh"], competition.name);
        }
    }

    #[test]
    fn the_schedule_is_deterministic_for_a_seed() {
        let build = |seed| {
            let mut sim = Simulator::new(SimulatorSettings {
                seed,
                ..Default::default()
            });
            let mut catalogue = Catalogue::new();
            sim.start(&mut catalogue, 1_800_000_000);
            for m in 1..=30 {
                sim.tick(&mut catalogue, 1_800_000_000 + m * 60);
            }
            catalogue
        };
        assert_eq!(build(3), build(3));
        assert_ne!(build(3), build(4));
    }
}
