//! A run's log, live: the Server-Sent Events stream of `GET /v1/runs/{id}/log`, reopened with
//! `Last-Event-ID` whenever it drops (a restarted node, a proxy's timeout, the stream's
//! lifetime) until the run has finished and its last event has arrived.

use std::pin::Pin;
use std::time::Duration;

use api_types::RunLogEvent;
use domain::RunId;
use eventsource_stream::Eventsource;
use futures_util::{Stream, StreamExt, stream};
use reqwest::header::ACCEPT;

use crate::Client;
use crate::call::error_of;
use crate::error::{Error, Result};

/// Reconnections in a row that may fail before the stream gives up.
const MAX_RECONNECTS: u32 = 5;

type Events = Pin<Box<dyn Stream<Item = Result<Option<RunLogEvent>>> + Send>>;

struct Follow {
    client: Client,
    run: RunId,
    last_seq: Option<i64>,
    events: Option<Events>,
    failures: u32,
    done: bool,
}

impl Client {
    /// Every event of the run's log from the start (or after `after_seq`), as it happens; the
    /// stream ends when the run has finished.
    pub fn follow_log(
        &self,
        run: &RunId,
        after_seq: Option<i64>,
    ) -> impl Stream<Item = Result<RunLogEvent>> + Send + use<> {
        let state = Follow {
            client: self.clone(),
            run: *run,
            last_seq: after_seq,
            events: None,
            failures: 0,
            done: false,
        };
        stream::unfold(state, |mut state| async move {
            let item = state.next().await?;
            Some((item, state))
        })
    }
}

impl Follow {
    async fn next(&mut self) -> Option<Result<RunLogEvent>> {
        loop {
            if self.done {
                return None;
            }
            let Some(events) = self.events.as_mut() else {
                match open(&self.client, self.run, self.last_seq).await {
                    Ok(events) => self.events = Some(events),
                    Err(e) => {
                        if let Some(wait) = self.give_up_or_wait(e) {
                            match wait {
                                Ok(wait) => tokio::time::sleep(wait).await,
                                Err(e) => return Some(Err(e)),
                            }
                        }
                    }
                }
                continue;
            };
            match events.next().await {
                Some(Ok(Some(event))) => {
                    self.failures = 0;
                    self.last_seq = Some(event.seq);
                    return Some(Ok(event));
                }
                // A keep-alive comment or an event with no data.
                Some(Ok(None)) => {}
                Some(Err(e)) => {
                    self.events = None;
                    if let Some(Err(e)) = self.give_up_or_wait(e) {
                        return Some(Err(e));
                    }
                }
                None => {
                    // The server ends the stream when the run has finished, or at the
                    // stream's lifetime: only the run's status tells which.
                    self.events = None;
                    match self.client.get_run(&self.run).await {
                        Ok(run) if run.status.is_finished() => self.done = true,
                        Ok(_) => {}
                        Err(e) => {
                            if let Some(Err(e)) = self.give_up_or_wait(e) {
                                return Some(Err(e));
                            }
                        }
                    }
                }
            }
        }
    }

    /// `Err` ends the stream with the error; `Ok(wait)` reconnects after `wait`.
    fn give_up_or_wait(&mut self, error: Error) -> Option<Result<Duration>> {
        self.failures += 1;
        let final_error = match &error {
            Error::Api { status, .. } | Error::Http { status, .. } => {
                *status != 429 && *status < 500
            }
            _ => false,
        };
        if final_error || self.failures > MAX_RECONNECTS {
            self.done = true;
            return Some(Err(error));
        }
        let retry_after = match &error {
            Error::Api { retry_after, .. } => *retry_after,
            _ => None,
        };
        Some(Ok(retry_after.unwrap_or_else(|| {
            Duration::from_millis(200 * 2u64.pow(self.failures))
        })))
    }
}

async fn open(client: &Client, run: RunId, last_seq: Option<i64>) -> Result<Events> {
    let inner = &client.inner;
    let mut request = inner
        .http
        .get(format!("{}/v1/runs/{run}/log", inner.base_url))
        .bearer_auth(&inner.token)
        .header(ACCEPT, "text/event-stream");
    if let Some(seq) = last_seq {
        request = request.header("Last-Event-ID", seq.to_string());
    }
    let response = request.send().await?;
    let status = response.status();
    if !status.is_success() {
        let headers = response.headers().clone();
        let body = response.bytes().await?;
        return Err(error_of(status, &headers, &body));
    }
    Ok(response
        .bytes_stream()
        .eventsource()
        .map(|event| match event {
            Ok(event) if event.data.is_empty() => Ok(None),
            Ok(event) => serde_json::from_str(&event.data)
                .map(Some)
                .map_err(Error::Decode),
            Err(eventsource_stream::EventStreamError::Transport(e)) => Err(Error::Transport(e)),
            Err(e) => Err(Error::Http {
                status: 200,
                body: format!("a malformed event stream: {e}"),
            }),
        })
        .boxed())
}
