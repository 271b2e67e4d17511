//! A member's statement: deposits, withdrawals, stakes and returns of the
//! last months as CSV, from the ledger read model (`wallet_movements`).

use domain::safer::Calendar;
use sqlx::{AnyPool, Row};

/// The most months a statement covers.
pub const MONTHS_MAX: u32 = 24;
/// The most lines one statement holds (the newest are kept).
pub const ROWS_MAX: i64 = 200_000;

const DAY_MS: i64 = 86_400_000;

/// What a ledger movement is on a statement (`None`: not money in or
/// out of play, such as a withdrawal's hold).
fn line_kind(kind: &str, reference: &str) -> Option<&'static str> {
    Some(match kind {
        "deposit" => "deposit",
        "withdrawal" => "withdrawal",
        "bet" | "game_debit" => "stake",
        "payout" | "bet_refund" | "game_credit" => "return",
        "bonus" | "rebate" => "bonus",
        "adjustment" if reference.starts_with("transfer:") => "transfer",
        "adjustment" => "adjustment",
        _ => return None,
    })
}

/// Quotes a CSV field when it needs it, and defuses spreadsheet formulas.
fn field(text: &str) -> String {
    let text = match text.chars().next() {
        Some('=' | '+' | '-' | '@') if text.parse::<f64>().is_err() => format!("'{text}"),
        _ => text.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The member's statement of the `months` before `now_ms`, oldest first,
/// with totals per kind at the end.
pub async fn statement(
    pool: &AnyPool,
    calendar: &Calendar,
    member_id: &str,
    months: u32,
    now_ms: i64,
) -> Result<String, sqlx::Error> {
    let months = months.clamp(1, MONTHS_MAX);
    let from = now_ms - i64::from(months) * 31 * DAY_MS;
    let rows = sqlx::query(
        "SELECT at_ms, kind, reference, currency, amount, balance_after FROM wallet_movements
         WHERE member_id = $1 AND at_ms >= $2 ORDER BY at_ms DESC, sequence DESC LIMIT $3",
    )
    .bind(member_id)
    .bind(from)
    .bind(ROWS_MAX)
    .fetch_all(pool)
    .await?;
    let mut out = String::from("date,type,reference,currency,amount,balance_after\n");
    let mut totals: Vec<(&'static str, String, rust_decimal::Decimal)> = Vec::new();
    for row in rows.iter().rev() {
        let kind: String = row.try_get("kind")?;
        let reference: String = row.try_get("reference")?;
        let Some(line) = line_kind(&kind, &reference) else {
            continue;
        };
        let at: i64 = row.try_get("at_ms")?;
        let currency: String = row.try_get("currency")?;
        let amount: String = row.try_get("amount")?;
        let balance: String = row.try_get("balance_after")?;
        out.push_str(&format!(
            "{},{},{},{},{},{}\n",
            calendar.local_text(at),
            line,
            field(&reference),
            field(&currency),
            field(&amount),
            field(&balance)
        ));
        let value: rust_decimal::Decimal = amount.parse().unwrap_or_default();
        match totals
            .iter_mut()
            .find(|(k, c, _)| *k == line && *c == currency)
        {
            Some(total) => total.2 += value,
            None => totals.push((line, currency, value)),
        }
    }
    for (kind, currency, total) in totals {
        out.push_str(&format!("total,{kind},,{},{total},\n", field(&currency)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_quoted_and_formulas_defused() {
        assert_eq!(field("bet:12"), "bet:12");
        assert_eq!(field("-10.00"), "-10.00");
        assert_eq!(field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(field("a,b"), "\"a,b\"");
    }

    #[test]
    fn holds_are_not_statement_lines() {
        assert_eq!(line_kind("freeze", "w:1"), None);
        assert_eq!(line_kind("bet", "bet:1"), Some("stake"));
        assert_eq!(line_kind("payout", "bet:1:payout:1"), Some("return"));
        assert_eq!(line_kind("adjustment", "transfer:T1:out"), Some("transfer"));
    }
}
