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

use axum::Router;
use axum::middleware::{from_fn, from_fn_with_state};
use axum::response::IntoResponse;

pub use state::{Portal, PortalConfig};

/// The portal's and the published site's routes, with their own state.
pub fn router(portal: Portal) -> Router {
    let portal_pages = Router::new()
        .merge(pages::router())
        .merge(assets::router())
        .route_layer(from_fn_with_state(portal.clone(), session::load));
    Router::new()
        .merge(portal_pages)
        .merge(site::router())
        .route_layer(from_fn(security::headers))
        .with_state(portal)
}

/// The page for a portal path that names nothing.
pub async fn not_found() -> axum::response::Response {
    web::PageError::not_found().into_response()
}
