//! Live run logs: a run's log as a Server-Sent Events stream that a client resumes with
//! `Last-Event-ID`, woken by the changes this process commits and a slow safety poll, with a
//! bounded number of streams per token and a bounded lifetime per stream.

use axum::http::header;
use axum::response::sse::{Event, KeepAlive, Sse};
use domain::{RunId, TokenId};
use operations::live_log::StreamSlot;
use operations::views;

use crate::error::{ApiError, ErrorType};
use crate::state::AppState;

/// When a client refused for holding too many streams may try again.
const STREAMS_RETRY_AFTER_SECS: u64 = 5;

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

/// Streams a run's log from `after` on as Server-Sent Events (the JSON of each event, its
/// `seq` as the event id) until the run has finished and its last event was sent, or for the
/// stream's lifetime (see `Operations::follow_log`).
pub(crate) fn live_log(
    state: AppState,
    run_id: RunId,
    after: i64,
    slot: StreamSlot<TokenId>,
) -> Sse<impl futures_util::Stream<Item = Result<Event, std::convert::Infallible>>> {
    use futures_util::StreamExt as _;
    let events = state
        .ops
        .follow_log(run_id, after, state.live_logs.limits.lifetime)
        .map(move |row| {
            let seq = row.seq;
            serde_json::to_string(&views::run_log_event(row))
                .map(|data| Event::default().id(seq.to_string()).data(data))
                .map_err(|e| tracing::error!(run = %run_id, seq, error = %e, "a log event could not be serialised"))
        })
        // The client resumes after the last event it got, and the failure is in the logs
        // rather than an empty event in the stream.
        .take_while(|event| std::future::ready(event.is_ok()))
        .filter_map(|event| std::future::ready(event.ok().map(Ok)))
        // Holds the stream's slot for as long as the client listens.
        .chain(futures_util::stream::once(async move {
            drop(slot);
            None
        }).filter_map(std::future::ready));
    Sse::new(events).keep_alive(KeepAlive::default())
}
