//! Application services and process managers, in rooms by area. They
//! decide through the `store` crate: a command that commits goes through
//! its unit of work (`store::unit`), or, for one aggregate alone, through
//! its `Framework`. Background loops (settlement, auto cash-out, season
//! progress, promotions' jobs) run under a lease.
//!
//! Layout
//! - `sportsbook/`: bets, bookings, cash-out and counter offers, free bets,
//!   the live market state and the odds feed, settlement, the results desk.
//! - `accounts/`: members (registration, login, recovery, profile), their
//!   sessions, verification codes and captchas, back-office staff.
//! - `payments/`: deposits, the provider port and sandbox, withdrawals,
//!   bank cards, game-wallet transfers, payment reports.
//! - `casino/`: the casino catalogue, launch tokens and the seamless wallet.
//! - `compliance/`: safer gambling (limits, time-out, self-exclusion,
//!   reality check), identity checks and statements.
//! - `engagement/`: VIP, seasons, promotions, the inbox, content and
//!   notifications.
//! - `platform/`: what every area shares across processes (clock, ids,
//!   leases, nodes, request guards, rate limits, Swarm long-poll sessions).
//! - `wallet`: the wallet service, and `move_in`, a wallet move added to a
//!   unit of work.

pub mod accounts;
pub mod casino;
pub mod compliance;
pub mod engagement;
pub mod payments;
pub mod platform;
pub mod sportsbook;
pub mod wallet;

pub use wallet::WalletService;
