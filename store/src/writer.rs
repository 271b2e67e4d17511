//! SQLite's writer turns: one writer at a time per database file in this
//! process, bets first.
//!
//! SQLite has one writer. The writers of this process take turns here
//! instead of meeting in SQLite's busy handler (whose back-off sleeps up to
//! 100 ms a try). Two kinds of turn: a **first** turn (a bet's group commit
//! and the other writes a request waits for) is given before any waiting
//! background turn (the projection runner, the sealer, the process
//! managers' passes), so a bet waits for the write in progress at most,
//! not for every background batch queued before it. A background writer
//! that has waited [`BACKGROUND_WAITS_AT_MOST`] goes next all the same, so
//! a steady stream of bets delays the read models but never stops them;
//! after such an overdue turn a waiting first turn goes before the next
//! overdue one, so several background writers queued together (the
//! runner and the passes of the process managers) take every other turn,
//! not all the turns while bets wait. Within a kind, turns go in the order
//! they were asked for.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::oneshot;

/// How long a background turn waits behind first turns before it goes
/// ahead of them.
pub const BACKGROUND_WAITS_AT_MOST: Duration = Duration::from_millis(20);

/// The writer turns of one database file (shared through an `Arc`).
#[derive(Default)]
pub struct WriterTurns {
    state: Mutex<State>,
}

/// The shared handle every writer of a file holds.
pub type WriterLock = Arc<WriterTurns>;

#[derive(Default)]
struct State {
    held: bool,
    /// The turn in progress was given to a background writer because it
    /// had waited too long: a first turn waiting now goes next.
    overdue_went: bool,
    first: VecDeque<oneshot::Sender<()>>,
    background: VecDeque<(Instant, oneshot::Sender<()>)>,
}

/// A writer's turn; the next one's begins when it is dropped.
#[must_use = "the turn ends when this is dropped"]
pub struct Turn {
    turns: Arc<WriterTurns>,
}

impl std::fmt::Debug for WriterTurns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterTurns").finish_non_exhaustive()
    }
}

impl WriterTurns {
    pub fn new() -> WriterLock {
        Arc::new(Self::default())
    }

    /// A turn for a write a request waits for: before background turns.
    pub async fn first_turn(self: &Arc<Self>) -> Turn {
        self.take(true).await
    }

    /// A turn for background work (read models, process managers).
    pub async fn turn(self: &Arc<Self>) -> Turn {
        self.take(false).await
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    async fn take(self: &Arc<Self>, first: bool) -> Turn {
        loop {
            let rx = {
                let mut state = self.state();
                if !state.held {
                    state.held = true;
                    return Turn {
                        turns: self.clone(),
                    };
                }
                let (tx, rx) = oneshot::channel();
                if first {
                    state.first.push_back(tx);
                } else {
                    state.background.push_back((Instant::now(), tx));
                }
                rx
            };
            let mut waiting = Waiting {
                turns: self.clone(),
                rx: Some(rx),
            };
            let handed = waiting.rx.as_mut().expect("set above").await.is_ok();
            waiting.rx = None;
            if handed {
                return Turn {
                    turns: self.clone(),
                };
            }
            // Never seen: a sender dropped unsent; ask again.
        }
    }

    /// Hands the turn to the next waiter, or frees it.
    fn pass_on(&self) {
        let mut state = self.state();
        loop {
            // Right after an overdue turn a waiting first turn goes.
            let first_due = state.overdue_went && !state.first.is_empty();
            let overdue = !first_due
                && state
                    .background
                    .front()
                    .is_some_and(|(since, _)| since.elapsed() >= BACKGROUND_WAITS_AT_MOST);
            let next = if overdue {
                state.background.pop_front().map(|(_, tx)| tx)
            } else if let Some(tx) = state.first.pop_front() {
                Some(tx)
            } else {
                state.background.pop_front().map(|(_, tx)| tx)
            };
            match next {
                // A waiter gone meanwhile (its future dropped): the next.
                Some(tx) => {
                    if tx.send(()).is_ok() {
                        state.overdue_went = overdue;
                        return;
                    }
                }
                None => {
                    state.held = false;
                    state.overdue_went = false;
                    return;
                }
            }
        }
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        self.turns.pass_on();
    }
}

/// A waiter's place; if its future is dropped after the turn was handed to
/// it but before it took it, the turn is passed on rather than lost.
struct Waiting {
    turns: Arc<WriterTurns>,
    rx: Option<oneshot::Receiver<()>>,
}

impl Drop for Waiting {
    fn drop(&mut self) {
        if let Some(mut rx) = self.rx.take() {
            rx.close();
            if rx.try_recv().is_ok() {
                self.turns.pass_on();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_first_turn_goes_before_background_turns_asked_for_earlier() {
        let turns = WriterTurns::new();
        let held = turns.turn().await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (name, first) in [
            ("background 1", false),
            ("background 2", false),
            ("bet", true),
        ] {
            let (turns, order) = (turns.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = if first {
                    turns.first_turn().await
                } else {
                    turns.turn().await
                };
                order.lock().unwrap().push(name);
            }));
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            ["bet", "background 1", "background 2"]
        );
    }

    #[tokio::test]
    async fn a_background_turn_that_waited_too_long_goes_before_the_next_first_turn() {
        let turns = WriterTurns::new();
        let held = turns.first_turn().await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let background = {
            let (turns, order) = (turns.clone(), order.clone());
            tokio::spawn(async move {
                let _turn = turns.turn().await;
                order.lock().unwrap().push("background");
            })
        };
        tokio::time::sleep(BACKGROUND_WAITS_AT_MOST + Duration::from_millis(10)).await;
        let bet = {
            let (turns, order) = (turns.clone(), order.clone());
            tokio::spawn(async move {
                let _turn = turns.first_turn().await;
                order.lock().unwrap().push("bet");
            })
        };
        tokio::time::sleep(Duration::from_millis(5)).await;
        drop(held);
        background.await.unwrap();
        bet.await.unwrap();
        assert_eq!(*order.lock().unwrap(), ["background", "bet"]);
    }

    #[tokio::test]
    async fn after_an_overdue_background_turn_a_waiting_first_turn_goes_before_the_next_overdue_one(
    ) {
        let turns = WriterTurns::new();
        let held = turns.first_turn().await;
        let order = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for name in ["background 1", "background 2"] {
            let (turns, order) = (turns.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = turns.turn().await;
                order.lock().unwrap().push(name);
            }));
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(BACKGROUND_WAITS_AT_MOST + Duration::from_millis(10)).await;
        for name in ["bet 1", "bet 2"] {
            let (turns, order) = (turns.clone(), order.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = turns.first_turn().await;
                order.lock().unwrap().push(name);
            }));
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
        drop(held);
        for task in tasks {
            task.await.unwrap();
        }
        assert_eq!(
            *order.lock().unwrap(),
            ["background 1", "bet 1", "background 2", "bet 2"]
        );
    }

    #[tokio::test]
    async fn a_waiter_dropped_before_its_turn_does_not_keep_the_turn() {
        let turns = WriterTurns::new();
        let held = turns.first_turn().await;
        let gone = {
            let turns = turns.clone();
            tokio::spawn(async move {
                let _turn = turns.first_turn().await;
            })
        };
        tokio::time::sleep(Duration::from_millis(5)).await;
        gone.abort();
        let _ = gone.await;
        drop(held);
        // The turn is free again: taken at once.
        let _turn = tokio::time::timeout(Duration::from_secs(1), turns.turn())
            .await
            .expect("the turn was passed on");
    }

    #[tokio::test]
    async fn one_writer_at_a_time() {
        let turns = WriterTurns::new();
        let inside = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for i in 0..50 {
            let (turns, inside) = (turns.clone(), inside.clone());
            tasks.push(tokio::spawn(async move {
                let _turn = if i % 3 == 0 {
                    turns.first_turn().await
                } else {
                    turns.turn().await
                };
                assert_eq!(inside.fetch_add(1, std::sync::atomic::Ordering::SeqCst), 0);
                tokio::task::yield_now().await;
                inside.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
            }));
        }
        for task in tasks {
            task.await.unwrap();
        }
    }
}
