//! Where a workspace's code is: `repo_path` or `repo_url` (with its default branch), the
//! remote's credential, and what the last fetch saw.

use domain::{Timestamp, WorkspaceId};

use crate::engine::{on_tx, read};
use crate::{RepositoryRecord, Store, StoreError, Tx, WorkspaceRecord};

const WORKSPACE_COLUMNS: &str = WorkspaceRecord::COLUMNS;
const REPOSITORY_COLUMNS: &str = RepositoryRecord::COLUMNS;

/// A workspace's repository as set by its admin: one of a path or a URL, or neither.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RepositorySetting {
    pub repo_path: Option<String>,
    pub repo_url: Option<String>,
    pub default_branch: Option<String>,
}

/// A credential to store: its kind, its encrypted value, and what may be shown of it.
#[derive(Clone, Debug)]
pub struct StoredCredential {
    pub kind: String,
    pub encrypted: Vec<u8>,
    pub fingerprint: String,
    pub public_key: Option<String>,
}

/// How a fetch ended.
#[derive(Clone, Debug)]
pub enum FetchNote {
    Fetched { branch: String, head: String },
    Failed(String),
}

impl Store {
    pub async fn repository(
        &self,
        workspace: WorkspaceId,
    ) -> Result<Option<RepositoryRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!("SELECT {REPOSITORY_COLUMNS} FROM repositories WHERE workspace_id = $1")
        ))
        .bind(workspace)
        .fetch_optional(c)
        .await?))
    }

    /// Records what a fetch of the workspace's remote saw (the last one wins on every node).
    pub async fn note_fetch(
        &self,
        workspace: WorkspaceId,
        note: &FetchNote,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        tx.ensure_repository_row(workspace, now).await?;
        let (head, branch, error) = match note {
            FetchNote::Fetched { branch, head } => {
                (Some(head.as_str()), Some(branch.as_str()), None)
            }
            FetchNote::Failed(message) => (None, None, Some(message.as_str())),
        };
        on_tx!(tx, |c| sqlx::query(
            "UPDATE repositories SET fetched_at = $2, updated_at = $2,
                 fetched_head = COALESCE($3, fetched_head),
                 fetched_branch = COALESCE($4, fetched_branch),
                 fetch_error = $5
             WHERE workspace_id = $1"
        )
        .bind(workspace)
        .bind(now)
        .bind(head)
        .bind(branch)
        .bind(error)
        .execute(c)
        .await?
        .rows_affected());
        tx.commit().await
    }
}

impl Tx {
    /// Sets where the workspace's code is; a new URL forgets what the last fetch saw.
    pub async fn set_repository(
        &mut self,
        workspace: WorkspaceId,
        setting: &RepositorySetting,
        now: Timestamp,
    ) -> Result<Option<WorkspaceRecord>, StoreError> {
        let previous: Option<Option<String>> = on_tx!(self, |c| sqlx::query_scalar(
            "SELECT repo_url FROM workspaces WHERE id = $1"
        )
        .bind(workspace)
        .fetch_optional(c)
        .await?);
        let Some(previous_url) = previous else {
            return Ok(None);
        };
        if previous_url != setting.repo_url {
            on_tx!(self, |c| sqlx::query(
                "UPDATE repositories SET fetched_at = NULL, fetched_head = NULL,
                     fetched_branch = NULL, fetch_error = NULL, updated_at = $2
                 WHERE workspace_id = $1"
            )
            .bind(workspace)
            .bind(now)
            .execute(c)
            .await?
            .rows_affected());
        }
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "UPDATE workspaces SET repo_path = $2, repo_url = $3, default_branch = $4,
                     updated_at = $5
                 WHERE id = $1 RETURNING {WORKSPACE_COLUMNS}"
            )
        ))
        .bind(workspace)
        .bind(&setting.repo_path)
        .bind(&setting.repo_url)
        .bind(&setting.default_branch)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }

    /// Renames the workspace.
    pub async fn rename_workspace(
        &mut self,
        workspace: WorkspaceId,
        name: &str,
        now: Timestamp,
    ) -> Result<Option<WorkspaceRecord>, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "UPDATE workspaces SET name = $2, updated_at = $3
                 WHERE id = $1 RETURNING {WORKSPACE_COLUMNS}"
            )
        ))
        .bind(workspace)
        .bind(name)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }

    /// Replaces the remote's credential (`None` removes it).
    pub async fn set_repository_credential(
        &mut self,
        workspace: WorkspaceId,
        credential: Option<&StoredCredential>,
        now: Timestamp,
    ) -> Result<RepositoryRecord, StoreError> {
        self.ensure_repository_row(workspace, now).await?;
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "UPDATE repositories SET credential_kind = $2, credential = $3,
                     credential_fingerprint = $4, public_key = $5, updated_at = $6
                 WHERE workspace_id = $1 RETURNING {REPOSITORY_COLUMNS}"
            )
        ))
        .bind(workspace)
        .bind(credential.map(|c| c.kind.as_str()))
        .bind(credential.map(|c| c.encrypted.as_slice()))
        .bind(credential.map(|c| c.fingerprint.as_str()))
        .bind(credential.and_then(|c| c.public_key.as_deref()))
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    async fn ensure_repository_row(
        &mut self,
        workspace: WorkspaceId,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO repositories (workspace_id, updated_at) VALUES ($1, $2)
             ON CONFLICT (workspace_id) DO NOTHING"
        )
        .bind(workspace)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(())
    }
}
