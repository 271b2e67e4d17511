//! Verification codes (SMS / e-mail) and image captchas.
//!
//! Codes go out through a `Sender` port; the built-in stand-in, `Outbox`,
//! writes them to the `outbox` table, which tests and the development page
//! (`GET /api/dev/outbox`, DEMO=1) read. Only a hash of each code is kept
//! with its uid.

use std::sync::Arc;

use futures::future::BoxFuture;
use rand::Rng;
use sha2::{Digest, Sha256};
use sqlx::{AnyPool, Row};
use subtle::ConstantTimeEq;

use crate::platform::clock::SharedClock;

/// What a code is for (spec 001 section 4: send types).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeKind {
    Registration = 2,
    Reset = 5,
    Safety = 8,
    /// Not a send type: a passed security-question check
    /// (`user/questioncheck`), kept like a checked code so the member can
    /// hand its uid on (`user/loginpassedit`, docs/protocol.md).
    Question = 100,
}

impl CodeKind {
    pub fn from_type(t: i64) -> Option<Self> {
        match t {
            2 => Some(CodeKind::Registration),
            5 => Some(CodeKind::Reset),
            8 => Some(CodeKind::Safety),
            _ => None,
        }
    }
}

/// Where a code goes (valtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Phone = 1,
    Email = 2,
}

impl Channel {
    pub fn from_valtype(v: i64) -> Option<Self> {
        match v {
            1 => Some(Channel::Phone),
            2 => Some(Channel::Email),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Channel::Phone => "sms",
            Channel::Email => "email",
        }
    }
}

/// Resend is allowed this long after a send.
pub const RESEND_MS: i64 = 60_000;
/// A code is valid this long.
pub const CODE_LIFETIME_MS: i64 = 600_000;
/// A checked code may be used (register, reset) this long after the check.
pub const VERIFIED_LIFETIME_MS: i64 = 1_800_000;
/// Wrong tries before a code is spent.
pub const MAX_ATTEMPTS: i64 = 5;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    #[error("Too frequent, please try again in {wait} seconds")]
    ResendTooSoon { wait: i64 },
    #[error("too frequent")]
    NoPriorSend,
    #[error("code expired")]
    Expired,
    #[error("verification code does not match")]
    Mismatch,
    #[error("could not send the code: {0}")]
    Sending(String),
    #[error("database: {0}")]
    Store(String),
}

impl CodeError {
    pub fn code(&self) -> i32 {
        match self {
            CodeError::ResendTooSoon { .. } => -10201,
            CodeError::NoPriorSend => -10202,
            CodeError::Expired => 1009,
            CodeError::Mismatch => 21,
            CodeError::Sending(_) => -10203,
            CodeError::Store(_) => -1,
        }
    }
}

impl From<sqlx::Error> for CodeError {
    fn from(e: sqlx::Error) -> Self {
        CodeError::Store(e.to_string())
    }
}

/// The port to SMS and e-mail gateways.
pub trait Sender: Send + Sync {
    fn send<'a>(
        &'a self,
        channel: Channel,
        target: &'a str,
        code: &'a str,
        uid: &'a str,
        kind: CodeKind,
    ) -> BoxFuture<'a, Result<(), String>>;
}

/// Stand-in sender: the `outbox` table.
pub struct Outbox {
    pool: AnyPool,
    clock: SharedClock,
}

impl Outbox {
    pub fn new(pool: AnyPool, clock: SharedClock) -> Self {
        Self { pool, clock }
    }
}

impl Sender for Outbox {
    fn send<'a>(
        &'a self,
        channel: Channel,
        target: &'a str,
        code: &'a str,
        uid: &'a str,
        kind: CodeKind,
    ) -> BoxFuture<'a, Result<(), String>> {
        Box::pin(async move {
            record(
                &self.pool,
                channel.name(),
                target,
                code,
                uid,
                kind as i64,
                self.clock.now_ms(),
            )
            .await
            .map_err(|e| e.to_string())
        })
    }
}

async fn record(
    pool: &AnyPool,
    channel: &str,
    target: &str,
    code: &str,
    uid: &str,
    kind: i64,
    at_ms: i64,
) -> Result<(), sqlx::Error> {
    sqlx::query("INSERT INTO outbox (channel, target, code, uid, kind, at_ms) VALUES ($1, $2, $3, $4, $5, $6)")
        .bind(channel)
        .bind(target)
        .bind(code)
        .bind(uid)
        .bind(kind)
        .bind(at_ms)
        .execute(pool)
        .await?;
    Ok(())
}

/// One outbox entry (development page and tests).
#[derive(Debug, Clone, serde::Serialize)]
pub struct OutboxEntry {
    pub channel: String,
    pub to: String,
    pub code: String,
    pub uid: String,
    #[serde(rename = "type")]
    pub kind: i64,
    pub at: i64,
}

/// The newest `limit` outbox entries, newest first.
pub async fn outbox(pool: &AnyPool, limit: i64) -> Result<Vec<OutboxEntry>, sqlx::Error> {
    let rows = sqlx::query(
        "SELECT channel, target, code, uid, kind, at_ms FROM outbox ORDER BY id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(pool)
    .await?;
    rows.iter()
        .map(|r| {
            Ok(OutboxEntry {
                channel: r.try_get("channel")?,
                to: r.try_get("target")?,
                code: r.try_get("code")?,
                uid: r.try_get("uid")?,
                kind: r.try_get("kind")?,
                at: r.try_get("at_ms")?,
            })
        })
        .collect()
}

fn digest(uid: &str, code: &str) -> String {
    hex::encode(Sha256::digest(format!("{uid}:{code}").as_bytes()))
}

/// Compares a secret with what a client presented without leaking, through
/// timing, how much of it matched.
fn same_secret(expected: &str, presented: &str) -> bool {
    bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}

/// A random string of letters and digits.
pub fn random_id(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    (0..len)
        .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char)
        .collect()
}

fn four_digits() -> String {
    let mut rng = rand::rng();
    (0..4)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

pub struct Codes {
    pool: AnyPool,
    sender: Arc<dyn Sender>,
    clock: SharedClock,
    /// Whether captcha codes are also written to the outbox (DEMO=1 only).
    pub publish_captchas: bool,
}

impl Codes {
    pub fn new(pool: AnyPool, sender: Arc<dyn Sender>, clock: SharedClock) -> Self {
        Self {
            pool,
            sender,
            clock,
            publish_captchas: false,
        }
    }

    /// Sends a new code to `target`; returns its uid.
    pub async fn send(
        &self,
        kind: CodeKind,
        channel: Channel,
        target: &str,
        username: &str,
    ) -> Result<String, CodeError> {
        let now = self.clock.now_ms();
        let last: Option<i64> = sqlx::query_scalar(
            "SELECT max(sent_ms) FROM verification_codes WHERE target = $1 AND kind = $2",
        )
        .bind(target)
        .bind(kind as i64)
        .fetch_one(&self.pool)
        .await?;
        if let Some(last) = last.filter(|at| now - at < RESEND_MS) {
            return Err(CodeError::ResendTooSoon {
                wait: (RESEND_MS - (now - last) + 999) / 1000,
            });
        }
        let (uid, code) = (random_id(16), four_digits());
        sqlx::query(
            "INSERT INTO verification_codes (uid, kind, valtype, target, username, code_hash, sent_ms, expires_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&uid)
        .bind(kind as i64)
        .bind(channel as i64)
        .bind(target)
        .bind(username)
        .bind(digest(&uid, &code))
        .bind(now)
        .bind(now + CODE_LIFETIME_MS)
        .execute(&self.pool)
        .await?;
        self.sender
            .send(channel, target, &code, &uid, kind)
            .await
            .map_err(CodeError::Sending)?;
        Ok(uid)
    }

    /// Checks a code the member typed; on success the uid is verified.
    ///
    /// A try is taken with one conditional UPDATE before the code is
    /// compared, so guesses sent in parallel are weighed at most
    /// `MAX_ATTEMPTS` times in all, on either store; a right code gives its
    /// try back (the limit is on wrong tries).
    pub async fn check(
        &self,
        uid: &str,
        kind: CodeKind,
        target: &str,
        code: &str,
    ) -> Result<(), CodeError> {
        let now = self.clock.now_ms();
        let taken: Option<String> = sqlx::query_scalar(
            "UPDATE verification_codes SET attempts = attempts + 1
             WHERE uid = $1 AND kind = $2 AND target = $3 AND attempts < $4 AND expires_ms >= $5
             RETURNING code_hash",
        )
        .bind(uid)
        .bind(kind as i64)
        .bind(target)
        .bind(MAX_ATTEMPTS)
        .bind(now)
        .fetch_optional(&self.pool)
        .await?;
        let Some(hash) = taken else {
            let sent: Option<i64> = sqlx::query_scalar(
                "SELECT attempts FROM verification_codes WHERE uid = $1 AND kind = $2 AND target = $3",
            )
            .bind(uid)
            .bind(kind as i64)
            .bind(target)
            .fetch_optional(&self.pool)
            .await?;
            return Err(match sent {
                Some(_) => CodeError::Expired,
                None => CodeError::NoPriorSend,
            });
        };
        if !same_secret(&hash, &digest(uid, code.trim())) {
            return Err(CodeError::Mismatch);
        }
        sqlx::query(
            "UPDATE verification_codes SET verified_ms = $2, attempts = attempts - 1 WHERE uid = $1",
        )
        .bind(uid)
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Uses up a checked code (registration, password reset, binding):
    /// fails unless `uid` was checked for this kind and target recently.
    pub async fn consume(&self, uid: &str, kind: CodeKind, target: &str) -> Result<(), CodeError> {
        let now = self.clock.now_ms();
        let used = sqlx::query(
            "UPDATE verification_codes SET attempts = $5
             WHERE uid = $1 AND kind = $2 AND target = $3 AND verified_ms IS NOT NULL
               AND verified_ms >= $4 AND attempts < $5",
        )
        .bind(uid)
        .bind(kind as i64)
        .bind(target)
        .bind(now - VERIFIED_LIFETIME_MS)
        .bind(MAX_ATTEMPTS + 100)
        .execute(&self.pool)
        .await?;
        if used.rows_affected() == 1 {
            Ok(())
        } else {
            Err(CodeError::Expired)
        }
    }

    /// Records a check passed by other means than a sent code (a security
    /// answer): a checked uid for `kind` and `target`, used up by `consume`
    /// like any checked code, within `VERIFIED_LIFETIME_MS`.
    pub async fn issue_checked(&self, kind: CodeKind, target: &str) -> Result<String, CodeError> {
        let now = self.clock.now_ms();
        let uid = random_id(16);
        sqlx::query(
            "INSERT INTO verification_codes (uid, kind, valtype, target, username, code_hash, sent_ms, expires_ms, verified_ms)
             VALUES ($1, $2, 0, $3, '', $4, $5, $5, $5)",
        )
        .bind(&uid)
        .bind(kind as i64)
        .bind(target)
        .bind(digest(&uid, &random_id(16)))
        .bind(now)
        .execute(&self.pool)
        .await?;
        Ok(uid)
    }

    /// A new image code for `uid` (replacing any earlier one).
    pub async fn new_captcha(&self, uid: &str, code: &str) -> Result<(), CodeError> {
        let now = self.clock.now_ms();
        sqlx::query(
            "INSERT INTO captchas (uid, code, created_ms) VALUES ($1, $2, $3)
             ON CONFLICT (uid) DO UPDATE SET code = excluded.code, created_ms = excluded.created_ms",
        )
        .bind(uid)
        .bind(code)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if self.publish_captchas {
            record(&self.pool, "captcha", "", code, uid, 0, now).await?;
        }
        Ok(())
    }

    /// Checks an image code once: right or wrong, it cannot be used again
    /// (taken with one DELETE ... RETURNING, so parallel checks of one
    /// image find it at most once).
    pub async fn check_captcha(&self, uid: &str, code: &str) -> Result<(), CodeError> {
        let now = self.clock.now_ms();
        let stored: Option<(String, i64)> =
            sqlx::query("DELETE FROM captchas WHERE uid = $1 RETURNING code, created_ms")
                .bind(uid)
                .fetch_optional(&self.pool)
                .await?
                .map(|r| Ok::<_, sqlx::Error>((r.try_get("code")?, r.try_get("created_ms")?)))
                .transpose()?;
        match stored {
            Some((expected, at))
                if now - at <= CODE_LIFETIME_MS && same_secret(&expected, code.trim()) =>
            {
                Ok(())
            }
            _ => Err(CodeError::Mismatch),
        }
    }
}
