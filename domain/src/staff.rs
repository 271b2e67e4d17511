//! Back-office staff: roles and what each may do. Staff are not members:
//! they have their own accounts, logins and tokens.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Answers super bets (the counter-offer queue).
    Support,
    /// Reads bets' event histories and replays them against read models.
    Auditor,
    /// Enters, corrects and voids results (games and markets).
    Trader,
    /// Everything, and manages staff accounts.
    Admin,
    /// Reviews withdrawals and flagged deposits, reconciles providers.
    Finance,
    /// Runs campaigns: activities, tasks, the prize board, shop goods,
    /// notices, banners, popups, messages to segments, news and help pages.
    Marketing,
}

/// What a back-office call does, for the permission check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duty {
    /// The counter-offer queue: read it, offer, accept, decline.
    CounterOffers,
    /// Bet search, audit trails, the replay check.
    Audit,
    /// Create and list staff accounts.
    ManageStaff,
    /// Enter, correct and void results of games and markets.
    Results,
    /// The queue of corrections members could not cover: read it, collect,
    /// write off.
    Shortfalls,
    /// Operate the projections: retry or skip a parked poison event.
    Projections,
    /// Withdrawal and deposit review, members' money history,
    /// reconciliation of provider transactions.
    Payments,
    /// Campaigns and content (promotions, tasks, prize draw, shop, notices,
    /// banners, popups, inbox campaigns, news, help).
    Marketing,
    /// Members' safer-gambling rules: read them and their history, start
    /// (never end) a time-out, produce a statement.
    SaferGambling,
}

impl Role {
    pub const ALL: [Role; 6] = [
        Role::Support,
        Role::Auditor,
        Role::Trader,
        Role::Admin,
        Role::Finance,
        Role::Marketing,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Role::Support => "support",
            Role::Auditor => "auditor",
            Role::Trader => "trader",
            Role::Admin => "admin",
            Role::Finance => "finance",
            Role::Marketing => "marketing",
        }
    }

    pub fn parse(name: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.name() == name.trim())
    }

    /// The one permission table of the back office.
    pub fn may(self, duty: Duty) -> bool {
        matches!(
            (self, duty),
            (Role::Admin, _)
                | (
                    Role::Support,
                    Duty::CounterOffers | Duty::Shortfalls | Duty::SaferGambling
                )
                | (Role::Auditor, Duty::Audit)
                | (Role::Trader, Duty::Results)
                | (Role::Finance, Duty::Payments)
                | (Role::Marketing, Duty::Marketing)
        )
    }
}

/// Staff user names: 3 to 32 letters, digits, '.', '_' or '-'.
pub fn valid_username(name: &str) -> bool {
    (3..=32).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// Staff passwords: at least 8 characters.
pub fn valid_password(password: &str) -> bool {
    password.chars().count() >= 8 && password.chars().count() <= 128
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_role_may_only_its_own_duties_and_admin_all() {
        use Duty::*;
        let table = [
            (
                Role::Support,
                [true, false, false, false, true, false, false, true],
            ),
            (
                Role::Auditor,
                [false, true, false, false, false, false, false, false],
            ),
            (
                Role::Trader,
                [false, false, false, true, false, false, false, false],
            ),
            (
                Role::Admin,
                [true, true, true, true, true, true, true, true],
            ),
            (
                Role::Finance,
                [false, false, false, false, false, true, false, false],
            ),
            (
                Role::Marketing,
                [false, false, false, false, false, false, true, false],
            ),
        ];
        for (role, allowed) in table {
            for (duty, ok) in [
                CounterOffers,
                Audit,
                ManageStaff,
                Results,
                Shortfalls,
                Payments,
                Marketing,
                SaferGambling,
            ]
            .into_iter()
            .zip(allowed)
            {
                assert_eq!(role.may(duty), ok, "{role:?} {duty:?}");
            }
            assert_eq!(
                role.may(Projections),
                role == Role::Admin,
                "{role:?} Projections"
            );
        }
    }

    #[test]
    fn roles_parse_from_their_names_only() {
        for role in Role::ALL {
            assert_eq!(Role::parse(role.name()), Some(role));
        }
        assert_eq!(Role::parse("root"), None);
        assert_eq!(Role::parse(""), None);
    }

    #[test]
    fn staff_names_and_passwords_have_bounds() {
        assert!(valid_username("support"));
        assert!(!valid_username("ab"));
        assert!(!valid_username("bad name"));
        assert!(valid_password("support1234"));
        assert!(!valid_password("short"));
    }
}
