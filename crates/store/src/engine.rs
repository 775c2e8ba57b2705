use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use domain::{RunId, TokenId};
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{
    SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous,
};
use sqlx::{Postgres, Sqlite, Transaction};

use crate::StoreError;
use crate::hot::HotReads;
use crate::lent::{LentPool, PING_IDLE_AFTER};
use crate::principals::Principals;
use crate::signals::{RunChanges, RunSignals};
use crate::wakeups::{Dispatch, Queue, Wakeup, Wakeups};
use crate::writer::WriterRuntime;

/// Which engine a [`Store`] runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

#[derive(Clone, Debug)]
pub(crate) enum Pools {
    /// SQLite admits one writer at a time: a dedicated one-connection writer pool queues our
    /// own writes in-process instead of letting them collide on SQLITE_BUSY.
    Sqlite {
        reader: SqlitePool,
        writer: SqlitePool,
        /// In-thread point reads on the request path (see `hot`); `None` for `:memory:`.
        hot: Option<Arc<HotReads>>,
        /// Where hot write transactions run (see `writer`).
        runtime: Arc<WriterRuntime>,
    },
    Postgres {
        /// Transactions.
        pool: PgPool,
        /// Statements outside a transaction (see `lent`).
        lent: LentPool,
    },
}

/// The handle every part of the service shares; cheap to clone.
#[derive(Clone, Debug)]
pub struct Store {
    pub(crate) pools: Pools,
    signals: Arc<RunSignals>,
    wakeups: Arc<Wakeups>,
    /// PostgreSQL: the one connection that `LISTEN`s (see `wakeups`), kept out of the pool
    /// and opened on first need (see [`Store::listen_for_changes`]).
    listening: Option<Arc<Listening>>,
    /// The tokens this node authenticated (see `principals`).
    pub(crate) principals: Arc<Principals>,
}

/// The `LISTEN` connection's pool, and whether it was started.
#[derive(Debug)]
struct Listening {
    pool: PgPool,
    started: AtomicBool,
    /// True while `LISTEN` is in place.
    in_place: tokio::sync::watch::Sender<bool>,
}

/// What a [`Store::write`] closure returns: the work it does in the transaction it is lent.
pub type WriteFuture<'t, T, E> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, E>> + Send + 't>>;

/// A write transaction. On SQLite it starts with `BEGIN IMMEDIATE` so a read-then-write never
/// fails on a lock upgrade.
pub struct Tx {
    pub(crate) inner: TxInner,
    signals: Arc<RunSignals>,
    /// Runs this transaction changed: their followers are woken once it commits.
    changed_runs: Vec<RunId>,
    wakeups: Arc<Wakeups>,
    /// Queues this transaction added work to: their workers are woken once it commits.
    woken: Vec<Queue>,
    principals: Arc<Principals>,
    /// Tokens this transaction changed: this node forgets them once it commits.
    changed_tokens: Vec<TokenId>,
}

pub(crate) enum TxInner {
    Sqlite(Transaction<'static, Sqlite>),
    Postgres(Transaction<'static, Postgres>),
}

/// Runs `$body` with `$c` bound to the SQLite pool `$sqlite` (`reader` or `writer`) or the
/// PostgreSQL pool, whichever engine the store has.
macro_rules! on_pool {
    ($store:expr, $sqlite:ident, |$c:ident| $body:expr) => {
        match &$store.pools {
            $crate::engine::Pools::Sqlite { $sqlite, .. } => {
                let $c = $sqlite;
                $body
            }
            $crate::engine::Pools::Postgres { lent, .. } => {
                let mut lent = lent.lend().await?;
                let value = {
                    let $c = lent.conn()?;
                    $body
                };
                lent.settled();
                value
            }
        }
    };
}

/// Runs `$body` with `$c` bound to a reader pool of whichever engine the store has.
macro_rules! read {
    ($store:expr, |$c:ident| $body:expr) => {
        $crate::engine::on_pool!($store, reader, |$c| $body)
    };
}

/// Runs `$body` with `$c` bound to the transaction's connection.
macro_rules! on_tx {
    ($tx:expr, |$c:ident| $body:expr) => {
        match &mut $tx.inner {
            $crate::engine::TxInner::Sqlite(t) => {
                let $c = &mut **t;
                $body
            }
            $crate::engine::TxInner::Postgres(t) => {
                let $c = &mut **t;
                $body
            }
        }
    };
}

/// Runs `$body` with `$c` bound to the writer pool: one autocommit statement that needs no
/// transaction around it (on SQLite, one trip to the single writer instead of three).
macro_rules! write_pool {
    ($store:expr, |$c:ident| $body:expr) => {
        $crate::engine::on_pool!($store, writer, |$c| $body)
    };
}

pub(crate) use {on_pool, on_tx, read, write_pool};

/// Options for connecting; defaults suit a laptop.
#[derive(Clone, Debug)]
pub struct ConnectOptions {
    pub max_connections: u32,
    /// How long this node trusts what it read of an authenticated token (see
    /// [`Store::principal_by_hash`]); zero reads the token on every request.
    pub principal_cache_ttl: Duration,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            max_connections: 8,
            principal_cache_ttl: crate::principals::DEFAULT_PRINCIPAL_CACHE_TTL,
        }
    }
}

/// Creates a new SQLite database file readable by its owner only, before SQLite opens it:
/// SQLite gives the `-wal` and `-shm` files the mode of the database file, so all three stay
/// private whatever the process's umask. A file that already exists keeps its mode; a warning
/// says when others can read it.
fn create_private(path: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let mode = std::fs::metadata(path)
                .map_err(sqlx::Error::Io)?
                .permissions()
                .mode();
            if mode & 0o077 != 0 {
                tracing::warn!(
                    path = %path.display(),
                    mode = format_args!("{:o}", mode & 0o777),
                    "the database file is readable by other users; chmod 600 it"
                );
            }
            Ok(())
        }
        Err(e) => Err(sqlx::Error::Io(e).into()),
    }
}

impl Store {
    /// Connects to `sqlite://path` (created when missing) or `postgres://…`.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        Self::connect_with(url, ConnectOptions::default()).await
    }

    pub async fn connect_with(url: &str, opts: ConnectOptions) -> Result<Self, StoreError> {
        let principals = Arc::new(Principals::new(opts.principal_cache_ttl));
        if url.starts_with("sqlite:") {
            let base = SqliteConnectOptions::from_str(url)?
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(5))
                .foreign_keys(true)
                .create_if_missing(true)
                .pragma("temp_store", "memory");
            // sqlx renames an in-memory database to a shared-cache URI that a second library
            // cannot open: such a store keeps every read on sqlx.
            let in_memory = url.contains(":memory:") || url.contains("mode=memory");
            if !in_memory {
                create_private(base.get_filename())?;
            }
            let hot =
                (!in_memory).then(|| Arc::new(HotReads::new(base.get_filename().to_path_buf())));
            // No ping before each acquire: a local file cannot drop a connection, and on the
            // single writer every ping is one more round trip other writers wait behind.
            let writer = SqlitePoolOptions::new()
                .max_connections(1)
                .test_before_acquire(false)
                .connect_with(base.clone())
                .await?;
            let reader = SqlitePoolOptions::new()
                .test_before_acquire(false)
                .max_connections(opts.max_connections.max(1))
                .connect_with(base)
                .await?;
            Ok(Self {
                pools: Pools::Sqlite {
                    reader,
                    writer,
                    hot,
                    runtime: Arc::new(WriterRuntime::start()?),
                },
                signals: Arc::default(),
                wakeups: Arc::default(),
                listening: None,
                principals,
            })
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            // sqlx pings every pooled connection before lending it by default: one more round
            // trip per statement. Only a connection that sat idle for a while (where a restarted
            // server or a dropped socket would show) is pinged here.
            let pool = PgPoolOptions::new()
                .max_connections(opts.max_connections.max(2))
                .acquire_timeout(Duration::from_secs(10))
                .test_before_acquire(false)
                .before_acquire(|conn, meta| {
                    Box::pin(async move {
                        if meta.idle_for >= PING_IDLE_AFTER {
                            sqlx::Connection::ping(conn).await?;
                        }
                        Ok(true)
                    })
                })
                .connect(url)
                .await?;
            let listening = PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(Duration::from_secs(10))
                .connect_lazy(url)?;
            let store = Self {
                pools: Pools::Postgres {
                    pool,
                    lent: LentPool::new(
                        url.parse()?,
                        opts.max_connections.max(2) as usize,
                        Duration::from_secs(10),
                    )?,
                },
                signals: Arc::default(),
                wakeups: Arc::default(),
                listening: Some(Arc::new(Listening {
                    pool: listening,
                    started: AtomicBool::new(false),
                    in_place: tokio::sync::watch::Sender::new(false),
                })),
                principals,
            };
            Ok(store)
        } else {
            Err(StoreError::UnsupportedUrl)
        }
    }

    pub fn engine(&self) -> Engine {
        match self.pools {
            Pools::Sqlite { .. } => Engine::Sqlite,
            Pools::Postgres { .. } => Engine::Postgres,
        }
    }

    /// The in-thread SQLite reader, when this store has one.
    pub(crate) fn hot(&self) -> Option<&HotReads> {
        match &self.pools {
            Pools::Sqlite { hot, .. } => hot.as_deref(),
            Pools::Postgres { .. } => None,
        }
    }

    /// Applies the embedded migrations of this engine.
    pub async fn migrate(&self) -> Result<(), StoreError> {
        match &self.pools {
            Pools::Sqlite { writer, .. } => {
                sqlx::migrate!("./migrations/sqlite").run(writer).await?
            }
            Pools::Postgres { pool, .. } => {
                sqlx::migrate!("./migrations/postgres").run(pool).await?
            }
        }
        Ok(())
    }

    /// Runs `work` in one write transaction: it commits when `work` returns `Ok` and rolls back
    /// when it returns `Err`. This is the one way to write more than one statement, on both
    /// engines. The transaction runs to its end whatever happens to the caller: dropping the
    /// returned future (a client went away, a request timed out) neither cancels a statement
    /// in flight nor the commit (see [`Store::detached`]). On SQLite it runs on the writer
    /// thread (see `writer`), so no other writer waits while the task that holds the lock
    /// sits in a busy runtime's queue. Either way it runs inside the caller's tracing span, so
    /// what it logs carries the caller's context (a request's id).
    ///
    /// ```ignore
    /// store.write(move |tx| Box::pin(async move { tx.insert_workspace("A", None, now).await }))
    /// ```
    pub async fn write<T, E, F>(&self, work: F) -> Result<T, E>
    where
        F: for<'t> FnOnce(&'t mut Tx) -> WriteFuture<'t, T, E> + Send + 'static,
        T: Send + 'static,
        E: From<StoreError> + Send + 'static,
    {
        let store = self.clone();
        self.detached(async move {
            let mut tx = store.begin().await?;
            let value = work(&mut tx).await?;
            tx.commit().await?;
            Ok(value)
        })
        .await?
    }

    /// Runs `work` to its end in a task of its own, in the caller's tracing span: on the
    /// SQLite writer thread, where the writer answers fastest (see `writer`), or on the
    /// runtime for PostgreSQL. Dropping the returned future detaches the work instead of
    /// cancelling it, so a write never stops between two statements or inside one (a
    /// cancelled `BEGIN` also leaves a pooled PostgreSQL connection inside a transaction with
    /// sqlx 0.9.0; see [`Store::begin`]).
    pub(crate) async fn detached<Fut>(&self, work: Fut) -> Result<Fut::Output, StoreError>
    where
        Fut: std::future::Future + Send + 'static,
        Fut::Output: Send + 'static,
    {
        use tracing::Instrument;
        let work = work.instrument(tracing::Span::current());
        match &self.pools {
            Pools::Sqlite { runtime, .. } => runtime.run(work).await,
            Pools::Postgres { .. } => tokio::spawn(work).await.map_err(crashed),
        }
    }

    /// Starts a write transaction: for the store's own methods and its tests; everyone else
    /// writes through [`Store::write`].
    ///
    /// On PostgreSQL the `BEGIN` runs in a task of its own. sqlx 0.9.0 counts a transaction
    /// only once the server has answered its `BEGIN` (transact-rs/sqlx#4385, #4393, fixed by
    /// #4394 after the 0.9.0 release): a future dropped while `BEGIN` is in flight queues no
    /// `ROLLBACK`, and the pool hands the connection out again inside that transaction,
    /// holding its locks. The task always sees the answer, so a transaction begun for a
    /// caller that went away is dropped as a whole and rolled back.
    #[doc(hidden)]
    pub async fn begin(&self) -> Result<Tx, StoreError> {
        self.begin_with(None).await
    }

    /// [`Store::begin`], with `postgres_begin` (one or more statements sent in the one round
    /// trip of `BEGIN`, the first of them `BEGIN`) instead of a plain `BEGIN` on PostgreSQL.
    pub(crate) async fn begin_with(
        &self,
        postgres_begin: Option<&'static str>,
    ) -> Result<Tx, StoreError> {
        let inner = match &self.pools {
            Pools::Sqlite { writer, .. } => {
                TxInner::Sqlite(writer.begin_with("BEGIN IMMEDIATE").await?)
            }
            Pools::Postgres { pool, .. } => {
                let pool = pool.clone();
                let begun = tokio::spawn(async move {
                    match postgres_begin {
                        Some(statements) => pool.begin_with(statements).await,
                        None => pool.begin().await,
                    }
                });
                TxInner::Postgres(begun.await.map_err(crashed)??)
            }
        };
        Ok(Tx {
            inner,
            signals: Arc::clone(&self.signals),
            changed_runs: Vec::new(),
            wakeups: Arc::clone(&self.wakeups),
            woken: Vec::new(),
            principals: Arc::clone(&self.principals),
            changed_tokens: Vec::new(),
        })
    }

    /// What the PostgreSQL `LISTEN` connection wakes in this process.
    fn dispatch(&self) -> Dispatch {
        Dispatch {
            wakeups: Arc::clone(&self.wakeups),
            runs: Arc::clone(&self.signals),
            forget_token: {
                let principals = Arc::clone(&self.principals);
                Arc::new(move |token| match token.map(str::parse::<TokenId>) {
                    Some(Ok(id)) => principals.forget(id),
                    // Every token, or one whose id does not parse: forget them all.
                    _ => principals.forget_all(),
                })
            },
        }
    }

    /// Starts hearing what other nodes commit (PostgreSQL's `LISTEN`, see `wakeups`), once,
    /// the first time this process waits on a queue, follows a run or remembers a token: a
    /// one-shot command (`migrate`, `tokens create`) never opens the connection. Whatever was
    /// committed before the connection listens is made up for when it does: every queue and
    /// run follower is woken and every remembered token forgotten.
    pub(crate) fn listen_for_changes(&self) {
        let Some(listening) = &self.listening else {
            return;
        };
        if listening.started.load(Ordering::Acquire) {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if !listening.started.swap(true, Ordering::AcqRel) {
            runtime.spawn(crate::wakeups::listen(
                listening.pool.clone(),
                self.dispatch(),
                listening.in_place.clone(),
            ));
        }
    }

    /// Starts hearing other nodes (see [`Store::listen_for_changes`]) and waits, up to
    /// `within`, until it does; false if it does not yet. True at once on SQLite, which has
    /// no other nodes. `serve` and `worker` wait so before they answer or work.
    pub async fn listening(&self, within: Duration) -> bool {
        self.listen_for_changes();
        let Some(listening) = &self.listening else {
            return true;
        };
        let mut in_place = listening.in_place.subscribe();
        matches!(
            tokio::time::timeout(within, in_place.wait_for(|listens| *listens)).await,
            Ok(Ok(_))
        )
    }

    /// Opens every connection of the PostgreSQL pools now rather than on first use, so
    /// the first requests and claims of a starting `serve` or `worker` do not queue behind
    /// connects (about 90 ms each on a fresh database here: the delivery benchmark's steady
    /// p99 on PostgreSQL came from its first half second). Nothing to do on SQLite.
    pub async fn warm_up(&self) -> Result<(), StoreError> {
        let Pools::Postgres { pool, lent } = &self.pools else {
            return Ok(());
        };
        let mut lent_now = Vec::new();
        for _ in 0..lent.max_size() {
            lent_now.push(lent.lend().await?);
        }
        lent_now.into_iter().for_each(crate::lent::Lent::settled);
        let mut pooled_now = Vec::new();
        for _ in 0..pool.options().get_max_connections() {
            pooled_now.push(pool.acquire().await?);
        }
        drop(pooled_now);
        Ok(())
    }

    /// A handle to wait on `queue` with (see [`Wakeup`]).
    pub fn wakeup(&self, queue: Queue) -> Wakeup {
        self.listen_for_changes();
        self.wakeups.subscribe(queue)
    }

    /// Wakes the workers of `queue` after an autocommit statement added work to it.
    pub(crate) fn wake(&self, queue: Queue) {
        self.wakeups.wake(queue);
    }

    /// Follows the changes this process commits to `run` (see [`RunChanges`]).
    pub fn follow_run(&self, run: RunId) -> RunChanges {
        self.listen_for_changes();
        self.signals.follow(run)
    }

    /// Wakes the followers of a run changed by an autocommit statement.
    pub(crate) fn run_changed(&self, run: RunId) {
        self.signals.changed(run);
    }

    /// True when the database answers; used by `/readyz`.
    pub async fn ping(&self) -> bool {
        let answered = async {
            read!(self, |c| sqlx::query("SELECT 1")
                .execute(c)
                .await
                .map(drop)?);
            Ok::<_, StoreError>(())
        };
        answered.await.is_ok()
    }

    pub async fn close(&self) {
        match &self.pools {
            Pools::Sqlite { reader, writer, .. } => {
                reader.close().await;
                writer.close().await;
            }
            Pools::Postgres { pool, lent } => {
                lent.close();
                pool.close().await;
            }
        }
        if let Some(listening) = &self.listening {
            listening.pool.close().await;
        }
    }
}

/// What a task of the store that panicked (or was cancelled at shutdown) answers.
pub(crate) fn crashed(e: tokio::task::JoinError) -> StoreError {
    tracing::error!(error = %e, "a database task ended abnormally");
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

impl Tx {
    pub async fn commit(self) -> Result<(), StoreError> {
        match self.inner {
            TxInner::Sqlite(t) => t.commit().await?,
            TxInner::Postgres(t) => t.commit().await?,
        }
        for run in self.changed_runs {
            self.signals.changed(run);
        }
        for queue in self.woken {
            self.wakeups.wake(queue);
        }
        for token in self.changed_tokens {
            self.principals.forget(token);
        }
        Ok(())
    }

    /// Marks `queue` as given work by this transaction.
    pub(crate) fn wake(&mut self, queue: Queue) {
        if !self.woken.contains(&queue) {
            self.woken.push(queue);
        }
    }

    /// Marks `token` as changed by this transaction.
    pub(crate) fn token_changed(&mut self, token: TokenId) {
        self.changed_tokens.push(token);
    }

    /// Marks `run` as changed by this transaction.
    pub(crate) fn run_changed(&mut self, run: RunId) {
        if !self.changed_runs.contains(&run) {
            self.changed_runs.push(run);
        }
    }
}
