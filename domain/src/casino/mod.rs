//! The casino's pure rules: the seamless-wallet vocabulary (Hub88's
//! operator wallet API: statuses and integer amounts), the CasinoRound
//! aggregate that every provider transaction is decided on, the launch-mode
//! rules of spec 001 section 4, and the demo games' mathematics.
//!
//! Layout
//! - `wire`: RS_* statuses and amounts in units of 1/100,000.
//! - `round/`: the CasinoRound aggregate (opened, bets, wins, rollbacks,
//!   closed) and its `CasinoRoundClosed` event the VIP read models use.
//! - `launch`: which mode a launch request gets (real, fun, view, login).
//! - `slot`: the demo slot (reels, paytable, return to player).
//! - `roulette`: the demo live table (European single-zero roulette).

pub mod launch;
pub mod roulette;
pub mod round;
pub mod slot;
pub mod wire;

pub use round::{CasinoRound, RoundCommand, RoundError, RoundEvent, TxKind, TxRequest};
pub use wire::{Status, UNITS_PER_CURRENCY_UNIT};
