//! One delivery attempt over HTTP: signed Standard Webhooks request, no redirects, a
//! whole-attempt timeout, a capped response read, and a DNS resolver that refuses private
//! addresses after resolution so that DNS rebinding cannot reach them.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER, USER_AGENT};

use crate::retry::{FailureKind, parse_retry_after};
use crate::{AddressPolicy, SigningSecret, sign};

/// How much of a response body we read before hanging up; receivers' answers are not used.
pub const RESPONSE_BODY_CAP: usize = 4 * 1024;

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
    /// Could not connect, TLS failed, the connection broke…
    Network(String),
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

    /// Makes one attempt; never fails, every ending is an [`AttemptOutcome`].
    pub async fn send(&self, attempt: &Attempt<'_>) -> AttemptOutcome {
        // Literal addresses never reach the resolver: check them here.
        let url = match self.policy.check_url(attempt.url) {
            Ok(url) => url,
            Err(crate::TargetError::Private(_)) => return AttemptOutcome::Refused,
            Err(e) => return AttemptOutcome::Network(e.to_string()),
        };
        match tokio::time::timeout(self.timeout, self.exchange(url, attempt)).await {
            Ok(outcome) => outcome,
            Err(_) => AttemptOutcome::TimedOut,
        }
    }

    async fn exchange(&self, url: url::Url, attempt: &Attempt<'_>) -> AttemptOutcome {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(
            USER_AGENT,
            HeaderValue::from_static(concat!(
                "content-pipeline-webhooks/",
                env!("CARGO_PKG_VERSION")
            )),
        );
        let signature = sign(
            &attempt.secrets.iter().collect::<Vec<_>>(),
            attempt.event_id,
            attempt.timestamp,
            attempt.body,
        );
        for (name, value) in [
            ("webhook-id", attempt.event_id.to_owned()),
            ("webhook-timestamp", attempt.timestamp.to_string()),
            ("webhook-signature", signature),
        ] {
            match HeaderValue::from_str(&value) {
                Ok(v) => {
                    headers.insert(name, v);
                }
                Err(e) => return AttemptOutcome::Network(e.to_string()),
            }
        }
        let response = match self
            .client
            .post(url)
            .headers(headers)
            .body(attempt.body.to_vec())
            .send()
            .await
        {
            Ok(r) => r,
            Err(e) => return classify(&e),
        };
        let status = response.status().as_u16();
        let retry_after = response
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, std::time::SystemTime::now()));
        if let Err(e) = drain_capped(response).await {
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

/// Reads at most [`RESPONSE_BODY_CAP`] bytes of the answer and drops the rest.
async fn drain_capped(mut response: reqwest::Response) -> Result<(), reqwest::Error> {
    let mut read = 0usize;
    while read < RESPONSE_BODY_CAP {
        match response.chunk().await? {
            Some(chunk) => read += chunk.len(),
            None => break,
        }
    }
    Ok(())
}

fn classify(e: &reqwest::Error) -> AttemptOutcome {
    if e.is_timeout() {
        return AttemptOutcome::TimedOut;
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if err.is::<RefusedAddress>() {
            return AttemptOutcome::Refused;
        }
        source = err.source();
    }
    AttemptOutcome::Network(error_chain(e))
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
