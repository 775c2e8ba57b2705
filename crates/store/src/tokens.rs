use std::sync::{Arc, LazyLock};

use domain::{Scope, Timestamp, TokenId, WorkspaceId};

use crate::engine::{on_tx, read};
use crate::principals::Lookup;
use crate::{KeysetPage, Store, StoreError, TokenRecord, Tx};

const TOKEN_COLUMNS: &str = TokenRecord::COLUMNS;

impl Store {
    /// The live token whose secret hashes to `hash`, if any.
    pub async fn token_by_hash(&self, hash: &[u8]) -> Result<Option<TokenRecord>, StoreError> {
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {TOKEN_COLUMNS}
             FROM tokens WHERE secret_hash = $1 AND revoked_at IS NULL"
            )
        });
        if let Some(hot) = self.hot() {
            return hot.one(&SQL, [hash], TokenRecord::from_sqlite);
        }
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            SQL.as_str()
        ))
        .bind(hash)
        .fetch_optional(c)
        .await?))
    }

    /// The live token whose secret hashes to `hash`, as authentication needs it: from this
    /// node's memory of the tokens it authenticated when it read the token less than the
    /// principal cache's maximum age ago, or from the database. A revocation or reissue
    /// committed by this process is seen at once; one made elsewhere once the node is told
    /// ([`Store::forget_token`]) or the entry ages out (see `principals`). The caller still
    /// checks the hash and the expiry.
    pub async fn principal_by_hash(
        &self,
        hash: &[u8],
    ) -> Result<Option<Arc<TokenRecord>>, StoreError> {
        self.listen_for_changes();
        let generation = match self.principals.get(hash) {
            Lookup::Hit(record) => return Ok(Some(record)),
            Lookup::Miss { generation } => Some(generation),
            Lookup::Disabled => None,
        };
        let Some(record) = self.token_by_hash(hash).await?.map(Arc::new) else {
            return Ok(None);
        };
        if let Some(generation) = generation {
            self.principals.put(hash, Arc::clone(&record), generation);
        }
        Ok(Some(record))
    }

    /// Drops what this node remembers of token `id`: its next request reads the token again.
    /// For a change this node did not commit itself (another node's, told through the
    /// database); this node's own revocations and reissues do it when they commit.
    pub fn forget_token(&self, id: TokenId) {
        self.principals.forget(id);
    }

    /// Drops what this node remembers of every token: for when it may have missed a notice
    /// of a change (its listener reconnected, or is down).
    pub fn forget_all_tokens(&self) {
        self.principals.forget_all();
    }

    pub async fn token(&self, id: TokenId) -> Result<Option<TokenRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {TOKEN_COLUMNS}
             FROM tokens WHERE id = $1"
            )
        ))
        .bind(id)
        .fetch_optional(c)
        .await?))
    }

    /// A workspace's tokens, revoked ones included, newest first.
    pub async fn tokens(
        &self,
        workspace: WorkspaceId,
        page: &KeysetPage,
    ) -> Result<Vec<TokenRecord>, StoreError> {
        let (at, id) = page.bounds();
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(
            format!(
                "SELECT {TOKEN_COLUMNS}
             FROM tokens WHERE workspace_id = $1 AND (created_at, id) < ($2, $3)
             ORDER BY created_at DESC, id DESC LIMIT $4"
            )
        ))
        .bind(workspace)
        .bind(at)
        .bind(id)
        .bind(page.fetch())
        .fetch_all(c)
        .await?))
    }

    pub async fn has_platform_token(&self) -> Result<bool, StoreError> {
        let n: i64 = read!(self, |c| sqlx::query_scalar(
            "SELECT COUNT(*) FROM tokens WHERE workspace_id IS NULL AND revoked_at IS NULL"
        )
        .fetch_one(c)
        .await?);
        Ok(n > 0)
    }
}

impl Tx {
    /// Holds the workspace's row until this transaction ends, so that transactions counting
    /// what the workspace holds before adding to it take turns, and two of them cannot both
    /// take its last place. SQLite's single writer already makes them take turns. `NO KEY`
    /// leaves inserts that merely reference the workspace unblocked.
    pub(crate) async fn lock_workspace(
        &mut self,
        workspace: WorkspaceId,
    ) -> Result<(), StoreError> {
        if let crate::engine::TxInner::Postgres(t) = &mut self.inner {
            sqlx::query("SELECT 1 FROM workspaces WHERE id = $1 FOR NO KEY UPDATE")
                .bind(workspace)
                .execute(t.conn()?)
                .await?;
        }
        Ok(())
    }

    /// The workspace's live tokens (neither revoked nor expired at `now`), counted for its
    /// quota: the count holds until commit (see [`Tx::lock_workspace`]).
    pub async fn live_tokens(
        &mut self,
        workspace: WorkspaceId,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        self.lock_workspace(workspace).await?;
        Ok(on_tx!(self, |c| sqlx::query_scalar(
            "SELECT COUNT(*) FROM tokens WHERE workspace_id = $1 AND revoked_at IS NULL
             AND (expires_at IS NULL OR expires_at > $2)"
        )
        .bind(workspace)
        .bind(now)
        .fetch_one(c)
        .await?))
    }

    #[allow(clippy::too_many_arguments)]
    pub async fn insert_token(
        &mut self,
        workspace: Option<WorkspaceId>,
        name: &str,
        scope: Scope,
        secret_hash: &[u8],
        rate_limit: Option<i64>,
        expires_at: Option<Timestamp>,
        now: Timestamp,
    ) -> Result<TokenRecord, StoreError> {
        Ok(on_tx!(self, |c| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!("INSERT INTO tokens (id, workspace_id, name, scope, secret_hash, rate_limit, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             RETURNING {TOKEN_COLUMNS}")))
        .bind(TokenId::generate())
        .bind(workspace)
        .bind(name)
        .bind(scope)
        .bind(secret_hash)
        .bind(rate_limit)
        .bind(now)
        .bind(expires_at)
        .fetch_one(c)
        .await
        .map_err(StoreError::from_write)?
        }))
    }

    /// Replaces a live token's secret: the old secret stops working with this commit.
    pub async fn reissue_token(
        &mut self,
        id: TokenId,
        secret_hash: &[u8],
    ) -> Result<Option<TokenRecord>, StoreError> {
        self.token_changed(id);
        Ok(on_tx!(self, |c| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "UPDATE tokens SET secret_hash = $2 WHERE id = $1 AND revoked_at IS NULL
             RETURNING {TOKEN_COLUMNS}"
            )))
            .bind(id)
            .bind(secret_hash)
            .fetch_optional(c)
            .await
            .map_err(StoreError::from_write)?
        }))
    }

    /// Revokes a token; revoking again keeps the first revocation time.
    pub async fn revoke_token(
        &mut self,
        id: TokenId,
        now: Timestamp,
    ) -> Result<Option<TokenRecord>, StoreError> {
        self.token_changed(id);
        Ok(on_tx!(self, |c| {
            sqlx::query_as(sqlx::AssertSqlSafe(format!(
                "UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1
             RETURNING {TOKEN_COLUMNS}"
            )))
            .bind(id)
            .bind(now)
            .fetch_optional(c)
            .await?
        }))
    }

    /// Notes that the token was used at `at`, unless a use at or after `written_since` is
    /// recorded already (another node, or an earlier batch, wrote it): `last_used_at` moves
    /// forward at most once per interval. False when nothing changed.
    pub async fn note_token_used(
        &mut self,
        id: TokenId,
        at: Timestamp,
        written_since: Timestamp,
    ) -> Result<bool, StoreError> {
        let changed = on_tx!(self, |c| sqlx::query(
            "UPDATE tokens SET last_used_at = $2
             WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3)"
        )
        .bind(id)
        .bind(at)
        .bind(written_since)
        .execute(c)
        .await?
        .rows_affected());
        Ok(changed > 0)
    }
}
