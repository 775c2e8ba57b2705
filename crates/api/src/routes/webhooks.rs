use std::time::Duration;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::response::Response;
use domain::{DeliveryId, DeliveryStatus, EventType, Scope, WebhookId};
use serde::Deserialize;
use store::{NewWebhook, StoreError, WebhookChanges, WebhookRecord};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};
use webhooks::SigningSecret;

use super::{active_workspace, ensure_active, parse_id, workspace_for};
use crate::auth::Auth;
use crate::body::{JsonBody, bounded, double_option};
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::Idempotency;
use crate::paging::{ListQuery, Page, PageParams, keyset_position};
use crate::resources::{Delivery, Webhook};
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

const MAX_GRACE_SECONDS: u64 = 604_800;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhook {
    /// http(s) URL, at most 2048 characters; private, loopback and reserved addresses are refused.
    pub url: String,
    /// At least one event type.
    pub events: Vec<EventType>,
    /// At most 1000 characters.
    pub description: Option<String>,
    /// Default true.
    pub active: Option<bool>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhook {
    pub url: Option<String>,
    pub events: Option<Vec<EventType>>,
    /// null clears the description.
    #[serde(default, deserialize_with = "double_option")]
    #[schema(value_type = Option<String>)]
    pub description: Option<Option<String>>,
    /// Re-activating resets `failure_count`.
    pub active: Option<bool>,
}

#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RotateSecret {
    /// How long the previous secret keeps signing deliveries beside the new one: 0–604800,
    /// default 86400.
    pub grace_period_seconds: Option<u64>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReplayDelivery {
    /// A delivery of this subscription whose event is sent again.
    pub delivery_id: String,
}

fn check_url(state: &AppState, url: &str) -> ApiResult<()> {
    bounded("url", url, 2048)?;
    state
        .address_policy
        .check_url(url)
        .map(|_| ())
        .map_err(|e| ApiError::validation("url", format!("url {e}.")))
}

fn check_events(events: &[EventType]) -> ApiResult<Vec<EventType>> {
    if events.is_empty() {
        return Err(ApiError::validation(
            "events",
            "events must list at least one event type.",
        ));
    }
    let mut events = events.to_vec();
    events.sort();
    events.dedup();
    Ok(events)
}

fn duplicate_url() -> ApiError {
    ApiError::conflict("An active webhook with this url already exists in the workspace.")
}

async fn load(state: &AppState, auth: &Auth, raw: &str, needed: Scope) -> ApiResult<WebhookRecord> {
    let id: WebhookId = parse_id(raw, "webhook")?;
    let hook = state
        .store
        .webhook(id)
        .await?
        .ok_or_else(|| ApiError::not_found("webhook", raw))?;
    auth.check(hook.workspace_id, needed, "webhook", raw)?;
    Ok(hook)
}

/// List webhooks
#[utoipa::path(get, path = "/v1/workspaces/{ws}/webhooks", tag = "Webhooks",
    params(("ws" = String, Path), PageParams), security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Webhook>), (status = 400, body = ErrorEnvelope)))]
async fn list_webhooks(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(ws): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Webhook>>> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Read).await?;
    let list = format!("webhooks:{}", ws.id);
    let page = state.cursors.keyset(&list, &q)?;
    let rows = state.store.webhooks(ws.id, &page).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        |r| Webhook::new(r, None),
    )))
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
    UrlPath(ws): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Write).await?;
    ensure_active(&ws)?;
    let req: CreateWebhook = body.parse()?;
    check_url(&state, &req.url)?;
    let events = check_events(&req.events)?;
    if let Some(d) = &req.description {
        bounded("description", d, 1000)?;
    }
    let secret = SigningSecret::generate();
    let new = NewWebhook {
        workspace_id: ws.id,
        url: req.url,
        events,
        description: req.description,
        active: req.active.unwrap_or(true),
        secret: state.secrets.seal(&secret),
    };
    let mut tx = state.store.begin().await?;
    let live = tx.live_webhooks(ws.id).await?;
    if live >= i64::from(state.quotas.webhooks) {
        return Err(ApiError::conflict(format!(
            "The workspace already has {live} webhook subscriptions, its quota of {}; delete one before creating another.",
            state.quotas.webhooks
        )));
    }
    let hook = match tx.insert_webhook(&new, state.clock.timestamp()).await {
        Err(StoreError::Conflict) => return Err(duplicate_url()),
        other => other?,
    };
    let location = state.url(&format!("/v1/webhooks/{}", hook.id));
    let response = idem
        .respond(
            &mut tx,
            StatusCode::CREATED,
            Some(location),
            &Webhook::new(hook, Some(secret.reveal())),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
}

/// Get a webhook
#[utoipa::path(get, path = "/v1/webhooks/{id}", tag = "Webhooks", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Webhook)))]
async fn get_webhook(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Webhook>> {
    Ok(axum::Json(Webhook::new(
        load(&state, &auth, &id, Scope::Read).await?,
        None,
    )))
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
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let hook = load(&state, &auth, &id, Scope::Write).await?;
    active_workspace(
        &state,
        &auth,
        hook.workspace_id,
        Scope::Write,
        "webhook",
        &id,
    )
    .await?;
    let req: UpdateWebhook = body.parse()?;
    if let Some(url) = &req.url {
        check_url(&state, url)?;
    }
    let events = req.events.as_deref().map(check_events).transpose()?;
    if let Some(Some(d)) = &req.description {
        bounded("description", d, 1000)?;
    }
    let changes = WebhookChanges {
        url: req.url,
        events,
        description: req.description,
        active: req.active,
    };
    let mut tx = state.store.begin().await?;
    let updated = match tx
        .update_webhook(hook.id, &changes, state.clock.timestamp())
        .await
    {
        Err(StoreError::Conflict) => return Err(duplicate_url()),
        other => other?,
    }
    .ok_or_else(|| ApiError::not_found("webhook", &id))?;
    let response = idem
        .respond(&mut tx, StatusCode::OK, None, &Webhook::new(updated, None))
        .await?;
    tx.commit().await?;
    Ok(response)
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
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Webhook>> {
    let hook = load(&state, &auth, &id, Scope::Write).await?;
    active_workspace(
        &state,
        &auth,
        hook.workspace_id,
        Scope::Write,
        "webhook",
        &id,
    )
    .await?;
    let mut tx = state.store.begin().await?;
    let deleted = tx
        .delete_webhook(hook.id, state.clock.timestamp())
        .await?
        .ok_or_else(|| ApiError::not_found("webhook", &id))?;
    tx.commit().await?;
    Ok(axum::Json(Webhook::new(deleted, None)))
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
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let hook = load(&state, &auth, &id, Scope::Write).await?;
    active_workspace(
        &state,
        &auth,
        hook.workspace_id,
        Scope::Write,
        "webhook",
        &id,
    )
    .await?;
    let req: RotateSecret = body.parse_optional()?;
    let grace = req.grace_period_seconds.unwrap_or(86_400);
    if grace > MAX_GRACE_SECONDS {
        return Err(ApiError::validation(
            "grace_period_seconds",
            "grace_period_seconds must be between 0 and 604800.",
        ));
    }
    let secret = SigningSecret::generate();
    let now = state.clock.timestamp();
    let mut tx = state.store.begin().await?;
    let rotated = tx
        .rotate_webhook_secret(
            hook.id,
            &state.secrets.seal(&secret),
            now.plus(Duration::from_secs(grace)),
            now,
        )
        .await?
        .ok_or_else(|| ApiError::not_found("webhook", &id))?;
    let response = idem
        .respond(
            &mut tx,
            StatusCode::OK,
            None,
            &Webhook::new(rotated, Some(secret.reveal())),
        )
        .await?;
    tx.commit().await?;
    Ok(response)
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
    UrlPath(id): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let hook = load(&state, &auth, &id, Scope::Write).await?;
    active_workspace(
        &state,
        &auth,
        hook.workspace_id,
        Scope::Write,
        "webhook",
        &id,
    )
    .await?;
    let req: ReplayDelivery = body.parse()?;
    let original = match req.delivery_id.parse::<DeliveryId>() {
        Ok(d) => state.store.delivery(d).await?,
        Err(_) => None,
    }
    .filter(|d| d.subscription_id == hook.id)
    .ok_or_else(|| ApiError::not_found("delivery", &req.delivery_id).with_param("delivery_id"))?;
    if !hook.active {
        return Err(ApiError::conflict(
            "The subscription is inactive; activate it before replaying.",
        ));
    }
    let mut tx = state.store.begin().await?;
    let delivery = tx
        .replay_delivery(&hook, &original, state.clock.timestamp())
        .await?;
    let response = idem
        .respond(&mut tx, StatusCode::OK, None, &Delivery::from(delivery))
        .await?;
    tx.commit().await?;
    Ok(response)
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
    UrlPath(id): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Delivery>>> {
    let hook = load(&state, &auth, &id, Scope::Read).await?;
    let status: Option<DeliveryStatus> = q.filter("status")?;
    let list = format!(
        "deliveries:{}:{}",
        hook.id,
        status.map(|s| s.as_str()).unwrap_or("")
    );
    let page = state.cursors.keyset(&list, &q)?;
    let rows = state.store.deliveries(hook.id, status, &page).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        Delivery::from,
    )))
}

/// Get a delivery
#[utoipa::path(get, path = "/v1/deliveries/{id}", tag = "Webhooks", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Delivery)))]
async fn get_delivery(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Delivery>> {
    let delivery_id: DeliveryId = parse_id(&id, "delivery")?;
    let delivery = state
        .store
        .delivery(delivery_id)
        .await?
        .ok_or_else(|| ApiError::not_found("delivery", &id))?;
    auth.check(delivery.workspace_id, Scope::Read, "delivery", &id)?;
    Ok(axum::Json(delivery.into()))
}
