use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

/// Derives a purpose-specific key so one server key never serves two algorithms directly
/// (`"webhook-secrets-v1"` encrypts signing secrets at rest, `"cursors-v1"` signs cursors).
/// The API and the delivery worker both derive the secrets key here, so they always agree.
pub fn derive_key(server_key: &[u8; 32], purpose: &str) -> [u8; 32] {
    let mut mac = match Hmac::<Sha256>::new_from_slice(server_key) {
        Ok(m) => m,
        Err(_) => return *server_key,
    };
    mac.update(purpose.as_bytes());
    mac.finalize().into_bytes().into()
}

/// The purpose string of the key that encrypts webhook signing secrets at rest.
pub const SECRETS_KEY_PURPOSE: &str = "webhook-secrets-v1";
