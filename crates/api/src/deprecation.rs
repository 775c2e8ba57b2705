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
    use time::macros::datetime;

    /// What a listed operation must keep: headers HTTP can carry, and a sunset at least a year
    /// after the deprecation (the v1 promise). `Err` says which is broken.
    fn keeps_the_promise(d: &Deprecation) -> Result<(), String> {
        let headers = d.headers().map_err(|e| format!("no HTTP date: {e}"))?;
        for (name, value) in headers {
            HeaderValue::from_str(&value).map_err(|_| format!("{name}: {value:?}"))?;
        }
        if d.sunset - d.since < time::Duration::days(365) {
            return Err(format!(
                "sunset {} is under a year after {}",
                d.sunset, d.since
            ));
        }
        Ok(())
    }

    fn deprecation(
        since: time::OffsetDateTime,
        sunset: time::OffsetDateTime,
        link: &'static str,
    ) -> Deprecation {
        Deprecation {
            method: axum::http::Method::GET,
            path: "/v1/runs/{id}",
            since,
            sunset,
            link,
        }
    }

    #[test]
    fn every_listed_operation_keeps_the_promise() {
        for d in DEPRECATIONS {
            assert_eq!(keeps_the_promise(d), Ok(()), "{d:?}");
        }
    }

    #[test]
    fn the_promise_refuses_a_short_sunset_an_unusable_date_or_link() {
        let since = datetime!(2026-11-01 00:00 UTC);
        let good = deprecation(
            since,
            datetime!(2027-11-01 00:00 UTC),
            "https://x.example/m",
        );
        assert_eq!(keeps_the_promise(&good), Ok(()));
        let short = deprecation(
            since,
            datetime!(2027-10-31 00:00 UTC),
            "https://x.example/m",
        );
        assert!(keeps_the_promise(&short).is_err_and(|e| e.contains("under a year")));
        let old = deprecation(
            datetime!(1800-01-01 00:00 UTC),
            datetime!(1801-06-01 00:00 UTC),
            "https://x.example/m",
        );
        assert!(keeps_the_promise(&old).is_err_and(|e| e.contains("no HTTP date")));
        let newline = deprecation(
            since,
            datetime!(2027-11-01 00:00 UTC),
            "https://x\n.example",
        );
        assert!(keeps_the_promise(&newline).is_err_and(|e| e.starts_with("link")));
    }

    #[test]
    fn an_operation_matches_by_method_in_any_case_and_exact_template() {
        let d = deprecation(
            datetime!(2026-11-01 00:00 UTC),
            datetime!(2027-11-01 00:00 UTC),
            "https://x.example/m",
        );
        assert!(d.matches("get", "/v1/runs/{id}"));
        assert!(d.matches("GET", "/v1/runs/{id}"));
        assert!(!d.matches("POST", "/v1/runs/{id}"));
        assert!(!d.matches("GET", "/v1/runs/run_1"));
        assert!(!d.matches("GET", "/v1/runs/{id}/log"));
    }
}
