use std::time::Duration;

use axum::extract::{Path as UrlPath, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use domain::{DriftCheckId, RunStatus, Scope, Timestamp, WorkspaceId};
use serde::Serialize;
use store::DriftCheckRecord;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ensure_active, parse_id, workspace_for};
use crate::auth::Auth;
use crate::body::{EmptyBody, JsonBody};
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(drift_check))
        .routes(routes!(get_drift_check))
}

/// One changed source of an article.
#[derive(Serialize, ToSchema)]
pub struct DriftChange {
    pub path: String,
    /// modified, deleted or renamed
    pub kind: String,
    /// Documented symbols affected.
    pub symbols: Vec<String>,
    /// Where a renamed file is now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
}

/// An article whose sources changed since its current version (the `data` of `drift.detected`).
#[derive(Serialize, ToSchema)]
pub struct DriftReport {
    pub article_id: String,
    pub feature_id: String,
    pub surface: String,
    pub article_commit: String,
    pub current_commit: String,
    pub changes: Vec<DriftChange>,
}

/// A drift check of a workspace. Asking for one queues it (or joins the one already queued
/// for the workspace); a worker does it in a sandboxed process. Until it has finished,
/// `status` is `queued` or `running` and the report fields are empty.
#[derive(Serialize, ToSchema)]
pub struct DriftCheck {
    pub id: DriftCheckId,
    pub workspace_id: WorkspaceId,
    /// queued → running → succeeded | failed
    pub status: RunStatus,
    pub created_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    /// `<base>/v1/drift-checks/{id}`
    pub check_url: String,
    /// Why the check failed; present only when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The repository's HEAD the articles were compared with.
    pub head_commit: Option<String>,
    pub articles_checked: usize,
    /// Every article that has drifted, whether reported before or not.
    pub drifted: Vec<DriftReport>,
    /// `drift.detected` events recorded by this check (each (article, HEAD) is reported once).
    pub events_recorded: usize,
}

/// How long a request for a check waits for it before answering 202.
const ANSWER_WITHIN: Duration = Duration::from_secs(5);
const POLL: Duration = Duration::from_millis(25);

impl DriftCheck {
    fn new(state: &AppState, r: DriftCheckRecord) -> Self {
        let summary = r
            .result
            .and_then(|j| serde_json::from_value::<workers::drift::DriftSummary>(j.0).ok());
        let (head_commit, articles_checked, events_recorded, drifted) = match summary {
            Some(s) => (
                s.head_commit,
                s.articles_checked,
                s.events_recorded,
                s.drifted.into_iter().map(DriftReport::from).collect(),
            ),
            None => (None, 0, 0, Vec::new()),
        };
        Self {
            check_url: state.url(&format!("/v1/drift-checks/{}", r.id)),
            id: r.id,
            workspace_id: r.workspace_id,
            status: r.status,
            created_at: r.created_at,
            finished_at: r.finished_at,
            error: r.error,
            head_commit,
            articles_checked,
            drifted,
            events_recorded,
        }
    }
}

impl From<workers::drift::DriftReport> for DriftReport {
    fn from(r: workers::drift::DriftReport) -> Self {
        Self {
            article_id: r.article_id,
            feature_id: r.feature_id,
            surface: r.surface,
            article_commit: r.article_commit,
            current_commit: r.current_commit,
            changes: r
                .changes
                .into_iter()
                .map(|c| DriftChange {
                    path: c.path,
                    kind: c.kind.as_str().to_owned(),
                    symbols: c.symbols,
                    new_path: c.new_path,
                })
                .collect(),
        }
    }
}

/// Check a workspace for drift
///
/// Queues a check that compares every article's provenance (source commit, blob hashes, symbol
/// token hashes) with the repository's current HEAD and records `drift.detected` once per
/// (article, HEAD commit); a symbol that moved without changing is not drift. The check runs
/// in a worker's sandboxed process, never inside the request. When it finishes within a few
/// seconds the answer is 200 with the report; otherwise 202 with `Location` (and `check_url`)
/// to poll. Asking while a check of the workspace is still queued joins it. The body is
/// optional. Scope: write.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/drift-check", tag = "Articles",
    params(("ws" = String, Path)),
    request_body(content = Option<EmptyBody>), security(("bearer" = ["write"])),
    responses((status = 200, body = DriftCheck), (status = 202, body = DriftCheck),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn drift_check(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(ws): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Write).await?;
    ensure_active(&ws)?;
    let _: EmptyBody = body.parse_optional()?;
    if ws.repo_path.is_none() {
        return Err(ApiError::validation(
            "repo_path",
            "The workspace has no repo_path.",
        ));
    }
    let mut tx = state.store.begin().await?;
    let mut check = tx.queue_drift_check(ws.id, state.clock.timestamp()).await?;
    tx.commit().await?;
    // The answer (200 or 202) is stored for the Idempotency-Key by the idempotency layer.
    let deadline = tokio::time::Instant::now() + ANSWER_WITHIN;
    while !matches!(check.status, RunStatus::Succeeded | RunStatus::Failed)
        && tokio::time::Instant::now() < deadline
    {
        tokio::time::sleep(POLL).await;
        if let Some(now) = state.store.drift_check(check.id).await? {
            check = now;
        }
    }
    let done = matches!(check.status, RunStatus::Succeeded | RunStatus::Failed);
    let body = DriftCheck::new(&state, check);
    let mut response = if done {
        (StatusCode::OK, axum::Json(&body)).into_response()
    } else {
        (StatusCode::ACCEPTED, axum::Json(&body)).into_response()
    };
    if !done && let Ok(location) = HeaderValue::from_str(&body.check_url) {
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
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<DriftCheck>> {
    let check_id: DriftCheckId = parse_id(&id, "drift check")?;
    let check = state
        .store
        .drift_check(check_id)
        .await?
        .ok_or_else(|| ApiError::not_found("drift check", &id))?;
    auth.check(check.workspace_id, Scope::Read, "drift check", &id)?;
    Ok(axum::Json(DriftCheck::new(&state, check)))
}
