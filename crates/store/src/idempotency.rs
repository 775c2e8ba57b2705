//! Idempotency records (IETF draft-ietf-httpapi-idempotency-key-header, Stripe's semantics).
//!
//! A request first *claims* its key in one statement of its own: that is what lets a
//! concurrent duplicate see "in progress". The outcome is then written by
//! [`Tx::complete_idempotency`] inside the transaction of the side effect itself, so the
//! resource and the record that replays it commit or vanish together.
//!
//! While its request runs, the claimant *beats* ([`Store::beat_idempotency`]); a claim whose
//! beat is older than the caller's threshold belonged to a process that died (or stalled) and
//! is taken over with a new `token`. Completing and releasing only touch a claim that still
//! carries the caller's token, so the old claimant can neither store its answer over the new
//! one nor forget it: a key taken over is never run to a commit twice.

use domain::Timestamp;
use serde::{Deserialize, Serialize};

use crate::direct::numbered;
use crate::engine::{on_tx, read, write_pool};
use crate::{Engine, JsonText, Store, StoreError, Tx};

/// A key this request owns until it completes or releases it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// Whose keys these are: the API uses the id of the token that made the request.
    pub owner: String,
    pub key: String,
    /// This claim's own mark, unguessable and new for every claim (also a takeover).
    pub token: String,
}

/// A finished request's response, replayed byte for byte. The store keeps `body` as given:
/// the API hands it over encrypted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    #[serde(skip)]
    pub body: Vec<u8>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimOutcome {
    Claimed(Claim),
    Replay(StoredResponse),
    InProgress,
    /// The key was used with a different request.
    Mismatch,
}

#[derive(sqlx::FromRow)]
struct Existing {
    fingerprint: String,
    status_code: Option<i64>,
    response_headers: Option<JsonText<Vec<(String, String)>>>,
    response_body: Option<Vec<u8>>,
}

impl Store {
    /// Claims `key` for `owner`. Records created before `expired_before` are forgotten;
    /// unfinished ones whose last beat is before `abandoned_before` belonged to a process that
    /// died and are taken over.
    ///
    /// Runs on the writer thread on SQLite: the claim is on every keyed request's path.
    pub async fn claim_idempotency_key(
        &self,
        claim: Claim,
        fingerprint: &str,
        now: Timestamp,
        expired_before: Timestamp,
        abandoned_before: Timestamp,
    ) -> Result<ClaimOutcome, StoreError> {
        let (store, fingerprint) = (self.clone(), fingerprint.to_owned());
        self.detached(async move {
            store
                .claim_in_place(claim, &fingerprint, now, expired_before, abandoned_before)
                .await
        })
        .await?
    }

    async fn claim_in_place(
        &self,
        claim: Claim,
        fingerprint: &str,
        now: Timestamp,
        expired_before: Timestamp,
        abandoned_before: Timestamp,
    ) -> Result<ClaimOutcome, StoreError> {
        // One autocommit statement on the writer: insert the claim, or take over a record that
        // expired or was abandoned. Anything else is left alone and read back from a reader.
        macro_rules! claim {
            ($values:literal) => {
                concat!(
                    "INSERT INTO idempotency_keys
                         (owner, idempotency_key, fingerprint, created_at, claim_token, beat_at) ",
                    $values,
                    " ON CONFLICT (owner, idempotency_key) DO UPDATE SET
                         fingerprint = excluded.fingerprint, status_code = NULL,
                         response_headers = NULL, response_body = NULL,
                         created_at = excluded.created_at, claim_token = excluded.claim_token,
                         beat_at = excluded.beat_at
                     WHERE idempotency_keys.created_at < $5
                        OR (idempotency_keys.status_code IS NULL
                            AND COALESCE(idempotency_keys.beat_at, idempotency_keys.created_at)
                                < $6)"
                )
            };
        }
        const CLAIM: &str = claim!("VALUES ($1, $2, $3, $4, $7, $4)");
        // On PostgreSQL the claim's commit does not wait for its WAL to reach the disk
        // (`synchronous_commit` off for this one statement's transaction, as `SET LOCAL`
        // would): a claim lost to a crash of the database server is a key not claimed, which
        // the retry claims again, and the transaction that stores the answer commits
        // synchronously, which flushes the WAL up to it, the claim included. One WAL flush per
        // keyed request instead of two.
        const CLAIM_RELAXED: &str = claim!(
            "SELECT $1, $2, $3, $4, $7, $4
             FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed"
        );
        let direct = self
            .write_direct(|c| {
                let params = numbered(&[
                    &claim.owner,
                    &claim.key,
                    &fingerprint,
                    &now,
                    &expired_before,
                    &abandoned_before,
                    &claim.token,
                ]);
                Ok(c.prepare_cached(CLAIM)?.execute(&*params)?)
            })
            .await?;
        let claimed = match direct {
            Some(n) => n as u64,
            None => write_pool!(self, |c| sqlx::query(match self.engine() {
                Engine::Postgres => CLAIM_RELAXED,
                Engine::Sqlite => CLAIM,
            })
            .bind(&claim.owner)
            .bind(&claim.key)
            .bind(fingerprint)
            .bind(now)
            .bind(expired_before)
            .bind(abandoned_before)
            .bind(&claim.token)
            .execute(c)
            .await?
            .rows_affected()),
        };
        if claimed == 1 {
            return Ok(ClaimOutcome::Claimed(claim));
        }
        const EXISTING: &str = "SELECT fingerprint, status_code, response_headers, response_body
             FROM idempotency_keys WHERE owner = $1 AND idempotency_key = $2";
        let existing: Option<Existing> = read!(self, |c| sqlx::query_as(EXISTING)
            .bind(&claim.owner)
            .bind(&claim.key)
            .fetch_optional(c)
            .await?);
        // Released between the two statements: another request is retrying it right now.
        let Some(existing) = existing else {
            return Ok(ClaimOutcome::InProgress);
        };
        if existing.fingerprint != fingerprint {
            return Ok(ClaimOutcome::Mismatch);
        }
        let corrupt = |what: &str| StoreError::Corrupt(format!("idempotent {what}"));
        Ok(match existing.status_code {
            None => ClaimOutcome::InProgress,
            // The three columns are written together (`complete_idempotency`).
            Some(status) => ClaimOutcome::Replay(StoredResponse {
                status: u16::try_from(status).map_err(|_| corrupt("status"))?,
                headers: existing
                    .response_headers
                    .ok_or_else(|| corrupt("headers"))?
                    .0,
                body: existing.response_body.ok_or_else(|| corrupt("body"))?,
            }),
        })
    }

    /// Stores the outcome of a claimed request that had no transaction of its own (a 4xx).
    pub async fn complete_idempotency(
        &self,
        claim: &Claim,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        let (claim, response) = (claim.clone(), response.clone());
        self.write(move |tx| {
            Box::pin(async move { tx.complete_idempotency(&claim, &response).await })
        })
        .await
    }

    /// Marks `claim` as still running at `now`; false when it is no longer this claim's (taken
    /// over, released or finished), and the request's answer will not be stored.
    pub async fn beat_idempotency(
        &self,
        claim: &Claim,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let beaten = write_pool!(self, |c| sqlx::query(
            "UPDATE idempotency_keys SET beat_at = $4
             WHERE owner = $1 AND idempotency_key = $2 AND claim_token = $3
               AND status_code IS NULL"
        )
        .bind(&claim.owner)
        .bind(&claim.key)
        .bind(&claim.token)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(beaten == 1)
    }

    /// Forgets an unfinished claim so that a retry runs again (after a 5xx, 401, 403 or 429).
    /// A claim taken over by another request is left to it.
    pub async fn release_idempotency(&self, claim: &Claim) -> Result<(), StoreError> {
        write_pool!(self, |c| sqlx::query(
            "DELETE FROM idempotency_keys
             WHERE owner = $1 AND idempotency_key = $2 AND claim_token = $3
               AND status_code IS NULL"
        )
        .bind(&claim.owner)
        .bind(&claim.key)
        .bind(&claim.token)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }

    /// Deletes records older than the idempotency window; returns how many.
    pub async fn purge_idempotency(&self, expired_before: Timestamp) -> Result<u64, StoreError> {
        Ok(write_pool!(self, |c| sqlx::query(
            "DELETE FROM idempotency_keys WHERE created_at < $1"
        )
        .bind(expired_before)
        .execute(c)
        .await?
        .rows_affected()))
    }
}

impl Tx {
    /// Records the response of a claimed request, in the caller's transaction;
    /// [`StoreError::ClaimLost`] when the claim is no longer the caller's (another request took
    /// it over), and then the transaction must not commit.
    pub async fn complete_idempotency(
        &mut self,
        claim: &Claim,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        const COMPLETE: &str = "UPDATE idempotency_keys
             SET status_code = $3, response_headers = $4, response_body = $5
             WHERE owner = $1 AND idempotency_key = $2 AND claim_token = $6
               AND status_code IS NULL";
        let completed = if let Some(c) = self.direct().await? {
            let headers = serde_json::to_string(&response.headers)?;
            c.prepare_cached(COMPLETE)?.execute(&*numbered(&[
                &claim.owner,
                &claim.key,
                &i64::from(response.status),
                &headers,
                &response.body,
                &claim.token,
            ]))? as u64
        } else {
            on_tx!(self, |c| {
                sqlx::query(COMPLETE)
                    .bind(&claim.owner)
                    .bind(&claim.key)
                    .bind(i64::from(response.status))
                    .bind(JsonText(&response.headers))
                    .bind(&response.body)
                    .bind(&claim.token)
                    .execute(c)
                    .await?
                    .rows_affected()
            })
        };
        if completed != 1 {
            return Err(StoreError::ClaimLost);
        }
        Ok(())
    }
}
