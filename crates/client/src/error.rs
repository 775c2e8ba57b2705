//! What a call can fail with: the API's answer in its envelope, or no usable answer at all.

use std::time::Duration;

use api_types::{ErrorObject, ErrorType};

pub type Result<T> = std::result::Result<T, Error>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The API answered with an error envelope (`{"error":{…}}`).
    #[error("{status} {}: {}", .error.kind.as_str(), .error.message)]
    Api {
        status: u16,
        error: ErrorObject,
        /// `Retry-After`, when the answer carried one (429, 409 `idempotency_in_progress`).
        retry_after: Option<Duration>,
    },
    /// A non-2xx answer that is not an error envelope (a proxy's page, say).
    #[error("HTTP {status} without an error envelope: {body}")]
    Http { status: u16, body: String },
    /// The connection failed or timed out before an answer arrived.
    #[error("no answer from the server: {0}")]
    Transport(#[from] reqwest::Error),
    /// A 2xx answer whose body is not the documented resource.
    #[error("an answer that does not match the API's schema: {0}")]
    Decode(#[source] serde_json::Error),
    /// The client was built with a base URL it cannot use.
    #[error("invalid base URL '{0}'")]
    BaseUrl(String),
}

impl Error {
    /// The envelope's type, for an API error.
    pub fn kind(&self) -> Option<ErrorType> {
        match self {
            Error::Api { error, .. } => Some(error.kind),
            _ => None,
        }
    }

    /// The HTTP status, when the server answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Error::Api { status, .. } | Error::Http { status, .. } => Some(*status),
            _ => None,
        }
    }
}
