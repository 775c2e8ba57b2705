//! Per-token rate limits with an exact sliding window (IETF RateLimit header fields draft-10,
//! GitHub's `X-RateLimit-*`).
//!
//! On one node the log lives in memory and keeps one counter per millisecond, so it is exact to
//! the millisecond and its memory stays bounded by the window, not by the quota. With
//! `CONTENT_PIPELINE_REDIS_URL` every node shares one log per token in Redis (contract section
//! 8): a sorted set of admitted requests scored by their millisecond, trimmed and counted by
//! one Lua script, so a check is atomic across nodes and still exact. Time comes from the
//! service's clock (nodes are expected to run NTP). Each node also counts the requests it
//! admitted in a log of its own; when Redis does not answer (250 ms), the node limits on that
//! log for the next 2 s and says so in its log (once a minute): a limiter outage degrades
//! limits to per node rather than refusing every caller.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

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
            self.record(now_ms);
        }
        let oldest = self.buckets.front().map(|&(at, _)| at);
        Decision::new(now_ms, quota, allowed, self.total, oldest)
    }
}

impl Log {
    /// Counts a request admitted elsewhere (by the shared window).
    fn record(&mut self, now_ms: i64) {
        match self.buckets.back_mut() {
            Some((at, n)) if *at == now_ms => *n += 1,
            _ => self.buckets.push_back((now_ms, 1)),
        }
        self.total += 1;
    }
}

impl Decision {
    /// From the window's state after the check: `total` requests in it, the oldest at
    /// `oldest_ms`.
    fn new(now_ms: i64, quota: u32, allowed: bool, total: u64, oldest_ms: Option<i64>) -> Self {
        let until_slot_ms = oldest_ms.map(|at| at + WINDOW_MS - now_ms).unwrap_or(0);
        let secs = (until_slot_ms + 999) / 1000;
        Decision {
            allowed,
            limit: quota,
            remaining: u32::try_from(u64::from(quota).saturating_sub(total)).unwrap_or(0),
            reset_secs: secs,
            retry_after_secs: secs.max(1),
            now_secs: now_ms / 1000,
        }
    }
}

/// The log shared by every node through Redis.
struct Shared {
    redis: redis::aio::ConnectionManager,
    script: redis::Script,
    /// When the last fallback was logged (ms), so an outage logs once a minute, not per request.
    last_warning_ms: AtomicI64,
    /// After a failure Redis is left alone until then (ms), so an outage does not cost every
    /// request the whole timeout.
    retry_at_ms: AtomicI64,
}

/// Trims the window, admits the request if there is room, and reports the window's state.
/// KEYS[1] the token's log; ARGV now (ms), window (ms), quota, a unique member.
const SHARED_WINDOW_SCRIPT: &str = r"
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local total = redis.call('ZCARD', KEYS[1])
local allowed = 0
if total < tonumber(ARGV[3]) then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  total = total + 1
  allowed = 1
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local oldest_ms = -1
if oldest[2] then oldest_ms = tonumber(oldest[2]) end
redis.call('PEXPIRE', KEYS[1], window)
return {allowed, total, oldest_ms}
";

impl Shared {
    async fn admit(&self, token: TokenId, now_ms: i64, quota: u32) -> redis::RedisResult<Decision> {
        let member = format!("{now_ms}-{}", rand::random::<u64>());
        let mut redis = self.redis.clone();
        let (allowed, total, oldest): (i64, i64, i64) = self
            .script
            .key(format!("content-pipeline:ratelimit:{token}"))
            .arg(now_ms)
            .arg(WINDOW_MS)
            .arg(quota)
            .arg(member)
            .invoke_async(&mut redis)
            .await?;
        Ok(Decision::new(
            now_ms,
            quota,
            allowed == 1,
            u64::try_from(total).unwrap_or(0),
            (oldest >= 0).then_some(oldest),
        ))
    }
}

/// Limits requests per token: on this node, or across nodes through Redis.
pub struct RateLimiter {
    clock: Clock,
    logs: Mutex<HashMap<TokenId, Log>>,
    shared: Option<Shared>,
}

/// How long a node waits for Redis before it decides on its own.
const REDIS_TIMEOUT: Duration = Duration::from_millis(250);
/// How long a node limits on its own after Redis failed, before it asks Redis again.
const REDIS_RETRY_AFTER_MS: i64 = 2_000;

impl RateLimiter {
    /// A limiter of this node only.
    pub fn new(clock: Clock) -> Self {
        Self {
            clock,
            logs: Mutex::new(HashMap::new()),
            shared: None,
        }
    }

    /// A limiter shared through the Redis at `url`; fails when Redis cannot be reached now.
    pub async fn shared(clock: Clock, url: &str) -> redis::RedisResult<Self> {
        let client = redis::Client::open(url)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(REDIS_TIMEOUT))
            .set_number_of_retries(2);
        let redis = client.get_connection_manager_with_config(config).await?;
        Ok(Self {
            shared: Some(Shared {
                redis,
                script: redis::Script::new(SHARED_WINDOW_SCRIPT),
                last_warning_ms: AtomicI64::new(i64::MIN),
                retry_at_ms: AtomicI64::new(i64::MIN),
            }),
            ..Self::new(clock)
        })
    }

    pub async fn check(&self, token: TokenId, quota: u32) -> Decision {
        let now_ms =
            i64::try_from(self.clock.now().unix_timestamp_nanos() / 1_000_000).unwrap_or(0);
        // Every request the shared window admits is also counted in this node's own log, so
        // that during a Redis outage the node goes on from what it has seen, not from zero.
        if let Some(shared) = &self.shared
            && now_ms >= shared.retry_at_ms.load(Ordering::Relaxed)
        {
            match tokio::time::timeout(REDIS_TIMEOUT, shared.admit(token, now_ms, quota)).await {
                Ok(Ok(decision)) => {
                    if decision.allowed {
                        let mut logs = self.logs.lock().unwrap_or_else(|p| p.into_inner());
                        let log = logs.entry(token).or_default();
                        log.evict(now_ms);
                        log.record(now_ms);
                    }
                    return decision;
                }
                outcome => {
                    shared.retry_at_ms.store(
                        now_ms.saturating_add(REDIS_RETRY_AFTER_MS),
                        Ordering::Relaxed,
                    );
                    let last = shared.last_warning_ms.load(Ordering::Relaxed);
                    if now_ms.saturating_sub(last) >= 60_000 {
                        shared.last_warning_ms.store(now_ms, Ordering::Relaxed);
                        let error = match outcome {
                            Ok(Err(e)) => e.to_string(),
                            _ => "timed out".to_owned(),
                        };
                        tracing::warn!(%error, "shared rate limiter unavailable; limiting per node");
                    }
                }
            }
        }
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
