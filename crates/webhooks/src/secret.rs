use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};

const PREFIX: &str = "whsec_";

/// A subscription's signing secret: 32 random bytes, shown to users as `whsec_` + standard
/// base64 (with padding), the form every Standard Webhooks verifier decodes.
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret([u8; 32]);

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningSecret(…)")
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("the server key must be 32 bytes of standard base64")]
    BadServerKey,
    #[error("a stored secret could not be decrypted with the server key")]
    Undecryptable,
    #[error("the value is too large to be encrypted")]
    TooLarge,
}

impl SigningSecret {
    pub fn generate() -> Self {
        let mut bytes = [0u8; 32];
        rand::fill(&mut bytes);
        Self(bytes)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The `whsec_…` text given to the user once.
    pub fn reveal(&self) -> String {
        format!("{PREFIX}{}", STANDARD.encode(self.0))
    }
}

/// Reads the server key from its text form: 32 bytes in standard base64.
pub fn parse_server_key(text: &str) -> Result<[u8; 32], SecretError> {
    let bytes = STANDARD
        .decode(text.trim())
        .map_err(|_| SecretError::BadServerKey)?;
    bytes.try_into().map_err(|_| SecretError::BadServerKey)
}

/// Encrypts secrets at rest with the server key (ChaCha20-Poly1305, random nonce per value).
#[derive(Clone)]
pub struct SecretBox {
    cipher: ChaCha20Poly1305,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretBox(…)")
    }
}

const NONCE_LEN: usize = 12;

impl SecretBox {
    pub fn new(key: &[u8; 32]) -> Self {
        Self {
            cipher: ChaCha20Poly1305::new(&Key::from(*key)),
        }
    }

    /// A new random server key.
    pub fn generate_key() -> [u8; 32] {
        let mut key = [0u8; 32];
        rand::fill(&mut key);
        key
    }

    /// A new random server key in the text form the configuration takes.
    pub fn generate_key_text() -> String {
        STANDARD.encode(Self::generate_key())
    }

    pub fn from_key_text(text: &str) -> Result<Self, SecretError> {
        Ok(Self::new(&parse_server_key(text)?))
    }

    pub fn seal(&self, secret: &SigningSecret) -> Vec<u8> {
        // The cipher refuses only plaintexts of 256 GiB and more, never 32 bytes.
        self.seal_bytes(&secret.0, b"")
            .expect("32 bytes are always sealable")
    }

    pub fn open(&self, sealed: &[u8]) -> Result<SigningSecret, SecretError> {
        let bytes: [u8; 32] = self
            .open_bytes(sealed, b"")?
            .try_into()
            .map_err(|_| SecretError::Undecryptable)?;
        Ok(SigningSecret(bytes))
    }

    /// Encrypts any value; `context` is authenticated but not stored, so the value opens only
    /// where the same context is given (a record cannot be moved to another owner's row).
    pub fn seal_bytes(&self, plain: &[u8], context: &[u8]) -> Result<Vec<u8>, SecretError> {
        let mut nonce = [0u8; NONCE_LEN];
        rand::fill(&mut nonce);
        let payload = Payload {
            msg: plain,
            aad: context,
        };
        let sealed = self
            .cipher
            .encrypt(&Nonce::from(nonce), payload)
            .map_err(|_| SecretError::TooLarge)?;
        Ok([nonce.as_slice(), &sealed].concat())
    }

    pub fn open_bytes(&self, sealed: &[u8], context: &[u8]) -> Result<Vec<u8>, SecretError> {
        if sealed.len() < NONCE_LEN {
            return Err(SecretError::Undecryptable);
        }
        let (nonce, body) = sealed.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| SecretError::Undecryptable)?;
        let payload = Payload {
            msg: body,
            aad: context,
        };
        self.cipher
            .decrypt(&Nonce::from(nonce), payload)
            .map_err(|_| SecretError::Undecryptable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revealed_secret_is_standard_base64_of_32_bytes() {
        let s = SigningSecret::generate();
        let text = s.reveal();
        let body = text.strip_prefix("whsec_").map(|b| STANDARD.decode(b));
        assert_eq!(body.and_then(|r| r.ok()).map(|b| b.len()), Some(32));
    }

    #[test]
    fn sealed_secret_opens_only_with_its_key() {
        let key = SecretBox::from_key_text(&SecretBox::generate_key_text()).unwrap();
        let other = SecretBox::from_key_text(&SecretBox::generate_key_text()).unwrap();
        let s = SigningSecret::generate();
        let sealed = key.seal(&s);
        assert!(!sealed.windows(32).any(|w| w == s.bytes()));
        assert_eq!(key.open(&sealed).unwrap(), s);
        assert!(other.open(&sealed).is_err());
        assert!(key.open(&sealed[..5]).is_err());
    }

    #[test]
    fn sealed_bytes_open_only_in_their_context() {
        let key = SecretBox::from_key_text(&SecretBox::generate_key_text()).unwrap();
        let sealed = key.seal_bytes(b"cpt_secret", b"tok_a\nkey-1").unwrap();
        assert!(!sealed.windows(4).any(|w| w == b"cpt_"));
        assert_eq!(
            key.open_bytes(&sealed, b"tok_a\nkey-1").unwrap(),
            b"cpt_secret"
        );
        assert!(key.open_bytes(&sealed, b"tok_b\nkey-1").is_err());
    }
}
