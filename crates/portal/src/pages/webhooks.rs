//! The webhook console: endpoints (list, create, edit, disable and enable, delete, rotate the
//! secret), the event catalog, test events, deliveries with their attempts, replay and
//! recovery. Every action is the API's use case, called with the person's role.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use domain::{DeliveryId, DeliveryStatus, EventType, Scope, Timestamp, WebhookId};
use operations::ErrorKind;
use operations::catalog::event_catalog;
use operations::deliveries::{DeliveryAttempt, RecoverDeliveries, SendTestEvent};
use operations::webhooks::{CreateWebhook, ReplayDelivery, RotateSecret, UpdateWebhook};
use serde::Deserialize;
use store::{DeliveryFilter, DeliveryRecord, WebhookRecord};

use super::{Member, list_page, list_url};
use crate::Portal;
use crate::web::{Nav, PageError, PageResult, render, when};

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/w/{ws}/webhooks", get(list).post(create))
        .route("/portal/w/{ws}/webhooks/new", get(new_page))
        .route("/portal/w/{ws}/webhooks/event-types", get(event_types))
        .route("/portal/w/{ws}/webhooks/{id}", get(show))
        .route(
            "/portal/w/{ws}/webhooks/{id}/edit",
            get(edit_page).post(edit),
        )
        .route("/portal/w/{ws}/webhooks/{id}/active", post(set_active))
        .route(
            "/portal/w/{ws}/webhooks/{id}/delete",
            get(delete_page).post(delete),
        )
        .route(
            "/portal/w/{ws}/webhooks/{id}/rotate",
            get(rotate_page).post(rotate),
        )
        .route("/portal/w/{ws}/webhooks/{id}/test", post(send_test))
        .route("/portal/w/{ws}/webhooks/{id}/recover", post(recover))
        .route(
            "/portal/w/{ws}/webhooks/{id}/deliveries/{delivery}",
            get(delivery_page),
        )
        .route(
            "/portal/w/{ws}/webhooks/{id}/deliveries/{delivery}/replay",
            post(replay),
        )
}

/// The grace periods the rotate form offers, in seconds, with their labels.
const GRACE_PERIODS: [(u64, &str); 5] = [
    (0, "none: the old secret stops at once"),
    (3_600, "1 hour"),
    (86_400, "24 hours"),
    (259_200, "3 days"),
    (604_800, "7 days (the longest)"),
];

/// An endpoint as the list and its page show it.
struct EndpointRow {
    id: String,
    url: String,
    description: String,
    events: Vec<EventType>,
    active: bool,
    failure_count: i64,
    last_delivery: String,
    failing_since: String,
    created: String,
}

impl EndpointRow {
    fn new(r: &WebhookRecord) -> Self {
        Self {
            id: r.id.to_string(),
            url: r.url.clone(),
            description: r.description.clone().unwrap_or_default(),
            events: r.events.0.clone(),
            active: r.active,
            failure_count: r.failure_count,
            last_delivery: r.last_delivery_at.map(when).unwrap_or_default(),
            failing_since: r.failing_since.map(when).unwrap_or_default(),
            created: when(r.created_at),
        }
    }

    fn event_list(&self) -> String {
        self.events
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A delivery as the endpoint's list shows it.
struct DeliveryRow {
    id: String,
    event_type: EventType,
    status: DeliveryStatus,
    attempts: i64,
    last_status_code: String,
    is_replay: bool,
    created: String,
    next_attempt: String,
}

impl DeliveryRow {
    fn new(d: &DeliveryRecord) -> Self {
        Self {
            id: d.id.to_string(),
            event_type: d.event_type,
            status: d.status,
            attempts: d.attempts,
            last_status_code: d
                .last_status_code
                .map(|c| c.to_string())
                .unwrap_or_default(),
            is_replay: d.is_replay,
            created: when(d.created_at),
            next_attempt: d.next_attempt_at.map(when).unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "portal/webhooks.html")]
struct ListPage {
    nav: Nav,
    tab: &'static str,
    rows: Vec<EndpointRow>,
    next_url: Option<String>,
}

#[derive(Deserialize, Default)]
struct PageQuery {
    before: Option<String>,
}

async fn list(
    State(portal): State<Portal>,
    member: Member,
    Query(q): Query<PageQuery>,
) -> PageResult {
    let (ops, record) = (&portal.ops, &member.ws);
    let ws = record.id;
    let listed = list_page(
        &portal.config.cursors,
        &format!("webhooks:{ws}"),
        q.before.as_deref(),
        |page| async move { ops.webhooks_page(record, &page).await },
        |r: &WebhookRecord| (r.created_at, r.id),
    )
    .await?;
    let page = ListPage {
        nav: member.nav("webhooks"),
        tab: "endpoints",
        rows: listed.rows.iter().map(EndpointRow::new).collect(),
        next_url: listed
            .next_before
            .map(|b| list_url(&format!("/portal/w/{ws}/webhooks"), &[("before", Some(b))])),
    };
    render(&page)
}

/// The create and edit form, filled with what was sent (or the endpoint as it is).
#[derive(Template)]
#[template(path = "portal/webhook_form.html")]
struct FormPage {
    nav: Nav,
    /// `None` to create.
    endpoint: Option<String>,
    url: String,
    description: String,
    events: Vec<EventType>,
    catalog: &'static [EventType],
    error: Option<String>,
}

impl FormPage {
    fn checked(&self, event: &EventType) -> bool {
        self.events.contains(event)
    }
}

/// The endpoint form's fields. The events are checkboxes, one `events` pair each, so the form
/// is read as its list of pairs.
struct EndpointForm {
    url: String,
    description: Option<String>,
    events: Vec<EventType>,
}

impl EndpointForm {
    fn parse(pairs: Vec<(String, String)>) -> Result<Self, PageError> {
        let mut form = Self {
            url: String::new(),
            description: None,
            events: Vec::new(),
        };
        for (key, value) in pairs {
            match key.as_str() {
                "url" => form.url = value.trim().to_owned(),
                "description" => {
                    let d = value.trim();
                    form.description = (!d.is_empty()).then(|| d.to_owned());
                }
                "events" => form.events.push(value.parse().map_err(|_| {
                    PageError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "That event type is not in the catalog.",
                    )
                })?),
                _ => {}
            }
        }
        Ok(form)
    }
}

async fn new_page(State(_): State<Portal>, member: Member) -> PageResult {
    may_write(&member)?;
    render(&FormPage {
        nav: member.nav("webhooks"),
        endpoint: None,
        url: String::new(),
        description: String::new(),
        events: Vec::new(),
        catalog: EventType::ALL,
        error: None,
    })
}

/// The page that shows a signing secret, once: never cached, and not reachable again.
#[derive(Template)]
#[template(path = "portal/webhook_secret.html")]
struct SecretPage {
    nav: Nav,
    endpoint: EndpointRow,
    secret: String,
    rotated: bool,
}

fn secret_page(page: &SecretPage, status: StatusCode) -> PageResult {
    let mut response = render(page)?;
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CACHE_CONTROL,
        header::HeaderValue::from_static("no-store"),
    );
    Ok(response)
}

async fn create(
    State(portal): State<Portal>,
    member: Member,
    Form(pairs): Form<Vec<(String, String)>>,
) -> PageResult {
    let form = EndpointForm::parse(pairs)?;
    let req = CreateWebhook {
        url: form.url.clone(),
        events: form.events.clone(),
        description: form.description.clone(),
        active: None,
    };
    let created = async {
        let ws = portal
            .ops
            .active_workspace(&member.caller, member.ws.id, Scope::Write)
            .await?;
        let ops = portal.ops.clone();
        portal
            .ops
            .store
            .write(move |tx| Box::pin(async move { ops.create_webhook(tx, &ws, req).await }))
            .await
    }
    .await;
    match created {
        Ok(hook) => secret_page(
            &SecretPage {
                nav: member.nav("webhooks"),
                endpoint: EndpointRow::new(&hook.record),
                secret: hook.secret,
                rotated: false,
            },
            StatusCode::CREATED,
        ),
        Err(e) if matches!(e.kind, ErrorKind::Validation | ErrorKind::Conflict) => {
            form_again(&member, None, form, e)
        }
        Err(e) => Err(e.into()),
    }
}

/// The form again, with what was sent and why it was refused.
fn form_again(
    member: &Member,
    endpoint: Option<String>,
    form: EndpointForm,
    e: operations::Error,
) -> PageResult {
    let status = if e.kind == ErrorKind::Conflict {
        StatusCode::CONFLICT
    } else {
        StatusCode::UNPROCESSABLE_ENTITY
    };
    let mut response = render(&FormPage {
        nav: member.nav("webhooks"),
        endpoint,
        url: form.url,
        description: form.description.unwrap_or_default(),
        events: form.events,
        catalog: EventType::ALL,
        error: Some(e.message),
    })?;
    *response.status_mut() = status;
    Ok(response)
}

fn may_write(member: &Member) -> Result<(), PageError> {
    if member
        .nav("webhooks")
        .workspace
        .is_some_and(|w| w.may_write())
    {
        Ok(())
    } else {
        Err(operations::Error::insufficient_scope(Scope::Write).into())
    }
}

/// The endpoint of the path, read with `scope` (and, for a change, in a workspace that is not
/// deleted): the API's loader, so another workspace's endpoint is a 404 here too.
async fn endpoint(
    portal: &Portal,
    member: &Member,
    id: &str,
    scope: Scope,
) -> PageResult<WebhookRecord> {
    let id: WebhookId = id.parse().map_err(|_| PageError::not_found())?;
    let hook: WebhookRecord = if scope == Scope::Read {
        portal.ops.load(&member.caller, id, scope).await?
    } else {
        portal
            .ops
            .load_for_change::<WebhookRecord>(&member.caller, id, scope)
            .await?
            .0
    };
    member.owns(hook.workspace_id)?;
    Ok(hook)
}

#[derive(Template)]
#[template(path = "portal/webhook.html")]
struct EndpointPage {
    nav: Nav,
    endpoint: EndpointRow,
    deliveries: Vec<DeliveryRow>,
    next_url: Option<String>,
    statuses: &'static [DeliveryStatus],
    catalog: &'static [EventType],
    filter: FilterForm,
    /// How many deliveries a recovery just queued again.
    recovered: Option<u64>,
    /// Set when the recovery reached its per-call cap.
    more_to_recover: bool,
}

/// The delivery filters as the form shows them.
#[derive(Default)]
struct FilterForm {
    status: String,
    event_type: String,
    since: String,
    until: String,
}

#[derive(Deserialize, Default)]
struct DeliveriesQuery {
    before: Option<String>,
    status: Option<String>,
    event_type: Option<String>,
    since: Option<String>,
    until: Option<String>,
    recovered: Option<u64>,
    more: Option<String>,
}

fn non_empty(v: &Option<String>) -> Option<&str> {
    v.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// A time from a `datetime-local` field (`2026-11-24T18:05`, seconds optional), read as UTC,
/// or any RFC 3339 time.
fn utc_time(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    let full = match text.len() {
        16 => format!("{text}:00Z"),
        19 => format!("{text}Z"),
        _ => text.to_owned(),
    };
    full.parse().ok()
}

/// The value a `datetime-local` field shows for a time (UTC, to the minute).
fn local_value(t: Timestamp) -> String {
    t.to_string().chars().take(16).collect()
}

async fn show(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Query(q): Query<DeliveriesQuery>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Read).await?;
    let filter = DeliveryFilter {
        status: non_empty(&q.status).and_then(|s| s.parse().ok()),
        event_type: non_empty(&q.event_type).and_then(|s| s.parse().ok()),
        since: non_empty(&q.since).and_then(utc_time),
        until: non_empty(&q.until).and_then(utc_time),
    };
    let (ops, wanted, endpoint_record) = (&portal.ops, &filter, &hook);
    let listed = list_page(
        &portal.config.cursors,
        &format!("deliveries:{}", hook.id),
        q.before.as_deref(),
        |page| async move { ops.deliveries(endpoint_record, wanted, &page).await },
        |d: &DeliveryRecord| (d.created_at, d.id),
    )
    .await?;
    let shown = FilterForm {
        status: filter
            .status
            .map(|s| s.as_str().to_owned())
            .unwrap_or_default(),
        event_type: filter
            .event_type
            .map(|e| e.as_str().to_owned())
            .unwrap_or_default(),
        since: filter.since.map(local_value).unwrap_or_default(),
        until: filter.until.map(local_value).unwrap_or_default(),
    };
    let next_url = listed.next_before.map(|b| {
        list_url(
            &format!("/portal/w/{}/webhooks/{}", member.ws.id, hook.id),
            &[
                (
                    "status",
                    Some(shown.status.clone()).filter(|s| !s.is_empty()),
                ),
                (
                    "event_type",
                    Some(shown.event_type.clone()).filter(|s| !s.is_empty()),
                ),
                ("since", Some(shown.since.clone()).filter(|s| !s.is_empty())),
                ("until", Some(shown.until.clone()).filter(|s| !s.is_empty())),
                ("before", Some(b)),
            ],
        )
    });
    render(&EndpointPage {
        nav: member.nav("webhooks"),
        endpoint: EndpointRow::new(&hook),
        deliveries: listed.rows.iter().map(DeliveryRow::new).collect(),
        next_url,
        statuses: DeliveryStatus::ALL,
        catalog: EventType::ALL,
        filter: shown,
        recovered: q.recovered,
        more_to_recover: q.more.is_some(),
    })
}

async fn edit_page(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    render(&FormPage {
        nav: member.nav("webhooks"),
        endpoint: Some(hook.id.to_string()),
        url: hook.url.clone(),
        description: hook.description.clone().unwrap_or_default(),
        events: hook.events.0.clone(),
        catalog: EventType::ALL,
        error: None,
    })
}

async fn edit(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let form = EndpointForm::parse(pairs)?;
    let req = UpdateWebhook {
        url: Some(form.url.clone()),
        events: Some(form.events.clone()),
        description: Some(form.description.clone()),
        active: None,
    };
    let ops = portal.ops.clone();
    let changed = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.update_webhook(tx, &hook, req).await }))
        .await;
    match changed {
        Ok(hook) => Ok(to_endpoint(&member, hook.id)),
        Err(e) if matches!(e.kind, ErrorKind::Validation | ErrorKind::Conflict) => {
            form_again(&member, Some(id), form, e)
        }
        Err(e) => Err(e.into()),
    }
}

fn to_endpoint(member: &Member, id: WebhookId) -> Response {
    Redirect::to(&format!("/portal/w/{}/webhooks/{id}", member.ws.id)).into_response()
}

#[derive(Deserialize)]
struct ActiveForm {
    active: String,
}

async fn set_active(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(form): Form<ActiveForm>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let req = UpdateWebhook {
        url: None,
        events: None,
        description: None,
        active: Some(form.active == "true"),
    };
    let ops = portal.ops.clone();
    let hook = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.update_webhook(tx, &hook, req).await }))
        .await?;
    Ok(to_endpoint(&member, hook.id))
}

/// The confirmation pages (delete, rotate): what will happen, and the button that does it.
#[derive(Template)]
#[template(path = "portal/webhook_confirm.html")]
struct ConfirmPage {
    nav: Nav,
    endpoint: EndpointRow,
    action: &'static str,
    grace_periods: &'static [(u64, &'static str)],
}

async fn delete_page(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    confirm(&portal, &member, &id, "delete").await
}

/// The page asking to confirm `action` on the endpoint `id`.
async fn confirm(portal: &Portal, member: &Member, id: &str, action: &'static str) -> PageResult {
    let hook = endpoint(portal, member, id, Scope::Write).await?;
    render(&ConfirmPage {
        nav: member.nav("webhooks"),
        endpoint: EndpointRow::new(&hook),
        action,
        grace_periods: &GRACE_PERIODS,
    })
}

async fn delete(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let ops = portal.ops.clone();
    portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.delete_webhook(tx, &hook).await }))
        .await?;
    Ok(Redirect::to(&format!("/portal/w/{}/webhooks", member.ws.id)).into_response())
}

async fn rotate_page(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    confirm(&portal, &member, &id, "rotate").await
}

#[derive(Deserialize)]
struct RotateForm {
    grace_period_seconds: u64,
}

async fn rotate(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(form): Form<RotateForm>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let req = RotateSecret {
        grace_period_seconds: Some(form.grace_period_seconds),
    };
    let ops = portal.ops.clone();
    let rotated = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.rotate_webhook_secret(tx, &hook, req).await }))
        .await?;
    secret_page(
        &SecretPage {
            nav: member.nav("webhooks"),
            endpoint: EndpointRow::new(&rotated.record),
            secret: rotated.secret,
            rotated: true,
        },
        StatusCode::OK,
    )
}

/// The event catalog: each type's description, example payload and JSON Schema.
struct CatalogEntry {
    name: &'static str,
    description: &'static str,
    example: String,
    schema: String,
}

#[derive(Template)]
#[template(path = "portal/webhook_event_types.html")]
struct CatalogPage {
    nav: Nav,
    tab: &'static str,
    catalog: Vec<CatalogEntry>,
}

async fn event_types(State(_): State<Portal>, member: Member) -> PageResult {
    let pretty = |v: &serde_json::Value| serde_json::to_string_pretty(v).unwrap_or_default();
    render(&CatalogPage {
        nav: member.nav("webhooks"),
        tab: "event-types",
        catalog: event_catalog()
            .iter()
            .map(|e| CatalogEntry {
                name: e.event_type.as_str(),
                description: e.description.as_str(),
                example: pretty(&e.example),
                schema: pretty(&e.schema),
            })
            .collect(),
    })
}

#[derive(Deserialize)]
struct TestForm {
    event_type: String,
}

async fn send_test(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(form): Form<TestForm>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let event_type: EventType = form.event_type.parse().map_err(|_| {
        PageError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "That event type is not in the catalog.",
        )
    })?;
    let ops = portal.ops.clone();
    let delivery = portal
        .ops
        .store
        .write(move |tx| {
            Box::pin(async move {
                ops.send_test_event(tx, &hook, SendTestEvent { event_type })
                    .await
            })
        })
        .await?;
    Ok(to_delivery(&member, &delivery))
}

fn to_delivery(member: &Member, d: &DeliveryRecord) -> Response {
    Redirect::to(&format!(
        "/portal/w/{}/webhooks/{}/deliveries/{}",
        member.ws.id, d.subscription_id, d.id
    ))
    .into_response()
}

#[derive(Deserialize)]
struct RecoverForm {
    since: String,
}

async fn recover(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Form(form): Form<RecoverForm>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let since = utc_time(&form.since).ok_or_else(|| {
        PageError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "Give the time to recover from as a date and time (UTC).",
        )
    })?;
    let hook_id = hook.id;
    let ops = portal.ops.clone();
    let recovered = portal
        .ops
        .store
        .write(move |tx| {
            Box::pin(async move {
                ops.recover_deliveries(tx, &hook, RecoverDeliveries { since })
                    .await
            })
        })
        .await?;
    let mut url = format!(
        "/portal/w/{}/webhooks/{hook_id}?recovered={}",
        member.ws.id, recovered.queued
    );
    if recovered.has_more {
        url.push_str("&more=1");
    }
    Ok(Redirect::to(&url).into_response())
}

/// One attempt as the delivery page shows it.
struct AttemptRow {
    number: i64,
    started: String,
    duration: String,
    url: String,
    status_code: Option<i64>,
    succeeded: bool,
    error_kind: String,
    error: String,
    request_headers: Vec<(String, String)>,
    response_headers: Vec<(String, String)>,
    response_body: String,
    body_truncated: bool,
    next_attempt: String,
}

impl AttemptRow {
    fn new(a: DeliveryAttempt) -> Self {
        Self {
            number: a.attempt,
            started: when(a.started_at),
            duration: format!("{} ms", a.duration_ms),
            url: a.url,
            status_code: a.response_status,
            succeeded: a.response_status.is_some_and(|s| (200..300).contains(&s)),
            error_kind: a
                .error_kind
                .map(|k| k.as_str().replace('_', " "))
                .unwrap_or_default(),
            error: a.error_message.unwrap_or_default(),
            request_headers: a.request_headers.into_iter().collect(),
            response_headers: a.response_headers.unwrap_or_default().into_iter().collect(),
            response_body: a.response_body.unwrap_or_default(),
            body_truncated: a.response_body_truncated,
            next_attempt: a.next_attempt_at.map(when).unwrap_or_default(),
        }
    }
}

#[derive(Template)]
#[template(path = "portal/webhook_delivery.html")]
struct DeliveryPage {
    nav: Nav,
    endpoint: EndpointRow,
    delivery: DeliveryRow,
    event_id: String,
    body: String,
    attempts: Vec<AttemptRow>,
    next_url: Option<String>,
    may_replay: bool,
}

/// The delivery of the path, which must be one of the endpoint's.
async fn delivery_of(
    portal: &Portal,
    member: &Member,
    hook: &WebhookRecord,
    id: &str,
) -> PageResult<DeliveryRecord> {
    let id: DeliveryId = id.parse().map_err(|_| PageError::not_found())?;
    let delivery: DeliveryRecord = portal.ops.load(&member.caller, id, Scope::Read).await?;
    if delivery.subscription_id != hook.id {
        return Err(PageError::not_found());
    }
    Ok(delivery)
}

async fn delivery_page(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id, delivery)): Path<(String, String, String)>,
    Query(q): Query<PageQuery>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Read).await?;
    let delivery = delivery_of(&portal, &member, &hook, &delivery).await?;
    let (ops, record) = (&portal.ops, &delivery);
    let listed = list_page(
        &portal.config.cursors,
        &format!("attempts:{}", delivery.id),
        q.before.as_deref(),
        |page| async move { ops.delivery_attempts(record, &page).await },
        |a: &DeliveryAttempt| (a.started_at, a.id),
    )
    .await?;
    let body = match listed.rows.first() {
        Some(a) => a.request_body.clone(),
        None => portal
            .ops
            .store
            .event_payload(delivery.event_id)
            .await
            .map_err(operations::Error::from)?
            .unwrap_or_default(),
    };
    let body = serde_json::from_str::<serde_json::Value>(&body)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or(body);
    let next_url = listed.next_before.map(|b| {
        list_url(
            &format!(
                "/portal/w/{}/webhooks/{}/deliveries/{}",
                member.ws.id, hook.id, delivery.id
            ),
            &[("before", Some(b))],
        )
    });
    let may_replay = hook.active
        && member
            .nav("webhooks")
            .workspace
            .is_some_and(|w| w.may_write());
    render(&DeliveryPage {
        nav: member.nav("webhooks"),
        endpoint: EndpointRow::new(&hook),
        delivery: DeliveryRow::new(&delivery),
        event_id: delivery.event_id.to_string(),
        body,
        attempts: listed.rows.into_iter().map(AttemptRow::new).collect(),
        next_url,
        may_replay,
    })
}

async fn replay(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id, delivery)): Path<(String, String, String)>,
) -> PageResult {
    let hook = endpoint(&portal, &member, &id, Scope::Write).await?;
    let req = ReplayDelivery {
        delivery_id: delivery,
    };
    let original = portal.ops.delivery_to_replay(&hook, &req).await?;
    let ops = portal.ops.clone();
    let replayed = portal
        .ops
        .store
        .write(move |tx| Box::pin(async move { ops.replay_delivery(tx, &hook, &original).await }))
        .await?;
    Ok(to_delivery(&member, &replayed))
}
