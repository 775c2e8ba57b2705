//! Settings → API tokens and Members: a workspace admin's pages.

use axum::Router;

use crate::Portal;

pub fn router() -> Router<Portal> {
    Router::new()
}
