//! In-process wake-ups for readers that follow a run (the live log stream). The store's write
//! functions signal a run once the change is committed and visible, so a follower reads again
//! at once instead of polling the database. A write made by another node on PostgreSQL arrives
//! through `NOTIFY` (see `wakeups`); followers keep a slow safety poll as well.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use domain::RunId;
use tokio::sync::watch;

/// One channel per run that somebody follows; runs nobody follows cost nothing.
#[derive(Debug, Default)]
pub(crate) struct RunSignals {
    followed: Mutex<HashMap<RunId, watch::Sender<()>>>,
}

impl RunSignals {
    pub(crate) fn follow(self: &Arc<Self>, run: RunId) -> RunChanges {
        let mut followed = self.followed.lock().unwrap_or_else(|p| p.into_inner());
        let changes = followed
            .entry(run)
            .or_insert_with(|| watch::channel(()).0)
            .subscribe();
        RunChanges {
            changes,
            run,
            signals: Arc::clone(self),
        }
    }

    /// Wakes every follower of every run: changes may have been missed.
    pub(crate) fn changed_all(&self) {
        let followed = self.followed.lock().unwrap_or_else(|p| p.into_inner());
        for sender in followed.values() {
            sender.send_replace(());
        }
    }

    /// Wakes every follower of `run`; call only after the change is committed.
    pub(crate) fn changed(&self, run: RunId) {
        let followed = self.followed.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(sender) = followed.get(&run) {
            sender.send_replace(());
        }
    }
}

/// A follower's handle on one run: [`RunChanges::changed`] resolves once a change to the run
/// (an appended log event, a new status) was committed by this process since the handle was
/// made or last woke. Wake-ups coalesce: many changes while nobody waited wake once.
#[derive(Debug)]
pub struct RunChanges {
    changes: watch::Receiver<()>,
    run: RunId,
    signals: Arc<RunSignals>,
}

impl RunChanges {
    /// Forgets the changes so far: the next [`RunChanges::changed`] waits for a newer one.
    pub fn arm(&mut self) {
        self.changes.mark_unchanged();
    }

    pub async fn changed(&mut self) {
        // The sender lives in the map as long as this receiver does, so this cannot fail;
        // if it ever did, waiting forever leaves the caller to its safety poll.
        if self.changes.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for RunChanges {
    fn drop(&mut self) {
        let mut followed = self
            .signals
            .followed
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        // This receiver is still counted: it is dropped after this function returns.
        if followed
            .get(&self.run)
            .is_some_and(|sender| sender.receiver_count() <= 1)
        {
            followed.remove(&self.run);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_follower_wakes_on_a_change_and_the_last_one_out_cleans_up() {
        let signals = Arc::new(RunSignals::default());
        let run = RunId::generate();
        let mut first = signals.follow(run);
        let second = signals.follow(run);
        signals.changed(RunId::generate());
        let woke = tokio::time::timeout(Duration::from_millis(50), first.changed()).await;
        assert!(woke.is_err(), "another run's change does not wake this one");
        signals.changed(run);
        signals.changed(run);
        tokio::time::timeout(Duration::from_secs(1), first.changed())
            .await
            .expect("woken");
        drop(first);
        assert_eq!(signals.followed.lock().map(|m| m.len()).unwrap_or(0), 1);
        drop(second);
        assert_eq!(signals.followed.lock().map(|m| m.len()).unwrap_or(9), 0);
    }
}
