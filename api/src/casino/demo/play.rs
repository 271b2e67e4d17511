//! Bets, wins and rollbacks as a real provider sends them (Hub88's retry
//! policy): a bet or win without an answer is sent again under the same
//! `transaction_uuid` (a new `request_uuid` each time); a bet that is still
//! unconfirmed, or refused with anything but not-enough-money or a limit,
//! is rolled back; a win or rollback that cannot get through waits in the
//! outbox (`demo_provider_pending`) and is resent until it is answered.

use serde_json::{json, Value};
use sqlx::Row;

use super::client::CallError;
use super::DemoProvider;

/// Who plays: what the launch gave the game page.
#[derive(Debug, Clone, serde::Deserialize, serde::Serialize, utoipa::ToSchema)]
pub struct Player {
    pub token: String,
    pub user: String,
    pub currency: String,
    pub game: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BetOutcome {
    Confirmed {
        balance: i64,
    },
    /// Refused by the wallet (the status), with the balance it gave.
    Refused {
        status: String,
        balance: i64,
    },
    /// No answer: rolled back (or queued for rollback).
    Unconfirmed,
}

pub fn round_key(user: &str, round: &str) -> String {
    format!("{user}:{round}")
}

pub fn new_id(prefix: &str) -> String {
    use rand::Rng;
    let bytes: [u8; 12] = rand::rng().random();
    format!("{prefix}-{}", hex::encode(bytes))
}

impl DemoProvider {
    fn body(
        &self,
        p: &Player,
        tx: &str,
        round: &str,
        closed: bool,
        amount: Option<i64>,
        reference: Option<&str>,
    ) -> Value {
        let mut body = json!({
            "user": p.user,
            "token": p.token,
            "game_code": p.game,
            "currency": p.currency,
            "transaction_uuid": tx,
            "supplier_transaction_id": format!("demo-{tx}"),
            "supplier_user": format!("demo-{}", p.user),
            "round": round,
            "round_closed": closed,
            "is_free": false,
        });
        if let Some(amount) = amount {
            body["amount"] = json!(amount);
        }
        if let Some(reference) = reference {
            body["reference_transaction_uuid"] = json!(reference);
        }
        body
    }

    /// Sends `body`, again under the same transaction while no answer
    /// comes, at most `1 + retries` times.
    pub async fn send(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        let mut last = CallError::Timeout;
        for _ in 0..=self.retries {
            let mut body = body.clone();
            body["request_uuid"] = json!(new_id("req"));
            match self.client.post(path, &body).await {
                Ok(answer) => return Ok(answer),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    pub async fn bet(
        &self,
        p: &Player,
        tx: &str,
        round: &str,
        amount: i64,
        closed: bool,
    ) -> BetOutcome {
        let body = self.body(p, tx, round, closed, Some(amount), None);
        match self.send("transaction/bet", &body).await {
            Ok(a) if a["status"] == "RS_OK" => BetOutcome::Confirmed {
                balance: a["balance"].as_i64().unwrap_or_default(),
            },
            Ok(a) => {
                let status = a["status"]
                    .as_str()
                    .unwrap_or("RS_ERROR_UNKNOWN")
                    .to_string();
                if status != "RS_ERROR_NOT_ENOUGH_MONEY" && status != "RS_ERROR_LIMIT_REACHED" {
                    self.rollback(p, tx, round, closed).await;
                }
                BetOutcome::Refused {
                    status,
                    balance: a["balance"].as_i64().unwrap_or_default(),
                }
            }
            Err(e) => {
                tracing::info!(transaction = tx, error = %e, "demo provider: bet unconfirmed, rolling back");
                self.rollback(p, tx, round, closed).await;
                BetOutcome::Unconfirmed
            }
        }
    }

    /// Rolls back the bet `bet_tx` (rollback id `rb-{bet_tx}`); the balance
    /// when answered, `None` when queued.
    pub async fn rollback(
        &self,
        p: &Player,
        bet_tx: &str,
        round: &str,
        closed: bool,
    ) -> Option<i64> {
        let tx = format!("rb-{bet_tx}");
        let body = self.body(p, &tx, round, closed, None, Some(bet_tx));
        self.final_call("transaction/rollback", &tx, body).await
    }

    /// Pays a win on `bet_tx` (win id `win-{bet_tx}`, so a resend is the
    /// same transaction).
    pub async fn win(
        &self,
        p: &Player,
        bet_tx: &str,
        round: &str,
        amount: i64,
        closed: bool,
    ) -> Option<i64> {
        let tx = format!("win-{bet_tx}");
        let body = self.body(p, &tx, round, closed, Some(amount), Some(bet_tx));
        self.final_call("transaction/win", &tx, body).await
    }

    /// A call that must get through: answered now, or queued.
    async fn final_call(&self, path: &str, tx: &str, body: Value) -> Option<i64> {
        match self.send(path, &body).await {
            Ok(a) if a["status"] != "RS_ERROR_UNKNOWN" => a["balance"].as_i64(),
            outcome => {
                tracing::info!(
                    transaction = tx,
                    ?outcome,
                    "demo provider: queued for resending"
                );
                if let Err(e) = self.queue(path, tx, &body).await {
                    tracing::error!(transaction = tx, error = %e, "demo provider: outbox write failed");
                }
                None
            }
        }
    }

    async fn queue(&self, path: &str, tx: &str, body: &Value) -> Result<(), sqlx::Error> {
        sqlx::query("INSERT INTO demo_provider_pending (transaction_uuid, round_key, path, body, attempts, next_ms) VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT (transaction_uuid) DO NOTHING")
            .bind(tx)
            .bind(round_key(body["user"].as_str().unwrap_or_default(), body["round"].as_str().unwrap_or_default()))
            .bind(path)
            .bind(body.to_string())
            .bind(self.clock.now_ms())
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Whether calls of `user`'s `round` wait in the outbox (the round's
    /// later wins must not overtake them: the last one closes the round).
    pub async fn waiting(&self, user: &str, round: &str) -> Result<bool, sqlx::Error> {
        let n: i64 =
            sqlx::query_scalar("SELECT COUNT(*) FROM demo_provider_pending WHERE round_key = $1")
                .bind(round_key(user, round))
                .fetch_one(&self.pool)
                .await?;
        Ok(n > 0)
    }

    /// Resends the outbox's due calls once each; answered ones leave it.
    pub async fn resend_pending(&self) -> Result<usize, sqlx::Error> {
        let now = self.clock.now_ms();
        let rows = sqlx::query("SELECT transaction_uuid, path, body, attempts FROM demo_provider_pending WHERE next_ms <= $1 ORDER BY next_ms LIMIT 50")
            .bind(now)
            .fetch_all(&self.pool)
            .await?;
        let mut done = 0;
        for row in rows {
            let tx: String = row.get("transaction_uuid");
            let path: String = row.get("path");
            let attempts: i64 = row.get("attempts");
            let mut body: Value =
                serde_json::from_str(&row.get::<String, _>("body")).unwrap_or(Value::Null);
            body["request_uuid"] = json!(new_id("req"));
            match self.client.post(&path, &body).await {
                Ok(a) if a["status"] != "RS_ERROR_UNKNOWN" => {
                    sqlx::query("DELETE FROM demo_provider_pending WHERE transaction_uuid = $1")
                        .bind(&tx)
                        .execute(&self.pool)
                        .await?;
                    done += 1;
                }
                _ => {
                    let wait = (1000i64 << attempts.min(6)).min(60_000);
                    sqlx::query("UPDATE demo_provider_pending SET attempts = attempts + 1, next_ms = $1 WHERE transaction_uuid = $2")
                        .bind(now + wait)
                        .bind(&tx)
                        .execute(&self.pool)
                        .await?;
                }
            }
        }
        Ok(done)
    }
}
