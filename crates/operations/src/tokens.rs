//! API tokens: their text (GitHub's scannable format), minting within the platform's quotas,
//! reissue and revocation.
//!
//! A token is `cpt_` + 43 base62 characters of randomness (≥ 256 bits) + a 6-character base62
//! CRC32 of that randomness. The checksum lets a front end reject typos and junk before
//! touching the database; only a SHA-256 of the whole token is stored.

pub use api_types::CreateToken;
use std::time::Duration;

use domain::{Scope, Timestamp, TokenId, WorkspaceId};
use sha2::{Digest, Sha256};
use store::{TokenRecord, Tx, WorkspaceRecord};
use subtle::ConstantTimeEq;

use crate::error::{Error, ErrorKind, Result, bounded};
use crate::{Caller, Operations};

const PREFIX: &str = "cpt_";
const RANDOM_LEN: usize = 43;
const CHECKSUM_LEN: usize = 6;
/// The furthest ahead a token's `expires_at` may be: a year, and a day to spare for a date
/// picked a year from today.
pub const MAX_EXPIRY: Duration = Duration::from_secs(366 * 24 * 3600);
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

/// Has `token` expired at `now`? (It stops working at its `expires_at`.)
pub fn expired(token: &TokenRecord, now: Timestamp) -> bool {
    token.expires_at.is_some_and(|at| now >= at)
}

pub fn hash_token(text: &str) -> [u8; 32] {
    Sha256::digest(text.as_bytes()).into()
}

/// A token just minted, with its secret text (shown once).
pub struct Minted {
    pub record: TokenRecord,
    pub secret: String,
}

impl Operations {
    /// Mints a token in `ws` for `caller`: never a scope above the caller's own, never a
    /// `rate_limit` above the caller's quota or the platform's ceiling, and only while the
    /// workspace has room for one more live token (409 otherwise).
    pub async fn create_token(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        ws: &WorkspaceRecord,
        req: CreateToken,
    ) -> Result<Minted> {
        if !caller.scope.includes(req.scope) {
            return Err(Error::new(
                ErrorKind::InsufficientScope { challenge: None },
                "A token cannot mint a scope above its own.",
            ));
        }
        let name = req.name.unwrap_or_default();
        bounded("name", &name, 200)?;
        let rate_limit = self.within_creator_quota(caller, req.rate_limit)?;
        let ceiling = i64::from(self.quotas.rate_limit);
        if rate_limit.is_some_and(|n| n > ceiling) {
            return Err(Error::validation(
                "rate_limit",
                format!(
                    "rate_limit must not exceed {ceiling}, the ceiling the platform sets for workspace tokens."
                ),
            ));
        }
        let now = self.clock.timestamp();
        if let Some(at) = req.expires_at
            && (at <= now || at > now.plus(MAX_EXPIRY))
        {
            return Err(Error::validation(
                "expires_at",
                format!(
                    "expires_at must be after now and at most {} days ahead (at most {}).",
                    MAX_EXPIRY.as_secs() / 86_400,
                    now.plus(MAX_EXPIRY)
                ),
            ));
        }
        let live = tx.live_tokens(ws.id, now).await?;
        if live >= i64::from(self.quotas.tokens) {
            return Err(Error::conflict(format!(
                "The workspace already has {live} active tokens, its quota of {}; revoke one before creating another.",
                self.quotas.tokens
            )));
        }
        self.mint(
            tx,
            Some(ws.id),
            &name,
            req.scope,
            rate_limit,
            req.expires_at,
        )
        .await
    }

    /// Mints a platform admin token. Only the operator does this, from the CLI or at first
    /// start: no quota applies.
    pub async fn create_platform_token(
        &self,
        tx: &mut Tx,
        caller: &Caller,
        name: &str,
        rate_limit: Option<i64>,
    ) -> Result<Minted> {
        caller.platform()?;
        self.mint(tx, None, name, Scope::Admin, rate_limit, None)
            .await
    }

    /// The token `id`, for a change by `caller`: a workspace token's workspace must be active;
    /// a platform token has none.
    pub async fn token_for_change(&self, caller: &Caller, id: TokenId) -> Result<TokenRecord> {
        let token: TokenRecord = self.load(caller, id, Scope::Admin).await?;
        if token.workspace_id.is_some() {
            self.workspace_of(&token, id).await?;
        }
        Ok(token)
    }

    /// Gives `token` a new secret, keeping its expiry; the old one stops working at once. An
    /// expired token stays expired: a new secret would not work either.
    pub async fn reissue_token(&self, tx: &mut Tx, token: &TokenRecord) -> Result<Minted> {
        let revoked = || Error::conflict("The token is revoked; create a new one.");
        if token.revoked_at.is_some() {
            return Err(revoked());
        }
        if expired(token, self.clock.timestamp()) {
            return Err(Error::conflict(
                "The token has expired; create a new one (reissue keeps the expiry).",
            ));
        }
        let secret = generate_token();
        let record = tx
            .reissue_token(token.id, &hash_token(&secret))
            .await?
            .ok_or_else(revoked)?;
        Ok(Minted { record, secret })
    }

    /// Revokes `token` (again: the same token).
    pub async fn revoke_token(&self, tx: &mut Tx, token: &TokenRecord) -> Result<TokenRecord> {
        tx.revoke_token(token.id, self.clock.timestamp())
            .await?
            .ok_or_else(|| Error::not_found("token", token.id))
    }

    async fn mint(
        &self,
        tx: &mut Tx,
        workspace: Option<WorkspaceId>,
        name: &str,
        scope: Scope,
        rate_limit: Option<i64>,
        expires_at: Option<Timestamp>,
    ) -> Result<Minted> {
        if rate_limit.is_some_and(|n| n < 1) {
            return Err(Error::validation(
                "rate_limit",
                "rate_limit must be at least 1.",
            ));
        }
        let secret = generate_token();
        let record = tx
            .insert_token(
                workspace,
                name,
                scope,
                &hash_token(&secret),
                rate_limit,
                expires_at,
                self.clock.timestamp(),
            )
            .await?;
        Ok(Minted { record, secret })
    }

    /// A workspace token never hands out more than its own quota; a platform token answers to
    /// the ceiling only. Without `rate_limit` the new token gets the default quota, or the
    /// creator's own when that is lower.
    fn within_creator_quota(&self, caller: &Caller, requested: Option<i64>) -> Result<Option<i64>> {
        if caller.is_platform() {
            return Ok(requested);
        }
        let own = i64::from(caller.quota);
        match requested {
            Some(n) if n > own => Err(Error::validation(
                "rate_limit",
                format!(
                    "rate_limit must not exceed {own}, the quota of the token making this request."
                ),
            )),
            None if i64::from(self.default_rate_limit) > own => Ok(Some(own)),
            other => Ok(other),
        }
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
