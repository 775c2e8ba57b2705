//! Publishing an article (its current version becomes the published one and
//! `article.published` is recorded, once per version), and reading what is published: the
//! public site's pages, which anyone may read.

use domain::{ArticleId, EventType, Surface, WorkspaceId};
use pipeline::article_files::CommitSource;
use store::{ArticleRecord, ArticleVersionRecord, PublishedArticle, Tx, WorkspaceRecord};

use crate::Operations;
use crate::error::{Error, Result};
use crate::views;

/// The most published articles a workspace's index lists (the most recently written first).
pub const MAX_PUBLISHED_LISTED: i64 = 500;
/// The most entries a workspace's changelog feed carries (the most recent first): each is
/// rendered in full on every request.
pub const MAX_FEED_ENTRIES: i64 = 50;

/// What a published article's public page shows: the article and its published version.
#[derive(Clone, Debug)]
pub struct Published {
    pub article: ArticleRecord,
    pub version: ArticleVersionRecord,
}

/// The published side of a workspace: its record and what it has published.
#[derive(Clone, Debug)]
pub struct PublishedSite<T> {
    pub workspace: WorkspaceRecord,
    pub items: Vec<T>,
}

impl Operations {
    /// The published version of article `id`; anyone may read it. Published articles stay up
    /// when their workspace is deleted (a soft delete that refuses writes): readers keep the
    /// documentation until someone regenerates or the operator removes it.
    pub async fn published_version(&self, id: ArticleId) -> Result<Published> {
        let missing = || Error::not_found("published article", id);
        let article = self.store.article(id).await?.ok_or_else(missing)?;
        let published = article.published_version.ok_or_else(missing)?;
        let version = self
            .store
            .article_versions(article.id, Some(published + 1), 1)
            .await?
            .into_iter()
            .next()
            .filter(|v| v.version == published)
            .ok_or_else(missing)?;
        Ok(Published { article, version })
    }

    /// The published articles of workspace `id` (at most [`MAX_PUBLISHED_LISTED`]); anyone
    /// may read them. A workspace that has published nothing is not found, so that a public
    /// page never tells that a workspace exists before it publishes.
    pub async fn published_articles(
        &self,
        id: WorkspaceId,
    ) -> Result<PublishedSite<PublishedArticle>> {
        let workspace = self.publishing_workspace(id).await?;
        let items = self
            .store
            .published_articles(id, MAX_PUBLISHED_LISTED)
            .await?;
        if items.is_empty() {
            return Err(Error::not_found("workspace", id));
        }
        Ok(PublishedSite { workspace, items })
    }

    /// The published versions of workspace `id`'s articles on `surface`, with their bodies
    /// (at most [`MAX_FEED_ENTRIES`]), for its feed; not found as in
    /// [`Operations::published_articles`].
    pub async fn published_versions(
        &self,
        id: WorkspaceId,
        surface: Surface,
    ) -> Result<PublishedSite<ArticleVersionRecord>> {
        let workspace = self.publishing_workspace(id).await?;
        if self.store.published_articles(id, 1).await?.is_empty() {
            return Err(Error::not_found("workspace", id));
        }
        let items = self
            .store
            .published_versions(id, surface, MAX_FEED_ENTRIES)
            .await?;
        Ok(PublishedSite { workspace, items })
    }

    /// Where `version`'s files (the images it shows) are read from: its workspace's
    /// repository at the commit of the run that wrote it. `None` when the workspace has no
    /// repository path or the version no run of that workspace with a commit (a version
    /// written by hand). The published site and the exports read files by this one rule.
    pub async fn version_source(
        &self,
        article: &ArticleRecord,
        version: &ArticleVersionRecord,
    ) -> Result<Option<CommitSource>> {
        let Some(repository) = self
            .store
            .workspace(article.workspace_id)
            .await?
            .and_then(|w| w.repo_path)
        else {
            return Ok(None);
        };
        Ok(self
            .run_commit(article.workspace_id, version.run_id)
            .await?
            .map(|commit| CommitSource { repository, commit }))
    }

    /// The source commit of run `run`, when it is a run of `workspace` that has one.
    pub(crate) async fn run_commit(
        &self,
        workspace: WorkspaceId,
        run: domain::RunId,
    ) -> Result<Option<String>> {
        Ok(self
            .store
            .run(run)
            .await?
            .filter(|run| run.workspace_id == workspace)
            .and_then(|run| run.source_commit))
    }

    async fn publishing_workspace(&self, id: WorkspaceId) -> Result<WorkspaceRecord> {
        self.store
            .workspace(id)
            .await?
            .ok_or_else(|| Error::not_found("workspace", id))
    }

    /// Publishes the current version of `article`; publishing it again changes nothing and
    /// records no event.
    pub async fn publish_article(
        &self,
        tx: &mut Tx,
        article: &ArticleRecord,
    ) -> Result<ArticleRecord> {
        let now = self.clock.timestamp();
        let public_url = self.url(&format!("/published/{}", article.id));
        let (published, changed) = tx
            .publish_article(article.id, &public_url, now)
            .await?
            .ok_or_else(|| Error::not_found("article", article.id))?;
        if changed {
            let data = serde_json::to_value(views::article_without_body(published.clone()))
                .map_err(Error::internal)?;
            tx.record_event(
                published.workspace_id,
                EventType::ArticlePublished,
                data,
                now,
            )
            .await?;
        }
        Ok(published)
    }
}
