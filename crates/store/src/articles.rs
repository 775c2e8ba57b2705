use domain::{ArticleId, ArticleStatus, RunId, Surface, Timestamp, WorkspaceId};

use crate::engine::{on_tx, read};
use crate::{ArticleRecord, ArticleVersionRecord, JsonText, KeysetPage, Store, StoreError, Tx};

const ARTICLE_COLUMNS: &str = ArticleRecord::COLUMNS;

/// Optional filters of the article list.
#[derive(Clone, Debug, Default)]
pub struct ArticleFilter {
    pub feature_id: Option<String>,
    pub surface: Option<Surface>,
    pub status: Option<ArticleStatus>,
}

impl Store {
    pub async fn article(&self, id: ArticleId) -> Result<Option<ArticleRecord>, StoreError> {
        let sql = format!("SELECT {ARTICLE_COLUMNS} FROM articles WHERE id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(c)
            .await?))
    }

    pub async fn articles(
        &self,
        workspace: WorkspaceId,
        filter: &ArticleFilter,
        page: &KeysetPage,
    ) -> Result<Vec<ArticleRecord>, StoreError> {
        let (at, id) = page.bounds();
        let sql = format!(
            "SELECT {ARTICLE_COLUMNS} FROM articles
             WHERE workspace_id = $1 AND ($2 IS NULL OR feature_id = $2)
               AND ($3 IS NULL OR surface = $3) AND ($4 IS NULL OR status = $4)
               AND (created_at, id) < ($5, $6)
             ORDER BY created_at DESC, id DESC LIMIT $7"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(filter.feature_id.as_deref())
            .bind(filter.surface)
            .bind(filter.status)
            .bind(at)
            .bind(id)
            .bind(page.fetch())
            .fetch_all(c)
            .await?))
    }

    /// The published articles of a workspace, the most recently written published versions
    /// first, at most `limit`. Bodies are not read: an index needs titles only.
    pub async fn published_articles(
        &self,
        workspace: WorkspaceId,
        limit: i64,
    ) -> Result<Vec<PublishedArticle>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT a.id AS article_id, a.feature_id, a.surface, v.version, v.title, v.created_at,
                 a.published_at
             FROM articles a
             JOIN article_versions v ON v.article_id = a.id AND v.version = a.published_version
             WHERE a.workspace_id = $1
             ORDER BY v.created_at DESC, a.id DESC LIMIT $2"
        )
        .bind(workspace)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }

    /// True when the workspace has published an article (the first one found ends the read).
    pub async fn has_published(&self, workspace: WorkspaceId) -> Result<bool, StoreError> {
        let found: Option<i64> = read!(self, |c| sqlx::query_scalar(
            "SELECT CAST(1 AS BIGINT) FROM articles
             WHERE workspace_id = $1 AND published_version IS NOT NULL LIMIT 1"
        )
        .bind(workspace)
        .fetch_optional(c)
        .await?);
        Ok(found.is_some())
    }

    /// The published versions (with their bodies) of a workspace's articles on `surface`, the
    /// most recently written first, at most `limit`.
    pub async fn published_versions(
        &self,
        workspace: WorkspaceId,
        surface: Surface,
        limit: i64,
    ) -> Result<Vec<ArticleVersionRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT v.article_id, v.version, v.run_id, v.title, v.status, v.mdx_body,
                 v.provenance, v.created_at
             FROM articles a
             JOIN article_versions v ON v.article_id = a.id AND v.version = a.published_version
             WHERE a.workspace_id = $1 AND a.surface = $2
             ORDER BY v.created_at DESC, a.id DESC LIMIT $3"
        )
        .bind(workspace)
        .bind(surface)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }

    /// The published versions' bodies of a workspace's articles, in article id order after
    /// `after`, at most `limit`: an export reads them a page at a time.
    pub async fn published_bodies(
        &self,
        workspace: WorkspaceId,
        after: Option<ArticleId>,
        limit: i64,
    ) -> Result<Vec<PublishedBody>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT a.id AS article_id, v.version, v.run_id, v.mdx_body
             FROM articles a
             JOIN article_versions v ON v.article_id = a.id AND v.version = a.published_version
             WHERE a.workspace_id = $1 AND ($2 IS NULL OR a.id > $2)
             ORDER BY a.id LIMIT $3"
        )
        .bind(workspace)
        .bind(after)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }

    /// Every version of an article, newest first, paged by version number.
    pub async fn article_versions(
        &self,
        article: ArticleId,
        before_version: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ArticleVersionRecord>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT article_id, version, run_id, title, status, mdx_body, provenance, created_at
             FROM article_versions WHERE article_id = $1 AND version < $2
             ORDER BY version DESC LIMIT $3"
        )
        .bind(article)
        .bind(before_version.unwrap_or(i64::MAX))
        .bind(limit)
        .fetch_all(c)
        .await?))
    }
}

/// One line of an article's history: a version without its body, with where its run came
/// from (the versions tab).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct VersionOrigin {
    pub version: i64,
    pub title: String,
    pub status: ArticleStatus,
    pub created_at: Timestamp,
    pub run_id: RunId,
    /// Absent only if the run was purged.
    pub source: Option<domain::RunSource>,
    pub source_commit: Option<String>,
}

impl Store {
    /// The newest `limit` versions of an article with their runs' source and commit, in one
    /// query (no bodies read).
    pub async fn version_origins(
        &self,
        article: ArticleId,
        limit: i64,
    ) -> Result<Vec<VersionOrigin>, StoreError> {
        Ok(read!(self, |c| sqlx::query_as(
            "SELECT v.version, v.title, v.status, v.created_at, v.run_id,
                    r.source, r.source_commit
             FROM article_versions v LEFT JOIN runs r ON r.id = v.run_id
             WHERE v.article_id = $1
             ORDER BY v.version DESC LIMIT $2"
        )
        .bind(article)
        .bind(limit)
        .fetch_all(c)
        .await?))
    }
}

/// A published article as its workspace's index lists it: the published version's title and
/// date, not the current version's (a newer draft may exist).
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PublishedArticle {
    pub article_id: ArticleId,
    pub feature_id: String,
    pub surface: Surface,
    /// The published version.
    pub version: i64,
    pub title: String,
    /// When the published version was written.
    pub created_at: Timestamp,
    /// When it was published (see [`crate::ArticleRecord::published_at`]).
    pub published_at: Option<Timestamp>,
}

/// A published version's body, for an export.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct PublishedBody {
    pub article_id: ArticleId,
    pub version: i64,
    pub run_id: RunId,
    pub mdx_body: String,
}

/// What a run produced for one surface of a feature.
#[derive(Clone, Debug)]
pub struct NewArticleVersion {
    pub workspace_id: WorkspaceId,
    pub feature_id: String,
    pub surface: Surface,
    pub title: String,
    pub status: ArticleStatus,
    pub mdx_body: String,
    /// What a reader reads of `mdx_body` (`pipeline::plain_text`): the text search indexes.
    pub plain_text: String,
    pub provenance: serde_json::Value,
    pub run_id: RunId,
}

impl Tx {
    /// Publishes the article's current version. `None` when the article does not exist;
    /// `Some((article, false))` when that version was already published (nothing changed).
    pub async fn publish_article(
        &mut self,
        id: ArticleId,
        public_url: &str,
        now: Timestamp,
    ) -> Result<Option<(ArticleRecord, bool)>, StoreError> {
        let update = format!(
            "UPDATE articles SET status = 'published', public_url = $2, published_version = version,
                 updated_at = $3, published_at = $3
             WHERE id = $1 AND status <> 'published' RETURNING {ARTICLE_COLUMNS}"
        );
        let changed: Option<ArticleRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(update))
                .bind(id)
                .bind(public_url)
                .bind(now)
                .fetch_optional(c)
                .await?);
        if let Some(article) = changed {
            self.index_published_version(article.id, article.version)
                .await?;
            return Ok(Some((article, true)));
        }
        let select = format!("SELECT {ARTICLE_COLUMNS} FROM articles WHERE id = $1");
        let current: Option<ArticleRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(select))
                .bind(id)
                .fetch_optional(c)
                .await?);
        Ok(current.map(|a| (a, false)))
    }

    /// Takes the article off the published site: its status is its current version's
    /// again, it leaves the published search index. `None` when it was not published (or
    /// does not exist); the article as it is then tells which.
    pub async fn unpublish_article(
        &mut self,
        id: ArticleId,
        now: Timestamp,
    ) -> Result<Option<ArticleRecord>, StoreError> {
        let update = format!(
            "UPDATE articles SET status = (SELECT v.status FROM article_versions v
                     WHERE v.article_id = articles.id AND v.version = articles.version),
                 public_url = NULL, published_version = NULL, published_at = NULL,
                 updated_at = $2
             WHERE id = $1 AND published_version IS NOT NULL RETURNING {ARTICLE_COLUMNS}"
        );
        let changed: Option<ArticleRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(update))
                .bind(id)
                .bind(now)
                .fetch_optional(c)
                .await?);
        if changed.is_some() {
            on_tx!(self, |c| {
                sqlx::query(
                "DELETE FROM search_documents WHERE article_id = $1 AND is_published AND NOT is_current"
            )
            .bind(id)
            .execute(c)
            .await?
            .rows_affected()
            });
            on_tx!(self, |c| sqlx::query(
                "UPDATE search_documents SET is_published = FALSE WHERE article_id = $1"
            )
            .bind(id)
            .execute(c)
            .await?
            .rows_affected());
        }
        Ok(changed)
    }

    /// The current version of the (workspace, feature, surface) article, if it exists.
    pub async fn current_article_version(
        &mut self,
        workspace: WorkspaceId,
        feature_id: &str,
        surface: Surface,
    ) -> Result<Option<ArticleVersionRecord>, StoreError> {
        Ok(on_tx!(self, |c| {
            sqlx::query_as(
            "SELECT v.article_id, v.version, v.run_id, v.title, v.status, v.mdx_body,
                 v.provenance, v.created_at
             FROM articles a JOIN article_versions v ON v.article_id = a.id AND v.version = a.version
             WHERE a.workspace_id = $1 AND a.feature_id = $2 AND a.surface = $3"
        )
        .bind(workspace)
        .bind(feature_id)
        .bind(surface)
        .fetch_optional(c)
        .await?
        }))
    }

    /// Writes the next version of the (workspace, feature, surface) article, creating the
    /// article on its first version. A run that already wrote a version of this article gets
    /// [`StoreError::Conflict`], so a retried run can never write a version twice.
    pub async fn write_article_version(
        &mut self,
        new: &NewArticleVersion,
        now: Timestamp,
    ) -> Result<ArticleRecord, StoreError> {
        let upsert = format!(
            "INSERT INTO articles (id, workspace_id, feature_id, surface, title, status, version,
                 run_id, mdx_body, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, 1, $7, $8, $9, $9)
             ON CONFLICT (workspace_id, feature_id, surface) DO UPDATE SET
                 title = excluded.title, status = excluded.status,
                 version = articles.version + 1, run_id = excluded.run_id,
                 mdx_body = excluded.mdx_body, updated_at = excluded.updated_at
             RETURNING {ARTICLE_COLUMNS}"
        );
        let article: ArticleRecord = on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(upsert))
            .bind(ArticleId::generate())
            .bind(new.workspace_id)
            .bind(&new.feature_id)
            .bind(new.surface)
            .bind(&new.title)
            .bind(new.status)
            .bind(new.run_id)
            .bind(&new.mdx_body)
            .bind(now)
            .fetch_one(c)
            .await?);
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO article_versions (article_id, version, run_id, title, status, mdx_body,
                 provenance, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"
        )
        .bind(article.id)
        .bind(article.version)
        .bind(new.run_id)
        .bind(&new.title)
        .bind(new.status)
        .bind(&new.mdx_body)
        .bind(JsonText(&new.provenance))
        .bind(now)
        .execute(c)
        .await
        .map_err(StoreError::from_write)?
        .rows_affected());
        self.index_current_version(
            article.id,
            article.version,
            new.workspace_id,
            &new.title,
            &new.plain_text,
        )
        .await?;
        Ok(article)
    }
}
