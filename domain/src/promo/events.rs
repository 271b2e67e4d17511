//! Events of the promotions area. Each reward, draw, purchase and claim is
//! one `Promotion` stream whose id is its reference (sequence 1: the
//! stream key makes the fact happen once); staff changes are
//! `PromotionConfig` streams (id = what changed) with the staff id.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const AGGREGATE: &str = "Promotion";
pub const CONFIG_AGGREGATE: &str = "PromotionConfig";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum PromotionEvent {
    SignedIn {
        member_id: String,
        day: i64,
        streak: u32,
        reward: Decimal,
        currency: String,
        at_ms: i64,
    },
    TaskRewardClaimed {
        member_id: String,
        task_id: u32,
        period: String,
        cash: Decimal,
        currency: String,
        /// "paid" or "pending" (waiting for review).
        state: String,
        at_ms: i64,
    },
    TaskClaimReviewed {
        member_id: String,
        task_id: u32,
        approve: bool,
        reason: String,
        staff_id: String,
        at_ms: i64,
    },
    PrizeDrawn {
        member_id: String,
        period: String,
        week: i64,
        slot: u32,
        prize: String,
        kind: String,
        cash: Decimal,
        currency: String,
        at_ms: i64,
    },
    GoodsBought {
        member_id: String,
        order_id: String,
        goods_id: u32,
        qty: u32,
        /// Points spent (the VIP `PointsSpent` carries the same reference).
        points: Decimal,
        kind: String,
        cash: Decimal,
        currency: String,
        at_ms: i64,
    },
    PurchaseCancelled {
        member_id: String,
        order_id: String,
        reason: String,
        at_ms: i64,
    },
    Shipped {
        member_id: String,
        what: String,
        staff_id: String,
        at_ms: i64,
    },
    CampaignRewarded {
        member_id: String,
        campaign_id: u32,
        period: String,
        rule: String,
        basis: Decimal,
        amount: Decimal,
        currency: String,
        turnover_required: Decimal,
        at_ms: i64,
    },
    ReferralRegistered {
        referee_id: String,
        referrer_id: String,
        code: String,
        at_ms: i64,
    },
    ReferralDecided {
        referee_id: String,
        referrer_id: String,
        /// "paid" or "refused".
        outcome: String,
        reason: String,
        bonus: Decimal,
        currency: String,
        at_ms: i64,
    },
    /// A staff change: `what` (settings name, goods or campaign id) and
    /// the new value (null: removed).
    ConfigChanged {
        what: String,
        value: Value,
        staff_id: String,
        at_ms: i64,
    },
}

impl PromotionEvent {
    pub fn event_type(&self) -> &'static str {
        match self {
            PromotionEvent::SignedIn { .. } => "SignedIn",
            PromotionEvent::TaskRewardClaimed { .. } => "TaskRewardClaimed",
            PromotionEvent::TaskClaimReviewed { .. } => "TaskClaimReviewed",
            PromotionEvent::PrizeDrawn { .. } => "PrizeDrawn",
            PromotionEvent::GoodsBought { .. } => "GoodsBought",
            PromotionEvent::PurchaseCancelled { .. } => "PurchaseCancelled",
            PromotionEvent::Shipped { .. } => "Shipped",
            PromotionEvent::CampaignRewarded { .. } => "CampaignRewarded",
            PromotionEvent::ReferralRegistered { .. } => "ReferralRegistered",
            PromotionEvent::ReferralDecided { .. } => "ReferralDecided",
            PromotionEvent::ConfigChanged { .. } => "ConfigChanged",
        }
    }
}
