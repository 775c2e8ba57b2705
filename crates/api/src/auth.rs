//! Bearer tokens (RFC 6750) in GitHub's scannable format, and the one extractor every handler
//! uses to learn who is calling and to check tenancy and scope.
//!
//! A token is `cpt_` + 43 base62 characters of randomness (≥ 256 bits) + a 6-character base62
//! CRC32 of that randomness. The checksum lets us reject typos and junk before touching the
//! database; only a SHA-256 of the whole token is stored.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::{Scope, TokenId, WorkspaceId};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

const PREFIX: &str = "cpt_";
const RANDOM_LEN: usize = 43;
const CHECKSUM_LEN: usize = 6;
const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

fn base62_fixed(mut n: u64, width: usize) -> String {
    let mut out = vec!['0'; width];
    for slot in out.iter_mut().rev() {
        *slot = char::from(BASE62[(n % 62) as usize]);
        n /= 62;
    }
    out.into_iter().collect()
}

fn checksum(random: &str) -> String {
    base62_fixed(u64::from(crc32fast::hash(random.as_bytes())), CHECKSUM_LEN)
}

/// A new token's text; shown once, never stored.
pub fn generate_token() -> String {
    let mut bytes = [0u8; RANDOM_LEN];
    rand::fill(&mut bytes);
    // 248 is the largest multiple of 62 below 256: reject above it so every digit is uniform.
    let mut random = String::with_capacity(RANDOM_LEN);
    while random.len() < RANDOM_LEN {
        for b in bytes {
            if b < 248 && random.len() < RANDOM_LEN {
                random.push(BASE62[(b % 62) as usize] as char);
            }
        }
        rand::fill(&mut bytes);
    }
    let sum = checksum(&random);
    format!("{PREFIX}{random}{sum}")
}

/// True when `text` has the token shape and its checksum matches.
pub fn well_formed(text: &str) -> bool {
    let Some(body) = text.strip_prefix(PREFIX) else {
        return false;
    };
    if body.len() != RANDOM_LEN + CHECKSUM_LEN || !body.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return false;
    }
    let (random, sum) = body.split_at(RANDOM_LEN);
    checksum(random).as_bytes().ct_eq(sum.as_bytes()).into()
}

pub fn hash_token(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// Who is calling: established once per request by [`authenticate`].
#[derive(Clone, Debug)]
pub struct Principal {
    pub token_id: TokenId,
    /// `None` for a platform token.
    pub workspace: Option<WorkspaceId>,
    pub scope: Scope,
    pub quota: u32,
}

impl Principal {
    /// The namespace of this caller's idempotency keys: the token itself, so a record is
    /// never replayed to another token of the same workspace (or of the platform).
    pub fn owner_key(&self) -> String {
        self.token_id.to_string()
    }
}

fn unauthenticated(token_sent: bool, message: &str) -> ApiError {
    let challenge = if token_sent {
        "Bearer error=\"invalid_token\""
    } else {
        "Bearer"
    };
    ApiError::new(ErrorType::Unauthenticated, message).with_header(WWW_AUTHENTICATE, challenge)
}

/// Middleware on every `/v1` route: authenticates the bearer token, applies its rate limit,
/// and stamps the rate-limit headers on the response.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let principal = match principal_of(&state, req.headers()).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let decision = state
        .limiter
        .check(principal.token_id, principal.quota)
        .await;
    if !decision.allowed {
        let retry = decision.retry_after_secs.to_string();
        let mut response = ApiError::new(
            ErrorType::RateLimited,
            format!(
                "Rate limit of {} requests per {} seconds exceeded; retry after {retry} s.",
                principal.quota,
                crate::ratelimit::WINDOW_SECS
            ),
        )
        .with_header(axum::http::header::RETRY_AFTER, &retry)
        .into_response();
        decision.stamp(response.headers_mut());
        return response;
    }
    req.extensions_mut().insert(principal);
    let mut response = next.run(req).await;
    decision.stamp(response.headers_mut());
    response
}

async fn principal_of(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<Principal, ApiError> {
    let Some(header) = headers.get(AUTHORIZATION) else {
        return Err(unauthenticated(
            false,
            "Authentication required: send Authorization: Bearer <token>.",
        ));
    };
    let text = header
        .to_str()
        .ok()
        .and_then(|h| {
            let (scheme, rest) = h.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .ok_or_else(|| {
            unauthenticated(true, "The Authorization header must be 'Bearer <token>'.")
        })?;
    if !well_formed(text) {
        return Err(unauthenticated(true, "The token is malformed."));
    }
    let hash = hash_token(text);
    let record = state
        .store
        .token_by_hash(&hash)
        .await?
        .filter(|t| bool::from(t.secret_hash.ct_eq(&hash)))
        .ok_or_else(|| unauthenticated(true, "The token is unknown or has been revoked."))?;
    let quota = record
        .rate_limit
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(state.default_rate_limit);
    Ok(Principal {
        token_id: record.id,
        workspace: record.workspace_id,
        scope: record.scope,
        // Tokens minted before the ceiling existed, or above a ceiling lowered since, are held
        // to it as well.
        quota: match record.workspace_id {
            Some(_) => quota.min(state.quotas.rate_limit),
            None => quota,
        },
    })
}

/// The authenticated caller, for handlers.
#[derive(Clone, Debug)]
pub struct Auth(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .map(Auth)
            .ok_or_else(|| unauthenticated(false, "Authentication required."))
    }
}

fn insufficient(needed: Scope) -> ApiError {
    ApiError::new(
        ErrorType::InsufficientScope,
        format!("This operation needs a token with the '{needed}' scope."),
    )
    .with_header(
        WWW_AUTHENTICATE,
        &format!("Bearer error=\"insufficient_scope\", scope=\"{needed}\""),
    )
}

impl Auth {
    /// May this caller do something needing `needed` inside `workspace`? Another workspace's
    /// resources answer exactly like missing ones (404), before any scope is considered.
    pub fn check(
        &self,
        workspace: WorkspaceId,
        needed: Scope,
        what: &str,
        id: &str,
    ) -> Result<(), ApiError> {
        if self.0.workspace.is_some_and(|own| own != workspace) {
            return Err(ApiError::not_found(what, id));
        }
        if !self.0.scope.includes(needed) {
            return Err(insufficient(needed));
        }
        Ok(())
    }

    /// Operations only a platform token may perform.
    pub fn platform(&self) -> Result<(), ApiError> {
        if self.0.workspace.is_some() {
            return Err(ApiError::new(
                ErrorType::InsufficientScope,
                "This operation needs a platform admin token.",
            )
            .with_header(
                WWW_AUTHENTICATE,
                "Bearer error=\"insufficient_scope\", scope=\"admin\"",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tokens_are_well_formed_and_typos_are_caught() {
        let t = generate_token();
        assert_eq!(t.len(), 4 + RANDOM_LEN + CHECKSUM_LEN);
        assert!(well_formed(&t));
        let mut typo = t.clone().into_bytes();
        typo[10] = if typo[10] == b'a' { b'b' } else { b'a' };
        assert!(!well_formed(&String::from_utf8(typo).unwrap()));
        assert!(!well_formed("cpt_short"));
        assert!(!well_formed(&t.replace("cpt_", "ghp_")));
    }
}
