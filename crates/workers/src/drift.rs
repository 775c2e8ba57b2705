//! The drift checker: compares what each article was built from (its provenance: commit, blob
//! hashes, symbol token hashes) with the repository's HEAD, and records `drift.detected` once
//! per (article, HEAD commit). It runs after every run, every `CONTENT_PIPELINE_DRIFT_INTERVAL`,
//! and on demand (`POST /v1/workspaces/{ws}/drift-check`).

use std::path::Path;

use domain::{Clock, EventType, WorkspaceId};
use pipeline::{Change, DriftChecker, Provenance};
use serde::Serialize;
use store::{ArticleProvenance, Store, StoreError};

use crate::{Shutdown, WorkerContext};

/// The `data` of a `drift.detected` event.
#[derive(Clone, Debug, Serialize)]
pub struct DriftReport {
    pub article_id: String,
    pub feature_id: String,
    pub surface: String,
    pub article_commit: String,
    pub current_commit: String,
    pub changes: Vec<Change>,
}

/// What one check of a workspace found.
#[derive(Clone, Debug, Serialize)]
pub struct DriftSummary {
    pub head_commit: Option<String>,
    pub articles_checked: usize,
    /// Articles whose sources changed since their current version, newly reported or not.
    pub drifted: Vec<DriftReport>,
    /// How many `drift.detected` events this check recorded (0 when all were known).
    pub events_recorded: usize,
}

#[derive(Debug)]
pub enum DriftError {
    Store(StoreError),
    /// The repository could not be read; the message says why.
    Repository(String),
}

impl std::fmt::Display for DriftError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DriftError::Store(e) => write!(f, "{e}"),
            DriftError::Repository(e) => f.write_str(e),
        }
    }
}

impl From<StoreError> for DriftError {
    fn from(e: StoreError) -> Self {
        DriftError::Store(e)
    }
}

/// Checks every article of `workspace` against the HEAD of its repository at `repo` (the
/// caller holds the workspace record).
pub async fn check_workspace(
    store: &Store,
    clock: &Clock,
    workspace: WorkspaceId,
    repo: &Path,
) -> Result<DriftSummary, DriftError> {
    let repo = repo.to_path_buf();
    let articles = store.article_provenances(workspace).await?;
    let checked = articles.len();
    let (head, drifted) = tokio::task::spawn_blocking(move || compare(&repo, articles))
        .await
        .map_err(|e| DriftError::Repository(e.to_string()))??;

    let now = clock.timestamp();
    let mut tx = store.begin().await?;
    let mut events_recorded = 0;
    for (article_id, report) in &drifted {
        if tx
            .note_drift(*article_id, &report.current_commit, now)
            .await?
        {
            let data = serde_json::to_value(report).unwrap_or_default();
            tx.record_event(workspace, EventType::DriftDetected, data, now)
                .await?;
            events_recorded += 1;
        }
    }
    tx.commit().await?;
    Ok(DriftSummary {
        head_commit: Some(head),
        articles_checked: checked,
        drifted: drifted.into_iter().map(|(_, r)| r).collect(),
        events_recorded,
    })
}

type Drifted = Vec<(domain::ArticleId, DriftReport)>;

fn compare(
    repo: &std::path::Path,
    articles: Vec<ArticleProvenance>,
) -> Result<(String, Drifted), DriftError> {
    let checker = DriftChecker::open(repo, &pipeline::Limits::default())
        .map_err(|e| DriftError::Repository(e.to_string()))?;
    let head = checker.head_commit().to_owned();
    let mut drifted = Vec::new();
    for item in articles {
        let Ok(provenance) = serde_json::from_value::<Provenance>(item.provenance.0) else {
            continue;
        };
        if provenance.commit == head {
            continue;
        }
        let changes = checker
            .check(&provenance)
            .map_err(|e| DriftError::Repository(e.to_string()))?;
        if changes.is_empty() {
            continue;
        }
        drifted.push((
            item.id,
            DriftReport {
                article_id: item.id.to_string(),
                feature_id: item.feature_id,
                surface: item.surface.to_string(),
                article_commit: provenance.commit.clone(),
                current_commit: head.clone(),
                changes,
            },
        ));
    }
    Ok((head, drifted))
}

/// The periodic checker, every `ctx.drift_interval` (started only when it is not zero).
pub async fn drift_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    loop {
        shutdown.sleep(ctx.drift_interval).await;
        if shutdown.is_triggered() {
            return;
        }
        let Ok(workspaces) = ctx.store.workspaces_with_repositories().await else {
            continue;
        };
        for ws in workspaces {
            let Some(repo) = ws.repo_path.as_deref() else {
                continue;
            };
            if let Err(e) = check_workspace(&ctx.store, &ctx.clock, ws.id, Path::new(repo)).await {
                tracing::warn!(workspace = %ws.id, error = %e, "drift check failed");
            }
        }
    }
}
