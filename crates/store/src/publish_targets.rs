//! Publish targets: a workspace's docs repository that publishing keeps in sync, and the sync
//! job its row is. Changes asked for coalesce (a generation counter); one worker at a time
//! holds a target (a lease), so pushes to one target are serialized across nodes.

use domain::{Timestamp, WorkspaceId};

use crate::engine::{on_tx, read, write_pool};
use crate::{JsonText, PublishTargetRecord, Store, StoreError, StoredCredential, Tx};

const COLUMNS: &str = PublishTargetRecord::COLUMNS;

/// Where a target is, as its admin sets it.
#[derive(Clone, Debug)]
pub struct PublishTargetSetting {
    pub url: String,
    pub branch: String,
    pub folder: String,
    pub format: String,
}

/// How a sync ended.
#[derive(Clone, Debug)]
pub enum SyncOutcome {
    /// The branch holds the workspace's articles at `commit`; `state` is what was written.
    Synced {
        commit: Option<String>,
        state: serde_json::Value,
    },
    /// It failed; tried again at `retry_at`, or not before the credential changes (`None`).
    Failed {
        error: String,
        retry_at: Option<Timestamp>,
    },
}

impl Store {
    pub async fn publish_target(
        &self,
        workspace: WorkspaceId,
    ) -> Result<Option<PublishTargetRecord>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM publish_targets WHERE workspace_id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .fetch_optional(c)
            .await?))
    }

    /// Claims a target whose sync is due and that no live lease holds.
    pub async fn claim_publish_sync(
        &self,
        worker: &str,
        lease_until: Timestamp,
        now: Timestamp,
    ) -> Result<Option<PublishTargetRecord>, StoreError> {
        let lock = match self.engine() {
            crate::Engine::Sqlite => "",
            crate::Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let sql = format!(
            "UPDATE publish_targets SET attempts = attempts + 1, lease_owner = $1,
                 lease_expires_at = $2, claimed_generation = sync_generation,
                 state = 'syncing', last_attempt_at = $3, updated_at = $3
             WHERE workspace_id = (SELECT workspace_id FROM publish_targets
                 WHERE sync_generation > synced_generation AND next_attempt_at <= $3
                   AND (lease_expires_at IS NULL OR lease_expires_at < $3)
                 ORDER BY next_attempt_at, workspace_id LIMIT 1{lock})
             RETURNING {COLUMNS}"
        );
        Ok(write_pool!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            sql
        ))
        .bind(worker)
        .bind(lease_until)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }

    /// When the next sync falls due (for a worker with nothing to do).
    pub async fn next_publish_sync_due(&self) -> Result<Option<Timestamp>, StoreError> {
        let found: Option<(Option<Timestamp>,)> = read!(self, |c| sqlx::query_as(
            "SELECT MIN(next_attempt_at) FROM publish_targets
             WHERE next_attempt_at IS NOT NULL AND sync_generation > synced_generation"
        )
        .fetch_optional(c)
        .await?);
        Ok(found.and_then(|(t,)| t))
    }

    /// Records how the sync this worker claimed ended. Changes asked for meanwhile stay due
    /// (at once after a success; a failure's retry covers them).
    pub async fn publish_sync_ended(
        &self,
        workspace: WorkspaceId,
        worker: &str,
        outcome: &SyncOutcome,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = match outcome {
            SyncOutcome::Synced { commit, state } => write_pool!(self, |c| sqlx::query(
                "UPDATE publish_targets SET synced_generation = claimed_generation,
                     state = CASE WHEN sync_generation > claimed_generation
                         THEN 'pending' ELSE 'synced' END,
                     next_attempt_at = CASE WHEN sync_generation > claimed_generation
                         THEN $3 ELSE NULL END,
                     attempts = 0, last_error = NULL, last_sync_at = $3,
                     last_commit = COALESCE($4, last_commit), synced_state = $5,
                     lease_owner = NULL, lease_expires_at = NULL, claimed_generation = NULL,
                     updated_at = $3
                 WHERE workspace_id = $1 AND lease_owner = $2"
            )
            .bind(workspace)
            .bind(worker)
            .bind(now)
            .bind(commit.as_deref())
            .bind(JsonText(state))
            .execute(c)
            .await?
            .rows_affected()),
            SyncOutcome::Failed { error, retry_at } => write_pool!(self, |c| sqlx::query(
                "UPDATE publish_targets SET last_error = $4, next_attempt_at = $5,
                     state = CASE WHEN $5 IS NULL THEN 'auth_failed' ELSE 'retrying' END,
                     lease_owner = NULL, lease_expires_at = NULL, claimed_generation = NULL,
                     updated_at = $3
                 WHERE workspace_id = $1 AND lease_owner = $2"
            )
            .bind(workspace)
            .bind(worker)
            .bind(now)
            .bind(error)
            .bind(*retry_at)
            .execute(c)
            .await?
            .rows_affected()),
        };
        if n == 1 {
            self.wake(crate::Queue::Runs);
        }
        Ok(n == 1)
    }
}

impl Tx {
    /// Sets the workspace's target (made or replaced) and asks for a sync now. A changed
    /// URL, branch or folder forgets the files written to the previous place (they are
    /// another repository's, or another folder's, now); a credential of `None` keeps the
    /// current one.
    pub async fn set_publish_target(
        &mut self,
        workspace: WorkspaceId,
        setting: &PublishTargetSetting,
        credential: Option<&StoredCredential>,
        now: Timestamp,
    ) -> Result<PublishTargetRecord, StoreError> {
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO publish_targets (workspace_id, url, branch, folder, format, state,
                 synced_state, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, 'pending', '{}', $6, $6)
             ON CONFLICT (workspace_id) DO UPDATE SET
                 synced_state = CASE WHEN publish_targets.url = excluded.url
                     AND publish_targets.branch = excluded.branch
                     AND publish_targets.folder = excluded.folder
                     THEN publish_targets.synced_state ELSE '{}' END,
                 url = excluded.url, branch = excluded.branch, folder = excluded.folder,
                 format = excluded.format"
        )
        .bind(workspace)
        .bind(&setting.url)
        .bind(&setting.branch)
        .bind(&setting.folder)
        .bind(&setting.format)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        if credential.is_some() {
            on_tx!(self, |c| sqlx::query(
                "UPDATE publish_targets SET credential_kind = $2, credential = $3,
                     credential_fingerprint = $4, public_key = $5
                 WHERE workspace_id = $1"
            )
            .bind(workspace)
            .bind(credential.map(|c| c.kind.as_str()))
            .bind(credential.map(|c| c.encrypted.as_slice()))
            .bind(credential.map(|c| c.fingerprint.as_str()))
            .bind(credential.and_then(|c| c.public_key.as_deref()))
            .execute(c)
            .await?
            .rows_affected());
        }
        // A new setting (a new credential above all) is tried at once, back-off forgotten.
        let sql = format!(
            "UPDATE publish_targets SET sync_generation = sync_generation + 1,
                 next_attempt_at = $2, attempts = 0,
                 state = CASE WHEN lease_owner IS NULL THEN 'pending' ELSE state END,
                 updated_at = $2
             WHERE workspace_id = $1 RETURNING {COLUMNS}"
        );
        let record = on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(now)
            .fetch_one(c)
            .await?);
        self.wake(crate::Queue::Runs);
        Ok(record)
    }

    /// Removes the workspace's target; returns it as it was.
    pub async fn delete_publish_target(
        &mut self,
        workspace: WorkspaceId,
    ) -> Result<Option<PublishTargetRecord>, StoreError> {
        let sql =
            format!("DELETE FROM publish_targets WHERE workspace_id = $1 RETURNING {COLUMNS}");
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .fetch_optional(c)
            .await?))
    }

    /// Asks for a sync of the workspace's target, if it has one: due now, unless a retry is
    /// already scheduled (its back-off holds) or the credential was refused (nothing is
    /// tried before it changes). Returns whether there is a target.
    pub async fn request_publish_sync(
        &mut self,
        workspace: WorkspaceId,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = on_tx!(self, |c| sqlx::query(
            "UPDATE publish_targets SET sync_generation = sync_generation + 1,
                 next_attempt_at = CASE WHEN state = 'auth_failed' THEN NULL
                     ELSE COALESCE(next_attempt_at, $2) END,
                 state = CASE WHEN state IN ('synced', 'pending') THEN 'pending' ELSE state END,
                 updated_at = $2
             WHERE workspace_id = $1"
        )
        .bind(workspace)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        if n == 1 {
            self.wake(crate::Queue::Runs);
        }
        Ok(n == 1)
    }
}
