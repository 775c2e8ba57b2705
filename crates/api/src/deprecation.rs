//! Deprecation of operations (RFC 9745 `Deprecation`, RFC 8594 `Sunset`). An operation listed
//! here answers with the three headers and is marked `deprecated` in the OpenAPI document.

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use time::format_description::well_known::Rfc2822;

use crate::state::AppState;

#[derive(Clone, Debug)]
pub struct Deprecation {
    pub method: axum::http::Method,
    /// The route template, e.g. `/v1/runs/{id}`.
    pub path: String,
    pub since: time::OffsetDateTime,
    /// At least 12 months after `since` (the v1 promise).
    pub sunset: time::OffsetDateTime,
    /// Where the migration is explained.
    pub link: String,
}

impl Deprecation {
    pub fn headers(&self) -> [(&'static str, String); 3] {
        let http_date = |t: time::OffsetDateTime| {
            t.format(&Rfc2822)
                .map(|s| s.replace("+0000", "GMT"))
                .unwrap_or_default()
        };
        [
            ("deprecation", format!("@{}", self.since.unix_timestamp())),
            ("sunset", http_date(self.sunset)),
            ("link", format!("<{}>; rel=\"deprecation\"", self.link)),
        ]
    }
}

pub async fn announce(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let found = req.extensions().get::<MatchedPath>().and_then(|p| {
        state
            .deprecations
            .iter()
            .find(|d| d.path == p.as_str() && d.method == *req.method())
            .cloned()
    });
    let mut response = next.run(req).await;
    if let Some(d) = found {
        for (name, value) in d.headers() {
            if let Ok(v) = HeaderValue::from_str(&value) {
                response.headers_mut().append(name, v);
            }
        }
    }
    response
}
