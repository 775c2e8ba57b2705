//! A workspace's publish target: the docs repository publishing keeps in sync
//! (`operations::publish_targets`; the pushes are the publish worker's).

use axum::extract::State;
use domain::Scope;
use operations::publish_targets::{PublishTarget, SetPublishTarget};
use store::WorkspaceRecord;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(
        get_publish_target,
        set_publish_target,
        delete_publish_target
    ))
}

/// Get the publish target
///
/// The docs repository publishing keeps in sync: URL, branch, folder, export format, the
/// credential's kind and fingerprint (never the secret), and the sync's status: `state`
/// (`pending`, `syncing`, `synced`, `retrying`, `auth_failed`), whether changes wait to be
/// pushed, the commit last pushed, the last error and when. 404 when the workspace has no
/// target. Scope: read.
#[utoipa::path(get, path = "/v1/workspaces/{id}/publish-target", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["read"])),
    responses((status = 200, body = PublishTarget), (status = 404, body = ErrorEnvelope)))]
async fn get_publish_target(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<PublishTarget>> {
    let ws = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(state.ops.publish_target(&auth, &ws).await?))
}

/// Set the publish target
///
/// Names the docs repository that publishing keeps in sync, replacing the previous target.
/// Every publish (and unpublish) then commits the workspace's published articles, laid out
/// for `format` like `GET …/export`, under `folder` on `branch`, and pushes: one commit per
/// sync, `docs: publish <title> (v<N>)` (or a summary when several changed), by `Content
/// Pipeline <content-pipeline@localhost>`. Only files the service wrote there are replaced or
/// removed; everything else in the repository stays. A push rejected because the branch moved
/// is redone on the new tip; failures are retried with back-off, except a refused credential
/// (`auth_failed`), which waits until the credential is set again. Setting the target syncs
/// at once.
///
/// The credential is write-only: `token` (HTTP basic auth over https) or
/// `generate_deploy_key: true` (ssh; the answer shows the public half to give write access
/// to); neither keeps the current one. The URL follows the repository rules and the outbound
/// address policy: a refused address is 422. Scope: admin.
#[utoipa::path(put, path = "/v1/workspaces/{id}/publish-target", tag = "Workspaces",
    params(("id" = String, Path)),
    request_body = SetPublishTarget, security(("bearer" = ["admin"])),
    responses((status = 200, body = PublishTarget), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn set_publish_target(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let req: SetPublishTarget = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let target = ops.set_publish_target(tx, &auth, &ws, &req).await?;
                Ok(Answer::ok(target))
            })
        })
        .await
}

/// Remove the publish target
///
/// Nothing more is pushed; the repository keeps what was pushed. Answers the target as it
/// was; 404 when there is none. Scope: admin.
#[utoipa::path(delete, path = "/v1/workspaces/{id}/publish-target", tag = "Workspaces",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = PublishTarget), (status = 404, body = ErrorEnvelope),
        (status = 409, body = ErrorEnvelope)))]
async fn delete_publish_target(
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
                let target = ops.delete_publish_target(tx, &auth, &ws).await?;
                Ok(Answer::ok(target))
            })
        })
        .await
}
