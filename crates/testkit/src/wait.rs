//! Polling with a deadline, for conditions that nothing notifies.

use std::future::Future;
use std::time::{Duration, Instant};

/// Between two probes: short, so that a test timing what follows a condition is off by little.
const POLL: Duration = Duration::from_millis(20);

/// Probes until `probe` answers `Some` and returns its value; fails the test, naming `what`,
/// when that has not happened within `within`.
pub async fn eventually<T, F, Fut>(within: Duration, what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + within;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}: not within {within:?}");
        tokio::time::sleep(POLL).await;
    }
}
