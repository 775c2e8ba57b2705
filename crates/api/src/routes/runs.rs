use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path as UrlPath, State};
use axum::http::StatusCode;
use axum::http::{HeaderMap, header};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::response::sse::{Event, KeepAlive, Sse};
use domain::{RunId, RunSource, Scope, Tier, TokenId};
use serde::Deserialize;
use store::{NewRun, StoreError, TriggerOutcome, WorkspaceRecord};
use utoipa::ToSchema;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::{ensure_active, parse_id, workspace_for};
use crate::auth::Auth;
use crate::body::{JsonBody, required_text};
use crate::error::{ApiError, ApiResult, ErrorEnvelope, ErrorType};
use crate::idempotency::Idempotency;
use crate::paging::{ListQuery, Page, PageParams, keyset_position};
use crate::resources::{Run, RunLogEvent};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs, trigger_run))
        .routes(routes!(get_run))
        .routes(routes!(run_log))
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TriggerRun {
    /// The feature to generate: an id of `.content-pipeline/features.toml`, or a file or folder
    /// of the repository (an implicit feature).
    pub feature_id: String,
    /// `priority` runs are claimed before any `standard` run. Default `standard`.
    pub tier: Option<Tier>,
    /// Whether `run.completed` / `run.failed` are emitted for this run. Default true.
    pub notify_on_complete: Option<bool>,
}

/// Checks that the feature resolves in the workspace's repository (the manifest or an
/// implicit feature), so an unknown feature is a 422 now rather than a failed run later.
pub async fn validate_feature(
    state: &AppState,
    ws: &WorkspaceRecord,
    feature_id: &str,
) -> ApiResult<()> {
    required_text("feature_id", feature_id, 200)?;
    if feature_id.chars().any(char::is_control) {
        return Err(ApiError::validation(
            "feature_id",
            "feature_id must not contain control characters.",
        ));
    }
    let Some(repo) = ws.repo_path.clone() else {
        return Err(ApiError::validation(
            "feature_id",
            "The workspace has no repo_path, so no feature can resolve.",
        ));
    };
    let (state, feature) = (state.clone(), feature_id.to_owned());
    tokio::task::spawn_blocking(move || state.features.check(Path::new(&repo), &feature))
        .await
        .map_err(ApiError::internal)?
        .map_err(|message| ApiError::validation("feature_id", message))
}

/// Queues a run or joins the one already queued for the feature, answering 201 or 200.
/// Shared by run triggers and article regeneration.
pub async fn queue_run(state: &AppState, idem: &Idempotency, new: NewRun) -> ApiResult<Response> {
    let (state, idem) = (state.clone(), idem.clone());
    state
        .store
        .clone()
        .transaction(crate::context::carried(insert_run(state, idem, new)))
        .await?
}

async fn insert_run(state: AppState, idem: Idempotency, new: NewRun) -> ApiResult<Response> {
    // Two nodes may insert the same feature at once on PostgreSQL; the loser sees the
    // unique index and coalesces on its second try.
    let mut attempt = 0;
    loop {
        attempt += 1;
        let mut tx = state.store.begin().await?;
        let outcome = match tx.trigger_run(new.clone(), state.clock.timestamp()).await {
            Err(StoreError::Conflict) if attempt < 3 => continue,
            other => other?,
        };
        let (status, location) = match &outcome {
            TriggerOutcome::Created(r) => (
                StatusCode::CREATED,
                Some(state.url(&format!("/v1/runs/{}", r.id))),
            ),
            TriggerOutcome::Coalesced(_) => (StatusCode::OK, None),
        };
        let run = Run::new(&state, outcome.run().clone());
        let response = idem.respond(&mut tx, status, location, &run).await?;
        tx.commit().await?;
        return Ok(response);
    }
}

/// List runs
///
/// Newest first. Scope: read.
#[utoipa::path(get, path = "/v1/workspaces/{ws}/runs", tag = "Runs",
    params(("ws" = String, Path), PageParams), security(("bearer" = ["read"])),
    responses((status = 200, body = Page<Run>), (status = 400, body = ErrorEnvelope)))]
async fn list_runs(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(ws): UrlPath<String>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Run>>> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Read).await?;
    let list = format!("runs:{}", ws.id);
    let page = state.cursors.keyset(&list, &q)?;
    let rows = state.store.runs(ws.id, &page).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| keyset_position(r.created_at, r.id),
        |r| Run::new(&state, r),
    )))
}

/// Trigger a run
///
/// Queues a run of the pipeline for a feature: 201 with the new run (status `queued`,
/// `source: "api"`). When a run for the same feature is already queued and not started, that
/// run is returned instead with 200: it is upgraded to `priority` if asked and its
/// `notify_on_complete` is OR-ed (coalescing, as CI systems skip superseded queued builds).
/// Scope: write.
#[utoipa::path(post, path = "/v1/workspaces/{ws}/runs", tag = "Runs",
    params(("ws" = String, Path)),
    request_body = TriggerRun, security(("bearer" = ["write"])),
    responses((status = 201, body = Run, headers(("Location" = String))),
        (status = 200, description = "Coalesced into the run already queued for this feature", body = Run),
        (status = 409, body = ErrorEnvelope), (status = 422, body = ErrorEnvelope)))]
async fn trigger_run(
    State(state): State<AppState>,
    auth: Auth,
    idem: Idempotency,
    UrlPath(ws): UrlPath<String>,
    body: JsonBody,
) -> ApiResult<Response> {
    let ws = workspace_for(&state, &auth, &ws, Scope::Write).await?;
    ensure_active(&ws)?;
    let req: TriggerRun = body.parse()?;
    validate_feature(&state, &ws, &req.feature_id).await?;
    let new = NewRun {
        workspace_id: ws.id,
        feature_id: req.feature_id,
        surfaces: None,
        source: RunSource::Api,
        tier: req.tier.unwrap_or_default(),
        notify_on_complete: req.notify_on_complete.unwrap_or(true),
    };
    queue_run(&state, &idem, new).await
}

/// Get a run
#[utoipa::path(get, path = "/v1/runs/{id}", tag = "Runs", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Run)))]
async fn get_run(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
) -> ApiResult<axum::Json<Run>> {
    let run_id: RunId = parse_id(&id, "run")?;
    let run = state
        .store
        .run(run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", &id))?;
    auth.check(run.workspace_id, Scope::Read, "run", &id)?;
    Ok(axum::Json(Run::new(&state, run)))
}

/// Get a run's log
///
/// Structured events `{seq, ts, level, stage, message, data}`, oldest first, paged like every
/// list (the cursor resumes after the last `seq`). Stages: resolve, collect, extract, render,
/// validate, store, notify. With `Accept: text/event-stream` the log is a live Server-Sent
/// Events stream instead: each event has `id:` = seq and `data:` = the log event as JSON; a
/// client resumes with `Last-Event-ID`; the stream ends when the run has finished and every
/// event was sent, or after its maximum lifetime (30 minutes by default: reconnect with
/// `Last-Event-ID`). A token holds at most 5 live streams at once by default; one more is
/// refused with 429 `rate_limited` and `Retry-After`. Scope: read.
#[utoipa::path(get, path = "/v1/runs/{id}/log", tag = "Runs",
    params(("id" = String, Path), PageParams,
        ("Last-Event-ID" = Option<i64>, Header, description = "With text/event-stream: resume after this seq.")),
    security(("bearer" = ["read"])),
    responses((status = 200, content(
        (Page<RunLogEvent> = "application/json"),
        (String = "text/event-stream"))),
        (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn run_log(
    State(state): State<AppState>,
    auth: Auth,
    UrlPath(id): UrlPath<String>,
    headers: HeaderMap,
    q: ListQuery,
) -> ApiResult<Response> {
    let run_id: RunId = parse_id(&id, "run")?;
    let run = state
        .store
        .run(run_id)
        .await?
        .ok_or_else(|| ApiError::not_found("run", &id))?;
    auth.check(run.workspace_id, Scope::Read, "run", &id)?;
    let wants_stream = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    if wants_stream {
        let after = match headers.get("last-event-id") {
            None => 0,
            Some(v) => v
                .to_str()
                .ok()
                .and_then(|t| t.trim().parse::<i64>().ok())
                .filter(|n| *n >= 0)
                .ok_or_else(|| {
                    ApiError::invalid_request(
                        "Last-Event-ID",
                        "Last-Event-ID must be a seq number.",
                    )
                })?,
        };
        let slot = state
            .live_logs
            .open(auth.0.token_id)
            .ok_or_else(|| too_many_streams(state.live_logs.limits.per_token))?;
        return Ok(live_log(state, run_id, after, slot).into_response());
    }
    let list = format!("log:{run_id}");
    let after = state.cursors.seq(&list, &q)?.unwrap_or(0);
    let rows = state.store.run_events(run_id, after, q.limit + 1).await?;
    Ok(axum::Json(state.cursors.page(
        &list,
        q.limit,
        rows,
        |r| r.seq.to_string(),
        RunLogEvent::from,
    ))
    .into_response())
}

/// How often an idle stream reads the database anyway: a run executed by another process
/// (another node on PostgreSQL) signals nothing in this one.
const SAFETY_POLL: Duration = Duration::from_secs(2);
/// When a client refused for holding too many streams may try again.
const STREAMS_RETRY_AFTER_SECS: u64 = 5;

/// How many live log streams a token may hold and how long each lasts; from configuration.
#[derive(Clone, Copy, Debug)]
pub struct LiveLogLimits {
    /// Streams open at once per token in one process.
    pub per_token: usize,
    /// A stream ends after this long; the client resumes with `Last-Event-ID`.
    pub lifetime: Duration,
}

/// The live log streams open in this process, per token.
#[derive(Debug)]
pub struct LiveLogs {
    pub limits: LiveLogLimits,
    open: Arc<Mutex<HashMap<TokenId, usize>>>,
}

impl LiveLogs {
    pub fn new(limits: LiveLogLimits) -> Self {
        Self {
            limits,
            open: Arc::default(),
        }
    }

    /// A slot for one more stream of `token`, or `None` when it holds its maximum.
    fn open(&self, token: TokenId) -> Option<StreamSlot> {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        let n = open.entry(token).or_default();
        if *n >= self.limits.per_token {
            return None;
        }
        *n += 1;
        Some(StreamSlot {
            token,
            open: Arc::clone(&self.open),
        })
    }
}

/// Held by a stream for as long as it is open (the client going away drops it too).
struct StreamSlot {
    token: TokenId,
    open: Arc<Mutex<HashMap<TokenId, usize>>>,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = open.get_mut(&self.token) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.token);
            }
        }
    }
}

fn too_many_streams(per_token: usize) -> ApiError {
    let retry = STREAMS_RETRY_AFTER_SECS.to_string();
    ApiError::new(
        ErrorType::RateLimited,
        format!(
            "This token already holds {per_token} live log streams, the most allowed at once; \
             close one or retry after {retry} s."
        ),
    )
    .with_header(header::RETRY_AFTER, &retry)
}

/// What a stream carries from one step to the next.
struct LiveLog {
    state: AppState,
    run_id: RunId,
    after: i64,
    done: bool,
    pending: std::collections::VecDeque<Event>,
    changes: store::RunChanges,
    ends_at: tokio::time::Instant,
    _slot: StreamSlot,
}

/// Streams a run's log from `after` on and ends once the run has finished and its last event
/// was sent, or at the stream's lifetime. It reads the database when this process commits a
/// change to the run, and every [`SAFETY_POLL`] for changes made elsewhere.
fn live_log(
    state: AppState,
    run_id: RunId,
    after: i64,
    slot: StreamSlot,
) -> Sse<impl futures_util::Stream<Item = Result<Event, std::convert::Infallible>>> {
    let live = LiveLog {
        // Followed before the first read, so no change between that read and the first wait
        // goes unnoticed.
        changes: state.store.follow_run(run_id),
        ends_at: tokio::time::Instant::now() + state.live_logs.limits.lifetime,
        state,
        run_id,
        after,
        done: false,
        pending: std::collections::VecDeque::new(),
        _slot: slot,
    };
    let stream = futures_util::stream::unfold(live, |mut live| async move {
        loop {
            if let Some(event) = live.pending.pop_front() {
                return Some((Ok(event), live));
            }
            if live.done || tokio::time::Instant::now() >= live.ends_at {
                return None;
            }
            metrics::counter!("run_log_stream_reads_total").increment(1);
            // Read the status before the events: a run that finished after this read still
            // has all its events visible to the next read.
            let finished = matches!(
                live.state.store.run(live.run_id).await,
                Ok(Some(r)) if r.status.is_finished()
            );
            match live
                .state
                .store
                .run_events(live.run_id, live.after, 100)
                .await
            {
                Ok(rows) if !rows.is_empty() => {
                    for row in rows {
                        live.after = row.seq;
                        let data =
                            serde_json::to_string(&RunLogEvent::from(row)).unwrap_or_default();
                        live.pending
                            .push_back(Event::default().id(live.after.to_string()).data(data));
                    }
                }
                Ok(_) if finished => live.done = true,
                Ok(_) => {
                    tokio::select! {
                        _ = live.changes.changed() => {}
                        _ = tokio::time::sleep(SAFETY_POLL) => {}
                        _ = tokio::time::sleep_until(live.ends_at) => {}
                    }
                }
                Err(_) => live.done = true,
            }
        }
    });
    Sse::new(stream).keep_alive(KeepAlive::default())
}
