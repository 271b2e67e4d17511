//! Daily sign-in and daily / novice tasks (spec 001 sections 2.1
//! /novicetask, 3 season task fields, 4 task reward states).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use super::text::LangText;

/// Task reward states (spec 001 section 4: 0 undone, 1 claimable, any
/// other value received; the platform adds 3 under review, 4 rejected,
/// which the client treats as "not claimable" like received).
pub mod status {
    pub const UNDONE: i32 = 0;
    pub const CLAIMABLE: i32 = 1;
    pub const RECEIVED: i32 = 2;
    pub const REVIEW: i32 = 3;
    pub const REJECTED: i32 = 4;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskGroup {
    /// Resets every day; claimable once per member and day.
    Daily,
    /// Once per member, ever (/novicetask).
    Novice,
}

/// What a task measures. Daily: today's figure; novice: the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    /// Sign-ins (daily: signed in today = 1; novice: days signed in).
    Signin,
    /// Credited deposits.
    Deposit,
    /// Valid turnover (the VIP rules of docs/vip.md).
    Turnover,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskDef {
    pub id: u32,
    pub group: TaskGroup,
    pub kind: TaskKind,
    pub target: Decimal,
    /// Reward, member's currency, paid to the bonus pot.
    pub cash: Decimal,
    /// The task's text per language (an older single string loads as
    /// the same text in each).
    pub title: LangText,
    #[serde(default)]
    pub needcheck: bool,
}

/// Sign-in table and tasks: one settings document marketing edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskSettings {
    /// Reward of the n-th consecutive day (index n-1); a longer streak
    /// earns the last entry.
    pub signin: Vec<Decimal>,
    pub tasks: Vec<TaskDef>,
    /// Valid turnover required before a task or sign-in bonus can be
    /// withdrawn, as a multiple of the bonus.
    pub turnover_multiple: Decimal,
}

impl Default for TaskSettings {
    fn default() -> Self {
        let task = |id, group, kind, target, cash, title: [&str; 3]| TaskDef {
            id,
            group,
            kind,
            target,
            cash,
            title: LangText::new(title[0], title[1], title[2]),
            needcheck: false,
        };
        use TaskGroup::*;
        use TaskKind::*;
        TaskSettings {
            signin: vec![
                Decimal::from(1),
                Decimal::from(2),
                Decimal::from(3),
                Decimal::from(5),
                Decimal::from(5),
                Decimal::from(8),
                Decimal::from(18),
            ],
            tasks: vec![
                task(
                    1,
                    Daily,
                    Signin,
                    Decimal::from(1),
                    Decimal::from(1),
                    ["今日签到", "Sign in today", "เช็คอินวันนี้"],
                ),
                task(
                    2,
                    Daily,
                    Deposit,
                    Decimal::from(100),
                    Decimal::from(5),
                    ["今日存款100", "Deposit 100 today", "ฝากเงิน 100 วันนี้"],
                ),
                task(
                    3,
                    Daily,
                    Turnover,
                    Decimal::from(500),
                    Decimal::from(8),
                    ["今日投注500", "Bet 500 today", "เดิมพัน 500 วันนี้"],
                ),
                task(
                    101,
                    Novice,
                    Signin,
                    Decimal::from(3),
                    Decimal::from(5),
                    ["签到3天", "Sign in on 3 days", "เช็คอิน 3 วัน"],
                ),
                task(
                    102,
                    Novice,
                    Deposit,
                    Decimal::from(100),
                    Decimal::from(10),
                    [
                        "首次存款100",
                        "Make a first deposit of 100",
                        "ฝากเงินครั้งแรก 100",
                    ],
                ),
                task(
                    103,
                    Novice,
                    Turnover,
                    Decimal::from(1000),
                    Decimal::from(18),
                    ["累计投注1000", "Bet 1000 in total", "เดิมพันรวม 1000"],
                ),
            ],
            turnover_multiple: Decimal::from(1),
        }
    }
}

/// Bounds on what staff may save.
pub const MAX_TASKS: usize = 50;
pub const MAX_SIGNIN_DAYS: usize = 31;
const MAX_REWARD: Decimal = Decimal::from_parts(100000, 0, 0, false, 0);

fn amount_ok(a: Decimal) -> bool {
    a >= Decimal::ZERO && a <= MAX_REWARD && a.scale() <= 2
}

impl TaskSettings {
    pub fn check(&self) -> Result<(), String> {
        if self.signin.is_empty() || self.signin.len() > MAX_SIGNIN_DAYS {
            return Err(format!("signin: 1 to {MAX_SIGNIN_DAYS} days"));
        }
        if !self.signin.iter().all(|a| amount_ok(*a)) {
            return Err("signin: rewards 0 to 100000, 2 places".into());
        }
        if self.tasks.len() > MAX_TASKS {
            return Err(format!("at most {MAX_TASKS} tasks"));
        }
        let mut ids = std::collections::BTreeSet::new();
        for t in &self.tasks {
            if t.id == 0 || t.id > 9999 || !ids.insert(t.id) {
                return Err(format!("task {}: ids 1 to 9999, each once", t.id));
            }
            if t.target <= Decimal::ZERO
                || t.target > Decimal::from(100000000)
                || !amount_ok(t.cash)
            {
                return Err(format!("task {}: target above 0, cash 0 to 100000", t.id));
            }
            if !t.title.check_required(100) {
                return Err(format!(
                    "task {}: title 1 to 100 characters in zhh, eng and tha",
                    t.id
                ));
            }
        }
        if self.turnover_multiple < Decimal::ZERO || self.turnover_multiple > Decimal::from(100) {
            return Err("turnover_multiple 0 to 100".into());
        }
        Ok(())
    }

    pub fn task(&self, id: u32) -> Option<&TaskDef> {
        self.tasks.iter().find(|t| t.id == id)
    }

    /// The reward of the `streak`-th consecutive sign-in (1-based).
    pub fn signin_reward(&self, streak: u32) -> Decimal {
        let i = (streak.max(1) as usize - 1).min(self.signin.len().saturating_sub(1));
        self.signin.get(i).copied().unwrap_or_default()
    }
}

/// The streak of a sign-in on `today`, given the member's latest earlier
/// sign-in (day, streak): it continues only from yesterday.
pub fn streak_on(today: i64, previous: Option<(i64, u32)>) -> u32 {
    match previous {
        Some((day, streak)) if day == today - 1 => streak.saturating_add(1),
        _ => 1,
    }
}

/// A task's status from its progress and its claim's state (if any).
pub fn task_status(done: bool, claim_state: Option<&str>) -> i32 {
    match claim_state {
        Some("paid" | "approved") => status::RECEIVED,
        Some("pending") => status::REVIEW,
        Some("rejected") => status::REJECTED,
        _ if done => status::CLAIMABLE,
        _ => status::UNDONE,
    }
}

/// The claim reference of a task: daily tasks once per day, novice once.
pub fn claim_reference(member_id: &str, task: &TaskDef, day: i64) -> String {
    match task.group {
        TaskGroup::Daily => format!("task:{member_id}:{}:{day}", task.id),
        TaskGroup::Novice => format!("novice:{member_id}:{}", task.id),
    }
}

/// The period text of a claim (the day for daily tasks, "once" for novice).
pub fn claim_period(task: &TaskDef, day: i64) -> String {
    match task.group {
        TaskGroup::Daily => day.to_string(),
        TaskGroup::Novice => "once".into(),
    }
}

/// Progress percent, capped at 100 (spec 001 section 9).
pub fn percent(now: Decimal, target: Decimal) -> u32 {
    if target <= Decimal::ZERO {
        return 100;
    }
    let p = (now.max(Decimal::ZERO) * Decimal::ONE_HUNDRED / target).floor();
    p.min(Decimal::ONE_HUNDRED).to_string().parse().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rust_decimal_macros::dec;

    #[test]
    fn a_streak_continues_only_from_yesterday() {
        assert_eq!(streak_on(10, None), 1);
        assert_eq!(streak_on(10, Some((9, 4))), 5);
        assert_eq!(streak_on(10, Some((8, 4))), 1);
    }

    #[test]
    fn a_long_streak_earns_the_last_days_reward() {
        let s = TaskSettings::default();
        assert_eq!(s.signin_reward(1), dec!(1));
        assert_eq!(s.signin_reward(7), dec!(18));
        assert_eq!(s.signin_reward(40), dec!(18));
    }

    #[test]
    fn task_states_follow_spec_section_4() {
        assert_eq!(task_status(false, None), 0);
        assert_eq!(task_status(true, None), 1);
        assert_eq!(task_status(true, Some("paid")), 2);
        assert_eq!(task_status(true, Some("pending")), 3);
        assert_eq!(percent(dec!(250), dec!(100)), 100);
        assert_eq!(percent(dec!(33), dec!(100)), 33);
    }

    #[test]
    fn settings_refuse_duplicate_ids_and_bad_amounts() {
        let mut s = TaskSettings::default();
        assert!(s.check().is_ok());
        s.tasks[1].id = 1;
        assert!(s.check().is_err());
        let mut s = TaskSettings::default();
        s.signin[0] = dec!(-1);
        assert!(s.check().is_err());
    }

    #[test]
    fn daily_references_carry_the_day_and_novice_ones_do_not() {
        let s = TaskSettings::default();
        let daily = s.task(1).unwrap();
        let novice = s.task(101).unwrap();
        assert_eq!(claim_reference("m", daily, 5), "task:m:1:5");
        assert_eq!(claim_reference("m", novice, 5), "novice:m:101");
    }
}
