//! Campaigns (activities) marketing defines (spec 001 sections 2.1
//! promotion routes, 7.4 activity/*): pages per language, an audience, a
//! period, and one reward rule from a small set. A member is rewarded at
//! most once per campaign and period.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::Currency;

/// Activity ids the platform keeps for itself (prize draw, season reward).
pub const RESERVED_AIDS: [u32; 2] = [5, 13];

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Page {
    pub title: String,
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub banner: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Audience {
    /// Wallet currencies allowed (empty: all).
    #[serde(default)]
    pub currencies: Vec<Currency>,
    /// Lowest VIP level (1 = everyone).
    #[serde(default)]
    pub min_vip_level: u8,
    /// Only members registered at most this many days before applying
    /// (0: any member).
    #[serde(default)]
    pub new_member_days: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Repeat {
    /// Once in the campaign's whole period.
    Once,
    Daily,
    Weekly,
    Monthly,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RewardRule {
    /// `percent` of the member's first ever deposit (made within the
    /// campaign), at least `min_deposit`, at most `max_bonus`.
    FirstDeposit {
        percent: Decimal,
        min_deposit: Decimal,
        max_bonus: Decimal,
    },
    /// `percent` of the deposits made in the period so far.
    Reload {
        percent: Decimal,
        min_deposit: Decimal,
        max_bonus: Decimal,
    },
    /// The bonus of the highest tier the period's valid turnover reached:
    /// tiers of (turnover, bonus).
    Turnover { tiers: Vec<(Decimal, Decimal)> },
    /// `percent` of the net loss (stakes minus returns, sports and casino)
    /// of the previous period, at least `min_loss`, at most `max_bonus`.
    LossRebate {
        percent: Decimal,
        min_loss: Decimal,
        max_bonus: Decimal,
    },
}

impl RewardRule {
    pub fn name(&self) -> &'static str {
        match self {
            RewardRule::FirstDeposit { .. } => "first_deposit",
            RewardRule::Reload { .. } => "reload",
            RewardRule::Turnover { .. } => "turnover",
            RewardRule::LossRebate { .. } => "loss_rebate",
        }
    }

    /// The bonus for `basis` (the deposit, turnover or loss the rule
    /// reads), rounded to the currency; zero when not qualified.
    pub fn bonus(&self, basis: Decimal, currency: Currency) -> Decimal {
        let pct = |percent: Decimal, min: Decimal, max: Decimal| {
            if basis < min || basis <= Decimal::ZERO {
                Decimal::ZERO
            } else {
                currency.round((basis * percent / Decimal::ONE_HUNDRED).min(max))
            }
        };
        match self {
            RewardRule::FirstDeposit {
                percent,
                min_deposit,
                max_bonus,
            }
            | RewardRule::Reload {
                percent,
                min_deposit,
                max_bonus,
            } => pct(*percent, *min_deposit, *max_bonus),
            RewardRule::LossRebate {
                percent,
                min_loss,
                max_bonus,
            } => pct(*percent, *min_loss, *max_bonus),
            RewardRule::Turnover { tiers } => tiers
                .iter()
                .filter(|(need, _)| basis >= *need)
                .map(|(_, bonus)| currency.round(*bonus))
                .max()
                .unwrap_or_default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Campaign {
    /// The activity id (`aid`).
    pub id: u32,
    /// The promotion route it renders on (/{slug} or /promo/{slug}).
    pub slug: String,
    /// Pages by language code (zhh, eng, tha).
    pub pages: BTreeMap<String, Page>,
    #[serde(default)]
    pub audience: Audience,
    pub start_ms: i64,
    pub end_ms: i64,
    pub repeat: Repeat,
    pub rule: RewardRule,
    /// Valid turnover required before the bonus can be withdrawn, as a
    /// multiple of the bonus.
    pub turnover_multiple: Decimal,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}

fn month_start(day: i64) -> i64 {
    let d = crate::account::Date::from_epoch_ms(day * super::DAY_MS);
    day - (d.day() as i64 - 1)
}

impl Campaign {
    pub fn check(&self) -> Result<(), String> {
        if self.id == 0 || self.id > 1_000_000 || RESERVED_AIDS.contains(&self.id) {
            return Err("id 1 to 1000000, not 5 or 13".into());
        }
        let slug_ok = !self.slug.is_empty()
            && self.slug.len() <= 40
            && self
                .slug
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
        if !slug_ok {
            return Err("slug: 1 to 40 letters, digits, - or _".into());
        }
        if self.pages.is_empty() || self.pages.len() > 6 {
            return Err("pages: 1 to 6 languages".into());
        }
        for (lang, page) in &self.pages {
            if !matches!(lang.as_str(), "zhh" | "eng" | "tha") {
                return Err(format!("pages: language {lang} (zhh, eng, tha)"));
            }
            let title = page.title.trim().chars().count();
            if title == 0 || title > 100 || page.body.len() > 20_000 || page.banner.len() > 300 {
                return Err(format!("page {lang}: title 1 to 100, body up to 20000"));
            }
        }
        if self.end_ms <= self.start_ms || self.start_ms < 0 {
            return Err("the period ends after it starts".into());
        }
        let money =
            |d: Decimal| d >= Decimal::ZERO && d <= Decimal::from(10_000_000) && d.scale() <= 2;
        let rule_ok = match &self.rule {
            RewardRule::FirstDeposit {
                percent,
                min_deposit,
                max_bonus,
            }
            | RewardRule::Reload {
                percent,
                min_deposit,
                max_bonus,
            } => {
                money(*min_deposit)
                    && money(*max_bonus)
                    && *percent > Decimal::ZERO
                    && *percent <= Decimal::from(1000)
            }
            RewardRule::LossRebate {
                percent,
                min_loss,
                max_bonus,
            } => {
                money(*min_loss)
                    && money(*max_bonus)
                    && *percent > Decimal::ZERO
                    && *percent <= Decimal::ONE_HUNDRED
            }
            RewardRule::Turnover { tiers } => {
                !tiers.is_empty()
                    && tiers.len() <= 20
                    && tiers.iter().all(|(a, b)| money(*a) && money(*b))
            }
        };
        if !rule_ok {
            return Err("rule: amounts 0 to 10000000 (2 places), percent above 0".into());
        }
        if self.turnover_multiple < Decimal::ZERO || self.turnover_multiple > Decimal::from(100) {
            return Err("turnover_multiple 0 to 100".into());
        }
        if self.audience.min_vip_level > 10 {
            return Err("min_vip_level 0 to 10".into());
        }
        Ok(())
    }

    pub fn running(&self, now_ms: i64) -> bool {
        self.enabled && now_ms >= self.start_ms && now_ms < self.end_ms
    }

    /// The period of `now` as (key, start_ms, end_ms): the window whose
    /// activity the rule reads. The loss rebate reads the previous period
    /// (its key names that period).
    pub fn period_at(&self, now_ms: i64) -> (String, i64, i64) {
        let day = super::day_of(now_ms);
        let (key, from_day, to_day) = match self.repeat {
            Repeat::Once => return ("once".into(), self.start_ms, self.end_ms),
            Repeat::Daily => (format!("d{day}"), day, day + 1),
            Repeat::Weekly => {
                let week = super::week_of_day(day);
                let first = week * 7 - 3;
                (format!("w{week}"), first, first + 7)
            }
            Repeat::Monthly => {
                let first = month_start(day);
                let next = month_start(first + 32);
                (format!("m{first}"), first, next)
            }
        };
        let (mut from, mut to) = (from_day * super::DAY_MS, to_day * super::DAY_MS);
        let mut key = key;
        if matches!(self.rule, RewardRule::LossRebate { .. }) {
            let len = to - from;
            let prev_from = match self.repeat {
                Repeat::Monthly => month_start(from_day - 1) * super::DAY_MS,
                _ => from - len,
            };
            to = from;
            from = prev_from;
            key = format!("{key}-previous");
        }
        (key, from, to)
    }

    /// The page in `lang`, else eng, else any.
    pub fn page(&self, lang: &str) -> Option<&Page> {
        self.pages
            .get(lang)
            .or_else(|| self.pages.get("eng"))
            .or_else(|| self.pages.values().next())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn campaign(rule: RewardRule, repeat: Repeat) -> Campaign {
        let mut pages = BTreeMap::new();
        pages.insert(
            "eng".into(),
            Page {
                title: "Reload".into(),
                ..Page::default()
            },
        );
        Campaign {
            id: 101,
            slug: "actione".into(),
            pages,
            audience: Audience::default(),
            start_ms: 0,
            end_ms: 100 * super::super::DAY_MS,
            repeat,
            rule,
            turnover_multiple: dec!(10),
            enabled: true,
        }
    }

    #[test]
    fn percent_rules_cap_at_the_maximum_and_need_the_minimum() {
        let r = RewardRule::Reload {
            percent: dec!(10),
            min_deposit: dec!(100),
            max_bonus: dec!(50),
        };
        assert_eq!(r.bonus(dec!(99), Currency::Cny), dec!(0));
        assert_eq!(r.bonus(dec!(123.45), Currency::Cny), dec!(12.35));
        assert_eq!(r.bonus(dec!(9999), Currency::Cny), dec!(50));
    }

    #[test]
    fn turnover_pays_the_highest_tier_reached() {
        let r = RewardRule::Turnover {
            tiers: vec![(dec!(1000), dec!(8)), (dec!(5000), dec!(38))],
        };
        assert_eq!(r.bonus(dec!(999), Currency::Cny), dec!(0));
        assert_eq!(r.bonus(dec!(6000), Currency::Cny), dec!(38));
    }

    #[test]
    fn periods_follow_the_repeat_and_the_loss_rebate_reads_the_previous_one() {
        let day = super::super::DAY_MS;
        let daily = campaign(
            RewardRule::Reload {
                percent: dec!(1),
                min_deposit: dec!(0),
                max_bonus: dec!(1),
            },
            Repeat::Daily,
        );
        let (key, from, to) = daily.period_at(10 * day + 5);
        assert_eq!((key.as_str(), from, to), ("d10", 10 * day, 11 * day));
        let loss = campaign(
            RewardRule::LossRebate {
                percent: dec!(5),
                min_loss: dec!(0),
                max_bonus: dec!(100),
            },
            Repeat::Daily,
        );
        let (key, from, to) = loss.period_at(10 * day + 5);
        assert_eq!(
            (key.as_str(), from, to),
            ("d10-previous", 9 * day, 10 * day)
        );
        let weekly = campaign(
            RewardRule::Turnover {
                tiers: vec![(dec!(1), dec!(1))],
            },
            Repeat::Weekly,
        );
        // 1970-01-05 (day 4) was a Monday.
        assert_eq!(weekly.period_at(4 * day).1, 4 * day);
        assert_eq!(weekly.period_at(10 * day).1, 4 * day);
        let monthly = campaign(
            RewardRule::Turnover {
                tiers: vec![(dec!(1), dec!(1))],
            },
            Repeat::Monthly,
        );
        let (_, from, to) = monthly.period_at(40 * day);
        assert_eq!((from, to), (31 * day, 59 * day));
    }

    #[test]
    fn reserved_aids_and_bad_slugs_are_refused() {
        let mut c = campaign(
            RewardRule::Turnover {
                tiers: vec![(dec!(1), dec!(1))],
            },
            Repeat::Once,
        );
        assert!(c.check().is_ok());
        c.id = 5;
        assert!(c.check().is_err());
        c.id = 7;
        c.slug = "../x".into();
        assert!(c.check().is_err());
    }
}
