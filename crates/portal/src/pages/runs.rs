//! Runs: the list (filtered by status and feature, refreshing itself while runs move), "Run
//! now", and a run's page with its log grouped by stage and, while it runs, streamed live.

use std::convert::Infallible;

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use axum::{Form, Router};
use domain::{LogLevel, LogStage, RunId, RunSource, RunStatus, Scope, Tier, Timestamp};
use futures_util::StreamExt as _;
use operations::ErrorKind;
use operations::runs::TriggerRun;
use serde::Deserialize;
use store::{RunEventRecord, RunFilter, RunRecord};

use super::{Member, list_page, list_url};
use crate::Portal;
use crate::web::{Nav, PageError, PageResult, duration_between, render, short_commit, when};

/// Rows per page of the list.
/// The most log events a run's page shows at once (a run logs far fewer).
const MAX_LOG_EVENTS: usize = 5_000;

pub fn router() -> Router<Portal> {
    Router::new()
        .route("/portal/w/{ws}/runs", get(list).post(trigger))
        .route("/portal/w/{ws}/runs/{id}", get(show))
        .route("/portal/w/{ws}/runs/{id}/log", get(live_log))
}

/// A run as a row of the list and the head of its page.
pub struct RunRow {
    pub id: RunId,
    pub feature_id: String,
    pub status: RunStatus,
    pub source: RunSource,
    pub tier: Tier,
    pub created: String,
    pub started: String,
    pub finished: String,
    pub duration: String,
    pub commit: String,
    pub error: String,
}

impl RunRow {
    /// `r` as it stands at `now` (a run waiting to be taken again shows queued).
    pub fn new(r: &RunRecord, now: Timestamp) -> Self {
        let end = r.finished_at.unwrap_or(r.updated_at);
        Self {
            id: r.id,
            feature_id: r.feature_id.clone(),
            status: r.status_at(now),
            source: r.source,
            tier: r.tier,
            created: when(r.created_at),
            started: r.started_at.map(when).unwrap_or_default(),
            finished: r.finished_at.map(when).unwrap_or_default(),
            duration: r
                .started_at
                .filter(|_| r.status.is_finished())
                .map(|s| duration_between(s, end))
                .unwrap_or_default(),
            commit: r
                .source_commit
                .as_deref()
                .map(short_commit)
                .unwrap_or_default()
                .to_owned(),
            error: r.error.clone().unwrap_or_default(),
        }
    }

    pub fn moving(&self) -> bool {
        !self.status.is_finished()
    }
}

#[derive(Deserialize, Default)]
struct ListQuery {
    status: Option<String>,
    feature: Option<String>,
    before: Option<String>,
    /// `rows`: only the table's body (the list refreshing itself).
    partial: Option<String>,
}

struct Choice {
    id: String,
    title: String,
}

#[derive(Template)]
#[template(path = "portal/runs.html")]
struct RunsPage {
    nav: Nav,
    rows: Vec<RunRow>,
    /// Refresh the rows while one of them is queued or running.
    live: bool,
    /// The query string of this view (filters and page), for the refresh and the next page.
    rows_url: String,
    next_url: Option<String>,
    status: String,
    feature: String,
    statuses: &'static [RunStatus],
    features: Vec<Choice>,
    features_error: Option<String>,
    trigger_error: Option<String>,
    form_path: String,
}

#[derive(Template)]
#[template(path = "portal/runs_rows.html")]
struct RunsRows<'a> {
    nav: &'a Nav,
    rows: &'a [RunRow],
    live: bool,
    rows_url: &'a str,
}

async fn list(
    State(portal): State<Portal>,
    member: Member,
    Query(q): Query<ListQuery>,
) -> PageResult {
    runs_page(&portal, &member, q, None, String::new(), StatusCode::OK).await
}

async fn runs_page(
    portal: &Portal,
    member: &Member,
    q: ListQuery,
    trigger_error: Option<String>,
    form_path: String,
    code: StatusCode,
) -> PageResult {
    let status = q
        .status
        .as_deref()
        .filter(|s| !s.is_empty())
        .and_then(|s| s.parse::<RunStatus>().ok());
    let feature = q
        .feature
        .as_deref()
        .map(str::trim)
        .filter(|f| !f.is_empty())
        .map(|f| f.chars().take(200).collect::<String>());
    let filter = RunFilter {
        status,
        feature_id: feature.clone(),
    };
    let (ops, record) = (&portal.ops, &member.ws);
    let ws = record.id;
    let now = portal.ops.clock.timestamp();
    let listed = list_page(
        &portal.config.cursors,
        &format!("runs:{ws}"),
        q.before.as_deref(),
        |page| async move { ops.runs_page(record, &filter, &page).await },
        |r: &RunRecord| (r.created_at, r.id),
    )
    .await?;
    let records = listed.rows;
    let filters = |before: Option<String>, partial: bool| {
        list_url(
            &format!("/portal/w/{ws}/runs"),
            &[
                ("status", status.map(|s| s.as_str().to_owned())),
                ("feature", feature.clone()),
                ("before", before),
                ("partial", partial.then(|| "rows".to_owned())),
            ],
        )
    };
    let next_url = listed.next_before.map(|b| filters(Some(b), false));
    let rows_url = filters(q.before.clone(), true);
    let rows: Vec<RunRow> = records.iter().map(|r| RunRow::new(r, now)).collect();
    let live = rows.iter().any(RunRow::moving);
    let nav = member.nav("runs");
    if q.partial.as_deref() == Some("rows") {
        let partial = RunsRows {
            nav: &nav,
            rows: &rows,
            live,
            rows_url: &rows_url,
        };
        return render(&partial);
    }
    let (features, features_error) = match portal.ops.declared_features(&member.ws).await {
        Ok(list) => (
            list.into_iter()
                .map(|f| Choice {
                    id: f.id,
                    title: f.title,
                })
                .collect(),
            None,
        ),
        Err(e) if matches!(e.kind, ErrorKind::Internal | ErrorKind::Unavailable) => {
            return Err(e.into());
        }
        Err(e) => (Vec::new(), Some(e.message)),
    };
    let page = RunsPage {
        nav,
        rows,
        live,
        rows_url,
        next_url,
        status: status.map(|s| s.as_str().to_owned()).unwrap_or_default(),
        feature: feature.unwrap_or_default(),
        statuses: RunStatus::ALL,
        features,
        features_error,
        trigger_error,
        form_path,
    };
    Ok((code, render(&page)?).into_response())
}

#[derive(Deserialize)]
struct TriggerForm {
    #[serde(default)]
    feature: String,
    /// A path of the repository, used instead of a declared feature when given.
    #[serde(default)]
    path: String,
    #[serde(default)]
    tier: String,
    /// A branch, tag or commit to run at; empty: the default branch.
    #[serde(default)]
    git_ref: String,
}

async fn trigger(
    State(portal): State<Portal>,
    member: Member,
    Form(form): Form<TriggerForm>,
) -> PageResult {
    let path = form.path.trim().to_owned();
    let feature_id = if path.is_empty() {
        form.feature.clone()
    } else {
        path.clone()
    };
    let tier = match form.tier.as_str() {
        "" => None,
        t => Some(
            t.parse::<Tier>()
                .map_err(|e| PageError::new(StatusCode::UNPROCESSABLE_ENTITY, e.to_string()))?,
        ),
    };
    let queued = async {
        let ws = portal
            .ops
            .active_workspace(&member.caller, member.ws.id, Scope::Write)
            .await?;
        let req = TriggerRun {
            feature_id,
            tier,
            notify_on_complete: None,
            git_ref: Some(form.git_ref.trim().to_owned()).filter(|r| !r.is_empty()),
        };
        let new = portal
            .ops
            .run_to_trigger(&ws, req, RunSource::Portal)
            .await?;
        let ops = portal.ops.clone();
        portal
            .ops
            .store
            .write(move |tx| Box::pin(async move { ops.queue_run(tx, new).await }))
            .await
    }
    .await;
    match queued {
        Ok(outcome) => Ok(Redirect::to(&format!(
            "/portal/w/{}/runs/{}",
            member.ws.id,
            outcome.run().id
        ))
        .into_response()),
        Err(e) if e.kind == ErrorKind::Validation => {
            runs_page(
                &portal,
                &member,
                ListQuery::default(),
                Some(e.message),
                path,
                StatusCode::UNPROCESSABLE_ENTITY,
            )
            .await
        }
        Err(e) => Err(e.into()),
    }
}

/// One line of a run's log.
pub struct LogLine {
    pub seq: i64,
    pub time: String,
    pub level: LogLevel,
    pub stage: LogStage,
    pub message: String,
}

impl LogLine {
    fn new(e: &RunEventRecord) -> Self {
        let ts = e.ts.to_string();
        Self {
            seq: e.seq,
            time: ts.get(11..23).unwrap_or(&ts).to_owned(),
            level: e.level,
            stage: e.stage,
            message: e.message.clone(),
        }
    }
}

/// The lines of one stage, folded unless it is the one to look at.
struct StageLog {
    stage: LogStage,
    lines: Vec<LogLine>,
    duration: String,
    open: bool,
    failed: bool,
}

struct ArticleLink {
    id: String,
    surface: String,
    version: i64,
    unchanged: bool,
}

#[derive(Template)]
#[template(path = "portal/run.html")]
struct RunPage {
    nav: Nav,
    run: RunRow,
    stages: Vec<StageLog>,
    last_seq: i64,
    articles: Vec<ArticleLink>,
    truncated: bool,
}

async fn show(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
) -> PageResult {
    let run = load_run(&portal, &member, &id).await?;
    let mut events = Vec::new();
    let mut after = 0;
    loop {
        let batch = portal
            .ops
            .store
            .run_events(run.id, after, 1000)
            .await
            .map_err(operations::Error::from)?;
        let Some(last) = batch.last() else { break };
        after = last.seq;
        let full = batch.len() == 1000;
        events.extend(batch);
        if !full || events.len() >= MAX_LOG_EVENTS {
            break;
        }
    }
    let truncated = events.len() >= MAX_LOG_EVENTS;
    let stages = stage_logs(&run, &events);
    let page = RunPage {
        nav: member.nav("runs"),
        last_seq: after,
        articles: run
            .artifacts
            .0
            .iter()
            .map(|a| ArticleLink {
                id: a.article_id.to_string(),
                surface: a.surface.as_str().to_owned(),
                version: a.version,
                unchanged: a.unchanged,
            })
            .collect(),
        run: RunRow::new(&run, portal.ops.clock.timestamp()),
        stages,
        truncated,
    };
    render(&page)
}

async fn load_run(portal: &Portal, member: &Member, id: &str) -> PageResult<RunRecord> {
    let id: RunId = id.parse().map_err(|_| PageError::not_found())?;
    let run: RunRecord = portal.ops.load(&member.caller, id, Scope::Read).await?;
    member.owns(run.workspace_id)?;
    Ok(run)
}

/// Groups the log by stage, in the stages' order. Each stage lasts from its first event to
/// the next stage's first (or the run's end). The stage that failed is open (the one of the
/// last error, or the last one reached); while the run goes on, all are, so that the lines
/// streamed in are seen.
fn stage_logs(run: &RunRecord, events: &[RunEventRecord]) -> Vec<StageLog> {
    let firsts: Vec<(LogStage, domain::Timestamp)> = LogStage::ALL
        .iter()
        .filter_map(|s| events.iter().find(|e| e.stage == *s).map(|e| (*s, e.ts)))
        .collect();
    let reached = firsts.last().map(|(s, _)| *s);
    let failed = (run.status == RunStatus::Failed)
        .then(|| {
            events
                .iter()
                .rev()
                .find(|e| e.level == LogLevel::Error)
                .map(|e| e.stage)
                .or(reached)
        })
        .flatten();
    LogStage::ALL
        .iter()
        .map(|&stage| {
            let lines: Vec<LogLine> = events
                .iter()
                .filter(|e| e.stage == stage)
                .map(LogLine::new)
                .collect();
            let start = firsts.iter().position(|(s, _)| *s == stage);
            let duration = start
                .and_then(|i| {
                    let from = firsts[i].1;
                    let to = firsts
                        .get(i + 1)
                        .map(|(_, t)| *t)
                        .or(run.finished_at)
                        .or_else(|| events.iter().rev().find(|e| e.stage == stage).map(|e| e.ts))?;
                    Some(duration_between(from, to))
                })
                .unwrap_or_default();
            StageLog {
                open: failed == Some(stage) || !run.status.is_finished(),
                failed: failed == Some(stage),
                stage,
                lines,
                duration,
            }
        })
        .collect()
}

#[derive(Template)]
#[template(path = "portal/log_line.html")]
struct LiveLine {
    line: LogLine,
}

#[derive(Deserialize)]
struct LogQuery {
    after: Option<i64>,
}

/// The run's log as Server-Sent Events for htmx's SSE extension: each `line` event is an
/// out-of-band fragment that appends the line to its stage, and a `done` event tells the page
/// to reload itself once the run has finished. Resumes after `Last-Event-ID` (or `after`).
async fn live_log(
    State(portal): State<Portal>,
    member: Member,
    Path((_, id)): Path<(String, String)>,
    Query(q): Query<LogQuery>,
    headers: HeaderMap,
) -> PageResult<Response> {
    let run = load_run(&portal, &member, &id).await?;
    let after = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i64>().ok())
        .or(q.after)
        .unwrap_or(0)
        .max(0);
    let Some(slot) = portal.live_logs.open(member.session.user.id) else {
        return Err(PageError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "You are following too many run logs at once; close a tab.",
        ));
    };
    let (ops, run_id) = (portal.ops.clone(), run.id);
    let lines = portal
        .ops
        .follow_log(run.id, after, portal.config.live_log_lifetime())
        .filter_map(|e| {
            let seq = e.seq;
            let html = LiveLine {
                line: LogLine::new(&e),
            }
            .render();
            std::future::ready(
                html.ok()
                    .map(|h| Event::default().id(seq.to_string()).event("line").data(h)),
            )
        });
    let done = futures_util::stream::once(async move {
        let finished = matches!(ops.store.run(run_id).await, Ok(Some(r)) if r.status.is_finished());
        drop(slot);
        finished.then(|| Event::default().event("done").data("finished"))
    })
    .filter_map(std::future::ready);
    let events = lines.chain(done).map(Ok::<_, Infallible>);
    Ok(Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response())
}
