//! The VIP tables (spec 001 sections 9.1 and 9.2) as configuration, per
//! market. The spec does not label its three threshold tables; the default
//! reading (docs/vip.md) puts the first in `growgift`, the second in `money`
//! and `bets` and the third in `monthsalary`. Moving a list to another key in
//! `config/default.toml` changes the reading without a code change.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::account::Market;

/// Levels run 1 (Unranked) to 10.
pub const LEVELS: usize = 10;

/// One market's table: ten entries per list, index 0 is level 1.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarketTable {
    pub names: Vec<String>,
    /// Upgrade gift paid once when the level is reached.
    pub growgift: Vec<Decimal>,
    /// Deposits ("money") needed to reach the level.
    pub money: Vec<Decimal>,
    /// Valid turnover ("bets") needed to reach the level.
    pub bets: Vec<Decimal>,
    /// Salary paid for a month in which the member held the level.
    pub monthsalary: Vec<Decimal>,
    /// Valid turnover the month needs for the salary (`cashflow`).
    pub cashflow: Vec<Decimal>,
    /// Daily rebate rates in percent of valid turnover, per product.
    pub sport: Vec<Decimal>,
    pub ag: Vec<Decimal>,
    pub pg: Vec<Decimal>,
    /// Withdrawals allowed per day, and the most per day (payments issue).
    pub withdrawtimes: Vec<u32>,
    pub withdrawlimits: Vec<Decimal>,
}

/// One level as `allvipdetail` shows it (spec 001 section 3: VIP level
/// info, VIP table entry and rebate table entry in one).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LevelInfo {
    pub id: u8,
    pub level: u8,
    pub vipname: String,
    pub name: String,
    /// The sport rebate rate (spec: "vippoint (rebate)").
    pub vippoint: String,
    pub monthsalary: String,
    pub growgift: String,
    pub cashflow: String,
    pub money: String,
    pub bets: String,
    pub sport: String,
    pub ag: String,
    pub pg: String,
    pub withdrawtimes: u32,
    pub withdrawlimits: String,
}

/// The product a valid turnover and its rebate belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Product {
    Sport,
    /// Live tables (the casino issue's "ag").
    Ag,
    /// Slots (the casino issue's "pg").
    Pg,
}

impl Product {
    pub const ALL: [Product; 3] = [Product::Sport, Product::Ag, Product::Pg];

    pub fn code(self) -> &'static str {
        match self {
            Product::Sport => "sport",
            Product::Ag => "ag",
            Product::Pg => "pg",
        }
    }

    pub fn parse(s: &str) -> Option<Product> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sport" => Some(Product::Sport),
            "ag" => Some(Product::Ag),
            "pg" => Some(Product::Pg),
            _ => None,
        }
    }
}

impl MarketTable {
    /// Every list has ten entries; thresholds never fall from one level
    /// to the next; rates and amounts are not negative.
    pub fn check(&self, market: &str) -> Result<(), String> {
        let lists: [(&str, usize); 11] = [
            ("names", self.names.len()),
            ("growgift", self.growgift.len()),
            ("money", self.money.len()),
            ("bets", self.bets.len()),
            ("monthsalary", self.monthsalary.len()),
            ("cashflow", self.cashflow.len()),
            ("sport", self.sport.len()),
            ("ag", self.ag.len()),
            ("pg", self.pg.len()),
            ("withdrawtimes", self.withdrawtimes.len()),
            ("withdrawlimits", self.withdrawlimits.len()),
        ];
        for (name, len) in lists {
            if len != LEVELS {
                return Err(format!(
                    "vip.markets.{market}.{name} has {len} entries; it needs {LEVELS} (levels 1 to 10)"
                ));
            }
        }
        for (name, list) in [("money", &self.money), ("bets", &self.bets)] {
            if list.windows(2).any(|w| w[1] < w[0]) {
                return Err(format!(
                    "vip.markets.{market}.{name} must not fall from one level to the next"
                ));
            }
        }
        for (name, list) in [
            ("growgift", &self.growgift),
            ("money", &self.money),
            ("bets", &self.bets),
            ("monthsalary", &self.monthsalary),
            ("cashflow", &self.cashflow),
            ("sport", &self.sport),
            ("ag", &self.ag),
            ("pg", &self.pg),
            ("withdrawlimits", &self.withdrawlimits),
        ] {
            if list.iter().any(|v| v.is_sign_negative()) {
                return Err(format!("vip.markets.{market}.{name} has a negative entry"));
            }
        }
        Ok(())
    }

    fn at(list: &[Decimal], level: u8) -> Decimal {
        list.get(level.clamp(1, LEVELS as u8) as usize - 1)
            .copied()
            .unwrap_or_default()
    }

    pub fn name(&self, level: u8) -> &str {
        self.names
            .get(level.clamp(1, LEVELS as u8) as usize - 1)
            .map(String::as_str)
            .unwrap_or("")
    }

    pub fn money_needed(&self, level: u8) -> Decimal {
        Self::at(&self.money, level)
    }

    pub fn bets_needed(&self, level: u8) -> Decimal {
        Self::at(&self.bets, level)
    }

    pub fn gift(&self, level: u8) -> Decimal {
        Self::at(&self.growgift, level)
    }

    pub fn salary(&self, level: u8) -> Decimal {
        Self::at(&self.monthsalary, level)
    }

    pub fn cashflow(&self, level: u8) -> Decimal {
        Self::at(&self.cashflow, level)
    }

    /// The rebate rate in percent.
    pub fn rate(&self, level: u8, product: Product) -> Decimal {
        match product {
            Product::Sport => Self::at(&self.sport, level),
            Product::Ag => Self::at(&self.ag, level),
            Product::Pg => Self::at(&self.pg, level),
        }
    }

    pub fn withdraw_times(&self, level: u8) -> u32 {
        self.withdrawtimes
            .get(level.clamp(1, LEVELS as u8) as usize - 1)
            .copied()
            .unwrap_or(0)
    }

    pub fn withdraw_limit(&self, level: u8) -> Decimal {
        Self::at(&self.withdrawlimits, level)
    }

    /// The level reached with these honour values, never below `from`: it
    /// rises one level at a time while both requirements of the next level
    /// are met.
    pub fn level_for(&self, from: u8, money: Decimal, bets: Decimal) -> u8 {
        let mut level = from.clamp(1, LEVELS as u8);
        while (level as usize) < LEVELS {
            let next = level + 1;
            if money >= self.money_needed(next) && bets >= self.bets_needed(next) {
                level = next;
            } else {
                break;
            }
        }
        level
    }

    /// Progress towards the level after `level` in percent (2 places),
    /// capped at 100; 100 at the top level.
    pub fn progress(&self, level: u8, money: Decimal, bets: Decimal) -> (Decimal, Decimal) {
        if level as usize >= LEVELS {
            return (Decimal::ONE_HUNDRED, Decimal::ONE_HUNDRED);
        }
        let pct = |have: Decimal, need: Decimal| -> Decimal {
            if need <= Decimal::ZERO {
                return Decimal::ONE_HUNDRED;
            }
            let p = (have.max(Decimal::ZERO) * Decimal::ONE_HUNDRED / need)
                .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::ToZero);
            p.min(Decimal::ONE_HUNDRED)
        };
        (
            pct(money, self.money_needed(level + 1)),
            pct(bets, self.bets_needed(level + 1)),
        )
    }

    pub fn info(&self, level: u8) -> LevelInfo {
        let s = |d: Decimal| d.normalize().to_string();
        let rate = |d: Decimal| format!("{:.2}", d);
        LevelInfo {
            id: level,
            level,
            vipname: self.name(level).to_string(),
            name: self.name(level).to_string(),
            vippoint: rate(self.rate(level, Product::Sport)),
            monthsalary: s(self.salary(level)),
            growgift: s(self.gift(level)),
            cashflow: s(self.cashflow(level)),
            money: s(self.money_needed(level)),
            bets: s(self.bets_needed(level)),
            sport: rate(self.rate(level, Product::Sport)),
            ag: rate(self.rate(level, Product::Ag)),
            pg: rate(self.rate(level, Product::Pg)),
            withdrawtimes: self.withdraw_times(level),
            withdrawlimits: s(self.withdraw_limit(level)),
        }
    }

    pub fn all(&self) -> Vec<LevelInfo> {
        (1..=LEVELS as u8).map(|l| self.info(l)).collect()
    }
}

/// How a cash-out counts towards valid turnover.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CashoutRule {
    /// |amount - stake given up| capped at the stake given up (the
    /// settlement rule applied to the part cashed out). Default.
    #[default]
    WinLoss,
    /// The whole stake given up.
    Stake,
}

/// What counts as valid turnover (issue 11, deliverable 2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnoverRules {
    /// Bets at odds below this count nothing (default 1.50).
    pub min_odds: Decimal,
    /// Bets at odds above this count nothing (none: no upper limit).
    #[serde(default)]
    pub max_odds: Option<Decimal>,
    #[serde(default)]
    pub cashout: CashoutRule,
    /// Whether a bet staked with a free bet counts (default no: the stake
    /// is not the member's money).
    #[serde(default)]
    pub free_bets_count: bool,
}

impl Default for TurnoverRules {
    fn default() -> Self {
        Self {
            min_odds: Decimal::new(150, 2),
            max_odds: None,
            cashout: CashoutRule::WinLoss,
            free_bets_count: false,
        }
    }
}

impl TurnoverRules {
    /// Whether a bet at `odds` counts at all. Odds unknown (system bets,
    /// starting prices) count.
    pub fn odds_count(&self, odds: Option<Decimal>) -> bool {
        match odds {
            None => true,
            Some(k) => k >= self.min_odds && self.max_odds.is_none_or(|max| k <= max),
        }
    }

    /// A settled bet: |payout - stake| capped at the stake; a returned
    /// (void) bet counts nothing.
    pub fn settled(
        &self,
        stake: Decimal,
        payout: Decimal,
        returned: bool,
        odds: Option<Decimal>,
    ) -> Decimal {
        if returned || stake <= Decimal::ZERO || !self.odds_count(odds) {
            return Decimal::ZERO;
        }
        (payout - stake).abs().min(stake)
    }

    /// A cash-out of `stake_part` for `amount`.
    pub fn cashed_out(
        &self,
        stake_part: Decimal,
        amount: Decimal,
        odds: Option<Decimal>,
    ) -> Decimal {
        if stake_part <= Decimal::ZERO || !self.odds_count(odds) {
            return Decimal::ZERO;
        }
        match self.cashout {
            CashoutRule::WinLoss => (amount - stake_part).abs().min(stake_part),
            CashoutRule::Stake => stake_part,
        }
    }

    /// A casino round: |payout - stake| capped at the stake (no odds).
    pub fn casino(&self, stake: Decimal, payout: Decimal) -> Decimal {
        if stake <= Decimal::ZERO {
            return Decimal::ZERO;
        }
        (payout - stake).abs().min(stake)
    }
}

/// Which season end is exempt from honour decay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DecaySkip {
    /// The platform's first season (the first date of the calendar, or the
    /// season engineer's `first` flag) decays nobody. Default.
    #[default]
    Platform,
    /// A member's own first season (registered after the previous season
    /// end) does not decay for that member.
    Member,
}

/// Everything VIP reads from configuration (`[vip]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VipTables {
    pub markets: BTreeMap<String, MarketTable>,
    #[serde(default)]
    pub turnover: TurnoverRules,
    /// Turnover required before a reward can be withdrawn, as a multiple
    /// of the reward (gift, salary, rebate).
    pub reward_turnover_multiple: Decimal,
    /// M currency (points) earned per unit of valid turnover.
    pub points_per_turnover: Decimal,
    /// Season ends (UTC dates, `YYYY-MM-DD`) honour decays after, until the
    /// seasons issue sends its season-end event.
    #[serde(default)]
    pub season_ends: Vec<String>,
    #[serde(default)]
    pub decay_skip: DecaySkip,
    /// How often the reward job looks for work (ms).
    pub job_every_ms: u64,
}

impl VipTables {
    pub fn check(&self) -> Result<(), String> {
        for market in ["zhh", "eng", "tha"] {
            let table = self
                .markets
                .get(market)
                .ok_or_else(|| format!("vip.markets.{market} is missing"))?;
            table.check(market)?;
        }
        for date in &self.season_ends {
            date.parse::<crate::account::Date>()
                .map_err(|e| format!("vip.season_ends: {e}"))?;
        }
        if self.reward_turnover_multiple.is_sign_negative()
            || self.points_per_turnover.is_sign_negative()
        {
            return Err("vip multiples must not be negative".into());
        }
        Ok(())
    }

    pub fn market(&self, market: Market) -> &MarketTable {
        self.markets
            .get(market.code())
            .or_else(|| self.markets.get("eng"))
            .or_else(|| self.markets.values().next())
            .expect("checked: vip tables have every market")
    }
}
