use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use domain::{RunId, TokenId};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode, SqliteSynchronous};

use crate::StoreError;
use crate::direct::SqliteTx;
use crate::hot::HotReads;
use crate::lent::{Lent, LentPool};
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
    /// own writes in-process instead of letting them collide on SQLITE_BUSY. Both pools lend
    /// their connections (see `lent`).
    Sqlite {
        reader: LentPool<SqliteConnection>,
        writer: LentPool<SqliteConnection>,
        /// In-thread point reads on the request path (see `hot`); `None` for `:memory:`, which
        /// also runs no statement in place on the writer (see `direct`).
        hot: Option<Arc<HotReads>>,
        /// Where hot write transactions run (see `writer`).
        runtime: Arc<WriterRuntime>,
        /// An in-memory database lives while one of its connections is open: this one keeps
        /// it whatever the pools close and reopen. `None` for a file.
        _anchor: Option<Arc<std::sync::Mutex<SqliteConnection>>>,
    },
    Postgres {
        /// Transactions.
        tx: LentPool<PgConnection>,
        /// Statements outside a transaction.
        lent: LentPool<PgConnection>,
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

/// A transaction's connection, lent (see `lent`) from `BEGIN` to `COMMIT` or `ROLLBACK`:
/// dropped before either (an error, a caller gone mid-statement, even mid-`BEGIN`), it is
/// closed, so the transaction ends with it and never goes back to a pool half done.
pub(crate) enum TxInner {
    Sqlite(SqliteTx),
    Postgres(Lent<PgConnection>),
}

/// Runs `$body` with `$c` bound to the SQLite pool `$sqlite` (`reader` or `writer`) or the
/// PostgreSQL pool, whichever engine the store has.
macro_rules! on_pool {
    ($store:expr, $sqlite:ident, |$c:ident| $body:expr) => {
        match &$store.pools {
            $crate::engine::Pools::Sqlite { $sqlite, .. } => {
                let mut lent = $sqlite.lend().await?;
                let value = {
                    let $c = lent.conn()?;
                    $body
                };
                lent.settled();
                value
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
                let $c = t.conn()?;
                $body
            }
            $crate::engine::TxInner::Postgres(t) => {
                let $c = t.conn()?;
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

/// How long work waits for a connection of a full pool (or for a new one to open).
const POOL_WAIT: Duration = Duration::from_secs(10);

/// PostgreSQL connections each pool opens at start and keeps however idle (the warm core);
/// beyond it a pool opens connections as work needs them, up to its size, and closes those
/// idle for [`IDLE_CLOSE`]. A process holds `2 × WARM_CORE + 1` (the `LISTEN` one) when idle,
/// and `2 × max_connections + 1` at most.
pub const WARM_CORE: usize = 2;
const IDLE_CLOSE: Duration = Duration::from_secs(60);
const SHRINK_EVERY: Duration = Duration::from_secs(15);

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
            let anchor = match in_memory {
                true => Some(Arc::new(std::sync::Mutex::new(
                    sqlx::ConnectOptions::connect(&base).await?,
                ))),
                false => None,
            };
            let writer = LentPool::new(base.clone(), 1, POOL_WAIT)?;
            let reader = LentPool::new(base, opts.max_connections.max(1) as usize, POOL_WAIT)?;
            // Opens the file now (creating it), so a database that cannot be opened fails here.
            writer.lend().await?.settled();
            Ok(Self {
                pools: Pools::Sqlite {
                    reader,
                    writer,
                    hot,
                    runtime: Arc::new(WriterRuntime::start()?),
                    _anchor: anchor,
                },
                signals: Arc::default(),
                wakeups: Arc::default(),
                listening: None,
                principals,
            })
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            let options: PgConnectOptions = url.parse()?;
            let size = opts.max_connections.max(2) as usize;
            let tx = LentPool::new(options.clone(), size, POOL_WAIT)?;
            // Connects now, so a server that does not answer fails here. One that answers but
            // has no connection to spare (every slot taken by other nodes) is not an error of
            // this node's configuration: it starts, and answers 503 until one is free.
            match tx.lend().await {
                Ok(lent) => lent.settled(),
                Err(e) if e.is_unavailable() => {
                    tracing::warn!(error = %e, "PostgreSQL has no connection to spare yet");
                }
                Err(e) => return Err(e),
            }
            let lent = LentPool::new(options, size, POOL_WAIT)?;
            tx.keep_shrinking(SHRINK_EVERY, IDLE_CLOSE, WARM_CORE);
            lent.keep_shrinking(SHRINK_EVERY, IDLE_CLOSE, WARM_CORE);
            let listening = PgPoolOptions::new()
                .max_connections(1)
                .acquire_timeout(Duration::from_secs(10))
                .connect_lazy(url)?;
            let store = Self {
                pools: Pools::Postgres { tx, lent },
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
                let mut lent = writer.lend().await?;
                sqlx::migrate!("./migrations/sqlite")
                    .run(lent.conn()?)
                    .await?;
                lent.settled();
            }
            Pools::Postgres { tx, .. } => {
                let mut lent = tx.lend().await?;
                sqlx::migrate!("./migrations/postgres")
                    .run(lent.conn()?)
                    .await?;
                lent.settled();
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
            match work(&mut tx).await {
                Ok(value) => {
                    tx.commit().await?;
                    Ok(value)
                }
                Err(e) => {
                    // Rolled back here, the connection is lent again; should the rollback
                    // fail, dropping the transaction closes its connection instead.
                    let _ = tx.rollback().await;
                    Err(e)
                }
            }
        })
        .await?
    }

    /// On SQLite, runs `work` on the writer connection in place, as one autocommit statement
    /// or more (see `direct`); `None` on PostgreSQL, where the caller runs its sqlx statements.
    /// `None` off the writer thread too (see [`Store::detached`]): a statement in place blocks
    /// its thread.
    pub(crate) async fn write_direct<T>(
        &self,
        work: impl FnOnce(&rusqlite::Connection) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let Pools::Sqlite { writer, .. } = &self.pools else {
            return Ok(None);
        };
        if !self.writes_in_place() {
            return Ok(None);
        }
        let mut lent = writer.lend().await?;
        let value = work(lent.direct().await?)?;
        lent.settled();
        Ok(Some(value))
    }

    /// True where SQLite writer statements may run in place (see `direct`): on a file (not
    /// `:memory:`, which has no `hot` reader either; see `SqliteTx::in_place`) and on the
    /// writer thread.
    fn writes_in_place(&self) -> bool {
        matches!(&self.pools, Pools::Sqlite { hot: Some(_), .. })
            && crate::writer::on_writer_thread()
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
    /// Its connection is lent (see `lent`): dropped before [`Tx::commit`] or [`Tx::rollback`],
    /// even while `BEGIN` is in flight, the transaction closes its connection, which ends it
    /// on the server and releases its locks. (sqlx 0.9.0's own transactions count a `BEGIN`
    /// only once the server has answered it, transact-rs/sqlx#4385 and #4393, fixed by #4394
    /// after the release: a future dropped while `BEGIN` was in flight queued no `ROLLBACK`,
    /// and its pool handed the connection out again inside that transaction.)
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
                let in_place = self.writes_in_place();
                TxInner::Sqlite(SqliteTx::begin(writer.lend().await?, in_place).await?)
            }
            Pools::Postgres { tx, .. } => {
                let mut lent = tx.lend().await?;
                sqlx::raw_sql(postgres_begin.unwrap_or("BEGIN"))
                    .execute(lent.conn()?)
                    .await?;
                TxInner::Postgres(lent)
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

    /// True while this process hears what other nodes commit (PostgreSQL's `LISTEN` is in
    /// place): every queued job then wakes its workers, and a gap in hearing wakes them all
    /// (see `wakeups`). Always false on SQLite, where a second process on the same file (a CLI
    /// command) is not heard.
    pub fn hears_other_nodes(&self) -> bool {
        self.listening
            .as_ref()
            .is_some_and(|listening| *listening.in_place.borrow())
    }

    /// Opens the warm core of each PostgreSQL pool ([`WARM_CORE`]) now rather than on first
    /// use, so the first requests and claims of a starting `serve` or `worker` do not queue
    /// behind connects (about 90 ms each on a fresh database here). The rest opens on demand,
    /// so eight processes fit PostgreSQL's default 100 connections with room to grow. Nothing
    /// to do on SQLite.
    pub async fn warm_up(&self) -> Result<(), StoreError> {
        let Pools::Postgres { tx, lent } = &self.pools else {
            return Ok(());
        };
        lent.fill_to(WARM_CORE).await?;
        tx.fill_to(WARM_CORE).await
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
            Pools::Postgres { tx, lent } => {
                lent.close().await;
                tx.close().await;
            }
        }
        if let Some(listening) = &self.listening {
            listening.pool.close().await;
        }
    }
}

impl TxInner {
    /// Ends the transaction with `statement` and, when that worked, settles its connection.
    async fn end(self, statement: &'static str) -> Result<(), StoreError> {
        match self {
            TxInner::Sqlite(tx) => tx.end(statement).await?,
            TxInner::Postgres(mut lent) => {
                sqlx::raw_sql(statement).execute(lent.conn()?).await?;
                lent.settled();
            }
        }
        Ok(())
    }
}

/// What a task of the store that panicked (or was cancelled at shutdown) answers.
pub(crate) fn crashed(e: tokio::task::JoinError) -> StoreError {
    tracing::error!(error = %e, "a database task ended abnormally");
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

impl Tx {
    pub async fn commit(self) -> Result<(), StoreError> {
        self.inner.end("COMMIT").await?;
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

    /// Undoes the transaction; its connection is lent again.
    pub async fn rollback(self) -> Result<(), StoreError> {
        self.inner.end("ROLLBACK").await
    }

    /// On SQLite, the transaction's connection for statements run in place on this thread
    /// (see `direct`); `None` on PostgreSQL, where the caller runs its sqlx statements.
    pub(crate) async fn direct(&mut self) -> Result<Option<&rusqlite::Connection>, StoreError> {
        match &mut self.inner {
            TxInner::Sqlite(tx) => tx.direct().await,
            TxInner::Postgres(_) => Ok(None),
        }
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
