//! Replay and duplicate-submission guards, kept in process memory.
//!
//! Each `api` process guards the requests it receives; behind a load
//! balancer without stickiness a replayed request could reach another
//! process within the 5-minute window (the signature still binds it to its
//! UniqueId and body, so it can only repeat the same call).

use std::collections::HashMap;
use std::sync::Mutex;

/// A `UniqueId` is valid this long after its timestamp.
pub const UNIQUE_ID_WINDOW_MS: i64 = 300_000;
/// ... and may run this far ahead of the server clock.
pub const UNIQUE_ID_SKEW_MS: i64 = 60_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IdError {
    Malformed,
    Expired,
    Reused,
}

/// The millisecond timestamp of a well-formed UniqueId
/// (13 digits + 6 letters or digits).
pub fn unique_id_time(id: &str) -> Result<i64, IdError> {
    let bytes = id.as_bytes();
    if bytes.len() != 19
        || !bytes[..13].iter().all(u8::is_ascii_digit)
        || !bytes[13..].iter().all(u8::is_ascii_alphanumeric)
    {
        return Err(IdError::Malformed);
    }
    id[..13].parse().map_err(|_| IdError::Malformed)
}

#[derive(Default)]
pub struct UniqueIds {
    seen: Mutex<HashMap<String, i64>>,
}

impl UniqueIds {
    /// Checks freshness only (before the signature is verified).
    pub fn fresh(&self, id: &str, now_ms: i64) -> Result<(), IdError> {
        let at = unique_id_time(id)?;
        if now_ms - at > UNIQUE_ID_WINDOW_MS || at - now_ms > UNIQUE_ID_SKEW_MS {
            return Err(IdError::Expired);
        }
        Ok(())
    }

    /// Records the id; refuses one already used within the window.
    pub fn claim(&self, id: &str, now_ms: i64) -> Result<(), IdError> {
        let at = unique_id_time(id)?;
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() > 100_000 {
            seen.retain(|_, t| now_ms - *t <= UNIQUE_ID_WINDOW_MS + UNIQUE_ID_SKEW_MS);
        }
        if seen.insert(id.to_string(), at).is_some() {
            return Err(IdError::Reused);
        }
        Ok(())
    }
}

/// The -66666..-66668 refusals, with the seconds to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    Repeated { wait: i64 },
    InProgress { wait: i64 },
    TooMany { wait: i64 },
}

impl Refusal {
    pub fn code(self) -> i32 {
        match self {
            Refusal::Repeated { .. } => -66666,
            Refusal::InProgress { .. } => -66667,
            Refusal::TooMany { .. } => -66668,
        }
    }

    pub fn wait(self) -> i64 {
        match self {
            Refusal::Repeated { wait }
            | Refusal::InProgress { wait }
            | Refusal::TooMany { wait } => wait,
        }
    }

    pub fn message(self) -> String {
        let template = match self {
            Refusal::Repeated { .. } => "Repeated submission, please wait {n} seconds.",
            Refusal::InProgress { .. } => {
                "Your previous request is still being processed, please wait {n} seconds."
            }
            Refusal::TooMany { .. } => "Too many submissions, please wait {n} seconds.",
        };
        template.replace("{n}", &self.wait().to_string())
    }
}

/// Identical submissions within this window are refused.
pub const REPEAT_WINDOW_MS: i64 = 3_000;
/// At most this many submissions of one path per device ...
pub const BURST_LIMIT: usize = 10;
/// ... within this window.
pub const BURST_WINDOW_MS: i64 = 10_000;

#[derive(Default)]
struct Entries {
    /// (device, path, body digest) -> (started, finished)
    identical: HashMap<(String, String, String), (i64, Option<i64>)>,
    /// (device, path) -> recent submission times
    recent: HashMap<(String, String), Vec<i64>>,
}

#[derive(Default)]
pub struct Submissions {
    entries: Mutex<Entries>,
}

fn seconds(ms: i64) -> i64 {
    ((ms + 999) / 1000).max(1)
}

impl Submissions {
    /// Admits a submission or says how long to wait. `finish` must follow.
    pub fn begin(
        &self,
        device: &str,
        path: &str,
        digest: &str,
        now_ms: i64,
    ) -> Result<(), Refusal> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.identical.len() > 50_000 {
            entries
                .identical
                .retain(|_, (start, _)| now_ms - *start < REPEAT_WINDOW_MS.max(60_000));
            entries
                .recent
                .retain(|_, times| times.iter().any(|t| now_ms - t < BURST_WINDOW_MS));
        }
        let key = (device.to_string(), path.to_string(), digest.to_string());
        if let Some((started, finished)) = entries.identical.get(&key) {
            match finished {
                None if now_ms - started < 60_000 => {
                    return Err(Refusal::InProgress {
                        wait: seconds(REPEAT_WINDOW_MS),
                    })
                }
                Some(done) if now_ms - done < REPEAT_WINDOW_MS => {
                    return Err(Refusal::Repeated {
                        wait: seconds(REPEAT_WINDOW_MS - (now_ms - done)),
                    })
                }
                _ => {}
            }
        }
        let times = entries
            .recent
            .entry((device.to_string(), path.to_string()))
            .or_default();
        times.retain(|t| now_ms - t < BURST_WINDOW_MS);
        if times.len() >= BURST_LIMIT {
            let oldest = times.first().copied().unwrap_or(now_ms);
            return Err(Refusal::TooMany {
                wait: seconds(BURST_WINDOW_MS - (now_ms - oldest)),
            });
        }
        times.push(now_ms);
        entries.identical.insert(key, (now_ms, None));
        Ok(())
    }

    pub fn finish(&self, device: &str, path: &str, digest: &str, now_ms: i64) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let key = (device.to_string(), path.to_string(), digest.to_string());
        if let Some(entry) = entries.identical.get_mut(&key) {
            entry.1 = Some(now_ms);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn id(at: i64) -> String {
        format!("{at}aB3dE9")
    }

    #[test]
    fn a_unique_id_is_a_millisecond_timestamp_and_six_characters() {
        assert_eq!(unique_id_time(&id(NOW)), Ok(NOW));
        for bad in [
            "",
            "123",
            "1800000000000abcde",
            "1800000000000abcde!",
            "180000000000Xabcdef",
        ] {
            assert_eq!(unique_id_time(bad), Err(IdError::Malformed), "{bad}");
        }
    }

    #[test]
    fn unique_ids_older_than_five_minutes_or_far_ahead_are_expired() {
        let ids = UniqueIds::default();
        assert_eq!(ids.fresh(&id(NOW - 300_000), NOW), Ok(()));
        assert_eq!(ids.fresh(&id(NOW - 300_001), NOW), Err(IdError::Expired));
        assert_eq!(ids.fresh(&id(NOW + 60_001), NOW), Err(IdError::Expired));
    }

    #[test]
    fn a_unique_id_is_accepted_once() {
        let ids = UniqueIds::default();
        assert_eq!(ids.claim(&id(NOW), NOW), Ok(()));
        assert_eq!(ids.claim(&id(NOW), NOW + 5), Err(IdError::Reused));
    }

    #[test]
    fn an_identical_submission_within_three_seconds_must_wait() {
        let s = Submissions::default();
        assert_eq!(s.begin("d", "/api/x", "h", NOW), Ok(()));
        assert_eq!(
            s.begin("d", "/api/x", "h", NOW + 10),
            Err(Refusal::InProgress { wait: 3 })
        );
        s.finish("d", "/api/x", "h", NOW + 100);
        let refusal = s.begin("d", "/api/x", "h", NOW + 1_100).unwrap_err();
        assert_eq!(refusal, Refusal::Repeated { wait: 2 });
        assert_eq!(refusal.code(), -66666);
        assert_eq!(
            refusal.message(),
            "Repeated submission, please wait 2 seconds."
        );
        assert_eq!(s.begin("d", "/api/x", "h", NOW + 3_200), Ok(()));
        assert_eq!(s.begin("other", "/api/x", "h", NOW + 10), Ok(()));
    }

    #[test]
    fn more_than_ten_submissions_of_a_path_in_ten_seconds_must_wait() {
        let s = Submissions::default();
        for i in 0..10 {
            assert_eq!(s.begin("d", "/api/x", &i.to_string(), NOW + i), Ok(()));
        }
        let refusal = s.begin("d", "/api/x", "new", NOW + 20).unwrap_err();
        assert_eq!(refusal.code(), -66668);
        assert_eq!(refusal.wait(), 10);
        assert_eq!(s.begin("d", "/api/x", "new", NOW + 10_001), Ok(()));
    }
}
