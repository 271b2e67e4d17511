//! Back-office staff accounts and their sessions (tokens valid 8 hours,
//! only SHA-256 hashes stored). Five failed logins of one user name within
//! 15 minutes lock that name until the window passes (1022).

use domain::staff::{valid_password, valid_username, Role};
use domain::Code;
use sqlx::{AnyPool, Row};

use crate::accounts::sessions::{hash, token};
use crate::accounts::{hash_password, login_password_matches};
use crate::platform::clock::SharedClock;
use crate::platform::limits::RateLimit;

pub const STAFF_SESSION_MS: i64 = 8 * 3_600_000;

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Staff {
    pub id: String,
    pub username: String,
    pub role: Role,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct StaffLogin {
    pub token: String,
    pub role: Role,
    pub username: String,
    pub expires: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum StaffError {
    #[error("Invalid username and/or password")]
    BadCredentials,
    #[error("Your account has been locked. Please try again later.")]
    Locked { wait: i64 },
    #[error("Not logged in")]
    NotLoggedIn,
    #[error("{0}")]
    Invalid(&'static str),
    #[error("That user name is taken")]
    Taken,
    #[error("internal: {0}")]
    Internal(String),
}

impl StaffError {
    pub fn code(&self) -> i32 {
        match self {
            StaffError::BadCredentials => 1002,
            StaffError::Locked { .. } => Code::ACCOUNT_TEMPORARILY_LOCKED.0,
            StaffError::NotLoggedIn => -401,
            StaffError::Invalid(_) | StaffError::Taken => Code::BAD_PARAMETERS.0,
            StaffError::Internal(_) => Code::INTERNAL.0,
        }
    }
}

impl From<sqlx::Error> for StaffError {
    fn from(e: sqlx::Error) -> Self {
        StaffError::Internal(e.to_string())
    }
}

pub struct StaffService {
    pool: AnyPool,
    clock: SharedClock,
    failures: RateLimit,
}

impl StaffService {
    pub fn new(pool: AnyPool, clock: SharedClock) -> Self {
        Self {
            failures: RateLimit::new(pool.clone(), "staff_login", 5, 15 * 60_000),
            pool,
            clock,
        }
    }

    /// Creates a staff account.
    pub async fn create(
        &self,
        username: &str,
        password: &str,
        role: Role,
    ) -> Result<Staff, StaffError> {
        let username = username.trim();
        if !valid_username(username) {
            return Err(StaffError::Invalid(
                "User name: 3 to 32 letters, digits, '.', '_' or '-'",
            ));
        }
        if !valid_password(password) {
            return Err(StaffError::Invalid("Password: at least 8 characters"));
        }
        let password = password.to_string();
        let hashed = tokio::task::spawn_blocking(move || hash_password(&password))
            .await
            .map_err(|e| StaffError::Internal(e.to_string()))?
            .map_err(StaffError::Internal)?;
        let staff = Staff {
            id: format!("staff-{}", &token()[..16]),
            username: username.to_string(),
            role,
        };
        let inserted = sqlx::query(
            "INSERT INTO staff (id, username, password_hash, role, created_ms) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (username) DO NOTHING",
        )
        .bind(&staff.id)
        .bind(&staff.username)
        .bind(hashed)
        .bind(role.name())
        .bind(self.clock.now_ms())
        .execute(&self.pool)
        .await?;
        if inserted.rows_affected() == 0 {
            return Err(StaffError::Taken);
        }
        Ok(staff)
    }

    /// Creates the account unless the user name exists (demo seeding).
    pub async fn ensure(
        &self,
        username: &str,
        password: &str,
        role: Role,
    ) -> Result<(), StaffError> {
        match self.create(username, password, role).await {
            Ok(_) | Err(StaffError::Taken) => Ok(()),
            Err(e) => Err(e),
        }
    }

    pub async fn list(&self) -> Result<Vec<Staff>, StaffError> {
        let rows = sqlx::query("SELECT id, username, role FROM staff ORDER BY username")
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(staff_of).collect()
    }

    pub async fn login(&self, username: &str, password: &str) -> Result<StaffLogin, StaffError> {
        let now = self.clock.now_ms();
        let key = username.trim().to_lowercase();
        // A locked name stays locked even with the right password.
        if let Some(wait) = self.failures.full(&key, now).await? {
            return Err(StaffError::Locked { wait });
        }
        let row =
            sqlx::query("SELECT id, username, role, password_hash FROM staff WHERE username = $1")
                .bind(username.trim())
                .fetch_optional(&self.pool)
                .await?;
        // A name nobody has is checked against a dummy hash: the same
        // argon2 time as a wrong password, so timing lists no staff names.
        let stored: Option<String> = row
            .as_ref()
            .map(|row| row.try_get("password_hash"))
            .transpose()?;
        let password = password.to_string();
        let matches = tokio::task::spawn_blocking(move || {
            login_password_matches(Some(&password), stored.as_deref())
        })
        .await
        .map_err(|e| StaffError::Internal(e.to_string()))?;
        let (Some(row), true) = (row, matches) else {
            return Err(match self.failures.hit(&key, now).await? {
                Ok(()) => StaffError::BadCredentials,
                Err(wait) => StaffError::Locked { wait },
            });
        };
        let staff = staff_of(&row)?;
        let token = token();
        let expires = now + STAFF_SESSION_MS;
        sqlx::query("DELETE FROM staff_sessions WHERE expires_ms < $1")
            .bind(now)
            .execute(&self.pool)
            .await?;
        sqlx::query(
            "INSERT INTO staff_sessions (token_hash, staff_id, expires_ms) VALUES ($1, $2, $3)",
        )
        .bind(hash(&token))
        .bind(&staff.id)
        .bind(expires)
        .execute(&self.pool)
        .await?;
        Ok(StaffLogin {
            token,
            role: staff.role,
            username: staff.username,
            expires,
        })
    }

    /// Who holds `token`, if it is still valid.
    pub async fn authenticate(&self, token: &str) -> Result<Staff, StaffError> {
        let row = sqlx::query(
            "SELECT s.id, s.username, s.role, t.expires_ms FROM staff_sessions t JOIN staff s ON s.id = t.staff_id WHERE t.token_hash = $1",
        )
        .bind(hash(token.trim()))
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StaffError::NotLoggedIn)?;
        let expires: i64 = row.try_get("expires_ms")?;
        if expires <= self.clock.now_ms() {
            return Err(StaffError::NotLoggedIn);
        }
        staff_of(&row)
    }

    pub async fn logout(&self, token: &str) -> Result<(), StaffError> {
        sqlx::query("DELETE FROM staff_sessions WHERE token_hash = $1")
            .bind(hash(token.trim()))
            .execute(&self.pool)
            .await?;
        Ok(())
    }
}

fn staff_of(row: &sqlx::any::AnyRow) -> Result<Staff, StaffError> {
    let role: String = row.try_get("role")?;
    Ok(Staff {
        id: row.try_get("id")?,
        username: row.try_get("username")?,
        role: Role::parse(&role)
            .ok_or_else(|| StaffError::Internal(format!("unknown role {role}")))?,
    })
}
