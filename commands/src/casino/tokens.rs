//! Launch tokens (`casino_auth`): random 256-bit tokens, only SHA-256
//! hashes stored, bound to member, game, provider and currency, valid until
//! an expiry. The seamless wallet checks them on every call; bets need an
//! unexpired token, wins and rollbacks only a known one (they may come
//! after the session ended).

use domain::Currency;
use sqlx::{AnyPool, Row};

use crate::platform::clock::SharedClock;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchToken {
    pub member_id: String,
    pub game_id: i64,
    pub provider: String,
    pub currency: Currency,
    pub mode: String,
    pub expires_ms: i64,
}

pub struct Tokens {
    pool: AnyPool,
    clock: SharedClock,
    lifetime_ms: i64,
    /// Tokens never change once issued, so every process may keep what it
    /// read (bounded; cleared when full).
    seen: std::sync::Mutex<std::collections::HashMap<String, LaunchToken>>,
}

const SEEN_MAX: usize = 100_000;

impl Tokens {
    pub fn new(pool: AnyPool, clock: SharedClock, lifetime_ms: i64) -> Self {
        Self {
            pool,
            clock,
            lifetime_ms,
            seen: Default::default(),
        }
    }

    /// A new token for `member` on `game`; returns it and its expiry.
    pub async fn issue(
        &self,
        member_id: &str,
        game_id: i64,
        provider: &str,
        currency: Currency,
        mode: &str,
    ) -> Result<(String, i64), sqlx::Error> {
        let token = crate::accounts::sessions::random_token();
        let now = self.clock.now_ms();
        let expires = now + self.lifetime_ms;
        sqlx::query(
            "INSERT INTO casino_tokens (token_hash, member_id, game_id, provider, currency, mode, created_ms, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(crate::accounts::sessions::token_hash(&token))
        .bind(member_id)
        .bind(game_id)
        .bind(provider)
        .bind(currency.code())
        .bind(mode)
        .bind(now)
        .bind(expires)
        .execute(&self.pool)
        .await?;
        // Expired tokens older than a day go, a few at a time.
        sqlx::query("DELETE FROM casino_tokens WHERE token_hash IN (SELECT token_hash FROM casino_tokens WHERE expires_ms < $1 LIMIT 20)")
            .bind(now - 86_400_000)
            .execute(&self.pool)
            .await?;
        Ok((token, expires))
    }

    /// The token's binding, expired or not; `None` when unknown.
    pub async fn find(&self, token: &str) -> Result<Option<LaunchToken>, sqlx::Error> {
        if token.is_empty() || token.len() > 128 {
            return Ok(None);
        }
        let hash = crate::accounts::sessions::token_hash(token);
        if let Some(found) = self
            .seen
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&hash)
        {
            return Ok(Some(found.clone()));
        }
        let row = sqlx::query(
            "SELECT member_id, game_id, provider, currency, mode, expires_ms FROM casino_tokens WHERE token_hash = $1",
        )
        .bind(&hash)
        .fetch_optional(&self.pool)
        .await?;
        let found = row.and_then(|r| {
            Some(LaunchToken {
                member_id: r.get("member_id"),
                game_id: r.get("game_id"),
                provider: r.get("provider"),
                currency: r.get::<String, _>("currency").parse().ok()?,
                mode: r.get("mode"),
                expires_ms: r.get("expires_ms"),
            })
        });
        if let Some(token) = &found {
            let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
            if seen.len() >= SEEN_MAX {
                seen.clear();
            }
            seen.insert(hash, token.clone());
        }
        Ok(found)
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }
}
