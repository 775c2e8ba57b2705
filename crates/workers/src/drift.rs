//! The drift checker: compares what each article was built from (its provenance: commit, blob
//! hashes, symbol token hashes) with the repository's HEAD, and records `drift.detected` once
//! per (article, HEAD commit). It runs after every run (on the articles of the run's feature
//! only, so its cost does not grow with the workspace), every `CONTENT_PIPELINE_DRIFT_INTERVAL`
//! and on demand (`POST /v1/workspaces/{ws}/drift-check`) on the whole workspace.

use std::path::Path;

use domain::{ArticleId, Clock, EventType, WorkspaceId};
use operations::drift::DriftSummary;
use store::{DriftCheckRecord, Store, StoreError};

use crate::sandbox::{ArticleToCheck, DriftResult, Sandbox, Work};

use crate::{Shutdown, WorkerContext};

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

/// Checks the articles of `workspace` (only those of `feature` when given) against the HEAD
/// of its repository at `repo` (the caller holds the workspace record), in a sandboxed child
/// process.
pub async fn check_workspace(
    store: &Store,
    clock: &Clock,
    sandbox: &Sandbox,
    workspace: WorkspaceId,
    feature: Option<&str>,
    repo: &Path,
) -> Result<DriftSummary, DriftError> {
    let articles: Vec<ArticleToCheck> = store
        .article_provenances(workspace, feature)
        .await?
        .into_iter()
        .map(|a| ArticleToCheck {
            article_id: a.id.to_string(),
            feature_id: a.feature_id,
            surface: a.surface,
            provenance: a.provenance.0,
        })
        .collect();
    let checked = articles.len();
    let work = Work::Drift {
        repo: repo.to_path_buf(),
        articles,
    };
    let DriftResult { head, drifted } = sandbox
        .check_drift(work)
        .await
        .map_err(|stopped| DriftError::Repository(stopped.0))?
        .map_err(DriftError::Repository)?;

    let now = clock.timestamp();
    let (drifted, events_recorded) = store
        .write(move |tx| {
            Box::pin(async move {
                let mut events_recorded = 0;
                for report in &drifted {
                    let Ok(article_id) = report.article_id.parse::<ArticleId>() else {
                        continue;
                    };
                    let data = serde_json::to_value(report)
                        .map_err(|e| DriftError::Repository(e.to_string()))?;
                    if tx
                        .note_drift(article_id, &report.current_commit, &data, now)
                        .await?
                    {
                        tx.record_event(workspace, EventType::DriftDetected, data, now)
                            .await?;
                        events_recorded += 1;
                    }
                }
                Ok::<_, DriftError>((drifted, events_recorded))
            })
        })
        .await?;
    Ok(DriftSummary {
        head_commit: Some(head),
        articles_checked: checked,
        drifted,
        events_recorded,
    })
}

/// Does one drift check asked for over the API and stores its report (or why it failed) on
/// the check.
pub async fn execute_check(
    store: &Store,
    clock: &Clock,
    sandbox: &Sandbox,
    worker: &str,
    check: DriftCheckRecord,
) {
    let workspace = match store.workspace(check.workspace_id).await {
        Ok(ws) => ws,
        Err(e) => {
            tracing::warn!(check = %check.id, error = %e, "could not read a drift check's workspace");
            return;
        }
    };
    let outcome = match workspace.as_ref().and_then(|w| w.repo_path.as_deref()) {
        None => Err("The workspace has no repo_path.".to_owned()),
        Some(repo) => check_workspace(
            store,
            clock,
            sandbox,
            check.workspace_id,
            None,
            Path::new(repo),
        )
        .await
        .map_err(|e| e.to_string())
        .and_then(|summary| serde_json::to_value(summary).map_err(|e| e.to_string())),
    };
    let finished = store
        .finish_drift_check(
            check.id,
            worker,
            outcome.as_ref().map_err(String::as_str),
            clock.timestamp(),
        )
        .await;
    if let Err(e) = finished {
        tracing::warn!(check = %check.id, error = %e, "could not store a drift check's result");
    }
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
            let checked = check_workspace(
                &ctx.store,
                &ctx.clock,
                &ctx.sandbox,
                ws.id,
                None,
                Path::new(repo),
            );
            if let Err(e) = checked.await {
                tracing::warn!(workspace = %ws.id, error = %e, "drift check failed");
            }
        }
    }
}
