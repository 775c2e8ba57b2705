//! The run executor: claims queued runs (priority first, oldest first) with a lease kept
//! alive by a heartbeat, runs the pipeline on a blocking thread while its log events stream
//! into the database, and stores the articles, the run's end and the events they cause in one
//! transaction. A run whose worker died is claimed again when its lease expires, at most
//! `max_attempts` times; a version is never written twice (the store refuses a second version
//! of an article from the same run).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::{Clock, EventType, RunId, RunStatus, Surface};
use pipeline::{Level, LogSink, RunRequest, Stage};
use store::{
    ArticleFilter, Artifact, KeysetPage, NewArticleVersion, RunEnding, RunRecord, Store, StoreError,
};
use tokio::sync::mpsc;

use crate::polish::Polisher;
use crate::{Renderers, Shutdown, WorkerContext};

#[derive(Clone, Debug)]
pub struct RunWorkerConfig {
    /// Runs executed at once by this process.
    pub concurrency: usize,
    pub lease: Duration,
    pub poll_interval: Duration,
    pub max_attempts: i64,
}

impl Default for RunWorkerConfig {
    fn default() -> Self {
        Self {
            concurrency: 2,
            lease: Duration::from_secs(30),
            poll_interval: Duration::from_millis(200),
            max_attempts: 3,
        }
    }
}

/// One log line on its way from the pipeline thread to the database.
struct LogLine {
    level: &'static str,
    stage: &'static str,
    message: String,
    data: serde_json::Value,
}

struct ChannelLog(mpsc::UnboundedSender<LogLine>);

impl LogSink for ChannelLog {
    fn log(&mut self, level: Level, stage: Stage, message: &str, data: serde_json::Value) {
        let _ = self.0.send(LogLine {
            level: level.as_str(),
            stage: stage.as_str(),
            message: message.to_owned(),
            data,
        });
    }
}

/// Runs until `shutdown` is triggered; runs in hand are finished before it returns.
pub async fn run_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    let WorkerContext {
        store,
        clock,
        renderers,
        runs: config,
        polish,
        ..
    } = ctx;
    let polisher = polish.and_then(|p| match Polisher::new(p) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!(error = %e, "prose polish is off: its HTTP client could not be built");
            None
        }
    });
    let worker_id = format!("worker-{}", RunId::generate());
    let slots = std::sync::Arc::new(tokio::sync::Semaphore::new(config.concurrency.max(1)));
    let mut tasks = tokio::task::JoinSet::new();
    loop {
        if shutdown.is_triggered() {
            break;
        }
        fail_abandoned(&store, &clock, &renderers, config.max_attempts).await;
        let permit = match slots.clone().acquire_owned().await {
            Ok(p) => p,
            Err(_) => break,
        };
        let now = clock.timestamp();
        match store
            .claim_run(&worker_id, now.plus(config.lease), now, config.max_attempts)
            .await
        {
            Ok(Some(run)) => {
                let (store, clock, renderers, config, worker_id, polisher) = (
                    store.clone(),
                    clock.clone(),
                    renderers.clone(),
                    config.clone(),
                    worker_id.clone(),
                    polisher.clone(),
                );
                tasks.spawn(async move {
                    let job = Job {
                        store: &store,
                        clock: &clock,
                        renderers: &renderers,
                        config: &config,
                        worker_id: &worker_id,
                        polisher: polisher.as_ref(),
                    };
                    execute(&job, run).await;
                    drop(permit);
                });
            }
            Ok(None) => {
                drop(permit);
                shutdown.sleep(config.poll_interval).await;
            }
            Err(e) => {
                drop(permit);
                tracing::warn!(error = %e, "could not claim a run");
                tokio::time::sleep(config.poll_interval).await;
            }
        }
        while tasks.try_join_next().is_some() {}
    }
    while tasks.join_next().await.is_some() {}
}

/// Fails runs whose worker died on their last allowed attempt.
async fn fail_abandoned(store: &Store, clock: &Clock, renderers: &Renderers, max_attempts: i64) {
    let Ok(runs) = store.abandoned_runs(clock.timestamp(), max_attempts).await else {
        return;
    };
    for run in runs {
        let ending = RunEnding {
            status: RunStatus::Failed,
            source_commit: None,
            artifacts: Vec::new(),
            error: Some(format!(
                "The run was abandoned: its worker stopped responding {max_attempts} times."
            )),
        };
        if let Err(e) = finish(store, clock, renderers, None, run, ending, Vec::new()).await {
            tracing::warn!(error = %e, "could not fail an abandoned run");
        }
    }
}

async fn log(store: &Store, clock: &Clock, run: RunId, level: &str, stage: &str, message: &str) {
    let _ = store
        .log_run_event(
            run,
            level,
            stage,
            message,
            &serde_json::json!({}),
            clock.timestamp(),
        )
        .await;
}

/// What executing one run needs.
struct Job<'a> {
    store: &'a Store,
    clock: &'a Clock,
    renderers: &'a Renderers,
    config: &'a RunWorkerConfig,
    worker_id: &'a str,
    polisher: Option<&'a Polisher>,
}

async fn execute(job: &Job<'_>, run: RunRecord) {
    let Job {
        store,
        clock,
        renderers,
        config,
        worker_id,
        polisher,
    } = *job;
    let run_id = run.id;
    let workspace_id = run.workspace_id;
    let heartbeat = {
        let (store, worker, lease) = (store.clone(), worker_id.to_owned(), config.lease);
        let clock = clock.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(lease / 3).await;
                let alive = store
                    .heartbeat_run(run_id, &worker, clock.timestamp().plus(lease))
                    .await;
                if !matches!(alive, Ok(true)) {
                    break;
                }
            }
        })
    };

    let mut outcome = generate(store, clock, &run).await;
    if let (Ok(output), Some(polisher)) = (&mut outcome, polisher) {
        for article in &mut output.articles {
            let (level, message) = match polisher.polish(&article.mdx_body).await {
                Ok(polished) => {
                    article.mdx_body = polished;
                    ("info", format!("polished the {} article", article.surface))
                }
                Err(why) => (
                    "warn",
                    format!("kept the deterministic {} text: {why}", article.surface),
                ),
            };
            log(store, clock, run_id, level, "render", &message).await;
        }
    }
    let ending_and_versions = match outcome {
        Ok(output) => {
            let versions: Vec<NewArticleVersion> = output
                .articles
                .iter()
                .map(|a| NewArticleVersion {
                    workspace_id: run.workspace_id,
                    feature_id: run.feature_id.clone(),
                    surface: a.surface,
                    title: a.title.clone(),
                    status: a.status(),
                    mdx_body: a.mdx_body.clone(),
                    provenance: serde_json::to_value(&a.provenance).unwrap_or_default(),
                    run_id,
                })
                .collect();
            let ending = RunEnding {
                status: RunStatus::Succeeded,
                source_commit: Some(output.commit.clone()),
                artifacts: Vec::new(),
                error: None,
            };
            (ending, versions)
        }
        Err(message) => (
            RunEnding {
                status: RunStatus::Failed,
                source_commit: None,
                artifacts: Vec::new(),
                error: Some(message),
            },
            Vec::new(),
        ),
    };
    let (ending, versions) = ending_and_versions;
    let result = finish(
        store,
        clock,
        renderers,
        Some(worker_id),
        run,
        ending,
        versions,
    )
    .await;
    heartbeat.abort();
    match result {
        Ok(true) => {
            // Every run is also a drift check of its workspace against the HEAD it just read.
            let workspace = store.workspace(workspace_id).await.ok().flatten();
            if let Some(repo) = workspace.as_ref().and_then(|w| w.repo_path.as_deref()) {
                let checked =
                    crate::drift::check_workspace(store, clock, workspace_id, Path::new(repo));
                if let Err(e) = checked.await {
                    tracing::warn!(%run_id, error = %e, "drift check after the run failed");
                }
            }
        }
        Ok(false) => tracing::warn!(%run_id, "lost the run's lease; its result was discarded"),
        Err(e) => {
            tracing::error!(%run_id, error = %e, "could not store the run's result");
            log(
                store,
                clock,
                run_id,
                "error",
                "store",
                "The result could not be stored; the run will be retried.",
            )
            .await;
        }
    }
}

/// Runs the pipeline on a blocking thread, streaming its log into the database.
async fn generate(
    store: &Store,
    clock: &Clock,
    run: &RunRecord,
) -> Result<pipeline::RunOutput, String> {
    let workspace = store
        .workspace(run.workspace_id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("The workspace no longer exists.")?;
    let repo: PathBuf = workspace
        .repo_path
        .ok_or("The workspace has no repo_path.")?
        .into();
    let since = store
        .last_successful_commit(run.workspace_id, &run.feature_id)
        .await
        .map_err(|e| e.to_string())?;
    let filter = ArticleFilter {
        feature_id: Some(run.feature_id.clone()),
        ..ArticleFilter::default()
    };
    let current = store
        .articles(run.workspace_id, &filter, &KeysetPage::first(10))
        .await
        .map_err(|e| e.to_string())?;
    let versions: BTreeMap<Surface, i64> =
        current.iter().map(|a| (a.surface, a.version + 1)).collect();
    let surfaces = run.surfaces.as_ref().map(|s| s.0.clone());
    let feature = run.feature_id.clone();

    let (tx, mut rx) = mpsc::unbounded_channel::<LogLine>();
    let writer = {
        let (store, clock, run_id) = (store.clone(), clock.clone(), run.id);
        tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                let _ = store
                    .log_run_event(
                        run_id,
                        line.level,
                        line.stage,
                        &line.message,
                        &line.data,
                        clock.timestamp(),
                    )
                    .await;
            }
        })
    };
    let result = tokio::task::spawn_blocking(move || {
        let limits = pipeline::Limits::default();
        let mut sink = ChannelLog(tx);
        let request = RunRequest {
            repo: &repo,
            feature_id: &feature,
            since_commit: since.as_deref(),
            surfaces: surfaces.as_deref(),
            versions: &versions,
            limits: &limits,
        };
        pipeline::run(&request, &mut sink)
    })
    .await;
    let _ = writer.await;
    match result {
        Ok(Ok(output)) => Ok(output),
        Ok(Err(e)) => Err(e.to_string()),
        Err(e) => Err(format!("The pipeline stopped unexpectedly: {e}")),
    }
}

/// Stores the articles, the run's end and the events they cause, in one transaction.
/// Returns false when the run was no longer this worker's.
async fn finish(
    store: &Store,
    clock: &Clock,
    renderers: &Renderers,
    worker: Option<&str>,
    run: RunRecord,
    mut ending: RunEnding,
    versions: Vec<NewArticleVersion>,
) -> Result<bool, StoreError> {
    let now = clock.timestamp();
    let mut tx = store.begin().await?;
    let mut drafted = Vec::new();
    for version in &versions {
        let article = tx.write_article_version(version, now).await?;
        ending.artifacts.push(Artifact {
            article_id: article.id,
            surface: article.surface,
            version: article.version,
        });
        drafted.push(article);
    }
    let Some(finished) = tx.finish_run(run.id, worker, &ending, now).await? else {
        return Ok(false);
    };
    for article in drafted {
        tx.record_event(
            run.workspace_id,
            EventType::ArticleDrafted,
            (renderers.article)(article),
            now,
        )
        .await?;
    }
    if finished.notify_on_complete {
        let kind = match finished.status {
            RunStatus::Succeeded => EventType::RunCompleted,
            _ => EventType::RunFailed,
        };
        tx.record_event(
            run.workspace_id,
            kind,
            (renderers.run)(finished.clone()),
            now,
        )
        .await?;
    }
    let (level, message) = match &finished.error {
        None => (
            "info",
            format!("Stored {} article version(s).", ending.artifacts.len()),
        ),
        Some(e) => ("error", format!("The run failed: {e}")),
    };
    tx.append_run_event(
        run.id,
        level,
        "store",
        &message,
        &serde_json::json!({"artifacts": ending.artifacts.len()}),
        now,
    )
    .await?;
    if finished.notify_on_complete {
        tx.append_run_event(
            run.id,
            "info",
            "notify",
            "Recorded the run's completion event.",
            &serde_json::json!({}),
            now,
        )
        .await?;
    }
    tx.commit().await?;
    metrics::counter!("pipeline_runs_finished_total", "status" => finished.status.as_str())
        .increment(1);
    if let (Some(started), Some(ended)) = (finished.started_at, finished.finished_at) {
        let seconds = (ended.micros() - started.micros()) as f64 / 1e6;
        metrics::histogram!("pipeline_run_duration_seconds").record(seconds.max(0.0));
    }
    Ok(true)
}
