//! Daily sign-in and daily / novice tasks (`activity/signin`,
//! `activity/gettasklist`, `activity/gettaskbonus`, /novicetask).
//!
//! Progress is read from the read models the season engine's sources also
//! feed: sign-ins from `promo_signins`, deposits and valid turnover from
//! the VIP ledger (one row per source event, docs/vip.md). A day is a UTC
//! day. A claim is a `promo_task_claims` row keyed by its reference (daily:
//! member, task and day; novice: member and task) with its `Promotion`
//! event; the bonus follows under the same reference.

use domain::promo::events::PromotionEvent;
use domain::promo::tasks::{
    claim_period, claim_reference, percent, streak_on, task_status, TaskDef, TaskGroup, TaskKind,
    TaskSettings,
};
use domain::promo::{codes, day_of, DAY_MS};
use domain::Currency;
use rust_decimal::Decimal;
use serde::Serialize;
use sqlx::Row;

use store::events::Extra;
use store::unit::UnitError;

use super::{dec, unit_failure, Credit, PromoFailure, Promotions};

pub const SETTINGS: &str = "tasks";

/// The answer of a sign-in.
#[derive(Debug, Clone, Serialize)]
pub struct SignIn {
    pub day: i64,
    pub streak: u32,
    pub reward: Decimal,
    pub reference: String,
}

/// A task as the member sees it (spec 001 section 3 task fields).
#[derive(Debug, Clone, Serialize)]
pub struct TaskView {
    pub id: u32,
    pub group: TaskGroup,
    pub kind: TaskKind,
    pub taskdesc: String,
    pub taskvalue: String,
    pub nowvalue: String,
    pub cash: String,
    pub status: i32,
    pub needcheck: i32,
    pub percent: u32,
}

/// Signing in state for the list: today's streak and whether done.
#[derive(Debug, Clone, Serialize)]
pub struct SignState {
    pub signed_today: bool,
    /// The streak as of today (or yesterday's, still alive).
    pub streak: u32,
    pub rewards: Vec<String>,
    /// Days signed in, as `YYYY-MM-DD`, the last 31.
    pub days: Vec<String>,
}

/// A claim row (support/marketing queue).
#[derive(Debug, Clone, Serialize)]
pub struct TaskClaim {
    pub reference: String,
    pub member_id: String,
    pub task_id: i64,
    pub period: String,
    pub cash: String,
    pub currency: String,
    pub state: String,
    pub reason: String,
    pub staff_id: String,
    pub created_ms: i64,
    pub decided_ms: i64,
}

impl Promotions {
    pub async fn task_settings(&self) -> Result<TaskSettings, PromoFailure> {
        self.settings(SETTINGS).await
    }

    pub async fn save_task_settings(
        &self,
        settings: &TaskSettings,
        staff_id: &str,
    ) -> Result<(), PromoFailure> {
        settings
            .check()
            .map_err(|m| PromoFailure::refused(codes::BAD_SETTINGS, m))?;
        self.save_settings(SETTINGS, settings, staff_id).await
    }

    /// `activity/signin`: once per member and day; the streak continues
    /// from yesterday. A second sign-in the same day answers -64030 (and
    /// re-sends the first one's credit, which the wallet answers without
    /// moving money).
    pub async fn sign_in(
        &self,
        member_id: &str,
        currency: Currency,
    ) -> Result<SignIn, PromoFailure> {
        // No promotions while self-excluded or in a time-out.
        self.safer.may_play(member_id).await.map_err(|e| match e {
            crate::compliance::safer::SaferFailure::Refused(r) => {
                PromoFailure::refused(r.code().0, r.to_string())
            }
            other => PromoFailure::Internal(other.to_string()),
        })?;
        let settings = self.task_settings().await?;
        let today = self.today();
        let now = self.now_ms();
        let reference = format!("signin:{member_id}:{today}");
        // Earlier days do not change: the streak is read before the unit.
        let previous = sqlx::query(
            "SELECT day, streak FROM promo_signins WHERE member_id = $1 AND day < $2 ORDER BY day DESC LIMIT 1",
        )
        .bind(member_id)
        .bind(today)
        .fetch_optional(&self.pool)
        .await?
        .map(|r| -> Result<(i64, u32), sqlx::Error> {
            Ok((r.try_get("day")?, r.try_get::<i64, _>("streak")? as u32))
        })
        .transpose()?;
        let streak = streak_on(today, previous);
        let reward = currency.round(settings.signin_reward(streak));
        let multiple = settings.turnover_multiple;
        // Today's row (once a day), its event and its credit commit together.
        let row = Extra::new(
            "INSERT INTO promo_signins (member_id, day, streak, reward, currency, reference, at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (member_id, day) DO NOTHING",
        )
        .text(member_id)
        .int(today)
        .int(streak as i64)
        .text(reward.to_string())
        .text(currency.code())
        .text(&reference)
        .int(now)
        .expect(1);
        let event = PromotionEvent::SignedIn {
            member_id: member_id.to_string(),
            day: today,
            streak,
            reward,
            currency: currency.code().to_string(),
            at_ms: now,
        };
        let credit = Credit {
            member_id,
            currency,
            reference: &reference,
            amount: reward,
            turnover_required: reward * multiple,
            source: "signin",
        };
        let committed = self
            .commit_once(
                &[row],
                &[Self::record_row(&reference, &event)?],
                Some(&credit),
            )
            .await;
        match committed {
            Ok(()) => Ok(SignIn {
                day: today,
                streak,
                reward,
                reference: reference.clone(),
            }),
            Err(UnitError::Unmet(_)) => {
                // Heal a credit lost after an earlier commit, then refuse.
                let row = sqlx::query(
                    "SELECT reward, currency FROM promo_signins WHERE member_id = $1 AND day = $2",
                )
                .bind(member_id)
                .bind(today)
                .fetch_one(&self.pool)
                .await?;
                let reward = dec(&row.try_get::<String, _>("reward")?);
                let cur: Currency = row
                    .try_get::<String, _>("currency")?
                    .parse()
                    .unwrap_or(currency);
                self.pay(
                    member_id,
                    cur,
                    &reference,
                    reward,
                    reward * multiple,
                    "signin",
                )
                .await?;
                Err(PromoFailure::refused(
                    codes::ALREADY_SIGNED_IN,
                    "You have already signed in today",
                ))
            }
            Err(e) => Err(unit_failure(e)),
        }
    }

    pub async fn sign_state(&self, member_id: &str) -> Result<SignState, PromoFailure> {
        let settings = self.task_settings().await?;
        let today = self.today();
        let rows = sqlx::query(
            "SELECT day, streak FROM promo_signins WHERE member_id = $1 ORDER BY day DESC LIMIT 31",
        )
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        let mut days = Vec::new();
        let mut streak = 0;
        let mut signed_today = false;
        for (i, r) in rows.iter().enumerate() {
            let day: i64 = r.try_get("day")?;
            if i == 0 && day >= today - 1 {
                streak = r.try_get::<i64, _>("streak")? as u32;
                signed_today = day == today;
            }
            days.push(domain::promo::day_text(day));
        }
        Ok(SignState {
            signed_today,
            streak,
            rewards: settings.signin.iter().map(|r| r.to_string()).collect(),
            days,
        })
    }

    /// (progress, target) of `task` for a member today.
    async fn progress_of(
        &self,
        member_id: &str,
        task: &TaskDef,
        today: i64,
    ) -> Result<Decimal, PromoFailure> {
        let (from, to) = match task.group {
            TaskGroup::Daily => (today * DAY_MS, (today + 1) * DAY_MS),
            TaskGroup::Novice => (0, i64::MAX),
        };
        Ok(match task.kind {
            TaskKind::Signin => {
                let n: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM promo_signins WHERE member_id = $1 AND day >= $2 AND day < $3",
                )
                .bind(member_id)
                .bind(day_of(from))
                .bind(if to == i64::MAX { i64::MAX } else { day_of(to) })
                .fetch_one(&self.pool)
                .await?;
                Decimal::from(n)
            }
            TaskKind::Deposit => self.activity_between(member_id, from, to).await?.0,
            TaskKind::Turnover => self.activity_between(member_id, from, to).await?.1,
        })
    }

    async fn claim_state(&self, reference: &str) -> Result<Option<String>, PromoFailure> {
        Ok(
            sqlx::query_scalar("SELECT state FROM promo_task_claims WHERE reference = $1")
                .bind(reference)
                .fetch_optional(&self.pool)
                .await?,
        )
    }

    /// `activity/gettasklist`: the tasks of `group` (None: all) with
    /// progress and status, titles in `lang` (zhh, eng, tha).
    pub async fn task_list(
        &self,
        member_id: &str,
        group: Option<TaskGroup>,
        lang: &str,
    ) -> Result<Vec<TaskView>, PromoFailure> {
        let settings = self.task_settings().await?;
        let today = self.today();
        let mut out = Vec::new();
        for task in settings
            .tasks
            .iter()
            .filter(|t| group.is_none_or(|g| t.group == g))
        {
            let now = self.progress_of(member_id, task, today).await?;
            let reference = claim_reference(member_id, task, today);
            let state = self.claim_state(&reference).await?;
            out.push(TaskView {
                id: task.id,
                group: task.group,
                kind: task.kind,
                taskdesc: task.title.pick(lang).to_string(),
                taskvalue: task.target.normalize().to_string(),
                nowvalue: now.min(task.target).normalize().to_string(),
                cash: task.cash.normalize().to_string(),
                status: task_status(now >= task.target, state.as_deref()),
                needcheck: task.needcheck as i32,
                percent: percent(now, task.target),
            });
        }
        Ok(out)
    }

    /// `activity/gettaskbonus {id}`: a completed task's reward, once per
    /// reference. needcheck tasks wait for review (state "pending"). A
    /// repeat answers the first claim's state.
    pub async fn claim_task(
        &self,
        member_id: &str,
        currency: Currency,
        task_id: u32,
    ) -> Result<TaskClaim, PromoFailure> {
        let settings = self.task_settings().await?;
        let task = settings
            .task(task_id)
            .cloned()
            .ok_or_else(|| PromoFailure::refused(codes::NO_SUCH_TASK, "No such task"))?;
        let today = self.today();
        let reference = claim_reference(member_id, &task, today);
        // Whether this call credited the claim with its record.
        let mut recorded = false;
        if self.claim_state(&reference).await?.is_none() {
            let now_value = self.progress_of(member_id, &task, today).await?;
            if now_value < task.target {
                return Err(PromoFailure::refused(
                    codes::TASK_NOT_DONE,
                    "The task is not completed yet",
                ));
            }
            let state = if task.needcheck { "pending" } else { "paid" };
            let cash = currency.round(task.cash);
            let period = claim_period(&task, today);
            let now = self.now_ms();
            // The claim's row (once per reference), its event and, paid at
            // once, its credit commit together.
            let row = Extra::new(
                "INSERT INTO promo_task_claims (reference, member_id, task_id, period, cash, currency, state, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
                 ON CONFLICT (reference) DO NOTHING",
            )
            .text(&reference)
            .text(member_id)
            .int(task_id as i64)
            .text(&period)
            .text(cash.to_string())
            .text(currency.code())
            .text(state)
            .int(now)
            .expect(1);
            let event = PromotionEvent::TaskRewardClaimed {
                member_id: member_id.to_string(),
                task_id,
                period: period.clone(),
                cash,
                currency: currency.code().to_string(),
                state: state.to_string(),
                at_ms: now,
            };
            let credit = Credit {
                member_id,
                currency,
                reference: &reference,
                amount: cash,
                turnover_required: cash * settings.turnover_multiple,
                source: "task",
            };
            let paid_now = !task.needcheck;
            match self
                .commit_once(
                    &[row],
                    &[Self::record_row(&reference, &event)?],
                    paid_now.then_some(&credit),
                )
                .await
            {
                Ok(()) => recorded = paid_now,
                // Claimed by a twin meanwhile: answered from its row.
                Err(UnitError::Unmet(_)) => {}
                Err(e) => return Err(unit_failure(e)),
            }
        }
        let claim = self
            .task_claim(&reference)
            .await?
            .ok_or_else(|| PromoFailure::Internal("claim vanished".into()))?;
        match claim.state.as_str() {
            // A repeat heals a credit the old code could lose after its
            // commit (a repeated reference moves nothing).
            "paid" | "approved" if !recorded => self.pay_claim(&claim, &settings).await?,
            "paid" | "approved" => {}
            "rejected" => {
                return Err(PromoFailure::refused(
                    codes::TASK_REJECTED,
                    format!("The claim was rejected: {}", claim.reason),
                ))
            }
            _ => {}
        }
        Ok(claim)
    }

    async fn pay_claim(
        &self,
        claim: &TaskClaim,
        settings: &TaskSettings,
    ) -> Result<(), PromoFailure> {
        let cash = dec(&claim.cash);
        let currency: Currency = claim
            .currency
            .parse()
            .map_err(|_| PromoFailure::Internal(format!("currency {}", claim.currency)))?;
        self.pay(
            &claim.member_id,
            currency,
            &claim.reference,
            cash,
            cash * settings.turnover_multiple,
            "task",
        )
        .await
    }

    pub async fn task_claim(&self, reference: &str) -> Result<Option<TaskClaim>, PromoFailure> {
        let row = sqlx::query(
            "SELECT reference, member_id, task_id, period, cash, currency, state, reason, staff_id, created_ms, decided_ms FROM promo_task_claims WHERE reference = $1",
        )
        .bind(reference)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(claim_row).transpose().map_err(Into::into)
    }

    /// Claims in `state` (empty: all), newest first.
    pub async fn task_claims(&self, state: &str) -> Result<Vec<TaskClaim>, PromoFailure> {
        let rows = sqlx::query(
            "SELECT reference, member_id, task_id, period, cash, currency, state, reason, staff_id, created_ms, decided_ms FROM promo_task_claims
             WHERE ($1 = '' OR state = $1) ORDER BY created_ms DESC, reference LIMIT 500",
        )
        .bind(state)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(claim_row)
            .collect::<Result<_, _>>()
            .map_err(Into::into)
    }

    /// Staff decide a needcheck claim: approve pays once, reject needs a
    /// reason. The same decision again answers the first.
    pub async fn review_task_claim(
        &self,
        reference: &str,
        approve: bool,
        reason: &str,
        staff_id: &str,
    ) -> Result<TaskClaim, PromoFailure> {
        let reason: String = reason.trim().chars().take(500).collect();
        if !approve && reason.is_empty() {
            return Err(PromoFailure::refused(
                codes::BAD_SETTINGS,
                "A rejection needs a reason",
            ));
        }
        let claim = self
            .task_claim(reference)
            .await?
            .ok_or_else(|| PromoFailure::refused(codes::NOT_PENDING, "No such claim"))?;
        let wanted = if approve { "approved" } else { "rejected" };
        if claim.state != "pending" && claim.state != wanted {
            return Err(PromoFailure::refused(
                codes::NOT_PENDING,
                "The claim is not waiting for review",
            ));
        }
        let now = self.now_ms();
        let mut recorded = false;
        if claim.state == "pending" {
            // The decision, its event and (approved) the credit together.
            let row = Extra::new(
                "UPDATE promo_task_claims SET state = $2, reason = $3, staff_id = $4, decided_ms = $5 WHERE reference = $1 AND state = 'pending'",
            )
            .text(reference)
            .text(wanted)
            .text(&reason)
            .text(staff_id)
            .int(now)
            .expect(1);
            let event = PromotionEvent::TaskClaimReviewed {
                member_id: claim.member_id.clone(),
                task_id: claim.task_id as u32,
                approve,
                reason: reason.clone(),
                staff_id: staff_id.to_string(),
                at_ms: now,
            };
            let settings = self.task_settings().await?;
            let cash = dec(&claim.cash);
            let currency: Currency = claim
                .currency
                .parse()
                .map_err(|_| PromoFailure::Internal(format!("currency {}", claim.currency)))?;
            let credit = Credit {
                member_id: &claim.member_id,
                currency,
                reference,
                amount: cash,
                turnover_required: cash * settings.turnover_multiple,
                source: "task",
            };
            let event_row =
                Self::event_row(domain::promo::events::AGGREGATE, reference, 2, &event)?;
            match self
                .commit_once(&[row], &[event_row], approve.then_some(&credit))
                .await
            {
                Ok(()) => recorded = true,
                // Decided by someone else meanwhile: answered below.
                Err(UnitError::Unmet(_)) => {}
                Err(e) => return Err(unit_failure(e)),
            }
        }
        let claim = self
            .task_claim(reference)
            .await?
            .ok_or_else(|| PromoFailure::Internal("claim vanished".into()))?;
        if claim.state == "approved" && !recorded {
            let settings = self.task_settings().await?;
            self.pay_claim(&claim, &settings).await?;
        } else if claim.state != wanted {
            return Err(PromoFailure::refused(
                codes::NOT_PENDING,
                "The claim was decided the other way",
            ));
        }
        Ok(claim)
    }
}

fn claim_row(row: &sqlx::any::AnyRow) -> Result<TaskClaim, sqlx::Error> {
    Ok(TaskClaim {
        reference: row.try_get("reference")?,
        member_id: row.try_get("member_id")?,
        task_id: row.try_get("task_id")?,
        period: row.try_get("period")?,
        cash: row.try_get("cash")?,
        currency: row.try_get("currency")?,
        state: row.try_get("state")?,
        reason: row.try_get("reason")?,
        staff_id: row.try_get("staff_id")?,
        created_ms: row.try_get("created_ms")?,
        decided_ms: row.try_get("decided_ms")?,
    })
}
