//! What every HTTP front end shares, so that the API and the portal answer alike: our request
//! id in `Request-Id` / `X-Request-Id` and in the context of everything a request does, and the
//! one error envelope `{"error":{"type","message","request_id","docs","param"?}}`, and the
//! one signed paging cursor.

pub mod context;
pub mod cursor;
pub mod error;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

pub use context::RequestContext;
pub use cursor::CursorCodec;
pub use error::{ApiError, ApiResult, ErrorEnvelope, ErrorObject, ErrorType, RenderedError};

/// Runs the request in a new [`RequestContext`] (under `base_url`, in a tracing span that
/// carries the request id), lets `finish` look at the response while still in that context,
/// and answers with the id in `Request-Id` and `X-Request-Id`.
pub async fn in_request_context(
    base_url: Arc<str>,
    req: Request,
    next: Next,
    finish: fn(Response) -> Response,
) -> Response {
    use tracing::Instrument;
    let ctx = RequestContext::new(base_url);
    let request_id = ctx.request_id.clone();
    // Work handed to other tasks (the SQLite writer) runs in this span, so whatever it logs
    // carries the request id too.
    let span = tracing::info_span!("request", request_id = %request_id);
    let mut response = ctx
        .scope(async move { finish(next.run(req).await) })
        .instrument(span)
        .await;
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert("request-id", v.clone());
        response.headers_mut().insert("x-request-id", v);
    }
    response
}

/// [`in_request_context`] as a middleware for a front end whose responses are final as they
/// are (`from_fn_with_state(base_url, http_envelope::request_context)`).
pub async fn request_context(
    State(base_url): State<Arc<str>>,
    req: Request,
    next: Next,
) -> Response {
    in_request_context(base_url, req, next, std::convert::identity).await
}
