use std::collections::BTreeMap;

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
}

impl DomainEvent for ResultEvent {
    fn event_type(&self) -> String {
        match self {
            ResultEvent::GameResulted { .. } => "GameResulted",
            ResultEvent::ResultCorrected { .. } => "ResultCorrected",
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    pub game_id: Option<u64>,
    pub score: Option<FinalScore>,
    /// event id -> outcome, as last recorded or corrected.
    pub outcomes: BTreeMap<u64, SelectionOutcome>,
    /// event id -> starting price, for the selections that have one.
    #[serde(default)]
    pub sp_prices: BTreeMap<u64, Decimal>,
    pub corrections: u32,
}

impl GameResult {
    pub fn decide(&self, command: ResultCommand) -> Result<Vec<ResultEvent>, ResultError> {
        match command {
            ResultCommand::Record {
                game_id,
                score,
                selections,
                at_ms,
            } => {
                if self.game_id.is_some() {
                    return Err(ResultError::AlreadyResulted);
                }
                Ok(vec![ResultEvent::GameResulted {
                    game_id,
                    score,
                    selections,
                    at_ms,
                }])
            }
            ResultCommand::Correct {
                score,
                selections,
                at_ms,
            } => {
                let game_id = self.game_id.ok_or(ResultError::NotResulted)?;
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
        let (ResultEvent::GameResulted {
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
        }) = event;
        if self.game_id.is_some() {
            self.corrections += 1;
        }
        self.game_id = Some(game_id);
        self.score = Some(score);
        self.sp_prices = selections
            .iter()
            .filter_map(|s| s.sp_price.map(|sp| (s.event_id, sp)))
            .collect();
        self.outcomes = selections
            .into_iter()
            .map(|s| (s.event_id, s.outcome))
            .collect();
    }
}
