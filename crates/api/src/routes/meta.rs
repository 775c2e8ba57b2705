//! Everything outside `/v1`: health, metrics, the OpenAPI document, the readable reference
//! and the error catalogue. None of it needs a token. Published articles (`/published/…`) are
//! the portal's published site (`portal::site`), documented in the OpenAPI document here.

use axum::extract::State;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

pub fn router(openapi: serde_json::Value, docs_html: String) -> Router<AppState> {
    // Serialised once: the document never changes while the process runs.
    let openapi_bytes = (
        [(header::CONTENT_TYPE, "application/json")],
        axum::body::Bytes::from(openapi.to_string()),
    );
    Router::new()
        .route(
            "/healthz",
            get(|| async { Json(serde_json::json!({"status": "ok"})) }),
        )
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .route(
            "/openapi.json",
            get(move || async move { openapi_bytes.clone() }),
        )
        .route(
            "/docs",
            get(move || async move {
                (
                    [
                        (header::CONTENT_SECURITY_POLICY, crate::openapi::DOCS_CSP),
                        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                    ],
                    Html(docs_html),
                )
            }),
        )
        .route(
            crate::openapi::RAPIDOC_PATH,
            get(|| async {
                (
                    [
                        (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
                        (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
                        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
                    ],
                    crate::openapi::RAPIDOC,
                )
            }),
        )
        .route("/docs/errors", get(errors_page))
}

async fn readyz(State(state): State<AppState>) -> Response {
    if state.store.ping().await {
        Json(serde_json::json!({"status": "ready"})).into_response()
    } else {
        ApiError::new(
            ErrorType::ServiceUnavailable,
            "The database is not reachable.",
        )
        .into_response()
    }
}

async fn metrics() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        crate::telemetry::render(),
    )
        .into_response()
}

async fn errors_page() -> Html<String> {
    let rows: String = ErrorType::ALL
        .iter()
        .map(|t| {
            format!(
                "<section id=\"{id}\"><h2><code>{id}</code> — HTTP {status}</h2><p>{text}</p></section>\n",
                id = t.as_str(),
                status = t.status_code(),
                text = t.explanation()
            )
        })
        .collect();
    Html(format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Errors — Content Pipeline API</title></head>\
         <body><h1>Errors</h1><p>Every error body is <code>{{\"error\":{{\"type\",\"message\",\"request_id\",\"docs\",\"param\"?}}}}</code>; \
         <code>request_id</code> equals the <code>Request-Id</code> header.</p>\n{rows}</body></html>"
    ))
}
