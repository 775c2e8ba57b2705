//! Rows written through the store for tests and benchmarks that start from a populated database.

use domain::{EventType, Timestamp, WorkspaceId};
use store::{NewWebhook, Store};
use webhooks::{SecretBox, SigningSecret};

/// A workspace named `name` with one active subscription to `events` per URL, each with a
/// signing secret of its own sealed with `secrets`; written in one transaction.
pub async fn subscribed_workspace(
    store: &Store,
    name: &str,
    urls: impl IntoIterator<Item = String>,
    events: &[EventType],
    secrets: &SecretBox,
    now: Timestamp,
) -> WorkspaceId {
    let mut tx = store.begin().await.expect("begin");
    let ws = tx
        .insert_workspace(name, None, now)
        .await
        .expect("insert the workspace");
    for url in urls {
        let webhook = NewWebhook {
            workspace_id: ws.id,
            url,
            events: events.to_vec(),
            description: None,
            active: true,
            secret: secrets.seal(&SigningSecret::generate()),
        };
        tx.insert_webhook(&webhook, now)
            .await
            .expect("insert a webhook");
    }
    tx.commit().await.expect("commit");
    ws.id
}
