//! The payment-provider port and the sandbox provider that stands in for a
//! real one (DESIGN.md "Payments (wire contract)").
//!
//! A provider reports payments by calling `POST /api/payments/callback/
//! {provider}` with a JSON body and `X-Signature: t=<unix s>,v1=<hex
//! HMAC-SHA256(secret, t + "." + raw body)>`. The platform checks the
//! signature and the timestamp (300 s) before reading the body.
//!
//! The sandbox keeps its own payments and an outbox of callbacks: each
//! payment is reported `repeats` times, at staggered times, delivered
//! concurrently (so copies and other reports arrive in any order), and
//! retried with backoff until the platform answers 200. Its pay page is
//! served only with DEMO=1.

use hmac::{Hmac, Mac};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use sqlx::Row;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::{PaymentFailure, PaymentResult, Payments};
use domain::payment::codes;

/// The body of a provider callback.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CallbackBody {
    pub event_id: String,
    pub order_id: String,
    pub provider_tx_id: String,
    /// A decimal string.
    pub amount: String,
    pub currency: String,
    pub status: String,
    /// Unix seconds.
    pub created: i64,
}

/// The port a real provider's adapter implements: how its callbacks are
/// authenticated and read, and where members pay.
pub trait PaymentProvider: Send + Sync {
    fn code(&self) -> &'static str;
    /// Verifies `signature` over `body` at `now_s`.
    fn verify(&self, body: &[u8], signature: &str, now_s: i64) -> Result<(), SignatureError>;
    /// Reads a verified body.
    fn parse(&self, body: &[u8]) -> Result<CallbackBody, String>;
    /// The page the member pays on.
    fn pay_url(&self, order_id: &str) -> String;
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SignatureError {
    #[error("missing or malformed X-Signature")]
    Malformed,
    #[error("signature timestamp outside the tolerance")]
    Stale,
    #[error("signature does not match")]
    Mismatch,
}

/// `t=<now_s>,v1=<hex hmac>` over `body`.
pub fn sign(secret: &str, body: &[u8], now_s: i64) -> String {
    format!("t={now_s},v1={}", hex::encode(mac(secret, now_s, body)))
}

fn mac(secret: &str, t: i64, body: &[u8]) -> Vec<u8> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

/// Checks a `t=...,v1=...` header against `body`.
pub fn verify(
    secret: &str,
    body: &[u8],
    header: &str,
    now_s: i64,
    tolerance_s: i64,
) -> Result<(), SignatureError> {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => t = value.parse::<i64>().ok(),
            Some(("v1", value)) => v1 = hex::decode(value).ok(),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return Err(SignatureError::Malformed);
    };
    let mut check =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    check.update(t.to_string().as_bytes());
    check.update(b".");
    check.update(body);
    // Constant-time comparison first: a stale but forged call learns
    // nothing about the timestamp rule.
    check
        .verify_slice(&v1)
        .map_err(|_| SignatureError::Mismatch)?;
    if (now_s - t).abs() > tolerance_s {
        return Err(SignatureError::Stale);
    }
    Ok(())
}

/// The sandbox provider.
pub struct Sandbox {
    pub secret: String,
    pub tolerance_s: i64,
}

impl PaymentProvider for Sandbox {
    fn code(&self) -> &'static str {
        "sandbox"
    }

    fn verify(&self, body: &[u8], signature: &str, now_s: i64) -> Result<(), SignatureError> {
        verify(&self.secret, body, signature, now_s, self.tolerance_s)
    }

    fn parse(&self, body: &[u8]) -> Result<CallbackBody, String> {
        serde_json::from_slice(body).map_err(|e| e.to_string())
    }

    fn pay_url(&self, order_id: &str) -> String {
        format!("/api/payments/sandbox/pay/{order_id}")
    }
}

/// What the tester chose on the sandbox pay page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxOutcome {
    Paid,
    Failed,
    /// Pays another amount than the order's (to see it flagged).
    WrongAmount,
    /// A chargeback of an earlier payment.
    Reversed,
}

impl SandboxOutcome {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "paid" => Some(Self::Paid),
            "failed" => Some(Self::Failed),
            "wrong_amount" => Some(Self::WrongAmount),
            "reversed" => Some(Self::Reversed),
            _ => None,
        }
    }
}

impl Payments {
    pub fn sandbox(&self) -> Sandbox {
        Sandbox {
            secret: self.settings.sandbox.secret.clone(),
            tolerance_s: self.settings.sandbox.tolerance_s,
        }
    }

    /// The provider for a callback path segment.
    pub fn provider(&self, code: &str) -> Option<Box<dyn PaymentProvider>> {
        match code {
            "sandbox" => Some(Box::new(self.sandbox())),
            _ => None,
        }
    }

    /// The sandbox records the tester's choice and queues its callbacks.
    pub async fn sandbox_pay(&self, order_id: &str, outcome: SandboxOutcome) -> PaymentResult<()> {
        let deposit = self.load_deposit(order_id).await?;
        let order = deposit.order.as_ref().ok_or_else(|| {
            PaymentFailure::refused(codes::UNKNOWN_ORDER, "Unknown deposit order")
        })?;
        if order.provider != "sandbox" {
            return Err(PaymentFailure::refused(
                codes::ORDER_STATE,
                "This order is not paid through the sandbox",
            ));
        }
        let now = self.clock.now_ms();
        let existing: Option<String> =
            sqlx::query_scalar("SELECT provider_tx_id FROM sandbox_payments WHERE order_id = $1")
                .bind(order_id)
                .fetch_optional(&self.pool)
                .await?;
        let tx_id = match (&existing, outcome) {
            (Some(tx), SandboxOutcome::Reversed) => tx.clone(),
            (Some(_), _) => {
                return Err(PaymentFailure::refused(
                    codes::ORDER_STATE,
                    "The sandbox already processed this order",
                ))
            }
            (None, SandboxOutcome::Reversed) => {
                return Err(PaymentFailure::refused(
                    codes::ORDER_STATE,
                    "Nothing was paid to reverse",
                ))
            }
            (None, _) => format!(
                "SBX{}",
                crate::accounts::sessions::token()[..16].to_uppercase()
            ),
        };
        let (status, amount) = match outcome {
            SandboxOutcome::Paid => ("paid", order.amount),
            SandboxOutcome::Failed => ("failed", order.amount),
            SandboxOutcome::WrongAmount => ("paid", order.amount + Decimal::ONE),
            SandboxOutcome::Reversed => ("reversed", order.amount),
        };
        if existing.is_none() {
            sqlx::query(
                "INSERT INTO sandbox_payments (order_id, provider_tx_id, amount, currency, status, created_ms) VALUES ($1, $2, $3, $4, $5, $6)",
            )
            .bind(order_id)
            .bind(&tx_id)
            .bind(amount.to_string())
            .bind(order.currency.code())
            .bind(status)
            .bind(now)
            .execute(&self.pool)
            .await?;
        }
        let body = CallbackBody {
            event_id: format!("{tx_id}-{status}"),
            order_id: order_id.to_string(),
            provider_tx_id: tx_id.clone(),
            amount: amount.to_string(),
            currency: order.currency.code().to_string(),
            status: status.to_string(),
            created: now / 1000,
        };
        self.queue_sandbox_report(&body, now).await
    }

    /// Queues the sandbox's report `body` for delivery from `first_due_ms`:
    /// real providers repeat, so `repeats` copies, staggered (a copy already
    /// queued stays as it is).
    pub(super) async fn queue_sandbox_report(
        &self,
        body: &CallbackBody,
        first_due_ms: i64,
    ) -> PaymentResult<()> {
        let text = serde_json::to_string(body).map_err(PaymentFailure::internal)?;
        for copy in 0..self.settings.sandbox.repeats.max(1) {
            sqlx::query(
                "INSERT INTO sandbox_callbacks (id, order_id, body, due_ms, attempts) VALUES ($1, $2, $3, $4, 0) ON CONFLICT (id) DO NOTHING",
            )
            .bind(format!("{}#{copy}", body.event_id))
            .bind(&body.order_id)
            .bind(&text)
            .bind(first_due_ms + (copy as i64) * 700)
            .execute(&self.pool)
            .await?;
        }
        Ok(())
    }

    /// One pass of the sandbox's deliveries: every due callback is posted
    /// (concurrently, so they land in any order); the undelivered are
    /// retried with backoff.
    pub async fn deliver_sandbox_callbacks(&self) -> PaymentResult<usize> {
        let Some(url) = self.callback_url.get().cloned() else {
            return Ok(0);
        };
        let now = self.clock.now_ms();
        let rows = sqlx::query(
            "SELECT id, body, attempts FROM sandbox_callbacks WHERE delivered_ms IS NULL AND due_ms <= $1 ORDER BY due_ms LIMIT 50",
        )
        .bind(now)
        .fetch_all(&self.pool)
        .await?;
        let secret = self.settings.sandbox.secret.clone();
        let sends = rows.iter().map(|row| {
            let id: String = row.try_get("id").unwrap_or_default();
            let body: String = row.try_get("body").unwrap_or_default();
            let attempts: i32 = row.try_get("attempts").unwrap_or_default();
            let url = url.clone();
            let secret = secret.clone();
            let now_s = now / 1000;
            async move {
                let signature = sign(&secret, body.as_bytes(), now_s);
                let status = post_json(&url, &body, &signature).await;
                (id, attempts, status)
            }
        });
        let results = futures::future::join_all(sends).await;
        let mut delivered = 0;
        for (id, attempts, status) in results {
            if matches!(status, Ok(200)) {
                delivered += 1;
                sqlx::query(
                    "UPDATE sandbox_callbacks SET delivered_ms = $1, attempts = $2 WHERE id = $3",
                )
                .bind(now)
                .bind(attempts + 1)
                .bind(&id)
                .execute(&self.pool)
                .await?;
            } else {
                let backoff = 1_000i64 << attempts.clamp(0, 10);
                sqlx::query(
                    "UPDATE sandbox_callbacks SET due_ms = $1, attempts = $2 WHERE id = $3",
                )
                .bind(now + backoff)
                .bind(attempts + 1)
                .bind(&id)
                .execute(&self.pool)
                .await?;
                tracing::debug!(callback = %id, ?status, "sandbox callback not accepted; retrying");
            }
        }
        Ok(delivered)
    }
}

/// A minimal HTTP/1.1 POST of JSON to `http://host:port/path` (the sandbox
/// only calls the platform, never the internet): the answer's status.
pub async fn post_json(url: &str, body: &str, signature: &str) -> Result<u16, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("only http:// callback URLs: {url}"))?;
    let (host, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let connect = tokio::net::TcpStream::connect(host);
    let mut stream = tokio::time::timeout(std::time::Duration::from_secs(5), connect)
        .await
        .map_err(|_| "connect timed out".to_string())?
        .map_err(|e| e.to_string())?;
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nX-Signature: {signature}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .await
        .map_err(|e| e.to_string())?;
    let mut answer = Vec::new();
    tokio::time::timeout(
        std::time::Duration::from_secs(10),
        stream.read_to_end(&mut answer),
    )
    .await
    .map_err(|_| "answer timed out".to_string())?
    .map_err(|e| e.to_string())?;
    let head = String::from_utf8_lossy(&answer[..answer.len().min(64)]).to_string();
    head.split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no HTTP status in {head:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_within_the_tolerance_only() {
        let body = br#"{"a":1}"#;
        let header = sign("s3cret", body, 1_000);
        assert_eq!(verify("s3cret", body, &header, 1_000, 300), Ok(()));
        assert_eq!(verify("s3cret", body, &header, 1_299, 300), Ok(()));
        assert_eq!(
            verify("s3cret", body, &header, 1_301, 300),
            Err(SignatureError::Stale)
        );
        assert_eq!(
            verify("other", body, &header, 1_000, 300),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("s3cret", br#"{"a":2}"#, &header, 1_000, 300),
            Err(SignatureError::Mismatch)
        );
        assert_eq!(
            verify("s3cret", body, "garbage", 1_000, 300),
            Err(SignatureError::Malformed)
        );
    }
}
