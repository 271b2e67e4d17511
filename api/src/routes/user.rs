//! Member calls (spec 001 section 7.2): profile, balance, security.

use axum::extract::State;
use axum::http::Method;
use axum::routing::post;
use axum::{Json, Router};
use commands::accounts::codes::Channel;
use commands::accounts::{ContactProof, Verification};
use domain::account::Address;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::app::AppState;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes};

pub fn router() -> Router<AppState> {
    Router::new()
        .read_route("/api/user/userinfo", post(user_info).get(user_info))
        .read_route("/api/user/getbalance", post(balance).get(balance))
        .route("/api/user/loginpassedit", post(login_password))
        .route("/api/user/fundpassset", post(fund_password))
        .route("/api/user/questioncheck", post(question_check))
        .route("/api/user/questionupdate", post(question_update))
        .route("/api/user/emailupdate", post(email_update))
        .route("/api/user/mobileupdate", post(mobile_update))
        .route("/api/user/mobileinsert", post(mobile_update))
        .route("/api/user/emailunbind", post(email_unbind))
        .route("/api/user/mobileunbind", post(mobile_unbind))
        .route("/api/user/birthdateupdate", post(birth_date_update))
        .route("/api/user/nicknameupdate", post(nickname_update))
        .route("/api/user/realnameupdate", post(real_name_update))
        .route("/api/user/setusersummary", post(summary_update))
        .route("/api/user/setuseraddress", post(address_update))
        .read_route("/api/user/useraddress", post(address).get(address))
        .route("/api/user/messages", post(messages).get(messages))
        .read_route(
            "/api/user/messagesconfig",
            post(messages_config).get(messages_config),
        )
        .route("/api/user/bindws", post(bind_ws))
}

type Answer<T> = Result<Json<Envelope<T>>, ApiError>;

#[derive(Serialize)]
struct UserInfo {
    user_id: String,
    username: String,
    nickname: String,
    realname: String,
    email: String,
    phone: String,
    country_code: String,
    currency_name: String,
    currency_id: String,
    gender: String,
    birth_date: String,
    vipname: String,
    vipexpbalance: String,
    userrank: i64,
    has_fund_password: bool,
    has_security_question: bool,
    /// The member's own security question (empty when none is set): the
    /// password change by security answer shows it.
    security_question: String,
    summary: String,
    created: i64,
    unread_count: i64,
    has_free_bets: bool,
}

#[utoipa::path(method(post, get), path = "/api/user/userinfo", operation_id = "user_user_info", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn user_info(State(state): State<AppState>, member: Member) -> Answer<UserInfo> {
    let account = state.accounts.load(&member.user_id).await?;
    let unread = state
        .inbox
        .unread(&member.user_id)
        .await
        .map_err(|e| ApiError::Internal(e.0))?;
    let profile = account
        .profile
        .as_ref()
        .ok_or(ApiError::Code(domain::Code::NOT_LOGGED_IN))?;
    let text = |v: Option<&str>| v.unwrap_or_default().to_string();
    let (vipname, vipexpbalance, userrank) =
        crate::routes::vip::userinfo_fields(&state, &member.user_id).await?;
    Ok(ok(UserInfo {
        user_id: member.user_id.clone(),
        username: profile.username.as_str().to_string(),
        nickname: text(profile.nickname.as_ref().map(|n| n.as_str()))
            .chars()
            .collect::<String>()
            .if_empty(profile.username.as_str()),
        realname: text(profile.real_name.as_ref().map(|n| n.as_str())),
        email: account.masked_email().unwrap_or_default(),
        phone: account.masked_phone().unwrap_or_default(),
        country_code: profile.country_code.as_str().to_string(),
        currency_name: profile.currency.code().to_string(),
        currency_id: profile.currency.code().to_string(),
        gender: profile
            .gender
            .map(|g| g.code().to_string())
            .unwrap_or_default(),
        birth_date: profile
            .birth_date
            .map(|d| d.date().to_string())
            .unwrap_or_default(),
        vipname,
        vipexpbalance,
        userrank,
        has_fund_password: account.fund_password_hash.is_some(),
        has_security_question: account.security_question.is_some(),
        security_question: account
            .security_question
            .as_ref()
            .map(|q| q.question.clone())
            .unwrap_or_default(),
        summary: account.summary.clone(),
        created: account.registered_at_ms,
        unread_count: unread,
        has_free_bets: state
            .betting
            .has_free_bets(&member.user_id)
            .await
            .unwrap_or(false),
    }))
}

fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

trait IfEmpty {
    fn if_empty(self, fallback: &str) -> String;
}

impl IfEmpty for String {
    fn if_empty(self, fallback: &str) -> String {
        if self.is_empty() {
            fallback.to_string()
        } else {
            self
        }
    }
}

/// `getbalance` (spec 001 section 7.2): from the balance projection.
#[derive(Serialize)]
pub struct BalanceView {
    pub balance: String,
    pub bonus_balance: String,
    pub bonus_win_balance: String,
    pub frozen_balance: String,
    pub currency: String,
}

pub async fn balance_of(state: &AppState, user_id: &str) -> Result<BalanceView, ApiError> {
    let account = state.accounts.load(user_id).await?;
    let currency = account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .unwrap_or(domain::Currency::Cny);
    let row = projections::balances::get_current(&state.db.any, user_id, currency.code()).await?;
    let ledger = row.map(|r| r.ledger).unwrap_or_default();
    let money = |amount| currency.round(amount).to_string();
    Ok(BalanceView {
        balance: money(ledger.balances.main),
        bonus_balance: money(ledger.balances.bonus),
        bonus_win_balance: money(ledger.balances.bonus_win),
        frozen_balance: money(ledger.balances.frozen),
        currency: currency.code().to_string(),
    })
}

#[utoipa::path(method(post, get), path = "/api/user/getbalance", operation_id = "user_balance", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn balance(State(state): State<AppState>, member: Member) -> Answer<BalanceView> {
    Ok(ok(balance_of(&state, &member.user_id).await?))
}

/// The old password, or (the step-by-step change, `/setting/changeloginsteps`)
/// `uid` and `valtype`: a checked type-8 code sent to the bound phone
/// (`valtype` 1) or e-mail (2), or the uid `questioncheck` answered (3).
#[derive(Deserialize, utoipa::ToSchema)]
struct PasswordBody {
    #[serde(default)]
    oldpass: String,
    #[serde(default)]
    newpass: String,
    #[serde(default)]
    confirm_newpass: String,
    #[serde(default)]
    uid: String,
    #[serde(default)]
    valtype: Value,
}

/// A proof uid: the 16 letters or digits `sendcode` / `questioncheck` answer.
fn proof_uid<'a>(uid: &'a str, field: &'static str) -> Result<&'a str, ApiError> {
    let uid = uid.trim();
    if uid.len() == 16 && uid.bytes().all(|b| b.is_ascii_alphanumeric()) {
        Ok(uid)
    } else {
        Err(ApiError::field(
            21,
            "Please enter the 4-digit verification code",
            field,
        ))
    }
}

#[utoipa::path(post, path = "/api/user/loginpassedit", operation_id = "user_login_password", tag = crate::openapi::MEMBER, request_body = PasswordBody, responses(crate::openapi::MemberAnswers))]
async fn login_password(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<PasswordBody>,
) -> Answer<Value> {
    if body.oldpass.is_empty() && !body.uid.trim().is_empty() {
        let way = number(&body.valtype)
            .and_then(Verification::from_valtype)
            .ok_or_else(|| ApiError::field(-10101, "Value valtype is not valid.", "valtype"))?;
        state
            .accounts
            .change_login_password_verified(
                &member.user_id,
                &member.auth_token,
                way,
                proof_uid(&body.uid, "uid")?,
                &body.newpass,
                &body.confirm_newpass,
            )
            .await?;
        return Ok(ok(Value::Null));
    }
    state
        .accounts
        .change_login_password(
            &member.user_id,
            &member.auth_token,
            &body.oldpass,
            &body.newpass,
            &body.confirm_newpass,
        )
        .await?;
    Ok(ok(Value::Null))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct FundBody {
    #[serde(default)]
    fundpass: String,
    #[serde(default)]
    confirm_fundpass: String,
    #[serde(default)]
    loginpass: String,
}

#[utoipa::path(post, path = "/api/user/fundpassset", operation_id = "user_fund_password", tag = crate::openapi::MEMBER, request_body = FundBody, responses(crate::openapi::MemberAnswers))]
async fn fund_password(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<FundBody>,
) -> Answer<Value> {
    state
        .accounts
        .set_fund_password(
            &member.user_id,
            &body.fundpass,
            &body.confirm_fundpass,
            &body.loginpass,
        )
        .await?;
    Ok(ok(Value::Null))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct QuestionBody {
    #[serde(default)]
    question: String,
    #[serde(default)]
    answer: String,
    #[serde(default)]
    loginpass: String,
}

#[utoipa::path(post, path = "/api/user/questioncheck", operation_id = "user_question_check", tag = crate::openapi::MEMBER, request_body = QuestionBody, responses(crate::openapi::MemberAnswers))]
async fn question_check(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<QuestionBody>,
) -> Answer<Value> {
    let uid = state
        .accounts
        .check_security_question(&member.user_id, &body.question, &body.answer)
        .await?;
    Ok(ok(json!({ "uid": uid })))
}

#[utoipa::path(post, path = "/api/user/questionupdate", operation_id = "user_question_update", tag = crate::openapi::MEMBER, request_body = QuestionBody, responses(crate::openapi::MemberAnswers))]
async fn question_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<QuestionBody>,
) -> Answer<Value> {
    state
        .accounts
        .set_security_question(
            &member.user_id,
            &body.question,
            &body.answer,
            &body.loginpass,
        )
        .await?;
    Ok(ok(Value::Null))
}

/// Binding a phone or e-mail: `uid` of a checked type-2 code to the new
/// contact, `old_uid` of a checked type-8 code to the one bound now (when
/// there is one), and the login password.
#[derive(Deserialize, utoipa::ToSchema)]
struct ContactBody {
    #[serde(default)]
    email: String,
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    uid: String,
    #[serde(default)]
    old_uid: String,
    #[serde(default)]
    loginpass: String,
}

impl ContactBody {
    fn proof(&self) -> ContactProof<'_> {
        ContactProof {
            uid: &self.uid,
            old_uid: &self.old_uid,
            password: &self.loginpass,
        }
    }
}

#[utoipa::path(post, path = "/api/user/emailupdate", operation_id = "user_email_update", tag = crate::openapi::MEMBER, request_body = ContactBody, responses(crate::openapi::MemberAnswers))]
async fn email_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<ContactBody>,
) -> Answer<Value> {
    state
        .accounts
        .change_contact(&member.user_id, Channel::Email, &body.email, body.proof())
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/user/mobileupdate", operation_id = "user_mobile_update", tag = crate::openapi::MEMBER, request_body = ContactBody, responses(crate::openapi::MemberAnswers))]
async fn mobile_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<ContactBody>,
) -> Answer<Value> {
    state
        .accounts
        .change_contact(&member.user_id, Channel::Phone, &body.mobile, body.proof())
        .await?;
    Ok(ok(Value::Null))
}

/// Unbinding a phone or e-mail: `uid` of a checked type-8 code sent to it
/// and the login password.
#[derive(Deserialize, utoipa::ToSchema)]
struct UnbindBody {
    #[serde(default)]
    uid: String,
    #[serde(default)]
    loginpass: String,
}

async fn unbind(
    state: &AppState,
    member: &Member,
    channel: Channel,
    body: &UnbindBody,
) -> Answer<Value> {
    // The password first (as `change_contact`): a missing uid after it.
    let uid = if body.uid.trim().is_empty() {
        ""
    } else {
        proof_uid(&body.uid, "uid")?
    };
    state
        .accounts
        .unbind_contact(&member.user_id, channel, uid, &body.loginpass)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/user/emailunbind", operation_id = "user_email_unbind", tag = crate::openapi::MEMBER, request_body = UnbindBody, responses(crate::openapi::MemberAnswers))]
async fn email_unbind(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<UnbindBody>,
) -> Answer<Value> {
    unbind(&state, &member, Channel::Email, &body).await
}

#[utoipa::path(post, path = "/api/user/mobileunbind", operation_id = "user_mobile_unbind", tag = crate::openapi::MEMBER, request_body = UnbindBody, responses(crate::openapi::MemberAnswers))]
async fn mobile_unbind(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<UnbindBody>,
) -> Answer<Value> {
    unbind(&state, &member, Channel::Phone, &body).await
}

#[derive(Deserialize, utoipa::ToSchema)]
struct BirthDateBody {
    /// YYYY-MM-DD
    #[serde(default)]
    birth_date: String,
}

/// Sets the birth date once (spec 001 sections 3 and 5: age 18 to 100).
#[utoipa::path(post, path = "/api/user/birthdateupdate", operation_id = "user_birth_date_update", tag = crate::openapi::MEMBER, request_body = BirthDateBody, responses(crate::openapi::MemberAnswers))]
async fn birth_date_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<BirthDateBody>,
) -> Answer<Value> {
    state
        .accounts
        .set_birth_date(&member.user_id, &body.birth_date)
        .await?;
    Ok(ok(Value::Null))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct NicknameBody {
    #[serde(default)]
    nickname: String,
}

#[utoipa::path(post, path = "/api/user/nicknameupdate", operation_id = "user_nickname_update", tag = crate::openapi::MEMBER, request_body = NicknameBody, responses(crate::openapi::MemberAnswers))]
async fn nickname_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<NicknameBody>,
) -> Answer<Value> {
    state
        .accounts
        .set_nickname(&member.user_id, &body.nickname)
        .await?;
    Ok(ok(Value::Null))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct RealNameBody {
    #[serde(default, alias = "real_name", alias = "first_name")]
    realname: String,
}

#[utoipa::path(post, path = "/api/user/realnameupdate", operation_id = "user_real_name_update", tag = crate::openapi::MEMBER, request_body = RealNameBody, responses(crate::openapi::MemberAnswers))]
async fn real_name_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<RealNameBody>,
) -> Answer<Value> {
    let rule = state.config.accounts.real_name_rule();
    state
        .accounts
        .set_real_name(&member.user_id, &body.realname, rule)
        .await?;
    Ok(ok(Value::Null))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct SummaryBody {
    #[serde(default)]
    summary: String,
}

#[utoipa::path(post, path = "/api/user/setusersummary", operation_id = "user_summary_update", tag = crate::openapi::MEMBER, request_body = SummaryBody, responses(crate::openapi::MemberAnswers))]
async fn summary_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<SummaryBody>,
) -> Answer<Value> {
    state
        .accounts
        .set_summary(&member.user_id, &body.summary)
        .await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/user/setuseraddress", operation_id = "user_address_update", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn address_update(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<Address>,
) -> Answer<Value> {
    state.accounts.set_address(&member.user_id, body).await?;
    Ok(ok(Value::Null))
}

#[utoipa::path(method(post, get), path = "/api/user/useraddress", operation_id = "user_address", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn address(State(state): State<AppState>, member: Member) -> Answer<Value> {
    let account = state.accounts.load(&member.user_id).await?;
    Ok(ok(serde_json::to_value(
        account.address.unwrap_or_default(),
    )
    .unwrap_or_default()))
}

#[derive(Deserialize, Default, utoipa::ToSchema)]
struct MessageBody {
    id: Option<Value>,
    /// POST: "read" (the default), "readall" or "delete".
    action: Option<String>,
}

/// `user/messages` (docs/content.md): GET lists; POST `{id}` marks one
/// read, `{action: "readall"}` marks all read, `{id, action: "delete"}`
/// deletes one. Every answer is the list and the unread count after it.
#[utoipa::path(post, path = "/api/user/messages", operation_id = "user_messages", tag = crate::openapi::MEMBER, request_body = MessageBody, responses(crate::openapi::MemberAnswers))]
async fn messages(
    State(state): State<AppState>,
    member: Member,
    method: Method,
    Payload(body): Payload<MessageBody>,
) -> Answer<Value> {
    let id = body.id.as_ref().and_then(|v| match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    let internal = |e: commands::engagement::inbox::InboxError| ApiError::Internal(e.0);
    if method == Method::POST {
        let bad = || ApiError::with_message(-70009, "Invalid request parameters: id");
        match body.action.as_deref().unwrap_or("read") {
            "read" => {
                let id = id.ok_or_else(bad)?;
                state
                    .inbox
                    .mark_read(&member.user_id, Some(id))
                    .await
                    .map_err(internal)?;
            }
            "readall" => state
                .inbox
                .mark_read(&member.user_id, None)
                .await
                .map_err(internal)?,
            "delete" => {
                let id = id.ok_or_else(bad)?;
                state
                    .inbox
                    .delete(&member.user_id, id)
                    .await
                    .map_err(internal)?;
            }
            _ => {
                return Err(ApiError::with_message(
                    -70009,
                    "Invalid request parameters: action",
                ))
            }
        }
    }
    let (list, unread) = state.inbox.list(&member.user_id).await.map_err(internal)?;
    Ok(ok(json!({ "list": list, "unread_count": unread })))
}

#[utoipa::path(method(post, get), path = "/api/user/messagesconfig", operation_id = "user_messages_config", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn messages_config() -> Answer<Value> {
    Ok(ok(json!({ "types": [
        {"type": 1002, "name": "notice"},
        {"type": 1003, "name": "activity"},
        {"type": 1004, "name": "win"},
        {"type": 1005, "name": "warm tip"},
    ]})))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct BindBody {
    #[serde(default)]
    client_id: String,
}

/// Binds the realtime socket `client_id` (from `/ws` init) to the member.
#[utoipa::path(post, path = "/api/user/bindws", operation_id = "user_bind_ws", tag = crate::openapi::MEMBER, request_body = BindBody, responses(crate::openapi::MemberAnswers))]
async fn bind_ws(
    State(state): State<AppState>,
    member: Member,
    Payload(body): Payload<BindBody>,
) -> Answer<Value> {
    if body.client_id.len() > 64
        || !state
            .realtime
            .bind(&body.client_id, &member.user_id, &member.auth_token)
            .await?
    {
        return Err(ApiError::field(
            -10101,
            "Value client_id is not valid.",
            "client_id",
        ));
    }
    Ok(ok(Value::Null))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        user_info,
        balance,
        login_password,
        fund_password,
        question_check,
        question_update,
        email_update,
        mobile_update,
        email_unbind,
        mobile_unbind,
        birth_date_update,
        nickname_update,
        real_name_update,
        summary_update,
        address_update,
        address,
        messages,
        messages_config,
        bind_ws
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::alias(&mut doc, "/api/user/mobileupdate", "/api/user/mobileinsert");
    crate::openapi::get_alias(&mut doc, "/api/user/messages");
    doc
}
