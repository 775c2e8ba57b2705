//! The headers of what the site serves, each kind of response in one place. The headers every
//! response carries (`nosniff`, the referrer policy, no framing, the page policy when a
//! response sets none) come from the portal's one layer, `crate::security::headers`; here
//! is only what differs by kind.

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use super::files::RepositoryFile;

/// Every HTML page: the portal's one policy (scripts, styles and images from this server
/// only, nothing inline, since the rendered articles hold repository text; never framed).
pub const PAGE_CSP: &str = crate::security::CONTENT_SECURITY_POLICY;
/// A served repository file: an SVG opened on its own runs no script and loads nothing
/// (inline styles are how SVGs are drawn).
pub const FILE_CSP: &str = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
/// Text a tenant wrote, served as it is (the MDX, the feed): a browser that opens it renders
/// and runs nothing.
pub const TEXT_CSP: &str = "default-src 'none'; sandbox";
/// Repository files are addressed by article and path, not commit: a newly published
/// version may change them, so caches revalidate (cheaply, by the blob id) after a while.
const FILE_CACHE: &str = "public, max-age=300";

/// An HTML page: the portal's layer gives it the page policy (`PAGE_CSP`).
pub fn html_page(status: StatusCode, html: String) -> Response {
    (status, Html(html)).into_response()
}

/// A repository file, or `304 Not Modified` when the client holds these bytes already.
pub fn file_response(file: RepositoryFile, request: &HeaderMap) -> Response {
    let etag = format!("\"{}\"", file.blob_id);
    let fresh = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|tag| tag.trim().trim_start_matches("W/") == etag || tag.trim() == "*");
    let status = if fresh {
        StatusCode::NOT_MODIFIED
    } else {
        StatusCode::OK
    };
    let body = if fresh { Vec::new() } else { file.bytes };
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(file.content_type),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(FILE_CSP),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(FILE_CACHE));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    response
}

/// Plain text, for answers that are not pages (a file or feed that is not there).
pub fn text(status: StatusCode, message: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        message,
    )
        .into_response()
}

/// The one answer to every file or feed that is not served.
pub fn not_found_text() -> Response {
    text(StatusCode::NOT_FOUND, "Not found.")
}
