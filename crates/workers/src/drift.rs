//! The drift checker: compares what each article was built from (its provenance: commit, blob
//! hashes, symbol token hashes) with the repository's HEAD, and records `drift.detected` once
//! per (article, HEAD commit). It runs after every run (on the articles of the run's feature
//! only, so its cost does not grow with the workspace), every `CONTENT_PIPELINE_DRIFT_INTERVAL`
//! and on demand (`POST /v1/workspaces/{ws}/drift-check`) on the whole workspace.

use domain::{ArticleId, Clock, EventType, WorkspaceId};
use operations::drift::DriftSummary;
use store::{DriftCheckRecord, Store, StoreError};
use webhooks::SecretBox;

use crate::sandbox::{ArticleToCheck, DriftResult, Sandbox, Source, Work};

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

/// What a drift check reads with: the store, the sandbox its child runs in, and the key that
/// opens repository credentials.
pub struct Reader<'a> {
    pub store: &'a Store,
    pub clock: &'a Clock,
    pub sandbox: &'a Sandbox,
    pub secrets: &'a SecretBox,
}

impl Reader<'_> {
    /// Checks `ws` at `git_ref` ('' = the default branch), fetching a remote first.
    async fn check_at(
        &self,
        ws: &store::WorkspaceRecord,
        git_ref: &str,
    ) -> Result<DriftSummary, DriftError> {
        let source = crate::repository::source_of(
            self.store,
            self.secrets,
            &self.sandbox.mirrors,
            ws,
            git_ref,
        )
        .await
        .map_err(DriftError::Repository)?;
        // A check at another ref than the default branch is a preview (a pull request's): it
        // reports what drifted, and records no drift notice or event.
        let notify = git_ref.is_empty();
        let git_ref = Some(git_ref.to_owned()).filter(|r| !r.is_empty());
        self.check_workspace(ws.id, None, source, git_ref, notify)
            .await
    }

    /// Checks the articles of `workspace` (only those of `feature` when given) against the code
    /// of `source` at `git_ref` (default: its HEAD), in a sandboxed child process. With `notify`,
    /// each drifted article is noted and `drift.detected` recorded once per (article, commit).
    pub async fn check_workspace(
        &self,
        workspace: WorkspaceId,
        feature: Option<&str>,
        source: Source,
        git_ref: Option<String>,
        notify: bool,
    ) -> Result<DriftSummary, DriftError> {
        let Self {
            store,
            clock,
            sandbox,
            ..
        } = *self;
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
            repo: source,
            git_ref,
            articles,
        };
        let mut fetched = None;
        let result = sandbox.check_drift(work, &mut fetched).await;
        crate::repository::note_fetch(store, clock, workspace, fetched).await;
        let DriftResult { head, drifted } = result
            .map_err(|stopped| DriftError::Repository(stopped.0))?
            .map_err(DriftError::Repository)?;
        if !notify {
            return Ok(DriftSummary {
                head_commit: Some(head),
                articles_checked: checked,
                drifted,
                events_recorded: 0,
            });
        }

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
}

/// Does one drift check asked for over the API and stores its report (or why it failed) on
/// the check.
pub async fn execute_check(reader: &Reader<'_>, worker: &str, check: DriftCheckRecord) {
    let (store, clock) = (reader.store, reader.clock);
    let workspace = match store.workspace(check.workspace_id).await {
        Ok(ws) => ws,
        Err(e) => {
            tracing::warn!(check = %check.id, error = %e, "could not read a drift check's workspace");
            return;
        }
    };
    let outcome = match &workspace {
        None => Err("The workspace no longer exists.".to_owned()),
        Some(ws) => reader
            .check_at(ws, &check.git_ref)
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
    // A pull request's check: its commit status now says what the check found.
    let summary = outcome
        .as_ref()
        .ok()
        .and_then(|v| serde_json::from_value::<DriftSummary>(v.clone()).ok());
    let verdict = match (&summary, &outcome) {
        (Some(summary), _) => Ok(summary),
        (None, Err(e)) => Err(e.as_str()),
        (None, Ok(_)) => Err("its report could not be read"),
    };
    let (state, description) = operations::forge::verdict(verdict);
    let set = store
        .set_commit_state(check.id, state.as_str(), &description, clock.timestamp())
        .await;
    if let Err(e) = set {
        tracing::warn!(check = %check.id, error = %e, "could not set a pull request's commit status");
    }
}

/// The periodic checker, every `ctx.drift_interval` (started only when it is not zero).
pub async fn drift_worker(ctx: WorkerContext, mut shutdown: Shutdown) {
    let secrets = crate::repository::credentials_box(&ctx.server_key);
    loop {
        shutdown.sleep(ctx.drift_interval).await;
        if shutdown.is_triggered() {
            return;
        }
        let Ok(workspaces) = ctx.store.workspaces_with_repositories().await else {
            continue;
        };
        let reader = Reader {
            store: &ctx.store,
            clock: &ctx.clock,
            sandbox: &ctx.sandbox,
            secrets: &secrets,
        };
        for ws in workspaces {
            if let Err(e) = reader.check_at(&ws, "").await {
                tracing::warn!(workspace = %ws.id, error = %e, "drift check failed");
            }
        }
    }
}
