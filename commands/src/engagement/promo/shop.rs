//! The points shop (`shop/goodslist`, `shop/goodsinfo`, `shop/buy`; spec
//! 001 sections 7.4, 8 -403xx).
//!
//! A purchase: (1) one transaction takes the stock (`sold + qty <= stock`)
//! and the member's allowance (`bought + qty <= limit`) by conditional
//! updates and inserts the order as `reserved`; (2) the points are spent
//! through the VIP service under the reference `shop:{order}` (once per
//! reference, never below zero); (3) the order becomes `paid` (cash goods,
//! credited to the bonus pot under the same reference) or `to_ship`
//! (physical goods, with the member's address, in the fulfilment queue),
//! with its `GoodsBought` event. Not enough points after the reservation
//! (a concurrent purchase spent them) cancels the order and gives the stock
//! and allowance back. An order left `reserved` by a crash between (1) and
//! (2) is finished or cancelled by `settle_reserved` (the points service
//! answers a repeated reference with its first outcome).

use domain::promo::codes;
use domain::promo::events::PromotionEvent;
use domain::promo::shop::{default_goods, Goods, GoodsKind, MAX_QTY};
use domain::vip::VipError;
use domain::Currency;
use rand::Rng;
use rust_decimal::Decimal;
use serde::Serialize;
use sqlx::Row;

use store::events::Extra;
use store::unit::UnitError;

use super::{dec, unit_failure, Credit, PromoFailure, Promotions};
use crate::engagement::vip::VipFailure;

/// Valid turnover a cash item's bonus requires, as a multiple of it.
pub const SHOP_TURNOVER_MULTIPLE: Decimal = Decimal::ONE;

/// Goods as the shop lists them.
#[derive(Debug, Clone, Serialize)]
pub struct GoodsView {
    #[serde(flatten)]
    pub goods: Goods,
    pub sold: i64,
    pub left: i64,
    /// What this member bought so far (goodsinfo).
    pub bought: i64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Order {
    pub order_id: String,
    pub member_id: String,
    pub goods_id: i64,
    pub name: String,
    pub qty: i64,
    pub points: String,
    pub kind: String,
    pub cash: String,
    pub currency: String,
    /// reserved, paid, to_ship, shipped, cancelled
    pub state: String,
    pub address: String,
    pub created_ms: i64,
    pub shipped_ms: i64,
    pub shipped_by: String,
}

/// One row of the fulfilment queue: a physical prize or goods.
#[derive(Debug, Clone, Serialize)]
pub struct Fulfilment {
    /// "draw" or "order".
    pub source: String,
    /// The draw's reference or the order id.
    pub id: String,
    pub member_id: String,
    pub item: String,
    pub qty: i64,
    pub address: String,
    pub state: String,
    pub created_ms: i64,
    pub shipped_ms: i64,
    pub shipped_by: String,
}

fn refused(code: i32, msg: &str) -> PromoFailure {
    PromoFailure::refused(code, msg)
}

impl Promotions {
    async fn seed_goods(&self) -> Result<(), PromoFailure> {
        let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM promo_goods")
            .fetch_one(&self.pool)
            .await?;
        if n > 0 {
            return Ok(());
        }
        for g in default_goods() {
            sqlx::query(
                "INSERT INTO promo_goods (goods_id, def, stock, sold, updated_by, updated_ms) VALUES ($1, $2, $3, 0, 'default', $4) ON CONFLICT (goods_id) DO NOTHING",
            )
            .bind(g.id as i64)
            .bind(serde_json::to_string(&g).map_err(|e| PromoFailure::Internal(e.to_string()))?)
            .bind(g.stock as i64)
            .bind(self.now_ms())
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// `shop/goodslist` (and the staff list with `all`: off-sale too).
    pub async fn goods_list(&self, all: bool) -> Result<Vec<GoodsView>, PromoFailure> {
        self.seed_goods().await?;
        let rows = sqlx::query("SELECT def, sold FROM promo_goods ORDER BY goods_id LIMIT 500")
            .fetch_all(&self.pool)
            .await?;
        let mut out = Vec::new();
        for r in rows {
            let goods: Goods = serde_json::from_str(&r.try_get::<String, _>("def")?)
                .map_err(|e| PromoFailure::Internal(e.to_string()))?;
            if !all && !goods.on_sale {
                continue;
            }
            let sold: i64 = r.try_get("sold")?;
            out.push(GoodsView {
                left: (goods.stock as i64 - sold).max(0),
                goods,
                sold,
                bought: 0,
            });
        }
        Ok(out)
    }

    /// `shop/goodsinfo {id}`: one item with what the member bought.
    pub async fn goods_info(&self, member_id: &str, id: u32) -> Result<GoodsView, PromoFailure> {
        let mut view = self
            .goods_list(true)
            .await?
            .into_iter()
            .find(|g| g.goods.id == id && g.goods.on_sale)
            .ok_or_else(|| refused(codes::NO_SUCH_GOODS, "No such goods"))?;
        view.bought = sqlx::query_scalar(
            "SELECT bought FROM promo_goods_bought WHERE goods_id = $1 AND member_id = $2",
        )
        .bind(id as i64)
        .bind(member_id)
        .fetch_optional(&self.pool)
        .await?
        .unwrap_or(0);
        Ok(view)
    }

    /// Staff add or change goods (stock is the total for sale; what was
    /// sold stays sold).
    pub async fn save_goods(&self, goods: &Goods, staff_id: &str) -> Result<(), PromoFailure> {
        goods
            .check()
            .map_err(|m| refused(codes::BAD_SETTINGS, &m))?;
        self.seed_goods().await?;
        let def =
            serde_json::to_string(goods).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        let value =
            serde_json::to_value(goods).map_err(|e| PromoFailure::Internal(e.to_string()))?;
        let row = Extra::new(
            "INSERT INTO promo_goods (goods_id, def, stock, sold, updated_by, updated_ms) VALUES ($1, $2, $3, 0, $4, $5)
             ON CONFLICT (goods_id) DO UPDATE SET def = excluded.def, stock = excluded.stock, updated_by = excluded.updated_by, updated_ms = excluded.updated_ms",
        )
        .int(goods.id as i64)
        .text(def)
        .int(goods.stock as i64)
        .text(staff_id)
        .int(self.now_ms());
        self.config_changed(row, &format!("goods:{}", goods.id), value, staff_id)
            .await
    }

    /// The member's M currency left (read model: earned - spent).
    pub async fn points_left(&self, member_id: &str) -> Result<Decimal, PromoFailure> {
        Ok(projections::vip::member(&self.pool, member_id)
            .await?
            .map(|m| m.points_earned - m.points_spent)
            .unwrap_or_default())
    }

    /// `shop/buy {id, num}`.
    pub async fn buy(
        &self,
        member_id: &str,
        currency: Currency,
        goods_id: u32,
        qty: u32,
        address: &str,
    ) -> Result<Order, PromoFailure> {
        if qty == 0 || qty > MAX_QTY {
            return Err(refused(codes::BAD_QUANTITY, "Quantity 1 to 99"));
        }
        let goods = self.goods_info(member_id, goods_id).await?.goods;
        if goods.kind == GoodsKind::Physical && address.is_empty() {
            return Err(refused(
                codes::NEED_ADDRESS,
                "Please fill in your delivery address first",
            ));
        }
        let price = goods.price(qty);
        if self.points_left(member_id).await? < price {
            return Err(refused(codes::NOT_ENOUGH_POINTS, "Not enough M currency"));
        }
        let now = self.now_ms();
        let order_id = format!("S{now}{:06}", rand::rng().random_range(0..1_000_000));
        let (kind, cash) = match goods.kind {
            GoodsKind::Cash => ("cash", currency.round(goods.cash * Decimal::from(qty))),
            GoodsKind::Physical => ("physical", Decimal::ZERO),
        };
        transaction!(self, tx, {
            let took = sqlx::query(
                "UPDATE promo_goods SET sold = sold + $2 WHERE goods_id = $1 AND sold + $2 <= stock",
            )
            .bind(goods_id as i64)
            .bind(qty as i64)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if took == 0 {
                return Err(refused(codes::OUT_OF_STOCK, "Out of stock"));
            }
            sqlx::query(
                "INSERT INTO promo_goods_bought (goods_id, member_id, bought) VALUES ($1, $2, 0) ON CONFLICT (goods_id, member_id) DO NOTHING",
            )
            .bind(goods_id as i64)
            .bind(member_id)
            .execute(&mut *tx)
            .await?;
            let allowed = sqlx::query(
                "UPDATE promo_goods_bought SET bought = bought + $3 WHERE goods_id = $1 AND member_id = $2 AND ($4 = 0 OR bought + $3 <= $4)",
            )
            .bind(goods_id as i64)
            .bind(member_id)
            .bind(qty as i64)
            .bind(goods.limit as i64)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if allowed == 0 {
                return Err(refused(
                    codes::LIMIT_REACHED,
                    "You have reached the purchase limit of this item",
                ));
            }
            sqlx::query(
                "INSERT INTO promo_orders (order_id, member_id, goods_id, name, qty, points, kind, cash, currency, state, address, created_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'reserved', $10, $11)",
            )
            .bind(&order_id)
            .bind(member_id)
            .bind(goods_id as i64)
            .bind(goods.name.pick("eng"))
            .bind(qty as i64)
            .bind(price.to_string())
            .bind(kind)
            .bind(cash.to_string())
            .bind(currency.code())
            .bind(address)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            Ok(())
        })?;
        self.finish_order(&order_id).await
    }

    /// Spends the points of a reserved order and completes it, or cancels
    /// it when the points are not there. Safe to repeat.
    pub async fn finish_order(&self, order_id: &str) -> Result<Order, PromoFailure> {
        let order = self
            .order(order_id)
            .await?
            .ok_or_else(|| PromoFailure::Internal("order vanished".into()))?;
        let reference = format!("shop:{order_id}");
        // Whether this call completed the order (with its credit).
        let mut completed = false;
        if order.state == "reserved" {
            let spent = self
                .vip
                .spend_points(&order.member_id, &reference, dec(&order.points))
                .await;
            match spent {
                Ok(_) => completed = self.complete(&order, &reference).await?,
                Err(VipFailure::Refused(VipError::NotEnoughPoints)) => {
                    self.cancel(&order, "not enough points").await?;
                    return Err(refused(codes::NOT_ENOUGH_POINTS, "Not enough M currency"));
                }
                Err(e) => return Err(PromoFailure::Internal(e.to_string())),
            }
        }
        let order = self
            .order(order_id)
            .await?
            .ok_or_else(|| PromoFailure::Internal("order vanished".into()))?;
        // A repeat heals a credit the old code could lose after completing
        // (a repeated reference moves nothing).
        if order.state == "paid" && !completed {
            let currency: Currency = order
                .currency
                .parse()
                .map_err(|_| PromoFailure::Internal(format!("currency {}", order.currency)))?;
            let cash = dec(&order.cash);
            self.pay(
                &order.member_id,
                currency,
                &reference,
                cash,
                cash * SHOP_TURNOVER_MULTIPLE,
                "shop",
            )
            .await?;
        }
        Ok(order)
    }

    /// The order completed (still reserved: guard), its event and, for
    /// cash goods, its credit, in one unit of work. Whether this call
    /// completed it.
    async fn complete(&self, order: &Order, reference: &str) -> Result<bool, PromoFailure> {
        let next = if order.kind == "cash" {
            "paid"
        } else {
            "to_ship"
        };
        let now = self.now_ms();
        let row = Extra::new(
            "UPDATE promo_orders SET state = $2 WHERE order_id = $1 AND state = 'reserved'",
        )
        .text(&order.order_id)
        .text(next)
        .expect(1);
        let event = PromotionEvent::GoodsBought {
            member_id: order.member_id.clone(),
            order_id: order.order_id.clone(),
            goods_id: order.goods_id as u32,
            qty: order.qty as u32,
            points: dec(&order.points),
            kind: order.kind.clone(),
            cash: dec(&order.cash),
            currency: order.currency.clone(),
            at_ms: now,
        };
        let currency: Currency = order
            .currency
            .parse()
            .map_err(|_| PromoFailure::Internal(format!("currency {}", order.currency)))?;
        let cash = dec(&order.cash);
        let credit = Credit {
            member_id: &order.member_id,
            currency,
            reference,
            amount: cash,
            turnover_required: cash * SHOP_TURNOVER_MULTIPLE,
            source: "shop",
        };
        match self
            .commit_once(
                &[row],
                &[Self::record_row(reference, &event)?],
                (order.kind == "cash").then_some(&credit),
            )
            .await
        {
            Ok(()) => Ok(true),
            Err(UnitError::Unmet(_)) => Ok(false),
            Err(e) => Err(unit_failure(e)),
        }
    }

    /// The order cancelled (still reserved: guard), its stock and the
    /// member's count given back, and its event, in one unit of work.
    async fn cancel(&self, order: &Order, reason: &str) -> Result<(), PromoFailure> {
        let now = self.now_ms();
        let row = Extra::new(
            "UPDATE promo_orders SET state = 'cancelled' WHERE order_id = $1 AND state = 'reserved'",
        )
        .text(&order.order_id)
        .expect(1);
        let stock = Extra::new("UPDATE promo_goods SET sold = sold - $2 WHERE goods_id = $1")
            .int(order.goods_id)
            .int(order.qty);
        let bought = Extra::new(
            "UPDATE promo_goods_bought SET bought = bought - $3 WHERE goods_id = $1 AND member_id = $2",
        )
        .int(order.goods_id)
        .text(&order.member_id)
        .int(order.qty);
        let event = PromotionEvent::PurchaseCancelled {
            member_id: order.member_id.clone(),
            order_id: order.order_id.clone(),
            reason: reason.to_string(),
            at_ms: now,
        };
        let event_row = Self::record_row(&format!("shop:{}", order.order_id), &event)?;
        match self
            .commit_once(&[row, stock, bought], &[event_row], None)
            .await
        {
            Ok(()) | Err(UnitError::Unmet(_)) => Ok(()),
            Err(e) => Err(unit_failure(e)),
        }
    }

    /// Orders left `reserved` for more than `older_than_ms` (a crash between
    /// reservation and spending): finished or cancelled. Returns how many.
    pub async fn settle_reserved(&self, older_than_ms: i64) -> Result<usize, PromoFailure> {
        let ids: Vec<String> = sqlx::query_scalar(
            "SELECT order_id FROM promo_orders WHERE state = 'reserved' AND created_ms < $1 LIMIT 100",
        )
        .bind(self.now_ms() - older_than_ms)
        .fetch_all(&self.pool)
        .await?;
        for id in &ids {
            match self.finish_order(id).await {
                Ok(_) | Err(PromoFailure::Refused(..)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(ids.len())
    }

    pub async fn order(&self, order_id: &str) -> Result<Option<Order>, PromoFailure> {
        let row = sqlx::query(&format!("{ORDER_SELECT} WHERE order_id = $1"))
            .bind(order_id)
            .fetch_optional(&self.pool)
            .await?;
        Ok(row.as_ref().map(order_row).transpose()?)
    }

    /// A member's orders, newest first.
    pub async fn orders_of(&self, member_id: &str) -> Result<Vec<Order>, PromoFailure> {
        let rows = sqlx::query(&format!(
            "{ORDER_SELECT} WHERE member_id = $1 ORDER BY created_ms DESC LIMIT 100"
        ))
        .bind(member_id)
        .fetch_all(&self.pool)
        .await?;
        Ok(rows.iter().map(order_row).collect::<Result<_, _>>()?)
    }

    /// The fulfilment queue: physical prizes and goods in `state`
    /// (to_ship or shipped), oldest first.
    pub async fn fulfilment(&self, state: &str) -> Result<Vec<Fulfilment>, PromoFailure> {
        let mut out = Vec::new();
        let draws = sqlx::query(
            "SELECT reference, member_id, prize, address, state, at_ms, shipped_ms, shipped_by FROM promo_draws WHERE kind = 'physical' AND state = $1 ORDER BY at_ms LIMIT 500",
        )
        .bind(state)
        .fetch_all(&self.pool)
        .await?;
        for r in draws {
            out.push(Fulfilment {
                source: "draw".into(),
                id: r.try_get("reference")?,
                member_id: r.try_get("member_id")?,
                item: r.try_get("prize")?,
                qty: 1,
                address: r.try_get("address")?,
                state: r.try_get("state")?,
                created_ms: r.try_get("at_ms")?,
                shipped_ms: r.try_get("shipped_ms")?,
                shipped_by: r.try_get("shipped_by")?,
            });
        }
        let orders = sqlx::query(&format!(
            "{ORDER_SELECT} WHERE kind = 'physical' AND state = $1 ORDER BY created_ms LIMIT 500"
        ))
        .bind(state)
        .fetch_all(&self.pool)
        .await?;
        for r in orders.iter().map(order_row) {
            let o = r?;
            out.push(Fulfilment {
                source: "order".into(),
                id: o.order_id,
                member_id: o.member_id,
                item: o.name,
                qty: o.qty,
                address: o.address,
                state: o.state,
                created_ms: o.created_ms,
                shipped_ms: o.shipped_ms,
                shipped_by: o.shipped_by,
            });
        }
        out.sort_by_key(|f| f.created_ms);
        Ok(out)
    }

    /// Staff mark a physical prize or order shipped (once).
    pub async fn ship(&self, source: &str, id: &str, staff_id: &str) -> Result<(), PromoFailure> {
        let now = self.now_ms();
        let (sql, stream) = match source {
            "draw" => (
                "UPDATE promo_draws SET state = 'shipped', shipped_ms = $2, shipped_by = $3 WHERE reference = $1 AND state = 'to_ship'",
                id.to_string(),
            ),
            "order" => (
                "UPDATE promo_orders SET state = 'shipped', shipped_ms = $2, shipped_by = $3 WHERE order_id = $1 AND state = 'to_ship'",
                format!("shop:{id}"),
            ),
            _ => return Err(refused(codes::BAD_SETTINGS, "source: draw or order")),
        };
        let member: Option<String> = match source {
            "draw" => sqlx::query_scalar("SELECT member_id FROM promo_draws WHERE reference = $1"),
            _ => sqlx::query_scalar("SELECT member_id FROM promo_orders WHERE order_id = $1"),
        }
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        let Some(member) = member else {
            return Err(refused(codes::NOT_PENDING, "Nothing to ship"));
        };
        let event = PromotionEvent::Shipped {
            member_id: member.clone(),
            what: stream.clone(),
            staff_id: staff_id.to_string(),
            at_ms: now,
        };
        let row = Extra::new(sql).text(id).int(now).text(staff_id).expect(1);
        match self
            .commit_next(row, domain::promo::events::AGGREGATE, &stream, &event)
            .await
        {
            Ok(()) => Ok(()),
            Err(UnitError::Unmet(_)) => {
                Err(refused(codes::NOT_PENDING, "Not waiting to be shipped"))
            }
            Err(e) => Err(unit_failure(e)),
        }
    }
}

const ORDER_SELECT: &str = "SELECT order_id, member_id, goods_id, name, qty, points, kind, cash, currency, state, address, created_ms, shipped_ms, shipped_by FROM promo_orders";

fn order_row(r: &sqlx::any::AnyRow) -> Result<Order, sqlx::Error> {
    Ok(Order {
        order_id: r.try_get("order_id")?,
        member_id: r.try_get("member_id")?,
        goods_id: r.try_get("goods_id")?,
        name: r.try_get("name")?,
        qty: r.try_get("qty")?,
        points: r.try_get("points")?,
        kind: r.try_get("kind")?,
        cash: r.try_get("cash")?,
        currency: r.try_get("currency")?,
        state: r.try_get("state")?,
        address: r.try_get("address")?,
        created_ms: r.try_get("created_ms")?,
        shipped_ms: r.try_get("shipped_ms")?,
        shipped_by: r.try_get("shipped_by")?,
    })
}
