//! Campaigns (`activity/index`, `actinfo`, `main`, `apply`, `reissuelist`,
//! `reissueget`, `MedalsNum`): defined by marketing, applied for by members,
//! rewarded at most once per member, campaign and period.
//!
//! The rule reads the member's activity from read models: deposits and
//! valid turnover from the VIP ledger, the net loss (stakes minus returns,
//! sports and casino) from `wallet_movements`. An application is a
//! `promo_applications` row keyed by (campaign, member, period) with its
//! `CampaignRewarded` event in one transaction; the bonus goes to the
//! bonus pot under `act:{campaign}:{member}:{period}` with the turnover it
//! requires. Two applications at once (any processes) insert one row.

use domain::promo::campaign::{Campaign, RewardRule};
use domain::promo::codes;
use domain::promo::events::PromotionEvent;
use domain::Currency;
use rust_decimal::Decimal;
use serde::Serialize;
use sqlx::Row;

use store::events::Extra;
use store::unit::UnitError;

use super::{dec, unit_failure, Credit, PromoFailure, Promotions};

/// A member's reward from a campaign.
#[derive(Debug, Clone, Serialize)]
pub struct Application {
    pub campaign_id: i64,
    pub member_id: String,
    pub period: String,
    pub reference: String,
    pub rule: String,
    pub basis: String,
    pub amount: String,
    pub currency: String,
    pub turnover_required: String,
    pub created_ms: i64,
}

/// What a member would get now (actinfo).
#[derive(Debug, Clone, Serialize)]
pub struct Standing {
    pub period: String,
    pub basis: String,
    pub bonus: String,
    /// 0 not qualified, 1 may apply, 2 received this period.
    pub status: i32,
    pub applied: Option<Application>,
}

fn refused(code: i32, msg: &str) -> PromoFailure {
    PromoFailure::refused(code, msg)
}

impl Promotions {
    pub async fn campaigns(&self) -> Result<Vec<Campaign>, PromoFailure> {
        let rows: Vec<String> =
            sqlx::query_scalar("SELECT def FROM promo_campaigns ORDER BY campaign_id LIMIT 500")
                .fetch_all(&self.pool)
                .await?;
        rows.iter()
            .map(|r| serde_json::from_str(r).map_err(|e| PromoFailure::Internal(e.to_string())))
            .collect()
    }

    pub async fn campaign(&self, id: u32) -> Result<Campaign, PromoFailure> {
        let def: Option<String> =
            sqlx::query_scalar("SELECT def FROM promo_campaigns WHERE campaign_id = $1")
                .bind(id as i64)
                .fetch_optional(&self.pool)
                .await?;
        let def = def.ok_or_else(|| refused(codes::NO_SUCH_CAMPAIGN, "No such activity"))?;
        serde_json::from_str(&def).map_err(|e| PromoFailure::Internal(e.to_string()))
    }

    /// Staff add or change a campaign (a slug names one campaign).
    pub async fn save_campaign(&self, c: &Campaign, staff_id: &str) -> Result<(), PromoFailure> {
        c.check().map_err(|m| refused(codes::BAD_CAMPAIGN, &m))?;
        if self
            .campaigns()
            .await?
            .iter()
            .any(|o| o.slug == c.slug && o.id != c.id)
        {
            return Err(refused(
                codes::BAD_CAMPAIGN,
                "Another activity has this slug",
            ));
        }
        let def = serde_json::to_string(c).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        let value = serde_json::to_value(c).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        let row = Extra::new(
            "INSERT INTO promo_campaigns (campaign_id, def, updated_by, updated_ms) VALUES ($1, $2, $3, $4)
             ON CONFLICT (campaign_id) DO UPDATE SET def = excluded.def, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
        )
        .int(c.id as i64)
        .text(def)
        .text(staff_id)
        .int(self.now_ms());
        self.config_changed(row, &format!("campaign:{}", c.id), value, staff_id)
            .await
    }

    /// The member's first ever deposit: (amount, at_ms).
    async fn first_deposit(&self, member_id: &str) -> Result<Option<(Decimal, i64)>, PromoFailure> {
        let row = sqlx::query(
            "SELECT money_delta, at_ms FROM vip_ledger WHERE member_id = $1 AND kind = 'deposit' ORDER BY at_ms, position LIMIT 1",
        )
        .bind(member_id)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok((
                dec(&r.try_get::<String, _>("money_delta")?),
                r.try_get("at_ms")?,
            ))
        })
        .transpose()
        .map_err(|e: sqlx::Error| e.into())
    }

    /// Net loss in [from, to): stakes minus everything bets and games paid
    /// back.
    pub async fn net_loss_between(
        &self,
        member_id: &str,
        from: i64,
        to: i64,
    ) -> Result<Decimal, PromoFailure> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT amount FROM wallet_movements WHERE member_id = $1 AND at_ms >= $2 AND at_ms < $3
             AND kind IN ('bet', 'bet_refund', 'payout', 'game_debit', 'game_credit')",
        )
        .bind(member_id)
        .bind(from)
        .bind(to)
        .fetch_all(&self.pool)
        .await?;
        let net: Decimal = rows.iter().map(|a| dec(a)).sum();
        Ok((-net).max(Decimal::ZERO))
    }

    /// (period key, basis, bonus) of `c` for the member now.
    async fn evaluate(
        &self,
        c: &Campaign,
        member_id: &str,
        currency: Currency,
    ) -> Result<(String, Decimal, Decimal), PromoFailure> {
        let (key, from, to) = c.period_at(self.now_ms());
        let (key, basis) = match &c.rule {
            RewardRule::FirstDeposit { .. } => {
                let basis = match self.first_deposit(member_id).await? {
                    Some((amount, at)) if at >= c.start_ms && at < c.end_ms => amount,
                    _ => Decimal::ZERO,
                };
                ("first".to_string(), basis)
            }
            RewardRule::Reload { .. } => (key, self.activity_between(member_id, from, to).await?.0),
            RewardRule::Turnover { .. } => {
                (key, self.activity_between(member_id, from, to).await?.1)
            }
            RewardRule::LossRebate { .. } => {
                (key, self.net_loss_between(member_id, from, to).await?)
            }
        };
        Ok((key.clone(), basis, c.rule.bonus(basis, currency)))
    }

    async fn in_audience(
        &self,
        c: &Campaign,
        member_id: &str,
        currency: Currency,
    ) -> Result<bool, PromoFailure> {
        let a = &c.audience;
        if !a.currencies.is_empty() && !a.currencies.contains(&currency) {
            return Ok(false);
        }
        let vip = projections::vip::member(&self.pool, member_id).await?;
        let level = vip.as_ref().map(|m| m.level).unwrap_or(1);
        if a.min_vip_level > 1 && level < a.min_vip_level {
            return Ok(false);
        }
        if a.new_member_days > 0 {
            let registered = vip.as_ref().map(|m| m.registered_ms).unwrap_or(0);
            let limit = a.new_member_days as i64 * domain::promo::DAY_MS;
            if registered <= 0 || self.now_ms() - registered > limit {
                return Ok(false);
            }
        }
        Ok(true)
    }

    async fn application(
        &self,
        c: u32,
        member_id: &str,
        period: &str,
    ) -> Result<Option<Application>, PromoFailure> {
        let row = sqlx::query(&format!(
            "{APPLICATION_SELECT} WHERE campaign_id = $1 AND member_id = $2 AND period = $3"
        ))
        .bind(c as i64)
        .bind(member_id)
        .bind(period)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(application_row).transpose()?)
    }

    /// `activity/actinfo {aid}`: where the member stands in a campaign.
    pub async fn standing(
        &self,
        id: u32,
        member_id: &str,
        currency: Currency,
    ) -> Result<(Campaign, Standing), PromoFailure> {
        let c = self.campaign(id).await?;
        let (period, basis, bonus) = self.evaluate(&c, member_id, currency).await?;
        let applied = self.application(id, member_id, &period).await?;
        let status = if applied.is_some() {
            2
        } else if c.running(self.now_ms())
            && bonus > Decimal::ZERO
            && self.in_audience(&c, member_id, currency).await?
        {
            1
        } else {
            0
        };
        Ok((
            c,
            Standing {
                period,
                basis: basis.normalize().to_string(),
                bonus: bonus.normalize().to_string(),
                status,
                applied,
            },
        ))
    }

    /// `activity/apply {aid}` (and `main` for campaigns): the reward of the
    /// period, once. A second application answers -63005.
    pub async fn apply(
        &self,
        id: u32,
        member_id: &str,
        currency: Currency,
    ) -> Result<Application, PromoFailure> {
        let c = self.campaign(id).await?;
        let now = self.now_ms();
        if !c.running(now) {
            return Err(refused(
                codes::NOT_IN_PERIOD,
                "The activity is not in progress",
            ));
        }
        if !self.in_audience(&c, member_id, currency).await? {
            return Err(refused(
                codes::NOT_IN_AUDIENCE,
                "You are not eligible for this activity",
            ));
        }
        let (period, basis, bonus) = self.evaluate(&c, member_id, currency).await?;
        if self.application(id, member_id, &period).await?.is_none() {
            if bonus <= Decimal::ZERO {
                return Err(refused(
                    codes::NOT_QUALIFIED,
                    "The conditions of this activity are not met yet",
                ));
            }
            let reference = format!("act:{id}:{member_id}:{period}");
            let turnover = currency.round(bonus * c.turnover_multiple);
            let rule = c.rule.name();
            // The application (once a period), its event and its credit
            // commit together.
            let row = Extra::new(
                "INSERT INTO promo_applications (campaign_id, member_id, period, reference, rule, basis, amount, currency, turnover_required, created_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (campaign_id, member_id, period) DO NOTHING",
            )
            .int(id as i64)
            .text(member_id)
            .text(&period)
            .text(&reference)
            .text(rule)
            .text(basis.to_string())
            .text(bonus.to_string())
            .text(currency.code())
            .text(turnover.to_string())
            .int(now)
            .expect(1);
            let event = PromotionEvent::CampaignRewarded {
                member_id: member_id.to_string(),
                campaign_id: id,
                period: period.clone(),
                rule: rule.to_string(),
                basis,
                amount: bonus,
                currency: currency.code().to_string(),
                turnover_required: turnover,
                at_ms: now,
            };
            let credit = Credit {
                member_id,
                currency,
                reference: &reference,
                amount: bonus,
                turnover_required: turnover,
                source: "campaign",
            };
            match self
                .commit_once(
                    &[row],
                    &[Self::record_row(&reference, &event)?],
                    Some(&credit),
                )
                .await
            {
                Ok(()) => {
                    return self
                        .application(id, member_id, &period)
                        .await?
                        .ok_or_else(|| PromoFailure::Internal("application vanished".into()));
                }
                // Applied by a twin meanwhile: answered below.
                Err(UnitError::Unmet(_)) => {}
                Err(e) => return Err(unit_failure(e)),
            }
        }
        let first = self
            .application(id, member_id, &period)
            .await?
            .ok_or_else(|| PromoFailure::Internal("application vanished".into()))?;
        self.pay_application(&first).await?;
        Err(refused(
            codes::ALREADY_APPLIED,
            "You have already applied for this activity",
        ))
    }

    async fn pay_application(&self, a: &Application) -> Result<(), PromoFailure> {
        let currency: Currency = a
            .currency
            .parse()
            .map_err(|_| PromoFailure::Internal(format!("currency {}", a.currency)))?;
        self.pay(
            &a.member_id,
            currency,
            &a.reference,
            dec(&a.amount),
            dec(&a.turnover_required),
            "campaign",
        )
        .await
    }

    /// `activity/reissuelist`: the member's campaign rewards, newest first.
    pub async fn applications_of(&self, member_id: &str) -> Result<Vec<Application>, PromoFailure> {
        let rows = sqlx::query(&format!(
            "{APPLICATION_SELECT} WHERE member_id = $1 ORDER BY created_ms DESC LIMIT 100"
        ))
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(application_row).collect::<Result<_, _>>()?)
    }

    /// `activity/reissueget {reference}`: re-issues a recorded reward's
    /// credit (the wallet moves money only if it never arrived).
    pub async fn reissue(
        &self,
        member_id: &str,
        reference: &str,
    ) -> Result<Application, PromoFailure> {
        let row = sqlx::query(&format!(
            "{APPLICATION_SELECT} WHERE reference = $1 AND member_id = $2"
        ))
        .bind(reference)
        .bind(member_id)
        .fetch_optional(&self.pool)
        .await?;
        let a = row
            .as_ref()
            .map(application_row)
            .transpose()?
            .ok_or_else(|| refused(codes::NO_SUCH_CAMPAIGN, "No such reward"))?;
        self.pay_application(&a).await?;
        Ok(a)
    }
}

const APPLICATION_SELECT: &str = "SELECT campaign_id, member_id, period, reference, rule, basis, amount, currency, turnover_required, created_ms FROM promo_applications";

fn application_row(r: &sqlx::any::AnyRow) -> Result<Application, sqlx::Error> {
    Ok(Application {
        campaign_id: r.try_get("campaign_id")?,
        member_id: r.try_get("member_id")?,
        period: r.try_get("period")?,
        reference: r.try_get("reference")?,
        rule: r.try_get("rule")?,
        basis: r.try_get("basis")?,
        amount: r.try_get("amount")?,
        currency: r.try_get("currency")?,
        turnover_required: r.try_get("turnover_required")?,
        created_ms: r.try_get("created_ms")?,
    })
}
