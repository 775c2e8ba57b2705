//! Full-text search over a workspace's articles, the one operation behind every search box:
//! the published site's (anyone; published versions only) and the portal's (members of the
//! workspace; the current version of every article, drafts included). The store ranks, marks
//! the matches and keeps the query syntax out of reach (`store::search`); here are the bounds
//! on what a person may ask.

use domain::{Scope, WorkspaceId};
use store::{SearchAudience, SearchHit, SearchTerms, WorkspaceRecord};

use crate::error::{Error, Result};
use crate::{Caller, Operations};

/// The longest search, in characters; a longer one is refused (`validation_failed`, `q`).
pub const MAX_QUERY_CHARS: usize = 200;
/// Results on one page.
pub const RESULTS_PER_PAGE: i64 = 10;
/// The deepest page: past it a search is refined, not paged (and its cost stays bounded).
pub const MAX_PAGE: i64 = 10;

/// A search as asked: its text and the page wanted (1-based).
#[derive(Clone, Debug)]
pub struct SearchRequest {
    pub text: String,
    pub page: i64,
}

/// One page of results.
#[derive(Clone, Debug)]
pub struct SearchResults {
    pub workspace: WorkspaceRecord,
    /// The text searched, trimmed.
    pub text: String,
    /// The words searched for (none: nothing was searched).
    pub terms: SearchTerms,
    pub hits: Vec<SearchHit>,
    pub page: i64,
    /// A next page exists (and is within [`MAX_PAGE`]).
    pub has_more: bool,
}

impl Operations {
    /// Searches what workspace `id` has published; anyone may. A workspace that has
    /// published nothing is not found, as its index is (see
    /// [`Operations::published_articles`]).
    pub async fn search_published(
        &self,
        id: WorkspaceId,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let workspace = self
            .store
            .workspace(id)
            .await?
            .ok_or_else(|| Error::not_found("workspace", id))?;
        if !self.store.has_published(id).await? {
            return Err(Error::not_found("workspace", id));
        }
        self.search(workspace, SearchAudience::Published, request)
            .await
    }

    /// Searches the current version of every article of workspace `id`, drafts included; the
    /// caller needs the read scope there.
    pub async fn search_workspace(
        &self,
        caller: &Caller,
        id: WorkspaceId,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let workspace: WorkspaceRecord = self.load(caller, id, Scope::Read).await?;
        self.search(workspace, SearchAudience::Members, request)
            .await
    }

    async fn search(
        &self,
        workspace: WorkspaceRecord,
        audience: SearchAudience,
        request: &SearchRequest,
    ) -> Result<SearchResults> {
        let text = request.text.trim();
        if text.chars().count() > MAX_QUERY_CHARS {
            return Err(Error::validation(
                "q",
                format!("The search is too long: at most {MAX_QUERY_CHARS} characters."),
            ));
        }
        if !(1..=MAX_PAGE).contains(&request.page) {
            return Err(Error::validation(
                "page",
                format!("page must be between 1 and {MAX_PAGE}."),
            ));
        }
        let terms = SearchTerms::parse(text);
        let offset = (request.page - 1) * RESULTS_PER_PAGE;
        let mut hits = self
            .store
            .search(workspace.id, audience, &terms, RESULTS_PER_PAGE + 1, offset)
            .await?;
        let has_more = hits.len() as i64 > RESULTS_PER_PAGE && request.page < MAX_PAGE;
        hits.truncate(RESULTS_PER_PAGE as usize);
        Ok(SearchResults {
            workspace,
            text: text.to_owned(),
            terms,
            hits,
            page: request.page,
            has_more,
        })
    }
}
