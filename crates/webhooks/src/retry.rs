//! When the next attempt happens: the configured schedule with ±20% jitter, a harder back-off
//! after a 429 or a timeout, and `Retry-After` honoured within 1–2× the planned delay.

use std::time::Duration;

use rand::RngExt;

/// The contract's floor for the wait after a 429 or a timeout, for the default schedule.
const HARD_BACKOFF: Duration = Duration::from_secs(60);
/// The default schedule's first retry delay (`0s,5s,…`): the unit the floor is scaled by.
const DEFAULT_FIRST_RETRY: Duration = Duration::from_secs(5);
const JITTER: f64 = 0.2;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ScheduleError {
    #[error("'{0}' is not a duration (use a number with ms, s, m, h or d)")]
    BadDuration(String),
    #[error("the retry schedule needs at least one entry")]
    Empty,
}

/// Parses `250ms`, `5s`, `5m`, `2h`, `1d`; a bare `0` is zero.
pub fn parse_duration(text: &str) -> Result<Duration, ScheduleError> {
    let text = text.trim();
    let bad = || ScheduleError::BadDuration(text.chars().take(32).collect());
    if text == "0" {
        return Ok(Duration::ZERO);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .filter(|&i| i > 0)
        .ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let n: u64 = number.parse().map_err(|_| bad())?;
    let unit_ms: u64 = match unit {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    n.checked_mul(unit_ms)
        .map(Duration::from_millis)
        .ok_or_else(bad)
}

/// How an attempt ended, as far as scheduling the next one is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FailureKind {
    /// A non-2xx answer (other than 410 and 429), a refused address or a network error.
    Failed,
    /// 429 Too Many Requests: back off harder.
    Throttled,
    /// The attempt ran out of time: back off harder.
    TimedOut,
}

/// The delays before each attempt (`CONTENT_PIPELINE_WEBHOOK_RETRY_SCHEDULE`). The first entry
/// is the delay before the first attempt; a delivery gets as many attempts as there are
/// entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RetrySchedule {
    delays: Vec<Duration>,
    hard_backoff: Duration,
}

impl RetrySchedule {
    pub fn parse(text: &str) -> Result<Self, ScheduleError> {
        Self::new(
            text.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(parse_duration)
                .collect::<Result<Vec<_>, _>>()?,
        )
    }

    /// The delay before each attempt, the first attempt's included (usually zero).
    pub fn new(delays: Vec<Duration>) -> Result<Self, ScheduleError> {
        if delays.is_empty() {
            return Err(ScheduleError::Empty);
        }
        let hard_backoff = Self::scaled_hard_backoff(&delays);
        Ok(Self {
            delays,
            hard_backoff,
        })
    }

    /// The 60-second floor after a 429 or a timeout, scaled for short (test) schedules by the
    /// same factor the schedule is scaled from the default: 60 s × (first non-zero retry delay
    /// ÷ 5 s), never more than 60 s. The default schedule (`0s,5s,…`) gets exactly 60 s; a test
    /// schedule `0s,100ms,200ms` gets 1.2 s.
    fn scaled_hard_backoff(delays: &[Duration]) -> Duration {
        let first_retry = delays
            .iter()
            .skip(1)
            .copied()
            .find(|d| !d.is_zero())
            .unwrap_or(DEFAULT_FIRST_RETRY);
        HARD_BACKOFF
            .mul_f64(first_retry.as_secs_f64() / DEFAULT_FIRST_RETRY.as_secs_f64())
            .min(HARD_BACKOFF)
    }

    /// How many attempts a delivery gets.
    pub fn max_attempts(&self) -> usize {
        self.delays.len()
    }

    /// The floor of the wait after a 429 or a timeout.
    pub fn hard_backoff(&self) -> Duration {
        self.hard_backoff
    }

    /// The delay before attempt number `attempt` (1-based) as configured, without jitter.
    pub fn planned(&self, attempt: usize) -> Option<Duration> {
        attempt
            .checked_sub(1)
            .and_then(|i| self.delays.get(i))
            .copied()
    }

    /// When to try again after `attempts_made` attempts, the last of which failed as `kind`;
    /// `None` when that was the last attempt (the delivery is dead).
    ///
    /// The planned delay gets ±20% jitter; a 429 or a timeout waits at least the hard back-off;
    /// a `Retry-After` from the receiver is followed but kept within 1–2× of that delay, so a
    /// receiver can slow us down but neither hurry us nor park a delivery for days.
    pub fn next_delay(
        &self,
        attempts_made: usize,
        kind: FailureKind,
        retry_after: Option<Duration>,
    ) -> Option<Duration> {
        let planned = self.planned(attempts_made + 1)?;
        let mut delay = jitter(planned);
        if matches!(kind, FailureKind::Throttled | FailureKind::TimedOut) {
            delay = delay.max(self.hard_backoff);
        }
        if let Some(asked) = retry_after {
            delay = asked.clamp(delay, delay.saturating_mul(2));
        }
        Some(delay)
    }
}

impl Default for RetrySchedule {
    /// The contract's schedule: `0s,5s,5m,30m,2h,5h,10h,14h,20h,24h`.
    fn default() -> Self {
        const H: u64 = 3600;
        let delays = [
            0,
            5,
            5 * 60,
            30 * 60,
            2 * H,
            5 * H,
            10 * H,
            14 * H,
            20 * H,
            24 * H,
        ]
        .map(Duration::from_secs)
        .to_vec();
        let hard_backoff = Self::scaled_hard_backoff(&delays);
        Self {
            delays,
            hard_backoff,
        }
    }
}

fn jitter(d: Duration) -> Duration {
    if d.is_zero() {
        return d;
    }
    let factor = rand::rng().random_range((1.0 - JITTER)..=(1.0 + JITTER));
    d.mul_f64(factor)
}

/// Reads a `Retry-After` value: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
pub fn parse_retry_after(value: &str, now: std::time::SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn parses_every_unit_and_refuses_nonsense() {
        let s = RetrySchedule::parse("0s, 250ms,5s,5m,2h,1d").unwrap();
        assert_eq!(s.max_attempts(), 6);
        assert_eq!(s.planned(1), Some(Duration::ZERO));
        assert_eq!(s.planned(2), Some(ms(250)));
        assert_eq!(s.planned(4), Some(Duration::from_secs(300)));
        assert_eq!(s.planned(6), Some(Duration::from_secs(86_400)));
        assert_eq!(s.planned(7), None);
        for bad in ["", "5", "5x", "s", "-1s", "1.5s", "5s,,oops"] {
            assert!(RetrySchedule::parse(bad).is_err(), "{bad} must be refused");
        }
    }

    #[test]
    fn the_hard_backoff_is_60s_by_default_and_scales_with_the_schedule() {
        let default = RetrySchedule::parse("0s,5s,5m,30m,2h,5h,10h,14h,20h,24h").unwrap();
        assert_eq!(default, RetrySchedule::default());
        assert_eq!(default.hard_backoff(), Duration::from_secs(60));
        let short = RetrySchedule::parse("0s,100ms,200ms").unwrap();
        assert_eq!(short.hard_backoff(), ms(1200));
        let slow = RetrySchedule::parse("0s,1m").unwrap();
        assert_eq!(slow.hard_backoff(), Duration::from_secs(60));
    }

    #[test]
    fn jitter_stays_within_twenty_percent() {
        let s = RetrySchedule::parse("0s,1s,10s").unwrap();
        for _ in 0..500 {
            let d = s.next_delay(1, FailureKind::Failed, None).unwrap();
            assert!(d >= ms(800) && d <= ms(1200), "{d:?}");
        }
        assert_eq!(s.next_delay(3, FailureKind::Failed, None), None);
    }

    #[test]
    fn throttling_and_timeouts_back_off_harder() {
        let s = RetrySchedule::parse("0s,100ms,200ms").unwrap();
        for kind in [FailureKind::Throttled, FailureKind::TimedOut] {
            let d = s.next_delay(1, kind, None).unwrap();
            assert!(d >= ms(1200), "{kind:?}: {d:?}");
        }
    }

    #[test]
    fn retry_after_is_honoured_within_one_to_two_times_the_plan() {
        let s = RetrySchedule::parse("0s,10s,20s").unwrap();
        let long = s
            .next_delay(1, FailureKind::Failed, Some(Duration::from_secs(3600)))
            .unwrap();
        assert!(long <= Duration::from_secs(24), "{long:?}");
        let short = s
            .next_delay(1, FailureKind::Failed, Some(Duration::from_secs(1)))
            .unwrap();
        assert!(short >= Duration::from_secs(8), "{short:?}");
        let within = s
            .next_delay(1, FailureKind::Failed, Some(Duration::from_secs(15)))
            .unwrap();
        assert!(within >= Duration::from_secs(12) && within <= Duration::from_secs(24));
    }

    #[test]
    fn retry_after_takes_seconds_or_a_date() {
        let now = std::time::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            parse_retry_after("120", now),
            Some(Duration::from_secs(120))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(30));
        assert_eq!(
            parse_retry_after(&later, now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(parse_retry_after("soon", now), None);
    }
}
