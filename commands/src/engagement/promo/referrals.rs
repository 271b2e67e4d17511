//! Referrals (`user/invite`, `user/invitetemplate`, /recommendedgift).
//!
//! - Each member has one 6-character invite code (`promo_invite_codes`,
//!   unique), made the first time they ask for it.
//! - A referee is linked by a process manager that reads `AccountRegistered`
//!   events (the invite code of the registration form) after its checkpoint
//!   (`projection_checkpoints` row `promo_referrals`), in one transaction
//!   with the link row (keyed by the referee) and its `ReferralRegistered`
//!   event: a repeated pass links nobody twice.
//! - The maturity pass (same lease) decides each pending referral once the
//!   referee registered `days` (30) days ago: refused (self-referral, a
//!   device or payment account shared by several referees) or, when the
//!   referee's credited deposits reached `min_deposit` (500), paid: the gift
//!   (58) to the referrer's bonus pot under `referral:{referee}` with
//!   `turnover_multiple` (2) x the gift of turnover required. A referral
//!   whose deposits are short stays pending and is paid as soon as they
//!   reach the minimum.

use domain::promo::events::PromotionEvent;
use domain::promo::referral::{action, invite_code, refusal, ReferralSettings};
use domain::Currency;
use rand::Rng;
use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use store::events::Extra;
use store::unit::UnitError;

use super::{dec, unit_failure, Credit, PromoFailure, Promotions};

pub const SETTINGS: &str = "referral";
pub const CHECKPOINT: &str = "promo_referrals";
/// Events a batch of the referral pass reads at most.
const LINK_BATCH: usize = 500;

/// A referral record (spec 001 section 3).
#[derive(Debug, Clone, Serialize)]
pub struct Record {
    pub username: String,
    /// Registration time, `YYYY-MM-DD HH:MM:SS` UTC.
    pub created: String,
    /// 1 first deposit, otherwise promotion (2).
    pub action: i32,
    pub bonus: String,
    /// pending, paid, refused.
    pub state: String,
    pub reason: String,
}

/// A referral as staff see it.
#[derive(Debug, Clone, Serialize)]
pub struct Referral {
    pub referee_id: String,
    pub referrer_id: String,
    pub username: String,
    pub code: String,
    pub device_id: String,
    pub registered_ms: i64,
    pub state: String,
    pub reason: String,
    pub bonus: String,
    pub currency: String,
    pub reference: String,
    pub decided_ms: i64,
}

impl Promotions {
    pub async fn referral_settings(&self) -> Result<ReferralSettings, PromoFailure> {
        self.settings(SETTINGS).await
    }

    pub async fn save_referral_settings(
        &self,
        s: &ReferralSettings,
        staff_id: &str,
    ) -> Result<(), PromoFailure> {
        s.check()
            .map_err(|m| PromoFailure::refused(domain::promo::codes::BAD_SETTINGS, m))?;
        self.save_settings(SETTINGS, s, staff_id).await
    }

    /// The member's invite code, made on first use.
    pub async fn invite_code(&self, member_id: &str) -> Result<String, PromoFailure> {
        for _ in 0..20 {
            if let Some(code) = sqlx::query_scalar::<_, String>(
                "SELECT code FROM promo_invite_codes WHERE member_id = $1",
            )
            .bind(member_id)
            .fetch_optional(&self.pool)
            .await?
            {
                return Ok(code);
            }
            let code = invite_code(rand::rng().random());
            // A taken code (or a twin request) inserts nothing: read again.
            sqlx::query(
                "INSERT INTO promo_invite_codes (member_id, code, created_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
            )
            .bind(member_id)
            .bind(&code)
            .bind(self.now_ms())
            .execute(&self.pool)
            .await?;
        }
        Err(PromoFailure::Internal("no free invite code".into()))
    }

    /// One pass of the referral process manager: links, then maturity.
    pub async fn referral_pass(&self) -> Result<usize, PromoFailure> {
        let mut n = 0;
        loop {
            let (read, linked) = self.link_batch().await?;
            n += linked;
            // A short batch read everything visible: the pass ends there
            // rather than chasing each new commit batch by batch.
            if read < LINK_BATCH {
                break;
            }
        }
        Ok(n + self.mature().await?)
    }

    /// (events read, referees linked)
    async fn link_batch(&self) -> Result<(usize, usize), PromoFailure> {
        let Some(mut batch) = store::db::pass_batch(
            &self.pool,
            self.backend(),
            CHECKPOINT,
            store::stream::Only::AggregateTypes(&["Account"]),
            LINK_BATCH as i64,
        )
        .await?
        else {
            return Ok((0, 0));
        };
        let events = std::mem::take(&mut batch.events);
        let last = batch.upto;
        let mut linked = 0;
        for e in &events {
            if e.event_type != "AccountRegistered" {
                continue;
            }
            let Some(payload) = &e.payload else { continue };
            let value: Value = serde_json::from_str(payload).unwrap_or(Value::Null);
            let body = value.get("Registered").cloned().unwrap_or(value);
            let code = body
                .pointer("/profile/invite_code")
                .and_then(Value::as_str)
                .map(|c| c.trim().to_ascii_uppercase())
                .unwrap_or_default();
            if code.len() != 6 {
                continue;
            }
            let referrer: Option<String> =
                sqlx::query_scalar("SELECT member_id FROM promo_invite_codes WHERE code = $1")
                    .bind(&code)
                    .fetch_optional(&mut *batch.tx)
                    .await?;
            let Some(referrer) = referrer else { continue };
            let referee = e.aggregate_id.clone();
            let username = body
                .pointer("/profile/username")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            let device = body
                .get("device_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .chars()
                .take(128)
                .collect::<String>();
            let at = body.get("at_ms").and_then(Value::as_i64).unwrap_or(0);
            let inserted = sqlx::query(
                "INSERT INTO promo_referrals (referee_id, referrer_id, username, code, device_id, registered_ms, state)
                 VALUES ($1, $2, $3, $4, $5, $6, 'pending') ON CONFLICT (referee_id) DO NOTHING",
            )
            .bind(&referee)
            .bind(&referrer)
            .bind(&username)
            .bind(&code)
            .bind(&device)
            .bind(at)
            .execute(&mut *batch.tx)
            .await?
            .rows_affected();
            if inserted == 1 {
                let event = PromotionEvent::ReferralRegistered {
                    referee_id: referee.clone(),
                    referrer_id: referrer,
                    code,
                    at_ms: at,
                };
                // The link pass's own transaction (with its checkpoint).
                let row = Self::record_row(&format!("referral-link:{referee}"), &event)?;
                store::events::insert_rows_in(&mut batch.tx, &[row]).await?;
                linked += 1;
            }
        }
        sqlx::query(
            "UPDATE projection_checkpoints SET tx_id = $2, position = $3, updated_at = $4 WHERE name = $1",
        )
        .bind(CHECKPOINT)
        .bind(last.tx_id)
        .bind(last.position)
        .bind(self.now_ms().to_string())
        .execute(&mut *batch.tx)
        .await?;
        batch.tx.commit().await?;
        Ok((events.len(), linked))
    }

    /// Devices the member registered or logged in on (their Account events).
    async fn devices_of(&self, member_id: &str) -> Result<Vec<String>, PromoFailure> {
        let rows: Vec<String> = sqlx::query_scalar(
            "SELECT CAST(payload AS TEXT) FROM events WHERE aggregate_type = 'Account' AND aggregate_id = $1",
        )
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in rows {
            let v: Value = serde_json::from_str(&r).unwrap_or(Value::Null);
            if let Some(body) = v.as_object().and_then(|o| o.values().next()) {
                if let Some(d) = body.get("device_id").and_then(Value::as_str) {
                    if !d.is_empty() && !out.iter().any(|o| o == d) {
                        out.push(d.to_string());
                    }
                }
            }
        }
        Ok(out)
    }

    /// Why a referral must be refused, if it must.
    async fn refusal(&self, r: &Referral) -> Result<Option<&'static str>, PromoFailure> {
        if r.referrer_id == r.referee_id
            || (!r.device_id.is_empty()
                && self
                    .devices_of(&r.referrer_id)
                    .await?
                    .contains(&r.device_id))
        {
            return Ok(Some(refusal::SELF));
        }
        if !r.device_id.is_empty() {
            let shared: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM promo_referrals WHERE device_id = $1")
                    .bind(&r.device_id)
                    .fetch_one(&self.pool)
                    .await?;
            if shared > 1 {
                return Ok(Some(refusal::SHARED_DEVICE));
            }
        }
        // A card or address the referee bound is also bound by another
        // referee or by the referrer.
        let shared: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM payment_accounts a JOIN payment_accounts b ON a.number = b.number AND a.member_id <> b.member_id
             WHERE a.member_id = $1 AND (b.member_id = $2 OR b.member_id IN (SELECT referee_id FROM promo_referrals))",
        )
        .bind(&r.referee_id)
        .bind(&r.referrer_id)
        .fetch_one(&self.pool)
        .await?;
        if shared > 0 {
            return Ok(Some(refusal::SHARED_ACCOUNT));
        }
        Ok(None)
    }

    /// Decides every pending referral whose waiting time is over; returns
    /// how many were decided.
    pub async fn mature(&self) -> Result<usize, PromoFailure> {
        let settings = self.referral_settings().await?;
        let now = self.now_ms();
        let cutoff = now - settings.days as i64 * domain::promo::DAY_MS;
        // Every pending referral past its waiting time, page by page (keyset
        // on registration time and id: referees short of the deposit stay
        // pending without hiding the ones behind them).
        let mut rows = Vec::new();
        let mut cursor = (i64::MIN, String::new());
        loop {
            let page = sqlx::query(&format!(
                "{REFERRAL_SELECT} WHERE state = 'pending' AND registered_ms <= $1
                 AND (registered_ms > $2 OR (registered_ms = $2 AND referee_id > $3))
                 ORDER BY registered_ms, referee_id LIMIT 200"
            ))
            .bind(cutoff)
            .bind(cursor.0)
            .bind(&cursor.1)
            .fetch_all(&self.pool)
            .await?;
            let Some(last) = page.last() else { break };
            cursor = (last.try_get("registered_ms")?, last.try_get("referee_id")?);
            rows.extend(page);
        }
        let mut decided = 0;
        for r in rows.iter().map(referral_row) {
            let r = r?;
            let deposits = projections::vip::member(&self.pool, &r.referee_id)
                .await?
                .map(|m| m.deposits_total)
                .unwrap_or_default();
            let refused = self.refusal(&r).await?;
            if refused.is_none() && !settings.due(r.registered_ms, deposits, now) {
                continue;
            }
            let currency = match projections::vip::member(&self.pool, &r.referrer_id).await? {
                Some(m) => m.currency.parse().unwrap_or(Currency::Cny),
                None => Currency::Cny,
            };
            let gift = currency.round(settings.gift);
            let reference = format!("referral:{}", r.referee_id);
            let (state, reason, bonus) = match refused {
                Some(why) => ("refused", why, Decimal::ZERO),
                None => ("paid", "", gift),
            };
            // The decision (once: still pending), its event and the gift's
            // credit commit together.
            let row = Extra::new(
                "UPDATE promo_referrals SET state = $2, reason = $3, bonus = $4, currency = $5, reference = $6, decided_ms = $7
                 WHERE referee_id = $1 AND state = 'pending'",
            )
            .text(&r.referee_id)
            .text(state)
            .text(reason)
            .text(bonus.to_string())
            .text(currency.code())
            .text(&reference)
            .int(now)
            .expect(1);
            let event = PromotionEvent::ReferralDecided {
                referee_id: r.referee_id.clone(),
                referrer_id: r.referrer_id.clone(),
                outcome: state.to_string(),
                reason: reason.to_string(),
                bonus,
                currency: currency.code().to_string(),
                at_ms: now,
            };
            let credit = Credit {
                member_id: &r.referrer_id,
                currency,
                reference: &reference,
                amount: bonus,
                turnover_required: currency.round(bonus * settings.turnover_multiple),
                source: "referral",
            };
            let won = match self
                .commit_once(
                    &[row],
                    &[Self::record_row(&reference, &event)?],
                    Some(&credit),
                )
                .await
            {
                Ok(()) => true,
                // Decided by another pass meanwhile.
                Err(UnitError::Unmet(_)) => false,
                Err(e) => return Err(unit_failure(e)),
            };
            if won {
                decided += 1;
            }
        }
        // Credit every paid referral (a repeat moves nothing): heals a
        // credit lost after a decision the old code committed alone.
        let paid = sqlx::query(&format!(
            "{REFERRAL_SELECT} WHERE state = 'paid' AND decided_ms >= $1 ORDER BY decided_ms LIMIT 500"
        ))
        .bind(now - domain::promo::DAY_MS)
        .fetch_all(&self.pool)
        .await?;
        for r in paid.iter().map(referral_row) {
            let r = r?;
            let currency: Currency = r.currency.parse().unwrap_or(Currency::Cny);
            let bonus = dec(&r.bonus);
            self.pay(
                &r.referrer_id,
                currency,
                &r.reference,
                bonus,
                currency.round(bonus * settings.turnover_multiple),
                "referral",
            )
            .await?;
        }
        Ok(decided)
    }

    /// `user/invite` records of a referrer, newest first.
    pub async fn referral_records(&self, referrer_id: &str) -> Result<Vec<Record>, PromoFailure> {
        let rows = sqlx::query(&format!(
            "{REFERRAL_SELECT} WHERE referrer_id = $1 ORDER BY registered_ms DESC LIMIT 200"
        ))
        .bind(referrer_id)
        .fetch_all(&self.pool)
        .await?;
        let mut out = Vec::new();
        for r in rows.iter().map(referral_row) {
            let r = r?;
            let deposited = projections::vip::member(&self.pool, &r.referee_id)
                .await?
                .is_some_and(|m| m.deposits_total > Decimal::ZERO);
            out.push(Record {
                username: mask(&r.username),
                created: domain::season::format_time(r.registered_ms),
                action: action(deposited),
                bonus: dec(&r.bonus).normalize().to_string(),
                state: r.state,
                reason: r.reason,
            });
        }
        Ok(out)
    }

    /// Every referral in `state` (empty: all), newest first (staff).
    pub async fn referrals(&self, state: &str) -> Result<Vec<Referral>, PromoFailure> {
        let rows = sqlx::query(&format!(
            "{REFERRAL_SELECT} WHERE ($1 = '' OR state = $1) ORDER BY registered_ms DESC LIMIT 500"
        ))
        .bind(state)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(referral_row).collect::<Result<_, _>>()?)
    }
}

/// A referee's name as the referrer sees it: first and last characters.
fn mask(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    match chars.len() {
        0 => String::new(),
        1 | 2 => format!("{}*", chars[0]),
        n => format!("{}***{}", chars[0], chars[n - 1]),
    }
}

const REFERRAL_SELECT: &str = "SELECT referee_id, referrer_id, username, code, device_id, registered_ms, state, reason, bonus, currency, reference, decided_ms FROM promo_referrals";

fn referral_row(r: &sqlx::any::AnyRow) -> Result<Referral, sqlx::Error> {
    Ok(Referral {
        referee_id: r.try_get("referee_id")?,
        referrer_id: r.try_get("referrer_id")?,
        username: r.try_get("username")?,
        code: r.try_get("code")?,
        device_id: r.try_get("device_id")?,
        registered_ms: r.try_get("registered_ms")?,
        state: r.try_get("state")?,
        reason: r.try_get("reason")?,
        bonus: r.try_get("bonus")?,
        currency: r.try_get("currency")?,
        reference: r.try_get("reference")?,
        decided_ms: r.try_get("decided_ms")?,
    })
}
