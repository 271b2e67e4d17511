//! Sliding-window rate limits, in process memory (per `api` process).

use std::collections::HashMap;
use std::sync::Mutex;

pub struct RateLimit {
    limit: usize,
    window_ms: i64,
    hits: Mutex<HashMap<String, Vec<i64>>>,
}

impl RateLimit {
    pub fn new(limit: usize, window_ms: i64) -> Self {
        Self {
            limit,
            window_ms,
            hits: Mutex::new(HashMap::new()),
        }
    }

    /// `Some(seconds to wait)` when `key` is at its limit, without counting.
    pub fn full(&self, key: &str, now_ms: i64) -> Option<i64> {
        let hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        let times: Vec<i64> = hits
            .get(key)
            .map(|t| {
                t.iter()
                    .copied()
                    .filter(|t| now_ms - t < self.window_ms)
                    .collect()
            })
            .unwrap_or_default();
        if times.len() >= self.limit {
            let oldest = times.first().copied().unwrap_or(now_ms);
            Some(((self.window_ms - (now_ms - oldest)) + 999) / 1000)
        } else {
            None
        }
    }

    /// Counts a hit for `key`; `Err(seconds to wait)` when over the limit.
    pub fn hit(&self, key: &str, now_ms: i64) -> Result<(), i64> {
        let mut hits = self.hits.lock().unwrap_or_else(|p| p.into_inner());
        if hits.len() > 100_000 {
            let window = self.window_ms;
            hits.retain(|_, times| times.iter().any(|t| now_ms - t < window));
        }
        let times = hits.entry(key.to_string()).or_default();
        times.retain(|t| now_ms - t < self.window_ms);
        if times.len() >= self.limit {
            let oldest = times.first().copied().unwrap_or(now_ms);
            return Err(((self.window_ms - (now_ms - oldest)) + 999) / 1000);
        }
        times.push(now_ms);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_beyond_the_limit_wait_for_the_window() {
        let limit = RateLimit::new(3, 60_000);
        for t in 0..3 {
            assert_eq!(limit.hit("ip:1", t), Ok(()));
        }
        assert_eq!(limit.hit("ip:1", 10_000), Err(50));
        assert_eq!(limit.hit("ip:2", 10_000), Ok(()));
        assert_eq!(limit.hit("ip:1", 60_001), Ok(()));
    }
}
