//! The points shop (spec 001 sections 7.4 shop/*, 8 -403xx): goods bought
//! with M currency (points), stock and per-member limits; physical goods go
//! to the fulfilment queue with the member's address.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::text::LangText;

pub use super::draw::PrizeKind as GoodsKind;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Goods {
    pub id: u32,
    /// Name and description per language (an older single string loads
    /// as the same text in each).
    pub name: LangText,
    #[serde(default)]
    pub desc: LangText,
    #[serde(default)]
    pub img: String,
    pub kind: GoodsKind,
    /// Price in M currency (points), per item.
    pub points: Decimal,
    /// Cash goods: the bonus credited per item.
    #[serde(default)]
    pub cash: Decimal,
    /// Items for sale in total.
    pub stock: u32,
    /// Items one member may buy in total (0: no limit).
    #[serde(default)]
    pub limit: u32,
    #[serde(default = "yes")]
    pub on_sale: bool,
}

fn yes() -> bool {
    true
}

/// Most items in one purchase.
pub const MAX_QTY: u32 = 99;

impl Goods {
    pub fn check(&self) -> Result<(), String> {
        if self.id == 0 || self.id > 1_000_000 {
            return Err("id 1 to 1000000".into());
        }
        if !self.name.check_required(60) || !self.desc.check_optional(500) {
            return Err("name 1 to 60 characters in zhh, eng and tha, desc at most 500".into());
        }
        if self.img.len() > 300 {
            return Err("img at most 300 characters".into());
        }
        if self.points <= Decimal::ZERO
            || self.points > Decimal::from(10000000)
            || self.points.scale() > 2
        {
            return Err("points above 0, at most 10000000, 2 places".into());
        }
        let cash_ok = self.cash >= Decimal::ZERO
            && self.cash <= Decimal::from(100000)
            && self.cash.scale() <= 2;
        if !cash_ok || (self.kind == GoodsKind::Cash && self.cash.is_zero()) {
            return Err("cash goods: cash above 0 up to 100000".into());
        }
        if self.stock > 10_000_000 || self.limit > 10_000 {
            return Err("stock at most 10000000, limit at most 10000".into());
        }
        Ok(())
    }

    /// The points `qty` items cost.
    pub fn price(&self, qty: u32) -> Decimal {
        self.points * Decimal::from(qty)
    }
}

/// The goods a new shop starts with (marketing replaces them).
pub fn default_goods() -> Vec<Goods> {
    let g = |id, name: [&str; 3], kind, points, cash, stock, limit| Goods {
        id,
        name: LangText::new(name[0], name[1], name[2]),
        desc: LangText::default(),
        img: String::new(),
        kind,
        points,
        cash,
        stock,
        limit,
        on_sale: true,
    };
    vec![
        g(
            1,
            ["8元彩金", "8 yuan bonus", "โบนัส 8 หยวน"],
            GoodsKind::Cash,
            Decimal::from(100),
            Decimal::from(8),
            10000,
            5,
        ),
        g(
            2,
            ["38元彩金", "38 yuan bonus", "โบนัส 38 หยวน"],
            GoodsKind::Cash,
            Decimal::from(450),
            Decimal::from(38),
            2000,
            2,
        ),
        g(
            3,
            ["球队球衣", "Team shirt", "เสื้อทีม"],
            GoodsKind::Physical,
            Decimal::from(800),
            Decimal::from(0),
            100,
            1,
        ),
        g(
            4,
            ["充电宝", "Power bank", "พาวเวอร์แบงค์"],
            GoodsKind::Physical,
            Decimal::from(1200),
            Decimal::from(0),
            50,
            1,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn default_goods_pass_their_check_and_price_by_quantity() {
        for g in default_goods() {
            g.check().unwrap();
        }
        assert_eq!(default_goods()[0].price(3), dec!(300));
    }

    #[test]
    fn cash_goods_without_cash_are_refused() {
        let mut g = default_goods()[0].clone();
        g.cash = Decimal::ZERO;
        assert!(g.check().is_err());
    }
}
