use axum::extract::State;
use domain::Scope;
use operations::repositories::{NewCredential, Repository, SetRepositoryToken};
use operations::views::{self, Workspace};
use operations::workspaces::{CreateWorkspace, UpdateWorkspace};
use store::WorkspaceRecord;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::{EmptyBody, JsonBody};
use crate::error::{ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_workspaces, create_workspace))
        .routes(routes!(get_workspace, update_workspace, delete_workspace))
        .routes(routes!(get_repository))
        .routes(routes!(set_repository_token, delete_repository_credential))
        .routes(routes!(generate_deploy_key))
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
    let (ops, caller) = (&state.ops, &auth);
    state
        .cursors
        .keyset_list(
            "workspaces",
            &q,
            move |page| async move { ops.workspaces_page(caller, &page).await },
            |r| views::workspace(r, &auth),
        )
        .await
}

/// Create a workspace
///
/// Needs a platform admin token. `repo_path`, when given, must be an absolute path to a
/// readable git repository on the server; `repo_url` names a remote the service fetches
/// instead (one or the other).
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

/// Update a workspace
///
/// Renames it, or connects its repository: `repo_url` (a remote the service fetches, with
/// `default_branch`) or `repo_path` (a server path; platform tokens only). Setting one clears
/// the other; `null` clears a field. A new `repo_url` forgets what the last fetch saw (the
/// credential stays). Scope: admin.
#[utoipa::path(patch, path = "/v1/workspaces/{id}", tag = "Workspaces",
    params(("id" = String, Path)),
    request_body = UpdateWorkspace, security(("bearer" = ["admin"])),
    responses((status = 200, body = Workspace), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn update_workspace(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let req: UpdateWorkspace = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let updated = ops.update_workspace(tx, &auth, &ws, &req).await?;
                Ok(Answer::ok(views::workspace(updated, &auth)))
            })
        })
        .await
}

/// Get a workspace's repository
///
/// The remote (`repo_url`), its default branch, the credential's kind and fingerprint (never
/// the secret), and what the last fetch saw: when, the default branch's commit, and its error.
/// Fetches happen in runs and drift checks, on the node that runs them; `POST
/// …/drift-check` fetches now. Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{id}/repository", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = Repository), (status = 404, body = ErrorEnvelope)))]
async fn get_repository(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<Repository>> {
    let ws = state.ops.load(&auth, id, Scope::Admin).await?;
    Ok(axum::Json(state.ops.repository(&auth, &ws).await?))
}

/// Set the repository's token
///
/// Write-only: an access token with read access to the repository, sent as HTTP basic auth
/// over https (user `x-access-token` unless `username` says otherwise). It is encrypted with
/// the server key and never appears in an answer, a log or an error; the answer shows its
/// fingerprint. Replaces the previous credential (a deploy key too). Scope: admin.
#[utoipa::path(put, path = "/v1/workspaces/{id}/repository/credential", tag = "Workspaces",
    params(("id" = String, Path)),
    request_body = SetRepositoryToken, security(("bearer" = ["admin"])),
    responses((status = 200, body = Repository), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn set_repository_token(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let req = NewCredential::Token(body.parse::<SetRepositoryToken>()?);
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let repo = ops
                    .set_repository_credential(tx, &auth, &ws, Some(&req))
                    .await?;
                Ok(Answer::ok(repo))
            })
        })
        .await
}

/// Generate a deploy key
///
/// The service generates an ed25519 key pair for `ssh://` and `git@host:path` URLs and keeps
/// the private half (encrypted with the server key; it never leaves the server). The answer's
/// `credential.public_key` is the line to add to the repository's deploy keys (read access
/// is enough). Replaces the previous credential. The body is optional. Scope: admin.
#[utoipa::path(post, path = "/v1/workspaces/{id}/repository/deploy-key", tag = "Workspaces",
    params(("id" = String, Path)),
    request_body(content = Option<EmptyBody>), security(("bearer" = ["admin"])),
    responses((status = 200, body = Repository), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn generate_deploy_key(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let _: EmptyBody = body.parse_optional()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let repo = ops
                    .set_repository_credential(tx, &auth, &ws, Some(&NewCredential::DeployKey))
                    .await?;
                Ok(Answer::ok(repo))
            })
        })
        .await
}

/// Remove the repository's credential
///
/// Later fetches are anonymous. Scope: admin.
#[utoipa::path(delete, path = "/v1/workspaces/{id}/repository/credential", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = Repository), (status = 409, body = ErrorEnvelope)))]
async fn delete_repository_credential(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let repo = ops.set_repository_credential(tx, &auth, &ws, None).await?;
                Ok(Answer::ok(repo))
            })
        })
        .await
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
