//! The built client with SPA fallback, and the skin files.

use axum::routing::any;
use axum::Router;
use tower_http::services::{ServeDir, ServeFile};

use crate::app::AppState;
use crate::config::Config;
use crate::error::ApiError;

pub fn router(config: &Config) -> Router<AppState> {
    let dist = &config.server.web_dist;
    if !dist.join("index.html").exists() {
        tracing::warn!(path = %dist.display(), "the client is not built (npm run build in web/)");
    }
    let client = ServeDir::new(dist).fallback(ServeFile::new(dist.join("index.html")));
    Router::new()
        .route("/api/{*rest}", any(unknown_api))
        .nest_service("/skins", ServeDir::new(&config.server.skins_dir))
        .fallback_service(client)
}

async fn unknown_api() -> ApiError {
    ApiError::NotFound
}
