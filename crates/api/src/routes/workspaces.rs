use axum::extract::State;
use domain::Scope;
use operations::views::{self, Workspace};
use operations::workspaces::CreateWorkspace;
use store::WorkspaceRecord;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_workspaces, create_workspace))
        .routes(routes!(get_workspace, delete_workspace))
}

/// List workspaces
///
/// A workspace token sees only its own workspace, without `repo_path`; a platform token sees
/// all of them, deleted ones included (`active: false`). Newest first. Scope: read.
#[utoipa::path(get, path = "/v1/workspaces", tag = "Workspaces", params(PageParams),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Workspace>), (status = 400, body = ErrorEnvelope)))]
async fn list_workspaces(
    State(state): State<AppState>,
    auth: Auth,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Workspace>>> {
    let (store, only) = (&state.store, auth.workspace);
    state
        .cursors
        .keyset_list(
            "workspaces",
            &q,
            move |page| async move { store.workspaces(only, &page).await },
            |r| views::workspace(r, &auth),
        )
        .await
}

/// Create a workspace
///
/// Needs a platform admin token. `repo_path`, when given, must be an absolute path to a
/// readable git repository on the server.
#[utoipa::path(post, path = "/v1/workspaces", tag = "Workspaces",
    request_body = CreateWorkspace, security(("bearer" = ["admin"])),
    responses((status = 201, body = Workspace, headers(("Location" = String))),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn create_workspace(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    body: JsonBody,
) -> ApiResult<Recorded> {
    auth.platform()?;
    let req: CreateWorkspace = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let ws = ops.create_workspace(tx, &auth, &req).await?;
                let location = ops.url(&format!("/v1/workspaces/{}", ws.id));
                Ok(Answer::created(location, views::workspace(ws, &auth)))
            })
        })
        .await
}

/// Get a workspace
#[utoipa::path(get, path = "/v1/workspaces/{id}", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["read"])),
    responses((status = 200, body = Workspace)))]
async fn get_workspace(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<Workspace>> {
    let ws = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(views::workspace(ws, &auth)))
}

/// Delete a workspace
///
/// A soft delete: `active` becomes false and everything is kept. The workspace still answers
/// every GET; every write in it is then 409. Deleting again returns the same Workspace.
/// Scope: admin.
#[utoipa::path(delete, path = "/v1/workspaces/{id}", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = Workspace)))]
async fn delete_workspace(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<Recorded> {
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let ws = ops.delete_workspace(tx, &auth, id).await?;
                Ok(Answer::ok(views::workspace(ws, &auth)))
            })
        })
        .await
}
