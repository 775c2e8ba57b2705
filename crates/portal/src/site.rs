//! The published site: what a reader without an account sees.

use axum::Router;

use crate::Portal;

pub fn router() -> Router<Portal> {
    Router::new()
}
