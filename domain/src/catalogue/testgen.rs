//! Seeded random catalogues and mutations for property tests: a SplitMix64
//! generator (no dependency, same sequence on every machine). Built for
//! this crate's tests and, with the `testgen` feature, for the fuzz
//! targets in `fuzz/` (never for the server).

use rust_decimal::Decimal;

use super::*;

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in 0..n (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    fn key<T>(&mut self, map: &std::collections::BTreeMap<u64, T>) -> Option<u64> {
        if map.is_empty() {
            return None;
        }
        map.keys()
            .nth(self.below(map.len() as u64) as usize)
            .copied()
    }
}

const SPORTS: [(&str, &str); 4] = [
    ("Football", "Soccer"),
    ("Basketball", "Basketball"),
    ("Tennis", "Tennis"),
    ("Ice Hockey", "IceHockey"),
];
const TEAMS: [&str; 8] = [
    "Real Madrid",
    "Barcelona",
    "Manchester United",
    "Bayern München",
    "Lakers",
    "Celtics",
    "전북 현대",
    "Bangkok United",
];
const MARKETS: [&str; 6] = [
    "P1XP2",
    "AsianHandicap",
    "OverUnder",
    "HalfTimeResult",
    "CornerOverUnder",
    "BothTeamsToScore",
];
const PICKS: [&str; 5] = ["P1", "X", "P2", "Over", "Under"];

/// A random catalogue of a few sports down to events.
pub fn catalogue(rng: &mut Rng) -> Catalogue {
    let mut c = Catalogue::new();
    for s in 0..=rng.below(3) {
        let (name, alias) = SPORTS[s as usize];
        let id = s + 1;
        c.insert_sport(Sport {
            id,
            name: name.into(),
            alias: alias.into(),
            order: rng.below(5) as i64,
            names: Default::default(),
        });
        for _ in 0..rng.below(3) {
            add_region(rng, &mut c, id);
        }
    }
    c
}

fn next_id(c: &Catalogue) -> u64 {
    [
        c.sports().keys().last(),
        c.regions().keys().last(),
        c.competitions().keys().last(),
        c.games().keys().last(),
        c.markets().keys().last(),
        c.events().keys().last(),
    ]
    .into_iter()
    .flatten()
    .max()
    .map_or(100, |m| m + 1)
}

fn add_region(rng: &mut Rng, c: &mut Catalogue, sport_id: u64) {
    let id = next_id(c);
    let name = format!("Region {}", rng.below(50));
    let alias = name.replace(' ', "");
    c.insert_region(Region {
        id,
        sport_id,
        name,
        alias,
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    for _ in 0..rng.below(3) {
        add_competition(rng, c, id);
    }
}

fn add_competition(rng: &mut Rng, c: &mut Catalogue, region_id: u64) {
    let id = next_id(c);
    let name = rng
        .pick(&["Premier League", "La Liga", "K League 1", "NBA"])
        .to_string();
    c.insert_competition(Competition {
        id,
        region_id,
        name,
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    for _ in 0..rng.below(4) {
        add_game(rng, c, id);
    }
}

pub fn add_game(rng: &mut Rng, c: &mut Catalogue, competition_id: u64) {
    let id = next_id(c);
    let game_type = *rng.pick(&[GameType::Prematch, GameType::Live, GameType::AlsoPrematch]);
    c.insert_game(Game {
        id,
        competition_id,
        game_type,
        start_ts: 1_700_000_000 + rng.below(10) as i64 * 3600,
        team1_name: rng.pick(&TEAMS).to_string(),
        team2_name: (!rng.chance(10)).then(|| rng.pick(&TEAMS).to_string()),
        is_blocked: rng.chance(10),
        info: (game_type == GameType::Live).then(|| live_info(rng)),
        markets_count: 0,
    })
    .unwrap();
    for _ in 0..rng.below(4) {
        add_market(rng, c, id);
    }
}

fn live_info(rng: &mut Rng) -> LiveInfo {
    LiveInfo {
        current_game_state: rng.pick(&["1st half", "2nd half", "set1"]).to_string(),
        clock: rng.below(5400) as u32,
        score1: rng.below(4) as u32,
        score2: rng.below(4) as u32,
    }
}

fn quarter_line(rng: &mut Rng) -> Decimal {
    Decimal::new(rng.below(17) as i64 * 25 - 200, 2)
}

fn add_market(rng: &mut Rng, c: &mut Catalogue, game_id: u64) {
    let id = next_id(c);
    let market_type = rng.pick(&MARKETS).to_string();
    let base =
        matches!(market_type.as_str(), "AsianHandicap" | "OverUnder").then(|| quarter_line(rng));
    c.insert_market(Market {
        id,
        game_id,
        name: market_type.clone(),
        market_type,
        base,
        order: rng.below(10) as i64,
        is_suspended: rng.chance(10),
        ew_allowed: false,
        ew_places: None,
        ew_coeff: None,
        sp_allowed: false,
    })
    .unwrap();
    for _ in 0..=rng.below(3) {
        add_event(rng, c, id);
    }
}

fn random_price(rng: &mut Rng) -> Decimal {
    Decimal::new(1010 + rng.below(9000) as i64, 3)
}

fn add_event(rng: &mut Rng, c: &mut Catalogue, market_id: u64) {
    let id = next_id(c);
    let pick = rng.pick(&PICKS).to_string();
    c.insert_event(Event {
        id,
        market_id,
        name: pick.clone(),
        type_: pick,
        price: random_price(rng),
        base: None,
        is_suspended: rng.chance(5),
    })
    .unwrap();
}

/// One random feed-like change: a price, a suspension, a score, a removal
/// or an addition at any level.
pub fn mutate(rng: &mut Rng, c: &mut Catalogue) {
    match rng.below(12) {
        0 | 1 => change(rng.key(c.events()), |id| {
            let price = random_price(rng);
            c.update_event(id, |e| e.price = price).unwrap()
        }),
        2 => change(rng.key(c.events()), |id| {
            c.update_event(id, |e| e.is_suspended ^= true).unwrap()
        }),
        3 => change(rng.key(c.markets()), |id| {
            c.update_market(id, |m| m.is_suspended ^= true).unwrap()
        }),
        4 => change(rng.key(c.games()), |id| {
            let info = live_info(rng);
            c.update_game(id, |g| g.info = Some(info)).unwrap()
        }),
        5 => change(rng.key(c.games()), |id| {
            let t = *rng.pick(&[GameType::Prematch, GameType::Live]);
            c.update_game(id, |g| g.game_type = t).unwrap()
        }),
        6 => change(rng.key(c.events()), |id| drop(c.remove_event(id))),
        7 => change(rng.key(c.markets()), |id| drop(c.remove_market(id))),
        8 => change(rng.key(c.games()), |id| drop(c.remove_game(id))),
        9 => change(rng.key(c.markets()), |id| add_event(rng, c, id)),
        10 => change(rng.key(c.competitions()), |id| add_game(rng, c, id)),
        _ => change(rng.key(c.sports()), |id| {
            let order = rng.below(5) as i64;
            c.update_sport(id, |s| s.order = order).unwrap()
        }),
    }
}

fn change(id: Option<u64>, f: impl FnOnce(u64)) {
    if let Some(id) = id {
        f(id)
    }
}

// Fixed fixtures.

pub fn sport(id: u64, name: &str, order: i64) -> Sport {
    Sport {
        id,
        name: name.into(),
        alias: name.replace(' ', ""),
        order,
        names: Default::default(),
    }
}

pub fn game(id: u64, competition_id: u64, team1: &str, team2: Option<&str>) -> Game {
    Game {
        id,
        competition_id,
        game_type: GameType::Prematch,
        start_ts: 1_700_000_000,
        team1_name: team1.into(),
        team2_name: team2.map(Into::into),
        is_blocked: false,
        info: None,
        markets_count: 0,
    }
}

pub fn market(id: u64, game_id: u64, market_type: &str) -> Market {
    Market {
        id,
        game_id,
        market_type: market_type.into(),
        name: market_type.into(),
        base: None,
        order: 0,
        is_suspended: false,
        ew_allowed: false,
        ew_places: None,
        ew_coeff: None,
        sp_allowed: false,
    }
}

pub fn event(id: u64, market_id: u64, type_: &str, price: Decimal) -> Event {
    Event {
        id,
        market_id,
        name: type_.into(),
        type_: type_.into(),
        price,
        base: None,
        is_suspended: false,
    }
}

/// Football (order 1) > England > Premier League > Arsenal v Chelsea
/// (1X2 with three prices); Basketball (order 2) > USA > NBA > Lakers v
/// Celtics.
pub fn small() -> Catalogue {
    let mut c = Catalogue::new();
    c.insert_sport(sport(1, "Football", 1));
    c.insert_sport(sport(3, "Basketball", 2));
    c.insert_region(Region {
        id: 10,
        sport_id: 1,
        name: "England".into(),
        alias: "England".into(),
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    c.insert_region(Region {
        id: 30,
        sport_id: 3,
        name: "USA".into(),
        alias: "USA".into(),
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    c.insert_competition(Competition {
        id: 100,
        region_id: 10,
        name: "Premier League".into(),
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    c.insert_competition(Competition {
        id: 300,
        region_id: 30,
        name: "NBA".into(),
        order: 0,
        names: Default::default(),
    })
    .unwrap();
    c.insert_game(game(1000, 100, "Arsenal", Some("Chelsea")))
        .unwrap();
    c.insert_game(game(3000, 300, "Lakers", Some("Celtics")))
        .unwrap();
    c.insert_market(market(10000, 1000, "P1XP2")).unwrap();
    c.insert_event(event(100001, 10000, "P1", Decimal::new(21, 1)))
        .unwrap();
    c.insert_event(event(100002, 10000, "X", Decimal::new(325, 2)))
        .unwrap();
    c.insert_event(event(100003, 10000, "P2", Decimal::new(36, 1)))
        .unwrap();
    c
}
