//! What the drift checker reads (each article's current provenance) and writes (one notice
//! per article and HEAD commit, so `drift.detected` is emitted once).

use domain::{ArticleId, Surface, Timestamp, WorkspaceId};

use crate::engine::{read, write};
use crate::{JsonText, Store, StoreError, Tx};

/// An article (what the drift report names) with the provenance of its current version.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct ArticleProvenance {
    pub id: ArticleId,
    pub feature_id: String,
    pub surface: Surface,
    pub provenance: JsonText<serde_json::Value>,
}

impl Store {
    /// Every article of the workspace with its current version's provenance, in one query.
    pub async fn article_provenances(
        &self,
        workspace: WorkspaceId,
    ) -> Result<Vec<ArticleProvenance>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT a.id, a.feature_id, a.surface, v.provenance FROM articles a
             JOIN article_versions v ON v.article_id = a.id AND v.version = a.version
             WHERE a.workspace_id = $1 ORDER BY a.created_at, a.id"
        )
        .bind(workspace)
        .fetch_all(c)
        .await?))
    }

    /// Active workspaces that have a repository, for the periodic check.
    pub async fn workspaces_with_repositories(
        &self,
    ) -> Result<Vec<crate::WorkspaceRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT id, name, repo_path, active, created_at, updated_at FROM workspaces
             WHERE active AND repo_path IS NOT NULL ORDER BY created_at"
        )
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
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let n = write!(self, |c| {
            sqlx::query(
            "INSERT INTO drift_notices (article_id, head_commit, created_at) VALUES ($1, $2, $3)
             ON CONFLICT (article_id, head_commit) DO NOTHING"
        )
        .bind(article)
        .bind(head_commit)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected()
        });
        Ok(n == 1)
    }
}
