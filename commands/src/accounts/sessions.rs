//! Member sessions: random tokens (256 bits) of which only SHA-256 hashes
//! are stored. `auth_token` authenticates calls (`UserToken`, Swarm
//! `restore_login`); `session` is the client's session id.

use rand::Rng;
use sha2::{Digest, Sha256};
use sqlx::{AnyPool, Row};

use crate::platform::clock::SharedClock;

/// Spec 000 section 9: session lifetime.
pub const SESSION_LIFETIME_MS: i64 = 600_000;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Issued {
    pub auth_token: String,
    pub session: String,
    pub user_id: String,
    pub expires: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authenticated {
    pub user_id: String,
    pub device_id: String,
    pub expires: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// Unknown, ended or expired: the member must log in again (-601).
    #[error("Sorry, your login status has expired, please log in again")]
    Expired,
    #[error("database: {0}")]
    Store(String),
}

impl From<sqlx::Error> for SessionError {
    fn from(e: sqlx::Error) -> Self {
        SessionError::Store(e.to_string())
    }
}

pub(crate) fn token() -> String {
    let bytes: [u8; 32] = rand::rng().random();
    hex::encode(bytes)
}

pub(crate) fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

pub struct Sessions {
    pool: AnyPool,
    clock: SharedClock,
    lifetime_ms: i64,
}

impl Sessions {
    pub fn new(pool: AnyPool, clock: SharedClock, lifetime_ms: i64) -> Self {
        Self {
            pool,
            clock,
            lifetime_ms,
        }
    }

    pub fn lifetime_ms(&self) -> i64 {
        self.lifetime_ms
    }

    /// A new session for `user_id` on `device_id`, living `lifetime_ms`.
    pub async fn open(
        &self,
        user_id: &str,
        device_id: &str,
        lifetime_ms: Option<i64>,
    ) -> Result<Issued, SessionError> {
        let now = self.clock.now_ms();
        // Ended sessions of this member are of no use to anyone.
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND expires_ms < $2")
            .bind(user_id)
            .bind(now)
            .execute(&self.pool)
            .await?;
        let issued = Issued {
            auth_token: token(),
            session: token(),
            user_id: user_id.to_string(),
            expires: now + lifetime_ms.unwrap_or(self.lifetime_ms),
        };
        sqlx::query(
            "INSERT INTO sessions (token_hash, session_hash, user_id, device_id, created_ms, expires_ms)
             VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(hash(&issued.auth_token))
        .bind(hash(&issued.session))
        .bind(user_id)
        .bind(device_id)
        .bind(now)
        .bind(issued.expires)
        .execute(&self.pool)
        .await?;
        Ok(issued)
    }

    /// Who holds `auth_token`, if the session is still alive.
    pub async fn authenticate(&self, auth_token: &str) -> Result<Authenticated, SessionError> {
        self.authenticate_hashed(&token_hash(auth_token)).await
    }

    /// As `authenticate`, with the token's hash (`token_hash`): what a
    /// Swarm session keeps, so no live token is stored at rest.
    pub async fn authenticate_hashed(&self, hashed: &str) -> Result<Authenticated, SessionError> {
        let row = sqlx::query(
            "SELECT user_id, device_id, expires_ms FROM sessions WHERE token_hash = $1",
        )
        .bind(hashed)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(SessionError::Expired)?;
        let found = Authenticated {
            user_id: row.try_get("user_id")?,
            device_id: row.try_get("device_id")?,
            expires: row.try_get("expires_ms")?,
        };
        if found.expires <= self.clock.now_ms() {
            return Err(SessionError::Expired);
        }
        Ok(found)
    }

    /// Extends a live session by a full lifetime; returns the new expiry.
    pub async fn renew(&self, auth_token: &str) -> Result<i64, SessionError> {
        let now = self.clock.now_ms();
        let expires = now + self.lifetime_ms;
        let renewed = sqlx::query(
            "UPDATE sessions SET expires_ms = $2 WHERE token_hash = $1 AND expires_ms > $3",
        )
        .bind(hash(auth_token.trim()))
        .bind(expires)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if renewed.rows_affected() == 1 {
            Ok(expires)
        } else {
            Err(SessionError::Expired)
        }
    }

    pub async fn close(&self, auth_token: &str) -> Result<(), SessionError> {
        sqlx::query("DELETE FROM sessions WHERE token_hash = $1")
            .bind(hash(auth_token.trim()))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends every session of a member (password reset, staff lock).
    pub async fn close_all(&self, user_id: &str) -> Result<(), SessionError> {
        sqlx::query("DELETE FROM sessions WHERE user_id = $1")
            .bind(user_id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Ends every session of a member but the one of `keep_token` (a login
    /// password changed from that session). Sessions live in the shared
    /// database, so they end for every process at once.
    pub async fn close_others(&self, user_id: &str, keep_token: &str) -> Result<(), SessionError> {
        sqlx::query("DELETE FROM sessions WHERE user_id = $1 AND token_hash <> $2")
            .bind(user_id)
            .bind(token_hash(keep_token))
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

/// The stored form of a session token (SHA-256, hex).
/// A fresh random token (256 bits, hex), as sessions use.
pub fn random_token() -> String {
    token()
}

pub fn token_hash(auth_token: &str) -> String {
    hash(auth_token.trim())
}
