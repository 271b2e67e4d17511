//! Time as a dependency, so rules about windows and expiry can be tested
//! without sleeping.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

pub trait Clock: Send + Sync {
    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> i64;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or_default()
    }
}

/// A clock tests move by hand.
#[derive(Clone, Default)]
pub struct ManualClock(Arc<AtomicI64>);

impl ManualClock {
    pub fn at(ms: i64) -> Self {
        Self(Arc::new(AtomicI64::new(ms)))
    }

    pub fn advance(&self, ms: i64) {
        self.0.fetch_add(ms, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now_ms(&self) -> i64 {
        self.0.load(Ordering::SeqCst)
    }
}

pub type SharedClock = Arc<dyn Clock>;

/// A clock running `offset` ms ahead of another. DEMO=1 only: the seasons
/// service reads time through one, so the demo aid `POST /api/dev/season/end`
/// can move the seasons' time to the running season's end (the boundary
/// job, the ranking and the rank rewards then run exactly as at a real
/// season end). Never moves backwards.
pub struct OffsetClock {
    base: SharedClock,
    offset: AtomicI64,
}

impl OffsetClock {
    pub fn new(base: SharedClock) -> Self {
        Self {
            base,
            offset: AtomicI64::new(0),
        }
    }

    /// Moves this clock forward to `at_ms` (no-op if it is already there).
    pub fn advance_to(&self, at_ms: i64) {
        let ahead = at_ms - self.base.now_ms();
        self.offset.fetch_max(ahead, Ordering::SeqCst);
    }

    pub fn offset_ms(&self) -> i64 {
        self.offset.load(Ordering::SeqCst)
    }
}

impl Clock for OffsetClock {
    fn now_ms(&self) -> i64 {
        self.base.now_ms() + self.offset.load(Ordering::SeqCst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_clock_moves_forward_only() {
        let base = ManualClock::at(1_000);
        let clock = OffsetClock::new(Arc::new(base.clone()));
        assert_eq!(clock.now_ms(), 1_000);
        clock.advance_to(5_000);
        assert_eq!(clock.now_ms(), 5_000);
        clock.advance_to(2_000);
        assert_eq!(clock.now_ms(), 5_000, "never backwards");
        base.advance(10);
        assert_eq!(clock.now_ms(), 5_010);
    }
}
