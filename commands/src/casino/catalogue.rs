//! The casino catalogue: providers, categories and games (spec 001
//! section 3 and section 9), favourites per member, and search. The
//! catalogue lives in tables (it is reference data staff edit, not money):
//! imported from a JSON file (`config/casino/catalogue.json`) when empty,
//! re-importable, and edited by admin staff in the back office.
//!
//! The seamless wallet looks games up by provider and game code on every
//! call; those lookups are cached per process for `GAME_CACHE_MS`, so a
//! staff edit reaches every process within that time.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

pub const GAME_CACHE_MS: u64 = 5_000;
/// Third-party game types of spec 001 section 9.
pub const GAME_TYPES: [&str; 6] = ["4", "6", "8", "8pb", "9", "12"];
pub const SECTIONS: [&str; 6] = [
    "casino",
    "live-casino",
    "thirdparty",
    "ppslots",
    "catmin",
    "specialty",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Types {
    #[serde(rename = "realMode", with = "flag")]
    pub real_mode: bool,
    #[serde(rename = "viewMode", with = "flag")]
    pub view_mode: bool,
    #[serde(rename = "funMode", with = "flag")]
    pub fun_mode: bool,
}

/// Flags as 0/1 on the wire (true/false also read).
mod flag {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &bool, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(u8::from(*v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        Ok(match v {
            serde_json::Value::Bool(b) => b,
            serde_json::Value::Number(n) => n.as_i64().unwrap_or(0) != 0,
            serde_json::Value::String(s) => s == "1" || s.eq_ignore_ascii_case("true"),
            _ => false,
        })
    }
}

impl Types {
    pub fn modes(self) -> domain::casino::launch::Modes {
        domain::casino::launch::Modes {
            real_mode: self.real_mode,
            view_mode: self.view_mode,
            fun_mode: self.fun_mode,
        }
    }
}

/// A casino game (spec 001 section 3; `extearnal_game_id` spelled as the
/// contract spells it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Game {
    pub id: i64,
    pub provider: String,
    pub front_game_id: String,
    pub extearnal_game_id: String,
    #[serde(default)]
    pub game_options: String,
    #[serde(default)]
    pub link: String,
    pub types: Types,
    pub name: String,
    #[serde(default)]
    pub icon_1: String,
    #[serde(default)]
    pub icon_2: String,
    pub category: String,
    pub section: String,
    #[serde(default)]
    pub game_type: String,
    #[serde(default = "pg")]
    pub product: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub sort: i64,
}

fn pg() -> String {
    "pg".into()
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provider {
    pub code: String,
    pub name: String,
    #[serde(default)]
    pub uses_realtime: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub sort: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Category {
    pub code: String,
    pub name: String,
    pub section: String,
    #[serde(default)]
    pub sort: i64,
}

/// The import file.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct CatalogueFile {
    #[serde(default)]
    pub providers: Vec<Provider>,
    #[serde(default)]
    pub categories: Vec<Category>,
    #[serde(default)]
    pub games: Vec<Game>,
}

#[derive(Debug, thiserror::Error)]
pub enum CatalogueError {
    #[error("{0}")]
    Invalid(String),
    #[error("database: {0}")]
    Store(#[from] sqlx::Error),
}

impl Game {
    /// The rules a game must meet to be stored (bounded, known values).
    pub fn check(&self) -> Result<(), CatalogueError> {
        let bad = |m: &str| Err(CatalogueError::Invalid(format!("game {}: {m}", self.id)));
        let text_ok = |s: &str, max: usize| s.chars().count() <= max;
        if self.id <= 0 {
            return bad("id must be positive");
        }
        if self.name.trim().is_empty() || !text_ok(&self.name, 100) {
            return bad("name must be 1 to 100 characters");
        }
        if self.provider.trim().is_empty() || !text_ok(&self.provider, 40) {
            return bad("provider must be 1 to 40 characters");
        }
        if self.extearnal_game_id.trim().is_empty() || !text_ok(&self.extearnal_game_id, 100) {
            return bad("extearnal_game_id must be 1 to 100 characters");
        }
        for (field, value, max) in [
            ("front_game_id", &self.front_game_id, 100),
            ("game_options", &self.game_options, 500),
            ("link", &self.link, 500),
            ("icon_1", &self.icon_1, 500),
            ("icon_2", &self.icon_2, 500),
            ("category", &self.category, 40),
        ] {
            if !text_ok(value, max) {
                return bad(&format!("{field} is longer than {max} characters"));
            }
        }
        if !SECTIONS.contains(&self.section.as_str()) {
            return bad("section must be one of casino, live-casino, thirdparty, ppslots, catmin, specialty");
        }
        if !self.game_type.is_empty() && !GAME_TYPES.contains(&self.game_type.as_str()) {
            return bad("game_type must be one of 4, 6, 8, 8pb, 9, 12 or empty");
        }
        if self.product != "pg" && self.product != "ag" {
            return bad("product must be pg (slots) or ag (live tables)");
        }
        if !self.link.is_empty()
            && !self.link.starts_with("https://")
            && !self.link.starts_with('/')
        {
            return bad("link must be https:// or a path on this site");
        }
        Ok(())
    }
}

/// What a listing asks for.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub section: Option<String>,
    pub category: Option<String>,
    pub provider: Option<String>,
    pub game_type: Option<String>,
    pub name: Option<String>,
    pub favorites_of: Option<String>,
    /// Only games that offer fun mode (the `/demo` page).
    pub fun_only: bool,
    pub include_disabled: bool,
    pub offset: i64,
    pub limit: i64,
}

/// Games by (provider, code), with when each was read.
type GameCache = HashMap<(String, String), (Option<Game>, Instant)>;

pub struct Catalogue {
    pool: AnyPool,
    cache: Mutex<GameCache>,
}

const GAME_COLUMNS: &str = "id, provider, front_game_id, external_game_id, game_options, link, real_mode, view_mode, fun_mode, name, icon_1, icon_2, category, section, game_type, product, enabled, sort";

fn game_of(r: &AnyRow) -> Game {
    let flag = |c: &str| r.get::<i64, _>(c) != 0;
    Game {
        id: r.get("id"),
        provider: r.get("provider"),
        front_game_id: r.get("front_game_id"),
        extearnal_game_id: r.get("external_game_id"),
        game_options: r.get("game_options"),
        link: r.get("link"),
        types: Types {
            real_mode: flag("real_mode"),
            view_mode: flag("view_mode"),
            fun_mode: flag("fun_mode"),
        },
        name: r.get("name"),
        icon_1: r.get("icon_1"),
        icon_2: r.get("icon_2"),
        category: r.get("category"),
        section: r.get("section"),
        game_type: r.get("game_type"),
        product: r.get("product"),
        enabled: flag("enabled"),
        sort: r.get("sort"),
    }
}

/// `%text%` for LIKE, with the wildcards of `text` escaped.
fn like(text: &str) -> String {
    let escaped = text
        .to_lowercase()
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

impl Catalogue {
    pub fn new(pool: AnyPool) -> Self {
        Self {
            pool,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Imports `file` (providers, categories, games), replacing rows with
    /// the same key. Every game is checked first; nothing is written when
    /// one is invalid.
    pub async fn import(&self, file: &CatalogueFile) -> Result<usize, CatalogueError> {
        for game in &file.games {
            game.check()?;
        }
        let mut tx = self.pool.begin().await?;
        for p in &file.providers {
            sqlx::query("DELETE FROM casino_providers WHERE code = $1")
                .bind(&p.code)
                .execute(&mut *tx)
                .await?;
            sqlx::query("INSERT INTO casino_providers (code, name, uses_realtime, enabled, sort) VALUES ($1, $2, $3, $4, $5)")
                .bind(&p.code)
                .bind(&p.name)
                .bind(i64::from(p.uses_realtime))
                .bind(i64::from(p.enabled))
                .bind(p.sort)
                .execute(&mut *tx)
                .await?;
        }
        for c in &file.categories {
            sqlx::query("DELETE FROM casino_categories WHERE code = $1")
                .bind(&c.code)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "INSERT INTO casino_categories (code, name, section, sort) VALUES ($1, $2, $3, $4)",
            )
            .bind(&c.code)
            .bind(&c.name)
            .bind(&c.section)
            .bind(c.sort)
            .execute(&mut *tx)
            .await?;
        }
        for game in &file.games {
            Self::write_game(&mut tx, game).await?;
        }
        tx.commit().await?;
        self.forget();
        Ok(file.games.len())
    }

    async fn write_game(
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        game: &Game,
    ) -> Result<(), CatalogueError> {
        sqlx::query(
            "DELETE FROM casino_games WHERE id = $1 OR (provider = $2 AND external_game_id = $3)",
        )
        .bind(game.id)
        .bind(&game.provider)
        .bind(&game.extearnal_game_id)
        .execute(&mut **tx)
        .await?;
        sqlx::query(&format!("INSERT INTO casino_games ({GAME_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)"))
            .bind(game.id)
            .bind(&game.provider)
            .bind(&game.front_game_id)
            .bind(&game.extearnal_game_id)
            .bind(&game.game_options)
            .bind(&game.link)
            .bind(i64::from(game.types.real_mode))
            .bind(i64::from(game.types.view_mode))
            .bind(i64::from(game.types.fun_mode))
            .bind(&game.name)
            .bind(&game.icon_1)
            .bind(&game.icon_2)
            .bind(&game.category)
            .bind(&game.section)
            .bind(&game.game_type)
            .bind(&game.product)
            .bind(i64::from(game.enabled))
            .bind(game.sort)
            .execute(&mut **tx)
            .await?;
        Ok(())
    }

    /// Imports `path` when the catalogue has no game yet.
    pub async fn import_if_empty(&self, path: &std::path::Path) -> anyhow_free::Result<usize> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM casino_games")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| e.to_string())?;
        if count > 0 {
            return Ok(0);
        }
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read casino catalogue {}: {e}", path.display()))?;
        let file: CatalogueFile = serde_json::from_str(&text)
            .map_err(|e| format!("in casino catalogue {}: {e}", path.display()))?;
        match self.import(&file).await {
            Ok(n) => Ok(n),
            // Another process imported it meanwhile.
            Err(_) if self.count().await.unwrap_or(0) > 0 => Ok(0),
            Err(e) => Err(format!("in casino catalogue {}: {e}", path.display())),
        }
    }

    async fn count(&self) -> Result<i64, sqlx::Error> {
        sqlx::query_scalar("SELECT COUNT(*) FROM casino_games")
            .fetch_one(&self.pool)
            .await
    }

    /// Adds or replaces one game (back office).
    pub async fn save_game(&self, game: &Game) -> Result<(), CatalogueError> {
        game.check()?;
        let mut tx = self.pool.begin().await?;
        Self::write_game(&mut tx, game).await?;
        tx.commit().await?;
        self.forget();
        Ok(())
    }

    pub async fn delete_game(&self, id: i64) -> Result<bool, CatalogueError> {
        let gone = sqlx::query("DELETE FROM casino_games WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await?
            .rows_affected();
        self.forget();
        Ok(gone > 0)
    }

    fn forget(&self) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).clear();
    }

    pub async fn game(&self, id: i64) -> Result<Option<Game>, sqlx::Error> {
        let row = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM casino_games WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        Ok(row.as_ref().map(game_of))
    }

    /// The game a provider calls `code` (cached for `GAME_CACHE_MS`).
    pub async fn game_by_code(
        &self,
        provider: &str,
        code: &str,
    ) -> Result<Option<Game>, sqlx::Error> {
        let key = (provider.to_string(), code.to_string());
        if let Some((game, at)) = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            if at.elapsed() < Duration::from_millis(GAME_CACHE_MS) {
                return Ok(game.clone());
            }
        }
        let row = sqlx::query(&format!(
            "SELECT {GAME_COLUMNS} FROM casino_games WHERE provider = $1 AND external_game_id = $2"
        ))
        .bind(provider)
        .bind(code)
        .fetch_optional(&self.pool)
        .await?;
        let game = row.as_ref().map(game_of);
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        if cache.len() > 10_000 {
            cache.clear();
        }
        cache.insert(key, (game.clone(), Instant::now()));
        Ok(game)
    }

    /// Games matching `filter`, ordered by sort then id, and how many match
    /// in all.
    pub async fn list(&self, filter: &Filter) -> Result<(i64, Vec<Game>), sqlx::Error> {
        let mut clauses: Vec<String> = vec![];
        let mut binds: Vec<String> = vec![];
        if !filter.include_disabled {
            clauses.push("enabled = 1".into());
            clauses
                .push("provider IN (SELECT code FROM casino_providers WHERE enabled = 1)".into());
        }
        if filter.fun_only {
            clauses.push("fun_mode = 1".into());
        }
        let mut add = |clause: &str, value: String| {
            binds.push(value);
            clauses.push(clause.replace('?', &format!("${}", binds.len())));
        };
        if let Some(v) = &filter.section {
            add("section = ?", v.clone());
        }
        if let Some(v) = &filter.category {
            add("category = ?", v.clone());
        }
        if let Some(v) = &filter.provider {
            add("provider = ?", v.clone());
        }
        if let Some(v) = &filter.game_type {
            add("game_type = ?", v.clone());
        }
        if let Some(v) = &filter.name {
            add("lower(name) LIKE ? ESCAPE '\\'", like(v));
        }
        if let Some(v) = &filter.favorites_of {
            add(
                "id IN (SELECT game_id FROM casino_favorites WHERE member_id = ?)",
                v.clone(),
            );
        }
        let mut where_ = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        if where_.is_empty() {
            where_ = " WHERE 1 = 1".into();
        }
        let count_sql = format!("SELECT COUNT(*) FROM casino_games{where_}");
        let mut count = sqlx::query_scalar::<_, i64>(&count_sql);
        for b in &binds {
            count = count.bind(b.clone());
        }
        let total = count.fetch_one(&self.pool).await?;
        let sql = format!(
            "SELECT {GAME_COLUMNS} FROM casino_games{where_} ORDER BY sort, id LIMIT {} OFFSET {}",
            filter.limit.clamp(1, 500),
            filter.offset.clamp(0, 1_000_000)
        );
        let mut query = sqlx::query(&sql);
        for b in &binds {
            query = query.bind(b.clone());
        }
        let rows = query.fetch_all(&self.pool).await?;
        Ok((total, rows.iter().map(game_of).collect()))
    }

    pub async fn providers(&self) -> Result<Vec<Provider>, sqlx::Error> {
        let rows = sqlx::query("SELECT code, name, uses_realtime, enabled, sort FROM casino_providers ORDER BY sort, code")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(|r| Provider {
                code: r.get("code"),
                name: r.get("name"),
                uses_realtime: r.get::<i64, _>("uses_realtime") != 0,
                enabled: r.get::<i64, _>("enabled") != 0,
                sort: r.get("sort"),
            })
            .collect())
    }

    pub async fn categories(&self) -> Result<Vec<Category>, sqlx::Error> {
        let rows = sqlx::query(
            "SELECT code, name, section, sort FROM casino_categories ORDER BY sort, code",
        )
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .iter()
            .map(|r| Category {
                code: r.get("code"),
                name: r.get("name"),
                section: r.get("section"),
                sort: r.get("sort"),
            })
            .collect())
    }

    pub async fn provider(&self, code: &str) -> Result<Option<Provider>, sqlx::Error> {
        Ok(self.providers().await?.into_iter().find(|p| p.code == code))
    }

    /// Marks or unmarks a favourite; returns the member's favourite ids.
    pub async fn set_favorite(
        &self,
        member_id: &str,
        game_id: i64,
        on: bool,
        now_ms: i64,
    ) -> Result<Vec<i64>, sqlx::Error> {
        if on {
            sqlx::query("INSERT INTO casino_favorites (member_id, game_id, created_ms) VALUES ($1, $2, $3) ON CONFLICT (member_id, game_id) DO NOTHING")
                .bind(member_id)
                .bind(game_id)
                .bind(now_ms)
                .execute(&self.pool)
                .await?;
        } else {
            sqlx::query("DELETE FROM casino_favorites WHERE member_id = $1 AND game_id = $2")
                .bind(member_id)
                .bind(game_id)
                .execute(&self.pool)
                .await?;
        }
        self.favorites(member_id).await
    }

    pub async fn favorites(&self, member_id: &str) -> Result<Vec<i64>, sqlx::Error> {
        sqlx::query_scalar("SELECT game_id FROM casino_favorites WHERE member_id = $1 ORDER BY created_ms, game_id")
            .bind(member_id)
            .fetch_all(&self.pool)
            .await
    }
}

/// Errors as text for start-up paths (no anyhow in this crate).
pub mod anyhow_free {
    pub type Result<T> = std::result::Result<T, String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game() -> Game {
        Game {
            id: 1,
            provider: "demo".into(),
            front_game_id: "slot".into(),
            extearnal_game_id: "demo_slot".into(),
            game_options: String::new(),
            link: String::new(),
            types: Types {
                real_mode: true,
                view_mode: false,
                fun_mode: true,
            },
            name: "Lucky".into(),
            icon_1: String::new(),
            icon_2: String::new(),
            category: "slots".into(),
            section: "casino".into(),
            game_type: String::new(),
            product: "pg".into(),
            enabled: true,
            sort: 0,
        }
    }

    #[test]
    fn a_game_outside_the_known_types_and_sections_is_refused() {
        assert!(game().check().is_ok());
        let mut g = game();
        g.game_type = "7".into();
        assert!(g.check().is_err());
        let mut g = game();
        g.section = "lobby".into();
        assert!(g.check().is_err());
        let mut g = game();
        g.link = "javascript:alert(1)".into();
        assert!(g.check().is_err());
    }

    #[test]
    fn types_read_flags_as_numbers_or_booleans() {
        let t: Types =
            serde_json::from_str(r#"{"realMode":1,"viewMode":true,"funMode":"0"}"#).unwrap();
        assert!(t.real_mode && t.view_mode && !t.fun_mode);
        assert_eq!(
            serde_json::to_value(t).unwrap(),
            serde_json::json!({"realMode":1,"viewMode":1,"funMode":0})
        );
    }

    #[test]
    fn search_text_cannot_widen_the_pattern() {
        assert_eq!(like("50%_"), "%50\\%\\_%");
    }
}
