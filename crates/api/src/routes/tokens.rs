use axum::extract::State;
use domain::Scope;
use operations::tokens::CreateToken;
use operations::views::{self, Token};
use store::{TokenRecord, WorkspaceRecord};
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
        .routes(routes!(list_tokens, create_token))
        .routes(routes!(reissue_token))
        .routes(routes!(revoke_token))
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
    Id(ws): Id<WorkspaceRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Token>>> {
    let ws: WorkspaceRecord = state.ops.load(&auth, ws, Scope::Admin).await?;
    let (ops, ws) = (&state.ops, &ws);
    state
        .cursors
        .keyset_list(
            &format!("tokens:{}", ws.id),
            &q,
            move |page| async move { ops.tokens_page(ws, &page).await },
            |r| views::token(r, None),
        )
        .await
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
    Id(ws): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, ws, Scope::Admin).await?;
    let req: CreateToken = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let minted = ops.create_token(tx, &auth, &ws, req).await?;
                Ok(Answer::with_status(
                    axum::http::StatusCode::CREATED,
                    views::token(minted.record, Some(minted.secret)),
                ))
            })
        })
        .await
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
    Id(id): Id<TokenRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let token = state.ops.token_for_change(&auth, id).await?;
    let _: EmptyBody = body.parse_optional()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let minted = ops.reissue_token(tx, &token).await?;
                Ok(Answer::ok(views::token(minted.record, Some(minted.secret))))
            })
        })
        .await
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
    idem: Idempotency,
    Id(id): Id<TokenRecord>,
) -> ApiResult<Recorded> {
    let token: TokenRecord = state.ops.load(&auth, id, Scope::Admin).await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let revoked = ops.revoke_token(tx, &token).await?;
                Ok(Answer::ok(views::token(revoked, None)))
            })
        })
        .await
}
