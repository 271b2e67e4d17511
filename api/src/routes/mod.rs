//! One router per area; `app::AppState::router` merges them.

pub mod account;
pub mod auth;
pub mod backoffice;
pub mod backoffice_audit;
pub mod content;
pub mod content_backoffice;
pub mod dev;
pub mod health;
pub mod partner;
pub mod payments;
pub mod payments_backoffice;
pub mod promo;
pub mod promo_backoffice;
pub mod report;
pub mod safer;
pub mod seasons;
pub mod sport;
pub mod user;
pub mod vip;
pub mod web;
