//! When a call is tried again: a 429 after its `Retry-After`, a 409
//! `idempotency_in_progress` after its `Retry-After`, and a lost connection for requests that
//! are safe to repeat (GET, and POST/PATCH carrying an Idempotency-Key), with exponential
//! backoff and full jitter between tries.

use std::time::Duration;

use api_types::ErrorType;
use rand::RngExt;

use crate::error::Error;

#[derive(Clone, Copy, Debug)]
pub struct RetryPolicy {
    /// Tries after the first one.
    pub max_retries: u32,
    /// The first backoff; each further one doubles, up to `max_backoff`.
    pub initial_backoff: Duration,
    pub max_backoff: Duration,
    /// A `Retry-After` longer than this is not waited for: the error is returned.
    pub max_retry_after: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 3,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(8),
            max_retry_after: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// No retries at all.
    pub fn never() -> Self {
        Self {
            max_retries: 0,
            ..Self::default()
        }
    }

    /// How long to wait before try number `retry` (1-based) after `error`, or `None` when
    /// the error is final. `repeatable`: the request may run twice without harm.
    pub(crate) fn delay(&self, retry: u32, error: &Error, repeatable: bool) -> Option<Duration> {
        if retry > self.max_retries {
            return None;
        }
        match error {
            Error::Api {
                error, retry_after, ..
            } if matches!(
                error.kind,
                ErrorType::RateLimited | ErrorType::IdempotencyInProgress
            ) =>
            {
                let wait = retry_after.unwrap_or_else(|| self.backoff(retry));
                (wait <= self.max_retry_after).then_some(wait)
            }
            Error::Transport(e)
                if repeatable && (e.is_connect() || e.is_timeout() || e.is_request()) =>
            {
                Some(self.backoff(retry))
            }
            _ => None,
        }
    }

    fn backoff(&self, retry: u32) -> Duration {
        let ceiling = self
            .initial_backoff
            .saturating_mul(1u32 << retry.saturating_sub(1).min(16))
            .min(self.max_backoff);
        let millis = u64::try_from(ceiling.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        Duration::from_millis(rand::rng().random_range(millis / 2..=millis))
    }
}
