//! A database of its own for each test. SQLite: a file in a temp dir, migrated by whoever opens
//! it first. PostgreSQL: a clone of a template database that is migrated once per set of
//! migrations, which is much faster than migrating every test's database.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::{Connection, FromRow, PgConnection};
use store::{Engine, Store};

const DEFAULT_POSTGRES_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";
/// Every database made here, templates included, starts with it: `.ci/run` drops `cp\_test\_%`
/// when it ends.
const PREFIX: &str = "cp_test_";
/// Held while a template is built, so that test processes starting together build it once.
const TEMPLATE_LOCK: i64 = 0x6370_7465_6d70;

/// The engine the suite runs on: PostgreSQL when `CONTENT_PIPELINE_TEST_ENGINE=postgres`,
/// SQLite otherwise.
pub fn selected_engine() -> Engine {
    match std::env::var("CONTENT_PIPELINE_TEST_ENGINE").as_deref() {
        Ok("postgres") => Engine::Postgres,
        _ => Engine::Sqlite,
    }
}

/// A test's database; clones share it (and a SQLite file's directory lives as long as one of
/// them does).
#[derive(Clone, Debug)]
pub struct TestDatabase {
    url: String,
    engine: Engine,
    _dir: Option<Arc<tempfile::TempDir>>,
}

/// Evaluates `$body` with `$pool` bound to a new pool of the database's engine, then closes it.
macro_rules! on_pool {
    ($db:expr, |$pool:ident| $body:expr) => {
        match $db.engine {
            Engine::Sqlite => {
                let $pool = sqlx::SqlitePool::connect(&$db.url)
                    .await
                    .expect("connect to the test database");
                let out = $body;
                $pool.close().await;
                out
            }
            Engine::Postgres => {
                let $pool = sqlx::PgPool::connect(&$db.url)
                    .await
                    .expect("connect to the test database");
                let out = $body;
                $pool.close().await;
                out
            }
        }
    };
}

impl TestDatabase {
    /// A database on [`selected_engine`]; `None` when that is PostgreSQL and it is skipped
    /// (see [`TestDatabase::postgres`]).
    pub async fn selected() -> Option<Self> {
        match selected_engine() {
            Engine::Sqlite => Some(Self::sqlite()),
            Engine::Postgres => Self::postgres().await,
        }
    }

    /// A SQLite file, not created yet, in a temp dir of its own.
    pub fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        Self {
            url: format!("sqlite://{}", dir.path().join("test.db").display()),
            engine: Engine::Sqlite,
            _dir: Some(Arc::new(dir)),
        }
    }

    /// A fresh, migrated PostgreSQL database on `CONTENT_PIPELINE_TEST_POSTGRES_URL`'s server
    /// (default `postgres://postgres@127.0.0.1:5432/postgres`). `None`, after a SKIPPED line,
    /// when no server answers, unless `CONTENT_PIPELINE_REQUIRE_POSTGRES=1` makes that a failure.
    pub async fn postgres() -> Option<Self> {
        let admin_url = std::env::var("CONTENT_PIPELINE_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| DEFAULT_POSTGRES_URL.to_owned());
        let mut admin = admin_connection(&admin_url).await?;
        let template = template_name();
        let name = format!("{PREFIX}{}", uuid::Uuid::now_v7().simple());
        ensure_template(&mut admin, &admin_url, &template).await;
        let clone = format!("CREATE DATABASE {name} TEMPLATE {template}");
        if let Err(e) = execute(&mut admin, &clone).await {
            // The template was dropped meanwhile (`.ci/run` cleans up): build it again, once.
            eprintln!("building the template database again after: {e}");
            ensure_template(&mut admin, &admin_url, &template).await;
            execute(&mut admin, &clone)
                .await
                .expect("clone the template database");
        }
        let _ = admin.close().await;
        Some(Self {
            url: database_url(&admin_url, &name),
            engine: Engine::Postgres,
            _dir: None,
        })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The database file, on SQLite.
    pub fn sqlite_file(&self) -> Option<PathBuf> {
        match self.engine {
            Engine::Sqlite => self.url.strip_prefix("sqlite://").map(PathBuf::from),
            Engine::Postgres => None,
        }
    }

    /// Runs one statement; returns the rows it changed.
    pub async fn execute(&self, sql: &str) -> u64 {
        self.try_execute(sql, &[])
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Runs one statement with text parameters (`$1`, `$2`, …) and gives the database's error
    /// back, for tests of the schema's constraints.
    pub async fn try_execute(&self, sql: &str, binds: &[&str]) -> Result<u64, sqlx::Error> {
        on_pool!(self, |pool| {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()));
            for value in binds {
                query = query.bind(*value);
            }
            query.execute(&pool).await.map(|r| r.rows_affected())
        })
    }

    /// Opens a transaction of its own on PostgreSQL and runs `sql` in it (a `LOCK TABLE …`):
    /// what it holds is held until the returned connection is dropped (which rolls back).
    pub async fn hold(&self, sql: &str) -> PgConnection {
        assert_eq!(self.engine, Engine::Postgres, "hold is for PostgreSQL");
        let mut conn = PgConnection::connect(&self.url).await.expect("connect");
        for statement in ["BEGIN", sql] {
            sqlx::raw_sql(sqlx::AssertSqlSafe(statement.to_owned()))
                .execute(&mut conn)
                .await
                .unwrap_or_else(|e| panic!("{statement}: {e}"));
        }
        conn
    }

    /// The single integer a query such as `SELECT COUNT(*) …` answers.
    pub async fn count(&self, sql: &str) -> i64 {
        on_pool!(self, |pool| {
            sqlx::query_scalar::<_, i64>(sqlx::AssertSqlSafe(sql.to_owned()))
                .fetch_one(&pool)
                .await
        })
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Every row of a query, as tuples (or any type both engines' rows convert to).
    pub async fn rows<T>(&self, sql: &str) -> Vec<T>
    where
        T: for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        on_pool!(self, |pool| {
            sqlx::query_as::<_, T>(sqlx::AssertSqlSafe(sql.to_owned()))
                .fetch_all(&pool)
                .await
        })
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}

async fn admin_connection(url: &str) -> Option<PgConnection> {
    let required = std::env::var("CONTENT_PIPELINE_REQUIRE_POSTGRES").as_deref() == Ok("1");
    let connected =
        match tokio::time::timeout(Duration::from_secs(3), PgConnection::connect(url)).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err("no answer within 3 s".to_owned()),
        };
    match connected {
        Ok(connection) => Some(connection),
        Err(e) if !required => {
            eprintln!(
                "SKIPPED: PostgreSQL is not reachable at {url} ({e}); set CONTENT_PIPELINE_REQUIRE_POSTGRES=1 to fail instead"
            );
            None
        }
        Err(e) => panic!("PostgreSQL is required but not reachable at {url}: {e}"),
    }
}

/// The template's name carries a hash of the migrations, so that changed migrations get a
/// template of their own instead of an outdated one.
fn template_name() -> String {
    // Read from the store's source: its migrator is private to it.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../store/migrations/postgres");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a migration file").path())
        .collect();
    files.sort();
    let mut hasher = std::hash::DefaultHasher::new();
    for file in files {
        file.file_name().hash(&mut hasher);
        std::fs::read(&file)
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()))
            .hash(&mut hasher);
    }
    format!("{PREFIX}template_{:016x}", hasher.finish())
}

/// Builds the template unless it exists. It is migrated under another name and renamed when
/// complete, so a template that exists is whole even if a test process died while building.
async fn ensure_template(admin: &mut PgConnection, admin_url: &str, template: &str) {
    if database_exists(admin, template).await {
        return;
    }
    advisory(admin, "SELECT pg_advisory_lock($1)").await;
    if !database_exists(admin, template).await {
        let building = format!("{template}_building");
        for sql in [
            format!("DROP DATABASE IF EXISTS {building}"),
            format!("CREATE DATABASE {building}"),
        ] {
            execute(admin, &sql)
                .await
                .unwrap_or_else(|e| panic!("{sql}: {e}"));
        }
        let store = Store::connect(&database_url(admin_url, &building))
            .await
            .expect("connect to the template database");
        store
            .migrate()
            .await
            .expect("migrate the template database");
        store.close().await;
        let rename = format!("ALTER DATABASE {building} RENAME TO {template}");
        execute(admin, &rename)
            .await
            .unwrap_or_else(|e| panic!("{rename}: {e}"));
    }
    advisory(admin, "SELECT pg_advisory_unlock($1)").await;
}

async fn database_exists(admin: &mut PgConnection, name: &str) -> bool {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)")
        .bind(name)
        .fetch_one(admin)
        .await
        .expect("look for a database")
}

async fn advisory(admin: &mut PgConnection, sql: &'static str) {
    sqlx::query(sql)
        .bind(TEMPLATE_LOCK)
        .execute(admin)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
}

async fn execute(admin: &mut PgConnection, sql: &str) -> Result<(), sqlx::Error> {
    sqlx::query(sqlx::AssertSqlSafe(sql.to_owned()))
        .execute(admin)
        .await
        .map(drop)
}

fn database_url(admin_url: &str, name: &str) -> String {
    let server = admin_url
        .rsplit_once('/')
        .map_or(admin_url, |(server, _)| server);
    format!("{server}/{name}")
}
