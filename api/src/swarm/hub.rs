//! Swarm sessions and subscription fan-out.
//!
//! Every subscription gets its own subid (a client keys its data by subid,
//! so two widgets asking the same query must not share one). Subscriptions
//! with the same `what`, `where` and language share one group: the query
//! runs once per catalogue change and its diff is serialised once; each
//! member subscription gets it wrapped with its own subid. A WebSocket
//! member gets them on its socket.
//!
//! Long-poll sessions live in the store (`commands::platform::swarm_polls`): a poll
//! may reach any process behind the load balancer, which answers
//! `whats_up` with the diff from the data last delivered to the session to
//! its own catalogue (every process applies the same catalogue log).

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use commands::accounts::sessions::{token_hash, Sessions};
use commands::platform::clock::SharedClock;
use commands::platform::swarm_polls::{PollSession, PollSessions};
use commands::sportsbook::live::LiveCatalogue;
use domain::swarm::{self, Answer, Command, Query, Request};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::sync::{mpsc, watch};

pub use commands::platform::swarm_polls::POLL_SESSION_TTL_MS;

/// Bookings one IP may make without logging in, per 10 minutes.
pub const VISITOR_BOOKINGS: usize = 30;

/// What one process holds for Swarm members (`[swarm]` and
/// `[server] ws_max_message_bytes`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub subscriptions_per_session: usize,
    pub groups: usize,
    pub sessions: usize,
    /// Sessions one member may be logged in on at once (long-poll
    /// sessions counted across processes, sockets on this process).
    pub sessions_per_member: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            subscriptions_per_session: 100,
            groups: 5_000,
            sessions: 20_000,
            sessions_per_member: 20,
        }
    }
}

pub enum Sink {
    Socket(mpsc::Sender<Utf8Bytes>),
    /// A long-poll session, loaded from the store for one request, with
    /// the expiry of its login's main API session read with it.
    Poll {
        login_expires_ms: Option<i64>,
    },
}

pub struct Session {
    pub sid: String,
    pub language: String,
    user: Mutex<Option<String>>,
    /// The hash of the main API token the member restored with; betting
    /// re-checks it.
    token: Mutex<Option<String>>,
    /// subid -> the key of the group that answers it.
    subs: Mutex<HashMap<String, String>>,
    sink: Sink,
    last_seen: AtomicI64,
}

impl Session {
    pub fn user(&self) -> Option<String> {
        self.user.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Hands a push to the member; false when it cannot keep up.
    fn deliver(&self, message: &Utf8Bytes) -> bool {
        match &self.sink {
            Sink::Socket(tx) => tx.try_send(message.clone()).is_ok(),
            Sink::Poll { .. } => true,
        }
    }

    fn is_poll(&self) -> bool {
        matches!(self.sink, Sink::Poll { .. })
    }

    /// A long-poll session as the store has it.
    fn polled(row: PollSession, now_ms: i64) -> Self {
        Session {
            sid: row.sid,
            language: row.language,
            user: Mutex::new(row.user_id),
            token: Mutex::new(row.token_hash),
            subs: Mutex::new(HashMap::new()),
            sink: Sink::Poll {
                login_expires_ms: row.login_expires_ms,
            },
            last_seen: AtomicI64::new(now_ms),
        }
    }
}

struct Group {
    query: Query,
    last: Value,
    /// (sid, subid) of every subscription this group answers.
    members: HashSet<(String, String)>,
}

pub struct Hub {
    live: Arc<LiveCatalogue>,
    sessions: Arc<Sessions>,
    clock: SharedClock,
    members: Mutex<HashMap<String, Arc<Session>>>,
    groups: Mutex<HashMap<String, Group>>,
    /// Betting, once the app has wired it (the benchmark has none).
    betting: std::sync::OnceLock<Arc<crate::betting::Betting>>,
    /// Booking ids, once the app has wired them.
    bookings: std::sync::OnceLock<Arc<crate::bookings::Bookings>>,
    /// The site's settings for `partner.config`, once the app has wired them.
    platform: std::sync::OnceLock<super::sources::Platform>,
    /// The benchmark's copy of every push sent, with when.
    recorded: Mutex<Option<Vec<(std::time::Instant, Utf8Bytes)>>>,
    limits: Limits,
    polls: PollSessions,
    /// This process's id (commands::platform::nodes): its socket logins carry it.
    node_id: std::sync::OnceLock<String>,
    /// `book_bet` by visitors, per IP (`VISITOR_BOOKINGS` per 10 minutes).
    visitor_bookings: commands::platform::limits::RateLimit,
    /// Live long-poll sessions in the store, as of the last sweep.
    poll_sessions: AtomicUsize,
    /// Largest WebSocket message accepted on /swarm.
    pub ws_message_bytes: usize,
    /// Requests on a socket whose handling panicked (answered -1).
    pub panics: prometheus_client::metrics::counter::Counter,
}

/// The group key of a query in a language: subscriptions with the same
/// key share one run and one diff.
fn group_key(params: &Value, language: &str) -> String {
    // serde_json objects keep keys sorted: the text is canonical.
    let key = format!(
        "{}|{}|{}",
        params.get("what").unwrap_or(&Value::Null),
        params.get("where").unwrap_or(&Value::Null),
        language
    );
    let digest = Sha256::digest(key.as_bytes());
    hex::encode(&digest[..8])
}

/// A new subscription id: unique per subscription, even for an identical
/// query (16 hex digits).
fn new_subid() -> String {
    use rand::Rng;
    format!("{:016x}", rand::rng().random::<u64>())
}

/// A push of one diff (already JSON text) to one subscription.
fn push_text(subid: &str, diff: &str) -> Utf8Bytes {
    Utf8Bytes::from(format!(
        r#"{{"code":0,"rid":"0","data":{{"{subid}":{diff}}}}}"#
    ))
}

fn text(answer: &Answer) -> Utf8Bytes {
    Utf8Bytes::from(serde_json::to_string(answer).unwrap_or_else(|_| "{}".to_string()))
}

/// Where a request came from.
pub enum Origin<'a> {
    /// A WebSocket: its session (once requested) and its outgoing channel.
    Socket {
        session: &'a mut Option<Arc<Session>>,
        out: &'a mpsc::Sender<Utf8Bytes>,
    },
    /// An HTTP POST with the `swarm-session` header's value.
    Poll { sid: Option<&'a str> },
}

impl Hub {
    pub fn new(
        live: Arc<LiveCatalogue>,
        sessions: Arc<Sessions>,
        clock: SharedClock,
        pool: sqlx::AnyPool,
    ) -> Arc<Self> {
        Self::with_limits(live, sessions, clock, pool, Limits::default(), 64 * 1024)
    }

    pub fn with_limits(
        live: Arc<LiveCatalogue>,
        sessions: Arc<Sessions>,
        clock: SharedClock,
        pool: sqlx::AnyPool,
        limits: Limits,
        ws_message_bytes: usize,
    ) -> Arc<Self> {
        Arc::new(Self {
            limits,
            visitor_bookings: commands::platform::limits::RateLimit::new(
                pool.clone(),
                "visitor_bookings",
                VISITOR_BOOKINGS,
                600_000,
            ),
            polls: PollSessions::new(pool),
            node_id: std::sync::OnceLock::new(),
            poll_sessions: AtomicUsize::new(0),
            ws_message_bytes,
            live,
            sessions,
            clock,
            members: Mutex::new(HashMap::new()),
            groups: Mutex::new(HashMap::new()),
            recorded: Mutex::new(None),
            panics: Default::default(),
            betting: std::sync::OnceLock::new(),
            bookings: std::sync::OnceLock::new(),
            platform: std::sync::OnceLock::new(),
        })
    }

    /// Counts a panic caught while answering a socket's request.
    pub fn panicked(&self) {
        self.panics.inc();
    }

    pub fn set_betting(&self, betting: Arc<crate::betting::Betting>) {
        let _ = self.betting.set(betting);
    }

    /// The id this process beats with (commands::platform::nodes).
    pub fn set_node_id(&self, node_id: String) {
        let _ = self.node_id.set(node_id);
    }

    fn node_id(&self) -> &str {
        self.node_id.get().map(String::as_str).unwrap_or("")
    }

    pub fn set_bookings(&self, bookings: Arc<crate::bookings::Bookings>) {
        let _ = self.bookings.set(bookings);
    }

    pub fn set_platform(&self, platform: super::sources::Platform) {
        let _ = self.platform.set(platform);
    }

    /// Starts keeping a copy of every push (benchmark only).
    pub fn record_pushes(&self) {
        *self.recorded.lock().unwrap_or_else(|p| p.into_inner()) = Some(Vec::new());
    }

    pub fn recorded_pushes(&self) -> Vec<(std::time::Instant, Utf8Bytes)> {
        self.recorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
            .unwrap_or_default()
    }

    pub fn session_count(&self) -> usize {
        self.members.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    fn open(&self, language: String, sink: Sink) -> Arc<Session> {
        let sid = commands::accounts::codes::random_id(24);
        let session = Arc::new(Session {
            sid: sid.clone(),
            language,
            user: Mutex::new(None),
            token: Mutex::new(None),
            subs: Mutex::new(HashMap::new()),
            sink,
            last_seen: AtomicI64::new(self.clock.now_ms()),
        });
        self.members
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(sid, session.clone());
        session
    }

    /// Forgets a session and its subscriptions.
    pub fn close(&self, session: &Session) {
        self.members
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&session.sid);
        let subs: Vec<(String, String)> = session
            .subs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .collect();
        let mut groups = self.groups.lock().unwrap_or_else(|p| p.into_inner());
        for (subid, key) in subs {
            leave(&mut groups, &key, &session.sid, &subid);
        }
        if !session.is_poll() && session.user().is_some() {
            let (polls, sid, node) = (
                self.polls.clone(),
                session.sid.clone(),
                self.node_id().to_string(),
            );
            tokio::spawn(async move {
                if let Err(e) = polls.socket_login(&sid, None, &node).await {
                    // commands::platform::nodes removes it when this process stops.
                    tracing::warn!(error = %e, "swarm socket login not removed");
                }
            });
        }
    }

    /// Answers one request (as text).
    /// `client` is the requester's IP (rate limits of visitors key on it).
    pub async fn handle(&self, origin: Origin<'_>, client: &str, text_in: &str) -> Utf8Bytes {
        let request = match swarm::parse_request(text_in) {
            Ok(request) => request,
            Err(error) => return text(&error.answer()),
        };
        if request.command == Command::RequestSession {
            return text(&self.request_session(origin, &request).await);
        }
        let now = self.clock.now_ms();
        let session = match &origin {
            Origin::Socket { session, .. } => Option::clone(session),
            Origin::Poll { sid: Some(sid) } if sid.len() <= 64 => {
                match self.polls.touch(sid, now).await {
                    Ok(found) => found.map(|row| Arc::new(Session::polled(row, now))),
                    Err(e) => return text(&self.store_failed(&request, e)),
                }
            }
            Origin::Poll { .. } => None,
        };
        let Some(session) = session else {
            return text(&Answer::error(
                request.rid.clone(),
                swarm::SESSION_LOST,
                "session lost",
            ));
        };
        session
            .last_seen
            .store(self.clock.now_ms(), Ordering::Relaxed);
        text(&self.command(&session, &request, client).await)
    }

    /// The member's other logged-in sessions: long-poll ones in the store,
    /// sockets on this process.
    async fn member_sessions(&self, user_id: &str, except: &str) -> Result<usize, sqlx::Error> {
        // Long-poll and socket sessions of every process.
        let polled = self
            .polls
            .logged_in(user_id, except, self.clock.now_ms())
            .await?;
        Ok(polled.max(0) as usize)
    }

    fn store_failed(&self, request: &Request, error: sqlx::Error) -> Answer {
        tracing::error!(error = %error, "swarm session store failed");
        Answer::error(
            request.rid.clone(),
            domain::Code::INTERNAL.0,
            domain::Code::INTERNAL.message(),
        )
    }

    async fn request_session(&self, origin: Origin<'_>, request: &Request) -> Answer {
        let params: swarm::RequestSessionParams = match request.params_as() {
            Ok(p) => p,
            Err(e) => return e.answer(),
        };
        let reuses_socket = matches!(
            &origin,
            Origin::Socket {
                session: Some(_),
                ..
            }
        );
        let held = self.session_count() + self.poll_sessions.load(Ordering::Relaxed);
        if !reuses_socket && held >= self.limits.sessions {
            return Answer::error(
                request.rid.clone(),
                swarm::LIMIT_REACHED,
                "too many sessions, please try again later",
            );
        }
        // The language picks the names answered (bounded: it keys groups).
        let language = params.language.unwrap_or_else(|| "eng".to_string());
        if language.is_empty()
            || language.len() > 16
            || !language
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        {
            return Answer::error(
                request.rid.clone(),
                swarm::INVALID_PARAMS,
                "invalid params: language must be 1 to 16 letters or digits (zhh, eng, tha ...)",
            );
        }
        let session = match origin {
            Origin::Socket { session, out } => {
                if let Some(old) = session.take() {
                    self.close(&old);
                }
                let opened = self.open(language, Sink::Socket(out.clone()));
                *session = Some(opened.clone());
                opened
            }
            Origin::Poll { .. } => {
                let sid = commands::accounts::codes::random_id(24);
                if let Err(e) = self.polls.open(&sid, &language, self.clock.now_ms()).await {
                    return self.store_failed(request, e);
                }
                self.poll_sessions.fetch_add(1, Ordering::Relaxed);
                return request.ok(json!({ "sid": sid }));
            }
        };
        request.ok(json!({ "sid": session.sid }))
    }

    async fn command(&self, session: &Arc<Session>, request: &Request, client: &str) -> Answer {
        match request.command {
            Command::Get if other_source(request).is_some() => {
                self.get_source(session, request).await
            }
            Command::Get if session.is_poll() => self.get_polled(session, request).await,
            Command::Get => self.get(session, request),
            Command::Unsubscribe => {
                let params: swarm::UnsubscribeParams = match request.params_as() {
                    Ok(p) => p,
                    Err(e) => return e.answer(),
                };
                if session.is_poll() {
                    return match self.polls.unsubscribe(&session.sid, &params.subid).await {
                        Ok(_) => request.ok(json!({})),
                        Err(e) => self.store_failed(request, e),
                    };
                }
                let known = session
                    .subs
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&params.subid);
                if let Some(key) = known {
                    leave(
                        &mut self.groups.lock().unwrap_or_else(|p| p.into_inner()),
                        &key,
                        &session.sid,
                        &params.subid,
                    );
                }
                request.ok(json!({}))
            }
            // The answer has the shape of a push: `data` maps each subid
            // with a change to its diff (`{}` when nothing changed).
            Command::WhatsUp if session.is_poll() => match self.whats_up(session).await {
                Ok(diffs) => request.ok(Value::Object(diffs)),
                Err(e) => self.store_failed(request, e),
            },
            // A socket gets its pushes as they happen.
            Command::WhatsUp => request.ok(json!({})),
            // `login {username, password}`: the password travels plain over
            // the socket, as the protocol has it (TLS in production).
            Command::Login if request.params.get("username").is_some() => {
                self.swarm_login(session, request, client).await
            }
            Command::Login | Command::RestoreLogin => {
                let params: swarm::RestoreLoginParams = match request.params_as() {
                    Ok(p) => p,
                    Err(e) => return e.answer(),
                };
                match self.sessions.authenticate(&params.auth_token).await {
                    Ok(found) if found.user_id == params.user_id => {
                        match self.member_sessions(&found.user_id, &session.sid).await {
                            Ok(held) if held >= self.limits.sessions_per_member => {
                                return Answer::error(
                                    request.rid.clone(),
                                    swarm::LIMIT_REACHED,
                                    format!(
                                        "at most {} sessions per member: log out elsewhere first",
                                        self.limits.sessions_per_member
                                    ),
                                )
                            }
                            Ok(_) => {}
                            Err(e) => return self.store_failed(request, e),
                        }
                        let hashed = token_hash(&params.auth_token);
                        if let Err(e) = self.record_login(session, &found.user_id, hashed).await {
                            return self.store_failed(request, e);
                        }
                        // Real clients check that the answer carries the token.
                        request.ok(json!({
                            "user_id": found.user_id,
                            "auth_token": params.auth_token,
                        }))
                    }
                    _ => Answer::error(request.rid.clone(), swarm::NOT_LOGGED_IN, "not logged in"),
                }
            }
            Command::Ping => request.ok(json!("pong")),
            Command::Logout => {
                let saved = if session.is_poll() {
                    self.polls.set_login(&session.sid, None, None).await
                } else {
                    self.polls
                        .socket_login(&session.sid, None, self.node_id())
                        .await
                };
                if let Err(e) = saved {
                    return self.store_failed(request, e);
                }
                *session.user.lock().unwrap_or_else(|p| p.into_inner()) = None;
                request.ok(json!({}))
            }
            // Booking ids: members and visitors alike.
            Command::BookBet | Command::GetBooking if self.bookings.get().is_some() => {
                let bookings = self.bookings.get().expect("checked");
                // Visitors book without an account: bounded per IP.
                if request.command == Command::BookBet && session.user().is_none() {
                    match self.visitor_bookings.hit(client, self.clock.now_ms()).await {
                        Ok(Ok(())) => {}
                        Ok(Err(wait)) => {
                            return Answer::error(
                                request.rid.clone(),
                                swarm::LIMIT_REACHED,
                                format!("too many bookings, please wait {wait} seconds"),
                            )
                        }
                        Err(e) => return self.store_failed(request, e),
                    }
                }
                let result = if request.command == Command::BookBet {
                    bookings.book_bet(&request.params).await
                } else {
                    bookings.get_booking(&request.params).await
                };
                match result {
                    Ok(data) => request.ok(data),
                    Err(e) => Answer::error(request.rid.clone(), swarm::INVALID_PARAMS, e),
                }
            }
            // Betting commands need a member.
            _ if session.user().is_none() => {
                Answer::error(request.rid.clone(), swarm::NOT_LOGGED_IN, "not logged in")
            }
            Command::DoBet
            | Command::GetMaxBet
            | Command::BetHistory
            | Command::CalculateCashoutAmount
            | Command::Cashout
            | Command::SetBetAutoCashout
            | Command::GetBetAutoCashout
            | Command::CancelBetAutoCashout
            | Command::SuperBetAnswer
            | Command::GetFreeBets
            | Command::GetBalance
                if self.betting.get().is_some() =>
            {
                if let Err(refused) = self.login_alive(session, request).await {
                    return refused;
                }
                let betting = self.betting.get().expect("checked");
                let user = session.user().unwrap_or_default();
                let result = match request.command {
                    Command::DoBet => betting.do_bet(&user, &request.params).await,
                    Command::GetMaxBet => betting.max_bet(&user).await,
                    Command::CalculateCashoutAmount => {
                        betting.calculate_cashout(&user, &request.params).await
                    }
                    Command::Cashout => betting.cashout(&user, &request.params).await,
                    Command::SetBetAutoCashout => {
                        betting.set_auto_cashout(&user, &request.params).await
                    }
                    Command::GetBetAutoCashout => {
                        betting.get_auto_cashout(&user, &request.params).await
                    }
                    Command::CancelBetAutoCashout => {
                        betting.cancel_auto_cashout(&user, &request.params).await
                    }
                    Command::SuperBetAnswer => {
                        betting.super_bet_answer(&user, &request.params).await
                    }
                    Command::GetFreeBets => betting.free_bets(&user).await,
                    Command::GetBalance => super::sources::balance(betting, &user).await,
                    _ => betting.swarm_history(&user, &request.params).await,
                };
                match result {
                    Ok(data) => request.ok(data),
                    Err(e) => Answer::error(request.rid.clone(), swarm::INVALID_PARAMS, e),
                }
            }
            other => Answer::error(
                request.rid.clone(),
                swarm::INVALID_COMMAND,
                format!("'{other}' is not available yet"),
            ),
        }
    }

    /// `login {username, password}`: the platform's login rules (rate
    /// limits, lock after failures, device verification), then the session
    /// is logged in like `restore_login`. Answers `{user_id, auth_token}`;
    /// a refusal is code 12 with the catalogue code in `data.status`.
    async fn swarm_login(&self, session: &Arc<Session>, request: &Request, client: &str) -> Answer {
        let Some(betting) = self.betting.get() else {
            return Answer::error(
                request.rid.clone(),
                swarm::INVALID_COMMAND,
                "'login' is not available",
            );
        };
        let field = |name: &str| match request.params.get(name) {
            Some(Value::String(s)) if !s.is_empty() && s.len() <= 128 => Ok(s.clone()),
            _ => Err(Answer::error(
                request.rid.clone(),
                swarm::INVALID_PARAMS,
                format!("invalid params: {name} must be a string of 1 to 128 characters"),
            )),
        };
        let (username, password) = match (field("username"), field("password")) {
            (Ok(u), Ok(p)) => (u, p),
            (Err(e), _) | (_, Err(e)) => return e,
        };
        let device = format!("swarm:{client}");
        let issued = match betting
            .accounts
            .login(&username, Some(&password), &device, client)
            .await
        {
            Ok((issued, _)) => issued,
            Err(commands::accounts::AccountFailure::Internal(e)) => {
                tracing::error!(error = %e, "swarm login failed");
                return Answer::error(
                    request.rid.clone(),
                    domain::Code::INTERNAL.0,
                    domain::Code::INTERNAL.message(),
                );
            }
            Err(refused) => {
                let (status, details) = match &refused {
                    commands::accounts::AccountFailure::Refused { code, .. } => {
                        (*code, Value::Null)
                    }
                    commands::accounts::AccountFailure::Wait { code, wait, .. } => {
                        (*code, json!({ "wait": wait }))
                    }
                    commands::accounts::AccountFailure::VerifyDevice(challenge) => (
                        -10010,
                        serde_json::to_value(challenge).unwrap_or(Value::Null),
                    ),
                    commands::accounts::AccountFailure::Internal(_) => (-1, Value::Null),
                };
                return Answer {
                    code: swarm::NOT_LOGGED_IN,
                    rid: request.rid.clone(),
                    data: json!({ "status": status, "details": details }),
                    msg: Some(refused.to_string()),
                };
            }
        };
        match self.member_sessions(&issued.user_id, &session.sid).await {
            Ok(held) if held >= self.limits.sessions_per_member => {
                // The main API login this refusal opened ends with it.
                if let Err(e) = self.sessions.close(&issued.auth_token).await {
                    tracing::warn!(error = %e, "refused swarm login's session not closed");
                }
                return Answer::error(
                    request.rid.clone(),
                    swarm::LIMIT_REACHED,
                    format!(
                        "at most {} sessions per member: log out elsewhere first",
                        self.limits.sessions_per_member
                    ),
                );
            }
            Ok(_) => {}
            Err(e) => return self.store_failed(request, e),
        }
        let hashed = token_hash(&issued.auth_token);
        if let Err(e) = self.record_login(session, &issued.user_id, hashed).await {
            return self.store_failed(request, e);
        }
        request.ok(json!({
            "user_id": issued.user_id.parse::<i64>().map(Value::from).unwrap_or(Value::String(issued.user_id.clone())),
            "auth_token": issued.auth_token,
            "expires": issued.expires,
        }))
    }

    /// Logs the session in as `user_id` with the main API login whose
    /// `token_hash` is `hashed`, in the store (so that every process counts
    /// it toward the member's session cap) and on the session.
    async fn record_login(
        &self,
        session: &Session,
        user_id: &str,
        hashed: String,
    ) -> Result<(), sqlx::Error> {
        if session.is_poll() {
            self.polls
                .set_login(&session.sid, Some(user_id), Some(&hashed))
                .await?;
        } else {
            self.polls
                .socket_login(&session.sid, Some((user_id, &hashed)), self.node_id())
                .await?;
        }
        *session.user.lock().unwrap_or_else(|p| p.into_inner()) = Some(user_id.to_string());
        *session.token.lock().unwrap_or_else(|p| p.into_inner()) = Some(hashed);
        Ok(())
    }

    /// `get` from `user`, `partner.config` or `config.currency`.
    /// The Swarm login must still be alive: an expired or ended main API
    /// session (logout, expiry, a password change) ends it too, and the
    /// session forgets its member. `Err` is the answer to send.
    async fn login_alive(&self, session: &Arc<Session>, request: &Request) -> Result<(), Answer> {
        let token = session
            .token
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let alive = match (token, &session.sink) {
            (None, _) => false,
            // Read with the session in this request.
            (Some(_), Sink::Poll { login_expires_ms }) => {
                login_expires_ms.is_some_and(|e| e > self.clock.now_ms())
            }
            (Some(token), Sink::Socket(_)) => {
                self.sessions.authenticate_hashed(&token).await.is_ok()
            }
        };
        if alive {
            return Ok(());
        }
        if session.is_poll() {
            if let Err(e) = self.polls.set_login(&session.sid, None, None).await {
                return Err(self.store_failed(request, e));
            }
        }
        *session.user.lock().unwrap_or_else(|p| p.into_inner()) = None;
        Err(Answer::error(
            request.rid.clone(),
            swarm::NOT_LOGGED_IN,
            "not logged in",
        ))
    }

    async fn get_source(&self, session: &Arc<Session>, request: &Request) -> Answer {
        let source = other_source(request).unwrap_or_default();
        let subscribe = match request.params.get("subscribe") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(_) => {
                return Answer::error(
                    request.rid.clone(),
                    swarm::INVALID_PARAMS,
                    "'subscribe' must be true or false",
                )
            }
        };
        let where_ = request.params.get("where").cloned().unwrap_or(Value::Null);
        let data = match source {
            "partner.config" | "config.currency" => {
                let Some(platform) = self.platform.get() else {
                    return Answer::error(
                        request.rid.clone(),
                        swarm::INVALID_PARAMS,
                        format!("unknown source '{source}'"),
                    );
                };
                if source == "partner.config" {
                    platform.partner()
                } else {
                    match platform.currencies(&where_) {
                        Ok(data) => data,
                        Err(e) => {
                            return Answer::error(request.rid.clone(), swarm::INVALID_PARAMS, e)
                        }
                    }
                }
            }
            _ => {
                let (Some(user), Some(betting)) = (session.user(), self.betting.get()) else {
                    return Answer::error(
                        request.rid.clone(),
                        swarm::NOT_LOGGED_IN,
                        "not logged in",
                    );
                };
                if let Err(refused) = self.login_alive(session, request).await {
                    return refused;
                }
                match super::sources::user_profile(betting, &user).await {
                    Ok(data) => data,
                    Err(e) => return Answer::error(request.rid.clone(), swarm::INVALID_PARAMS, e),
                }
            }
        };
        if subscribe {
            request.ok(json!({ "subid": new_subid(), "data": data }))
        } else {
            request.ok(json!({ "data": data }))
        }
    }

    /// `get` on a long-poll session: a subscription is stored with the
    /// data answered, for the `whats_up` of any process to diff against.
    async fn get_polled(&self, session: &Arc<Session>, request: &Request) -> Answer {
        let get = match request.get_params() {
            Ok(get) => get,
            Err(e) => return e.answer(),
        };
        let query = get.query.with_language(&session.language);
        let now_s = self.clock.now_ms() / 1000;
        let data = self.live.read(|c| swarm::run(c, &query, now_s));
        if !get.subscribe {
            return request.ok(json!({ "data": data }));
        }
        let subid = new_subid();
        let params = json!({
            "what": request.params.get("what").cloned().unwrap_or(Value::Null),
            "where": request.params.get("where").cloned().unwrap_or(Value::Null),
        });
        let added = self
            .polls
            .subscribe(
                &session.sid,
                &subid,
                &params.to_string(),
                &data.to_string(),
                self.limits.subscriptions_per_session,
            )
            .await;
        match added {
            Ok(true) => request.ok(json!({ "subid": subid, "data": data })),
            Ok(false) => Answer::error(
                request.rid.clone(),
                swarm::LIMIT_REACHED,
                format!(
                    "at most {} subscriptions per session: unsubscribe first",
                    self.limits.subscriptions_per_session
                ),
            ),
            Err(e) => self.store_failed(request, e),
        }
    }

    /// The changes a long-poll session has not had: for each subscription,
    /// the diff from the data last delivered to this process's catalogue,
    /// keyed by subid (the `data` of a push).
    async fn whats_up(
        &self,
        session: &Session,
    ) -> Result<serde_json::Map<String, Value>, sqlx::Error> {
        let mut pushes = serde_json::Map::new();
        let now_s = self.clock.now_ms() / 1000;
        for sub in self.polls.subscriptions(&session.sid).await? {
            let params: Value = serde_json::from_str(&sub.params).unwrap_or(Value::Null);
            let Ok(query) = Query::parse(
                params.get("what").unwrap_or(&Value::Null),
                params.get("where").unwrap_or(&Value::Null),
            ) else {
                continue;
            };
            let query = query.with_language(&session.language);
            let last: Value = serde_json::from_str(&sub.data).unwrap_or(Value::Null);
            let now = self.live.read(|c| swarm::run(c, &query, now_s));
            let Some(diff) = swarm::diff(&last, &now) else {
                continue;
            };
            // Two polls of one session at once: only one delivers it.
            if self
                .polls
                .delivered(&session.sid, &sub.subid, &sub.data, &now.to_string())
                .await?
            {
                pushes.insert(sub.subid.clone(), diff);
            }
        }
        Ok(pushes)
    }

    fn get(&self, session: &Arc<Session>, request: &Request) -> Answer {
        let get = match request.get_params() {
            Ok(get) => get,
            Err(e) => return e.answer(),
        };
        let query = get.query.with_language(&session.language);
        let now_s = self.clock.now_ms() / 1000;
        if !get.subscribe {
            let data = self.live.read(|c| swarm::run(c, &query, now_s));
            return request.ok(json!({ "data": data }));
        }
        {
            let subs = session.subs.lock().unwrap_or_else(|p| p.into_inner());
            if subs.len() >= self.limits.subscriptions_per_session {
                return Answer::error(
                    request.rid.clone(),
                    swarm::LIMIT_REACHED,
                    format!(
                        "at most {} subscriptions per session: unsubscribe first",
                        self.limits.subscriptions_per_session
                    ),
                );
            }
        }
        let key = group_key(&request.params, &session.language);
        let subid = new_subid();
        let data = {
            let mut groups = self.groups.lock().unwrap_or_else(|p| p.into_inner());
            if !groups.contains_key(&key) && groups.len() >= self.limits.groups {
                return Answer::error(
                    request.rid.clone(),
                    swarm::LIMIT_REACHED,
                    "too many distinct subscriptions, please try again later",
                );
            }
            let group = groups.entry(key.clone()).or_insert_with(|| Group {
                last: self.live.read(|c| swarm::run(c, &query, now_s)),
                query,
                members: HashSet::new(),
            });
            group.members.insert((session.sid.clone(), subid.clone()));
            group.last.clone()
        };
        session
            .subs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(subid.clone(), key);
        request.ok(json!({ "subid": subid, "data": data }))
    }

    /// Re-runs every group's query after catalogue changes and pushes the
    /// diffs, until `stop`.
    pub async fn run(self: Arc<Self>, mut stop: watch::Receiver<bool>) {
        let mut changes = self.live.changes();
        let mut last_sweep = self.clock.now_ms();
        loop {
            tokio::select! {
                changed = changes.changed() => if changed.is_err() { return },
                _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                _ = stop.changed() => {}
            }
            if *stop.borrow() {
                return;
            }
            changes.mark_unchanged();
            self.push_changes();
            let now = self.clock.now_ms();
            if now - last_sweep > 10_000 {
                self.sweep(now).await;
                last_sweep = now;
            }
        }
    }

    /// One round of fan-out (public for the benchmark).
    pub fn push_changes(&self) {
        let mut outgoing: Vec<(Utf8Bytes, String)> = Vec::new();
        // One push per changed group (what the benchmark records).
        let mut changed: Vec<Utf8Bytes> = Vec::new();
        let now_s = self.clock.now_ms() / 1000;
        {
            let mut groups = self.groups.lock().unwrap_or_else(|p| p.into_inner());
            self.live.read(|catalogue| {
                for group in groups.values_mut() {
                    let now = swarm::run(catalogue, &group.query, now_s);
                    if let Some(diff) = swarm::diff(&group.last, &now) {
                        group.last = now;
                        // Serialised once, wrapped per subscription.
                        let diff = diff.to_string();
                        for (i, (sid, subid)) in group.members.iter().enumerate() {
                            let push = push_text(subid, &diff);
                            if i == 0 {
                                changed.push(push.clone());
                            }
                            outgoing.push((push, sid.clone()));
                        }
                    }
                }
            });
        }
        if outgoing.is_empty() {
            return;
        }
        if let Some(recorded) = self
            .recorded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            let now = std::time::Instant::now();
            recorded.extend(changed.into_iter().map(|push| (now, push)));
        }
        let members = self
            .members
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        let mut slow: Vec<Arc<Session>> = Vec::new();
        for (push, sid) in &outgoing {
            if let Some(session) = members.get(sid) {
                if !session.deliver(push) && !slow.iter().any(|s| s.sid == *sid) {
                    slow.push(session.clone());
                }
            }
        }
        for session in slow {
            tracing::warn!(sid = %session.sid, "swarm member cannot keep up; dropped");
            self.close(&session);
        }
    }

    /// Drops long-poll sessions nobody polls any more (any process may).
    async fn sweep(&self, now: i64) {
        match self.polls.sweep(now).await {
            Ok(live) => self
                .poll_sessions
                .store(live.max(0) as usize, Ordering::Relaxed),
            Err(e) => tracing::warn!(error = %e, "swarm poll session sweep failed"),
        }
    }
}

/// The source of a `get` other than the sportsbook, if it is one.
fn other_source(request: &Request) -> Option<&str> {
    request
        .params
        .get("source")
        .and_then(Value::as_str)
        .filter(|s| super::sources::SOURCES.contains(s))
}

fn leave(groups: &mut HashMap<String, Group>, key: &str, sid: &str, subid: &str) {
    if let Some(group) = groups.get_mut(key) {
        group.members.remove(&(sid.to_string(), subid.to_string()));
        if group.members.is_empty() {
            groups.remove(key);
        }
    }
}
