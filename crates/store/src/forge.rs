//! Forges: a workspace's forge connection (its delivery secret and status token), the
//! deliveries it received (each once; also the job acting on it) and the commit statuses of
//! pull requests' drift checks, waiting to be posted.

use domain::{DriftCheckId, ForgeDeliveryId, Timestamp, WorkspaceId};

use crate::engine::{on_tx, read, write_pool};
use crate::{
    CommitStatusRecord, ForgeDeliveryRecord, ForgeSettingsRecord, JsonText, Store, StoreError, Tx,
};

const SETTINGS_COLUMNS: &str = ForgeSettingsRecord::COLUMNS;
const DELIVERY_COLUMNS: &str = ForgeDeliveryRecord::COLUMNS;
const STATUS_COLUMNS: &str = CommitStatusRecord::COLUMNS;

/// How many finished deliveries a workspace keeps past their 24 hours (what the portal lists).
pub const KEPT_DELIVERIES: i64 = 50;

/// A verified delivery to record.
#[derive(Clone, Debug)]
pub struct NewForgeDelivery {
    pub workspace_id: WorkspaceId,
    pub forge: String,
    pub delivery: String,
    pub event: String,
    /// `queued` when there is work, `ignored` when there is none.
    pub status: String,
    pub request: serde_json::Value,
    pub outcome: Option<serde_json::Value>,
}

/// A commit status to keep on a pull request's head while its drift check runs.
#[derive(Clone, Debug)]
pub struct NewCommitStatus {
    pub drift_check_id: DriftCheckId,
    pub workspace_id: WorkspaceId,
    pub forge: String,
    pub repository: serde_json::Value,
    pub sha: String,
    pub pull_number: i64,
    pub description: String,
}

/// How posting a commit status went.
#[derive(Clone, Debug)]
pub enum StatusAttempt {
    /// The forge took `state`.
    Posted { state: String },
    /// It failed; try again at `retry_at`, or never (`None`: given up).
    Failed {
        error: String,
        retry_at: Option<Timestamp>,
    },
}

impl Store {
    pub async fn forge_settings(
        &self,
        workspace: WorkspaceId,
    ) -> Result<Option<ForgeSettingsRecord>, StoreError> {
        let sql = format!("SELECT {SETTINGS_COLUMNS} FROM forge_settings WHERE workspace_id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .fetch_optional(c)
            .await?))
    }

    /// The features `workspace` has articles for (at most `limit`), for matching a push.
    pub async fn documented_features(
        &self,
        workspace: WorkspaceId,
        limit: i64,
    ) -> Result<Vec<String>, StoreError> {
        let rows: Vec<(String,)> = read!(self, |c| sqlx::query_as(
            "SELECT DISTINCT feature_id FROM articles WHERE workspace_id = $1
             ORDER BY feature_id LIMIT $2"
        )
        .bind(workspace)
        .bind(limit)
        .fetch_all(c)
        .await?);
        Ok(rows.into_iter().map(|(f,)| f).collect())
    }

    /// The newest deliveries of `workspace`, newest first.
    pub async fn forge_deliveries(
        &self,
        workspace: WorkspaceId,
        limit: i64,
    ) -> Result<Vec<ForgeDeliveryRecord>, StoreError> {
        let sql = format!(
            "SELECT {DELIVERY_COLUMNS} FROM forge_deliveries WHERE workspace_id = $1
             ORDER BY received_at DESC, id DESC LIMIT $2"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(limit)
            .fetch_all(c)
            .await?))
    }

    /// Claims the oldest queued delivery (or one whose worker's lease expired); one that lost
    /// its worker `max_attempts` times is failed instead.
    pub async fn claim_forge_delivery(
        &self,
        worker: &str,
        lease_until: Timestamp,
        now: Timestamp,
        max_attempts: i64,
    ) -> Result<Option<ForgeDeliveryRecord>, StoreError> {
        let lock = match self.engine() {
            crate::Engine::Sqlite => "",
            crate::Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        write_pool!(self, |c| sqlx::query(
            "UPDATE forge_deliveries SET status = 'failed', updated_at = $1,
                 outcome = '{\"summary\":\"Abandoned: its worker stopped responding.\"}',
                 lease_owner = NULL, lease_expires_at = NULL
             WHERE status = 'running' AND lease_expires_at < $1 AND attempts >= $2"
        )
        .bind(now)
        .bind(max_attempts)
        .execute(c)
        .await?
        .rows_affected());
        let sql = format!(
            "UPDATE forge_deliveries SET status = 'running', attempts = attempts + 1,
                 lease_owner = $1, lease_expires_at = $2, updated_at = $3
             WHERE id = (SELECT id FROM forge_deliveries
                 WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3)
                 ORDER BY received_at, id LIMIT 1{lock})
             RETURNING {DELIVERY_COLUMNS}"
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

    /// Ends a delivery this worker holds: `done` or `failed`, with what it triggered.
    pub async fn finish_forge_delivery(
        &self,
        id: ForgeDeliveryId,
        worker: &str,
        status: &str,
        outcome: &serde_json::Value,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = write_pool!(self, |c| sqlx::query(
            "UPDATE forge_deliveries SET status = $3, outcome = $4, updated_at = $5,
                 lease_owner = NULL, lease_expires_at = NULL
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'"
        )
        .bind(id)
        .bind(worker)
        .bind(status)
        .bind(JsonText(outcome))
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(n == 1)
    }

    pub async fn commit_status(
        &self,
        check: DriftCheckId,
    ) -> Result<Option<CommitStatusRecord>, StoreError> {
        let sql = format!("SELECT {STATUS_COLUMNS} FROM commit_statuses WHERE drift_check_id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(check)
            .fetch_optional(c)
            .await?))
    }

    /// The newest commit statuses of `workspace` (pull requests' drift checks), newest first.
    pub async fn commit_statuses(
        &self,
        workspace: WorkspaceId,
        limit: i64,
    ) -> Result<Vec<CommitStatusRecord>, StoreError> {
        let sql = format!(
            "SELECT {STATUS_COLUMNS} FROM commit_statuses WHERE workspace_id = $1
             ORDER BY created_at DESC, drift_check_id DESC LIMIT $2"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(limit)
            .fetch_all(c)
            .await?))
    }

    /// Sets what should be on the forge for `check` (its drift check ended); posted at once.
    pub async fn set_commit_state(
        &self,
        check: DriftCheckId,
        state: &str,
        description: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = write_pool!(self, |c| sqlx::query(
            "UPDATE commit_statuses SET state = $2, description = $3, attempts = 0,
                 next_attempt_at = $4, last_error = NULL, updated_at = $4
             WHERE drift_check_id = $1"
        )
        .bind(check)
        .bind(state)
        .bind(description)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        if n == 1 {
            self.wake(crate::Queue::Runs);
        }
        Ok(n == 1)
    }

    /// Claims a commit status due to be posted (its state differs from what was posted).
    pub async fn claim_commit_status(
        &self,
        worker: &str,
        lease_until: Timestamp,
        now: Timestamp,
    ) -> Result<Option<CommitStatusRecord>, StoreError> {
        let lock = match self.engine() {
            crate::Engine::Sqlite => "",
            crate::Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        let sql = format!(
            "UPDATE commit_statuses SET attempts = attempts + 1, lease_owner = $1,
                 lease_expires_at = $2, updated_at = $3
             WHERE drift_check_id = (SELECT drift_check_id FROM commit_statuses
                 WHERE next_attempt_at <= $3
                   AND (posted_state IS NULL OR posted_state <> state)
                   AND (lease_expires_at IS NULL OR lease_expires_at < $3)
                 ORDER BY next_attempt_at, drift_check_id LIMIT 1{lock})
             RETURNING {STATUS_COLUMNS}"
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

    /// When the next commit status falls due (for a worker with nothing to do).
    pub async fn next_commit_status_due(&self) -> Result<Option<Timestamp>, StoreError> {
        let found: Option<(Option<Timestamp>,)> = read!(self, |c| sqlx::query_as(
            "SELECT MIN(next_attempt_at) FROM commit_statuses
             WHERE next_attempt_at IS NOT NULL AND (posted_state IS NULL OR posted_state <> state)"
        )
        .fetch_optional(c)
        .await?);
        Ok(found.and_then(|(t,)| t))
    }

    /// Records how posting a status this worker claimed went. A state changed meanwhile (the
    /// check ended while `pending` was being posted) stays due.
    pub async fn commit_status_attempted(
        &self,
        check: DriftCheckId,
        worker: &str,
        attempt: &StatusAttempt,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        match attempt {
            StatusAttempt::Posted { state } => write_pool!(self, |c| sqlx::query(
                "UPDATE commit_statuses SET posted_state = $3, last_error = NULL,
                     lease_owner = NULL, lease_expires_at = NULL, updated_at = $4,
                     attempts = CASE WHEN state = $3 THEN attempts ELSE 0 END
                 WHERE drift_check_id = $1 AND lease_owner = $2"
            )
            .bind(check)
            .bind(worker)
            .bind(state)
            .bind(now)
            .execute(c)
            .await?
            .rows_affected()),
            StatusAttempt::Failed { error, retry_at } => write_pool!(self, |c| sqlx::query(
                "UPDATE commit_statuses SET last_error = $3, next_attempt_at = $4,
                     lease_owner = NULL, lease_expires_at = NULL, updated_at = $5
                 WHERE drift_check_id = $1 AND lease_owner = $2"
            )
            .bind(check)
            .bind(worker)
            .bind(error)
            .bind(*retry_at)
            .bind(now)
            .execute(c)
            .await?
            .rows_affected()),
        };
        Ok(())
    }
}

impl Tx {
    /// Gives `workspace` a new delivery secret; the previous one is accepted until
    /// `previous_expires_at`.
    pub async fn rotate_forge_secret(
        &mut self,
        workspace: WorkspaceId,
        sealed: &[u8],
        previous_expires_at: Timestamp,
        now: Timestamp,
    ) -> Result<ForgeSettingsRecord, StoreError> {
        let sql = format!(
            "INSERT INTO forge_settings (workspace_id, secret, updated_at) VALUES ($1, $2, $4)
             ON CONFLICT (workspace_id) DO UPDATE SET
                 previous_secret = forge_settings.secret,
                 previous_expires_at = CASE WHEN forge_settings.secret IS NULL THEN NULL
                     ELSE $3 END,
                 secret = excluded.secret, updated_at = excluded.updated_at
             RETURNING {SETTINGS_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(sealed)
            .bind(previous_expires_at)
            .bind(now)
            .fetch_one(c)
            .await?))
    }

    /// Sets (or, with `None`, removes) the token commit statuses are posted with, and the
    /// forge API's root.
    pub async fn set_forge_api(
        &mut self,
        workspace: WorkspaceId,
        token: Option<(&[u8], &str)>,
        api_url: Option<&str>,
        now: Timestamp,
    ) -> Result<ForgeSettingsRecord, StoreError> {
        let (sealed, fingerprint) = token.unzip();
        let sql = format!(
            "INSERT INTO forge_settings (workspace_id, api_token, api_token_fingerprint, api_url,
                 updated_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (workspace_id) DO UPDATE SET api_token = excluded.api_token,
                 api_token_fingerprint = excluded.api_token_fingerprint,
                 api_url = excluded.api_url, updated_at = excluded.updated_at
             RETURNING {SETTINGS_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(sealed)
            .bind(fingerprint)
            .bind(api_url)
            .bind(now)
            .fetch_one(c)
            .await?))
    }

    /// Records a verified delivery, unless the same delivery id of that forge was recorded in
    /// the 24 hours before `now` (`None`: a redelivery, nothing to do). A delivery id seen
    /// longer ago is taken as new (a redelivery asked for by hand). Keeps each workspace's
    /// list bounded: past 24 hours, only the newest [`KEPT_DELIVERIES`] finished ones stay.
    pub async fn record_forge_delivery(
        &mut self,
        new: &NewForgeDelivery,
        now: Timestamp,
    ) -> Result<Option<ForgeDeliveryRecord>, StoreError> {
        let day_ago = now.minus(std::time::Duration::from_secs(86_400));
        let sql = format!(
            "INSERT INTO forge_deliveries (id, workspace_id, forge, delivery, event, status,
                 request, outcome, received_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (workspace_id, forge, delivery) DO UPDATE SET
                 event = excluded.event, status = excluded.status, request = excluded.request,
                 outcome = excluded.outcome, received_at = excluded.received_at,
                 updated_at = excluded.updated_at, attempts = 0, lease_owner = NULL,
                 lease_expires_at = NULL
             WHERE forge_deliveries.received_at < $10
             RETURNING {DELIVERY_COLUMNS}"
        );
        let recorded: Option<ForgeDeliveryRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(ForgeDeliveryId::generate())
                .bind(new.workspace_id)
                .bind(&new.forge)
                .bind(&new.delivery)
                .bind(&new.event)
                .bind(&new.status)
                .bind(JsonText(&new.request))
                .bind(new.outcome.as_ref().map(JsonText))
                .bind(now)
                .bind(day_ago)
                .fetch_optional(c)
                .await?);
        if recorded.is_none() {
            return Ok(None);
        }
        on_tx!(self, |c| sqlx::query(
            "DELETE FROM forge_deliveries WHERE workspace_id = $1 AND received_at < $2
                 AND status NOT IN ('queued', 'running')
                 AND id NOT IN (SELECT id FROM forge_deliveries WHERE workspace_id = $1
                     ORDER BY received_at DESC, id DESC LIMIT $3)"
        )
        .bind(new.workspace_id)
        .bind(day_ago)
        .bind(KEPT_DELIVERIES)
        .execute(c)
        .await?
        .rows_affected());
        if new.status == "queued" {
            self.wake(crate::Queue::Runs);
        }
        Ok(recorded)
    }

    /// Ends a delivery acted on in the request that recorded it (a pull request's check).
    pub async fn settle_forge_delivery(
        &mut self,
        id: ForgeDeliveryId,
        status: &str,
        outcome: &serde_json::Value,
        now: Timestamp,
    ) -> Result<ForgeDeliveryRecord, StoreError> {
        let sql = format!(
            "UPDATE forge_deliveries SET status = $2, outcome = $3, updated_at = $4
             WHERE id = $1 RETURNING {DELIVERY_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(status)
            .bind(JsonText(outcome))
            .bind(now)
            .fetch_one(c)
            .await?))
    }

    /// Keeps a `pending` status on a pull request's head while `check` runs (a check joined
    /// by a second event keeps its row).
    pub async fn queue_commit_status(
        &mut self,
        new: &NewCommitStatus,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO commit_statuses (drift_check_id, workspace_id, forge, repository, sha,
                 pull_number, state, description, next_attempt_at, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $8, $8)
             ON CONFLICT (drift_check_id) DO NOTHING"
        )
        .bind(new.drift_check_id)
        .bind(new.workspace_id)
        .bind(&new.forge)
        .bind(JsonText(&new.repository))
        .bind(&new.sha)
        .bind(new.pull_number)
        .bind(&new.description)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        self.wake(crate::Queue::Runs);
        Ok(())
    }
}
