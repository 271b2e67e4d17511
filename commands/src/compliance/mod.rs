//! Compliance: what a licence asks of the platform.
//!
//! - `reality`: the reality-check job (a /ws notice at each interval).
//! - `safer`: safer gambling: the member's limits, time-out,
//!   self-exclusion and reality check, and the checks every path that takes
//!   money in or stakes it decides in its unit of work.
//! - `statements`: a member's statement of deposits, withdrawals, stakes
//!   and returns as CSV.

pub mod reality;
pub mod safer;
pub mod statements;
