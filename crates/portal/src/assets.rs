//! The portal's static files, compiled into the binary: htmx and its SSE extension (vendored
//! unmodified, see `assets/VENDORED.txt`) and the stylesheet. Their names carry their
//! version, so they are cached for good.

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::Portal;

pub const HTMX: &str = "htmx-2.0.11.min.js";
pub const HTMX_SSE: &str = "htmx-ext-sse-2.2.4.min.js";
/// Renamed when its content changes, since it is cached for good.
pub const STYLESHEET: &str = "portal-4.css";
/// The copy buttons of the settings pages.
pub const COPY: &str = "copy-1.js";
/// The tab icon of the portal and the published site.
pub const ICON: &str = "icon-1.svg";

fn asset(name: &str) -> Option<(&'static str, &'static [u8])> {
    const JS: &str = "text/javascript; charset=utf-8";
    const CSS: &str = "text/css; charset=utf-8";
    Some(match name {
        HTMX => (JS, include_bytes!("../assets/htmx-2.0.11.min.js")),
        HTMX_SSE => (JS, include_bytes!("../assets/htmx-ext-sse-2.2.4.min.js")),
        STYLESHEET => (CSS, include_bytes!("../assets/portal.css")),
        COPY => (JS, include_bytes!("../assets/copy-1.js")),
        ICON => ("image/svg+xml", include_bytes!("../assets/icon.svg")),
        _ => return None,
    })
}

pub fn router() -> Router<Portal> {
    Router::new().route("/portal/assets/{name}", get(serve))
}

async fn serve(Path(name): Path<String>) -> Response {
    match asset(&name) {
        Some((content_type, bytes)) => (
            [
                (header::CONTENT_TYPE, content_type),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            bytes,
        )
            .into_response(),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}
