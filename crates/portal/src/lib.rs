//! The web portal and the published documentation site, served by `content-pipeline serve`
//! beside the API: server-rendered HTML from templates compiled into the binary, with htmx
//! vendored for the live parts. Every action calls the same use cases of `operations` as the
//! API's handlers; nothing here is a second copy of a rule.
//!
//! - `session`: who is signed in; CSRF and Origin checks on every state-changing request.
//! - `pages`: the signed-in pages (workspaces, runs, articles) and signing in.
//! - `render`: MDX to HTML (the article preview and the published page), highlighted source,
//!   diffs between versions. Pure functions.
//! - `site`: what readers see: `public_url` pages, a workspace's index, the changelog's Atom
//!   feed, and the files an article references, read from the repository at its commit.
//! - `security`: the headers of every response; `assets`: htmx and the stylesheet.

mod assets;
mod pages;
pub mod render;
mod security;
mod session;
pub mod site;
mod state;
mod web;

use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::IntoResponse;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

pub use state::{Portal, PortalConfig};

/// The portal's and the published site's routes, with their own state.
pub fn router(portal: Portal) -> Router {
    let portal_pages = Router::new()
        .merge(pages::router())
        .route_layer(from_fn_with_state(portal.clone(), session::load));
    // The API's protections, which its router applies only to its own routes: a request ends
    // after 30 s (a live log's stream is a body, not bound by it), a panic is a 500 rather
    // than a dropped connection, and a body is at most a form's size.
    // The static files need no session: a request for them reads nothing from the database.
    Router::new()
        .merge(portal_pages)
        .merge(assets::router())
        .merge(site::router())
        .route_layer(from_fn(security::headers))
        .layer(RequestBodyLimitLayer::new(session::FORM_LIMIT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(30),
        ))
        .layer(CatchPanicLayer::new())
        .layer(TraceLayer::new_for_http())
        // Our request id on every page and answer, and in the MDX route's error envelope, as
        // the API gives it.
        .layer(from_fn_with_state(
            portal.ops.base_url.clone(),
            http_envelope::request_context,
        ))
        .with_state(portal)
}

/// The page for a portal path that names nothing.
pub async fn not_found() -> axum::response::Response {
    web::PageError::not_found().into_response()
}
