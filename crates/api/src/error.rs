//! The one error type of the API and its envelope:
//! `{"error":{"type","message","request_id","docs","param"?}}` (Stripe's error object).

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

use crate::context::RequestContext;

/// Every `error.type` the API returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
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

    pub fn status(self) -> StatusCode {
        match self {
            ErrorType::InvalidRequest => StatusCode::BAD_REQUEST,
            ErrorType::Unauthenticated => StatusCode::UNAUTHORIZED,
            ErrorType::InsufficientScope => StatusCode::FORBIDDEN,
            ErrorType::NotFound => StatusCode::NOT_FOUND,
            ErrorType::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorType::Conflict | ErrorType::IdempotencyInProgress => StatusCode::CONFLICT,
            ErrorType::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorType::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorType::ValidationFailed | ErrorType::IdempotencyKeyReused => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            ErrorType::RateLimited => StatusCode::TOO_MANY_REQUESTS,
            ErrorType::InternalError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorType::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
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

#[derive(Debug)]
pub struct ApiError {
    pub kind: ErrorType,
    pub message: String,
    pub param: Option<String>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

/// The error envelope as documented in OpenAPI.
#[derive(Serialize, ToSchema)]
pub struct ErrorEnvelope {
    pub error: ErrorObject,
}

#[derive(Serialize, ToSchema)]
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

impl ApiError {
    pub fn new(kind: ErrorType, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            param: None,
            headers: Vec::new(),
        }
    }

    pub fn with_param(mut self, param: impl Into<String>) -> Self {
        self.param = Some(param.into());
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        if let Ok(v) = HeaderValue::from_str(value) {
            self.headers.push((name, v));
        }
        self
    }

    /// The same message as the use cases' (`operations::Error::not_found`).
    pub fn not_found(what: &str, id: &str) -> Self {
        operations::Error::not_found(what, id).into()
    }

    pub fn validation(param: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorType::ValidationFailed, message).with_param(param)
    }

    pub fn invalid_request(param: &str, message: impl Into<String>) -> Self {
        Self::new(ErrorType::InvalidRequest, message).with_param(param)
    }

    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorType::Conflict, message)
    }

    /// Logs the cause with the request id and answers with nothing of it.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        let request_id = RequestContext::current()
            .map(|c| c.request_id.to_string())
            .unwrap_or_default();
        tracing::error!(%request_id, error = %cause, "internal error");
        Self::new(
            ErrorType::InternalError,
            "An internal error occurred. Quote the request id when you contact support.",
        )
    }

    pub fn envelope(&self) -> ErrorEnvelope {
        let ctx = RequestContext::current();
        let (request_id, base) = ctx
            .map(|c| (c.request_id.to_string(), c.base_url.to_string()))
            .unwrap_or_default();
        ErrorEnvelope {
            error: ErrorObject {
                kind: self.kind,
                message: self.message.clone(),
                request_id,
                docs: format!("{base}/docs/errors#{}", self.kind.as_str()),
                param: self.param.clone(),
            },
        }
    }
}

/// A use case's refusal, in the envelope: an insufficient scope names the scope needed in
/// `WWW-Authenticate` (RFC 6750), an internal error is logged and answered with nothing of it.
impl From<operations::Error> for ApiError {
    fn from(e: operations::Error) -> Self {
        use operations::ErrorKind;
        let kind = match e.kind {
            ErrorKind::NotFound => ErrorType::NotFound,
            ErrorKind::InsufficientScope { challenge } => {
                let error = ApiError::new(ErrorType::InsufficientScope, e.message);
                return match challenge {
                    Some(scope) => error.with_header(
                        header::WWW_AUTHENTICATE,
                        &format!("Bearer error=\"insufficient_scope\", scope=\"{scope}\""),
                    ),
                    None => error,
                };
            }
            ErrorKind::Conflict => ErrorType::Conflict,
            ErrorKind::Validation => ErrorType::ValidationFailed,
            ErrorKind::Internal => return ApiError::internal(e.message),
        };
        let error = ApiError::new(kind, e.message);
        match e.param {
            Some(param) => error.with_param(param),
            None => error,
        }
    }
}

impl From<store::StoreError> for ApiError {
    fn from(e: store::StoreError) -> Self {
        ApiError::internal(e)
    }
}

/// The answer when an error envelope cannot be serialised.
const UNSERIALISABLE: &[u8] =
    br#"{"error":{"type":"internal_error","message":"An internal error occurred."}}"#;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = match serde_json::to_vec(&self.envelope()) {
            Ok(body) => (self.kind.status(), body),
            // Not reachable with the envelope's plain fields; an empty body would be worse.
            Err(e) => {
                tracing::error!(error = %e, "could not serialise an error envelope");
                (StatusCode::INTERNAL_SERVER_ERROR, UNSERIALISABLE.to_vec())
            }
        };
        let mut response = (status, body).into_response();
        let headers = response.headers_mut();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        for (name, value) in self.headers {
            headers.append(name, value);
        }
        response.extensions_mut().insert(RenderedError);
        response
    }
}

/// Marks a response whose body is already the envelope.
#[derive(Clone, Copy, Debug)]
pub struct RenderedError;

pub type ApiResult<T> = Result<T, ApiError>;
