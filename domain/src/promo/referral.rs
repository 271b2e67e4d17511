//! Referrals (spec 001 sections 2.1 /recommendedgift, 2.12 referral rules
//! and records, 3 referral record, 5, 7.2 user/invite and invitetemplate,
//! 9): the reward is due when the referee has deposited at least 500 and
//! 30 days have passed since they registered; the gift (58) is
//! withdrawable after double turnover.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReferralSettings {
    /// Credited deposits the referee needs in total.
    pub min_deposit: Decimal,
    /// The referrer's gift.
    pub gift: Decimal,
    /// Days after the referee registered before the gift is due.
    pub days: u32,
    /// Turnover before the gift can be withdrawn, as a multiple of it.
    pub turnover_multiple: Decimal,
}

impl Default for ReferralSettings {
    fn default() -> Self {
        Self {
            min_deposit: Decimal::from(500),
            gift: Decimal::from(58),
            days: 30,
            turnover_multiple: Decimal::from(2),
        }
    }
}

impl ReferralSettings {
    pub fn check(&self) -> Result<(), String> {
        let money =
            |d: Decimal| d >= Decimal::ZERO && d <= Decimal::from(1_000_000) && d.scale() <= 2;
        if !money(self.min_deposit) || !money(self.gift) || self.gift.is_zero() {
            return Err("min_deposit and gift 0 to 1000000 (gift above 0)".into());
        }
        if self.days > 365
            || self.turnover_multiple < Decimal::ZERO
            || self.turnover_multiple > Decimal::from(100)
        {
            return Err("days 0 to 365, turnover_multiple 0 to 100".into());
        }
        Ok(())
    }

    /// Due exactly when both conditions hold: deposits reached the
    /// minimum and `days` full days have passed since registration.
    pub fn due(&self, registered_ms: i64, deposits: Decimal, now_ms: i64) -> bool {
        deposits >= self.min_deposit && now_ms >= registered_ms + self.days as i64 * super::DAY_MS
    }
}

/// Why a referral is refused (documented in docs/promotions.md).
pub mod refusal {
    pub const SELF: &str = "self-referral: the referee registered on a device of the referrer";
    pub const SHARED_DEVICE: &str = "one device behind several referees";
    pub const SHARED_ACCOUNT: &str = "one payment account behind several referees";
}

const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";

/// A 6-character invite code (letters and digits without the look-alikes
/// 0/O and 1/I) from random bits.
pub fn invite_code(bits: u64) -> String {
    (0..6)
        .map(|i| ALPHABET[((bits >> (i * 5)) & 31) as usize] as char)
        .collect()
}

/// Record action (spec 001 section 3): 1 first deposit, otherwise
/// promotion (2: registered through the invitation, no deposit yet).
pub fn action(has_deposited: bool) -> i32 {
    if has_deposited {
        1
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn the_reward_is_due_exactly_when_500_was_deposited_and_30_days_passed() {
        let s = ReferralSettings::default();
        let day = super::super::DAY_MS;
        assert!(!s.due(0, dec!(499.99), 31 * day));
        assert!(!s.due(0, dec!(500), 30 * day - 1));
        assert!(s.due(0, dec!(500), 30 * day));
        assert_eq!((s.gift, s.turnover_multiple), (dec!(58), dec!(2)));
    }

    #[test]
    fn invite_codes_are_6_letters_or_digits() {
        for bits in [0u64, u64::MAX, 0x1234_5678_9abc] {
            let c = invite_code(bits);
            assert_eq!(c.len(), 6);
            assert!(c.chars().all(|c| c.is_ascii_alphanumeric()));
        }
        assert_ne!(invite_code(1), invite_code(2));
    }
}
