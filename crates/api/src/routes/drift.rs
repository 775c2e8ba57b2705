use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::Scope;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ensure_active, workspace_for};
use crate::auth::Auth;
use crate::body::{EmptyBody, JsonBody};
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::Idempotency;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(drift_check))
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

/// The result of a drift check of a workspace.
#[derive(Serialize, ToSchema)]
pub struct DriftCheck {
    /// The repository's HEAD the articles were compared with.
    pub head_commit: Option<String>,
    pub articles_checked: usize,
    /// Every article that has drifted, whether reported before or not.
    pub drifted: Vec<DriftReport>,
    /// `drift.detected` events recorded by this check (each (article, HEAD) is reported once).
    pub events_recorded: usize,
}

impl From<workers::drift::DriftSummary> for DriftCheck {
    fn from(s: workers::drift::DriftSummary) -> Self {
        Self {
            head_commit: s.head_commit,
            articles_checked: s.articles_checked,
            events_recorded: s.events_recorded,
            drifted: s
                .drifted
                .into_iter()
                .map(|r| DriftReport {
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
                })
                .collect(),
        }
    }
}

/// Check a workspace for drift
///
/// Compares every article's provenance (source commit, blob hashes, symbol token hashes) with
/// the repository's current HEAD and records `drift.detected` once per (article, HEAD commit).
/// A symbol that moved without changing is not drift. The body is optional. Scope: write.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/drift-check", tag = "Articles",
    params(("ws" = String, Path)),
    request_body(content = Option<EmptyBody>), security(("bearer" = ["write"])),
    responses((status = 200, body = DriftCheck), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn drift_check(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    UrlPath(ws): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Write).await?;
    ensure_active(&ws)?;
    let _: EmptyBody = body.parse_optional()?;
    let Some(repo) = ws.repo_path.as_deref() else {
        return Err(ApiError::validation(
            "repo_path",
            "The workspace has no repo_path.",
        ));
    };
    let summary = workers::drift::check_workspace(
        &state.store,
        &state.clock,
        ws.id,
        std::path::Path::new(repo),
    )
    .await
    .map_err(|e| match e {
        workers::drift::DriftError::Repository(m) => ApiError::validation(
            "repo_path",
            format!("The repository could not be read: {m}"),
        ),
        workers::drift::DriftError::Store(e) => ApiError::from(e),
    })?;
    let mut tx = state.store.begin().await?;
    let response = idem
        .respond(&mut tx, StatusCode::OK, None, &DriftCheck::from(summary))
        .await?;
    tx.commit().await?;
    Ok(response)
}
