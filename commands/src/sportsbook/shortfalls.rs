//! Settlement shortfalls: a corrected result whose take-back the member
//! cannot cover goes to a support queue, never only to a log line.
//!
//! When a correction lowers a bet's payout, settlement debits the
//! difference (`bet:{id}:adjust:{version}`). If the member has already spent
//! the winnings the wallet refuses, and no balance may go negative
//! (invariant 3). Then this module takes what the main balance holds now,
//! up to the amount due (`bet:{id}:adjust:{version}:part`), and records the
//! rest as the member's debt in `settlement_shortfalls`, the support queue
//! the back office shows. The plan (how much to take at once) is written
//! before the debit, so a settlement task repeated after a crash takes the
//! same part under the same reference and queues nothing twice.
//!
//! Support later collects the debt from whatever the member then holds
//! (`collect`: each attempt is numbered, its amount recorded before the
//! debit under `shortfall:{id}:collect:{n}`, so concurrent or repeated
//! attempts move money once) or writes it off with a reason. Money stays
//! conserved throughout: every amount taken is a wallet movement; the debt
//! itself moves nothing until it is collected.

use std::sync::Arc;

use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use sqlx::{AnyPool, Row};

use crate::platform::clock::SharedClock;
use crate::wallet::WalletService;
use store::framework::CommandError;

pub const OPEN: &str = "open";
pub const RESOLVED: &str = "resolved";
pub const WRITTEN_OFF: &str = "written_off";

/// One row of the queue.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Shortfall {
    pub id: i64,
    pub bet_id: String,
    pub version: i64,
    pub member_id: String,
    pub currency: Currency,
    /// What the correction takes back.
    pub due: Decimal,
    /// Taken at once, when the correction was settled.
    pub part: Decimal,
    /// Taken so far (at once, and by collections).
    pub taken: Decimal,
    /// Still owed.
    pub shortfall: Decimal,
    /// `open`, `resolved` (all taken) or `written_off`.
    pub status: String,
    pub collections: i64,
    pub pending: Option<Decimal>,
    pub created_ms: i64,
    pub resolved_ms: Option<i64>,
    pub resolved_by: Option<String>,
    pub note: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum ShortfallError {
    #[error("Shortfall not found")]
    NotFound,
    #[error("The shortfall is not open")]
    NotOpen,
    #[error("A collection of this shortfall is under way, try again")]
    Busy,
    #[error("wallet: {0}")]
    Wallet(String),
    #[error("shortfall queue: {0}")]
    Sql(#[from] sqlx::Error),
    #[error("shortfall row {0}: {1}")]
    Corrupt(i64, String),
}

impl From<CommandError<WalletError>> for ShortfallError {
    fn from(e: CommandError<WalletError>) -> Self {
        ShortfallError::Wallet(e.to_string())
    }
}

/// The outcome of a collection attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    pub amount: Decimal,
    pub shortfall: Shortfall,
}

const COLUMNS: &str = "id, bet_id, version, member_id, currency, due, part, taken, shortfall, status, collections, pending, created_ms, resolved_ms, resolved_by, note";

fn decimal(id: i64, text: &str) -> Result<Decimal, ShortfallError> {
    text.parse()
        .map_err(|e| ShortfallError::Corrupt(id, format!("{text}: {e}")))
}

fn from_row(row: &sqlx::any::AnyRow) -> Result<Shortfall, ShortfallError> {
    let id: i64 = row.try_get("id")?;
    let text = |name: &str| row.try_get::<String, _>(name);
    let currency: Currency = text("currency")?
        .parse()
        .map_err(|e| ShortfallError::Corrupt(id, format!("{e}")))?;
    let pending = match row.try_get::<Option<String>, _>("pending")? {
        Some(p) => Some(decimal(id, &p)?),
        None => None,
    };
    Ok(Shortfall {
        id,
        bet_id: text("bet_id")?,
        version: row.try_get("version")?,
        member_id: text("member_id")?,
        currency,
        due: decimal(id, &text("due")?)?,
        part: decimal(id, &text("part")?)?,
        taken: decimal(id, &text("taken")?)?,
        shortfall: decimal(id, &text("shortfall")?)?,
        status: text("status")?,
        collections: row.try_get::<i64, _>("collections")?,
        pending,
        created_ms: row.try_get("created_ms")?,
        resolved_ms: row.try_get("resolved_ms")?,
        resolved_by: row.try_get("resolved_by")?,
        note: row.try_get("note")?,
    })
}

pub struct Shortfalls {
    pool: AnyPool,
    wallets: Arc<WalletService>,
    clock: SharedClock,
}

impl Shortfalls {
    pub fn new(pool: AnyPool, wallets: Arc<WalletService>, clock: SharedClock) -> Self {
        Self {
            pool,
            wallets,
            clock,
        }
    }

    async fn main_balance(&self, wallet: &WalletId) -> Result<Decimal, ShortfallError> {
        Ok(self.wallets.load(wallet).await?.balances().main)
    }

    /// Debits `amount` under `reference`: `Some(true)` moved it now,
    /// `Some(false)` an earlier attempt under the reference had moved it,
    /// `None` refused for lack of balance.
    async fn debit(
        &self,
        wallet: &WalletId,
        reference: String,
        amount: Decimal,
    ) -> Result<Option<bool>, ShortfallError> {
        let action = WalletAction::Debit {
            amount,
            pot: Pot::Main,
            kind: MovementKind::Adjustment,
        };
        match self
            .wallets
            .execute(WalletCommand::new(wallet.clone(), reference, action))
            .await
        {
            Ok(receipt) => Ok(Some(!receipt.duplicate)),
            Err(CommandError::Rejected(WalletError::InsufficientBalance)) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The take-back of `due` for `bet_id` at result `version`, which the
    /// wallet refused for lack of balance: takes what the main balance
    /// holds (up to `due`) and queues the rest. Idempotent per (bet,
    /// version): a repeat takes nothing more and queues nothing more.
    pub async fn take_back_short(
        &self,
        bet_id: &str,
        version: u64,
        member_id: &str,
        currency: Currency,
        due: Decimal,
    ) -> Result<Shortfall, ShortfallError> {
        let wallet = WalletId::new(member_id, currency);
        let planned = currency.round(self.main_balance(&wallet).await?.clamp(Decimal::ZERO, due));
        let rest = currency.round(due - planned);
        let status = if rest > Decimal::ZERO { OPEN } else { RESOLVED };
        // The plan first: a repeat finds it and carries out the same one.
        sqlx::query(
            "INSERT INTO settlement_shortfalls (bet_id, version, member_id, currency, due, part, taken, shortfall, status, created_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $6, $7, $8, $9) ON CONFLICT (bet_id, version) DO NOTHING",
        )
        .bind(bet_id)
        .bind(version as i64)
        .bind(member_id)
        .bind(currency.code())
        .bind(currency.round(due).to_string())
        .bind(planned.to_string())
        .bind(rest.to_string())
        .bind(status)
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM settlement_shortfalls WHERE bet_id = $1 AND version = $2"
        ))
        .bind(bet_id)
        .bind(version as i64)
        .fetch_one(&self.pool)
        .await?;
        let queued = from_row(&row)?;
        if queued.part <= Decimal::ZERO {
            return Ok(queued);
        }
        // The part planned at once; its reference makes a repeat move
        // nothing more.
        let reference = format!("bet:{bet_id}:adjust:{version}:part");
        if self.debit(&wallet, reference, queued.part).await?.is_some() {
            tracing::warn!(bet_id, %due, taken = %queued.part, shortfall = %queued.shortfall, "correction not covered; the rest queued for support");
            return Ok(queued);
        }
        // The balance moved between the plan and the debit: nothing was
        // taken (the refusal stays recorded under the reference, so a
        // repeat finds the same), the part is owed too.
        let zero = currency.round(Decimal::ZERO);
        sqlx::query(
            "UPDATE settlement_shortfalls SET part = $2, taken = $3, shortfall = $4, status = $5 WHERE id = $1 AND part = $6 AND collections = $7",
        )
        .bind(queued.id)
        .bind(zero.to_string())
        .bind((queued.taken - queued.part).to_string())
        .bind((queued.shortfall + queued.part).to_string())
        .bind(OPEN)
        .bind(queued.part.to_string())
        .bind(queued.collections)
        .execute(&self.pool)
        .await?;
        tracing::warn!(bet_id, %due, "correction not covered; queued for support");
        self.get(queued.id).await
    }

    pub async fn get(&self, id: i64) -> Result<Shortfall, ShortfallError> {
        let row = sqlx::query(&format!(
            "SELECT {COLUMNS} FROM settlement_shortfalls WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(ShortfallError::NotFound)?;
        from_row(&row)
    }

    /// The queue, oldest first: the open rows, or (`all`) every row.
    pub async fn list(&self, all: bool, limit: i64) -> Result<Vec<Shortfall>, ShortfallError> {
        let sql = if all {
            format!("SELECT {COLUMNS} FROM settlement_shortfalls ORDER BY id LIMIT $1")
        } else {
            format!(
                "SELECT {COLUMNS} FROM settlement_shortfalls WHERE status = 'open' ORDER BY id LIMIT $1"
            )
        };
        let rows = sqlx::query(&sql).bind(limit).fetch_all(&self.pool).await?;
        rows.iter().map(from_row).collect()
    }

    /// Collects what the member holds now, up to the debt. A repeat or a
    /// concurrent attempt moves money once.
    pub async fn collect(&self, id: i64, staff_id: &str) -> Result<Collected, ShortfallError> {
        for _ in 0..3 {
            let row = self.get(id).await?;
            if row.status != OPEN {
                return Err(ShortfallError::NotOpen);
            }
            let wallet = WalletId::new(&row.member_id, row.currency);
            let n = row.collections;
            let amount = match row.pending {
                // An attempt under way (or cut short by a crash): finish it.
                Some(pending) => pending,
                None => {
                    let available = self.main_balance(&wallet).await?;
                    let amount = row
                        .currency
                        .round(available.clamp(Decimal::ZERO, row.shortfall));
                    if amount <= Decimal::ZERO {
                        return Ok(Collected {
                            amount: row.currency.round(Decimal::ZERO),
                            shortfall: row,
                        });
                    }
                    let claimed = sqlx::query(
                        "UPDATE settlement_shortfalls SET pending = $2 WHERE id = $1 AND status = 'open' AND pending IS NULL AND collections = $3",
                    )
                    .bind(id)
                    .bind(amount.to_string())
                    .bind(n)
                    .execute(&self.pool)
                    .await?
                    .rows_affected();
                    if claimed == 0 {
                        continue;
                    }
                    amount
                }
            };
            let reference = format!("shortfall:{id}:collect:{n}");
            let debited = self.debit(&wallet, reference, amount).await?;
            let took = debited.is_some();
            let (taken, owed) = if took {
                (row.taken + amount, row.shortfall - amount)
            } else {
                (row.taken, row.shortfall)
            };
            let done = owed <= Decimal::ZERO;
            sqlx::query(
                "UPDATE settlement_shortfalls SET taken = $3, shortfall = $4, pending = NULL, collections = $2 + 1,
                 status = $5, resolved_ms = $6, resolved_by = $7, note = $8
                 WHERE id = $1 AND collections = $2",
            )
            .bind(id)
            .bind(n)
            .bind(taken.to_string())
            .bind(owed.to_string())
            .bind(if done { RESOLVED } else { OPEN })
            .bind(done.then(|| self.clock.now_ms()))
            .bind(done.then(|| staff_id.to_string()))
            .bind(done.then(|| "collected".to_string()))
            .execute(&self.pool)
            .await?;
            // Another attempt may have made this very move: it reports it.
            let amount = if debited == Some(true) {
                amount
            } else {
                row.currency.round(Decimal::ZERO)
            };
            return Ok(Collected {
                amount,
                shortfall: self.get(id).await?,
            });
        }
        Err(ShortfallError::Busy)
    }

    /// Writes the debt off (support decided not to collect it).
    pub async fn write_off(
        &self,
        id: i64,
        staff_id: &str,
        reason: &str,
    ) -> Result<Shortfall, ShortfallError> {
        let row = self.get(id).await?;
        if row.status != OPEN {
            return Err(ShortfallError::NotOpen);
        }
        if row.pending.is_some() {
            return Err(ShortfallError::Busy);
        }
        let written = sqlx::query(
            "UPDATE settlement_shortfalls SET status = $2, resolved_ms = $3, resolved_by = $4, note = $5
             WHERE id = $1 AND status = 'open' AND pending IS NULL",
        )
        .bind(id)
        .bind(WRITTEN_OFF)
        .bind(self.clock.now_ms())
        .bind(staff_id)
        .bind(reason)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if written == 0 {
            return Err(ShortfallError::Busy);
        }
        self.get(id).await
    }

    /// What is still owed on open rows, per currency (for audits).
    pub async fn outstanding(&self) -> Result<Vec<(Currency, Decimal)>, ShortfallError> {
        let mut totals: std::collections::BTreeMap<String, Decimal> = Default::default();
        for row in self.list(false, i64::MAX).await? {
            *totals.entry(row.currency.code().to_string()).or_default() += row.shortfall;
        }
        totals
            .into_iter()
            .map(|(code, amount)| {
                code.parse()
                    .map(|c| (c, amount))
                    .map_err(|e| ShortfallError::Corrupt(0, format!("{e}")))
            })
            .collect()
    }
}
