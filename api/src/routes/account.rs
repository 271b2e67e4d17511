//! Session and account calls (spec 001 section 7.1): configuration, the
//! image code, login, registration, codes, password reset, logout.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Extension, Json, Router};
use commands::accounts::codes::{Channel, CodeKind};
use commands::accounts::{Proof, Requester};
use domain::account::{RegistrationForm, RegistrationVariant};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::app::AppState;
use crate::captcha;
use crate::client_ip::ClientIp;
use crate::error::{ok, ApiError, Envelope};
use crate::routes::auth::Member;
use crate::transport::{Payload, ReadRoutes, RequestMeta};

/// Calls behind the request layer.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/getapitoken", get(api_token).post(api_token))
        .route("/api/getconfig", get(config).post(config))
        .route(
            "/api/getdomainconfig",
            get(domain_config).post(domain_config),
        )
        .route(
            "/api/getmobilecountrycode",
            get(mobile_country_codes).post(mobile_country_codes),
        )
        .route(
            "/api/getAppVersionconfig",
            get(app_version).post(app_version),
        )
        .route("/api/default/login", post(login))
        .route("/api/default/register", post(register_username))
        .route("/api/default/registermobile", post(register_phone))
        .route("/api/default/registerEmail", post(register_email))
        .route("/api/logout", post(logout))
        .read_route("/api/user/renewsession", post(renew))
        .route("/api/sendcode", post(send_code))
        .route("/api/defaultsendcode", post(send_code))
        .route("/api/checkcode", post(check_code))
        .route("/api/defaultcheckcode", post(check_code))
        .route("/api/forgetpass", post(forget_password))
}

/// Calls outside it: the image (an `<img>` sends no headers) and the client
/// log endpoints.
pub fn open_router() -> Router<AppState> {
    Router::new()
        .route("/api/validateimage", get(validate_image))
        .route("/api/logwriter/{kind}", post(log_writer))
}

type Answer<T> = Result<Json<Envelope<T>>, ApiError>;

#[utoipa::path(method(get, post), path = "/api/getapitoken", operation_id = "account_api_token", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn api_token(State(state): State<AppState>) -> Answer<Value> {
    Ok(ok(json!({ "apitoken": state.transport.issue_app_token() })))
}

#[utoipa::path(method(get, post), path = "/api/getconfig", operation_id = "account_config", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn config(State(state): State<AppState>) -> Answer<Value> {
    let accounts = &state.config.accounts;
    let public_key = state
        .login_key
        .public_pem()
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(ok(json!({
        "public_key": public_key,
        "session_lifetime_ms": accounts.session_lifetime_ms,
        "currencies": domain::Currency::ALL.iter().map(|c| c.code()).collect::<Vec<_>>(),
        "default_currency": "CNY",
        "restricted_countries": accounts.restricted_countries,
        "registration": {
            "promo_code_enabled": accounts.promo_code_enabled,
            "affiliate_tag": accounts.affiliate_tag,
            "agreement_as_link": accounts.agreement_as_link,
            "real_name_rule": accounts.real_name_rule,
            "min_age": accounts.min_age,
            "max_age": accounts.max_age,
        },
    })))
}

#[utoipa::path(method(get, post), path = "/api/getdomainconfig", operation_id = "account_domain_config", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn domain_config(State(state): State<AppState>) -> Answer<Value> {
    Ok(ok(json!({ "pid": state.config.accounts.pid })))
}

#[utoipa::path(method(get, post), path = "/api/getmobilecountrycode", operation_id = "account_mobile_country_codes", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn mobile_country_codes() -> Answer<Value> {
    Ok(ok(json!([
        {"code": "86", "country": "CN", "enable": 1},
        {"code": "66", "country": "TH", "enable": 1},
        {"code": "1", "country": "US", "enable": 1},
    ])))
}

#[utoipa::path(method(get, post), path = "/api/getAppVersionconfig", operation_id = "account_app_version", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn app_version() -> Answer<Value> {
    Ok(ok(
        json!({ "version": env!("CARGO_PKG_VERSION"), "force_update": false }),
    ))
}

#[derive(Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ImageQuery {
    uid: Option<String>,
}

fn valid_uid(uid: &str) -> bool {
    uid.len() == 16 && uid.bytes().all(|b| b.is_ascii_alphanumeric())
}

#[utoipa::path(get, path = "/api/validateimage", operation_id = "account_validate_image", tag = crate::openapi::MEMBER_OPEN, params(ImageQuery), responses((status = 200, description = "A captcha image", content_type = "image/png", body = Vec<u8>), (status = 400, description = "-70009: uid is not 16 letters or digits", body = crate::openapi::Answer)))]
async fn validate_image(
    State(state): State<AppState>,
    Query(query): Query<ImageQuery>,
) -> Result<Response, ApiError> {
    let uid = query.uid.unwrap_or_default();
    if !valid_uid(&uid) {
        return Err(ApiError::Transport {
            status: -70009,
            msg: "Invalid request parameters: uid must be 16 letters or digits".into(),
        });
    }
    // Drawn before any await (the image's random source stays on this thread).
    let (code, png) = captcha::generate();
    state
        .accounts
        .codes
        .new_captcha(&uid, &code)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok((
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        png,
    )
        .into_response())
}

/// What a successful login or registration answers (`authData` + session).
#[derive(Serialize)]
struct LoggedIn {
    auth_token: String,
    user_id: String,
    username: String,
    expires: i64,
    never_expires: bool,
    session: String,
}

impl LoggedIn {
    fn new(issued: commands::accounts::sessions::Issued, username: String) -> Self {
        LoggedIn {
            auth_token: issued.auth_token,
            user_id: issued.user_id,
            username,
            expires: issued.expires,
            never_expires: false,
            session: issued.session,
        }
    }
}

#[derive(Deserialize, utoipa::ToSchema)]
struct LoginBody {
    #[serde(default)]
    username: String,
    #[serde(default)]
    loginpass: String,
    #[serde(default, rename = "validateCode")]
    validate_code: String,
    #[serde(default)]
    uid: String,
}

#[utoipa::path(post, path = "/api/default/login", operation_id = "account_login", tag = crate::openapi::MEMBER, request_body = LoginBody, responses(crate::openapi::MemberAnswers))]
async fn login(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<LoginBody>,
) -> Answer<LoggedIn> {
    state
        .accounts
        .codes
        .check_captcha(&body.uid, &body.validate_code)
        .await
        .map_err(|_| ApiError::field(21, domain::Code(21).message(), "validateCode"))?;
    // An undecryptable password goes on as `None`: the service answers it
    // like a wrong password, after the same rate limits and the same work.
    let password = state
        .login_key
        .decrypt(&body.loginpass)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    let (issued, username) = state
        .accounts
        .login(
            &body.username,
            password.as_deref(),
            &meta.device_id,
            &meta.ip,
        )
        .await?;
    Ok(ok(LoggedIn::new(issued, username)))
}

/// Registration bodies come with strings, numbers or booleans; the form
/// takes text.
fn form_of(body: &Value) -> Result<RegistrationForm, ApiError> {
    let mut object = body.as_object().cloned().unwrap_or_default();
    for value in object.values_mut() {
        match value {
            Value::Bool(b) => *value = Value::String(if *b { "1".into() } else { "0".into() }),
            Value::Number(n) => *value = Value::String(n.to_string()),
            Value::String(_) | Value::Null => {}
            _ => *value = Value::Null,
        }
    }
    serde_json::from_value(Value::Object(object))
        .map_err(|e| ApiError::with_message(-70009, format!("Invalid request parameters: {e}")))
}

fn text<'a>(body: &'a Value, keys: &[&str]) -> &'a str {
    keys.iter()
        .find_map(|k| {
            body.get(*k)
                .and_then(Value::as_str)
                .filter(|s| !s.trim().is_empty())
        })
        .unwrap_or_default()
}

async fn register(
    state: AppState,
    meta: RequestMeta,
    body: Value,
    variant: RegistrationVariant,
) -> Answer<LoggedIn> {
    let form = form_of(&body)?;
    let accounts = &state.accounts;
    let proof = match variant {
        RegistrationVariant::Username => Proof::Captcha {
            uid: text(&body, &["uid"]),
            code: text(&body, &["captcha", "validateCode"]),
        },
        RegistrationVariant::Phone | RegistrationVariant::Email => {
            let (uid_keys, code_keys, target) = if variant == RegistrationVariant::Phone {
                (
                    ["phoneUid", "uid"],
                    ["phone_verify_code", "verify_code"],
                    form.phone.clone(),
                )
            } else {
                (
                    ["emailUid", "uid"],
                    ["email_verify_code", "verify_code"],
                    form.email.clone(),
                )
            };
            let uid = text(&body, &uid_keys);
            if uid.is_empty() {
                return Err(ApiError::field(
                    21,
                    "Please enter the 4-digit verification code",
                    "verify_code",
                ));
            }
            // A code sent along with its uid is checked here; otherwise the
            // uid must come from a successful checkcode.
            let code = text(&body, &code_keys);
            if !code.is_empty() {
                let channel = if variant == RegistrationVariant::Phone {
                    Channel::Phone
                } else {
                    Channel::Email
                };
                let target = accounts
                    .code_target(
                        CodeKind::Registration,
                        channel,
                        &target.unwrap_or_default(),
                        "",
                        Requester::default(),
                    )
                    .await?;
                accounts
                    .codes
                    .check(uid, CodeKind::Registration, &target, code)
                    .await
                    .map_err(commands::accounts::AccountFailure::from)?;
            }
            Proof::Code { uid }
        }
    };
    let (issued, username) = accounts
        .register(variant, &form, proof, &meta.device_id, &meta.ip)
        .await?;
    Ok(ok(LoggedIn::new(issued, username)))
}

#[utoipa::path(post, path = "/api/default/register", operation_id = "account_register_username", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn register_username(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<Value>,
) -> Answer<LoggedIn> {
    register(state, meta, body, RegistrationVariant::Username).await
}

#[utoipa::path(post, path = "/api/default/registermobile", operation_id = "account_register_phone", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn register_phone(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<Value>,
) -> Answer<LoggedIn> {
    register(state, meta, body, RegistrationVariant::Phone).await
}

#[utoipa::path(post, path = "/api/default/registerEmail", operation_id = "account_register_email", tag = crate::openapi::MEMBER, request_body = Object, responses(crate::openapi::MemberAnswers))]
async fn register_email(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<Value>,
) -> Answer<LoggedIn> {
    register(state, meta, body, RegistrationVariant::Email).await
}

#[utoipa::path(post, path = "/api/logout", operation_id = "account_logout", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn logout(State(state): State<AppState>, member: Member) -> Answer<Value> {
    state
        .accounts
        .sessions
        .close(&member.auth_token)
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(ok(Value::Null))
}

#[utoipa::path(post, path = "/api/user/renewsession", operation_id = "account_renew", tag = crate::openapi::MEMBER, responses(crate::openapi::MemberAnswers))]
async fn renew(State(state): State<AppState>, member: Member) -> Answer<Value> {
    let expires = state
        .accounts
        .sessions
        .renew(&member.auth_token)
        .await
        .map_err(|_| ApiError::Code(domain::Code(-601)))?;
    Ok(ok(json!({ "expires": expires })))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct CodeBody {
    #[serde(rename = "type")]
    kind: Value,
    valtype: Value,
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    username: String,
    #[serde(default)]
    uid: String,
    #[serde(default, rename = "checkCode")]
    check_code: String,
}

fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

impl CodeBody {
    fn parts(&self) -> Result<(CodeKind, Channel, &str), ApiError> {
        let kind = number(&self.kind)
            .and_then(CodeKind::from_type)
            .ok_or_else(|| ApiError::field(-10101, "Value type is not valid.", "type"))?;
        let channel = number(&self.valtype)
            .and_then(Channel::from_valtype)
            .ok_or_else(|| ApiError::field(-10101, "Value valtype is not valid.", "valtype"))?;
        let target = match channel {
            Channel::Phone => self.mobile.as_str(),
            Channel::Email => self.email.as_str(),
        };
        Ok((kind, channel, target))
    }
}

/// The member whose live session the request carries, if any.
async fn signed_in(state: &AppState, meta: &RequestMeta) -> Option<String> {
    let token = meta.user_token.as_deref()?;
    let session = state.accounts.sessions.authenticate(token).await.ok()?;
    Some(session.user_id)
}

#[utoipa::path(post, path = "/api/sendcode", operation_id = "account_send_code", tag = crate::openapi::MEMBER, request_body = CodeBody, responses(crate::openapi::MemberAnswers))]
async fn send_code(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<CodeBody>,
) -> Answer<Value> {
    let (kind, channel, target) = body.parts()?;
    let accounts = &state.accounts;
    // A registration code for a contact already in use, or a reset code
    // for one nobody uses, would only lead to a refusal later.
    if !target.trim().is_empty() && kind != CodeKind::Safety {
        let taken = accounts.find(target).await?.is_some();
        let field = if channel == Channel::Phone {
            "mobile"
        } else {
            "email"
        };
        if kind == CodeKind::Registration && taken {
            let (code, msg) = match channel {
                Channel::Phone => (
                    1127,
                    "This phone number already exists in our database, please enter another",
                ),
                Channel::Email => (
                    1119,
                    "This email already exists in our database, please enter another",
                ),
            };
            return Err(ApiError::field(code, msg, field));
        }
        if kind == CodeKind::Reset && !taken {
            let msg = match channel {
                Channel::Phone => "Enter your phone number",
                Channel::Email => "Enter your email address",
            };
            return Err(ApiError::field(-10101, msg, field));
        }
    }
    let signed_in = signed_in(&state, &meta).await;
    let requester = Requester {
        device_id: &meta.device_id,
        signed_in: signed_in.as_deref(),
    };
    let uid = accounts
        .send_code(kind, channel, target, &body.username, requester, &meta.ip)
        .await?;
    Ok(ok(json!({ "uid": uid })))
}

#[utoipa::path(post, path = "/api/checkcode", operation_id = "account_check_code", tag = crate::openapi::MEMBER, request_body = CodeBody, responses(crate::openapi::MemberAnswers))]
async fn check_code(
    State(state): State<AppState>,
    Extension(meta): Extension<RequestMeta>,
    Payload(body): Payload<CodeBody>,
) -> Answer<Value> {
    let (kind, channel, target) = body.parts()?;
    let signed_in = signed_in(&state, &meta).await;
    state
        .accounts
        .check_code(
            &body.uid,
            kind,
            channel,
            target,
            &body.username,
            &body.check_code,
            Requester {
                device_id: &meta.device_id,
                signed_in: signed_in.as_deref(),
            },
        )
        .await?;
    Ok(ok(json!({ "uid": body.uid, "username": body.username })))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct ForgetBody {
    #[serde(default)]
    mobile: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    newpass: String,
    #[serde(default)]
    confirm_newpass: String,
    #[serde(default)]
    uid: String,
}

#[utoipa::path(post, path = "/api/forgetpass", operation_id = "account_forget_password", tag = crate::openapi::MEMBER, request_body = ForgetBody, responses(crate::openapi::MemberAnswers))]
async fn forget_password(
    State(state): State<AppState>,
    Payload(body): Payload<ForgetBody>,
) -> Answer<Value> {
    let (channel, target) = if body.email.trim().is_empty() {
        (Channel::Phone, body.mobile.as_str())
    } else {
        (Channel::Email, body.email.as_str())
    };
    state
        .accounts
        .reset_password(
            channel,
            target,
            &body.uid,
            &body.newpass,
            &body.confirm_newpass,
        )
        .await?;
    Ok(ok(Value::Null))
}

const LOG_KINDS: &[&str] = &["devicelog", "betlog", "clicklog", "errorapi", "errorws"];

/// Client reports: slow responses, network errors, clicks, bets.
#[utoipa::path(post, path = "/api/logwriter/{kind}", operation_id = "account_log_writer", tag = crate::openapi::MEMBER_OPEN, params(("kind" = String, Path)), request_body(content = Object, content_type = "application/json"), responses(crate::openapi::PlainAnswers))]
async fn log_writer(
    State(state): State<AppState>,
    Path(kind): Path<String>,
    client: ClientIp,
    body: axum::body::Bytes,
) -> Result<Json<Envelope<Value>>, ApiError> {
    let (base, language) = match kind.strip_prefix("en") {
        Some(rest) if LOG_KINDS.contains(&rest) => (rest, "en"),
        _ if LOG_KINDS.contains(&kind.as_str()) => (kind.as_str(), "zh"),
        _ => return Err(ApiError::NotFound),
    };
    let ip = client.key();
    let now = state.clock.now_ms();
    state.client_logs.hit(&ip, now).await?.map_err(|wait| {
        ApiError::wait(
            -66668,
            format!("Too many submissions, please wait {wait} seconds."),
            wait,
        )
    })?;
    let events: Vec<Value> = serde_json::from_slice(&body)
        .map_err(|e| ApiError::with_message(-70009, format!("Invalid request parameters: {e}")))?;
    if events.is_empty() || body.len() > 64 * 1024 {
        return Err(ApiError::with_message(
            -70009,
            "Invalid request parameters: one event of at most 64 KiB",
        ));
    }
    sqlx::query(
        "INSERT INTO client_logs (kind, language, ip, body, at_ms) VALUES ($1, $2, $3, $4, $5)",
    )
    .bind(base)
    .bind(language)
    .bind(ip)
    .bind(String::from_utf8_lossy(&body).to_string())
    .bind(now)
    .execute(&state.db.any)
    .await?;
    Ok(ok(Value::Null))
}

/// This module's part of the OpenAPI description (`crate::openapi`).
pub(crate) fn doc() -> utoipa::openapi::OpenApi {
    #[derive(utoipa::OpenApi)]
    #[openapi(paths(
        api_token,
        config,
        domain_config,
        mobile_country_codes,
        app_version,
        login,
        register_username,
        register_phone,
        register_email,
        logout,
        renew,
        send_code,
        check_code,
        forget_password,
        validate_image,
        log_writer
    ))]
    struct Doc;
    #[allow(unused_mut)]
    let mut doc = <Doc as utoipa::OpenApi>::openapi();
    crate::openapi::alias(&mut doc, "/api/sendcode", "/api/defaultsendcode");
    crate::openapi::alias(&mut doc, "/api/checkcode", "/api/defaultcheckcode");
    doc
}
