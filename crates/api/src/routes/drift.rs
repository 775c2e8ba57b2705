use std::time::Duration;

use api_types::DriftCheckOptions;
use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use operations::drift::DriftCheck;
use store::{DriftCheckRecord, WorkspaceRecord};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(drift_check))
        .routes(routes!(get_drift_check))
}

/// How long a request for a check waits for it before answering 202.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);

/// Check a workspace for drift
///
/// Queues a check that compares every article's provenance (source commit, blob hashes, symbol
/// token hashes) with the repository's current HEAD and records `drift.detected` once per
/// (article, HEAD commit); a symbol that moved without changing is not drift. The check runs
/// in a worker's sandboxed process, never inside the request. When it finishes within a few
/// seconds the answer is 200 with the report; otherwise 202 with `Location` (and `check_url`)
/// to poll. Asking while a check of the workspace is still queued joins it. The body is
/// optional; its `ref` checks the code at a branch, tag, pull/merge request head or commit
/// instead of the default branch (a remote is fetched first). Scope: write.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/drift-check", tag = "Articles",
    params(("ws" = String, Path)),
    request_body(content = Option<DriftCheckOptions>), security(("bearer" = ["write"])),
    responses((status = 200, body = DriftCheck), (status = 202, body = DriftCheck),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn drift_check(
    State(state): State<AppState>,
    auth: Auth,
    Id(ws): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = state.ops.active_workspace(&auth, ws, Scope::Write).await?;
    let options: DriftCheckOptions = body.parse_optional()?;
    let ops = state.ops.clone();
    let queued = state
        .store
        .write(move |tx| {
            Box::pin(async move {
                ops.queue_drift_check(tx, &ws, options.git_ref.as_deref())
                    .await
                    .map_err(ApiError::from)
            })
        })
        .await?;
    // The answer (200 or 202) is stored for the Idempotency-Key by the idempotency layer.
    let check = state.ops.await_drift_check(queued, ANSWER_WITHIN).await?;
    if check.status.is_finished() {
        return Ok((StatusCode::OK, axum::Json(&check)).into_response());
    }
    let mut response = (StatusCode::ACCEPTED, axum::Json(&check)).into_response();
    if let Ok(location) = HeaderValue::from_str(&check.check_url) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// Get a drift check
///
/// The check and, once it has succeeded, its report. Scope: read.
#[utoipa::path(get, path = "/v1/drift-checks/{id}", tag = "Articles",
    params(("id" = String, Path)), security(("bearer" = ["read"])),
    responses((status = 200, body = DriftCheck), (status = 404, body = ErrorEnvelope)))]
async fn get_drift_check(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<DriftCheckRecord>,
) -> ApiResult<axum::Json<DriftCheck>> {
    let check = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(operations::drift::drift_check_view(
        &state.base_url,
        check,
    )?))
}
