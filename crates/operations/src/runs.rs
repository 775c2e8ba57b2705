//! Runs: triggering one (or joining the run already queued for the feature), and
//! regenerating one article, which is a run limited to its surface.

use std::path::Path;

pub use api_types::{RegenerateArticle, TriggerRun};
use domain::RunSource;
use store::{ArticleRecord, NewRun, TriggerOutcome, Tx, WorkspaceRecord};

use crate::Operations;
use crate::error::{Error, Result, required_text};

impl Operations {
    /// The run `req` asks for in `ws`, once its feature resolves in the repository (the
    /// manifest or an implicit feature): an unknown feature is refused now rather than a
    /// failed run later. Reads the repository, so it runs before any transaction opens.
    /// `source` is the front end that asks (the API, the portal, the CLI).
    pub async fn run_to_trigger(
        &self,
        ws: &WorkspaceRecord,
        req: TriggerRun,
        source: RunSource,
    ) -> Result<NewRun> {
        let git_ref = crate::repositories::checked_ref(req.git_ref.as_deref())?;
        self.check_feature(ws, &req.feature_id, &git_ref).await?;
        Ok(NewRun {
            workspace_id: ws.id,
            feature_id: req.feature_id,
            surfaces: None,
            source,
            tier: req.tier.unwrap_or_default(),
            notify_on_complete: req.notify_on_complete.unwrap_or(true),
            git_ref,
            trigger: None,
        })
    }

    /// The run that regenerates `article` (its feature, limited to its surface).
    pub async fn run_to_regenerate(
        &self,
        ws: &WorkspaceRecord,
        article: ArticleRecord,
        req: RegenerateArticle,
        source: RunSource,
    ) -> Result<NewRun> {
        self.check_feature(ws, &article.feature_id, "").await?;
        Ok(NewRun {
            workspace_id: ws.id,
            feature_id: article.feature_id,
            surfaces: Some(vec![article.surface]),
            source,
            tier: req.tier.unwrap_or_default(),
            notify_on_complete: req.notify_on_complete.unwrap_or(true),
            git_ref: String::new(),
            trigger: None,
        })
    }

    /// Queues `new`, or joins the run already queued for its feature.
    pub async fn queue_run(&self, tx: &mut Tx, new: NewRun) -> Result<TriggerOutcome> {
        Ok(tx.trigger_run(new, self.clock.timestamp()).await?)
    }

    /// The features the workspace's manifest declares, for a picker; none without a
    /// repository or a manifest. Reads the repository.
    pub async fn declared_features(
        &self,
        ws: &WorkspaceRecord,
    ) -> Result<Vec<pipeline::DeclaredFeature>> {
        let Some(repo) = ws.repo_path.clone() else {
            return Ok(Vec::new());
        };
        tokio::task::spawn_blocking(move || pipeline::declared_features(Path::new(&repo)))
            .await
            .map_err(Error::internal)?
            .map_err(|e| Error::validation("feature_id", e.to_string()))
    }

    /// Checks the feature where the server can read the code now: a `repo_path` at its HEAD.
    /// A remote, or another ref, is only read by the run (after its fetch): an unknown feature
    /// there fails the run, with the reason in its `error`.
    async fn check_feature(
        &self,
        ws: &WorkspaceRecord,
        feature_id: &str,
        git_ref: &str,
    ) -> Result<()> {
        required_text("feature_id", feature_id, 200)?;
        if feature_id.chars().any(char::is_control) {
            return Err(Error::validation(
                "feature_id",
                "feature_id must not contain control characters.",
            ));
        }
        if ws.repo_url.is_some() {
            return Ok(());
        }
        let Some(repo) = ws.repo_path.clone() else {
            return Err(Error::validation(
                "feature_id",
                "The workspace has no repository (repo_url or repo_path), so no feature can resolve.",
            ));
        };
        if !git_ref.is_empty() {
            return Ok(());
        }
        let (ops, feature) = (self.clone(), feature_id.to_owned());
        tokio::task::spawn_blocking(move || ops.features.check(Path::new(&repo), &feature))
            .await
            .map_err(Error::internal)?
            .map_err(|message| Error::validation("feature_id", message))
    }
}
