//! A member's betting statistics over a period (`report/betanalytics`,
//! the `/betdata` page): a pure fold over the bet records of the bet
//! history read model. What counts, decided here because the spec names
//! the call but not its figures:
//!
//! - Declined bets (status -4) took no stake: counted as declined only.
//! - Turnover is the stake of every other bet, open ones included.
//! - Payout and profit are of settled bets (won, lost, returned, cashed
//!   out): profit = payouts - their stakes. Open bets (0, and -5 on hold)
//!   have not paid yet.
//! - The win rate is won / (won + lost), in percent with 2 places;
//!   returned and cashed-out bets decided nothing. `None` before any.
//! - A bet counts for a sport when all its selections are of that sport;
//!   a multiple across sports counts as mixed (the empty name).

use std::collections::BTreeMap;

use rust_decimal::Decimal;

/// What the fold reads of one bet record.
#[derive(Debug, Clone, PartialEq)]
pub struct BetFacts<'a> {
    /// Spec status: -5 on hold, -4 declined, 0 unsettled, 1 lost,
    /// 2 returned, 3 won, 5 cashed out.
    pub status: i8,
    /// 1 single, 2 express, 3 system, 4 chain.
    pub bet_type: u8,
    pub stake: Decimal,
    pub payout: Decimal,
    /// The bet's odds, when it has them (not for system bets).
    pub odds: Option<Decimal>,
    /// The sport of each selection.
    pub sports: Vec<&'a str>,
}

/// Turnover and result of a group of bets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Totals {
    pub count: u64,
    pub stake: Decimal,
    pub settled_stake: Decimal,
    pub payout: Decimal,
}

impl Totals {
    pub fn profit(&self) -> Decimal {
        self.payout - self.settled_stake
    }

    fn add(&mut self, bet: &BetFacts<'_>, settled: bool) {
        self.count += 1;
        self.stake += bet.stake;
        if settled {
            self.settled_stake += bet.stake;
            self.payout += bet.payout;
        }
    }
}

/// The statistics of a member's bets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BetStats {
    pub all: Totals,
    pub open: u64,
    pub won: u64,
    pub lost: u64,
    pub returned: u64,
    pub cashed_out: u64,
    pub declined: u64,
    /// The largest payout of a won bet.
    pub biggest_win: Decimal,
    odds_sum: Decimal,
    odds_count: u64,
    pub by_type: BTreeMap<u8, Totals>,
    pub by_sport: BTreeMap<String, Totals>,
}

/// Status codes (spec 000 section 3).
const ON_HOLD: i8 = -5;
const DECLINED: i8 = -4;
const UNSETTLED: i8 = 0;
const LOST: i8 = 1;
const RETURNED: i8 = 2;
const WON: i8 = 3;
const CASHED_OUT: i8 = 5;

impl BetStats {
    pub fn add(&mut self, bet: &BetFacts<'_>) {
        let settled = match bet.status {
            DECLINED => {
                self.declined += 1;
                return;
            }
            UNSETTLED | ON_HOLD => {
                self.open += 1;
                false
            }
            WON => {
                self.won += 1;
                self.biggest_win = self.biggest_win.max(bet.payout);
                true
            }
            LOST => {
                self.lost += 1;
                true
            }
            RETURNED => {
                self.returned += 1;
                true
            }
            CASHED_OUT => {
                self.cashed_out += 1;
                true
            }
            // A status this fold does not know: counted as open, paid nothing.
            _ => {
                self.open += 1;
                false
            }
        };
        self.all.add(bet, settled);
        self.by_type
            .entry(bet.bet_type)
            .or_default()
            .add(bet, settled);
        let sport = match bet.sports.split_first() {
            Some((first, rest)) if rest.iter().all(|s| s == first) => (*first).to_string(),
            _ => String::new(),
        };
        self.by_sport.entry(sport).or_default().add(bet, settled);
        if let Some(odds) = bet.odds.filter(|k| *k > Decimal::ONE) {
            self.odds_sum += odds;
            self.odds_count += 1;
        }
    }

    /// Won / (won + lost) in percent, 2 places.
    pub fn win_rate(&self) -> Option<Decimal> {
        let decided = self.won + self.lost;
        (decided > 0).then(|| (Decimal::from(self.won * 100) / Decimal::from(decided)).round_dp(2))
    }

    /// The mean odds of the bets that have odds, 2 places.
    pub fn average_odds(&self) -> Option<Decimal> {
        (self.odds_count > 0).then(|| (self.odds_sum / Decimal::from(self.odds_count)).round_dp(2))
    }

    /// Sports by bet count (most first, then by name), at most `limit`.
    pub fn top_sports(&self, limit: usize) -> Vec<(&str, &Totals)> {
        let mut sports: Vec<_> = self
            .by_sport
            .iter()
            .map(|(name, totals)| (name.as_str(), totals))
            .collect();
        sports.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
        sports.truncate(limit);
        sports
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    fn bet(
        status: i8,
        bet_type: u8,
        stake: Decimal,
        payout: Decimal,
        sports: Vec<&str>,
    ) -> BetFacts<'_> {
        BetFacts {
            status,
            bet_type,
            stake,
            payout,
            odds: Some(dec!(2.00)),
            sports,
        }
    }

    fn fold(bets: &[BetFacts<'_>]) -> BetStats {
        let mut stats = BetStats::default();
        for b in bets {
            stats.add(b);
        }
        stats
    }

    #[test]
    fn profit_counts_settled_bets_only_and_turnover_counts_open_ones_too() {
        let stats = fold(&[
            bet(WON, 1, dec!(10), dec!(25), vec!["Soccer"]),
            bet(LOST, 1, dec!(20), dec!(0), vec!["Soccer"]),
            bet(UNSETTLED, 1, dec!(50), dec!(0), vec!["Tennis"]),
        ]);
        assert_eq!(stats.all.count, 3);
        assert_eq!(stats.all.stake, dec!(80));
        assert_eq!(stats.all.settled_stake, dec!(30));
        assert_eq!(stats.all.payout, dec!(25));
        assert_eq!(stats.all.profit(), dec!(-5));
        assert_eq!((stats.won, stats.lost, stats.open), (1, 1, 1));
        assert_eq!(stats.biggest_win, dec!(25));
    }

    #[test]
    fn declined_bets_took_no_stake() {
        let stats = fold(&[bet(DECLINED, 1, dec!(100), dec!(0), vec!["Soccer"])]);
        assert_eq!(stats.declined, 1);
        assert_eq!(stats.all, Totals::default());
        assert!(stats.by_type.is_empty());
    }

    #[test]
    fn the_win_rate_is_won_over_decided_bets() {
        assert_eq!(fold(&[]).win_rate(), None);
        let stats = fold(&[
            bet(WON, 1, dec!(1), dec!(2), vec![]),
            bet(LOST, 1, dec!(1), dec!(0), vec![]),
            bet(LOST, 1, dec!(1), dec!(0), vec![]),
            bet(RETURNED, 1, dec!(1), dec!(1), vec![]),
            bet(CASHED_OUT, 1, dec!(1), dec!(0.5), vec![]),
        ]);
        assert_eq!(stats.win_rate(), Some(dec!(33.33)));
        assert_eq!(stats.all.payout, dec!(3.5));
    }

    #[test]
    fn a_multiple_across_sports_counts_as_mixed() {
        let stats = fold(&[
            bet(LOST, 2, dec!(5), dec!(0), vec!["Soccer", "Tennis"]),
            bet(LOST, 2, dec!(5), dec!(0), vec!["Soccer", "Soccer"]),
            bet(WON, 1, dec!(5), dec!(9), vec!["Soccer"]),
        ]);
        assert_eq!(stats.by_sport[""].count, 1);
        assert_eq!(stats.by_sport["Soccer"].count, 2);
        assert_eq!(stats.by_sport["Soccer"].profit(), dec!(-1));
        assert_eq!(
            stats.top_sports(1),
            vec![("Soccer", &stats.by_sport["Soccer"])]
        );
        assert_eq!(stats.by_type[&2].count, 2);
        assert_eq!(stats.by_type[&1].payout, dec!(9));
    }

    #[test]
    fn average_odds_leave_out_bets_without_odds() {
        let mut no_odds = bet(LOST, 3, dec!(5), dec!(0), vec![]);
        no_odds.odds = None;
        let mut high = bet(WON, 1, dec!(5), dec!(15), vec![]);
        high.odds = Some(dec!(3.005));
        let stats = fold(&[no_odds, high, bet(LOST, 1, dec!(5), dec!(0), vec![])]);
        assert_eq!(stats.average_odds(), Some(dec!(2.50)));
    }
}
