//! `[casino]` in config/default.toml (docs/casino.md).

use std::collections::BTreeMap;

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct CasinoConfig {
    pub token_lifetime_ms: i64,
    pub catalogue_file: String,
    /// Signs the seamless wallet's answers (PEM, PKCS#8).
    pub platform_private_key: String,
    /// Handed to providers so they can check our answers (PEM).
    pub platform_public_key: String,
    pub providers: BTreeMap<String, ProviderConfig>,
}

impl Default for CasinoConfig {
    fn default() -> Self {
        Self {
            token_lifetime_ms: 4 * 3_600_000,
            catalogue_file: "config/casino/catalogue.json".into(),
            platform_private_key: String::new(),
            platform_public_key: String::new(),
            providers: BTreeMap::new(),
        }
    }
}

/// `[casino.providers.<name>]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct ProviderConfig {
    /// Verifies the provider's `X-Hub88-Signature` (PEM).
    pub public_key: String,
    /// Only for the built-in demo provider (it signs with it).
    pub private_key: String,
    /// The seamless wallet the demo provider calls; empty: this process.
    pub wallet_url: String,
    /// Where a launched game opens (the provider's games URL); empty: the
    /// provider cannot be launched (maintenance).
    pub games_url: String,
    /// Fun-mode play money a new fun session starts with.
    pub fun_balance: String,
    pub roulette_round_seconds: u64,
    pub seed: u64,
    pub call_timeout_ms: u64,
    pub retries: u32,
}

impl Default for ProviderConfig {
    fn default() -> Self {
        Self {
            public_key: String::new(),
            private_key: String::new(),
            wallet_url: String::new(),
            games_url: String::new(),
            fun_balance: "2000.00".into(),
            roulette_round_seconds: 30,
            seed: 1,
            call_timeout_ms: 3000,
            retries: 3,
        }
    }
}

impl CasinoConfig {
    pub fn apply_env(&mut self, var: &impl Fn(&str) -> Option<String>) {
        if let Some(key) = var("CASINO_PLATFORM_PRIVATE_KEY") {
            self.platform_private_key = key;
        }
        if let Some(key) = var("CASINO_PLATFORM_PUBLIC_KEY") {
            self.platform_public_key = key;
        }
        let demo = self.providers.entry("demo".into()).or_default();
        if let Some(key) = var("CASINO_DEMO_PUBLIC_KEY") {
            demo.public_key = key;
        }
        if let Some(key) = var("CASINO_DEMO_PRIVATE_KEY") {
            demo.private_key = key;
        }
        if let Some(url) = var("CASINO_DEMO_WALLET_URL") {
            demo.wallet_url = url;
        }
    }
}
