//! Deposit orders: creation per channel, provider reports, the credit
//! (exactly once: reference `deposit:{order_id}`), reversals, expiry, the
//! USDT quote and the chain watcher's reports.

use std::collections::HashMap;

use domain::payment::deposit::{NewOrder, Quote, Report, ReportStatus};
use domain::payment::{
    codes, deposit_reference, parse_amount, reversal_reference, usdt_for, Chain, Channel, Deposit,
    DepositCommand, DepositError, LimitOf,
};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletError, WalletId};
use domain::Currency;
use hmac::{Hmac, Mac};
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::json;
use sha2::Sha256;
use sqlx::Row;

use super::provider::{CallbackBody, SignatureError};
use super::{command_failure, PaymentFailure, PaymentResult, Payments};
use store::framework::CommandError;
use store::unit::{Failed, UnitError, UnitOfWork};

/// What `chongzhi` / `bankchongzhi` / `virtualchongzhi` answer.
#[derive(Debug, Clone, Serialize)]
pub struct CreatedOrder {
    pub orderid: String,
    pub pay_url: String,
    pub amount: String,
    pub currency: String,
    pub expires: i64,
    pub channel: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bank: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usdt: Option<serde_json::Value>,
}

/// A USDT rate quote (`GetVirtualExchangeRate`).
#[derive(Debug, Clone, Serialize)]
pub struct RateQuote {
    pub currency: String,
    pub rate: String,
    pub usdt_amount: Option<String>,
    pub expires: i64,
    pub quote_minutes: i64,
}

/// How a callback was answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallbackOutcome {
    Accepted,
    Repeated,
}

#[derive(Debug, thiserror::Error)]
pub enum CallbackError {
    #[error("{0}")]
    Signature(#[from] SignatureError),
    #[error("unknown provider")]
    UnknownProvider,
    #[error("bad body: {0}")]
    Body(String),
    #[error("unknown order")]
    UnknownOrder,
    #[error("{0}")]
    Internal(String),
}

impl Payments {
    pub(crate) async fn load_deposit(&self, order_id: &str) -> PaymentResult<Deposit> {
        let loaded = self
            .deposits
            .store()
            .load_current(order_id)
            .await
            .map_err(PaymentFailure::internal)?;
        Ok(loaded.aggregate)
    }

    async fn run_deposit(
        &self,
        order_id: &str,
        command: DepositCommand,
        metadata: HashMap<String, String>,
    ) -> PaymentResult<()> {
        self.deposits
            .execute(order_id, command, metadata)
            .await
            .map_err(|e| command_failure(e, DepositError::code))
    }

    /// The order and the member's deposit limits and exclusions in one
    /// unit of work: a deposit limit holds across concurrent orders and
    /// processes (the order is counted in the member's SaferGambling).
    async fn place_deposit(
        &self,
        member_id: &str,
        order_id: &str,
        amount: Decimal,
        order: NewOrder,
    ) -> PaymentResult<()> {
        #[derive(Debug, thiserror::Error)]
        enum Why {
            #[error("{0}")]
            Deposit(DepositError),
            #[error("{0}")]
            Safer(domain::safer::SaferError),
        }
        let uow =
            UnitOfWork::new(self.deposits.retry()).counted(self.deposits.metrics(), "Deposit");
        let placed: Result<(), UnitError<Why>> = store::unit_of_work!(uow, |unit| {
            self.safer
                .deposit_in(unit, member_id, &format!("deposit:{order_id}"), amount)
                .await?
                .map_err(|e| Failed::Refused(Why::Safer(e)))?;
            unit.decide_new(
                &self.deposits,
                order_id,
                DepositCommand::Create(order.clone()),
                self.deposits.services(),
            )
            .await?
            .map_err(|e| Failed::Refused(Why::Deposit(e)))?;
            Ok(())
        });
        match placed {
            Ok(()) => Ok(()),
            Err(UnitError::Refused(Why::Safer(e))) => {
                Err(PaymentFailure::refused(e.code().0, e.to_string()))
            }
            Err(UnitError::Refused(Why::Deposit(e))) => {
                Err(PaymentFailure::refused(e.code(), e.to_string()))
            }
            Err(e) => Err(PaymentFailure::internal(e)),
        }
    }

    /// The member's deposit order on `channel`.
    pub async fn create_deposit(
        &self,
        member_id: &str,
        channel: Channel,
        amount: &str,
        chain: Option<&str>,
    ) -> PaymentResult<CreatedOrder> {
        let currency = self.member_currency(member_id).await?;
        let amount = parse_amount(amount, currency)?;
        let limits = self
            .settings
            .deposit_limits(channel, currency)
            .ok_or_else(|| {
                PaymentFailure::refused(
                    codes::UNKNOWN_CHANNEL,
                    format!("No {} deposits in {currency}", channel.name()),
                )
            })?;
        limits.check(amount, currency, LimitOf::Deposit)?;
        let open: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM money_orders WHERE member_id = $1 AND kind = 'deposit' AND status IN ('created', 'confirmed')",
        )
        .bind(member_id)
        .fetch_one(&self.pool)
        .await?;
        if open >= self.settings.max_open_orders {
            return Err(PaymentFailure::refused(
                codes::OPEN_ORDERS,
                "Too many unpaid deposit orders: pay or cancel one first",
            ));
        }
        let now = self.clock.now_ms();
        let id = self.deposit_ids.next().await?;
        let order_id = format!("D{id:09}");
        let quote = match channel {
            Channel::Usdt => {
                let chain = chain.and_then(Chain::parse).ok_or_else(|| {
                    PaymentFailure::refused(codes::UNKNOWN_CHAIN, "Choose TRC20 or ERC20")
                })?;
                let address = self.usdt_address(member_id, chain).await?;
                let rate = self.usdt_rate(currency).await?;
                Some(Quote {
                    chain,
                    address,
                    rate,
                    usdt_amount: usdt_for(amount, rate)
                        .ok_or_else(|| PaymentFailure::internal("no USDT rate"))?,
                    expires_ms: now + self.settings.usdt.quote_minutes * 60_000,
                })
            }
            _ => None,
        };
        let expires_ms = match &quote {
            // A USDT order waits for the chain longer than its quote lasts:
            // a late transfer is re-quoted, not lost.
            Some(_) => now + 24 * 3_600_000,
            None => now + self.settings.order_minutes * 60_000,
        };
        let order = NewOrder {
            order_id: order_id.clone(),
            member_id: member_id.to_string(),
            currency,
            amount,
            channel,
            provider: match channel {
                Channel::Provider => "sandbox".to_string(),
                Channel::Bank => "bank".to_string(),
                Channel::Usdt => "chain".to_string(),
            },
            created_ms: now,
            expires_ms,
            quote: quote.clone(),
        };
        self.place_deposit(member_id, &order_id, amount, order)
            .await?;
        let pay_url = match channel {
            Channel::Provider => self.sandbox_pay_url(&order_id),
            _ => String::new(),
        };
        let bank = (channel == Channel::Bank).then(|| {
            json!({"bank_name": self.settings.bank.bank_name, "account": self.settings.bank.account,
                "holder": self.settings.bank.holder, "reference": order_id})
        });
        let usdt = quote.map(|q| {
            json!({"chain": q.chain.name(), "address": q.address, "rate": q.rate.to_string(),
                "usdt_amount": q.usdt_amount.to_string(), "quote_expires": q.expires_ms,
                "confirmations": self.settings.confirmations(q.chain)})
        });
        Ok(CreatedOrder {
            orderid: order_id,
            pay_url,
            amount: amount.to_string(),
            currency: currency.code().to_string(),
            expires: expires_ms,
            channel: channel.name().to_string(),
            bank,
            usdt,
        })
    }

    pub fn sandbox_pay_url(&self, order_id: &str) -> String {
        use super::provider::PaymentProvider;
        self.sandbox().pay_url(order_id)
    }

    /// The member's own order, or 'Unknown deposit order'.
    pub async fn member_deposit(&self, member_id: &str, order_id: &str) -> PaymentResult<Deposit> {
        let order_id = order_id.trim();
        if order_id.is_empty() || order_id.len() > 40 {
            return Err(PaymentFailure::refused(
                codes::UNKNOWN_ORDER,
                "Unknown deposit order",
            ));
        }
        let deposit = self.load_deposit(order_id).await?;
        match &deposit.order {
            Some(o) if o.member_id == member_id => Ok(deposit),
            _ => Err(PaymentFailure::refused(
                codes::UNKNOWN_ORDER,
                "Unknown deposit order",
            )),
        }
    }

    /// `confirmorder`: the member says the bank transfer was sent.
    pub async fn confirm_deposit(&self, member_id: &str, order_id: &str) -> PaymentResult<()> {
        self.member_deposit(member_id, order_id).await?;
        let at_ms = self.clock.now_ms();
        self.run_deposit(order_id, DepositCommand::Confirm { at_ms }, HashMap::new())
            .await
    }

    /// `cancelorder`.
    /// A cancelled order no longer counts towards the member's deposit
    /// limit (an expired or failed one still does until its period ends:
    /// a late payment may still credit it).
    pub async fn cancel_deposit(&self, member_id: &str, order_id: &str) -> PaymentResult<()> {
        let deposit = self.member_deposit(member_id, order_id).await?;
        let at_ms = self.clock.now_ms();
        self.run_deposit(order_id, DepositCommand::Cancel { at_ms }, HashMap::new())
            .await?;
        if let Some(order) = &deposit.order {
            self.safer
                .deposit_failed(
                    member_id,
                    &format!("deposit:{order_id}"),
                    order.amount,
                    order.created_ms,
                )
                .await
                .map_err(PaymentFailure::internal)?;
        }
        Ok(())
    }

    /// A provider callback: verified, deduplicated on the provider's event
    /// id, applied to the order, then the order settled (credit or
    /// reversal). A repeat settles again, which moves nothing twice.
    pub async fn callback(
        &self,
        provider: &str,
        raw: &[u8],
        signature: &str,
    ) -> Result<CallbackOutcome, CallbackError> {
        let provider = self
            .provider(provider)
            .ok_or(CallbackError::UnknownProvider)?;
        let now_s = self.clock.now_ms() / 1000;
        provider.verify(raw, signature, now_s)?;
        let body = provider.parse(raw).map_err(CallbackError::Body)?;
        if body.status == super::payouts::PAYOUT_PAID
            || body.status == super::payouts::PAYOUT_FAILED
        {
            if body.event_id.len() > 100
                || body.provider_tx_id.len() > 100
                || body.order_id.len() > 40
            {
                return Err(CallbackError::Body("ids too long".into()));
            }
            let first = self
                .record_report(provider.code(), &body, now_s * 1000)
                .await
                .map_err(|e| CallbackError::Internal(e.to_string()))?;
            return self.payout_report(provider.code(), &body, first).await;
        }
        let status = ReportStatus::parse(&body.status)
            .ok_or_else(|| CallbackError::Body(format!("status '{}'", body.status)))?;
        let amount: Decimal = body
            .amount
            .parse()
            .map_err(|_| CallbackError::Body(format!("amount '{}'", body.amount)))?;
        if body.event_id.len() > 100 || body.provider_tx_id.len() > 100 || body.order_id.len() > 40
        {
            return Err(CallbackError::Body("ids too long".into()));
        }
        let internal = |e: PaymentFailure| CallbackError::Internal(e.to_string());
        let deposit = self.load_deposit(&body.order_id).await.map_err(internal)?;
        if deposit.order.is_none() {
            return Err(CallbackError::UnknownOrder);
        }
        let first = self
            .record_report(provider.code(), &body, now_s * 1000)
            .await
            .map_err(internal)?;
        if first {
            let report = Report {
                provider_tx_id: body.provider_tx_id.clone(),
                amount,
                currency: body.currency.clone(),
                status,
                created: body.created,
                at_ms: self.clock.now_ms(),
            };
            let metadata = HashMap::from([
                ("provider".to_string(), provider.code().to_string()),
                ("event_id".to_string(), body.event_id.clone()),
            ]);
            self.run_deposit(&body.order_id, DepositCommand::Report(report), metadata)
                .await
                .map_err(internal)?;
        }
        self.settle_deposit(&body.order_id)
            .await
            .map_err(internal)?;
        Ok(if first {
            CallbackOutcome::Accepted
        } else {
            CallbackOutcome::Repeated
        })
    }

    /// Records a report once per (provider, event id): false if seen.
    async fn record_report(
        &self,
        provider: &str,
        body: &CallbackBody,
        received_ms: i64,
    ) -> PaymentResult<bool> {
        let done = sqlx::query(
            "INSERT INTO provider_transactions (provider, event_id, provider_tx_id, order_id, status, amount, currency, created, received_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (provider, event_id) DO NOTHING",
        )
        .bind(provider)
        .bind(&body.event_id)
        .bind(&body.provider_tx_id)
        .bind(&body.order_id)
        .bind(&body.status)
        .bind(&body.amount)
        .bind(&body.currency)
        .bind(body.created)
        .bind(received_ms)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Carries out what the order owes: the credit of a paid order, or the
    /// take-back of a reversed one. Safe to repeat at any time.
    pub async fn settle_deposit(&self, order_id: &str) -> PaymentResult<()> {
        let deposit = self.load_deposit(order_id).await?;
        let Some(order) = deposit.order.clone() else {
            return Ok(());
        };
        let wallet = WalletId::new(order.member_id.clone(), order.currency);
        if deposit.owes_credit() {
            let amount = deposit.credit_amount.unwrap_or(order.amount);
            self.wallets
                .execute(WalletCommand::new(
                    wallet.clone(),
                    deposit_reference(order_id),
                    WalletAction::Credit {
                        amount,
                        pot: Pot::Main,
                        kind: MovementKind::Deposit,
                    },
                ))
                .await
                .map_err(PaymentFailure::internal)?;
            let at_ms = self.clock.now_ms();
            self.run_deposit(
                order_id,
                DepositCommand::MarkCredited { at_ms },
                HashMap::new(),
            )
            .await?;
            self.tip_deposit(&order, amount, "success").await;
        }
        let deposit = self.load_deposit(order_id).await?;
        if deposit.owes_reversal() {
            let mut taken = false;
            if deposit.credited {
                let amount = deposit.credit_amount.unwrap_or(order.amount);
                let debit = self
                    .wallets
                    .execute(WalletCommand::new(
                        wallet,
                        reversal_reference(order_id),
                        WalletAction::Debit {
                            amount,
                            pot: Pot::Main,
                            kind: MovementKind::Deposit,
                        },
                    ))
                    .await;
                taken = match debit {
                    Ok(_) => true,
                    // Not enough left: finance follows it up (flagged).
                    Err(CommandError::Rejected(WalletError::InsufficientBalance)) => false,
                    Err(e) => return Err(PaymentFailure::internal(e)),
                };
            }
            let at_ms = self.clock.now_ms();
            self.run_deposit(
                order_id,
                DepositCommand::MarkReversed { at_ms, taken },
                HashMap::new(),
            )
            .await?;
        }
        Ok(())
    }

    async fn tip_deposit(&self, order: &NewOrder, amount: Decimal, status: &str) {
        let body = json!({
            "orderid": order.order_id,
            "bank_info": order.channel.name(),
            "money": amount.to_string(),
            "time": self.clock.now_ms(),
            "status": status,
        });
        let key = format!("deposit:{}:{status}", order.order_id);
        self.tip_once(
            &key,
            &order.member_id,
            crate::engagement::notify::DEPOSIT_RESULT,
            body,
        )
        .await;
    }

    /// One pass of the deposit sweeper: expired open orders close, and
    /// paid orders whose credit was interrupted get it.
    pub async fn sweep_deposits(&self) -> PaymentResult<usize> {
        let now = self.clock.now_ms();
        let rows = sqlx::query(
            "SELECT order_id, status FROM money_orders WHERE kind = 'deposit' AND status IN ('created', 'confirmed', 'failed', 'paid') ORDER BY created_ms LIMIT 500",
        )
        .fetch_all(&self.pool)
        .await?;
        let mut done = 0;
        for row in rows {
            let order_id: String = row.try_get("order_id")?;
            let status: String = row.try_get("status")?;
            if status == "paid" {
                self.settle_deposit(&order_id).await?;
                done += 1;
                continue;
            }
            let deposit = self.load_deposit(&order_id).await?;
            if deposit.order.as_ref().is_some_and(|o| now >= o.expires_ms)
                && deposit.status.is_open()
            {
                self.run_deposit(
                    &order_id,
                    DepositCommand::Expire { at_ms: now },
                    HashMap::new(),
                )
                .await?;
                done += 1;
            }
        }
        Ok(done)
    }

    /// Finance decides a flagged deposit: credit what arrived, or reject.
    pub async fn review_deposit(
        &self,
        order_id: &str,
        staff_id: &str,
        credit: bool,
        reason: &str,
    ) -> PaymentResult<()> {
        let reason = reason.trim();
        if reason.is_empty() || reason.len() > 500 {
            return Err(PaymentFailure::refused(
                domain::Code::BAD_PARAMETERS.0,
                "A reason (1 to 500 characters) is required",
            ));
        }
        let deposit = self.load_deposit(order_id).await?;
        if deposit.order.is_none() {
            return Err(PaymentFailure::refused(
                codes::UNKNOWN_ORDER,
                "Unknown deposit order",
            ));
        }
        let at_ms = self.clock.now_ms();
        self.run_deposit(
            order_id,
            DepositCommand::Review {
                staff_id: staff_id.to_string(),
                credit,
                reason: reason.to_string(),
                at_ms,
            },
            Self::staff_metadata(staff_id, reason),
        )
        .await?;
        self.settle_deposit(order_id).await
    }

    // USDT.

    /// The member's deposit address on `chain`: derived from the member,
    /// the chain and a secret (a stand-in for a custody wallet's address
    /// derivation), stored so the watcher maps it back.
    pub async fn usdt_address(&self, member_id: &str, chain: Chain) -> PaymentResult<String> {
        if let Some(address) = sqlx::query_scalar::<_, String>(
            "SELECT address FROM usdt_addresses WHERE member_id = $1 AND chain = $2",
        )
        .bind(member_id)
        .bind(chain.name())
        .fetch_optional(&self.pool)
        .await?
        {
            return Ok(address);
        }
        let mut mac = Hmac::<Sha256>::new_from_slice(self.settings.usdt.address_secret.as_bytes())
            .expect("HMAC takes any key length");
        mac.update(format!("{member_id}|{}", chain.name()).as_bytes());
        let digest = mac.finalize().into_bytes();
        let address = match chain {
            Chain::Erc20 => format!("0x{}", hex::encode(&digest[..20])),
            Chain::Trc20 => {
                const BASE58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
                let mut s = String::from("T");
                for i in 0..33 {
                    s.push(BASE58[(digest[i % 32] as usize + i * 7) % 58] as char);
                }
                s
            }
        };
        sqlx::query(
            "INSERT INTO usdt_addresses (address, member_id, chain, created_ms) VALUES ($1, $2, $3, $4) ON CONFLICT (address) DO NOTHING",
        )
        .bind(&address)
        .bind(member_id)
        .bind(chain.name())
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok(address)
    }

    /// The current rate (currency units per USDT): the shared table, first
    /// filled from configuration.
    pub async fn usdt_rate(&self, currency: Currency) -> PaymentResult<Decimal> {
        let stored: Option<String> =
            sqlx::query_scalar("SELECT rate FROM usdt_rates WHERE currency = $1")
                .bind(currency.code())
                .fetch_optional(&self.pool)
                .await?;
        let rate = match stored {
            Some(text) => text.parse().map_err(PaymentFailure::internal)?,
            None => *self
                .settings
                .usdt
                .rates
                .get(currency.code())
                .ok_or_else(|| {
                    PaymentFailure::refused(
                        codes::UNKNOWN_CHANNEL,
                        format!("No USDT rate for {currency}"),
                    )
                })?,
        };
        Ok(rate)
    }

    /// The rate source's stand-in (DEMO=1 and tests): a new rate.
    pub async fn set_usdt_rate(&self, currency: Currency, rate: Decimal) -> PaymentResult<()> {
        if rate <= Decimal::ZERO {
            return Err(PaymentFailure::refused(
                domain::Code::WRONG_AMOUNT.0,
                "Wrong amount",
            ));
        }
        sqlx::query(
            "INSERT INTO usdt_rates (currency, rate, updated_ms) VALUES ($1, $2, $3)
             ON CONFLICT (currency) DO UPDATE SET rate = excluded.rate, updated_ms = excluded.updated_ms",
        )
        .bind(currency.code())
        .bind(rate.to_string())
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// `GetVirtualExchangeRate`: the rate now, what `amount` costs in USDT,
    /// and how long the quote holds.
    pub async fn quote(&self, member_id: &str, amount: Option<&str>) -> PaymentResult<RateQuote> {
        let currency = self.member_currency(member_id).await?;
        let rate = self.usdt_rate(currency).await?;
        let usdt_amount = match amount.map(str::trim).filter(|a| !a.is_empty()) {
            Some(a) => Some(
                usdt_for(parse_amount(a, currency)?, rate)
                    .map(|u| u.to_string())
                    .unwrap_or_default(),
            ),
            None => None,
        };
        Ok(RateQuote {
            currency: currency.code().to_string(),
            rate: rate.to_string(),
            usdt_amount,
            expires: self.clock.now_ms() + self.settings.usdt.quote_minutes * 60_000,
            quote_minutes: self.settings.usdt.quote_minutes,
        })
    }

    /// The chain watcher reports a transfer to a deposit address with its
    /// confirmations. It pays the member's open USDT order on that chain;
    /// the order credits once the chain's confirmations are reached, at
    /// the locked quote, or re-quoted if the quote had expired when the
    /// transfer was first seen. Returns the order it applied to.
    pub async fn chain_transfer(
        &self,
        chain: Chain,
        address: &str,
        tx_hash: &str,
        usdt_amount: Decimal,
        confirmations: u32,
    ) -> PaymentResult<Option<String>> {
        if tx_hash.is_empty() || tx_hash.len() > 100 || usdt_amount <= Decimal::ZERO {
            return Err(PaymentFailure::refused(
                domain::Code::BAD_PARAMETERS.0,
                "Invalid request parameters",
            ));
        }
        let now = self.clock.now_ms();
        let member: Option<String> = sqlx::query_scalar(
            "SELECT member_id FROM usdt_addresses WHERE address = $1 AND chain = $2",
        )
        .bind(address)
        .bind(chain.name())
        .fetch_optional(&self.pool)
        .await?;
        let known: Option<Option<String>> =
            sqlx::query_scalar("SELECT order_id FROM chain_transfers WHERE tx_hash = $1")
                .bind(tx_hash)
                .fetch_optional(&self.pool)
                .await?;
        let order_id = match (known, &member) {
            (Some(order), _) => order,
            (None, Some(member)) => {
                let order = self.open_usdt_order(member, chain).await?;
                sqlx::query(
                    "INSERT INTO chain_transfers (tx_hash, chain, address, usdt_amount, confirmations, order_id, seen_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (tx_hash) DO NOTHING",
                )
                .bind(tx_hash)
                .bind(chain.name())
                .bind(address)
                .bind(usdt_amount.to_string())
                .bind(confirmations as i32)
                .bind(&order)
                .bind(now)
                .execute(&self.pool)
                .await?;
                order
            }
            (None, None) => None,
        };
        sqlx::query("UPDATE chain_transfers SET confirmations = $1 WHERE tx_hash = $2 AND confirmations < $1")
            .bind(confirmations as i32)
            .bind(tx_hash)
            .execute(&self.pool)
            .await?;
        let Some(order_id) = order_id else {
            // Unmatched: the reconciliation view lists it for finance.
            if member.is_none() {
                return Err(PaymentFailure::refused(
                    codes::UNKNOWN_ORDER,
                    "Unknown deposit address",
                ));
            }
            return Ok(None);
        };
        let deposit = self.load_deposit(&order_id).await?;
        let currency = deposit
            .order
            .as_ref()
            .map(|o| o.currency)
            .ok_or_else(|| PaymentFailure::internal("transfer names an unknown order"))?;
        let current_rate = self.usdt_rate(currency).await?;
        self.run_deposit(
            &order_id,
            DepositCommand::ChainTransfer {
                tx_hash: tx_hash.to_string(),
                usdt_amount,
                confirmations,
                required: self.settings.confirmations(chain),
                current_rate,
                quote_minutes: self.settings.usdt.quote_minutes,
                at_ms: now,
            },
            HashMap::from([("chain".to_string(), chain.name().to_string())]),
        )
        .await?;
        self.settle_deposit(&order_id).await?;
        Ok(Some(order_id))
    }

    /// The member's newest open USDT order on `chain`.
    async fn open_usdt_order(
        &self,
        member_id: &str,
        chain: Chain,
    ) -> PaymentResult<Option<String>> {
        let rows = sqlx::query(
            "SELECT order_id, detail FROM money_orders WHERE member_id = $1 AND kind = 'deposit' AND channel = 'usdt' AND status IN ('created', 'confirmed', 'failed') ORDER BY created_ms DESC LIMIT 20",
        )
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        for row in rows {
            let detail: String = row.try_get("detail")?;
            let detail: serde_json::Value = serde_json::from_str(&detail).unwrap_or_default();
            if detail["quote"]["chain"] == chain.name() && detail["chain_tx"].is_null() {
                return Ok(Some(row.try_get("order_id")?));
            }
        }
        Ok(None)
    }
}
