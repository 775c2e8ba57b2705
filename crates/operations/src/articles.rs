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

/// The most source files a published page links ("edit the source"); the rest are counted.
pub const MAX_SOURCE_FILES: usize = 5;

/// Where a reader finds what a published version was written from: its commit and files, each
/// with its page on the repository's forge when the forge is known (the workspace's remote
/// URL, else the `origin` remote of its repository; GitHub, GitLab, Bitbucket, Gitea and
/// Forgejo).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceLinks {
    /// The commit's full id.
    pub commit: Option<String>,
    pub commit_url: Option<String>,
    /// The documents and code it was written from, documents first, at most
    /// [`MAX_SOURCE_FILES`].
    pub files: Vec<SourceFile>,
    /// How many more files there are.
    pub more_files: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub url: Option<String>,
}

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

    /// Where `version`'s sources are (see [`SourceLinks`]); anyone who may read the version may
    /// read this. A repository that cannot be opened gives links without forge pages.
    pub async fn source_links(
        &self,
        workspace: &WorkspaceRecord,
        version: &ArticleVersionRecord,
    ) -> SourceLinks {
        let Ok(provenance) =
            serde_json::from_value::<pipeline::Provenance>(version.provenance.0.clone())
        else {
            return SourceLinks::default();
        };
        let forge = match (&workspace.repo_url, &workspace.repo_path) {
            (Some(url), _) => pipeline::Forge::from_remote(url),
            (None, Some(path)) => {
                let path = std::path::PathBuf::from(path);
                tokio::task::spawn_blocking(move || pipeline::Forge::of_repository_at(&path))
                    .await
                    .ok()
                    .flatten()
            }
            (None, None) => None,
        };
        let commit = provenance.commit;
        let mut sources: Vec<&pipeline::FileSource> = provenance
            .files
            .iter()
            .filter(|f| matches!(f.role, pipeline::FileRole::Prose | pipeline::FileRole::Code))
            .collect();
        sources.sort_by_key(|f| f.role != pipeline::FileRole::Prose);
        let more_files = sources.len().saturating_sub(MAX_SOURCE_FILES);
        let files = sources
            .into_iter()
            .take(MAX_SOURCE_FILES)
            .map(|f| SourceFile {
                path: f.path.clone(),
                url: forge
                    .as_ref()
                    .and_then(|forge| forge.file_url(&commit, &f.path, None)),
            })
            .collect();
        SourceLinks {
            commit_url: forge.as_ref().and_then(|f| f.commit_url(&commit)),
            commit: Some(commit).filter(|c| !c.is_empty()),
            files,
            more_files,
        }
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
            tx.request_publish_sync(published.workspace_id, now).await?;
        }
        Ok(published)
    }
}
