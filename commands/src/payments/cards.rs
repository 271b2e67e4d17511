//! Bank cards and USDT addresses a member binds for withdrawals
//! (`security/userbankinfo`, `adduserbank`, `uservirtualbankinfo`,
//! `addvirtualbank`): the market's card-number rule, the holder must be
//! the member's real name, a count limit and a blacklist; numbers are only
//! ever shown masked.

use domain::account::rules::Market;
use domain::payment::{codes, mask_account, parse_card_number, same_name, Chain};
use serde::Serialize;
use sqlx::Row;

use super::{PaymentFailure, PaymentResult, Payments};

#[derive(Debug, Clone, Serialize)]
pub struct PaymentAccount {
    pub id: String,
    /// "card" or "usdt".
    pub kind: String,
    /// The bank, or the chain.
    pub bank_name: String,
    pub masked: String,
    pub holder: String,
    pub created_ms: i64,
}

impl Payments {
    pub async fn payment_accounts(
        &self,
        member_id: &str,
        kind: &str,
    ) -> PaymentResult<Vec<PaymentAccount>> {
        let rows = sqlx::query(
            "SELECT id, kind, bank_name, masked, holder, created_ms FROM payment_accounts WHERE member_id = $1 AND kind = $2 ORDER BY created_ms, id",
        )
        .bind(member_id)
        .bind(kind)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(decode).collect()
    }

    pub(crate) async fn payment_account(
        &self,
        member_id: &str,
        id: &str,
    ) -> PaymentResult<Option<PaymentAccount>> {
        let row = sqlx::query(
            "SELECT id, kind, bank_name, masked, holder, created_ms FROM payment_accounts WHERE member_id = $1 AND id = $2",
        )
        .bind(member_id)
        .bind(id.trim())
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(decode).transpose()
    }

    /// `adduserbank {bank_name, card_number, holder, fundpass}`.
    pub async fn add_card(
        &self,
        member_id: &str,
        bank_name: &str,
        number: &str,
        holder: &str,
        fund_password: &str,
    ) -> PaymentResult<PaymentAccount> {
        let account = self
            .accounts
            .load(member_id)
            .await
            .map_err(PaymentFailure::internal)?;
        let profile = account.profile.as_ref().ok_or_else(|| {
            PaymentFailure::refused(domain::Code::NOT_LOGGED_IN.0, "Not logged in")
        })?;
        let bank_name = bank_name.trim();
        if bank_name.is_empty() || bank_name.chars().count() > 50 {
            return Err(PaymentFailure::refused(
                codes::BANK_NAME,
                "Please choose a bank",
            ));
        }
        let market: Market = profile.market;
        let number = parse_card_number(number, market)?;
        let real_name = profile
            .real_name
            .as_ref()
            .map(|n| n.as_str().to_string())
            .ok_or_else(|| {
                PaymentFailure::refused(codes::NO_REAL_NAME, "Please set your real name first")
            })?;
        if !same_name(holder, &real_name) {
            return Err(PaymentFailure::refused(
                codes::HOLDER_NOT_REAL_NAME,
                "The card holder must be your real name",
            ));
        }
        self.check_fund_password(member_id, fund_password).await?;
        self.bind(
            member_id,
            "card",
            bank_name,
            &number,
            &real_name,
            self.settings.max_cards,
        )
        .await
    }

    /// `addvirtualbank {chain, address, fundpass}`.
    pub async fn add_usdt_address(
        &self,
        member_id: &str,
        chain: &str,
        address: &str,
        fund_password: &str,
    ) -> PaymentResult<PaymentAccount> {
        let chain = Chain::parse(chain).ok_or_else(|| {
            PaymentFailure::refused(codes::UNKNOWN_CHAIN, "Choose TRC20 or ERC20")
        })?;
        let address = address.trim();
        if !chain.valid_address(address) {
            return Err(PaymentFailure::refused(
                codes::USDT_ADDRESS,
                format!("This is not a valid {} address", chain.name()),
            ));
        }
        self.check_fund_password(member_id, fund_password).await?;
        self.bind(
            member_id,
            "usdt",
            chain.name(),
            address,
            "",
            self.settings.max_usdt_addresses,
        )
        .await
    }

    async fn bind(
        &self,
        member_id: &str,
        kind: &str,
        bank_name: &str,
        number: &str,
        holder: &str,
        limit: i64,
    ) -> PaymentResult<PaymentAccount> {
        let listed = self.settings.blacklist.iter().any(|b| b == number)
            || sqlx::query_scalar::<_, String>(
                "SELECT value FROM payment_blacklist WHERE value = $1",
            )
            .bind(number)
            .fetch_optional(&self.pool)
            .await?
            .is_some();
        if listed {
            return Err(PaymentFailure::refused(
                codes::BLACKLISTED,
                "This account cannot be bound, please contact customer service",
            ));
        }
        let count: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM payment_accounts WHERE member_id = $1 AND kind = $2",
        )
        .bind(member_id)
        .bind(kind)
        .fetch_one(&self.pool)
        .await?;
        if count >= limit {
            return Err(PaymentFailure::refused(
                codes::ACCOUNT_LIMIT,
                format!("You can bind at most {limit}"),
            ));
        }
        let id = format!("{}", self.account_ids.next().await?);
        let now = self.clock.now_ms();
        let masked = mask_account(number);
        let inserted = sqlx::query(
            "INSERT INTO payment_accounts (id, member_id, kind, bank_name, number, masked, holder, created_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (member_id, kind, number) DO NOTHING",
        )
        .bind(&id)
        .bind(member_id)
        .bind(kind)
        .bind(bank_name)
        .bind(number)
        .bind(&masked)
        .bind(holder)
        .bind(now)
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(PaymentFailure::refused(
                codes::ALREADY_BOUND,
                "This account is already bound",
            ));
        }
        Ok(PaymentAccount {
            id,
            kind: kind.to_string(),
            bank_name: bank_name.to_string(),
            masked,
            holder: holder.to_string(),
            created_ms: now,
        })
    }

    /// Finance adds a number or address to the blacklist.
    pub async fn blacklist(&self, value: &str, reason: &str) -> PaymentResult<()> {
        sqlx::query(
            "INSERT INTO payment_blacklist (value, reason, created_ms) VALUES ($1, $2, $3) ON CONFLICT (value) DO NOTHING",
        )
        .bind(value.trim())
        .bind(reason)
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

fn decode(row: &sqlx::any::AnyRow) -> PaymentResult<PaymentAccount> {
    Ok(PaymentAccount {
        id: row.try_get("id")?,
        kind: row.try_get("kind")?,
        bank_name: row.try_get("bank_name")?,
        masked: row.try_get("masked")?,
        holder: row.try_get("holder")?,
        created_ms: row.try_get("created_ms")?,
    })
}
