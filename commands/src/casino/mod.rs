//! The casino: its catalogue, launch tokens and the seamless wallet that
//! game providers call.
//!
//! Layout
//! - `catalogue`: providers, categories and games (tables, JSON import,
//!   staff edits), favourites and search.
//! - `tokens`: launch tokens bound to member, game and currency.
//! - `seamless`: the Hub88-shaped wallet transactions, each decided on a
//!   CasinoRound and committed with its wallet movement and its
//!   transaction id's claim in one transaction (exactly once).

pub mod catalogue;
pub mod seamless;
pub mod tokens;

pub use catalogue::{Catalogue, Game};
pub use seamless::{Seamless, TxCall, WalletAnswer};
pub use tokens::{LaunchToken, Tokens};
