//! Secrets every `api` process shares, kept in the store's
//! `server_secrets` table: the app-token key and the RSA key that login
//! passwords are encrypted with. The first process to need one creates it.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use rsa::pkcs8::{DecodePrivateKey, EncodePrivateKey, EncodePublicKey, LineEnding};
use rsa::{Pkcs1v15Encrypt, RsaPrivateKey, RsaPublicKey};
use sqlx::AnyPool;
use std::sync::Arc;
use tokio::sync::OnceCell;

async fn load_or_create(
    pool: &AnyPool,
    name: &str,
    create: impl FnOnce() -> anyhow::Result<String> + Send + 'static,
) -> anyhow::Result<String> {
    if let Some(value) = read(pool, name).await? {
        return Ok(value);
    }
    // Creating a secret can take long (an RSA key: up to seconds): never on
    // an async worker, where it would stall every request it shares with.
    let value = tokio::task::spawn_blocking(create).await??;
    sqlx::query(
        "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
    )
    .bind(name)
    .bind(&value)
    .execute(pool)
    .await?;
    // Another process may have won the race: everyone uses the stored one.
    read(pool, name)
        .await?
        .ok_or_else(|| anyhow::anyhow!("secret {name} vanished"))
}

async fn read(pool: &AnyPool, name: &str) -> anyhow::Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT value FROM server_secrets WHERE name = $1")
            .bind(name)
            .fetch_optional(pool)
            .await?,
    )
}

/// The key that makes app tokens verifiable without storing them.
pub async fn app_token_secret(pool: &AnyPool) -> anyhow::Result<Vec<u8>> {
    let hex = load_or_create(pool, "app_token_secret", || {
        use rand::Rng;
        let bytes: [u8; 32] = rand::rng().random();
        Ok(crate::transport::crypto::hex(&bytes))
    })
    .await?;
    Ok(hex.into_bytes())
}

/// The login RSA key, created on first use (key generation takes a while).
pub struct LoginKey {
    pool: AnyPool,
    /// `RSA_PRIVATE_KEY_FILE` (PKCS#8 PEM) overrides the stored key.
    file: Option<std::path::PathBuf>,
    key: OnceCell<(Arc<RsaPrivateKey>, String)>,
}

impl LoginKey {
    pub fn new(pool: AnyPool, file: Option<std::path::PathBuf>) -> Self {
        Self {
            pool,
            file,
            key: OnceCell::new(),
        }
    }

    async fn get(&self) -> anyhow::Result<&(Arc<RsaPrivateKey>, String)> {
        self.key
            .get_or_try_init(|| async {
                let pem = match &self.file {
                    Some(path) => tokio::fs::read_to_string(path)
                        .await
                        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?,
                    None => {
                        load_or_create(&self.pool, "rsa_login_key", || {
                            let key = RsaPrivateKey::new(&mut rsa::rand_core::OsRng, 2048)?;
                            Ok(key.to_pkcs8_pem(LineEnding::LF)?.to_string())
                        })
                        .await?
                    }
                };
                let key = RsaPrivateKey::from_pkcs8_pem(&pem)?;
                let public = RsaPublicKey::from(&key).to_public_key_pem(LineEnding::LF)?;
                Ok::<_, anyhow::Error>((Arc::new(key), public))
            })
            .await
    }

    /// The public key in PEM (SubjectPublicKeyInfo), for `getconfig`.
    pub async fn public_pem(&self) -> anyhow::Result<String> {
        Ok(self.get().await?.1.clone())
    }

    /// The password inside `loginpass` (base64 of RSA PKCS#1 v1.5); `None`
    /// when it is not a valid ciphertext for our key.
    ///
    /// Every refusal is the same `None`, whatever was wrong with the blob
    /// (not base64, bad padding, not UTF-8): callers must not tell them
    /// apart (the login answers them like a wrong password).
    pub async fn decrypt(&self, loginpass: &str) -> anyhow::Result<Option<String>> {
        let key = self.get().await?.0.clone();
        // A private-key operation: CPU work, kept off the async workers.
        let bytes = BASE64.decode(loginpass.trim()).unwrap_or_default();
        let plain = tokio::task::spawn_blocking(move || {
            key.decrypt(Pkcs1v15Encrypt, &bytes)
                .ok()
                .and_then(|plain| String::from_utf8(plain).ok())
        })
        .await?;
        Ok(plain)
    }
}

/// What a client does with the public key (tests and tools).
pub fn encrypt_for(public_pem: &str, password: &str) -> anyhow::Result<String> {
    use rsa::pkcs8::DecodePublicKey;
    let key = RsaPublicKey::from_public_key_pem(public_pem)?;
    let sealed = key.encrypt(
        &mut rsa::rand_core::OsRng,
        Pkcs1v15Encrypt,
        password.as_bytes(),
    )?;
    Ok(BASE64.encode(sealed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// On a one-thread runtime, a 2048-bit key generated on the async
    /// worker would stop every other task until it is done.
    #[tokio::test(flavor = "current_thread")]
    async fn the_login_key_is_generated_off_the_async_workers() {
        let db = store::db::testing::fresh_sqlite().await;
        let key = LoginKey::new(db.any.clone(), None);
        let ticks = Arc::new(AtomicU64::new(0));
        let ticker = {
            let ticks = ticks.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                    ticks.fetch_add(1, Ordering::Relaxed);
                }
            })
        };
        let started = std::time::Instant::now();
        let pem = key.public_pem().await.unwrap();
        let took = started.elapsed();
        ticker.abort();
        assert!(pem.contains("PUBLIC KEY"));
        let ticked = ticks.load(Ordering::Relaxed);
        // The ticker runs whenever the worker is free: at least a few times
        // per 10 ms of generation, however slow the machine is.
        let expected = (took.as_millis() as u64 / 10).max(3);
        assert!(
            ticked >= expected,
            "the ticker ran {ticked} times during {took:?} of key generation"
        );
    }
}
