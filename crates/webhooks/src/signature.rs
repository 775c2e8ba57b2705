use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use crate::SigningSecret;

/// The `webhook-signature` header value: `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`
/// for each secret, space-separated, in the order given (newest first during a rotation).
pub fn sign(secrets: &[&SigningSecret], msg_id: &str, timestamp: i64, body: &[u8]) -> String {
    secrets
        .iter()
        .filter_map(|secret| {
            let mut mac = Hmac::<Sha256>::new_from_slice(secret.bytes()).ok()?;
            mac.update(msg_id.as_bytes());
            mac.update(b".");
            mac.update(timestamp.to_string().as_bytes());
            mac.update(b".");
            mac.update(body);
            Some(format!(
                "v1,{}",
                STANDARD.encode(mac.finalize().into_bytes())
            ))
        })
        .collect::<Vec<_>>()
        .join(" ")
}
