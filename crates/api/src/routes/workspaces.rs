use std::path::Path;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::Scope;
use serde::Deserialize;
use store::{Tx, WorkspaceRecord};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{parse_id, workspace_for};
use crate::auth::Auth;
use crate::body::{JsonBody, bounded, required_text};
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::Idempotency;
use crate::paging::{ListQuery, Page, PageParams, keyset_position};
use crate::resources::Workspace;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_workspaces, create_workspace))
        .routes(routes!(get_workspace, delete_workspace))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWorkspace {
    /// 1–200 characters.
    pub name: String,
    /// Absolute path to a readable git repository on the server.
    pub repo_path: Option<String>,
}

/// Checks a repository path: absolute, and a git repository the server can read.
pub fn validate_repo_path(raw: &str) -> ApiResult<()> {
    bounded("repo_path", raw, 4096)?;
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(ApiError::validation(
            "repo_path",
            "repo_path must be an absolute path.",
        ));
    }
    if !pipeline::is_git_repository(path) {
        return Err(ApiError::validation(
            "repo_path",
            "repo_path must be a readable git repository.",
        ));
    }
    Ok(())
}

impl CreateWorkspace {
    pub fn validate(&self) -> ApiResult<()> {
        required_text("name", &self.name, 200)?;
        if let Some(repo) = &self.repo_path {
            validate_repo_path(repo)?;
        }
        Ok(())
    }
}

/// Creates a workspace in `tx`; shared by the HTTP API and the CLI.
pub async fn create(
    tx: &mut Tx,
    now: domain::Timestamp,
    body: &CreateWorkspace,
) -> ApiResult<WorkspaceRecord> {
    body.validate()?;
    Ok(tx
        .insert_workspace(&body.name, body.repo_path.as_deref(), now)
        .await?)
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
    let list = "workspaces";
    let page = state.cursors.keyset(list, &q)?;
    let rows = state.store.workspaces(auth.0.workspace, &page).await?;
    Ok(axum::Json(state.cursors.page(
        list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        |r| Workspace::seen_by(r, &auth.0),
    )))
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
) -> ApiResult<Response> {
    auth.platform()?;
    let req: CreateWorkspace = body.parse()?;
    let mut tx = state.store.begin().await?;
    let ws = create(&mut tx, state.clock.timestamp(), &req).await?;
    let location = state.url(&format!("/v1/workspaces/{}", ws.id));
    let response = idem
        .respond(
            &mut tx,
            StatusCode::CREATED,
            Some(location),
            &Workspace::seen_by(ws, &auth.0),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
}

/// Get a workspace
#[utoipa::path(get, path = "/v1/workspaces/{id}", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["read"])),
    responses((status = 200, body = Workspace)))]
async fn get_workspace(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Workspace>> {
    let ws = workspace_for(&state, &auth, &id, Scope::Read).await?;
    Ok(axum::Json(Workspace::seen_by(ws, &auth.0)))
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
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Workspace>> {
    let ws_id = parse_id(&id, "workspace")?;
    auth.check(ws_id, Scope::Admin, "workspace", &id)?;
    let mut tx = state.store.begin().await?;
    let ws = tx
        .deactivate_workspace(ws_id, state.clock.timestamp())
        .await?
        .ok_or_else(|| ApiError::not_found("workspace", &id))?;
    tx.commit().await?;
    Ok(axum::Json(Workspace::seen_by(ws, &auth.0)))
}
