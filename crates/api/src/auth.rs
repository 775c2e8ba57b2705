//! Bearer tokens (RFC 6750; their format is `operations::tokens`), and the one extractor every
//! handler uses to learn who is calling: the [`Caller`] the use cases check tenancy and scope
//! against.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::header::{AUTHORIZATION, WWW_AUTHENTICATE};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use operations::Caller;
use operations::tokens::{expired, hash_token, well_formed};
use subtle::ConstantTimeEq;

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

fn unauthenticated(token_sent: bool, message: &str) -> ApiError {
    let challenge = if token_sent {
        "Bearer error=\"invalid_token\""
    } else {
        "Bearer"
    };
    ApiError::new(ErrorType::Unauthenticated, message).with_header(WWW_AUTHENTICATE, challenge)
}

/// Middleware on every `/v1` route: authenticates the bearer token, applies its rate limit,
/// and stamps the rate-limit headers on the response.
pub async fn authenticate(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let principal = match principal_of(&state, req.headers()).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let Some(token_id) = principal.token_id else {
        return unauthenticated(true, "The token is unknown or has been revoked.").into_response();
    };
    let decision = state.limiter.check(token_id, principal.quota).await;
    if !decision.allowed {
        let retry = decision.retry_after_secs.to_string();
        let mut response = ApiError::new(
            ErrorType::RateLimited,
            format!(
                "Rate limit of {} requests per {} seconds exceeded; retry after {retry} s.",
                principal.quota,
                crate::ratelimit::WINDOW_SECS
            ),
        )
        .with_header(axum::http::header::RETRY_AFTER, &retry)
        .into_response();
        decision.stamp(response.headers_mut());
        return response;
    }
    req.extensions_mut().insert(principal);
    let mut response = next.run(req).await;
    decision.stamp(response.headers_mut());
    response
}

async fn principal_of(
    state: &AppState,
    headers: &axum::http::HeaderMap,
) -> Result<Caller, ApiError> {
    let Some(header) = headers.get(AUTHORIZATION) else {
        return Err(unauthenticated(
            false,
            "Authentication required: send Authorization: Bearer <token>.",
        ));
    };
    let text = header
        .to_str()
        .ok()
        .and_then(|h| {
            let (scheme, rest) = h.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
        })
        .ok_or_else(|| {
            unauthenticated(true, "The Authorization header must be 'Bearer <token>'.")
        })?;
    if !well_formed(text) {
        return Err(unauthenticated(true, "The token is malformed."));
    }
    let hash = hash_token(text);
    let record = state
        .store
        .principal_by_hash(&hash)
        .await?
        .filter(|t| bool::from(t.secret_hash.ct_eq(&hash)))
        .ok_or_else(|| unauthenticated(true, "The token is unknown or has been revoked."))?;
    if let Some(at) = record
        .expires_at
        .filter(|_| expired(&record, state.clock.timestamp()))
    {
        return Err(unauthenticated(
            true,
            &format!("The token expired at {at}; create a new one."),
        ));
    }
    // Off the request's path: a note to this node's writer, at most once a minute.
    state.token_usage.used(&record);
    let quota = record
        .rate_limit
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(state.ops.default_rate_limit);
    Ok(Caller {
        token_id: Some(record.id),
        user_id: None,
        workspace: record.workspace_id,
        scope: record.scope,
        // Tokens minted before the ceiling existed, or above a ceiling lowered since, are held
        // to it as well.
        quota: match record.workspace_id {
            Some(_) => quota.min(state.ops.quotas.rate_limit),
            None => quota,
        },
    })
}

/// The authenticated caller, for handlers.
#[derive(Clone, Debug)]
pub struct Auth(pub Caller);

impl std::ops::Deref for Auth {
    type Target = Caller;
    fn deref(&self) -> &Caller {
        &self.0
    }
}

impl<S: Send + Sync> FromRequestParts<S> for Auth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Caller>()
            .cloned()
            .map(Auth)
            .ok_or_else(|| unauthenticated(false, "Authentication required."))
    }
}
