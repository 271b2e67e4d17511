//! Application services and process managers (result -> settlement ->
//! wallet, auto cash-out) that background loops run under a lease. They
//! decide through the `store` crate: a command that commits goes through
//! its unit of work (`store::unit`), or, for one aggregate alone, through
//! its `Framework`.
//!
//! Layout
//! - `wallet`: the wallet service, and `move_in`, a wallet move added to a
//!   unit of work.
//! - `together`: a Bet and its wallet moves in one unit of work.
//! - `bookings`: booking ids (a betslip saved under a short id).
//! - `metrics`: command counters for `/metrics`.
//! - `lease`: which process runs a background job's pass (`leases` table).
//! - `settlement`: the settlement and placement-recovery process managers.
//! - `autocashout`: the auto cash-out watcher.
//! - `shortfalls`: corrections a member could not cover (support queue).
//! - `desk`: the results desk (staff result entry, correction and voids).
//! - `unresulted`: the scheduled void of selections that never got a result.
//! - `casino/`: the casino catalogue, launch tokens and the seamless wallet.
//! - `inbox`: the member inbox and the process manager that writes it from
//!   payment, claim and reward events (exactly once per source event).
//! - `content`: notices, banners, covers, popups, news, help pages and
//!   campaign messages to segments, with an audit row per staff change.
//! - `payments/`: deposits, the provider port and sandbox, withdrawals,
//!   bank cards, game-wallet transfers, payment reports.

pub mod accounts;
pub mod autocashout;
pub mod bets;
pub mod bookings;
pub mod cashout;
pub mod casino;
pub mod clock;
pub mod codes;
pub mod content;
pub mod desk;
pub mod freebets;
pub mod guards;
pub mod ids;
pub mod inbox;
pub mod lease;
pub mod limits;
pub mod live;
pub mod nodes;
pub mod notify;
pub mod payments;
pub mod promo;
pub mod seasons;
pub mod sessions;
pub mod settlement;
pub mod shortfalls;
pub mod staff;
pub mod swarm_polls;
pub mod together;
pub mod unresulted;
pub mod vip;
pub mod wallet;

pub use wallet::WalletService;
pub mod feed;
