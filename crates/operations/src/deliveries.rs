//! The webhook console's use cases on deliveries: list a subscription's deliveries by status,
//! event type and time, read a delivery's attempt log, send a test event, and recover the
//! failed deliveries since a time. The API's handlers and the portal's pages call these.

pub use api_types::{DeliveryAttempt, RecoverDeliveries, Recovered, SendTestEvent};
use store::{DeliveryFilter, DeliveryRecord, KeysetPage, Tx, WebhookRecord};

use crate::catalog;
use crate::error::{Error, Result};
use crate::{Operations, views};

/// The most deliveries one recovery replays; the answer's `has_more` says when more remain.
pub const RECOVERY_CAP: u32 = 10_000;

fn ensure_active(hook: &WebhookRecord, what: &str) -> Result<()> {
    if hook.active {
        Ok(())
    } else {
        Err(Error::conflict(format!(
            "The subscription is inactive; activate it before {what}."
        )))
    }
}

impl Operations {
    /// A page of the deliveries of `hook` that `filter` admits, newest first: up to
    /// `page.limit + 1` records (the extra one says another page follows).
    pub async fn deliveries(
        &self,
        hook: &WebhookRecord,
        filter: &DeliveryFilter,
        page: &KeysetPage,
    ) -> Result<Vec<DeliveryRecord>> {
        Ok(self.store.deliveries(hook.id, filter, page).await?)
    }

    /// A page of the attempts of `delivery`, newest first: up to `page.limit + 1` (the extra
    /// one says another page follows), each with the request body it sent (the event's
    /// payload). Load the delivery with [`Operations::load`] first: that checks tenancy.
    pub async fn delivery_attempts(
        &self,
        delivery: &DeliveryRecord,
        page: &KeysetPage,
    ) -> Result<Vec<DeliveryAttempt>> {
        let rows = self.store.delivery_attempts(delivery.id, page).await?;
        if rows.is_empty() {
            return Ok(Vec::new());
        }
        let payload = self
            .store
            .event_payload(delivery.event_id)
            .await?
            .unwrap_or_default();
        Ok(rows
            .into_iter()
            .map(|r| views::delivery_attempt(r, &payload))
            .collect())
    }

    /// Sends the catalog's example of `req.event_type`, its `data` marked `"test": true`, to
    /// `hook` alone: a new event and one delivery, delivered, signed and retried like any
    /// other. The event type need not be one `hook` lists; an inactive subscription is a 409.
    pub async fn send_test_event(
        &self,
        tx: &mut Tx,
        hook: &WebhookRecord,
        req: SendTestEvent,
    ) -> Result<DeliveryRecord> {
        ensure_active(hook, "sending a test event")?;
        let data = catalog::test_event_data(req.event_type, hook.workspace_id);
        Ok(tx
            .record_test_event(hook, req.event_type, data, self.clock.timestamp())
            .await?)
    }

    /// Replays once every `failed` or `dead` delivery of `hook` created since `req.since` that
    /// no earlier recovery replayed, at most [`RECOVERY_CAP`] per call. `since` must not be in
    /// the future; an inactive subscription is a 409.
    pub async fn recover_deliveries(
        &self,
        tx: &mut Tx,
        hook: &WebhookRecord,
        req: RecoverDeliveries,
    ) -> Result<Recovered> {
        let now = self.clock.timestamp();
        if req.since > now {
            return Err(Error::validation(
                "since",
                "since must not be in the future.",
            ));
        }
        ensure_active(hook, "recovering deliveries")?;
        let recovery = tx
            .recover_deliveries(hook, req.since, RECOVERY_CAP, now)
            .await?;
        Ok(Recovered {
            queued: recovery.queued,
            has_more: recovery.has_more,
        })
    }
}
