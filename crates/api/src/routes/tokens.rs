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
use crate::state::{AppState, WorkspaceQuotas};

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
    /// Requests per 300 s, at least 1, never above the quota of the workspace token creating
    /// it nor above the ceiling the platform sets for workspace tokens (6000 by default):
    /// 422 with `param: "rate_limit"` otherwise. Default: the server's default quota (600),
    /// or the creating token's own quota when that is lower.
    #[schema(minimum = 1)]
    pub rate_limit: Option<i64>,
}

/// Mints a token; the callers below decide which bounds apply.
async fn mint(
    tx: &mut Tx,
    now: domain::Timestamp,
    workspace: Option<WorkspaceId>,
    name: &str,
    scope: Scope,
    rate_limit: Option<i64>,
) -> ApiResult<(TokenRecord, String)> {
    if rate_limit.is_some_and(|n| n < 1) {
        return Err(ApiError::validation(
            "rate_limit",
            "rate_limit must be at least 1.",
        ));
    }
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

/// Mints a platform admin token and returns its record with the secret text (shown once).
/// Only the operator does this, from the CLI or at first start: no quota applies.
pub async fn issue_platform(
    tx: &mut Tx,
    now: domain::Timestamp,
    name: &str,
    rate_limit: Option<i64>,
) -> ApiResult<(TokenRecord, String)> {
    mint(tx, now, None, name, Scope::Admin, rate_limit).await
}

/// Mints a workspace token within the platform's quotas: a `rate_limit` no higher than the
/// ceiling, and room in the workspace for one more live token (409 otherwise). Shared by the
/// API, which also holds the new token under its creator's quota, and the CLI.
pub async fn issue_in_workspace(
    tx: &mut Tx,
    now: domain::Timestamp,
    quotas: &WorkspaceQuotas,
    workspace: WorkspaceId,
    name: &str,
    scope: Scope,
    rate_limit: Option<i64>,
) -> ApiResult<(TokenRecord, String)> {
    let ceiling = i64::from(quotas.rate_limit);
    if rate_limit.is_some_and(|n| n > ceiling) {
        return Err(ApiError::validation(
            "rate_limit",
            format!(
                "rate_limit must not exceed {ceiling}, the ceiling the platform sets for workspace tokens."
            ),
        ));
    }
    let live = tx.live_tokens(workspace).await?;
    if live >= i64::from(quotas.tokens) {
        return Err(ApiError::conflict(format!(
            "The workspace already has {live} active tokens, its quota of {}; revoke one before creating another.",
            quotas.tokens
        )));
    }
    mint(tx, now, Some(workspace), name, scope, rate_limit).await
}

/// A workspace token never hands out more than its own quota; a platform token answers to the
/// ceiling only. Without `rate_limit` the new token gets the default quota, or the creator's
/// own when that is lower.
fn within_creator_quota(
    auth: &Auth,
    requested: Option<i64>,
    default: u32,
) -> ApiResult<Option<i64>> {
    if auth.0.workspace.is_none() {
        return Ok(requested);
    }
    let own = i64::from(auth.0.quota);
    match requested {
        Some(n) if n > own => Err(ApiError::validation(
            "rate_limit",
            format!(
                "rate_limit must not exceed {own}, the quota of the token making this request."
            ),
        )),
        None if i64::from(default) > own => Ok(Some(own)),
        other => Ok(other),
    }
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
/// cannot mint a scope above its own, nor a `rate_limit` above its own quota or the platform's
/// ceiling (422, `param: "rate_limit"`). A workspace holds at most 100 live tokens unless the
/// platform configures otherwise: past that, 409 `conflict` until one is revoked. Scope: admin.
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
    let rate_limit = within_creator_quota(&auth, req.rate_limit, state.default_rate_limit)?;
    let mut tx = state.store.begin().await?;
    let (record, secret) = issue_in_workspace(
        &mut tx,
        state.clock.timestamp(),
        &state.quotas,
        ws.id,
        &name,
        req.scope,
        rate_limit,
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
