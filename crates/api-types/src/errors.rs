//! The error envelope of every non-2xx answer (Stripe's error object):
//! `{"error":{"type","message","request_id","docs","param"?}}`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Every `error.type` the API returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    InvalidRequest,
    Unauthenticated,
    InsufficientScope,
    NotFound,
    MethodNotAllowed,
    Conflict,
    IdempotencyInProgress,
    PayloadTooLarge,
    UnsupportedMediaType,
    ValidationFailed,
    IdempotencyKeyReused,
    RateLimited,
    InternalError,
    ServiceUnavailable,
}

impl ErrorType {
    pub const ALL: [ErrorType; 14] = [
        ErrorType::InvalidRequest,
        ErrorType::Unauthenticated,
        ErrorType::InsufficientScope,
        ErrorType::NotFound,
        ErrorType::MethodNotAllowed,
        ErrorType::Conflict,
        ErrorType::IdempotencyInProgress,
        ErrorType::PayloadTooLarge,
        ErrorType::UnsupportedMediaType,
        ErrorType::ValidationFailed,
        ErrorType::IdempotencyKeyReused,
        ErrorType::RateLimited,
        ErrorType::InternalError,
        ErrorType::ServiceUnavailable,
    ];

    /// The HTTP status that answers with this type.
    pub fn status_code(self) -> u16 {
        match self {
            ErrorType::InvalidRequest => 400,
            ErrorType::Unauthenticated => 401,
            ErrorType::InsufficientScope => 403,
            ErrorType::NotFound => 404,
            ErrorType::MethodNotAllowed => 405,
            ErrorType::Conflict | ErrorType::IdempotencyInProgress => 409,
            ErrorType::PayloadTooLarge => 413,
            ErrorType::UnsupportedMediaType => 415,
            ErrorType::ValidationFailed | ErrorType::IdempotencyKeyReused => 422,
            ErrorType::RateLimited => 429,
            ErrorType::InternalError => 500,
            ErrorType::ServiceUnavailable => 503,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorType::InvalidRequest => "invalid_request",
            ErrorType::Unauthenticated => "unauthenticated",
            ErrorType::InsufficientScope => "insufficient_scope",
            ErrorType::NotFound => "not_found",
            ErrorType::MethodNotAllowed => "method_not_allowed",
            ErrorType::Conflict => "conflict",
            ErrorType::IdempotencyInProgress => "idempotency_in_progress",
            ErrorType::PayloadTooLarge => "payload_too_large",
            ErrorType::UnsupportedMediaType => "unsupported_media_type",
            ErrorType::ValidationFailed => "validation_failed",
            ErrorType::IdempotencyKeyReused => "idempotency_key_reused",
            ErrorType::RateLimited => "rate_limited",
            ErrorType::InternalError => "internal_error",
            ErrorType::ServiceUnavailable => "service_unavailable",
        }
    }

    /// What the `/docs/errors` page says of each type.
    pub fn explanation(self) -> &'static str {
        match self {
            ErrorType::InvalidRequest => {
                "A query parameter, cursor or header is malformed (for example `limit=abc`, a forged cursor, or an empty or over-long Idempotency-Key). Fix the request; retrying it unchanged fails again."
            }
            ErrorType::Unauthenticated => {
                "The bearer token is missing, malformed, unknown or revoked. Send `Authorization: Bearer cpt_…` with a live token."
            }
            ErrorType::InsufficientScope => {
                "The token is valid but its scope is below what the operation needs (read < write < publish < admin), or a workspace token called a platform-only operation. `WWW-Authenticate` names the scope needed."
            }
            ErrorType::NotFound => {
                "No such resource, route, or the resource belongs to another workspace (the two are indistinguishable by design)."
            }
            ErrorType::MethodNotAllowed => "The path exists but does not accept this HTTP method.",
            ErrorType::Conflict => {
                "The request conflicts with the resource's state: a write to a deleted workspace, a second active webhook with the same URL, a replay on an inactive subscription, or a new token or webhook subscription in a workspace that already holds its quota of them (revoke or delete one first)."
            }
            ErrorType::IdempotencyInProgress => {
                "A request with the same Idempotency-Key is still being processed. Retry after the `Retry-After` seconds."
            }
            ErrorType::PayloadTooLarge => "The request body exceeds 1 MiB.",
            ErrorType::UnsupportedMediaType => "The request body is not `application/json`.",
            ErrorType::ValidationFailed => {
                "The JSON body was rejected: bad syntax, wrong type, missing required field, unknown field or value out of range. `param` names the field."
            }
            ErrorType::IdempotencyKeyReused => {
                "The Idempotency-Key was already used with a different request (method, path or body). Use a new key for a new request."
            }
            ErrorType::RateLimited => {
                "The token exceeded its request quota (600 per 300 s by default). Wait `Retry-After` seconds."
            }
            ErrorType::InternalError => {
                "Something failed on our side. The request id identifies it in our logs; retrying is safe with an Idempotency-Key."
            }
            ErrorType::ServiceUnavailable => {
                "The request did not finish in time or a dependency is down. Retry with backoff."
            }
        }
    }
}

/// The error envelope as documented in OpenAPI.
#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorObject,
}

#[derive(Clone, Debug, Serialize, Deserialize, ToSchema)]
pub struct ErrorObject {
    #[serde(rename = "type")]
    pub kind: ErrorType,
    pub message: String,
    /// Equal to the `Request-Id` response header.
    pub request_id: String,
    /// `<base_url>/docs/errors#<type>`
    pub docs: String,
    /// The offending field or parameter, when one is to blame.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
}
