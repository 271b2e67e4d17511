//! `[seasons]`: the season calendar, the receiving condition and the
//! season task definitions seeded into a season (docs/seasons.md).

use commands::seasons::SeasonSettings;
use domain::season::{parse_time, ActivityRule, Calendar, SeasonDef, TaskDef};
use rust_decimal::Decimal;
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct SeasonEntry {
    pub id: u32,
    pub name: String,
    /// `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`, UTC.
    pub start: String,
    pub end: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct SeasonsConfig {
    /// Off-season bounds in days (spec 001 section 9: 15 to 30).
    pub min_off_days: i64,
    pub max_off_days: i64,
    /// The receiving condition: a day is active with this stake or this
    /// deposit; claims need `min_active_days` such days (11: "more than
    /// 10"; 0 turns the condition off).
    pub day_stake: Decimal,
    pub day_deposit: Decimal,
    pub min_active_days: u32,
    /// Minutes the local day is ahead of UTC (activity days).
    pub day_offset_minutes: i64,
    pub calendar: Vec<SeasonEntry>,
    pub tasks: Vec<TaskDef>,
    /// Rank rewards: envelopes of ranks 5, 6, 7 and of ranks 2, 3, 4.
    pub envelopes: [Decimal; 3],
    pub small_envelopes: [Decimal; 3],
}

fn entry(id: u32, name: &str, start: &str, end: &str) -> SeasonEntry {
    SeasonEntry {
        id,
        name: name.into(),
        start: start.into(),
        end: end.into(),
    }
}

fn task(id: u32, tasktype: u8, value: i64, cash: i64, needcheck: bool, desc: &str) -> TaskDef {
    TaskDef {
        id,
        tasktype,
        taskvalue: Decimal::from(value),
        taskdesc: desc.into(),
        bonusname: format!("{cash} cash"),
        cash: Decimal::from(cash),
        score: 0,
        bonuscnt: 1,
        needcheck,
    }
}

impl Default for SeasonsConfig {
    fn default() -> Self {
        Self {
            min_off_days: 15,
            max_off_days: 30,
            day_stake: Decimal::from(1000),
            day_deposit: Decimal::from(500),
            min_active_days: 11,
            day_offset_minutes: 0,
            calendar: vec![
                entry(1, "Season 1", "2026-01-01", "2026-04-10"),
                entry(2, "Season 2", "2026-05-01", "2026-08-10"),
                entry(3, "Season 3", "2026-09-01", "2026-12-10"),
                entry(4, "Season 4", "2027-01-01", "2027-04-10"),
                entry(5, "Season 5", "2027-05-01", "2027-08-10"),
                entry(6, "Season 6", "2027-09-01", "2027-12-10"),
            ],
            tasks: vec![
                task(1, 1, 5, 18, false, "Bet on 5 different days"),
                task(2, 2, 10, 28, false, "Win 10 bets"),
                task(3, 3, 1000, 58, false, "Make a profit of 1000"),
                task(4, 4, 20, 18, false, "Settle 20 bets"),
                task(5, 5, 3, 18, false, "Make 3 deposits"),
                task(6, 6, 500, 28, false, "Spend 500 M currency"),
                task(7, 8, 11, 38, false, "Be active on more than 10 days"),
                task(8, 7, 0, 188, true, "Complete every season task"),
            ],
            envelopes: [Decimal::from(88), Decimal::from(388), Decimal::from(888)],
            small_envelopes: [Decimal::from(8), Decimal::from(18), Decimal::from(38)],
        }
    }
}

impl SeasonsConfig {
    pub fn settings(&self) -> anyhow::Result<SeasonSettings> {
        let mut seasons = Vec::new();
        for e in &self.calendar {
            let time = |t: &str| {
                parse_time(t).ok_or_else(|| {
                    anyhow::anyhow!("seasons.calendar: season {}: bad time '{t}'", e.id)
                })
            };
            seasons.push(SeasonDef {
                id: e.id,
                name: e.name.chars().take(60).collect(),
                start_ms: time(&e.start)?,
                end_ms: time(&e.end)?,
            });
        }
        let calendar = Calendar::new(seasons, self.min_off_days, self.max_off_days)
            .map_err(|e| anyhow::anyhow!("seasons.calendar: {e}"))?;
        for t in &self.tasks {
            t.check()
                .map_err(|e| anyhow::anyhow!("seasons.tasks: {e}"))?;
        }
        Ok(SeasonSettings {
            calendar,
            rule: ActivityRule {
                day_stake: self.day_stake,
                day_deposit: self.day_deposit,
                min_active_days: self.min_active_days,
            },
            day_offset_minutes: self.day_offset_minutes.clamp(-24 * 60, 24 * 60),
            default_tasks: self.tasks.clone(),
            envelopes: self.envelopes,
            small_envelopes: self.small_envelopes,
        })
    }
}
