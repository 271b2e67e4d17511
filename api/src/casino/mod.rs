//! The casino on the wire: the member calls of spec 001 section 7.5
//! (catalogue, favourites, search, launch), the seamless wallet providers
//! call, the back office's catalogue editing, generated demo icons, and the
//! built-in demo game provider (a stand-in for an outside provider, which
//! reaches the platform only over HTTP through the seamless wallet).
//!
//! Layout
//! - `config`: `[casino]` and `[casino.providers.<name>]`.
//! - `signing`: `X-Hub88-Signature` (RSA-SHA256, PKCS#1 v1.5).
//! - `wallet_api`: `/api/wallet/{provider}/...` (Hub88 operator wallet API).
//! - `routes`: thirdgamelist, thirdgamefavorite, search, thirdgameshowctl,
//!   casino_auth, casino_game_url, gamelogin, gencatgametoken, getnewbstoken.
//! - `backoffice`: `/api/backoffice/casino/*` (admin).
//! - `icons`: generated placeholder art, labelled as demo art.
//! - `demo/`: the demo provider (slot and live roulette).

pub mod backoffice;
pub mod config;
pub mod demo;
pub mod icons;
pub mod routes;
pub mod signing;
pub mod wallet_api;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use axum::Router;
use commands::casino::{Catalogue, Seamless, Tokens};
use commands::platform::clock::SharedClock;
use commands::WalletService;
use store::{CommandMetrics, Db, RetryPolicy, StoreOptions};

use crate::app::AppState;
use crate::config::Config;
use crate::transport::Transport;
use signing::{Signer256, Verifier256};

pub struct Casino {
    pub seamless: Arc<Seamless>,
    pub catalogue: Arc<Catalogue>,
    pub tokens: Arc<Tokens>,
    /// Each provider's public key (its requests' signatures).
    pub verifiers: HashMap<String, Verifier256>,
    /// Signs our answers.
    pub signer: Option<Signer256>,
    pub demo: Arc<demo::DemoProvider>,
}

/// Where the catalogue file is: as configured, or beside the workspace
/// (tests run from `api/`).
fn catalogue_path(configured: &str) -> PathBuf {
    let path = PathBuf::from(configured);
    if path.is_absolute() || path.exists() {
        return path;
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(configured)
}

impl Casino {
    #[allow(clippy::too_many_arguments)]
    pub async fn new(
        config: &Config,
        db: &Db,
        store: StoreOptions,
        retry: RetryPolicy,
        metrics: CommandMetrics,
        on_commit: Arc<tokio::sync::Notify>,
        wallets: Arc<WalletService>,
        accounts: Arc<commands::accounts::AccountService>,
        clock: SharedClock,
        safer: Arc<commands::compliance::safer::Safeguards>,
    ) -> anyhow::Result<Self> {
        let casino = &config.casino;
        let catalogue = Arc::new(Catalogue::new(db.any.clone()));
        let imported = catalogue
            .import_if_empty(&catalogue_path(&casino.catalogue_file))
            .await
            .map_err(|e| anyhow::anyhow!(e))?;
        if imported > 0 {
            tracing::info!(games = imported, "casino catalogue imported");
        }
        let tokens = Arc::new(Tokens::new(
            db.any.clone(),
            clock.clone(),
            casino.token_lifetime_ms.max(60_000),
        ));
        let seamless = Arc::new(Seamless::new(
            db,
            store,
            retry,
            metrics,
            Some(on_commit),
            wallets,
            accounts,
            tokens.clone(),
            catalogue.clone(),
            clock.clone(),
            safer,
        ));
        let mut verifiers = HashMap::new();
        for (name, provider) in &casino.providers {
            if provider.public_key.trim().is_empty() {
                continue;
            }
            let verifier = Verifier256::from_pem(&provider.public_key)
                .with_context(|| format!("[casino.providers.{name}] public_key"))?;
            verifiers.insert(name.clone(), verifier);
        }
        let signer = if casino.platform_private_key.trim().is_empty() {
            None
        } else {
            Some(
                Signer256::from_pem(&casino.platform_private_key)
                    .context("[casino] platform_private_key")?,
            )
        };
        let demo = Arc::new(demo::DemoProvider::new(config, db.any.clone(), clock)?);
        Ok(Self {
            seamless,
            catalogue,
            tokens,
            verifiers,
            signer,
            demo,
        })
    }
}

/// Every casino route; the member calls go through the request layer.
/// The casino's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    let mut doc = routes::doc();
    doc.merge(backoffice::doc());
    doc.merge(wallet_api::doc());
    doc.merge(icons::doc());
    doc.merge(demo::doc());
    doc
}

pub fn router(transport: Arc<Transport>) -> Router<AppState> {
    let layered = routes::router().layer(axum::middleware::from_fn_with_state(
        transport,
        crate::transport::layer,
    ));
    layered
        .merge(wallet_api::router())
        .merge(backoffice::router())
        .merge(icons::router())
        .merge(demo::router())
}
