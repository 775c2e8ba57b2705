//! Connections lent without a round trip on either side, on both engines: for statements
//! outside a transaction (reads and autocommit writes) and for transactions (see
//! [`crate::engine::Tx`]).
//!
//! sqlx's pool sends `Sync` (PostgreSQL) or a ping command to the connection's thread
//! (SQLite) and waits for the answer every time a connection comes back
//! (`Floating::return_to_pool`, "testing the connection on-release"), in a task it spawns: a
//! point read costs two round trips, two wake-ups of the server (or of the SQLite connection's
//! thread) and one of ours, and on SQLite's single writer the next transaction waits behind
//! that ping. Here a connection goes back as it is when its work ended well ([`Lent::settled`]),
//! and is dropped instead when it did not (an error, or the caller's future dropped
//! mid-statement or mid-transaction, which may leave it halfway through a conversation or
//! inside `BEGIN`): closing it ends whatever transaction it was in and releases its locks at
//! once, and the pool opens another. One idle for [`PING_IDLE_AFTER`] is pinged before it is
//! lent again, where a restarted server or a dropped socket would show.

use std::time::Duration;

use deadpool::managed::{self, Metrics, Object, RecycleError, RecycleResult};
use sqlx::{ConnectOptions, Connection};

use crate::StoreError;
use crate::direct::Direct;

/// A connection idle for this long is pinged before it is lent again.
pub(crate) const PING_IDLE_AFTER: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(crate) struct Manager<C: Connection> {
    options: C::Options,
}

/// A pooled connection; `conn` is `None` once work that did not end well dropped it.
pub(crate) struct Pooled<C> {
    // Declared before `conn`, so dropped before it: it refers to the connection.
    /// SQLite's writer: the handle taken from sqlx's thread (see `direct`), kept while the
    /// connection is idle so that the next transaction finds it, and its prepared statements,
    /// in place. Always `None` on other connections.
    direct: Option<Direct>,
    conn: Option<C>,
}

impl<C> Pooled<C> {
    /// The connection for sqlx, its handle given back to sqlx's thread first (a statement
    /// sent while this thread holds it would wait forever).
    fn for_sqlx(&mut self) -> Option<&mut C> {
        self.direct = None;
        self.conn.as_mut()
    }

    /// Drops the connection (and first what refers to it).
    fn discard(&mut self) {
        self.direct = None;
        self.conn = None;
    }
}

impl<C: Connection> managed::Manager for Manager<C> {
    type Type = Pooled<C>;
    type Error = sqlx::Error;

    async fn create(&self) -> Result<Pooled<C>, sqlx::Error> {
        Ok(Pooled {
            direct: None,
            conn: Some(self.options.connect().await?),
        })
    }

    async fn recycle(
        &self,
        pooled: &mut Pooled<C>,
        metrics: &Metrics,
    ) -> RecycleResult<sqlx::Error> {
        if pooled.conn.is_none() {
            return Err(RecycleError::message(
                "dropped after an error or mid-statement",
            ));
        }
        if metrics.last_used() >= PING_IDLE_AFTER
            && let Some(conn) = pooled.for_sqlx()
        {
            conn.ping().await?;
        }
        Ok(())
    }
}

/// The pool of lent connections.
pub(crate) struct LentPool<C: Connection>(managed::Pool<Manager<C>>);

impl<C: Connection> Clone for LentPool<C> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

impl<C: Connection> std::fmt::Debug for LentPool<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("LentPool").field(&self.0.status()).finish()
    }
}

impl<C: Connection> LentPool<C> {
    pub(crate) fn new(
        options: C::Options,
        size: usize,
        wait: Duration,
    ) -> Result<Self, StoreError> {
        managed::Pool::builder(Manager { options })
            .max_size(size.max(1))
            .wait_timeout(Some(wait))
            .create_timeout(Some(wait))
            .runtime(deadpool::Runtime::Tokio1)
            .build()
            .map(Self)
            .map_err(|e| StoreError::Corrupt(format!("connection pool: {e}")))
    }

    /// A connection for one piece of work; [`Lent::settled`] says it ended well.
    pub(crate) async fn lend(&self) -> Result<Lent<C>, StoreError> {
        use managed::PoolError;
        match self.0.get().await {
            Ok(pooled) => Ok(Lent {
                pooled,
                settled: false,
            }),
            Err(PoolError::Backend(e)) => Err(e.into()),
            Err(PoolError::Timeout(_)) => Err(sqlx::Error::PoolTimedOut.into()),
            Err(PoolError::Closed) => Err(sqlx::Error::PoolClosed.into()),
            Err(e) => Err(sqlx::Error::Io(std::io::Error::other(e.to_string())).into()),
        }
    }

    /// The most connections it holds.
    pub(crate) fn max_size(&self) -> usize {
        self.0.status().max_size
    }

    /// Opens connections now until the pool holds `n` (at most its size).
    pub(crate) async fn fill_to(&self, n: usize) -> Result<(), StoreError> {
        let mut lent_now = Vec::new();
        for _ in 0..n.min(self.max_size()) {
            lent_now.push(self.lend().await?);
        }
        lent_now.into_iter().for_each(Lent::settled);
        Ok(())
    }

    /// Closes the idle connections unused for `idle` beyond the first `keep`: a pool grows
    /// with its load and gives back to the server what a burst opened once it has passed.
    pub(crate) async fn shrink(&self, idle: Duration, keep: usize) {
        let mut kept = 0;
        let removed = self
            .0
            .retain(|_, metrics| {
                let stays = kept < keep || metrics.last_used() < idle;
                kept += usize::from(stays);
                stays
            })
            .removed;
        for mut pooled in removed {
            pooled.direct = None;
            if let Some(conn) = pooled.conn.take() {
                let _ = conn.close().await;
            }
        }
    }

    /// Shrinks the pool every `every` to its `keep` busiest connections plus those used within
    /// `idle`, for as long as the pool exists.
    pub(crate) fn keep_shrinking(&self, every: Duration, idle: Duration, keep: usize)
    where
        C: 'static,
    {
        let weak = self.0.weak();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks.tick().await;
            loop {
                ticks.tick().await;
                let Some(pool) = weak.upgrade() else { return };
                LentPool(pool).shrink(idle, keep).await;
            }
        });
    }

    /// Closes the idle connections, each as its engine ends a session, and every other one
    /// as it comes back.
    pub(crate) async fn close(&self) {
        let idle = self.0.retain(|_, _| false).removed;
        self.0.close();
        for mut pooled in idle {
            pooled.direct = None;
            if let Some(conn) = pooled.conn.take() {
                let _ = conn.close().await;
            }
        }
    }
}

/// A lent connection. Unless [`Lent::settled`] was called, dropping it closes the
/// connection there and then (after an error, or dropped mid-statement: the server ends
/// whatever transaction it was in and releases its locks at once), and the pool replaces it.
pub(crate) struct Lent<C: Connection> {
    pooled: Object<Manager<C>>,
    settled: bool,
}

impl<C: Connection> Lent<C> {
    /// The connection, for sqlx.
    pub(crate) fn conn(&mut self) -> Result<&mut C, StoreError> {
        self.pooled
            .for_sqlx()
            .ok_or(StoreError::Database(sqlx::Error::PoolClosed))
    }

    /// Says the work done with the connection ended well, so it can be lent again.
    pub(crate) fn settled(mut self) {
        self.settled = true;
    }
}

impl<C: Connection> Drop for Lent<C> {
    fn drop(&mut self) {
        if !self.settled {
            self.pooled.discard();
        }
    }
}

impl Lent<sqlx::sqlite::SqliteConnection> {
    /// The connection for statements run in place on this thread (see `direct`): one trip to
    /// sqlx's thread to take its handle, none when it was taken already.
    pub(crate) async fn direct(&mut self) -> Result<&rusqlite::Connection, StoreError> {
        let pooled = &mut *self.pooled;
        if pooled.direct.is_none() {
            let conn = pooled
                .conn
                .as_mut()
                .ok_or(StoreError::Database(sqlx::Error::PoolClosed))?;
            // SAFETY: `Pooled` declares `direct` before `conn`, and drops it before lending
            // `conn` to sqlx (`for_sqlx`) or dropping it (`discard`, `close`).
            pooled.direct = Some(unsafe { Direct::take(conn) }.await?);
        }
        match &pooled.direct {
            Some(direct) => Ok(direct.conn()),
            None => Err(StoreError::Database(sqlx::Error::PoolClosed)),
        }
    }

    /// True when this thread holds the connection's handle (see `direct`).
    pub(crate) fn is_direct(&self) -> bool {
        self.pooled.direct.is_some()
    }
}

#[cfg(test)]
mod tests {
    use sqlx::postgres::PgConnection;

    use super::*;

    async fn backend_pid(mut lent: Lent<PgConnection>) -> i32 {
        let pid = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(lent.conn().expect("conn"))
            .await
            .expect("pid");
        lent.settled();
        pid
    }

    #[tokio::test]
    async fn only_work_that_ended_well_lends_its_connection_again() {
        let Some(db) = testkit::TestDatabase::postgres().await else {
            return;
        };
        let options = db.url().parse().expect("url");
        let pool =
            LentPool::<PgConnection>::new(options, 1, Duration::from_secs(10)).expect("pool");
        let lend = || async { pool.lend().await.expect("lend") };

        let first = backend_pid(lend().await).await;
        assert_eq!(
            backend_pid(lend().await).await,
            first,
            "a settled connection is lent again, without a ping"
        );

        // Dropped mid-statement: the answer is still on its way on that socket.
        let mut lent = lend().await;
        let sleeping = sqlx::query("SELECT pg_sleep(5)").execute(lent.conn().expect("conn"));
        assert!(
            tokio::time::timeout(Duration::from_millis(200), sleeping)
                .await
                .is_err()
        );
        drop(lent);
        let second = backend_pid(lend().await).await;
        assert_ne!(
            second, first,
            "a connection dropped mid-statement is replaced"
        );

        // A statement that failed.
        let mut lent = lend().await;
        let failed = sqlx::query("SELECT * FROM no_such_table")
            .execute(lent.conn().expect("conn"))
            .await;
        assert!(failed.is_err());
        drop(lent);
        let third = backend_pid(lend().await).await;
        assert_ne!(third, second, "a connection whose work failed is replaced");

        // Dropped inside a transaction that holds a lock: the server ends it at once.
        db.execute("CREATE TABLE held (id int)").await;
        let mut lent = lend().await;
        for statement in ["BEGIN", "LOCK TABLE held IN ACCESS EXCLUSIVE MODE"] {
            sqlx::query(statement)
                .execute(lent.conn().expect("conn"))
                .await
                .expect(statement);
        }
        drop(lent);
        let gone = format!("SELECT count(*) FROM pg_stat_activity WHERE pid = {third}");
        let mut waited = Duration::ZERO;
        while db.count(&gone).await != 0 {
            assert!(
                waited < Duration::from_secs(2),
                "the backend still holds its lock"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
            waited += Duration::from_millis(20);
        }
        assert_eq!(
            db.count("SELECT count(*) FROM held").await,
            0,
            "the table is free"
        );
    }
}
