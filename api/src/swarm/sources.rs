//! The `get` sources a Swarm client asks for at start-up besides the
//! sportsbook (`source: "betting"`): `user` (the member's profile),
//! `partner.config` (the site's settings) and `config.currency` (the
//! currencies), answered from the platform's configuration and the
//! member's account. They answer in the shape of a `get` (`{data: {...}}`,
//! or `{subid, data}` when subscribed); a subscription to them is accepted
//! but not pushed (the client asks again, or reads `get_balance`).

use serde_json::{json, Map, Value};

/// The sources other than the sportsbook.
pub const SOURCES: &[&str] = &["user", "partner.config", "config.currency"];

/// What the platform's configuration says (`[bets]`, `[accounts]`), as
/// `partner.config` answers it.
#[derive(Debug, Clone)]
pub struct Platform {
    pub site_id: String,
    pub default_currency: String,
    pub min_stake: rust_decimal::Decimal,
    pub max_stake: rust_decimal::Decimal,
    pub max_express_odds: rust_decimal::Decimal,
    pub max_selections: usize,
    pub languages: Vec<String>,
}

fn number(d: rust_decimal::Decimal) -> Value {
    d.normalize()
        .to_string()
        .parse::<serde_json::Number>()
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

/// Money as a JSON number (the real protocol's balances are numbers).
pub fn money(text: &str) -> Value {
    text.parse::<serde_json::Number>()
        .map(Value::Number)
        .unwrap_or(Value::Null)
}

impl Platform {
    /// `partner.config`: `{partner: {<site_id>: {...}}}`.
    pub fn partner(&self) -> Value {
        let mut partner = Map::new();
        partner.insert(
            self.site_id.clone(),
            json!({
                "id": self.site_id.parse::<i64>().map(Value::from).unwrap_or(Value::String(self.site_id.clone())),
                "currency": self.default_currency,
                "supported_currencies": domain::Currency::ALL.iter().map(|c| c.code()).collect::<Vec<_>>(),
                "min_bet_stakes": {self.default_currency.clone(): number(self.min_stake)},
                "max_bet_stakes": {self.default_currency.clone(): number(self.max_stake)},
                "max_odd_for_multiple_bet": number(self.max_express_odds),
                "max_selections_in_multiple_bet": self.max_selections,
                "languages": self.languages,
                "is_cashout_live": 1,
                "is_cashout_prematch": 1,
                "price_decimals": 3,
            }),
        );
        json!({ "partner": partner })
    }

    /// `config.currency`: `{currency: {<code>: {name, rounding, ...}}}`,
    /// filtered by `where.currency.name` when given.
    pub fn currencies(&self, where_: &Value) -> Result<Value, String> {
        let wanted = match where_.pointer("/currency/name") {
            None | Some(Value::Null) => None,
            Some(Value::String(name)) => Some(name.to_ascii_uppercase()),
            Some(_) => return Err("where.currency.name must be a string".into()),
        };
        let mut out = Map::new();
        for currency in domain::Currency::ALL {
            if wanted.as_deref().is_some_and(|w| w != currency.code()) {
                continue;
            }
            out.insert(
                currency.code().to_string(),
                json!({
                    "id": currency.code(),
                    "name": currency.code(),
                    "rounding": currency.places(),
                    "places": currency.places(),
                }),
            );
        }
        Ok(json!({ "currency": out }))
    }
}

/// The member's profile as `user` answers it: `{profile: {<user_id>:
/// {...}}}`.
pub fn profile(user_id: &str, username: &str, currency: &str, balance: &Value) -> Value {
    let mut profile = Map::new();
    profile.insert(
        user_id.to_string(),
        json!({
            "id": user_id.parse::<i64>().map(Value::from).unwrap_or(Value::String(user_id.to_string())),
            "unique_id": user_id,
            "username": username,
            "currency_name": currency,
            "currency": currency,
            "balance": balance.get("balance").cloned().unwrap_or(Value::Null),
            "bonus_balance": balance.get("bonus_balance").cloned().unwrap_or(Value::Null),
            "frozen_balance": balance.get("frozen_balance").cloned().unwrap_or(Value::Null),
            "casino_balance": 0,
        }),
    );
    json!({ "profile": profile })
}

/// `get_balance`: `{balance, bonus_balance, bonus_win_balance,
/// frozen_balance, currency}` with the amounts as numbers.
pub async fn balance(betting: &crate::betting::Betting, user_id: &str) -> Result<Value, String> {
    let account = betting
        .accounts
        .load(user_id)
        .await
        .map_err(|e| e.to_string())?;
    let currency = account
        .profile
        .as_ref()
        .map(|p| p.currency)
        .unwrap_or(domain::Currency::Cny);
    let row = projections::balances::get_current(&betting.pool, user_id, currency.code())
        .await
        .map_err(|e| e.to_string())?;
    let ledger = row.map(|r| r.ledger).unwrap_or_default();
    let amount = |d| money(&currency.round(d).to_string());
    Ok(json!({
        "balance": amount(ledger.balances.main),
        "bonus_balance": amount(ledger.balances.bonus),
        "bonus_win_balance": amount(ledger.balances.bonus_win),
        "frozen_balance": amount(ledger.balances.frozen),
        "currency": currency.code(),
    }))
}

/// The `user` source: the member's profile with the balance.
pub async fn user_profile(
    betting: &crate::betting::Betting,
    user_id: &str,
) -> Result<Value, String> {
    let account = betting
        .accounts
        .load(user_id)
        .await
        .map_err(|e| e.to_string())?;
    let (username, currency) = account
        .profile
        .as_ref()
        .map(|p| (p.username.as_str().to_string(), p.currency.code()))
        .unwrap_or_default();
    let balance = balance(betting, user_id).await?;
    Ok(profile(user_id, &username, currency, &balance))
}
