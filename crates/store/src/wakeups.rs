//! Wake-ups instead of polling. A worker waits on its queue's [`Wakeup`] (with a slow safety
//! poll) rather than asking the database every few milliseconds whether work arrived; a live
//! log follower waits on its run's [`RunChanges`](crate::RunChanges).
//!
//! Who wakes whom:
//! - **In this process**, on both engines: a transaction that queues work marks the queue
//!   (`Tx::wake`) and the mark fires once it commits, so the work is visible to the woken
//!   worker; autocommit statements fire right after they return.
//! - **Across processes**, on PostgreSQL: triggers (migration `0010_wakeups.sql`) send
//!   `NOTIFY` on the channels below in the transaction that writes the rows, so PostgreSQL
//!   delivers them when, and only if, it commits, whichever node or CLI made the change. Each
//!   PostgreSQL store opens one `LISTEN` connection ([`listen`]) the first time it waits,
//!   follows or remembers anything (`Store::listen_for_changes`), and turns the notifications
//!   back into the in-process signals. Any gap in listening (before the connection first
//!   listens, or a lost connection) fires every signal once it listens, since notifications
//!   sent meanwhile are lost.
//!
//! SQLite has one writer per file and this service writes it from one process (`serve`); a
//! second process on the same file (a CLI command) is seen at the next safety poll.

use std::sync::Arc;
use std::time::Duration;

use domain::RunId;
use sqlx::postgres::{PgListener, PgPool};
use tokio::sync::watch;

use crate::signals::RunSignals;

/// A queue of work that workers wait on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// Webhook deliveries were queued (new events, replays, recoveries, test events).
    Deliveries,
    /// Runs or drift checks were queued, or a run was handed back.
    Runs,
}

/// PostgreSQL channels: their names are the triggers' (migration `0010_wakeups.sql`).
pub(crate) const DELIVERIES_CHANNEL: &str = "cp_deliveries";
pub(crate) const RUNS_CHANNEL: &str = "cp_runs";
/// Payload: the id of the run whose status or log changed.
pub(crate) const RUN_CHANGED_CHANNEL: &str = "cp_run_changed";
/// Payload: the id of the token whose row changed.
pub(crate) const TOKENS_CHANNEL: &str = "cp_tokens";

/// The in-process side: one coalescing signal per queue.
#[derive(Debug)]
pub(crate) struct Wakeups {
    deliveries: watch::Sender<()>,
    runs: watch::Sender<()>,
}

impl Default for Wakeups {
    fn default() -> Self {
        Self {
            deliveries: watch::channel(()).0,
            runs: watch::channel(()).0,
        }
    }
}

impl Wakeups {
    fn sender(&self, queue: Queue) -> &watch::Sender<()> {
        match queue {
            Queue::Deliveries => &self.deliveries,
            Queue::Runs => &self.runs,
        }
    }

    pub(crate) fn wake(&self, queue: Queue) {
        self.sender(queue).send_replace(());
    }

    pub(crate) fn subscribe(&self, queue: Queue) -> Wakeup {
        Wakeup(self.sender(queue).subscribe())
    }
}

/// A worker's handle on its queue. Call [`Wakeup::arm`] before looking for work and
/// [`Wakeup::woken`] after finding none: a wake-up fired in between is not missed, and many
/// wake-ups while nobody waited wake once.
#[derive(Debug)]
pub struct Wakeup(watch::Receiver<()>);

impl Wakeup {
    /// Forgets the wake-ups so far: the next [`Wakeup::woken`] waits for a newer one.
    pub fn arm(&mut self) {
        self.0.mark_unchanged();
    }

    /// Resolves at the first wake-up since [`Wakeup::arm`].
    pub async fn woken(&mut self) {
        // The sender lives as long as the store does; without it, leave it to the safety poll.
        if self.0.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Told the id of a token whose row changed, or `None` when every cached token must go.
pub(crate) type ForgetToken = Arc<dyn Fn(Option<&str>) + Send + Sync>;

/// What the `LISTEN` connection passes on; `forget_token` hears each changed token's id, and
/// `None` when every cached token must go (the listener lost notifications).
#[derive(Clone)]
pub(crate) struct Dispatch {
    pub(crate) wakeups: Arc<Wakeups>,
    pub(crate) runs: Arc<RunSignals>,
    pub(crate) forget_token: ForgetToken,
}

impl Dispatch {
    fn everything(&self) {
        self.wakeups.wake(Queue::Deliveries);
        self.wakeups.wake(Queue::Runs);
        self.runs.changed_all();
        (self.forget_token)(None);
    }

    fn notification(&self, channel: &str, payload: &str) {
        match channel {
            DELIVERIES_CHANNEL => self.wakeups.wake(Queue::Deliveries),
            RUNS_CHANNEL => self.wakeups.wake(Queue::Runs),
            RUN_CHANGED_CHANNEL => match payload.parse::<RunId>() {
                Ok(run) => self.runs.changed(run),
                Err(_) => self.runs.changed_all(),
            },
            TOKENS_CHANNEL => (self.forget_token)(Some(payload)),
            _ => {}
        }
    }
}

/// Listens on every channel until the pool closes, passing notifications on. Each time
/// `LISTEN` is in place (the first time too), everything is woken: what was committed while
/// nobody listened was not heard. Returns when the pool is closed.
/// `in_place` says whether `LISTEN` is in place.
pub(crate) async fn listen(pool: PgPool, dispatch: Dispatch, in_place: watch::Sender<bool>) {
    const CHANNELS: [&str; 4] = [
        DELIVERIES_CHANNEL,
        RUNS_CHANNEL,
        RUN_CHANGED_CHANNEL,
        TOKENS_CHANNEL,
    ];
    let mut listener: Option<PgListener> = None;
    loop {
        let active = match listener.as_mut() {
            Some(l) => l,
            None => {
                let connected = async {
                    let mut l = PgListener::connect_with(&pool).await?;
                    l.listen_all(CHANNELS).await?;
                    Ok::<_, sqlx::Error>(l)
                };
                match connected.await {
                    Ok(l) => {
                        dispatch.everything();
                        in_place.send_replace(true);
                        listener.insert(l)
                    }
                    Err(sqlx::Error::PoolClosed) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot LISTEN for wake-ups; retrying");
                        tokio::time::sleep(Duration::from_secs(1)).await;
                        continue;
                    }
                }
            }
        };
        match active.try_recv().await {
            Ok(Some(n)) => dispatch.notification(n.channel(), n.payload()),
            // The connection was lost and made again: notifications in between are lost.
            Ok(None) => {
                tracing::info!("the LISTEN connection was lost and made again");
                dispatch.everything();
            }
            Err(sqlx::Error::PoolClosed) => return,
            Err(e) => {
                tracing::warn!(error = %e, "the LISTEN connection failed; reconnecting");
                in_place.send_replace(false);
                listener = None;
                dispatch.everything();
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        }
    }
}
