use axum::extract::State;
use domain::{DeliveryStatus, Scope};
use operations::views::{self, Delivery, Webhook};
use operations::webhooks::{CreateWebhook, ReplayDelivery, RotateSecret, UpdateWebhook};
use store::{DeliveryRecord, WebhookRecord, WorkspaceRecord};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_webhooks, create_webhook))
        .routes(routes!(get_webhook, update_webhook, delete_webhook))
        .routes(routes!(rotate_secret))
        .routes(routes!(replay))
        .routes(routes!(list_deliveries))
        .routes(routes!(get_delivery))
}

/// List webhooks
#[utoipa::path(get, path = "/v1/workspaces/{ws}/webhooks", tag = "Webhooks",
    params(("ws" = String, Path), PageParams), security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Webhook>), (status = 400, body = ErrorEnvelope)))]
async fn list_webhooks(
    State(state): State<AppState>,
    auth: Auth,
    Id(ws): Id<WorkspaceRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Webhook>>> {
    let ws: WorkspaceRecord = state.ops.load(&auth, ws, Scope::Read).await?;
    let store = &state.store;
    state
        .cursors
        .keyset_list(
            &format!("webhooks:{}", ws.id),
            &q,
            move |page| async move { store.webhooks(ws.id, &page).await },
            |r| views::webhook(r, None),
        )
        .await
}

/// Create a webhook
///
/// Returns the subscription with its signing `secret` (`whsec_` + base64 of 32 random
/// bytes): the only time it is shown besides rotate-secret. An active subscription with the
/// same url in the workspace is a 409, and so is a workspace already holding its quota of
/// subscriptions (50 unless the platform configures otherwise; paused ones count, deleted ones
/// do not). Scope: write.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/webhooks", tag = "Webhooks",
    params(("ws" = String, Path)),
    request_body = CreateWebhook, security(("bearer" = ["write"])),
    responses((status = 201, body = Webhook, headers(("Location" = String))),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn create_webhook(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(ws): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, ws, Scope::Write).await?;
    let req: CreateWebhook = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let hook = ops.create_webhook(tx, &ws, req).await?;
                let location = ops.url(&format!("/v1/webhooks/{}", hook.record.id));
                Ok(Answer::created(
                    location,
                    views::webhook(hook.record, Some(hook.secret)),
                ))
            })
        })
        .await
}

/// Get a webhook
#[utoipa::path(get, path = "/v1/webhooks/{id}", tag = "Webhooks", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Webhook)))]
async fn get_webhook(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WebhookRecord>,
) -> ApiResult<axum::Json<Webhook>> {
    let hook = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(views::webhook(hook, None)))
}

/// Update a webhook
///
/// Changes only the fields sent. Re-activating resets `failure_count`. Scope: write.
#[utoipa::path(patch, path = "/v1/webhooks/{id}", tag = "Webhooks",
    params(("id" = String, Path)),
    request_body = UpdateWebhook, security(("bearer" = ["write"])),
    responses((status = 200, body = Webhook), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn update_webhook(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WebhookRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (hook, _) = state
        .ops
        .load_for_change::<WebhookRecord>(&auth, id, Scope::Write)
        .await?;
    let req: UpdateWebhook = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let updated = ops.update_webhook(tx, &hook, req).await?;
                Ok(Answer::ok(views::webhook(updated, None)))
            })
        })
        .await
}

/// Delete a webhook
///
/// Returns the final state of the subscription; afterwards it is 404. Its deliveries still
/// waiting for an attempt become `dead`. Scope: write.
#[utoipa::path(delete, path = "/v1/webhooks/{id}", tag = "Webhooks", params(("id" = String, Path)),
    security(("bearer" = ["write"])), responses((status = 200, body = Webhook), (status = 409, body = ErrorEnvelope)))]
async fn delete_webhook(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WebhookRecord>,
) -> ApiResult<Recorded> {
    let (hook, _) = state
        .ops
        .load_for_change::<WebhookRecord>(&auth, id, Scope::Write)
        .await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let deleted = ops.delete_webhook(tx, &hook).await?;
                Ok(Answer::ok(views::webhook(deleted, None)))
            })
        })
        .await
}

/// Rotate a webhook's signing secret
///
/// Returns the subscription with its new `secret`. Until `grace_period_seconds` have passed,
/// every delivery is signed with the new and the previous secret (newest first). The body is
/// optional. Scope: write.
#[utoipa::path(post, path = "/v1/webhooks/{id}/rotate-secret", tag = "Webhooks",
    params(("id" = String, Path)),
    request_body(content = Option<RotateSecret>), security(("bearer" = ["write"])),
    responses((status = 200, body = Webhook), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn rotate_secret(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WebhookRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (hook, _) = state
        .ops
        .load_for_change::<WebhookRecord>(&auth, id, Scope::Write)
        .await?;
    let req: RotateSecret = body.parse_optional()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let rotated = ops.rotate_webhook_secret(tx, &hook, req).await?;
                Ok(Answer::ok(views::webhook(
                    rotated.record,
                    Some(rotated.secret),
                )))
            })
        })
        .await
}

/// Replay a delivery
///
/// Sends the event of an earlier delivery of this subscription again, as a new Delivery with
/// `is_replay: true`, the same `event_id`, the subscription's current url and secret, and
/// normal retries. A delivery of another subscription is a 404; an inactive subscription a
/// 409. Scope: write.
#[utoipa::path(post, path = "/v1/webhooks/{id}/replay", tag = "Webhooks",
    params(("id" = String, Path)),
    request_body = ReplayDelivery, security(("bearer" = ["write"])),
    responses((status = 200, body = Delivery), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn replay(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    Id(id): Id<WebhookRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let (hook, _) = state
        .ops
        .load_for_change::<WebhookRecord>(&auth, id, Scope::Write)
        .await?;
    let req: ReplayDelivery = body.parse()?;
    let original = state.ops.delivery_to_replay(&hook, &req).await?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let delivery = ops.replay_delivery(tx, &hook, &original).await?;
                Ok(Answer::ok(views::delivery(delivery)))
            })
        })
        .await
}

/// List a webhook's deliveries
///
/// Newest first; optional filter `status`. Scope: read.
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "Webhooks",
    params(("id" = String, Path), PageParams, ("status" = Option<DeliveryStatus>, Query)),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Delivery>), (status = 400, body = ErrorEnvelope)))]
async fn list_deliveries(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WebhookRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Delivery>>> {
    let hook: WebhookRecord = state.ops.load(&auth, id, Scope::Read).await?;
    let status: Option<DeliveryStatus> = q.filter("status")?;
    let list = format!(
        "deliveries:{}:{}",
        hook.id,
        status.map(|s| s.as_str()).unwrap_or("")
    );
    let store = &state.store;
    state
        .cursors
        .keyset_list(
            &list,
            &q,
            move |page| async move { store.deliveries(hook.id, status, &page).await },
            views::delivery,
        )
        .await
}

/// Get a delivery
#[utoipa::path(get, path = "/v1/deliveries/{id}", tag = "Webhooks", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Delivery)))]
async fn get_delivery(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<DeliveryRecord>,
) -> ApiResult<axum::Json<Delivery>> {
    let delivery: DeliveryRecord = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(views::delivery(delivery)))
}
