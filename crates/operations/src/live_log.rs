//! Following a run's log as it is written: the core of the API's Server-Sent Events stream and
//! of the portal's live log, which only format the events differently; and the slots that bound
//! how many streams each holder (a token, a person) keeps open in this process.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::{RunId, TokenId};
use futures_util::Stream;
use store::RunEventRecord;

use crate::Operations;

/// How often an idle stream reads the database anyway: a run executed by another process
/// (another node on PostgreSQL) signals nothing in this one.
const SAFETY_POLL: Duration = Duration::from_secs(2);
/// Events read per query.
const BATCH: i64 = 100;

/// What a stream carries from one step to the next.
struct Following {
    ops: Operations,
    run_id: RunId,
    after: i64,
    done: bool,
    pending: VecDeque<RunEventRecord>,
    changes: store::RunChanges,
    ends_at: tokio::time::Instant,
    /// The server is stopping (see [`Operations::end_live_logs`]).
    stopping: tokio::sync::watch::Receiver<bool>,
}

impl Operations {
    /// Ends every live log stream of this process, now and from now on: the server is
    /// stopping, and its clients resume elsewhere with `Last-Event-ID`.
    pub fn end_live_logs(&self) {
        self.stopping.send_replace(true);
    }

    /// A run's log events after `after` (a `seq`), in order, as they are written. The stream
    /// ends once the run has finished and its last event was yielded, after `lifetime`, when
    /// the server stops ([`Operations::end_live_logs`]), or at a database error (the client
    /// resumes from the last event it got, on this node or another). It reads the
    /// database when this process commits a change to the run, and every few seconds for
    /// changes made elsewhere.
    pub fn follow_log(
        &self,
        run_id: RunId,
        after: i64,
        lifetime: Duration,
    ) -> impl Stream<Item = RunEventRecord> + Send + use<> {
        let following = Following {
            // Followed before the first read, so no change between that read and the first
            // wait goes unnoticed.
            changes: self.store.follow_run(run_id),
            ends_at: tokio::time::Instant::now() + lifetime,
            stopping: self.stopping.subscribe(),
            ops: self.clone(),
            run_id,
            after,
            done: false,
            pending: VecDeque::new(),
        };
        futures_util::stream::unfold(following, |mut f| async move {
            loop {
                if let Some(event) = f.pending.pop_front() {
                    return Some((event, f));
                }
                if f.done || *f.stopping.borrow() || tokio::time::Instant::now() >= f.ends_at {
                    return None;
                }
                metrics::counter!("run_log_stream_reads_total").increment(1);
                // Read the status before the events: a run that finished after this read
                // still has all its events visible to the next read.
                let finished = matches!(
                    f.ops.store.run(f.run_id).await,
                    Ok(Some(r)) if r.status.is_finished()
                );
                match f.ops.store.run_events(f.run_id, f.after, BATCH).await {
                    Ok(rows) if !rows.is_empty() => {
                        if let Some(last) = rows.last() {
                            f.after = last.seq;
                        }
                        f.pending.extend(rows);
                    }
                    Ok(_) if finished => f.done = true,
                    Ok(_) => {
                        tokio::select! {
                            _ = f.changes.changed() => {}
                            _ = tokio::time::sleep(SAFETY_POLL) => {}
                            _ = tokio::time::sleep_until(f.ends_at) => {}
                            _ = f.stopping.changed() => {}
                        }
                    }
                    Err(e) => {
                        tracing::warn!(run = %f.run_id, error = %e, "a live log stream stopped at a database error");
                        f.done = true;
                    }
                }
            }
        })
    }
}

/// How many live log streams a token may hold and how long each lasts; from configuration.
#[derive(Clone, Copy, Debug)]
pub struct LiveLogLimits {
    /// Streams open at once per token in one process.
    pub per_token: usize,
    /// A stream ends after this long; the client resumes with `Last-Event-ID`.
    pub lifetime: Duration,
}

/// The live log streams open in this process, per holder: a token for the API, a person for
/// the portal.
#[derive(Debug)]
pub struct LiveLogs<K = TokenId> {
    pub limits: LiveLogLimits,
    open: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: std::hash::Hash + Eq + Copy> LiveLogs<K> {
    pub fn new(limits: LiveLogLimits) -> Self {
        Self {
            limits,
            open: Arc::default(),
        }
    }

    /// A slot for one more stream of `holder`, or `None` when it holds its maximum.
    pub fn open(&self, holder: K) -> Option<StreamSlot<K>> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(holder).or_default();
        if *n >= self.limits.per_token {
            return None;
        }
        *n += 1;
        Some(StreamSlot {
            holder,
            open: Arc::clone(&self.open),
        })
    }
}

/// Held by a stream for as long as it is open (the client going away drops it too).
pub struct StreamSlot<K: std::hash::Hash + Eq = TokenId> {
    holder: K,
    open: Arc<Mutex<HashMap<K, usize>>>,
}

impl<K: std::hash::Hash + Eq> Drop for StreamSlot<K> {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.holder) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.holder);
            }
        }
    }
}
