//! Payouts: what happens to a withdrawal after finance approves it.
//!
//! `[payments] payouts` chooses the payout provider:
//! - `"manual"`: finance sends the money outside the platform and marks the
//!   withdrawal paid (with the bank's reference) or failed in the back
//!   office; the only choice outside DEMO, since no payout provider is
//!   reachable;
//! - `"sandbox"` (the default, DEMO only): the approval submits the payout
//!   to the sandbox provider, which reports it `payout_paid` (or
//!   `payout_failed` for a destination ending in `0002`, the documented
//!   test number) through the same signed, repeated callbacks as deposits,
//!   after `[payments.sandbox] payout_delay_ms`. The report pays the
//!   withdrawal out of the frozen balance (or unfreezes it) exactly once,
//!   whatever repeats; finance can still settle it by hand.
//!
//! A report whose amount or currency differs from the withdrawal is kept
//! (reconciliation lists it) but applies nothing: finance decides.

use rust_decimal::Decimal;
use sqlx::Row;

use super::deposits::{CallbackError, CallbackOutcome};
use super::provider::CallbackBody;
use super::withdrawals::Decision;
use super::{PaymentFailure, PaymentResult, Payments};
use domain::payment::WithdrawalStatus;

/// The staff id a provider's report decides under (event metadata).
pub const PROVIDER_STAFF: &str = "provider:sandbox";
/// Callback statuses of payout reports.
pub const PAYOUT_PAID: &str = "payout_paid";
pub const PAYOUT_FAILED: &str = "payout_failed";

/// The sandbox declines payouts to destinations ending in this.
pub const DECLINED_SUFFIX: &str = "0002";

impl Payments {
    /// Whether approvals go to the sandbox payout provider.
    pub fn sandbox_payouts(&self) -> bool {
        self.settings.payouts.trim() == "sandbox"
    }

    /// The sandbox takes an approved withdrawal: it records the payout and
    /// queues its signed reports. Safe to repeat (one payout per
    /// withdrawal; its reports are queued once).
    pub(super) async fn submit_payout(&self, id: &str) -> PaymentResult<()> {
        let w = self.load_withdrawal(id).await?;
        let Some(request) = w.request.clone() else {
            return Ok(());
        };
        if w.status != WithdrawalStatus::Approved {
            return Ok(());
        }
        let now = self.clock.now_ms();
        let declined = request.destination.masked.ends_with(DECLINED_SUFFIX);
        let status = if declined { PAYOUT_FAILED } else { PAYOUT_PAID };
        let tx_id = format!(
            "SBXP{}",
            &crate::accounts::sessions::token()[..14].to_uppercase()
        );
        let inserted = sqlx::query(
            "INSERT INTO sandbox_payments (order_id, provider_tx_id, amount, currency, status, created_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (order_id) DO NOTHING",
        )
        .bind(id)
        .bind(&tx_id)
        .bind(request.amount.to_string())
        .bind(request.currency.code())
        .bind(status)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 0 {
            return Ok(());
        }
        let body = CallbackBody {
            event_id: format!("{tx_id}-{status}"),
            order_id: id.to_string(),
            provider_tx_id: tx_id,
            amount: request.amount.to_string(),
            currency: request.currency.code().to_string(),
            status: status.to_string(),
            created: now / 1000,
        };
        let delay = self.settings.sandbox.payout_delay_ms.max(0);
        self.queue_sandbox_report(&body, now + delay).await
    }

    /// A verified payout report (`payout_paid` / `payout_failed`), recorded
    /// once per event id and applied while the withdrawal waits for it.
    pub(super) async fn payout_report(
        &self,
        provider: &str,
        body: &CallbackBody,
        first: bool,
    ) -> Result<CallbackOutcome, CallbackError> {
        let internal = |e: PaymentFailure| CallbackError::Internal(e.to_string());
        let w = self
            .load_withdrawal(&body.order_id)
            .await
            .map_err(internal)?;
        let Some(request) = w.request.clone() else {
            return Err(CallbackError::UnknownOrder);
        };
        let amount: Option<Decimal> = body.amount.parse().ok();
        let matches = amount == Some(request.amount) && body.currency == request.currency.code();
        if !matches {
            tracing::error!(
                withdrawal = %body.order_id,
                provider,
                amount = %body.amount,
                currency = %body.currency,
                "payout report differs from the withdrawal; left for finance"
            );
        } else if w.status == WithdrawalStatus::Approved {
            let (decision, reason) = if body.status == PAYOUT_PAID {
                (Decision::Paid, body.provider_tx_id.clone())
            } else {
                (
                    Decision::Failed,
                    format!("payout declined by the provider ({})", body.provider_tx_id),
                )
            };
            self.decide_withdrawal(&body.order_id, decision, PROVIDER_STAFF, &reason)
                .await
                .map_err(internal)?;
        }
        Ok(if first {
            CallbackOutcome::Accepted
        } else {
            CallbackOutcome::Repeated
        })
    }

    /// Approved withdrawals the sandbox has not taken yet (the approving
    /// process stopped before submitting): submitted again.
    pub async fn sweep_payouts(&self) -> PaymentResult<usize> {
        if !self.sandbox_payouts() {
            return Ok(0);
        }
        let rows = sqlx::query(
            "SELECT w.order_id FROM money_orders w
             WHERE w.kind = 'withdrawal' AND w.status = 'approved'
               AND NOT EXISTS (SELECT 1 FROM sandbox_payments s WHERE s.order_id = w.order_id)
             LIMIT 100",
        )
        .fetch_all(&self.pool)
        .await;
        // The report table belongs to a projection: absent while it is
        // rebuilt; the next pass sees it.
        let Ok(rows) = rows else { return Ok(0) };
        let mut submitted = 0;
        for row in rows {
            let id: String = row.try_get("order_id")?;
            self.submit_payout(&id).await?;
            submitted += 1;
        }
        Ok(submitted)
    }
}
