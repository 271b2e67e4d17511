//! Wiring: the store, the services, the projection runner and the router.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::extract::FromRef;
use axum::Router;
use commands::WalletService;
use projections::balances::BalanceProjection;
use projections::{Backend, Projection, ProjectionMetrics, Runner};
use prometheus_client::registry::Registry;
use store::{CommandMetrics, Db, DbUrl, RetryPolicy, StoreKind, StoreOptions};
use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::config::Config;
use crate::metrics::HttpMetrics;
use crate::routes;
use crate::secrets::{self, LoginKey};
use crate::swarm::hub::Hub;
use crate::transport::crypto::Pairs;
use crate::transport::Transport;
use commands::accounts::codes::{Codes, Outbox};
use commands::accounts::sessions::Sessions;
use commands::accounts::AccountService;
use commands::platform::clock::{SharedClock, SystemClock};
use commands::platform::lease::Lease;
use commands::sportsbook::autocashout::AUTO_CASHOUT_LEASE;
use commands::sportsbook::feed::{Feed, Fixture, FixtureFeed, Simulator, SimulatorSettings};
use commands::sportsbook::live::{LiveCatalogue, LiveFeed, ResultService};
use commands::sportsbook::settlement::{RECOVERY_LEASE, SETTLEMENT_LEASE};
use commands::sportsbook::unresulted::VOID_UNRESULTED_LEASE;
use domain::catalogue::Catalogue;

/// What every handler may reach: one allocation that every request shares.
/// axum clones the state for each extractor and middleware of a request;
/// a clone of this is one reference count, where a clone of the fields
/// (three dozen `Arc`s, the metrics' families, the node id's `String`)
/// was about 7% of the server's CPU at the bet benchmark's peak.
#[derive(Clone)]
pub struct AppState(Arc<AppStateInner>);

impl std::ops::Deref for AppState {
    type Target = AppStateInner;
    fn deref(&self) -> &AppStateInner {
        &self.0
    }
}

/// The fields of [`AppState`].
pub struct AppStateInner {
    pub config: Arc<Config>,
    pub db: Db,
    pub wallets: Arc<WalletService>,
    pub accounts: Arc<AccountService>,
    pub transport: Arc<Transport>,
    pub login_key: Arc<LoginKey>,
    pub clock: SharedClock,
    pub live: Arc<LiveCatalogue>,
    pub results: Arc<ResultService>,
    pub hub: Arc<Hub>,
    pub realtime: Arc<crate::realtime::Realtime>,
    pub betting: Arc<crate::betting::Betting>,
    pub notifications: Arc<commands::engagement::notify::Notifications>,
    /// Back-office staff accounts and sessions.
    pub staff: Arc<commands::accounts::staff::StaffService>,
    /// Client log writes per IP (`logwriter/*`), shared by every process.
    pub client_logs: Arc<commands::platform::limits::RateLimit>,
    /// Process managers the background loops run (each under a lease).
    pub settlement: Arc<commands::sportsbook::settlement::Settlement>,
    pub auto_cashout: Arc<commands::sportsbook::autocashout::AutoCashout>,
    pub unresulted: Arc<commands::sportsbook::unresulted::VoidUnresulted>,
    /// The back office's results desk (trader decisions).
    pub desk: Arc<commands::sportsbook::desk::ResultDesk>,
    /// VIP levels and rewards (issue 11).
    pub vip: Arc<commands::engagement::vip::VipService>,
    /// This process's id: the holder of its leases.
    pub node_id: String,
    /// This process's heartbeat and the clean-up of stopped processes' rows.
    pub nodes: Arc<commands::platform::nodes::Nodes>,
    feed: Arc<std::sync::Mutex<Option<LiveFeed>>>,
    pub runner: Arc<Runner>,
    pub registry: Arc<Registry>,
    pub http_metrics: HttpMetrics,
    /// Business figures on `/metrics` (bets, liability, money orders, rounds).
    pub business_metrics: crate::business_metrics::BusinessMetrics,
    /// Whose X-Forwarded-For is believed (`client_ip`).
    pub trusted_proxies: crate::client_ip::TrustedProxies,
    /// The casino: catalogue, launch, seamless wallet, demo provider.
    pub casino: Arc<crate::casino::Casino>,
    /// Seasons: boundaries, task progress, claims, home teams.
    pub seasons: Arc<commands::engagement::seasons::Seasons>,
    /// Deposits, withdrawals, cards, transfers (docs/payments.md).
    pub payments: Arc<commands::payments::Payments>,
    /// Promotions: sign-in, tasks, prize draw, shop (docs/promotions.md).
    pub promotions: Arc<commands::engagement::promo::Promotions>,
    /// The member inbox and its process manager (docs/content.md).
    pub inbox: Arc<commands::engagement::inbox::Inbox>,
    /// Notices, banners, covers, popups, news, help, campaigns.
    pub content: Arc<commands::engagement::content::ContentService>,
    /// Safer gambling: limits, time-outs, self-exclusion, reality checks.
    pub safer: Arc<commands::compliance::safer::Safeguards>,
}

impl FromRef<AppState> for HttpMetrics {
    fn from_ref(state: &AppState) -> Self {
        state.http_metrics.clone()
    }
}

impl FromRef<AppState> for Arc<Registry> {
    fn from_ref(state: &AppState) -> Self {
        state.registry.clone()
    }
}

/// Opens the configured store (clear error if it cannot) and migrates it.
pub async fn open_store(config: &Config) -> anyhow::Result<Db> {
    let url = DbUrl::parse(config.database_url.as_deref())?;
    let db = Db::connect(&url).await?;
    db.migrate().await?;
    Ok(db)
}

pub fn backend(db: &Db) -> Backend {
    db.backend()
}

/// The configured feed. A fixture that does not load is a start-up error,
/// not an empty sportsbook.
pub fn open_feed(config: &Config) -> anyhow::Result<Box<dyn Feed>> {
    let feed: Box<dyn Feed> = match config.feed.source.as_str() {
        "fixture" => {
            let path = &config.feed.fixture_file;
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read feed fixture {path}"))?;
            let fixture =
                Fixture::parse(&text).with_context(|| format!("in feed fixture {path}"))?;
            fixture
                .load_into(&mut Catalogue::new())
                .with_context(|| format!("in feed fixture {path}"))?;
            Box::new(FixtureFeed::new(fixture))
        }
        _ => Box::new(Simulator::new(SimulatorSettings {
            seed: config.feed.seed,
            games_per_competition: config.feed.games_per_competition,
            live_seconds: config.feed.live_seconds,
            price_moves_per_tick: config.feed.price_moves_per_tick,
        })),
    };
    Ok(feed)
}

/// Every projection of the platform.
pub fn projections() -> Vec<Arc<dyn Projection>> {
    vec![
        Arc::new(BalanceProjection),
        Arc::new(projections::bets::BetHistoryProjection),
        Arc::new(projections::settlement::SettlementProjection),
        Arc::new(projections::autocashout::AutoCashoutProjection),
        Arc::new(projections::payments::MoneyOrdersProjection),
        Arc::new(projections::payments::WalletMovementsProjection),
    ]
}

impl AppState {
    pub async fn new(config: Config, db: Db) -> anyhow::Result<Self> {
        Self::with_clock(config, db, Arc::new(SystemClock)).await
    }

    /// As `new`, with the clock every time rule reads (tests move it).
    pub async fn with_clock(config: Config, db: Db, clock: SharedClock) -> anyhow::Result<Self> {
        let mut registry = Registry::default();
        let command_metrics = CommandMetrics::default();
        command_metrics.register(&mut registry);
        let projection_metrics = ProjectionMetrics::default();
        projection_metrics.register(&mut registry);
        let http_metrics = HttpMetrics::new(&mut registry);
        let business_metrics = crate::business_metrics::BusinessMetrics::default();
        business_metrics.register(&mut registry);

        config
            .vip
            .check()
            .map_err(|e| anyhow::anyhow!("config [vip]: {e}"))?;
        // One calendar: unless `[vip] season_ends` names its own dates,
        // honour decays after each season of `[seasons]` ends (its last
        // day's date), not on a second list to keep in step.
        let mut vip_config = config.vip.clone();
        let season_ends: Vec<String> = config
            .seasons
            .settings()?
            .calendar
            .seasons
            .iter()
            .map(|s| domain::account::Date::from_epoch_ms(s.end_ms - 1).to_string())
            .collect();
        if vip_config.season_ends.is_empty() {
            vip_config.season_ends = season_ends;
        }
        let vip_tables = Arc::new(vip_config);
        let mut all_projections = projections();
        all_projections.push(Arc::new(projections::vip::VipProjection::new(
            vip_tables.clone(),
        )));
        let runner = Runner::new(db.any.clone(), backend(&db), all_projections)
            .with_batch_size(config.projections.batch_size)
            .with_rebuild_batch_size(config.projections.rebuild_batch_size)
            .with_writer_lock(db.group.writer_lock())
            .with_sealer(projections::seal::Sealer::new(
                backend(&db),
                config.audit.checkpoint_key.as_bytes(),
                config.audit.checkpoint_every,
            ))
            .with_metrics(projection_metrics);
        let store = StoreOptions {
            snapshot_every: Some(config.store.snapshot_every).filter(|n| *n > 0),
            cache_capacity: config.store.cache_capacity,
            trust_cache: false,
        };
        let retry = RetryPolicy {
            attempts: config.store.retry_attempts.max(1),
            cap: Duration::from_millis(config.store.retry_cap_ms.max(1)),
            ..RetryPolicy::default()
        };
        let wallets =
            WalletService::notifying(&db, store, retry, command_metrics.clone(), runner.waker());
        let safer = Arc::new(commands::compliance::safer::Safeguards::new(
            &db,
            store,
            retry,
            command_metrics.clone(),
            clock.clone(),
            config.safer.calendar(),
        ));
        let command_metrics_for_bets = command_metrics.clone();
        let command_metrics_for_vip = command_metrics.clone();
        let command_metrics_for_casino = command_metrics.clone();
        let command_metrics_for_payments = command_metrics.clone();

        let pairs = Pairs::new(&config.transport.pairs)
            .ok_or_else(|| anyhow::anyhow!("transport pairs must be 16-byte keys and ivs"))?;
        let transport = Transport::new(
            pairs,
            secrets::app_token_secret(&db.any).await?,
            db.any.clone(),
        );
        let key_file = std::env::var_os("RSA_PRIVATE_KEY_FILE")
            .map(std::path::PathBuf::from)
            .or_else(|| config.accounts.rsa_key_file.clone());
        let login_key = LoginKey::new(db.any.clone(), key_file);
        let mut codes = Codes::new(
            db.any.clone(),
            Arc::new(Outbox::new(db.any.clone(), clock.clone())),
            clock.clone(),
        );
        codes.publish_captchas = config.demo_mode;
        let sessions = Sessions::new(
            db.any.clone(),
            clock.clone(),
            config.accounts.session_lifetime_ms,
        );
        let live = LiveCatalogue::new(Catalogue::new());
        let results = ResultService::new(&db, store, retry, command_metrics.clone());
        // The catalogue is loaded (or seeded) before the first request.
        let mut feed = LiveFeed::new(&db, open_feed(&config)?);
        feed.step(&live, &results, clock.now_ms()).await?;
        let sessions = Arc::new(sessions);
        let hub = Hub::with_limits(
            live.clone(),
            sessions.clone(),
            clock.clone(),
            db.any.clone(),
            config.swarm.limits(),
            config.server.ws_max_message_bytes,
        );
        registry.register(
            "swarm_panics",
            "Swarm requests whose handling panicked (answered with code -1)",
            hub.panics.clone(),
        );
        let accounts = AccountService::new(
            &db,
            store,
            retry,
            command_metrics,
            Arc::new(codes),
            sessions,
            clock.clone(),
            config.accounts.settings(),
        );
        let notifications = Arc::new(commands::engagement::notify::Notifications::new(
            db.any.clone(),
            clock.clone(),
            db.kind() == StoreKind::Postgres,
        ));
        let wallets = Arc::new(wallets);
        let accounts = Arc::new(accounts);
        let bets = commands::sportsbook::bets::BetService::new(
            &db,
            store,
            retry,
            command_metrics_for_bets,
            wallets.clone(),
            live.clone(),
            clock.clone(),
            notifications.clone(),
            config.bets.settings(),
            safer.clone(),
        );
        let bets = Arc::new(bets);
        let settlement = Arc::new(commands::sportsbook::settlement::Settlement::new(
            bets.clone(),
            db.any.clone(),
        ));
        let auto_cashout = Arc::new(commands::sportsbook::autocashout::AutoCashout::new(
            bets.clone(),
            db.any.clone(),
        ));
        let results = Arc::new(results);
        let unresulted = Arc::new(commands::sportsbook::unresulted::VoidUnresulted::new(
            results.clone(),
            db.any.clone(),
            clock.clone(),
            Duration::from_secs(config.bets.void_unresulted_after_hours * 3600),
        ));
        let desk = Arc::new(commands::sportsbook::desk::ResultDesk::new(
            results.clone(),
            live.clone(),
            bets.clone(),
            db.any.clone(),
            clock.clone(),
        ));
        let betting = Arc::new(crate::betting::Betting {
            bets,
            accounts: accounts.clone(),
            pool: db.any.clone(),
            currencies: Default::default(),
            metrics: business_metrics.clone(),
        });
        hub.set_betting(betting.clone());
        hub.set_platform(crate::swarm::sources::Platform {
            site_id: config.accounts.pid.to_string(),
            default_currency: "CNY".to_string(),
            min_stake: config.bets.min_stake,
            max_stake: config.bets.max_stake,
            max_express_odds: config.bets.max_express_odds,
            max_selections: config.bets.max_selections,
            languages: vec!["zhh".into(), "eng".into(), "tha".into()],
        });
        hub.set_bookings(Arc::new(crate::bookings::Bookings {
            service: commands::sportsbook::bookings::BookingService::new(
                db.any.clone(),
                live.clone(),
                clock.clone(),
            ),
        }));
        let staff = Arc::new(commands::accounts::staff::StaffService::new(
            db.any.clone(),
            clock.clone(),
        ));
        let node_id = commands::platform::lease::node_id();
        let nodes = Arc::new(commands::platform::nodes::Nodes::new(
            db.any.clone(),
            node_id.clone(),
            clock.clone(),
            commands::platform::nodes::DEFAULT_TTL,
        ));
        let realtime =
            crate::realtime::Realtime::new(db.any.clone(), node_id.clone(), clock.clone());
        hub.set_node_id(node_id.clone());
        let client_logs = Arc::new(commands::platform::limits::RateLimit::new(
            db.any.clone(),
            "client_log",
            120,
            60_000,
        ));
        let trusted_proxies = config.trusted_proxies()?;
        let vip = Arc::new(commands::engagement::vip::VipService::new(
            &db,
            store,
            retry,
            command_metrics_for_vip,
            Some(runner.waker()),
            wallets.clone(),
            clock.clone(),
            vip_tables,
        ));
        let casino = Arc::new(
            crate::casino::Casino::new(
                &config,
                &db,
                store,
                retry,
                command_metrics_for_casino,
                runner.waker(),
                wallets.clone(),
                accounts.clone(),
                clock.clone(),
                safer.clone(),
            )
            .await?,
        );
        // DEMO=1: the seasons read time through an offset clock the demo
        // aid `POST /api/dev/season/end` moves to the running season's end.
        let seasons = Arc::new(if config.demo_mode {
            commands::engagement::seasons::Seasons::with_demo_clock(
                &db,
                wallets.clone(),
                Arc::new(commands::platform::clock::OffsetClock::new(clock.clone())),
                config.seasons.settings()?,
            )
        } else {
            commands::engagement::seasons::Seasons::new(
                &db,
                wallets.clone(),
                clock.clone(),
                config.seasons.settings()?,
            )
        });
        let payments = Arc::new(
            commands::payments::Payments::new(
                &db,
                store,
                retry,
                command_metrics_for_payments,
                Some(runner.waker()),
                wallets.clone(),
                accounts.clone(),
                notifications.clone(),
                clock.clone(),
                payment_settings(&config),
                safer.clone(),
            )
            // Withdrawals per day and per withdrawal by VIP level.
            .with_limits(Arc::new(
                commands::engagement::vip::VipWithdrawalLimits::new(
                    vip.clone(),
                    Arc::new(commands::payments::ConfigWithdrawalLimits::new(
                        config.payments.clone(),
                        accounts.clone(),
                    )),
                ),
            )),
        );
        let promotions = Arc::new(commands::engagement::promo::Promotions::new(
            db.any.clone(),
            backend(&db),
            wallets.clone(),
            vip.clone(),
            clock.clone(),
            safer.clone(),
        ));
        let inbox = Arc::new(commands::engagement::inbox::Inbox::new(
            db.any.clone(),
            backend(&db),
            clock.clone(),
        ));
        let content = Arc::new(commands::engagement::content::ContentService::new(
            db.any.clone(),
            clock.clone(),
        ));
        Ok(Self(Arc::new(AppStateInner {
            promotions,
            vip,
            casino,
            seasons,
            payments,
            inbox,
            content,
            safer,
            client_logs,
            config: Arc::new(config),
            db,
            wallets,
            accounts,
            betting,
            transport: Arc::new(transport),
            login_key: Arc::new(login_key),
            clock,
            live,
            results,
            hub,
            realtime,
            notifications,
            staff,
            settlement,
            auto_cashout,
            unresulted,
            desk,
            node_id,
            nodes,
            feed: Arc::new(std::sync::Mutex::new(Some(feed))),
            runner: Arc::new(runner),
            registry: Arc::new(registry),
            http_metrics,
            business_metrics,
            trusted_proxies,
        })))
    }

    /// Starts the feed loop and the Swarm fan-out; they stop with `stop`.
    pub fn spawn_live(&self, stop: watch::Receiver<bool>) -> Vec<tokio::task::JoinHandle<()>> {
        let mut tasks = vec![
            tokio::spawn(self.nodes.clone().run(stop.clone())),
            tokio::spawn(self.hub.clone().run(stop.clone())),
            tokio::spawn(
                self.realtime
                    .clone()
                    .run(self.notifications.clone(), stop.clone()),
            ),
            // Season boundaries and season task progress.
            tokio::spawn(self.seasons.clone().run_boundaries(
                self.lease(commands::engagement::seasons::BOUNDARY_LEASE),
                stop.clone(),
            )),
            tokio::spawn(self.seasons.clone().run_progress(
                self.lease(commands::engagement::seasons::PROGRESS_LEASE),
                stop.clone(),
            )),
            // The inbox written from payment, claim and reward events.
            tokio::spawn(self.inbox.clone().run(
                self.lease(commands::engagement::inbox::INBOX_LEASE),
                stop.clone(),
            )),
            // The season ranking by honour value (frozen after SeasonEnded).
            tokio::spawn(self.seasons.clone().run_ranking(
                self.lease(commands::engagement::seasons::RANKING_LEASE),
                stop.clone(),
            )),
            // Settlement tasks and interrupted placements.
            tokio::spawn(
                self.settlement
                    .clone()
                    .run(self.lease(SETTLEMENT_LEASE), stop.clone()),
            ),
            tokio::spawn(
                self.settlement
                    .clone()
                    .run_recovery(self.lease(RECOVERY_LEASE), stop.clone()),
            ),
            // Selections that never got a result are void after a while.
            tokio::spawn(
                self.unresulted
                    .clone()
                    .run(self.lease(VOID_UNRESULTED_LEASE), stop.clone()),
            ),
            // Auto cash-out rules fire on price moves.
            tokio::spawn(self.auto_cashout.clone().run(
                self.live.clone(),
                self.lease(AUTO_CASHOUT_LEASE),
                stop.clone(),
            )),
            // Promotions: shop orders a crash left reserved, referrals due.
            tokio::spawn(self.promotions.clone().run_jobs(
                self.lease(commands::engagement::promo::PROMO_JOBS_LEASE),
                stop.clone(),
            )),
            // VIP: levels reached, rebates, salaries, calendar decay.
            tokio::spawn(self.vip.clone().run(
                self.lease(commands::engagement::vip::VIP_REWARDS_LEASE),
                stop.clone(),
            )),
        ];
        // Business gauges from the read models (every node unless
        // `[metrics] business_refresh_s = 0`; docs/operations.md).
        if self.config.metrics.business_refresh_s > 0 {
            tasks.push(tokio::spawn(self.business_metrics.clone().run(
                self.db.any.clone(),
                self.db.kind(),
                Duration::from_secs(self.config.metrics.business_refresh_s),
                stop.clone(),
            )));
        }
        // Reality checks: a /ws notice at each member's interval.
        let reality = Arc::new(commands::compliance::reality::RealityChecks::new(
            self.db.any.clone(),
            self.safer.clone(),
            self.notifications.clone(),
            self.clock.clone(),
        ));
        tasks.push(tokio::spawn(reality.run(
            self.lease(commands::compliance::reality::REALITY_CHECK_LEASE),
            Duration::from_millis(self.config.safer.reality_check_every_ms.max(1_000)),
            stop.clone(),
        )));
        // The demo game provider's roulette spins and outbox.
        tasks.push(tokio::spawn(self.casino.demo.clone().run(
            self.lease(crate::casino::demo::ROULETTE_LEASE),
            stop.clone(),
        )));
        tasks.extend(crate::payments_jobs::spawn(self, stop.clone()));
        if let Some(feed) = self.feed.lock().unwrap_or_else(|p| p.into_inner()).take() {
            tasks.push(tokio::spawn(commands::sportsbook::live::run_feed(
                feed,
                self.live.clone(),
                self.results.clone(),
                self.clock.clone(),
                Duration::from_millis(self.config.feed.tick_ms),
                stop,
            )));
        }
        tasks
    }

    /// This process's hold on the lease `name` (see `commands::platform::lease`).
    pub fn lease(&self, name: &str) -> Lease {
        Lease::new(
            self.db.any.clone(),
            name,
            self.node_id.clone(),
            Duration::from_millis(self.config.jobs.lease_ttl_ms),
            self.clock.clone(),
        )
    }

    /// Starts the projection runner; it stops when `stop` turns true.
    pub fn spawn_runner(&self, stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        let poll = Duration::from_millis(self.config.projections.poll_ms);
        let gather = Duration::from_millis(self.config.projections.gather_ms.min(1000));
        tokio::spawn(self.runner.clone().run(poll, gather, stop))
    }

    pub fn router(&self) -> Router {
        let layered = routes::account::router()
            .merge(routes::user::router())
            .merge(routes::seasons::router())
            .merge(routes::sport::router())
            .merge(routes::report::router())
            .merge(routes::vip::router())
            .merge(routes::payments::router())
            .merge(routes::promo::router())
            .merge(routes::content::router())
            .merge(routes::safer::router())
            .layer(axum::middleware::from_fn_with_state(
                self.transport.clone(),
                crate::transport::layer,
            ));
        let mut api = routes::health::router()
            .merge(layered)
            .merge(routes::account::open_router())
            .merge(routes::partner::router())
            .merge(routes::backoffice::router())
            .merge(routes::backoffice_audit::router())
            .merge(routes::seasons::staff_router())
            .merge(routes::payments_backoffice::router())
            .merge(routes::promo_backoffice::router())
            .merge(routes::content_backoffice::router())
            .merge(routes::safer::staff_router())
            .merge(routes::payments::open_router(self.config.demo_mode))
            .merge(crate::swarm::router())
            .merge(crate::realtime::router())
            .merge(crate::openapi::router(self.config.demo_mode))
            .merge(crate::casino::router(self.transport.clone()));
        if self.config.demo_mode {
            api = api
                .merge(routes::dev::router())
                .merge(routes::vip::dev_router())
                .merge(routes::seasons::dev_router());
        }
        let router = api
            .merge(routes::web::router(&self.config))
            .method_not_allowed_fallback(crate::bounds::method_not_allowed)
            .with_state(self.clone());
        let bounds = crate::bounds::HttpBounds {
            max_body_bytes: self.config.server.max_body_bytes,
            request_timeout: Duration::from_millis(self.config.server.request_timeout_ms),
        };
        crate::bounds::apply_limits(router, bounds, self.http_metrics.panics.clone())
            // Every request's client address, x-request-id (set or kept,
            // answered back), log span, envelope for a bare refusal, count
            // and latency by route.
            .layer(axum::middleware::from_fn_with_state(
                crate::observability::Front {
                    metrics: self.http_metrics.clone(),
                    trusted: self.trusted_proxies.clone(),
                },
                crate::observability::observe,
            ))
            // JSON answers and static files, gzip when the client takes it;
            // streamed answers (the audit replay's NDJSON) go out as they are
            // produced, uncompressed.
            .layer(
                tower_http::compression::CompressionLayer::new().compress_when({
                    use tower_http::compression::predicate::{
                        DefaultPredicate, NotForContentType, Predicate,
                    };
                    DefaultPredicate::new().and(NotForContentType::new("application/x-ndjson"))
                }),
            )
    }
}

/// Seeds the demo member (DEMO=1 only): the account (username and
/// password from `[demo]`) and its wallet credit. Idempotent: the account is
/// found by name and the credit's reference is fixed.
pub async fn seed_demo(state: &AppState) -> anyhow::Result<String> {
    use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
    let demo = &state.config.demo;
    let currency: domain::Currency = demo.currency.parse().context("demo.currency")?;
    let amount = demo.credit.parse().context("demo.credit")?;
    let user_id = state
        .accounts
        .ensure_member(&demo.member, &demo.password, currency)
        .await
        .map_err(|e| anyhow::anyhow!("seeding the demo account: {e}"))?;
    let wallet = WalletId::new(user_id.clone(), currency);
    let credit = WalletAction::Credit {
        amount,
        pot: Pot::Main,
        kind: MovementKind::Adjustment,
    };
    let receipt = state
        .wallets
        .execute(WalletCommand::new(wallet.clone(), "demo:seed", credit))
        .await
        .map_err(|e| anyhow::anyhow!("seeding the demo wallet: {e}"))?;
    tracing::info!(wallet = %wallet, balance = %receipt.balances.main, first = !receipt.duplicate, "demo member ready");
    // DESIGN.md: the demo staff of the back office.
    for (name, password, role) in [
        ("support", "support1234", domain::staff::Role::Support),
        ("auditor", "auditor1234", domain::staff::Role::Auditor),
        ("trader", "trader1234", domain::staff::Role::Trader),
        ("admin", "admin1234", domain::staff::Role::Admin),
        ("finance", "finance1234", domain::staff::Role::Finance),
        ("marketing", "marketing1234", domain::staff::Role::Marketing),
    ] {
        state
            .staff
            .ensure(name, password, role)
            .await
            .map_err(|e| anyhow::anyhow!("seeding staff {name}: {e}"))?;
    }
    Ok(user_id)
}

/// A server running on its own tasks (the binary and the tests use it).
pub struct Running {
    pub addr: std::net::SocketAddr,
    pub state: AppState,
    stop: watch::Sender<bool>,
    server: tokio::task::JoinHandle<std::io::Result<()>>,
    runner: tokio::task::JoinHandle<()>,
    live_tasks: Vec<tokio::task::JoinHandle<()>>,
}

/// `[payments]` as configured, except that the sandbox payout provider
/// only runs in DEMO: outside it no payout provider is reachable and finance
/// marks approved withdrawals paid or failed.
fn payment_settings(config: &Config) -> commands::payments::PaymentSettings {
    let mut settings = config.payments.clone();
    if !config.demo_mode && settings.payouts.trim() != "manual" {
        tracing::info!(configured = %settings.payouts, "payouts are marked by finance outside DEMO (payouts = \"manual\")");
        settings.payouts = "manual".to_string();
    }
    settings
}

/// Starts the projection runner, seeds the demo member (DEMO=1) and serves
/// on `listener`.
pub async fn start(config: Config, db: Db, listener: TcpListener) -> anyhow::Result<Running> {
    start_with_clock(config, db, listener, Arc::new(SystemClock)).await
}

/// As `start`, with the clock the time rules read (tests move it).
pub async fn start_with_clock(
    config: Config,
    db: Db,
    listener: TcpListener,
    clock: SharedClock,
) -> anyhow::Result<Running> {
    let state = AppState::with_clock(config, db, clock).await?;
    // Bets placed before `bet_totals` existed: counted once, before the
    // runner applies anything (a node that finds the table filled skips).
    if projections::bets::seed_totals(&state.db.any).await? {
        tracing::info!("bet totals filled from the bet table");
    }
    // Alive before serving: a live process's fresh socket rows are never
    // swept as a stopped one's.
    state.nodes.beat().await?;
    let (stop, stopped) = watch::channel(false);
    let runner = state.spawn_runner(stopped.clone());
    let live_tasks = state.spawn_live(stopped.clone());
    if state.config.demo_mode {
        seed_demo(&state).await?;
    }
    let addr = listener.local_addr()?;
    state.casino.demo.serving_at(addr);
    state.payments.set_local_base(format!("http://{addr}"));
    let router = state.router();
    let mut until = stopped;
    // Answers go out at once (no Nagle wait for the peer's delayed ACK).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "TCP_NODELAY not set");
        }
    });
    let server = tokio::spawn(async move {
        // ConnectInfo: the peer address is what `client_ip` starts from.
        axum::serve(
            listener,
            router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
        )
        .with_graceful_shutdown(async move {
            let _ = until.wait_for(|stop| *stop).await;
        })
        .await
    });
    Ok(Running {
        addr,
        state,
        stop,
        server,
        runner,
        live_tasks,
    })
}

impl Running {
    /// Stops serving, lets the runner finish its batch, closes the store.
    pub async fn stop(self) -> anyhow::Result<()> {
        let _ = self.stop.send(true);
        self.server.await?.context("server failed")?;
        self.runner.await?;
        for task in self.live_tasks {
            task.await?;
        }
        self.state.db.close().await;
        Ok(())
    }
}
