//! Free bets: support grants a member a free bet of a fixed amount, valid
//! until it expires; the member stakes it whole on a bet (`bonus_id`). The
//! money sits in the wallet's bonus pot (credited `freebet:{id}`); the bet
//! holds and takes its stake from that pot under `freebet:{id}:used`, a
//! reference the wallet accepts once, in the same transaction as the bet:
//! a free bet can never be staked twice. A free bet's winnings (payout less
//! the stake) are paid to the main pot; its stake is not returned.

use domain::freebet::{check_grant, GrantError, GrantLimits, GrantReason};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use sqlx::{AnyPool, Row};

use crate::platform::clock::SharedClock;
use crate::platform::ids::IdBlocks;
use crate::wallet::WalletService;
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FreeBet {
    pub id: String,
    pub member_id: String,
    pub currency: Currency,
    pub amount: Decimal,
    pub granted_ms: i64,
    pub expires_ms: i64,
}

/// The reference under which a free bet's stake is held: once per free bet.
pub fn used_reference(id: &str) -> String {
    format!("freebet:{id}:used")
}

/// Why a grant did not go through.
#[derive(Debug, thiserror::Error)]
pub enum GrantFailure {
    /// A rule of `domain::freebet`: its code and message.
    #[error("{0}")]
    Refused(#[from] GrantError),
    #[error("{0}")]
    Internal(String),
}

pub struct FreeBets {
    pool: AnyPool,
    wallets: Arc<WalletService>,
    clock: SharedClock,
    ids: IdBlocks,
}

/// A staff grant of a free bet.
#[derive(Debug, Clone, Copy)]
pub struct GrantRequest<'a> {
    pub member_id: &'a str,
    pub currency: Currency,
    pub amount: Decimal,
    /// Days it can be staked.
    pub days: i64,
    /// The staff id.
    pub granted_by: &'a str,
    pub reason: &'a str,
}

impl FreeBets {
    pub fn new(pool: AnyPool, wallets: Arc<WalletService>, clock: SharedClock) -> Self {
        Self {
            ids: IdBlocks::new(pool.clone(), "freebet", 20),
            pool,
            wallets,
            clock,
        }
    }

    /// What `member_id` was granted in the 24 hours before `now`, read in
    /// the grant's transaction.
    async fn granted_since(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        member_id: &str,
        since_ms: i64,
    ) -> Result<Decimal, String> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT amount FROM free_bets WHERE member_id = $1 AND granted_ms > $2",
        )
        .bind(member_id)
        .bind(since_ms)
        .fetch_all(&mut **tx)
        .await
        .map_err(|e| e.to_string())?;
        rows.iter()
            .map(|a| a.parse::<Decimal>().map_err(|e| e.to_string()))
            .sum()
    }

    /// Grants a free bet within `limits` (`[bets] free_bet_grant_max`,
    /// `free_bet_daily_max`); who granted it and why go with the credit's
    /// wallet event. Grants to one member take turns (a lock row written
    /// first in the transaction), so two at once never both fit a daily
    /// cap that only one fits, whichever processes take them.
    pub async fn grant(
        &self,
        request: GrantRequest<'_>,
        limits: &GrantLimits,
    ) -> Result<FreeBet, GrantFailure> {
        let GrantRequest {
            member_id,
            currency,
            amount,
            days,
            granted_by,
            reason,
        } = request;
        let reason = GrantReason::parse(reason)?;
        let now = self.clock.now_ms();
        let internal = |e: String| GrantFailure::Internal(e);
        let id = self
            .ids
            .next()
            .await
            .map_err(|e| internal(e.to_string()))?
            .to_string();
        let mut tx = self
            .pool
            .begin()
            .await
            .map_err(|e| internal(e.to_string()))?;
        sqlx::query(
            "INSERT INTO free_bet_grant_locks (member_id, granted_ms) VALUES ($1, $2)
             ON CONFLICT (member_id) DO UPDATE SET granted_ms = excluded.granted_ms",
        )
        .bind(member_id)
        .bind(now)
        .execute(&mut *tx)
        .await
        .map_err(|e| internal(e.to_string()))?;
        let before = Self::granted_since(&mut tx, member_id, now - 86_400_000)
            .await
            .map_err(GrantFailure::Internal)?;
        check_grant(amount, currency, days, before, limits)?;
        let free_bet = FreeBet {
            id: id.clone(),
            member_id: member_id.to_string(),
            currency,
            amount,
            granted_ms: now,
            expires_ms: now + days * 86_400_000,
        };
        // The row first: a credit without its row would be money nobody can
        // stake; a row without its credit is refused at staking (the wallet
        // has no bonus to hold) and the grant can be repeated.
        sqlx::query(
            "INSERT INTO free_bets (id, member_id, currency, amount, granted_ms, expires_ms, granted_by) VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(&id)
        .bind(member_id)
        .bind(currency.code())
        .bind(amount.to_string())
        .bind(now)
        .bind(free_bet.expires_ms)
        .bind(granted_by)
        .execute(&mut *tx)
        .await
        .map_err(|e| internal(e.to_string()))?;
        tx.commit().await.map_err(|e| internal(e.to_string()))?;
        let metadata = [
            ("granted_by", granted_by),
            ("reason", reason.as_str()),
            ("free_bet", id.as_str()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        self.wallets
            .execute_with(
                WalletCommand::new(
                    WalletId::new(member_id, currency),
                    format!("freebet:{id}"),
                    WalletAction::Credit {
                        amount,
                        pot: Pot::Bonus,
                        kind: MovementKind::Bonus,
                    },
                ),
                metadata,
            )
            .await
            .map_err(|e| internal(e.to_string()))?;
        Ok(free_bet)
    }

    /// The member's free bets that can still be staked, soonest to expire
    /// first.
    pub async fn open(&self, member_id: &str, currency: Currency) -> Result<Vec<FreeBet>, String> {
        let now = self.clock.now_ms();
        let rows = sqlx::query(
            "SELECT id, amount, granted_ms, expires_ms FROM free_bets WHERE member_id = $1 AND currency = $2 AND expires_ms > $3 ORDER BY expires_ms, id",
        )
        .bind(member_id)
        .bind(currency.code())
        .bind(now)
        .fetch_all(&self.pool)
        .await
        .map_err(|e| e.to_string())?;
        let wallet = WalletId::new(member_id, currency);
        let loaded = self
            .wallets
            .load(&wallet)
            .await
            .map_err(|e| e.to_string())?;
        let mut open = Vec::new();
        for row in rows {
            let id: String = row.try_get("id").map_err(|e| e.to_string())?;
            let used = self
                .wallets
                .reference_outcome_in(&loaded, &wallet, &used_reference(&id))
                .await
                .map_err(|e| e.to_string())?;
            if used.is_some() {
                continue;
            }
            let amount: String = row.try_get("amount").map_err(|e| e.to_string())?;
            open.push(FreeBet {
                id,
                member_id: member_id.to_string(),
                currency,
                amount: amount.parse().map_err(|e| format!("{e}"))?,
                granted_ms: row.try_get("granted_ms").map_err(|e| e.to_string())?,
                expires_ms: row.try_get("expires_ms").map_err(|e| e.to_string())?,
            });
        }
        Ok(open)
    }

    /// The member's free bet `id` if it can be staked now.
    pub async fn find(
        &self,
        member_id: &str,
        currency: Currency,
        id: &str,
    ) -> Result<Option<FreeBet>, String> {
        Ok(self
            .open(member_id, currency)
            .await?
            .into_iter()
            .find(|f| f.id == id.trim()))
    }
}
