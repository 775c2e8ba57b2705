//! The attempt log of deliveries: read newest first, purged after the retention period.

use domain::{DeliveryId, EventId, Timestamp};

use crate::engine::{read, write_pool};
use crate::{DeliveryAttemptRecord, KeysetPage, Store, StoreError};

const ATTEMPT_COLUMNS: &str = DeliveryAttemptRecord::COLUMNS;

/// Rows deleted per statement when purging: a long backlog is worked off in short
/// statements, so the single SQLite writer is never held for long.
const PURGE_BATCH: i64 = 5_000;

impl Store {
    /// A page of the attempts of `delivery`, newest first (`started_at`, then `id`).
    pub async fn delivery_attempts(
        &self,
        delivery: DeliveryId,
        page: &KeysetPage,
    ) -> Result<Vec<DeliveryAttemptRecord>, StoreError> {
        let (at, id) = page.bounds();
        let sql = format!(
            "SELECT {ATTEMPT_COLUMNS} FROM delivery_attempts
             WHERE delivery_id = $1 AND (started_at, id) < ($2, $3)
             ORDER BY started_at DESC, id DESC LIMIT $4"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(delivery)
            .bind(at)
            .bind(id)
            .bind(page.fetch())
            .fetch_all(c)
            .await?))
    }

    /// The exact body every attempt of the event's deliveries sends.
    pub async fn event_payload(&self, event: EventId) -> Result<Option<String>, StoreError> {
        Ok(read!(self, |c| sqlx::query_scalar(
            "SELECT payload FROM events WHERE id = $1"
        )
        .bind(event)
        .fetch_optional(c)
        .await?))
    }

    /// Deletes the attempts that started before `before`, a batch per statement; returns how
    /// many.
    pub async fn purge_delivery_attempts(&self, before: Timestamp) -> Result<u64, StoreError> {
        let mut purged = 0;
        loop {
            let deleted = write_pool!(self, |c| sqlx::query(
                "DELETE FROM delivery_attempts WHERE id IN (
                     SELECT id FROM delivery_attempts WHERE started_at < $1 LIMIT $2)"
            )
            .bind(before)
            .bind(PURGE_BATCH)
            .execute(c)
            .await?
            .rows_affected());
            purged += deleted;
            if deleted < PURGE_BATCH as u64 {
                return Ok(purged);
            }
        }
    }
}
