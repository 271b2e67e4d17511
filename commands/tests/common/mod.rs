//! A platform without HTTP: the store, the live catalogue, results, wallets,
//! bets, the projections and the settlement process manager, on a clock the
//! test moves. The feed is a script: the test decides when a game ends.

#![allow(dead_code)]

use std::sync::Arc;

use commands::platform::clock::{ManualClock, SharedClock};
use commands::sportsbook::bets::{BetService, BetSettings, Placed};
use commands::sportsbook::feed::{Feed, Finished, Simulator, SimulatorSettings};
use commands::sportsbook::live::{LiveCatalogue, LiveFeed, ResultService};
use commands::sportsbook::settlement::Settlement;
use commands::sportsbook::unresulted::VoidUnresulted;
use commands::WalletService;
use domain::bet::{AcceptMode, BetRequest, BetType, Pick};
use domain::catalogue::{Catalogue, GameType};
use domain::result::{SelectionOutcome, SelectionResult};
use domain::wallet::{MovementKind, Pot, WalletAction, WalletCommand, WalletId};
use domain::Currency;
use rust_decimal::Decimal;
use store::db::testing;
use store::{CommandMetrics, Db, RetryPolicy, StoreKind, StoreOptions};

pub const NOW_MS: i64 = 1_800_000_000_000;

/// A feed that serves the simulator's first catalogue and ends the games
/// the test names, each with its first selection won and the rest lost.
pub struct Script {
    catalogue: Catalogue,
    pub ending: Arc<std::sync::Mutex<Vec<u64>>>,
}

impl Script {
    pub fn new() -> Self {
        let mut catalogue = Catalogue::new();
        Simulator::new(SimulatorSettings::default()).start(&mut catalogue, NOW_MS / 1000);
        Self {
            catalogue,
            ending: Default::default(),
        }
    }
}

/// The result the script gives a game: its first selection won, the rest lost.
pub fn finished(catalogue: &Catalogue, game_id: u64) -> Finished {
    let mut selections = Vec::new();
    for market in catalogue.markets_of(game_id) {
        for event in catalogue.events_of(market.id) {
            selections.push(SelectionResult {
                event_id: event.id,
                market_id: market.id,
                outcome: if selections.is_empty() {
                    SelectionOutcome::Won
                } else {
                    SelectionOutcome::Lost
                },
                sp_price: None,
            });
        }
    }
    Finished {
        game_id,
        score: domain::result::FinalScore {
            team1: 1,
            team2: 0,
            first_half: None,
            corners: None,
        },
        selections,
    }
}

impl Feed for Script {
    fn start(&mut self, catalogue: &mut Catalogue, _now_s: i64) {
        *catalogue = self.catalogue.clone();
    }

    fn adopt(&mut self, _catalogue: &Catalogue, _now_s: i64) {}

    fn tick(&mut self, catalogue: &mut Catalogue, _now_s: i64) -> Vec<Finished> {
        let ending = std::mem::take(&mut *self.ending.lock().unwrap());
        let mut done = Vec::new();
        for id in ending {
            if catalogue.games().contains_key(&id) {
                done.push(finished(catalogue, id));
                catalogue.remove_game(id);
            }
        }
        done
    }
}

pub struct Platform {
    pub db: Db,
    pub clock: ManualClock,
    pub live: Arc<LiveCatalogue>,
    pub results: Arc<ResultService>,
    pub wallets: Arc<WalletService>,
    pub bets: Arc<BetService>,
    pub runner: projections::Runner,
    pub settlement: Settlement,
    pub feed: LiveFeed,
    pub ending: Arc<std::sync::Mutex<Vec<u64>>>,
}

impl Platform {
    pub async fn new(kind: StoreKind) -> Platform {
        Self::with_settings(kind, BetSettings::default()).await
    }

    pub async fn with_settings(kind: StoreKind, settings: BetSettings) -> Platform {
        let db = testing::fresh(kind).await;
        let clock = ManualClock::at(NOW_MS);
        let shared: SharedClock = Arc::new(clock.clone());
        let (options, retry, metrics) = (
            StoreOptions::default(),
            RetryPolicy::default(),
            CommandMetrics::default(),
        );
        let live = LiveCatalogue::new(Catalogue::new());
        let results = Arc::new(ResultService::new(&db, options, retry, metrics.clone()));
        let wallets = Arc::new(WalletService::new(&db, options, retry, metrics.clone()));
        let notifications = Arc::new(commands::engagement::notify::Notifications::new(
            db.any.clone(),
            shared.clone(),
            db.kind() == store::StoreKind::Postgres,
        ));
        let safeguards = Arc::new(commands::compliance::safer::Safeguards::new(
            &db,
            options,
            retry,
            metrics.clone(),
            shared.clone(),
            domain::safer::Calendar::default(),
        ));
        let bets = Arc::new(BetService::new(
            &db,
            options,
            retry,
            metrics,
            wallets.clone(),
            live.clone(),
            shared,
            notifications,
            settings,
            safeguards,
        ));
        let backend = match kind {
            StoreKind::Postgres => store::Backend::Postgres,
            StoreKind::Sqlite => store::Backend::Sqlite,
        };
        let runner = projections::Runner::new(
            db.any.clone(),
            backend,
            vec![
                Arc::new(projections::balances::BalanceProjection),
                Arc::new(projections::bets::BetHistoryProjection),
                Arc::new(projections::settlement::SettlementProjection),
            ],
        );
        let settlement = Settlement::new(bets.clone(), db.any.clone());
        let script = Script::new();
        let ending = script.ending.clone();
        let mut feed = LiveFeed::new(&db, Box::new(script));
        feed.step(&live, &results, NOW_MS).await.unwrap();
        Platform {
            db,
            clock,
            live,
            results,
            wallets,
            bets,
            runner,
            settlement,
            feed,
            ending,
        }
    }

    pub fn now_ms(&self) -> i64 {
        use commands::platform::clock::Clock;
        self.clock.now_ms()
    }

    /// One feed step after a second.
    pub async fn tick(&mut self) -> Result<(), commands::sportsbook::live::LiveError> {
        self.clock.advance(1_000);
        let now = self.now_ms();
        self.feed.step(&self.live, &self.results, now).await
    }

    /// The feed ends `game_id` on its next tick.
    pub fn end(&self, game_id: u64) {
        self.ending.lock().unwrap().push(game_id);
    }

    pub async fn deposit(&self, member: &str, amount: i64) {
        let credit = WalletAction::Credit {
            amount: Decimal::from(amount),
            pot: Pot::Main,
            kind: MovementKind::Deposit,
        };
        self.wallets
            .execute(WalletCommand::new(
                WalletId::new(member, Currency::Cny),
                format!("deposit:{member}:{amount}"),
                credit,
            ))
            .await
            .unwrap();
    }

    pub async fn main_balance(&self, member: &str) -> Decimal {
        self.wallets.clear_cache();
        self.wallets
            .load(&WalletId::new(member, Currency::Cny))
            .await
            .unwrap()
            .balances()
            .main
    }

    /// A prematch game (not a race) with its first market's first
    /// selection and price, `n` games into the catalogue.
    pub fn game(&self, n: usize) -> (u64, u64, Decimal) {
        self.live.read(|c| {
            let game = c
                .games()
                .values()
                .filter(|g| g.game_type == GameType::Prematch && !g.is_blocked)
                .filter(|g| g.id < commands::sportsbook::feed::RACE_ID_BASE)
                .nth(n)
                .unwrap();
            let market = c.markets_of(game.id).next().unwrap();
            let event = c.events_of(market.id).next().unwrap();
            (game.id, event.id, event.price)
        })
    }

    /// A single of `stake` on `event_id` at `price`.
    pub async fn bet(&self, member: &str, event_id: u64, price: Decimal, stake: i64) -> Placed {
        self.bet_on(member, &[(event_id, price)], stake).await
    }

    /// A single (one pick) or an express (several) of `stake`.
    pub async fn bet_on(&self, member: &str, picks: &[(u64, Decimal)], stake: i64) -> Placed {
        let request = BetRequest {
            bet_type: if picks.len() == 1 {
                BetType::Single
            } else {
                BetType::Express
            },
            mode: AcceptMode::Any,
            amount: Decimal::from(stake),
            each_way: false,
            sys_bet: None,
            bonus_id: None,
            is_offer: false,
            selections: picks
                .iter()
                .map(|(event_id, price)| Pick {
                    event_id: *event_id,
                    price: *price,
                    banker: false,
                    base: None,
                })
                .collect(),
        };
        self.bets
            .place(member, Currency::Cny, &request, None)
            .await
            .unwrap()
    }

    /// Projections and settlement until nothing is left to do.
    pub async fn settle_all(&self) {
        for _ in 0..20 {
            self.caught_up().await;
            if self.settlement.pass().await.unwrap() == 0 {
                self.caught_up().await;
                if self.settlement.pass().await.unwrap() == 0 {
                    return;
                }
            }
        }
    }

    /// Every projection has applied every committed event (on Postgres it
    /// may have to wait for other tests' open transactions).
    pub async fn caught_up(&self) {
        for name in self.runner.names() {
            self.runner
                .settle(name, std::time::Duration::from_secs(10))
                .await
                .unwrap();
        }
    }

    /// The job that voids selections left without a result for `after`.
    pub fn void_unresulted(&self, after: std::time::Duration) -> VoidUnresulted {
        VoidUnresulted::new(
            self.results.clone(),
            self.db.any.clone(),
            Arc::new(self.clock.clone()),
            after,
        )
    }

    /// Projections and settlement until `bet_id` has a settlement (on
    /// Postgres the projections may wait for other tests' transactions).
    pub async fn settled(&self, bet_id: &str) -> domain::bet::Bet {
        for _ in 0..500 {
            self.settle_all().await;
            let bet = self.bets.load(bet_id).await.unwrap();
            if bet.result_version.is_some() {
                return bet;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        panic!("bet {bet_id} never settled");
    }

    /// Whether the store holds a result event of `game_id`.
    pub async fn resulted(&self, game_id: u64) -> bool {
        let n: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM events WHERE aggregate_type = 'GameResult' AND aggregate_id = $1",
        )
        .bind(game_id.to_string())
        .fetch_one(&self.db.any)
        .await
        .unwrap();
        n > 0
    }

    /// Makes every write of a result event fail (a broken result store),
    /// or heals it.
    pub async fn break_results(&self, broken: bool) {
        let statements: &[&str] = match (self.db.kind(), broken) {
            (StoreKind::Sqlite, true) => &[
                "CREATE TRIGGER fail_results BEFORE INSERT ON events WHEN NEW.aggregate_type = 'GameResult' BEGIN SELECT RAISE(ABORT, 'injected failure'); END",
            ],
            (StoreKind::Sqlite, false) => &["DROP TRIGGER fail_results"],
            (StoreKind::Postgres, true) => &[
                "CREATE FUNCTION fail_results() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$",
                "CREATE TRIGGER fail_results BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.aggregate_type = 'GameResult') EXECUTE FUNCTION fail_results()",
            ],
            (StoreKind::Postgres, false) => &[
                "DROP TRIGGER fail_results ON events",
                "DROP FUNCTION fail_results()",
            ],
        };
        for statement in statements {
            sqlx::query(statement).execute(&self.db.any).await.unwrap();
        }
    }
}
