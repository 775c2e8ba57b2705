//! One module per resource. A handler reads as: who may do this (the resource's loader checks
//! tenancy, where another workspace's resource is a 404, then scope, 403, then for a change the
//! workspace's state, 409 when deleted), then the body (415/422), so no input can tell a
//! foreign resource from a missing one; what it does (a use case of `operations`); what it
//! answers.

pub mod articles;
pub mod drift;
pub mod exports;
pub mod forge;
pub mod members;
pub mod meta;
pub mod publish_targets;
pub mod runs;
pub mod tokens;
pub mod webhooks;
pub mod workspaces;

use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use operations::Resource;

use crate::error::ApiError;

/// The id in a route's path, typed by the resource it names (`Id<WebhookRecord>`): an id
/// that does not parse names nothing, so it is a 404 like an unknown one.
pub struct Id<R: Resource>(pub R::Id);

impl<R, S> FromRequestParts<S> for Id<R>
where
    R: Resource,
    R::Id: std::str::FromStr,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::new(crate::error::ErrorType::NotFound, "No such route."))?;
        raw.parse()
            .map(Id)
            .map_err(|_| operations::Error::not_found(R::WHAT, &raw).into())
    }
}
