//! The shapes of bet placement: the `do_bet` request, the live quote of a
//! pick, the limits, the accepted bet and the refusals with their codes.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{AcceptMode, BetType};
use crate::catalogue::{Catalogue, GameType};
use crate::{Code, Currency};

/// The price a pick sends for a starting-price (SP) bet.
pub const SP_PRICE: Decimal = Decimal::NEGATIVE_ONE;
/// Total express odds maximum (spec 000 section 9).
pub const EXPRESS_ODDS_LIMIT: Decimal = Decimal::ONE_THOUSAND;
/// The spec's second reading of the express odds maximum.
pub const EXPRESS_ODDS_LIMIT_HIGH: Decimal = Decimal::from_parts(10_000, 0, 0, false, 0);
/// Selections one bet may hold (configurable: `[bets] max_selections`).
pub const MAX_SELECTIONS: usize = 30;
/// Lines (combinations) one system bet may hold (configurable:
/// `[bets] max_combinations`). C(30, 15) would be 155 million lines.
pub const MAX_COMBINATIONS: usize = 5_000;

/// One selection of a `do_bet` request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pick {
    pub event_id: u64,
    /// The price the member saw, or -1 for SP.
    pub price: Decimal,
    #[serde(default)]
    pub banker: bool,
    /// The line the member saw, when the client sends it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<Decimal>,
}

/// The `do_bet` request (DESIGN wire contract).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetRequest {
    #[serde(rename = "type")]
    pub bet_type: BetType,
    pub mode: AcceptMode,
    pub amount: Decimal,
    #[serde(default)]
    pub each_way: bool,
    /// System size k.
    #[serde(default)]
    pub sys_bet: Option<u32>,
    #[serde(default)]
    pub bonus_id: Option<String>,
    #[serde(default)]
    pub is_offer: bool,
    #[serde(rename = "bets")]
    pub selections: Vec<Pick>,
}

/// What the bet history shows of a selection (spec 000 section 3, bet
/// event).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegNames {
    pub sport_id: u64,
    pub sport_name: String,
    pub region_name: String,
    pub competition_name: String,
    pub team1: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team2: Option<String>,
    pub market_name: String,
    pub market_type: String,
    pub event_name: String,
    pub event_type: String,
}

/// What the live catalogue says about a pick now. A deleted selection has
/// no quote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quote {
    pub event_id: u64,
    pub market_id: u64,
    pub game_id: u64,
    pub price: Decimal,
    pub base: Option<Decimal>,
    pub suspended: bool,
    pub blocked: bool,
    /// The game has started and the price is a prematch one.
    pub game_started: bool,
    pub game_type: GameType,
    pub single_only: bool,
    pub ew_allowed: bool,
    pub ew_coeff: Option<Decimal>,
    pub sp_allowed: bool,
    /// Kick-off, unix seconds.
    pub start_ts: i64,
    pub names: LegNames,
}

impl Quote {
    /// The quote for `event_id` from the catalogue at `now_s` (unix
    /// seconds). Each-way and SP come from the market's terms (each-way
    /// needs `ew_allowed` and a coefficient); the catalogue knows no
    /// single-only flag: it is off, a caller with such terms sets it.
    pub fn from_catalogue(catalogue: &Catalogue, event_id: u64, now_s: i64) -> Option<Quote> {
        let event = catalogue.events().get(&event_id)?;
        let market = catalogue.markets().get(&event.market_id)?;
        let lineage = catalogue.lineage(market.game_id)?;
        let game = lineage.game;
        Some(Quote {
            event_id,
            market_id: market.id,
            game_id: game.id,
            price: event.price,
            base: event.base.or(market.base),
            suspended: event.is_suspended || market.is_suspended,
            blocked: game.is_blocked,
            game_started: game.game_type != GameType::Live && game.start_ts <= now_s,
            game_type: game.game_type,
            single_only: false,
            ew_allowed: market.ew_allowed && market.ew_coeff.is_some(),
            ew_coeff: market.ew_coeff.filter(|_| market.ew_allowed),
            sp_allowed: market.sp_allowed,
            start_ts: game.start_ts,
            names: LegNames {
                sport_id: lineage.sport.id,
                sport_name: lineage.sport.name.clone(),
                region_name: lineage.region.name.clone(),
                competition_name: lineage.competition.name.clone(),
                team1: game.team1_name.clone(),
                team2: game.team2_name.clone(),
                market_name: market.name.clone(),
                market_type: market.market_type.clone(),
                event_name: event.name.clone(),
                event_type: event.type_.clone(),
            },
        })
    }
}

/// Stake and odds limits for one member in one currency.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BetLimits {
    pub currency: Currency,
    pub min_stake: Decimal,
    pub max_stake: Decimal,
    pub max_express_odds: Decimal,
    pub member_limit: Option<Decimal>,
    /// At most this many selections per bet.
    pub max_selections: usize,
    /// At most this many combinations per system bet.
    pub max_combinations: usize,
}

impl BetLimits {
    pub fn new(currency: Currency, min_stake: Decimal, max_stake: Decimal) -> Self {
        Self {
            currency,
            min_stake,
            max_stake,
            max_express_odds: EXPRESS_ODDS_LIMIT,
            member_limit: None,
            max_selections: MAX_SELECTIONS,
            max_combinations: MAX_COMBINATIONS,
        }
    }
}

/// One accepted selection, with everything the bet history shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leg {
    pub event_id: u64,
    pub market_id: u64,
    pub game_id: u64,
    /// The accepted price (better odds included), or -1 for SP.
    pub price: Decimal,
    /// The price the member sent.
    pub requested_price: Decimal,
    pub base: Option<Decimal>,
    /// Each-way place odds (none for SP: they follow the starting price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place_price: Option<Decimal>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ew_coeff: Option<Decimal>,
    pub banker: bool,
    pub game_type: GameType,
    pub start_ts: i64,
    pub names: LegNames,
}

impl Leg {
    pub fn is_sp(&self) -> bool {
        self.price == SP_PRICE
    }
}

/// A bet that passed every placement rule.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidBet {
    pub bet_type: BetType,
    pub mode: AcceptMode,
    pub each_way: bool,
    /// Mode -1: held for support until accepted or declined.
    pub super_bet: bool,
    /// Better odds were applied (single, `is_offer`).
    pub better_odds: bool,
    pub bonus_id: Option<String>,
    pub sys_bet: Option<u32>,
    /// The stake of one line: one part of one combination.
    pub unit_stake: Decimal,
    /// The total stake taken: unit stake x combinations x parts.
    pub stake: Decimal,
    pub legs: Vec<Leg>,
    /// Leg indices of each combination (a single or an express has one; a
    /// chain's one combination is its legs in order).
    pub combinations: Vec<Vec<usize>>,
    /// Odds k of a single or express (3 places); none for system, chain or
    /// when a leg is SP.
    pub odds: Option<Decimal>,
    /// Payout when every leg wins (no bonus); none when a leg is SP.
    pub possible_win: Option<Decimal>,
}

impl ValidBet {
    /// Parts per combination: 2 for each-way (win and place), else 1.
    pub fn parts(&self) -> usize {
        if self.each_way {
            2
        } else {
            1
        }
    }
}

/// One changed selection in a 1800 refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PriceChange {
    pub event_id: u64,
    pub new_price: Decimal,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_base: Option<Decimal>,
}

/// Why a bet cannot be placed. `to_string()` is the member's message,
/// `code()` the catalogue code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BetRefusal {
    #[error("Add more events to place a bet.")]
    NotEnoughEvents { needed: usize },
    #[error("The bet is not valid.")]
    InvalidBet { reason: &'static str },
    /// More selections than one bet may hold.
    #[error("Too many selections: a bet holds at most {max}.")]
    TooManySelections { max: usize },
    /// A system bet with more combinations than one bet may hold.
    #[error("Too many combinations: a system bet holds at most {max}.")]
    TooManyCombinations { max: usize },
    #[error("Set stake to place a bet.")]
    EmptyStake,
    #[error("Wrong amount")]
    WrongAmount,
    #[error("Event is not available.")]
    EventNotAvailable { event_id: u64 },
    #[error("Event is blocked.")]
    EventBlocked { event_id: u64 },
    #[error("game started")]
    GameStarted { event_id: u64 },
    #[error("Wrong coefficient")]
    WrongCoefficient { event_id: u64 },
    #[error("Starting price is not available for this event.")]
    SpNotAvailable { event_id: u64 },
    #[error("Each way is not available for this event.")]
    EachWayNotAvailable { event_id: u64 },
    #[error("Some events in betslip conflict with others.")]
    SingleOnly { event_id: u64 },
    /// The picks of one game; the client lists them after the message.
    #[error("This bet cannot be combined with:")]
    Conflict { event_ids: Vec<u64> },
    #[error("The odds have changed")]
    OddsChanged { details: Vec<PriceChange> },
    #[error("Odds limit exceeded.")]
    OddsLimit { odds: Decimal, limit: Decimal },
    #[error("sum below min")]
    BelowMin { min: Decimal },
    #[error("sum above max")]
    AboveMax { max: Decimal },
    #[error("The bet amount exceeds your current limit")]
    MemberLimit { limit: Decimal },
    #[error("Insufficient balance.")]
    InsufficientBalance,
    /// `bonus_id` names no free bet of the member's that can be staked now
    /// (unknown, used, expired), or the stake is not its whole amount.
    #[error("This free bet cannot be used.")]
    FreeBetNotAvailable,
    /// A member may have one super bet waiting for support at a time.
    #[error("only one active super bet")]
    OneSuperBet,
    /// The member's own limit, time-out or self-exclusion.
    #[error("{0}")]
    Safer(crate::safer::SaferError),
}

impl BetRefusal {
    pub fn code(&self) -> Code {
        use BetRefusal::*;
        match self {
            NotEnoughEvents { .. } => Code::NOT_ENOUGH_EVENTS,
            InvalidBet { .. } => Code::INVALID_BET,
            TooManySelections { .. } => Code::TOO_MANY_SELECTIONS,
            TooManyCombinations { .. } => Code::TOO_MANY_COMBINATIONS,
            EmptyStake | WrongAmount => Code::WRONG_AMOUNT,
            EventNotAvailable { .. } => Code::EVENT_NOT_AVAILABLE,
            EventBlocked { .. } => Code::EVENT_BLOCKED,
            GameStarted { .. } => Code::GAME_STARTED,
            WrongCoefficient { .. } => Code::WRONG_COEFFICIENT,
            SpNotAvailable { .. } => Code::SP_NOT_AVAILABLE,
            EachWayNotAvailable { .. } => Code::EACH_WAY_NOT_AVAILABLE,
            SingleOnly { .. } => Code::SINGLE_ONLY,
            Conflict { .. } => Code::BET_CONFLICT,
            OddsChanged { .. } => Code::ODDS_CHANGED,
            OddsLimit { .. } => Code::ODDS_LIMIT,
            BelowMin { .. } => Code::STAKE_BELOW_MIN,
            AboveMax { .. } => Code::STAKE_ABOVE_MAX,
            MemberLimit { .. } => Code::MEMBER_LIMIT,
            InsufficientBalance => Code::INSUFFICIENT_BALANCE,
            OneSuperBet => Code::ONE_SUPER_BET,
            FreeBetNotAvailable => Code::FREE_BET_NOT_AVAILABLE,
            Safer(e) => e.code(),
        }
    }
}
