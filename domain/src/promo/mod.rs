//! Promotions, the rewards half (spec 001 sections 2.1, 2.12, 3, 4, 5, 7.4,
//! 8, 9; docs/promotions.md): daily sign-in, daily and novice tasks, the
//! prize draw, the points shop, campaigns and referrals. Pure rules only;
//! `commands::engagement::promo` runs them against the database.
//!
//! Layout
//! - `tasks`: sign-in streaks and rewards, daily and novice task
//!   definitions and their status.
//! - `draw`: the prize board (8 prizes, weights, weekly stock), the pick.
//! - `shop`: goods and the buying rules.
//! - `events`: the `Promotion` / `PromotionConfig` events.
//! - `text`: texts per member language (task titles, prize and goods names).

pub mod campaign;
pub mod draw;
pub mod events;
pub mod referral;
pub mod shop;
pub mod tasks;
pub mod text;

/// Milliseconds in a day.
pub const DAY_MS: i64 = 86_400_000;

/// The UTC day number of `at_ms` (days since 1970-01-01).
pub fn day_of(at_ms: i64) -> i64 {
    at_ms.div_euclid(DAY_MS)
}

/// The week number of a day: weeks start on Monday (1970-01-01 was a
/// Thursday, so day 4 is the first Monday).
pub fn week_of_day(day: i64) -> i64 {
    (day + 3).div_euclid(7)
}

/// `YYYY-MM-DD` of a day number.
pub fn day_text(day: i64) -> String {
    let d = crate::account::Date::from_epoch_ms(day * DAY_MS);
    d.to_string()
}

/// Codes of this area (spec 001 section 8: tasks -640xx, prize draw
/// -21404, shop -403xx, activities -61xxx to -69xxx). Platform-defined
/// within the spec's families; messages in docs/promotions.md.
pub mod codes {
    // tasks and sign-in (-640xx; seasons uses -64001..-64024)
    pub const ALREADY_SIGNED_IN: i32 = -64030;
    pub const TASK_NOT_DONE: i32 = -64031;
    pub const NO_SUCH_TASK: i32 = -64032;
    pub const TASK_REJECTED: i32 = -64033;
    pub const NOT_PENDING: i32 = -64034;
    pub const BAD_SETTINGS: i32 = -64035;
    // prize draw
    pub const PRIZES_GONE: i32 = -21404;
    pub const ALREADY_DRAWN: i32 = -62001;
    pub const STALE_ACT_RAND: i32 = -62002;
    pub const DRAW_CLOSED: i32 = -62003;
    // shop (-403xx: stock and points)
    pub const OUT_OF_STOCK: i32 = -40301;
    pub const NOT_ENOUGH_POINTS: i32 = -40302;
    pub const LIMIT_REACHED: i32 = -40303;
    pub const NO_SUCH_GOODS: i32 = -40304;
    pub const NEED_ADDRESS: i32 = -40305;
    pub const BAD_QUANTITY: i32 = -40306;
    // activities (-63xxx)
    pub const NO_SUCH_CAMPAIGN: i32 = -63001;
    pub const NOT_IN_PERIOD: i32 = -63002;
    pub const NOT_IN_AUDIENCE: i32 = -63003;
    pub const NOT_QUALIFIED: i32 = -63004;
    pub const ALREADY_APPLIED: i32 = -63005;
    pub const BAD_CAMPAIGN: i32 = -63006;
    // referrals (-65xxx)
    pub const BAD_INVITE_CODE: i32 = -65001;
}
