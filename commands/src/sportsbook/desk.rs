//! The results desk: staff (the trader role) enter a game's result when the
//! feed has none, correct it, and void a game or a market.
//!
//! Every decision is a `GameResult` command carrying the staff member's id
//! and role and the reason in the event metadata; settlement follows from
//! the result events as it does for the feed's, so a void selection returns
//! its bets' stakes (a single's stake back, a multiple settles on its other
//! legs) and a correction re-settles with compensating events.
//!
//! Which selections a decision covers: the game's (or market's) selections
//! in the live catalogue, plus every selection a bet is on (the
//! `settlement` projection's legs), so a game that has left the catalogue
//! can still be resulted or voided. A result entry computes each
//! selection's outcome from the score with the same rules as the feed
//! (`domain::result::settle`); outcomes the trader gives override them, and
//! a selection whose market has no rule is left to the trader (or to the
//! void of unresulted selections).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use domain::result::{
    settle, FinalScore, GameResult, ResultCommand, ResultError, SelectionOutcome, SelectionResult,
};
use rust_decimal::Decimal;
use sqlx::AnyPool;

use crate::platform::clock::SharedClock;
use crate::sportsbook::bets::BetService;
use crate::sportsbook::cashout::Decider;
use crate::sportsbook::live::{LiveCatalogue, ResultService};
use store::framework::CommandError;

/// What a desk decision did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeskAction {
    Recorded,
    Corrected,
    Voided,
    /// The same decision again: nothing changed.
    Unchanged,
}

#[derive(Debug, thiserror::Error)]
pub enum DeskError {
    #[error("Game not found")]
    GameNotFound,
    #[error("Market not found")]
    MarketNotFound,
    #[error("Invalid request parameters: {0}")]
    Invalid(String),
    #[error("internal: {0}")]
    Internal(String),
}

impl From<sqlx::Error> for DeskError {
    fn from(e: sqlx::Error) -> Self {
        DeskError::Internal(e.to_string())
    }
}

impl From<CommandError<ResultError>> for DeskError {
    fn from(e: CommandError<ResultError>) -> Self {
        DeskError::Internal(e.to_string())
    }
}

/// What the desk knows of a selection: enough to settle it from a score.
#[derive(Debug, Clone)]
struct Known {
    market_id: u64,
    market_type: String,
    event_type: String,
    base: Option<Decimal>,
}

pub struct ResultDesk {
    results: Arc<ResultService>,
    live: Arc<LiveCatalogue>,
    bets: Arc<BetService>,
    pool: AnyPool,
    clock: SharedClock,
}

fn metadata(who: &Decider, reason: &str) -> HashMap<String, String> {
    HashMap::from([
        ("staff_id".to_string(), who.staff_id.clone()),
        ("staff_role".to_string(), who.role.clone()),
        ("reason".to_string(), reason.to_string()),
    ])
}

impl ResultDesk {
    pub fn new(
        results: Arc<ResultService>,
        live: Arc<LiveCatalogue>,
        bets: Arc<BetService>,
        pool: AnyPool,
        clock: SharedClock,
    ) -> Self {
        Self {
            results,
            live,
            bets,
            pool,
            clock,
        }
    }

    /// The game's selections: the live catalogue's, and those bets are on.
    async fn known(&self, game_id: u64) -> Result<BTreeMap<u64, Known>, DeskError> {
        let mut known: BTreeMap<u64, Known> = self.live.read(|c| {
            c.markets_of(game_id)
                .flat_map(|m| {
                    c.events_of(m.id).map(move |e| {
                        (
                            e.id,
                            Known {
                                market_id: m.id,
                                market_type: m.market_type.clone(),
                                event_type: e.type_.clone(),
                                base: e.base.or(m.base),
                            },
                        )
                    })
                })
                .collect()
        });
        let legs = projections::settlement::selections_of(&self.pool, game_id, None).await?;
        for (event_id, market_id) in legs {
            if known.contains_key(&event_id) {
                continue;
            }
            let Some(bet_id) = projections::settlement::a_bet_on(&self.pool, event_id).await?
            else {
                continue;
            };
            let bet = self
                .bets
                .load(&bet_id)
                .await
                .map_err(|e| DeskError::Internal(e.to_string()))?;
            let leg = bet
                .placement
                .iter()
                .flat_map(|p| p.bet.legs.iter())
                .find(|l| l.event_id == event_id);
            if let Some(leg) = leg {
                known.insert(
                    event_id,
                    Known {
                        market_id,
                        market_type: leg.names.market_type.clone(),
                        event_type: leg.names.event_type.clone(),
                        base: leg.base,
                    },
                );
            }
        }
        Ok(known)
    }

    async fn current(&self, game_id: u64) -> Result<GameResult, DeskError> {
        self.results
            .load(game_id)
            .await
            .map_err(DeskError::Internal)
    }

    /// Records the game's result from `score` (and the outcomes given), or
    /// corrects the result it has.
    pub async fn enter_result(
        &self,
        game_id: u64,
        score: FinalScore,
        given: &[(u64, SelectionOutcome)],
        who: &Decider,
        reason: &str,
    ) -> Result<DeskAction, DeskError> {
        let known = self.known(game_id).await?;
        let current = self.current(game_id).await?;
        if known.is_empty() && current.game_id.is_none() {
            return Err(DeskError::GameNotFound);
        }
        let given: BTreeMap<u64, SelectionOutcome> = given.iter().copied().collect();
        let mut selections = Vec::new();
        for (event_id, k) in &known {
            let outcome = given
                .get(event_id)
                .copied()
                .or_else(|| settle(&k.market_type, &k.event_type, k.base, &score));
            if let Some(outcome) = outcome {
                selections.push(SelectionResult {
                    event_id: *event_id,
                    market_id: k.market_id,
                    outcome,
                    sp_price: current.sp_prices.get(event_id).copied(),
                });
            }
        }
        for (event_id, outcome) in &given {
            if known.contains_key(event_id) {
                continue;
            }
            let market_id = current.markets.get(event_id).copied().ok_or_else(|| {
                DeskError::Invalid(format!("selection {event_id} is not in game {game_id}"))
            })?;
            selections.push(SelectionResult {
                event_id: *event_id,
                market_id,
                outcome: *outcome,
                sp_price: current.sp_prices.get(event_id).copied(),
            });
        }
        let at_ms = self.clock.now_ms();
        let (command, action) = if current.is_resulted() {
            let command = ResultCommand::Correct {
                score,
                selections,
                at_ms,
            };
            (command, DeskAction::Corrected)
        } else {
            let command = ResultCommand::Record {
                game_id,
                score,
                selections,
                at_ms,
            };
            (command, DeskAction::Recorded)
        };
        match self
            .results
            .decide(game_id, command, metadata(who, reason))
            .await
        {
            Ok(()) => Ok(action),
            Err(CommandError::Rejected(ResultError::NothingToCorrect)) => Ok(DeskAction::Unchanged),
            // The feed's result came in between: try again as a correction.
            Err(CommandError::Rejected(ResultError::AlreadyResulted)) => {
                Box::pin(self.enter_result(
                    game_id,
                    score,
                    &given.into_iter().collect::<Vec<_>>(),
                    who,
                    reason,
                ))
                .await
            }
            Err(e) => Err(e.into()),
        }
    }

    /// Voids the whole game: every selection returned.
    pub async fn void_game(
        &self,
        game_id: u64,
        who: &Decider,
        reason: &str,
    ) -> Result<DeskAction, DeskError> {
        let known = self.known(game_id).await?;
        let current = self.current(game_id).await?;
        if known.is_empty() && current.game_id.is_none() {
            return Err(DeskError::GameNotFound);
        }
        if current.void {
            return Ok(DeskAction::Unchanged);
        }
        let command = ResultCommand::VoidGame {
            game_id,
            selections: known.iter().map(|(e, k)| (*e, k.market_id)).collect(),
            at_ms: self.clock.now_ms(),
        };
        self.results
            .decide(game_id, command, metadata(who, reason))
            .await?;
        Ok(DeskAction::Voided)
    }

    /// Voids one market: its selections returned for good.
    pub async fn void_market(
        &self,
        market_id: u64,
        who: &Decider,
        reason: &str,
    ) -> Result<(u64, DeskAction), DeskError> {
        let listed = self
            .live
            .read(|c| c.markets().get(&market_id).map(|m| m.game_id));
        let game_id = match listed {
            Some(game_id) => game_id,
            None => projections::settlement::game_of_market(&self.pool, market_id)
                .await?
                .ok_or(DeskError::MarketNotFound)?,
        };
        let mut selections: BTreeMap<u64, u64> = self
            .live
            .read(|c| c.events_of(market_id).map(|e| (e.id, market_id)).collect());
        selections.extend(
            projections::settlement::selections_of(&self.pool, game_id, Some(market_id)).await?,
        );
        let current = self.current(game_id).await?;
        if selections.keys().all(|e| current.voided.contains(e)) {
            return Ok((game_id, DeskAction::Unchanged));
        }
        let command = ResultCommand::VoidSelections {
            game_id,
            market_id: Some(market_id),
            selections: selections.into_iter().collect(),
            at_ms: self.clock.now_ms(),
        };
        self.results
            .decide(game_id, command, metadata(who, reason))
            .await?;
        Ok((game_id, DeskAction::Voided))
    }
}
