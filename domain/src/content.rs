//! Content and inbox rules (issue 13, items 6 and 7; docs/content.md): what
//! the marketing desk may publish (notices, banners, covers, runtime popups,
//! news, help pages), the segments a campaign message goes to, and which
//! platform events write a message to a member's inbox.
//!
//! Pure: the commands crate stores what these functions accept.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// Bad content input: the message for the back office (code -70009).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ContentError(pub String);

fn bad<T>(msg: impl Into<String>) -> Result<T, ContentError> {
    Err(ContentError(msg.into()))
}

/// The kinds of content the back office manages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentKind {
    /// A line of the header marquee (`about/notice(s)`).
    Notice,
    /// A banner of the home page (`indexbannerslist`) or of a list page
    /// (`bannerslist`).
    Banner,
    /// The cover popup (`coverlist` / `getCoverList`): an image or a list of
    /// games.
    Cover,
    /// A runtime popup with its audience and repeat setting.
    Popup,
    /// A news article (`/news`, zhh only).
    News,
    /// A help page (`/page/help-root-{language}/{title}`, `/helpcenter`).
    Help,
}

impl ContentKind {
    pub const ALL: [ContentKind; 6] = [
        ContentKind::Notice,
        ContentKind::Banner,
        ContentKind::Cover,
        ContentKind::Popup,
        ContentKind::News,
        ContentKind::Help,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ContentKind::Notice => "notice",
            ContentKind::Banner => "banner",
            ContentKind::Cover => "cover",
            ContentKind::Popup => "popup",
            ContentKind::News => "news",
            ContentKind::Help => "help",
        }
    }

    pub fn parse(name: &str) -> Option<ContentKind> {
        ContentKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

/// Languages content is written in; "" means every language.
pub const LANGUAGES: [&str; 3] = ["zhh", "eng", "tha"];

pub const MAX_TITLE: usize = 120;
pub const MAX_TEXT: usize = 500;
pub const MAX_BODY: usize = 20_000;
pub const MAX_URL: usize = 500;
pub const MAX_GAMES: usize = 20;
pub const MAX_USERNAMES: usize = 1000;
/// Custom popup repeats: 1 minute to 366 days.
pub const MAX_REPEAT_MINUTES: i64 = 366 * 24 * 60;

/// A validated content item, ready to store.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Item {
    pub kind: ContentKind,
    pub lang: String,
    /// The help page's title in its address; empty for other kinds.
    pub slug: String,
    pub title: String,
    /// The kind's own fields, as published to the client.
    pub body: Value,
    pub sort: i64,
    pub active: bool,
    /// Shown from / until (unix ms); 0 means no bound.
    pub starts_ms: i64,
    pub ends_ms: i64,
}

fn text_field(
    input: &Value,
    key: &str,
    max: usize,
    required: bool,
) -> Result<String, ContentError> {
    let value = match input.get(key) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.trim().to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(_) => return bad(format!("{key} must be text")),
    };
    if required && value.is_empty() {
        return bad(format!("{key} is required"));
    }
    if value.chars().count() > max {
        return bad(format!("{key} is longer than {max} characters"));
    }
    Ok(value)
}

fn int_field(input: &Value, key: &str, min: i64, max: i64) -> Result<i64, ContentError> {
    let n = match input.get(key) {
        None | Some(Value::Null) => return Ok(min.max(0).min(max)),
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) if s.trim().is_empty() => return Ok(min.max(0).min(max)),
        Some(Value::String(s)) => s.trim().parse().ok(),
        Some(_) => None,
    };
    match n {
        Some(n) if (min..=max).contains(&n) => Ok(n),
        _ => bad(format!("{key} must be a whole number from {min} to {max}")),
    }
}

fn url_field(input: &Value, key: &str, required: bool) -> Result<String, ContentError> {
    let url = text_field(input, key, MAX_URL, required)?;
    if url.is_empty() {
        return Ok(url);
    }
    let lower = url.to_ascii_lowercase();
    // Links stay on the site or go to http(s): no javascript: or data: URLs.
    if lower.starts_with("https://") || lower.starts_with("http://") || url.starts_with('/') {
        if url.starts_with("//") {
            return bad(format!("{key} must start with /, http:// or https://"));
        }
        Ok(url)
    } else {
        bad(format!("{key} must start with /, http:// or https://"))
    }
}

/// Checks the fields of `kind` in `input` (the back office's JSON).
pub fn validate(kind: ContentKind, input: &Value) -> Result<Item, ContentError> {
    if !input.is_object() {
        return bad("the item must be an object");
    }
    let lang = text_field(input, "lang", 3, false)?;
    if !lang.is_empty() && !LANGUAGES.contains(&lang.as_str()) {
        return bad("lang must be zhh, eng, tha or empty (all)");
    }
    let sort = int_field(input, "sort", -1_000_000, 1_000_000)?;
    let active = match input.get("active") {
        None | Some(Value::Null) => true,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_i64() != Some(0),
        Some(_) => return bad("active must be true or false"),
    };
    let starts_ms = int_field(input, "starts_ms", 0, 32_503_680_000_000)?;
    let ends_ms = int_field(input, "ends_ms", 0, 32_503_680_000_000)?;
    if ends_ms != 0 && ends_ms <= starts_ms {
        return bad("ends_ms must be after starts_ms");
    }
    let mut body = Map::new();
    let mut slug = String::new();
    let title;
    match kind {
        ContentKind::Notice => {
            let content = text_field(input, "content", MAX_TEXT, true)?;
            title = text_field(input, "title", MAX_TITLE, false)?;
            body.insert("content".into(), json!(content));
        }
        ContentKind::Banner => {
            let place = text_field(input, "place", 10, false)?;
            let place = if place.is_empty() {
                "index".into()
            } else {
                place
            };
            if place != "index" && place != "list" {
                return bad("place must be index or list");
            }
            title = text_field(input, "title", MAX_TITLE, false)?;
            body.insert("place".into(), json!(place));
            body.insert("img".into(), json!(url_field(input, "img", true)?));
            body.insert("link".into(), json!(url_field(input, "link", false)?));
        }
        ContentKind::Cover => {
            title = text_field(input, "title", MAX_TITLE, false)?;
            let img = url_field(input, "img", false)?;
            let games = match input.get("gameinfo") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(list)) => list.clone(),
                Some(_) => return bad("gameinfo must be a list"),
            };
            if img.is_empty() == games.is_empty() {
                return bad("a cover is either an img or a gameinfo list");
            }
            if games.len() > MAX_GAMES {
                return bad(format!("at most {MAX_GAMES} games"));
            }
            let mut checked = Vec::with_capacity(games.len());
            for game in &games {
                checked.push(json!({
                    "HomeTeamId": int_field(game, "HomeTeamId", 0, i64::from(i32::MAX))?,
                    "AwayTeamId": int_field(game, "AwayTeamId", 0, i64::from(i32::MAX))?,
                    "HomeTeamName": text_field(game, "HomeTeamName", 80, true)?,
                    "AwayTeamName": text_field(game, "AwayTeamName", 80, true)?,
                    "MatchStartDateGMT": text_field(game, "MatchStartDateGMT", 40, true)?,
                }));
            }
            if img.is_empty() {
                body.insert("gameinfo".into(), Value::Array(checked));
            } else {
                body.insert("img".into(), json!(img));
                body.insert("link".into(), json!(url_field(input, "link", false)?));
            }
        }
        ContentKind::Popup => {
            title = text_field(input, "title", MAX_TITLE, true)?;
            let style = text_field(input, "style", 10, false)?;
            let style = if style.is_empty() {
                "message".into()
            } else {
                style
            };
            match style.as_str() {
                "message" | "template" => {
                    let content = text_field(input, "content", MAX_BODY, true)?;
                    body.insert("content".into(), json!(content));
                    if style == "template" {
                        body.insert("img".into(), json!(url_field(input, "img", false)?));
                        body.insert("link".into(), json!(url_field(input, "link", false)?));
                    }
                }
                "iframe" => {
                    body.insert("url".into(), json!(url_field(input, "url", true)?));
                }
                _ => return bad("style must be message, template or iframe"),
            }
            let audience = text_field(input, "audience", 10, false)?;
            let audience = if audience.is_empty() {
                "all".into()
            } else {
                audience
            };
            if Audience::parse(&audience).is_none() {
                return bad("audience must be guests, members or all");
            }
            let repeat = text_field(input, "repeat", 10, false)?;
            let repeat = if repeat.is_empty() {
                "never".into()
            } else {
                repeat
            };
            let minutes = int_field(input, "minutes", 0, MAX_REPEAT_MINUTES)?;
            let Some(parsed) = Repeat::parse(&repeat, minutes) else {
                return bad(
                    "repeat must be never, daily, weekly, monthly or custom (1 or more minutes)",
                );
            };
            body.insert("style".into(), json!(style));
            body.insert("audience".into(), json!(audience));
            body.insert("repeat".into(), json!(repeat));
            body.insert("minutes".into(), json!(minutes));
            body.insert("interval".into(), json!(parsed.seconds()));
        }
        ContentKind::News => {
            title = text_field(input, "title", MAX_TITLE, true)?;
            body.insert("type".into(), json!(int_field(input, "type", 1, 99)?));
            body.insert(
                "summary".into(),
                json!(text_field(input, "summary", MAX_TEXT, false)?),
            );
            body.insert(
                "content".into(),
                json!(text_field(input, "content", MAX_BODY, true)?),
            );
            body.insert("img".into(), json!(url_field(input, "img", false)?));
        }
        ContentKind::Help => {
            title = text_field(input, "title", MAX_TITLE, true)?;
            slug = text_field(input, "slug", 64, true)?;
            if !slug
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            {
                return bad("slug may hold letters, digits, - and _ only");
            }
            if lang.is_empty() {
                return bad("a help page needs its lang");
            }
            body.insert(
                "content".into(),
                json!(text_field(input, "content", MAX_BODY, true)?),
            );
        }
    }
    let lang = if kind == ContentKind::News && lang.is_empty() {
        // news is Chinese only (spec 001 section 2.1)
        "zhh".to_string()
    } else {
        lang
    };
    Ok(Item {
        kind,
        lang,
        slug,
        title,
        body: Value::Object(body),
        sort,
        active,
        starts_ms,
        ends_ms,
    })
}

/// Who a runtime popup is shown to (spec 001 section 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Audience {
    Guests,
    Members,
    All,
}

impl Audience {
    pub fn parse(s: &str) -> Option<Audience> {
        match s {
            "guests" => Some(Audience::Guests),
            "members" => Some(Audience::Members),
            "all" => Some(Audience::All),
            _ => None,
        }
    }
}

/// How often a runtime popup comes back (spec 001 section 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repeat {
    Never,
    Daily,
    Weekly,
    Monthly,
    Minutes(i64),
}

impl Repeat {
    pub fn parse(s: &str, minutes: i64) -> Option<Repeat> {
        match s {
            "never" => Some(Repeat::Never),
            "daily" => Some(Repeat::Daily),
            "weekly" => Some(Repeat::Weekly),
            "monthly" => Some(Repeat::Monthly),
            "custom" if (1..=MAX_REPEAT_MINUTES).contains(&minutes) => {
                Some(Repeat::Minutes(minutes))
            }
            _ => None,
        }
    }

    /// The interval in seconds: 86,400, 604,800, 2,592,000 or minutes x 60;
    /// 0 for never (shown once).
    pub fn seconds(self) -> i64 {
        match self {
            Repeat::Never => 0,
            Repeat::Daily => 86_400,
            Repeat::Weekly => 604_800,
            Repeat::Monthly => 2_592_000,
            Repeat::Minutes(m) => m * 60,
        }
    }
}

/// The members a campaign message goes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Segment {
    /// Every registered member.
    All,
    /// Members whose VIP level is within `from..=to` (1 to 10).
    Vip { from: u8, to: u8 },
    /// The members with these usernames (lower-cased, unknown ones skipped).
    Users { usernames: Vec<String> },
}

impl Segment {
    pub fn parse(input: &Value) -> Result<Segment, ContentError> {
        let kind = text_field(input, "type", 10, true)?;
        match kind.as_str() {
            "all" => Ok(Segment::All),
            "vip" => {
                let from = int_field(input, "from", 1, 10)?;
                let to = int_field(input, "to", 1, 10)?;
                if from > to {
                    return bad("from must not be above to");
                }
                Ok(Segment::Vip {
                    from: from as u8,
                    to: to as u8,
                })
            }
            "users" => {
                let list: Vec<String> = match input.get("usernames") {
                    Some(Value::Array(a)) => a
                        .iter()
                        .filter_map(|v| v.as_str())
                        .map(|s| s.trim().to_lowercase())
                        .filter(|s| !s.is_empty())
                        .collect(),
                    Some(Value::String(s)) => s
                        .split([',', '\n', ' ', ';'])
                        .map(|s| s.trim().to_lowercase())
                        .filter(|s| !s.is_empty())
                        .collect(),
                    _ => Vec::new(),
                };
                let mut usernames = list;
                usernames.sort();
                usernames.dedup();
                if usernames.is_empty() {
                    return bad("usernames are required");
                }
                if usernames.len() > MAX_USERNAMES {
                    return bad(format!("at most {MAX_USERNAMES} usernames"));
                }
                if usernames.iter().any(|u| u.chars().count() > 64) {
                    return bad("a username is too long");
                }
                Ok(Segment::Users { usernames })
            }
            _ => bad("type must be all, vip or users"),
        }
    }
}

/// A campaign message as the back office sends it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Campaign {
    pub title: String,
    pub content: String,
    pub segment: Segment,
}

impl Campaign {
    pub fn parse(input: &Value) -> Result<Campaign, ContentError> {
        let title = text_field(input, "title", MAX_TITLE, true)?;
        let content = text_field(input, "content", MAX_TEXT * 4, true)?;
        let segment = Segment::parse(input.get("segment").unwrap_or(&Value::Null))?;
        Ok(Campaign {
            title,
            content,
            segment,
        })
    }
}

/// Inbox message kinds (the winning-tip types of spec 001 section 3).
pub const DEPOSIT_RESULT: i64 = 1000;
pub const WITHDRAWAL_RESULT: i64 = 1001;
pub const ACTIVITY: i64 = 1003;
pub const WARM_TIP: i64 = 1005;

/// A message the inbox process manager writes for a source event.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    pub member_id: String,
    pub kind: i64,
    pub title: String,
    pub content: String,
    /// Also pushed over /ws as a winning tip (kind and data); deposit and
    /// withdrawal results already have their own tips from payments.
    pub tip: Option<Value>,
}

/// Aggregate types whose events may write an inbox message.
pub const INBOX_SOURCES: [&str; 5] = ["Deposit", "Withdrawal", "SeasonTask", "Vip", "Promotion"];

fn s(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// `cash currency` of a promotion event, empty when it paid no cash.
fn cash_of(body: &Value) -> String {
    let cash = s(body.get("cash"));
    if cash.is_empty() || cash.parse::<f64>().map_or(true, |c| c == 0.0) {
        String::new()
    } else {
        format!("{cash} {}", s(body.get("currency")))
    }
}

/// What an inbox message says, before it is put in the member's language.
#[derive(Debug, Clone, PartialEq)]
enum Said {
    DepositCredited {
        order: String,
        money: String,
    },
    DepositFailed {
        order: String,
    },
    WithdrawalPaid {
        order: String,
        money: String,
    },
    WithdrawalRefused {
        order: String,
        reason: String,
    },
    ClaimApproved {
        task: String,
    },
    TaskRewardPaid {
        task: String,
        cash: String,
    },
    VipReward {
        kind: String,
        money: String,
    },
    /// Promotions: a prize drawn, a campaign bonus, a referral gift, a
    /// purchase in the points shop.
    PromoReward {
        what: PromoWhat,
        money: String,
    },
    Purchase {
        order: String,
        points: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum PromoWhat {
    Prize(String),
    Campaign,
    Referral,
    Task(String),
}

impl Said {
    fn kind(&self) -> i64 {
        match self {
            Said::DepositCredited { .. } | Said::DepositFailed { .. } => DEPOSIT_RESULT,
            Said::WithdrawalPaid { .. } | Said::WithdrawalRefused { .. } => WITHDRAWAL_RESULT,
            _ => ACTIVITY,
        }
    }

    /// (title, content) in `lang` (zhh, tha; anything else reads as eng).
    fn render(&self, lang: &str) -> (String, String) {
        let zh = lang == "zhh";
        let th = lang == "tha";
        let pick = |e: String, z: String, t: String| {
            if zh {
                z
            } else if th {
                t
            } else {
                e
            }
        };
        match self {
            Said::DepositCredited { order, money } => (
                pick(
                    "Deposit result".into(),
                    "存款结果".into(),
                    "ผลการฝากเงิน".into(),
                ),
                pick(
                    format!("Deposit {order} of {money} has been credited."),
                    format!("存款订单 {order}（{money}）已到账。"),
                    format!("รายการฝาก {order} จำนวน {money} เข้าบัญชีแล้ว"),
                ),
            ),
            Said::DepositFailed { order } => (
                pick(
                    "Deposit result".into(),
                    "存款结果".into(),
                    "ผลการฝากเงิน".into(),
                ),
                pick(
                    format!("Deposit {order} failed."),
                    format!("存款订单 {order} 支付失败。"),
                    format!("รายการฝาก {order} ไม่สำเร็จ"),
                ),
            ),
            Said::WithdrawalPaid { order, money } => (
                pick(
                    "Withdrawal result".into(),
                    "提款结果".into(),
                    "ผลการถอนเงิน".into(),
                ),
                pick(
                    format!("Withdrawal {order} of {money} has been paid."),
                    format!("提款订单 {order}（{money}）已出款。"),
                    format!("รายการถอน {order} จำนวน {money} จ่ายแล้ว"),
                ),
            ),
            Said::WithdrawalRefused { order, reason } => {
                let why = |label: &str| {
                    if reason.is_empty() {
                        String::new()
                    } else {
                        format!(" {label}{reason}")
                    }
                };
                (
                    pick("Withdrawal result".into(), "提款结果".into(), "ผลการถอนเงิน".into()),
                    pick(
                        format!("Withdrawal {order} was not paid; the amount is back in your balance.{}", why("Reason: ")),
                        format!("提款订单 {order} 未能出款，金额已退回余额。{}", why("原因：")),
                        format!("รายการถอน {order} ไม่ได้จ่าย ยอดเงินคืนเข้ายอดคงเหลือแล้ว{}", why("เหตุผล: ")),
                    ),
                )
            }
            Said::ClaimApproved { task } => (
                pick(
                    "Claim approved".into(),
                    "申请已通过".into(),
                    "อนุมัติคำขอแล้ว".into(),
                ),
                pick(
                    format!("Your claim for task {task} was approved and paid."),
                    format!("您的任务 {task} 奖励申请已通过并派发。"),
                    format!("คำขอรางวัลภารกิจ {task} ได้รับอนุมัติและจ่ายแล้ว"),
                ),
            ),
            Said::TaskRewardPaid { task, cash } => (
                pick(
                    "Reward paid".into(),
                    "奖励已派发".into(),
                    "จ่ายรางวัลแล้ว".into(),
                ),
                pick(
                    format!("The reward of task {task} ({cash}) has been paid."),
                    format!("任务 {task} 的奖励（{cash}）已派发。"),
                    format!("จ่ายรางวัลภารกิจ {task} ({cash}) แล้ว"),
                ),
            ),
            Said::PromoReward { what, money } => {
                let (e, z, t) = match what {
                    PromoWhat::Prize(prize) => (
                        format!("You won {prize} in the prize draw"),
                        format!("您在幸运抽奖中获得 {prize}"),
                        format!("คุณได้รับ {prize} จากการจับรางวัล"),
                    ),
                    PromoWhat::Campaign => (
                        "Your promotion bonus has been paid".to_string(),
                        "您的活动彩金已派发".to_string(),
                        "จ่ายโบนัสโปรโมชั่นแล้ว".to_string(),
                    ),
                    PromoWhat::Referral => (
                        "Your referral gift has been paid".to_string(),
                        "您的推荐好友礼金已派发".to_string(),
                        "จ่ายของขวัญแนะนำเพื่อนแล้ว".to_string(),
                    ),
                    PromoWhat::Task(task) => (
                        format!("The reward of task {task} has been paid"),
                        format!("任务 {task} 的奖励已派发"),
                        format!("จ่ายรางวัลภารกิจ {task} แล้ว"),
                    ),
                };
                let amount = |money: &str| {
                    if money.trim().is_empty() {
                        String::new()
                    } else {
                        format!(" ({money})")
                    }
                };
                (
                    pick(
                        "Reward paid".into(),
                        "奖励已派发".into(),
                        "จ่ายรางวัลแล้ว".into(),
                    ),
                    pick(
                        format!("{e}{}.", amount(money)),
                        format!("{z}{}。", amount(money)),
                        format!("{t}{}", amount(money)),
                    ),
                )
            }
            Said::Purchase { order, points } => (
                pick("Shop order".into(), "商城订单".into(), "คำสั่งซื้อร้านค้า".into()),
                pick(
                    format!("Order {order} is confirmed: {points} points spent."),
                    format!("订单 {order} 已确认，消耗 {points} 积分。"),
                    format!("คำสั่งซื้อ {order} ยืนยันแล้ว ใช้ {points} คะแนน"),
                ),
            ),
            Said::VipReward { kind, money } => {
                let (e, z, t) = match kind.as_str() {
                    "gift" | "Gift" => ("VIP upgrade gift", "VIP 晋级礼金", "ของขวัญเลื่อนระดับ VIP"),
                    "salary" | "Salary" => ("VIP monthly salary", "VIP 月俸禄", "เงินเดือน VIP"),
                    "rebate" | "Rebate" => ("VIP rebate", "VIP 返水", "เงินคืน VIP"),
                    _ => ("VIP reward", "VIP 奖励", "รางวัล VIP"),
                };
                (
                    pick(
                        "Reward paid".into(),
                        "奖励已派发".into(),
                        "จ่ายรางวัลแล้ว".into(),
                    ),
                    pick(
                        format!("Your {e} of {money} has been paid."),
                        format!("您的{z}（{money}）已派发。"),
                        format!("{t} จำนวน {money} จ่ายแล้ว"),
                    ),
                )
            }
        }
    }
}

/// The inbox message of one event, if it writes one, in `lang` (the
/// member's market: zhh, eng or tha). `payload` is the stored event
/// (externally tagged: `{"DepositCredited": {...}}`); `owner` the member
/// of its aggregate where the event itself does not name one (found from
/// the aggregate's first event or its id).
pub fn inbox_draft(
    aggregate_type: &str,
    aggregate_id: &str,
    event_type: &str,
    payload: &Value,
    owner: Option<&str>,
    lang: &str,
) -> Option<Draft> {
    let body = payload.get(event_type).unwrap_or(payload);
    let member = {
        let mut named = s(body.get("member_id"));
        if named.is_empty() && event_type == "ReferralDecided" {
            // The referral gift goes to the referrer.
            named = s(body.get("referrer_id"));
        }
        if named.is_empty() {
            owner.unwrap_or_default().to_string()
        } else {
            named
        }
    };
    if member.is_empty() {
        return None;
    }
    let order = {
        let named = s(body.get("order_id"));
        if named.is_empty() {
            aggregate_id.to_string()
        } else {
            named
        }
    };
    let money = format!("{} {}", s(body.get("amount")), s(body.get("currency")));
    let said = match (aggregate_type, event_type) {
        ("Deposit", "DepositCredited") => Said::DepositCredited { order, money },
        ("Deposit", "DepositFailed") => Said::DepositFailed { order },
        ("Withdrawal", "WithdrawalPaid") => Said::WithdrawalPaid { order, money },
        ("Withdrawal", "WithdrawalRejected") | ("Withdrawal", "WithdrawalFailed") => {
            Said::WithdrawalRefused {
                order,
                reason: s(body.get("reason")),
            }
        }
        ("SeasonTask", "TaskClaimApproved") => Said::ClaimApproved {
            task: s(body.get("task_id")),
        },
        ("SeasonTask", "TaskRewardClaimed") => Said::TaskRewardPaid {
            task: s(body.get("task_id")),
            cash: s(body.get("cash")),
        },
        ("Vip", "RewardGranted") => Said::VipReward {
            kind: s(body.get("kind")),
            money,
        },
        // Promotions (docs/promotions.md): rewards that paid money, and
        // purchases. Sign-ins and reviews write nothing of their own.
        ("Promotion", "PrizeDrawn") => Said::PromoReward {
            what: PromoWhat::Prize(s(body.get("prize"))),
            money: cash_of(body),
        },
        ("Promotion", "CampaignRewarded") => Said::PromoReward {
            what: PromoWhat::Campaign,
            money,
        },
        ("Promotion", "ReferralDecided") if s(body.get("outcome")) == "paid" => Said::PromoReward {
            what: PromoWhat::Referral,
            money: format!("{} {}", s(body.get("bonus")), s(body.get("currency"))),
        },
        ("Promotion", "TaskRewardClaimed") if s(body.get("state")) == "paid" => Said::PromoReward {
            what: PromoWhat::Task(s(body.get("task_id"))),
            money: cash_of(body),
        },
        ("Promotion", "GoodsBought") => Said::Purchase {
            order: s(body.get("order_id")),
            points: s(body.get("points")),
        },
        _ => return None,
    };
    let kind = said.kind();
    let (title, content) = said.render(lang);
    // deposit and withdrawal results have their own tips from payments
    let tip = (kind == ACTIVITY).then(|| json!({ "subject": title, "content": content }));
    Some(Draft {
        member_id: member,
        kind,
        title,
        content,
        tip,
    })
}

/// The member of a SeasonTask stream (`{season}:{member}`) or a Vip stream
/// (the member id itself).
pub fn owner_from_id(aggregate_type: &str, aggregate_id: &str) -> Option<String> {
    match aggregate_type {
        "SeasonTask" => aggregate_id.split_once(':').map(|(_, m)| m.to_string()),
        "Vip" => Some(aggregate_id.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn popup_repeat_intervals_are_the_specs_seconds() {
        assert_eq!(Repeat::parse("never", 0).unwrap().seconds(), 0);
        assert_eq!(Repeat::parse("daily", 0).unwrap().seconds(), 86_400);
        assert_eq!(Repeat::parse("weekly", 0).unwrap().seconds(), 604_800);
        assert_eq!(Repeat::parse("monthly", 0).unwrap().seconds(), 2_592_000);
        assert_eq!(Repeat::parse("custom", 15).unwrap().seconds(), 900);
        assert_eq!(Repeat::parse("custom", 0), None);
        assert_eq!(Repeat::parse("hourly", 0), None);
    }

    #[test]
    fn a_popup_names_its_audience_and_repeat() {
        let ok = validate(
            ContentKind::Popup,
            &json!({"title": "Hi", "content": "x", "audience": "guests", "repeat": "custom", "minutes": 30}),
        )
        .unwrap();
        assert_eq!(ok.body["interval"], 1800);
        assert_eq!(ok.body["audience"], "guests");
        assert!(validate(
            ContentKind::Popup,
            &json!({"title": "Hi", "content": "x", "audience": "bots"})
        )
        .is_err());
        assert!(validate(
            ContentKind::Popup,
            &json!({"title": "Hi", "style": "iframe", "url": "javascript:alert(1)"})
        )
        .is_err());
    }

    #[test]
    fn a_cover_is_an_image_or_a_list_of_games() {
        assert!(validate(ContentKind::Cover, &json!({"img": "/a.png"})).is_ok());
        let games = json!({"gameinfo": [{"HomeTeamId": 1, "AwayTeamId": 2, "HomeTeamName": "A", "AwayTeamName": "B", "MatchStartDateGMT": "2026-06-01 18:00"}]});
        assert!(validate(ContentKind::Cover, &games).is_ok());
        assert!(validate(ContentKind::Cover, &json!({})).is_err());
        let mut both = games.clone();
        both["img"] = json!("/a.png");
        assert!(validate(ContentKind::Cover, &both).is_err());
    }

    #[test]
    fn notices_are_bounded_and_news_defaults_to_chinese() {
        assert!(validate(ContentKind::Notice, &json!({"content": ""})).is_err());
        assert!(validate(ContentKind::Notice, &json!({"content": "x".repeat(501)})).is_err());
        assert!(validate(
            ContentKind::Notice,
            &json!({"content": "hi", "lang": "fra"})
        )
        .is_err());
        let news = validate(ContentKind::News, &json!({"title": "t", "content": "c"})).unwrap();
        assert_eq!(news.lang, "zhh");
        assert!(validate(
            ContentKind::Help,
            &json!({"title": "t", "slug": "a b", "lang": "eng", "content": "c"})
        )
        .is_err());
    }

    #[test]
    fn segments_are_all_a_vip_range_or_usernames() {
        assert_eq!(
            Segment::parse(&json!({"type": "all"})).unwrap(),
            Segment::All
        );
        assert_eq!(
            Segment::parse(&json!({"type": "vip", "from": 3, "to": 5})).unwrap(),
            Segment::Vip { from: 3, to: 5 }
        );
        assert!(Segment::parse(&json!({"type": "vip", "from": 6, "to": 5})).is_err());
        assert!(Segment::parse(&json!({"type": "vip", "from": 0, "to": 11})).is_err());
        assert_eq!(
            Segment::parse(&json!({"type": "users", "usernames": "Bob, alice bob"})).unwrap(),
            Segment::Users {
                usernames: vec!["alice".into(), "bob".into()]
            }
        );
        assert!(Segment::parse(&json!({"type": "users", "usernames": []})).is_err());
    }

    #[test]
    fn payment_results_claims_and_rewards_write_messages_and_nothing_else_does() {
        let credited = json!({"DepositCredited": {"member_id": "100001", "amount": "50.00", "currency": "CNY", "order_id": "D1"}});
        let d = inbox_draft("Deposit", "D1", "DepositCredited", &credited, None, "eng").unwrap();
        assert_eq!(
            (d.member_id.as_str(), d.kind, d.tip.is_none()),
            ("100001", 1000, true)
        );
        assert_eq!(d.content, "Deposit D1 of 50.00 CNY has been credited.");
        let rejected =
            json!({"WithdrawalRejected": {"staff_id": "s", "reason": "docs", "at_ms": 1}});
        assert!(inbox_draft(
            "Withdrawal",
            "W1",
            "WithdrawalRejected",
            &rejected,
            None,
            "eng"
        )
        .is_none());
        let d = inbox_draft(
            "Withdrawal",
            "W1",
            "WithdrawalRejected",
            &rejected,
            Some("100002"),
            "zhh",
        )
        .unwrap();
        assert_eq!((d.member_id.as_str(), d.kind), ("100002", 1001));
        assert_eq!(d.title, "提款结果", "in the member's language");
        assert!(d.content.contains("原因：docs"), "{}", d.content);
        let approved = json!({"TaskClaimApproved": {"task_id": 3, "staff_id": "s", "at_ms": 1}});
        let owner = owner_from_id("SeasonTask", "7:100003");
        let d = inbox_draft(
            "SeasonTask",
            "7:100003",
            "TaskClaimApproved",
            &approved,
            owner.as_deref(),
            "tha",
        )
        .unwrap();
        assert_eq!(
            (d.member_id.as_str(), d.kind, d.tip.is_some()),
            ("100003", 1003, true)
        );
        assert_eq!(d.title, "อนุมัติคำขอแล้ว");
        let placed = json!({"DepositCreated": {"member_id": "100001"}});
        assert!(inbox_draft("Deposit", "D1", "DepositCreated", &placed, None, "eng").is_none());
    }
    #[test]
    fn promotion_rewards_and_purchases_write_one_activity_message_and_sign_ins_none() {
        let drawn = json!({"PrizeDrawn": {"member_id": "100001", "period": "2026-11-24", "week": 1, "slot": 3,
            "prize": "8 yuan", "kind": "cash", "cash": "8.00", "currency": "CNY", "at_ms": 1}});
        let d = inbox_draft(
            "Promotion",
            "draw:100001:2026-11-24",
            "PrizeDrawn",
            &drawn,
            None,
            "eng",
        )
        .unwrap();
        assert_eq!((d.member_id.as_str(), d.kind), ("100001", ACTIVITY));
        assert!(
            d.content.contains("8 yuan") && d.content.contains("8.00 CNY"),
            "{}",
            d.content
        );
        assert!(d.tip.is_some(), "a 1003 pop-over too");
        let bought = json!({"GoodsBought": {"member_id": "100001", "order_id": "S7", "goods_id": 2, "qty": 1,
            "points": "30", "kind": "physical", "cash": "0", "currency": "CNY", "at_ms": 1}});
        let d = inbox_draft("Promotion", "shop:S7", "GoodsBought", &bought, None, "zhh").unwrap();
        assert!(
            d.content.contains("S7") && d.content.contains("30"),
            "{}",
            d.content
        );
        let paid = json!({"ReferralDecided": {"referee_id": "100009", "referrer_id": "100001", "outcome": "paid",
            "reason": "", "bonus": "58.00", "currency": "CNY", "at_ms": 1}});
        let d = inbox_draft(
            "Promotion",
            "referral:100009",
            "ReferralDecided",
            &paid,
            None,
            "tha",
        )
        .unwrap();
        assert_eq!(d.member_id, "100001", "the referrer is told");
        assert!(d.content.contains("58.00"), "{}", d.content);
        let refused = json!({"ReferralDecided": {"referee_id": "100009", "referrer_id": "100001", "outcome": "refused",
            "reason": "same device", "bonus": "0", "currency": "CNY", "at_ms": 1}});
        assert!(inbox_draft(
            "Promotion",
            "referral:100009",
            "ReferralDecided",
            &refused,
            None,
            "eng"
        )
        .is_none());
        let signed = json!({"SignedIn": {"member_id": "100001", "day": 1, "streak": 1, "reward": "1", "currency": "CNY", "at_ms": 1}});
        assert!(inbox_draft(
            "Promotion",
            "signin:100001:1",
            "SignedIn",
            &signed,
            None,
            "eng"
        )
        .is_none());
        let pending = json!({"TaskRewardClaimed": {"member_id": "100001", "task_id": 4, "period": "d", "cash": "5",
            "currency": "CNY", "state": "pending", "at_ms": 1}});
        assert!(inbox_draft(
            "Promotion",
            "task:100001:4:d",
            "TaskRewardClaimed",
            &pending,
            None,
            "eng"
        )
        .is_none());
    }
}
