//! Point reads on SQLite answered on the calling thread.
//!
//! sqlx runs every SQLite connection on a thread of its own and hands each statement and each
//! row across channels; for a lookup by key that hand-off (two thread wake-ups) costs many
//! times the lookup itself. The reads on every request's path (the caller's token, a run by
//! id, a workspace by id) go instead through a small pool of rusqlite connections on the same
//! file: in WAL mode a reader never waits for the writer, and a cached prepared statement
//! answers in microseconds, so the async worker runs it in place. Everything else, and every
//! write, stays on sqlx. The conformance suite checks these reads on both engines.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Row};
use serde::de::DeserializeOwned;

use crate::StoreError;
use crate::json::JsonText;

/// Connections kept open between calls; more are opened while more callers read at once.
const IDLE_CONNECTIONS: usize = 8;

#[derive(Debug)]
pub(crate) struct HotReads {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl HotReads {
    pub(crate) fn new(path: PathBuf) -> Self {
        Self {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    fn connect(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        conn.busy_timeout(Duration::from_secs(5))?;
        conn.set_prepared_statement_cache_capacity(32);
        Ok(conn)
    }

    /// Runs one query that maps at most one row.
    pub(crate) fn one<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        map: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Option<T>, StoreError> {
        let pooled = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let conn = match pooled {
            Some(c) => c,
            None => self.connect()?,
        };
        let result = conn
            .prepare_cached(sql)
            .and_then(|mut stmt| stmt.query_row(params, map).optional());
        let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(conn);
        }
        Ok(result?)
    }
}

impl<T: DeserializeOwned> FromSql for JsonText<T> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        serde_json::from_str(value.as_str()?)
            .map(JsonText)
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}
