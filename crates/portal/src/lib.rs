//! The web portal and the published documentation site, served by `content-pipeline serve`
//! beside the API: server-rendered HTML from templates compiled into the binary, with htmx
//! vendored for the live parts. Every action calls the same use cases of `operations` as the
//! API's handlers; nothing here is a second copy of a rule.
//!
//! - `render`: MDX to HTML (the article preview and the published page), highlighted source,
//!   diffs between versions. Pure functions.
//! - `site`: what readers see: `public_url` pages, a workspace's index, the changelog's Atom
//!   feed, and the files an article references, read from the repository at its commit.

pub mod render;
pub mod site;
mod state;

use axum::Router;

pub use state::{Portal, PortalConfig};

/// The portal's and the published site's routes, with their own state.
pub fn router(portal: Portal) -> Router {
    Router::new().merge(site::router()).with_state(portal)
}
