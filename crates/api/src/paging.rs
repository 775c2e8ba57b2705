//! The one pager (Google AIP-158 with keyset seek). `limit` defaults to 20 and is clamped to
//! 100; the cursor is opaque and tamper-evident: the position plus an HMAC over the list it
//! belongs to, so a forged cursor or one from another list is a 400.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use store::KeysetPage;
use utoipa::IntoParams;

pub use api_types::Page;

use crate::error::ApiError;

pub const DEFAULT_LIMIT: i64 = 20;
pub const MAX_LIMIT: i64 = 100;

/// `limit` and `cursor`, as every list takes them. Documentation only: [`ListQuery`] parses
/// the query itself so that a bad value is a 400 in our envelope.
#[allow(dead_code)]
#[derive(Clone, Debug, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageParams {
    /// Items per page: default 20, values above 100 are clamped to 100, values below 1 are rejected.
    #[param(minimum = 1, default = 20)]
    pub limit: Option<i64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A parsed query string: the paging pair plus whatever filters the endpoint reads.
#[derive(Clone, Debug)]
pub struct ListQuery {
    pub limit: i64,
    pub cursor: Option<String>,
    pairs: Vec<(String, String)>,
}

impl<S: Send + Sync> FromRequestParts<S> for ListQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
            .map_err(|_| ApiError::invalid_request("query", "The query string is malformed."))?;
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        };
        let limit = match get("limit") {
            None => DEFAULT_LIMIT,
            Some(text) => {
                let n: i64 = text.trim().parse().map_err(|_| {
                    ApiError::invalid_request(
                        "limit",
                        "limit must be an integer between 1 and 100.",
                    )
                })?;
                if n < 1 {
                    return Err(ApiError::invalid_request(
                        "limit",
                        "limit must be at least 1.",
                    ));
                }
                n.min(MAX_LIMIT)
            }
        };
        let cursor = get("cursor").filter(|c| !c.is_empty());
        Ok(ListQuery {
            limit,
            cursor,
            pairs,
        })
    }
}

impl ListQuery {
    /// A filter parameter parsed into its type; a value that does not parse is a 400.
    pub fn filter<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, ApiError> {
        match self.pairs.iter().find(|(k, _)| k == name) {
            None => Ok(None),
            Some((_, v)) => v.parse().map(Some).map_err(|_| {
                ApiError::invalid_request(name, format!("'{name}' has an invalid value."))
            }),
        }
    }
}

/// The shared codec ([`http_envelope::CursorCodec`]) with the API's reading of a list query.
#[derive(Clone)]
pub struct CursorCodec(http_envelope::CursorCodec);

fn bad_cursor() -> ApiError {
    ApiError::invalid_request("cursor", "The cursor is invalid for this list.")
}

impl CursorCodec {
    pub fn new(key: [u8; 32]) -> Self {
        Self(http_envelope::CursorCodec::new(key))
    }

    /// The codec itself, for another front end (the portal's lists).
    pub fn shared(&self) -> http_envelope::CursorCodec {
        self.0.clone()
    }

    pub fn encode(&self, list: &str, position: &str) -> String {
        self.0.encode(list, position)
    }

    pub fn decode(&self, list: &str, cursor: &str) -> Result<String, ApiError> {
        self.0.decode(list, cursor).ok_or_else(bad_cursor)
    }

    /// The keyset page a list query asks for (newest-first lists).
    fn keyset(&self, list: &str, q: &ListQuery) -> Result<KeysetPage, ApiError> {
        let after = match &q.cursor {
            None => None,
            Some(c) => Some(self.0.decode_keyset(list, c).ok_or_else(bad_cursor)?),
        };
        Ok(KeysetPage {
            limit: q.limit,
            after,
        })
    }

    /// A sequence-number position (run logs, version lists).
    fn seq(&self, list: &str, q: &ListQuery) -> Result<Option<i64>, ApiError> {
        q.cursor
            .as_deref()
            .map(|c| self.decode(list, c)?.parse().map_err(|_| bad_cursor()))
            .transpose()
    }

    /// Trims the extra row a store fetched and builds the page with its cursor.
    fn page<R: Listed, T>(
        &self,
        list: &str,
        limit: i64,
        mut rows: Vec<R>,
        convert: impl Fn(R) -> T,
    ) -> Page<T> {
        let more = rows.len() as i64 > limit;
        rows.truncate(usize::try_from(limit).unwrap_or(0));
        let next_cursor = match rows.last() {
            Some(last) if more => Some(self.encode(list, &last.position())),
            _ => None,
        };
        Page {
            data: rows.into_iter().map(convert).collect(),
            next_cursor,
        }
    }
}

/// A row of a list: where a cursor after it resumes.
pub trait Listed {
    fn position(&self) -> String;
}

/// Newest-first rows resume at their `(created_at, id)`.
macro_rules! listed_by_creation {
    ($($record:ty),*) => {$(
        impl Listed for $record {
            fn position(&self) -> String {
                format!("{}|{}", self.created_at.micros(), self.id)
            }
        }
    )*};
}

listed_by_creation!(
    store::WorkspaceRecord,
    store::TokenRecord,
    store::RunRecord,
    store::ArticleRecord,
    store::WebhookRecord,
    store::DeliveryRecord
);

/// Members resume at their membership's `(since, user id)`.
impl Listed for operations::accounts::Member {
    fn position(&self) -> String {
        format!("{}|{}", self.since.micros(), self.user.id)
    }
}

/// Attempts resume at their `(started_at, id)`.
impl Listed for api_types::DeliveryAttempt {
    fn position(&self) -> String {
        format!("{}|{}", self.started_at.micros(), self.id)
    }
}

impl Listed for store::ArticleVersionRecord {
    fn position(&self) -> String {
        self.version.to_string()
    }
}

impl Listed for store::RunEventRecord {
    fn position(&self) -> String {
        self.seq.to_string()
    }
}

impl CursorCodec {
    /// One page of the newest-first list named `list`: `fetch` reads the rows of the page the
    /// query asks for (one more than `limit`, to tell whether another page follows).
    pub async fn keyset_list<R, T, E, Fut>(
        &self,
        list: &str,
        q: &ListQuery,
        fetch: impl FnOnce(KeysetPage) -> Fut,
        convert: impl Fn(R) -> T,
    ) -> Result<axum::Json<Page<T>>, ApiError>
    where
        R: Listed,
        ApiError: From<E>,
        Fut: std::future::Future<Output = Result<Vec<R>, E>>,
    {
        let rows = fetch(self.keyset(list, q)?).await?;
        Ok(axum::Json(self.page(list, q.limit, rows, convert)))
    }

    /// One page of a list ordered by sequence number (a run's log, an article's versions):
    /// `fetch` gets the position after which to read and how many rows.
    pub async fn seq_list<R, T, E, Fut>(
        &self,
        list: &str,
        q: &ListQuery,
        fetch: impl FnOnce(Option<i64>, i64) -> Fut,
        convert: impl Fn(R) -> T,
    ) -> Result<axum::Json<Page<T>>, ApiError>
    where
        R: Listed,
        ApiError: From<E>,
        Fut: std::future::Future<Output = Result<Vec<R>, E>>,
    {
        let rows = fetch(self.seq(list, q)?, q.limit + 1).await?;
        Ok(axum::Json(self.page(list, q.limit, rows, convert)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_are_bound_to_their_list_and_tamper_evident() {
        let codec = CursorCodec::new([7; 32]);
        let c = codec.encode("runs:ws_a", "123|run_x");
        assert_eq!(
            codec.decode("runs:ws_a", &c).ok().as_deref(),
            Some("123|run_x")
        );
        assert!(codec.decode("runs:ws_b", &c).is_err());
        let mut forged = c.clone().into_bytes();
        forged[0] = if forged[0] == b'A' { b'B' } else { b'A' };
        assert!(
            codec
                .decode("runs:ws_a", &String::from_utf8(forged).unwrap())
                .is_err()
        );
        assert!(codec.decode("runs:ws_a", "!!!").is_err());
        assert!(CursorCodec::new([8; 32]).decode("runs:ws_a", &c).is_err());
    }
}
