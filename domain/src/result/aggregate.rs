use std::collections::{BTreeMap, BTreeSet};

use cqrs_es::event_sink::EventSink;
use cqrs_es::{Aggregate, DomainEvent};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::{FinalScore, SelectionOutcome};

/// One selection's settled outcome.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelectionResult {
    pub event_id: u64,
    pub market_id: u64,
    pub outcome: SelectionOutcome,
    /// The starting price (SP) of a selection whose market offers SP: its
    /// price at the off. SP bets on it settle at this price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sp_price: Option<Decimal>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ResultCommand {
    Record {
        game_id: u64,
        score: FinalScore,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
    Correct {
        score: FinalScore,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
    /// Void the whole game: every selection returned (its bets' stakes
    /// come back). `selections`: the game's (event id, market id) pairs
    /// the caller knows; those of an earlier result are added.
    VoidGame {
        game_id: u64,
        selections: Vec<(u64, u64)>,
        at_ms: i64,
    },
    /// Void some selections (a market, or those that never got a result):
    /// they are returned and stay returned whatever a later result says.
    VoidSelections {
        game_id: u64,
        /// The market voided, when it is a market.
        market_id: Option<u64>,
        selections: Vec<(u64, u64)>,
        at_ms: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum ResultEvent {
    GameResulted {
        game_id: u64,
        score: FinalScore,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
    ResultCorrected {
        game_id: u64,
        score: FinalScore,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
    /// The whole game is void: every selection returned.
    GameVoided {
        game_id: u64,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
    /// Some selections are void (returned) for good; the rest of the game
    /// keeps (or still awaits) its result.
    SelectionsVoided {
        game_id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        market_id: Option<u64>,
        selections: Vec<SelectionResult>,
        at_ms: i64,
    },
}

impl ResultEvent {
    /// The selections' outcomes this event states (what settlement reads).
    pub fn selections(&self) -> &[SelectionResult] {
        match self {
            ResultEvent::GameResulted { selections, .. }
            | ResultEvent::ResultCorrected { selections, .. }
            | ResultEvent::GameVoided { selections, .. }
            | ResultEvent::SelectionsVoided { selections, .. } => selections,
        }
    }
}

impl DomainEvent for ResultEvent {
    fn event_type(&self) -> String {
        match self {
            ResultEvent::GameResulted { .. } => "GameResulted",
            ResultEvent::ResultCorrected { .. } => "ResultCorrected",
            ResultEvent::GameVoided { .. } => "GameVoided",
            ResultEvent::SelectionsVoided { .. } => "SelectionsVoided",
        }
        .to_string()
    }

    fn event_version(&self) -> String {
        "1.0".to_string()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultError {
    #[error("the game already has a result; correct it instead")]
    AlreadyResulted,
    #[error("the game has no result to correct")]
    NotResulted,
    #[error("the correction changes nothing")]
    NothingToCorrect,
}

/// A game's result: one per game id.
///
/// Rules: recorded once (the feed, or a trader); corrected any number of
/// times after that, each correction a new event; voided whole (every
/// selection returned; that counts as its result, a later correction may
/// still give it a real one), or in part: voided selections (a market, or
/// selections that never got a result) are returned for good, whatever a
/// later result or correction says of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    /// Set by the first event of any kind.
    pub game_id: Option<u64>,
    /// Set by a result or a correction.
    pub score: Option<FinalScore>,
    /// event id -> outcome, as last recorded or corrected.
    pub outcomes: BTreeMap<u64, SelectionOutcome>,
    /// event id -> starting price, for the selections that have one.
    #[serde(default)]
    pub sp_prices: BTreeMap<u64, Decimal>,
    pub corrections: u32,
    /// The whole game is void (until a correction gives it a result).
    #[serde(default)]
    pub void: bool,
    /// Selections voided for good.
    #[serde(default)]
    pub voided: BTreeSet<u64>,
    /// event id -> market id of every selection named so far.
    #[serde(default)]
    pub markets: BTreeMap<u64, u64>,
}

fn returned((event_id, market_id): (u64, u64)) -> SelectionResult {
    SelectionResult {
        event_id,
        market_id,
        outcome: SelectionOutcome::Returned,
        sp_price: None,
    }
}

impl GameResult {
    /// Whether the game has its result (recorded, or voided whole).
    pub fn is_resulted(&self) -> bool {
        self.score.is_some() || self.void
    }

    /// `selections` with every voided selection returned (added where
    /// missing).
    fn with_voids(&self, selections: Vec<SelectionResult>) -> Vec<SelectionResult> {
        let mut out: Vec<SelectionResult> = selections
            .into_iter()
            .map(|s| match self.voided.contains(&s.event_id) {
                true => returned((s.event_id, s.market_id)),
                false => s,
            })
            .collect();
        for event_id in &self.voided {
            if !out.iter().any(|s| s.event_id == *event_id) {
                let market_id = self.markets.get(event_id).copied().unwrap_or_default();
                out.push(returned((*event_id, market_id)));
            }
        }
        out
    }

    pub fn decide(&self, command: ResultCommand) -> Result<Vec<ResultEvent>, ResultError> {
        match command {
            ResultCommand::Record {
                game_id,
                score,
                selections,
                at_ms,
            } => {
                if self.is_resulted() {
                    return Err(ResultError::AlreadyResulted);
                }
                Ok(vec![ResultEvent::GameResulted {
                    game_id,
                    score,
                    selections: self.with_voids(selections),
                    at_ms,
                }])
            }
            ResultCommand::VoidGame {
                game_id,
                selections,
                at_ms,
            } => {
                if self.void {
                    return Ok(vec![]);
                }
                let mut all: BTreeMap<u64, u64> = selections.into_iter().collect();
                for event_id in self.outcomes.keys() {
                    let market_id = self.markets.get(event_id).copied().unwrap_or_default();
                    all.entry(*event_id).or_insert(market_id);
                }
                Ok(vec![ResultEvent::GameVoided {
                    game_id: self.game_id.unwrap_or(game_id),
                    selections: all.into_iter().map(returned).collect(),
                    at_ms,
                }])
            }
            ResultCommand::VoidSelections {
                game_id,
                market_id,
                selections,
                at_ms,
            } => {
                let fresh: Vec<SelectionResult> = selections
                    .into_iter()
                    .filter(|(event_id, _)| !self.voided.contains(event_id))
                    .filter(|(event_id, _)| {
                        !(self.void
                            && self.outcomes.get(event_id) == Some(&SelectionOutcome::Returned))
                    })
                    .collect::<BTreeMap<u64, u64>>()
                    .into_iter()
                    .map(returned)
                    .collect();
                if fresh.is_empty() {
                    return Ok(vec![]);
                }
                Ok(vec![ResultEvent::SelectionsVoided {
                    game_id: self.game_id.unwrap_or(game_id),
                    market_id,
                    selections: fresh,
                    at_ms,
                }])
            }
            ResultCommand::Correct {
                score,
                selections,
                at_ms,
            } => {
                if !self.is_resulted() {
                    return Err(ResultError::NotResulted);
                }
                let game_id = self.game_id.ok_or(ResultError::NotResulted)?;
                let selections = self.with_voids(selections);
                let same = self.score == Some(score)
                    && selections.len() == self.outcomes.len()
                    && selections.iter().all(|s| {
                        self.outcomes.get(&s.event_id) == Some(&s.outcome)
                            && self.sp_prices.get(&s.event_id) == s.sp_price.as_ref()
                    });
                if same {
                    return Err(ResultError::NothingToCorrect);
                }
                Ok(vec![ResultEvent::ResultCorrected {
                    game_id,
                    score,
                    selections,
                    at_ms,
                }])
            }
        }
    }
}

impl Aggregate for GameResult {
    const TYPE: &'static str = "GameResult";
    type Command = ResultCommand;
    type Event = ResultEvent;
    type Error = ResultError;
    type Services = ();

    async fn handle(
        &mut self,
        command: Self::Command,
        _services: &Self::Services,
        sink: &EventSink<Self>,
    ) -> Result<(), Self::Error> {
        for event in self.decide(command)? {
            sink.write(event, self).await;
        }
        Ok(())
    }

    fn apply(&mut self, event: Self::Event) {
        for s in event.selections() {
            self.markets.insert(s.event_id, s.market_id);
        }
        match event {
            ResultEvent::GameResulted {
                game_id,
                score,
                selections,
                ..
            }
            | ResultEvent::ResultCorrected {
                game_id,
                score,
                selections,
                ..
            } => {
                if self.is_resulted() {
                    self.corrections += 1;
                }
                self.game_id = Some(game_id);
                self.score = Some(score);
                self.void = false;
                self.sp_prices = selections
                    .iter()
                    .filter_map(|s| s.sp_price.map(|sp| (s.event_id, sp)))
                    .collect();
                self.outcomes = selections
                    .into_iter()
                    .map(|s| (s.event_id, s.outcome))
                    .collect();
            }
            ResultEvent::GameVoided {
                game_id,
                selections,
                ..
            } => {
                self.game_id = Some(game_id);
                self.score = None;
                self.void = true;
                self.sp_prices.clear();
                self.outcomes = selections
                    .into_iter()
                    .map(|s| (s.event_id, s.outcome))
                    .collect();
            }
            ResultEvent::SelectionsVoided {
                game_id,
                selections,
                ..
            } => {
                self.game_id = Some(game_id);
                for s in selections {
                    self.voided.insert(s.event_id);
                    self.sp_prices.remove(&s.event_id);
                    self.outcomes.insert(s.event_id, s.outcome);
                }
            }
        }
    }
}
