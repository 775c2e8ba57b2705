//! Webhook subscriptions: create, change, delete, rotate the signing secret, replay a
//! delivery. Targets are checked against the address policy here, once; the sender checks
//! again at delivery time.

use std::time::Duration;

use ::webhooks::SigningSecret;
pub use api_types::{CreateWebhook, ReplayDelivery, RotateSecret, UpdateWebhook};
use domain::{DeliveryId, EventType};
use store::{
    DeliveryRecord, NewWebhook, StoreError, Tx, WebhookChanges, WebhookRecord, WorkspaceRecord,
};

use crate::Operations;
use crate::error::{Error, Result, bounded};

const MAX_GRACE_SECONDS: u64 = 604_800;

/// How long a rotated secret's predecessor stays valid (webhook and forge secrets alike):
/// 0–604800 s, default 86400.
pub(crate) fn grace_period(req: &RotateSecret) -> Result<Duration> {
    let grace = req.grace_period_seconds.unwrap_or(86_400);
    if grace > MAX_GRACE_SECONDS {
        return Err(Error::validation(
            "grace_period_seconds",
            "grace_period_seconds must be between 0 and 604800.",
        ));
    }
    Ok(Duration::from_secs(grace))
}

/// A subscription with its signing secret, shown only on create and rotate.
pub struct WithSecret {
    pub record: WebhookRecord,
    pub secret: String,
}

fn check_events(events: &[EventType]) -> Result<Vec<EventType>> {
    if events.is_empty() {
        return Err(Error::validation(
            "events",
            "events must list at least one event type.",
        ));
    }
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    Ok(events)
}

fn check_description(description: Option<&str>) -> Result<()> {
    description.map_or(Ok(()), |d| bounded("description", d, 1000))
}

/// A unique-index refusal of a subscription write: a second active one with the same url.
fn duplicate_url(e: StoreError) -> Error {
    match e {
        StoreError::Conflict => {
            Error::conflict("An active webhook with this url already exists in the workspace.")
        }
        other => other.into(),
    }
}

impl Operations {
    fn check_url(&self, url: &str) -> Result<()> {
        bounded("url", url, 2048)?;
        self.address_policy
            .check_url(url)
            .map(|_| ())
            .map_err(|e| Error::validation("url", format!("url {e}.")))
    }

    /// Subscribes `ws` to `req.events`, within the workspace's quota of subscriptions.
    pub async fn create_webhook(
        &self,
        tx: &mut Tx,
        ws: &WorkspaceRecord,
        req: CreateWebhook,
    ) -> Result<WithSecret> {
        self.check_url(&req.url)?;
        let events = check_events(&req.events)?;
        check_description(req.description.as_deref())?;
        let secret = SigningSecret::generate();
        let new = NewWebhook {
            workspace_id: ws.id,
            url: req.url,
            events,
            description: req.description,
            active: req.active.unwrap_or(true),
            secret: self.secrets.seal(&secret),
        };
        let live = tx.live_webhooks(ws.id).await?;
        if live >= i64::from(self.quotas.webhooks) {
            return Err(Error::conflict(format!(
                "The workspace already has {live} webhook subscriptions, its quota of {}; delete one before creating another.",
                self.quotas.webhooks
            )));
        }
        let record = tx
            .insert_webhook(&new, self.clock.timestamp())
            .await
            .map_err(duplicate_url)?;
        Ok(WithSecret {
            record,
            secret: secret.reveal(),
        })
    }

    /// Changes only the fields `req` sends.
    pub async fn update_webhook(
        &self,
        tx: &mut Tx,
        hook: &WebhookRecord,
        req: UpdateWebhook,
    ) -> Result<WebhookRecord> {
        if let Some(url) = &req.url {
            self.check_url(url)?;
        }
        let events = req.events.as_deref().map(check_events).transpose()?;
        check_description(req.description.as_ref().and_then(Option::as_deref))?;
        let changes = WebhookChanges {
            url: req.url,
            events,
            description: req.description,
            active: req.active,
        };
        tx.update_webhook(hook.id, &changes, self.clock.timestamp())
            .await
            .map_err(duplicate_url)?
            .ok_or_else(|| Error::not_found("webhook", hook.id))
    }

    pub async fn delete_webhook(&self, tx: &mut Tx, hook: &WebhookRecord) -> Result<WebhookRecord> {
        tx.delete_webhook(hook.id, self.clock.timestamp())
            .await?
            .ok_or_else(|| Error::not_found("webhook", hook.id))
    }

    /// Gives `hook` a new signing secret; the previous one keeps signing beside it for the
    /// grace period.
    pub async fn rotate_webhook_secret(
        &self,
        tx: &mut Tx,
        hook: &WebhookRecord,
        req: RotateSecret,
    ) -> Result<WithSecret> {
        let grace = grace_period(&req)?;
        let secret = SigningSecret::generate();
        let now = self.clock.timestamp();
        let record = tx
            .rotate_webhook_secret(hook.id, &self.secrets.seal(&secret), now.plus(grace), now)
            .await?
            .ok_or_else(|| Error::not_found("webhook", hook.id))?;
        Ok(WithSecret {
            record,
            secret: secret.reveal(),
        })
    }

    /// The delivery of `hook` that `req` names, to be replayed: a delivery of another
    /// subscription is a 404, an inactive subscription a 409.
    pub async fn delivery_to_replay(
        &self,
        hook: &WebhookRecord,
        req: &ReplayDelivery,
    ) -> Result<DeliveryRecord> {
        let original = match req.delivery_id.parse::<DeliveryId>() {
            Ok(d) => self.store.delivery(d).await?,
            Err(_) => None,
        }
        .filter(|d| d.subscription_id == hook.id)
        .ok_or_else(|| Error::not_found("delivery", &req.delivery_id).with_param("delivery_id"))?;
        if !hook.active {
            return Err(Error::conflict(
                "The subscription is inactive; activate it before replaying.",
            ));
        }
        Ok(original)
    }

    /// Sends the event of `original` again to `hook`, as a new delivery.
    pub async fn replay_delivery(
        &self,
        tx: &mut Tx,
        hook: &WebhookRecord,
        original: &DeliveryRecord,
    ) -> Result<DeliveryRecord> {
        Ok(tx
            .replay_delivery(hook, original, self.clock.timestamp())
            .await?)
    }
}
