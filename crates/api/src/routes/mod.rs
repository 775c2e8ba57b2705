//! One module per resource. Each handler checks, in this order: tenancy (another workspace's
//! resource is a 404), scope (403), the workspace's state (409 when deleted), then the body
//! (415/422), so no input can tell a foreign resource from a missing one.

pub mod articles;
pub mod drift;
pub mod meta;
pub mod runs;
pub mod tokens;
pub mod webhooks;
pub mod workspaces;

use std::str::FromStr;

use domain::{Scope, WorkspaceId};
use store::WorkspaceRecord;

use crate::auth::Auth;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A path id that does not parse names nothing: 404, like an unknown one.
pub fn parse_id<T: FromStr>(raw: &str, what: &str) -> ApiResult<T> {
    raw.parse().map_err(|_| ApiError::not_found(what, raw))
}

/// The workspace `raw`, if the caller may act in it with `needed`.
pub async fn workspace_for(
    state: &AppState,
    auth: &Auth,
    raw: &str,
    needed: Scope,
) -> ApiResult<WorkspaceRecord> {
    let id: WorkspaceId = parse_id(raw, "workspace")?;
    auth.check(id, needed, "workspace", raw)?;
    state
        .store
        .workspace(id)
        .await?
        .ok_or_else(|| ApiError::not_found("workspace", raw))
}

/// Every write inside a deleted workspace is refused.
pub fn ensure_active(ws: &WorkspaceRecord) -> ApiResult<()> {
    if ws.active {
        Ok(())
    } else {
        Err(ApiError::conflict(format!(
            "Workspace '{}' has been deleted; it is read-only.",
            ws.id
        )))
    }
}

/// The workspace of a resource already loaded, for a write: checks tenancy, scope and state.
pub async fn active_workspace(
    state: &AppState,
    auth: &Auth,
    id: WorkspaceId,
    needed: Scope,
    what: &str,
    raw: &str,
) -> ApiResult<WorkspaceRecord> {
    auth.check(id, needed, what, raw)?;
    let ws = state
        .store
        .workspace(id)
        .await?
        .ok_or_else(|| ApiError::not_found(what, raw))?;
    ensure_active(&ws)?;
    Ok(ws)
}
