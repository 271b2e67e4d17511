//! One router per area; `app::AppState::router` merges them.

pub mod dev;
pub mod health;
pub mod web;
