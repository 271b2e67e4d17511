//! The pure core of the Swarm-style sportsbook data protocol (DESIGN wire
//! contract, spec 000 section 7.3): reading requests, running `get`
//! queries against the `Catalogue`, and the diffs pushed to subscribers.
//! Sessions, sockets, long polling and fan-out live in `api`; everything
//! here is a function of its inputs, so the api can run a subscription's
//! query after each catalogue change and push `diff(previous, current)`.
//!
//! Layout
//! - `protocol`: request / answer / push envelopes, codes, `parse_request`.
//! - `query`: `what` / `where` parsing into a `Query`, `QueryError`.
//! - `schema`: the fields of each level and their kinds.
//! - `run`: answering a `Query` from the catalogue (the nested shape).
//! - `diff`: `diff` and `merge` of answers.

mod diff;
mod protocol;
mod query;
mod run;
mod schema;
#[cfg(test)]
mod tests;

pub use diff::{diff, merge};
pub use protocol::{
    parse_request, Answer, Command, ProtocolError, ProtocolErrorKind, Request,
    RequestSessionParams, RestoreLoginParams, Rid, Subscribed, UnsubscribeParams, INVALID_COMMAND,
    INVALID_PARAMS, LIMIT_REACHED, NOT_LOGGED_IN, OK, SESSION_LOST,
};
pub use query::{GetRequest, Query, QueryError, Selection, MAX_QUERY_TERMS};
pub use run::run;
pub use schema::{fields, Kind};
