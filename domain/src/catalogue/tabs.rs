//! Market tabs (spec 000 section 9): a game page groups its markets under
//! ten tabs, and a market may sit in several. The spec names the tabs but
//! not its list of market_type codes, so the mapping below is ours. It is
//! the union of an exact table for the full-time lines and family rules
//! that read the code's shape, so a new code of a known family lands in
//! the right tab without a table change.
//!
//! Exact codes (full time):
//!
//! | market_type | tabs |
//! |---|---|
//! | P1XP2, P1P2 | PopularHandicap, MainHandicap |
//! | DoubleChance, DrawNoBet | PopularHandicap |
//! | Handicap (European, 3-way) | MainHandicap |
//! | AsianHandicap (quarter lines) | AsianHandicap, PopularHandicap, MainHandicap |
//! | OverUnder | PopularHandicap, MainHandicap, Goal |
//! | AsianTotal (quarter lines) | AsianHandicap, MainHandicap, Goal |
//! | BothTeamsToScore | PopularHandicap, Goal |
//! | CorrectScore, TotalGoalsExact, Team1OverUnder, Team2OverUnder, OddEven, FirstTeamToScore, LastTeamToScore, NextGoal | Goal |
//! | HalfTimeFullTime, HighestScoringHalf | FirstHalfSecondHalf, FunSelection |
//! | WinningMargin, WinToNil, CleanSheet, ToWinBothHalves, ToScoreInBothHalves, PenaltyAwarded, RedCard, OwnGoal | FunSelection |
//! | ToQualify, PenaltyShootoutWinner | Overtime |
//!
//! Families (case-sensitive, on the CamelCase code):
//!
//! | shape | tabs |
//! |---|---|
//! | starts with FirstHalf, SecondHalf or HalfTime | FirstHalfSecondHalf, plus the AsianHandicap and Goal tabs of the rest of the code (FirstHalfAsianHandicap is also AsianHandicap; FirstHalfOverUnder is also Goal); never Main or Popular |
//! | contains Minute | Minutes |
//! | contains Corner | CornerKick (CornerOverUnder is not a Goal market) |
//! | starts with Player, or contains Goalscorer | Player |
//! | contains Overtime or ExtraTime | Overtime |
//! | starts with Special | FunSelection |
//!
//! A code no row matches sits in no tab (the client's "all markets" list
//! still shows it).

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum MarketTab {
    AsianHandicap,
    PopularHandicap,
    MainHandicap,
    FirstHalfSecondHalf,
    Minutes,
    Goal,
    Player,
    CornerKick,
    FunSelection,
    Overtime,
}

use MarketTab::*;

const EXACT: &[(&[&str], &[MarketTab])] = &[
    (&["P1XP2", "P1P2"], &[PopularHandicap, MainHandicap]),
    (&["DoubleChance", "DrawNoBet"], &[PopularHandicap]),
    (&["Handicap"], &[MainHandicap]),
    (
        &["AsianHandicap"],
        &[AsianHandicap, PopularHandicap, MainHandicap],
    ),
    (&["OverUnder"], &[PopularHandicap, MainHandicap, Goal]),
    (&["AsianTotal"], &[AsianHandicap, MainHandicap, Goal]),
    (&["BothTeamsToScore"], &[PopularHandicap, Goal]),
    (
        &[
            "CorrectScore",
            "TotalGoalsExact",
            "Team1OverUnder",
            "Team2OverUnder",
            "OddEven",
            "FirstTeamToScore",
            "LastTeamToScore",
            "NextGoal",
        ],
        &[Goal],
    ),
    (
        &["HalfTimeFullTime", "HighestScoringHalf"],
        &[FirstHalfSecondHalf, FunSelection],
    ),
    (
        &[
            "WinningMargin",
            "WinToNil",
            "CleanSheet",
            "ToWinBothHalves",
            "ToScoreInBothHalves",
            "PenaltyAwarded",
            "RedCard",
            "OwnGoal",
        ],
        &[FunSelection],
    ),
    (&["ToQualify", "PenaltyShootoutWinner"], &[Overtime]),
];

const HALF_PREFIXES: [&str; 3] = ["FirstHalf", "SecondHalf", "HalfTime"];

/// The tabs a market of this type appears in, in tab order, without repeats.
pub fn tabs_for(market_type: &str) -> Vec<MarketTab> {
    let mut tabs = exact_tabs(market_type);
    tabs.extend(family_tabs(market_type));
    tabs.sort();
    tabs.dedup();
    tabs
}

fn exact_tabs(code: &str) -> Vec<MarketTab> {
    EXACT
        .iter()
        .filter(|(codes, _)| codes.contains(&code))
        .flat_map(|(_, tabs)| tabs.iter().copied())
        .collect()
}

fn family_tabs(code: &str) -> Vec<MarketTab> {
    let mut tabs = Vec::new();
    if let Some(rest) = HALF_PREFIXES.iter().find_map(|p| code.strip_prefix(p)) {
        tabs.push(FirstHalfSecondHalf);
        let inherited = tabs_for(rest);
        tabs.extend(
            inherited
                .into_iter()
                .filter(|t| matches!(t, AsianHandicap | Goal)),
        );
    }
    if code.contains("Minute") {
        tabs.push(Minutes);
    }
    if code.contains("Corner") {
        tabs.push(CornerKick);
    }
    if code.starts_with("Player") || code.contains("Goalscorer") {
        tabs.push(Player);
    }
    if code.contains("Overtime") || code.contains("ExtraTime") {
        tabs.push(Overtime);
    }
    if code.starts_with("Special") {
        tabs.push(FunSelection);
    }
    tabs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asian_handicap_sits_in_the_asian_and_main_tabs() {
        let tabs = tabs_for("AsianHandicap");
        assert!(tabs.contains(&AsianHandicap));
        assert!(tabs.contains(&MainHandicap));
        assert_eq!(
            tabs_for("AsianTotal"),
            vec![AsianHandicap, MainHandicap, Goal]
        );
    }

    #[test]
    fn a_market_may_sit_in_several_tabs_listed_once_in_tab_order() {
        assert_eq!(
            tabs_for("OverUnder"),
            vec![PopularHandicap, MainHandicap, Goal]
        );
        assert_eq!(
            tabs_for("HalfTimeFullTime"),
            vec![FirstHalfSecondHalf, FunSelection]
        );
    }

    #[test]
    fn half_markets_inherit_asian_and_goal_tabs_but_not_main() {
        assert_eq!(tabs_for("HalfTimeResult"), vec![FirstHalfSecondHalf]);
        assert_eq!(
            tabs_for("FirstHalfAsianHandicap"),
            vec![AsianHandicap, FirstHalfSecondHalf]
        );
        assert_eq!(
            tabs_for("SecondHalfOverUnder"),
            vec![FirstHalfSecondHalf, Goal]
        );
    }

    #[test]
    fn family_rules_place_corners_players_minutes_and_overtime() {
        assert_eq!(tabs_for("CornerOverUnder"), vec![CornerKick]);
        assert_eq!(
            tabs_for("FirstHalfCornerP1XP2"),
            vec![FirstHalfSecondHalf, CornerKick]
        );
        assert_eq!(tabs_for("AnytimeGoalscorer"), vec![Player]);
        assert_eq!(tabs_for("PlayerShotsOnTarget"), vec![Player]);
        assert_eq!(tabs_for("GoalsFrom0To15Minutes"), vec![Minutes]);
        assert_eq!(tabs_for("P1P2IncludingOvertime"), vec![Overtime]);
        assert_eq!(tabs_for("ToQualify"), vec![Overtime]);
        assert_eq!(tabs_for("SpecialFirstCardColour"), vec![FunSelection]);
    }

    #[test]
    fn unknown_codes_sit_in_no_tab() {
        assert!(tabs_for("SomethingElse").is_empty());
        assert!(tabs_for("").is_empty());
    }
}
