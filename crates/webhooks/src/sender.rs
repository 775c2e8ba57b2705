//! One delivery attempt over HTTP: signed Standard Webhooks request, no redirects, a
//! whole-attempt timeout, a capped response read, and a DNS resolver that refuses private
//! addresses after resolution so that DNS rebinding cannot reach them. Each attempt reports
//! what it sent (the headers) and what it got (status, headers and the start of the body, all
//! bounded), for the attempt log of the webhook console.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use domain::AttemptError;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, RETRY_AFTER};

use crate::retry::{FailureKind, parse_retry_after};
use crate::{AddressPolicy, SigningSecret, sign};

/// How much of a response body we read (and keep) before hanging up.
pub const RESPONSE_BODY_CAP: usize = 4 * 1024;
/// The most response headers kept, and the most characters of each name and value.
pub const RESPONSE_HEADERS_CAP: usize = 64;
pub const HEADER_TEXT_CAP: usize = 1024;
/// The most characters of an error message kept.
pub const ERROR_MESSAGE_CAP: usize = 500;

const USER_AGENT: &str = concat!("content-pipeline-webhooks/", env!("CARGO_PKG_VERSION"));

/// What one delivery attempt sends.
pub struct Attempt<'a> {
    pub url: &'a str,
    /// The event id: `webhook-id`, the same for retries and replays.
    pub event_id: &'a str,
    /// Unix seconds, fresh for each attempt: `webhook-timestamp`.
    pub timestamp: i64,
    /// The exact payload bytes, signed as they are sent.
    pub body: &'a [u8],
    /// Newest first.
    pub secrets: &'a [SigningSecret],
}

/// How an attempt ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AttemptOutcome {
    /// A 2xx answer.
    Delivered { status: u16 },
    /// 410 Gone: the receiver wants no more deliveries.
    Gone,
    /// Any other answer, redirects included (they are not followed).
    Rejected {
        status: u16,
        retry_after: Option<Duration>,
    },
    /// No complete answer within the attempt timeout.
    TimedOut,
    /// The target resolves only to addresses the policy refuses.
    Refused,
    /// Could not connect, TLS failed, the connection broke…: `kind` is `Connection` or `Tls`.
    Network { kind: AttemptError, message: String },
}

impl AttemptOutcome {
    /// The HTTP status of the answer, when there was one.
    pub fn status_code(&self) -> Option<u16> {
        match self {
            AttemptOutcome::Delivered { status } | AttemptOutcome::Rejected { status, .. } => {
                Some(*status)
            }
            AttemptOutcome::Gone => Some(410),
            _ => None,
        }
    }

    /// How the retry schedule should treat this failure (`None` for success and 410, which
    /// never retry).
    pub fn failure_kind(&self) -> Option<FailureKind> {
        match self {
            AttemptOutcome::Delivered { .. } | AttemptOutcome::Gone => None,
            AttemptOutcome::Rejected { status: 429, .. } => Some(FailureKind::Throttled),
            AttemptOutcome::TimedOut => Some(FailureKind::TimedOut),
            _ => Some(FailureKind::Failed),
        }
    }

    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            AttemptOutcome::Rejected { retry_after, .. } => *retry_after,
            _ => None,
        }
    }

    /// Why there was no HTTP answer; `None` when there was one.
    pub fn error(&self) -> Option<AttemptError> {
        match self {
            AttemptOutcome::TimedOut => Some(AttemptError::Timeout),
            AttemptOutcome::Refused => Some(AttemptError::RefusedAddress),
            AttemptOutcome::Network { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    /// A connection failure with `message` (bounded).
    pub fn connection(message: impl std::fmt::Display) -> Self {
        AttemptOutcome::Network {
            kind: AttemptError::Connection,
            message: bounded(&message.to_string(), ERROR_MESSAGE_CAP),
        }
    }
}

/// The answer of an attempt, as far as it was read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResponseSample {
    pub status: u16,
    /// Lowercase names; repeated headers joined with `, `; at most [`RESPONSE_HEADERS_CAP`]
    /// of them, each name and value cut at [`HEADER_TEXT_CAP`] characters.
    pub headers: BTreeMap<String, String>,
    /// The first [`RESPONSE_BODY_CAP`] bytes, as text (invalid UTF-8 replaced).
    pub body: String,
    /// True when the body was longer than what is kept.
    pub body_truncated: bool,
}

/// One attempt: how it ended, what was sent and what came back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exchange {
    pub outcome: AttemptOutcome,
    /// The request headers as sent: `content-type`, `user-agent`, `webhook-id`,
    /// `webhook-timestamp`, `webhook-signature` (signatures, never a secret).
    pub request_headers: BTreeMap<String, String>,
    /// The status, headers and start of the body, when an answer arrived.
    pub response: Option<ResponseSample>,
}

impl Exchange {
    /// What went wrong, in words, when the attempt got no HTTP answer (bounded).
    pub fn error_message(&self) -> Option<String> {
        match &self.outcome {
            AttemptOutcome::TimedOut => {
                Some("no complete answer within the attempt timeout".into())
            }
            AttemptOutcome::Refused => {
                Some("every address of the target is refused by the private-address policy".into())
            }
            AttemptOutcome::Network { message, .. } => Some(message.clone()),
            _ => None,
        }
    }
}

/// At most `max` characters of `text`.
fn bounded(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => text[..cut].to_owned(),
        None => text.to_owned(),
    }
}

#[derive(Debug, thiserror::Error)]
#[error("every address of this host is refused by the webhook address policy")]
struct RefusedAddress;

/// Resolves with the system resolver, then drops every address the policy refuses. The
/// connection can only go to what this returns, so a name that resolves (or re-resolves) to a
/// private address never reaches it.
struct PolicyResolver {
    policy: AddressPolicy,
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let permitted: Vec<SocketAddr> = found
                .into_iter()
                .filter(|a| policy.permits(a.ip()))
                .collect();
            if permitted.is_empty() {
                return Err(Box::new(RefusedAddress) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(permitted.into_iter()) as Addrs)
        })
    }
}

/// Sends delivery attempts; cheap to clone (one connection pool).
#[derive(Clone)]
pub struct Sender {
    client: reqwest::Client,
    policy: AddressPolicy,
    timeout: Duration,
}

impl Sender {
    pub fn new(policy: AddressPolicy, timeout: Duration) -> Result<Self, reqwest::Error> {
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            // A proxy would resolve the name itself, past our resolver.
            .no_proxy()
            .dns_resolver(Arc::new(PolicyResolver {
                policy: policy.clone(),
            }))
            .timeout(timeout)
            .connect_timeout(timeout)
            .tcp_nodelay(true)
            .build()?;
        Ok(Self {
            client,
            policy,
            timeout,
        })
    }

    /// Makes one attempt; never fails, every ending is an [`AttemptOutcome`], reported with
    /// what was sent and received.
    pub async fn send(&self, attempt: &Attempt<'_>) -> Exchange {
        self.post(attempt.url, request_headers(attempt), attempt.body)
            .await
    }

    /// POSTs `body` with `request_headers` to `url` under the same rules as a delivery (the
    /// address policy, no redirects, the timeout, a capped read): the forges' commit-status
    /// calls use it.
    pub async fn post(
        &self,
        url: &str,
        request_headers: BTreeMap<String, String>,
        body: &[u8],
    ) -> Exchange {
        let mut exchange = Exchange {
            outcome: AttemptOutcome::TimedOut,
            request_headers,
            response: None,
        };
        // Literal addresses never reach the resolver: check them here.
        let url = match self.policy.check_url(url) {
            Ok(url) => url,
            Err(crate::TargetError::Private(_)) => {
                exchange.outcome = AttemptOutcome::Refused;
                return exchange;
            }
            Err(e) => {
                exchange.outcome = AttemptOutcome::connection(e);
                return exchange;
            }
        };
        let mut headers = HeaderMap::with_capacity(exchange.request_headers.len());
        for (name, value) in &exchange.request_headers {
            match (
                HeaderName::from_bytes(name.as_bytes()),
                HeaderValue::from_str(value),
            ) {
                (Ok(n), Ok(v)) => {
                    headers.insert(n, v);
                }
                _ => {
                    exchange.outcome =
                        AttemptOutcome::connection(format!("header {name} cannot be sent"));
                    return exchange;
                }
            }
        }
        let mut response = None;
        let exchanged = tokio::time::timeout(
            self.timeout,
            self.exchange(url, headers, body, &mut response),
        )
        .await;
        exchange.outcome = exchanged.unwrap_or(AttemptOutcome::TimedOut);
        exchange.response = response;
        exchange
    }

    /// Sends the request and reads the answer into `response` as it arrives, so that what was
    /// read survives a timeout in the middle of the body.
    async fn exchange(
        &self,
        url: url::Url,
        headers: HeaderMap,
        body: &[u8],
        response: &mut Option<ResponseSample>,
    ) -> AttemptOutcome {
        let answer = match self
            .client
            .post(url)
            .headers(headers)
            .body(body.to_vec())
            .send()
            .await
        {
            Ok(r) => r,
            Err(e) => return classify(&e),
        };
        let status = answer.status().as_u16();
        let retry_after = answer
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
        let sample = response.insert(ResponseSample {
            status,
            headers: response_headers(answer.headers()),
            ..ResponseSample::default()
        });
        if let Err(e) = read_capped(answer, sample).await {
            return classify(&e);
        }
        match status {
            200..=299 => AttemptOutcome::Delivered { status },
            410 => AttemptOutcome::Gone,
            _ => AttemptOutcome::Rejected {
                status,
                retry_after,
            },
        }
    }
}

/// The headers of the request: the Standard Webhooks three, content type and user agent.
fn request_headers(attempt: &Attempt<'_>) -> BTreeMap<String, String> {
    let signature = sign(
        &attempt.secrets.iter().collect::<Vec<_>>(),
        attempt.event_id,
        attempt.timestamp,
        attempt.body,
    );
    BTreeMap::from([
        ("content-type".to_owned(), "application/json".to_owned()),
        ("user-agent".to_owned(), USER_AGENT.to_owned()),
        ("webhook-id".to_owned(), attempt.event_id.to_owned()),
        (
            "webhook-timestamp".to_owned(),
            attempt.timestamp.to_string(),
        ),
        ("webhook-signature".to_owned(), signature),
    ])
}

/// The response's headers, bounded (see [`ResponseSample::headers`]).
fn response_headers(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut kept: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let value = bounded(&String::from_utf8_lossy(value.as_bytes()), HEADER_TEXT_CAP);
        let name = bounded(name.as_str(), HEADER_TEXT_CAP);
        if let Some(existing) = kept.get_mut(&name) {
            if existing.len() < HEADER_TEXT_CAP {
                existing.push_str(", ");
                existing.push_str(&value);
                *existing = bounded(existing, HEADER_TEXT_CAP);
            }
        } else if kept.len() < RESPONSE_HEADERS_CAP {
            kept.insert(name, value);
        }
    }
    kept
}

/// Reads at most [`RESPONSE_BODY_CAP`] bytes of the answer into `sample` (one chunk more, to
/// tell whether it was longer) and drops the rest.
async fn read_capped(
    mut answer: reqwest::Response,
    sample: &mut ResponseSample,
) -> Result<(), reqwest::Error> {
    let mut kept: Vec<u8> = Vec::new();
    let mut truncated = false;
    while let Some(chunk) = answer.chunk().await? {
        let room = RESPONSE_BODY_CAP - kept.len();
        if chunk.len() > room {
            kept.extend_from_slice(&chunk[..room]);
            truncated = true;
            break;
        }
        kept.extend_from_slice(&chunk);
        sample.body = String::from_utf8_lossy(&kept).into_owned();
    }
    sample.body = String::from_utf8_lossy(&kept).into_owned();
    sample.body_truncated = truncated;
    Ok(())
}

/// Timeout, refused address, TLS or connection, from the error and its causes. A TLS failure
/// is a `rustls` error, which the TLS stream wraps in `io::Error`s (whose `source` skips what
/// they wrap, so they are unwrapped here).
fn classify(e: &reqwest::Error) -> AttemptOutcome {
    if e.is_timeout() {
        return AttemptOutcome::TimedOut;
    }
    let mut kind = AttemptError::Connection;
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if wraps::<RefusedAddress>(err) {
            return AttemptOutcome::Refused;
        }
        if wraps::<rustls::Error>(err) {
            kind = AttemptError::Tls;
        }
        source = err.source();
    }
    AttemptOutcome::Network {
        kind,
        message: bounded(&error_chain(e), ERROR_MESSAGE_CAP),
    }
}

/// True when `err` is a `T`, or `io::Error`s around one.
fn wraps<T: std::error::Error + 'static>(mut err: &(dyn std::error::Error + 'static)) -> bool {
    loop {
        if err.is::<T>() {
            return true;
        }
        match err
            .downcast_ref::<std::io::Error>()
            .and_then(std::io::Error::get_ref)
        {
            Some(inner) => err = inner,
            None => return false,
        }
    }
}

fn error_chain(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(err) = source {
        text.push_str(": ");
        text.push_str(&err.to_string());
        source = err.source();
    }
    text
}
