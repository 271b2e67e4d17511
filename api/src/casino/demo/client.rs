//! The demo provider's side of the seamless wallet: signed HTTP calls to
//! the operator's wallet API, with the retry policy real providers follow
//! (Hub88): a bet or win whose answer does not come is sent again under the
//! same transaction id; a bet still unconfirmed is rolled back; a win or
//! rollback that cannot get through goes to the provider's outbox and is
//! resent until answered.
//!
//! `Faults` lets tests lose requests or answers on the way (timeouts).

use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::casino::signing::{Signer256, Verifier256, HEADER};

/// Injected trouble: the next N requests are lost before reaching the
/// wallet, or processed with their answers lost.
#[derive(Debug, Default)]
pub struct Faults {
    pub lose_requests: AtomicU32,
    pub lose_answers: AtomicU32,
}

fn take(counter: &AtomicU32) -> bool {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
        .is_ok()
}

#[derive(Debug, thiserror::Error)]
pub enum CallError {
    #[error("no answer in time")]
    Timeout,
    #[error("network: {0}")]
    Network(String),
    #[error("the answer's signature does not verify")]
    BadSignature,
    #[error("not a wallet answer: {0}")]
    BadAnswer(String),
}

pub struct WalletClient {
    /// `http://host:port/api/wallet/demo`; empty: this process.
    pub configured: String,
    pub own: OnceLock<SocketAddr>,
    pub signer: Signer256,
    pub verifier: Option<Verifier256>,
    pub timeout: Duration,
    pub faults: Faults,
}

impl WalletClient {
    fn target(&self) -> Result<(String, String), CallError> {
        let base = if self.configured.is_empty() {
            let addr = self.own.get().ok_or_else(|| {
                CallError::Network("this process's address is not known yet".into())
            })?;
            let host = if addr.ip().is_unspecified() {
                format!("127.0.0.1:{}", addr.port())
            } else {
                addr.to_string()
            };
            format!("http://{host}/api/wallet/demo")
        } else {
            self.configured.trim_end_matches('/').to_string()
        };
        let rest = base
            .strip_prefix("http://")
            .ok_or_else(|| CallError::Network("only http:// wallet URLs are supported".into()))?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        Ok((host.to_string(), format!("/{path}")))
    }

    /// One signed POST of `body` to `{wallet}/{path}`.
    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, CallError> {
        if take(&self.faults.lose_requests) {
            tokio::time::sleep(Duration::from_millis(20)).await;
            return Err(CallError::Timeout);
        }
        let raw = body.to_string();
        let signature = self.signer.sign(raw.as_bytes());
        let (host, base) = self.target()?;
        let request = format!(
            "POST {base}/{path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n{HEADER}: {signature}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{raw}",
            raw.len()
        );
        let exchange = async {
            let mut stream = tokio::net::TcpStream::connect(&host)
                .await
                .map_err(|e| CallError::Network(e.to_string()))?;
            stream
                .write_all(request.as_bytes())
                .await
                .map_err(|e| CallError::Network(e.to_string()))?;
            let mut answer = Vec::new();
            stream
                .take(1 << 20)
                .read_to_end(&mut answer)
                .await
                .map_err(|e| CallError::Network(e.to_string()))?;
            Ok::<_, CallError>(answer)
        };
        let answer = tokio::time::timeout(self.timeout, exchange)
            .await
            .map_err(|_| CallError::Timeout)??;
        if take(&self.faults.lose_answers) {
            return Err(CallError::Timeout);
        }
        let text = String::from_utf8_lossy(&answer).to_string();
        let (head, body) = text
            .split_once("\r\n\r\n")
            .ok_or_else(|| CallError::BadAnswer("no HTTP answer".into()))?;
        if let Some(verifier) = &self.verifier {
            let signature = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.trim()
                        .eq_ignore_ascii_case(HEADER)
                        .then(|| value.trim().to_string())
                })
                .unwrap_or_default();
            if !verifier.verify(body.as_bytes(), &signature) {
                return Err(CallError::BadSignature);
            }
        }
        serde_json::from_str(body).map_err(|e| CallError::BadAnswer(e.to_string()))
    }
}
