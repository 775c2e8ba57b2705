//! Forges: the endpoint their webhooks post to (authenticated by the forge's own signature
//! with the workspace's forge secret, not by a bearer token), and the workspace's forge
//! connection for its admins: the secret, the status token, the deliveries received and the
//! pull requests' checks.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use operations::forge::{
    ForgeConnection, ForgeDelivery, PullRequestCheck, Received, RotateSecret, SetForgeToken,
};
use serde::Serialize;
use store::WorkspaceRecord;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::Page;
use crate::state::AppState;

/// The workspace's forge connection (behind bearer authentication).
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_forge))
        .routes(routes!(rotate_forge_secret))
        .routes(routes!(set_forge_token, delete_forge_token))
        .routes(routes!(list_forge_deliveries))
        .routes(routes!(list_pull_request_checks))
}

/// The endpoint forges post to (no bearer token: the forge's signature authenticates).
pub fn receiver() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(receive))
}

/// The forges whose webhooks the service reads (any other name is 404 `not_found`).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "lowercase")]
#[allow(dead_code)] // named in the OpenAPI document only: the path stays a string to answer 404
enum ForgeName {
    Github,
    Gitlab,
    Gitea,
}

/// How a delivery was taken.
#[derive(Serialize, utoipa::ToSchema)]
pub struct ForgeReceipt {
    /// The delivery as recorded (`fdl_…`); null for a redelivery within 24 h.
    pub id: Option<String>,
    /// `queued` (a push to read), `done` (a pull request's check queued), `ignored` (a ping,
    /// an event or action not acted on, another branch) or `duplicate`.
    pub status: String,
    pub summary: Option<String>,
}

/// Receive a forge's webhook
///
/// Paste this URL and the workspace's forge secret into the forge's webhook settings
/// (`{forge}`: `github`, `gitlab`, or `gitea` for Gitea and Forgejo). GitHub and Gitea sign
/// the raw body (`X-Hub-Signature-256: sha256=<hex>`, `X-Gitea-Signature` or
/// `X-Forgejo-Signature: <hex>`, HMAC-SHA256); GitLab sends the secret as `X-Gitlab-Token`.
/// The body is read up to 1 MiB (413 past it) before it is verified; a missing or wrong
/// signature is 401 and nothing is recorded. During a rotation's grace period the previous
/// secret is accepted too. A delivery id (`X-GitHub-Delivery`, `X-Gitlab-Event-UUID`,
/// `X-Gitea-Delivery`) seen in the last 24 h is answered 200 and does nothing. A push to the
/// default branch is queued (202): a worker fetches the pushed commits, diffs them and queues
/// one run per feature whose paths they touched. A pull (merge) request opened, given new
/// commits or reopened queues a drift check at its head (202), reported as the commit status
/// `content-pipeline/docs` when a forge token is set. `ping` is 200; other events are 202 and
/// ignored.
#[utoipa::path(post, path = "/v1/workspaces/{id}/forge/{forge}", tag = "Forges",
    params(("id" = String, Path), ("forge" = inline(ForgeName), Path, description = "github, gitlab or gitea (Gitea and Forgejo)")),
    request_body(content = serde_json::Value, description = "The forge's event payload, as the forge sends it."),
    security(()),
    responses((status = 200, description = "A ping, or a redelivery within 24 h: nothing to do.", body = ForgeReceipt),
        (status = 202, description = "Recorded: queued, done (a pull request's check queued) or ignored.", body = ForgeReceipt),
        (status = 401, description = "unauthenticated: the signature or token is missing or does not match the workspace's forge secret; nothing is recorded.", body = ErrorEnvelope), (status = 404, body = ErrorEnvelope),
        (status = 413, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn receive(
    State(state): State<AppState>,
    Path((ws, forge)): Path<(String, String)>,
    headers: HeaderMap,
    body: axum::body::Bytes,
) -> Result<Response, ApiError> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let received = state
        .ops
        .receive_forge_delivery(&ws, &forge, header, &body)
        .await?;
    let (code, receipt) = match received {
        Received::Duplicate => (
            StatusCode::OK,
            ForgeReceipt {
                id: None,
                status: "duplicate".into(),
                summary: Some("This delivery was received before: nothing done again.".into()),
            },
        ),
        Received::Queued(r) | Received::Ignored(r) => {
            let code = if r.event == "ping" {
                StatusCode::OK
            } else {
                StatusCode::ACCEPTED
            };
            let view = operations::forge::delivery_view(r);
            (
                code,
                ForgeReceipt {
                    id: Some(view.id),
                    status: view.status,
                    summary: view.summary,
                },
            )
        }
    };
    Ok((code, axum::Json(receipt)).into_response())
}

/// Get the workspace's forge connection
///
/// The payload URL for each forge, whether a delivery secret is set (never the secret), the
/// previous secret's end of grace, and the status token's fingerprint and API root.
/// Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{id}/repository/forge", tag = "Forges",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = ForgeConnection), (status = 404, body = ErrorEnvelope)))]
async fn get_forge(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<ForgeConnection>> {
    let ws = state.ops.load(&auth, id, Scope::Admin).await?;
    Ok(axum::Json(state.ops.forge_connection(&auth, &ws).await?))
}

/// Generate (or rotate) the forge secret
///
/// Returns the connection with its new `secret` (64 hex characters), shown only here: paste
/// it into the forge's webhook form. Until `grace_period_seconds` (default 86400, at most
/// 604800) have passed, deliveries signed with the previous secret are accepted too. The
/// body is optional. Scope: admin.
#[utoipa::path(post, path = "/v1/workspaces/{id}/repository/forge-secret", tag = "Forges",
    params(("id" = String, Path)),
    request_body(content = Option<RotateSecret>), security(("bearer" = ["admin"])),
    responses((status = 200, body = ForgeConnection), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn rotate_forge_secret(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let req: RotateSecret = body.parse_optional()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let connection = ops.rotate_forge_secret(tx, &auth, &ws, req).await?;
                Ok(Answer::ok(connection))
            })
        })
        .await
}

/// Set the forge status token
///
/// Write-only: a token allowed to set commit statuses, and the forge API root for GitHub
/// Enterprise, a self-hosted GitLab, or Gitea/Forgejo (required there). The API root must
/// pass the outbound address policy. The token is encrypted with the server key and never
/// shown again; the answer shows its fingerprint. Scope: admin.
#[utoipa::path(put, path = "/v1/workspaces/{id}/repository/forge-token", tag = "Forges",
    params(("id" = String, Path)),
    request_body = SetForgeToken, security(("bearer" = ["admin"])),
    responses((status = 200, body = ForgeConnection), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn set_forge_token(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, id, Scope::Admin).await?;
    let req: SetForgeToken = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let connection = ops.set_forge_token(tx, &auth, &ws, Some(req)).await?;
                Ok(Answer::ok(connection))
            })
        })
        .await
}

/// Remove the forge status token
///
/// Pull requests' checks still run; their statuses are kept here only. Scope: admin.
#[utoipa::path(delete, path = "/v1/workspaces/{id}/repository/forge-token", tag = "Forges",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = ForgeConnection), (status = 409, body = ErrorEnvelope)))]
async fn delete_forge_token(
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
                let connection = ops.set_forge_token(tx, &auth, &ws, None).await?;
                Ok(Answer::ok(connection))
            })
        })
        .await
}

/// List the forge's deliveries
///
/// The last 50 verified deliveries (and any of the last 24 h), newest first, with what each
/// triggered. Unverified requests are not recorded (they are counted in `/metrics`,
/// `content_pipeline_forge_deliveries_total{outcome="unverified"}`). One page: `next_cursor`
/// is always null. Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{id}/forge-deliveries", tag = "Forges",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = Page<ForgeDelivery>), (status = 404, body = ErrorEnvelope)))]
async fn list_forge_deliveries(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<Page<ForgeDelivery>>> {
    let ws = state.ops.load(&auth, id, Scope::Admin).await?;
    let data = state.ops.forge_deliveries(&auth, &ws).await?;
    Ok(axum::Json(Page {
        data,
        next_cursor: None,
    }))
}

/// List the pull requests' checks
///
/// The last 50 drift checks of pull requests, newest first: the commit status each shows,
/// what the forge last accepted, and why the last post failed. One page: `next_cursor` is
/// always null. Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{id}/pull-request-checks", tag = "Forges",
    params(("id" = String, Path)), security(("bearer" = ["admin"])),
    responses((status = 200, body = Page<PullRequestCheck>), (status = 404, body = ErrorEnvelope)))]
async fn list_pull_request_checks(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WorkspaceRecord>,
) -> ApiResult<axum::Json<Page<PullRequestCheck>>> {
    let ws = state.ops.load(&auth, id, Scope::Admin).await?;
    let data = state.ops.pull_request_checks(&auth, &ws).await?;
    Ok(axum::Json(Page {
        data,
        next_cursor: None,
    }))
}
