//! Pure rules of the betting platform: money, the error catalogue and the
//! aggregates. Nothing here does I/O, owns a runtime or touches a database;
//! the `commands` crate runs these aggregates against an event store and the
//! `projections` crate folds their events into read models.
//!
//! Layout
//! - `money`: currencies, per-currency rounding, amount parsing.
//! - `errors`: the spec's numeric error catalogue and its messages.
//! - `freebet`: the caps and the reason a staff grant of a free bet needs.
//! - `account/`: registration rules per market (newtypes that parse),
//!   the Account aggregate (login failures, locks, trusted devices, profile).
//! - `wallet/`: the Wallet aggregate (balances, stake reservations,
//!   idempotent transaction references), its commands, events and tests.
//! - `catalogue/`: the sportsbook tree (sport > region > competition >
//!   game > market > event), market tabs, quarter lines, sport search.
//! - `odds`: odds formats (decimal, fractional with a ladder, american,
//!   hongkong, malay, indo); vectors shared with the client in testdata/.
//! - `bet/`: placement rules (`slip`), settlement (`settle`) and the Bet
//!   aggregate (placed, held, declined, settled, re-settled on corrections).
//! - `payment/`: the Deposit and Withdrawal aggregates, bank-card and
//!   USDT rules, amount limits and the payment codes.
//! - `swarm/`: the pure core of the Swarm-style data protocol: request
//!   envelope, `get` queries run against the catalogue, push diffs.
//! - `promo/`: promotions (sign-in, tasks, prize draw, shop, campaigns,
//!   referrals).
//! - `content`: notices, banners, covers, popups, news and help pages, campaign
//!   segments, and which events write a message to the inbox.
//! - `casino/`: the seamless-wallet vocabulary, the CasinoRound aggregate,
//!   launch-mode rules and the demo games' mathematics.
//! - `result`: game results recorded as events; how each selection ended.
//! - `safer/`: safer gambling: the SaferGambling aggregate (deposit, loss
//!   and stake limits with their cooling-off, time-out, self-exclusion,
//!   reality check) and the market's calendar.
//! - `season`: the season calendar, the Season and SeasonTask aggregates,
//!   rank rewards.
//! - `staff`: back-office roles and the one permission table.
//! - `vip`: VIP levels, valid turnover, rebates, salary and gifts.

pub mod account;
pub mod bet;
pub mod casino;
pub mod catalogue;
pub mod content;
pub mod errors;
pub mod freebet;
pub mod money;
pub mod odds;
pub mod payment;
pub mod promo;
pub mod result;
pub mod safer;
pub mod season;
pub mod staff;
pub mod swarm;
pub mod vip;
pub mod wallet;

pub use errors::Code;
pub use money::Currency;
