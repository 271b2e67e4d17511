//! One router per area; `app::AppState::router` merges them.

pub mod account;
pub mod auth;
pub mod backoffice;
pub mod dev;
pub mod health;
pub mod partner;
pub mod report;
pub mod sport;
pub mod user;
pub mod web;
