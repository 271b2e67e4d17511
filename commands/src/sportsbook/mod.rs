//! The sportsbook: bets and what happens to them.
//!
//! Layout
//! - `bets`: bet placement (singles, expresses, systems, free bets, super
//!   bets) and its recovery.
//! - `together`: a Bet and its wallet moves in one unit of work.
//! - `bookings`: booking ids (a betslip saved under a short id).
//! - `cashout`: cash-outs, auto cash-out rules and counter offers.
//! - `autocashout`: the watcher that fires auto cash-out rules.
//! - `freebets`: free bets granted by support.
//! - `live`: the live market state the feed keeps and the Swarm hub reads.
//! - `feed/`: the odds feed port, its sports tables, the simulator stand-in
//!   and the JSON fixture importer.
//! - `settlement`: the result -> bet -> wallet process manager.
//! - `shortfalls`: corrections a member could not cover (support queue).
//! - `desk`: the results desk (staff result entry, corrections, voids).
//! - `unresulted`: the scheduled void of selections that never got a result.

pub mod autocashout;
pub mod bets;
pub mod bookings;
pub mod cashout;
pub mod desk;
pub mod feed;
pub mod freebets;
pub mod live;
pub mod settlement;
pub mod shortfalls;
pub mod together;
pub mod unresulted;
