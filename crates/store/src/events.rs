use domain::{DeliveryStatus, EventId, EventType, Timestamp, WorkspaceId};
use serde_json::json;

use crate::engine::on_tx;
use crate::{EventRecord, StoreError, Tx, WebhookRecord};

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
        let subscriptions: Vec<WebhookRecord> = on_tx!(self, |c| sqlx::query_as(
            "SELECT id, workspace_id, url, events, active, description, created_at, updated_at,
                    last_delivery_at, failure_count, failing_since, secret, previous_secret,
                    previous_secret_expires_at, deleted_at
             FROM webhooks WHERE workspace_id = $1 AND active AND deleted_at IS NULL"
        )
        .bind(workspace)
        .fetch_all(c)
        .await?);
        for sub in subscriptions
            .iter()
            .filter(|s| s.events.0.contains(&event_type))
        {
            self.insert_delivery(sub, &event, false, now).await?;
        }
        Ok(event)
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
        let event: EventRecord = on_tx!(self, |c| sqlx::query_as(
            "INSERT INTO events (id, workspace_id, event_type, payload, created_at)
             VALUES ($1, $2, $3, $4, $5)
             RETURNING id, workspace_id, event_type, payload, created_at"
        )
        .bind(id)
        .bind(workspace)
        .bind(event_type)
        .bind(&payload)
        .bind(now)
        .fetch_one(c)
        .await?);
        Ok(event)
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
