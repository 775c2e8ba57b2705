//! Per-token rate limits with an exact sliding window (IETF RateLimit header fields draft-10,
//! GitHub's `X-RateLimit-*`). The log keeps one counter per millisecond, so it is exact to the
//! millisecond and its memory stays bounded by the window, not by the quota.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use axum::http::{HeaderMap, HeaderValue};
use domain::{Clock, TokenId};

pub const WINDOW_SECS: i64 = 300;
const WINDOW_MS: i64 = WINDOW_SECS * 1000;

/// The verdict on one request, with everything the headers report.
#[derive(Clone, Debug)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Seconds until the oldest request in the window leaves it (a slot frees).
    pub reset_secs: i64,
    pub retry_after_secs: i64,
    pub now_secs: i64,
}

impl Decision {
    pub fn stamp(&self, headers: &mut HeaderMap) {
        let mut set = |name: &'static str, value: String| {
            if let Ok(v) = HeaderValue::from_str(&value) {
                headers.insert(name, v);
            }
        };
        set(
            "ratelimit-policy",
            format!("\"default\";q={};w={WINDOW_SECS}", self.limit),
        );
        set(
            "ratelimit",
            format!("\"default\";r={};t={}", self.remaining, self.reset_secs),
        );
        set("x-ratelimit-limit", self.limit.to_string());
        set("x-ratelimit-remaining", self.remaining.to_string());
        set(
            "x-ratelimit-reset",
            (self.now_secs + self.reset_secs).to_string(),
        );
    }
}

#[derive(Default)]
struct Log {
    buckets: VecDeque<(i64, u32)>,
    total: u64,
}

impl Log {
    fn evict(&mut self, now_ms: i64) {
        while let Some(&(at, n)) = self.buckets.front() {
            if at > now_ms - WINDOW_MS {
                break;
            }
            self.total -= u64::from(n);
            self.buckets.pop_front();
        }
    }

    fn admit(&mut self, now_ms: i64, quota: u32) -> Decision {
        self.evict(now_ms);
        let allowed = self.total < u64::from(quota);
        if allowed {
            match self.buckets.back_mut() {
                Some((at, n)) if *at == now_ms => *n += 1,
                _ => self.buckets.push_back((now_ms, 1)),
            }
            self.total += 1;
        }
        let until_slot_ms = self
            .buckets
            .front()
            .map(|&(at, _)| at + WINDOW_MS - now_ms)
            .unwrap_or(0);
        let secs = (until_slot_ms + 999) / 1000;
        Decision {
            allowed,
            limit: quota,
            remaining: u32::try_from(u64::from(quota).saturating_sub(self.total)).unwrap_or(0),
            reset_secs: secs,
            retry_after_secs: secs.max(1),
            now_secs: now_ms / 1000,
        }
    }
}

/// Limits requests per token on this node. (A shared limiter for several nodes is listed in
/// the README's notes.)
pub struct RateLimiter {
    clock: Clock,
    logs: Mutex<HashMap<TokenId, Log>>,
}

impl RateLimiter {
    pub fn new(clock: Clock) -> Self {
        Self {
            clock,
            logs: Mutex::new(HashMap::new()),
        }
    }

    pub async fn check(&self, token: TokenId, quota: u32) -> Decision {
        let now_ms =
            i64::try_from(self.clock.now().unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
        let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
        logs.entry(token).or_default().admit(now_ms, quota)
    }

    /// Forgets tokens with nothing left in their window; called periodically.
    pub fn retain_recent(&self) {
        let now_ms =
            i64::try_from(self.clock.now().unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
        let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
        logs.retain(|_, log| {
            log.evict(now_ms);
            log.total > 0
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_is_exact_and_refusals_cost_nothing() {
        let mut log = Log::default();
        let t0 = 1_000_000;
        for i in 0..600 {
            assert!(log.admit(t0 + i, 600).allowed);
        }
        let refused = log.admit(t0 + 1000, 600);
        assert!(!refused.allowed);
        assert_eq!(refused.remaining, 0);
        // The first request leaves the window exactly 300 s after it was made.
        assert!(!log.admit(t0 + WINDOW_MS - 1, 600).allowed);
        assert!(log.admit(t0 + WINDOW_MS, 600).allowed);
        assert!(!log.admit(t0 + WINDOW_MS, 600).allowed);
    }
}
