//! Deprecation of operations (RFC 9745 `Deprecation`, RFC 8594 `Sunset`). An operation listed
//! in [`DEPRECATIONS`] answers with the three headers and is marked `deprecated` in the OpenAPI
//! document.

use axum::extract::{MatchedPath, Request, State};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;
use time::format_description::well_known::Rfc2822;

/// The operations announced as deprecated; a release that deprecates one adds it here.
///
/// A static list, not configuration: deprecating an operation is a promise of the API version,
/// made in code review, identical on every node. Production reads only this list. Because it
/// is empty today, the black-box test of the mechanism cannot use it; it gives its own table to
/// `Application::announcing` (the binary crate), which hands it to [`crate::app_announcing`]:
/// one narrow hook at the top, instead of a list threaded through every start-up layer.
pub static DEPRECATIONS: &[Deprecation] = &[];

#[derive(Clone, Debug)]
pub struct Deprecation {
    pub method: axum::http::Method,
    /// The route template, e.g. `/v1/runs/{id}`.
    pub path: &'static str,
    pub since: time::OffsetDateTime,
    /// At least 12 months after `since` (the v1 promise).
    pub sunset: time::OffsetDateTime,
    /// Where the migration is explained.
    pub link: &'static str,
}

impl Deprecation {
    /// The three headers; fails only for a date HTTP cannot express (before 1900 or after
    /// 9999), which the test of [`DEPRECATIONS`] rules out for every listed operation.
    pub fn headers(&self) -> Result<[(&'static str, String); 3], time::error::Format> {
        let sunset = self.sunset.format(&Rfc2822)?.replace("+0000", "GMT");
        Ok([
            ("deprecation", format!("@{}", self.since.unix_timestamp())),
            ("sunset", sunset),
            ("link", format!("<{}>; rel=\"deprecation\"", self.link)),
        ])
    }

    pub fn matches(&self, method: &str, path: &str) -> bool {
        self.path == path && self.method.as_str().eq_ignore_ascii_case(method)
    }
}

/// Adds the headers of a deprecated operation to its responses.
pub async fn announce(
    State(deprecations): State<&'static [Deprecation]>,
    req: Request,
    next: Next,
) -> Response {
    let found = req.extensions().get::<MatchedPath>().and_then(|p| {
        deprecations
            .iter()
            .find(|d| d.matches(req.method().as_str(), p.as_str()))
    });
    let mut response = next.run(req).await;
    let Some(deprecation) = found else {
        return response;
    };
    match deprecation.headers() {
        Ok(headers) => {
            for (name, value) in headers {
                if let Ok(v) = HeaderValue::from_str(&value) {
                    response.headers_mut().append(name, v);
                }
            }
        }
        Err(e) => {
            tracing::error!(path = deprecation.path, error = %e, "a deprecation has an unusable date")
        }
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_operation_has_headers_and_a_sunset_a_year_later() {
        for d in DEPRECATIONS {
            let headers = d.headers().expect("an HTTP date");
            for (_, value) in headers {
                assert!(HeaderValue::from_str(&value).is_ok(), "{value}");
            }
            assert!(d.sunset - d.since >= time::Duration::days(365), "{d:?}");
        }
    }
}
