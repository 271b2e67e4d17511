//! The HTTP edge of the platform: transport, protocol, auth and routing,
//! no business rules (those are in `domain`, run by `commands`, read through
//! `projections`).
//!
//! Layout
//! - `config`, `seasons_config`: `config/default.toml` plus the environment.
//! - `app`: wiring of store, services, projection runner and router.
//! - `secrets`: the shared server secrets (app-token key, login RSA key).
//! - `transport/`: the main API's request layer (headers, Sign, AES).
//! - `routes/`: one router per area of the main API and the back office.
//! - `swarm/`: the Swarm-style sportsbook data protocol at `/swarm`.
//! - `betting`, `bookings`: bets, cash-outs and booking ids on the wire.
//! - `casino/`: the casino's member calls, the seamless wallet providers
//!   call, and the demo game provider (a stand-in).
//! - `realtime`: notifications at `/ws`.
//! - `captcha`: the login and registration image code.
//! - `client_ip`: the client's address (socket peer, or X-Forwarded-For
//!   from a trusted proxy only) for rate limits and logs.
//! - `bounds`: body size, timeout, catch-panic and 405 on every route.
//! - `error`: the mapping of failures to `{status, msg}` answers.
//! - `observability`: request ids and log spans.
//! - `metrics`, `business_metrics`: `/metrics`.
//! - `openapi`: the OpenAPI description from the handlers' annotations.
//! - `payments_jobs`: the payments' background passes under leases.
//! - `audit`, `audit_cli`: a bet's audit trail, `api audit ...` commands.
//! - `bench`, `bench_bets`, `bench_casino`, `bench_rebuild`, `bench_swarm`:
//!   the `api bench ...` commands (BENCHMARKS.md).

pub mod app;
pub mod audit;
pub mod audit_cli;
pub mod bench;
pub mod bench_bets;
pub mod bench_casino;
pub mod bench_rebuild;
pub mod bench_swarm;
pub mod betting;
pub mod bookings;
pub mod bounds;
pub mod business_metrics;
pub mod captcha;
pub mod casino;
pub mod client_ip;
pub mod config;
pub mod error;
pub mod metrics;
pub mod observability;
pub mod openapi;
pub mod payments_jobs;
pub mod realtime;
pub mod routes;
pub mod seasons_config;
pub mod secrets;
pub mod swarm;
pub mod transport;
