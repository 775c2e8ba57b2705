//! Live run logs: a run's log as a Server-Sent Events stream that a client resumes with
//! `Last-Event-ID`, woken by the changes this process commits and a slow safety poll, with a
//! bounded number of streams per token and a bounded lifetime per stream.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use domain::{RunId, TokenId};
use operations::views;

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

/// How often an idle stream reads the database anyway: a run executed by another process
/// (another node on PostgreSQL) signals nothing in this one.
const SAFETY_POLL: Duration = Duration::from_secs(2);
/// When a client refused for holding too many streams may try again.
const STREAMS_RETRY_AFTER_SECS: u64 = 5;

/// How many live log streams a token may hold and how long each lasts; from configuration.
#[derive(Clone, Copy, Debug)]
pub struct LiveLogLimits {
    /// Streams open at once per token in one process.
    pub per_token: usize,
    /// A stream ends after this long; the client resumes with `Last-Event-ID`.
    pub lifetime: Duration,
}

/// The live log streams open in this process, per token.
#[derive(Debug)]
pub struct LiveLogs {
    pub limits: LiveLogLimits,
    open: Arc<Mutex<HashMap<TokenId, usize>>>,
}

impl LiveLogs {
    pub fn new(limits: LiveLogLimits) -> Self {
        Self {
            limits,
            open: Arc::default(),
        }
    }

    /// A slot for one more stream of `token`, or `None` when it holds its maximum.
    pub(crate) fn open(&self, token: TokenId) -> Option<StreamSlot> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(token).or_default();
        if *n >= self.limits.per_token {
            return None;
        }
        *n += 1;
        Some(StreamSlot {
            token,
            open: Arc::clone(&self.open),
        })
    }
}

/// Held by a stream for as long as it is open (the client going away drops it too).
pub(crate) struct StreamSlot {
    token: TokenId,
    open: Arc<Mutex<HashMap<TokenId, usize>>>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.token) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.token);
            }
        }
    }
}

pub(crate) fn too_many_streams(per_token: usize) -> ApiError {
    let retry = STREAMS_RETRY_AFTER_SECS.to_string();
    ApiError::new(
        ErrorType::RateLimited,
        format!(
            "This token already holds {per_token} live log streams, the most allowed at once; \
             close one or retry after {retry} s."
        ),
    )
    .with_header(header::RETRY_AFTER, &retry)
}

/// What a stream carries from one step to the next.
struct LiveLog {
    state: AppState,
    run_id: RunId,
    after: i64,
    done: bool,
    pending: std::collections::VecDeque<Event>,
    changes: store::RunChanges,
    ends_at: tokio::time::Instant,
    _slot: StreamSlot,
}

/// Streams a run's log from `after` on and ends once the run has finished and its last event
/// was sent, or at the stream's lifetime. It reads the database when this process commits a
/// change to the run, and every [`SAFETY_POLL`] for changes made elsewhere.
pub(crate) fn live_log(
    state: AppState,
    run_id: RunId,
    after: i64,
    slot: StreamSlot,
) -> Sse<impl futures_util::Stream<Item = Result<Event, std::convert::Infallible>>> {
    let live = LiveLog {
        // Followed before the first read, so no change between that read and the first wait
        // goes unnoticed.
        changes: state.store.follow_run(run_id),
        ends_at: tokio::time::Instant::now() + state.live_logs.limits.lifetime,
        state,
        run_id,
        after,
        done: false,
        pending: std::collections::VecDeque::new(),
        _slot: slot,
    };
    let stream = futures_util::stream::unfold(live, |mut live| async move {
        loop {
            if let Some(event) = live.pending.pop_front() {
                return Some((Ok(event), live));
            }
            if live.done || tokio::time::Instant::now() >= live.ends_at {
                return None;
            }
            metrics::counter!("run_log_stream_reads_total").increment(1);
            // Read the status before the events: a run that finished after this read still
            // has all its events visible to the next read.
            let finished = matches!(
                live.state.store.run(live.run_id).await,
                Ok(Some(r)) if r.status.is_finished()
            );
            match live
                .state
                .store
                .run_events(live.run_id, live.after, 100)
                .await
            {
                Ok(rows) if !rows.is_empty() => {
                    for row in rows {
                        let seq = row.seq;
                        match serde_json::to_string(&views::run_log_event(row)) {
                            Ok(data) => {
                                live.after = seq;
                                live.pending
                                    .push_back(Event::default().id(seq.to_string()).data(data));
                            }
                            // The client resumes after the last event it got, and the
                            // failure is in the logs rather than an empty event in the stream.
                            Err(e) => {
                                tracing::error!(run = %live.run_id, seq, error = %e, "a log event could not be serialised");
                                live.done = true;
                                break;
                            }
                        }
                    }
                }
                Ok(_) if finished => live.done = true,
                Ok(_) => {
                    tokio::select! {
                        _ = live.changes.changed() => {}
                        _ = tokio::time::sleep(SAFETY_POLL) => {}
                        _ = tokio::time::sleep_until(live.ends_at) => {}
                    }
                }
                Err(_) => live.done = true,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
