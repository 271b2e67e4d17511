//! Bets: placement rules, settlement and the Bet aggregate.
//!
//! - `model`: the request, quote, limits, accepted bet and refusal shapes.
//! - `arith`: the betslip arithmetic (line stakes, better odds, place
//!   odds, the odds limit), twinned in the client and held to the shared
//!   vectors in `testdata/betslip_vectors.json`.
//! - `slip`: `validate` turns a member's `do_bet` request plus what the live
//!   catalogue says now (one `Quote` per pick) into a `ValidBet` with the
//!   accepted prices, or refuses it with a catalogue code (spec 000 sections
//!   5 and 8).
//! - `settle`: the payout of a `ValidBet` from its selections' outcomes
//!   (single, express, system, chain, each-way, SP), optional express bonus.
//! - `request_id`: the client's id of one attempt at a command.
//! - `stats`: a member's betting statistics over a period, folded from bet
//!   records (`report/betanalytics`).
//! - `cashout`: the cash-out amount of a bet from live prices, partial
//!   cash-out and auto cash-out arithmetic, counter-offer terms.
//! - `Bet` aggregate (`aggregate`, `commands`, `events`): one per bet id;
//!   placed, accepted (super bets, also on a counter offer), declined,
//!   cashed out (fully or in part, by hand or by an auto rule), settled
//!   once and re-settled with compensating events when a result is
//!   corrected (invariant 4).
//!
//! The numeric enums travel as their spec numbers (bet type 1..4, accept
//! mode -1..2, status -5..5).

mod aggregate;
pub mod arith;
#[cfg(test)]
mod arith_tests;
mod cashout;
#[cfg(test)]
mod cashout_tests;
mod commands;
mod events;
pub mod fixtures;
mod model;
mod request_id;
mod settle;
#[cfg(test)]
mod settle_tests;
mod slip;
#[cfg(test)]
mod slip_tests;
pub mod stats;
#[cfg(test)]
mod tests;

pub use aggregate::{Bet, Placement};
pub use arith::{better_odds, combination_count, place_odds};
pub use cashout::{
    at_one_place, auto_cashout_bounds, auto_cashout_due, cash_out_offered, cashout_amount, reprice,
    running_bet, stake_part, AcceptedTerms, AutoCashout, CounterOffer, AUTO_MAX_FACTOR,
    AUTO_MIN_FACTOR, CASHOUT_MARGIN, CASHOUT_PLACES,
};
pub use commands::BetCommand;
pub use events::BetEvent;
pub use model::{
    BetLimits, BetRefusal, BetRequest, Leg, LegNames, Pick, PriceChange, Quote, ValidBet,
    EXPRESS_ODDS_LIMIT, EXPRESS_ODDS_LIMIT_HIGH, MAX_COMBINATIONS, MAX_SELECTIONS, SP_PRICE,
};
pub use request_id::{RequestId, REQUEST_ID_MAX};
pub use settle::{
    outcome_factor, settle, status_of, BetSettlement, ExpressBonus, LegResults, MAX_LINE_ODDS,
};
pub use slip::{combinations, validate};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::Code;

macro_rules! wire_enum {
    ($(#[$meta:meta])* $name:ident : $repr:ty, $what:literal { $($(#[$vmeta:meta])* $variant:ident = $code:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(try_from = $what, into = $what)]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The spec's number.
            pub fn code(self) -> $repr {
                match self {
                    $($name::$variant => $code),+
                }
            }
        }

        impl From<$name> for $repr {
            fn from(value: $name) -> $repr {
                value.code()
            }
        }

        impl TryFrom<$repr> for $name {
            type Error = String;

            fn try_from(code: $repr) -> Result<Self, Self::Error> {
                match code {
                    $($code => Ok($name::$variant),)+
                    other => Err(format!(concat!("unknown ", stringify!($name), " {}"), other)),
                }
            }
        }
    };
}

wire_enum! {
    /// Bet type (spec 000 section 3).
    BetType: u8, "u8" {
        Single = 1,
        Express = 2,
        System = 3,
        Chain = 4,
    }
}

wire_enum! {
    /// How the member accepts price changes between the slip and placement
    /// (`mode` of `do_bet`).
    AcceptMode: i8, "i8" {
        /// -1: a super bet: no price change accepted, but a stake above the
        /// limits goes to support for approval instead of being refused.
        SuperBet = -1,
        /// 0: refuse on any change.
        NoChanges = 0,
        /// 1: accept higher prices only.
        Higher = 1,
        /// 2: accept any price or base.
        Any = 2,
    }
}

wire_enum! {
    /// Bet status (spec 000 section 3).
    #[derive(Default)]
    BetStatus: i8, "i8" {
        OnHold = -5,
        Declined = -4,
        #[default]
        Unsettled = 0,
        Lost = 1,
        Returned = 2,
        Won = 3,
        CashedOut = 5,
    }
}

impl BetType {
    /// Fewest selections the type takes.
    pub fn min_events(self) -> usize {
        match self {
            BetType::Single => 1,
            BetType::Express | BetType::Chain => 2,
            BetType::System => 3,
        }
    }
}

/// Why a command on a Bet was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BetError {
    #[error("Unknown bet")]
    NotPlaced,
    #[error("This bet cannot be changed now.")]
    AlreadyPlaced,
    #[error("This bet cannot be changed now.")]
    NotOnHold,
    #[error("This bet cannot be changed now.")]
    AlreadySettled,
    #[error("This bet cannot be changed now.")]
    NotOpen,
    /// Not cashable now: not open (on hold, declined, settled, fully cashed
    /// out), no cash-out flag (type other than 1 and 2, SP, each-way), or
    /// a cash-out by a rule the bet no longer has.
    #[error("The current game cannot be settled in advance!")]
    NotAvailable,
    /// The cash-out amount moved since the client computed it, or the
    /// partial amount is above it: `new_price` is the current amount.
    #[error("Cannot cash out")]
    PriceChanged { new_price: Decimal },
    /// The cash-out was quoted on a remaining stake the bet no longer has
    /// (another cash-out of it committed meanwhile): the amount must be
    /// quoted again on the stake that is left.
    #[error("Cannot cash out")]
    StaleQuote,
    /// An amount that is not positive, not at the currency's precision or
    /// above what it may be (a counter-offer stake above the stake asked
    /// for, an offer with neither stake nor price).
    #[error("Wrong amount")]
    WrongAmount,
    /// An auto cash-out rule outside its bounds (`min..=max` for the
    /// trigger; the partial amount above the trigger or not positive).
    #[error("Wrong amount")]
    WrongAutoCashout { min: Decimal, max: Decimal },
    /// A counter-offer price not above 1, with more than 3 places, or on a
    /// bet other than a single on a fixed price.
    #[error("Wrong coefficient")]
    WrongCoefficient,
    /// The member answers a counter offer that is not pending.
    #[error("No counter offer to answer")]
    NoCounterOffer,
    /// Support acts on a bet whose counter offer awaits the member.
    #[error("This bet cannot be changed now.")]
    CounterOfferPending,
    /// A support decision that needs a reason has none.
    #[error("Invalid request parameters: a reason is required")]
    ReasonRequired,
}

impl BetError {
    pub fn code(&self) -> Code {
        match self {
            BetError::NotPlaced => Code::UNKNOWN_BET,
            BetError::PriceChanged { .. } | BetError::StaleQuote => Code::ODDS_CHANGED,
            BetError::WrongAmount | BetError::WrongAutoCashout { .. } => Code::WRONG_AMOUNT,
            BetError::WrongCoefficient => Code::WRONG_COEFFICIENT,
            // The back office reads 1027 as "not on hold" (contract).
            BetError::NotOnHold | BetError::NoCounterOffer | BetError::CounterOfferPending => {
                Code::NO_COUNTER_OFFER
            }
            BetError::ReasonRequired => Code::BAD_PARAMETERS,
            BetError::AlreadyPlaced
            | BetError::AlreadySettled
            | BetError::NotOpen
            | BetError::NotAvailable => Code::BET_STATE,
        }
    }
}
