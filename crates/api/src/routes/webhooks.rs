use api_types::EventTypeList;
use axum::extract::State;
use domain::{DeliveryStatus, EventType, Scope, Timestamp};
use operations::deliveries::{RecoverDeliveries, SendTestEvent};
use operations::views::{self, Delivery, DeliveryAttempt, Recovered, Webhook};
use operations::webhooks::{CreateWebhook, ReplayDelivery, RotateSecret, UpdateWebhook};
use store::{DeliveryFilter, DeliveryRecord, WebhookRecord, WorkspaceRecord};
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
        .routes(routes!(list_attempts))
        .routes(routes!(send_test_event))
        .routes(routes!(recover))
        .routes(routes!(list_event_types))
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
    let (ops, ws) = (&state.ops, &ws);
    state
        .cursors
        .keyset_list(
            &format!("webhooks:{}", ws.id),
            &q,
            move |page| async move { ops.webhooks_page(ws, &page).await },
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
/// Newest first. Optional filters, combined: `status`, `event_type`, and a range of
/// `created_at`, `since` (inclusive) to `until` (exclusive), each RFC 3339 (encode a `+` of an
/// offset as `%2B`, or use `Z`). A value that does not parse is a 400 naming it. A cursor
/// belongs to the filters it was made with: with other filters it is a 400. Scope: read.
#[utoipa::path(get, path = "/v1/webhooks/{id}/deliveries", tag = "Webhooks",
    params(("id" = String, Path), PageParams, ("status" = Option<DeliveryStatus>, Query),
        ("event_type" = Option<EventType>, Query),
        ("since" = Option<Timestamp>, Query, description = "Only deliveries created at or after this instant (RFC 3339)."),
        ("until" = Option<Timestamp>, Query, description = "Only deliveries created before this instant (RFC 3339).")),
    security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Delivery>), (status = 400, body = ErrorEnvelope)))]
async fn list_deliveries(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<WebhookRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Delivery>>> {
    let hook: WebhookRecord = state.ops.load(&auth, id, Scope::Read).await?;
    let filter = DeliveryFilter {
        status: q.filter("status")?,
        event_type: q.filter("event_type")?,
        since: q.filter("since")?,
        until: q.filter("until")?,
    };
    let text = |t: Option<Timestamp>| t.map(|t| t.micros().to_string()).unwrap_or_default();
    let list = format!(
        "deliveries:{}:{}:{}:{}:{}",
        hook.id,
        filter.status.map(|s| s.as_str()).unwrap_or(""),
        filter.event_type.map(|t| t.as_str()).unwrap_or(""),
        text(filter.since),
        text(filter.until),
    );
    let ops = &state.ops;
    state
        .cursors
        .keyset_list(
            &list,
            &q,
            move |page| async move { ops.deliveries(&hook, &filter, &page).await },
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

/// List a delivery's attempts
///
/// Every HTTP attempt of the delivery, newest first, paged: when it started and how long it
/// took, the request as sent (headers with the signatures, never a secret; the body, which is
/// the event's payload and the same for every attempt), the response as far as it was read
/// (status, at most 64 headers, the first 4 KiB of the body, `response_body_truncated` when
/// there was more), the `error_kind` when no complete answer came (`timeout`,
/// `refused_address`, `connection`, `tls`; null for any HTTP answer, whose status says how it
/// went) and when the next attempt was planned. Attempts are kept 30 days by default
/// (`CONTENT_PIPELINE_WEBHOOK_ATTEMPT_RETENTION`); a delivery made before this log existed has
/// none. Scope: read.
#[utoipa::path(get, path = "/v1/deliveries/{id}/attempts", tag = "Webhooks",
    params(("id" = String, Path), PageParams), security(("bearer" = ["read"])),
    responses((status = 200, body = Page<DeliveryAttempt>), (status = 400, body = ErrorEnvelope)))]
async fn list_attempts(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<DeliveryRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<DeliveryAttempt>>> {
    let delivery: DeliveryRecord = state.ops.load(&auth, id, Scope::Read).await?;
    let ops = &state.ops;
    state
        .cursors
        .keyset_list(
            &format!("attempts:{}", delivery.id),
            &q,
            move |page| async move { ops.delivery_attempts(&delivery, &page).await },
            |a| a,
        )
        .await
}

/// Send a test event
///
/// Records an event of `event_type` whose body is the catalog's example (see
/// `GET /v1/event-types`) with this workspace's id, a fresh event id and timestamp, and
/// `"test": true` added inside `data`; and one delivery of it to this subscription only (no
/// other subscription gets it, whatever events they list). The event type need not be one the
/// subscription lists. The delivery is made by the delivery worker like any other: signed with
/// the subscription's secrets, retried on failure, listed in its deliveries with its attempts.
/// Test events are never shown as drift. An inactive subscription is a 409. Scope: write.
#[utoipa::path(post, path = "/v1/webhooks/{id}/test", tag = "Webhooks",
    params(("id" = String, Path)),
    request_body = SendTestEvent, security(("bearer" = ["write"])),
    responses((status = 201, body = Delivery, headers(("Location" = String))),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn send_test_event(
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
    let req: SendTestEvent = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let delivery = ops.send_test_event(tx, &hook, req).await?;
                let location = ops.url(&format!("/v1/deliveries/{}", delivery.id));
                Ok(Answer::created(location, views::delivery(delivery)))
            })
        })
        .await
}

/// Recover failed deliveries
///
/// Replays, once each, every delivery of this subscription created at or after `since` whose
/// status is `failed` (an attempt failed, retries are still planned) or `dead` (no attempt
/// left): each gets a new Delivery like a replay (`is_replay: true`, the same `event_id` and
/// so the same `webhook-id`, the subscription's current url, normal retries). A delivery that
/// is still `failed` keeps its own retries too, so a receiver may get its event twice: Standard
/// Webhooks receivers deduplicate by `webhook-id`. A delivery recovered once is never recovered
/// again, so a second call queues nothing new (a replay that fails later is a delivery of its
/// own, and a later call can recover it). At most 10,000 per call: `has_more` says when more
/// remain (call again). `since` is required, RFC 3339, not in the future (422 otherwise). An
/// inactive subscription is a 409. Scope: write.
#[utoipa::path(post, path = "/v1/webhooks/{id}/recover", tag = "Webhooks",
    params(("id" = String, Path)),
    request_body = RecoverDeliveries, security(("bearer" = ["write"])),
    responses((status = 200, body = Recovered), (status = 409, body = ErrorEnvelope),
        (status = 422, body = ErrorEnvelope)))]
async fn recover(
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
    let req: RecoverDeliveries = body.parse()?;
    let ops = state.ops.clone();
    state
        .write(&idem, move |tx| {
            Box::pin(async move {
                let recovered = ops.recover_deliveries(tx, &hook, req).await?;
                Ok(Answer::ok(recovered))
            })
        })
        .await
}

/// List event types
///
/// The event catalog: every event type a subscription can ask for, with a `description`, the
/// JSON Schema (draft 2020-12) of the whole webhook body it sends (the envelope `{id, type,
/// timestamp, workspace_id, data}` with its `data`: the Run, the Article without `mdx_body`,
/// or the drift report) and a complete `example` body. A small fixed list: not paged. A test
/// event (`POST /v1/webhooks/{id}/test`) sends the example with `"test": true` added inside
/// `data`; the schemas allow it. Any valid token (scope read).
#[utoipa::path(get, path = "/v1/event-types", tag = "Webhooks",
    security(("bearer" = ["read"])),
    responses((status = 200, body = EventTypeList)))]
async fn list_event_types(auth: Auth) -> ApiResult<axum::Json<EventTypeList>> {
    auth.check_scope(Scope::Read)?;
    Ok(axum::Json(EventTypeList {
        data: operations::catalog::event_catalog().to_vec(),
    }))
}
