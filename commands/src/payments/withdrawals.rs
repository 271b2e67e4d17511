//! Withdrawals: the member's request (fund password, a bound card or
//! address, limits, one open request, the freeze), finance's decisions and
//! the payout. Each money step has its own reference, so repeating a
//! decision after a crash finishes it without moving money twice.

use std::collections::HashMap;

use domain::payment::withdrawal::{Destination, NewWithdrawal};
use domain::payment::{
    codes, freeze_reference, parse_amount, payout_reference, unfreeze_reference, LimitOf,
    Withdrawal, WithdrawalCommand, WithdrawalError, WithdrawalStatus,
};
use domain::wallet::{WalletAction, WalletCommand, WalletError, WalletId};
use serde_json::json;

use super::{command_failure, day_start, PaymentFailure, PaymentResult, Payments};
use store::framework::CommandError;

/// A finance decision on a withdrawal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    Paid,
    Failed,
}

impl Decision {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "approve" => Some(Self::Approve),
            "reject" => Some(Self::Reject),
            "paid" | "pay" => Some(Self::Paid),
            "failed" | "fail" => Some(Self::Failed),
            _ => None,
        }
    }
}

impl Payments {
    pub(crate) async fn load_withdrawal(&self, id: &str) -> PaymentResult<Withdrawal> {
        let loaded = self
            .withdrawals
            .store()
            .load_current(id)
            .await
            .map_err(PaymentFailure::internal)?;
        Ok(loaded.aggregate)
    }

    async fn run_withdrawal(
        &self,
        id: &str,
        command: WithdrawalCommand,
        metadata: HashMap<String, String>,
    ) -> PaymentResult<()> {
        self.withdrawals
            .execute(id, command, metadata)
            .await
            .map_err(|e| command_failure(e, WithdrawalError::code))
    }

    /// `checksecuritypass`: the fund password, with failures limited
    /// (5 per 15 minutes, shared by all nodes).
    pub async fn check_fund_password(&self, member_id: &str, password: &str) -> PaymentResult<()> {
        let now = self.clock.now_ms();
        if let Some(wait) = self.fund_password_failures.full(member_id, now).await? {
            return Err(PaymentFailure::refused(
                codes::FUND_PASSWORD_LOCKED,
                format!(
                    "Too many wrong fund passwords, please try again in {} seconds",
                    (wait + 999) / 1000
                ),
            ));
        }
        let account = self
            .accounts
            .load(member_id)
            .await
            .map_err(PaymentFailure::internal)?;
        let Some(hash) = account.fund_password_hash.clone() else {
            return Err(PaymentFailure::refused(
                codes::NO_FUND_PASSWORD,
                "Please set a fund password first",
            ));
        };
        let password = password.to_string();
        let matches = tokio::task::spawn_blocking(move || {
            password.len() <= 128 && crate::accounts::password_matches(&password, &hash)
        })
        .await
        .map_err(PaymentFailure::internal)?;
        if !matches {
            let _ = self.fund_password_failures.hit(member_id, now).await?;
            return Err(PaymentFailure::refused(
                codes::WRONG_FUND_PASSWORD,
                "Wrong fund password",
            ));
        }
        Ok(())
    }

    /// `platwithdraw`: freezes the amount and records the request.
    pub async fn request_withdrawal(
        &self,
        member_id: &str,
        amount: &str,
        account_id: &str,
        fund_password: &str,
    ) -> PaymentResult<NewWithdrawal> {
        let currency = self.member_currency(member_id).await?;
        let limits = self
            .limits
            .for_member(member_id, currency)
            .await
            .map_err(PaymentFailure::internal)?;
        if !limits.may_withdraw {
            return Err(PaymentFailure::refused(
                codes::AGENT_CANNOT_WITHDRAW,
                "Special general agents cannot withdraw",
            ));
        }
        let amount = parse_amount(amount, currency)?;
        let destination = self.destination(member_id, account_id).await?;
        self.check_fund_password(member_id, fund_password).await?;
        limits.amount.check(amount, currency, LimitOf::Withdraw)?;
        let now = self.clock.now_ms();
        let today: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM withdrawal_log WHERE member_id = $1 AND requested_ms >= $2",
        )
        .bind(member_id)
        .bind(day_start(now))
        .fetch_one(&self.pool)
        .await?;
        if today >= limits.times_per_day as i64 {
            return Err(PaymentFailure::refused(
                codes::DAILY_WITHDRAWALS_USED,
                format!("You can withdraw {} times a day", limits.times_per_day),
            ));
        }
        let id = format!("W{:09}", self.withdrawal_ids.next().await?);
        // One open request per member, claimed before any money moves.
        let claimed = sqlx::query(
            "INSERT INTO withdrawal_open (member_id, withdrawal_id, created_ms) VALUES ($1, $2, $3) ON CONFLICT (member_id) DO NOTHING",
        )
        .bind(member_id)
        .bind(&id)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if claimed.rows_affected() == 0 {
            return Err(PaymentFailure::refused(
                codes::WITHDRAWAL_EXISTS,
                "You already have a valid withdrawal request",
            ));
        }
        let wallet = WalletId::new(member_id, currency);
        let frozen = self
            .wallets
            .execute(WalletCommand::new(
                wallet.clone(),
                freeze_reference(&id),
                WalletAction::Freeze { amount },
            ))
            .await;
        match frozen {
            Ok(_) => {}
            Err(e) => {
                self.release_claim(member_id, &id).await?;
                return Err(match e {
                    CommandError::Rejected(WalletError::InsufficientBalance) => {
                        PaymentFailure::refused(
                            codes::BALANCE_LESS_THAN_WITHDRAWAL,
                            "Balance less than withdrawal",
                        )
                    }
                    other => PaymentFailure::internal(other),
                });
            }
        }
        let request = NewWithdrawal {
            withdrawal_id: id.clone(),
            member_id: member_id.to_string(),
            currency,
            amount,
            destination,
            requested_ms: now,
        };
        let recorded = async {
            sqlx::query(
                "INSERT INTO withdrawal_log (withdrawal_id, member_id, requested_ms) VALUES ($1, $2, $3)",
            )
            .bind(&id)
            .bind(member_id)
            .bind(now)
            .execute(&self.pool)
            .await?;
            self.run_withdrawal(&id, WithdrawalCommand::Request(request.clone()), HashMap::new())
                .await
        }
        .await;
        if let Err(e) = recorded {
            // Undo the freeze: no request stands for it.
            self.unfreeze(&wallet, &id, amount).await?;
            self.release_claim(member_id, &id).await?;
            return Err(e);
        }
        Ok(request)
    }

    async fn destination(&self, member_id: &str, account_id: &str) -> PaymentResult<Destination> {
        let account = self
            .payment_account(member_id, account_id)
            .await?
            .ok_or_else(|| {
                PaymentFailure::refused(
                    codes::NO_PAYOUT_ACCOUNT,
                    "Please bind a bank card or USDT address first",
                )
            })?;
        Ok(Destination {
            kind: account.kind,
            bank_name: account.bank_name,
            masked: account.masked,
            holder: account.holder,
            account_id: account.id,
        })
    }

    async fn release_claim(&self, member_id: &str, id: &str) -> PaymentResult<()> {
        sqlx::query("DELETE FROM withdrawal_open WHERE member_id = $1 AND withdrawal_id = $2")
            .bind(member_id)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    async fn unfreeze(
        &self,
        wallet: &WalletId,
        id: &str,
        amount: rust_decimal::Decimal,
    ) -> PaymentResult<()> {
        self.wallets
            .execute(WalletCommand::new(
                wallet.clone(),
                unfreeze_reference(id),
                WalletAction::Unfreeze { amount },
            ))
            .await
            .map_err(PaymentFailure::internal)?;
        Ok(())
    }

    /// `cancelwithdraw`: the member takes back a request still waiting for
    /// review, where the platform allows it.
    pub async fn cancel_withdrawal(&self, member_id: &str, id: &str) -> PaymentResult<()> {
        self.member_withdrawal(member_id, id).await?;
        let at_ms = self.clock.now_ms();
        let allowed = self.settings.member_may_cancel_withdrawal;
        self.run_withdrawal(
            id,
            WithdrawalCommand::Cancel { allowed, at_ms },
            HashMap::new(),
        )
        .await?;
        self.finish_withdrawal(id).await
    }

    /// `delwithdraw`: hides a finished withdrawal from the member's list.
    pub async fn hide_withdrawal(&self, member_id: &str, id: &str) -> PaymentResult<()> {
        self.member_withdrawal(member_id, id).await?;
        let at_ms = self.clock.now_ms();
        self.run_withdrawal(id, WithdrawalCommand::Hide { at_ms }, HashMap::new())
            .await
    }

    async fn member_withdrawal(&self, member_id: &str, id: &str) -> PaymentResult<Withdrawal> {
        let unknown = || PaymentFailure::refused(codes::UNKNOWN_WITHDRAWAL, "Unknown withdrawal");
        if id.trim().is_empty() || id.len() > 40 {
            return Err(unknown());
        }
        let w = self.load_withdrawal(id.trim()).await?;
        match &w.request {
            Some(r) if r.member_id == member_id => Ok(w),
            _ => Err(unknown()),
        }
    }

    /// A finance decision; staff id and reason go into the event and its
    /// metadata.
    pub async fn decide_withdrawal(
        &self,
        id: &str,
        decision: Decision,
        staff_id: &str,
        reason: &str,
    ) -> PaymentResult<()> {
        let reason = reason.trim();
        if reason.len() > 500
            || (reason.is_empty() && decision != Decision::Approve && decision != Decision::Paid)
        {
            return Err(PaymentFailure::refused(
                domain::Code::BAD_PARAMETERS.0,
                "A reason (1 to 500 characters) is required",
            ));
        }
        let withdrawal = self.load_withdrawal(id).await?;
        let request = withdrawal.request.clone().ok_or_else(|| {
            PaymentFailure::refused(codes::UNKNOWN_WITHDRAWAL, "Unknown withdrawal")
        })?;
        let at_ms = self.clock.now_ms();
        let staff = staff_id.to_string();
        let why = reason.to_string();
        let metadata = Self::staff_metadata(staff_id, reason);
        match decision {
            Decision::Approve => {
                // Approving again re-submits a payout the sandbox never took.
                if withdrawal.status != domain::payment::WithdrawalStatus::Approved {
                    self.run_withdrawal(
                        id,
                        WithdrawalCommand::Approve {
                            staff_id: staff,
                            reason: why,
                            at_ms,
                        },
                        metadata,
                    )
                    .await?;
                }
                if self.sandbox_payouts() {
                    self.submit_payout(id).await?;
                }
                return Ok(());
            }
            Decision::Reject => {
                self.run_withdrawal(
                    id,
                    WithdrawalCommand::Reject {
                        staff_id: staff,
                        reason: why,
                        at_ms,
                    },
                    metadata,
                )
                .await?
            }
            Decision::Failed => {
                self.run_withdrawal(
                    id,
                    WithdrawalCommand::Fail {
                        staff_id: staff,
                        reason: why,
                        at_ms,
                    },
                    metadata,
                )
                .await?
            }
            Decision::Paid => {
                if !matches!(
                    withdrawal.status,
                    WithdrawalStatus::Approved | WithdrawalStatus::Paid
                ) {
                    return Err(PaymentFailure::refused(
                        codes::WITHDRAWAL_STATE,
                        "The withdrawal cannot do that now (only an approved one is paid)",
                    ));
                }
                // The money leaves the frozen balance first; the event
                // follows (a repeat finds the reference done).
                self.wallets
                    .execute_with(
                        WalletCommand::new(
                            WalletId::new(request.member_id.clone(), request.currency),
                            payout_reference(id),
                            WalletAction::PayFrozen {
                                amount: request.amount,
                            },
                        ),
                        metadata.clone(),
                    )
                    .await
                    .map_err(PaymentFailure::internal)?;
                self.run_withdrawal(
                    id,
                    WithdrawalCommand::MarkPaid {
                        staff_id: staff,
                        payout_reference: if why.is_empty() {
                            payout_reference(id)
                        } else {
                            why
                        },
                        at_ms,
                    },
                    metadata,
                )
                .await?
            }
        }
        self.finish_withdrawal(id).await
    }

    /// After a final state: the unfreeze if it owes one, the open claim
    /// released, the member told (tip 1001). Safe to repeat.
    async fn finish_withdrawal(&self, id: &str) -> PaymentResult<()> {
        let w = self.load_withdrawal(id).await?;
        let Some(request) = w.request.clone() else {
            return Ok(());
        };
        if !w.status.is_final() {
            return Ok(());
        }
        if w.status.unfreezes() {
            let wallet = WalletId::new(request.member_id.clone(), request.currency);
            self.unfreeze(&wallet, id, request.amount).await?;
        }
        self.release_claim(&request.member_id, id).await?;
        let body = json!({
            "orderid": id,
            "bankname": request.destination.bank_name,
            "money": request.amount.to_string(),
            "time": self.clock.now_ms(),
            "status": w.status.name(),
        });
        let key = format!("withdrawal:{id}:{}", w.status.name());
        self.tip_once(
            &key,
            &request.member_id,
            crate::engagement::notify::WITHDRAWAL_RESULT,
            body,
        )
        .await;
        Ok(())
    }
}
