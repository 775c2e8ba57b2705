//! The HTTP API of the Content Pipeline Service. Handlers live in `routes/`, one module per
//! resource; the mechanisms every route shares each live in one module: `auth` (tokens and
//! the caller), `error` (the envelope), `paging`, `idempotency`, `ratelimit`, `envelope`
//! (request ids and framework errors), `openapi`. What a handler does is a use case of the
//! `operations` crate; the handler only says who may do it and what it answers.

pub mod auth;
mod body;
pub use http_envelope::context;
pub mod deprecation;
mod envelope;
pub use http_envelope::error;
pub mod idempotency;
mod live_log;
pub mod openapi;
mod paging;
pub mod ratelimit;
pub mod routes;
mod state;
mod telemetry;

use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::middleware::{from_fn, from_fn_with_state};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::limit::RequestBodyLimitLayer;
use tower_http::sensitive_headers::SetSensitiveRequestHeadersLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

pub use operations::WorkspaceQuotas;
pub use state::{ApiConfig, AppState};

fn v1() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(openapi::ApiDoc::openapi())
        .merge(routes::workspaces::router())
        .merge(routes::articles::router())
        .merge(routes::runs::router())
        .merge(routes::webhooks::router())
        .merge(routes::tokens::router())
        .merge(routes::members::router())
        .merge(routes::drift::router())
        .merge(routes::forge::router())
        .merge(routes::exports::router())
        .merge(routes::publish_targets::router())
}

/// What the API serves without bearer authentication or idempotency keys: forges' webhooks.
fn hooks() -> OpenApiRouter<AppState> {
    routes::forge::receiver()
}

/// Both routers' documents, as one.
fn document() -> (
    axum::Router<AppState>,
    axum::Router<AppState>,
    utoipa::openapi::OpenApi,
) {
    let (v1, mut doc) = v1().split_for_parts();
    let (hooks, hooks_doc) = hooks().split_for_parts();
    doc.merge(hooks_doc);
    (v1, hooks, doc)
}

/// The OpenAPI document as served at `/openapi.json`.
pub fn openapi_document() -> Result<serde_json::Value, serde_json::Error> {
    let (_, _, doc) = document();
    openapi::decorate(doc, deprecation::DEPRECATIONS)
}

/// The whole HTTP application.
pub fn app(state: AppState) -> Result<Router, serde_json::Error> {
    app_announcing(state, deprecation::DEPRECATIONS)
}

/// The application with `deprecations` in place of [`deprecation::DEPRECATIONS`]: the hook
/// through which a test shows that a listed operation is announced (see `DEPRECATIONS`).
pub fn app_announcing(
    state: AppState,
    deprecations: &'static [deprecation::Deprecation],
) -> Result<Router, serde_json::Error> {
    telemetry::install();
    let (v1, hooks, doc) = document();
    let doc = openapi::decorate(doc, deprecations)?;
    let docs_html = openapi::reference_html(&doc);
    let v1 = v1
        .route_layer(from_fn_with_state(
            (state.clone(), idempotency::KnownOperations::of(&doc)),
            idempotency::layer,
        ))
        .route_layer(from_fn_with_state(state.clone(), auth::authenticate))
        .route_layer(from_fn_with_state(deprecations, deprecation::announce))
        .route_layer(from_fn(telemetry::record));
    let hooks = hooks.route_layer(from_fn(telemetry::record));
    Ok(Router::new()
        .merge(v1)
        .merge(hooks)
        .merge(routes::meta::router(doc, docs_html))
        .fallback(|| async { error::ApiError::new(error::ErrorType::NotFound, "No such route.") })
        .layer(RequestBodyLimitLayer::new(idempotency::BODY_LIMIT))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::SERVICE_UNAVAILABLE,
            Duration::from_secs(30),
        ))
        .layer(CatchPanicLayer::new())
        .layer(TraceLayer::new_for_http())
        .layer(SetSensitiveRequestHeadersLayer::new([
            axum::http::header::AUTHORIZATION,
        ]))
        .layer(from_fn_with_state(state.clone(), envelope::envelope))
        .with_state(state))
}
