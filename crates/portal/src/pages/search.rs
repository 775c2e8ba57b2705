//! Search in a workspace, for its members: the current version of every article, drafts
//! included (`Operations::search_workspace`, the operation the published site's search
//! shares). `GET /portal/w/{ws}/search?q=…&page=…` is the page (a GET form, without
//! JavaScript); htmx fetches `…/search/results?q=…` as the person types and swaps it in.

use askama::Template;
use axum::Router;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use domain::{ArticleStatus, Surface};
use operations::ErrorKind;
use operations::search::{MAX_QUERY_CHARS, SearchRequest, SearchResults};
use serde::Deserialize;
use store::Highlighted;

use super::Member;
use crate::Portal;
use crate::web::{Nav, PageError, PageResult};

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/w/{ws}/search", get(page))
        .route("/portal/w/{ws}/search/results", get(fragment))
}

#[derive(Deserialize)]
struct SearchQuery {
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

struct ResultsView {
    message: Option<String>,
    hits: Vec<HitView>,
    next_href: Option<String>,
}

struct HitView {
    id: String,
    href: String,
    title: String,
    snippet: Highlighted,
    feature: String,
    surface: Surface,
    status: ArticleStatus,
    version: i64,
}

#[derive(Template)]
#[template(path = "portal/search.html")]
struct SearchPage {
    nav: Nav,
    text: String,
    max_chars: usize,
    results: ResultsView,
}

#[derive(Template)]
#[template(path = "portal/search_fragment.html")]
struct SearchFragment {
    results: ResultsView,
}

async fn page(
    State(portal): State<Portal>,
    member: Member,
    Query(query): Query<SearchQuery>,
) -> PageResult {
    let request = query.request();
    let (status, results) = search(&portal, &member, &request).await?;
    let page = SearchPage {
        nav: member.nav("search"),
        text: request.text.trim().to_owned(),
        max_chars: MAX_QUERY_CHARS,
        results,
    };
    rendered(status, &page)
}

async fn fragment(
    State(portal): State<Portal>,
    member: Member,
    Query(query): Query<SearchQuery>,
) -> PageResult {
    let (status, results) = search(&portal, &member, &query.request()).await?;
    rendered(status, &SearchFragment { results })
}

fn rendered(status: StatusCode, page: &impl Template) -> PageResult {
    let html = page
        .render()
        .map_err(|e| PageError::from(operations::Error::internal(e)))?;
    Ok((status, axum::response::Html(html)).into_response())
}

/// The results, or a refused search (too long, a page out of range) as a 422 that says why.
async fn search(
    portal: &Portal,
    member: &Member,
    request: &SearchRequest,
) -> PageResult<(StatusCode, ResultsView)> {
    match portal
        .ops
        .search_workspace(&member.caller, member.ws.id, request)
        .await
    {
        Ok(results) => Ok((StatusCode::OK, view(&results))),
        Err(e) if e.kind == ErrorKind::Validation => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            ResultsView {
                message: Some(e.message),
                hits: Vec::new(),
                next_href: None,
            },
        )),
        Err(e) => Err(e.into()),
    }
}

fn view(results: &SearchResults) -> ResultsView {
    let ws = results.workspace.id;
    let message = if results.terms.is_empty() {
        Some("Type one or more words to search this workspace's articles, drafts included.".into())
    } else if results.hits.is_empty() && results.page == 1 {
        Some(format!("No article matches “{}”.", results.text))
    } else {
        None
    };
    ResultsView {
        message,
        hits: results
            .hits
            .iter()
            .map(|hit| HitView {
                id: hit.article_id.to_string(),
                href: format!("/portal/w/{ws}/articles/{}", hit.article_id),
                title: hit.title.clone(),
                snippet: hit.snippet.clone(),
                feature: hit.feature_id.clone(),
                surface: hit.surface,
                status: hit.status,
                version: hit.version,
            })
            .collect(),
        next_href: results.has_more.then(|| {
            crate::site::next_page_href(
                &format!("/portal/w/{ws}/search"),
                &results.text,
                results.page,
            )
        }),
    }
}
