//! The site's stylesheets and the search box's script, served from the binary. Pages link them with a `?v=` of their
//! content's hash, so a browser may keep them for good and still gets a changed stylesheet
//! the moment a new binary serves it.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::LazyLock;

use axum::Router;
use axum::http::header;
use axum::response::IntoResponse;
use axum::routing::get;

use crate::Portal;
use crate::render;

const SITE_CSS: &str = include_str!("../../assets/site.css");
const SITE_PATH: &str = "/published/assets/site.css";
const HIGHLIGHT_PATH: &str = "/published/assets/highlight.css";
const SEARCH_CSS: &str = include_str!("../../assets/site-search.css");
const SEARCH_CSS_PATH: &str = "/published/assets/search.css";
const SEARCH_JS: &str = include_str!("../../assets/site-search.js");
const SEARCH_JS_PATH: &str = "/published/assets/search.js";

/// The URL of the site's stylesheet (typography, layout, the rendered components).
pub static SITE_STYLESHEET: LazyLock<String> = LazyLock::new(|| versioned(SITE_PATH, SITE_CSS));
/// The URL of the highlighted code's stylesheet ([`render::highlight_css`]).
pub static HIGHLIGHT_STYLESHEET: LazyLock<String> =
    LazyLock::new(|| versioned(HIGHLIGHT_PATH, render::highlight_css()));
/// The URL of the search box's stylesheet.
pub static SEARCH_STYLESHEET: LazyLock<String> =
    LazyLock::new(|| versioned(SEARCH_CSS_PATH, SEARCH_CSS));
/// The URL of the search box's script (results as you type; the box works without it).
pub static SEARCH_SCRIPT: LazyLock<String> = LazyLock::new(|| versioned(SEARCH_JS_PATH, SEARCH_JS));

fn versioned(path: &str, content: &str) -> String {
    let mut hasher = DefaultHasher::new();
    content.hash(&mut hasher);
    format!("{path}?v={:016x}", hasher.finish())
}

pub(super) fn router() -> Router<Portal> {
    Router::new()
        .route(SITE_PATH, get(|| async { css(SITE_CSS) }))
        .route(
            HIGHLIGHT_PATH,
            get(|| async { css(render::highlight_css()) }),
        )
        .route(SEARCH_CSS_PATH, get(|| async { css(SEARCH_CSS) }))
        .route(SEARCH_JS_PATH, get(|| async { script(SEARCH_JS) }))
}

fn script(content: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        content,
    )
}

fn css(content: &'static str) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
        ],
        content,
    )
}
