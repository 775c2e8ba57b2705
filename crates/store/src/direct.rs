//! SQLite writes whose statements run on the writer thread itself.
//!
//! sqlx runs each SQLite connection on a thread of its own: every statement is a message to
//! that thread and an answer back, two thread wake-ups. A keyed `POST …/runs` made five such
//! trips on the single writer (the claim; `BEGIN IMMEDIATE`, the run, the stored answer,
//! `COMMIT`), and on this kind of machine the wake-ups, not SQLite, were most of its cost.
//!
//! The writer connection's handle is therefore taken out of sqlx's thread
//! ([`SqliteConnection::lock_handle`], sqlx's own way to call SQLite directly) and the
//! statements written for it run in place through rusqlite on that handle: `BEGIN
//! IMMEDIATE`, `COMMIT`, the idempotency claim, the run trigger and the stored answer
//! ([`crate::Tx::direct`], [`crate::Store::write_direct`]). The handle stays taken while the
//! connection is idle in its pool (see `lent`), with rusqlite's prepared statements, so a
//! keyed POST crosses to sqlx's thread not at all. A statement written for sqlx (every
//! other one) gives the handle back first and runs on sqlx's thread as before: it is one
//! connection and one transaction whichever runs a statement, with the same locks,
//! savepoints and rollback.

use sqlx::sqlite::{LockedSqliteHandle, SqliteConnection};

use crate::StoreError;
use crate::lent::Lent;

/// How many statements a taken handle keeps prepared.
const PREPARED_STATEMENTS: usize = 32;

/// A connection's handle, taken from sqlx's thread until this is dropped.
pub(crate) struct Direct {
    // Declared before the guard, so its prepared statements are finalized while the handle is
    // still ours. `from_handle` does not own the handle: dropping it never closes it.
    conn: rusqlite::Connection,
    _guard: LockedSqliteHandle<'static>,
}

impl Direct {
    /// Takes `conn`'s handle: one trip to sqlx's thread, which then waits until this is
    /// dropped.
    ///
    /// # Safety
    ///
    /// The caller drops the returned value before `conn`, and before it uses `conn` again.
    pub(crate) async unsafe fn take(conn: &mut SqliteConnection) -> Result<Self, StoreError> {
        let handle = conn.lock_handle().await?;
        // SAFETY: the guard borrows the connection and, through it, the worker state that the
        // connection shares with its thread (in an `Arc`, so it does not move when the
        // connection does). The caller drops it before the connection and before using the
        // connection again (`lent::Pooled` declares it before the connection and drops it in
        // `Pooled::for_sqlx`): nothing else uses the connection while the guard lives, and
        // the guard never outlives the connection.
        let mut guard = unsafe {
            std::mem::transmute::<LockedSqliteHandle<'_>, LockedSqliteHandle<'static>>(handle)
        };
        let raw = guard.as_raw_handle().as_ptr();
        // SAFETY: `raw` is the open handle the guard holds; rusqlite does not own it
        // (`from_handle`, not `from_handle_owned`), and it is dropped before the guard.
        let conn = unsafe { rusqlite::Connection::from_handle(raw) }?;
        conn.set_prepared_statement_cache_capacity(PREPARED_STATEMENTS);
        Ok(Self {
            conn,
            _guard: guard,
        })
    }

    pub(crate) fn conn(&self) -> &rusqlite::Connection {
        &self.conn
    }
}

/// A write transaction's SQLite connection: its statements run in place or on sqlx's thread.
pub(crate) struct SqliteTx {
    lent: Lent<SqliteConnection>,
    /// True on the writer thread only (`writer::on_writer_thread`): a transaction begun
    /// elsewhere (`Store::begin` in a test, say) must not wait for SQLite's locks on a runtime
    /// thread. False for an in-memory database too: it lives in SQLite's shared cache, where
    /// a reader's table lock fails a write at once (`SQLITE_LOCKED`) instead of waiting,
    /// unless sqlx's unlock-notify loop runs the statement.
    in_place: bool,
}

impl SqliteTx {
    /// Starts `BEGIN IMMEDIATE` on `lent`, in place if `in_place`.
    pub(crate) async fn begin(
        mut lent: Lent<SqliteConnection>,
        in_place: bool,
    ) -> Result<Self, StoreError> {
        if in_place {
            lent.direct().await?.execute_batch("BEGIN IMMEDIATE")?;
        } else {
            sqlx::raw_sql("BEGIN IMMEDIATE")
                .execute(lent.conn()?)
                .await?;
        }
        Ok(Self { lent, in_place })
    }

    /// The connection for a statement written for sqlx.
    pub(crate) fn conn(&mut self) -> Result<&mut SqliteConnection, StoreError> {
        self.lent.conn()
    }

    /// The connection for statements run in place; `None` when they run on sqlx's thread.
    pub(crate) async fn direct(&mut self) -> Result<Option<&rusqlite::Connection>, StoreError> {
        match self.in_place {
            true => Ok(Some(self.lent.direct().await?)),
            false => Ok(None),
        }
    }

    /// Ends the transaction with `statement` (`COMMIT` or `ROLLBACK`), in place when this
    /// thread holds the handle, and, when that worked, settles the connection.
    pub(crate) async fn end(mut self, statement: &'static str) -> Result<(), StoreError> {
        if self.lent.is_direct() {
            self.lent.direct().await?.execute_batch(statement)?;
        } else {
            sqlx::raw_sql(statement).execute(self.lent.conn()?).await?;
        }
        self.lent.settled();
        Ok(())
    }
}

/// Maps a rusqlite error of a write: a unique constraint is [`StoreError::Conflict`], by its
/// extended code, as [`StoreError::from_write`] does for sqlx.
pub(crate) fn from_write(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error() {
        Some(err)
            if err.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || err.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY =>
        {
            StoreError::Conflict
        }
        _ => StoreError::Sqlite(e),
    }
}

/// Binds `values` to the parameters `$1`, `$2`… of a statement written for both engines.
/// SQLite numbers `$N` parameters by first appearance, not by `N`, so they are bound by name.
/// (rusqlite does not check that every parameter was bound: one left out reads as NULL.)
pub(crate) fn numbered<'a, const N: usize>(
    values: &[&'a dyn rusqlite::ToSql; N],
) -> Vec<(&'static str, &'a dyn rusqlite::ToSql)> {
    const NAMES: [&str; 16] = [
        "$1", "$2", "$3", "$4", "$5", "$6", "$7", "$8", "$9", "$10", "$11", "$12", "$13", "$14",
        "$15", "$16",
    ];
    const { assert!(N <= NAMES.len(), "more parameters than names") };
    NAMES.iter().copied().zip(values.iter().copied()).collect()
}
