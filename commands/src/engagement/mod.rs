//! Engagement: VIP, seasons, promotions, and what members are told.
//!
//! Layout
//! - `vip`: VIP levels, rebates, salary and gifts (the Vip aggregate).
//! - `seasons`: season boundaries, task progress, claims, rank rewards and
//!   home teams.
//! - `promo/`: sign-in and tasks, the prize draw, the points shop,
//!   campaigns and referrals.
//! - `inbox`: the member inbox and the process manager that writes it.
//! - `content`: notices, banners, popups, news, help pages and campaign
//!   messages.
//! - `notify`: member notifications (winning tips) for `/ws`.

pub mod content;
pub mod inbox;
pub mod notify;
pub mod promo;
pub mod seasons;
pub mod vip;
