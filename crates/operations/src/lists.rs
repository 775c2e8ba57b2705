//! Reads of lists, as use cases: one page of what a loaded resource holds (a workspace's
//! runs, an article's versions, …). The caller's right to the list is the record it was
//! loaded with ([`Operations::load`] checks tenancy, then scope); the front ends page through
//! these and never through the store.

use domain::Scope;
use store::{
    ArticleFilter, ArticleRecord, ArticleVersionRecord, KeysetPage, RunEventRecord, RunFilter,
    RunRecord, TokenRecord, WebhookRecord, WorkspaceRecord,
};

use crate::error::Result;
use crate::{Caller, Operations};

impl Operations {
    /// The workspaces `caller` sees: its own, or every one for the platform (read scope).
    pub async fn workspaces_page(
        &self,
        caller: &Caller,
        page: &KeysetPage,
    ) -> Result<Vec<WorkspaceRecord>> {
        caller.check_scope(Scope::Read)?;
        Ok(self.store.workspaces(caller.workspace, page).await?)
    }

    pub async fn tokens_page(
        &self,
        ws: &WorkspaceRecord,
        page: &KeysetPage,
    ) -> Result<Vec<TokenRecord>> {
        Ok(self.store.tokens(ws.id, page).await?)
    }

    pub async fn webhooks_page(
        &self,
        ws: &WorkspaceRecord,
        page: &KeysetPage,
    ) -> Result<Vec<WebhookRecord>> {
        Ok(self.store.webhooks(ws.id, page).await?)
    }

    /// Newest first; a status filter reads each run's status as shown now (a run whose lease
    /// has lapsed shows `queued`).
    pub async fn runs_page(
        &self,
        ws: &WorkspaceRecord,
        filter: &RunFilter,
        page: &KeysetPage,
    ) -> Result<Vec<RunRecord>> {
        let now = self.clock.timestamp();
        Ok(self.store.runs_filtered(ws.id, filter, page, now).await?)
    }

    /// A run's log lines after sequence number `after`, at most `limit`.
    pub async fn run_events_page(
        &self,
        run: &RunRecord,
        after: i64,
        limit: i64,
    ) -> Result<Vec<RunEventRecord>> {
        Ok(self.store.run_events(run.id, after, limit).await?)
    }

    pub async fn articles_page(
        &self,
        ws: &WorkspaceRecord,
        filter: &ArticleFilter,
        page: &KeysetPage,
    ) -> Result<Vec<ArticleRecord>> {
        Ok(self.store.articles(ws.id, filter, page).await?)
    }

    /// An article's versions below `before` (newest first), at most `limit`.
    pub async fn article_versions_page(
        &self,
        article: &ArticleRecord,
        before: Option<i64>,
        limit: i64,
    ) -> Result<Vec<ArticleVersionRecord>> {
        Ok(self
            .store
            .article_versions(article.id, before, limit)
            .await?)
    }
}
