//! Is a delivery the forge's? Each forge proves it with the secret the workspace pasted into
//! its webhook settings: GitHub and Gitea/Forgejo sign the raw body (hex HMAC-SHA256), GitLab
//! sends the secret itself as a token. Every comparison is constant-time, and during a
//! rotation's grace period the previous secret is accepted beside the new one.

use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

use crate::ForgeKind;

/// The longest delivery id or event name kept (forges send a UUID and a short word).
const MAX_HEADER_TEXT: usize = 200;

/// Why a delivery is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Not proven to come from the forge: a 401, and nothing is recorded.
    #[error("{0}")]
    Unauthenticated(String),
    /// Proven, but not a delivery the service can read (a header missing or too long).
    #[error("{0}")]
    Malformed(String),
}

/// A delivery's identity: the forge's delivery id (the same on a redelivery) and its event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Delivery {
    pub id: String,
    pub event: String,
}

/// A new forge secret: 32 random bytes in hex, safe to paste into any forge's form.
pub fn generate_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The first of `names` the request carries.
fn first<'a>(header: &impl Fn(&str) -> Option<&'a str>, names: &[&str]) -> Option<&'a str> {
    names.iter().find_map(|n| header(n))
}

/// Checks that the delivery was made by the holder of one of `secrets` (newest first).
/// `header` reads a request header by its lowercase name.
pub fn verify<'a>(
    kind: ForgeKind,
    header: impl Fn(&str) -> Option<&'a str>,
    body: &[u8],
    secrets: &[&str],
) -> Result<(), Refusal> {
    let missing = |name: &str| {
        Refusal::Unauthenticated(format!(
            "The delivery has no {name} header: set the webhook's secret in the forge to the workspace's forge secret."
        ))
    };
    let proven = match kind {
        ForgeKind::Github => {
            let sent =
                header("x-hub-signature-256").ok_or_else(|| missing("X-Hub-Signature-256"))?;
            let hex = sent.strip_prefix("sha256=").ok_or_else(|| {
                Refusal::Unauthenticated("X-Hub-Signature-256 must be sha256=<hex>.".into())
            })?;
            signed_by_any(hex, body, secrets)
        }
        ForgeKind::Gitea => {
            let sent = first(&header, &["x-gitea-signature", "x-forgejo-signature"])
                .ok_or_else(|| missing("X-Gitea-Signature (or X-Forgejo-Signature)"))?;
            signed_by_any(sent, body, secrets)
        }
        ForgeKind::Gitlab => {
            let sent = header("x-gitlab-token").ok_or_else(|| missing("X-Gitlab-Token"))?;
            secrets
                .iter()
                .any(|s| bool::from(s.as_bytes().ct_eq(sent.as_bytes())))
        }
    };
    if proven {
        Ok(())
    } else {
        Err(Refusal::Unauthenticated(
            "The delivery's signature does not match the workspace's forge secret.".into(),
        ))
    }
}

/// Whether `hex` is the HMAC-SHA256 of `body` under one of `secrets`.
fn signed_by_any(hex: &str, body: &[u8], secrets: &[&str]) -> bool {
    let Some(sent) = decode_hex(hex.trim()) else {
        return false;
    };
    secrets.iter().any(|secret| {
        Hmac::<Sha256>::new_from_slice(secret.as_bytes())
            .map(|mut mac| {
                mac.update(body);
                mac.verify_slice(&sent).is_ok()
            })
            .unwrap_or(false)
    })
}

fn decode_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() != 64 {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The delivery id and event of a verified delivery.
pub fn delivery_of<'a>(
    kind: ForgeKind,
    header: impl Fn(&str) -> Option<&'a str>,
) -> Result<Delivery, Refusal> {
    let (events, ids): (&[&str], &[&str]) = match kind {
        ForgeKind::Github => (&["x-github-event"], &["x-github-delivery"]),
        ForgeKind::Gitlab => (
            &["x-gitlab-event"],
            &["x-gitlab-event-uuid", "x-gitlab-webhook-uuid"],
        ),
        ForgeKind::Gitea => (
            &["x-gitea-event", "x-forgejo-event"],
            &["x-gitea-delivery", "x-forgejo-delivery"],
        ),
    };
    let read = |names: &[&str], what: &str| {
        let value = first(&header, names)
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                Refusal::Malformed(format!("The delivery has no {} header.", names[0]))
            })?;
        if value.len() > MAX_HEADER_TEXT || value.chars().any(char::is_control) {
            return Err(Refusal::Malformed(format!(
                "The delivery's {what} is not a short printable text."
            )));
        }
        Ok(value.to_owned())
    };
    Ok(Delivery {
        event: read(events, "event")?,
        id: read(ids, "delivery id")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hmac_hex(secret: &str, body: &[u8]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        mac.update(body);
        mac.finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    #[test]
    fn github_and_gitea_signatures_are_checked_against_every_live_secret() {
        let body = br#"{"zen":"hi"}"#;
        let github = format!("sha256={}", hmac_hex("old", body));
        let headers = |name: &str| (name == "x-hub-signature-256").then_some(github.as_str());
        assert!(verify(ForgeKind::Github, headers, body, &["new", "old"]).is_ok());
        assert!(verify(ForgeKind::Github, headers, body, &["new"]).is_err());
        assert!(verify(ForgeKind::Github, headers, b"{}", &["old"]).is_err());
        let gitea = hmac_hex("s", body);
        let forgejo = |name: &str| (name == "x-forgejo-signature").then_some(gitea.as_str());
        assert!(verify(ForgeKind::Gitea, forgejo, body, &["s"]).is_ok());
        let none = |_: &str| None;
        assert!(matches!(
            verify(ForgeKind::Gitea, none, body, &["s"]),
            Err(Refusal::Unauthenticated(_))
        ));
    }

    #[test]
    fn gitlab_tokens_must_match_exactly() {
        let token = |name: &str| (name == "x-gitlab-token").then_some("abc");
        assert!(verify(ForgeKind::Gitlab, token, b"", &["abc"]).is_ok());
        assert!(verify(ForgeKind::Gitlab, token, b"", &["abcd"]).is_err());
    }

    #[test]
    fn a_delivery_needs_its_event_and_id() {
        let h = |name: &str| match name {
            "x-gitea-event" => Some("push"),
            "x-forgejo-delivery" => Some("d-1"),
            _ => None,
        };
        assert_eq!(
            delivery_of(ForgeKind::Gitea, h),
            Ok(Delivery {
                id: "d-1".into(),
                event: "push".into()
            })
        );
        assert!(delivery_of(ForgeKind::Github, h).is_err());
        assert_eq!(generate_secret().len(), 64);
    }
}
