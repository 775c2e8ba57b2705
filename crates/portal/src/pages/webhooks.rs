//! The webhook console: endpoints, the event catalog, test events, deliveries and their
//! attempts, replay and recovery.

use axum::Router;

use crate::Portal;

pub fn router() -> Router<Portal> {
    Router::new()
}
