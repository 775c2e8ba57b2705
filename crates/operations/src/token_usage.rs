//! When each token was last used (`last_used_at`), written off the request's path.
//!
//! Authentication already reads the token's row; when that row says the token has not been
//! noted in the last minute, the request hands the token's id to this node's writer with a
//! non-blocking `try_send` and goes on. The writer batches what arrives into one transaction
//! whose updates only move `last_used_at` forward when it is a minute old, so several nodes
//! noting the same token write it once. A full queue drops the note: it is a hint, and the
//! next request a minute later notes it again. A per-node memory of what was sent lets a
//! burst of requests send one note.

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::Mutex;
use std::time::Duration;

use domain::{Clock, Timestamp, TokenId};
use store::{Store, TokenRecord};
use tokio::sync::mpsc;

/// `last_used_at` is written at most this often per token.
pub const NOTE_EVERY: Duration = Duration::from_secs(60);
/// Notes waiting for the writer; more are dropped.
const QUEUE: usize = 1024;
/// Notes written in one transaction at most.
const BATCH: usize = 256;
/// Tokens the per-node memory holds before it forgets the ones noted over a minute ago.
const REMEMBERED: usize = 10_000;

/// The request side: notes that a token was used. Cheap to call on every request.
pub struct TokenUsage {
    clock: Clock,
    queue: mpsc::Sender<(TokenId, Timestamp)>,
    /// When this node last sent a note per token.
    sent: Mutex<HashMap<TokenId, Timestamp>>,
}

/// The writing side: run it beside the server with [`UsageWriter::run`].
pub struct UsageWriter {
    store: Store,
    queue: mpsc::Receiver<(TokenId, Timestamp)>,
}

/// A recorder and its writer.
pub fn token_usage(store: Store, clock: Clock) -> (TokenUsage, UsageWriter) {
    let (sender, receiver) = mpsc::channel(QUEUE);
    (
        TokenUsage {
            clock,
            queue: sender,
            sent: Mutex::new(HashMap::new()),
        },
        UsageWriter {
            store,
            queue: receiver,
        },
    )
}

impl TokenUsage {
    /// `token` (as authentication just read it) authenticated a request now. Never waits.
    pub fn used(&self, token: &TokenRecord) {
        let now = self.clock.timestamp();
        let stale_before = now.minus(NOTE_EVERY);
        if token.last_used_at.is_some_and(|at| at > stale_before) {
            return;
        }
        {
            let mut sent = self.sent.lock().unwrap_or_else(|p| p.into_inner());
            if sent.get(&token.id).is_some_and(|at| *at > stale_before) {
                return;
            }
            if sent.len() >= REMEMBERED {
                sent.retain(|_, at| *at > stale_before);
            }
            sent.insert(token.id, now);
        }
        if self.queue.try_send((token.id, now)).is_err() {
            // Dropped (the writer is behind or gone): let a later request try again.
            self.sent
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&token.id);
        }
    }
}

impl UsageWriter {
    /// Writes the notes as they come until `stop` resolves, then writes those already queued
    /// and returns.
    pub async fn run(mut self, stop: impl Future<Output = ()>) {
        let mut stop = pin!(stop);
        loop {
            let first = tokio::select! {
                biased;
                () = &mut stop => break,
                note = self.queue.recv() => match note {
                    Some(note) => note,
                    None => return,
                },
            };
            let batch = self.batch(first);
            self.write(batch).await;
        }
        self.queue.close();
        while let Ok(first) = self.queue.try_recv() {
            let batch = self.batch(first);
            self.write(batch).await;
        }
    }

    /// `first` and what else is queued, up to a batch; the latest note per token.
    fn batch(&mut self, first: (TokenId, Timestamp)) -> HashMap<TokenId, Timestamp> {
        let mut batch = HashMap::from([first]);
        while batch.len() < BATCH {
            match self.queue.try_recv() {
                Ok((id, at)) => {
                    let latest = batch.entry(id).or_insert(at);
                    *latest = (*latest).max(at);
                }
                Err(_) => break,
            }
        }
        batch
    }

    async fn write(&self, batch: HashMap<TokenId, Timestamp>) {
        let written = self
            .store
            .write(move |tx| {
                Box::pin(async move {
                    for (id, at) in batch {
                        tx.note_token_used(id, at, at.minus(NOTE_EVERY)).await?;
                    }
                    Ok::<_, store::StoreError>(())
                })
            })
            .await;
        if let Err(e) = written {
            tracing::warn!(error = %e, "could not note when tokens were last used");
        }
    }
}
