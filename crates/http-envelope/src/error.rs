//! The one error type of the API and its envelope:
//! `{"error":{"type","message","request_id","docs","param"?}}` (Stripe's error object).

pub use api_types::{ErrorEnvelope, ErrorObject, ErrorType};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::context::RequestContext;

#[derive(Debug)]
pub struct ApiError {
    pub kind: ErrorType,
    pub message: String,
    pub param: Option<String>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
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

    /// The database had no connection to give (down, restarting, every slot taken): 503
    /// with `Retry-After`, the cause logged, nothing of it answered.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "database unavailable");
        Self::new(
            ErrorType::ServiceUnavailable,
            "The service cannot reach its database right now; retry in a moment.",
        )
        .with_header(header::RETRY_AFTER, "1")
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
/// `WWW-Authenticate` (RFC 6750), as a 401 challenges for a bearer token; a throttled request
/// says when to retry in `Retry-After`; an internal error is logged and answered with nothing
/// of it.
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
            ErrorKind::Unauthenticated => {
                return ApiError::new(ErrorType::Unauthenticated, e.message)
                    .with_header(header::WWW_AUTHENTICATE, "Bearer");
            }
            ErrorKind::Throttled { retry_after_secs } => {
                return ApiError::new(ErrorType::RateLimited, e.message)
                    .with_header(header::RETRY_AFTER, &retry_after_secs.max(1).to_string());
            }
            ErrorKind::Unavailable => return ApiError::unavailable(e.message),
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
        match e {
            // The request stalled past its claim: another one with the same key runs it now,
            // and this one's work rolled back. Its retry gets that one's answer.
            store::StoreError::ClaimLost => ApiError::new(
                ErrorType::IdempotencyInProgress,
                "A request with this Idempotency-Key is still in progress.",
            )
            .with_header(header::RETRY_AFTER, "1"),
            e if e.is_unavailable() => ApiError::unavailable(e),
            e => ApiError::internal(e),
        }
    }
}

/// The answer when an error envelope cannot be serialised.
const UNSERIALISABLE: &[u8] =
    br#"{"error":{"type":"internal_error","message":"An internal error occurred."}}"#;

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, body) = match serde_json::to_vec(&self.envelope()) {
            Ok(body) => (
                StatusCode::from_u16(self.kind.status_code())
                    .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
                body,
            ),
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
