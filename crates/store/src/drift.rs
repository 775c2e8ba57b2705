//! What the drift checker reads (each article's current provenance) and writes (one notice
//! per article and HEAD commit, so `drift.detected` is emitted once).

use domain::{ArticleId, DriftCheckId, RunStatus, Surface, Timestamp, WorkspaceId};

use crate::engine::{on_tx, read, write_pool};
use crate::{DriftCheckRecord, JsonText, Store, StoreError, Tx};

const WORKSPACE_COLUMNS: &str = crate::WorkspaceRecord::COLUMNS;

const CHECK_COLUMNS: &str = DriftCheckRecord::COLUMNS;

/// An article (what the drift report names) with the provenance of its current version.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ArticleProvenance {
    pub id: ArticleId,
    pub feature_id: String,
    pub surface: Surface,
    pub provenance: JsonText<serde_json::Value>,
}

impl Store {
    /// The articles of the workspace (of one feature when `feature_id` is given) with their
    /// current version's provenance, in one query.
    pub async fn article_provenances(
        &self,
        workspace: WorkspaceId,
        feature_id: Option<&str>,
    ) -> Result<Vec<ArticleProvenance>, StoreError> {
        // Two statements, not `$2 IS NULL OR …`: a prepared statement's generic plan could not
        // seek the (workspace, feature, surface) index with that, and the check after a run
        // would read every article of the workspace to keep its feature's few.
        const COLUMNS: &str = "SELECT a.id, a.feature_id, a.surface, v.provenance FROM articles a
             JOIN article_versions v ON v.article_id = a.id AND v.version = a.version";
        Ok(read!(self, |c| match feature_id {
            Some(feature) =>
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "{COLUMNS} WHERE a.workspace_id = $1 AND a.feature_id = $2
                 ORDER BY a.created_at, a.id"
                )))
                .bind(workspace)
                .bind(feature)
                .fetch_all(c)
                .await?,
            None =>
                sqlx::query_as(sqlx::AssertSqlSafe(format!(
                    "{COLUMNS} WHERE a.workspace_id = $1 ORDER BY a.created_at, a.id"
                )))
                .bind(workspace)
                .fetch_all(c)
                .await?,
        }))
    }

    /// The reports of the drift noticed on `article` at or after `since` (its current
    /// version's time), newest first: one indexed read of the notices' own rows.
    pub async fn drift_reports(
        &self,
        article: ArticleId,
        since: Timestamp,
        limit: i64,
    ) -> Result<Vec<JsonText<serde_json::Value>>, StoreError> {
        Ok(read!(self, |c| sqlx::query_scalar(
            "SELECT report FROM drift_notices
             WHERE article_id = $1 AND created_at >= $2 AND report IS NOT NULL
             ORDER BY created_at DESC, head_commit DESC LIMIT $3"
        )
        .bind(article)
        .bind(since)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }

    /// Active workspaces that have a repository, for the periodic check.
    pub async fn workspaces_with_repositories(
        &self,
    ) -> Result<Vec<crate::WorkspaceRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {WORKSPACE_COLUMNS} FROM workspaces
             WHERE active AND (repo_path IS NOT NULL OR repo_url IS NOT NULL) ORDER BY created_at"
            )
        ))
        .fetch_all(c)
        .await?))
    }
}

impl Tx {
    /// Records that `article` drifted at `head_commit`; false when that was already recorded.
    pub async fn note_drift(
        &mut self,
        article: ArticleId,
        head_commit: &str,
        report: &serde_json::Value,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = on_tx!(self, |c| {
            sqlx::query(
                "INSERT INTO drift_notices (article_id, head_commit, report, created_at)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (article_id, head_commit) DO NOTHING",
            )
            .bind(article)
            .bind(head_commit)
            .bind(JsonText(report))
            .bind(now)
            .execute(c)
            .await?
            .rows_affected()
        });
        Ok(n == 1)
    }
}

impl Tx {
    /// Queues a drift check of `workspace` at `git_ref` ('' is the default branch), or joins
    /// the one already queued at that ref (its id is then not `new_id`: the caller tells a
    /// join from a creation that way).
    pub async fn queue_drift_check(
        &mut self,
        workspace: WorkspaceId,
        git_ref: &str,
        now: Timestamp,
    ) -> Result<DriftCheckRecord, StoreError> {
        self.wake(crate::Queue::Runs);
        let sql = format!(
            "INSERT INTO drift_checks (id, workspace_id, status, created_at, updated_at, git_ref)
             VALUES ($1, $2, 'queued', $3, $3, $4)
             ON CONFLICT (workspace_id, git_ref) WHERE status = 'queued'
                 DO UPDATE SET updated_at = drift_checks.updated_at
             RETURNING {CHECK_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(DriftCheckId::generate())
            .bind(workspace)
            .bind(now)
            .bind(git_ref)
            .fetch_one(c)
            .await?))
    }
}

impl Store {
    pub async fn drift_check(
        &self,
        id: DriftCheckId,
    ) -> Result<Option<DriftCheckRecord>, StoreError> {
        let sql = format!("SELECT {CHECK_COLUMNS} FROM drift_checks WHERE id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(c)
            .await?))
    }

    /// Claims the oldest queued drift check (or one whose worker's lease expired) for `worker`.
    /// A check that lost its worker `max_attempts` times is failed instead.
    pub async fn claim_drift_check(
        &self,
        worker: &str,
        lease_until: Timestamp,
        now: Timestamp,
        max_attempts: i64,
    ) -> Result<Option<DriftCheckRecord>, StoreError> {
        let lock = match self.engine() {
            crate::Engine::Sqlite => "",
            crate::Engine::Postgres => " FOR UPDATE SKIP LOCKED",
        };
        write_pool!(self, |c| sqlx::query(
            "UPDATE drift_checks SET status = 'failed', finished_at = $1, updated_at = $1,
                 error = 'The drift check was abandoned: its worker stopped responding.',
                 lease_owner = NULL, lease_expires_at = NULL
             WHERE status = 'running' AND lease_expires_at < $1 AND attempts >= $2"
        )
        .bind(now)
        .bind(max_attempts)
        .execute(c)
        .await?
        .rows_affected());
        let sql = format!(
            "UPDATE drift_checks SET status = 'running', attempts = attempts + 1,
                 lease_owner = $1, lease_expires_at = $2, started_at = COALESCE(started_at, $3),
                 updated_at = $3
             WHERE id = (SELECT id FROM drift_checks
                 WHERE status = 'queued' OR (status = 'running' AND lease_expires_at < $3)
                 ORDER BY created_at, id LIMIT 1{lock})
             RETURNING {CHECK_COLUMNS}"
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

    /// Ends a drift check this worker holds with its result (JSON) or error. False when it
    /// was no longer this worker's.
    pub async fn finish_drift_check(
        &self,
        id: DriftCheckId,
        worker: &str,
        outcome: Result<&serde_json::Value, &str>,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let (status, result, error) = match outcome {
            Ok(result) => (RunStatus::Succeeded, Some(JsonText(result)), None),
            Err(error) => (RunStatus::Failed, None, Some(error)),
        };
        let n = write_pool!(self, |c| sqlx::query(
            "UPDATE drift_checks SET status = $3, result = $4, error = $5, finished_at = $6,
                 updated_at = $6, lease_owner = NULL, lease_expires_at = NULL
             WHERE id = $1 AND lease_owner = $2 AND status = 'running'"
        )
        .bind(id)
        .bind(worker)
        .bind(status)
        .bind(result)
        .bind(error)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(n == 1)
    }
}
