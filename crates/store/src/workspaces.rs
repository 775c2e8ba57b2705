use std::sync::LazyLock;

use domain::{Timestamp, WorkspaceId};

use crate::engine::{on_tx, read};
use crate::{KeysetPage, Store, StoreError, Tx, WorkspaceRecord};

const WORKSPACE_COLUMNS: &str = WorkspaceRecord::COLUMNS;

impl Store {
    pub async fn workspace(&self, id: WorkspaceId) -> Result<Option<WorkspaceRecord>, StoreError> {
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {WORKSPACE_COLUMNS}
                           FROM workspaces WHERE id = $1"
            )
        });
        if let Some(hot) = self.hot() {
            return hot.one(&SQL, [id], WorkspaceRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            SQL.as_str()
        ))
        .bind(id)
        .fetch_optional(c)
        .await?))
    }

    /// Newest first; `only` restricts the list to one workspace (a workspace token sees itself).
    pub async fn workspaces(
        &self,
        only: Option<WorkspaceId>,
        page: &KeysetPage,
    ) -> Result<Vec<WorkspaceRecord>, StoreError> {
        let (at, id) = page.bounds();
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {WORKSPACE_COLUMNS} FROM workspaces
             WHERE ($1 IS NULL OR id = $1) AND (created_at, id) < ($2, $3)
             ORDER BY created_at DESC, id DESC LIMIT $4"
            )
        ))
        .bind(only)
        .bind(at)
        .bind(id)
        .bind(page.fetch())
        .fetch_all(c)
        .await?))
    }
}

impl Tx {
    pub async fn insert_workspace(
        &mut self,
        name: &str,
        repo_path: Option<&str>,
        now: Timestamp,
    ) -> Result<WorkspaceRecord, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "INSERT INTO workspaces ({WORKSPACE_COLUMNS})
             VALUES ($1, $2, $3, TRUE, $4, $4, NULL, NULL)
             RETURNING {WORKSPACE_COLUMNS}"
            )
        ))
        .bind(WorkspaceId::generate())
        .bind(name)
        .bind(repo_path)
        .bind(now)
        .fetch_one(c)
        .await
        .map_err(StoreError::from_write)?))
    }

    /// Soft delete: the row and everything under it stay; `active` becomes false. Repeating it
    /// changes nothing.
    pub async fn deactivate_workspace(
        &mut self,
        id: WorkspaceId,
        now: Timestamp,
    ) -> Result<Option<WorkspaceRecord>, StoreError> {
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "UPDATE workspaces SET active = FALSE,
                 updated_at = CASE WHEN active THEN $2 ELSE updated_at END
             WHERE id = $1
             RETURNING {WORKSPACE_COLUMNS}"
            )
        ))
        .bind(id)
        .bind(now)
        .fetch_optional(c)
        .await?))
    }
}
