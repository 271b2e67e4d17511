//! The market's calendar: where a day, a week (Monday first) and a month
//! begin in the market's time zone, as unix milliseconds.

use serde::{Deserialize, Serialize};
use time::{Date, Duration, Month, OffsetDateTime, UtcOffset};

/// A limit's period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Period {
    Day,
    Week,
    Month,
}

impl Period {
    pub const ALL: [Period; 3] = [Period::Day, Period::Week, Period::Month];

    pub fn parse(text: &str) -> Option<Period> {
        match text {
            "day" => Some(Period::Day),
            "week" => Some(Period::Week),
            "month" => Some(Period::Month),
            _ => None,
        }
    }

    /// "daily", "weekly", "monthly", for messages.
    pub fn adjective(self) -> &'static str {
        match self {
            Period::Day => "daily",
            Period::Week => "weekly",
            Period::Month => "monthly",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Week => "week",
            Period::Month => "month",
        }
    }
}

/// The start of each period that holds one moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Starts {
    pub day: i64,
    pub week: i64,
    pub month: i64,
}

impl Starts {
    pub fn of(&self, period: Period) -> i64 {
        match period {
            Period::Day => self.day,
            Period::Week => self.week,
            Period::Month => self.month,
        }
    }
}

/// The market's time zone as a fixed offset from UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Calendar {
    offset: i32,
}

const DAY_MS: i64 = 86_400_000;

impl Calendar {
    /// `offset_minutes` east of UTC, clamped to the range time zones use.
    pub fn new(offset_minutes: i32) -> Self {
        Self {
            offset: offset_minutes.clamp(-14 * 60, 14 * 60),
        }
    }

    pub fn offset_minutes(&self) -> i32 {
        self.offset
    }

    fn local_date(&self, at_ms: i64) -> Date {
        let offset = UtcOffset::from_whole_seconds(self.offset * 60).unwrap_or(UtcOffset::UTC);
        OffsetDateTime::from_unix_timestamp(at_ms.div_euclid(1000))
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
            .to_offset(offset)
            .date()
    }

    /// Unix milliseconds of local midnight starting `date`.
    fn midnight(&self, date: Date) -> i64 {
        // 2,440,588: the Julian day of 1970-01-01.
        let days = i64::from(date.to_julian_day() - 2_440_588);
        days * DAY_MS - i64::from(self.offset) * 60_000
    }

    /// Where the day, week and month holding `at_ms` begin.
    pub fn starts(&self, at_ms: i64) -> Starts {
        let date = self.local_date(at_ms);
        let monday = date - Duration::days(i64::from(date.weekday().number_days_from_monday()));
        let first = date.replace_day(1).unwrap_or(date);
        Starts {
            day: self.midnight(date),
            week: self.midnight(monday),
            month: self.midnight(first),
        }
    }

    /// `at_ms` as `YYYY-MM-DD HH:MM:SS` in the market's time zone.
    pub fn local_text(&self, at_ms: i64) -> String {
        let offset = UtcOffset::from_whole_seconds(self.offset * 60).unwrap_or(UtcOffset::UTC);
        let t = OffsetDateTime::from_unix_timestamp(at_ms.div_euclid(1000))
            .unwrap_or(OffsetDateTime::UNIX_EPOCH)
            .to_offset(offset);
        format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}",
            t.year(),
            u8::from(t.month()),
            t.day(),
            t.hour(),
            t.minute(),
            t.second()
        )
    }

    /// `months` calendar months after `at_ms` (the day clamped to the
    /// month's length: 31 August + 6 months is 28 or 29 February).
    pub fn add_months(&self, at_ms: i64, months: u32) -> i64 {
        let date = self.local_date(at_ms);
        let total = date.year() * 12 + i32::from(u8::from(date.month())) - 1 + months as i32;
        let (year, month0) = (total.div_euclid(12), total.rem_euclid(12));
        let month = Month::try_from(month0 as u8 + 1).unwrap_or(Month::January);
        let last = time::util::days_in_month(month, year);
        let target = Date::from_calendar_date(year, month, date.day().min(last)).unwrap_or(date);
        at_ms + (self.midnight(target) - self.midnight(date))
    }
}
