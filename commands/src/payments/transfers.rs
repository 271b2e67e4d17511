//! Transfers between the main wallet and a game provider's transfer wallet
//! (`security/transwalletmoney`, `user/getthirdbalance`). A game wallet is
//! a Wallet aggregate of its own, `{member}@{provider}:{CURRENCY}`, so its
//! balance and its movements follow every wallet rule.
//!
//! A transfer is a row first (`pending`), then the debit of the source
//! (`transfer:{id}:out`), then the credit of the destination
//! (`transfer:{id}:in`). The sweeper finishes a transfer whose process
//! stopped between the two: exactly once, whatever stops.

use domain::payment::{codes, parse_amount};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletId};
use domain::Currency;
use serde::Serialize;
use sqlx::Row;

use super::{PaymentFailure, PaymentResult, Payments};
use store::framework::CommandError;
use store::unit::{Failed, UnitError, UnitOfWork};

#[derive(Debug, Clone, Serialize)]
pub struct GameBalance {
    pub provider: String,
    pub balance: String,
    pub currency: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct TransferDone {
    pub transfer_id: String,
    pub from: String,
    pub to: String,
    pub amount: String,
    pub main_balance: String,
}

/// The wallet of `place` ("main" or a provider code) for a member.
pub fn wallet_of(member_id: &str, place: &str, currency: Currency) -> WalletId {
    if place == "main" {
        WalletId::new(member_id, currency)
    } else {
        WalletId::new(format!("{member_id}@{place}"), currency)
    }
}

impl Payments {
    fn known_place(&self, place: &str) -> bool {
        place == "main" || self.settings.game_wallets.iter().any(|p| p == place)
    }

    /// `getthirdbalance`: every game wallet's balance.
    pub async fn game_balances(&self, member_id: &str) -> PaymentResult<Vec<GameBalance>> {
        let currency = self.member_currency(member_id).await?;
        let mut out = Vec::new();
        for provider in &self.settings.game_wallets {
            let wallet = self
                .wallets
                .load(&wallet_of(member_id, provider, currency))
                .await
                .map_err(PaymentFailure::internal)?;
            out.push(GameBalance {
                provider: provider.clone(),
                balance: currency.round(wallet.balances().main).to_string(),
                currency: currency.code().to_string(),
            });
        }
        Ok(out)
    }

    /// `transwalletmoney {from, to, amount}`.
    pub async fn transfer(
        &self,
        member_id: &str,
        from: &str,
        to: &str,
        amount: &str,
    ) -> PaymentResult<TransferDone> {
        let (from, to) = (from.trim(), to.trim());
        if !self.known_place(from)
            || !self.known_place(to)
            || from == to
            || (from != "main" && to != "main")
        {
            return Err(PaymentFailure::refused(
                codes::UNKNOWN_GAME_WALLET,
                "Choose the main wallet and a game wallet",
            ));
        }
        let currency = self.member_currency(member_id).await?;
        let amount = parse_amount(amount, currency)?;
        let id = format!("T{:09}", self.transfer_ids.next().await?);
        sqlx::query(
            "INSERT INTO game_transfers (transfer_id, member_id, provider, direction, amount, currency, status, created_ms) VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7)",
        )
        .bind(&id)
        .bind(member_id)
        .bind(if from == "main" { to } else { from })
        .bind(if from == "main" { "in" } else { "out" })
        .bind(amount.to_string())
        .bind(currency.code())
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        let debit = WalletCommand::new(
            wallet_of(member_id, from, currency),
            format!("transfer:{id}:out"),
            WalletAction::Debit {
                amount,
                pot: Pot::Main,
                kind: MovementKind::Adjustment,
            },
        );
        let debit = if from == "main" {
            // Money into a game wallet is staked there: the member's
            // limits and exclusions decide with the debit.
            match self.debit_to_game(member_id, debit, amount).await {
                Err(Refusal::Safer(e)) => {
                    self.mark_transfer(&id, "refused").await?;
                    return Err(PaymentFailure::refused(e.code().0, e.to_string()));
                }
                Err(Refusal::Wallet(e)) => Err(e),
                Ok(()) => Ok(()),
            }
        } else {
            self.wallets.execute(debit).await.map(|_| ())
        };
        match debit {
            Ok(_) => {}
            Err(CommandError::Rejected(WalletError::InsufficientBalance)) => {
                self.mark_transfer(&id, "refused").await?;
                return Err(PaymentFailure::refused(
                    codes::TRANSFER_BALANCE,
                    "Insufficient balance.",
                ));
            }
            // The sweeper gave this transfer up while the process was
            // stalled (more than 2 minutes): nothing moved.
            Err(CommandError::Rejected(WalletError::Voided)) => {
                return Err(PaymentFailure::refused(
                    domain::errors::Code::REFERENCE_VOIDED.0,
                    "Transfer timed out, nothing was moved; please try again",
                ));
            }
            Err(e) => return Err(PaymentFailure::internal(e)),
        }
        let receipt = self
            .credit_transfer(&id, member_id, to, amount, currency)
            .await?;
        let main = if from == "main" {
            self.wallets
                .load(&wallet_of(member_id, "main", currency))
                .await
                .map_err(PaymentFailure::internal)?
                .balances()
                .main
        } else {
            receipt
        };
        Ok(TransferDone {
            transfer_id: id,
            from: from.to_string(),
            to: to.to_string(),
            amount: amount.to_string(),
            main_balance: currency.round(main).to_string(),
        })
    }

    /// The debit of the main wallet and the member's stake check, in one
    /// unit of work.
    async fn debit_to_game(
        &self,
        member_id: &str,
        debit: WalletCommand,
        amount: rust_decimal::Decimal,
    ) -> Result<(), Refusal> {
        let uow = UnitOfWork::new(self.wallets.framework().retry())
            .counted(self.wallets.framework().metrics(), "Wallet");
        let done: Result<(), UnitError<Refusal>> = store::unit_of_work!(uow, |unit| {
            self.safer
                .stake_in(unit, member_id, &debit.reference, amount)
                .await?
                .map_err(|e| Failed::Refused(Refusal::Safer(e)))?;
            self.wallets
                .move_in(
                    unit,
                    &debit.wallet,
                    debit.reference.clone(),
                    debit.action.clone(),
                )
                .await?
                .map_err(|e| Failed::Refused(Refusal::Wallet(CommandError::Rejected(e))))?;
            Ok(())
        });
        match done {
            Ok(()) => Ok(()),
            Err(UnitError::Refused(refusal)) => Err(refusal),
            Err(e) => Err(Refusal::Wallet(CommandError::Store(e.to_string()))),
        }
    }

    async fn credit_transfer(
        &self,
        id: &str,
        member_id: &str,
        to: &str,
        amount: rust_decimal::Decimal,
        currency: Currency,
    ) -> PaymentResult<rust_decimal::Decimal> {
        let receipt = self
            .wallets
            .execute(WalletCommand::new(
                wallet_of(member_id, to, currency),
                format!("transfer:{id}:in"),
                WalletAction::Credit {
                    amount,
                    pot: Pot::Main,
                    kind: MovementKind::Adjustment,
                },
            ))
            .await
            .map_err(PaymentFailure::internal)?;
        self.mark_transfer(id, "done").await?;
        Ok(receipt.balances.main)
    }

    async fn mark_transfer(&self, id: &str, status: &str) -> PaymentResult<()> {
        sqlx::query("UPDATE game_transfers SET status = $1 WHERE transfer_id = $2")
            .bind(status)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Finishes transfers left pending for more than 30 s: credited if the
    /// source was debited, refused if it never was (after 2 minutes, with
    /// the source reference voided so the debit can never commit later).
    pub async fn sweep_transfers(&self) -> PaymentResult<usize> {
        let now = self.clock.now_ms();
        let rows = sqlx::query(
            "SELECT transfer_id, member_id, provider, direction, amount, currency, created_ms FROM game_transfers WHERE status = 'pending' AND created_ms < $1 LIMIT 200",
        )
        .bind(now - 30_000)
        .fetch_all(&self.pool)
        .await?;
        let mut done = 0;
        for row in rows {
            let id: String = row.try_get("transfer_id")?;
            let member: String = row.try_get("member_id")?;
            let provider: String = row.try_get("provider")?;
            let direction: String = row.try_get("direction")?;
            let amount: String = row.try_get("amount")?;
            let currency: String = row.try_get("currency")?;
            let created: i64 = row.try_get("created_ms")?;
            let currency: Currency = currency.parse().map_err(PaymentFailure::internal)?;
            let amount = amount.parse().map_err(PaymentFailure::internal)?;
            let (from, to) = if direction == "in" {
                ("main".to_string(), provider)
            } else {
                (provider, "main".to_string())
            };
            let out = self
                .wallets
                .reference_outcome(
                    &wallet_of(&member, &from, currency),
                    &format!("transfer:{id}:out"),
                )
                .await
                .map_err(PaymentFailure::internal)?;
            match out {
                Some(domain::wallet::Outcome::Accepted) => {
                    self.credit_transfer(&id, &member, &to, amount, currency)
                        .await?;
                    done += 1;
                }
                Some(_) => {
                    self.mark_transfer(&id, "refused").await?;
                    done += 1;
                }
                None if now - created > 120_000 => {
                    // Given up: the source reference is voided first, so a
                    // debit still in flight (a process frozen mid-transfer)
                    // that commits later moves nothing. If it committed in
                    // the meantime, the void answers it and the transfer is
                    // credited instead.
                    let fence = self
                        .wallets
                        .execute(WalletCommand::new(
                            wallet_of(&member, &from, currency),
                            format!("transfer:{id}:out"),
                            WalletAction::Void,
                        ))
                        .await;
                    match fence {
                        Ok(_) => {
                            self.credit_transfer(&id, &member, &to, amount, currency)
                                .await?;
                        }
                        Err(CommandError::Rejected(_)) => {
                            self.mark_transfer(&id, "refused").await?;
                        }
                        Err(e) => return Err(PaymentFailure::internal(e)),
                    }
                    done += 1;
                }
                None => {}
            }
        }
        Ok(done)
    }
}

/// Why a transfer to a game wallet did not debit the main wallet.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("{0}")]
    Safer(domain::safer::SaferError),
    #[error("{0}")]
    Wallet(CommandError<WalletError>),
}
