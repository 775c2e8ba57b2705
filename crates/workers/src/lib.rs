//! The background workers. Each claims its work from the database with leases, so any number
//! of processes (`serve`, `worker`) can run them side by side and a crashed one's work is
//! picked up again; nothing one process holds in memory is needed by another.

pub mod deliveries;
pub mod drift;
pub mod forge;
pub mod polish;
pub mod publish;
pub mod repository;
pub mod runs;
pub mod sandbox;

use std::sync::Arc;
use std::time::Duration;

use domain::Clock;
use store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use deliveries::{DeliverySettings, DeliveryWorker};

/// Tells workers to stop: they claim nothing new, finish what is in flight and return.
#[derive(Clone, Debug)]
pub struct Shutdown(watch::Receiver<bool>);

/// The sending half of [`Shutdown`].
#[derive(Debug)]
pub struct ShutdownTrigger(watch::Sender<bool>);

/// A connected trigger and signal.
pub fn shutdown_channel() -> (ShutdownTrigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger(tx), Shutdown(rx))
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        self.0.send_replace(true);
    }
}

impl Shutdown {
    pub fn is_triggered(&self) -> bool {
        *self.0.borrow()
    }

    /// Resolves once the trigger fired (or was dropped).
    pub async fn wait(&mut self) {
        let _ = self.0.wait_for(|stop| *stop).await;
    }

    /// Sleeps for `d`, waking early on shutdown.
    pub async fn sleep(&mut self, d: Duration) {
        tokio::select! {
            _ = tokio::time::sleep(d) => {}
            _ = self.wait() => {}
        }
    }
}

/// What every worker needs.
#[derive(Clone)]
pub struct WorkerContext {
    pub store: Store,
    pub clock: Clock,
    /// The server key: the delivery worker derives the secrets key from it.
    pub server_key: [u8; 32],
    pub deliveries: DeliverySettings,
    pub runs: runs::RunWorkerConfig,
    /// The API's public address: links in event payloads (`runs_url`, …) point there.
    pub base_url: Arc<str>,
    /// Period of the drift checker; zero turns it off.
    pub drift_interval: Duration,
    /// The optional prose polish of generated articles.
    pub polish: Option<polish::PolishConfig>,
    /// How runs and drift checks are isolated in child processes.
    pub sandbox: sandbox::Sandbox,
    /// The use cases workers perform too (queueing the runs a forge push asks for).
    pub ops: operations::Operations,
}

/// The running workers of this process.
pub struct Workers {
    handles: Vec<(&'static str, JoinHandle<()>)>,
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error("could not build the webhook HTTP client: {0}")]
    HttpClient(String),
}

/// Starts every background worker of this process.
pub fn spawn_all(ctx: WorkerContext, shutdown: Shutdown) -> Result<Workers, WorkerError> {
    let deliveries = DeliveryWorker::new(&ctx)?;
    let mut handles = vec![
        ("deliveries", tokio::spawn(deliveries.run(shutdown.clone()))),
        (
            "commit statuses",
            tokio::spawn(forge::status_worker(ctx.clone(), shutdown.clone())),
        ),
        (
            "publish targets",
            tokio::spawn(publish::publish_worker(ctx.clone(), shutdown.clone())),
        ),
    ];
    if !ctx.drift_interval.is_zero() {
        handles.push((
            "drift",
            tokio::spawn(drift::drift_worker(ctx.clone(), shutdown.clone())),
        ));
    }
    if ctx.runs.concurrency > 0 {
        handles.push(("runs", tokio::spawn(runs::run_worker(ctx, shutdown))));
    }
    Ok(Workers { handles })
}

impl Workers {
    /// Waits until every worker has stopped (after the shutdown was triggered).
    pub async fn join(self) {
        for (name, handle) in self.handles {
            if let Err(e) = handle.await {
                tracing::error!(worker = name, error = %e, "worker ended abnormally");
            }
        }
    }
}

/// The longest an idle worker loop waits before it looks at its queue unprompted while this
/// process hears the other nodes (see [`safety_poll`]).
const HEARD_SAFETY_POLL: Duration = Duration::from_secs(30);

/// How long an idle worker loop waits at most before it looks at its queue without being
/// woken: `poll`, the configured safety poll. While the store hears what other nodes commit
/// (PostgreSQL with `LISTEN` in place) every queued job wakes the loop and a gap in hearing
/// wakes every loop, so the poll is only a backstop and waits [`HEARD_SAFETY_POLL`]: an idle
/// cluster then costs the database a transaction every few seconds, not several a second.
pub(crate) fn safety_poll(store: &store::Store, poll: Duration) -> Duration {
    if store.hears_other_nodes() {
        poll.max(HEARD_SAFETY_POLL)
    } else {
        poll
    }
}

/// How long a worker whose queue is empty waits: until `next_due` (the earliest time a job of
/// its queue falls due, if the store could say), at most `poll`; a wake-up may end it sooner.
pub(crate) fn wait_until_due(
    next_due: Result<Option<domain::Timestamp>, store::StoreError>,
    clock: &Clock,
    poll: Duration,
) -> Duration {
    let Ok(Some(due)) = next_due else {
        return poll;
    };
    let now = clock.timestamp();
    if due <= now {
        return Duration::ZERO;
    }
    due.duration_since(now).min(poll)
}
