//! The outermost middleware: every request runs in its own context (our request id, answered
//! in `Request-Id` and `X-Request-Id`; the shared `http_envelope` layer), and every error the
//! framework produced by itself (405, 413, a timeout, a panic) is put into the same envelope as
//! the errors our handlers return.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::{ApiError, ErrorType, RenderedError};
use crate::state::AppState;

pub async fn envelope(State(state): State<AppState>, req: Request, next: Next) -> Response {
    http_envelope::in_request_context(state.base_url.clone(), req, next, |response| {
        let status = response.status();
        if (status.is_client_error() || status.is_server_error())
            && response.extensions().get::<RenderedError>().is_none()
        {
            render_framework_error(response)
        } else {
            response
        }
    })
    .await
}

fn render_framework_error(original: Response) -> Response {
    let status = original.status();
    let error = match status {
        StatusCode::NOT_FOUND => ApiError::new(ErrorType::NotFound, "No such route."),
        StatusCode::METHOD_NOT_ALLOWED => ApiError::new(
            ErrorType::MethodNotAllowed,
            "This path does not accept this HTTP method; see the Allow header.",
        ),
        StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            ErrorType::PayloadTooLarge,
            "The request body exceeds the 1 MiB limit.",
        ),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::new(
            ErrorType::UnsupportedMediaType,
            "Send the body as application/json.",
        ),
        StatusCode::REQUEST_TIMEOUT
        | StatusCode::SERVICE_UNAVAILABLE
        | StatusCode::GATEWAY_TIMEOUT => ApiError::new(
            ErrorType::ServiceUnavailable,
            "The request did not complete in time; retry with backoff.",
        ),
        s if s.is_server_error() => ApiError::internal(format!("framework answered {s}")),
        _ => ApiError::new(ErrorType::InvalidRequest, "The request is malformed."),
    };
    let allow = original.headers().get(header::ALLOW).cloned();
    let mut response = error.into_response();
    if let Some(allow) = allow {
        response.headers_mut().insert(header::ALLOW, allow);
    }
    response
}
