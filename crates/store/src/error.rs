#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A unique constraint refused the write (duplicate webhook URL, a second queued run…).
    #[error("unique constraint violated")]
    Conflict,
    #[error("database error: {0}")]
    Database(#[from] sqlx::Error),
    /// From the in-thread SQLite reads of `hot`.
    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("migration failed: {0}")]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// An idempotency claim was taken over by another request (its claimant stopped beating):
    /// the work done under it must roll back.
    #[error("the idempotency claim was taken over by another request")]
    ClaimLost,
    #[error("stored data is malformed: {0}")]
    Corrupt(String),
    #[error("unsupported database url (use sqlite://… or postgres://…)")]
    UnsupportedUrl,
}

impl StoreError {
    /// The database cannot be reached or has no connection to give right now (the server is
    /// down or restarting, every connection slot is taken, this node's pool stayed full): the
    /// same request may succeed a moment later, so the API answers 503 with `Retry-After`.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Database(e) => match e {
                sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
                // too_many_connections, cannot_connect_now, admin/crash shutdown.
                sqlx::Error::Database(db) => matches!(
                    db.code().as_deref(),
                    Some("53300" | "57P03" | "57P01" | "57P02")
                ),
                _ => false,
            },
            _ => false,
        }
    }

    /// Maps a constraint violation to [`StoreError::Conflict`] by its SQLSTATE/extended code,
    /// never by message text.
    pub(crate) fn from_write(e: sqlx::Error) -> Self {
        match &e {
            sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict,
            _ => StoreError::Database(e),
        }
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(e: serde_json::Error) -> Self {
        StoreError::Corrupt(e.to_string())
    }
}
