use domain::{DeliveryId, DeliveryStatus, EventId, EventType, Timestamp, WebhookId, WorkspaceId};
use serde_json::json;

use crate::deliveries::push_placeholder_rows;
use crate::engine::on_tx;
use crate::{EventRecord, JsonText, StoreError, Tx, WebhookRecord};

/// Delivery rows per multi-row INSERT: 11 bound values each, well under either engine's
/// limit of bound parameters (SQLite's is 32,766). More rows take one statement per this many.
const DELIVERY_ROWS_PER_INSERT: usize = 1_000;
const DELIVERY_COLUMNS: usize = 11;

/// One pending delivery to queue: an event, and the subscription (and URL) it goes to.
pub(crate) struct NewDelivery<'a> {
    pub(crate) subscription: WebhookId,
    pub(crate) workspace: WorkspaceId,
    pub(crate) event: EventId,
    pub(crate) event_type: EventType,
    pub(crate) url: &'a str,
}

impl Tx {
    /// Records an event in the outbox and, in the same transaction, one pending delivery for
    /// every active subscription of the workspace that lists its type. Committing the caller's
    /// state change commits both; rolling it back leaves no trace of either.
    pub async fn record_event(
        &mut self,
        workspace: WorkspaceId,
        event_type: EventType,
        data: serde_json::Value,
        now: Timestamp,
    ) -> Result<EventRecord, StoreError> {
        let event = self.insert_event(workspace, event_type, data, now).await?;
        // Only what a delivery row copies; the event types are filtered here, where the
        // stored list is already decoded, instead of in dialect-specific SQL.
        let subscriptions: Vec<(WebhookId, String, JsonText<Vec<EventType>>)> =
            on_tx!(self, |c| sqlx::query_as(
                "SELECT id, url, events FROM webhooks
                 WHERE workspace_id = $1 AND active AND deleted_at IS NULL"
            )
            .bind(workspace)
            .fetch_all(c)
            .await?);
        let rows: Vec<NewDelivery<'_>> = subscriptions
            .iter()
            .filter(|(_, _, events)| events.0.contains(&event_type))
            .map(|(subscription, url, _)| NewDelivery {
                subscription: *subscription,
                workspace,
                event: event.id,
                event_type,
                url,
            })
            .collect();
        self.insert_pending_deliveries(&rows, false, now).await?;
        Ok(event)
    }

    /// Pending deliveries, all created `now`, in multi-row INSERTs without `RETURNING`:
    /// nothing the caller needs comes back. The one way to queue many deliveries at once (an
    /// event's fan-out, a recovery's replays).
    pub(crate) async fn insert_pending_deliveries(
        &mut self,
        rows: &[NewDelivery<'_>],
        is_replay: bool,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.wake(crate::Queue::Deliveries);
        let engine = crate::deliveries::engine_of(self);
        for chunk in rows.chunks(DELIVERY_ROWS_PER_INSERT) {
            let mut sql = String::with_capacity(300 + chunk.len() * 40);
            sql.push_str(
                "INSERT INTO deliveries (id, subscription_id, workspace_id, event_id, event_type,
                     target_url, status, is_replay, created_at, updated_at, next_attempt_at)
                 VALUES ",
            );
            push_placeholder_rows(&mut sql, engine, 0, chunk.len(), DELIVERY_COLUMNS);
            on_tx!(self, |c| {
                let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()));
                for row in chunk {
                    query = query
                        .bind(DeliveryId::generate())
                        .bind(row.subscription)
                        .bind(row.workspace)
                        .bind(row.event)
                        .bind(row.event_type)
                        .bind(row.url)
                        .bind(DeliveryStatus::Pending)
                        .bind(is_replay)
                        .bind(now)
                        .bind(now)
                        .bind(now);
                }
                query.execute(c).await?.rows_affected()
            });
        }
        Ok(())
    }

    /// Records a test event for `subscription` alone: the event (its `data` as given, the
    /// caller marks it a test) and one pending delivery to that subscription, whatever event
    /// types it lists; no other subscription gets it.
    pub async fn record_test_event(
        &mut self,
        subscription: &WebhookRecord,
        event_type: EventType,
        data: serde_json::Value,
        now: Timestamp,
    ) -> Result<crate::DeliveryRecord, StoreError> {
        let event = self
            .insert_event(subscription.workspace_id, event_type, data, now)
            .await?;
        self.insert_delivery(subscription, &event, false, now).await
    }

    /// Writes the event's envelope (`id`, `type`, `timestamp`, `workspace_id`, `data`) to the
    /// outbox: the exact body its deliveries send.
    async fn insert_event(
        &mut self,
        workspace: WorkspaceId,
        event_type: EventType,
        data: serde_json::Value,
        now: Timestamp,
    ) -> Result<EventRecord, StoreError> {
        let id = EventId::generate();
        let payload = json!({
            "id": id,
            "type": event_type,
            "timestamp": now,
            "workspace_id": workspace,
            "data": data,
        })
        .to_string();
        on_tx!(self, |c| sqlx::query(
            "INSERT INTO events (id, workspace_id, event_type, payload, created_at)
             VALUES ($1, $2, $3, $4, $5)"
        )
        .bind(id)
        .bind(workspace)
        .bind(event_type)
        .bind(&payload)
        .bind(now)
        .execute(c)
        .await?
        .rows_affected());
        Ok(EventRecord {
            id,
            workspace_id: workspace,
            event_type,
            payload,
            created_at: now,
        })
    }

    pub(crate) async fn insert_delivery(
        &mut self,
        sub: &WebhookRecord,
        event: &EventRecord,
        is_replay: bool,
        now: Timestamp,
    ) -> Result<crate::DeliveryRecord, StoreError> {
        self.wake(crate::Queue::Deliveries);
        Ok(on_tx!(self, |c| sqlx::query_as(
            "INSERT INTO deliveries (id, subscription_id, workspace_id, event_id, event_type,
                 status, attempts, target_url, is_replay, created_at, updated_at, next_attempt_at)
             VALUES ($1, $2, $3, $4, $5, $6, 0, $7, $8, $9, $9, $9)
             RETURNING id, subscription_id, workspace_id, event_id, event_type, status, attempts,
                 last_status_code, target_url, is_replay, created_at, updated_at, next_attempt_at"
        )
        .bind(domain::DeliveryId::generate())
        .bind(sub.id)
        .bind(sub.workspace_id)
        .bind(event.id)
        .bind(event.event_type)
        .bind(DeliveryStatus::Pending)
        .bind(&sub.url)
        .bind(is_replay)
        .bind(now)
        .fetch_one(c)
        .await?))
    }
}
