use domain::{DeliveryId, DeliveryStatus, EventId, EventType, Timestamp, WebhookId, WorkspaceId};
use sqlx::Row as _;

use crate::engine::{on_tx, read};
use crate::events::NewDelivery;
use crate::{
    DeliveryRecord, EventRecord, JsonText, KeysetPage, Store, StoreError, Tx, WebhookRecord,
};

const WEBHOOK_COLUMNS: &str = WebhookRecord::COLUMNS;
const DELIVERY_COLUMNS: &str = DeliveryRecord::COLUMNS;

#[derive(Clone, Debug)]
pub struct NewWebhook {
    pub workspace_id: WorkspaceId,
    pub url: String,
    pub events: Vec<EventType>,
    pub description: Option<String>,
    pub active: bool,
    /// The signing secret, already encrypted.
    pub secret: Vec<u8>,
}

/// Which deliveries of a subscription a list shows; `None` leaves a criterion out. The time
/// range is on `created_at`: `since` ≤ created_at < `until`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    pub status: Option<DeliveryStatus>,
    pub event_type: Option<EventType>,
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
}

/// What one call of [`Tx::recover_deliveries`] queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recovery {
    /// New deliveries queued (one per recovered original).
    pub queued: u64,
    /// True when the cap stopped the call: calling again recovers the rest.
    pub has_more: bool,
}

/// A partial update; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct WebhookChanges {
    pub url: Option<String>,
    pub events: Option<Vec<EventType>>,
    pub description: Option<Option<String>>,
    pub active: Option<bool>,
}

impl Store {
    /// A subscription that has not been deleted.
    pub async fn webhook(&self, id: WebhookId) -> Result<Option<WebhookRecord>, StoreError> {
        let sql =
            format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND deleted_at IS NULL");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(c)
            .await?))
    }

    pub async fn webhooks(
        &self,
        workspace: WorkspaceId,
        page: &KeysetPage,
    ) -> Result<Vec<WebhookRecord>, StoreError> {
        let (at, id) = page.bounds();
        let sql = format!(
            "SELECT {WEBHOOK_COLUMNS} FROM webhooks
             WHERE workspace_id = $1 AND deleted_at IS NULL AND (created_at, id) < ($2, $3)
             ORDER BY created_at DESC, id DESC LIMIT $4"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(workspace)
            .bind(at)
            .bind(id)
            .bind(page.fetch())
            .fetch_all(c)
            .await?))
    }

    pub async fn delivery(&self, id: DeliveryId) -> Result<Option<DeliveryRecord>, StoreError> {
        let sql = format!("SELECT {DELIVERY_COLUMNS} FROM deliveries WHERE id = $1");
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .fetch_optional(c)
            .await?))
    }

    /// A page of the deliveries of `subscription` that `filter` admits, newest first.
    pub async fn deliveries(
        &self,
        subscription: WebhookId,
        filter: &DeliveryFilter,
        page: &KeysetPage,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let (at, id) = page.bounds();
        let sql = format!(
            "SELECT {DELIVERY_COLUMNS} FROM deliveries
             WHERE subscription_id = $1 AND ($2 IS NULL OR status = $2)
               AND ($3 IS NULL OR event_type = $3)
               AND created_at >= $4 AND created_at < $5
               AND (created_at, id) < ($6, $7)
             ORDER BY created_at DESC, id DESC LIMIT $8"
        );
        Ok(read!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(subscription)
            .bind(filter.status)
            .bind(filter.event_type)
            .bind(filter.since.map_or(i64::MIN, Timestamp::micros))
            .bind(filter.until.map_or(i64::MAX, Timestamp::micros))
            .bind(at)
            .bind(id)
            .bind(page.fetch())
            .fetch_all(c)
            .await?))
    }
}

impl Tx {
    /// The workspace's subscriptions that are not deleted (paused ones count: they can be
    /// re-activated), counted for its quota: the count holds until commit (see
    /// [`Tx::lock_workspace`]).
    pub async fn live_webhooks(&mut self, workspace: WorkspaceId) -> Result<i64, StoreError> {
        self.lock_workspace(workspace).await?;
        Ok(on_tx!(self, |c| sqlx::query_scalar(
            "SELECT COUNT(*) FROM webhooks WHERE workspace_id = $1 AND deleted_at IS NULL"
        )
        .bind(workspace)
        .fetch_one(c)
        .await?))
    }

    /// Creates a subscription; an active one with the same URL in the workspace is a
    /// [`StoreError::Conflict`].
    pub async fn insert_webhook(
        &mut self,
        new: &NewWebhook,
        now: Timestamp,
    ) -> Result<WebhookRecord, StoreError> {
        let sql = format!(
            "INSERT INTO webhooks (id, workspace_id, url, events, active, description, created_at,
                 updated_at, secret)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8) RETURNING {WEBHOOK_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(WebhookId::generate())
            .bind(new.workspace_id)
            .bind(&new.url)
            .bind(JsonText(&new.events))
            .bind(new.active)
            .bind(new.description.as_deref())
            .bind(now)
            .bind(&new.secret)
            .fetch_one(c)
            .await
            .map_err(StoreError::from_write)?))
    }

    /// Applies a partial update. Re-activating clears the failure streak.
    pub async fn update_webhook(
        &mut self,
        id: WebhookId,
        changes: &WebhookChanges,
        now: Timestamp,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        let sql = format!(
            "UPDATE webhooks SET
                 url = COALESCE($2, url),
                 events = COALESCE($3, events),
                 description = CASE WHEN $4 THEN $5 ELSE description END,
                 failure_count = CASE WHEN $6 = TRUE AND NOT active THEN 0 ELSE failure_count END,
                 failing_since = CASE WHEN $6 = TRUE AND NOT active THEN NULL ELSE failing_since END,
                 active = COALESCE($6, active),
                 updated_at = $7
             WHERE id = $1 AND deleted_at IS NULL RETURNING {WEBHOOK_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(changes.url.as_deref())
            .bind(changes.events.as_ref().map(JsonText))
            .bind(changes.description.is_some())
            .bind(changes.description.clone().flatten())
            .bind(changes.active)
            .bind(now)
            .fetch_optional(c)
            .await
            .map_err(StoreError::from_write)?))
    }

    /// Deletes a subscription (kept for history, invisible to the API) and kills its
    /// deliveries that were still waiting for an attempt.
    pub async fn delete_webhook(
        &mut self,
        id: WebhookId,
        now: Timestamp,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        let sql = format!(
            "UPDATE webhooks SET deleted_at = $2, active = FALSE, updated_at = $2
             WHERE id = $1 AND deleted_at IS NULL RETURNING {WEBHOOK_COLUMNS}"
        );
        let deleted: Option<WebhookRecord> =
            on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(id)
                .bind(now)
                .fetch_optional(c)
                .await?);
        if deleted.is_some() {
            on_tx!(self, |c| sqlx::query(
                "UPDATE deliveries SET status = 'dead', next_attempt_at = NULL, updated_at = $2
                 WHERE subscription_id = $1 AND status IN ('pending', 'failed')"
            )
            .bind(id)
            .bind(now)
            .execute(c)
            .await?
            .rows_affected());
        }
        Ok(deleted)
    }

    /// Installs a new (encrypted) secret; the current one stays valid until `grace_until`.
    pub async fn rotate_webhook_secret(
        &mut self,
        id: WebhookId,
        new_secret: &[u8],
        grace_until: Timestamp,
        now: Timestamp,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        let sql = format!(
            "UPDATE webhooks SET previous_secret = secret, previous_secret_expires_at = $3,
                 secret = $2, updated_at = $4
             WHERE id = $1 AND deleted_at IS NULL RETURNING {WEBHOOK_COLUMNS}"
        );
        Ok(on_tx!(self, |c| sqlx::query_as(sqlx::AssertSqlSafe(sql))
            .bind(id)
            .bind(new_secret)
            .bind(grace_until)
            .bind(now)
            .fetch_optional(c)
            .await?))
    }

    /// A new delivery of an earlier delivery's event to the subscription's current URL.
    pub async fn replay_delivery(
        &mut self,
        subscription: &WebhookRecord,
        original: &DeliveryRecord,
        now: Timestamp,
    ) -> Result<DeliveryRecord, StoreError> {
        let event: EventRecord = on_tx!(self, |c| sqlx::query_as(
            "SELECT id, workspace_id, event_type, payload, created_at FROM events WHERE id = $1"
        )
        .bind(original.event_id)
        .fetch_one(c)
        .await?);
        self.insert_delivery(subscription, &event, true, now).await
    }

    /// Replays, once each, up to `cap` deliveries of `subscription` created at or after
    /// `since` whose status is `failed` or `dead` and that no earlier recovery replayed: each
    /// original is marked `recovered_at` and gets a new pending delivery of its event
    /// (`is_replay`, the subscription's current URL). Marking and replaying commit together;
    /// on PostgreSQL the originals are locked first, so a concurrent recovery waits and then
    /// skips what this one marked: no original is replayed twice.
    pub async fn recover_deliveries(
        &mut self,
        subscription: &WebhookRecord,
        since: Timestamp,
        cap: u32,
        now: Timestamp,
    ) -> Result<Recovery, StoreError> {
        let (lock, ids) = match self.inner {
            crate::engine::TxInner::Postgres(_) => {
                ("FOR UPDATE", "SELECT jsonb_array_elements_text($2::jsonb)")
            }
            crate::engine::TxInner::Sqlite(_) => ("", "SELECT value FROM json_each($2)"),
        };
        let select = format!(
            "SELECT id, event_id, event_type FROM deliveries
             WHERE subscription_id = $1 AND created_at >= $2
               AND status IN ('failed', 'dead') AND recovered_at IS NULL
             ORDER BY created_at, id LIMIT $3 {lock}"
        );
        // One past the cap, to tell whether more remain.
        let mut found: Vec<(DeliveryId, EventId, EventType)> =
            on_tx!(self, |c| sqlx::query(sqlx::AssertSqlSafe(select))
                .bind(subscription.id)
                .bind(since)
                .bind(i64::from(cap) + 1)
                .fetch_all(c)
                .await?
                .into_iter()
                .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
                .collect::<Result<_, sqlx::Error>>()?);
        let has_more = found.len() > cap as usize;
        found.truncate(cap as usize);
        if found.is_empty() {
            return Ok(Recovery {
                queued: 0,
                has_more,
            });
        }
        let marked: Vec<DeliveryId> = found.iter().map(|(id, _, _)| *id).collect();
        let mark = format!("UPDATE deliveries SET recovered_at = $1 WHERE id IN ({ids})");
        on_tx!(self, |c| sqlx::query(sqlx::AssertSqlSafe(mark))
            .bind(now)
            .bind(JsonText(&marked))
            .execute(c)
            .await?
            .rows_affected());
        let replays: Vec<NewDelivery<'_>> = found
            .into_iter()
            .map(|(_, event, event_type)| NewDelivery {
                subscription: subscription.id,
                workspace: subscription.workspace_id,
                event,
                event_type,
                url: &subscription.url,
            })
            .collect();
        self.insert_pending_deliveries(&replays, true, now).await?;
        Ok(Recovery {
            queued: replays.len() as u64,
            has_more,
        })
    }
}
