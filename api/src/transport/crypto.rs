//! The request layer's cryptography: AES-128-CBC/PKCS7 bodies with one of
//! ten configured key/iv pairs, and the HMAC-SHA256 request signature.

use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, BlockEncryptMut, KeyIvInit};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

type Encryptor = cbc::Encryptor<aes::Aes128>;
type Decryptor = cbc::Decryptor<aes::Aes128>;

/// Why a body could not be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    #[error("unknown key index {0}")]
    UnknownIndex(i64),
    #[error("not base64")]
    NotBase64,
    #[error("bad padding or block length")]
    BadPadding,
    #[error("not UTF-8")]
    NotUtf8,
}

/// The ten `[key, iv]` pairs, as bytes.
#[derive(Clone)]
pub struct Pairs(Vec<([u8; 16], [u8; 16])>);

impl Pairs {
    /// `pairs` must hold 16-byte keys and ivs (the configuration checks it).
    pub fn new(pairs: &[(String, String)]) -> Option<Self> {
        let mut out = Vec::with_capacity(pairs.len());
        for (key, iv) in pairs {
            out.push((
                key.as_bytes().try_into().ok()?,
                iv.as_bytes().try_into().ok()?,
            ));
        }
        Some(Self(out))
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    fn pair(&self, index: i64) -> Result<&([u8; 16], [u8; 16]), OpenError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.0.get(i))
            .ok_or(OpenError::UnknownIndex(index))
    }

    /// base64(AES-128-CBC/PKCS7(plain)) with pair `index`.
    pub fn seal(&self, index: i64, plain: &[u8]) -> Result<String, OpenError> {
        let (key, iv) = self.pair(index)?;
        let sealed = Encryptor::new(key.into(), iv.into()).encrypt_padded_vec_mut::<Pkcs7>(plain);
        Ok(BASE64.encode(sealed))
    }

    /// The plaintext of `data` sealed with pair `index`.
    pub fn open(&self, index: i64, data: &str) -> Result<String, OpenError> {
        let (key, iv) = self.pair(index)?;
        let bytes = BASE64
            .decode(data.trim())
            .map_err(|_| OpenError::NotBase64)?;
        let plain = Decryptor::new(key.into(), iv.into())
            .decrypt_padded_vec_mut::<Pkcs7>(&bytes)
            .map_err(|_| OpenError::BadPadding)?;
        String::from_utf8(plain).map_err(|_| OpenError::NotUtf8)
    }
}

/// `Sign`: lowercase hex HMAC-SHA256 keyed with the app token over
/// reverse(body or "-") + unique id + app id + version.
pub fn sign(
    app_token: &str,
    body: Option<&str>,
    unique_id: &str,
    app_id: &str,
    version: &str,
) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(app_token.as_bytes())
        .expect("HMAC takes a key of any length");
    let reversed: String = body.unwrap_or("-").chars().rev().collect();
    mac.update(reversed.as_bytes());
    mac.update(unique_id.as_bytes());
    mac.update(app_id.as_bytes());
    mac.update(version.as_bytes());
    hex(&mac.finalize().into_bytes())
}

/// Constant-time comparison of a presented hex signature (any case) with
/// the expected lowercase one.
pub fn signature_matches(expected: &str, presented: &str) -> bool {
    secret_matches(expected, &presented.trim().to_ascii_lowercase())
}

/// Constant-time comparison of a presented secret (a key, a MAC) with the
/// expected one, byte for byte. Only the length can show through timing.
pub fn secret_matches(expected: &str, presented: &str) -> bool {
    use subtle::ConstantTimeEq;
    bool::from(expected.as_bytes().ct_eq(presented.as_bytes()))
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    hex::encode(bytes)
}

/// Keyed digest for values the server only compares (app tokens).
pub fn mac(secret: &[u8], message: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret).expect("any key length");
    mac.update(message.as_bytes());
    hex(&mac.finalize().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs() -> Pairs {
        let raw: Vec<(String, String)> = (0..10)
            .map(|i| (format!("key-{i:012}"), format!("iv--{i:012}")))
            .collect();
        Pairs::new(&raw).unwrap()
    }

    #[test]
    fn sealed_bodies_open_with_the_same_pair_only() {
        let p = pairs();
        let sealed = p.seal(3, "{\"a\":\"中文\"}".as_bytes()).unwrap();
        assert_eq!(p.open(3, &sealed).unwrap(), "{\"a\":\"中文\"}");
        assert_ne!(p.open(4, &sealed), Ok("{\"a\":\"中文\"}".to_string()));
    }

    #[test]
    fn sealing_matches_openssl_aes_128_cbc_with_pkcs7() {
        // printf '%s' '{"a":"中文"}' | openssl enc -aes-128-cbc \
        //   -K $(printf key-000000000003 | xxd -p) -iv $(printf iv--000000000003 | xxd -p) | base64
        let sealed = pairs().seal(3, "{\"a\":\"中文\"}".as_bytes()).unwrap();
        assert_eq!(sealed, "pqArmHyXesjzqCVlN4peBg==");
    }

    #[test]
    fn bad_bodies_get_their_own_errors() {
        let p = pairs();
        assert_eq!(p.open(10, "AAAA"), Err(OpenError::UnknownIndex(10)));
        assert_eq!(p.open(-1, "AAAA"), Err(OpenError::UnknownIndex(-1)));
        assert_eq!(p.open(0, "***"), Err(OpenError::NotBase64));
        assert_eq!(
            p.open(0, &BASE64.encode([1u8; 15])),
            Err(OpenError::BadPadding)
        );
        assert_eq!(
            p.open(0, &BASE64.encode([1u8; 16])),
            Err(OpenError::BadPadding)
        );
    }

    #[test]
    fn the_signature_covers_the_reversed_body_and_the_headers() {
        // Reference value computed independently:
        // printf '%s' '}1:"a"{1700000000000abcdefH52.0.2' | openssl dgst -sha256 -hmac tok
        let s = sign(
            "tok",
            Some("{\"a\":1}"),
            "1700000000000abcdef",
            "H5",
            "2.0.2",
        );
        assert_eq!(
            s,
            "7a1657a90a6438fa64d0f502b3b7de5092e978d774aad3d51cde593a83aa524f"
        );
        assert_ne!(
            s,
            sign(
                "tok",
                Some("{\"a\":2}"),
                "1700000000000abcdef",
                "H5",
                "2.0.2"
            )
        );
        assert_ne!(
            s,
            sign("", Some("{\"a\":1}"), "1700000000000abcdef", "H5", "2.0.2")
        );
        assert!(signature_matches(&s, &s.to_uppercase()));
        assert!(!signature_matches(&s, &s[1..]));
    }
}
