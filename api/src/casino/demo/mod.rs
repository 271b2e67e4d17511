//! The built-in demo game provider: a STAND-IN for an outside game
//! provider, labelled as such in the client and the docs. It runs inside
//! the server process but reaches the platform only as an outside provider
//! would: over HTTP, through the seamless wallet API, signing with its own
//! key pair (`[casino.providers.demo]`) and checking the platform's
//! signatures. Its own state (play money, roulette rounds and bets, its
//! outbox) lives in its own tables, so every api process can serve it.
//!
//! Games: a slot (`slot`, maths in `domain::casino::slot`) and a live-style
//! roulette table (`roulette`: a round every 30 s shared by every player at
//! the table). Fun mode plays with play money, view mode only watches.
//!
//! Layout
//! - `client`: signed wallet calls, injected faults for tests.
//! - `play`: bets, wins and rollbacks with the providers' retry policy.
//! - `slot`, `roulette`: the games' HTTP endpoints.
//! - `page`: the game page the launch frame opens.

pub mod client;
pub mod page;
pub mod play;
pub mod roulette;
pub mod slot;

use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use commands::platform::clock::SharedClock;
use rand::SeedableRng;
use rust_decimal::Decimal;

use crate::app::AppState;
use crate::casino::signing::{Signer256, Verifier256};
use crate::config::Config;
use client::WalletClient;

pub const ROULETTE_LEASE: &str = "casino_demo_roulette";

pub struct DemoProvider {
    pub client: WalletClient,
    pub pool: sqlx::AnyPool,
    pub clock: SharedClock,
    pub rng: Mutex<rand::rngs::StdRng>,
    pub seed: u64,
    pub retries: u32,
    pub fun_balance: Decimal,
    pub round_ms: i64,
    /// False when `[casino.providers.demo]` has no private key.
    pub enabled: bool,
}

impl DemoProvider {
    pub fn new(config: &Config, pool: sqlx::AnyPool, clock: SharedClock) -> anyhow::Result<Self> {
        let settings = config
            .casino
            .providers
            .get("demo")
            .cloned()
            .unwrap_or_default();
        let enabled = !settings.private_key.trim().is_empty();
        let signer = if enabled {
            Signer256::from_pem(&settings.private_key)
                .context("[casino.providers.demo] private_key")?
        } else {
            // Never used: calls refuse while disabled.
            Signer256::from_pem(&config.casino.platform_private_key)
                .context("[casino] platform_private_key (the demo provider has no key)")?
        };
        let verifier = if config.casino.platform_public_key.trim().is_empty() {
            None
        } else {
            Some(
                Verifier256::from_pem(&config.casino.platform_public_key)
                    .context("[casino] platform_public_key")?,
            )
        };
        Ok(Self {
            client: WalletClient {
                configured: settings.wallet_url.clone(),
                own: OnceLock::new(),
                signer,
                verifier,
                timeout: Duration::from_millis(settings.call_timeout_ms.max(50)),
                faults: Default::default(),
            },
            pool,
            clock,
            rng: Mutex::new(rand::rngs::StdRng::seed_from_u64(settings.seed)),
            seed: settings.seed,
            retries: settings.retries,
            fun_balance: settings
                .fun_balance
                .parse()
                .unwrap_or(Decimal::new(2000, 0)),
            round_ms: (settings.roulette_round_seconds.max(5) * 1000) as i64,
            enabled,
        })
    }

    /// This process's address, for a wallet URL left empty.
    pub fn serving_at(&self, addr: std::net::SocketAddr) {
        let _ = self.client.own.set(addr);
    }

    /// The background work: settle roulette rounds and resend the outbox,
    /// under a lease (one process at a time).
    pub async fn run(
        self: Arc<Self>,
        lease: commands::platform::lease::Lease,
        stop: tokio::sync::watch::Receiver<bool>,
    ) {
        commands::platform::lease::run_leased(lease, Duration::from_millis(1000), stop, || {
            let me = self.clone();
            async move { me.pass().await }
        })
        .await
    }

    pub async fn pass(&self) -> Result<(), PassError> {
        if !self.enabled {
            return Ok(());
        }
        self.settle_due().await?;
        self.resend_pending().await?;
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum PassError {
    #[error("{0}")]
    Lease(#[from] commands::platform::lease::LeaseError),
    #[error("database: {0}")]
    Store(#[from] sqlx::Error),
}

/// The demo provider's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    let mut doc = page::doc();
    doc.merge(roulette::doc());
    doc.merge(slot::doc());
    doc
}

pub fn router() -> Router<AppState> {
    slot::router()
        .merge(roulette::router())
        .merge(page::router())
}
