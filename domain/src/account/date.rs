//! A calendar date without a clock: today's date always comes in from the
//! caller (`Date::from_epoch_ms(now_ms)`), so age rules stay pure.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A proleptic-Gregorian day, years 1 to 9999, written `YYYY-MM-DD`
/// (spec 001 section 9). Field order makes the derived `Ord` chronological.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date {
    year: i32,
    month: u32,
    day: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a YYYY-MM-DD calendar date")]
pub struct InvalidDate(pub String);

pub fn is_leap_year(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => 0,
    }
}

const MS_PER_DAY: i64 = 86_400_000;

impl Date {
    pub fn new(year: i32, month: u32, day: u32) -> Option<Date> {
        let valid = (1..=9999).contains(&year)
            && (1..=12).contains(&month)
            && day >= 1
            && day <= days_in_month(year, month);
        valid.then_some(Date { year, month, day })
    }

    pub fn year(self) -> i32 {
        self.year
    }

    pub fn month(self) -> u32 {
        self.month
    }

    pub fn day(self) -> u32 {
        self.day
    }

    /// The UTC day containing `ms` (milliseconds since the Unix epoch).
    pub fn from_epoch_ms(ms: i64) -> Date {
        Date::from_days_since_epoch(ms.div_euclid(MS_PER_DAY))
    }

    /// Days since 1970-01-01 (negative before), after Howard Hinnant's
    /// `civil_from_days`. Meant for clock readings: days outside years 1 to
    /// 9999 are not clamped.
    pub fn from_days_since_epoch(days: i64) -> Date {
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Date { year, month, day }
    }

    /// Inverse of `from_days_since_epoch` (Hinnant's `days_from_civil`).
    pub fn days_since_epoch(self) -> i64 {
        let year = i64::from(self.year) - i64::from(self.month <= 2);
        let era = year.div_euclid(400);
        let yoe = year.rem_euclid(400);
        let month = i64::from(self.month);
        let mp = if month > 2 { month - 3 } else { month + 9 };
        let doy = (153 * mp + 2) / 5 + i64::from(self.day) - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        era * 146_097 + doe - 719_468
    }

    /// Completed years between `self` (a birth date) and `today`; negative
    /// when `self` is in the future. A 29 February birthday completes a year
    /// on 1 March in common years (the (month, day) comparison below).
    pub fn age_on(self, today: Date) -> i32 {
        let before_birthday = (today.month, today.day) < (self.month, self.day);
        today.year - self.year - i32::from(before_birthday)
    }
}

impl FromStr for Date {
    type Err = InvalidDate;

    /// Strictly `YYYY-MM-DD`: four-digit year, two-digit month and day.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidDate(s.to_string());
        let b = s.as_bytes();
        let shaped = b.len() == 10
            && b[4] == b'-'
            && b[7] == b'-'
            && b.iter()
                .enumerate()
                .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit());
        if !shaped {
            return Err(invalid());
        }
        let year = s[0..4].parse().map_err(|_| invalid())?;
        let month = s[5..7].parse().map_err(|_| invalid())?;
        let day = s[8..10].parse().map_err(|_| invalid())?;
        Date::new(year, month, day).ok_or_else(invalid)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl Serialize for Date {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Date {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> Date {
        s.parse().unwrap()
    }

    #[test]
    fn dates_parse_only_as_yyyy_mm_dd() {
        assert_eq!(d("2024-02-29"), Date::new(2024, 2, 29).unwrap());
        for bad in [
            "2024-2-29",
            "24-02-29",
            "2024/02/29",
            "2024-02-29 ",
            "+024-02-29",
            "",
            "0000-01-01",
        ] {
            assert!(bad.parse::<Date>().is_err(), "{bad}");
        }
    }

    #[test]
    fn dates_are_checked_against_the_calendar() {
        assert!("2023-02-29".parse::<Date>().is_err());
        assert!("1900-02-29".parse::<Date>().is_err());
        assert!("2000-02-29".parse::<Date>().is_ok());
        assert!("2023-04-31".parse::<Date>().is_err());
        assert!("2023-13-01".parse::<Date>().is_err());
        assert!("2023-00-10".parse::<Date>().is_err());
        assert!("2023-12-00".parse::<Date>().is_err());
        assert!("2023-12-31".parse::<Date>().is_ok());
    }

    #[test]
    fn epoch_days_round_trip() {
        assert_eq!(Date::from_days_since_epoch(0), d("1970-01-01"));
        assert_eq!(d("2000-03-01").days_since_epoch(), 11_017);
        assert_eq!(Date::from_days_since_epoch(-1), d("1969-12-31"));
        for days in (-800_000..800_000).step_by(997) {
            assert_eq!(Date::from_days_since_epoch(days).days_since_epoch(), days);
        }
    }

    #[test]
    fn today_comes_from_epoch_milliseconds_in_utc() {
        assert_eq!(Date::from_epoch_ms(1_709_164_800_000), d("2024-02-29"));
        assert_eq!(Date::from_epoch_ms(1_709_251_199_999), d("2024-02-29"));
        assert_eq!(Date::from_epoch_ms(-1), d("1969-12-31"));
    }

    #[test]
    fn ages_count_completed_years() {
        assert_eq!(d("2000-06-15").age_on(d("2018-06-15")), 18);
        assert_eq!(d("2000-06-15").age_on(d("2018-06-14")), 17);
        assert_eq!(d("2008-02-29").age_on(d("2026-02-28")), 17);
        assert_eq!(d("2008-02-29").age_on(d("2026-03-01")), 18);
        assert_eq!(d("2030-01-01").age_on(d("2026-01-01")), -4);
    }

    #[test]
    fn dates_serialize_as_their_text() {
        let json = serde_json::to_string(&d("1999-01-02")).unwrap();
        assert_eq!(json, "\"1999-01-02\"");
        assert_eq!(
            serde_json::from_str::<Date>(&json).unwrap(),
            d("1999-01-02")
        );
        assert!(serde_json::from_str::<Date>("\"1999-02-30\"").is_err());
    }
}
