//! Booking ids (spec 000 sections 3 and 5: the betslip's `bookingBet`).
//!
//! A member or a visitor saves a betslip's selections and gets a short id;
//! anyone can load the slip by that id later. Saving checks the picks
//! against the live catalogue and keeps what the catalogue said of each
//! (names, game, market) next to the price the slip showed, so a slip whose
//! events have gone still loads with names. Loading answers the current
//! live price and availability of every pick.
//!
//! Ids are 8 characters from an alphabet without 0/O/1/I, drawn at random;
//! an id already taken is drawn again.

use std::collections::HashSet;

use domain::bet::{BetType, Quote};
use domain::catalogue::{Catalogue, GameType};
use domain::Code;
use rand::Rng;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sqlx::AnyPool;

use crate::platform::clock::SharedClock;
use crate::sportsbook::live::LiveCatalogue;

/// Most selections one booking holds.
pub const MAX_SELECTIONS: usize = 30;
/// Characters of a booking id.
pub const ID_LENGTH: usize = 8;
/// Booking id characters: digits and capitals without 0, O, 1 and I.
pub const ID_ALPHABET: &[u8] = b"23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/// Fresh ids drawn before saving gives up (a collision is ~1 in 10^12).
const ID_ATTEMPTS: usize = 8;

/// One pick of `book_bet`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookingPick {
    pub event_id: u64,
    /// The price the slip showed (-1 for SP); may be left out.
    #[serde(default)]
    pub price: Option<Decimal>,
}

/// `book_bet {type, sys_bet?, bets: [{event_id, price}]}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BookingRequest {
    #[serde(rename = "type")]
    pub bet_type: BetType,
    #[serde(default)]
    pub sys_bet: Option<u32>,
    #[serde(rename = "bets")]
    pub selections: Vec<BookingPick>,
}

/// A pick as stored: the booked price and what the catalogue said of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredPick {
    event_id: u64,
    price: Option<Decimal>,
    game_id: u64,
    market_id: u64,
    event_name: String,
    market_name: String,
    team1: String,
    team2: Option<String>,
    start_ts: i64,
    is_live: bool,
}

/// The `payload` column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct StoredSlip {
    #[serde(rename = "type")]
    bet_type: BetType,
    sys_bet: Option<u32>,
    bets: Vec<StoredPick>,
}

/// A loaded pick, as `get_booking` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadedPick {
    pub event_id: u64,
    /// The current live price; none when the event has gone.
    pub price: Option<Decimal>,
    /// The price the slip showed when it was booked.
    pub booked_price: Option<Decimal>,
    /// The current line, when the market has one.
    pub base: Option<Decimal>,
    pub game_id: u64,
    pub market_id: u64,
    /// As the catalogue names it (W1 / W2 ... placeholders included).
    pub event_name: String,
    pub market_name: String,
    pub team1: String,
    pub team2: Option<String>,
    pub start_ts: i64,
    pub is_live: bool,
    /// Bettable now: present, not suspended, not blocked, not started
    /// (prematch).
    pub available: bool,
}

/// A loaded slip, as `get_booking` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadedSlip {
    #[serde(rename = "type")]
    pub bet_type: BetType,
    pub sys_bet: Option<u32>,
    pub bets: Vec<LoadedPick>,
}

/// Why a booking was refused. `to_string()` is the message, `code()` the
/// catalogue code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BookingRefusal {
    #[error("Add more events to place a bet.")]
    Empty,
    #[error("Too many events in betslip.")]
    TooMany { max: usize },
    #[error("The bet is not valid.")]
    Duplicate { event_id: u64 },
    #[error("Event is not available.")]
    UnknownEvent { event_id: u64 },
    #[error("Wrong coefficient")]
    WrongPrice { event_id: u64 },
    #[error("Booking not found")]
    NotFound,
}

impl BookingRefusal {
    pub fn code(&self) -> Code {
        match self {
            BookingRefusal::Empty => Code::NOT_ENOUGH_EVENTS,
            BookingRefusal::TooMany { .. } => Code::BOOKING_TOO_MANY_EVENTS,
            BookingRefusal::Duplicate { .. } => Code::INVALID_BET,
            BookingRefusal::UnknownEvent { .. } => Code::EVENT_NOT_AVAILABLE,
            BookingRefusal::WrongPrice { .. } => Code::WRONG_COEFFICIENT,
            BookingRefusal::NotFound => Code::BOOKING_NOT_FOUND,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BookingError {
    #[error("{0}")]
    Refused(BookingRefusal),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for BookingError {
    fn from(e: sqlx::Error) -> Self {
        BookingError::Internal(e.to_string())
    }
}

impl From<BookingRefusal> for BookingError {
    fn from(r: BookingRefusal) -> Self {
        BookingError::Refused(r)
    }
}

/// A fresh random booking id.
pub fn random_booking_id() -> String {
    let mut rng = rand::rng();
    (0..ID_LENGTH)
        .map(|_| ID_ALPHABET[rng.random_range(0..ID_ALPHABET.len())] as char)
        .collect()
}

/// The id as typed (spaces around, lower case) in its stored form, or none
/// when it cannot be a booking id.
pub fn normalize_id(raw: &str) -> Option<String> {
    let id = raw.trim().to_ascii_uppercase();
    (id.len() == ID_LENGTH && id.bytes().all(|b| ID_ALPHABET.contains(&b))).then_some(id)
}

/// Checks the picks against the catalogue: 1 to 30, no event twice, every
/// event in the catalogue, prices above 1 (or -1 for SP).
fn validate(
    request: &BookingRequest,
    catalogue: &Catalogue,
    now_s: i64,
) -> Result<Vec<StoredPick>, BookingRefusal> {
    let picks = &request.selections;
    if picks.is_empty() {
        return Err(BookingRefusal::Empty);
    }
    if picks.len() > MAX_SELECTIONS {
        return Err(BookingRefusal::TooMany {
            max: MAX_SELECTIONS,
        });
    }
    let mut seen = HashSet::new();
    if let Some(twice) = picks.iter().find(|p| !seen.insert(p.event_id)) {
        return Err(BookingRefusal::Duplicate {
            event_id: twice.event_id,
        });
    }
    picks
        .iter()
        .map(|pick| {
            let event_id = pick.event_id;
            if let Some(price) = pick.price {
                if price <= Decimal::ONE && price != Decimal::NEGATIVE_ONE {
                    return Err(BookingRefusal::WrongPrice { event_id });
                }
            }
            let quote = Quote::from_catalogue(catalogue, event_id, now_s)
                .ok_or(BookingRefusal::UnknownEvent { event_id })?;
            Ok(StoredPick {
                event_id,
                price: pick.price,
                game_id: quote.game_id,
                market_id: quote.market_id,
                event_name: quote.names.event_name,
                market_name: quote.names.market_name,
                team1: quote.names.team1,
                team2: quote.names.team2,
                start_ts: quote.start_ts,
                is_live: quote.game_type == GameType::Live,
            })
        })
        .collect()
}

/// The stored slip with what the catalogue says of each pick now.
fn refresh(slip: StoredSlip, catalogue: &Catalogue, now_s: i64) -> LoadedSlip {
    let bets = slip
        .bets
        .into_iter()
        .map(
            |stored| match Quote::from_catalogue(catalogue, stored.event_id, now_s) {
                Some(quote) => LoadedPick {
                    event_id: stored.event_id,
                    price: Some(quote.price),
                    booked_price: stored.price,
                    base: quote.base,
                    game_id: quote.game_id,
                    market_id: quote.market_id,
                    event_name: quote.names.event_name,
                    market_name: quote.names.market_name,
                    team1: quote.names.team1,
                    team2: quote.names.team2,
                    start_ts: quote.start_ts,
                    is_live: quote.game_type == GameType::Live,
                    available: !quote.suspended && !quote.blocked && !quote.game_started,
                },
                None => LoadedPick {
                    event_id: stored.event_id,
                    price: None,
                    booked_price: stored.price,
                    base: None,
                    game_id: stored.game_id,
                    market_id: stored.market_id,
                    event_name: stored.event_name,
                    market_name: stored.market_name,
                    team1: stored.team1,
                    team2: stored.team2,
                    start_ts: stored.start_ts,
                    is_live: stored.is_live,
                    available: false,
                },
            },
        )
        .collect();
    LoadedSlip {
        bet_type: slip.bet_type,
        sys_bet: slip.sys_bet,
        bets,
    }
}

type IdSource = Box<dyn Fn() -> String + Send + Sync>;

pub struct BookingService {
    live: std::sync::Arc<LiveCatalogue>,
    pool: AnyPool,
    clock: SharedClock,
    next_id: IdSource,
}

impl BookingService {
    pub fn new(pool: AnyPool, live: std::sync::Arc<LiveCatalogue>, clock: SharedClock) -> Self {
        Self {
            live,
            pool,
            clock,
            next_id: Box::new(random_booking_id),
        }
    }

    /// As `new`, drawing ids from `ids` (tests force collisions).
    pub fn with_ids(mut self, ids: impl Fn() -> String + Send + Sync + 'static) -> Self {
        self.next_id = Box::new(ids);
        self
    }

    /// Saves the picks; answers the booking id.
    pub async fn save(&self, request: &BookingRequest) -> Result<String, BookingError> {
        let now_ms = self.clock.now_ms();
        let bets = self
            .live
            .read(|catalogue| validate(request, catalogue, now_ms / 1000))?;
        let slip = StoredSlip {
            bet_type: request.bet_type,
            sys_bet: request
                .sys_bet
                .filter(|_| request.bet_type == BetType::System),
            bets,
        };
        let payload =
            serde_json::to_string(&slip).map_err(|e| BookingError::Internal(e.to_string()))?;
        for _ in 0..ID_ATTEMPTS {
            let id = (self.next_id)();
            let inserted = sqlx::query(
                "INSERT INTO bookings (id, payload, created_ms) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
            )
            .bind(&id)
            .bind(&payload)
            .bind(now_ms)
            .execute(&self.pool)
            .await?
            .rows_affected();
            if inserted == 1 {
                return Ok(id);
            }
        }
        Err(BookingError::Internal(format!(
            "no free booking id after {ID_ATTEMPTS} attempts"
        )))
    }

    /// The slip booked under `id` (as typed: case and spaces do not
    /// matter) with current prices and availability.
    pub async fn load(&self, id: &str) -> Result<LoadedSlip, BookingError> {
        let id = normalize_id(id).ok_or(BookingRefusal::NotFound)?;
        let payload: Option<String> =
            sqlx::query_scalar("SELECT payload FROM bookings WHERE id = $1")
                .bind(&id)
                .fetch_optional(&self.pool)
                .await?;
        let payload = payload.ok_or(BookingRefusal::NotFound)?;
        let slip: StoredSlip = serde_json::from_str(&payload)
            .map_err(|e| BookingError::Internal(format!("booking {id}: {e}")))?;
        let now_s = self.clock.now_ms() / 1000;
        Ok(self.live.read(|catalogue| refresh(slip, catalogue, now_s)))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::platform::clock::ManualClock;
    use crate::sportsbook::feed::{Feed, Simulator, SimulatorSettings};
    use store::db::testing;
    use store::StoreKind;

    const NOW_S: i64 = 1_800_000_000;

    fn catalogue() -> Catalogue {
        let mut catalogue = Catalogue::new();
        Simulator::new(SimulatorSettings::default()).start(&mut catalogue, NOW_S);
        catalogue
    }

    /// Bettable events of distinct games.
    fn open_events(catalogue: &Catalogue, n: usize) -> Vec<u64> {
        let mut games = HashSet::new();
        catalogue
            .events()
            .keys()
            .copied()
            .filter(|id| {
                Quote::from_catalogue(catalogue, *id, NOW_S).is_some_and(|q| {
                    !q.suspended && !q.blocked && !q.game_started && games.insert(q.game_id)
                })
            })
            .take(n)
            .collect()
    }

    fn request(ids: &[u64]) -> BookingRequest {
        BookingRequest {
            bet_type: if ids.len() > 1 {
                BetType::Express
            } else {
                BetType::Single
            },
            sys_bet: None,
            selections: ids
                .iter()
                .map(|id| BookingPick {
                    event_id: *id,
                    price: Some(Decimal::TWO),
                })
                .collect(),
        }
    }

    #[test]
    fn ids_are_8_unambiguous_characters() {
        for _ in 0..200 {
            let id = random_booking_id();
            assert_eq!(id.len(), ID_LENGTH);
            assert!(!id.contains(['0', 'O', '1', 'I']), "{id}");
            assert_eq!(normalize_id(&id).as_deref(), Some(id.as_str()));
        }
        assert_eq!(normalize_id(" k7px3qma ").as_deref(), Some("K7PX3QMA"));
        assert_eq!(normalize_id("K7PX3QM"), None);
        assert_eq!(normalize_id("K7PX3QM0"), None);
        assert_eq!(normalize_id(""), None);
    }

    #[test]
    fn picks_are_checked_against_the_catalogue() {
        let c = catalogue();
        let ids = open_events(&c, 3);
        assert_eq!(validate(&request(&ids), &c, NOW_S).unwrap().len(), 3);
        assert_eq!(
            validate(&request(&[]), &c, NOW_S),
            Err(BookingRefusal::Empty)
        );
        let many: Vec<u64> = c
            .events()
            .keys()
            .copied()
            .take(MAX_SELECTIONS + 1)
            .collect();
        assert_eq!(
            validate(&request(&many), &c, NOW_S),
            Err(BookingRefusal::TooMany { max: 30 })
        );
        assert_eq!(
            validate(&request(&many[..MAX_SELECTIONS]), &c, NOW_S).map(|b| b.len()),
            Ok(MAX_SELECTIONS)
        );
        assert_eq!(
            validate(&request(&[ids[0], ids[1], ids[0]]), &c, NOW_S),
            Err(BookingRefusal::Duplicate { event_id: ids[0] })
        );
        assert_eq!(
            validate(&request(&[ids[0], 999_999_999]), &c, NOW_S),
            Err(BookingRefusal::UnknownEvent {
                event_id: 999_999_999
            })
        );
        let mut bad = request(&ids[..1]);
        bad.selections[0].price = Some(Decimal::ONE);
        assert_eq!(
            validate(&bad, &c, NOW_S),
            Err(BookingRefusal::WrongPrice { event_id: ids[0] })
        );
        bad.selections[0].price = Some(Decimal::NEGATIVE_ONE);
        assert!(validate(&bad, &c, NOW_S).is_ok(), "SP");
        bad.selections[0].price = None;
        assert!(validate(&bad, &c, NOW_S).is_ok(), "no price");
    }

    #[test]
    fn loading_answers_current_prices_and_marks_gone_events() {
        let mut c = catalogue();
        let ids = open_events(&c, 3);
        let slip = StoredSlip {
            bet_type: BetType::Express,
            sys_bet: None,
            bets: validate(&request(&ids), &c, NOW_S).unwrap(),
        };
        let gone_name = slip.bets[1].event_name.clone();
        c.update_event(ids[0], |e| e.price = Decimal::new(7777, 3))
            .unwrap();
        c.remove_event(ids[1]);
        let market = c.events()[&ids[2]].market_id;
        c.update_market(market, |m| m.is_suspended = true).unwrap();
        let loaded = refresh(slip, &c, NOW_S);
        assert_eq!(loaded.bets[0].price, Some(Decimal::new(7777, 3)));
        assert_eq!(loaded.bets[0].booked_price, Some(Decimal::TWO));
        assert!(loaded.bets[0].available);
        assert_eq!(loaded.bets[1].price, None);
        assert!(!loaded.bets[1].available);
        assert_eq!(loaded.bets[1].event_name, gone_name, "names kept");
        assert!(loaded.bets[2].price.is_some());
        assert!(!loaded.bets[2].available, "suspended");
    }

    store::on_both_stores!(a_taken_id_is_drawn_again, saved_slips_load_back);

    fn service(db: &store::Db, catalogue: Catalogue) -> BookingService {
        let clock: SharedClock = Arc::new(ManualClock::at(NOW_S * 1000));
        BookingService::new(db.any.clone(), LiveCatalogue::new(catalogue), clock)
    }

    async fn a_taken_id_is_drawn_again(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let c = catalogue();
        let ids = open_events(&c, 1);
        let drawn: Arc<Mutex<VecDeque<&str>>> = Arc::new(Mutex::new(
            ["AAAAAAAA", "AAAAAAAA", "AAAAAAAA", "BBBBBBBB"].into(),
        ));
        let source = drawn.clone();
        let bookings = service(&db, c).with_ids(move || {
            source
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or("CCCCCCCC")
                .into()
        });
        assert_eq!(bookings.save(&request(&ids)).await.unwrap(), "AAAAAAAA");
        assert_eq!(bookings.save(&request(&ids)).await.unwrap(), "BBBBBBBB");
        assert!(drawn.lock().unwrap().is_empty(), "two draws were taken");
        db.close().await;
    }

    async fn saved_slips_load_back(kind: StoreKind) {
        let db = testing::fresh(kind).await;
        let c = catalogue();
        let ids = open_events(&c, 3);
        let bookings = service(&db, c);
        let mut asked = request(&ids);
        asked.bet_type = BetType::System;
        asked.sys_bet = Some(2);
        let id = bookings.save(&asked).await.unwrap();
        let loaded = bookings.load(&id.to_lowercase()).await.unwrap();
        assert_eq!(loaded.bet_type, BetType::System);
        assert_eq!(loaded.sys_bet, Some(2));
        assert_eq!(
            loaded.bets.iter().map(|b| b.event_id).collect::<Vec<_>>(),
            ids
        );
        assert!(matches!(
            bookings.load("ZZZZZZZZ").await,
            Err(BookingError::Refused(BookingRefusal::NotFound))
        ));
        assert!(matches!(
            bookings.load("not an id").await,
            Err(BookingError::Refused(BookingRefusal::NotFound))
        ));
        db.close().await;
    }
}
