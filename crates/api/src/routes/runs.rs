use axum::extract::State;
use axum::http::{HeaderMap, header};
use axum::response::{IntoResponse, Response};
use domain::Scope;
use operations::runs::TriggerRun;
use operations::views::{self, Run, RunLogEvent};
use store::{NewRun, RunFilter, RunRecord, TriggerOutcome, WorkspaceRecord};
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Id;
use crate::auth::Auth;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult, ErrorEnvelope};
use crate::idempotency::{Answer, Idempotency, Recorded};
use crate::live_log::{live_log, too_many_streams};
use crate::paging::{ListQuery, Page, PageParams};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_runs, trigger_run))
        .routes(routes!(get_run))
        .routes(routes!(run_log))
}

/// Queues a run or joins the one already queued for the feature, answering 201 or 200.
/// Shared by run triggers and article regeneration.
pub async fn queue_run(state: &AppState, idem: &Idempotency, new: NewRun) -> ApiResult<Recorded> {
    let ops = state.ops.clone();
    state
        .write(idem, move |tx| {
            Box::pin(async move {
                let outcome = ops.queue_run(tx, new).await?;
                let created = matches!(outcome, TriggerOutcome::Created(_));
                let run = views::run(&ops.base_url, outcome.run().clone(), ops.clock.timestamp());
                Ok(match created {
                    true => Answer::created(ops.url(&format!("/v1/runs/{}", run.id)), run),
                    false => Answer::ok(run),
                })
            })
        })
        .await
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
    Id(ws): Id<WorkspaceRecord>,
    q: ListQuery,
) -> ApiResult<axum::Json<Page<Run>>> {
    let ws: WorkspaceRecord = state.ops.load(&auth, ws, Scope::Read).await?;
    let (ops, ws) = (&state.ops, &ws);
    state
        .cursors
        .keyset_list(
            &format!("runs:{}", ws.id),
            &q,
            move |page| async move { ops.runs_page(ws, &RunFilter::default(), &page).await },
            |r| views::run(&state.base_url, r, state.clock.timestamp()),
        )
        .await
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
    Id(ws): Id<WorkspaceRecord>,
    body: JsonBody,
) -> ApiResult<Recorded> {
    let ws = state.ops.active_workspace(&auth, ws, Scope::Write).await?;
    let req: TriggerRun = body.parse()?;
    let new = state
        .ops
        .run_to_trigger(&ws, req, domain::RunSource::Api)
        .await?;
    queue_run(&state, &idem, new).await
}

/// Get a run
#[utoipa::path(get, path = "/v1/runs/{id}", tag = "Runs", params(("id" = String, Path)),
    security(("bearer" = ["read"])), responses((status = 200, body = Run)))]
async fn get_run(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<RunRecord>,
) -> ApiResult<axum::Json<Run>> {
    let run = state.ops.load(&auth, id, Scope::Read).await?;
    Ok(axum::Json(views::run(
        &state.base_url,
        run,
        state.clock.timestamp(),
    )))
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
        ("Last-Event-ID" = Option<i64>, Header, minimum = 0,
            description = "With text/event-stream: resume after this seq. Checked with either view: a value that is not a seq is 400.")),
    security(("bearer" = ["read"])),
    responses((status = 200, content(
        (Page<RunLogEvent> = "application/json"),
        (String = "text/event-stream"))),
        (status = 400, body = ErrorEnvelope), (status = 429, body = ErrorEnvelope)))]
async fn run_log(
    State(state): State<AppState>,
    auth: Auth,
    Id(id): Id<RunRecord>,
    headers: HeaderMap,
    q: ListQuery,
) -> ApiResult<Response> {
    let run: RunRecord = state.ops.load(&auth, id, Scope::Read).await?;
    let run_id = run.id;
    let wants_stream = headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/event-stream"));
    // Checked whichever view is asked for: the header is documented as a seq, so a malformed
    // one is refused rather than ignored by the JSON view.
    let after = match headers.get("last-event-id") {
        None => 0,
        Some(v) => v
            .to_str()
            .ok()
            .and_then(|t| t.trim().parse::<i64>().ok())
            .filter(|n| *n >= 0)
            .ok_or_else(|| {
                ApiError::invalid_request("Last-Event-ID", "Last-Event-ID must be a seq number.")
            })?,
    };
    if wants_stream {
        let slot = auth
            .token_id
            .and_then(|token| state.live_logs.open(token))
            .ok_or_else(|| too_many_streams(state.live_logs.limits.per_token))?;
        return Ok(live_log(state, run_id, after, slot).into_response());
    }
    let (ops, run) = (&state.ops, &run);
    let page = state
        .cursors
        .seq_list(
            &format!("log:{run_id}"),
            &q,
            move |after, n| async move { ops.run_events_page(run, after.unwrap_or(0), n).await },
            views::run_log_event,
        )
        .await?;
    Ok(page.into_response())
}
