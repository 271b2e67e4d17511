//! A calendar date without a clock: today's date always comes in from the
//! caller (`Date::from_epoch_ms(now_ms)`), so age rules stay pure. The
//! calendar arithmetic is the `time` crate's.

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
    time::util::is_leap_year(year)
}

/// Days in `month` (1 to 12) of `year`; 0 for another month number.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    u8::try_from(month)
        .ok()
        .and_then(|m| time::Month::try_from(m).ok())
        .map_or(0, |m| u32::from(m.length(year)))
}

const MS_PER_DAY: i64 = 86_400_000;
/// The Julian day number of 1970-01-01.
const UNIX_EPOCH_JULIAN_DAY: i64 = 2_440_588;

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

    /// Days since 1970-01-01 (negative before). Meant for clock readings:
    /// a day outside the years the `time` crate holds (+-9999) is clamped.
    pub fn from_days_since_epoch(days: i64) -> Date {
        let julian = (days + UNIX_EPOCH_JULIAN_DAY).clamp(
            i64::from(time::Date::MIN.to_julian_day()),
            i64::from(time::Date::MAX.to_julian_day()),
        );
        let date = time::Date::from_julian_day(julian as i32).unwrap_or(time::Date::MIN);
        Date {
            year: date.year(),
            month: u32::from(u8::from(date.month())),
            day: u32::from(date.day()),
        }
    }

    /// Inverse of `from_days_since_epoch`.
    pub fn days_since_epoch(self) -> i64 {
        let month = time::Month::try_from(self.month as u8).unwrap_or(time::Month::January);
        time::Date::from_calendar_date(self.year, month, self.day as u8)
            .map(|d| i64::from(d.to_julian_day()) - UNIX_EPOCH_JULIAN_DAY)
            .unwrap_or_default()
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
