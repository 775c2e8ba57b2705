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
