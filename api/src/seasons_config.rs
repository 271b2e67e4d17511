//! `[seasons]`: the season calendar, the receiving condition and the
//! season task definitions seeded into a season (docs/seasons.md).

use commands::engagement::seasons::SeasonSettings;
use domain::season::{parse_time, ActivityRule, Calendar, LangText, SeasonDef, TaskDef};
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

/// A default task; `desc` is `[zhh, eng, tha]`.
fn task(id: u32, tasktype: u8, value: i64, cash: i64, needcheck: bool, desc: [&str; 3]) -> TaskDef {
    TaskDef {
        id,
        tasktype,
        taskvalue: Decimal::from(value),
        taskdesc: LangText::new(desc[0], desc[1], desc[2]),
        bonusname: LangText::new(
            &format!("{cash} 现金红包"),
            &format!("{cash} cash"),
            &format!("{cash} เงินสด"),
        ),
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
                task(
                    1,
                    1,
                    5,
                    18,
                    false,
                    [
                        "在5个不同的日子投注",
                        "Bet on 5 different days",
                        "เดิมพันใน 5 วันที่ต่างกัน",
                    ],
                ),
                task(
                    2,
                    2,
                    10,
                    28,
                    false,
                    ["赢得10次投注", "Win 10 bets", "ชนะเดิมพัน 10 ครั้ง"],
                ),
                task(
                    3,
                    3,
                    1000,
                    58,
                    false,
                    ["盈利达到1000", "Make a profit of 1000", "ทำกำไรให้ได้ 1000"],
                ),
                task(
                    4,
                    4,
                    20,
                    18,
                    false,
                    ["结算20笔投注", "Settle 20 bets", "มีเดิมพันที่ได้ผลแล้ว 20 รายการ"],
                ),
                task(
                    5,
                    5,
                    3,
                    18,
                    false,
                    ["存款3次", "Make 3 deposits", "ฝากเงิน 3 ครั้ง"],
                ),
                task(
                    6,
                    6,
                    500,
                    28,
                    false,
                    ["消费500 M币", "Spend 500 M currency", "ใช้เหรียญ M 500"],
                ),
                task(
                    7,
                    8,
                    11,
                    38,
                    false,
                    [
                        "活跃超过10天",
                        "Be active on more than 10 days",
                        "เข้าร่วมกิจกรรมมากกว่า 10 วัน",
                    ],
                ),
                task(
                    8,
                    7,
                    0,
                    188,
                    true,
                    [
                        "完成所有赛季任务",
                        "Complete every season task",
                        "ทำภารกิจประจำฤดูกาลให้ครบทุกภารกิจ",
                    ],
                ),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configured_task_text_is_one_string_or_three_languages() {
        let config: SeasonsConfig = toml::from_str(
            r#"
[[tasks]]
id = 1
tasktype = 1
taskvalue = "5"
taskdesc = "Bet on 5 days"
bonusname = "18 cash"

[[tasks]]
id = 2
tasktype = 2
taskvalue = "10"
taskdesc = { zhh = "赢得10次投注", eng = "Win 10 bets", tha = "ชนะเดิมพัน 10 ครั้ง" }
"#,
        )
        .unwrap();
        assert_eq!(config.tasks[0].taskdesc, LangText::same("Bet on 5 days"));
        assert_eq!(config.tasks[0].bonusname.pick("zhh"), "18 cash");
        assert_eq!(config.tasks[1].taskdesc.pick("tha"), "ชนะเดิมพัน 10 ครั้ง");
        assert!(config.settings().is_ok());
    }

    #[test]
    fn the_default_tasks_have_every_language() {
        for t in SeasonsConfig::default().tasks {
            assert!(t.taskdesc.check_required(200), "{t:?}");
            assert!(t.bonusname.check_required(100), "{t:?}");
            assert_ne!(t.taskdesc.zhh, t.taskdesc.eng);
            assert_ne!(t.taskdesc.tha, t.taskdesc.eng);
        }
    }
}
