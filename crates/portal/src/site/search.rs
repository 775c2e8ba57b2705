//! Search on the published site: `GET /published/workspaces/{id}/search?q=…&page=…` is the
//! results page of the search box (a GET form, so it works without JavaScript), and
//! `…/search/results?q=…` the same results as a fragment, which the box's script
//! (`assets/site-search.js`) shows as the reader types. Both read the published versions of
//! that workspace only, through `Operations::search_published`. A workspace that has
//! published nothing is a 404, as its index is; a search over the bounds is a 422 that says
//! why.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::WorkspaceId;
use operations::search::{MAX_QUERY_CHARS, SearchRequest, SearchResults};
use operations::{ErrorKind, Operations};
use serde::Deserialize;
use store::{Highlighted, WorkspaceRecord};

use super::assets::{HIGHLIGHT_STYLESHEET, SEARCH_SCRIPT, SEARCH_STYLESHEET, SITE_STYLESHEET};
use super::{article_path, index_path, page_error, security};

/// Where a workspace's search page is.
fn search_path(workspace: WorkspaceId) -> String {
    format!("/published/workspaces/{workspace}/search")
}

/// Where the results fragment of the search box's script is.
fn results_path(workspace: WorkspaceId) -> String {
    format!("/published/workspaces/{workspace}/search/results")
}

/// The search box in the header of a workspace's pages (`templates/site/search_box.html`).
pub struct SearchBox {
    pub stylesheet: &'static str,
    pub script: &'static str,
    pub action: String,
    pub results: String,
    pub text: String,
    pub workspace_name: String,
    pub max_chars: usize,
}

impl SearchBox {
    pub fn new(workspace: &WorkspaceRecord, text: &str) -> Self {
        Self {
            stylesheet: &SEARCH_STYLESHEET,
            script: &SEARCH_SCRIPT,
            action: search_path(workspace.id),
            results: results_path(workspace.id),
            text: text.to_owned(),
            workspace_name: workspace.name.clone(),
            max_chars: MAX_QUERY_CHARS,
        }
    }
}

#[derive(Deserialize)]
pub(super) struct SearchQuery {
    #[serde(default)]
    q: String,
    /// Read as text: a page that is not a number is the same 422 as one out of range.
    page: Option<String>,
}

impl SearchQuery {
    fn request(&self) -> SearchRequest {
        SearchRequest {
            text: self.q.clone(),
            page: match self.page.as_deref() {
                None | Some("") => 1,
                Some(p) => p.parse().unwrap_or(0),
            },
        }
    }
}

/// What the results template shows.
pub struct ResultsView {
    pub message: Option<String>,
    pub hits: Vec<HitView>,
    pub next_href: Option<String>,
}

pub struct HitView {
    pub id: String,
    pub href: String,
    pub title: String,
    pub snippet: Highlighted,
    pub meta: String,
}

impl ResultsView {
    fn of(results: &SearchResults) -> Self {
        let message = if results.terms.is_empty() {
            Some("Type one or more words to search the documentation.".to_owned())
        } else if results.hits.is_empty() && results.page == 1 {
            Some(format!("No published page matches “{}”.", results.text))
        } else {
            None
        };
        let hits = results
            .hits
            .iter()
            .map(|hit| HitView {
                id: hit.article_id.to_string(),
                href: article_path(hit.article_id),
                title: hit.title.clone(),
                snippet: hit.snippet.clone(),
                meta: hit.surface.title().to_owned(),
            })
            .collect();
        let next_href = results.has_more.then(|| {
            next_page_href(
                &search_path(results.workspace.id),
                &results.text,
                results.page,
            )
        });
        Self {
            message,
            hits,
            next_href,
        }
    }

    fn refused(message: String) -> Self {
        Self {
            message: Some(message),
            hits: Vec::new(),
            next_href: None,
        }
    }
}

/// The address of the page after `page` of the search for `text` at `path`.
pub(crate) fn next_page_href(path: &str, text: &str, page: i64) -> String {
    let next = (page + 1).to_string();
    let query =
        serde_urlencoded::to_string([("q", text), ("page", next.as_str())]).unwrap_or_default();
    format!("{path}?{query}")
}

#[derive(Template)]
#[template(path = "site/search.html")]
struct SearchPage<'a> {
    page_title: String,
    site_stylesheet: &'a str,
    highlight_stylesheet: &'a str,
    workspace_name: &'a str,
    index_href: String,
    search_box: Option<SearchBox>,
    results: ResultsView,
}

#[derive(Template)]
#[template(path = "site/search_fragment.html")]
struct SearchFragment {
    results: ResultsView,
}

/// The results page.
pub(super) async fn page(
    State(portal): State<crate::Portal>,
    Path(id): Path<String>,
    Query(query): Query<SearchQuery>,
) -> Response {
    let request = query.request();
    let (workspace, status, results) = match run(&portal.ops, &id, &request).await {
        Ok(found) => found,
        Err(e) => return page_error(&e),
    };
    let page = SearchPage {
        page_title: if request.text.trim().is_empty() {
            format!("Search · {}", workspace.name)
        } else {
            format!("{} · Search · {}", request.text.trim(), workspace.name)
        },
        site_stylesheet: &SITE_STYLESHEET,
        highlight_stylesheet: &HIGHLIGHT_STYLESHEET,
        workspace_name: &workspace.name,
        index_href: index_path(workspace.id),
        search_box: Some(SearchBox::new(&workspace, &request.text)),
        results,
    };
    match page.render() {
        Ok(html) => security::html_page(status, html),
        Err(e) => page_error(&operations::Error::internal(e)),
    }
}

/// The results as a fragment, for the search box's script.
pub(super) async fn fragment(
    State(portal): State<crate::Portal>,
    Path(id): Path<String>,
    Query(query): Query<SearchQuery>,
) -> Response {
    let request = query.request();
    let (status, results) = match run(&portal.ops, &id, &request).await {
        Ok((_, status, results)) => (status, results),
        Err(e) if e.kind == ErrorKind::NotFound => return security::not_found_text(),
        Err(e) => return page_error(&e),
    };
    match (SearchFragment { results }).render() {
        Ok(html) => security::html_page(status, html),
        Err(e) => page_error(&operations::Error::internal(e)),
    }
}

/// Searches, or says why not: a refused search (too long, a page out of range) is shown
/// with its reason and a 422; anything else that fails is the caller's error page.
async fn run(
    ops: &Operations,
    id: &str,
    request: &SearchRequest,
) -> operations::Result<(WorkspaceRecord, StatusCode, ResultsView)> {
    let workspace: WorkspaceId = id
        .parse()
        .map_err(|_| operations::Error::not_found("workspace", id))?;
    match ops.search_published(workspace, request).await {
        Ok(results) => Ok((
            results.workspace.clone(),
            StatusCode::OK,
            ResultsView::of(&results),
        )),
        Err(e) if e.kind == ErrorKind::Validation => {
            // The workspace exists and has published (the bounds are checked after that).
            let record = ops
                .store
                .workspace(workspace)
                .await?
                .ok_or_else(|| operations::Error::not_found("workspace", workspace))?;
            Ok((
                record,
                StatusCode::UNPROCESSABLE_ENTITY,
                ResultsView::refused(e.message),
            ))
        }
        Err(e) => Err(e),
    }
}
