//! The prize draw (`activity/actinfo` and `activity/main` with aid 5 and
//! actRand; spec 001 sections 2.12, 4, 8 -21404, 9: a board of 8).
//!
//! One transaction per draw: it first makes sure the week's stock rows
//! exist (a write, so on SQLite the draw holds the write lock from its
//! first statement), picks a prize among those with stock left by weight,
//! takes one with `UPDATE ... SET taken = taken + 1 WHERE taken < stock`
//! (on Postgres the row lock makes a concurrent draw wait and re-check the
//! condition, so the stock is never oversold; a draw that loses the race
//! picks again among what is left), inserts the member's draw row for the
//! period (the key allows one) and the `PrizeDrawn` event. Cash prizes are
//! credited after the commit under `draw:{member}:{period}`.

use domain::promo::draw::{act_rand, pick, Board, Prize, PrizeKind};
use domain::promo::events::PromotionEvent;
use domain::promo::{codes, week_of_day};
use domain::Currency;
use rand::Rng;
use serde::Serialize;
use sqlx::Row;

use store::events::Extra;
use store::unit::UnitError;

use super::{dec, unit_failure, Credit, PromoFailure, Promotions};

pub const SETTINGS: &str = "board";

/// A prize as the board shows it, with what is left this week.
#[derive(Debug, Clone, Serialize)]
pub struct BoardPrize {
    pub slot: u32,
    pub name: String,
    pub kind: PrizeKind,
    pub cash: String,
    pub left: i64,
}

/// A member's draw (the first outcome is answered on a repeat).
#[derive(Debug, Clone, Serialize)]
pub struct Drawn {
    pub slot: u32,
    /// The prize's name (spec: data.jiangpin).
    pub jiangpin: String,
    pub kind: String,
    pub cash: String,
    pub currency: String,
    pub period: String,
    /// paid (cash), to_ship / shipped (physical).
    pub state: String,
    pub reference: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct DrawInfo {
    pub prizes: Vec<BoardPrize>,
    #[serde(rename = "actRand")]
    pub act_rand: String,
    pub period: String,
    pub open: bool,
    /// This period's draw, if made.
    pub drawn: Option<Drawn>,
}

/// A draw as the member reads it: the prize's name in `lang`, while the
/// board's slot still holds the prize drawn (the record keeps the eng name).
pub fn localized(board: &Board, mut d: Drawn, lang: &str) -> Drawn {
    if let Some(p) = board.prize(d.slot) {
        if p.name.is_one_of(&d.jiangpin) {
            d.jiangpin = p.name.pick(lang).to_string();
        }
    }
    d
}

impl Promotions {
    pub async fn board(&self) -> Result<Board, PromoFailure> {
        self.settings(SETTINGS).await
    }

    /// Staff save the board; this week's stock follows the new numbers
    /// (what was taken stays taken).
    pub async fn save_board(&self, board: &Board, staff_id: &str) -> Result<(), PromoFailure> {
        board
            .check()
            .map_err(|m| PromoFailure::refused(codes::BAD_SETTINGS, m))?;
        self.save_settings(SETTINGS, board, staff_id).await?;
        let week = week_of_day(self.today());
        for p in &board.prizes {
            sqlx::query("UPDATE promo_prize_stock SET stock = $3 WHERE week = $1 AND slot = $2")
                .bind(week)
                .bind(p.slot as i64)
                .bind(p.stock as i64)
                .execute(&self.pool)
                .await?;
        }
        Ok(())
    }

    async fn drawn(&self, member_id: &str, period: &str) -> Result<Option<Drawn>, PromoFailure> {
        let row = sqlx::query(
            "SELECT slot, prize, kind, cash, currency, period, state, reference FROM promo_draws WHERE member_id = $1 AND period = $2",
        )
        .bind(member_id)
        .bind(period)
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| {
            Ok(Drawn {
                slot: r.try_get::<i64, _>("slot")? as u32,
                jiangpin: r.try_get("prize")?,
                kind: r.try_get("kind")?,
                cash: r.try_get("cash")?,
                currency: r.try_get("currency")?,
                period: r.try_get("period")?,
                state: r.try_get("state")?,
                reference: r.try_get("reference")?,
            })
        })
        .transpose()
        .map_err(|e: sqlx::Error| e.into())
    }

    /// `activity/actinfo {aid: 5}`: the board, what is left this week, the
    /// member's actRand and this period's draw, names in `lang`.
    pub async fn draw_info(&self, member_id: &str, lang: &str) -> Result<DrawInfo, PromoFailure> {
        let board = self.board().await?;
        let day = self.today();
        let week = week_of_day(day);
        let period = board.period_key(day);
        let rows = sqlx::query("SELECT slot, stock, taken FROM promo_prize_stock WHERE week = $1")
            .bind(week)
            .fetch_all(&self.pool)
            .await?;
        let mut taken = std::collections::HashMap::new();
        for r in rows {
            let slot: i64 = r.try_get("slot")?;
            let stock: i64 = r.try_get("stock")?;
            let t: i64 = r.try_get("taken")?;
            taken.insert(slot as u32, (stock - t).max(0));
        }
        let prizes = board
            .prizes
            .iter()
            .map(|p| BoardPrize {
                slot: p.slot,
                name: p.name.pick(lang).to_string(),
                kind: p.kind,
                cash: p.cash.normalize().to_string(),
                left: taken.get(&p.slot).copied().unwrap_or(p.stock as i64),
            })
            .collect();
        Ok(DrawInfo {
            prizes,
            act_rand: act_rand(member_id, &period),
            drawn: self
                .drawn(member_id, &period)
                .await?
                .map(|d| localized(&board, d, lang)),
            period,
            open: board.open,
        })
    }

    /// `activity/main {aid: 5, actRand}`: one draw per member and period.
    /// A repeat answers -62001 with the first draw; no stock left: -21404.
    pub async fn draw(
        &self,
        member_id: &str,
        currency: Currency,
        token: &str,
        address: &str,
    ) -> Result<Drawn, PromoFailure> {
        let board = self.board().await?;
        if !board.open {
            return Err(PromoFailure::refused(
                codes::DRAW_CLOSED,
                "The prize draw is closed",
            ));
        }
        let day = self.today();
        let week = week_of_day(day);
        let period = board.period_key(day);
        if token != act_rand(member_id, &period) {
            return Err(PromoFailure::refused(
                codes::STALE_ACT_RAND,
                "The draw has changed, please refresh the page",
            ));
        }
        let reference = format!("draw:{member_id}:{period}");
        if self.drawn(member_id, &period).await?.is_none() {
            let now = self.now_ms();
            // The week's stock rows (once; what a draw takes is a guard).
            for p in &board.prizes {
                sqlx::query(
                    "INSERT INTO promo_prize_stock (week, slot, stock, taken) VALUES ($1, $2, $3, 0) ON CONFLICT (week, slot) DO NOTHING",
                )
                .bind(week)
                .bind(p.slot as i64)
                .bind(p.stock as i64)
                .execute(&self.pool)
                .await?;
            }
            let rows =
                sqlx::query("SELECT slot FROM promo_prize_stock WHERE week = $1 AND taken < stock")
                    .bind(week)
                    .fetch_all(&self.pool)
                    .await?;
            let mut candidates: Vec<(u32, u32)> = Vec::new();
            for r in rows {
                let slot = r.try_get::<i64, _>("slot")? as u32;
                if let Some(p) = board.prize(slot) {
                    candidates.push((slot, p.weight));
                }
            }
            // One unit of work a try: the prize's stock taken (guard 0),
            // the member's draw of the period (guard 1: once), its event
            // and, for cash, its credit.
            let won: Option<Prize> = loop {
                let roll: u64 = rand::rng().random();
                let Some(slot) = pick(&candidates, roll) else {
                    return Err(PromoFailure::refused(
                        codes::PRIZES_GONE,
                        "The prizes have been grabbed, please be early next week",
                    ));
                };
                let prize = board
                    .prize(slot)
                    .cloned()
                    .unwrap_or_else(|| board.prizes[0].clone());
                let kind = match prize.kind {
                    PrizeKind::Cash => "cash",
                    PrizeKind::Physical => "physical",
                };
                let cash = currency.round(prize.cash);
                let state = match prize.kind {
                    PrizeKind::Cash => "paid",
                    PrizeKind::Physical => "to_ship",
                };
                let stock = Extra::new(
                    "UPDATE promo_prize_stock SET taken = taken + 1 WHERE week = $1 AND slot = $2 AND taken < stock",
                )
                .int(week)
                .int(slot as i64)
                .expect(1);
                let row = Extra::new(
                    "INSERT INTO promo_draws (member_id, period, week, slot, prize, kind, cash, currency, reference, state, address, at_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (member_id, period) DO NOTHING",
                )
                .text(member_id)
                .text(&period)
                .int(week)
                .int(prize.slot as i64)
                .text(prize.name.pick("eng"))
                .text(kind)
                .text(cash.to_string())
                .text(currency.code())
                .text(&reference)
                .text(state)
                .text(address)
                .int(now)
                .expect(1);
                let event = PromotionEvent::PrizeDrawn {
                    member_id: member_id.to_string(),
                    period: period.clone(),
                    week,
                    slot: prize.slot,
                    prize: prize.name.pick("eng").to_string(),
                    kind: kind.to_string(),
                    cash,
                    currency: currency.code().to_string(),
                    at_ms: now,
                };
                let credit = Credit {
                    member_id,
                    currency,
                    reference: &reference,
                    amount: cash,
                    turnover_required: cash * board.turnover_multiple,
                    source: "draw",
                };
                let is_cash = prize.kind == PrizeKind::Cash;
                match self
                    .commit_once(
                        &[stock, row],
                        &[Self::record_row(&reference, &event)?],
                        is_cash.then_some(&credit),
                    )
                    .await
                {
                    Ok(()) => break Some(prize),
                    // Taken by others meanwhile: another prize.
                    Err(UnitError::Unmet(0)) => candidates.retain(|(s, _)| *s != slot),
                    // A twin drew first (nothing of this try stands).
                    Err(UnitError::Unmet(_)) => break None,
                    Err(e) => return Err(unit_failure(e)),
                }
            };
            if let Some(prize) = won {
                let drawn = self
                    .drawn(member_id, &period)
                    .await?
                    .ok_or_else(|| PromoFailure::Internal("draw vanished".into()))?;
                tracing::info!(member = member_id, prize = %prize.name.pick("eng"), "prize drawn");
                return Ok(drawn);
            }
        }
        let first = self
            .drawn(member_id, &period)
            .await?
            .ok_or_else(|| PromoFailure::Internal("draw vanished".into()))?;
        // Heal a credit lost after the first draw's commit.
        self.pay_draw(member_id, &first, &board).await?;
        Err(PromoFailure::Refused(
            codes::ALREADY_DRAWN,
            format!(
                "You have drawn already ({}), come back next time",
                first.jiangpin
            ),
        ))
    }

    async fn pay_draw(
        &self,
        member_id: &str,
        d: &Drawn,
        board: &Board,
    ) -> Result<(), PromoFailure> {
        if d.kind != "cash" {
            return Ok(());
        }
        let currency: Currency = d
            .currency
            .parse()
            .map_err(|_| PromoFailure::Internal(format!("currency {}", d.currency)))?;
        let cash = dec(&d.cash);
        self.pay(
            member_id,
            currency,
            &d.reference,
            cash,
            cash * board.turnover_multiple,
            "draw",
        )
        .await
    }

    /// Prize stock of a week (staff screen): (slot, stock, taken).
    pub async fn prize_stock(&self, week: i64) -> Result<Vec<(i64, i64, i64)>, PromoFailure> {
        let rows = sqlx::query(
            "SELECT slot, stock, taken FROM promo_prize_stock WHERE week = $1 ORDER BY slot",
        )
        .bind(week)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| Ok((r.try_get("slot")?, r.try_get("stock")?, r.try_get("taken")?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}
