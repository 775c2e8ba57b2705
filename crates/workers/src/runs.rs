//! The run executor: claims queued runs (priority first, oldest first) with a lease kept
//! alive by a heartbeat, runs the pipeline on a blocking thread while its log events stream
//! into the database, and stores the articles, the run's end and the events they cause in one
//! transaction. A run whose worker died is claimed again when its lease expires, at most
//! `max_attempts` times; a version is never written twice (the store refuses a second version
//! of an article from the same run).

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use domain::{Clock, EventType, LogLevel, LogStage, RunId, RunStatus, Surface, Timestamp};
use store::{
    ArticleFilter, Artifact, KeysetPage, NewArticleVersion, Queue, RunEnding, RunRecord, Store,
    StoreError, Tx, Wakeup,
};
use tokio::sync::mpsc;

use operations::views;

use crate::polish::Polisher;
use crate::sandbox::{LogLine, RunResult, Sandbox, Source, Work};
use crate::{Shutdown, WorkerContext};

#[derive(Clone, Debug)]
pub struct RunWorkerConfig {
    /// Runs executed at once by this process.
    pub concurrency: usize,
    pub lease: Duration,
    /// How often an idle worker looks for runs without being woken: queued runs and drift
    /// checks wake it (see `store::Wakeup`), and it sleeps until the next lease in hand could
    /// expire, so this only bounds how late a missed wake-up is made up for.
    pub safety_poll: Duration,
    pub max_attempts: i64,
    /// How long runs in hand may take to finish once the worker is told to stop; those still
    /// running then go back to the queue (see [`Store::hand_back_run`]).
    pub hand_back_after: Duration,
}

impl Default for RunWorkerConfig {
    fn default() -> Self {
        Self {
            concurrency: 2,
            lease: Duration::from_secs(30),
            safety_poll: Duration::from_secs(5),
            max_attempts: 3,
            hand_back_after: Duration::from_secs(5),
        }
    }
}

/// Runs until `shutdown` is triggered; runs in hand are finished before it returns.
pub async fn run_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    let WorkerContext {
        store,
        clock,
        base_url,
        runs: config,
        polish,
        sandbox,
        server_key,
        ops,
        ..
    } = ctx;
    let secrets = crate::repository::credentials_box(&server_key);
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
    // The runs being executed, by the task that executes each.
    let mut in_hand: HashMap<tokio::task::Id, RunId> = HashMap::new();
    let mut wakeup = store.wakeup(Queue::Runs);
    loop {
        if shutdown.is_triggered() {
            break;
        }
        // Wake-ups from here on are not missed while this looks for work.
        wakeup.arm();
        fail_abandoned(&store, &clock, &base_url, config.max_attempts).await;
        // Every slot busy: wait for one, or for the order to stop.
        let permit = tokio::select! {
            permit = slots.clone().acquire_owned() => match permit {
                Ok(p) => p,
                Err(_) => break,
            },
            () = shutdown.wait() => break,
        };
        let now = clock.timestamp();
        match claim(&store, &worker_id, &config, now).await {
            Ok(Some(Claimed::Push(delivery))) => {
                let (ops, sandbox, worker_id, secrets) = (
                    ops.clone(),
                    sandbox.clone(),
                    worker_id.clone(),
                    secrets.clone(),
                );
                tasks.spawn(async move {
                    let reader = crate::forge::PushReader {
                        ops: &ops,
                        sandbox: &sandbox,
                        secrets: &secrets,
                    };
                    crate::forge::execute_delivery(&reader, &worker_id, delivery).await;
                    drop(permit);
                });
            }
            Ok(Some(Claimed::Run(run))) => {
                let (store, clock, base_url, config, worker_id, polisher, sandbox, secrets) = (
                    store.clone(),
                    clock.clone(),
                    base_url.clone(),
                    config.clone(),
                    worker_id.clone(),
                    polisher.clone(),
                    sandbox.clone(),
                    secrets.clone(),
                );
                let run_id = run.id;
                let task = tasks.spawn(async move {
                    let job = Job {
                        store: &store,
                        clock: &clock,
                        base_url: &base_url,
                        config: &config,
                        worker_id: &worker_id,
                        polisher: polisher.as_ref(),
                        sandbox: &sandbox,
                        secrets: &secrets,
                    };
                    execute(&job, run).await;
                    drop(permit);
                });
                in_hand.insert(task.id(), run_id);
            }
            Ok(Some(Claimed::Check(check))) => {
                let (store, clock, sandbox, worker_id, secrets) = (
                    store.clone(),
                    clock.clone(),
                    sandbox.clone(),
                    worker_id.clone(),
                    secrets.clone(),
                );
                tasks.spawn(async move {
                    let reader = crate::drift::Reader {
                        store: &store,
                        clock: &clock,
                        sandbox: &sandbox,
                        secrets: &secrets,
                    };
                    crate::drift::execute_check(&reader, &worker_id, check).await;
                    drop(permit);
                });
            }
            Ok(None) => {
                drop(permit);
                idle(&store, &clock, &config, &mut wakeup, &mut shutdown).await;
            }
            Err(e) => {
                drop(permit);
                tracing::warn!(error = %e, "could not claim work");
                shutdown.sleep(Duration::from_secs(1)).await;
            }
        }
        while let Some(done) = tasks.try_join_next_with_id() {
            in_hand.remove(&finished_task(done));
        }
    }
    stop(
        &store,
        &clock,
        &worker_id,
        tasks,
        in_hand,
        config.hand_back_after,
    )
    .await;
}

/// Work the run slots take.
enum Claimed {
    /// A forge push to read: first, as it is short and decides which runs to queue.
    Push(store::ForgeDeliveryRecord),
    Run(RunRecord),
    /// A drift check asked for (over the API, or by a pull request).
    Check(store::DriftCheckRecord),
}

/// The next piece of work for a free slot: a push to read, else a run (priority first), else
/// a drift check.
async fn claim(
    store: &Store,
    worker: &str,
    config: &RunWorkerConfig,
    now: domain::Timestamp,
) -> Result<Option<Claimed>, StoreError> {
    let (lease, attempts) = (now.plus(config.lease), config.max_attempts);
    if let Some(delivery) = store
        .claim_forge_delivery(worker, lease, now, attempts)
        .await?
    {
        return Ok(Some(Claimed::Push(delivery)));
    }
    if let Some(run) = store.claim_run(worker, lease, now, attempts).await? {
        return Ok(Some(Claimed::Run(run)));
    }
    Ok(store
        .claim_drift_check(worker, lease, now, attempts)
        .await?
        .map(Claimed::Check))
}

/// Waits, with nothing to claim, until work is queued, a lease in hand could expire (its
/// worker may have died), the safety poll is due, or the worker is told to stop.
async fn idle(
    store: &Store,
    clock: &Clock,
    config: &RunWorkerConfig,
    wakeup: &mut Wakeup,
    shutdown: &mut Shutdown,
) {
    let now = clock.timestamp();
    let next = store.next_lease_expiry(now).await.ok().flatten();
    let safety = crate::safety_poll(store, config.safety_poll);
    // A lease ends strictly before it can be claimed: wake just after it.
    let until = next.map_or(safety, |at| {
        (at.duration_since(now) + Duration::from_millis(1)).min(safety)
    });
    tokio::select! {
        () = wakeup.woken() => {}
        () = tokio::time::sleep(until) => {}
        () = shutdown.wait() => {}
    }
}

/// The id of a task that ended, however it ended.
fn finished_task(done: Result<(tokio::task::Id, ()), tokio::task::JoinError>) -> tokio::task::Id {
    match done {
        Ok((id, ())) => id,
        Err(e) => e.id(),
    }
}

/// The worker is stopping: the work in hand gets `patience` to finish; then it is cut off (its
/// sandboxed children are killed with it) and each run still in hand goes back to the queue,
/// its log saying so, for another worker to start over at once.
async fn stop(
    store: &Store,
    clock: &Clock,
    worker_id: &str,
    mut tasks: tokio::task::JoinSet<()>,
    mut in_hand: HashMap<tokio::task::Id, RunId>,
    patience: Duration,
) {
    let finished = tokio::time::timeout(patience, async {
        while let Some(done) = tasks.join_next_with_id().await {
            in_hand.remove(&finished_task(done));
        }
    })
    .await;
    if finished.is_ok() {
        return;
    }
    tasks.abort_all();
    while let Some(done) = tasks.join_next_with_id().await {
        if let Ok((id, ())) = done {
            in_hand.remove(&id);
        }
    }
    for run in in_hand.into_values() {
        match store.hand_back_run(run, worker_id, clock.timestamp()).await {
            Ok(true) => {
                log(
                    store,
                    clock,
                    run,
                    LogLevel::Warn,
                    LogStage::Resolve,
                    "handed back: this worker stopped before the run finished; the run goes back \
                     to the queue and starts over (this attempt does not count)",
                )
                .await;
                tracing::info!(%run, "handed a run back to the queue");
            }
            Ok(false) => {}
            Err(e) => tracing::warn!(%run, error = %e, "could not hand a run back; its lease will"),
        }
    }
}

/// Fails runs whose worker died on their last allowed attempt.
async fn fail_abandoned(store: &Store, clock: &Clock, base_url: &str, max_attempts: i64) {
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
        if let Err(e) = finish(store, clock, base_url, None, run, ending, Vec::new()).await {
            tracing::warn!(error = %e, "could not fail an abandoned run");
        }
    }
}

async fn log(
    store: &Store,
    clock: &Clock,
    run: RunId,
    level: LogLevel,
    stage: LogStage,
    message: &str,
) {
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
    base_url: &'a str,
    config: &'a RunWorkerConfig,
    worker_id: &'a str,
    polisher: Option<&'a Polisher>,
    sandbox: &'a Sandbox,
    secrets: &'a webhooks::SecretBox,
}

async fn execute(job: &Job<'_>, run: RunRecord) {
    let Job {
        store,
        clock,
        base_url,
        config,
        worker_id,
        polisher,
        sandbox,
        secrets,
    } = *job;
    let run_id = run.id;
    let workspace_id = run.workspace_id;
    let feature_id = run.feature_id.clone();
    if run.attempts > 1 {
        // Claimed again: the log so far is the earlier attempt's, which did not finish.
        log(
            store,
            clock,
            run_id,
            LogLevel::Warn,
            LogStage::Resolve,
            &format!(
                "attempt {} of {}: the previous worker's lease expired",
                run.attempts, config.max_attempts
            ),
        )
        .await;
    }
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

    let git_ref = run.git_ref.clone();
    let (ending, versions) = match generate(store, clock, sandbox, secrets, &run).await {
        Outcome::Generated(mut output) => {
            if let Some(polisher) = polisher {
                polish(store, clock, &run, polisher, &mut output).await;
            }
            let versions: Vec<NewArticleVersion> = output
                .articles
                .into_iter()
                .map(|a| NewArticleVersion {
                    workspace_id: run.workspace_id,
                    feature_id: run.feature_id.clone(),
                    surface: a.surface,
                    title: a.title,
                    status: a.status,
                    plain_text: pipeline::plain_text(&a.mdx_body),
                    mdx_body: a.mdx_body,
                    provenance: a.provenance,
                    run_id,
                })
                .collect();
            let ending = RunEnding {
                status: RunStatus::Succeeded,
                source_commit: Some(output.commit),
                artifacts: Vec::new(),
                error: None,
            };
            (ending, versions)
        }
        Outcome::Failed(message) => (failed(message), Vec::new()),
        Outcome::Stopped(why) if run.attempts < config.max_attempts => {
            // Like a lost lease: this attempt counts, and the run is claimed again at once.
            log(
                store,
                clock,
                run_id,
                LogLevel::Error,
                LogStage::Validate,
                &format!("{why} The run will be retried."),
            )
            .await;
            heartbeat.abort();
            if let Err(e) = store
                .heartbeat_run(run_id, worker_id, clock.timestamp())
                .await
            {
                tracing::warn!(%run_id, error = %e, "could not hand back a stopped run");
            }
            return;
        }
        Outcome::Stopped(why) => (
            failed(format!(
                "{why} (attempt {} of {})",
                run.attempts, config.max_attempts
            )),
            Vec::new(),
        ),
    };
    let commit = ending.source_commit.clone();
    let result = finish(
        store,
        clock,
        base_url,
        Some(worker_id),
        run,
        ending,
        versions,
    )
    .await;
    heartbeat.abort();
    match result {
        Ok(true) if git_ref.is_empty() => {
            // Every run at the default branch is also a drift check of its feature's articles
            // against the commit it just read (in the mirror it just fetched, for a remote);
            // the rest of the workspace is the periodic checker's. A run at another ref is a
            // preview: it says nothing about the published articles.
            let workspace = store.workspace(workspace_id).await.ok().flatten();
            let source = workspace
                .as_ref()
                .and_then(|w| match (&w.repo_url, &w.repo_path) {
                    (Some(_), _) => Some(Source::Path {
                        path: sandbox.mirrors.mirror_of(&w.id.to_string()),
                    }),
                    (None, Some(path)) => Some(Source::Path { path: path.into() }),
                    (None, None) => None,
                });
            if let (Some(source), Some(commit)) = (source, commit) {
                let reader = crate::drift::Reader {
                    store,
                    clock,
                    sandbox,
                    secrets,
                };
                let checked = reader.check_workspace(
                    workspace_id,
                    Some(&feature_id),
                    source,
                    Some(commit),
                    true,
                );
                if let Err(e) = checked.await {
                    tracing::warn!(%run_id, error = %e, "drift check after the run failed");
                }
            }
        }
        Ok(true) => {}
        Ok(false) => tracing::warn!(%run_id, "lost the run's lease; its result was discarded"),
        Err(e) => {
            tracing::error!(%run_id, error = %e, "could not store the run's result");
            log(
                store,
                clock,
                run_id,
                LogLevel::Error,
                LogStage::Store,
                "The result could not be stored; the run will be retried.",
            )
            .await;
        }
    }
}

/// How generating a run's articles ended.
enum Outcome {
    Generated(RunResult),
    /// The run fails with this message.
    Failed(String),
    /// Its process was stopped (a limit, a crash, the deadline); the attempt counts.
    Stopped(String),
}

fn failed(message: String) -> RunEnding {
    RunEnding {
        status: RunStatus::Failed,
        source_commit: None,
        artifacts: Vec::new(),
        error: Some(message),
    }
}

/// Polishes the generated articles, except those that are the same as their current version
/// (the run will not write them: no need to pay for their polish).
async fn polish(
    store: &Store,
    clock: &Clock,
    run: &RunRecord,
    polisher: &Polisher,
    output: &mut RunResult,
) {
    let run_id = run.id;
    let current = store
        .article_provenances(run.workspace_id, Some(&run.feature_id))
        .await
        .unwrap_or_default();
    for article in &mut output.articles {
        let unchanged = current.iter().any(|c| {
            c.surface == article.surface && same_article(&c.provenance.0, &article.provenance)
        });
        if unchanged {
            continue;
        }
        let (level, message) = match polisher.polish(&article.mdx_body).await {
            Ok(polished) => {
                article.mdx_body = polished;
                (
                    LogLevel::Info,
                    format!("polished the {} article", article.surface),
                )
            }
            Err(why) => (
                LogLevel::Warn,
                format!("kept the deterministic {} text: {why}", article.surface),
            ),
        };
        log(store, clock, run_id, level, LogStage::Render, &message).await;
    }
}

/// Runs the pipeline in a sandboxed child process, streaming its log into the database.
async fn generate(
    store: &Store,
    clock: &Clock,
    sandbox: &Sandbox,
    secrets: &webhooks::SecretBox,
    run: &RunRecord,
) -> Outcome {
    match prepare(store, secrets, sandbox, run).await {
        Ok(work) => run_sandboxed(store, clock, sandbox, run, work).await,
        Err(message) => Outcome::Failed(message),
    }
}

/// What the child needs to know: the repository, the feature, where its changelog resumes and
/// the versions its articles will carry.
async fn prepare(
    store: &Store,
    secrets: &webhooks::SecretBox,
    sandbox: &Sandbox,
    run: &RunRecord,
) -> Result<Work, String> {
    let workspace = store
        .workspace(run.workspace_id)
        .await
        .map_err(|e| e.to_string())?
        .ok_or("The workspace no longer exists.")?;
    let repo =
        crate::repository::source_of(store, secrets, &sandbox.mirrors, &workspace, &run.git_ref)
            .await?;
    let mut commits = store
        .last_successful_commits(run.workspace_id, &run.feature_id)
        .await
        .map_err(|e| e.to_string())?
        .into_iter();
    let (since, previous) = (commits.next(), commits.next());
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
    Ok(Work::Run {
        repo,
        git_ref: Some(run.git_ref.clone()).filter(|r| !r.is_empty()),
        feature_id: run.feature_id.clone(),
        since_commit: since,
        previous_commit: previous,
        surfaces: run.surfaces.as_ref().map(|s| s.0.clone()),
        versions: versions.into_iter().collect(),
    })
}

async fn run_sandboxed(
    store: &Store,
    clock: &Clock,
    sandbox: &Sandbox,
    run: &RunRecord,
    work: Work,
) -> Outcome {
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
    let mut fetched = None;
    let result = sandbox
        .run(
            work,
            |line| {
                let _ = tx.send(line);
            },
            &mut fetched,
        )
        .await;
    drop(tx);
    let _ = writer.await;
    crate::repository::note_fetch(store, clock, run.workspace_id, fetched).await;
    match result {
        Ok(Ok(output)) => Outcome::Generated(output),
        Ok(Err(message)) => Outcome::Failed(message),
        Err(stopped) => Outcome::Stopped(stopped.0),
    }
}

/// Stores the articles, the run's end and the events they cause, in one transaction.
/// Returns false when the run was no longer this worker's.
async fn finish(
    store: &Store,
    clock: &Clock,
    base_url: &str,
    worker: Option<&str>,
    run: RunRecord,
    ending: RunEnding,
    versions: Vec<NewArticleVersion>,
) -> Result<bool, StoreError> {
    let now = clock.timestamp();
    let (base_url, worker) = (base_url.to_owned(), worker.map(str::to_owned));
    let written = store
        .write(move |tx| {
            Box::pin(async move {
                store_ending(tx, &base_url, worker.as_deref(), run, ending, versions, now).await
            })
        })
        .await;
    let finished = match written {
        Ok(finished) => finished,
        Err(Unfinished::NotOurs) => return Ok(false),
        Err(Unfinished::Store(e)) => return Err(e),
    };
    metrics::counter!("pipeline_runs_finished_total", "status" => finished.status.as_str())
        .increment(1);
    if let (Some(started), Some(ended)) = (finished.started_at, finished.finished_at) {
        let seconds = (ended.micros() - started.micros()) as f64 / 1e6;
        metrics::histogram!("pipeline_run_duration_seconds").record(seconds.max(0.0));
    }
    Ok(true)
}

/// Why [`store_ending`] rolled back.
enum Unfinished {
    /// The run is no longer this worker's: nothing it wrote may stay.
    NotOurs,
    Store(StoreError),
}

impl From<StoreError> for Unfinished {
    fn from(e: StoreError) -> Self {
        Unfinished::Store(e)
    }
}

impl From<serde_json::Error> for Unfinished {
    fn from(e: serde_json::Error) -> Self {
        Unfinished::Store(e.into())
    }
}

/// True when two provenances record the same generated article (see `Provenance::body_hash`):
/// a run that produced it again writes no version. Provenances without a hash never match.
fn same_article(current: &serde_json::Value, generated: &serde_json::Value) -> bool {
    let hash = |p: &serde_json::Value| {
        p.get("body_hash")
            .and_then(|h| h.as_str())
            .map(str::to_owned)
    };
    hash(current).is_some_and(|h| Some(h) == hash(generated))
}

/// The writes of [`finish`], in its transaction.
async fn store_ending(
    tx: &mut Tx,
    base_url: &str,
    worker: Option<&str>,
    run: RunRecord,
    mut ending: RunEnding,
    versions: Vec<NewArticleVersion>,
    now: Timestamp,
) -> Result<RunRecord, Unfinished> {
    let mut drafted = Vec::new();
    for version in &versions {
        let current = tx
            .current_article_version(version.workspace_id, &version.feature_id, version.surface)
            .await?;
        if let Some(current) =
            current.filter(|c| same_article(&c.provenance.0, &version.provenance))
        {
            ending.artifacts.push(Artifact {
                article_id: current.article_id,
                surface: version.surface,
                version: current.version,
                unchanged: true,
            });
            continue;
        }
        let article = tx.write_article_version(version, now).await?;
        ending.artifacts.push(Artifact {
            article_id: article.id,
            surface: article.surface,
            version: article.version,
            unchanged: false,
        });
        drafted.push(article);
    }
    let Some(finished) = tx.finish_run(run.id, worker, &ending, now).await? else {
        return Err(Unfinished::NotOurs);
    };
    for article in drafted {
        tx.record_event(
            run.workspace_id,
            EventType::ArticleDrafted,
            serde_json::to_value(views::article_without_body(article))?,
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
            serde_json::to_value(views::run(base_url, finished.clone(), now))?,
            now,
        )
        .await?;
    }
    let (level, message) = match &finished.error {
        None => {
            let unchanged = ending.artifacts.iter().filter(|a| a.unchanged).count();
            let written = ending.artifacts.len() - unchanged;
            (
                LogLevel::Info,
                format!("Stored {written} article version(s); {unchanged} article(s) unchanged."),
            )
        }
        Some(e) => (LogLevel::Error, format!("The run failed: {e}")),
    };
    tx.append_run_event(
        run.id,
        level,
        LogStage::Store,
        &message,
        &serde_json::json!({
            "artifacts": ending.artifacts.len(),
            "unchanged": ending.artifacts.iter().filter(|a| a.unchanged).count(),
        }),
        now,
    )
    .await?;
    if finished.notify_on_complete {
        tx.append_run_event(
            run.id,
            LogLevel::Info,
            LogStage::Notify,
            "Recorded the run's completion event.",
            &serde_json::json!({}),
            now,
        )
        .await?;
    }
    Ok(finished)
}
