//! The paging cursor of every list, in the API and in the portal: opaque and tamper-evident,
//! the position plus an HMAC over the list it belongs to, so a forged cursor or one taken from
//! another list is refused.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

const TAG_LEN: usize = 16;

/// Signs and checks cursors with a key derived from the server key.
#[derive(Clone)]
pub struct CursorCodec {
    key: [u8; 32],
}

/// Never shows the key.
impl std::fmt::Debug for CursorCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CursorCodec { key: [redacted] }")
    }
}

impl CursorCodec {
    pub fn new(key: [u8; 32]) -> Self {
        Self { key }
    }

    fn tag(&self, list: &str, payload: &[u8]) -> Vec<u8> {
        let mut mac = match Hmac::<Sha256>::new_from_slice(&self.key) {
            Ok(m) => m,
            Err(_) => return Vec::new(),
        };
        mac.update(list.as_bytes());
        mac.update(&[0]);
        mac.update(payload);
        mac.finalize().into_bytes()[..TAG_LEN].to_vec()
    }

    /// The cursor of `position` in the list named `list`.
    pub fn encode(&self, list: &str, position: &str) -> String {
        let payload = position.as_bytes();
        let mut bytes = payload.to_vec();
        bytes.extend(self.tag(list, payload));
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// The position a cursor of `list` holds; `None` when it is not one this codec signed for
    /// that list.
    pub fn decode(&self, list: &str, cursor: &str) -> Option<String> {
        let bytes = URL_SAFE_NO_PAD.decode(cursor).ok()?;
        if bytes.len() <= TAG_LEN {
            return None;
        }
        let (payload, tag) = bytes.split_at(bytes.len() - TAG_LEN);
        let expected = self.tag(list, payload);
        if !bool::from(subtle::ConstantTimeEq::ct_eq(expected.as_slice(), tag)) {
            return None;
        }
        String::from_utf8(payload.to_vec()).ok()
    }

    /// The cursor after a row of a newest-first list, at its `(created_at, id)`.
    pub fn encode_keyset(
        &self,
        list: &str,
        created_at: domain::Timestamp,
        id: &impl std::fmt::Display,
    ) -> String {
        self.encode(list, &format!("{}|{id}", created_at.micros()))
    }

    /// Where a newest-first list resumes after a cursor from [`CursorCodec::encode_keyset`].
    pub fn decode_keyset(&self, list: &str, cursor: &str) -> Option<store::Position> {
        let text = self.decode(list, cursor)?;
        let (micros, id) = text.split_once('|')?;
        Some(store::Position {
            created_at: domain::Timestamp::from_micros(micros.parse().ok()?).ok()?,
            id: id.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_is_bound_to_its_key_and_its_list() {
        let codec = CursorCodec::new([7; 32]);
        let at = domain::Timestamp::from_micros(1_700_000_000_000_000).expect("time");
        let cursor = codec.encode_keyset("runs", at, &"run_1");
        let position = codec.decode_keyset("runs", &cursor).expect("decodes");
        assert_eq!((position.created_at, position.id.as_str()), (at, "run_1"));
        assert!(codec.decode("webhooks", &cursor).is_none(), "another list");
        assert!(
            CursorCodec::new([8; 32]).decode("runs", &cursor).is_none(),
            "another key"
        );
        let mut forged = cursor.clone();
        forged.replace_range(0..1, if cursor.starts_with('A') { "B" } else { "A" });
        assert!(codec.decode("runs", &forged).is_none(), "a changed byte");
        for junk in ["", "%%%", "AAAA", &"A".repeat(10_000)] {
            assert!(codec.decode("runs", junk).is_none(), "{junk:.20}");
        }
    }
}
