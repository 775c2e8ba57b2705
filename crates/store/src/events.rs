use std::fmt::Write;

use domain::{DeliveryId, DeliveryStatus, EventId, EventType, Timestamp, WebhookId, WorkspaceId};
use serde_json::json;

use crate::engine::on_tx;
use crate::{EventRecord, JsonText, StoreError, Tx, WebhookRecord};

/// Delivery rows per fan-out INSERT (3 bound values each, plus 5 shared): a workspace with
/// more matching subscriptions than this gets one statement per this many.
const FANOUT_ROWS_PER_INSERT: usize = 1_000;

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
        let targets: Vec<(WebhookId, String)> = subscriptions
            .into_iter()
            .filter(|(_, _, events)| events.0.contains(&event_type))
            .map(|(id, url, _)| (id, url))
            .collect();
        for chunk in targets.chunks(FANOUT_ROWS_PER_INSERT) {
            self.insert_fanout(&event, chunk, now).await?;
        }
        Ok(event)
    }

    /// One pending delivery of `event` to each of `targets` (subscription id, URL), in one
    /// INSERT without `RETURNING`: nothing the caller needs comes back.
    async fn insert_fanout(
        &mut self,
        event: &EventRecord,
        targets: &[(WebhookId, String)],
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if targets.is_empty() {
            return Ok(());
        }
        self.wake(crate::Queue::Deliveries);
        // $1–$5 are shared by every row; each row adds its id, subscription and URL.
        let mut sql = String::with_capacity(300 + targets.len() * 40);
        sql.push_str(
            "INSERT INTO deliveries (id, subscription_id, workspace_id, event_id, event_type,
                 status, attempts, target_url, is_replay, created_at, updated_at, next_attempt_at)
             VALUES ",
        );
        for i in 0..targets.len() {
            let n = 6 + i * 3;
            if i > 0 {
                sql.push_str(", ");
            }
            let _ = write!(
                sql,
                "(${n}, ${}, $1, $2, $3, $4, 0, ${}, FALSE, $5, $5, $5)",
                n + 1,
                n + 2
            );
        }
        on_tx!(self, |c| {
            let mut query = sqlx::query(sqlx::AssertSqlSafe(sql.clone()))
                .bind(event.workspace_id)
                .bind(event.id)
                .bind(event.event_type)
                .bind(DeliveryStatus::Pending)
                .bind(now);
            for (subscription, url) in targets {
                query = query
                    .bind(DeliveryId::generate())
                    .bind(*subscription)
                    .bind(url.as_str());
            }
            query.execute(c).await?.rows_affected()
        });
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
