//! The published site: what a reader without an account sees. Nothing here needs a session.
//!
//! - `GET /published/{article_id}`: the article's published version as an HTML page
//!   (`public_url`), or its MDX for a client that prefers `text/markdown` in `Accept` and for
//!   `/published/{article_id}.mdx` (the bytes and headers the API always served).
//! - `GET /published/{article_id}/files/{*path}`: an image or capture the published version
//!   shows, from the repository at its commit ([`files`]).
//! - `GET /published/workspaces/{workspace_id}`: the workspace's published articles by surface.
//! - `GET /published/workspaces/{workspace_id}/changelog.atom`: its published changelogs as an
//!   Atom feed ([`feed`]).
//! - `GET /published/workspaces/{workspace_id}/sitemap.xml`: its index and article pages
//!   ([`sitemap`]).
//! - `GET /published/workspaces/{workspace_id}/search?q=…`: search over its published
//!   versions, and `…/search/results?q=…` the results as the search box's script shows them
//!   ([`search`]).
//! - `GET /published/assets/…`: the site's stylesheets and the search box's script, from the
//!   binary.
//!
//! Decisions: published articles stay up when their workspace is deleted (see
//! `Operations::published_version`); a workspace that has published nothing has no index or
//! feed (404), so public pages never tell that a workspace exists; relative links in an
//! article stay as written (they address a docs site's layout, which this site does not
//! mirror).

mod assets;
mod feed;
pub mod files;
mod negotiate;
mod pages;
mod search;
pub mod security;
mod sitemap;

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use domain::{ArticleId, Surface, WorkspaceId};
use operations::{ErrorKind, Operations};

use crate::Portal;

pub use assets::{HIGHLIGHT_STYLESHEET, SITE_STYLESHEET};
pub(crate) use search::next_page_href;

/// Where an article's public page is.
pub fn article_path(article: ArticleId) -> String {
    format!("/published/{article}")
}

/// Where a workspace's index page is.
pub fn index_path(workspace: WorkspaceId) -> String {
    format!("/published/workspaces/{workspace}")
}

/// Where a workspace's changelog feed is.
pub fn feed_path(workspace: WorkspaceId) -> String {
    format!("/published/workspaces/{workspace}/changelog.atom")
}

/// Where the published site serves the repository file `path` an article shows.
pub fn file_path(article: ArticleId, path: &str) -> String {
    format!("/published/{article}/files/{}", pipeline::encode_path(path))
}

/// Where a workspace's sitemap is.
pub fn sitemap_path(workspace: WorkspaceId) -> String {
    format!("/published/workspaces/{workspace}/sitemap.xml")
}

/// The published site's routes (see the module), for the portal's router.
pub fn router() -> Router<Portal> {
    Router::new()
        .route("/published/{id}", get(article_page))
        .route("/published/{id}/files/{*path}", get(article_file))
        .route("/published/workspaces/{id}", get(index_page))
        .route(
            "/published/workspaces/{id}/changelog.atom",
            get(changelog_feed),
        )
        .route("/published/workspaces/{id}/sitemap.xml", get(sitemap))
        .route("/published/workspaces/{id}/search", get(search::page))
        .route(
            "/published/workspaces/{id}/search/results",
            get(search::fragment),
        )
        .merge(assets::router())
}

/// `public_url`: the page, or the MDX (see the module). Every answer varies with `Accept`:
/// the page and the MDX share a URL, and caches must tell them apart.
async fn article_page(
    State(portal): State<Portal>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Response {
    let mut response = article_answer(&portal.ops, id, &headers).await;
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

async fn article_answer(ops: &Operations, id: String, headers: &HeaderMap) -> Response {
    let (id, suffixed) = match id.strip_suffix(".mdx") {
        Some(id) => (id.to_owned(), true),
        None => (id, false),
    };
    let markdown = suffixed || negotiate::prefers_markdown(headers);
    let found = match id.parse::<ArticleId>() {
        Ok(article) => ops.published_version(article).await,
        Err(_) => Err(operations::Error::not_found("published article", &id)),
    };
    let published = match found {
        // A client that asked for MDX gets the API's error envelope, as it always did.
        Err(e) if markdown => return http_envelope::ApiError::from(e).into_response(),
        Err(e) => return page_error(&e),
        Ok(published) => published,
    };
    if markdown {
        return mdx(published.version.mdx_body);
    }
    match article_html(ops, published).await {
        Ok(page) => security::html_page(StatusCode::OK, page),
        Err(e) => page_error(&e),
    }
}

async fn article_html(
    ops: &Operations,
    published: operations::articles::Published,
) -> operations::Result<String> {
    let operations::articles::Published { article, version } = published;
    let workspace = ops
        .store
        .workspace(article.workspace_id)
        .await?
        .ok_or_else(|| operations::Error::not_found("workspace", article.workspace_id))?;
    let id = article.id;
    let rendered =
        files::render_version(ops, &article, &version, move |path| file_path(id, path)).await?;
    let site = ops.published_articles(article.workspace_id).await?;
    let sources = ops.source_links(&workspace, &version).await;
    let context = pages::ArticleContext {
        workspace: &workspace,
        site: &site,
        sources: &sources,
        page_url: ops.url(&article_path(id)),
    };
    pages::article(&context, &article, &version, &rendered)
}

/// An image or capture of the published version.
async fn article_file(
    State(portal): State<Portal>,
    Path((id, path)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    let Ok(article) = id.parse::<ArticleId>() else {
        return security::not_found_text();
    };
    let served = match portal.ops.published_version(article).await {
        Ok(p) => files::referenced_file(&portal.ops, &p.article, &p.version, &path).await,
        Err(e) => Err(e),
    };
    match served {
        Ok(file) => security::file_response(file, &headers),
        Err(e) if e.kind == ErrorKind::NotFound => security::not_found_text(),
        Err(e) => {
            tracing::error!(error = %e, "serving a published file");
            security::text(StatusCode::INTERNAL_SERVER_ERROR, "Internal error.")
        }
    }
}

async fn index_page(State(portal): State<Portal>, Path(id): Path<String>) -> Response {
    let Ok(workspace) = id.parse::<WorkspaceId>() else {
        return page_error(&operations::Error::not_found("workspace", &id));
    };
    let site = match portal.ops.published_articles(workspace).await {
        Ok(site) => site,
        Err(e) => return page_error(&e),
    };
    match pages::index(&site, portal.ops.url(&index_path(workspace))) {
        Ok(page) => security::html_page(StatusCode::OK, page),
        Err(e) => page_error(&e),
    }
}

async fn changelog_feed(State(portal): State<Portal>, Path(id): Path<String>) -> Response {
    let Ok(workspace) = id.parse::<WorkspaceId>() else {
        return security::not_found_text();
    };
    let site = match portal
        .ops
        .published_versions(workspace, Surface::Changelog)
        .await
    {
        Ok(site) => site,
        Err(e) if e.kind == ErrorKind::NotFound => return security::not_found_text(),
        Err(e) => {
            tracing::error!(error = %e, "reading a changelog feed");
            return security::text(StatusCode::INTERNAL_SERVER_ERROR, "Internal error.");
        }
    };
    let ops = portal.ops.clone();
    match tokio::task::spawn_blocking(move || feed::changelog(&ops, &site)).await {
        Ok(xml) => (
            [
                (header::CONTENT_TYPE, "application/atom+xml; charset=utf-8"),
                (header::CONTENT_SECURITY_POLICY, security::TEXT_CSP),
            ],
            xml,
        )
            .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "rendering a changelog feed");
            security::text(StatusCode::INTERNAL_SERVER_ERROR, "Internal error.")
        }
    }
}

async fn sitemap(State(portal): State<Portal>, Path(id): Path<String>) -> Response {
    let Ok(workspace) = id.parse::<WorkspaceId>() else {
        return security::not_found_text();
    };
    match portal.ops.published_articles(workspace).await {
        Ok(site) => (
            [
                (header::CONTENT_TYPE, "application/xml; charset=utf-8"),
                (header::CONTENT_SECURITY_POLICY, security::TEXT_CSP),
            ],
            sitemap::of(&portal.ops, &site),
        )
            .into_response(),
        Err(e) if e.kind == ErrorKind::NotFound => security::not_found_text(),
        Err(e) => {
            tracing::error!(error = %e, "reading a sitemap");
            security::text(StatusCode::INTERNAL_SERVER_ERROR, "Internal error.")
        }
    }
}

/// The MDX as the API has always served it: tenant-written text that a browser must never
/// sniff into HTML or run anything from.
fn mdx(body: String) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/markdown; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, security::TEXT_CSP),
        ],
        body,
    )
        .into_response()
}

/// An error as a page: not found, or an internal error logged and not shown.
fn page_error(e: &operations::Error) -> Response {
    let status = match e.kind {
        ErrorKind::NotFound => StatusCode::NOT_FOUND,
        _ => {
            tracing::error!(error = %e, "rendering a published page");
            StatusCode::INTERNAL_SERVER_ERROR
        }
    };
    security::html_page(status, pages::error(status))
}
