use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::{Scope, TokenId, WorkspaceId};
use serde::Deserialize;
use store::{TokenRecord, Tx};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ensure_active, parse_id, workspace_for};
use crate::auth::{Auth, generate_token, hash_token};
use crate::body::{EmptyBody, JsonBody, bounded};
use crate::error::{ApiError, ApiResult, ErrorEnvelope, ErrorType};
use crate::idempotency::Idempotency;
use crate::paging::{ListQuery, Page, PageParams, keyset_position};
use crate::resources::Token;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_tokens, create_token))
        .routes(routes!(reissue_token))
        .routes(routes!(revoke_token))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateToken {
    /// read, write, publish or admin; never above the caller's own scope.
    pub scope: Scope,
    /// A label, at most 200 characters.
    pub name: Option<String>,
    /// Requests per 300 s (default 600).
    #[schema(minimum = 1, maximum = 1000000)]
    pub rate_limit: Option<i64>,
}

/// Mints a token and returns its record with the secret text (shown once). Shared by the API
/// and the CLI.
pub async fn issue(
    tx: &mut Tx,
    now: domain::Timestamp,
    workspace: Option<WorkspaceId>,
    name: &str,
    scope: Scope,
    rate_limit: Option<i64>,
) -> ApiResult<(TokenRecord, String)> {
    let secret = generate_token();
    let record = tx
        .insert_token(
            workspace,
            name,
            scope,
            &hash_token(&secret),
            rate_limit,
            now,
        )
        .await?;
    Ok((record, secret))
}

async fn load(state: &AppState, auth: &Auth, raw: &str) -> ApiResult<TokenRecord> {
    let id: TokenId = parse_id(raw, "token")?;
    let token = state
        .store
        .token(id)
        .await?
        .ok_or_else(|| ApiError::not_found("token", raw))?;
    match token.workspace_id {
        Some(ws) => auth.check(ws, Scope::Admin, "token", raw)?,
        // Platform tokens are managed by the platform only.
        None => {
            if auth.0.workspace.is_some() {
                return Err(ApiError::not_found("token", raw));
            }
        }
    }
    Ok(token)
}

/// List a workspace's tokens
///
/// Revoked tokens included. Secrets are never listed. Scope: admin.
#[utoipa::path(get, path = "/v1/workspaces/{ws}/tokens", tag = "Tokens",
    params(("ws" = String, Path), PageParams), security(("bearer" = ["admin"])),
    responses((status = 200, body = Page<Token>), (status = 400, body = ErrorEnvelope)))]
async fn list_tokens(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(ws): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Token>>> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Admin).await?;
    let list = format!("tokens:{}", ws.id);
    let page = state.cursors.keyset(&list, &q)?;
    let rows = state.store.tokens(ws.id, &page).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        |r| Token::new(r, None),
    )))
}

/// Create a token
///
/// Returns the token with its secret in `token`, shown only here and on reissue. A token
/// cannot mint a scope above its own. Scope: admin.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/tokens", tag = "Tokens",
    params(("ws" = String, Path)),
    request_body = CreateToken, security(("bearer" = ["admin"])),
    responses((status = 201, body = Token), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn create_token(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    UrlPath(ws): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Admin).await?;
    ensure_active(&ws)?;
    let req: CreateToken = body.parse()?;
    if !auth.0.scope.includes(req.scope) {
        return Err(ApiError::new(
            ErrorType::InsufficientScope,
            "A token cannot mint a scope above its own.",
        ));
    }
    let name = req.name.unwrap_or_default();
    bounded("name", &name, 200)?;
    if req
        .rate_limit
        .is_some_and(|n| !(1..=1_000_000).contains(&n))
    {
        return Err(ApiError::validation(
            "rate_limit",
            "rate_limit must be between 1 and 1000000.",
        ));
    }
    let mut tx = state.store.begin().await?;
    let (record, secret) = issue(
        &mut tx,
        state.clock.timestamp(),
        Some(ws.id),
        &name,
        req.scope,
        req.rate_limit,
    )
    .await?;
    let response = idem
        .respond(
            &mut tx,
            StatusCode::CREATED,
            None,
            &Token::new(record, Some(secret)),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
}

/// Reissue a token
///
/// Gives the token a new secret; the old secret stops working at once. Scope: admin.
#[utoipa::path(post, path = "/v1/tokens/{id}/reissue", tag = "Tokens",
    params(("id" = String, Path)),
    security(("bearer" = ["admin"])),
    responses((status = 200, body = Token), (status = 409, body = ErrorEnvelope)))]
async fn reissue_token(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let token = load(&state, &auth, &id).await?;
    if let Some(ws) = token.workspace_id {
        super::active_workspace(&state, &auth, ws, Scope::Admin, "token", &id).await?;
    }
    let _: EmptyBody = body.parse_optional()?;
    if token.revoked_at.is_some() {
        return Err(ApiError::conflict(
            "The token is revoked; create a new one.",
        ));
    }
    let secret = generate_token();
    let mut tx = state.store.begin().await?;
    let record = tx
        .reissue_token(token.id, &hash_token(&secret))
        .await?
        .ok_or_else(|| ApiError::conflict("The token is revoked; create a new one."))?;
    let response = idem
        .respond(
            &mut tx,
            StatusCode::OK,
            None,
            &Token::new(record, Some(secret)),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
}

/// Revoke a token
///
/// The token stops working at once. Revoking again returns the same token. Allowed in a
/// deleted workspace too. Scope: admin.
#[utoipa::path(delete, path = "/v1/tokens/{id}", tag = "Tokens", params(("id" = String, Path)),
    security(("bearer" = ["admin"])), responses((status = 200, body = Token)))]
async fn revoke_token(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Token>> {
    let token = load(&state, &auth, &id).await?;
    let mut tx = state.store.begin().await?;
    let record = tx
        .revoke_token(token.id, state.clock.timestamp())
        .await?
        .ok_or_else(|| ApiError::not_found("token", &id))?;
    tx.commit().await?;
    Ok(axum::Json(Token::new(record, None)))
}
