//! The thread that runs SQLite write transactions.
//!
//! SQLite admits one writer, so a write transaction holds the writer connection from `BEGIN`
//! to `COMMIT`. Each statement is a round trip to sqlx's connection thread; if the task that
//! holds the transaction then waits in the busy request runtime's queue behind other
//! requests before it sends the next statement, every other writer waits too. Write
//! transactions on hot paths therefore run on a runtime of their own, on one thread that does
//! nothing else: the task is polled the moment each statement answers.

use std::future::Future;
use std::thread;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;

use crate::StoreError;

thread_local! {
    static ON_WRITER_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True on the writer thread: where SQLite statements may run in place (see `direct`), since
/// a statement that waits there (for a lock another process holds, up to the busy timeout; for
/// a WAL checkpoint) holds up only other writes, never a runtime thread serving requests.
pub(crate) fn on_writer_thread() -> bool {
    ON_WRITER_THREAD.get()
}

#[derive(Debug)]
pub(crate) struct WriterRuntime {
    handle: Handle,
    /// Dropping it (with the last clone of the store) ends the thread.
    _stop: oneshot::Sender<()>,
}

impl WriterRuntime {
    pub(crate) fn start() -> Result<Self, StoreError> {
        let runtime = Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Corrupt(format!("writer runtime: {e}")))?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || {
                ON_WRITER_THREAD.set(true);
                runtime.block_on(async {
                    let _ = stopped.await;
                })
            })
            .map_err(|e| StoreError::Corrupt(format!("writer thread: {e}")))?;
        Ok(Self {
            handle,
            _stop: stop,
        })
    }

    /// Runs `work` on the writer thread, to its end: dropping the returned future (a request
    /// timed out, its client went away) detaches the work instead of cancelling it, so a
    /// transaction commits or rolls back as its work decides, never halfway.
    pub(crate) async fn run<Fut>(&self, work: Fut) -> Result<Fut::Output, StoreError>
    where
        Fut: Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        self.handle
            .spawn(work)
            .await
            .map_err(crate::engine::crashed)
    }
}
