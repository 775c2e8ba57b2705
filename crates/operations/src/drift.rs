//! Drift: what a check found (the `data` of `drift.detected`, the report a check keeps) and
//! asking for a check. The checks themselves run in the workers' sandbox.

use std::time::Duration;

pub use api_types::{DriftCheck, DriftReport};
use domain::RunStatus;
use serde::{Deserialize, Serialize};
use store::{ArticleRecord, DriftCheckRecord, Tx, WorkspaceRecord};

use crate::Operations;
use crate::error::{Error, Result};

/// What one check of a workspace found.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DriftSummary {
    pub head_commit: Option<String>,
    pub articles_checked: usize,
    /// Articles whose sources changed since their current version, newly reported or not.
    pub drifted: Vec<DriftReport>,
    /// How many `drift.detected` events this check recorded (0 when all were known).
    pub events_recorded: usize,
}

/// A check with its link under `base_url` (no trailing slash) and, once it has finished,
/// what it found.
pub fn drift_check_view(base_url: &str, r: DriftCheckRecord) -> Result<DriftCheck> {
    let summary = match r.result {
        Some(j) => serde_json::from_value::<DriftSummary>(j.0).map_err(Error::internal)?,
        None => DriftSummary::default(),
    };
    Ok(DriftCheck {
        check_url: format!("{base_url}/v1/drift-checks/{}", r.id),
        id: r.id,
        workspace_id: r.workspace_id,
        status: r.status,
        created_at: r.created_at,
        finished_at: r.finished_at,
        error: r.error,
        head_commit: summary.head_commit,
        git_ref: Some(r.git_ref).filter(|g| !g.is_empty()),
        articles_checked: summary.articles_checked,
        drifted: summary.drifted,
        events_recorded: summary.events_recorded,
    })
}

/// How often a caller waiting for a check looks at it again.
const POLL: Duration = Duration::from_millis(25);

/// The most drift notices one article's page shows.
const NOTICES_SHOWN: i64 = 20;

impl Operations {
    /// The drift raised for `article` since its current version was written (older notices
    /// concern a version that regeneration replaced), newest first.
    pub async fn drift_notices(&self, article: &ArticleRecord) -> Result<Vec<DriftReport>> {
        let reports = self
            .store
            .drift_reports(article.id, article.updated_at, NOTICES_SHOWN)
            .await?;
        Ok(reports
            .into_iter()
            .filter_map(|r| serde_json::from_value::<DriftReport>(r.0).ok())
            .collect())
    }

    /// Queues a drift check of `ws` at `git_ref` (`None`: the default branch), or joins the
    /// one already queued at that ref; a workspace without a repository has nothing to check.
    pub async fn queue_drift_check(
        &self,
        tx: &mut Tx,
        ws: &WorkspaceRecord,
        git_ref: Option<&str>,
    ) -> Result<DriftCheckRecord> {
        crate::repositories::require_repository(ws)?;
        let git_ref = crate::repositories::checked_ref(git_ref)?;
        Ok(tx
            .queue_drift_check(ws.id, &git_ref, self.clock.timestamp())
            .await?)
    }

    /// `check` once it has finished, or as it stands after `within`.
    pub async fn await_drift_check(
        &self,
        mut check: DriftCheckRecord,
        within: Duration,
    ) -> Result<DriftCheck> {
        let deadline = tokio::time::Instant::now() + within;
        while !matches!(check.status, RunStatus::Succeeded | RunStatus::Failed)
            && tokio::time::Instant::now() < deadline
        {
            tokio::time::sleep(POLL).await;
            if let Some(now) = self.store.drift_check(check.id).await? {
                check = now;
            }
        }
        drift_check_view(&self.base_url, check)
    }
}
