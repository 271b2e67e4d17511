//! The marketing desk's content (issue 13 item 7, docs/content.md): notices
//! for the header marquee, banners, covers, runtime popups, news and help
//! pages, and campaign messages to segments of members (item 6).
//!
//! Every change a staff member makes writes a `content_audit` row with the
//! staff id, the action and the item as saved, in the same transaction as
//! the change. A campaign's messages (and their 1005 warm tips over /ws)
//! are written for every member of its segment in one transaction with the
//! campaign row: a campaign reaches its whole segment or nobody.

use domain::content::{validate, Campaign, ContentError, ContentKind, Item, Segment, WARM_TIP};
use serde::Serialize;
use serde_json::{json, Value};
use sqlx::any::AnyRow;
use sqlx::{Any, AnyPool, Row, Transaction};

use crate::platform::clock::SharedClock;

#[derive(Debug, thiserror::Error)]
pub enum ContentFailure {
    #[error("{0}")]
    Invalid(#[from] ContentError),
    #[error("not found")]
    NotFound,
    #[error("{0}")]
    Internal(String),
}

impl From<sqlx::Error> for ContentFailure {
    fn from(e: sqlx::Error) -> Self {
        ContentFailure::Internal(e.to_string())
    }
}

type Result<T> = std::result::Result<T, ContentFailure>;

/// A stored item.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentRow {
    pub id: i64,
    pub kind: String,
    pub lang: String,
    pub slug: String,
    pub title: String,
    pub body: Value,
    pub sort: i64,
    pub active: bool,
    pub starts_ms: i64,
    pub ends_ms: i64,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub updated_by: String,
}

impl ContentRow {
    /// What a member's client gets: id, title, lang, sort and the kind's
    /// fields side by side.
    pub fn public(&self) -> Value {
        let mut out = json!({
            "id": self.id,
            "title": self.title,
            "lang": self.lang,
            "sort": self.sort,
            "created": self.created_ms,
        });
        if !self.slug.is_empty() {
            out["slug"] = json!(self.slug);
        }
        if let (Some(map), Some(body)) = (out.as_object_mut(), self.body.as_object()) {
            for (k, v) in body {
                map.insert(k.clone(), v.clone());
            }
        }
        out
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CampaignRow {
    pub id: i64,
    pub title: String,
    pub content: String,
    pub segment: Value,
    pub recipients: i64,
    pub staff_id: String,
    pub created_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AuditRow {
    pub id: i64,
    pub staff_id: String,
    pub action: String,
    pub kind: String,
    pub item_id: i64,
    pub body: Value,
    pub at_ms: i64,
}

const COLUMNS: &str = "id, kind, lang, slug, title, body, sort, active, starts_ms, ends_ms, created_ms, updated_ms, updated_by";

fn row(r: &AnyRow) -> std::result::Result<ContentRow, sqlx::Error> {
    let body: String = r.try_get("body")?;
    Ok(ContentRow {
        id: r.try_get("id")?,
        kind: r.try_get("kind")?,
        lang: r.try_get("lang")?,
        slug: r.try_get("slug")?,
        title: r.try_get("title")?,
        body: serde_json::from_str(&body).unwrap_or(Value::Null),
        sort: r.try_get("sort")?,
        active: r.try_get::<i64, _>("active")? != 0,
        starts_ms: r.try_get("starts_ms")?,
        ends_ms: r.try_get("ends_ms")?,
        created_ms: r.try_get("created_ms")?,
        updated_ms: r.try_get("updated_ms")?,
        updated_by: r.try_get("updated_by")?,
    })
}

pub struct ContentService {
    pool: AnyPool,
    clock: SharedClock,
}

impl ContentService {
    pub fn new(pool: AnyPool, clock: SharedClock) -> Self {
        Self { pool, clock }
    }

    pub fn now_ms(&self) -> i64 {
        self.clock.now_ms()
    }

    // --------------------------------------------------------- members

    /// What members see of `kind` in `lang` now: active, within its dates,
    /// written for `lang` or for every language; by sort, then newest.
    pub async fn published(
        &self,
        kind: ContentKind,
        lang: &str,
        limit: i64,
    ) -> Result<Vec<ContentRow>> {
        let now = self.now_ms();
        let sql = format!(
            "SELECT {COLUMNS} FROM content_items
             WHERE kind = $1 AND deleted = 0 AND active = 1 AND (lang = '' OR lang = $2)
               AND starts_ms <= $3 AND (ends_ms = 0 OR ends_ms > $3)
             ORDER BY sort, id DESC LIMIT $4"
        );
        let rows = sqlx::query(&sql)
            .bind(kind.name())
            .bind(lang)
            .bind(now)
            .bind(limit.clamp(1, 200))
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(row)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// One published item by id.
    pub async fn published_item(&self, kind: ContentKind, id: i64) -> Result<ContentRow> {
        let now = self.now_ms();
        let sql = format!(
            "SELECT {COLUMNS} FROM content_items
             WHERE kind = $1 AND id = $2 AND deleted = 0 AND active = 1
               AND starts_ms <= $3 AND (ends_ms = 0 OR ends_ms > $3)"
        );
        let found = sqlx::query(&sql)
            .bind(kind.name())
            .bind(id)
            .bind(now)
            .fetch_optional(&self.pool)
            .await?;
        found
            .as_ref()
            .map(row)
            .transpose()?
            .ok_or(ContentFailure::NotFound)
    }

    /// A published help page by language and title slug.
    pub async fn help_page(&self, lang: &str, slug: &str) -> Result<ContentRow> {
        let sql = format!(
            "SELECT {COLUMNS} FROM content_items
             WHERE kind = 'help' AND lang = $1 AND slug = $2 AND deleted = 0 AND active = 1
             ORDER BY id DESC LIMIT 1"
        );
        let found = sqlx::query(&sql)
            .bind(lang)
            .bind(slug)
            .fetch_optional(&self.pool)
            .await?;
        found
            .as_ref()
            .map(row)
            .transpose()?
            .ok_or(ContentFailure::NotFound)
    }

    // ----------------------------------------------------------- staff

    /// Every item of `kind` that is not deleted (the desk's list).
    pub async fn all(&self, kind: ContentKind) -> Result<Vec<ContentRow>> {
        let sql = format!(
            "SELECT {COLUMNS} FROM content_items WHERE kind = $1 AND deleted = 0 ORDER BY sort, id DESC LIMIT 500"
        );
        let rows = sqlx::query(&sql)
            .bind(kind.name())
            .fetch_all(&self.pool)
            .await?;
        Ok(rows
            .iter()
            .map(row)
            .collect::<std::result::Result<_, _>>()?)
    }

    /// Creates (`id` None) or replaces an item, with its audit row.
    pub async fn save(
        &self,
        staff_id: &str,
        kind: ContentKind,
        id: Option<i64>,
        input: &Value,
    ) -> Result<ContentRow> {
        let item: Item = validate(kind, input)?;
        let now = self.now_ms();
        let body = item.body.to_string();
        let mut tx = self.pool.begin().await?;
        let action = if id.is_some() { "update" } else { "create" };
        let id = match id {
            None => {
                sqlx::query_scalar::<_, i64>(
                    "INSERT INTO content_items (kind, lang, slug, title, body, sort, active, starts_ms, ends_ms, created_ms, updated_ms, updated_by)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11) RETURNING id",
                )
                .bind(kind.name())
                .bind(&item.lang)
                .bind(&item.slug)
                .bind(&item.title)
                .bind(&body)
                .bind(item.sort)
                .bind(i64::from(item.active))
                .bind(item.starts_ms)
                .bind(item.ends_ms)
                .bind(now)
                .bind(staff_id)
                .fetch_one(&mut *tx)
                .await?
            }
            Some(id) => {
                let changed = sqlx::query(
                    "UPDATE content_items SET lang = $3, slug = $4, title = $5, body = $6, sort = $7, active = $8,
                            starts_ms = $9, ends_ms = $10, updated_ms = $11, updated_by = $12
                     WHERE id = $1 AND kind = $2 AND deleted = 0",
                )
                .bind(id)
                .bind(kind.name())
                .bind(&item.lang)
                .bind(&item.slug)
                .bind(&item.title)
                .bind(&body)
                .bind(item.sort)
                .bind(i64::from(item.active))
                .bind(item.starts_ms)
                .bind(item.ends_ms)
                .bind(now)
                .bind(staff_id)
                .execute(&mut *tx)
                .await?
                .rows_affected();
                if changed == 0 {
                    return Err(ContentFailure::NotFound);
                }
                id
            }
        };
        let saved = json!({
            "lang": item.lang, "slug": item.slug, "title": item.title, "body": item.body,
            "sort": item.sort, "active": item.active, "starts_ms": item.starts_ms, "ends_ms": item.ends_ms,
        });
        audit(&mut tx, staff_id, action, kind.name(), id, &saved, now).await?;
        let sql = format!("SELECT {COLUMNS} FROM content_items WHERE id = $1");
        let stored = sqlx::query(&sql).bind(id).fetch_one(&mut *tx).await?;
        let stored = row(&stored)?;
        tx.commit().await?;
        Ok(stored)
    }

    /// Deletes an item (kept, hidden from members and the desk's list).
    pub async fn delete(&self, staff_id: &str, kind: ContentKind, id: i64) -> Result<()> {
        let now = self.now_ms();
        let mut tx = self.pool.begin().await?;
        let changed = sqlx::query(
            "UPDATE content_items SET deleted = 1, updated_ms = $3, updated_by = $4 WHERE id = $1 AND kind = $2 AND deleted = 0",
        )
        .bind(id)
        .bind(kind.name())
        .bind(now)
        .bind(staff_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if changed == 0 {
            return Err(ContentFailure::NotFound);
        }
        audit(
            &mut tx,
            staff_id,
            "delete",
            kind.name(),
            id,
            &Value::Null,
            now,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Sends a campaign message to every member of its segment: an inbox
    /// message and a 1005 warm tip each. Returns the campaign.
    pub async fn send_campaign(&self, staff_id: &str, input: &Value) -> Result<CampaignRow> {
        let campaign = Campaign::parse(input)?;
        let now = self.now_ms();
        let segment = serde_json::to_value(&campaign.segment).unwrap_or(Value::Null);
        let mut tx = self.pool.begin().await?;
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO content_campaigns (title, content, segment, recipients, staff_id, created_ms)
             VALUES ($1, $2, $3, 0, $4, $5) RETURNING id",
        )
        .bind(&campaign.title)
        .bind(&campaign.content)
        .bind(segment.to_string())
        .bind(staff_id)
        .bind(now)
        .fetch_one(&mut *tx)
        .await?;
        let tip = json!({"subject": campaign.title, "content": campaign.content}).to_string();
        let (members, binds) = segment_sql(&campaign.segment, 4);
        let messages = format!(
            "INSERT INTO member_messages (user_id, kind, title, content, created_ms, read)
             SELECT m.user_id, {WARM_TIP}, CAST($1 AS TEXT), CAST($2 AS TEXT), CAST($3 AS BIGINT), 0 FROM ({members}) m"
        );
        let mut q = sqlx::query(&messages)
            .bind(&campaign.title)
            .bind(&campaign.content)
            .bind(now);
        for b in &binds {
            q = q.bind(b);
        }
        let recipients = q.execute(&mut *tx).await?.rows_affected() as i64;
        let (members, binds) = segment_sql(&campaign.segment, 3);
        let tips = format!(
            "INSERT INTO notifications (user_id, kind, body, at_ms)
             SELECT m.user_id, {WARM_TIP}, CAST($1 AS TEXT), CAST($2 AS BIGINT) FROM ({members}) m"
        );
        let mut q = sqlx::query(&tips).bind(&tip).bind(now);
        for b in &binds {
            q = q.bind(b);
        }
        q.execute(&mut *tx).await?;
        sqlx::query("UPDATE content_campaigns SET recipients = $2 WHERE id = $1")
            .bind(id)
            .bind(recipients)
            .execute(&mut *tx)
            .await?;
        let saved = json!({"title": campaign.title, "content": campaign.content, "segment": segment, "recipients": recipients});
        audit(&mut tx, staff_id, "send", "campaign", id, &saved, now).await?;
        tx.commit().await?;
        Ok(CampaignRow {
            id,
            title: campaign.title,
            content: campaign.content,
            segment,
            recipients,
            staff_id: staff_id.to_string(),
            created_ms: now,
        })
    }

    pub async fn campaigns(&self) -> Result<Vec<CampaignRow>> {
        let rows = sqlx::query(
            "SELECT id, title, content, segment, recipients, staff_id, created_ms FROM content_campaigns ORDER BY id DESC LIMIT 200",
        )
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let segment: String = r.try_get("segment")?;
                Ok(CampaignRow {
                    id: r.try_get("id")?,
                    title: r.try_get("title")?,
                    content: r.try_get("content")?,
                    segment: serde_json::from_str(&segment).unwrap_or(Value::Null),
                    recipients: r.try_get("recipients")?,
                    staff_id: r.try_get("staff_id")?,
                    created_ms: r.try_get("created_ms")?,
                })
            })
            .collect::<std::result::Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }

    /// The newest audit rows (of one kind, or all).
    pub async fn audit_rows(&self, kind: Option<&str>, limit: i64) -> Result<Vec<AuditRow>> {
        let rows = sqlx::query(
            "SELECT id, staff_id, action, kind, item_id, body, at_ms FROM content_audit
             WHERE ($1 = '' OR kind = $1) ORDER BY id DESC LIMIT $2",
        )
        .bind(kind.unwrap_or(""))
        .bind(limit.clamp(1, 500))
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                let body: String = r.try_get("body")?;
                Ok(AuditRow {
                    id: r.try_get("id")?,
                    staff_id: r.try_get("staff_id")?,
                    action: r.try_get("action")?,
                    kind: r.try_get("kind")?,
                    item_id: r.try_get("item_id")?,
                    body: serde_json::from_str(&body).unwrap_or(Value::Null),
                    at_ms: r.try_get("at_ms")?,
                })
            })
            .collect::<std::result::Result<_, sqlx::Error>>()
            .map_err(Into::into)
    }
}

async fn audit(
    tx: &mut Transaction<'static, Any>,
    staff_id: &str,
    action: &str,
    kind: &str,
    item_id: i64,
    body: &Value,
    at_ms: i64,
) -> std::result::Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO content_audit (staff_id, action, kind, item_id, body, at_ms) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(staff_id)
    .bind(action)
    .bind(kind)
    .bind(item_id)
    .bind(body.to_string())
    .bind(at_ms)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// The user ids of a segment as a sub-select whose parameters start at
/// `$first`, and their values.
fn segment_sql(segment: &Segment, first: usize) -> (String, Vec<String>) {
    match segment {
        Segment::All => (
            "SELECT DISTINCT user_id FROM account_identities WHERE kind = 'username'".into(),
            Vec::new(),
        ),
        Segment::Vip { from, to } => (
            // members the VIP read model has not seen yet are level 1
            format!(
                "SELECT DISTINCT a.user_id FROM account_identities a
                 LEFT JOIN vip_members v ON v.member_id = a.user_id
                 WHERE a.kind = 'username'
                   AND COALESCE(v.level, 1) >= CAST(${first} AS BIGINT) AND COALESCE(v.level, 1) <= CAST(${} AS BIGINT)",
                first + 1
            ),
            vec![from.to_string(), to.to_string()],
        ),
        Segment::Users { usernames } => {
            let marks: Vec<String> = (0..usernames.len())
                .map(|i| format!("${}", first + i))
                .collect();
            (
                format!(
                    "SELECT DISTINCT user_id FROM account_identities WHERE kind = 'username' AND value IN ({})",
                    marks.join(", ")
                ),
                usernames.clone(),
            )
        }
    }
}
