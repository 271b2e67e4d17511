//! The HTTP edge of the platform: transport, protocol, auth and routing,
//! no business rules (those are in `domain`, run by `commands`, read through
//! `projections`).
//!
//! Layout
//! - `config`: `config/default.toml` plus the environment.
//! - `app`: wiring of store, services, projection runner and router.
//! - `client_ip`: the client's address (socket peer, or X-Forwarded-For
//!   from a trusted proxy only) for rate limits and logs.
//! - `routes/`: one router per area (`health`, `dev`, `web`).
//! - `bounds`: body size, timeout, catch-panic and 405 on every route.
//! - `error`: the single mapping of failures to `{status, msg}` answers.
//! - `metrics`: HTTP metrics and the `/metrics` endpoint.
//! - `bench`: `api bench wallet`.

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
