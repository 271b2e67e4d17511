//! Configuration: `config/default.toml` (or `CONFIG_FILE`), then the
//! environment (`PORT`, `BIND`/`HOST`, `TRUSTED_PROXIES`, `DATABASE_URL`,
//! `DEMO`, `TRANSPORT_PAIRS`, `FEED_FIXTURE`, `FEED_LIVE_SECONDS`, ...).

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct Config {
    pub server: Server,
    pub store: Store,
    pub projections: Projections,
    pub demo: Demo,
    pub transport: Transport,
    pub accounts: Accounts,
    pub partner: Partner,
    pub feed: FeedConfig,
    pub bets: BetsConfig,
    #[serde(default)]
    pub swarm: SwarmConfig,
    pub jobs: JobsConfig,
    /// `[metrics]`: the business gauges' refresh.
    #[serde(default)]
    pub metrics: MetricsConfig,
    /// VIP tables and rules (`[vip]`, docs/vip.md); the shipped section when
    /// a file has none.
    #[serde(default = "default_vip")]
    pub vip: domain::vip::VipTables,
    #[serde(default)]
    pub audit: AuditConfig,
    /// `[casino]`: catalogue, launch tokens, seamless wallet keys, the
    /// demo provider (api/src/casino/config.rs).
    #[serde(default)]
    pub casino: crate::casino::config::CasinoConfig,
    /// Seasons, season tasks, home teams (`crate::seasons_config`).
    #[serde(default)]
    pub seasons: crate::seasons_config::SeasonsConfig,
    /// `[payments]` (docs/payments.md); every key has a default.
    #[serde(default)]
    pub payments: commands::payments::PaymentSettings,
    /// `[safer]`: responsible gambling (docs/responsible-gambling.md).
    #[serde(default)]
    pub safer: SaferConfig,
    /// From `DATABASE_URL` (unset: the embedded SQLite file).
    #[serde(skip)]
    pub database_url: Option<String>,
    /// `DEMO=1`: seed the demo member and serve `/api/dev/*`.
    #[serde(skip)]
    pub demo_mode: bool,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Server {
    pub port: u16,
    pub web_dist: PathBuf,
    pub skins_dir: PathBuf,
    /// The address to listen on (`BIND` or `HOST` override). Unset: every
    /// interface, or only 127.0.0.1 with `DEMO=1`.
    #[serde(default)]
    pub bind: Option<String>,
    /// Peers (IP networks) whose `X-Forwarded-For` names the client: the
    /// load balancers in front of the servers. Empty: the TCP peer is the
    /// client, whatever the header says.
    #[serde(default)]
    pub trusted_proxies: Vec<String>,
    /// Largest HTTP request body on any route (413 above).
    #[serde(default = "default_max_body_bytes")]
    pub max_body_bytes: usize,
    /// A request not answered within this is answered 408.
    #[serde(default = "default_request_timeout_ms")]
    pub request_timeout_ms: u64,
    /// Largest WebSocket message (and frame) on /swarm and /ws; a larger
    /// one closes the socket (close code 1009, message too big).
    #[serde(default = "default_ws_max_message_bytes")]
    pub ws_max_message_bytes: usize,
}

fn default_max_body_bytes() -> usize {
    256 * 1024
}

fn default_request_timeout_ms() -> u64 {
    30_000
}

fn default_ws_max_message_bytes() -> usize {
    64 * 1024
}

/// Bounds of the Swarm hub (`[swarm]`).
#[derive(Debug, Clone, Deserialize)]
pub struct SwarmConfig {
    /// Subscriptions one session may hold.
    pub max_subscriptions_per_session: usize,
    /// Distinct subscription queries (groups) one process runs.
    pub max_groups: usize,
    /// Sessions one process holds (WebSocket and long-poll).
    pub max_sessions: usize,
    /// Sessions one member may be logged in on at once.
    #[serde(default = "default_max_sessions_per_member")]
    pub max_sessions_per_member: usize,
}

fn default_max_sessions_per_member() -> usize {
    20
}

impl Default for SwarmConfig {
    fn default() -> Self {
        Self {
            max_subscriptions_per_session: 100,
            max_groups: 5_000,
            max_sessions: 20_000,
            max_sessions_per_member: default_max_sessions_per_member(),
        }
    }
}

impl SwarmConfig {
    pub fn limits(&self) -> crate::swarm::hub::Limits {
        crate::swarm::hub::Limits {
            subscriptions_per_session: self.max_subscriptions_per_session,
            groups: self.max_groups,
            sessions: self.max_sessions,
            sessions_per_member: self.max_sessions_per_member,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Store {
    pub snapshot_every: usize,
    pub cache_capacity: usize,
    pub retry_attempts: u32,
    pub retry_cap_ms: u64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Projections {
    pub poll_ms: u64,
    /// Under load, the runner's passes start at most this often (events
    /// gather into one batch per projection); 0: a pass per wake.
    #[serde(default = "default_gather_ms")]
    pub gather_ms: u64,
    pub batch_size: i64,
    /// Events per transaction while a rebuild fills its shadow copy.
    #[serde(default = "default_rebuild_batch_size")]
    pub rebuild_batch_size: i64,
}

fn default_gather_ms() -> u64 {
    20
}

fn default_rebuild_batch_size() -> i64 {
    20_000
}

/// `[audit]`: the tamper-evident log (docs/audit.md).
#[derive(Debug, Clone, Deserialize)]
pub struct AuditConfig {
    /// HMAC-SHA256 key of the signed chain checkpoints
    /// (`AUDIT_CHECKPOINT_KEY` overrides; a development value by default).
    pub checkpoint_key: String,
    /// A signed checkpoint every this many events.
    pub checkpoint_every: i64,
}

impl Default for AuditConfig {
    fn default() -> Self {
        AuditConfig {
            checkpoint_key: "dev-audit-checkpoint-key-change-me".into(),
            checkpoint_every: 10_000,
        }
    }
}

/// `[safer]`: responsible gambling (docs/responsible-gambling.md).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SaferConfig {
    /// The market's time zone, minutes east of UTC: where a limit's day,
    /// week (Monday first) and month begin.
    pub utc_offset_minutes: i32,
    /// How often the reality-check job looks for members due a notice.
    pub reality_check_every_ms: u64,
}

impl Default for SaferConfig {
    fn default() -> Self {
        SaferConfig {
            utc_offset_minutes: 0,
            reality_check_every_ms: 15_000,
        }
    }
}

impl SaferConfig {
    pub fn calendar(&self) -> domain::safer::Calendar {
        domain::safer::Calendar::new(self.utc_offset_minutes)
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct Demo {
    pub member: String,
    pub password: String,
    pub currency: String,
    pub credit: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Accounts {
    pub verify_new_devices: bool,
    pub restricted_countries: Vec<String>,
    pub real_name_rule: String,
    pub min_age: u32,
    pub max_age: u32,
    pub max_login_failures: u32,
    pub failure_window_ms: i64,
    pub lock_ms: i64,
    pub session_lifetime_ms: i64,
    pub promo_code_enabled: bool,
    pub affiliate_tag: String,
    pub agreement_as_link: bool,
    pub pid: String,
    /// PKCS#8 PEM of the login RSA key; unset: created once and kept in the
    /// store (RSA_PRIVATE_KEY_FILE overrides).
    #[serde(default)]
    pub rsa_key_file: Option<std::path::PathBuf>,
}

impl Accounts {
    pub fn real_name_rule(&self) -> domain::account::RealNameRule {
        match self.real_name_rule.as_str() {
            "zhh_2_to_4" => domain::account::RealNameRule::Zhh2To4,
            _ => domain::account::RealNameRule::Zhh2To20,
        }
    }

    pub fn settings(&self) -> commands::accounts::AccountSettings {
        commands::accounts::AccountSettings {
            rules: domain::account::RegistrationRules {
                real_name_rule: self.real_name_rule(),
                restricted_countries: self.restricted_countries.clone(),
                min_age: self.min_age,
                max_age: self.max_age,
                require_agreement: true,
            },
            policy: domain::account::LoginPolicy {
                max_failures: self.max_login_failures,
                window_ms: self.failure_window_ms,
                lock_ms: self.lock_ms,
            },
            verify_new_devices: self.verify_new_devices,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct BetsConfig {
    pub min_stake: rust_decimal::Decimal,
    pub max_stake: rust_decimal::Decimal,
    pub max_express_odds: rust_decimal::Decimal,
    /// Selections one bet may hold (code 1913 above).
    #[serde(default = "default_max_selections")]
    pub max_selections: usize,
    /// Combinations one system bet may hold (code 1914 above).
    #[serde(default = "default_max_combinations")]
    pub max_combinations: usize,
    /// Selections still without a result this long after their bet's last
    /// leg started are void (stake returned).
    #[serde(default = "void_unresulted_after_hours")]
    pub void_unresulted_after_hours: u64,
    /// Largest free bet one staff grant may give (member's currency).
    #[serde(default = "default_free_bet_grant_max")]
    pub free_bet_grant_max: rust_decimal::Decimal,
    /// Most free bets granted to one member within 24 hours.
    #[serde(default = "default_free_bet_daily_max")]
    pub free_bet_daily_max: rust_decimal::Decimal,
}

fn default_max_selections() -> usize {
    domain::bet::MAX_SELECTIONS
}

fn default_max_combinations() -> usize {
    domain::bet::MAX_COMBINATIONS
}

fn void_unresulted_after_hours() -> u64 {
    commands::sportsbook::unresulted::DEFAULT_AFTER.as_secs() / 3600
}

fn default_free_bet_grant_max() -> rust_decimal::Decimal {
    rust_decimal::Decimal::new(100_000, 2)
}

fn default_free_bet_daily_max() -> rust_decimal::Decimal {
    rust_decimal::Decimal::new(200_000, 2)
}

impl BetsConfig {
    pub fn settings(&self) -> commands::sportsbook::bets::BetSettings {
        commands::sportsbook::bets::BetSettings {
            min_stake: self.min_stake,
            max_stake: self.max_stake,
            max_express_odds: self.max_express_odds,
            max_selections: self.max_selections,
            max_combinations: self.max_combinations,
            ..Default::default()
        }
    }

    pub fn free_bet_limits(&self) -> domain::freebet::GrantLimits {
        domain::freebet::GrantLimits {
            per_grant: self.free_bet_grant_max,
            per_member_per_day: self.free_bet_daily_max,
        }
    }
}

fn default_vip() -> domain::vip::VipTables {
    #[derive(Deserialize)]
    struct Shipped {
        vip: domain::vip::VipTables,
    }
    toml::from_str::<Shipped>(include_str!("../../config/default.toml"))
        .expect("config/default.toml has a [vip] section")
        .vip
}

/// `[metrics]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct MetricsConfig {
    /// Seconds between two reads of the read models for the business
    /// gauges (`api::business_metrics`); 0: this node does not read them
    /// (each read aggregates the whole bet table, so on a large one a
    /// single node should report them).
    pub business_refresh_s: u64,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        Self {
            business_refresh_s: crate::business_metrics::REFRESH_S,
        }
    }
}

/// Background jobs (process managers) and their leases.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct JobsConfig {
    /// How long a job's lease lasts without renewal: after a process dies,
    /// another takes its jobs over within this time.
    pub lease_ttl_ms: u64,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            lease_ttl_ms: commands::platform::lease::DEFAULT_TTL.as_millis() as u64,
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct FeedConfig {
    pub source: String,
    pub fixture_file: String,
    pub seed: u64,
    pub tick_ms: u64,
    pub live_seconds: i64,
    pub games_per_competition: usize,
    pub price_moves_per_tick: usize,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Partner {
    pub key: String,
    pub session_lifetime_ms: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Transport {
    pub pairs: Vec<(String, String)>,
}

impl Config {
    /// Reads the file, then applies the environment.
    pub fn load() -> anyhow::Result<Config> {
        let path = std::env::var("CONFIG_FILE").unwrap_or_else(|_| "config/default.toml".into());
        let mut config = Self::from_file(Path::new(&path))?;
        config.apply_env(|name| std::env::var(name).ok())?;
        Ok(config)
    }

    pub fn from_file(path: &Path) -> anyhow::Result<Config> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read configuration {}", path.display()))?;
        Self::from_toml(&text).with_context(|| format!("in {}", path.display()))
    }

    pub fn from_toml(text: &str) -> anyhow::Result<Config> {
        let config: Config = toml::from_str(text)?;
        config.validate()?;
        Ok(config)
    }

    pub fn apply_env(&mut self, var: impl Fn(&str) -> Option<String>) -> anyhow::Result<()> {
        if let Some(port) = var("PORT") {
            self.server.port = port
                .trim()
                .parse()
                .with_context(|| format!("PORT '{port}' is not a port number"))?;
        }
        if let Some(bind) = var("BIND").or_else(|| var("HOST")) {
            self.server.bind = Some(bind.trim().to_string()).filter(|b| !b.is_empty());
        }
        if let Some(proxies) = var("TRUSTED_PROXIES") {
            self.server.trusted_proxies = proxies
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect();
        }
        self.database_url = var("DATABASE_URL").filter(|u| !u.trim().is_empty());
        self.demo_mode = var("DEMO").is_some_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        if let Some(file) = var("FEED_FIXTURE") {
            self.feed.source = "fixture".into();
            self.feed.fixture_file = file;
        }
        if let Some(secs) = var("FEED_LIVE_SECONDS") {
            self.feed.live_seconds = secs.trim().parse().with_context(|| {
                format!("FEED_LIVE_SECONDS '{secs}' is not a number of seconds")
            })?;
        }
        if let Some(key) = var("PARTNER_KEY") {
            self.partner.key = key;
        }
        if let Some(key) = var("AUDIT_CHECKPOINT_KEY") {
            self.audit.checkpoint_key = key;
        }
        if let Some(secret) = var("PAYMENTS_SANDBOX_SECRET").filter(|s| !s.trim().is_empty()) {
            self.payments.sandbox.secret = secret.trim().to_string();
        }
        if let Some(secret) = var("PAYMENTS_USDT_ADDRESS_SECRET").filter(|s| !s.trim().is_empty()) {
            self.payments.usdt.address_secret = secret.trim().to_string();
        }
        if let Some(pairs) = var("TRANSPORT_PAIRS") {
            self.transport.pairs = serde_json::from_str(&pairs)
                .context("TRANSPORT_PAIRS must be a JSON array of [key, iv] pairs")?;
        }
        self.casino.apply_env(&var);
        self.validate()
    }

    /// The address the server listens on: `bind` when set; otherwise
    /// 127.0.0.1 in demo mode (its credentials and outbox must not face a
    /// network by accident), every interface elsewhere.
    pub fn listen_ip(&self) -> IpAddr {
        match self.server.bind.as_deref().map(str::parse) {
            Some(Ok(ip)) => ip,
            _ if self.demo_mode => IpAddr::V4(Ipv4Addr::LOCALHOST),
            _ => IpAddr::V4(Ipv4Addr::UNSPECIFIED),
        }
    }

    /// What demo mode opens, said loudly at start.
    pub fn demo_warning(&self) -> Option<String> {
        self.demo_mode.then(|| {
            format!(
                "DEMO=1: demo credentials are seeded ({} / {}, staff support / support1234, \
                 auditor / auditor1234, admin / admin1234, finance / finance1234, marketing / marketing1234) and GET /api/dev/outbox shows every \
                 SMS, e-mail and captcha code; listening on {}{}. Never run a public server \
                 with DEMO=1.",
                self.demo.member,
                self.demo.password,
                self.listen_ip(),
                if self.server.bind.is_some() {
                    " (set by BIND/HOST)"
                } else {
                    " only (127.0.0.1 unless BIND/HOST says otherwise)"
                }
            )
        })
    }

    pub fn trusted_proxies(&self) -> anyhow::Result<crate::client_ip::TrustedProxies> {
        crate::client_ip::TrustedProxies::parse(&self.server.trusted_proxies)
            .map_err(|e| anyhow::anyhow!("server.trusted_proxies (TRUSTED_PROXIES): {e}"))
    }

    fn validate(&self) -> anyhow::Result<()> {
        if let Some(bind) = &self.server.bind {
            if bind.parse::<IpAddr>().is_err() {
                bail!("server.bind (BIND/HOST) '{bind}' is not an IP address (e.g. 0.0.0.0, 127.0.0.1, ::)");
            }
        }
        self.trusted_proxies()?;
        if self.transport.pairs.len() != 10 {
            bail!("transport.pairs must hold ten [key, iv] pairs");
        }
        if self
            .transport
            .pairs
            .iter()
            .any(|(k, iv)| k.len() != 16 || iv.len() != 16)
        {
            bail!("every transport key and iv must be 16 bytes (AES-128)");
        }
        if !matches!(
            self.accounts.real_name_rule.as_str(),
            "zhh_2_to_20" | "zhh_2_to_4"
        ) {
            bail!("accounts.real_name_rule must be zhh_2_to_20 or zhh_2_to_4");
        }
        if self.accounts.max_login_failures == 0
            || self.accounts.max_login_failures as usize > domain::account::REMEMBERED_FAILURES + 1
        {
            bail!("accounts.max_login_failures must be between 1 and 17");
        }
        if !matches!(self.feed.source.as_str(), "simulator" | "fixture") {
            bail!("feed.source must be simulator or fixture");
        }
        if self.feed.source == "fixture" && self.feed.fixture_file.trim().is_empty() {
            bail!("feed.source = fixture needs feed.fixture_file (or FEED_FIXTURE)");
        }
        if self.feed.tick_ms == 0 || !(self.feed.live_seconds == 0 || self.feed.live_seconds >= 10)
        {
            bail!(
                "feed.tick_ms must be positive and feed.live_seconds 0 (real pace) or at least 10"
            );
        }
        if self.bets.min_stake <= rust_decimal::Decimal::ZERO
            || self.bets.max_stake < self.bets.min_stake
        {
            bail!("bets.min_stake must be positive and not above bets.max_stake");
        }
        if self.bets.max_selections < 2 || self.bets.max_combinations < 1 {
            bail!("bets.max_selections must be at least 2 and bets.max_combinations at least 1");
        }
        if self.server.max_body_bytes < 1024 || self.server.ws_max_message_bytes < 1024 {
            bail!("server.max_body_bytes and server.ws_max_message_bytes must be at least 1024");
        }
        if self.server.request_timeout_ms < 100 {
            bail!("server.request_timeout_ms must be at least 100");
        }
        if self.bets.void_unresulted_after_hours == 0 {
            bail!("bets.void_unresulted_after_hours must be at least 1");
        }
        self.seasons.settings()?;
        if self.jobs.lease_ttl_ms < 1000 {
            bail!("jobs.lease_ttl_ms must be at least 1000");
        }
        if self.bets.free_bet_grant_max <= rust_decimal::Decimal::ZERO
            || self.bets.free_bet_daily_max < self.bets.free_bet_grant_max
        {
            bail!("bets.free_bet_grant_max must be positive and not above bets.free_bet_daily_max");
        }
        if self.projections.batch_size < 1 || self.projections.poll_ms == 0 {
            bail!("projections.batch_size and projections.poll_ms must be positive");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_config() -> Config {
        Config::from_toml(include_str!("../../config/default.toml")).unwrap()
    }

    #[test]
    fn the_shipped_defaults_load() {
        let c = default_config();
        assert_eq!(c.server.port, 8080);
        assert_eq!(c.transport.pairs.len(), 10);
        assert!(!c.demo_mode);
    }

    #[test]
    fn the_business_gauges_refresh_every_15_s_unless_a_node_turns_them_off() {
        assert_eq!(default_config().metrics.business_refresh_s, 15);
        let shipped = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../config/default.toml"),
        )
        .unwrap();
        let without: String = shipped.replace("business_refresh_s = 15", "");
        let c = Config::from_toml(&without).unwrap();
        assert_eq!(c.metrics.business_refresh_s, 15);
        let off = shipped.replace("business_refresh_s = 15", "business_refresh_s = 0");
        let c = Config::from_toml(&off).unwrap();
        assert_eq!(c.metrics.business_refresh_s, 0);
    }

    #[test]
    fn the_environment_overrides_port_database_and_demo() {
        let mut c = default_config();
        c.apply_env(|name| match name {
            "PORT" => Some("9999".into()),
            "DATABASE_URL" => Some("postgres://x@y/z".into()),
            "DEMO" => Some("1".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(c.server.port, 9999);
        assert_eq!(c.database_url.as_deref(), Some("postgres://x@y/z"));
        assert!(c.demo_mode);
    }

    #[test]
    fn a_bad_port_is_a_clear_error() {
        let mut c = default_config();
        let err = c
            .apply_env(|name| (name == "PORT").then(|| "eighty".to_string()))
            .unwrap_err();
        assert!(err.to_string().contains("PORT 'eighty'"));
    }

    #[test]
    fn transport_pairs_must_be_ten_aes_128_pairs() {
        let mut c = default_config();
        let err = c
            .apply_env(|name| (name == "TRANSPORT_PAIRS").then(|| r#"[["short","x"]]"#.to_string()))
            .unwrap_err();
        assert!(err.to_string().contains("ten"));
    }

    #[test]
    fn demo_mode_binds_to_loopback_unless_bind_is_set() {
        let listen = |env: &[(&str, &str)]| {
            let mut c = default_config();
            c.apply_env(|name| {
                env.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            })
            .unwrap();
            c.listen_ip()
        };
        let any: std::net::IpAddr = "0.0.0.0".parse().unwrap();
        let loopback: std::net::IpAddr = "127.0.0.1".parse().unwrap();
        assert_eq!(listen(&[]), any);
        assert_eq!(listen(&[("DEMO", "1")]), loopback);
        assert_eq!(listen(&[("DEMO", "1"), ("BIND", "0.0.0.0")]), any);
        assert_eq!(
            listen(&[("DEMO", "1"), ("HOST", "::")]),
            "::".parse::<std::net::IpAddr>().unwrap()
        );
        let mut c = default_config();
        c.server.bind = Some("10.1.2.3".into());
        c.apply_env(|name| (name == "DEMO").then(|| "1".to_string()))
            .unwrap();
        assert_eq!(
            c.listen_ip(),
            "10.1.2.3".parse::<std::net::IpAddr>().unwrap()
        );
        let err = default_config()
            .apply_env(|name| (name == "BIND").then(|| "localhost:80".to_string()))
            .unwrap_err();
        assert!(err.to_string().contains("BIND"), "{err}");
    }

    #[test]
    fn demo_mode_warns_that_its_credentials_and_outbox_are_open() {
        let mut c = default_config();
        assert_eq!(c.demo_warning(), None);
        c.apply_env(|name| (name == "DEMO").then(|| "1".to_string()))
            .unwrap();
        let warning = c.demo_warning().unwrap();
        assert!(warning.contains("/api/dev/outbox"), "{warning}");
        assert!(warning.contains("demo1234"), "{warning}");
        assert!(warning.contains("127.0.0.1"), "{warning}");
    }

    #[test]
    fn trusted_proxies_are_ip_networks_and_none_by_default() {
        let c = default_config();
        assert!(c.server.trusted_proxies.is_empty());
        let mut c = default_config();
        c.apply_env(|name| {
            (name == "TRUSTED_PROXIES").then(|| "127.0.0.1/32, 10.0.0.0/8,::1".to_string())
        })
        .unwrap();
        assert_eq!(c.server.trusted_proxies.len(), 3);
        let err = default_config()
            .apply_env(|name| (name == "TRUSTED_PROXIES").then(|| "10.0.0.0/33".to_string()))
            .unwrap_err();
        assert!(err.to_string().contains("10.0.0.0/33"), "{err}");
    }
}
